/* analyze.c - what the C will depend on, worked out on the elaborated
 * tree before any of it is written: counters, the globals each probe
 * locks (through the functions it calls), call depth and recursion,
 * lean handlers, run flags and written-only globals.  The results go
 * on the tree; pass 3 (emit*.c) reads them and -p2 -v prints them.
 */
#include "analyze.h"

#include <string.h>

static bool is_stat_var(const struct vardecl *v)
{
	return v->type == TY_STATS;
}

static bool is_array(const struct vardecl *v)
{
	return v->arity > 0;
}

/* v's place in s->globals (analyze() numbers them), or -1. */
static int gindex(const struct session *s, const struct vardecl *v)
{
	if (!v || !v->is_global || v->index < 0 || v->index >= s->globals.n ||
	    s->globals.items[v->index] != v)
		return -1;
	return v->index;
}

/* Whether a walk over the functions a handler calls meets g for the
 * first time (each is walked once, also when it recurses); records it.
 */
static bool func_first_visit(struct arena *a, struct vec *seen,
			     struct func *g)
{
	int i;

	for (i = 0; i < seen->n; i++)
		if (seen->items[i] == g)
			return false;
	vec_push(a, seen, g);
	return true;
}

/* ------------------------------------------------------------------ */
/* Counters: a long global (a scalar, or an array of the default      */
/* size) that every write adds to, as a statement of its own (x++,     */
/* x--, x += e, x -= e, a[k]++, ...), is kept so that adding needs     */
/* only the shared lock: a scalar is added to atomically, an array    */
/* per CPU and summed when read.  Reads take the exclusive lock.  Hits */
/* on several CPUs that count into the same global then never wait for */
/* each other (doc/safety.md, Locks).                                  */

struct counter_walk {
	struct elab_walk w;
	struct session *s;
	int *writes, *adds;
	bool *no;
};

const struct vardecl *analyze_counter_target(const struct expr *e)
{
	const struct expr *lv;

	if (!e || (e->kind != EX_INCDEC && e->kind != EX_ASSIGN))
		return NULL;
	if (e->kind == EX_ASSIGN && strcmp(e->op, "+=") &&
	    strcmp(e->op, "-="))
		return NULL;
	lv = e->a->kind == EX_INDEX ? e->a->a : e->a;
	if (lv->kind != EX_SYM || !lv->var || !lv->var->is_global ||
	    lv->var->type != TY_LONG)
		return NULL;
	return lv->var;
}

static bool counter_expr_cb(struct elab_walk *w, struct expr *e)
{
	struct counter_walk *cw = (struct counter_walk *)w;
	const struct expr *lv;
	int i;

	if (e->kind != EX_ASSIGN && e->kind != EX_INCDEC)
		return true;
	lv = e->a->kind == EX_INDEX ? e->a->a : e->a;
	if (lv->kind == EX_SYM && lv->var && lv->var->is_global) {
		i = gindex(cw->s, lv->var);
		if (i >= 0)
			cw->writes[i]++;
	}
	return true;
}

static bool counter_stmt_cb(struct elab_walk *w, struct stmt *st)
{
	struct counter_walk *cw = (struct counter_walk *)w;
	const struct vardecl *v;
	int i;

	if (st->kind != ST_EXPR || !(v = analyze_counter_target(st->expr)))
		return true;
	i = gindex(cw->s, v);
	if (i >= 0)
		cw->adds[i]++;
	return true;
}

static void counter_pragma(struct vardecl *v, void *arg)
{
	struct counter_walk *cw = arg;
	int i = gindex(cw->s, v);

	if (i >= 0)
		cw->no[i] = true;
}

