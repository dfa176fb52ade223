/* usyms.c - pass 3: per user object, its functions by file offset, as
 * the tables of runtime/stp_usym.h; the runtime finds an address's
 * object through the process's mappings, by path.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "usyms.h"
#include "lines.h"
#include "session.h"
#include "util.h"
#include "debuginfo/uelf.h"

struct usyms_obj {
	struct uelf *u;
	bool owned;		/* opened here, freed here */
};

struct usyms_fn {
	uint64_t off;
	uint64_t size;
	const char *name;
};

struct usyms_fns {
	const struct uelf *u;
	struct usyms_fn *v;
	size_t n, cap;
};

static bool have_path(const struct vec *objs, const char *path)
{
	int i;

	for (i = 0; i < objs->n; i++) {
		const struct usyms_obj *o = objs->items[i];

		if (!strcmp(uelf_path(o->u), path))
			return true;
	}
	return false;
}

static void add_obj(struct session *s, struct vec *objs, struct uelf *u,
		    bool owned)
{
	struct usyms_obj *o;

	if (have_path(objs, uelf_path(u))) {
		if (owned)
			uelf_free(u);
		return;
	}
	o = arena_alloc(s->arena, sizeof(*o));
	o->u = u;
	o->owned = owned;
	vec_push(s->arena, objs, o);
}

/* name as -d gives it (or a library path); ignored when it is not a
 * user-space ELF object (-d also takes kernel modules, which kallsyms
 * covers).
 */
static void open_obj(struct session *s, struct vec *objs, const char *name)
{
	char *err = NULL, *path = uelf_resolve(name, &err);
	struct uelf *u;

	free(err);
	if (!path)
		return;
	err = NULL;
	if (!have_path(objs, path)) {
		u = uelf_open(path, &err);
		free(err);
		if (u)
			add_obj(s, objs, u, true);
	}
	free(path);
}

static void add_needed(struct session *s, struct vec *objs, int upto)
{
	const char *const *names;
	int i, j, n;

	for (i = 0; i < upto; i++) {
		const struct usyms_obj *o = objs->items[i];
		char *lib;

		n = uelf_needed(o->u, &names);
		for (j = 0; j < n; j++) {
			lib = uelf_find_library(o->u, names[j]);
			if (lib)
				open_obj(s, objs, lib);
			free(lib);
		}
	}
}

static void fn_cb(const struct usym *sym, void *arg)
{
	struct usyms_fns *f = arg;
	uint64_t off;

	if (uelf_offset(f->u, sym->addr, &off))
		return;
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 256;
		f->v = xrealloc(f->v, f->cap * sizeof(*f->v));
	}
	f->v[f->n].off = off;
	f->v[f->n].size = sym->size;
	f->v[f->n].name = sym->linkage ? sym->linkage : sym->name;
	f->n++;
}

