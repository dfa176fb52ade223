/* emit.c - pass 3: C for the kernel module.  Each probe and function
 * becomes a C function over its locals in the per-CPU context; values
 * are int64_t or const char *, string temporaries live in the frame,
 * and every error jumps to the label of the innermost try or the
 * handler's exit.  The file reads like hand-written kernel code.
 */
#include "usyms.h"
#include "lines.h"
#include "emit-int.h"
#include "analyze.h"
#include "limit.h"
#include "target.h"
#include "creflow.h"
#include "cshare.h"
#include "format.h"
#include "provider.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The probes of a family that is emitted all at once. */
struct group {
	const struct provider *prov;
	struct vec dps;
};

static void gen_stmt(struct emitter *em, const struct stmt *st);
static void gen_print_as(struct emitter *em, struct strbuf *o,
			 const struct expr *e, bool value);
static const char *gen_agg_of(struct emitter *em, struct strbuf *o,
			      const struct expr *s);
static bool gen_counter_add(struct emitter *em, const struct expr *e);

/* ------------------------------------------------------------------ */
/* Helpers                                                            */

struct session *emit_session(struct emitter *em)
{
	return em->s;
}

void emit_error(struct emitter *em, struct loc loc, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = arena_vprintf(em->s->arena, fmt, ap);
	va_end(ap);
	diag_error(em->s, loc, "%s", msg);
	em->nerrors++;
}

struct strbuf *emit_out(struct emitter *em, enum emit_section sec)
{
	switch (sec) {
	case EMIT_START:
		return em->gstart ? em->gstart : &em->start;
	case EMIT_STOP:
		return em->gstop ? em->gstop : &em->stop;
	default:
		return &em->decls;
	}
}

const char *emit_probe_ref(struct emitter *em, const struct derived_probe *dp)
{
	return arena_printf(em->s->arena, "&stp_probes[%d]", dp->index);
}

/* A line of the current body at the current depth; a preprocessor
 * line starts in the first column.
 */
