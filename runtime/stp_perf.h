/* stp_perf.h - perf probes: a kernel perf event on every online CPU
 * whose overflow runs the probe's handler, with the registers of what
 * it interrupted; or, with .process, one event of the session's target
 * process (-c/-x), sampling it and the tasks it creates, or only
 * counting its first thread for @perf("NAME").
 */
#ifndef STP_PERF_H
#define STP_PERF_H

#include <linux/types.h>

struct context;
struct perf_event;
struct stp_probe;
struct task_struct;

struct stp_perf {
	u32 type;			/* perf_event_attr.type */
	u64 config;
	u64 period;			/* events per sample, or samples per
					 * second when freq */
	bool freq;
	bool task;			/* of the target process, not CPUs */
	bool counter;			/* .counter(NAME): counts only */
	const char *path;		/* .process("PATH"): a sampling
					 * event's handler runs only in the
					 * tasks running it; or NULL */
	const struct stp_probe *probe;
	/* runtime-private, left zero by the translator */
	struct perf_event **events;	/* one per possible CPU, or NULL */
	struct task_struct *target;	/* a task event's task */
	struct inode *inode;		/* path's */
};

/* Create and enable the events of the table on the online CPUs
 * (process context, at START); a refused one is reported and undoes
 * the rest.  0 or -errno.
 */
int _stp_perf_register(struct stp_perf *p, int n);
/* Release them all: on return no handler of the table runs. */
void _stp_perf_unregister(struct stp_perf *p, int n);

/* @perf("NAME"): the count of counter slot (its index in the table)
 * so far, read in the counted task itself (a process probe of the
 * target's first thread); elsewhere a script error at where.
 */
int64_t _stp_perf_read(struct context *c, int slot, const char *where);

#endif