static void find_counters(struct session *s)
{
	struct counter_walk cw;
	size_t n = (size_t)s->globals.n + 1;
	int i, j;

	memset(&cw, 0, sizeof(cw));
	cw.w.expr = counter_expr_cb;
	cw.w.stmt = counter_stmt_cb;
	cw.s = s;
	cw.writes = arena_alloc(s->arena, n * sizeof(int));
	cw.adds = arena_alloc(s->arena, n * sizeof(int));
	cw.no = arena_alloc(s->arena, n);
	for (i = 0; i < s->probes.n; i++) {
		struct derived_probe *dp = s->probes.items[i];

		elab_walk_stmt(&cw.w, dp->body);
		elab_walk_expr(&cw.w, dp->cond);
		for (j = 0; j < dp->entry_exprs.n; j++)
			elab_walk_expr(&cw.w, dp->entry_exprs.items[j]);
	}
	for (i = 0; i < s->functions.n; i++) {
		struct func *f = s->functions.items[i];

		elab_walk_stmt(&cw.w, f->body);
		/* embedded C that names a global works on it directly */
		elab_pragma_globals(s, f->code, "read", counter_pragma, &cw);
		elab_pragma_globals(s, f->code, "write", counter_pragma, &cw);
	}
	for (i = 0; i < s->globals.n; i++) {
		struct vardecl *v = s->globals.items[i];

		/* a declared size is kept exactly (and the sums of a large
		 * one, room for every CPU's part, might not fit in memory)
		 */
		v->counter = !cw.no[i] && cw.adds[i] &&
			     cw.adds[i] == cw.writes[i] &&
			     v->type == TY_LONG && !v->wrap && !v->maxsize;
	}
}

/* ------------------------------------------------------------------ */
/* What the script extracts from each statistic: the histogram it     */
/* draws (pass 2 made every use agree) and whether it needs the       */
/* variance, so that the runtime keeps only what is read.             */

static struct vardecl *stat_var_of(const struct expr *e)
{
	if (e->kind == EX_INDEX)
		e = e->a;
	return e->kind == EX_SYM ? e->var : NULL;
}

static bool stat_use_cb(struct elab_walk *w, struct expr *e)
{
	struct vardecl *v;

	(void)w;
	if (e->kind == EX_HIST && (v = stat_var_of(e->a)))
		v->stat_hist = e;
	if (e->kind == EX_STAT && e->stat == STAT_VARIANCE &&
	    (v = stat_var_of(e->a)))
		v->stat_variance = e;
	return true;
}

static bool stat_use_stmt_cb(struct elab_walk *w, struct stmt *st)
{
	if (st->kind == ST_FOREACH && st->base && st->base->kind == EX_HIST)
		stat_use_cb(w, st->base);
	return true;
}

static void find_stat_uses(struct session *s)
{
	struct elab_walk w = { stat_use_cb, stat_use_stmt_cb, NULL };
	int i;

	for (i = 0; i < s->probes.n; i++)
		elab_walk_stmt(&w, ((struct derived_probe *)
				    s->probes.items[i])->body);
	for (i = 0; i < s->functions.n; i++) {
		struct func *f = s->functions.items[i];

		if (f->body)
			elab_walk_stmt(&w, f->body);
	}
}

/* ------------------------------------------------------------------ */
/* Locks: every global a probe reads or writes, through the functions */
/* it calls, taken in one fixed order (the global's index).           */

struct lock_walk {
	struct elab_walk w;
	struct session *s;
	bool *read, *write;
	struct vec seen_funcs;
};

static void lock_mark(struct lock_walk *lw, const struct expr *e, bool w)
{
	int i;

	if (!e || !e->var || !e->var->is_global)
		return;
	i = gindex(lw->s, e->var);
	if (i < 0)
		return;
	/* a counter is summed from its CPUs' parts when read */
	if (e->var->counter)
		lw->write[i] = true;
	/* statistics take the shared lock to add: the data is per-CPU */
	else if (w && !is_stat_var(e->var))
		lw->write[i] = true;
	else if (w || !is_stat_var(e->var))
		lw->read[i] = true;
	else
		lw->write[i] = true;	/* extraction merges: exclusive */
}

static void lock_global(struct lock_walk *lw, const struct vardecl *v,
			bool write)
{
	int i = gindex(lw->s, v);

	if (i < 0)
		return;
	if (write)
		lw->write[i] = true;
	else
		lw->read[i] = true;
}

