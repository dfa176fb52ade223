/* uelf.c - user-space ELF files for process probes: resolving a name as
 * a shell and the dynamic linker would, the PT_LOAD map from addresses
 * to file offsets, function symbols (C++ demangled), DT_NEEDED, SDT
 * notes, PLT entries, and the DWARF, loaded through dwarf.c.
 */
#define _GNU_SOURCE
#include "debuginfo/uelf.h"
#include "debuginfo/elfsym.h"
#include "debuginfo/dwarf.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libstdc++'s demangler has C linkage (the Itanium C++ ABI). */
char *__cxa_demangle(const char *mangled, char *out, size_t *len,
		     int *status);

struct useg {
	uint64_t vaddr, filesz, offset;
};

struct uplt_ent {
	const char *name;
	uint64_t addr;
};

struct uelf {
	char *path;
	int fd;
	Elf *elf;
	struct arena *arena;
	bool is_library;
	bool is32;		/* ELFCLASS32 i386 (run under x86-64) */
	struct useg *segs;
	size_t nsegs;
	struct usym *syms;		/* by address */
	size_t nsyms;
	struct usym **by_name;
	const char **exported;		/* sorted names */
	size_t nexported;
	const char **needed;
	int nneeded;
	const char *runpath, *rpath;
	struct usdt *sdts;
	size_t nsdts;
	struct uplt_ent *plts;		/* by name */
	size_t nplts;
	bool has_symtab;
	struct kdwarf *dw;
	bool dw_tried;
	const char *dw_why;
};

/* ------------------------------------------------------------ names */

/* Where "(" of the parameter list of a demangled name is: the one that
 * matches the last ")" before any trailing qualifiers (" const").
 */
static const char *params_start(const char *s)
{
	const char *p = strrchr(s, ')');
	int depth = 0;

	if (!p)
		return NULL;
	for (; p >= s; p--) {
		if (*p == ')')
			depth++;
		else if (*p == '(' && --depth == 0)
			return p;
	}
	return NULL;
}

/* The last word at top level: "int f<int>" has a return type, while
 * "(anonymous namespace)::f" and "Foo::operator new" do not.
 */
static const char *drop_return_type(const char *s, size_t n)
{
	const char *start = s;
	int depth = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		char ch = s[i];

		if (ch == '(' || ch == '<')
			depth++;
		else if ((ch == ')' || ch == '>') && depth > 0)
			depth--;
		else if (ch == ' ' && !depth &&
			 !(i >= 8 && !strncmp(s + i - 8, "operator", 8)))
			start = s + i + 1;
	}
	return start;
}

const char *uelf_demangle(struct uelf *u, const char *name)
{
	const char *p, *start;
	char *full;
	int status = -1;

	if (strncmp(name, "_Z", 2))
		return name;
	full = __cxa_demangle(name, NULL, NULL, &status);
	if (!full || status)
		return name;
	p = params_start(full);
	if (!p)
		p = full + strlen(full);
	start = drop_return_type(full, (size_t)(p - full));
	name = arena_strndup(u->arena, start, (size_t)(p - start));
	free(full);
	return name;
}

/* ------------------------------------------------------------ paths */

static void push_dir(struct arena *a, struct vec *dirs, const char *d,
		     size_t n)
{
	int i;

	if (!n)
		return;
	for (i = 0; i < dirs->n; i++)
		if (strlen(dirs->items[i]) == n &&
		    !strncmp(dirs->items[i], d, n))
			return;
	vec_push(a, dirs, arena_strndup(a, d, n));
}

/* "a:b:c" into dirs; $ORIGIN (and ${ORIGIN}) become origin. */
static void push_list(struct arena *a, struct vec *dirs, const char *list,
		      const char *origin)
{
	while (list && *list) {
		size_t n = strcspn(list, ":");
		char *d = arena_strndup(a, list, n);
		char *o;

		while (origin && ((o = strstr(d, "${ORIGIN}")) ||
				  (o = strstr(d, "$ORIGIN")))) {
			size_t k = o[1] == '{' ? 9 : 7;

			d = arena_printf(a, "%.*s%s%s", (int)(o - d), d, origin,
					 o + k);
		}
		push_dir(a, dirs, d, strlen(d));
		list += n + (list[n] == ':');
	}
}

