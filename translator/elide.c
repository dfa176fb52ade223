/* elide.c - pass 2 elision: unused functions, globals and locals and
 * dead assignments go before type checking, as the established tool
 * does; also the tree walker and the usage marks the other steps share.
 */
#include "elab.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Walking */

static void walk_exprs(struct elab_walk *w, struct vec *v)
{
	int i;

	for (i = 0; i < v->n; i++)
		elab_walk_expr(w, v->items[i]);
}

void elab_walk_expr(struct elab_walk *w, struct expr *e)
{
	int i;

	if (!e || (w->expr && !w->expr(w, e)))
		return;
	elab_walk_expr(w, e->a);
	elab_walk_expr(w, e->b);
	elab_walk_expr(w, e->c);
	walk_exprs(w, &e->args);
	for (i = 0; i < e->comps.n; i++) {
		struct tcomp *c = e->comps.items[i];

		if (c->kind == TC_INDEX)
			elab_walk_expr(w, c->index);
	}
}

void elab_walk_stmt(struct elab_walk *w, struct stmt *st)
{
	int i;

	if (!st || (w->stmt && !w->stmt(w, st)))
		return;
	for (i = 0; i < st->stmts.n; i++)
		elab_walk_stmt(w, st->stmts.items[i]);
	elab_walk_expr(w, st->init);
	elab_walk_expr(w, st->expr);
	elab_walk_expr(w, st->incr);
	elab_walk_expr(w, st->base);
	walk_exprs(w, &st->slice);
	elab_walk_expr(w, st->limit);
	walk_exprs(w, &st->keys);
	elab_walk_expr(w, st->value);
	elab_walk_expr(w, st->catch_var);
	elab_walk_stmt(w, st->body);
	elab_walk_stmt(w, st->els);
}

struct loc elab_expr_start(const struct expr *e)
{
	switch (e->kind) {
	case EX_BINARY:
	case EX_LOGICAL:
	case EX_COMPARE:
	case EX_REGEX:
	case EX_CONCAT:
	case EX_TERNARY:
	case EX_ASSIGN:
		return e->a ? elab_expr_start(e->a) : e->loc;
	case EX_INCDEC:
		return e->postfix && e->a ? elab_expr_start(e->a) : e->loc;
	default:
		return e->loc;
	}
}

/* Embedded C names the globals it touches with pragma comments:
 * call fn for each global that "pragma:KIND:NAME" names in code.
 */
void elab_pragma_globals(struct session *s, const char *code,
			 const char *kind,
			 void (*fn)(struct vardecl *v, void *arg), void *arg)
{
	char key[32];
	const char *p, *end;
	size_t klen;
	int i;

	if (!code)
		return;
	klen = (size_t)snprintf(key, sizeof(key), "pragma:%s:", kind);
	for (p = strstr(code, key); p; p = strstr(end, key)) {
		p += klen;
		for (end = p; *end == '_' || (*end >= '0' && *end <= '9') ||
			      ((*end | 0x20) >= 'a' && (*end | 0x20) <= 'z');
		     end++)
			;
		for (i = 0; i < s->globals.n; i++) {
			struct vardecl *g = s->globals.items[i];

			if (strlen(g->name) == (size_t)(end - p) &&
			    !strncmp(g->name, p, (size_t)(end - p)))
				fn(g, arg);
		}
	}
}

/* Usage: which variables are read and written, which functions are
 * reached.  An update standing alone as a statement (x++, x += 1) only
 * writes; its value is read when something uses it.
 */

struct usage {
	struct elab_walk w;
	struct session *s;
	struct vec work;		/* functions reached, to walk */
};

static void mark_read(struct vardecl *v)
{
	if (v)
		v->read = v->used = true;
}

static void mark_written(struct vardecl *v)
{
	if (v)
		v->written = v->used = true;
}

static void pragma_read(struct vardecl *v, void *arg)
{
	(void)arg;
	mark_read(v);
}

static void pragma_written(struct vardecl *v, void *arg)
{
	(void)arg;
	mark_written(v);
}

