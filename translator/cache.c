/* cache.c - the cache directory kept to its size limit.
 *
 * Everything stap caches (modules, the runtime's core objects, the
 * compile probes' answers, the BTF, symbol and DWARF indexes) is a file
 * under one directory, and each can be made again.  After a run that
 * used the cache, at most once per cache_clean_interval_s seconds, the
 * files are listed with their sizes and last use, and the least
 * recently used are removed until the rest fit in cache_mb_limit MiB.
 * A file's last use is the later of its access and modification times;
 * a cache hit also sets the modification time (cache_touch), since a
 * relatime mount updates the access time at most once a day.
 */
#define _GNU_SOURCE
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LIMIT_FILE	"cache_mb_limit"
#define INTERVAL_FILE	"cache_clean_interval_s"
#define STAMP_FILE	".last_trim"

/* a temporary file younger than this may be a store under way */
#define TMP_GRACE	3600

struct cache_file {
	char *path;
	unsigned long long size;
	time_t used;
};

struct cache_list {
	struct cache_file *v;
	size_t n, cap;
	unsigned long long total;
	bool failed;
};

static long long read_number(const char *dir, const char *name, long long def)
{
	char path[4096], buf[64], *end;
	long long v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return def;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return def;
	}
	fclose(f);
	errno = 0;
	v = strtoll(buf, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (errno || end == buf || *end || v < 0)
		return def;
	return v;
}

void cache_read_limits(const char *dir, struct cache_limits *l)
{
	long long mb = read_number(dir, LIMIT_FILE, CACHE_MB_LIMIT_DEFAULT);

	if (mb > (long long)(~0ULL >> 21))
		mb = ~0ULL >> 21;
	l->bytes = (unsigned long long)mb << 20;
	l->interval = read_number(dir, INTERVAL_FILE,
				  CACHE_CLEAN_INTERVAL_DEFAULT);
}

static bool is_control(const char *name)
{
	return !strcmp(name, LIMIT_FILE) || !strcmp(name, INTERVAL_FILE) ||
	       !strcmp(name, STAMP_FILE);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static void add_file(struct cache_list *l, const char *path,
		     const struct stat *st)
{
	struct cache_file *f;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct cache_file *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->failed = true;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	f = &l->v[l->n];
	f->path = strdup(path);
	if (!f->path) {
		l->failed = true;
		return;
	}
	f->size = (unsigned long long)st->st_blocks * 512;
	f->used = st->st_mtime > st->st_atime ? st->st_mtime : st->st_atime;
	l->total += f->size;
	l->n++;
}

/* Every regular file under dir (the limit files at the top aside);
 * subdirectories to a small depth, symbolic links not followed.
 */
static int list_files(struct cache_list *l, const char *dir, int depth,
		      time_t now)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[4096];
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (depth == 0 && is_control(e->d_name))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     e->d_name) >= sizeof(path))
			continue;
		if (lstat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth < 4)
				list_files(l, path, depth + 1, now);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		if (ends_with(e->d_name, ".tmp") &&
		    now - st.st_mtime < TMP_GRACE)
			continue;
		add_file(l, path, &st);
	}
	closedir(d);
	return 0;
}

static int by_use(const void *a, const void *b)
{
	const struct cache_file *x = a, *y = b;

	if (x->used != y->used)
		return x->used < y->used ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* An emptied two-hex-digit module directory goes with its last file. */
static void remove_parent_if_empty(const char *top, const char *path)
{
	char parent[4096];
	char *slash;

	snprintf(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	if (!slash)
		return;
	*slash = '\0';
	if (strcmp(parent, top))
		rmdir(parent);
}

int cache_trim(const char *dir, unsigned long long limit, const char *keep,
	       struct cache_trim_result *r)
{
	struct cache_list l = { 0 };
	size_t i;

	memset(r, 0, sizeof(*r));
	if (list_files(&l, dir, 0, time(NULL)) < 0)
		return -1;
	r->before = r->after = l.total;
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), by_use);
	for (i = 0; i < l.n && r->after > limit; i++) {
		if (keep && !strcmp(l.v[i].path, keep))
			continue;
		if (unlink(l.v[i].path) < 0)
			continue;
		r->after -= l.v[i].size;
		r->removed++;
		remove_parent_if_empty(dir, l.v[i].path);
	}
	for (i = 0; i < l.n; i++)
		free(l.v[i].path);
	free(l.v);
	return l.failed ? -1 : 0;
}

int cache_maintain(const char *dir, bool force, const char *keep,
		   struct cache_trim_result *r)
{
	struct cache_limits lim;
	char stamp[4096];
	struct stat st;
	time_t now = time(NULL);
	int fd;

	cache_read_limits(dir, &lim);
	snprintf(stamp, sizeof(stamp), "%s/%s", dir, STAMP_FILE);
	if (!force && stat(stamp, &st) == 0 && now >= st.st_mtime &&
	    now - st.st_mtime < lim.interval)
		return 0;
	if (cache_trim(dir, lim.bytes, keep, r) < 0)
		return -1;
	fd = open(stamp, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		futimens(fd, NULL);
		close(fd);
	}
	return 1;
}

void cache_touch(const char *path)
{
	utimensat(AT_FDCWD, path, NULL, 0);
}
