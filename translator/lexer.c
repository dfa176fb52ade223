/* lexer.c - raw tokenisation and the preprocessor between it and the
 * parser: command-line arguments ($N, @N, $#, @#), @define macros and
 * %( cond %? then %: else %) conditionals evaluated for the target.
 */
#define _GNU_SOURCE
#include "lexer.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EXPANSION_DEPTH 64
/* A macro can expand to several copies of itself: bound the total too. */
#define MAX_EXPANDED_TOKENS 1000000
#define LOOKAHEAD 8
/* The established tool's version that scripts test with systemtap_v. */
#define SYSTEMTAP_COMPAT_VERSION "5.1"

/* ------------------------------------------------------------------ */
/* Raw lexing                                                         */

struct raw {
	struct session *s;
	struct srcfile *src;
	const char *p;
	int line;
	const char *line_start;
	bool saw_space;
	bool dead;			/* a fatal lexical error was seen */
};

static const char *const multi_ops[] = {
	"<<<", "<<=", ">>=",
	"==", "!=", "<=", ">=", "=~", "!~", "+=", "-=", "*=", "/=", "%=",
	"&=", "^=", "|=", ".=", "&&", "||", "++", "--", "->", "<<", ">>",
	"%(", "%?", "%:", "%)",
};

static const char *const keywords[] = {
	"probe", "global", "private", "function", "if", "else", "for",
	"foreach", "in", "limit", "return", "delete", "while", "break",
	"continue", "next", "string", "long", "try", "catch",
};

bool is_keyword(const char *interned)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keywords); i++)
		if (strcmp(interned, keywords[i]) == 0)
			return true;
	return false;
}

static void raw_init(struct raw *r, struct session *s, struct srcfile *src)
{
	r->s = s;
	r->src = src;
	r->p = src->text;
	r->line = 1;
	r->line_start = src->text;
	r->saw_space = true;
	r->dead = false;
}

static struct loc raw_loc(const struct raw *r, const char *at)
{
	struct loc l = { r->src, r->line, (int)(at - r->line_start) + 1 };

	return l;
}

static void raw_newline(struct raw *r, const char *after)
{
	r->line++;
	r->line_start = after;
}

/* Skip whitespace and comments; '#' comments stop before "$#"/"@#",
 * which the caller sees as tokens because they start with '$' or '@'.
 */
static void raw_skip(struct raw *r)
{
	for (;;) {
		const char *p = r->p;

		if (*p == '\n') {
			raw_newline(r, p + 1);
			r->p = p + 1;
		} else if (isspace((unsigned char)*p)) {
			r->p = p + 1;
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			while (*p && *p != '\n')
				p++;
			r->p = p;
		} else if (p[0] == '/' && p[1] == '*') {
			struct loc start = raw_loc(r, p);

			p += 2;
			while (*p && !(p[0] == '*' && p[1] == '/')) {
				if (*p == '\n')
					raw_newline(r, p + 1);
				p++;
			}
			if (!*p) {
				diag_error(r->s, start, "unterminated comment");
				r->p = p;
				return;
			}
			r->p = p + 2;
		} else {
			return;
		}
		r->saw_space = true;
	}
}

static bool is_ident_start(int c)
{
	return isalpha(c) || c == '_' || c == '$' || c == '@';
}

static bool is_ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '$';
}

static void lex_number(struct raw *r, struct token *t, const char *start)
{
	const char *p = start;
	char *end;
	char buf[128];
	size_t n;
	unsigned long long v;

	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	n = (size_t)(p - start);
	t->text = intern_n(start, n);
	r->p = p;
	if (n >= sizeof(buf)) {
		diag_error(r->s, t->loc, "number '%s' is out of range",
			   t->text);
		t->num_overflow = true;
		return;
	}
	memcpy(buf, start, n);
	buf[n] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (*end) {
		diag_error(r->s, t->loc, "malformed number '%s'", buf);
		return;
	}
	if (errno == ERANGE) {
		diag_error(r->s, t->loc, "number '%s' is out of range", buf);
		t->num_overflow = true;
		return;
	}
	t->num = (int64_t)v;
}

/* Strings keep their C escapes; an unknown "\c" becomes "c". */
static void lex_string(struct raw *r, struct token *t, const char *start)
{
	struct strbuf sb;
	const char *p = start + 1;

	sb_init(&sb);
	sb_putn(&sb, "", 0);
	for (;;) {
		if (!*p || *p == '\n') {
			diag_error(r->s, t->loc, "unterminated string literal");
			r->dead = true;
			break;
		}
		if (*p == '"') {
			p++;
			break;
		}
		if (*p == '\\') {
			char c = p[1];

			if (!c || c == '\n') {
				diag_error(r->s, t->loc,
					   "unterminated string literal");
				r->dead = true;
				p++;
				break;
			}
			if (strchr("abfnrtv\\\"x01234567", c))
				sb_putc(&sb, '\\');
			sb_putc(&sb, c);
			p += 2;
			continue;
		}
		sb_putc(&sb, *p++);
	}
	r->p = p;
	t->text = intern(sb.buf);
	sb_free(&sb);
}

