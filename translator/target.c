/* target.c - pass 2 of $target expressions: the type sources of the
 * kernel and of its modules, where a parameter lives by the calling
 * convention, and the checking of member chains, indexes, '&' and
 * pretty-printing against the types.
 */
#include "target.h"
#include "debuginfo/btf.h"
#include "debuginfo/dwarf.h"
#include "debuginfo/kmod.h"
#include "debuginfo/ksyms.h"
#include "debuginfo/tracepoints.h"
#include "debuginfo/uelf.h"
#include "diag.h"
#include "kbuild.h"
#include "session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kernel_types {
	bool tried;			/* the kernel's own source */
	struct kbtf *btf;
	struct kdwarf *dw;
	const struct ksrc *src;		/* DWARF when there, else BTF */
	bool failed, btf_failed;
	struct ktp_catalog *tp;
	bool tp_failed;
	struct vec exported;		/* "owner:symbol" of Module.symvers,
					 * sorted; the kernel is "vmlinux" */
	bool exported_loaded;
	struct kmod_list *modlist;	/* the installed modules */
	bool modlist_failed;
	struct vec mods;		/* struct kmod_types * */
	struct ksyms *syms;		/* function symbols, when known */
	bool syms_tried;
};

/* A module's types, as the kernel's: DWARF from the -dbg package when
 * it is installed, else the module's own BTF on top of the kernel's.
 */
struct kmod_types {
	const char *name;		/* the kernel's name: "snd_hda" */
	const char *path;		/* its file; NULL: no such module */
	struct kbtf *btf;
	struct kdwarf *dw;
	const struct ksrc *src;
	bool tried, failed;
	bool btf_failed;		/* target_module_btf() could not */
	char *image;			/* its file's bytes, for symbols */
	size_t image_len;
};

/* TAPIR_KERNEL_TYPES=btf or =dwarf forces a source (the tests run
 * scripts from each): 'b', 'd', or 0 when it is not set.
 */
static char forced_types(void)
{
	const char *env = getenv("TAPIR_KERNEL_TYPES");

	if (env && (!strcmp(env, "btf") || !strcmp(env, "dwarf")))
		return env[0];
	return 0;
}

/* Which source: the forced one, else DWARF when the kernel's -dbg
 * package is installed (or SYSTEMTAP_DEBUGINFO_PATH names it), else BTF.
 */
static bool want_dwarf(struct session *s)
{
	if (forced_types())
		return forced_types() == 'd';
	char *dbg = kmod_debug_vmlinux(s->kernel_vr);

	free(dbg);
	return dbg != NULL;
}

static struct kernel_types *kt_of(struct session *s)
{
	if (!s->ktypes) {
		s->ktypes = xmalloc(sizeof(*s->ktypes));
		memset(s->ktypes, 0, sizeof(*s->ktypes));
	}
	return s->ktypes;
}

static struct kbtf *load_btf(struct prov_ctx *c, struct loc loc)
{
	struct session *s = c->s;
	struct kernel_types *kt = kt_of(s);
	char *err = NULL;

	if (kt->btf || kt->btf_failed)
		return kt->btf;
	kt->btf = kbtf_load(s->kernel_vr, kbuild_cache_dir(s), &err);
	if (!kt->btf) {
		kt->btf_failed = true;
		prov_error(c, loc, "no type information (BTF) for kernel %s: "
			   "%s", s->kernel_vr, err ? err : "?");
		free(err);
	}
	return kt->btf;
}

const struct ksrc *target_kernel_types(struct prov_ctx *c, struct loc loc)
{
	struct session *s = c->s;
	struct kernel_types *kt = kt_of(s);
	char *err = NULL;

	if (!kt->tried) {
		kt->tried = true;
		if (!s->kernel_vr) {
			kt->failed = true;
			prov_error(c, loc, "no type information: no target "
				   "kernel release");
			return NULL;
		}
		if (want_dwarf(s)) {
			kt->dw = kdwarf_load(s->kernel_vr, kbuild_cache_dir(s),
					     &err);
			if (kt->dw) {
				kt->src = kdwarf_src(kt->dw);
			} else {
				kt->failed = true;
				prov_error(c, loc, "%s", err ? err : "?");
				free(err);
				return NULL;
			}
		} else if (load_btf(c, loc)) {
			kt->src = kbtf_src(kt->btf);
		} else {
			kt->failed = true;
			return NULL;
		}
	}
	if (kt->failed)
		c->errors++;
	return kt->src;
}

bool target_kernel_wants_dwarf(struct session *s)
{
	return s->kernel_vr && want_dwarf(s);
}

struct kdwarf *target_kernel_dwarf_loaded(struct session *s)
{
	return s->ktypes ? s->ktypes->dw : NULL;
}

struct kdwarf *target_kernel_dwarf(struct prov_ctx *c, struct loc loc)
{
	return target_kernel_types(c, loc) ? c->s->ktypes->dw : NULL;
}

struct kbtf *target_kernel_btf(struct prov_ctx *c, struct loc loc)
{
	if (!target_kernel_types(c, loc))
		return NULL;
	return load_btf(c, loc);
}

/* Module.symvers: "CRC\tSYMBOL\tOWNER\tEXPORT_TYPE..." per line, the
 * owner "vmlinux" or a module's path without ".ko" ("drivers/block/loop").
 * Kept as "owner:symbol" with the owner's kernel name.
 */
static void load_exported(struct prov_ctx *c, struct loc loc,
			  struct kernel_types *kt)
{
	struct arena *a = c->s->arena;
	char *path, *text, *line, *save;

