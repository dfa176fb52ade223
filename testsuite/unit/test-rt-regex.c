/* test-rt-regex.c - unit tests for runtime/stp_regex.c: every answer of
 * the matcher is checked against glibc's regexec (REG_EXTENDED |
 * REG_NOSUB, C locale) over a table and over random patterns, plus the
 * errors, the limits and the places where we differ on purpose.
 */
#include "kshim-print.h"
#include "stp_regex.c"

#include "tap.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Inputs every table pattern is tried on. */
static const char *const inputs[] = {
	"", "a", "b", "ab", "ba", "abc", "aab", "abab", "abcabc", "xyz",
	"aaaa", "a.c", "abc\n", "a\nb", "-", "]", "[", "\\", "a{", "{}",
	"(a)", "a|b", "x^y", "$", "^", "hello world", "Hello", "12345",
	"0x1f", "tab\there", " lead", "trail ", "\x7f\x01", "\xe9t\xe9",
	"\xff", "foo.bar", "foobar", "aXbXc", "AbC", "ab*", "a+b",
};

static const char *const patterns[] = {
	/* literals, dot, anchors */
	"", "a", "ab", "abc", ".", "a.c", "^a", "a$", "^a$", "^$", "^",
	"$", "^ab|c$", "x^y", "a$b", "^^a", "a$$", "$^", "(^a)", "b(^a)",
	"(a$)b", "(^|a)b", "a(b|$)", "(^)*", "($)+a", "a(^)", "^*a|b",
	/* repetition */
	"a*", "a+", "a?", "ab*c", "ab+c", "ab?c", "a**", "a*+", "a+?",
	"a?*", "(ab)*", "(ab)+", "(a|b)*c", "(a*)*", "(a*)+b", "(a|)+",
	"a{2}", "a{2,}", "a{1,2}", "a{,2}", "a{0}", "a{0,0}b", "a{,}",
	"(ab){2}", "(a|b){2,3}c", "x{0,1}{0,1}", "a{1}{2}", "(a{2}){2}",
	"a{3,3}", "^a{2,3}$", "(a?){3}a{3}", "b{0,}a",
	/* alternation and groups */
	"a|b", "ab|cd", "a|", "|a", "a||b", "()", "(|a)", "(a|b|c)",
	"((a)(b))", "(a(b(c)))", "x(a|b)y", "(foo|bar)baz", "hello|world",
	/* brackets */
	"[abc]", "[^abc]", "[a-c]", "[a-]", "[-a]", "[]a]", "[^]a]",
	"[]-a]", "[\\]", "[.]", "[[]", "[--/]", "[%--]", "[!--]", "[a-a]",
	"[ab-]", "[]]", "[^-]", "[[.a.]]", "[[=a=]]", "[[.-.]]",
	"[[.].]]", "[[:alpha:]]", "[[:digit:]]+", "[[:alnum:]]",
	"[[:upper:]]", "[[:lower:]]", "[[:space:]]", "[[:blank:]]",
	"[[:punct:]]", "[[:print:]]", "[[:graph:]]", "[[:cntrl:]]",
	"[[:xdigit:]]+$", "[^[:alpha:]]", "[a[:digit:]x]",
	"[\x80-\xff]", "[^a-z]", "^[A-Z][a-z]+$", "[a-c]{2}",
	/* escapes and odd literals */
	"a\\.c", "\\.", "\\(a\\)", "\\|", "\\^", "\\$", "\\*", "\\[",
	"\\\\", "a\\{", "\\a", "}", "a}", "]", ")", "a)", ")a", "(a))",
	/* things scripts write */
	"^sys_", "read$", "^(open|close)at$", "[0-9]+\\.[0-9]+",
	"^/usr/(s?bin|lib)/", "\\.so(\\.[0-9]+)*$", "^[a-z_][a-z0-9_]*$",
	"0x[0-9a-f]+", "(a|b)*abb", "((a|b)*a(a|b)){1,3}", ".*", ".+",
	"^.{3}$", "^.{2,4}$",
};

