/* types.c - pass 2 type inference: long, string or stats for every
 * expression, variable, array key and function result, propagated to a
 * fixed point; then one reporting walk for mismatches and unknowns.
 */
#include "elab.h"
#include "format.h"
#include "target.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a type or an arity was fixed, for the note under a mismatch. */
struct origin {
	struct loc loc;
	bool set;
	bool declared;
};

struct varinfo {
	struct origin type;
	struct origin arity;
	struct origin index[MAX_INDEXES];
};

/* Same-arity overloads form one chain that calls enter at its head;
 * they share one result type, kept on the head.
 */
struct funcinfo {
	struct origin type;
	struct func *head;		/* first of its overload chain */
	bool has_value;			/* some path returns a value; on
					 * the head: some overload does */
	bool embedded_default;		/* unannotated embedded C: long */
};

struct typer {
	struct session *s;
	struct htab map;		/* declaration -> its info: keyed by
					 * address, as the nodes' priv fields
					 * may hold another pass's scratch */
	struct vec funcs;		/* every function met */
	struct vec vars;		/* every variable met */
	int changes;			/* slots fixed in this round */
	bool report;			/* last walk: say what is wrong */
	struct func *fn;		/* being typed; NULL in a probe */
};

/* Why an expression has its type: the declaration behind it. */
struct why {
	const struct origin *o;
	char what[128];			/* "'x'", "index 1 of 'a'" ... */
};

static enum type infer(struct typer *t, struct expr *e, enum type want,
		       bool value);
static void type_stmt(struct typer *t, struct stmt *st);

/* The map */

/* The info of key, made (zeroed, size bytes) on first use; *fresh
 * says whether it was.
 */
static void *info_get(struct typer *t, const void *key, size_t size,
		      bool *fresh)
{
	void **v = htab_islot(&t->map, (uintptr_t)key, fresh);

	if (*fresh)
		*v = arena_alloc(t->s->arena, size);
	return *v;
}

static struct varinfo *var_info(struct typer *t, struct vardecl *v)
{
	bool fresh;
	struct varinfo *vi = info_get(t, v, sizeof(*vi), &fresh);

	if (fresh)
		vec_push(t->s->arena, &t->vars, v);
	return vi;
}

static void note_func(struct typer *t, struct func *f);
static void link_chain(struct typer *t, struct func *f);

static struct funcinfo *func_info(struct typer *t, struct func *f)
{
	bool fresh;
	struct funcinfo *fi = info_get(t, f, sizeof(*fi), &fresh);

	if (fresh) {
		vec_push(t->s->arena, &t->funcs, f);
		fi->head = f;
		note_func(t, f);
		link_chain(t, f);
	}
	return fi;
}

static struct func *head_of(struct typer *t, struct func *f)
{
	return func_info(t, f)->head;
}

/* The chain takes the first type any overload declares; each overload
 * shows it.
 */
static void sync_chain(struct typer *t, struct func *head)
{
	struct funcinfo *hi = func_info(t, head);
	struct func *g;

	for (g = head; g && head->type == TY_UNKNOWN; g = g->next_overload) {
		if (g->type != TY_UNKNOWN) {
			head->type = g->type;
			hi->type = func_info(t, g)->type;
		}
	}
	for (g = head->next_overload; g; g = g->next_overload)
		if (g->type == TY_UNKNOWN)
			g->type = head->type;
}

/* Meeting a chain at f makes f the head of everything after it; meeting
 * an earlier overload later moves them all under that one.
 */
static void link_chain(struct typer *t, struct func *f)
{
	struct funcinfo *fi = func_info(t, f);
	struct func *g;

	for (g = f->next_overload; g; g = g->next_overload) {
		struct funcinfo *gi = func_info(t, g);

		gi->head = fi->head;
		if (gi->has_value)
			func_info(t, fi->head)->has_value = true;
	}
	sync_chain(t, fi->head);
}

/* Slots */

static void set_origin(struct origin *o, struct loc loc, bool declared)
{
	o->loc = loc;
	o->set = true;
	o->declared = declared;
}

