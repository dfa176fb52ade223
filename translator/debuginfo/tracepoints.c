/* tracepoints.c - the tracepoint catalog of an installed kernel, read from
 * the trace event headers of its header tree: each event's trace system,
 * name and arguments, in TP_PROTO/TP_ARGS order.
 *
 * The headers cannot be read with a pattern match.  Many define their
 * events through local wrapper macros (sunrpc.h's
 * DEFINE_RPC_RUNNING_EVENT(begin) pastes rpc_task_##name), pick the
 * event macro by configuration (sched.h's DEFINE_EVENT_SCHEDSTAT) and
 * guard events by CONFIG_*.  So this file holds a small preprocessor:
 * it runs #define/#undef and #if with the tree's .config, expands the
 * file's own macros, and reads the event macros of linux/tracepoint.h
 * by name instead of expanding them.  Macros of other headers are not
 * known; a condition that depends on one counts as possibly true, so
 * the catalog errs towards listing an event (BTF has the last word on
 * whether the kernel really has it).
 */
#define _GNU_SOURCE
#include "debuginfo/tracepoints.h"
#include "session.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ktp_catalog {
	struct arena *arena;
	const char *source_dir;
	struct ktp_event **events;	/* by (system, name) */
	struct ktp_event **by_name;	/* by name, for ktp_find */
	int nevents;
	struct vec warnings;		/* const char * */
};

/* An event as it is met, before sorting: seq keeps the order of
 * discovery so that of two definitions the first one wins.
 */
struct found {
	struct ktp_event ev;
	int seq;
};

/* State of one load: shared by the files of the tree. */
struct loader {
	struct ktp_catalog *cat;
	struct kconfig *kconfig;	/* NULL: every CONFIG_* is unknown */
	bool tp_suffix;			/* DECLARE_TRACE appends "_tp" */
	struct vec found;		/* struct found * */
};



/* ------------------------------------------------------------ tokens */

enum tkind { T_EOF, T_EOL, T_IDENT, T_NUM, T_STR, T_PUNCT, T_UNKNOWN };

struct macro;

/* The macros a token came out of, which may not expand it again. */
struct hideset {
	const struct macro *m;
	struct hideset *next;
};

struct tok {
	struct tok *next;		/* in the pushback list */
	const char *s;			/* not NUL-terminated */
	unsigned int len;
	unsigned char kind;
	bool space;			/* whitespace before it */
	bool bol;			/* first on its line */
	int line;
	struct hideset *hs;
};

struct macro {
	bool func;
	bool variadic;		/* the last parameter takes the rest */
	int nparams;
	struct tok **params;
	struct tok **body;
	int nbody;
};

#define MAX_COND 64

/* #if nesting: live is whether this group's text is read; done, that
 * a group of this chain was surely taken, so later ones are not.
 */
struct cond {
	bool live;
	bool done;
	bool parent_live;
};

/* One header being read; everything but the events found lives in a
 * per-file arena, freed when the file is done.
 */
struct tpfile {
	struct loader *ld;
	struct arena *a;
	const char *rel;
	const char *p, *end;
	int line;
	bool bol;
	struct tok *pending;	/* read before the lexer's tokens */
	struct tok *eof;
	struct htab macros;		/* name -> struct macro; NULL once
					 * #undef'd */
	struct htab owned;		/* names the file #defines anywhere */
	struct cond conds[MAX_COND];
	int ncond;
	int overflow;			/* #if levels past MAX_COND */
	long expansions;
	int depth;			/* of expand_list in expand_list */
	const char *sys_cache;		/* the last TRACE_SYSTEM string */
};

/* Bound a macro expansion gone wild in a malformed header, and the
 * recursion of nested calls and parentheses.
 */
#define MAX_EXPANSIONS 2000000L
#define MAX_DEPTH 200

