/* cache.h - keeping the cache directory ($SYSTEMTAP_DIR/cache) to its
 * size limit: the least recently used files go first.
 */
#ifndef TAPIR_CACHE_H
#define TAPIR_CACHE_H

#include <stdbool.h>

/* The limits a user sets in two files of the cache directory, as the
 * established tool reads them: cache_mb_limit (MiB) and
 * cache_clean_interval_s (the least time between two automatic trims).
 */
#define CACHE_MB_LIMIT_DEFAULT		256
#define CACHE_CLEAN_INTERVAL_DEFAULT	300

struct cache_limits {
	unsigned long long bytes;
	long interval;
};

struct cache_trim_result {
	unsigned long long before;	/* bytes the files held */
	unsigned long long after;
	int removed;			/* files removed */
};

void cache_read_limits(const char *dir, struct cache_limits *l);

/* Remove the least recently used files under dir until what is left
 * holds at most limit bytes; keep (a path, or NULL) and the limit files
 * stay.  Returns -1 when dir cannot be read.
 */
int cache_trim(const char *dir, unsigned long long limit, const char *keep,
	       struct cache_trim_result *r);

/* After a run that used the cache: trim it to its limit when force is
 * set or the interval has passed since the last trim.  Returns 1 when
 * it trimmed (r filled), 0 when it was not due, -1 on error.
 */
int cache_maintain(const char *dir, bool force, const char *keep,
		   struct cache_trim_result *r);

/* Mark a cache file as used now (a hit), for the trim's order. */
void cache_touch(const char *path);

#endif