static void var_type(struct typer *t, struct vardecl *v, enum type ty,
		     struct loc loc)
{
	/* Statistics live in globals only; the resolver reports a local
	 * used with <<< or @count.
	 */
	if (v->type != TY_UNKNOWN || ty == TY_UNKNOWN ||
	    (ty == TY_STATS && !v->is_global))
		return;
	v->type = ty;
	set_origin(&var_info(t, v)->type, loc, false);
	t->changes++;
}

static void func_type(struct typer *t, struct func *f, enum type ty,
		      struct loc loc)
{
	struct func *head = head_of(t, f);

	if (head->type != TY_UNKNOWN || ty == TY_UNKNOWN || ty == TY_STATS)
		return;
	head->type = ty;
	set_origin(&func_info(t, head)->type, loc, false);
	sync_chain(t, head);
	t->changes++;
}

/* Explanations */

static bool why_of(struct typer *t, const struct expr *e, struct why *w)
{
	struct vardecl *v = NULL;

	switch (e->kind) {
	case EX_SYM:
		v = e->var;
		break;
	case EX_INDEX:
		if (e->a && e->a->kind == EX_SYM)
			v = e->a->var;
		break;
	case EX_CALL:
		if (!e->func)
			return false;
		w->o = &func_info(t, head_of(t, e->func))->type;
		snprintf(w->what, sizeof(w->what), "return value of '%s'",
			 e->func->name);
		return w->o->set;
	case EX_ENTRY:
	case EX_ASSIGN:
		return e->a && why_of(t, e->a, w);
	default:
		return false;
	}
	if (!v)
		return false;
	w->o = &var_info(t, v)->type;
	snprintf(w->what, sizeof(w->what), "'%s'", v->name);
	return w->o->set;
}

static bool same_loc(struct loc a, struct loc b)
{
	return a.file == b.file && a.line == b.line && a.col == b.col;
}

/* A note at the place that fixed a type, unless that is the very place
 * the error points at.
 */
static void explain(struct typer *t, const struct why *w, enum type ty,
		    struct loc at)
{
	if (!w || !w->o || !w->o->set || same_loc(w->o->loc, at))
		return;
	diag_note(t->s, w->o->loc, "%s %s %s here", w->what,
		  w->o->declared ? "is declared" : "was inferred as",
		  type_name(ty));
}

/* "type mismatch (HAVE vs. WANT)" at e: e is HAVE, its context needs
 * WANT; notes say where each type came from.
 */
static void mismatch(struct typer *t, struct expr *e, enum type have,
		     enum type want, const struct why *want_why,
		     const char *context)
{
	struct why own;

	if (!t->report)
		return;
	diag_error(t->s, e->loc, "type mismatch (%s vs. %s)%s",
		   type_name(have), type_name(want), context ? context : "");
	if (why_of(t, e, &own))
		explain(t, &own, have, e->loc);
	explain(t, want_why, want, e->loc);
}

static void stats_misuse(struct typer *t, struct expr *e)
{
	const char *name = NULL;

	if (!t->report)
		return;
	if (e->kind == EX_SYM && e->var)
		name = e->var->name;
	else if (e->kind == EX_INDEX && e->a && e->a->kind == EX_SYM &&
		 e->a->var)
		name = e->a->var->name;
	diag_error(t->s, e->loc,
		   "invalid use of statistics%s%s%s (only <<<, @count, @sum, "
		   "@min, @max, @avg, @variance and @hist_* apply)",
		   name ? " '" : "", name ? name : "", name ? "'" : "");
}

/* Type e where its context needs want (TY_UNKNOWN: any value). */
static enum type need(struct typer *t, struct expr *e, enum type want,
		      const struct why *want_why)
{
	enum type have = infer(t, e, want, true);

	if (have == TY_STATS && want != TY_STATS)
		stats_misuse(t, e);
	else if (have != TY_UNKNOWN && want != TY_UNKNOWN && have != want)
		mismatch(t, e, have, want, want_why, NULL);
	return have;
}

/* Two expressions that must share a type (=, ==, the arms of ?:).
 * The complaint goes where a declaration explains the type.
 */
static enum type unify(struct typer *t, struct expr *a, struct expr *b,
		       enum type want)
{
	enum type ta = infer(t, a, want, true);
	enum type tb = infer(t, b, ta == TY_STATS ? TY_UNKNOWN :
				   ta ? ta : want, true);
	struct why wa, wb;
	bool ha, hb;

