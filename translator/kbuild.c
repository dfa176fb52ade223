/* kbuild.c - pass 4: build the generated C into NAME.ko with the target
 * kernel's own kbuild, after detecting kernel API differences with
 * compile probes (cached per kernel), and the module cache keyed by a
 * SHA-256 of everything that affects the module.
 */
#define _GNU_SOURCE
#include "cache.h"
#include "diag.h"
#include "kbuild.h"
#include "sha256.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TAPIR_VERSION
#define TAPIR_VERSION "0.1"
#endif

/* One kernel API question, answered by whether this compiles. */
struct conf_probe {
	const char *macro;
	const char *code;
};

static const struct conf_probe conf_probes[] = {
	{ "STAPCONF_HRTIMER_SETUP",
	  "#include <linux/hrtimer.h>\n"
	  "static enum hrtimer_restart f(struct hrtimer *t) "
	  "{ return HRTIMER_NORESTART; }\n"
	  "void t(struct hrtimer *h);\n"
	  "void t(struct hrtimer *h) { hrtimer_setup(h, f, CLOCK_MONOTONIC, "
	  "HRTIMER_MODE_REL); }\n" },
	{ "STAPCONF_TIMER_DELETE_SYNC",
	  "#include <linux/timer.h>\n"
	  "void t(struct timer_list *l);\n"
	  "void t(struct timer_list *l) { timer_delete_sync(l); }\n" },
	/* removed in 6.8; embedded C written before still calls it */
	{ "STAPCONF_STRLCPY",
	  "#include <linux/string.h>\n"
	  "size_t t(char *d, const char *s);\n"
	  "size_t t(char *d, const char *s) { return strlcpy(d, s, 4); }\n" },
	/* 5.11 on, the name fcheck_files() took; embedded C asks for it
	 * by this name, and the runtime maps fcheck_files() onto it
	 */
	{ "STAPCONF_FILES_LOOKUP_FD_RAW",
	  "#include <linux/fdtable.h>\n"
	  "struct file *t(struct files_struct *f);\n"
	  "struct file *t(struct files_struct *f) "
	  "{ return files_lookup_fd_raw(f, 0); }\n" },
	/* kernel API facts that embedded C written for the established
	 * tool tests (the pfiles example): struct file's f_path (2.6.20),
	 * <linux/uidgid.h> (3.5), <linux/filelock.h> (6.3), struct
	 * file_lock_core (6.9), do_sock_getsockopt() (6.9)
	 */
	{ "STAPCONF_DPATH_PATH",
	  "#include <linux/fs.h>\n"
	  "struct dentry *t(struct file *f);\n"
	  "struct dentry *t(struct file *f) { return f->f_path.dentry; }\n" },
	{ "STAPCONF_LINUX_UIDGID_H",
	  "#include <linux/uidgid.h>\n" },
	{ "STAPCONF_LINUX_FILELOCK_H",
	  "#include <linux/filelock.h>\n" },
	{ "STAPCONF_FILE_LOCK_CORE",
	  "#include <linux/fs.h>\n"
	  "#include <linux/filelock.h>\n"
	  "int t(struct file_lock *l);\n"
	  "int t(struct file_lock *l) { return l->c.flc_type; }\n" },
	{ "STAPCONF_DO_SOCK_GETSOCKOPT",
	  "#include <net/sock.h>\n"
	  "#include <linux/sockptr.h>\n"
	  "int t(struct socket *s, int *v, int *n);\n"
	  "int t(struct socket *s, int *v, int *n)\n"
	  "{ return do_sock_getsockopt(s, false, SOL_SOCKET, SO_TYPE,\n"
	  "    KERNEL_SOCKPTR(v), KERNEL_SOCKPTR(n)); }\n" },
	{ "STAPCONF_GET_RANDOM_U32_BELOW",
	  "#include <linux/random.h>\n"
	  "u32 t(void);\nu32 t(void) { return get_random_u32_below(7); }\n" },
	/* the uprobe API of runtime/stp_uprobe.c (6.12 against 6.1) */
	{ "STAPCONF_UPROBE_REGISTER_UPROBE",
	  "#include <linux/uprobes.h>\n"
	  "struct uprobe *t(struct inode *i, struct uprobe_consumer *c);\n"
	  "struct uprobe *t(struct inode *i, struct uprobe_consumer *c)\n"
	  "{ struct uprobe *u = uprobe_register(i, 0, 0, c);\n"
	  "  uprobe_unregister_nosync(u, c); uprobe_unregister_sync();\n"
	  "  return u; }\n" },
	{ "STAPCONF_UPROBE_FILTER_MM",
	  "#include <linux/uprobes.h>\n"
	  "_Static_assert(__same_type(((struct uprobe_consumer *)0)->filter,"
	  " bool (*)(struct uprobe_consumer *, struct mm_struct *)), \"\");\n"
	},
	{ "STAPCONF_UPROBE_HANDLER_DATA",
	  "#include <linux/uprobes.h>\n"
	  "_Static_assert(__same_type(((struct uprobe_consumer *)0)->handler,"
	  " int (*)(struct uprobe_consumer *, struct pt_regs *, __u64 *)),"
	  " \"\");\n" },
	/* entry probes through one ftrace_ops (runtime/stp_ftrace.c): a
	 * filter of many addresses set at once, full regs saved, the
	 * recursion guard, and the kprobe flag that says ftrace carries
	 * a kprobe's address
	 */
	{ "STAPCONF_FTRACE_FILTER_IPS",
	  "#include <linux/ftrace.h>\n"
	  "#include <linux/kprobes.h>\n"
	  "static void f(unsigned long ip, unsigned long pip,\n"
	  "  struct ftrace_ops *op, struct ftrace_regs *fr)\n"
	  "{ int b = ftrace_test_recursion_trylock(ip, pip);\n"
	  "  if (b >= 0 && ftrace_get_regs(fr))\n"
	  "    ftrace_test_recursion_unlock(b); }\n"
	  "static struct ftrace_ops o = { .func = f,\n"
	  "  .flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_RCU };\n"
	  "int t(unsigned long *ips, unsigned int n, struct kprobe *p);\n"
	  "int t(unsigned long *ips, unsigned int n, struct kprobe *p)\n"
	  "{ int rc = ftrace_set_filter_ips(&o, ips, n, 0, 0);\n"
	  "  rc = rc ?: register_ftrace_function(&o);\n"
	  "  rc = rc ?: unregister_ftrace_function(&o);\n"
	  "  ftrace_free_filter(&o);\n"
	  "  return rc ?: kprobe_ftrace(p); }\n" },
};

