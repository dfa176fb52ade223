/* cmdline.c - the stap command line.  One table describes every option:
 * it drives getopt_long, stores plain values, names the options tapir
 * refuses, and prints --help.  The rc file's words go before argv.
 */
#include "cmdline.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <regex.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TAPIR_VERSION
#ifdef PACKAGE_VERSION
#define TAPIR_VERSION PACKAGE_VERSION
#else
#define TAPIR_VERSION "0.1"
#endif
#endif

/* configure requires both libdw and libbpf, so both type sources are
 * always built in; a build without one would define TAPIR_NO_*.
 */
#ifdef TAPIR_NO_BTF
#define FEATURE_BTF ""
#else
#define FEATURE_BTF " BTF"
#endif
#ifdef TAPIR_NO_DWARF
#define FEATURE_DWARF ""
#else
#define FEATURE_DWARF " DWARF"
#endif

/* A kernel module name must fit the kernel's MODULE_NAME_LEN (64 minus
 * a pointer on 64-bit) with its NUL.
 */
#define MODULE_NAME_MAX 55

/* Why an option is refused: in its message and in --help. */
#define WHY_SERVER "modules are always built locally"
#define WHY_RUNTIME "only the kernel runtime exists"
#define WHY_BENCH "there is no built-in SDT benchmark"

struct cl_state {
	struct session *s;
	struct stap_options *o;
	bool pass_given;
	int list_modes;			/* -l, -L and --dump-* seen */
	bool sysroot_seen;
};

typedef int (*opt_fn)(struct cl_state *st, const char *arg);

enum opt_kind {
	K_HEAD,		/* a heading in --help, not an option */
	K_FLAG,		/* sets a bool in stap_options */
	K_STR,		/* stores the argument in a const char * */
	K_VEC,		/* appends the argument to a struct vec */
	K_RLIMIT,	/* a positive int for --rlimit-* */
	K_CALL,		/* validated by a handler */
	K_REFUSED,	/* recognised, then refused with the reason */
};

struct cl_opt {
	const char *lname;		/* long name, or NULL */
	char sname;			/* short letter, or 0 */
	char has_arg;			/* no_/required_/optional_argument */
	char kind;			/* enum opt_kind */
	size_t off;			/* field of stap_options */
	opt_fn fn;			/* K_CALL */
	const char *arg;		/* argument name in --help */
	const char *help;		/* --help line; the reason if refused */
};

/* ------------------------------------------------------------------ */
/* Reporting                                                          */

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("stap: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CMDLINE_USAGE;
}

