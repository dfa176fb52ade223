/* btf.c - kernel BTF for kernels that are not running.
 *
 * The running kernel publishes its BTF in /sys/kernel/btf/vmlinux, but
 * a module may be built for another installed kernel.  Its only BTF is
 * the .BTF section of vmlinux, which is compressed inside the bzImage
 * /boot/vmlinuz-KVER.  We find the compressed payload, let the system's
 * xz/zstd/gzip decompress it (no decompressor library to link), take
 * .BTF out of the ELF with libelf, and cache those few megabytes so that
 * later loads are a plain btf__parse_raw().
 *
 * A module's .BTF is split BTF on top of the kernel's: the same steps on
 * its .ko (unpacked if it is .ko.xz), cached per kernel and module.
 */
#define _GNU_SOURCE
#include "debuginfo/btf.h"
#include "cache.h"
#include "debuginfo/kmod.h"
#include "util.h"

#include <bpf/btf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

struct kbtf {
	struct ksrc src;	/* first: kbtf_src() and back */
	struct btf *btf;
	struct arena *arena;	/* type strings handed out to callers */
	struct ktype **types;	/* ktype of each BTF id, made on demand */
	struct kbtf_name *funcs;	/* FUNC records by name, made once */
	size_t nfuncs;
	/* A module's BTF is split BTF: its ids continue after the
	 * kernel's, whose types it uses without copies.  first_id is its
	 * own first id (1 for vmlinux); its functions are only its own,
	 * and the ktypes of the kernel's ids are the kernel's kbtf's.
	 */
	__u32 first_id;
	struct kbtf *base;
	bool from_sysfs;	/* the running kernel's: /sys/kernel/btf */
};

struct kbtf_name {
	const char *name;
	__u32 id;
};

/* ------------------------------------------------ finding the payload */

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The x86 boot protocol (2.08+) records where the payload starts in the
 * setup header, which is exact; a byte scan for the magic is the
 * fallback for other images, and gzip is left out of it because its
 * three-byte magic turns up by chance in code.
 */
static const struct kmod_decomp *find_payload(const unsigned char *img,
					      size_t len, size_t *off)
{
	const struct kmod_decomp *d;
	size_t i;

	if (len > 0x250 && !memcmp(img + 0x202, "HdrS", 4)) {
		size_t sects = img[0x1f1] ? img[0x1f1] : 4;
		size_t at = (sects + 1) * 512 + le32(img + 0x248);

		if (at < len && (d = kmod_decomp_at(img + at, len - at))) {
			*off = at;
			return d;
		}
	}
	for (i = 0; i + 6 <= len; i++) {
		d = kmod_decomp_at(img + i, len - i);
		if (d && !d->weak_magic) {
			*off = i;
			return d;
		}
	}
	return NULL;
}

/* The .BTF section of an in-memory vmlinux, or NULL if it is not a whole
 * ELF file with one.  A truncated image fails here because the section
 * headers are at the end of the file.
 */
static bool elf_btf(char *img, size_t len, const void **btf, size_t *btflen)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return false;
	e = elf_memory(img, len);
	if (!e)
		return false;
	if (elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx)) {
		elf_end(e);
		return false;
	}
	while (!found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".BTF"))
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_buf && data->d_size) {
			/* d_buf points into img: the ELF is not
			 * compressed or byte-swapped, so no copy is made
			 * and img outlives the Elf handle.
			 */
			*btf = data->d_buf;
			*btflen = data->d_size;
			found = true;
		}
	}
	elf_end(e);
	return found;
}

/* Write atomically, so that a concurrent or interrupted run never leaves
 * a half-written cache file for the next one to parse.
 */
static bool write_cache(const char *path, const void *data, size_t len)
{
	char *tmp;
	int fd;
	bool ok;

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return false;
	fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		return false;
	}
	ok = write(fd, data, len) == (ssize_t)len;
	ok = !close(fd) && ok;
	ok = ok && !rename(tmp, path);
	if (!ok)
		unlink(tmp);
	free(tmp);
	return ok;
}