/* Reaching a function reaches every same-arity overload after it:
 * 'next' can pass control down the chain at run time.
 */
static void reset_vars(struct vec *v)
{
	int i;

	for (i = 0; i < v->n; i++) {
		struct vardecl *d = v->items[i];

		d->used = d->read = d->written = false;
	}
}

static bool vec_has(const struct vec *v, const void *p)
{
	int i;

	for (i = 0; i < v->n; i++)
		if (v->items[i] == p)
			return true;
	return false;
}

static void reach_func(struct usage *u, struct func *f)
{
	for (; f; f = f->next_overload)
		if (!vec_has(&u->work, f)) {
			vec_push(u->s->arena, &u->work, f);
			reset_vars(&f->params);
			reset_vars(&f->locals);
		}
}

/* The variable an lvalue stores into: x, or a for a[...]. */
static struct vardecl *lvalue_var(struct expr *lv)
{
	if (lv->kind == EX_SYM)
		return lv->var;
	if (lv->kind == EX_INDEX && lv->a && lv->a->kind == EX_SYM)
		return lv->a->var;
	return NULL;
}

static void use_lvalue(struct usage *u, struct expr *lv, bool value_read)
{
	struct vardecl *v = lvalue_var(lv);

	mark_written(v);
	if (value_read)
		mark_read(v);
	if (lv->kind == EX_SYM)
		return;
	if (v)
		walk_exprs(&u->w, &lv->args);
	else
		elab_walk_expr(&u->w, lv);
}

static bool is_update(const struct expr *e)
{
	return e && (e->kind == EX_ASSIGN || e->kind == EX_INCDEC);
}

static void use_update(struct usage *u, struct expr *e, bool value_used)
{
	bool reads_old = e->kind == EX_INCDEC ||
			 (e->op != intern("=") && e->op != intern("<<<"));

	use_lvalue(u, e->a, value_used && reads_old);
	if (e->kind == EX_ASSIGN)
		elab_walk_expr(&u->w, e->b);
}

static bool usage_expr(struct elab_walk *w, struct expr *e)
{
	struct usage *u = (struct usage *)w;

	switch (e->kind) {
	case EX_SYM:
		mark_read(e->var);
		return false;
	case EX_ASSIGN:
	case EX_INCDEC:
		use_update(u, e, true);
		return false;
	case EX_DEFINED:
		return false;	/* never evaluated */
	case EX_CALL:
		reach_func(u, e->func);
		return true;
	default:
		return true;
	}
}

static void usage_stmt_expr(struct usage *u, struct expr *e)
{
	if (is_update(e))
		use_update(u, e, false);
	else
		elab_walk_expr(&u->w, e);
}

static bool usage_stmt(struct elab_walk *w, struct stmt *st)
{
	struct usage *u = (struct usage *)w;
	int i;

	switch (st->kind) {
	case ST_EXPR:
		usage_stmt_expr(u, st->expr);
		return false;
	case ST_FOR:
		usage_stmt_expr(u, st->init);
		usage_stmt_expr(u, st->incr);
		elab_walk_expr(w, st->expr);
		elab_walk_stmt(w, st->body);
		return false;
	case ST_FOREACH:
		for (i = 0; i < st->keys.n; i++)
			mark_written(((struct expr *)st->keys.items[i])->var);
		if (st->value)
			mark_written(st->value->var);
		elab_walk_expr(w, st->base);
		walk_exprs(w, &st->slice);
		elab_walk_expr(w, st->limit);
		elab_walk_stmt(w, st->body);
		return false;
	case ST_DELETE:
		use_lvalue(u, st->expr, false);
		return false;
	case ST_TRY:
		if (st->catch_var)
			mark_written(st->catch_var->var);
		elab_walk_stmt(w, st->body);
		elab_walk_stmt(w, st->els);
		return false;
	default:
		return true;
	}
}

static void usage_pragmas(struct session *s, const char *code)
{
	elab_pragma_globals(s, code, "read", pragma_read, NULL);
	elab_pragma_globals(s, code, "write", pragma_written, NULL);
}

