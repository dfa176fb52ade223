/* providers/procfs.c - procfs("PATH").read[.maxsize(N)] and
 * procfs("PATH").write, with .umask(N): files under
 * /proc/systemtap/MODULE whose reads and writes run the script's
 * handlers, the data passing through $value (runtime/stp_procfs.c).
 */
#include "../emit.h"
#include "../provider.h"
#include "../session.h"
#include "../target.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PROCFS_DEFAULT_NAME "command"
/* the file staprun -i writes its standard input to (tapset/input.stp) */
#define PROCFS_STDIN "__stdin"
/* a read file's buffer is static in the module: keep it reasonable */
#define PROCFS_MAXSIZE_MAX (8 << 20)
#define PROCFS_NAME_MAX 255
#define PROCFS_FILES_DEFAULT 16		/* STP_MAX_PROCFS_FILES */

struct procfs_info {
	const char *path;		/* relative to /proc/systemtap/MOD */
	bool write;
	int64_t maxsize;		/* 0: STP_PROCFS_BUFSIZE */
	int64_t umask;			/* -1: none given */
};

/* One component of a path: not empty, not "." or "..", not too long. */
static const char *bad_component(const char *p, size_t n)
{
	if (n == 0)
		return "a procfs path may not start or end with '/' or have "
		       "an empty component";
	if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' &&
					p[1] == '.'))
		return "a procfs path may not contain '.' or '..'";
	if (n > PROCFS_NAME_MAX)
		return "a procfs path component may not be longer than 255 "
		       "bytes";
	return NULL;
}

static const char *bad_path(const char *path)
{
	const char *p = path, *slash, *why;

	for (;;) {
		slash = strchr(p, '/');
		why = bad_component(p, slash ? (size_t)(slash - p) :
				    strlen(p));
		if (why || !slash)
			return why;
		p = slash + 1;
	}
}

/* a is b's directory (b is "a/...") */
static bool is_dir_of(const char *a, const char *b)
{
	size_t n = strlen(a);

	return !strncmp(a, b, n) && b[n] == '/';
}

static int max_files(struct session *s)
{
	static const char key[] = "STP_MAX_PROCFS_FILES=";
	int i, n = PROCFS_FILES_DEFAULT;

	for (i = 0; i < s->opt.defines.n; i++) {
		const char *d = s->opt.defines.items[i];

		if (!strncmp(d, key, sizeof(key) - 1))
			n = atoi(d + sizeof(key) - 1);
	}
	return n;
}

/* Against the procfs probes derived before this one: one read probe
 * per file, no name both a file and a directory, and at most
 * STP_MAX_PROCFS_FILES files.
 */
static int check_siblings(struct prov_ctx *c, struct derived_probe *dp,
			  const struct procfs_info *pi)
{
	struct vec *all = &c->s->probes;
	int i, k, files = 1;

	for (i = 0; i < all->n; i++) {
		const struct derived_probe *o = all->items[i];
		const struct procfs_info *oi = o->priv;

		if (o->prov != dp->prov || !oi)
			continue;
		/* a file counts at its first probe */
		for (k = 0; k < i; k++) {
			const struct derived_probe *p = all->items[k];

			if (p->prov == dp->prov &&
			    !strcmp(((struct procfs_info *)p->priv)->path,
				    oi->path))
				break;
		}
		if (k == i && strcmp(oi->path, pi->path))
			files++;
		if (!pi->write && !oi->write && !strcmp(oi->path, pi->path)) {
			prov_error(c, dp->pp->loc, "procfs file \"%s\" has "
				   "two read probes (only one may fill it)",
				   pi->path);
			return -1;
		}
		if (is_dir_of(oi->path, pi->path) ||
		    is_dir_of(pi->path, oi->path)) {
			prov_error(c, dp->pp->loc, "procfs paths \"%s\" and "
				   "\"%s\": one cannot be both a file and a "
				   "directory", pi->path, oi->path);
			return -1;
		}
	}
	if (files > max_files(c->s)) {
		prov_error(c, dp->pp->loc, "more than %d procfs files (raise "
			   "the limit with -D STP_MAX_PROCFS_FILES=N)",
			   max_files(c->s));
		return -1;
	}
	return 0;
}

