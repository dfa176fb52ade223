/* test-udwarf.c - unit tests for user-space programs as process probes
 * see them: translator/debuginfo/uelf.c (finding files, PT_LOAD offsets,
 * symbols, demangling, DT_NEEDED, SDT notes, PLT) and the user-space
 * part of dwarf.c (DWARF from the file or from separate debuginfo by
 * .gnu_debuglink and build-id, functions, lines, inline copies and
 * variables by address, line tables and labels).
 *
 * The programs are testsuite/programs, built by make check into
 * $TAPIR_BUILDDIR/testsuite/programs (build.sh); without them every
 * test fails.
 */
#define _GNU_SOURCE
#include "tap.h"
#include "util.h"
#include "debuginfo/dwarf.h"
#include "debuginfo/uelf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char progs[2048];

static const char *prog(const char *name)
{
	static char buf[8][4096];
	static int next;
	char *b = buf[next++ % 8];

	snprintf(b, sizeof(buf[0]), "%s/%s", progs, name);
	return b;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = s ? strlen(s) : 0, m = strlen(tail);

	return s && n >= m && !strcmp(s + n - m, tail);
}

/* ------------------------------------------------------------ paths */

static void test_resolve(void)
{
	char *err = NULL, *r, *sh = realpath("/bin/sh", NULL);
	char *old = getenv("PATH") ? xstrdup(getenv("PATH")) : NULL;

	r = uelf_resolve("sh", &err);
	tap_str_eq(r, sh, "a bare name is found in $PATH, symlinks resolved");
	free(r);
	free(sh);
	r = uelf_resolve("./tapir-no-such-file", &err);
	tap_ok(!r && err && strstr(err, "No such file"),
	       "a missing path says why: %s", err ? err : "(none)");
	free(err);
	setenv("PATH", progs, 1);
	r = uelf_resolve("trace", NULL);
	tap_str_eq(r, prog("trace"), "$PATH is searched in order");
	free(r);
	r = uelf_resolve("libc.so.6", &err);
	tap_ok(ends_with(r, "/libc.so.6"), "a library name falls back to the "
	       "library directories: %s", r ? r : err);
	free(r);
	r = uelf_resolve("tapir-no-such-command", &err);
	tap_ok(!r && err && strstr(err, "$PATH"), "a name found nowhere: %s",
	       err ? err : "(none)");
	free(err);
	if (old)
		setenv("PATH", old, 1);
	free(old);
}

static void test_open_errors(void)
{
	char *err = NULL;
	struct uelf *u = uelf_open(prog("trace.c"), &err);

	tap_ok(!u && err && strstr(err, "is not an ELF file"),
	       "a source file is not a program: %s", err ? err : "(none)");
	free(err);
	u = uelf_open(prog("no-such"), &err);
	tap_ok(!u && err && strstr(err, "cannot open"), "nor a missing one");
	free(err);
}

/* -------------------------------------------------------------- ELF */

/* The first bytes of a function compiled -O0: push %rbp (or endbr64). */
static bool looks_like_entry(const char *path, uint64_t off)
{
	unsigned char b[4] = { 0 };
	int fd = open(path, O_RDONLY);
	bool ok = fd >= 0 && pread(fd, b, 4, (off_t)off) == 4 &&
		  (b[0] == 0x55 || !memcmp(b, "\xf3\x0f\x1e\xfa", 4));

	if (fd >= 0)
		close(fd);
	return ok;
}

