/* ksyms.c - the kernel's function symbols, for the names that have no
 * type record: BTF describes no __x64_sys_* wrapper, no assembly entry
 * and nothing the compiler emitted without debug types.  The running
 * kernel's are in /proc/kallsyms; another kernel's in the symbol table
 * of its debuginfo vmlinux (the -dbg package).  Debian's
 * /boot/System.map is a placeholder, and the vmlinux inside vmlinuz
 * carries no symbol table, so a kernel that is neither has no list:
 * ksyms_load() says so and names are then left for the kernel to check
 * when the probe is registered.
 */
#include "debuginfo/ksyms.h"
#include "debuginfo/elfsym.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

struct ksyms {
	char **names;			/* sorted, unique */
	size_t n, cap;
	const char *source;
};

/* Names a script cannot mean: ftrace's padding and CFI prefixes, and
 * the compiler's clones (foo.isra.0, foo.cold), which are parts of foo.
 */
static bool wanted(const char *name)
{
	return *name && strncmp(name, "__pfx_", 6) &&
	       strncmp(name, "__cfi_", 6) && !strchr(name, '.');
}

static void add(struct ksyms *s, const char *name, size_t len)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->names = xrealloc(s->names, s->cap * sizeof(*s->names));
	}
	s->names[s->n] = xmalloc(len + 1);
	memcpy(s->names[s->n], name, len);
	s->names[s->n][len] = '\0';
	s->n++;
}

static void finish(struct ksyms *s)
{
	size_t i, j;

	if (!s->n)
		return;
	qsort(s->names, s->n, sizeof(*s->names), cmp_strp);
	for (i = 1, j = 1; i < s->n; i++) {
		if (strcmp(s->names[i], s->names[j - 1]))
			s->names[j++] = s->names[i];
		else
			free(s->names[i]);
	}
	s->n = j;
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
		*end = '\0';
		if (wanted(name))
			add(s, name, (size_t)(end - name));
	}
	fclose(f);
	s->source = "/proc/kallsyms";
	return 0;
}

static bool symtab_one(const GElf_Sym *sym, const char *name, void *arg)
{
	if (GELF_ST_TYPE(sym->st_info) == STT_FUNC && wanted(name))
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

struct ksyms *ksyms_load(const char *kver, char **err)
{
	struct ksyms *s = xmalloc(sizeof(*s));
	const char *forced = getenv("TAPIR_KALLSYMS");
	struct utsname u;
	char *dbg;
	int rc;

	memset(s, 0, sizeof(*s));
	dbg = xmalloc(strlen(kver) + 64);
	sprintf(dbg, "/usr/lib/debug/boot/vmlinux-%s", kver);
	if (forced && *forced)
		rc = load_kallsyms(s, forced, err);
	else if (uname(&u) == 0 && !strcmp(u.release, kver))
		rc = load_kallsyms(s, "/proc/kallsyms", err);
	else if (file_exists(dbg))
		rc = load_symtab(s, dbg, err);
	else {
		err_set(err, "no symbol list for kernel %s: it is not the "
			"running kernel and %s is not installed", kver, dbg);
		rc = -1;
	}
	free(dbg);
	if (!rc && !s->n) {
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

void ksyms_free(struct ksyms *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		free(s->names[i]);
	free(s->names);
	free(s);
}

bool ksyms_has(const struct ksyms *s, const char *name)
{
	return bsearch(&name, s->names, s->n, sizeof(*s->names),
		       cmp_strp) != NULL;
}

size_t ksyms_count(const struct ksyms *s)
{
	return s->n;
}

const char *ksyms_source(const struct ksyms *s)
{
	return s->source;
}

void ksyms_matching(const struct ksyms *s, const char *glob,
		    void (*cb)(const char *name, void *arg), void *arg)
{
	size_t i, lo = 0, hi = s->n, plen = strcspn(glob, "*?[\\");

	/* the names sharing the pattern's literal prefix are a run */
	if (plen) {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (strncmp(s->names[mid], glob, plen) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		hi = s->n;
	}
	for (i = lo; i < hi; i++) {
		if (plen && strncmp(s->names[i], glob, plen))
			break;
		if (glob_match(glob, s->names[i]))
			cb(s->names[i], arg);
	}
}
