/* parse.c - pass 1: recursive-descent parser from preprocessed tokens to
 * a struct stapfile.  Each function carries the grammar rule it parses.
 * A syntax error unwinds to the top level, which resynchronises at the
 * next declaration, so every error of a file is reported in one run.
 */
#define _GNU_SOURCE
#include "parse.h"
#include "format.h"
#include "lexer.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARSE_DEPTH 400

struct parser {
	struct session *s;
	struct arena *a;
	struct lexer *lx;
	struct stapfile *file;
	const struct token *prev;	/* last consumed token */
	jmp_buf recover;
	int depth;
	int loop_depth;
	bool in_function;
	bool in_delete;			/* '*' allowed in an array index */
};

static struct expr *parse_expr(struct parser *p);
static struct stmt *parse_stmt(struct parser *p);
static struct stmt *parse_block(struct parser *p);

static const struct token *peek(struct parser *p)
{
	return lex_peek(p->lx, 0);
}

static const struct token *peek2(struct parser *p)
{
	return lex_peek(p->lx, 1);
}

static const struct token *next(struct parser *p)
{
	p->prev = lex_next(p->lx);
	return p->prev;
}

static bool is(const struct token *t, const char *text)
{
	return tok_is(t, text);
}

static bool accept(struct parser *p, const char *text)
{
	if (is(peek(p), text)) {
		next(p);
		return true;
	}
	return false;
}

static const char *tok_desc(struct parser *p, const struct token *t)
{
	switch (t->kind) {
	case TK_EOF:
		return "end of file";
	case TK_STRING:
		return arena_printf(p->a, "string \"%.40s\"", t->text);
	case TK_NUMBER:
		return arena_printf(p->a, "number %s", t->text);
	case TK_EMBEDDED:
		return "embedded code";
	case TK_IDENT:
		if (is_keyword(t->text))
			return arena_printf(p->a, "keyword '%s'", t->text);
		return arena_printf(p->a, "identifier '%s'", t->text);
	default:
		return arena_printf(p->a, "'%s'", t->text);
	}
}

static __attribute__((noreturn, format(printf, 3, 4)))
void fail(struct parser *p, const struct token *t, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (!lex_failed(p->lx)) {
		va_start(ap, fmt);
		msg = arena_vprintf(p->a, fmt, ap);
		va_end(ap);
		diag_error(p->s, t->loc, "%s", msg);
	}
	longjmp(p->recover, 1);
}

static const struct token *expect(struct parser *p, const char *text)
{
	const struct token *t = peek(p);

	if (!is(t, text))
		fail(p, t, "expected '%s', found %s", text, tok_desc(p, t));
	return next(p);
}

static const struct token *expect_ident(struct parser *p, const char *what)
{
	const struct token *t = peek(p);

	if (t->kind != TK_IDENT || t->text[0] == '@' || t->text[0] == '$' ||
	    is_keyword(t->text))
		fail(p, t, "expected %s, found %s", what, tok_desc(p, t));
	return next(p);
}

static void enter(struct parser *p)
{
	if (++p->depth > MAX_PARSE_DEPTH)
		fail(p, peek(p), "script nested too deeply");
}

static void leave(struct parser *p)
{
	p->depth--;
}

static bool privileged(struct parser *p)
{
	return p->file->privileged;
}

static void check_embedded_allowed(struct parser *p, const struct token *t)
{
	if (!privileged(p))
		diag_error(p->s, t->loc, "embedded code in unprivileged "
			   "script; need stap -g");
}

/* ------------------------------------------------------------------ */
/* Expressions                                                        */

static struct expr *new_expr(struct parser *p, enum expr_kind k,
			     const struct token *t)
{
	struct expr *e = expr_new(p->a, k, t->loc);

	e->tok = t->text;
	return e;
}

static bool is_lvalue(const struct expr *e)
{
	return e->kind == EX_SYM || e->kind == EX_TARGET ||
	       (e->kind == EX_INDEX && e->a->kind == EX_SYM);
}

static void need_lvalue(struct parser *p, const struct token *op,
			const struct expr *e)
{
	if (!is_lvalue(e))
		fail(p, op, "the operand of '%s' must be a variable, an array "
		     "element or a target variable", op->text);
}

/* Index list: expr {',' expr}, with '*' allowed when slices are.
 * Argument lists use it too; only array indexes are limited to 9.
 */
static void parse_list(struct parser *p, struct vec *out, bool allow_star,
		       const char *close, int max)
{
	do {
		if (allow_star && is(peek(p), "*") &&
		    (is(peek2(p), ",") || is(peek2(p), close))) {
			next(p);
			vec_push(p->a, out, NULL);
		} else {
			vec_push(p->a, out, parse_expr(p));
		}
	} while (accept(p, ","));
	if (out->n > max)
		fail(p, peek(p), "too many indexes (at most %d)", max);
	expect(p, close);
}

static void parse_index_list(struct parser *p, struct vec *out,
			     bool allow_star, const char *close)
{
	parse_list(p, out, allow_star, close, MAX_INDEXES);
}

static void parse_arg_list(struct parser *p, struct vec *out)
{
	parse_list(p, out, false, ")", 1 << 20);
}

/* Strip trailing '$' pretty-print markers from an identifier. */
static const char *strip_pretty(struct parser *p, const char *name,
				int *pretty)
{
	size_t n = strlen(name);
	int k = 0;

	while (n > 1 && name[n - 1] == '$' && k < 2) {
		n--;
		k++;
	}
	/* "$$vars" keeps its leading "$$" */
	if (n <= 2 && name[0] == '$' && name[1] == '$') {
		n = strlen(name);
		k = 0;
	}
	*pretty = k;
	return intern(arena_strndup(p->a, name, n));
}

/* tcomps: { '->' ident | '[' expr ']' } [ '$' | '$$' ] */
static void parse_target_comps(struct parser *p, struct expr *e)
{
	for (;;) {
		const struct token *t = peek(p);

		if (is(t, "->")) {
			struct tcomp *c = arena_alloc(p->a, sizeof(*c));
			const struct token *id;
			int pretty;

			next(p);
			id = peek(p);
			if (id->kind != TK_IDENT || id->text[0] == '@')
				fail(p, id, "expected a member name after "
				     "'->', found %s", tok_desc(p, id));
			next(p);
			c->kind = TC_FIELD;
			c->loc = id->loc;
			c->name = strip_pretty(p, id->text, &pretty);
			vec_push(p->a, &e->comps, c);
			if (pretty) {
				e->pretty = pretty;
				return;
			}
		} else if (is(t, "[") &&
			   (t->adjacent || e->tbase == TB_AUTOCAST)) {
			struct tcomp *c = arena_alloc(p->a, sizeof(*c));

			next(p);
			c->kind = TC_INDEX;
			c->loc = t->loc;
			c->index = parse_expr(p);
			expect(p, "]");
			vec_push(p->a, &e->comps, c);
		} else if (t->kind == TK_IDENT &&
			   (t->adjacent || e->tbase == TB_AUTOCAST) &&
			   (t->text == intern("$") ||
			    t->text == intern("$$"))) {
			next(p);
			e->pretty = (int)strlen(t->text);
			return;
		} else {
			return;
		}
	}
}