static void test_offsets(void)
{
	static const char *const names[] = { "trace", "trace-nopie" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct uelf *u = uelf_open(prog(names[i]), NULL);
		const struct usym *s = u ? uelf_func(u, "main") : NULL;
		uint64_t off = 0;
		bool ok;

		if (!tap_ok(s != NULL, "%s: main in its symbols", names[i])) {
			uelf_free(u);
			continue;
		}
		ok = !uelf_offset(u, s->addr, &off) &&
		     looks_like_entry(prog(names[i]), off);
		tap_ok(ok, "%s: main at 0x%llx is at file offset 0x%llx",
		       names[i], (unsigned long long)s->addr,
		       (unsigned long long)off);
		tap_ok(uelf_offset(u, 0x7fff0000, &off) == -ENOENT,
		       "%s: an address outside it has no offset", names[i]);
		tap_ok(!uelf_is_library(u), "%s is a program", names[i]);
		uelf_free(u);
	}
}

static void count_cb(const struct usym *s, void *arg)
{
	(void)s;
	++*(int *)arg;
}

static void test_symbols(void)
{
	struct uelf *u = uelf_open(prog("cxx"), NULL);
	int n = 0;

	if (!tap_ok(u != NULL, "cxx opens"))
		return;
	tap_str_eq(uelf_demangle(u, "_ZNK3geo5Point5norm2Ev"),
		   "geo::Point::norm2", "demangled, without parameters");
	tap_str_eq(uelf_demangle(u, "_Z3fooIiEvT_"), "foo<int>",
		   "a template's return type is dropped");
	tap_str_eq(uelf_demangle(u, "_ZN12_GLOBAL__N_11fEi"),
		   "(anonymous namespace)::f", "an anonymous namespace");
	tap_str_eq(uelf_demangle(u, "main"), "main", "a C name is itself");
	uelf_funcs_matching(u, "geo::Point::*", count_cb, &n);
	tap_int_eq(n, 3, "geo::Point::* matches the constructor and the two "
		   "methods");
	n = 0;
	uelf_funcs_matching(u, "twice", count_cb, &n);
	tap_int_eq(n, 1, "overloads share a name, listed once");
	uelf_free(u);

	u = uelf_open(prog("libtrace.so"), NULL);
	if (!tap_ok(u != NULL, "libtrace.so opens"))
		return;
	tap_ok(uelf_is_library(u), "libtrace.so is a library");
	tap_ok(uelf_exported(u, "lib_sum") && !uelf_exported(u, "nope"),
	       "its exports are known");
	uelf_free(u);

	u = uelf_open(prog("trace-bare"), NULL);
	tap_ok(u && !uelf_has_symtab(u) && !uelf_func(u, "compute"),
	       "a stripped program has no symbol table");
	uelf_free(u);
}

static void test_libraries(void)
{
	struct uelf *u = uelf_open(prog("uselib"), NULL);
	const char *const *needed;
	char *r;
	int n;

	if (!tap_ok(u != NULL, "uselib opens"))
		return;
	n = uelf_needed(u, &needed);
	tap_ok(n == 2 && !strcmp(needed[0], "libtrace.so") &&
	       !strcmp(needed[1], "libc.so.6"), "DT_NEEDED in order");
	r = uelf_find_library(u, "libtrace.so");
	tap_str_eq(r, prog("libtrace.so"), "found through $ORIGIN");
	free(r);
	r = uelf_find_library(u, "libc.so*");
	tap_ok(ends_with(r, "/libc.so.6"), "a glob on DT_NEEDED: %s",
	       r ? r : "NULL");
	free(r);
	r = uelf_find_library(u, "libnope.so");
	tap_ok(r == NULL, "a library it cannot have");
	free(r);
	uelf_free(u);
}

struct marks {
	int n;
	bool sem[4];
	int nargs[4];
};

static void mark_cb(const struct usdt *m, void *arg)
{
	struct marks *k = arg;
	const char *p;

	if (k->n >= 4)
		return;
	k->sem[k->n] = m->sem != 0;
	for (p = m->args; *p; p++)
		k->nargs[k->n] += *p == '@';
	k->n++;
}

static void plt_cb(const char *name, uint64_t addr, void *arg)
{
	(void)name;
	if (addr)
		++*(int *)arg;
}