	kt->exported_loaded = true;
	path = arena_printf(a, "/lib/modules/%s/build/Module.symvers",
			    c->s->kernel_vr);
	text = read_file(path, NULL);
	if (!text) {
		prov_error(c, loc, "cannot read %s for .exported", path);
		return;
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f1 = strchr(line, '\t'), *f2, *f3, *owner, *slash;

		f2 = f1 ? strchr(f1 + 1, '\t') : NULL;
		f3 = f2 ? strchr(f2 + 1, '\t') : NULL;
		if (!f3)
			continue;
		*f3 = '\0';
		slash = strrchr(f2 + 1, '/');
		owner = arena_strdup(a, slash ? slash + 1 : f2 + 1);
		kmod_canon(owner);
		vec_push(a, &kt->exported, arena_printf(a, "%s:%.*s", owner,
			 (int)(f2 - f1 - 1), f1 + 1));
	}
	free(text);
	if (kt->exported.n)
		qsort(kt->exported.items, (size_t)kt->exported.n,
		      sizeof(void *), cmp_strp);
}

bool target_module_exported(struct prov_ctx *c, struct loc loc,
			    const char *module, const char *name)
{
	struct kernel_types *kt = kt_of(c->s);
	char *owner = arena_strdup(c->s->arena, module ? module : "vmlinux");
	char *key;

	if (!kt->exported_loaded)
		load_exported(c, loc, kt);
	if (!kt->exported.n)
		return false;
	kmod_canon(owner);
	key = arena_printf(c->s->arena, "%s:%s", owner, name);
	return bsearch(&key, kt->exported.items, (size_t)kt->exported.n,
		       sizeof(void *), cmp_strp) != NULL;
}

/* The kernel's own exported symbols. */
bool target_exported(struct prov_ctx *c, struct loc loc, const char *name)
{
	return target_module_exported(c, loc, NULL, name);
}

/* ------------------------------------------------------------ modules */

/* The kernel's installed modules, listed once; NULL after reporting. */
static struct kmod_list *modules_of(struct prov_ctx *c, struct loc loc)
{
	struct kernel_types *kt = kt_of(c->s);
	char *err = NULL;

	if (!kt->modlist && !kt->modlist_failed) {
		kt->modlist = kmod_list_load(c->s->kernel_vr, &err);
		kt->modlist_failed = !kt->modlist;
		if (!kt->modlist)
			prov_error(c, loc, "cannot list the modules of kernel "
				   "%s: %s", c->s->kernel_vr ?
				   c->s->kernel_vr : "?", err ? err : "?");
		free(err);
	} else if (!kt->modlist) {
		c->errors++;
	}
	return kt->modlist;
}

/* The entry of module name (any spelling), made on first use; NULL
 * after reporting when the kernel has no such module.
 */
static struct kmod_types *module_of(struct prov_ctx *c, struct loc loc,
				    const char *name)
{
	struct session *s = c->s;
	struct kernel_types *kt = kt_of(s);
	struct kmod_types *m;
	struct kmod_list *l = modules_of(c, loc);
	char *canon = arena_strdup(s->arena, name);
	int i;

	kmod_canon(canon);
	for (i = 0; i < kt->mods.n; i++) {
		m = kt->mods.items[i];
		if (strcmp(m->name, canon))
			continue;
		if (!m->path)
			c->errors++;
		return m->path ? m : NULL;
	}
	if (!l)
		return NULL;
	m = arena_alloc(s->arena, sizeof(*m));
	m->name = canon;
	vec_push(s->arena, &kt->mods, m);
	m->path = kmod_list_path(l, canon);
	if (!m->path)
		prov_error(c, loc, "no module '%s' in kernel %s (not in "
			   "/lib/modules/%s/modules.dep)", name,
			   s->kernel_vr, s->kernel_vr);
	return m->path ? m : NULL;
}

static bool module_load_dwarf(struct prov_ctx *c, struct loc loc,
			      struct kmod_types *m)
{
	struct session *s = c->s;
	char *dbg = kmod_debug_path(s->kernel_vr, m->path), *err = NULL;

	if (!dbg) {
		prov_error(c, loc, "no debuginfo (DWARF) for module %s: "
			   "install linux-image-%s-dbg", m->name,
			   s->kernel_vr);
		return false;
	}
	m->dw = kdwarf_load_module(s->kernel_vr, m->name, dbg,
				   kbuild_cache_dir(s), &err);
	if (!m->dw)
		prov_error(c, loc, "%s", err ? err : "?");
	else
		m->src = kdwarf_src(m->dw);
	free(err);
	free(dbg);
	return m->dw != NULL;
}

static bool module_load_btf(struct prov_ctx *c, struct loc loc,
			    struct kmod_types *m)
{
	struct session *s = c->s;
	struct kbtf *base = load_btf(c, loc);
	char *err = NULL;

	if (!base)
		return false;
	if (m->btf) {			/* target_module_btf() had it */
		m->src = kbtf_src(m->btf);
		return true;
	}
	m->btf = kbtf_load_module(base, s->kernel_vr, m->name, m->path,
				  kbuild_cache_dir(s), &err);
	if (!m->btf)
		prov_error(c, loc, "no type information (BTF) for module %s "
			   "of kernel %s: %s", m->name, s->kernel_vr,
			   err ? err : "?");
	else
		m->src = kbtf_src(m->btf);
	free(err);
	return m->btf != NULL;
}

