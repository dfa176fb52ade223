/* p2print.c - the -p2 listing: the globals with their types, the
 * functions kept after elision, and every derived probe with the alias
 * chain it came through, its locals and its merged body.
 */
#include "elab.h"

static void put_type(struct strbuf *sb, const struct vardecl *v)
{
	int i;

	sb_printf(sb, "%s:%s", v->name, type_name(v->type));
	if (v->arity <= 0)
		return;
	sb_puts(sb, " [");
	for (i = 0; i < v->arity && i < MAX_INDEXES; i++)
		sb_printf(sb, "%s%s", i ? ", " : "",
			  type_name(v->index_types[i]));
	sb_putc(sb, ']');
}

static void end_line(struct strbuf *sb)
{
	if (sb->len && sb->buf[sb->len - 1] != '\n')
		sb_putc(sb, '\n');
}

static void put_locals(struct strbuf *sb, const struct vec *locals)
{
	int i;

	if (!locals->n)
		return;
	sb_puts(sb, "  # locals\n");
	for (i = 0; i < locals->n; i++) {
		sb_puts(sb, "  ");
		put_type(sb, locals->items[i]);
		sb_putc(sb, '\n');
	}
}

/* f:long (a:long, b:string), its locals, then its body or C code. */
static void put_function(struct strbuf *sb, const struct func *f)
{
	int i;

	sb_printf(sb, "%s:%s (", f->name, type_name(f->type));
	for (i = 0; i < f->params.n; i++) {
		if (i)
			sb_puts(sb, ", ");
		put_type(sb, f->params.items[i]);
	}
	sb_puts(sb, ")\n");
	put_locals(sb, &f->locals);
	if (f->code)
		sb_printf(sb, "%%{%s%%}\n", f->code);
	else if (f->body)
		print_stmt(sb, f->body, 0);
	end_line(sb);
}

/* name /-* <- point <- ... *-/: the points it was derived from, the
 * nearest first and the one the user wrote last.
 */
static void put_probe(struct strbuf *sb, const struct derived_probe *dp)
{
	int i;

	sb_puts(sb, dp->name ? dp->name : "?");
	if (dp->alias_chain.n) {
		sb_puts(sb, " /* <- ");
		for (i = dp->alias_chain.n - 1; i >= 0; i--) {
			print_probe_point(sb, dp->alias_chain.items[i]);
			if (i)
				sb_puts(sb, " <- ");
		}
		sb_puts(sb, " */");
	}
	if (dp->cond) {
		sb_puts(sb, " if (");
		print_expr(sb, dp->cond);
		sb_putc(sb, ')');
	}
	sb_putc(sb, '\n');
	put_locals(sb, &dp->locals);
	print_stmt(sb, dp->body, 0);
	end_line(sb);
}

void print_pass2(struct strbuf *sb, struct session *s)
{
	int i;

	if (s->globals.n)
		sb_puts(sb, "# globals\n");
	for (i = 0; i < s->globals.n; i++) {
		put_type(sb, s->globals.items[i]);
		sb_putc(sb, '\n');
	}
	if (s->functions.n)
		sb_puts(sb, "# functions\n");
	for (i = 0; i < s->functions.n; i++)
		put_function(sb, s->functions.items[i]);
	sb_puts(sb, "# probes\n");
	for (i = 0; i < s->probes.n; i++)
		put_probe(sb, s->probes.items[i]);
}