/* Embedded C takes the locks its pragmas name. */
static void lock_pragma_read(struct vardecl *v, void *arg)
{
	lock_global(arg, v, false);
}

static void lock_pragma_write(struct vardecl *v, void *arg)
{
	lock_global(arg, v, true);
}

static void lock_walk_func(struct lock_walk *lw, struct func *f)
{
	struct func *g;

	for (g = f; g; g = g->next_overload) {
		if (!func_first_visit(lw->s->arena, &lw->seen_funcs, g))
			continue;
		if (g->body)
			elab_walk_stmt(&lw->w, g->body);
		elab_pragma_globals(lw->s, g->code, "read", lock_pragma_read,
				    lw);
		elab_pragma_globals(lw->s, g->code, "write",
				    lock_pragma_write, lw);
	}
}

/* x <<< v: the statistic itself is only added to (shared); walking
 * into it would count as an extraction.
 */
static void lock_stat_add(struct lock_walk *lw, struct expr *e,
			  const struct expr *lv)
{
	int i;

	lock_mark(lw, lv, true);
	if (e->a->kind == EX_INDEX)
		for (i = 0; i < e->a->args.n; i++)
			elab_walk_expr(&lw->w, e->a->args.items[i]);
	elab_walk_expr(&lw->w, e->b);
}

static bool lock_expr_cb(struct elab_walk *w, struct expr *e)
{
	struct lock_walk *lw = (struct lock_walk *)w;
	const struct expr *lv;

	switch (e->kind) {
	case EX_SYM:
		lock_mark(lw, e, false);
		break;
	case EX_INDEX:
	case EX_IN:
		if (e->a && e->a->kind == EX_SYM)
			lock_mark(lw, e->a, false);
		break;
	case EX_ASSIGN:
	case EX_INCDEC:
		lv = e->a->kind == EX_INDEX ? e->a->a : e->a;
		if (e->op && !strcmp(e->op, "<<<")) {
			lock_stat_add(lw, e, lv);
			return false;
		}
		if (lv->kind == EX_SYM && lv->var && lv->var->is_global)
			lock_global(lw, lv->var, true);
		break;
	case EX_CALL:
		if (e->func)
			lock_walk_func(lw, e->func);
		break;
	default:
		break;
	}
	return true;
}

static bool lock_stmt_cb(struct elab_walk *w, struct stmt *st)
{
	struct lock_walk *lw = (struct lock_walk *)w;
	const struct expr *e;
	const struct vardecl *v;
	int i;

	/* adding to a counter: the shared lock, and only the keys and the
	 * value are reads
	 */
	if (st->kind == ST_EXPR && (v = analyze_counter_target(st->expr)) &&
	    v->counter && gindex(lw->s, v) >= 0) {
		lock_global(lw, v, false);
		e = st->expr;
		if (e->a->kind == EX_INDEX)
			for (i = 0; i < e->a->args.n; i++)
				elab_walk_expr(w, e->a->args.items[i]);
		if (e->kind == EX_ASSIGN)
			elab_walk_expr(w, e->b);
		return false;
	}
	if (st->kind == ST_DELETE) {
		e = st->expr->kind == EX_INDEX ? st->expr->a : st->expr;
		if (e->var && e->var->is_global)
			lock_global(lw, e->var, true);
	}
	if (st->kind == ST_FOREACH && st->base->kind == EX_SYM &&
	    is_stat_var(st->base->var))
		lock_global(lw, st->base->var, true);
	return true;
}

/* dp->locks from one walk over its handler; and whether it needs no
 * lock (dp->lockfree), lean or not: its only global is a scalar counter
 * that it only adds to, one atomic operation, which a reader (holding
 * the exclusive lock) sees wholly before or after its read, as if the
 * hit came before or after; and no other global can be seen
 * half-updated with it.
 */
