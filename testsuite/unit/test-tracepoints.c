/* test-tracepoints.c - unit tests for translator/debuginfo/tracepoints.c:
 * the catalog of every kernel installed under /lib/modules, checked
 * against events known to be in their headers, and the header reader on
 * a made-up tree that holds each construct it must get right.
 *
 * A kernel directory without its headers fails rather than skips, and
 * so does a host with no kernel at all: the reader would otherwise go
 * untested without anyone noticing.
 */
#define _GNU_SOURCE
#include "tap.h"
#include "util.h"
#include "debuginfo/tracepoints.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* An event's arguments, "name=decl;..." for one comparison. */
static const char *args_of(const struct ktp_event *ev, char *buf,
			   size_t size)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < ev->nargs && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s=%s",
				      i ? ";" : "", ev->arg_names[i],
				      ev->arg_decls[i]);
	return buf;
}

/* Event sys:name exists, is raw or not, and has exactly these args. */
static void check_event(const struct ktp_catalog *c, const char *tag,
			const char *sys, const char *name, bool raw,
			const char *header, const char *args)
{
	const struct ktp_event *ev = ktp_find(c, sys, name);
	char buf[1024];

	if (!tap_ok(ev != NULL, "%s: %s:%s found", tag, sys, name))
		return;
	tap_str_eq(args_of(ev, buf, sizeof(buf)), args, "%s: %s args", tag,
		   name);
	tap_ok(ev->raw == raw, "%s: %s is %s", tag, name,
	       raw ? "raw" : "a trace event");
	if (header)
		tap_str_eq(ev->header, header, "%s: %s header", tag, name);
	tap_ok(ktp_find(c, NULL, name) == ev, "%s: %s found in any system",
	       tag, name);
}

struct walk {
	int n;
	bool sorted;
	bool all_sched;
	bool names_match;
	bool saw_switch;
	const char *last_sys;
	const char *last_name;
};

static void walk_cb(const struct ktp_event *ev, void *arg)
{
	struct walk *w = arg;
	int c = w->n ? strcmp(w->last_sys, ev->system) : -1;

	if (c > 0 || (c == 0 && strcmp(w->last_name, ev->name) >= 0))
		w->sorted = false;
	if (strcmp(ev->system, "sched"))
		w->all_sched = false;
	if (strncmp(ev->name, "sched_", 6))
		w->names_match = false;
	if (!strcmp(ev->name, "sched_switch"))
		w->saw_switch = true;
	w->last_sys = ev->system;
	w->last_name = ev->name;
	w->n++;
}

static struct walk walk(const struct ktp_catalog *c, const char *sys,
			const char *name, int *ret)
{
	struct walk w = { 0, true, true, true, false, "", "" };

	*ret = ktp_each(c, sys, name, walk_cb, &w);
	return w;
}

static void check_globs(const struct ktp_catalog *c, const char *tag)
{
	struct walk w;
	int n, all;

	w = walk(c, "sched", NULL, &n);
	tap_ok(n == w.n && n > 20 && w.all_sched && w.sorted && w.saw_switch,
	       "%s: system \"sched\" gives %d sorted sched events", tag, n);
	w = walk(c, NULL, "sched_*", &n);
	tap_ok(n == w.n && n > 20 && w.names_match && w.sorted &&
	       w.saw_switch, "%s: name \"sched_*\" gives %d sorted events",
	       tag, n);
	w = walk(c, "sch?d", "*switch*", &n);
	tap_ok(n >= 1 && w.all_sched && w.saw_switch,
	       "%s: \"sch?d:*switch*\" gives %d, with sched_switch", tag, n);
	w = walk(c, NULL, NULL, &all);
	tap_ok(all == ktp_count(c) && w.sorted,
	       "%s: everything is %d events, in (system, name) order", tag,
	       all);
	tap_int_eq(ktp_each(c, "no_such_system", "*", NULL, NULL), 0,
		   "%s: an unknown system matches nothing", tag);
}

/* Each event has a system, a name and its arguments named. */
struct sanity {
	int bad;
	int raw;
	int maxargs;
	const char *first_bad;
};

static void sanity_cb(const struct ktp_event *ev, void *arg)
{
	struct sanity *s = arg;
	bool ok = *ev->system && *ev->name && *ev->header &&
		  ev->nargs >= 0 && ev->nargs <= KTP_MAX_ARGS;
	int i;

	for (i = 0; ok && i < ev->nargs; i++)
		ok = *ev->arg_names[i] && *ev->arg_decls[i] &&
		     !strpbrk(ev->arg_names[i], " *(),");
	if (!ok && !s->bad++)
		s->first_bad = ev->name;
	s->raw += ev->raw;
	if (ev->nargs > s->maxargs)
		s->maxargs = ev->nargs;
}