static int procfs_build(struct prov_ctx *c, struct derived_probe *dp)
{
	const struct probe_point *pp = dp->pp;
	const struct pp_comp *root = vec_get(&pp->comps, 0);
	const struct pp_comp *um = pp_comp_of(pp, intern("umask"));
	const struct pp_comp *ms = pp_comp_of(pp, intern("maxsize"));
	struct procfs_info *pi = arena_alloc(c->s->arena, sizeof(*pi));
	const char *why;

	pi->path = root->arg ? root->arg->str : PROCFS_DEFAULT_NAME;
	pi->write = pp_comp_of(pp, intern("write")) != NULL;
	pi->umask = -1;
	why = bad_path(pi->path);
	if (why) {
		prov_error(c, root->arg->loc, "%s", why);
		return -1;
	}
	if (um && (!pp_arg_num(um->arg, &pi->umask) || pi->umask < 0 ||
		   pi->umask > 0777)) {
		prov_error(c, um->arg ? um->arg->loc : um->loc,
			   "umask must be between 0 and 0777");
		return -1;
	}
	if (ms && (!pp_arg_num(ms->arg, &pi->maxsize) || pi->maxsize < 1 ||
		   pi->maxsize > PROCFS_MAXSIZE_MAX)) {
		prov_error(c, ms->arg ? ms->arg->loc : ms->loc,
			   "maxsize must be between 1 and %d",
			   PROCFS_MAXSIZE_MAX);
		return -1;
	}
	if (check_siblings(c, dp, pi))
		return -1;
	dp->priv = pi;
	return 0;
}

/* $value: what a read of the file returns (assigned with = or .= in a
 * read probe), or what was written (read in a write probe).
 */
static int procfs_resolve_target(struct prov_ctx *c,
				 struct derived_probe *dp, struct expr *e)
{
	const struct procfs_info *pi = dp->priv;
	struct tref *r;

	if (strcmp(e->name, "$value")) {
		prov_error(c, e->loc, "procfs probes have one target "
			   "variable, $value (not '%s')", e->name);
		return -1;
	}
	if (e->comps.n || e->addressof || e->pretty) {
		prov_error(c, e->loc, "$value of a procfs probe is a plain "
			   "string: no members, '&' or pretty-printing");
		return -1;
	}
	r = arena_alloc(c->s->arena, sizeof(*r));
	r->base = TRB_PROCFS;
	r->value = !pi->write;		/* a read probe writes $value */
	e->tref = r;
	return 0;
}

static void procfs_list_vars(const struct derived_probe *dp,
			     struct strbuf *sb)
{
	(void)dp;
	sb_puts(sb, " $value:string");
}

static const char *procfs_probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_PROCFS";
}

/* Pass 3: the files, their directories (parents first) and static
 * buffers.
 */
struct pfile {
	const char *path;
	const struct derived_probe *read;
	struct vec writes;		/* struct derived_probe * */
	int64_t rmask, wmask;		/* umasks given (ORed), -1: none */
	int dir;			/* index into the dirs, -1: the root */
};

static struct pfile *pfile_of(struct arena *a, struct vec *files,
			      const char *path)
{
	struct pfile *f;
	int i;

	for (i = 0; i < files->n; i++) {
		f = files->items[i];
		if (!strcmp(f->path, path))
			return f;
	}
	f = arena_alloc(a, sizeof(*f));
	f->path = path;
	f->rmask = f->wmask = -1;
	f->dir = -1;
	vec_push(a, files, f);
	return f;
}

/* Index of directory path[0..len) (a prefix of some file's path),
 * added after its parents when new.
 */
