/* trace.c - the program of the user-space walkthrough: a loop in main
 * whose result ret a statement probe reads, calls and returns to follow
 * (compute -> add, square), a structure behind a pointer, and work(),
 * a function that is never inlined, for the overhead benchmark.
 */
#include <stdio.h>
#include <stdlib.h>

struct point {
	int x;
	int y;
	const char *label;
};

static int square(int v)
{
	return v * v;
}

int add(int a, int b)
{
	return a + b;
}

__attribute__((noinline)) long work(long n)
{
	return n + 1;
}

int compute(int n, struct point *p)
{
	int ret = 0;
	int i;

	for (i = 0; i < n; i++)
		ret = add(ret, square(i));
	p->x = ret;
	return ret;
}

int main(int argc, char **argv)
{
	struct point pt = { 1, 2, "origin" };
	int n = argc > 1 ? atoi(argv[1]) : 3;
	long i, loops = argc > 2 ? atol(argv[2]) : 0;
	int ret;

	ret = compute(n, &pt);
	ret += 1;
	for (i = 0; i < loops; i++)
		work(i);
	printf("ret=%d label=%s\n", ret, pt.label);
	return 0;
}
