/* syscalls.c - the target of the syscall tapset tests: a fixed series of
 * system calls with known arguments and results, made with syscall(2)
 * so that no C library version changes them.  The first one, a kill of
 * pid 0x7fffffff, marks the start for the scripts (the dynamic loader
 * runs before it).  The program prints nothing and runs on CPU 0 only.
 * Every argument is passed, a mode of 0 too, so that no register holds
 * leftovers.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char msg[] = "hello tapir\n";
static const char missing[] = "/tapir/no/such/file";
static const char tmp[] = "tapir-sc.tmp";

/* Read every byte of s: a probe on a system call cannot fault a page in,
 * so a string on a page the program never touched reads as its address.
 */
volatile char touched;

static void touch(const char *s)
{
	while (*s)
		touched = *s++;
}

int main(void)
{
	static const char *const argv[] = { "tapir", "-x", "a \"b\"", NULL };
	static const char *const envp[] = { "A=1", "B=2", NULL };
	struct timespec ts = { 0, 1000 };
	cpu_set_t cpu0;
	char buf[64];
	long fd;

	/* One CPU: what the probes print comes out in the order of the
	 * calls (each CPU has its own output buffer).
	 */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	sched_setaffinity(0, sizeof(cpu0), &cpu0);
	touch(missing);
	touch(tmp);
	touch(msg);
	touch(argv[0]);
	touch(argv[1]);
	touch(argv[2]);
	touch(envp[0]);
	syscall(SYS_kill, 0x7fffffff, SIGINT);		/* ESRCH */
	syscall(SYS_openat, AT_FDCWD, missing,
		O_RDONLY | O_CLOEXEC, 0);		/* ENOENT */
	fd = syscall(SYS_openat, AT_FDCWD, tmp,
		     O_WRONLY | O_CREAT | O_TRUNC, 0644);
	syscall(SYS_write, fd, msg, sizeof(msg) - 1);
	syscall(SYS_close, fd);
	fd = syscall(SYS_open, tmp, O_RDONLY, 0);
	syscall(SYS_read, fd, buf, sizeof(buf));
	syscall(SYS_lseek, fd, 6, SEEK_SET);
	syscall(SYS_read, fd, buf, sizeof(buf));
	syscall(SYS_close, fd);
	syscall(SYS_close, -1);				/* EBADF */
	syscall(SYS_access, tmp, R_OK | W_OK);
	syscall(SYS_unlink, tmp);
	syscall(SYS_mmap, NULL, 4096, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	syscall(SYS_nanosleep, &ts, NULL);
	syscall(SYS_execve, missing, argv, envp);	/* ENOENT */
	syscall(SYS_exit_group, 0);
	return 0;
}
