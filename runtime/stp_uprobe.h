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

/* One probe site, in a table the generated module fills in.  The
 * handler runs in the probed task, with its user registers, in a
 * context that may sleep (see _stp_uread); it only has to run the
 * probe, the target filter has been applied.  Its return is ignored.
 */
struct stp_uprobe {
	const char *path;	/* absolute path of the ELF file */
	unsigned long offset;	/* file offset of the probed insn */
	unsigned long sdt_sem;	/* file offset of a USDT semaphore or 0 */
	bool ret;		/* a .return probe (uretprobe) */
	bool must;		/* failure to register fails the start */
	const struct stp_probe *probe;
	int (*handler)(struct stp_uprobe *up, struct pt_regs *regs);
	/* runtime-private, left zero by the translator */
	struct uprobe_consumer uc;
	struct inode *inode;	/* held from register to unregister */
	struct uprobe *uprobe;	/* the kernel's, where it returns one */
	bool registered;
};

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