static void probe_locks(struct session *s, struct derived_probe *dp)
{
	struct lock_walk lw;
	size_t n = (size_t)s->globals.n + 1;
	bool adds_only = true;
	int i;

	memset(&lw, 0, sizeof(lw));
	lw.w.expr = lock_expr_cb;
	lw.w.stmt = lock_stmt_cb;
	lw.s = s;
	lw.read = arena_alloc(s->arena, n);
	lw.write = arena_alloc(s->arena, n);
	elab_walk_stmt(&lw.w, dp->body);
	if (dp->cond)
		elab_walk_expr(&lw.w, dp->cond);
	dp->locks = arena_alloc(s->arena, n);
	dp->nlocks = 0;
	for (i = 0; i < s->globals.n; i++) {
		const struct vardecl *v = s->globals.items[i];

		if (!lw.read[i] && !lw.write[i])
			continue;
		dp->locks[i] = lw.write[i] ? LOCK_WRITE : LOCK_READ;
		dp->nlocks++;
		if (lw.write[i] || !v->counter || is_array(v))
			adds_only = false;
	}
	dp->lockfree = dp->nlocks == 1 && adds_only;
}

/* ------------------------------------------------------------------ */
/* Call depth: the deepest call chain from each probe, and whether one */
/* recurses; MAXNESTING is the deepest of all plus one, plus room for  */
/* recursion.                                                          */

struct depth_walk {
	struct elab_walk w;
	struct arena *arena;
	struct vec stack;
	int deepest;			/* of the probe being walked */
	bool recursive;			/* likewise */
};

static void depth_func(struct depth_walk *dw, struct func *f);

static bool depth_expr_cb(struct elab_walk *w, struct expr *e)
{
	struct depth_walk *dw = (struct depth_walk *)w;

	if (e->kind == EX_CALL && e->func)
		depth_func(dw, e->func);
	return true;
}

static void depth_func(struct depth_walk *dw, struct func *f)
{
	int i;

	for (i = 0; i < dw->stack.n; i++)
		if (dw->stack.items[i] == f) {
			dw->recursive = true;
			return;
		}
	vec_push(dw->arena, &dw->stack, f);
	if (dw->stack.n > dw->deepest)
		dw->deepest = dw->stack.n;
	if (f->body)
		elab_walk_stmt(&dw->w, f->body);
	dw->stack.n--;
}

static void find_depths(struct session *s)
{
	struct depth_walk dw;
	struct arena *a = arena_new();
	int i, j;

	memset(&dw, 0, sizeof(dw));
	dw.w.expr = depth_expr_cb;
	dw.arena = a;
	s->call_depth = 0;
	s->recursive = false;
	for (i = 0; i < s->probes.n; i++) {
		struct derived_probe *dp = s->probes.items[i];

		dw.stack.n = 0;
		dw.deepest = 0;
		dw.recursive = false;
		elab_walk_stmt(&dw.w, dp->body);
		if (dp->cond)
			elab_walk_expr(&dw.w, dp->cond);
		for (j = 0; j < dp->entry_exprs.n; j++)
			elab_walk_expr(&dw.w, ((struct expr *)
					       dp->entry_exprs.items[j])->a);
		dp->depth = dw.deepest;
		dp->recursive = dw.recursive;
		if (dw.deepest > s->call_depth)
			s->call_depth = dw.deepest;
		s->recursive |= dw.recursive;
	}
	arena_free(a);
	s->max_nesting = s->call_depth + 1 + (s->recursive ? 10 : 0);
}

static bool call_expr_cb(struct elab_walk *w, struct expr *e)
{
	bool *calls = w->arg;

	if (e->kind == EX_CALL)
		*calls = true;
	return !*calls;
}

/* A leaf calls no function of the script: its frame is the last one of
 * the chain, so the stack room checked for its caller's call covers it
 * as it covers any kernel function the caller calls.
 */
static bool func_is_leaf(const struct func *f)
{
	bool calls = false;
	struct elab_walk w = { NULL, NULL, &calls };
	const struct func *g;

	w.expr = call_expr_cb;
	for (g = f; g && !calls; g = g->next_overload)
		if (g->body)
			elab_walk_stmt(&w, g->body);
	return !calls;
}

