/* emit-stmt.c - pass 3: statements as C, one per line at their depth:
 * control flow with its MAXACTION accounting, foreach over arrays and
 * histograms, delete, try/catch, return, and the statements made of an
 * expression evaluated for its effect.
 */
#include "emit-int.h"
#include "creflow.h"

#include <string.h>

static void gen_stmt(struct emitter *em, const struct stmt *st);

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
void stmt_line(struct emitter *em, const char *text)
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

const char *cond_text(struct emitter *em, const struct expr *e)
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

void gen_block_body(struct emitter *em, const struct stmt *st)
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
