/* stp_perf.c - the perf events of perf probes (stp_perf.h).
 *
 * The overflow handler runs where the kernel delivers the overflow: in
 * NMI context for a hardware counter, in the timer interrupt for
 * cpu-clock and task-clock, in the scheduler (its run-queue lock held)
 * for context-switches, in the faulting task for page-faults.  The
 * probe's run copes with all of them: it takes no lock but the script's
 * globals' trylocks, allocates nothing, and its per-CPU context turns
 * away a hit that interrupts a handler on the same CPU (skipped).
 * CPUs brought online later are not counted.
 *
 * A .process event is bound to the target process at START (with -c
 * it has not run an instruction yet).  A sampling one is inherited by
 * the threads and processes the target creates, and with a PATH runs
 * the handler only in those that run the program; a counter is not, so
 * that @perf reads one task's count without the perf core's sleeping
 * read: in the counted task itself, with interrupts off, as the
 * kernel's own local read does.
 */
#include <linux/cpu.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/sched/task.h>

static struct stp_perf *_stp_perf_table;
static int _stp_perf_n;

/* Whether current runs the program of inode (any context: the mm's
 * executable is read under RCU).
 */
static bool _stp_perf_runs(struct inode *inode)
{
	struct mm_struct *mm = current->mm;
	struct file *exe;
	bool same;

	if (!mm)
		return false;
	rcu_read_lock();
	exe = rcu_dereference(mm->exe_file);
	same = exe && file_inode(exe) == inode;
	rcu_read_unlock();
	return same;
}

static void _stp_perf_overflow(struct perf_event *event,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	const struct stp_perf *p = event->overflow_handler_context;

	if (p->inode && !_stp_perf_runs(p->inode))
		return;
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

	if (p->events) {
		for (cpu = 0; cpu < (p->task ? 1 : nr_cpu_ids); cpu++)
			if (p->events[cpu])
				perf_event_release_kernel(p->events[cpu]);
		kfree(p->events);
		p->events = NULL;
	}
	if (p->target)
		put_task_struct(p->target);
	p->target = NULL;
	if (p->inode)
		iput(p->inode);
	p->inode = NULL;
}

static void _stp_perf_attr(const struct stp_perf *p,
			   struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = p->type;
	attr->size = sizeof(*attr);
	attr->config = p->config;
	if (p->counter)
		return;			/* counts, never overflows */
	attr->freq = p->freq;
	if (p->freq)
		attr->sample_freq = p->period;
	else
		attr->sample_period = p->period;
	attr->inherit = p->task;
}

static int _stp_perf_create_cpus(struct stp_perf *p,
				 struct perf_event_attr *attr)
{
	struct perf_event *e;
	int cpu, rc = 0;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		e = perf_event_create_kernel_counter(attr, cpu, NULL,
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

/* The target process: with -c held before the command's first
 * instruction (the shell's, when it runs the command through one).
 */
static int _stp_perf_find_target(struct stp_perf *p)
{
	pid_t nr = _stp_target_pid();
	struct pid *pid;

	pid = nr ? find_get_pid(nr) : NULL;
	p->target = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
	put_pid(pid);
	if (!p->target) {
		_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: cannot probe "
				"%s: it counts the target process, and there "
				"is none (-c CMD or -x PID)\n", p->probe->pp);
		return -ESRCH;
	}
	return 0;
}

static int _stp_perf_create_task(struct stp_perf *p,
				 struct perf_event_attr *attr)
{
	struct perf_event *e;
	int rc;

	rc = _stp_perf_find_target(p);
	if (!rc && p->path && !p->counter)
		rc = _stp_program_inode(p->path, p->probe, &p->inode);
	if (rc)
		return rc;
	e = perf_event_create_kernel_counter(attr, -1, p->target,
					     p->counter ? NULL :
					     _stp_perf_overflow, p);
	if (IS_ERR(e)) {
		rc = PTR_ERR(e);
		_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: cannot probe %s "
				"in process %d: %s (%d)\n", p->probe->pp,
				task_pid_nr(p->target), _stp_perf_why(rc), rc);
		return rc;
	}
	p->events[0] = e;
	return 0;
}

static int _stp_perf_create(struct stp_perf *p)
{
	struct perf_event_attr attr;

	_stp_perf_attr(p, &attr);
	p->events = kcalloc(p->task ? 1 : nr_cpu_ids, sizeof(*p->events),
			    GFP_KERNEL);
	if (!p->events)
		return -ENOMEM;
	return p->task ? _stp_perf_create_task(p, &attr) :
	       _stp_perf_create_cpus(p, &attr);
}

int _stp_perf_register(struct stp_perf *p, int n)
{
	int i, rc;

	for (i = 0; i < n; i++) {
		/* staprun told to stop (stp_session.h) */
		rc = _stp_start_interrupted() ? -EINTR :
		     _stp_perf_create(&p[i]);
		if (rc) {
			_stp_perf_unregister(p, i + 1);
			return rc;
		}
	}
	WRITE_ONCE(_stp_perf_n, n);
	smp_store_release(&_stp_perf_table, p);
	return 0;
}

void _stp_perf_unregister(struct stp_perf *p, int n)
{
	int i;

	/* no probe reads a counter any more: their handlers have been
	 * drained before this runs, or never started
	 */
	WRITE_ONCE(_stp_perf_table, NULL);
	/* perf_event_release_kernel() waits for the event's handlers */
	for (i = 0; i < n; i++)
		_stp_perf_release(&p[i]);
}

int64_t _stp_perf_read(struct context *c, int slot, const char *where)
{
	struct stp_perf *t = smp_load_acquire(&_stp_perf_table);
	struct perf_event *e;
	unsigned long flags;
	u64 v = 0;

	if (!t || slot < 0 || slot >= READ_ONCE(_stp_perf_n) ||
	    !t[slot].events) {
		_stp_error_at(c, "@perf: the perf counters are not running",
			      where);
		return 0;
	}
	e = t[slot].events[0];
	if (t[slot].target != current) {
		_stp_error_fmt(c, where, "@perf: counter of %s counts process "
			       "%d's first thread, not this task (%d)",
			       t[slot].probe->pp, task_pid_nr(t[slot].target),
			       task_pid_nr(current));
		return 0;
	}
	local_irq_save(flags);
	if (READ_ONCE(e->oncpu) == smp_processor_id())
		e->pmu->read(e);
	v = local64_read(&e->count);
	local_irq_restore(flags);
	return (int64_t)v;
}
