/* elaborate.c - pass 2 resolution: probe points are matched against
 * probe aliases and provider patterns into derived probes, and every name
 * in their bodies and in the functions they reach is bound to a variable
 * or a function, pulling tapset files in as they are needed.
 */
#include "elab.h"
#include "clone.h"
#include "provider.h"
#include "target.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ALIAS_DEPTH 32
/* Aliases can fan out exponentially; past this many resolved points (or
 * derived probes) the pass gives up rather than exhaust memory.
 */
#define MAX_POINTS 100000

/* Embedded-C markers, as found in the comments of the code. */
enum {
	MK_PURE = 1 << 0,
	MK_STABLE = 1 << 1,
	MK_UNPRIV = 1 << 2,
	MK_MYPROC = 1 << 3,
	MK_GURU = 1 << 4,
	MK_UNMANGLED = 1 << 5,
	MK_UNMOD_ARGS = 1 << 6,
	MK_STRING = 1 << 7,
};

/* An error already shown: a body copied into several derived probes
 * reports each of its problems once.
 */
struct shown {
	struct loc loc;
	const char *msg;
};

struct elab {
	struct session *s;
	struct vec shown;		/* struct shown * */
	int next_lib;			/* library files with probes derived */
	int next_func;			/* functions with bodies resolved */
	const char *op_stat;		/* "<<<" */
	const char *op_and;		/* "&&" */
	struct vec patterns;		/* struct prov_pattern * */
	long points;			/* probe points resolved so far */
	bool too_many;
};

/* One alias on the way from a written probe point to a builtin one. */
struct frame {
	struct probe *alias;
	struct probe_point *name;	/* the alias name that matched */
	struct probe_point *target;	/* the alias's point, as written */
	struct probe_point *from;	/* the point that matched the name */
	int suffix;			/* from's components past the name */
};

/* The expansion of one written probe point. */
struct xp {
	struct elab *el;
	struct probe *user;		/* the probe as written */
	struct probe_point *upoint;
	struct frame frames[MAX_ALIAS_DEPTH];
	int nframes;
	int quiet;			/* inside wildcard branches */
	bool optional;
	bool unsupported_shown;
	/* an unsupported point met in a wildcard branch, reported only if
	 * nothing else matches
	 */
	const char *pending;
	struct frame pending_via;
	bool pending_has_via;
};

/* A name a probe point can match: a provider pattern or an alias name. */
struct cand {
	const struct prov_pattern *pat;
	struct probe *alias;
	struct probe_point *name;
	int n;
};

/* Where a body is being resolved. */
struct scope {
	struct elab *el;
	struct stapfile *file;		/* the file the code was written in */
	struct vec *locals;
	struct func *func;		/* NULL in a probe */
	struct derived_probe *dp;	/* NULL in a function */
	bool in_cond;
	bool in_entry;			/* inside @entry(...) */
	bool in_lvalue;			/* the next target is assigned to */
	bool badvar_trial;		/* skip_badvar's quiet first try */
};

static void resolve_expr(struct scope *sc, struct expr *e);
static int folded_cond(const struct expr *e);
static void resolve_stmt(struct scope *sc, struct stmt *st);
static int resolve_point(struct xp *x, struct probe_point *p);

/* ------------------------------------------------------------------ */
/* Small helpers                                                      */

/* Report an error unless the same text was already shown at the same
 * place; says whether it was shown (so that notes can follow it).
 */
