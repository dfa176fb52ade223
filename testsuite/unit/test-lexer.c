/* test-lexer.c - unit tests for translator/lexer.c: raw tokens, their
 * locations, string and number rules, and the preprocessor (script
 * arguments, @define macros, %( %) conditionals).
 */
#include "lexer.h"
#include "tap.h"

#include <string.h>

static struct session sess;
static struct strbuf diags;

/* A fresh session for each case: the lexer keeps nothing else. */
static void reset(void)
{
	if (sess.arena)
		arena_free(sess.arena);
	memset(&sess, 0, sizeof(sess));
	sess.arena = arena_new();
	sess.opt.last_pass = 1;
	sess.opt.privilege = PRIV_STAPDEV;
	sess.kernel_v = "6.1.0";
	sess.kernel_vr = "6.1.0-27-amd64";
	sess.arch_name = "x86_64";
	diag_init(&sess);
	sb_free(&diags);
	diag_set_sink(&diags);
}

static void add_arg(const char *a)
{
	vec_push(sess.arena, &sess.opt.args, (void *)a);
}

static void show_token(struct strbuf *sb, const struct token *t)
{
	switch (t->kind) {
	case TK_NUMBER:
		sb_printf(sb, "%lld", (long long)t->num);
		break;
	case TK_STRING:
		sb_printf(sb, "\"%s\"", t->text);
		break;
	case TK_EMBEDDED:
		sb_printf(sb, "%%{%s%%}", t->text);
		break;
	default:
		sb_puts(sb, t->text);
	}
}

/* The whole preprocessed token stream of text, space-separated, in a
 * string that lives in the session arena.
 */
static const char *lex_all(const char *text)
{
	struct srcfile *src = srcfile_new(sess.arena, "t.stp", text,
					  strlen(text));
	struct lexer *lx = lex_new(&sess, src, false);
	struct strbuf sb;
	const struct token *t;
	const char *res;

	sb_init(&sb);
	sb_putn(&sb, "", 0);
	while ((t = lex_next(lx))->kind != TK_EOF) {
		if (sb.len)
			sb_putc(&sb, ' ');
		show_token(&sb, t);
	}
	res = arena_strdup(sess.arena, sb.buf);
	sb_free(&sb);
	return res;
}

static bool diag_has(const char *needle)
{
	return diags.buf && strstr(diags.buf, needle);
}

static void check(const char *text, const char *want, const char *name)
{
	reset();
	if (!tap_str_eq(lex_all(text), want, "%s", name) || sess.errors)
		tap_diag("diagnostics: %s", diags.buf ? diags.buf : "none");
}

static void check_error(const char *text, const char *msg, const char *name)
{
	reset();
	lex_all(text);
	if (!tap_ok(sess.errors > 0 && diag_has(msg), "%s", name))
		tap_diag("want an error with \"%s\", got: %s", msg,
			 diags.buf ? diags.buf : "none");
}

static void test_raw(void)
{
	check("probe begin { x = 0x1f + 010 - 9 }",
	      "probe begin { x = 31 + 8 - 9 }", "identifiers, ops, bases");
	check("a<<<b <<= >>= == != <= >= =~ !~ += -= *= /= %= &= ^= |= .=",
	      "a <<< b <<= >>= == != <= >= =~ !~ += -= *= /= %= &= ^= |= .=",
	      "multi-character operators are one token");
	check("&& || ++ -- -> << >> a.b", "&& || ++ -- -> << >> a . b",
	      "more operators, '.' alone");
	check("$var $$vars @cast $x_1$", "$var $$vars @cast $x_1$",
	      "$ and @ names are identifiers");
	check("a # shell\nb // c++\nc /* block\n * more */ d",
	      "a b c d", "all three comment styles");
	check("18446744073709551615 9223372036854775807",
	      "-1 9223372036854775807", "2^64-1 wraps to int64");
	check("%{ int x; %}", "%{ int x; %}", "embedded C keeps its text");
	check(";;", "; ;", "semicolons stay tokens");
}

static void test_strings(void)
{
	check("\"a\\tb\", \"\\q\", \"\\\"\"", "\"a\\tb\" , \"q\" , \"\\\"\"",
	      "C escapes kept, unknown escapes dropped");
	check("\"ab\" \"cd\" x", "\"abcd\" x", "adjacent literals join");
	check("\"\"", "\"\"", "the empty string");
	check_error("\"abc\ndef\"", "unterminated string",
		    "a newline ends a string with an error");
}

static void test_numbers(void)
{
	check_error("18446744073709551616", "out of range",
		    "2^64 is out of range");
	check_error("12abc", "malformed number", "letters after digits");
	check_error("a ` b", "unexpected character", "a stray backquote");
}

