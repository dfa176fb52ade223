/* test-htab.c - unit tests for struct htab (translator/util.c): string
 * and integer keys, growth past many doublings, keys that collide in
 * the low bits, malloc'd and arena-backed slots.
 */
#include "tap.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NKEYS 20000

static void test_empty(void)
{
	struct htab h = { 0 };

	tap_ok(!htab_get(&h, "x", 1), "an empty table has no string key");
	tap_ok(!htab_iget(&h, 0), "an empty table has no integer key");
	tap_ok(h.n == 0 && h.cap == 0, "a lookup does not allocate");
	htab_free(&h);
	tap_ok(!h.slots, "htab_free of an empty table");
}

/* Every key in, then every key back with its own value; keys of other
 * lengths and absent keys are not found.
 */
static void test_strings(struct arena *a)
{
	static char keys[NKEYS][16];
	struct htab h = { .arena = a };
	bool all = true, fresh = true;
	int i;

	for (i = 0; i < NKEYS; i++) {
		snprintf(keys[i], sizeof(keys[i]), "key%d", i);
		htab_put(&h, keys[i], strlen(keys[i]), &keys[i]);
	}
	tap_int_eq((long long)h.n, NKEYS, "%s: %d string keys held",
		   a ? "arena" : "malloc", NKEYS);
	tap_ok((h.cap & (h.cap - 1)) == 0 && h.n * 2 <= h.cap,
	       "%s: the table stays a power of two, at most half full",
	       a ? "arena" : "malloc");
	for (i = 0; i < NKEYS; i++) {
		char buf[16];

		/* another copy of the text finds the key */
		snprintf(buf, sizeof(buf), "key%d", i);
		if (htab_get(&h, buf, strlen(buf)) != &keys[i])
			all = false;
	}
	tap_ok(all, "%s: every key finds its own value",
	       a ? "arena" : "malloc");
	tap_ok(!htab_get(&h, "key", 3) && !htab_get(&h, "key20000", 8),
	       "%s: absent keys are not found", a ? "arena" : "malloc");
	tap_ok(htab_get(&h, "key12x", 5) == &keys[12],
	       "%s: a key is n bytes, not up to a NUL",
	       a ? "arena" : "malloc");
	*htab_slot(&h, "key7", 4, &fresh) = NULL;
	tap_ok(!fresh && h.n == NKEYS && !htab_get(&h, "key7", 4),
	       "%s: htab_slot of a present key changes its value",
	       a ? "arena" : "malloc");
	htab_free(&h);
}

static void test_slot(void)
{
	struct htab h = { 0 };
	bool fresh = false;
	void **v = htab_slot(&h, "pid", 3, &fresh);

	tap_ok(fresh && v && !*v, "a new key: fresh, with a NULL value");
	*v = "one";
	v = htab_slot(&h, "pid", 3, &fresh);
	tap_ok(!fresh && *v && strcmp(*v, "one") == 0,
	       "the same key again: not fresh, its value kept");
	htab_put(&h, "tid", 3, NULL);
	tap_ok(h.n == 2 && !htab_get(&h, "tid", 3),
	       "a key with a NULL value is held and reads as NULL");
	htab_put(&h, "a\0b", 3, "ab");
	htab_put(&h, "a\0c", 3, "ac");
	tap_str_eq(htab_get(&h, "a\0c", 3), "ac",
		   "keys may hold NUL bytes");
	htab_put(&h, "", 0, "empty");
	tap_str_eq(htab_get(&h, "", 0), "empty", "the empty key");
	tap_ok(!htab_iget(&h, 0), "the integer 0 is not the empty string");
	htab_iput(&h, 0, "zero");
	tap_str_eq(htab_get(&h, "", 0), "empty",
		   "nor does the integer 0 replace it");
	tap_str_eq(htab_iget(&h, 0), "zero", "the integer 0 is a key");
	htab_free(&h);
}

/* Keys that agree in their low 32 bits, or differ only above them,
 * would all land in one slot without mixing.
 */
static void test_integers(struct arena *a)
{
	struct htab h = { .arena = a };
	bool all = true;
	uint64_t i;

	for (i = 0; i < NKEYS; i++)
		htab_iput(&h, i << 32, (void *)(uintptr_t)(i + 1));
	htab_iput(&h, UINT64_MAX, "max");
	for (i = 0; i < NKEYS; i++)
		if (htab_iget(&h, i << 32) != (void *)(uintptr_t)(i + 1))
			all = false;
	tap_ok(all, "%s: %d keys differing above bit 32 are all found",
	       a ? "arena" : "malloc", NKEYS);
	tap_ok(!htab_iget(&h, 1) && !htab_iget(&h, (uint64_t)NKEYS << 32),
	       "%s: absent integer keys are not found",
	       a ? "arena" : "malloc");
	tap_str_eq(htab_iget(&h, UINT64_MAX), "max",
		   "%s: UINT64_MAX is a key", a ? "arena" : "malloc");
	tap_int_eq((long long)h.n, NKEYS + 1, "%s: integer keys counted",
		   a ? "arena" : "malloc");
	htab_free(&h);
	tap_ok(h.n == 0 && h.cap == 0, "htab_free empties the table");
	htab_iput(&h, 42, "again");
	tap_str_eq(htab_iget(&h, 42), "again",
		   "a freed table can be used again");
	htab_free(&h);
}

static void test_pointers(struct arena *a)
{
	void *p[1000];
	struct htab h = { 0 };
	bool all = true;
	int i;

	for (i = 0; i < 1000; i++) {
		p[i] = arena_alloc(a, 48);
		htab_iput(&h, (uintptr_t)p[i], p[i]);
	}
	for (i = 0; i < 1000; i++)
		if (htab_iget(&h, (uintptr_t)p[i]) != p[i])
			all = false;
	tap_ok(all, "pointer keys from an arena are all found");
	htab_free(&h);
}

static void test_reserve(void)
{
	struct htab h = { 0 };
	struct htab_ent *slots;
	size_t cap;
	int i;

	htab_reserve(&h, 1000);
	slots = h.slots;
	cap = h.cap;
	tap_ok(cap >= 2000, "htab_reserve(1000): room at half load");
	for (i = 0; i < 1000; i++)
		htab_iput(&h, (uint64_t)i, &h);
	tap_ok(h.slots == slots && h.cap == cap,
	       "1000 keys after htab_reserve(1000) do not grow the table");
	htab_iput(&h, 1000, &h);
	htab_reserve(&h, 10);
	tap_ok(h.cap == cap || h.cap == 2 * cap,
	       "htab_reserve never shrinks");
	htab_free(&h);
}

int main(void)
{
	struct arena *a = arena_new();

	test_empty();
	test_strings(NULL);
	test_strings(a);
	test_slot();
	test_integers(NULL);
	test_integers(a);
	test_pointers(a);
	test_reserve();
	arena_free(a);
	return tap_done();
}
