/* test-tapset.c - host unit test of pass 2's first half: the tapset
 * index and loader (tapset.c), probe point matching through aliases,
 * wildcards and providers, and symbol resolution (elaborate.c), over a
 * small library written to a temporary directory.
 */
#define _XOPEN_SOURCE 700
#include "elab.h"
#include "target.h"
#include "parse.h"
#include "tap.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char libdir[] = "/tmp/tapir-test-tapset.XXXXXX";

struct file {
	const char *path;
	const char *text;
};

/* The library: names the index must find, and names it must not. */
static const struct file library[] = {
	{ "base.stp",
	  "// function commented_out() {}\n"
	  "# global hashed_out\n"
	  "global ga, gb[10], gc = 5, gd%[4]\n"
	  "private global pg\n"
	  "function fa() { s = \"{ function in_string() {\"; return 1 }\n"
	  "private function pa() { return pg }\n"
	  "function pub_a() { return pa() + 1 }\n"
	  "%{ /* function in_embedded() */ %}\n"
	  "probe al.one = begin { a1 = 1 }\n"
	  "probe al.two, al.three += end { e = 2 }\n"
	  "probe begin { not_an_alias = 1 }\n"
	  "%( arch == \"nosuch\" %? probe cond.a = begin { }\n"
	  "%: probe cond.b = end { } %)\n"
	  "function after_cond() { return 2 }\n" },
	{ "linux/lin.stp", "function flin() { return 3 }\n" },
	{ "x86_64/arch.stp", "function farch() { return 4 }\n" },
	{ "linux/x86_64/both.stp", "function fboth() { return 5 }\n" },
	{ "other/hidden.stp", "function fhidden() { return 6 }\n" },
	{ "alias.stp",
	  "global on = 1\n"
	  "probe inner = begin { order = order . \"inner \" }\n"
	  "probe outer = inner { order = order . \"outer \" }\n"
	  "probe tick = timer.ms(100) if (on) { t = 1 }\n"
	  "probe loop.a = loop.b { }\n"
	  "probe loop.b = loop.a { }\n"
	  "probe maybe = no.such.point ?, end { }\n"
	  "probe first = begin !, end { }\n"
	  "probe kern = process(1).statement(0x401000).absolute { }\n" },
	{ "over.stp",
	  "function ov(x) :2 { return 2 }\n"
	  "function ov(x) :1 { if (x) next; return 1 }\n"
	  "function ov(x, y) { return 3 }\n"
	  "function execname:string() { return \"lib\" }\n" },
	{ "macro.stp",
	  "@define plain(a) %( @a + 1 %)\n"
	  "function uses_macro() { return @plain(1) }\n" },
	{ "opq/opaque.stp",
	  "@define mkfunc %( function made_by_macro() { return 7 } %)\n"
	  "@mkfunc\n" },
	{ "withprobe.stp",
	  "global wp_count\n"
	  "probe begin(-10) { wp_count = 1 }\n"
	  "function wp() { return wp_count }\n" },
};

static bool write_library(void)
{
	size_t i;

	if (!mkdtemp(libdir))
		return false;
	for (i = 0; i < ARRAY_SIZE(library); i++) {
		char path[512];
		char *slash;
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", libdir,
			 library[i].path);
		for (slash = path + strlen(libdir) + 1;
		     (slash = strchr(slash, '/')); slash++) {
			*slash = '\0';
			mkdir(path, 0700);
			*slash = '/';
		}
		f = fopen(path, "w");
		if (!f)
			return false;
		fputs(library[i].text, f);
		fclose(f);
	}
	return true;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_library(void)
{
	if (nftw(libdir, remove_entry, 8, FTW_DEPTH | FTW_PHYS) != 0)
		tap_diag("could not remove %s", libdir);
}

static void session_init(struct session *s)
{
	memset(s, 0, sizeof(*s));
	s->arena = arena_new();
	s->opt.last_pass = 2;
	s->opt.privilege = PRIV_STAPDEV;
	s->opt.unoptimized = true;
	s->tapset_dir = libdir;
	s->arch_name = "x86_64";
	diag_init(s);
}

