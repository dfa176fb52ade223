/* creflow.c - line breaking for the C that pass 3 writes.
 *
 * Expressions are generated as GNU statement expressions, which come out
 * as one long line per script statement.  This pass breaks every such
 * line at its blocks and statements and indents it with tabs, the way a
 * person would have written it: one statement per line, the statement
 * of a braceless if on the next line, and a line still wider than 80
 * columns broken after the commas of its calls, continued under the
 * open parenthesis.  Only whitespace between tokens changes: literals,
 * comments and preprocessor lines are copied as they are, so the code
 * means the same before and after.
 */
#include "creflow.h"

#include <stdbool.h>
#include <string.h>

#define REFLOW_WIDTH	80
#define MAX_NEST	256
#define MAX_SEGS	256

enum nest {
	N_PAREN,	/* ( ... ) or [ ... ] */
	N_COND,		/* the ( ... ) of if, while or for */
	N_BLOCK,	/* { ... } holding statements */
	N_INIT,		/* { ... } of an initializer */
};

struct reflow {
	struct strbuf *out;
	enum nest stack[MAX_NEST];
	int sp;
	int blocks;		/* N_BLOCK entries in stack */
	int base;		/* leading tabs of the input line */
	int extra;		/* the statement of a braceless if */
	int extra_sp;		/* ... which ends at a ';' at this depth */
	bool call;		/* the last '(' is a call's, f( */
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
	sb_indent(r->out, r->base + r->blocks + r->extra);
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
	/* in parentheses, a compound literal's braces: only ({ is code;
	 * in an initializer, the braces of its members
	 */
	if (r->sp > 0 && (top(r) == N_PAREN || top(r) == N_COND))
		return r->last == '(' && !r->call;
	if (r->sp > 0 && top(r) == N_INIT)
		return false;
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
		if (c == '(' && (top(&r) == N_BLOCK) && (word_is(&r, "if") ||
		    word_is(&r, "while") || word_is(&r, "for"))) {
			r.word = NULL;
			push(&r, N_COND);
			put(&r, p, 1);
			p++;
			continue;
		}
		if (c == '(')
			r.call = r.word != NULL;
		r.word = NULL;
		if (c == ')' && top(&r) == N_COND) {
			pop(&r);
			put(&r, p, 1);
			q = skip_blanks(p + 1, end);
			if (q < end && *q != '{' && *q != ';' &&
			    top(&r) == N_BLOCK) {
				/* if (x) stmt; -- the statement goes below */
				newline(&r);
				r.extra++;
				r.extra_sp = r.sp;
				p = q;
			} else {
				p++;
			}
			continue;
		}
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
			/* the block was the statement of a braceless if */
			if (r.sp == r.extra_sp)
				r.extra = 0;
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
			if (r.sp == r.extra_sp)
				r.extra = 0;
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

/* The column after the text p..end written from column col. */
static int advance(int col, const char *p, const char *end)
{
	for (; p < end; p++)
		col = *p == '\t' ? (col / 8 + 1) * 8 : col + 1;
	return col;
}

/* A piece of a line that is not broken: it starts after the ", " or
 * "; " of a parenthesis (or at the line's start) and is continued under
 * the '(' at byte open of piece owner; or after the " = " of an
 * assignment (owner -1), one tab in from the line.  depth is how many
 * parentheses the break before it is in: the fewer, the better a place
 * to break.
 */
struct seg {
	const char *p, *end;
	int owner, open, depth;
	int col;		/* where it is written */
	bool brk;		/* on a line of its own */
};

/* Cut p..end into pieces; returns how many. */
static int cut_line(struct seg *seg, const char *p, const char *end)
{
	int stack[MAX_NEST][3], sp = 0, n = 1;
	const char *q = p;
	bool assigned = false;

	memset(&seg[0], 0, sizeof(seg[0]));
	seg[0].p = p;
	seg[0].owner = -1;
	while (q < end && n < MAX_SEGS) {
		bool paren = sp > 0 && stack[sp - 1][2] == '(';

		if (*q == '"' || *q == '\'') {
			q = literal_end(q, end);
			continue;
		}
		/* no break in or after a comment */
		if (*q == '/' && q + 1 < end && (q[1] == '/' || q[1] == '*'))
			break;
		if ((*q == '(' || *q == '{' || *q == '[') && sp < MAX_NEST) {
			stack[sp][0] = n - 1;
			stack[sp][1] = (int)(q - seg[n - 1].p);
			stack[sp][2] = *q;
			sp++;
		} else if ((*q == ')' || *q == '}' || *q == ']') && sp > 0) {
			sp--;
		} else if (((*q == ',' || *q == ';') && paren &&
			    q + 1 < end && q[1] == ' ') ||
			   (*q == '=' && sp == 0 && !assigned && q > p &&
			    q[-1] == ' ' && q + 1 < end && q[1] == ' ')) {
			memset(&seg[n], 0, sizeof(seg[n]));
			seg[n - 1].end = q + 1;
			seg[n].p = q + 2;
			seg[n].owner = *q == '=' ? -1 : stack[sp - 1][0];
			seg[n].open = *q == '=' ? 0 : stack[sp - 1][1];
			seg[n].depth = sp;
			assigned |= *q == '=';
			n++;
			q += 2;
			continue;
		}
		q++;
	}
	seg[n - 1].end = end;
	return n;
}

/* The column a piece that breaks is continued at. */
static int cont_col(const struct seg *seg, int i, const char *p,
		    const char *end)
{
	const struct seg *o = &seg[seg[i].owner < 0 ? 0 : seg[i].owner];

	if (seg[i].owner < 0)
		return advance(0, p, skip_blanks(p, end)) + 8;
	return advance(o->col, o->p, o->p + seg[i].open + 1);
}

/* Write the line p..end, broken where it is wider than REFLOW_WIDTH:
 * each line as full as it goes, the break where the fewest
 * parentheses are open, a piece that goes below under the '(' it is
 * in, with tabs and then spaces.
 */
static void wrap_line(struct strbuf *out, const char *p, const char *end)
{
	struct seg seg[MAX_SEGS];
	int n = cut_line(seg, p, end), i = 1, j, k, first = 0, col, t;

	col = advance(0, seg[0].p, seg[0].end);
	while (i < n) {
		if (advance(col + 1, seg[i].p, seg[i].end) <= REFLOW_WIDTH) {
			seg[i].brk = false;
			seg[i].col = col + 1;
			col = advance(seg[i].col, seg[i].p, seg[i].end);
			i++;
			continue;
		}
		/* break before the shallowest piece since the line began */
		j = i;
		for (k = i - 1; k > first; k--)
			if (seg[k].depth < seg[j].depth)
				j = k;
		seg[j].brk = true;
		seg[j].col = cont_col(seg, j, p, end);
		col = advance(seg[j].col, seg[j].p, seg[j].end);
		first = j;
		i = j + 1;
	}
	sb_putn(out, seg[0].p, (size_t)(seg[0].end - seg[0].p));
	for (i = 1; i < n; i++) {
		if (seg[i].brk) {
			sb_putc(out, '\n');
			for (t = 0; t + 8 <= seg[i].col; t += 8)
				sb_putc(out, '\t');
			for (; t < seg[i].col; t++)
				sb_putc(out, ' ');
		} else {
			sb_putc(out, ' ');
		}
		sb_putn(out, seg[i].p, (size_t)(seg[i].end - seg[i].p));
	}
}

/* Whether a line ends inside a block comment, given whether it starts
 * in one.
 */
static bool ends_in_comment(const char *p, const char *end, bool in)
{
	while (p < end) {
		if (in) {
			if (p + 1 < end && p[0] == '*' && p[1] == '/') {
				in = false;
				p += 2;
				continue;
			}
			p++;
		} else if (*p == '"' || *p == '\'') {
			p = literal_end(p, end);
		} else if (p + 1 < end && p[0] == '/' && p[1] == '/') {
			return false;
		} else if (p + 1 < end && p[0] == '/' && p[1] == '*') {
			in = true;
			p += 2;
		} else {
			p++;
		}
	}
	return in;
}

/* Append the lines of text, each wrapped to REFLOW_WIDTH. */
static void wrap_lines(struct strbuf *out, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);

