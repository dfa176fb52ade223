/* test-dwarf.c - unit tests for translator/debuginfo/dwarf.c against the
 * -dbg package of Debian's 6.1 kernel: the name index and its cache, the
 * ksrc ops agreeing with BTF, line places, inline instances and where
 * variables live.
 *
 * Without the -dbg package the test fails, since the DWARF source would
 * otherwise go untested unnoticed; TAPIR_NO_KERNEL_DBG=1 turns that into
 * "# SKIP" results, which the check driver counts apart from passes.
 */
#define _GNU_SOURCE
#include "tap.h"
#include "util.h"
#include "debuginfo/btf.h"
#include "debuginfo/dwarf.h"
#include "debuginfo/kmod.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The installed 6.1 kernel (the one scripts/setup-deps --dbg gives
 * debuginfo), found at run time so that a kernel update needs no edit.
 */
static char KVER[128] = "6.1.0-56-amd64";
static char VMLINUX[256];

static void pick_kernel(void)
{
	FILE *p = popen("ls /lib/modules 2>/dev/null | grep '^6\\.1\\.' | "
			"sort -V | tail -n 1", "r");

	if (p) {
		if (fgets(KVER, sizeof(KVER), p))
			KVER[strcspn(KVER, "\n")] = '\0';
		pclose(p);
	}
	snprintf(VMLINUX, sizeof(VMLINUX), "/usr/lib/debug/boot/vmlinux-%s",
		 KVER);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------ load, cache */

static struct kdwarf *test_load(const char *cache)
{
	struct kdwarf *d;
	char *err = NULL, *idx;
	double t0, cold, warm;
	FILE *f;

	t0 = now();
	d = kdwarf_load(KVER, cache, &err);
	cold = now() - t0;
	if (!tap_ok(d != NULL, "cold load (index built)")) {
		tap_diag("error: %s", err ? err : "(none)");
		free(err);
		return NULL;
	}
	tap_diag("cold load %.2f s", cold);
	kdwarf_free(d);

	if (asprintf(&idx, "%s/dwarf/%s.idx", cache, KVER) < 0)
		return NULL;
	tap_ok(access(idx, R_OK) == 0, "index cached at %s", idx);
	t0 = now();
	d = kdwarf_load(KVER, cache, &err);
	warm = now() - t0;
	tap_ok(d != NULL, "cached load");
	tap_diag("cached load %.3f s", warm);
	tap_ok(warm < cold / 4, "cached load is much faster than cold");
	kdwarf_free(d);

	/* A damaged index is rebuilt, not trusted. */
	f = fopen(idx, "r+");
	if (f) {
		fputs("garbage", f);
		fclose(f);
	}
	d = kdwarf_load(KVER, cache, &err);
	tap_ok(d && kdwarf_src(d)->ops->func(kdwarf_src(d), "vfs_read",
		&(struct kfunc){ 0 }) == 0,
	       "a damaged index is rebuilt");
	free(idx);
	return d;
}

static void test_bogus(const char *cache)
{
	char *err = NULL;
	struct kdwarf *d = kdwarf_load("0.0.0-no-such-kernel", cache, &err);

	tap_ok(d == NULL, "a kernel without debuginfo gives NULL");
	tap_str_eq(err, "no kernel debuginfo: install "
		   "linux-image-0.0.0-no-such-kernel-dbg (or name where it "
		   "is in SYSTEMTAP_DEBUGINFO_PATH)",
		   "its error says which package to install");
	free(err);
	err = NULL;
	d = kdwarf_load("../etc", cache, &err);
	tap_ok(d == NULL && err, "a release with a slash is refused");
	free(err);
}

/* ---------------------------------------------------- ktype.h ops */

static void test_vfs_read(const struct ksrc *s)
{
	static const char *const names[] = { "file", "buf", "count", "pos" };
	static const char *const types[] = {
		"struct file*", "char*", "size_t", "loff_t*"
	};
	const struct ktype *file;
	struct kfunc f;
	int i;

	tap_str_eq(s->ops->name, "DWARF", "the source is called DWARF");
	if (!tap_int_eq(s->ops->func(s, "vfs_read", &f), 0, "vfs_read found"))
		return;
	tap_int_eq(f.nparams, 4, "vfs_read has 4 params");
	for (i = 0; i < 4 && i < f.nparams; i++) {
		tap_str_eq(f.params[i].name, names[i], "vfs_read param %d", i);
		tap_str_eq(f.params[i].type->name, types[i],
			   "vfs_read param %d type", i);
	}
	tap_str_eq(f.ret->name, "ssize_t", "vfs_read returns ssize_t");
	tap_ok(!f.variadic, "vfs_read is not variadic");
	tap_str_eq(f.file, "fs/read_write.c", "vfs_read is declared in "
		   "fs/read_write.c (build directory stripped)");
	tap_int_eq(f.line, 450, "vfs_read is declared at line 450");
	tap_int_eq(s->ops->func(s, "no_such_function_xyz", &f), -ENOENT,
		   "an unknown function gives -ENOENT");

	if (tap_int_eq(s->ops->type_by_name(s, "struct file", &file), 0,
		       "struct file found") &&
	    s->ops->func(s, "vfs_read", &f) == 0)
		tap_ok(f.params[0].type->kind == KT_PTR &&
		       f.params[0].type->target == file,
		       "vfs_read's struct file* points at the one struct "
		       "file ktype (the same type across units)");
}

static void test_types(const struct ksrc *s, struct kbtf *b)
{
	const struct ktype *t, *t2;
	struct kbtf_member bm;
	struct kmember m;
	int r;

	r = s->ops->type_by_name(s, "struct file", &t);
	if (!tap_int_eq(r, 0, "type_by_name(struct file)"))
		return;
	tap_ok(t->kind == KT_STRUCT && t->size > 0, "struct file is a "
	       "complete struct of %u bytes", t->size);
	s->ops->type_by_name(s, "struct file", &t2);
	tap_ok(t == t2, "a type is one ktype: pointers compare");
	r = ktype_member(t, "f_pos", &m);
	if (tap_int_eq(r, 0, "struct file has f_pos") &&
	    tap_int_eq(kbtf_member(b, "struct file", "f_pos", &bm), 0,
		       "BTF knows f_pos too")) {
		tap_int_eq((long long)m.offset, (long long)bm.offset,
			   "f_pos offset %lu agrees with BTF", m.offset);
		tap_str_eq(m.type->name, bm.type, "f_pos type agrees with BTF");
	}
	tap_int_eq(s->ops->member_at(s, t, 10000, &m), -ENOENT,
		   "member_at past the end gives -ENOENT");

	r = s->ops->type_by_name(s, "unsigned long", &t);
	tap_ok(r == 0 && !strcmp(t->name, "long unsigned int") &&
	       t->size == 8 && !t->is_signed,
	       "unsigned long is DWARF's long unsigned int");
	r = s->ops->type_by_name(s, "struct file *", &t);
	tap_ok(r == 0 && t->kind == KT_PTR && !strcmp(t->name, "struct file*"),
	       "type_by_name takes pointers: struct file*");
	r = s->ops->type_by_name(s, "size_t", &t);
	tap_ok(r == 0 && t->kind == KT_INT && t->size == 8 &&
	       !strcmp(t->name, "size_t"), "size_t keeps its name, shape "
	       "of an 8-byte integer");
	r = s->ops->type_by_name(s, "enum pid_type", &t);
	if (tap_ok(r == 0 && t->kind == KT_ENUM, "enum pid_type found"))
		tap_str_eq(s->ops->enum_name(s, t, 1), "PIDTYPE_TGID",
			   "enum_name(pid_type, 1)");
	tap_int_eq(s->ops->type_by_name(s, "struct no_such_xyz", &t),
		   -ENOENT, "an unknown type gives -ENOENT");
}

/* Every named member, found through anonymous ones as C finds it
 * (ktype_member), must agree with BTF's on offset, type spelling and
 * shape, and bitfield position.
 */
static void members_vs_btf(const struct ksrc *s, const struct ktype *bt,
			   const char *top, const struct ktype *t,
			   unsigned long base, int *total, int *bad)
{
	struct kmember m, bm;
	int i;

	for (i = 0; !s->ops->member_at(s, t, i, &m); i++) {
		unsigned long off = base + m.offset;

		if (!*m.name) {
			members_vs_btf(s, bt, top, m.type, off, total, bad);
			continue;
		}
		(*total)++;
		if (ktype_member(bt, m.name, &bm)) {
			(*bad)++;
			tap_diag("%s.%s: not in BTF", top, m.name);
		} else if (bm.offset != off ||
			   strcmp(bm.type->name, m.type->name) ||
			   bm.type->kind != m.type->kind ||
			   bm.type->size != m.type->size ||
			   bm.bit_size != m.bit_size ||
			   bm.bit_offset != m.bit_offset) {
			(*bad)++;
			tap_diag("%s.%s: BTF %lu %s (%d, %u) %u:%u, DWARF %lu "
				 "%s (%d, %u) %u:%u", top, m.name, bm.offset,
				 bm.type->name, bm.type->kind, bm.type->size,
				 bm.bit_offset, bm.bit_size, off, m.type->name,
				 m.type->kind, m.type->size, m.bit_offset,
				 m.bit_size);
		}
	}
}

static void test_members(const struct ksrc *s, struct kbtf *b)
{
	static const char *const structs[] = {
		"struct file", "struct task_struct", "struct inode",
		"struct sk_buff", "struct file_operations",
		"struct super_block", "struct page", "struct mm_struct",
		"struct sock", "struct pt_regs", "struct dentry",
		"struct net_device", "struct bio", "struct module",
	};
	int total = 0, bad = 0;
	size_t i;

	const struct ksrc *bs = kbtf_src(b);

	for (i = 0; i < ARRAY_SIZE(structs); i++) {
		const struct ktype *t, *bt;

		if (s->ops->type_by_name(s, structs[i], &t) ||
		    bs->ops->type_by_name(bs, structs[i], &bt)) {
			bad++;
			tap_diag("%s: not found", structs[i]);
			continue;
		}
		if (t->size != bt->size) {
			bad++;
			tap_diag("%s: %u bytes, BTF says %u", structs[i],
				 t->size, bt->size);
		}
		members_vs_btf(s, bt, structs[i], t, 0, &total, &bad);
	}
	tap_ok(total > 1000 && bad == 0, "%d members of %zu structs agree "
	       "with BTF (%d differ)", total, ARRAY_SIZE(structs), bad);
}

/* --------------------------------------------- signatures vs BTF */

struct names {
	char **v;
	int n, cap;
};

static void add_name(const char *name, void *arg)
{
	struct names *x = arg;

	if (x->n == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 1024;
		x->v = xrealloc(x->v, (size_t)x->cap * sizeof(*x->v));
	}
	x->v[x->n++] = xstrdup(name);
}

static void free_names(struct names *x)
{
	int i;

	for (i = 0; i < x->n; i++)
		free(x->v[i]);
	free(x->v);
}

static bool has_name(const struct names *x, const char *name)
{
	int i;

	for (i = 0; i < x->n; i++)
		if (!strcmp(x->v[i], name))
			return true;
	return false;
}

static void kfunc_str(const struct kfunc *f, struct strbuf *sb)
{
	int i;

	sb_printf(sb, "%s (", f->ret->name);
	for (i = 0; i < f->nparams; i++)
		sb_printf(sb, "%s%s %s", i ? ", " : "",
			  f->params[i].type->name, f->params[i].name);
	sb_printf(sb, "%s)", f->variadic ? ", ..." : "");
}

/* Same kind, size and sign, down the pointers and arrays: what code
 * generation takes from a type.
 */
static bool same_shape(const struct ktype *a, const struct ktype *b)
{
	int depth;

	for (depth = 0; a && b && depth < 4; depth++) {
		if (a->kind != b->kind || a->size != b->size ||
		    a->is_signed != b->is_signed || a->is_char != b->is_char ||
		    a->nelem != b->nelem || strcmp(a->name, b->name))
			return false;
		a = a->target;
		b = b->target;
	}
	return depth == 4 || (!a && !b);
}

struct instance_match {
	const char *want;
	bool found;
};

static void match_instance(const struct kfunc *f, void *arg)
{
	struct instance_match *m = arg;
	struct strbuf sb;

	sb_init(&sb);
	kfunc_str(f, &sb);
	if (!strcmp(sb.buf, m->want))
		m->found = true;
	sb_free(&sb);
}

enum mismatch {
	SAME,
	OTHER_INSTANCE,	/* a same-named static elsewhere matches BTF */
	INLINE_ONLY,	/* BTF describes a definition that was only inlined */
	WEAK_STUB,	/* BTF describes kernel/sys_ni.c's weak stub */
	OTHER_DEF,	/* BTF describes another definition of the name */
	SPELLING,	/* same parameters, a type spelled differently */
	SHAPE,		/* same spelling, different kind/size/sign */
	MISSING,	/* DWARF has no such function */
	NKINDS,
};

static bool shapes_agree(const struct kfunc *bf, const struct kfunc *df)
{
	int i;

	if (!same_shape(bf->ret, df->ret))
		return false;
	for (i = 0; i < bf->nparams; i++)
		if (!same_shape(bf->params[i].type, df->params[i].type))
			return false;
	return true;
}

static bool some_def_is(struct kdwarf *d, const char *name, const char *want,
			int (*all)(struct kdwarf *, const char *,
				   void (*)(const struct kfunc *, void *),
				   void *))
{
	struct instance_match im = { want, false };

	all(d, name, match_instance, &im);
	return im.found;
}

/* Why BTF's signature bs of name is not DWARF's df. */
static enum mismatch classify(struct kdwarf *d, const char *name,
			      const struct kfunc *bf, const struct kfunc *df,
			      const char *bs)
{
	int i;

	if (some_def_is(d, name, bs, kdwarf_func_all))
		return OTHER_INSTANCE;
	if (some_def_is(d, name, bs, kdwarf_inline_all))
		return INLINE_ONLY;
	if (bf->nparams == 1 && !strcmp(bf->params[0].name, "__unused"))
		return WEAK_STUB;
	if (bf->nparams != df->nparams)
		return OTHER_DEF;
	for (i = 0; i < bf->nparams; i++)
		if (strcmp(bf->params[i].name, df->params[i].name))
			return OTHER_DEF;
	return SPELLING;
}

static enum mismatch compare_func(struct kdwarf *d, struct kbtf *b,
				  const char *name, char **why)
{
	const struct ksrc *s = kdwarf_src(d), *bsrc = kbtf_src(b);
	struct kfunc bf, df;
	struct strbuf bs, ds;
	enum mismatch r;

	*why = NULL;
	if (bsrc->ops->func(bsrc, name, &bf))
		return SAME;	/* too many params for BTF: not compared */
	if (s->ops->func(s, name, &df))
		return MISSING;
	sb_init(&bs);
	sb_init(&ds);
	kfunc_str(&bf, &bs);
	kfunc_str(&df, &ds);
	if (strcmp(bs.buf, ds.buf))
		r = classify(d, name, &bf, &df, bs.buf);
	else
		r = shapes_agree(&bf, &df) ? SAME : SHAPE;
	if (r != SAME &&
	    asprintf(why, "%s: BTF %s / DWARF %s", name, bs.buf, ds.buf) < 0)
		*why = NULL;
	sb_free(&bs);
	sb_free(&ds);
	return r;
}

/* A sample of the functions BTF knows, every Nth in name order: DWARF
 * must spell each the same way, or the difference must be one of the
 * known kinds where the two describe different definitions.
 */
static void test_consistency(struct kdwarf *d, struct kbtf *b)
{
	static const char *const kind_names[] = {
		"same", "another same-named static", "BTF has a "
		"definition that was only inlined", "BTF has the weak "
		"sys_ni.c stub", "BTF has another definition", "type "
		"spelling", "type shape",
		"missing in DWARF",
	};
	struct names all = { NULL, 0, 0 };
	int counts[NKINDS] = { 0 };
	int i, step, sampled = 0, differ;

	kbtf_funcs_matching(b, "*", add_name, &all);
	if (!tap_ok(all.n > 1000, "BTF lists %d functions", all.n)) {
		free_names(&all);
		return;
	}
	step = all.n / 400;
	/* TEST_DWARF_STEP=1 compares every function (slow, for reports). */
	if (getenv("TEST_DWARF_STEP") && atoi(getenv("TEST_DWARF_STEP")) > 0)
		step = atoi(getenv("TEST_DWARF_STEP"));
	for (i = 0; i < all.n; i += step) {
		char *why;
		enum mismatch k = compare_func(d, b, all.v[i], &why);

		sampled++;
		counts[k]++;
		if (k != SAME)
			tap_diag("%s: %s", kind_names[k],
				 why ? why : all.v[i]);
		free(why);
	}
	differ = sampled - counts[SAME];
	tap_diag("%d of %d sampled functions differ (%.1f%%)", differ,
		 sampled, 100.0 * differ / sampled);
	for (i = 1; i < NKINDS; i++)
		if (counts[i])
			tap_diag("  %d: %s", counts[i], kind_names[i]);
	tap_ok(sampled >= 300, "sampled %d functions (every %dth)", sampled,
	       step);
	tap_int_eq(counts[SPELLING], 0, "no type is spelled differently");
	tap_int_eq(counts[SHAPE], 0, "no type differs in kind, size, sign");
	tap_int_eq(counts[MISSING], 0, "every sampled function is in DWARF");
	/* The others are BTF describing another definition of a name:
	 * which one it picks is the BTF source's business.
	 */
	tap_ok(differ * 20 <= sampled, "at most 5%% differ, each for a "
	       "known reason (%d)", differ);
	free_names(&all);
}

struct sorted {
	struct names names;
	bool sorted, all_match;
};

static void collect_sorted(const char *name, void *arg)
{
	struct sorted *c = arg;

	if (c->names.n && strcmp(c->names.v[c->names.n - 1], name) >= 0)
		c->sorted = false;
	if (strncmp(name, "vfs_", 4))
		c->all_match = false;
	add_name(name, &c->names);
}

static void test_matching(struct kdwarf *d, struct kbtf *b)
{
	const struct ksrc *s = kdwarf_src(d);
	struct sorted c = { { NULL, 0, 0 }, true, true };
	struct names bn = { NULL, 0, 0 };
	double t0 = now();
	int n, i, only_d = 0, only_b = 0;

	n = s->ops->funcs_matching(s, "vfs_*", collect_sorted, &c);
	tap_diag("funcs_matching(vfs_*): %d in %.2f ms", n,
		 (now() - t0) * 1e3);
	tap_ok(n == c.names.n && n > 50, "vfs_* matches %d functions", n);
	tap_ok(c.sorted && c.all_match, "names match, sorted, each once");
	tap_ok(has_name(&c.names, "vfs_read") &&
	       has_name(&c.names, "vfs_write"),
	       "vfs_* has vfs_read and vfs_write");
	kbtf_funcs_matching(b, "vfs_*", add_name, &bn);
	for (i = 0; i < c.names.n; i++)
		if (!has_name(&bn, c.names.v[i])) {
			only_d++;
			tap_diag("only DWARF has %s", c.names.v[i]);
		}
	for (i = 0; i < bn.n; i++)
		if (!has_name(&c.names, bn.v[i])) {
			only_b++;
			tap_diag("only BTF has %s", bn.v[i]);
		}
	tap_int_eq(only_b, 0, "DWARF has every vfs_* function BTF has "
		   "(and %d more)", only_d);
	free_names(&bn);
	free_names(&c.names);
}

struct file_count {
	int n;
	bool differ;
	char first[256];
};

static void count_instance(const struct kfunc *f, void *arg)
{
	struct file_count *c = arg;

	if (!c->n++)
		snprintf(c->first, sizeof(c->first), "%s", f->file);
	else if (strcmp(c->first, f->file))
		c->differ = true;
}

static void test_func_all(struct kdwarf *d)
{
	struct file_count c = { 0, false, "" };

	kdwarf_func_all(d, "m_start", count_instance, &c);
	tap_ok(c.n >= 2 && c.differ, "kdwarf_func_all: %d static "
	       "functions called m_start, in different files", c.n);
	c.n = 0;
	kdwarf_func_all(d, "vfs_read", count_instance, &c);
	tap_int_eq(c.n, 1, "kdwarf_func_all: one vfs_read");
}

/* ------------------------------------------------------------ lines */

struct line_seen {
	int n;
	bool ok_names, sorted;
	int last;
	unsigned long off[64];
	bool has[64];		/* by line - 450 */
};

static void line_cb(const char *func, const char *file, int line,
		    unsigned long offset, void *arg)
{
	struct line_seen *c = arg;

	if (strcmp(func, "vfs_read") || strcmp(file, "fs/read_write.c"))
		c->ok_names = false;
	if (line < c->last)
		c->sorted = false;
	c->last = line;
	if (line >= 450 && line < 450 + 64) {
		c->has[line - 450] = true;
		c->off[line - 450] = offset;
	}
	c->n++;
}

static void test_lines(struct kdwarf *d)
{
	struct line_seen c;
	struct strbuf sb;
	int n, i;

	memset(&c, 0, sizeof(c));
	c.ok_names = c.sorted = true;
	n = kdwarf_lines(d, "vfs_read", NULL, 450, 480, line_cb, &c);
	tap_ok(n > 5 && n == c.n, "vfs_read has code on %d of lines "
	       "450-480", n);
	tap_ok(c.ok_names && c.sorted, "each reported as vfs_read + offset "
	       "in fs/read_write.c, by line");
	tap_ok(c.has[1] && c.off[1] == 0, "line 451 (the brace) is at "
	       "vfs_read+0");
	tap_ok(c.has[6] && c.off[6] > 0 && c.off[6] < 0x400,
	       "line 456 is inside vfs_read (+%#lx)", c.off[6]);
	tap_ok(!c.has[2], "line 452 (a declaration) has no code");
	sb_init(&sb);
	for (i = 0; i <= 30; i++)
		if (!c.has[i])
			sb_printf(&sb, " %d", 450 + i);
	tap_diag("lines without code:%s", sb.buf ? sb.buf : "");
	sb_free(&sb);

	memset(&c, 0, sizeof(c));
	c.ok_names = c.sorted = true;
	tap_int_eq(kdwarf_lines(d, "vfs_read", "read_write.c", 450, 480,
				line_cb, &c), n,
		   "a file glob without directory matches fs/read_write.c");
	tap_int_eq(kdwarf_lines(d, "vfs_read", "*/no_such.c", 450, 480,
				line_cb, &c), 0,
		   "a file glob matching nothing gives no line");
	tap_int_eq(kdwarf_lines(d, "no_such_function_xyz", NULL, 1, 10000,
				line_cb, &c), 0,
		   "an unknown function gives no line");
}

/* ---------------------------------------------------------- inlines */

struct inl_seen {
	int n;
	bool ok;
	char caller[128];
	unsigned long offset;
};

static void inl_cb(const char *name, const char *caller,
		   unsigned long offset, const char *file, int line,
		   void *arg)
{
	struct inl_seen *c = arg;

	if (strcmp(name, "rw_verify_area") || !file ||
	    strcmp(file, "fs/read_write.c") || line <= 0 || !*caller)
		c->ok = false;
	if (!c->n++) {
		snprintf(c->caller, sizeof(c->caller), "%s", caller);
		c->offset = offset;
	}
}

static void test_inlines(struct kdwarf *d)
{
	struct inl_seen c = { 0, true, "", 0 };
	double t0 = now();
	int n = kdwarf_inlines(d, "rw_verify_area", inl_cb, &c);

	tap_diag("kdwarf_inlines(rw_verify_area): %d in %.3f s", n,
		 now() - t0);
	tap_ok(n >= 1 && n == c.n, "rw_verify_area is inlined %d times", n);
	tap_ok(c.ok, "each instance is a caller symbol + offset, declared "
	       "in fs/read_write.c");
	tap_diag("first: %s+%#lx", c.caller, c.offset);
	tap_int_eq(kdwarf_inlines(d, "no_such_function_xyz", inl_cb, &c), 0,
		   "an unknown function has no inline instance");
}

/* ------------------------------------------------------------- vars */

struct var {
	char name[64];
	char type[64];
	struct kloc loc;
	char reg[8];
	char sym[64];
	bool is_param;
};

struct vars {
	int n;
	struct var v[32];
};

static void var_cb(const char *name, const struct ktype *type,
		   const struct kloc *loc, bool is_param, void *arg)
{
	struct vars *c = arg;
	struct var *v;

	if (c->n >= 32)
		return;
	v = &c->v[c->n++];
	snprintf(v->name, sizeof(v->name), "%s", name);
	snprintf(v->type, sizeof(v->type), "%s", type->name);
	v->loc = *loc;
	snprintf(v->reg, sizeof(v->reg), "%s", loc->reg ? loc->reg : "");
	snprintf(v->sym, sizeof(v->sym), "%s",
		 loc->symbol ? loc->symbol : "");
	v->is_param = is_param;
}

static const struct var *find_var(const struct vars *c, const char *name)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			return &c->v[i];
	return NULL;
}

