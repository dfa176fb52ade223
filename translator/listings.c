/* listings.c - the listings that need no script: --dump-probe-types
 * from the providers' own pattern tables, --dump-probe-aliases and
 * --dump-functions from the parsed tapset library (with the one-line
 * descriptions of its doc comments), and --example over doc/examples.
 */
#include "listings.h"
#include "elab.h"
#include "provider.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PKGDATADIR
#define PKGDATADIR "/usr/local/share/tapir"
#endif

/* A line of a listing and the name it is sorted by. */
struct line {
	const char *key;
	const char *text;
};

static int cmp_line(const void *a, const void *b)
{
	const struct line *p = *(const struct line *const *)a;
	const struct line *q = *(const struct line *const *)b;

	return strcmp(p->key, q->key) ?: strcmp(p->text, q->text);
}

static void add_line(struct arena *a, struct vec *lines, const char *key,
		     const char *text)
{
	struct line *l = arena_alloc(a, sizeof(*l));

	l->key = key;
	l->text = text;
	vec_push(a, lines, l);
}

/* Sorted by key, then text; each distinct text once. */
static void print_sorted(struct vec *lines)
{
	const char *prev = NULL;
	int i;

	if (!lines->n)
		return;
	qsort(lines->items, (size_t)lines->n, sizeof(void *), cmp_line);
	for (i = 0; i < lines->n; i++) {
		const struct line *l = vec_get(lines, i);

		if (prev && !strcmp(prev, l->text))
			continue;
		printf("%s\n", l->text);
		prev = l->text;
	}
}

/* ------------------------------------------------------------------ */
/* --dump-probe-types                                                 */

/* Component by component: the functor, then no argument before a
 * number before a string; a pattern before its own extensions.  This
 * is the order of a walk of the tree the patterns make, children
 * sorted, each node before its children.
 */
static int cmp_pattern(const void *a, const void *b)
{
	const struct prov_pattern *p = *(const struct prov_pattern *const *)a;
	const struct prov_pattern *q = *(const struct prov_pattern *const *)b;
	int i, d;

	for (i = 0; i < p->n && i < q->n; i++) {
		d = strcmp(p->comps[i].functor, q->comps[i].functor);
		if (d)
			return d;
		d = (int)p->comps[i].arg - (int)q->comps[i].arg;
		if (d)
			return d;
	}
	return p->n - q->n;
}

static void put_pattern(struct strbuf *sb, const struct prov_pattern *p)
{
	int i;

	sb->len = 0;
	sb_putn(sb, "", 0);
	for (i = 0; i < p->n; i++) {
		if (i)
			sb_putc(sb, '.');
		sb_puts(sb, p->comps[i].functor);
		if (p->comps[i].arg == PAT_NUM)
			sb_puts(sb, "(number)");
		else if (p->comps[i].arg == PAT_STR)
			sb_puts(sb, "(string)");
	}
}

/* Each shape a provider accepts, once; the families that are only
 * recognised (every use an error) are not probe types.
 */
static int dump_probe_types(struct session *s)
{
	struct vec all = { 0 }, kept = { 0 };
	struct strbuf sb, prev;
	int i;

	provider_patterns(s->arena, &all);
	for (i = 0; i < all.n; i++) {
		struct prov_pattern *p = vec_get(&all, i);

		if (!p->prov->unsupported)
			vec_push(s->arena, &kept, p);
	}
	if (!kept.n)
		return 1;
	qsort(kept.items, (size_t)kept.n, sizeof(void *), cmp_pattern);
	sb_init(&sb);
	sb_init(&prev);
	sb_putn(&prev, "", 0);
	for (i = 0; i < kept.n; i++) {
		put_pattern(&sb, vec_get(&kept, i));
		if (i && !strcmp(sb.buf, prev.buf))
			continue;
		printf("%s\n", sb.buf);
		prev.len = 0;
		sb_puts(&prev, sb.buf);
	}
	sb_free(&sb);
	sb_free(&prev);
	return 0;
}

/* ------------------------------------------------------------------ */
/* --dump-probe-aliases                                               */

/* "name = point, point": the names the alias defines joined by " = ",
 * then the points it stands for as written (with '?', '!' and if()).
 */
static const char *alias_line(struct arena *a, const struct probe *al)
{
	struct strbuf sb;
	const char *r;
	int i;

	sb_init(&sb);
	for (i = 0; i < al->alias_names.n; i++) {
		if (i)
			sb_puts(&sb, " = ");
		print_probe_point(&sb, vec_get(&al->alias_names, i));
	}
	sb_puts(&sb, " = ");
	for (i = 0; i < al->points.n; i++) {
		if (i)
			sb_puts(&sb, ", ");
		print_probe_point(&sb, vec_get(&al->points, i));
	}
	r = arena_strdup(a, sb.buf);
	sb_free(&sb);
	return r;
}