/* ---- cache keys ----------------------------------------------------
 * Each cached thing (a module, the runtime's core object, the kernel
 * API facts) is named by the SHA-256 of every input that goes into it,
 * so that it is found again only when all of them are the same.
 */

/* A file's bytes as one field of the key ("" when it cannot be read). */
static void key_file(struct sha256 *c, const char *path)
{
	size_t len = 0;
	char *text = read_file(path, &len);

	sha256_field(c, text ? text : "", text ? len : 0);
	free(text);
}

/* What says that a file is the one it was without reading it (a large
 * file of a package, a program): its size and times.
 */
static void key_stat(struct sha256 *c, const char *path)
{
	struct stat st;
	char buf[96];

	if (stat(path, &st) != 0)
		memset(&st, 0, sizeof(st));
	snprintf(buf, sizeof(buf), "%lld %lld.%09ld %lld.%09ld",
		 (long long)st.st_size, (long long)st.st_mtim.tv_sec,
		 st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec,
		 st.st_ctim.tv_nsec);
	sha256_str(c, buf);
}

/* The compiler kbuild runs: the first word of the kernel's
 * CONFIG_CC_VERSION_TEXT, found in PATH, as the file it resolves to.
 */
static void key_compiler(struct session *s, struct sha256 *c,
			 const char *config)
{
	const char *t = config ? strstr(config, "CONFIG_CC_VERSION_TEXT=\"") :
				 NULL;
	const char *path = getenv("PATH");
	char *name, *dirs, *dir, *save = NULL, *real = NULL;

	if (!t) {
		sha256_str(c, "no compiler named");
		return;
	}
	t += strlen("CONFIG_CC_VERSION_TEXT=\"");
	name = arena_strndup(s->arena, t, strcspn(t, " \"\n"));
	sha256_str(c, name);
	dirs = xstrdup(path && *path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir && !real;
	     dir = strtok_r(NULL, ":", &save)) {
		const char *p = arena_printf(s->arena, "%s/%s", dir, name);

		if (access(p, X_OK) == 0)
			real = realpath(p, NULL);
	}
	free(dirs);
	sha256_str(c, real ? real : "not in PATH");
	if (real)
		key_stat(c, real);
	free(real);
}