static void warn(struct tpfile *f, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void warn(struct tpfile *f, int line, const char *fmt, ...)
{
	struct ktp_catalog *c = f->ld->cat;
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = arena_vprintf(c->arena, fmt, ap);
	va_end(ap);
	vec_push(c->arena, &c->warnings,
		 arena_printf(c->arena, "%s:%d: %s", f->rel, line, msg));
}

static bool tok_is(const struct tok *t, const char *s)
{
	return t->len == strlen(s) && !memcmp(t->s, s, t->len);
}

static bool punct_is(const struct tok *t, const char *s)
{
	return t->kind == T_PUNCT && tok_is(t, s);
}

static struct tok *tok_dup(struct tpfile *f, const struct tok *t)
{
	struct tok *n = arena_alloc(f->a, sizeof(*n));

	*n = *t;
	n->next = NULL;
	return n;
}

static struct tok *tok_ptr(struct vec *v, int i)
{
	return vec_get(v, i);
}


/* ------------------------------------------------------------- lexer */

static bool is_ident_start(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_ident_char(int c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* Translation phase 2 in place: drop every backslash-newline.  The
 * newlines taken out of a logical line are put back after its end, so
 * that later lines keep their numbers.
 */
static size_t splice_lines(char *buf, size_t len)
{
	size_t r = 0, w = 0;
	int owed = 0;

	while (r < len) {
		if (buf[r] == '\\' && r + 1 < len && buf[r + 1] == '\n') {
			r += 2;
			owed++;
		} else if (buf[r] == '\\' && r + 2 < len &&
			   buf[r + 1] == '\r' && buf[r + 2] == '\n') {
			r += 3;
			owed++;
		} else if (buf[r] == '\n') {
			buf[w++] = buf[r++];
			for (; owed; owed--)
				buf[w++] = '\n';
		} else {
			buf[w++] = buf[r++];
		}
	}
	buf[w] = '\0';
	return w;
}

/* Skips blanks and comments; returns true at a newline when eol is set
 * (consuming it), else newlines are blanks too.
 */
static bool skip_blank(struct tpfile *f, bool eol, bool *space)
{
	const char *p = f->p, *end = f->end;

	while (p < end) {
		if (*p == '\n') {
			p++;
			f->line++;
			f->bol = true;
			*space = true;
			if (eol) {
				f->p = p;
				return true;
			}
		} else if (*p == ' ' || *p == '\t' || *p == '\r' ||
			   *p == '\f' || *p == '\v') {
			p++;
			*space = true;
		} else if (*p == '/' && p + 1 < end && p[1] == '*') {
			for (p += 2; p < end && !(*p == '*' && p + 1 < end &&
						  p[1] == '/'); p++)
				f->line += *p == '\n';
			p = p < end ? p + 2 : end;
			*space = true;
		} else if (*p == '/' && p + 1 < end && p[1] == '/') {
			while (p < end && *p != '\n')
				p++;
			*space = true;
		} else {
			break;
		}
	}
	f->p = p;
	return false;
}

/* A string or character literal; an unterminated one, as an apostrophe
 * in text under #if 0, ends at the end of its line.
 */
static const char *scan_quoted(const char *p, const char *end)
{
	char q = *p++;

	while (p < end && *p != q && *p != '\n')
		p += (*p == '\\' && p + 1 < end) ? 2 : 1;
	return p < end && *p == q ? p + 1 : p;
}

/* A preprocessing number: digits, letters, '.', and a sign after an
 * exponent.
 */
static const char *scan_number(const char *p, const char *end)
{
	while (p < end) {
		if ((*p == '+' || *p == '-') &&
		    (p[-1] == 'e' || p[-1] == 'E' || p[-1] == 'p' ||
		     p[-1] == 'P'))
			p++;
		else if (is_ident_char(*p) || *p == '.')
			p++;
		else
			break;
	}
	return p;
}

static size_t punct_len(const char *p, const char *end)
{
	static const char *const two[] = {
		"##", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "->",
		"++", "--",
	};
	size_t i;

	if (end - p >= 3 && !memcmp(p, "...", 3))
		return 3;
	for (i = 0; i < ARRAY_SIZE(two) && end - p >= 2; i++)
		if (!memcmp(p, two[i], 2))
			return 2;
	return 1;
}

/* The next token of the file into *t; T_EOL at a newline when eol. */
static void lex(struct tpfile *f, struct tok *t, bool eol)
{
	const char *p;
	bool space = false;

	memset(t, 0, sizeof(*t));
	if (skip_blank(f, eol, &space)) {
		t->kind = T_EOL;
		return;
	}
	t->space = space;
	t->bol = f->bol;
	t->line = f->line;
	f->bol = false;
	p = f->p;
	t->s = p;
	if (p >= f->end) {
		t->kind = T_EOF;
		return;
	}
	if (is_ident_start(*p)) {
		while (p < f->end && is_ident_char(*p))
			p++;
		t->kind = T_IDENT;
	} else if ((*p >= '0' && *p <= '9') ||
		   (*p == '.' && p + 1 < f->end && p[1] >= '0' &&
		    p[1] <= '9')) {
		p = scan_number(p + 1, f->end);
		t->kind = T_NUM;
	} else if (*p == '"' || *p == '\'') {
		p = scan_quoted(p, f->end);
		t->kind = T_STR;
	} else {
		p += punct_len(p, f->end);
		t->kind = T_PUNCT;
	}
	t->len = (unsigned int)(p - t->s);
	f->p = p;
}

/* The rest of a directive line, as tokens. */
static void read_line(struct tpfile *f, struct vec *out)
{
	struct tok t;

	for (;;) {
		lex(f, &t, true);
		if (t.kind == T_EOL || t.kind == T_EOF)
			return;
		vec_push(f->a, out, tok_dup(f, &t));
	}
}

static void skip_line(struct tpfile *f)
{
	struct tok t;

	do
		lex(f, &t, true);
	while (t.kind != T_EOL && t.kind != T_EOF);
}

/* Every name the file #defines somewhere: before its definition such a
 * name is surely undefined, while a name the file never defines may
 * come from a header we do not read.
 */
static void scan_owned(struct tpfile *f)
{
	const char *p = f->p, *end = f->end, *s;

	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < end && *p == '#') {
			for (p++; p < end && (*p == ' ' || *p == '\t'); p++)
				;
			if (end - p > 7 && !memcmp(p, "define", 6) &&
			    (p[6] == ' ' || p[6] == '\t')) {
				for (p += 7; p < end && (*p == ' ' ||
							 *p == '\t'); p++)
					;
				for (s = p; p < end && is_ident_char(*p); p++)
					;
				if (p > s)
					htab_put(&f->owned, s,
						 (size_t)(p - s), f);
			}
		}
		p = memchr(p, '\n', (size_t)(end - p));
		p = p ? p + 1 : end;
	}
}


/* ------------------------------------------------- #define and #undef */

static struct macro *find_macro(struct tpfile *f, const struct tok *t)
{
	return htab_get(&f->macros, t->s, t->len);
}

/* params: "(a, b)", "(a, ...)" with __VA_ARGS__, or GNU "(a, rest...)". */
static bool read_params(struct tpfile *f, struct macro *m)
{
	struct vec params = { 0 };
	struct tok t;

	f->p++;		/* the '(' */
	for (;;) {
		lex(f, &t, true);
		if (params.n == 0 && punct_is(&t, ")"))
			break;
		if (punct_is(&t, "...")) {
			static const char va[] = "__VA_ARGS__";

			t.kind = T_IDENT;
			t.s = va;
			t.len = sizeof(va) - 1;
			m->variadic = true;
		} else if (t.kind != T_IDENT) {
			return false;
		}
		vec_push(f->a, &params, tok_dup(f, &t));
		lex(f, &t, true);
		if (punct_is(&t, "...")) {
			m->variadic = true;
			lex(f, &t, true);
		}
		if (punct_is(&t, ")"))
			break;
		if (!punct_is(&t, ",") || m->variadic)
			return false;
	}
	m->params = (struct tok **)params.items;
	m->nparams = params.n;
	return true;
}

static void do_define(struct tpfile *f, int line)
{
	struct macro *m = arena_alloc(f->a, sizeof(*m));
	struct vec body = { 0 };
	struct tok name;

	lex(f, &name, true);
	if (name.kind != T_IDENT) {
		warn(f, line, "#define without a name");
		if (name.kind != T_EOL)
			skip_line(f);
		return;
	}
	if (f->p < f->end && *f->p == '(') {
		m->func = true;
		if (!read_params(f, m)) {
			warn(f, line, "bad parameters of macro %.*s",
			     (int)name.len, name.s);
			if (!f->bol)	/* the line's end is not read yet */
				skip_line(f);
			return;
		}
	}
	read_line(f, &body);
	m->body = (struct tok **)body.items;
	m->nbody = body.n;
	htab_put(&f->macros, name.s, name.len, m);
}

static void do_undef(struct tpfile *f)
{
	struct tok name;

	lex(f, &name, true);
	if (name.kind == T_IDENT && htab_get(&f->macros, name.s, name.len))
		htab_put(&f->macros, name.s, name.len, NULL);
	if (name.kind != T_EOL)
		skip_line(f);
}


/* -------------------------------------------------------------- #if */

/* A value in #if: known, or depending on what we cannot see. */
struct val {
	long long v;
	bool known;
};

static const struct val unknown = { 0, false };

static struct val known(long long v)
{
	struct val r = { v, true };

	return r;
}

/* The environment of a header as the kernel reads it to make the
 * events: by GCC, in the first of define_trace.h's passes.
 */
static const struct {
	const char *name;
	int value;
} env_names[] = {
	{ "__KERNEL__", 1 },
	/* Defined by the one .c file that makes a header's events, and
	 * module.h names its TRACE_SYSTEM only then.
	 */
	{ "CREATE_TRACE_POINTS", 1 },
	{ "TRACE_HEADER_MULTI_READ", 0 },
	{ "__clang__", 0 },
	{ "__ASSEMBLY__", 0 },
	{ "__CHECKER__", 0 },
};

static int env_value(const struct tok *t)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(env_names); i++)
		if (tok_is(t, env_names[i].name))
			return env_names[i].value;
	return -1;
}

/* CONFIG_X as include/generated/autoconf.h would define it: "y" as 1,
 * a number as itself, "m" only as CONFIG_X_MODULE.  NULL when not
 * defined; unknown (*unk) without a .config.
 */
static const char *config_text(struct tpfile *f, const struct tok *t,
			       bool *unk)
{
	char name[160];
	const char *v;

	*unk = !f->ld->kconfig || t->len >= sizeof(name);
	if (*unk)
		return NULL;
	memcpy(name, t->s, t->len);
	name[t->len] = '\0';
	v = kconfig_get(f->ld->kconfig, name);
	if (v && !strcmp(v, "y"))
		return "1";
	if (v)
		return strcmp(v, "m") ? v : NULL;
	if (t->len > 7 && !strcmp(name + t->len - 7, "_MODULE")) {
		name[t->len - 7] = '\0';
		v = kconfig_get(f->ld->kconfig, name);
		if (v && !strcmp(v, "m"))
			return "1";
	}
	return NULL;
}

static bool is_config(const struct tok *t)
{
	return t->kind == T_IDENT && t->len > 7 && !memcmp(t->s, "CONFIG_", 7);
}

static struct val defined_value(struct tpfile *f, const struct tok *t)
{
	bool unk;
	int e;

	if (find_macro(f, t))
		return known(1);
	if (is_config(t)) {
		const char *v = config_text(f, t, &unk);

		return unk ? unknown : known(v != NULL);
	}
	e = env_value(t);
	if (e >= 0)
		return known(e);
	if (htab_get(&f->owned, t->s, t->len))
		return known(0);
	return unknown;
}

/* IS_ENABLED(CONFIG_X) and kin, from include/linux/kconfig.h. */
static struct val kconfig_macro(struct tpfile *f, const struct tok *fn,
				const struct tok *arg)
{
	char name[160];
	const char *v;

	if (!f->ld->kconfig || !is_config(arg) || arg->len >= sizeof(name))
		return unknown;
	memcpy(name, arg->s, arg->len);
	name[arg->len] = '\0';
	v = kconfig_get(f->ld->kconfig, name);
	if (tok_is(fn, "IS_BUILTIN"))
		return known(v && !strcmp(v, "y"));
	if (tok_is(fn, "IS_MODULE"))
		return known(v && !strcmp(v, "m"));
	/* as seen from built-in code, which is where most events are */
	if (tok_is(fn, "IS_REACHABLE"))
		return known(v && !strcmp(v, "y"));
	return known(v && (!strcmp(v, "y") || !strcmp(v, "m")));
}

