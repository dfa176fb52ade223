/* stp_map.h - associative arrays of the script language: 1..9 keys of
 * long or string, values long, string or statistics.  All storage is
 * allocated when the module initialises; nothing here allocates in
 * probe context.  Callers hold the array's lock (generated code does).
 */
#ifndef STP_MAP_H
#define STP_MAP_H

#include "stp_stat.h"

#define STP_MAX_KEYS 9

enum stp_kind {
	STP_KIND_LONG = 1,
	STP_KIND_STRING = 2,
	STP_KIND_STAT = 3,
};

/* What the translator knows about one array (a static const table in
 * the generated module).
 */
struct stp_map_desc {
	const char *name;		/* script name, for error messages */
	int nkeys;
	unsigned char key_kind[STP_MAX_KEYS];	/* LONG or STRING */
	unsigned char val_kind;		/* LONG, STRING or STAT */
	unsigned int maxentries;	/* declared size or MAXMAPENTRIES */
	bool wrap;			/* '%': reuse the oldest entry */
	const struct stp_stat_desc *stat;	/* when val_kind is STAT */
	/* a counter: a long array that the script only adds to (++, --,
	 * +=, -= as statements) besides reading it; kept per CPU like a
	 * statistics array and summed when read (see _stp_map_add_count)
	 */
	bool counter;
};

/* One index value as generated code passes it. */
struct stp_key {
	int64_t n;			/* a long key */
	const char *s;			/* a string key (NULL for long) */
};

/* The keys of one element, as generated code writes them:
 * STP_KEYS({ .s = name }, { .n = 3 }).
 */
#define STP_KEYS(...) ((const struct stp_key[]){ __VA_ARGS__ })

struct stp_map;				/* opaque */
struct stp_map_node;			/* opaque */

/* Init/exit only (may sleep).  NULL on allocation failure. */
struct stp_map *_stp_map_new(const struct stp_map_desc *d);
void _stp_map_del(struct stp_map *m);

/* Lookups.  An absent element reads as 0 / "" / an empty stat. */
struct stp_map_node *_stp_map_find(struct stp_map *m,
				   const struct stp_key *keys);
int64_t _stp_map_get_long(struct stp_map *m, const struct stp_key *keys);
const char *_stp_map_get_str(struct stp_map *m, const struct stp_key *keys);
bool _stp_map_exists(struct stp_map *m, const struct stp_key *keys);

/* Stores create the element (storing 0 or "" still creates it, as the
 * established tool does).  -E2BIG when the array is full and does not
 * wrap: the caller raises "Array overflow" (see _stp_map_overflow_msg).
 */
int _stp_map_set_long(struct stp_map *m, const struct stp_key *keys,
		      int64_t v);
int _stp_map_set_str(struct stp_map *m, const struct stp_key *keys,
		     const char *v);
/* a[k] += v and friends: the node to update in place, created as 0/"". */
struct stp_map_node *_stp_map_lookup_add(struct stp_map *m,
					 const struct stp_key *keys, int *err);
/*
 * Read-modify-write of one element in one lookup, so that the keys are
 * hashed once and an absent element is created (as 0 or "") only here.
 * Each fails as the stores above do (-E2BIG on a full array that does
 * not wrap), leaving the array as it was.
 *
 * a[k] += v, ++, --: *sum (when not NULL) gets the new value; the sum
 * wraps as script arithmetic does.
 */
int _stp_map_add_long(struct stp_map *m, const struct stp_key *keys,
		      int64_t v, int64_t *sum);
/* a[k] .= v, cut to MAXSTRINGLEN - 1 bytes; v may be the element's own
 * text.  *val (when not NULL) points at the element's new text, valid
 * until the array next changes.
 */
int _stp_map_append_str(struct stp_map *m, const struct stp_key *keys,
			const char *v, const char **val);
/* a[k] *= v and the other operators: the element's value, for the
 * caller to update in place at once; NULL when the array is full.
 */
