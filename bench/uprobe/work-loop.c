// SPDX-License-Identifier: GPL-2.0
/*
 * work-loop.c - the workload of bench/uprobe.sh: N calls of a function
 * work() that the compiler may neither inline nor drop; prints the
 * CLOCK_MONOTONIC nanoseconds the loop took.  Under QEMU's -icount
 * shift=0 a guest nanosecond is one instruction.  The probes sit on
 * work(): its entry, and for the return probes its return.
 *
 *   work-loop N
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) long work(long x)
{
	/* an empty asm that the optimizer must keep: work() stays a call */
	asm volatile("" : "+r"(x));
	return x + 1;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long t0, t1;
	long i, n, sum = 0;
	char *end;

	if (argc != 2) {
		fprintf(stderr, "usage: work-loop N\n");
		return 2;
	}
	n = strtol(argv[1], &end, 10);
	if (*end || n <= 0) {
		fprintf(stderr, "work-loop: bad count '%s'\n", argv[1]);
		return 2;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		sum = work(sum);
	t1 = now_ns();
	if (sum != n)
		fprintf(stderr, "work-loop: work() went wrong\n");
	printf("%lld\n", t1 - t0);
	return sum != n;
}
