/* test-rt-map.c - host tests of the runtime's associative arrays
 * (stp_map.c): stores and lookups with 1..9 keys, overflow and wrap,
 * insertion order, the stable sort, slices, and statistics and counter
 * arrays merged across CPUs.
 */
#define KSHIM_FAKE_PRINT
#include "kshim.h"
#include "stp_stat.c"
#include "stp_map.c"
#include "tap.h"

#define ALL_OPS 0x3fu

#define KEYS(...) ((const struct stp_key[]){ __VA_ARGS__ })
#define N(x) { .n = (x) }
#define S(x) { .s = (x) }

static const struct stp_map_desc ll = {
	.name = "ll", .nkeys = 1, .key_kind = { STP_KIND_LONG },
	.val_kind = STP_KIND_LONG, .maxentries = 0,
};
static const struct stp_map_desc ss = {
	.name = "ss", .nkeys = 1, .key_kind = { STP_KIND_STRING },
	.val_kind = STP_KIND_STRING, .maxentries = 16,
};
static const struct stp_stat_desc log_stat = {
	.ops = ALL_OPS, .hist = STP_HIST_LOG, .buckets = 128,
};

/* ix_hist.stp of the established tool's test suite, and its output. */
static const char EXP_IX_HIST[] =
	"value |-------------------------------------------------- count\n"
	"    0 |                                                    1\n"
	"    1 |                                                    1\n"
	"    2 |@                                                   2\n"
	"    4 |@@                                                  4\n"
	"    8 |@@@@                                                8\n"
	"   16 |@@@@@@@@                                           16\n"
	"   32 |@@@@@@@@@@@@@@@@                                   32\n"
	"   64 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                   64\n"
	"  128 |                                                    0\n"
	"  256 |                                                    0\n"
	"\n"
	"value |-------------------------------------------------- count\n"
	"    0 |                                                     1\n"
	"    1 |                                                     0\n"
	"    2 |                                                     1\n"
	"    4 |                                                     2\n"
	"    8 |@                                                    4\n"
	"   16 |@@                                                   8\n"
	"   32 |@@@@@                                               16\n"
	"   64 |@@@@@@@@@@                                          32\n"
	"  128 |@@@@@@@@@@@@@@@@@@@@@                               64\n"
	"  256 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@         128\n"
	"  512 |                                                     0\n"
	" 1024 |                                                     0\n"
	"\n"
	"value |-------------------------------------------------- count\n"
	"    0 |                                                     1\n"
	"    1 |                                                     0\n"
	"    2 |                                                     1\n"
	"    4 |                                                     1\n"
	"    8 |                                                     3\n"
	"   16 |@                                                    5\n"
	"   32 |@@                                                  11\n"
	"   64 |@@@@@                                               21\n"
	"  128 |@@@@@@@@@@                                          43\n"
	"  256 |@@@@@@@@@@@@@@@@@@@@@                               85\n"
	"  512 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@         171\n"
	" 1024 |@@@@@@@@@@                                          42\n"
	" 2048 |                                                     0\n"
	" 4096 |                                                     0\n"
	"\n"
	"value |-------------------------------------------------- count\n"
	"    0 |                                                     1\n"
	"    1 |                                                     0\n"
	"    2 |                                                     0\n"
	"    4 |                                                     1\n"
	"    8 |                                                     2\n"
	"   16 |                                                     4\n"
	"   32 |@                                                    8\n"
	"   64 |@@                                                  16\n"
	"  128 |@@@@@                                               32\n"
	"  256 |@@@@@@@@@@                                          64\n"
	"  512 |@@@@@@@@@@@@@@@@@@@@@                              128\n"
	" 1024 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@         256\n"
	" 2048 |                                                     0\n"
	" 4096 |                                                     0\n"
	"\n";

static struct stp_map *map_new(const struct stp_map_desc *d)
{
	struct stp_map *m = _stp_map_new(d);

	if (!m)
		abort();
	return m;
}

/* A one-key array with its own desc (freed by map_free). */
static struct stp_map *map_of(const char *name, unsigned char key_kind,
			      unsigned char val_kind, unsigned int max,
			      bool wrap, const struct stp_stat_desc *sd)
{
	struct stp_map_desc *d = calloc(1, sizeof(*d));

	d->name = name;
	d->nkeys = 1;
	d->key_kind[0] = key_kind;
	d->val_kind = val_kind;
	d->maxentries = max;
	d->wrap = wrap;
	d->stat = sd;
	return map_new(d);
}

static void map_free(struct stp_map *m)
{
	const struct stp_map_desc *d = m->d;

	_stp_map_del(m);
	free((void *)d);
}

/* The long keys of a one-key map in iteration order, as "1 2 3". */
static const char *order_of(struct stp_map *m)
{
	static char buf[512];
	struct stp_map_node *n;
	size_t len = 0;

	buf[0] = '\0';
	for (n = _stp_map_first(m); n; n = _stp_map_next(m, n))
		len += snprintf(buf + len, sizeof(buf) - len, "%s%lld",
				len ? " " : "",
				(long long)_stp_node_key_long(m, n, 0));
	return buf;
}

