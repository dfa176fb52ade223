/* stp_syscall.h - kernel.syscall probes: one sys_enter and one sys_exit
 * callback for the whole module, dispatching on the system call number
 * through tables the translator writes.
 */
#ifndef STP_SYSCALL_H
#define STP_SYSCALL_H

/* The values a syscall probe's handler reads (c->targs): the number,
 * the six argument registers of the user's pt_regs, the return value.
 */
#define STP_SC_NARGS 8

/* A probe on a system call: its handler runs through the probe's own
 * descriptor, or its lean copy when it has one (stp_probe_inline.h).
 */
struct stp_syscall_probe {
	const struct stp_probe *probe;
	void (*lean)(void);
	bool may_print;
};

/* One direction (entry or return): the probes on system call nr are
 * probes[first[nr]] .. probes[first[nr + 1] - 1], for nr below nr.
 */
struct stp_syscall_table {
	int nr;
	const u16 *first;
	const struct stp_syscall_probe *probes;
};

/* Attach the raw_syscalls tracepoints that have a table (NULL: none);
 * 0, or an error after undoing what was attached.
 */
int _stp_syscalls_register(const struct stp_syscall_table *enter,
			   const struct stp_syscall_table *exit);
void _stp_syscalls_unregister(void);

#endif
