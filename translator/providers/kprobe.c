/* providers/kprobe.c - kernel function probes: kernel.function(PATTERN)
 * and module(M).function(PATTERN) with .call, .exported, .return and
 * .return.maxactive(N), typed from the kernel's type source; and the
 * untyped kprobe.function(S), kprobe.module(M).function(S).  Every probe
 * is a kprobe (or kretprobe) registered by symbol name at start.
 *
 * Probe points that need line tables or inline records (@file, :N,
 * .inline, .label, .statement, ...) are reported as needing debuginfo.
 */
#include "../emit.h"
#include "../provider.h"
#include "../session.h"
#include "../target.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What pass 3 needs for one probe. */
struct kfn {
	const char *sym;		/* function symbol */
	const char *module;		/* NULL: the kernel itself */
	bool ret;			/* .return */
	int64_t maxactive;		/* 0: the kernel's default */
	bool typed;			/* kernel./module(): types known */
	const char *src_name;		/* the type source that lacks it */
	bool must;			/* a registration failure is an error */
	struct kfunc sig;
};

static const char *comp_str(const struct probe_point *pp, const char *f)
{
	const struct pp_comp *c = pp_comp_of(pp, intern(f));

	return c && c->arg && c->arg->kind == EX_STR ? c->arg->str : NULL;
}

static bool is_kprobe_family(const struct probe_point *pp)
{
	const struct pp_comp *c = vec_get(&pp->comps, 0);

	return !strcmp(c->functor, "kprobe");
}

/* The suffixes that only debuginfo can serve. */
static const char *const dwarf_only[] = {
	"inline", "label", "callee", "callees", "statement", "nearest",
	"absolute",
};

static const char *needs_dwarf(const struct probe_point *pp)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dwarf_only); i++)
		if (pp_comp_of(pp, intern(dwarf_only[i])))
			return dwarf_only[i];
	return NULL;
}

static void dwarf_error(struct prov_ctx *c, const struct probe_point *pp,
			const char *what)
{
	prov_error(c, pp->loc, "%s needs kernel debuginfo (DWARF), which is "
		   "not installed: install linux-image-%s-dbg", what,
		   c->s->kernel_vr);
}

/* ------------------------------------------------------------ expand */

struct collect {
	struct prov_ctx *c;
	const struct probe_point *pp;
	const struct pp_comp *fcomp;
	struct vec *out;
	struct vec *exported;		/* sorted names, or NULL */
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Exported symbols of the target kernel, from its Module.symvers. */
static struct vec *exported_symbols(struct prov_ctx *c, struct loc loc)
{
	static struct vec syms;
	static const struct session *for_session;
	char *path, *text, *line, *save;

	if (for_session == c->s)
		return &syms;
	memset(&syms, 0, sizeof(syms));
	for_session = c->s;
	path = arena_printf(c->s->arena, "/lib/modules/%s/build/Module.symvers",
			    c->s->kernel_vr);
	text = read_file(path, NULL);
	if (!text) {
		prov_error(c, loc, "cannot read %s for .exported", path);
		return &syms;
	}
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f1 = strchr(line, '\t'), *f2;

		if (!f1)
			continue;
		f2 = strchr(f1 + 1, '\t');
		if (!f2)
			continue;
		/* CRC, symbol, module: only the kernel's own (vmlinux) */
		if (strncmp(f2 + 1, "vmlinux\t", 8))
			continue;
		vec_push(c->s->arena, &syms, arena_strndup(c->s->arena, f1 + 1,
				(size_t)(f2 - f1 - 1)));
	}
	free(text);
	if (syms.n)
		qsort(syms.items, (size_t)syms.n, sizeof(void *), cmp_name);
	return &syms;
}

static bool is_exported(struct vec *syms, const char *name)
{
	return syms->n && bsearch(&name, syms->items, (size_t)syms->n,
				  sizeof(void *), cmp_name);
}

static void push_point(struct collect *k, const char *name)
{
	struct arena *a = k->c->s->arena;
	struct probe_point *np;
	int i;

	if (k->exported && !is_exported(k->exported, name))
		return;
	np = arena_alloc(a, sizeof(*np));
	*np = *k->pp;
	memset(&np->comps, 0, sizeof(np->comps));
	for (i = 0; i < k->pp->comps.n; i++) {
		const struct pp_comp *oc = vec_get(&k->pp->comps, i);
		struct pp_comp *nc = arena_alloc(a, sizeof(*nc));

		*nc = *oc;
		if (oc == k->fcomp) {
			struct expr *s = arena_alloc(a, sizeof(*s));

			*s = *oc->arg;
			s->str = arena_strdup(a, name);
			nc->arg = s;
		}
		vec_push(a, &np->comps, nc);
	}
	/* one of many: failing to register it is not an error */
	np->optional = has_wildcard(k->fcomp->arg->str);
	vec_push(a, k->out, np);
}