static int major_minor(const char *kver)
{
	int maj = 0, min = 0;

	sscanf(kver, "%d.%d", &maj, &min);
	return maj * 1000 + min;
}

static void check_kernel_events(const struct ktp_catalog *c,
				const char *kver)
{
	static const char sched_h[] = "include/trace/events/sched.h";

	check_event(c, kver, "sched", "sched_switch", false, sched_h,
		    "preempt=bool preempt;"
		    "prev=struct task_struct *prev;"
		    "next=struct task_struct *next;"
		    "prev_state=unsigned int prev_state");
	check_event(c, kver, "sched", "sched_process_exec", false, sched_h,
		    "p=struct task_struct *p;old_pid=pid_t old_pid;"
		    "bprm=struct linux_binprm *bprm");
	/* DEFINE_EVENT of class sched_wakeup_template */
	check_event(c, kver, "sched", "sched_wakeup", false, sched_h,
		    "p=struct task_struct *p");
	/* DEFINE_EVENT_SCHEDSTAT, chosen by CONFIG_SCHEDSTATS=y */
	check_event(c, kver, "sched", "sched_stat_wait", false, sched_h,
		    "tsk=struct task_struct *tsk;delay=u64 delay");
	/* DECLARE_TRACE: no trace event */
	check_event(c, kver, "sched", "sched_update_nr_running_tp", true,
		    sched_h, "rq=struct rq *rq;change=int change");
	check_event(c, kver, "sched", "pelt_cfs_tp", true, sched_h,
		    "cfs_rq=struct cfs_rq *cfs_rq");
	/* TRACE_EVENT_FN */
	check_event(c, kver, "raw_syscalls", "sys_enter", false,
		    "include/trace/events/syscalls.h",
		    "regs=struct pt_regs *regs;id=long id");
	check_event(c, kver, "raw_syscalls", "sys_exit", false, NULL,
		    "regs=struct pt_regs *regs;ret=long ret");
	check_event(c, kver, "irq", "irq_handler_entry", false,
		    "include/trace/events/irq.h",
		    "irq=int irq;action=struct irqaction *action");
	/* a local wrapper macro pasting rpc_task_##name */
	check_event(c, kver, "sunrpc", "rpc_task_begin", false, NULL,
		    "task=const struct rpc_task *task;"
		    "action=const void *action");
	/* the architecture's headers, and include/ras */
	check_event(c, kver, "irq_vectors", "local_timer_entry", false,
		    "arch/x86/include/asm/trace/irq_vectors.h",
		    "vector=int vector");
	check_event(c, kver, "msr", "write_msr", false,
		    "arch/x86/include/asm/msr-trace.h",
		    "msr=unsigned msr;val=u64 val;failed=int failed");
	tap_ok(ktp_find(c, "ras", "mc_event") != NULL,
	       "%s: ras:mc_event found", kver);
	/* TRACE_EVENT_RCU is TRACE_EVENT_NOP without CONFIG_RCU_TRACE */
	tap_ok(ktp_find(c, "rcu", "rcu_utilization") &&
	       !ktp_find(c, "rcu", "rcu_grace_period"),
	       "%s: rcu_utilization is there, rcu_grace_period is not", kver);
	tap_ok(ktp_find(c, "sched", "no_such_event_xyz") == NULL,
	       "%s: an unknown event gives NULL", kver);
	tap_ok(ktp_find(c, "irq", "sched_switch") == NULL,
	       "%s: an event asked for in the wrong system gives NULL", kver);
}

/* By the build tree's path alone, without /lib/modules/KVER/source to
 * go by, the source tree comes from the build tree's Makefile (for
 * Debian's split packages) and must give the same catalog.
 */
static void check_by_tree(const struct ktp_catalog *c, const char *kver)
{
	struct ktp_catalog *t;
	char *build, *err = NULL;

	if (asprintf(&build, "/lib/modules/%s/build", kver) < 0)
		return;
	t = ktp_load_tree(build, &err);
	if (tap_ok(t != NULL, "%s: loaded from %s alone", kver, build)) {
		tap_diag("%s: its source tree: %s", kver, ktp_source_dir(t));
		tap_int_eq(ktp_count(t), ktp_count(c),
			   "%s: the same number of events", kver);
		tap_ok(ktp_find(t, "sched", "sched_switch") != NULL,
		       "%s: with sched_switch", kver);
	} else {
		tap_diag("error: %s", err ? err : "(none)");
	}
	ktp_free(t);
	free(err);
	free(build);
}

