/* uselib.c - a program that calls into libtrace.so (found through its
 * DT_RUNPATH, $ORIGIN) and into libc through the PLT.
 */
#include <stdio.h>
#include <string.h>

#include "libtrace.h"

int main(void)
{
	int v[4] = { 1, 2, 3, 4 };
	const char *name = lib_name();
	int sum = lib_sum(v, 4);
	size_t len = strlen(name);

	printf("%s: %d %zu\n", name, sum, len);
	return 0;
}