static void collect_cb(const char *name, void *arg)
{
	push_point(arg, name);
}

static int kfn_expand(struct prov_ctx *c, const struct probe_point *pp,
		      struct vec *out)
{
	struct collect k = { c, pp, pp_comp_of(pp, intern("function")), out,
			     NULL };
	const struct ksrc *src;
	const char *spec = comp_str(pp, "function");
	const char *dw = needs_dwarf(pp);

	if (dw && !strcmp(dw, "absolute")) {
		prov_error(c, pp->loc, "probes on absolute addresses are not "
			   "supported yet");
		return -1;
	}
	if (dw) {
		dwarf_error(c, pp, arena_printf(c->s->arena, "'.%s'", dw));
		return -1;
	}
	if (!k.fcomp || !spec) {
		dwarf_error(c, pp, "a function given by address");
		return -1;
	}
	if (strpbrk(spec, "@:+")) {
		dwarf_error(c, pp, arena_printf(c->s->arena, "function "
			    "\"%s\" (a source file or line)", spec));
		return -1;
	}
	if (is_kprobe_family(pp)) {
		if (has_wildcard(spec)) {
			prov_error(c, k.fcomp->arg->loc, "kprobe.function "
				   "takes a symbol name, not a pattern: use "
				   "kernel.function(\"%s\")", spec);
			return -1;
		}
		push_point(&k, spec);
		return 1;
	}
	if (comp_str(pp, "module")) {
		/* module types: not yet; exact names only */
		if (has_wildcard(spec) || has_wildcard(comp_str(pp, "module"))) {
			prov_error(c, pp->loc, "module function patterns are "
				   "not supported yet: name one function of "
				   "one module");
			return -1;
		}
		push_point(&k, spec);
		return 1;
	}
	src = target_kernel_types(c, pp->loc);
	if (!src)
		return -1;
	if (pp_comp_of(pp, intern("exported")))
		k.exported = exported_symbols(c, pp->loc);
	if (!has_wildcard(spec)) {
		struct kfunc f;

		/* Not every symbol has a BTF record (the __x64_sys_*
		 * wrappers have none): such a function is probed by its
		 * symbol, untyped, and the kernel says at start whether it
		 * exists.
		 */
		(void)f;
		push_point(&k, spec);
		return out->n;
	}
	src->ops->funcs_matching(src, spec, collect_cb, &k);
	return out->n;
}

/* ------------------------------------------------------------- build */

static int kfn_build(struct prov_ctx *c, struct derived_probe *dp)
{
	const struct probe_point *pp = dp->pp;
	struct kfn *k = arena_alloc(c->s->arena, sizeof(*k));
	const struct ksrc *src;

	dp->priv = k;
	k->sym = comp_str(pp, "function");
	k->module = comp_str(pp, "module");
	k->ret = pp_comp_of(pp, intern("return")) != NULL;
	k->typed = !is_kprobe_family(pp) && !k->module;
	/* from a pattern, an optional point: failures are skipped */
	k->must = !c->optional;
	if (pp_comp_of(pp, intern("maxactive")) &&
	    (!pp_num(pp, intern("maxactive"), &k->maxactive) ||
	     k->maxactive < 1 || k->maxactive > 4096)) {
		prov_error(c, pp->loc, "maxactive must be between 1 and 4096");
		return -1;
	}
	if (!k->typed)
		return 0;
	src = target_kernel_types(c, pp->loc);
	if (!src)
		return -1;
	if (src->ops->func(src, k->sym, &k->sig))
		k->typed = false;	/* symbol only */
	k->src_name = src->ops->name;
	return 0;
}

/* ---------------------------------------------------- target variables */

static bool is_list_name(const char *n)
{
	return !strcmp(n, "$$parms") || !strcmp(n, "$$vars") ||
	       !strcmp(n, "$$locals") || !strcmp(n, "$$return");
}

/* $$parms and friends: every named parameter (or the return value),
 * each its own tref with no steps.
 */