static void test_store_find(void)
{
	struct stp_map *m = map_new(&ll);
	int64_t i;
	int err = 0;

	for (i = 1; i <= 5; i++)
		err |= _stp_map_set_long(m, KEYS(N(i)), i * 10);
	tap_int_eq(err, 0, "five stores");
	tap_int_eq(_stp_map_size(m), 5, "five elements");
	tap_int_eq(_stp_map_get_long(m, KEYS(N(3))), 30, "a[3] is 30");
	tap_ok(_stp_map_exists(m, KEYS(N(5))), "5 in a");
	tap_ok(!_stp_map_exists(m, KEYS(N(6))), "6 not in a");
	tap_int_eq(_stp_map_get_long(m, KEYS(N(6))), 0, "absent reads 0");
	tap_ok(!_stp_map_find(m, KEYS(N(6))), "reading does not create");
	_stp_map_set_long(m, KEYS(N(3)), -7);
	tap_int_eq(_stp_map_get_long(m, KEYS(N(3))), -7, "update in place");
	tap_int_eq(_stp_map_size(m), 5, "update adds nothing");
	_stp_map_delete(m, KEYS(N(3)));
	tap_ok(!_stp_map_exists(m, KEYS(N(3))), "delete a[3]");
	_stp_map_delete(m, KEYS(N(42)));
	tap_int_eq(_stp_map_size(m), 4, "deleting an absent key is a no-op");
	_stp_map_set_long(m, KEYS(N(0)), 0);
	tap_ok(_stp_map_exists(m, KEYS(N(0))), "storing 0 creates");
	tap_str_eq(order_of(m), "1 2 4 5 0", "insertion order");
	_stp_map_set_long(m, KEYS(N(3)), 1);
	tap_str_eq(order_of(m), "1 2 4 5 0 3", "a re-added key goes last");
	tap_int_eq(_stp_map_set_str(m, KEYS(N(1)), "x"), -EINVAL,
		   "a string into a long array is refused");
	_stp_map_del(m);
}

static void test_lookup_add(void)
{
	struct stp_map *m = map_new(&ll);
	struct stp_map_node *n;
	int i, err = 1;

	for (i = 0; i < 5; i++) {
		n = _stp_map_lookup_add(m, KEYS(N(INT64_MIN)), &err);
		*_stp_node_long_ptr(m, n) += 3;
	}
	tap_int_eq(err, 0, "lookup_add reports success");
	tap_int_eq(_stp_map_get_long(m, KEYS(N(INT64_MIN))), 15,
		   "a[k] += 3 five times");
	tap_int_eq(_stp_map_size(m), 1, "one element");
	_stp_map_del(m);
}