static bool glibc_match(regex_t *g, const char *s)
{
	return regexec(g, s, 0, NULL, 0) == 0;
}

/* The text matched(0) gives: glibc's leftmost-longest match. */
static int compare_span(const struct stp_regex *re, const regex_t *gre,
			const char *pat, const char *str, bool quiet)
{
	int sub[2], rc;
	unsigned int g;
	regmatch_t m[1];

	rc = regexec(gre, str, 1, m, 0);
	if (rc || _stp_regex_submatch(re, str, 0, sub) != 1 ||
	    sub[0] != m[0].rm_so || sub[1] != m[0].rm_eo) {
		if (!quiet)
			tap_diag("/%s/ on \"%s\": glibc matches [%d, %d), we "
				 "[%d, %d)", pat, str, (int)m[0].rm_so,
				 (int)m[0].rm_eo, sub[0], sub[1]);
		return 1;
	}
	/* Each group lies within the match, or took no part. */
	for (g = 1; g <= re->ngroups; g++) {
		int se[2];

		_stp_regex_submatch(re, str, g, se);
		if ((se[0] < 0 && se[1] < 0) ||
		    (sub[0] <= se[0] && se[0] <= se[1] && se[1] <= sub[1]))
			continue;
		if (!quiet)
			tap_diag("/%s/ on \"%s\": group %u at [%d, %d)", pat,
				 str, g, se[0], se[1]);
		return 1;
	}
	return 0;
}

/* Compare one pattern on the given strings; returns mismatches. */
static int compare(const char *pat, const char *const *strs, size_t n,
		   bool quiet)
{
	struct stp_regex re;
	regex_t g, gs;
	int grc, rc, bad = 0;
	size_t i;

	grc = regcomp(&g, pat, REG_EXTENDED | REG_NOSUB);
	if (!grc && regcomp(&gs, pat, REG_EXTENDED))
		grc = -1;
	rc = _stp_regex_compile_groups(&re, pat);
	if ((grc == 0) != (rc == 0)) {
		if (!quiet)
			tap_diag("/%s/: glibc %s, we %s (%s)", pat,
				 grc ? "rejects" : "accepts",
				 rc ? "reject" : "accept",
				 re.error ? re.error : "-");
		bad = 1;
	}
	for (i = 0; !grc && !rc && i < n; i++) {
		int want = glibc_match(&g, strs[i]);
		int got = _stp_regex_exec(&re, strs[i]);

		if (want != got) {
			if (!quiet)
				tap_diag("/%s/ on \"%s\": glibc %d, we %d",
					 pat, strs[i], want, got);
			bad++;
		} else if (got) {
			bad += compare_span(&re, &gs, pat, strs[i], quiet);
		}
	}
	if (!grc) {
		regfree(&g);
		regfree(&gs);
	}
	_stp_regex_free(&re);
	return bad;
}

static void test_table(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(patterns); i++)
		tap_ok(!compare(patterns[i], inputs, ARRAY_SIZE(inputs),
				false),
		       "/%s/ agrees with glibc", patterns[i]);
}

/* Malformed patterns both glibc and we reject. */
static void test_errors(void)
{
	static const char *const bad[] = {
		"*a", "+", "?", "{", "a|*b", "(*a)", "^*", "$*", "x^+",
		"a{", "a{1", "a{2,1}", "a{x}", "a{}", "a{1,2,3}", "a{ 1}",
		"(", "(a", "((a)", "[", "[a", "[^", "[]", "[^]", "[z-a]",
		"[a-c-e]", "[[:foo:]]", "[[:alpha:]-z]", "[a-[:alpha:]]",
		"[[:alpha:]", "[[.]", "[[=]", "[[.space.]]", "\\", "a\\",
	};
	struct stp_regex re;
	regex_t g;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int grc = regcomp(&g, bad[i], REG_EXTENDED | REG_NOSUB);
		int rc = _stp_regex_compile(&re, bad[i]);

		if (!grc)
			regfree(&g);
		tap_ok(grc && rc == -EINVAL && re.error && !re.sets,
		       "/%s/ is rejected (%s)", bad[i],
		       re.error ? re.error : "no message");
		tap_ok(!_stp_regex_exec(&re, "a*{[(\\"),
		       "/%s/ failed to compile and matches nothing", bad[i]);
	}
}