static void line(struct emitter *em, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void line(struct emitter *em, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = arena_vprintf(em->s->arena, fmt, ap);
	va_end(ap);
	if (text[0] != '#')
		sb_indent(&em->b->text, em->depth);
	sb_puts(&em->b->text, text);
	sb_putc(&em->b->text, '\n');
}

/* How generated C names a source file: a tapset file by its path under
 * the tapset directory (or the -I directory) it came from, so that the
 * module does not depend on where the library is installed; the
 * script as the user named it.
 */
static const char *src_name(struct emitter *em, const struct srcfile *f)
{
	const struct session *s = em->s;
	const char *root;
	size_t n;
	int i;

	if (!f)
		return "?";
	if (!f->is_tapset)
		return f->name;
	for (i = -1; i < s->opt.include_dirs.n; i++) {
		root = i < 0 ? s->tapset_dir :
			(const char *)vec_get(&s->opt.include_dirs, i);
		if (!root)
			continue;
		n = strlen(root);
		while (n > 1 && root[n - 1] == '/')
			n--;
		if (strncmp(f->name, root, n) == 0 && f->name[n] == '/')
			return f->name + n + 1;
	}
	return f->name;
}

/* "WHAT at FILE:LINE:COL", the place a run-time error names. */
static const char *at_loc(struct emitter *em, const char *what,
			  struct loc loc)
{
	return arena_printf(em->s->arena, "%s at %s:%d:%d", what,
			    src_name(em, loc.file), loc.line, loc.col);
}

/* "identifier 'x' at file:line:col", as run-time errors quote it. */
const char *where(struct emitter *em, const struct expr *e)
{
	const char *kind = "operator";
	const char *tok = e->tok ? e->tok : "?";

	switch (e->kind) {
	case EX_SYM:
	case EX_CALL:
	case EX_PRINT:
	case EX_INDEX:
		kind = "identifier";
		break;
	case EX_TARGET:
		/* an autocast is named by its '->', '[' or '&' */
		if (e->tbase != TB_AUTOCAST)
			kind = "identifier";
		break;
	case EX_NUM:
		kind = "number";
		break;
	case EX_STR:
		kind = "string";
		break;
	default:
		break;
	}
	return at_loc(em, arena_printf(em->s->arena, "%s '%s'", kind, tok),
		      e->loc);
}

/* A fresh string temporary of the current body. */
const char *new_tmp(struct emitter *em)
{
	struct body *b = em->b;
	int n = b->tmp_next++;

	if (b->tmp_next > b->tmp_max)
		b->tmp_max = b->tmp_next;
	b->uses_locals = true;
	return arena_printf(em->s->arena, "l->__tmp[%d]", n);
}

/* The jump that abandons the handler (or enters the catch block). */
const char *fail_jump(struct emitter *em)
{
	em->b->uses_out |= strcmp(em->b->err_label, "out") == 0;
	return arena_printf(em->s->arena, "goto %s", em->b->err_label);
}

static void raise_at(struct emitter *em, struct strbuf *o, const char *msg,
		     const struct expr *e)
{
	sb_printf(o, "_stp_error_at(c, ");
	sb_c_string(o, msg);
	sb_puts(o, ", ");
	sb_c_string(o, where(em, e));
	sb_printf(o, "); %s;", fail_jump(em));
}

static const char *var_cname(struct emitter *em, const struct vardecl *v)
{
	if (v->priv)
		return v->priv;
	em->b->uses_locals = true;
	return arena_printf(em->s->arena, "l->l_%s", v->name);
}

/* ------------------------------------------------------------------ */
/* Expressions                                                        */

void gen_num(struct strbuf *o, int64_t v)
{
	if (v == INT64_MIN)
		sb_puts(o, "(-9223372036854775807LL - 1)");
	else
		sb_printf(o, "%" PRId64 "LL", v);
}

/* STP_KEYS({ .n = k1 }, { .s = k2 }) with '*' as empty. */
static void gen_keys(struct emitter *em, struct strbuf *o,
		     const struct vec *args)
{
	int i;

	sb_puts(o, "STP_KEYS(");
	for (i = 0; i < args->n; i++) {
		const struct expr *k = args->items[i];

		if (i)
			sb_puts(o, ", ");
		if (!k) {
			sb_puts(o, "{ 0 }");
		} else if (k->type == TY_STRING) {
			sb_puts(o, "{ .s = ");
			gen_expr(em, o, k);
			sb_puts(o, " }");
		} else {
			sb_puts(o, "{ .n = ");
			gen_expr(em, o, k);
			sb_puts(o, " }");
		}
	}
	sb_puts(o, ")");
}

static void gen_wild(struct strbuf *o, const struct vec *args)
{
	int i;

	sb_puts(o, "((const bool[]){ ");
	for (i = 0; i < args->n; i++)
		sb_printf(o, "%s%s", i ? ", " : "",
			  args->items[i] ? "false" : "true");
	sb_puts(o, " })");
}

static bool has_wild(const struct vec *args)
{
	int i;

	for (i = 0; i < args->n; i++)
		if (!args->items[i])
			return true;
	return false;
}

static const char *map_of(struct emitter *em, const struct expr *base)
{
	return var_cname(em, base->var);
}

/* Read a[k...]. */
static void gen_index(struct emitter *em, struct strbuf *o,
		      const struct expr *e)
{
	const struct expr *base = e->a;

	if (base->kind == EX_HIST) {
		const char *desc;

		sb_puts(o, "({ const struct stp_stat_agg *__a; int64_t __v; ");
		desc = gen_agg_of(em, o, base->a);
		sb_printf(o, "if (_stp_stat_bucket(%s, __a, ", desc);
		gen_expr(em, o, e->args.items[0]);
		sb_puts(o, ", &__v)) { ");
		raise_at(em, o, "histogram index out of range", base);
		sb_puts(o, " } __v; })");
		return;
	}
	if (e->type == TY_STRING)
		sb_printf(o, "_stp_map_get_str(%s, ", map_of(em, base));
	else
		sb_printf(o, "_stp_map_get_long(%s, ", map_of(em, base));
	gen_keys(em, o, &e->args);
	sb_putc(o, ')');
}

static bool iterating(struct emitter *em, const struct vardecl *v)
{
	int i;

	for (i = 0; i < em->b->iterating.n; i++)
		if (em->b->iterating.items[i] == v)
			return true;
	return false;
}

/* "__a = <merged stats of s>;" for a statistic or an element of a
 * statistics array, inside a statement expression that declared
 * __a; returns the C expression of its descriptor (a pointer).
 */
static const char *gen_agg_of(struct emitter *em, struct strbuf *o,
			      const struct expr *s)
{
	if (s->kind == EX_INDEX) {
		const char *m = map_of(em, s->a);

		/* inside a foreach over the array, the aggregate being
		 * walked is current and must not be rebuilt under it
		 */
		if (iterating(em, s->a->var))
			sb_puts(o, "__a = _stp_node_stat(");
		else
			sb_printf(o, "_stp_map_agg(%s); __a = _stp_node_stat(",
				  m);
		sb_printf(o, "%s, _stp_map_find(%s, ", m, m);
		gen_keys(em, o, &s->args);
		sb_puts(o, ")); ");
		return arena_printf(em->s->arena, "%s_desc.stat", m);
	}
	sb_printf(o, "__a = _stp_stat_get(%s); ", var_cname(em, s->var));
	return arena_printf(em->s->arena, "&%s_desc", var_cname(em, s->var));
}

static void gen_stat_extract(struct emitter *em, struct strbuf *o,
			     const struct expr *e)
{
	static const char *const ops[] = {
		"STP_STAT_COUNT", "STP_STAT_SUM", "STP_STAT_MIN",
		"STP_STAT_MAX", "STP_STAT_AVG", "STP_STAT_VARIANCE",
	};
	const char *desc;

	sb_puts(o, "({ const struct stp_stat_agg *__a; int64_t __v; ");
	desc = gen_agg_of(em, o, e->a);
	sb_printf(o, "if (_stp_stat_extract(%s, __a, %s, &__v)) { ", desc,
		  ops[e->stat]);
	raise_at(em, o, "empty aggregate", e);
	sb_puts(o, " } __v; })");
}

/* "({ T __x = A; T __y = B; ": both operands in order, for the caller
 * to combine and close with " })".
 */
static void gen_pair(struct emitter *em, struct strbuf *o, const char *type,
		     const struct expr *a, const struct expr *b)
{
	const char *sp = type[strlen(type) - 1] == '*' ? "" : " ";

	sb_printf(o, "({ %s%s__x = ", type, sp);
	gen_expr(em, o, a);
	sb_printf(o, "; %s%s__y = ", type, sp);
	gen_expr(em, o, b);
	sb_puts(o, "; ");
}

/* Division and modulo: /0 is an error, INT64_MIN / -1 wraps.  The
 * error is reported at the operator of a / b, and at the divisor of
 * a /= b (as the established tool reports them).
 */
static void gen_divmod(struct emitter *em, struct strbuf *o,
		       const struct expr *e, const char *op,
		       const struct expr *near)
{
	gen_pair(em, o, "int64_t", e->a, e->b);
	sb_puts(o, "if (unlikely(__y == 0)) { ");
	raise_at(em, o, "division by 0", near);
	if (*op == '/')
		sb_puts(o, " } __y == -1 ? (int64_t)(0 - (uint64_t)__x) : "
			"__x / __y; })");
	else
		sb_puts(o, " } __y == -1 ? 0 : __x % __y; })");
}

/* Operands that can neither fail nor change anything may be used in
 * place, in any order: numbers, scalar variables, and the operators
 * other than / and % on such operands.  Their arithmetic is written in
 * uint64_t, where + - * wrap as the language says, and converted back
 * once: the same bits as one statement expression per operator.
 */
static bool is_plain(const struct expr *e)
{
	switch (e->kind) {
	case EX_NUM:
		return true;
	case EX_SYM:
		return e->var && !is_array(e->var) && !is_stat_var(e->var) &&
		       e->type == TY_LONG;
	case EX_TARGET:
		return target_simple(e);
	case EX_UNARY:
		return is_plain(e->a);
	case EX_BINARY:
		return strcmp(e->op, "/") && strcmp(e->op, "%") &&
		       is_plain(e->a) && is_plain(e->b);
	default:
		return false;
	}
}

static bool small_num(const struct expr *e)
{
	return e->kind == EX_NUM && e->num >= -2147483647 &&
	       e->num <= 2147483647;
}

static const char *plain_text(struct emitter *em, const struct expr *e);
static const char *plain_u64(struct emitter *em, const struct expr *e);

/* A shift count, modulo 64 as x86 and the established tool take it. */
static const char *shift_count(struct emitter *em, const struct expr *n)
{
	if (n->kind == EX_NUM)
		return arena_printf(em->s->arena, "%d", (int)(n->num & 63));
	return arena_printf(em->s->arena, "(%s & 63)", plain_u64(em, n));
}

/* a >> n of plain operands, as an int64_t: of the signed value, so
 * arithmetic.
 */
static const char *shift_right(struct emitter *em, const struct expr *e)
{
	const char *x = small_num(e->a) ?
		arena_printf(em->s->arena, "%" PRId64, e->a->num) :
		plain_u64(em, e->a);

	return arena_printf(em->s->arena, "((int64_t)%s >> %s)", x,
			    shift_count(em, e->b));
}

/* A plain e as a uint64_t (a small number as itself: it converts). */
static const char *plain_u64(struct emitter *em, const struct expr *e)
{
	struct arena *a = em->s->arena;
	const char *x, *y;

	switch (e->kind) {
	case EX_NUM:
		if (small_num(e))
			return arena_printf(a, "%" PRId64, e->num);
		return arena_printf(a, "(uint64_t)%s", plain_text(em, e));
	case EX_SYM:
		return arena_printf(a, "(uint64_t)%s", var_cname(em, e->var));
	case EX_TARGET:
		return arena_printf(a, "(uint64_t)%s",
				    target_simple_text(em, e));
	case EX_UNARY:
		x = plain_u64(em, e->a);
		if (small_num(e->a))
			x = arena_printf(a, "(uint64_t)%s", x);
		return arena_printf(a, "(%s%s)", e->op, x);
	default:
		break;
	}
	x = plain_u64(em, e->a);
	y = plain_u64(em, e->b);
	/* a shift has the type of its left operand, others convert */
	if (small_num(e->a) && (small_num(e->b) || e->op[0] == '<' ||
				e->op[0] == '>'))
		x = arena_printf(a, "(uint64_t)%s", x);
	if (!strcmp(e->op, "<<"))
		return arena_printf(a, "(%s << %s)", x, shift_count(em, e->b));
	if (!strcmp(e->op, ">>"))
		return arena_printf(a, "(uint64_t)%s", shift_right(em, e));
	return arena_printf(a, "(%s %s %s)", x, e->op, y);
}

/* A plain e as an int64_t. */
static const char *plain_text(struct emitter *em, const struct expr *e)
{
	if (!is_plain(e))
		return NULL;
	if (e->kind == EX_NUM) {
		struct strbuf o;
		const char *r;

		if (small_num(e))
			return arena_printf(em->s->arena, "%" PRId64, e->num);
		sb_init(&o);
		gen_num(&o, e->num);
		r = arena_strdup(em->s->arena, o.buf);
		sb_free(&o);
		return r;
	}
	if (e->kind == EX_SYM)
		return var_cname(em, e->var);
	if (e->kind == EX_TARGET)
		return target_simple_text(em, e);
	if (e->kind == EX_BINARY && !strcmp(e->op, ">>"))
		return shift_right(em, e);
	return arena_printf(em->s->arena, "(int64_t)%s", plain_u64(em, e));
}

/* e as an operand: its plain text when it has one, else its code. */
static void gen_operand(struct emitter *em, struct strbuf *o,
			const struct expr *e)
{
	const char *plain = plain_text(em, e);

	if (plain)
		sb_puts(o, plain);
	else
		gen_expr(em, o, e);
}

/* a OP b for the arithmetic and bitwise operators; near is where a
 * division by zero is reported.  A shift count is taken modulo 64, as
 * x86 does and the established tool's generated code does (3 << 65 is
 * 6, 1 << -1 is 1 << 63), which also keeps the C shift defined.
 */
static void gen_binary_op(struct emitter *em, struct strbuf *o,
			  const struct expr *e, const struct expr *near)
{
	const char *op = e->op;
	const char *plain = plain_text(em, e);

	if (plain) {
		sb_puts(o, plain);
		return;
	}
	if (!strcmp(op, "/") || !strcmp(op, "%")) {
		gen_divmod(em, o, e, op, near);
		return;
	}
	if (!strcmp(op, "<<") || !strcmp(op, ">>")) {
		gen_pair(em, o, "int64_t", e->a, e->b);
		sb_puts(o, "__y &= 63; ");
		if (*op == '<')
			sb_puts(o, "(int64_t)((uint64_t)__x << __y); })");
		else
			sb_puts(o, "__x >> __y; })");
		return;
	}
	/* left operand first, as the language defines; + - * wrap */
	gen_pair(em, o, "uint64_t", e->a, e->b);
	sb_printf(o, "(int64_t)(__x %s __y); })", op);
}

static void gen_binary(struct emitter *em, struct strbuf *o,
		       const struct expr *e)
{
	gen_binary_op(em, o, e, e);
}

static void gen_compare(struct emitter *em, struct strbuf *o,
			const struct expr *e)
{
	const char *x = plain_text(em, e->a);
	const char *y = x ? plain_text(em, e->b) : NULL;

	if (y) {
		sb_printf(o, "(int64_t)(%s %s %s)", x, e->op, y);
		return;
	}
	if (e->a->type == TY_STRING) {
		gen_pair(em, o, "const char *", e->a, e->b);
		sb_printf(o, "(int64_t)(strcmp(__x, __y) %s 0); })", e->op);
		return;
	}
	gen_pair(em, o, "int64_t", e->a, e->b);
	sb_printf(o, "(int64_t)(__x %s __y); })", e->op);
}

static int regex_index(struct emitter *em, const char *pattern)
{
	int i;

	for (i = 0; i < em->regexes.n; i++)
		if (em->regexes.items[i] == pattern)
			return i;
	vec_push(em->s->arena, &em->regexes, (void *)pattern);
	return em->regexes.n - 1;
}

/* The error of a full array: its declared size, or the default. */
static const char *overflow_msg(struct emitter *em, const struct expr *arr)
{
	const struct vardecl *v = arr->kind == EX_SYM ? arr->var : NULL;

	if (v && v->maxsize > 0)
		return arena_printf(em->s->arena, "Array overflow, check size "
				    "limit (%ld)", v->maxsize);
	return "Array overflow, check MAXMAPENTRIES";
}

/* ------------------------------------------------------------------ */
/* Writes: every operand is evaluated once, left to right (an         */
/* element's keys, then the right-hand side), and the element is      */
/* then read and written by one runtime call that looks it up once,   */
/* as the established tool orders them.                               */

static bool comps_pure(const struct vec *comps);

/* Evaluating e changes nothing another operand could see. */
static bool expr_pure(const struct expr *e)
{
	int i;

	if (!e)
		return true;
	switch (e->kind) {
	case EX_CALL:
	case EX_PRINT:
	case EX_ASSIGN:
	case EX_INCDEC:
	case EX_EMBEDDED:
		return false;
	default:
		break;
	}
	for (i = 0; i < e->args.n; i++)
		if (!expr_pure(e->args.items[i]))
			return false;
	return expr_pure(e->a) && expr_pure(e->b) && expr_pure(e->c) &&
	       comps_pure(&e->comps);
}

static bool comps_pure(const struct vec *comps)
{
	int i;

	for (i = 0; i < comps->n; i++) {
		const struct tcomp *t = comps->items[i];

		if (!expr_pure(t->index))
			return false;
	}
	return true;
}

/* e assigns to the local v (no call can: a function has its own). */
static bool writes_local(const struct expr *e, const struct vardecl *v)
{
	int i;

	if (!e)
		return false;
	if ((e->kind == EX_ASSIGN || e->kind == EX_INCDEC) &&
	    e->a->kind == EX_SYM && e->a->var == v)
		return true;
	for (i = 0; i < e->args.n; i++)
		if (writes_local(e->args.items[i], v))
			return true;
	for (i = 0; i < e->comps.n; i++) {
		const struct tcomp *t = e->comps.items[i];

		if (writes_local(t->index, v))
			return true;
	}
	return writes_local(e->a, v) || writes_local(e->b, v) ||
	       writes_local(e->c, v);
}

/* No operand after key i (the later keys, then rhs) can change what
 * key i reads.
 */
static bool rest_keeps(const struct vec *keys, int i, const struct expr *rhs)
{
	const struct expr *k = keys->items[i];
	bool local = k->kind == EX_SYM && !k->var->is_global;

	for (i++; i < keys->n; i++) {
		if (local ? writes_local(keys->items[i], k->var) :
		    !expr_pure(keys->items[i]))
			return false;
	}
	return local ? !writes_local(rhs, k->var) : expr_pure(rhs);
}

static bool is_constant(const struct expr *e)
{
	return e->kind == EX_NUM || e->kind == EX_STR || e->kind == EX_CONST;
}

/* Nothing evaluated after key i (the later keys, the right-hand side)
 * calls a function or embedded C.
 */
static bool rest_pure(const struct vec *keys, int i, const struct expr *rhs)
{
	for (i++; i < keys->n; i++)
		if (!expr_pure(keys->items[i]))
			return false;
	return expr_pure(rhs);
}

/* A string value in a temporary of its own or a literal, which no
 * later operand can change.
 */
static bool str_owned(const struct expr *e)
{
	return is_constant(e) || e->kind == EX_CALL || e->kind == EX_CONCAT;
}

/* The keys of an element being written: each one that is not a
 * constant (or a variable nothing after it can change) is evaluated
 * into __keyN, in order, and a string that a later operand could
 * change is copied.  Returns the key vector of the runtime call.
 */
/* The C value of key i of args (for a map's element written with rhs),
 * its set-up, if any, written into o first.
 */
static const char *gen_elem_key(struct emitter *em, struct strbuf *o,
				const struct vec *args, int i,
				const struct expr *rhs)
{
	const struct expr *k = args->items[i];
	bool str = k->type == TY_STRING;
	bool kept = rest_keeps(args, i, rhs);
	struct strbuf kv;
	const char *ret;

	if (is_constant(k) || (k->kind == EX_SYM && kept)) {
		sb_init(&kv);
		gen_expr(em, &kv, k);
		ret = arena_strdup(em->s->arena, kv.buf);
		sb_free(&kv);
		return ret;
	}
	sb_printf(o, "%s__key%d = ", str ? "const char *" : "int64_t ", i);
	if (str && !kept && !str_owned(k)) {
		sb_printf(o, "_stp_strcpy(%s, ", new_tmp(em));
		gen_expr(em, o, k);
		sb_putc(o, ')');
	} else {
		/* a function's string result is used where the function
		 * left it when no call comes after it
		 */
		em->borrow = str && k->kind == EX_CALL &&
			     rest_pure(args, i, rhs);
		gen_expr(em, o, k);
		em->borrow = false;
	}
	sb_puts(o, "; ");
	return arena_printf(em->s->arena, "__key%d", i);
}

static const char *gen_elem_keys(struct emitter *em, struct strbuf *o,
				 const struct expr *lv,
				 const struct expr *rhs)
{
	const struct vec *args = &lv->args;
	struct strbuf kv;
	const char *ret;
	int i;

	sb_init(&kv);
	sb_puts(&kv, "STP_KEYS(");
	for (i = 0; i < args->n; i++) {
		const struct expr *k = args->items[i];

		sb_printf(&kv, "%s{ .%c = %s }", i ? ", " : "",
			  k->type == TY_STRING ? 's' : 'n',
			  gen_elem_key(em, o, args, i, rhs));
	}
	sb_puts(&kv, ")");
	ret = arena_strdup(em->s->arena, kv.buf);
	sb_free(&kv);
	return ret;
}

/* The right-hand side as the runtime call takes it: a constant as it
 * is (when as_is), anything else evaluated into __r after the keys.
 */
static const char *gen_rhs(struct emitter *em, struct strbuf *o,
			   const struct expr *rhs, bool copy, bool as_is)
{
	struct strbuf t;
	const char *ret;

	if (as_is && is_constant(rhs)) {
		sb_init(&t);
		gen_expr(em, &t, rhs);
		ret = arena_strdup(em->s->arena, t.buf);
		sb_free(&t);
		return ret;
	}
	if (rhs->type == TY_STRING) {
		sb_puts(o, "const char *__r = ");
		if (copy)
			sb_printf(o, "_stp_strcpy(%s, ", new_tmp(em));
	} else {
		sb_puts(o, "int64_t __r = ");
	}
	gen_expr(em, o, rhs);
	sb_puts(o, copy ? "); " : "; ");
	return "__r";
}

/* The end of a write that failed for want of room. */
static void gen_overflow_check(struct emitter *em, struct strbuf *o,
			       const struct expr *lv)
{
	sb_puts(o, "))) { ");
	raise_at(em, o, overflow_msg(em, lv->a), lv);
	sb_puts(o, " } ");
}

/* x OP y on C operands already evaluated (each may be read twice);
 * a zero divisor has been ruled out.  Wraps as gen_binary_op does.
 */
void gen_arith(struct strbuf *o, const char *op, const char *x,
	       const char *y)
{
	switch (*op) {
	case '/':
		sb_printf(o, "(%s == -1 ? (int64_t)(0 - (uint64_t)%s) : "
			  "%s / %s)", y, x, x, y);
		return;
	case '%':
		sb_printf(o, "(%s == -1 ? 0 : %s %% %s)", y, x, y);
		return;
	case '<':
		sb_printf(o, "(int64_t)((uint64_t)%s << (%s & 63))", x, y);
		return;
	case '>':
		sb_printf(o, "(%s >> (%s & 63))", x, y);
		return;
	case '&':
	case '|':
	case '^':
		sb_printf(o, "(%s %c %s)", x, *op, y);
		return;
	default:
		sb_printf(o, "(int64_t)((uint64_t)%s %c (uint64_t)%s)", x, *op,
			  y);
	}
}

bool is_divide(const char *op)
{
	return *op == '/' || *op == '%';
}

void gen_zero_check(struct emitter *em, struct strbuf *o,
		    const char *y, const struct expr *near)
{
	sb_printf(o, "if (unlikely(%s == 0)) { ", y);
	raise_at(em, o, "division by 0", near);
	sb_puts(o, " } ");
}

/* The -v of a -=, folded when v is a number. */
static const char *negated(struct emitter *em, const char *v,
			   const struct expr *rhs)
{
	struct strbuf t;
	const char *ret;

	if (rhs->kind != EX_NUM)
		return arena_printf(em->s->arena, "(int64_t)(0 - (uint64_t)%s)",
				    v);
	sb_init(&t);
	gen_num(&t, (int64_t)(0 - (uint64_t)rhs->num));
	ret = arena_strdup(em->s->arena, t.buf);
	sb_free(&t);
	return ret;
}

/*
 * a[k] OP= v, ++a[k] and a[k]++ on a long element (rhs NULL for ++
 * and --).  used says whether the value is wanted; post, that it is
 * the value before the change.
 */
static void gen_elem_long(struct emitter *em, struct strbuf *o,
			  const struct expr *lv, const char *op,
			  const struct expr *rhs, bool used, bool post)
{
	const char *m = map_of(em, lv->a), *keys, *r;

	keys = gen_elem_keys(em, o, lv, rhs);
	if (!rhs)
		r = *op == '+' ? "1" : "-1";
	else
		r = gen_rhs(em, o, rhs, false, !is_divide(op));
	if (*op == '+' || *op == '-') {
		if (rhs && *op == '-')
			r = negated(em, r, rhs);
		if (used)
			sb_puts(o, "int64_t __v; ");
		sb_printf(o, "if (unlikely(_stp_map_add_long(%s, %s, %s, %s",
			  m, keys, r, used ? "&__v" : "NULL");
		gen_overflow_check(em, o, lv);
		if (used && post)
			sb_printf(o, "(int64_t)((uint64_t)__v %c 1); ",
				  *op == '+' ? '-' : '+');
		else if (used)
			sb_puts(o, "__v; ");
		return;
	}
	sb_puts(o, "int64_t *__p; ");
	if (is_divide(op))
		gen_zero_check(em, o, r, rhs);
	sb_printf(o, "__p = _stp_map_long_ref(%s, %s); ", m, keys);
	sb_puts(o, "if (unlikely(!__p)) { ");
	raise_at(em, o, overflow_msg(em, lv->a), lv);
	sb_puts(o, " } *__p = ");
	gen_arith(o, op, "*__p", r);
	sb_puts(o, used ? "; *__p; " : "; ");
}

/* a[k] .= v: in the element itself; the value, when wanted, is copied
 * out of the array (an operand after it could change the element).
 * A wrapping array may give the node of v to the element it creates,
 * so v is copied first when it may be another element.
 */
static void gen_elem_append(struct emitter *em, struct strbuf *o,
			    const struct expr *lv, const struct expr *rhs,
			    bool used)
{
	const char *m = map_of(em, lv->a), *keys, *r;

	keys = gen_elem_keys(em, o, lv, rhs);
	r = gen_rhs(em, o, rhs, lv->a->var->wrap && !str_owned(rhs) &&
		    rhs->kind != EX_SYM, true);
	if (used)
		sb_puts(o, "const char *__v; ");
	sb_printf(o, "if (unlikely(_stp_map_append_str(%s, %s, %s, %s", m,
		  keys, r, used ? "&__v" : "NULL");
	gen_overflow_check(em, o, lv);
	if (used)
		sb_printf(o, "_stp_strcpy(%s, __v); ", new_tmp(em));
}

/* a[k] = v; a string is copied first, as it may live in the array. */
static void gen_elem_set(struct emitter *em, struct strbuf *o,
			 const struct expr *lv, const struct expr *rhs,
			 bool used)
{
	bool str = lv->type == TY_STRING;
	const char *m = map_of(em, lv->a), *keys;

	keys = gen_elem_keys(em, o, lv, rhs);
	if (str) {
		sb_printf(o, "const char *__v = _stp_strcpy(%s, ",
			  new_tmp(em));
		gen_expr(em, o, rhs);
		sb_puts(o, "); ");
	} else {
		sb_puts(o, "int64_t __v = ");
		gen_expr(em, o, rhs);
		sb_puts(o, "; ");
	}
	sb_printf(o, "if (unlikely(_stp_map_set_%s(%s, %s, __v",
		  str ? "str" : "long", m, keys);
	gen_overflow_check(em, o, lv);
	if (used)
		sb_puts(o, "__v; ");
}

/* a[k] <<< v. */
static void gen_elem_stat(struct emitter *em, struct strbuf *o,
			  const struct expr *lv, const struct expr *rhs,
			  bool used)
{
	const char *m = map_of(em, lv->a), *keys, *r;

	keys = gen_elem_keys(em, o, lv, rhs);
	r = gen_rhs(em, o, rhs, false, true);
	sb_printf(o, "if (unlikely(_stp_map_add_stat(%s, %s, %s", m, keys, r);
	gen_overflow_check(em, o, lv);
	if (used)
		sb_printf(o, "%s; ", r);
}

/* A write to an array element, as a statement expression, or as a
 * block when its value is not used (an expression statement).
 */
static void gen_elem_write(struct emitter *em, struct strbuf *o,
			   const struct expr *e, bool used)
{
	const struct expr *lv = e->a;
	const char *op = e->op;

	sb_puts(o, used ? "({ " : "{ ");
	if (e->kind == EX_INCDEC)
		gen_elem_long(em, o, lv, op, NULL, used, e->postfix);
	else if (!strcmp(op, "<<<"))
		gen_elem_stat(em, o, lv, e->b, used);
	else if (!strcmp(op, "="))
		gen_elem_set(em, o, lv, e->b, used);
	else if (!strcmp(op, ".="))
		gen_elem_append(em, o, lv, e->b, used);
	else
		gen_elem_long(em, o, lv, op, e->b, used, false);
	sb_puts(o, used ? "})" : "}");
}

static bool is_elem_write(const struct expr *e)
{
	return (e->kind == EX_ASSIGN || e->kind == EX_INCDEC) &&
	       e->a->kind == EX_INDEX && e->a->a->kind == EX_SYM;
}

/* Store into a variable or a target (elements: gen_elem_write); the
 * expression's value is the stored value.
 */
static void gen_store(struct emitter *em, struct strbuf *o,
		      const struct expr *lv, const char *value_var,
		      enum type t)
{
	if (lv->kind == EX_TARGET) {
		gen_target_store(em, o, lv, value_var);
		return;
	}
	if (t == TY_STRING)
		sb_printf(o, "_stp_strcpy(%s, %s); ", var_cname(em, lv->var),
			  value_var);
	else
		sb_printf(o, "%s = %s; ", var_cname(em, lv->var), value_var);
}

/* The current value of an lvalue (for op= and ++). */
static void gen_load(struct emitter *em, struct strbuf *o,
		     const struct expr *lv)
{
	gen_expr(em, o, lv);
}

/* x OP= v on a variable: v first, then x is read (the established
 * tool's order, so that a v that changes x is seen).
 */
static void gen_scalar_op(struct emitter *em, struct strbuf *o,
			  const struct expr *e)
{
	const char *x = var_cname(em, e->a->var);

	sb_puts(o, "({ int64_t __r = ");
	gen_expr(em, o, e->b);
	sb_puts(o, ", __v; ");
	if (is_divide(e->op))
		gen_zero_check(em, o, "__r", e->b);
	sb_puts(o, "__v = ");
	gen_arith(o, e->op, x, "__r");
	sb_printf(o, "; %s = __v; __v; })", x);
}

static void gen_assign(struct emitter *em, struct strbuf *o,
		       const struct expr *e)
{
	const struct expr *lv = e->a;
	const char *op = e->op;

	if (is_elem_write(e)) {
		gen_elem_write(em, o, e, true);
		return;
	}
	if (!strcmp(op, "<<<")) {
		sb_puts(o, "({ int64_t __v = ");
		gen_expr(em, o, e->b);
		sb_printf(o, "; _stp_stat_add(%s, __v); __v; })",
			  var_cname(em, lv->var));
		return;
	}
	if (lv->kind == EX_TARGET && lv->tref &&
	    lv->tref->base == TRB_PROCFS && !strcmp(op, ".=")) {
		/* appended in place: the buffer may exceed MAXSTRINGLEN */
		sb_puts(o, "_stp_procfs_append(c, ");
		gen_expr(em, o, e->b);
		sb_puts(o, ")");
		return;
	}
	if (e->type == TY_STRING || lv->type == TY_STRING) {
		const char *tmp = new_tmp(em);

		sb_puts(o, "({ const char *__v = ");
		if (!strcmp(op, ".=")) {
			sb_printf(o, "_stp_strcat(%s, ", tmp);
			gen_load(em, o, lv);
			sb_puts(o, ", ");
			gen_expr(em, o, e->b);
			sb_puts(o, ")");
		} else {
			/* copy first: the value may live in the target */
			sb_printf(o, "_stp_strcpy(%s, ", tmp);
			gen_expr(em, o, e->b);
			sb_puts(o, ")");
		}
		sb_puts(o, "; ");
		gen_store(em, o, lv, "__v", TY_STRING);
		sb_puts(o, "__v; })");
		return;
	}
	if (lv->kind == EX_SYM && strcmp(op, "=")) {
		gen_scalar_op(em, o, e);
		return;
	}
	if (strcmp(op, "=") && gen_target_rmw(em, o, e))
		return;
	sb_puts(o, "({ int64_t __v = ");
	if (!strcmp(op, "=")) {
		gen_expr(em, o, e->b);
	} else {
		struct expr tmp = *e;
		char bop[4];

		snprintf(bop, sizeof(bop), "%.*s", (int)strlen(op) - 1, op);
		tmp.kind = EX_BINARY;
		tmp.op = intern(bop);
		gen_binary_op(em, o, &tmp, e->b);
	}
	sb_puts(o, "; ");
	gen_store(em, o, lv, "__v", TY_LONG);
	sb_puts(o, "__v; })");
}

static void gen_incdec(struct emitter *em, struct strbuf *o,
		       const struct expr *e)
{
	const char *delta = e->op[0] == '+' ? "1" : "-1";

	if (is_elem_write(e)) {
		gen_elem_write(em, o, e, true);
		return;
	}
	if (gen_target_rmw(em, o, e))
		return;
	sb_puts(o, "({ int64_t __old = ");
	gen_load(em, o, e->a);
	sb_printf(o, ", __v = (int64_t)((uint64_t)__old + (uint64_t)%s); ",
		  delta);
	gen_store(em, o, e->a, "__v", TY_LONG);
	sb_printf(o, "%s; })", e->postfix ? "__old" : "__v");
}

static void gen_in(struct emitter *em, struct strbuf *o, const struct expr *e)
{
	const char *m = map_of(em, e->a);

	if (!has_wild(&e->args)) {
		sb_printf(o, "((int64_t)_stp_map_exists(%s, ", m);
		gen_keys(em, o, &e->args);
		sb_puts(o, "))");
		return;
	}
	sb_printf(o, "({ struct stp_map_node *__n; int64_t __found = 0; "
		  "for (__n = _stp_map_first(%s); __n; "
		  "__n = _stp_map_next(%s, __n)) if (_stp_map_node_match(%s, "
		  "__n, ", m, m, m);
	gen_keys(em, o, &e->args);
	sb_puts(o, ", ");
	gen_wild(o, &e->args);
	sb_puts(o, ")) { __found = 1; break; } __found; })");
}

/* The C name of f without its "stp_fn_" prefix: NAME_ARITY, and a
 * chain position for the lower-priority overloads of the same arity.
 */
static const char *fn_id(struct emitter *em, const struct func *f)
{
	if (f->overload_pos)
		return arena_printf(em->s->arena, "%s_%d_o%d", f->name,
				    f->params.n, f->overload_pos);
	return arena_printf(em->s->arena, "%s_%d", f->name, f->params.n);
}

/* One overload of a call: the arguments copied into f's frame, the
 * call, and its result kept in __ret (a long) or res (a string temp);
 * value says whether the caller uses the result.  As a statement, the
 * result may go straight to the variable dest.
 */
static void gen_call_one(struct emitter *em, struct strbuf *o,
			 const struct expr *e, const struct func *f,
			 const char *res, bool value, const char *dest,
			 const char **args)
{
	const char *id = fn_id(em, f);
	/* a borrowed string result (res NULL) is read from the slot by
	 * the caller
	 */
	bool frame = e->args.n || dest ||
		     (value && ((f->type == TY_STRING && res) ||
				f->type == TY_LONG));
	int i;

	if (frame)
		sb_printf(o, "{ struct stp_fn_%s_locals *__callee = "
			  "&c->func_locals[c->nesting + 1].fn_%s; ", id, id);
	for (i = 0; i < e->args.n; i++) {
		const struct vardecl *p = f->params.items[i];

		if (p->type == TY_STRING)
			sb_printf(o, "_stp_strcpy(__callee->l_%s, %s); ",
				  p->name, args[i]);
		else
			sb_printf(o, "__callee->l_%s = %s; ", p->name,
				  args[i]);
	}
	sb_printf(o, "c->last_stmt = ");
	sb_c_string(o, where(em, e));
	sb_printf(o, "; c->nesting++; stp_fn_%s(c); c->nesting--; "
		  "if (unlikely(c->last_error)) %s; ", id, fail_jump(em));
	if (dest && f->type == TY_STRING)
		sb_printf(o, "_stp_strcpy(%s, __callee->__retvalue); ", dest);
	else if (dest)
		sb_printf(o, "%s = __callee->__retvalue; ", dest);
	else if (value && f->type == TY_STRING && res)
		sb_printf(o, "_stp_strcpy(%s, __callee->__retvalue); ", res);
	else if (value && f->type == TY_LONG)
		sb_puts(o, "__ret = __callee->__retvalue; ");
	if (frame)
		sb_puts(o, "} ");
}

/* Whether no call can pass MAXNESTING: no call chain recurses and the
 * deepest one fits.  The module's MAXNESTING is the -D value, or the
 * translator's own, which is at least that depth (check_limits).
 */
static bool nesting_bounded(const struct emitter *em)
{
	return !em->s->recursive && em->s->max_nesting - 1 <= em->nesting;
}

/* Arguments are evaluated into the caller's frame before any of them
 * is copied into the callee's, which a nested call would overwrite.
 * Overloads of the same arity run in priority order for as long as
 * each one ends with 'next'; when the last one does, the call fails.
 */
static void gen_call_as(struct emitter *em, struct strbuf *o,
		       const struct expr *e, bool value, const char *dest)
{
	const struct func *f = e->func, *g;
	const char *res = NULL, *where, **args;
	bool in_place, borrow = em->borrow;
	int i;

	em->borrow = false;
	if (!f) {
		emit_error(em, e->loc, "unresolved function '%s'", e->name);
		sb_puts(o, value ? "0" : ";");
		return;
	}
	/* the callee's slot is the value: nothing the caller evaluates
	 * before it uses the value calls a function (gen_elem_keys)
	 */
	borrow = borrow && value && !f->next_overload &&
		 f->type == TY_STRING;
	/* plain arguments (and literals, and string variables, which the
	 * callee's frame cannot alias) are copied in place when one
	 * function is called
	 */
	in_place = !f->next_overload;
	args = arena_alloc(em->s->arena, sizeof(*args) *
			   (size_t)(e->args.n + 1));
	for (i = 0; i < e->args.n; i++) {
		const struct expr *a = e->args.items[i];
		struct strbuf t;

		if (is_plain(a)) {
			args[i] = plain_text(em, a);
			continue;
		}
		if (a->kind != EX_STR && !(a->kind == EX_SYM && a->var &&
		    !is_array(a->var) && a->type == TY_STRING)) {
			in_place = false;
			break;
		}
		sb_init(&t);
		gen_expr(em, &t, a);
		args[i] = arena_strdup(em->s->arena, t.buf);
		sb_free(&t);
	}
	if (!in_place)
		for (i = 0; i < e->args.n; i++)
			args[i] = arena_printf(em->s->arena, "__arg%d", i);
	/* as a statement, a block only for the arguments' declarations */
	if (value)
		sb_puts(o, "({ ");
	else if (e->args.n && !in_place)
		sb_puts(o, "{ ");
	for (i = 0; i < e->args.n && !in_place; i++) {
		const struct expr *a = e->args.items[i];

		if (a->type == TY_STRING) {
			sb_printf(o, "const char *__arg%d = ", i);
		} else {
			sb_printf(o, "int64_t __arg%d = ", i);
		}
		gen_expr(em, o, a);
		sb_puts(o, "; ");
	}
	if (value && f->type == TY_STRING && !borrow)
		res = new_tmp(em);
	else if (value && f->type == TY_LONG)
		sb_puts(o, "int64_t __ret = 0; ");
	/* reported at the function's name in its definition, as the
	 * established tool checks the depth in the callee; the kernel
	 * stack is checked too, whatever MAXNESTING allows (stp_nesting.h)
	 */
	where = at_loc(em, arena_printf(em->s->arena, "identifier '%s'",
					f->name), f->loc);
	if (!nesting_bounded(em)) {
		sb_puts(o, "if (unlikely(c->nesting + 1 > MAXNESTING)) { "
			"_stp_error_at(c, \"MAXNESTING exceeded\", ");
		sb_c_string(o, where);
		sb_printf(o, "); %s; } ", fail_jump(em));
	}
	/* a leaf's frame is the last of the chain: the room checked for
	 * its caller's call covers it (stp_nesting.h)
	 */
	if (!f->leaf) {
		sb_puts(o, "if (unlikely(!_stp_call_room(c))) { "
			"_stp_error_at(c, \"MAXCALLSTACK exceeded\", ");
		sb_c_string(o, where);
		sb_printf(o, "); %s; } ", fail_jump(em));
	}
	gen_call_one(em, o, e, f, res, value, dest, args);
	for (g = f->next_overload; g; g = g->next_overload) {
		sb_puts(o, "if (c->next) { c->next = 0; ");
		gen_call_one(em, o, e, g, res, value, dest, args);
		sb_puts(o, "} ");
	}
	for (g = f; g && !g->has_next; g = g->next_overload)
		;
	if (g) {
		sb_puts(o, "if (unlikely(c->next)) { c->next = 0; ");
		raise_at(em, o, "all functions exhausted", e);
		sb_puts(o, " } ");
	}
	if (!value)
		sb_puts(o, e->args.n && !in_place ? "}" : "");
	else if (borrow)
		sb_printf(o, "c->func_locals[c->nesting + 1].fn_%s.__retvalue; "
			  "})", fn_id(em, f));
	else if (f->type == TY_STRING)
		sb_printf(o, "%s; })", res);
	else if (f->type == TY_LONG)
		sb_puts(o, "__ret; })");
	else
		sb_puts(o, "(int64_t)0; })");
}

static void gen_call(struct emitter *em, struct strbuf *o,
		     const struct expr *e)
{
	gen_call_as(em, o, e, true, NULL);
}

static bool print_is_ln(const char *n)
{
	return strstr(n, "ln") != NULL;
}

static bool print_is_delim(const char *n)
{
	return strstr(n, "printd") != NULL;
}

/* A chart of an empty statistic is the error "empty aggregate",
 * reported at the print call.
 */
static void gen_hist_print(struct emitter *em, struct strbuf *o,
			   const struct expr *h, const struct expr *call)
{
	const char *desc;

	sb_puts(o, "{ const struct stp_stat_agg *__a; ");
	desc = gen_agg_of(em, o, h->a);
	sb_puts(o, "if (unlikely(__a->count == 0)) { ");
	raise_at(em, o, "empty aggregate", call);
	if (em->s->opt.json)
		sb_printf(o, " } _stp_print_kind(STP_JSON_OBJECTS); "
			  "_stp_print(\"{\\\"type\\\":\\\"hist\\\",\"); "
			  "_stp_stat_print_json(__a); _stp_print_char(','); "
			  "_stp_stat_print_hist_json(%s, __a); "
			  "_stp_print(\"}\\n\"); "
			  "_stp_print_kind(STP_JSON_TEXT); } ", desc);
	else
		sb_printf(o, " } _stp_stat_print_hist(%s, __a); } ", desc);
}

/* print family into the print buffer: each value, then the separator
 * (printd) or newline (println).
 */
static void gen_print_values(struct emitter *em, struct strbuf *o,
			     const struct expr *e)
{
	int i;

	for (i = 0; i < e->args.n; i++) {
		const struct expr *a = e->args.items[i];

		if (i && print_is_delim(e->name)) {
			sb_puts(o, "_stp_print(\"");
			sb_puts(o, e->fmt);
			sb_puts(o, "\"); ");
		}
		if (a->kind == EX_HIST) {
			gen_hist_print(em, o, a, e);
		} else if (a->type == TY_STRING) {
			sb_puts(o, "_stp_print(");
			gen_expr(em, o, a);
			sb_puts(o, "); ");
		} else {
			sb_puts(o, "_stp_printf(\"%d\", (int64_t)(");
			gen_expr(em, o, a);
			sb_puts(o, ")); ");
		}
	}
	if (print_is_ln(e->name))
		sb_puts(o, "_stp_print_char('\\n'); ");
}

/* Arguments are evaluated left to right into locals, then passed. */
static void gen_format_vals(struct emitter *em, struct strbuf *o,
			    const struct expr *e)
{
	int i;

	for (i = 0; i < e->args.n; i++) {
		const struct expr *a = e->args.items[i];

		sb_printf(o, "%s__val%d = ", a->type == TY_STRING ?
			  "const char *" : "int64_t ", i);
		gen_expr(em, o, a);
		sb_puts(o, "; ");
	}
}

static void gen_format_args(struct emitter *em, struct strbuf *o,
			    const struct expr *e)
{
	int i;

	(void)em;
	for (i = 0; i < e->args.n; i++)
		sb_printf(o, ", __val%d", i);
}

/* The print and sprint forms as one printf-style format: "%d" for a
 * long, "%s" for a string, the printd delimiter between values (its '%'
 * doubled), and "\n" for the ln forms.
 */
static const char *values_format(struct emitter *em, const struct expr *e)
{
	struct strbuf f;
	const char *r, *p;
	int i;

	sb_init(&f);
	sb_putn(&f, "", 0);
	for (i = 0; i < e->args.n; i++) {
		const struct expr *a = e->args.items[i];

		if (i && print_is_delim(e->name))
			for (p = e->fmt; *p; p++)
				sb_puts(&f, *p == '%' ? "%%" : (char[]){ *p, 0 });
		sb_puts(&f, a->type == TY_STRING ? "%s" : "%d");
	}
	if (print_is_ln(e->name))
		sb_puts(&f, "\\n");
	r = arena_strdup(em->s->arena, f.buf);
	sb_free(&f);
	return r;
}

static bool has_hist_arg(const struct expr *e)
{
	int i;

	for (i = 0; i < e->args.n; i++)
		if (((const struct expr *)e->args.items[i])->kind == EX_HIST)
			return true;
	return false;
}

/* Whether a printf format has a %m or %M directive, which reads memory:
 * the slot of each conversion spans its whole directive.
 */
static bool format_reads_memory(struct emitter *em, const char *f)
{
	const char *bad;
	int i, n = fmt_slots(f, NULL, 0, &bad);
	struct fmt_slot *slots;

	if (n <= 0)
		return false;
	slots = arena_alloc(em->s->arena, (size_t)n * sizeof(*slots));
	fmt_slots(f, slots, n, &bad);
	for (i = 0; i < n; i++) {
		char conv = slots[i].spec[slots[i].len - 1];

		if (conv == 'm' || conv == 'M')
			return true;
	}
	return false;
}

/* After a format that read memory: a faulting read is a script error. */
static void gen_print_fault_check(struct emitter *em, struct strbuf *o,
				  const struct expr *e)
{
	sb_puts(o, "{ unsigned long __fa; int __fu; "
		"if (unlikely(_stp_print_fault(&__fa, &__fu))) { "
		"_stp_error_fmt(c, ");
	sb_c_string(o, where(em, e));
	sb_printf(o, ", \"%%s read fault at 0x%%lx\", __fu ? \"user\" : "
		  "\"kernel\", __fa); %s; } } ", fail_jump(em));
}

/* A value printf may take as it is: nothing to evaluate in order. */
static bool print_arg_plain(const struct expr *a)
{
	if (a->kind == EX_STR || is_plain(a))
		return true;
	return a->kind == EX_SYM && a->var && !a->var->is_global &&
	       a->type == TY_STRING;
}

/* print or printf as a statement: the call itself, its arguments in
 * place when they are plain values, else evaluated in order first.
 */
static void gen_print_stmt(struct emitter *em, struct strbuf *o,
			   const struct expr *e, const char *f)
{
	bool plain = true;
	int i;

	for (i = 0; i < e->args.n; i++)
		plain &= print_arg_plain(e->args.items[i]);
	if (!plain) {
		sb_puts(o, "{ ");
		gen_format_vals(em, o, e);
	}
	sb_printf(o, "_stp_printf(\"%s\"", f);
	if (plain) {
		for (i = 0; i < e->args.n; i++) {
			const struct expr *a = e->args.items[i];

			if (a->kind == EX_NUM) {
				sb_printf(o, ", (int64_t)%s",
					  plain_text(em, a));
				continue;
			}
			sb_puts(o, ", ");
			if (is_plain(a))
				sb_puts(o, plain_text(em, a));
			else
				gen_expr(em, o, a);
		}
	} else {
		gen_format_args(em, o, e);
	}
	sb_puts(o, "); ");
	if (strstr(e->name, "printf") && format_reads_memory(em, f))
		gen_print_fault_check(em, o, e);
	if (!plain)
		sb_puts(o, "}");
}

static void gen_print(struct emitter *em, struct strbuf *o,
		      const struct expr *e)
{
	gen_print_as(em, o, e, true);
}

static void gen_print_as(struct emitter *em, struct strbuf *o,
			 const struct expr *e, bool value)
{
	bool sform = e->name[0] == 's';
	bool fmt = strstr(e->name, "printf") != NULL;
	const char *f = fmt ? e->fmt : NULL;

	if (!fmt && !sform && has_hist_arg(e)) {
		sb_puts(o, value ? "({ " : "");
		gen_print_values(em, o, e);
		sb_puts(o, value ? "(int64_t)0; })" : "");
		return;
	}
	if (!fmt) {
		if (has_hist_arg(e)) {
			emit_error(em, e->loc, "'%s' of a histogram is not "
				   "supported yet", e->name);
			sb_puts(o, "\"\"");
			return;
		}
		f = values_format(em, e);
	}
	if (!sform && !value) {
		gen_print_stmt(em, o, e, f);
		return;
	}
	if (!sform) {
		sb_puts(o, "({ ");
		gen_format_vals(em, o, e);
		sb_printf(o, "_stp_printf(\"%s\"", f);
		gen_format_args(em, o, e);
		sb_puts(o, "); ");
		if (fmt && format_reads_memory(em, f))
			gen_print_fault_check(em, o, e);
		sb_puts(o, "(int64_t)0; })");
		return;
	}
	{
		const char *tmp = new_tmp(em);

		sb_puts(o, "({ ");
		gen_format_vals(em, o, e);
		sb_printf(o, "_stp_snprintf(%s, MAXSTRINGLEN, \"%s\"", tmp,
			  f);
		gen_format_args(em, o, e);
		sb_puts(o, "); ");
		if (fmt && format_reads_memory(em, f))
			gen_print_fault_check(em, o, e);
		sb_printf(o, "(const char *)%s; })", tmp);
	}
}

/* @perf("NAME"): the count of the task's counter NAME. */
static void gen_perf(struct emitter *em, struct strbuf *o,
		     const struct expr *e)
{
	int slot = perf_counter_slot(em->s, e->str);

	if (slot < 0) {
		emit_error(em, e->loc, "no perf counter \"%s\": define it "
			   "with a probe perf.type(T).config(C).process"
			   ".counter(\"%s\")", e->str, e->str);
		sb_puts(o, "((int64_t)0)");
		return;
	}
	sb_printf(o, "_stp_perf_read(c, %d, ", slot);
	sb_c_string(o, where(em, e));
	sb_puts(o, ")");
}

/* The variable of a function's frame (parameter or local) named
 * name[0..n), or NULL.
 */
static const struct vardecl *frame_var(const struct body *b,
					const char *name, size_t n)
{
	const struct vec *vs[2] = { b->params, b->locals };
	int i, k;

	for (k = 0; k < 2; k++)
		for (i = 0; vs[k] && i < vs[k]->n; i++) {
			const struct vardecl *v = vs[k]->items[i];

			if (strlen(v->name) == n && !strncmp(v->name, name, n))
				return v;
		}
	return NULL;
}

/* An embedded expression in a script function may name the function's
 * parameters and locals STAP_ARG_x, as an embedded function does.
 */
static void gen_embedded_expr(struct emitter *em, struct strbuf *o,
			      const char *code)
{
	const char *p = code, *m;

	while (em->b->func && (m = strstr(p, "STAP_ARG_"))) {
		const char *id = m + strlen("STAP_ARG_");
		const struct vardecl *v;
		size_t n = 0;

		while (isalnum((unsigned char)id[n]) || id[n] == '_')
			n++;
		v = m == code || !(isalnum((unsigned char)m[-1]) ||
				   m[-1] == '_') ? frame_var(em->b, id, n) :
				  NULL;
		sb_putn(o, p, m - p);
		if (v)
			sb_printf(o, "(%s)", var_cname(em, v));
		else
			sb_putn(o, m, id + n - m);
		p = id + n;
	}
	sb_puts(o, p);
}

void gen_expr(struct emitter *em, struct strbuf *o, const struct expr *e)
{
	switch (e->kind) {
	case EX_NUM:
		gen_num(o, e->num);
		break;
	case EX_STR:
		sb_printf(o, "\"%s\"", e->str);
		break;
	case EX_SYM:
		sb_puts(o, var_cname(em, e->var));
		break;
	case EX_INDEX:
		gen_index(em, o, e);
		break;
	case EX_CALL:
		gen_call(em, o, e);
		break;
	case EX_PRINT:
		gen_print(em, o, e);
		break;
	case EX_UNARY:
		if (!strcmp(e->op, "-")) {
			sb_puts(o, "((int64_t)(0 - (uint64_t)");
			gen_expr(em, o, e->a);
			sb_puts(o, "))");
		} else {
			sb_printf(o, "((int64_t)(%s", e->op);
			gen_expr(em, o, e->a);
			sb_puts(o, "))");
		}
		break;
	case EX_INCDEC:
		gen_incdec(em, o, e);
		break;
	case EX_BINARY:
		gen_binary(em, o, e);
		break;
	case EX_LOGICAL:
		sb_puts(o, "((int64_t)(");
		gen_expr(em, o, e->a);
		sb_printf(o, " %s ", e->op);
		gen_expr(em, o, e->b);
		sb_puts(o, "))");
		break;
	case EX_COMPARE:
		gen_compare(em, o, e);
		break;
	case EX_REGEX:
		sb_printf(o, "((int64_t)(%sSTP_REGEX_EXEC(&stp_regex[%d], ",
			  e->op[0] == '!' ? "!" : "",
			  regex_index(em, e->b->str));
		gen_expr(em, o, e->a);
		sb_puts(o, ")))");
		break;
	case EX_CONCAT:
		gen_pair(em, o, "const char *", e->a, e->b);
		sb_printf(o, "_stp_strcat(%s, __x, __y); })", new_tmp(em));
		break;
	case EX_TERNARY:
		sb_puts(o, "(");
		gen_expr(em, o, e->a);
		sb_puts(o, " ? ");
		gen_expr(em, o, e->b);
		sb_puts(o, " : ");
		gen_expr(em, o, e->c);
		sb_puts(o, ")");
		break;
	case EX_ASSIGN:
		gen_assign(em, o, e);
		break;
	case EX_IN:
		gen_in(em, o, e);
		break;
	case EX_STAT:
		gen_stat_extract(em, o, e);
		break;
	case EX_HIST:
		emit_error(em, e->loc, "a histogram can only be printed");
		sb_puts(o, "0");
		break;
	case EX_DEFINED:
		/* pass 2 folds what it can resolve; what is left is not
		 * defined here
		 */
		sb_puts(o, "((int64_t)0)");
		break;
	case EX_CONST:
		sb_printf(o, "((int64_t)(%s))", e->str);
		break;
	case EX_EMBEDDED:
		sb_puts(o, e->embedded_string ? "((const char *)(" :
			"((int64_t)(");
		gen_embedded_expr(em, o, e->code);
		sb_puts(o, "))");
		break;
	case EX_TARGET:
		if (e->tref)
			gen_target(em, o, e);
		else
			gen_target_unsupported(em, o, e,
					       "target variable access");
		break;
	case EX_ENTRY:
		if (e->tref)
			gen_entry_slot(em, o, e);
		else
			gen_target_unsupported(em, o, e, "@entry");
		break;
	case EX_PERF:
		gen_perf(em, o, e);
		break;
	}
}

/* ------------------------------------------------------------------ */
/* Statements                                                         */

/* x = v, x op= v and x++ on a scalar variable, as a statement: the
 * store itself when v is plain or a fresh string (else NULL, and the
 * expression form is used).
 */
static bool gen_scalar_stmt(struct emitter *em, struct strbuf *o,
			    const struct expr *e)
{
	const struct expr *lv = e->a, *v = e->b;
	const char *x, *r;

	if ((e->kind != EX_ASSIGN && e->kind != EX_INCDEC) ||
	    lv->kind != EX_SYM || !lv->var || is_array(lv->var))
		return false;
	x = var_cname(em, lv->var);
	if (is_stat_var(lv->var)) {
		if (e->kind != EX_ASSIGN || strcmp(e->op, "<<<"))
			return false;
		sb_printf(o, "_stp_stat_add(%s, ", x);
		gen_operand(em, o, v);
		sb_puts(o, ");");
		return true;
	}
	if (e->kind == EX_INCDEC) {
		if (lv->type != TY_LONG)
			return false;
		sb_printf(o, "%s = (int64_t)((uint64_t)%s %c 1);", x, x,
			  e->op[0]);
		return true;
	}
	if (!strcmp(e->op, "=") && v->kind == EX_CALL && v->func &&
	    !v->func->next_overload && !v->func->has_next &&
	    v->type == lv->type &&
	    (lv->type == TY_STRING || lv->type == TY_LONG)) {
		/* the result stored from the callee's frame */
		gen_call_as(em, o, v, false, x);
		return true;
	}
	if (lv->type == TY_STRING && !strcmp(e->op, "=") &&
	    (str_owned(v) || (v->kind == EX_PRINT && v->name[0] == 's') ||
	     (v->kind == EX_SYM && v->var != lv->var))) {
		/* a fresh string, or another variable: copied straight in */
		sb_printf(o, "_stp_strcpy(%s, ", x);
		gen_expr(em, o, v);
		sb_puts(o, ");");
		return true;
	}
	if (lv->type == TY_STRING && !strcmp(e->op, ".=") &&
	    (v->kind == EX_STR || (v->kind == EX_SYM && v->var &&
				   !is_array(v->var)))) {
		/* joined in a temporary, copied back */
		sb_printf(o, "_stp_strcpy(%s, _stp_strcat(%s, %s, ", x,
			  new_tmp(em), x);
		gen_expr(em, o, v);
		sb_puts(o, "));");
		return true;
	}
	if (lv->type != TY_LONG || e->type != TY_LONG)
		return false;
	if (!strcmp(e->op, "=")) {
		sb_printf(o, "%s = ", x);
		gen_operand(em, o, v);
		sb_putc(o, ';');
		return true;
	}
	r = plain_text(em, v);
	if (!r || is_divide(e->op) || !strcmp(e->op, "<<<") ||
	    strlen(e->op) < 2)
		return false;
	sb_printf(o, "%s = ", x);
	gen_arith(o, (char[]){ e->op[0], e->op[1] == '=' ? 0 : e->op[1], 0 },
		  x, r);
	sb_putc(o, ';');
	return true;
}

/* A statement at the current depth, a statement per line. */
static void stmt_line(struct emitter *em, const char *text)
{
	struct strbuf t;

	sb_init(&t);
	sb_indent(&t, em->depth);
	sb_puts(&t, text);
	c_reflow_line(t.buf, &em->b->text);
	sb_free(&t);
}

/* e evaluated for its effect, as an expression (a for header's). */
static const char *effect_text(struct emitter *em, const struct expr *e)
{
	struct strbuf o;
	const char *r;

	sb_init(&o);
	if (e->kind == EX_ASSIGN && e->b->kind == EX_CALL &&
	    gen_scalar_stmt(em, &o, e)) {
		/* a call stored in place is statements: for (a = f(); ...) */
		sb_puts(&o, " })");
		r = arena_printf(em->s->arena, "({ %s", o.buf);
		sb_free(&o);
		return r;
	}
	if (gen_scalar_stmt(em, &o, e)) {
		o.buf[--o.len] = '\0';		/* the ';' */
	} else {
		sb_puts(&o, "(void)");
		gen_expr(em, &o, e);
	}
	r = arena_strdup(em->s->arena, o.buf);
	sb_free(&o);
	return r;
}

static void gen_expr_stmt(struct emitter *em, const struct expr *e)
{
	struct strbuf o;

	if (gen_counter_add(em, e))
		return;

	sb_init(&o);
	if (is_elem_write(e)) {
		gen_elem_write(em, &o, e, false);
	} else if (e->kind == EX_CALL) {
		/* a call for its effect: no value, no statement expression */
		gen_call_as(em, &o, e, false, NULL);
	} else if (e->kind == EX_PRINT && e->name[0] != 's') {
		gen_print_as(em, &o, e, false);
	} else if (gen_scalar_stmt(em, &o, e)) {
		/* the store, nothing around it */
	} else {
		sb_puts(&o, "(void)");
		gen_expr(em, &o, e);
		sb_putc(&o, ';');
	}
	while (o.len && o.buf[o.len - 1] == ' ')
		o.buf[--o.len] = '\0';
	stmt_line(em, o.buf);
	sb_free(&o);
}

static const char *cond_text(struct emitter *em, const struct expr *e)
{
	struct strbuf o;
	const char *r, *x, *y;

	/* a comparison of plain operands: no int64_t for a condition */
	if (e->kind == EX_COMPARE && (x = plain_text(em, e->a)) &&
	    (y = plain_text(em, e->b)))
		return arena_printf(em->s->arena, "%s %s %s", x, e->op, y);
	sb_init(&o);
	gen_expr(em, &o, e);
	r = arena_strdup(em->s->arena, o.buf);
	sb_free(&o);
	return r;
}

/* The token a statement is reported at, as the established tool names
 * it: the keyword, the block's brace, or the expression's token.
 */
static const char *stmt_near(struct emitter *em, const struct stmt *st)
{
	const char *what;

	switch (st->kind) {
	case ST_EXPR:
		return where(em, st->expr);
	case ST_BLOCK:
		what = "operator '{'";
		break;
	case ST_NULL:
		what = "operator ';'";
		break;
	case ST_IF:
		what = "keyword 'if'";
		break;
	case ST_WHILE:
		what = "keyword 'while'";
		break;
	case ST_FOR:
		what = "keyword 'for'";
		break;
	case ST_FOREACH:
		what = "keyword 'foreach'";
		break;
	case ST_BREAK:
		what = "keyword 'break'";
		break;
	case ST_CONTINUE:
		what = "keyword 'continue'";
		break;
	case ST_RETURN:
		what = "keyword 'return'";
		break;
	case ST_NEXT:
		what = "keyword 'next'";
		break;
	case ST_DELETE:
		what = "keyword 'delete'";
		break;
	case ST_TRY:
		what = "keyword 'try'";
		break;
	default:
		what = "statement";
		break;
	}
	return at_loc(em, what, st->loc);
}

/* MAXACTION accounting, as the established tool does it: the statements
 * of a straight run are charged together once they have run, at the end
 * of their block (each loop iteration, too) or before the control
 * statement that ends the run, and the error names that place.
 */
static void charge_actions(struct emitter *em, const struct stmt *at)
{
	struct strbuf o;

	if (!em->actions)
		return;
	if (em->lean) {
		/* a lean run is bounded: nothing to charge */
		em->actions = 0;
		return;
	}
	sb_init(&o);
	sb_printf(&o, "c->actionremaining -= %d;", em->actions);
	line(em, "%s", o.buf);
	o.len = 0;
	sb_puts(&o, "if (unlikely(c->actionremaining < 0)) { "
		"_stp_error_at(c, \"MAXACTION exceeded\", ");
	sb_c_string(&o, stmt_near(em, at));
	sb_printf(&o, "); %s; }", fail_jump(em));
	line(em, "%s", o.buf);
	sb_free(&o);
	em->actions = 0;
}

static bool is_control(const struct stmt *st)
{
	switch (st->kind) {
	case ST_IF:
	case ST_WHILE:
	case ST_FOR:
	case ST_FOREACH:
	case ST_BREAK:
	case ST_CONTINUE:
	case ST_RETURN:
	case ST_NEXT:
	case ST_TRY:
		return true;
	default:
		return false;
	}
}

/* One statement of a run: counted, and a control statement first
 * settles the account of the run it ends.
 */
static void gen_counted(struct emitter *em, const struct stmt *st)
{
	if (st->kind != ST_BLOCK && st->kind != ST_NULL)
		em->actions++;
	if (is_control(st))
		charge_actions(em, st);
	gen_stmt(em, st);
}

static void gen_block_body(struct emitter *em, const struct stmt *st)
{
	if (st->kind == ST_BLOCK) {
		int i;

		for (i = 0; i < st->stmts.n; i++)
			gen_counted(em, st->stmts.items[i]);
	} else {
		gen_counted(em, st);
	}
	charge_actions(em, st);
}

static void gen_sub(struct emitter *em, const struct stmt *st)
{
	em->depth++;
	gen_block_body(em, st);
	em->depth--;
}

static void gen_delete(struct emitter *em, const struct stmt *st)
{
	const struct expr *e = st->expr;
	struct strbuf o;

	sb_init(&o);
	if (e->kind == EX_INDEX) {
		const char *m = map_of(em, e->a);

		if (has_wild(&e->args)) {
			sb_printf(&o, "_stp_map_delete_slice(%s, ", m);
			gen_keys(em, &o, &e->args);
			sb_puts(&o, ", ");
			gen_wild(&o, &e->args);
			sb_puts(&o, ");");
		} else {
			sb_printf(&o, "_stp_map_delete(%s, ", m);
			gen_keys(em, &o, &e->args);
			sb_puts(&o, ");");
		}
	} else if (is_array(e->var)) {
		sb_printf(&o, "_stp_map_clear(%s);", var_cname(em, e->var));
	} else if (is_stat_var(e->var)) {
		sb_printf(&o, "_stp_stat_clear(%s);", var_cname(em, e->var));
	} else if (e->var->type == TY_STRING) {
		sb_printf(&o, "%s[0] = '\\0';", var_cname(em, e->var));
	} else {
		sb_printf(&o, "%s = 0;", var_cname(em, e->var));
	}
	line(em, "%s", o.buf);
	sb_free(&o);
}

static void assign_loop_var(struct emitter *em, const struct expr *v,
			    const char *value, bool is_str)
{
	if (is_str)
		line(em, "_stp_strcpy(%s, %s);", var_cname(em, v->var),
		     value);
	else
		line(em, "%s = %s;", var_cname(em, v->var), value);
}

static void gen_foreach_hist(struct emitter *em, const struct stmt *st)
{
	const struct expr *h = st->base;
	const struct expr *k = st->keys.items[0];
	const char *name;

	if (h->a->kind != EX_SYM) {
		emit_error(em, st->loc, "foreach over the histogram of an "
			   "array element is not supported yet");
		return;
	}
	name = var_cname(em, h->a->var);
	line(em, "{");
	em->depth++;
	line(em, "int __i;");
	line(em, "for (__i = 0; __i < %s_desc.buckets; __i++) {", name);
	em->depth++;
	assign_loop_var(em, k, arena_printf(em->s->arena,
		"_stp_stat_bucket_key(&%s_desc, __i)", name), false);
	em->actions++;			/* the iteration itself */
	gen_block_body(em, st->body);
	em->depth--;
	line(em, "}");
	em->depth--;
	line(em, "}");
}

static const char *const agg_names[] = {
	"STP_STAT_COUNT", "STP_STAT_SUM", "STP_STAT_MIN", "STP_STAT_MAX",
	"STP_STAT_AVG", "STP_STAT_VARIANCE",
};

static void gen_foreach(struct emitter *em, const struct stmt *st)
{
	const char *m;
	struct vardecl *arr;
	int i, saved_floor = em->b->tmp_floor;
	struct strbuf o;

	if (st->base->kind == EX_HIST) {
		gen_foreach_hist(em, st);
		return;
	}
	arr = st->base->var;
	m = var_cname(em, arr);
	line(em, "{");
	em->depth++;
	line(em, "struct stp_map_node *__n;");
	if (st->limit)
		line(em, "int64_t __limit = %s;", cond_text(em, st->limit));
	sb_init(&o);
	if (st->slice.n) {
		/* the slice's keys stay alive through the body */
		sb_puts(&o, "const struct stp_key *__slice = ");
		gen_keys(em, &o, &st->slice);
		sb_putc(&o, ';');
		line(em, "%s", o.buf);
		em->b->tmp_floor = em->b->tmp_next;
	}
	if (is_stat_var(arr))
		line(em, "_stp_map_agg(%s);", m);
	if (st->sort_column)
		line(em, "_stp_map_sort(%s, %d, %d, %s);", m,
		     st->sort_column < 0 ? 0 : st->sort_column, st->sort_dir,
		     agg_names[st->sort_agg_set ? st->sort_agg : 0]);
	line(em, "for (__n = _stp_map_first(%s); __n; "
	     "__n = _stp_map_next(%s, __n)) {", m, m);
	em->depth++;
	if (st->slice.n) {
		sb_free(&o);
		sb_init(&o);
		sb_printf(&o, "if (!_stp_map_node_match(%s, __n, __slice, ",
			  m);
		gen_wild(&o, &st->slice);
		sb_puts(&o, "))");
		line(em, "%s", o.buf);
		line(em, "\tcontinue;");
	}
	if (st->limit) {
		line(em, "if (__limit-- <= 0)");
		line(em, "\tbreak;");
	}
	for (i = 0; i < st->keys.n; i++) {
		const struct expr *k = st->keys.items[i];
		bool str = arr->index_types[i] == TY_STRING;

		assign_loop_var(em, k, arena_printf(em->s->arena,
			"_stp_node_key_%s(%s, __n, %d)", str ? "str" : "long",
			m, i), str);
	}
	if (st->value) {
		if (is_stat_var(arr))
			emit_error(em, st->value->loc, "binding the value of "
				   "a statistics array is not supported");
		else
			assign_loop_var(em, st->value, arena_printf(
				em->s->arena, "_stp_node_%s(%s, __n)",
				arr->type == TY_STRING ? "str" : "long", m),
				arr->type == TY_STRING);
	}
	em->actions++;			/* the iteration itself */
	vec_push(em->s->arena, &em->b->iterating, arr);
	gen_block_body(em, st->body);
	em->b->iterating.n--;
	em->depth--;
	line(em, "}");
	em->depth--;
	line(em, "}");
	em->b->tmp_floor = saved_floor;
	sb_free(&o);
}

static void gen_try(struct emitter *em, const struct stmt *st)
{
	int n = em->b->label_seq++;
	const char *saved = em->b->err_label;
	const char *catch_label = arena_printf(em->s->arena, "catch_%d", n);

	line(em, "{");
	em->depth++;
	em->b->err_label = catch_label;
	gen_block_body(em, st->body);
	em->b->err_label = saved;
	line(em, "goto try_end_%d;", n);
	em->depth--;
	line(em, "%s: __maybe_unused;", catch_label);
	em->depth++;
	line(em, "if (c->last_error) {");
	em->depth++;
	/* a handler that lost its locks (stp_mem.c) must not go on */
	line(em, "if (unlikely(c->locks_lost))");
	line(em, "\t%s;", fail_jump(em));
	if (st->catch_var)
		line(em, "_stp_strcpy(%s, c->last_error);",
		     var_cname(em, st->catch_var->var));
	line(em, "c->last_error = NULL;");
	gen_block_body(em, st->els);
	em->depth--;
	line(em, "}");
	em->depth--;
	line(em, "try_end_%d:", n);
	line(em, "\t;");
	line(em, "}");
}

static void gen_return(struct emitter *em, const struct stmt *st)
{
	struct strbuf o;

	em->b->uses_out = true;
	if (st->expr && st->expr->type == TY_UNKNOWN) {
		/* return f() of a function that returns nothing */
		sb_init(&o);
		sb_puts(&o, "(void)(");
		gen_expr(em, &o, st->expr);
		sb_puts(&o, ");");
		line(em, "%s", o.buf);
		sb_free(&o);
	} else if (st->expr) {
		em->b->uses_locals = true;
		sb_init(&o);
		if (st->expr->type == TY_STRING) {
			sb_puts(&o, "_stp_strcpy(l->__retvalue, ");
			gen_expr(em, &o, st->expr);
			sb_puts(&o, ");");
		} else {
			sb_puts(&o, "l->__retvalue = ");
			gen_expr(em, &o, st->expr);
			sb_putc(&o, ';');
		}
		line(em, "%s", o.buf);
		sb_free(&o);
	}
	/* the function's last statement falls through to out anyway */
	if (st != em->b->tail)
		line(em, "goto out;");
}

static void gen_stmt(struct emitter *em, const struct stmt *st)
{
	em->b->tmp_next = em->b->tmp_floor;
	switch (st->kind) {
	case ST_BLOCK:
		line(em, "{");
		gen_sub(em, st);
		line(em, "}");
		return;
	case ST_NULL:
		return;
	case ST_EXPR:
		gen_expr_stmt(em, st->expr);
		return;
	case ST_IF:
		line(em, "if (%s) {", cond_text(em, st->expr));
		gen_sub(em, st->body);
		if (st->els) {
			line(em, "} else {");
			gen_sub(em, st->els);
		}
		line(em, "}");
		return;
	case ST_WHILE:
		line(em, "while (%s) {", cond_text(em, st->expr));
		em->depth++;
		em->actions++;		/* the iteration itself */
		gen_block_body(em, st->body);
		em->depth--;
		line(em, "}");
		return;
	case ST_FOR:
		line(em, "for (%s; %s; %s) {",
		     st->init ? effect_text(em, st->init) : "",
		     st->expr ? cond_text(em, st->expr) : "",
		     st->incr ? effect_text(em, st->incr) : "");
		em->depth++;
		em->actions++;		/* the iteration itself */
		gen_block_body(em, st->body);
		em->depth--;
		line(em, "}");
		return;
	case ST_FOREACH:
		gen_foreach(em, st);
		return;
	case ST_BREAK:
		line(em, "break;");
		return;
	case ST_CONTINUE:
		line(em, "continue;");
		return;
	case ST_RETURN:
		gen_return(em, st);
		return;
	case ST_NEXT:
		if (em->b->func)
			line(em, "c->next = 1;");
		em->b->uses_out = true;
		line(em, "goto out;");
		return;
	case ST_DELETE:
		gen_delete(em, st);
		return;
	case ST_TRY:
		gen_try(em, st);
		return;
	}
}

/* ------------------------------------------------------------------ */
/* Functions and probe handlers                                       */

static void init_locals(struct emitter *em, const struct body *b)
{
	int i;

	for (i = 0; i < b->locals->n; i++) {
		const struct vardecl *v = b->locals->items[i];

		em->b->uses_locals = true;
		if (v->type == TY_STRING)
			line(em, "l->l_%s[0] = '\\0';", v->name);
		else
			line(em, "l->l_%s = 0;", v->name);
	}
}

/* Declare the frame pointer l at the top of b's C function, once the
 * body is written and it is known whether anything uses it.
 */
static void declare_locals(struct body *b, const char *type,
			   const char *init)
{
	const char *p;
	bool seen = false;
	struct strbuf t;

	/* what the body marks; and, should anything else read "l->" (the
	 * text of embedded C, say), l is declared as maybe unused
	 */
	for (p = strstr(b->text.buf + b->locals_at, "l->"); p && !seen;
	     p = strstr(p + 1, "l->")) {
		const char *bol = p;

		while (bol > b->text.buf && bol[-1] != '\n')
			bol--;
		/* the macros of embedded C name l: only their use counts */
		seen = *bol != '#' &&
		       !(p[-1] == '_' || (p[-1] >= '0' && p[-1] <= '9') ||
			 (p[-1] >= 'a' && p[-1] <= 'z') ||
			 (p[-1] >= 'A' && p[-1] <= 'Z'));
	}
	if (!b->uses_locals && !seen)
		return;
	sb_init(&t);
	sb_putn(&t, b->text.buf, b->locals_at);
	sb_printf(&t, "\tstruct %s *l%s =", type,
		  b->uses_locals && !b->maybe_locals ? "" : " __maybe_unused");
	/* a line of its own for the initializer when it is too wide */
	if (strlen(type) + strlen(init) + 22 > 80)
		sb_printf(&t, "\n\t\t%s;\n", init);
	else
		sb_printf(&t, " %s;\n", init);
	sb_puts(&t, b->text.buf + b->locals_at);
	sb_free(&b->text);
	b->text = t;
}

static struct body *new_body(struct emitter *em, const char *cname,
			     const char *ltype, struct vec *locals)
{
	struct body *b = arena_alloc(em->s->arena, sizeof(*b));

	b->cname = cname;
	b->locals_type = ltype;
	b->locals = locals;
	b->err_label = "out";
	sb_init(&b->text);
	vec_push(em->s->arena, &em->bodies, b);
	return b;
}


/* STAP_GLOBAL_GET_G() and STAP_GLOBAL_SET_G(v) for a scalar global G
 * that embedded C names in a pragma (the handler holds its lock, taken
 * for the pragma); a string's GET is its buffer, SET copies, cut to
 * MAXSTRINGLEN - 1 bytes.  Both pragmas may name G: defined once.
 */
static void global_macros(struct vardecl *v, void *arg)
{
	struct emitter *em = arg;
	const char *n = v->priv;

	if (is_array(v) || is_stat_var(v) || !n)
		return;
	line(em, "#ifndef STAP_GLOBAL_GET_%s", v->name);
	line(em, "#define STAP_GLOBAL_GET_%s() (%s)", v->name, n);
	if (v->type == TY_STRING)
		line(em, "#define STAP_GLOBAL_SET_%s(v) strscpy(%s, (v), "
		     "MAXSTRINGLEN)", v->name, n);
	else
		line(em, "#define STAP_GLOBAL_SET_%s(v) (%s = (int64_t)(v))",
		     v->name, n);
	line(em, "#endif");
}

static void global_macros_undef(struct vardecl *v, void *arg)
{
	struct emitter *em = arg;

	if (is_array(v) || is_stat_var(v) || !v->priv)
		return;
	line(em, "#undef STAP_GLOBAL_GET_%s", v->name);
	line(em, "#undef STAP_GLOBAL_SET_%s", v->name);
}

/* Embedded C reads through kread(), kderef(), kderef_buffer() or
 * DEREF_FAULT() (runtime/stp_deref.h), which jump to a fault label.
 */
static bool uses_deref(const char *code)
{
	static const char *const names[] = {
		"kread", "kderef", "kderef_buffer", "DEREF_FAULT",
	};
	const char *p;
	size_t i, n;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		n = strlen(names[i]);
		for (p = code; (p = strstr(p, names[i])); p += n) {
			const char *q = p + n;

			if (p > code && (isalnum((unsigned char)p[-1]) ||
					 p[-1] == '_'))
				continue;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '(')
				return true;
		}
	}
	return false;
}