static struct val number(const char *s, size_t len)
{
	char buf[64], *end;
	unsigned long long v;

	if (len >= sizeof(buf))
		return unknown;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 0);
	while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
		end++;
	if (errno || *end)
		return unknown;
	return known((long long)v);
}

struct expr {
	struct tpfile *f;
	struct tok **t;
	int n;
	int i;
	int depth;
	bool bad;
};

static struct tok *ex_peek(struct expr *e)
{
	return e->i < e->n ? e->t[e->i] : NULL;
}

static bool ex_accept(struct expr *e, const char *punct)
{
	struct tok *t = ex_peek(e);

	if (t && punct_is(t, punct)) {
		e->i++;
		return true;
	}
	return false;
}

static struct val ex_cond(struct expr *e);

/* An identifier left after expansion: CONFIG_X, IS_ENABLED(X), or a
 * name we know or own (0 when undefined), else unknown.
 */
static struct val ex_ident(struct expr *e, struct tok *t)
{
	struct tok *a;
	bool unk;
	int v, depth;

	if ((tok_is(t, "IS_ENABLED") || tok_is(t, "IS_BUILTIN") ||
	     tok_is(t, "IS_MODULE") || tok_is(t, "IS_REACHABLE")) &&
	    ex_accept(e, "(")) {
		a = ex_peek(e);
		e->i++;
		if (!a || !ex_accept(e, ")"))
			e->bad = true;
		return a ? kconfig_macro(e->f, t, a) : unknown;
	}
	if (ex_accept(e, "(")) {	/* a function-like macro we lack */
		for (depth = 1; depth && e->i < e->n; e->i++)
			depth += punct_is(e->t[e->i], "(") -
				 punct_is(e->t[e->i], ")");
		e->bad |= depth != 0;
		return unknown;
	}
	if (is_config(t)) {
		const char *s = config_text(e->f, t, &unk);

		return unk ? unknown : s ? number(s, strlen(s)) : known(0);
	}
	v = env_value(t);
	if (v >= 0)
		return known(v);
	return htab_get(&e->f->owned, t->s, t->len) ? known(0) : unknown;
}

/* primary: number | ident | '(' cond ')' | unary-op primary */
static struct val ex_unary(struct expr *e)
{
	struct tok *t = ex_peek(e);
	struct val v;

	if (!t || e->depth > MAX_DEPTH) {
		e->bad = true;
		return unknown;
	}
	e->i++;
	if (t->kind == T_NUM)
		return number(t->s, t->len);
	if (t->kind == T_IDENT)
		return ex_ident(e, t);
	if (t->kind == T_UNKNOWN)
		return unknown;
	if (punct_is(t, "(")) {
		e->depth++;
		v = ex_cond(e);
		e->depth--;
		if (!ex_accept(e, ")"))
			e->bad = true;
		return v;
	}
	if (t->kind != T_PUNCT || t->len != 1 || !strchr("!~-+", *t->s)) {
		e->bad = true;
		return unknown;
	}
	e->depth++;
	v = ex_unary(e);
	e->depth--;
	if (!v.known)
		return v;
	switch (*t->s) {
	case '!':
		return known(!v.v);
	case '~':
		return known(~v.v);
	case '-':
		return known((long long)(0 - (unsigned long long)v.v));
	default:
		return v;
	}
}

static const struct {
	const char *op;
	int prec;
} binops[] = {
	{ "||", 1 }, { "&&", 2 }, { "|", 3 }, { "^", 4 }, { "&", 5 },
	{ "==", 6 }, { "!=", 6 }, { "<", 7 }, { ">", 7 }, { "<=", 7 },
	{ ">=", 7 }, { "<<", 8 }, { ">>", 8 }, { "+", 9 }, { "-", 9 },
	{ "*", 10 }, { "/", 10 }, { "%", 10 },
};

/* && and || are decided by one known side when it settles them. */
static struct val apply_logic(bool and, struct val l, struct val r)
{
	bool settles = and ? false : true;

	if ((l.known && !!l.v == settles) || (r.known && !!r.v == settles))
		return known(settles);
	if (l.known && r.known)
		return known(!settles);
	return unknown;
}

/* Arithmetic wraps as in unsigned, so no header can make it undefined. */
static struct val apply(const char *op, struct val l, struct val r)
{
	long long a = l.v, b = r.v;
	unsigned long long ua = (unsigned long long)a;
	unsigned long long ub = (unsigned long long)b;

	if (!strcmp(op, "&&") || !strcmp(op, "||"))
		return apply_logic(op[0] == '&', l, r);
	if (!l.known || !r.known)
		return unknown;
	if ((op[0] == '/' || op[0] == '%') && (b == 0 || b == -1))
		return b ? known(op[0] == '/' ? (long long)(0 - ua) : 0) :
			   unknown;
	switch (op[0] << 8 | op[1]) {
	case '|' << 8:
		return known(a | b);
	case '^' << 8:
		return known(a ^ b);
	case '&' << 8:
		return known(a & b);
	case '=' << 8 | '=':
		return known(a == b);
	case '!' << 8 | '=':
		return known(a != b);
	case '<' << 8:
		return known(a < b);
	case '>' << 8:
		return known(a > b);
	case '<' << 8 | '=':
		return known(a <= b);
	case '>' << 8 | '=':
		return known(a >= b);
	case '<' << 8 | '<':
		return known(b >= 0 && b < 64 ? (long long)(ua << b) : 0);
	case '>' << 8 | '>':
		return known(b >= 0 && b < 64 ? a >> b : 0);
	case '+' << 8:
		return known((long long)(ua + ub));
	case '-' << 8:
		return known((long long)(ua - ub));
	case '*' << 8:
		return known((long long)(ua * ub));
	case '/' << 8:
		return known(a / b);
	default:
		return known(a % b);
	}
}

/* binary: unary { op binary }, by precedence climbing */
static struct val ex_binary(struct expr *e, int minprec)
{
	struct val l = ex_unary(e), r;
	struct tok *t;
	size_t k;

	for (;;) {
		t = ex_peek(e);
		if (!t || t->kind != T_PUNCT)
			return l;
		for (k = 0; k < ARRAY_SIZE(binops); k++)
			if (tok_is(t, binops[k].op))
				break;
		if (k == ARRAY_SIZE(binops) || binops[k].prec < minprec)
			return l;
		e->i++;
		r = ex_binary(e, binops[k].prec + 1);
		l = apply(binops[k].op, l, r);
	}
}

/* cond: binary [ '?' cond ':' cond ] */
static struct val ex_cond(struct expr *e)
{
	struct val c = ex_binary(e, 1), a, b;

	if (!ex_accept(e, "?"))
		return c;
	e->depth++;
	a = ex_cond(e);
	if (!ex_accept(e, ":"))
		e->bad = true;
	b = ex_cond(e);
	e->depth--;
	if (c.known)
		return c.v ? a : b;
	return a.known && b.known && a.v == b.v ? a : unknown;
}

static void expand_list(struct tpfile *f, struct vec *in, struct vec *out);

/* "defined X" and "defined(X)" become 1, 0 or T_UNKNOWN before
 * expansion, as the standard requires.
 */
