/* dwarf.c - the kernel's DWARF (vmlinux of the -dbg package, or one of
 * its modules) through libdw:
 * a name index built once per build-id and cached on disk, struct ktype
 * objects made once per type, and what only DWARF describes: line
 * addresses, inline instances, and where variables live at a pc.
 */
#define _GNU_SOURCE
#include "debuginfo/dwarf.h"
#include "cache.h"
#include "debuginfo/elfsym.h"
#include "debuginfo/kmod.h"
#include "util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* ----------------------------------------------------------- handles */

enum ix_kind {
	IX_FUNC,	/* an out-of-line function (has code) */
	IX_INLINE,	/* an abstract function that was inlined somewhere */
	IX_STRUCT,
	IX_UNION,
	IX_ENUM,
	IX_TYPEDEF,
	IX_BASE,
	IX_NKINDS,
};
#define IX_KIND 0xff
#define IX_DECL 0x100	/* a type known only as a declaration */
/* Functions whose DIE is a poorer description sort after the others of
 * the same name: those without code that have an ELF symbol all the
 * same, because GCC's identical code folding made them an alias of
 * another function (for an inline function: its out-of-line copy), and
 * after them those of the assembler (no parameters, no types).
 */
#define IX_NOPC 0x200
#define IX_ASM 0x400

/* One name in the index: 16 bytes, stored on disk as they are. */
struct ix_ent {
	uint64_t die;
	uint32_t name;		/* offset in the string table */
	uint32_t kind;		/* enum ix_kind | IX_DECL, IX_NOPC, IX_ASM */
};

struct ksym {
	uint64_t addr;
	uint64_t size;
	const char *name;
	bool global;
};

struct symtab {
	struct ksym *syms;	/* by address */
	size_t n;
	struct ksym **by_name;
};

struct kdwarf {
	struct ksrc src;	/* kdwarf_src() hands out its address */
	int fd;
	Elf *elf;
	Dwarf *dw;
	/* A module's debuginfo is a relocatable file: libdwfl lays its
	 * sections out and applies the relocations of its DWARF, and owns
	 * elf, dw and cfi then.
	 */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_CFI *cfi;
	bool cfi_tried;
	bool cfi_is_eh;		/* from dwarf_getcfi_elf: must be ended */
	struct arena *arena;
	bool user;		/* a program or library: source paths stay
				 * absolute, as the compiler wrote them */

	char *blob;		/* the cache file, when loaded from it */
	struct ix_ent *ents;	/* sorted by kind, name, DIE offset */
	size_t nents;
	char *strtab;
	size_t strsize;

	struct htab types;	/* DIE offset -> struct ktype */
	struct htab canon;	/* structural key -> struct ktype */
	struct ktype void_type;

	bool syms_loaded;
	struct symtab funcs;	/* STT_FUNC symbols */
	struct symtab objs;	/* STT_OBJECT symbols */
};

static struct kdwarf *from_src(const struct ksrc *s)
{
	return (struct kdwarf *)((char *)s - offsetof(struct kdwarf, src));
}


static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}

static bool die_flag(Dwarf_Die *die, unsigned int at)
{
	Dwarf_Attribute a;
	bool f = false;

	return dwarf_attr(die, at, &a) && !dwarf_formflag(&a, &f) && f;
}

static bool die_udata(Dwarf_Die *die, unsigned int at, Dwarf_Word *w)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, at, &a) && !dwarf_formudata(&a, w);
}

/* The DIE an attribute refers to (through abstract origins). */
static bool die_ref(Dwarf_Die *die, unsigned int at, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, at, &a) && dwarf_formref_die(&a, out);
}

static bool has_code(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) ||
	       dwarf_hasattr(die, DW_AT_ranges);
}

/* --------------------------------------------------------- the index */

struct ix_build {
	struct kdwarf *d;
	bool asm_unit;		/* the unit being walked is assembler */
	struct ix_ent *ents;
	size_t n, cap;
	struct strbuf strs;
	struct htab names;	/* string -> offset in strs */
	struct htab types[IX_NKINDS];	/* name -> entry index */
};

static uint32_t ixb_str(struct ix_build *b, const char *s)
{
	size_t n = strlen(s);
	bool fresh;
	void **v = htab_slot(&b->names, s, n, &fresh);

	if (fresh) {	/* s is in .debug_str: it lives as long as d->dw */
		*v = (void *)(uintptr_t)b->strs.len;
		sb_putn(&b->strs, s, n + 1);
	}
	return (uint32_t)(uintptr_t)*v;
}

static void ixb_add(struct ix_build *b, uint32_t kind, const char *name,
		    Dwarf_Off die)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 65536;
		b->ents = xrealloc(b->ents, b->cap * sizeof(*b->ents));
	}
	b->ents[b->n].die = die;
	b->ents[b->n].name = ixb_str(b, name);
	b->ents[b->n].kind = kind;
	b->n++;
}

/* Types: one entry per name, a definition in preference to a mere
 * declaration.  Same-named types of different files get the first.
 */
static void ixb_type(struct ix_build *b, uint32_t kind, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);
	bool decl = die_flag(die, DW_AT_declaration);
	bool fresh;
	void **v;
	size_t i;

	if (!name)
		return;
	v = htab_slot(&b->types[kind], name, strlen(name), &fresh);
	if (fresh) {
		*v = (void *)(uintptr_t)b->n;
		ixb_add(b, kind | (decl ? IX_DECL : 0), name,
			dwarf_dieoffset(die));
		return;
	}
	i = (size_t)(uintptr_t)*v;
	if (!decl && (b->ents[i].kind & IX_DECL)) {
		b->ents[i].kind = kind;
		b->ents[i].die = dwarf_dieoffset(die);
	}
}

static void syms_load(struct kdwarf *d);
static const struct ksym *sym_by_name(const struct symtab *t,
				      const char *name);

static void ixb_func(struct ix_build *b, Dwarf_Die *die)
{
	const char *name;
	Dwarf_Word inl;
	bool inlined;

	if (die_flag(die, DW_AT_declaration) || !(name = die_name(die)))
		return;
	inlined = die_udata(die, DW_AT_inline, &inl);
	if (has_code(die))
		ixb_add(b, IX_FUNC | (b->asm_unit ? IX_ASM : 0), name,
			dwarf_dieoffset(die));
	else if (sym_by_name(&b->d->funcs, name))
		ixb_add(b, IX_FUNC | IX_NOPC, name, dwarf_dieoffset(die));
	if (inlined &&
	    (inl == DW_INL_inlined || inl == DW_INL_declared_inlined))
		ixb_add(b, IX_INLINE, name, dwarf_dieoffset(die));
}

static void ixb_die(struct ix_build *b, Dwarf_Die *die);

/* C++ defines functions and types inside namespaces too. */
static void ixb_namespace(struct ix_build *b, Dwarf_Die *ns)
{
	Dwarf_Die die;

	if (dwarf_child(ns, &die) != 0)
		return;
	do
		ixb_die(b, &die);
	while (dwarf_siblingof(&die, &die) == 0);
}

static void ixb_die(struct ix_build *b, Dwarf_Die *die)
{
	switch (dwarf_tag(die)) {
	case DW_TAG_subprogram:
		ixb_func(b, die);
		break;
	case DW_TAG_namespace:
		ixb_namespace(b, die);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
		ixb_type(b, IX_STRUCT, die);
		break;
	case DW_TAG_union_type:
		ixb_type(b, IX_UNION, die);
		break;
	case DW_TAG_enumeration_type:
		ixb_type(b, IX_ENUM, die);
		break;
	case DW_TAG_typedef:
		ixb_type(b, IX_TYPEDEF, die);
		break;
	case DW_TAG_base_type:
		ixb_type(b, IX_BASE, die);
		break;
	default:
		break;
	}
}

static int ent_cmp(const void *pa, const void *pb, void *arg)
{
	const struct ix_ent *a = pa, *b = pb;
	const char *strs = arg;
	uint32_t ka = a->kind & IX_KIND, kb = b->kind & IX_KIND;
	int c;

	if (ka != kb)
		return ka < kb ? -1 : 1;
	c = strcmp(strs + a->name, strs + b->name);
	if (c)
		return c;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return a->die < b->die ? -1 : a->die > b->die;
}

/* A function without code is only kept when no C function of its name
 * has any: "__x64_sys_foo" in kernel/sys_ni.c is a weak stub that the
 * real one replaced, while ICF folds functions that exist nowhere else.
 */
static size_t drop_stubs(struct ix_ent *e, size_t n)
{
	size_t i, j = 0;

	for (i = 0; i < n; i++) {
		if ((e[i].kind & IX_NOPC) && j &&
		    (e[j - 1].kind & IX_KIND) == IX_FUNC &&
		    e[j - 1].name == e[i].name &&
		    !(e[j - 1].kind & IX_NOPC))
			continue;
		e[j++] = e[i];
	}
	return j;
}

/* Every named function and type at the top level of every unit.  C puts
 * all of them there, so the walk never descends into a function body,
 * and DW_AT_sibling lets libdw skip those bodies without reading them.
 */
static void ix_build(struct kdwarf *d)
{
	struct ix_build b;
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie, die;
	Dwarf_Half ver;
	uint8_t ut;
	int i;

	memset(&b, 0, sizeof(b));
	b.d = d;
	sb_init(&b.strs);
	syms_load(d);
	while (dwarf_get_units(d->dw, cu, &next, &ver, &ut, &cudie,
			       NULL) == 0) {
		cu = next;
		if (ut != DW_UT_compile && ut != DW_UT_partial)
			continue;
		if (dwarf_child(&cudie, &die) != 0)
			continue;
		b.asm_unit = dwarf_srclang(&cudie) == DW_LANG_Mips_Assembler;
		do
			ixb_die(&b, &die);
		while (dwarf_siblingof(&die, &die) == 0);
	}
	htab_free(&b.names);
	for (i = 0; i < IX_NKINDS; i++)
		htab_free(&b.types[i]);
	if (!b.strs.buf)
		sb_putc(&b.strs, '\0');
	if (b.n)
		qsort_r(b.ents, b.n, sizeof(*b.ents), ent_cmp, b.strs.buf);
	b.n = drop_stubs(b.ents, b.n);
	d->ents = b.ents;
	d->nents = b.n;
	d->strtab = b.strs.buf;
	d->strsize = b.strs.len;
}

/* Bump the last digit whenever what the walk indexes changes. */
#define IX_MAGIC "TAPIRDX3"

/* The cache file: this header, the entries, the string table. */
struct ix_header {
	char magic[8];
	uint32_t ent_size;
	uint32_t idlen;
	unsigned char id[40];	/* the GNU build-id of vmlinux */
	uint64_t file_size;	/* of vmlinux, for a file without an id */
	uint64_t mtime;
	uint64_t nents;
	uint64_t strsize;
};

static void ix_key(struct kdwarf *d, struct ix_header *h)
{
	const void *id = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(d->elf, &id);
	struct stat st;

	memset(h, 0, sizeof(*h));
	memcpy(h->magic, IX_MAGIC, sizeof(h->magic));
	h->ent_size = sizeof(struct ix_ent);
	if (n > 0 && (size_t)n <= sizeof(h->id)) {
		h->idlen = (uint32_t)n;
		memcpy(h->id, id, (size_t)n);
	} else if (!fstat(d->fd, &st)) {
		h->file_size = (uint64_t)st.st_size;
		h->mtime = (uint64_t)st.st_mtime;
	}
}

static bool ix_valid(const struct ix_header *key, const char *blob,
		     size_t len)
{
	const struct ix_header *h = (const void *)blob;
	const struct ix_ent *e;
	const char *strs;
	size_t i;

	if (len < sizeof(*h) ||
	    memcmp(h, key, offsetof(struct ix_header, nents)))
		return false;
	if (h->nents > (len - sizeof(*h)) / sizeof(*e) ||
	    h->strsize != len - sizeof(*h) - h->nents * sizeof(*e) ||
	    !h->strsize)
		return false;
	e = (const void *)(blob + sizeof(*h));
	strs = (const char *)(e + h->nents);
	if (strs[h->strsize - 1])
		return false;
	for (i = 0; i < h->nents; i++)
		if (e[i].name >= h->strsize ||
		    (e[i].kind & IX_KIND) >= IX_NKINDS)
			return false;
	return true;
}

static bool ix_read(struct kdwarf *d, const char *path)
{
	struct ix_header key;
	size_t len;
	char *blob = read_file(path, &len);

	if (!blob)
		return false;
	ix_key(d, &key);
	if (!ix_valid(&key, blob, len)) {
		free(blob);
		return false;
	}
	d->blob = blob;
	d->nents = ((struct ix_header *)blob)->nents;
	d->ents = (struct ix_ent *)(blob + sizeof(key));
	d->strtab = (char *)(d->ents + d->nents);
	d->strsize = ((struct ix_header *)blob)->strsize;
	return true;
}

/* Atomically, so that a concurrent run never reads half an index. */
static void ix_write(struct kdwarf *d, const char *path)
{
	struct ix_header h;
	char *tmp;
	FILE *f;
	int fd;
	bool ok;

	ix_key(d, &h);
	h.nents = d->nents;
	h.strsize = d->strsize;
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return;
	fd = mkstemp(tmp);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		free(tmp);
		return;
	}
	ok = fwrite(&h, sizeof(h), 1, f) == 1 &&
	     fwrite(d->ents, sizeof(*d->ents), d->nents, f) == d->nents &&
	     fwrite(d->strtab, 1, d->strsize, f) == d->strsize;
	ok = !fclose(f) && ok;
	if (!ok || rename(tmp, path))
		unlink(tmp);
	free(tmp);
}

static const char *ent_name(const struct kdwarf *d, const struct ix_ent *e)
{
	return d->strtab + e->name;
}

static int ent_key_cmp(const struct kdwarf *d, const struct ix_ent *e,
		       uint32_t kind, const char *name, size_t n)
{
	uint32_t k = e->kind & IX_KIND;

	if (k != kind)
		return k < kind ? -1 : 1;
	return strncmp(ent_name(d, e), name, n);
}