/* The one-lookup updates that a[k] OP= v compiles to. */
static void test_update_in_place(void)
{
	struct stp_map *m = map_of("small", STP_KIND_LONG, STP_KIND_LONG, 2,
				   false, NULL);
	struct stp_map *s = map_new(&ss);
	char buf[MAXSTRINGLEN + 8];
	const char *val = NULL;
	int64_t sum = 0, *p;

	tap_int_eq(_stp_map_add_long(m, KEYS(N(1)), 5, &sum), 0,
		   "add_long creates a[1]");
	tap_int_eq(sum, 5, "and gives the new value");
	tap_int_eq(_stp_map_add_long(m, KEYS(N(1)), -7, NULL), 0,
		   "add_long without a result");
	tap_int_eq(_stp_map_get_long(m, KEYS(N(1))), -2, "a[1] is -2");
	_stp_map_set_long(m, KEYS(N(2)), INT64_MAX);
	_stp_map_add_long(m, KEYS(N(2)), 1, &sum);
	tap_ok(sum == INT64_MIN, "the sum wraps");
	sum = 42;
	tap_int_eq(_stp_map_add_long(m, KEYS(N(3)), 1, &sum), -E2BIG,
		   "add_long on a full array overflows");
	tap_ok(sum == 42 && !_stp_map_exists(m, KEYS(N(3))) &&
	       _stp_map_size(m) == 2, "and leaves the array as it was");
	p = _stp_map_long_ref(m, KEYS(N(1)));
	tap_ok(p && *p == -2, "long_ref finds a[1]");
	*p *= 3;
	tap_int_eq(_stp_map_get_long(m, KEYS(N(1))), -6, "updated in place");
	tap_ok(!_stp_map_long_ref(m, KEYS(N(4))), "long_ref overflows too");
	tap_int_eq(_stp_map_add_long(s, KEYS(S("x")), 1, NULL), -EINVAL,
		   "add_long on a string array is refused");
	tap_int_eq(_stp_map_append_str(m, KEYS(N(1)), "x", NULL), -EINVAL,
		   "append_str on a long array is refused");

	tap_int_eq(_stp_map_append_str(s, KEYS(S("k")), "ab", &val), 0,
		   "append_str creates s[k]");
	tap_str_eq(val, "ab", "and points at its text");
	_stp_map_append_str(s, KEYS(S("k")), "cd", NULL);
	tap_str_eq(_stp_map_get_str(s, KEYS(S("k"))), "abcd", "s[k] .= cd");
	_stp_map_append_str(s, KEYS(S("k")), _stp_map_get_str(s,
			    KEYS(S("k"))), &val);
	tap_str_eq(val, "abcdabcd", "s[k] .= s[k]");
	memset(buf, 'z', sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	_stp_map_append_str(s, KEYS(S("k")), buf, &val);
	tap_int_eq(strlen(val), MAXSTRINGLEN - 1,
		   "the text is cut to MAXSTRINGLEN - 1");
	tap_ok(!strncmp(val, "abcdabcdzz", 10), "after the old text");
	_stp_map_append_str(s, KEYS(S("k")), "more", &val);
	tap_int_eq(strlen(val), MAXSTRINGLEN - 1, "a full text stays full");
	map_free(m);
	_stp_map_del(s);
}

static void test_strings(void)
{
	struct stp_map *m = map_new(&ss);
	char long_key[700], other[700];
	struct stp_map_node *n;
	int err;

	_stp_map_set_str(m, KEYS(S("tapir")), "mammal");
	_stp_map_set_str(m, KEYS(S("")), "empty");
	tap_str_eq(_stp_map_get_str(m, KEYS(S("tapir"))), "mammal",
		   "string key, string value");
	tap_str_eq(_stp_map_get_str(m, KEYS(S(""))), "empty",
		   "the empty string is a key");
	tap_str_eq(_stp_map_get_str(m, KEYS(S("tapi"))), "",
		   "absent string reads \"\"");
	n = _stp_map_lookup_add(m, KEYS(S("tapir")), &err);
	strcat(_stp_node_str_buf(m, n), "s");
	tap_str_eq(_stp_map_get_str(m, KEYS(S("tapir"))), "mammals",
		   "a[k] .= in place");
	memset(long_key, 'k', sizeof(long_key) - 1);
	long_key[sizeof(long_key) - 1] = '\0';
	memcpy(other, long_key, sizeof(other));
	other[600] = 'z';
	_stp_map_set_str(m, KEYS(S(long_key)), long_key);
	tap_int_eq(strlen(_stp_map_get_str(m, KEYS(S(long_key)))),
		   MAXSTRINGLEN - 1, "values are cut to MAXSTRINGLEN - 1");
	n = _stp_map_find(m, KEYS(S(other)));
	tap_ok(n != NULL, "keys are compared as cut to MAXSTRINGLEN - 1");
	tap_int_eq(strlen(_stp_node_key_str(m, n, 0)), MAXSTRINGLEN - 1,
		   "the stored key is cut");
	tap_int_eq(_stp_map_size(m), 3, "three elements");
	_stp_map_del(m);
}

/* Nine keys, long and string in turn. */
static void test_nine_keys(void)
{
	static const struct stp_map_desc d = {
		.name = "nine", .nkeys = 9,
		.key_kind = { 1, 2, 1, 2, 1, 2, 1, 2, 1 },
		.val_kind = STP_KIND_LONG, .maxentries = 100,
	};
	struct stp_map *m = map_new(&d);
	struct stp_key k[9];
	struct stp_map_node *n;
	char text[9][8];
	int i, j, ok = 1;

	for (j = 0; j < 20; j++) {
		for (i = 0; i < 9; i++) {
			snprintf(text[i], sizeof(text[i]), "s%d", j + i);
			k[i].n = i % 2 ? 0 : j * 100 + i;
			k[i].s = i % 2 ? text[i] : NULL;
		}
		ok &= !_stp_map_set_long(m, k, j);
	}
	tap_ok(ok, "twenty stores of nine keys");
	tap_int_eq(_stp_map_get_long(m, k), 19, "the last one reads back");
	k[8].n++;
	tap_ok(!_stp_map_exists(m, k), "a difference in the ninth key counts");
	k[8].n--;
	k[7].s = "s0";
	tap_ok(!_stp_map_exists(m, k), "a difference in the eighth counts");
	n = _stp_map_first(m);
	n = _stp_map_next(m, n);
	tap_int_eq(_stp_node_key_long(m, n, 4), 104, "key 5 of the second");
	tap_str_eq(_stp_node_key_str(m, n, 3), "s4", "key 4 of the second");
	tap_str_eq(_stp_node_key_str(m, n, 4), "", "a long key as a string");
	tap_int_eq(_stp_node_key_long(m, n, 9), 0, "no tenth key");
	_stp_map_del(m);
}

static void test_overflow(void)
{
	struct stp_map *m = map_of("small", STP_KIND_LONG, STP_KIND_LONG, 4,
				   false, NULL);
	struct stp_map *dflt = map_new(&ll);
	int64_t i;
	int err;

	for (i = 0; i < 4; i++)
		_stp_map_set_long(m, KEYS(N(i)), i);
	tap_int_eq(_stp_map_set_long(m, KEYS(N(4)), 4), -E2BIG,
		   "the fifth element of a[4] overflows");
	tap_ok(!_stp_map_lookup_add(m, KEYS(N(4)), &err) && err == -E2BIG,
	       "lookup_add overflows too");
	tap_int_eq(_stp_map_set_long(m, KEYS(N(2)), 9), 0,
		   "a full array still updates");
	tap_str_eq(_stp_map_overflow_msg(m),
		   "Array overflow, check size limit (4)", "sized message");
	tap_str_eq(_stp_map_overflow_msg(dflt),
		   "Array overflow, check MAXMAPENTRIES", "default message");
	_stp_map_delete(m, KEYS(N(0)));
	tap_int_eq(_stp_map_set_long(m, KEYS(N(4)), 4), 0,
		   "a deleted element's node is reused");
	tap_str_eq(order_of(m), "1 2 3 4", "and goes last");
	for (i = 0; i < MAXMAPENTRIES; i++)
		err = _stp_map_set_long(dflt, KEYS(N(i * 7919)), i);
	tap_int_eq(err, 0, "MAXMAPENTRIES elements fit by default");
	tap_int_eq(_stp_map_set_long(dflt, KEYS(N(-1)), 0), -E2BIG,
		   "one more does not");
	map_free(m);
	_stp_map_del(dflt);
}

static void test_wrap(void)
{
	struct stp_map *m = map_of("w", STP_KIND_LONG, STP_KIND_LONG, 3, true,
				   NULL);
	int64_t i;

	for (i = 1; i <= 4; i++)
		tap_int_eq(_stp_map_set_long(m, KEYS(N(i)), 10 - i), 0,
			   "wrap: store %lld", (long long)i);
	tap_str_eq(order_of(m), "2 3 4", "wrap: the oldest made room");
	_stp_map_sort(m, 0, 1, STP_STAT_COUNT);
	tap_str_eq(order_of(m), "4 3 2", "wrap: sorted by value");
	_stp_map_set_long(m, KEYS(N(5)), 0);
	tap_str_eq(order_of(m), "4 3 5",
		   "wrap: the oldest goes, not the first in order");
	map_free(m);
}

static void test_clear(void)
{
	struct stp_map *m = map_new(&ss);
	char key[8];
	int i, err = 0;

	for (i = 0; i < 16; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		err |= _stp_map_set_str(m, KEYS(S(key)), key);
	}
	tap_int_eq(err, 0, "fill a[16]");
	_stp_map_clear(m);
	tap_int_eq(_stp_map_size(m), 0, "clear empties");
	tap_ok(!_stp_map_first(m), "nothing to iterate");
	tap_ok(!_stp_map_exists(m, KEYS(S("k3"))), "k3 is gone");
	for (i = 0; i < 16; i++) {
		snprintf(key, sizeof(key), "n%d", i);
		err |= _stp_map_set_str(m, KEYS(S(key)), key);
	}
	tap_int_eq(err, 0, "all the room is back");
	tap_str_eq(_stp_map_get_str(m, KEYS(S("n15"))), "n15", "n15 stored");
	_stp_map_del(m);
}

static void test_slices(void)
{
	static const struct stp_map_desc d = {
		.name = "two", .nkeys = 2,
		.key_kind = { STP_KIND_LONG, STP_KIND_STRING },
		.val_kind = STP_KIND_LONG, .maxentries = 64,
	};
	static const char *const names[] = { "a", "b", "c" };
	static const bool wild0[] = { true, false };
	static const bool wild1[] = { false, true };
	struct stp_map *m = map_new(&d);
	struct stp_map_node *n;
	int i, j, hits = 0;

	for (i = 0; i < 4; i++) {
		for (j = 0; j < 3; j++)
			_stp_map_set_long(m, KEYS(N(i), S(names[j])), j);
	}
	for (n = _stp_map_first(m); n; n = _stp_map_next(m, n))
		hits += _stp_map_node_match(m, n, KEYS(N(0), S("b")), wild0);
	tap_int_eq(hits, 4, "a[*, \"b\"] matches four");
	tap_ok(_stp_map_node_match(m, _stp_map_first(m), KEYS(N(0), S("a")),
				   NULL), "no wild means all keys count");
	_stp_map_delete_slice(m, KEYS(N(2), S(NULL)), wild1);
	tap_int_eq(_stp_map_size(m), 9, "delete a[2, *] removes three");
	tap_ok(!_stp_map_exists(m, KEYS(N(2), S("c"))), "a[2, \"c\"] is gone");
	_stp_map_delete_slice(m, KEYS(N(0), S("a")), wild0);
	tap_int_eq(_stp_map_size(m), 6, "delete a[*, \"a\"] removes three");
	_stp_map_delete_slice(m, KEYS(N(0), S("")), (const bool[]){ 1, 1 });
	tap_int_eq(_stp_map_size(m), 0, "delete a[*, *] removes all");
	_stp_map_del(m);
}

/* Values with ties, so that every sort shows whether it is stable. */
static void test_sort(void)
{
	static const int64_t vals[] = { 5, 3, 5, 1, 3, 9, 1 };
	struct stp_map *m = map_new(&ll);
	int64_t i;

	for (i = 0; i < 7; i++)
		_stp_map_set_long(m, KEYS(N(10 + i)), vals[i]);
	_stp_map_sort(m, 0, 1, STP_STAT_COUNT);
	tap_str_eq(order_of(m), "13 16 11 14 10 12 15",
		   "value ascending, ties in insertion order");
	_stp_map_clear(m);
	for (i = 0; i < 7; i++)
		_stp_map_set_long(m, KEYS(N(10 + i)), vals[i]);
	_stp_map_sort(m, 0, -1, STP_STAT_COUNT);
	tap_str_eq(order_of(m), "15 10 12 11 14 13 16",
		   "value descending, ties in insertion order");
	_stp_map_sort(m, 1, 1, STP_STAT_COUNT);
	tap_str_eq(order_of(m), "10 11 12 13 14 15 16", "key ascending");
	_stp_map_sort(m, 1, -1, STP_STAT_COUNT);
	tap_str_eq(order_of(m), "16 15 14 13 12 11 10", "key descending");
	_stp_map_sort(m, 2, 1, STP_STAT_COUNT);
	tap_str_eq(order_of(m), "16 15 14 13 12 11 10",
		   "a column past the keys is ignored");
	_stp_map_set_long(m, KEYS(N(1)), 0);
	tap_str_eq(order_of(m), "16 15 14 13 12 11 10 1",
		   "new elements go after a sorted order");
	_stp_map_del(m);
}

static const char *str_order(struct stp_map *m, int col)
{
	static char buf[256];
	struct stp_map_node *n;
	size_t len = 0;

	buf[0] = '\0';
	for (n = _stp_map_first(m); n; n = _stp_map_next(m, n))
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				len ? " " : "", col ? _stp_node_key_str(m, n, 0)
						    : _stp_node_str(m, n));
	return buf;
}

