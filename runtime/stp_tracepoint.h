/* stp_tracepoint.h - kernel tracepoint probes, found by name among the
 * kernel's tracepoints and attached with tracepoint_probe_register().
 */
#ifndef STP_TRACEPOINT_H
#define STP_TRACEPOINT_H

#include <linux/tracepoint.h>

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