/* The first entry of kind whose name is >= name (compared over n bytes:
 * n = strlen(name) + 1 for the name itself, less for a prefix).
 */
static size_t ix_lower(const struct kdwarf *d, uint32_t kind,
		       const char *name, size_t n)
{
	size_t lo = 0, hi = d->nents;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ent_key_cmp(d, &d->ents[mid], kind, name, n) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct ix_ent *ix_find(const struct kdwarf *d, uint32_t kind,
				    const char *name)
{
	size_t n = strlen(name) + 1;
	size_t i = ix_lower(d, kind, name, n);

	if (i < d->nents && !ent_key_cmp(d, &d->ents[i], kind, name, n))
		return &d->ents[i];
	return NULL;
}

/* Call fn for each entry of kind whose name matches glob, in name order;
 * the literal prefix of the glob bounds the scan.
 */
static void ix_glob(const struct kdwarf *d, uint32_t kind, const char *glob,
		    void (*fn)(const struct ix_ent *e, void *arg), void *arg)
{
	size_t plen = strcspn(glob, "*?[\\");
	size_t i = ix_lower(d, kind, glob, plen);

	for (; i < d->nents; i++) {
		const struct ix_ent *e = &d->ents[i];

		if (ent_key_cmp(d, e, kind, glob, plen))
			break;
		if (glob_match(glob, ent_name(d, e)))
			fn(e, arg);
	}
}

static bool ent_die(struct kdwarf *d, const struct ix_ent *e, Dwarf_Die *die)
{
	return dwarf_offdie(d->dw, e->die, die) != NULL;
}

/* The index of vmlinux is CACHEDIR/dwarf/KVER.idx, that of a module
 * CACHEDIR/dwarf/KVER/NAME.idx.
 */
static void ix_load(struct kdwarf *d, const char *kver, const char *module,
		    const char *cachedir)
{
	char *dir = NULL, *path = NULL;

	if (cachedir && *cachedir &&
	    asprintf(&dir, module ? "%s/dwarf/%s" : "%s/dwarf", cachedir,
		     kver) >= 0 &&
	    asprintf(&path, "%s/%s.idx", dir, module ? module : kver) >= 0 &&
	    ix_read(d, path)) {
		/* a hit: the cache's trim keeps what is used */
		cache_touch(path);
		goto out;
	}
	ix_build(d);
	/* A failed store only costs the next run another walk. */
	if (path && mkdir_p(dir))
		ix_write(d, path);
out:
	free(dir);
	free(path);
}

/* ----------------------------------------------------------- symbols */

static int sym_addr_cmp(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->global != b->global)	/* globals first at one address */
		return a->global ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int sym_name_cmp(const void *pa, const void *pb)
{
	const struct ksym *a = *(const struct ksym *const *)pa;
	const struct ksym *b = *(const struct ksym *const *)pb;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	if (a->global != b->global)
		return a->global ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static void symtab_add(struct symtab *t, size_t *cap, const GElf_Sym *s,
		       const char *name)
{
	if (t->n == *cap) {
		*cap = *cap ? *cap * 2 : 4096;
		t->syms = xrealloc(t->syms, *cap * sizeof(*t->syms));
	}
	t->syms[t->n].addr = s->st_value;
	t->syms[t->n].size = s->st_size;
	t->syms[t->n].name = name;
	t->syms[t->n].global = GELF_ST_BIND(s->st_info) != STB_LOCAL;
	t->n++;
}

static void symtab_sort(struct symtab *t)
{
	size_t i;

	if (t->n)
		qsort(t->syms, t->n, sizeof(*t->syms), sym_addr_cmp);
	t->by_name = xmalloc((t->n ? t->n : 1) * sizeof(*t->by_name));
	for (i = 0; i < t->n; i++)
		t->by_name[i] = &t->syms[i];
	if (t->n)
		qsort(t->by_name, t->n, sizeof(*t->by_name), sym_name_cmp);
}

/* In a relocatable file (a module) a symbol's value is an offset in its
 * section: make it the address libdwfl gave the section, which the
 * relocated DWARF uses too.
 */
static bool rel_sym_addr(struct kdwarf *d, GElf_Sym *s)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (s->st_shndx >= SHN_LORESERVE)
		return false;
	scn = elf_getscn(d->elf, s->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
		return false;
	s->st_value += sh.sh_addr;
	return true;
}

/* The functions and objects of .symtab: probes are placed as symbol +
 * offset, never as addresses, so every address is reported that way.
 */
struct syms_walk {
	struct kdwarf *d;
	size_t fcap, ocap;
	bool rel;
};

static bool sym_one(const GElf_Sym *sym, const char *name, void *arg)
{
	struct syms_walk *w = arg;
	GElf_Sym s = *sym;
	int type = GELF_ST_TYPE(s.st_info);

	if (type != STT_FUNC && type != STT_OBJECT)
		return true;
	if (w->rel && !rel_sym_addr(w->d, &s))
		return true;
	if (type == STT_FUNC)
		symtab_add(&w->d->funcs, &w->fcap, &s, name);
	else
		symtab_add(&w->d->objs, &w->ocap, &s, name);
	return true;
}

static void syms_load(struct kdwarf *d)
{
	struct syms_walk w = { .d = d };
	GElf_Ehdr eh;

	if (d->syms_loaded)
		return;
	d->syms_loaded = true;
	w.rel = gelf_getehdr(d->elf, &eh) && eh.e_type == ET_REL;
	elf_each_symbol(d->elf, SHT_SYMTAB, sym_one, &w);
	symtab_sort(&d->funcs);
	symtab_sort(&d->objs);
}

/* How many symbols of t are called name, and *at the first of them
 * in t->by_name.
 */
static size_t syms_named(const struct symtab *t, const char *name,
			 size_t *at)
{
	size_t lo = 0, hi = t->n, n = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(t->by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	while (lo + n < t->n && !strcmp(t->by_name[lo + n]->name, name))
		n++;
	return n;
}

static const struct ksym *sym_by_name(const struct symtab *t,
				      const char *name)
{
	size_t at;

	return syms_named(t, name, &at) ? t->by_name[at] : NULL;
}

/* The symbol holding addr; of several at its address, the one called
 * prefer if there is one, else the first (globals sort first).
 */
static const struct ksym *sym_at(const struct symtab *t, uint64_t addr,
				 const char *prefer)
{
	size_t lo = 0, hi = t->n, first, i;
	uint64_t end = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	for (first = lo - 1;
	     first && t->syms[first - 1].addr == t->syms[lo - 1].addr;)
		first--;
	for (i = first; i < lo; i++)
		if (t->syms[i].addr + t->syms[i].size > end)
			end = t->syms[i].addr + t->syms[i].size;
	if (addr >= end && addr != t->syms[first].addr)
		return NULL;
	for (i = first; prefer && i < lo; i++)
		if (!strcmp(t->syms[i].name, prefer))
			return &t->syms[i];
	return &t->syms[first];
}

/* ------------------------------------------------------------- paths */

/* A source path as the kernel tree names it ("fs/read_write.c").  GCC
 * records paths under the build directory, DW_AT_comp_dir
 * ("debian/build/build_amd64_none_amd64/fs/read_write.c"), and the
 * assembler absolute ones; the part shared with comp_dir is the tree.
 */
static const char *rel_path(struct kdwarf *d, Dwarf_Die *in, const char *p)
{
	Dwarf_Die cu;
	Dwarf_Attribute a;
	const char *comp = NULL, *q;
	size_t n, cut = 0, i;

	if (!p)
		return NULL;
	if (d->user)
		return arena_strdup(d->arena, p);
	if (dwarf_diecu(in, &cu, NULL, NULL))
		comp = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a));
	if (comp) {
		n = strlen(comp);
		if (!strncmp(p, comp, n) && p[n] == '/')
			return arena_strdup(d->arena, p + n + 1);
		if (p[0] == '/' && comp[0] == '/') {
			int depth = 0;

			for (i = 0; p[i] && p[i] == comp[i]; i++)
				if (p[i] == '/') {
					cut = i + 1;
					depth++;
				}
			if (!comp[i] && p[i] == '/')
				cut = i + 1, depth++;
			/* "/" or "/build/" alone is no tree root. */
			if (depth < 3)
				cut = 0;
		}
	}
	q = p + cut;
	while (q[0] == '.' && q[1] == '/')
		q += 2;
	return arena_strdup(d->arena, q);
}

/* The assembler records no declaring file: its unit's file is it. */
static const char *decl_file(struct kdwarf *d, Dwarf_Die *die)
{
	const char *f = dwarf_decl_file(die);
	Dwarf_Die cu;

	if (!f && dwarf_diecu(die, &cu, NULL, NULL))
		f = dwarf_diename(&cu);
	return rel_path(d, die, f);
}

/* ------------------------------------------------------------- types */

static const struct ktype *kt_get(struct kdwarf *d, Dwarf_Die *die);

/* The type a DIE's DW_AT_type names, void if none. */
static const struct ktype *kt_of(struct kdwarf *d, Dwarf_Die *die)
{
	Dwarf_Die t;

	if (!die_ref(die, DW_AT_type, &t))
		return &d->void_type;
	return kt_get(d, &t);
}

static struct ktype *kt_canon_find(struct kdwarf *d, const char *key)
{
	return htab_get(&d->canon, key, strlen(key));
}

/* A new type known by key from now on. */
static struct ktype *kt_canon_add(struct kdwarf *d, const char *key)
{
	struct ktype *t = arena_alloc(d->arena, sizeof(*t));

	key = arena_strdup(d->arena, key);
	htab_put(&d->canon, key, strlen(key), t);
	t->src = &d->src;
	return t;
}

static const struct ktype *kt_base(struct kdwarf *d, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);
	int size = dwarf_bytesize(die);
	Dwarf_Word enc = 0;
	struct ktype *t;
	char key[256];

	die_udata(die, DW_AT_encoding, &enc);
	snprintf(key, sizeof(key), "B:%s:%d:%u", name ? name : "",
		 size, (unsigned int)enc);
	if ((t = kt_canon_find(d, key)))
		return t;
	t = kt_canon_add(d, key);
	t->name = name ? name : "<unnamed>";
	t->kind = enc == DW_ATE_float ? KT_FLOAT : KT_INT;
	t->size = size > 0 ? (unsigned int)size : 0;
	t->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	t->is_char = size == 1 && name && strstr(name, "char");
	t->handle = dwarf_dieoffset(die);
	return t;
}

/* A definition's identity: name, size and where it was written, so that
 * the copies of one struct in every unit that includes it are one
 * ktype.  Not so for an anonymous one: every anonymous type a macro
 * defines has the place of the macro's use (struct_group() makes three
 * in struct sk_buff), so each DIE is its own type.
 */
static void def_key(char *buf, size_t len, char tag, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);
	const char *file = dwarf_decl_file(die);
	int line = 0;
	Dwarf_Word col = 0;

	if (!name) {
		snprintf(buf, len, "%c@%llx", tag,
			 (unsigned long long)dwarf_dieoffset(die));
		return;
	}
	dwarf_decl_line(die, &line);
	die_udata(die, DW_AT_decl_column, &col);
	snprintf(buf, len, "%c:%s:%d:%s:%d:%u", tag, name,
		 dwarf_bytesize(die), file ? file : "", line,
		 (unsigned int)col);
}

static bool enum_signed(Dwarf_Die *die)
{
	Dwarf_Die t, c;
	Dwarf_Word enc;
	Dwarf_Attribute a;
	Dwarf_Sword v;

	if (die_ref(die, DW_AT_type, &t) && !dwarf_peel_type(&t, &t) &&
	    die_udata(&t, DW_AT_encoding, &enc))
		return enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	if (dwarf_child(die, &c))
		return false;
	do {
		if (dwarf_attr(&c, DW_AT_const_value, &a) &&
		    a.form == DW_FORM_sdata && !dwarf_formsdata(&a, &v) &&
		    v < 0)
			return true;
	} while (!dwarf_siblingof(&c, &c));
	return false;
}

static const struct ktype *kt_tagged(struct kdwarf *d, Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	uint32_t kind = tag == DW_TAG_structure_type ||
			tag == DW_TAG_class_type ? IX_STRUCT :
			tag == DW_TAG_union_type ? IX_UNION : IX_ENUM;
	static const char *const kw[] = {
		[IX_STRUCT] = "struct", [IX_UNION] = "union",
		[IX_ENUM] = "enum",
	};
	char tag_char = "SUE"[kind - IX_STRUCT];
	const char *name = dwarf_diename(die);
	bool decl = die_flag(die, DW_AT_declaration);
	const struct ix_ent *e;
	struct ktype *t;
	Dwarf_Die def;
	char key[1024];
	int size;

	if (decl && name && (e = ix_find(d, kind, name)) &&
	    !(e->kind & IX_DECL) && ent_die(d, e, &def))
		return kt_get(d, &def);
	if (decl)
		snprintf(key, sizeof(key), "%c:%s:decl", tag_char,
			 name ? name : "");
	else
		def_key(key, sizeof(key), tag_char, die);
	if ((t = kt_canon_find(d, key)))
		return t;
	t = kt_canon_add(d, key);
	t->kind = kind == IX_STRUCT ? KT_STRUCT :
		  kind == IX_UNION ? KT_UNION : KT_ENUM;
	t->name = arena_printf(d->arena, "%s %s", tag == DW_TAG_class_type ?
			       "class" : kw[kind], name ? name : "{...}");
	size = decl ? 0 : dwarf_bytesize(die);
	t->size = size > 0 ? (unsigned int)size : 0;
	t->is_signed = kind == IX_ENUM && enum_signed(die);
	t->handle = dwarf_dieoffset(die);
	return t;
}