static void test_vars_entry(struct kdwarf *d)
{
	static const char *const names[] = { "file", "buf", "count", "pos" };
	static const char *const regs[] = { "di", "si", "dx", "cx" };
	struct vars c;
	const struct var *v;
	int i, n;

	memset(&c, 0, sizeof(c));
	n = kdwarf_vars_at(d, "vfs_read", 0, var_cb, &c);
	tap_ok(n >= 4 && n == c.n, "vfs_read+0 has %d variables", n);
	for (i = 0; i < 4 && i < c.n; i++)
		tap_ok(!strcmp(c.v[i].name, names[i]) && c.v[i].is_param &&
		       c.v[i].loc.kind == KLOC_REG &&
		       !strcmp(c.v[i].reg, regs[i]),
		       "vfs_read+0: param %s in %s (got %s in %s)", names[i],
		       regs[i], c.v[i].name, c.v[i].reg);
	v = find_var(&c, "ret");
	tap_ok(v && !v->is_param && v->loc.kind == KLOC_OPTIMIZED,
	       "vfs_read+0: local ret has no location yet");
	tap_int_eq(kdwarf_vars_at(d, "no_such_function_xyz", 0, var_cb, &c),
		   -ENOENT, "an unknown function gives -ENOENT");
}

/* A stack variable: DW_OP_fbreg from the CFA, which the CFI puts at
 * sp + 8 on entry and at sp + 184 after the prologue.  And a static.
 */
