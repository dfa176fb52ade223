/* modload.c - module insertion with its parameters, removal, and the
 * debugfs mount: the only places staprun changes what the kernel runs.
 */
#define _GNU_SOURCE
#include "modload.h"

#include "../runtime/msg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DEBUGFS_PATH "/sys/kernel/debug"
#define DEBUGFS_MAGIC_NUMBER 0x64626720
/* How long removal waits for the last reference to go: 5 s. */
#define REMOVE_TRIES 50
#define REMOVE_DELAY_NS 100000000L

/* A growing parameter string, "a=1 b=\"x y\" ...". */
struct params {
	char *s;
	size_t len, cap;
};

static int params_add(struct params *p, const char *text, size_t n)
{
	char *ns;

	if (p->len + n + 1 > p->cap) {
		size_t cap = (p->len + n + 1) * 2;

		ns = realloc(p->s, cap);
		if (!ns)
			return -ENOMEM;
		p->s = ns;
		p->cap = cap;
	}
	memcpy(p->s + p->len, text, n);
	p->len += n;
	p->s[p->len] = '\0';
	return 0;
}

/* name=value as the kernel's parser wants it: a value with blanks goes
 * in double quotes, which are the only thing it cannot carry.
 */
static int params_var(struct params *p, const char *arg)
{
	const char *eq = strchr(arg, '=');
	bool quote = strpbrk(eq + 1, " \t\n") != NULL || !eq[1];
	int err;

	if (strchr(eq + 1, '"')) {
		fprintf(stderr, "staprun: module argument '%s' cannot "
			"contain '\"'\n", arg);
		return -EINVAL;
	}
	err = p->len ? params_add(p, " ", 1) : 0;
	err = err ?: params_add(p, arg, (size_t)(eq + 1 - arg));
	err = err ?: (quote ? params_add(p, "\"", 1) : 0);
	err = err ?: params_add(p, eq + 1, strlen(eq + 1));
	err = err ?: (quote ? params_add(p, "\"", 1) : 0);
	return err;
}

static int build_params(const struct staprun_options *o, struct params *p)
{
	char buf[64];
	int i, err = params_add(p, "", 0);

	for (i = 0; !err && i < o->nmodule_vars; i++)
		err = params_var(p, o->module_vars[i]);
	if (!err && o->buffer_mb) {
		snprintf(buf, sizeof(buf), "_stp_bufsize=%d", o->buffer_mb);
		err = params_var(p, buf);
	}
	if (!err && o->bulk)
		err = params_var(p, "_stp_bulkmode=1");
	if (err == -ENOMEM)
		fputs("staprun: out of memory\n", stderr);
	return err;
}

/* What to try when the kernel says no, for the errors it often says. */
static const char *insert_hint(int err)
{
	switch (err) {
	case EEXIST:
		return " (a module of that name is loaded already)";
	case ENOEXEC:
		return " (not a kernel module, or built for another kernel)";
	case EINVAL:
		return " (see the kernel log: a bad module argument, or a "
		       "module for another kernel)";
	case ENOSYS:
		return " (this kernel cannot load modules)";
	case EKEYREJECTED:
	case EPERM:
		return " (module signatures or lockdown may forbid it)";
	default:
		return "";
	}
}

static int finit(int fd, const char *params)
{
	return syscall(SYS_finit_module, fd, params, 0) < 0 ? -errno : 0;
}

int modload_insert(const struct staprun_options *o)
{
	struct params p = { 0 };
	int fd, err = 0;

	fd = open(o->module_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		fprintf(stderr, "staprun: couldn't insert module '%s': %s\n",
			o->module_path, strerror(err));
		return -err;
	}
	if (build_params(o, &p)) {
		err = EINVAL;
		goto out;
	}
	if (o->verbose)
		fprintf(stderr, "staprun: inserting %s with '%s'\n",
			o->module_path, p.s);
	err = -finit(fd, p.s);
	/* A module of that name that no staprun reads any more (its
	 * staprun was killed) is stopped already: it makes way.
	 */
	if (err == EEXIST && modload_orphaned(o->module_name) == 0 &&
	    modload_remove(o->module_name, o->verbose) == 0)
		err = -finit(fd, p.s);
	if (err == EEXIST && modload_orphaned(o->module_name) == -EBUSY)
		fprintf(stderr, "staprun: couldn't insert module '%s': a "
			"module of that name is loaded and a staprun is "
			"attached to it\n", o->module_path);
	else if (err)
		fprintf(stderr, "staprun: couldn't insert module '%s': %s%s\n",
			o->module_path, strerror(err), insert_hint(err));
out:
	free(p.s);
	close(fd);
	return -err;
}

int modload_remove(const char *name, int verbose)
{
	const struct timespec delay = { 0, REMOVE_DELAY_NS };
	int i, err = 0;

	if (verbose)
		fprintf(stderr, "staprun: removing module %s\n", name);
	for (i = 0; i < REMOVE_TRIES; i++) {
		if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0)
			return 0;
		err = errno;
		if (err != EAGAIN && err != EBUSY)
			break;
		nanosleep(&delay, NULL);
	}
	fprintf(stderr, "staprun: couldn't remove module '%s': %s\n", name,
		strerror(err));
	return -err;
}