static int fn_cmp(const void *a, const void *b)
{
	const struct usyms_fn *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	/* of aliases, the one with a size, then by name */
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* One row of the unwind table (runtime/stp_usym.h struct stp_ucfi). */
struct usyms_row {
	uint64_t off;
	uint64_t len;
	int64_t cfa_off;
	int64_t bp_off;
	int cfa_reg;
};

struct usyms_rows {
	struct usyms_row *v;
	size_t n, cap;
};

/* "saved at CFA + N" as libdw gives a register rule; false for any
 * other rule (same value, undefined, expressions).
 */
static bool saved_at_cfa(Dwarf_Frame *fr, int reg, int64_t *n)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0;

	if (dwarf_frame_register(fr, reg, mem, &ops, &nops) || !ops)
		return false;
	if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*n = 0;
		return true;
	}
	if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    ops[1].atom == DW_OP_plus_uconst) {
		*n = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

/* The row of fr, when it is one the runtime can follow: the CFA from
 * %rsp or %rbp plus a constant, the return address just below it.
 */
static bool frame_row(Dwarf_Frame *fr, struct usyms_row *r)
{
	Dwarf_Op *ops;
	size_t nops;
	int64_t ra;

	if (dwarf_frame_cfa(fr, &ops, &nops) || nops != 1 ||
	    ops[0].atom != DW_OP_bregx || (ops[0].number != 6 &&
					   ops[0].number != 7))
		return false;
	r->cfa_reg = (int)ops[0].number;
	r->cfa_off = (int64_t)ops[0].number2;
	if (!saved_at_cfa(fr, 16, &ra) || ra != -8)
		return false;
	if (!saved_at_cfa(fr, 6, &r->bp_off))
		r->bp_off = 0;
	return r->cfa_off > -32768 && r->cfa_off < 32768 &&
	       r->bp_off > -32768 && r->bp_off < 32768;
}

static void push_row(struct usyms_rows *rows, const struct usyms_row *r)
{
	struct usyms_row *last = rows->n ? &rows->v[rows->n - 1] : NULL;

	/* a row that goes on with the same rule extends the last one */
	if (last && last->off + last->len == r->off &&
	    last->cfa_reg == r->cfa_reg && last->cfa_off == r->cfa_off &&
	    last->bp_off == r->bp_off) {
		last->len += r->len;
		return;
	}
	if (rows->n == rows->cap) {
		rows->cap = rows->cap ? 2 * rows->cap : 256;
		rows->v = xrealloc(rows->v, rows->cap * sizeof(*rows->v));
	}
	rows->v[rows->n++] = *r;
}

/* The rows of the code at link-time [lo, hi), file offset off_lo at
 * lo, walked range by range; an address no FDE covers (padding between
 * functions) is stepped over.
 */
static void code_rows(Dwarf_CFI *cfi, uint64_t lo, uint64_t hi,
		      uint64_t off_lo, struct usyms_rows *rows)
{
	Dwarf_Addr a = lo, start, end;
	Dwarf_Frame *fr;
	struct usyms_row r;

	while (a < hi) {
		if (dwarf_cfi_addrframe(cfi, a, &fr)) {
			a++;
			continue;
		}
		if (dwarf_frame_info(fr, &start, &end, NULL) < 0 ||
		    end <= a) {
			free(fr);
			a++;
			continue;
		}
		if (end > hi)
			end = hi;
		if (frame_row(fr, &r)) {
			r.off = off_lo + (a - lo);
			r.len = end - a;
			push_row(rows, &r);
		}
		free(fr);
		a = end;
	}
}

/* The rows of every executable segment of elf. */
static void elf_rows(Elf *elf, Dwarf_CFI *cfi, struct usyms_rows *rows)
{
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		code_rows(cfi, ph.p_vaddr, ph.p_vaddr + ph.p_filesz,
			  ph.p_offset, rows);
	}
}

/* The unwind table of object i from its .eh_frame (or .debug_frame),
 * for all of its code; returns how many rows.
 */
static size_t emit_cfi(struct strbuf *out, const char *path, int i)
{
	struct usyms_rows rows = { 0 };
	Dwarf_CFI *cfi = NULL;
	Elf *elf = NULL;
	size_t j;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd >= 0)
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf)
		cfi = dwarf_getcfi_elf(elf);
	if (cfi)
		elf_rows(elf, cfi, &rows);
	if (cfi)
		dwarf_cfi_end(cfi);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	if (!rows.n)
		return 0;
	sb_printf(out, "static const struct stp_ucfi stp_ucfi_%d[] = {\n", i);
	for (j = 0; j < rows.n; j++)
		sb_printf(out, "\t{ %#" PRIx64 ", %" PRIu64 ", %" PRId64
			  ", %" PRId64 ", %d },\n", rows.v[j].off,
			  rows.v[j].len, rows.v[j].cfa_off, rows.v[j].bp_off,
			  rows.v[j].cfa_reg);
	sb_puts(out, "};\n");
	free(rows.v);
	return rows.n;
}

