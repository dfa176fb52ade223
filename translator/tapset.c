/* tapset.c - the tapset library index: every *.stp on the search path is
 * scanned cheaply for the functions, globals and probe aliases it
 * defines, and parsed only when one of them is first needed.
 */
#define _GNU_SOURCE
#include "elab.h"
#include "parse.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ALIAS_COMPS 16
#define MAX_COND_DEPTH 32

/* One library file: its text is read at index time, its tree built on
 * first use and kept.
 */
struct tfile {
	struct srcfile *src;
	struct stapfile *parsed;
	unsigned mark;			/* query generation, to dedupe */
	bool opaque;			/* uses macros at the top level */
};

/* A name a file defines: a function, a global or an alias.  Aliases
 * keep their functors so that queries can rule files out unparsed.
 */
struct tentry {
	struct tfile *file;
	struct tentry *next;		/* same key */
	struct tentry *tail;		/* last of the chain (on its head) */
	int ncomps;
	const char **comps;
};

struct tapset_index {
	struct arena *arena;
	struct vec files;		/* struct tfile * */
	struct htab functions;		/* interned name -> first tentry */
	struct htab globals, aliases;	/* the same; aliases by functor 0 */
	struct vec all_aliases;		/* struct tentry * */
	struct vec opaque;		/* struct tfile * that use macros */
	unsigned mark;
	struct vec seen;		/* struct seen: files indexed so far */
};

/* A file already indexed, by inode, so that a symlink or an overlapping
 * search directory does not define everything twice.
 */
struct seen {
	dev_t dev;
	ino_t ino;
};

/* ------------------------------------------------------------------ */
/* Name maps                                                          */

static struct tentry *chain_get(const struct htab *m, const char *key)
{
	return htab_iget(m, (uintptr_t)key);
}

/* Append e to the chain of key: files are added in search order, and
 * queries answer in that order.
 */
static void chain_add(struct htab *m, const char *key, struct tentry *e)
{
	void **v = htab_islot(m, (uintptr_t)key, NULL);
	struct tentry *head = *v;

	e->next = NULL;
	e->tail = e;
	if (!head) {
		*v = e;
		return;
	}
	head->tail->next = e;
	head->tail = e;
}

/* ------------------------------------------------------------------ */
/* The cheap scan                                                     */

/* What the scan tells apart.  It reads bytes, not tokens: inside braces
 * only braces, strings, comments, embedded C and conditionals matter,
 * and only names at the top level are interned.  (The full lexer costs
 * several times more over the whole library, for nothing.)
 */
enum qkind {
	Q_IDENT,
	Q_NUMBER,
	Q_STRING,
	Q_EMBEDDED,
	Q_LBRACE,
	Q_RBRACE,
	Q_LPAREN,
	Q_RPAREN,
	Q_LBRACK,
	Q_RBRACK,
	Q_ASSIGN,		/* = */
	Q_ADD_ASSIGN,		/* += */
	Q_COMMA,
	Q_DOT,
	Q_PERCENT,
	Q_MINUS,
	Q_SEMI,
	Q_COND_OPEN,		/* %( */
	Q_COND_THEN,		/* %? */
	Q_COND_ELSE,		/* %: */
	Q_COND_CLOSE,		/* %) */
	Q_OTHER,
	Q_COMMENT,		/* not a token at all */
};

enum scan_mode {
	SCAN_TOP,		/* between top-level items */
	SCAN_FUNC_NAME,		/* after "function" */
	SCAN_GLOBAL_NAME,	/* after "global" or "," */
	SCAN_GLOBAL_REST,	/* size, initialiser, '%' of a global */
	SCAN_PROBE,		/* probe point list, up to '=' or '{' */
};

/* One open %( ... %) while scanning; both branches are seen, so the
 * brace depth of the then-branch is kept when the else-branch ends.
 */
struct scan_cond {
	int depth_open;
	int depth_then;
	bool saw_then, saw_else;
	bool macro_body;		/* of an @define */
};

