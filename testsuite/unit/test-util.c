/* test-util.c - unit tests for translator/util.c: arenas, interning,
 * vectors, string buffers, file reading and glob matching; and for
 * translator/sha256.c, the cache's hash.
 */
#include "sha256.h"
#include "tap.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool all_zero(const unsigned char *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

static void test_arena(void)
{
	struct arena *a = arena_new();
	unsigned char *p = arena_alloc(a, 100);
	unsigned char *big;
	char *s;
	int i;
	bool aligned = true;

	tap_ok(p && all_zero(p, 100), "arena_alloc returns zeroed memory");
	memset(p, 0xff, 100);
	for (i = 1; i < 200; i++) {
		void *q = arena_alloc(a, (size_t)i);

		if ((uintptr_t)q % _Alignof(max_align_t))
			aligned = false;
	}
	tap_ok(aligned, "arena_alloc aligns every size to max_align_t");
	/* Bigger than one block: must get a block of its own. */
	big = arena_alloc(a, 1 << 20);
	tap_ok(big && all_zero(big, 1 << 20), "a 1 MiB allocation is zeroed");
	big[(1 << 20) - 1] = 1;
	tap_ok(p[99] == 0xff, "earlier allocations survive new blocks");

	s = arena_strdup(a, "tapir");
	tap_str_eq(s, "tapir", "arena_strdup copies");
	s = arena_strndup(a, "probe begin", 5);
	tap_str_eq(s, "probe", "arena_strndup stops at n and terminates");
	s = arena_printf(a, "%s.%d", "timer", 42);
	tap_str_eq(s, "timer.42", "arena_printf formats");
	s = arena_strdup(a, "");
	tap_str_eq(s, "", "arena_strdup of an empty string");
	arena_free(a);
	arena_free(NULL);
	tap_ok(true, "arena_free(NULL) is a no-op");
}

static void test_intern(void)
{
	char buf[32];
	const char *first[5000];
	const char *a, *b;
	bool same = true, distinct = true;
	int i;

	a = intern("execname");
	snprintf(buf, sizeof(buf), "exec%s", "name");
	b = intern(buf);
	tap_ok(a == b, "equal text interns to the same pointer");
	tap_ok(a != buf, "intern copies the text");
	tap_ok(intern("pid") != intern("tid"), "different text, different "
	       "pointers");
	tap_ok(intern_n("pidfoo", 3) == intern("pid"),
	       "intern_n takes a prefix");
	tap_ok(intern_n("pi", 2) != intern("pid"),
	       "a prefix is not the longer string");
	tap_str_eq(intern(""), "", "the empty string interns");

	/* Enough strings to force the table to grow several times. */
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "sym_%d", i);
		first[i] = intern(buf);
	}
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "sym_%d", i);
		if (intern(buf) != first[i])
			same = false;
		if (i && first[i] == first[i - 1])
			distinct = false;
	}
	tap_ok(same, "pointers stay stable while the table grows");
	tap_ok(distinct, "5000 names stay distinct");

	intern_reset();
	a = intern("after_reset");
	tap_str_eq(a, "after_reset", "interning works again after reset");
	intern_reset();
}

static void test_vec(void)
{
	struct arena *a = arena_new();
	struct vec v = { 0 };
	int vals[10];
	bool order = true;
	int i;

	tap_ok(vec_last(&v) == NULL, "vec_last of an empty vec is NULL");
	for (i = 0; i < 10; i++) {
		vals[i] = i;
		vec_push(a, &v, &vals[i]);
	}
	for (i = 0; i < 10; i++)
		if (vec_get(&v, i) != &vals[i])
			order = false;
	tap_ok(v.n == 10 && order, "vec_push keeps order across growth");
	tap_ok(vec_last(&v) == &vals[9], "vec_last is the last pushed");

	vec_insert(a, &v, 0, &vals[5]);
	vec_insert(a, &v, 6, &vals[0]);
	vec_insert(a, &v, v.n, &vals[1]);
	tap_ok(v.n == 13 && vec_get(&v, 0) == &vals[5] &&
	       vec_get(&v, 1) == &vals[0] && vec_get(&v, 6) == &vals[0] &&
	       vec_get(&v, 7) == &vals[5] && vec_last(&v) == &vals[1],
	       "vec_insert at the front, the middle and the end");
	arena_free(a);
}