static void push_conf(struct arena *a, struct vec *dirs, const char *path,
		      int depth);

/* "include GLOB" lines of ld.so.conf, relative to its directory. */
static void push_conf_include(struct arena *a, struct vec *dirs,
			      const char *conf, const char *pat, int depth)
{
	glob_t g;
	size_t i;

	if (*pat != '/') {
		const char *slash = strrchr(conf, '/');

		pat = arena_printf(a, "%.*s/%s", (int)(slash - conf), conf,
				   pat);
	}
	if (glob(pat, 0, NULL, &g))
		return;
	for (i = 0; i < g.gl_pathc; i++)
		push_conf(a, dirs, g.gl_pathv[i], depth + 1);
	globfree(&g);
}

static void push_conf(struct arena *a, struct vec *dirs, const char *path,
		      int depth)
{
	char *text = depth < 8 ? read_file(path, NULL) : NULL;
	char *line, *save;

	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t n;

		line[strcspn(line, "#")] = '\0';
		line += strspn(line, " \t");
		n = strcspn(line, " \t\r");
		if (!strncmp(line, "include", 7) && (line[7] == ' ' ||
						     line[7] == '\t')) {
			line += 8 + strspn(line + 8, " \t");
			line[strcspn(line, " \t\r")] = '\0';
			push_conf_include(a, dirs, path, line, depth);
		} else if (*line == '/') {
			push_dir(a, dirs, line, n);
		}
	}
	free(text);
}

/* The dynamic linker's search order for a program, minus its cache:
 * DT_RPATH (when there is no DT_RUNPATH), $LD_LIBRARY_PATH, DT_RUNPATH,
 * /etc/ld.so.conf, the default directories.
 */
static void library_dirs(struct arena *a, const struct uelf *prog,
			  struct vec *dirs)
{
	static const char *const defaults[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
		"/lib64", "/usr/lib64", "/lib", "/usr/lib",
	};
	static const char *const defaults32[] = {
		"/lib/i386-linux-gnu", "/usr/lib/i386-linux-gnu",
		"/lib32", "/usr/lib32", "/lib", "/usr/lib",
	};
	bool is32 = prog && prog->is32;
	const char *origin = NULL;
	size_t i;

	if (prog) {
		const char *slash = strrchr(prog->path, '/');

		origin = arena_strndup(a, prog->path,
				       (size_t)(slash - prog->path));
		if (!prog->runpath)
			push_list(a, dirs, prog->rpath, origin);
	}
	push_list(a, dirs, getenv("LD_LIBRARY_PATH"), NULL);
	if (prog)
		push_list(a, dirs, prog->runpath, origin);
	push_conf(a, dirs, "/etc/ld.so.conf", 0);
	for (i = 0; i < ARRAY_SIZE(defaults); i++)
		push_dir(a, dirs, is32 ? defaults32[i] : defaults[i],
			 strlen(is32 ? defaults32[i] : defaults[i]));
}

static bool is_file(const char *path, bool exec)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) &&
	       (!exec || !access(path, X_OK));
}

/* Whether path is an ELF file of class cls (ELFCLASS32/64), as the
 * dynamic linker passes over a library of the other word size.
 */
static bool elf_class_is(const char *path, int cls)
{
	unsigned char id[EI_NIDENT];
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fread(id, 1, sizeof(id), f) == sizeof(id) &&
	     !memcmp(id, ELFMAG, SELFMAG) && id[EI_CLASS] == cls;
	fclose(f);
	return ok;
}

/* dir/name for the first dir of dirs holding it (of class cls, unless
 * cls is 0), canonical; or NULL.
 */
