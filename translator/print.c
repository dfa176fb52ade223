/* print.c - the canonical script text of a syntax tree (stap -p1, and
 * the bodies in -p2).  Operators nested in operators are parenthesised,
 * simple statements end in ';', so the output parses back to the same
 * tree.
 */
#include "ast.h"

#include <inttypes.h>
#include <string.h>

static const char *const stat_names[] = {
	"@count", "@sum", "@min", "@max", "@avg", "@variance",
};

void print_string_literal(struct strbuf *sb, const char *s)
{
	sb_putc(sb, '"');
	sb_puts(sb, s);
	sb_putc(sb, '"');
}

static bool is_operator(const struct expr *e)
{
	switch (e->kind) {
	case EX_BINARY:
	case EX_LOGICAL:
	case EX_COMPARE:
	case EX_REGEX:
	case EX_CONCAT:
	case EX_TERNARY:
	case EX_ASSIGN:
	case EX_IN:
		return true;
	default:
		return false;
	}
}

static void print_operand(struct strbuf *sb, const struct expr *e)
{
	if (is_operator(e)) {
		sb_putc(sb, '(');
		print_expr(sb, e);
		sb_putc(sb, ')');
	} else {
		print_expr(sb, e);
	}
}

/* Operands of unary operators: "-(-x)", never "--x". */
static void print_unary_operand(struct strbuf *sb, const struct expr *e)
{
	if (is_operator(e) || e->kind == EX_UNARY || e->kind == EX_INCDEC) {
		sb_putc(sb, '(');
		print_expr(sb, e);
		sb_putc(sb, ')');
	} else {
		print_expr(sb, e);
	}
}

static void print_list(struct strbuf *sb, const struct vec *v)
{
	int i;

	for (i = 0; i < v->n; i++) {
		const struct expr *e = v->items[i];

		if (i)
			sb_puts(sb, ", ");
		if (e)
			print_expr(sb, e);
		else
			sb_putc(sb, '*');
	}
}

/* The value an autocast starts from, in parentheses unless it reads
 * back the same way: "p->f", "f(x)->g", but "(p)[1]" (not an array
 * element) and "(a + b)->f".
 */
static void print_autocast_operand(struct strbuf *sb, const struct expr *e)
{
	const struct expr *v = e->a;
	const struct tcomp *c0 = e->comps.n ? e->comps.items[0] : NULL;
	bool bare = (v->kind == EX_SYM || v->kind == EX_CALL) &&
		    (!c0 || c0->kind == TC_FIELD) && !e->pretty;

	if (!bare)
		sb_putc(sb, '(');
	print_expr(sb, v);
	if (!bare)
		sb_putc(sb, ')');
}

static void print_target(struct strbuf *sb, const struct expr *e)
{
	int i;

	if (e->addressof)
		sb_putc(sb, '&');
	switch (e->tbase) {
	case TB_VAR:
		sb_puts(sb, e->name);
		break;
	case TB_CAST:
		sb_puts(sb, "@cast(");
		print_expr(sb, e->a);
		sb_puts(sb, ", ");
		print_string_literal(sb, e->cast_type);
		if (e->module) {
			sb_puts(sb, ", ");
			print_string_literal(sb, e->module);
		}
		sb_putc(sb, ')');
		break;
	case TB_AUTOCAST:
		print_autocast_operand(sb, e);
		break;
	case TB_ATVAR:
		sb_puts(sb, "@var(");
		print_string_literal(sb, e->name);
		if (e->module) {
			sb_puts(sb, ", ");
			print_string_literal(sb, e->module);
		}
		sb_putc(sb, ')');
		break;
	}
	for (i = 0; i < e->comps.n; i++) {
		const struct tcomp *c = e->comps.items[i];

		if (c->kind == TC_FIELD) {
			sb_puts(sb, "->");
			sb_puts(sb, c->name);
		} else {
			sb_putc(sb, '[');
			print_expr(sb, c->index);
			sb_putc(sb, ']');
		}
	}
	if (e->pretty)
		sb_puts(sb, e->pretty == 2 ? "$$" : "$");
}

