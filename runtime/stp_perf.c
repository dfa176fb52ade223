/* stp_perf.c - the perf events of perf probes (stp_perf.h).  Compiled
 * only into modules that have them (STP_HAVE_PERF).
 *
 * The overflow handler runs where the kernel delivers the overflow: in
 * NMI context for a hardware counter, in the timer interrupt for
 * cpu-clock and task-clock, in the scheduler (its run-queue lock held)
 * for context-switches, in the faulting task for page-faults.  The
 * probe's run copes with all of them: it takes no lock but the script's
 * globals' trylocks, allocates nothing, and its per-CPU context turns
 * away a hit that interrupts a handler on the same CPU (skipped).
 * CPUs brought online later are not counted.
 */
#ifdef STP_HAVE_PERF

#include <linux/cpu.h>
#include <linux/perf_event.h>

static void _stp_perf_overflow(struct perf_event *event,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	const struct stp_perf *p = event->overflow_handler_context;

	_stp_probe_run(p->probe, regs, STAP_SESSION_RUNNING);
}

static const char *_stp_perf_why(long err)
{
	switch (err) {
	case -ENOENT:
	case -EOPNOTSUPP:
		return "no such event on this machine (no PMU for it?)";
	case -EINVAL:
		return "the kernel refuses this type, config or period";
	case -EBUSY:
		return "the counter is in use";
	case -EACCES:
	case -EPERM:
		return "not permitted";
	default:
		return "cannot create the event";
	}
}

static void _stp_perf_release(struct stp_perf *p)
{
	int cpu;

	if (!p->events)
		return;
	for_each_possible_cpu(cpu)
		if (p->events[cpu])
			perf_event_release_kernel(p->events[cpu]);
	kfree(p->events);
	p->events = NULL;
}

static int _stp_perf_create(struct stp_perf *p)
{
	struct perf_event_attr attr = {
		.type = p->type,
		.size = sizeof(attr),
		.config = p->config,
		.freq = p->freq,
	};
	struct perf_event *e;
	int cpu, rc = 0;

	if (p->freq)
		attr.sample_freq = p->period;
	else
		attr.sample_period = p->period;
	p->events = kcalloc(nr_cpu_ids, sizeof(*p->events), GFP_KERNEL);
	if (!p->events)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		e = perf_event_create_kernel_counter(&attr, cpu, NULL,
						     _stp_perf_overflow, p);
		if (IS_ERR(e)) {
			rc = PTR_ERR(e);
			_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: cannot "
					"probe %s on cpu %d: %s (%d)\n",
					p->probe->pp, cpu, _stp_perf_why(rc),
					rc);
			break;
		}
		p->events[cpu] = e;
	}
	cpus_read_unlock();
	return rc;
}

int _stp_perf_register(struct stp_perf *p, int n)
{
	int i, rc;

	for (i = 0; i < n; i++) {
		rc = _stp_perf_create(&p[i]);
		if (rc) {
			_stp_perf_unregister(p, i + 1);
			return rc;
		}
	}
	return 0;
}

void _stp_perf_unregister(struct stp_perf *p, int n)
{
	int i;

	/* perf_event_release_kernel() waits for the event's handlers */
	for (i = 0; i < n; i++)
		_stp_perf_release(&p[i]);
}

#endif