static void test_sort_strings(void)
{
	static const char *const kv[][2] = {
		{ "pear", "b" }, { "apple", "a" }, { "fig", "b" },
		{ "kiwi", "" }, { "date", "a" },
	};
	struct stp_map *m = map_new(&ss);
	size_t i;

	for (i = 0; i < 5; i++)
		_stp_map_set_str(m, KEYS(S(kv[i][0])), kv[i][1]);
	_stp_map_sort(m, 1, 1, STP_STAT_COUNT);
	tap_str_eq(str_order(m, 1), "apple date fig kiwi pear",
		   "string keys ascending");
	_stp_map_sort(m, 0, -1, STP_STAT_COUNT);
	tap_str_eq(str_order(m, 1), "fig pear apple date kiwi",
		   "string values descending, ties keep the previous order");
	_stp_map_del(m);
}

/* Many elements: the hash table and the sort at scale. */
static void test_many(void)
{
	struct stp_map *m = map_of("many", STP_KIND_LONG, STP_KIND_LONG, 20000,
				   false, NULL);
	struct stp_map_node *n;
	int64_t i, prev_v = INT64_MIN, prev_k = 0;
	int bad = 0;

	for (i = 0; i < 20000; i++)
		bad |= _stp_map_set_long(m, KEYS(N(i * 2654435761LL)),
					 (i * 7) % 101);
	for (i = 0; i < 20000; i += 2)
		_stp_map_delete(m, KEYS(N(i * 2654435761LL)));
	for (i = 1; i < 20000; i += 2)
		bad |= _stp_map_get_long(m, KEYS(N(i * 2654435761LL))) !=
		       (i * 7) % 101;
	tap_ok(!bad && _stp_map_size(m) == 10000, "20000 in, half out");
	_stp_map_sort(m, 0, 1, STP_STAT_COUNT);
	for (n = _stp_map_first(m); n; n = _stp_map_next(m, n)) {
		int64_t v = _stp_node_long(m, n);
		int64_t k = _stp_node_key_long(m, n, 0) / 2654435761LL;

		if (v < prev_v || (v == prev_v && k < prev_k))
			bad = 1;
		prev_v = v;
		prev_k = k;
	}
	tap_ok(!bad, "10000 sorted by value, ties in insertion order");
	map_free(m);
}