int vmlinuz_unpack(const char *kver, struct vmlinuz *v, char **err)
{
	char *img;
	size_t len;

	memset(v, 0, sizeof(*v));
	if (asprintf(&v->path, "/boot/vmlinuz-%s", kver) < 0) {
		v->path = NULL;
		err_set(err, "out of memory");
		return -1;
	}
	img = read_file(v->path, &len);
	if (!img) {
		if (errno == ENOENT)
			err_set(err, "no %s: install linux-image-%s", v->path,
				kver);
		else
			err_set(err, "cannot read %s: %s", v->path,
				strerror(errno));
		goto fail;
	}
	v->decomp = find_payload((const unsigned char *)img, len, &v->off);
	free(img);
	if (!v->decomp) {
		err_set(err, "%s: no xz, zstd or gzip payload found", v->path);
		goto fail;
	}
	v->data = kmod_decompress(v->path, v->off, v->decomp, &v->len,
				  &v->status, err);
	if (!v->data)
		goto fail;
	return 0;
fail:
	vmlinuz_release(v);
	return -1;
}

void vmlinuz_lacks(const struct vmlinuz *v, const char *what, char **err)
{
	if (v->status == 127 && v->len == 0)
		err_set(err, "%s: cannot run %s to decompress it", v->path,
			v->decomp->name);
	else if (v->status)
		err_set(err, "%s: %s -dc failed (status %d) on the payload "
			"at offset %zu", v->path, v->decomp->name, v->status,
			v->off);
	else
		err_set(err, "%s: the decompressed kernel has no %s", v->path,
			what);
}

void vmlinuz_release(struct vmlinuz *v)
{
	free(v->data);
	free(v->path);
	memset(v, 0, sizeof(*v));
}

/* Extract the BTF of kver from its bzImage into a new struct btf, and
 * store the raw bytes at cache if that is not NULL.
 */
static struct btf *btf_from_image(const char *kver, const char *cache,
				  char **err)
{
	struct vmlinuz v;
	size_t btflen;
	const void *raw;
	struct btf *btf = NULL;

	if (vmlinuz_unpack(kver, &v, err))
		return NULL;
	if (!elf_btf(v.data, v.len, &raw, &btflen)) {
		vmlinuz_lacks(&v, ".BTF section (CONFIG_DEBUG_INFO_BTF off?)",
			      err);
		goto out;
	}
	btf = btf__new(raw, (__u32)btflen);
	if (!btf) {
		err_set(err, "%s: bad .BTF section: %s", v.path,
			strerror(errno));
		goto out;
	}
	/* A failed store only costs the next run another extraction. */
	if (cache)
		write_cache(cache, raw, btflen);
out:
	vmlinuz_release(&v);
	return btf;
}

static const struct ksrc_ops kbtf_ops;

static bool running_kernel(const char *kver)
{
	struct utsname u;

	return !uname(&u) && !strcmp(u.release, kver);
}

static struct kbtf *kbtf_new(struct btf *btf, struct kbtf *base, char **err)
{
	struct kbtf *b = xmalloc(sizeof(*b));

	memset(b, 0, sizeof(*b));
	b->src.ops = &kbtf_ops;
	b->btf = btf;
	b->arena = arena_new();
	b->base = base;
	b->first_id = base ? btf__type_cnt(base->btf) : 1;
	b->types = calloc(btf__type_cnt(btf) - (base ? b->first_id : 0),
			  sizeof(*b->types));
	if (!b->types) {
		kbtf_free(b);
		err_set(err, "out of memory");
		return NULL;
	}
	return b;
}

struct kbtf *kbtf_load(const char *kver, const char *cachedir, char **err)
{
	struct kbtf *b;
	struct btf *btf = NULL;
	char *dir = NULL, *cache = NULL;
	bool from_sysfs = false;