static bool rerror(struct elab *el, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool rerror(struct elab *el, struct loc loc, const char *fmt, ...)
{
	struct shown *sh;
	va_list ap;
	char *msg;
	int i;

	va_start(ap, fmt);
	msg = arena_vprintf(el->s->arena, fmt, ap);
	va_end(ap);
	for (i = 0; i < el->shown.n; i++) {
		sh = vec_get(&el->shown, i);
		if (sh->loc.file == loc.file && sh->loc.line == loc.line &&
		    sh->loc.col == loc.col && strcmp(sh->msg, msg) == 0)
			return false;
	}
	sh = arena_alloc(el->s->arena, sizeof(*sh));
	sh->loc = loc;
	sh->msg = msg;
	vec_push(el->s->arena, &el->shown, sh);
	diag_error(el->s, loc, "%s", msg);
	return true;
}

static struct pp_comp *comp_at(const struct probe_point *pp, int i)
{
	return vec_get(&pp->comps, i);
}

static struct vardecl *find_var(const struct vec *v, const char *name)
{
	int i;

	for (i = 0; i < v->n; i++) {
		struct vardecl *d = vec_get(v, i);

		if (d->name == name)
			return d;
	}
	return NULL;
}

static unsigned markers_of(const char *code)
{
	static const struct {
		const char *word;
		unsigned flag;
	} marks[] = {
		{ "pure", MK_PURE }, { "stable", MK_STABLE },
		{ "unprivileged", MK_UNPRIV },
		{ "myproc-unprivileged", MK_MYPROC }, { "guru", MK_GURU },
		{ "unmangled", MK_UNMANGLED },
		{ "unmodified-fnargs", MK_UNMOD_ARGS }, { "string", MK_STRING },
	};
	const char *p = code;
	unsigned flags = 0;
	size_t i;

	while (p && (p = strstr(p, "/*"))) {
		const char *b = p + 2, *e = strstr(b, "*/");

		if (!e)
			break;
		p = e + 2;
		while (b < e && (*b == ' ' || *b == '\t'))
			b++;
		while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		for (i = 0; i < ARRAY_SIZE(marks); i++)
			if (strlen(marks[i].word) == (size_t)(e - b) &&
			    !strncmp(b, marks[i].word, (size_t)(e - b)))
				flags |= marks[i].flag;
	}
	return flags;
}

/* A library file becomes part of the session when something it defines
 * is first used: its embedded C is emitted and its probes are derived.
 */
static void pull_in(struct elab *el, struct stapfile *f)
{
	struct session *s = el->s;
	int i;

	if (!f || !f->is_tapset || f->elaborated)
		return;
	f->elaborated = true;
	vec_push(s->arena, &s->library_files, f);
	for (i = 0; i < f->embeds.n; i++)
		vec_push(s->arena, &s->embeds, vec_get(&f->embeds, i));
}

static struct vec *user_files(struct session *s)
{
	if (!s->user_files.n && s->user_file)
		vec_push(s->arena, &s->user_files, s->user_file);
	return &s->user_files;
}

/* ------------------------------------------------------------------ */
/* Globals and functions                                              */

static void use_global(struct elab *el, struct vardecl *v,
		       struct stapfile *f)
{
	if (v->priv == el)
		return;
	v->priv = el;
	v->is_global = true;
	if (!v->file)
		v->file = f;
	if (f && f->is_tapset) {
		v->from_tapset = true;
		pull_in(el, f);
	}
	vec_push(el->s->arena, &el->s->globals, v);
}

static struct vardecl *find_decl(struct stapfile *f, const char *name,
				 bool privates)
{
	int i;

	for (i = 0; i < f->globals.n; i++) {
		struct vardecl *v = vec_get(&f->globals, i);

		if (v->name == name && v->is_private == privates)
			return v;
	}
	return NULL;
}

/* One namespace: the file's own private globals, then the user's
 * globals, then the library's.
 */
static struct vardecl *find_global(struct elab *el, struct stapfile *file,
				   const char *name)
{
	struct session *s = el->s;
	struct vec *uf = user_files(s);
	struct vec found = { 0 };
	struct vardecl *v;
	int i;

	if (file && (v = find_decl(file, name, true))) {
		use_global(el, v, file);
		return v;
	}
	for (i = 0; i < uf->n; i++)
		if ((v = find_decl(vec_get(uf, i), name, false)))
			return v;
	tapset_find_global(s, name, &found);
	for (i = 0; i < found.n; i++) {
		if ((v = find_decl(vec_get(&found, i), name, false))) {
			use_global(el, v, vec_get(&found, i));
			return v;
		}
	}
	return NULL;
}

static void use_func(struct elab *el, struct func *f)
{
	unsigned mk;

	if (f->priv == el)
		return;
	f->priv = el;
	if (f->file && f->file->is_tapset)
		pull_in(el, f->file);
	if (f->code) {
		mk = markers_of(f->code);
		f->pure |= !!(mk & MK_PURE);
		f->stable |= !!(mk & MK_STABLE);
		f->unprivileged |= !!(mk & MK_UNPRIV);
		f->myproc_unprivileged |= !!(mk & MK_MYPROC);
		f->guru_only |= !!(mk & MK_GURU);
		f->unmangled |= !!(mk & MK_UNMANGLED);
		f->unmodified_fnargs |= !!(mk & MK_UNMOD_ARGS);
		f->returns_string_marker |= !!(mk & MK_STRING);
	}
	vec_push(el->s->arena, &el->s->functions, f);
}

/* Functions of f named name: those taking nargs go to out, and *other
 * says whether some other arity exists.
 */
static void funcs_in(struct stapfile *f, const char *name, int nargs,
		     bool privates, struct vec *out, bool *other,
		     struct arena *a)
{
	int i;

	for (i = 0; i < f->functions.n; i++) {
		struct func *fn = vec_get(&f->functions, i);

		if (fn->name != name || fn->is_private != privates)
			continue;
		if (fn->params.n == nargs)
			vec_push(a, out, fn);
		else
			*other = true;
	}
}

/* The same-arity definitions visible from file: its private ones, else
 * the user's, else the library's.
 */
static void find_funcs(struct elab *el, struct stapfile *file,
		       const char *name, int nargs, struct vec *out,
		       bool *other)
{
	struct session *s = el->s;
	struct vec *uf = user_files(s);
	struct vec found = { 0 };
	int i;

	if (file)
		funcs_in(file, name, nargs, true, out, other, s->arena);
	for (i = 0; i < uf->n && !out->n; i++)
		funcs_in(vec_get(uf, i), name, nargs, false, out, other,
			 s->arena);
	if (out->n)
		return;
	tapset_find_function(s, name, &found);
	for (i = 0; i < found.n; i++)
		funcs_in(vec_get(&found, i), name, nargs, false, out, other,
			 s->arena);
}

/* Chain the overloads by priority (stable: definition order breaks
 * ties) and return the first to run.
 */
static struct func *chain_overloads(struct elab *el, struct vec *fv)
{
	int i, j;

	for (i = 1; i < fv->n; i++) {
		struct func *f = vec_get(fv, i);

		for (j = i; j > 0; j--) {
			struct func *g = vec_get(fv, j - 1);

			if (g->priority <= f->priority)
				break;
			fv->items[j] = g;
		}
		fv->items[j] = f;
	}
	for (i = 0; i < fv->n; i++) {
		struct func *f = vec_get(fv, i);

		f->next_overload = i + 1 < fv->n ? vec_get(fv, i + 1) : NULL;
		use_func(el, f);
	}
	return vec_get(fv, 0);
}

static void resolve_call(struct scope *sc, struct expr *e)
{
	struct vec fv = { 0 };
	bool other = false;
	int i;

	for (i = 0; i < e->args.n; i++)
		resolve_expr(sc, vec_get(&e->args, i));
	if (sc->in_cond) {
		rerror(sc->el, e->loc, "probe condition may not call "
		       "functions");
		return;
	}
	find_funcs(sc->el, sc->file, e->name, e->args.n, &fv, &other);
	if (fv.n) {
		e->func = chain_overloads(sc->el, &fv);
	} else if (other) {
		rerror(sc->el, e->loc, "no function '%s' takes %d argument%s",
		       e->name, e->args.n, e->args.n == 1 ? "" : "s");
	} else {
		rerror(sc->el, e->loc, "unresolved function '%s'", e->name);
	}
}

/* ------------------------------------------------------------------ */
/* Symbols in bodies                                                  */

static bool is_param(const struct scope *sc, const struct vardecl *v)
{
	return sc->func && find_var(&sc->func->params, v->name) == v;
}

static struct vardecl *lookup_var(struct scope *sc, struct expr *e)
{
	struct vardecl *v;

	if (sc->func && (v = find_var(&sc->func->params, e->name)))
		return v;
	if ((v = find_var(sc->locals, e->name)))
		return v;
	if ((v = find_global(sc->el, sc->file, e->name)))
		return v;
	v = vardecl_new(sc->el->s->arena, e->name, e->loc);
	if (sc->in_cond) {
		rerror(sc->el, e->loc, "probe condition may only use global "
		       "variables; '%s' is not one", e->name);
		return v;
	}
	vec_push(sc->el->s->arena, sc->locals, v);
	return v;
}

/* A local or parameter where only a global can be: arrays and
 * statistics live in global storage.  Reported once per variable.
 */
static void misuse(struct scope *sc, struct expr *sym, const char *as)
{
	struct vardecl *v = sym->var;

	if (!v || v->is_global || v->priv == sc->el)
		return;
	v->priv = sc->el;
	rerror(sc->el, sym->loc, "%s '%s' used as %s; missing global "
	       "declaration?", is_param(sc, v) ? "parameter" :
	       "local variable", v->name, as);
}

static void resolve_args(struct scope *sc, struct vec *args)
{
	int i;

	for (i = 0; i < args->n; i++)
		resolve_expr(sc, vec_get(args, i));
}

/* The array of a[i], [i] in a, foreach and delete. */
static void resolve_array(struct scope *sc, struct expr *base)
{
	if (!base)
		return;
	if (base->kind != EX_SYM) {
		resolve_expr(sc, base);
		return;
	}
	base->var = lookup_var(sc, base);
	misuse(sc, base, "array");
}

/* The operand of <<<, @count(..), @hist_*(..): a global stat or an
 * element of a global stat array.
 */
static void resolve_stat_operand(struct scope *sc, struct expr *op)
{
	if (!op)
		return;
	if (op->kind == EX_SYM) {
		op->var = lookup_var(sc, op);
		misuse(sc, op, "statistic");
	} else if (op->kind == EX_INDEX) {
		resolve_array(sc, op->a);
		resolve_args(sc, &op->args);
	} else {
		resolve_expr(sc, op);
	}
}

/* An error of target resolution: counted in ctx, and shown unless ctx
 * is quiet (@defined trying a copy).
 */
static void target_rerror(struct scope *sc, struct prov_ctx *ctx,
			  struct loc loc, const char *msg)
{
	ctx->errors++;
	if (ctx->quiet)
		return;
	if (ctx->held)
		diag_error_held(sc->el->s, ctx->held, loc, "%s", msg);
	else
		rerror(sc->el, loc, "%s", msg);
}

static bool same_ktype(const struct ktype *a, const struct ktype *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->kind != b->kind || a->src != b->src)
		return false;
	if (a->kind == KT_PTR)
		return same_ktype(a->target, b->target);
	return a->handle == b->handle && !strcmp(ktype_name(a),
						 ktype_name(b));
}

/* The pointer type of the value e computes, when it comes from a typed
 * $target or @cast (directly, or through a local assigned one, an
 * assignment or a ?: of two of the same type); NULL otherwise.
 */
