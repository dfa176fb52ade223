/* stp_map.c - associative arrays: a hash table over a node pool that is
 * allocated whole at init, the foreach order as a list with a stable
 * in-place sort, and statistics arrays as one map per CPU merged into an
 * aggregate map when read.
 */
#ifdef __KERNEL__
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/container_of.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/word-at-a-time.h>
#else
#include "kshim.h"
#endif

#include "stp_map.h"
#include "stp_map_stat.h"

/* log2 of (hash buckets / entries), as the established tool's -D knob. */
#ifndef MAPHASHBIAS
#define MAPHASHBIAS 0
#endif

/*
 * The pools can be large (a[1000000] of string keys is half a gigabyte):
 * when memory runs short, loading fails rather than waking the OOM killer.
 */
#define STP_MAP_GFP	(GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* Node fields are 8-byte words; string slots are padded to match. */
#define STP_MAP_ALIGN(n)	(((n) + 7) & ~(size_t)7)
#define STP_MAP_STRSIZE		STP_MAP_ALIGN(MAXSTRINGLEN)

struct stp_map_list {
	struct stp_map_list *next, *prev;
};

/* A node: the links, then keys and value (see stp_map_layout). */
struct stp_map_node {
	struct stp_map_node *hnext;	/* hash chain, or the free list */
	struct stp_map_node **hpprev;
	struct stp_map_list order;	/* foreach order */
	struct stp_map_list age;	/* creation order; wrap reuses head */
	struct stp_map_node *agg;	/* per-CPU node: its merged node */
	int64_t seq;			/* creation stamp, unique */
	u32 hash;
	int64_t data[];
};

/*
 * A statistics array is an STP_MAP_AGG map holding the merged values
 * (what foreach and extraction read) plus one STP_MAP_PCPU map per CPU
 * (what '<<<' writes).  All of them share the desc and the key layout.
 */
enum stp_map_role {
	STP_MAP_PLAIN,
	STP_MAP_AGG,
	STP_MAP_PCPU,
};

struct stp_map {
	const struct stp_map_desc *d;
	enum stp_map_role role;
	unsigned int maxentries, count, mask;
	size_t key_off[STP_MAX_KEYS], val_off, node_size;
	char *pool;			/* maxentries nodes of node_size */
	struct stp_map_node **table;	/* mask + 1 hash chains */
	struct stp_map_node *free;
	struct stp_map_list order, age;
	atomic64_t seq;
	atomic64_t *seqp;		/* per-CPU maps use the owner's */
	struct stp_map **pcpu;		/* AGG: nr_cpu_ids maps */
	struct stp_map_node **cursor;	/* AGG: where the merge is */
	char overflow_msg[80];
	char agg_msg[80];
	bool stale;			/* counter: the sums are out of date */
	bool count_s;			/* a counter of one string key */
};

/* What an absent element of a statistics array reads as. */
static const struct stp_stat_agg stp_map_empty_stat;

/* ---- lists ---------------------------------------------------------- */

static void stp_map_list_init(struct stp_map_list *l)
{
	l->next = l->prev = l;
}

static void stp_map_list_add_tail(struct stp_map_list *e,
				  struct stp_map_list *h)
{
	e->prev = h->prev;
	e->next = h;
	h->prev->next = e;
	h->prev = e;
}

static void stp_map_list_del(struct stp_map_list *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
}

#define stp_map_order_node(l) container_of(l, struct stp_map_node, order)
#define stp_map_age_node(l) container_of(l, struct stp_map_node, age)

/* ---- layout and keys ------------------------------------------------ */

static char *stp_map_node_at(struct stp_map_node *n, size_t off)
{
	return (char *)n->data + off;
}

static void *stp_map_node_val(struct stp_map *m, struct stp_map_node *n)
{
	return stp_map_node_at(n, m->val_off);
}

static size_t stp_map_val_size(const struct stp_map_desc *d,
			       enum stp_map_role role)
{
	if (d->counter)
		return sizeof(int64_t);
	if (role == STP_MAP_AGG)
		return sizeof(struct stp_stat_agg);
	if (role == STP_MAP_PCPU)
		return stp_stat_part_size(d->stat);
	if (d->val_kind == STP_KIND_LONG)
		return sizeof(int64_t);
	if (d->val_kind == STP_KIND_STRING)
		return STP_MAP_STRSIZE;
	return 0;
}

/* Keys in order, 8 bytes for a long and a MAXSTRINGLEN slot for a
 * string, then the value.
 */
static int stp_map_layout(struct stp_map *m)
{
	const struct stp_map_desc *d = m->d;
	size_t off = 0, vsize;
	int i;

	if (d->nkeys < 1 || d->nkeys > STP_MAX_KEYS)
		return -EINVAL;
	for (i = 0; i < d->nkeys; i++) {
		m->key_off[i] = off;
		if (d->key_kind[i] == STP_KIND_LONG)
			off += sizeof(int64_t);
		else if (d->key_kind[i] == STP_KIND_STRING)
			off += STP_MAP_STRSIZE;
		else
			return -EINVAL;
	}
	m->val_off = off;
	vsize = stp_map_val_size(d, m->role);
	if (!vsize)
		return -EINVAL;
	m->node_size = STP_MAP_ALIGN(sizeof(struct stp_map_node) + off +
				     vsize);
	return 0;
}

