/* elab.h - pass 2: elaboration.  Resolves symbols against the user's
 * script and the tapset library (pulled in on demand), expands probe
 * aliases and wildcards through the providers, infers types, checks
 * the semantic rules and elides unused code.
 */
#ifndef TAPIR_ELAB_H
#define TAPIR_ELAB_H

#include "ast.h"

struct provider;

/* A probe as it will run: one resolved probe point, with the bodies of
 * every alias on the way (prologues before, epilogues after the user's
 * body) merged into one block.
 */
struct derived_probe {
	struct probe *orig;		/* the probe the user wrote */
	struct probe_point *pp;		/* fully expanded, concrete point */
	struct vec alias_chain;		/* struct probe_point * as written,
					 * user point first, then each alias
					 * point it went through */
	const struct provider *prov;
	struct stmt *body;		/* merged body (a fresh ST_BLOCK) */
	struct expr *cond;		/* ANDed if() conditions, or NULL */
	struct vec locals;		/* struct vardecl * */
	const char *name;		/* canonical point text, e.g. "begin" */
	const char *alias_name;		/* the alias the written point
					 * matched, with its suffix
					 * ("syscall.read"), or NULL */
	int index;
	void *priv;			/* provider data */
	struct vec entry_exprs;		/* EX_ENTRY nodes saved at entry,
					 * in slot order (.return probes) */
	bool returns;			/* a return probe: its provider's
					 * build says so, and @entry is
					 * valid in it (the one rule) */
	/* analyze.c, between elaboration and emission (analyze.h) */
	unsigned char *locks;		/* per global, in s->globals order:
					 * enum lock_mode */
	int nlocks;			/* globals it takes a lock of */
	bool lean;			/* handler runs without the context */
	const char *not_lean;		/* why not: a phrase, or NULL */
	struct loc not_lean_loc;	/* where (line 0: the probe) */
	bool lockfree;			/* takes no lock: its only global is
					 * a scalar counter it only adds to */
	int depth;			/* deepest chain of calls from it */
	bool recursive;			/* a chain from it recurses */
	bool may_print;			/* can write to the print buffer */
	bool bounded;			/* no loop, no recursion: cost per hit
					 * is bounded */
	const char *not_shareable;	/* why its handler is never shared
					 * with another's, or NULL */
};

/* Entry point of pass 2: 0 on success, -1 after reporting errors. */
int elaborate(struct session *s);

/* Sub-steps, each over the whole session. */
int elab_resolve(struct session *s);	/* symbols, tapsets, aliases */
int elab_types(struct session *s);	/* inference to a fixed point */
int elab_check(struct session *s);	/* semantic rules */
void elab_elide(struct session *s);	/* unused code, unless -u */

/* -p2 output: globals, functions and probes with their types. */
void print_pass2(struct strbuf *sb, struct session *s);

/* tapset.c: the library on the search path, indexed by a cheap scan
 * of each file and parsed only when something it defines is needed.
 */
struct tapset_index *tapset_index_build(struct session *s);
/* Files defining a function, a global, or aliases matching a pattern.
 * Each returns the parsed files (parsing on first use) in a vec.
 */
void tapset_find_function(struct session *s, const char *name,
			  struct vec *out);
void tapset_find_global(struct session *s, const char *name,
			struct vec *out);
void tapset_find_aliases(struct session *s, const char *pattern,
			 struct vec *out);
/* Every file of the library, parsed, in search order (--dump-*). */
void tapset_all_files(struct session *s, struct vec *out);

/* Tree walking shared by the pass-2 steps (elide.c).  A callback runs
 * before the node's children and returns false to skip them; NULL
 * children (the '*' of a slice) are never passed.
 */
struct elab_walk {
	bool (*expr)(struct elab_walk *w, struct expr *e);
	bool (*stmt)(struct elab_walk *w, struct stmt *st);
	void *arg;
};

void elab_walk_expr(struct elab_walk *w, struct expr *e);
void elab_walk_stmt(struct elab_walk *w, struct stmt *st);

/* Where an expression begins ("x" of "x + 1", whose loc is the '+'):
 * messages about a whole expression point there.
 */
struct loc elab_expr_start(const struct expr *e);

/* Call fn for each global that embedded code names in a
 * "pragma:KIND:NAME" comment (KIND is read or write).
 */
void elab_pragma_globals(struct session *s, const char *code,
			 const char *kind,
			 void (*fn)(struct vardecl *v, void *arg), void *arg);

/* The value "-G name=value" gives global g (the last one), or NULL. */
const char *elab_global_setting(struct session *s, const struct vardecl *g);

/* Recompute vardecl used/read/written and func used for what the
 * session keeps (elide.c); elab_check calls it last so that codegen
 * sees them with or without -u.
 */
void elab_mark_usage(struct session *s);

#endif