/* DWARF as for the kernel: forced, or when the -dbg package has it. */
static bool module_wants_dwarf(struct session *s, struct kmod_types *m)
{
	char *dbg;

	if (forced_types())
		return forced_types() == 'd';
	dbg = kmod_debug_path(s->kernel_vr, m->path);
	free(dbg);
	return dbg != NULL;
}

const struct ksrc *target_module_types(struct prov_ctx *c, struct loc loc,
				       const char *module)
{
	struct kmod_types *m = module_of(c, loc, module);

	if (!m)
		return NULL;
	if (!m->tried) {
		m->tried = true;
		m->failed = module_wants_dwarf(c->s, m) ?
			    !module_load_dwarf(c, loc, m) :
			    !module_load_btf(c, loc, m);
	} else if (m->failed) {
		c->errors++;
	}
	return m->failed ? NULL : m->src;
}

struct kdwarf *target_module_dwarf(struct prov_ctx *c, struct loc loc,
				   const char *module)
{
	struct kmod_types *m = module_of(c, loc, module);

	return m && target_module_types(c, loc, module) ? m->dw : NULL;
}

/* The entry of module (the kernel's name) if it was looked at. */
static struct kmod_types *module_seen(struct session *s, const char *module)
{
	struct kernel_types *kt = kt_of(s);
	int i;

	for (i = 0; i < kt->mods.n; i++) {
		struct kmod_types *m = kt->mods.items[i];

		if (!strcmp(m->name, module))
			return m;
	}
	return NULL;
}

struct kdwarf *target_module_dwarf_loaded(struct session *s,
					  const char *module)
{
	struct kmod_types *m = s->ktypes ? module_seen(s, module) : NULL;

	return m ? m->dw : NULL;
}

bool target_module_loaded(struct prov_ctx *c, const char *module)
{
	struct kmod_types *m = module_seen(c->s, module);

	return m && m->tried;
}

void target_module_release(struct prov_ctx *c, const char *module)
{
	struct kmod_types *m = module_seen(c->s, module);

	if (m) {
		kbtf_free(m->btf);
		kdwarf_free(m->dw);
		free(m->image);
		m->btf = NULL;
		m->dw = NULL;
		m->image = NULL;
		m->src = NULL;
		m->tried = m->failed = m->btf_failed = false;
	}
}

struct kbtf *target_module_btf(struct prov_ctx *c, struct loc loc,
			       const char *module)
{
	struct kmod_types *m = module_of(c, loc, module);
	struct kbtf *base;
	char *err = NULL;

	if (!m)
		return NULL;
	if (m->btf || m->btf_failed) {
		if (!m->btf)
			c->errors++;
		return m->btf;
	}
	base = load_btf(c, loc);
	if (!base)
		return NULL;
	m->btf = kbtf_load_module(base, c->s->kernel_vr, m->name, m->path,
				  kbuild_cache_dir(c->s), &err);
	m->btf_failed = !m->btf;
	if (!m->btf)
		prov_error(c, loc, "no type information (BTF) for module %s "
			   "of kernel %s: %s", m->name, c->s->kernel_vr,
			   err ? err : "?");
	free(err);
	return m->btf;
}

/* The module with its file's bytes read (for its symbols); NULL, with
 * the error reported, when there is no such module or it cannot be read.
 */
static struct kmod_types *module_image(struct prov_ctx *c, struct loc loc,
				       const char *module)
{
	struct kmod_types *m = module_of(c, loc, module);
	char *err = NULL;

	if (!m || m->image)
		return m;
	m->image = kmod_read(m->path, &m->image_len, &err);
	if (!m->image) {
		prov_error(c, loc, "module %s: %s", m->name, err ? err : "?");
		free(err);
		return NULL;
	}
	return m;
}

int target_module_symbols(struct prov_ctx *c, struct loc loc,
			  const char *module,
			  bool (*cb)(const char *name, void *arg), void *arg)
{
	struct kmod_types *m = module_image(c, loc, module);

	if (!m)
		return -1;
	kmod_elf_symbols(m->image, m->image_len, cb, arg);
	return 0;
}

const char *target_symbol_owner(struct prov_ctx *c, struct loc loc,
				const char *name)
{
	struct kernel_types *kt = kt_of(c->s);
	size_t n = strlen(name);
	int i;

	if (!kt->exported_loaded)
		load_exported(c, loc, kt);
	for (i = 0; i < kt->exported.n; i++) {
		const char *k = kt->exported.items[i], *colon = strchr(k, ':');

		if (colon && strlen(colon + 1) == n && !strcmp(colon + 1, name))
			return arena_strndup(c->s->arena, k,
					     (size_t)(colon - k));
	}
	return NULL;
}

bool target_module_exists(struct prov_ctx *c, struct loc loc,
			  const char *module)
{
	return module_of(c, loc, module) != NULL;
}

bool target_module_has_func(struct prov_ctx *c, struct loc loc,
			    const char *module, const char *func)
{
	struct kmod_types *m = module_image(c, loc, module);

	if (!m)
		return false;
	return kmod_elf_has_func(m->image, m->image_len, func);
}

int target_modules_matching(struct prov_ctx *c, struct loc loc,
			    const char *glob,
			    void (*cb)(const char *name, void *arg),
			    void *arg)
{
	struct kmod_list *l = modules_of(c, loc);

	return l ? kmod_list_match(l, glob, cb, arg) : -1;
}

