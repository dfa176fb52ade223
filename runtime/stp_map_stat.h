/* stp_map_stat.h - private to the runtime: one CPU's share of a
 * statistic, histogram bucket arithmetic, and the merge of the shares
 * into a struct stp_stat_agg.  Used by stp_stat.c and stp_map.c.
 */
#ifndef STP_MAP_STAT_H
#define STP_MAP_STAT_H

#include "stp_stat.h"

#define STP_HIST_LOG_BUCKETS	128
#define STP_HIST_LOG_BUCKET0	64	/* the bucket of the value 0 */

#define STP_STAT_WANTS(d, op)	((d)->ops & (1u << (op)))

/* One CPU's share.  avg_s and m2 are Welford's running mean and sum of
 * squared deviations, both scaled by 2^variance_shift as the established
 * tool keeps them, so that @variance gives its integer results.
 */
struct stp_stat_part {
	int64_t count, sum, min, max;
	int64_t avg_s, m2;
	int64_t hist[];			/* d->buckets of them, if any */
};

/*
 * Script arithmetic wraps (the kernel builds with -fno-strict-overflow);
 * these make the wrap explicit so host builds with -fsanitize=undefined
 * agree with the module.
 */
static inline int64_t stp_stat_wadd(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline int64_t stp_stat_wsub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

static inline int64_t stp_stat_wmul(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a * (uint64_t)b);
}

static inline int64_t stp_stat_wshl(int64_t a, int shift)
{
	return (int64_t)((uint64_t)a << shift);
}

static inline size_t stp_stat_part_size(const struct stp_stat_desc *d)
{
	size_t n = d->hist == STP_HIST_NONE ? 0 : (size_t)d->buckets;

	return sizeof(struct stp_stat_part) + n * sizeof(int64_t);
}

/* A desc the translator got wrong must not index outside hist[]. */
static inline bool stp_stat_desc_ok(const struct stp_stat_desc *d)
{
	if (d->variance_shift < 0 || d->variance_shift > 62)
		return false;
	switch (d->hist) {
	case STP_HIST_NONE:
		return true;
	case STP_HIST_LOG:
		return d->buckets == STP_HIST_LOG_BUCKETS &&
		       STP_HIST_LOG_BUCKETS <= STP_MAX_BUCKETS;
	case STP_HIST_LINEAR:
		return d->interval > 0 && d->buckets >= 3 &&
		       d->buckets <= STP_MAX_BUCKETS;
	}
	return false;
}

/* Log buckets: 64 holds 0; 64 + k holds [2^(k-1), 2^k); 64 - k holds
 * (-2^k, -2^(k-1)], so INT64_MIN lands in bucket 0.
 */
static inline int stp_hist_log_index(int64_t v)
{
	uint64_t mag;

	if (v == 0)
		return STP_HIST_LOG_BUCKET0;
	mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
	if (v < 0)
		return STP_HIST_LOG_BUCKET0 - fls64(mag);
	return STP_HIST_LOG_BUCKET0 + fls64(mag);
}

/* The value a log bucket is labelled with: 0, 2^(k-1) or -2^(k-1). */
static inline int64_t stp_hist_log_value(int i)
{
	if (i == STP_HIST_LOG_BUCKET0)
		return 0;
	if (i > STP_HIST_LOG_BUCKET0)
		return (int64_t)(1ULL << (i - STP_HIST_LOG_BUCKET0 - 1));
	return (int64_t)(~0ULL << (STP_HIST_LOG_BUCKET0 - 1 - i));
}

/* Linear buckets: 0 is underflow (below start), 1 + (v - start) / interval
 * up to buckets - 2, and buckets - 1 is overflow.  The subtraction is
 * done unsigned, after the underflow test, so it cannot overflow.
 */
static inline int stp_hist_linear_index(const struct stp_stat_desc *d,
					int64_t v)
{
	uint64_t off;

	if (v < d->start)
		return 0;
	off = div64_u64((uint64_t)v - (uint64_t)d->start,
			(uint64_t)d->interval);
	if (off >= (uint64_t)(d->buckets - 2))
		return d->buckets - 1;
	return (int)off + 1;
}

static inline void stp_stat_part_hist(const struct stp_stat_desc *d,
				      struct stp_stat_part *p, int64_t v)
{
	if (d->hist == STP_HIST_LOG)
		p->hist[stp_hist_log_index(v)]++;
	else if (d->hist == STP_HIST_LINEAR)
		p->hist[stp_hist_linear_index(d, v)]++;
}

/* s <<< v on one CPU's share.  The Welford step costs a division, so
 * it runs only when the script reads @variance.
 */