static char *search_dirs(struct arena *a, const struct vec *dirs,
			 const char *name, bool exec, int cls)
{
	int i;

	for (i = 0; i < dirs->n; i++) {
		const char *p = arena_printf(a, "%s/%s",
					     (const char *)dirs->items[i],
					     name);

		if (is_file(p, exec) && (!cls || elf_class_is(p, cls)))
			return realpath(p, NULL);
	}
	return NULL;
}

static char *resolve_name(const char *name, char **err);

/* A script's "#!INTERPRETER [ARG]": the interpreter (for "/usr/bin/env
 * NAME", NAME as a command), canonical; NULL when path is no script.
 */
static char *interpreter(const char *path, int depth, char **err)
{
	char line[256], *p, *end;
	FILE *f = depth < 4 ? fopen(path, "re") : NULL;
	bool ok;

	if (!f)
		return NULL;
	ok = fgets(line, sizeof(line), f) && !strncmp(line, "#!", 2);
	fclose(f);
	if (!ok)
		return NULL;
	p = line + 2 + strspn(line + 2, " \t");
	end = p + strcspn(p, " \t\r\n");
	if (end - p == 12 && !strncmp(p, "/usr/bin/env", 12)) {
		p = end + strspn(end, " \t");
		end = p + strcspn(p, " \t\r\n");
	}
	*end = '\0';
	return *p ? resolve_name(p, err) : NULL;
}

/* A script resolves to its interpreter, as the kernel runs it. */
char *uelf_resolve(const char *name, char **err)
{
	char *r = resolve_name(name, err), *interp;
	int depth;

	for (depth = 0; r; depth++) {
		interp = interpreter(r, depth, err);
		if (!interp)
			break;
		free(r);
		r = interp;
	}
	return r;
}

static char *resolve_name(const char *name, char **err)
{
	struct arena *a = arena_new();
	struct vec dirs = { 0 };
	const char *path = getenv("PATH");
	char *r;

	if (err)
		*err = NULL;
	if (strchr(name, '/')) {
		r = realpath(name, NULL);
		if (!r)
			err_set(err, "cannot find '%s': %s", name,
				strerror(errno));
		arena_free(a);
		return r;
	}
	/* an empty element of $PATH is the current directory */
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if (n)
			push_dir(a, &dirs, path, n);
		else
			push_dir(a, &dirs, ".", 1);
		path += n + (path[n] == ':');
	}
	r = search_dirs(a, &dirs, name, true, 0);
	if (!r) {
		dirs.n = 0;
		library_dirs(a, NULL, &dirs);
		r = search_dirs(a, &dirs, name, false, 0);
	}
	if (!r)
		err_set(err, "cannot find '%s' in $PATH or the library "
			"directories", name);
	arena_free(a);
	return r;
}

/* -------------------------------------------------------- the file */

static int sym_addr_cmp(const void *pa, const void *pb)
{
	const struct usym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return strcmp(a->linkage, b->linkage);
}

static int sym_name_cmp(const void *pa, const void *pb)
{
	const struct usym *a = *(const struct usym *const *)pa;
	const struct usym *b = *(const struct usym *const *)pb;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	if (a->exported != b->exported)	/* exported first */
		return a->exported ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static Elf_Scn *find_type(Elf *elf, Elf64_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

static void load_segments(struct uelf *u, size_t nph)
{
	size_t i;

	u->segs = arena_alloc(u->arena, (nph ? nph : 1) * sizeof(*u->segs));
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(u->elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_INTERP)
			u->is_library = false;
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		u->segs[u->nsegs].vaddr = ph.p_vaddr;
		u->segs[u->nsegs].filesz = ph.p_filesz;
		u->segs[u->nsegs].offset = ph.p_offset;
		u->nsegs++;
	}
}

int uelf_offset(const struct uelf *u, uint64_t vaddr, uint64_t *off)
{
	size_t i;

	for (i = 0; i < u->nsegs; i++) {
		const struct useg *s = &u->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*off = vaddr - s->vaddr + s->offset;
			return 0;
		}
	}
	return -ENOENT;
}

