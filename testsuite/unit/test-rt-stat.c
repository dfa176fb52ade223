/* test-rt-stat.c - host tests of the runtime's statistics (stp_stat.c):
 * bucket arithmetic, the merge across CPUs, extraction, the integer
 * variance, and histogram charts byte for byte as the established tool
 * prints them.
 */
#define KSHIM_FAKE_PRINT
#include "kshim.h"
#include "stp_stat.c"
#include "tap.h"

#include <limits.h>

#define ALL_OPS 0x3fu

#define LINEAR(lo, hi, w) \
	.hist = STP_HIST_LINEAR, .start = (lo), .stop = (hi), \
	.interval = (w), .buckets = ((hi) - (lo)) / (w) + 3

static const struct stp_stat_desc plain = { .ops = ALL_OPS };
static const struct stp_stat_desc log_hist = {
	.ops = ALL_OPS, .hist = STP_HIST_LOG, .buckets = 128,
};

/*
 * The expected charts below are the outputs recorded in the established
 * tool's own test suite (testsuite/systemtap.maps: linear, linear_over,
 * linear_under, linear_overunder, linear_large_neg, elision, log,
 * log_edge), for the same inputs.
 */
static const char EXP_LINEAR[] =
	"value |-------------------------------------------------- count\n"
	"    0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@       177\n"
	"   50 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@         170\n"
	"  100 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                      117\n"
	"  150 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                     122\n"
	"  200 |@@@@@@@@@@@@@@@@@@@@@@@                             94\n"
	"  250 |@@@@@@@@@@@@@@@@@@@@@@@                             94\n"
	"  300 |@@@@@@@@@@@@@@@@@@@                                 79\n"
	"  350 |@@@@@@@@@@@@@@@@@@@                                 79\n"
	"  400 |@@@@@@@@@@@@@@@@                                    65\n"
	"  450 |@@@@@@@@@@@@@@@@                                    67\n"
	"  500 |@@@@@@@@@@@@@                                       55\n"
	"  550 |@@@@@@@@@@@@@                                       54\n"
	"  600 |@@@@@@@@@@@@                                        51\n"
	"  650 |@@@@@@@@@@@                                         45\n"
	"  700 |@@@@@@@@@@                                          41\n"
	"  750 |@@@@@@@@@@                                          40\n"
	"  800 |@@@@@@@@                                            34\n"
	"  850 |@@@@@@@@                                            33\n"
	"  900 |@@@@@@@                                             31\n"
	"  950 |@@@@@@                                              27\n"
	" 1000 |@@@@@                                               23\n"
	" 1050 |@@@@@@                                              24\n"
	" 1100 |@@@@                                                19\n"
	" 1150 |@@@@                                                18\n"
	" 1200 |@@@                                                 12\n"
	" 1250 |@@                                                   9\n"
	" 1300 |@                                                    7\n"
	" 1350 |@                                                    7\n"
	" 1400 |                                                     3\n"
	" 1450 |                                                     3\n"
	" 1500 |                                                     0\n"
	"\n";

static const char EXP_OVERUNDER[] =
	"value |-------------------------------------------------- count\n"
	" <250 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@   680\n"
	"  250 |@@@@@@                                              94\n"
	"  300 |@@@@@                                               79\n"
	"  350 |@@@@@                                               79\n"
	"  400 |@@@@                                                65\n"
	"  450 |@@@@                                                67\n"
	"  500 |@@@                                                 55\n"
	"  550 |@@@                                                 54\n"
	"  600 |@@@                                                 51\n"
	"  650 |@@@                                                 45\n"
	"  700 |@@                                                  41\n"
	"  750 |@@                                                  40\n"
	"  800 |@@                                                  34\n"
	"  850 |@@                                                  33\n"
	"  900 |@@                                                  31\n"
	"  950 |@                                                   27\n"
	" 1000 |@                                                   23\n"
	">1000 |@@@@@@@                                            102\n"
	"\n";

static const char EXP_OVER[] =
	"value |-------------------------------------------------- count\n"
	"   90 |                                                      0\n"
	"  100 |                                                      0\n"
	" >100 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 9000\n"
	"\n";