static void test_new_failures(void)
{
	static const struct stp_map_desc none = {
		.nkeys = 0, .val_kind = STP_KIND_LONG,
	};
	static const struct stp_map_desc ten = {
		.nkeys = 10, .val_kind = STP_KIND_LONG,
	};
	static const struct stp_map_desc nostat = {
		.nkeys = 1, .key_kind = { STP_KIND_LONG },
		.val_kind = STP_KIND_STAT,
	};
	static const struct stp_map_desc st = {
		.name = "st", .nkeys = 1, .key_kind = { STP_KIND_STRING },
		.val_kind = STP_KIND_STAT, .maxentries = 8, .stat = &log_stat,
	};
	int i, nulls = 0;

	tap_ok(!_stp_map_new(&none), "no keys is refused");
	tap_ok(!_stp_map_new(&ten), "ten keys are refused");
	tap_ok(!_stp_map_new(&nostat), "a stat array needs its stat desc");
	/* 3 + 2 + 3 per CPU allocations for a stat array */
	for (i = 1; i <= 5 + 3 * NR_CPUS; i++) {
		kshim_fail_alloc = i;
		nulls += !_stp_map_new(&st);
	}
	kshim_fail_alloc = 0;
	tap_int_eq(nulls, 5 + 3 * NR_CPUS,
		   "every failed allocation gives NULL (and leaks nothing)");
	_stp_map_del(NULL);
}

/* ---- statistics arrays ---- */

static struct stp_map *stat_map(const char *name, unsigned int max,
				bool wrap, const struct stp_stat_desc *sd)
{
	return map_of(name, STP_KIND_STRING, STP_KIND_STAT, max, wrap, sd);
}

static int add_on(struct stp_map *m, int cpu, const char *key, int64_t v)
{
	int err;

	kshim_set_cpu(cpu);
	err = _stp_map_add_stat(m, KEYS(S(key)), v);
	kshim_set_cpu(0);
	return err;
}

static int64_t stat_of_key(struct stp_map *m, const char *key,
			   enum stp_stat_op op)
{
	return stp_stat_agg_value(_stp_node_stat(m, _stp_map_find(m,
						 KEYS(S(key)))), op);
}