static void test_vars_memory(struct kdwarf *d)
{
	struct vars c;
	const struct var *v;

	memset(&c, 0, sizeof(c));
	kdwarf_vars_at(d, "__do_sys_newstat", 0, var_cb, &c);
	v = find_var(&c, "stat");
	tap_ok(v && v->loc.kind == KLOC_MEM && !strcmp(v->reg, "sp") &&
	       v->loc.offset == -176, "__do_sys_newstat+0: stat at sp-176 "
	       "(got %s%+ld)", v ? v->reg : "?", v ? v->loc.offset : 0);
	memset(&c, 0, sizeof(c));
	kdwarf_vars_at(d, "__do_sys_newstat", 0x20, var_cb, &c);
	v = find_var(&c, "stat");
	tap_ok(v && v->loc.kind == KLOC_MEM && !strcmp(v->reg, "sp") &&
	       v->loc.offset == 0, "__do_sys_newstat+0x20: stat at sp+0 "
	       "(got %s%+ld)", v ? v->reg : "?", v ? v->loc.offset : 0);

	memset(&c, 0, sizeof(c));
	kdwarf_vars_at(d, "oom_kill_process", 0, var_cb, &c);
	v = find_var(&c, "oom_rs");
	tap_ok(v && v->loc.kind == KLOC_STATIC &&
	       !strncmp(v->sym, "oom_rs", 6) && v->loc.offset == 0,
	       "oom_kill_process: static oom_rs at symbol %s",
	       v ? v->sym : "?");
}

