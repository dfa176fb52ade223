/* stp_perf.h - perf probes: a kernel perf event on every online CPU
 * whose overflow runs the probe's handler, with the registers of what
 * it interrupted.
 */
#ifndef STP_PERF_H
#define STP_PERF_H

#include <linux/types.h>

struct perf_event;
struct stp_probe;

struct stp_perf {
	u32 type;			/* perf_event_attr.type */
	u64 config;
	u64 period;			/* events per sample, or samples per
					 * second when freq */
	bool freq;
	const struct stp_probe *probe;
	/* runtime-private, left zero by the translator */
	struct perf_event **events;	/* one per possible CPU, or NULL */
};

/* Create and enable the events of the table on the online CPUs
 * (process context, at START); a refused one is reported and undoes
 * the rest.  0 or -errno.
 */
int _stp_perf_register(struct stp_perf *p, int n);
/* Release them all: on return no handler of the table runs. */
void _stp_perf_unregister(struct stp_perf *p, int n);

#endif