static u64 stp_map_mix(u64 h, u64 v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/*
 * String keys are hashed and compared a word (8 bytes, little-endian) at
 * a time.  Only the part of a string that fits in a slot counts: its
 * bytes before its NUL and within its first MAXSTRINGLEN - 1.  A key may
 * end just before an unmapped page (a literal at the end of .rodata), so
 * its words are read as the kernel's own name hashing reads them, with
 * load_unaligned_zeropad; a slot is 8-byte aligned and padded to whole
 * words.
 */
#ifdef __KERNEL__
#define stp_key_word(p)		((u64)load_unaligned_zeropad(p))
#define stp_slot_word(p)	(*(const u64 *)(p))
#else
/* the host's tests: no byte past the NUL is read */
static inline u64 stp_key_word(const char *p)
{
	u64 w = 0;
	int i;

	for (i = 0; i < 8 && p[i]; i++)
		w |= (u64)(unsigned char)p[i] << (8 * i);
	return w;
}
/* a slot is whole words: read as the kernel does */
static inline u64 stp_slot_word(const char *p)
{
	u64 w;

	memcpy(&w, p, sizeof(w));
	return w;
}
#endif

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#error "string keys are read as little-endian words"
#endif

#define STP_BYTES_01	0x0101010101010101ULL
#define STP_BYTES_80	0x8080808080808080ULL

/* The high bit of each NUL byte of word a (and maybe of bytes above the
 * first NUL): non-zero when a holds a NUL.
 */
#define STP_WORD_HAS_ZERO(a)	(((a) - STP_BYTES_01) & ~(a) & STP_BYTES_80)

/* The string's part of word a, read at offset off: bytes after its NUL,
 * or past MAXSTRINGLEN - 1, are 0.
 */
static __always_inline u64 stp_word_part(u64 a, size_t off)
{
	u64 zero = STP_WORD_HAS_ZERO(a);
	size_t room = MAXSTRINGLEN - 1 - off;
	u64 keep = ~0ULL;

	if (zero)	/* the bytes below the first NUL */
		keep = ((zero - 1) & ~zero) >> 7;
	if (room < 8)
		keep &= (1ULL << (room * 8)) - 1;
	return a & keep;
}

/* Whole words (no NUL, room for all 8 bytes) go in as they are; the
 * word the string ends in, or is cut in, is the last: the same words as
 * stp_word_part gives for each.
 */
/* fewer than 8 bytes of room left at off (MAXSTRINGLEN may be < 9) */
#define STP_WORD_CUT(off)	((off) + 9 > (size_t)MAXSTRINGLEN)

static __always_inline u64 stp_map_hash_str(u64 h, const char *s)
{
	size_t off = 0;
	u64 a;

	for (;;) {
		a = stp_key_word(s + off);
		if (STP_WORD_HAS_ZERO(a) || STP_WORD_CUT(off))
			break;
		h = stp_map_mix(h, a);
		off += 8;
	}
	return stp_map_mix(h, stp_word_part(a, off));
}

/* A slot's words hold the string's parts exactly (stp_map_set_keys
 * zeroes the rest of the word its NUL is in), so only the key's side is
 * cut: slot and key are equal when each word of the key's part is the
 * slot's word, up to the key's end.
 */
static __always_inline bool stp_map_str_eq(const char *slot,
					   const char *s)
{
	size_t off = 0;
	u64 a;

	for (;;) {
		a = stp_key_word(s + off);
		if (STP_WORD_HAS_ZERO(a) || STP_WORD_CUT(off))
			break;
		if (stp_slot_word(slot + off) != a)
			return false;
		off += 8;
	}
	return stp_slot_word(slot + off) == stp_word_part(a, off);
}

static u32 stp_map_hash(struct stp_map *m, const struct stp_key *keys)
{
	u64 h = 0xcbf29ce484222325ULL;
	int i;

	for (i = 0; i < m->d->nkeys; i++) {
		if (m->d->key_kind[i] == STP_KIND_STRING)
			h = stp_map_hash_str(h, keys[i].s ? keys[i].s : "");
		else
			h = stp_map_mix(h, (u64)keys[i].n);
	}
	return (u32)(h ^ (h >> 32));
}

static bool stp_map_key_eq(struct stp_map *m, struct stp_map_node *n,
			   int i, const struct stp_key *k)
{
	const char *slot = stp_map_node_at(n, m->key_off[i]);

	if (m->d->key_kind[i] == STP_KIND_STRING)
		return stp_map_str_eq(slot, k->s ? k->s : "");
	return *(const int64_t *)slot == k->n;
}

static void stp_map_set_keys(struct stp_map *m, struct stp_map_node *n,
			     const struct stp_key *keys)
{
	char *slot;
	long len;
	int i;

	for (i = 0; i < m->d->nkeys; i++) {
		slot = stp_map_node_at(n, m->key_off[i]);
		if (m->d->key_kind[i] == STP_KIND_STRING) {
			len = strscpy(slot, keys[i].s ? keys[i].s : "",
				      MAXSTRINGLEN);
			if (len < 0)
				len = MAXSTRINGLEN - 1;
			/* the rest of the NUL's word, for stp_map_str_eq */
			memset(slot + len, 0, STP_MAP_ALIGN(len + 1) - len);
		} else
			*(int64_t *)slot = keys[i].n;
	}
}

/* A node's keys as a key vector (strings point into the node). */
static void stp_map_get_keys(struct stp_map *m, struct stp_map_node *n,
			     struct stp_key *keys)
{
	char *slot;
	int i;

	for (i = 0; i < m->d->nkeys; i++) {
		slot = stp_map_node_at(n, m->key_off[i]);
		keys[i].s = NULL;
		keys[i].n = 0;
		if (m->d->key_kind[i] == STP_KIND_STRING)
			keys[i].s = slot;
		else
			keys[i].n = *(int64_t *)slot;
	}
}

/* ---- the table ------------------------------------------------------ */

static struct stp_map_node *stp_map_lookup(struct stp_map *m,
					   const struct stp_key *keys,
					   u32 hash)
{
	struct stp_map_node *n;
	int i;

	for (n = m->table[hash & m->mask]; n; n = n->hnext) {
		if (n->hash != hash)
			continue;
		for (i = 0; i < m->d->nkeys; i++) {
			if (!stp_map_key_eq(m, n, i, &keys[i]))
				break;
		}
		if (i == m->d->nkeys)
			return n;
	}
	return NULL;
}

/* Take a free node (the caller checked there is one) for keys. */
static struct stp_map_node *stp_map_node_new(struct stp_map *m,
					     const struct stp_key *keys,
					     u32 hash, int64_t seq)
{
	struct stp_map_node *n = m->free, **chain;

	m->free = n->hnext;
	chain = &m->table[hash & m->mask];
	n->hnext = *chain;
	if (*chain)
		(*chain)->hpprev = &n->hnext;
	*chain = n;
	n->hpprev = chain;
	stp_map_list_add_tail(&n->order, &m->order);
	stp_map_list_add_tail(&n->age, &m->age);
	n->agg = NULL;
	n->seq = seq;
	n->hash = hash;
	stp_map_set_keys(m, n, keys);
	memset(stp_map_node_val(m, n), 0, stp_map_val_size(m->d, m->role));
	m->count++;
	return n;
}

static void stp_map_unlink(struct stp_map *m, struct stp_map_node *n)
{
	*n->hpprev = n->hnext;
	if (n->hnext)
		n->hnext->hpprev = n->hpprev;
	stp_map_list_del(&n->order);
	stp_map_list_del(&n->age);
	n->hnext = m->free;
	m->free = n;
	m->count--;
}

/* A new element; when the pool is used up, a wrapping array gives up
 * its oldest element, any other fails with -E2BIG.
 */
static struct stp_map_node *stp_map_create(struct stp_map *m,
					   const struct stp_key *keys,
					   u32 hash, int *err)
{
	if (!m->free) {
		if (!m->d->wrap || !m->count) {
			*err = -E2BIG;
			return NULL;
		}
		stp_map_unlink(m, stp_map_age_node(m->age.next));
	}
	return stp_map_node_new(m, keys, hash, atomic64_inc_return(m->seqp));
}

static struct stp_map_node *stp_map_get(struct stp_map *m,
					const struct stp_key *keys, int *err)
{
	u32 hash = stp_map_hash(m, keys);
	struct stp_map_node *n = stp_map_lookup(m, keys, hash);

	return n ? n : stp_map_create(m, keys, hash, err);
}

static void stp_map_reset(struct stp_map *m)
{
	while (m->order.next != &m->order)
		stp_map_unlink(m, stp_map_order_node(m->order.next));
}

static void stp_map_delete_matching(struct stp_map *m,
				    const struct stp_key *keys,
				    const bool *wild)
{
	struct stp_map_list *l = m->order.next, *next;

	for (; l != &m->order; l = next) {
		next = l->next;
		if (_stp_map_node_match(m, stp_map_order_node(l), keys, wild))
			stp_map_unlink(m, stp_map_order_node(l));
	}
}

/* ---- init and exit -------------------------------------------------- */

static unsigned int stp_map_nbuckets(unsigned int entries)
{
	unsigned int b = 1;

	while (b < entries && b < (1u << 30))
		b <<= 1;
#if MAPHASHBIAS > 0
	while (b < (1u << 30) && b < (entries << MAPHASHBIAS))
		b <<= 1;
#elif MAPHASHBIAS < 0
	b >>= -(MAPHASHBIAS);
#endif
	return b ? b : 1;
}

static int stp_map_init(struct stp_map *m, const struct stp_map_desc *d,
			enum stp_map_role role, atomic64_t *seqp)
{
	unsigned int i, nbuckets;
	struct stp_map_node *n;

	m->d = d;
	m->role = role;
	m->maxentries = d->maxentries ? d->maxentries : MAXMAPENTRIES;
	/* a counter's sums hold whatever its CPUs' parts hold: its size
	 * limits each CPU's part, where an add fails
	 */
	if (d->counter && role == STP_MAP_AGG)
		m->maxentries *= nr_cpu_ids;
	stp_map_list_init(&m->order);
	stp_map_list_init(&m->age);
	atomic64_set(&m->seq, 0);
	m->seqp = seqp ? seqp : &m->seq;
	if (stp_map_layout(m))
		return -EINVAL;
	nbuckets = stp_map_nbuckets(m->maxentries);
	m->mask = nbuckets - 1;
	/* kvmalloc WARNs beyond INT_MAX, and the VM runs panic_on_warn. */
	if ((u64)m->maxentries * m->node_size > INT_MAX)
		goto nomem;
	m->pool = kvcalloc(m->maxentries, m->node_size, STP_MAP_GFP);
	m->table = kvcalloc(nbuckets, sizeof(*m->table), STP_MAP_GFP);
	if (!m->pool || !m->table)
		goto nomem;
	/* Hand out the pool from its start, for locality. */
	for (i = m->maxentries; i-- > 0;) {
		n = (struct stp_map_node *)(m->pool + (size_t)i * m->node_size);
		n->hnext = m->free;
		m->free = n;
	}
	return 0;
nomem:
	/* staprun can only say ENOMEM: the log says which limit */
	pr_err("array %s: no memory for %u entries of %zu bytes (%s)\n",
	       d->name ? d->name : "?", m->maxentries, m->node_size,
	       d->maxentries ? "its declared size" :
	       "MAXMAPENTRIES, MAXSTRINGLEN");
	return -ENOMEM;
}

static void stp_map_fini(struct stp_map *m)
{
	kvfree(m->pool);
	kvfree(m->table);
}

static int stp_map_pcpu_new(struct stp_map *m)
{
	struct stp_map *pm;
	int cpu;

	if (!m->d->counter && (!m->d->stat || !stp_stat_desc_ok(m->d->stat)))
		return -EINVAL;
	m->pcpu = kcalloc(nr_cpu_ids, sizeof(*m->pcpu), GFP_KERNEL);
	m->cursor = kcalloc(nr_cpu_ids, sizeof(*m->cursor), GFP_KERNEL);
	if (!m->pcpu || !m->cursor)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		pm = kzalloc(sizeof(*pm), GFP_KERNEL);
		m->pcpu[cpu] = pm;
		if (!pm || stp_map_init(pm, m->d, STP_MAP_PCPU, &m->seq))
			return -ENOMEM;
	}
	return 0;
}

