/* check.c - pass 2 rules beyond types and the parser's: arrays changed
 * under their own foreach (also by called functions), target writes
 * without -g (and under -g, what cannot be written), guru-only tapset
 * functions, @entry, delete, histogram, @variance and array limits.
 */
#include "elab.h"
#include "target.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_BUCKETS 128
#define MAX_VARIANCE_SHIFT 62

/* A histogram's shape, kept per statistic: every use must agree. */
struct hist_use {
	struct vardecl *var;
	struct expr *first;
	int64_t params[3];
};

struct checker {
	struct session *s;
	struct vec funcs;		/* s->functions, then callees found */
	int words;			/* bitset words per function */
	uint64_t *writes;		/* globals each function may write */
	struct vec iterated;		/* enclosing foreach statements */
	struct func *fn;		/* NULL in a probe */
	struct derived_probe *dp;
	struct vec hists;		/* struct hist_use * */
	int max_buckets;
};

/* Indexes live in priv while the pass runs; a stale priv from another
 * pass is harmless because every lookup is verified.
 */
static int global_index(struct checker *c, const struct vardecl *v)
{
	uintptr_t i = v ? (uintptr_t)v->priv : 0;

	if (!v || !v->is_global || i == 0 || i > (uintptr_t)c->s->globals.n ||
	    c->s->globals.items[i - 1] != v)
		return -1;
	return (int)i - 1;
}

static int func_index(struct checker *c, const struct func *f)
{
	uintptr_t i = f ? (uintptr_t)f->priv : 0;

	if (!f || i == 0 || i > (uintptr_t)c->funcs.n ||
	    c->funcs.items[i - 1] != f)
		return -1;
	return (int)i - 1;
}

static bool in_user_code(struct loc loc)
{
	return loc.file && !loc.file->is_tapset;
}

/* The variable an lvalue stores into: x, or a for a[...]. */
static struct vardecl *lvalue_var(const struct expr *lv)
{
	if (!lv)
		return NULL;
	if (lv->kind == EX_SYM)
		return lv->var;
	if (lv->kind == EX_INDEX && lv->a && lv->a->kind == EX_SYM)
		return lv->a->var;
	return NULL;
}

/* Write sets: which globals each function may change, directly or
 * through whatever it calls.
 */

struct write_walk {
	struct elab_walk w;
	struct checker *c;
	uint64_t *set;
	int caller;
	bool grew;
};

static void set_bit(uint64_t *set, int i)
{
	set[i / 64] |= 1ull << (i % 64);
}

static bool test_bit(const uint64_t *set, int i)
{
	return set[i / 64] & (1ull << (i % 64));
}

static void add_write(struct write_walk *ww, const struct vardecl *v)
{
	int i = global_index(ww->c, v);

	if (i >= 0)
		set_bit(ww->set, i);
}

static void pragma_write(struct vardecl *v, void *arg)
{
	add_write(arg, v);
}

/* Meeting a callee for the first time gives it an index. */
static void meet_func(struct checker *c, struct func *f)
{
	for (; f; f = f->next_overload) {
		if (func_index(c, f) >= 0)
			continue;
		vec_push(c->s->arena, &c->funcs, f);
		f->priv = (void *)(uintptr_t)c->funcs.n;
	}
}

static bool direct_write_expr(struct elab_walk *w, struct expr *e)
{
	struct write_walk *ww = (struct write_walk *)w;

	if (e->kind == EX_ASSIGN || e->kind == EX_INCDEC)
		add_write(ww, lvalue_var(e->a));
	else if (e->kind == EX_CALL)
		meet_func(ww->c, e->func);
	return e->kind != EX_DEFINED;
}

static bool direct_write_stmt(struct elab_walk *w, struct stmt *st)
{
	struct write_walk *ww = (struct write_walk *)w;
	int i;

	if (st->kind == ST_DELETE) {
		add_write(ww, lvalue_var(st->expr));
	} else if (st->kind == ST_FOREACH) {
		for (i = 0; i < st->keys.n; i++)
			add_write(ww, lvalue_var(st->keys.items[i]));
		add_write(ww, lvalue_var(st->value));
	} else if (st->kind == ST_TRY) {
		add_write(ww, lvalue_var(st->catch_var));
	}
	return true;
}

