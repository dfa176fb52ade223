/* globals.c - variables at file scope for @var in user-space probes: a
 * global the loop counts in, a structure, a static pointer to a string;
 * step() is called once per round, after counter changed.
 *
 * usage: globals [N]     (N defaults to 3; prints the final counter)
 */
#include <stdio.h>
#include <stdlib.h>

struct config {
	int level;
	long limit;
};

int counter;
struct config config = { 7, 1000 };
static const char *label = "globals";

__attribute__((noinline)) void step(int i)
{
	config.level += i;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	int i;

	for (i = 0; i < n; i++) {
		counter += 10;
		step(i);
	}
	printf("%s %d\n", label, counter);
	return 0;
}