static void test_stat_array(void)
{
	struct stp_map *m = stat_map("lat", 16, false, &log_stat);

	add_on(m, 1, "b", 10);
	add_on(m, 0, "a", 1);
	add_on(m, 2, "a", 5);
	add_on(m, 3, "c", -4);
	add_on(m, 0, "b", 30);
	add_on(m, 2, "b", 20);
	tap_ok(_stp_map_exists(m, KEYS(S("c"))),
	       "exists sees the per-CPU maps before any merge");
	tap_int_eq(_stp_map_size(m), 0, "the aggregate is empty until agg");
	tap_int_eq(_stp_map_agg(m), 0, "agg");
	tap_str_eq(str_order(m, 1), "b a c",
		   "elements in order of first addition on any CPU");
	tap_int_eq(stat_of_key(m, "b", STP_STAT_COUNT), 3, "@count(lat[b])");
	tap_int_eq(stat_of_key(m, "b", STP_STAT_SUM), 60, "@sum(lat[b])");
	tap_int_eq(stat_of_key(m, "b", STP_STAT_MIN), 10, "@min(lat[b])");
	tap_int_eq(stat_of_key(m, "b", STP_STAT_MAX), 30, "@max(lat[b])");
	tap_int_eq(stat_of_key(m, "a", STP_STAT_AVG), 3, "@avg(lat[a])");
	tap_int_eq(stat_of_key(m, "b", STP_STAT_VARIANCE), 100,
		   "@variance(lat[b])");
	tap_int_eq(_stp_node_stat(m, _stp_map_find(m, KEYS(S("c"))))
		   ->hist[61], 1, "@hist_log(lat[c])[61] holds -4");
	tap_int_eq(_stp_node_stat(m, NULL)->count, 0,
		   "an absent element is an empty statistic");
	tap_int_eq(_stp_map_agg(m), 0, "agg twice");
	tap_int_eq(stat_of_key(m, "b", STP_STAT_COUNT), 3,
		   "a second merge counts nothing twice");
	_stp_map_sort(m, 0, -1, STP_STAT_SUM);
	tap_str_eq(str_order(m, 1), "b a c", "sorted by @sum descending");
	_stp_map_sort(m, 0, 1, STP_STAT_MIN);
	tap_str_eq(str_order(m, 1), "c a b", "sorted by @min ascending");
	_stp_map_sort(m, 0, 1, STP_STAT_COUNT);
	tap_str_eq(str_order(m, 1), "c a b",
		   "sorted by @count, ties keep the previous order");
	_stp_map_sort(m, 1, 1, STP_STAT_COUNT);
	tap_str_eq(str_order(m, 1), "a b c", "sorted by key");
	_stp_map_delete(m, KEYS(S("a")));
	tap_ok(!_stp_map_exists(m, KEYS(S("a"))), "delete lat[a]");
	tap_int_eq(_stp_map_size(m), 2, "gone from the aggregate too");
	_stp_map_agg(m);
	tap_str_eq(str_order(m, 1), "b c", "and from every CPU");
	add_on(m, 1, "a", 1);
	_stp_map_agg(m);
	tap_str_eq(str_order(m, 1), "b c a", "a re-added element goes last");
	_stp_map_clear(m);
	_stp_map_agg(m);
	tap_int_eq(_stp_map_size(m), 0, "clear empties every CPU");
	tap_int_eq(_stp_map_add_stat(m, KEYS(S("x")), 1), 0, "usable again");
	tap_int_eq(_stp_map_set_long(m, KEYS(S("x")), 1), -EINVAL,
		   "a stat array takes no plain stores");
	map_free(m);
}

/* The same values through a scalar statistic and a stat array element
 * give the same merged result, including the variance.
 */
static void test_stat_array_variance(void)
{
	static const struct stp_stat_desc sd = {
		.ops = ALL_OPS, .variance_shift = 2,
	};
	struct stp_map *m = stat_map("v", 4, false, &sd);
	struct stp_stat *st = _stp_stat_new(&sd);
	const struct stp_stat_agg *a, *b;
	int i;

	for (i = 0; i < 200; i++) {
		int64_t v = (i * 37) % 91 - 20;

		add_on(m, i % 3, "k", v);
		kshim_set_cpu(i % 3);
		_stp_stat_add(st, v);
	}
	kshim_set_cpu(0);
	_stp_map_agg(m);
	a = _stp_node_stat(m, _stp_map_find(m, KEYS(S("k"))));
	b = _stp_stat_get(st);
	tap_ok(a->count == b->count && a->sum == b->sum &&
	       a->min == b->min && a->max == b->max, "same count..max");
	tap_int_eq(a->variance, b->variance, "same @variance (%lld)",
		   (long long)b->variance);
	_stp_stat_del(st);
	map_free(m);
}

static void test_stat_overflow(void)
{
	struct stp_map *m = stat_map("ov", 2, false, &log_stat);
	struct stp_map *w = stat_map("wr", 2, true, &log_stat);

	add_on(m, 0, "a", 1);
	add_on(m, 0, "b", 1);
	tap_int_eq(add_on(m, 0, "c", 1), -E2BIG, "a full CPU map overflows");
	tap_int_eq(add_on(m, 1, "c", 1), 0, "another CPU has room");
	add_on(m, 1, "a", 5);
	tap_int_eq(_stp_map_agg(m), -E2BIG, "three keys do not merge into 2");
	tap_str_eq(_stp_map_agg_overflow_msg(m), "aggregation overflow in ov",
		   "aggregation overflow message");
	tap_str_eq(str_order(m, 1), "a c", "the oldest key is left out");
	tap_int_eq(stat_of_key(m, "a", STP_STAT_COUNT), 2,
		   "what is kept is complete");
	add_on(w, 0, "a", 1);
	add_on(w, 0, "b", 1);
	add_on(w, 0, "c", 1);
	add_on(w, 1, "d", 1);
	tap_int_eq(_stp_map_agg(w), 0, "a wrapping array merges silently");
	tap_str_eq(str_order(w, 1), "c d", "keeping the newest keys");
	map_free(m);
	map_free(w);
}

