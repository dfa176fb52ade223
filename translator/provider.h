/* provider.h - probe providers: each builtin probe point family (begin,
 * timer, kernel.function, ...) is one struct provider of hooks, found by
 * matching a probe point against the shapes ("patterns") it declares.
 */
#ifndef TAPIR_PROVIDER_H
#define TAPIR_PROVIDER_H

#include "elab.h"

struct emitter;

/* What a pattern component takes in parentheses. */
enum pat_arg {
	PAT_NONE,	/* functor alone */
	PAT_NUM,	/* functor(number) */
	PAT_STR,	/* functor("string") */
};

struct pat_comp {
	const char *functor;		/* interned */
	enum pat_arg arg;
};

#define PROV_MAX_COMPS 8

/* One concrete shape, e.g. timer.ms(NUM).randomize(NUM). */
struct prov_pattern {
	const struct provider *prov;
	int n;
	struct pat_comp comps[PROV_MAX_COMPS];
};

/* Handed to the hooks.  In quiet mode (one branch of a wildcard that may
 * fail without complaint) errors are counted but not printed.
 */
struct prov_ctx {
	struct session *s;
	bool quiet;
	int errors;
	bool optional;		/* the point is optional ('?' or '!') */
	bool at_entry;		/* resolving inside @entry(...) */
	/* when set, errors belong to it (a target expression's): shown
	 * only if its code survives elision, as the established tool does
	 */
	struct diag_hold *held;
	/* quiet mode: the first error's text is kept here when set */
	struct strbuf *why;
};

/* How pass 3 runs the probes of a family: most register a mechanism
 * through their emit or emit_group hook; the session's own events are
 * run by the emitter from stp_probes_start and stp_probes_stop.
 */
enum prov_run {
	PROV_RUN_HOOKS,		/* registered by emit or emit_group */
	PROV_RUN_BEGIN,		/* at start, before the others are armed */
	PROV_RUN_END,		/* at stop, unless the session failed */
	PROV_RUN_ERROR,		/* at stop, when the session failed */
	PROV_RUN_NEVER,		/* not at all: only type-checked */
};

struct provider {
	const char *name;
	/* NULL-terminated shapes: components joined by '.', "(n)" for a
	 * number, "(s)" for a string; "{a,b}" alternatives nest and
	 * multiply out, "{,x}" makes x optional.
	 */
	const char *const *patterns;
	/* Recognised but not implemented: every match is an error. */
	bool unsupported;
	/* A point with wildcards in its arguments (a function pattern):
	 * push the concrete points it stands for onto out, in the order
	 * they should be listed.  Returns how many, or -1 after reporting.
	 * NULL when the family's arguments are never patterns.
	 */
	int (*expand)(struct prov_ctx *c, const struct probe_point *pp,
		      struct vec *out);
	/* Check the arguments of dp->pp and fill dp->priv; 0 or -1. */
	int (*build)(struct prov_ctx *c, struct derived_probe *dp);
	/* Resolve one $target expression of dp's body; NULL when the
	 * family has no target variables (using one is an error).
	 */
	int (*resolve_target)(struct prov_ctx *c, struct derived_probe *dp,
			      struct expr *e);
	/* @var("name[@file]"[, "module"]) in dp's body: a global of the
	 * probed object's own; NULL: @var needs the kernel's DWARF.
	 */
	int (*resolve_atvar)(struct prov_ctx *c, struct derived_probe *dp,
			     struct expr *e);
	/* @entry(e->a) in dp: set it up to be saved at entry (the family
	 * has an entry); NULL when @entry is meaningless there.
	 */
	int (*resolve_entry)(struct prov_ctx *c, struct derived_probe *dp,
			     struct expr *e);
	/* Pass 3, where the values saved at entry are: C for a pointer to
	 * them from the handlers' context c, and the STP_PROBE_* type the
	 * entry part runs as; NULL for a kretprobe's (c->ri->data,
	 * STP_PROBE_KPROBE).
	 */
	const char *entry_data;
	const char *entry_type;
	/* stap -l/-L: the point as listed, when it says more than dp->name
	 * (a function's file and line from DWARF); NULL to use dp->name.
	 */
	const char *(*list_name)(const struct derived_probe *dp,
				 struct arena *a);
	/* stap -L: " $name:type ..." for dp's target variables. */
	void (*list_vars)(const struct derived_probe *dp, struct strbuf *sb);
	/* Pass 3 for every probe of the family at once, instead of emit:
	 * the declarations, and in EMIT_START code that may fail: it sets
	 * rc and, when rc is not 0, has undone its own part.  Its
	 * EMIT_STOP code runs both at the end and when a later family's
	 * start fails.
	 */
	void (*emit_group)(struct emitter *em, struct vec *dps);
	/* Pass 3: the declarations of dp's mechanism (emit_out(EMIT_DECLS))
	 * and its registration and teardown (EMIT_START, EMIT_STOP).  NULL
	 * for the families the emitter runs itself (run below).
	 */
	void (*emit)(struct emitter *em, struct derived_probe *dp);
	/* Pass 3: when the emitter runs the family's probes itself (begin,
	 * end, error, never); PROV_RUN_HOOKS (0) for every other family.
	 */
	enum prov_run run;
	/* The runtime's STP_PROBE_* type of dp, as probe_type() reports
	 * it; NULL for STP_PROBE_BEGIN.
	 */
	const char *(*probe_type)(const struct derived_probe *dp);
};