/* ------------------------------------------------------------------ */
/* The index                                                          */

static int count_functions(struct session *s, const char *name)
{
	struct vec out = { 0 };

	tapset_find_function(s, name, &out);
	return out.n;
}

static int count_globals(struct session *s, const char *name)
{
	struct vec out = { 0 };

	tapset_find_global(s, name, &out);
	return out.n;
}

static int count_alias_files(struct session *s, const char *pattern)
{
	struct vec out = { 0 };

	tapset_find_aliases(s, pattern, &out);
	return out.n;
}

static void index_names(void)
{
	static const char *const found[] = {
		"fa", "pub_a", "after_cond", "flin", "farch", "fboth",
	};
	static const char *const missing[] = {
		"pa", "commented_out", "in_string", "in_embedded", "fhidden",
	};
	struct session s;
	struct strbuf diags;
	size_t i;

	session_init(&s);
	sb_init(&diags);
	diag_set_sink(&diags);
	for (i = 0; i < ARRAY_SIZE(found); i++)
		tap_int_eq(count_functions(&s, found[i]), 1,
			   "index finds function %s", found[i]);
	for (i = 0; i < ARRAY_SIZE(missing); i++)
		tap_int_eq(count_functions(&s, missing[i]), 0,
			   "index has no function %s", missing[i]);
	tap_int_eq(count_globals(&s, "ga") + count_globals(&s, "gb") +
		   count_globals(&s, "gc") + count_globals(&s, "gd"), 4,
		   "index finds globals with sizes, initialisers and %%");
	tap_int_eq(count_globals(&s, "pg") + count_globals(&s, "hashed_out"),
		   0, "index skips private and commented globals");
	tap_int_eq(count_alias_files(&s, "al.one"), 1, "alias al.one");
	tap_int_eq(count_alias_files(&s, "al.three"), 1,
		   "second name of an alias");
	tap_int_eq(count_alias_files(&s, "cond.b"), 1,
		   "aliases in both branches of %%( %%)");
	tap_int_eq(count_alias_files(&s, "begin"), 0,
		   "a plain probe is not an alias");
	tap_int_eq(count_alias_files(&s, "al.*"), 1, "wildcard query");
	tap_int_eq(count_alias_files(&s, "tick.randomize"), 1,
		   "query with a suffix finds the shorter alias");
	tap_int_eq(count_alias_files(&s, "**"), 2, "'**' query");
	tap_int_eq(count_functions(&s, "ov"), 1, "one file per query");
	tap_int_eq(count_functions(&s, "uses_macro"), 1,
		   "macros in an @define body are not looked at");
	diag_set_sink(NULL);
	tap_str_eq(diags.buf ? diags.buf : "", "", "index says nothing");
	sb_free(&diags);
	target_session_free(&s);
	arena_free(s.arena);
}

/* ------------------------------------------------------------------ */
/* Resolution                                                         */

struct run {
	struct session s;
	struct strbuf diags;
	int rc;
};

static void run(struct run *r, const char *script)
{
	struct srcfile *src;

	session_init(&r->s);
	sb_init(&r->diags);
	diag_set_sink(&r->diags);
	parse_load_macro_files(&r->s);
	src = srcfile_new(r->s.arena, "<input>", script, strlen(script));
	r->s.user_file = parse_file(&r->s, src, false);
	vec_push(r->s.arena, &r->s.user_files, r->s.user_file);
	r->rc = r->s.errors ? -1 : elab_resolve(&r->s);
	diag_set_sink(NULL);
	sb_putn(&r->diags, "", 0);
}

static void done(struct run *r)
{
	sb_free(&r->diags);
	target_session_free(&r->s);
	arena_free(r->s.arena);
}

/* The derived probes' names, space separated. */
static const char *probe_names(struct run *r)
{
	struct strbuf sb;
	const char *names;
	int i;

	sb_init(&sb);
	sb_putn(&sb, "", 0);
	for (i = 0; i < r->s.probes.n; i++) {
		struct derived_probe *dp = vec_get(&r->s.probes, i);

		sb_printf(&sb, "%s%s", i ? " " : "", dp->name);
	}
	names = arena_strdup(r->s.arena, sb.buf);
	sb_free(&sb);
	return names;
}

