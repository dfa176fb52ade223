/* test-cache.c - unit tests for the cache's size limit
 * (translator/cache.c): the limit files, the order of removal by last
 * use, the file a run uses, temporary files of a store under way, the
 * interval between two automatic trims.
 */
#define _GNU_SOURCE
#include "cache.h"
#include "tap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char top[256];

static const char *at(const char *name)
{
	static char path[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", top, name);
	return path[i];
}

/* a file of kib KiB last used ago seconds before now */
static void put(const char *name, int kib, time_t ago)
{
	static char block[1024];
	struct timespec ts[2];
	FILE *f = fopen(at(name), "w");
	int i;

	memset(block, 'x', sizeof(block));
	for (i = 0; f && i < kib; i++)
		fwrite(block, 1, sizeof(block), f);
	if (f)
		fclose(f);
	ts[0].tv_sec = ts[1].tv_sec = time(NULL) - ago;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	utimensat(AT_FDCWD, at(name), ts, 0);
}

static bool here(const char *name)
{
	return access(at(name), F_OK) == 0;
}

static void write_text(const char *name, const char *text)
{
	FILE *f = fopen(at(name), "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_limits(void)
{
	struct cache_limits l;

	cache_read_limits(top, &l);
	tap_ok(l.bytes == (unsigned long long)CACHE_MB_LIMIT_DEFAULT << 20 &&
	       l.interval == CACHE_CLEAN_INTERVAL_DEFAULT,
	       "no limit files: 256 MiB, 300 s");
	write_text("cache_mb_limit", "2\n");
	write_text("cache_clean_interval_s", " 30\n");
	cache_read_limits(top, &l);
	tap_ok(l.bytes == 2ULL << 20, "cache_mb_limit 2: 2 MiB");
	tap_ok(l.interval == 30, "cache_clean_interval_s 30, blanks around");
	write_text("cache_clean_interval_s", "30 s\n");
	cache_read_limits(top, &l);
	tap_ok(l.interval == 300, "a number with a unit: the default");
	write_text("cache_mb_limit", "lots\n");
	cache_read_limits(top, &l);
	tap_ok(l.bytes == (unsigned long long)CACHE_MB_LIMIT_DEFAULT << 20,
	       "a limit that is no number: the default");
	write_text("cache_mb_limit", "-5");
	cache_read_limits(top, &l);
	tap_ok(l.bytes == (unsigned long long)CACHE_MB_LIMIT_DEFAULT << 20,
	       "a negative limit: the default");
}

/* Five module entries and a core object, 100 KiB each, used from
 * 50 s to 10 s ago; a 350 KiB limit keeps the three last used.
 */
static void test_order(void)
{
	struct cache_trim_result r;

	mkdir(at("aa"), 0755);
	mkdir(at("bb"), 0755);
	put("aa/stap_aa1.ko", 100, 50);
	put("bb/stap_bb1.ko", 100, 40);
	put("aa/stap_aa2.ko", 100, 30);
	put("core_1.o", 100, 20);
	put("bb/stap_bb2.ko", 100, 10);
	tap_ok(cache_trim(top, 350 << 10, NULL, &r) == 0, "trim to 350 KiB");
	tap_int_eq(r.removed, 2, "the two least recently used removed");
	tap_ok(!here("aa/stap_aa1.ko") && !here("bb/stap_bb1.ko") &&
	       here("aa/stap_aa2.ko") && here("core_1.o") &&
	       here("bb/stap_bb2.ko"), "the three last used stay");
	tap_ok(r.before >= 500 << 10 && r.after <= 350 << 10 &&
	       r.after >= 300 << 10, "sizes before and after");
	tap_ok(here("cache_mb_limit") && here("cache_clean_interval_s"),
	       "the limit files stay");
	tap_ok(cache_trim(top, 350 << 10, NULL, &r) == 0 && r.removed == 0,
	       "within the limit: nothing removed");

	/* a hit makes the oldest entry the newest */
	cache_touch(at("aa/stap_aa2.ko"));
	tap_ok(cache_trim(top, 250 << 10, NULL, &r) == 0 && r.removed == 1 &&
	       here("aa/stap_aa2.ko") && !here("core_1.o"),
	       "a touched entry outlives one used after it");

	/* the module a run uses stays even over the limit */
	tap_ok(cache_trim(top, 0, at("aa/stap_aa2.ko"), &r) == 0 &&
	       r.removed == 1 && here("aa/stap_aa2.ko") &&
	       !here("bb/stap_bb2.ko"), "limit 0: all but the kept file");
	tap_ok(access(at("bb"), F_OK) != 0 && access(at("aa"), F_OK) == 0,
	       "an emptied entry directory goes, one with a file stays");
}

/* a temporary file of a store under way is left alone; an hour-old
 * one (a store that died) goes first
 */
static void test_tmp(void)
{
	struct cache_trim_result r;

	put("core_2.o.123.tmp", 100, 5);
	put("core_3.o.456.tmp", 100, 7200);
	tap_ok(cache_trim(top, 0, NULL, &r) == 0, "trim to 0");
	tap_ok(here("core_2.o.123.tmp") && !here("core_3.o.456.tmp"),
	       "a fresh .tmp stays, an hour-old one goes");
	unlink(at("core_2.o.123.tmp"));
}

static void test_interval(void)
{
	struct cache_trim_result r;

	write_text("cache_mb_limit", "0");
	write_text("cache_clean_interval_s", "3600");
	unlink(at(".last_trim"));
	put("old.idx", 10, 100);
	tap_int_eq(cache_maintain(top, false, NULL, &r), 1,
		   "the first maintenance trims");
	tap_ok(!here("old.idx") && here(".last_trim"),
	       "it removed the file and left its stamp");
	put("old.idx", 10, 100);
	tap_int_eq(cache_maintain(top, false, NULL, &r), 0,
		   "within the interval: not due");
	tap_ok(here("old.idx"), "the file stays until the next trim");
	tap_int_eq(cache_maintain(top, true, NULL, &r), 1,
		   "forced (--clean-cache): trims");
	tap_ok(!here("old.idx") && here(".last_trim"),
	       "the stamp is never removed");
	tap_int_eq(cache_maintain("/nonexistent/tapir-cache", true, NULL, &r),
		   -1, "a missing directory is an error for the caller");
}

int main(void)
{
	char cmd[300];

	snprintf(top, sizeof(top), "%s/cache-test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(top)) {
		perror("mkdtemp");
		return 2;
	}
	test_limits();
	test_order();
	test_tmp();
	test_interval();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", top);
	return tap_done();
}
