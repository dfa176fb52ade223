/* stacks.c - a call chain main -> outer -> middle -> inner built with
 * -O2 -fomit-frame-pointer: only the call frame information (.eh_frame)
 * says where each caller's frame is.  middle() saves %rbp and zeroes
 * it, so that a frame-pointer walk cannot get past it.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long inner(long x)
{
	volatile long v[8];

	v[x & 7] = x;
	return v[x & 7] * 3 + 1;
}

__attribute__((noinline)) long middle(long x)
{
	long r;

	asm volatile("xor %%ebp, %%ebp" : : : "rbp");
	r = inner(x + 1);
	asm volatile("" : : : "memory");
	return r + x;
}

__attribute__((noinline)) long outer(long x)
{
	long r = middle(x * 2);

	asm volatile("" : : : "memory");
	return r - 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;

	printf("%ld\n", outer(n));
	return 0;
}
