/* watched.c - the target of the process.data watchpoint tests: N writes
 * of watched and of watched2 (1 to N), then N reads of each, with
 * nothing else touching them; built without PIE, so that nm gives
 * their addresses at run time.
 *
 * usage: watched [N]     (N defaults to 3; prints the sum of the reads)
 */
#include <stdio.h>
#include <stdlib.h>

volatile int watched;
volatile int watched2;
volatile int neighbour;		/* never accessed */

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	int i, sum = 0;

	for (i = 0; i < n; i++) {
		watched = i + 1;
		watched2 = i + 1;
	}
	for (i = 0; i < n; i++)
		sum += watched + watched2;
	printf("%d\n", sum);
	return 0;
}