static void test_strbuf(void)
{
	struct strbuf sb;
	int i;
	bool ok = true;

	sb_init(&sb);
	tap_ok(sb.len == 0 && sb.buf == NULL, "sb_init starts empty");
	sb_putc(&sb, 'x');
	sb_puts(&sb, "yz");
	sb_putn(&sb, "0123456789", 3);
	tap_str_eq(sb.buf, "xyz012", "putc, puts and putn append");
	sb_free(&sb);
	tap_ok(sb.buf == NULL && sb.len == 0, "sb_free resets");

	for (i = 0; i < 1000; i++)
		sb_printf(&sb, "%d,", i);
	for (i = 0; ok && i < 1000; i++) {
		char want[16];
		const char *p = sb.buf;
		int j;

		for (j = 0; j < i; j++)
			p = strchr(p, ',') + 1;
		snprintf(want, sizeof(want), "%d,", i);
		ok = strncmp(p, want, strlen(want)) == 0;
	}
	tap_ok(ok && sb.buf[sb.len] == '\0' && strlen(sb.buf) == sb.len,
	       "sb_printf grows and stays NUL-terminated");
	sb_free(&sb);

	sb_indent(&sb, 3);
	sb_puts(&sb, "x");
	sb_indent(&sb, 0);
	tap_str_eq(sb.buf, "\t\t\tx", "sb_indent writes tabs");
	sb_free(&sb);
}

static void test_read_file(void)
{
	char path[] = "/tmp/tapir-test-util.XXXXXX";
	int fd = mkstemp(path);
	size_t len = 0;
	char *text;

	if (!tap_ok(fd >= 0, "make a temporary file"))
		return;
	/* An embedded NUL must not cut the length short. */
	if (write(fd, "probe\0begin\n", 12) != 12)
		tap_diag("short write");
	close(fd);
	text = read_file(path, &len);
	tap_ok(text && len == 12 && !memcmp(text, "probe\0begin\n", 12) &&
	       text[12] == '\0', "read_file reads every byte and terminates");
	free(text);

	fd = open(path, O_WRONLY | O_TRUNC);
	close(fd);
	text = read_file(path, &len);
	tap_ok(text && len == 0 && text[0] == '\0',
	       "an empty file reads as an empty string");
	free(text);
	unlink(path);

	errno = 0;
	text = read_file("/nonexistent/tapir/file", NULL);
	tap_ok(!text && errno == ENOENT, "a missing file gives NULL, ENOENT");
}

static void test_glob(void)
{
	tap_ok(glob_match("sys*open", "sys_newopen"), "* matches a run");
	tap_ok(glob_match("a*", "a/b.c"), "* crosses '/' and '.'");
	tap_ok(glob_match("tcp?", "tcp4") && !glob_match("tcp?", "tcp"),
	       "? matches exactly one character");
	tap_ok(glob_match("[ab]x", "bx") && !glob_match("[ab]x", "cx"),
	       "[set] matches a class");
	tap_ok(!glob_match("read", "readv"), "no implicit trailing *");
	tap_ok(has_wildcard("a*") && has_wildcard("a?") &&
	       has_wildcard("a[1]") && !has_wildcard("kernel.function"),
	       "has_wildcard sees * ? [");
}

static void test_x(void)
{
	char *s = xstrdup("guru");
	void *p = xmalloc(0);

	tap_str_eq(s, "guru", "xstrdup copies");
	tap_ok(p != NULL, "xmalloc(0) returns a pointer");
	p = xrealloc(p, 4096);
	tap_ok(p != NULL, "xrealloc grows");
	free(p);
	free(s);
	tap_int_eq(ARRAY_SIZE((int[7]){ 0 }), 7, "ARRAY_SIZE counts");
}