struct ktp_catalog *target_tracepoints(struct prov_ctx *c, struct loc loc)
{
	struct kernel_types *kt;
	char *err = NULL;

	if (!target_kernel_types(c, loc))
		return NULL;
	kt = c->s->ktypes;
	if (!kt->tp && !kt->tp_failed) {
		kt->tp = ktp_load(c->s->kernel_vr, &err);
		if (!kt->tp) {
			kt->tp_failed = true;
			prov_error(c, loc, "no tracepoint list for kernel %s: %s",
				   c->s->kernel_vr, err ? err : "?");
			free(err);
		}
	} else if (!kt->tp) {
		c->errors++;
	}
	return kt->tp;
}

const struct ksyms *target_kernel_symbols(struct session *s)
{
	struct kernel_types *kt = kt_of(s);
	char *err = NULL;

	if (!kt->syms_tried) {
		kt->syms_tried = true;
		kt->syms = ksyms_load(s->kernel_vr, kbuild_cache_dir(s), &err);
		if (!kt->syms && s->opt.verbose > 1)
			fprintf(stderr, "kernel symbols: %s\n", err);
		free(err);
	}
	return kt->syms;
}

/* A C header that @cast names as its module ("<stdio.h>"), compiled
 * into a shared object whose DWARF has every type it declares.
 */
struct cast_header {
	const char *name;
	struct kdwarf *dw;
};

void target_session_free(struct session *s)
{
	int i;

	for (i = 0; i < s->user_objs.n; i++)
		uelf_free(s->user_objs.items[i]);
	s->user_objs.n = 0;
	for (i = 0; i < s->cast_headers.n; i++)
		kdwarf_free(((struct cast_header *)
			     s->cast_headers.items[i])->dw);
	s->cast_headers.n = 0;
	if (!s->ktypes)
		return;
	/* a module's BTF rests on the kernel's: it goes first */
	for (i = 0; i < s->ktypes->mods.n; i++) {
		struct kmod_types *m = s->ktypes->mods.items[i];

		kbtf_free(m->btf);
		kdwarf_free(m->dw);
		free(m->image);
	}
	kmod_list_free(s->ktypes->modlist);
	ktp_free(s->ktypes->tp);
	ksyms_free(s->ktypes->syms);
	kbtf_free(s->ktypes->btf);
	kdwarf_free(s->ktypes->dw);
	free(s->ktypes);
	s->ktypes = NULL;
}

struct tref *target_of_loc(struct arena *a, const struct ktype *type,
			   const struct kloc *loc, const char **why)
{
	struct tref *r;

	switch (loc->kind) {
	case KLOC_OPTIMIZED:
		*why = "optimized out at this address";
		return NULL;
	case KLOC_STATIC:
		*why = "a static variable, which is not supported yet";
		return NULL;
	case KLOC_REG:
	case KLOC_MEM:
	case KLOC_REG_VALUE:
	case KLOC_CONST:
		break;
	default:
		*why = loc->why ? loc->why : "location not supported";
		return NULL;
	}
	r = arena_alloc(a, sizeof(*r));
	r->type = r->final = type;
	r->reg = loc->reg;
	r->sp_off = loc->offset;
	switch (loc->kind) {
	case KLOC_REG:
		r->base = TRB_REG;
		break;
	case KLOC_MEM:
		r->base = TRB_MEM;
		r->in_mem = true;
		break;
	case KLOC_REG_VALUE:
		r->base = TRB_REGVAL;
		break;
	default:
		r->base = TRB_CONSTV;
		r->value = loc->value;
		break;
	}
	return r;
}

/* What a write needs: somewhere to put the value and a scalar type. */
static const char *write_type_error(struct arena *a, const struct tref *r)
{
	const struct ktype *t = r->final;

	switch (t->kind) {
	case KT_INT:
	case KT_ENUM:
	case KT_PTR:
		return NULL;
	case KT_ARRAY:
		if (t->target && t->target->kind == KT_INT &&
		    t->target->is_char)
			return arena_printf(a, "cannot assign to a char array "
					    "('%s'): write strings with "
					    "set_%s_string()", ktype_name(t),
					    r->user ? "user" : "kernel");
		break;
	default:
		break;
	}
	return arena_printf(a, "cannot assign to a value of type '%s': only "
			    "integers, enums and pointers can be written",
			    ktype_name(t));
}

const char *target_write_error(struct arena *a, const struct expr *e)
{
	const struct tref *r = e->tref;
	const char *name = e->name ? e->name : "@cast";
	const char *why;

	if (!r)
		return NULL;	/* not resolved: already reported */
	if (r->base == TRB_PROCFS)
		return r->value ? NULL : "$value of a procfs write probe is "
		       "what was written: it cannot be assigned";
	if (e->addressof)
		return "cannot assign to an address ('&')";
	if (e->pretty || r->base == TRB_LIST || r->base == TRB_STRING)
		return arena_printf(a, "cannot assign to '%s': it is text "
				    "made for printing", name);
	why = write_type_error(a, r);
	if (why)
		return why;
	if (r->in_mem)
		return NULL;
	if (r->nsteps)
		return arena_printf(a, "cannot assign to a member of '%s', a "
				    "structure held in registers", name);
	switch (r->base) {
	case TRB_REG:
	case TRB_RETURN:
		return NULL;
	case TRB_REGVAL:
	case TRB_CONSTV:
		return arena_printf(a, "cannot assign to '%s': here the "
				    "debuginfo only computes its value (no "
				    "register or memory holds it)", name);
	case TRB_TARG:
		if (r->writable || r->sc_arg)
			return NULL;
		return arena_printf(a, "cannot assign to tracepoint argument "
				    "'%s': it is a copy", name);
	default:
		return arena_printf(a, "cannot assign to '%s'", name);
	}
}