	if (ta == TY_UNKNOWN && tb != TY_UNKNOWN && tb != TY_STATS)
		ta = infer(t, a, tb, true);
	if (ta == TY_STATS || tb == TY_STATS) {
		stats_misuse(t, ta == TY_STATS ? a : b);
		return TY_UNKNOWN;
	}
	if (ta == TY_UNKNOWN || tb == TY_UNKNOWN || ta == tb)
		return ta ? ta : tb;
	ha = why_of(t, a, &wa) && !same_loc(wa.o->loc, a->loc);
	hb = why_of(t, b, &wb);
	if (ha || !hb)
		mismatch(t, a, ta, tb, hb ? &wb : NULL, NULL);
	else
		mismatch(t, b, tb, ta, NULL, NULL);
	return ta;
}

/* Variables and arrays */

static void use_arity(struct typer *t, struct vardecl *v, int n,
		      struct expr *at)
{
	struct varinfo *vi = var_info(t, v);

	if (v->arity < 0) {
		v->arity = n;
		set_origin(&vi->arity, at->loc, false);
		t->changes++;
		return;
	}
	if (v->arity == n || !t->report)
		return;
	diag_error(t->s, at->loc, "inconsistent arity for '%s' (%d vs. %d)",
		   v->name, v->arity, n);
	diag_note(t->s, vi->arity.set ? vi->arity.loc : v->loc,
		  "'%s' was first used with %d index%s here", v->name,
		  v->arity, v->arity == 1 ? "" : "es");
}

static enum type infer_sym(struct typer *t, struct expr *e, enum type want)
{
	struct vardecl *v = e->var;

	if (!v)
		return TY_UNKNOWN;
	use_arity(t, v, 0, e);
	var_type(t, v, want, e->loc);
	return v->type;
}

/* Index i of array v takes the value of arg ('*' when NULL). */
static void index_type(struct typer *t, struct vardecl *v, int i,
		       struct expr *arg)
{
	struct varinfo *vi = var_info(t, v);
	struct why w = { .o = NULL };
	enum type it, at;

	if (!arg)
		return;
	if (i >= MAX_INDEXES) {
		infer(t, arg, TY_UNKNOWN, true);
		return;
	}
	it = v->index_types[i];
	at = infer(t, arg, it, true);
	if (at == TY_STATS) {
		stats_misuse(t, arg);
	} else if (it == TY_UNKNOWN && at != TY_UNKNOWN) {
		v->index_types[i] = at;
		set_origin(&vi->index[i], elab_expr_start(arg), false);
		t->changes++;
	} else if (it != TY_UNKNOWN && at != TY_UNKNOWN && it != at) {
		w.o = &vi->index[i];
		snprintf(w.what, sizeof(w.what), "index %d of '%s'", i + 1,
			 v->name);
		mismatch(t, arg, at, it, &w, NULL);
	}
}

static void array_use(struct typer *t, struct vardecl *v, struct vec *args,
		      struct expr *at)
{
	int i;

	if (args->n > MAX_INDEXES && t->report)
		diag_error(t->s, at->loc,
			   "too many indexes for '%s' (%d, at most %d)",
			   v->name, args->n, MAX_INDEXES);
	use_arity(t, v, args->n, at);
	for (i = 0; i < args->n; i++)
		index_type(t, v, i, args->items[i]);
}

/* Histograms are only printed, indexed or iterated; those contexts
 * type them here, anything else is an error.
 */
static void infer_hist(struct typer *t, struct expr *e)
{
	int i;

	if (e->a)
		need(t, e->a, TY_STATS, NULL);
	for (i = 0; i < e->args.n; i++)
		need(t, e->args.items[i], TY_LONG, NULL);
	e->type = TY_UNKNOWN;
}

static enum type infer_index(struct typer *t, struct expr *e,
			     enum type want)
{
	struct expr *base = e->a;
	struct vardecl *v;
	int i;

	if (base && base->kind == EX_HIST) {
		infer_hist(t, base);
		for (i = 0; i < e->args.n; i++)
			need(t, e->args.items[i], TY_LONG, NULL);
		return TY_LONG;
	}
	if (!base || base->kind != EX_SYM || !base->var) {
		for (i = 0; i < e->args.n; i++)
			infer(t, e->args.items[i], TY_UNKNOWN, true);
		return TY_UNKNOWN;
	}
	v = base->var;
	array_use(t, v, &e->args, e);
	var_type(t, v, want, e->loc);
	return base->type = v->type;
}