static void lex_embedded(struct raw *r, struct token *t, const char *start)
{
	const char *p = start + 2;
	const char *body = p;

	while (*p && !(p[0] == '%' && p[1] == '}')) {
		if (*p == '\n')
			raw_newline(r, p + 1);
		p++;
	}
	if (!*p) {
		diag_error(r->s, t->loc, "unterminated embedded C block "
			   "(missing '%%}')");
		r->dead = true;
		t->text = intern_n(body, (size_t)(p - body));
		r->p = p;
		return;
	}
	t->text = intern_n(body, (size_t)(p - body));
	r->p = p + 2;
}

/* Produce the next raw token into *t. */
static void raw_next(struct raw *r, struct token *t)
{
	const char *p;
	size_t i;

	r->saw_space = false;
	raw_skip(r);
	p = r->p;
	memset(t, 0, sizeof(*t));
	t->loc = raw_loc(r, p);
	t->adjacent = !r->saw_space;
	if (!*p || r->dead) {
		t->kind = TK_EOF;
		t->text = intern("<end of file>");
		return;
	}
	if ((p[0] == '$' || p[0] == '@') && p[1] == '#') {
		t->kind = TK_IDENT;
		t->text = intern_n(p, 2);
		r->p = p + 2;
		return;
	}
	if (is_ident_start((unsigned char)*p)) {
		const char *q = p + 1;

		while (is_ident_char((unsigned char)*q))
			q++;
		t->kind = TK_IDENT;
		t->text = intern_n(p, (size_t)(q - p));
		r->p = q;
		return;
	}
	if (isdigit((unsigned char)*p)) {
		t->kind = TK_NUMBER;
		lex_number(r, t, p);
		return;
	}
	if (*p == '"') {
		t->kind = TK_STRING;
		lex_string(r, t, p);
		return;
	}
	if (p[0] == '%' && p[1] == '{') {
		t->kind = TK_EMBEDDED;
		lex_embedded(r, t, p);
		return;
	}
	t->kind = TK_OP;
	for (i = 0; i < ARRAY_SIZE(multi_ops); i++) {
		size_t n = strlen(multi_ops[i]);

		if (strncmp(p, multi_ops[i], n) == 0) {
			t->text = intern(multi_ops[i]);
			r->p = p + n;
			return;
		}
	}
	if (strchr("{}()[];,.:?+-*/%&|^!~<>=", *p)) {
		t->text = intern_n(p, 1);
		r->p = p + 1;
		return;
	}
	if (isprint((unsigned char)*p))
		diag_error(r->s, t->loc, "unexpected character '%c'", *p);
	else
		diag_error(r->s, t->loc, "unexpected character 0x%02x",
			   (unsigned char)*p);
	r->p = p + 1;
	raw_next(r, t);
}

void lex_raw_scan(struct session *s, struct srcfile *src, lex_raw_fn fn,
		  void *arg)
{
	struct raw r;
	struct token t;

	raw_init(&r, s, src);
	do {
		raw_next(&r, &t);
		if (!fn(&t, arg))
			return;
	} while (t.kind != TK_EOF);
}

/* ------------------------------------------------------------------ */
/* The preprocessor                                                   */

/* A stream of tokens: either a file lexed on the fly or a buffer (macro
 * expansion, pasted argument).
 */
struct input {
	struct input *up;
	struct raw *raw;		/* file input when non-NULL */
	const struct token **toks;	/* buffer input */
	int n, pos;
	int depth;			/* expansion depth */
};

/* One open conditional whose taken branch is being read. */
struct cond_frame {
	struct cond_frame *up;
	bool in_else;
	struct loc loc;
};

struct lexer {
	struct session *s;
	struct srcfile *src;
	bool tapset;
	struct raw raw;
	struct input *in;
	struct cond_frame *conds;
	struct vec macros;		/* this file's macros */
	const struct token *look[LOOKAHEAD];
	int nlook;
	const struct token *pending;	/* after string joining */
	const struct token *eof;
	const struct token *last;	/* last token of expanded_next */
	long expanded;			/* tokens made by macros so far */
};