static void gen_function(struct emitter *em, struct func *f)
{
	const char *id = fn_id(em, f);
	const char *cn = arena_printf(em->s->arena, "stp_fn_%s", id);
	struct body *b = new_body(em, cn, arena_printf(em->s->arena,
				  "stp_fn_%s_locals", id), &f->locals);
	int i;

	b->params = &f->params;
	b->func = f;
	em->b = b;
	em->depth = 1;
	sb_printf(&b->text, "static void %s(struct context *c)\n{\n", cn);
	b->locals_at = b->text.len;
	if (f->code) {
		/* the macros below name the frame */
		b->uses_locals = f->params.n || f->type == TY_STRING ||
				 f->type == TY_LONG || f->unmangled;
		/* STAP_RETVALUE in a void function's code: maybe */
		b->maybe_locals = !b->uses_locals &&
				  strstr(f->code, "STAP_RET");
		b->uses_locals |= b->maybe_locals;
		/* embedded C: STAP_ARG_x, STAP_RETVALUE and friends */
		for (i = 0; i < f->params.n; i++) {
			const struct vardecl *p = f->params.items[i];

			line(em, "#define STAP_ARG_%s (l->l_%s)", p->name,
			     p->name);
		}
		line(em, "#define STAP_RETVALUE (l->__retvalue)");
		/* 0 or "" from code that sets no value (cond && exit()) */
		if (f->type == TY_STRING)
			line(em, "l->__retvalue[0] = '\\0';");
		else if (f->type == TY_LONG)
			line(em, "l->__retvalue = 0;");
		if (f->unmangled)
			line(em, "#define THIS l");
		elab_pragma_globals(em->s, f->code, "read", global_macros, em);
		elab_pragma_globals(em->s, f->code, "write", global_macros,
				    em);
		line(em, "{");
		sb_puts(&b->text, f->code);
		sb_putc(&b->text, '\n');
		line(em, "}");
		/* kread() and friends without CATCH_DEREF_FAULT() */
		if (uses_deref(f->code) &&
		    !strstr(f->code, "CATCH_DEREF_FAULT"))
			line(em, "_stp_deref_fault: __maybe_unused;");
		b->uses_out = true;
		for (i = 0; i < f->params.n; i++)
			line(em, "#undef STAP_ARG_%s",
			     ((struct vardecl *)f->params.items[i])->name);
		line(em, "#undef STAP_RETVALUE");
		if (f->unmangled)
			line(em, "#undef THIS");
		elab_pragma_globals(em->s, f->code, "read",
				    global_macros_undef, em);
		elab_pragma_globals(em->s, f->code, "write",
				    global_macros_undef, em);
	} else {
		init_locals(em, b);
		b->uses_locals |= f->type == TY_STRING || f->type == TY_LONG;
		if (f->type == TY_STRING)
			line(em, "l->__retvalue[0] = '\\0';");
		else if (f->type == TY_LONG)
			line(em, "l->__retvalue = 0;");
		b->tail = f->body;
		if (f->body->kind == ST_BLOCK)
			b->tail = f->body->stmts.n ?
				f->body->stmts.items[f->body->stmts.n - 1] :
				NULL;
		gen_block_body(em, f->body);
	}
	em->depth = 0;
	line(em, "out: __maybe_unused;");
	sb_puts(&b->text, "}\n\n");
	declare_locals(b, b->locals_type, arena_printf(em->s->arena,
		       "&c->func_locals[c->nesting].fn_%s", id));
}