/* The kernel build tree as kbuild sees it: its release, configuration
 * (with the compiler's version text), the compiler itself and the
 * exported symbols it links against.  Read once a run.
 */
static void key_kernel(struct session *s, struct sha256 *c)
{
	static char id[SHA256_HEX];
	static const char *id_of;
	const char *b = s->opt.kernel_build_dir;
	struct sha256 k;
	char *config;

	if (!id_of || strcmp(id_of, b)) {
		sha256_init(&k);
		sha256_str(&k, s->kernel_vr);
		sha256_str(&k, b);
		config = read_file(arena_printf(s->arena, "%s/.config", b),
				   NULL);
		sha256_str(&k, config);
		key_file(&k, arena_printf(s->arena, "%s/include/config/"
					  "kernel.release", b));
		key_stat(&k, arena_printf(s->arena, "%s/Module.symvers", b));
		key_stat(&k, arena_printf(s->arena, "%s/Makefile", b));
		key_compiler(s, &k, config);
		free(config);
		sha256_hex(&k, id);
		id_of = arena_strdup(s->arena, b);
	}
	sha256_str(c, id);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* The runtime's sources: every .c and .h file of it, by name.  Read
 * once a run: the module's key and the core object's both take it.
 */
static void key_runtime(struct session *s, struct sha256 *c)
{
	static char id[SHA256_HEX];
	static const char *id_of;
	struct vec names = { 0 };
	struct sha256 k;
	DIR *d;
	struct dirent *de;
	int i;

	if (id_of && !strcmp(id_of, s->runtime_root)) {
		sha256_str(c, id);
		return;
	}
	d = opendir(s->runtime_root);
	while (d && (de = readdir(d)))
		if (has_suffix(de->d_name, ".c") ||
		    has_suffix(de->d_name, ".h"))
			vec_push(s->arena, &names,
				 arena_strdup(s->arena, de->d_name));
	if (d)
		closedir(d);
	if (names.n)
		qsort(names.items, (size_t)names.n, sizeof(void *), cmp_strp);
	sha256_init(&k);
	for (i = 0; i < names.n; i++) {
		sha256_str(&k, names.items[i]);
		key_file(&k, arena_printf(s->arena, "%s/%s", s->runtime_root,
					  (const char *)names.items[i]));
	}
	sha256_hex(&k, id);
	id_of = arena_strdup(s->arena, s->runtime_root);
	sha256_str(c, id);
}

/* The -B options make passes to kbuild. */
static void key_kbuild_opts(struct session *s, struct sha256 *c)
{
	int i;

	for (i = 0; i < s->opt.kbuild_opts.n; i++)
		sha256_str(c, s->opt.kbuild_opts.items[i]);
}

static const char *key_hex(struct session *s, const struct sha256 *c)
{
	char *hex = arena_alloc(s->arena, SHA256_HEX);

	sha256_hex(c, hex);
	return hex;
}

static bool write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fputs(text, f) >= 0;
	ok = (fclose(f) == 0) && ok;
	return ok;
}


const char *kbuild_cache_dir(struct session *s)
{
	const char *d = getenv("SYSTEMTAP_DIR");
	const char *home = getenv("HOME");

	if (d && *d)
		return arena_printf(s->arena, "%s/cache", d);
	return arena_printf(s->arena, "%s/.systemtap/cache",
			    home && *home ? home : "/tmp");
}

/* Every build of an external module evaluates the kernel Makefile's
 * compiler checks (cc-option, as-instr, ld-option: 35 compiler runs on
 * 6.12, more CPU than compiling a small script) through its try-run.
 * The same command gives the same answer for one build tree and
 * compiler, so a try-run given on make's command line keeps the answers
 * in a file of the cache, by the command's text, and runs only the
 * commands it has not seen.  The helper does what the kernel's own
 * does (scripts/Makefile.compiler): runs the command with $TMP in a
 * scratch directory, then echoes the second or the third argument.
 */