static const struct ktype *kt_typedef(struct kdwarf *d, Dwarf_Die *die)
{
	const struct ktype *inner;
	struct ktype *t;
	char key[1024];

	def_key(key, sizeof(key), 'T', die);
	if ((t = kt_canon_find(d, key)))
		return t;
	inner = kt_of(d, die);
	t = kt_canon_add(d, key);
	*t = *inner;	/* the shape and handle of what it names */
	t->name = dwarf_diename(die);
	if (!t->name)
		t->name = inner->name;
	return t;
}

/* The one pointer type to target. */
static const struct ktype *kt_ptr_to(struct kdwarf *d,
				     const struct ktype *target,
				     const char *name)
{
	struct ktype *t;
	char key[64];

	snprintf(key, sizeof(key), "P:%p", (const void *)target);
	if ((t = kt_canon_find(d, key)))
		return t;
	t = kt_canon_add(d, key);
	t->kind = KT_PTR;
	t->size = 8;
	t->target = target;
	t->name = name ? name : arena_printf(d->arena, "%s*", target->name);
	return t;
}

/* "ret (params)", or "ret (*)(params)" for a pointer to it: BTF's way. */
static const char *func_sig(struct kdwarf *d, Dwarf_Die *die, bool ptr)
{
	struct strbuf sb;
	Dwarf_Die c;
	const char *s;
	int n = 0;

	sb_init(&sb);
	sb_puts(&sb, kt_of(d, die)->name);
	sb_puts(&sb, ptr ? " (*)(" : " (");
	if (!dwarf_child(die, &c)) {
		do {
			int tag = dwarf_tag(&c);

			if (tag != DW_TAG_formal_parameter &&
			    tag != DW_TAG_unspecified_parameters)
				continue;
			if (n++)
				sb_puts(&sb, ", ");
			sb_puts(&sb, tag == DW_TAG_formal_parameter ?
				kt_of(d, &c)->name : "...");
		} while (!dwarf_siblingof(&c, &c));
	}
	if (!n)
		sb_puts(&sb, "void");
	sb_putc(&sb, ')');
	s = arena_strdup(d->arena, sb.buf);
	sb_free(&sb);
	return s;
}

static const struct ktype *kt_func(struct kdwarf *d, Dwarf_Die *die)
{
	const char *name = func_sig(d, die, false);
	struct ktype *t;
	char *key;

	if (asprintf(&key, "F:%s", name) < 0)
		return &d->void_type;
	t = kt_canon_find(d, key);
	if (!t) {
		t = kt_canon_add(d, key);
		t->kind = KT_FUNC;
		t->name = name;
		t->handle = dwarf_dieoffset(die);
	}
	free(key);
	return t;
}

static const struct ktype *kt_pointer(struct kdwarf *d, Dwarf_Die *die)
{
	Dwarf_Die t;

	if (die_ref(die, DW_AT_type, &t) &&
	    dwarf_tag(&t) == DW_TAG_subroutine_type) {
		const struct ktype *f = kt_get(d, &t);
		char key[64];
		struct ktype *p;

		snprintf(key, sizeof(key), "P:%p", (const void *)f);
		if ((p = kt_canon_find(d, key)))
			return p;
		return kt_ptr_to(d, f, func_sig(d, &t, true));
	}
	return kt_ptr_to(d, kt_of(d, die), NULL);
}

/* const/volatile: in front ("const char"), or after a pointer, as C
 * writes it ("char* const").
 */
static const struct ktype *kt_qual(struct kdwarf *d, Dwarf_Die *die)
{
	const char *q = dwarf_tag(die) == DW_TAG_const_type ? "const" :
			"volatile";
	const struct ktype *inner = kt_of(d, die);
	Dwarf_Die u;
	bool after = die_ref(die, DW_AT_type, &u) &&
		     dwarf_tag(&u) == DW_TAG_pointer_type;
	struct ktype *t;
	char key[64];
	size_t n;

	snprintf(key, sizeof(key), "Q:%s:%d:%p", q, after,
		 (const void *)inner);
	if ((t = kt_canon_find(d, key)))
		return t;
	t = kt_canon_add(d, key);
	*t = *inner;
	n = strlen(q);
	/* const on an array is const on its elements, which GCC often
	 * says twice: "const const char[17]" for __func__.
	 */
	if (inner->kind == KT_ARRAY && !strncmp(inner->name, q, n) &&
	    inner->name[n] == ' ')
		return t;
	t->name = after ? arena_printf(d->arena, "%s %s", inner->name, q) :
			  arena_printf(d->arena, "%s %s", q, inner->name);
	return t;
}

/* The element count of one subrange; 0 for a flexible or [0] array. */
static unsigned int subrange_count(Dwarf_Die *sub)
{
	Dwarf_Attribute a;
	Dwarf_Word w, lo = 0, hi;

	if (dwarf_attr(sub, DW_AT_count, &a))
		return dwarf_formudata(&a, &w) ? 0 : (unsigned int)w;
	/* Bounds in data1..data8 forms are unsigned: [256] has 0xff.  GCC
	 * writes all ones for [0], which the unsigned sum turns into 0.
	 */
	if (!dwarf_attr(sub, DW_AT_upper_bound, &a) ||
	    dwarf_formudata(&a, &hi))
		return 0;
	if (dwarf_attr(sub, DW_AT_lower_bound, &a))
		dwarf_formudata(&a, &lo);
	w = hi - lo + 1;
	return w <= UINT32_MAX ? (unsigned int)w : 0;
}

/* Dimension dim of an array DIE and all inner ones: int a[2][3] is an
 * array of 2 "int[3]", named "int[3][2]" as the BTF source names it.
 */
static const struct ktype *kt_array(struct kdwarf *d, Dwarf_Die *die,
				    int dim)
{
	const struct ktype *elem = NULL;
	unsigned int nelem = 0;
	Dwarf_Die c;
	struct ktype *t;
	char key[64];
	int i = 0;

	if (!dwarf_child(die, &c)) {
		do {
			int tag = dwarf_tag(&c);

			if (tag != DW_TAG_subrange_type &&
			    tag != DW_TAG_enumeration_type)
				continue;
			if (i == dim)
				nelem = subrange_count(&c);
			else if (i == dim + 1)
				elem = kt_array(d, die, dim + 1);
			i++;
		} while (!dwarf_siblingof(&c, &c));
	}
	if (!elem)
		elem = kt_of(d, die);
	snprintf(key, sizeof(key), "A:%u:%p", nelem, (const void *)elem);
	if ((t = kt_canon_find(d, key)))
		return t;
	t = kt_canon_add(d, key);
	t->kind = KT_ARRAY;
	t->target = elem;
	t->nelem = nelem;
	t->size = nelem * elem->size;
	t->name = arena_printf(d->arena, "%s[%u]", elem->name, nelem);
	return t;
}

/* A C++ reference reads as the pointer it is, named "T&". */
static const struct ktype *kt_reference(struct kdwarf *d, Dwarf_Die *die)
{
	const struct ktype *target = kt_of(d, die);
	bool rvalue = dwarf_tag(die) == DW_TAG_rvalue_reference_type;
	struct ktype *t;
	char key[64];

	snprintf(key, sizeof(key), "R%d:%p", rvalue, (const void *)target);
	if ((t = kt_canon_find(d, key)))
		return t;
	t = kt_canon_add(d, key);
	t->kind = KT_PTR;
	t->size = 8;
	t->target = target;
	t->name = arena_printf(d->arena, "%s%s", target->name,
			       rvalue ? "&&" : "&");
	return t;
}

static const struct ktype *kt_make(struct kdwarf *d, Dwarf_Die *die)
{
	switch (dwarf_tag(die)) {
	case DW_TAG_base_type:
		return kt_base(d, die);
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		return kt_tagged(d, die);
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		return kt_reference(d, die);
	case DW_TAG_typedef:
		return kt_typedef(d, die);
	case DW_TAG_pointer_type:
		return kt_pointer(d, die);
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		return kt_qual(d, die);
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		/* Not part of how SystemTap (or our BTF) names a type. */
		return kt_of(d, die);
	case DW_TAG_array_type:
		return kt_array(d, die, 0);
	case DW_TAG_subroutine_type:
		return kt_func(d, die);
	default:	/* DW_TAG_unspecified_type: the assembler's "void" */
		return &d->void_type;
	}
}

static const struct ktype *kt_get(struct kdwarf *d, Dwarf_Die *die)
{
	Dwarf_Off off = dwarf_dieoffset(die);
	const struct ktype *t = htab_iget(&d->types, off);

	if (t)
		return t;
	t = kt_make(d, die);
	htab_iput(&d->types, off, (void *)t);
	return t;
}

/* ------------------------------------------------------ ksrc_ops */

/* Follow DW_AT_abstract_origin to the abstract instance, which lists
 * every parameter even when this copy lost some.
 */
static void abstract_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	int i;

	*out = *die;
	for (i = 0; i < 8 && dwarf_attr(out, DW_AT_abstract_origin, &a); i++)
		if (!dwarf_formref_die(&a, out))
			break;
}

static int fill_kfunc(struct kdwarf *d, const char *name, Dwarf_Die *die,
		      struct kfunc *out)
{
	Dwarf_Die abs, c;
	int n = 0;

	memset(out, 0, sizeof(*out));
	out->name = name;
	out->file = decl_file(d, die);
	dwarf_decl_line(die, &out->line);
	out->ret = kt_of(d, die);
	abstract_of(die, &abs);
	if (dwarf_child(&abs, &c))
		return 0;
	do {
		int tag = dwarf_tag(&c);
		const char *pname;

		if (tag == DW_TAG_unspecified_parameters) {
			out->variadic = true;
			continue;
		}
		if (tag != DW_TAG_formal_parameter)
			continue;
		if (n == KFUNC_MAX_PARAMS)
			return -E2BIG;
		pname = dwarf_diename(&c);
		out->params[n].name = pname ? pname : "";
		out->params[n].type = kt_of(d, &c);
		out->nparams = ++n;
	} while (!dwarf_siblingof(&c, &c));
	return 0;
}

static int op_func(const struct ksrc *s, const char *name, struct kfunc *out)
{
	struct kdwarf *d = from_src(s);
	const struct ix_ent *e = ix_find(d, IX_FUNC, name);
	Dwarf_Die die;

	if (!e || !ent_die(d, e, &die))
		return -ENOENT;
	return fill_kfunc(d, ent_name(d, e), &die, out);
}

/* Two descriptions of one function: an inline function's abstract DIE
 * is in every unit that uses it, a clone repeats its origin.  Types are
 * one ktype each, so pointers compare.  (fs/compat_binfmt_elf.c
 * includes fs/binfmt_elf.c: same place, other types, two functions.)
 */
static bool same_kfunc(const struct kfunc *a, const struct kfunc *b)
{
	int i;

	if (a->line != b->line || !a->file || !b->file ||
	    strcmp(a->file, b->file) || a->ret != b->ret ||
	    a->nparams != b->nparams || a->variadic != b->variadic)
		return false;
	for (i = 0; i < a->nparams; i++)
		if (a->params[i].type != b->params[i].type ||
		    strcmp(a->params[i].name, b->params[i].name))
			return false;
	return true;
}

/* Each definition of kind and name once. */
static int defs_of(struct kdwarf *d, uint32_t kind, const char *name,
		   void (*cb)(const struct kfunc *f, void *arg), void *arg)
{
	size_t len = strlen(name) + 1;
	size_t i = ix_lower(d, kind, name, len), j, first = i;
	struct kfunc *seen = NULL;
	int n = 0;

	for (; i < d->nents && !ent_key_cmp(d, &d->ents[i], kind, name, len);
	     i++) {
		Dwarf_Die die;
		struct kfunc f;

		if (!ent_die(d, &d->ents[i], &die) ||
		    fill_kfunc(d, ent_name(d, &d->ents[i]), &die, &f))
			continue;
		for (j = 0; j < (size_t)n && !same_kfunc(&seen[j], &f); j++)
			;
		if (j < (size_t)n)
			continue;
		seen = xrealloc(seen, (i - first + 1) * sizeof(*seen));
		seen[n++] = f;
		cb(&f, arg);
	}
	free(seen);
	return n;
}

int kdwarf_func_all(struct kdwarf *d, const char *name,
		    void (*cb)(const struct kfunc *f, void *arg), void *arg)
{
	return defs_of(d, IX_FUNC, name, cb, arg);
}

int kdwarf_inline_all(struct kdwarf *d, const char *name,
		      void (*cb)(const struct kfunc *f, void *arg), void *arg)
{
	return defs_of(d, IX_INLINE, name, cb, arg);
}

static int op_funcs_matching(const struct ksrc *s, const char *glob,
			     void (*cb)(const char *name, void *arg),
			     void *arg)
{
	struct kdwarf *d = from_src(s);
	size_t plen = strcspn(glob, "*?[\\");
	size_t i = ix_lower(d, IX_FUNC, glob, plen);
	const char *last = NULL;
	int n = 0;

	for (; i < d->nents; i++) {
		const struct ix_ent *e = &d->ents[i];
		const char *name = ent_name(d, e);

		if (ent_key_cmp(d, e, IX_FUNC, glob, plen))
			break;
		/* Equal names are adjacent and share one string. */
		if (name == last || !glob_match(glob, name))
			continue;
		last = name;
		cb(name, arg);
		n++;
	}
	return n;
}

