/* stp_stat.c - statistics: per-CPU shares that '<<<' updates without a
 * shared write, their merge on read, extraction of @count..@variance and
 * histogram buckets, and the histogram chart in the established format.
 */
#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>
#else
#include "kshim.h"
#endif

#include "stp_print.h"
#include "stp_stat.h"
#include "stp_map_stat.h"

struct stp_stat {
	const struct stp_stat_desc *d;
	struct stp_stat_part __percpu *parts;
	struct stp_stat_agg agg;	/* the last merge */
};

struct stp_stat *_stp_stat_new(const struct stp_stat_desc *d)
{
	struct stp_stat *st;

	if (!stp_stat_desc_ok(d))
		return NULL;
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return NULL;
	st->d = d;
	st->parts = __alloc_percpu(stp_stat_part_size(d), sizeof(int64_t));
	if (!st->parts) {
		kfree(st);
		return NULL;
	}
	return st;
}

void _stp_stat_del(struct stp_stat *st)
{
	if (!st)
		return;
	free_percpu(st->parts);
	kfree(st);
}

void _stp_stat_clear(struct stp_stat *st)
{
	size_t size = stp_stat_part_size(st->d);
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(st->parts, cpu), 0, size);
	stp_stat_agg_reset(st->d, &st->agg);
}

void _stp_stat_add(struct stp_stat *st, int64_t v)
{
	struct stp_stat_part *p = get_cpu_ptr(st->parts);

	stp_stat_part_add(st->d, p, v);
	put_cpu_ptr(st->parts);
}

const struct stp_stat_agg *_stp_stat_get(struct stp_stat *st)
{
	const struct stp_stat_desc *d = st->d;
	struct stp_stat_agg *a = &st->agg;
	int cpu;

	stp_stat_agg_reset(d, a);
	for_each_possible_cpu(cpu)
		stp_stat_agg_fold(d, a, per_cpu_ptr(st->parts, cpu));
	stp_stat_agg_mean(d, a);
	if (STP_STAT_WANTS(d, STP_STAT_VARIANCE)) {
		for_each_possible_cpu(cpu)
			stp_stat_agg_fold_var(a, per_cpu_ptr(st->parts, cpu));
	}
	stp_stat_agg_finish(d, a);
	return a;
}

int _stp_stat_extract(const struct stp_stat_desc *d,
		      const struct stp_stat_agg *a, enum stp_stat_op op,
		      int64_t *out)
{
	(void)d;
	if (!a->count && op != STP_STAT_COUNT && op != STP_STAT_SUM)
		return -ENODATA;
	*out = stp_stat_agg_value(a, op);
	return 0;
}

int _stp_stat_bucket(const struct stp_stat_desc *d,
		     const struct stp_stat_agg *a, int64_t b, int64_t *out)
{
	if (d->hist == STP_HIST_NONE || b < 0 || b >= d->buckets)
		return -EINVAL;
	*out = a->hist[b];
	return 0;
}

int64_t _stp_stat_bucket_key(const struct stp_stat_desc *d, int i)
{
	(void)d;
	return i;
}

/* ---- the chart ---------------------------------------------------- */

/* The chart goes out through a small line buffer, either to the print
 * buffer or into a caller's string (sprint).
 */
struct stp_hist_out {
	bool print;			/* else into to[size] (sprint) */
	char *to;
	size_t size, len;		/* len counts all, even what was cut */
	int n;
	char line[64];
};

static void stp_hist_flush(struct stp_hist_out *o)
{
	size_t room, k = o->n;

	o->n = 0;
	if (o->print) {
		_stp_print_n(o->line, k);
		return;
	}
	room = o->len + 1 < o->size ? o->size - 1 - o->len : 0;
	if (room)
		memcpy(o->to + o->len, o->line, min_t(size_t, k, room));
	o->len += k;
}

static void stp_hist_put(struct stp_hist_out *o, char c, int count)
{
	while (count-- > 0) {
		if (o->n == (int)sizeof(o->line))
			stp_hist_flush(o);
		o->line[o->n++] = c;
	}
}

static void stp_hist_puts(struct stp_hist_out *o, const char *s)
{
	while (*s)
		stp_hist_put(o, *s++, 1);
}