	if (err)
		*err = NULL;
	/* kver becomes part of paths: keep it from leaving /boot. */
	if (!kver || !*kver || strchr(kver, '/') || kver[0] == '.') {
		err_set(err, "invalid kernel release '%s'", kver ? kver : "");
		return NULL;
	}
	if (running_kernel(kver) && file_exists("/sys/kernel/btf/vmlinux")) {
		btf = btf__parse_raw("/sys/kernel/btf/vmlinux");
		from_sysfs = btf != NULL;
	}
	if (!btf && cachedir) {
		if (asprintf(&dir, "%s/btf", cachedir) < 0 ||
		    asprintf(&cache, "%s/%s.btf", dir, kver) < 0) {
			err_set(err, "out of memory");
			free(dir);
			return NULL;
		}
		if (file_exists(cache)) {
			btf = btf__parse_raw(cache);
			/* Corrupt or from an incompatible libbpf: redo. */
			if (!btf)
				unlink(cache);
			else
				cache_touch(cache);
		}
		if (!btf && !mkdir_p(dir)) {
			free(cache);
			cache = NULL;
		}
	}
	if (!btf)
		btf = btf_from_image(kver, cache, err);
	free(dir);
	free(cache);
	if (!btf)
		return NULL;
	b = kbtf_new(btf, NULL, err);
	if (b)
		b->from_sysfs = from_sysfs;
	return b;
}

/* ------------------------------------------------------- modules */

/* The cached split BTF of a module, if it is newer than the module
 * file (a package upgrade keeps the release but replaces the file).
 */
static struct btf *module_cached(const char *cache, const char *path,
				 struct btf *base)
{
	struct stat cs, ms;
	struct btf *btf;

	if (stat(cache, &cs) || stat(path, &ms) || cs.st_mtime < ms.st_mtime)
		return NULL;
	btf = btf__parse_raw_split(cache, base);
	if (!btf)
		unlink(cache);
	else
		cache_touch(cache);
	return btf;
}

/* libbpf 1.1 declares btf__new_split() but does not export it: split
 * BTF is parsed from a file, the cache or else a temporary one.
 */
static struct btf *split_from_bytes(const void *raw, size_t len,
				    struct btf *base, const char *cache)
{
	char tmp[] = "/tmp/tapir-btf.XXXXXX";
	struct btf *btf;
	int fd;
	bool ok;

	if (cache && write_cache(cache, raw, len))
		return btf__parse_raw_split(cache, base);
	fd = mkstemp(tmp);
	if (fd < 0)
		return NULL;
	ok = write(fd, raw, len) == (ssize_t)len;
	ok = !close(fd) && ok;
	btf = ok ? btf__parse_raw_split(tmp, base) : NULL;
	unlink(tmp);
	return btf;
}

/* The .BTF of the module file at path, split on base; stored raw at
 * cache if that is not NULL.
 */
static struct btf *module_from_file(const char *name, const char *path,
				    struct btf *base, const char *cache,
				    char **err)
{
	size_t len, btflen;
	const void *raw;
	struct btf *btf;
	char *img = kmod_read(path, &len, err);

	if (!img)
		return NULL;
	if (!elf_btf(img, len, &raw, &btflen)) {
		err_set(err, "module %s (%s) has no .BTF section", name, path);
		free(img);
		return NULL;
	}
	btf = split_from_bytes(raw, btflen, base, cache);
	if (!btf)
		err_set(err, "module %s (%s): bad .BTF section: %s", name,
			path, strerror(errno));
	free(img);
	return btf;
}

struct kbtf *kbtf_load_module(struct kbtf *base, const char *kver,
			      const char *name, const char *path,
			      const char *cachedir, char **err)
{
	struct btf *btf = NULL;
	char *dir = NULL, *cache = NULL, *sys = NULL;

	if (err)
		*err = NULL;
	if (!*name || strchr(name, '/') || name[0] == '.') {
		err_set(err, "invalid module name '%s'", name);
		return NULL;
	}
	/* the running kernel's, when the module is loaded */
	if (base->from_sysfs && asprintf(&sys, "/sys/kernel/btf/%s",
					 name) >= 0 && file_exists(sys))
		btf = btf__parse_raw_split(sys, base->btf);
	free(sys);
	if (!btf && cachedir) {
		if (asprintf(&dir, "%s/btf/%s", cachedir, kver) < 0 ||
		    asprintf(&cache, "%s/%s.btf", dir, name) < 0) {
			err_set(err, "out of memory");
			free(dir);
			return NULL;
		}
		btf = module_cached(cache, path, base->btf);
		if (!btf && !mkdir_p(dir)) {
			free(cache);
			cache = NULL;
		}
	}
	if (!btf)
		btf = module_from_file(name, path, base->btf, cache, err);
	free(dir);
	free(cache);
	return btf ? kbtf_new(btf, base, err) : NULL;
}

