/* ksyms.c - the kernel's function symbols, for the names that have no
 * type record: BTF describes no __x64_sys_* wrapper, no assembly entry
 * and nothing the compiler emitted without debug types.  The running
 * kernel's are in /proc/kallsyms; another kernel's in the symbol table
 * of its debuginfo vmlinux (the -dbg package).  Debian's
 * /boot/System.map is a placeholder, and the vmlinux inside vmlinuz
 * carries no symbol table, but it does carry the kernel's own kallsyms
 * tables, which are decoded here (and the list cached per kernel).  A
 * kernel with none of these has no list: ksyms_load() says so and names
 * are then left for the kernel to check when the probe is registered.
 *
 * The compiler's clones of a function (foo.isra.0, foo.constprop.0,
 * foo.part.0) are kept apart: a function that exists only as clones is
 * probed on them (ksyms_clones()).
 */
#define _GNU_SOURCE
#include "debuginfo/ksyms.h"
#include "cache.h"
#include "debuginfo/btf.h"
#include "debuginfo/elfsym.h"
#include "debuginfo/kmod.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

struct names {
	char **v;			/* sorted, unique */
	size_t n, cap;
};

struct ksyms {
	struct names fn;		/* functions */
	struct names clones;		/* foo.isra.0 and the like */
	const char *source;
};

/* A clone the compiler made of a function: the name, then one or more
 * of .isra.N, .constprop.N, .part.N (never .cold, a part of a function
 * that is no entry).  The length of the function's name, or 0.
 */
static size_t clone_of(const char *name, size_t len)
{
	static const char *const kinds[] = { ".isra.", ".constprop.",
					     ".part." };
	size_t end = len, base = 0;

	while (end) {
		size_t d = end, k;

		while (d && name[d - 1] >= '0' && name[d - 1] <= '9')
			d--;
		if (d == end)
			break;
		for (k = 0; k < 3; k++) {
			size_t kl = strlen(kinds[k]);

			if (d > kl && !memcmp(name + d - kl, kinds[k], kl))
				break;
		}
		if (k == 3)
			break;
		end = d - strlen(kinds[k]);
		base = end;
	}
	return base && !memchr(name, '.', base) ? base : 0;
}

static void push(struct names *l, const char *name, size_t len)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4096;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n] = xmalloc(len + 1);
	memcpy(l->v[l->n], name, len);
	l->v[l->n][len] = '\0';
	l->n++;
}

/* A text symbol: a function, a clone of one, or a name a script cannot
 * mean (ftrace's padding and CFI prefixes, foo.cold and other parts).
 */
static void add(struct ksyms *s, const char *name, size_t len)
{
	if (!len || !strncmp(name, "__pfx_", 6) ||
	    !strncmp(name, "__cfi_", 6))
		return;
	if (!memchr(name, '.', len))
		push(&s->fn, name, len);
	else if (clone_of(name, len))
		push(&s->clones, name, len);
}

static void sort_unique(struct names *l)
{
	size_t i, j;

	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(*l->v), cmp_strp);
	for (i = 1, j = 1; i < l->n; i++) {
		if (strcmp(l->v[i], l->v[j - 1]))
			l->v[j++] = l->v[i];
		else
			free(l->v[i]);
	}
	l->n = j;
}

static void finish(struct ksyms *s)
{
	sort_unique(&s->fn);
	sort_unique(&s->clones);
}

