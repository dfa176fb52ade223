/* kmod.c - the modules of an installed kernel release: the list of
 * them (modules.dep, which depmod writes for every installed kernel, or
 * a walk of /lib/modules/KVER without it), their -dbg twins, and their
 * bytes.  Debian compresses modules from 6.12 on (.ko.xz); like the
 * bzImage, they are unpacked by running the system's tools, which saves
 * linking three decompressor libraries.
 */
#define _GNU_SOURCE
#include "debuginfo/kmod.h"
#include "debuginfo/elfsym.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MODULES_ROOT "/lib/modules"
#define DEBUG_ROOT "/usr/lib/debug"

/* ------------------------------------------------------ decompression */

static const unsigned char xz_magic[] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
static const unsigned char zstd_magic[] = { 0x28, 0xb5, 0x2f, 0xfd };
static const unsigned char gzip_magic[] = { 0x1f, 0x8b, 0x08 };

/* --single-stream: the kernel build appends the uncompressed size after
 * the bzImage's xz stream, which xz would otherwise reject as a corrupt
 * second stream.  zstd and gzip have no such switch; their complaints
 * about the same trailer are left for the caller to judge.
 */
static const char *const xz_argv[] = { "xz", "-dc", "--single-stream", NULL };
static const char *const zstd_argv[] = { "zstd", "-dcq", NULL };
static const char *const gzip_argv[] = { "gzip", "-dc", NULL };

static const struct kmod_decomp decomps[] = {
	{ "xz", xz_magic, sizeof(xz_magic), xz_argv, false },
	{ "zstd", zstd_magic, sizeof(zstd_magic), zstd_argv, false },
	{ "gzip", gzip_magic, sizeof(gzip_magic), gzip_argv, true },
};

const struct kmod_decomp *kmod_decomp_at(const unsigned char *p, size_t left)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(decomps); i++)
		if (left >= decomps[i].magic_len &&
		    !memcmp(p, decomps[i].magic, decomps[i].magic_len))
			return &decomps[i];
	return NULL;
}

/* The child: stdin from the file, stdout to the pipe, stderr dropped. */
static void run_tool(int in, int out, const struct kmod_decomp *d)
{
	int null = open("/dev/null", O_WRONLY);

	dup2(in, 0);
	dup2(out, 1);
	if (null >= 0)
		dup2(null, 2);
	execvp(d->argv[0], (char *const *)d->argv);
	_exit(127);
}

static char *read_all(int fd, size_t *outlen)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;

	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	*outlen = len;
	return buf;
}

char *kmod_decompress(const char *path, size_t off,
		      const struct kmod_decomp *d, size_t *outlen,
		      int *status, char **err)
{
	int in, pfd[2], st;
	pid_t pid;
	char *buf;

	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		err_set(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (lseek(in, (off_t)off, SEEK_SET) < 0 || pipe2(pfd, O_CLOEXEC)) {
		err_set(err, "%s: %s", path, strerror(errno));
		close(in);
		return NULL;
	}
	pid = fork();
	if (pid < 0) {
		err_set(err, "fork: %s", strerror(errno));
		close(in);
		close(pfd[0]);
		close(pfd[1]);
		return NULL;
	}
	if (pid == 0)
		run_tool(in, pfd[1], d);
	close(in);
	close(pfd[1]);
	buf = read_all(pfd[0], outlen);
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return buf;
}

char *kmod_read(const char *path, size_t *len, char **err)
{
	const struct kmod_decomp *d;
	char *img = read_file(path, len), *out;
	int status;

	if (!img) {
		err_set(err, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	d = kmod_decomp_at((const unsigned char *)img, *len);
	if (!d)
		return img;
	free(img);
	out = kmod_decompress(path, 0, d, len, &status, err);
	if (out && status) {
		if (status == 127 && !*len)
			err_set(err, "%s: cannot run %s to decompress it",
				path, d->name);
		else
			err_set(err, "%s: %s -dc failed (status %d)", path,
				d->name, status);
		free(out);
		return NULL;
	}
	return out;
}

struct func_find {
	const char *name;
	bool found;
};

static bool func_is(const GElf_Sym *s, const char *name, void *arg)
{
	struct func_find *f = arg;

	f->found = GELF_ST_TYPE(s->st_info) == STT_FUNC &&
		   !strcmp(name, f->name);
	return !f->found;
}

bool kmod_elf_has_func(char *img, size_t len, const char *name)
{
	struct func_find f = { name, false };
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE || !(e = elf_memory(img, len)))
		return false;
	elf_each_symbol(e, SHT_SYMTAB, func_is, &f);
	elf_end(e);
	return f.found;
}

struct sym_walk {
	bool (*cb)(const char *name, void *arg);
	void *arg;
};

static bool sym_each(const GElf_Sym *s, const char *name, void *arg)
{
	struct sym_walk *w = arg;

	(void)s;
	return !name || !*name || w->cb(name, w->arg);
}

void kmod_elf_symbols(char *img, size_t len,
		      bool (*cb)(const char *name, void *arg), void *arg)
{
	struct sym_walk w = { cb, arg };
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE || !(e = elf_memory(img, len)))
		return;
	elf_each_symbol(e, SHT_SYMTAB, sym_each, &w);
	elf_end(e);
}

/* ------------------------------------------------------- the list */

void kmod_canon(char *name)
{
	for (; *name; name++)
		if (*name == '-')
			*name = '_';
}

/* A glob with '-' as '_', except inside a [...] class. */
static char *canon_glob(const char *glob)
{
	char *g = xstrdup(glob), *p;
	bool in_class = false;

	for (p = g; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '[')
			in_class = true;
		else if (*p == ']')
			in_class = false;
		else if (*p == '-' && !in_class)
			*p = '_';
	}
	return g;
}

