/* providers/kprobe.c - kernel function probes: kernel.function(PATTERN)
 * and module(M).function(PATTERN) with .call, .exported, .return,
 * .return.maxactive(N), .label(NAME) (DWARF's C labels) and
 * .callee(NAME), .callees[(N)] (DWARF's call sites), typed from the
 * type source of the kernel or of module M (M may be a pattern too);
 * and the untyped kprobe.function(S), kprobe.module(M).function(S).
 * Every probe is a kprobe (or kretprobe) registered by symbol name
 * ("mod:sym" in a module) at start, except the entries of the kernel's
 * own functions, which the runtime puts on one shared ftrace_ops where
 * ftrace can carry them (runtime/stp_ftrace.c).
 *
 * Probe points that need line tables or inline records (@file, :N,
 * .inline, .label, .callee(s), .statement, addresses) are reported as
 * needing debuginfo.
 */
#include "../emit.h"
#include "../provider.h"
#include "../session.h"
#include "../target.h"
#include "../debuginfo/dwarf.h"
#include "../debuginfo/kmod.h"
#include "../debuginfo/ksyms.h"
#include "fspec.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A variable DWARF places at the probe's address. */
/* An inline instance, handed from expand to build. */
struct kinline {
	const char *caller;
	unsigned long offset;
	const char *file;		/* the inlined function's declaration */
	int line;
	bool label;			/* not a copy: a label's address in
					 * caller, a statement there */
	const char *callee;		/* not a copy: .callee(G), G's entry
					 * when called along one of paths */
	const struct vec *paths;	/* struct kcallpath *: the ways down */
};

/* What pass 3 needs for one probe. */
struct kfn {
	const char *sym;		/* function symbol */
	struct vec clones;		/* const char *: sym's copies */
	unsigned long offset;		/* from sym: statement, inline */
	const char *module;		/* NULL: the kernel itself */
	bool ret;			/* .return */
	int64_t maxactive;		/* 0: the kernel's default */
	bool typed;			/* kernel./module(): types known */
	const char *src_name;		/* the type source that lacks it */
	const char *decl;		/* an inlined copy: "F@FILE:LINE" */
	bool must;			/* a registration failure is an error */
	bool at_entry;			/* parameters by the calling convention */
	bool absolute;			/* .absolute: addr, no symbol */
	bool ftrace;			/* a function's entry, which the
					 * runtime may put on ftrace */
	uint64_t addr;
	struct kfunc sig;
	struct vec vars;		/* struct fvar *, from DWARF */
	const struct vec *paths;	/* .callee: struct kcallpath *, the
					 * calls it must be reached by */
	int depth;			/* the deepest of paths */
	const char *caller;		/* .callee: the function probed */
	const char *caller_decl;	/* and as "F@FILE:LINE", or NULL */
	struct vec evs;			/* struct kev *: registers kept
					 * at a function's entry for it */
};

/* A register a kprobe on the entry of function sym keeps for the
 * probe's reads of a variable that is its value there.
 */
struct kev {
	const char *sym;
	const char *reg;		/* pt_regs field */
	const char *cname;		/* its struct stp_kentry */
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
	const struct pp_comp *fcomp;	/* the component that names it */
	struct vec *out;
	const struct ksrc *src;
	struct kdwarf *dw;
	struct fspec spec;
	bool exported;
	bool many;			/* from a pattern */
	const struct pp_comp *mcomp;	/* module(M), or NULL */
	const char *module;		/* the module searched */
	bool modpat;			/* one of module("PATTERN") */
	bool stmt;
	bool copies;			/* inlined copies of a plain function */
	const char *text;		/* the function component's argument */
	const struct pp_comp *lcomp;	/* .label(NAME), or NULL */
	const char *label;		/* the label a point is at */
	const struct pp_comp *ccomp;	/* .callee(NAME), or NULL */
	const struct pp_comp *cscomp;	/* .callees[(N)], or NULL */
};

/* The user's point with the function component's argument replaced. */
static struct probe_point *push_point(struct collect *k, const char *arg)
{
	struct arena *a = k->c->s->arena;
	struct probe_point *np;
	int i;

	np = arena_alloc(a, sizeof(*np));
	*np = *k->pp;
	memset(&np->comps, 0, sizeof(np->comps));
	for (i = 0; i < k->pp->comps.n; i++) {
		const struct pp_comp *oc = vec_get(&k->pp->comps, i);
		struct pp_comp *nc = arena_alloc(a, sizeof(*nc));

		*nc = *oc;
		if (oc == k->cscomp && k->label) {
			/* .callees[(N)] resolves to .callee("G") */
			struct expr *s = arena_alloc(a, sizeof(*s));

			s->kind = EX_STR;
			s->loc = oc->loc;
			s->str = arena_strdup(a, k->label);
			nc->functor = intern("callee");
			nc->arg = s;
		} else if (oc == k->fcomp || (oc == k->mcomp &&
					      strcmp(oc->arg->str,
						     k->module)) ||
			   ((oc == k->lcomp || oc == k->ccomp) && k->label)) {
			struct expr *s = arena_alloc(a, sizeof(*s));

			*s = *oc->arg;
			s->str = arena_strdup(a, oc == k->fcomp ? arg :
					      oc == k->lcomp ||
					      oc == k->ccomp ? k->label :
					      k->module);
			nc->arg = s;
		}
		vec_push(a, &np->comps, nc);
	}
	/* one of many: failing to register it is not an error */
	np->optional = k->many;
	vec_push(a, k->out, np);
	return np;
}

static void line_cb(const char *func, const char *file, int line,
		    unsigned long offset, void *arg)
{
	struct collect *k = arg;

	(void)offset;
	push_point(k, arena_printf(k->c->s->arena, "%s@%s:%d", func, file,
				   line));
}

static void func_cb(const char *name, void *arg)
{
	struct collect *k = arg;
	struct kfunc f;

	if (k->exported &&
	    !target_module_exported(k->c, k->pp->loc, k->module, name))
		return;
	if (k->spec.file && (k->src->ops->func(k->src, name, &f) ||
			     !fspec_file_matches(k->c->s->arena, k->spec.file,
					   f.file)))
		return;
	if (k->spec.lines) {
		int lo = k->spec.lo, hi = k->spec.hi;

		if (k->spec.rel) {
			if (k->src->ops->func(k->src, name, &f) || !f.line)
				return;
			lo = hi = f.line + k->spec.rel;
		}
		kdwarf_lines(k->dw, name, k->spec.file, lo, hi, line_cb, k);
		return;
	}
	push_point(k, name);
}

static void inline_cb(const char *name, const char *caller,
		      unsigned long offset, const char *file, int line,
		      void *arg)
{
	struct collect *k = arg;
	struct kinline *in = arena_alloc(k->c->s->arena, sizeof(*in));
	struct probe_point *np;

	if (!fspec_file_matches(k->c->s->arena, k->spec.file, file))
		return;
	/* a copy inside the function itself (or its clone) would fire a
	 * second time on the same call
	 */
	if (k->copies && !strncmp(caller, name, strlen(name)) &&
	    (!caller[strlen(name)] || caller[strlen(name)] == '.'))
		return;
	in->caller = arena_strdup(k->c->s->arena, caller);
	in->offset = offset;
	in->file = file ? arena_strdup(k->c->s->arena, file) : NULL;
	in->line = line;
	np = push_point(k, name);
	np->prov_data = in;
	np->optional = true;	/* one copy of many */
}

static bool needs_dwarf(const struct collect *k)
{
	const struct probe_point *pp = k->pp;

	return k->spec.file || k->spec.lines || k->stmt ||
	       pp_comp_of(pp, intern("inline")) ||
	       pp_comp_of(pp, intern("label")) ||
	       pp_comp_of(pp, intern("callee")) ||
	       pp_comp_of(pp, intern("callees"));
}

/* An exact name without a type record: the kernel says at start whether
 * it has the symbol, but a module's file can say it now.
 */
static void symbol_cb(const char *name, void *arg)
{
	struct collect *k = arg;
	struct kfunc f;

	if (!k->src->ops->func(k->src, name, &f))
		return;		/* typed: func_cb had it */
	if (k->exported && !target_module_exported(k->c, k->pp->loc, NULL,
						   name))
		return;
	push_point(k, name);
}