void kbtf_free(struct kbtf *b)
{
	if (!b)
		return;
	btf__free(b->btf);
	arena_free(b->arena);
	free(b->types);
	free(b->funcs);
	free(b);
}

/* ------------------------------------------------------ type strings */

static void type_str(const struct btf *btf, __u32 id, struct strbuf *sb);

static void proto_params(const struct btf *btf, const struct btf_type *t,
			 struct strbuf *sb)
{
	const struct btf_param *p = btf_params(t);
	int i, n = btf_vlen(t);

	sb_putc(sb, '(');
	for (i = 0; i < n; i++) {
		if (i)
			sb_puts(sb, ", ");
		if (i == n - 1 && !p[i].type && !p[i].name_off)
			sb_puts(sb, "...");
		else
			type_str(btf, p[i].type, sb);
	}
	if (!n)
		sb_puts(sb, "void");
	sb_putc(sb, ')');
}

static void tagged_name(const struct btf *btf, const char *kw,
			const struct btf_type *t, struct strbuf *sb)
{
	const char *name = btf__name_by_offset(btf, t->name_off);

	sb_printf(sb, "%s %s", kw, name && *name ? name : "{...}");
}

/* SystemTap's spelling of a type: names as the kernel wrote them ("long
 * int", typedefs kept), qualifiers in front ("const char*"), and the
 * pointer star attached with no space.  A qualified pointer, which C
 * writes after the star, gets " const" after it.
 */
static void type_str(const struct btf *btf, __u32 id, struct strbuf *sb)
{
	const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;
	const struct btf_type *u;

	if (!t) {
		sb_puts(sb, "void");
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPEDEF:
		sb_puts(sb, btf__name_by_offset(btf, t->name_off));
		break;
	case BTF_KIND_PTR:
		u = t->type ? btf__type_by_id(btf, t->type) : NULL;
		if (u && btf_is_func_proto(u)) {
			type_str(btf, u->type, sb);
			sb_puts(sb, " (*)");
			proto_params(btf, u, sb);
		} else {
			type_str(btf, t->type, sb);
			sb_putc(sb, '*');
		}
		break;
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE: {
		const char *q = btf_is_const(t) ? "const" : "volatile";

		u = t->type ? btf__type_by_id(btf, t->type) : NULL;
		if (u && btf_is_ptr(u)) {
			type_str(btf, t->type, sb);
			sb_printf(sb, " %s", q);
		} else {
			sb_printf(sb, "%s ", q);
			type_str(btf, t->type, sb);
		}
		break;
	}
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		/* Not part of how SystemTap names a type. */
		type_str(btf, t->type, sb);
		break;
	case BTF_KIND_STRUCT:
		tagged_name(btf, "struct", t, sb);
		break;
	case BTF_KIND_UNION:
		tagged_name(btf, "union", t, sb);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		tagged_name(btf, "enum", t, sb);
		break;
	case BTF_KIND_FWD:
		tagged_name(btf, btf_kflag(t) ? "union" : "struct", t, sb);
		break;
	case BTF_KIND_ARRAY:
		type_str(btf, btf_array(t)->type, sb);
		sb_printf(sb, "[%u]", btf_array(t)->nelems);
		break;
	case BTF_KIND_FUNC_PROTO:
		type_str(btf, t->type, sb);
		sb_putc(sb, ' ');
		proto_params(btf, t, sb);
		break;
	default:
		sb_printf(sb, "<btf kind %u>", btf_kind(t));
		break;
	}
}

static const char *type_name(struct kbtf *b, __u32 id)
{
	struct strbuf sb;
	const char *s;

	sb_init(&sb);
	type_str(b->btf, id, &sb);
	s = arena_strndup(b->arena, sb.buf ? sb.buf : "", sb.len);
	sb_free(&sb);
	return s;
}

