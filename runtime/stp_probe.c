/* stp_probe.c - per-CPU probe contexts and the common prologue and
 * epilogue of every handler.
 */
#include <linux/sched/task_stack.h>

static struct context *_stp_contexts[NR_CPUS];

int _stp_context_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		_stp_contexts[cpu] = vzalloc(sizeof(struct context));
		if (!_stp_contexts[cpu]) {
			_stp_context_free();
			return -ENOMEM;
		}
	}
	return 0;
}

void _stp_context_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		vfree(_stp_contexts[cpu]);
		_stp_contexts[cpu] = NULL;
	}
}

struct context *_stp_context_get(int cpu)
{
	return _stp_contexts[cpu];
}

/* Room left on the task stack; interrupt stacks are not measured. */
static bool _stp_stack_low(void)
{
	unsigned long sp = (unsigned long)&sp;
	unsigned long base;

	if (in_interrupt())
		return false;
	base = (unsigned long)task_stack_page(current);
	return sp > base && sp - base < MINSTACKSPACE;
}

struct context *_stp_probe_enter(const struct stp_probe *p, int want_state)
{
	struct context *c;

	if (atomic_read(&_stp_session_state) != want_state)
		return NULL;
	if (unlikely(_stp_stack_low())) {
		_stp_probe_skipped();
		return NULL;
	}
	c = _stp_contexts[smp_processor_id()];
	if (unlikely(!c))
		return NULL;
	if (atomic_inc_return(&c->busy) != 1) {
		/* a probe hit inside a probe handler on this CPU */
		atomic_dec(&c->busy);
		_stp_probe_skipped();
		return NULL;
	}
	c->probe = p;
	c->probe_point = p->pp;
	c->probe_name = p->pp;
	c->probe_type = p->type;
	c->regs = NULL;
	c->uregs = NULL;
	c->user_mode_p = false;
	c->ri = NULL;
	c->targs = NULL;
	c->last_error = NULL;
	c->last_stmt = NULL;
	c->nesting = 0;
	c->next = 0;
#ifdef STAP_SUPPRESS_TIME_LIMITS_ENABLE
	c->actionremaining = LONG_MAX;
#else
	c->actionremaining = INTERRUPTIBLE ? MAXACTION_INTERRUPTIBLE :
			     MAXACTION;
#endif
	return c;
}

/* Set when the overload check fired: that error always ends the run. */
static bool _stp_probe_leave_overloaded;

void _stp_probe_leave(struct context *c)
{
#ifndef STAP_SUPPRESS_HANDLER_ERRORS
	if (unlikely(c->last_error))
		_stp_soft_error(c->last_error, c->last_stmt);
#endif
	if (unlikely(READ_ONCE(_stp_probe_leave_overloaded)))
		_stp_request_error_exit();
	_stp_print_flush();
	atomic_dec(&c->busy);
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

#if !defined(STP_NO_OVERLOAD) && !defined(STAP_SUPPRESS_TIME_LIMITS_ENABLE)
/* Overload: a CPU that spends more than STP_OVERLOAD_THRESHOLD cycles in
 * handlers within STP_OVERLOAD_INTERVAL cycles ends the session, so a
 * script cannot starve the machine.  Per CPU, touched with preemption
 * off.
 */
struct stp_overload {
	cycles_t base;
	cycles_t sum;
};

static DEFINE_PER_CPU(struct stp_overload, _stp_overload);

static void _stp_overload_account(struct context *c, cycles_t start)
{
	struct stp_overload *o = this_cpu_ptr(&_stp_overload);
	cycles_t now = get_cycles();

	if (!o->base)
		o->base = start;
	o->sum += now - start;
	if (now - o->base < (cycles_t)STP_OVERLOAD_INTERVAL)
		return;
	if (o->sum > (cycles_t)STP_OVERLOAD_THRESHOLD &&
	    !c->last_error) {
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
	o->base = now;
	o->sum = 0;
}
#endif

int _stp_probe_run_ri(const struct stp_probe *p, struct pt_regs *regs,
		      struct kretprobe_instance *ri, int want_state)
{
	struct context *c;
	int rc = -1;
#if !defined(STP_NO_OVERLOAD) && !defined(STAP_SUPPRESS_TIME_LIMITS_ENABLE)
	cycles_t start = get_cycles();
#endif

	preempt_disable();
	c = _stp_probe_enter(p, want_state);
	if (c) {
		c->regs = regs;
		c->ri = ri;
		if (regs && user_mode(regs)) {
			c->uregs = regs;
			c->user_mode_p = true;
		}
		p->handler(c);
#if !defined(STP_NO_OVERLOAD) && !defined(STAP_SUPPRESS_TIME_LIMITS_ENABLE)
		_stp_overload_account(c, start);
#endif
		rc = c->last_error ? -1 : 0;
		_stp_probe_leave(c);
	}
	preempt_enable();
	return rc;
}

void _stp_probe_run_tp(const struct stp_probe *p, const u64 *args)
{
	struct context *c;
#if !defined(STP_NO_OVERLOAD) && !defined(STAP_SUPPRESS_TIME_LIMITS_ENABLE)
	cycles_t start = get_cycles();
#endif

	preempt_disable();
	c = _stp_probe_enter(p, STAP_SESSION_RUNNING);
	if (c) {
		c->targs = args;
		p->handler(c);
#if !defined(STP_NO_OVERLOAD) && !defined(STAP_SUPPRESS_TIME_LIMITS_ENABLE)
		_stp_overload_account(c, start);
#endif
		_stp_probe_leave(c);
	}
	preempt_enable();
}

void _stp_probe_run(const struct stp_probe *p, struct pt_regs *regs,
		    int want_state)
{
	_stp_probe_run_ri(p, regs, NULL, want_state);
}

bool _stp_read_trylock(rwlock_t *l)
{
	int i;

	for (i = 0; i < MAXTRYLOCK; i++) {
		if (read_trylock(l))
			return true;
		udelay(TRYLOCKDELAY);
	}
	return false;
}

bool _stp_write_trylock(rwlock_t *l)
{
	int i;

	for (i = 0; i < MAXTRYLOCK; i++) {
		if (write_trylock(l))
			return true;
		udelay(TRYLOCKDELAY);
	}
	return false;
}
