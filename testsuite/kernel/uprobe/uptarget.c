// SPDX-License-Identifier: GPL-2.0
/*
 * uptarget.c - the program uptest.ko probes (built static on the host):
 * a noinline work(x, s) for entry and return probes, mark(arg) behind a
 * USDT-style semaphore, and the calls the tests need around them.
 *
 *   uptarget run N FIFO DONE   fork a child that calls work(500), run
 *                              a thread that calls work(300); if
 *                              FIFO is not "-", release the process
 *                              waiting on it and wait for DONE to exist;
 *                              work(100, a fresh mapping never touched),
 *                              work(0..N-1, "hello"), work(200, a bad
 *                              pointer), then mark(42) if the semaphore
 *                              is set
 *   uptarget wait FIFO DONE X  block on FIFO, call work(X, "other")
 *                              three times, create DONE
 *   uptarget loop              work(7, "loop") every 10 ms, forever
 * Each prints "sem=N" (the semaphore as it found it) and "sum=N".
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The semaphore: a short in a data section of the file, which the kernel
 * counts up while a probe with it is attached to this process.
 */
__attribute__((section(".probes"), used))
volatile unsigned short uptarget_sem = 0;

static long sum;

__attribute__((noinline, used))
long work(long x, const char *s)
{
	asm volatile("" : : "r"(s) : "memory");
	return 2 * x + 1;
}

__attribute__((noinline, used))
void mark(long arg)
{
	asm volatile("" : : "r"(arg) : "memory");
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* A page of a file mapped and never touched: not in the page tables
 * until something faults it in.
 */
static const char *fresh_string(void)
{
	static const char text[] = "fresh page string";
	const char *name = "/tmp/uptarget.fresh";
	void *p;
	int fd;

	fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, text, sizeof(text)) != sizeof(text)) {
		perror(name);
		exit(1);
	}
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	close(fd);
	return p;
}

static void wait_file(const char *name)
{
	struct stat st;
	int i;

	for (i = 0; i < 1000 && stat(name, &st) < 0; i++)
		sleep_ms(10);
}

static void *thread_main(void *arg)
{
	sum += work(300, arg);
	return NULL;
}

static int run(int argc, char **argv)
{
	long i, n = argc > 2 ? atol(argv[2]) : 1;
	pthread_t thread;
	pid_t child;
	int fd;

	child = fork();
	if (child == 0)
		_exit(work(500, "child") == 1001 ? 0 : 1);
	waitpid(child, NULL, 0);
	if (pthread_create(&thread, NULL, thread_main, "thread") ||
	    pthread_join(thread, NULL)) {
		fprintf(stderr, "uptarget: no thread\n");
		return 1;
	}
	if (argc > 4 && strcmp(argv[3], "-")) {
		fd = open(argv[3], O_WRONLY);
		if (fd < 0 || write(fd, "g", 1) != 1) {
			perror(argv[3]);
			return 1;
		}
		close(fd);
		wait_file(argv[4]);
	}
	sum += work(100, fresh_string());
	for (i = 0; i < n; i++)
		sum += work(i, "hello");
	sum += work(200, (const char *)16);
	printf("sem=%u\n", uptarget_sem);
	if (uptarget_sem)
		mark(42);
	printf("sum=%ld\n", sum);
	return 0;
}

static int wait_and_work(int argc, char **argv)
{
	long x = argc > 4 ? atol(argv[4]) : 1000;
	char c;
	int fd, i;

	fd = open(argv[2], O_RDONLY);
	if (fd < 0 || read(fd, &c, 1) != 1) {
		perror(argv[2]);
		return 1;
	}
	close(fd);
	for (i = 0; i < 3; i++)
		sum += work(x, "other");
	printf("sem=%u\n", uptarget_sem);
	printf("sum=%ld\n", sum);
	fflush(stdout);
	fd = open(argv[3], O_WRONLY | O_CREAT, 0600);
	if (fd >= 0)
		close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "run"))
		return run(argc, argv);
	if (argc > 3 && !strcmp(argv[1], "wait"))
		return wait_and_work(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "loop")) {
		for (;;) {
			sum += work(7, "loop");
			sleep_ms(10);
		}
	}
	fprintf(stderr, "usage: uptarget run N FIFO DONE | wait FIFO DONE X "
		"| loop\n");
	return 2;
}