struct stp_map *_stp_map_new(const struct stp_map_desc *d)
{
	bool stat = d->val_kind == STP_KIND_STAT ||
		    (d->counter && d->val_kind == STP_KIND_LONG);
	struct stp_map *m = kzalloc(sizeof(*m), GFP_KERNEL);

	if (!m)
		return NULL;
	if (stp_map_init(m, d, stat ? STP_MAP_AGG : STP_MAP_PLAIN, NULL))
		goto fail;
	if (stat && stp_map_pcpu_new(m))
		goto fail;
	m->count_s = d->counter && d->val_kind == STP_KIND_LONG &&
		     d->nkeys == 1 && d->key_kind[0] == STP_KIND_STRING;
	if (m->maxentries != MAXMAPENTRIES)
		snprintf(m->overflow_msg, sizeof(m->overflow_msg),
			 "Array overflow, check size limit (%u)",
			 m->maxentries);
	else
		snprintf(m->overflow_msg, sizeof(m->overflow_msg),
			 "Array overflow, check MAXMAPENTRIES");
	snprintf(m->agg_msg, sizeof(m->agg_msg), "aggregation overflow in %s",
		 d->name ? d->name : "array");
	return m;
fail:
	_stp_map_del(m);
	return NULL;
}

void _stp_map_del(struct stp_map *m)
{
	int cpu;

	if (!m)
		return;
	if (m->pcpu) {
		for_each_possible_cpu(cpu) {
			if (!m->pcpu[cpu])
				continue;
			stp_map_fini(m->pcpu[cpu]);
			kfree(m->pcpu[cpu]);
		}
		kfree(m->pcpu);
	}
	kfree(m->cursor);
	stp_map_fini(m);
	kfree(m);
}