static void replace_defined(struct tpfile *f, struct vec *line)
{
	struct vec out = { 0 };
	int i;

	for (i = 0; i < line->n; i++) {
		struct tok *t = tok_ptr(line, i), *n;
		bool paren;
		struct val v;

		if (t->kind != T_IDENT || !tok_is(t, "defined")) {
			vec_push(f->a, &out, t);
			continue;
		}
		paren = i + 1 < line->n && punct_is(tok_ptr(line, i + 1), "(");
		i += paren ? 2 : 1;
		if (i >= line->n)
			break;
		v = defined_value(f, tok_ptr(line, i));
		if (paren && i + 1 < line->n &&
		    punct_is(tok_ptr(line, i + 1), ")"))
			i++;
		n = tok_dup(f, t);
		n->kind = v.known ? T_NUM : T_UNKNOWN;
		n->s = v.known && v.v ? "1" : "0";
		n->len = 1;
		vec_push(f->a, &out, n);
	}
	*line = out;
}

/* 1, 0, or -1 when it depends on what we cannot see. */
static int eval_if(struct tpfile *f, struct vec *line, int lineno)
{
	struct vec exp = { 0 };
	struct expr e;
	struct val v;

	replace_defined(f, line);
	expand_list(f, line, &exp);
	e.f = f;
	e.t = (struct tok **)exp.items;
	e.n = exp.n;
	e.i = 0;
	e.depth = 0;
	e.bad = false;
	v = ex_cond(&e);
	if (e.bad || e.i != e.n) {
		warn(f, lineno, "cannot evaluate #if; taking it as maybe");
		return -1;
	}
	return v.known ? v.v != 0 : -1;
}


/* ------------------------------------------------------ conditionals */

static bool live(const struct tpfile *f)
{
	return f->overflow ? false : !f->ncond || f->conds[f->ncond - 1].live;
}

/* Enter a group whose condition is v (1, 0, -1 = maybe, which is taken
 * without settling the chain, so its #else is read too).
 */
static void cond_take(struct cond *c, int v)
{
	c->live = c->parent_live && !c->done && v != 0;
	if (c->parent_live && v == 1)
		c->done = true;
}

/* kind: 'i' #if, 'd' #ifdef, 'n' #ifndef, and 'e'/'D'/'N' for #elif,
 * #elifdef, #elifndef.
 */
static int cond_value(struct tpfile *f, char kind, int lineno)
{
	struct vec line = { 0 };
	struct val v;

	read_line(f, &line);
	if (kind == 'i' || kind == 'e')
		return eval_if(f, &line, lineno);
	if (line.n < 1 || tok_ptr(&line, 0)->kind != T_IDENT) {
		warn(f, lineno, "#ifdef without a name");
		return -1;
	}
	v = defined_value(f, tok_ptr(&line, 0));
	if (!v.known)
		return -1;
	return (kind == 'n' || kind == 'N') ? !v.v : v.v != 0;
}

static void do_if(struct tpfile *f, char kind, int lineno)
{
	struct cond *c;
	bool parent = live(f);

	if (f->ncond == MAX_COND) {
		if (!f->overflow++)
			warn(f, lineno, "#if nested deeper than %d", MAX_COND);
		skip_line(f);
		return;
	}
	c = &f->conds[f->ncond++];
	c->parent_live = parent;
	c->done = false;
	if (!parent) {
		c->live = false;
		skip_line(f);
		return;
	}
	cond_take(c, cond_value(f, kind, lineno));
}

static void do_elif(struct tpfile *f, char kind, int lineno)
{
	struct cond *c;

	if (f->overflow || !f->ncond) {
		skip_line(f);
		if (!f->ncond && !f->overflow)
			warn(f, lineno, "#elif/#else without #if");
		return;
	}
	c = &f->conds[f->ncond - 1];
	if (kind == 'E') {		/* #else */
		skip_line(f);
		cond_take(c, 1);
	} else if (!c->parent_live || c->done) {
		c->live = false;
		skip_line(f);
	} else {
		cond_take(c, cond_value(f, kind, lineno));
	}
}

static void do_endif(struct tpfile *f, int lineno)
{
	skip_line(f);
	if (f->overflow)
		f->overflow--;
	else if (f->ncond)
		f->ncond--;
	else
		warn(f, lineno, "#endif without #if");
}

static const struct {
	const char *name;
	char kind;
} cond_directives[] = {
	{ "if", 'i' }, { "ifdef", 'd' }, { "ifndef", 'n' },
	{ "elif", 'e' }, { "elifdef", 'D' }, { "elifndef", 'N' },
	{ "else", 'E' },
};

/* A line starting with '#'.  Only #define, #undef and conditionals
 * matter; #include is not followed, as each header is read alone.
 */
static void directive(struct tpfile *f, int lineno)
{
	struct tok t;
	size_t i;

	lex(f, &t, true);
	if (t.kind == T_EOL || t.kind == T_EOF)
		return;
	for (i = 0; i < ARRAY_SIZE(cond_directives); i++) {
		char k = cond_directives[i].kind;

		if (t.kind != T_IDENT || !tok_is(&t, cond_directives[i].name))
			continue;
		if (k == 'i' || k == 'd' || k == 'n')
			do_if(f, k, lineno);
		else
			do_elif(f, k, lineno);
		return;
	}
	if (t.kind == T_IDENT && tok_is(&t, "endif"))
		do_endif(f, lineno);
	else if (live(f) && t.kind == T_IDENT && tok_is(&t, "define"))
		do_define(f, lineno);
	else if (live(f) && t.kind == T_IDENT && tok_is(&t, "undef"))
		do_undef(f);
	else
		skip_line(f);
}


/* --------------------------------------------------------- expansion */

static void unget(struct tpfile *f, struct tok *t)
{
	t->next = f->pending;
	f->pending = t;
}

/* The next token: one pushed back, else the lexer's next token of text
 * that is read, running directives on the way.
 */
static struct tok *next_tok(struct tpfile *f)
{
	struct tok t;

	if (f->pending) {
		struct tok *p = f->pending;

		f->pending = p->next;
		p->next = NULL;
		return p;
	}
	for (;;) {
		lex(f, &t, false);
		if (t.kind == T_EOF)
			return f->eof;
		if (t.kind == T_PUNCT && t.bol && tok_is(&t, "#")) {
			directive(f, t.line);
			continue;
		}
		if (live(f))
			return tok_dup(f, &t);
	}
}

static bool hs_has(const struct hideset *hs, const struct macro *m)
{
	for (; hs; hs = hs->next)
		if (hs->m == m)
			return true;
	return false;
}

static struct hideset *hs_add(struct tpfile *f, struct hideset *hs,
			      const struct macro *m)
{
	struct hideset *n = arena_alloc(f->a, sizeof(*n));

	n->m = m;
	n->next = hs;
	return n;
}

static struct hideset *hs_union(struct tpfile *f, struct hideset *a,
				struct hideset *b)
{
	for (; a; a = a->next)
		if (!hs_has(b, a->m))
			b = hs_add(f, b, a->m);
	return b;
}

/* The arguments of a call whose '(' has been read, split at top-level
 * commas; for a variadic macro the last one takes the rest, commas and
 * all.  False, with the tokens read given back, if the file ends first.
 */
static bool read_args(struct tpfile *f, int variadic_at, struct vec *args)
{
	struct vec *cur = arena_alloc(f->a, sizeof(*cur)), seen = { 0 };
	int depth = 0, i;
	struct tok *t;

	memset(args, 0, sizeof(*args));
	vec_push(f->a, args, cur);
	for (;;) {
		t = next_tok(f);
		if (t->kind == T_EOF) {
			unget(f, t);
			for (i = seen.n - 1; i >= 0; i--)
				unget(f, tok_ptr(&seen, i));
			return false;
		}
		vec_push(f->a, &seen, t);
		if (depth == 0 && punct_is(t, ")"))
			return true;
		if (depth == 0 && punct_is(t, ",") &&
		    (variadic_at < 0 || args->n <= variadic_at)) {
			cur = arena_alloc(f->a, sizeof(*cur));
			vec_push(f->a, args, cur);
			continue;
		}
		if (punct_is(t, "("))
			depth++;
		else if (punct_is(t, ")"))
			depth--;
		vec_push(f->a, cur, t);
	}
}

static int param_index(const struct macro *m, const struct tok *t)
{
	int i;

	if (t->kind != T_IDENT)
		return -1;
	for (i = 0; i < m->nparams; i++)
		if (t->len == m->params[i]->len &&
		    !memcmp(t->s, m->params[i]->s, t->len))
			return i;
	return -1;
}

