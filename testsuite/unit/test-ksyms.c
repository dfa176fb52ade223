/* test-ksyms.c - unit tests for translator/debuginfo/ksyms.c: the
 * kallsyms reader on a file of known content, the debuginfo symbol
 * table of the 6.1 kernel when its -dbg package is installed, and the
 * error for a kernel that has neither.
 */
#define _GNU_SOURCE
#include "tap.h"
#include "util.h"
#include "debuginfo/ksyms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct seen {
	int n;
	char names[16][64];
};

static void collect(const char *name, void *arg)
{
	struct seen *s = arg;

	if (s->n < 16)
		snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
	s->n++;
}

static void test_kallsyms_file(void)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff810be350 T __x64_sys_getpid\n"
		"ffffffff810be340 T __pfx___x64_sys_getpid\n"
		"ffffffff810be360 t __ia32_sys_getpid\n"
		"ffffffff810be370 t do_one.isra.0\n"
		"ffffffff810be372 t do_one.cold\n"
		"ffffffff810be374 t do.part.1.constprop.0.cold\n"
		"ffffffff810be380 D some_data\n"
		"ffffffff810be390 t vfs_read\n"
		"ffffffff810be390 T vfs_read\n"
		"ffffffffc0000000 t brd_submit_bio\t[brd]\n"
		"ffffffff810be3a0 T __x64_sys_getppid\n";
	char path[] = "/tmp/test-ksyms-XXXXXX";
	int fd = mkstemp(path);
	struct ksyms *s;
	struct seen seen = { 0 };
	char *err = NULL;

	if (!tap_ok(fd >= 0, "a temporary kallsyms file"))
		return;
	if (write(fd, text, sizeof(text) - 1) != (ssize_t)sizeof(text) - 1)
		tap_diag("short write");
	close(fd);
	setenv("TAPIR_KALLSYMS", path, 1);
	s = ksyms_load("no-such-kernel", NULL, &err);
	unsetenv("TAPIR_KALLSYMS");
	unlink(path);
	if (!tap_ok(s != NULL, "kallsyms file read: %s", err ? err : "ok"))
		return;
	tap_int_eq((long long)ksyms_count(s), 5,
		   "text symbols of the kernel, once each, without "
		   "__pfx_, clones, data and module symbols");
	tap_ok(ksyms_has(s, "__x64_sys_getpid"), "has __x64_sys_getpid");
	tap_ok(ksyms_has(s, "__ia32_sys_getpid"), "has a local (t) symbol");
	tap_ok(!ksyms_has(s, "some_data"), "no data symbols");
	tap_ok(!ksyms_has(s, "brd_submit_bio"), "no module symbols");
	tap_ok(!ksyms_has(s, "do_one.isra.0"), "no compiler clones");
	tap_ok(!ksyms_has(s, "__pfx___x64_sys_getpid"), "no __pfx_ names");
	tap_int_eq((long long)ksyms_clones(s, "do_one", collect, &seen), 1,
		   "do_one has one clone");
	if (seen.n == 1)
		tap_str_eq(seen.names[0], "do_one.isra.0", "the clone's name");
	tap_int_eq((long long)ksyms_clones(s, "do", NULL, NULL), 0,
		   "a prefix of a function has no clones");
	seen.n = 0;
	ksyms_matching(s, "__x64_sys_getp*", collect, &seen);
	tap_int_eq(seen.n, 2, "__x64_sys_getp* matches two");
	if (seen.n == 2) {
		tap_str_eq(seen.names[0], "__x64_sys_getpid", "sorted: first");
		tap_str_eq(seen.names[1], "__x64_sys_getppid", "sorted: second");
	}
	seen.n = 0;
	ksyms_matching(s, "*sys_getpid", collect, &seen);
	tap_int_eq(seen.n, 2, "*sys_getpid (no literal prefix) matches two");
	seen.n = 0;
	ksyms_matching(s, "vfs_read", collect, &seen);
	tap_int_eq(seen.n, 1, "an exact name matches once");
	seen.n = 0;
	ksyms_matching(s, "zzz*", collect, &seen);
	tap_int_eq(seen.n, 0, "a prefix past the end matches nothing");
	ksyms_free(s);
}