static void test_slice_stats(void)
{
	static const struct stp_map_desc d = {
		.name = "s2", .nkeys = 2,
		.key_kind = { STP_KIND_LONG, STP_KIND_LONG },
		.val_kind = STP_KIND_STAT, .maxentries = 32,
		.stat = &log_stat,
	};
	static const bool wild[] = { false, true };
	struct stp_map *m = map_new(&d);
	int i;

	for (i = 0; i < 12; i++) {
		kshim_set_cpu(i % NR_CPUS);
		_stp_map_add_stat(m, KEYS(N(i % 3), N(i)), i);
	}
	kshim_set_cpu(0);
	_stp_map_delete_slice(m, KEYS(N(1), N(0)), wild);
	_stp_map_agg(m);
	tap_int_eq(_stp_map_size(m), 8, "delete s[1, *] on a stat array");
	tap_ok(!_stp_map_exists(m, KEYS(N(1), N(4))), "s[1, 4] is gone");
	_stp_map_del(m);
}

/* ix_hist.stp: foo[i] <<< i * j for j < i * 128, then foreach (i+ in
 * foo) print(@hist_log(foo[i])), here with the values spread over CPUs.
 */
static void test_ix_hist(void)
{
	struct stp_map *m = map_of("foo", STP_KIND_LONG, STP_KIND_STAT, 0,
				   false, &log_stat);
	struct stp_map_node *n;
	int i, j, c = 0;

	for (i = 4; i >= 0; i--) {
		for (j = 0; j < i * 128; j++) {
			kshim_set_cpu(c++ % NR_CPUS);
			_stp_map_add_stat(m, KEYS(N(i)), i * j);
		}
	}
	kshim_set_cpu(0);
	_stp_map_agg(m);
	_stp_map_sort(m, 1, 1, STP_STAT_COUNT);
	for (n = _stp_map_first(m); n; n = _stp_map_next(m, n))
		_stp_stat_print_hist(&log_stat, _stp_node_stat(m, n));
	tap_str_eq(kshim_output(), EXP_IX_HIST, "chart: ix_hist.stp");
	map_free(m);
}

/* A counter array: adds go to each CPU's map, reads see the sums. */
static struct stp_map *counter_map(const char *name, unsigned int max)
{
	struct stp_map_desc *d = calloc(1, sizeof(*d));

	d->name = name;
	d->nkeys = 1;
	d->key_kind[0] = STP_KIND_STRING;
	d->val_kind = STP_KIND_LONG;
	d->maxentries = max;
	d->counter = true;
	return map_new(d);
}

static int count_on(struct stp_map *m, int cpu, const char *key, int64_t v)
{
	int err;

	kshim_set_cpu(cpu);
	err = _stp_map_add_count(m, KEYS(S(key)), v);
	kshim_set_cpu(0);
	return err;
}

static void test_counter_array(void)
{
	struct stp_map *m = counter_map("f", 4);
	struct stp_map_node *n;
	int64_t total = 0;
	int seen = 0;

	count_on(m, 1, "b", 1);
	count_on(m, 0, "a", 1);
	count_on(m, 2, "a", 5);
	count_on(m, 0, "b", -3);
	tap_int_eq(_stp_map_get_long(m, KEYS(S("a"))), 6,
		   "a read sums every CPU's adds");
	tap_int_eq(_stp_map_get_long(m, KEYS(S("b"))), -2, "and b's");
	tap_int_eq(_stp_map_size(m), 2, "two elements");
	tap_str_eq(str_order(m, 1), "b a",
		   "in order of first addition on any CPU");
	count_on(m, 3, "a", 10);
	tap_int_eq(_stp_map_get_long(m, KEYS(S("a"))), 16,
		   "a later add is seen by the next read");
	/* a foreach that adds to the array and reads it: the sums are
	 * redone in place, the nodes under the loop stay
	 */
	for (n = _stp_map_first(m); n; n = _stp_map_next(m, n)) {
		count_on(m, 1, "c", 1);
		total += _stp_map_get_long(m, KEYS(S(_stp_node_key_str(m, n,
								     0))));
		seen++;
	}
	tap_int_eq(seen, 3, "foreach that adds sees the new element last");
	tap_int_eq(total, -2 + 16 + 3, "and every sum current");
	_stp_map_sort(m, 0, -1, STP_STAT_SUM);
	tap_str_eq(str_order(m, 1), "a c b", "sorted by value descending");
	_stp_map_delete(m, KEYS(S("a")));
	tap_ok(!_stp_map_exists(m, KEYS(S("a"))), "delete f[a]");
	count_on(m, 0, "a", 2);
	tap_int_eq(_stp_map_get_long(m, KEYS(S("a"))), 2,
		   "a deleted element counts from 0 again");
	tap_int_eq(_stp_map_set_long(m, KEYS(S("x")), 1), -EINVAL,
		   "a counter takes no plain stores");
	count_on(m, 0, "d", 1);
	count_on(m, 0, "e", 1);
	tap_int_eq(count_on(m, 0, "g", 1), -E2BIG, "a full CPU map");
	_stp_map_clear(m);
	tap_int_eq(_stp_map_size(m), 0, "clear empties every CPU");
	tap_int_eq(_stp_map_get_long(m, KEYS(S("b"))), 0, "b reads 0");
	map_free(m);
}