/* ---- lookups and stores --------------------------------------------- */

static void stp_map_counter_sync(struct stp_map *m);

/* A counter array's sums, brought up to date before a read. */
static void stp_map_sync(struct stp_map *m)
{
	if (m->d->counter && READ_ONCE(m->stale)) {
		WRITE_ONCE(m->stale, false);
		stp_map_counter_sync(m);
	}
}

struct stp_map_node *_stp_map_find(struct stp_map *m,
				   const struct stp_key *keys)
{
	stp_map_sync(m);
	return stp_map_lookup(m, keys, stp_map_hash(m, keys));
}

int64_t _stp_map_get_long(struct stp_map *m, const struct stp_key *keys)
{
	struct stp_map_node *n = _stp_map_find(m, keys);

	return n ? _stp_node_long(m, n) : 0;
}

const char *_stp_map_get_str(struct stp_map *m, const struct stp_key *keys)
{
	struct stp_map_node *n = _stp_map_find(m, keys);

	return n ? _stp_node_str(m, n) : "";
}

/* For a statistics array the per-CPU maps are the truth, so the answer
 * does not depend on when the aggregate was last rebuilt.
 */
bool _stp_map_exists(struct stp_map *m, const struct stp_key *keys)
{
	u32 hash = stp_map_hash(m, keys);
	int cpu;

	if (m->role != STP_MAP_AGG)
		return stp_map_lookup(m, keys, hash) != NULL;
	for_each_possible_cpu(cpu) {
		if (stp_map_lookup(m->pcpu[cpu], keys, hash))
			return true;
	}
	return false;
}