struct kmod_ent {
	char *name;		/* the kernel's name */
	char *path;		/* absolute */
};

struct kmod_list {
	struct kmod_ent *v;	/* by name, then as listed */
	size_t n, cap;
};

static const char *const suffixes[] = { ".ko", ".ko.xz", ".ko.zst",
					".ko.gz" };

/* The module name of a file name, or NULL if it is no module. */
static char *name_of(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n, i, sl = 0;
	char *name;

	base = base ? base + 1 : path;
	n = strlen(base);
	for (i = 0; i < ARRAY_SIZE(suffixes); i++) {
		sl = strlen(suffixes[i]);
		if (n > sl && !strcmp(base + n - sl, suffixes[i]))
			break;
	}
	if (i == ARRAY_SIZE(suffixes))
		return NULL;
	name = xmalloc(n - sl + 1);
	memcpy(name, base, n - sl);
	name[n - sl] = '\0';
	kmod_canon(name);
	return name;
}

static void list_add(struct kmod_list *l, const char *root, const char *rel)
{
	char *name = name_of(rel);

	if (!name)
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1024;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n].name = name;
	if (rel[0] == '/' || asprintf(&l->v[l->n].path, "%s/%s", root,
				      rel) < 0)
		l->v[l->n].path = xstrdup(rel);
	l->n++;
}

void kmod_list_free(struct kmod_list *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].path);
	}
	free(l->v);
	free(l);
}

/* "kernel/drivers/block/brd.ko.xz: dep dep" per line. */
static bool from_modules_dep(struct kmod_list *l, const char *root)
{
	char *path, *text, *line, *save, *colon;

	if (asprintf(&path, "%s/modules.dep", root) < 0)
		return false;
	text = read_file(path, NULL);
	free(path);
	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		list_add(l, root, line);
	}
	free(text);
	return true;
}

/* Without modules.dep (depmod not run): every module file in the tree;
 * nftw has no user argument, hence the statics.
 */
static struct kmod_list *walk_list;
static const char *walk_root;

static int walk_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_F)
		list_add(walk_list, walk_root, path);
	return 0;
}

/* By name; one name listed twice keeps its first file (modules.dep
 * lists the one modprobe would load first).
 */
static int cmp_ent(const void *a, const void *b)
{
	const struct kmod_ent *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x < y ? -1 : x > y;
}

struct kmod_list *kmod_list_load(const char *kver, char **err)
{
	struct kmod_list *l;
	char *root;

	if (!kver || !*kver || strchr(kver, '/') || kver[0] == '.') {
		err_set(err, "invalid kernel release '%s'", kver ? kver : "");
		return NULL;
	}
	if (asprintf(&root, MODULES_ROOT "/%s", kver) < 0)
		return NULL;
	l = xmalloc(sizeof(*l));
	memset(l, 0, sizeof(*l));
	if (!from_modules_dep(l, root)) {
		if (access(root, R_OK)) {
			err_set(err, "no %s: install linux-image-%s", root,
				kver);
			free(root);
			kmod_list_free(l);
			return NULL;
		}
		walk_list = l;
		walk_root = root;
		/* FTW_PHYS: build/ and source/ are symlinks out of it */
		nftw(root, walk_one, 16, FTW_PHYS);
		walk_list = NULL;
	}
	free(root);
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_ent);
	return l;
}