static void test_locations(void)
{
	struct srcfile *src;
	struct lexer *lx;
	const struct token *t;
	const char *text = "probe\n  begin {\n\tx }";

	reset();
	src = srcfile_new(sess.arena, "loc.stp", text, strlen(text));
	lx = lex_new(&sess, src, false);
	t = lex_peek(lx, 1);
	tap_str_eq(t->text, "begin", "lex_peek(1) looks ahead");
	t = lex_next(lx);
	tap_ok(t->loc.line == 1 && t->loc.col == 1 && t->loc.file == src,
	       "first token at 1:1");
	t = lex_next(lx);
	tap_ok(t->loc.line == 2 && t->loc.col == 3, "'begin' at 2:3");
	t = lex_next(lx);
	tap_ok(t->loc.line == 2 && t->loc.col == 9, "'{' at 2:9");
	t = lex_next(lx);
	tap_ok(t->loc.line == 3 && t->loc.col == 2,
	       "a tab counts as one column");
	lex_next(lx);
	t = lex_next(lx);
	tap_ok(t->kind == TK_EOF && lex_next(lx)->kind == TK_EOF,
	       "EOF repeats");
}

static void test_args(void)
{
	reset();
	add_arg("42");
	add_arg("hello world");
	tap_str_eq(lex_all("$1 @1, @2 $# @#"),
		   "42 \"42\" , \"hello world\" 2 \"2\"",
		   "$N pastes, @N quotes, $# and @# count");
	reset();
	add_arg("a + 1");
	tap_str_eq(lex_all("x = $1"), "x = a + 1",
		   "$N is lexed as tokens");
	check_error("$1", "out of range", "$1 without arguments");
}

static void test_conditionals(void)
{
	check("%( kernel_v >= \"2.6.32\" %? new %: old %)", "new",
	      "kernel_v compares as a version");
	check("%( kernel_vr == \"6.1*\" %? glob %: no %)", "glob",
	      "== with a wildcard matches");
	check("%( arch == \"x86_64\" && guru_mode == 1 %? a %: b %)", "b",
	      "&& of two triples");
	check("%( arch == \"arm*\" || runtime == \"kernel\" %? a %: b %)",
	      "a", "|| of two triples");
	check("%( 1 == 1 %? %( \"a\" != \"a\" %? x %: y %) %: z %)", "y",
	      "nested conditionals");
	check("%( 1 == 2 %? x %) z", "z", "a false test without else");
	check("%( systemtap_privilege == \"stapdev\" %? dev %)", "dev",
	      "privilege test");
	check_error("%( CONFIG_X %? a %)", "bare 'CONFIG_X'",
		    "a bare CONFIG_ option is an error");
	check_error("%( 1 == 1 %? a", "unterminated conditional",
		    "a missing %) is reported");
	check_error("a %)", "without a matching", "a stray %)");
}

static void test_macros(void)
{
	check("@define twice(x) %( @x + @x %) @twice(3)", "3 + 3",
	      "a macro with a parameter");
	check("@define one %( 1 %) @one * @one", "1 * 1",
	      "a macro without parameters");
	check("@define a %( 2 %) @define b %( @a + @a %) @b", "2 + 2",
	      "a macro that uses a macro");
	check_error("@nosuch(1)", "unknown macro", "an undefined macro");
}

static void test_keywords(void)
{
	reset();
	tap_ok(is_keyword(intern("probe")) && is_keyword(intern("foreach")) &&
	       is_keyword(intern("limit")), "probe, foreach, limit are "
	       "keywords");
	tap_ok(!is_keyword(intern("begin")) && !is_keyword(intern("printf")),
	       "begin and printf are not keywords");
}

static bool count_raw(const struct token *t, void *arg)
{
	if (t->kind != TK_EOF)
		(*(int *)arg)++;
	return true;
}

static void test_raw_scan(void)
{
	const char *text = "%( 1 == 2 %? a %: b %) @define m %( x %)";
	struct srcfile *src;
	int n = 0;

	reset();
	src = srcfile_new(sess.arena, "raw.stp", text, strlen(text));
	lex_raw_scan(&sess, src, count_raw, &n);
	tap_int_eq(n, 14, "lex_raw_scan sees every token unexpanded");
}

int main(void)
{
	test_raw();
	test_strings();
	test_numbers();
	test_locations();
	test_args();
	test_conditionals();
	test_macros();
	test_keywords();
	test_raw_scan();
	arena_free(sess.arena);
	sb_free(&diags);
	diag_set_sink(NULL);
	intern_reset();
	return tap_done();
}