static const char EXP_UNDER[] =
	"value |-------------------------------------------------- count\n"
	"<1800 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 100\n"
	" 1800 |                                                     0\n"
	" 1900 |                                                     0\n"
	"\n";

static const char EXP_LARGE_NEG[] =
	"       value |-------------------------------------------------- count\n"
	"<-1000000000 |@                                                  1\n"
	" -1000000000 |@@@@                                               4\n"
	"  -900000000 |                                                   0\n"
	"  -800000000 |                                                   0\n"
	"  -700000000 |                                                   0\n"
	"  -600000000 |                                                   0\n"
	"  -500000000 |@@@@@                                              5\n"
	"  -400000000 |                                                   0\n"
	"  -300000000 |                                                   0\n"
	"  -200000000 |                                                   0\n"
	"  -100000000 |@@                                                 2\n"
	"           0 |@                                                  1\n"
	"\n";

static const char EXP_ELISION[] =
	"value |-------------------------------------------------- count\n"
	"  300 |                                                   0\n"
	"  350 |                                                   0\n"
	"  400 |@                                                  1\n"
	"  450 |                                                   0\n"
	"  500 |                                                   0\n"
	"      ~\n"
	"  850 |                                                   0\n"
	"  900 |                                                   0\n"
	"  950 |@                                                  1\n"
	" 1000 |                                                   0\n"
	" 1050 |                                                   0\n"
	"\n"
	"value |-------------------------------------------------- count\n"
	"  300 |                                                   0\n"
	"  350 |                                                   0\n"
	"  400 |@                                                  1\n"
	"  450 |                                                   0\n"
	"  500 |@                                                  1\n"
	"  550 |                                                   0\n"
	"  600 |                                                   0\n"
	"\n"
	"value |-------------------------------------------------- count\n"
	"    0 |@                                                  1\n"
	"   50 |                                                   0\n"
	"  100 |                                                   0\n"
	"\n"
	"value |-------------------------------------------------- count\n"
	"    0 |                                                   0\n"
	"   50 |@                                                  1\n"
	"  100 |                                                   0\n"
	"  150 |                                                   0\n"
	"\n"
	"value |-------------------------------------------------- count\n"
	" 1350 |                                                   0\n"
	" 1400 |                                                   0\n"
	" 1450 |@                                                  1\n"
	" 1500 |                                                   0\n"
	"\n"
	"value |-------------------------------------------------- count\n"
	" 1400 |                                                   0\n"
	" 1450 |                                                   0\n"
	" 1500 |@                                                  1\n"
	"\n"
	"value |-------------------------------------------------- count\n"
	"  -30 |                                                   0\n"
	"  -20 |                                                   0\n"
	"  -10 |@                                                  1\n"
	"    0 |                                                   0\n"
	"   10 |                                                   0\n"
	"\n"
	"value |-------------------------------------------------- count\n"
	"  -20 |                                                   0\n"
	"  -10 |                                                   0\n"
	"    0 |@                                                  1\n"
	"   10 |                                                   0\n"
	"   20 |                                                   0\n"
	"\n"
	"value |-------------------------------------------------- count\n"
	"   32 |                                                   0\n"
	"   64 |                                                   0\n"
	"  128 |@                                                  1\n"
	"  256 |                                                   0\n"
	"  512 |                                                   0\n"
	"\n"
	"value |-------------------------------------------------- count\n"
	"    0 |@                                                  1\n"
	"    1 |                                                   0\n"
	"    2 |                                                   0\n"
	"\n"
	" value |-------------------------------------------------- count\n"
	"-16384 |                                                   0\n"
	" -8192 |                                                   0\n"
	" -4096 |@                                                  1\n"
	" -2048 |                                                   0\n"
	" -1024 |                                                   0\n"
	"       ~\n"
	"    -8 |                                                   0\n"
	"    -4 |                                                   0\n"
	"    -2 |@                                                  1\n"
	"    -1 |                                                   0\n"
	"     0 |                                                   0\n"
	"\n";