/* The same through the one-string-key entry (c[execname()]++). */
static int count_s_on(struct stp_map *m, int cpu, const char *key, int64_t v)
{
	int err;

	kshim_set_cpu(cpu);
	err = _stp_map_add_count_s(m, key, v);
	kshim_set_cpu(0);
	return err;
}

/* The counter's one-string-key path compares a key with a slot's words
 * as they are stored: a node reused for a shorter key (its slot holding
 * the old key's bytes past the new NUL) still matches that key only, and
 * a key longer than a slot matches its cut.
 */
static void test_counter_word_keys(void)
{
	struct stp_map *m = counter_map("w", 4);
	char lng[MAXSTRINGLEN + 8], cut[MAXSTRINGLEN];

	count_s_on(m, 0, "abcdefghijklmnopq", 1);
	_stp_map_delete(m, KEYS(S("abcdefghijklmnopq")));
	count_s_on(m, 0, "abcdefghi", 2);	/* the freed node, reused */
	count_on(m, 0, "abcdefghi", 3);	/* the general path */
	count_s_on(m, 0, "abcdefgh", 4);
	count_s_on(m, 0, "abcdefghij", 5);
	tap_int_eq(_stp_map_get_long(m, KEYS(S("abcdefghi"))), 5,
		   "a reused node's key matches its own key");
	tap_int_eq(_stp_map_get_long(m, KEYS(S("abcdefgh"))), 4,
		   "not a prefix of it");
	tap_int_eq(_stp_map_get_long(m, KEYS(S("abcdefghij"))), 5,
		   "nor a longer one");
	tap_int_eq(_stp_map_size(m), 3, "three elements");
	tap_int_eq(count_s_on(m, 0, "z", 1), 0,
		   "and room for a fourth: no key was stored twice");
	_stp_map_clear(m);
	memset(lng, 'x', sizeof(lng) - 1);
	lng[sizeof(lng) - 1] = '\0';
	memset(cut, 'x', sizeof(cut) - 1);
	cut[sizeof(cut) - 1] = '\0';
	count_s_on(m, 1, lng, 1);
	count_on(m, 2, cut, 1);	/* the general path finds it too */
	count_s_on(m, 1, cut, 1);
	tap_int_eq(_stp_map_get_long(m, KEYS(S(cut))), 3,
		   "a key past a slot counts as its cut");
	tap_int_eq(_stp_map_size(m), 1, "one element");
	count_s_on(m, 0, NULL, 2);
	tap_int_eq(_stp_map_get_long(m, KEYS(S(""))), 2, "a NULL key is \"\"");
	map_free(m);
}

/* String keys are hashed and compared a word at a time: keys that
 * differ only in length, or in one byte on either side of a word's
 * edge, are different elements; each finds its own value.
 */
static void test_word_keys(void)
{
	static const int lens[] = { 0, 1, 7, 8, 9, 15, 16, 17, 24,
				    MAXSTRINGLEN - 2, MAXSTRINGLEN - 1 };
	enum { N = sizeof(lens) / sizeof(lens[0]) };
	struct stp_map *m = map_of("w", STP_KIND_STRING, STP_KIND_LONG, 64,
				   false, NULL);
	char keys[N][MAXSTRINGLEN], flip[MAXSTRINGLEN];
	int i, good = 0, flips = 0;

	for (i = 0; i < N; i++) {
		memset(keys[i], 'a', (size_t)lens[i]);
		keys[i][lens[i]] = '\0';
		_stp_map_set_long(m, KEYS(S(keys[i])), 100 + i);
	}
	tap_int_eq(_stp_map_size(m), N, "keys of each length are apart");
	for (i = 0; i < N; i++)
		good += _stp_map_get_long(m, KEYS(S(keys[i]))) == 100 + i;
	tap_int_eq(good, N, "each length finds its own value");
	/* one byte changed at the last place of a word or the first of
	 * the next: not found
	 */
	for (i = 0; i < N; i++) {
		int at;

		for (at = 7; at <= 8; at++) {
			if (at >= lens[i])
				continue;
			strcpy(flip, keys[i]);
			flip[at] = 'b';
			flips += !_stp_map_find(m, KEYS(S(flip)));
		}
	}
	tap_int_eq(flips, 15, "a byte changed at a word's edge is another key");
	map_free(m);
}

int main(void)
{
	test_store_find();
	test_lookup_add();
	test_update_in_place();
	test_strings();
	test_word_keys();
	test_nine_keys();
	test_overflow();
	test_wrap();
	test_clear();
	test_slices();
	test_sort();
	test_sort_strings();
	test_many();
	test_new_failures();
	test_stat_array();
	test_stat_array_variance();
	test_stat_overflow();
	test_slice_stats();
	test_ix_hist();
	test_counter_array();
	test_counter_word_keys();
	kshim_output_free();
	return tap_done();
}