/* join_session_keyring's name is in rdi at the entry; past the first
 * call, DWARF only gives its value at the entry (DW_OP_entry_value):
 * the register and the function to keep it at.
 */
static void test_vars_entry_value(struct kdwarf *d)
{
	const char *fn = "join_session_keyring", *seen = NULL;
	uint64_t addr = 0, size = 0, off;
	struct vars c;
	const struct var *v;

	memset(&c, 0, sizeof(c));
	kdwarf_vars_at(d, fn, 0, var_cb, &c);
	v = find_var(&c, "name");
	tap_ok(v && v->loc.kind == KLOC_REG && !strcmp(v->reg, "di"),
	       "%s+0: name in di", fn);
	if (!tap_ok(!kdwarf_sym_range(d, fn, &addr, &size) && size,
		    "%s has a size", fn))
		return;
	for (off = 1; off < size && !seen; off++) {
		memset(&c, 0, sizeof(c));
		kdwarf_vars_at(d, fn, off, var_cb, &c);
		v = find_var(&c, "name");
		if (v && v->loc.kind == KLOC_ENTRY && v->loc.why &&
		    strstr(v->loc.why, "DW_OP_entry_value"))
			seen = v->loc.why;
	}
	tap_ok(seen && !strcmp(v->reg, "di") && !strcmp(v->sym, fn),
	       "%s: name past a call is di at its entry: %s", fn,
	       seen ? seen : "(nowhere)");
}

