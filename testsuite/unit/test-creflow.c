/* test-creflow.c - unit tests for translator/creflow.c: the line breaking
 * of pass 3's C.  What must hold: short lines, preprocessor lines and
 * macro continuations pass through unchanged; a long line is broken at
 * its blocks and statements with tab indentation, a braceless if's
 * statement goes below it, a line still too wide is broken after the
 * commas of its calls (or its assignment); and nothing but
 * whitespace between tokens ever changes, which the tests check by
 * comparing the text with all blanks and newlines taken out.
 */
#include "creflow.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static char *reflow(const char *in)
{
	struct strbuf out;
	char *r;

	sb_init(&out);
	c_reflow(in, &out);
	r = strdup(out.buf ? out.buf : "");
	sb_free(&out);
	return r;
}

/* s with every space, tab and newline outside literals removed: two
 * texts with the same squeezed form differ only in layout.
 */
static char *squeeze(const char *s)
{
	char *r = malloc(strlen(s) + 1), *o = r;
	char q = 0;

	for (; *s; s++) {
		if (q) {
			*o++ = *s;
			if (*s == '\\' && s[1])
				*o++ = *++s;
			else if (*s == q)
				q = 0;
			continue;
		}
		if (*s == '"' || *s == '\'')
			q = *s;
		if (*s != ' ' && *s != '\t' && *s != '\n')
			*o++ = *s;
	}
	*o = '\0';
	return r;
}

static bool same_tokens(const char *a, const char *b)
{
	char *x = squeeze(a), *y = squeeze(b);
	bool eq = strcmp(x, y) == 0;

	free(x);
	free(y);
	return eq;
}

static int max_width(const char *s)
{
	int w = 0, cur = 0;

	for (; *s; s++) {
		if (*s == '\n') {
			cur = 0;
			continue;
		}
		cur += *s == '\t' ? 8 : 1;
		if (cur > w)
			w = cur;
	}
	return w;
}

static void test_unchanged(void)
{
	const char *in = "static int x;\n\tif (a) {\n\t\tb();\n\t}\n";
	const char *dir = "#define LONG_MACRO(a, b) do { if (a) { b; } "
			  "else { c; } d; e; f; g; h; i; j; k; l; } while (0)"
			  "\n";
	const char *cont = "#define M(a) \\\n\t({ int x = a; int y = x; "
			   "int z = y; int w = z; int v = w; int u = v; "
			   "u; })\n";
	char *r;

	r = reflow(in);
	tap_str_eq(r, in, "short lines pass through");
	free(r);
	r = reflow(dir);
	tap_str_eq(r, dir, "a long preprocessor line is left alone");
	free(r);
	r = reflow(cont);
	tap_str_eq(r, cont, "so is the continuation line of a macro");
	free(r);
	r = reflow("int a;");
	tap_str_eq(r, "int a;", "a last line without newline stays so");
	free(r);
}

static void test_breaking(void)
{
	const char *in = "\t\t(void)({ int64_t __a0 = 20LL; int64_t __r = 0; "
			 "if (unlikely(c->nesting + 1 > MAXNESTING)) { "
			 "_stp_error_at(c, \"MAXNESTING exceeded\", \"at x\"); "
			 "goto out; } __r; });\n";
	const char *want = "\t\t(void)({\n"
			   "\t\t\tint64_t __a0 = 20LL;\n"
			   "\t\t\tint64_t __r = 0;\n"
			   "\t\t\tif (unlikely(c->nesting + 1 > MAXNESTING)) {\n"
			   "\t\t\t\t_stp_error_at(c, \"MAXNESTING exceeded\", "
			   "\"at x\");\n"
			   "\t\t\t\tgoto out;\n"
			   "\t\t\t}\n"
			   "\t\t\t__r;\n"
			   "\t\t});\n";
	char *r = reflow(in);

	tap_str_eq(r, want, "a statement expression is broken into lines");
	tap_ok(same_tokens(in, r), "only whitespace changed");
	free(r);
}

static void test_literals_and_loops(void)
{
	const char *in = "\t{ const char *s = \"{ a; b; } ; { c; }\"; char q = "
			 "'{'; for (i = 0; i < n; i++) { x += s[i]; } "
			 "int arr[3] = { 1, 2, 3 }; do { y++; } while (y < 3); "
			 "if (x) { a(); } else { b(); } /* { ; } */ z(); }\n";
	char *r = reflow(in);

	tap_ok(same_tokens(in, r), "literals, loops, initialisers: only "
	       "whitespace changed");
	tap_ok(strstr(r, "\"{ a; b; } ; { c; }\"") != NULL,
	       "a string literal is copied whole");
	tap_ok(strstr(r, "for (i = 0; i < n; i++) {\n") != NULL,
	       "the semicolons of a for header do not break it");
	tap_ok(strstr(r, "{ 1, 2, 3 }") != NULL,
	       "an initialiser stays on one line");
	tap_ok(strstr(r, "} while (y < 3);") != NULL,
	       "do ... while keeps its while on the brace's line");
	tap_ok(strstr(r, "} else {\n") != NULL,
	       "else follows its closing brace");
	tap_ok(strstr(r, "/* { ; } */") != NULL, "a comment is copied whole");
	tap_ok(max_width(r) <= 80, "no line is wider than 80 columns "
	       "(widest %d)", max_width(r));
	free(r);
}

