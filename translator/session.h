/* session.h - the one struct that carries a translator run.
 * Every pass takes the session: options from the command line, the arena
 * that owns the AST, the parsed files and the diagnostics counters.
 */
#ifndef TAPIR_SESSION_H
#define TAPIR_SESSION_H

#include "util.h"

#define STAP_MAX_ARGS 256

enum privilege {
	PRIV_STAPUSR,
	PRIV_STAPSYS,
	PRIV_STAPDEV,
};

/* Everything the command line (and $SYSTEMTAP_DIR/rc) can say. */
struct stap_options {
	int last_pass;			/* -p N, 1..5; default 5 */
	int verbose;			/* -v count */
	int pass_verbose[5];		/* --vp ABCDE */
	bool keep_tmpdir;		/* -k */
	bool guru;			/* -g */
	bool prologue_searching;	/* -P */
	const char *prologue_mode;	/* --prologue-searching[=WHEN] */
	bool unoptimized;		/* -u */
	bool no_warnings;		/* -w */
	bool warnings_as_errors;	/* -W */
	bool interactive;		/* -i */
	bool bulk;			/* -b */
	bool json;			/* --json, -f json (doc/json.md) */
	unsigned int json_fields;	/* --json-fields: STP_JSON_FIELD_* */
	int buffer_mb;			/* -s MB, 0 = default */
	bool timing;			/* -t */
	int monitor;			/* --monitor[=SEC]: SEC, 0 = off */
	struct vec include_dirs;	/* -I DIR (const char *) */
	const char *runtime_dir;	/* -R DIR */
	const char *kernel_release;	/* -r RELEASE */
	const char *kernel_build_dir;	/* -r DIR */
	const char *arch;		/* -a ARCH */
	struct vec kbuild_opts;		/* -B NAME=VAL */
	struct vec defines;		/* -D NAME[=VAL] */
	const char *module_name;	/* -m NAME */
	struct vec debug_objs;		/* -d OBJ */
	bool ldd;			/* --ldd */
	bool all_modules;		/* --all-modules */
	const char *output_file;	/* -o FILE */
	const char *target_cmd;		/* -c CMD */
	long target_pid;		/* -x PID, 0 = none */
	const char *script_text;	/* -e SCRIPT */
	const char *script_file;	/* FILE or "-" */
	struct vec extra_scripts;	/* -E SCRIPT */
	const char *list_pattern;	/* -l PP / -L PP */
	bool list_vars;			/* -L */
	bool flight_recorder;		/* -F */
	const char *rotate;		/* -S MB[,N] */
	long timeout_secs;		/* -T SEC */
	struct vec global_sets;		/* -G var=val */
	bool tapset_coverage;		/* -q */
	bool skip_badvars;		/* --skip-badvars */
	bool suppress_handler_errors;	/* --suppress-handler-errors */
	bool suppress_time_limits;	/* --suppress-time-limits */
	const char *compatible;		/* --compatible V */
	bool check_version;		/* --check-version */
	bool clean_cache;		/* --clean-cache */
	bool disable_cache;		/* --disable-cache */
	bool poison_cache;		/* --poison-cache */
	const char *color;		/* --color[=WHEN] */
	const char *tmpdir;		/* --tmpdir=D */
	enum privilege privilege;	/* --privilege / --unprivileged */
	bool privilege_set;
	bool dump_probe_types;		/* --dump-probe-types */
	bool dump_probe_aliases;	/* --dump-probe-aliases */
	bool dump_functions;		/* --dump-functions */
	bool run_example;		/* --example: FILE is an example */
	const char *sysroot;		/* --sysroot */
	struct vec sysenv;		/* --sysenv VAR=VAL */
	const char *runtime_mode;	/* --runtime=kernel */
	struct vec modinfo;		/* --modinfo N=V */
	const char *vm_kernel;		/* --vm[=KVER]; "" = default */
	bool use_vm;
	struct vec remotes;		/* --remote URL (const char *) */
	bool remote_prefix;		/* --remote-prefix */
	const char *remote_staprun;	/* --remote-staprun PATH */
	int rlimit_as, rlimit_cpu, rlimit_nproc, rlimit_stack, rlimit_fsize;
	struct vec args;		/* script arguments $1..$N */
};

struct stapfile;
struct kernel_types;
struct diag_state;
struct sc_table;

struct session {
	struct arena *arena;
	struct stap_options opt;
	const char *argv0_dir;		/* directory of the stap binary */
	const char *tapset_dir;		/* installed/in-tree tapset root */
	const char *runtime_root;	/* installed/in-tree runtime root */
	/* target kernel facts for the preprocessor */
	const char *kernel_v;		/* "6.1.0" */
	const char *kernel_vr;		/* "6.1.0-27-amd64" */
	const char *arch_name;		/* "x86_64" */
	struct kconfig *kconfig;	/* CONFIG_* of the target, may be NULL */
	/* parsed input */
	struct stapfile *user_file;
	struct vec user_files;		/* user script and -E scripts */
	struct vec library_files;	/* tapset files pulled in */
	struct tapset_index *tindex;
	struct vec lib_macros;		/* struct macro * from .stpm files */
	bool lib_macros_loaded;
	/* pass 2 results */
	struct vec globals;		/* struct vardecl * */
	struct vec functions;		/* struct func * */
	struct vec probes;		/* struct derived_probe * */
	struct vec embeds;		/* struct embedded * */
	bool arg_used[STAP_MAX_ARGS];	/* $N/@N seen in any file */
	/* analyze.c */
	bool analyzed;
	int call_depth;			/* deepest call chain of any probe */
	bool recursive;			/* some call chain recurses */
	int max_nesting;		/* MAXNESTING it asks for */
	struct kernel_types *ktypes;	/* target.c: loaded on first use */
	struct sc_table *syscalls;	/* providers/syscall.c: the kernel's
					 * system call numbers, read once */
	struct sc_table *syscalls32;	/* and its 32-bit (compat) ones */
	struct vec user_objs;		/* struct uelf *: programs and
					 * libraries of process probes */
	struct vec cast_headers;	/* struct cast_header *: C headers
					 * compiled for @cast (target.c) */
	/* pass 4 for --remote (remote.c) */
	bool remote_build;		/* leave the module to the caller */
	const char *built_ko;		/* the module built */
	const char *built_name;		/* the name the kernel knows it by */
	const char *built_tmp;		/* its directory to remove, or NULL */
	/* diagnostics */
	int errors;
	int warnings;
};

/* kconfig.c: CONFIG_* values of a kernel build tree. */
struct kconfig;
struct kconfig *kconfig_load(struct arena *a, const char *path);
const char *kconfig_get(const struct kconfig *kc, const char *name);

#endif