static const struct ktype *value_ktype(struct scope *sc,
				       const struct expr *e, bool *user)
{
	const struct tref *r;
	const struct ktype *t, *u;

	if (!e)
		return NULL;
	switch (e->kind) {
	case EX_TARGET:
		r = e->tref;
		if (!r || !r->final || e->pretty || r->base == TRB_LIST ||
		    r->base == TRB_STRING)
			return NULL;
		*user = r->user;
		if (e->addressof)
			return r->in_mem ? target_pointer_to(sc->el->s->arena,
							     r->final) : NULL;
		if (r->final->kind == KT_ARRAY && r->in_mem &&
		    r->final->target)
			return target_pointer_to(sc->el->s->arena,
						 r->final->target);
		return r->final->kind == KT_PTR ? r->final : NULL;
	case EX_SYM:
		if (!e->var || e->var->is_global || e->var->ktype_mixed)
			return NULL;
		*user = e->var->ktype_user;
		return e->var->ktype;
	case EX_ASSIGN:
		return e->op == intern("=") ? value_ktype(sc, e->b, user) :
		       NULL;
	case EX_ENTRY:
		return value_ktype(sc, e->a, user);
	case EX_TERNARY:
		t = value_ktype(sc, e->b, user);
		u = value_ktype(sc, e->c, user);
		return same_ktype(t, u) ? t : NULL;
	default:
		return NULL;
	}
}

/* local = value: the local keeps the value's pointer type for the
 * autocasts that follow (p = $file; p->f_path); pointers of two types
 * leave it untyped.
 */
static void note_local_type(struct scope *sc, struct expr *e)
{
	struct vardecl *v = e->a->var;
	const struct ktype *t;
	bool user = false;

	if (e->op != intern("=") || e->a->kind != EX_SYM || !v ||
	    v->is_global || v->ktype_mixed)
		return;
	t = value_ktype(sc, e->b, &user);
	if (!t)
		return;
	if (v->ktype && !same_ktype(v->ktype, t)) {
		v->ktype = NULL;
		v->ktype_mixed = true;
		return;
	}
	v->ktype = t;
	v->ktype_user = user;
}

static void resolve_autocast(struct scope *sc, struct expr *e,
			     struct prov_ctx *ctx)
{
	const struct ktype *t;
	bool user = false;

	t = value_ktype(sc, e->a, &user);
	if (!t) {
		target_rerror(sc, ctx, e->loc, "the type of this value is "
			      "unknown: '->', '[' and '&' on a script value "
			      "need a pointer from a typed $target or @cast");
		return;
	}
	target_resolve_autocast(ctx, e, t, user);
}

static void resolve_target_ctx(struct scope *sc, struct expr *e,
			       struct prov_ctx *ctx)
{
	struct arena *a = sc->el->s->arena;
	const struct provider *prov;
	int i;

	resolve_expr(sc, e->a);
	for (i = 0; i < e->comps.n; i++) {
		struct tcomp *tc = vec_get(&e->comps, i);

		resolve_expr(sc, tc->index);
	}
	if (e->tbase == TB_CAST) {
		target_resolve_cast(ctx, e);
		return;
	}
	if (e->tbase == TB_AUTOCAST) {
		resolve_autocast(sc, e, ctx);
		return;
	}
	if (e->tbase == TB_ATVAR && sc->dp && !sc->in_cond &&
	    sc->dp->prov->resolve_atvar) {
		sc->dp->prov->resolve_atvar(ctx, sc->dp, e);
		return;
	}
	if (e->tbase == TB_ATVAR && !sc->in_cond) {
		target_kernel_atvar(ctx, e);
		return;
	}
	if (e->tbase == TB_ATVAR) {
		target_rerror(sc, ctx, e->loc, "probe condition may not use "
			      "@var");
		return;
	}
	if (sc->in_cond) {
		target_rerror(sc, ctx, e->loc, "probe condition may not use "
			      "target variables");
		return;
	}
	/* functions have no probe context: the type pass reports them */
	if (!sc->dp)
		return;
	prov = sc->dp->prov;
	if (!prov->resolve_target)
		target_rerror(sc, ctx, e->loc, arena_printf(a, "probe point "
			      "'%s' has no target variables", sc->dp->name));
	else
		prov->resolve_target(ctx, sc->dp, e);
}

/* --skip-badvars: a $context variable or @var of a probe with a
 * context that cannot be resolved there reads as 0 ("" for $x$), with a warning
 * naming it and saying why.  Resolved on a copy first, quietly, so
 * that a good one is resolved as usual.  True when e became 0.
 */
static bool skip_badvar(struct scope *sc, struct expr *e)
{
	struct session *s = sc->el->s;
	struct strbuf why, what;
	struct prov_ctx ctx = { s, true, 0, false, sc->in_entry, NULL, &why };
	bool lvalue = sc->in_lvalue, trial;

	sc->in_lvalue = false;		/* not its indexes */
	if (!s->opt.skip_badvars || sc->in_cond || lvalue || !sc->dp ||
	    (e->tbase != TB_VAR && e->tbase != TB_ATVAR) ||
	    (e->tbase == TB_VAR && !sc->dp->prov->resolve_target))
		return false;
	sb_init(&why);
	trial = sc->badvar_trial;
	sc->badvar_trial = true;	/* its indexes warn once, later */
	resolve_target_ctx(sc, clone_expr(s->arena, e), &ctx);
	sc->badvar_trial = trial;
	if (!ctx.errors) {
		sb_free(&why);
		return false;
	}
	sb_init(&what);
	print_expr(&what, e);
	if (!trial)
		diag_warn(s, e->loc, "bad target variable '%s' replaced by "
			  "%s (--skip-badvars): %s", what.buf,
			  e->pretty ? "\"\"" : "0", why.len ? why.buf : "?");
	sb_free(&what);
	sb_free(&why);
	/* $x$ and $x$$ are strings */
	if (e->pretty) {
		e->kind = EX_STR;
		e->str = intern("");
	} else {
		e->kind = EX_NUM;
		e->num = 0;
	}
	e->tbase = TB_VAR;
	e->name = NULL;
	e->a = NULL;
	e->comps.n = 0;
	e->addressof = false;
	e->pretty = 0;
	return true;
}

/* What cannot be resolved is kept with the expression and reported
 * only if it survives elision (elab_report_held): a $var in an unused
 * function or a dead assignment is no error, as in the established
 * tool.  Probe conditions are checked at once.
 */
static void resolve_target(struct scope *sc, struct expr *e)
{
	struct diag_hold *held = arena_alloc(sc->el->s->arena, sizeof(*held));
	struct prov_ctx ctx = { sc->el->s, false, 0, false, sc->in_entry,
				sc->in_cond ? NULL : held, NULL };

	if (skip_badvar(sc, e))
		return;
	resolve_target_ctx(sc, e, &ctx);
	if (held->n)
		e->held = held;
}

static bool held_cb(struct elab_walk *w, struct expr *e)
{
	if (e->held)
		*(bool *)w->arg = true;
	return true;
}

static bool has_held(struct expr *e)
{
	bool found = false;
	struct elab_walk w = { held_cb, NULL, &found };

	elab_walk_expr(&w, e);
	return found;
}

static bool live_cb(struct elab_walk *w, struct expr *e)
{
	(void)w;
	if (e->held)
		e->held->live = true;
	return true;
}

/* The held errors of the code that is left are shown, in the order
 * they were found among the others.
 */