/* Decimal text of v into buf (at least 21 bytes); returns its length. */
static int stp_hist_itoa(char *buf, int64_t v)
{
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
	char tmp[20];
	int n = 0, len = 0;

	do {
		tmp[n++] = '0' + mag % 10;
		mag /= 10;
	} while (mag);
	if (v < 0)
		buf[len++] = '-';
	while (n)
		buf[len++] = tmp[--n];
	buf[len] = '\0';
	return len;
}

static int stp_hist_width(int64_t v)
{
	char buf[24];

	return stp_hist_itoa(buf, v);
}

/* v right-aligned in width columns, after prefix ("<" or ">"). */
static void stp_hist_num(struct stp_hist_out *o, const char *prefix,
			 int64_t v, int width)
{
	char buf[24];
	int len = stp_hist_itoa(buf, v);

	stp_hist_put(o, ' ', width - len - (int)strlen(prefix));
	stp_hist_puts(o, prefix);
	stp_hist_puts(o, buf);
}

/* The low bound of linear bucket i (1 <= i < buckets - 1). */
static int64_t stp_hist_linear_value(const struct stp_stat_desc *d, int i)
{
	return stp_stat_wadd(d->start, stp_stat_wmul(i - 1, d->interval));
}

/* What the chart shows: buckets low..high, and the largest count. */
struct stp_hist_shape {
	int low, high;
	int64_t valmax;
	int val_space, cnt_space;
	int64_t scale;
};

/*
 * The rows: the used buckets plus two empty ones either side; a log
 * chart reaches below 0 only for negative data, and a linear chart shows
 * its underflow and overflow rows only when they hold something.
 */
static void stp_hist_rows(const struct stp_stat_desc *d,
			  const struct stp_stat_agg *a,
			  struct stp_hist_shape *s)
{
	int i, last = d->buckets - 1;

	s->low = -1;
	s->high = 0;
	s->valmax = 0;
	for (i = 0; i <= last; i++) {
		if (a->hist[i] <= 0)
			continue;
		if (s->low < 0)
			s->low = i;
		s->high = i;
		if (a->hist[i] > s->valmax)
			s->valmax = a->hist[i];
	}
	for (i = 0; i < 2; i++) {
		if (s->low > 0 && !(d->hist == STP_HIST_LOG &&
				    s->low == STP_HIST_LOG_BUCKET0))
			s->low--;
		if (s->high < last)
			s->high++;
	}
	if (d->hist != STP_HIST_LINEAR)
		return;
	if (s->low == 0 && !a->hist[0])
		s->low++;
	if (s->high == last && !a->hist[last])
		s->high--;
}

/*
 * Column widths as the established tool computes them.  For a linear
 * chart it measures start + interval * high, one interval past the last
 * label, which can make the column one wider than its text: kept, since
 * the output must be the same byte for byte.
 */
static void stp_hist_columns(const struct stp_stat_desc *d,
			     struct stp_hist_shape *s)
{
	int w1 = 0, w2 = 0;

	if (s->low < 0) {
		/* nothing to show: only the header */
	} else if (d->hist == STP_HIST_LINEAR) {
		w1 = stp_hist_width(d->start) + (s->low == 0);
		w2 = stp_hist_width(stp_hist_linear_value(d, s->high + 1)) +
		     (s->high == d->buckets - 1);
	} else {
		w1 = stp_hist_width(stp_hist_log_value(s->low));
		w2 = stp_hist_width(stp_hist_log_value(s->high));
	}
	s->val_space = max_t(int, max_t(int, w1, w2), 5);
	s->cnt_space = stp_hist_width(s->valmax);
	s->scale = 1;
	if (s->valmax > HIST_WIDTH)
		s->scale = div64_s64(s->valmax + HIST_WIDTH - 1, HIST_WIDTH);
}

/* A row is left out when it and its HIST_ELISION neighbours on each
 * side (within the shown range) are all empty.
 */
static bool stp_hist_elided(const struct stp_stat_desc *d,
			    const struct stp_stat_agg *a,
			    const struct stp_hist_shape *s, int i)
{
	long e = min_t(long, HIST_ELISION, d->buckets);
	long lo = max_t(long, s->low, i - e);
	long hi = min_t(long, s->high, i + e);

	if ((long)HIST_ELISION < 0)
		return false;
	for (; lo <= hi; lo++) {
		if (a->hist[lo])
			return false;
	}
	return true;
}

static void stp_hist_row(const struct stp_stat_desc *d,
			 const struct stp_stat_agg *a,
			 const struct stp_hist_shape *s,
			 struct stp_hist_out *o, int i)
{
	const char *prefix = "";
	int64_t label, bar;
	int k = i;