/* ------------------------------------------------------------ lookups */

static int cmp_kbtf_name(const void *a, const void *b)
{
	const struct kbtf_name *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* libbpf looks names up by scanning every type: with tens of thousands
 * of functions probed that is quadratic, so the FUNC records get an
 * index of their own.
 */
static void func_index(struct kbtf *b)
{
	__u32 id, last = btf__type_cnt(b->btf);

	if (b->funcs)
		return;
	b->funcs = xmalloc(sizeof(*b->funcs) * last);
	for (id = b->first_id; id < last; id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);
		const char *name;

		if (!btf_is_func(t))
			continue;
		name = btf__name_by_offset(b->btf, t->name_off);
		if (!name)
			continue;
		b->funcs[b->nfuncs].name = name;
		b->funcs[b->nfuncs++].id = id;
	}
	qsort(b->funcs, b->nfuncs, sizeof(*b->funcs), cmp_kbtf_name);
}

static __s32 find_func(struct kbtf *b, const char *name)
{
	struct kbtf_name key = { name, 0 }, *hit;

	func_index(b);
	hit = bsearch(&key, b->funcs, b->nfuncs, sizeof(*b->funcs),
		      cmp_kbtf_name);
	return hit ? (__s32)hit->id : -ENOENT;
}


/* A module's own type of that name before the kernel's: a struct only
 * the module defines, or its own one of a name the kernel uses too.
 */
static __s32 find_named(struct kbtf *b, const char *name, __u32 kind)
{
	__u32 id, last = btf__type_cnt(b->btf);

	for (id = b->first_id; b->first_id > 1 && id < last; id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);
		const char *n;

		if (btf_kind(t) != kind)
			continue;
		n = btf__name_by_offset(b->btf, t->name_off);
		if (n && !strcmp(n, name))
			return (__s32)id;
	}
	return btf__find_by_name_kind(b->btf, name, kind);
}

/* The FUNC record of name and its prototype, or NULL. */
static const struct btf_type *func_proto(struct kbtf *b, const char *name,
					 const struct btf_type **fn)
{
	const struct btf_type *proto;
	__s32 id = find_func(b, name);

	if (id <= 0)
		return NULL;
	*fn = btf__type_by_id(b->btf, (__u32)id);
	proto = btf__type_by_id(b->btf, (*fn)->type);
	return proto && btf_is_func_proto(proto) ? proto : NULL;
}

int kbtf_func(struct kbtf *b, const char *name, struct kbtf_func *out)
{
	const struct btf_type *fn, *proto;
	const struct btf_param *p;
	int i, n;

	proto = func_proto(b, name, &fn);
	if (!proto)
		return -ENOENT;
	p = btf_params(proto);
	n = btf_vlen(proto);
	memset(out, 0, sizeof(*out));
	if (n && !p[n - 1].type && !p[n - 1].name_off) {
		out->variadic = true;
		n--;
	}
	if (n > KBTF_MAX_PARAMS)
		return -E2BIG;
	for (i = 0; i < n; i++) {
		out->param_names[i] = arena_strdup(b->arena,
				btf__name_by_offset(b->btf, p[i].name_off));
		out->param_types[i] = type_name(b, p[i].type);
	}
	out->nparams = n;
	out->ret_type = type_name(b, proto->type);
	return 0;
}

int kbtf_funcs_matching(struct kbtf *b, const char *glob,
			void (*cb)(const char *name, void *arg), void *arg)
{
	int reported = 0;
	size_t i;

	func_index(b);	/* sorted by name */
	for (i = 0; i < b->nfuncs; i++) {
		const char *name = b->funcs[i].name;

		if ((i && !strcmp(name, b->funcs[i - 1].name)) ||
		    !glob_match(glob, name))
			continue;
		cb(name, arg);
		reported++;
	}
	return reported;
}

/* Find member in the struct or union t, descending into anonymous
 * members; base is the bit offset of t itself within the outer type.
 */