/* Text symbols of the kernel itself (a module's carry "[name]"). */
static int load_kallsyms(struct ksyms *s, const char *path, char **err)
{
	char line[1024];
	FILE *f = fopen(path, "r");

	if (!f) {
		err_set(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *type, *name, *end;

		type = strchr(line, ' ');
		if (!type || (type[1] != 't' && type[1] != 'T') ||
		    type[2] != ' ')
			continue;
		name = type + 3;
		end = name + strcspn(name, " \t\n");
		if (*end == '\t' || *end == ' ')
			continue;	/* a module's */
		add(s, name, (size_t)(end - name));
	}
	fclose(f);
	s->source = "/proc/kallsyms";
	return 0;
}

static bool symtab_one(const GElf_Sym *sym, const char *name, void *arg)
{
	if (GELF_ST_TYPE(sym->st_info) == STT_FUNC)
		add(arg, name, strlen(name));
	return true;
}

static int load_symtab(struct ksyms *s, const char *path, char **err)
{
	Elf *elf = NULL;
	int fd, rc = -1;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		err_set(err, "libelf: %s", elf_errmsg(-1));
		return -1;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		err_set(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		err_set(err, "%s: %s", path, elf_errmsg(-1));
		goto out;
	}
	if (elf_each_symbol(elf, SHT_SYMTAB, symtab_one, s))
		rc = 0;
	if (rc)
		err_set(err, "%s has no symbol table", path);
	s->source = "the debuginfo vmlinux";
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

/* ------------------------------------- the kallsyms tables of vmlinuz */

/* scripts/kallsyms.c lays out, each table aligned: kallsyms_num_syms,
 * kallsyms_names (a length byte, two when >= 0x80, then token numbers),
 * kallsyms_markers (u32: where every 256th name starts), on some
 * kernels kallsyms_seqs_of_names (3 bytes a symbol), then
 * kallsyms_token_table (256 strings) and kallsyms_token_index (u16:
 * where each starts).  The addresses are elsewhere and not needed.  The
 * token table is found by its single-digit tokens, which sit in order,
 * and every other table from there, each checked against the others.
 */
struct kall {
	const unsigned char *d;		/* .rodata */
	size_t len;
	size_t tok;			/* token table */
	uint16_t idx[256];
	size_t markers;			/* kallsyms_markers */
	size_t nmarkers;
	size_t names;			/* kallsyms_names */
	uint32_t nsyms;
};

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* A token index at q whose table holds the digit tokens at p. */
static bool token_index_at(struct kall *k, size_t p, size_t q)
{
	size_t t, i;

	for (i = 0; i < 256; i++)
		k->idx[i] = (uint16_t)(k->d[q + 2 * i] |
				       k->d[q + 2 * i + 1] << 8);
	if (k->idx[0] || k->idx['0'] > p)
		return false;
	t = p - k->idx['0'];
	for (i = 0; i < 256; i++) {
		size_t at = t + k->idx[i];
		const unsigned char *z;

		if (at >= q)
			return false;
		z = memchr(k->d + at, 0, q - at);
		if (!z || z == k->d + at)
			return false;
		if (i < 255 ? (size_t)(z - k->d) + 1 != t + k->idx[i + 1] :
			      q - (size_t)(z - k->d) - 1 >= 8)
			return false;
	}
	k->tok = t;
	return true;
}

static bool find_tokens(struct kall *k)
{
	static const char digits[] = "0\0" "1\0" "2\0" "3\0" "4\0" "5\0"
				     "6\0" "7\0" "8\0" "9";
	const unsigned char *hit = k->d;
	size_t left = k->len;

	while ((hit = memmem(hit, left, digits, sizeof(digits)))) {
		size_t p = (size_t)(hit - k->d), q;

		/* the index follows the table, 256 tokens further at most */
		for (q = (p + 20 + 1) & ~(size_t)1;
		     q + 512 <= k->len && q < p + 20 + 256 * 256; q += 2)
			if (!k->d[q] && !k->d[q + 1] && token_index_at(k, p, q))
				return true;
		hit++;
		left = k->len - (size_t)(hit - k->d);
	}
	return false;
}

/* The markers: u32s rising from 0 that end just before the token table
 * or before a seqs_of_names table of 3 bytes a symbol.
 */
static bool find_markers(struct kall *k)
{
	size_t e = k->tok & ~(size_t)3, lim;

	lim = e > 3 * 600000 ? e - 3 * 600000 : 4;
	for (; e > lim; e -= 4) {
		size_t m = e - 4, n, gap;

		if (!rd32(k->d + m))
			continue;
		while (m >= 4 && rd32(k->d + m - 4) < rd32(k->d + m))
			m -= 4;
		if (rd32(k->d + m))
			continue;
		n = (e - m) / 4;
		gap = k->tok - e;
		if (n >= 2 && (gap < 8 || (gap > 3 * 256 * (n - 1) &&
					   gap <= 3 * 256 * n + 8))) {
			k->markers = m;
			k->nmarkers = n;
			return true;
		}
	}
	return false;
}

/* Where the name after count names from at starts, or 0 past end. */
static size_t skip_names(const struct kall *k, size_t at, size_t count,
			 size_t end)
{
	while (count--) {
		size_t l;

		if (at >= end)
			return 0;
		l = k->d[at++];
		if (l & 0x80) {
			if (at >= end)
				return 0;
			l = (l & 0x7f) | (size_t)k->d[at++] << 7;
		}
		at += l;
	}
	return at <= end ? at : 0;
}

/* kallsyms_names ends before the markers and starts after num_syms,
 * whose value the markers' count bounds; every marker must agree.
 */
static bool find_names(struct kall *k)
{
	size_t end = k->markers;
	size_t last = rd32(k->d + end + 4 * (k->nmarkers - 1));
	size_t s, lo;

	if (last + 8 > end)
		return false;
	s = (end - last) & ~(size_t)3;
	lo = s > 256 * 1024 ? s - 256 * 1024 : 8;
	for (; s >= lo; s -= 4) {
		uint32_t n = rd32(k->d + s - 4);
		size_t at, i;

		if (!n && s >= 8)
			n = rd32(k->d + s - 8);
		if (!n || (n + 255) / 256 != k->nmarkers)
			continue;
		for (i = 1, at = s; i < k->nmarkers; i++) {
			at = skip_names(k, at, 256, end);
			if (!at || at - s != rd32(k->d + k->markers + 4 * i))
				break;
		}
		if (i < k->nmarkers)
			continue;
		at = skip_names(k, at, n - 256 * (k->nmarkers - 1), end);
		if (!at || end - at >= 8)
			continue;
		k->names = s;
		k->nsyms = n;
		return true;
	}
	return false;
}

static int decode_kallsyms(struct ksyms *s, const char *path,
			   const unsigned char *d, size_t len, char **err)
{
	struct kall *k = xmalloc(sizeof(*k));
	char buf[1024];
	size_t at, i;
	int rc = -1;

	memset(k, 0, sizeof(*k));
	k->d = d;
	k->len = len;
	if (!find_tokens(k)) {
		err_set(err, "%s: no kallsyms token table in .rodata", path);
		goto out;
	}
	if (!find_markers(k) || !find_names(k)) {
		err_set(err, "%s: the kallsyms tables are not as expected",
			path);
		goto out;
	}
	for (i = 0, at = k->names; i < k->nsyms; i++) {
		size_t l = d[at++], b = 0, j;

		if (l & 0x80)
			l = (l & 0x7f) | (size_t)d[at++] << 7;
		for (j = 0; j < l; j++) {
			size_t t = k->tok + k->idx[d[at + j]];
			size_t tl = strlen((const char *)d + t);

			if (b + tl >= sizeof(buf)) {
				err_set(err, "%s: kallsyms name %zu is too long",
					path, i);
				goto out;
			}
			memcpy(buf + b, d + t, tl);
			b += tl;
		}
		at += l;
		/* the first character is the symbol's type */
		if (b > 1 && (buf[0] == 't' || buf[0] == 'T'))
			add(s, buf + 1, b - 1);
	}
	rc = 0;
out:
	free(k);
	return rc;
}

static bool elf_rodata(const char *img, size_t len, const unsigned char **d,
		       size_t *dlen)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return false;
	e = elf_memory((char *)img, len);
	if (!e)
		return false;
	if (elf_kind(e) == ELF_K_ELF && !elf_getshdrstrndx(e, &shstrndx)) {
		while (!found && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != SHT_PROGBITS)
				continue;
			name = elf_strptr(e, shstrndx, sh.sh_name);
			if (!name || strcmp(name, ".rodata") ||
			    sh.sh_offset + sh.sh_size > len)
				continue;
			*d = (const unsigned char *)img + sh.sh_offset;
			*dlen = sh.sh_size;
			found = true;
		}
	}
	elf_end(e);
	return found;
}