/* Whether dp's handler has lock code: it touches a global that is not
 * a scalar counter it only adds to (analyze.c).
 */
bool takes_locks(const struct derived_probe *dp)
{
	return dp->nlocks && !dp->lockfree;
}

/* A .return probe's entry handler: evaluates the @entry expressions and
 * keeps them for the return handler, where the provider says (the
 * kretprobe instance, a uretprobe's frame).
 */
static void gen_unlock(struct emitter *em, const struct derived_probe *dp);
static void gen_lock(struct emitter *em, const struct derived_probe *dp);

static void gen_entry_body(struct emitter *em, struct derived_probe *dp)
{
	static struct vec no_locals;
	const char *cn = arena_printf(em->s->arena, "stp_probe_%d_entry",
				      dp->index);
	struct body *b = new_body(em, cn, arena_printf(em->s->arena,
				  "stp_probe_%d_entry_locals", dp->index),
				  &no_locals);
	struct strbuf *d = &em->entry_decls;
	const struct loc *l = &dp->orig->loc;
	int i;

	sb_printf(d, "struct stp_entry_%d {\n", dp->index);
	for (i = 0; i < dp->entry_exprs.n; i++) {
		const struct expr *e = dp->entry_exprs.items[i];

		if (e->type == TY_STRING)
			sb_printf(d, "\tchar s%d[MAXSTRINGLEN];\n", i);
		else
			sb_printf(d, "\tint64_t s%d;\n", i);
	}
	sb_printf(d, "};\n\nstatic struct stp_probe stp_entry_probe_%d = {\n"
		  "\t.pp = ", dp->index);
	sb_c_string(d, dp->name);
	sb_puts(d, ",\n\t.location = ");
	sb_c_string(d, arena_printf(em->s->arena, "%s:%d:%d",
				src_name(em, l->file), l->line, l->col));
	sb_printf(d, ",\n\t.index = %d,\n\t.type = %s,\n"
		  "\t.handler = %s,\n};\n\n", dp->index,
		  dp->prov && dp->prov->entry_type ? dp->prov->entry_type :
		  "STP_PROBE_KPROBE", cn);
	em->b = b;
	em->depth = 1;
	sb_printf(&b->text, "/* entry of probe %s */\nstatic void %s(struct "
		  "context *c)\n{\n", dp->name, cn);
	b->locals_at = b->text.len;
	line(em, "struct stp_entry_%d *d = (void *)%s;", dp->index,
	     entry_data(dp));
	/* without its locks it saves nothing: the run says so, and the
	 * provider arms no return with the values unset
	 */
	if (takes_locks(dp)) {
		line(em, "if (!stp_probe_%d_lock()) {", dp->index);
		line(em, "\tc->skipped = true;");
		line(em, "\treturn;");
		line(em, "}");
		line(em, "c->locks = &stp_probe_%d_locks;", dp->index);
	}
	for (i = 0; i < dp->entry_exprs.n; i++) {
		const struct expr *e = dp->entry_exprs.items[i];
		struct strbuf x;

		sb_init(&x);
		gen_expr(em, &x, e->a);
		if (e->type == TY_STRING)
			line(em, "strscpy(d->s%d, %s, MAXSTRINGLEN);", i, x.buf);
		else
			line(em, "d->s%d = %s;", i, x.buf);
		sb_free(&x);
	}
	em->depth = 0;
	line(em, "out: __maybe_unused;");
	em->depth = 1;
	gen_unlock(em, dp);
	sb_puts(&b->text, "}\n\n");
	declare_locals(b, b->locals_type, arena_printf(em->s->arena,
		       "&c->probe_locals.p%d_entry", dp->index));
}