/* After errors where the user may not know the command line at all. */
static int usage_hint(int rc)
{
	fputs("Try 'stap --help' for more information.\n", stderr);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Argument checks                                                    */

static bool re_match(const char *re, const char *s)
{
	regex_t rx;
	bool ok;

	/* Case-insensitive, as the established tool checks its options. */
	if (regcomp(&rx, re, REG_EXTENDED | REG_ICASE | REG_NOSUB) != 0)
		return false;
	ok = regexec(&rx, s, 0, NULL, 0) == 0;
	regfree(&rx);
	return ok;
}

/* A whole decimal number in [min, max]; no sign, no spaces. */
static bool parse_num(const char *arg, long min, long max, long *out)
{
	char *end;
	long v;

	if (!*arg || !strchr("0123456789", *arg))
		return false;
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static struct vec *vec_field(struct stap_options *o, size_t off)
{
	return (struct vec *)((char *)o + off);
}

/* ------------------------------------------------------------------ */
/* Handlers: script and passes                                        */

static int opt_script_text(struct cl_state *st, const char *arg)
{
	if (st->o->script_text)
		return usage_error("only one -e script may be given");
	st->o->script_text = arg;
	return 0;
}

static int opt_pass(struct cl_state *st, const char *arg)
{
	long n;

	if (!parse_num(arg, 1, 5, &n))
		return usage_error("invalid pass number '%s' for -p "
				   "(expected 1-5)", arg);
	st->o->last_pass = (int)n;
	st->pass_given = true;
	return 0;
}

static int opt_verbose(struct cl_state *st, const char *arg)
{
	int i;

	(void)arg;
	st->o->verbose++;
	for (i = 0; i < 5; i++)
		st->o->pass_verbose[i]++;
	return 0;
}

static int opt_vp(struct cl_state *st, const char *arg)
{
	size_t i, n = strlen(arg);

	if (n < 1 || n > 5 || strspn(arg, "0123456789") != n)
		return usage_error("invalid --vp argument '%s' (expected 1 "
				   "to 5 digits, one per pass)", arg);
	for (i = 0; i < n; i++)
		st->o->pass_verbose[i] += arg[i] - '0';
	return 0;
}

static int list_mode(struct cl_state *st)
{
	if (st->list_modes++)
		return usage_error("only one of -l, -L and --dump-* may be "
				   "given");
	return 0;
}

static int opt_list(struct cl_state *st, const char *arg)
{
	st->o->list_pattern = arg;
	/* Listing resolves probes that may not all exist: stay quiet. */
	st->o->no_warnings = true;
	return list_mode(st);
}

static int opt_list_vars(struct cl_state *st, const char *arg)
{
	st->o->list_pattern = arg;
	st->o->list_vars = true;
	st->o->no_warnings = true;
	/* Unused variables must survive to be listed. */
	st->o->unoptimized = true;
	return list_mode(st);
}

static int opt_dump_types(struct cl_state *st, const char *arg)
{
	(void)arg;
	st->o->dump_probe_types = true;
	return list_mode(st);
}

static int opt_dump_aliases(struct cl_state *st, const char *arg)
{
	(void)arg;
	st->o->dump_probe_aliases = true;
	st->o->no_warnings = true;
	return list_mode(st);
}

static int opt_dump_functions(struct cl_state *st, const char *arg)
{
	(void)arg;
	st->o->dump_functions = true;
	st->o->no_warnings = true;
	/* Every function is unused here; elision would drop them all. */
	st->o->unoptimized = true;
	return list_mode(st);
}

static int opt_help(struct cl_state *st, const char *arg)
{
	(void)st;
	(void)arg;
	cmdline_usage(stdout);
	return CMDLINE_DONE;
}

static int opt_version(struct cl_state *st, const char *arg)
{
	(void)st;
	(void)arg;
	cmdline_version(stdout);
	return CMDLINE_DONE;
}

/* ------------------------------------------------------------------ */
/* Handlers: language and checks                                      */

static int opt_prologue_p(struct cl_state *st, const char *arg)
{
	(void)arg;
	st->o->prologue_searching = true;
	st->o->prologue_mode = "always";
	return 0;
}

static int opt_prologue(struct cl_state *st, const char *arg)
{
	if (!arg)
		arg = "always";
	if (strcmp(arg, "always") && strcmp(arg, "never") &&
	    strcmp(arg, "auto"))
		return usage_error("invalid argument '%s' for "
				   "--prologue-searching (expected always, "
				   "never or auto)", arg);
	st->o->prologue_mode = arg;
	st->o->prologue_searching = strcmp(arg, "always") == 0;
	return 0;
}

static int opt_compatible(struct cl_state *st, const char *arg)
{
	if (!re_match("^[0-9]+(\\.[0-9]+)*$", arg))
		return usage_error("invalid version '%s' for --compatible "
				   "(expected e.g. 4.8)", arg);
	st->o->compatible = arg;
	return 0;
}

static int set_privilege(struct cl_state *st, enum privilege p)
{
	if (st->o->privilege_set && st->o->privilege != p)
		return usage_error("the privilege level may be set only once");
	st->o->privilege = p;
	st->o->privilege_set = true;
	return 0;
}

static int opt_privilege(struct cl_state *st, const char *arg)
{
	if (strcmp(arg, "stapusr") == 0)
		return set_privilege(st, PRIV_STAPUSR);
	if (strcmp(arg, "stapsys") == 0)
		return set_privilege(st, PRIV_STAPSYS);
	if (strcmp(arg, "stapdev") == 0)
		return set_privilege(st, PRIV_STAPDEV);
	return usage_error("invalid argument '%s' for --privilege (expected "
			   "stapusr, stapsys or stapdev)", arg);
}

static int opt_unprivileged(struct cl_state *st, const char *arg)
{
	(void)arg;
	return set_privilege(st, PRIV_STAPUSR);
}

static int opt_define(struct cl_state *st, const char *arg)
{
	if (!re_match("^[a-z_][a-z_0-9]*(=-?[a-z_0-9]+)?$", arg))
		return usage_error("invalid -D argument '%s' (expected NAME "
				   "or NAME=VALUE, in letters, digits and _)",
				   arg);
	vec_push(st->s->arena, &st->o->defines, (void *)arg);
	return 0;
}

static int opt_global(struct cl_state *st, const char *arg)
{
	if (!re_match("^[a-z_][a-z0-9_]*=[a-z0-9_.-]+$", arg))
		return usage_error("invalid -G argument '%s' (expected "
				   "VAR=VALUE; VALUE in letters, digits and "
				   "_ . -)", arg);
	vec_push(st->s->arena, &st->o->global_sets, (void *)arg);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Handlers: target kernel and build                                  */

static int opt_release(struct cl_state *st, const char *arg)
{
	if (!*arg)
		return usage_error("-r needs a kernel release or a build "
				   "directory");
	/* A release never contains '/': anything with one is a tree. */
	if (strchr(arg, '/')) {
		st->o->kernel_build_dir = arg;
		st->o->kernel_release = NULL;
	} else {
		st->o->kernel_release = arg;
		st->o->kernel_build_dir = NULL;
	}
	return 0;
}

static int opt_arch(struct cl_state *st, const char *arg)
{
	if (!re_match("^[a-z0-9_-]+$", arg))
		return usage_error("invalid architecture '%s' for -a", arg);
	if (strcmp(arg, "x86_64") != 0)
		return usage_error("option '-a %s' is not supported by tapir "
				   "(only x86_64 is a target)", arg);
	st->o->arch = arg;
	return 0;
}

static int opt_module(struct cl_state *st, const char *arg)
{
	size_t n = strlen(arg);

	/* modprobe would look for NAME.ko.ko otherwise. */
	if (n > 3 && strcmp(arg + n - 3, ".ko") == 0)
		n -= 3;
	if (n == 0)
		return usage_error("the module name given with -m is empty");
	arg = arena_strndup(st->s->arena, arg, n);
	if (!re_match("^[a-z0-9_]+$", arg))
		return usage_error("invalid module name '%s' for -m (only "
				   "letters, digits and _)", arg);
	if (n > MODULE_NAME_MAX)
		return usage_error("module name '%s' is too long (at most %d "
				   "characters)", arg, MODULE_NAME_MAX);
	/* run_backend() skips the module cache for a named module; the
	 * cache of compile probes stays in use.
	 */
	st->o->module_name = arg;
	return 0;
}

static int opt_keep(struct cl_state *st, const char *arg)
{
	(void)arg;
	/* The kept directory must hold a real build, not a cache hit:
	 * run_backend() skips the module cache with -k.
	 */
	st->o->keep_tmpdir = true;
	return 0;
}

static int opt_modinfo(struct cl_state *st, const char *arg)
{
	if (!re_match("^[a-z_][a-z0-9_]*=.+$", arg))
		return usage_error("invalid --modinfo argument '%s' "
				   "(expected NAME=VALUE)", arg);
	vec_push(st->s->arena, &st->o->modinfo, (void *)arg);
	return 0;
}

static int opt_debug_obj(struct cl_state *st, const char *arg)
{
	if (!*arg)
		return usage_error("the object given with -d is empty");
	vec_push(st->s->arena, &st->o->debug_objs, (void *)arg);
	return 0;
}

static int opt_sysroot(struct cl_state *st, const char *arg)
{
	char *path;

	if (st->sysroot_seen)
		return usage_error("--sysroot may be given only once");
	path = realpath(arg, NULL);
	if (!path)
		return usage_error("invalid --sysroot directory '%s': %s", arg,
				   strerror(errno));
	st->o->sysroot = arena_strdup(st->s->arena, path);
	free(path);
	st->sysroot_seen = true;
	return 0;
}

static int opt_sysenv(struct cl_state *st, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg)
		return usage_error("invalid --sysenv argument '%s' (expected "
				   "VAR=VALUE)", arg);
	vec_push(st->s->arena, &st->o->sysenv, (void *)arg);
	return 0;
}

static int opt_runtime(struct cl_state *st, const char *arg)
{
	if (strcmp(arg, "kernel") == 0) {
		st->o->runtime_mode = "kernel";
		return 0;
	}
	if (strcmp(arg, "dyninst") == 0 || strcmp(arg, "bpf") == 0)
		return usage_error("option '--runtime=%s' is not supported by "
				   "tapir (%s)", arg, WHY_RUNTIME);
	return usage_error("invalid argument '%s' for --runtime (expected "
			   "kernel)", arg);
}

static int rlimit(const char *lname, const char *arg, int *out)
{
	char *end;
	unsigned long v;

	/* strtoul alone would take a sign and wrap it. */
	errno = 0;
	v = *arg && strchr("0123456789", *arg) ? strtoul(arg, &end, 0) : 0;
	if (!v || errno || *end || v > INT_MAX)
		return usage_error("invalid --%s value '%s' (expected a "
				   "number from 1 to %d)", lname, arg, INT_MAX);
	*out = (int)v;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Handlers: running                                                  */

static int opt_cmd(struct cl_state *st, const char *arg)
{
	if (!*arg)
		return usage_error("the command given with -c is empty");
	st->o->target_cmd = arg;
	return 0;
}

static int opt_pid(struct cl_state *st, const char *arg)
{
	long pid;

	if (!parse_num(arg, 1, INT_MAX, &pid))
		return usage_error("invalid process ID '%s' for -x (expected "
				   "a positive number)", arg);
	st->o->target_pid = pid;
	return 0;
}

static int opt_bufsize(struct cl_state *st, const char *arg)
{
	long mb;

	if (!parse_num(arg, 1, 4095, &mb))
		return usage_error("invalid buffer size '%s' for -s (expected "
				   "1-4095 MB)", arg);
	st->o->buffer_mb = (int)mb;
	return 0;
}

static int opt_timeout(struct cl_state *st, const char *arg)
{
	long sec;

	if (!parse_num(arg, 1, LONG_MAX, &sec))
		return usage_error("invalid timeout '%s' for -T (expected a "
				   "positive number of seconds)", arg);
	st->o->timeout_secs = sec;
	return 0;
}

static int opt_rotate(struct cl_state *st, const char *arg)
{
	if (!re_match("^[0-9]+(,[0-9]+)?$", arg))
		return usage_error("invalid -S argument '%s' (expected "
				   "MB or MB,N)", arg);
	st->o->rotate = arg;
	return 0;
}

static int opt_color(struct cl_state *st, const char *arg)
{
	if (!arg)
		arg = "always";
	if (strcmp(arg, "always") && strcmp(arg, "never") &&
	    strcmp(arg, "auto"))
		return usage_error("invalid argument '%s' for --color "
				   "(expected always, never or auto)", arg);
	st->o->color = arg;
	return 0;
}

/* -f FORMAT, as bpftrace users type it: json or text. */
static int opt_format(struct cl_state *st, const char *arg)
{
	if (!strcmp(arg, "json"))
		st->o->json = true;
	else if (!strcmp(arg, "text"))
		st->o->json = false;
	else
		return usage_error("invalid argument '%s' for -f (expected "
				   "json or text)", arg);
	return 0;
}

static int opt_json(struct cl_state *st, const char *arg)
{
	(void)arg;
	st->o->json = true;
	return 0;
}

/* --json-fields=probe,cpu,time (or all): implies --json.  The bits are
 * those of runtime/msg.h, which the module hands to staprun.
 */
static int opt_json_fields(struct cl_state *st, const char *arg)
{
	static const struct { const char *name; unsigned int bit; } f[] = {
		{ "probe", 1u << 1 }, { "cpu", 1u << 2 }, { "time", 1u << 3 },
		{ "all", 7u << 1 },
	};
	const char *p = arg;
	size_t n, i;

	st->o->json = true;
	st->o->json_fields = 0;
	while (*p) {
		n = strcspn(p, ",");
		for (i = 0; i < ARRAY_SIZE(f); i++)
			if (strlen(f[i].name) == n && !strncmp(p, f[i].name, n))
				break;
		if (i == ARRAY_SIZE(f))
			return usage_error("invalid field '%.*s' for "
					   "--json-fields (expected probe, "
					   "cpu, time or all)", (int)n, p);
		st->o->json_fields |= f[i].bit;
		p += n + (p[n] == ',');
	}
	return 0;
}

/* --monitor[=SEC]: the live view, refreshed every SEC seconds (1). */
static int opt_monitor(struct cl_state *st, const char *arg)
{
	long sec = 1;

	if (arg && !parse_num(arg, 1, 3600, &sec))
		return usage_error("invalid interval '%s' for --monitor "
				   "(expected 1-3600 seconds)", arg);
	st->o->monitor = (int)sec;
	return 0;
}

static int opt_vm(struct cl_state *st, const char *arg)
{
	st->o->use_vm = true;
	st->o->vm_kernel = arg ? arg : "";
	return 0;
}

/* [ssh://][USER@]HOST[:PORT], HOST a name, an IPv4 address or an IPv6
 * one in brackets; or direct://.
 */
const char *cmdline_remote_url(struct arena *a, const char *url,
			       struct remote_url *u)
{
	const char *p = url, *at, *end;

	memset(u, 0, sizeof(*u));
	if (!strcmp(url, "direct://")) {
		u->direct = true;
		return NULL;
	}
	if (!strncmp(p, "ssh://", 6))
		p += 6;
	else if (strstr(p, "://"))
		return "only ssh:// and direct:// are supported";
	at = strrchr(p, '@');
	if (at) {
		if (at == p)
			return "empty user name";
		u->user = arena_strndup(a, p, (size_t)(at - p));
		p = at + 1;
	}
	if (*p == '[') {
		end = strchr(p, ']');
		if (!end || end == p + 1)
			return "unterminated IPv6 address";
		u->host = arena_strndup(a, p + 1, (size_t)(end - p - 1));
		p = end + 1;
		if (*p && *p != ':')
			return "text after the IPv6 address";
	} else {
		end = p + strcspn(p, ":/");
		u->host = arena_strndup(a, p, (size_t)(end - p));
		p = end;
	}
	if (*p == ':') {
		u->port = ++p;
		if (!re_match("^[0-9]{1,5}$", p) || atoi(p) == 0 ||
		    atoi(p) > 65535)
			return "the port must be a number from 1 to 65535";
	} else if (*p == '/' && !p[1]) {
		/* ssh://host/ */
	} else if (*p) {
		return "unexpected text after the host";
	}
	if (!*u->host)
		return "no host";
	if (u->host[0] == '-' || strpbrk(u->host, " \t'\"\\$;&|<>`"))
		return "not a host name";
	if (u->user && (u->user[0] == '-' ||
			strpbrk(u->user, " \t'\"\\$;&|<>`:/")))
		return "not a user name";
	return NULL;
}

static int opt_remote(struct cl_state *st, const char *arg)
{
	struct remote_url u;
	const char *why = cmdline_remote_url(st->s->arena, arg, &u);

	if (why)
		return usage_error("invalid --remote '%s': %s", arg, why);
	vec_push(st->s->arena, &st->o->remotes, (void *)arg);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The rc file                                                        */

static const char *data_dir(struct arena *a)
{
	const char *d = getenv("SYSTEMTAP_DIR");
	const char *home;

	if (d && *d)
		return d;
	home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());

		home = pw ? pw->pw_dir : "";
	}
	return arena_printf(a, "%s/.systemtap", home);
}

/* One word of the rc file starting at *pp: quotes group, a backslash
 * escapes the next character; no other shell expansion happens.
 */
static char *rc_word(struct arena *a, const char **pp, bool *bad_quote)
{
	struct strbuf sb;
	const char *p = *pp;
	char quote = 0, *w;

	sb_init(&sb);
	for (; *p && (quote || !strchr(" \t\r\n", *p)); p++) {
		if (quote && *p == quote) {
			quote = 0;
		} else if (!quote && (*p == '\'' || *p == '"')) {
			quote = *p;
			sb_putn(&sb, "", 0);
		} else if (*p == '\\' && p[1] && quote != '\'') {
			sb_putc(&sb, *++p);
		} else {
			sb_putc(&sb, *p);
		}
	}
	*bad_quote = quote != 0;
	*pp = p;
	w = arena_strdup(a, sb.buf ? sb.buf : "");
	sb_free(&sb);
	return w;
}

/* Split the rc text into words; '#' at the start of a word comments
 * out the rest of its line.
 */
static int rc_split(struct arena *a, const char *path, const char *text,
		    struct vec *words)
{
	const char *p = text;
	bool bad_quote;

	for (;;) {
		p += strspn(p, " \t\r\n");
		if (!*p)
			return 0;
		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		vec_push(a, words, rc_word(a, &p, &bad_quote));
		if (bad_quote)
			return usage_error("%s: unterminated quote", path);
	}
}

static int rc_read(struct arena *a, struct vec *words)
{
	const char *path = arena_printf(a, "%s/rc", data_dir(a));
	char *text = read_file(path, NULL);
	int rc;

	if (!text) {
		/* Having no rc file is the usual case. */
		if (errno != ENOENT && errno != ENOTDIR)
			fprintf(stderr, "stap: warning: cannot read %s: %s\n",
				path, strerror(errno));
		return 0;
	}
	rc = rc_split(a, path, text, words);
	free(text);
	return rc;
}

/* argv[0], the rc words, then the rest of argv: a private copy, since
 * getopt_long reorders what it scans.
 */
static char **build_argv(struct arena *a, int argc, char **argv,
			 const struct vec *rc, int *nargc)
{
	char **v = arena_alloc(a, sizeof(*v) * (size_t)(argc + rc->n + 1));
	int i, n = 0;

	v[n++] = argc > 0 ? argv[0] : "stap";
	for (i = 0; i < rc->n; i++)
		v[n++] = vec_get(rc, i);
	for (i = 1; i < argc; i++)
		v[n++] = argv[i];
	v[n] = NULL;
	*nargc = n;
	return v;
}

/* ------------------------------------------------------------------ */
/* The option table                                                   */

#define OFF(field) offsetof(struct stap_options, field)
#define HEAD(h) { NULL, 0, 0, K_HEAD, 0, NULL, NULL, h }
#define FLAG(l, s, field, h) \
	{ l, s, no_argument, K_FLAG, OFF(field), NULL, NULL, h }
#define STR(l, s, field, a, h) \
	{ l, s, required_argument, K_STR, OFF(field), NULL, a, h }
#define VEC(l, s, field, a, h) \
	{ l, s, required_argument, K_VEC, OFF(field), NULL, a, h }
#define RLIM(l, field, a, h) \
	{ l, 0, required_argument, K_RLIMIT, OFF(field), NULL, a, h }
#define CALL(l, s, has, fn, a, h) { l, s, has, K_CALL, 0, fn, a, h }
#define REFUSE(l, has, a, why) { l, 0, has, K_REFUSED, 0, NULL, a, why }

#define NO no_argument
#define REQ required_argument
#define OPT optional_argument

static const struct cl_opt options[] = {
	HEAD("Script and passes:"),
	CALL(NULL, 'e', REQ, opt_script_text, "SCRIPT",
	     "run the script given as text instead of FILE"),
	VEC(NULL, 'E', extra_scripts, "SCRIPT",
	    "add SCRIPT to the main script (repeatable)"),
	CALL(NULL, 'p', REQ, opt_pass, "NUM",
	     "stop after pass NUM, 1-5 (default 5)"),
	CALL(NULL, 'v', NO, opt_verbose, NULL,
	     "more verbose in every pass (repeatable)"),
	CALL("vp", 0, REQ, opt_vp, "DIGITS",
	     "add verbosity per pass, one digit per pass"),
	CALL(NULL, 'l', REQ, opt_list, "PROBE",
	     "list the probe points matching PROBE"),
	CALL(NULL, 'L', REQ, opt_list_vars, "PROBE",
	     "the same, with their $variables and types"),
	CALL("dump-probe-types", 0, NO, opt_dump_types, NULL,
	     "list the probe point families"),
	CALL("dump-probe-aliases", 0, NO, opt_dump_aliases, NULL,
	     "list the probe aliases of the tapsets"),
	CALL("dump-functions", 0, NO, opt_dump_functions, NULL,
	     "list the functions of the tapsets"),
	FLAG("example", 0, run_example,
	     "FILE names one of the example scripts shipped with\n"
	     "tapir (NAME or NAME.stp); alone, list them"),
	FLAG("interactive", 'i', interactive, "interactive mode"),
	CALL("help", 'h', NO, opt_help, NULL, "show this help and exit"),
	CALL("version", 'V', NO, opt_version, NULL,
	     "show the version and exit"),

	HEAD("Language and checks:"),
	FLAG(NULL, 'g', guru, "guru mode: embedded C, writes to the kernel"),
	FLAG(NULL, 'u', unoptimized, "keep and check unused code"),
	FLAG(NULL, 'w', no_warnings, "suppress warnings"),
	FLAG(NULL, 'W', warnings_as_errors, "treat warnings as errors"),
	CALL(NULL, 'P', NO, opt_prologue_p, NULL,
	     "same as --prologue-searching=always"),
	CALL("prologue-searching", 0, OPT, opt_prologue, "WHEN",
	     "put function probes after the prologue: always,\n"
	     "never or auto (no WHEN means always)"),
	FLAG("skip-badvars", 0, skip_badvars,
	     "read unresolvable $variables as 0"),
	CALL("compatible", 0, REQ, opt_compatible, "VERSION",
	     "treat scripts as SystemTap VERSION would"),
	FLAG("check-version", 0, check_version,
	     "warn about version-dependent constructs"),
	CALL("privilege", 0, REQ, opt_privilege, "LEVEL",
	     "check the script against LEVEL: stapusr,\n"
	     "stapsys or stapdev (the default)"),
	CALL("unprivileged", 0, NO, opt_unprivileged, NULL,
	     "same as --privilege=stapusr"),
	VEC(NULL, 'I', include_dirs, "DIR",
	    "also look for tapset files in DIR"),
	CALL(NULL, 'D', REQ, opt_define, "NAME[=VAL]",
	     "define a C macro in the module, e.g. a limit"),
	CALL(NULL, 'G', REQ, opt_global, "VAR=VAL",
	     "start global variable VAR with VAL"),
	FLAG(NULL, 'q', tapset_coverage, "record which tapset code is used"),

	HEAD("Target kernel and build:"),
	CALL(NULL, 'r', REQ, opt_release, "DIR|REL",
	     "build for the kernel build tree DIR, or for\n"
	     "release REL (/lib/modules/REL/build)"),
	CALL(NULL, 'a', REQ, opt_arch, "ARCH",
	     "target architecture; only x86_64"),
	STR(NULL, 'R', runtime_dir, "DIR", "use the runtime sources in DIR"),
	VEC(NULL, 'B', kbuild_opts, "NAME=VAL",
	    "pass NAME=VAL to the kernel's make"),
	CALL(NULL, 'm', REQ, opt_module, "NAME",
	     "name the module NAME and keep NAME.ko"),
	CALL(NULL, 'k', NO, opt_keep, NULL,
	     "keep the temporary directory (no cache)"),
	STR("tmpdir", 0, tmpdir, "DIR", "make the temporary directory in DIR"),
	CALL("modinfo", 0, REQ, opt_modinfo, "NAME=VAL",
	     "add MODULE_INFO(NAME, VAL) to the module"),
	CALL(NULL, 'd', REQ, opt_debug_obj, "OBJ",
	     "add symbol and unwind data for OBJ"),
	FLAG("ldd", 0, ldd, "the same for the shared libraries they use"),
	FLAG("all-modules", 0, all_modules,
	     "the same for every loaded kernel module"),
	CALL("sysroot", 0, REQ, opt_sysroot, "DIR",
	     "find the target's files under DIR"),
	CALL("sysenv", 0, REQ, opt_sysenv, "VAR=VAL",
	     "VAR has VAL on the target (with --sysroot)"),
	CALL("runtime", 0, REQ, opt_runtime, "MODE",
	     "runtime to build for; only kernel"),
	FLAG("clean-cache", 0, clean_cache, "trim the cache to its limits"),
	FLAG("disable-cache", 0, disable_cache,
	     "neither read nor fill the cache"),
	FLAG("poison-cache", 0, poison_cache,
	     "rebuild everything and refresh the cache"),
	RLIM("rlimit-as", rlimit_as, "BYTES",
	     "limit the translator's address space"),
	RLIM("rlimit-cpu", rlimit_cpu, "SECONDS",
	     "limit the translator's CPU time"),
	RLIM("rlimit-nproc", rlimit_nproc, "N",
	     "limit the translator's processes"),
	RLIM("rlimit-stack", rlimit_stack, "BYTES",
	     "limit the translator's stack"),
	RLIM("rlimit-fsize", rlimit_fsize, "BYTES",
	     "limit the size of files the translator writes"),

	HEAD("Running:"),
	CALL(NULL, 'c', REQ, opt_cmd, "CMD",
	     "run CMD as target(); stop when it exits"),
	CALL(NULL, 'x', REQ, opt_pid, "PID", "set target() to PID"),
	STR(NULL, 'o', output_file, "FILE",
	    "write the output to FILE (strftime escapes)"),
	FLAG(NULL, 'b', bulk, "bulk mode: one output file per CPU"),
	CALL("json", 0, NO, opt_json, NULL,
	     "print JSON objects, one per line (doc/json.md)"),
	CALL(NULL, 'f', REQ, opt_format, "FORMAT",
	     "output format: text (default) or json"),
	CALL("json-fields", 0, REQ, opt_json_fields, "LIST",
	     "with --json: add probe, cpu and/or time to\n"
	     "each printf object (comma-separated, or all)"),
	CALL(NULL, 's', REQ, opt_bufsize, "MB",
	     "output buffer size in MB, 1-4095"),
	FLAG(NULL, 't', timing, "report time spent in each probe"),
	CALL(NULL, 'T', REQ, opt_timeout, "SEC",
	     "stop the script after SEC seconds"),
	FLAG(NULL, 'F', flight_recorder,
	     "flight recorder: load the module and detach"),
	CALL(NULL, 'S', REQ, opt_rotate, "MB[,N]",
	     "new -o file every MB megabytes, keep N"),
	FLAG("suppress-handler-errors", 0, suppress_handler_errors,
	     "skip a failing handler instead of stopping"),
	FLAG("suppress-time-limits", 0, suppress_time_limits,
	     "drop MAXACTION and overload limits (-g)"),
	CALL("color", 0, OPT, opt_color, "WHEN",
	     "colour diagnostics: always, never or auto\n"
	     "(no WHEN means always)"),
	CALL("monitor", 0, OPT, opt_monitor, "SEC",
	     "full-screen live view of probes and globals,\n"
	     "refreshed every SEC seconds (default 1)"),
	CALL("vm", 0, OPT, opt_vm, "KVER",
	     "run the script in a QEMU VM booting KVER"),
	CALL("remote", 0, REQ, opt_remote, "URL",
	     "run on [ssh://][USER@]HOST[:PORT] over ssh, or\n"
	     "here with direct:// (repeatable)"),
	FLAG("remote-prefix", 0, remote_prefix,
	     "prefix each line of remote output with \"N: \""),
	STR("remote-staprun", 0, remote_staprun, "PATH",
	    "run staprun from PATH on the hosts"),

	HEAD("Recognised, but not provided by tapir:"),
	REFUSE("use-server", OPT, "SERVER", WHY_SERVER),
	REFUSE("use-server-on-error", OPT, "yes|no", WHY_SERVER),
	REFUSE("use-http-server", REQ, "URL", WHY_SERVER),
	REFUSE("list-servers", OPT, "WHICH", WHY_SERVER),
	REFUSE("trust-servers", OPT, "SPEC", WHY_SERVER),
	REFUSE("client-options", NO, NULL, WHY_SERVER),
	REFUSE("dyninst", NO, NULL, WHY_RUNTIME),
	REFUSE("bpf", NO, NULL, WHY_RUNTIME),
	REFUSE("download-debuginfo", OPT, "WHEN",
	       "BTF stands in for missing debuginfo"),
	REFUSE("benchmark-sdt", NO, NULL, WHY_BENCH),
	REFUSE("benchmark-sdt-loops", REQ, "N", WHY_BENCH),
	REFUSE("benchmark-sdt-threads", REQ, "N", WHY_BENCH),
	REFUSE("save-uprobes", NO, NULL, "the kernel's own uprobes are used"),
	REFUSE("target-namespaces", REQ, "PID",
	       "there is no namespace targeting"),
};

#define NOPTS ((int)ARRAY_SIZE(options))
/* getopt_long returns this plus the table index for long-only options. */
#define LONG_BASE 256

/* ------------------------------------------------------------------ */
/* getopt_long glue                                                   */

static void build_getopt(char *shorts, struct option *longs)
{
	int i, ns = 0, nl = 0;

	/* Leading ':' makes a missing argument return ':', not '?'. */
	shorts[ns++] = ':';
	for (i = 0; i < NOPTS; i++) {
		const struct cl_opt *o = &options[i];

		if (o->sname) {
			shorts[ns++] = o->sname;
			if (o->has_arg == required_argument)
				shorts[ns++] = ':';
		}
		if (o->lname) {
			longs[nl].name = o->lname;
			longs[nl].has_arg = o->has_arg;
			longs[nl].flag = NULL;
			longs[nl].val = o->sname ? o->sname : LONG_BASE + i;
			nl++;
		}
	}
	shorts[ns] = '\0';
	memset(&longs[nl], 0, sizeof(longs[nl]));
}

static const struct cl_opt *find_option(int c)
{
	int i;

	if (c >= LONG_BASE && c < LONG_BASE + NOPTS)
		return &options[c - LONG_BASE];
	for (i = 0; c > 0 && i < NOPTS; i++)
		if (options[i].sname == c)
			return &options[i];
	return NULL;
}

/* The long options that "--text[=...]" abbreviates, as getopt sees it;
 * called only when getopt found no single one.
 */
static int long_matches(const char *text, struct strbuf *names)
{
	size_t n = strcspn(text, "=");
	int i, count = 0;

	for (i = 0; i < NOPTS; i++) {
		const char *l = options[i].lname;

		if (!l || strncmp(l, text, n) != 0)
			continue;
		sb_printf(names, " '--%s'", l);
		count++;
	}
	return count;
}

static int bad_long_option(const char *word)
{
	struct strbuf names;
	const char *text = word + 2;
	int len = (int)strcspn(text, "=");

	sb_init(&names);
	if (long_matches(text, &names) > 1)
		usage_error("option '--%.*s' is ambiguous; it could be%s",
			    len, text, names.buf);
	else
		usage_error("unrecognized option '--%.*s'", len, text);
	sb_free(&names);
	return usage_hint(CMDLINE_USAGE);
}

/* getopt_long said '?' (bad option) or ':' (missing argument).  optopt
 * tells which: 0 for an unknown long option, the option's value when a
 * known one lacks or wrongly has an argument, else the unknown letter.
 */
static int getopt_error(int c, char **argv)
{
	const struct cl_opt *o = find_option(optopt);

	if (c == ':' && o && o->lname && !o->sname)
		usage_error("option '--%s' requires an argument", o->lname);
	else if (c == ':')
		usage_error("option '-%c' requires an argument", optopt);
	else if (o && o->lname)
		usage_error("option '--%s' does not take an argument",
			    o->lname);
	else if (optopt == 0)
		return bad_long_option(argv[optind - 1]);
	else
		usage_error("invalid option '-%c'", optopt);
	return usage_hint(CMDLINE_USAGE);
}

static int refuse(const struct cl_opt *o)
{
	return usage_error("option '--%s' is not supported by tapir (%s)",
			   o->lname, o->help);
}

static int apply_option(struct cl_state *st, const struct cl_opt *o,
			const char *arg)
{
	char *base = (char *)st->o;

	switch (o->kind) {
	case K_FLAG:
		*(bool *)(base + o->off) = true;
		return 0;
	case K_STR:
		*(const char **)(base + o->off) = arg;
		return 0;
	case K_VEC:
		vec_push(st->s->arena, vec_field(st->o, o->off), (void *)arg);
		return 0;
	case K_RLIMIT:
		return rlimit(o->lname, arg, (int *)(base + o->off));
	case K_CALL:
		return o->fn(st, arg);
	case K_REFUSED:
		return refuse(o);
	default:
		return usage_error("internal error: option table entry");
	}
}

static int scan_options(struct cl_state *st, int argc, char **argv)
{
	char shorts[2 + 2 * ARRAY_SIZE(options)];
	struct option longs[ARRAY_SIZE(options) + 1];
	int c, rc;

	build_getopt(shorts, longs);
	optind = 0;		/* glibc: start over, even after a prior scan */
	opterr = 0;		/* our messages say "stap:", not argv[0] */
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct cl_opt *o;

		if (c == '?' || c == ':')
			return getopt_error(c, argv);
		o = find_option(c);
		if (!o)
			return usage_error("internal error: option %d", c);
		rc = apply_option(st, o, optarg);
		if (rc)
			return rc;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Whole-command-line checks                                          */

/* FILE comes first unless -e or a listing mode gave the script. */
static int take_operands(struct cl_state *st, int argc, char **argv)
{
	struct stap_options *o = st->o;
	int i = optind;

	if (!o->script_text && !st->list_modes && i < argc)
		o->script_file = argv[i++];
	if (argc - i > STAP_MAX_ARGS)
		return usage_error("too many script arguments (at most %d)",
				   STAP_MAX_ARGS);
	for (; i < argc; i++)
		vec_push(st->s->arena, &o->args, argv[i]);
	return 0;
}

static const char *privilege_text(enum privilege p)
{
	switch (p) {
	case PRIV_STAPUSR:
		return "stapusr";
	case PRIV_STAPSYS:
		return "stapsys";
	default:
		return "stapdev";
	}
}

static int check_listing(struct cl_state *st)
{
	struct stap_options *o = st->o;

	if (!st->list_modes)
		return 0;
	if (o->script_text)
		return usage_error("a script cannot be given with -l, -L or "
				   "--dump-*");
	if (st->pass_given && o->last_pass != 5)
		return usage_error("-p cannot be used with -l, -L or "
				   "--dump-*");
	if (o->interactive)
		return usage_error("-i cannot be used with -l, -L or "
				   "--dump-*");
	return 0;
}

/* The kernel, the listing and the way of running come from the hosts
 * under --remote.
 */
static int check_remote(struct cl_state *st)
{
	struct stap_options *o = st->o;

	if (o->use_vm)
		return usage_error("--remote cannot be used with --vm");
	if (o->monitor)
		return usage_error("--remote cannot be used with --monitor: "
				   "there is one terminal");
	if (o->kernel_release || o->kernel_build_dir)
		return usage_error("--remote cannot be used with -r: each "
				   "host's kernel is asked for");
	if (st->list_modes)
		return usage_error("--remote cannot be used with -l, -L or "
				   "--dump-*");
	if (o->interactive)
		return usage_error("--remote cannot be used with -i");
	if (o->sysroot)
		return usage_error("--remote cannot be used with --sysroot");
	return 0;
}

static int check_combinations(struct cl_state *st)
{
	struct stap_options *o = st->o;
	int rc = check_listing(st);

	if (rc)
		return rc;
	if (o->run_example && (o->script_text || st->list_modes))
		return usage_error("--example cannot be used with -e, -l, -L "
				   "or --dump-*");
	if (!o->script_text && !o->script_file && !st->list_modes &&
	    !o->interactive && !o->run_example && !o->clean_cache)
		return usage_hint(usage_error("no script specified"));
	if (o->target_cmd && o->target_pid)
		return usage_error("-c and -x cannot be used together");
	if (o->guru && o->privilege != PRIV_STAPDEV)
		return usage_error("-g cannot be used with --privilege=%s",
				   privilege_text(o->privilege));
	if (o->suppress_time_limits && !o->guru)
		return usage_error("--suppress-time-limits needs guru mode "
				   "(-g)");
	if (o->sysenv.n && !o->sysroot)
		return usage_error("--sysenv needs --sysroot");
	if (o->json && o->bulk)
		return usage_error("--json cannot be used with -b");
	if (o->remotes.n)
		return check_remote(st);
	return 0;
}

static void set_defaults(struct stap_options *o)
{
	memset(o, 0, sizeof(*o));
	o->last_pass = 5;
	o->privilege = PRIV_STAPDEV;
	o->prologue_mode = "auto";
	o->color = "auto";
	o->runtime_mode = "kernel";
}

int cmdline_parse(struct session *s, int argc, char **argv)
{
	struct cl_state st = { .s = s, .o = &s->opt };
	struct vec rc_words = { 0 };
	char **args;
	int nargs, rc;

	set_defaults(&s->opt);
	rc = rc_read(s->arena, &rc_words);
	if (rc)
		return rc;
	args = build_argv(s->arena, argc, argv, &rc_words, &nargs);
	rc = scan_options(&st, nargs, args);
	if (!rc)
		rc = take_operands(&st, nargs, args);
	if (!rc)
		rc = check_combinations(&st);
	return rc;
}

/* ------------------------------------------------------------------ */
/* --help and -V                                                      */

#define HELP_COL 28

static void option_left(const struct cl_opt *o, struct strbuf *sb)
{
	if (o->sname && o->lname)
		sb_printf(sb, "-%c, --%s", o->sname, o->lname);
	else if (o->sname)
		sb_printf(sb, "-%c", o->sname);
	else
		sb_printf(sb, "    --%s", o->lname);
	if (!o->arg)
		return;
	if (o->has_arg == optional_argument)
		sb_printf(sb, "[=%s]", o->arg);
	else
		sb_printf(sb, o->lname ? "=%s" : " %s", o->arg);
}

/* Two columns; a long left side pushes the text to the next line, and
 * a '\n' in the text continues it under the same column.
 */
static void print_option(FILE *out, const struct cl_opt *o)
{
	struct strbuf left;
	const char *h = o->help;
	int pad;

	sb_init(&left);
	option_left(o, &left);
	fprintf(out, "  %s", left.buf);
	pad = HELP_COL - 2 - (int)left.len;
	if (pad < 2) {
		fputc('\n', out);
		pad = HELP_COL;
	}
	while (*h) {
		int n = (int)strcspn(h, "\n");

		fprintf(out, "%*s%.*s\n", pad, "", n, h);
		h += n + (h[n] == '\n');
		pad = HELP_COL;
	}
	sb_free(&left);
}

void cmdline_usage(FILE *out)
{
	struct arena *a = arena_new();
	int i;

	fputs("Usage: stap [OPTION]... FILE [ARG]...      run the script "
	      "in FILE (- = stdin)\n"
	      "   or: stap [OPTION]... -e SCRIPT [ARG]...  run the script "
	      "given as text\n"
	      "   or: stap [OPTION]... -l PROBE            list matching "
	      "probe points\n"
	      "   or: stap [OPTION]... -L PROBE            the same, with "
	      "their variables\n"
	      "   or: stap [OPTION]... --dump-probe-types  list the probe "
	      "point families\n"
	      "   or: stap [OPTION]... --dump-probe-aliases|--dump-functions"
	      "\n"
	      "   or: stap [OPTION]... --example [NAME [ARG]...]\n", out);
	fprintf(out, "\nOptions are read from the rc file first, then from "
		"the command line.\nThe rc file: %s/rc\n", data_dir(a));
	for (i = 0; i < NOPTS; i++) {
		if (options[i].kind == K_HEAD)
			fprintf(out, "\n%s\n", options[i].help);
		else
			print_option(out, &options[i]);
	}
	fputs("\nEach ARG is a script argument: $1 or @1 (quoted) and so on; "
	      "$# counts them.\n"
	      "Give -- before the first ARG that starts with '-'.\n"
	      "See stap(1), stapprobes(3stap) and stapfuncs(3stap).\n", out);
	arena_free(a);
}

void cmdline_version(FILE *out)
{
	fprintf(out, "tapir (SystemTap-compatible) translator version %s\n",
		TAPIR_VERSION);
	fprintf(out, "enabled features:%s%s\n", FEATURE_BTF, FEATURE_DWARF);
}
