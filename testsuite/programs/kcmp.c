/* kcmp.c - one kcmp(2) call, KCMP_VM of the process with itself and
 * idx1 77 (unused by KCMP_VM), for a label probe in the kernel's
 * __do_sys_kcmp that reads parameters DWARF gives there only as their
 * values at the function's entry (DW_OP_entry_value).
 */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KCMP_VM 1

int main(void)
{
	pid_t p = getpid();
	long r = syscall(SYS_kcmp, p, p, KCMP_VM, 77UL, 0UL);

	printf("kcmp %ld\n", r);
	return 0;
}