/* The functions of a pattern that have no type record (the __x64_sys_*
 * wrappers, assembly): from the kernel's symbols, untyped.
 */
static void symbols_matching(struct collect *k)
{
	const struct ksyms *syms = target_kernel_symbols(k->c->s);

	if (syms)
		ksyms_matching(syms, k->spec.func, symbol_cb, k);
}

static bool exact_exists(struct collect *k, const char *name)
{
	struct kfunc f;

	if (k->exported && !target_module_exported(k->c, k->pp->loc,
						   k->module, name))
		return false;
	if (!k->src->ops->func(k->src, name, &f))
		return true;
	if (!k->module) {
		/* no type record: the kernel's symbols say whether it is
		 * there; without a list the kernel says so at start
		 */
		const struct ksyms *syms = target_kernel_symbols(k->c->s);

		return !syms || ksyms_has(syms, name) ||
		       ksyms_clones(syms, name, NULL, NULL);
	}
	/* reading every module's file for module("*") costs too much */
	return !k->modpat && target_module_has_func(k->c, k->mcomp->arg->loc,
						    k->module, name);
}

/* What the point asks for that the sources cannot give: 0, or -1 after
 * reporting.
 */
static int check_point(struct collect *k)
{
	struct prov_ctx *c = k->c;
	const struct probe_point *pp = k->pp;

	if (!k->dw && needs_dwarf(k)) {
		/* '?' skips it and '!' goes on to the next point: a
		 * script written for DWARF still runs on BTF alone
		 */
		if (c->optional) {
			c->errors++;
			return -1;
		}
		if (k->ccomp || k->cscomp)
			prov_error(c, pp->loc, "'%s' needs the debuginfo "
				   "(DWARF) of %s: the calls a function makes "
				   "are only in DWARF's call sites "
				   "(DW_TAG_call_site), %s has none; install "
				   "linux-image-%s-dbg",
				   pp_text(c->s->arena, pp), k->module ?
				   arena_printf(c->s->arena, "module %s",
						k->module) : "the kernel",
				   k->src->ops->name, c->s->kernel_vr);
		else if (k->module)
			prov_error(c, pp->loc, "'%s' needs the debuginfo "
				   "(DWARF) of module %s, which is not "
				   "installed: install linux-image-%s-dbg",
				   pp_text(c->s->arena, pp), k->module,
				   c->s->kernel_vr);
		else
			dwarf_error(c, pp, arena_printf(c->s->arena, "'%s'",
					pp_text(c->s->arena, pp)));
		return -1;
	}
	if ((k->ccomp || k->cscomp) && (k->spec.lines || k->stmt)) {
		prov_error(c, (k->ccomp ? k->ccomp : k->cscomp)->loc,
			   "%s follows a function name, without a line",
			   k->ccomp ? ".callee" : ".callees");
		return -1;
	}
	if (k->lcomp && (k->spec.lines || k->stmt)) {
		prov_error(c, k->lcomp->loc, ".label follows a function "
			   "name, without a line");
		return -1;
	}
	if (k->stmt && !k->spec.lines) {
		prov_error(c, k->fcomp->arg->loc, "kernel.statement needs a "
			   "line: \"FUNCTION@FILE:LINE\"");
		return -1;
	}
	return 0;
}

/* A plain function(PATTERN) also probes the inlined copies DWARF
 * records (each an optional point: one that cannot be probed is
 * skipped); not .call, .exported, .return, which mean the real
 * function, nor a line or a statement.
 */
static void inlined_copies(struct collect *k)
{
	const struct probe_point *pp = k->pp;
	int n0 = k->out->n;

	if (!k->dw || k->stmt || k->spec.lines ||
	    pp_comp_of(pp, intern("call")) ||
	    pp_comp_of(pp, intern("exported")) ||
	    pp_comp_of(pp, intern("return")))
		return;
	k->copies = true;
	kdwarf_inlines(k->dw, k->spec.func, inline_cb, k);
	k->copies = false;
	/* an exact name found only inlined is still a match */
	if (k->out->n > n0 && !has_wildcard(k->spec.func))
		k->many = true;
}

static void label_cb(const struct klabel *l, void *arg)
{
	struct collect *k = arg;
	struct kinline *in = arena_alloc(k->c->s->arena, sizeof(*in));
	struct kfunc f;
	struct probe_point *np;

	if (k->spec.file && (k->src->ops->func(k->src, l->func, &f) ||
			     !fspec_file_matches(k->c->s->arena, k->spec.file,
					   f.file)))
		return;
	in->caller = arena_strdup(k->c->s->arena, l->at.sym);
	in->offset = l->at.offset;
	in->label = true;
	k->label = l->label;
	np = push_point(k, l->func);
	k->label = NULL;
	np->prov_data = in;
}

/* .label(GLOB) of the functions of k->spec: the address of each label
 * with code, probed as a statement.
 */
static int expand_labels(struct collect *k)
{
	struct prov_ctx *c = k->c;
	const char *glob = k->lcomp->arg->str;
	int n = kdwarf_labels(k->dw, k->spec.func, glob, label_cb, k);

	if (n > 1 || has_wildcard(glob) || has_wildcard(k->spec.func))
		k->many = true;
	if (!n && !c->optional && !c->quiet)
		prov_error(c, k->lcomp->arg->loc, "no label '%s' with code "
			   "in '%s'", glob, k->text);
	return n;
}

/* FUNC@FILE names the probed functions, not those on the way down. */
static bool callee_keep(const char *caller, void *arg)
{
	struct collect *k = arg;
	struct kfunc f;

	return !k->spec.file ||
	       (!k->src->ops->func(k->src, caller, &f) &&
		fspec_file_matches(k->c->s->arena, k->spec.file, f.file));
}

/* One point per probed function and callee, with every path down. */
static void callee_cb(const char *caller, const char *callee,
		      const struct vec *paths, void *arg)
{
	struct collect *k = arg;
	struct arena *a = k->c->s->arena;
	struct kinline *in;
	struct probe_point *np;

	/* a module's call of the kernel (or of another module): the
	 * probe would be on a function the module does not have
	 */
	if (k->module && !target_module_has_func(k->c, k->mcomp->arg->loc,
						 k->module, callee))
		return;
	in = arena_alloc(a, sizeof(*in));
	in->caller = caller;
	in->callee = callee;
	in->paths = paths;
	k->label = callee;
	np = push_point(k, caller);
	k->label = NULL;
	np->prov_data = in;
}

/* .callee(GLOB), .callees and .callees(N) of the functions of k->spec:
 * the entry of each callee DWARF's call sites name, N levels down, for
 * the calls along those paths only.
 */
static int expand_callees(struct collect *k)
{
	struct prov_ctx *c = k->c;
	const char *glob = k->ccomp ? k->ccomp->arg->str : "*";
	int n, tails, n0 = k->out->n, depth = prov_callee_depth(k->c, k->cscomp);

	if (!depth)
		return -1;
	k->many = true;	/* a callee the kernel refuses is skipped */
	n = kdwarf_callees(k->dw, k->spec.func, glob, depth, callee_keep,
			   callee_cb, k, &tails);
	if (n < 0) {
		prov_error(c, k->cscomp->arg->loc, ".callees(%d) of '%s' "
			   "reaches more than %d calls: give a smaller "
			   "depth", depth, k->text, KDWARF_CALLEE_PATHS);
		return -1;
	}
	if (k->out->n > n0 || c->optional || c->quiet)
		return k->out->n - n0;
	if (n)
		prov_error(c, (k->ccomp ? k->ccomp : k->cscomp)->loc,
			   "every callee of '%s' found is outside module %s: "
			   "probe it as kernel.function(\"NAME\") or in its "
			   "own module", k->text, k->module);
	else if (k->ccomp)
		prov_error(c, k->ccomp->arg->loc, "no call of '%s' in '%s' "
			   "that DWARF describes%s", glob, k->text, tails ?
			   " (tail calls leave no return address to tell "
			   "where the callee was called from)" : "");
	else if (tails)
		prov_error(c, k->cscomp->loc, "'%s' only makes tail calls, "
			   "which leave no return address to tell where "
			   "the callee was called from", k->text);
	else
		prov_error(c, k->cscomp->loc, "no call in '%s' that DWARF "
			   "describes (DW_TAG_call_site naming a callee): "
			   "it calls nothing, only through pointers, or "
			   "was built without call-site information",
			   k->text);
	return -1;
}