static enum type infer_in(struct typer *t, struct expr *e)
{
	struct expr *base = e->a;
	int i;

	if (base && base->kind == EX_SYM && base->var) {
		array_use(t, base->var, &e->args, e);
		base->type = base->var->type;
	} else {
		for (i = 0; i < e->args.n; i++)
			if (e->args.items[i])
				infer(t, e->args.items[i], TY_UNKNOWN, true);
	}
	return TY_LONG;
}

/* Functions */

struct rv_walk {
	struct typer *t;
	bool *has_value;
};

/* 'return f()' of a function f that returns no value returns none
 * either, as in SystemTap.
 */
static bool returns_value_walk(struct elab_walk *w, struct stmt *st)
{
	struct rv_walk *r = w->arg;
	const struct expr *e = st->expr;

	if (st->kind != ST_RETURN || !e)
		return true;
	if (e->kind == EX_CALL && e->func &&
	    !func_info(r->t, head_of(r->t, e->func))->has_value)
		return true;
	*r->has_value = true;
	return true;
}

static bool skip_exprs(struct elab_walk *w, struct expr *e)
{
	(void)w;
	(void)e;
	return false;
}

/* Embedded C gives a value through these macros. */
static bool embedded_returns(const char *code)
{
	return strstr(code, "STAP_RETVALUE") || strstr(code, "STAP_RETURN") ||
	       strstr(code, "__retvalue");
}

/* First sight of a function: declared types, and whether it returns a
 * value at all.
 */
static void note_func(struct typer *t, struct func *f)
{
	struct funcinfo *fi = func_info(t, f);
	struct elab_walk w = { skip_exprs, returns_value_walk, NULL };
	struct rv_walk rv = { t, &fi->has_value };
	int i;

	w.arg = &rv;
	if (f->type_declared || f->type != TY_UNKNOWN) {
		fi->has_value = true;
		set_origin(&fi->type, f->loc, true);
	} else if (f->code && f->returns_string_marker) {
		fi->has_value = true;
		f->type = TY_STRING;
		set_origin(&fi->type, f->loc, true);
	} else if (f->code) {
		fi->has_value = embedded_returns(f->code);
		fi->embedded_default = fi->has_value;
	} else {
		elab_walk_stmt(&w, f->body);
	}
	for (i = 0; i < f->params.n; i++) {
		struct vardecl *p = f->params.items[i];

		if (p->type != TY_UNKNOWN)
			set_origin(&var_info(t, p)->type, p->loc, true);
		else
			var_info(t, p);
	}
	for (i = 0; i < f->locals.n; i++)
		var_info(t, f->locals.items[i]);
}

/* Argument i of a call meets parameter i of every same-arity overload. */
static void call_arg(struct typer *t, struct func *f, int i,
		     struct expr *arg)
{
	struct vardecl *p = i < f->params.n ? f->params.items[i] : NULL;
	enum type at = infer(t, arg, p ? p->type : TY_UNKNOWN, true);
	struct why w;

	if (at == TY_STATS) {
		stats_misuse(t, arg);
		return;
	}
	for (; f; f = f->next_overload) {
		if (i >= f->params.n)
			continue;
		p = f->params.items[i];
		if (p->type == TY_UNKNOWN) {
			var_type(t, p, at, elab_expr_start(arg));
		} else if (at != TY_UNKNOWN && at != p->type) {
			w.o = &var_info(t, p)->type;
			snprintf(w.what, sizeof(w.what),
				 "parameter '%s' of '%s'", p->name, f->name);
			mismatch(t, arg, at, p->type, &w, NULL);
		}
	}
}

