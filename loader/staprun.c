/* staprun.c - the loader's front-end stage: staprun's command line, the
 * checks on the module and its var=val arguments, and the privilege
 * check, before run.c takes the module through its life.
 */
#include "staprun.h"
#include "modload.h"
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef TAPIR_VERSION
#define TAPIR_VERSION "unknown"
#endif

/* The kernel keeps module names in MODULE_NAME_LEN (64 - sizeof(long))
 * bytes including the NUL; a longer name could never be loaded.
 */
#define MODULE_NAME_MAX 55
#define BUFFER_MB_MAX 4095

static const char optstring[] = "vVwu::c:x:t:N:o:bs:S:DT:LAdRr:C:M:F:ih";
static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("Usage: staprun [OPTIONS] MODULE [var=val ...]\n"
	      "Load a tapir kernel module, copy its output and unload it.\n"
	      "\n"
	      "  -v           more messages (repeat for more)\n"
	      "  -V           print the version and exit\n"
	      "  -w           suppress the script's warnings\n"
	      "  -u[PATH]     load uprobes.ko (or the one at PATH) first\n"
	      "  -c CMD       run CMD; target() is its pid; exit with it\n"
	      "  -x PID       set target() to PID (-t PID is the same)\n"
	      "  -N PID       use the namespaces of PID\n"
	      "  -o FILE      write output to FILE (strftime patterns)\n"
	      "  -b           bulk mode: one output file per CPU\n"
	      "  -s MB        buffer size, 1-4095 MB (per CPU in bulk mode)\n"
	      "  -S MB[,N]    switch to a new output file every MB,\n"
	      "               keeping at most N files (needs -o)\n"
	      "  -D           run in the background (needs -o)\n"
	      "  -T SECS      stop the script after SECS seconds\n"
	      "  -L           load and start the module, then detach\n"
	      "  -A           attach to a module that is already loaded\n"
	      "  -d           unload a detached module ('*' for all)\n"
	      "  -R           give the module a unique name when loading\n"
	      "  -r N:URI     remote id and URI, for stap --remote\n"
	      "  -C WHEN      colour messages: never, always or auto\n"
	      "  -M S         monitor mode, refresh every S seconds\n"
	      "  -F FD        use the already open control channel FD\n"
	      "  -i           pass standard input to the script's input.*\n"
	      "               probes (the -c command reads /dev/null)\n"
	      "  -h           print this help and exit\n"
	      "\n"
	      "A MODULE without '/' or '.ko' is looked up in\n"
	      "/lib/modules/RELEASE/systemtap/MODULE.ko.\n", f);
}

static void short_usage(void)
{
	fputs("Usage: staprun [OPTIONS] MODULE [var=val ...]\n"
	      "Try 'staprun -h' for the list of options.\n", stderr);
}

/* A usage error: the message, then the synopsis, not the whole help. */
static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("staprun: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	short_usage();
	return -EINVAL;
}

/* Strict decimal parsing: the whole string, within [min, max]. */
static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static int parse_int_opt(char opt, const char *arg, long min, long max,
			 long *out)
{
	if (parse_long(arg, min, max, out) == 0)
		return 0;
	return usage_error("-%c: '%s' is not a number from %ld to %ld", opt,
			   arg, min, max);
}

/* An int-sized option value; *out is left alone on error. */
static int parse_int_field(char opt, const char *arg, long min, long max,
			   int *out)
{
	long v;
	int err = parse_int_opt(opt, arg, min, max, &v);

	if (!err)
		*out = (int)v;
	return err;
}

/* -S MB[,N] */
static int parse_rotate(struct staprun_options *o, const char *arg)
{
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);
	char mb[32];

	if (n >= sizeof(mb))
		return usage_error("-S: '%s' is not MB[,N]", arg);
	memcpy(mb, arg, n);
	mb[n] = '\0';
	if (parse_int_opt('S', mb, 1, LONG_MAX / (1024 * 1024),
			  &o->rotate_mb))
		return -EINVAL;
	return comma ? parse_int_field('S', comma + 1, 1, INT_MAX,
				       &o->rotate_count) : 0;
}

