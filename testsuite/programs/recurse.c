/* recurse.c - the target of the .return probes that read values saved
 * at entry: fact(), recursive, whose frames each have their own n; and
 * dive(), whose innermost frame may longjmp out of all of them, so that
 * their returns never come.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;

__attribute__((noinline)) long fact(long n, const char *tag)
{
	if (n <= 1)
		return 1;
	return n * fact(n - 1, tag);
}

__attribute__((noinline)) int dive(int depth, int jump)
{
	if (depth == 0) {
		if (jump)
			longjmp(env, 1);
		return 0;
	}
	return dive(depth - 1, jump) + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4;
	long m = argc > 2 ? atol(argv[2]) : 0;
	int i;

	for (i = 0; i < 3; i++)
		if (!setjmp(env))
			dive(3, 1);
	dive(2, 0);
	printf("%ld\n", fact(n, "first"));
	if (m)
		printf("%ld\n", fact(m, "second"));
	return 0;
}