/* The first entry of name (canonical), or l->n. */
static size_t lower(const struct kmod_list *l, const char *name)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(l->v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const char *kmod_list_path(const struct kmod_list *l, const char *name)
{
	char *want = xstrdup(name);
	size_t i;

	kmod_canon(want);
	i = lower(l, want);
	if (i < l->n && strcmp(l->v[i].name, want))
		i = l->n;
	free(want);
	return i < l->n ? l->v[i].path : NULL;
}

int kmod_list_match(const struct kmod_list *l, const char *glob,
		    void (*cb)(const char *name, void *arg), void *arg)
{
	char *g = canon_glob(glob);
	size_t i;
	int n = 0;

	for (i = 0; i < l->n; i++) {
		if ((i && !strcmp(l->v[i].name, l->v[i - 1].name)) ||
		    !glob_match(g, l->v[i].name))
			continue;
		cb(l->v[i].name, arg);
		n++;
	}
	free(g);
	return n;
}

/* ---------------------------------------------- kernel debuginfo roots */

static char *fmt_path(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* A malloc'd printf: paths here are short, and xmalloc never fails. */
static char *fmt_path(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	p = xmalloc((size_t)(n < 0 ? 0 : n) + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* The roots that $SYSTEMTAP_DEBUGINFO_PATH names, as libdwfl reads it: a
 * '+' or '-' (CRC checking, which kernel files never need) before the
 * whole list and before each element is dropped; only absolute
 * elements can hold a kernel's files (the others are relative to the
 * file being looked up).  Unset or empty: /usr/lib/debug alone.  Calls
 * cb on each root until it returns a path.
 */
static char *each_root(char *(*cb)(const char *root, const void *arg),
		       const void *arg)
{
	const char *env = getenv("SYSTEMTAP_DEBUGINFO_PATH");
	const char *p, *end;
	char *root, *found;

	if (!env || !*env)
		return cb(DEBUG_ROOT, arg);
	for (p = env; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		while (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p == end || *p != '/')
			continue;
		root = fmt_path("%.*s", (int)(end - p), p);
		found = cb(root, arg);
		free(root);
		if (found)
			return found;
	}
	return NULL;
}

/* The first of the names under root that exists, malloc'd, or NULL.  A
 * root is either a debug tree like /usr/lib/debug or the top of an
 * unpacked -dbg package (dpkg -x), which holds one under usr/lib/debug.
 */
static char *first_under(const char *root, const char *const *names,
			 size_t n)
{
	static const char *const prefixes[] = { "", DEBUG_ROOT };
	size_t i, j;
	char *path;

	for (j = 0; j < ARRAY_SIZE(prefixes); j++) {
		for (i = 0; i < n; i++) {
			path = fmt_path("%s%s/%s", root, prefixes[j],
					 names[i]);
			if (file_exists(path))
				return path;
			free(path);
		}
	}
	return NULL;
}

static char *vmlinux_under(const char *root, const void *arg)
{
	const char *kver = arg;
	char *boot = fmt_path("boot/vmlinux-%s", kver);
	char *mods = fmt_path("lib/modules/%s/vmlinux", kver);
	const char *names[] = { boot, mods };
	char *found = first_under(root, names, ARRAY_SIZE(names));

	free(boot);
	free(mods);
	return found;
}

char *kmod_debug_vmlinux(const char *kver)
{
	if (!kver || !*kver || strchr(kver, '/'))
		return NULL;
	return each_root(vmlinux_under, kver);
}

/* rel: "lib/modules/KVER/kernel/fs/foo" (no .ko): the -dbg package's
 * uncompressed NAME.ko, or the NAME.ko.debug of split debuginfo.
 */
static char *module_under(const char *root, const void *arg)
{
	const char *rel = arg;
	char *ko = fmt_path("%s.ko", rel);
	char *debug = fmt_path("%s.ko.debug", rel);
	const char *names[] = { ko, debug };
	char *found = first_under(root, names, ARRAY_SIZE(names));

	free(ko);
	free(debug);
	return found;
}

char *kmod_debug_path(const char *kver, const char *path)
{
	size_t rlen = strlen(MODULES_ROOT) + 1 + strlen(kver);
	const char *rel, *ko;
	char *name, *dbg;

	if (strncmp(path, MODULES_ROOT "/", strlen(MODULES_ROOT) + 1) ||
	    strncmp(path + strlen(MODULES_ROOT) + 1, kver, strlen(kver)) ||
	    path[rlen] != '/')
		return NULL;
	rel = path + rlen;
	ko = strstr(strrchr(rel, '/'), ".ko");
	if (!ko)
		return NULL;
	name = fmt_path("lib/modules/%s%.*s", kver, (int)(ko - rel), rel);
	dbg = each_root(module_under, name);
	free(name);
	return dbg;
}