static void derives(const char *script, const char *want)
{
	struct run r;

	run(&r, script);
	if (!tap_str_eq(probe_names(&r), want, "derives: %s", script) ||
	    r.rc)
		tap_diag("rc %d: %s", r.rc, r.diags.buf);
	done(&r);
}

static void says(const char *script, const char *want)
{
	struct run r;

	run(&r, script);
	if (!tap_ok(r.rc < 0 && strstr(r.diags.buf, want),
		    "says \"%s\": %s", want, script))
		tap_diag("rc %d: %s", r.rc, r.diags.buf);
	done(&r);
}

static void matching(void)
{
	derives("probe begin, end(5), error(-1), never {}",
		"begin end(5) error(-1) never");
	derives("probe timer.*(200) {}", "timer.hz(200) timer.jiffies(200) "
		"timer.ms(200) timer.msec(200) timer.s(200) timer.sec(200) "
		"timer.us(200) timer.usec(200)");
	derives("probe al.* {}", "begin end end begin");
	derives("probe al** {}", "begin end end begin");
	derives("probe tick.randomize(5) {}", "timer.ms(100).randomize(5)");
	derives("probe maybe {}", "end");
	derives("probe first {}", "begin");
	derives("probe no.such ?, begin ! , end {}", "begin");
	derives("probe cond.* ?, begin {}", "end begin begin");
	says("probe no.such.point {}",
	     "<input>:1:7: error: no match for probe point 'no.such.point'");
	says("probe al.*.x {}", "no match for probe point 'al.*.x'");
	says("probe loop.a {}", "recursive expansion of probe alias");
	says("probe kern {}", "error: probe point "
	     "'process(1).statement(4198400).absolute' is not supported yet");
	says("probe kern {}", "note: probe alias 'kern' expands to it here");
	says("probe process(1).statement(0x401000).absolute {}",
	     "is not supported yet");
	says("probe timer.ms {}", "'ms' needs a number");
	says("probe timer.ms(10).randomize(10) {}",
	     "randomize value must be at least 0 and less than the interval");
	says("probe timer.jiffies(0) {}", "between 1 and 1000000");
	says("probe timer.us(1) {}", "between 100us and one day");
	says("probe begin { println($x) }",
	     "probe point 'begin' has no target variables");
}

static void bodies(void)
{
	struct run r;
	struct derived_probe *dp;
	struct stmt *b;

	run(&r, "probe outer { order = order . \"user\" }");
	dp = r.s.probes.n ? vec_get(&r.s.probes, 0) : NULL;
	if (tap_ok(!r.rc && dp && dp->body->stmts.n == 3,
		   "stacked aliases merge three bodies")) {
		b = vec_get(&dp->body->stmts, 0);
		tap_ok(b->loc.file->is_tapset && b->loc.line == 2,
		       "the innermost alias's prologue runs first");
		tap_int_eq(dp->locals.n, 1, "alias and user share locals");
		tap_int_eq(dp->alias_chain.n, 3, "alias chain: user, outer, "
			   "inner");
	}
	done(&r);

	run(&r, "probe al.two { u = 1 }");
	dp = r.s.probes.n ? vec_get(&r.s.probes, 0) : NULL;
	if (tap_ok(!r.rc && dp && dp->body->stmts.n == 2, "epilogue alias")) {
		b = vec_get(&dp->body->stmts, 0);
		tap_ok(!b->loc.file->is_tapset, "+= runs the user body first");
	}
	done(&r);

	run(&r, "global on2; probe tick if (on2) { }");
	dp = r.s.probes.n ? vec_get(&r.s.probes, 0) : NULL;
	tap_ok(!r.rc && dp && dp->cond && dp->cond->kind == EX_LOGICAL &&
	       dp->cond->a->var && dp->cond->b->a == NULL &&
	       dp->cond->b->var && dp->cond->b->var->from_tapset,
	       "conditions are ANDed and resolved in their own files");
	done(&r);

	run(&r, "probe begin { x = @defined($nothing) }");
	dp = r.s.probes.n ? vec_get(&r.s.probes, 0) : NULL;
	b = dp ? vec_get(&dp->body->stmts, 0) : NULL;
	b = b ? vec_get(&b->stmts, 0) : NULL;
	tap_ok(!r.rc && b && b->expr->b->kind == EX_NUM &&
	       b->expr->b->num == 0, "@defined($x) in begin is 0");
	done(&r);
}