/* Callees' sets flow into their callers' until nothing grows. */
static bool callee_write_expr(struct elab_walk *w, struct expr *e)
{
	struct write_walk *ww = (struct write_walk *)w;
	struct checker *c = ww->c;
	struct func *f;
	int i, k;

	if (e->kind != EX_CALL)
		return true;
	for (f = e->func; f; f = f->next_overload) {
		k = func_index(c, f);
		if (k < 0 || k == ww->caller)
			continue;
		for (i = 0; i < c->words; i++) {
			uint64_t more = c->writes[k * c->words + i] &
					~ww->set[i];

			if (more) {
				ww->set[i] |= more;
				ww->grew = true;
			}
		}
	}
	return true;
}

static void compute_writes(struct checker *c)
{
	struct write_walk ww = { .w = { direct_write_expr, direct_write_stmt,
				       NULL }, .c = c };
	bool grew;
	int i;

	for (i = 0; i < c->funcs.n; i++) {	/* grows as callees appear */
		struct func *f = c->funcs.items[i];

		ww.set = c->writes = realloc(c->writes, sizeof(uint64_t) *
					    (size_t)c->words *
					    (size_t)(i + 1));
		if (!c->writes)
			abort();
		ww.set += (size_t)i * c->words;
		memset(ww.set, 0, sizeof(uint64_t) * (size_t)c->words);
		elab_walk_stmt(&ww.w, f->body);
		elab_pragma_globals(c->s, f->code, "write", pragma_write, &ww);
	}
	ww.w.expr = callee_write_expr;
	ww.w.stmt = NULL;
	do {
		grew = false;
		for (i = 0; i < c->funcs.n; i++) {
			struct func *f = c->funcs.items[i];

			ww.set = c->writes + (size_t)i * c->words;
			ww.caller = i;
			ww.grew = false;
			elab_walk_stmt(&ww.w, f->body);
			grew = grew || ww.grew;
		}
	} while (grew);
}

/* foreach: nothing may change the array being iterated. */

static struct stmt *iterating(struct checker *c, const struct vardecl *v)
{
	int i;

	for (i = c->iterated.n - 1; v && i >= 0; i--) {
		struct stmt *fe = c->iterated.items[i];

		if (fe->base->var == v)
			return fe;
	}
	return NULL;
}

static void loop_note(struct checker *c, struct stmt *fe)
{
	diag_note(c->s, fe->loc, "the foreach loop over '%s' is here",
		  fe->base->var->name);
}

static void check_modify(struct checker *c, const struct vardecl *v,
			 struct loc at)
{
	struct stmt *fe = iterating(c, v);

	if (!fe)
		return;
	diag_error(c->s, at, "cannot modify array '%s' inside a foreach "
		   "loop over it", v->name);
	loop_note(c, fe);
}

static void check_call_modify(struct checker *c, struct expr *e)
{
	struct func *f;
	int i, k;

	for (i = 0; i < c->iterated.n; i++) {
		struct stmt *fe = c->iterated.items[i];
		int g = global_index(c, fe->base->var);

		for (f = e->func; g >= 0 && f; f = f->next_overload) {
			k = func_index(c, f);
			if (k < 0 || !test_bit(c->writes + (size_t)k * c->words,
					       g))
				continue;
			diag_error(c->s, e->loc, "function '%s' modifies array "
				   "'%s' inside a foreach loop over it",
				   e->func->name, fe->base->var->name);
			loop_note(c, fe);
			break;
		}
	}
}

/* Lvalues and guru mode */

/* A .return probe reads $param as it was at entry (elaboration made it
 * an @entry), which is a copy: writing it would change nothing.
 */
static void check_target_write(struct checker *c, struct expr *lv)
{
	const char *why;

	if (lv->kind != EX_TARGET && lv->kind != EX_ENTRY)
		return;
	/* a procfs probe's $value is the script's, not the kernel's */
	if (lv->tref && lv->tref->base == TRB_PROCFS) {
		why = target_write_error(c->s->arena, lv);
		if (why)
			diag_error(c->s, lv->loc, "%s", why);
		return;
	}
	if (!c->s->opt.guru) {
		if (in_user_code(lv->loc))
			diag_error(c->s, lv->loc, "assignment to target "
				   "variable needs guru mode (-g)");
		return;
	}
	if (lv->kind == EX_ENTRY) {
		why = lv->a && lv->a->name ? lv->a->name : "@entry";
		diag_error(c->s, lv->loc, "cannot assign to '%s' in a .return "
			   "probe: it is the value saved at entry (only "
			   "$return can be written there)", why);
		return;
	}
	why = target_write_error(c->s->arena, lv);
	if (why)
		diag_error(c->s, lv->loc, "%s", why);
}