static const char tryrun_sh[] =
	"# kbuild's try-run, its answers kept in $TAPIR_KBUILD_MEMO "
	"(written by stap)\n"
	"# sourced by make's shell with the arguments of try-run set\n"
	"tr_cmd=$1 tr_r=\n"
	"case $tr_cmd in *'\n'*) ;; *)\n"
	"\ttr_r=$(grep -m 1 -x -F -e \"y $tr_cmd\" -e \"n $tr_cmd\" "
	"\"$TAPIR_KBUILD_MEMO\" 2>/dev/null)\n"
	"\ttr_r=${tr_r%% *}\n"
	"esac\n"
	"if [ \"$tr_r\" != y ] && [ \"$tr_r\" != n ]; then\n"
	"\teval \"out=$4\"\n"
	"\tTMP=$out/tmp\n"
	"\tmkdir -p \"$out\"\n"
	"\tif (eval \"$tr_cmd\") >/dev/null 2>&1; then tr_r=y; "
	"else tr_r=n; fi\n"
	"\trm -rf \"$out\"\n"
	"\tcase $tr_cmd in *'\n'*) ;; *)\n"
	"\t\tprintf '%s %s\\n' \"$tr_r\" \"$tr_cmd\" "
	">>\"$TAPIR_KBUILD_MEMO\"\n"
	"\tesac\n"
	"fi\n"
	"if [ $tr_r = y ]; then eval \"echo \\\"$2\\\"\"; "
	"else eval \"echo \\\"$3\\\"\"; fi\n";

/* make's argument: the arguments of try-run quoted for the helper,
 * which make's own shell reads (no other process for an answer kept)
 */
static const char tryrun_arg[] =
	"try-run=$(shell set -- "
	"'$(subst ','\\'',$(1))' '$(subst ','\\'',$(2))' "
	"'$(subst ','\\'',$(3))' '$(TMPOUT)'; . \"$$TAPIR_KBUILD_TRYRUN\")";

/* The try-run answers of this build tree and compiler in the cache,
 * and the helper beside the module's sources; NULL without a cache.
 */
static const char *tryrun_setup(struct session *s, const char *dir)
{
	static bool poisoned;
	const char *cdir = kbuild_cache_dir(s);
	const char *memo, *helper;
	struct sha256 key;

	if (s->opt.disable_cache || !mkdir_p(cdir))
		return NULL;
	sha256_init(&key);
	sha256_str(&key, "try-run");
	sha256_str(&key, tryrun_sh);
	key_kernel(s, &key);
	memo = arena_printf(s->arena, "%s/kbuild_%s.tryrun", cdir,
			    key_hex(s, &key));
	helper = arena_printf(s->arena, "%s/.tapir_try_run.sh", dir);
	if (!write_text(helper, tryrun_sh))
		return NULL;
	if (s->opt.poison_cache && !poisoned) {
		unlink(memo);
		poisoned = true;
	}
	if (file_exists(memo))
		cache_touch(memo);
	if (setenv("TAPIR_KBUILD_MEMO", memo, 1) ||
	    setenv("TAPIR_KBUILD_TRYRUN", helper, 1))
		return NULL;
	return tryrun_arg;
}

/* Run make in the kernel's build tree for the module in dir; the
 * output goes to dir/build.log and is shown on failure.  A module's
 * BTF is left out (pahole, the next biggest cost on 6.12): nothing
 * reads the types of a tapir module.  -B options come last, so that a
 * user's CONFIG_DEBUG_INFO_BTF_MODULES=y brings it back.
 */