/* #param: the argument's spelling as a string literal. */
static struct tok *stringize(struct tpfile *f, struct vec *arg,
			     const struct tok *at)
{
	struct strbuf sb;
	struct tok *t = tok_dup(f, at);
	int i;
	unsigned int k;

	sb_init(&sb);
	sb_putc(&sb, '"');
	for (i = 0; i < arg->n; i++) {
		struct tok *a = tok_ptr(arg, i);

		if (i && a->space)
			sb_putc(&sb, ' ');
		for (k = 0; k < a->len; k++) {
			if (a->kind == T_STR && (a->s[k] == '"' ||
						 a->s[k] == '\\'))
				sb_putc(&sb, '\\');
			sb_putc(&sb, a->s[k]);
		}
	}
	sb_putc(&sb, '"');
	t->kind = T_STR;
	t->s = arena_strndup(f->a, sb.buf, sb.len);
	t->len = (unsigned int)sb.len;
	sb_free(&sb);
	return t;
}

/* a ## b: one token spelled as both; its kind from its first char. */
static struct tok *paste(struct tpfile *f, const struct tok *a,
			 const struct tok *b)
{
	struct tok *t = tok_dup(f, a);
	char *s = arena_alloc(f->a, a->len + b->len + 1);

	memcpy(s, a->s, a->len);
	memcpy(s + a->len, b->s, b->len);
	t->s = s;
	t->len = a->len + b->len;
	if (is_ident_start(*s))
		t->kind = T_IDENT;
	else if (*s >= '0' && *s <= '9')
		t->kind = T_NUM;
	t->hs = hs_union(f, (struct hideset *)a->hs, b->hs);
	return t;
}

/* What one body token stands for: the argument as written (next to
 * ## or #) or fully expanded, cached per parameter.
 */
struct subst {
	struct tpfile *f;
	const struct macro *m;
	struct vec *args;
	struct vec **expanded;
};

static struct vec *arg_expanded(struct subst *s, int i)
{
	if (!s->expanded[i]) {
		s->expanded[i] = arena_alloc(s->f->a, sizeof(struct vec));
		expand_list(s->f, vec_get(s->args, i), s->expanded[i]);
	}
	return s->expanded[i];
}

static void append_all(struct tpfile *f, struct vec *out, struct vec *in)
{
	int i;

	for (i = 0; i < in->n; i++)
		vec_push(f->a, out, tok_ptr(in, i));
}

/* Right operand of ##: paste its first token onto the last one out
 * (unless the left was an empty argument), and append the rest.  GNU's
 * ", ## __VA_ARGS__" drops the comma when the arguments are empty.
 */
static void paste_right(struct subst *s, struct vec *out, bool left_empty,
			struct tok *rt)
{
	struct tpfile *f = s->f;
	int pi = param_index(s->m, rt), i = 0;
	struct vec one = { 0 }, *r = &one;

	if (pi >= 0) {
		r = vec_get(s->args, pi);
	} else {
		vec_push(f->a, &one, rt);
	}
	if (pi >= 0 && pi == s->m->nparams - 1 && s->m->variadic &&
	    !left_empty && out->n && punct_is(vec_last(out), ",")) {
		if (!r->n)
			out->n--;
		else
			append_all(f, out, r);
		return;
	}
	if (!r->n)
		return;
	if (!left_empty && out->n) {
		out->items[out->n - 1] = paste(f, vec_last(out),
					       tok_ptr(r, 0));
		i = 1;
	}
	for (; i < r->n; i++)
		vec_push(f->a, out, tok_ptr(r, i));
}

/* The body of m with its arguments in place, per C99 6.10.3. */
static void substitute(struct subst *s, struct vec *out)
{
	const struct macro *m = s->m;
	bool left_empty = false;
	int i, pi;

	for (i = 0; i < m->nbody; i++) {
		struct tok *t = m->body[i];
		bool before_paste = i + 1 < m->nbody &&
				    punct_is(m->body[i + 1], "##");

		if (m->func && punct_is(t, "#") && i + 1 < m->nbody &&
		    (pi = param_index(m, m->body[i + 1])) >= 0) {
			vec_push(s->f->a, out,
				 stringize(s->f, vec_get(s->args, pi), t));
			i++;
		} else if (punct_is(t, "##") && i + 1 < m->nbody) {
			paste_right(s, out, left_empty, m->body[++i]);
			left_empty = false;
			continue;
		} else if ((pi = m->func ? param_index(m, t) : -1) >= 0) {
			struct vec *a = before_paste ? vec_get(s->args, pi) :
						       arg_expanded(s, pi);

			append_all(s->f, out, a);
			left_empty = !a->n;
			continue;
		} else {
			vec_push(s->f->a, out, t);
		}
		left_empty = false;
	}
}

/* Push the expansion of m back onto the input, each token a copy
 * carrying the macro in its hideset; the first takes the call's space.
 */
static void push_expansion(struct tpfile *f, const struct macro *m,
			   struct vec *args, const struct tok *call)
{
	struct subst s = { f, m, args, NULL };
	struct hideset *hs = hs_add(f, call->hs, m);
	struct vec out = { 0 };
	int i;

	if (m->nparams)
		s.expanded = arena_alloc(f->a, sizeof(struct vec *) *
					 (size_t)m->nparams);
	substitute(&s, &out);
	for (i = out.n - 1; i >= 0; i--) {
		struct tok *t = tok_dup(f, tok_ptr(&out, i));

		t->hs = hs_union(f, t->hs, hs);
		t->line = call->line;
		if (i == 0)
			t->space = call->space;
		unget(f, t);
	}
}

/* Arguments for m's parameters: a macro of no parameters takes one
 * empty argument, a variadic one may get none for the rest.
 */
static bool args_fit(const struct macro *m, struct vec *args)
{
	if (m->nparams == 0)
		return args->n == 1 && !((struct vec *)vec_get(args, 0))->n;
	if (args->n == m->nparams)
		return true;
	return m->variadic && args->n == m->nparams - 1;
}

/* The next token that is not a macro to expand. */
static struct tok *expand_next(struct tpfile *f)
{
	for (;;) {
		struct tok *t = next_tok(f), *lp;
		struct macro *m;
		struct vec args;

		if (t->kind != T_IDENT || !(m = find_macro(f, t)) ||
		    hs_has(t->hs, m) || f->expansions > MAX_EXPANSIONS)
			return t;
		if (++f->expansions > MAX_EXPANSIONS)
			warn(f, t->line, "too many macro expansions; "
			     "giving up expanding");
		if (!m->func) {
			push_expansion(f, m, NULL, t);
			continue;
		}
		lp = next_tok(f);
		if (!punct_is(lp, "(")) {
			unget(f, lp);
			return t;
		}
		if (!read_args(f, m->variadic ? m->nparams - 1 : -1, &args)) {
			warn(f, t->line, "unterminated call of %.*s",
			     (int)t->len, t->s);
			return t;
		}
		if (!args_fit(m, &args)) {
			warn(f, t->line, "%.*s takes %d arguments, not %d",
			     (int)t->len, t->s, m->nparams, args.n);
			continue;
		}
		if (m->variadic && args.n < m->nparams)
			vec_push(f->a, &args,
				 arena_alloc(f->a, sizeof(struct vec)));
		push_expansion(f, m, &args, t);
	}
}

/* Expand a list on its own, as an argument is before substitution: the
 * list is read through the pushback input, ended by a fresh EOF token
 * that nothing can read past.
 */
static void expand_list(struct tpfile *f, struct vec *in, struct vec *out)
{
	struct tok *saved = f->pending, *stop, *t;
	int i;

	if (f->depth >= MAX_DEPTH) {
		if (f->depth++ == MAX_DEPTH)
			warn(f, in->n ? tok_ptr(in, 0)->line : f->line,
			     "macro calls nested too deep");
		append_all(f, out, in);
		return;
	}
	f->depth++;
	stop = tok_dup(f, f->eof);
	f->pending = stop;
	for (i = in->n - 1; i >= 0; i--)
		unget(f, tok_dup(f, tok_ptr(in, i)));
	while ((t = expand_next(f)) != stop)
		vec_push(f->a, out, t);
	f->pending = saved;
	f->depth--;
}