static bool find_member(struct kbtf *b, const struct btf_type *t,
			const char *member, __u32 base, struct kbtf_member *out)
{
	const struct btf_member *m = btf_members(t);
	int i, n = btf_vlen(t);

	for (i = 0; i < n; i++) {
		const char *name = btf__name_by_offset(b->btf, m[i].name_off);
		__u32 bits = base + btf_member_bit_offset(t, (__u32)i);
		__u32 size = btf_member_bitfield_size(t, (__u32)i);

		if (name && *name) {
			if (strcmp(name, member))
				continue;
			out->offset = bits / 8;
			out->type = type_name(b, m[i].type);
			out->bitfield = size != 0;
			out->bit_offset = size ? bits % 8 : 0;
			out->bit_size = size;
			return true;
		} else {
			const struct btf_type *u;
			__s32 id = btf__resolve_type(b->btf, m[i].type);

			u = id > 0 ? btf__type_by_id(b->btf, (__u32)id) : NULL;
			if (u && btf_is_composite(u) &&
			    find_member(b, u, member, bits, out))
				return true;
		}
	}
	return false;
}

int kbtf_member(struct kbtf *b, const char *type, const char *member,
		struct kbtf_member *out)
{
	const struct btf_type *t;
	__s32 id = -1;

	if (!strncmp(type, "struct ", 7))
		id = find_named(b, type + 7,
					    BTF_KIND_STRUCT);
	else if (!strncmp(type, "union ", 6))
		id = find_named(b, type + 6, BTF_KIND_UNION);
	else if ((id = find_named(b, type,
					      BTF_KIND_TYPEDEF)) > 0)
		id = btf__resolve_type(b->btf, (__u32)id);
	if (id <= 0)
		return -ENOENT;
	t = btf__type_by_id(b->btf, (__u32)id);
	if (!t || !btf_is_composite(t))
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	return find_member(b, t, member, 0, out) ? 0 : -ENOENT;
}

/* ---------------------------------------------------- ktype interface */

static const struct ktype *ktype_of(struct kbtf *b, __u32 id);

/* The complete struct/union a forward declaration stands for, if BTF
 * has exactly that name.
 */
static __u32 complete_fwd(struct kbtf *b, const struct btf_type *t, __u32 id)
{
	const char *name = btf__name_by_offset(b->btf, t->name_off);
	__s32 full;

	if (!name || !*name)
		return id;
	full = find_named(b, name, btf_kflag(t) ?
				      BTF_KIND_UNION : BTF_KIND_STRUCT);
	return full > 0 ? (__u32)full : id;
}

/* The shape of id: kind, size, sign and target, looking through
 * typedefs and qualifiers.  The name is filled in by the caller.
 */
static void fill_shape(struct kbtf *b, __u32 id, struct ktype *kt)
{
	const struct btf_type *t;

	for (;;) {
		t = id ? btf__type_by_id(b->btf, id) : NULL;
		if (!t) {
			kt->kind = KT_VOID;
			return;
		}
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			continue;
		default:
			break;
		}
		break;
	}
	kt->handle = id;
	switch (btf_kind(t)) {
	case BTF_KIND_INT: {
		__u32 enc = btf_int_encoding(t);
		const char *n = btf__name_by_offset(b->btf, t->name_off);

		kt->kind = KT_INT;
		kt->size = t->size;
		kt->is_signed = enc & BTF_INT_SIGNED;
		kt->is_char = t->size == 1 && n && strstr(n, "char");
		break;
	}
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		kt->kind = KT_ENUM;
		kt->size = t->size;
		kt->is_signed = btf_kflag(t);
		break;
	case BTF_KIND_FLOAT:
		kt->kind = KT_FLOAT;
		kt->size = t->size;
		break;
	case BTF_KIND_PTR:
		kt->kind = KT_PTR;
		kt->size = sizeof(void *);
		kt->target = ktype_of(b, t->type);
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);
		__s64 sz = btf__resolve_size(b->btf, id);

		kt->kind = KT_ARRAY;
		kt->target = ktype_of(b, a->type);
		kt->nelem = a->nelems;
		kt->size = sz > 0 ? (unsigned int)sz : 0;
		break;
	}
	case BTF_KIND_FWD:
		id = complete_fwd(b, t, id);
		if (id != kt->handle) {
			fill_shape(b, id, kt);
			return;
		}
		kt->kind = btf_kflag(t) ? KT_UNION : KT_STRUCT;
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		kt->kind = btf_is_union(t) ? KT_UNION : KT_STRUCT;
		kt->size = t->size;
		break;
	case BTF_KIND_FUNC_PROTO:
		kt->kind = KT_FUNC;
		break;
	default:
		kt->kind = KT_VOID;
		break;
	}
}