/* C's spellings of base types, as DWARF names them. */
static const char *base_alias(const char *name)
{
	static const char *const alias[][2] = {
		{ "unsigned", "unsigned int" },
		{ "signed", "int" },
		{ "signed int", "int" },
		{ "long", "long int" },
		{ "signed long", "long int" },
		{ "unsigned long", "long unsigned int" },
		{ "unsigned long int", "long unsigned int" },
		{ "long long", "long long int" },
		{ "unsigned long long", "long long unsigned int" },
		{ "unsigned long long int", "long long unsigned int" },
		{ "short", "short int" },
		{ "unsigned short", "short unsigned int" },
		{ "unsigned short int", "short unsigned int" },
		{ "bool", "_Bool" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(alias); i++)
		if (!strcmp(name, alias[i][0]))
			return alias[i][1];
	return name;
}

static const struct ktype *type_named(struct kdwarf *d, const char *name)
{
	const struct ix_ent *e = NULL;
	Dwarf_Die die;

	if (!strncmp(name, "struct ", 7))
		e = ix_find(d, IX_STRUCT, name + 7);
	else if (!strncmp(name, "union ", 6))
		e = ix_find(d, IX_UNION, name + 6);
	else if (!strncmp(name, "enum ", 5))
		e = ix_find(d, IX_ENUM, name + 5);
	else if (!(e = ix_find(d, IX_TYPEDEF, name)))
		e = ix_find(d, IX_BASE, base_alias(name));
	if (!e || !ent_die(d, e, &die))
		return NULL;
	return kt_get(d, &die);
}

/* A name as written: "struct file", "size_t", "unsigned long", and
 * pointers to any of them ("struct file *").
 */
static int op_type_by_name(const struct ksrc *s, const char *name,
			   const struct ktype **out)
{
	struct kdwarf *d = from_src(s);
	char buf[512];
	size_t n;
	int stars = 0;
	const struct ktype *t;

	while (*name == ' ')
		name++;
	n = strlen(name);
	if (n >= sizeof(buf))
		return -ENOENT;
	memcpy(buf, name, n + 1);
	while (n && (buf[n - 1] == ' ' || buf[n - 1] == '*')) {
		stars += buf[n - 1] == '*';
		buf[--n] = '\0';
	}
	if (!n)
		return -ENOENT;
	if (!strcmp(buf, "void"))
		t = &d->void_type;
	else if (!(t = type_named(d, buf)))
		return -ENOENT;
	while (stars--)
		t = kt_ptr_to(d, t, NULL);
	*out = t;
	return 0;
}

/* The bit offset of a member from the start of its struct, and whether
 * it is a bitfield.  DWARF 4+ gives DW_AT_data_bit_offset; DWARF 2/3 a
 * byte offset and a big-endian-style bit offset in the storage unit.
 */
static bool member_bits(Dwarf_Die *m, uint64_t *bits, unsigned int *width)
{
	Dwarf_Word loc = 0, w = 0, bo, storage;
	Dwarf_Attribute a;

	if (die_udata(m, DW_AT_bit_size, &w))
		*width = (unsigned int)w;
	else
		*width = 0;
	if (die_udata(m, DW_AT_data_bit_offset, &bo)) {
		*bits = bo;
		return true;
	}
	if (dwarf_attr(m, DW_AT_data_member_location, &a) &&
	    dwarf_formudata(&a, &loc)) {
		Dwarf_Op *ops;
		size_t n;

		/* An expression: DWARF 2's DW_OP_plus_uconst form. */
		if (dwarf_getlocation(&a, &ops, &n) || n != 1 ||
		    ops[0].atom != DW_OP_plus_uconst)
			return false;
		loc = ops[0].number;
	}
	*bits = loc * 8;
	if (*width && die_udata(m, DW_AT_bit_offset, &bo)) {
		int sz = dwarf_bytesize(m);
		Dwarf_Die t;

		if (sz <= 0 && die_ref(m, DW_AT_type, &t))
			sz = dwarf_bytesize(&t);
		storage = sz > 0 ? (Dwarf_Word)sz * 8 : 0;
		*bits += storage - bo - *width;
	}
	return true;
}

static bool shape_die(struct kdwarf *d, const struct ktype *t, int tag1,
		      int tag2, Dwarf_Die *die)
{
	int tag;

	if (!t || t->src != &d->src || !t->handle ||
	    !dwarf_offdie(d->dw, (Dwarf_Off)t->handle, die))
		return false;
	tag = dwarf_tag(die);
	if (tag == DW_TAG_class_type)	/* C++: a struct by another name */
		tag = DW_TAG_structure_type;
	return tag == tag1 || tag == tag2;
}

static int op_member_at(const struct ksrc *s, const struct ktype *t, int i,
			struct kmember *out)
{
	struct kdwarf *d = from_src(s);
	Dwarf_Die die, c;
	uint64_t bits;
	unsigned int width;

	if ((t->kind != KT_STRUCT && t->kind != KT_UNION) ||
	    !shape_die(d, t, DW_TAG_structure_type, DW_TAG_union_type, &die))
		return -EINVAL;
	if (dwarf_child(&die, &c))
		return -ENOENT;
	do {
		const char *name;

		if (dwarf_tag(&c) != DW_TAG_member || i--)
			continue;
		if (!member_bits(&c, &bits, &width))
			return -EINVAL;
		name = dwarf_diename(&c);
		memset(out, 0, sizeof(*out));
		out->name = name ? name : "";
		out->type = kt_of(d, &c);
		out->offset = bits / 8;
		/* "u8 x:8" on a byte boundary is a plain u8, as BTF says. */
		if (width && (bits % 8 || width != out->type->size * 8)) {
			out->bit_offset = bits % 8;
			out->bit_size = width;
		}
		return 0;
	} while (!dwarf_siblingof(&c, &c));
	return -ENOENT;
}

static const char *op_enum_name(const struct ksrc *s, const struct ktype *t,
				int64_t value)
{
	struct kdwarf *d = from_src(s);
	uint64_t mask = t->size && t->size < 8 ?
			(1ULL << (t->size * 8)) - 1 : ~0ULL;
	Dwarf_Die die, c;

	if (t->kind != KT_ENUM ||
	    !shape_die(d, t, DW_TAG_enumeration_type, -1, &die) ||
	    dwarf_child(&die, &c))
		return NULL;
	do {
		Dwarf_Attribute a;
		Dwarf_Sword v;

		if (dwarf_tag(&c) == DW_TAG_enumerator &&
		    dwarf_attr(&c, DW_AT_const_value, &a) &&
		    !dwarf_formsdata(&a, &v) &&
		    (((uint64_t)v ^ (uint64_t)value) & mask) == 0)
			return dwarf_diename(&c);
	} while (!dwarf_siblingof(&c, &c));
	return NULL;
}

static const struct ksrc_ops kdwarf_ops = {
	.name = "DWARF",
	.func = op_func,
	.funcs_matching = op_funcs_matching,
	.type_by_name = op_type_by_name,
	.member_at = op_member_at,
	.enum_name = op_enum_name,
};

const struct ksrc *kdwarf_src(struct kdwarf *d)
{
	return &d->src;
}

/* ----------------------------------------------------- line places */

struct place {
	const char *file;	/* relative, in d's arena */
	int line;
	uint64_t addr;
};

struct places {
	struct place *v;
	size_t n, cap;
};

/* The lowest address of (file, line): each line is reported once. */
static void places_add(struct places *p, const char *file, int line,
		       uint64_t addr)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->v[i].line == line && !strcmp(p->v[i].file, file)) {
			if (addr < p->v[i].addr)
				p->v[i].addr = addr;
			return;
		}
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->v = xrealloc(p->v, p->cap * sizeof(*p->v));
	}
	p->v[p->n].file = file;
	p->v[p->n].line = line;
	p->v[p->n].addr = addr;
	p->n++;
}

static int place_cmp(const void *pa, const void *pb)
{
	const struct place *a = pa, *b = pb;

	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return strcmp(a->file, b->file);
}

/* "fs/read_write.c" matches the glob itself and globs of its trailing
 * components ("read_write.c", "*write.c").
 */
static bool file_matches(const char *glob, const char *file)
{
	const char *p;

	if (glob_match(glob, file))
		return true;
	for (p = strchr(file, '/'); p; p = strchr(p + 1, '/'))
		if (glob_match(glob, p + 1))
			return true;
	return false;
}

struct ranges {
	Dwarf_Addr lo[32], hi[32];
	int n;
};

static void die_ranges(Dwarf_Die *die, struct ranges *r)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	r->n = 0;
	while (r->n < (int)ARRAY_SIZE(r->lo) &&
	       (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		r->lo[r->n] = lo;
		r->hi[r->n++] = hi;
	}
}

static bool in_ranges(const struct ranges *r, Dwarf_Addr a)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (a >= r->lo[i] && a < r->hi[i])
			return true;
	return false;
}

/* The matching line-table rows inside one function, into p.  Rows of
 * code inlined from other files (headers) only count if their file
 * matches too.
 */
static void func_lines(struct kdwarf *d, Dwarf_Die *fn, const char *glob,
		       int lo, int hi, struct places *p)
{
	const char *own = glob ? NULL : decl_file(d, fn);
	const char *last_src = NULL, *last_rel = NULL;
	bool last_ok = false;
	struct ranges r;
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t n, i;

	die_ranges(fn, &r);
	if (!dwarf_diecu(fn, &cu, NULL, NULL) ||
	    dwarf_getsrclines(&cu, &lines, &n))
		return;
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		bool stmt = false, end = false;
		int line;
		const char *src;

		if (!l || dwarf_lineaddr(l, &addr) || !in_ranges(&r, addr) ||
		    dwarf_lineno(l, &line) || line < lo || line > hi ||
		    dwarf_linebeginstatement(l, &stmt) || !stmt ||
		    dwarf_lineendsequence(l, &end) || end)
			continue;
		src = dwarf_linesrc(l, NULL, NULL);
		if (!src)
			continue;
		if (src != last_src) {	/* one string per file of the CU */
			last_src = src;
			last_rel = rel_path(d, fn, src);
			last_ok = glob ? file_matches(glob, last_rel) :
				  own && !strcmp(own, last_rel);
		}
		if (last_ok)
			places_add(p, last_rel, line, addr);
	}
}

struct lines_ctx {
	struct kdwarf *d;
	const char *file_glob;
	int lo, hi;
	void (*cb)(const char *func, const char *file, int line,
		   unsigned long offset, void *arg);
	void *arg;
	int n;
};

static void lines_one(const struct ix_ent *e, void *arg)
{
	struct lines_ctx *c = arg;
	struct kdwarf *d = c->d;
	struct places p = { NULL, 0, 0 };
	Dwarf_Die fn;
	size_t i;

	if (!ent_die(d, e, &fn))
		return;
	func_lines(d, &fn, c->file_glob, c->lo, c->hi, &p);
	if (p.n)
		qsort(p.v, p.n, sizeof(*p.v), place_cmp);
	for (i = 0; i < p.n; i++) {
		const struct ksym *s = sym_at(&d->funcs, p.v[i].addr,
					      ent_name(d, e));

		if (!s)
			continue;
		c->cb(s->name, p.v[i].file, p.v[i].line,
		      (unsigned long)(p.v[i].addr - s->addr), c->arg);
		c->n++;
	}
	free(p.v);
}

int kdwarf_lines(struct kdwarf *d, const char *func, const char *file_glob,
		 int line_lo, int line_hi,
		 void (*cb)(const char *func, const char *file, int line,
			    unsigned long offset, void *arg),
		 void *arg)
{
	struct lines_ctx c = { d, file_glob, line_lo, line_hi, cb, arg, 0 };

	syms_load(d);
	ix_glob(d, IX_FUNC, func, lines_one, &c);
	return c.n;
}

/* --------------------------------------------------- inline instances */

struct inl {
	const char *name;
	const char *sym;
	unsigned long offset;
	uint64_t pc;		/* sym + offset */
	const char *file;
	int line;
};

struct inl_ctx {
	struct kdwarf *d;
	Dwarf_Off *want;	/* abstract DIEs asked for, by offset */
	size_t nwant, capwant;
	struct inl *v;
	size_t n, cap;
};

static void want_one(const struct ix_ent *e, void *arg)
{
	struct inl_ctx *c = arg;

	if (c->nwant == c->capwant) {
		c->capwant = c->capwant ? c->capwant * 2 : 256;
		c->want = xrealloc(c->want, c->capwant * sizeof(*c->want));
	}
	c->want[c->nwant++] = e->die;
}

static int off_cmp(const void *pa, const void *pb)
{
	Dwarf_Off a = *(const Dwarf_Off *)pa, b = *(const Dwarf_Off *)pb;

	return a < b ? -1 : a > b;
}

static bool wanted(const struct inl_ctx *c, Dwarf_Off off)
{
	return c->nwant && bsearch(&off, c->want, c->nwant,
				   sizeof(*c->want), off_cmp);
}

static void inl_add(struct inl_ctx *c, Dwarf_Die *inst, Dwarf_Die *abs)
{
	struct kdwarf *d = c->d;
	const struct ksym *s;
	Dwarf_Addr pc;
	struct ranges r;
	struct inl *i;

	if (dwarf_entrypc(inst, &pc)) {
		die_ranges(inst, &r);
		if (!r.n)
			return;
		pc = r.lo[0];
	}
	s = sym_at(&d->funcs, pc, NULL);
	if (!s)
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
	}
	i = &c->v[c->n++];
	i->name = dwarf_diename(abs);
	i->sym = s->name;
	i->offset = (unsigned long)(pc - s->addr);
	i->pc = pc;
	i->file = decl_file(d, abs);
	i->line = 0;
	dwarf_decl_line(abs, &i->line);
}

/* Inlined instances nest in functions, blocks and other instances. */
static void inl_walk(struct inl_ctx *c, Dwarf_Die *parent, int depth)
{
	Dwarf_Die die, abs;

	if (depth > 64 || dwarf_child(parent, &die))
		return;
	do {
		switch (dwarf_tag(&die)) {
		case DW_TAG_inlined_subroutine:
			if (die_ref(&die, DW_AT_abstract_origin, &abs) &&
			    wanted(c, dwarf_dieoffset(&abs)))
				inl_add(c, &die, &abs);
			/* fall through */
		case DW_TAG_lexical_block:
			inl_walk(c, &die, depth + 1);
			break;
		default:
			break;
		}
	} while (!dwarf_siblingof(&die, &die));
}

/* Walk the functions with code of each unit that holds an abstract DIE
 * asked for; instances refer to abstract DIEs of their own unit.
 */
