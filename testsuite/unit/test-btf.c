/* test-btf.c - unit tests for translator/debuginfo/btf.c against the
 * kernels installed on the test host: extraction from the bzImage, the
 * cache, and the type strings SystemTap would print for them.
 *
 * With no known kernel installed the test fails rather than skips: the
 * extraction path would otherwise go untested without anyone noticing.
 */
#define _GNU_SOURCE
#include "tap.h"
#include "util.h"
#include "debuginfo/btf.h"
#include "debuginfo/kmod.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const kernels[] = {
	"6.1.0-56-amd64",	/* xz payload */
	"6.12.117+deb12-amd64",	/* zstd payload */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct names {
	int n;
	bool saw_vfs_read;
	bool all_match;
	bool sorted;
	char last[256];
};

static void collect(const char *name, void *arg)
{
	struct names *c = arg;

	c->n++;
	if (!strcmp(name, "vfs_read"))
		c->saw_vfs_read = true;
	if (strncmp(name, "vfs_rea", 7))
		c->all_match = false;
	if (c->n > 1 && strcmp(c->last, name) >= 0)
		c->sorted = false;
	snprintf(c->last, sizeof(c->last), "%s", name);
}

static void check_kernel(struct kbtf *b, const char *kver)
{
	static const char *const names[] = { "file", "buf", "count", "pos" };
	static const char *const types[] = {
		"struct file*", "char*", "size_t", "loff_t*"
	};
	struct kbtf_func f;
	struct kbtf_member m;
	struct names c = { 0, false, true, true, "" };
	int i, n;

	if (tap_int_eq(kbtf_func(b, "vfs_read", &f), 0,
		       "%s: vfs_read found", kver)) {
		tap_int_eq(f.nparams, 4, "%s: vfs_read has 4 params", kver);
		for (i = 0; i < 4 && i < f.nparams; i++) {
			tap_str_eq(f.param_names[i], names[i],
				   "%s: vfs_read param %d name", kver, i);
			tap_str_eq(f.param_types[i], types[i],
				   "%s: vfs_read param %d type", kver, i);
		}
		tap_str_eq(f.ret_type, "ssize_t",
			   "%s: vfs_read returns ssize_t", kver);
		tap_ok(!f.variadic, "%s: vfs_read is not variadic", kver);
	}
	tap_int_eq(kbtf_func(b, "no_such_function_xyz", &f), -ENOENT,
		   "%s: an unknown function gives -ENOENT", kver);

	if (tap_int_eq(kbtf_member(b, "struct file", "f_flags", &m), 0,
		       "%s: struct file has f_flags", kver)) {
		tap_ok(m.offset > 0 && m.offset < 4096,
		       "%s: f_flags offset %lu is plausible", kver, m.offset);
		tap_str_eq(m.type, "unsigned int", "%s: f_flags type", kver);
		tap_ok(!m.bitfield, "%s: f_flags is not a bitfield", kver);
	}
	tap_int_eq(kbtf_member(b, "struct file", "no_such_member", &m),
		   -ENOENT, "%s: an unknown member gives -ENOENT", kver);

	n = kbtf_funcs_matching(b, "vfs_rea*", collect, &c);
	tap_ok(n == c.n && n > 0, "%s: vfs_rea* matches %d functions", kver,
	       n);
	tap_ok(c.saw_vfs_read, "%s: vfs_rea* includes vfs_read", kver);
	tap_ok(c.all_match && c.sorted,
	       "%s: vfs_rea* names all match and come sorted", kver);
}