static void print_num(struct strbuf *sb, int64_t v)
{
	/* Literals are non-negative in the source; one that wrapped
	 * (2^63..2^64-1) is printed the way it was written.
	 */
	if (v < 0)
		sb_printf(sb, "%" PRIu64, (uint64_t)v);
	else
		sb_printf(sb, "%" PRId64, v);
}

static void print_print(struct strbuf *sb, const struct expr *e)
{
	sb_puts(sb, e->name);
	sb_putc(sb, '(');
	if (e->fmt) {
		print_string_literal(sb, e->fmt);
		if (e->args.n)
			sb_puts(sb, ", ");
	}
	print_list(sb, &e->args);
	sb_putc(sb, ')');
}

/* Histogram bounds and variance shifts are signed literals, written
 * with their sign.
 */
static void print_signed_lit(struct strbuf *sb, const struct expr *e)
{
	if (e->kind == EX_NUM)
		sb_printf(sb, "%" PRId64, e->num);
	else
		print_expr(sb, e);
}

static void print_hist(struct strbuf *sb, const struct expr *e)
{
	int i;

	sb_puts(sb, e->hist == HIST_LOG ? "@hist_log(" : "@hist_linear(");
	print_expr(sb, e->a);
	for (i = 0; i < e->args.n; i++) {
		sb_puts(sb, ", ");
		print_signed_lit(sb, e->args.items[i]);
	}
	sb_putc(sb, ')');
}

void print_expr(struct strbuf *sb, const struct expr *e)
{
	switch (e->kind) {
	case EX_NUM:
		print_num(sb, e->num);
		break;
	case EX_STR:
		print_string_literal(sb, e->str);
		break;
	case EX_SYM:
		sb_puts(sb, e->name);
		break;
	case EX_TARGET:
		print_target(sb, e);
		break;
	case EX_INDEX:
		print_operand(sb, e->a);
		sb_putc(sb, '[');
		print_list(sb, &e->args);
		sb_putc(sb, ']');
		break;
	case EX_CALL:
		sb_puts(sb, e->name);
		sb_putc(sb, '(');
		print_list(sb, &e->args);
		sb_putc(sb, ')');
		break;
	case EX_PRINT:
		print_print(sb, e);
		break;
	case EX_UNARY:
		sb_puts(sb, e->op);
		print_unary_operand(sb, e->a);
		break;
	case EX_INCDEC:
		if (!e->postfix)
			sb_puts(sb, e->op);
		print_unary_operand(sb, e->a);
		if (e->postfix)
			sb_puts(sb, e->op);
		break;
	case EX_BINARY:
	case EX_LOGICAL:
	case EX_COMPARE:
	case EX_REGEX:
	case EX_CONCAT:
	case EX_ASSIGN:
		print_operand(sb, e->a);
		sb_printf(sb, " %s ", e->op);
		print_operand(sb, e->b);
		break;
	case EX_TERNARY:
		print_operand(sb, e->a);
		sb_puts(sb, " ? ");
		print_operand(sb, e->b);
		sb_puts(sb, " : ");
		print_operand(sb, e->c);
		break;
	case EX_IN:
		sb_putc(sb, '[');
		print_list(sb, &e->args);
		sb_puts(sb, "] in ");
		print_expr(sb, e->a);
		break;
	case EX_STAT:
		sb_puts(sb, stat_names[e->stat]);
		sb_putc(sb, '(');
		print_expr(sb, e->a);
		if (e->b) {
			sb_puts(sb, ", ");
			print_signed_lit(sb, e->b);
		}
		sb_putc(sb, ')');
		break;
	case EX_HIST:
		print_hist(sb, e);
		break;
	case EX_DEFINED:
	case EX_ENTRY:
		sb_puts(sb, e->kind == EX_DEFINED ? "@defined(" : "@entry(");
		print_expr(sb, e->a);
		sb_putc(sb, ')');
		break;
	case EX_PERF:
	case EX_CONST:
		sb_puts(sb, e->kind == EX_PERF ? "@perf(" : "@const(");
		print_string_literal(sb, e->str);
		sb_putc(sb, ')');
		break;
	case EX_EMBEDDED:
		sb_printf(sb, "%%{%s%%}", e->code);
		break;
	}
}