/* The points of k->spec in the kernel or one module, whose sources
 * k->src and k->dw are.
 */
static int expand_in(struct collect *k)
{
	struct prov_ctx *c = k->c;
	const struct probe_point *pp = k->pp;
	struct vec *out = k->out;
	int n0 = out->n;

	if (check_point(k))
		return -1;
	k->exported = pp_comp_of(pp, intern("exported")) != NULL;
	k->many = k->many || has_wildcard(k->spec.func) || k->spec.file ||
		  k->spec.lines;
	if (k->lcomp)
		return expand_labels(k);
	if (k->ccomp || k->cscomp)
		return expand_callees(k);
	if (pp_comp_of(pp, intern("inline"))) {
		kdwarf_inlines(k->dw, k->spec.func, inline_cb, k);
		return out->n - n0;
	}
	if (!has_wildcard(k->spec.func) && !k->spec.file && !k->spec.lines) {
		/* Not every symbol has a type record (BTF has none for
		 * the __x64_sys_* wrappers): such a function is probed by
		 * its symbol, untyped, and the kernel says at start
		 * whether it exists.
		 */
		if (exact_exists(k, k->spec.func))
			push_point(k, k->spec.func);
		inlined_copies(k);
		return out->n - n0;
	}
	if (has_wildcard(k->spec.func)) {
		k->src->ops->funcs_matching(k->src, k->spec.func, func_cb, k);
		if (!k->module && !k->spec.file && !k->spec.lines && !k->stmt)
			symbols_matching(k);
	} else {
		func_cb(k->spec.func, k);
	}
	inlined_copies(k);
	if (out->n == n0 && !c->optional && !c->quiet && k->spec.lines)
		prov_error(c, k->fcomp->arg->loc, "no line of '%s' has code",
			   k->text);
	return out->n - n0;
}

/* One module of a module("PATTERN"): one whose types cannot be loaded
 * is passed over, as a function of a pattern that cannot be probed.
 */
static void module_cb(const char *name, void *arg)
{
	struct collect *k = arg;
	struct collect one = *k;
	struct prov_ctx quiet = *k->c;
	bool loaded = target_module_loaded(k->c, name);

	quiet.quiet = true;
	one.module = arena_strdup(k->c->s->arena, name);
	one.src = target_module_types(&quiet, k->mcomp->arg->loc, name);
	one.dw = one.src ? target_module_dwarf(&quiet, k->mcomp->arg->loc,
					       name) : NULL;
	one.many = one.modpat = true;
	one.c = &quiet;
	if ((!one.src || (!one.dw && needs_dwarf(&one)) ||
	     expand_in(&one) <= 0) && !loaded)
		target_module_release(k->c, one.module);
}

/* module("M").function(...) and .statement(...): the same points as
 * the kernel's, from the module's own types; M may be a pattern.
 */
static int module_expand(struct collect *k)
{
	struct prov_ctx *c = k->c;
	struct loc mloc;
	int n0 = k->out->n;

	k->mcomp = pp_comp_of(k->pp, intern("module"));
	k->module = k->mcomp->arg->str;
	mloc = k->mcomp->arg->loc;
	if (has_wildcard(k->module)) {
		if (target_modules_matching(c, mloc, k->module, module_cb,
					    k) < 0)
			return -1;
		return k->out->n - n0;
	}
	if (c->optional) {
		struct prov_ctx quiet = *c;

		/* an optional point on a module that is not there */
		quiet.quiet = true;
		if (!target_module_exists(&quiet, mloc, k->module))
			return 0;
	}
	k->src = target_module_types(c, mloc, k->module);
	if (!k->src)
		return -1;
	k->dw = target_module_dwarf(c, mloc, k->module);
	return expand_in(k);
}

/* kernel.function(ADDR) and kernel.statement(ADDR) take an address of
 * vmlinux (nm, System.map): DWARF, which a kernel that is not running
 * needs to map it too, turns it into symbol + offset, which KASLR does
 * not move.  Here only what every such point needs; build places it.
 */
static const char *addr_text(struct arena *a, const struct probe_point *pp,
			     const struct pp_comp *fc)
{
	const char *text = pp_text(a, pp);
	const char *dec, *at;
	int64_t v;

	if (!pp_arg_num(fc->arg, &v))
		return text;
	/* pp() shows the address as it was given, in hex */
	dec = arena_printf(a, "%s(%" PRId64 ")", fc->functor, v);
	at = strstr(text, dec);
	if (!at)
		return text;
	return arena_printf(a, "%.*s%s(0x%" PRIx64 ")%s", (int)(at - text),
			    text, fc->functor, (uint64_t)v, at + strlen(dec));
}

static int addr_expand(struct prov_ctx *c, const struct probe_point *pp,
		       const struct pp_comp *fc, struct vec *out)
{
	struct probe_point *np;

	if (comp_str(pp, "module")) {
		prov_error(c, fc->arg->loc, "probes on module addresses are "
			   "not supported yet: name the function");
		return -1;
	}
	if (!target_kernel_wants_dwarf(c->s)) {
		if (c->optional) {	/* skipped, as in check_point */
			c->errors++;
			return -1;
		}
		dwarf_error(c, pp, arena_printf(c->s->arena, "'%s'",
				addr_text(c->s->arena, pp, fc)));
		return -1;
	}
	if (!target_kernel_dwarf(c, pp->loc))
		return -1;
	np = arena_alloc(c->s->arena, sizeof(*np));
	*np = *pp;
	vec_push(c->s->arena, out, np);
	return 1;
}

/* kernel.statement(ADDR).absolute, kprobe.statement(ADDR).absolute: a
 * kprobe on an address of the running kernel, as the user gives it
 * (KASLR included): guru mode only, since nothing checks it.
 */
static int absolute_expand(struct prov_ctx *c, const struct probe_point *pp,
			   struct vec *out)
{
	struct probe_point *np;

	if (!c->s->opt.guru) {
		prov_error(c, pp->loc, "probes on absolute addresses need guru "
			   "mode (-g)");
		return -1;
	}
	np = arena_alloc(c->s->arena, sizeof(*np));
	*np = *pp;
	vec_push(c->s->arena, out, np);
	return 1;
}

static int absolute_build(struct prov_ctx *c, struct derived_probe *dp,
			  struct kfn *k)
{
	const struct pp_comp *fc = pp_comp_of(dp->pp, intern("statement"));
	int64_t v;

	if (!fc || !pp_arg_num(fc->arg, &v) || !v) {
		prov_error(c, dp->pp->loc, "an absolute probe needs a "
			   "non-zero address");
		return -1;
	}
	dp->name = intern(addr_text(c->s->arena, dp->pp, fc));
	k->absolute = true;
	k->typed = false;
	k->addr = (uint64_t)v;
	return 0;
}

static int kfn_expand(struct prov_ctx *c, const struct probe_point *pp,
		      struct vec *out)
{
	struct collect k = { .c = c, .pp = pp, .out = out };
	const char *text;
	bool stmt = pp_comp_of(pp, intern("statement")) != NULL;

	if (pp_comp_of(pp, intern("absolute")))
		return absolute_expand(c, pp, out);
	k.fcomp = pp_comp_of(pp, intern(stmt ? "statement" : "function"));
	text = comp_str(pp, stmt ? "statement" : "function");
	if (!text)
		return addr_expand(c, pp, k.fcomp, out);
	if (is_kprobe_family(pp)) {
		if (has_wildcard(text) || strpbrk(text, "@:+")) {
			prov_error(c, k.fcomp->arg->loc, "kprobe.function "
				   "takes a symbol name, not a pattern: use "
				   "kernel.function(\"%s\")", text);
			return -1;
		}
		if (comp_str(pp, "module") &&
		    has_wildcard(comp_str(pp, "module"))) {
			prov_error(c, pp_comp_of(pp, intern("module"))->arg->loc,
				   "kprobe.module takes a module name, not a "
				   "pattern: use module(\"%s\")",
				   comp_str(pp, "module"));
			return -1;
		}
		push_point(&k, text);
		return 1;
	}
	if (!fspec_parse(c->s->arena, text, false, &k.spec)) {
		prov_error(c, k.fcomp->arg->loc, "bad function pattern '%s': "
			   "expected FUNCTION[@FILE][:LINE|:FIRST-LAST|:*]",
			   text);
		return -1;
	}
	k.stmt = stmt;
	k.text = text;
	k.lcomp = pp_comp_of(pp, intern("label"));
	k.ccomp = pp_comp_of(pp, intern("callee"));
	k.cscomp = pp_comp_of(pp, intern("callees"));
	if (comp_str(pp, "module"))
		return module_expand(&k);
	k.src = target_kernel_types(c, pp->loc);
	if (!k.src)
		return -1;
	k.dw = target_kernel_dwarf(c, pp->loc);
	return expand_in(&k);
}

