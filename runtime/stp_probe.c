/* stp_probe.c - per-CPU probe contexts and the common prologue and
 * epilogue of every handler.
 */
#include <linux/sched/task_stack.h>

#include "msg.h"
#include "stp_probe_inline.h"

struct context *_stp_contexts[NR_CPUS];
/* each CPU's own, for the hit's one load (stp_probe_inline.h) */
DEFINE_PER_CPU(struct context *, _stp_cpu_context);
bool _stp_probe_leave_overloaded;

/* The contexts are as large as the script's locals, MAXNESTING and
 * MAXSTRINGLEN make them (stp_script.context_size; the translator keeps
 * one under 64 MiB): more than half the memory for all of them is
 * refused with a message, and the allocation itself may fail but never
 * warns (a warning is a panic where panic_on_warn is set) nor wakes the
 * OOM killer.  The core sees struct context without the script's
 * locals, the script with them after the same members: both are built
 * with the same limits (the core's cache key holds them), which the
 * size of the common part and MAXSTRINGLEN check once more here.
 */
int _stp_context_init(void)
{
	size_t size = stp_script.context_size;
	u64 need = (u64)size * num_possible_cpus();
	int cpu;

	if (stp_script.maxstringlen != MAXSTRINGLEN ||
	    size < sizeof(struct context)) {
		pr_err("%s: built with a runtime of other limits\n",
		       module_name(THIS_MODULE));
		return -EINVAL;
	}
	if (need > ((u64)totalram_pages() << PAGE_SHIFT) / 2) {
		pr_err("%s: the probe contexts need %llu bytes, more than half "
		       "the memory (MAXNESTING %d, MAXSTRINGLEN %d)\n",
		       module_name(THIS_MODULE), need, stp_script.maxnesting,
		       MAXSTRINGLEN);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		_stp_contexts[cpu] = __vmalloc(size,
					       GFP_KERNEL | __GFP_ZERO |
					       __GFP_NOWARN |
					       __GFP_RETRY_MAYFAIL);
		if (!_stp_contexts[cpu]) {
			_stp_context_free();
			return -ENOMEM;
		}
		per_cpu(_stp_cpu_context, cpu) = _stp_contexts[cpu];
	}
	return 0;
}

void _stp_context_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		per_cpu(_stp_cpu_context, cpu) = NULL;
		vfree(_stp_contexts[cpu]);
		_stp_contexts[cpu] = NULL;
	}
}

struct context *_stp_context_get(int cpu)
{
	return _stp_contexts[cpu];
}

/* The out-of-line parts of the prologue and epilogue
 * (stp_probe_inline.h).
 */
void _stp_probe_busy(struct context *c)
{
	/* a probe hit inside a probe handler on this CPU */
	atomic_dec(&c->busy);
	_stp_probe_skipped_why(STP_SKIP_REENTRANT);
}

void _stp_probe_leave_slow(struct context *c)
{
#ifndef STAP_SUPPRESS_HANDLER_ERRORS
	if (c->last_error)
		_stp_soft_error(c->last_error, c->last_stmt);
#endif
	if (READ_ONCE(_stp_probe_leave_overloaded))
		_stp_request_error_exit();
}

void _stp_error_fmt(struct context *c, const char *where,
		    const char *fmt, ...)
{
	va_list ap;

	if (c->last_error)
		return;
	va_start(ap, fmt);
	vsnprintf(c->error_buffer, sizeof(c->error_buffer), fmt, ap);
	va_end(ap);
	c->last_error = c->error_buffer;
	c->last_stmt = where;
}

DEFINE_PER_CPU(int, _stp_lean_tick);

static atomic_t _stp_skips[STP_SKIP_NWHY];

void _stp_probe_skipped_why(enum stp_skip_why why)
{
	atomic_inc(&_stp_skips[why]);
	_stp_probe_skipped();
}

/* stap -t: what the skipped hits were skipped for, one line each, as
 * the established tool words them.
 */
void _stp_probe_skip_report(void)
{
	int i, k;

	if (!stp_script.timing)
		return;
	for (i = 0; i < stp_nglobal_locks; i++) {
		k = atomic_read(&stp_global_locks[i]->skips);
		if (k)
			_stp_ctl_printf(STP_MSG_WARNING, true, "WARNING: "
					"Skipped due to global '%s' lock "
					"timeout: %d\n",
					stp_global_locks[i]->name, k);
	}
	k = atomic_read(&_stp_skips[STP_SKIP_LOWSTACK]);
	if (k)
		_stp_ctl_printf(STP_MSG_WARNING, true, "WARNING: Skipped due "
				"to low stack: %d\n", k);
	k = atomic_read(&_stp_skips[STP_SKIP_REENTRANT]);
	if (k)
		_stp_ctl_printf(STP_MSG_WARNING, true, "WARNING: Skipped due "
				"to reentrancy: %d\n", k);
	k = atomic_read(&_stp_skips[STP_SKIP_OTHER]);
	if (k)
		_stp_ctl_printf(STP_MSG_WARNING, true, "WARNING: Skipped due "
				"to uprobe bookkeeping (task or return frame "
				"tables full): %d\n", k);
}