static void test_notes(void)
{
	struct uelf *u = uelf_open(prog("usdt"), NULL);
	struct marks k;
	int n = 0;

	if (!tap_ok(u != NULL, "usdt opens"))
		return;
	memset(&k, 0, sizeof(k));
	uelf_sdt(u, NULL, "*", mark_cb, &k);
	tap_ok(k.n == 2 && k.sem[0] && k.sem[1] && k.nargs[0] == 3 &&
	       k.nargs[1] == 2, "two markers with semaphores, 3 and 2 "
	       "arguments");
	memset(&k, 0, sizeof(k));
	uelf_sdt(u, "tapir", "g*", mark_cb, &k);
	tap_int_eq(k.n, 1, "provider and name globs");
	uelf_free(u);

	u = uelf_open(prog("libtrace.so"), NULL);
	memset(&k, 0, sizeof(k));
	if (u)
		uelf_sdt(u, "libtrace", "summed", mark_cb, &k);
	tap_ok(k.n == 1 && !k.sem[0], "a marker without a semaphore");
	uelf_free(u);

	u = uelf_open(prog("uselib"), NULL);
	if (u)
		uelf_plt(u, "strlen", plt_cb, &n);
	if (u)
		uelf_plt(u, "lib_*", plt_cb, &n);
	tap_int_eq(n, 3, "PLT entries by name");
	uelf_free(u);
}

/* ------------------------------------------------------------ DWARF */

static void test_debuginfo(void)
{
	static const char *const cases[][2] = {
		{ "trace", "trace" },
		{ "trace-stripped", "trace-stripped.debug" },
		{ "trace-dotdebug", ".debug/trace-dotdebug.debug" },
	};
	char *err = NULL, *path;
	struct kdwarf *d;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		d = kdwarf_load_elf(prog(cases[i][0]), NULL, &err);
		tap_ok(d && ends_with(kdwarf_debug_file(d), cases[i][1]),
		       "%s: DWARF from %s", cases[i][0], d ?
		       kdwarf_debug_file(d) : err);
		kdwarf_free(d);
		free(err);
		err = NULL;
	}
	d = kdwarf_load_elf(prog("trace-buildid"), NULL, &err);
	tap_ok(!d && err, "trace-buildid: no debuginfo in the usual places");
	kdwarf_free(d);
	free(err);
	if (asprintf(&path, "%s/debug", progs) < 0)
		return;
	setenv("SYSTEMTAP_DEBUGINFO_PATH", path, 1);
	d = kdwarf_load_elf(prog("trace-buildid"), NULL, &err);
	tap_ok(d && strstr(kdwarf_debug_file(d), "/.build-id/"),
	       "trace-buildid: by build-id under $SYSTEMTAP_DEBUGINFO_PATH: "
	       "%s", d ? kdwarf_debug_file(d) : err);
	kdwarf_free(d);
	unsetenv("SYSTEMTAP_DEBUGINFO_PATH");
	free(path);
	d = kdwarf_load_elf(prog("trace-bare"), NULL, &err);
	tap_ok(!d && err && strstr(err, "no debuginfo"), "trace-bare: %s",
	       err ? err : "(loaded)");
	free(err);
}

static void count_pc(const struct kfunc *f, uint64_t pc, void *arg)
{
	(void)f;
	if (pc)
		++*(int *)arg;
}

/* The name index of a program is cached by build-id. */
static void test_index_cache(void)
{
	char dir[] = "/tmp/test-udwarf.XXXXXX", *cmd;
	struct kdwarf *d;
	int i, n[2] = { 0, 0 };
	FILE *p;

	if (!mkdtemp(dir))
		return;
	for (i = 0; i < 2; i++) {
		d = kdwarf_load_elf(prog("trace"), dir, NULL);
		if (d)
			kdwarf_func_pcs(d, "compute", count_pc, &n[i]);
		kdwarf_free(d);
	}
	if (asprintf(&cmd, "ls %s/dwarf/user/*.idx 2>/dev/null | wc -l; "
		     "rm -rf %s", dir, dir) < 0)
		return;
	p = popen(cmd, "r");
	i = -1;
	if (p && fscanf(p, "%d", &i) != 1)
		i = -1;
	if (p)
		pclose(p);
	free(cmd);
	tap_ok(i == 1, "the index is kept in CACHEDIR/dwarf/user/ID.idx");
	tap_ok(n[0] >= 1 && n[0] == n[1], "and gives the same from the cache");
}