bool emit_probe_lean(struct emitter *em, const struct derived_probe *dp)
{
	(void)em;
	return dp->lean;
}

/* The handler's globals, taken at its start (none, no code). */
static void gen_lock(struct emitter *em, const struct derived_probe *dp)
{
	if (!takes_locks(dp))
		return;
	line(em, "if (!stp_probe_%d_lock())", dp->index);
	line(em, "\treturn;");
	if (!em->lean)
		line(em, "c->locks = &stp_probe_%d_locks;", dp->index);
}

/* The release at the handler's end: a handler whose locks a page fault
 * made it let go of and could not take back (stp_mem.c) holds none.
 */
static void gen_unlock(struct emitter *em, const struct derived_probe *dp)
{
	if (!takes_locks(dp))
		return;
	if (em->lean)
		line(em, "stp_probe_%d_unlock();", dp->index);
	else
		line(em, "if (likely(c->locks))\n\t\tstp_probe_%d_unlock();",
		     dp->index);
}

/* The handler's statements between its condition, the locks and the
 * exit label, for both copies.
 */
static void gen_handler_run(struct emitter *em, struct derived_probe *dp)
{
	const struct stmt *body = dp->body;

	if (dp->cond)
		line(em, "if (!(%s))\n\t\treturn;", cond_text(em, dp->cond));
	gen_lock(em, dp);
	/* the probe's one block is the function's: no braces of its own */
	if (body->kind == ST_BLOCK && body->stmts.n == 1 &&
	    ((const struct stmt *)body->stmts.items[0])->kind == ST_BLOCK)
		body = body->stmts.items[0];
	gen_block_body(em, body);
	em->depth = 0;
	line(em, "out: __maybe_unused;");
	em->depth = 1;
	gen_unlock(em, dp);
	sb_puts(&em->b->text, "}\n\n");
}