static void elab_report_held(struct session *s)
{
	struct elab_walk w = { live_cb, NULL, s };
	int i;

	for (i = 0; i < s->probes.n; i++) {
		struct derived_probe *dp = s->probes.items[i];

		elab_walk_expr(&w, dp->cond);
		elab_walk_stmt(&w, dp->body);
	}
	for (i = 0; i < s->functions.n; i++)
		elab_walk_stmt(&w, ((struct func *)s->functions.items[i])->body);
	diag_queue_flush(s);
}

/* @entry(x): x is resolved as at the function's entry and saved there
 * by the provider.
 */
static void resolve_entry(struct scope *sc, struct expr *e)
{
	struct prov_ctx ctx = { sc->el->s, false, 0, false, true, NULL, NULL };
	bool old = sc->in_entry;

	if (sc->in_entry) {
		rerror(sc->el, e->loc, "@entry cannot be nested");
		return;
	}
	sc->in_entry = true;
	resolve_expr(sc, e->a);
	sc->in_entry = old;
	/* nothing to save while its errors wait for elision */
	if (has_held(e->a))
		return;
	if (!sc->dp || !sc->dp->prov->resolve_entry || !sc->dp->returns) {
		rerror(sc->el, e->loc, "@entry is only valid in a .return "
		       "probe handler");
		return;
	}
	sc->dp->prov->resolve_entry(&ctx, sc->dp, e);
}

/* @defined($x) where no $x can exist is the constant 0. */
static void resolve_defined(struct scope *sc, struct expr *e)
{
	struct expr *t = e->a;
	bool ok;

	if (t && t->kind == EX_TARGET && t->tbase == TB_VAR &&
	    (!sc->dp || !sc->dp->prov->resolve_target)) {
		ok = false;
	} else if (t && t->kind == EX_TARGET && !sc->in_cond) {
		/* resolved quietly on a copy: defined if that works */
		struct prov_ctx ctx = { sc->el->s, true, 0, false,
					sc->in_entry, NULL, NULL };

		resolve_target_ctx(sc, clone_expr(sc->el->s->arena, t), &ctx);
		ok = !ctx.errors;
	} else if (t && t->kind == EX_ENTRY && t->a &&
		   t->a->kind == EX_TARGET && !sc->in_cond && !sc->in_entry &&
		   sc->dp && sc->dp->prov->resolve_target) {
		/* @defined(@entry($x)): $x as it is at the entry */
		struct prov_ctx ctx = { sc->el->s, true, 0, false, true, NULL, NULL };

		sc->in_entry = true;
		resolve_target_ctx(sc, clone_expr(sc->el->s->arena, t->a),
				   &ctx);
		sc->in_entry = false;
		ok = !ctx.errors;
	} else {
		resolve_expr(sc, t);
		return;
	}
	e->kind = EX_NUM;
	e->num = ok;
	e->a = NULL;
	e->is_literal_fold = true;
}

static void set_folded(struct expr *e, int v)
{
	e->kind = EX_NUM;
	e->num = v;
	e->a = e->b = NULL;
	e->is_literal_fold = true;
}

/* The value of a number literal, when e is one: *fold says whether it
 * came from @defined (or a condition folded from one).
 */
static bool num_value(const struct expr *e, int64_t *v, bool *fold)
{
	if (!e || e->kind != EX_NUM)
		return false;
	*v = e->num;
	*fold = *fold || e->is_literal_fold;
	return true;
}

/* &&, || and comparisons over what @defined() folded are constants too,
 * as SystemTap folds them: "@defined($x) && $x > 0" is 0 without $x
 * being resolved where it does not exist, and so is the branch of an
 * if or ?: it rules out.
 */
static void resolve_folding(struct scope *sc, struct expr *e)
{
	int64_t a, b;
	bool fold = false;
	int k;

	resolve_expr(sc, e->a);
	if (e->kind == EX_LOGICAL) {
		bool is_and = e->op == sc->el->op_and;

		k = folded_cond(e->a);
		if (k == (is_and ? 0 : 1)) {
			set_folded(e, k);
			return;
		}
		resolve_expr(sc, e->b);
		if (k >= 0 && folded_cond(e->b) >= 0)
			set_folded(e, folded_cond(e->b));
		return;
	}
	resolve_expr(sc, e->b);
	if (!num_value(e->a, &a, &fold) || !num_value(e->b, &b, &fold) ||
	    !fold)
		return;
	switch (e->op[0]) {
	case '<':
		k = e->op[1] ? a <= b : a < b;
		break;
	case '>':
		k = e->op[1] ? a >= b : a > b;
		break;
	case '=':
		k = a == b;
		break;
	default:
		k = a != b;
		break;
	}
	set_folded(e, k);
}

static bool cond_forbids(struct scope *sc, struct expr *e, const char *what)
{
	if (!sc->in_cond)
		return false;
	rerror(sc->el, e->loc, "probe condition may not %s", what);
	return true;
}

static void resolve_expr(struct scope *sc, struct expr *e)
{
	if (!e)
		return;
	switch (e->kind) {
	case EX_NUM:
	case EX_STR:
	case EX_PERF:
	case EX_CONST:
		return;
	case EX_SYM:
		e->var = lookup_var(sc, e);
		return;
	case EX_TARGET:
		resolve_target(sc, e);
		return;
	case EX_CALL:
		resolve_call(sc, e);
		return;
	case EX_DEFINED:
		resolve_defined(sc, e);
		return;
	case EX_TERNARY:
		resolve_expr(sc, e->a);
		if (folded_cond(e->a) >= 0) {
			struct expr *live = folded_cond(e->a) ? e->b : e->c;

			resolve_expr(sc, live);
			*e = *live;
			return;
		}
		resolve_expr(sc, e->b);
		resolve_expr(sc, e->c);
		return;
	case EX_ENTRY:
		resolve_entry(sc, e);
		return;
	case EX_LOGICAL:
	case EX_COMPARE:
		resolve_folding(sc, e);
		return;
	case EX_INDEX:
	case EX_IN:
		resolve_args(sc, &e->args);
		resolve_array(sc, e->a);
		return;
	case EX_STAT:
	case EX_HIST:
		resolve_stat_operand(sc, e->a);
		resolve_expr(sc, e->b);
		resolve_args(sc, &e->args);
		return;
	case EX_EMBEDDED:
		if (!cond_forbids(sc, e, "use embedded C") &&
		    (markers_of(e->code) & MK_STRING))
			e->embedded_string = true;
		return;
	case EX_PRINT:
		if (!cond_forbids(sc, e, "print"))
			resolve_args(sc, &e->args);
		return;
	case EX_ASSIGN:
	case EX_INCDEC:
		if (cond_forbids(sc, e, "modify variables"))
			return;
		if (e->op == sc->el->op_stat) {
			resolve_stat_operand(sc, e->a);
		} else {
			sc->in_lvalue = e->a && e->a->kind == EX_TARGET;
			resolve_expr(sc, e->a);
			sc->in_lvalue = false;
		}
		resolve_expr(sc, e->b);
		if (e->kind == EX_ASSIGN)
			note_local_type(sc, e);
		return;
	default:
		resolve_expr(sc, e->a);
		resolve_expr(sc, e->b);
		resolve_expr(sc, e->c);
		resolve_args(sc, &e->args);
		return;
	}
}

static void resolve_foreach(struct scope *sc, struct stmt *st)
{
	resolve_array(sc, st->base);
	resolve_args(sc, &st->slice);
	resolve_args(sc, &st->keys);
	resolve_expr(sc, st->value);
	resolve_expr(sc, st->limit);
	resolve_stmt(sc, st->body);
}

