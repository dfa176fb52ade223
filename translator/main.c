/* main.c - the stap driver: sets up the session, finds the library,
 * reads the script and runs the passes in order, stopping after -p N
 * or at the first pass that reports errors.
 */
#define _GNU_SOURCE
#include "cmdline.h"
#include "driver.h"
#include "analyze.h"
#include "cache.h"
#include "elab.h"
#include "emit.h"
#include "kbuild.h"
#include "kernel.h"
#include "lexer.h"
#include "listings.h"
#include "parse.h"
#include "target.h"
#include "provider.h"
#include "remote.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PKGDATADIR
#define PKGDATADIR "/usr/local/share/tapir"
#endif

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static const char *exe_dir(struct arena *a)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return arena_strdup(a, buf);
}

/* The environment wins; then a build tree (the directory beside the
 * binary, or the source tree it was configured from); then the
 * installed copy.
 */
static const char *find_data_dir(struct session *s, const char *env,
				 const char *sub)
{
	const char *v = getenv(env);
	const char *d;

	if (v && *v)
		return v;
	if (s->argv0_dir) {
		d = arena_printf(s->arena, "%s/%s", s->argv0_dir, sub);
		if (is_dir(d))
			return d;
	}
#ifdef TAPIR_SRCDIR
	d = arena_printf(s->arena, "%s/%s", TAPIR_SRCDIR, sub);
	if (is_dir(d))
		return d;
#endif
	return arena_printf(s->arena, "%s/%s", PKGDATADIR, sub);
}

void driver_session_init(struct session *s)
{
	memset(s, 0, sizeof(*s));
	s->arena = arena_new();
	s->opt.last_pass = 5;
	s->opt.privilege = PRIV_STAPDEV;
	s->arch_name = "x86_64";
	diag_init(s);
}

void driver_locate(struct session *s)
{
	s->argv0_dir = exe_dir(s->arena);
	s->tapset_dir = find_data_dir(s, "SYSTEMTAP_TAPSET", "tapset");
	s->runtime_root = s->opt.runtime_dir ? s->opt.runtime_dir :
			  find_data_dir(s, "SYSTEMTAP_RUNTIME", "runtime");
}

static struct srcfile *read_script(struct session *s)
{
	const char *path = s->opt.script_file;
	char *text;
	size_t len;
	struct srcfile *src;

	if (s->opt.script_text) {
		const char *t = s->opt.script_text;

		return srcfile_new(s->arena, "<input>", t, strlen(t));
	}
	if (!path)
		return NULL;
	if (strcmp(path, "-") == 0) {
		struct strbuf sb;
		char chunk[4096];
		size_t n;

		sb_init(&sb);
		sb_putn(&sb, "", 0);
		while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0)
			sb_putn(&sb, chunk, n);
		src = srcfile_new(s->arena, "<input>",
				  arena_strndup(s->arena, sb.buf, sb.len),
				  sb.len);
		sb_free(&sb);
		return src;
	}
	text = read_file(path, &len);
	if (!text) {
		diag_error_noloc(s, "cannot open script file '%s': %s", path,
				 strerror(errno));
		return NULL;
	}
	src = srcfile_new(s->arena, path, arena_strndup(s->arena, text, len),
			  len);
	free(text);
	return src;
}

struct pass_clock {
	struct timespec wall;
	struct rusage ru;
};

static void clock_start(struct pass_clock *c)
{
	clock_gettime(CLOCK_MONOTONIC, &c->wall);
	getrusage(RUSAGE_SELF, &c->ru);
}

static long tv_ms(const struct timeval *a, const struct timeval *b)
{
	return (b->tv_sec - a->tv_sec) * 1000 +
	       (b->tv_usec - a->tv_usec) / 1000;
}

/* "Pass N: <what> using <rss>res kb, in <usr>usr/<sys>sys/<real>real ms."
 * with -v.
 */
static void clock_report(struct session *s, int pass, const char *what,
			 const struct pass_clock *c)
{
	struct timespec now;
	struct rusage ru;
	long real;

	if (s->opt.verbose < 1 && s->opt.pass_verbose[pass - 1] < 1)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	getrusage(RUSAGE_SELF, &ru);
	real = (now.tv_sec - c->wall.tv_sec) * 1000 +
	       (now.tv_nsec - c->wall.tv_nsec) / 1000000;
	fprintf(stderr, "Pass %d: %s using %ldres kb, in "
		"%ldusr/%ldsys/%ldreal ms.\n", pass, what, ru.ru_maxrss,
		tv_ms(&c->ru.ru_utime, &ru.ru_utime),
		tv_ms(&c->ru.ru_stime, &ru.ru_stime), real);
}