/* Every function a call names: the head of its chain of overloads. */
static bool leaf_expr_cb(struct elab_walk *w, struct expr *e)
{
	(void)w;
	if (e->kind == EX_CALL && e->func)
		e->func->leaf = func_is_leaf(e->func);
	return true;
}

static void find_leaves(struct session *s)
{
	struct elab_walk w = { leaf_expr_cb, NULL, NULL };
	int i, j;

	for (i = 0; i < s->functions.n; i++) {
		struct func *f = s->functions.items[i];

		f->leaf = func_is_leaf(f);
		if (f->body)
			elab_walk_stmt(&w, f->body);
	}
	for (i = 0; i < s->probes.n; i++) {
		struct derived_probe *dp = s->probes.items[i];

		elab_walk_stmt(&w, dp->body);
		elab_walk_expr(&w, dp->cond);
		for (j = 0; j < dp->entry_exprs.n; j++)
			elab_walk_expr(&w, dp->entry_exprs.items[j]);
	}
}

/* ------------------------------------------------------------------ */
/* Lean handlers: a probe whose body does integer arithmetic on scalar */
/* globals and literals only cannot fail, loop, call, print, read      */
/* memory or use a local.  Its statements are a bounded straight run   */
/* (MAXACTION cannot be reached), its stack use is a few bytes and it  */
/* touches no per-CPU context, so a nested hit is harmless (a global   */
/* held by the outer hit makes the inner one skip, counted).  Such a   */
/* handler runs without the context; every STP_LEAN_SAMPLE-th hit on   */
/* a CPU takes the full path so the overload account still sees it.   */
/* Each check gives the reason it fails, for -p2 -v.                   */

struct lean {
	const char *why;		/* NULL while it can be lean */
	struct loc loc;
};

static bool not_lean(struct lean *l, const char *why, struct loc loc)
{
	l->why = why;
	l->loc = loc;
	return false;
}

static bool lean_scalar(struct lean *l, const struct expr *e, bool stat)
{
	const struct vardecl *v = e->var;

	if (e->kind == EX_SYM && v && v->is_global && !is_array(v) &&
	    v->type == (stat ? TY_STATS : TY_LONG))
		return true;
	if (e->kind == EX_SYM && v && !v->is_global)
		return not_lean(l, "uses a local", e->loc);
	if (e->kind == EX_INDEX || (e->kind == EX_SYM && v && is_array(v)))
		return not_lean(l, "uses an array", e->loc);
	return not_lean(l, stat ? "adds to something other than a scalar "
			"statistic" : "uses something other than a scalar "
			"long global", e->loc);
}

static const char *lean_kind_why(const struct expr *e)
{
	switch (e->kind) {
	case EX_STR:
	case EX_CONCAT:
		return "uses a string";
	case EX_TARGET:
	case EX_ENTRY:
	case EX_PERF:
		return "reads a target value";
	case EX_INDEX:
	case EX_IN:
		return "uses an array";
	case EX_CALL:
		return "calls a function";
	case EX_PRINT:
		return "prints";
	case EX_REGEX:
		return "matches a regular expression";
	case EX_STAT:
	case EX_HIST:
		return "reads a statistic";
	case EX_ASSIGN:
		return "adds to a statistic that is not a scalar global";
	case EX_EMBEDDED:
	case EX_CONST:
		return "uses embedded C";
	default:
		return "uses an expression it cannot take";
	}
}

/* Why a value other than a long is not for a lean handler. */
static const char *lean_value_why(const struct expr *e)
{
	const struct expr *lv = e->a;

	if ((e->kind == EX_ASSIGN || e->kind == EX_INCDEC) && lv) {
		if (lv->kind == EX_INDEX)
			return "uses an array";
		if (lv->kind == EX_SYM && lv->var && !lv->var->is_global)
			return "uses a local";
	}
	if (e->type == TY_STRING)
		return "uses a string";
	return lean_kind_why(e);
}