/* 1 or 0 for a condition that @defined() folded to a constant (maybe
 * negated), -1 otherwise.
 */
static int folded_cond(const struct expr *e)
{
	if (e && e->kind == EX_NUM && e->is_literal_fold)
		return e->num != 0;
	if (e && e->kind == EX_UNARY && e->op && !strcmp(e->op, "!") &&
	    e->a && e->a->kind == EX_NUM && e->a->is_literal_fold)
		return e->a->num == 0;
	return -1;
}

static struct stmt *empty_block(struct scope *sc, struct stmt *at)
{
	struct stmt *b = arena_alloc(sc->el->s->arena, sizeof(*b));

	b->kind = ST_BLOCK;
	b->loc = at ? at->loc : (struct loc){ 0 };
	return b;
}

static void resolve_stmt(struct scope *sc, struct stmt *st)
{
	int i;

	if (!st)
		return;
	switch (st->kind) {
	case ST_BLOCK:
		for (i = 0; i < st->stmts.n; i++)
			resolve_stmt(sc, vec_get(&st->stmts, i));
		return;
	case ST_FOREACH:
		resolve_foreach(sc, st);
		return;
	case ST_DELETE:
		if (st->expr && st->expr->kind == EX_INDEX) {
			resolve_args(sc, &st->expr->args);
			resolve_array(sc, st->expr->a);
		} else {
			resolve_expr(sc, st->expr);
		}
		return;
	case ST_NEXT:
		if (sc->func)
			sc->func->has_next = true;
		return;
	case ST_IF:
		resolve_expr(sc, st->expr);
		/* the branch @defined() rules out is never resolved */
		switch (folded_cond(st->expr)) {
		case 1:
			st->els = NULL;
			break;
		case 0:
			st->body = empty_block(sc, st->body);
			break;
		default:
			break;
		}
		resolve_stmt(sc, st->body);
		resolve_stmt(sc, st->els);
		return;
	default:
		resolve_expr(sc, st->init);
		resolve_expr(sc, st->expr);
		resolve_expr(sc, st->incr);
		resolve_expr(sc, st->catch_var);
		resolve_stmt(sc, st->body);
		resolve_stmt(sc, st->els);
		return;
	}
}

static void resolve_function(struct elab *el, struct func *f)
{
	struct scope sc = { el, f->file, &f->locals, f, NULL, false, false, false,
			    false };

	resolve_stmt(&sc, f->body);
}

/* ------------------------------------------------------------------ */
/* Derived probes                                                     */

static struct expr *resolve_cond(struct xp *x, struct derived_probe *dp,
				 struct expr *cond, struct stapfile *file)
{
	struct scope sc = { x->el, file, &dp->locals, NULL, dp, true, false,
			    false, false };
	struct expr *c = clone_expr(x->el->s->arena, cond);

	resolve_expr(&sc, c);
	return c;
}

static struct expr *and_cond(struct xp *x, struct expr *a, struct expr *b)
{
	struct expr *e;

	if (!a || !b)
		return a ? a : b;
	e = expr_new(x->el->s->arena, EX_LOGICAL, a->loc);
	e->op = x->el->op_and;
	e->tok = x->el->op_and;
	e->a = a;
	e->b = b;
	return e;
}

/* The written probe's body in the middle; each alias on the way wraps
 * it, its body before (=) or after (+=).  The alias nearest the builtin
 * point is the outermost, as each expansion wraps the previous one.
 */
static void derive_body(struct xp *x, struct derived_probe *dp)
{
	struct arena *a = x->el->s->arena;
	struct vec parts = { 0 }, files = { 0 };
	int k;

	vec_push(a, &parts, x->user->body);
	vec_push(a, &files, x->user->file);
	for (k = 0; k < x->nframes; k++) {
		struct probe *al = x->frames[k].alias;

		if (al->epilogue) {
			vec_push(a, &parts, al->body);
			vec_push(a, &files, al->file);
		} else {
			vec_insert(a, &parts, 0, al->body);
			vec_insert(a, &files, 0, al->file);
		}
	}
	dp->body = stmt_new(a, ST_BLOCK, x->user->loc);
	for (k = 0; k < parts.n; k++) {
		struct scope sc = { x->el, vec_get(&files, k), &dp->locals,
				    NULL, dp, false, false, false, false };
		struct stmt *b = clone_stmt(a, vec_get(&parts, k));

		if (!b)
			continue;
		resolve_stmt(&sc, b);
		vec_push(a, &dp->body->stmts, b);
	}
}

static void derive_cond(struct xp *x, struct derived_probe *dp)
{
	int k;

	if (x->upoint->cond)
		dp->cond = resolve_cond(x, dp, x->upoint->cond,
					x->user->file);
	for (k = 0; k < x->nframes; k++) {
		struct frame *f = &x->frames[k];

		if (f->target->cond)
			dp->cond = and_cond(x, dp->cond,
					    resolve_cond(x, dp, f->target->cond,
							 f->alias->file));
	}
}

static void report_unsupported(struct xp *x, const char *name,
			       const struct frame *via)
{
	struct session *s = x->el->s;

	if (x->unsupported_shown)
		return;
	x->unsupported_shown = true;
	if (rerror(x->el, x->upoint->loc, "probe point '%s' is not "
		   "supported yet", name) && via)
		diag_note(s, via->target->loc, "probe alias '%s' expands to "
			  "it here", pp_text(s->arena, via->name));
}

/* Families that are recognised but not implemented yet are an error,
 * except in a wildcard branch, where they count as no match unless
 * nothing else matches at all.
 */
static void unsupported(struct xp *x, struct derived_probe *dp)
{
	const struct frame *via = x->nframes ? &x->frames[x->nframes - 1] :
			    NULL;

	if (!x->quiet) {
		report_unsupported(x, dp->name, via);
		return;
	}
	if (x->pending)
		return;
	x->pending = dp->name;
	x->pending_has_via = via != NULL;
	if (via)
		x->pending_via = *via;
}

static int make_one(struct xp *x, const struct provider *prov,
		    struct probe_point *u);

/* A concrete point that a provider accepts becomes a derived probe; a
 * pattern the provider expands becomes one per match.
 */
static int make_derived(struct xp *x, const struct provider *prov,
			struct probe_point *u)
{
	struct session *s = x->el->s;
	struct prov_ctx ctx = { s, x->quiet > 0, 0, x->optional, false, NULL,
				NULL };
	struct vec pts = { 0 };
	int i, n, made = 0;

	if (!prov->expand || prov->unsupported)
		return make_one(x, prov, u);
	n = prov->expand(&ctx, u, &pts);
	if (n <= 0 || ctx.errors)
		return 0;
	for (i = 0; i < pts.n; i++)
		made += make_one(x, prov, pts.items[i]);
	return made;
}

/* The alias name that the written point matched, with the suffix
 * carried past it: what -l and -L list.
 */
static const char *alias_listed(struct arena *a, const struct frame *f)
{
	struct probe_point *p = clone_probe_point(a, f->name);
	int m;

	for (m = f->suffix; m < f->from->comps.n; m++)
		vec_push(a, &p->comps, clone_pp_comp(a, comp_at(f->from, m)));
	return intern(pp_text(a, p));
}

static int make_one(struct xp *x, const struct provider *prov,
		    struct probe_point *u)
{
	struct session *s = x->el->s;
	struct derived_probe *dp = arena_alloc(s->arena, sizeof(*dp));
	struct prov_ctx ctx = { s, x->quiet > 0, 0,
				x->optional || u->optional, false, NULL, NULL };
	int k;