static void usage_func(struct usage *u, struct func *f)
{
	if (f->body)
		elab_walk_stmt(&u->w, f->body);
	usage_pragmas(u->s, f->code);
}

static void reset_usage(struct session *s)
{
	int i;

	reset_vars(&s->globals);
	for (i = 0; i < s->functions.n; i++) {
		struct func *f = s->functions.items[i];

		f->used = false;
		reset_vars(&f->params);
		reset_vars(&f->locals);
	}
	for (i = 0; i < s->probes.n; i++) {
		struct derived_probe *dp = s->probes.items[i];

		reset_vars(&dp->locals);
	}
}

/* Marks from the probes and whatever they reach; with all_funcs, the
 * functions nothing reaches (kept by -u) are walked too.
 */
static void analyse(struct session *s, bool all_funcs)
{
	struct usage u = { .w = { usage_expr, usage_stmt, NULL }, .s = s };
	int i;

	reset_usage(s);
	for (i = 0; i < s->probes.n; i++) {
		struct derived_probe *dp = s->probes.items[i];

		elab_walk_stmt(&u.w, dp->body);
		elab_walk_expr(&u.w, dp->cond);
	}
	for (i = 0; i < u.work.n; i++)
		usage_func(&u, u.work.items[i]);
	/* The resolver lists what it reached; a chained overload it missed
	 * still runs, so it is kept like the others.
	 */
	for (i = 0; i < u.work.n; i++) {
		struct func *f = u.work.items[i];

		f->used = true;
		if (!vec_has(&s->functions, f))
			vec_push(s->arena, &s->functions, f);
	}
	for (i = 0; all_funcs && i < s->functions.n; i++) {
		struct func *f = s->functions.items[i];

		if (!f->used)
			usage_func(&u, f);
	}
	for (i = 0; i < s->embeds.n; i++)
		usage_pragmas(s, ((struct embedded *)s->embeds.items[i])->code);
}

void elab_mark_usage(struct session *s)
{
	analyse(s, true);
}

/* Purity: an expression whose evaluation changes nothing outside
 * itself.  Reading target variables and dividing count as pure (a
 * fault or a zero divisor is not an effect the tool keeps alive);
 * calls are pure only into functions known to be.
 */

enum purity {
	PURITY_UNKNOWN,
	PURITY_BUSY,
	PURITY_PURE,
	PURITY_IMPURE,
};

struct pure_walk {
	struct elab_walk w;
	struct vec *memo;		/* functions whose priv we set */
	struct arena *arena;
	bool local_writes;		/* a function may set its locals */
	bool pure;
};

static bool func_pure(struct pure_walk *parent, struct func *f);

static bool local_lvalue(const struct expr *lv)
{
	return lv->kind == EX_SYM && lv->var && !lv->var->is_global;
}

static bool pure_expr_cb(struct elab_walk *w, struct expr *e)
{
	struct pure_walk *pw = (struct pure_walk *)w;

	switch (e->kind) {
	case EX_EMBEDDED:
		pw->pure = false;
		break;
	case EX_ASSIGN:
	case EX_INCDEC:
		if (!pw->local_writes || !local_lvalue(e->a))
			pw->pure = false;
		break;
	case EX_CALL:
		if (!func_pure(pw, e->func))
			pw->pure = false;
		break;
	case EX_PRINT:
		if (e->name[0] != 's')	/* only the sprint forms */
			pw->pure = false;
		break;
	case EX_DEFINED:
		return false;
	default:
		break;
	}
	return pw->pure;
}

static bool pure_stmt_cb(struct elab_walk *w, struct stmt *st)
{
	struct pure_walk *pw = (struct pure_walk *)w;
	int i;

	switch (st->kind) {
	case ST_DELETE:
		if (!local_lvalue(st->expr))
			pw->pure = false;
		break;
	case ST_FOREACH:
		for (i = 0; i < st->keys.n; i++)
			if (!local_lvalue(st->keys.items[i]))
				pw->pure = false;
		if (st->value && !local_lvalue(st->value))
			pw->pure = false;
		break;
	case ST_TRY:
		if (st->catch_var && !local_lvalue(st->catch_var))
			pw->pure = false;
		break;
	default:
		break;
	}
	return pw->pure;
}