struct funcs {
	int n;
	uint64_t pc;
	struct kfunc f;
};

static void func_cb(const struct kfunc *f, uint64_t pc, void *arg)
{
	struct funcs *k = arg;

	k->n++;
	k->pc = pc;
	k->f = *f;
}

static void line_cb(const char *func, const char *file, int line,
		    uint64_t pc, void *arg)
{
	struct funcs *k = arg;

	(void)func;
	(void)file;
	(void)line;
	k->n++;
	k->pc = pc;
}

static void inl_cb(const char *name, uint64_t pc, const char *file,
		   int line, void *arg)
{
	(void)name;
	(void)file;
	(void)line;
	if (pc)
		++*(int *)arg;
}

struct var_find {
	const char *name;
	struct kloc loc;
	const struct ktype *type;
	bool found;
};

static void var_cb(const char *name, const struct ktype *type,
		   const struct kloc *loc, bool is_param, void *arg)
{
	struct var_find *v = arg;

	(void)is_param;
	if (!v->found && !strcmp(name, v->name)) {
		v->found = true;
		v->loc = *loc;
		v->type = type;
	}
}

static void test_places(void)
{
	struct kdwarf *d = kdwarf_load_elf(prog("trace"), NULL, NULL);
	struct uelf *u = uelf_open(prog("trace"), NULL);
	const struct usym *s = u ? uelf_func(u, "compute") : NULL;
	const struct usym *m = u ? uelf_func(u, "main") : NULL;
	struct var_find v = { "ret", { 0 }, NULL, false };
	struct funcs k;
	int n = 0;

	if (!tap_ok(d && s && m, "trace: DWARF and symbols"))
		goto out;
	memset(&k, 0, sizeof(k));
	kdwarf_func_pcs(d, "compute", func_cb, &k);
	tap_ok(k.n == 1 && k.pc == s->addr, "compute's entry is its symbol");
	tap_ok(k.f.nparams == 2 && !strcmp(k.f.params[1].name, "p") &&
	       !strcmp(k.f.params[1].type->name, "struct point*"),
	       "its parameters from DWARF");
	tap_str_eq(k.f.file, prog("trace.c"), "its file is absolute");
	memset(&k, 0, sizeof(k));
	kdwarf_lines_pc(d, "main", "trace.c", 49, 49, line_cb, &k);
	tap_ok(k.n == 1 && k.pc > m->addr && k.pc < m->addr + m->size,
	       "main@trace.c:49 is one place inside main");
	kdwarf_vars_at_pc(d, k.pc, var_cb, &v);
	tap_ok(v.found && v.loc.kind == KLOC_MEM && v.type &&
	       !strcmp(v.type->name, "int"), "ret is an int in memory there "
	       "(frame base from .eh_frame)");
	kdwarf_free(d);
	d = kdwarf_load_elf(prog("trace-O2"), NULL, NULL);
	if (d)
		kdwarf_inline_pcs(d, "square", inl_cb, &n);
	tap_ok(n >= 1, "trace-O2: square is inlined (%d copies)", n);
out:
	kdwarf_free(d);
	uelf_free(u);
}

/* ------------------------------------------------ line rows, labels */

struct rows {
	int n, bad_order, lines[64];
	uint64_t last, lo, hi;
	bool outside, foreign;
};

