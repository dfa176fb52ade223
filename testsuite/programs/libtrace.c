/* libtrace.c - a shared library for library("libtrace.so") probes and
 * process("libtrace.so") probes on every program that maps it, with an
 * SDT marker that has no semaphore.
 */
#include "libtrace.h"

#include <sys/sdt.h>

static int scale = 3;

int lib_sum(const int *v, int n)
{
	int sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += v[i] * scale;
	STAP_PROBE2(libtrace, summed, n, sum);
	return sum;
}

const char *lib_name(void)
{
	return "libtrace";
}