struct scan {
	struct tapset_index *ix;
	struct tfile *file;
	enum scan_mode mode;
	int depth;			/* braces */
	int nest;			/* () and [] inside a probe or global */
	bool is_private;
	struct scan_cond conds[MAX_COND_DEPTH];
	int nconds;
	bool define_seen;		/* the next %( opens a macro body */
	int macro_bodies;		/* open @define bodies */
	/* the probe point names seen so far in SCAN_PROBE */
	const char *comps[MAX_ALIAS_COMPS];
	int ncomps;
	bool want_comp;
	struct vec names;		/* struct tentry * awaiting '=' */
};

/* A top-level token: where it is, for names that get interned. */
struct qtok {
	enum qkind k;
	const char *p;
	size_t len;
};

static bool qis(const struct qtok *t, const char *kw, size_t len)
{
	return t->k == Q_IDENT && t->len == len && !memcmp(t->p, kw, len);
}

static const char *qname(const struct qtok *t)
{
	return intern_n(t->p, t->len);
}

static void add_entry(struct scan *sc, struct htab *m, const char *name)
{
	struct tentry *e = arena_alloc(sc->ix->arena, sizeof(*e));

	e->file = sc->file;
	chain_add(m, name, e);
}

static void end_probe_name(struct scan *sc)
{
	struct tentry *e;
	size_t size = sizeof(const char *) * (size_t)sc->ncomps;

	if (!sc->ncomps)
		return;
	e = arena_alloc(sc->ix->arena, sizeof(*e));
	e->file = sc->file;
	e->ncomps = sc->ncomps;
	e->comps = arena_alloc(sc->ix->arena, size);
	memcpy(e->comps, sc->comps, size);
	vec_push(sc->ix->arena, &sc->names, e);
	sc->ncomps = 0;
}

/* The names become alias entries once '=' or '+=' shows this probe is
 * an alias definition.
 */
static void commit_alias_names(struct scan *sc)
{
	int i;

	end_probe_name(sc);
	for (i = 0; i < sc->names.n; i++) {
		struct tentry *e = vec_get(&sc->names, i);

		chain_add(&sc->ix->aliases, e->comps[0], e);
		vec_push(sc->ix->arena, &sc->ix->all_aliases, e);
	}
}

static void scan_cond(struct scan *sc, enum qkind k)
{
	struct scan_cond *c;

	if (k == Q_COND_OPEN) {
		if (sc->nconds < MAX_COND_DEPTH) {
			c = &sc->conds[sc->nconds++];
			memset(c, 0, sizeof(*c));
			c->depth_open = sc->depth;
			c->macro_body = sc->define_seen;
			sc->macro_bodies += c->macro_body;
		}
		sc->define_seen = false;
		return;
	}
	if (!sc->nconds)
		return;
	c = &sc->conds[sc->nconds - 1];
	if (k == Q_COND_THEN) {
		c->saw_then = true;
	} else if (k == Q_COND_ELSE) {
		c->saw_else = true;
		c->depth_then = sc->depth;
		sc->depth = c->depth_open;
	} else {
		/* a macro body (no "%?") leaves no braces behind */
		if (!c->saw_then)
			sc->depth = c->depth_open;
		else if (c->saw_else)
			sc->depth = c->depth_then;
		sc->macro_bodies -= c->macro_body;
		sc->nconds--;
	}
}

static void scan_probe(struct scan *sc, const struct qtok *t)
{
	enum qkind k = t->k;

	if (sc->nest) {
		if (k == Q_LPAREN || k == Q_LBRACK)
			sc->nest++;
		else if (k == Q_RPAREN || k == Q_RBRACK)
			sc->nest--;
		return;
	}
	if (k == Q_ASSIGN || k == Q_ADD_ASSIGN) {
		commit_alias_names(sc);
		sc->mode = SCAN_TOP;
	} else if (k == Q_LPAREN || k == Q_LBRACK) {
		sc->nest = 1;
	} else if (k == Q_COMMA) {
		end_probe_name(sc);
		sc->want_comp = true;
	} else if (k == Q_DOT) {
		sc->want_comp = true;
	} else if (k == Q_IDENT && sc->want_comp &&
		   sc->ncomps < MAX_ALIAS_COMPS) {
		sc->comps[sc->ncomps++] = qname(t);
		sc->want_comp = false;
	}
}

