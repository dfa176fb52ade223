/* stp_tracepoint.h - kernel tracepoint probes, found by name among the
 * kernel's tracepoints and attached with tracepoint_probe_register().
 */
#ifndef STP_TRACEPOINT_H
#define STP_TRACEPOINT_H

#include <linux/tracepoint.h>

/* How a tracepoint's callback runs its probe.  The kernel calls every
 * probe of a tracepoint with preemption disabled (6.1 and 6.12 do), so
 * the run need not disable it again: STP_RUN_KERNEL, which also says
 * that the regs are not a user's (a tracepoint passes none).  A kernel
 * whose system call tracepoints may fault (DECLARE_TRACE_SYSCALL) calls
 * their probes preemptible: there the run disables preemption itself.
 */
#ifdef DECLARE_TRACE_SYSCALL
#define STP_TP_PREEMPT_OFF	false
#define STP_TP_RUN		0
#else
#define STP_TP_PREEMPT_OFF	true
#define STP_TP_RUN		STP_RUN_KERNEL
#endif

struct stp_tracepoint {
	const char *name;		/* "sched_switch" */
	const char *module;		/* its module ("kvm"), or NULL */
	const struct stp_probe *probe;
	void *fn;			/* the module's callback */
	struct tracepoint *tp;
	bool registered;
};

/* Every tracepoint of the table; a missing or refused one is an error,
 * after undoing the ones attached so far.  Those of modules attach
 * when their module comes (now, if it is loaded) and detach when it
 * goes; one table at a time may have such.
 */
int _stp_tracepoints_register(struct stp_tracepoint *t, int n);
void _stp_tracepoints_unregister(struct stp_tracepoint *t, int n);

#endif
