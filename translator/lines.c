/* lines.c - pass 3: line tables as runtime/stp_lines.h encodes them:
 * rows by address, a few bytes each, with a checkpoint every
 * LINES_STEP rows for the runtime's binary search.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"
#include "session.h"
#include "elab.h"
#include "provider.h"
#include "target.h"
#include "kbuild.h"
#include "util.h"
#include "debuginfo/dwarf.h"
#include "debuginfo/uelf.h"

#define LINES_STEP 32

struct lrow {
	uint64_t addr;
	unsigned int file;
	int line;
};

/* Rows of one table being built; files are shared by the tables of a
 * module part (an object, or the kernel).
 */
struct ltab {
	struct lrow *v;
	size_t n, cap;
	struct vec *files;	/* const char * */
	struct arena *arena;
	uint64_t base;		/* subtracted from DWARF addresses */
	const struct uelf *u;	/* user: addresses become file offsets */
	bool bad;
};

bool lines_wanted(const struct session *s)
{
	int i;

	for (i = 0; i < s->functions.n; i++) {
		const struct func *f = s->functions.items[i];

		if (f->code && strstr(f->code, "pragma:lines"))
			return true;
	}
	return false;
}

static unsigned int file_index(struct ltab *t, const char *file)
{
	int i;

	for (i = t->files->n - 1; i >= 0; i--)
		if (!strcmp(t->files->items[i], file))
			return (unsigned int)i;
	vec_push(t->arena, t->files, arena_strdup(t->arena, file));
	return (unsigned int)(t->files->n - 1);
}

static void row_cb(uint64_t addr, const char *file, int line, void *arg)
{
	struct ltab *t = arg;
	unsigned int f = 0;
	uint64_t a = addr - t->base;

	if (t->u && uelf_offset(t->u, addr, &a))
		return;
	if (t->n && a <= t->v[t->n - 1].addr) {
		t->bad = t->bad || a < t->v[t->n - 1].addr;
		return;
	}
	if (line)
		f = file_index(t, file);
	else if (t->n)
		f = t->v[t->n - 1].file;	/* a gap keeps the file */
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	t->v[t->n].addr = a;
	t->v[t->n].file = f;
	t->v[t->n].line = line;
	t->n++;
}

static void put_uleb(struct strbuf *b, uint64_t v)
{
	do {
		unsigned char c = v & 0x7f;

		v >>= 7;
		sb_putc(b, (char)(c | (v ? 0x80 : 0)));
	} while (v);
}

static void put_sleb(struct strbuf *b, int64_t v)
{
	bool more = true;

	while (more) {
		unsigned char c = v & 0x7f;

		v >>= 7;	/* arithmetic: gcc and clang */
		more = !((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40)));
		sb_putc(b, (char)(c | (more ? 0x80 : 0)));
	}
}

/* Write table NAME from t's rows: the bytes, the checkpoints, the
 * struct stp_lines naming the files array FILES.
 */
static void emit_table(struct strbuf *out, const struct ltab *t,
		       const char *name, const char *files)
{
	struct strbuf rows, chk;
	uint64_t a = 0;
	unsigned int f = 0;
	int line = 0;
	size_t i, nchk = 0;

	sb_init(&rows);
	sb_init(&chk);
	for (i = 0; i < t->n; i++) {
		const struct lrow *r = &t->v[i];
		bool nf = r->file != f;

		put_uleb(&rows, ((r->addr - a) << 1) | nf);
		if (nf)
			put_uleb(&rows, r->file);
		put_sleb(&rows, (int64_t)r->line - line);
		a = r->addr;
		f = r->file;
		line = r->line;
		if (i % LINES_STEP == 0) {
			sb_printf(&chk, "\t{ %#" PRIx64 ", %zu, %u, %d },\n",
				  a, rows.len, f, line);
			nchk++;
		}
	}
	sb_printf(out, "static const unsigned char %s_rows[] = {", name);
	for (i = 0; i < rows.len; i++)
		sb_printf(out, "%s%#x,", i % 12 ? " " : "\n\t",
			  (unsigned char)rows.buf[i]);
	sb_printf(out, "\n};\nstatic const struct stp_lchk %s_chk[] = {\n%s"
		  "};\n", name, chk.buf);
	sb_printf(out, "static const struct stp_lines %s = {\n"
		  "\t.rows = %s_rows,\n\t.len = %zu,\n\t.chk = %s_chk,\n"
		  "\t.nchk = %zu,\n\t.files = %s,\n};\n", name, name, rows.len,
		  name, nchk, files);
	sb_free(&rows);
	sb_free(&chk);
}

static void emit_files(struct strbuf *out, const struct vec *files,
		       const char *name)
{
	int i;

	sb_printf(out, "static const char *const %s[] = {\n", name);
	for (i = 0; i < files->n; i++) {
		sb_putc(out, '\t');
		sb_c_string(out, files->items[i]);
		sb_puts(out, ",\n");
	}
	sb_puts(out, "};\n");
}

bool lines_emit_user(struct session *s, struct strbuf *out, struct uelf *u,
		     int i)
{
	struct vec files = { 0 };
	struct ltab t = { .files = &files, .arena = s->arena, .u = u };
	struct kdwarf *dw = uelf_dwarf(u, kbuild_cache_dir(s), NULL);
	char name[32], fname[32];

	if (!dw || kdwarf_line_rows(dw, 0, 0, row_cb, &t) <= 0 || !t.n) {
		free(t.v);
		return false;
	}
	snprintf(name, sizeof(name), "stp_ulines_%d", i);
	snprintf(fname, sizeof(fname), "stp_ulines_%d_files", i);
	emit_files(out, &files, fname);
	emit_table(out, &t, name, fname);
	free(t.v);
	return true;
}