struct exported_walk {
	struct uelf *u;
	size_t cap;
};

static bool exported_one(const GElf_Sym *s, const char *name, void *arg)
{
	struct exported_walk *w = arg;
	struct uelf *u = w->u;

	if (GELF_ST_TYPE(s->st_info) != STT_FUNC ||
	    GELF_ST_BIND(s->st_info) == STB_LOCAL)
		return true;
	if (u->nexported == w->cap) {
		const char **grown;

		w->cap = w->cap ? 2 * w->cap : 256;
		grown = arena_alloc(u->arena, w->cap * sizeof(char *));
		if (u->nexported)
			memcpy(grown, u->exported,
			       u->nexported * sizeof(char *));
		u->exported = grown;
	}
	u->exported[u->nexported++] = name;
	return true;
}

/* The defined, non-local function names of .dynsym. */
static void load_exported(struct uelf *u)
{
	struct exported_walk w = { u, 0 };

	elf_each_symbol(u->elf, SHT_DYNSYM, exported_one, &w);
	if (u->nexported)
		qsort(u->exported, u->nexported, sizeof(char *), cmp_strp);
}

bool uelf_has_symtab(const struct uelf *u)
{
	return u->has_symtab;
}

bool uelf_exported(const struct uelf *u, const char *name)
{
	return u->nexported && bsearch(&name, u->exported, u->nexported,
				       sizeof(char *), cmp_strp);
}

static void add_sym(struct uelf *u, size_t *cap, const GElf_Sym *s,
		    const char *name)
{
	struct usym *e;

	if (u->nsyms == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		u->syms = xrealloc(u->syms, *cap * sizeof(*u->syms));
	}
	e = &u->syms[u->nsyms++];
	e->linkage = name;
	e->name = uelf_demangle(u, name);
	e->addr = s->st_value;
	e->size = s->st_size;
	e->exported = GELF_ST_BIND(s->st_info) != STB_LOCAL &&
		      uelf_exported(u, name);
}

/* Functions of .symtab, or of .dynsym in a stripped file; a name with
 * a symbol version ("memcpy@GLIBC_2.2.5") is kept once, by address.
 */
struct syms_walk {
	struct uelf *u;
	size_t cap;
};

static bool sym_one(const GElf_Sym *s, const char *name, void *arg)
{
	struct syms_walk *w = arg;

	if (s->st_value && GELF_ST_TYPE(s->st_info) == STT_FUNC)
		add_sym(w->u, &w->cap, s, name);
	return true;
}

static void load_symbols(struct uelf *u)
{
	struct syms_walk w = { u, 0 };
	size_t i, j = 0;

	u->has_symtab = elf_each_symbol(u->elf, SHT_SYMTAB, sym_one, &w) > 0;
	if (!u->has_symtab)
		elf_each_symbol(u->elf, SHT_DYNSYM, sym_one, &w);
	if (u->nsyms)
		qsort(u->syms, u->nsyms, sizeof(*u->syms), sym_addr_cmp);
	for (i = 0; i < u->nsyms; i++)
		if (!j || u->syms[j - 1].addr != u->syms[i].addr ||
		    strcmp(u->syms[j - 1].linkage, u->syms[i].linkage))
			u->syms[j++] = u->syms[i];
	u->nsyms = j;
	u->by_name = xmalloc((j ? j : 1) * sizeof(*u->by_name));
	for (i = 0; i < j; i++)
		u->by_name[i] = &u->syms[i];
	if (j)
		qsort(u->by_name, j, sizeof(*u->by_name), sym_name_cmp);
}

static void load_dynamic(struct uelf *u)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_type(u->elf, SHT_DYNAMIC, &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	size_t i, n;

	if (!data || !sh.sh_entsize)
		return;
	n = sh.sh_size / sh.sh_entsize;
	u->needed = arena_alloc(u->arena, (n ? n : 1) * sizeof(char *));
	for (i = 0; i < n; i++) {
		GElf_Dyn dyn;
		const char *s;

		if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RUNPATH &&
		    dyn.d_tag != DT_RPATH)
			continue;
		s = elf_strptr(u->elf, sh.sh_link, dyn.d_un.d_val);
		if (!s)
			continue;
		if (dyn.d_tag == DT_NEEDED)
			u->needed[u->nneeded++] = s;
		else if (dyn.d_tag == DT_RUNPATH)
			u->runpath = s;
		else
			u->rpath = s;
	}
}