/* in the core always: stp_script says whether a script's handlers use
 * it (a test module that includes this file may leave it out)
 */
#if defined(STP_CORE) || \
    (!defined(STP_NO_OVERLOAD) && !defined(STAP_SUPPRESS_TIME_LIMITS_ENABLE))
DEFINE_PER_CPU(struct stp_overload, _stp_overload);

void _stp_overload_fire(struct context *c, struct stp_overload *o,
			cycles_t now)
{
	if (!c->last_error) {
		snprintf(c->error_buffer, sizeof(c->error_buffer),
			 "probe overhead (%llu cycles) exceeded threshold "
			 "(%llu cycles) in last %llu cycles",
			 (unsigned long long)o->sum,
			 (unsigned long long)STP_OVERLOAD_THRESHOLD,
			 (unsigned long long)(now - o->base));
		c->last_error = c->error_buffer;
		c->last_stmt = NULL;
		_stp_probe_leave_overloaded = true;
	}
}
#endif

/* The full run of a lean handler's hit, one in STP_LEAN_SAMPLE on each
 * CPU, accounted for as that many hits.
 */
void _stp_probe_run_sampled(const struct stp_probe *p, struct pt_regs *regs,
			    struct kretprobe_instance *ri, const u64 *targs,
			    int want_state)
{
	_stp_probe_run_timed(p, p->handler, regs, ri, targs, want_state, 0,
			     NULL);
}

int _stp_probe_run_timed(const struct stp_probe *p,
			 void (*handler)(struct context *),
			 struct pt_regs *regs, struct kretprobe_instance *ri,
			 const u64 *targs, int want_state, unsigned int flags,
			 void *edata)
{
	return __stp_probe_run_w(p, handler, regs, ri, targs, want_state,
				 flags, _stp_sample_next(), edata);
}

/* Per CPU: the interval last drawn and the generator's state. */
struct stp_sample {
	unsigned int interval;
	u32 rnd;
};

static DEFINE_PER_CPU(struct stp_sample, _stp_sample);

/* A sampled hit: draw the next interval, in [S/2, 3S/2) for S =
 * STP_LEAN_SAMPLE (a linear congruential step: the point is only not
 * to be periodic), and return the one this hit ends, which it stands
 * for (1 for the first hit on a CPU).
 */
unsigned int _stp_sample_next(void)
{
	struct stp_sample *s;
	unsigned int w;

	if (!STP_LEAN_SAMPLE)
		return 1;
	s = get_cpu_ptr(&_stp_sample);
	w = s->interval ? s->interval : 1;
	s->rnd = s->rnd * 1664525u + 1013904223u;
	s->interval = STP_LEAN_SAMPLE / 2 +
		      (unsigned int)(((u64)s->rnd * STP_LEAN_SAMPLE) >> 32);
	__this_cpu_write(_stp_lean_tick, (int)s->interval - 1);
	put_cpu_ptr(&_stp_sample);
	return w;
}

void _stp_probe_run(const struct stp_probe *p, struct pt_regs *regs,
		    int want_state)
{
	__stp_probe_run(p, p->handler, regs, NULL, NULL, want_state);
}

/* The retries of a lock that the inline try did not get, with the
 * preemption count that try took; on failure that count is dropped and
 * the skip counted against the lock.
 */
static bool _stp_trylock_slow(struct stp_rwlock *l, bool write)
{
	int i;

	for (i = 1; i < MAXTRYLOCK; i++) {
		udelay(TRYLOCKDELAY);
		if (write ? arch_write_trylock(&l->raw) :
			    arch_read_trylock(&l->raw))
			return true;
	}
	preempt_enable();
	atomic_inc(&l->skips);
	_stp_probe_skipped_why(STP_SKIP_LOCK);
	return false;
}

bool _stp_read_trylock_slow(struct stp_rwlock *l)
{
	return _stp_trylock_slow(l, false);
}

bool _stp_write_trylock_slow(struct stp_rwlock *l)
{
	return _stp_trylock_slow(l, true);
}