/* DEBUGFS/systemtap/NAME/.cmd; false when the name does not fit. */
static bool ctl_path(char *buf, size_t size, const char *name)
{
	int n = snprintf(buf, size, "%s/%s/%s/%s", DEBUGFS_PATH,
			 STP_DEBUGFS_DIR, name, STP_CTL_NAME);

	return n > 0 && (size_t)n < size;
}

int modload_orphaned(const char *name)
{
	char path[4096];
	int fd;

	if (modload_debugfs_quiet() || !ctl_path(path, sizeof(path), name))
		return -ENOENT;
	/* The module lets one opener at a time have its control file:
	 * who gets it is the only reader, and closing it again leaves
	 * the module stopped (it stops itself when its reader goes).
	 */
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Whether /proc/modules lists NAME (no debugfs needed to know). */
static bool module_loaded(const char *name)
{
	size_t n = strlen(name);
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/modules", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, name, n) && line[n] == ' ';
	fclose(f);
	return found;
}

/* /sys/module/NAME/parameters/PARAM's first line into buf; 0 or
 * -errno.
 */
static int module_param_read(const char *name, const char *param,
			     char *buf, size_t size)
{
	char path[512];
	FILE *f;
	char *nl;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", name,
		 param);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

int modload_attachable(const char *name)
{
	char state[64], reader[32];

	if (!module_loaded(name)) {
		fprintf(stderr, "staprun: no module %s is loaded\n", name);
		return -ENOENT;
	}
	if (module_param_read(name, "_stp_state", state, sizeof(state))) {
		fprintf(stderr, "staprun: module %s is not a tapir module\n",
			name);
		return -ENOENT;
	}
	if (module_param_read(name, "_stp_reader", reader, sizeof(reader)) ==
	    0 && strcmp(reader, "0")) {
		fprintf(stderr, "staprun: module %s has a staprun attached "
			"already (pid %s)\n", name, reader);
		return -EBUSY;
	}
	if (!strncmp(state, "stopped", 7)) {
		fprintf(stderr, "staprun: module %s has stopped (%s); "
			"'staprun -d %s' removes it\n", name, state, name);
		return -ESRCH;
	}
	return modload_debugfs();
}

/* -d NAME: what can be said when NAME cannot be removed. */
static int delete_one(const char *name, int verbose)
{
	int err;

	if (!module_loaded(name)) {
		fprintf(stderr, "staprun: no module %s is loaded\n", name);
		return -ENOENT;
	}
	err = modload_orphaned(name);
	if (err == -EBUSY) {
		char reader[32];

		if (module_param_read(name, "_stp_reader", reader,
				      sizeof(reader)) == 0 &&
		    strcmp(reader, "0"))
			fprintf(stderr, "staprun: module %s is in use by a "
				"running staprun (pid %s); stop that one "
				"instead\n", name, reader);
		else
			fprintf(stderr, "staprun: module %s is in use by a "
				"running staprun; stop that one instead\n",
				name);
		return err;
	}
	if (err == -ENOENT) {
		fprintf(stderr, "staprun: module %s is not a tapir module: "
			"not removing it\n", name);
		return err;
	}
	if (err) {
		fprintf(stderr, "staprun: cannot check module %s: %s\n", name,
			strerror(-err));
		return err;
	}
	return modload_remove(name, verbose);
}

/* -d '*': every tapir module that no staprun reads. */
static int delete_all(int verbose)
{
	char dir[512];
	struct dirent *e;
	DIR *d;
	int err = 0;

	/* No module at all (or a kernel without them): nothing to do,
	 * and no reason to mount anything.
	 */
	if (access("/proc/modules", F_OK) < 0)
		return 0;
	if (modload_debugfs())
		return -ENODEV;
	snprintf(dir, sizeof(dir), "%s/%s", DEBUGFS_PATH, STP_DEBUGFS_DIR);
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (modload_orphaned(e->d_name) == -EBUSY) {
			if (verbose)
				fprintf(stderr, "staprun: leaving %s to the "
					"staprun attached to it\n",
					e->d_name);
			continue;
		}
		if (delete_one(e->d_name, verbose))
			err = -EIO;
	}
	closedir(d);
	return err;
}

int modload_delete(const char *name, int verbose)
{
	if (!strcmp(name, "*"))
		return delete_all(verbose);
	if (module_loaded(name) && modload_debugfs())
		return -ENODEV;
	return delete_one(name, verbose);
}

int modload_debugfs_quiet(void)
{
	struct statfs st;

	if (statfs(DEBUGFS_PATH, &st) == 0 &&
	    (unsigned long)st.f_type == DEBUGFS_MAGIC_NUMBER)
		return 0;
	return mount("debugfs", DEBUGFS_PATH, "debugfs", 0, NULL) ? -errno :
								      0;
}

int modload_debugfs(void)
{
	int err = modload_debugfs_quiet();

	if (err)
		fprintf(stderr, "staprun: debugfs is not mounted on %s and "
			"could not be: %s\n", DEBUGFS_PATH, strerror(-err));
	return err;
}