void target_list_params(struct strbuf *sb, const struct kfunc *f)
{
	int i;

	for (i = 0; i < f->nparams; i++)
		if (*f->params[i].name)
			sb_printf(sb, " $%s:%s", f->params[i].name,
				  ktype_name(f->params[i].type));
}

void target_list_vars(struct strbuf *sb, const struct kfunc *f,
		      bool at_entry, const struct vec *vars)
{
	int i;

	if (at_entry)
		target_list_params(sb, f);
	for (i = 0; i < vars->n; i++) {
		const struct fvar *v = vars->items[i];

		if (!(at_entry && v->is_param))
			sb_printf(sb, " $%s:%s", v->name, ktype_name(v->type));
	}
}

/* ------------------------------------------------- calling convention */

static const char *const arg_regs[] = { "di", "si", "dx", "cx", "r8", "r9" };

/* Integer-class arguments take one register per eight bytes while any
 * are left; an argument that does not fit, or is larger than 16 bytes,
 * goes on the stack, where the return address is at sp.
 */
struct tref *target_param(struct arena *a, const struct kfunc *f, int i,
			  const char **why)
{
	struct tref *r = arena_alloc(a, sizeof(*r));
	unsigned int reg = 0;
	long stack = 8;
	int k;

	for (k = 0; k <= i; k++) {
		const struct ktype *t = f->params[k].type;
		unsigned int words = (t->size + 7) / 8;

		if (t->kind == KT_FLOAT) {
			*why = arena_printf(a, "parameter '%s' is floating "
					    "point, which kernel probes cannot "
					    "read", f->params[k].name);
			return NULL;
		}
		if (!words)
			words = 1;
		if (words <= 2 && reg + words <= ARRAY_SIZE(arg_regs)) {
			if (k == i && words > 1) {
				*why = arena_printf(a, "parameter '%s' (%s) is "
						    "passed in two registers, "
						    "which is not supported",
						    f->params[k].name,
						    ktype_name(t));
				return NULL;
			}
			if (k == i) {
				r->base = TRB_REG;
				r->reg = arg_regs[reg];
			}
			reg += words;
		} else {
			if (k == i) {
				r->base = TRB_MEM;
				r->reg = "sp";
				r->sp_off = stack;
				r->in_mem = true;
			}
			stack += 8 * (long)words;
		}
	}
	r->type = r->final = f->params[i].type;
	return r;
}

bool target_is_list(const char *name)
{
	return !strcmp(name, "$$parms") || !strcmp(name, "$$vars") ||
	       !strcmp(name, "$$locals") || !strcmp(name, "$$return");
}

struct tref *target_list(struct prov_ctx *c, struct expr *e, int max)
{
	struct arena *a = c->s->arena;
	struct tref *r;

	if (e->comps.n || e->addressof) {
		prov_error(c, e->loc, "'%s' cannot take members, indexes or "
			   "'&'", e->name);
		return NULL;
	}
	r = arena_alloc(a, sizeof(*r));
	r->base = TRB_LIST;
	r->list = arena_alloc(a, sizeof(*r->list) * (size_t)max);
	r->list_names = arena_alloc(a, sizeof(*r->list_names) * (size_t)max);
	e->tref = r;
	return r;
}

/* ------------------------------------------------------------ binding */

static void member_alternatives(struct strbuf *sb, const struct ktype *t)
{
	struct kmember m;
	int i, shown = 0;

	for (i = 0; !t->src->ops->member_at(t->src, t, i, &m); i++) {
		if (!*m.name)
			continue;
		if (shown == 8) {
			sb_puts(sb, " ...");
			break;
		}
		sb_printf(sb, " %s", m.name);
		shown++;
	}
}

struct binder {
	struct prov_ctx *c;
	struct arena *a;
	struct tref *r;
	const struct ktype *cur;
	bool in_mem;
	struct vec steps;
};

static void add_step(struct binder *b, enum tstep_kind kind,
		     unsigned long off, struct expr *index)
{
	struct tstep *st = arena_alloc(b->a, sizeof(*st));

	st->kind = kind;
	st->off = off;
	st->index = index;
	vec_push(b->a, &b->steps, st);
}

/* From a pointer (value or stored in memory) to what it points to. */
static void deref(struct binder *b)
{
	if (b->in_mem)
		add_step(b, TS_LOAD, 0, NULL);
	add_step(b, TS_DEREF, 0, NULL);
	b->in_mem = true;
	b->cur = b->cur->target;
}

static int bind_field(struct binder *b, const struct tcomp *tc)
{
	struct kmember m;

	if (b->cur->kind == KT_PTR && b->cur->target &&
	    (b->cur->target->kind == KT_STRUCT ||
	     b->cur->target->kind == KT_UNION))
		deref(b);
	if (b->cur->kind != KT_STRUCT && b->cur->kind != KT_UNION) {
		prov_error(b->c, tc->loc, "cannot use '->%s' on type '%s'",
			   tc->name, ktype_name(b->cur));
		return -1;
	}
	if (ktype_member(b->cur, tc->name, &m)) {
		struct strbuf sb;

		sb_init(&sb);
		member_alternatives(&sb, b->cur);
		prov_error(b->c, tc->loc, "'%s' has no member '%s' "
			   "(alternatives:%s)", ktype_name(b->cur), tc->name,
			   sb.buf ? sb.buf : " none");
		sb_free(&sb);
		return -1;
	}
	if (b->in_mem) {
		add_step(b, TS_ADD, m.offset, NULL);
	} else if (m.offset + m.type->size <= 8) {
		add_step(b, TS_SHIFT, m.offset, NULL);
	} else {
		prov_error(b->c, tc->loc, "member '%s' of a structure "
			   "passed in registers cannot be read", tc->name);
		return -1;
	}
	b->cur = m.type;
	b->r->bit_off = m.bit_offset;
	b->r->bit_size = m.bit_size;
	return 0;
}

