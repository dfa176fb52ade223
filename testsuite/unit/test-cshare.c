/* test-cshare.c - unit tests for translator/cshare.c: the keys under
 * which probe handlers share one C function, and the rewriting of a
 * shared handler's literals.  What must hold: handlers that differ only
 * in their probe number, temporaries and string literals have one key;
 * any other difference (code, a character literal, a similar number)
 * gives another; literals are found whole, escapes and adjacent ones
 * included, never inside comments or character literals.
 */
#include "cshare.h"
#include "tap.h"

#include <string.h>

static const char h7[] =
	"/* probe syscall.read */\n"
	"static inline void stp_probe_7(struct context *c)\n{\n"
	"\tstruct stp_probe_7_locals *l = &c->probe_locals.p7;\n"
	"\tif (!stp_probe_7_lock())\n\t\treturn;\n"
	"\t_stp_strcpy(l->l_name, \"read\");\n"
	"\t({ u64 __v12 = c->targs[1]; __a12 = __v12; });\n"
	"\t_stp_error_at(c, \"MAXACTION exceeded\", \"at \\\"x\\\" \" \"f:3:1\");\n"
	"\tx = '\"'; /* \"not a literal\" */\n"
	"\tstp_probe_7_unlock();\n}\n";

static const char h12[] =
	"/* probe syscall.write */\n"
	"static inline void stp_probe_12(struct context *c)\n{\n"
	"\tstruct stp_probe_12_locals *l = &c->probe_locals.p12;\n"
	"\tif (!stp_probe_12_lock())\n\t\treturn;\n"
	"\t_stp_strcpy(l->l_name, \"write\");\n"
	"\t({ u64 __v40 = c->targs[1]; __a40 = __v40; });\n"
	"\t_stp_error_at(c, \"MAXACTION exceeded\", \"at \\\"x\\\" \" \"f:9:1\");\n"
	"\tx = '\"'; /* \"not a literal\" */\n"
	"\tstp_probe_12_unlock();\n}\n";

static char *replace(struct arena *a, const char *s, const char *from,
		     const char *to)
{
	const char *p = strstr(s, from);

	if (!p)
		return arena_strdup(a, s);
	return arena_printf(a, "%.*s%s%s", (int)(p - s), s, to,
			    p + strlen(from));
}

int main(void)
{
	struct arena *a = arena_new();
	struct vec l7 = { 0 }, l12 = { 0 }, lx = { 0 };
	const char *k7 = cshare_key(a, h7, 7, &l7);
	const char *k12 = cshare_key(a, h12, 12, &l12);
	int slot[3] = { 0, -1, 1 };

	tap_str_eq(k12, k7, "same key despite number, temps, literals");
	tap_int_eq(l7.n, 3, "three literals, adjacent ones as one");
	tap_str_eq(l7.items[0], "\"read\"", "first literal");
	tap_str_eq(l7.items[2], "\"at \\\"x\\\" \" \"f:3:1\"",
		   "escaped quotes and adjacent literals kept whole");
	tap_str_eq(l12.items[0], "\"write\"", "other probe's literal");
	tap_ok(strstr(k7, "'\"'") && strstr(k7, "\"not a literal\""),
	       "character literals and comments pass through");
	tap_ok(strcmp(cshare_key(a, replace(a, h12, "targs[1]", "targs[2]"),
				 12, &lx), k7) != 0, "other code, other key");
	tap_ok(strcmp(cshare_key(a, replace(a, h12, "'\"'", "'y'"), 12, &lx),
		      k7) != 0, "another character literal, another key");
	tap_ok(strcmp(cshare_key(a, h12, 1, &lx), k7) != 0,
	       "stp_probe_12 is not probe 1's");
	tap_str_eq(cshare_param(a, "f(\"a\", \"b\" \"c\", \"d\");", "L[%d]",
				slot), "f(L[0], \"b\" \"c\", L[1]);",
		   "chosen literals replaced, the others kept");
	arena_free(a);
	return tap_done();
}