static enum type infer_call(struct typer *t, struct expr *e, enum type want,
			    bool value)
{
	struct func *f = e->func ? head_of(t, e->func) : NULL;
	int i;

	for (i = 0; i < e->args.n; i++) {
		if (f)
			call_arg(t, f, i, e->args.items[i]);
		else
			infer(t, e->args.items[i], TY_UNKNOWN, true);
	}
	if (!f)
		return TY_UNKNOWN;
	/* A function that returns no value used as a long or a string
	 * (cond && exit()) takes that type and returns 0 or "", as in
	 * SystemTap.
	 */
	if (func_info(t, f)->has_value || f->type != TY_UNKNOWN ||
	    (value && (want == TY_LONG || want == TY_STRING)))
		func_type(t, f, want, e->loc);
	else if (value && t->report)
		diag_error(t->s, e->loc, "function '%s' returns no value",
			   f->name);
	return f->type;
}

/* Formats */

#define FMT_MAX_SLOTS 64

static void check_format(struct typer *t, struct expr *e)
{
	struct fmt_slot slots[FMT_MAX_SLOTS];
	const char *bad = NULL;
	char ctx[64];
	int n = fmt_slots(e->fmt, slots, FMT_MAX_SLOTS, &bad);
	int i;

	/* The parser has refused malformed formats. */
	if (n >= 0 && n != e->args.n && t->report)
		diag_error(t->s, e->loc,
			   "format \"%s\" expects %d argument%s, got %d",
			   e->fmt, n, n == 1 ? "" : "s", e->args.n);
	for (i = 0; i < e->args.n; i++) {
		struct expr *arg = e->args.items[i];
		enum type want = i < n && i < FMT_MAX_SLOTS ?
				 slots[i].type : TY_UNKNOWN;
		enum type have = infer(t, arg, want, true);

		if (have == TY_STATS) {
			stats_misuse(t, arg);
		} else if (want && have && have != want) {
			snprintf(ctx, sizeof(ctx), " for '%.*s'",
				 slots[i].len, slots[i].spec);
			mismatch(t, arg, have, want, NULL, ctx);
		}
	}
}

/* print, println, printd, printdln, printf and their sprint forms;
 * fmt holds the format of the printf forms and the delimiter of the
 * printd forms.
 */
static enum type infer_print(struct typer *t, struct expr *e, bool value)
{
	bool sform = e->name[0] == 's';
	int i;

	if (strstr(e->name, "printf")) {
		check_format(t, e);
	} else {
		for (i = 0; i < e->args.n; i++) {
			struct expr *arg = e->args.items[i];

			if (arg->kind == EX_HIST && !e->fmt)
				infer_hist(t, arg);
			else
				need(t, arg, TY_UNKNOWN, NULL);
		}
	}
	if (!sform && value && t->report)
		diag_error(t->s, e->loc, "'%s' returns no value", e->name);
	return sform ? TY_STRING : TY_UNKNOWN;
}

/* A print that gives no value (print, printf...; not sprintf). */
static bool void_print(const struct expr *e)
{
	return e && e->kind == EX_PRINT && e->name[0] != 's';
}

/* Operators */

static enum type infer_assign(struct typer *t, struct expr *e,
			      enum type want)
{
	const char *op = e->op;

	if (op == intern("<<<")) {
		need(t, e->a, TY_STATS, NULL);
		need(t, e->b, TY_LONG, NULL);
		return TY_LONG;
	}
	if (op == intern("="))
		return unify(t, e->a, e->b, want);
	if (op == intern(".=")) {
		need(t, e->a, TY_STRING, NULL);
		need(t, e->b, TY_STRING, NULL);
		return TY_STRING;
	}
	need(t, e->a, TY_LONG, NULL);
	need(t, e->b, TY_LONG, NULL);
	return TY_LONG;
}

static enum type infer_target(struct typer *t, struct expr *e)
{
	int i;

	if (e->a)
		need(t, e->a, TY_LONG, NULL);
	for (i = 0; i < e->comps.n; i++) {
		struct tcomp *c = e->comps.items[i];

		if (c->kind == TC_INDEX && c->index)
			need(t, c->index, TY_LONG, NULL);
	}
	/* Pretty-printed values and $$vars-style lists are text; target
	 * values are numbers until providers know their real types.
	 */
	if (e->pretty || (e->name && e->name[0] == '$' && e->name[1] == '$'))
		return TY_STRING;
	if (e->tref && e->tref->base == TRB_PROCFS)
		return TY_STRING;
	return TY_LONG;
}

/* @count(s) ... @variance(s[, shift]): the shift is in b. */
static enum type infer_stat(struct typer *t, struct expr *e)
{
	need(t, e->a, TY_STATS, NULL);
	if (e->b)
		need(t, e->b, TY_LONG, NULL);
	return TY_LONG;
}

