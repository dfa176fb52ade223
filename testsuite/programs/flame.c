/* flame.c - a call chain main -> outer -> middle -> inner, where inner()
 * reads one byte of /dev/zero with the syscall instruction itself: the
 * user part of the stack at the kernel's vfs_read is the program's own
 * functions, with nothing of the C library in between (the folded
 * stacks of testsuite/run/stack_folded).  Argument: how many reads.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fd;

__attribute__((noinline)) long inner(long x)
{
	char c;
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "0"((long)SYS_read), "D"((long)fd), "S"(&c), "d"(1L)
		     : "rcx", "r11", "memory");
	return ret + x;
}

__attribute__((noinline)) long middle(long x)
{
	long r = inner(x + 1);

	asm volatile("" : : : "memory");
	return r + x;
}

__attribute__((noinline)) long outer(long x)
{
	long r = middle(x * 2);

	asm volatile("" : : : "memory");
	return r - 1;
}

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 1, sum = 0;

	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		return 1;
	for (i = 0; i < n; i++)
		sum += outer(i);
	close(fd);
	return sum < 0;
}