static void gen_probe_body(struct emitter *em, struct derived_probe *dp)
{
	const char *cn = arena_printf(em->s->arena, "stp_probe_%d",
				      dp->index);
	struct body *b = new_body(em, cn, arena_printf(em->s->arena,
				  "stp_probe_%d_locals", dp->index),
				  &dp->locals);

	em->b = b;
	em->depth = 1;
	/* inline into the probe's own callback where it has one (kprobes,
	 * tracepoints): a hit then makes no call at all
	 */
	sb_printf(&b->text, "/* probe %s */\nstatic inline void %s(struct context "
		  "*c)\n{\n", dp->name, cn);
	b->locals_at = b->text.len;
	init_locals(em, b);
	gen_handler_run(em, dp);
	declare_locals(b, b->locals_type, arena_printf(em->s->arena,
		       "&c->probe_locals.p%d", dp->index));
	/* the lean copy: the same statements, no context and no MAXACTION
	 * account
	 */
	if (!dp->lean)
		return;
	sb_printf(&b->text, "static inline void stp_probe_%d_lean(void)\n{\n",
		  dp->index);
	em->lean = true;
	gen_handler_run(em, dp);
	em->lean = false;
}

/* ------------------------------------------------------------------ */
/* Counters (analyze.c found them): a long global that every write    */
/* adds to is added to atomically, or per CPU for an array, under the  */
/* shared lock, and summed when read (doc/safety.md, Locks).           */

bool is_counter(const struct vardecl *v)
{
	return v && v->is_global && v->counter;
}

/* An add statement on a counter: the keys, then the value (the order
 * of every write to an element, gen_elem_write).
 */
static bool gen_counter_add(struct emitter *em, const struct expr *e)
{
	const struct vardecl *v = analyze_counter_target(e);
	const struct expr *lv = e->a;
	const struct expr *rhs = e->kind == EX_INCDEC ? NULL : e->b;
	const char *keys = NULL, *key_s = NULL, *r;
	struct strbuf o;
	bool block;

	if (!v || !is_counter(v))
		return false;
	sb_init(&o);
	sb_puts(&o, "{ ");
	/* one string key: passed as it is (stp_map.h) */
	if (lv->kind == EX_INDEX && lv->args.n == 1 &&
	    ((const struct expr *)lv->args.items[0])->type == TY_STRING)
		key_s = gen_elem_key(em, &o, &lv->args, 0, rhs);
	else if (lv->kind == EX_INDEX)
		keys = gen_elem_keys(em, &o, lv, rhs);
	if (e->kind == EX_INCDEC)
		r = e->op[0] == '+' ? "1" : "-1";
	else
		r = gen_rhs(em, &o, e->b, false, true);
	if (e->kind == EX_ASSIGN && e->op[0] == '-')
		r = negated(em, r, e->b);
	/* a block only for what the keys and the value declared */
	block = o.len > 2;
	if (!block) {
		o.len = 0;
		o.buf[0] = '\0';
	}
	if (key_s) {
		sb_printf(&o, "if (unlikely(_stp_map_add_count_s(%s, %s, %s",
			  map_of(em, lv->a), key_s, r);
		gen_overflow_check(em, &o, lv);
	} else if (!keys) {
		sb_printf(&o, "_stp_counter_add(&%s, %s);",
			  var_cname(em, lv->var), r);
	} else {
		sb_printf(&o, "if (unlikely(_stp_map_add_count(%s, %s, %s",
			  map_of(em, lv->a), keys, r);
		gen_overflow_check(em, &o, lv);
	}
	if (block)
		sb_puts(&o, " }");
	stmt_line(em, o.buf);
	sb_free(&o);
	return true;
}

/* The flags of the handler's run (stp_probe_inline.h), as C. */
const char *emit_probe_run_flags(struct emitter *em, struct derived_probe *dp)
{
	bool print = dp->may_print;
	bool sampled = dp->bounded;

	(void)em;
	if (print && sampled)
		return "STP_RUN_PRINT | STP_RUN_SAMPLED";
	if (print)
		return "STP_RUN_PRINT";
	return sampled ? "STP_RUN_SAMPLED" : "0";
}

/* ------------------------------------------------------------------ */
/* Locks: every global a probe reads or writes, through the functions */
/* it calls (analyze.c found them), taken in one fixed order (the     */
/* global's index).                                                   */

/* The C of the lock of global g for dp: "write" or "read". */
static const char *lock_kind(const struct derived_probe *dp, int g)
{
	return dp->locks[g] == LOCK_WRITE ? "write" : "read";
}

static const char *lock_name(const struct emitter *em, int g)
{
	return ((const struct vardecl *)em->s->globals.items[g])->priv;
}

/* One lock: nothing to release when it is not had. */
static void gen_lock_one(struct emitter *em, struct strbuf *o,
			 const struct derived_probe *dp, int g)
{
	sb_printf(o, "\treturn _stp_%s_trylock(&%s_lock);\n}\n\n",
		  lock_kind(dp, g), lock_name(em, g));
}