static bool lean_expr(struct lean *l, const struct expr *e)
{
	if (!e)
		return true;
	if (e->type != TY_LONG) {
		if (e->kind == EX_ASSIGN && !strcmp(e->op, "<<<"))
			return lean_scalar(l, e->a, true) &&
			       lean_expr(l, e->b);
		return not_lean(l, lean_value_why(e), e->loc);
	}
	switch (e->kind) {
	case EX_NUM:
		return true;
	case EX_SYM:
		return lean_scalar(l, e, false);
	case EX_INCDEC:
		return lean_scalar(l, e->a, false);
	case EX_ASSIGN:
		if (!strcmp(e->op, "/=") || !strcmp(e->op, "%="))
			return not_lean(l, "divides (it may fail)", e->loc);
		if (!strcmp(e->op, "<<<"))
			return lean_scalar(l, e->a, true) &&
			       lean_expr(l, e->b);
		return lean_scalar(l, e->a, false) && lean_expr(l, e->b);
	case EX_BINARY:
		if (!strcmp(e->op, "/") || !strcmp(e->op, "%"))
			return not_lean(l, "divides (it may fail)", e->loc);
		return lean_expr(l, e->a) && lean_expr(l, e->b);
	case EX_COMPARE:
		if (e->a->type != TY_LONG)
			return not_lean(l, "compares strings", e->loc);
		return lean_expr(l, e->a) && lean_expr(l, e->b);
	case EX_UNARY:
	case EX_LOGICAL:
	case EX_TERNARY:
		return lean_expr(l, e->a) && lean_expr(l, e->b) &&
		       lean_expr(l, e->c);
	default:
		return not_lean(l, lean_kind_why(e), e->loc);
	}
}

static const char *lean_stmt_why(const struct stmt *st)
{
	switch (st->kind) {
	case ST_WHILE:
	case ST_FOR:
	case ST_FOREACH:
		return "loops";
	case ST_DELETE:
		return "deletes";
	case ST_TRY:
		return "has a try block";
	default:
		return "has a statement it cannot take";
	}
}

/* Counts the statements of st in *n; false for any it cannot take. */
static bool lean_stmt(struct lean *l, const struct stmt *st, int *n)
{
	int i;

	if (!st)
		return true;
	++*n;
	switch (st->kind) {
	case ST_BLOCK:
		for (i = 0; i < st->stmts.n; i++)
			if (!lean_stmt(l, st->stmts.items[i], n))
				return false;
		return true;
	case ST_NULL:
	case ST_NEXT:
		return true;
	case ST_EXPR:
		return lean_expr(l, st->expr);
	case ST_IF:
		return lean_expr(l, st->expr) && lean_stmt(l, st->body, n) &&
		       lean_stmt(l, st->els, n);
	default:
		return not_lean(l, lean_stmt_why(st), st->loc);
	}
}

static void probe_lean(struct session *s, struct derived_probe *dp)
{
	struct lean l = { NULL, { NULL, 0, 0 } };
	int n = 0;

	/* --monitor counts every hit, which only the full run does */
	if (s->opt.monitor)
		not_lean(&l, "--monitor counts every hit", l.loc);
	else if (dp->locals.n)
		not_lean(&l, "has locals", l.loc);
	else if (dp->entry_exprs.n)
		not_lean(&l, "saves @entry values", l.loc);
	else if (lean_expr(&l, dp->cond) && lean_stmt(&l, dp->body, &n) &&
		 n >= 100)
		/* the run must stay far below MAXACTION (1000 at the least) */
		not_lean(&l, "has 100 statements or more", l.loc);
	dp->lean = !l.why;
	dp->not_lean = l.why;
	dp->not_lean_loc = l.loc;
}

/* ------------------------------------------------------------------ */
/* Run flags: whether a handler can write to the print buffer, and     */
/* whether its cost per hit is bounded (stp_probe_inline.h).           */

/* A print, or embedded C not marked pure (which may), in the handler
 * or in a function it calls.
 */
struct print_walk {
	struct elab_walk w;
	struct session *s;
	struct vec seen;
	bool prints;
};