/* Where we part from glibc on purpose. */
static void test_differences(void)
{
	struct stp_regex re;

	tap_int_eq(_stp_regex_compile(&re, "(a)\\1"), -EINVAL,
		   "backreferences are rejected");
	tap_str_eq(re.error, "backreferences are not supported",
		   "... and say so");
	/* GNU's \w \s \b \< are extensions; an escaped letter is itself. */
	tap_int_eq(_stp_regex_compile(&re, "\\w\\s"), 0, "\\w\\s compiles");
	tap_ok(_stp_regex_exec(&re, "ws") && !_stp_regex_exec(&re, "a "),
	       "\\w and \\s are the letters w and s");
	_stp_regex_free(&re);
	/* POSIX: without REG_NEWLINE a newline is an ordinary character,
	 * yet glibc matches /a$./ in "a\nb" (not /a$/ in "a\nb" though).
	 */
	tap_int_eq(_stp_regex_compile(&re, "a$.|.^b"), 0, "a$.|.^b compiles");
	tap_ok(!_stp_regex_exec(&re, "a\nb"),
	       "inner anchors do not match at a newline");
	_stp_regex_free(&re);
	/* glibc matches /(^a){2}/ in "aa" (but not /(^a)(^a)/): an anchor
	 * in a repeated group holds only where it would hold alone.
	 */
	tap_int_eq(_stp_regex_compile(&re, "(^a){2}|(a$|b){2}|(^a)+x"), 0,
		   "anchors in repeated groups compile");
	tap_ok(!_stp_regex_exec(&re, "aa") && !_stp_regex_exec(&re, "aax") &&
	       _stp_regex_exec(&re, "ba") && _stp_regex_exec(&re, "ax"),
	       "... and hold only at the ends");
	_stp_regex_free(&re);
	tap_int_eq(_stp_regex_compile(&re, "a{256}"), -E2BIG,
		   "a count over 255 is too large");
	tap_int_eq(_stp_regex_compile(&re, "a{255}bc"), -E2BIG,
		   "257 positions are too many ...");
	tap_str_eq(re.error, "regex needs too many positions",
		   "... and say so");
	tap_int_eq(_stp_regex_compile(&re, "a{255}b"), 0, "... 256 are not");
	_stp_regex_free(&re);
}

static void test_limits(void)
{
	char deep[200], big[STP_RE_MAX_PATTERN + 2];
	struct stp_regex re, zero;
	clock_t t0;
	int i, rc;

	memset(&zero, 0, sizeof(zero));
	tap_ok(!_stp_regex_exec(&zero, "") && !_stp_regex_exec(&zero, "a"),
	       "a zeroed regex matches nothing");

	for (i = 0; i < 40; i++)
		deep[i] = '(';
	deep[i++] = 'a';
	for (; i < 81; i++)
		deep[i] = ')';
	deep[i] = '\0';
	tap_int_eq(_stp_regex_compile(&re, deep), -E2BIG,
		   "40 nested groups are too deep");
	tap_ok(!re.sets, "... and leave nothing allocated");
	tap_str_eq(re.error, "regex nested too deeply", "... and say so");
	deep[0] = 'a';
	for (i = 0; i < 49; i++)
		memcpy(deep + 1 + 3 * i, "{1}", 3);
	deep[1 + 3 * i] = '\0';
	tap_int_eq(_stp_regex_compile(&re, deep), -E2BIG,
		   "49 stacked repeats are too deep");
	memcpy(deep, "((((a))))", 10);
	tap_int_eq(_stp_regex_compile(&re, deep), 0,
		   "4 nested groups are fine");
	tap_ok(_stp_regex_exec(&re, "xa"), "... and match");
	_stp_regex_free(&re);

	/* Empty groups make no positions but still cost work. */
	t0 = clock();
	rc = _stp_regex_compile(&re, "(((((){255}){255}){255}){255}){255}");
	tap_int_eq(rc, -E2BIG, "nested counts of nothing are too complex");
	tap_ok(clock() - t0 < CLOCKS_PER_SEC, "... and say so quickly");

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	tap_int_eq(_stp_regex_compile(&re, big), -E2BIG,
		   "an over-long pattern is refused");
	tap_str_eq(re.error, "regex too long", "... and say so");

	tap_int_eq(_stp_regex_compile(&re, "[a-z]{200}[0-9]{55}"), 0,
		   "255 positions compile");
	memset(big, 'q', 200);
	memcpy(big + 200, "0123456789012345678901234567890123456789"
	       "012345678901234", 56);
	tap_ok(_stp_regex_exec(&re, big), "... and match a 255-byte string");
	big[254] = 'x';
	tap_ok(!_stp_regex_exec(&re, big), "... and not a near miss");
	_stp_regex_free(&re);
	_stp_regex_free(&re);
	tap_ok(!re.sets, "freeing twice is harmless");
}