/* Several: taken in order, those had let go again when one is not. */
static void gen_lock_all(struct emitter *em, struct strbuf *o,
			 const struct derived_probe *dp,
			 const struct vec *taken)
{
	int i;

	for (i = 0; i < taken->n; i++) {
		int g = (int)(intptr_t)taken->items[i];

		sb_printf(o, "\tif (!_stp_%s_trylock(&%s_lock))\n"
			  "\t\tgoto fail_%d;\n", lock_kind(dp, g),
			  lock_name(em, g), i);
	}
	sb_puts(o, "\treturn true;\n");
	/* fail_k: lock k could not be had; release the ones before it */
	for (i = taken->n - 1; i >= 0; i--) {
		sb_printf(o, "fail_%d:\n", i);
		if (i > 0) {
			int g = (int)(intptr_t)taken->items[i - 1];

			sb_printf(o, "\t_stp_%s_unlock(&%s_lock);\n",
				  lock_kind(dp, g), lock_name(em, g));
		}
	}
	/* the skip is counted against the lock (stp_probe.c) */
	if (taken->n)
		sb_puts(o, "\treturn false;\n");
	sb_puts(o, "}\n\n");
}

static void gen_unlock_all(struct emitter *em, struct strbuf *o,
			   const struct derived_probe *dp,
			   const struct vec *taken)
{
	int i;

	sb_printf(o, "static void stp_probe_%d_unlock(void)\n{\n", dp->index);
	for (i = taken->n - 1; i >= 0; i--) {
		int g = (int)(intptr_t)taken->items[i];

		sb_printf(o, "\t_stp_%s_unlock(&%s_lock);\n",
			  lock_kind(dp, g), lock_name(em, g));
	}
	sb_puts(o, "}\n\n");
	sb_printf(o, "static const struct stp_lockset stp_probe_%d_locks = {\n"
		  "\t.lock = stp_probe_%d_lock,\n\t.unlock = stp_probe_%d_unlock,"
		  "\n\t.n = %d,\n};\n\n", dp->index, dp->index, dp->index,
		  taken->n);
}

static void gen_locks(struct emitter *em, struct derived_probe *dp)
{
	struct strbuf *o = &em->decls;
	struct vec taken = { 0 };
	int i;

	if (!takes_locks(dp))
		return;
	for (i = 0; i < em->s->globals.n; i++)
		if (dp->locks[i] != LOCK_NONE)
			vec_push(em->s->arena, &taken, (void *)(intptr_t)i);
	/* inline in the callback; the lockset keeps an out-of-line copy */
	sb_printf(o, "static __always_inline bool stp_probe_%d_lock(void)\n"
		  "{\n", dp->index);
	if (taken.n == 1)
		gen_lock_one(em, o, dp, (int)(intptr_t)taken.items[0]);
	else
		gen_lock_all(em, o, dp, &taken);
	gen_unlock_all(em, o, dp, &taken);
}

/* ------------------------------------------------------------------ */
/* Nesting                                                            */

/* MAXNESTING as the module gets it: -D, else the translator's own
 * (analyze.c: the deepest call chain, plus room for recursion),
 * which never asks for more than the stack holds.
 */
static long long module_nesting(const struct emitter *em)
{
	long long most = limit_max_nesting(&em->lim);

	if (em->lim.maxnesting >= 0)
		return em->lim.maxnesting;
	return em->s->max_nesting < most ? em->s->max_nesting : most;
}

/* ------------------------------------------------------------------ */
/* begin, end, error and timers                                        */

static int64_t sequence_of(const struct derived_probe *dp)
{
	const struct pp_comp *c = dp->pp->comps.items[0];
	int64_t v = 0;

	if (c->arg)
		pp_arg_num(c->arg, &v);
	return v;
}

/* Stable order by sequence number, then declaration. */
static void sort_by_sequence(struct vec *v)
{
	int i, j;

	for (i = 1; i < v->n; i++) {
		void *x = v->items[i];

		for (j = i; j > 0 && sequence_of(v->items[j - 1]) >
				     sequence_of(x); j--)
			v->items[j] = v->items[j - 1];
		v->items[j] = x;
	}
}

static void run_list(struct strbuf *o, const struct vec *v,
		     const char *state, int depth)
{
	int i;

	for (i = 0; i < v->n; i++) {
		sb_indent(o, depth);
		sb_printf(o, "_stp_probe_run(&stp_probes[%d], NULL, %s);\n",
			  ((struct derived_probe *)v->items[i])->index, state);
	}
}

static const char *probe_type_of(const struct derived_probe *dp)
{
	if (dp->prov && dp->prov->probe_type)
		return dp->prov->probe_type(dp);
	return "STP_PROBE_BEGIN";
}

static void group_add(struct emitter *em, struct derived_probe *dp)
{
	struct group *g = NULL;
	int i;

	for (i = 0; i < em->groups.n; i++) {
		g = em->groups.items[i];
		if (g->prov == dp->prov)
			break;
	}
	if (i == em->groups.n) {
		g = arena_alloc(em->s->arena, sizeof(*g));
		g->prov = dp->prov;
		vec_push(em->s->arena, &em->groups, g);
	}
	vec_push(em->s->arena, &g->dps, dp);
}

/* Each family's start may fail: a failure undoes the families before
 * it, in reverse, and returns its rc.
 */
static void gen_group_start(struct emitter *em, struct strbuf *o,
			    struct strbuf *fail)
{
	struct strbuf *stops = NULL;
	int i;

	if (!em->groups.n)
		return;
	stops = xmalloc(sizeof(*stops) * (size_t)em->groups.n);
	for (i = 0; i < em->groups.n; i++) {
		struct group *g = em->groups.items[i];
		struct strbuf start, stop;

		sb_init(&start);
		sb_init(&stop);
		em->gstart = &start;
		em->gstop = &stop;
		g->prov->emit_group(em, &g->dps);
		em->gstart = em->gstop = NULL;
		sb_puts(o, start.buf ? start.buf : "");
		sb_printf(o, "\tif (rc)\n\t\tgoto fail_%d;\n", i);
		stops[i] = stop;
		sb_free(&start);
	}
	/* a failure of family k undoes k-1 .. 0 */
	for (i = em->groups.n - 1; i >= 1; i--) {
		sb_printf(fail, "fail_%d:\n", i);
		sb_puts(fail, stops[i - 1].buf ? stops[i - 1].buf : "");
	}
	sb_puts(fail, "fail_0:\n\treturn rc;\n");
	/* and stp_probes_stop undoes them all */
	for (i = em->groups.n - 1; i >= 0; i--) {
		sb_puts(&em->gstops, stops[i].buf ? stops[i].buf : "");
		sb_free(&stops[i]);
	}
	free(stops);
}

/* The provider says which probes the emitter runs itself (begin, end,
 * error: from stp_probes_start and stp_probes_stop; never: not at
 * all); the others register through its hooks.
 */
static void classify_probe(struct emitter *em, struct derived_probe *dp)
{
	switch (dp->prov ? dp->prov->run : PROV_RUN_HOOKS) {
	case PROV_RUN_BEGIN:
		vec_push(em->s->arena, &em->begins, dp);
		return;
	case PROV_RUN_END:
		vec_push(em->s->arena, &em->ends, dp);
		return;
	case PROV_RUN_ERROR:
		vec_push(em->s->arena, &em->errors, dp);
		return;
	case PROV_RUN_NEVER:
		return;
	case PROV_RUN_HOOKS:
		break;
	}
	if (dp->prov && dp->prov->emit_group)
		group_add(em, dp);
	else if (dp->prov && dp->prov->emit)
		dp->prov->emit(em, dp);
	else
		emit_error(em, dp->pp->loc, "probe point '%s' cannot be "
			   "compiled yet", dp->name);
}

/* ------------------------------------------------------------------ */
/* The module                                                          */

/* --monitor: the script's globals as the live view shows them, and
 * their reset to the values they start with (runtime/stp_monitor.h);
 * the tapset's own globals are left alone.
 */
static void gen_monitor_show(struct strbuf *o, const struct vardecl *v)
{
	const char *n = v->priv;

	sb_printf(o, "\tif (_stp_monitor_lock(&%s_lock, &flags)) {\n", n);
	if (is_array(v))
		sb_printf(o, "\t\t_stp_map_agg(%s);\n"
			  "\t\t_stp_monitor_array(m, \"%s\", "
			  "_stp_map_size(%s));\n", n, v->name, n);
	else if (is_stat_var(v))
		sb_printf(o, "\t\tconst struct stp_stat_agg *a = "
			  "_stp_stat_get(%s);\n\n"
			  "\t\t_stp_monitor_stat(m, \"%s\", a->count, "
			  "a->sum);\n", n, v->name);
	else if (v->type == TY_STRING)
		sb_printf(o, "\t\t_stp_monitor_str(m, \"%s\", %s);\n",
			  v->name, n);
	else
		sb_printf(o, "\t\t_stp_monitor_long(m, \"%s\", %s);\n",
			  v->name, n);
	sb_printf(o, "\t\t_stp_monitor_unlock(&%s_lock, flags);\n"
		  "\t} else {\n\t\t_stp_monitor_busy(m, \"%s\");\n\t}\n",
		  n, v->name);
}

static void gen_monitor_reset(struct strbuf *o, const struct vardecl *v)
{
	const char *n = v->priv;

	sb_printf(o, "\tif (_stp_monitor_lock(&%s_lock, &flags)) {\n", n);
	if (is_array(v)) {
		sb_printf(o, "\t\t_stp_map_clear(%s);\n", n);
	} else if (is_stat_var(v)) {
		sb_printf(o, "\t\t_stp_stat_clear(%s);\n", n);
	} else if (v->type == TY_STRING) {
		sb_printf(o, "\t\tstrscpy(%s, \"%s\", MAXSTRINGLEN);\n", n,
			  v->init && v->init->kind == EX_STR ?
			  v->init->str : "");
	} else {
		sb_printf(o, "\t\t%s = ", n);
		gen_num(o, v->init && v->init->kind == EX_NUM ?
			v->init->num : 0);
		sb_puts(o, ";\n");
	}
	sb_printf(o, "\t\t_stp_monitor_unlock(&%s_lock, flags);\n\t}\n", n);
}

static void gen_monitor(struct emitter *em, struct strbuf *o)
{
	struct session *s = em->s;
	int i, pass;

	for (pass = 0; pass < 2; pass++) {
		sb_puts(o, pass ? "static void stp_monitor_reset(void)\n{\n" :
			"static void stp_monitor_globals(struct seq_file *m)"
			"\n{\n");
		sb_puts(o, "\tunsigned long flags __maybe_unused;\n\n");
		for (i = 0; i < s->globals.n; i++) {
			const struct vardecl *v = s->globals.items[i];

			if (v->from_tapset)
				continue;
			if (pass)
				gen_monitor_reset(o, v);
			else
				gen_monitor_show(o, v);
		}
		sb_puts(o, "}\n\n");
	}
}

/* ------------------------------------------------------------------ */
/* Shared handlers: probes whose handlers differ only in their string  */
/* literals (the syscall.* aliases: name = "read", error locations)   */
/* run one C function, which then takes the literals from the probe's  */
/* descriptor; hundreds of probes compile as one.                      */

struct shared {
	const char *key;
	uint32_t hash;
	int index;			/* the probe whose handler runs */
	struct body *b;
	struct vec members;		/* the probes sharing it (intptr_t) */
	struct vec lits;		/* the literals, as C, of each probe
					 * (struct vec *), its own first */
};

/* dp's handler (the last body) and its lock functions (em->decls from
 * mark) go when an earlier probe's handler can run for it.
 */
static void share_handler(struct emitter *em, struct derived_probe *dp,
			  size_t mark)
{
	struct arena *a = em->s->arena;
	struct body *b = vec_last(&em->bodies);
	struct vec *lits = arena_alloc(a, sizeof(*lits));
	struct shared *sh = NULL;
	const char *key;
	uint32_t h;
	int i;

	if (dp->not_shareable || !b || b->func || !b->text.buf)
		return;
	key = cshare_key(a, b->text.buf, dp->index, lits);
	h = hash_bytes(key, strlen(key));
	for (i = 0; i < em->shared.n && !sh; i++) {
		sh = em->shared.items[i];
		if (sh->hash != h || strcmp(sh->key, key))
			sh = NULL;
	}
	if (!sh) {
		sh = arena_alloc(a, sizeof(*sh));
		sh->key = key;
		sh->hash = h;
		sh->index = dp->index;
		sh->b = b;
		vec_push(a, &sh->lits, lits);
		vec_push(a, &em->shared, sh);
		return;
	}
	vec_push(a, &sh->members, (void *)(intptr_t)dp->index);
	vec_push(a, &sh->lits, lits);
	sb_free(&b->text);
	sb_init(&b->text);
	sb_putn(&b->text, "", 0);
	em->decls.len = mark;
	if (em->decls.buf)
		em->decls.buf[mark] = '\0';
	if (!em->share_defs.len)
		sb_puts(&em->share_defs, "/* probes that run the handler and "
			"lock functions of another */\n");
	sb_printf(&em->share_defs, "#define stp_probe_%d stp_probe_%d\n",
		  dp->index, sh->index);
	if (takes_locks(dp))
		sb_printf(&em->share_defs,
			  "#define stp_probe_%d_lock stp_probe_%d_lock\n"
			  "#define stp_probe_%d_unlock stp_probe_%d_unlock\n"
			  "#define stp_probe_%d_locks stp_probe_%d_locks\n",
			  dp->index, sh->index, dp->index, sh->index,
			  dp->index, sh->index);
}

/* The k-th probe's table of the literals that differ (slot[i] >= 0),
 * or an earlier probe's with the same ones.
 */
static const char *lit_table(struct emitter *em, struct shared *sh, int k,
			     const int *slot)
{
	const struct vec *mine = sh->lits.items[k];
	int i, j;

	for (j = 0; j < k; j++) {
		const struct vec *other = sh->lits.items[j];

		for (i = 0; i < mine->n; i++)
			if (slot[i] >= 0 &&
			    strcmp(mine->items[i], other->items[i]))
				break;
		if (i == mine->n)
			return em->lits_of[j ? (intptr_t)
					   sh->members.items[j - 1] :
					   sh->index];
	}
	j = k ? (int)(intptr_t)sh->members.items[k - 1] : sh->index;
	sb_printf(&em->lit_tables, "static const char *const "
		  "stp_probe_%d_lits[] = {\n", j);
	for (i = 0; i < mine->n; i++)
		if (slot[i] >= 0)
			sb_printf(&em->lit_tables, "\t%s,\n",
				  (const char *)mine->items[i]);
	sb_puts(&em->lit_tables, "};\n\n");
	return arena_printf(em->s->arena, "stp_probe_%d_lits", j);
}

/* Once every probe is in: a shared handler takes the literals that
 * differ between its probes from the running probe's table.
 */
static void share_finish(struct emitter *em, struct shared *sh)
{
	const struct vec *first = sh->lits.items[0];
	int *slot = arena_alloc(em->s->arena, sizeof(*slot) *
				(size_t)(first->n + 1));
	const char *t;
	int i, k, n = 0;

	for (i = 0; i < first->n; i++) {
		slot[i] = -1;
		for (k = 1; k < sh->lits.n && slot[i] < 0; k++)
			if (strcmp(first->items[i], ((const struct vec *)
				   sh->lits.items[k])->items[i]))
				slot[i] = n++;
	}
	if (!n)
		return;
	t = cshare_param(em->s->arena, sh->b->text.buf, "c->probe->lits[%d]",
			 slot);
	sb_free(&sh->b->text);
	sb_init(&sh->b->text);
	sb_puts(&sh->b->text, t);
	for (k = 0; k < sh->lits.n; k++)
		em->lits_of[k ? (intptr_t)sh->members.items[k - 1] :
			    sh->index] = lit_table(em, sh, k, slot);
}