/* string-literal */
static const char *parse_string_lit(struct parser *p, const char *what)
{
	const struct token *t = peek(p);

	if (t->kind != TK_STRING)
		fail(p, t, "expected %s (a string literal), found %s", what,
		     tok_desc(p, t));
	next(p);
	return t->text;
}

/* cast: '@cast' '(' expr ',' string [',' string] ')' tcomps */
static struct expr *parse_cast(struct parser *p, const struct token *at)
{
	struct expr *e = new_expr(p, EX_TARGET, at);

	e->tbase = TB_CAST;
	e->name = at->text;
	expect(p, "(");
	e->a = parse_expr(p);
	expect(p, ",");
	e->cast_type = parse_string_lit(p, "a type name");
	if (accept(p, ","))
		e->module = parse_string_lit(p, "a module name");
	expect(p, ")");
	parse_target_comps(p, e);
	return e;
}

/* atvar: '@var' '(' string [',' string] ')' tcomps */
static struct expr *parse_atvar(struct parser *p, const struct token *at)
{
	struct expr *e = new_expr(p, EX_TARGET, at);

	e->tbase = TB_ATVAR;
	expect(p, "(");
	e->name = parse_string_lit(p, "a variable name");
	if (accept(p, ","))
		e->module = parse_string_lit(p, "a module name");
	expect(p, ")");
	parse_target_comps(p, e);
	return e;
}

static bool stat_op_of(const char *name, enum stat_op *op)
{
	static const char *const names[] = { "@count", "@sum", "@min",
					      "@max", "@avg", "@variance" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (name == intern(names[i])) {
			*op = (enum stat_op)i;
			return true;
		}
	return false;
}

/* A signed integer literal, for histogram bounds and shifts. */
static struct expr *parse_int_lit(struct parser *p, const char *what)
{
	const struct token *t = peek(p);
	bool neg = false;
	struct expr *e;

	if (is(t, "-")) {
		neg = true;
		next(p);
		t = peek(p);
	}
	if (t->kind != TK_NUMBER)
		fail(p, t, "expected %s (an integer literal), found %s", what,
		     tok_desc(p, t));
	next(p);
	e = new_expr(p, EX_NUM, t);
	e->num = neg ? (int64_t)(0 - (uint64_t)t->num) : t->num;
	return e;
}

/* stat: '@count' '(' expr ')' | ... | '@variance' '(' expr [',' int] ')'
 * hist: '@hist_linear' '(' expr ',' int ',' int ',' int ')'
 *     | '@hist_log' '(' expr ')'
 */
static struct expr *parse_at_operator(struct parser *p)
{
	const struct token *at = next(p);
	const char *n = at->text;
	struct expr *e;
	enum stat_op op;

	if (n == intern("@cast"))
		return parse_cast(p, at);
	if (n == intern("@var"))
		return parse_atvar(p, at);
	if (stat_op_of(n, &op)) {
		e = new_expr(p, EX_STAT, at);
		e->stat = op;
		expect(p, "(");
		e->a = parse_expr(p);
		if (op == STAT_VARIANCE && accept(p, ","))
			e->b = parse_int_lit(p, "a variance shift");
		expect(p, ")");
		return e;
	}
	if (n == intern("@hist_linear") || n == intern("@hist_log")) {
		e = new_expr(p, EX_HIST, at);
		e->hist = n == intern("@hist_log") ? HIST_LOG : HIST_LINEAR;
		expect(p, "(");
		e->a = parse_expr(p);
		if (e->hist == HIST_LINEAR) {
			expect(p, ",");
			vec_push(p->a, &e->args, parse_int_lit(p, "a low bound"));
			expect(p, ",");
			vec_push(p->a, &e->args,
				 parse_int_lit(p, "a high bound"));
			expect(p, ",");
			vec_push(p->a, &e->args,
				 parse_int_lit(p, "a bucket width"));
		}
		expect(p, ")");
		if (is(peek(p), "[")) {
			struct expr *ix = new_expr(p, EX_INDEX, next(p));

			ix->a = e;
			parse_index_list(p, &ix->args, false, "]");
			if (ix->args.n != 1)
				fail(p, at, "a histogram bucket takes one "
				     "index");
			return ix;
		}
		return e;
	}
	if (n == intern("@defined") || n == intern("@entry")) {
		e = new_expr(p, n == intern("@defined") ? EX_DEFINED : EX_ENTRY,
			     at);
		expect(p, "(");
		e->a = parse_expr(p);
		expect(p, ")");
		return e;
	}
	if (n == intern("@perf") || n == intern("@const")) {
		e = new_expr(p, n == intern("@perf") ? EX_PERF : EX_CONST, at);
		expect(p, "(");
		e->str = parse_string_lit(p, n == intern("@perf") ?
					  "a perf counter name" :
					  "a constant name");
		expect(p, ")");
		if (e->kind == EX_CONST && !privileged(p))
			diag_error(p->s, at->loc, "@const needs guru mode "
				   "(-g) outside the tapset library");
		return e;
	}
	fail(p, at, "unknown @-operator '%s'", n);
}

static const char *const print_names[] = {
	"print", "println", "printd", "printdln", "printf",
	"sprint", "sprintln", "sprintd", "sprintdln", "sprintf",
};

static bool is_print_name(const char *n)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(print_names); i++)
		if (n == intern(print_names[i]))
			return true;
	return false;
}

/* print-call: printname '(' [fmt-or-delim ','] args ')' */
static struct expr *parse_print(struct parser *p, const struct token *id)
{
	struct expr *e = new_expr(p, EX_PRINT, id);
	const char *n = id->text;
	bool is_fmt = n == intern("printf") || n == intern("sprintf");
	bool is_delim = n == intern("printd") || n == intern("printdln") ||
			n == intern("sprintd") || n == intern("sprintdln");
	const struct token *open;

	e->name = n;
	open = expect(p, "(");
	if (is_fmt) {
		const char *bad = NULL;

		e->fmt = parse_string_lit(p, arena_printf(p->a,
					  "the format of %s", n));
		if (fmt_slots(e->fmt, NULL, 0, &bad) < 0)
			fail(p, id, "invalid or missing conversion specifier "
			     "in format at '%s'", bad);
		if (accept(p, ","))
			parse_arg_list(p, &e->args);
		else
			expect(p, ")");
		return e;
	}
	if (is_delim) {
		e->fmt = parse_string_lit(p, arena_printf(p->a,
					  "the delimiter of %s", n));
		expect(p, ",");
	}
	if (!is(peek(p), ")"))
		parse_arg_list(p, &e->args);
	else
		next(p);
	/* two values at least, so that the delimiter is used */
	if (is_delim && e->args.n < 2)
		fail(p, open, "%s needs a delimiter and at least two values",
		     n);
	if (!is_delim && (n == intern("print") || n == intern("sprint")) &&
	    e->args.n < 1)
		fail(p, open, "%s needs at least one argument", n);
	return e;
}