/* Names starting with '_' are the library's own, shown with -v. */
static int dump_probe_aliases(struct session *s)
{
	struct vec files = { 0 }, lines = { 0 };
	int i, j;

	tapset_all_files(s, &files);
	for (i = 0; i < files.n; i++) {
		struct stapfile *f = vec_get(&files, i);

		for (j = 0; j < f->aliases.n; j++) {
			const char *l = alias_line(s->arena,
						   vec_get(&f->aliases, j));

			if (l[0] != '_' || s->opt.verbose)
				add_line(s->arena, &lines, l, l);
		}
	}
	print_sorted(&lines);
	return s->errors ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* --dump-functions                                                   */

/* The title of a doc comment, " * [s]function NAME - TEXT" on its first
 * line, with the lines that continue TEXT before a blank line, an
 * "@param:" or a "Description:" one; NULL unless it documents name.
 */
static const char *line_body(const char *p, const char *end, size_t *len)
{
	const char *e = memchr(p, '\n', (size_t)(end - p));

	if (!e)
		e = end;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if (p < e && *p == '*')
		p++;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	*len = (size_t)(e - p);
	while (*len && (p[*len - 1] == ' ' || p[*len - 1] == '\t' ||
			p[*len - 1] == '\r'))
		(*len)--;
	return p;
}

static const char *next_line(const char *p, const char *end)
{
	const char *e = memchr(p, '\n', (size_t)(end - p));

	return e ? e + 1 : end;
}

static const char *doc_title(struct arena *a, const char *p, const char *end,
			     const char *name)
{
	struct strbuf sb;
	const char *t, *dash, *r;
	size_t n, skip, nlen = strlen(name);

	t = line_body(p, end, &n);
	if (n == 0) {		/* the title on the line after the opening */
		p = next_line(p, end);
		t = line_body(p, end, &n);
	}
	skip = !strncmp(t, "sfunction ", 10) ? 10 :
	       !strncmp(t, "function ", 9) ? 9 : 0;
	if (!skip || n < skip + nlen + 3 || strncmp(t + skip, name, nlen) ||
	    strncmp(t + skip + nlen, " - ", 3))
		return NULL;
	dash = t + skip + nlen;
	sb_init(&sb);
	sb_putn(&sb, dash + 3, (size_t)(t + n - dash - 3));
	for (p = next_line(p, end); p < end; p = next_line(p, end)) {
		t = line_body(p, end, &n);
		if (!n || t[0] == '@' || memchr(t, ':', n))
			break;
		sb_putc(&sb, ' ');
		sb_putn(&sb, t, n);
	}
	r = arena_strdup(a, sb.buf);
	sb_free(&sb);
	return r;
}

/* The doc comment right above f's definition (blank lines between are
 * allowed), as its title, or NULL.
 */
static const char *doc_of(struct arena *a, const struct func *f)
{
	const struct srcfile *src = f->file ? f->file->src : NULL;
	const char *p, *q, *open;
	int line = 1;

	if (!src || !src->text)
		return NULL;
	for (p = src->text; *p && line < f->loc.line; p++)
		if (*p == '\n')
			line++;
	for (q = p; q > src->text && (q[-1] == ' ' || q[-1] == '\t' ||
				      q[-1] == '\n' || q[-1] == '\r'); q--)
		;
	if (q - src->text < 4 || q[-1] != '/' || q[-2] != '*')
		return NULL;
	q -= 2;
	for (open = q - 1; open >= src->text; open--)
		if (!strncmp(open, "/**", 3) || !strncmp(open, "*/", 2))
			break;
	if (open < src->text || strncmp(open, "/**", 3))
		return NULL;
	return doc_title(a, open + 3, q, f->name);
}

/* name:type (arg:type, ...) - description */
static const char *function_line(struct arena *a, const struct func *f,
				 const char *doc)
{
	struct strbuf sb;
	const char *r;
	int i;

	sb_init(&sb);
	sb_printf(&sb, "%s:%s (", f->name, type_name(f->type));
	for (i = 0; i < f->params.n; i++) {
		const struct vardecl *v = vec_get(&f->params, i);

		sb_printf(&sb, "%s%s:%s", i ? ", " : "", v->name,
			  type_name(v->type));
	}
	sb_putc(&sb, ')');
	if (doc && *doc)
		sb_printf(&sb, " - %s", doc);
	r = arena_strdup(a, sb.buf);
	sb_free(&sb);
	return r;
}

/* Every public function of the library, resolved and typed as if
 * called (elaborate.c uses them all in this mode), sorted by name;
 * names starting with '_' are the library's own, shown with -v.
 */
static int dump_functions(struct session *s)
{
	struct vec lines = { 0 };
	struct strbuf diags;
	int i;

	/* Bodies that do not resolve for this kernel (its types, its
	 * headers) still have their signatures listed: their errors are
	 * kept aside, and shown with -v.
	 */
	sb_init(&diags);
	sb_putn(&diags, "", 0);
	diag_set_sink(&diags);
	elaborate(s);
	diag_set_sink(NULL);
	if (s->opt.verbose)
		fputs(diags.buf, stderr);
	sb_free(&diags);
	for (i = 0; i < s->functions.n; i++) {
		const struct func *f = vec_get(&s->functions, i);

		if (f->is_private || !f->file || !f->file->is_tapset)
			continue;
		if (f->name[0] == '_' && !s->opt.verbose)
			continue;
		add_line(s->arena, &lines, f->name,
			 function_line(s->arena, f, doc_of(s->arena, f)));
	}
	print_sorted(&lines);
	return lines.n ? 0 : 1;
}

int listing_dump(struct session *s)
{
	if (s->opt.dump_probe_types)
		return dump_probe_types(s);
	if (s->opt.dump_probe_aliases)
		return dump_probe_aliases(s);
	return dump_functions(s);
}

/* ------------------------------------------------------------------ */
/* --example                                                          */

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* $SYSTEMTAP_EXAMPLES; the installed copy for the installed stap;
 * doc/examples of a build or source tree; the installed copy.
 */
static const char *examples_dir(struct session *s)
{
	const char *v = getenv("SYSTEMTAP_EXAMPLES");
	const char *d;

	if (v && *v)
		return v;
#ifdef BINDIR
	if (s->argv0_dir && is_dir(PKGDATADIR "/examples")) {
		/* argv0_dir has no symbolic links; BINDIR may */
		char *bin = realpath(BINDIR, NULL);
		bool installed = bin && !strcmp(s->argv0_dir, bin);

		free(bin);
		if (installed)
			return PKGDATADIR "/examples";
	}
#endif
	if (s->argv0_dir) {
		d = arena_printf(s->arena, "%s/doc/examples", s->argv0_dir);
		if (is_dir(d))
			return d;
	}
#ifdef TAPIR_SRCDIR
	d = TAPIR_SRCDIR "/doc/examples";
	if (is_dir(d))
		return d;
#endif
	return PKGDATADIR "/examples";
}

static int stp_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && d->d_name[0] != '.' &&
	       !strcmp(d->d_name + n - 4, ".stp");
}