		if (advance(0, p, end) > REFLOW_WIDTH)
			wrap_line(out, p, end);
		else
			sb_putn(out, p, (size_t)(end - p));
		if (nl)
			sb_putc(out, '\n');
		p = nl ? nl + 1 : end;
	}
}

/* Whether a line holds a statement expression, which is always broken. */
static bool has_stmt_expr(const char *p, const char *end)
{
	for (; p + 1 < end; p++) {
		if (*p == '"' || *p == '\'')
			p = literal_end(p, end) - 1;
		else if (p[0] == '(' && p[1] == '{')
			return true;
	}
	return false;
}

void c_reflow_line(const char *line, struct strbuf *out)
{
	reflow_line(out, line, line + strlen(line));
}

void c_reflow(const char *in, struct strbuf *out)
{
	const char *p = in;
	bool continued = false, comment = false;
	struct strbuf tmp;

	sb_init(&tmp);
	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		const char *t = skip_blanks(p, end);
		bool directive = continued || (t < end && *t == '#');
		bool quoted = comment;

		continued = directive && end > p && end[-1] == '\\';
		comment = ends_in_comment(p, end, comment);
		if (directive || quoted ||
		    (advance(0, p, end) <= REFLOW_WIDTH &&
		     !has_stmt_expr(p, end))) {
			sb_putn(out, p, (size_t)(end - p));
			if (nl)
				sb_putc(out, '\n');
		} else {
			tmp.len = 0;
			if (tmp.buf)
				tmp.buf[0] = '\0';
			reflow_line(&tmp, p, end);
			if (!nl && tmp.len && tmp.buf[tmp.len - 1] == '\n')
				tmp.buf[--tmp.len] = '\0';
			wrap_lines(out, tmp.buf ? tmp.buf : "");
		}
		p = nl ? nl + 1 : end;
	}
	sb_free(&tmp);
}