/* ident-expr: ident | ident '(' args ')' | ident '[' index-list ']' */
static struct expr *parse_ident_expr(struct parser *p)
{
	const struct token *id = next(p);
	struct expr *e;

	if (is(peek(p), "(")) {
		if (is_print_name(id->text))
			return parse_print(p, id);
		e = new_expr(p, EX_CALL, id);
		e->name = id->text;
		next(p);
		if (!accept(p, ")"))
			parse_arg_list(p, &e->args);
		return e;
	}
	e = new_expr(p, EX_SYM, id);
	e->name = id->text;
	if (is(peek(p), "[")) {
		struct expr *ix = new_expr(p, EX_INDEX, next(p));

		ix->a = e;
		ix->loc = id->loc;
		ix->tok = id->text;
		parse_index_list(p, &ix->args, p->in_delete, "]");
		return ix;
	}
	return e;
}

/* target: '$' ident tcomps */
static struct expr *parse_target(struct parser *p)
{
	const struct token *t = next(p);
	struct expr *e = new_expr(p, EX_TARGET, t);

	e->tbase = TB_VAR;
	e->name = strip_pretty(p, t->text, &e->pretty);
	if (e->name == intern("$") || e->name == intern("$$"))
		fail(p, t, "expected a target variable name after '%s'",
		     t->text);
	if (!e->pretty)
		parse_target_comps(p, e);
	return e;
}

/* value: number | string | '(' expr ')' | embedded | target
 *      | at-operator | ident-expr
 */
static struct expr *parse_value(struct parser *p)
{
	const struct token *t = peek(p);
	struct expr *e;

	switch (t->kind) {
	case TK_NUMBER:
		next(p);
		e = new_expr(p, EX_NUM, t);
		e->num = t->num;
		return e;
	case TK_STRING:
		next(p);
		e = new_expr(p, EX_STR, t);
		e->str = t->text;
		return e;
	case TK_EMBEDDED:
		next(p);
		check_embedded_allowed(p, t);
		e = new_expr(p, EX_EMBEDDED, t);
		e->code = t->text;
		e->embedded_string = strstr(t->text, "/* string */") != NULL;
		return e;
	case TK_IDENT:
		if (t->text[0] == '$')
			return parse_target(p);
		if (t->text[0] == '@')
			return parse_at_operator(p);
		if (is_keyword(t->text))
			fail(p, t, "expected an expression, found %s",
			     tok_desc(p, t));
		return parse_ident_expr(p);
	case TK_OP:
		if (is(t, "(")) {
			next(p);
			e = parse_expr(p);
			expect(p, ")");
			e->parenthesized = true;
			return e;
		}
		break;
	default:
		break;
	}
	fail(p, t, "expected an expression, found %s", tok_desc(p, t));
}

/* Whether a member, an index or a pretty-printing '$' follows. */
static bool starts_target_comps(struct parser *p)
{
	const struct token *t = peek(p);

	return is(t, "->") || is(t, "[") ||
	       (t->kind == TK_IDENT &&
		(t->text == intern("$") || t->text == intern("$$")));
}

/* primary: [ '&' ] value [ tcomps ]
 * A '&' or member steps after a value that is not a $target make an
 * autocast: the value is a pointer whose type pass 2 finds from where
 * it came from (p = $file; p->f_path), as SystemTap does.
 */
static struct expr *parse_primary(struct parser *p)
{
	const struct token *amp = NULL;
	struct expr *e;

	if (is(peek(p), "&"))
		amp = next(p);
	e = parse_value(p);
	if (e->kind != EX_TARGET ? amp || starts_target_comps(p) :
	    e->parenthesized && starts_target_comps(p)) {
		struct expr *c = new_expr(p, EX_TARGET, amp ? amp : peek(p));

		c->tbase = TB_AUTOCAST;
		c->a = e;
		parse_target_comps(p, c);
		e = c;
	}
	if (e->kind == EX_TARGET && e->pretty &&
	    (is(peek(p), "->") || is(peek(p), "[")))
		fail(p, peek(p), "'->' and '[' cannot follow a "
		     "pretty-printed value");
	if (amp) {
		if (e->addressof)
			fail(p, amp, "cannot take an address twice");
		if (e->pretty)
			fail(p, amp, "cannot take the address of a "
			     "pretty-printed value");
		e->addressof = true;
	}
	return e;
}

/* postfix: primary [ '++' | '--' ] */
static struct expr *parse_postfix(struct parser *p)
{
	struct expr *e = parse_primary(p);
	const struct token *t = peek(p);

	if (is(t, "++") || is(t, "--")) {
		struct expr *u = new_expr(p, EX_INCDEC, next(p));

		need_lvalue(p, t, e);
		u->op = t->text;
		u->postfix = true;
		u->a = e;
		return u;
	}
	return e;
}

/* crement: ('++' | '--') primary | postfix
 * The operand of a prefix '++' takes no postfix operator, so that
 * "-- a" and "++ a" on two lines are two statements, as in SystemTap.
 */
static struct expr *parse_crement(struct parser *p)
{
	const struct token *t = peek(p);

	if (is(t, "++") || is(t, "--")) {
		struct expr *u = new_expr(p, EX_INCDEC, next(p));

		u->op = t->text;
		u->a = parse_primary(p);
		need_lvalue(p, t, u->a);
		return u;
	}
	return parse_postfix(p);
}

/* unary: ('+' | '-' | '!' | '~') unary | crement */
static struct expr *parse_unary(struct parser *p)
{
	const struct token *t = peek(p);

	if (is(t, "+") || is(t, "-") || is(t, "!") || is(t, "~")) {
		struct expr *u = new_expr(p, EX_UNARY, next(p));

		enter(p);
		u->op = t->text;
		u->a = parse_unary(p);
		leave(p);
		return u;
	}
	return parse_crement(p);
}

typedef struct expr *(*level_fn)(struct parser *p);

static struct expr *binary_level(struct parser *p, level_fn sub,
				 enum expr_kind kind,
				 const char *const *ops, size_t nops)
{
	struct expr *e;

	enter(p);
	e = sub(p);
	for (;;) {
		const struct token *t = peek(p);
		size_t i;
		struct expr *b;

		for (i = 0; i < nops; i++)
			if (is(t, ops[i]))
				break;
		if (i == nops)
			break;
		next(p);
		b = new_expr(p, kind, t);
		b->op = t->text;
		b->a = e;
		b->b = sub(p);
		e = b;
	}
	leave(p);
	return e;
}