/* The element to store a value of this kind into, created if need be. */
static struct stp_map_node *stp_map_store(struct stp_map *m,
					  const struct stp_key *keys,
					  enum stp_kind kind, int *err)
{
	if (m->role != STP_MAP_PLAIN || m->d->val_kind != kind) {
		*err = -EINVAL;
		return NULL;
	}
	return stp_map_get(m, keys, err);
}

int _stp_map_set_long(struct stp_map *m, const struct stp_key *keys,
		      int64_t v)
{
	int err = 0;
	struct stp_map_node *n = stp_map_store(m, keys, STP_KIND_LONG, &err);

	if (n)
		*(int64_t *)stp_map_node_val(m, n) = v;
	return err;
}

int _stp_map_set_str(struct stp_map *m, const struct stp_key *keys,
		     const char *v)
{
	int err = 0;
	struct stp_map_node *n = stp_map_store(m, keys, STP_KIND_STRING, &err);

	if (n)
		strscpy(stp_map_node_val(m, n), v ? v : "", MAXSTRINGLEN);
	return err;
}

struct stp_map_node *_stp_map_lookup_add(struct stp_map *m,
					 const struct stp_key *keys, int *err)
{
	int dummy;

	if (!err)
		err = &dummy;
	*err = 0;
	return stp_map_store(m, keys, m->d->val_kind, err);
}

int _stp_map_add_long(struct stp_map *m, const struct stp_key *keys,
		      int64_t v, int64_t *sum)
{
	int err = 0;
	struct stp_map_node *n = stp_map_store(m, keys, STP_KIND_LONG, &err);
	int64_t *p;

	if (!n)
		return err;
	p = stp_map_node_val(m, n);
	*p = stp_stat_wadd(*p, v);
	if (sum)
		*sum = *p;
	return 0;
}

/* v is measured before it moves: it may be the element's own text. */
int _stp_map_append_str(struct stp_map *m, const struct stp_key *keys,
			const char *v, const char **val)
{
	int err = 0;
	struct stp_map_node *n = stp_map_store(m, keys, STP_KIND_STRING, &err);
	char *p;
	size_t len, add;

	if (!n)
		return err;
	p = stp_map_node_val(m, n);
	len = strnlen(p, MAXSTRINGLEN - 1);
	add = strnlen(v ? v : "", MAXSTRINGLEN - 1 - len);
	memmove(p + len, v ? v : "", add);
	p[len + add] = '\0';
	if (val)
		*val = p;
	return 0;
}

int64_t *_stp_map_long_ref(struct stp_map *m, const struct stp_key *keys)
{
	int err = 0;
	struct stp_map_node *n = stp_map_store(m, keys, STP_KIND_LONG, &err);

	return n ? stp_map_node_val(m, n) : NULL;
}

int _stp_map_add_stat(struct stp_map *m, const struct stp_key *keys,
		      int64_t v)
{
	struct stp_map_node *n;
	struct stp_map *pm;
	int err = 0;

	if (m->role != STP_MAP_AGG)
		return -EINVAL;
	pm = m->pcpu[get_cpu()];
	n = stp_map_get(pm, keys, &err);
	if (n)
		stp_stat_part_add(m->d->stat, stp_map_node_val(pm, n), v);
	put_cpu();
	return err;
}

static int stp_map_count_part(struct stp_map *m, const struct stp_key *keys,
			      int64_t v)
{
	struct stp_map_node *n;
	struct stp_map *pm;
	int64_t *p;
	int err = 0;

	if (m->role != STP_MAP_AGG || !m->d->counter)
		return -EINVAL;
	pm = m->pcpu[get_cpu()];
	n = stp_map_get(pm, keys, &err);
	if (n) {
		p = stp_map_node_val(pm, n);
		*p = stp_stat_wadd(*p, v);
	}
	put_cpu();
	return err;
}

/*
 * The most common update of all, c[execname()]++: a counter array with
 * one string key, _stp_map_add_count_s.  The key is hashed and looked
 * up once, with the word loops inline and no call on a hit; a miss (a
 * new element) is out of line.  The hash is stp_map_hash's for one
 * string key.
 */
static __always_inline u32 stp_map_hash_str1(const char *s)
{
	u64 h = stp_map_hash_str(0xcbf29ce484222325ULL, s);

	return (u32)(h ^ (h >> 32));
}

/* The new element of a miss, out of line. */
static noinline int stp_map_count_new(struct stp_map *pm, const char *s,
				      u32 hash, int64_t v)
{
	struct stp_map_node *n;
	int err = 0;

	n = stp_map_create(pm, STP_KEYS({ .s = s }), hash, &err);
	if (n)
		*(int64_t *)stp_map_node_val(pm, n) = v;
	return err;
}

/* Any other array, as _stp_map_add_count takes it (out of line: its
 * key vector is on the stack).
 */
static noinline int stp_map_add_count_other(struct stp_map *m,
					    const char *s, int64_t v)
{
	return _stp_map_add_count(m, STP_KEYS({ .s = s }), v);
}