static void test_debuginfo(void)
{
	const char *k = "6.1.0-56-amd64";
	char path[128];
	struct ksyms *s;
	char *err = NULL;
	struct seen seen = { 0 };

	snprintf(path, sizeof(path), "/usr/lib/debug/boot/vmlinux-%s", k);
	if (!file_exists(path)) {
		tap_diag("%s not installed: the debuginfo symbol table is "
			 "not checked", path);
		return;
	}
	s = ksyms_load(k, NULL, &err);
	if (!tap_ok(s != NULL, "%s: symbols from the debuginfo vmlinux: %s",
		    k, err ? err : "ok"))
		return;
	tap_ok(ksyms_count(s) > 40000, "%s: %zu function symbols", k,
	       ksyms_count(s));
	tap_ok(ksyms_has(s, "__x64_sys_getpid"),
	       "%s: has __x64_sys_getpid (BTF has no record of it)", k);
	ksyms_matching(s, "__x64_sys_getp*", collect, &seen);
	tap_ok(seen.n >= 3, "%s: __x64_sys_getp* matches getpid, getppid, "
	       "getpgid...: %d", k, seen.n);
	ksyms_free(s);
}

/* The kallsyms tables inside vmlinuz: a kernel whose image is there
 * must decode (a failure fails, it is not skipped).
 */
static void test_vmlinuz(const char *k, size_t lo, size_t hi)
{
	char path[128], *err = NULL;
	struct ksyms *s;
	struct seen seen = { 0 };

	snprintf(path, sizeof(path), "/boot/vmlinuz-%s", k);
	if (!file_exists(path)) {
		tap_diag("%s not installed: its kallsyms are not checked",
			 path);
		return;
	}
	s = ksyms_load_vmlinuz(k, NULL, &err);
	if (!tap_ok(s != NULL, "%s: symbols from the kallsyms in vmlinuz: %s",
		    k, err ? err : "ok")) {
		free(err);
		return;
	}
	tap_ok(ksyms_count(s) > lo && ksyms_count(s) < hi,
	       "%s: %zu function symbols", k, ksyms_count(s));
	tap_ok(ksyms_has(s, "__x64_sys_getpid") && ksyms_has(s, "vfs_read") &&
	       ksyms_has(s, "schedule") && ksyms_has(s, "_stext"),
	       "%s: has __x64_sys_getpid, vfs_read, schedule, _stext", k);
	tap_ok(!ksyms_has(s, "jiffies"), "%s: no data symbols", k);
	ksyms_matching(s, "__x64_sys_getp*", collect, &seen);
	tap_ok(seen.n >= 3, "%s: __x64_sys_getp* matches %d", k, seen.n);
	tap_ok(ksyms_has(s, "finish_task_switch") ||
	       ksyms_clones(s, "finish_task_switch", NULL, NULL) == 1,
	       "%s: finish_task_switch, or one clone of it", k);
	ksyms_free(s);
}

static void test_missing(void)
{
	char *err = NULL;
	struct ksyms *s = ksyms_load("0.0.0-no-such-kernel", NULL, &err);

	tap_ok(s == NULL, "no list for an unknown kernel");
	tap_ok(err && strstr(err, "/boot/vmlinuz-0.0.0-no-such-kernel"),
	       "the error says why: %s", err ? err : "(none)");
	free(err);
}

int main(void)
{
	test_kallsyms_file();
	test_debuginfo();
	test_vmlinuz("6.1.0-56-amd64", 40000, 60000);
	test_vmlinuz("6.12.117+deb12-amd64", 40000, 80000);
	test_missing();
	return tap_done();
}