static void inl_units(struct inl_ctx *c)
{
	Dwarf_Off last = (Dwarf_Off)-1;
	size_t i;

	for (i = 0; i < c->nwant; i++) {
		Dwarf_Die die, cu, fn;

		if (!dwarf_offdie(c->d->dw, c->want[i], &die) ||
		    !dwarf_diecu(&die, &cu, NULL, NULL) ||
		    dwarf_dieoffset(&cu) == last)
			continue;
		last = dwarf_dieoffset(&cu);
		if (dwarf_child(&cu, &fn))
			continue;
		do
			if (dwarf_tag(&fn) == DW_TAG_subprogram &&
			    has_code(&fn))
				inl_walk(c, &fn, 0);
		while (!dwarf_siblingof(&fn, &fn));
	}
}

static int inl_cmp(const void *pa, const void *pb)
{
	const struct inl *a = pa, *b = pb;
	int r = strcmp(a->name, b->name);

	if (!r)
		r = strcmp(a->sym, b->sym);
	if (!r && a->offset != b->offset)
		r = a->offset < b->offset ? -1 : 1;
	return r;
}

/* The inline copies of the functions matching glob, sorted, each once
 * (c->v[0..c->n)); the caller frees c->want and c->v.
 */
static void inl_collect(struct kdwarf *d, const char *glob,
			struct inl_ctx *c)
{
	size_t i, j;

	memset(c, 0, sizeof(*c));
	c->d = d;
	syms_load(d);
	ix_glob(d, IX_INLINE, glob, want_one, c);
	if (c->nwant)
		qsort(c->want, c->nwant, sizeof(*c->want), off_cmp);
	inl_units(c);
	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), inl_cmp);
	for (i = j = 0; i < c->n; i++)
		if (!j || inl_cmp(&c->v[i], &c->v[j - 1]))
			c->v[j++] = c->v[i];
	c->n = j;
}

int kdwarf_inlines(struct kdwarf *d, const char *glob,
		   void (*cb)(const char *name, const char *caller_symbol,
			      unsigned long offset, const char *file,
			      int line, void *arg),
		   void *arg)
{
	struct inl_ctx c;
	size_t i;

	inl_collect(d, glob, &c);
	for (i = 0; i < c.n; i++)
		cb(c.v[i].name, c.v[i].sym, c.v[i].offset, c.v[i].file,
		   c.v[i].line, arg);
	free(c.want);
	free(c.v);
	return (int)c.n;
}

/* --------------------------------------------------- variable places */

static const char *const x86_regs[] = {
	"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

static void unsupported(struct kloc *l, const char *why)
{
	memset(l, 0, sizeof(*l));
	l->kind = KLOC_UNSUPPORTED;
	l->why = why;
}

/* A register and an offset from one DW_OP_breg / DW_OP_bregx. */
static bool op_breg(const Dwarf_Op *op, unsigned int *reg, long *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (long)(Dwarf_Sword)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx) {
		*reg = (unsigned int)op->number;
		*off = (long)(Dwarf_Sword)op->number2;
		return true;
	}
	return false;
}

static Dwarf_CFI *get_cfi(struct kdwarf *d)
{
	Dwarf_Addr bias;

	if (!d->cfi_tried && d->mod) {
		d->cfi_tried = true;
		d->cfi = dwfl_module_dwarf_cfi(d->mod, &bias);
	}
	if (!d->cfi_tried) {
		d->cfi_tried = true;
		d->cfi = dwarf_getcfi(d->dw);	/* .debug_frame */
		if (!d->cfi) {
			d->cfi = dwarf_getcfi_elf(d->elf);	/* .eh_frame */
			d->cfi_is_eh = d->cfi != NULL;
		}
	}
	return d->cfi;
}

/* The CFA at pc as register + offset, from the call frame information;
 * without CFI only a function's first instruction is known: the return
 * address was just pushed, so the CFA is sp + 8.
 */
static bool cfa_at(struct kdwarf *d, Dwarf_Addr pc, Dwarf_Addr entry,
		   unsigned int *reg, long *off)
{
	Dwarf_CFI *cfi = get_cfi(d);
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t n;
	bool ok = false;

	if (cfi && !dwarf_cfi_addrframe(cfi, pc, &frame) &&
	    !dwarf_frame_cfa(frame, &ops, &n) && n == 1)
		ok = op_breg(&ops[0], reg, off);
	free(frame);
	if (!ok && pc == entry) {
		*reg = 7;
		*off = 8;
		ok = true;
	}
	return ok;
}

/* The frame base of fn at pc, as register + offset. */
static bool frame_base(struct kdwarf *d, Dwarf_Die *fn, Dwarf_Addr pc,
		       unsigned int *reg, long *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	Dwarf_Addr entry = 0;

	if (!fn || !dwarf_attr(fn, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, pc, &ops, &n, 1) != 1 || n != 1)
		return false;
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		dwarf_entrypc(fn, &entry);
		return cfa_at(d, pc, entry, reg, off);
	}
	if (op_breg(&ops[0], reg, off))
		return true;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		*reg = ops[0].atom - DW_OP_reg0;
		*off = 0;
		return true;
	}
	return false;
}

static bool const_op(const Dwarf_Op *op, int64_t *v)
{
	switch (op->atom) {
	case DW_OP_lit0 ... DW_OP_lit31:
		*v = op->atom - DW_OP_lit0;
		return true;
	case DW_OP_const1u:
	case DW_OP_const2u:
	case DW_OP_const4u:
	case DW_OP_const8u:
	case DW_OP_constu:
		*v = (int64_t)op->number;
		return true;
	case DW_OP_const1s:
	case DW_OP_const2s:
	case DW_OP_const4s:
	case DW_OP_const8s:
	case DW_OP_consts:
		*v = (int64_t)(Dwarf_Sword)op->number;
		return true;
	default:
		return false;
	}
}

static const char *static_loc(struct kdwarf *d, Dwarf_Addr addr,
			      struct kloc *l)
{
	const struct ksym *s = sym_at(&d->objs, addr, NULL);

	if (!s)
		s = sym_at(&d->funcs, addr, NULL);
	if (!s)
		return "address outside any symbol";
	l->kind = KLOC_STATIC;
	l->symbol = s->name;
	l->offset = (long)(addr - s->addr);
	return NULL;
}

/* What no probe can read without more than this file knows. */
static const char *expr_blocker(const Dwarf_Op *ops, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		switch (ops[i].atom) {
		case DW_OP_piece:
		case DW_OP_bit_piece:
			return "multi-piece location";
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value:
			if (i)
				return "value at function entry "
				       "(DW_OP_entry_value) inside an "
				       "expression";
			break;
		case DW_OP_implicit_pointer:
		case DW_OP_GNU_implicit_pointer:
			return "implicit pointer";
		default:
			break;
		}
	return NULL;
}

static const char *reg_loc(struct kloc *l, enum kloc_kind kind,
			   unsigned int reg, long off)
{
	if (reg >= ARRAY_SIZE(x86_regs))
		return "not a general register";
	l->kind = kind;
	l->dwreg = (int)reg;
	l->reg = x86_regs[reg];
	l->offset = off;
	return NULL;
}

static const char *implicit_value(Dwarf_Attribute *attr, const Dwarf_Op *op,
				  struct kloc *l)
{
	Dwarf_Block b;
	size_t i;

	if (dwarf_getlocation_implicit_value(attr, op, &b) || b.length > 8)
		return "implicit value over 8 bytes";
	for (i = b.length; i-- > 0;)
		l->value = (int64_t)((uint64_t)l->value << 8 | b.data[i]);
	l->kind = KLOC_CONST;
	return NULL;
}

static bool place_of(struct kdwarf *d, Dwarf_Addr pc, const char *prefer,
		     struct kplace *p);

/* The register of DW_OP_entry_value's operand, when it is one
 * register (DW_OP_regN, DW_OP_regx): the only operand compilers emit
 * for a parameter passed in a register.
 */
static bool entry_value_reg(Dwarf_Attribute *attr, const Dwarf_Op *op,
			    unsigned int *reg)
{
	Dwarf_Attribute sub;
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_getlocation_attr(attr, op, &sub) ||
	    dwarf_getlocation(&sub, &ops, &n) || n != 1)
		return false;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		*reg = ops[0].atom - DW_OP_reg0;
		return true;
	}
	if (ops[0].atom == DW_OP_regx) {
		*reg = (unsigned int)ops[0].number;
		return true;
	}
	return false;
}

/* DW_OP_entry_value(DW_OP_regN) [DW_OP_plus_uconst K] [DW_OP_stack_value]:
 * what register N held when the function was entered (plus K), the
 * value itself or the address of the object.  Only a probe on the
 * entry of the function whose frame the code runs in sees it: there
 * the register still holds it.  Anywhere else it may be gone.
 */
static const char *entry_value(struct kdwarf *d, Dwarf_Attribute *attr,
			       const Dwarf_Op *ops, size_t n, Dwarf_Die *fn,
			       Dwarf_Addr pc, struct kloc *l)
{
	bool value = n > 1 && ops[n - 1].atom == DW_OP_stack_value;
	const char *why;
	struct kplace at;
	Dwarf_Addr entry;
	unsigned int reg;
	long off = 0;
	size_t i;

	if (!entry_value_reg(attr, &ops[0], &reg))
		return "value at function entry (DW_OP_entry_value) of "
		       "something other than a register";
	for (i = 1; i < n - value; i++) {
		if (ops[i].atom != DW_OP_plus_uconst)
			return "DWARF expression on a value at function "
			       "entry (DW_OP_entry_value) too complex";
		off += (long)ops[i].number;
	}
	if (!fn || dwarf_entrypc(fn, &entry))
		return "value at function entry (DW_OP_entry_value) of an "
		       "unknown function";
	if (entry == pc)
		return reg_loc(l, value ? KLOC_REG_VALUE : KLOC_MEM, reg, off);
	why = reg_loc(l, KLOC_ENTRY, reg, off);
	if (why || !place_of(d, entry, NULL, &at))
		return why ? why : "value at function entry "
		       "(DW_OP_entry_value) of a function with no symbol";
	l->symbol = at.sym;
	l->deref = !value;
	l->why = "its location here is the value it had at the function's "
		 "entry (DW_OP_entry_value), which only a probe on the "
		 "function's entry can read";
	return NULL;
}

/* The few shapes of DWARF expression a probe can use without an
 * expression evaluator; NULL, or why the expression is not one.
 */
static const char *decode_expr(struct kdwarf *d, Dwarf_Attribute *attr,
			       const Dwarf_Op *ops, size_t n, Dwarf_Die *fn,
			       Dwarf_Addr pc, struct kloc *l)
{
	bool value = n == 2 && ops[1].atom == DW_OP_stack_value;
	enum kloc_kind mem = value ? KLOC_REG_VALUE : KLOC_MEM;
	const char *why = expr_blocker(ops, n);
	unsigned int reg;
	long off;

	if (why)
		return why;
	if (ops[0].atom == DW_OP_entry_value ||
	    ops[0].atom == DW_OP_GNU_entry_value)
		return entry_value(d, attr, ops, n, fn, pc, l);
	if (n == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		return reg_loc(l, KLOC_REG, ops[0].atom - DW_OP_reg0, 0);
	if (n == 1 && ops[0].atom == DW_OP_regx)
		return reg_loc(l, KLOC_REG, (unsigned int)ops[0].number, 0);
	if ((n == 1 || value) && op_breg(&ops[0], &reg, &off))
		return reg_loc(l, mem, reg, off);
	if ((n == 1 || value) && ops[0].atom == DW_OP_fbreg) {
		if (!frame_base(d, fn, pc, &reg, &off))
			return "frame base unknown at this pc";
		return reg_loc(l, mem, reg,
			       off + (long)(Dwarf_Sword)ops[0].number);
	}
	if (n == 1 && ops[0].atom == DW_OP_addr)
		return static_loc(d, ops[0].number, l);
	if (value && const_op(&ops[0], &l->value)) {
		l->kind = KLOC_CONST;
		return NULL;
	}
	if (n == 1 && ops[0].atom == DW_OP_implicit_value)
		return implicit_value(attr, &ops[0], l);
	return "DWARF expression too complex";
}

static void const_value(Dwarf_Attribute *a, struct kloc *l)
{
	Dwarf_Sword v;
	Dwarf_Block b;
	size_t i;

	memset(l, 0, sizeof(*l));
	l->kind = KLOC_CONST;
	if (!dwarf_formsdata(a, &v)) {
		l->value = v;
	} else if (!dwarf_formblock(a, &b) && b.length <= 8) {
		for (i = b.length; i-- > 0;)
			l->value = (int64_t)((uint64_t)l->value << 8 |
					     b.data[i]);
	} else {
		unsupported(l, "constant value over 8 bytes");
	}
}

static void var_loc(struct kdwarf *d, Dwarf_Die *var, Dwarf_Die *fn,
		    Dwarf_Addr pc, struct kloc *l)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	const char *why = NULL;
	size_t n;
	int r;

	memset(l, 0, sizeof(*l));
	l->kind = KLOC_OPTIMIZED;
	if (dwarf_attr(var, DW_AT_location, &a)) {
		r = dwarf_getlocation_addr(&a, pc, &ops, &n, 1);
		if (r < 0)
			why = "unreadable location";
		else if (r > 0 && n > 0)
			why = decode_expr(d, &a, ops, n, fn, pc, l);
		if (why)
			unsupported(l, why);
	} else if (dwarf_attr_integrate(var, DW_AT_const_value, &a)) {
		const_value(&a, l);
	}
}

struct vars_ctx {
	struct kdwarf *d;
	Dwarf_Die *fn;		/* the out-of-line function, for its frame */
	Dwarf_Addr pc;
	void (*cb)(const char *name, const struct ktype *type,
		   const struct kloc *loc, bool is_param, void *arg);
	void *arg;
	int n;
};