int driver_pass1(struct session *s)
{
	struct srcfile *src;
	int i;

	parse_load_macro_files(s);
	src = read_script(s);
	if (!src)
		return -1;
	s->user_file = parse_file(s, src, false);
	vec_push(s->arena, &s->user_files, s->user_file);
	for (i = 0; i < s->opt.extra_scripts.n; i++) {
		const char *t = s->opt.extra_scripts.items[i];
		struct srcfile *e = srcfile_new(s->arena,
			arena_printf(s->arena, "<input%d>", i + 2), t,
			strlen(t));

		vec_push(s->arena, &s->user_files, parse_file(s, e, false));
	}
	if (!s->errors)
		for (i = 0; i < s->user_files.n; i++)
			parse_check_user_file(s, s->user_files.items[i]);
	return s->errors ? -1 : 0;
}

/* A probe is listed under the alias the written point matched, else
 * under its own point.
 */
static const char *listed_as(const struct derived_probe *dp)
{
	return dp->alias_name ? dp->alias_name : dp->name;
}

static int cmp_probe_name(const void *a, const void *b)
{
	const struct derived_probe *x = *(void *const *)a;
	const struct derived_probe *y = *(void *const *)b;

	return strcmp(listed_as(x), listed_as(y));
}

/* -L of an alias: the locals of its body ("name:type", in the order
 * they first appear; not the tapset's own "__" temporaries), then the
 * target variables of the point under it ("$name:type").
 */
static void alias_vars(struct session *s, const struct derived_probe *dp,
		       struct vec *out)
{
	struct strbuf sb;
	const char *p, *q;
	int i;

	for (i = 0; i < dp->locals.n; i++) {
		const struct vardecl *v = dp->locals.items[i];

		if (strncmp(v->name, "__", 2))
			vec_push(s->arena, out, arena_printf(s->arena, "%s:%s",
					v->name, type_name(v->type)));
	}
	if (!dp->prov->list_vars)
		return;
	sb_init(&sb);
	dp->prov->list_vars(dp, &sb);
	/* " $a:t1 $b:unsigned int": types may hold spaces, names no '$' */
	for (p = sb.buf ? strstr(sb.buf, " $") : NULL; p; p = q) {
		q = strstr(p + 1, " $");
		vec_push(s->arena, out, arena_strndup(s->arena, p + 1, q ?
				(size_t)(q - p - 1) : strlen(p + 1)));
	}
	sb_free(&sb);
}

static bool vec_has_str(const struct vec *v, const char *str)
{
	int i;

	for (i = 0; i < v->n; i++)
		if (!strcmp(v->items[i], str))
			return true;
	return false;
}

/* An alias's line: its name, then what all n of its probes have. */
static void list_alias(struct session *s, struct derived_probe **dps,
		       int n)
{
	struct vec first = { 0 };
	int i, j;

	printf("%s", listed_as(dps[0]));
	if (s->opt.list_vars)
		alias_vars(s, dps[0], &first);
	for (i = 0; i < first.n; i++) {
		for (j = 1; j < n; j++) {
			struct vec other = { 0 };

			alias_vars(s, dps[j], &other);
			if (!vec_has_str(&other, first.items[i]))
				break;
		}
		if (j == n)
			printf(" %s", (const char *)first.items[i]);
	}
	putchar('\n');
}

static void list_point(struct session *s, struct derived_probe *dp)
{
	const char *name = dp->name;

	if (dp->prov->list_name)
		name = dp->prov->list_name(dp, s->arena);
	if (s->opt.list_vars && dp->prov->list_vars) {
		struct strbuf sb;

		sb_init(&sb);
		dp->prov->list_vars(dp, &sb);
		printf("%s%s\n", name, sb.buf ? sb.buf : "");
		sb_free(&sb);
	} else {
		printf("%s\n", name);
	}
}

/* -l/-L: the pattern becomes "probe PATTERN {}" and pass 2 resolves it;
 * the points are listed sorted, each once, an alias by its own name.
 */