static void test_kernel(const char *cache, const char *kver)
{
	struct kbtf *b;
	char *err = NULL, *path;
	double t0, cold, warm;

	t0 = now();
	b = kbtf_load(kver, cache, &err);
	cold = now() - t0;
	if (!tap_ok(b != NULL, "%s: cold load", kver)) {
		tap_diag("error: %s", err ? err : "(none)");
		free(err);
		return;
	}
	tap_diag("%s: cold load %.2f s", kver, cold);
	check_kernel(b, kver);
	kbtf_free(b);

	if (asprintf(&path, "%s/btf/%s.btf", cache, kver) < 0)
		return;
	tap_ok(access(path, R_OK) == 0, "%s: cached at %s", kver, path);
	t0 = now();
	b = kbtf_load(kver, cache, &err);
	warm = now() - t0;
	tap_ok(b != NULL, "%s: cached load", kver);
	tap_diag("%s: cached load %.3f s", kver, warm);
	tap_ok(warm < cold, "%s: cached load is faster than cold", kver);
	if (b)
		check_kernel(b, kver);
	kbtf_free(b);
	unlink(path);
	free(path);
}

/* ------------------------------------------------- modules: brd.ko */

static void collect_any(const char *name, void *arg)
{
	struct names *c = arg;

	c->n++;
	if (!strcmp(name, "brd_submit_bio"))
		c->saw_vfs_read = true;
	if (strncmp(name, "brd_", 4))
		c->all_match = false;
	if (c->n > 1 && strcmp(c->last, name) >= 0)
		c->sorted = false;
	snprintf(c->last, sizeof(c->last), "%s", name);
}

static void check_brd(const struct ksrc *s, const char *kver)
{
	struct names c = { 0, false, true, true, "" };
	const struct ktype *t, *bio;
	struct kmember m;
	struct kfunc f;

	if (tap_int_eq(s->ops->func(s, "brd_submit_bio", &f), 0,
		       "%s: brd: brd_submit_bio found", kver)) {
		tap_ok(f.nparams == 1 && !strcmp(f.params[0].name, "bio") &&
		       !strcmp(ktype_name(f.params[0].type), "struct bio*"),
		       "%s: brd: brd_submit_bio(struct bio *bio)", kver);
		bio = f.params[0].type->target;
		/* a kernel struct, through the base: members and all */
		tap_ok(bio && !ktype_member(bio, "bi_iter", &m) &&
		       !strcmp(ktype_name(m.type), "struct bvec_iter"),
		       "%s: brd: bio->bi_iter from the kernel's BTF", kver);
	}
	tap_int_eq(s->ops->func(s, "vfs_read", &f), -ENOENT,
		   "%s: brd: the kernel's functions are not the module's",
		   kver);
	s->ops->funcs_matching(s, "*", collect_any, &c);
	tap_ok(c.n >= 5 && c.saw_vfs_read && c.all_match && c.sorted,
	       "%s: brd: '*' gives its own %d functions, sorted", kver, c.n);
	if (tap_int_eq(s->ops->type_by_name(s, "struct brd_device", &t), 0,
		       "%s: brd: struct brd_device, its own", kver)) {
		tap_ok(!ktype_member(t, "brd_number", &m) && !m.offset &&
		       !strcmp(ktype_name(m.type), "int"),
		       "%s: brd: brd_device.brd_number is an int at 0", kver);
		tap_ok(!ktype_member(t, "brd_disk", &m) &&
		       !strcmp(ktype_name(m.type), "struct gendisk*") &&
		       m.type->target->kind == KT_STRUCT &&
		       !ktype_member(m.type->target, "disk_name", &m),
		       "%s: brd: brd_disk->disk_name, into the kernel's",
		       kver);
	}
	tap_ok(!s->ops->type_by_name(s, "struct task_struct", &t) &&
	       t->size > 1000, "%s: brd: the kernel's types by name", kver);
}