static void test_kernel(const char *kver)
{
	struct ktp_catalog *c;
	struct sanity s = { 0, 0, 0, NULL };
	char *err = NULL;
	const char *const *w;
	double t0, dt;
	int i, nw;

	t0 = now();
	c = ktp_load(kver, &err);
	dt = now() - t0;
	if (!tap_ok(c != NULL, "%s: catalog loaded", kver)) {
		tap_diag("error: %s", err ? err : "(none)");
		free(err);
		return;
	}
	tap_diag("%s: %d events from %s in %.1f ms", kver, ktp_count(c),
		 ktp_source_dir(c), dt * 1e3);
	tap_ok(ktp_count(c) > 500, "%s: %d events, more than 500", kver,
	       ktp_count(c));
	/* generous: the sanitizers make it several times slower */
	tap_ok(dt < 1.0, "%s: loaded in %.1f ms", kver, dt * 1e3);
	check_kernel_events(c, kver);
	check_globs(c, kver);
	ktp_each(c, NULL, NULL, sanity_cb, &s);
	tap_ok(!s.bad, "%s: every event has a system, a name and named "
	       "arguments (first bad: %s)", kver,
	       s.first_bad ? s.first_bad : "none");
	tap_diag("%s: %d raw tracepoints, at most %d arguments", kver, s.raw,
		 s.maxargs);
	w = ktp_warnings(c, &nw);
	for (i = 0; i < nw; i++)
		tap_diag("%s: warning: %s", kver, w[i]);
	tap_int_eq(nw, 0, "%s: nothing in the headers went unparsed", kver);
	if (major_minor(kver) < 6001)
		tap_diag("%s: older than the kernels these checks know", kver);
	check_by_tree(c, kver);
	ktp_free(c);
}

/* ------------------------------------------------- a made-up tree */

static const char fake_config[] =
	"CONFIG_YES=y\n"
	"CONFIG_MOD=m\n"
	"# CONFIG_NO is not set\n"
	"CONFIG_LEVELS=5\n";

