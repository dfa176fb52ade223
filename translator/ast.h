/* ast.h - the script's syntax tree, shared by every pass.
 * Nodes live in the session arena; identifiers are interned strings.
 * Pass 1 fills the syntax; pass 2 fills the resolution fields (ref,
 * type) and builds derived probes.
 */
#ifndef TAPIR_AST_H
#define TAPIR_AST_H

#include "diag.h"

enum type {
	TY_UNKNOWN,
	TY_LONG,
	TY_STRING,
	TY_STATS,
};

const char *type_name(enum type t);

#define MAX_INDEXES 9

/* A variable: local, parameter or global (scalar or array). */
struct vardecl {
	const char *name;
	struct loc loc;
	enum type type;			/* value type */
	int arity;			/* -1 unknown, 0 scalar, N array keys */
	enum type index_types[MAX_INDEXES];
	bool is_global;
	bool is_private;
	bool wrap;			/* global w%[N] */
	bool type_declared;		/* function param with :type */
	long maxsize;			/* global a[N]; 0 = default */
	struct expr *init;		/* literal initialiser, globals only */
	struct stapfile *file;		/* declaring file (globals) */
	bool used;			/* referenced after elaboration */
	bool written;			/* assigned somewhere */
	bool read;			/* read somewhere */
	bool from_tapset;
	/* pass 2, locals: the target type of the pointers assigned to it,
	 * for p->member (NULL if none is typed or they disagree)
	 */
	const struct ktype *ktype;
	bool ktype_user;		/* a pointer into user space */
	bool ktype_mixed;		/* assigned pointers of two types */
	int index;			/* position in its table, for codegen */
	void *priv;			/* per-pass scratch */
	/* globals, analyze.c */
	bool counter;			/* only added to: per-CPU sums */
	bool final_print;		/* written only: printed at the end */
	const struct expr *stat_hist;	/* statistics: the histogram drawn
					 * (EX_HIST), or NULL */
	const struct expr *stat_variance; /* an @variance of it, or NULL */
};

enum expr_kind {
	EX_NUM,		/* num */
	EX_STR,		/* str: C-escaped text, without quotes */
	EX_SYM,		/* name -> var (local or global) */
	EX_TARGET,	/* $var, @cast, @var with member chain */
	EX_INDEX,	/* base[args...]: array element or hist bucket */
	EX_CALL,	/* name(args...) -> func */
	EX_PRINT,	/* print family: name, args; fmt for printf forms */
	EX_UNARY,	/* op a: - + ! ~ */
	EX_INCDEC,	/* ++a, a++, --a, a-- (op, postfix) */
	EX_BINARY,	/* a op b: + - * / % << >> & | ^ */
	EX_LOGICAL,	/* a && b, a || b */
	EX_COMPARE,	/* a op b: < > <= >= == != */
	EX_REGEX,	/* a =~ "re", a !~ "re" */
	EX_CONCAT,	/* a . b */
	EX_TERNARY,	/* a ? b : c */
	EX_ASSIGN,	/* a op b: = += ... .= <<< */
	EX_IN,		/* [args] in base (NULL arg = '*') */
	EX_STAT,	/* @count(a) ... @variance(a[, shift]) */
	EX_HIST,	/* @hist_linear(a, L, H, W), @hist_log(a) */
	EX_DEFINED,	/* @defined(a) */
	EX_ENTRY,	/* @entry(a) */
	EX_PERF,	/* @perf("name") */
	EX_CONST,	/* @const("NAME") */
	EX_EMBEDDED,	/* %{ code %} used as an expression */
};

/* How an EX_TARGET starts. */
enum target_base {
	TB_VAR,		/* $name, $$vars, $$parms, $$locals, $$return */
	TB_CAST,	/* @cast(operand, "type"[, "module"]) */
	TB_ATVAR,	/* @var("name[@cu]"[, "module"]) */
	TB_AUTOCAST,	/* operand->member on a script value (e->a) that
			 * holds a typed pointer: p = $file; p->f_path */
};

