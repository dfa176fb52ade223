/* emit-expr.c - pass 3: expressions as C.  A value is an int64_t or a
 * const char *; plain operands are used in place, anything that may
 * fail or has an order to keep is a statement expression.  The writes
 * to variables and array elements (each operand once, left to right),
 * the adds to counters, calls, the print family and regular expressions
 * are here too.
 */
#include "emit-int.h"
#include "analyze.h"
#include "format.h"
#include "provider.h"
#include "target.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *gen_agg_of(struct emitter *em, struct strbuf *o,
			      const struct expr *s);

void gen_num(struct strbuf *o, int64_t v)
{
	if (v == INT64_MIN)
		sb_puts(o, "(-9223372036854775807LL - 1)");
	else
		sb_printf(o, "%" PRId64 "LL", v);
}

/* STP_KEYS({ .n = k1 }, { .s = k2 }) with '*' as empty. */
void gen_keys(struct emitter *em, struct strbuf *o, const struct vec *args)
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

void gen_wild(struct strbuf *o, const struct vec *args)
{
	int i;

	sb_puts(o, "((const bool[]){ ");
	for (i = 0; i < args->n; i++)
		sb_printf(o, "%s%s", i ? ", " : "",
			  args->items[i] ? "false" : "true");
	sb_puts(o, " })");
}

bool has_wild(const struct vec *args)
{
	int i;

	for (i = 0; i < args->n; i++)
		if (!args->items[i])
			return true;
	return false;
}

const char *map_of(struct emitter *em, const struct expr *base)
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
const char *plain_text(struct emitter *em, const struct expr *e)
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
void gen_operand(struct emitter *em, struct strbuf *o, const struct expr *e)
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
bool str_owned(const struct expr *e)
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
void gen_elem_write(struct emitter *em, struct strbuf *o,
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

bool is_elem_write(const struct expr *e)
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
const char *fn_id(struct emitter *em, const struct func *f)
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
void gen_call_as(struct emitter *em, struct strbuf *o,
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

void gen_print_as(struct emitter *em, struct strbuf *o,
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
bool gen_counter_add(struct emitter *em, const struct expr *e)
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