/* After a global's name: its size, wrap mark or initialiser, then a
 * comma for the next name or anything else for the next item.
 */
static bool global_continues(struct scan *sc, enum qkind k)
{
	if (k == Q_LBRACK) {
		sc->nest++;
	} else if (k == Q_RBRACK) {
		sc->nest--;
	} else if (k == Q_COMMA && !sc->nest) {
		sc->mode = SCAN_GLOBAL_NAME;
	} else if (!sc->nest && k != Q_ASSIGN && k != Q_PERCENT &&
		   k != Q_MINUS && k != Q_SEMI && k != Q_NUMBER &&
		   k != Q_STRING) {
		return false;
	}
	return true;
}

static void scan_top(struct scan *sc, const struct qtok *t)
{
	bool was_private = sc->is_private;

	sc->is_private = false;
	if (t->k != Q_IDENT)
		return;
	if (qis(t, "private", 7)) {
		sc->is_private = true;
	} else if (qis(t, "function", 8)) {
		sc->mode = SCAN_FUNC_NAME;
		sc->is_private = was_private;
	} else if (qis(t, "global", 6)) {
		sc->mode = SCAN_GLOBAL_NAME;
		sc->is_private = was_private;
	} else if (qis(t, "probe", 5)) {
		sc->mode = SCAN_PROBE;
		sc->ncomps = 0;
		sc->nest = 0;
		sc->want_comp = true;
		sc->names.n = 0;
	} else if (qis(t, "@define", 7)) {
		sc->define_seen = true;
	} else if (t->p[0] == '@' && !sc->macro_bodies &&
		   !sc->file->opaque) {
		/* a macro used here may define anything: such a file
		 * answers every query, to be looked at parsed
		 */
		sc->file->opaque = true;
		vec_push(sc->ix->arena, &sc->ix->opaque, sc->file);
	}
}

static void scan_token(struct scan *sc, const struct qtok *t)
{
	switch (sc->mode) {
	case SCAN_TOP:
		scan_top(sc, t);
		break;
	case SCAN_FUNC_NAME:
		if (t->k == Q_IDENT && !sc->is_private)
			add_entry(sc, &sc->ix->functions, qname(t));
		sc->is_private = false;
		sc->mode = SCAN_TOP;
		break;
	case SCAN_GLOBAL_NAME:
		if (t->k == Q_IDENT && !sc->is_private)
			add_entry(sc, &sc->ix->globals, qname(t));
		sc->nest = 0;
		sc->mode = t->k == Q_IDENT ? SCAN_GLOBAL_REST : SCAN_TOP;
		break;
	case SCAN_GLOBAL_REST:
		if (!global_continues(sc, t->k)) {
			sc->mode = SCAN_TOP;
			sc->is_private = false;
			scan_top(sc, t);
		}
		break;
	case SCAN_PROBE:
		scan_probe(sc, t);
		break;
	}
}

static bool ident_start(int c)
{
	return isalpha(c) || c == '_' || c == '$' || c == '@';
}

static bool ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '$';
}

/* Past a comment, string or embedded block at p, or p itself if none
 * starts there; *k says which.
 */