/* The cache: "tapir-ksyms 1", then one name a line. */
static const char cache_head[] = "tapir-ksyms 1\n";

static int load_cache(struct ksyms *s, const char *path)
{
	size_t len, i, b;
	char *t = read_file(path, &len);

	if (!t)
		return -1;
	if (len < sizeof(cache_head) || memcmp(t, cache_head,
					       sizeof(cache_head) - 1) ||
	    t[len - 1] != '\n') {
		free(t);
		return -1;
	}
	for (i = b = sizeof(cache_head) - 1; i < len; i++)
		if (t[i] == '\n') {
			add(s, t + b, i - b);
			b = i + 1;
		}
	free(t);
	return 0;
}

static void store_cache(const struct ksyms *s, const char *path)
{
	char *tmp;
	FILE *f;
	size_t i;
	int fd;
	bool ok;

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return;
	fd = mkstemp(tmp);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return;
	}
	fputs(cache_head, f);
	for (i = 0; i < s->fn.n; i++)
		fprintf(f, "%s\n", s->fn.v[i]);
	for (i = 0; i < s->clones.n; i++)
		fprintf(f, "%s\n", s->clones.v[i]);
	ok = !ferror(f);
	ok = !fclose(f) && ok;
	if (!ok || rename(tmp, path))
		unlink(tmp);
	free(tmp);
}

