/* util.c - arenas, string interning, hash tables, vectors and small
 * helpers.
 * Everything here is host-side and single-threaded.
 */
#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ARENA_BLOCK (64 * 1024)

struct arena_block {
	struct arena_block *next;
	size_t used;
	size_t size;
	max_align_t data[];
};

struct arena {
	struct arena_block *head;
};

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fputs("stap: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("stap: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

struct arena *arena_new(void)
{
	struct arena *a = xmalloc(sizeof(*a));

	a->head = NULL;
	return a;
}

void arena_free(struct arena *a)
{
	struct arena_block *b, *next;

	if (!a)
		return;
	for (b = a->head; b; b = next) {
		next = b->next;
		free(b);
	}
	free(a);
}

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_block *b = a->head;
	size_t align = sizeof(max_align_t);
	void *p;

	size = (size + align - 1) & ~(align - 1);
	if (!b || b->used + size > b->size) {
		size_t bs = size > ARENA_BLOCK ? size : ARENA_BLOCK;

		b = xmalloc(sizeof(*b) + bs);
		b->size = bs;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	p = (char *)b->data + b->used;
	b->used += size;
	memset(p, 0, size);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_vprintf(struct arena *a, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;
	char *p;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	p = arena_alloc(a, (size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = arena_vprintf(a, fmt, ap);
	va_end(ap);
	return p;
}

uint32_t hash_bytes(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

/* Hash tables.  The hash is kept in the entry: growing never hashes a
 * key again, and a probe compares keys only when the hashes agree.
 */
#define HTAB_MIN 16

struct htab_ent {
	const char *key;		/* a string key's bytes */
	uint64_t k;			/* its length, or the integer key */
	void *val;
	uint32_t hash;
	bool used;
	bool str;
};

/* Half of MurmurHash3's 64-bit finalizer: pointers and DIE offsets
 * differ mostly in their middle bits, which this brings down to the
 * low ones that pick the slot.
 */
static uint32_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (uint32_t)x;
}

/* The entry of the key, or the empty one where it would go.  Inline:
 * interning calls it for every identifier of every file read.
 */
static inline __attribute__((always_inline)) struct htab_ent *
htab_find(const struct htab *h, bool str, const char *key, uint64_t k,
	  uint32_t hash)
{
	size_t mask = h->cap - 1, i = hash & mask;
	struct htab_ent *e;

	for (;; i = (i + 1) & mask) {
		e = &h->slots[i];
		if (!e->used)
			return e;
		if (e->hash != hash || e->k != k || e->str != str)
			continue;
		if (!str || memcmp(e->key, key, (size_t)k) == 0)
			return e;
	}
}

static void htab_grow(struct htab *h, size_t cap)
{
	struct htab_ent *old = h->slots;
	size_t i, oldcap = h->cap;

	/* calloc: fresh pages of a big table need no clearing */
	h->slots = h->arena ? arena_alloc(h->arena, cap * sizeof(*old)) :
		   calloc(cap, sizeof(*old));
	if (!h->slots) {
		fputs("stap: out of memory\n", stderr);
		exit(1);
	}
	h->cap = cap;
	for (i = 0; i < oldcap; i++) {
		struct htab_ent *e;

		if (!old[i].used)
			continue;
		e = htab_find(h, old[i].str, old[i].key, old[i].k,
			      old[i].hash);
		*e = old[i];
	}
	/* an arena keeps the old slots: at most as much again */
	if (!h->arena)
		free(old);
}

void htab_reserve(struct htab *h, size_t n)
{
	size_t cap = h->cap ? h->cap : HTAB_MIN;

	while (cap / 2 < n)
		cap *= 2;
	if (cap != h->cap)
		htab_grow(h, cap);
}

/* The entry of the key, added (with a NULL value) when absent. */
static inline __attribute__((always_inline)) struct htab_ent *
htab_add(struct htab *h, bool str, const char *key, uint64_t k, uint32_t hash,
	 bool *fresh)
{
	struct htab_ent *e;

	if ((h->n + 1) * 2 > h->cap)
		htab_grow(h, h->cap ? h->cap * 2 : HTAB_MIN);
	e = htab_find(h, str, key, k, hash);
	if (fresh)
		*fresh = !e->used;
	if (!e->used) {
		e->key = key;
		e->k = k;
		e->hash = hash;
		e->used = true;
		e->str = str;
		h->n++;
	}
	return e;
}

void *htab_get(const struct htab *h, const char *key, size_t n)
{
	if (!h->n)
		return NULL;
	return htab_find(h, true, key, n, hash_bytes(key, n))->val;
}

void *htab_iget(const struct htab *h, uint64_t key)
{
	if (!h->n)
		return NULL;
	return htab_find(h, false, NULL, key, hash_u64(key))->val;
}

void **htab_slot(struct htab *h, const char *key, size_t n, bool *fresh)
{
	return &htab_add(h, true, key, n, hash_bytes(key, n), fresh)->val;
}

void **htab_islot(struct htab *h, uint64_t key, bool *fresh)
{
	return &htab_add(h, false, NULL, key, hash_u64(key), fresh)->val;
}

void htab_free(struct htab *h)
{
	if (!h->arena)
		free(h->slots);
	h->slots = NULL;
	h->cap = h->n = 0;
}

/* Interning: the strings in a private arena, found through a table
 * whose keys and values are those copies.
 */
static struct {
	struct arena *arena;
	struct htab strs;
} itab;

const char *intern_n(const char *s, size_t n)
{
	struct htab_ent *e;
	bool fresh;

	if (!itab.arena) {
		itab.arena = arena_new();
		htab_reserve(&itab.strs, 2048);
	}
	/* one lookup: a new entry's key becomes the copy it returns */
	e = htab_add(&itab.strs, true, s, n, hash_bytes(s, n), &fresh);
	if (fresh)
		e->key = e->val = arena_strndup(itab.arena, s, n);
	return e->val;
}

const char *intern(const char *s)
{
	return intern_n(s, strlen(s));
}

void intern_reset(void)
{
	arena_free(itab.arena);
	htab_free(&itab.strs);
	itab.arena = NULL;
}

static void vec_reserve(struct arena *a, struct vec *v)
{
	void **ni;
	int ncap;

	if (v->n < v->cap)
		return;
	ncap = v->cap ? v->cap * 2 : 4;
	ni = arena_alloc(a, sizeof(void *) * (size_t)ncap);
	if (v->n)
		memcpy(ni, v->items, sizeof(void *) * (size_t)v->n);
	v->items = ni;
	v->cap = ncap;
}

void vec_push(struct arena *a, struct vec *v, void *item)
{
	vec_reserve(a, v);
	v->items[v->n++] = item;
}

void vec_insert(struct arena *a, struct vec *v, int at, void *item)
{
	vec_reserve(a, v);
	memmove(&v->items[at + 1], &v->items[at],
		sizeof(void *) * (size_t)(v->n - at));
	v->items[at] = item;
	v->n++;
}

void sb_init(struct strbuf *sb)
{
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb_init(sb);
}

static void sb_reserve(struct strbuf *sb, size_t more)
{
	size_t need = sb->len + more + 1;

	if (need <= sb->cap)
		return;
	if (sb->cap * 2 > need)
		need = sb->cap * 2;
	sb->buf = xrealloc(sb->buf, need);
	sb->cap = need;
}

void sb_putn(struct strbuf *sb, const char *s, size_t n)
{
	sb_reserve(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_puts(struct strbuf *sb, const char *s)
{
	sb_putn(sb, s, strlen(s));
}

void sb_putc(struct strbuf *sb, char c)
{
	sb_putn(sb, &c, 1);
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	sb_reserve(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void sb_indent(struct strbuf *sb, int depth)
{
	while (depth-- > 0)
		sb_putc(sb, '\t');
}

void sb_c_string(struct strbuf *sb, const char *s)
{
	sb_putc(sb, '"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			sb_printf(sb, "\\%c", ch);
		else if (ch == '\n')
			sb_puts(sb, "\\n");
		else if (ch < ' ' || ch > '~')
			sb_printf(sb, "\\%03o", ch);
		else
			sb_putc(sb, (char)ch);
	}
	sb_putc(sb, '"');
}

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct strbuf sb;
	char chunk[65536];
	size_t n;

	if (!f)
		return NULL;
	sb_init(&sb);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		sb_putn(&sb, chunk, n);
	if (ferror(f)) {
		int e = errno;

		fclose(f);
		sb_free(&sb);
		errno = e;
		return NULL;
	}
	fclose(f);
	if (!sb.buf)
		sb_putn(&sb, "", 0);
	if (len)
		*len = sb.len;
	return sb.buf;
}

bool glob_match(const char *pattern, const char *s)
{
	return fnmatch(pattern, s, 0) == 0;
}

bool has_wildcard(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Creates path and every missing parent (mode 0755); true when the
 * directory exists afterwards.
 */
bool mkdir_p(const char *path)
{
	char buf[4096];
	char *p;

	if (strlen(path) >= sizeof(buf))
		return false;
	strcpy(buf, path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return false;
		*p = '/';
	}
	return !mkdir(buf, 0755) || errno == EEXIST;
}

bool file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

void err_set(char **err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	if (vasprintf(err, fmt, ap) < 0)
		*err = NULL;
	va_end(ap);
}

int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* str in single quotes for a POSIX shell */
const char *sh_quote(struct arena *a, const char *str)
{
	struct strbuf sb;
	const char *q;

	sb_init(&sb);
	sb_putc(&sb, '\'');
	for (; *str; str++) {
		if (*str == '\'')
			sb_puts(&sb, "'\\''");
		else
			sb_putc(&sb, *str);
	}
	sb_putc(&sb, '\'');
	q = arena_strdup(a, sb.buf);
	sb_free(&sb);
	return q;
}