/* multiplicative: unary { ('*' | '/' | '%') unary } */
static struct expr *parse_mul(struct parser *p)
{
	static const char *const ops[] = { "*", "/", "%" };

	return binary_level(p, parse_unary, EX_BINARY, ops, ARRAY_SIZE(ops));
}

/* additive: multiplicative { ('+' | '-') multiplicative } */
static struct expr *parse_add(struct parser *p)
{
	static const char *const ops[] = { "+", "-" };

	return binary_level(p, parse_mul, EX_BINARY, ops, ARRAY_SIZE(ops));
}

/* concat: additive { '.' additive } */
static struct expr *parse_concat(struct parser *p)
{
	static const char *const ops[] = { "." };

	return binary_level(p, parse_add, EX_CONCAT, ops, ARRAY_SIZE(ops));
}

/* shift: concat { ('<<' | '>>') concat } */
static struct expr *parse_shift(struct parser *p)
{
	static const char *const ops[] = { "<<", ">>" };

	return binary_level(p, parse_concat, EX_BINARY, ops, ARRAY_SIZE(ops));
}

/* comparison: shift { ('<' | '>' | '<=' | '>=' | '==' | '!=') shift
 *                   | ('=~' | '!~') string }
 */
static struct expr *parse_compare(struct parser *p)
{
	static const char *const ops[] = { "<", ">", "<=", ">=", "==",
					   "!=", "=~", "!~" };
	struct expr *e;

	enter(p);
	e = parse_shift(p);
	for (;;) {
		const struct token *t = peek(p);
		size_t i;
		struct expr *b;

		for (i = 0; i < ARRAY_SIZE(ops); i++)
			if (is(t, ops[i]))
				break;
		if (i == ARRAY_SIZE(ops))
			break;
		next(p);
		if (i >= 6) {
			const struct token *r = peek(p);

			b = new_expr(p, EX_REGEX, t);
			if (r->kind != TK_STRING)
				fail(p, r, "the right side of '%s' must be a "
				     "literal regular expression, found %s",
				     t->text, tok_desc(p, r));
			b->b = parse_primary(p);
		} else {
			b = new_expr(p, EX_COMPARE, t);
			b->b = parse_shift(p);
		}
		b->op = t->text;
		b->a = e;
		e = b;
	}
	leave(p);
	return e;
}

/* array-ref: ident [ '[' index-list-with-stars ']' ] */
static struct expr *parse_in_target(struct parser *p, struct expr *in)
{
	const struct token *id = expect_ident(p, "an array name after 'in'");
	struct expr *base = new_expr(p, EX_SYM, id);

	base->name = id->text;
	in->a = base;
	return in;
}

/* in: comparison { 'in' array }
 *   | '[' index-list-with-stars ']' 'in' array
 */
static struct expr *parse_in(struct parser *p)
{
	struct expr *e;
	const struct token *t = peek(p);

	enter(p);
	if (is(t, "[")) {
		struct expr *in = new_expr(p, EX_IN, next(p));

		parse_index_list(p, &in->args, true, "]");
		in->tok = expect(p, "in")->text;
		e = parse_in_target(p, in);
	} else {
		e = parse_compare(p);
	}
	while (is(peek(p), "in")) {
		struct expr *in = new_expr(p, EX_IN, next(p));

		vec_push(p->a, &in->args, e);
		e = parse_in_target(p, in);
	}
	leave(p);
	return e;
}

/* bitand: in { '&' in } */
static struct expr *parse_bitand(struct parser *p)
{
	static const char *const ops[] = { "&" };

	return binary_level(p, parse_in, EX_BINARY, ops, 1);
}

/* bitxor: bitand { '^' bitand } */
static struct expr *parse_bitxor(struct parser *p)
{
	static const char *const ops[] = { "^" };

	return binary_level(p, parse_bitand, EX_BINARY, ops, 1);
}

/* bitor: bitxor { '|' bitxor } */
static struct expr *parse_bitor(struct parser *p)
{
	static const char *const ops[] = { "|" };

	return binary_level(p, parse_bitxor, EX_BINARY, ops, 1);
}

/* and: bitor { '&&' bitor } */
static struct expr *parse_and(struct parser *p)
{
	static const char *const ops[] = { "&&" };

	return binary_level(p, parse_bitor, EX_LOGICAL, ops, 1);
}

/* or: and { '||' and } */
static struct expr *parse_or(struct parser *p)
{
	static const char *const ops[] = { "||" };

	return binary_level(p, parse_and, EX_LOGICAL, ops, 1);
}

/* ternary: or [ '?' expr ':' ternary ] */
static struct expr *parse_ternary(struct parser *p)
{
	struct expr *e = parse_or(p);
	const struct token *t = peek(p);

	if (is(t, "?")) {
		struct expr *c = new_expr(p, EX_TERNARY, next(p));

		enter(p);
		c->a = e;
		c->b = parse_expr(p);
		expect(p, ":");
		c->c = parse_ternary(p);
		leave(p);
		return c;
	}
	return e;
}

