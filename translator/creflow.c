/* creflow.c - line breaking for the C that pass 3 writes.
 *
 * Expressions are generated as GNU statement expressions, which come out
 * as one long line per script statement.  This pass breaks every such
 * line at its blocks and statements and indents it with tabs, the way a
 * person would have written it.  Only whitespace between tokens changes:
 * literals, comments and preprocessor lines are copied as they are, so
 * the code means the same before and after.
 */
#include "creflow.h"

#include <stdbool.h>
#include <string.h>

#define REFLOW_WIDTH	100
#define MAX_NEST	256

enum nest {
	N_PAREN,	/* ( ... ) or [ ... ] */
	N_BLOCK,	/* { ... } holding statements */
	N_INIT,		/* { ... } of an initializer */
};

struct reflow {
	struct strbuf *out;
	enum nest stack[MAX_NEST];
	int sp;
	int blocks;		/* N_BLOCK entries in stack */
	int base;		/* leading tabs of the input line */
	bool fresh;		/* nothing written on this output line yet */
	char last;		/* last non-blank character written */
	const char *word;	/* start of the last identifier written */
	size_t word_len;
};

static void push(struct reflow *r, enum nest n)
{
	if (r->sp < MAX_NEST)
		r->stack[r->sp] = n;
	r->sp++;
	if (n == N_BLOCK)
		r->blocks++;
}

static enum nest top(const struct reflow *r)
{
	if (r->sp == 0)
		return N_BLOCK;		/* the line itself is a statement list */
	return r->sp <= MAX_NEST ? r->stack[r->sp - 1] : N_PAREN;
}

static void pop(struct reflow *r)
{
	if (r->sp == 0)
		return;
	if (top(r) == N_BLOCK)
		r->blocks--;
	r->sp--;
}

static void newline(struct reflow *r)
{
	sb_putc(r->out, '\n');
	r->fresh = true;
}

/* Start a line's text at the current depth. */
static void begin_text(struct reflow *r)
{
	if (!r->fresh)
		return;
	sb_indent(r->out, r->base + r->blocks);
	r->fresh = false;
}

static void put(struct reflow *r, const char *s, size_t n)
{
	begin_text(r);
	sb_putn(r->out, s, n);
	if (n && s[n - 1] != ' ' && s[n - 1] != '\t')
		r->last = s[n - 1];
}

static bool word_is(const struct reflow *r, const char *w)
{
	return r->word && r->word_len == strlen(w) &&
	       memcmp(r->word, w, r->word_len) == 0;
}

/* A '{' opens statements after ')' (if, for, while, a statement
 * expression's '('), after another statement or block, at the start, or
 * after else/do; after '=' or ',' it opens an initializer.
 */
static bool opens_block(const struct reflow *r)
{
	if (r->last == '\0' || strchr("();{}", r->last))
		return true;
	return word_is(r, "else") || word_is(r, "do");
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* The end of the literal starting at p (a quote). */
static const char *literal_end(const char *p, const char *end)
{
	char q = *p++;

	while (p < end && *p != q) {
		if (*p == '\\' && p + 1 < end)
			p++;
		p++;
	}
	return p < end ? p + 1 : end;
}

static bool is_ident(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static bool starts_word(const char *p, const char *end, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(end - p) < n || memcmp(p, w, n) != 0)
		return false;
	if (p + n == end)
		return true;
	return !is_ident(p[n]);
}

static void reflow_line(struct strbuf *out, const char *p, const char *end)
{
	struct reflow r;
	const char *q;

	memset(&r, 0, sizeof(r));
	r.out = out;
	while (p < end && *p == '\t') {
		r.base++;
		p++;
	}
	r.fresh = true;
	while (p < end) {
		char c = *p;

		if (c == '"' || c == '\'') {
			q = literal_end(p, end);
			put(&r, p, (size_t)(q - p));
			p = q;
			continue;
		}
		if (c == '/' && p + 1 < end && (p[1] == '/' || p[1] == '*')) {
			q = p[1] == '/' ? end : strstr(p + 2, "*/");
			q = q && q < end ? (p[1] == '/' ? end : q + 2) : end;
			put(&r, p, (size_t)(q - p));
			p = q;
			continue;
		}
		if (is_ident(c)) {
			for (q = p; q < end && is_ident(*q); q++)
				;
			put(&r, p, (size_t)(q - p));
			r.word = p;
			r.word_len = (size_t)(q - p);
			p = q;
			continue;
		}
		if (c == ' ' || c == '\t') {
			if (!r.fresh)
				sb_putc(out, ' ');
			p = skip_blanks(p, end);
			continue;
		}
		if (c == '{' && opens_block(&r)) {
			put(&r, p, 1);
			push(&r, N_BLOCK);
			newline(&r);
			r.word = NULL;
			p = skip_blanks(p + 1, end);
			continue;
		}
		r.word = NULL;
		if (c == '(' || c == '[') {
			push(&r, N_PAREN);
		} else if (c == ')' || c == ']') {
			if (top(&r) == N_PAREN)
				pop(&r);
		} else if (c == '{') {
			push(&r, N_INIT);
		} else if (c == '}' && r.sp > 0 && top(&r) == N_BLOCK) {
			if (!r.fresh) {
				/* drop the blank before the brace */
				if (out->len && out->buf[out->len - 1] == ' ')
					out->buf[--out->len] = '\0';
				newline(&r);
			}
			pop(&r);
			put(&r, p, 1);
			p = skip_blanks(p + 1, end);
			if (p < end && !strchr(");,", *p) &&
			    !starts_word(p, end, "else") &&
			    !starts_word(p, end, "while"))
				newline(&r);
			else if (p < end && *p != ')' && *p != ';' && *p != ',')
				sb_putc(out, ' ');
			continue;
		} else if (c == '}') {
			if (top(&r) == N_INIT)
				pop(&r);
		} else if (c == ';' && top(&r) == N_BLOCK) {
			put(&r, p, 1);
			p = skip_blanks(p + 1, end);
			if (p < end)
				newline(&r);
			continue;
		}
		put(&r, p, 1);
		p++;
	}
	if (!r.fresh)
		newline(&r);
}

void c_reflow(const char *in, struct strbuf *out)
{
	const char *p = in;
	bool continued = false;

	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		const char *t = skip_blanks(p, end);
		bool directive = continued || (t < end && *t == '#');

		continued = directive && end > p && end[-1] == '\\';
		if (directive || end - p <= REFLOW_WIDTH) {
			sb_putn(out, p, (size_t)(end - p));
			if (nl)
				sb_putc(out, '\n');
		} else {
			reflow_line(out, p, end);
		}
		p = nl ? nl + 1 : end;
	}
}