static int bind_index(struct binder *b, const struct tcomp *tc)
{
	if (b->cur->kind == KT_PTR) {
		deref(b);	/* cur is now the element type */
	} else if (b->cur->kind == KT_ARRAY && b->in_mem) {
		b->cur = b->cur->target;
	} else if (b->r->base == TRB_CAST && !b->steps.n) {
		/* @cast(p, "T")[i] takes p as the start of an array of T,
		 * ((T *)p)[i], as @sizeof relies on; only the cast object
		 * itself, not a structure reached from it.
		 */
	} else {
		prov_error(b->c, tc->loc, "cannot index type '%s'",
			   ktype_name(b->cur));
		return -1;
	}
	if (!b->cur || b->cur->kind == KT_VOID || !b->cur->size) {
		prov_error(b->c, tc->loc, "cannot index a pointer to '%s'",
			   ktype_name(b->cur));
		return -1;
	}
	add_step(b, TS_INDEX, b->cur->size, tc->index);
	return 0;
}

static int check_final(struct binder *b, struct expr *e)
{
	const struct ktype *t = b->cur;

	if (e->addressof) {
		if (!b->in_mem) {
			prov_error(b->c, e->loc, "cannot take the address of "
				   "a value held in a register");
			return -1;
		}
		return 0;
	}
	if (e->pretty)
		return 0;
	switch (t->kind) {
	case KT_INT:
	case KT_ENUM:
	case KT_PTR:
		return 0;
	case KT_ARRAY:
		if (b->in_mem)
			return 0;	/* its address, as C decays it */
		break;
	case KT_STRUCT:
	case KT_UNION:
		prov_error(b->c, e->loc, "'%s' is a structure: access a member "
			   "with '->' or print it with a '$' suffix",
			   ktype_name(t));
		return -1;
	default:
		break;
	}
	prov_error(b->c, e->loc, "values of type '%s' cannot be read",
		   ktype_name(t));
	return -1;
}

int target_bind(struct prov_ctx *c, struct expr *e, struct tref *r)
{
	struct binder b = { c, c->s->arena, r, r->type, false, { 0 } };
	int i;

	b.in_mem = r->base == TRB_MEM || r->base == TRB_CAST ||
		   r->base == TRB_KSTATIC ||
		   (r->base == TRB_KENTRY && r->in_mem);
	for (i = 0; i < e->comps.n; i++) {
		const struct tcomp *tc = vec_get(&e->comps, i);
		int rc;

		r->bit_off = r->bit_size = 0;
		rc = tc->kind == TC_FIELD ? bind_field(&b, tc) :
					    bind_index(&b, tc);
		if (rc)
			return -1;
	}
	if (check_final(&b, e))
		return -1;
	r->final = b.cur;
	r->in_mem = b.in_mem;
	r->nsteps = b.steps.n;
	r->steps = arena_alloc(b.a, sizeof(*r->steps) *
			       (size_t)(b.steps.n ? b.steps.n : 1));
	for (i = 0; i < b.steps.n; i++)
		r->steps[i] = *(struct tstep *)b.steps.items[i];
	e->tref = r;
	return 0;
}

/* ----------------------------------------------------------- kernel @var */

/* Where the kernel's image starts on x86-64: what DWARF places lower
 * is a per-CPU variable, an offset in each CPU's area.
 */
#define KERNEL_IMAGE_START 0xffffffff80000000ULL

static int atvar_error(struct prov_ctx *c, const struct expr *e, int rc,
		       const char *why)
{
	if (rc == -ENOTSUP)
		prov_error(c, e->loc, "@var(\"%s\") cannot be read: %s",
			   e->name, why);
	else
		prov_error(c, e->loc, "unable to find global '%s' in the "
			   "kernel", e->name);
	return -1;
}

/* The module has no kernel address built in (KASLR moves the kernel
 * as one block): a variable is read at its distance from jiffies_64,
 * whose address the module gets when it is linked at load time.  NULL
 * and why for one that is not in the kernel's image.
 */
int target_kernel_anchor_off(struct kdwarf *dw, uint64_t addr, int64_t *off)
{
	uint64_t anchor;

	if (kdwarf_obj_addr(dw, "jiffies_64", &anchor))
		return -ENOENT;
	*off = (int64_t)(addr - anchor);
	return 0;
}

static struct tref *kstatic_tref(struct prov_ctx *c, struct kdwarf *dw,
				 const struct ktype *type, uint64_t addr,
				 const char **why)
{
	struct tref *r;
	int64_t off;

	if (addr < KERNEL_IMAGE_START) {
		*why = "it is a per-CPU variable (one copy per CPU)";
		return NULL;
	}
	if (target_kernel_anchor_off(dw, addr, &off)) {
		*why = "the kernel's debuginfo has no symbol jiffies_64";
		return NULL;
	}
	r = arena_alloc(c->s->arena, sizeof(*r));
	r->base = TRB_KSTATIC;
	r->sp_off = (long)off;
	r->type = r->final = type;
	return r;
}

