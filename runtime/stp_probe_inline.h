/* stp_probe_inline.h - the fast path every probe hit takes: session
 * state, stack room, the reentrancy guard, the context reset, the
 * handler, the overload account and the release, inline in each probe's
 * own callback so that a hit costs no calls but the handler's.  The slow
 * paths (errors, skips) are out of line in stp_probe.c.
 */
#ifndef STP_PROBE_INLINE_H
#define STP_PROBE_INLINE_H

#include <linux/sched/task_stack.h>

#include "stp_monitor.h"

extern struct context *_stp_contexts[NR_CPUS];
DECLARE_PER_CPU(struct context *, _stp_cpu_context);
extern bool _stp_probe_leave_overloaded;
void _stp_probe_busy(struct context *c);
void _stp_probe_leave_slow(struct context *c);

/* Global locks, inline: one preemption count per lock held, so that a
 * handler holding any is atomic for the kernel's checks and for
 * _stp_uread_may_fault (stp_mem.c); the lock itself is the arch's, which
 * spins on PREEMPT_RT too.
 */
static __always_inline bool _stp_read_trylock(struct stp_rwlock *l)
{
	preempt_disable();
	if (likely(arch_read_trylock(&l->raw)))
		return true;
	return _stp_read_trylock_slow(l);
}

static __always_inline bool _stp_write_trylock(struct stp_rwlock *l)
{
	preempt_disable();
	if (likely(arch_write_trylock(&l->raw)))
		return true;
	return _stp_write_trylock_slow(l);
}

static __always_inline void _stp_read_unlock(struct stp_rwlock *l)
{
	arch_read_unlock(&l->raw);
	preempt_enable();
}

static __always_inline void _stp_write_unlock(struct stp_rwlock *l)
{
	arch_write_unlock(&l->raw);
	preempt_enable();
}

/* x += v on a counter global (translator/emit-expr.c): under the shared
 * lock, so several CPUs may add at once; reads take the exclusive one.
 */
static __always_inline void _stp_counter_add(long *x, int64_t v)
{
	atomic64_add(v, (atomic64_t *)x);
}

/* Room left on the task stack; interrupt stacks are not measured. */
static __always_inline bool _stp_stack_low(void)
{
	unsigned long sp = current_stack_pointer;
	unsigned long base;

	if (in_interrupt())
		return false;
	base = (unsigned long)task_stack_page(current);
	/* below the stack's bottom (another stack): a large difference */
	return sp - base < MINSTACKSPACE;
}

static __always_inline struct context *
__stp_probe_enter(const struct stp_probe *p, int want_state,
		  struct pt_regs *regs, struct pt_regs *uregs,
		  struct kretprobe_instance *ri, const u64 *targs, void *edata)
{
	struct context *c;

	if (atomic_read(&_stp_session_state) != want_state)
		return NULL;
	if (unlikely(_stp_stack_low())) {
		_stp_probe_skipped_why(STP_SKIP_LOWSTACK);
		return NULL;
	}
	c = __this_cpu_read(_stp_cpu_context);
	if (unlikely(!c))
		return NULL;
	if (unlikely(atomic_inc_return(&c->busy) != 1)) {
		_stp_probe_busy(c);
		return NULL;
	}
	c->probe_type = p->type;
	c->probe = p;
	c->probe_point = p->pp;
	c->probe_name = p->pp;
	c->regs = regs;
	c->uregs = uregs;
	c->ri = ri;
	c->edata = edata;
	c->targs = targs;
	c->last_error = NULL;
	c->last_stmt = NULL;
	c->actionremaining = STP_ACTION_BUDGET;
	c->locks = NULL;
	c->nesting = 0;
	c->next = 0;
	c->hit_flags = 0;
	c->user_mode_p = uregs != NULL;
#ifdef STP_NEED_SUBMATCH
	c->match_re = NULL;	/* no =~ yet in this handler */
#endif
	return c;
}

static __always_inline void __stp_probe_leave(struct context *c,
					      bool may_print)
{
	/* an overload sets the flag with the error of the hit that found
	 * it (_stp_overload_fire): that hit's leave asks for the exit
	 */
	if (unlikely(c->last_error))
		_stp_probe_leave_slow(c);
	if (may_print)
		_stp_print_flush();
	atomic_dec(&c->busy);
}

/* In the core, STP_OVERLOAD_ON is stp_script's: its copies of the code
 * below test it as they run.
 */
