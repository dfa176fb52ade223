/* test-types.c - host unit test of pass 2's second half: type inference
 * (types.c), the semantic checks (check.c), elision (elide.c) and the
 * -p2 listing (p2print.c), each script run through passes 1 and 2.
 */
#include "elab.h"
#include "target.h"
#include "parse.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#ifndef TAPIR_SRCDIR
#define TAPIR_SRCDIR "."
#endif

enum {
	GURU = 1,
	UNOPT = 2,
	NOWARN = 4,
};

struct result {
	int rc;
	struct strbuf listing;
	struct strbuf diags;
};

/* What "stap -p2 -e SCRIPT" does, with diagnostics kept in r. */
static void run(struct result *r, const char *script, int flags)
{
	struct session s;
	struct srcfile *src;
	const char *env = getenv("SYSTEMTAP_TAPSET");

	memset(&s, 0, sizeof(s));
	s.arena = arena_new();
	s.opt.last_pass = 2;
	s.opt.privilege = PRIV_STAPDEV;
	s.opt.guru = flags & GURU;
	s.opt.unoptimized = flags & UNOPT;
	s.opt.no_warnings = flags & NOWARN;
	s.tapset_dir = env && *env ? env : TAPIR_SRCDIR "/tapset";
	s.arch_name = "x86_64";
	diag_init(&s);
	sb_init(&r->listing);
	sb_init(&r->diags);
	diag_set_sink(&r->diags);
	parse_load_macro_files(&s);
	src = srcfile_new(s.arena, "<input>", script, strlen(script));
	s.user_file = parse_file(&s, src, false);
	vec_push(s.arena, &s.user_files, s.user_file);
	r->rc = s.errors || elaborate(&s) < 0;
	if (!r->rc)
		print_pass2(&r->listing, &s);
	diag_set_sink(NULL);
	sb_putn(&r->listing, "", 0);
	sb_putn(&r->diags, "", 0);
	target_session_free(&s);
	arena_free(s.arena);
}

static void done(struct result *r)
{
	sb_free(&r->listing);
	sb_free(&r->diags);
}

/* A script passes with `want` in its listing (and nothing said). */
static void listing_has(const char *script, int flags, const char *want)
{
	struct result r;

	run(&r, script, flags);
	if (!tap_ok(r.rc == 0 && strstr(r.listing.buf, want) &&
		    !*r.diags.buf, "listing: %s", script)) {
		tap_diag("want: %s", want);
		tap_diag("got: %s", r.listing.buf);
		tap_diag("diagnostics: %s", r.diags.buf);
	}
	done(&r);
}

/* The diagnostics of a script contain `want`; rc as given. */
static void says(const char *script, int flags, int rc, const char *want)
{
	struct result r;

	run(&r, script, flags);
	if (!tap_ok(r.rc == rc && strstr(r.diags.buf, want),
		    "says \"%s\": %s", want, script))
		tap_diag("rc %d, diagnostics: %s", r.rc, r.diags.buf);
	done(&r);
}

static void inference(void)
{
	listing_has("global c, n; probe begin { c = 1; n[\"a\", 2] = \"v\" }",
		    0, "# globals\nc:long\nn:string [string, long]\n");
	listing_has("global s; probe begin { s <<< 1 }", 0, "s:stats\n");
	listing_has("function f(a, b) { return a . b } "
		    "probe begin { println(f(\"x\", \"y\")) }", 0,
		    "f:string (a:string, b:string)\n");
	listing_has("function f(x) { return g(x) } function g(y) "
		    "{ return y + 1 } probe begin { println(f(1)) }", 0,
		    "g:long (y:long)\n");
	listing_has("global a; probe begin { a[1] = \"s\"; "
		    "foreach (v = [k] in a) printf(\"%d %s\\n\", k, v) }", 0,
		    "  # locals\n  k:long\n  v:string\n");
	listing_has("probe begin { x = %{ /* string */ \"a\" %}; "
		    "println(x) }", GURU, "x:string\n");
	listing_has("global a; probe begin { printf(\"%s\\n\", a[1]); "
		    "a[1] = \"x\" }", 0, "a:string [long]\n");
	listing_has("function f(x) :1 { if (x) next; return 1 } "
		    "function f(x) :2 { return 2 } "
		    "probe begin { println(f(0)) }", 0,
		    "f:long (x:long)\n");
	listing_has("probe begin { try { error(\"e\") } catch (m) "
		    "{ println(m) } }", 0, "m:string\n");
}