static const char *skip_opaque(const char *p, enum qkind *k)
{
	const char *q;

	*k = Q_COMMENT;
	if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
		q = strchr(p, '\n');
		return q ? q : p + strlen(p);
	}
	if (p[0] == '/' && p[1] == '*') {
		q = strstr(p + 2, "*/");
		return q ? q + 2 : p + strlen(p);
	}
	if (p[0] == '%' && p[1] == '{') {
		*k = Q_EMBEDDED;
		q = strstr(p + 2, "%}");
		return q ? q + 2 : p + strlen(p);
	}
	if (*p == '"') {
		*k = Q_STRING;
		for (q = p + 1; *q && *q != '"' && *q != '\n'; q++)
			if (*q == '\\' && q[1] && q[1] != '\n')
				q++;
		return *q == '"' ? q + 1 : q;
	}
	return p;
}

/* Operators: those the scan acts on, and the longer ones that contain
 * them ("==" is not an assignment).  Sets *len.
 */
static enum qkind scan_op(const char *p, int *len)
{
	static const enum qkind single[256] = {
		['{'] = Q_LBRACE, ['}'] = Q_RBRACE, ['('] = Q_LPAREN,
		[')'] = Q_RPAREN, ['['] = Q_LBRACK, [']'] = Q_RBRACK,
		['='] = Q_ASSIGN, [','] = Q_COMMA, ['.'] = Q_DOT,
		['%'] = Q_PERCENT, ['-'] = Q_MINUS, [';'] = Q_SEMI,
	};
	enum qkind k;

	*len = 2;
	if (p[0] == '%' && p[1] && strchr("(?:)", p[1]))
		return p[1] == '(' ? Q_COND_OPEN : p[1] == '?' ? Q_COND_THEN :
		       p[1] == ':' ? Q_COND_ELSE : Q_COND_CLOSE;
	if (p[0] == '+' && p[1] == '=')
		return Q_ADD_ASSIGN;
	if ((p[0] == '<' || p[0] == '>') && p[1] == p[0] &&
	    (p[2] == '=' || p[2] == '<')) {
		*len = 3;
		return Q_OTHER;
	}
	if ((p[1] == '=' && strchr("-*/%&^|.<>!=", p[0])) ||
	    (p[0] == '=' && p[1] == '~'))
		return Q_OTHER;
	*len = 1;
	k = single[(unsigned char)*p];
	/* Q_IDENT is 0: the table's default means "nothing special" */
	return k == Q_IDENT ? Q_OTHER : k;
}

static void quick_scan(struct scan *sc, const char *p)
{
	while (*p) {
		const char *q;
		enum qkind k;
		int len;

		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if ((*p == '$' || *p == '@') && p[1] == '#') {
			q = p + 2;
			k = Q_OTHER;
		} else if (ident_start((unsigned char)*p)) {
			for (q = p + 1; ident_char((unsigned char)*q); q++)
				;
			k = Q_IDENT;
		} else if (isdigit((unsigned char)*p)) {
			for (q = p + 1; isalnum((unsigned char)*q) || *q == '_';
			     q++)
				;
			k = Q_NUMBER;
		} else if ((q = skip_opaque(p, &k)) == p) {
			k = scan_op(p, &len);
			q = p + len;
		}
		if (k == Q_LBRACE) {
			sc->depth++;
			sc->mode = SCAN_TOP;
		} else if (k == Q_RBRACE) {
			if (sc->depth > 0)
				sc->depth--;
		} else if (k >= Q_COND_OPEN && k <= Q_COND_CLOSE) {
			scan_cond(sc, k);
		} else if (!sc->depth && k != Q_COMMENT) {
			struct qtok t = { k, p, (size_t)(q - p) };

			scan_token(sc, &t);
		}
		p = q;
	}
}

/* ------------------------------------------------------------------ */
/* Finding the files                                                  */

static bool seen_before(struct tapset_index *ix, const struct stat *st)
{
	struct seen *sn;
	int i;

	for (i = 0; i < ix->seen.n; i++) {
		sn = vec_get(&ix->seen, i);
		if (sn->dev == st->st_dev && sn->ino == st->st_ino)
			return true;
	}
	sn = arena_alloc(ix->arena, sizeof(*sn));
	sn->dev = st->st_dev;
	sn->ino = st->st_ino;
	vec_push(ix->arena, &ix->seen, sn);
	return false;
}

