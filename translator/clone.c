/* clone.c - deep copies of expressions, statements and probe points.
 * Every vec and child node is duplicated; interned strings and source
 * locations are shared, since they never change.
 */
#include "clone.h"

#include <string.h>

static void clone_expr_vec(struct arena *a, struct vec *dst,
			   const struct vec *src)
{
	int i;

	memset(dst, 0, sizeof(*dst));
	for (i = 0; i < src->n; i++)
		vec_push(a, dst, clone_expr(a, vec_get(src, i)));
}

static void clone_tcomps(struct arena *a, struct vec *dst,
			 const struct vec *src)
{
	int i;

	memset(dst, 0, sizeof(*dst));
	for (i = 0; i < src->n; i++) {
		const struct tcomp *tc = vec_get(src, i);
		struct tcomp *n = arena_alloc(a, sizeof(*n));

		*n = *tc;
		n->index = clone_expr(a, tc->index);
		vec_push(a, dst, n);
	}
}

struct expr *clone_expr(struct arena *a, const struct expr *e)
{
	struct expr *n;

	if (!e)
		return NULL;
	n = arena_alloc(a, sizeof(*n));
	*n = *e;
	n->a = clone_expr(a, e->a);
	n->b = clone_expr(a, e->b);
	n->c = clone_expr(a, e->c);
	clone_expr_vec(a, &n->args, &e->args);
	clone_tcomps(a, &n->comps, &e->comps);
	/* a fresh copy has not been resolved yet */
	n->var = NULL;
	n->func = NULL;
	n->type = TY_UNKNOWN;
	return n;
}

struct stmt *clone_stmt(struct arena *a, const struct stmt *s)
{
	struct stmt *n;
	int i;

	if (!s)
		return NULL;
	n = arena_alloc(a, sizeof(*n));
	*n = *s;
	memset(&n->stmts, 0, sizeof(n->stmts));
	for (i = 0; i < s->stmts.n; i++)
		vec_push(a, &n->stmts, clone_stmt(a, vec_get(&s->stmts, i)));
	n->expr = clone_expr(a, s->expr);
	n->init = clone_expr(a, s->init);
	n->incr = clone_expr(a, s->incr);
	n->body = clone_stmt(a, s->body);
	n->els = clone_stmt(a, s->els);
	n->catch_var = clone_expr(a, s->catch_var);
	clone_expr_vec(a, &n->keys, &s->keys);
	n->value = clone_expr(a, s->value);
	n->base = clone_expr(a, s->base);
	clone_expr_vec(a, &n->slice, &s->slice);
	n->limit = clone_expr(a, s->limit);
	return n;
}

struct pp_comp *clone_pp_comp(struct arena *a, const struct pp_comp *c)
{
	struct pp_comp *n = arena_alloc(a, sizeof(*n));

	*n = *c;
	n->arg = clone_expr(a, c->arg);
	return n;
}

struct probe_point *clone_probe_point(struct arena *a,
				      const struct probe_point *pp)
{
	struct probe_point *n;
	int i;

	if (!pp)
		return NULL;
	n = arena_alloc(a, sizeof(*n));
	*n = *pp;
	memset(&n->comps, 0, sizeof(n->comps));
	for (i = 0; i < pp->comps.n; i++)
		vec_push(a, &n->comps,
			 clone_pp_comp(a, vec_get(&pp->comps, i)));
	n->cond = clone_expr(a, pp->cond);
	return n;
}