static const char EXP_LOG_EDGE[] =
	"value |-------------------------------------------------- count\n"
	"   -4 |                                                   0\n"
	"   -2 |                                                   0\n"
	"   -1 |@                                                  1\n"
	"    0 |                                                   0\n"
	"    1 |@                                                  1\n"
	"    2 |                                                   0\n"
	"    4 |                                                   0\n"
	"\n"
	"value |-------------------------------------------------- count\n"
	"    0 |@                                                  1\n"
	"    1 |                                                   0\n"
	"    2 |                                                   0\n"
	"\n"
	"              value |-------------------------------------------------- count\n"
	"1152921504606846976 |                                                   0\n"
	"2305843009213693952 |                                                   0\n"
	"4611686018427387904 |@                                                  1\n"
	"\n"
	"value |-------------------------------------------------- count\n"
	"    0 |                                                   0\n"
	"    1 |@                                                  1\n"
	"    2 |@@                                                 2\n"
	"    4 |@                                                  1\n"
	"    8 |                                                   0\n"
	"   16 |                                                   0\n"
	"\n";

static const char EXP_LOG_FULL[] =
	"               value |-------------------------------------------------- count\n"
	"-9223372036854775808 |@                                                   1\n"
	"-4611686018427387904 |@                                                   1\n"
	"-2305843009213693952 |@                                                   1\n"
	"-1152921504606846976 |@                                                   1\n"
	" -576460752303423488 |@                                                   1\n"
	" -288230376151711744 |@                                                   1\n"
	" -144115188075855872 |@                                                   1\n"
	"  -72057594037927936 |@                                                   1\n"
	"  -36028797018963968 |@                                                   1\n"
	"  -18014398509481984 |@                                                   1\n"
	"   -9007199254740992 |@                                                   1\n"
	"   -4503599627370496 |@                                                   1\n"
	"   -2251799813685248 |@                                                   1\n"
	"   -1125899906842624 |@                                                   1\n"
	"    -562949953421312 |@                                                   1\n"
	"    -281474976710656 |@                                                   1\n"
	"    -140737488355328 |@                                                   1\n"
	"     -70368744177664 |@                                                   1\n"
	"     -35184372088832 |@                                                   1\n"
	"     -17592186044416 |@                                                   1\n"
	"      -8796093022208 |@                                                   1\n"
	"      -4398046511104 |@                                                   1\n"
	"      -2199023255552 |@                                                   1\n"
	"      -1099511627776 |@                                                   1\n"
	"       -549755813888 |@                                                   1\n"
	"       -274877906944 |@                                                   1\n"
	"       -137438953472 |@                                                   1\n"
	"        -68719476736 |@                                                   1\n"
	"        -34359738368 |@                                                   1\n"
	"        -17179869184 |@                                                   1\n"
	"         -8589934592 |@                                                   1\n"
	"         -4294967296 |@                                                   1\n"
	"         -2147483648 |@                                                   1\n"
	"         -1073741824 |@                                                   1\n"
	"          -536870912 |@                                                   1\n"
	"          -268435456 |@                                                   1\n"
	"          -134217728 |@                                                   1\n"
	"           -67108864 |@                                                   1\n"
	"           -33554432 |@                                                   1\n"
	"           -16777216 |@                                                   1\n"
	"            -8388608 |@                                                   1\n"
	"            -4194304 |@                                                   1\n"
	"            -2097152 |@                                                   1\n"
	"            -1048576 |@                                                   1\n"
	"             -524288 |@                                                   1\n"
	"             -262144 |@                                                   1\n"
	"             -131072 |@                                                   1\n"
	"              -65536 |@                                                   1\n"
	"              -32768 |@                                                   1\n"
	"              -16384 |@                                                   1\n"
	"               -8192 |@                                                   1\n"
	"               -4096 |@                                                   1\n"
	"               -2048 |@                                                   1\n"
	"               -1024 |@                                                   1\n"
	"                -512 |@                                                   1\n"
	"                -256 |@                                                   1\n"
	"                -128 |@                                                   1\n"
	"                 -64 |@                                                   1\n"
	"                 -32 |@                                                   1\n"
	"                 -16 |@                                                   1\n"
	"                  -8 |@                                                   1\n"
	"                  -4 |@                                                   1\n"
	"                  -2 |@                                                   1\n"
	"                  -1 |@                                                   1\n"
	"                   0 |@@@@@@@@@@@@@@@@@@@@                               20\n"
	"                   1 |@                                                   1\n"
	"                   2 |@                                                   1\n"
	"                   4 |@                                                   1\n"
	"                   8 |@                                                   1\n"
	"                  16 |@                                                   1\n"
	"                  32 |@                                                   1\n"
	"                  64 |@                                                   1\n"
	"                 128 |@                                                   1\n"
	"                 256 |@                                                   1\n"
	"                 512 |@                                                   1\n"
	"                1024 |@                                                   1\n"
	"                2048 |@                                                   1\n"
	"                4096 |@                                                   1\n"
	"                8192 |@                                                   1\n"
	"               16384 |@                                                   1\n"
	"               32768 |@                                                   1\n"
	"               65536 |@                                                   1\n"
	"              131072 |@                                                   1\n"
	"              262144 |@                                                   1\n"
	"              524288 |@                                                   1\n"
	"             1048576 |@                                                   1\n"
	"             2097152 |@                                                   1\n"
	"             4194304 |@                                                   1\n"
	"             8388608 |@                                                   1\n"
	"            16777216 |@                                                   1\n"
	"            33554432 |@                                                   1\n"
	"            67108864 |@                                                   1\n"
	"           134217728 |@                                                   1\n"
	"           268435456 |@                                                   1\n"
	"           536870912 |@                                                   1\n"
	"          1073741824 |@                                                   1\n"
	"          2147483648 |@                                                   1\n"
	"          4294967296 |@                                                   1\n"
	"          8589934592 |@                                                   1\n"
	"         17179869184 |@                                                   1\n"
	"         34359738368 |@                                                   1\n"
	"         68719476736 |@                                                   1\n"
	"        137438953472 |@                                                   1\n"
	"        274877906944 |@                                                   1\n"
	"        549755813888 |@                                                   1\n"
	"       1099511627776 |@                                                   1\n"
	"       2199023255552 |@                                                   1\n"
	"       4398046511104 |@                                                   1\n"
	"       8796093022208 |@                                                   1\n"
	"      17592186044416 |@                                                   1\n"
	"      35184372088832 |@                                                   1\n"
	"      70368744177664 |@                                                   1\n"
	"     140737488355328 |@                                                   1\n"
	"     281474976710656 |@                                                   1\n"
	"     562949953421312 |@                                                   1\n"
	"    1125899906842624 |@                                                   1\n"
	"    2251799813685248 |@                                                   1\n"
	"    4503599627370496 |@                                                   1\n"
	"    9007199254740992 |@                                                   1\n"
	"   18014398509481984 |@                                                   1\n"
	"   36028797018963968 |@                                                   1\n"
	"   72057594037927936 |@                                                   1\n"
	"  144115188075855872 |@                                                   1\n"
	"  288230376151711744 |@                                                   1\n"
	"  576460752303423488 |@                                                   1\n"
	" 1152921504606846976 |@                                                   1\n"
	" 2305843009213693952 |@                                                   1\n"
	" 4611686018427387904 |@                                                   1\n"
	"\n";