	if (d->hist == STP_HIST_LOG) {
		label = stp_hist_log_value(i);
	} else if (i == 0) {
		label = d->start;
		prefix = "<";
	} else {
		if (i == d->buckets - 1) {
			prefix = ">";
			k--;		/* labelled as the bucket below */
		}
		label = stp_hist_linear_value(d, k);
	}
	stp_hist_num(o, prefix, label, s->val_space);
	stp_hist_puts(o, " |");
	bar = div64_s64(a->hist[i], s->scale);
	stp_hist_put(o, '@', (int)bar);
	stp_hist_num(o, "", a->hist[i], HIST_WIDTH - (int)bar + 1 +
		     s->cnt_space);
	stp_hist_put(o, '\n', 1);
}

static void stp_hist_draw(const struct stp_stat_desc *d,
			  const struct stp_stat_agg *a,
			  struct stp_hist_out *o)
{
	struct stp_hist_shape s;
	bool eliding = false;
	int i;

	if (d->hist == STP_HIST_NONE)
		return;
	stp_hist_rows(d, a, &s);
	stp_hist_columns(d, &s);
	stp_hist_put(o, ' ', s.val_space - 5);
	stp_hist_puts(o, "value |");
	stp_hist_put(o, '-', HIST_WIDTH);
	stp_hist_puts(o, " count\n");
	/* An empty statistic has no rows: the translator reports "empty
	 * aggregate" before printing one, so this only keeps us in bounds.
	 */
	for (i = s.low; s.low >= 0 && i <= s.high; i++) {
		if (stp_hist_elided(d, a, &s, i)) {
			eliding = true;
			continue;
		}
		if (eliding) {
			stp_hist_put(o, ' ', s.val_space);
			stp_hist_puts(o, " ~\n");
			eliding = false;
		}
		stp_hist_row(d, a, &s, o, i);
	}
	stp_hist_put(o, '\n', 1);
	stp_hist_flush(o);
}

#ifdef STP_JSON
/* stap --json (doc/json.md): the merged values as JSON members. */
void _stp_stat_print_json(const struct stp_stat_agg *a)
{
	if (!a->count) {
		_stp_print("\"count\":0,\"sum\":0");
		return;
	}
	_stp_printf("\"count\":%d,\"sum\":%d,\"min\":%d,\"max\":%d,"
		    "\"avg\":%d", a->count, a->sum, a->min, a->max,
		    div64_s64(a->sum, a->count));
}

/* The histogram as members: its kind, its geometry, and the buckets that
 * hold something as [value, count], value being the row's label in the
 * chart (the bucket's low bound).
 */
void _stp_stat_print_hist_json(const struct stp_stat_desc *d,
			       const struct stp_stat_agg *a)
{
	int i, first = 1, last = d->buckets - 1;
	int64_t v;

	if (d->hist == STP_HIST_LINEAR)
		_stp_printf("\"hist\":\"linear\",\"start\":%d,\"stop\":%d,"
			    "\"interval\":%d,\"underflow\":%d,"
			    "\"overflow\":%d,", d->start, d->stop,
			    d->interval, a->hist[0], a->hist[last]);
	else
		_stp_print("\"hist\":\"log\",");
	_stp_print("\"buckets\":[");
	for (i = 0; i <= last; i++) {
		if (d->hist == STP_HIST_LINEAR && (i == 0 || i == last))
			continue;
		if (!a->hist[i])
			continue;
		v = d->hist == STP_HIST_LOG ? stp_hist_log_value(i) :
					      stp_hist_linear_value(d, i);
		_stp_printf("%s[%d,%d]", first ? "" : ",", v, a->hist[i]);
		first = 0;
	}
	_stp_print_char(']');
}
#endif

void _stp_stat_print_hist(const struct stp_stat_desc *d,
			  const struct stp_stat_agg *a)
{
	struct stp_hist_out o = { .print = true };

	stp_hist_draw(d, a, &o);
}

int _stp_stat_sprint_hist(const struct stp_stat_desc *d,
			  const struct stp_stat_agg *a, char *buf,
			  size_t size)
{
	struct stp_hist_out o = { .to = buf, .size = size };

	stp_hist_draw(d, a, &o);
	if (size)
		buf[min_t(size_t, o.len, size - 1)] = '\0';
	return (int)o.len;
}