/* ------------------------------------------------------------- build */

static void var_cb(const char *name, const struct ktype *type,
		   const struct kloc *loc, bool is_param, void *arg)
{
	struct prov_ctx *c = ((void **)arg)[0];
	struct kfn *k = ((void **)arg)[1];
	struct fvar *v = arena_alloc(c->s->arena, sizeof(*v));

	v->name = arena_strdup(c->s->arena, name);
	v->type = type;
	v->loc = *loc;
	v->is_param = is_param;
	vec_push(c->s->arena, &k->vars, v);
}

static void first_line_cb(const char *func, const char *file, int line,
			  unsigned long offset, void *arg)
{
	struct kfn *k = arg;

	(void)file;
	(void)line;
	if (k->sym)
		return;
	k->sym = func;
	k->offset = offset;
}

/* A line probe: where FUNC@FILE:LINE is. */
static int build_line(struct prov_ctx *c, struct kfn *k, struct kdwarf *dw,
		      const struct fspec *sp, struct loc loc)
{
	void *args[2] = { c, k };

	k->sym = NULL;
	kdwarf_lines(dw, sp->func, sp->file, sp->lo, sp->lo, first_line_cb, k);
	if (!k->sym) {
		prov_error(c, loc, "no code at %s@%s:%d", sp->func,
			   sp->file ? sp->file : "*", sp->lo);
		return -1;
	}
	k->sym = arena_strdup(c->s->arena, k->sym);
	kdwarf_vars_at(dw, sp->func, k->offset, var_cb, args);
	return 0;
}

/* An address that cannot be probed is an error, unless the point is
 * optional ('?', '!'): then it resolves to nothing.
 */
static int __attribute__((format(printf, 3, 4)))
addr_error(struct prov_ctx *c, struct loc loc, const char *fmt, ...)
{
	const char *msg;
	va_list ap;

	if (c->optional)
		return -1;
	va_start(ap, fmt);
	msg = arena_vprintf(c->s->arena, fmt, ap);
	va_end(ap);
	prov_error(c, loc, "%s", msg);
	return -1;
}

/* An address in the middle of an instruction makes a kprobe fail or,
 * worse, corrupt the instruction; the line table says where statements
 * start (the established tool's check, which -g turns into a warning).
 */
static int addr_boundary(struct prov_ctx *c, const struct kaddr *a,
			 uint64_t addr, struct loc loc)
{
	const char *hint = " (no line information there)";

	if (a->row == addr)
		return 0;
	if (a->row)
		hint = arena_printf(c->s->arena, " (try 0x%" PRIx64 ")",
				    a->row);
	if (!c->s->opt.guru)
		return addr_error(c, loc, "address 0x%" PRIx64 " does not "
				  "match the beginning of a statement%s",
				  addr, hint);
	if (!c->quiet && !c->optional)
		diag_warn(c->s, loc, "address 0x%" PRIx64 " does not match "
			  "the beginning of a statement%s", addr, hint);
	return 0;
}

/* Where kernel.function(ADDR) probes: the innermost inlined copy of a
 * function holding ADDR unless .call, .exported or .return ask for a
 * real function, else the function holding it, at its entry (as the
 * established tool does); code without DWARF (assembler) untyped.
 */
static const struct kplace *addr_function(struct kfn *k,
					  const struct probe_point *pp,
					  struct kaddr *a)
{
	if (a->has_inline && !k->ret && !pp_comp_of(pp, intern("call")) &&
	    !pp_comp_of(pp, intern("exported")))
		return &a->inline_entry;
	if (a->has_func) {
		k->at_entry = true;
		k->sig = a->func;
		return &a->entry;
	}
	k->typed = false;
	a->at.offset = 0;
	return &a->at;
}

/* kernel.statement(ADDR) and kernel.function(ADDR) as symbol + offset,
 * with what DWARF places there.
 */
static int addr_build(struct prov_ctx *c, struct derived_probe *dp,
		      struct kfn *k, bool stmt)
{
	const struct probe_point *pp = dp->pp;
	const struct pp_comp *fc = pp_comp_of(pp, intern(stmt ? "statement" :
							 "function"));
	struct kdwarf *dw = target_kernel_dwarf(c, pp->loc);
	void *args[2] = { c, k };
	const struct kplace *at;
	struct kaddr a;
	int64_t v;

	if (!dw || !pp_arg_num(fc->arg, &v))
		return -1;
	dp->name = intern(addr_text(c->s->arena, pp, fc));
	k->src_name = kdwarf_src(dw)->ops->name;
	if (kdwarf_addr(dw, (uint64_t)v, &a))
		return addr_error(c, fc->arg->loc, "address 0x%" PRIx64
				  " is in no function of the kernel: give an "
				  "address of vmlinux (nm, System.map), not of "
				  "the running kernel (/proc/kallsyms)",
				  (uint64_t)v);
	if (stmt && addr_boundary(c, &a, (uint64_t)v, fc->arg->loc))
		return -1;
	at = stmt ? &a.at : addr_function(k, pp, &a);
	if (at->shared)
		return addr_error(c, fc->arg->loc, "address 0x%" PRIx64 " is "
				  "in '%s', a name several kernel functions "
				  "share: kprobes, placed by name, cannot tell "
				  "them apart", (uint64_t)v, at->sym);
	if (pp_comp_of(pp, intern("exported")) &&
	    !target_exported(c, pp->loc, at->sym))
		return addr_error(c, fc->arg->loc, "function '%s' holding "
				  "address 0x%" PRIx64 " is not exported",
				  at->sym, (uint64_t)v);
	k->sym = at->sym;
	k->offset = at->offset;
	if (k->typed)
		kdwarf_vars_at(dw, k->sym, k->offset, var_cb, args);
	return 0;
}

/* The kernel's name of a module, which "mod:sym" for kprobes needs. */
static const char *module_name(struct prov_ctx *c, const char *m)
{
	char *canon;

	if (!m)
		return NULL;
	canon = arena_strdup(c->s->arena, m);
	kmod_canon(canon);
	return canon;
}

static void clone_cb(const char *clone, void *arg)
{
	struct prov_ctx *c = ((void **)arg)[0];
	struct kfn *k = ((void **)arg)[1];

	vec_push(c->s->arena, &k->clones,
		 (void *)arena_strdup(c->s->arena, clone));
}

/* A kernel function with no symbol of its own but clones the compiler
 * made of it (foo.isra.0, foo.constprop.0, foo.part.0): the probe is on
 * each of them.  A clone may take its parameters in other registers,
 * so the calling convention no longer says where they are.
 */
static void use_clones(struct prov_ctx *c, struct kfn *k)
{
	const struct ksyms *syms;
	void *args[2] = { c, k };

	if (k->module || k->offset)
		return;
	syms = target_kernel_symbols(c->s);
	if (!syms || ksyms_has(syms, k->sym))
		return;
	ksyms_clones(syms, k->sym, clone_cb, args);
	if (k->clones.n)
		k->at_entry = false;
}

/* .callee(G): a probe on G's entry, typed as kernel.function(G),
 * that only runs when G returns into one of the call sites.
 */