/* Tapset functions marked guru (set_kernel_long...) write memory. */
static void check_guru_call(struct checker *c, struct expr *e)
{
	if (e->func && e->func->guru_only && !c->s->opt.guru &&
	    in_user_code(e->loc))
		diag_error(c->s, e->loc, "function '%s' needs guru mode (-g)",
			   e->func->name);
}

/* The parser has made sure the operand is an lvalue. */
static void check_update(struct checker *c, struct expr *e)
{
	if (!e->a)
		return;
	check_target_write(c, e->a);
	check_modify(c, lvalue_var(e->a), e->loc);
}

/* Histograms and @variance */

/* The parser gives @hist_linear(s, L, H, W) s in a and the bounds in
 * args as integer literals, and @variance its shift in b.
 */
static bool literal_num(const struct expr *e, int64_t *out)
{
	if (!e || e->kind != EX_NUM)
		return false;
	*out = e->num;
	return true;
}

static int max_buckets(struct session *s)
{
	static const char key[] = "STP_MAX_BUCKETS=";
	int i, n = DEFAULT_MAX_BUCKETS;

	for (i = 0; i < s->opt.defines.n; i++) {
		const char *d = s->opt.defines.items[i];

		if (!strncmp(d, key, sizeof(key) - 1))
			n = atoi(d + sizeof(key) - 1);
	}
	return n;
}

static bool linear_params(struct checker *c, struct expr *e, int64_t p[3])
{
	int i;
	int64_t buckets;

	for (i = 0; i < 3; i++) {
		if (i >= e->args.n || !literal_num(e->args.items[i], &p[i])) {
			diag_error(c->s, e->loc, "@hist_linear takes a "
				   "statistic and three literal numbers");
			return false;
		}
	}
	if (p[2] <= 0) {
		diag_error(c->s, e->loc, "@hist_linear bucket width must be "
			   "positive");
		return false;
	}
	if (p[0] >= p[1]) {
		diag_error(c->s, e->loc, "@hist_linear lower bound must be "
			   "below the upper bound");
		return false;
	}
	buckets = (int64_t)(((uint64_t)p[1] - (uint64_t)p[0]) /
			    (uint64_t)p[2]) + 1;
	if (buckets > c->max_buckets || buckets < 0) {
		diag_error(c->s, e->loc, "@hist_linear has too many buckets "
			   "(%lld, at most %d; see STP_MAX_BUCKETS)",
			   (long long)buckets, c->max_buckets);
		return false;
	}
	return true;
}

/* Every histogram of one statistic must have the same shape. */
static void hist_consistent(struct checker *c, struct expr *e,
			    struct vardecl *v, const int64_t p[3])
{
	struct hist_use *h;
	int i;

	for (i = 0; i < c->hists.n; i++) {
		h = c->hists.items[i];
		if (h->var != v)
			continue;
		if (h->first->hist == e->hist &&
		    (e->hist == HIST_LOG || !memcmp(h->params, p,
						    sizeof(h->params))))
			return;
		diag_error(c->s, e->loc, "inconsistent histogram parameters "
			   "for '%s'", v->name);
		diag_note(c->s, h->first->loc, "'%s' was first used as a "
			  "histogram here", v->name);
		return;
	}
	h = arena_alloc(c->s->arena, sizeof(*h));
	h->var = v;
	h->first = e;
	memcpy(h->params, p, sizeof(h->params));
	vec_push(c->s->arena, &c->hists, h);
}

static void check_hist(struct checker *c, struct expr *e)
{
	int64_t p[3] = { 0, 0, 0 };

	if (e->hist == HIST_LINEAR && !linear_params(c, e, p))
		return;
	if (lvalue_var(e->a))
		hist_consistent(c, e, lvalue_var(e->a), p);
}

static void check_variance(struct checker *c, struct expr *e)
{
	struct expr *shift = e->b;
	int64_t n;

	if (e->stat != STAT_VARIANCE || !shift)
		return;
	if (!literal_num(shift, &n) || n < 0 || n > MAX_VARIANCE_SHIFT)
		diag_error(c->s, shift->loc, "@variance shift must be a "
			   "literal number from 0 to %d", MAX_VARIANCE_SHIFT);
}

/* Expressions */

static bool check_expr(struct elab_walk *w, struct expr *e)
{
	struct checker *c = w->arg;

	switch (e->kind) {
	case EX_ASSIGN:
	case EX_INCDEC:
		check_update(c, e);
		break;
	case EX_CALL:
		check_call_modify(c, e);
		check_guru_call(c, e);
		break;
	case EX_HIST:
		check_hist(c, e);
		break;
	case EX_STAT:
		check_variance(c, e);
		break;
	case EX_ENTRY:
		if (c->fn || !c->dp || !c->dp->returns)
			diag_error(c->s, e->loc, "@entry is only valid in a "
				   ".return probe handler");
		break;
	case EX_DEFINED:
		return false;	/* never evaluated */
	default:
		break;
	}
	return true;
}

