/* test-cmdline.c - host unit test of the command line (cmdline.c), the
 * target-kernel facts (kernel.c) and .config reading (kconfig.c).
 * Prints TAP (tap.c); exits non-zero when a check fails.
 */
#include "cmdline.h"
#include "kernel.h"
#include "tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAXARGS 64
#define BUFSZ 65536

static struct session *cur;
static char out[BUFSZ], err[BUFSZ];
static char tmpdir[] = "/tmp/test-cmdline.XXXXXX";

static void check(bool ok, const char *name)
{
	if (!tap_ok(ok, "%s", name) && (*err || *out))
		tap_diag("stderr: %s# stdout: %.200s", err, out);
}

static struct session *new_session(void)
{
	struct session *s = calloc(1, sizeof(*s));

	s->arena = arena_new();
	return s;
}

static void drop_session(void)
{
	if (!cur)
		return;
	arena_free(cur->arena);
	free(cur);
	cur = NULL;
}

static void slurp(FILE *f, char *buf)
{
	size_t n;

	fflush(f);
	rewind(f);
	n = fread(buf, 1, BUFSZ - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Run fn with stdout and stderr going to out[] and err[]. */
static int captured(int (*fn)(int, char **), int argc, char **argv)
{
	FILE *fo = tmpfile(), *fe = tmpfile();
	int so, se, rc;

	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	dup2(fileno(fo), 1);
	dup2(fileno(fe), 2);
	rc = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	slurp(fo, out);
	slurp(fe, err);
	return rc;
}

static int do_parse(int argc, char **argv)
{
	return cmdline_parse(cur, argc, argv);
}

static int do_kernel(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return kernel_target_init(cur);
}

/* P("-p", "2", ..., NULL): parse "stap -p 2 ..." into a fresh session. */
static int P(const char *first, ...)
{
	char *argv[MAXARGS];
	int argc = 0;
	const char *a;
	va_list ap;

	drop_session();
	cur = new_session();
	argv[argc++] = "stap";
	va_start(ap, first);
	for (a = first; a && argc < MAXARGS - 1; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	return captured(do_parse, argc, argv);
}

static bool has(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

static bool quiet(void)
{
	return !*out && !*err;
}

static const char *arg(int i)
{
	return i < cur->opt.args.n ? vec_get(&cur->opt.args, i) : "";
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

static void test_scripts(void)
{
	int rc;

	rc = P("-e", "probe begin { exit() }", NULL);
	check(rc == 0 && quiet(), "-e parses silently");
	check(cur->opt.last_pass == 5, "default last pass is 5");
	check(cur->opt.privilege == PRIV_STAPDEV && !cur->opt.privilege_set,
	      "default privilege is stapdev");
	check(!strcmp(cur->opt.runtime_mode, "kernel"), "default runtime");
	check(cur->opt.script_text && !cur->opt.script_file,
	      "-e sets the script text");
	rc = P("-e", "x", "a", "b", NULL);
	check(rc == 0 && cur->opt.args.n == 2 && !strcmp(arg(0), "a") &&
	      !strcmp(arg(1), "b"), "with -e every operand is an argument");
	rc = P("foo.stp", "1", "two", NULL);
	check(rc == 0 && !strcmp(cur->opt.script_file, "foo.stp") &&
	      cur->opt.args.n == 2 && !strcmp(arg(1), "two"),
	      "FILE then arguments");
	rc = P("-", NULL);
	check(rc == 0 && !strcmp(cur->opt.script_file, "-"), "- is stdin");
	rc = P("foo.stp", "-v", "-p2", NULL);
	check(rc == 0 && cur->opt.verbose == 1 && cur->opt.last_pass == 2 &&
	      cur->opt.args.n == 0, "options after FILE are options");
	rc = P("-e", "x", "--", "-v", "-p", NULL);
	check(rc == 0 && cur->opt.verbose == 0 && cur->opt.args.n == 2 &&
	      !strcmp(arg(0), "-v"), "-- ends the options");
	rc = P(NULL);
	check(rc == 1 && has(err, "stap: no script specified\n") &&
	      has(err, "--help"), "no script is a usage error with a hint");
	rc = P("-v", NULL);
	check(rc == 1 && has(err, "no script specified"), "-v alone");
	rc = P("-E", "probe end {}", NULL);
	check(rc == 1 && has(err, "no script specified"),
	      "-E alone is not a script");
	rc = P("-E", "a", "-E", "b", "-e", "c", NULL);
	check(rc == 0 && cur->opt.extra_scripts.n == 2, "-E repeats");
	rc = P("-e", "a", "-e", "b", NULL);
	check(rc == 1 && has(err, "only one -e"), "two -e scripts");
	rc = P("-i", NULL);
	check(rc == 0 && cur->opt.interactive, "-i needs no script");
}

static void test_too_many_args(void)
{
	char *argv[STAP_MAX_ARGS + 4];
	int i, rc;

	drop_session();
	cur = new_session();
	argv[0] = "stap";
	argv[1] = "f.stp";
	for (i = 2; i < STAP_MAX_ARGS + 3; i++)
		argv[i] = "x";
	argv[i] = NULL;
	rc = captured(do_parse, i, argv);
	check(rc == 1 && has(err, "too many script arguments"),
	      "more than STAP_MAX_ARGS arguments");
	drop_session();
	cur = new_session();
	rc = captured(do_parse, i - 1, argv);
	check(rc == 0 && cur->opt.args.n == STAP_MAX_ARGS,
	      "exactly STAP_MAX_ARGS arguments");
}

static void test_argv_untouched(void)
{
	char *argv[] = { "stap", "f.stp", "a", "-v", "b", NULL };
	int rc;

	drop_session();
	cur = new_session();
	rc = captured(do_parse, 5, argv);
	check(rc == 0 && !strcmp(argv[1], "f.stp") && !strcmp(argv[2], "a") &&
	      !strcmp(argv[3], "-v") && !strcmp(argv[4], "b"),
	      "the caller's argv keeps its order");
	check(cur->opt.args.n == 2 && !strcmp(arg(0), "a") &&
	      !strcmp(arg(1), "b"), "arguments around an option");
}

static void test_numbers(void)
{
	check(P("-p", "0", "-e", "x", NULL) == 1 &&
	      has(err, "stap: invalid pass number '0'"), "-p 0");
	check(P("-p6", "-e", "x", NULL) == 1, "-p 6");
	check(P("-p", "2x", "-e", "x", NULL) == 1, "-p 2x");
	check(P("-p", "3", "-e", "x", NULL) == 0 && cur->opt.last_pass == 3,
	      "-p 3");
	check(P("-s", "0", "-e", "x", NULL) == 1 &&
	      has(err, "invalid buffer size"), "-s 0");
	check(P("-s", "4096", "-e", "x", NULL) == 1, "-s 4096");
	check(P("-s", "4095", "-e", "x", NULL) == 0 &&
	      cur->opt.buffer_mb == 4095, "-s 4095");
	check(P("-x", "0", "-e", "x", NULL) == 1 &&
	      has(err, "invalid process ID"), "-x 0");
	check(P("-x", "-5", "-e", "x", NULL) == 1, "-x -5");
	check(P("-x", "12a", "-e", "x", NULL) == 1, "-x 12a");
	check(P("-x", "1234", "-e", "x", NULL) == 0 &&
	      cur->opt.target_pid == 1234, "-x 1234");
	check(P("-c", "ls", "-x", "1", "-e", "x", NULL) == 1 &&
	      has(err, "-c and -x cannot be used together"), "-c with -x");
	check(P("-c", "", "-e", "x", NULL) == 1, "-c ''");
	check(P("-c", "ls -l", "-e", "x", NULL) == 0 &&
	      !strcmp(cur->opt.target_cmd, "ls -l"), "-c CMD");
	check(P("-T", "0", "-e", "x", NULL) == 1 &&
	      has(err, "invalid timeout"), "-T 0");
	check(P("-T", "1.5", "-e", "x", NULL) == 1, "-T 1.5");
	check(P("-T", "30", "-e", "x", NULL) == 0 &&
	      cur->opt.timeout_secs == 30, "-T 30");
	check(P("-S", "10,3", "-e", "x", NULL) == 0 &&
	      !strcmp(cur->opt.rotate, "10,3"), "-S 10,3");
	check(P("-S", "10,", "-e", "x", NULL) == 1, "-S 10,");
	check(P("--rlimit-as=4096", "-e", "x", NULL) == 0 &&
	      cur->opt.rlimit_as == 4096, "--rlimit-as");
	check(P("--rlimit-cpu=0x10", "-e", "x", NULL) == 0 &&
	      cur->opt.rlimit_cpu == 16, "--rlimit-cpu in hex");
	check(P("--rlimit-stack=-1", "-e", "x", NULL) == 1 &&
	      has(err, "invalid --rlimit-stack value"), "--rlimit-stack=-1");
	check(P("--rlimit-fsize=99999999999", "-e", "x", NULL) == 1,
	      "--rlimit-fsize too large");
}

static void test_verbosity(void)
{
	int rc;

	rc = P("-v", "-v", "--vp", "0123", "-e", "x", NULL);
	check(rc == 0 && cur->opt.verbose == 2 &&
	      cur->opt.pass_verbose[0] == 2 && cur->opt.pass_verbose[1] == 3 &&
	      cur->opt.pass_verbose[3] == 5 && cur->opt.pass_verbose[4] == 2,
	      "-v and --vp add up per pass");
	check(P("--vp", "123456", "-e", "x", NULL) == 1 &&
	      has(err, "invalid --vp argument"), "--vp with 6 digits");
	check(P("--vp=1a", "-e", "x", NULL) == 1, "--vp 1a");
	check(P("-vvv", "-e", "x", NULL) == 0 && cur->opt.verbose == 3,
	      "-vvv");
}

static void test_patterns(void)
{
	check(P("-D", "MAXACTION=10000", "-D", "STP_NO_OVERLOAD",
		"-D", "x_1=-5", "-e", "x", NULL) == 0 &&
	      cur->opt.defines.n == 3, "-D accepted forms");
	check(P("-D", "9X", "-e", "x", NULL) == 1 &&
	      has(err, "invalid -D argument '9X'"), "-D 9X");
	check(P("-D", "A=B=C", "-e", "x", NULL) == 1, "-D A=B=C");
	check(P("-D", "A=", "-e", "x", NULL) == 1, "-D A=");
	check(P("-D", "A=1;rm", "-e", "x", NULL) == 1, "-D with a ;");
	check(P("-G", "limit=5", "-G", "name=a.b-c", "-e", "x", NULL) == 0 &&
	      cur->opt.global_sets.n == 2, "-G var=val");
	check(P("-G", "limit", "-e", "x", NULL) == 1 &&
	      has(err, "invalid -G argument"), "-G without =");
	check(P("-m", "my_mod.ko", "-e", "x", NULL) == 0 &&
	      !strcmp(cur->opt.module_name, "my_mod") &&
	      !cur->opt.disable_cache && quiet(),
	      "-m strips .ko silently (the probe cache stays on)");
	check(P("-m", "bad-name", "-e", "x", NULL) == 1 &&
	      has(err, "invalid module name 'bad-name'"), "-m bad-name");
	check(P("-m", ".ko", "-e", "x", NULL) == 1, "-m .ko");
	check(P("-m", "", "-e", "x", NULL) == 1, "-m ''");
	check(P("-m", "a234567890123456789012345678901234567890123456789012345"
		"6", "-e", "x", NULL) == 1 && has(err, "too long"),
	      "-m too long");
	check(P("--modinfo", "license=GPL", "-e", "x", NULL) == 0 &&
	      cur->opt.modinfo.n == 1, "--modinfo");
	check(P("--modinfo", "license", "-e", "x", NULL) == 1, "--modinfo X");
	check(P("-B", "V=1", "-B", "CONFIG_X=y", "-e", "x", NULL) == 0 &&
	      cur->opt.kbuild_opts.n == 2, "-B repeats");
	check(P("--compatible=4.8", "-e", "x", NULL) == 0 &&
	      !strcmp(cur->opt.compatible, "4.8"), "--compatible 4.8");
	check(P("--compatible=new", "-e", "x", NULL) == 1,
	      "--compatible new");
}

static void test_privilege(void)
{
	check(P("--privilege=stapusr", "-e", "x", NULL) == 0 &&
	      cur->opt.privilege == PRIV_STAPUSR && cur->opt.privilege_set,
	      "--privilege=stapusr");
	check(P("--unprivileged", "--privilege=stapusr", "-e", "x", NULL) == 0,
	      "same privilege twice");
	check(P("--unprivileged", "--privilege=stapsys", "-e", "x",
		NULL) == 1 && has(err, "only once"), "two privilege levels");
	check(P("--privilege=root", "-e", "x", NULL) == 1 &&
	      has(err, "invalid argument 'root' for --privilege"),
	      "--privilege=root");
	check(P("-g", "--unprivileged", "-e", "x", NULL) == 1 &&
	      has(err, "-g cannot be used with --privilege=stapusr"),
	      "-g with stapusr");
	check(P("--privilege=stapdev", "-g", "-e", "x", NULL) == 0 &&
	      cur->opt.guru, "-g with stapdev");
	check(P("--suppress-time-limits", "-e", "x", NULL) == 1 &&
	      has(err, "needs guru mode"), "--suppress-time-limits alone");
	check(P("--suppress-time-limits", "-g", "-e", "x", NULL) == 0 &&
	      cur->opt.suppress_time_limits, "--suppress-time-limits -g");
}

static void test_listing(void)
{
	int rc;

	rc = P("-l", "syscall.*", NULL);
	check(rc == 0 && !strcmp(cur->opt.list_pattern, "syscall.*") &&
	      !cur->opt.list_vars && !cur->opt.script_file,
	      "-l needs no script");
	rc = P("-L", "begin", "extra", NULL);
	check(rc == 0 && cur->opt.list_vars && cur->opt.unoptimized &&
	      cur->opt.args.n == 1 && !cur->opt.script_file,
	      "-L: operands are arguments");
	check(P("-l", "begin", "-e", "x", NULL) == 1 &&
	      has(err, "cannot be given with -l"), "-l with -e");
	check(P("-l", "begin", "-p2", NULL) == 1, "-l with -p2");
	check(P("-l", "begin", "-p5", NULL) == 0, "-l with -p5");
	check(P("-l", "a", "-L", "b", NULL) == 1 &&
	      has(err, "only one of -l"), "-l with -L");
	check(P("--dump-functions", NULL) == 0 && cur->opt.dump_functions &&
	      cur->opt.unoptimized, "--dump-functions");
	check(P("--dump-probe-types", NULL) == 0 &&
	      cur->opt.dump_probe_types, "--dump-probe-types");
	check(P("--dump-probe-aliases", "--dump-functions", NULL) == 1,
	      "two dump modes");
	check(P("--example", NULL) == 0 && cur->opt.run_example &&
	      !cur->opt.script_file, "--example alone: the list");
	rc = P("--example", "top_opens", "1", NULL);
	check(rc == 0 && cur->opt.run_example &&
	      !strcmp(cur->opt.script_file, "top_opens") &&
	      cur->opt.args.n == 1, "--example NAME ARG");
	check(P("--example", "-e", "probe begin {}", NULL) == 1 &&
	      has(err, "--example cannot be used with -e"), "--example -e");
	check(P("--example", "--dump-functions", NULL) == 1 &&
	      has(err, "--example cannot be used"), "--example --dump-*");
	check(P("--example", "-l", "begin", NULL) == 1, "--example -l");
}

static void test_modes(void)
{
	check(P("--color", "-e", "x", NULL) == 0 &&
	      !strcmp(cur->opt.color, "always"), "--color means always");
	check(P("-e", "x", NULL) == 0 && !strcmp(cur->opt.color, "auto"),
	      "colour is auto by default");
	check(P("--color=never", "-e", "x", NULL) == 0 &&
	      !strcmp(cur->opt.color, "never"), "--color=never");
	check(P("--color=pink", "-e", "x", NULL) == 1, "--color=pink");
	check(P("-P", "-e", "x", NULL) == 0 && cur->opt.prologue_searching &&
	      !strcmp(cur->opt.prologue_mode, "always"), "-P");
	check(P("--prologue-searching=never", "-e", "x", NULL) == 0 &&
	      !cur->opt.prologue_searching, "--prologue-searching=never");
	check(P("--prologue-searching=soon", "-e", "x", NULL) == 1,
	      "--prologue-searching=soon");
	check(P("--vm", "-e", "x", NULL) == 0 && cur->opt.use_vm &&
	      !strcmp(cur->opt.vm_kernel, ""), "--vm");
	check(P("--vm=6.1.0-27-amd64", "-e", "x", NULL) == 0 &&
	      !strcmp(cur->opt.vm_kernel, "6.1.0-27-amd64"), "--vm=KVER");
	check(P("--monitor", "-e", "x", NULL) == 0 && cur->opt.monitor == 1 &&
	      P("--monitor=5", "-e", "x", NULL) == 0 &&
	      cur->opt.monitor == 5, "--monitor[=SEC]");
	check(P("--monitor=0", "-e", "x", NULL) == 1 &&
	      has(err, "invalid interval '0' for --monitor") &&
	      P("--monitor=x", "-e", "x", NULL) == 1 &&
	      P("--monitor", "--remote=a", "-e", "x", NULL) == 1 &&
	      has(err, "--remote cannot be used with --monitor"),
	      "--monitor: a bad interval, or with --remote, is refused");
	check(P("-k", "-e", "x", NULL) == 0 && cur->opt.keep_tmpdir &&
	      !cur->opt.disable_cache, "-k keeps the probe cache on");
	check(P("--runtime=kernel", "-e", "x", NULL) == 0, "--runtime=kernel");
	check(P("--runtime=lua", "-e", "x", NULL) == 1 &&
	      has(err, "invalid argument 'lua' for --runtime"),
	      "--runtime=lua");
	check(P("-r", "6.12.9-amd64", "-e", "x", NULL) == 0 &&
	      !strcmp(cur->opt.kernel_release, "6.12.9-amd64") &&
	      !cur->opt.kernel_build_dir, "-r RELEASE");
	check(P("-r", "/usr/src/linux", "-e", "x", NULL) == 0 &&
	      !strcmp(cur->opt.kernel_build_dir, "/usr/src/linux") &&
	      !cur->opt.kernel_release, "-r DIR");
	check(P("-a", "x86_64", "-e", "x", NULL) == 0 &&
	      !strcmp(cur->opt.arch, "x86_64"), "-a x86_64");
	check(P("--sysenv=PATH=/bin", "-e", "x", NULL) == 1 &&
	      has(err, "--sysenv needs --sysroot"), "--sysenv alone");
	check(P("--sysroot=/", "--sysenv=PATH=/bin", "-e", "x", NULL) == 0 &&
	      !strcmp(cur->opt.sysroot, "/"), "--sysroot with --sysenv");
	check(P("--sysroot=/nonexistent/dir", "-e", "x", NULL) == 1 &&
	      has(err, "invalid --sysroot directory"), "--sysroot missing");
}

/* --json, -f FORMAT (bpftrace's spelling) and --json-fields. */
static void test_json(void)
{
	check(P("-e", "x", NULL) == 0 && !cur->opt.json, "text by default");
	check(P("--json", "-e", "x", NULL) == 0 && cur->opt.json &&
	      !cur->opt.json_fields, "--json");
	check(P("-f", "json", "-e", "x", NULL) == 0 && cur->opt.json,
	      "-f json");
	check(P("--json", "-f", "text", "-e", "x", NULL) == 0 &&
	      !cur->opt.json, "-f text after --json");
	check(P("-f", "yaml", "-e", "x", NULL) == 1 &&
	      has(err, "invalid argument 'yaml' for -f"), "-f yaml");
	check(P("--json-fields=probe,time", "-e", "x", NULL) == 0 &&
	      cur->opt.json && cur->opt.json_fields == ((1u << 1) | (1u << 3)),
	      "--json-fields=probe,time implies --json");
	check(P("--json-fields=all", "-e", "x", NULL) == 0 &&
	      cur->opt.json_fields == (7u << 1), "--json-fields=all");
	check(P("--json-fields=cpu,pid", "-e", "x", NULL) == 1 &&
	      has(err, "invalid field 'pid' for --json-fields"),
	      "--json-fields=cpu,pid");
	check(P("--json", "-b", "-e", "x", NULL) == 1 &&
	      has(err, "--json cannot be used with -b"), "--json -b");
}

/* Every option of the reference must be known (rc 0), or refused. */
/* --remote URLs: what is taken apart how, and what is refused. */
static void test_remote(void)
{
	static const struct {
		const char *url, *user, *host, *port;
	} good[] = {
		{ "h", NULL, "h", NULL },
		{ "ssh://h", NULL, "h", NULL },
		{ "ssh://h/", NULL, "h", NULL },
		{ "root@10.0.0.2:2222", "root", "10.0.0.2", "2222" },
		{ "ssh://a.b@host.example:22", "a.b", "host.example", "22" },
		{ "[::1]:2022", NULL, "::1", "2022" },
		{ "ssh://u@[fe80::1]", "u", "fe80::1", NULL },
	};
	static const char *const bad[] = {
		"", "ssh://", "@h", "h:", "h:0", "h:65536", "h:22x", "h:-1",
		"-oProxyCommand=x", "http://h", "[::1", "[]", "[::1]x",
		"h;reboot", "u'x@h", "h/path",
	};
	struct remote_url u;
	size_t i;
	bool ok = true;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		const char *why = cmdline_remote_url(cur->arena, good[i].url,
						     &u);

		if (why || u.direct || strcmp(u.host, good[i].host) ||
		    !!u.user != !!good[i].user ||
		    (u.user && strcmp(u.user, good[i].user)) ||
		    !!u.port != !!good[i].port ||
		    (u.port && strcmp(u.port, good[i].port))) {
			tap_diag("%s: %s", good[i].url, why ? why : "parts");
			ok = false;
		}
	}
	check(ok, "--remote: [ssh://][USER@]HOST[:PORT] taken apart");
	check(!cmdline_remote_url(cur->arena, "direct://", &u) && u.direct,
	      "--remote: direct://");
	ok = true;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (P("--remote", bad[i], "-e", "x", NULL) != 1 ||
		    !has(err, "stap: invalid --remote '")) {
			tap_diag("%s: %s", bad[i], err);
			ok = false;
		}
	}
	check(ok, "--remote: bad URLs are usage errors");
	check(P("--remote=a", "--remote", "b", "--remote-prefix",
		"--remote-staprun=/opt/staprun", "-e", "x", NULL) == 0 &&
	      cur->opt.remotes.n == 2 && cur->opt.remote_prefix &&
	      !strcmp(cur->opt.remote_staprun, "/opt/staprun") &&
	      !strcmp(vec_get(&cur->opt.remotes, 1), "b"),
	      "--remote is repeatable");
	check(P("--remote=a", "--vm", "-e", "x", NULL) == 1 &&
	      has(err, "--remote cannot be used with --vm") &&
	      P("--remote=a", "-r", "6.1.0-1-amd64", "-e", "x", NULL) == 1 &&
	      has(err, "--remote cannot be used with -r") &&
	      P("--remote=a", "-l", "begin", NULL) == 1 &&
	      has(err, "--remote cannot be used with -l"),
	      "--remote with --vm, -r or -l is refused");
}

static void test_every_option(void)
{
	static const char *const known[][3] = {
		{ "-p", "2" }, { "-s", "1" }, { "-I", "d" }, { "-R", "d" },
		{ "-r", "6.1.0" }, { "-a", "x86_64" }, { "-B", "A=1" },
		{ "-D", "A" }, { "-m", "m" }, { "-d", "obj" }, { "-o", "f" },
		{ "-c", "cmd" }, { "-x", "1" }, { "-E", "s" }, { "-S", "1" },
		{ "-T", "1" }, { "-G", "a=1" }, { "-v" }, { "-k" }, { "-g" },
		{ "-P" }, { "-u" }, { "-w" }, { "-W" }, { "-i" }, { "-b" },
		{ "-t" }, { "-F" }, { "-q" }, { "--vp", "1" },
		{ "--skip-badvars" }, { "--prologue-searching" },
		{ "--suppress-handler-errors" }, { "--compatible", "4.8" },
		{ "--check-version" }, { "--clean-cache" },
		{ "--disable-cache" }, { "--poison-cache" }, { "--color" },
		{ "--tmpdir=/tmp" }, { "--privilege=stapdev" },
		{ "--unprivileged" }, { "--ldd" }, { "--all-modules" },
		{ "--sysroot=/" }, { "--runtime=kernel" },
		{ "--modinfo", "a=b" }, { "--rlimit-as=1" },
		{ "--rlimit-cpu=1" }, { "--rlimit-nproc=1" },
		{ "--rlimit-stack=1" }, { "--rlimit-fsize=1" }, { "--vm" },
		{ "--interactive" }, { "--remote=ssh://h" },
		{ "--remote", "h" }, { "--remote-prefix" },
		{ "--monitor" }, { "--monitor=2" },
	};
	static const char *const refused[] = {
		"--use-server", "--use-server=host:4000",
		"--use-server-on-error", "--use-server-on-error=yes",
		"--list-servers", "--list-servers=all", "--trust-servers",
		"--trust-servers=ssl",
		"--dyninst", "--runtime=dyninst", "--download-debuginfo",
		"--download-debuginfo=yes", "--client-options",
		"--benchmark-sdt", "--benchmark-sdt-loops=10",
		"--benchmark-sdt-threads=2", "--save-uprobes",
		"--target-namespaces=1",
		"--use-http-server=u", "--bpf",
	};
	size_t i;
	bool ok = true;

	for (i = 0; i < ARRAY_SIZE(known); i++) {
		if (known[i][1])
			P(known[i][0], known[i][1], "-e", "x", NULL);
		else
			P(known[i][0], "-e", "x", NULL);
		if (*err) {
			tap_diag("%s: %s", known[i][0], err);
			ok = false;
		}
	}
	check(ok, "every option of the reference is accepted");
	ok = true;
	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		char want[128];
		int n = (int)strcspn(refused[i], "=");

		if (!strncmp(refused[i], "--runtime", 9))
			n = (int)strlen(refused[i]);
		snprintf(want, sizeof(want), "stap: option '%.*s' is not "
			 "supported by tapir (", n, refused[i]);
		if (P(refused[i], "-e", "x", NULL) != 1 || !has(err, want)) {
			tap_diag("%s: %s", refused[i], err);
			ok = false;
		}
	}
	check(ok, "servers, dyninst and the rest are refused");
	check(P("-a", "arm64", "-e", "x", NULL) == 1 &&
	      has(err, "stap: option '-a arm64' is not supported by tapir"),
	      "-a arm64 is refused");
	check(P("-a", "ARM;64", "-e", "x", NULL) == 1 &&
	      has(err, "invalid architecture"), "-a with odd characters");
}

static void test_getopt_errors(void)
{
	check(P("--frobnicate", "-e", "x", NULL) == 1 &&
	      has(err, "stap: unrecognized option '--frobnicate'\n") &&
	      has(err, "--help"), "unknown long option");
	check(P("--dump", NULL) == 1 && has(err, "is ambiguous") &&
	      has(err, "'--dump-functions'"), "ambiguous abbreviation");
	check(P("--dump-func", NULL) == 0 && cur->opt.dump_functions,
	      "unambiguous abbreviation");
	check(P("-j", "-e", "x", NULL) == 1 &&
	      has(err, "stap: invalid option '-j'"), "unknown short option");
	check(P("--vm", "-vj", "-e", "x", NULL) == 1 &&
	      has(err, "invalid option '-j'"), "unknown letter in a cluster");
	check(P("-e", "x", "-p", NULL) == 1 &&
	      has(err, "stap: option '-p' requires an argument"),
	      "missing short argument");
	check(P("-e", "x", "--tmpdir", NULL) == 1 &&
	      has(err, "stap: option '--tmpdir' requires an argument"),
	      "missing long argument");
	check(P("--skip-badvars=1", "-e", "x", NULL) == 1 &&
	      has(err, "option '--skip-badvars' does not take an argument"),
	      "argument to a flag");
	check(P("--help=1", NULL) == 1 &&
	      has(err, "option '--help' does not take an argument"),
	      "argument to --help");
}

static bool lines_fit(const char *text, int width)
{
	while (*text) {
		size_t n = strcspn(text, "\n");

		if (n > (size_t)width)
			return false;
		text += n + (text[n] == '\n');
	}
	return true;
}

static void test_help_version(void)
{
	int rc = P("--help", NULL);

	check(rc == 2 && !*err && has(out, "Usage: stap"), "--help");
	check(lines_fit(out, 79), "--help fits 80 columns");
	check(has(out, "  -p NUM ") && has(out, "--vp=DIGITS") &&
	      has(out, "--prologue-searching[=WHEN]") &&
	      has(out, "--use-server[=SERVER]") && has(out, "--vm[=KVER]") &&
	      has(out, "--rlimit-fsize=BYTES") && has(out, "The rc file: "),
	      "--help lists the options and the rc file");
	rc = P("-p9", "-h", NULL);
	check(rc == 1 && !*out, "an error before -h wins");
	rc = P("-h", "-p9", NULL);
	check(rc == 2 && has(out, "Usage: stap"), "-h stops the scan");
	rc = P("-V", NULL);
	check(rc == 2 && has(out, "tapir (SystemTap-compatible) translator "
			     "version ") && has(out, "enabled features:"),
	      "-V");
	rc = P("--version", NULL);
	check(rc == 2 && has(out, "translator version"), "--version");
}

static void test_rc_file(void)
{
	char path[256];
	int rc;

	snprintf(path, sizeof(path), "%s/rc", tmpdir);
	write_file(path, "# defaults for every run\n"
		   "-p2 --vp 01 # per pass\n"
		   "  -D 'NAME=1' \"-DX\"  -I /opt/tap#set\n");
	rc = P("-e", "x", NULL);
	check(rc == 0 && cur->opt.last_pass == 2 &&
	      cur->opt.pass_verbose[1] == 1 && cur->opt.defines.n == 2 &&
	      !strcmp(vec_get(&cur->opt.defines, 0), "NAME=1") &&
	      cur->opt.include_dirs.n == 1 &&
	      !strcmp(vec_get(&cur->opt.include_dirs, 0), "/opt/tap#set"),
	      "rc words come before argv");
	rc = P("-p3", "-e", "x", NULL);
	check(rc == 0 && cur->opt.last_pass == 3,
	      "the command line overrides the rc file");
	write_file(path, "-p 'two\n");
	rc = P("-e", "x", NULL);
	check(rc == 1 && has(err, "unterminated quote"), "rc quote error");
	write_file(path, "-p 9\n");
	rc = P("-e", "x", NULL);
	check(rc == 1 && has(err, "invalid pass number"),
	      "rc options are checked");
	unlink(path);
	rc = P("-e", "x", NULL);
	check(rc == 0 && quiet() && cur->opt.last_pass == 5,
	      "a missing rc file is fine");
}

static void test_kconfig(void)
{
	char path[256];
	struct arena *a = arena_new();
	struct kconfig *kc;

	snprintf(path, sizeof(path), "%s/config", tmpdir);
	write_file(path, "#\n# Automatically generated file; DO NOT EDIT.\n"
		   "CONFIG_CC_VERSION_TEXT=\"gcc (Debian 12.2.0) 12.2.0\"\n"
		   "CONFIG_MODULES=y\r\n"
		   "CONFIG_EXT4_FS=m\n"
		   "CONFIG_NR_CPUS=8192\n"
		   "CONFIG_LOCALVERSION=\"\"\n"
		   "CONFIG_ESC=\"a \\\"q\\\" \\\\ b\"\n"
		   "# CONFIG_UPROBES is not set\n"
		   "CONFIG_LATE=y\n"
		   "# CONFIG_LATE is not set\n"
		   "CONFIG_PHYS=0x1000000\n"
		   "BOGUS=y\n"
		   "CONFIG_NOVALUE\n");
	kc = kconfig_load(a, path);
	check(kc != NULL, "kconfig_load reads a .config");
	check(!strcmp(kconfig_get(kc, "CONFIG_MODULES"), "y") &&
	      !strcmp(kconfig_get(kc, "CONFIG_EXT4_FS"), "m"), "y and m");
	check(!strcmp(kconfig_get(kc, "CONFIG_NR_CPUS"), "8192") &&
	      !strcmp(kconfig_get(kc, "CONFIG_PHYS"), "0x1000000"),
	      "numbers");
	check(!strcmp(kconfig_get(kc, "CONFIG_CC_VERSION_TEXT"),
		      "gcc (Debian 12.2.0) 12.2.0") &&
	      !strcmp(kconfig_get(kc, "CONFIG_LOCALVERSION"), ""),
	      "strings lose their quotes");
	check(!strcmp(kconfig_get(kc, "CONFIG_ESC"), "a \"q\" \\ b"),
	      "string escapes");
	check(!kconfig_get(kc, "CONFIG_UPROBES") &&
	      !kconfig_get(kc, "CONFIG_LATE") &&
	      !kconfig_get(kc, "CONFIG_MISSING") &&
	      !kconfig_get(kc, "BOGUS") && !kconfig_get(kc, "CONFIG_NOVALUE"),
	      "unset, absent and malformed are NULL");
	check(!kconfig_get(NULL, "CONFIG_MODULES"), "a NULL kconfig");
	check(!kconfig_load(a, "/nonexistent/.config"), "a missing file");
	arena_free(a);
}

static void test_kernel(void)
{
	char dir[256], sub[300], file[320];
	struct utsname u;
	int rc;

	uname(&u);
	snprintf(dir, sizeof(dir), "%s/linux-build", tmpdir);
	snprintf(sub, sizeof(sub), "%s/include/config", dir);
	mkdir(dir, 0700);
	snprintf(file, sizeof(file), "%s/include", dir);
	mkdir(file, 0700);
	mkdir(sub, 0700);
	snprintf(file, sizeof(file), "%s/kernel.release", sub);
	write_file(file, "6.1.0-27-amd64\n");
	snprintf(file, sizeof(file), "%s/.config", dir);
	write_file(file, "CONFIG_UPROBES=y\n# CONFIG_KPROBES is not set\n");

	P("-r", dir, "-e", "x", NULL);
	rc = captured(do_kernel, 0, NULL);
	check(rc == 0 && quiet(), "kernel_target_init is silent");
	check(!strcmp(cur->kernel_vr, "6.1.0-27-amd64") &&
	      !strcmp(cur->kernel_v, "6.1.0"), "release from the tree");
	check(!strcmp(cur->opt.kernel_build_dir, dir), "-r DIR is the tree");
	check(cur->kconfig && !strcmp(kconfig_get(cur->kconfig,
						  "CONFIG_UPROBES"), "y") &&
	      !kconfig_get(cur->kconfig, "CONFIG_KPROBES"),
	      ".config of the tree");

	P("-r", "6.12.12+bpo-amd64", "-a", "x86_64", "-e", "x", NULL);
	rc = captured(do_kernel, 0, NULL);
	check(rc == 0 && !strcmp(cur->kernel_vr, "6.12.12+bpo-amd64") &&
	      !strcmp(cur->kernel_v, "6.12.12") &&
	      !strcmp(cur->arch_name, "x86_64"), "-r RELEASE");
	check(!strcmp(cur->opt.kernel_build_dir,
		      "/lib/modules/6.12.12+bpo-amd64/build") && !cur->kconfig,
	      "-r RELEASE: build dir, no .config");

	P("--sysroot=/", "-r", "6.1.0-1-amd64", "-e", "x", NULL);
	captured(do_kernel, 0, NULL);
	check(!strcmp(cur->opt.kernel_build_dir,
		      "//lib/modules/6.1.0-1-amd64/build"),
	      "--sysroot prefixes the build dir");

	P("--vm=6.1.0-9-amd64", "-e", "x", NULL);
	rc = captured(do_kernel, 0, NULL);
	check(rc == 0 && !strcmp(cur->kernel_vr, "6.1.0-9-amd64"),
	      "--vm=KVER is the target release");

	P("-e", "x", NULL);
	rc = captured(do_kernel, 0, NULL);
	check(rc == 0 && !strcmp(cur->kernel_vr, u.release) && quiet(),
	      "the running kernel by default");
	check(!strcmp(u.machine, "x86_64") ?
	      !strcmp(cur->arch_name, "x86_64") : cur->arch_name != NULL,
	      "arch from uname");

	snprintf(file, sizeof(file), "%s/empty-tree", tmpdir);
	mkdir(file, 0700);
	P("-r", file, "-e", "x", NULL);
	rc = captured(do_kernel, 0, NULL);
	check(rc == -1 && has(err, "stap: cannot tell the kernel release"),
	      "-r DIR without kernel.release");
}

static void cleanup(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	/* Keep the tester's own rc file out of the results. */
	setenv("SYSTEMTAP_DIR", tmpdir, 1);
	test_scripts();
	test_too_many_args();
	test_argv_untouched();
	test_numbers();
	test_verbosity();
	test_patterns();
	test_privilege();
	test_listing();
	test_modes();
	test_json();
	test_every_option();
	test_remote();
	test_getopt_errors();
	test_help_version();
	test_rc_file();
	test_kconfig();
	test_kernel();
	drop_session();
	cleanup();
	return tap_done();
}