static void print_foreach_head(struct strbuf *sb, const struct stmt *s)
{
	const char *mark = s->sort_dir > 0 ? "+" : "-";
	int i;

	sb_puts(sb, "foreach (");
	if (s->value) {
		sb_puts(sb, s->value->name);
		if (s->sort_column == -1 && !s->sort_agg_set)
			sb_puts(sb, mark);
		sb_puts(sb, " = ");
	}
	sb_putc(sb, '[');
	for (i = 0; i < s->keys.n; i++) {
		const struct expr *k = s->keys.items[i];

		if (i)
			sb_puts(sb, ", ");
		sb_puts(sb, k->name);
		if (s->sort_column == i + 1)
			sb_puts(sb, mark);
	}
	sb_puts(sb, "] in ");
	print_expr(sb, s->base);
	if (s->slice.n) {
		sb_putc(sb, '[');
		print_list(sb, &s->slice);
		sb_putc(sb, ']');
	}
	if (s->sort_agg_set) {
		sb_putc(sb, ' ');
		sb_puts(sb, stat_names[s->sort_agg]);
		sb_puts(sb, mark);
	} else if (s->sort_column == -1 && !s->value) {
		sb_puts(sb, mark);
	}
	if (s->limit) {
		sb_puts(sb, " limit ");
		print_expr(sb, s->limit);
	}
	sb_putc(sb, ')');
}

/* A statement nested under a header: a block stays on the header line. */
static void print_sub(struct strbuf *sb, const struct stmt *s, int depth)
{
	if (s->kind == ST_BLOCK) {
		sb_putc(sb, ' ');
		print_stmt(sb, s, -depth - 1);
	} else {
		sb_putc(sb, '\n');
		print_stmt(sb, s, depth + 1);
	}
}

/* depth < 0 means "continue the current line" at depth -depth-1. */
void print_stmt(struct strbuf *sb, const struct stmt *s, int depth)
{
	int i;

	if (depth < 0)
		depth = -depth - 1;
	else
		sb_indent(sb, depth);
	switch (s->kind) {
	case ST_BLOCK:
		sb_puts(sb, "{\n");
		for (i = 0; i < s->stmts.n; i++)
			print_stmt(sb, s->stmts.items[i], depth + 1);
		sb_indent(sb, depth);
		sb_puts(sb, "}\n");
		return;
	case ST_EXPR:
		print_expr(sb, s->expr);
		sb_puts(sb, ";\n");
		return;
	case ST_NULL:
		sb_puts(sb, ";\n");
		return;
	case ST_IF:
		sb_puts(sb, "if (");
		print_expr(sb, s->expr);
		sb_putc(sb, ')');
		print_sub(sb, s->body, depth);
		if (s->els) {
			sb_indent(sb, depth);
			sb_puts(sb, "else");
			if (s->els->kind == ST_IF) {
				sb_putc(sb, ' ');
				print_stmt(sb, s->els, -depth - 1);
			} else {
				print_sub(sb, s->els, depth);
			}
		}
		return;
	case ST_WHILE:
		sb_puts(sb, "while (");
		print_expr(sb, s->expr);
		sb_putc(sb, ')');
		print_sub(sb, s->body, depth);
		return;
	case ST_FOR:
		sb_puts(sb, "for (");
		if (s->init)
			print_expr(sb, s->init);
		sb_puts(sb, "; ");
		if (s->expr)
			print_expr(sb, s->expr);
		sb_puts(sb, "; ");
		if (s->incr)
			print_expr(sb, s->incr);
		sb_putc(sb, ')');
		print_sub(sb, s->body, depth);
		return;
	case ST_FOREACH:
		print_foreach_head(sb, s);
		print_sub(sb, s->body, depth);
		return;
	case ST_BREAK:
		sb_puts(sb, "break;\n");
		return;
	case ST_CONTINUE:
		sb_puts(sb, "continue;\n");
		return;
	case ST_NEXT:
		sb_puts(sb, "next;\n");
		return;
	case ST_RETURN:
		sb_puts(sb, "return");
		if (s->expr) {
			sb_putc(sb, ' ');
			print_expr(sb, s->expr);
		}
		sb_puts(sb, ";\n");
		return;
	case ST_DELETE:
		sb_puts(sb, "delete ");
		print_expr(sb, s->expr);
		sb_puts(sb, ";\n");
		return;
	case ST_TRY:
		sb_puts(sb, "try ");
		print_stmt(sb, s->body, -depth - 1);
		sb_indent(sb, depth);
		sb_puts(sb, "catch");
		if (s->catch_var)
			sb_printf(sb, " (%s)", s->catch_var->name);
		sb_putc(sb, ' ');
		print_stmt(sb, s->els, -depth - 1);
		return;
	}
}