/* Kernel globals for @var: one with its file, jiffies (declared in C,
 * defined by the linker script at jiffies_64's address), a per-CPU one
 * (an offset in the per-CPU area, below the kernel's image).
 */
static void test_globals(struct kdwarf *d)
{
	const struct ktype *t = NULL;
	const char *why = NULL;
	uint64_t a = 0, j64 = 0;
	int rc;

	tap_ok(!kdwarf_global(d, "nr_threads", "kernel/fork.c", &t, &a,
			      &why) && t && !strcmp(ktype_name(t), "int") &&
	       a >= 0xffffffff80000000ULL, "nr_threads@kernel/fork.c: an "
	       "int in the kernel's image");
	rc = kdwarf_obj_addr(d, "jiffies_64", &j64) ?:
	     kdwarf_global(d, "jiffies", NULL, &t, &a, &why);
	tap_ok(!rc && t && a == j64, "jiffies: declared only, at "
	       "jiffies_64 (%s)", t ? ktype_name(t) : "?");
	rc = kdwarf_global(d, "runqueues", NULL, &t, &a, &why);
	tap_ok(!rc && a < 0xffffffff80000000ULL, "runqueues: per-CPU, an "
	       "offset (%#llx)", (unsigned long long)a);
	tap_int_eq(kdwarf_global(d, "no_such_global_xyz", NULL, &t, &a, &why),
		   -ENOENT, "an unknown global gives -ENOENT");
}

/* Inside an inlined rw_verify_area: its parameters, in declaration
 * order, one of them a constant.
 */
static void test_vars_inlined(struct kdwarf *d)
{
	static const char *const inl[] = {
		"read_write", "file", "ppos", "count"
	};
	struct vars c;
	const struct var *v;
	int i, n;

	memset(&c, 0, sizeof(c));
	n = kdwarf_vars_at(d, "kernel_read", 5, var_cb, &c);
	tap_ok(n >= 4, "kernel_read+5 (inlined rw_verify_area): %d "
	       "variables", n);
	for (i = 0; i < 4 && i < c.n; i++)
		tap_str_eq(c.v[i].name, inl[i], "inlined param %d", i);
	v = find_var(&c, "read_write");
	tap_ok(v && v->loc.kind == KLOC_CONST && v->loc.value == 0,
	       "read_write is the constant READ (0)");
}

/* ------------------------------------------------------- addresses */

/* A symbol's address from the System.map of the -dbg package. */
static uint64_t sysmap(const char *name)
{
	char path[300], line[512], sym[256];
	unsigned long long a, found = 0;
	char type;
	FILE *f;

	snprintf(path, sizeof(path), "/usr/lib/debug/boot/System.map-%s",
		 KVER);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 &&
		    !strcmp(sym, name))
			found = a;
	fclose(f);
	return found;
}

/* kernel.statement(ADDR) and kernel.function(ADDR): an address of
 * vmlinux as symbol + offset, its line row, and the functions there.
 */