static int dir_of(struct arena *a, struct vec *dirs, const char *path,
		  size_t len)
{
	const char *slash;
	char *d;
	int i;

	d = arena_strndup(a, path, len);
	for (i = 0; i < dirs->n; i++)
		if (!strcmp(dirs->items[i], d))
			return i;
	slash = strrchr(d, '/');
	if (slash)
		dir_of(a, dirs, d, (size_t)(slash - d));
	vec_push(a, dirs, d);
	return dirs->n - 1;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static int parent_dir(struct vec *dirs, const char *path)
{
	const char *slash = strrchr(path, '/');
	int i;

	if (!slash)
		return -1;
	for (i = 0; i < dirs->n; i++)
		if (strlen(dirs->items[i]) == (size_t)(slash - path) &&
		    !strncmp(dirs->items[i], path, (size_t)(slash - path)))
			return i;
	return -1;
}

static unsigned int pfile_mode(const struct pfile *f)
{
	unsigned int mode = 0, mask = 0;

	if (f->read) {
		mode |= 0444;
		mask |= (unsigned int)(f->rmask < 0 ? 0044 : f->rmask);
	}
	if (f->writes.n) {
		mode |= 0222;
		mask |= (unsigned int)(f->wmask < 0 ? 0022 : f->wmask);
	}
	return mode & ~mask;
}

static void emit_buffers(struct emitter *em, struct vec *files)
{
	struct strbuf *d = emit_out(em, EMIT_DECLS);
	int i, k;

	for (i = 0; i < files->n; i++) {
		const struct pfile *f = files->items[i];
		const struct procfs_info *pi = f->read ? f->read->priv : NULL;

		if (f->read && pi->maxsize)
			sb_printf(d, "static char stp_procfs_rbuf_%d[%" PRId64
				  "];\n", i, pi->maxsize);
		else if (f->read)
			sb_printf(d, "static char stp_procfs_rbuf_%d"
				  "[STP_PROCFS_BUFSIZE];\n", i);
		if (!f->writes.n)
			continue;
		sb_printf(d, "static char stp_procfs_wbuf_%d[MAXSTRINGLEN];\n"
			  "static const struct stp_probe *const "
			  "stp_procfs_writes_%d[] = {", i, i);
		for (k = 0; k < f->writes.n; k++)
			sb_printf(d, "%s %s", k ? "," : "",
				  emit_probe_ref(em, f->writes.items[k]));
		sb_puts(d, " };\n");
	}
}

static void emit_tables(struct emitter *em, struct vec *files,
			struct vec *dirs)
{
	struct strbuf *d = emit_out(em, EMIT_DECLS);
	int i;

	sb_printf(d, "\nstatic struct stp_procfs_dir stp_procfs_dirs[%d] = {\n",
		  dirs->n ? dirs->n : 1);
	for (i = 0; i < dirs->n; i++) {
		sb_puts(d, "\t{ .name = ");
		sb_c_string(d, base_name(dirs->items[i]));
		sb_printf(d, ", .parent = %d },\n",
			  parent_dir(dirs, dirs->items[i]));
	}
	sb_printf(d, "};\n\nstatic struct stp_procfs_file "
		  "stp_procfs_files[%d] = {\n", files->n);
	for (i = 0; i < files->n; i++) {
		const struct pfile *f = files->items[i];

		sb_puts(d, "\t{\n\t\t.name = ");
		sb_c_string(d, base_name(f->path));
		sb_printf(d, ",\n\t\t.dir = %d,\n\t\t.mode = 0%o,\n", f->dir,
			  pfile_mode(f));
		if (f->read)
			sb_printf(d, "\t\t.read = %s,\n\t\t.rbuf = "
				  "stp_procfs_rbuf_%d,\n\t\t.rsize = "
				  "sizeof(stp_procfs_rbuf_%d),\n",
				  emit_probe_ref(em, f->read), i, i);
		if (f->writes.n)
			sb_printf(d, "\t\t.writes = stp_procfs_writes_%d,\n"
				  "\t\t.nwrites = %d,\n\t\t.wbuf = "
				  "stp_procfs_wbuf_%d,\n", i, f->writes.n, i);
		sb_puts(d, "\t},\n");
	}
	sb_puts(d, "};\n\n");
}

static void procfs_emit_group(struct emitter *em, struct vec *dps)
{
	struct arena *a = emit_session(em)->arena;
	struct vec files = { 0 }, dirs = { 0 };
	int i;

	for (i = 0; i < dps->n; i++) {
		struct derived_probe *dp = dps->items[i];
		const struct procfs_info *pi = dp->priv;
		struct pfile *f = pfile_of(a, &files, pi->path);

		int64_t *mask = pi->write ? &f->wmask : &f->rmask;

		if (pi->write)
			vec_push(a, &f->writes, dp);
		else
			f->read = dp;
		if (pi->umask >= 0)
			*mask = (*mask < 0 ? 0 : *mask) | pi->umask;
	}
	for (i = 0; i < files.n; i++) {
		struct pfile *f = files.items[i];
		const char *slash = strrchr(f->path, '/');

		if (slash)
			dir_of(a, &dirs, f->path, (size_t)(slash - f->path));
	}
	for (i = 0; i < files.n; i++) {
		struct pfile *f = files.items[i];

		f->dir = parent_dir(&dirs, f->path);
	}
	emit_buffers(em, &files);
	emit_tables(em, &files, &dirs);
	sb_printf(emit_out(em, EMIT_START),
		  "\trc = _stp_procfs_start(stp_procfs_dirs, %d, "
		  "stp_procfs_files, %d);\n", dirs.n, files.n);
	sb_printf(emit_out(em, EMIT_STOP),
		  "\t_stp_procfs_stop(stp_procfs_files, %d);\n", files.n);
}

bool procfs_reads_stdin(struct session *s)
{
	int i;

	for (i = 0; i < s->probes.n; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		const struct procfs_info *pi = dp->priv;

		if (dp->prov == &procfs_provider && pi->write &&
		    !strcmp(pi->path, PROCFS_STDIN))
			return true;
	}
	return false;
}

static const char *const procfs_patterns[] = {
	"procfs{,(s)}{,.umask(n)}{.read{,.maxsize(n)},.write}",
	NULL
};

const struct provider procfs_provider = {
	.name = "procfs",
	.patterns = procfs_patterns,
	.build = procfs_build,
	.resolve_target = procfs_resolve_target,
	.list_vars = procfs_list_vars,
	.emit_group = procfs_emit_group,
	.probe_type = procfs_probe_type,
};