static void print_walk_func(struct print_walk *pw, struct func *f)
{
	struct func *g;

	for (g = f; g && !pw->prints; g = g->next_overload) {
		if (!func_first_visit(pw->s->arena, &pw->seen, g))
			continue;
		/* pure embedded C has no effect but its value */
		if (g->code && !g->pure)
			pw->prints = true;
		else if (g->body)
			elab_walk_stmt(&pw->w, g->body);
	}
}

static bool print_expr_cb(struct elab_walk *w, struct expr *e)
{
	struct print_walk *pw = (struct print_walk *)w;

	if (e->kind == EX_PRINT || e->kind == EX_EMBEDDED)
		pw->prints = true;
	else if (e->kind == EX_CALL && e->func)
		print_walk_func(pw, e->func);
	return !pw->prints;
}

static bool probe_may_print(struct session *s, struct derived_probe *dp)
{
	struct print_walk pw = { { print_expr_cb, NULL, NULL }, s, { 0 },
				 false };
	int i;

	elab_walk_stmt(&pw.w, dp->body);
	for (i = 0; i < dp->entry_exprs.n && !pw.prints; i++)
		elab_walk_expr(&pw.w, ((struct expr *)
				       dp->entry_exprs.items[i])->a);
	if (dp->cond)
		elab_walk_expr(&pw.w, dp->cond);
	return pw.prints;
}

/* No loop in the handler or in a function it calls, and no recursion
 * anywhere in the script.
 */
struct bound_walk {
	struct elab_walk w;
	struct session *s;
	struct vec seen;
	bool bounded;
};

static bool bound_stmt_cb(struct elab_walk *w, struct stmt *st)
{
	struct bound_walk *bw = (struct bound_walk *)w;

	if (st->kind == ST_WHILE || st->kind == ST_FOR ||
	    st->kind == ST_FOREACH)
		bw->bounded = false;
	return bw->bounded;
}

static bool bound_expr_cb(struct elab_walk *w, struct expr *e)
{
	struct bound_walk *bw = (struct bound_walk *)w;
	struct func *g;

	if (e->kind != EX_CALL || !e->func)
		return bw->bounded;
	if (bw->s->recursive) {
		bw->bounded = false;
		return false;
	}
	for (g = e->func; g && bw->bounded; g = g->next_overload) {
		if (!func_first_visit(bw->s->arena, &bw->seen, g))
			continue;
		if (g->body)
			elab_walk_stmt(&bw->w, g->body);
	}
	return bw->bounded;
}

static bool probe_bounded(struct session *s, struct derived_probe *dp)
{
	struct bound_walk bw = { { bound_expr_cb, bound_stmt_cb, NULL }, s,
				 { 0 }, true };

	elab_walk_stmt(&bw.w, dp->body);
	if (dp->cond && bw.bounded)
		elab_walk_expr(&bw.w, dp->cond);
	return bw.bounded;
}

/* ------------------------------------------------------------------ */
/* Sharing: handlers that are the same but for their literals share   */
/* one C function.  Which ones are the same is decided on their C text */
/* (cshare.c); here only which handlers may take part.                 */

static bool embedded_cb(struct elab_walk *w, struct expr *e)
{
	if (e->kind == EX_EMBEDDED)
		*(bool *)w->arg = true;
	return true;
}

static const char *probe_not_shareable(const struct derived_probe *dp)
{
	bool embedded = false;
	struct elab_walk w = { embedded_cb, NULL, &embedded };

	if (dp->entry_exprs.n)
		return "saves @entry values";
	elab_walk_stmt(&w, dp->body);
	elab_walk_expr(&w, dp->cond);
	return embedded ? "embedded C" : NULL;
}

/* ------------------------------------------------------------------ */

