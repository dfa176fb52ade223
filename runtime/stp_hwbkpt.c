/* stp_hwbkpt.c - the watchpoints of kernel.data and process.data probes
 * (stp_hwbkpt.h).
 *
 * A hit runs in the debug exception, after the access: for kernel data
 * in an NMI-like context (interrupts off, on any CPU, possibly while
 * the same CPU was in the middle of anything), for user data in the
 * thread that made the access, interrupts off.  The probe's run takes
 * no lock but the script's globals' trylocks and allocates nothing;
 * the per-CPU context turns away a hit that interrupts a handler on the
 * same CPU (skipped).  The debug registers are off while the exception
 * runs, so the handler's own accesses to the watched data do not
 * recurse.  CPUs brought online later are not watched, nor threads the
 * target creates after START.
 */
#include <linux/hw_breakpoint.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

static void _stp_hwbkpt_hit(struct perf_event *bp,
			    struct perf_sample_data *data,
			    struct pt_regs *regs)
{
	const struct stp_hwbkpt *h = bp->overflow_handler_context;

	_stp_probe_run(h->probe, regs, STAP_SESSION_RUNNING);
}

static const char *_stp_hwbkpt_why(int rc)
{
	switch (rc) {
	case -ENOSPC:
		return "no free debug register (x86_64 has 4, shared with "
		       "the other watchpoints and debuggers)";
	case -EINVAL:
		return "the kernel refuses a watchpoint there (an address "
		       "it protects, or not aligned to the length)";
	case -ENOENT:
		return "no such symbol in the running kernel";
	case -EACCES:
	case -EPERM:
		return "not permitted";
	case -ENODEV:
	case -EOPNOTSUPP:
		return "this machine has no hardware breakpoints";
	default:
		return "registration failed";
	}
}

static void _stp_hwbkpt_error(const struct stp_hwbkpt *h, int rc)
{
	_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: cannot probe %s: %s "
			"(%d)\n", h->probe->pp, _stp_hwbkpt_why(rc), rc);
}

/* Whether kallsyms places the start of symbol name at addr. */
static bool _stp_hwbkpt_starts(char *buf, unsigned long addr,
			       const char *name)
{
	size_t n = strlen(name);

	sprint_symbol(buf, addr);
	return !strncmp(buf, name, n) && !strncmp(buf + n, "+0x0/", 5);
}

/* The running kernel's address of symbol name, 0 when it has none.
 * kallsyms_lookup_name() is not exported, and calling it through a
 * pointer would trip indirect branch tracking; register_kprobe() looks
 * the name up itself and leaves the address in the kprobe, even when it
 * then refuses a data address.  On a kernel with IBT it steps over what
 * reads as an ENDBR instruction at the symbol: sprint_symbol() tells
 * which of the two addresses the name starts at.  A name it does not
 * print at either (an alias such as jiffies, whose address kallsyms
 * names jiffies_64) is taken where the kprobe was.
 */
static unsigned long _stp_hwbkpt_lookup(const char *name)
{
	struct kprobe kp = { .symbol_name = name };
	unsigned long a, found;
	char *buf;
	int rc;

	rc = register_kprobe(&kp);
	if (!rc)
		unregister_kprobe(&kp);	/* a function: a kprobe took */
	a = (unsigned long)kp.addr;
	if (!a || IS_ERR_VALUE(a) || rc == -ENOENT)
		return 0;
	found = a;
	buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (buf && !_stp_hwbkpt_starts(buf, a, name) && a > 4 &&
	    _stp_hwbkpt_starts(buf, a - 4, name))
		found = a - 4;
	kfree(buf);
	return found;
}

static void _stp_hwbkpt_attr(const struct stp_hwbkpt *h,
			     struct perf_event_attr *attr)
{
	hw_breakpoint_init(attr);
	attr->bp_addr = h->addr;
	attr->bp_len = h->len;		/* HW_BREAKPOINT_LEN_N is N */
	attr->bp_type = h->rw ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
}

static int _stp_hwbkpt_kernel(struct stp_hwbkpt *h,
			      struct perf_event_attr *attr)
{
	struct perf_event * __percpu *wide;