static void report_var(struct vars_ctx *c, Dwarf_Die *v, bool is_param)
{
	const char *name = die_name(v);
	struct kloc loc;

	if (!name || die_flag(v, DW_AT_declaration))
		return;
	var_loc(c->d, v, c->fn, c->pc, &loc);
	c->cb(name, kt_of(c->d, v), &loc, is_param, c->arg);
	c->n++;
}

/* The child of scope that stands for the abstract parameter p. */
static bool concrete_of(Dwarf_Die *scope, Dwarf_Die *p, Dwarf_Die *out)
{
	Dwarf_Off want = dwarf_dieoffset(p);
	Dwarf_Die abs;

	if (dwarf_child(scope, out))
		return false;
	do
		if (dwarf_tag(out) == DW_TAG_formal_parameter &&
		    die_ref(out, DW_AT_abstract_origin, &abs) &&
		    dwarf_dieoffset(&abs) == want)
			return true;
	while (!dwarf_siblingof(out, out));
	return false;
}

/* A function's parameters in declaration order, which is the abstract
 * instance's: the children of an inlined or cloned copy come in any
 * order, and a parameter with no child there is optimized out.
 */
static void scope_params(struct vars_ctx *c, Dwarf_Die *scope)
{
	Dwarf_Die abs, p, conc;

	abstract_of(scope, &abs);
	if (dwarf_child(&abs, &p))
		return;
	do {
		if (dwarf_tag(&p) != DW_TAG_formal_parameter)
			continue;
		if (dwarf_dieoffset(&abs) == dwarf_dieoffset(scope))
			report_var(c, &p, true);
		else if (concrete_of(scope, &p, &conc))
			report_var(c, &conc, true);
		else
			report_var(c, &p, true);	/* no location: gone */
	} while (!dwarf_siblingof(&p, &p));
}

static void scope_locals(struct vars_ctx *c, Dwarf_Die *scope)
{
	Dwarf_Die v;

	if (dwarf_child(scope, &v))
		return;
	do
		if (dwarf_tag(&v) == DW_TAG_variable)
			report_var(c, &v, false);
	while (!dwarf_siblingof(&v, &v));
}

/* func + offset as an address: an ELF symbol, else a DWARF function
 * (one whose only copies are clones, "foo.isra.0", has no symbol foo).
 */
static bool func_pc(struct kdwarf *d, const char *func, unsigned long off,
		    Dwarf_Addr *pc)
{
	const struct ksym *s = sym_by_name(&d->funcs, func);
	const struct ix_ent *e;
	Dwarf_Die die;

	if (s) {
		*pc = s->addr + off;
		return true;
	}
	e = ix_find(d, IX_FUNC, func);
	if (!e || !ent_die(d, e, &die) || dwarf_entrypc(&die, pc))
		return false;
	*pc += off;
	return true;
}

#define MAX_SCOPES 64

/* The scopes holding pc, outermost first: the out-of-line function, then
 * the blocks and inlined instances nested in it.  libdw's
 * dwarf_getscopes() goes from an inlined instance to the scopes of its
 * abstract definition instead, which loses the function whose frame
 * the code runs in.
 */
static int scope_chain(struct kdwarf *d, Dwarf_Addr pc, Dwarf_Die *chain)
{
	Dwarf_Die cu, die;
	int n = 0;

	if (!dwarf_addrdie(d->dw, pc, &cu) || dwarf_child(&cu, &die))
		return 0;
	do
		if (dwarf_tag(&die) == DW_TAG_subprogram &&
		    dwarf_haspc(&die, pc) == 1)
			chain[n++] = die;
	while (!n && !dwarf_siblingof(&die, &die));
	while (n && n < MAX_SCOPES && !dwarf_child(&chain[n - 1], &die)) {
		bool found = false;

		do {
			int tag = dwarf_tag(&die);

			if ((tag == DW_TAG_lexical_block ||
			     tag == DW_TAG_inlined_subroutine) &&
			    dwarf_haspc(&die, pc) == 1) {
				chain[n++] = die;
				found = true;
			}
		} while (!found && !dwarf_siblingof(&die, &die));
		if (!found)
			break;
	}
	return n;
}

/* How many scopes of chain belong to the inlined instance of inl (the
 * innermost one), leaving out what is inlined into it and starts at the
 * same address; all of them when inl is NULL or not there.
 */
static int inline_scopes(Dwarf_Die *chain, int n, const char *inl)
{
	Dwarf_Die abs;
	const char *name;
	int i;

	for (i = n - 1; inl && i > 0; i--) {
		if (dwarf_tag(&chain[i]) != DW_TAG_inlined_subroutine)
			continue;
		abstract_of(&chain[i], &abs);
		name = dwarf_diename(&abs);
		if (name && !strcmp(name, inl))
			return i + 1;
	}
	return n;
}

static bool chain_has_inline(Dwarf_Die *chain, int n, const char *inl)
{
	Dwarf_Die abs;
	const char *name;
	int i;

	for (i = 1; i < n; i++) {
		if (dwarf_tag(&chain[i]) != DW_TAG_inlined_subroutine)
			continue;
		abstract_of(&chain[i], &abs);
		name = dwarf_diename(&abs);
		if (name && !strcmp(name, inl))
			return true;
	}
	return false;
}

/* The inlined instance of inl under scope whose entry is pc, into out:
 * an instance's entry (DW_AT_entry_pc) may come before its first range,
 * where the scopes holding pc do not have it yet.
 */
static bool inline_at_entry(Dwarf_Die *scope, const char *inl, Dwarf_Addr pc,
			    int depth, Dwarf_Die *out)
{
	Dwarf_Die die, abs;
	Dwarf_Addr entry;
	const char *name;

	if (depth > 64 || dwarf_child(scope, &die))
		return false;
	do {
		int tag = dwarf_tag(&die);

		if (tag == DW_TAG_inlined_subroutine) {
			abstract_of(&die, &abs);
			name = dwarf_diename(&abs);
			if (name && !strcmp(name, inl) &&
			    !dwarf_entrypc(&die, &entry) && entry == pc) {
				*out = die;
				return true;
			}
		}
		if ((tag == DW_TAG_inlined_subroutine ||
		     tag == DW_TAG_lexical_block) &&
		    inline_at_entry(&die, inl, pc, depth + 1, out))
			return true;
	} while (!dwarf_siblingof(&die, &die));
	return false;
}

/* The variables of the scopes holding c->pc, innermost first, up to the
 * innermost function (or inlined instance of inl).
 */
static int vars_of_pc(struct vars_ctx *c, const char *inl)
{
	Dwarf_Die *chain = xmalloc(MAX_SCOPES * sizeof(*chain));
	Dwarf_Die inst;
	int i, n;

	n = scope_chain(c->d, c->pc, chain);
	if (!n) {
		free(chain);
		return -ENOENT;
	}
	c->fn = &chain[0];
	if (inl && !chain_has_inline(chain, n, inl) &&
	    inline_at_entry(&chain[0], inl, c->pc, 0, &inst)) {
		scope_params(c, &inst);
		scope_locals(c, &inst);
		free(chain);
		return c->n;
	}
	for (i = inline_scopes(chain, n, inl) - 1; i >= 0; i--) {
		if (dwarf_tag(&chain[i]) != DW_TAG_lexical_block) {
			scope_params(c, &chain[i]);
			scope_locals(c, &chain[i]);
			break;
		}
		scope_locals(c, &chain[i]);
	}
	free(chain);
	return c->n;
}

int kdwarf_vars_at(struct kdwarf *d, const char *func, unsigned long offset,
		   void (*cb)(const char *name, const struct ktype *type,
			      const struct kloc *loc, bool is_param,
			      void *arg),
		   void *arg)
{
	return kdwarf_inline_vars_at(d, func, offset, NULL, cb, arg);
}

int kdwarf_inline_vars_at(struct kdwarf *d, const char *func,
			  unsigned long offset, const char *inl,
			  void (*cb)(const char *name,
				     const struct ktype *type,
				     const struct kloc *loc, bool is_param,
				     void *arg),
			  void *arg)
{
	struct vars_ctx c = { d, NULL, 0, cb, arg, 0 };

	syms_load(d);
	if (!func_pc(d, func, offset, &c.pc))
		return -ENOENT;
	return vars_of_pc(&c, inl);
}

/* ---------------------------------------------------------- addresses */

/* Whether a function at another address has the name of s. */
static bool name_shared(const struct symtab *t, const struct ksym *s)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(t->by_name[mid]->name, s->name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->n && !strcmp(t->by_name[lo]->name, s->name); lo++)
		if (t->by_name[lo]->addr != s->addr)
			return true;
	return false;
}

/* pc as the function symbol holding it (of several at one address, the
 * one called prefer if there is one).
 */
static bool place_of(struct kdwarf *d, Dwarf_Addr pc, const char *prefer,
		     struct kplace *p)
{
	const struct ksym *s = sym_at(&d->funcs, pc, prefer);

	if (!s)
		return false;
	p->sym = s->name;
	p->offset = (unsigned long)(pc - s->addr);
	p->shared = name_shared(&d->funcs, s);
	return true;
}

/* The line-table row holding addr: where it starts, its file and line. */
static void addr_row(struct kdwarf *d, Dwarf_Addr addr, struct kaddr *out)
{
	Dwarf_Die cu;
	Dwarf_Line *l;
	Dwarf_Addr row;
	const char *src;

	if (!dwarf_addrdie(d->dw, addr, &cu))
		return;
	l = dwarf_getsrc_die(&cu, addr);
	if (!l || dwarf_lineaddr(l, &row))
		return;
	out->row = row;
	src = dwarf_linesrc(l, NULL, NULL);
	out->file = src ? rel_path(d, &cu, src) : NULL;
	dwarf_lineno(l, &out->line);
}

static bool entry_pc(Dwarf_Die *die, Dwarf_Addr *pc)
{
	struct ranges r;

	if (!dwarf_entrypc(die, pc))
		return true;
	die_ranges(die, &r);
	*pc = r.n ? r.lo[0] : 0;
	return r.n > 0;
}

/* The functions DWARF places at addr: the out-of-line one (chain[0])
 * and the innermost inlined instance in it.
 */
static void addr_funcs(struct kdwarf *d, Dwarf_Die *chain, int n,
		       struct kaddr *out)
{
	const char *name = die_name(&chain[0]);
	Dwarf_Addr pc;
	int i;

	if (!name || !entry_pc(&chain[0], &pc) ||
	    !place_of(d, pc, name, &out->entry) ||
	    fill_kfunc(d, name, &chain[0], &out->func))
		return;
	out->has_func = true;
	for (i = n - 1; i > 0; i--) {
		if (dwarf_tag(&chain[i]) != DW_TAG_inlined_subroutine ||
		    !entry_pc(&chain[i], &pc) ||
		    !place_of(d, pc, name, &out->inline_entry))
			continue;
		out->has_inline = true;
		out->inline_name = die_name(&chain[i]);
		return;
	}
}

int kdwarf_addr(struct kdwarf *d, uint64_t addr, struct kaddr *out)
{
	Dwarf_Die *chain = xmalloc(MAX_SCOPES * sizeof(*chain));
	int n;

	memset(out, 0, sizeof(*out));
	syms_load(d);
	n = scope_chain(d, addr, chain);
	if (n)
		addr_funcs(d, chain, n, out);
	free(chain);
	if (!place_of(d, addr, out->has_func ? out->func.name : NULL,
		      &out->at)) {
		memset(out, 0, sizeof(*out));
		return -ENOENT;
	}
	addr_row(d, addr, out);
	return 0;
}

/* ------------------------------------------- line rows and labels */

struct lrow {
	uint64_t addr;
	const char *file;
	int line;		/* 0: the end of a sequence */
	size_t seq;		/* order in the table, for a stable sort */
};

struct lrows {
	struct lrow *v;
	size_t n, cap;
};

static void lrows_push(struct lrows *r, uint64_t addr, const char *file,
		       int line)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	r->v[r->n].addr = addr;
	r->v[r->n].file = file;
	r->v[r->n].line = line;
	r->v[r->n].seq = r->n;
	r->n++;
}

/* By address; at one address an end of sequence first (the next
 * sequence may start there), then in table order.
 */
static int lrow_cmp(const void *pa, const void *pb)
{
	const struct lrow *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (!a->line != !b->line)
		return !a->line ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The rows of one unit in [lo, hi) (hi 0: all of them), into r. */
static void unit_rows(struct kdwarf *d, Dwarf_Die *cu, uint64_t lo,
		      uint64_t hi, struct lrows *r)
{
	const char *last_src = NULL, *last_file = NULL;
	Dwarf_Lines *lines;
	size_t n, i;

	if (dwarf_getsrclines(cu, &lines, &n))
		return;
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		bool end = false;
		const char *src;
		int line = 0;

		if (!l || dwarf_lineaddr(l, &addr) ||
		    dwarf_lineendsequence(l, &end) ||
		    (!end && dwarf_lineno(l, &line)))
			continue;
		if (hi && (addr < lo || addr >= hi))
			continue;
		src = end ? NULL : dwarf_linesrc(l, NULL, NULL);
		if (!end && (!src || line <= 0))
			continue;
		if (src && src != last_src) {
			last_src = src;
			last_file = rel_path(d, cu, src);
		}
		lrows_push(r, addr, end ? NULL : last_file, end ? 0 : line);
	}
}