/* ---- Random comparison ------------------------------------------- */

#ifndef RANDOM_COUNT
#define RANDOM_COUNT 20000
#endif

static unsigned long long rng_state;

static unsigned int rnd(unsigned int n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned int)(rng_state >> 33) % n;
}

static void gen_regex(char *out, size_t *len, size_t max, int depth);

static void put(char *out, size_t *len, size_t max, const char *s)
{
	while (*s && *len < max)
		out[(*len)++] = *s++;
}

static void gen_atom(char *out, size_t *len, size_t max, int depth)
{
	static const char *const atoms[] = {
		"a", "b", "c", ".", "[ab]", "[^a]", "[a-c]", "[[:alpha:]]",
		"[^[:space:]b]", "\\.", "x", "^", "$", "[]a]", "-",
		"[^]b-]", "[.-b]", "\xe9", "[\x80-\xff]", "[[:punct:]]",
		"\\]", "()", "[[.-.]a]",
	};
	unsigned int n = ARRAY_SIZE(atoms), k = rnd(depth > 0 ? n + 2 : n);

	if (k >= n) {
		put(out, len, max, "(");
		gen_regex(out, len, max, depth - 1);
		put(out, len, max, ")");
		return;
	}
	put(out, len, max, atoms[k]);
}

static void gen_piece(char *out, size_t *len, size_t max, int depth)
{
	static const char *const ops[] = {
		"*", "+", "?", "{2}", "{0,2}", "{1,}", "{,1}", "{2,3}",
		"{0}", "{,}", "*?",
	};
	size_t start = *len, i;

	gen_atom(out, len, max, depth);
	/* No repetition of a bare anchor (both sides reject it) nor of a
	 * group holding one (glibc gets those wrong: test_differences).
	 */
	for (i = start; i < *len; i++)
		if (out[i] == '^' || out[i] == '$')
			return;
	if (rnd(3) == 0)
		put(out, len, max, ops[rnd(ARRAY_SIZE(ops))]);
}

static void gen_regex(char *out, size_t *len, size_t max, int depth)
{
	unsigned int i, n = rnd(4);

	for (i = 0; i < n; i++)
		gen_piece(out, len, max, depth);
	if (rnd(4) == 0) {
		put(out, len, max, "|");
		gen_regex(out, len, max, depth - 1);
	}
}

static void test_random(unsigned long long seed, int count)
{
	static const char alphabet[] = "aabbcx.-]\xe9 \n";
	char pat[128], strs[40][12];
	const char *sp[40];
	int bad = 0, i, j, k;

	rng_state = seed;
	for (i = 0; i < count; i++) {
		size_t len = 0, nalpha = sizeof(alphabet) - 1;

		gen_regex(pat, &len, sizeof(pat) - 1, 3);
		pat[len] = '\0';
		/* glibc lets an inner anchor match at a newline even without
		 * REG_NEWLINE (see test_differences): no newlines then.
		 */
		if (strpbrk(pat, "^$"))
			nalpha--;
		for (j = 0; j < 40; j++) {
			int n = rnd(11);

			for (k = 0; k < n; k++)
				strs[j][k] = alphabet[rnd(nalpha)];
			strs[j][n] = '\0';
			sp[j] = strs[j];
		}
		if (compare(pat, sp, 40, bad > 5)) {
			bad++;
			if (bad <= 5)
				tap_diag("seed %llu, pattern %d: /%s/", seed,
					 i, pat);
		}
	}
	tap_ok(!bad, "%d random patterns x 40 strings agree with glibc "
	       "(seed %llu, %d differ)", count, seed, bad);
}