static int run_make(struct session *s, const char *dir, bool keep_going)
{
	const char *log = arena_printf(s->arena, "%s/build.log", dir);
	const char *tryrun = tryrun_setup(s, dir);
	const char *cmd = arena_printf(s->arena,
		"make -C '%s' M='%s' %s-j2 CONFIG_DEBUG_INFO_BTF_MODULES= "
		"%s%smodules >'%s' 2>&1", s->opt.kernel_build_dir, dir,
		keep_going ? "-k " : "", tryrun ? sh_quote(s->arena, tryrun) : "",
		tryrun ? " " : "", log);
	int i, rc;

	for (i = 0; i < s->opt.kbuild_opts.n; i++)
		cmd = arena_printf(s->arena, "%s '%s'", cmd,
				   (const char *)s->opt.kbuild_opts.items[i]);
	if (s->opt.verbose >= 2 || s->opt.pass_verbose[3] >= 2)
		fprintf(stderr, "Running %s\n", cmd);
	rc = system(cmd);
	if (rc == -1 || !WIFEXITED(rc))
		return -1;
	return WEXITSTATUS(rc);
}

static void show_log(struct session *s, const char *dir)
{
	size_t len;
	char *text = read_file(arena_printf(s->arena, "%s/build.log", dir),
			       &len);

	if (text) {
		fputs(text, stderr);
		free(text);
	}
}

/* stapconf.h for the target kernel: one #define per compile probe that
 * built.  Cached by kernel release and build tree.
 */
static const char *stapconf(struct session *s, const char *tmpdir)
{
	const char *cdir = kbuild_cache_dir(s);
	const char *cached;
	const char *dir = arena_printf(s->arena, "%s/conf", tmpdir);
	struct strbuf kb, out;
	struct sha256 key;
	size_t i;

	sha256_init(&key);
	sha256_str(&key, "stapconf");
	key_kernel(s, &key);
	for (i = 0; i < ARRAY_SIZE(conf_probes); i++)
		sha256_str(&key, conf_probes[i].code);
	cached = arena_printf(s->arena, "%s/stapconf_%s.h", cdir,
			      key_hex(s, &key));
	if (!s->opt.disable_cache && !s->opt.poison_cache &&
	    file_exists(cached)) {
		cache_touch(cached);
		return cached;
	}
	if (!mkdir_p(dir))
		return NULL;
	sb_init(&kb);
	for (i = 0; i < ARRAY_SIZE(conf_probes); i++) {
		write_text(arena_printf(s->arena, "%s/t%zu.c", dir, i),
			   arena_printf(s->arena, "#include <linux/module.h>\n"
					"%s\nMODULE_LICENSE(\"GPL\");\n",
					conf_probes[i].code));
		sb_printf(&kb, "obj-m += t%zu.o\n", i);
	}
	write_text(arena_printf(s->arena, "%s/Kbuild", dir), kb.buf);
	sb_free(&kb);
	run_make(s, dir, true);
	sb_init(&out);
	sb_puts(&out, "/* kernel API facts found by compile probes */\n");
	for (i = 0; i < ARRAY_SIZE(conf_probes); i++)
		if (file_exists(arena_printf(s->arena, "%s/t%zu.o", dir, i)))
			sb_printf(&out, "#define %s 1\n", conf_probes[i].macro);
	if (s->opt.disable_cache || !mkdir_p(cdir) ||
	    !write_text(cached, out.buf)) {
		cached = arena_printf(s->arena, "%s/stapconf.h", tmpdir);
		write_text(cached, out.buf);
	}
	sb_free(&out);
	return cached;
}

/* Everything that changes the module: the C text (which holds the
 * elaborated script), the runtime's files, the kernel, the options.
 */
const char *kbuild_hash(struct session *s, const char *csrc)
{
	struct sha256 key;
	int i;

	sha256_init(&key);
	sha256_str(&key, "module " TAPIR_VERSION);
	sha256_str(&key, csrc);
	key_kernel(s, &key);
	for (i = 0; i < s->opt.defines.n; i++)
		sha256_str(&key, s->opt.defines.items[i]);
	sha256_str(&key, "--");
	key_kbuild_opts(s, &key);
	sha256_str(&key, "--");
	sha256_str(&key, s->opt.suppress_time_limits ? "stl" : "");
	sha256_str(&key, s->opt.suppress_handler_errors ? "she" : "");
	sha256_str(&key, s->opt.json ? arena_printf(s->arena, "json%u",
			s->opt.json_fields) : "");
	key_runtime(s, &key);
	return key_hex(s, &key);
}