/* Every construct the reader must get right, one event each. */
static const char fake_header[] =
	"/* SPDX: TRACE_EVENT(in_comment, TP_PROTO(int a), TP_ARGS(a)) */\n"
	"#undef TRACE_SYSTEM\n"
	"#define TRACE_SYSTEM fake\n"
	"#if !defined(_TRACE_FAKE_H) || defined(TRACE_HEADER_MULTI_READ)\n"
	"#define _TRACE_FAKE_H\n"
	"#include <linux/tracepoint.h>\n"
	"// TRACE_EVENT(line_comment, TP_PROTO(int a), TP_ARGS(a))\n"
	"DECLARE_EVENT_CLASS(fake_class,\n"
	"\tTP_PROTO(struct task_struct *p, int (*fn)(int, long)),\n"
	"\tTP_ARGS(p, fn),\n"
	"\tTP_STRUCT__entry(__field(int, x)),\n"
	"\tTP_fast_assign(__entry->x = 1;),\n"
	"\tTP_printk(\"x=%d ) ( ,\", __entry->x)\n"
	");\n"
	"DEFINE_EVENT(fake_class, fake_define,\n"
	"\tTP_PROTO(struct task_struct *p, int (*fn)(int, long)),\n"
	"\tTP_ARGS(p, fn));\n"
	"#define DEFINE_WRAPPED(name)\t\t\t\t\\\n"
	"\tDEFINE_EVENT(fake_class, fake_##name,\t\t\\\n"
	"\t\tTP_PROTO(struct task_struct *p, int (*fn)(int, long)), \\\n"
	"\t\tTP_ARGS(p, fn))\n"
	"DEFINE_WRAPPED(wrapped);\n"
	"#define PROTO_ONE TP_PROTO(unsigned long   long\\\n"
	"   v)\n"
	"TRACE_EVENT_FN(fake_fn, PROTO_ONE, TP_ARGS(v),\n"
	"\tTP_STRUCT__entry(), TP_fast_assign(), TP_printk(\"'\"),\n"
	"\treg, unreg);\n"
	"#ifdef CONFIG_YES\n"
	"#define EV_ALIAS TRACE_EVENT\n"
	"#else\n"
	"#define EV_ALIAS TRACE_EVENT_NOP\n"
	"#endif\n"
	"EV_ALIAS(fake_alias, TP_PROTO(int a), TP_ARGS(a), , , );\n"
	"#if IS_ENABLED(CONFIG_MOD) && CONFIG_LEVELS >= 4\n"
	"TRACE_EVENT_CONDITION(fake_cond, TP_PROTO(int a, int b),\n"
	"\tTP_ARGS(a, b), TP_CONDITION(a > b), , , );\n"
	"#elif defined(CONFIG_YES)\n"
	"TRACE_EVENT(fake_not_elif, TP_PROTO(int a), TP_ARGS(a), , , );\n"
	"#endif\n"
	"#if CONFIG_YES && !CONFIG_NO && !defined(CONFIG_MOD)\n"
	"TRACE_EVENT(fake_plain_if, TP_PROTO(int a), TP_ARGS(a), , , );\n"
	"#endif\n"
	"#if defined(CONFIG_NO) || defined(CONFIG_MOD)\n"
	"TRACE_EVENT(fake_config_no, TP_PROTO(int a), TP_ARGS(a), , , );\n"
	"#endif\n"
	"#ifdef __FOREIGN_MACRO\n"
	"TRACE_EVENT(fake_maybe, TP_PROTO(int a), TP_ARGS(a), , , );\n"
	"#else\n"
	"TRACE_EVENT(fake_maybe, TP_PROTO(long a), TP_ARGS(a), , , );\n"
	"#endif\n"
	"TRACE_EVENT_NOP(fake_nop, TP_PROTO(int a), TP_ARGS(a), , , );\n"
	"DEFINE_EVENT_NOP(fake_class, fake_nop2, TP_PROTO(int a),\n"
	"\tTP_ARGS(a));\n"
	"DECLARE_TRACE(fake_raw_tp, TP_PROTO(void *d), TP_ARGS(d));\n"
	"TRACE_EVENT(fake_wide,\n"
	"\tTP_PROTO(int a, int b, int c, int d, int e, int f, int g,\n"
	"\t\t int h, int i, int j, int k, int l, int m),\n"
	"\tTP_ARGS(a, b, c, d, e, f, g, h, i, j, k, l, m), , , );\n"
	"#undef TRACE_SYSTEM\n"
	"#define TRACE_SYSTEM fake2\n"
	"#define TWO_ARGS(x, rest...) TP_ARGS(x, ##rest)\n"
	"DEFINE_EVENT_PRINT(fake_class, fake_print,\n"
	"\tPARAMS(TP_PROTO(char c, const char *s)),\n"
	"\tTWO_ARGS(c, s), TP_printk(\"%c\", ')'));\n"
	"DEFINE_EVENT_CONDITION(fake_class, fake_novars, TP_PROTO(void),\n"
	"\tTP_ARGS(), TP_CONDITION(1));\n"
	"#endif /* _TRACE_FAKE_H */\n"
	"#include <trace/define_trace.h>\n";

/* A second header defining fake_define again: the first one met wins. */
static const char fake_header2[] =
	"#define TRACE_SYSTEM zfake\n"
	"TRACE_EVENT(fake_define, TP_PROTO(int other), TP_ARGS(other),,,);\n"
	"TRACE_EVENT(zfake_only, TP_PROTO(int a), TP_ARGS(a),,,);\n";

static bool write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok;
}

static void cleanup(const char *root)
{
	static const char *const files[] = {
		"include/trace/events/fake.h", "include/trace/events/zfake.h",
		"include/trace/events/helper.h", ".config",
		"arch/x86/include/generated/.keep",
		"include/trace/events", "include/trace", "include",
		"arch/x86/include/generated", "arch/x86/include", "arch/x86",
		"arch",
	};
	char path[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, files[i]);
		if (remove(path) && i < 4)
			tap_diag("could not remove %s", path);
	}
	rmdir(root);
}

static bool make_tree(const char *root)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/include/trace/events", root);
	if (!mkdir_p(path))
		return false;
	snprintf(path, sizeof(path), "%s/arch/x86/include/generated", root);
	if (!mkdir_p(path))
		return false;
	snprintf(path, sizeof(path), "%s/.config", root);
	if (!write_text(path, fake_config))
		return false;
	snprintf(path, sizeof(path), "%s/include/trace/events/fake.h", root);
	if (!write_text(path, fake_header))
		return false;
	snprintf(path, sizeof(path), "%s/include/trace/events/zfake.h", root);
	if (!write_text(path, fake_header2))
		return false;
	snprintf(path, sizeof(path), "%s/include/trace/events/helper.h",
		 root);
	return write_text(path, "#define show_flags(x) TRACE_EVENT(x)\n");
}