static void test_module(const char *cache, const char *kver)
{
	struct kmod_list *l;
	struct kbtf *base, *b;
	const char *path;
	char *err = NULL, *cpath;
	struct names c = { 0, false, true, true, "" };

	l = kmod_list_load(kver, &err);
	if (!tap_ok(l != NULL, "%s: the module list", kver)) {
		tap_diag("error: %s", err ? err : "(none)");
		free(err);
		return;
	}
	path = kmod_list_path(l, "brd");
	tap_ok(path && strstr(path, "/drivers/block/brd.ko"),
	       "%s: brd is %s", kver, path ? path : "(none)");
	tap_ok(kmod_list_path(l, "snd-hda-intel") &&
	       kmod_list_path(l, "snd_hda_intel") ==
	       kmod_list_path(l, "snd-hda-intel"),
	       "%s: '-' and '_' name one module", kver);
	tap_ok(!kmod_list_path(l, "no_such_module_xyz"),
	       "%s: an unknown module has no path", kver);
	kmod_list_match(l, "br?", collect_any, &c);
	tap_ok(c.n == 1 && !strcmp(c.last, "brd"), "%s: 'br?' is brd",
	       kver);
	base = kbtf_load(kver, cache, &err);
	if (path && base) {
		b = kbtf_load_module(base, kver, "brd", path, cache, &err);
		if (tap_ok(b != NULL, "%s: brd's split BTF", kver))
			check_brd(kbtf_src(b), kver);
		else
			tap_diag("error: %s", err ? err : "(none)");
		free(err);
		err = NULL;
		kbtf_free(b);
		if (asprintf(&cpath, "%s/btf/%s/brd.btf", cache, kver) >= 0) {
			tap_ok(access(cpath, R_OK) == 0, "%s: brd cached",
			       kver);
			b = kbtf_load_module(base, kver, "brd", path, cache,
					     &err);
			if (tap_ok(b != NULL, "%s: brd from the cache", kver))
				check_brd(kbtf_src(b), kver);
			kbtf_free(b);
			unlink(cpath);
			free(cpath);
			if (asprintf(&cpath, "%s/btf/%s", cache, kver) >= 0)
				rmdir(cpath);
			free(cpath);
		}
		b = kbtf_load_module(base, kver, "brd", "/nonexistent/brd.ko",
				     NULL, &err);
		tap_ok(!b && err && strstr(err, "/nonexistent/brd.ko"),
		       "%s: a missing module file is an error: %s", kver,
		       err ? err : "(none)");
		kbtf_free(b);
	}
	free(err);
	kbtf_free(base);
	if (asprintf(&cpath, "%s/btf/%s.btf", cache, kver) >= 0) {
		unlink(cpath);
		free(cpath);
	}
	kmod_list_free(l);
}

static void test_bogus(const char *cache)
{
	char *err = NULL;
	struct kbtf *b = kbtf_load("0.0.0-no-such-kernel", cache, &err);

	tap_ok(b == NULL, "a bogus kernel release gives NULL");
	tap_ok(err && strstr(err, "/boot/vmlinuz"),
	       "its error mentions /boot/vmlinuz: %s", err ? err : "(none)");
	kbtf_free(b);
	free(err);

	err = NULL;
	b = kbtf_load("../etc", cache, &err);
	tap_ok(b == NULL && err, "a release with a slash is refused");
	free(err);
}

int main(void)
{
	char tmpl[] = "/tmp/test-btf.XXXXXX";
	char *cache = mkdtemp(tmpl), *dir;
	size_t i;
	int found = 0;

	if (!tap_ok(cache != NULL, "made a temporary cache directory"))
		return tap_done();
	for (i = 0; i < ARRAY_SIZE(kernels); i++) {
		char *img;

		if (asprintf(&img, "/boot/vmlinuz-%s", kernels[i]) < 0)
			continue;
		if (access(img, R_OK) == 0) {
			found++;
			test_kernel(cache, kernels[i]);
			test_module(cache, kernels[i]);
		}
		free(img);
	}
	tap_ok(found > 0, "at least one known kernel is installed (%d)",
	       found);
	test_bogus(cache);

	if (asprintf(&dir, "%s/btf", cache) >= 0) {
		rmdir(dir);
		free(dir);
	}
	rmdir(cache);
	return tap_done();
}