void print_probe_point(struct strbuf *sb, const struct probe_point *pp)
{
	int i;

	for (i = 0; i < pp->comps.n; i++) {
		const struct pp_comp *c = pp->comps.items[i];

		if (i)
			sb_putc(sb, '.');
		sb_puts(sb, c->functor);
		if (c->arg) {
			sb_putc(sb, '(');
			if (c->arg->kind == EX_NUM)
				sb_printf(sb, "%" PRId64, c->arg->num);
			else
				print_string_literal(sb, c->arg->str);
			sb_putc(sb, ')');
		}
	}
	if (pp->sufficient)
		sb_putc(sb, '!');
	else if (pp->optional)
		sb_putc(sb, '?');
	if (pp->cond) {
		sb_puts(sb, " if (");
		print_expr(sb, pp->cond);
		sb_putc(sb, ')');
	}
}

static void print_points(struct strbuf *sb, const struct vec *v)
{
	int i;

	for (i = 0; i < v->n; i++) {
		if (i)
			sb_puts(sb, ", ");
		print_probe_point(sb, v->items[i]);
	}
}

static void print_probe(struct strbuf *sb, const struct probe *p)
{
	sb_puts(sb, "probe ");
	if (p->is_alias) {
		print_points(sb, &p->alias_names);
		sb_puts(sb, p->epilogue ? " += " : " = ");
	}
	print_points(sb, &p->points);
	sb_putc(sb, '\n');
	print_stmt(sb, p->body, 0);
}

static void print_global(struct strbuf *sb, const struct vardecl *v)
{
	if (v->is_private)
		sb_puts(sb, "private ");
	sb_printf(sb, "global %s", v->name);
	if (v->maxsize)
		sb_printf(sb, "[%ld]", v->maxsize);
	if (v->wrap)
		sb_putc(sb, '%');
	if (v->init) {
		sb_puts(sb, " = ");
		if (v->init->kind == EX_NUM)
			sb_printf(sb, "%" PRId64, v->init->num);
		else
			print_expr(sb, v->init);
	}
	sb_putc(sb, '\n');
}

static void print_function(struct strbuf *sb, const struct func *f)
{
	int i;

	if (f->is_private)
		sb_puts(sb, "private ");
	sb_printf(sb, "function %s", f->name);
	if (f->type_declared)
		sb_printf(sb, ":%s", type_name(f->type));
	sb_puts(sb, " (");
	for (i = 0; i < f->params.n; i++) {
		const struct vardecl *v = f->params.items[i];

		if (i)
			sb_puts(sb, ", ");
		sb_puts(sb, v->name);
		if (v->type_declared)
			sb_printf(sb, ":%s", type_name(v->type));
	}
	sb_putc(sb, ')');
	if (f->priority_set)
		sb_printf(sb, " :%ld", f->priority);
	sb_putc(sb, '\n');
	if (f->code)
		sb_printf(sb, "%%{%s%%}\n", f->code);
	else
		print_stmt(sb, f->body, 0);
}

void print_file(struct strbuf *sb, const struct stapfile *f)
{
	int i;

	sb_printf(sb, "# file %s\n", f->src->name);
	for (i = 0; i < f->order.n; i++) {
		const struct item *it = f->order.items[i];

		switch (it->kind) {
		case ITEM_PROBE:
		case ITEM_ALIAS:
			print_probe(sb, it->ptr);
			break;
		case ITEM_GLOBAL:
			print_global(sb, it->ptr);
			break;
		case ITEM_FUNCTION:
			print_function(sb, it->ptr);
			break;
		case ITEM_EMBEDDED:
			sb_printf(sb, "%%{%s%%}\n",
				  ((const struct embedded *)it->ptr)->code);
			break;
		}
	}
}