/* Statements */

static void check_tree(struct checker *c, struct stmt *st, struct expr *e);

static void check_delete(struct checker *c, struct stmt *st)
{
	struct expr *e = st->expr;
	int i;

	if (!e)
		return;
	if (!(e->kind == EX_SYM && e->var) &&
	    !(e->kind == EX_INDEX && e->a && e->a->kind == EX_SYM)) {
		diag_error(c->s, e->loc, "'delete' needs a variable or an "
			   "array element");
		return;
	}
	for (i = 0; i < e->args.n; i++)
		check_tree(c, NULL, e->args.items[i]);
	check_modify(c, lvalue_var(e), st->loc);
}

/* The array is iterated while the body runs, not while the slice and
 * the limit are worked out.
 */
static void check_foreach(struct checker *c, struct stmt *st)
{
	struct vardecl *v = st->base ? st->base->var : NULL;
	bool iterated = v && st->base->kind == EX_SYM;
	int i;

	check_tree(c, NULL, st->base);
	for (i = 0; i < st->slice.n; i++)
		check_tree(c, NULL, st->slice.items[i]);
	check_tree(c, NULL, st->limit);
	if (st->sort_agg_set && v && v->type != TY_STATS)
		diag_error(c->s, st->loc, "aggregate sort on '%s', which is "
			   "not a statistics array", v->name);
	if (iterated)
		vec_push(c->s->arena, &c->iterated, st);
	check_tree(c, st->body, NULL);
	if (iterated)
		c->iterated.n--;
}

static bool check_stmt(struct elab_walk *w, struct stmt *st)
{
	struct checker *c = w->arg;

	switch (st->kind) {
	case ST_FOREACH:
		check_foreach(c, st);
		return false;
	case ST_DELETE:
		check_delete(c, st);
		return false;
	case ST_NEXT:
		/* 'next' in a function passes down its overload chain */
		if (c->fn)
			c->fn->has_next = true;
		return true;
	default:
		return true;
	}
}

static void check_tree(struct checker *c, struct stmt *st, struct expr *e)
{
	struct elab_walk w = { check_expr, check_stmt, c };

	elab_walk_stmt(&w, st);
	elab_walk_expr(&w, e);
}

/* Declarations */

static void check_globals(struct checker *c)
{
	int i;

	for (i = 0; i < c->s->globals.n; i++) {
		struct vardecl *g = c->s->globals.items[i];

		if (g->arity == 0 && (g->wrap || g->maxsize > 0))
			diag_error(c->s, g->loc, "'%s' is not an array; a "
				   "size or '%%' applies to arrays only",
				   g->name);
	}
}

static void check_functions(struct checker *c)
{
	int i;

	for (i = 0; i < c->funcs.n; i++) {
		struct func *f = c->funcs.items[i];

		c->fn = f;
		check_tree(c, f->body, NULL);
	}
	c->fn = NULL;
}

static void check_probes(struct checker *c)
{
	int i;

	for (i = 0; i < c->s->probes.n; i++) {
		struct derived_probe *dp = c->s->probes.items[i];

		c->dp = dp;
		check_tree(c, dp->body, dp->cond);
	}
	c->dp = NULL;
}

static void checker_init(struct checker *c, struct session *s)
{
	int i;

	memset(c, 0, sizeof(*c));
	c->s = s;
	c->max_buckets = max_buckets(s);
	c->words = s->globals.n / 64 + 1;
	for (i = 0; i < s->globals.n; i++)
		((struct vardecl *)s->globals.items[i])->priv =
			(void *)(uintptr_t)(i + 1);
	for (i = 0; i < s->functions.n; i++)
		meet_func(c, s->functions.items[i]);
}

static void checker_done(struct checker *c)
{
	int i;

	for (i = 0; i < c->s->globals.n; i++)
		((struct vardecl *)c->s->globals.items[i])->priv = NULL;
	for (i = 0; i < c->funcs.n; i++)
		((struct func *)c->funcs.items[i])->priv = NULL;
	free(c->writes);
}

int elab_check(struct session *s)
{
	struct checker c;
	int errors = s->errors;

	checker_init(&c, s);
	compute_writes(&c);
	check_globals(&c);
	check_functions(&c);
	check_probes(&c);
	checker_done(&c);
	elab_mark_usage(s);
	return s->errors > errors ? -1 : 0;
}