static enum type infer_kind(struct typer *t, struct expr *e,
			    enum type want, bool value)
{
	switch (e->kind) {
	case EX_NUM:
		return TY_LONG;
	case EX_STR:
		return TY_STRING;
	case EX_SYM:
		return infer_sym(t, e, want);
	case EX_TARGET:
		return infer_target(t, e);
	case EX_INDEX:
		return infer_index(t, e, want);
	case EX_CALL:
		return infer_call(t, e, want, value);
	case EX_PRINT:
		return infer_print(t, e, value);
	case EX_UNARY:
	case EX_INCDEC:
		need(t, e->a, TY_LONG, NULL);
		return TY_LONG;
	case EX_BINARY:
	case EX_LOGICAL:
		need(t, e->a, TY_LONG, NULL);
		need(t, e->b, TY_LONG, NULL);
		return TY_LONG;
	case EX_COMPARE:
		unify(t, e->a, e->b, TY_UNKNOWN);
		return TY_LONG;
	case EX_REGEX:
		need(t, e->a, TY_STRING, NULL);
		need(t, e->b, TY_STRING, NULL);
		return TY_LONG;
	case EX_CONCAT:
		need(t, e->a, TY_STRING, NULL);
		need(t, e->b, TY_STRING, NULL);
		return TY_STRING;
	case EX_TERNARY:
		need(t, e->a, TY_LONG, NULL);
		/* c ? printf(..) : printf(..) as a statement: no value */
		if (!value && (void_print(e->b) || void_print(e->c))) {
			infer(t, e->b, TY_UNKNOWN, false);
			infer(t, e->c, TY_UNKNOWN, false);
			return TY_UNKNOWN;
		}
		return unify(t, e->b, e->c, want);
	case EX_ASSIGN:
		return infer_assign(t, e, want);
	case EX_IN:
		return infer_in(t, e);
	case EX_STAT:
		return infer_stat(t, e);
	case EX_HIST:
		infer_hist(t, e);
		if (t->report)
			diag_error(t->s, e->loc,
				   "a histogram can only be printed, indexed "
				   "or iterated with foreach");
		return TY_UNKNOWN;
	case EX_ENTRY:
		return infer(t, e->a, want, value);
	case EX_DEFINED:	/* the operand is never evaluated */
	case EX_PERF:
	case EX_CONST:
		return TY_LONG;
	case EX_EMBEDDED:
		return e->embedded_string ? TY_STRING : TY_LONG;
	}
	return TY_UNKNOWN;
}

static enum type infer(struct typer *t, struct expr *e, enum type want,
		       bool value)
{
	if (!e)
		return TY_UNKNOWN;
	return e->type = infer_kind(t, e, want, value);
}

/* Statements */

/* foreach (x = [k] in a): x and the values of a share a type. */
static void bind_value(struct typer *t, struct expr *x, struct vardecl *v)
{
	enum type ty = infer(t, x, v->type, true);
	struct why w;

	if (v->type == TY_UNKNOWN) {
		var_type(t, v, ty, x->loc);
	} else if (ty != TY_UNKNOWN && ty != v->type) {
		w.o = &var_info(t, v)->type;
		snprintf(w.what, sizeof(w.what), "'%s'", v->name);
		mismatch(t, x, ty, v->type, &w, NULL);
	}
}

static void type_foreach_keys(struct typer *t, struct stmt *st,
			      struct vardecl *v)
{
	int i;

	use_arity(t, v, st->keys.n, st->base);
	for (i = 0; i < st->keys.n; i++)
		index_type(t, v, i, st->keys.items[i]);
	if (st->slice.n) {
		use_arity(t, v, st->slice.n, st->base);
		for (i = 0; i < st->slice.n; i++)
			index_type(t, v, i, st->slice.items[i]);
	}
	st->base->type = v->type;
	if (!st->value)
		return;
	if (v->type != TY_STATS) {
		bind_value(t, st->value, v);
		return;
	}
	/* The local stays a plain long so that one error is enough. */
	if (st->value->var)
		var_type(t, st->value->var, TY_LONG, st->value->loc);
	if (t->report)
		diag_error(t->s, st->value->loc, "foreach cannot bind a value "
			   "from statistics array '%s'", v->name);
}