static bool warned(const struct ktp_catalog *c, const char *what)
{
	const char *const *w;
	int i, n;

	w = ktp_warnings(c, &n);
	for (i = 0; i < n; i++)
		if (strstr(w[i], what))
			return true;
	return false;
}

static void test_fake_tree(void)
{
	static const char fn_decl[] = "int (*fn)(int, long)";
	static const char p_decl[] = "struct task_struct *p";
	char tmpl[] = "/tmp/test-tracepoints.XXXXXX";
	char *root = mkdtemp(tmpl), *err = NULL, want[256];
	struct ktp_catalog *c;
	const char *const *w;
	int i, n;

	if (!tap_ok(root && make_tree(root), "fake: made a header tree"))
		return;
	c = ktp_load_tree(root, &err);
	if (!tap_ok(c != NULL, "fake: catalog loaded")) {
		tap_diag("error: %s", err ? err : "(none)");
		free(err);
		cleanup(root);
		return;
	}
	snprintf(want, sizeof(want), "p=%s;fn=%s", p_decl, fn_decl);
	check_event(c, "fake", "fake", "fake_define", false,
		    "include/trace/events/fake.h", want);
	check_event(c, "fake", "fake", "fake_wrapped", false, NULL, want);
	check_event(c, "fake", "fake", "fake_fn", false, NULL,
		    "v=unsigned long long v");
	check_event(c, "fake", "fake", "fake_alias", false, NULL, "a=int a");
	check_event(c, "fake", "fake", "fake_cond", false, NULL,
		    "a=int a;b=int b");
	check_event(c, "fake", "fake", "fake_plain_if", false, NULL,
		    "a=int a");
	check_event(c, "fake", "fake", "fake_maybe", false, NULL, "a=int a");
	check_event(c, "fake", "fake", "fake_raw_tp", true, NULL,
		    "d=void *d");
	check_event(c, "fake", "fake2", "fake_print", false, NULL,
		    "c=char c;s=const char *s");
	check_event(c, "fake", "fake2", "fake_novars", false, NULL, "");
	check_event(c, "fake", "zfake", "zfake_only", false,
		    "include/trace/events/zfake.h", "a=int a");
	tap_ok(!ktp_find(c, NULL, "fake_class") &&
	       !ktp_find(c, NULL, "in_comment") &&
	       !ktp_find(c, NULL, "line_comment") &&
	       !ktp_find(c, NULL, "fake_nop") &&
	       !ktp_find(c, NULL, "fake_nop2") &&
	       !ktp_find(c, NULL, "fake_not_elif") &&
	       !ktp_find(c, NULL, "fake_config_no") &&
	       !ktp_find(c, NULL, "fake_wide"),
	       "fake: no classes, comments, NOPs or configured-out events");
	tap_int_eq(ktp_count(c), 11, "fake: 11 events");
	tap_ok(warned(c, "fake.h:55: fake_wide: 13 arguments, more than 12"),
	       "fake: the 13-argument event is reported, with its line");
	w = ktp_warnings(c, &n);
	for (i = 0; i < n; i++)
		tap_diag("fake: warning: %s", w[i]);
	tap_int_eq(n, 1, "fake: nothing else is reported");
	ktp_free(c);
	cleanup(root);
}

static void test_bogus(void)
{
	char *err = NULL;
	struct ktp_catalog *c = ktp_load("0.0.0-no-such-kernel", &err);

	tap_ok(c == NULL && err && strstr(err, "/lib/modules/"),
	       "a bogus kernel release gives NULL: %s", err ? err : "(none)");
	free(err);
	err = NULL;
	c = ktp_load("../etc", &err);
	tap_ok(c == NULL && err, "a release with a slash is refused");
	free(err);
	err = NULL;
	c = ktp_load_tree("/", &err);
	tap_ok(c == NULL && err, "a tree without event headers gives NULL");
	free(err);
}

int main(void)
{
	DIR *d = opendir("/lib/modules");
	struct dirent *de;
	int found = 0;

	while (d && (de = readdir(d))) {
		char *build;

		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&build, "/lib/modules/%s/build", de->d_name) < 0)
			continue;
		found++;
		if (tap_ok(access(build, R_OK) == 0, "%s: has a build tree",
			   de->d_name))
			test_kernel(de->d_name);
		free(build);
	}
	if (d)
		closedir(d);
	tap_ok(found > 0, "at least one kernel is installed (%d)", found);
	test_fake_tree();
	test_bogus();
	return tap_done();
}