/* The -D limits the runtime's core reads from stp_script instead
 * (runtime/stp_limits.h): they go to the script's object only, so that
 * one core object serves every value of them.
 */
static const char *const script_only_defines[] = {
	"MAXACTION", "MAXACTION_INTERRUPTIBLE", "INTERRUPTIBLE",
	"MAXTRYLOCK", "MAXMAPENTRIES", "MAXERRORS", "MAXSKIPPED",
	"MINSTACKSPACE", "HIST_ELISION", "STP_OVERLOAD_THRESHOLD",
	"STP_OVERLOAD_INTERVAL", "STP_OVERLOAD_SAMPLE_MAX", "STP_NO_OVERLOAD",
	"STAP_SUPPRESS_TIME_LIMITS_ENABLE",
};

static bool script_only(const char *def)
{
	size_t n = strcspn(def, "=");
	size_t i;

	for (i = 0; i < ARRAY_SIZE(script_only_defines); i++)
		if (strlen(script_only_defines[i]) == n &&
		    !strncmp(def, script_only_defines[i], n))
			return true;
	return false;
}

/* The compiler flags of both objects (core) and of the script's alone
 * (script): the runtime's include paths, the kernel API facts, -D
 * options.
 */
static void ccflags(struct session *s, const char *conf, const char **core,
		    const char **script)
{
	const char *f = arena_printf(s->arena, "-I'%s' -include '%s'",
				     s->runtime_root, conf);
	const char *sf = "";
	int i;

	for (i = 0; i < s->opt.defines.n; i++) {
		const char *d = s->opt.defines.items[i];

		if (script_only(d))
			sf = arena_printf(s->arena, "%s%s-D%s", sf,
					  *sf ? " " : "", d);
		else
			f = arena_printf(s->arena, "%s -D%s", f, d);
	}
	if (s->opt.suppress_time_limits)
		sf = arena_printf(s->arena, "%s%s%s", sf, *sf ? " " : "",
				  "-DSTAP_SUPPRESS_TIME_LIMITS_ENABLE");
	if (s->opt.suppress_handler_errors)
		f = arena_printf(s->arena, "%s -DSTAP_SUPPRESS_HANDLER_ERRORS",
				 f);
	/* --json: the print path writes records (runtime/msg.h) */
	if (s->opt.json)
		f = arena_printf(s->arena, "%s -DSTP_JSON -DSTP_JSON_FIELDS=%u",
				 f, s->opt.json_fields);
	/* the test suites build every module with warnings as errors */
	if (getenv("TAPIR_WERROR") && !strcmp(getenv("TAPIR_WERROR"), "1"))
		f = arena_printf(s->arena, "%s -Werror", f);
	*core = f;
	*script = sf;
}

static bool copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = read_file(from, &len);
	FILE *f;
	bool ok;

	if (!data)
		return false;
	f = fopen(to, "wb");
	if (!f) {
		free(data);
		return false;
	}
	ok = fwrite(data, 1, len, f) == len;
	ok = (fclose(f) == 0) && ok;
	free(data);
	return ok;
}

/* Put a copy of from at to in the cache: written beside it under a
 * name of this process, then renamed, so that an entry appears whole
 * even when several builds store it at once.
 */
static bool cache_put(struct session *s, const char *from, const char *to)
{
	const char *tmp = arena_printf(s->arena, "%s.%ld.tmp", to,
				       (long)getpid());

	if (copy_file(from, tmp) && rename(tmp, to) == 0)
		return true;
	unlink(tmp);
	return false;
}

/* The object of runtime/stp_core.c for this kernel and these flags, in
 * the cache: built with the first module, then linked into every one.
 */
static const char *core_cached_path(struct session *s, const char *flags)
{
	struct sha256 key;

	sha256_init(&key);
	sha256_str(&key, "core " TAPIR_VERSION);
	key_kernel(s, &key);
	sha256_str(&key, flags);
	key_kbuild_opts(s, &key);
	key_runtime(s, &key);
	return arena_printf(s->arena, "%s/core_%s.o", kbuild_cache_dir(s),
			    key_hex(s, &key));
}