static void type_foreach(struct typer *t, struct stmt *st)
{
	struct expr *base = st->base;
	int i;

	if (base && base->kind == EX_HIST) {
		infer_hist(t, base);
		for (i = 0; i < st->keys.n; i++)
			need(t, st->keys.items[i], TY_LONG, NULL);
		if (st->value)
			need(t, st->value, TY_LONG, NULL);
	} else if (base && base->kind == EX_SYM && base->var) {
		type_foreach_keys(t, st, base->var);
	}
	if (st->limit)
		need(t, st->limit, TY_LONG, NULL);
	type_stmt(t, st->body);
}

static void type_return(struct typer *t, struct stmt *st)
{
	struct func *f = t->fn, *head;
	struct why w;
	enum type ty;

	if (!f) {
		/* the parser has already refused it */
		infer(t, st->expr, TY_UNKNOWN, true);
		return;
	}
	if (!st->expr) {
		if (func_info(t, f)->has_value && t->report)
			diag_error(t->s, st->loc,
				   "'return' without a value in function "
				   "'%s', which returns a value", f->name);
		return;
	}
	head = head_of(t, f);
	if (head->type != TY_UNKNOWN) {
		w.o = &func_info(t, head)->type;
		snprintf(w.what, sizeof(w.what), "return value of '%s'",
			 f->name);
		need(t, st->expr, head->type, &w);
		return;
	}
	if (!func_info(t, head)->has_value) {
		/* return g() of a g that returns nothing */
		infer(t, st->expr, TY_UNKNOWN, false);
		return;
	}
	ty = need(t, st->expr, TY_UNKNOWN, NULL);
	func_type(t, f, ty, elab_expr_start(st->expr));
}

static void type_delete(struct typer *t, struct stmt *st)
{
	struct expr *e = st->expr;

	if (!e)
		return;
	if (e->kind == EX_INDEX && e->a && e->a->kind == EX_SYM &&
	    e->a->var) {
		array_use(t, e->a->var, &e->args, e);
		e->type = e->a->type = e->a->var->type;
	} else if (e->kind == EX_SYM && e->var) {
		e->type = e->var->type;	/* a whole array, or a scalar */
	} else {
		infer(t, e, TY_UNKNOWN, false);
	}
}

static void type_stmt(struct typer *t, struct stmt *st)
{
	int i;

	if (!st)
		return;
	switch (st->kind) {
	case ST_BLOCK:
		for (i = 0; i < st->stmts.n; i++)
			type_stmt(t, st->stmts.items[i]);
		break;
	case ST_EXPR:
		infer(t, st->expr, TY_UNKNOWN, false);
		break;
	case ST_IF:
	case ST_WHILE:
		need(t, st->expr, TY_LONG, NULL);
		type_stmt(t, st->body);
		type_stmt(t, st->els);
		break;
	case ST_FOR:
		infer(t, st->init, TY_UNKNOWN, false);
		if (st->expr)
			need(t, st->expr, TY_LONG, NULL);
		infer(t, st->incr, TY_UNKNOWN, false);
		type_stmt(t, st->body);
		break;
	case ST_FOREACH:
		type_foreach(t, st);
		break;
	case ST_RETURN:
		type_return(t, st);
		break;
	case ST_DELETE:
		type_delete(t, st);
		break;
	case ST_TRY:
		type_stmt(t, st->body);
		if (st->catch_var)
			need(t, st->catch_var, TY_STRING, NULL);
		type_stmt(t, st->els);
		break;
	default:
		break;
	}
}

/* Rounds */

/* -G name=value types a global as its initialiser would. */
static enum type setting_type(const char *value)
{
	char *end;

	errno = 0;
	strtoll(value, &end, 0);
	return *value && !*end && !errno ? TY_LONG : TY_STRING;
}

static void type_globals(struct typer *t)
{
	int i;

	for (i = 0; i < t->s->globals.n; i++) {
		struct vardecl *g = t->s->globals.items[i];
		const char *set = elab_global_setting(t->s, g);
		enum type ty;

		var_info(t, g);
		if (g->init) {
			ty = need(t, g->init, g->type, NULL);
			var_type(t, g, ty, g->loc);
		} else if (set && g->type == TY_UNKNOWN) {
			var_type(t, g, setting_type(set), g->loc);
		}
	}
}