/* One ktype per BTF id, made on first use.  The entry is stored before
 * its shape is filled, so self-referring types (a list node pointing to
 * its own struct) end.
 */
static const struct ktype *ktype_of(struct kbtf *b, __u32 id)
{
	struct ktype *kt;
	__u32 slot;

	if (id >= btf__type_cnt(b->btf))
		id = 0;
	if (b->base && id < b->first_id)
		return ktype_of(b->base, id);
	slot = b->base ? id - b->first_id : id;
	if (b->types[slot])
		return b->types[slot];
	kt = arena_alloc(b->arena, sizeof(*kt));
	b->types[slot] = kt;
	kt->src = &b->src;
	kt->name = type_name(b, id);
	fill_shape(b, id, kt);
	return kt;
}

static struct kbtf *kbtf_of(const struct ksrc *s)
{
	return (struct kbtf *)s;
}

static void proto_to_kfunc(struct kbtf *b, const struct btf_type *proto,
			   int skip, struct kfunc *out)
{
	const struct btf_param *p = btf_params(proto);
	int i, n = btf_vlen(proto);

	if (n && !p[n - 1].type && !p[n - 1].name_off) {
		out->variadic = true;
		n--;
	}
	for (i = skip; i < n && out->nparams < KFUNC_MAX_PARAMS; i++) {
		struct kparam *kp = &out->params[out->nparams++];

		kp->name = btf__name_by_offset(b->btf, p[i].name_off);
		if (!kp->name)
			kp->name = "";
		kp->type = ktype_of(b, p[i].type);
	}
	out->ret = ktype_of(b, proto->type);
}

static int src_func(const struct ksrc *s, const char *name,
		    struct kfunc *out)
{
	struct kbtf *b = kbtf_of(s);
	const struct btf_type *fn, *proto;

	proto = func_proto(b, name, &fn);
	if (!proto)
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->name = btf__name_by_offset(b->btf, fn->name_off);
	if (btf_vlen(proto) > KFUNC_MAX_PARAMS + 1)
		return -E2BIG;
	proto_to_kfunc(b, proto, 0, out);
	return 0;
}

int kbtf_tracepoint(struct kbtf *b, const char *name, struct kfunc *out)
{
	const struct btf_type *t;
	char tdname[256];
	__s32 id;

	if (snprintf(tdname, sizeof(tdname), "btf_trace_%s", name) >=
	    (int)sizeof(tdname))
		return -ENOENT;
	id = find_named(b, tdname, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return -ENOENT;
	t = btf__type_by_id(b->btf, (__u32)id);
	t = t ? btf__type_by_id(b->btf, t->type) : NULL;	/* the pointer */
	t = t && btf_is_ptr(t) ? btf__type_by_id(b->btf, t->type) : NULL;
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < 1)
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->name = arena_strdup(b->arena, name);
	proto_to_kfunc(b, t, 1, out);
	return 0;
}

static int src_funcs_matching(const struct ksrc *s, const char *glob,
			      void (*cb)(const char *name, void *arg),
			      void *arg)
{
	return kbtf_funcs_matching(kbtf_of(s), glob, cb, arg);
}

/* Spellings users write for base types, and BTF's (gcc's) names. */
static const char *const base_aliases[][2] = {
	{ "unsigned", "unsigned int" },
	{ "signed", "int" },
	{ "long", "long int" },
	{ "signed long", "long int" },
	{ "unsigned long", "long unsigned int" },
	{ "long long", "long long int" },
	{ "unsigned long long", "long long unsigned int" },
	{ "short", "short int" },
	{ "unsigned short", "short unsigned int" },
	{ "unsigned char", "unsigned char" },
};