/* The names (kernel functions) or modules to write lines for, each
 * once.
 */
struct names_ctx {
	struct arena *arena;
	struct vec names;	/* const char * */
};

static void name_cb(const char *name, void *arg)
{
	struct names_ctx *c = arg;
	int i;

	for (i = 0; i < c->names.n; i++)
		if (!strcmp(c->names.items[i], name))
			return;
	vec_push(c->arena, &c->names, (void *)name);
}

/* One entry of stp_klines[]: a function, the table holding its rows
 * and where it starts there (0 for a table of its own).
 */
struct kl_ent {
	const char *name;
	const char *mod;	/* NULL: the kernel */
	uint64_t size, base;
	int table;
};

struct kl_set {
	struct arena *arena;
	struct vec files;	/* const char *, shared by every table */
	struct strbuf tabs;
	struct kl_ent *v;
	size_t n, cap;
	int ntab;
	/* a module being added: its table's rows */
	const char *mod;
	const struct ltab *t;
};

static void kl_add(struct kl_set *k, const char *name, const char *mod,
		   uint64_t size, uint64_t base)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		k->v = xrealloc(k->v, k->cap * sizeof(*k->v));
	}
	k->v[k->n].name = name;
	k->v[k->n].mod = mod;
	k->v[k->n].size = size;
	k->v[k->n].base = base;
	k->v[k->n].table = k->ntab;
	k->n++;
}

static int kl_cmp(const void *pa, const void *pb)
{
	const struct kl_ent *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	if (!a->mod != !b->mod)
		return a->mod ? 1 : -1;
	return a->mod ? strcmp(a->mod, b->mod) : 0;
}

/* The kernel's functions: a table each, by offset from their start. */
static void kl_kernel(struct session *s, struct kl_set *k)
{
	struct kdwarf *dw = target_kernel_dwarf_loaded(s);
	struct names_ctx nc = { s->arena, { 0 } };
	uint64_t lo, size;
	char name[32];
	int i;

	if (!dw)
		return;
	kfunc_probed_syms(s, name_cb, &nc);
	for (i = 0; i < nc.names.n; i++) {
		const char *fn = nc.names.items[i];
		struct ltab t = { .files = &k->files, .arena = s->arena };

		if (kdwarf_sym_range(dw, fn, &lo, &size) || !size)
			continue;
		t.base = lo;
		if (kdwarf_line_rows(dw, lo, lo + size, row_cb, &t) > 0 &&
		    t.n) {
			snprintf(name, sizeof(name), "stp_klines_%d", k->ntab);
			emit_table(&k->tabs, &t, name, "stp_kline_files");
			kl_add(k, fn, NULL, size, 0);
			k->ntab++;
		}
		free(t.v);
	}
}

/* Whether a row with a line starts in [lo, hi) of t. */
static bool has_row_in(const struct ltab *t, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = t->n;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (t->v[mid].addr < lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < t->n && t->v[a].addr < hi; a++)
		if (t->v[a].line > 0)
			return true;
	return false;
}

static void mod_func_cb(const char *name, uint64_t addr, uint64_t size,
			void *arg)
{
	struct kl_set *k = arg;

	if (has_row_in(k->t, addr, addr + size))
		kl_add(k, arena_strdup(k->arena, name), k->mod, size, addr);
}

/* A module's functions share one table of the whole module, by the
 * addresses libdw gave its sections; each function is found by its
 * symbol, as the kernel's are, and starts at its own address there:
 * where the module is loaded, now or later, never matters.
 */
static void kl_module(struct session *s, struct kl_set *k, const char *mod)
{
	struct kdwarf *dw = target_module_dwarf_loaded(s, mod);
	struct ltab t = { .files = &k->files, .arena = s->arena };
	char name[32];
	size_t n0;

	if (!dw || kdwarf_line_rows(dw, 0, 0, row_cb, &t) <= 0 || !t.n) {
		free(t.v);
		return;
	}
	k->mod = mod;
	k->t = &t;
	n0 = k->n;
	kdwarf_funcs(dw, mod_func_cb, k);
	if (k->n > n0) {
		snprintf(name, sizeof(name), "stp_klines_%d", k->ntab);
		emit_table(&k->tabs, &t, name, "stp_kline_files");
		k->ntab++;
	}
	free(t.v);
}

int lines_emit_kernel(struct session *s, struct strbuf *out)
{
	struct kl_set k = { .arena = s->arena };
	struct names_ctx mods = { s->arena, { 0 } };
	size_t i, n;
	int m;

	sb_init(&k.tabs);
	kl_kernel(s, &k);
	kfunc_probed_modules(s, name_cb, &mods);
	for (m = 0; m < mods.names.n; m++)
		kl_module(s, &k, mods.names.items[m]);
	n = k.n;
	if (k.n) {
		qsort(k.v, k.n, sizeof(*k.v), kl_cmp);
		sb_puts(out, "/* kernel lines: the probed functions of the "
			"kernel, the whole of the probed modules */\n");
		emit_files(out, &k.files, "stp_kline_files");
		sb_puts(out, k.tabs.buf);
		sb_puts(out,
			"static const struct stp_kline stp_klines[] = {\n");
		for (i = 0; i < k.n; i++) {
			const struct kl_ent *e = &k.v[i];

			sb_puts(out, "\t{ ");
			sb_c_string(out, e->name);
			sb_printf(out, ", %" PRIu64 ", &stp_klines_%d, ",
				  e->size, e->table);
			if (e->mod)
				sb_c_string(out, e->mod);
			else
				sb_puts(out, "NULL");
			sb_printf(out, ", %#" PRIx64 " },\n", e->base);
		}
		sb_puts(out, "};\n\n");
	}
	free(k.v);
	sb_free(&k.tabs);
	return (int)n;
}