int _stp_map_add_count_s(struct stp_map *m, const char *s, int64_t v)
{
	struct stp_map_node *n;
	struct stp_map *pm;
	int64_t *p;
	int err = 0;
	u32 hash;

	if (unlikely(!m->count_s))
		return stp_map_add_count_other(m, s, v);
	if (!s)
		s = "";
	hash = stp_map_hash_str1(s);
	/* the caller holds the array's lock: preemption is off */
	pm = m->pcpu[smp_processor_id()];
	for (n = pm->table[hash & pm->mask]; n; n = n->hnext)
		if (n->hash == hash && stp_map_str_eq((const char *)n->data, s))
			break;
	if (likely(n)) {
		p = stp_map_node_val(pm, n);
		*p = stp_stat_wadd(*p, v);
	} else {
		err = stp_map_count_new(pm, s, hash, v);
	}
	if (!READ_ONCE(m->stale))
		WRITE_ONCE(m->stale, true);
	return err;
}

int _stp_map_add_count(struct stp_map *m, const struct stp_key *keys,
		       int64_t v)
{
	int err = stp_map_count_part(m, keys, v);

	if (!READ_ONCE(m->stale))
		WRITE_ONCE(m->stale, true);
	return err;
}

void _stp_map_delete(struct stp_map *m, const struct stp_key *keys)
{
	u32 hash = stp_map_hash(m, keys);
	struct stp_map_node *n;
	int cpu;

	n = stp_map_lookup(m, keys, hash);
	if (n)
		stp_map_unlink(m, n);
	if (m->role != STP_MAP_AGG)
		return;
	for_each_possible_cpu(cpu) {
		n = stp_map_lookup(m->pcpu[cpu], keys, hash);
		if (n)
			stp_map_unlink(m->pcpu[cpu], n);
	}
}

void _stp_map_delete_slice(struct stp_map *m, const struct stp_key *keys,
			   const bool *wild)
{
	int cpu;

	stp_map_delete_matching(m, keys, wild);
	if (m->role != STP_MAP_AGG)
		return;
	for_each_possible_cpu(cpu)
		stp_map_delete_matching(m->pcpu[cpu], keys, wild);
}

void _stp_map_clear(struct stp_map *m)
{
	int cpu;

	stp_map_reset(m);
	if (m->role != STP_MAP_AGG)
		return;
	for_each_possible_cpu(cpu)
		stp_map_reset(m->pcpu[cpu]);
}

unsigned int _stp_map_size(struct stp_map *m)
{
	stp_map_sync(m);
	return m->count;
}

/* ---- iteration ------------------------------------------------------ */

struct stp_map_node *_stp_map_first(struct stp_map *m)
{
	stp_map_sync(m);
	if (m->order.next == &m->order)
		return NULL;
	return stp_map_order_node(m->order.next);
}

struct stp_map_node *_stp_map_next(struct stp_map *m,
				   struct stp_map_node *n)
{
	if (n->order.next == &m->order)
		return NULL;
	return stp_map_order_node(n->order.next);
}

bool _stp_map_node_match(struct stp_map *m, struct stp_map_node *n,
			 const struct stp_key *keys, const bool *wild)
{
	int i;

	for (i = 0; i < m->d->nkeys; i++) {
		if (wild && wild[i])
			continue;
		if (!stp_map_key_eq(m, n, i, &keys[i]))
			return false;
	}
	return true;
}

/* ---- sorting -------------------------------------------------------- */

/* column -1 (internal) orders by creation stamp. */
struct stp_map_sort {
	struct stp_map *m;
	int column, dir;
	enum stp_stat_op agg;
};

static int stp_map_cmp_s64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static int stp_map_cmp_str(const char *a, const char *b)
{
	int c = strcmp(a, b);

	return (c > 0) - (c < 0);
}

static int stp_map_cmp_value(const struct stp_map_sort *s,
			     struct stp_map_node *a, struct stp_map_node *b)
{
	struct stp_map *m = s->m;

	if (m->role == STP_MAP_AGG && !m->d->counter)
		return stp_map_cmp_s64(
			stp_stat_agg_value(stp_map_node_val(m, a), s->agg),
			stp_stat_agg_value(stp_map_node_val(m, b), s->agg));
	if (m->d->val_kind == STP_KIND_STRING)
		return stp_map_cmp_str(stp_map_node_val(m, a),
				       stp_map_node_val(m, b));
	return stp_map_cmp_s64(*(int64_t *)stp_map_node_val(m, a),
			       *(int64_t *)stp_map_node_val(m, b));
}

static int stp_map_cmp(const struct stp_map_sort *s, struct stp_map_list *la,
		       struct stp_map_list *lb)
{
	struct stp_map_node *a = stp_map_order_node(la);
	struct stp_map_node *b = stp_map_order_node(lb);
	struct stp_map *m = s->m;
	int c, k = s->column - 1;

	if (s->column < 0)
		c = stp_map_cmp_s64(a->seq, b->seq);
	else if (s->column == 0)
		c = stp_map_cmp_value(s, a, b);
	else if (m->d->key_kind[k] == STP_KIND_STRING)
		c = stp_map_cmp_str(_stp_node_key_str(m, a, k),
				    _stp_node_key_str(m, b, k));
	else
		c = stp_map_cmp_s64(_stp_node_key_long(m, a, k),
				    _stp_node_key_long(m, b, k));
	return c * s->dir;
}

