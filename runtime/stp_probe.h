/* stp_probe.h - the probe context and what every handler does around
 * the script's body: session-state and stack checks, reentrancy
 * detection, the action budget, error reporting and the print flush.
 *
 * The generated module defines STP_CONTEXT_LOCALS (the unions of its
 * probes' and functions' locals) before including the runtime, so the
 * locals live in the per-CPU context rather than on the kernel stack.
 * The runtime's core (stp_core.c) is built without them: it touches
 * only the members before them, and allocates the contexts with the
 * size the script gives (stp_script.context_size).
 */
#ifndef STP_PROBE_H
#define STP_PROBE_H

#include "stp_limits.h"

#ifndef STP_CONTEXT_LOCALS
#define STP_CONTEXT_LOCALS
#endif

/* One probe as the runtime sees it (a static table in the module). */
struct stp_probe {
	const char *pp;			/* pp(): the probe point as resolved */
	const char *location;		/* "file:line:col" of the probe */
	int index;
	int type;			/* enum stp_probe_type */
	void (*handler)(struct context *c);
	/* the string literals of a handler shared by several probes
	 * (the translator's cshare.h), else NULL
	 */
	const char *const *lits;
	/* --monitor: hits, and the cycles they took (stp_monitor.h) */
	atomic64_t hits;
	atomic64_t cycles;
	atomic64_t min_cycles;
	atomic64_t max_cycles;
};

/* A row of a module's stp_probes table, one per probe: its number,
 * type, handler, pp() and location ("file:line:col"), and with _LITS
 * the literals of its shared handler.
 */
#define STP_PROBE(i, t, h, p, loc)					\
	[i] = { .pp = p, .location = loc, .index = i, .type = t,	\
		.handler = h }
#define STP_PROBE_LITS(i, t, h, p, loc, l)				\
	[i] = { .pp = p, .location = loc, .index = i, .type = t,	\
		.handler = h, .lits = l }

struct context {
	atomic_t busy;			/* reentrancy guard */
	int probe_type;
	/* the members a hit sets (__stp_probe_enter), side by side so
	 * that the reset is few stores
	 */
	const struct stp_probe *probe;
	const char *probe_point;	/* pp() */
	const char *probe_name;
	struct pt_regs *regs;		/* kernel registers, may be NULL */
	struct pt_regs *uregs;		/* user registers, may be NULL */
	struct kretprobe_instance *ri;
	void *edata;			/* a uretprobe's values saved at entry */
	const u64 *targs;		/* tracepoint arguments */
	/* error state of the running handler */
	const char *last_error;		/* NULL = no error */
	const char *last_stmt;		/* "identifier 'x' at f:l:c" */
	long actionremaining;
	/* the handler's global locks while it holds them, else NULL */
	const struct stp_lockset *locks;
	int nesting;			/* function call depth */
	int next;			/* a function said 'next' */
	union {
		struct {
			bool user_mode_p;
			/* they were let go of for a page fault and not
			 * had back: the handler ends, no catch block runs
			 * (stp_mem.c)
			 */
			bool locks_lost;
			/* the handler did not run: its global locks were
			 * not had in time (a skipped probe, counted); a
			 * .return probe's entry part that did not save
			 * its values must not arm the return
			 */
			bool skipped;
		};
		u32 hit_flags;		/* all three, reset at once */
	};
	unsigned long stack_floor;	/* stp_nesting.h */
	char error_buffer[MAXSTRINGLEN];
	STP_CONTEXT_LOCALS
};

/* Per-CPU contexts, allocated at module init. */
int _stp_context_init(void);
void _stp_context_free(void);
struct context *_stp_context_get(int cpu);

/* Entering and leaving a handler (session state, stack room, the
 * reentrancy guard counted as skipped, the context reset; on the way
 * out the error report, the print flush and the release) are inline in
 * stp_probe_inline.h, used by _stp_probe_run and by each kprobe and
 * tracepoint callback the translator writes.
 */

/* Raise an error from generated code (the message must outlive the
 * handler: a literal or c->error_buffer).
 */
static inline void _stp_error_at(struct context *c, const char *msg,
				 const char *where)
{
	if (!c->last_error) {
		c->last_error = msg;
		c->last_stmt = where;
	}
}

/* printf-style error text into c->error_buffer. */
void _stp_error_fmt(struct context *c, const char *where,
		    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Run one handler in a fresh context: the common body of every probe
 * kind's callback.  regs may be NULL.
 */
void _stp_probe_run(const struct stp_probe *p, struct pt_regs *regs,
		    int want_state);

/* A global's lock (docs/safety.md, "Locks").  The architecture's
 * reader-writer lock, which spins on every kernel, PREEMPT_RT included
 * (where rwlock_t sleeps), taken only by trylock and only with one more
 * preemption count per lock held: the preemption model sees a handler
 * holding locks as atomic, so nothing it calls may sleep (the kernel's
 * own checks say so) and a user-memory read that must fault first lets
 * go of them (_stp_probe_unlock_for_fault).
 */
struct stp_rwlock {
	arch_rwlock_t raw;
	atomic_t skips;			/* hits skipped for want of it (-t) */
	const char *name;		/* the global's script name */
};

#define STP_DEFINE_RWLOCK(var, script_name)				\
	struct stp_rwlock var = { .raw = __ARCH_RW_LOCK_UNLOCKED,	\
				  .name = script_name }

/* The locks one handler takes, all or none, in the global's order; the
 * translator writes one per probe.  lock() counts a skip when it fails.
 */
struct stp_lockset {
	bool (*lock)(void);
	void (*unlock)(void);
	int n;				/* how many locks */
};

/* Global locks: trylock with bounded retries (MAXTRYLOCK x
 * TRYLOCKDELAY us); false means the probe must be skipped (counted
 * against the lock, for -t).  The first try is inline
 * (stp_probe_inline.h), the retries are not.
 */
bool _stp_read_trylock_slow(struct stp_rwlock *l);
bool _stp_write_trylock_slow(struct stp_rwlock *l);

/* Every global's lock, for the -t report (the generated module). */
extern struct stp_rwlock *const stp_global_locks[];
extern const int stp_nglobal_locks;

/* Why a hit was skipped, for the -t report. */
enum stp_skip_why {
	STP_SKIP_REENTRANT,
	STP_SKIP_LOWSTACK,
	STP_SKIP_LOCK,
	STP_SKIP_OTHER,
	STP_SKIP_NWHY,
};
void _stp_probe_skipped_why(enum stp_skip_why why);
/* The -t lines on skipped hits, at the end of the session. */
void _stp_probe_skip_report(void);

#endif