#if defined(STP_CORE) || \
    (!defined(STP_NO_OVERLOAD) && !defined(STAP_SUPPRESS_TIME_LIMITS_ENABLE))
/* Overload: a CPU that spends more than STP_OVERLOAD_THRESHOLD cycles in
 * handlers within STP_OVERLOAD_INTERVAL cycles ends the session, so a
 * script cannot starve the machine.  Per CPU, touched with preemption
 * off.
 */
struct stp_overload {
	cycles_t base;
	cycles_t sum;
};

DECLARE_PER_CPU(struct stp_overload, _stp_overload);
void _stp_overload_fire(struct context *c, struct stp_overload *o,
			cycles_t now);

/* weight: how many hits this one stands for (sampled handlers).  The
 * others are taken to cost what this one did, up to
 * STP_OVERLOAD_SAMPLE_MAX: a run stretched by something that is not its
 * own work (its virtual CPU descheduled by the host, a lock waited for)
 * must not be multiplied by the weight.
 */
static __always_inline void _stp_overload_account(struct context *c,
						   cycles_t start,
						   unsigned int weight)
{
	struct stp_overload *o = this_cpu_ptr(&_stp_overload);
	cycles_t now = get_cycles();
	cycles_t d = now - start;

	if (unlikely(!o->base))
		o->base = start;
	o->sum += d;
	if (weight > 1)
		o->sum += min_t(cycles_t, d, STP_OVERLOAD_SAMPLE_MAX) *
			  (weight - 1);
	if (likely(now - o->base < (cycles_t)STP_OVERLOAD_INTERVAL))
		return;
	if (o->sum > (cycles_t)STP_OVERLOAD_THRESHOLD)
		_stp_overload_fire(c, o, now);
	o->base = now;
	o->sum = 0;
}
/* w: how many hits this run stands for; 0 for a run not timed */
#define STP_OVERLOAD_START(w) \
	cycles_t __stp_start = (w) && STP_OVERLOAD_ON ? get_cycles() : 0
#define STP_OVERLOAD_END(c, w) \
	do { \
		if ((w) && STP_OVERLOAD_ON) \
			_stp_overload_account(c, __stp_start, w); \
	} while (0)
#define STP_LEAN_SAMPLE (STP_OVERLOAD_ON ? 64 : 0)
#else
#define STP_OVERLOAD_START(w) do { } while (0)
#define STP_OVERLOAD_END(c, w) do { } while (0)
#define STP_LEAN_SAMPLE 0
#endif

/* Sampled accounting: one hit in about STP_LEAN_SAMPLE on each CPU (the
 * interval drawn anew each time between half and one and a half of it,
 * so that hits of two probes that alternate are sampled alike) is
 * timed and accounted for as the hits since the last one.  Lean
 * handlers and handlers with no loop or recursion (the translator says
 * which) are sampled; their cost per hit is bounded.
 */
DECLARE_PER_CPU(int, _stp_lean_tick);
unsigned int _stp_sample_next(void);

/* The last argument of __stp_probe_run_flags: what the translator knows
 * of the handler.
 */
#define STP_RUN_PRINT	1	/* it may print: flush at its end */
#define STP_RUN_SAMPLED	2	/* its cost is bounded: sample the time */
/* a kprobe's or an ftrace callback's run: preemption is off already and
 * regs are the kernel's
 */
#define STP_RUN_KERNEL	4

/* Run handler for probe p in a fresh context: 0 when it ran without an
 * error, -1 when it was skipped (also for want of its global locks) or
 * failed.  flags are STP_RUN_*: without STP_RUN_PRINT (a handler that
 * cannot print, the translator knows) the flush is spared; weight is
 * the number of hits this run accounts for.
 */
static __always_inline int
__stp_probe_run_w(const struct stp_probe *p,
		  void (*handler)(struct context *), struct pt_regs *regs,
		  struct kretprobe_instance *ri, const u64 *targs,
		  int want_state, unsigned int flags, unsigned int weight,
		  void *edata)
{
	bool kern = flags & STP_RUN_KERNEL;
	struct pt_regs *uregs;
	struct context *c;
	int rc = -1;
	u64 mon_start = 0;
	STP_OVERLOAD_START(weight);

	/* --monitor: a paused run skips what is not begin, end or error */
	if (unlikely(stp_script.monitor)) {
		if (want_state == STAP_SESSION_RUNNING &&
		    READ_ONCE(_stp_monitor_paused))
			return -1;
		mon_start = get_cycles();
	}
	if (kern)
		lockdep_assert_preemption_disabled();
	else
		preempt_disable();
	uregs = !kern && regs && user_mode(regs) ? regs : NULL;
	c = __stp_probe_enter(p, want_state, regs, uregs, ri, targs, edata);
	if (likely(c)) {
		handler(c);
		STP_OVERLOAD_END(c, weight);
		if (unlikely(stp_script.monitor))
			_stp_monitor_account(p, get_cycles() - mon_start);
		rc = c->last_error || c->skipped ? -1 : 0;
		__stp_probe_leave(c, flags & STP_RUN_PRINT);
	}
	if (!kern)
		preempt_enable();
	return rc;
}