static int list_probes(struct session *s)
{
	const char *text = arena_printf(s->arena, "probe %s {}",
					s->opt.list_pattern);
	struct srcfile *src = srcfile_new(s->arena, "<input>", text,
					  strlen(text));
	struct derived_probe **dps;
	int i, n, shown = 0;

	parse_load_macro_files(s);
	s->user_file = parse_file(s, src, false);
	vec_push(s->arena, &s->user_files, s->user_file);
	if (s->errors)
		return 1;
	s->opt.unoptimized = true;
	if (elaborate(s) < 0)
		return 1;
	dps = xmalloc(sizeof(*dps) * (size_t)(s->probes.n + 1));
	for (i = 0; i < s->probes.n; i++)
		dps[i] = s->probes.items[i];
	qsort(dps, (size_t)s->probes.n, sizeof(*dps), cmp_probe_name);
	for (i = 0; i < s->probes.n; i += n) {
		for (n = 1; i + n < s->probes.n &&
		     listed_as(dps[i + n]) == listed_as(dps[i]); n++)
			;
		shown++;
		if (dps[i]->alias_name)
			list_alias(s, dps + i, n);
		else
			list_point(s, dps[i]);
	}
	free(dps);
	return shown ? 0 : 1;
}

static void print_pass1(struct session *s)
{
	struct strbuf sb;
	int i;

	sb_init(&sb);
	for (i = 0; i < s->user_files.n; i++)
		print_file(&sb, s->user_files.items[i]);
	if (sb.buf)
		fputs(sb.buf, stdout);
	sb_free(&sb);
}

/* The placeholder lets the cache key cover the module's text before the
 * module is named after the key.
 */
#define MODULE_PLACEHOLDER "stap_module"

static const char *tmpdir_new(struct session *s)
{
	const char *base = s->opt.tmpdir ? s->opt.tmpdir : getenv("TMPDIR");
	char *t = arena_printf(s->arena, "%s/stapXXXXXX",
			       base && *base ? base : "/tmp");

	if (!mkdtemp(t)) {
		diag_error_noloc(s, "cannot create a temporary directory in "
				 "'%s': %s", base ? base : "/tmp",
				 strerror(errno));
		return NULL;
	}
	return t;
}

static void tmpdir_done(struct session *s, const char *dir)
{
	if (!dir)
		return;
	if (s->opt.keep_tmpdir) {
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", dir);
		return;
	}
	if (system(arena_printf(s->arena, "rm -rf '%s'", dir)) != 0)
		fprintf(stderr, "stap: warning: could not remove '%s'\n", dir);
}

/* --vm without a release: the newest kernel here that has both its
 * image and its build tree, of the standard flavour when there is one
 * (a PREEMPT_RT kernel, "-rt-", is taken when it is the only one; name
 * it with --vm=KVER otherwise).
 */
static const char *pick_vm_kernel(struct session *s)
{
	DIR *d = opendir("/lib/modules");
	struct dirent *de;
	const char *best = NULL, *best_rt = NULL;

	while (d && (de = readdir(d))) {
		const char *k = de->d_name;

		if (k[0] == '.' ||
		    access(arena_printf(s->arena, "/boot/vmlinuz-%s", k),
			   R_OK) ||
		    access(arena_printf(s->arena, "/lib/modules/%s/build", k),
			   R_OK))
			continue;
		if (strstr(k, "-rt-")) {
			if (!best_rt || strverscmp(k, best_rt) > 0)
				best_rt = arena_strdup(s->arena, k);
		} else if (!best || strverscmp(k, best) > 0) {
			best = arena_strdup(s->arena, k);
		}
	}
	if (d)
		closedir(d);
	return best ? best : best_rt;
}

static const char *vm_script(struct session *s)
{
	const char *p = getenv("TAPIR_VM_DIR");

	if (p && *p)
		return arena_printf(s->arena, "%s/stap-vm.sh", p);
#ifdef TAPIR_SRCDIR
	p = TAPIR_SRCDIR "/testsuite/vm/stap-vm.sh";
	if (access(p, X_OK) == 0)
		return p;
#endif
	return PKGDATADIR "/vm/stap-vm.sh";
}