static int build_callee(struct prov_ctx *c, struct kfn *k,
			const struct ksrc *src, struct kdwarf *dw,
			const struct kinline *in)
{
	void *args[2] = { c, k };
	struct kfunc f;
	int i;

	k->sym = in->callee;
	k->caller = in->caller;
	if (!src->ops->func(src, in->caller, &f) && f.file && f.line)
		k->caller_decl = arena_printf(c->s->arena, "%s@%s:%d",
					      in->caller, f.file, f.line);
	k->paths = in->paths;
	for (i = 0; i < in->paths->n; i++) {
		const struct kcallpath *p = in->paths->items[i];

		if (p->depth > k->depth)
			k->depth = p->depth;
	}
	k->at_entry = true;
	if (src->ops->func(src, k->sym, &k->sig)) {
		k->typed = false;
		return 0;
	}
	if (dw)
		kdwarf_vars_at(dw, k->sym, 0, var_cb, args);
	return 0;
}

static int kfn_build(struct prov_ctx *c, struct derived_probe *dp)
{
	const struct probe_point *pp = dp->pp;
	struct kfn *k = arena_alloc(c->s->arena, sizeof(*k));
	bool stmt = pp_comp_of(pp, intern("statement")) != NULL;
	const char *text = comp_str(pp, stmt ? "statement" : "function");
	const struct ksrc *src;
	struct kdwarf *dw;
	struct fspec sp;

	dp->priv = k;
	k->module = module_name(c, comp_str(pp, "module"));
	k->ret = pp_comp_of(pp, intern("return")) != NULL;
	dp->returns = k->ret;
	k->typed = !is_kprobe_family(pp);
	/* from a pattern, an optional point: failures are skipped */
	k->must = !c->optional;
	if (pp_comp_of(pp, intern("maxactive")) &&
	    (!pp_num(pp, intern("maxactive"), &k->maxactive) ||
	     k->maxactive < 1 || k->maxactive > 4096)) {
		prov_error(c, pp->loc, "maxactive must be between 1 and 4096");
		return -1;
	}
	if (pp_comp_of(pp, intern("absolute")))
		return absolute_build(c, dp, k);
	if (!text)
		return addr_build(c, dp, k, stmt);
	if (!k->typed) {
		k->sym = text;
		return 0;
	}
	if (!fspec_parse(c->s->arena, text, false, &sp))
		return -1;
	k->sym = sp.func;
	src = k->module ? target_module_types(c, pp->loc, k->module) :
			  target_kernel_types(c, pp->loc);
	if (!src)
		return -1;
	k->src_name = src->ops->name;
	dw = k->module ? target_module_dwarf(c, pp->loc, k->module) :
			 target_kernel_dwarf(c, pp->loc);
	if (pp->prov_data) {
		const struct kinline *in = pp->prov_data;
		void *args[2] = { c, k };

		if (in->file && in->line)
			k->decl = arena_printf(c->s->arena, "%s@%s:%d",
					       sp.func, in->file, in->line);
		if (in->callee)
			return build_callee(c, k, src, dw, in);
		k->sym = in->caller;
		k->offset = in->offset;
		if (in->label)
			kdwarf_vars_at(dw, in->caller, in->offset, var_cb,
				       args);
		else
			kdwarf_inline_vars_at(dw, in->caller, in->offset,
					      sp.func, var_cb, args);
		return 0;
	}
	if (sp.lines)
		return dw ? build_line(c, k, dw, &sp, pp->loc) : -1;
	k->at_entry = true;
	/* not .return, a statement or a module's function (kprobes
	 * follow a module's loads by name)
	 */
	k->ftrace = !k->ret && !stmt && !k->module;
	if (src->ops->func(src, k->sym, &k->sig)) {
		k->typed = false;	/* symbol only */
		use_clones(c, k);
		return 0;
	}
	if (dw) {
		void *args[2] = { c, k };

		kdwarf_vars_at(dw, k->sym, 0, var_cb, args);
	}
	use_clones(c, k);
	return 0;
}

/* ---------------------------------------------------- target variables */

/* Where DWARF says v is, or NULL (and why) when it is not there. */
/* v is the value a register had at the entry of its function: a
 * kprobe there keeps it for the task, and the probe reads it back.
 * Not in a .return probe, whose values come from its own entry.
 */
static struct tref *entry_tref(struct prov_ctx *c, struct kfn *k,
			       const struct fvar *v, const char **why)
{
	static int next;
	struct tref *r;
	struct kev *ev = NULL;
	int i;

	if (k->ret || k->absolute) {
		*why = v->loc.why;
		return NULL;
	}
	for (i = 0; i < k->evs.n && !ev; i++) {
		struct kev *e = k->evs.items[i];

		if (!strcmp(e->sym, v->loc.symbol) &&
		    !strcmp(e->reg, v->loc.reg))
			ev = e;
	}
	if (!ev) {
		ev = arena_alloc(c->s->arena, sizeof(*ev));
		ev->sym = v->loc.symbol;
		ev->reg = v->loc.reg;
		ev->cname = arena_printf(c->s->arena, "stp_kentry_%d", next++);
		vec_push(c->s->arena, &k->evs, ev);
	}
	r = arena_alloc(c->s->arena, sizeof(*r));
	r->base = TRB_KENTRY;
	r->reg = ev->cname;
	r->sp_off = v->loc.offset;
	r->in_mem = v->loc.deref;
	r->type = r->final = v->type;
	return r;
}

static struct tref *tref_of_var(struct prov_ctx *c, struct kfn *k,
				const struct fvar *v, const char **why)
{
	if (v->loc.kind == KLOC_ENTRY)
		return entry_tref(c, k, v, why);
	if (v->loc.kind == KLOC_STATIC && !k->module)
		return target_kernel_static(c, v->type, v->loc.symbol,
					    v->loc.offset, why);
	return target_of_loc(c->s->arena, v->type, &v->loc, why);
}

/* $$parms and friends: every named parameter, local (or the return
 * value), each its own tref with no steps; NULL for one that is not
 * available at the address (printed as name=?).
 */
static int bind_list(struct prov_ctx *c, struct kfn *k, struct expr *e)
{
	struct arena *a = c->s->arena;
	bool parms = strcmp(e->name, "$$locals") != 0;
	bool locals = strcmp(e->name, "$$parms") != 0;
	struct tref *r = target_list(c, e, KFUNC_MAX_PARAMS + k->vars.n + 1);
	const char *why;
	int i;

	if (!r)
		return -1;
	if (!strcmp(e->name, "$$return")) {
		if (!k->ret) {
			prov_error(c, e->loc, "$$return is only available in "
				   ".return probes");
			return -1;
		}
		if (k->sig.ret && k->sig.ret->kind != KT_VOID) {
			struct tref *t = arena_alloc(a, sizeof(*t));

			t->base = TRB_RETURN;
			t->type = t->final = k->sig.ret;
			r->list_names[0] = "return";
			r->list[r->nlist++] = t;
		}
		return 0;
	}
	for (i = 0; parms && k->at_entry && i < k->sig.nparams; i++) {
		if (!*k->sig.params[i].name)
			continue;
		r->list_names[r->nlist] = k->sig.params[i].name;
		/* NULL, shown as name=?, for one we cannot find */
		r->list[r->nlist++] = target_param(a, &k->sig, i, &why);
	}
	for (i = 0; i < k->vars.n; i++) {
		const struct fvar *v = k->vars.items[i];

		if (v->is_param ? !parms || k->at_entry : !locals)
			continue;
		r->list_names[r->nlist] = v->name;
		r->list[r->nlist++] = tref_of_var(c, k, v, &why);
	}
	return 0;
}

/* $name from what DWARF placed at a statement or inline instance, or
 * a local at a function's entry.  1 if found (bound or reported).
 */
static int bind_var(struct prov_ctx *c, struct kfn *k, struct expr *e,
		    int *rc)
{
	const char *why = NULL;
	struct tref *r;
	int i;

	for (i = 0; i < k->vars.n; i++) {
		const struct fvar *v = k->vars.items[i];

		if (strcmp(v->name, e->name + 1) ||
		    (k->at_entry && v->is_param))
			continue;
		r = tref_of_var(c, k, v, &why);
		if (!r) {
			prov_error(c, e->loc, "'%s' is not available: %s",
				   e->name, why);
			*rc = -1;
		} else {
			*rc = target_bind(c, e, r);
		}
		return 1;
	}
	return 0;
}

static int kfn_resolve_target(struct prov_ctx *c, struct derived_probe *dp,
			      struct expr *e)
{
	struct kfn *k = dp->priv;
	const char *why;
	struct tref *r;
	int i, rc = 0;