static void row_cb(uint64_t addr, const char *file, int line, void *arg)
{
	struct rows *r = arg;

	if (r->n && addr <= r->last)
		r->bad_order++;
	if (r->hi && (addr < r->lo || addr >= r->hi))
		r->outside = true;
	if (line && !ends_with(file, "/trace.c"))
		r->foreign = true;
	if (r->n < 64)
		r->lines[r->n] = line;
	r->last = addr;
	r->n++;
}

static void label_cb(const struct klabel *l, void *arg)
{
	struct klabel *out = arg;
	int i = 0;

	while (out[i].label && i < 3)
		i++;
	if (i < 3)
		out[i] = *l;
}

static void test_rows_labels(void)
{
	struct kdwarf *d = kdwarf_load_elf(prog("trace"), NULL, NULL);
	struct uelf *u = uelf_open(prog("trace"), NULL);
	const struct usym *add = u ? uelf_func(u, "add") : NULL;
	struct klabel l[4];
	struct rows r;
	uint64_t a = 0, sz = 0;
	int n;

	if (!tap_ok(d && add, "trace: DWARF and add"))
		goto out;
	memset(&r, 0, sizeof(r));
	n = kdwarf_line_rows(d, 0, 0, row_cb, &r);
	tap_ok(n > 20 && n == r.n && !r.bad_order && !r.foreign,
	       "the whole table: %d rows by rising address, all of trace.c",
	       n);
	tap_ok(!kdwarf_sym_range(d, "add", &a, &sz) && a == add->addr &&
	       sz == add->size, "add's range is its symbol's");
	memset(&r, 0, sizeof(r));
	r.lo = a;
	r.hi = a + sz;
	n = kdwarf_line_rows(d, a, a + sz, row_cb, &r);
	/* trace.c:20-23: the brace, the return, the closing brace */
	tap_ok(n == 3 && !r.outside && r.lines[0] == 21 && r.lines[1] == 22 &&
	       r.lines[2] == 23, "add's rows: lines 21, 22, 23 (%d rows)", n);
	tap_ok(kdwarf_sym_range(d, "no_such_function", &a, &sz) == -ENOENT,
	       "an unknown symbol has no range");
	kdwarf_free(d);
	d = kdwarf_load_elf(prog("labels"), NULL, NULL);
	memset(l, 0, sizeof(l));
	n = d ? kdwarf_labels(d, "classify", "*", label_cb, l) : -1;
	/* labels.c: negative at line 19, out at line 21, in that order */
	tap_ok(n == 2 && !strcmp(l[0].label, "negative") &&
	       l[0].line == 19 && !strcmp(l[1].label, "out") &&
	       l[1].line == 21 && l[0].pc < l[1].pc &&
	       !strcmp(l[0].at.sym, "classify") && l[0].at.offset > 0,
	       "classify's labels, by address, inside classify");
	memset(l, 0, sizeof(l));
	tap_ok(d && kdwarf_labels(d, "c*", "o?t", label_cb, l) == 1 &&
	       !strcmp(l[0].label, "out"), "globs on function and label");
	tap_ok(d && kdwarf_labels(d, "main", "*", label_cb, l) == 0,
	       "main has no label");
out:
	kdwarf_free(d);
	uelf_free(u);
}

