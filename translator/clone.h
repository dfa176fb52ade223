/* clone.h - deep copies of syntax trees.  A body shared by several
 * derived probes is copied for each, so that every copy carries its own
 * pass-2 resolution (variables, functions, types).
 */
#ifndef TAPIR_CLONE_H
#define TAPIR_CLONE_H

#include "ast.h"

/* Copies with the pass-2 fields (var, func, type) cleared.  NULL in,
 * NULL out.
 */
struct expr *clone_expr(struct arena *a, const struct expr *e);
struct stmt *clone_stmt(struct arena *a, const struct stmt *s);
struct probe_point *clone_probe_point(struct arena *a,
				      const struct probe_point *pp);
struct pp_comp *clone_pp_comp(struct arena *a, const struct pp_comp *c);

#endif