	if (k->absolute) {
		prov_error(c, e->loc, "probes on absolute addresses have no "
			   "target variables: read registers with "
			   "register(\"NAME\")");
		return -1;
	}
	if (!k->typed && k->src_name && k->module) {
		prov_error(c, e->loc, "no type information for function '%s' "
			   "in the %s of module %s: its context variables "
			   "need its debuginfo (DWARF)", k->sym, k->src_name,
			   k->module);
		return -1;
	}
	if (!k->typed && k->src_name) {
		prov_error(c, e->loc, "no type information for kernel "
			   "function '%s' in the kernel's %s: its context "
			   "variables need debuginfo (DWARF)", k->sym,
			   k->src_name);
		return -1;
	}
	if (!k->typed && k->module) {
		prov_error(c, e->loc, "kprobe.module probes have no target "
			   "variables: use module(\"%s\").function(\"%s\")",
			   k->module, k->sym);
		return -1;
	}
	if (!k->typed) {
		prov_error(c, e->loc, "kprobe.function probes have no target "
			   "variables: use kernel.function(\"%s\")", k->sym);
		return -1;
	}
	if (target_is_list(e->name)) {
		if (bind_list(c, k, e))
			return -1;
		if (k->ret && !c->at_entry && strcmp(e->name, "$$return"))
			prov_snapshot_at_entry(c, dp, e);
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
	if (bind_var(c, k, e, &rc)) {
		if (!rc && k->ret && !c->at_entry)
			prov_snapshot_at_entry(c, dp, e);
		return rc;
	}
	for (i = 0; k->at_entry && i < k->sig.nparams; i++)
		if (*k->sig.params[i].name &&
		    !strcmp(k->sig.params[i].name, e->name + 1))
			break;
	if (!k->at_entry || i == k->sig.nparams) {
		struct strbuf sb;

		sb_init(&sb);
		target_list_vars(&sb, &k->sig, k->at_entry, &k->vars);
		prov_error(c, e->loc, "unable to find '%s' at %s (alternatives:"
			   "%s)", e->name, dp->name, sb.buf ? sb.buf : " none");
		sb_free(&sb);
		return -1;
	}
	r = target_param(c->s->arena, &k->sig, i, &why);
	if (!r) {
		prov_error(c, e->loc, "%s", why);
		return -1;
	}
	if (target_bind(c, e, r))
		return -1;
	if (k->ret && !c->at_entry)
		prov_snapshot_at_entry(c, dp, e);
	return 0;
}

static int kfn_resolve_entry(struct prov_ctx *c, struct derived_probe *dp,
			     struct expr *e)
{
	prov_save_at_entry(c, dp, e, e->a);
	return 0;
}

/* name with the first "functor(\"text\")" after it as "functor(\"with\")". */
static const char *replace_arg(struct arena *a, const char *name,
			       const char *functor, const char *text,
			       const char *with)
{
	const char *q = arena_printf(a, "%s(\"%s\")", functor, text);
	const char *at = with ? strstr(name, q) : NULL;

	if (!at)
		return name;
	return arena_printf(a, "%.*s%s(\"%s\")%s", (int)(at - name), name,
			    functor, with, at + strlen(q));
}

/* A callee as the established tool lists it, both functions with
 * their file and line: function("F@FILE:LINE").callee("G@FILE:LINE").
 */
static const char *callee_list_name(const struct derived_probe *dp,
				    struct arena *a)
{
	const struct kfn *k = dp->priv;
	const char *name = replace_arg(a, dp->name, "function", k->caller,
				       k->caller_decl);

	if (!k->typed || !k->sig.file || !k->sig.line)
		return name;
	return replace_arg(a, name, ".callee", k->sym,
			   arena_printf(a, "%s@%s:%d", k->sym, k->sig.file,
					k->sig.line));
}

/* With DWARF, a function is listed with its file and line, as
 * kernel.function("vfs_read@fs/read_write.c:450").
 */
static const char *kfn_list_name(const struct derived_probe *dp,
				 struct arena *a)
{
	const struct kfn *k = dp->priv;
	const char *q = arena_printf(a, "function(\"%s\")",
				     k->sym ? k->sym : "");
	const char *at = k->sym ? strstr(dp->name, q) : NULL;