static void test_addr(struct kdwarf *d)
{
	uint64_t vfs_read = sysmap("vfs_read");
	uint64_t kernel_read = sysmap("kernel_read");
	struct kaddr a;

	if (!tap_ok(vfs_read && kernel_read, "vfs_read and kernel_read "
		    "in System.map-%s", KVER))
		return;
	tap_int_eq(kdwarf_addr(d, vfs_read, &a), 0, "vfs_read's address");
	tap_ok(!strcmp(a.at.sym, "vfs_read") && a.at.offset == 0 &&
	       !a.at.shared, "... is vfs_read+0 (got %s+%lu)", a.at.sym,
	       a.at.offset);
	tap_ok(a.row == vfs_read && a.file &&
	       !strcmp(a.file, "fs/read_write.c"),
	       "... starts a statement of fs/read_write.c (%s:%d)",
	       a.file ? a.file : "?", a.line);
	tap_ok(a.has_func && !strcmp(a.func.name, "vfs_read") &&
	       a.func.nparams == 4 && !strcmp(a.entry.sym, "vfs_read") &&
	       a.entry.offset == 0 && !a.has_inline,
	       "... is the entry of the function vfs_read");

	tap_int_eq(kdwarf_addr(d, vfs_read + 1, &a), 0, "vfs_read+1");
	tap_ok(a.at.offset == 1 && a.row == vfs_read,
	       "... is inside the statement at vfs_read+0");

	tap_int_eq(kdwarf_addr(d, kernel_read + 5, &a), 0, "kernel_read+5");
	tap_ok(a.has_func && !strcmp(a.func.name, "kernel_read") &&
	       a.has_inline && a.inline_name &&
	       !strcmp(a.inline_name, "rw_verify_area") &&
	       !strcmp(a.inline_entry.sym, "kernel_read"),
	       "... is in rw_verify_area inlined in kernel_read (got %s)",
	       a.inline_name ? a.inline_name : "none");

	tap_int_eq(kdwarf_addr(d, sysmap("jiffies"), &a), -ENOENT,
		   "a variable's address is in no function");
	tap_int_eq(kdwarf_addr(d, 0xffffffff80001000ULL, &a), -ENOENT,
		   "an address below the kernel's text is in no function");
}

/* ------------------------------------------------------------- main */

static void rm_cache(const char *cache)
{
	char *p;

	if (asprintf(&p, "%s/dwarf/%s.idx", cache, KVER) >= 0) {
		unlink(p);
		free(p);
	}
	if (asprintf(&p, "%s/btf/%s.btf", cache, KVER) >= 0) {
		unlink(p);
		free(p);
	}
	if (asprintf(&p, "%s/dwarf", cache) >= 0) {
		rmdir(p);
		free(p);
	}
	if (asprintf(&p, "%s/btf", cache) >= 0) {
		rmdir(p);
		free(p);
	}
	rmdir(cache);
}

/* ------------------------------------------------------ a module */

struct mod_lines {
	int n, at0;
	bool ok;
};

static void mod_line_cb(const char *func, const char *file, int line,
			unsigned long offset, void *arg)
{
	struct mod_lines *c = arg;

	c->n++;
	if (!offset)
		c->at0++;
	if (strcmp(func, "brd_submit_bio") || strcmp(file,
	    "drivers/block/brd.c") || line <= 0 || offset > 0x1000)
		c->ok = false;
}

/* kdwarf_funcs: where brd_submit_bio is, in libdw's layout. */
struct mod_func {
	uint64_t addr, size;
	int n;
};

static void mod_func_cb(const char *name, uint64_t addr, uint64_t size,
			void *arg)
{
	struct mod_func *c = arg;

	c->n++;
	if (!strcmp(name, "brd_submit_bio")) {
		c->addr = addr;
		c->size = size;
	}
}

/* The rows of the whole module: the one at brd_submit_bio's address
 * and the number inside it.
 */
struct mod_rows {
	uint64_t lo, hi;
	int in, line, n;
	const char *file;
	uint64_t last;
	bool sorted;
};

static void mod_row_cb(uint64_t addr, const char *file, int line, void *arg)
{
	struct mod_rows *r = arg;

	if (r->n++ && addr <= r->last)
		r->sorted = false;
	r->last = addr;
	if (addr == r->lo) {
		r->file = file;
		r->line = line;
	}
	if (addr >= r->lo && addr < r->hi)
		r->in++;
}

/* The module's line table, by the addresses its function symbols have:
 * brd_submit_bio's entry is the row of the line after its declaration
 * (its opening brace, drivers/block/brd.c:288 after 287 on 6.1).
 */
static void check_brd_rows(struct kdwarf *d, const struct kfunc *f)
{
	struct mod_func mf = { 0, 0, 0 };
	struct mod_rows r = { .sorted = true };
	int n;

	n = kdwarf_funcs(d, mod_func_cb, &mf);
	if (!tap_ok(n == mf.n && n > 5 && mf.size > 0,
		    "brd: %d function symbols, brd_submit_bio's %#" PRIx64
		    " bytes", n, mf.size))
		return;
	r.lo = mf.addr;
	r.hi = mf.addr + mf.size;
	n = kdwarf_line_rows(d, 0, 0, mod_row_cb, &r);
	tap_ok(n > 100 && r.sorted && r.in > 10,
	       "brd: %d rows of the whole module by address, %d in "
	       "brd_submit_bio", n, r.in);
	tap_ok(r.file && !strcmp(r.file, "drivers/block/brd.c") &&
	       r.line == f->line + 1,
	       "brd: brd_submit_bio's entry at %s:%d", r.file ? r.file : "?",
	       r.line);
}

static void check_brd(struct kdwarf *d)
{
	const struct ksrc *s = kdwarf_src(d);
	struct mod_lines ml = { 0, 0, true };
	const struct ktype *t;
	struct kmember m;
	struct kfunc f;
	struct vars c;

	if (tap_int_eq(s->ops->func(s, "brd_submit_bio", &f), 0,
		       "brd: brd_submit_bio found")) {
		tap_ok(f.nparams == 1 && !strcmp(f.params[0].name, "bio") &&
		       !strcmp(ktype_name(f.params[0].type), "struct bio*"),
		       "brd: brd_submit_bio(struct bio *bio)");
		tap_ok(f.file && !strcmp(f.file, "drivers/block/brd.c") &&
		       f.line > 0, "brd: declared in %s:%d",
		       f.file ? f.file : "?", f.line);
		check_brd_rows(d, &f);
	}
	tap_int_eq(s->ops->func(s, "vfs_read", &f), -ENOENT,
		   "brd: the kernel's functions are not the module's");
	tap_ok(!s->ops->type_by_name(s, "struct brd_device", &t) &&
	       !ktype_member(t, "brd_disk", &m) &&
	       !strcmp(ktype_name(m.type), "struct gendisk*"),
	       "brd: struct brd_device has brd_disk");
	memset(&c, 0, sizeof(c));
	tap_ok(kdwarf_vars_at(d, "brd_submit_bio", 0, var_cb, &c) >= 1 &&
	       !strcmp(c.v[0].name, "bio") && c.v[0].is_param &&
	       c.v[0].loc.kind == KLOC_REG && !strcmp(c.v[0].reg, "di"),
	       "brd: at brd_submit_bio+0, bio is in di (symbol addresses "
	       "and relocated DWARF agree)");
	kdwarf_lines(d, "brd_submit_bio", NULL, 1, 1 << 30, mod_line_cb, &ml);
	tap_ok(ml.n > 5 && ml.ok && ml.at0 == 1,
	       "brd: %d lines of brd_submit_bio as brd_submit_bio+offset",
	       ml.n);
}