enum tcomp_kind {
	TC_FIELD,	/* ->name */
	TC_INDEX,	/* [expr] */
};

struct tcomp {
	enum tcomp_kind kind;
	const char *name;
	struct expr *index;
	struct loc loc;
};

enum stat_op {
	STAT_COUNT,
	STAT_SUM,
	STAT_MIN,
	STAT_MAX,
	STAT_AVG,
	STAT_VARIANCE,
};

enum hist_kind {
	HIST_LINEAR,
	HIST_LOG,
};

struct tref;
struct ktype;

struct expr {
	enum expr_kind kind;
	struct loc loc;
	const char *tok;		/* the operator/keyword text at loc */
	enum type type;			/* filled by pass 2 */
	union {
		int64_t num;		/* EX_NUM */
		const char *str;	/* EX_STR, EX_PERF, EX_CONST */
		const char *code;	/* EX_EMBEDDED */
	};
	const char *name;		/* EX_SYM, EX_CALL, EX_PRINT, EX_TARGET */
	const char *op;			/* operators (interned text) */
	bool postfix;			/* EX_INCDEC */
	struct expr *a, *b, *c;		/* operands */
	struct vec args;		/* EX_CALL/EX_PRINT/EX_INDEX/EX_IN/EX_HIST */
	/* EX_PRINT */
	const char *fmt;		/* printf-style format, NULL otherwise */
	/* EX_STAT / EX_HIST */
	enum stat_op stat;
	enum hist_kind hist;
	/* EX_TARGET */
	enum target_base tbase;
	const char *cast_type;		/* TB_CAST */
	const char *module;		/* TB_CAST, TB_ATVAR (may be NULL) */
	struct vec comps;		/* struct tcomp * */
	bool addressof;			/* &$x... */
	int pretty;			/* 0, 1 ($x$) or 2 ($x$$) */
	bool embedded_string;		/* EX_EMBEDDED with string marker */
	bool parenthesized;		/* written in '(' ')' */
	/* pass 2 */
	struct tref *tref;		/* EX_TARGET: how to read it (target.h) */
	struct vardecl *var;		/* EX_SYM, and EX_INDEX/EX_IN base */
	struct func *func;		/* EX_CALL */
	bool is_literal_fold;		/* produced by constant folding */
	struct diag_hold *held;		/* EX_TARGET: its resolution's errors,
					 * shown if it survives elision */
};

enum stmt_kind {
	ST_BLOCK,	/* { stmts } */
	ST_EXPR,	/* expr */
	ST_NULL,	/* ; */
	ST_IF,		/* if (cond) then [else els] */
	ST_WHILE,	/* while (cond) body */
	ST_FOR,		/* for (init; cond; incr) body */
	ST_FOREACH,	/* foreach (...) body */
	ST_BREAK,
	ST_CONTINUE,
	ST_RETURN,	/* return [value] */
	ST_NEXT,
	ST_DELETE,	/* delete expr */
	ST_TRY,		/* try body catch [(var)] handler */
};

struct stmt {
	enum stmt_kind kind;
	struct loc loc;
	struct vec stmts;		/* ST_BLOCK */
	struct expr *expr;		/* EXPR, RETURN, DELETE, IF/WHILE/FOR cond */
	struct expr *init, *incr;	/* ST_FOR (either may be NULL) */
	struct stmt *body;		/* loops, if-then, try body */
	struct stmt *els;		/* if-else, catch handler */
	struct expr *catch_var;		/* ST_TRY: EX_SYM or NULL */
	/* ST_FOREACH */
	struct vec keys;		/* EX_SYM key variables */
	struct expr *value;		/* EX_SYM bound to the value, or NULL */
	struct expr *base;		/* the array (EX_SYM) or EX_HIST */
	struct vec slice;		/* index exprs, NULL = '*'; empty = none */
	int sort_column;		/* 0 none, -1 value, 1..N key N */
	int sort_dir;			/* +1 ascending, -1 descending */
	enum stat_op sort_agg;		/* which stat value sorts stat arrays */
	bool sort_agg_set;
	struct expr *limit;
};