/* globals.c: counter (int), config (struct config), label (static) */
static void test_globals(void)
{
	struct kdwarf *d = kdwarf_load_elf(prog("globals"), NULL, NULL);
	struct uelf *u = uelf_open(prog("globals"), NULL);
	const struct ktype *t = NULL, *t2 = NULL;
	const char *why = NULL;
	uint64_t a = 0, a2 = 0, off;

	if (!tap_ok(d && u, "globals: DWARF and ELF"))
		goto out;
	/* counter is in .bss, past the file's bytes: no file offset */
	tap_ok(!kdwarf_global(d, "counter", NULL, &t, &a, &why) && t &&
	       !strcmp(ktype_name(t), "int") && a, "counter: an int");
	tap_ok(!kdwarf_global(d, "config", "globals.c", &t, &a2, &why) &&
	       t && t->kind == KT_STRUCT && a2 != a &&
	       !uelf_offset(u, a2, &off), "config@globals.c: a struct in "
	       "the file's data");
	tap_ok(!kdwarf_global(d, "label", NULL, &t2, &a, &why) && t2 &&
	       t2->kind == KT_PTR && a != a2, "label, a static: a pointer");
	tap_ok(kdwarf_global(d, "config", "other.c", &t, &a, &why) ==
	       -ENOENT, "no config in a unit other.c");
	tap_ok(kdwarf_global(d, "config", "obals.c", &t, &a, &why) ==
	       -ENOENT, "a unit's name matches after a '/' only");
	tap_ok(kdwarf_global(d, "step", NULL, &t, &a, &why) == -ENOENT &&
	       kdwarf_global(d, "i", NULL, &t, &a, &why) == -ENOENT,
	       "a function, a parameter: not variables at file scope");
out:
	kdwarf_free(d);
	uelf_free(u);
}

/* entryval.c, -O2: dead()'s a is in rdi at the entry, then (once the
 * first call may have clobbered rdi) only its value at the entry: a
 * KLOC_ENTRY, which says why a probe there alone cannot read it.
 */
static void test_entry_value(void)
{
	struct kdwarf *d = kdwarf_load_elf(prog("entryval"), NULL, NULL);
	struct uelf *u = uelf_open(prog("entryval"), NULL);
	const struct usym *s = u ? uelf_func(u, "dead") : NULL;
	struct var_find v = { "a", { 0 }, NULL, false };
	const struct ktype *t = NULL;
	const char *why = NULL, *seen = NULL;
	uint64_t pc, a = 0;

	if (!tap_ok(d && s, "entryval: DWARF and symbols"))
		goto out;
	kdwarf_vars_at_pc(d, s->addr, var_cb, &v);
	tap_ok(v.found && v.loc.kind == KLOC_REG && v.loc.reg &&
	       !strcmp(v.loc.reg, "di"), "dead: a in di at its entry");
	for (pc = s->addr + 1; pc < s->addr + s->size && !seen; pc++) {
		memset(&v, 0, sizeof(v));
		v.name = "a";
		kdwarf_vars_at_pc(d, pc, var_cb, &v);
		if (v.found && v.loc.kind == KLOC_ENTRY && v.loc.why &&
		    strstr(v.loc.why, "DW_OP_entry_value"))
			seen = v.loc.why;
	}
	tap_ok(seen && strstr(seen, "only a probe on the function's entry") &&
	       v.loc.reg && !strcmp(v.loc.reg, "di") && !v.loc.deref &&
	       v.loc.symbol && !strcmp(v.loc.symbol, "dead"),
	       "past the call, a is di at dead's entry (for a probe that "
	       "keeps it there; alone: %s)", seen ? seen : "(no such place)");
	tap_ok(!kdwarf_global(d, "asm_defined", NULL, &t, &a, &why) && t &&
	       !strcmp(ktype_name(t), "long int") && a,
	       "a variable C only declares: its type from the declaration, "
	       "its address from the symbol table");
out:
	kdwarf_free(d);
	uelf_free(u);
}

int main(void)
{
	const char *b = getenv("TAPIR_BUILDDIR");
	char *dir;

	snprintf(progs, sizeof(progs), "%s/testsuite/programs",
		 b ? b : ".");
	dir = realpath(progs, NULL);
	if (dir)
		snprintf(progs, sizeof(progs), "%s", dir);
	free(dir);
	tap_diag("programs in %s", progs);
	test_resolve();
	test_open_errors();
	test_offsets();
	test_symbols();
	test_libraries();
	test_notes();
	test_debuginfo();
	test_index_cache();
	test_places();
	test_rows_labels();
	test_globals();
	test_entry_value();
	return tap_done();
}