static const struct token *tok_copy(struct lexer *lx, const struct token *t)
{
	struct token *c = arena_alloc(lx->s->arena, sizeof(*c));

	*c = *t;
	return c;
}

/* Next token from the input stack, popping finished buffers. */
static const struct token *input_next(struct lexer *lx, int *depth)
{
	for (;;) {
		struct input *in = lx->in;
		struct token t;

		if (in->raw) {
			raw_next(in->raw, &t);
			*depth = 0;
			return tok_copy(lx, &t);
		}
		if (in->pos < in->n) {
			*depth = in->depth;
			return in->toks[in->pos++];
		}
		lx->in = in->up;
	}
}

static void push_tokens(struct lexer *lx, struct vec *toks, int depth)
{
	struct input *in = arena_alloc(lx->s->arena, sizeof(*in));

	in->toks = (const struct token **)toks->items;
	in->n = toks->n;
	in->depth = depth;
	in->up = lx->in;
	lx->in = in;
}

/* End the input here: drop pending expansions, the file reads as EOF. */
static void lex_kill(struct lexer *lx)
{
	lx->raw.dead = true;
	while (lx->in->up)
		lx->in = lx->in->up;
}

static struct macro *find_macro(struct lexer *lx, const char *name)
{
	int i;

	for (i = lx->macros.n - 1; i >= 0; i--) {
		struct macro *m = lx->macros.items[i];

		if (m->name == name)
			return m;
	}
	for (i = lx->s->lib_macros.n - 1; i >= 0; i--) {
		struct macro *m = lx->s->lib_macros.items[i];

		if (m->name == name)
			return m;
	}
	return NULL;
}