/* The value of "key: value" in the example's .meta file, or NULL. */
static const char *meta_value(struct session *s, const char *dir,
			      const char *stp, const char *key)
{
	const char *path = arena_printf(s->arena, "%s/%.*s.meta", dir,
					(int)(strlen(stp) - 4), stp);
	size_t len, klen = strlen(key);
	char *text = read_file(path, &len);
	const char *r = NULL, *p;

	if (!text)
		return NULL;
	for (p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		size_t n = strcspn(p, "\n");

		if (n > klen && !strncmp(p, key, klen) && p[klen] == ':') {
			const char *v = p + klen + 1;

			while (*v == ' ' || *v == '\t')
				v++;
			r = arena_strndup(s->arena, v, (size_t)(p + n - v));
			break;
		}
	}
	free(text);
	return r;
}

static int list_examples(struct session *s, const char *dir)
{
	struct dirent **ents;
	int n, i;

	n = scandir(dir, &ents, stp_file, alphasort);
	if (n < 0) {
		diag_error_noloc(s, "no examples: cannot read '%s'", dir);
		return 1;
	}
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		const char *title = meta_value(s, dir, name, "title");

		printf("%-24s %s\n", name, title ? title : "");
		free(ents[i]);
	}
	free(ents);
	return 0;
}

int listing_example(struct session *s, bool *done)
{
	const char *dir = examples_dir(s);
	const char *name = s->opt.script_file;
	const char *path;
	size_t n;

	*done = false;
	if (!name) {
		*done = true;
		return list_examples(s, dir);
	}
	n = strlen(name);
	if (!n || strchr(name, '/')) {
		diag_error_noloc(s, "--example takes the name of an example, "
				 "not a path: '%s'", name);
		return 1;
	}
	path = arena_printf(s->arena, "%s/%s%s", dir, name,
			    n > 4 && !strcmp(name + n - 4, ".stp") ? "" :
			    ".stp");
	if (access(path, R_OK) != 0) {
		diag_error_noloc(s, "example '%s' was not found under '%s' "
				 "(stap --example lists them)", name, dir);
		return 1;
	}
	s->opt.script_file = path;
	return 0;
}