static int bind_list(struct prov_ctx *c, struct kfn *k, struct expr *e)
{
	struct arena *a = c->s->arena;
	struct tref *r = arena_alloc(a, sizeof(*r));
	int i;

	if (e->comps.n || e->addressof) {
		prov_error(c, e->loc, "'%s' cannot take members, indexes or "
			   "'&'", e->name);
		return -1;
	}
	r->base = TRB_LIST;
	r->list = arena_alloc(a, sizeof(*r->list) * (KFUNC_MAX_PARAMS + 1));
	r->list_names = arena_alloc(a, sizeof(*r->list_names) *
				    (KFUNC_MAX_PARAMS + 1));
	if (!strcmp(e->name, "$$return")) {
		if (!k->ret) {
			prov_error(c, e->loc, "$$return is only available in "
				   ".return probes");
			return -1;
		}
		if (k->sig.ret->kind != KT_VOID) {
			struct tref *t = arena_alloc(a, sizeof(*t));

			t->base = TRB_RETURN;
			t->type = t->final = k->sig.ret;
			r->list_names[0] = "return";
			r->list[r->nlist++] = t;
		}
	} else if (strcmp(e->name, "$$locals")) {
		/* no locals without DWARF: $$vars is $$parms */
		for (i = 0; i < k->sig.nparams; i++) {
			struct tref *t;

			if (!*k->sig.params[i].name)
				continue;
			t = target_param(c, &k->sig, i, e->loc);
			if (!t) {
				c->errors--;	/* left out, not an error */
				continue;
			}
			t->final = t->type;
			t->in_mem = t->base == TRB_MEM;
			r->list_names[r->nlist] = k->sig.params[i].name;
			r->list[r->nlist++] = t;
		}
	}
	e->tref = r;
	return 0;
}

/* A .return probe reads parameters as they were at entry: the whole
 * expression becomes @entry(expression).
 */
static void snapshot(struct prov_ctx *c, struct derived_probe *dp,
		     struct expr *e)
{
	struct expr *inner = arena_alloc(c->s->arena, sizeof(*inner));
	struct tref *r = arena_alloc(c->s->arena, sizeof(*r));

	*inner = *e;
	memset(&e->comps, 0, sizeof(e->comps));
	e->kind = EX_ENTRY;
	e->a = inner;
	e->tref = r;
	r->base = TRB_ENTRY;
	r->slot = dp->entry_exprs.n;
	r->saved = inner;
	vec_push(c->s->arena, &dp->entry_exprs, e);
}

static int kfn_resolve_target(struct prov_ctx *c, struct derived_probe *dp,
			      struct expr *e)
{
	struct kfn *k = dp->priv;
	struct tref *r;
	int i;

	if (!k->typed && k->src_name) {
		prov_error(c, e->loc, "no type information for kernel "
			   "function '%s' in the kernel's %s: its context "
			   "variables need debuginfo (DWARF)", k->sym,
			   k->src_name);
		return -1;
	}
	if (!k->typed) {
		prov_error(c, e->loc, "%s probes have no target variables: "
			   "use kernel.function(\"%s\")", k->module ?
			   "module function" : "kprobe.function", k->sym);
		return -1;
	}
	if (is_list_name(e->name)) {
		if (bind_list(c, k, e))
			return -1;
		if (k->ret && !c->at_entry && strcmp(e->name, "$$return"))
			snapshot(c, dp, e);
		return 0;
	}
	if (!strcmp(e->name, "$return")) {
		if (!k->ret) {
			prov_error(c, e->loc, "$return is only available in "
				   ".return probes");
			return -1;
		}
		if (c->at_entry) {
			prov_error(c, e->loc, "$return has no value at entry");
			return -1;
		}
		if (k->sig.ret->kind == KT_VOID) {
			prov_error(c, e->loc, "function '%s' returns void",
				   k->sym);
			return -1;
		}
		r = arena_alloc(c->s->arena, sizeof(*r));
		r->base = TRB_RETURN;
		r->type = k->sig.ret;
		return target_bind(c, e, r);
	}
	for (i = 0; i < k->sig.nparams; i++)
		if (*k->sig.params[i].name &&
		    !strcmp(k->sig.params[i].name, e->name + 1))
			break;
	if (i == k->sig.nparams) {
		struct strbuf sb;

		sb_init(&sb);
		target_list_params(&sb, &k->sig);
		prov_error(c, e->loc, "unable to find parameter '%s' of kernel "
			   "function '%s' (alternatives:%s)", e->name, k->sym,
			   sb.buf ? sb.buf : " none");
		sb_free(&sb);
		return -1;
	}
	r = target_param(c, &k->sig, i, e->loc);
	if (!r || target_bind(c, e, r))
		return -1;
	if (k->ret && !c->at_entry)
		snapshot(c, dp, e);
	return 0;
}