/* The file's text, read straight into the arena (no copy through a
 * malloc'd buffer: the library is read in full on every run).  size is
 * what stat said; a file that changed meanwhile is read as it is now.
 */
static const char *load_text(struct session *s, const char *path,
			     size_t size, size_t *len)
{
	char *text = arena_alloc(s->arena, size + 1);
	size_t got = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	while (got < size && (n = read(fd, text + got, size - got)) > 0)
		got += (size_t)n;
	close(fd);
	text[got] = '\0';
	*len = got;
	return text;
}

static void index_file(struct session *s, struct tapset_index *ix,
		       const char *path, size_t size)
{
	size_t len;
	const char *text = load_text(s, path, size, &len);
	struct tfile *f;
	struct scan sc;

	if (!text) {
		diag_error_noloc(s, "cannot read tapset file '%s'", path);
		return;
	}
	f = arena_alloc(ix->arena, sizeof(*f));
	f->src = srcfile_new(s->arena, path, text, len);
	f->src->is_tapset = true;
	vec_push(ix->arena, &ix->files, f);
	memset(&sc, 0, sizeof(sc));
	sc.ix = ix;
	sc.file = f;
	quick_scan(&sc, f->src->text);
}

static int stp_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && strcmp(d->d_name + n - 4, ".stp") == 0;
}