	dp->orig = x->user;
	dp->pp = clone_probe_point(s->arena, u);
	dp->pp->optional = dp->pp->sufficient = false;
	dp->pp->cond = NULL;
	dp->prov = prov;
	dp->name = intern(pp_text(s->arena, dp->pp));
	if (prov->unsupported) {
		unsupported(x, dp);
		return 0;
	}
	if (prov->build(&ctx, dp) < 0 || ctx.errors)
		return 0;
	vec_push(s->arena, &dp->alias_chain, x->upoint);
	for (k = 0; k < x->nframes; k++)
		vec_push(s->arena, &dp->alias_chain, x->frames[k].target);
	if (x->nframes)
		dp->alias_name = alias_listed(s->arena, &x->frames[0]);
	derive_cond(x, dp);
	derive_body(x, dp);
	dp->index = s->probes.n;
	vec_push(s->arena, &s->probes, dp);
	return 1;
}

/* The parser already refuses optional and conditional alias names. */
static bool alias_name_ok(struct elab *el, struct probe_point *name,
			  bool quiet)
{
	int i;

	for (i = 0; i < name->comps.n; i++)
		if (has_wildcard(comp_at(name, i)->functor))
			break;
	if (i == name->comps.n)
		return true;
	if (!quiet)
		rerror(el, name->loc, "probe alias name '%s' cannot contain "
		       "wildcards", pp_text(el->s->arena, name));
	return false;
}

/* Every point of the alias, with the suffix of u beyond the alias name
 * carried over, is resolved in turn; a '!' point that resolves ends the
 * list.
 */
static int expand_alias(struct xp *x, const struct cand *c,
			struct probe_point *u, int k)
{
	struct arena *a = x->el->s->arena;
	struct probe *al = c->alias;
	int i, m, made = 0;

	for (i = 0; i < x->nframes; i++)
		if (x->frames[i].alias == al)
			break;
	/* like any error in a wildcard branch, these stay quiet there */
	if (i < x->nframes || x->nframes == MAX_ALIAS_DEPTH) {
		if (!x->quiet)
			rerror(x->el, u->loc, "recursive expansion of probe "
			       "alias '%s'", pp_text(a, c->name));
		return 0;
	}
	if (!alias_name_ok(x->el, c->name, x->quiet))
		return 0;
	pull_in(x->el, al->file);
	for (i = 0; i < al->points.n; i++) {
		struct probe_point *t = vec_get(&al->points, i);
		struct probe_point *tp = clone_probe_point(a, t);
		struct frame *f = &x->frames[x->nframes++];
		int r;

		for (m = k; m < u->comps.n; m++)
			vec_push(a, &tp->comps,
				 clone_pp_comp(a, comp_at(u, m)));
		f->alias = al;
		f->name = c->name;
		f->target = t;
		f->from = u;
		f->suffix = k;
		r = resolve_point(x, tp);
		x->nframes--;
		made += r;
		if (r && t->sufficient)
			break;
	}
	return made;
}

static int build_cand(struct xp *x, const struct cand *c,
		      struct probe_point *u, int k)
{
	if (c->alias)
		return expand_alias(x, c, u, k);
	return make_derived(x, c->pat->prov, u);
}

/* ------------------------------------------------------------------ */
/* Matching probe points                                              */

static const char *cand_functor(const struct cand *c, int i)
{
	if (c->pat)
		return c->pat->comps[i].functor;
	return comp_at(c->name, i)->functor;
}

static bool literal_equal(const struct expr *a, const struct expr *b)
{
	int64_t x, y;

	if (pp_arg_kind(a) != pp_arg_kind(b))
		return false;
	if (a->kind == EX_STR)
		return strcmp(a->str, b->str) == 0;
	return pp_arg_num(a, &x) && pp_arg_num(b, &y) && x == y;
}

/* Does component i of c take u's argument (or its lack of one)? */
static bool cand_accepts(const struct cand *c, int i,
			 const struct expr *arg)
{
	const struct pp_comp *nc;

	if (c->pat)
		return c->pat->comps[i].arg == pp_arg_kind(arg);
	nc = comp_at(c->name, i);
	if (!nc->arg || !arg)
		return !nc->arg && !arg;
	return literal_equal(nc->arg, arg);
}

/* u with component i replaced by the functors f[0..n), the last one
 * taking the argument of the original component.
 */
static struct probe_point *substitute(struct xp *x, struct probe_point *u,
				      int i, const char **f, int n)
{
	struct arena *a = x->el->s->arena;
	struct probe_point *r = arena_alloc(a, sizeof(*r));
	struct pp_comp *orig = comp_at(u, i);
	int k;

	*r = *u;
	memset(&r->comps, 0, sizeof(r->comps));
	for (k = 0; k < u->comps.n; k++) {
		int j;

		if (k != i) {
			vec_push(a, &r->comps, comp_at(u, k));
			continue;
		}
		for (j = 0; j < n; j++) {
			struct pp_comp *c = arena_alloc(a, sizeof(*c));

			*c = *orig;
			c->functor = f[j];
			if (j < n - 1)
				c->arg = NULL;
			vec_push(a, &r->comps, c);
		}
	}
	return r;
}

static int match_from(struct xp *x, struct probe_point *u, int i,
		      struct cand **cs, int n);

/* All of u matched: every candidate that ends here is a match. */
static int match_end(struct xp *x, struct probe_point *u, struct cand **cs,
		     int n)
{
	int k, made = 0;

	for (k = 0; k < n; k++)
		if (cs[k]->n == u->comps.n)
			made += build_cand(x, cs[k], u, cs[k]->n);
	return made;
}

/* Candidates that share functor f at i and take u's argument there. */
static int filter(struct cand **cs, int n, int i, const char *f,
		  const struct expr *arg, struct cand **out)
{
	int k, m = 0;

	for (k = 0; k < n; k++)
		if (cs[k]->n > i && cand_functor(cs[k], i) == f &&
		    cand_accepts(cs[k], i, arg))
			out[m++] = cs[k];
	return m;
}

/* A '*' component: each distinct functor it matches is a branch of its
 * own, tried in name order; failures in a branch are quiet, and only no
 * match at all is an error.
 */
static int match_glob(struct xp *x, struct probe_point *u, int i,
		      struct cand **cs, int n)
{
	struct pp_comp *uc = comp_at(u, i);
	struct cand **sub = xmalloc(sizeof(*sub) * (size_t)(n + 1));
	const char **done = xmalloc(sizeof(*done) * (size_t)(n + 1));
	int k, j, ndone = 0, made = 0;

	for (k = 0; k < n; k++) {
		const char *f;

		if (cs[k]->n <= i || !cand_accepts(cs[k], i, uc->arg))
			continue;
		f = cand_functor(cs[k], i);
		for (j = 0; j < ndone && done[j] != f; j++)
			;
		if (j == ndone && glob_match(uc->functor, f))
			done[ndone++] = f;
	}
	qsort(done, (size_t)ndone, sizeof(*done), cmp_strp);
	for (k = 0; k < ndone; k++) {
		j = filter(cs, n, i, done[k], uc->arg, sub);
		x->quiet++;
		made += match_from(x, substitute(x, u, i, &done[k], 1), i + 1,
				   sub, j);
		x->quiet--;
	}
	free(sub);
	free(done);
	return made;
}

/* The functors i..j of c joined with '.', interned; NULL when c is too
 * short or a component before j would need an argument.
 */