/* ----------------------------------------------------------- SDT */

#define NT_STAPSDT 3

/* One note: pc, base and semaphore addresses, then three strings. */
/* An address of an SDT note: 4 bytes in an i386 file, else 8. */
static uint64_t note_addr(const struct uelf *u, const char *p)
{
	uint32_t a32;
	uint64_t a64;

	if (u->is32) {
		memcpy(&a32, p, sizeof(a32));
		return a32;
	}
	memcpy(&a64, p, sizeof(a64));
	return a64;
}

static void add_sdt(struct uelf *u, size_t *cap, const char *desc,
		    size_t len, int64_t adjust)
{
	struct usdt *m;
	size_t ws = u->is32 ? 4 : 8;	/* the file's address size */
	const char *p = desc + 3 * ws, *end = desc + len;
	const char *strs[3];
	uint64_t addr[3];
	int i;

	if (len < 3 * ws)
		return;
	for (i = 0; i < 3; i++)
		addr[i] = note_addr(u, desc + (size_t)i * ws);
	for (i = 0; i < 3; i++) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));

		if (!nul)
			return;
		strs[i] = p;
		p = nul + 1;
	}
	if (u->nsdts == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		u->sdts = xrealloc(u->sdts, *cap * sizeof(*u->sdts));
	}
	m = &u->sdts[u->nsdts++];
	m->pc = addr[0] + (uint64_t)adjust;
	m->sem = addr[2] ? addr[2] + (uint64_t)adjust : 0;
	m->provider = arena_strdup(u->arena, strs[0]);
	m->name = arena_strdup(u->arena, strs[1]);
	m->args = arena_strdup(u->arena, strs[2]);
}

/* The notes were written with the link-time address of .stapsdt.base;
 * a prelinked file moved it, and every address with it.
 */
static void load_sdt(struct uelf *u)
{
	GElf_Shdr sh, bsh;
	Elf_Scn *scn = find_section(u->elf, ".note.stapsdt", &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	bool has_base = find_section(u->elf, ".stapsdt.base", &bsh) != NULL;
	size_t off = 0, next, name_off, desc_off, cap = 0;
	GElf_Nhdr nh;

	if (!data || sh.sh_type != SHT_NOTE)
		return;
	while ((next = gelf_getnote(data, off, &nh, &name_off,
				    &desc_off)) > 0) {
		const char *d = data->d_buf;
		int64_t adjust = 0;
		uint64_t base;

		off = next;
		if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
		    memcmp(d + name_off, "stapsdt", 8) ||
		    nh.n_descsz < (u->is32 ? 12 : 24))
			continue;
		base = note_addr(u, d + desc_off + (u->is32 ? 4 : 8));
		if (has_base && base)
			adjust = (int64_t)(bsh.sh_addr - base);
		add_sdt(u, &cap, d + desc_off, nh.n_descsz, adjust);
	}
}

int uelf_sdt(const struct uelf *u, const char *provider, const char *name,
	     void (*cb)(const struct usdt *m, void *arg), void *arg)
{
	size_t i;
	int n = 0;

	for (i = 0; i < u->nsdts; i++) {
		const struct usdt *m = &u->sdts[i];

		if ((provider && !glob_match(provider, m->provider)) ||
		    !glob_match(name, m->name))
			continue;
		cb(m, arg);
		n++;
	}
	return n;
}

/* ----------------------------------------------------------- PLT */

