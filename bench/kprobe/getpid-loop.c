// SPDX-License-Identifier: GPL-2.0
/*
 * getpid-loop.c - the workload of bench/kprobe.sh: N getpid() system
 * calls, through syscall() so that nothing caches the answer; prints
 * the CLOCK_MONOTONIC nanoseconds the loop took.  Under QEMU's
 * -icount shift=0 a guest nanosecond is one instruction.
 *
 *   getpid-loop N
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long t0, t1;
	long i, n;
	char *end;

	if (argc != 2) {
		fprintf(stderr, "usage: getpid-loop N\n");
		return 2;
	}
	n = strtol(argv[1], &end, 10);
	if (*end || n <= 0) {
		fprintf(stderr, "getpid-loop: bad count '%s'\n", argv[1]);
		return 2;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		syscall(SYS_getpid);
	t1 = now_ns();
	printf("%lld\n", t1 - t0);
	return 0;
}