static const char *span_text(const struct cand *c, int i, int j,
			     const struct expr *arg)
{
	char buf[512];
	size_t len = 0;
	int k;

	if (c->n <= j || !cand_accepts(c, j, arg))
		return NULL;
	for (k = i; k <= j; k++) {
		const char *f = cand_functor(c, k);
		size_t fl = strlen(f);

		if ((k < j && !cand_accepts(c, k, NULL)) ||
		    len + fl + 2 > sizeof(buf))
			return NULL;
		if (k > i)
			buf[len++] = '.';
		memcpy(buf + len, f, fl);
		len += fl;
	}
	return intern_n(buf, len);
}

/* One way a '**' component can match: candidate k's functors i..j. */
struct span {
	const char *text;
	int k, j;
};

static int by_span(const void *a, const void *b)
{
	return strcmp(((const struct span *)a)->text,
		      ((const struct span *)b)->text);
}

/* The distinct spans of the candidates that '**' at i matches. */
static struct span *dglob_spans(struct probe_point *u, int i,
				struct cand **cs, int n, int *count)
{
	struct pp_comp *uc = comp_at(u, i);
	struct span *sp = NULL;
	int k, j, m, ns = 0, cap = 0;

	for (k = 0; k < n; k++) {
		for (j = i; j < cs[k]->n; j++) {
			const char *t = span_text(cs[k], i, j, uc->arg);

			for (m = 0; t && m < ns && sp[m].text != t; m++)
				;
			if (!t || m < ns || !glob_match(uc->functor, t))
				continue;
			if (ns == cap) {
				cap = cap ? cap * 2 : 16;
				sp = xrealloc(sp, sizeof(*sp) * (size_t)cap);
			}
			sp[ns].text = t;
			sp[ns].k = k;
			sp[ns++].j = j;
		}
	}
	if (ns)
		qsort(sp, (size_t)ns, sizeof(*sp), by_span);
	*count = ns;
	return sp;
}

/* A '**' component spans one or more components of the candidates. */
static int match_dglob(struct xp *x, struct probe_point *u, int i,
		       struct cand **cs, int n)
{
	const struct expr *arg = comp_at(u, i)->arg;
	struct cand **sub = xmalloc(sizeof(*sub) * (size_t)(n + 1));
	const char *f[MAX_ALIAS_DEPTH];
	int ns, s, m, made = 0;
	struct span *sp = dglob_spans(u, i, cs, n, &ns);

	for (s = 0; s < ns; s++) {
		int nsub = 0, len = sp[s].j - i + 1;

		if (len > MAX_ALIAS_DEPTH)
			continue;
		for (m = 0; m < n; m++)
			if (span_text(cs[m], i, sp[s].j, arg) == sp[s].text)
				sub[nsub++] = cs[m];
		for (m = 0; m < len; m++)
			f[m] = cand_functor(cs[sp[s].k], i + m);
		x->quiet++;
		made += match_from(x, substitute(x, u, i, f, len),
				   sp[s].j + 1, sub, nsub);
		x->quiet--;
	}
	free(sp);
	free(sub);
	return made;
}

/* Walk u's components against the candidates that agree so far; where
 * a plain component matches nothing, an alias ending here takes the
 * rest of u as a suffix.
 */
static int match_from(struct xp *x, struct probe_point *u, int i,
		      struct cand **cs, int n)
{
	struct pp_comp *uc;
	struct cand **sub;
	int k, m, made = 0;

	if (i == u->comps.n)
		return match_end(x, u, cs, n);
	uc = comp_at(u, i);
	if (strstr(uc->functor, "**"))
		return match_dglob(x, u, i, cs, n);
	if (has_wildcard(uc->functor))
		return match_glob(x, u, i, cs, n);
	sub = xmalloc(sizeof(*sub) * (size_t)(n + 1));
	m = filter(cs, n, i, uc->functor, uc->arg, sub);
	if (m) {
		made = match_from(x, u, i + 1, sub, m);
	} else {
		for (k = 0; k < n; k++)
			if (cs[k]->alias && cs[k]->n == i)
				made += build_cand(x, cs[k], u, i);
	}
	free(sub);
	return made;
}

/* ------------------------------------------------------------------ */
/* Candidates for one point                                           */

struct cands {
	struct cand *items;
	int n, cap;
};

static void add_cand(struct cands *cv, const struct cand *c)
{
	if (cv->n == cv->cap) {
		cv->cap = cv->cap ? cv->cap * 2 : 64;
		cv->items = xrealloc(cv->items, sizeof(*cv->items) *
				     (size_t)cv->cap);
	}
	cv->items[cv->n++] = *c;
}

/* The first component of a point, sized up once for the cheap test
 * of every candidate before the real walk.
 */
struct first {
	const char *functor;
	bool any;			/* contains '**' */
	bool glob;			/* contains a wildcard */
};

static void first_of(const struct probe_point *p, struct first *fc)
{
	fc->functor = comp_at(p, 0)->functor;
	fc->any = strstr(fc->functor, "**") != NULL;
	fc->glob = has_wildcard(fc->functor);
}

static bool first_ok(const struct first *fc, const char *f)
{
	return fc->functor == f || fc->any ||
	       (fc->glob && glob_match(fc->functor, f));
}

static void add_aliases(struct cands *cv, const struct first *fc,
			struct stapfile *f)
{
	int i, j;

	for (i = 0; i < f->aliases.n; i++) {
		struct probe *al = vec_get(&f->aliases, i);

		for (j = 0; j < al->alias_names.n; j++) {
			struct cand c = { NULL, al,
					  vec_get(&al->alias_names, j), 0 };

			c.n = c.name->comps.n;
			if (c.n && first_ok(fc, comp_at(c.name, 0)->functor))
				add_cand(cv, &c);
		}
	}
}

static const char *functor_text(struct arena *a, const struct probe_point *p)
{
	struct strbuf sb;
	const char *r;
	int i;

	sb_init(&sb);
	for (i = 0; i < p->comps.n; i++) {
		if (i)
			sb_putc(&sb, '.');
		sb_puts(&sb, comp_at(p, i)->functor);
	}
	r = arena_strdup(a, sb.buf ? sb.buf : "");
	sb_free(&sb);
	return r;
}

static void gather(struct xp *x, const struct probe_point *p,
		   struct cands *cv)
{
	struct session *s = x->el->s;
	const struct vec *pats = &x->el->patterns;
	struct vec *uf = user_files(s);
	struct vec lib = { 0 };
	struct first fc;
	int i;

	first_of(p, &fc);
	for (i = 0; i < pats->n; i++) {
		const struct prov_pattern *pat = vec_get(pats, i);
		struct cand c = { pat, NULL, NULL, pat->n };

		if (first_ok(&fc, pat->comps[0].functor))
			add_cand(cv, &c);
	}
	for (i = 0; i < uf->n; i++)
		add_aliases(cv, &fc, vec_get(uf, i));
	tapset_find_aliases(s, functor_text(s->arena, p), &lib);
	for (i = 0; i < lib.n; i++)
		add_aliases(cv, &fc, vec_get(&lib, i));
}

static void report_no_match(struct xp *x, struct probe_point *p)
{
	struct session *s = x->el->s;
	int k;

	if (!rerror(x->el, p->loc, "no match for probe point '%s'",
		    pp_text(s->arena, p)))
		return;
	for (k = x->nframes - 1; k >= 0; k--)
		diag_note(s, x->frames[k].from->loc, "in the expansion of "
			  "probe alias '%s'", pp_text(s->arena,
						      x->frames[k].name));
}

/* Resolve one probe point, written or coming out of an alias; returns
 * how many derived probes it made.
 */