static void index_dir(struct session *s, struct tapset_index *ix,
		      const char *dir)
{
	struct dirent **names;
	int i, n = scandir(dir, &names, stp_filter, alphasort);

	for (i = 0; i < n; i++) {
		char *path = arena_printf(ix->arena, "%s/%s", dir,
					  names[i]->d_name);
		struct stat st;

		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    !seen_before(ix, &st))
			index_file(s, ix, path, (size_t)st.st_size);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

/* Kernel-version subdirectories, most specific first: "6.1.0-27-amd64",
 * "6.1.0", "6.1", then none.
 */
static int version_dirs(struct session *s, struct arena *a,
			const char **out, int max)
{
	const char *v = s->kernel_vr ? s->kernel_vr : s->kernel_v;
	int n = 0;
	char *buf, *p;

	if (!v || !*v) {
		out[n++] = "";
		return n;
	}
	out[n++] = v;
	buf = arena_strdup(a, v);
	p = strchr(buf, '-');
	if (p) {
		*p = '\0';
		out[n++] = arena_strdup(a, buf);
	}
	while (n < max - 1 && (p = strrchr(buf, '.')) &&
	       strchr(buf, '.') != p) {
		*p = '\0';
		out[n++] = arena_strdup(a, buf);
	}
	out[n++] = "";
	return n;
}

static void index_root(struct session *s, struct tapset_index *ix,
		       const char *root)
{
	const char *arch = s->arch_name ? s->arch_name : "x86_64";
	const char *vers[8];
	int nv = version_dirs(s, ix->arena, vers, 8);
	int i;

	for (i = 0; i < nv; i++) {
		const char *sep = *vers[i] ? "/" : "";
		const char *lin = arena_printf(ix->arena, "%s/linux%s%s", root,
					       sep, vers[i]);
		const char *top = arena_printf(ix->arena, "%s%s%s", root, sep,
					       vers[i]);

		index_dir(s, ix, lin);
		index_dir(s, ix, arena_printf(ix->arena, "%s/%s", lin, arch));
		index_dir(s, ix, top);
		index_dir(s, ix, arena_printf(ix->arena, "%s/%s", top, arch));
	}
}

struct tapset_index *tapset_index_build(struct session *s)
{
	struct tapset_index *ix;
	const char *dir = s->tapset_dir;
	int i;

	if (s->tindex)
		return s->tindex;
	ix = arena_alloc(s->arena, sizeof(*ix));
	ix->arena = s->arena;
	ix->functions.arena = ix->globals.arena = s->arena;
	ix->aliases.arena = s->arena;
	s->tindex = ix;
	for (i = 0; i < s->opt.include_dirs.n; i++)
		index_root(s, ix, vec_get(&s->opt.include_dirs, i));
	if (!dir)
		dir = getenv("SYSTEMTAP_TAPSET");
	if (dir)
		index_root(s, ix, dir);
	return ix;
}

/* ------------------------------------------------------------------ */
/* Queries                                                            */

static struct stapfile *tfile_parse(struct session *s, struct tfile *f)
{
	if (!f->parsed) {
		parse_load_macro_files(s);
		f->parsed = parse_file(s, f->src, true);
		f->parsed->is_tapset = true;
		f->parsed->privileged = true;
	}
	return f->parsed;
}

/* Add f to a query's answer once (the query's mark says it is in). */
static void answer(struct session *s, struct tfile *f, struct vec *out)
{
	if (f->mark == s->tindex->mark)
		return;
	f->mark = s->tindex->mark;
	vec_push(s->arena, out, tfile_parse(s, f));
}

/* Each entry's file once, in search order, then the opaque files. */
static void collect(struct session *s, struct tentry *e, struct vec *out)
{
	struct tapset_index *ix = s->tindex;
	int i;

	ix->mark++;
	for (; e; e = e->next)
		answer(s, e->file, out);
	for (i = 0; i < ix->opaque.n; i++)
		answer(s, vec_get(&ix->opaque, i), out);
}

void tapset_find_function(struct session *s, const char *name,
			  struct vec *out)
{
	struct tapset_index *ix = tapset_index_build(s);

	collect(s, chain_get(&ix->functions, intern(name)), out);
}

void tapset_find_global(struct session *s, const char *name,
			struct vec *out)
{
	struct tapset_index *ix = tapset_index_build(s);

	collect(s, chain_get(&ix->globals, intern(name)), out);
}

/* Could alias name e match a probe point with these functors, directly,
 * through a wildcard or with a suffix carried over?  A cheap superset
 * of the real matching done in elaborate.c.
 */
static bool alias_may_match(const struct tentry *e, const char **pat, int n)
{
	int i;

	for (i = 0; i < n && i < e->ncomps; i++) {
		if (strstr(pat[i], "**"))
			return true;
		if (pat[i] != e->comps[i] && !(has_wildcard(pat[i]) &&
		    glob_match(pat[i], e->comps[i])))
			return false;
	}
	return e->ncomps <= n;
}

void tapset_find_aliases(struct session *s, const char *pattern,
			 struct vec *out)
{
	struct tapset_index *ix = tapset_index_build(s);
	const char *pat[MAX_ALIAS_COMPS * 2];
	const char *p = pattern;
	int n = 0, i;

	while (n < (int)ARRAY_SIZE(pat)) {
		const char *dot = strchr(p, '.');

		pat[n++] = dot ? intern_n(p, (size_t)(dot - p)) : intern(p);
		if (!dot)
			break;
		p = dot + 1;
	}
	ix->mark++;
	if (!has_wildcard(pat[0])) {
		struct tentry *e = chain_get(&ix->aliases, pat[0]);

		for (; e; e = e->next)
			if (alias_may_match(e, pat, n))
				answer(s, e->file, out);
	} else {
		for (i = 0; i < ix->all_aliases.n; i++) {
			struct tentry *e = vec_get(&ix->all_aliases, i);

			if (alias_may_match(e, pat, n))
				answer(s, e->file, out);
		}
	}
	for (i = 0; i < ix->opaque.n; i++)
		answer(s, vec_get(&ix->opaque, i), out);
}

void tapset_all_files(struct session *s, struct vec *out)
{
	struct tapset_index *ix = tapset_index_build(s);
	int i;

	ix->mark++;
	for (i = 0; i < ix->files.n; i++)
		answer(s, vec_get(&ix->files, i), out);
}