static bool is_assign_op(const struct token *t)
{
	static const char *const ops[] = { "=", "<<<", "+=", "-=", "*=",
					   "/=", "%=", "<<=", ">>=", "&=",
					   "^=", "|=", ".=" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (is(t, ops[i]))
			return true;
	return false;
}

/* expr: ternary [ assign-op expr ] */
static struct expr *parse_expr(struct parser *p)
{
	struct expr *e;
	const struct token *t;

	enter(p);
	e = parse_ternary(p);
	t = peek(p);
	if (is_assign_op(t)) {
		struct expr *a = new_expr(p, EX_ASSIGN, next(p));

		if (!(t->text == intern("<<<") && e->kind == EX_INDEX &&
		      e->a->kind == EX_SYM))
			need_lvalue(p, t, e);
		a->op = t->text;
		a->a = e;
		a->b = parse_expr(p);
		e = a;
	}
	leave(p);
	return e;
}

/* ------------------------------------------------------------------ */
/* Statements                                                         */

static void eat_semicolon(struct parser *p)
{
	accept(p, ";");
}

/* block: '{' { stmt } '}' */
static struct stmt *parse_block(struct parser *p)
{
	const struct token *t = expect(p, "{");
	struct stmt *b = stmt_new(p->a, ST_BLOCK, t->loc);

	enter(p);
	while (!is(peek(p), "}")) {
		if (peek(p)->kind == TK_EOF)
			fail(p, peek(p), "expected '}' to close the block "
			     "opened at line %d, found end of file",
			     t->loc.line);
		vec_push(p->a, &b->stmts, parse_stmt(p));
	}
	next(p);
	leave(p);
	return b;
}

static struct expr *parse_paren_expr(struct parser *p)
{
	struct expr *e;

	expect(p, "(");
	e = parse_expr(p);
	expect(p, ")");
	return e;
}

static struct stmt *parse_loop_body(struct parser *p)
{
	struct stmt *s;

	p->loop_depth++;
	s = parse_stmt(p);
	p->loop_depth--;
	return s;
}

/* for: 'for' '(' [expr] ';' [expr] ';' [expr] ')' stmt */
static struct stmt *parse_for(struct parser *p, const struct token *kw)
{
	struct stmt *s = stmt_new(p->a, ST_FOR, kw->loc);

	expect(p, "(");
	if (!is(peek(p), ";"))
		s->init = parse_expr(p);
	expect(p, ";");
	if (!is(peek(p), ";"))
		s->expr = parse_expr(p);
	expect(p, ";");
	if (!is(peek(p), ")"))
		s->incr = parse_expr(p);
	expect(p, ")");
	s->body = parse_loop_body(p);
	return s;
}

static bool sort_mark_follows(struct parser *p)
{
	const struct token *t = peek(p), *u = peek2(p);

	return (is(t, "+") || is(t, "-")) &&
	       (is(u, ",") || is(u, "]") || is(u, "in") || is(u, "=") ||
		is(u, ")") || is(u, "limit") || is(u, "["));
}

static void set_sort(struct parser *p, struct stmt *s, int column)
{
	const struct token *t = next(p);

	if (s->sort_column)
		fail(p, t, "only one sort directive is allowed in foreach");
	s->sort_column = column;
	s->sort_dir = is(t, "+") ? 1 : -1;
}

static struct expr *foreach_var(struct parser *p)
{
	const struct token *id = expect_ident(p, "a variable name");
	struct expr *e = new_expr(p, EX_SYM, id);

	e->name = id->text;
	return e;
}

/* foreach: 'foreach' '(' [ ident [sort] '=' ] keys 'in' source
 *          [ '[' slice ']' ] [ sort ] [ 'limit' expr ] ')' stmt
 * keys: ident [sort] | '[' ident [sort] { ',' ident [sort] } ']'
 * source: ident [ stat-op ] | hist
 */
static struct stmt *parse_foreach(struct parser *p, const struct token *kw)
{
	struct stmt *s = stmt_new(p->a, ST_FOREACH, kw->loc);
	const struct token *t;

	expect(p, "(");
	if (peek(p)->kind == TK_IDENT &&
	    (is(peek2(p), "=") ||
	     ((is(peek2(p), "+") || is(peek2(p), "-")) &&
	      is(lex_peek(p->lx, 2), "=")))) {
		s->value = foreach_var(p);
		if (!is(peek(p), "="))
			set_sort(p, s, -1);
		expect(p, "=");
	}
	if (accept(p, "[")) {
		do {
			vec_push(p->a, &s->keys, foreach_var(p));
			if (sort_mark_follows(p))
				set_sort(p, s, s->keys.n);
		} while (accept(p, ","));
		expect(p, "]");
	} else {
		vec_push(p->a, &s->keys, foreach_var(p));
		if (sort_mark_follows(p))
			set_sort(p, s, 1);
	}
	if (s->keys.n > MAX_INDEXES)
		fail(p, kw, "too many foreach keys (at most %d)", MAX_INDEXES);
	expect(p, "in");
	t = peek(p);
	if (t->kind == TK_IDENT && (t->text == intern("@hist_log") ||
				    t->text == intern("@hist_linear"))) {
		s->base = parse_at_operator(p);
		if (s->base->kind != EX_HIST)
			fail(p, t, "cannot iterate over a histogram bucket");
	} else {
		s->base = foreach_var(p);
	}
	if (is(peek(p), "[") && s->base->kind == EX_SYM) {
		next(p);
		parse_index_list(p, &s->slice, true, "]");
	}
	t = peek(p);
	if (t->kind == TK_IDENT && t->text[0] == '@') {
		enum stat_op op;

		if (!stat_op_of(t->text, &op))
			fail(p, t, "expected a statistic operator such as "
			     "@count, found '%s'", t->text);
		next(p);
		s->sort_agg = op;
		s->sort_agg_set = true;
		if (!is(peek(p), "+") && !is(peek(p), "-"))
			fail(p, peek(p), "expected '+' or '-' after %s",
			     t->text);
	}
	if (is(peek(p), "+") || is(peek(p), "-"))
		set_sort(p, s, -1);
	if (accept(p, "limit"))
		s->limit = parse_expr(p);
	expect(p, ")");
	s->body = parse_loop_body(p);
	return s;
}

/* try: 'try' block 'catch' [ '(' ident ')' ] block */
static struct stmt *parse_try(struct parser *p, const struct token *kw)
{
	struct stmt *s = stmt_new(p->a, ST_TRY, kw->loc);

	s->body = parse_block(p);
	expect(p, "catch");
	if (accept(p, "(")) {
		s->catch_var = foreach_var(p);
		expect(p, ")");
	}
	s->els = parse_block(p);
	return s;
}

/* stmt: block | ';' | if | while | for | foreach | try
 *     | 'break' | 'continue' | 'next' | 'return' [expr]
 *     | 'delete' expr | expr       (each simple one eats one ';')
 */
static struct stmt *parse_stmt(struct parser *p)
{
	const struct token *t = peek(p);
	struct stmt *s;

	if (is(t, "{"))
		return parse_block(p);
	if (t->kind == TK_OP && is(t, ";")) {
		next(p);
		return stmt_new(p->a, ST_NULL, t->loc);
	}
	if (t->kind == TK_IDENT) {
		const char *k = t->text;

		if (k == intern("if")) {
			next(p);
			s = stmt_new(p->a, ST_IF, t->loc);
			enter(p);
			s->expr = parse_paren_expr(p);
			s->body = parse_stmt(p);
			if (accept(p, "else"))
				s->els = parse_stmt(p);
			leave(p);
			return s;
		}
		if (k == intern("while")) {
			next(p);
			s = stmt_new(p->a, ST_WHILE, t->loc);
			enter(p);
			s->expr = parse_paren_expr(p);
			s->body = parse_loop_body(p);
			leave(p);
			return s;
		}
		if (k == intern("for") || k == intern("foreach") ||
		    k == intern("try")) {
			next(p);
			enter(p);
			if (k == intern("for"))
				s = parse_for(p, t);
			else if (k == intern("foreach"))
				s = parse_foreach(p, t);
			else
				s = parse_try(p, t);
			leave(p);
			return s;
		}
		if (k == intern("break") || k == intern("continue")) {
			next(p);
			if (!p->loop_depth)
				diag_error(p->s, t->loc, "'%s' outside a loop",
					   k);
			s = stmt_new(p->a, k == intern("break") ? ST_BREAK :
				     ST_CONTINUE, t->loc);
			eat_semicolon(p);
			return s;
		}
		if (k == intern("next")) {
			next(p);
			s = stmt_new(p->a, ST_NEXT, t->loc);
			eat_semicolon(p);
			return s;
		}
		if (k == intern("return")) {
			next(p);
			s = stmt_new(p->a, ST_RETURN, t->loc);
			if (!is(peek(p), ";") && !is(peek(p), "}"))
				s->expr = parse_expr(p);
			if (!p->in_function)
				diag_error(p->s, t->loc, "'return' outside a "
					   "function (use 'next' to leave a "
					   "probe)");
			eat_semicolon(p);
			return s;
		}
		if (k == intern("delete")) {
			next(p);
			s = stmt_new(p->a, ST_DELETE, t->loc);
			p->in_delete = true;
			s->expr = parse_primary(p);
			p->in_delete = false;
			if (s->expr->kind != EX_SYM &&
			    s->expr->kind != EX_INDEX)
				fail(p, t, "'delete' needs a variable, an array "
				     "or an array element");
			eat_semicolon(p);
			return s;
		}
	}
	s = stmt_new(p->a, ST_EXPR, t->loc);
	s->expr = parse_expr(p);
	eat_semicolon(p);
	return s;
}

/* ------------------------------------------------------------------ */
/* Probe points                                                       */

/* One expansion of a probe point under construction: its components
 * so far, and the '?', '!' and 'if' that an alternative inside braces
 * may carry (kernel.{trace("a")!, trace("b")}).
 */
struct pp_alt {
	struct vec comps;		/* struct pp_comp * */
	bool optional, sufficient;
	struct expr *cond;
	const struct token *mark;	/* the '?', '!' or 'if' */
};

static struct expr *parse_pp_arg(struct parser *p)
{
	const struct token *t = peek(p);
	struct expr *e;

	if (t->kind == TK_STRING) {
		next(p);
		e = new_expr(p, EX_STR, t);
		e->str = t->text;
		return e;
	}
	return parse_int_lit(p, "a probe point argument");
}

/* functor: piece { adjacent piece }, piece = ident | keyword | '*' |
 * number (so "sys**open" and "timer.ms" glue into one name)
 */
static const char *parse_functor(struct parser *p)
{
	struct strbuf sb;
	const struct token *t = peek(p);
	const char *name;

	if (!(t->kind == TK_IDENT || is(t, "*")) || t->text[0] == '@' ||
	    t->text[0] == '$')
		fail(p, t, "expected a probe point component, found %s",
		     tok_desc(p, t));
	sb_init(&sb);
	sb_puts(&sb, next(p)->text);
	for (;;) {
		t = peek(p);
		if (!t->adjacent || !(t->kind == TK_IDENT || is(t, "*") ||
				      t->kind == TK_NUMBER) ||
		    t->text[0] == '@' || t->text[0] == '$')
			break;
		sb_puts(&sb, next(p)->text);
	}
	name = intern(sb.buf);
	sb_free(&sb);
	return name;
}

static struct vec *pp_alternatives(struct parser *p);

/* Cartesian product: each prefix in *cur extended by each suffix.  A
 * prefix may not end in '?', '!' or 'if': they only follow the last
 * component.
 */
static struct vec *pp_product(struct parser *p, struct vec *cur,
			      struct vec *suffixes)
{
	struct vec *out = arena_alloc(p->a, sizeof(*out));
	int i, j, k;

	for (i = 0; i < cur->n; i++) {
		struct pp_alt *pre = cur->items[i];

		if (pre->mark)
			fail(p, pre->mark, "'%s' may only follow the last "
			     "component of a probe point", pre->mark->text);
		for (j = 0; j < suffixes->n; j++) {
			struct pp_alt *suf = suffixes->items[j];
			struct pp_alt *n = arena_alloc(p->a, sizeof(*n));

			for (k = 0; k < pre->comps.n; k++)
				vec_push(p->a, &n->comps, pre->comps.items[k]);
			for (k = 0; k < suf->comps.n; k++)
				vec_push(p->a, &n->comps, suf->comps.items[k]);
			n->optional = suf->optional;
			n->sufficient = suf->sufficient;
			n->cond = suf->cond;
			n->mark = suf->mark;
			vec_push(p->a, out, n);
		}
	}
	if (out->n > 100000)
		fail(p, peek(p), "brace expansion makes too many probe points");
	return out;
}

/* pp-seq: segment { '.' segment }
 * segment: functor [ '(' literal ')' ] | '{' alternatives
 * Returns the list of expansions, each a struct pp_alt *.
 */
static struct vec *pp_sequence(struct parser *p)
{
	struct vec *cur = arena_alloc(p->a, sizeof(*cur));

	vec_push(p->a, cur, arena_alloc(p->a, sizeof(struct pp_alt)));
	enter(p);
	do {
		if (is(peek(p), "{")) {
			next(p);
			cur = pp_product(p, cur, pp_alternatives(p));
		} else {
			struct pp_comp *c = arena_alloc(p->a, sizeof(*c));
			struct vec *one = arena_alloc(p->a, sizeof(*one));
			struct pp_alt *seg = arena_alloc(p->a, sizeof(*seg));

			c->loc = peek(p)->loc;
			c->functor = parse_functor(p);
			if (is(peek(p), "(")) {
				next(p);
				c->arg = parse_pp_arg(p);
				expect(p, ")");
			}
			vec_push(p->a, &seg->comps, c);
			vec_push(p->a, one, seg);
			cur = pp_product(p, cur, one);
		}
	} while (accept(p, "."));
	leave(p);
	return cur;
}

/* pp-tail: [ '?' | '!' ] [ 'if' '(' expr ')' ], applied to every
 * expansion in alts; each may carry only one of each.
 */
static void pp_tail(struct parser *p, struct vec *alts)
{
	const struct token *t = peek(p);
	struct expr *cond;
	int i;

	if (is(t, "?") || is(t, "!")) {
		next(p);
		for (i = 0; i < alts->n; i++) {
			struct pp_alt *a = alts->items[i];

			if (a->optional)
				fail(p, t, "'?' or '!' given twice for one "
				     "probe point");
			a->optional = true;
			a->sufficient = is(t, "!");
			a->mark = t;
		}
	}
	t = peek(p);
	if (!is(t, "if"))
		return;
	next(p);
	cond = parse_paren_expr(p);
	for (i = 0; i < alts->n; i++) {
		struct pp_alt *a = alts->items[i];

		if (a->cond)
			fail(p, t, "a second 'if' condition for one probe "
			     "point");
		a->cond = cond;
		a->mark = t;
	}
}

/* alternatives: pp-seq pp-tail { ',' pp-seq pp-tail } '}' */
static struct vec *pp_alternatives(struct parser *p)
{
	struct vec *all = arena_alloc(p->a, sizeof(*all));
	int i;

	do {
		struct vec *alts = pp_sequence(p);

		pp_tail(p, alts);
		for (i = 0; i < alts->n; i++)
			vec_push(p->a, all, alts->items[i]);
	} while (accept(p, ","));
	expect(p, "}");
	return all;
}

/* probe-point: pp-seq pp-tail
 * Appends one struct probe_point per brace expansion.
 */
static void parse_probe_point(struct parser *p, struct vec *out)
{
	const struct token *start = peek(p);
	struct vec *alts = pp_sequence(p);
	int i;

	pp_tail(p, alts);
	for (i = 0; i < alts->n; i++) {
		struct pp_alt *a = alts->items[i];
		struct probe_point *pp = arena_alloc(p->a, sizeof(*pp));

		pp->comps = a->comps;
		pp->optional = a->optional;
		pp->sufficient = a->sufficient;
		pp->cond = a->cond;
		pp->loc = start->loc;
		vec_push(p->a, out, pp);
	}
}

/* ------------------------------------------------------------------ */
/* Declarations                                                       */

static void add_item(struct parser *p, enum item_kind k, void *ptr)
{
	struct item *it = arena_alloc(p->a, sizeof(*it));

	it->kind = k;
	it->ptr = ptr;
	vec_push(p->a, &p->file->order, it);
}

/* probe: 'probe' probe-point { ',' probe-point } block
 * alias: 'probe' name { ',' name } ('=' | '+=') probe-point
 *        { ',' probe-point } block
 */
static void parse_probe(struct parser *p, const struct token *kw)
{
	struct probe *pr = arena_alloc(p->a, sizeof(*pr));
	struct vec first = { 0 };
	int i;

	pr->loc = kw->loc;
	pr->file = p->file;
	pr->privileged = p->file->privileged;
	do {
		parse_probe_point(p, &first);
	} while (accept(p, ","));
	if (is(peek(p), "=") || is(peek(p), "+=")) {
		const struct token *op = next(p);

		pr->is_alias = true;
		pr->epilogue = is(op, "+=");
		pr->alias_names = first;
		for (i = 0; i < first.n; i++) {
			struct probe_point *pp = first.items[i];

			if (pp->optional || pp->cond)
				diag_error(p->s, pp->loc, "probe alias names "
					   "cannot be optional or "
					   "conditional");
		}
		do {
			parse_probe_point(p, &pr->points);
		} while (accept(p, ","));
	} else {
		pr->points = first;
	}
	pr->body = parse_block(p);
	if (pr->is_alias) {
		vec_push(p->a, &p->file->aliases, pr);
		add_item(p, ITEM_ALIAS, pr);
	} else {
		vec_push(p->a, &p->file->probes, pr);
		add_item(p, ITEM_PROBE, pr);
	}
}

static struct expr *parse_global_init(struct parser *p)
{
	const struct token *t = peek(p);
	struct expr *e;

	if (t->kind == TK_STRING) {
		next(p);
		e = new_expr(p, EX_STR, t);
		e->str = t->text;
		return e;
	}
	if (t->kind == TK_NUMBER || is(t, "-"))
		return parse_int_lit(p, "an initial value");
	fail(p, t, "a global can only be initialised with a literal, found "
	     "%s", tok_desc(p, t));
}

/* A global declared twice in one file is an error of pass 1, as in
 * SystemTap; pass 2 checks the user's files against each other.
 */
static bool declared_global(struct parser *p, const struct vardecl *v)
{
	int i;

	for (i = 0; i < p->file->globals.n; i++) {
		const struct vardecl *w = p->file->globals.items[i];

		if (w->name != v->name)
			continue;
		diag_error(p->s, v->loc, "global '%s' is already declared",
			   v->name);
		diag_note(p->s, w->loc, "previous declaration of '%s'",
			  w->name);
		return true;
	}
	return false;
}

/* global: 'global' gdecl { ',' gdecl } [';']
 * gdecl: ident [ '%' ] [ '[' number ']' ] [ '%' ] [ '=' literal ]
 */
static void parse_global(struct parser *p, bool is_private)
{
	do {
		const struct token *id = expect_ident(p, "a variable name");
		struct vardecl *v = vardecl_new(p->a, id->text, id->loc);

		v->is_global = true;
		v->is_private = is_private;
		v->file = p->file;
		v->from_tapset = p->file->is_tapset;
		if (accept(p, "%"))
			v->wrap = true;
		if (accept(p, "[")) {
			const struct token *n = peek(p);

			if (n->kind != TK_NUMBER)
				fail(p, n, "expected the array size (a number), "
				     "found %s", tok_desc(p, n));
			next(p);
			if (n->num < 1 || n->num > 1000000)
				diag_error(p->s, n->loc, "array size %s is out "
					   "of range [1-1000000]", n->text);
			v->maxsize = (long)n->num;
			expect(p, "]");
			v->arity = -1;
			if (accept(p, "%")) {
				if (v->wrap)
					fail(p, p->prev, "'%%' given twice");
				v->wrap = true;
			}
		}
		if (is(peek(p), "=")) {
			const struct token *eq = next(p);

			if (v->maxsize || v->wrap)
				fail(p, eq, "only scalar globals can be "
				     "initialised");
			v->init = parse_global_init(p);
		}
		if (declared_global(p, v))
			continue;
		vec_push(p->a, &p->file->globals, v);
		add_item(p, ITEM_GLOBAL, v);
	} while (accept(p, ","));
	eat_semicolon(p);
}

static enum type parse_type_name(struct parser *p)
{
	const struct token *t = peek(p);

	if (is(t, "long")) {
		next(p);
		return TY_LONG;
	}
	if (is(t, "string")) {
		next(p);
		return TY_STRING;
	}
	fail(p, t, "expected a type ('long' or 'string'), found %s",
	     tok_desc(p, t));
}

/* function: 'function' ident [':' type] '(' [param {',' param}] ')'
 *           [':' number] ( block | embedded )
 * param: ident [':' type]
 */
static void parse_function(struct parser *p, bool is_private)
{
	const struct token *id = expect_ident(p, "a function name");
	struct func *f = arena_alloc(p->a, sizeof(*f));
	const struct token *t;
	int i;

	f->name = id->text;
	f->loc = id->loc;
	f->is_private = is_private;
	f->file = p->file;
	f->priority = p->file->is_tapset ? 1 : 0;
	if (accept(p, ":")) {
		f->type = parse_type_name(p);
		f->type_declared = true;
	}
	expect(p, "(");
	if (!accept(p, ")")) {
		do {
			const struct token *pn = expect_ident(p,
						"a parameter name");
			struct vardecl *v = vardecl_new(p->a, pn->text,
							pn->loc);

			for (i = 0; i < f->params.n; i++)
				if (((struct vardecl *)f->params.items[i])->name
				    == pn->text)
					diag_error(p->s, pn->loc, "duplicate "
						   "parameter '%s'", pn->text);
			v->arity = 0;
			if (accept(p, ":")) {
				v->type = parse_type_name(p);
				v->type_declared = true;
			}
			vec_push(p->a, &f->params, v);
		} while (accept(p, ","));
		expect(p, ")");
	}
	if (accept(p, ":")) {
		t = peek(p);
		if (t->kind != TK_NUMBER)
			fail(p, t, "expected a priority (a number), found %s",
			     tok_desc(p, t));
		next(p);
		if (t->num < 1)
			diag_error(p->s, t->loc, "function priority must be "
				   "at least 1");
		f->priority = (long)t->num;
		f->priority_set = true;
	}
	t = peek(p);
	if (t->kind == TK_EMBEDDED) {
		next(p);
		check_embedded_allowed(p, t);
		f->code = t->text;
	} else {
		p->in_function = true;
		f->body = parse_block(p);
		p->in_function = false;
	}
	vec_push(p->a, &p->file->functions, f);
	add_item(p, ITEM_FUNCTION, f);
}

/* Skip to something that can start a declaration. */
static void resync(struct parser *p)
{
	for (;;) {
		const struct token *t = peek(p);

		if (t->kind == TK_EOF)
			return;
		if (t->loc.col == 1 && t->kind == TK_IDENT &&
		    (is(t, "probe") || is(t, "global") || is(t, "function") ||
		     is(t, "private")))
			return;
		next(p);
	}
}

/* declaration: probe | ['private'] global | ['private'] function
 *            | 'private' gdecl { ',' gdecl } [';'] | embedded | ';'
 */
static void parse_declaration(struct parser *p)
{
	const struct token *t = peek(p);
	bool is_private = false;

	if (t->kind == TK_EMBEDDED) {
		struct embedded *em = arena_alloc(p->a, sizeof(*em));

		next(p);
		check_embedded_allowed(p, t);
		em->code = t->text;
		em->loc = t->loc;
		em->file = p->file;
		vec_push(p->a, &p->file->embeds, em);
		add_item(p, ITEM_EMBEDDED, em);
		return;
	}
	if (accept(p, ";"))
		return;
	if (is(t, "probe")) {
		next(p);
		parse_probe(p, t);
		return;
	}
	if (is(t, "private")) {
		next(p);
		is_private = true;
		t = peek(p);
		/* 'private NAME' is short for 'private global NAME' */
		if (t->kind == TK_IDENT && !is(t, "global") &&
		    !is(t, "function") && !is(t, "probe")) {
			parse_global(p, true);
			return;
		}
		if (!is(t, "global") && !is(t, "function"))
			fail(p, t, "expected 'global' or 'function' after "
			     "'private', found %s", tok_desc(p, t));
	}
	if (is(t, "global")) {
		next(p);
		parse_global(p, is_private);
		return;
	}
	if (is(t, "function")) {
		next(p);
		parse_function(p, is_private);
		return;
	}
	fail(p, t, "expected 'probe', 'global', 'function' or embedded code "
	     "at the top level, found %s", tok_desc(p, t));
}

struct stapfile *parse_file(struct session *s, struct srcfile *src,
			    bool tapset)
{
	struct parser p;
	struct stapfile *f = arena_alloc(s->arena, sizeof(*f));

	memset(&p, 0, sizeof(p));
	p.s = s;
	p.a = s->arena;
	p.lx = lex_new(s, src, tapset);
	p.file = f;
	f->src = src;
	f->is_tapset = tapset;
	f->privileged = tapset || s->opt.guru;
	for (;;) {
		if (setjmp(p.recover)) {
			p.depth = 0;
			p.loop_depth = 0;
			p.in_function = false;
			p.in_delete = false;
			if (p.prev && p.prev->kind != TK_EOF &&
			    peek(&p)->kind != TK_EOF)
				next(&p);
			resync(&p);
		}
		if (peek(&p)->kind == TK_EOF || s->errors > DIAG_MAX_ERRORS)
			break;
		parse_declaration(&p);
	}
	f->macros = *lex_macros(p.lx);
	return f;
}

static bool raw_is_eof(const struct token *t, void *arg)
{
	*(bool *)arg = t->kind != TK_EOF;
	return false;
}

void parse_check_user_file(struct session *s, const struct stapfile *f)
{
	bool tokens = false;

	if (f->order.n)
		return;
	lex_raw_scan(s, f->src, raw_is_eof, &tokens);
	diag_error_noloc(s, "script '%s' is empty%s", f->src->name,
			 tokens ? " after preprocessing" : "");
}

/* ------------------------------------------------------------------ */
/* Library macro files                                                */

static void load_stpm_dir(struct session *s, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct vec names = { 0 };
	int i;

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (n > 5 && strcmp(de->d_name + n - 5, ".stpm") == 0)
			vec_push(s->arena, &names,
				 arena_printf(s->arena, "%s/%s", dir,
					      de->d_name));
	}
	closedir(d);
	if (names.n)
		qsort(names.items, (size_t)names.n, sizeof(void *), cmp_strp);
	for (i = 0; i < names.n; i++) {
		size_t len;
		char *text = read_file(names.items[i], &len);
		struct srcfile *src;
		struct lexer *lx;
		const struct token *t;
		int j;

		if (!text)
			continue;
		src = srcfile_new(s->arena, names.items[i],
				  arena_strndup(s->arena, text, len), len);
		free(text);
		src->is_macro_file = true;
		lx = lex_new(s, src, true);
		t = lex_next(lx);
		if (t->kind != TK_EOF)
			diag_error(s, t->loc, "only @define is allowed in a "
				   ".stpm macro file");
		for (j = 0; j < lex_macros(lx)->n; j++)
			vec_push(s->arena, &s->lib_macros,
				 lex_macros(lx)->items[j]);
	}
}

void parse_load_macro_files(struct session *s)
{
	struct vec roots = { 0 };
	int i;

	if (s->lib_macros_loaded)
		return;
	s->lib_macros_loaded = true;
	for (i = 0; i < s->opt.include_dirs.n; i++)
		vec_push(s->arena, &roots, s->opt.include_dirs.items[i]);
	if (s->tapset_dir)
		vec_push(s->arena, &roots, (void *)s->tapset_dir);
	for (i = 0; i < roots.n; i++) {
		const char *r = roots.items[i];

		load_stpm_dir(s, r);
		load_stpm_dir(s, arena_printf(s->arena, "%s/linux", r));
		load_stpm_dir(s, arena_printf(s->arena, "%s/%s", r,
					      s->arch_name ? s->arch_name :
					      "x86_64"));
	}
}