/* The sampled hit of a handler run with STP_RUN_SAMPLED, timed and
 * accounted for as the hits since the last one: out of line, so that
 * the inline path of the other hits keeps no clock or weight.
 */
int _stp_probe_run_timed(const struct stp_probe *p,
			 void (*handler)(struct context *),
			 struct pt_regs *regs, struct kretprobe_instance *ri,
			 const u64 *targs, int want_state, unsigned int flags,
			 void *edata);

static __always_inline int
__stp_probe_run_fe(const struct stp_probe *p,
		   void (*handler)(struct context *), struct pt_regs *regs,
		   struct kretprobe_instance *ri, const u64 *targs,
		   int want_state, unsigned int flags, void *edata)
{
	if (!STP_LEAN_SAMPLE || !(flags & STP_RUN_SAMPLED))
		return __stp_probe_run_w(p, handler, regs, ri, targs,
					 want_state, flags, 1, edata);
	if (likely(this_cpu_dec_return(_stp_lean_tick) >= 0))
		return __stp_probe_run_w(p, handler, regs, ri, targs,
					 want_state, flags, 0, edata);
	return _stp_probe_run_timed(p, handler, regs, ri, targs, want_state,
				    flags, edata);
}

static __always_inline int
__stp_probe_run_flags(const struct stp_probe *p,
		      void (*handler)(struct context *), struct pt_regs *regs,
		      struct kretprobe_instance *ri, const u64 *targs,
		      int want_state, unsigned int flags)
{
	return __stp_probe_run_fe(p, handler, regs, ri, targs, want_state,
				  flags, NULL);
}

/* A uretprobe's run, and the run of its entry part, with the values
 * saved at entry (stp_uprobe.c finds them by task and stack pointer).
 */
static __always_inline int
__stp_probe_run_edata(const struct stp_probe *p,
		      void (*handler)(struct context *), struct pt_regs *regs,
		      void *edata, int want_state, unsigned int flags)
{
	return __stp_probe_run_fe(p, handler, regs, NULL, NULL, want_state,
				  flags, edata);
}

/* A lean handler (the translator's analyze.c says which are: integer
 * arithmetic on scalar globals, nothing that can fail, loop, call,
 * print or read memory) runs without the context: session state, its
 * globals' locks (a lock held by an interrupted hit on this CPU makes
 * it skip, counted) and the statements.  Every STP_LEAN_SAMPLE-th hit
 * on a CPU runs the full handler instead and is accounted for as that
 * many hits, so the overload limit still holds.
 */
void _stp_probe_run_sampled(const struct stp_probe *p, struct pt_regs *regs,
			    struct kretprobe_instance *ri, const u64 *targs,
			    int want_state);

/* preempt_off: the caller runs with preemption disabled already (kprobe
 * and kretprobe handlers always do).
 */
static __always_inline void
__stp_probe_run_lean(const struct stp_probe *p, void (*lean)(void),
		     struct pt_regs *regs, struct kretprobe_instance *ri,
		     const u64 *targs, int want_state, bool preempt_off)
{
	if (preempt_off)
		lockdep_assert_preemption_disabled();
	else
		preempt_disable();
	if (STP_LEAN_SAMPLE &&
	    unlikely(__this_cpu_dec_return(_stp_lean_tick) < 0))
		_stp_probe_run_sampled(p, regs, ri, targs, want_state);
	else if (likely(atomic_read(&_stp_session_state) == want_state))
		lean();
	if (!preempt_off)
		preempt_enable();
}

static __always_inline int
__stp_probe_run(const struct stp_probe *p, void (*handler)(struct context *),
		struct pt_regs *regs, struct kretprobe_instance *ri,
		const u64 *targs, int want_state)
{
	return __stp_probe_run_flags(p, handler, regs, ri, targs, want_state,
				     STP_RUN_PRINT);
}

#endif