	wide = register_wide_hw_breakpoint(attr, _stp_hwbkpt_hit, h);
	if (IS_ERR((void __force *)wide)) {
		_stp_hwbkpt_error(h, PTR_ERR((void __force *)wide));
		return PTR_ERR((void __force *)wide);
	}
	h->wide = wide;
	return 0;
}

/* The target's threads, each held: how many (at most max). */
static int _stp_hwbkpt_threads(struct task_struct *leader,
			       struct task_struct **tasks, int max)
{
	struct task_struct *t;
	int n = 0;

	rcu_read_lock();
	for_each_thread(leader, t) {
		if (n == max)
			break;
		get_task_struct(t);
		tasks[n++] = t;
	}
	rcu_read_unlock();
	return n;
}

static int _stp_hwbkpt_tasks(struct stp_hwbkpt *h,
			     struct perf_event_attr *attr,
			     struct task_struct *leader)
{
	struct task_struct **tasks;
	struct perf_event *e;
	int i, n, max, rc = 0;

	max = get_nr_threads(leader);
	tasks = kcalloc(max, sizeof(*tasks), GFP_KERNEL);
	h->events = kcalloc(max, sizeof(*h->events), GFP_KERNEL);
	if (!tasks || !h->events) {
		kfree(tasks);
		return -ENOMEM;
	}
	n = _stp_hwbkpt_threads(leader, tasks, max);
	for (i = 0; i < n; i++) {
		if (!rc) {
			e = register_user_hw_breakpoint(attr, _stp_hwbkpt_hit,
							h, tasks[i]);
			if (IS_ERR(e)) {
				rc = PTR_ERR(e);
				_stp_hwbkpt_error(h, rc);
			} else {
				h->events[h->nevents++] = e;
			}
		}
		put_task_struct(tasks[i]);
	}
	kfree(tasks);
	return rc;
}

static int _stp_hwbkpt_user(struct stp_hwbkpt *h,
			    struct perf_event_attr *attr)
{
	pid_t nr = _stp_target_pid();
	struct task_struct *leader;
	struct pid *pid;
	int rc;

	pid = nr ? find_get_pid(nr) : NULL;
	leader = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
	put_pid(pid);
	if (!leader) {
		_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: cannot probe "
				"%s: it watches the target process, and there "
				"is none (-c CMD or -x PID)\n", h->probe->pp);
		return -ESRCH;
	}
	rc = _stp_hwbkpt_tasks(h, attr, leader);
	put_task_struct(leader);
	return rc;
}

static int _stp_hwbkpt_one(struct stp_hwbkpt *h)
{
	struct perf_event_attr attr;

	if (h->symbol) {
		h->addr = _stp_hwbkpt_lookup(h->symbol);
		if (!h->addr) {
			_stp_hwbkpt_error(h, -ENOENT);
			return -ENOENT;
		}
	}
	_stp_hwbkpt_attr(h, &attr);
	return h->user ? _stp_hwbkpt_user(h, &attr) :
	       _stp_hwbkpt_kernel(h, &attr);
}

int _stp_hwbkpt_register(struct stp_hwbkpt *h, int n)
{
	int i, rc;

	for (i = 0; i < n; i++) {
		/* staprun told to stop (stp_session.h) */
		rc = _stp_start_interrupted() ? -EINTR :
		     _stp_hwbkpt_one(&h[i]);
		if (rc) {
			_stp_hwbkpt_unregister(h, i + 1);
			return rc;
		}
	}
	return 0;
}

void _stp_hwbkpt_unregister(struct stp_hwbkpt *h, int n)
{
	int i, k;

	/* the perf core removes each event from its CPU (or its task's)
	 * there, with interrupts off, where the exception runs with them
	 * off too: no handler is left running when this returns
	 */
	for (i = 0; i < n; i++) {
		if (h[i].wide)
			unregister_wide_hw_breakpoint(h[i].wide);
		h[i].wide = NULL;
		for (k = 0; k < h[i].nevents; k++)
			unregister_hw_breakpoint(h[i].events[k]);
		kfree(h[i].events);
		h[i].events = NULL;
		h[i].nevents = 0;
	}
}
