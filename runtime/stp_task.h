/* stp_task.h - process.begin, process.end, process.thread.begin and
 * process.thread.end: the life of user processes and threads, each probe
 * run in the task it is about, filtered to the target's tree under -c/-x.
 * Processes and threads already running at the start begin at their
 * next return from a system call.
 */
#ifndef STP_TASK_H
#define STP_TASK_H

#include <linux/types.h>

struct inode;
struct stp_probe;
struct task_struct;

enum stp_task_event {
	STP_TASK_BEGIN,		/* a new process, in it, before its first
				 * user instruction */
	STP_TASK_END,		/* the last thread of a process exits */
	STP_TASK_THREAD_BEGIN,	/* a new thread (not a process's first),
				 * in it, before its first user instruction */
	STP_TASK_THREAD_END,	/* such a thread exits */
};

/* One probe, in a table the generated module fills in; the runtime runs
 * its handler (probe->handler) with the task's user registers.  By the
 * time an end probe runs the task's memory is gone: user reads fault.
 */
struct stp_task_probe {
	int event;			/* enum stp_task_event */
	pid_t pid;			/* process(PID): only its tasks;
					 * 0: every process */
	const char *path;		/* process("PATH"): only the
					 * processes running it (absolute
					 * path), or NULL */
	/* runtime-private, left zero by the translator */
	struct inode *inode;		/* path's, while registered */
	const struct stp_probe *probe;
};

/* Attach to the kernel's tracepoints for the events of the table (one
 * table per module); 0 or -errno after reporting.
 */
int _stp_task_probes_register(struct stp_task_probe *tps, int n);
/* Detach; on return no probe of the table runs. */
void _stp_task_probes_unregister(struct stp_task_probe *tps, int n);

/* Whether task t belongs to the process tree of the session's target
 * (true when there is none): t is the target process, one of its
 * threads, or a descendant (through real_parent; an orphan reparented
 * away from the tree leaves it).  Any context.
 */
bool _stp_task_in_target(struct task_struct *t);

/* The inode of the program at path (absolute) that probe names, held
 * for the caller to iput(); a failure is reported as an error naming
 * the probe.  0 or -errno.  Process context.
 */
int _stp_program_inode(const char *path, const struct stp_probe *probe,
		       struct inode **inode);

#endif
