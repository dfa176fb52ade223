/* live.c - the target of the live-patching tests: it prints price(7)
 * every 20 ms until the file named by its first argument exists, then
 * once more, and creates the file named by its second argument as it
 * ends.  A script that rewrites price()'s argument or result changes
 * the lines while it runs; once it stopped the lines are as before.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) int price(int n)
{
	return n * 2;
}

int main(int argc, char **argv)
{
	int last = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: live STOPFILE DONEFILE\n");
		return 2;
	}
	for (;;) {
		printf("price(7) = %d\n", price(7));
		fflush(stdout);
		if (last)
			break;
		last = access(argv[1], F_OK) == 0;
		usleep(20000);
	}
	close(open(argv[2], O_WRONLY | O_CREAT, 0644));
	return 0;
}