struct tref *target_kernel_static(struct prov_ctx *c,
				  const struct ktype *type, const char *symbol,
				  long off, const char **why)
{
	struct kdwarf *dw = target_kernel_dwarf_loaded(c->s);
	uint64_t addr;

	if (!dw || !symbol || kdwarf_obj_addr(dw, symbol, &addr)) {
		*why = "a static variable whose symbol is unknown";
		return NULL;
	}
	return kstatic_tref(c, dw, type, addr + (uint64_t)off, why);
}

int target_kernel_atvar(struct prov_ctx *c, struct expr *e)
{
	const char *at = strchr(e->name, '@'), *why = NULL;
	const char *name = at ? arena_strndup(c->s->arena, e->name,
					      (size_t)(at - e->name)) :
				e->name;
	const struct ktype *type;
	struct kdwarf *dw;
	struct tref *r;
	uint64_t addr;
	int rc;

	if (e->module && strcmp(e->module, "kernel")) {
		prov_error(c, e->loc, "@var(\"%s\", \"%s\"): the variables "
			   "of a kernel module are not supported yet, only "
			   "the kernel's", e->name, e->module);
		return -1;
	}
	if (!target_kernel_wants_dwarf(c->s)) {
		prov_error(c, e->loc, "@var(\"%s\") needs the kernel's "
			   "debuginfo (DWARF), as its BTF gives no variable's "
			   "address: install linux-image-%s-dbg", e->name,
			   c->s->kernel_vr ? c->s->kernel_vr : "KVER");
		return -1;
	}
	dw = target_kernel_dwarf(c, e->loc);
	if (!dw)
		return -1;
	rc = kdwarf_global(dw, name, at && at[1] ? at + 1 : NULL, &type,
			   &addr, &why);
	if (rc)
		return atvar_error(c, e, rc, why);
	r = kstatic_tref(c, dw, type, addr, &why);
	if (!r)
		return atvar_error(c, e, -ENOTSUP, why);
	return target_bind(c, e, r);
}

/* ---------------------------------------------------------------- @cast */

static bool kernel_module_name(const char *m)
{
	return !strncmp(m, "kernel", 6) && (!m[6] || m[6] == '<');
}

/* The DWARF of C header m ("<stdio.h>", "</usr/include/stdio.h>"):
 * compiled once per session by the host's compiler as a program would
 * include it, into a shared object that keeps every type declared.
 * NULL after reporting.
 */
static struct kdwarf *header_dwarf(struct prov_ctx *c, struct loc loc,
				   const char *m)
{
	struct session *s = c->s;
	const char *base = getenv("TMPDIR");
	struct cast_header *h;
	char *dir, *err = NULL, *msg;
	const char *src, *so, *log;
	struct kdwarf *dw;
	FILE *f;
	int i, rc;

	for (i = 0; i < s->cast_headers.n; i++) {
		h = s->cast_headers.items[i];
		if (!strcmp(h->name, m))
			return h->dw;
	}
	if (strchr(m, '\'') || strchr(m, '\n')) {
		prov_error(c, loc, "@cast in '%s': not a header name", m);
		return NULL;
	}
	dir = arena_printf(s->arena, "%s/stapcastXXXXXX",
			   base && *base ? base : "/tmp");
	if (!mkdtemp(dir)) {
		prov_error(c, loc, "@cast in '%s': cannot create a "
			   "temporary directory: %s", m, strerror(errno));
		return NULL;
	}
	src = arena_printf(s->arena, "%s/h.c", dir);
	so = arena_printf(s->arena, "%s/h.so", dir);
	log = arena_printf(s->arena, "%s/log", dir);
	f = fopen(src, "w");
	rc = -1;
	if (f) {
		fprintf(f, "#include %s\n", m);
		rc = fclose(f);
	}
	if (!rc)
		rc = system(arena_printf(s->arena, "cd '%s' && ${CC:-gcc} -g "
					 "-fno-eliminate-unused-debug-types "
					 "-shared -nostdlib -o h.so h.c "
					 ">log 2>&1", dir));
	dw = rc ? NULL : kdwarf_load_elf(so, NULL, &err);
	if (!dw) {
		/* the compiler's first error says what is wrong */
		msg = NULL;
		f = fopen(log, "r");
		if (f) {
			char line[512];

			while (!msg && fgets(line, sizeof(line), f))
				if (strstr(line, "error"))
					msg = arena_strndup(s->arena, line,
							    strcspn(line,
								    "\n"));
			fclose(f);
		}
		prov_error(c, loc, "@cast in '%s': the header does not "
			   "compile%s%s", m, msg || err ? ": " : "",
			   msg ? msg : err ? err : "");
		free(err);
	}
	if (system(arena_printf(s->arena, "rm -rf '%s'", dir)) != 0)
		(void)0;	/* a temporary directory left behind */
	if (!dw)
		return NULL;
	h = arena_alloc(s->arena, sizeof(*h));
	h->name = arena_strdup(s->arena, m);
	h->dw = dw;
	vec_push(s->arena, &s->cast_headers, h);
	return dw;
}