/* One walk over everything; returns how many slots it fixed. */
static int type_round(struct typer *t)
{
	struct session *s = t->s;
	int i;

	t->changes = 0;
	type_globals(t);
	for (i = 0; i < s->probes.n; i++) {
		struct derived_probe *dp = s->probes.items[i];

		t->fn = NULL;
		if (dp->cond)
			need(t, dp->cond, TY_LONG, NULL);
		type_stmt(t, dp->body);
	}
	/* t->funcs grows as calls meet new functions. */
	for (i = 0; i < t->funcs.n; i++) {
		t->fn = t->funcs.items[i];
		type_stmt(t, t->fn->body);
	}
	t->fn = NULL;
	return t->changes;
}

/* A library global that only a delete or a read touches (a script
 * calls delete_stopwatch() but never starts one) has nothing to infer
 * from; the user cannot annotate it, so it holds longs.
 */
static int library_global_default(struct typer *t, struct vardecl *v)
{
	int i, n = 0;

	if (!v->is_global || !v->loc.file || !v->loc.file->is_tapset)
		return 0;
	if (v->type == TY_UNKNOWN) {
		var_type(t, v, TY_LONG, v->loc);
		n++;
	}
	for (i = 0; i < v->arity && i < MAX_INDEXES; i++) {
		if (v->index_types[i] == TY_UNKNOWN) {
			v->index_types[i] = TY_LONG;
			n++;
		}
	}
	return n;
}

/* Unannotated embedded C takes and returns long unless something
 * said otherwise; applied once inference has nothing more to say.
 */
static int apply_defaults(struct typer *t)
{
	int i, j, n = 0;

	for (i = 0; i < t->vars.n; i++)
		n += library_global_default(t, t->vars.items[i]);
	for (i = 0; i < t->funcs.n; i++) {
		struct func *f = t->funcs.items[i];
		struct funcinfo *fi = func_info(t, f);

		if (!f->code)
			continue;
		if (fi->embedded_default && f->type == TY_UNKNOWN) {
			func_type(t, f, TY_LONG, f->loc);
			n++;
		}
		for (j = 0; j < f->params.n; j++) {
			struct vardecl *p = f->params.items[j];

			if (p->type == TY_UNKNOWN) {
				var_type(t, p, TY_LONG, p->loc);
				n++;
			}
		}
	}
	return n;
}

static void report_var(struct typer *t, struct vardecl *v)
{
	int i;

	if (v->type == TY_UNKNOWN)
		diag_error(t->s, v->loc, "unresolved type for identifier '%s'",
			   v->name);
	for (i = 0; i < v->arity && i < MAX_INDEXES; i++)
		if (v->index_types[i] == TY_UNKNOWN)
			diag_error(t->s, v->loc,
				   "unresolved type for index %d of '%s'",
				   i + 1, v->name);
}

static void report_unresolved(struct typer *t)
{
	int i;

	for (i = 0; i < t->vars.n; i++)
		report_var(t, t->vars.items[i]);
	for (i = 0; i < t->funcs.n; i++) {
		struct func *f = t->funcs.items[i];

		if (f->type == TY_UNKNOWN && func_info(t, f)->has_value)
			diag_error(t->s, f->loc,
				   "unresolved return type for function '%s'",
				   f->name);
	}
}

static void meet_declarations(struct typer *t)
{
	struct session *s = t->s;
	int i, j;

	for (i = 0; i < s->functions.n; i++)
		func_info(t, s->functions.items[i]);
	for (i = 0; i < s->probes.n; i++) {
		struct derived_probe *dp = s->probes.items[i];

		for (j = 0; j < dp->locals.n; j++)
			var_info(t, dp->locals.items[j]);
	}
}

int elab_types(struct session *s)
{
	struct typer t = { .s = s };
	int errors = s->errors;
	int rounds = 0;

	meet_declarations(&t);
	do {
		while (type_round(&t) && ++rounds < 1000)
			;
	} while (apply_defaults(&t));
	t.report = true;
	type_round(&t);
	report_unresolved(&t);
	htab_free(&t.map);
	return s->errors > errors ? -1 : 0;
}