/* The values of the established tool's linear*.stp tests: key * m for
 * key 0..99 and these multipliers.
 */
static const int64_t linear_mults[16] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 12, 13, 14, 15,
};

/* A statistic fed with v[0..n), value i on CPU i % ncpus. */
static struct stp_stat *stat_of(const struct stp_stat_desc *d,
				const int64_t *v, int n, int ncpus)
{
	struct stp_stat *st = _stp_stat_new(d);
	int i;

	if (!st)
		abort();
	for (i = 0; i < n; i++) {
		kshim_set_cpu(i % ncpus);
		_stp_stat_add(st, v[i]);
	}
	kshim_set_cpu(0);
	return st;
}

static int64_t extract(struct stp_stat *st, enum stp_stat_op op)
{
	int64_t out = -12345;

	if (_stp_stat_extract(st->d, _stp_stat_get(st), op, &out))
		return -99999;
	return out;
}

static int64_t variance_of(const int64_t *v, int n, int ncpus, int shift)
{
	struct stp_stat_desc d = { .ops = ALL_OPS, .variance_shift = shift };
	struct stp_stat *st = stat_of(&d, v, n, ncpus);
	int64_t r = extract(st, STP_STAT_VARIANCE);

	_stp_stat_del(st);
	return r;
}

static void test_log_buckets(void)
{
	static const struct {
		int64_t v;
		int index;
	} t[] = {
		{ 0, 64 }, { 1, 65 }, { 2, 66 }, { 3, 66 }, { 4, 67 },
		{ 1023, 74 }, { 1024, 75 }, { INT64_MAX, 127 },
		{ -1, 63 }, { -2, 62 }, { -3, 62 }, { -4, 61 },
		{ INT64_MIN + 1, 1 }, { INT64_MIN, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		tap_int_eq(stp_hist_log_index(t[i].v), t[i].index,
			   "log bucket of %lld", (long long)t[i].v);
	tap_int_eq(stp_hist_log_value(64), 0, "log bucket 64 is 0");
	tap_int_eq(stp_hist_log_value(65), 1, "log bucket 65 is 1");
	tap_int_eq(stp_hist_log_value(75), 1024, "log bucket 75 is 1024");
	tap_int_eq(stp_hist_log_value(127), 1LL << 62, "log bucket 127");
	tap_int_eq(stp_hist_log_value(63), -1, "log bucket 63 is -1");
	tap_int_eq(stp_hist_log_value(61), -4, "log bucket 61 is -4");
	tap_int_eq(stp_hist_log_value(0), INT64_MIN, "log bucket 0");
}

static void test_linear_buckets(void)
{
	static const struct stp_stat_desc d = { LINEAR(0, 100, 10) };
	static const struct stp_stat_desc n = { LINEAR(-100, 100, 10) };
	static const struct {
		const struct stp_stat_desc *d;
		int64_t v;
		int index;
	} t[] = {
		{ &d, -1, 0 }, { &d, 0, 1 }, { &d, 9, 1 }, { &d, 10, 2 },
		{ &d, 99, 10 }, { &d, 100, 11 }, { &d, 109, 11 },
		{ &d, 110, 12 }, { &d, INT64_MAX, 12 }, { &d, INT64_MIN, 0 },
		{ &n, -101, 0 }, { &n, -100, 1 }, { &n, -1, 10 },
		{ &n, 0, 11 }, { &n, 109, 21 }, { &n, 110, 22 },
	};
	size_t i;

	tap_int_eq(d.buckets, 13, "0..100 by 10 has 13 buckets");
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		tap_int_eq(stp_hist_linear_index(t[i].d, t[i].v), t[i].index,
			   "linear bucket of %lld in %lld..%lld",
			   (long long)t[i].v, (long long)t[i].d->start,
			   (long long)t[i].d->stop);
}

static void test_empty(void)
{
	struct stp_stat *st = stat_of(&log_hist, NULL, 0, 1);
	const struct stp_stat_agg *a = _stp_stat_get(st);
	int64_t out = 7;

	tap_int_eq(extract(st, STP_STAT_COUNT), 0, "empty: @count is 0");
	tap_int_eq(extract(st, STP_STAT_SUM), 0, "empty: @sum is 0");
	tap_int_eq(_stp_stat_extract(&log_hist, a, STP_STAT_MIN, &out),
		   -ENODATA, "empty: @min is an error");
	tap_int_eq(_stp_stat_extract(&log_hist, a, STP_STAT_MAX, &out),
		   -ENODATA, "empty: @max is an error");
	tap_int_eq(_stp_stat_extract(&log_hist, a, STP_STAT_AVG, &out),
		   -ENODATA, "empty: @avg is an error");
	tap_int_eq(_stp_stat_extract(&log_hist, a, STP_STAT_VARIANCE, &out),
		   -ENODATA, "empty: @variance is an error");
	tap_int_eq(out, 7, "empty: no value stored on error");
	_stp_stat_print_hist(&log_hist, a);
	tap_str_eq(kshim_output(),
		   "value |-------------------------------------------------- "
		   "count\n\n", "empty: the chart is only its header");
	_stp_stat_del(st);
}

static void test_basic_ops(void)
{
	static const int64_t v[] = { 5, -3, 10, 7, -1, 2 };
	struct stp_stat *st = stat_of(&plain, v, 6, NR_CPUS);

	tap_int_eq(extract(st, STP_STAT_COUNT), 6, "@count across CPUs");
	tap_int_eq(extract(st, STP_STAT_SUM), 20, "@sum across CPUs");
	tap_int_eq(extract(st, STP_STAT_MIN), -3, "@min across CPUs");
	tap_int_eq(extract(st, STP_STAT_MAX), 10, "@max across CPUs");
	tap_int_eq(extract(st, STP_STAT_AVG), 3, "@avg is sum / count");
	_stp_stat_clear(st);
	tap_int_eq(extract(st, STP_STAT_COUNT), 0, "clear empties all CPUs");
	kshim_set_cpu(3);
	_stp_stat_add(st, -3);
	_stp_stat_add(st, -4);
	kshim_set_cpu(0);
	tap_int_eq(extract(st, STP_STAT_AVG), -3,
		   "@avg truncates toward zero (-7 / 2)");
	tap_int_eq(extract(st, STP_STAT_MAX), -3, "@max of negatives");
	_stp_stat_del(st);
}

/*
 * @variance: the established tool's integer Welford per CPU, then the
 * total-variance combination, then >> 2 * shift.  Its own tests record
 * 450768 (linear.stp), 5741 (linear_under.stp, 0..99), 47241750
 * (linear_over.stp, 1000..9999) and 154012 (linear_nearlyempty.stp,
 * 444 and 999 with shift 7); the multi-CPU figures come from the same
 * formula worked by hand (a Python model of it).
 */
static void test_variance(void)
{
	int64_t v[1600];
	int i, n = 0;

	for (i = 0; i < 10; i++)
		v[i] = i + 1;
	tap_int_eq(variance_of(v, 10, 1, 0), 48, "@variance of 1..10 is 48");
	tap_int_eq(variance_of(v, 10, 1, 3), 9,
		   "@variance(s, 3) of 1..10 is 9");
	tap_int_eq(variance_of(v, 10, 4, 0), 9,
		   "@variance of 1..10 over 4 CPUs is 9");
	tap_int_eq(variance_of(v, 1, 1, 0), 0, "@variance of one value is 0");
	for (i = 0; i < 100; i++)
		v[i] = i;
	tap_int_eq(variance_of(v, 100, 1, 0), 5741, "@variance of 0..99");
	v[0] = 444;
	v[1] = 999;
	tap_int_eq(variance_of(v, 2, 1, 7), 154012,
		   "@variance(s, 7) of 444, 999");
	for (i = 0; i < 100; i++) {
		int k;

		for (k = 0; k < 16; k++)
			v[n++] = i * linear_mults[k];
	}
	tap_int_eq(variance_of(v, n, 1, 0), 450768,
		   "@variance of the linear.stp values");
	tap_int_eq(variance_of(v, n, 3, 0), 153151,
		   "@variance of the linear.stp values over 3 CPUs");
}

static void test_variance_large(void)
{
	static int64_t v[9000];
	int i;

	for (i = 0; i < 9000; i++)
		v[i] = 1000 + i;
	tap_int_eq(variance_of(v, 9000, 1, 0), 47241750,
		   "@variance of 1000..9999");
}

static void test_variance_unused(void)
{
	static const struct stp_stat_desc d = { .ops = 1u << STP_STAT_COUNT };
	static const int64_t v[] = { 1, 2, 3, 40 };
	struct stp_stat *st = stat_of(&d, v, 4, 2);

	tap_int_eq(extract(st, STP_STAT_VARIANCE), 0,
		   "@variance not asked for is not kept");
	tap_int_eq(extract(st, STP_STAT_SUM), 46, "@sum is always kept");
	_stp_stat_del(st);
}

static void check_chart(const struct stp_stat_desc *d, const int64_t *v,
			int n, const char *want, const char *name)
{
	struct stp_stat *st = stat_of(d, v, n, NR_CPUS);

	_stp_stat_print_hist(d, _stp_stat_get(st));
	tap_str_eq(kshim_output(), want, "chart: %s", name);
	_stp_stat_del(st);
}

static void test_linear_charts(void)
{
	static const struct stp_stat_desc d1 = { LINEAR(0, 1500, 50) };
	static const struct stp_stat_desc d2 = { LINEAR(250, 1000, 50) };
	static const struct stp_stat_desc d3 = { LINEAR(0, 100, 10) };
	static const struct stp_stat_desc d4 = { LINEAR(1800, 2500, 100) };
	static const struct stp_stat_desc d5 = {
		LINEAR(-1000000000, 0, 100000000)
	};
	static const int64_t neg[] = {
		0, -100000000, -100000000, -500000000, -500000000,
		-500000000, -500000000, -500000000, -1000000000, -1000000000,
		-1000000000, -1000000000, -10000000000LL,
	};
	static int64_t v[9000];
	int i, k, n = 0;

	for (i = 0; i < 100; i++) {
		for (k = 0; k < 16; k++)
			v[n++] = i * linear_mults[k];
	}
	check_chart(&d1, v, n, EXP_LINEAR, "linear.stp");
	check_chart(&d2, v, n, EXP_OVERUNDER, "linear_overunder.stp");
	for (i = 0; i < 9000; i++)
		v[i] = 1000 + i;
	check_chart(&d3, v, 9000, EXP_OVER, "linear_over.stp");
	for (i = 0; i < 100; i++)
		v[i] = i;
	check_chart(&d4, v, 100, EXP_UNDER, "linear_under.stp");
	check_chart(&d5, neg, 13, EXP_LARGE_NEG, "linear_large_neg.stp");
}

/* elision.stp: one statistic, cleared between charts. */
static void test_elision(void)
{
	static const struct stp_stat_desc a = { LINEAR(0, 1500, 50) };
	static const struct stp_stat_desc b = { LINEAR(-100, 100, 10) };
	static const struct {
		const struct stp_stat_desc *d;
		int64_t v[2];
		int n;
	} t[] = {
		{ &a, { 444, 999 }, 2 }, { &a, { 444, 500 }, 2 },
		{ &a, { 0 }, 1 }, { &a, { 50 }, 1 }, { &a, { 1450 }, 1 },
		{ &a, { 1500 }, 1 }, { &b, { -10 }, 1 }, { &b, { 0 }, 1 },
		{ &log_hist, { 128 }, 1 }, { &log_hist, { 0 }, 1 },
		{ &log_hist, { -2, -4096 }, 2 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct stp_stat *st = stat_of(t[i].d, t[i].v, t[i].n, 2);

		_stp_stat_print_hist(t[i].d, _stp_stat_get(st));
		_stp_stat_del(st);
	}
	tap_str_eq(kshim_output(), EXP_ELISION, "chart: elision.stp");
}

static void test_log_charts(void)
{
	static const int64_t edge[][4] = {
		{ -1, 1 }, { 0 }, { INT64_MAX }, { 1, 2, 3, 4 },
	};
	static const int n_edge[] = { 2, 1, 1, 4 };
	int64_t v[150], val = 1;
	int i, n = 0;

	for (i = 0; i < 63; i++, val = stp_stat_wshl(val, 1))
		v[n++] = val;
	for (i = 0, val = 1; i < 64; i++, val = stp_stat_wshl(val, 1))
		v[n++] = stp_stat_wsub(0, val);
	for (i = 0; i < 20; i++)
		v[n++] = 0;
	check_chart(&log_hist, v, n, EXP_LOG_FULL, "log.stp");
	for (i = 0; i < 4; i++) {
		struct stp_stat *st = stat_of(&log_hist, edge[i], n_edge[i], 3);

		_stp_stat_print_hist(&log_hist, _stp_stat_get(st));
		_stp_stat_del(st);
	}
	tap_str_eq(kshim_output(), EXP_LOG_EDGE, "chart: log_edge.stp");
}

static void test_buckets(void)
{
	static const int64_t v[] = { 1, 2, 3, 4, -1 };
	struct stp_stat *st = stat_of(&log_hist, v, 5, 2);
	const struct stp_stat_agg *a = _stp_stat_get(st);
	static const struct stp_stat_desc lin = { LINEAR(0, 10, 5) };
	int64_t out = 0;

	tap_ok(!_stp_stat_bucket(&log_hist, a, 66, &out) && out == 2,
	       "@hist_log(s)[66] counts 2 and 3");
	tap_ok(!_stp_stat_bucket(&log_hist, a, 63, &out) && out == 1,
	       "@hist_log(s)[63] counts -1");
	tap_ok(!_stp_stat_bucket(&log_hist, a, 0, &out) && out == 0,
	       "@hist_log(s)[0] is empty");
	tap_int_eq(_stp_stat_bucket(&log_hist, a, 128, &out), -EINVAL,
		   "bucket 128 is out of range");
	tap_int_eq(_stp_stat_bucket(&log_hist, a, -1, &out), -EINVAL,
		   "bucket -1 is out of range");
	tap_int_eq(_stp_stat_bucket(&lin, a, 5, &out), -EINVAL,
		   "a linear 0..10 by 5 has buckets 0..4");
	tap_int_eq(_stp_stat_bucket(&plain, a, 0, &out), -EINVAL,
		   "no buckets without a histogram");
	tap_int_eq(_stp_stat_bucket_key(&log_hist, 65), 65,
		   "foreach over a histogram binds the bucket number");
	_stp_stat_del(st);
}

static void test_sprint(void)
{
	static const int64_t v[] = { 1, 2, 3, 4 };
	struct stp_stat *st = stat_of(&log_hist, v, 4, 1);
	const struct stp_stat_agg *a = _stp_stat_get(st);
	char full[1024], small[20];
	int len;

	_stp_stat_print_hist(&log_hist, a);
	len = _stp_stat_sprint_hist(&log_hist, a, full, sizeof(full));
	tap_str_eq(full, kshim_output(), "sprint gives what print prints");
	tap_int_eq(len, (int)strlen(full), "sprint returns the length");
	tap_int_eq(_stp_stat_sprint_hist(&log_hist, a, small, sizeof(small)),
		   len, "a cut sprint still returns the whole length");
	tap_str_eq(small, "value |------------", "a cut sprint ends in NUL");
	tap_int_eq(_stp_stat_sprint_hist(&log_hist, a, NULL, 0), len,
		   "sprint into nothing measures");
	_stp_stat_del(st);
}

static void test_bad_desc(void)
{
	static const struct stp_stat_desc zero = {
		.hist = STP_HIST_LINEAR, .interval = 0, .buckets = 3,
	};
	static const struct stp_stat_desc big = {
		.hist = STP_HIST_LINEAR, .interval = 1, .buckets = 129,
	};
	static const struct stp_stat_desc shift = { .variance_shift = 63 };
	int i;

	tap_ok(!_stp_stat_new(&zero), "a zero interval is refused");
	tap_ok(!_stp_stat_new(&big), "more than STP_MAX_BUCKETS is refused");
	tap_ok(!_stp_stat_new(&shift), "a variance shift of 63 is refused");
	for (i = 1; i <= 2; i++) {
		kshim_fail_alloc = i;
		tap_ok(!_stp_stat_new(&log_hist),
		       "allocation %d failing gives NULL", i);
		kshim_fail_alloc = 0;
	}
	_stp_stat_del(NULL);
}

int main(void)
{
	test_log_buckets();
	test_linear_buckets();
	test_empty();
	test_basic_ops();
	test_variance();
	test_variance_large();
	test_variance_unused();
	test_linear_charts();
	test_elision();
	test_log_charts();
	test_buckets();
	test_sprint();
	test_bad_desc();
	kshim_output_free();
	return tap_done();
}
