/* target.c - pass 2 of $target expressions: the kernel's type source,
 * where a parameter lives by the calling convention, and the checking
 * of member chains, indexes, '&' and pretty-printing against the types.
 */
#include "target.h"
#include "debuginfo/btf.h"
#include "debuginfo/dwarf.h"
#include "debuginfo/tracepoints.h"
#include "diag.h"
#include "kbuild.h"
#include "session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct kernel_types {
	struct kbtf *btf;
	struct kdwarf *dw;
	const struct ksrc *src;		/* DWARF when there, else BTF */
	bool failed, btf_failed;
	struct ktp_catalog *tp;
	bool tp_failed;
	struct vec exported;		/* Module.symvers names, sorted */
	bool exported_loaded;
};

/* Which source: TAPIR_KERNEL_TYPES=btf or =dwarf forces one (the tests
 * run scripts from each); otherwise DWARF when the kernel's -dbg package
 * is installed, else BTF.
 */
static bool want_dwarf(struct session *s)
{
	const char *env = getenv("TAPIR_KERNEL_TYPES");

	if (env && (!strcmp(env, "btf") || !strcmp(env, "dwarf")))
		return !strcmp(env, "dwarf");
	return file_exists(arena_printf(s->arena,
					"/usr/lib/debug/boot/vmlinux-%s",
					s->kernel_vr));
}

static struct kbtf *load_btf(struct prov_ctx *c, struct loc loc)
{
	struct session *s = c->s;
	struct kernel_types *kt = s->ktypes;
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
	struct kernel_types *kt = s->ktypes;
	char *err = NULL;

	if (!kt) {
		kt = xmalloc(sizeof(*kt));
		memset(kt, 0, sizeof(*kt));
		s->ktypes = kt;
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

/* The kernel's own exported symbols, from Module.symvers. */
bool target_exported(struct prov_ctx *c, struct loc loc, const char *name)
{
	struct kernel_types *kt = c->s->ktypes;
	struct arena *a = c->s->arena;
	char *path, *text, *line, *save;

	if (!kt)
		return false;
	if (!kt->exported_loaded) {
		kt->exported_loaded = true;
		path = arena_printf(a, "/lib/modules/%s/build/Module.symvers",
				    c->s->kernel_vr);
		text = read_file(path, NULL);
		if (!text) {
			prov_error(c, loc, "cannot read %s for .exported",
				   path);
			return false;
		}
		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char *f1 = strchr(line, '\t'), *f2;

			f2 = f1 ? strchr(f1 + 1, '\t') : NULL;
			/* CRC, symbol, module: only vmlinux's own */
			if (!f2 || strncmp(f2 + 1, "vmlinux\t", 8))
				continue;
			vec_push(a, &kt->exported, arena_strndup(a, f1 + 1,
				 (size_t)(f2 - f1 - 1)));
		}
		free(text);
		if (kt->exported.n)
			qsort(kt->exported.items, (size_t)kt->exported.n,
			      sizeof(void *), cmp_strp);
	}
	return kt->exported.n && bsearch(&name, kt->exported.items,
					 (size_t)kt->exported.n,
					 sizeof(void *), cmp_strp);
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

void target_session_free(struct session *s)
{
	if (!s->ktypes)
		return;
	ktp_free(s->ktypes->tp);
	kbtf_free(s->ktypes->btf);
	kdwarf_free(s->ktypes->dw);
	free(s->ktypes);
	s->ktypes = NULL;
}

void target_list_params(struct strbuf *sb, const struct kfunc *f)
{
	int i;

	for (i = 0; i < f->nparams; i++)
		if (*f->params[i].name)
			sb_printf(sb, " $%s:%s", f->params[i].name,
				  ktype_name(f->params[i].type));
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

	b.in_mem = r->base == TRB_MEM || r->base == TRB_CAST;
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

/* ---------------------------------------------------------------- @cast */

static bool kernel_module_name(const char *m)
{
	return !m || !strncmp(m, "kernel", 6);
}

int target_resolve_cast(struct prov_ctx *c, struct expr *e)
{
	const struct ksrc *src;
	const struct ktype *t;
	struct tref *r;
	const char *name = e->cast_type;
	size_t n = strlen(name);

	if (!kernel_module_name(e->module)) {
		prov_error(c, e->loc, "@cast in module '%s': only kernel "
			   "types are supported", e->module);
		return -1;
	}
	while (n && name[n - 1] == ' ')
		n--;
	if (n && name[n - 1] == '*') {
		prov_error(c, e->loc, "@cast to a pointer type '%s': cast to "
			   "the type it points to", name);
		return -1;
	}
	src = target_kernel_types(c, e->loc);
	if (!src)
		return -1;
	if (src->ops->type_by_name(src, name, &t)) {
		prov_error(c, e->loc, "type '%s' not found in the kernel's %s",
			   name, src->ops->name);
		return -1;
	}
	r = arena_alloc(c->s->arena, sizeof(*r));
	r->base = TRB_CAST;
	r->type = t;
	return target_bind(c, e, r);
}