int kdwarf_line_rows(struct kdwarf *d, uint64_t lo, uint64_t hi,
		     void (*cb)(uint64_t addr, const char *file, int line,
				void *arg),
		     void *arg)
{
	struct lrows r = { NULL, 0, 0 };
	Dwarf_Off off = 0, next;
	size_t hsize, i, n = 0;
	Dwarf_Die cu;

	if (hi) {
		if (dwarf_addrdie(d->dw, lo, &cu))
			unit_rows(d, &cu, lo, hi, &r);
	} else {
		while (!dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL,
				     NULL)) {
			if (dwarf_offdie(d->dw, off + hsize, &cu))
				unit_rows(d, &cu, 0, 0, &r);
			off = next;
		}
	}
	if (r.n)
		qsort(r.v, r.n, sizeof(*r.v), lrow_cmp);
	for (i = 0; i < r.n; i++) {
		/* of the rows at one address, the last one holds it */
		if (i + 1 < r.n && r.v[i + 1].addr == r.v[i].addr)
			continue;
		cb(r.v[i].addr, r.v[i].file, r.v[i].line, arg);
		n++;
	}
	free(r.v);
	return (int)n;
}

static bool cu_named(Dwarf_Die *cu, const char *file)
{
	const char *n = die_name(cu);
	size_t ln, lf = strlen(file);

	if (!n)
		return false;
	ln = strlen(n);
	return ln >= lf && !strcmp(n + ln - lf, file) &&
	       (ln == lf || n[ln - lf - 1] == '/');
}

/* 1: v is the definition of name at a plain address; 0: not it;
 * -ENOTSUP: it, at another kind of location.
 */
static int global_def(Dwarf_Die *v, const char *name, uint64_t *addr)
{
	const char *n = die_name(v);
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	if (dwarf_tag(v) != DW_TAG_variable || !n || strcmp(n, name) ||
	    die_flag(v, DW_AT_declaration) ||
	    !dwarf_attr(v, DW_AT_location, &a))
		return 0;
	if (dwarf_getlocation(&a, &ops, &nops) || nops != 1 ||
	    ops[0].atom != DW_OP_addr)
		return -ENOTSUP;
	*addr = ops[0].number;
	return 1;
}

static bool decl_of(Dwarf_Die *v, const char *name)
{
	const char *n = die_name(v);

	return dwarf_tag(v) == DW_TAG_variable && n && !strcmp(n, name) &&
	       die_flag(v, DW_AT_declaration);
}

/* A variable C only declares, defined where DWARF does not see it (the
 * linker script's jiffies): its type from the declaration, its address
 * from the symbol table.
 */
static int symbol_def(struct kdwarf *d, Dwarf_Die *decl, const char *name,
		      const struct ktype **type, uint64_t *addr)
{
	int rc = kdwarf_obj_addr(d, name, addr);

	if (!rc)
		*type = kt_of(d, decl);
	return rc;
}

int kdwarf_global(struct kdwarf *d, const char *name, const char *cu,
		  const struct ktype **type, uint64_t *addr,
		  const char **why)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die unit, v, decl;
	bool has_decl = false;
	int rc = -ENOENT, r;

	while (!dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Off here = off;

		off = next;
		if (!dwarf_offdie(d->dw, here + hsize, &unit) ||
		    (cu && !cu_named(&unit, cu)) || dwarf_child(&unit, &v))
			continue;
		do {
			r = global_def(&v, name, addr);
			if (r > 0) {
				*type = kt_of(d, &v);
				return 0;
			}
			if (r < 0) {
				*why = "its location is not an address "
				       "(a thread-local variable)";
				rc = -ENOTSUP;
			}
			if (!r && !has_decl && decl_of(&v, name)) {
				decl = v;
				has_decl = true;
			}
		} while (!dwarf_siblingof(&v, &v));
	}
	return rc == -ENOENT && has_decl ? symbol_def(d, &decl, name, type,
						      addr) : rc;
}

int kdwarf_sym_range(struct kdwarf *d, const char *name, uint64_t *addr,
		     uint64_t *size)
{
	const struct ksym *s;

	syms_load(d);
	s = sym_by_name(&d->funcs, name);
	if (!s)
		return -ENOENT;
	*addr = s->addr;
	*size = s->size;
	return 0;
}

int kdwarf_funcs(struct kdwarf *d,
		 void (*cb)(const char *name, uint64_t addr, uint64_t size,
			    void *arg),
		 void *arg)
{
	size_t i;
	int n = 0;

	syms_load(d);
	for (i = 0; i < d->funcs.n; i++) {
		const struct ksym *s = &d->funcs.syms[i];

		if (!s->size)
			continue;
		cb(s->name, s->addr, s->size, arg);
		n++;
	}
	return n;
}

int kdwarf_obj_addr(struct kdwarf *d, const char *name, uint64_t *addr)
{
	const struct ksym *s;

	syms_load(d);
	s = sym_by_name(&d->objs, name);
	if (!s)
		return -ENOENT;
	*addr = s->addr;
	return 0;
}

/* Whether the kernel's kprobe blacklist has name: NOKPROBE_SYMBOL(F)
 * leaves a data symbol _kbl_addr_F holding F's address.
 */
static bool kprobe_denied(struct kdwarf *d, const char *name)
{
	char buf[256];

	if (snprintf(buf, sizeof(buf), "_kbl_addr_%s", name) >=
	    (int)sizeof(buf))
		return true;
	return sym_by_name(&d->objs, buf) != NULL;
}

int kdwarf_kprobe_addr(struct kdwarf *d, const char *name, uint64_t *addr)
{
	size_t at;

	syms_load(d);
	if (syms_named(&d->funcs, name, &at) != 1 || kprobe_denied(d, name))
		return -ENOENT;
	*addr = d->funcs.by_name[at]->addr;
	return 0;
}

struct labels_ctx {
	struct kdwarf *d;
	const char *glob;
	void (*cb)(const struct klabel *l, void *arg);
	void *arg;
	struct klabel *v;
	size_t n, cap;
};

/* The labels of scope and of the blocks nested in it (not of the
 * functions inlined there, whose labels are theirs).
 */
static void scope_labels(struct labels_ctx *c, Dwarf_Die *scope,
			 const char *func, int depth)
{
	Dwarf_Die ch;
	Dwarf_Addr pc;
	struct klabel *l;
	const char *name;
	int tag;

	if (depth > 64 || dwarf_child(scope, &ch))
		return;
	do {
		tag = dwarf_tag(&ch);
		if (tag == DW_TAG_lexical_block) {
			scope_labels(c, &ch, func, depth + 1);
			continue;
		}
		name = die_name(&ch);
		if (tag != DW_TAG_label || !name ||
		    !glob_match(c->glob, name) || dwarf_lowpc(&ch, &pc))
			continue;
		if (c->n == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 16;
			c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
		}
		l = &c->v[c->n++];
		memset(l, 0, sizeof(*l));
		l->func = func;
		l->label = arena_strdup(c->d->arena, name);
		l->file = decl_file(c->d, &ch);
		dwarf_decl_line(&ch, &l->line);
		l->pc = pc;
		if (!place_of(c->d, pc, func, &l->at))
			c->n--;
	} while (!dwarf_siblingof(&ch, &ch));
}

static void labels_one(const struct ix_ent *e, void *arg)
{
	struct labels_ctx *c = arg;
	Dwarf_Die fn;

	if (ent_die(c->d, e, &fn))
		scope_labels(c, &fn, ent_name(c->d, e), 0);
}

static int klabel_cmp(const void *pa, const void *pb)
{
	const struct klabel *a = pa, *b = pb;
	int r = strcmp(a->func, b->func);

	if (r)
		return r;
	if (a->pc != b->pc)
		return a->pc < b->pc ? -1 : 1;
	return strcmp(a->label, b->label);
}

int kdwarf_labels(struct kdwarf *d, const char *func_glob,
		  const char *label_glob,
		  void (*cb)(const struct klabel *l, void *arg), void *arg)
{
	struct labels_ctx c = { d, label_glob, cb, arg, NULL, 0, 0 };
	size_t i, n = 0;

	syms_load(d);
	ix_glob(d, IX_FUNC, func_glob, labels_one, &c);
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), klabel_cmp);
	for (i = 0; i < c.n; i++) {
		/* a function listed twice in the index: once per label */
		if (i && !klabel_cmp(&c.v[i - 1], &c.v[i]))
			continue;
		cb(&c.v[i], arg);
		n++;
	}
	free(c.v);
	return (int)n;
}

struct calls_ctx {
	struct kdwarf *d;
	const char *glob;
	struct kcallsite *v;
	size_t n, cap;
};

/* The callee a call site names (DW_AT_call_origin, or the GNU form's
 * abstract origin), through its abstract declaration.
 */
static const char *call_origin(Dwarf_Die *cs)
{
	Dwarf_Attribute a;
	Dwarf_Die o, abs;

	if (!dwarf_attr(cs, DW_AT_call_origin, &a) &&
	    !dwarf_attr(cs, DW_AT_abstract_origin, &a))
		return NULL;
	if (!dwarf_formref_die(&a, &o))
		return NULL;
	abstract_of(&o, &abs);
	return die_name(&abs) ? die_name(&abs) : die_name(&o);
}

/* Where a call returns: DW_AT_call_return_pc, or the GNU form's
 * DW_AT_low_pc.
 */
static bool call_return(Dwarf_Die *cs, Dwarf_Addr *pc)
{
	Dwarf_Attribute a;

	if (dwarf_attr(cs, DW_AT_call_return_pc, &a))
		return !dwarf_formaddr(&a, pc);
	return !dwarf_lowpc(cs, pc);
}

static void scope_calls(struct calls_ctx *c, Dwarf_Die *scope,
			const char *func, int depth)
{
	struct kcallsite *k;
	const char *name;
	Dwarf_Addr pc;
	Dwarf_Die ch;
	int tag;

	if (depth > 64 || dwarf_child(scope, &ch))
		return;
	do {
		tag = dwarf_tag(&ch);
		if (tag == DW_TAG_lexical_block ||
		    tag == DW_TAG_inlined_subroutine) {
			scope_calls(c, &ch, func, depth + 1);
			continue;
		}
		if (tag != DW_TAG_call_site && tag != DW_TAG_GNU_call_site)
			continue;
		name = call_origin(&ch);
		if (!name || !glob_match(c->glob, name) ||
		    !call_return(&ch, &pc))
			continue;
		if (c->n == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 16;
			c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
		}
		k = &c->v[c->n];
		memset(k, 0, sizeof(*k));
		k->caller = func;
		k->callee = arena_strdup(c->d->arena, name);
		k->ret_pc = pc;
		k->tail = dwarf_hasattr(&ch, DW_AT_call_tail_call) ||
			  dwarf_hasattr(&ch, DW_AT_GNU_tail_call);
		if (place_of(c->d, pc, func, &k->ret))
			c->n++;
	} while (!dwarf_siblingof(&ch, &ch));
}

static void calls_one(const struct ix_ent *e, void *arg)
{
	struct calls_ctx *c = arg;
	Dwarf_Die fn;

	if (ent_die(c->d, e, &fn))
		scope_calls(c, &fn, ent_name(c->d, e), 0);
}

static int kcall_cmp(const void *pa, const void *pb)
{
	const struct kcallsite *a = pa, *b = pb;
	int r = strcmp(a->caller, b->caller);

	if (!r)
		r = strcmp(a->callee, b->callee);
	if (r)
		return r;
	return a->ret_pc < b->ret_pc ? -1 : a->ret_pc > b->ret_pc;
}

int kdwarf_callsites(struct kdwarf *d, const char *func_glob,
		     const char *callee_glob,
		     void (*cb)(const struct kcallsite *s, void *arg),
		     void *arg)
{
	struct calls_ctx c = { d, callee_glob, NULL, 0, 0 };
	size_t i, n = 0;

	syms_load(d);
	ix_glob(d, IX_FUNC, func_glob, calls_one, &c);
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), kcall_cmp);
	for (i = 0; i < c.n; i++) {
		if (i && !kcall_cmp(&c.v[i - 1], &c.v[i]))
			continue;
		cb(&c.v[i], arg);
		n++;
	}
	free(c.v);
	return (int)n;
}

/* A callee found on the way down from a probed function (top). */
struct kreach {
	const char *top;
	const char *caller;		/* the function calling it */
	const char *callee;
	struct kcallpath *path;
	int order;			/* when found: sorts ties */
};

struct kwalk {
	struct kdwarf *d;
	bool (*keep)(const char *caller, void *arg);
	void *arg;
	struct vec found;		/* struct kreach * */
	const struct kreach *from;	/* NULL: the probed functions */
	struct kreach *last;		/* the group being filled */
	int tails;
};

static struct kreach *new_reach(struct kwalk *w, const struct kcallsite *cs)
{
	struct arena *a = w->d->arena;
	struct kreach *r = arena_alloc(a, sizeof(*r));

	r->caller = cs->caller;
	r->top = w->from ? w->from->top : cs->caller;
	r->callee = cs->callee;
	r->order = w->found.n;
	vec_push(a, &w->found, r);
	return r;
}

/* A tail call (a jump) leaves no return address of its own: the callee
 * returns where its caller would have, by the caller's path.
 */
static void tail_reach(struct kwalk *w, const struct kcallsite *cs)
{
	const struct kreach *prev = vec_last(&w->found);

	if (!w->from) {
		w->tails++;
		return;
	}
	/* several jumps of one caller to one callee: one way down */
	if (prev && prev->path == w->from->path &&
	    !strcmp(prev->caller, cs->caller) &&
	    !strcmp(prev->callee, cs->callee))
		return;
	new_reach(w, cs)->path = w->from->path;
}

/* Call sites come sorted by caller, callee and return address: the
 * calls of one caller to one callee make one level of a path.
 */
static void reach_cb(const struct kcallsite *cs, void *arg)
{
	struct kwalk *w = arg;
	struct arena *a = w->d->arena;
	struct kreach *r = w->last;
	struct kcallsite *copy;
	int i;

	if (!w->from && w->keep && !w->keep(cs->caller, w->arg))
		return;
	if (cs->tail) {
		tail_reach(w, cs);
		return;
	}
	if (!r || strcmp(r->caller, cs->caller) ||
	    strcmp(r->callee, cs->callee)) {
		r = new_reach(w, cs);
		r->path = arena_alloc(a, sizeof(*r->path));
		r->path->depth = 1;
		if (w->from) {
			r->path->depth = w->from->path->depth + 1;
			for (i = 1; i < r->path->depth; i++)
				r->path->levels[i] =
					w->from->path->levels[i - 1];
		}
		w->last = r;
	}
	copy = arena_alloc(a, sizeof(*copy));
	*copy = *cs;
	vec_push(a, &r->path->levels[0], copy);
}

