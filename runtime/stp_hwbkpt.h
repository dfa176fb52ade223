/* stp_hwbkpt.h - hardware watchpoint probes (kernel.data, process.data):
 * a hw_breakpoint perf event on every online CPU for a kernel address,
 * or one per thread of the session's target process (-c/-x) for a user
 * address, whose hit runs the probe's handler with the registers of
 * the access.
 */
#ifndef STP_HWBKPT_H
#define STP_HWBKPT_H

#include <linux/types.h>

struct perf_event;
struct stp_probe;

struct stp_hwbkpt {
	unsigned long addr;		/* watched address, or 0 with symbol */
	const char *symbol;		/* kernel.data("SYM"), else NULL */
	int len;			/* 1, 2, 4 or 8 bytes */
	bool rw;			/* reads too, not only writes */
	bool user;			/* the target process's address */
	const struct stp_probe *probe;
	/* runtime-private, left zero by the translator */
	struct perf_event * __percpu *wide;	/* kernel data's */
	struct perf_event **events;	/* user data's, one per thread */
	int nevents;
};

/* Resolve the symbols and register every watchpoint of the table
 * (process context, at START); a refused one is reported naming its
 * probe and undoes the rest.  0 or -errno.
 */
int _stp_hwbkpt_register(struct stp_hwbkpt *h, int n);
/* Remove them all: on return no handler of the table runs. */
void _stp_hwbkpt_unregister(struct stp_hwbkpt *h, int n);

#endif