const char *driver_staprun_path(struct session *s)
{
	const char *p = getenv("SYSTEMTAP_STAPRUN");

	if (p && *p)
		return p;
	if (s->argv0_dir) {
		/* installed beside stap, or beside it in a build tree */
		static const char *const rel[] = { "staprun" };
		size_t i;

		for (i = 0; i < ARRAY_SIZE(rel); i++) {
			struct stat st;

			p = arena_printf(s->arena, "%s/%s", s->argv0_dir,
					 rel[i]);
			if (stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
			    access(p, X_OK) == 0)
				return p;
		}
	}
	return "staprun";
}

/* The options of staprun that follow from stap's, before the module. */
void driver_staprun_opts(struct session *s, struct vec *args)
{
	int i;

	for (i = 0; i < s->opt.verbose; i++)
		vec_push(s->arena, args, "-v");
	/* -F: the flight recorder, detached (-L) or a daemon writing -o */
	if (s->opt.flight_recorder)
		vec_push(s->arena, args, s->opt.output_file ? "-D" : "-L");
	if (s->opt.output_file) {
		vec_push(s->arena, args, "-o");
		vec_push(s->arena, args, (void *)s->opt.output_file);
	}
	if (s->opt.rotate) {
		vec_push(s->arena, args, "-S");
		vec_push(s->arena, args, (void *)s->opt.rotate);
	}
	if (s->opt.target_cmd) {
		vec_push(s->arena, args, "-c");
		vec_push(s->arena, args, (void *)s->opt.target_cmd);
	}
	if (s->opt.target_pid) {
		vec_push(s->arena, args, "-x");
		vec_push(s->arena, args,
			 arena_printf(s->arena, "%ld", s->opt.target_pid));
	}
	if (s->opt.timeout_secs) {
		vec_push(s->arena, args, "-T");
		vec_push(s->arena, args,
			 arena_printf(s->arena, "%ld", s->opt.timeout_secs));
	}
	if (s->opt.buffer_mb) {
		vec_push(s->arena, args, "-s");
		vec_push(s->arena, args,
			 arena_printf(s->arena, "%d", s->opt.buffer_mb));
	}
	if (s->opt.bulk)
		vec_push(s->arena, args, "-b");
	if (s->opt.monitor) {
		vec_push(s->arena, args, "-M");
		vec_push(s->arena, args,
			 arena_printf(s->arena, "%d", s->opt.monitor));
	}
	if (procfs_reads_stdin(s))
		vec_push(s->arena, args, "-i");
}

/* staprun, while pass 5 runs it: the signals that stop a script reach
 * it through stap too.  One from the terminal (SI_KERNEL) reached it
 * already, since it shares stap's process group: it is not sent twice.
 */
static volatile sig_atomic_t staprun_child;
static const int forwarded_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void forward_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (si->si_code != SI_KERNEL && staprun_child > 0)
		kill((pid_t)staprun_child, sig);
}

/* With --vm the child is the VM runner, which has no clean stop to
 * offer: the signals are ignored there, as the guest's staprun cannot
 * be reached.
 */