/* matched(): the groups of the preferred way to match the
 * leftmost-longest text (earlier alternatives, longer repetitions). */
static void test_submatch(void)
{
	static const struct {
		const char *pat, *str, *want;
	} t[] = {
		{ "a*", "aaa", "[aaa]" },
		{ "(ab)*", "abab", "[abab][ab]" },
		{ "(ab)?", "abab", "[ab][ab]" },
		{ "c(ab)?", "cabab", "[cab][ab]" },
		{ "(a*)a*a", "aaa", "[aaa][aa]" },
		{ "(long|longer)", "longer", "[longer][longer]" },
		{ "a|b", "ab", "[a]" },
		{ "a*|b", "baaab", "[b]" },
		{ "(.*).*", "abcdef", "[abcdef][abcdef]" },
		{ "(a+|b)*", "ab", "[ab][b]" },
		{ "([abc])*d", "abbbcd", "[abbbcd][c]" },
		{ "(ab|cd)e", "abcde", "[cde][cd]" },
		{ "(bc+d$|ef*g.|h?i(j|k))", "ij", "[ij][ij][j]" },
		{ "(bc+d$|ef*g.|h?i(j|k))", "00effg12", "[effg1][effg1]-" },
		{ "^#! */.*/(k|ba||pdk|z)sh", "#! /bin/sh", "[#! /bin/sh][]" },
		{ "(^|foo)bar", "bar", "[bar][]" },
		{ "(foo|^)bar", "bazfoobar", "[foobar][foo]" },
		{ "a|(b)", "a", "[a]-" },
		{ "a(b)(c)", "abc", "[abc][b][c]" },
		{ "x(a{2,3})(a?)y", "xaaay", "[xaaay][aaa][]" },
		{ "(a){2}", "aa", "[aa][a]" },
		{ "([0-9]+)-([0-9]+)", "pid 12-345 x", "[12-345][12][345]" },
		{ "(a|ab)(c|bcd)", "abcd", "[abcd][a][bcd]" },
		{ "((a)|b)+", "ab", "[ab][b][a]" },
		{ "(x)?y$", "y", "[y]-" },
	};
	char got[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct stp_regex re;
		int sub[2];
		unsigned int g;
		size_t n = 0;

		if (_stp_regex_compile_groups(&re, t[i].pat) ||
		    _stp_regex_submatch(&re, t[i].str, 0, sub) != 1) {
			tap_ok(false, "/%s/ on \"%s\" matches", t[i].pat,
			       t[i].str);
			_stp_regex_free(&re);
			continue;
		}
		for (g = 0; g <= re.ngroups; g++) {
			_stp_regex_submatch(&re, t[i].str, g, sub);
			if (sub[0] < 0)
				n += snprintf(got + n, sizeof(got) - n, "-");
			else
				n += snprintf(got + n, sizeof(got) - n,
					      "[%.*s]", sub[1] - sub[0],
					      t[i].str + sub[0]);
		}
		tap_str_eq(got, t[i].want, "/%s/ on \"%s\": groups", t[i].pat,
			   t[i].str);
		_stp_regex_free(&re);
	}
}

int main(void)
{
	const char *env = getenv("TAPIR_TEST_SEED");

	test_table();
	test_errors();
	test_differences();
	test_limits();
	test_submatch();
	test_random(env ? strtoull(env, NULL, 0) : 20261122, RANDOM_COUNT);
	return tap_done();
}