static bool is_at_operator(const char *name)
{
	static const char *const ops[] = {
		"@cast", "@var", "@defined", "@entry", "@perf", "@const",
		"@count", "@sum", "@min", "@max", "@avg", "@variance",
		"@hist_linear", "@hist_log", "@define",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (name == intern(ops[i]))
			return true;
	return false;
}

/* After a bad definition: drop what is left of it, through the end of
 * its body, so one mistake gives one error.
 */
static void skip_macro_body(struct lexer *lx)
{
	int depth, level = 0;
	const struct token *t;

	do {
		t = input_next(lx, &depth);
	} while (t->kind != TK_EOF && !tok_is(t, "%("));
	while (t->kind != TK_EOF) {
		t = input_next(lx, &depth);
		if (tok_is(t, "%("))
			level++;
		else if (tok_is(t, "%)") && level-- == 0)
			return;
	}
}

/* @define NAME[(p1, p2, ...)] %( body %)
 * Only allowed at file level, not inside an expansion.
 */
static void define_macro(struct lexer *lx, const struct token *def)
{
	struct session *s = lx->s;
	struct macro *m = arena_alloc(s->arena, sizeof(*m));
	const struct token *t;
	int depth, level = 0, i;

	t = input_next(lx, &depth);
	if (t->kind != TK_IDENT || t->text[0] == '@' || t->text[0] == '$') {
		diag_error(s, t->loc, "expected a macro name after @define");
		skip_macro_body(lx);
		return;
	}
	m->name = intern(arena_printf(s->arena, "@%s", t->text));
	m->loc = def->loc;
	m->file = lx->src;
	if (m->name == intern("@define")) {
		diag_error(s, t->loc, "'@define' cannot be redefined");
		skip_macro_body(lx);
		return;
	}
	/* as in SystemTap: allowed, and the macro wins where it is seen */
	if (is_at_operator(m->name))
		diag_warn(s, t->loc, "macro '%s' hides the built-in operator "
			  "of that name", m->name);
	for (i = 0; i < lx->macros.n; i++)
		if (((struct macro *)lx->macros.items[i])->name == m->name) {
			diag_error(s, t->loc, "attempt to redefine macro "
				   "'%s' in the same file", m->name);
			skip_macro_body(lx);
			return;
		}
	t = input_next(lx, &depth);
	if (tok_is(t, "(") && t->adjacent) {
		for (;;) {
			t = input_next(lx, &depth);
			if (t->kind != TK_IDENT || t->text[0] == '@' ||
			    t->text[0] == '$') {
				diag_error(s, t->loc,
					   "expected a macro parameter name");
				skip_macro_body(lx);
				return;
			}
			vec_push(s->arena, &m->params,
				 (void *)intern(arena_printf(s->arena, "@%s",
							     t->text)));
			t = input_next(lx, &depth);
			if (tok_is(t, ")"))
				break;
			if (!tok_is(t, ",")) {
				diag_error(s, t->loc, "expected ',' or ')' in "
					   "macro parameter list");
				skip_macro_body(lx);
				return;
			}
		}
		t = input_next(lx, &depth);
	}
	if (!tok_is(t, "%(")) {
		diag_error(s, t->loc, "expected '%%(' to start the body of "
			   "macro '%s'", m->name);
		return;
	}
	for (;;) {
		t = input_next(lx, &depth);
		if (t->kind == TK_EOF) {
			diag_error(s, def->loc, "unterminated body of macro "
				   "'%s'", m->name);
			return;
		}
		if (tok_is(t, "%("))
			level++;
		if (tok_is(t, "%)") && level-- == 0)
			break;
		vec_push(s->arena, &m->body, (void *)t);
	}
	vec_push(s->arena, &lx->macros, m);
}

/* Read the arguments of a macro call: '(' arg {',' arg} ')', where
 * commas inside brackets do not separate.
 */
static bool macro_args(struct lexer *lx, const struct macro *m,
		       const struct token *use, struct vec *args)
{
	struct session *s = lx->s;
	const struct token *t;
	struct vec *cur;
	int depth, nest = 0;

	t = input_next(lx, &depth);
	if (!tok_is(t, "(")) {
		diag_error(s, use->loc, "macro '%s' takes %d argument%s",
			   m->name, m->params.n, m->params.n == 1 ? "" : "s");
		return false;
	}
	cur = arena_alloc(s->arena, sizeof(*cur));
	vec_push(s->arena, args, cur);
	for (;;) {
		t = input_next(lx, &depth);
		if (t->kind == TK_EOF) {
			diag_error(s, use->loc, "unterminated arguments of "
				   "macro '%s'", m->name);
			return false;
		}
		if (nest == 0 && tok_is(t, ")"))
			break;
		if (nest == 0 && tok_is(t, ",")) {
			cur = arena_alloc(s->arena, sizeof(*cur));
			vec_push(s->arena, args, cur);
			continue;
		}
		if (tok_is(t, "(") || tok_is(t, "[") || tok_is(t, "{"))
			nest++;
		else if (tok_is(t, ")") || tok_is(t, "]") || tok_is(t, "}"))
			nest--;
		vec_push(s->arena, cur, (void *)t);
	}
	if (args->n == 1 && ((struct vec *)args->items[0])->n == 0 &&
	    m->params.n == 0)
		args->n = 0;
	if (args->n != m->params.n) {
		diag_error(s, use->loc, "macro '%s' takes %d argument%s, "
			   "%d given", m->name, m->params.n,
			   m->params.n == 1 ? "" : "s", args->n);
		return false;
	}
	return true;
}

static void expand_macro(struct lexer *lx, const struct macro *m,
			 const struct token *use, int depth)
{
	struct session *s = lx->s;
	struct vec args = { 0 }, out = { 0 };
	int i, j, k;

	if (depth >= MAX_EXPANSION_DEPTH) {
		diag_error(s, use->loc, "macro '%s' expands too deeply "
			   "(recursive definition?)", m->name);
		return;
	}
	if (m->params.n && !macro_args(lx, m, use, &args))
		return;
	lx->expanded += m->body.n;
	if (lx->expanded > MAX_EXPANDED_TOKENS) {
		diag_error(s, use->loc, "macro expansion makes more than %d "
			   "tokens (recursive definition?)",
			   MAX_EXPANDED_TOKENS);
		lex_kill(lx);
		return;
	}
	for (i = 0; i < m->body.n; i++) {
		const struct token *t = m->body.items[i];
		struct token *c;

		for (j = 0; j < m->params.n; j++)
			if (t->kind == TK_IDENT && t->text == m->params.items[j])
				break;
		if (j < m->params.n) {
			struct vec *a = args.items[j];

			for (k = 0; k < a->n; k++)
				vec_push(s->arena, &out, a->items[k]);
			continue;
		}
		c = arena_alloc(s->arena, sizeof(*c));
		*c = *t;
		c->expanded_from = use;
		vec_push(s->arena, &out, c);
	}
	push_tokens(lx, &out, depth + 1);
}

static const char *script_arg(struct lexer *lx, int n)
{
	return lx->s->opt.args.items[n - 1];
}

/* $N pastes the argument's text as tokens; @N makes it a string. */
static bool expand_arg(struct lexer *lx, const struct token *t, int depth)
{
	struct session *s = lx->s;
	const char *name = t->text;
	const char *p = name + 1;
	char *end;
	long n;
	int nargs = s->opt.args.n;
	struct token *c;

	if (strcmp(p, "#") == 0) {
		c = arena_alloc(s->arena, sizeof(*c));
		*c = *t;
		if (name[0] == '$') {
			c->kind = TK_NUMBER;
			c->num = nargs;
			c->text = intern(arena_printf(s->arena, "%d", nargs));
		} else {
			c->kind = TK_STRING;
			c->text = intern(arena_printf(s->arena, "%d", nargs));
		}
		{
			struct vec v = { 0 };

			vec_push(s->arena, &v, c);
			push_tokens(lx, &v, depth);
		}
		return true;
	}
	if (!isdigit((unsigned char)*p))
		return false;
	n = strtol(p, &end, 10);
	if (name[0] == '@' && *end)
		return false;
	if (n < 1 || n > nargs) {
		if (nargs)
			diag_error(s, t->loc, "command line argument index "
				   "%ld out of range [1-%d]", n, nargs);
		else
			diag_error(s, t->loc, "command line argument index "
				   "%ld out of range: no arguments given", n);
		/* a 0 in its place keeps the parser from cascading */
		c = arena_alloc(s->arena, sizeof(*c));
		*c = *t;
		c->kind = name[0] == '$' ? TK_NUMBER : TK_STRING;
		c->text = intern(name[0] == '$' ? "0" : "");
		{
			struct vec v = { 0 };

			vec_push(s->arena, &v, c);
			push_tokens(lx, &v, depth);
		}
		return true;
	}
	if (n <= STAP_MAX_ARGS)
		s->arg_used[n - 1] = true;
	if (name[0] == '@') {
		struct strbuf sb;
		const char *q;
		struct vec v = { 0 };

		sb_init(&sb);
		sb_putn(&sb, "", 0);
		for (q = script_arg(lx, (int)n); *q; q++) {
			if (*q == '"' || *q == '\\')
				sb_putc(&sb, '\\');
			if (*q == '\n') {
				sb_puts(&sb, "\\n");
				continue;
			}
			sb_putc(&sb, *q);
		}
		c = arena_alloc(s->arena, sizeof(*c));
		*c = *t;
		c->kind = TK_STRING;
		c->text = intern(sb.buf);
		sb_free(&sb);
		vec_push(s->arena, &v, c);
		push_tokens(lx, &v, depth);
		return true;
	}
	{
		/* Paste: the argument text followed by the rest of the
		 * identifier, lexed as its own little source.
		 */
		const char *text = arena_printf(s->arena, "%s%s",
						script_arg(lx, (int)n), end);
		struct srcfile *src = srcfile_new(s->arena,
			arena_printf(s->arena, "<argument %ld>", n), text,
			strlen(text));
		struct raw r;
		struct vec v = { 0 };
		struct token tmp;
		bool first = true;

		src->is_tapset = lx->tapset;
		raw_init(&r, s, src);
		for (;;) {
			raw_next(&r, &tmp);
			if (tmp.kind == TK_EOF)
				break;
			tmp.expanded_from = t;
			if (first)
				tmp.adjacent = t->adjacent;
			first = false;
			vec_push(s->arena, &v, (void *)tok_copy(lx, &tmp));
		}
		push_tokens(lx, &v, depth);
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* Conditionals                                                       */

/* Next token with macros and arguments expanded (but conditionals not
 * interpreted): what conditions and branches are made of.
 */
static const struct token *expanded_next(struct lexer *lx);

static int vercmp(const char *a, const char *b)
{
	return strverscmp(a, b);
}

static bool cmp_result(int c, const char *op)
{
	if (op == intern("=="))
		return c == 0;
	if (op == intern("!="))
		return c != 0;
	if (op == intern("<"))
		return c < 0;
	if (op == intern("<="))
		return c <= 0;
	if (op == intern(">"))
		return c > 0;
	return c >= 0;
}

static bool is_cmp_op(const struct token *t)
{
	static const char *const ops[] = { "==", "!=", "<", "<=", ">",
					   ">=" };
	size_t i;

	if (t->kind != TK_OP)
		return false;
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (t->text == intern(ops[i]))
			return true;
	return false;
}

/* Compare a version-like value: wildcards allowed with == and !=. */
static bool version_test(const char *val, const char *op, const char *rhs)
{
	if ((op == intern("==") || op == intern("!=")) && has_wildcard(rhs)) {
		bool m = fnmatch(rhs, val, 0) == 0;

		return op == intern("==") ? m : !m;
	}
	return cmp_result(vercmp(val, rhs), op);
}

static bool glob_test(struct lexer *lx, const struct token *optok,
		      const char *val, const char *rhs)
{
	bool m = fnmatch(rhs, val, 0) == 0;

	if (optok->text == intern("=="))
		return m;
	if (optok->text == intern("!="))
		return !m;
	diag_error(lx->s, optok->loc, "only == and != can compare this "
		   "value");
	return false;
}

static const char *privilege_name(enum privilege p)
{
	switch (p) {
	case PRIV_STAPUSR:
		return "stapusr";
	case PRIV_STAPSYS:
		return "stapsys";
	default:
		return "stapdev";
	}
}

/* CONFIG_X OP (string-glob | number | CONFIG_Y) */
static bool config_test(struct lexer *lx, const struct token *lhs,
			const struct token *op, const struct token *rhs)
{
	const struct kconfig *kc = lx->s->kconfig;
	const char *lv = kc ? kconfig_get(kc, lhs->text) : NULL;

	if (!lv)
		lv = "";
	if (rhs->kind == TK_STRING)
		return glob_test(lx, op, lv, rhs->text);
	if (rhs->kind == TK_NUMBER) {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(lv, &end, 0);
		if (!*lv || *end)
			return op->text == intern("!=");
		return cmp_result(v < rhs->num ? -1 : v > rhs->num, op->text);
	}
	if (rhs->kind == TK_IDENT && strncmp(rhs->text, "CONFIG_", 7) == 0) {
		const char *rv = kc ? kconfig_get(kc, rhs->text) : NULL;

		return cmp_result(strcmp(lv, rv ? rv : ""), op->text);
	}
	diag_error(lx->s, rhs->loc, "expected a string, a number or a "
		   "CONFIG_ option after '%s'", op->text);
	return false;
}

static bool expect_kind(struct lexer *lx, const struct token *t,
			enum tok_kind k, const char *what)
{
	if (t->kind == k)
		return true;
	diag_error(lx->s, t->loc, "expected %s in preprocessor condition, "
		   "found '%s'", what, t->text);
	return false;
}

/* One triple of a condition. */
static bool eval_triple(struct lexer *lx)
{
	struct session *s = lx->s;
	const struct token *lhs = expanded_next(lx);
	const struct token *op = expanded_next(lx);
	const struct token *rhs;
	const char *name = lhs->text;

	if (lhs->kind == TK_OP || lhs->kind == TK_EOF ||
	    lhs->kind == TK_EMBEDDED) {
		diag_error(s, lhs->loc, "expected a preprocessor condition, "
			   "found '%s'", lhs->text);
		return false;
	}
	if (!is_cmp_op(op)) {
		if (lhs->kind == TK_IDENT &&
		    strncmp(lhs->text, "CONFIG_", 7) == 0)
			diag_error(s, lhs->loc, "a bare '%s' is not a "
				   "condition: compare it, e.g. '%s == \"y\"'",
				   lhs->text, lhs->text);
		else
			diag_error(s, op->loc, "expected a comparison "
				   "operator in preprocessor condition, "
				   "found '%s'", op->text);
		return false;
	}
	rhs = expanded_next(lx);
	if (lhs->kind == TK_IDENT) {
		if (name == intern("kernel_v") || name == intern("kernel_vr")) {
			const char *v = name == intern("kernel_v") ?
					s->kernel_v : s->kernel_vr;

			if (!expect_kind(lx, rhs, TK_STRING, "a version string"))
				return false;
			return version_test(v ? v : "", op->text, rhs->text);
		}
		if (name == intern("systemtap_v")) {
			const char *v = s->opt.compatible ? s->opt.compatible :
					SYSTEMTAP_COMPAT_VERSION;

			if (!expect_kind(lx, rhs, TK_STRING, "a version string"))
				return false;
			return version_test(v, op->text, rhs->text);
		}
		if (name == intern("arch") || name == intern("runtime") ||
		    name == intern("systemtap_privilege")) {
			const char *v;

			if (name == intern("arch"))
				v = s->arch_name ? s->arch_name : "x86_64";
			else if (name == intern("runtime"))
				v = "kernel";
			else
				v = privilege_name(s->opt.privilege);
			if (!expect_kind(lx, rhs, TK_STRING, "a string"))
				return false;
			return glob_test(lx, op, v, rhs->text);
		}
		if (name == intern("guru_mode")) {
			if (!expect_kind(lx, rhs, TK_NUMBER, "0 or 1"))
				return false;
			if (!tok_is(op, "==") && !tok_is(op, "!=")) {
				diag_error(s, op->loc, "guru_mode can only be "
					   "compared with '==' or '!='");
				return false;
			}
			if (rhs->num != 0 && rhs->num != 1) {
				diag_error(s, rhs->loc, "guru_mode is 0 or 1, "
					   "found %s", rhs->text);
				return false;
			}
			return cmp_result((s->opt.guru ? 1 : 0) - rhs->num,
					  op->text);
		}
		if (strncmp(name, "CONFIG_", 7) == 0)
			return config_test(lx, lhs, op, rhs);
		diag_error(s, lhs->loc, "unknown preprocessor condition "
			   "'%s'", name);
		return false;
	}
	if (lhs->kind == TK_STRING && rhs->kind == TK_STRING)
		return cmp_result(strcmp(lhs->text, rhs->text), op->text);
	if (lhs->kind == TK_NUMBER && rhs->kind == TK_NUMBER)
		return cmp_result(lhs->num < rhs->num ? -1 :
				  lhs->num > rhs->num, op->text);
	diag_error(s, lhs->loc, "malformed preprocessor condition: "
		   "cannot compare '%s' with '%s'", lhs->text, rhs->text);
	return false;
}

/* cond: triple { '&&' triple } { '||' triple { '&&' triple } } '%?' */
static bool eval_condition(struct lexer *lx, const struct token *open)
{
	bool any = false, all = true;
	int errors = lx->s->errors;

	for (;;) {
		const struct token *t;

		all = eval_triple(lx) && all;
		if (lx->s->errors != errors) {
			/* resynchronise at '%?' */
			t = lx->last;
			while (t->kind != TK_EOF && !tok_is(t, "%?"))
				t = expanded_next(lx);
			return false;
		}
		t = expanded_next(lx);
		if (tok_is(t, "&&"))
			continue;
		any = any || all;
		all = true;
		if (tok_is(t, "||"))
			continue;
		if (tok_is(t, "%?"))
			return any;
		diag_error(lx->s, t->loc, "expected '&&', '||' or '%%?' in "
			   "preprocessor condition, found '%s'", t->text);
		(void)open;
		return false;
	}
}

static void second_then(struct lexer *lx, const struct token *t)
{
	diag_error(lx->s, t->loc, "a second '%%?' in one preprocessor "
		   "conditional");
}

/* Skip a branch; returns the token that ended it: '%:' or '%)' at the
 * same level, or EOF.
 */
static const struct token *skip_branch(struct lexer *lx, bool stop_at_else)
{
	int level = 0, depth;

	for (;;) {
		const struct token *t = input_next(lx, &depth);

		if (t->kind == TK_EOF)
			return t;
		if (tok_is(t, "%("))
			level++;
		else if (tok_is(t, "%)")) {
			if (level-- == 0)
				return t;
		} else if (tok_is(t, "%:") && level == 0) {
			if (stop_at_else)
				return t;
			diag_error(lx->s, t->loc, "expected '%%)', found '%%:'");
		} else if (tok_is(t, "%?") && level == 0) {
			second_then(lx, t);
		}
	}
}

static void begin_conditional(struct lexer *lx, const struct token *open)
{
	struct cond_frame *f;
	const struct token *end;
	bool taken = eval_condition(lx, open);

	f = arena_alloc(lx->s->arena, sizeof(*f));
	f->loc = open->loc;
	if (taken) {
		f->up = lx->conds;
		lx->conds = f;
		return;
	}
	end = skip_branch(lx, true);
	if (end->kind == TK_EOF) {
		diag_error(lx->s, open->loc, "unterminated conditional "
			   "(missing '%%)')");
		return;
	}
	if (tok_is(end, "%:")) {
		f->in_else = true;
		f->up = lx->conds;
		lx->conds = f;
	}
}

static const struct token *expanded_next_1(struct lexer *lx);

static const struct token *expanded_next(struct lexer *lx)
{
	/* past the error cap nothing more is read: the file ends here */
	if (lx->s->errors > DIAG_MAX_ERRORS)
		lex_kill(lx);
	lx->last = expanded_next_1(lx);
	return lx->last;
}

static const struct token *expanded_next_1(struct lexer *lx)
{
	for (;;) {
		int depth;
		const struct token *t = input_next(lx, &depth);
		struct macro *m;

		if (t->kind != TK_IDENT)
			return t;
		if (t->text[0] == '$' || t->text[0] == '@') {
			if ((t->text[1] == '#' ||
			     isdigit((unsigned char)t->text[1])) &&
			    expand_arg(lx, t, depth))
				continue;
		}
		if (t->text == intern("@define")) {
			if (depth > 0) {
				diag_error(lx->s, t->loc, "@define is not "
					   "allowed inside a macro expansion");
				continue;
			}
			define_macro(lx, t);
			continue;
		}
		if (t->text[0] == '@') {
			m = find_macro(lx, t->text);
			if (m) {
				expand_macro(lx, m, t, depth);
				continue;
			}
			if (t->text[1] && !isdigit((unsigned char)t->text[1]) &&
			    !is_at_operator(t->text)) {
				struct token *z = arena_alloc(lx->s->arena,
							      sizeof(*z));

				diag_error(lx->s, t->loc, "unknown macro or "
					   "@-operator '%s'", t->text);
				/* a 0 in its place avoids follow-on errors */
				*z = *t;
				z->kind = TK_NUMBER;
				z->text = intern("0");
				z->num = 0;
				return z;
			}
		}
		return t;
	}
}

/* A token after preprocessing, before string joining. */
static const struct token *pp_next(struct lexer *lx)
{
	for (;;) {
		const struct token *t = expanded_next(lx);

		if (t->kind == TK_EOF) {
			while (lx->conds) {
				diag_error(lx->s, lx->conds->loc,
					   "unterminated conditional "
					   "(missing '%%)')");
				lx->conds = lx->conds->up;
			}
			return t;
		}
		if (t->kind != TK_OP)
			return t;
		if (tok_is(t, "%(")) {
			begin_conditional(lx, t);
			continue;
		}
		if (tok_is(t, "%:")) {
			if (lx->conds && lx->conds->in_else) {
				diag_error(lx->s, t->loc, "expected '%%)', "
					   "found '%%:'");
				continue;
			}
			if (!lx->conds) {
				diag_error(lx->s, t->loc, "'%%:' without a "
					   "matching '%%('");
				continue;
			}
			if (skip_branch(lx, false)->kind == TK_EOF)
				diag_error(lx->s, lx->conds->loc,
					   "unterminated conditional "
					   "(missing '%%)')");
			lx->conds = lx->conds->up;
			continue;
		}
		if (tok_is(t, "%)")) {
			if (!lx->conds) {
				diag_error(lx->s, t->loc, "'%%)' without a "
					   "matching '%%('");
				continue;
			}
			lx->conds = lx->conds->up;
			continue;
		}
		if (tok_is(t, "%?")) {
			if (lx->conds)
				second_then(lx, t);
			else
				diag_error(lx->s, t->loc, "'%%?' outside a "
					   "preprocessor condition");
			continue;
		}
		return t;
	}
}

/* Adjacent string literals are one literal. */
static const struct token *joined_next(struct lexer *lx)
{
	const struct token *t, *u;
	struct token *j;

	if (lx->pending) {
		t = lx->pending;
		lx->pending = NULL;
	} else {
		t = pp_next(lx);
	}
	if (t->kind != TK_STRING)
		return t;
	for (;;) {
		u = pp_next(lx);
		if (u->kind != TK_STRING) {
			lx->pending = u;
			return t;
		}
		j = arena_alloc(lx->s->arena, sizeof(*j));
		*j = *t;
		j->text = intern(arena_printf(lx->s->arena, "%s%s", t->text,
					      u->text));
		t = j;
	}
}

struct lexer *lex_new(struct session *s, struct srcfile *src, bool tapset)
{
	struct lexer *lx = arena_alloc(s->arena, sizeof(*lx));
	struct input *in = arena_alloc(s->arena, sizeof(*in));

	lx->s = s;
	lx->src = src;
	lx->tapset = tapset;
	src->is_tapset = tapset;
	raw_init(&lx->raw, s, src);
	in->raw = &lx->raw;
	lx->in = in;
	return lx;
}

const struct token *lex_peek(struct lexer *lx, int n)
{
	while (lx->nlook <= n) {
		const struct token *t;

		if (lx->eof) {
			t = lx->eof;
		} else {
			t = joined_next(lx);
			if (t->kind == TK_EOF)
				lx->eof = t;
		}
		lx->look[lx->nlook++] = t;
	}
	return lx->look[n];
}

const struct token *lex_next(struct lexer *lx)
{
	const struct token *t = lex_peek(lx, 0);

	memmove(&lx->look[0], &lx->look[1],
		sizeof(lx->look[0]) * (size_t)(lx->nlook - 1));
	lx->nlook--;
	return t;
}

bool lex_failed(const struct lexer *lx)
{
	return lx->raw.dead;
}

struct vec *lex_macros(struct lexer *lx)
{
	return &lx->macros;
}

/* After the script and the library files it needs are read: arguments
 * nobody used.
 */
void lex_warn_unused_args(struct session *s)
{
	int i;

	for (i = 0; i < s->opt.args.n && i < STAP_MAX_ARGS; i++)
		if (!s->arg_used[i])
			diag_warn_noloc(s, "unused command line argument "
					"$%d (\"%s\")", i + 1,
					(const char *)s->opt.args.items[i]);
}
