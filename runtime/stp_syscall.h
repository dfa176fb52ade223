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
	unsigned int run_flags;	/* STP_RUN_* */
	/* process[(PID|"PATH")].syscall: on every system call of the
	 * user processes (the target's tree under -c/-x), of process pid,
	 * or of the processes running path (absolute)
	 */
	bool proc;
	pid_t pid;
	const char *path;
	struct inode *inode;	/* runtime-private: path's, while attached */
	/* a .return probe that reads values saved at entry: its row in
	 * the entry table (save) fills a frame of *frames, data_size bytes,
	 * for the calling task; its row in the return table finds it, and
	 * runs only when there is one
	 */
	bool save;
	struct stp_uframes **frames;
	size_t data_size;
};

/* One direction (entry or return): the probes on system call nr are
 * probes[first[nr]] .. probes[first[nr + 1] - 1], for nr below nr (no
 * first: none); then all[0 .. nall - 1] run on every system call.
 */
struct stp_syscall_table {
	int nr;
	const u16 *first;
	const struct stp_syscall_probe *probes;
	int nprobes;
	struct stp_syscall_probe *all;
	int nall;
	/* the probes on the calls of 32-bit tasks, by their numbers (no
	 * all, no compat of its own), or NULL
	 */
	const struct stp_syscall_table *compat;
};

/* Attach the raw_syscalls tracepoints that have a table (NULL: none);
 * 0, or an error after undoing what was attached.
 */
int _stp_syscalls_register(struct stp_syscall_table *enter,
			   struct stp_syscall_table *exit);
void _stp_syscalls_unregister(void);

struct context;
/* A guru-mode write of argument n (1 to 6, by the system call ABI) at a
 * call's entry, or of its return value (n 7) at its return: into the
 * task's registers, which the call (or the caller) then reads, and into
 * the values the probes of this hit read.
 */
void _stp_sc_set_arg(struct context *c, int n, u64 v);

#endif