/* -r N:URI, as stap --remote passes it down. */
static int parse_remote(struct staprun_options *o, const char *arg)
{
	const char *colon = strchr(arg, ':');
	char id[16];

	if (!colon || colon == arg || !colon[1] ||
	    (size_t)(colon - arg) >= sizeof(id))
		return usage_error("-r: expected N:URI, got '%s'", arg);
	memcpy(id, arg, (size_t)(colon - arg));
	id[colon - arg] = '\0';
	o->remote_uri = colon + 1;
	return parse_int_field('r', id, 0, INT_MAX, &o->remote_id);
}

static int parse_color(struct staprun_options *o, const char *arg)
{
	if (!strcmp(arg, "never"))
		o->color = STAPRUN_COLOR_NEVER;
	else if (!strcmp(arg, "always"))
		o->color = STAPRUN_COLOR_ALWAYS;
	else if (!strcmp(arg, "auto"))
		o->color = STAPRUN_COLOR_AUTO;
	else
		return usage_error("-C: '%s' is not never, always or auto",
				   arg);
	return 0;
}

/* getopt's own messages name argv[0]; ours say "staprun". */
static int bad_option(const char *word)
{
	if (optopt && strchr(optstring, optopt))
		return usage_error("option -%c needs an argument", optopt);
	if (optopt)
		return usage_error("unknown option -%c", optopt);
	return usage_error("unknown option %s", word);
}

static int set_action(struct staprun_options *o, enum staprun_action a,
		      char opt)
{
	if (o->action != STAPRUN_LOAD && o->action != a)
		return usage_error("-%c: only one of -L, -A and -d may be "
				   "given", opt);
	o->action = a;
	return 0;
}

static int parse_option(struct staprun_options *o, int c, const char *arg)
{
	switch (c) {
	case 'v':
		o->verbose++;
		return 0;
	case 'V':
		o->version = true;
		return 0;
	case 'w':
		o->no_warnings = true;
		return 0;
	case 'u':
		o->load_uprobes = true;
		o->uprobes_path = arg;
		return 0;
	case 'c':
		o->target_cmd = arg;
		return 0;
	case 'x':
	case 't':
		return parse_int_opt((char)c, arg, 1, INT_MAX, &o->target_pid);
	case 'N':
		return parse_int_opt('N', arg, 1, INT_MAX, &o->namespaces_pid);
	case 'o':
		o->output_file = arg;
		return 0;
	case 'b':
		o->bulk = true;
		return 0;
	case 's':
		return parse_int_field('s', arg, 1, BUFFER_MB_MAX,
				       &o->buffer_mb);
	case 'S':
		return parse_rotate(o, arg);
	case 'D':
		o->daemon = true;
		return 0;
	case 'T':
		return parse_int_field('T', arg, 1, INT_MAX,
				       &o->time_limit);
	case 'L':
		return set_action(o, STAPRUN_LOAD_DETACH, 'L');
	case 'A':
		return set_action(o, STAPRUN_ATTACH, 'A');
	case 'd':
		return set_action(o, STAPRUN_DELETE, 'd');
	case 'R':
		o->rename = true;
		return 0;
	case 'r':
		return parse_remote(o, arg);
	case 'C':
		return parse_color(o, arg);
	case 'M':
		o->monitor = true;
		return parse_int_field('M', arg, 1, INT_MAX,
				       &o->monitor_interval);
	case 'F':
		return parse_int_field('F', arg, 0, INT_MAX, &o->relay_fd);
	case 'i':
		o->read_stdin = true;
		return 0;
	case 'h':
		o->help = true;
		return 0;
	default:
		return -EINVAL;
	}
}

