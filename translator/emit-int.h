/* emit-int.h - what the files of pass 3 share (emit*.c): the
 * emitter's state, the body being written, and the generators one file
 * calls in another.  Private to the emitter; providers see emit.h only.
 */
#ifndef TAPIR_EMIT_INT_H
#define TAPIR_EMIT_INT_H

#include "emit.h"
#include "limit.h"

/* The body being generated: a probe handler or a script function. */
struct body {
	const char *cname;		/* C function name */
	const char *locals_type;	/* struct name of its locals */
	struct vec *locals;		/* struct vardecl * */
	struct vec *params;		/* functions only */
	struct func *func;		/* NULL for probes */
	struct strbuf text;		/* the C function */
	int tmp_next, tmp_floor, tmp_max;
	int label_seq;
	const char *err_label;
	bool uses_out;
	bool merged;			/* a probe's handler another one's
					 * runs for it: emitted as nothing */
	bool uses_locals;		/* reads or writes its frame, l */
	bool maybe_locals;		/* ... its embedded C may not */
	size_t locals_at;		/* where l is declared, when it is */
	const struct stmt *tail;	/* a return that ends the function */
	struct vec iterating;		/* stat arrays of enclosing foreach */
};

struct emitter {
	struct session *s;
	const char *module;
	struct strbuf decls, start, stop;
	struct vec bodies;		/* struct body * */
	struct vec regexes;		/* const char * patterns */
	struct vec begins;		/* derived probes by kind */
	struct vec ends;
	struct vec errors;
	struct body *b;			/* current body */
	int depth;			/* indentation */
	int nerrors;
	struct limits lim;		/* -D limits, checked (limit.c) */
	long long nesting;		/* MAXNESTING the module gets */
	int actions;			/* statements run, not yet charged */
	bool lean;			/* generating a lean handler copy */
	bool borrow;			/* the call next generated may give
					 * its callee's string slot itself */
	const struct derived_probe *dp;	/* the probe being generated */
	int tvar;			/* target temporaries, numbered */
	bool uread;			/* target reads are of user memory */
	struct strbuf entry_decls;	/* .return entry handlers' data */
	struct vec groups;		/* struct group *: emit_group families */
	struct strbuf *gstart, *gstop;	/* a family's emit_group output */
	struct strbuf gstarts, gfail, gstops;
	struct vec shared;		/* struct shared *: handler keys */
	struct htab share_index;	/* key -> struct shared * */
	int *runs;			/* per probe: whose handler it runs */
	struct strbuf lit_tables;	/* literals of shared handlers */
	const char **lits_of;		/* per probe: its literal table */
};

static inline bool is_stat_var(const struct vardecl *v)
{
	return v->type == TY_STATS;
}

static inline bool is_array(const struct vardecl *v)
{
	return v->arity > 0;
}

/* emit.c: the body being written, and what run-time errors name */
/* A line of the current body at the current depth; a preprocessor
 * line starts in the first column.
 */