	if (k->paths)
		return callee_list_name(dp, a);
	if (k->decl) {		/* an inlined copy, by its declaration */
		q = arena_printf(a, "function(\"%.*s\")",
				 (int)strcspn(k->decl, "@"), k->decl);
		at = strstr(dp->name, q);
		return !at ? dp->name :
		       arena_printf(a, "%.*sfunction(\"%s\")%s",
				    (int)(at - dp->name), dp->name, k->decl,
				    at + strlen(q));
	}
	if (!k->at_entry || !k->sig.file || !k->sig.line || !at)
		return dp->name;
	return arena_printf(a, "%.*sfunction(\"%s@%s:%d\")%s",
			    (int)(at - dp->name), dp->name, k->sym,
			    k->sig.file, k->sig.line, at + strlen(q));
}

static void kfn_list_vars(const struct derived_probe *dp, struct strbuf *sb)
{
	const struct kfn *k = dp->priv;

	if (!k->typed)
		return;
	if (k->ret && k->sig.ret && k->sig.ret->kind != KT_VOID)
		sb_printf(sb, " $return:%s", ktype_name(k->sig.ret));
	target_list_vars(sb, &k->sig, k->at_entry, &k->vars);
}

/* ------------------------------------------------------------ pass 3 */

static const char *kfn_probe_type(const struct derived_probe *dp)
{
	const struct kfn *k = dp->priv;

	return k->ret ? "STP_PROBE_KRETPROBE" : "STP_PROBE_KPROBE";
}

/* Whether the runtime may put probe k on the shared ftrace_ops: not
 * with registers kept at the entry for it (a kprobe there must run
 * before its handler, and two ftrace users of one address run in no
 * set order), nor under -DSTAP_USE_KPROBES.
 */
static bool uses_ftrace(struct session *s, const struct kfn *k)
{
	int i;

	if (!k->ftrace || k->offset || k->evs.n)
		return false;
	for (i = 0; i < s->opt.defines.n; i++) {
		const char *d = s->opt.defines.items[i];

		if (!strncmp(d, "STAP_USE_KPROBES", 16) &&
		    (!d[16] || d[16] == '='))
			return false;
	}
	return true;
}

/* Whether dp's rows of stp_kprobes fit the one-line STP_KP form. */
static bool plain_entry(const struct derived_probe *dp)
{
	const struct kfn *k = dp->priv;

	return !k->absolute && !k->ret && !k->maxactive &&
	       !dp->entry_exprs.n;
}

/* One entry of stp_kprobes: dp's probe on symbol sym, run by cb. */
static void emit_kprobe(struct emitter *em, struct strbuf *d,
			const struct derived_probe *dp, const char *sym,
			const char *cb)
{
	const struct kfn *k = dp->priv;
	struct kdwarf *dw = NULL;
	bool ftrace = uses_ftrace(emit_session(em), k);
	bool noregs = ftrace && emit_probe_lean(em, dp) && !k->paths;
	bool anchored = false;
	uint64_t addr;
	int64_t off = 0;

	if (ftrace) {
		/* where it is, so the runtime need not look it up */
		dw = target_kernel_dwarf_loaded(emit_session(em));
		anchored = dw && !kdwarf_kprobe_addr(dw, sym, &addr) &&
			   !target_kernel_anchor_off(dw, addr, &off);
	}
	if (plain_entry(dp)) {
		const char *fl = arena_printf(emit_session(em)->arena,
			"%s%s", noregs ? " | STP_KP_LEAN" : ftrace ?
			" | STP_KP_FTRACE" : "", k->must ? " | STP_KP_MUST" :
			"");

		sb_printf(d, "\t%s(\"%s%s%s\", ", k->offset ? "STP_KP_OFF" :
			  anchored ? "STP_KP_AT" : "STP_KP",
			  k->module ? k->module : "", k->module ? ":" : "",
			  sym);
		if (k->offset)
			sb_printf(d, "%#lx, ", k->offset);
		sb_printf(d, "%d, %s, %s", dp->index, cb, *fl ? fl + 3 : "0");
		if (anchored && !k->offset)
			sb_printf(d, ", %" PRId64 "L", off);
		sb_puts(d, "),\n");
		return;
	}
	if (k->absolute)
		sb_printf(d, "\t{\n\t\t.addr = %#" PRIx64 "UL,\n"
			  "\t\t.probe = %s,\n", k->addr,
			  emit_probe_ref(em, dp));
	else
		sb_printf(d, "\t{\n\t\t.symbol = \"%s%s%s\",\n"
			  "\t\t.probe = %s,\n", k->module ?
			  k->module : "", k->module ? ":" : "",
			  sym, emit_probe_ref(em, dp));
	if (k->offset)
		sb_printf(d, "\t\t.offset = %#lx,\n", k->offset);
	if (k->ret)
		sb_printf(d, "\t\t.ret = true,\n"
			  "\t\t.krp.handler = %s,\n", cb);
	else
		sb_printf(d, "\t\t.krp.kp.pre_handler = %s,\n", cb);
	if (k->ret)
		sb_printf(d, "\t\t.krp.entry_handler = "
			  "stp_kp_%d_entry,\n", dp->index);
	if (k->must)
		sb_puts(d, "\t\t.must = true,\n");
	if (ftrace) {
		sb_puts(d, "\t\t.ftrace = true,\n");
		if (anchored)
			sb_printf(d, "\t\t.anchor_off = %" PRId64 "L,\n"
				  "\t\t.anchored = true,\n", off);
		/* a lean handler reads no register; .call paths do */
		if (noregs)
			sb_puts(d, "\t\t.noregs = true,\n");
	}
	if (k->maxactive)
		sb_printf(d, "\t\t.maxactive = %" PRId64 ",\n",
			  k->maxactive);
	if (dp->entry_exprs.n)
		sb_printf(d, "\t\t.data_size = sizeof(struct "
			  "stp_entry_%d),\n", dp->index);
	sb_puts(d, "\t},\n");
}

/* A .return probe's entry handler, which every kretprobe has: nonzero
 * (no return probe armed) inside another function probe's handler on
 * this CPU, as an entry probe drops its hit there (a return would find
 * the probe context busy); a .callee's filter (a call from elsewhere
 * arms no return probe); the @entry values.
 */
static void emit_entry_handler(struct strbuf *d,
			       const struct derived_probe *dp, int n)
{
	const struct kfn *k = dp->priv;

	sb_printf(d, "static int stp_kp_%d_entry(struct kretprobe_instance "
		  "*ri,\n\t\t\t  struct pt_regs *regs)\n{\n"
		  "\tint rc = 1;\n\n"
		  "\tif (!_stp_kprobe_enter())\n\t\tgoto out;\n", n);
	if (k->paths)
		sb_printf(d, "\tif (!_stp_kcalled_via(regs, stp_kp_%d_paths, "
			  "%d, %d))\n\t\tgoto out;\n", n, k->paths->n,
			  k->depth);
	if (dp->entry_exprs.n)
		sb_printf(d, "\trc = __stp_probe_run(&stp_entry_probe_%d, "
			  "stp_probe_%d_entry,\n\t\t\t     regs, ri, "
			  "NULL, STAP_SESSION_RUNNING) ? 1 : 0;\n", n, n);
	else
		sb_puts(d, "\trc = 0;\n");
	sb_puts(d, "out:\n\t_stp_kprobe_busy_dec();\n\treturn rc;\n}\n\n");
}

/* FNV-1a, as the runtime hashes the names it looks up. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

/* The calls a .callee probe must be reached by: per path, the places
 * where each level of the stack may return, as symbol + offset (level
 * 0, the callee's own return, first); then the paths over them.
 */
static void emit_call_sites(struct strbuf *d, const struct kfn *k, int n)
{
	int i, j, l;

	sb_printf(d, "static const struct stp_kcall stp_kp_%d_from[] = {\n",
		  n);
	for (i = 0; i < k->paths->n; i++) {
		const struct kcallpath *p = k->paths->items[i];

		for (l = 0; l < p->depth; l++)
			for (j = 0; j < p->levels[l].n; j++) {
				const struct kcallsite *cs =
					p->levels[l].items[j];

				sb_printf(d, "\t{ \"%s\", %#lx, %d, %#x },\n",
					  cs->ret.sym, cs->ret.offset, l,
					  name_hash(cs->ret.sym));
			}
	}
	sb_puts(d, "};\n\n");
	prov_emit_callee_paths(d, k->paths, "stp_kpath", "stp_kp", n);
}

/* The registers kept at a function's entry for dp: each its table and
 * the kprobe handler that fills it.
 */
static void emit_kentry_decls(struct strbuf *d, const struct kfn *k)
{
	int i;

	for (i = 0; i < k->evs.n; i++) {
		const struct kev *ev = k->evs.items[i];

		sb_printf(d, "static struct stp_kentry %s = "
			  "STP_KENTRY_INIT(%s);\n\n", ev->cname, ev->cname);
		sb_printf(d, "static int %s_put(struct kprobe *kp, "
			  "struct pt_regs *regs)\n{\n"
			  "\t_stp_kentry_put(&%s, regs->%s);\n"
			  "\treturn 0;\n}\n\n", ev->cname, ev->cname, ev->reg);
	}
}

static void emit_kentry_probes(struct emitter *em, struct strbuf *d,
			       const struct derived_probe *dp)
{
	const struct kfn *k = dp->priv;
	int i;

	for (i = 0; i < k->evs.n; i++) {
		const struct kev *ev = k->evs.items[i];

		sb_printf(d, "	{\n\t\t.symbol = \"%s%s%s\",\n"
			  "\t\t.probe = %s,\n"
			  "\t\t.krp.kp.pre_handler = %s_put,\n",
			  k->module ? k->module : "", k->module ? ":" : "",
			  ev->sym, emit_probe_ref(em, dp), ev->cname);
		if (k->must)
			sb_puts(d, "\t\t.must = true,\n");
		sb_puts(d, "\t},\n");
	}
}


/* The runtime's STP_FTRACE_MIN (runtime/stp_ftrace.c): fewer entry
 * probes than this stay kprobes.
 */
static long ftrace_min(struct session *s)
{
	long min = 32;
	int i;

	for (i = 0; i < s->opt.defines.n; i++) {
		const char *d = s->opt.defines.items[i];

		if (!strncmp(d, "STP_FTRACE_MIN=", 15))
			min = strtol(d + 15, NULL, 0);
	}
	return min;
}

/* stap -v: how many probes ask for each mechanism, and with -vv the
 * mechanism of each.  ftrace is what the module asks for: a function
 * the running kernel's ftrace has no record of stays a kprobe.
 */
static void say_mechanisms(struct emitter *em, struct vec *dps)
{
	static bool said;	/* pass 3 emits the module twice */
	struct session *s = emit_session(em);
	int i, nf = 0, nfl = 0, nk = 0, nr = 0, nft = 0;

	if (said || (s->opt.verbose < 1 && s->opt.pass_verbose[2] < 1))
		return;
	said = true;
	for (i = 0; i < dps->n; i++) {
		const struct kfn *k = ((struct derived_probe *)
				       dps->items[i])->priv;

		if (!k->ret && uses_ftrace(s, k))
			nft += k->clones.n ? k->clones.n : 1;
	}
	for (i = 0; i < dps->n; i++) {
		const struct derived_probe *dp = dps->items[i];
		const struct kfn *k = dp->priv;
		bool ft = uses_ftrace(s, k) && nft >= ftrace_min(s);
		const char *how = k->ret ? "kretprobe" : ft ? "ftrace" :
				  "kprobe";
		int w = k->clones.n ? k->clones.n : 1;

		if (k->ret)
			nr += w;
		else if (ft)
			nf += w;
		else
			nk += w;
		if (ft && emit_probe_lean(em, dp) && !k->paths)
			nfl += w;
		nk += k->evs.n;
		if (s->opt.verbose >= 2 || s->opt.pass_verbose[2] >= 2)
			fprintf(stderr, "%s: %s\n", dp->name, how);
	}
	fprintf(stderr, "Function probes: %d through ftrace (kprobes where "
		"the kernel's ftrace cannot carry them; %d of them lean, "
		"without saved registers), %d kprobes, %d kretprobes\n", nf,
		nfl, nk, nr);
}

/* dp's callback, named name, running its handler for the probe probe
 * (C: the probe's own "&stp_probes[N]", or stp_kprobe_probe(kp) in a
 * callback several probes share).  The runtime's fast path is inline.
 */
static void emit_callback(struct emitter *em, struct strbuf *d,
			  struct derived_probe *dp, const char *name,
			  const char *probe)
{
	const struct kfn *k = dp->priv;
	const char *ri = k->ret ? "ri" : "NULL";
	const char *handler = emit_probe_handler(em, dp);
	const char *flags;
	bool pc;

	if (!k->ret)
		sb_printf(d, "static int %s(struct kprobe *kp, "
			  "struct pt_regs *regs)\n{\n", name);
	else
		sb_printf(d, "static int %s(struct "
			  "kretprobe_instance *ri,\n\t\t    "
			  "struct pt_regs *regs)\n{\n", name);
	/* the handler sees the probed address as the pc (addr(),
	 * backtraces), not the byte after the breakpoint that the kernel
	 * leaves there, nor ftrace's return address into the function; it
	 * is put back for the kernel (a lean handler reads no register).
	 * An entry (kprobe or ftrace) is dropped inside another function
	 * probe's handler on this CPU, as the kernel drops a kprobe hit
	 * while a kprobe handler runs; a return runs (its entry was not
	 * dropped) and keeps the count raised.
	 */
	pc = !k->ret && !emit_probe_lean(em, dp);
	flags = emit_probe_run_flags(em, dp);
	if (!strcmp(flags, "0"))
		flags = "";
	if (pc)
		sb_puts(d, "\tunsigned long ip = "
			"instruction_pointer(regs);\n\n");
	if (!k->ret)
		sb_puts(d, "\tif (!_stp_kprobe_enter())\n"
			"\t\tgoto out;\n");
	else
		sb_puts(d, "\t_stp_kprobe_busy_inc();\n");
	if (k->paths && !k->ret)
		sb_printf(d, "\tif (!_stp_kcalled_via(regs, "
			  "stp_kp_%d_paths, %d, %d))\n"
			  "\t\tgoto out;\n", dp->index, k->paths->n, k->depth);
	if (pc)
		sb_puts(d, "\tinstruction_pointer_set(regs, "
			"(unsigned long)kp->addr);\n");
	if (emit_probe_lean(em, dp))
		sb_printf(d, "\t__stp_probe_run_lean(%s, %s_lean,\n"
			  "\t\t\t     regs, %s, NULL, STAP_SESSION_RUNNING, "
			  "true);\n", probe, handler, ri);
	else	/* preemption is off, regs are the kernel's */
		sb_printf(d, "\t__stp_probe_run_flags(%s, %s, "
			  "regs, %s, NULL,\n\t\t\t      "
			  "STAP_SESSION_RUNNING,\n\t\t\t      "
			  "%s%sSTP_RUN_KERNEL);\n",
			  probe, handler, ri, flags, *flags ? " | " : "");
	if (pc)
		sb_puts(d, "\tinstruction_pointer_set(regs, ip);\n");
	if (!k->ret)
		sb_puts(d, "out:\n");
	sb_puts(d, "\t_stp_kprobe_busy_dec();\n\treturn 0;\n}\n\n");
}

/* Entry probes that run the same handler the same way share one
 * callback, which finds its probe from the kprobe (a wildcard's
 * thousands of functions: one callback); a probe alone in its kind
 * keeps its own, with its probe as a constant.  cbs[i]: the name of
 * the i-th probe's callback.
 */
static void emit_callbacks(struct emitter *em, struct strbuf *d,
			   struct vec *dps, const char **cbs)
{
	struct arena *a = emit_session(em)->arena;
	struct htab kinds = { .arena = a };
	const char **keys = arena_alloc(a, sizeof(*keys) *
					(size_t)(dps->n + 1));
	int i, *count;
	bool fresh;