/* ------------------------------------------------------------ events */

enum evkind { EV_SKIP, EV_CLASS, EV_EVENT, EV_RAW, EV_RAW_TP };

/* The event macros of linux/tracepoint.h and trace/trace_events.h, by
 * the position of the event's name, TP_PROTO and TP_ARGS among their
 * arguments.
 */
static const struct evmacro {
	const char *name;
	enum evkind kind;
	int name_at, proto_at, args_at;
} evmacros[] = {
	{ "TRACE_EVENT", EV_EVENT, 0, 1, 2 },
	{ "TRACE_EVENT_CONDITION", EV_EVENT, 0, 1, 2 },
	{ "TRACE_EVENT_FN", EV_EVENT, 0, 1, 2 },
	{ "TRACE_EVENT_FN_COND", EV_EVENT, 0, 1, 2 },
	{ "TRACE_EVENT_SYSCALL", EV_EVENT, 0, 1, 2 },
	{ "DEFINE_EVENT", EV_EVENT, 1, 2, 3 },
	{ "DEFINE_EVENT_FN", EV_EVENT, 1, 2, 3 },
	{ "DEFINE_EVENT_CONDITION", EV_EVENT, 1, 2, 3 },
	{ "DEFINE_EVENT_PRINT", EV_EVENT, 1, 2, 3 },
	{ "DEFINE_EVENT_WRITABLE", EV_EVENT, 1, 2, 3 },
	{ "DECLARE_EVENT_CLASS", EV_CLASS, 0, 1, 2 },
	{ "DECLARE_EVENT_SYSCALL_CLASS", EV_CLASS, 0, 1, 2 },
	/* since v6.16 DECLARE_TRACE pastes _tp on; see tp_suffix */
	{ "DECLARE_TRACE", EV_RAW_TP, 0, 1, 2 },
	{ "DECLARE_TRACE_CONDITION", EV_RAW_TP, 0, 1, 2 },
	{ "DECLARE_TRACE_WRITABLE", EV_RAW_TP, 0, 1, 2 },
	{ "DECLARE_TRACE_SYSCALL", EV_RAW_TP, 0, 1, 2 },
	{ "DECLARE_TRACE_EVENT", EV_RAW, 0, 1, 2 },
	{ "DECLARE_TRACE_EVENT_CONDITION", EV_RAW, 0, 1, 2 },
	{ "TRACE_EVENT_NOP", EV_SKIP, 0, 0, 0 },
	{ "DEFINE_EVENT_NOP", EV_SKIP, 0, 0, 0 },
	{ "DECLARE_EVENT_NOP", EV_SKIP, 0, 0, 0 },
	{ "DECLARE_EVENT_CLASS_NOP", EV_SKIP, 0, 0, 0 },
	{ "TRACE_EVENT_FLAGS", EV_SKIP, 0, 0, 0 },
	{ "TRACE_EVENT_PERF_PERM", EV_SKIP, 0, 0, 0 },
	{ "TRACE_DEFINE_ENUM", EV_SKIP, 0, 0, 0 },
	{ "TRACE_DEFINE_SIZEOF", EV_SKIP, 0, 0, 0 },
	{ "DECLARE_TRACEPOINT", EV_SKIP, 0, 0, 0 },
	{ "DEFINE_TRACE", EV_SKIP, 0, 0, 0 },
	{ "DEFINE_TRACE_FN", EV_SKIP, 0, 0, 0 },
	{ "EXPORT_TRACEPOINT_SYMBOL", EV_SKIP, 0, 0, 0 },
	{ "EXPORT_TRACEPOINT_SYMBOL_GPL", EV_SKIP, 0, 0, 0 },
};

static const struct evmacro *find_evmacro(const struct tok *t)
{
	size_t i;

	if (t->kind != T_IDENT || t->len < 11)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(evmacros); i++)
		if (tok_is(t, evmacros[i].name))
			return &evmacros[i];
	return NULL;
}

/* Looks like an event macro of a kind this file does not know. */
static bool event_like(const struct tok *t)
{
	unsigned int i;

	if (t->kind != T_IDENT || t->len < 6)
		return false;
	for (i = 0; i < t->len; i++)
		if (!(t->s[i] == '_' || (t->s[i] >= 'A' && t->s[i] <= 'Z') ||
		      (t->s[i] >= '0' && t->s[i] <= '9')))
			return false;
	return memmem(t->s, t->len, "EVENT", 5) ||
	       (t->len >= 13 && !memcmp(t->s, "DECLARE_TRACE", 13));
}

/* Strip the wrappers an argument list comes in: TP_PROTO(...),
 * TP_ARGS(...) and PARAMS(...), which the kernel defines as their
 * arguments.
 */
static void unwrap(struct vec *v)
{
	static const char *const wrappers[] = {
		"TP_PROTO", "TP_ARGS", "PARAMS"
	};
	struct tok *first, *last;
	size_t k;
	int depth, i;

again:
	if (v->n < 3)
		return;
	first = tok_ptr(v, 0);
	last = vec_last(v);
	if (first->kind != T_IDENT || !punct_is(tok_ptr(v, 1), "(") ||
	    !punct_is(last, ")"))
		return;
	for (k = 0; k < ARRAY_SIZE(wrappers); k++)
		if (tok_is(first, wrappers[k]))
			break;
	if (k == ARRAY_SIZE(wrappers))
		return;
	/* the '(' after the name must close at the very end */
	for (depth = 0, i = 1; i < v->n - 1; i++) {
		if (punct_is(tok_ptr(v, i), "("))
			depth++;
		else if (punct_is(tok_ptr(v, i), ")") && --depth == 0)
			return;
	}
	v->items += 2;
	v->n -= 3;
	v->cap = v->n;
	goto again;
}

/* Split at commas outside brackets: the ranges of the parts go to
 * from[] and to[], and the count, even past max, is returned.
 */
static int split_commas(struct vec *v, int *from, int *to, int max)
{
	int depth = 0, n = 0, start = 0, i;

	if (!v->n)
		return 0;
	for (i = 0; i <= v->n; i++) {
		struct tok *t = i < v->n ? tok_ptr(v, i) : NULL;

		if (t && (punct_is(t, "(") || punct_is(t, "[") ||
			  punct_is(t, "{")))
			depth++;
		else if (t && (punct_is(t, ")") || punct_is(t, "]") ||
			       punct_is(t, "}")))
			depth--;
		if (t && !(depth == 0 && punct_is(t, ",")))
			continue;
		if (n < max) {
			from[n] = start;
			to[n] = i;
		}
		n++;
		start = i + 1;
	}
	return n;
}

/* Tokens [from, to) as C text, a space wherever the source had one. */
static const char *join(struct arena *a, struct vec *v, int from, int to)
{
	struct strbuf sb;
	const char *s;
	int i;

	sb_init(&sb);
	for (i = from; i < to; i++) {
		struct tok *t = tok_ptr(v, i);

		if (i > from && t->space)
			sb_putc(&sb, ' ');
		sb_putn(&sb, t->s, t->len);
	}
	s = arena_strndup(a, sb.buf ? sb.buf : "", sb.len);
	sb_free(&sb);
	return s;
}

/* The value of TRACE_SYSTEM where the event is defined, spelled as
 * the kernel stringifies it ("intel-sst" is three tokens).
 */
static const char *current_system(struct tpfile *f, int line)
{
	static const struct tok sys = {
		NULL, "TRACE_SYSTEM", 12, T_IDENT, false, false, 0, NULL
	};
	struct vec in = { 0 }, out = { 0 };
	const char *s;

	vec_push(f->a, &in, (void *)&sys);
	expand_list(f, &in, &out);
	if (!out.n || tok_is(tok_ptr(&out, 0), "TRACE_SYSTEM")) {
		warn(f, line, "event outside any TRACE_SYSTEM");
		return NULL;
	}
	s = join(f->a, &out, 0, out.n);
	if (!f->sys_cache || strcmp(f->sys_cache, s))
		f->sys_cache = arena_strdup(f->ld->cat->arena, s);
	return f->sys_cache;
}