void analyze(struct session *s)
{
	int i;

	if (s->analyzed)
		return;
	s->analyzed = true;
	for (i = 0; i < s->globals.n; i++) {
		struct vardecl *v = s->globals.items[i];

		v->index = i;
		v->final_print = v->written && !v->read && !v->from_tapset;
	}
	for (i = 0; i < s->probes.n; i++)
		((struct derived_probe *)s->probes.items[i])->index = i;
	find_leaves(s);
	find_counters(s);
	find_stat_uses(s);
	find_depths(s);
	for (i = 0; i < s->probes.n; i++) {
		struct derived_probe *dp = s->probes.items[i];

		probe_locks(s, dp);
		probe_lean(s, dp);
		dp->may_print = probe_may_print(s, dp);
		dp->bounded = probe_bounded(s, dp);
		dp->not_shareable = probe_not_shareable(dp);
	}
}

/* ------------------------------------------------------------------ */
/* -p2 -v                                                              */

static void print_global(struct strbuf *sb, const struct vardecl *v)
{
	sb_printf(sb, "%s: ", v->name);
	if (v->read && v->written)
		sb_puts(sb, "read and written");
	else if (v->read)
		sb_puts(sb, "read only");
	else if (v->written)
		sb_puts(sb, "written only");
	else
		sb_puts(sb, "unused");
	if (v->final_print)
		sb_puts(sb, ", printed at the end");
	if (v->counter)
		sb_puts(sb, ", counter");
	if (v->stat_variance)
		sb_puts(sb, ", variance");
	if (v->stat_hist)
		sb_printf(sb, ", %s histogram", v->stat_hist->hist ==
			  HIST_LINEAR ? "linear" : "log");
	sb_putc(sb, '\n');
}

static void print_probe(struct strbuf *sb, struct session *s,
			const struct derived_probe *dp)
{
	const char *sep = "";
	int i;

	sb_printf(sb, "%s /* probe %d */\n  locks:", dp->name ? dp->name : "?",
		  dp->index);
	for (i = 0; i < s->globals.n; i++) {
		const char *name =
			((const struct vardecl *)s->globals.items[i])->name;

		if (!dp->locks[i])
			continue;
		if (dp->lockfree)
			sb_printf(sb, " none (%s: atomic adds)", name);
		else
			sb_printf(sb, "%s %s %s", sep, name,
				  dp->locks[i] == LOCK_WRITE ? "write" :
				  "read");
		sep = ",";
	}
	sb_printf(sb, "%s\n  call depth: %d%s\n  lean: ",
		  dp->nlocks ? "" : " none", dp->depth,
		  dp->recursive ? ", recursive" : "");
	if (dp->lean)
		sb_printf(sb, "yes\n");
	else if (dp->not_lean_loc.line)
		sb_printf(sb, "no, %s at %s:%d:%d\n", dp->not_lean,
			  dp->not_lean_loc.file ? dp->not_lean_loc.file->name :
			  "?", dp->not_lean_loc.line, dp->not_lean_loc.col);
	else
		sb_printf(sb, "no, %s\n", dp->not_lean);
	sb_printf(sb, "  prints: %s\n  bounded: %s\n  handler sharing: %s%s\n",
		  dp->may_print ? "may" : "no", dp->bounded ? "yes" : "no",
		  dp->not_shareable ? "no, " : "candidate",
		  dp->not_shareable ? dp->not_shareable : "");
}

static void print_function(struct strbuf *sb, const struct func *f)
{
	sb_printf(sb, "%s: %s\n", f->name, f->leaf ? "leaf" :
		  "calls script functions");
}

void analyze_print(struct strbuf *sb, struct session *s)
{
	int i;

	sb_printf(sb, "# analysis\nMAXNESTING %d: call depth %d + 1%s\n",
		  s->max_nesting, s->call_depth,
		  s->recursive ? " + 10 for recursion" : "");
	if (s->globals.n)
		sb_puts(sb, "# globals\n");
	for (i = 0; i < s->globals.n; i++)
		print_global(sb, s->globals.items[i]);
	if (s->functions.n)
		sb_puts(sb, "# functions\n");
	for (i = 0; i < s->functions.n; i++)
		print_function(sb, s->functions.items[i]);
	if (s->probes.n)
		sb_puts(sb, "# probes\n");
	for (i = 0; i < s->probes.n; i++)
		print_probe(sb, s, s->probes.items[i]);
}