static void forward_signals(sigset_t *set, bool install, bool vm)
{
	struct sigaction sa = { .sa_sigaction = forward_signal,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	size_t i;

	if (vm)
		sa = (struct sigaction){ .sa_handler = SIG_IGN };

	sigemptyset(set);
	for (i = 0; i < sizeof(forwarded_signals) /
			sizeof(forwarded_signals[0]); i++) {
		sigaddset(set, forwarded_signals[i]);
		if (install)
			sigaction(forwarded_signals[i], &sa, NULL);
	}
}

/* Pass 5: run staprun on the module and return its exit status; the
 * module's directory is removed afterwards.
 */
static int run_staprun(struct session *s, const char *ko)
{
	struct vec args = { 0 };
	sigset_t set, old;
	int i, status = 0;
	pid_t pid;

	if (s->opt.use_vm) {
		/* stap-vm.sh KVER MODULE STAPRUN [options] */
		vec_push(s->arena, &args, (void *)vm_script(s));
		vec_push(s->arena, &args, (void *)s->kernel_vr);
		vec_push(s->arena, &args, (void *)ko);
	}
	vec_push(s->arena, &args, (void *)driver_staprun_path(s));
	driver_staprun_opts(s, &args);
	if (!s->opt.use_vm)
		vec_push(s->arena, &args, (void *)ko);
	else
		vec_push(s->arena, &args, "--");	/* module arguments */
	for (i = 0; i < s->opt.global_sets.n; i++)
		vec_push(s->arena, &args, s->opt.global_sets.items[i]);
	vec_push(s->arena, &args, NULL);
	fflush(stdout);
	fflush(stderr);
	/* Blocked from the fork until staprun's pid is known. */
	forward_signals(&set, false, false);
	sigprocmask(SIG_BLOCK, &set, &old);
	pid = fork();
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(args.items[0], (char **)args.items);
		fprintf(stderr, "stap: error: cannot run '%s': %s\n",
			(const char *)args.items[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		diag_error_noloc(s, "cannot fork: %s", strerror(errno));
		return 1;
	}
	/* staprun stops the script cleanly on these signals: stap does
	 * not die of them while staprun runs, it passes them on.
	 */
	staprun_child = pid;
	forward_signals(&set, true, s->opt.use_vm);
	sigprocmask(SIG_SETMASK, &old, NULL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	staprun_child = 0;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 1;
}

/* staprun (and the guest of --vm) take the module's name from its
 * file: a cached module, stored under its whole key, is run through a
 * link NAME.ko in the temporary directory.
 */
/* The cache kept to its limit after a run that used it, or at once
 * (--clean-cache); keep, the module this run uses, stays.
 */
static int trim_cache(struct session *s, bool force, const char *keep)
{
	const char *dir = kbuild_cache_dir(s);
	struct cache_trim_result r;
	int rc = cache_maintain(dir, force, keep, &r);

	if (rc < 0) {
		/* no cache yet is nothing to trim */
		if (!force || errno == ENOENT)
			return 0;
		diag_error_noloc(s, "cannot trim the cache '%s': %s", dir,
				 strerror(errno));
		return -1;
	}
	if (rc > 0 && (s->opt.verbose >= 1 || (force && r.removed)))
		fprintf(stderr, "Cache %s: %d file%s removed, %llu KiB of "
			"%llu KiB kept\n", dir, r.removed,
			r.removed == 1 ? "" : "s", r.after >> 10,
			r.before >> 10);
	return 0;
}

static const char *ko_named(struct session *s, const char *name,
			    const char *ko, const char **tmp)
{
	const char *base = strrchr(ko, '/') ? strrchr(ko, '/') + 1 : ko;
	const char *link;

	if (!strcmp(base, arena_printf(s->arena, "%s.ko", name)))
		return ko;
	if (!*tmp)
		*tmp = tmpdir_new(s);
	if (!*tmp)
		return NULL;
	link = arena_printf(s->arena, "%s/%s.ko", *tmp, name);
	if (symlink(ko, link) < 0) {
		diag_error_noloc(s, "cannot link '%s' to '%s': %s", link, ko,
				 strerror(errno));
		return NULL;
	}
	return link;
}

static int run_backend(struct session *s)
{
	struct pass_clock c;
	struct strbuf csrc;
	const char *name, *ko = NULL, *tmp = NULL;
	const char *hash;
	bool cache = !s->opt.disable_cache && !s->opt.module_name &&
		     !s->opt.keep_tmpdir;
	int rc = 1;

	clock_start(&c);
	sb_init(&csrc);
	if (emit_module(s, MODULE_PLACEHOLDER, &csrc) < 0) {
		fputs("Pass 3: translation failed.\n", stderr);
		goto out;
	}
	hash = kbuild_hash(s, csrc.buf);
	name = s->opt.module_name ? s->opt.module_name :
	       arena_printf(s->arena, "stap_%.16s", hash);
	sb_free(&csrc);
	sb_init(&csrc);
	emit_module(s, name, &csrc);
	clock_report(s, 3, arena_printf(s->arena, "translated to C into "
		     "\"%s_src.c\"", name), &c);
	if (s->opt.last_pass == 3) {
		fputs(csrc.buf, stdout);
		rc = 0;
		goto out;
	}
	clock_start(&c);
	if (cache)
		ko = kbuild_cached(s, hash);
	if (!ko) {
		tmp = tmpdir_new(s);
		if (!tmp || kbuild_module(s, name, csrc.buf, tmp, &ko) < 0) {
			fputs("Pass 4: compilation failed.\n", stderr);
			goto out;
		}
		if (cache)
			ko = kbuild_cache_store(s, hash, ko) ?: ko;
	}
	if (cache)
		trim_cache(s, false, ko);
	if (s->opt.module_name) {
		const char *dst = arena_printf(s->arena, "%s.ko", name);

		if (!kbuild_copy(ko, dst)) {
			diag_error_noloc(s, "cannot copy the module to '%s'",
					 dst);
			goto out;
		}
		ko = dst;
	}
	clock_report(s, 4, arena_printf(s->arena, "compiled C into \"%s\"",
		     ko), &c);
	if (s->opt.last_pass == 4 && s->remote_build) {
		/* --remote: the driver's parent copies it to the hosts */
		s->built_ko = ko;
		s->built_name = name;
		if (tmp && !strncmp(ko, tmp, strlen(tmp))) {
			s->built_tmp = tmp;
			tmp = NULL;
		}
		rc = 0;
		goto out;
	}
	if (s->opt.last_pass == 4) {
		printf("%s\n", ko);
		rc = 0;
		/* the printed path must stay (-k keeps it, and says so) */
		if (tmp && !s->opt.keep_tmpdir && !strncmp(ko, tmp, strlen(tmp)))
			tmp = NULL;
		goto out;
	}
	ko = ko_named(s, name, ko, &tmp);
	rc = ko ? run_staprun(s, ko) : 1;
out:
	tmpdir_done(s, tmp);
	sb_free(&csrc);
	return rc;
}

int driver_run_passes(struct session *s)
{
	struct pass_clock c;
	struct strbuf sb;

	clock_start(&c);
	if (driver_pass1(s) < 0) {
		fputs("Pass 1: parse failed.\n", stderr);
		return 1;
	}
	clock_report(s, 1, arena_printf(s->arena, "parsed user script and "
		     "%d library macros", s->lib_macros.n), &c);
	if (s->opt.last_pass == 1) {
		lex_warn_unused_args(s);
		if (s->errors) {
			fputs("Pass 1: parse failed.\n", stderr);
			return 1;
		}
		print_pass1(s);
		return 0;
	}
	clock_start(&c);
	if (elaborate(s) < 0) {
		fputs("Pass 2: analysis failed.\n", stderr);
		return 1;
	}
	lex_warn_unused_args(s);
	if (s->errors) {
		fputs("Pass 2: analysis failed.\n", stderr);
		return 1;
	}
	clock_report(s, 2, arena_printf(s->arena, "analyzed script: %d "
		     "probes, %d functions, %d globals, %d library files",
		     s->probes.n, s->functions.n, s->globals.n,
		     s->library_files.n), &c);
	analyze(s);
	if (s->opt.last_pass == 2) {
		sb_init(&sb);
		print_pass2(&sb, s);
		if (s->opt.verbose >= 1 || s->opt.pass_verbose[1] >= 1)
			analyze_print(&sb, s);
		if (sb.buf)
			fputs(sb.buf, stdout);
		sb_free(&sb);
		return 0;
	}
	return run_backend(s);
}

int main(int argc, char **argv)
{
	struct session s;
	int rc;

	driver_session_init(&s);
	rc = cmdline_parse(&s, argc, argv);
	if (rc)
		goto out;
	if (s.opt.clean_cache) {
		rc = trim_cache(&s, true, NULL) < 0;
		goto out;
	}
	driver_locate(&s);
	if (s.opt.run_example) {
		bool done;

		rc = listing_example(&s, &done);
		if (rc || done)
			goto out;
	}
	if (s.opt.remotes.n) {
		rc = remote_run(&s);
		goto out;
	}
	if (s.opt.use_vm && !*s.opt.vm_kernel && !s.opt.kernel_release &&
	    !s.opt.kernel_build_dir) {
		s.opt.vm_kernel = pick_vm_kernel(&s);
		if (!s.opt.vm_kernel) {
			diag_error_noloc(&s, "--vm: no kernel with both "
					 "/boot/vmlinuz-KVER and /lib/modules/"
					 "KVER/build; run scripts/setup-deps "
					 "--vm");
			rc = 1;
			goto out;
		}
	}
	if (kernel_target_init(&s) < 0) {
		rc = 1;
		goto out;
	}
	if (s.opt.dump_probe_types || s.opt.dump_probe_aliases ||
	    s.opt.dump_functions)
		rc = listing_dump(&s);
	else if (s.opt.list_pattern)
		rc = list_probes(&s);
	else
		rc = driver_run_passes(&s);
out:
	fflush(stdout);
	target_session_free(&s);
	arena_free(s.arena);
	intern_reset();
	return rc == 2 ? 0 : rc;
}