/*
 * One pass of a bottom-up merge sort over a NULL-terminated chain: merge
 * neighbouring runs of length run.  On a tie the left run goes first,
 * which is what makes the sort stable.  Returns the number of merges.
 */
static unsigned long stp_map_merge_pass(const struct stp_map_sort *s,
					struct stp_map_list **chain,
					unsigned long run)
{
	struct stp_map_list *p = *chain, *q, *e, *tail = NULL;
	unsigned long np, nq, merges = 0;

	while (p) {
		merges++;
		q = p;
		for (np = 0; np < run && q; np++)
			q = q->next;
		nq = run;
		while (np || (nq && q)) {
			if (!np || (nq && q && stp_map_cmp(s, q, p) < 0)) {
				e = q;
				q = q->next;
				nq--;
			} else {
				e = p;
				p = p->next;
				np--;
			}
			if (tail)
				tail->next = e;
			else
				*chain = e;
			tail = e;
		}
		p = q;
	}
	tail->next = NULL;
	return merges;
}

/* O(n log n), no recursion and no memory beyond the list itself. */
static void stp_map_sort_list(const struct stp_map_sort *s)
{
	struct stp_map_list *head = &s->m->order, *chain, *prev, *e;
	unsigned long run;

	if (head->next == head)
		return;
	chain = head->next;
	head->prev->next = NULL;
	for (run = 1; stp_map_merge_pass(s, &chain, run) > 1; run *= 2)
		;
	prev = head;
	for (e = chain; e; e = e->next) {
		prev->next = e;
		e->prev = prev;
		prev = e;
	}
	prev->next = head;
	head->prev = prev;
}

void _stp_map_sort(struct stp_map *m, int column, int dir,
		   enum stp_stat_op agg)
{
	struct stp_map_sort s = {
		.m = m, .column = column, .dir = dir < 0 ? -1 : 1, .agg = agg,
	};

	if (column < 0 || column > m->d->nkeys)
		return;
	stp_map_sync(m);
	stp_map_sort_list(&s);
}

/* ---- node accessors ------------------------------------------------- */

/* Key i exists and is of this kind (the constant bound keeps compilers
 * from seeing an out-of-bounds index when i is a constant).
 */
static bool stp_map_key_is(struct stp_map *m, int i, enum stp_kind kind)
{
	return i >= 0 && i < STP_MAX_KEYS && i < m->d->nkeys &&
	       m->d->key_kind[i] == kind;
}

int64_t _stp_node_key_long(struct stp_map *m, struct stp_map_node *n, int i)
{
	if (!stp_map_key_is(m, i, STP_KIND_LONG))
		return 0;
	return *(int64_t *)stp_map_node_at(n, m->key_off[i]);
}

const char *_stp_node_key_str(struct stp_map *m, struct stp_map_node *n,
			      int i)
{
	if (!stp_map_key_is(m, i, STP_KIND_STRING))
		return "";
	return stp_map_node_at(n, m->key_off[i]);
}

int64_t _stp_node_long(struct stp_map *m, struct stp_map_node *n)
{
	int64_t *p = _stp_node_long_ptr(m, n);

	return p ? *p : 0;
}

int64_t *_stp_node_long_ptr(struct stp_map *m, struct stp_map_node *n)
{
	if (m->d->val_kind != STP_KIND_LONG ||
	    (m->role != STP_MAP_PLAIN && !m->d->counter))
		return NULL;
	return stp_map_node_val(m, n);
}

const char *_stp_node_str(struct stp_map *m, struct stp_map_node *n)
{
	char *p = _stp_node_str_buf(m, n);

	return p ? p : "";
}

char *_stp_node_str_buf(struct stp_map *m, struct stp_map_node *n)
{
	if (m->role != STP_MAP_PLAIN || m->d->val_kind != STP_KIND_STRING)
		return NULL;
	return stp_map_node_val(m, n);
}

const struct stp_stat_agg *_stp_node_stat(struct stp_map *m,
					  struct stp_map_node *n)
{
	if (!n || m->role != STP_MAP_AGG)
		return &stp_map_empty_stat;
	return stp_map_node_val(m, n);
}

/* ---- aggregation of statistics arrays ------------------------------- */

static struct stp_map_node *stp_map_age_prev(struct stp_map *pm,
					     struct stp_map_node *n)
{
	return n->age.prev == &pm->age ? NULL : stp_map_age_node(n->age.prev);
}

/* The per-CPU node created last among those not yet merged.  Each CPU's
 * age list is in stamp order, so this walks all of them backwards as
 * one list, newest first.
 */
static struct stp_map_node *stp_map_agg_pick(struct stp_map *m)
{
	struct stp_map_node *best = NULL, *n;
	int cpu, best_cpu = 0;

	for_each_possible_cpu(cpu) {
		n = m->cursor[cpu];
		if (n && (!best || n->seq > best->seq)) {
			best = n;
			best_cpu = cpu;
		}
	}
	if (best)
		m->cursor[best_cpu] = stp_map_age_prev(m->pcpu[best_cpu], best);
	return best;
}

