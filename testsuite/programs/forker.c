/* forker.c - the target of the hostile uprobe case: a probed function,
 * tick(), called in the parent, in forked children, in a child killed
 * with SIGKILL while it calls tick() in a loop, and around a child that
 * execs another program (argv[1]), where tick() is not.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int tick(int who)
{
	return who + 1;
}

static void reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		;
}

int main(int argc, char **argv)
{
	volatile int sum = tick(0);
	pid_t pid;
	int i;

	for (i = 1; i <= 3; i++) {
		pid = fork();
		if (pid == 0)
			_exit(tick(i) == i + 1 ? 0 : 1);
		reap(pid);
	}
	pid = fork();
	if (pid == 0)
		for (;;)
			sum += tick(100);
	usleep(200000);
	kill(pid, SIGKILL);
	reap(pid);
	if (argc > 1) {
		pid = fork();
		if (pid == 0) {
			execv(argv[1], argv + 1);
			_exit(127);
		}
		reap(pid);
	}
	sum += tick(0);
	printf("forker: done\n");
	return 0;
}
