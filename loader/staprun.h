/* staprun.h - staprun's options, shared by the loader's stages: the
 * command line as parsed and checked, and the module it names.
 */
#ifndef TAPIR_STAPRUN_H
#define TAPIR_STAPRUN_H

#include <stdbool.h>

/* What the run does with the module. */
enum staprun_action {
	STAPRUN_LOAD,		/* insert, run, unload (default) */
	STAPRUN_LOAD_DETACH,	/* -L: insert, start, leave running */
	STAPRUN_ATTACH,		/* -A: attach to a loaded module */
	STAPRUN_DELETE,		/* -d: unload a detached module */
};

enum staprun_color {
	STAPRUN_COLOR_AUTO,
	STAPRUN_COLOR_NEVER,
	STAPRUN_COLOR_ALWAYS,
};

struct staprun_options {
	enum staprun_action action;
	int verbose;			/* -v count */
	bool no_warnings;		/* -w */
	bool load_uprobes;		/* -u[path] */
	const char *uprobes_path;	/* NULL = the default uprobes.ko */
	const char *target_cmd;		/* -c CMD */
	long target_pid;		/* -x / -t PID, 0 = none */
	long namespaces_pid;		/* -N PID, 0 = none */
	const char *output_file;	/* -o FILE (strftime pattern) */
	bool bulk;			/* -b: one output file per CPU */
	int buffer_mb;			/* -s MB, 0 = module's choice */
	long rotate_mb;			/* -S MB[,N], 0 = no rotation */
	int rotate_count;		/* N of -S, 0 = unlimited */
	bool daemon;			/* -D */
	int time_limit;			/* -T SECS, 0 = none */
	bool rename;			/* -R */
	int remote_id;			/* -r N:URI, -1 = none */
	const char *remote_uri;
	enum staprun_color color;	/* -C WHEN */
	bool monitor;			/* -M S */
	int monitor_interval;
	int relay_fd;			/* -F fd, -1 = none */
	bool read_stdin;		/* -i: feed stdin to __stdin */
	bool help;			/* -h */
	bool version;			/* -V */
	/* positional arguments */
	const char *module_arg;		/* as given: path or bare name */
	char **module_vars;		/* var=val...: part of argv */
	int nmodule_vars;
	bool stdout_closed;		/* fd 1 was closed at the start */
	/* filled by staprun_resolve_module() */
	char *module_path;		/* malloc'd */
	char *module_name;		/* malloc'd, no directory or .ko */
};

/* Parse argv into opts.  0 on success, -EINVAL on a usage error (the
 * message is already printed).  Fills defaults first.
 */
int staprun_parse_args(struct staprun_options *opts, int argc,
		       char **argv);
/* Work out the module's path and name; a bare name is looked up under
 * /lib/modules/RELEASE/systemtap.  0 or -errno (message printed).
 */
int staprun_resolve_module(struct staprun_options *opts,
			   const char *release);
void staprun_free_options(struct staprun_options *opts);

#endif
