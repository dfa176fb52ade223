/* test-relay.c - staprun's output files under -S MB[,N] (loader/relay.c)
 * on the host: regular files stand for the module's relay files
 * (trace0, trace1), and what relay_drain() copies out of them must land
 * in FILE.0, FILE.1, ... (FILE_cpuC.N in bulk mode), a new file once
 * one holds MB megabytes, the oldest removed past N, nothing lost or
 * repeated.  switch_file() moves to the next file of the rotation.
 */
#include "../../loader/relay.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MB (1024 * 1024)
#define LINE 16			/* "line %10d\n" */

static char dir[64];

static char *path(const char *name)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

/* A relay file of n lines numbered from first. */
static void make_trace(int cpu, long first, long n)
{
	char name[32];
	FILE *f;
	long i;

	snprintf(name, sizeof(name), "trace%d", cpu);
	f = fopen(path(name), "w");
	if (!f)
		abort();
	for (i = 0; i < n; i++)
		fprintf(f, "line %10ld\n", first + i);
	fclose(f);
}

static long long size_of(const char *name)
{
	struct stat st;

	return stat(path(name), &st) == 0 ? (long long)st.st_size : -1;
}

/* The files' lines continue one another from first, without a gap:
 * the number of lines, or -1.
 */
static long lines_from(long first, const char *const *names, int n)
{
	char buf[64];
	long want = first, got;
	int i;

	for (i = 0; i < n; i++) {
		FILE *f = fopen(path(names[i]), "r");

		if (!f)
			return -1;
		while (fgets(buf, sizeof(buf), f)) {
			if (sscanf(buf, "line %ld", &got) != 1 ||
			    got != want) {
				fclose(f);
				return -1;
			}
			want++;
		}
		fclose(f);
	}
	return want - first;
}

static void cleanup(void)
{
	static const char *const names[] = {
		"trace0", "trace1", "out", "out.0", "out.1", "out.2", "out.3",
		"out.4", "out_cpu0.0", "out_cpu0.1", "out_cpu0.2",
		"out_cpu0.3", "out_cpu1.0", "out_cpu1.1", "out_cpu1.2",
		"out_cpu1.3",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(path(names[i]));
}

static int copy(bool bulk, long mb, int keep)
{
	struct relay r;
	int err;

	err = relay_open(&r, dir, 2, bulk, 0, path("out"), false, mb, keep);
	if (!err)
		relay_drain(&r);
	relay_close(&r);
	return err;
}

/* 3.5 MB in 1 MB files, 2 kept: out.2 (1 MB) and out.3 (0.5 MB) hold
 * the last 1.5 MB.
 */
static void test_merged_keep(void)
{
	static const char *const kept[] = { "out.2", "out.3" };
	long n = 7 * MB / 2 / LINE;

	cleanup();
	make_trace(0, 0, n);
	make_trace(1, 0, 0);
	tap_int_eq(copy(false, 1, 2), 0, "merged -S 1,2: opened");
	tap_ok(size_of("out.0") < 0 && size_of("out.1") < 0 &&
	       size_of("out") < 0, "merged -S 1,2: out.0 and out.1 removed, "
	       "no plain out");
	tap_int_eq(size_of("out.2"), MB, "merged -S 1,2: out.2 is 1 MB");
	tap_int_eq(size_of("out.3"), MB / 2, "merged -S 1,2: out.3 has the "
		   "last 0.5 MB");
	tap_int_eq(size_of("out.4"), -1, "merged -S 1,2: no out.4");
	tap_int_eq(lines_from(n - 3 * MB / 2 / LINE, kept, 2),
		   3 * MB / 2 / LINE, "merged -S 1,2: the kept files hold "
		   "the newest lines, in order, none lost");
}

/* Without N every file stays, and together they are the whole run. */
static void test_merged_all(void)
{
	static const char *const all[] = { "out.0", "out.1", "out.2",
					   "out.3" };
	long n = 7 * MB / 2 / LINE;

	cleanup();
	make_trace(0, 0, n);
	make_trace(1, 0, 0);
	tap_int_eq(copy(false, 1, 0), 0, "merged -S 1: opened");
	tap_int_eq(lines_from(0, all, 4), n, "merged -S 1: out.0 to out.3 "
		   "hold every line once, in order");
	tap_ok(size_of("out.0") == MB && size_of("out.1") == MB &&
	       size_of("out.2") == MB, "merged -S 1: each full file is 1 MB");
}

/* Bulk mode: each CPU has its own files, numbered on their own. */
static void test_bulk(void)
{
	static const char *const cpu0[] = { "out_cpu0.1", "out_cpu0.2" };
	static const char *const cpu1[] = { "out_cpu1.1", "out_cpu1.2" };
	long n = 5 * MB / 2 / LINE;

	cleanup();
	make_trace(0, 0, n);
	make_trace(1, 1000000, n);
	tap_int_eq(copy(true, 1, 2), 0, "bulk -S 1,2: opened");
	tap_ok(size_of("out_cpu0.0") < 0 && size_of("out_cpu1.0") < 0,
	       "bulk -S 1,2: each CPU's oldest file removed");
	tap_int_eq(lines_from(MB / LINE, cpu0, 2), 3 * MB / 2 / LINE,
		   "bulk -S 1,2: CPU 0's last 1.5 MB in out_cpu0.1, .2");
	tap_int_eq(lines_from(1000000 + MB / LINE, cpu1, 2),
		   3 * MB / 2 / LINE,
		   "bulk -S 1,2: CPU 1's last 1.5 MB in out_cpu1.1, .2");
	tap_int_eq(size_of("out_cpu0.3"), -1, "bulk -S 1,2: no file past");
}

/* switch_file() (or SIGUSR2) under -S: the next file of the rotation. */
static void test_switch(void)
{
	struct relay r;

	cleanup();
	make_trace(0, 0, 10);
	make_trace(1, 0, 0);
	tap_int_eq(relay_open(&r, dir, 2, false, 0, path("out"), false, 1, 1),
		   0, "switch_file -S 1,1: opened");
	relay_drain(&r);
	tap_int_eq(relay_switch_file(&r), 0, "switch_file -S 1,1: switched");
	relay_close(&r);
	tap_ok(size_of("out.0") < 0 && size_of("out.1") == 0,
	       "switch_file -S 1,1: out.1 follows, out.0 (past N) removed");
}

/* Without -S nothing changes: one file, named as given. */
static void test_plain(void)
{
	cleanup();
	make_trace(0, 0, 3 * MB / LINE);
	make_trace(1, 0, 0);
	tap_int_eq(copy(false, 0, 0), 0, "no -S: opened");
	tap_ok(size_of("out") == 3 * MB && size_of("out.0") < 0,
	       "no -S: one file of 3 MB, named as given");
}

int main(void)
{
	snprintf(dir, sizeof(dir), "%s/relay-test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	test_merged_keep();
	test_merged_all();
	test_bulk();
	test_switch();
	test_plain();
	cleanup();
	rmdir(dir);
	return tap_done();
}