/* One component of a probe point: functor or functor(arg). */
struct pp_comp {
	const char *functor;		/* may contain wildcards */
	struct expr *arg;		/* EX_NUM or EX_STR, or NULL */
	struct loc loc;
};

struct probe_point {
	struct vec comps;		/* struct pp_comp * */
	bool optional;			/* ? */
	bool sufficient;		/* ! */
	struct expr *cond;		/* if (cond), or NULL */
	struct loc loc;
	void *prov_data;		/* from a provider's expand to build */
};

/* A probe or a probe alias as written. */
struct probe {
	struct vec points;		/* struct probe_point * */
	struct vec alias_names;		/* aliases: the names being defined */
	bool is_alias;
	bool epilogue;			/* alias with += */
	struct stmt *body;
	struct loc loc;
	struct stapfile *file;
	bool privileged;		/* from a file that may use embedded C */
};

struct func {
	const char *name;
	struct loc loc;
	struct vec params;		/* struct vardecl * */
	enum type type;			/* return type */
	bool type_declared;
	long priority;			/* 0 user default, 1 tapset default */
	bool priority_set;
	struct stmt *body;		/* script body, or NULL for embedded */
	const char *code;		/* embedded C body */
	bool is_private;
	struct stapfile *file;
	/* pass 2 */
	struct vec locals;		/* struct vardecl * (params excluded) */
	struct func *next_overload;	/* same arity, lower priority */
	int overload_pos;		/* place in its chain, 0 = head */
	bool used;
	bool has_next;			/* body uses 'next' */
	bool pure, stable, unprivileged, myproc_unprivileged, guru_only;
	bool unmangled, unmodified_fnargs, returns_string_marker;
	bool leaf;			/* analyze.c: calls no script function */
	int index;
	void *priv;
};

struct embedded {
	const char *code;
	struct loc loc;
	struct stapfile *file;
};

/* A macro defined with @define. */
struct macro {
	const char *name;
	struct vec params;		/* interned names */
	struct vec body;		/* struct token * */
	struct loc loc;
	struct srcfile *file;
};

/* One parsed file: the user's script, an -E script or a tapset file. */
struct stapfile {
	struct srcfile *src;
	struct vec probes;		/* struct probe * (not aliases) */
	struct vec aliases;		/* struct probe * with is_alias */
	struct vec globals;		/* struct vardecl * */
	struct vec functions;		/* struct func * */
	struct vec embeds;		/* struct embedded * */
	struct vec macros;		/* struct macro * (file-local) */
	struct vec order;		/* top-level items in source order, for -p1 */
	bool is_tapset;
	bool privileged;		/* tapset or guru: embedded C allowed */
	bool elaborated;
};

/* Tagged top-level item for printing in source order. */
enum item_kind {
	ITEM_PROBE,
	ITEM_ALIAS,
	ITEM_GLOBAL,
	ITEM_FUNCTION,
	ITEM_EMBEDDED,
};

struct item {
	enum item_kind kind;
	void *ptr;
};

/* Constructors (ast.c). */
struct expr *expr_new(struct arena *a, enum expr_kind k, struct loc loc);
struct stmt *stmt_new(struct arena *a, enum stmt_kind k, struct loc loc);
struct vardecl *vardecl_new(struct arena *a, const char *name,
			    struct loc loc);

/* Printing (print.c): canonical script text that parses back to the
 * same tree.
 */
void print_file(struct strbuf *sb, const struct stapfile *f);
void print_expr(struct strbuf *sb, const struct expr *e);
void print_stmt(struct strbuf *sb, const struct stmt *s, int depth);
void print_probe_point(struct strbuf *sb, const struct probe_point *pp);
void print_string_literal(struct strbuf *sb, const char *s);

#endif