static void pure_walk_init(struct pure_walk *pw, struct vec *memo,
			   struct arena *a, bool local_writes)
{
	memset(pw, 0, sizeof(*pw));
	pw->w.expr = pure_expr_cb;
	pw->w.stmt = pure_stmt_cb;
	pw->memo = memo;
	pw->arena = a;
	pw->local_writes = local_writes;
	pw->pure = true;
}

static bool embedded_pure(const struct func *f)
{
	return f->pure || strstr(f->code, "/* pure */");
}

/* A script function is pure when its body only changes its own locals
 * and calls pure functions; recursion counts as impure.  The verdict is
 * kept in priv while elision runs.
 */
static bool one_func_pure(struct pure_walk *parent, struct func *f)
{
	struct pure_walk pw;
	enum purity p = (enum purity)(uintptr_t)f->priv;

	if (p == PURITY_PURE || p == PURITY_IMPURE || p == PURITY_BUSY)
		return p == PURITY_PURE;
	vec_push(parent->arena, parent->memo, f);
	if (f->code) {
		p = embedded_pure(f) ? PURITY_PURE : PURITY_IMPURE;
	} else {
		f->priv = (void *)(uintptr_t)PURITY_BUSY;
		pure_walk_init(&pw, parent->memo, parent->arena, true);
		elab_walk_stmt(&pw.w, f->body);
		p = pw.pure ? PURITY_PURE : PURITY_IMPURE;
	}
	f->priv = (void *)(uintptr_t)p;
	return p == PURITY_PURE;
}

static bool func_pure(struct pure_walk *parent, struct func *f)
{
	if (!f)
		return false;
	for (; f; f = f->next_overload)
		if (!one_func_pure(parent, f))
			return false;
	return true;
}

/* Rewriting */

struct elider {
	struct session *s;
	struct vec memo;		/* functions with a purity verdict */
};

static bool expr_pure(struct elider *el, struct expr *e)
{
	struct pure_walk pw;

	pure_walk_init(&pw, &el->memo, el->s->arena, false);
	elab_walk_expr(&pw.w, e);
	return pw.pure;
}

static void make_null(struct stmt *st)
{
	st->kind = ST_NULL;
	st->expr = NULL;
}

/* A local that nothing reads, updated by an operator that cannot fail
 * at run time (x /= 0 must still raise its error).
 */
static struct vardecl *dead_target(const struct expr *e)
{
	const char *op = e->op;

	if (e->kind == EX_ASSIGN && (op == intern("/=") ||
				     op == intern("%=") ||
				     op == intern("<<<")))
		return NULL;
	if (!local_lvalue(e->a) || e->a->var->read)
		return NULL;
	return e->a->var;
}

/* Drop or shrink one expression statement; true if it changed. */
static bool elide_expr_stmt(struct elider *el, struct stmt *st)
{
	struct expr *e = st->expr;
	struct vardecl *v;

	if (is_update(e) && (v = dead_target(e))) {
		diag_warn(el->s, e->loc, "eliding assignment to '%s'",
			  v->name);
		if (e->kind == EX_ASSIGN && !expr_pure(el, e->b))
			st->expr = e->b;
		else
			make_null(st);
		return true;
	}
	if (expr_pure(el, e)) {
		diag_warn(el->s, elab_expr_start(e),
			  "eliding side-effect-free expression");
		make_null(st);
		return true;
	}
	return false;
}

static bool elide_stmt(struct elider *el, struct stmt *st)
{
	bool changed = false;
	int i, j;

	if (!st)
		return false;
	switch (st->kind) {
	case ST_BLOCK:
		for (i = j = 0; i < st->stmts.n; i++) {
			struct stmt *c = st->stmts.items[i];

			if (elide_stmt(el, c))
				changed = true;
			if (c->kind != ST_NULL)
				st->stmts.items[j++] = c;
		}
		st->stmts.n = j;
		return changed;
	case ST_EXPR:
		return elide_expr_stmt(el, st);
	case ST_IF:
	case ST_WHILE:
	case ST_FOR:
	case ST_FOREACH:
	case ST_TRY:
		changed = elide_stmt(el, st->body);
		if (elide_stmt(el, st->els))
			changed = true;
		return changed;
	default:
		return false;
	}
}