void line(struct emitter *em, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "WHAT at FILE:LINE:COL", the place a run-time error names. */
const char *at_loc(struct emitter *em, const char *what, struct loc loc);
/* "identifier 'x' at file:line:col", as run-time errors quote it. */
const char *where(struct emitter *em, const struct expr *e);
/* A fresh string temporary of the current body. */
const char *new_tmp(struct emitter *em);
/* The jump that abandons the handler (or enters the catch block). */
const char *fail_jump(struct emitter *em);
/* The run-time error msg at e, then that jump. */
void raise_at(struct emitter *em, struct strbuf *o, const char *msg,
	      const struct expr *e);
/* The C of a variable: a global's name, else its slot in the frame. */
const char *var_cname(struct emitter *em, const struct vardecl *v);
/* Whether dp's handler takes locks on globals. */
bool takes_locks(const struct derived_probe *dp);
/* Whether a handler reads the last =~ match (matched(), ngroups()). */
bool uses_submatch(const struct emitter *em);

/* emit-expr.c: expressions, writes, calls, prints */
void gen_expr(struct emitter *em, struct strbuf *o, const struct expr *e);
/* A number as C: an int64_t literal. */
void gen_num(struct strbuf *o, int64_t v);
/* e as an operand: its plain text when it has one, else its code;
 * plain_text is that text, NULL when e is not plain (when evaluating
 * it could fail or change anything).
 */
void gen_operand(struct emitter *em, struct strbuf *o, const struct expr *e);
const char *plain_text(struct emitter *em, const struct expr *e);
/* x OP y on C operands already evaluated, for the operators of op=. */
void gen_arith(struct strbuf *o, const char *op, const char *x,
	       const char *y);
bool is_divide(const char *op);
/* The run-time error of y == 0 as the divisor of near. */
void gen_zero_check(struct emitter *em, struct strbuf *o,
		    const char *y, const struct expr *near);
/* The map of an array expression, and keys as STP_KEYS(...) with '*'
 * as a wildcard (gen_wild: the mask of those, has_wild: any).
 */
const char *map_of(struct emitter *em, const struct expr *base);
void gen_keys(struct emitter *em, struct strbuf *o, const struct vec *args);
void gen_wild(struct strbuf *o, const struct vec *args);
bool has_wild(const struct vec *args);
/* A string in a temporary of its own or a literal. */
bool str_owned(const struct expr *e);
/* A write to an array element, as a statement expression, or as a
 * block when its value is not used.
 */
bool is_elem_write(const struct expr *e);
void gen_elem_write(struct emitter *em, struct strbuf *o,
		    const struct expr *e, bool used);
/* A long global only ever added to (analyze.c): per CPU when an array;
 * gen_counter_add writes an add to one as a statement (false when e
 * is not such an add).
 */
bool is_counter(const struct vardecl *v);
bool gen_counter_add(struct emitter *em, const struct expr *e);
/* The C name of function f without its "stp_fn_" prefix. */
const char *fn_id(struct emitter *em, const struct func *f);
/* A call as an expression when value, else for its effect, its
 * result then stored straight into the variable dest (or dropped when
 * NULL); the print family alike.
 */
void gen_call_as(struct emitter *em, struct strbuf *o,
		 const struct expr *e, bool value, const char *dest);
void gen_print_as(struct emitter *em, struct strbuf *o,
		  const struct expr *e, bool value);

/* emit-stmt.c: statements */
/* A statement at the current depth, a statement per line. */
void stmt_line(struct emitter *em, const char *text);
/* The C of a condition: a plain comparison as it is. */
const char *cond_text(struct emitter *em, const struct expr *e);
/* The statements of a block, or a single statement, in the body. */
void gen_block_body(struct emitter *em, const struct stmt *st);

/* emit-decl.c: the module's declarations */
/* Each global's C name, g_NAME (g_NAME_I when two clash), in v->priv. */
void name_globals(struct emitter *em);
/* The locals struct of every body and the unions of them. */
void gen_locals_unions(struct emitter *em, struct strbuf *o);
void gen_global_decls(struct emitter *em, struct strbuf *o);
void gen_prototypes(struct emitter *em, struct strbuf *o);
/* stp_globals_init(), which allocates the maps, statistics and
 * regular expressions, and stp_globals_free().
 */
void gen_globals_init(struct emitter *em, struct strbuf *o);

/* emit-final.c: the printing at the end of the run */
/* Whether the end of the run prints anything of its own: then
 * gen_final_print writes stp_final_print(), which stp_probes_stop
 * calls after the end probes.
 */
bool has_final_print(const struct emitter *em);
void gen_final_print(struct emitter *em, struct strbuf *o);

/* emit-target.c: target variables */
/* A register, $return, a tracepoint argument or a constant: read as it
 * is, it cannot fail; target_simple_text is its C, an int64_t.
 */
bool target_simple(const struct expr *e);
const char *target_simple_text(struct emitter *em, const struct expr *e);
/* A fault-safe read of the target expression e. */
void gen_target(struct emitter *em, struct strbuf *o, const struct expr *e);
/* lv = value_var, or lv's own OP= / ++ (false when not a target in
 * memory, which the caller then writes as a load and a store).
 */
void gen_target_store(struct emitter *em, struct strbuf *o,
		      const struct expr *lv, const char *value_var);
bool gen_target_rmw(struct emitter *em, struct strbuf *o,
		    const struct expr *e);
/* A construct pass 3 cannot write yet: an error, and "0" for C. */
void gen_target_unsupported(struct emitter *em, struct strbuf *o,
			    const struct expr *e, const char *what);
/* Where dp's values saved at entry are, from the context c; a value
 * saved there, read in the .return handler.
 */
const char *entry_data(const struct derived_probe *dp);
void gen_entry_slot(struct emitter *em, struct strbuf *o,
		    const struct expr *e);

#endif