static int load_vmlinuz(struct ksyms *s, const char *kver,
			const char *cachedir, char **err)
{
	char *dir = NULL, *cache = NULL, *boot = NULL;
	const unsigned char *ro;
	struct vmlinuz v;
	struct stat cs, bs;
	size_t rolen;
	int rc = -1;

	s->source = "the kallsyms tables in vmlinuz";
	if (asprintf(&boot, "/boot/vmlinuz-%s", kver) < 0)
		return -1;
	if (cachedir && (asprintf(&dir, "%s/ksyms", cachedir) < 0 ||
			 asprintf(&cache, "%s/%s.syms", dir, kver) < 0))
		goto out;
	/* a cache older than the image is of an earlier build */
	if (cache && !stat(cache, &cs) && !stat(boot, &bs) &&
	    cs.st_mtime >= bs.st_mtime && !load_cache(s, cache)) {
		cache_touch(cache);
		rc = 0;
		goto out;
	}
	if (vmlinuz_unpack(kver, &v, err))
		goto out;
	if (!elf_rodata(v.data, v.len, &ro, &rolen))
		vmlinuz_lacks(&v, ".rodata section", err);
	else if (!decode_kallsyms(s, boot, ro, rolen, err))
		rc = 0;
	vmlinuz_release(&v);
	if (!rc && cache && s->fn.n) {
		finish(s);
		mkdir_p(dir);
		store_cache(s, cache);
	}
out:
	free(boot);
	free(dir);
	free(cache);
	return rc;
}

struct ksyms *ksyms_load_vmlinuz(const char *kver, const char *cachedir,
				 char **err)
{
	struct ksyms *s = xmalloc(sizeof(*s));

	memset(s, 0, sizeof(*s));
	if (load_vmlinuz(s, kver, cachedir, err) || !s->fn.n) {
		if (!*err)
			err_set(err, "no function symbols in %s", s->source);
		ksyms_free(s);
		return NULL;
	}
	finish(s);
	return s;
}

struct ksyms *ksyms_load(const char *kver, const char *cachedir, char **err)
{
	struct ksyms *s = xmalloc(sizeof(*s));
	const char *forced = getenv("TAPIR_KALLSYMS");
	struct utsname u;
	char *dbg;
	int rc;

	memset(s, 0, sizeof(*s));
	dbg = kmod_debug_vmlinux(kver);
	if (forced && *forced)
		rc = load_kallsyms(s, forced, err);
	else if (uname(&u) == 0 && !strcmp(u.release, kver))
		rc = load_kallsyms(s, "/proc/kallsyms", err);
	else if (dbg)
		rc = load_symtab(s, dbg, err);
	else
		rc = load_vmlinuz(s, kver, cachedir, err);
	free(dbg);
	if (!rc && !s->fn.n) {
		err_set(err, "no function symbols in %s", s->source);
		rc = -1;
	}
	if (rc) {
		ksyms_free(s);
		return NULL;
	}
	finish(s);
	return s;
}

static void names_free(struct names *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

void ksyms_free(struct ksyms *s)
{
	if (!s)
		return;
	names_free(&s->fn);
	names_free(&s->clones);
	free(s);
}

bool ksyms_has(const struct ksyms *s, const char *name)
{
	return bsearch(&name, s->fn.v, s->fn.n, sizeof(*s->fn.v),
		       cmp_strp) != NULL;
}

size_t ksyms_count(const struct ksyms *s)
{
	return s->fn.n;
}

const char *ksyms_source(const struct ksyms *s)
{
	return s->source;
}

/* The run of l's names that start with the first plen bytes of key. */
static size_t run_start(const struct names *l, const char *key, size_t plen)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strncmp(l->v[mid], key, plen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t ksyms_clones(const struct ksyms *s, const char *name,
		    void (*cb)(const char *clone, void *arg), void *arg)
{
	size_t len = strlen(name), i, n = 0;

	for (i = run_start(&s->clones, name, len); i < s->clones.n &&
	     !strncmp(s->clones.v[i], name, len); i++) {
		if (s->clones.v[i][len] != '.' ||
		    clone_of(s->clones.v[i], strlen(s->clones.v[i])) != len)
			continue;
		if (cb)
			cb(s->clones.v[i], arg);
		n++;
	}
	return n;
}

void ksyms_matching(const struct ksyms *s, const char *glob,
		    void (*cb)(const char *name, void *arg), void *arg)
{
	size_t i, plen = strcspn(glob, "*?[\\");

	/* the names sharing the pattern's literal prefix are a run */
	for (i = plen ? run_start(&s->fn, glob, plen) : 0; i < s->fn.n; i++) {
		if (plen && strncmp(s->fn.v[i], glob, plen))
			break;
		if (glob_match(glob, s->fn.v[i]))
			cb(s->fn.v[i], arg);
	}
}
