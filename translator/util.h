/* util.h - arenas, interned strings, hash tables and growable vectors
 * for the translator.
 * Translator memory lives in arenas and is never freed node by node;
 * identifiers are interned so they compare by pointer.
 */
#ifndef TAPIR_UTIL_H
#define TAPIR_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;

struct arena *arena_new(void);
void arena_free(struct arena *a);
void *arena_alloc(struct arena *a, size_t size);	/* zeroed */
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *arena_vprintf(struct arena *a, const char *fmt, va_list ap);

/* Interned strings: equal text gives the same pointer. */
const char *intern(const char *s);
const char *intern_n(const char *s, size_t n);
void intern_reset(void);

/* A vector of pointers whose storage comes from an arena. */
struct vec {
	void **items;
	int n;
	int cap;
};

void vec_push(struct arena *a, struct vec *v, void *item);
void vec_insert(struct arena *a, struct vec *v, int at, void *item);
static inline void *vec_get(const struct vec *v, int i)
{
	return v->items[i];
}
static inline void *vec_last(const struct vec *v)
{
	return v->n ? v->items[v->n - 1] : NULL;
}

/* A growable byte buffer (malloc-backed; used for output and C text). */
struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
};

void sb_init(struct strbuf *sb);
void sb_free(struct strbuf *sb);
void sb_putc(struct strbuf *sb, char c);
void sb_puts(struct strbuf *sb, const char *s);
void sb_putn(struct strbuf *sb, const char *s, size_t n);
void sb_printf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_indent(struct strbuf *sb, int depth);
/* s as a C string literal: quotes, backslashes and bytes outside
 * printable ASCII escaped.
 */
void sb_c_string(struct strbuf *sb, const char *s);

/* mkdir -p: true when the directory exists afterwards. */
bool mkdir_p(const char *path);
/* qsort/bsearch comparison of two (const char *) elements. */
int cmp_strp(const void *a, const void *b);
/* FNV-1a of n bytes: struct htab's hash of string keys. */
uint32_t hash_bytes(const char *s, size_t n);
/* A hash table from string or integer keys to pointers: open
 * addressing, at most half full, doubling as it grows.  A zeroed
 * struct htab is an empty table whose slots are malloc'd (htab_free
 * frees them); with .arena set before the first insertion, they come
 * from that arena instead and htab_free need not be called.  String
 * keys are n bytes, not copied: they must outlive the table.  Pointer
 * keys go in as integers, (uintptr_t)p.  A table has no order: nothing
 * may iterate over it.
 */
struct htab_ent;

struct htab {
	struct arena *arena;
	struct htab_ent *slots;
	size_t cap;			/* a power of two, or 0 */
	size_t n;			/* keys held */
};

/* The value of key, NULL when key is absent. */
void *htab_get(const struct htab *h, const char *key, size_t n);
void *htab_iget(const struct htab *h, uint64_t key);
/* Where the value of key lives, the key added with a NULL value when
 * absent (*fresh then says so, when fresh is not NULL); the pointer is
 * good until the next insertion, which may move every slot.
 */
void **htab_slot(struct htab *h, const char *key, size_t n, bool *fresh);
void **htab_islot(struct htab *h, uint64_t key, bool *fresh);
static inline void htab_put(struct htab *h, const char *key, size_t n,
			    void *val)
{
	*htab_slot(h, key, n, NULL) = val;
}
static inline void htab_iput(struct htab *h, uint64_t key, void *val)
{
	*htab_islot(h, key, NULL) = val;
}
/* Room for n keys without growing. */
void htab_reserve(struct htab *h, size_t n);
void htab_free(struct htab *h);

/* *err = a malloc'd message for the caller to free (if err is not
 * NULL): how loaders report why they failed.
 */
void err_set(char **err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool file_exists(const char *path);

/* Read a whole file; returns a malloc'd NUL-terminated buffer or NULL. */
char *read_file(const char *path, size_t *len);

/* fnmatch-style glob match without FNM_PATHNAME ('*' matches anything). */
bool glob_match(const char *pattern, const char *s);
bool has_wildcard(const char *s);

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* str in single quotes for a POSIX shell, in the arena */
const char *sh_quote(struct arena *a, const char *str);

#endif
