/* labels.c - C labels for .label probes: classify() jumps to one of
 * two labels, the second in a nested block, for each value of a loop
 * from -1 to N - 1 (N is the first argument, 3 by default).
 */
#include <stdlib.h>

__attribute__((noinline)) int classify(int v)
{
	int r = 0;

	if (v < 0)
		goto negative;
	{
		int twice = v * 2;

		r = twice;
		goto out;
	}
negative:
	r = -v;
out:
	return r;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	int i, sum = 0;

	for (i = -1; i < n; i++)
		sum += classify(i);
	return sum > 0 ? 0 : 1;
}