/* One argument list of an event macro, expanded and unwrapped. */
static void event_list(struct tpfile *f, struct vec *args, int at,
		       struct vec *out)
{
	memset(out, 0, sizeof(*out));
	expand_list(f, vec_get(args, at), out);
	unwrap(out);
}

/* TP_PROTO(void) with an empty TP_ARGS() is a tracepoint of none. */
static bool is_void(struct vec *proto)
{
	return proto->n == 1 && tok_is(tok_ptr(proto, 0), "void");
}

static bool fill_args(struct tpfile *f, struct ktp_event *ev,
		      struct vec *proto, struct vec *targs, int line)
{
	int pf[KTP_MAX_ARGS], pt[KTP_MAX_ARGS];
	int af[KTP_MAX_ARGS], at[KTP_MAX_ARGS];
	int np = is_void(proto) ? 0 : split_commas(proto, pf, pt,
						  KTP_MAX_ARGS);
	int na = split_commas(targs, af, at, KTP_MAX_ARGS), i;
	struct arena *a = f->ld->cat->arena;

	if (np != na) {
		warn(f, line, "%s: TP_PROTO has %d arguments, TP_ARGS %d",
		     ev->name, np, na);
		return false;
	}
	if (na > KTP_MAX_ARGS) {
		warn(f, line, "%s: %d arguments, more than %d", ev->name, na,
		     KTP_MAX_ARGS);
		return false;
	}
	ev->nargs = na;
	for (i = 0; i < na; i++) {
		ev->arg_decls[i] = join(a, proto, pf[i], pt[i]);
		ev->arg_names[i] = join(a, targs, af[i], at[i]);
	}
	return true;
}

/* An event's name is pasted onto trace_ and the like, so it need only
 * be made of identifier characters: 9p.h's 9p_client_req is a number.
 */
static bool is_name(struct vec *v)
{
	struct tok *t = v->n == 1 ? tok_ptr(v, 0) : NULL;
	unsigned int i;

	if (!t || (t->kind != T_IDENT && t->kind != T_NUM))
		return false;
	for (i = 0; i < t->len; i++)
		if (!is_ident_char(t->s[i]))
			return false;
	return true;
}

static void record(struct tpfile *f, const struct evmacro *em,
		   struct vec *args, int line)
{
	struct arena *a = f->ld->cat->arena;
	struct found *fd;
	struct vec *name = vec_get(args, em->name_at), proto, targs;
	const char *sys;

	if (!is_name(name)) {
		warn(f, line, "%s: the event's name is not an identifier",
		     em->name);
		return;
	}
	sys = current_system(f, line);
	if (!sys)
		return;
	fd = arena_alloc(a, sizeof(*fd));
	fd->ev.name = join(a, name, 0, 1);
	if (em->kind == EV_RAW_TP && f->ld->tp_suffix)
		fd->ev.name = arena_printf(a, "%s_tp", fd->ev.name);
	fd->ev.system = sys;
	fd->ev.header = f->rel;
	fd->ev.raw = em->kind == EV_RAW || em->kind == EV_RAW_TP;
	event_list(f, args, em->proto_at, &proto);
	event_list(f, args, em->args_at, &targs);
	if (!fill_args(f, &fd->ev, &proto, &targs, line))
		return;
	fd->seq = f->ld->found.n;
	vec_push(a, &f->ld->found, fd);
}

static void event_call(struct tpfile *f, const struct evmacro *em,
		       struct tok *t)
{
	struct tok *lp = next_tok(f);
	struct vec args;
	int need = em->args_at + 1;

	if (!punct_is(lp, "(")) {
		unget(f, lp);
		return;
	}
	if (!read_args(f, -1, &args)) {
		warn(f, t->line, "unterminated %s(", em->name);
		return;
	}
	if (em->kind != EV_EVENT && em->kind != EV_RAW &&
	    em->kind != EV_RAW_TP)
		return;
	if (args.n < need) {
		warn(f, t->line, "%s with %d arguments", em->name, args.n);
		return;
	}
	record(f, em, &args, t->line);
}

/* The top level of a header: every token after expansion, looking for
 * the event macros.
 */
static void scan_events(struct tpfile *f)
{
	for (;;) {
		struct tok *t = expand_next(f), *lp;
		const struct evmacro *em;

		if (t->kind == T_EOF)
			return;
		if (t->kind != T_IDENT)
			continue;
		em = find_evmacro(t);
		if (em) {
			event_call(f, em, t);
		} else if (event_like(t)) {
			lp = next_tok(f);
			if (punct_is(lp, "("))
				warn(f, t->line, "%.*s( is not understood",
				     (int)t->len, t->s);
			unget(f, lp);
		}
	}
}

static void read_header(struct loader *ld, const char *dir, const char *rel)
{
	struct tpfile f;
	char *path, *text;
	size_t len;

	path = arena_printf(ld->cat->arena, "%s/%s", dir, rel);
	text = read_file(path, &len);
	if (!text) {
		vec_push(ld->cat->arena, &ld->cat->warnings,
			 arena_printf(ld->cat->arena, "%s: %s", path,
				      strerror(errno)));
		return;
	}
	if (!memmem(text, len, "TRACE_SYSTEM", 12)) {
		free(text);	/* a helper, not an event header */
		return;
	}
	memset(&f, 0, sizeof(f));
	f.ld = ld;
	f.a = arena_new();
	f.macros.arena = f.owned.arena = f.a;
	f.rel = rel;
	len = splice_lines(text, len);
	f.p = text;
	f.end = text + len;
	f.line = 1;
	f.bol = true;
	f.eof = arena_alloc(f.a, sizeof(*f.eof));
	f.eof->kind = T_EOF;
	f.eof->s = "";
	scan_owned(&f);
	scan_events(&f);
	if (f.ncond || f.overflow)
		warn(&f, f.line, "#if without #endif");
	arena_free(f.a);
	free(text);
}


/* ----------------------------------------------------- the header tree */

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool has_events(struct arena *a, const char *tree)
{
	return is_dir(arena_printf(a, "%s/include/trace/events", tree));
}

/* The source tree named by a build tree's Makefile: Debian's is one
 * line, "include /usr/src/linux-headers-KVER-common/Makefile", and an
 * O= build's says the same or "-C DIR".
 */
static const char *tree_from_makefile(struct arena *a, const char *build)
{
	char *text = read_file(arena_printf(a, "%s/Makefile", build), NULL);
	const char *line, *s, *e, *found = NULL;

	for (line = text; line && *line && !found; line = strchr(line, '\n')) {
		line += *line == '\n';
		while (*line == ' ' || *line == '\t')
			line++;
		if (!strncmp(line, "include ", 8))
			s = line + 8;
		else if ((s = strstr(line, "-C ")) &&
			 s < (e = strchrnul(line, '\n')))
			s += 3;
		else
			continue;
		while (*s == ' ' || *s == '\t')
			s++;
		for (e = s; *e && *e != '\n' && *e != ' ' && *e != '\t'; e++)
			;
		if (e - s > 9 && !strncmp(e - 9, "/Makefile", 9))
			e -= 9;
		if (e > s && *s == '/')
			found = arena_strndup(a, s, (size_t)(e - s));
	}
	free(text);
	return found && has_events(a, found) ? found : NULL;
}

/* Where include/trace/events is: the build tree itself for a full
 * tree, else its "source" link (kbuild's O= builds), the "source" link
 * next to it in /lib/modules, or the tree its Makefile includes.
 */
static const char *find_source(struct arena *a, const char *build,
			       const char *source_hint)
{
	const char *s;

	if (has_events(a, build))
		return build;
	s = arena_printf(a, "%s/source", build);
	if (has_events(a, s))
		return s;
	if (source_hint && has_events(a, source_hint))
		return source_hint;
	return tree_from_makefile(a, build);
}

