/* stp_stat.h - statistics (the '<<<' aggregates): per-CPU counters
 * merged on read, linear and logarithmic histograms, and their printing
 * in the established tool's format.
 */
#ifndef STP_STAT_H
#define STP_STAT_H

#include "stp_limits.h"

enum stp_stat_op {
	STP_STAT_COUNT,
	STP_STAT_SUM,
	STP_STAT_MIN,
	STP_STAT_MAX,
	STP_STAT_AVG,
	STP_STAT_VARIANCE,
};

enum stp_hist_type {
	STP_HIST_NONE,
	STP_HIST_LINEAR,
	STP_HIST_LOG,
};

/* Which parts a statistic keeps, from what the script extracts. */
struct stp_stat_desc {
	unsigned int ops;		/* bit (1 << enum stp_stat_op) */
	enum stp_hist_type hist;
	int64_t start, stop, interval;	/* linear */
	int buckets;			/* linear: (stop-start)/interval + 3;
					 * log: 128 */
	int variance_shift;		/* @variance(s, shift) */
};

/* Merged values. */
struct stp_stat_agg {
	int64_t count, sum, min, max;
	int64_t avg_s;			/* Welford mean, scaled by shift */
	int64_t m2;			/* Welford sum of squares, scaled */
	int64_t variance;
	int64_t hist[STP_MAX_BUCKETS];
};

struct stp_stat;			/* opaque: per-CPU parts */

struct stp_stat *_stp_stat_new(const struct stp_stat_desc *d);
void _stp_stat_del(struct stp_stat *st);
void _stp_stat_clear(struct stp_stat *st);
/* s <<< v: this CPU's part only. */
void _stp_stat_add(struct stp_stat *st, int64_t v);
/* Merge every CPU's part; the result lives in st until the next call. */
const struct stp_stat_agg *_stp_stat_get(struct stp_stat *st);

/* Extraction from merged values.  @min/@max/@avg/@variance of an empty
 * statistic are errors: these return -ENODATA and the caller raises
 * "empty aggregate"; @count and @sum of an empty one are 0.
 */
int _stp_stat_extract(const struct stp_stat_desc *d,
		      const struct stp_stat_agg *a, enum stp_stat_op op,
		      int64_t *out);
/* @hist_*(s)[b]: the count of bucket number b, as the established tool
 * indexes histograms (linear: 0 is underflow, 1 + (v - start) / interval,
 * buckets - 1 is overflow; log: 64 holds 0, 64 + k holds [2^(k-1), 2^k),
 * 64 - k holds (-2^k, -2^(k-1)]).  -EINVAL when b is outside.
 */
int _stp_stat_bucket(const struct stp_stat_desc *d,
		     const struct stp_stat_agg *a, int64_t b, int64_t *out);
/* foreach (b in @hist_*(s)) visits every bucket i, 0 <= i < buckets, and
 * binds b to this: the bucket number i itself, which is what the
 * established tool gives (and what _stp_stat_bucket takes).
 */
int64_t _stp_stat_bucket_key(const struct stp_stat_desc *d, int i);

/* Print a histogram as the established tool does (into the probe's
 * print buffer through _stp_print*).  An empty one prints just the
 * header and the closing blank line; the translator is expected to raise
 * "empty aggregate" before printing one, as the established tool does.
 */
void _stp_stat_print_hist(const struct stp_stat_desc *d,
			  const struct stp_stat_agg *a);
#ifdef STP_JSON
/* stap --json: the members "count","sum","min","max","avg" (only count
 * and sum when empty), and those of a histogram (doc/json.md).
 */
void _stp_stat_print_json(const struct stp_stat_agg *a);
void _stp_stat_print_hist_json(const struct stp_stat_desc *d,
			       const struct stp_stat_agg *a);
#endif
/* The same chart into buf (sprint): at most size - 1 bytes and a NUL.
 * Returns the length of the whole chart, like snprintf.
 */
int _stp_stat_sprint_hist(const struct stp_stat_desc *d,
			  const struct stp_stat_agg *a, char *buf,
			  size_t size);

#endif