static int kfn_resolve_entry(struct prov_ctx *c, struct derived_probe *dp,
			     struct expr *e)
{
	struct kfn *k = dp->priv;
	struct tref *r;

	if (!k->ret) {
		prov_error(c, e->loc, "@entry is only valid in a .return "
			   "probe handler");
		return -1;
	}
	r = arena_alloc(c->s->arena, sizeof(*r));
	r->base = TRB_ENTRY;
	r->slot = dp->entry_exprs.n;
	r->saved = e->a;
	e->tref = r;
	vec_push(c->s->arena, &dp->entry_exprs, e);
	return 0;
}

static void kfn_list_vars(const struct derived_probe *dp, struct strbuf *sb)
{
	const struct kfn *k = dp->priv;

	if (!k->typed)
		return;
	if (k->ret && k->sig.ret->kind != KT_VOID)
		sb_printf(sb, " $return:%s", ktype_name(k->sig.ret));
	target_list_params(sb, &k->sig);
}

/* ------------------------------------------------------------ pass 3 */

static const char *kfn_probe_type(const struct derived_probe *dp)
{
	const struct kfn *k = dp->priv;

	return k->ret ? "STP_PROBE_KRETPROBE" : "STP_PROBE_KPROBE";
}

static void kfn_emit_group(struct emitter *em, struct vec *dps)
{
	struct strbuf *d = emit_out(em, EMIT_DECLS);
	int i;

	sb_printf(d, "static struct stp_kprobe stp_kprobes[%d] = {\n",
		  dps->n);
	for (i = 0; i < dps->n; i++) {
		const struct derived_probe *dp = dps->items[i];
		const struct kfn *k = dp->priv;

		sb_printf(d, "\t{\n\t\t.symbol = \"%s%s%s\",\n"
			  "\t\t.probe = %s,\n", k->module ? k->module : "",
			  k->module ? ":" : "", k->sym,
			  emit_probe_ref(em, dp));
		if (k->ret)
			sb_puts(d, "\t\t.ret = true,\n");
		if (k->must)
			sb_puts(d, "\t\t.must = true,\n");
		if (k->maxactive)
			sb_printf(d, "\t\t.maxactive = %" PRId64 ",\n",
				  k->maxactive);
		if (dp->entry_exprs.n)
			sb_printf(d, "\t\t.entry = &stp_entry_probe_%d,\n"
				  "\t\t.data_size = sizeof(struct "
				  "stp_entry_%d),\n", dp->index, dp->index);
		sb_puts(d, "\t},\n");
	}
	sb_puts(d, "};\n\n");
	sb_printf(emit_out(em, EMIT_START),
		  "\trc = _stp_kprobes_register(stp_kprobes, %d);\n", dps->n);
	sb_printf(emit_out(em, EMIT_STOP),
		  "\t_stp_kprobes_unregister(stp_kprobes, %d);\n", dps->n);
}

#define KFN_SUFFIXES "{,.call,.exported,.return,.return.maxactive(n)," \
		     ".inline,.label(s),.callee(s){,.call,.return},.callees," \
		     ".callees(n)}"

static const char *const kfn_patterns[] = {
	"{kernel,module(s)}.function(s)" KFN_SUFFIXES,
	"{kernel,module(s)}.function(n){,.call,.exported,.return}",
	"{kernel,module(s)}.statement({s,n}){,.nearest}",
	"kernel.statement(n).absolute",
	"kprobe{,.module(s)}.function(s){,.call,.return,"
		".return.maxactive(n)}",
	"kprobe.statement(n).absolute",
	NULL
};

static int kfn_build_checked(struct prov_ctx *c, struct derived_probe *dp)
{
	const struct probe_point *pp = dp->pp;
	const struct pp_comp *f = pp_comp_of(pp, intern("function"));

	if (!f || f->arg->kind != EX_STR) {
		dwarf_error(c, pp, arena_printf(c->s->arena, "'%s'",
						dp->name));
		return -1;
	}
	return kfn_build(c, dp);
}

const struct provider kfunc_provider = {
	.name = "kernel.function",
	.patterns = kfn_patterns,
	.expand = kfn_expand,
	.build = kfn_build_checked,
	.resolve_target = kfn_resolve_target,
	.resolve_entry = kfn_resolve_entry,
	.list_vars = kfn_list_vars,
	.emit_group = kfn_emit_group,
	.probe_type = kfn_probe_type,
};