/* Every builtin pattern (struct prov_pattern *) into out.  Once per
 * session: the functors are interned, and interning may be reset
 * between sessions.
 */
void provider_patterns(struct arena *a, struct vec *out);

/* Report through the context: printed unless quiet, always counted. */
void prov_error(struct prov_ctx *c, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Helpers for build hooks.  pp_comp_of finds the component with this
 * (interned) functor; pp_num reads its numeric argument.
 */
const struct pp_comp *pp_comp_of(const struct probe_point *pp,
				 const char *functor);
bool pp_num(const struct probe_point *pp, const char *functor,
	    int64_t *out);
/* The kind of a probe point argument (a literal, maybe negated). */
enum pat_arg pp_arg_kind(const struct expr *arg);
bool pp_arg_num(const struct expr *arg, int64_t *out);
/* expand for the families rooted at process, process(PID) and
 * process("PATH") whose program is only a filter (begin/end events,
 * .syscall): a PATH resolved as a shell finds it becomes the point's
 * canonical path; the other forms stand as they are.  1 point pushed,
 * or -1 after reporting.
 */
int prov_expand_process(struct prov_ctx *c, const struct probe_point *pp,
			struct vec *out);
/* The depth of .callees(N) (cscomp, the callees component, or NULL),
 * 1 for .callees and .callee(G); 0 after reporting a bad one.
 */
int prov_callee_depth(struct prov_ctx *c, const struct pp_comp *cscomp);
/* A .callee probe's paths (struct kcallpath *) as the table
 * "static const struct TYPE PREFIX_N_paths[]", each entry its calls in
 * PREFIX_N_from (written before, level by level, path by path), how
 * many they are and how deep the path goes.
 */
void prov_emit_callee_paths(struct strbuf *d, const struct vec *paths,
			    const char *type, const char *prefix, int n);
/* e, bound, becomes the next value dp saves at entry: saved is what is
 * evaluated there, e reads it back in the .return handler.
 */
void prov_save_at_entry(struct prov_ctx *c, struct derived_probe *dp,
			struct expr *e, struct expr *saved);
/* A .return probe reads a parameter as it was at entry: e, bound,
 * becomes @entry(e), saved at entry.
 */
void prov_snapshot_at_entry(struct prov_ctx *c, struct derived_probe *dp,
			    struct expr *e);
/* Canonical text of a probe point: comp(.comp)*, no flags or cond. */
const char *pp_text(struct arena *a, const struct probe_point *pp);

/* The families, one file each under providers/. */
extern const struct provider begin_provider;
extern const struct provider end_provider;
extern const struct provider error_provider;
extern const struct provider never_provider;
extern const struct provider timer_provider;
extern const struct provider kfunc_provider;

/* cb per kernel function symbol (not of a module) that a probe of the
 * session is placed in, a symbol once per probe.
 */
void kfunc_probed_syms(struct session *s,
		       void (*cb)(const char *sym, void *arg), void *arg);
/* cb per module (the kernel's name of it) that a module("M") probe of
 * the session is placed in, once per probe.
 */
void kfunc_probed_modules(struct session *s,
			  void (*cb)(const char *module, void *arg),
			  void *arg);
extern const struct provider tracepoint_provider;
extern const struct provider uprobe_provider;
extern const struct provider process_events_provider;
extern const struct provider syscall_provider;
extern const struct provider procfs_provider;
extern const struct provider perf_provider;
extern const struct provider hwbkpt_provider;
extern const struct provider netfilter_provider;

/* @perf("NAME"): the index of the counter's event in the module's table
 * of perf events (providers/perf.c), or -1 when no probe defines it.
 */
int perf_counter_slot(struct session *s, const char *name);

/* The script has input.char or input.line probes (write probes of
 * procfs("__stdin")): staprun is to pass its standard input on (-i).
 */
bool procfs_reads_stdin(struct session *s);

#endif