static void gen_probe_table(struct emitter *em, struct strbuf *o)
{
	struct session *s = em->s;
	int i;

	sb_printf(o, "static struct stp_probe stp_probes[%d] = {\n",
		  s->probes.n ? s->probes.n : 1);
	for (i = 0; i < s->probes.n; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		const struct loc *l = &dp->orig->loc;

		sb_printf(o, "\t[%d] = {\n\t\t.pp = ", i);
		sb_c_string(o, dp->name);
		sb_puts(o, ",\n\t\t.location = ");
		sb_c_string(o, arena_printf(s->arena, "%s:%d:%d",
					src_name(em, l->file), l->line,
					l->col));
		sb_printf(o, ",\n\t\t.index = %d,\n\t\t.type = %s,\n"
			  "\t\t.handler = stp_probe_%d,\n", i,
			  probe_type_of(dp), i);
		if (em->lits_of[i])
			sb_printf(o, "\t\t.lits = %s,\n", em->lits_of[i]);
		sb_puts(o, "\t},\n");
	}
	sb_puts(o, "};\n\n");
	if (has_final_print(em))
		sb_puts(o, "static struct stp_probe stp_final_probe = {\n"
			"\t.pp = \"end\",\n\t.type = STP_PROBE_END,\n"
			"\t.handler = stp_final_print,\n};\n\n");
}

static void gen_start_stop(struct emitter *em, struct strbuf *o)
{
	sb_puts(o, "int stp_probes_start(void)\n{\n");
	if (em->groups.n)
		sb_puts(o, "\tint rc = 0;\n\n");
	run_list(o, &em->begins, "STAP_SESSION_STARTING", 1);
	sb_puts(o, "\tif (_stp_session_get_state() != STAP_SESSION_STARTING)\n"
		"\t\treturn STP_PROBES_UNARMED;\n");
	/* a stop signal that came during the begin probes */
	if (em->groups.n || em->start.len)
		sb_puts(o, "\tif (_stp_start_interrupted())\n"
			"\t\treturn -EINTR;\n");
	sb_puts(o, em->gstarts.buf ? em->gstarts.buf : "");
	sb_puts(o, em->start.buf ? em->start.buf : "");
	sb_puts(o, "\tatomic_cmpxchg(&_stp_session_state, "
		"STAP_SESSION_STARTING,\n\t\t       STAP_SESSION_RUNNING);\n"
		"\treturn 0;\n");
	sb_puts(o, em->gfail.buf ? em->gfail.buf : "");
	sb_puts(o, "}\n\n");
	/* what stp_probes_start() armed, all or nothing */
	if (em->gstops.len || em->stop.len) {
		sb_puts(o, "static void stp_probes_unregister(void)\n{\n");
		sb_puts(o, em->gstops.buf ? em->gstops.buf : "");
		sb_puts(o, em->stop.buf ? em->stop.buf : "");
		sb_puts(o, "}\n\n");
	}
	sb_puts(o, "void stp_probes_stop(bool armed)\n{\n");
	if (em->gstops.len || em->stop.len)
		sb_puts(o, "\tif (armed)\n\t\tstp_probes_unregister();\n");
	/* the final print is like an end probe: not after an error */
	if (em->errors.n) {
		sb_puts(o, "\tif (_stp_session_get_state() == "
			"STAP_SESSION_ERROR) {\n");
		run_list(o, &em->errors, "STAP_SESSION_ERROR", 2);
		if (em->ends.n || has_final_print(em))
			sb_puts(o, "\t} else {\n");
	} else if (em->ends.n || has_final_print(em)) {
		sb_puts(o, "\tif (_stp_session_get_state() != "
			"STAP_SESSION_ERROR) {\n");
	}
	run_list(o, &em->ends, "STAP_SESSION_STOPPING", 2);
	if (has_final_print(em))
		sb_puts(o, "\t\t_stp_probe_run(&stp_final_probe, NULL, "
			"STAP_SESSION_STOPPING);\n");
	if (em->errors.n || em->ends.n || has_final_print(em))
		sb_puts(o, "\t}\n");
	sb_puts(o, "}\n\n");
}

/* matched() and ngroups() read the last =~ of the handler: then every
 * =~ keeps its regex and string in the context (STP_NEED_SUBMATCH). */
bool uses_submatch(const struct emitter *em)
{
	int i;

	if (!em->regexes.n)
		return false;
	for (i = 0; i < em->bodies.n; i++) {
		const struct body *b = em->bodies.items[i];

		if (b->func && b->func->code &&
		    (!strcmp(b->func->name, "matched") ||
		     !strcmp(b->func->name, "ngroups")))
			return true;
	}
	return false;
}

static void gen_embedded_macros(struct strbuf *o)
{
	sb_puts(o, "/* The embedded-C interface of functions. */\n"
		"#define CONTEXT c\n"
		"#define STAP_PRINTF(fmt, ...) _stp_printf(fmt, ##__VA_ARGS__)\n"
		"#define STAP_ERROR(...) do { _stp_error_fmt(c, c->last_stmt, "
		"__VA_ARGS__); \\\n\tgoto out; } while (0)\n"
		"#define STAP_RETURN(v) do { STAP_SET_RETURN(v); goto out; } "
		"while (0)\n\n");
}

static void gen_function_bodies(struct emitter *em, struct strbuf *o,
				bool funcs)
{
	int i;

	for (i = 0; i < em->bodies.n; i++) {
		const struct body *b = em->bodies.items[i];

		if (!!b->func != funcs)
			continue;
		if (b->func && b->func->code) {
			sb_printf(o, "#define STAP_SET_RETURN(v) %s\n",
				  b->func->type == TY_STRING ?
				  "strscpy(STAP_RETVALUE, (v), MAXSTRINGLEN)" :
				  "(STAP_RETVALUE = (int64_t)(v))");
			sb_puts(o, b->text.buf);
			sb_puts(o, "#undef STAP_SET_RETURN\n\n");
		} else {
			sb_puts(o, b->text.buf);
		}
	}
}

static void gen_embeds(struct emitter *em, struct strbuf *o)
{
	struct session *s = em->s;
	int i;

	for (i = 0; i < s->embeds.n; i++) {
		const struct embedded *e = s->embeds.items[i];
		const char *code = e->code, *end;

		/* the block's own blank first and last lines go */
		while (*code == '\n')
			code++;
		end = code + strlen(code);
		while (end > code && (end[-1] == '\n' || end[-1] == ' ' ||
				      end[-1] == '\t'))
			end--;
		sb_printf(o, "/* embedded C from %s:%d */\n%.*s\n\n",
			  src_name(em, e->file ? e->file->src : NULL),
			  e->loc.line, (int)(end - code), code);
	}
}

/* What the runtime's core, an object built once for every script,
 * learns of this one (runtime/stp_session.h): the size of its probe
 * context with the locals, and its tables.
 */
static void gen_script_info(struct emitter *em, struct strbuf *o,
			    int nklines, int nuobjs)
{
	sb_puts(o, "const struct stp_script stp_script = {\n"
		"\t.context_size = sizeof(struct context),\n"
		"\t.maxstringlen = MAXSTRINGLEN,\n"
		"\t.maxnesting = MAXNESTING,\n");
	if (em->s->opt.timing)
		sb_puts(o, "\t.timing = true,\n");
	if (em->s->opt.monitor)
		sb_printf(o, "\t.monitor = true,\n"
			  "\t.probes = stp_probes,\n"
			  "\t.nprobes = %d,\n"
			  "\t.monitor_globals = stp_monitor_globals,\n"
			  "\t.monitor_reset = stp_monitor_reset,\n",
			  em->s->probes.n);
	if (nklines)
		sb_printf(o, "\t.klines = stp_klines,\n"
			  "\t.nklines = %d,\n", nklines);
	if (nuobjs)
		sb_printf(o, "\t.uobjs = stp_uobjs,\n"
			  "\t.uobj_inodes = stp_uobj_inodes,\n"
			  "\t.nuobjs = %d,\n", nuobjs);
	sb_puts(o, "};\n");
}

static void assemble(struct emitter *em, struct strbuf *out)
{
	struct session *s = em->s;
	int nklines, nuobjs;

	sb_printf(out, "/* %s.c - generated by tapir from %s: do not edit. */\n"
		  "\n#ifndef MAXNESTING\n#define MAXNESTING %lld\n#endif\n\n",
		  em->module, s->user_file->src->name, em->nesting);
	if (uses_submatch(em))
		sb_puts(out, "#define STP_NEED_SUBMATCH 1\n\n");
	if (s->opt.compatible) {
		/* for embedded C's #if STAP_COMPAT_VERSION (stp_runtime_pre.h) */
		char *end;
		long major = strtol(s->opt.compatible, &end, 10);
		long minor = *end == '.' ? strtol(end + 1, NULL, 10) : 0;

		sb_printf(out, "#define STAP_COMPAT_VERSION STAP_VERSION(%ld, "
			  "%ld)\n\n", major < 0xffff ? major : 0xffff,
			  minor < 0xff ? minor : 0xff);
	}
	sb_puts(out, "#include \"stp_runtime_pre.h\"\n\n");
	limit_emit_guard(&em->lim, em->nesting, out);
	gen_locals_unions(em, out);
	sb_puts(out, "#include \"stp_runtime.h\"\n\n");
	sb_printf(out, "const char stp_module_name[] = \"%s\";\n\n",
		  em->module);
	gen_embeds(em, out);
	gen_global_decls(em, out);
	sb_puts(out, em->share_defs.buf ? em->share_defs.buf : "");
	gen_prototypes(em, out);
	sb_printf(out, "static struct stp_probe stp_probes[%d];\n\n",
		  s->probes.n ? s->probes.n : 1);
	sb_puts(out, em->entry_decls.buf ? em->entry_decls.buf : "");
	sb_puts(out, em->decls.buf ? em->decls.buf : "");
	gen_embedded_macros(out);
	gen_function_bodies(em, out, true);
	gen_function_bodies(em, out, false);
	gen_final_print(em, out);
	sb_puts(out, em->lit_tables.buf ? em->lit_tables.buf : "");
	gen_probe_table(em, out);
	gen_globals_init(em, out);
	if (s->opt.monitor)
		gen_monitor(em, out);
	gen_start_stop(em, out);
	nklines = lines_wanted(s) ? lines_emit_kernel(s, out) : 0;
	nuobjs = usyms_emit(s, out);
	gen_script_info(em, out, nklines, nuobjs);
}

/* The int64_t and MAXSTRINGLEN members of b's locals struct, as
 * gen_locals_struct() writes them.
 */
static unsigned long long body_locals_bytes(const struct emitter *em,
					    const struct body *b)
{
	int i, nlong = 0, nstr = b->tmp_max;

	for (i = 0; b->params && i < b->params->n; i++) {
		const struct vardecl *v = b->params->items[i];

		if (v->type == TY_STRING)
			nstr++;
		else
			nlong++;
	}
	for (i = 0; i < b->locals->n; i++) {
		const struct vardecl *v = b->locals->items[i];

		if (v->type == TY_STRING)
			nstr++;
		else
			nlong++;
	}
	if (b->func && b->func->type == TY_STRING)
		nstr++;
	else if (b->func)
		nlong++;
	return limit_locals_bytes(&em->lim, nlong, nstr);
}

/* A node's keys and value, without the links (a lower bound of
 * runtime/stp_map.c stp_map_layout).
 */
static unsigned long long map_node_bytes(const struct emitter *em,
					 const struct vardecl *v)
{
	unsigned long long str = (em->lim.maxstringlen + 7) & ~7ULL;
	unsigned long long n = 0;
	int i;

	for (i = 0; i < v->arity; i++)
		n += v->index_types[i] == TY_STRING ? str : 8;
	if (!is_stat_var(v))
		n += v->type == TY_STRING ? str : 8;
	return n;
}

/* The values a .return probe saves at entry (struct stp_entry_N). */
static unsigned long long entry_bytes(const struct emitter *em,
				      const struct derived_probe *dp)
{
	int i, nlong = 0, nstr = 0;

	for (i = 0; i < dp->entry_exprs.n; i++) {
		const struct expr *e = dp->entry_exprs.items[i];

		if (e->type == TY_STRING)
			nstr++;
		else
			nlong++;
	}
	return limit_locals_bytes(&em->lim, nlong, nstr);
}

/* The limits against the kernel stack and memory, before any C. */
static bool check_limits(struct emitter *em)
{
	unsigned long long probe = 0, func = 0, n;
	bool ok = true;
	int i;

	for (i = 0; i < em->bodies.n; i++) {
		const struct body *b = em->bodies.items[i];

		n = body_locals_bytes(em, b);
		if (b->func && n > func)
			func = n;
		else if (!b->func && n > probe)
			probe = n;
	}
	/* the translator's own default never asks for more than the
	 * stack holds: a deeper chain meets MAXCALLSTACK at run time
	 */
	em->nesting = module_nesting(em);
	if (!limit_check_context(em->s, &em->lim, em->nesting, probe, func))
		ok = false;
	for (i = 0; i < em->s->probes.n; i++) {
		const struct derived_probe *dp = em->s->probes.items[i];

		if (dp->entry_exprs.n &&
		    !limit_check_entry(em->s, dp->orig->loc,
				       entry_bytes(em, dp)))
			ok = false;
	}
	for (i = 0; i < em->s->globals.n; i++) {
		const struct vardecl *v = em->s->globals.items[i];

		if (is_array(v) &&
		    !limit_check_map(em->s, &em->lim, v->loc, v->name,
				      v->maxsize ? v->maxsize :
				      em->lim.maxmapentries,
				      map_node_bytes(em, v), v->maxsize))
			ok = false;
	}
	return ok;
}

/* Each function's place in its same-arity chain: counted from every
 * function, a member's largest count is its distance from the head.
 */
static void number_overloads(struct session *s)
{
	int i, pos;
	struct func *g;

	for (i = 0; i < s->functions.n; i++) {
		const struct func *f = s->functions.items[i];

		pos = 0;
		for (g = f->next_overload; g; g = g->next_overload)
			if (g->overload_pos < ++pos)
				g->overload_pos = pos;
	}
}

int emit_module(struct session *s, const char *module_name,
		struct strbuf *out)
{
	struct emitter em;
	struct strbuf text;
	size_t mark;
	int i;

	memset(&em, 0, sizeof(em));
	if (!limit_get(s, &em.lim))
		return -1;
	em.s = s;
	em.module = module_name;
	sb_init(&em.decls);
	sb_init(&em.start);
	sb_init(&em.stop);
	sb_init(&em.gstarts);
	sb_init(&em.gfail);
	sb_init(&em.gstops);
	sb_init(&em.entry_decls);
	sb_init(&em.share_defs);
	sb_init(&em.lit_tables);
	em.lits_of = arena_alloc(s->arena, sizeof(*em.lits_of) *
				 (size_t)(s->probes.n + 1));
	name_globals(&em);
	em.nesting = module_nesting(&em);
	number_overloads(s);
	for (i = 0; i < s->functions.n; i++)
		gen_function(&em, s->functions.items[i]);
	for (i = 0; i < s->probes.n; i++) {
		struct derived_probe *dp = s->probes.items[i];

		em.dp = dp;
		if (dp->entry_exprs.n)
			gen_entry_body(&em, dp);
		gen_probe_body(&em, dp);
		mark = em.decls.len;
		gen_locks(&em, dp);
		share_handler(&em, dp, mark);
		classify_probe(&em, dp);
	}
	em.dp = NULL;
	for (i = 0; i < em.shared.n; i++)
		share_finish(&em, em.shared.items[i]);
	gen_group_start(&em, &em.gstarts, &em.gfail);
	sort_by_sequence(&em.begins);
	sort_by_sequence(&em.ends);
	sort_by_sequence(&em.errors);
	if (!em.nerrors && !check_limits(&em))
		em.nerrors++;
	sb_init(&text);
	if (!em.nerrors) {
		assemble(&em, &text);
		c_reflow(text.buf ? text.buf : "", out);
	}
	sb_free(&text);
	sb_free(&em.decls);
	sb_free(&em.start);
	sb_free(&em.stop);
	sb_free(&em.gstarts);
	sb_free(&em.gfail);
	sb_free(&em.gstops);
	sb_free(&em.entry_decls);
	sb_free(&em.share_defs);
	sb_free(&em.lit_tables);
	for (i = 0; i < em.bodies.n; i++)
		sb_free(&((struct body *)em.bodies.items[i])->text);
	return em.nerrors ? -1 : 0;
}