/* The aggregate node for a per-CPU node: an element takes the stamp of
 * its first creation on any CPU.  Keys are merged newest first, so when
 * they do not all fit it is the oldest that are left out.
 */
static struct stp_map_node *stp_map_agg_node(struct stp_map *m,
					     struct stp_map_node *pn,
					     int *err)
{
	struct stp_key keys[STP_MAX_KEYS];
	struct stp_map_node *an;

	stp_map_get_keys(m, pn, keys);
	an = stp_map_lookup(m, keys, pn->hash);
	if (an) {
		if (pn->seq < an->seq)
			an->seq = pn->seq;
		return an;
	}
	if (!m->free) {
		if (!m->d->wrap)
			*err = -E2BIG;
		return NULL;
	}
	return stp_map_node_new(m, keys, pn->hash, pn->seq);
}

static void stp_map_agg_fold_vars(struct stp_map *m, struct stp_map *pm)
{
	struct stp_map_list *l;
	struct stp_map_node *pn;

	for (l = pm->order.next; l != &pm->order; l = l->next) {
		pn = stp_map_order_node(l);
		if (pn->agg)
			stp_stat_agg_fold_var(stp_map_node_val(m, pn->agg),
					      stp_map_node_val(pm, pn));
	}
}

/* The second merge pass, which needs each element's overall mean. */
static void stp_map_agg_variance(struct stp_map *m)
{
	const struct stp_stat_desc *sd = m->d->stat;
	struct stp_stat_agg *a;
	struct stp_map_list *l;
	int cpu;

	for (l = m->order.next; l != &m->order; l = l->next) {
		a = stp_map_node_val(m, stp_map_order_node(l));
		stp_stat_agg_mean(sd, a);
	}
	if (STP_STAT_WANTS(sd, STP_STAT_VARIANCE)) {
		for_each_possible_cpu(cpu)
			stp_map_agg_fold_vars(m, m->pcpu[cpu]);
	}
	for (l = m->order.next; l != &m->order; l = l->next) {
		a = stp_map_node_val(m, stp_map_order_node(l));
		stp_stat_agg_finish(sd, a);
	}
}

int _stp_map_agg(struct stp_map *m)
{
	struct stp_map_sort by_age = { .m = m, .column = -1, .dir = 1 };
	struct stp_map_node *pn, *an;
	struct stp_map *pm;
	int cpu, err = 0;

	if (m->role != STP_MAP_AGG)
		return 0;
	stp_map_reset(m);
	for_each_possible_cpu(cpu) {
		pm = m->pcpu[cpu];
		m->cursor[cpu] = pm->age.prev == &pm->age ? NULL :
				 stp_map_age_node(pm->age.prev);
	}
	while ((pn = stp_map_agg_pick(m)) != NULL) {
		an = stp_map_agg_node(m, pn, &err);
		pn->agg = an;
		/* Every per-CPU part has the same size and key layout. */
		if (an && m->d->counter)
			*(int64_t *)stp_map_node_val(m, an) = stp_stat_wadd(
				*(int64_t *)stp_map_node_val(m, an),
				*(int64_t *)stp_map_node_val(m, pn));
		else if (an)
			stp_stat_agg_fold(m->d->stat, stp_map_node_val(m, an),
					  stp_map_node_val(m, pn));
	}
	if (!m->d->counter)
		stp_map_agg_variance(m);
	stp_map_sort_list(&by_age);
	return err;
}

/* A counter's sums, recomputed in place: no node of the sum map is freed
 * (a delete takes an element out of the sums and the CPUs' maps alike),
 * so a foreach over the array that adds to it and then reads it goes on
 * over valid nodes.  New elements go to the end, in the order they were
 * first added on any CPU.  The sum map has room for every CPU's
 * elements (stp_map_init), so none is left out.
 */
static void stp_map_counter_sync(struct stp_map *m)
{
	struct stp_map_sort by_age = { .m = m, .column = -1, .dir = 1 };
	struct stp_key keys[STP_MAX_KEYS];
	struct stp_map_node *an, *pn;
	struct stp_map_list *l;
	struct stp_map *pm;
	bool added = false;
	int64_t *v;
	int cpu;

	for (l = m->order.next; l != &m->order; l = l->next)
		*(int64_t *)stp_map_node_val(m, stp_map_order_node(l)) = 0;
	for_each_possible_cpu(cpu) {
		pm = m->pcpu[cpu];
		for (l = pm->age.next; l != &pm->age; l = l->next) {
			pn = stp_map_age_node(l);
			stp_map_get_keys(m, pn, keys);
			an = stp_map_lookup(m, keys, pn->hash);
			if (!an && m->free) {
				an = stp_map_node_new(m, keys, pn->hash,
						      pn->seq);
				added = true;
			} else if (!an) {
				m->stale = true;
				continue;
			}
			if (pn->seq < an->seq)
				an->seq = pn->seq;
			v = stp_map_node_val(m, an);
			*v = stp_stat_wadd(*v, *(int64_t *)
					   stp_map_node_val(pm, pn));
		}
	}
	if (added)
		stp_map_sort_list(&by_age);
}

const char *_stp_map_overflow_msg(struct stp_map *m)
{
	return m->overflow_msg;
}

const char *_stp_map_agg_overflow_msg(struct stp_map *m)
{
	return m->agg_msg;
}