static int plt_cmp(const void *pa, const void *pb)
{
	const struct uplt_ent *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	return c ? c : a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* Relocation i of the PLT's (RELA on x86-64, REL on i386), when it
 * fills a jump slot.
 */
static bool plt_reloc(const struct uelf *u, Elf_Data *data, size_t i,
		      GElf_Rela *r)
{
	GElf_Rel rel;

	if (!u->is32)
		return gelf_getrela(data, (int)i, r) &&
		       GELF_R_TYPE(r->r_info) == R_X86_64_JUMP_SLOT;
	if (!gelf_getrel(data, (int)i, &rel) ||
	    GELF_R_TYPE(rel.r_info) != R_386_JMP_SLOT)
		return false;
	r->r_offset = rel.r_offset;
	r->r_info = rel.r_info;
	r->r_addend = 0;
	return true;
}

/* Entry i of .rela.plt is slot i of .plt.sec (IBT's second PLT), else
 * slot i + 1 of .plt, whose slot 0 calls the dynamic linker.
 */
static void load_plt(struct uelf *u)
{
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rel = find_section(u->elf, u->is32 ? ".rel.plt" :
				    ".rela.plt", &rsh);
	Elf_Scn *dyn;
	Elf_Data *data, *syms;
	uint64_t base, slot0 = 0;
	size_t i, n;

	if (find_section(u->elf, ".plt.sec", &psh))
		base = psh.sh_addr;
	else if (find_section(u->elf, ".plt", &psh))
		base = psh.sh_addr, slot0 = 1;
	else
		return;
	dyn = rel ? elf_getscn(u->elf, rsh.sh_link) : NULL;
	if (!dyn || !gelf_getshdr(dyn, &dsh) || !rsh.sh_entsize ||
	    !(data = elf_getdata(rel, NULL)) ||
	    !(syms = elf_getdata(dyn, NULL)))
		return;
	n = rsh.sh_size / rsh.sh_entsize;
	u->plts = arena_alloc(u->arena, (n ? n : 1) * sizeof(*u->plts));
	for (i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym s;
		const char *name;

		if (!plt_reloc(u, data, i, &r) ||
		    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &s))
			continue;
		name = elf_strptr(u->elf, dsh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		u->plts[u->nplts].name = name;
		u->plts[u->nplts].addr = base + 16 * (slot0 + i);
		u->nplts++;
	}
	if (u->nplts)
		qsort(u->plts, u->nplts, sizeof(*u->plts), plt_cmp);
}

int uelf_plt(const struct uelf *u, const char *glob,
	     void (*cb)(const char *name, uint64_t addr, void *arg),
	     void *arg)
{
	size_t i;
	int n = 0;

	for (i = 0; i < u->nplts; i++) {
		if (!glob_match(glob, u->plts[i].name) ||
		    (i && !strcmp(u->plts[i - 1].name, u->plts[i].name)))
			continue;
		cb(u->plts[i].name, u->plts[i].addr, arg);
		n++;
	}
	return n;
}

/* ------------------------------------------------------ open, free */

static bool check_header(struct uelf *u, char **err)
{
	GElf_Ehdr eh;

	if (!u->elf || elf_kind(u->elf) != ELF_K_ELF ||
	    !gelf_getehdr(u->elf, &eh)) {
		err_set(err, "'%s' is not an ELF file", u->path);
		return false;
	}
	u->is32 = eh.e_ident[EI_CLASS] == ELFCLASS32 &&
		  eh.e_machine == EM_386;
	if (!u->is32 && (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
			 eh.e_machine != EM_X86_64)) {
		err_set(err, "'%s' is not an x86-64 or i386 ELF file",
			u->path);
		return false;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		err_set(err, "'%s' is not an ELF executable or shared library",
			u->path);
		return false;
	}
	u->is_library = eh.e_type == ET_DYN;
	return true;
}

struct uelf *uelf_open(const char *path, char **err)
{
	struct uelf *u = xmalloc(sizeof(*u));
	size_t nph;

	if (err)
		*err = NULL;
	memset(u, 0, sizeof(*u));
	u->path = xstrdup(path);
	u->arena = arena_new();
	u->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (u->fd < 0) {
		err_set(err, "cannot open '%s': %s", path, strerror(errno));
		goto fail;
	}
	elf_version(EV_CURRENT);
	u->elf = elf_begin(u->fd, ELF_C_READ_MMAP, NULL);
	if (!check_header(u, err))
		goto fail;
	if (elf_getphdrnum(u->elf, &nph))
		nph = 0;
	load_segments(u, nph);
	load_exported(u);
	load_symbols(u);
	load_dynamic(u);
	load_sdt(u);
	load_plt(u);
	return u;
fail:
	uelf_free(u);
	return NULL;
}

void uelf_free(struct uelf *u)
{
	if (!u)
		return;
	kdwarf_free(u->dw);
	if (u->elf)
		elf_end(u->elf);
	if (u->fd >= 0)
		close(u->fd);
	free(u->syms);
	free(u->by_name);
	free(u->sdts);
	free(u->path);
	arena_free(u->arena);
	free(u);
}

const char *uelf_path(const struct uelf *u)
{
	return u->path;
}

bool uelf_is_32bit(const struct uelf *u)
{
	return u->is32;
}

bool uelf_is_library(const struct uelf *u)
{
	return u->is_library;
}

struct kdwarf *uelf_dwarf(struct uelf *u, const char *cachedir,
			  const char **why)
{
	char *err = NULL;

	if (!u->dw_tried) {
		u->dw_tried = true;
		u->dw = kdwarf_load_elf(u->path, cachedir, &err);
		if (!u->dw)
			u->dw_why = arena_strdup(u->arena, err ? err :
						 "no DWARF");
		free(err);
	}
	if (!u->dw && why)
		*why = u->dw_why;
	return u->dw;
}

/* ------------------------------------------------------- symbols */

static size_t name_lower(const struct uelf *u, const char *name, size_t n)
{
	size_t lo = 0, hi = u->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strncmp(u->by_name[mid]->name, name, n) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct usym *uelf_func(const struct uelf *u, const char *name)
{
	size_t i = name_lower(u, name, strlen(name) + 1);

	if (i < u->nsyms && !strcmp(u->by_name[i]->name, name))
		return u->by_name[i];
	return NULL;
}

const struct usym *uelf_func_at(const struct uelf *u, uint64_t addr)
{
	size_t lo = 0, hi = u->nsyms;
	const struct usym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &u->syms[lo - 1];
	return addr == s->addr || addr - s->addr < s->size ? s : NULL;
}

int uelf_funcs_matching(const struct uelf *u, const char *glob,
			void (*cb)(const struct usym *s, void *arg),
			void *arg)
{
	size_t plen = strcspn(glob, "*?[\\");
	size_t i = name_lower(u, glob, plen);
	int n = 0;

	for (; i < u->nsyms; i++) {
		const struct usym *s = u->by_name[i];

		if (strncmp(s->name, glob, plen))
			break;
		if ((i && !strcmp(u->by_name[i - 1]->name, s->name)) ||
		    !glob_match(glob, s->name))
			continue;
		cb(s, arg);
		n++;
	}
	return n;
}

/* ------------------------------------------------------ libraries */

int uelf_needed(const struct uelf *u, const char *const **names)
{
	*names = u->needed;
	return u->nneeded;
}

char *uelf_find_library(const struct uelf *prog, const char *name)
{
	struct arena *a;
	struct vec dirs = { 0 };
	char *r = NULL;
	int i, cls = !prog ? 0 : prog->is32 ? ELFCLASS32 : ELFCLASS64;

	if (strchr(name, '/'))
		return realpath(name, NULL);
	a = arena_new();
	library_dirs(a, prog, &dirs);
	for (i = 0; prog && !r && i < prog->nneeded; i++)
		if (glob_match(name, prog->needed[i]))
			r = search_dirs(a, &dirs, prog->needed[i], false,
					cls);
	if (!r && !has_wildcard(name))
		r = search_dirs(a, &dirs, name, false, cls);
	arena_free(a);
	return r;
}