static void test_module(const char *cache)
{
	struct kmod_list *l = kmod_list_load(KVER, NULL);
	char *dbg = NULL, *err = NULL, *idx;
	struct kdwarf *d;

	if (l && kmod_list_path(l, "brd"))
		dbg = kmod_debug_path(KVER, kmod_list_path(l, "brd"));
	kmod_list_free(l);
	if (!tap_ok(dbg != NULL, "brd's debuginfo is installed"))
		return;
	d = kdwarf_load_module(KVER, "brd", dbg, cache, &err);
	if (!tap_ok(d != NULL, "brd's DWARF loaded")) {
		tap_diag("error: %s", err ? err : "(none)");
		free(err);
		free(dbg);
		return;
	}
	check_brd(d);
	kdwarf_free(d);
	if (asprintf(&idx, "%s/dwarf/%s/brd.idx", cache, KVER) >= 0) {
		tap_ok(access(idx, R_OK) == 0, "brd: index cached at %s",
		       idx);
		d = kdwarf_load_module(KVER, "brd", dbg, cache, &err);
		if (tap_ok(d != NULL, "brd: loaded with the cached index"))
			check_brd(d);
		kdwarf_free(d);
		unlink(idx);
		free(idx);
	}
	if (asprintf(&idx, "%s/dwarf/%s", cache, KVER) >= 0) {
		rmdir(idx);
		free(idx);
	}
	free(dbg);
}

/* ----------------------------------- $SYSTEMTAP_DEBUGINFO_PATH lookup */

static void touch(const char *root, const char *rel)
{
	char *path, *dir;

	if (asprintf(&path, "%s/%s", root, rel) < 0)
		return;
	dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	mkdir_p(dir);
	fclose(fopen(path, "w"));
	free(dir);
	free(path);
}

/* got should be root/rel; frees got. */
static void want_path(char *got, const char *root, const char *rel,
		      const char *what)
{
	char *want = NULL;

	if (rel && asprintf(&want, "%s/%s", root, rel) < 0)
		want = NULL;
	tap_str_eq(got, want, "debuginfo path: %s", what);
	free(want);
	free(got);
}

/* A fake tree: no big package needed, the lookup only checks paths. */
static void test_debuginfo_path(const char *tmp)
{
	static const char kv[] = "6.99.0-1-amd64";
	static const char mod[] = "/lib/modules/6.99.0-1-amd64/kernel/fs/foo.ko.xz";
	char *a, *b, *env;

	if (asprintf(&a, "%s/a", tmp) < 0 || asprintf(&b, "%s/b", tmp) < 0)
		return;
	/* a: a debug tree; b: an unpacked -dbg package (dpkg -x) */
	touch(a, "lib/modules/6.99.0-1-amd64/vmlinux");
	touch(a, "lib/modules/6.99.0-1-amd64/kernel/fs/foo.ko.debug");
	touch(b, "usr/lib/debug/boot/vmlinux-6.99.0-1-amd64");
	touch(b, "usr/lib/debug/lib/modules/6.99.0-1-amd64/kernel/fs/foo.ko");

	unsetenv("SYSTEMTAP_DEBUGINFO_PATH");
	want_path(kmod_debug_vmlinux(kv), "", NULL, "unset: /usr/lib/debug only");
	if (asprintf(&env, "+:.debug:%s:build", b) >= 0) {
		setenv("SYSTEMTAP_DEBUGINFO_PATH", env, 1);
		free(env);
	}
	want_path(kmod_debug_vmlinux(kv), b,
		  "usr/lib/debug/boot/vmlinux-6.99.0-1-amd64",
		  "relative elements skipped, package root");
	want_path(kmod_debug_path(kv, mod), b,
		  "usr/lib/debug/lib/modules/6.99.0-1-amd64/kernel/fs/foo.ko",
		  "module in a package root");
	if (asprintf(&env, "-%s:+%s", a, b) >= 0) {
		setenv("SYSTEMTAP_DEBUGINFO_PATH", env, 1);
		free(env);
	}
	want_path(kmod_debug_vmlinux(kv), a,
		  "lib/modules/6.99.0-1-amd64/vmlinux",
		  "first root wins, '-' dropped");
	want_path(kmod_debug_path(kv, mod), a,
		  "lib/modules/6.99.0-1-amd64/kernel/fs/foo.ko.debug",
		  "split module debuginfo");
	want_path(kmod_debug_path(kv, "/elsewhere/foo.ko"), "", NULL,
		  "a module outside /lib/modules has none");
	want_path(kmod_debug_vmlinux("6.98.0-1-amd64"), "", NULL,
		  "another release: none");
	setenv("SYSTEMTAP_DEBUGINFO_PATH", "/nonexistent", 1);
	want_path(kmod_debug_vmlinux(kv), "", NULL,
		  "the variable replaces /usr/lib/debug");
	setenv("SYSTEMTAP_DEBUGINFO_PATH", "", 1);
	want_path(kmod_debug_vmlinux(kv), "", NULL, "empty: as unset");
	unsetenv("SYSTEMTAP_DEBUGINFO_PATH");
	if (asprintf(&env, "rm -rf '%s' '%s'", a, b) >= 0) {
		if (system(env) != 0)
			tap_diag("could not remove %s, %s", a, b);
		free(env);
	}
	free(a);
	free(b);
}

struct krows {
	int n, first, outside;
	uint64_t lo, hi;
	bool other_file;
};

static void krow_cb(uint64_t addr, const char *file, int line, void *arg)
{
	struct krows *r = arg;

	if (!r->n)
		r->first = line;
	if (addr < r->lo || addr >= r->hi)
		r->outside++;
	if (line && r->n == 0 && strcmp(file, "fs/read_write.c"))
		r->other_file = true;
	r->n++;
}