/* The architecture the tree was configured for: the arch/ directory
 * with generated headers (a headers package ships only that one).
 */
static void find_arches(struct arena *a, const char *build, struct vec *out)
{
	const char *adir = arena_printf(a, "%s/arch", build);
	DIR *d = opendir(adir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (is_dir(arena_printf(a, "%s/%s/include/generated", adir,
					de->d_name)))
			vec_push(a, out, arena_strdup(a, de->d_name));
	}
	if (d)
		closedir(d);
}

/* Every .h file directly in tree/sub, read in name order so that which
 * of two duplicate definitions wins does not depend on readdir.
 */
static void read_dir(struct loader *ld, const char *tree, const char *sub)
{
	struct arena *a = ld->cat->arena;
	DIR *d = opendir(arena_printf(a, "%s/%s", tree, sub));
	struct vec names = { 0 };
	struct dirent *de;
	int i;

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (n > 2 && !strcmp(de->d_name + n - 2, ".h"))
			vec_push(a, &names, arena_strdup(a, de->d_name));
	}
	closedir(d);
	if (names.n)
		qsort(names.items, (size_t)names.n, sizeof(void *), cmp_strp);
	for (i = 0; i < names.n; i++)
		read_header(ld, tree, arena_printf(a, "%s/%s", sub,
						   (char *)vec_get(&names, i)));
}

/* From v6.16, DECLARE_TRACE(name) makes the tracepoint name_tp and the
 * old meaning is DECLARE_TRACE_EVENT.
 */
static bool declare_trace_adds_tp(struct arena *a, const char *tree)
{
	char *text = read_file(arena_printf(a, "%s/include/linux/tracepoint.h",
					    tree), NULL);
	bool yes = text && strstr(text, "name##_tp");

	free(text);
	return yes;
}

/* The directories that hold event headers in a headers package: the
 * generic ones, and the architecture's (asm/trace/, and asm/ itself for
 * msr-trace.h).  Files without TRACE_SYSTEM are skipped unparsed.
 */
static void read_tree(struct loader *ld, const char *tree, const char *build)
{
	struct arena *a = ld->cat->arena;
	struct vec arches = { 0 };
	int i;

	read_dir(ld, tree, "include/trace/events");
	read_dir(ld, tree, "include/ras");
	find_arches(a, build, &arches);
	if (!arches.n && strcmp(tree, build))
		find_arches(a, tree, &arches);
	for (i = 0; i < arches.n; i++) {
		const char *arch = vec_get(&arches, i);

		read_dir(ld, tree, arena_printf(a, "arch/%s/include/asm/trace",
						arch));
		read_dir(ld, tree, arena_printf(a, "arch/%s/include/asm",
						arch));
	}
}


/* --------------------------------------------------------- the catalog */

static int cmp_found_name(const void *pa, const void *pb)
{
	const struct found *a = *(const struct found *const *)pa;
	const struct found *b = *(const struct found *const *)pb;
	int c = strcmp(a->ev.name, b->ev.name);

	return c ? c : a->seq - b->seq;
}

static int cmp_sys_name(const void *pa, const void *pb)
{
	const struct ktp_event *a = *(const struct ktp_event *const *)pa;
	const struct ktp_event *b = *(const struct ktp_event *const *)pb;
	int c = strcmp(a->system, b->system);

	return c ? c : strcmp(a->name, b->name);
}

/* One event per name, the first met.  The kernel links a tracepoint as
 * __tracepoint_NAME, so one kernel cannot have two of a name: two
 * definitions in the headers are alternatives for different
 * configurations or architectures (most are told apart by the .config
 * already; the rest sit under conditions on macros of headers we do not
 * read).  Which one this kernel has, BTF's btf_trace_NAME says; the
 * names and TP_PROTO text kept here are only a fallback for its types.
 */
static void finish(struct loader *ld)
{
	struct ktp_catalog *c = ld->cat;
	struct found **f = (struct found **)ld->found.items;
	int i, n = 0;

	if (ld->found.n)
		qsort(f, (size_t)ld->found.n, sizeof(*f), cmp_found_name);
	c->by_name = arena_alloc(c->arena, sizeof(*c->by_name) *
				 (size_t)(ld->found.n + 1));
	for (i = 0; i < ld->found.n; i++)
		if (!n || strcmp(c->by_name[n - 1]->name, f[i]->ev.name))
			c->by_name[n++] = &f[i]->ev;
	c->nevents = n;
	c->events = arena_alloc(c->arena, sizeof(*c->events) *
				(size_t)(n + 1));
	memcpy(c->events, c->by_name, sizeof(*c->events) * (size_t)n);
	qsort(c->events, (size_t)n, sizeof(*c->events), cmp_sys_name);
}

static struct ktp_catalog *load(const char *build, const char *source_hint,
				char **err)
{
	struct ktp_catalog *c = xmalloc(sizeof(*c));
	struct loader ld;
	const char *tree;

	memset(c, 0, sizeof(*c));
	c->arena = arena_new();
	tree = find_source(c->arena, build, source_hint);
	if (!tree) {
		err_set(err, "%s: no include/trace/events in the build tree "
			"or the source tree it names", build);
		ktp_free(c);
		return NULL;
	}
	c->source_dir = tree = arena_strdup(c->arena, tree);
	memset(&ld, 0, sizeof(ld));
	ld.cat = c;
	ld.kconfig = kconfig_load(c->arena,
				  arena_printf(c->arena, "%s/.config", build));
	ld.tp_suffix = declare_trace_adds_tp(c->arena, tree);
	read_tree(&ld, tree, build);
	finish(&ld);
	if (!c->nevents) {
		err_set(err, "%s: no tracepoints found in its headers", tree);
		ktp_free(c);
		return NULL;
	}
	return c;
}

struct ktp_catalog *ktp_load_tree(const char *build_dir, char **err)
{
	return load(build_dir, NULL, err);
}

struct ktp_catalog *ktp_load(const char *kver, char **err)
{
	struct ktp_catalog *c;
	char *build, *source;

	if (!kver || !*kver || strchr(kver, '/')) {
		err_set(err, "bad kernel release '%s'", kver ? kver : "");
		return NULL;
	}
	if (asprintf(&build, "/lib/modules/%s/build", kver) < 0)
		return NULL;
	if (asprintf(&source, "/lib/modules/%s/source", kver) < 0) {
		free(build);
		return NULL;
	}
	if (!is_dir(build)) {
		err_set(err, "%s: %s (are the kernel headers installed?)",
			build, strerror(errno));
		c = NULL;
	} else {
		c = load(build, source, err);
	}
	free(build);
	free(source);
	return c;
}

void ktp_free(struct ktp_catalog *c)
{
	if (!c)
		return;
	arena_free(c->arena);
	free(c);
}

const struct ktp_event *ktp_find(const struct ktp_catalog *c,
				 const char *system, const char *name)
{
	int lo = 0, hi = c->nevents;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		int cmp = strcmp(name, c->by_name[mid]->name);

		if (!cmp) {
			const struct ktp_event *ev = c->by_name[mid];

			return !system || !strcmp(system, ev->system) ? ev :
									NULL;
		}
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

int ktp_each(const struct ktp_catalog *c, const char *system_glob,
	     const char *name_glob,
	     void (*cb)(const struct ktp_event *ev, void *arg), void *arg)
{
	int i, n = 0;

	for (i = 0; i < c->nevents; i++) {
		const struct ktp_event *ev = c->events[i];

		if (system_glob && !glob_match(system_glob, ev->system))
			continue;
		if (name_glob && !glob_match(name_glob, ev->name))
			continue;
		n++;
		if (cb)
			cb(ev, arg);
	}
	return n;
}

int ktp_count(const struct ktp_catalog *c)
{
	return c->nevents;
}

const char *ktp_source_dir(const struct ktp_catalog *c)
{
	return c->source_dir;
}

const char *const *ktp_warnings(const struct ktp_catalog *c, int *n)
{
	*n = c->warnings.n;
	return (const char *const *)c->warnings.items;
}