static inline void stp_stat_part_add(const struct stp_stat_desc *d,
				     struct stp_stat_part *p, int64_t v)
{
	int64_t vs = stp_stat_wshl(v, d->variance_shift);
	int64_t delta;

	stp_stat_part_hist(d, p, v);
	if (p->count == 0) {
		p->count = 1;
		p->sum = p->min = p->max = v;
		p->avg_s = vs;
		p->m2 = 0;
		return;
	}
	p->count++;
	p->sum = stp_stat_wadd(p->sum, v);
	if (v < p->min)
		p->min = v;
	if (v > p->max)
		p->max = v;
	if (!STP_STAT_WANTS(d, STP_STAT_VARIANCE))
		return;
	delta = stp_stat_wsub(vs, p->avg_s);
	p->avg_s = stp_stat_wadd(p->avg_s, div64_s64(delta, p->count));
	delta = stp_stat_wmul(delta, stp_stat_wsub(vs, p->avg_s));
	p->m2 = stp_stat_wadd(p->m2, delta);
}

static inline void stp_stat_agg_reset(const struct stp_stat_desc *d,
				      struct stp_stat_agg *a)
{
	a->count = a->sum = a->min = a->max = 0;
	a->avg_s = a->m2 = a->variance = 0;
	if (d->hist != STP_HIST_NONE)
		memset(a->hist, 0, d->buckets * sizeof(a->hist[0]));
}

/* First pass of a merge: everything but the variance. */
static inline void stp_stat_agg_fold(const struct stp_stat_desc *d,
				     struct stp_stat_agg *a,
				     const struct stp_stat_part *p)
{
	int i;

	if (!p->count)
		return;
	if (!a->count || p->min < a->min)
		a->min = p->min;
	if (!a->count || p->max > a->max)
		a->max = p->max;
	a->count += p->count;
	a->sum = stp_stat_wadd(a->sum, p->sum);
	if (d->hist == STP_HIST_NONE)
		return;
	for (i = 0; i < d->buckets; i++)
		a->hist[i] += p->hist[i];
}

/* Between the passes: the exact scaled mean of all CPUs, and m2 reset
 * to collect the total-variance sums.
 */
static inline void stp_stat_agg_mean(const struct stp_stat_desc *d,
				     struct stp_stat_agg *a)
{
	a->avg_s = 0;
	if (a->count)
		a->avg_s = div64_s64(stp_stat_wshl(a->sum, d->variance_shift),
				     a->count);
	a->m2 = 0;
}

/*
 * Second pass: the total-variance formula (Kamat and Nandi, SIGMOD
 * Record 2015) as the established tool applies it, with each CPU's
 * variance truncated to an integer before it is weighted:
 *   m2 = sum_i n_i (mean_i - mean)^2 + (n_i - 1) (M2_i / (n_i - 1))
 */
static inline void stp_stat_agg_fold_var(struct stp_stat_agg *a,
					 const struct stp_stat_part *p)
{
	int64_t dev, var = 0;

	if (!p->count)
		return;
	dev = stp_stat_wsub(p->avg_s, a->avg_s);
	a->m2 = stp_stat_wadd(a->m2,
			      stp_stat_wmul(p->count, stp_stat_wmul(dev, dev)));
	if (p->count > 1)
		var = div64_s64(p->m2, p->count - 1);
	a->m2 = stp_stat_wadd(a->m2, stp_stat_wmul(p->count - 1, var));
}

static inline void stp_stat_agg_finish(const struct stp_stat_desc *d,
				       struct stp_stat_agg *a)
{
	int64_t var;
	int shift = 2 * d->variance_shift;

	a->variance = 0;
	if (!STP_STAT_WANTS(d, STP_STAT_VARIANCE) || a->count < 2)
		return;
	var = div64_s64(a->m2, a->count - 1);
	if (shift >= 64)
		a->variance = var < 0 ? -1 : 0;
	else
		a->variance = var >> shift;
}

/* An aggregate's value for extraction and sorting; 0 when empty. */
static inline int64_t stp_stat_agg_value(const struct stp_stat_agg *a,
					 enum stp_stat_op op)
{
	switch (op) {
	case STP_STAT_COUNT:
		return a->count;
	case STP_STAT_SUM:
		return a->sum;
	case STP_STAT_MIN:
		return a->min;
	case STP_STAT_MAX:
		return a->max;
	case STP_STAT_AVG:
		return a->count ? div64_s64(a->sum, a->count) : 0;
	case STP_STAT_VARIANCE:
		return a->variance;
	}
	return 0;
}

#endif