static void c_str(struct strbuf *out, const char *s)
{
	sb_putc(out, '"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			sb_printf(out, "\\%c", ch);
		else if (ch < ' ' || ch > '~')
			sb_printf(out, "\\%03o", ch);
		else
			sb_putc(out, (char)ch);
	}
	sb_putc(out, '"');
}

/* The tables of object i: its functions, into *nsyms, and the unwind
 * rows of its code, into *ncfi.
 */
static void emit_tables(struct strbuf *out, const struct uelf *u, int i,
			size_t *nsyms, size_t *ncfi)
{
	struct usyms_fns f = { .u = u };
	size_t j, n = 0;

	uelf_funcs_matching(u, "*", fn_cb, &f);
	if (f.n)
		qsort(f.v, f.n, sizeof(*f.v), fn_cmp);
	sb_printf(out, "static const struct stp_usym stp_usyms_%d[] = {\n",
		  i);
	for (j = 0; j < f.n; j++) {
		if (j && f.v[j].off == f.v[j - 1].off)
			continue;
		sb_printf(out, "\t{ %#" PRIx64 ", %#" PRIx64 ", ",
			  f.v[j].off, f.v[j].size);
		c_str(out, f.v[j].name);
		sb_puts(out, " },\n");
		n++;
	}
	if (!n)
		sb_puts(out, "\t{ 0, 0, \"\" },\n");
	sb_puts(out, "};\n");
	*nsyms = n;
	*ncfi = emit_cfi(out, uelf_path(u), i);
	free(f.v);
}

int usyms_emit(struct session *s, struct strbuf *out)
{
	struct vec objs = { 0 };
	size_t *counts;
	bool *lines;
	int i, direct;

	for (i = 0; i < s->user_objs.n; i++)
		add_obj(s, &objs, s->user_objs.items[i], false);
	for (i = 0; i < s->opt.debug_objs.n; i++)
		open_obj(s, &objs, s->opt.debug_objs.items[i]);
	direct = objs.n;
	if (s->opt.ldd)
		add_needed(s, &objs, direct);
	if (!objs.n)
		return 0;
	counts = arena_alloc(s->arena, 2 * (size_t)objs.n * sizeof(*counts));
	lines = arena_alloc(s->arena, (size_t)objs.n * sizeof(*lines));
	sb_puts(out, "/* user objects: functions and unwind rows by file "
		"offset */\n");
	for (i = 0; i < objs.n; i++) {
		const struct usyms_obj *o = objs.items[i];

		emit_tables(out, o->u, i, &counts[2 * i], &counts[2 * i + 1]);
		lines[i] = lines_wanted(s) &&
			   lines_emit_user(s, out, o->u, i);
	}
	sb_puts(out, "static const struct stp_uobj stp_uobjs[] = {\n");
	for (i = 0; i < objs.n; i++) {
		const struct usyms_obj *o = objs.items[i];

		sb_puts(out, "\t{\n\t\t.path = ");
		c_str(out, uelf_path(o->u));
		sb_printf(out, ",\n\t\t.syms = stp_usyms_%d,\n"
			  "\t\t.nsyms = %zu,\n", i, counts[2 * i]);
		if (counts[2 * i + 1])
			sb_printf(out, "\t\t.cfi = stp_ucfi_%d,\n"
				  "\t\t.ncfi = %zu,\n", i, counts[2 * i + 1]);
		if (lines[i])
			sb_printf(out, "\t\t.lines = &stp_ulines_%d,\n", i);
		sb_puts(out, "\t},\n");
	}
	sb_printf(out, "};\n\nstatic struct inode *stp_uobj_inodes[%d];\n\n",
		  objs.n);
	for (i = 0; i < objs.n; i++) {
		struct usyms_obj *o = objs.items[i];

		if (o->owned)
			uelf_free(o->u);
	}
	return objs.n;
}