static bool is_word_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* n characters of [A-Za-z0-9_]; a C identifier when !digit_first. */
static bool is_word(const char *s, size_t n, bool digit_first)
{
	size_t i;

	if (!n || (!digit_first && s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; i < n; i++)
		if (!is_word_char(s[i]))
			return false;
	return true;
}

/* Module arguments set script globals: NAME=VALUE, each NAME once. */
static int check_module_vars(const struct staprun_options *o)
{
	int i, j;

	for (i = 0; i < o->nmodule_vars; i++) {
		const char *a = o->module_vars[i];
		const char *eq = strchr(a, '=');

		if (!eq || !is_word(a, (size_t)(eq - a), false))
			return usage_error("bad module argument '%s': "
					   "expected name=value", a);
		for (j = 0; j < i; j++) {
			const char *b = o->module_vars[j];

			if (!strncmp(a, b, (size_t)(eq - a) + 1)) {
				fprintf(stderr, "staprun: variable '%.*s' is "
					"set twice\n", (int)(eq - a), a);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* Options that only make sense together, or not together. */
static int check_combinations(const struct staprun_options *o)
{
	if (o->target_cmd && o->target_pid)
		return usage_error("-c and -x/-t exclude each other");
	if (o->daemon && !o->output_file)
		return usage_error("-D needs an output file (-o FILE)");
	if (o->rotate_mb && !o->output_file)
		return usage_error("-S needs an output file (-o FILE)");
	if (o->action == STAPRUN_DELETE && o->nmodule_vars)
		return usage_error("-d takes a module, not module "
				   "arguments");
	if (o->action == STAPRUN_ATTACH && o->nmodule_vars)
		return usage_error("-A takes a module, not module "
				   "arguments");
	if ((o->action == STAPRUN_ATTACH ||
	     o->action == STAPRUN_LOAD_DETACH) &&
	    (o->target_cmd || o->target_pid))
		return usage_error("-c and -x need a staprun that stays: "
				   "not with -L or -A");
	if (o->action == STAPRUN_LOAD_DETACH && o->time_limit)
		return usage_error("-T needs a staprun that stays: not with "
				   "-L");
	if (o->action == STAPRUN_LOAD_DETACH && (o->output_file ||
						 o->daemon))
		return usage_error("-L leaves the output in the module: for "
				   "an output file, use -D -o FILE instead");
	return 0;
}

static void set_defaults(struct staprun_options *o)
{
	const char *env = getenv("SYSTEMTAP_VERBOSE");
	long v;

	memset(o, 0, sizeof(*o));
	o->action = STAPRUN_LOAD;
	o->remote_id = -1;
	o->relay_fd = -1;
	if (env && parse_long(env, 0, 100, &v) == 0)
		o->verbose = (int)v;
}

int staprun_parse_args(struct staprun_options *o, int argc, char **argv)
{
	int c, err;

	set_defaults(o);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, optstring, long_options,
				NULL)) != -1) {
		err = c == '?' ? bad_option(argv[optind - 1]) :
				 parse_option(o, c, optarg);
		if (err)
			return err;
	}
	if (o->help || o->version)
		return 0;
	if (optind >= argc)
		return usage_error("no module given");
	o->module_arg = argv[optind++];
	o->module_vars = argv + optind;
	o->nmodule_vars = argc - optind;
	err = check_module_vars(o);
	return err ?: check_combinations(o);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* A malloc'd formatted string, or NULL when memory runs out. */
static char *str_printf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static char *str_printf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	p = malloc((size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* NAME from DIR/NAME.ko, as the kernel will know the module. */
static int module_name_from_path(struct staprun_options *o)
{
	const char *base = strrchr(o->module_path, '/');
	size_t n;

	base = base ? base + 1 : o->module_path;
	n = strlen(base) - strlen(".ko");
	if (n > MODULE_NAME_MAX || !is_word(base, n, true)) {
		fprintf(stderr, "staprun: '%.*s' is not a valid module name "
			"(at most %d letters, digits and '_')\n", (int)n, base,
			MODULE_NAME_MAX);
		return -EINVAL;
	}
	o->module_name = malloc(n + 1);
	if (!o->module_name)
		return -ENOMEM;
	memcpy(o->module_name, base, n);
	o->module_name[n] = '\0';
	return 0;
}

/* A module to insert must be a regular file we can read. */
static int check_module_file(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		int err = -errno;

		fprintf(stderr, "staprun: cannot use module '%s': %s\n", path,
			strerror(-err));
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "staprun: module '%s' is not a regular file\n",
			path);
		return -EINVAL;
	}
	if (access(path, R_OK) < 0) {
		int err = -errno;

		fprintf(stderr, "staprun: cannot read module '%s': %s\n", path,
			strerror(-err));
		return err;
	}
	return 0;
}

int staprun_resolve_module(struct staprun_options *o, const char *release)
{
	const char *arg = o->module_arg;
	int err;

	/* "-d '*'" means every detached module: there is no file. */
	if (o->action == STAPRUN_DELETE && !strcmp(arg, "*"))
		return 0;
	if (ends_with(arg, ".ko"))
		o->module_path = str_printf("%s", arg);
	else if (strchr(arg, '/'))
		o->module_path = str_printf("%s.ko", arg);
	else
		o->module_path = str_printf("/lib/modules/%s/systemtap/%s.ko",
					    release, arg);
	if (!o->module_path)
		return -ENOMEM;
	err = module_name_from_path(o);
	if (err)
		return err;
	if (o->action == STAPRUN_LOAD || o->action == STAPRUN_LOAD_DETACH)
		return check_module_file(o->module_path);
	return 0;
}

void staprun_free_options(struct staprun_options *o)
{
	free(o->module_path);
	free(o->module_name);
	o->module_path = NULL;
	o->module_name = NULL;
}

static const char *const action_text[] = {
	[STAPRUN_LOAD] = "loading modules",
	[STAPRUN_LOAD_DETACH] = "loading and detaching modules",
	[STAPRUN_ATTACH] = "attaching to modules",
	[STAPRUN_DELETE] = "unloading modules",
};

static void print_plan(const struct staprun_options *o)
{
	int i;

	fprintf(stderr, "staprun: module %s (%s)\n",
		o->module_name ? o->module_name : "*",
		o->module_path ? o->module_path : "every detached module");
	for (i = 0; i < o->nmodule_vars; i++)
		fprintf(stderr, "staprun: module argument %s\n",
			o->module_vars[i]);
}

/* Options the parser knows but this version cannot honour: refused, so
 * that nobody believes their output is rotated or their run detached.
 */
static const char *unsupported_option(const struct staprun_options *o)
{
	if (o->rename)
		return "-R";
	if (o->remote_id >= 0)
		return "-r";
	if (o->relay_fd >= 0)
		return "-F";
	if (o->namespaces_pid)
		return "-N";
	return NULL;
}

/* The exit status: 0, or 1 after any failure or script error. */
static int run(struct staprun_options *o)
{
	const char *opt = unsupported_option(o);
	struct utsname u;
	int err;

	if (opt) {
		fprintf(stderr, "staprun: %s is not supported in this "
			"version\n", opt);
		return 1;
	}
	if (uname(&u) < 0) {
		perror("staprun: uname");
		return 1;
	}
	err = staprun_resolve_module(o, u.release);
	if (err) {
		if (err == -ENOMEM)
			fputs("staprun: out of memory\n", stderr);
		return 1;
	}
	if (o->verbose)
		print_plan(o);
	/* Everything past this point asks the kernel for something. */
	if (geteuid() != 0) {
		fprintf(stderr, "staprun: %s needs root; this version does "
			"not support the stapusr and stapdev groups\n",
			action_text[o->action]);
		return 1;
	}
	if (o->action == STAPRUN_DELETE)
		return modload_delete(o->module_name ? o->module_name : "*",
				      o->verbose) ? 1 : 0;
	if (o->action == STAPRUN_ATTACH && modload_attachable(o->module_name))
		return 1;
	return run_module(o);
}

/* A standard descriptor closed at the start is given /dev/null, so
 * that no file staprun opens later (the module's control and relay
 * files) becomes its stdout or stderr.  Returns whether fd FD was
 * closed.
 */
static bool std_fd_fill(int fd)
{
	int nfd;

	if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
		return false;
	nfd = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
	if (nfd >= 0 && nfd != fd) {
		dup2(nfd, fd);
		close(nfd);
	}
	return true;
}

int main(int argc, char **argv)
{
	struct staprun_options opts;
	bool out_closed;
	int err, status = 0;

	std_fd_fill(STDIN_FILENO);
	out_closed = std_fd_fill(STDOUT_FILENO);
	std_fd_fill(STDERR_FILENO);
	err = staprun_parse_args(&opts, argc, argv);
	opts.stdout_closed = out_closed;
	if (!err && opts.help)
		usage(stdout);
	else if (!err && opts.version)
		printf("tapir staprun (module loader) version %s\n",
		       TAPIR_VERSION);
	else if (!err)
		status = run(&opts);
	staprun_free_options(&opts);
	if (err == -ENOMEM)
		fputs("staprun: out of memory\n", stderr);
	return err ? 1 : status;
}
