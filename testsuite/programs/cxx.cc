// cxx.cc - C++ names: a namespace, a class with methods, an overloaded
// function; listed by their DWARF names, matched with their scope too.
#include <cstdio>

namespace geo {

class Point {
public:
	Point(int x, int y) : x_(x), y_(y) {}
	int norm2() const;
	void move(int dx, int dy);

private:
	int x_;
	int y_;
};

int Point::norm2() const
{
	return x_ * x_ + y_ * y_;
}

void Point::move(int dx, int dy)
{
	x_ += dx;
	y_ += dy;
}

} // namespace geo

int twice(int v)
{
	return 2 * v;
}

long twice(long v)
{
	return 2 * v;
}

int main()
{
	geo::Point p(3, 4);
	int n, a;
	long b;

	p.move(1, 1);
	n = p.norm2();
	a = twice(2);
	b = twice(3L);
	std::printf("%d %d %ld\n", n, a, b);
	return 0;
}