struct uelf *target_user_object(struct session *s, const char *path,
				char **err)
{
	struct uelf *u;
	int i;

	for (i = 0; i < s->user_objs.n; i++) {
		u = s->user_objs.items[i];
		if (!strcmp(uelf_path(u), path))
			return u;
	}
	u = uelf_open(path, err);
	if (u)
		vec_push(s->arena, &s->user_objs, u);
	return u;
}

/* The DWARF of a program or library named by its path, as a process
 * probe opens it.  NULL after reporting.
 */
static struct kdwarf *program_dwarf(struct prov_ctx *c, struct loc loc,
				    const char *m)
{
	struct session *s = c->s;
	const char *why = NULL;
	char *err = NULL, *path;
	struct kdwarf *dw;
	struct uelf *u;

	path = uelf_resolve(m, &err);
	u = path ? target_user_object(s, path, &err) : NULL;
	free(path);
	if (!u) {
		prov_error(c, loc, "@cast in '%s': %s", m, err ? err : "?");
		free(err);
		return NULL;
	}
	dw = uelf_dwarf(u, kbuild_cache_dir(s), &why);
	if (!dw)
		prov_error(c, loc, "@cast in '%s': its types need its "
			   "debuginfo (DWARF): %s", m, why ? why : "none");
	return dw;
}

/* The type in the sources the module argument names, in order: "kernel"
 * (also with a header, "kernel<linux/fs.h>"), a module, a program or
 * library by its path, a C header ("<stdio.h>"), or a list of them
 * joined by ':'.  *user says the type describes user memory (a
 * program's or a header's).  0, -ENOENT (not found: *where says where
 * it was looked for), or -1 after reporting.
 */
static int cast_type_in(struct prov_ctx *c, struct expr *e, const char *name,
			const struct ktype **t, const char **where,
			bool *user)
{
	struct arena *a = c->s->arena;
	char *list = arena_strdup(a, e->module ? e->module : "kernel");
	char *save, *m;
	const char *desc;
	const struct ksrc *src;
	struct kdwarf *dw;

	*where = NULL;
	for (m = strtok_r(list, ":", &save); m;
	     m = strtok_r(NULL, ":", &save)) {
		bool kernel = kernel_module_name(m);

		*user = !kernel && (m[0] == '<' || strchr(m, '/'));
		if (*user) {
			dw = m[0] == '<' ? header_dwarf(c, e->loc, m) :
					   program_dwarf(c, e->loc, m);
			if (!dw)
				return -1;
			src = kdwarf_src(dw);
			desc = arena_printf(a, "'%s' (DWARF)", m);
		} else {
			src = kernel ? target_kernel_types(c, e->loc) :
				       target_module_types(c, e->loc, m);
			if (!src)
				return -1;
			desc = kernel ? "the kernel's" :
					arena_printf(a, "module %s's", m);
			desc = arena_printf(a, "%s %s", desc,
					    src->ops->name);
		}
		if (!src->ops->type_by_name(src, name, t))
			return 0;
		*where = *where ? arena_printf(a, "%s or %s", *where, desc) :
			 desc;
	}
	return -ENOENT;
}

/* A bare name ("task_struct") is tried as a structure, a union, then a
 * typedef or base type, as SystemTap does; "struct x", "union x" and
 * "enum x" only as written.
 */
static int cast_type_by_name(struct prov_ctx *c, struct expr *e,
			     const char *name, const struct ktype **t,
			     const char **where, bool *user)
{
	static const char *const tags[] = { "struct ", "union ", "" };
	size_t i;
	int rc = -ENOENT;

	if (!strncmp(name, "struct ", 7) || !strncmp(name, "union ", 6) ||
	    !strncmp(name, "enum ", 5))
		return cast_type_in(c, e, name, t, where, user);
	for (i = 0; i < ARRAY_SIZE(tags) && rc == -ENOENT; i++)
		rc = cast_type_in(c, e, arena_printf(c->s->arena, "%s%s",
						     tags[i], name),
				  t, where, user);
	return rc;
}

int target_resolve_cast(struct prov_ctx *c, struct expr *e)
{
	const struct ktype *t;
	const char *where;
	struct tref *r;
	const char *name = e->cast_type;
	size_t n = strlen(name);
	bool user = false;
	int rc;

	while (n && name[n - 1] == ' ')
		n--;
	if (n && name[n - 1] == '*') {
		prov_error(c, e->loc, "@cast to a pointer type '%s': cast to "
			   "the type it points to", name);
		return -1;
	}
	rc = cast_type_by_name(c, e, name, &t, &where, &user);
	if (rc == -ENOENT)
		prov_error(c, e->loc, "type '%s' not found in %s", name,
			   where ? where : "the kernel's types");
	if (rc)
		return -1;
	r = arena_alloc(c->s->arena, sizeof(*r));
	r->base = TRB_CAST;
	r->type = t;
	r->user = user;	/* a program's memory */
	return target_bind(c, e, r);
}

/* ------------------------------------------------------------ autocast */

const struct ktype *target_pointer_to(struct arena *a, const struct ktype *t)
{
	struct ktype *p = arena_alloc(a, sizeof(*p));

	p->kind = KT_PTR;
	p->name = arena_printf(a, "%s*", ktype_name(t));
	p->size = 8;
	p->target = t;
	p->src = t->src;
	return p;
}

int target_resolve_autocast(struct prov_ctx *c, struct expr *e,
			    const struct ktype *ptr, bool user)
{
	struct tref *r = arena_alloc(c->s->arena, sizeof(*r));

	r->base = TRB_VALUE;
	r->type = ptr;
	r->user = user;
	return target_bind(c, e, r);
}
