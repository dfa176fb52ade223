/* guru.c - the target of the guru-mode write tests: a function whose
 * argument, result and structure (a bitfield too) a script rewrites,
 * and the system calls whose parameter (read's count) and result
 * (open's) a kernel probe rewrites.  It prints what it got on stderr,
 * so that its lines never mix with the script's output.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct limits {
	int lo;
	int hi;
	unsigned int flags : 3;
	unsigned int mode : 5;
	short small;
};

__attribute__((noinline)) int scale(int v, struct limits *l)
{
	return v * 2 + l->lo;
}

int main(void)
{
	struct limits l = { 1, 100, 0, 0, 9 };
	char data[64];
	ssize_t n;
	int fd, r;

	r = scale(10, &l);
	fprintf(stderr, "scale = %d; lo %d hi %d flags %u mode %u small %d\n",
		r, l.lo, l.hi, l.flags, l.mode, l.small);
	fd = open("/proc/version", O_RDONLY);
	n = read(fd, data, sizeof(data));
	fprintf(stderr, "read %zd\n", n);
	close(fd);
	fd = open("/dev/null", O_RDONLY);
	fprintf(stderr, "open /dev/null: %s\n",
		fd < 0 ? strerror(errno) : "ok");
	return 0;
}
