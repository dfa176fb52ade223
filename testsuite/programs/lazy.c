/* lazy.c - hands a uprobe pointers into pages that the program mapped
 * but never touched, so that no page table entry exists when the probe
 * reads them: a private mapping of the file named by argv[1] (its page
 * is in the page cache) and an anonymous page (the zero page once
 * faulted).  A handler can read them only by faulting them in.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) int take(const char *file, const char *anon)
{
	__asm__ volatile("" : : "r"(file), "r"(anon) : "memory");
	return 0;
}

int main(int argc, char **argv)
{
	const char *f, *a;
	int fd;

	if (argc < 2)
		return 2;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 1;
	f = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	a = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f == MAP_FAILED || a == MAP_FAILED)
		return 1;
	return take(f, a);
}
