/* stp_uprobe.h - user-space probes: uprobes and uretprobes on an ELF
 * file (by inode and file offset), USDT semaphores, and the -c/-x
 * target filter, on the kernel's own uprobes.
 */
#ifndef STP_UPROBE_H
#define STP_UPROBE_H

#include <linux/types.h>
#include <linux/ptrace.h>
#include <linux/uprobes.h>

struct stp_probe;
struct inode;

/* A place a .callee probe's callee may be called from: where one call
 * on the way down returns, at one level of the stack (0: where the
 * callee returns, 1: where its caller returns, ...), as a link-time
 * address of the probed file.
 */
struct stp_ucall {
	unsigned long pc;
	int level;
};

/* One way down to the callee: n places in the order of their levels,
 * depth levels; each level of the stack must return to one of its
 * level's places.
 */
struct stp_upath {
	const struct stp_ucall *calls;
	int n;
	int depth;
};

/* The deepest path a check unwinds (.callees(N) of the translator). */
#define STP_UCALLEE_DEPTH 8

/* One probe site, in a table the generated module fills in.  The
 * handler runs in the probed task, with its user registers, in a
 * context that may sleep (see _stp_uread); it only has to run the
 * probe, the target filter has been applied.  Its return is ignored.
 */
struct stp_uprobe {
	const char *path;	/* absolute path of the ELF file */
	unsigned long offset;	/* file offset of the probed insn */
	unsigned long sdt_sem;	/* file offset of a USDT semaphore or 0 */
	const char *exe;	/* library probes: only in processes running
				 * this program (absolute path), or NULL */
	pid_t pid;		/* process(PID): only in this process, or 0 */
	bool ret;		/* a .return probe (uretprobe) */
	bool must;		/* failure to register fails the start */
	const struct stp_probe *probe;
	int (*handler)(struct stp_uprobe *up, struct pt_regs *regs);
	/* .callee: only when called along one of npaths paths, none
	 * deeper than depth; entry_pc is the link-time address of the
	 * probed function's entry (offset's).  A .return probe then
	 * checks at the entry, in a frame (data_size 0 is fine).
	 */
	const struct stp_upath *paths;
	int npaths;
	int depth;
	unsigned long entry_pc;
	/* runtime-private, left zero by the translator */
	struct uprobe_consumer uc;
	struct inode *inode;	/* held from register to unregister */
	struct inode *exe_inode; /* exe's, likewise */
	struct uprobe *uprobe;	/* the kernel's, where it returns one */
	bool registered;
	/* A .return probe with values saved at entry (data_size > 0):
	 * entry_handler runs at the function's entry and fills data,
	 * which ret_handler gets at the return (instead of handler).  A
	 * nonzero return of entry_handler drops the frame's return.
	 * Without them (a .callee's check alone), handler runs at the
	 * return.
	 */
	int (*entry_handler)(struct stp_uprobe *up, struct pt_regs *regs,
			     void *data);
	int (*ret_handler)(struct stp_uprobe *up, struct pt_regs *regs,
			   void *data);
	size_t data_size;
	/* runtime-private: the frames in flight, from register on */
	struct stp_uframes *frames;
};

/* Frames of a .return probe with entry values: MAXURETPROBE_FRAMES
 * slots per probe, allocated at registration, each held from a task's
 * entry to its return and found again by task and stack pointer (so
 * recursion and threads work).  A frame left without a return (longjmp)
 * is reclaimed at the task's next entry or return at or above it, or,
 * when the table is full, once its task is gone.  An entry that finds
 * no free slot is counted as skipped, and its return does not run.
 */

/* Register every probe of the table, after the session's target is
 * known (START): with -c/-x a probe only fires in the target's process
 * tree, otherwise in every process that runs the file.  A probe that
 * must be there and cannot be is an error, reported with its path and
 * offset; an optional one is skipped, but none registering at all is
 * an error too.  On error everything is undone and -errno returned.
 */
int _stp_uprobes_register(struct stp_uprobe *ups, int n);

/* Unregister the table; on return no handler of it is running or will
 * run, and the files are let go.  Safe on a partly registered table.
 */
void _stp_uprobes_unregister(struct stp_uprobe *ups, int n);

#endif