/* Keep a freshly built core object. */
static void core_store(struct session *s, const char *dir, const char *cached)
{
	if (s->opt.disable_cache || !mkdir_p(kbuild_cache_dir(s)))
		return;
	cache_put(s, arena_printf(s->arena, "%s/tapir_core.o", dir), cached);
}

/* Kernels from 6.11 on compile scripts/module-common.c into every
 * external module's directory (.module-common.o), the same object for
 * every module of one build tree and compiler.  It is kept in the cache
 * with its .cmd file, the module's directory written as @M@ there; a
 * build gets both back with its own directory, and kbuild's if_changed
 * finds the object newer than its sources and the same command, and
 * links it as it is.  A different command (a -B option, a new compiler)
 * makes kbuild compile it again, as without the cache.
 */
#define MODCOMMON "/.module-common.o"
#define MODCOMMON_CMD "/..module-common.o.cmd"

struct modcommon {
	const char *o, *cmd;		/* in the cache */
};

static bool modcommon_cached(struct session *s, struct modcommon *mc)
{
	struct sha256 key;
	const char *base;

	if (s->opt.disable_cache)
		return false;
	sha256_init(&key);
	sha256_str(&key, "module-common");
	key_kernel(s, &key);
	key_kbuild_opts(s, &key);
	base = arena_printf(s->arena, "%s/kbuild_%s", kbuild_cache_dir(s),
			    key_hex(s, &key));
	mc->o = arena_printf(s->arena, "%s.module-common.o", base);
	mc->cmd = arena_printf(s->arena, "%s.module-common.cmd", base);
	return true;
}

/* text with every from replaced by to, in the arena */
static char *subst_all(struct arena *a, const char *text, const char *from,
		       const char *to)
{
	size_t n = 0, lf = strlen(from), lt = strlen(to);
	const char *p;
	char *out, *o;

	for (p = strstr(text, from); p; p = strstr(p + lf, from))
		n++;
	out = arena_alloc(a, strlen(text) + n * lt + 1);
	for (o = out; (p = strstr(text, from)); text = p + lf) {
		memcpy(o, text, (size_t)(p - text));
		o += p - text;
		memcpy(o, to, lt);
		o += lt;
	}
	strcpy(o, text);
	return out;
}

static void modcommon_seed(struct session *s, const char *dir,
			   const struct modcommon *mc)
{
	char *text;

	if (s->opt.poison_cache || !file_exists(mc->o) ||
	    !file_exists(mc->cmd))
		return;
	text = read_file(mc->cmd, NULL);
	if (!text)
		return;
	if (copy_file(mc->o, arena_printf(s->arena, "%s" MODCOMMON, dir)) &&
	    write_text(arena_printf(s->arena, "%s" MODCOMMON_CMD, dir),
		       subst_all(s->arena, text, "@M@", dir))) {
		cache_touch(mc->o);
		cache_touch(mc->cmd);
	}
	free(text);
}

/* After a build: keep its .module-common.o if the cache has none (or
 * anew under --poison-cache, which did not take the cached one).  The
 * object goes first: a lookup needs both.
 */
static void modcommon_store(struct session *s, const char *dir,
			    const struct modcommon *mc)
{
	const char *built = arena_printf(s->arena, "%s" MODCOMMON, dir);
	const char *cmd = arena_printf(s->arena, "%s/cmd.cached", dir);
	char *text;

	if (!s->opt.poison_cache && file_exists(mc->o) &&
	    file_exists(mc->cmd))
		return;
	if (!file_exists(built) || !mkdir_p(kbuild_cache_dir(s)))
		return;
	text = read_file(arena_printf(s->arena, "%s" MODCOMMON_CMD, dir),
			 NULL);
	if (!text)
		return;
	if (write_text(cmd, subst_all(s->arena, text, dir, "@M@")) &&
	    cache_put(s, built, mc->o))
		cache_put(s, cmd, mc->cmd);
	free(text);
}

/* The module's sources: the script's C, and the runtime's core either
 * as a prebuilt object from the cache (with the .cmd file modpost reads)
 * or as a one-line source that includes it.
 */