static void mismatches(void)
{
	says("global g = \"s\"; probe begin { g = 5 }", 0, 1,
	     "error: type mismatch (string vs. long)");
	says("global g = \"s\"; probe begin { g = 5 }", 0, 1,
	     "note: 'g' was inferred as string here");
	says("probe begin { x = \"a\" + 1; println(x) }", 0, 1,
	     "type mismatch (string vs. long)");
	says("function f:long(a:string) { return strlen(a) } "
	     "probe begin { println(f(1)) }", 0, 1,
	     "note: parameter 'a' of 'f' is declared string here");
	says("global a; probe begin { a[1] = 1; a[1, 2] = 3 }", 0, 1,
	     "inconsistent arity for 'a' (1 vs. 2)");
	says("global s; probe begin { s <<< 1; println(s) }", 0, 1,
	     "invalid use of statistics 's'");
	says("probe begin { println(y) }", 0, 1,
	     "unresolved type for identifier 'y'");
	says("function f() { println(1) } probe begin { x = f(); "
	     "println(x) }", 0, 1, "function 'f' returns no value");
	says("function f(x) { if (x) return 1; return } "
	     "probe begin { println(f(1)) }", 0, 1,
	     "'return' without a value in function 'f'");
	says("function f(x) :1 { return 1 } function f(x) :2 "
	     "{ return \"s\" } probe begin { println(f(0)) }", 0, 1,
	     "note: return value of 'f' was inferred as long here");
	says("global s; probe begin { s <<< 1; x = @hist_log(s) + 1; "
	     "println(x) }", 0, 1, "a histogram can only be printed");
}

static void formats(void)
{
	listing_has("probe begin { printf(\"%*d|%-5s|%.*s|%#x|%p|%c|%%\\n\","
		    " 1, 2, \"a\", 3, \"b\", 4, 5, 6) }", 0, "printf(");
	says("probe begin { printf(\"%d %s\\n\", \"a\", 1) }", 0, 1,
	     "type mismatch (string vs. long) for '%d'");
	says("probe begin { printf(\"%d %d\\n\", 1) }", 0, 1,
	     "expects 2 arguments, got 1");
	says("probe begin { printf(\"%-#5q\\n\", 1) }", 0, 1,
	     "invalid or missing conversion specifier in format at "
	     "'%-#5q");
	says("probe begin { printf(\"%lld\\n\", 1) }", 0, 1,
	     "invalid or missing conversion specifier");
	listing_has("probe begin { x = sprintf(\"%s\", y()); println(x) } "
		    "function y() { return \"q\" }", 0, "y:string ()\n");
}

static void checks(void)
{
	says("global a; function f() { a[2] = 1 } function g() { f() } "
	     "probe begin { a[1] = 1; foreach (k in a) g() }", 0, 1,
	     "function 'g' modifies array 'a' inside a foreach loop");
	says("global a; probe begin { a[1] = 1; foreach (k in a) "
	     "delete a[k] }", 0, 1,
	     "cannot modify array 'a' inside a foreach loop over it");
	says("global s; probe begin { s[1] <<< 1; foreach (v = [k] in s) "
	     "println(k) }", 0, 1, "foreach cannot bind a value from "
	     "statistics array 's'");
	says("global a; probe begin { a[1] = 1; foreach ([k] in a @sum+) "
	     "println(k) }", 0, 1, "aggregate sort on 'a'");
	says("global x[10]; probe begin { x = 1; println(x) }", 0, 1,
	     "'x' is not an array");
	says("global s; probe begin { s <<< 1; "
	     "print(@hist_linear(s, 0, 10, 0)) }", 0, 1,
	     "bucket width must be positive");
	says("global s; probe begin { s <<< 1; "
	     "print(@hist_linear(s, 0, 1000, 1)) }", 0, 1,
	     "too many buckets (1001, at most 128");
	says("global s; probe begin { s <<< 1; print(@hist_log(s)); "
	     "print(@hist_linear(s, 0, 10, 1)) }", 0, 1,
	     "inconsistent histogram parameters for 's'");
	says("global s; probe begin { s <<< 1; println(@variance(s, 63)) }",
	     0, 1, "@variance shift must be a literal number from 0 to 62");
}

static void elision(void)
{
	says("probe begin { dead = 5 }", 0, 0,
	     "warning: eliding assignment to 'dead'");
	says("function f() { return 1 } probe begin { }", 0, 0,
	     "warning: eliding unused function 'f'");
	says("global g; probe begin { }", 0, 0,
	     "warning: eliding unused variable 'g'");
	says("probe begin { 1 + 2 }", 0, 0,
	     "warning: eliding side-effect-free expression");
	says("probe begin { x = y; println(x) }", 0, 1,
	     "warning: never-assigned local variable 'y'");
	says("function broken() { return 1 + \"one\" } probe begin { }",
	     UNOPT, 1, "type mismatch");
	listing_has("function broken() { return 1 + \"one\" } "
		    "probe begin { println(1) }", NOWARN,
		    "# probes\nbegin /* <- begin */\n");
	/* an impure right-hand side stays as a statement */
	listing_has("function f() { println(1); return 2 } "
		    "probe begin { x = f() }", NOWARN, "\t\tf();\n");
	/* written-only globals stay: they are printed at the end */
	listing_has("global count; probe begin { count++ }", 0,
		    "# globals\ncount:long\n");
}

int main(void)
{
	inference();
	mismatches();
	formats();
	checks();
	elision();
	return tap_done();
}