static void test_braceless_if(void)
{
	const char *in = "\t({ c->nesting--; if (unlikely(c->last_error)) "
			 "goto out; __r = ({ int x = 1; x; }); __r; });\n";
	const char *want = "\t({\n"
			   "\t\tc->nesting--;\n"
			   "\t\tif (unlikely(c->last_error))\n"
			   "\t\t\tgoto out;\n"
			   "\t\t__r = ({\n"
			   "\t\t\tint x = 1;\n"
			   "\t\t\tx;\n"
			   "\t\t});\n"
			   "\t\t__r;\n"
			   "\t});\n";
	char *r = reflow(in);

	tap_str_eq(r, want, "the statement of a braceless if goes below it");
	tap_ok(same_tokens(in, r), "only whitespace changed");
	free(r);
	r = reflow("\t({ for (i = 0; i < 3; i++) x++; while (y) y--; });\n");
	tap_ok(strstr(r, "\t\tfor (i = 0; i < 3; i++)\n\t\t\tx++;\n"
		      "\t\twhile (y)\n\t\t\ty--;\n") != NULL,
	       "so does the statement of a braceless for and while");
	free(r);
	r = reflow("\t({ for (n = f(); n; n = g(n)) if (m(n)) { k = 1; "
		   "break; } k; });\n");
	tap_str_eq(r, "\t({\n\t\tfor (n = f(); n; n = g(n))\n"
		   "\t\t\tif (m(n)) {\n\t\t\t\tk = 1;\n"
		   "\t\t\t\tbreak;\n\t\t\t}\n\t\tk;\n\t});\n",
		   "a braceless for ends with the block of its if");
	free(r);
}

static void test_wrapping(void)
{
	const char *in = "\t\t\t_stp_error_at(c, \"MAXNESTING exceeded\", "
			 "\"identifier 'exit' at logging.stp:60:10\");\n";
	const char *want = "\t\t\t_stp_error_at(c, \"MAXNESTING exceeded\",\n"
			   "\t\t\t\t      \"identifier 'exit' at "
			   "logging.stp:60:10\");\n";
	const char *as = "\t\t\tstruct stp_fn_execname_0_locals *__f = "
			 "&c->func_locals[c->nesting + 1].fn_execname_0;\n";
	const char *cmt = "\tf(a, b); /* a comment, long enough to go past "
			  "the 80th column, with commas, (and parens) */\n";
	const char *lit = "\t\t\t\t\tx = g(\"a string, with a comma, that "
			  "is too long to fit\");\n";
	char *r;

	r = reflow(in);
	tap_str_eq(r, want, "a long call goes on under its parenthesis");
	tap_ok(same_tokens(in, r), "only whitespace changed");
	free(r);
	r = reflow(as);
	tap_str_eq(r, "\t\t\tstruct stp_fn_execname_0_locals *__f =\n"
		   "\t\t\t\t&c->func_locals[c->nesting + 1].fn_execname_0;\n",
		   "a long assignment goes on one tab in");
	free(r);
	r = reflow(cmt);
	tap_ok(same_tokens(cmt, r) && strstr(r, "/* a comment, long enough "
	       "to go past the 80th column, with commas, (and parens) */\n"),
	       "nothing is broken in a comment");
	free(r);
	r = reflow(lit);
	tap_ok(same_tokens(lit, r) && strstr(r, "\"a string, with a comma, "
	       "that is too long to fit\"") != NULL,
	       "nor in a string literal");
	free(r);
	r = reflow("\t\t\t\t_stp_strcpy(l->l_k, _stp_node_key_str(g_a, "
		   "__n, 0)); x = 1;\n");
	tap_str_eq(r, "\t\t\t\t_stp_strcpy(l->l_k,\n"
		   "\t\t\t\t\t    _stp_node_key_str(g_a, __n, 0));\n"
		   "\t\t\t\tx = 1;\n",
		   "a call is broken where the fewest parentheses are open");
	free(r);
	r = reflow("\t({ if (_stp_map_exists(g_a, STP_KEYS({ .s = \"x\" }, "
		   "{ .n = 1 }), (const struct k[]){ { 1 }, { 2 } }))) "
		   "f(); });\n");
	tap_ok(strstr(r, "STP_KEYS({ .s = \"x\" }, { .n = 1 })") &&
	       strstr(r, "(const struct k[]){ { 1 }, { 2 } }"),
	       "the braces of a compound literal or a macro argument do not "
	       "open a block");
	free(r);
	r = reflow("/* a block comment that starts here,\n * and goes on "
		   "with(a, long, line, of, words, in, it, wider, than, the, "
		   "limit) */\n");
	tap_ok(strstr(r, "with(a, long, line, of, words, in, it, wider, than, "
		      "the, limit) */") != NULL,
	       "nor in the middle lines of a block comment");
	free(r);
}

static void test_reflow_line(void)
{
	struct strbuf out;

	sb_init(&out);
	c_reflow_line("\t{ int64_t __v = 1; f(__v); }", &out);
	tap_str_eq(out.buf, "\t{\n\t\tint64_t __v = 1;\n\t\tf(__v);\n\t}\n",
		   "c_reflow_line breaks a short block too");
	sb_free(&out);
}

int main(void)
{
	test_unchanged();
	test_breaking();
	test_literals_and_loops();
	test_braceless_if();
	test_wrapping();
	test_reflow_line();
	return tap_done();
}