static bool write_sources(struct session *s, const char *dir,
			  const char *name, const char *csrc,
			  const char *flags, const char *sflags,
			  const char *core)
{
	bool ok;

	if (core)
		ok = copy_file(core, arena_printf(s->arena,
				"%s/tapir_core.o_shipped", dir)) &&
		     write_text(arena_printf(s->arena, "%s/.tapir_core.o.cmd",
				dir), "savedcmd_tapir_core.o := cat "
				"tapir_core.o_shipped > tapir_core.o\n");
	else
		ok = write_text(arena_printf(s->arena, "%s/tapir_core.c", dir),
				"#include \"stp_core.c\"\n");
	return ok &&
	       write_text(arena_printf(s->arena, "%s/%s_src.c", dir, name),
			  csrc) &&
	       write_text(arena_printf(s->arena, "%s/Kbuild", dir),
			  arena_printf(s->arena, "obj-m := %s.o\n"
				       "%s-y := %s_src.o tapir_core.o\n"
				       "ccflags-y := %s\n"
				       "CFLAGS_%s_src.o := %s\n", name, name,
				       name, flags, name, sflags));
}

int kbuild_module(struct session *s, const char *name, const char *csrc,
		  const char *tmpdir, const char **ko)
{
	const char *dir = arena_printf(s->arena, "%s/%s", tmpdir, name);
	const char *conf, *kofile, *flags, *sflags, *cached, *core;
	struct modcommon mc = { NULL, NULL };
	bool modcommon;

	if (!s->opt.kernel_build_dir || !file_exists(s->opt.kernel_build_dir)) {
		diag_error_noloc(s, "kernel build tree '%s' not found: install "
				 "linux-headers-%s", s->opt.kernel_build_dir ?
				 s->opt.kernel_build_dir : "?",
				 s->kernel_vr ? s->kernel_vr : "KVER");
		return -1;
	}
	if (!mkdir_p(dir)) {
		diag_error_noloc(s, "cannot create '%s': %s", dir,
				 strerror(errno));
		return -1;
	}
	conf = stapconf(s, tmpdir);
	if (!conf) {
		diag_error_noloc(s, "kernel API probes failed in '%s'", tmpdir);
		return -1;
	}
	ccflags(s, conf, &flags, &sflags);
	cached = core_cached_path(s, flags);
	core = !s->opt.disable_cache && !s->opt.poison_cache &&
	       file_exists(cached) ? cached : NULL;
	if (core)
		cache_touch(core);
	if (!write_sources(s, dir, name, csrc, flags, sflags, core)) {
		diag_error_noloc(s, "cannot write the module sources in '%s'",
				 dir);
		return -1;
	}
	modcommon = modcommon_cached(s, &mc);
	if (modcommon)
		modcommon_seed(s, dir, &mc);
	if (run_make(s, dir, false) != 0) {
		show_log(s, dir);
		diag_error_noloc(s, "kbuild failed to build '%s.ko'", name);
		return -1;
	}
	kofile = arena_printf(s->arena, "%s/%s.ko", dir, name);
	if (!file_exists(kofile)) {
		diag_error_noloc(s, "kbuild did not produce '%s'", kofile);
		return -1;
	}
	if (!core)
		core_store(s, dir, cached);
	if (modcommon)
		modcommon_store(s, dir, &mc);
	*ko = kofile;
	return 0;
}

const char *kbuild_cached(struct session *s, const char *hash)
{
	const char *p = arena_printf(s->arena, "%s/%.2s/stap_%s.ko",
				     kbuild_cache_dir(s), hash, hash);

	if (s->opt.poison_cache || !file_exists(p))
		return NULL;
	cache_touch(p);
	return p;
}

/* Keep a built module (cache_put: whole even when several runs store
 * the same one at once).
 */
const char *kbuild_cache_store(struct session *s, const char *hash,
			       const char *ko)
{
	const char *dir = arena_printf(s->arena, "%s/%.2s",
				       kbuild_cache_dir(s), hash);
	const char *p = arena_printf(s->arena, "%s/stap_%s.ko", dir, hash);

	if (!mkdir_p(dir) || !cache_put(s, ko, p))
		return NULL;
	return p;
}

bool kbuild_copy(const char *from, const char *to)
{
	return copy_file(from, to);
}