/* Whether the comma-separated list has name as one of its items. */
static bool has_label(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

static void kcall_cb(const struct kcallsite *cs, void *arg)
{
	struct kcallsite *out = arg;

	if (!out->caller)
		*out = *cs;
	out->ret_pc++;	/* counts the calls past the first's address */
}

/* The paths down to security_file_permission, kept by the callback. */
static void kcallee_cb(const char *caller, const char *callee,
		       const struct vec *paths, void *arg)
{
	const struct vec **out = arg;

	if (!strcmp(caller, "vfs_read") &&
	    !strcmp(callee, "security_file_permission"))
		*out = paths;
}

static void klabel_cb(const struct klabel *l, void *arg)
{
	struct strbuf *sb = arg;

	sb_printf(sb, "%s%s", sb->len ? "," : "", l->label);
}

/* Two levels under vfs_read: rw_verify_area ends in a jump to
 * security_file_permission (a tail call), which so returns where
 * rw_verify_area would have, into vfs_read after the call at
 * vfs_read+off: a path of one level.  Out of range depths are refused.
 */
static void test_callees(struct kdwarf *d, unsigned long off)
{
	const struct vec *paths = NULL;
	const struct kcallpath *p;
	const struct kcallsite *cs;
	int n, tails = -1;

	n = kdwarf_callees(d, "vfs_read", "*", 2, NULL, kcallee_cb, &paths,
			   &tails);
	tap_ok(n > 4 && tails == 0, "vfs_read has callees two levels "
	       "down (%d), no tail call of its own", n);
	if (!tap_ok(paths && paths->n == 1, "one way down to "
		    "security_file_permission"))
		return;
	p = paths->items[0];
	cs = p->depth == 1 && p->levels[0].n == 1 ?
	     p->levels[0].items[0] : NULL;
	tap_ok(cs && !strcmp(cs->ret.sym, "vfs_read") &&
	       cs->ret.offset == off, "by rw_verify_area's jump: it "
	       "returns to vfs_read+%#lx", off);
	n = kdwarf_callees(d, "rw_verify_area", "*", 1, NULL, kcallee_cb,
			   &paths, &tails);
	tap_ok(n == 0 && tails == 1, "rw_verify_area only jumps");
	tap_ok(kdwarf_callees(d, "vfs_read", "*", 0, NULL, kcallee_cb,
			      &paths, &tails) < 0 &&
	       kdwarf_callees(d, "vfs_read", "*", KDWARF_CALLEE_DEPTH + 1,
			      NULL, kcallee_cb, &paths, &tails) < 0,
	       "depths 0 and %d are refused", KDWARF_CALLEE_DEPTH + 1);
}

/* vfs_read (fs/read_write.c:450, its brace on 451) and the labels of
 * join_session_keyring (security/keys/process_keys.c: error, error2,
 * error3), as the kernel's sources have them.
 */
static void test_rows_labels(struct kdwarf *d)
{
	struct krows r = { 0 };
	struct kcallsite cs;
	struct strbuf sb;
	uint64_t a = 0, sz = 0;
	int n;

	if (!tap_ok(!kdwarf_sym_range(d, "vfs_read", &a, &sz) && sz,
		    "vfs_read's range"))
		return;
	r.lo = a;
	r.hi = a + sz;
	n = kdwarf_line_rows(d, a, a + sz, krow_cb, &r);
	tap_ok(n > 10 && !r.outside && r.first == 451 && !r.other_file,
	       "vfs_read's rows (%d) start at fs/read_write.c:451", n);
	sb_init(&sb);
	n = kdwarf_labels(d, "join_session_keyring", "*", klabel_cb, &sb);
	/* in the order of their addresses, which the compiler picks */
	tap_ok(n == 3 && sb.buf && has_label(sb.buf, "error") &&
	       has_label(sb.buf, "error2") && has_label(sb.buf, "error3"),
	       "join_session_keyring's labels: %s", sb.buf ? sb.buf : "");
	sb_free(&sb);
	/* vfs_read calls rw_verify_area once, by name */
	memset(&cs, 0, sizeof(cs));
	n = kdwarf_callsites(d, "vfs_read", "rw_verify_area", kcall_cb, &cs);
	tap_ok(n == 1 && cs.caller && !strcmp(cs.caller, "vfs_read") &&
	       !strcmp(cs.callee, "rw_verify_area") &&
	       !strcmp(cs.ret.sym, "vfs_read") && cs.ret.offset > 0 &&
	       cs.ret.offset < sz && cs.ret_pc == a + cs.ret.offset + 1,
	       "vfs_read's call of rw_verify_area returns to vfs_read+%#lx",
	       cs.ret.offset);
	tap_ok(kdwarf_callsites(d, "vfs_read", "vfs_write", kcall_cb,
				&cs) == 0, "it never calls vfs_write");
	test_callees(d, cs.ret.offset);
}

static void test_kernel(const char *cache)
{
	struct kdwarf *d = test_load(cache);
	struct kbtf *b;
	char *err = NULL;

	if (!d)
		return;
	b = kbtf_load(KVER, cache, &err);
	if (!tap_ok(b != NULL, "BTF of %s loaded for comparison", KVER)) {
		tap_diag("error: %s", err ? err : "(none)");
		free(err);
		kdwarf_free(d);
		return;
	}
	test_vfs_read(kdwarf_src(d));
	test_types(kdwarf_src(d), b);
	test_members(kdwarf_src(d), b);
	test_consistency(d, b);
	test_matching(d, b);
	test_func_all(d);
	test_lines(d);
	test_inlines(d);
	test_vars_entry(d);
	test_vars_memory(d);
	test_vars_inlined(d);
	test_vars_entry_value(d);
	test_globals(d);
	test_addr(d);
	test_rows_labels(d);
	test_module(cache);
	kbtf_free(b);
	kdwarf_free(d);
}

int main(void)
{
	char tmpl[] = "/tmp/test-dwarf.XXXXXX";
	char *cache = mkdtemp(tmpl);
	const char *skip = getenv("TAPIR_NO_KERNEL_DBG");

	if (!tap_ok(cache != NULL, "made a temporary cache directory"))
		return tap_done();
	pick_kernel();
	test_bogus(cache);
	test_debuginfo_path(cache);
	if (access(VMLINUX, R_OK) == 0)
		test_kernel(cache);
	else if (skip && !strcmp(skip, "1"))
		tap_ok(true, "kernel DWARF # SKIP no %s "
		       "(TAPIR_NO_KERNEL_DBG=1)", VMLINUX);
	else
		tap_ok(false, "kernel debuginfo %s is installed (apt-get "
		       "install linux-image-%s-dbg, or set "
		       "TAPIR_NO_KERNEL_DBG=1 to skip)", VMLINUX, KVER);
	rm_cache(cache);
	return tap_done();
}
