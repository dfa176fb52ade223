/* ast.c - constructors for syntax-tree nodes and type names.
 * All nodes are arena-allocated and zeroed.
 */
#include "ast.h"

const char *type_name(enum type t)
{
	switch (t) {
	case TY_LONG:
		return "long";
	case TY_STRING:
		return "string";
	case TY_STATS:
		return "stats";
	default:
		return "unknown";
	}
}

struct expr *expr_new(struct arena *a, enum expr_kind k, struct loc loc)
{
	struct expr *e = arena_alloc(a, sizeof(*e));

	e->kind = k;
	e->loc = loc;
	return e;
}

struct stmt *stmt_new(struct arena *a, enum stmt_kind k, struct loc loc)
{
	struct stmt *s = arena_alloc(a, sizeof(*s));

	s->kind = k;
	s->loc = loc;
	return s;
}

struct vardecl *vardecl_new(struct arena *a, const char *name,
			    struct loc loc)
{
	struct vardecl *v = arena_alloc(a, sizeof(*v));

	v->name = name;
	v->loc = loc;
	v->arity = -1;
	return v;
}