static void symbols(void)
{
	struct run r;
	struct func *f;

	says("probe begin { a[1] = 1 }",
	     "local variable 'a' used as array; missing global declaration?");
	says("probe begin { s <<< 1 }", "used as statistic");
	says("function f(p) { return p[1] } probe begin { f(1) }",
	     "parameter 'p' used as array");
	says("probe begin { foreach (k in nothing) {} }",
	     "'nothing' used as array");
	says("probe begin { nosuch() }", "unresolved function 'nosuch'");
	says("probe begin { fa(1, 2) }", "no function 'fa' takes 2 "
	     "arguments");
	says("probe begin { pa() }", "unresolved function 'pa'");
	says("probe begin if (x) { }", "probe condition may only use global "
	     "variables; 'x' is not one");
	says("probe begin if (fa()) { }",
	     "probe condition may not call functions");
	says("global g; global g; probe begin { g = 1 }",
	     "global 'g' is already declared");

	run(&r, "probe begin { println(ov(1), ov(1, 2)) }");
	f = r.s.functions.n ? vec_get(&r.s.functions, 0) : NULL;
	tap_ok(!r.rc && f && f->priority == 1 && f->next_overload &&
	       f->next_overload->priority == 2 &&
	       !f->next_overload->next_overload && f->has_next,
	       "overloads chain by priority");
	tap_int_eq(r.s.functions.n, 3, "every overload is kept");
	done(&r);

	run(&r, "function execname() { return \"user\" } "
	    "probe begin { println(execname()) }");
	tap_ok(!r.rc && r.s.functions.n == 1 && r.s.library_files.n == 0,
	       "a user function overrides the library's");
	done(&r);

	run(&r, "probe begin { println(pub_a(), ga) }");
	tap_ok(!r.rc && r.s.functions.n == 2 && r.s.globals.n == 2,
	       "a library function reaches its private function and global");
	tap_int_eq(r.s.probes.n, 2, "a pulled-in file brings its probes");
	done(&r);

	run(&r, "probe begin { println(wp()) }");
	tap_str_eq(probe_names(&r), "begin begin(-10)",
		   "probes of a library file come after the user's");
	done(&r);

	run(&r, "probe begin { }");
	tap_int_eq(r.s.library_files.n, 0, "nothing used, nothing pulled");
	done(&r);

	run(&r, "probe begin { println(uses_macro()) }");
	tap_ok(!r.rc && r.s.functions.n == 1, "a function using a macro");
	done(&r);
}

/* A file that uses a macro at the top level could define anything: it
 * answers every query (-I puts it on the path).
 */
static void opaque(void)
{
	struct session s;
	struct strbuf diags;

	session_init(&s);
	vec_push(s.arena, &s.opt.include_dirs,
		 arena_printf(s.arena, "%s/opq", libdir));
	sb_init(&diags);
	diag_set_sink(&diags);
	tap_int_eq(count_functions(&s, "made_by_macro"), 1,
		   "a macro at the top level makes its file answer");
	tap_int_eq(count_functions(&s, "fa"), 2, "... every query");
	diag_set_sink(NULL);
	tap_str_eq(diags.buf ? diags.buf : "", "", "and it parses");
	sb_free(&diags);
	target_session_free(&s);
	arena_free(s.arena);
}

int main(void)
{
	if (!tap_ok(write_library(), "write the test library in %s",
		    libdir))
		return tap_done();
	index_names();
	opaque();
	matching();
	bodies();
	symbols();
	remove_library();
	intern_reset();
	return tap_done();
}