static bool elide_round(struct elider *el)
{
	struct session *s = el->s;
	bool changed = false;
	int i;

	for (i = 0; i < s->probes.n; i++) {
		struct derived_probe *dp = s->probes.items[i];

		if (elide_stmt(el, dp->body))
			changed = true;
	}
	for (i = 0; i < s->functions.n; i++) {
		struct func *f = s->functions.items[i];

		if (f->used && elide_stmt(el, f->body))
			changed = true;
	}
	return changed;
}

/* Removal of what nothing uses */

static void drop_functions(struct session *s)
{
	int i, j;

	for (i = j = 0; i < s->functions.n; i++) {
		struct func *f = s->functions.items[i];

		if (f->used)
			s->functions.items[j++] = f;
		else
			diag_warn(s, f->loc, "eliding unused function '%s'",
				  f->name);
	}
	s->functions.n = j;
}

const char *elab_global_setting(struct session *s, const struct vardecl *g)
{
	size_t n = strlen(g->name);
	const char *value = NULL;
	int i;

	for (i = 0; i < s->opt.global_sets.n; i++) {
		const char *arg = s->opt.global_sets.items[i];

		if (!strncmp(arg, g->name, n) && arg[n] == '=')
			value = arg + n + 1;
	}
	return value;
}

static void drop_globals(struct session *s)
{
	int i, j;

	for (i = j = 0; i < s->globals.n; i++) {
		struct vardecl *g = s->globals.items[i];

		/* -G name=value sets it from the command line */
		if (g->used || elab_global_setting(s, g))
			s->globals.items[j++] = g;
		else
			diag_warn(s, g->loc, "eliding unused variable '%s'",
				  g->name);
	}
	s->globals.n = j;
}

/* Whether another probe derived from the probe dp's user wrote (one
 * branch of a wildcard or of an alias list) assigns a local named name:
 * the probe's body then means the alias's variable, which only some
 * branches have (syscall.open* { ... filename ... }).
 */
static bool assigned_in_sibling(struct session *s,
				const struct derived_probe *dp,
				const char *name)
{
	int i, k;

	for (i = 0; i < s->probes.n; i++) {
		const struct derived_probe *o = s->probes.items[i];

		if (o == dp || o->orig != dp->orig)
			continue;
		for (k = 0; k < o->locals.n; k++) {
			const struct vardecl *v = o->locals.items[k];

			if (v->written && !strcmp(v->name, name))
				return true;
		}
	}
	return false;
}

/* Locals nothing mentions any more go silently (their assignments were
 * already reported); a local read but never assigned is only 0 or "",
 * said unless a sibling of probe dp (NULL: a function's) assigns it.
 */
static void drop_locals(struct session *s, struct vec *locals,
			const struct derived_probe *dp)
{
	int i, j;

	for (i = j = 0; i < locals->n; i++) {
		struct vardecl *v = locals->items[i];

		if (v->read && !v->written &&
		    !(dp && assigned_in_sibling(s, dp, v->name)))
			diag_warn(s, v->loc,
				  "never-assigned local variable '%s'",
				  v->name);
		if (v->used)
			locals->items[j++] = v;
	}
	locals->n = j;
}

void elab_elide(struct session *s)
{
	struct elider el = { .s = s };
	int i;

	do
		analyse(s, false);
	while (elide_round(&el));
	drop_functions(s);
	drop_globals(s);
	for (i = 0; i < s->probes.n; i++) {
		struct derived_probe *dp = s->probes.items[i];

		drop_locals(s, &dp->locals, dp);
	}
	for (i = 0; i < s->functions.n; i++) {
		struct func *f = s->functions.items[i];

		drop_locals(s, &f->locals, NULL);
	}
	for (i = 0; i < el.memo.n; i++)
		((struct func *)el.memo.items[i])->priv = NULL;
}
