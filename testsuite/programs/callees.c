/* callees.c - calls three levels deep, for the .callee and .callees
 * probes of process(...).function(...): main calls level1 and other
 * once per round; level1 calls level2, which calls level3; other
 * calls level3 too.  Built -O2 so that the compiler records its call
 * sites (DW_TAG_call_site); noipa keeps each function and its calls
 * as written (no inlining, cloning or tail calls: each result is
 * used after the call).
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noipa)) int level3(int a, int b)
{
	return a + b;
}

__attribute__((noipa)) int level2(int a, int b)
{
	return level3(a - b, a + b) * 2;
}

__attribute__((noipa)) int level1(int a, int b)
{
	return level2(a / b, a % b) + 1;
}

__attribute__((noipa)) int other(int a)
{
	return level3(a, a) + 3;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	int i, sum = 0;

	for (i = 0; i < rounds; i++) {
		sum += level1(i + 7, 3);
		sum += other(i);
	}
	printf("%d\n", sum);
	return 0;
}
