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

struct ksyms_ctx {
	struct arena *arena;
	struct vec names;	/* const char *, each once */
};

static void ksym_cb(const char *sym, void *arg)
{
	struct ksyms_ctx *c = arg;
	int i;

	for (i = 0; i < c->names.n; i++)
		if (!strcmp(c->names.items[i], sym))
			return;
	vec_push(c->arena, &c->names, (void *)sym);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int lines_emit_kernel(struct session *s, struct strbuf *out)
{
	struct kdwarf *dw = target_kernel_dwarf_loaded(s);
	struct ksyms_ctx k = { s->arena, { 0 } };
	struct vec *names = &k.names, files = { 0 }, done = { 0 };
	struct strbuf tabs;
	uint64_t lo, size;
	char name[32];
	int i, n = 0;

	if (!dw)
		return 0;
	kfunc_probed_syms(s, ksym_cb, &k);
	if (!names->n)
		return 0;
	qsort(names->items, (size_t)names->n, sizeof(void *), name_cmp);
	sb_init(&tabs);
	for (i = 0; i < names->n; i++) {
		struct ltab t = { .files = &files, .arena = s->arena };

		if (kdwarf_sym_range(dw, names->items[i], &lo, &size) ||
		    !size)
			continue;
		t.base = lo;
		if (kdwarf_line_rows(dw, lo, lo + size, row_cb, &t) > 0 &&
		    t.n) {
			snprintf(name, sizeof(name), "stp_klines_%d", n);
			emit_table(&tabs, &t, name, "stp_kline_files");
			vec_push(s->arena, &done, names->items[i]);
			vec_push(s->arena, &done, arena_printf(s->arena,
				"%" PRIu64, size));
			n++;
		}
		free(t.v);
	}
	if (n) {
		sb_puts(out, "/* kernel lines: the probed functions */\n");
		emit_files(out, &files, "stp_kline_files");
		sb_puts(out, tabs.buf);
		sb_puts(out,
			"static const struct stp_kline stp_klines[] = {\n");
		for (i = 0; i < n; i++) {
			sb_puts(out, "\t{ ");
			sb_c_string(out, done.items[2 * i]);
			sb_printf(out, ", %s, &stp_klines_%d },\n",
				  (const char *)done.items[2 * i + 1], i);
		}
		sb_puts(out, "};\n\n");
	}
	sb_free(&tabs);
	return n;
}