	for (i = 0; i < dps->n; i++) {
		struct derived_probe *dp = dps->items[i];
		const struct kfn *k = dp->priv;
		struct strbuf t;
		void **slot;

		if (k->ret || k->paths)
			continue;
		sb_init(&t);
		emit_callback(em, &t, dp, "#", "stp_kprobe_probe(kp)");
		keys[i] = arena_strdup(a, t.buf);
		sb_free(&t);
		slot = htab_slot(&kinds, keys[i], strlen(keys[i]), &fresh);
		if (fresh)
			*slot = arena_alloc(a, sizeof(int) * 2);
		count = *slot;
		if (fresh)
			count[1] = dp->index;
		count[0]++;
	}
	for (i = 0; i < dps->n; i++) {
		struct derived_probe *dp = dps->items[i];
		const struct kfn *k = dp->priv;
		int n = dp->index;

		if (k->paths)
			emit_call_sites(d, k, n);
		count = keys[i] ? htab_get(&kinds, keys[i], strlen(keys[i]))
				: NULL;
		if (count && count[0] > 1) {
			cbs[i] = arena_printf(a, "stp_kp_%d", count[1]);
			if (count[1] == n)
				emit_callback(em, d, dp, cbs[i],
					      "stp_kprobe_probe(kp)");
			continue;
		}
		cbs[i] = arena_printf(a, "stp_kp_%d", n);
		emit_callback(em, d, dp, cbs[i], emit_probe_ref(em, dp));
		if (k->ret)
			emit_entry_handler(d, dp, n);
	}
}

static void kfn_emit_group(struct emitter *em, struct vec *dps)
{
	struct strbuf *d = emit_out(em, EMIT_DECLS);
	const char **cbs = arena_alloc(emit_session(em)->arena,
				       sizeof(*cbs) * (size_t)(dps->n + 1));
	int i, total;

	emit_callbacks(em, d, dps, cbs);
	for (i = 0, total = 0; i < dps->n; i++) {
		const struct kfn *k = ((struct derived_probe *)
				       dps->items[i])->priv;

		emit_kentry_decls(d, k);
		total += (k->clones.n ? k->clones.n : 1) + k->evs.n;
	}
	sb_printf(d, "static struct stp_kprobe stp_kprobes[%d] = {\n",
		  total);
	for (i = 0; i < dps->n; i++) {
		const struct derived_probe *dp = dps->items[i];
		const struct kfn *k = dp->priv;
		int j = 0;

		do {
			const char *sym = k->clones.n ?
				vec_get(&k->clones, j) : k->sym;

			emit_kprobe(em, d, dp, sym, cbs[i]);
		} while (++j < k->clones.n);
		emit_kentry_probes(em, d, dp);
	}
	sb_puts(d, "};\n\n");
	say_mechanisms(em, dps);
	sb_printf(emit_out(em, EMIT_START),
		  "\trc = _stp_kprobes_register(stp_kprobes, %d);\n", total);
	sb_printf(emit_out(em, EMIT_STOP),
		  "\t_stp_kprobes_unregister(stp_kprobes, %d);\n", total);
}

void kfunc_probed_syms(struct session *s,
		       void (*cb)(const char *sym, void *arg), void *arg)
{
	int i, j;

	for (i = 0; i < s->probes.n; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		const struct kfn *k = dp->priv;

		if (dp->prov != &kfunc_provider || k->module || k->absolute)
			continue;
		if (k->sym)
			cb(k->sym, arg);
		for (j = 0; j < k->clones.n; j++)
			cb(vec_get(&k->clones, j), arg);
	}
}

void kfunc_probed_modules(struct session *s,
			  void (*cb)(const char *module, void *arg),
			  void *arg)
{
	int i;

	for (i = 0; i < s->probes.n; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		const struct kfn *k = dp->priv;

		if (dp->prov == &kfunc_provider && k->module && !k->absolute)
			cb(k->module, arg);
	}
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

const struct provider kfunc_provider = {
	.name = "kernel.function",
	.patterns = kfn_patterns,
	.expand = kfn_expand,
	.build = kfn_build,
	.resolve_target = kfn_resolve_target,
	.resolve_entry = kfn_resolve_entry,
	.list_name = kfn_list_name,
	.list_vars = kfn_list_vars,
	.emit_group = kfn_emit_group,
	.probe_type = kfn_probe_type,
};