static int src_type_by_name(const struct ksrc *s, const char *name,
			    const struct ktype **out)
{
	struct kbtf *b = kbtf_of(s);
	static const struct {
		const char *kw;
		int kind;
	} tags[] = {
		{ "struct ", BTF_KIND_STRUCT },
		{ "union ", BTF_KIND_UNION },
		{ "enum ", BTF_KIND_ENUM },
	};
	__s32 id = -1;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tags); i++) {
		size_t n = strlen(tags[i].kw);

		if (strncmp(name, tags[i].kw, n))
			continue;
		id = find_named(b, name + n, tags[i].kind);
		if (id <= 0 && tags[i].kind == BTF_KIND_ENUM)
			id = find_named(b, name + n,
						    BTF_KIND_ENUM64);
		if (id <= 0 && tags[i].kind != BTF_KIND_ENUM)
			id = find_named(b, name + n,
						    BTF_KIND_FWD);
		break;
	}
	if (i == ARRAY_SIZE(tags)) {
		for (i = 0; i < ARRAY_SIZE(base_aliases); i++)
			if (!strcmp(name, base_aliases[i][0])) {
				name = base_aliases[i][1];
				break;
			}
		id = find_named(b, name, BTF_KIND_TYPEDEF);
		if (id <= 0)
			id = find_named(b, name,
						    BTF_KIND_INT);
	}
	if (id <= 0)
		return -ENOENT;
	*out = ktype_of(b, (__u32)id);
	return 0;
}

static int src_member_at(const struct ksrc *s, const struct ktype *kt,
			 int i, struct kmember *out)
{
	struct kbtf *b = kbtf_of(s);
	const struct btf_type *t;
	const struct btf_member *m;
	__u32 bits, size;

	if (kt->kind != KT_STRUCT && kt->kind != KT_UNION)
		return -EINVAL;
	t = btf__type_by_id(b->btf, (__u32)kt->handle);
	if (!t || !btf_is_composite(t) || i < 0 || i >= btf_vlen(t))
		return -ENOENT;
	m = btf_members(t) + i;
	bits = btf_member_bit_offset(t, (__u32)i);
	size = btf_member_bitfield_size(t, (__u32)i);
	out->name = btf__name_by_offset(b->btf, m->name_off);
	if (!out->name)
		out->name = "";
	out->type = ktype_of(b, m->type);
	out->offset = bits / 8;
	out->bit_offset = size ? bits % 8 : 0;
	out->bit_size = size;
	if (size && !out->bit_offset && !(size % 8) &&
	    size == out->type->size * 8)
		out->bit_size = 0;	/* a whole byte-aligned field */
	return 0;
}

static const char *src_enum_name(const struct ksrc *s, const struct ktype *kt,
				 int64_t value)
{
	struct kbtf *b = kbtf_of(s);
	const struct btf_type *t;
	int i, n;

	if (kt->kind != KT_ENUM)
		return NULL;
	t = btf__type_by_id(b->btf, (__u32)kt->handle);
	if (!t)
		return NULL;
	n = btf_vlen(t);
	for (i = 0; i < n; i++) {
		int64_t v;
		__u32 name_off;

		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t) + i;

			v = btf_kflag(t) ? (int64_t)(__s32)e->val :
					   (int64_t)(__u32)e->val;
			name_off = e->name_off;
		} else {
			const struct btf_enum64 *e = btf_enum64(t) + i;

			v = (int64_t)btf_enum64_value(e);
			name_off = e->name_off;
		}
		if (v == value)
			return btf__name_by_offset(b->btf, name_off);
	}
	return NULL;
}

static const struct ksrc_ops kbtf_ops = {
	.name = "BTF",
	.func = src_func,
	.funcs_matching = src_funcs_matching,
	.type_by_name = src_type_by_name,
	.member_at = src_member_at,
	.enum_name = src_enum_name,
};

const struct ksrc *kbtf_src(struct kbtf *b)
{
	return &b->src;
}