static const char *sha_of(const void *p, size_t n, char out[SHA256_HEX])
{
	struct sha256 c;

	sha256_init(&c);
	sha256_update(&c, p, n);
	sha256_hex(&c, out);
	return out;
}

/* The digest of the file as sha256sum(1) gives it. */
static bool sha_tool(const char *path, char out[SHA256_HEX])
{
	char cmd[256];
	FILE *f;
	bool ok;

	snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
	f = popen(cmd, "r");
	if (!f)
		return false;
	ok = fscanf(f, "%64s", out) == 1;
	return pclose(f) == 0 && ok;
}

static void test_sha256(void)
{
	/* the examples of FIPS 180-2, appendix B */
	static const char two_blocks[] =
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char hex[SHA256_HEX], want[SHA256_HEX];
	char tmpl[] = "/tmp/tapir-sha.XXXXXX";
	unsigned char *big = xmalloc(1000000);
	struct sha256 c, d;
	size_t len, off, step;
	int fd;

	tap_str_eq(sha_of("", 0, hex), "e3b0c44298fc1c149afbf4c8996fb924"
		   "27ae41e4649b934ca495991b7852b855", "sha256 of nothing");
	tap_str_eq(sha_of("abc", 3, hex), "ba7816bf8f01cfea414140de5dae2223"
		   "b00361a396177a9cb410ff61f20015ad", "sha256 of abc");
	tap_str_eq(sha_of(two_blocks, strlen(two_blocks), hex),
		   "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd4"
		   "19db06c1", "sha256 of 448 bits (padding in a block of "
		   "its own)");
	memset(big, 'a', 1000000);
	tap_str_eq(sha_of(big, 1000000, hex), "cdc76e5c9914fb9281a1c7e284d7"
		   "3e67f1809a48a497200e046d39ccc7112cd0",
		   "sha256 of a million a");
	/* every length around the block and padding edges, in pieces of
	 * every size, against sha256sum
	 */
	for (len = 0; len < 1000000; len++)
		big[len] = (unsigned char)(len * 7 + len / 251);
	fd = mkstemp(tmpl);
	tap_ok(fd >= 0 && write(fd, big, 777) == 777, "a file to compare");
	if (fd >= 0)
		close(fd);
	tap_ok(sha_tool(tmpl, want), "sha256sum reads it");
	tap_str_eq(sha_of(big, 777, hex), want, "sha256 as sha256sum says");
	unlink(tmpl);
	for (step = 1; step <= 130; step++) {
		sha256_init(&c);
		for (off = 0; off < 777; off += step)
			sha256_update(&c, big + off,
				      off + step > 777 ? 777 - off : step);
		sha256_hex(&c, hex);
		if (strcmp(hex, want))
			break;
	}
	tap_int_eq((long long)step, 131, "in pieces of 1 to 130 bytes too");
	for (len = 50; len <= 130; len++) {
		char one[SHA256_HEX];

		sha256_init(&c);
		sha256_update(&c, big, len);
		sha256_hex(&c, hex);
		sha_of(big, len, one);
		if (strcmp(hex, one))
			break;
	}
	tap_int_eq((long long)len, 131, "lengths 50 to 130 alike both ways");
	/* a key's fields keep their boundaries; hex leaves c unchanged */
	sha256_init(&c);
	sha256_str(&c, "ab");
	sha256_str(&c, "c");
	sha256_init(&d);
	sha256_str(&d, "a");
	sha256_str(&d, "bc");
	sha256_hex(&c, hex);
	sha256_hex(&d, want);
	tap_ok(strcmp(hex, want) != 0, "fields \"ab\" \"c\" and \"a\" "
	       "\"bc\" differ");
	sha256_hex(&c, want);
	tap_str_eq(hex, want, "sha256_hex twice gives the same digest");
	free(big);
}

int main(void)
{
	test_sha256();
	test_arena();
	test_intern();
	test_vec();
	test_strbuf();
	test_read_file();
	test_glob();
	test_x();
	return tap_done();
}