static int kreach_cmp(const void *pa, const void *pb)
{
	const struct kreach *a = *(const struct kreach *const *)pa;
	const struct kreach *b = *(const struct kreach *const *)pb;
	int r = strcmp(a->top, b->top);

	if (!r)
		r = strcmp(a->callee, b->callee);
	return r ? r : a->order - b->order;
}

/* Every level below the first: the callees of the callees found at
 * the level above.  0, or -1 when there are too many.  A path as deep
 * as depth (a tail call adds no level) goes no further.
 */
static int walk_deeper(struct kwalk *w, int depth)
{
	int d, i, lo = 0, hi;

	for (d = 2; d <= depth; d++) {
		hi = w->found.n;
		for (i = lo; i < hi; i++) {
			w->from = w->found.items[i];
			w->last = NULL;
			kdwarf_callsites(w->d, w->from->callee, "*", reach_cb,
					 w);
			if (w->found.n > KDWARF_CALLEE_PATHS)
				return -1;
		}
		lo = hi;
	}
	return 0;
}

int kdwarf_callees(struct kdwarf *d, const char *func_glob,
		   const char *callee_glob, int depth,
		   bool (*keep)(const char *caller, void *arg),
		   void (*cb)(const char *caller, const char *callee,
			      const struct vec *paths, void *arg),
		   void *arg, int *tails)
{
	struct kwalk w = { .d = d, .keep = keep, .arg = arg };
	struct vec *paths = NULL;
	const struct kreach *first = NULL;
	int i, n = 0;

	if (depth < 1 || depth > KDWARF_CALLEE_DEPTH)
		return -1;
	kdwarf_callsites(d, func_glob, callee_glob, reach_cb, &w);
	*tails = w.tails;
	if (walk_deeper(&w, depth))
		return -1;
	if (w.found.n)
		qsort(w.found.items, (size_t)w.found.n,
		      sizeof(*w.found.items), kreach_cmp);
	for (i = 0; i <= w.found.n; i++) {
		const struct kreach *r = i < w.found.n ? w.found.items[i] :
					 NULL;

		if (paths && (!r || strcmp(first->top, r->top) ||
			      strcmp(first->callee, r->callee))) {
			cb(first->top, first->callee, paths, arg);
			paths = NULL;
			n++;
		}
		if (!r)
			break;
		if (!paths) {
			paths = arena_alloc(d->arena, sizeof(*paths));
			first = r;
		}
		vec_push(d->arena, paths, r->path);
	}
	return n;
}

/* ------------------------------------------------------ load, free */

static void kdwarf_init(struct kdwarf *d, const char *kver,
			const char *module, const char *cachedir)
{
	d->src.ops = &kdwarf_ops;
	d->arena = arena_new();
	d->void_type.kind = KT_VOID;
	d->void_type.name = "void";
	d->void_type.src = &d->src;
	ix_load(d, kver, module, cachedir);
}

struct kdwarf *kdwarf_load(const char *kver, const char *cachedir,
			   char **err)
{
	struct kdwarf *d;
	char *path;

	if (err)
		*err = NULL;
	if (!kver || !*kver || strchr(kver, '/') || kver[0] == '.') {
		err_set(err, "invalid kernel release '%s'", kver ? kver : "");
		return NULL;
	}
	path = kmod_debug_vmlinux(kver);
	if (!path) {
		err_set(err, "no kernel debuginfo: install linux-image-%s-dbg "
			"(or name where it is in SYSTEMTAP_DEBUGINFO_PATH)",
			kver);
		return NULL;
	}
	d = xmalloc(sizeof(*d));
	memset(d, 0, sizeof(*d));
	d->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0) {
		err_set(err, "cannot open %s: %s", path, strerror(errno));
		goto fail;
	}
	elf_version(EV_CURRENT);
	d->elf = elf_begin(d->fd, ELF_C_READ_MMAP, NULL);
	d->dw = d->elf ? dwarf_begin_elf(d->elf, DWARF_C_READ, NULL) : NULL;
	if (!d->dw) {
		err_set(err, "%s: no DWARF: %s", path, dwarf_errmsg(-1));
		goto fail;
	}
	kdwarf_init(d, kver, NULL, cachedir);
	free(path);
	return d;
fail:
	free(path);
	kdwarf_free(d);
	return NULL;
}

/* ET_REL files get the layout libdwfl gives offline modules. */
static const Dwfl_Callbacks module_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct kdwarf *kdwarf_load_module(const char *kver, const char *name,
				  const char *path, const char *cachedir,
				  char **err)
{
	struct kdwarf *d = xmalloc(sizeof(*d));
	Dwarf_Addr bias;

	if (err)
		*err = NULL;
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	elf_version(EV_CURRENT);
	d->dwfl = dwfl_begin(&module_callbacks);
	if (d->dwfl)
		d->mod = dwfl_report_offline(d->dwfl, name, path, -1);
	if (!d->mod || dwfl_report_end(d->dwfl, NULL, NULL)) {
		err_set(err, "%s: %s", path, dwfl_errmsg(-1));
		goto fail;
	}
	d->dw = dwfl_module_getdwarf(d->mod, &bias);
	d->elf = dwfl_module_getelf(d->mod, &bias);
	if (!d->dw || !d->elf) {
		err_set(err, "%s: no DWARF: %s", path, dwfl_errmsg(-1));
		goto fail;
	}
	kdwarf_init(d, kver, name, cachedir);
	return d;
fail:
	kdwarf_free(d);
	return NULL;
}

void kdwarf_free(struct kdwarf *d)
{
	if (!d)
		return;
	if (d->dwfl) {
		dwfl_end(d->dwfl);	/* with its elf, dw and cfi */
	} else {
		if (d->cfi && d->cfi_is_eh)
			dwarf_cfi_end(d->cfi);
		if (d->dw)
			dwarf_end(d->dw);
		if (d->elf)
			elf_end(d->elf);
	}
	if (d->fd >= 0)
		close(d->fd);
	if (d->blob) {
		free(d->blob);
	} else {
		free(d->ents);
		free(d->strtab);
	}
	htab_free(&d->types);
	htab_free(&d->canon);
	free(d->funcs.syms);
	free(d->funcs.by_name);
	free(d->objs.syms);
	free(d->objs.by_name);
	arena_free(d->arena);
	free(d);
}

/* ------------------------------------------------- user-space files */

/* $SYSTEMTAP_DEBUGINFO_PATH, as libdwfl reads it: where separate
 * debuginfo is looked for (build-id and .gnu_debuglink), before the
 * default ":.debug:/usr/lib/debug".
 */
static char *user_debuginfo_path;

/* A program or library: libdwfl finds its separate debuginfo and reads
 * the CFI of .eh_frame from the file itself when the debuginfo has no
 * .debug_frame.  Addresses are used in file terms throughout, so the
 * bias libdwfl gives an ET_DYN file never matters.
 */
static const Dwfl_Callbacks user_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &user_debuginfo_path,
};

static bool elf_has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	return false;
}

/* The index of a program is cached by its build-id, as
 * CACHEDIR/dwarf/user/ID.idx; a file without one is indexed each time.
 */
static void user_index(struct kdwarf *d, const char *cachedir)
{
	const unsigned char *id = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(d->elf, (const void **)&id);
	char hex[2 * 64 + 1];
	ssize_t i;

	if (!cachedir || n <= 0 || n > 64) {
		kdwarf_init(d, NULL, NULL, NULL);
		return;
	}
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	kdwarf_init(d, "user", hex, cachedir);
}

struct kdwarf *kdwarf_load_elf(const char *path, const char *cachedir,
			       char **err)
{
	struct kdwarf *d = xmalloc(sizeof(*d));
	const char *name = strrchr(path, '/');
	Dwarf_Addr bias;
	Elf *main_elf;

	if (err)
		*err = NULL;
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->user = true;
	user_debuginfo_path = getenv("SYSTEMTAP_DEBUGINFO_PATH");
	elf_version(EV_CURRENT);
	d->dwfl = dwfl_begin(&user_callbacks);
	if (d->dwfl)
		d->mod = dwfl_report_offline(d->dwfl, name ? name + 1 : path,
					     path, -1);
	if (!d->mod || dwfl_report_end(d->dwfl, NULL, NULL)) {
		err_set(err, "%s: %s", path, dwfl_errmsg(-1));
		goto fail;
	}
	d->dw = dwfl_module_getdwarf(d->mod, &bias);
	main_elf = dwfl_module_getelf(d->mod, &bias);
	if (!d->dw || !main_elf) {
		err_set(err, "no debuginfo (DWARF) in '%s' nor in a separate "
			"debuginfo file", path);
		goto fail;
	}
	/* a stripped file's symbols went with its debuginfo */
	d->elf = elf_has_symtab(main_elf) ? main_elf : dwarf_getelf(d->dw);
	/* programs rarely have .debug_frame: the CFI is .eh_frame's */
	d->cfi_tried = true;
	d->cfi = dwfl_module_dwarf_cfi(d->mod, &bias);
	if (!d->cfi)
		d->cfi = dwfl_module_eh_cfi(d->mod, &bias);
	user_index(d, cachedir);
	return d;
fail:
	kdwarf_free(d);
	return NULL;
}

const char *kdwarf_debug_file(struct kdwarf *d)
{
	const char *main_file = NULL, *debug_file = NULL;

	if (!d->mod)
		return NULL;
	dwfl_module_info(d->mod, NULL, NULL, NULL, NULL, NULL, &main_file,
			 &debug_file);
	return debug_file ? debug_file : main_file;
}

int kdwarf_func_pcs(struct kdwarf *d, const char *name,
		    void (*cb)(const struct kfunc *f, uint64_t pc,
			       void *arg),
		    void *arg)
{
	size_t len = strlen(name) + 1;
	size_t i = ix_lower(d, IX_FUNC, name, len);
	uint64_t *seen = NULL;
	int n = 0, j;

	syms_load(d);
	for (; i < d->nents && !ent_key_cmp(d, &d->ents[i], IX_FUNC, name, len);
	     i++) {
		const struct ksym *s;
		Dwarf_Die die;
		Dwarf_Addr pc = 0;
		struct kfunc f;

		if (!ent_die(d, &d->ents[i], &die))
			continue;
		if (d->ents[i].kind & IX_NOPC) {
			s = sym_by_name(&d->funcs, ent_name(d, &d->ents[i]));
			pc = s ? s->addr : 0;
		} else if (!entry_pc(&die, &pc)) {
			pc = 0;
		}
		/* a discarded COMDAT copy keeps its DWARF at address 0 */
		if (!pc || pc == (Dwarf_Addr)-1 ||
		    fill_kfunc(d, ent_name(d, &d->ents[i]), &die, &f))
			continue;
		for (j = 0; j < n && seen[j] != pc; j++)
			;
		if (j < n)
			continue;
		seen = xrealloc(seen, (size_t)(n + 1) * sizeof(*seen));
		seen[n++] = pc;
		cb(&f, pc, arg);
	}
	free(seen);
	return n;
}

struct lines_pc_ctx {
	struct kdwarf *d;
	const char *file_glob;
	int lo, hi;
	void (*cb)(const char *func, const char *file, int line,
		   uint64_t pc, void *arg);
	void *arg;
	int n;
};

static void lines_pc_one(const struct ix_ent *e, void *arg)
{
	struct lines_pc_ctx *c = arg;
	struct places p = { NULL, 0, 0 };
	Dwarf_Die fn;
	size_t i;

	if ((e->kind & IX_NOPC) || !ent_die(c->d, e, &fn))
		return;
	func_lines(c->d, &fn, c->file_glob, c->lo, c->hi, &p);
	if (p.n)
		qsort(p.v, p.n, sizeof(*p.v), place_cmp);
	for (i = 0; i < p.n; i++) {
		c->cb(ent_name(c->d, e), p.v[i].file, p.v[i].line,
		      p.v[i].addr, c->arg);
		c->n++;
	}
	free(p.v);
}

int kdwarf_lines_pc(struct kdwarf *d, const char *func,
		    const char *file_glob, int line_lo, int line_hi,
		    void (*cb)(const char *func, const char *file, int line,
			       uint64_t pc, void *arg),
		    void *arg)
{
	struct lines_pc_ctx c = { d, file_glob, line_lo, line_hi, cb, arg,
				  0 };

	syms_load(d);
	ix_glob(d, IX_FUNC, func, lines_pc_one, &c);
	return c.n;
}

int kdwarf_inline_pcs(struct kdwarf *d, const char *glob,
		      void (*cb)(const char *name, uint64_t pc,
				 const char *file, int line, void *arg),
		      void *arg)
{
	struct inl_ctx c;
	size_t i;

	inl_collect(d, glob, &c);
	for (i = 0; i < c.n; i++)
		cb(c.v[i].name, c.v[i].pc, c.v[i].file, c.v[i].line, arg);
	free(c.want);
	free(c.v);
	return (int)c.n;
}

int kdwarf_vars_at_pc(struct kdwarf *d, uint64_t pc,
		      void (*cb)(const char *name, const struct ktype *type,
				 const struct kloc *loc, bool is_param,
				 void *arg),
		      void *arg)
{
	return kdwarf_inline_vars_at_pc(d, pc, NULL, cb, arg);
}

int kdwarf_inline_vars_at_pc(struct kdwarf *d, uint64_t pc, const char *inl,
			     void (*cb)(const char *name,
					const struct ktype *type,
					const struct kloc *loc,
					bool is_param, void *arg),
			     void *arg)
{
	struct vars_ctx c = { d, NULL, pc, cb, arg, 0 };

	syms_load(d);
	return vars_of_pc(&c, inl);
}