int64_t *_stp_map_long_ref(struct stp_map *m, const struct stp_key *keys);
/* a[k] <<< v on a statistics array (per-CPU: only the shared lock is
 * needed).  Every other call on a statistics array reads all CPUs' maps
 * and needs the exclusive lock.
 */
int _stp_map_add_stat(struct stp_map *m, const struct stp_key *keys,
		      int64_t v);

/* a[k] += v on a counter array: this CPU's map only, so the shared
 * lock is enough.  Every read (lookups, iteration, size, sort) sums the
 * CPUs' maps first when they changed, in place, and needs the exclusive
 * lock.  -E2BIG when this CPU's map is full.
 */
int _stp_map_add_count(struct stp_map *m, const struct stp_key *keys,
		       int64_t v);

/* The same for the commonest shape, one string key (c[execname()]++):
 * the key hashed and looked up once, no call on a hit.
 */
int _stp_map_add_count_s(struct stp_map *m, const char *s, int64_t v);

void _stp_map_delete(struct stp_map *m, const struct stp_key *keys);
/* delete a[k1, *]: wild[i] set means key i is '*'. */
void _stp_map_delete_slice(struct stp_map *m, const struct stp_key *keys,
			   const bool *wild);
void _stp_map_clear(struct stp_map *m);
unsigned int _stp_map_size(struct stp_map *m);

/* Iteration in the current order (insertion order until sorted). */
struct stp_map_node *_stp_map_first(struct stp_map *m);
struct stp_map_node *_stp_map_next(struct stp_map *m,
				   struct stp_map_node *n);
/* True when the node's keys match keys[] where !wild[i] (slices). */
bool _stp_map_node_match(struct stp_map *m, struct stp_map_node *n,
			 const struct stp_key *keys, const bool *wild);

/* Sort the iteration order: column 0 = value, 1..N = key N; dir +1
 * ascending, -1 descending; agg picks the statistic for stat values.
 * Stable: ties keep their previous (insertion) order.  Uses scratch
 * space allocated with the map, so it never fails.
 */
void _stp_map_sort(struct stp_map *m, int column, int dir,
		   enum stp_stat_op agg);

/* Node accessors. */
int64_t _stp_node_key_long(struct stp_map *m, struct stp_map_node *n, int i);
const char *_stp_node_key_str(struct stp_map *m, struct stp_map_node *n,
			      int i);
int64_t _stp_node_long(struct stp_map *m, struct stp_map_node *n);
int64_t *_stp_node_long_ptr(struct stp_map *m, struct stp_map_node *n);
const char *_stp_node_str(struct stp_map *m, struct stp_map_node *n);
char *_stp_node_str_buf(struct stp_map *m, struct stp_map_node *n);
/* The merged statistics of a node of a stat array: valid after
 * _stp_map_agg(m) and until the next change of the array.  A NULL node
 * (an absent element) gives an empty statistic.
 */
const struct stp_stat_agg *_stp_node_stat(struct stp_map *m,
					  struct stp_map_node *n);

/* Statistics arrays keep one map per CPU; reading (foreach, @count(a[k]),
 * print) first merges them.  Needs the array's exclusive lock.  On a
 * statistics array, _stp_map_find, _stp_map_size and iteration see the
 * aggregate as of the last call; _stp_map_exists looks at the per-CPU
 * maps and is always current.  Elements come out in the order they were
 * first added on any CPU.  Returns -E2BIG when the elements of all CPUs
 * together do not fit (the caller raises "aggregation overflow", see
 * _stp_map_agg_overflow_msg); the aggregate then holds those added last.
 * A wrapping array never fails: it drops the oldest.  0 otherwise, and
 * for arrays that are not statistics.
 */
int _stp_map_agg(struct stp_map *m);

/* "Array overflow, check MAXMAPENTRIES" style text for errors. */
const char *_stp_map_overflow_msg(struct stp_map *m);
/* "aggregation overflow in NAME", for a failed _stp_map_agg. */
const char *_stp_map_agg_overflow_msg(struct stp_map *m);

#endif