static int resolve_point(struct xp *x, struct probe_point *p)
{
	struct session *s = x->el->s;
	struct cands cv = { 0 };
	struct cand **cs;
	bool old = x->optional;
	int errors = s->errors, made, i;

	if (!p->comps.n || x->el->too_many)
		return 0;
	if (++x->el->points > MAX_POINTS || s->probes.n >= MAX_POINTS) {
		x->el->too_many = true;
		diag_error(s, x->upoint->loc, "probe point expands to too many "
			   "probes (the limit is %d)", MAX_POINTS);
		return 0;
	}
	x->optional = old || p->optional || p->sufficient;
	gather(x, p, &cv);
	cs = xmalloc(sizeof(*cs) * (size_t)(cv.n + 1));
	for (i = 0; i < cv.n; i++)
		cs[i] = &cv.items[i];
	made = match_from(x, p, 0, cs, cv.n);
	if (!made && !x->quiet && x->pending && s->errors == errors)
		report_unsupported(x, x->pending, x->pending_has_via ?
				   &x->pending_via : NULL);
	if (!made && !x->optional && !x->quiet && s->errors == errors)
		report_no_match(x, p);
	if (!x->quiet)
		x->pending = NULL;
	x->optional = old;
	free(cs);
	free(cv.items);
	return made;
}

static void derive_probe(struct elab *el, struct probe *p)
{
	int i;

	for (i = 0; i < p->points.n; i++) {
		struct xp x;
		struct probe_point *u = vec_get(&p->points, i);
		int made;

		memset(&x, 0, sizeof(x));
		x.el = el;
		x.user = p;
		x.upoint = u;
		made = resolve_point(&x, u);
		if (made && u->sufficient)
			break;
	}
}

static void derive_file(struct elab *el, struct stapfile *f)
{
	int i;

	for (i = 0; i < f->probes.n; i++)
		derive_probe(el, vec_get(&f->probes, i));
}

/* ------------------------------------------------------------------ */
/* The pass                                                           */

static void check_user_global(struct elab *el, struct stapfile *f,
			      struct vardecl *v)
{
	struct vec *uf = user_files(el->s);
	int i, j;

	for (i = 0; i < uf->n; i++) {
		struct stapfile *g = vec_get(uf, i);

		for (j = 0; j < g->globals.n; j++) {
			struct vardecl *w = vec_get(&g->globals, j);

			if (w == v)
				return;
			if (w->name != v->name ||
			    ((w->is_private || v->is_private) && g != f))
				continue;
			if (rerror(el, v->loc, "global '%s' is already "
				   "declared", v->name))
				diag_note(el->s, w->loc, "previous declaration "
					  "of '%s'", w->name);
			return;
		}
	}
}

/* Every user function is kept (elision decides), with its overload
 * chain checked even when nothing calls it.
 */
static void chain_user_function(struct elab *el, struct func *f)
{
	struct vec *uf = user_files(el->s);
	struct vec fv = { 0 };
	bool other = false;
	int i;

	if (f->is_private)
		funcs_in(f->file, f->name, f->params.n, true, &fv, &other,
			 el->s->arena);
	for (i = 0; i < uf->n && !f->is_private; i++)
		funcs_in(vec_get(uf, i), f->name, f->params.n, false, &fv,
			 &other, el->s->arena);
	if (fv.n)
		chain_overloads(el, &fv);
}

static void setup_user(struct elab *el)
{
	struct session *s = el->s;
	struct vec *uf = user_files(s);
	int i, j;

	for (i = 0; i < uf->n; i++) {
		struct stapfile *f = vec_get(uf, i);

		for (j = 0; j < f->globals.n; j++) {
			check_user_global(el, f, vec_get(&f->globals, j));
			use_global(el, vec_get(&f->globals, j), f);
		}
		for (j = 0; j < f->functions.n; j++)
			chain_user_function(el, vec_get(&f->functions, j));
		for (j = 0; j < f->embeds.n; j++)
			vec_push(s->arena, &s->embeds, vec_get(&f->embeds, j));
		for (j = 0; j < f->aliases.n; j++) {
			struct probe *al = vec_get(&f->aliases, j);
			int k;

			for (k = 0; k < al->alias_names.n; k++)
				alias_name_ok(el, vec_get(&al->alias_names, k),
					      false);
		}
	}
}

/* Pulled-in files bring probes, probes and functions bring functions
 * and files: go round until nothing new appears.
 */
static void run_worklists(struct elab *el)
{
	struct session *s = el->s;
	bool progress = true;

	while (progress) {
		progress = false;
		/* --dump-functions lists the functions: the library's
		 * probes, which may need the kernel's, are not derived
		 */
		while (el->next_lib < s->library_files.n) {
			struct stapfile *f = vec_get(&s->library_files,
						     el->next_lib++);

			if (!s->opt.dump_functions)
				derive_file(el, f);
			progress = true;
		}
		while (el->next_func < s->functions.n) {
			resolve_function(el, vec_get(&s->functions,
						     el->next_func++));
			progress = true;
		}
	}
}

/* --dump-functions: every public function of the library is used, so
 * that each is resolved and typed although nothing calls it.
 */
static void use_library_functions(struct elab *el)
{
	struct vec files = { 0 };
	int i, j;

	tapset_all_files(el->s, &files);
	for (i = 0; i < files.n; i++) {
		struct stapfile *f = vec_get(&files, i);

		for (j = 0; j < f->functions.n; j++) {
			struct func *fn = vec_get(&f->functions, j);

			if (!fn->is_private)
				use_func(el, fn);
		}
	}
}

/* The scratch pointers belong to later passes again. */
static void clear_scratch(struct session *s)
{
	int i, j;

	for (i = 0; i < s->globals.n; i++)
		((struct vardecl *)vec_get(&s->globals, i))->priv = NULL;
	for (i = 0; i < s->functions.n; i++) {
		struct func *f = vec_get(&s->functions, i);

		f->priv = NULL;
		for (j = 0; j < f->locals.n; j++)
			((struct vardecl *)vec_get(&f->locals, j))->priv = NULL;
		for (j = 0; j < f->params.n; j++)
			((struct vardecl *)vec_get(&f->params, j))->priv = NULL;
	}
	for (i = 0; i < s->probes.n; i++) {
		struct derived_probe *dp = vec_get(&s->probes, i);

		for (j = 0; j < dp->locals.n; j++)
			((struct vardecl *)vec_get(&dp->locals, j))->priv =
				NULL;
	}
}

int elab_resolve(struct session *s)
{
	struct elab el;
	struct vec *uf = user_files(s);
	int errors = s->errors, i;

	memset(&el, 0, sizeof(el));
	el.s = s;
	el.op_stat = intern("<<<");
	el.op_and = intern("&&");
	provider_patterns(s->arena, &el.patterns);
	setup_user(&el);
	if (s->opt.dump_functions)
		use_library_functions(&el);
	for (i = 0; i < uf->n; i++)
		derive_file(&el, vec_get(uf, i));
	run_worklists(&el);
	clear_scratch(s);
	return s->errors > errors ? -1 : 0;
}

int elaborate(struct session *s)
{
	int errors = s->errors;

	diag_queue_begin(s);
	if (elab_resolve(s) < 0 || s->errors > errors) {
		elab_report_held(s);
		return -1;
	}
	if (!s->opt.unoptimized)
		elab_elide(s);
	elab_report_held(s);
	if (s->errors > errors)
		return -1;
	if (elab_types(s) < 0 || s->errors > errors)
		return -1;
	if (elab_check(s) < 0 || s->errors > errors)
		return -1;
	return 0;
}
