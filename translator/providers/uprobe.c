/* providers/uprobe.c - user-space probes: process("PATH") and
 * process("PATH").library("LIB") with .function(PATTERN) (.call,
 * .exported, .inline, .return, .label(NAME), .callee(NAME),
 * .callees[(N)]), .statement("FUNC@FILE:N"),
 * .mark(S) and .provider(S).mark(S) from SDT notes, and .plt(S).  Places
 * come from the file's DWARF (or its symbols alone for plain .function),
 * and each probe is a uprobe on the file at the probed instruction's
 * file offset.
 * Target variables read the user's registers and memory.
 */
#include "../emit.h"
#include "../kbuild.h"
#include "../provider.h"
#include "../session.h"
#include "../target.h"
#include "../debuginfo/dwarf.h"
#include "../debuginfo/uelf.h"
#include "fspec.h"

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum up_kind {
	UP_FUNC,	/* a function's entry (or return) */
	UP_INLINE,	/* the entry of one inlined copy */
	UP_LINE,	/* a source line */
	UP_MARK,	/* an SDT marker */
	UP_PLT,		/* a PLT entry */
};

/* A concrete place, from expand to build. */
struct upoint {
	enum up_kind kind;
	const char *path;	/* the file probed */
	uint64_t pc;		/* its link-time address */
	uint64_t sem;		/* SDT semaphore address; 0: none */
	const char *name;	/* function, marker or PLT name */
	const char *provider;	/* marker */
	const char *args;	/* marker: "-4@%edi ..." */
	bool typed;		/* UP_FUNC: sig is DWARF's */
	struct kfunc sig;
	const struct vec *paths; /* .callee: struct kcallpath *, the calls
				  * the function must be reached by */
};

/* One argument of an SDT marker: "-4@%edi", "8@-16(%rbp)", "4@$5". */
struct sdt_arg {
	struct tref *ref;	/* NULL: unsupported, why says so */
	const char *why;
};

/* What pass 3 needs for one probe. */
struct uprobe {
	struct upoint pt;
	uint64_t offset;	/* file offset of pt.pc */
	uint64_t sem_off;	/* file offset of the semaphore, 0: none */
	const char *exe;	/* library probes: only in this program */
	int64_t pid;		/* process(PID): only in this process */
	bool ret;
	bool must;
	bool at_entry;		/* parameters by the calling convention */
	bool is32;		/* an i386 file: no context variables yet */
	struct vec vars;	/* struct fvar *, from DWARF */
	struct kdwarf *dw;	/* the object's DWARF, or NULL */
	int nargs;
	struct sdt_arg *args;
};

static const char *comp_str(const struct probe_point *pp, const char *f)
{
	const struct pp_comp *c = pp_comp_of(pp, intern(f));

	return c && c->arg && c->arg->kind == EX_STR ? c->arg->str : NULL;
}

static bool has_comp(const struct probe_point *pp, const char *f)
{
	return pp_comp_of(pp, intern(f)) != NULL;
}

/* ------------------------------------------------ the files, cached */

/* The uelf of path, opened once per session; NULL after reporting. */
static struct uelf *user_object(struct prov_ctx *c, struct loc loc,
				const char *path)
{
	char *err = NULL;
	struct uelf *u = target_user_object(c->s, path, &err);

	if (!u) {
		prov_error(c, loc, "%s", err ? err : "?");
		free(err);
	}
	return u;
}

/* What to do about a file without DWARF. */
#define DWARF_ADVICE "install its debug symbols (a -dbgsym or -dbg " \
		     "package, found by build-id under /usr/lib/debug), or " \
		     "build it with -g"

/* What a point that needs DWARF says when the file has none. */
static void no_dwarf(struct prov_ctx *c, struct loc loc, const char *what,
		     const char *path)
{
	prov_error(c, loc, "%s needs the debuginfo (DWARF) of %s, which has "
		   "none: " DWARF_ADVICE, what, path);
}

/* ------------------------------------------------------------ expand */

struct ucollect {
	struct prov_ctx *c;
	const struct probe_point *pp;
	struct vec *out;
	const struct pp_comp *pcomp;	/* process("...") */
	const struct pp_comp *lcomp;	/* library("..."), or NULL */
	const struct pp_comp *fcomp;	/* function, statement, mark, plt */
	const char *prog;		/* program path, canonical */
	const char *lib;		/* library path, or NULL */
	int64_t pid;			/* process(PID), or 0 */
	struct uelf *obj;		/* the file probed */
	struct kdwarf *dw;		/* its DWARF, or NULL */
	struct fspec spec;
	const struct pp_comp *labcomp;	/* .label(GLOB), or NULL */
	const char *label;		/* the label a point is at */
	const struct pp_comp *ccomp;	/* .callee(GLOB), or NULL */
	const struct pp_comp *cscomp;	/* .callees[(N)], or NULL */
	const char *caller;		/* a callee's caller, placed */
	const char *callee;		/* the callee a point is at */
	const struct vec *paths;	/* and the ways down to it */
	bool stmt, inl, call, exported, ret;
	bool many;			/* from a pattern: failures skip */
};

/* A string argument for component oc, in place of its own (which a
 * bare .plt or process does not have: the resolved point names it).
 */
static struct expr *str_arg(struct arena *a, const struct pp_comp *oc,
			    const char *s)
{
	struct expr *e = arena_alloc(a, sizeof(*e));

	if (oc->arg)
		*e = *oc->arg;
	else
		e->loc = oc->loc;
	e->kind = EX_STR;	/* .callees(N) resolves to .callee("G") */
	e->str = arena_strdup(a, s);
	return e;
}

/* process(PID) for a bare process under -x PID. */
static struct expr *num_arg(struct arena *a, const struct pp_comp *oc,
			    int64_t v)
{
	struct expr *e = arena_alloc(a, sizeof(*e));

	e->kind = EX_NUM;
	e->loc = oc->loc;
	e->num = v;
	return e;
}

/* The user's point, with the resolved paths, the concrete function (or
 * marker, PLT entry) text and, for a marker, its provider.
 */
static struct probe_point *push_point(struct ucollect *k, const char *arg,
				      const struct upoint *up)
{
	struct arena *a = k->c->s->arena;
	struct probe_point *np = arena_alloc(a, sizeof(*np));
	struct upoint *copy = arena_alloc(a, sizeof(*copy));
	int i;

	*np = *k->pp;
	memset(&np->comps, 0, sizeof(np->comps));
	for (i = 0; i < k->pp->comps.n; i++) {
		const struct pp_comp *oc = vec_get(&k->pp->comps, i);
		struct pp_comp *nc = arena_alloc(a, sizeof(*nc));

		*nc = *oc;
		if (oc == k->pcomp && !k->pid)
			nc->arg = str_arg(a, oc, k->prog);
		else if (oc == k->pcomp && !oc->arg)
			nc->arg = num_arg(a, oc, k->pid);
		else if (oc == k->lcomp)
			nc->arg = str_arg(a, oc, k->lib);
		else if (oc == k->fcomp && arg)
			nc->arg = str_arg(a, oc, arg);
		else if (oc == k->labcomp && k->label)
			nc->arg = str_arg(a, oc, k->label);
		else if ((oc == k->ccomp || oc == k->cscomp) && k->callee) {
			/* .callees[(N)] resolves to .callee("G") */
			nc->functor = intern("callee");
			nc->arg = str_arg(a, oc, k->callee);
		}
		else if (oc->functor == intern("provider") && up->provider)
			nc->arg = str_arg(a, oc, up->provider);
		vec_push(a, &np->comps, nc);
	}
	*copy = *up;
	copy->path = uelf_path(k->obj);
	np->prov_data = copy;
	np->optional = k->many;
	vec_push(a, k->out, np);
	return np;
}

/* A function with DWARF is named with its place, as pp() and stap -l
 * show it: function("main@/src/trace.c:41").
 */
static const char *placed(struct ucollect *k, const char *name,
			  const char *file, int line)
{
	if (!file || !line)
		return name;
	return arena_printf(k->c->s->arena, "%s@%s:%d", name, file, line);
}

static void func_pc_cb(const struct kfunc *f, uint64_t pc, void *arg)
{
	struct ucollect *k = arg;
	struct upoint up = { .kind = UP_FUNC, .pc = pc, .name = f->name,
			     .typed = true, .sig = *f };

	if (!fspec_file_matches(k->c->s->arena, k->spec.file, f->file))
		return;
	push_point(k, placed(k, f->name, f->file, f->line), &up);
}

static void inline_cb(const char *name, uint64_t pc, const char *file,
		      int line, void *arg)
{
	struct ucollect *k = arg;
	struct upoint up = { .kind = UP_INLINE, .pc = pc, .name = name };

	if (!fspec_file_matches(k->c->s->arena, k->spec.file, file))
		return;
	up.sig.name = name;
	up.sig.file = file;
	up.sig.line = line;
	/* one copy of many: one that fails to register is skipped */
	push_point(k, placed(k, name, file, line), &up)->optional = true;
}

static void line_cb(const char *func, const char *file, int line,
		    uint64_t pc, void *arg)
{
	struct ucollect *k = arg;
	struct upoint up = { .kind = UP_LINE, .pc = pc, .name = func };

	push_point(k, arena_printf(k->c->s->arena, "%s@%s:%d", func, file,
				   line), &up);
}

static void sym_cb(const struct usym *s, void *arg)
{
	struct ucollect *k = arg;
	struct upoint up = { .kind = UP_FUNC, .pc = s->addr, .name = s->name };

	if (k->exported && !s->exported)
		return;
	push_point(k, s->name, &up);
}

/* The lines of one function name: FUNC@FILE:N, :LO-HI, :* or +REL. */
static void name_lines(struct ucollect *k, const char *name)
{
	struct kfunc f;
	int lo = k->spec.lo, hi = k->spec.hi;
	const char *file = k->spec.file;

	if (k->spec.rel) {
		const struct ksrc *src = kdwarf_src(k->dw);

		if (src->ops->func(src, name, &f) || !f.line)
			return;
		lo = hi = f.line + k->spec.rel;
		if (!file)
			file = f.file;
	}
	kdwarf_lines_pc(k->dw, name, file, lo, hi, line_cb, k);
}

static void name_cb(const char *name, void *arg)
{
	struct ucollect *k = arg;

	if (k->exported && !uelf_exported(k->obj, name))
		return;
	if (k->spec.lines) {
		name_lines(k, name);
		return;
	}
	if (!k->inl)
		kdwarf_func_pcs(k->dw, name, func_pc_cb, k);
}

/* A C++ name written with its scope ("ns::Point::norm"): the symbols
 * say where, DWARF what is there.
 */
static void scoped_cb(const struct usym *s, void *arg)
{
	struct ucollect *k = arg;
	struct upoint up = { .kind = UP_FUNC, .pc = s->addr, .name = s->name };
	struct kaddr a;

	if (k->exported && !s->exported)
		return;
	if (!kdwarf_addr(k->dw, s->addr, &a) && a.has_func) {
		up.typed = true;
		up.sig = a.func;
		if (!fspec_file_matches(k->c->s->arena, k->spec.file, a.func.file))
			return;
		push_point(k, placed(k, s->name, a.func.file, a.func.line),
			   &up);
	} else if (!k->spec.file) {
		push_point(k, s->name, &up);
	}
}

/* A function of the symbol table that no DWARF function holds (the C
 * runtime's _start, _init, frame_dummy; assembler): a pattern covers
 * it too, untyped.
 */
static void symtab_only_cb(const struct usym *s, void *arg)
{
	struct ucollect *k = arg;
	struct kaddr a;

	if (!kdwarf_addr(k->dw, s->addr, &a) && a.has_func)
		return;
	sym_cb(s, k);
}

static void label_cb(const struct klabel *l, void *arg)
{
	struct ucollect *k = arg;
	const struct ksrc *src = kdwarf_src(k->dw);
	struct upoint up = { .kind = UP_LINE, .pc = l->pc, .name = l->func };
	struct kfunc f;
	bool known = !src->ops->func(src, l->func, &f);

	if (k->spec.file && (!known || !fspec_file_matches(k->c->s->arena,
						     k->spec.file, f.file)))
		return;
	k->label = l->label;
	push_point(k, known ? placed(k, l->func, f.file, f.line) : l->func,
		   &up);
	k->label = NULL;
}

/* function(PATTERN).label(GLOB): each label with code, as a statement. */
static void dwarf_labels(struct ucollect *k)
{
	const char *glob = k->labcomp->arg->str;

	k->many = k->many || has_wildcard(glob);
	if (kdwarf_labels(k->dw, k->spec.func, glob, label_cb, k) > 1)
		k->many = true;
}

/* The entry of a callee, at each of its definitions in the file. */
static void callee_pc_cb(const struct kfunc *f, uint64_t pc, void *arg)
{
	struct ucollect *k = arg;
	struct upoint up = { .kind = UP_FUNC, .pc = pc, .name = f->name,
			     .typed = true, .sig = *f, .paths = k->paths };

	k->callee = placed(k, f->name, f->file, f->line);
	push_point(k, k->caller, &up);
	k->callee = NULL;
}

/* FUNC@FILE names the probed functions, not those on the way down. */
static bool callee_keep(const char *caller, void *arg)
{
	struct ucollect *k = arg;
	const struct ksrc *src = kdwarf_src(k->dw);
	struct kfunc f;

	return !k->spec.file ||
	       (!src->ops->func(src, caller, &f) &&
		fspec_file_matches(k->c->s->arena, k->spec.file, f.file));
}

/* One point per probed function and callee defined in the file (a
 * call into a library is probed in the library), with every path down.
 */
static void callee_cb(const char *caller, const char *callee,
		      const struct vec *paths, void *arg)
{
	struct ucollect *k = arg;
	const struct ksrc *src = kdwarf_src(k->dw);
	struct kfunc f;

	k->caller = src->ops->func(src, caller, &f) ? caller :
		    placed(k, caller, f.file, f.line);
	k->paths = paths;
	kdwarf_func_pcs(k->dw, callee, callee_pc_cb, k);
	k->caller = NULL;
	k->paths = NULL;
}

/* .callee(GLOB), .callees, .callees(N): the entry of each function the
 * file's call sites name, N levels down, for the calls along those
 * paths only.  0, or -1 after reporting.
 */
static int dwarf_callees(struct ucollect *k, int *tails)
{
	const char *glob = k->ccomp ? k->ccomp->arg->str : "*";
	int depth = prov_callee_depth(k->c, k->cscomp), n;

	if (!depth)
		return -1;
	if (uelf_is_32bit(k->obj)) {
		prov_error(k->c, (k->ccomp ? k->ccomp : k->cscomp)->loc,
			   "callee probes of a 32-bit (i386) program are not "
			   "supported yet (%s)", uelf_path(k->obj));
		return -1;
	}
	k->many = true;	/* a callee that cannot be probed is skipped */
	n = kdwarf_callees(k->dw, k->spec.func, glob, depth, callee_keep,
			   callee_cb, k, tails);
	if (n < 0) {
		prov_error(k->c, k->cscomp->arg->loc, ".callees(%d) of '%s' "
			   "reaches more than %d calls: give a smaller "
			   "depth", depth, k->spec.func, KDWARF_CALLEE_PATHS);
		return -1;
	}
	return 0;
}

/* function(PATTERN) and statement(PATTERN) in a file with DWARF. */
static void dwarf_functions(struct ucollect *k)
{
	const struct ksrc *src = kdwarf_src(k->dw);
	const char *func = k->spec.func;
	int n0 = k->out->n;

	if (k->labcomp) {
		dwarf_labels(k);
		return;
	}
	if (strstr(func, "::") && !k->spec.lines && !k->inl) {
		uelf_funcs_matching(k->obj, func, scoped_cb, k);
		return;
	}
	if (has_wildcard(func))
		src->ops->funcs_matching(src, func, name_cb, k);
	else
		name_cb(func, k);
	/* plain function() also probes the inlined copies (not .call,
	 * .return, .exported, which mean a real function)
	 */
	if (!k->spec.lines && !k->stmt && !k->call && !k->ret &&
	    !k->exported)
		kdwarf_inline_pcs(k->dw, func, inline_cb, k);
	/* a function without DWARF (assembler, the C runtime) by its
	 * symbol, untyped
	 */
	if (!k->spec.lines && !k->inl && !k->spec.file && has_wildcard(func))
		uelf_funcs_matching(k->obj, func, symtab_only_cb, k);
	else if (k->out->n == n0 && !k->spec.lines && !k->inl &&
		 !k->spec.file) {
		const struct usym *s = uelf_func(k->obj, func);

		if (s)
			sym_cb(s, k);
	}
}

static int no_match(struct ucollect *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Nothing matched: an error unless the point is optional. */
static int no_match(struct ucollect *k, const char *fmt, ...)
{
	struct prov_ctx *c = k->c;
	const char *msg;
	va_list ap;

	if (c->optional) {
		c->errors++;
		return -1;
	}
	va_start(ap, fmt);
	msg = arena_vprintf(c->s->arena, fmt, ap);
	va_end(ap);
	prov_error(c, k->fcomp->arg ? k->fcomp->arg->loc : k->fcomp->loc,
		   "%s", msg);
	return -1;
}

static int expand_functions(struct ucollect *k, const char *text)
{
	struct prov_ctx *c = k->c;
	const char *path = uelf_path(k->obj);
	int n0 = k->out->n, tails = 0;

	if (!fspec_parse(c->s->arena, text, true, &k->spec)) {
		prov_error(c, k->fcomp->arg->loc, "bad function pattern '%s': "
			   "expected FUNCTION[@FILE][:LINE|:FIRST-LAST|:*]",
			   text);
		return -1;
	}
	if (k->stmt && !k->spec.lines) {
		prov_error(c, k->fcomp->arg->loc, "a statement needs a line: "
			   "\"FUNCTION@FILE:LINE\"");
		return -1;
	}
	if (k->labcomp && k->spec.lines) {
		prov_error(c, k->labcomp->loc, ".label follows a function "
			   "name, without a line");
		return -1;
	}
	if ((k->ccomp || k->cscomp) && k->spec.lines) {
		prov_error(c, (k->ccomp ? k->ccomp : k->cscomp)->loc,
			   "%s follows a function name, without a line",
			   k->ccomp ? ".callee" : ".callees");
		return -1;
	}
	k->many = k->many || has_wildcard(k->spec.func) ||
		  (k->spec.file && has_wildcard(k->spec.file)) ||
		  k->spec.lo != k->spec.hi;
	k->dw = uelf_dwarf(k->obj, kbuild_cache_dir(k->c->s), NULL);
	if (k->dw && (k->ccomp || k->cscomp)) {
		if (dwarf_callees(k, &tails))
			return -1;
	} else if (k->dw) {
		dwarf_functions(k);
	} else if (k->ccomp || k->cscomp) {
		if (c->optional) {
			c->errors++;
			return -1;
		}
		prov_error(c, k->fcomp->arg->loc, "'%s' needs the debuginfo "
			   "(DWARF) of %s: the calls a function makes are "
			   "only in DWARF's call sites (DW_TAG_call_site), "
			   "and it has none: " DWARF_ADVICE,
			   pp_text(c->s->arena, k->pp), path);
		return -1;
	} else if (k->spec.file || k->spec.lines || k->inl || k->labcomp) {
		no_dwarf(c, k->fcomp->arg->loc, arena_printf(c->s->arena,
			 "'%s'", pp_text(c->s->arena, k->pp)), path);
		return -1;
	} else if (has_wildcard(k->spec.func)) {
		uelf_funcs_matching(k->obj, k->spec.func, sym_cb, k);
	} else {
		const struct usym *s = uelf_func(k->obj, k->spec.func);

		if (s)
			sym_cb(s, k);
	}
	if (k->out->n > n0 || (c->quiet && !c->why))
		return k->out->n - n0;
	if (k->spec.lines)
		return no_match(k, "no line of '%s' has code in %s", text,
				path);
	if (k->labcomp)
		return no_match(k, "no label '%s' with code in '%s' of %s",
				k->labcomp->arg->str, text, path);
	if (k->ccomp)
		return no_match(k, "no call of '%s' in '%s' of %s that DWARF "
				"describes%s", k->ccomp->arg->str, text, path,
				tails ? " (tail calls leave no return address "
				"to tell where the callee was called from)" :
				"");
	if (k->cscomp && tails)
		return no_match(k, "'%s' of %s only makes tail calls, which "
				"leave no return address to tell where the "
				"callee was called from", text, path);
	if (k->cscomp)
		return no_match(k, "no call in '%s' of %s that DWARF "
				"describes (DW_TAG_call_site naming a callee "
				"of the file): it calls nothing, only through "
				"pointers or other files, or was built "
				"without call-site information (-O0)", text,
				path);
	if (!k->dw && !uelf_has_symtab(k->obj))
		return no_match(k, "no function '%s' in %s, which has no "
				"debuginfo (DWARF) nor symbol table, only its "
				"exported functions: " DWARF_ADVICE,
				k->spec.func, path);
	return no_match(k, "no function '%s' in %s%s", k->spec.func, path,
			k->exported ? " (exported)" : k->inl ?
			" (inlined)" : !k->dw ? " (it has no debuginfo: its "
			"symbol table was searched)" : "");
}

static void sdt_cb(const struct usdt *m, void *arg)
{
	struct ucollect *k = arg;
	struct upoint up = { .kind = UP_MARK, .pc = m->pc, .sem = m->sem,
			     .name = m->name, .provider = m->provider,
			     .args = m->args };

	push_point(k, m->name, &up);
}

static int expand_marks(struct ucollect *k, const char *name)
{
	const char *provider = comp_str(k->pp, "provider");
	int n;

	k->many = k->many || has_wildcard(name) ||
		  (provider && has_wildcard(provider));
	n = uelf_sdt(k->obj, provider, name, sdt_cb, k);
	if (n || (k->c->quiet && !k->c->why))
		return n;
	return no_match(k, "no SDT marker '%s'%s%s in %s (its .note.stapsdt "
			"notes)", name, provider ? " of provider " : "",
			provider ? provider : "", uelf_path(k->obj));
}

static void plt_cb(const char *name, uint64_t addr, void *arg)
{
	struct ucollect *k = arg;
	struct upoint up = { .kind = UP_PLT, .pc = addr, .name = name };

	push_point(k, name, &up)->optional = k->many;
}

static int expand_plt(struct ucollect *k, const char *name)
{
	int n;

	k->many = k->many || !name || has_wildcard(name);
	n = uelf_plt(k->obj, name ? name : "*", plt_cb, k);
	if (n || (k->c->quiet && !k->c->why))
		return n;
	return no_match(k, "no PLT entry '%s' in %s", name ? name : "*",
			uelf_path(k->obj));
}

/* An address that cannot be probed is an error, unless the point is
 * optional.
 */
static int addr_error(struct ucollect *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int addr_error(struct ucollect *k, const char *fmt, ...)
{
	const char *msg;
	va_list ap;

	if (k->c->optional) {
		k->c->errors++;
		return -1;
	}
	va_start(ap, fmt);
	msg = arena_vprintf(k->c->s->arena, fmt, ap);
	va_end(ap);
	prov_error(k->c, k->fcomp->arg->loc, "%s", msg);
	return -1;
}

/* statement(ADDR): the instruction there, which must start a statement
 * (a warning under -g); with DWARF the variables there.
 */
static int statement_address(struct ucollect *k, uint64_t addr)
{
	struct upoint up = { .kind = UP_LINE, .pc = addr };
	struct kaddr a;
	const char *hint = " (no line information there)";

	if (!k->dw) {
		up.kind = UP_FUNC;	/* untyped: no variables */
		up.name = arena_printf(k->c->s->arena, "0x%" PRIx64, addr);
	} else if (kdwarf_addr(k->dw, addr, &a) || a.row != addr) {
		if (a.row && a.row != addr)
			hint = arena_printf(k->c->s->arena, " (try 0x%" PRIx64
					    ")", a.row);
		if (!k->c->s->opt.guru)
			return addr_error(k, "address 0x%" PRIx64 " does not "
					  "match the beginning of a "
					  "statement%s", addr, hint);
		if (!k->c->quiet && !k->c->optional)
			diag_warn(k->c->s, k->fcomp->arg->loc, "address 0x%"
				  PRIx64 " does not match the beginning of a "
				  "statement%s", addr, hint);
		up.name = a.has_func ? a.func.name : "?";
	} else {
		up.name = a.has_func ? a.func.name : "?";
	}
	push_point(k, NULL, &up);
	return 1;
}

/* function(ADDR): the entry of the function holding ADDR, or of the
 * inlined copy holding it unless .call, .exported or .return ask for a
 * real function.
 */
static int function_address(struct ucollect *k, uint64_t addr)
{
	const struct usym *s = uelf_func_at(k->obj, addr);
	struct upoint up = { .kind = UP_FUNC };
	const struct usym *in;
	struct kaddr a;

	if (!s)
		return addr_error(k, "address 0x%" PRIx64 " is in no function "
				  "of %s", addr, uelf_path(k->obj));
	if (k->exported && !s->exported)
		return addr_error(k, "function '%s' holding address 0x%" PRIx64
				  " is not exported", s->name, addr);
	up.pc = s->addr;
	up.name = s->name;
	if (k->dw && !kdwarf_addr(k->dw, addr, &a) && a.has_func) {
		in = a.has_inline ? uelf_func(k->obj, a.inline_entry.sym) :
		     NULL;
		if (in && !k->call && !k->ret && !k->exported) {
			up.kind = UP_INLINE;
			up.pc = in->addr + a.inline_entry.offset;
			up.name = a.inline_name;
		} else {
			up.typed = true;
			up.sig = a.func;
		}
	}
	push_point(k, NULL, &up);
	return 1;
}

static int expand_address(struct ucollect *k)
{
	int64_t v;

	if (!pp_arg_num(k->fcomp->arg, &v))
		return -1;
	k->dw = uelf_dwarf(k->obj, kbuild_cache_dir(k->c->s), NULL);
	if (k->stmt)
		return statement_address(k, (uint64_t)v);
	return function_address(k, (uint64_t)v);
}

/* The library of process(...).library("LIB"): a path, or a name (a
 * glob) of the program's DT_NEEDED or the library directories.
 */
static int find_lib(struct ucollect *k, struct uelf *prog)
{
	struct prov_ctx *c = k->c;
	const char *name = k->lcomp->arg->str;
	const char *const *needed;
	char *path = uelf_find_library(prog, name);
	struct strbuf sb;
	int i, n;

	if (path) {
		k->lib = arena_strdup(c->s->arena, path);
		free(path);
		k->obj = user_object(c, k->lcomp->arg->loc, k->lib);
		return k->obj ? 0 : -1;
	}
	if (c->optional) {
		c->errors++;
		return -1;
	}
	n = uelf_needed(prog, &needed);
	sb_init(&sb);
	for (i = 0; i < n; i++)
		sb_printf(&sb, "%s%s", i ? ", " : "", needed[i]);
	prov_error(c, k->lcomp->arg->loc, "no library '%s' for %s (it needs: "
		   "%s)", name, k->prog, sb.buf ? sb.buf : "none");
	sb_free(&sb);
	return -1;
}

static int expand_place(struct ucollect *k);

/* library("GLOB"): every library of the program's DT_NEEDED whose name
 * matches, each a branch whose failures are quiet.
 */
static int expand_libs(struct ucollect *k, struct uelf *prog)
{
	struct prov_ctx quiet = *k->c;
	struct prov_ctx *c = k->c;
	const char *glob = k->lcomp->arg->str;
	const char *const *needed;
	int i, nn, n = 0;
	bool many = k->many;
	struct strbuf seen;

	quiet.quiet = true;
	k->c = &quiet;
	k->many = true;
	sb_init(&seen);
	nn = uelf_needed(prog, &needed);
	for (i = 0; i < nn; i++) {
		char *path;
		int r;

		if (!glob_match(glob, needed[i]))
			continue;
		path = uelf_find_library(prog, needed[i]);
		sb_printf(&seen, "%s%s%s", seen.buf ? ", " : "", needed[i],
			  path ? "" : " (not found)");
		if (!path)
			continue;
		k->lib = arena_strdup(c->s->arena, path);
		free(path);
		k->obj = user_object(&quiet, k->lcomp->arg->loc, k->lib);
		r = k->obj ? expand_place(k) : -1;
		n += r > 0 ? r : 0;
	}
	k->c = c;
	k->many = many;
	if (!n && !c->optional)
		prov_error(c, k->lcomp->arg->loc, "no probe point matches in "
			   "the libraries '%s' of %s (searched: %s)", glob,
			   k->prog, seen.buf ? seen.buf : "none");
	sb_free(&seen);
	if (!n)
		c->errors++;
	return n ? n : -1;
}

/* The points of one program file (a glob of process() may give more). */
static int expand_file(struct ucollect *k, const char *prog)
{
	struct prov_ctx *c = k->c;
	struct uelf *u;

	k->prog = prog;
	u = user_object(c, k->pcomp->arg ? k->pcomp->arg->loc :
			 k->pcomp->loc, prog);
	if (!u)
		return -1;
	k->obj = u;
	if (k->lcomp && has_wildcard(k->lcomp->arg->str) &&
	    !strchr(k->lcomp->arg->str, '/'))
		return expand_libs(k, u);
	if (k->lcomp && find_lib(k, u))
		return -1;
	return expand_place(k);
}

/* The place part of the point (function, statement, mark, plt) in the
 * file k->obj.
 */
static int expand_place(struct ucollect *k)
{
	const struct probe_point *pp = k->pp;

	if (has_comp(pp, "mark"))
		return expand_marks(k, comp_str(pp, "mark"));
	if (has_comp(pp, "plt"))
		return expand_plt(k, comp_str(pp, "plt"));
	if (k->fcomp->arg->kind != EX_STR)
		return expand_address(k);
	return expand_functions(k, k->fcomp->arg->str);
}

/* process("PATH"): found as a shell finds a command; a glob may name
 * several files, each a branch whose failures are quiet.
 */
static int expand_globbed(struct ucollect *k, const char *arg)
{
	struct prov_ctx quiet = *k->c;
	struct prov_ctx *c = k->c;
	struct strbuf skipped, why;
	glob_t g;
	size_t i;
	int n = 0;

	if (glob(arg, 0, NULL, &g) || !g.gl_pathc) {
		if (!c->optional)
			prov_error(c, k->pcomp->arg->loc, "no file matches "
				   "'%s'", arg);
		c->errors++;
		return -1;
	}
	quiet.quiet = true;
	k->c = &quiet;
	k->many = true;
	sb_init(&skipped);
	for (i = 0; i < g.gl_pathc; i++) {
		char *err = NULL, *path = uelf_resolve(g.gl_pathv[i], &err);
		struct uelf *u = path ? uelf_open(path, &err) : NULL;
		int r;

		/* a file that cannot be probed is named if nothing is */
		if (!u) {
			sb_printf(&skipped, "%s%s", skipped.buf ? "; " : "",
				  err ? err : "?");
			free(err);
			free(path);
			continue;
		}
		uelf_free(u);
		sb_init(&why);
		quiet.why = &why;
		r = expand_file(k, arena_strdup(c->s->arena, path));
		quiet.why = NULL;
		/* and a file that has no match says why, if nothing has */
		if (r <= 0 && why.len)
			sb_printf(&skipped, "%s%s", skipped.buf ? "; " : "",
				  why.buf);
		sb_free(&why);
		free(path);
		n += r > 0 ? r : 0;
	}
	globfree(&g);
	k->c = c;
	if (!n && !c->optional)
		prov_error(c, k->pcomp->arg->loc, "no probe point matches in "
			   "the files of '%s'%s%s%s", arg, skipped.buf ?
			   " (not probed: " : "", skipped.buf ? skipped.buf :
			   "", skipped.buf ? ")" : "");
	sb_free(&skipped);
	return n ? n : -1;
}

static const struct pp_comp *place_comp(const struct probe_point *pp)
{
	static const char *const f[] = { "function", "statement", "mark",
					 "plt" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(f); i++)
		if (has_comp(pp, f[i]))
			return pp_comp_of(pp, intern(f[i]));
	return NULL;
}

/* process(PID): the program the process runs now, from /proc (so only
 * where the translator runs on the process's machine); the probes are
 * placed in that file and fire in that process only.
 */
static int expand_pid(struct ucollect *k)
{
	struct prov_ctx *c = k->c;
	const struct expr *arg = k->pcomp->arg;
	struct loc loc = arg ? arg->loc : k->pcomp->loc;
	char link[64], *path;
	int rc;

	if (!arg)
		k->pid = c->s->opt.target_pid;
	else if (!pp_arg_num(arg, &k->pid))
		k->pid = 0;
	if (k->pid <= 0 || k->pid > INT32_MAX) {
		prov_error(c, loc, "process(%" PRId64 "): not a process "
			   "ID", k->pid);
		return -1;
	}
	if (c->s->opt.vm_kernel) {
		prov_error(c, loc, "process(%" PRId64 ") names a process "
			   "of this machine, but the probes run in the VM "
			   "(--vm): name the program, process(\"PATH\")",
			   k->pid);
		return -1;
	}
	snprintf(link, sizeof(link), "/proc/%" PRId64 "/exe", k->pid);
	path = realpath(link, NULL);
	if (!path) {
		if (!c->optional)
			prov_error(c, loc, "process(%" PRId64 "): %s",
				   k->pid, errno == ENOENT ?
				   "no such process" : strerror(errno));
		c->errors++;
		return -1;
	}
	rc = expand_file(k, arena_strdup(c->s->arena, path));
	free(path);
	return rc;
}

/* The program of the -c command: its first word, found as a shell
 * finds it (quotes and backslashes taken off); NULL after reporting.
 */
static char *cmd_program(struct prov_ctx *c, struct loc loc)
{
	const char *p = c->s->opt.target_cmd;
	char *word = xmalloc(strlen(p) + 1), *path, *err = NULL;
	char quote = 0;
	size_t n = 0;

	p += strspn(p, " \t\n");
	for (; *p && (quote || !strchr(" \t\n;&|<>()", *p)); p++) {
		if (quote ? *p == quote : *p == '\'' || *p == '"') {
			quote = quote ? 0 : *p;
			continue;
		}
		if (*p == '\\' && quote != '\'' && p[1])
			p++;
		word[n++] = *p;
	}
	word[n] = 0;
	path = n ? uelf_resolve(word, &err) : NULL;
	if (!path) {
		prov_error(c, loc, "the program of the -c command '%s': %s",
			   c->s->opt.target_cmd, err ? err : "no program");
		free(err);
	}
	free(word);
	return path;
}

/* A bare process names the target's program: that of the -c command,
 * or process(PID) for -x PID.
 */
static int expand_target(struct ucollect *k)
{
	struct prov_ctx *c = k->c;
	char *path;
	int rc;

	if (c->s->opt.target_pid)
		return expand_pid(k);
	if (!c->s->opt.target_cmd) {
		prov_error(c, k->pcomp->loc, "'process' without a PATH or PID "
			   "names the program of -c CMD or -x PID, and there is "
			   "neither");
		return -1;
	}
	path = cmd_program(c, k->pcomp->loc);
	if (!path)
		return -1;
	rc = expand_file(k, arena_strdup(c->s->arena, path));
	free(path);
	return rc;
}

static int up_expand(struct prov_ctx *c, const struct probe_point *pp,
		     struct vec *out)
{
	struct ucollect k = { .c = c, .pp = pp, .out = out };
	const char *arg;
	char *path, *err = NULL;

	k.pcomp = pp_comp_of(pp, intern("process"));
	k.lcomp = pp_comp_of(pp, intern("library"));
	k.fcomp = place_comp(pp);
	k.stmt = has_comp(pp, "statement");
	k.inl = has_comp(pp, "inline");
	k.call = has_comp(pp, "call");
	k.exported = has_comp(pp, "exported");
	k.ret = has_comp(pp, "return");
	k.labcomp = pp_comp_of(pp, intern("label"));
	k.ccomp = pp_comp_of(pp, intern("callee"));
	k.cscomp = pp_comp_of(pp, intern("callees"));
	if (!k.pcomp->arg)
		return expand_target(&k);
	if (k.pcomp->arg->kind != EX_STR)
		return expand_pid(&k);
	arg = k.pcomp->arg->str;
	if (strchr(arg, '/') && has_wildcard(arg))
		return expand_globbed(&k, arg);
	path = uelf_resolve(arg, &err);
	if (!path) {
		if (!c->optional)
			prov_error(c, k.pcomp->arg->loc, "%s", err);
		c->errors++;
		free(err);
		return -1;
	}
	arg = arena_strdup(c->s->arena, path);
	free(path);
	return expand_file(&k, arg);
}

/* ------------------------------------------------------------- build */

static void var_cb(const char *name, const struct ktype *type,
		   const struct kloc *loc, bool is_param, void *arg)
{
	struct prov_ctx *c = ((void **)arg)[0];
	struct uprobe *u = ((void **)arg)[1];
	struct fvar *v = arena_alloc(c->s->arena, sizeof(*v));

	v->name = arena_strdup(c->s->arena, name);
	v->type = type;
	v->loc = *loc;
	v->is_param = is_param;
	vec_push(c->s->arena, &u->vars, v);
}

static struct uelf *point_object(struct prov_ctx *c,
				 const struct derived_probe *dp)
{
	const struct upoint *up = dp->pp->prov_data;

	return user_object(c, dp->pp->loc, up->path);
}

static void parse_sdt_args(struct prov_ctx *c, struct uprobe *u);

/* pp() shows an address as it was given, in hex:
 * process("/bin/x").statement(0x1139).
 */
static void hex_name(struct prov_ctx *c, struct derived_probe *dp)
{
	const struct pp_comp *fc = place_comp(dp->pp);
	const char *text = dp->name, *dec, *at;
	int64_t v;

	if (!fc || !pp_arg_num(fc->arg, &v))
		return;
	dec = arena_printf(c->s->arena, "%s(%" PRId64 ")", fc->functor, v);
	at = strstr(text, dec);
	if (at)
		dp->name = intern(arena_printf(c->s->arena, "%.*s%s(0x%"
					       PRIx64 ")%s", (int)(at - text),
					       text, fc->functor, (uint64_t)v,
					       at + strlen(dec)));
}

static int up_build(struct prov_ctx *c, struct derived_probe *dp)
{
	const struct upoint *up = dp->pp->prov_data;
	struct uprobe *u = arena_alloc(c->s->arena, sizeof(*u));
	const struct pp_comp *pc;
	struct uelf *obj;
	struct kdwarf *dw;
	void *args[2] = { c, u };

	if (!up) {	/* not from expand: cannot happen */
		prov_error(c, dp->pp->loc, "internal: unexpanded point");
		return -1;
	}
	dp->priv = u;
	u->pt = *up;
	hex_name(c, dp);
	u->ret = has_comp(dp->pp, "return");
	dp->returns = u->ret;
	u->must = !c->optional;
	if (has_comp(dp->pp, "library"))
		u->exe = comp_str(dp->pp, "process");
	pc = pp_comp_of(dp->pp, intern("process"));
	if (pc->arg && pc->arg->kind != EX_STR)
		pp_arg_num(pc->arg, &u->pid);
	obj = point_object(c, dp);
	if (!obj)
		return -1;
	if (uelf_offset(obj, up->pc, &u->offset)) {
		prov_error(c, dp->pp->loc, "address 0x%" PRIx64 " of '%s' is "
			   "in no loaded segment of %s", up->pc, up->name,
			   up->path);
		return -1;
	}
	if (up->sem && uelf_offset(obj, up->sem, &u->sem_off)) {
		prov_error(c, dp->pp->loc, "the semaphore of marker '%s' "
			   "(0x%" PRIx64 ") is in no loaded segment of %s",
			   up->name, up->sem, up->path);
		return -1;
	}
	if (up->kind == UP_MARK) {
		parse_sdt_args(c, u);
		return 0;
	}
	u->is32 = uelf_is_32bit(obj);
	if (u->is32)
		return 0;
	dw = up->kind == UP_PLT ? NULL :
	     uelf_dwarf(obj, kbuild_cache_dir(c->s), NULL);
	u->dw = dw;
	if (!dw || (up->kind == UP_FUNC && !up->typed))
		return 0;
	u->at_entry = up->kind == UP_FUNC;
	kdwarf_inline_vars_at_pc(dw, up->pc, up->kind == UP_INLINE ?
				 up->name : NULL, var_cb, args);
	return 0;
}

/* ------------------------------------------------------ SDT arguments */

/* An x86-64 register as sys/sdt.h writes it ("%edi", "%r8d", "%al")
 * and its pt_regs field; NULL for one no probe can read ("%xmm0",
 * "%ah").
 */
static const char *sdt_reg(const char *name, size_t n)
{
	static const char *const legacy[][5] = {
		{ "ax", "rax", "eax", "ax", "al" },
		{ "bx", "rbx", "ebx", "bx", "bl" },
		{ "cx", "rcx", "ecx", "cx", "cl" },
		{ "dx", "rdx", "edx", "dx", "dl" },
		{ "si", "rsi", "esi", "si", "sil" },
		{ "di", "rdi", "edi", "di", "dil" },
		{ "bp", "rbp", "ebp", "bp", "bpl" },
		{ "sp", "rsp", "esp", "sp", "spl" },
		{ "ip", "rip", "eip", "ip", "" },
	};
	static const char *const rn[] = { "r8", "r9", "r10", "r11", "r12",
					  "r13", "r14", "r15" };
	size_t i, j, len;

	for (i = 0; i < ARRAY_SIZE(legacy); i++)
		for (j = 1; j < 5; j++)
			if (*legacy[i][j] && strlen(legacy[i][j]) == n &&
			    !strncmp(legacy[i][j], name, n))
				return legacy[i][0];
	for (i = 0; i < ARRAY_SIZE(rn); i++) {
		len = strlen(rn[i]);
		if (n >= len && !strncmp(name, rn[i], len) &&
		    (n == len || (n == len + 1 &&
				  strchr("dwb", name[len]))))
			return rn[i];
	}
	return NULL;
}

/* $argN's type: an integer of the operand's size, signed when the
 * size is written negative; listed as "long", as the value is.
 */
static const struct ktype *sdt_type(struct arena *a, int size)
{
	struct ktype *t = arena_alloc(a, sizeof(*t));
	unsigned int n = (unsigned int)(size < 0 ? -size : size);

	t->kind = KT_INT;
	t->name = "long";
	t->size = n == 1 || n == 2 || n == 4 ? n : 8;
	t->is_signed = size < 0;
	return t;
}

/* One operand: "%reg", "$imm", "[disp](%reg)". */
static const char *sdt_operand(struct arena *a, const char *op, size_t n,
			       int size, struct tref *r)
{
	const char *paren = memchr(op, '(', n);
	char *end;

	r->type = r->final = sdt_type(a, size);
	r->user = true;
	if (op[0] == '%') {
		r->base = TRB_REG;
		r->reg = sdt_reg(op + 1, n - 1);
		return r->reg ? NULL : "a register probes cannot read";
	}
	if (op[0] == '$') {
		r->base = TRB_CONSTV;
		r->value = strtoll(op + 1, &end, 0);
		return end == op + n ? NULL : "not a constant";
	}
	if (!paren || op[n - 1] != ')' || paren[1] != '%')
		return "an operand form probes cannot read";
	r->sp_off = paren == op ? 0 : strtol(op, &end, 0);
	if (paren != op && end != paren)
		return "an address relative to a symbol";
	r->base = TRB_MEM;
	r->in_mem = true;
	r->reg = sdt_reg(paren + 2, (size_t)(op + n - 1 - paren - 2));
	if (!r->reg || !strcmp(r->reg, "ip"))
		return "an address with an index register or relative to "
		       "the instruction";
	return NULL;
}

static void parse_sdt_args(struct prov_ctx *c, struct uprobe *u)
{
	struct arena *a = c->s->arena;
	const char *p = u->pt.args;
	int max = 0;

	for (; *p; p++)
		max += *p == '@';
	u->args = arena_alloc(a, (size_t)(max ? max : 1) * sizeof(*u->args));
	for (p = u->pt.args; *p;) {
		size_t n;
		const char *at;
		struct sdt_arg *s;
		char *end;
		long size;

		p += strspn(p, " ");
		n = strcspn(p, " ");
		if (!n)
			break;
		s = &u->args[u->nargs++];
		s->ref = arena_alloc(a, sizeof(*s->ref));
		at = memchr(p, '@', n);
		size = at ? strtol(p, &end, 10) : 8;
		if (at && (end != at || !size || labs(size) > 8)) {
			s->why = "a bad operand size";
			s->ref = NULL;
		} else {
			const char *op = at ? at + 1 : p;

			s->why = sdt_operand(a, op, n - (size_t)(op - p),
					     (int)size, s->ref);
			if (s->why)
				s->ref = NULL;
		}
		p += n;
	}
}

/* ---------------------------------------------------- target variables */

static struct tref *new_tref(struct prov_ctx *c)
{
	struct tref *r = arena_alloc(c->s->arena, sizeof(*r));

	r->user = true;
	return r;
}

/* Where DWARF says v is, or NULL (and why) when it is not there. */
static struct tref *tref_of_var(struct prov_ctx *c, const struct fvar *v,
				const char **why)
{
	struct tref *r = target_of_loc(c->s->arena, v->type, &v->loc, why);

	if (r)
		r->user = true;
	return r;
}

static struct tref *param_tref(struct prov_ctx *c, const struct uprobe *u,
			       int i, const char **why)
{
	struct tref *r = target_param(c->s->arena, &u->pt.sig, i, why);

	if (r)
		r->user = true;
	return r;
}

/* $$parms, $$locals, $$vars, $$return: each a complete tref, NULL for
 * one not available at the address (printed as name=?).
 */
static int bind_list(struct prov_ctx *c, struct uprobe *u, struct expr *e)
{
	bool parms = strcmp(e->name, "$$locals") != 0;
	bool locals = strcmp(e->name, "$$parms") != 0;
	struct tref *r = target_list(c, e, KFUNC_MAX_PARAMS + u->vars.n +
				     u->nargs + 1);
	const struct kfunc *f = &u->pt.sig;
	const char *why;
	int i;

	if (!r)
		return -1;
	r->user = true;
	if (!strcmp(e->name, "$$return")) {
		if (!u->ret) {
			prov_error(c, e->loc, "$$return is only available in "
				   ".return probes");
			return -1;
		}
		if (f->ret && f->ret->kind != KT_VOID) {
			struct tref *t = new_tref(c);

			t->base = TRB_RETURN;
			t->type = t->final = f->ret;
			r->list_names[r->nlist] = "return";
			r->list[r->nlist++] = t;
		}
		return 0;
	}
	for (i = 0; parms && i < u->nargs; i++) {
		r->list_names[r->nlist] = arena_printf(c->s->arena, "arg%d",
						       i + 1);
		r->list[r->nlist++] = u->args[i].ref;
	}
	for (i = 0; parms && u->at_entry && i < f->nparams; i++) {
		if (!*f->params[i].name)
			continue;
		r->list_names[r->nlist] = f->params[i].name;
		r->list[r->nlist++] = param_tref(c, u, i, &why);
	}
	for (i = 0; i < u->vars.n; i++) {
		const struct fvar *v = u->vars.items[i];

		if (v->is_param ? !parms || u->at_entry : !locals)
			continue;
		r->list_names[r->nlist] = v->name;
		r->list[r->nlist++] = tref_of_var(c, v, &why);
	}
	return 0;
}

/* $$name and $$provider of a marker, $$name of a PLT entry. */
static int bind_string(struct prov_ctx *c, struct uprobe *u, struct expr *e)
{
	struct tref *r = new_tref(c);

	r->base = TRB_STRING;
	r->reg = strcmp(e->name, "$$provider") ? u->pt.name : u->pt.provider;
	if (e->comps.n || e->addressof || e->pretty) {
		prov_error(c, e->loc, "'%s' is a plain string", e->name);
		return -1;
	}
	e->tref = r;
	return 0;
}

/* $argN of an SDT marker. */
static int bind_sdt_arg(struct prov_ctx *c, struct uprobe *u, struct expr *e)
{
	char *end;
	long n = strtol(e->name + 4, &end, 10);

	if (*end || n < 1 || n > u->nargs) {
		prov_error(c, e->loc, "marker '%s' has %d argument%s: no '%s'",
			   u->pt.name, u->nargs, u->nargs == 1 ? "" : "s",
			   e->name);
		return -1;
	}
	if (!u->args[n - 1].ref) {
		prov_error(c, e->loc, "'%s' of marker '%s' cannot be read: %s",
			   e->name, u->pt.name, u->args[n - 1].why);
		return -1;
	}
	if (e->comps.n || e->addressof || e->pretty) {
		prov_error(c, e->loc, "'%s' is a number: it takes no members, "
			   "indexes or '&' (use @cast)", e->name);
		return -1;
	}
	e->tref = u->args[n - 1].ref;
	return 0;
}

static int resolve_untyped(struct prov_ctx *c,
			   const struct derived_probe *dp, struct uprobe *u,
			   struct expr *e)
{
	bool names = !strcmp(e->name, "$$name") ||
		     (u->pt.kind == UP_MARK && !strcmp(e->name, "$$provider"));

	if (names && (u->pt.kind == UP_MARK || u->pt.kind == UP_PLT))
		return bind_string(c, u, e);
	if (u->pt.kind == UP_MARK && !strncmp(e->name, "$arg", 4))
		return bind_sdt_arg(c, u, e);
	if (u->pt.kind == UP_MARK && target_is_list(e->name) &&
	    strcmp(e->name, "$$return"))
		return bind_list(c, u, e);
	if (u->pt.kind == UP_MARK)
		prov_error(c, e->loc, "marker '%s' has no '%s': its context "
			   "variables are $arg1..$arg%d, $$name, $$provider",
			   u->pt.name, e->name, u->nargs);
	else if (u->pt.kind == UP_PLT)
		prov_error(c, e->loc, "unable to find '%s' at %s "
			   "(alternatives: $$name)", e->name, dp->name);
	else
		prov_error(c, e->loc, "no debuginfo for function '%s' in %s: "
			   "its context variables need DWARF: " DWARF_ADVICE,
			   u->pt.name, u->pt.path);
	return -1;
}

static int return_value(struct prov_ctx *c, struct uprobe *u,
			struct expr *e)
{
	struct tref *r;

	if (!u->ret) {
		prov_error(c, e->loc, "$return is only available in .return "
			   "probes");
		return -1;
	}
	if (!u->pt.sig.ret || u->pt.sig.ret->kind == KT_VOID) {
		prov_error(c, e->loc, "function '%s' returns void",
			   u->pt.name);
		return -1;
	}
	r = new_tref(c);
	r->base = TRB_RETURN;
	r->type = u->pt.sig.ret;
	return target_bind(c, e, r);
}

/* In a .return probe a parameter or local is read as it was at entry:
 * the bound expression e turns into @entry(e), kept in a frame of the
 * runtime from the entry to the return.
 */
static int at_return(struct prov_ctx *c, struct derived_probe *dp,
		     struct expr *e)
{
	const struct uprobe *u = dp->priv;

	if (u->ret && !c->at_entry)
		prov_snapshot_at_entry(c, dp, e);
	return 0;
}

static int bind_var(struct prov_ctx *c, const struct derived_probe *dp,
		    struct uprobe *u, struct expr *e)
{
	const char *why = NULL;
	struct tref *r;
	int i;

	for (i = 0; i < u->vars.n; i++) {
		const struct fvar *v = u->vars.items[i];

		if (strcmp(v->name, e->name + 1) ||
		    (u->at_entry && v->is_param))
			continue;
		r = tref_of_var(c, v, &why);
		if (!r) {
			prov_error(c, e->loc, "'%s' is not available: %s",
				   e->name, why);
			return -1;
		}
		return target_bind(c, e, r);
	}
	for (i = 0; u->at_entry && i < u->pt.sig.nparams; i++)
		if (!strcmp(u->pt.sig.params[i].name, e->name + 1))
			break;
	if (!u->at_entry || i == u->pt.sig.nparams) {
		struct strbuf sb;

		sb_init(&sb);
		target_list_vars(&sb, &u->pt.sig, u->at_entry, &u->vars);
		prov_error(c, e->loc, "unable to find '%s' at %s (alternatives:"
			   "%s)", e->name, dp->name, sb.buf ? sb.buf : " none");
		sb_free(&sb);
		return -1;
	}
	r = param_tref(c, u, i, &why);
	if (!r) {
		prov_error(c, e->loc, "%s", why);
		return -1;
	}
	return target_bind(c, e, r);
}

static int up_resolve_target(struct prov_ctx *c, struct derived_probe *dp,
			     struct expr *e)
{
	struct uprobe *u = dp->priv;
	bool typed = u->pt.kind == UP_LINE || u->pt.kind == UP_INLINE ||
		     (u->pt.kind == UP_FUNC && u->pt.typed);

	if (u->is32 && u->pt.kind != UP_PLT) {
		prov_error(c, e->loc, "'%s': the context variables of a "
			   "32-bit (i386) program are not supported yet (%s)",
			   e->name, u->pt.path);
		return -1;
	}
	if (!typed)
		return resolve_untyped(c, dp, u, e);
	if (!strcmp(e->name, "$return"))
		return c->at_entry ? (prov_error(c, e->loc, "$return has no "
				      "value at entry"), -1) :
		       return_value(c, u, e);
	if (!strcmp(e->name, "$$return"))
		return bind_list(c, u, e);
	if (target_is_list(e->name) ? bind_list(c, u, e) :
	    bind_var(c, dp, u, e))
		return -1;
	return at_return(c, dp, e);
}

/* @var in a .return probe: its address, regs->ip + off at the entry,
 * is saved there (an @entry of its own), and the variable is read at
 * the return through it, as @cast reads an object: the value it has
 * at the return.
 */
static int atvar_at_return(struct prov_ctx *c, struct derived_probe *dp,
			   struct expr *e, const struct ktype *type, long off)
{
	struct arena *a = c->s->arena;
	struct expr *inner = arena_alloc(a, sizeof(*inner));
	struct expr *ent = arena_alloc(a, sizeof(*ent));
	struct tref *ir = new_tref(c), *r = new_tref(c);

	ir->base = TRB_REGVAL;
	ir->reg = "ip";
	ir->sp_off = off;
	ir->user = true;
	ir->type = ir->final = target_pointer_to(a, type);
	inner->kind = EX_TARGET;
	inner->tbase = TB_VAR;
	inner->name = e->name;
	inner->loc = e->loc;
	inner->tref = ir;
	ent->kind = EX_ENTRY;
	ent->a = inner;
	ent->loc = e->loc;
	prov_save_at_entry(c, dp, ent, inner);
	e->a = ent;
	r->base = TRB_CAST;
	r->user = true;
	r->type = type;
	return target_bind(c, e, r);
}

/* @var("name[@file]"): a variable at file scope of the probed object,
 * found in its DWARF.  At the breakpoint regs->ip is the probed
 * address (the kernel sets it back before the handlers run), so the
 * variable is at regs->ip + (its link-time address - the point's):
 * where the object is loaded does not matter.  Not so at a return,
 * where regs->ip is the caller's: atvar_at_return().
 */
static int up_resolve_atvar(struct prov_ctx *c, struct derived_probe *dp,
			    struct expr *e)
{
	struct uprobe *u = dp->priv;
	const char *at = strchr(e->name, '@'), *why = NULL;
	const char *name = at ? arena_strndup(c->s->arena, e->name,
					      (size_t)(at - e->name)) :
				e->name;
	const struct ktype *type;
	uint64_t addr;
	struct tref *r;
	int rc;

	if (e->module && strcmp(e->module, u->pt.path)) {
		prov_error(c, e->loc, "@var(\"%s\", \"%s\") in a probe of "
			   "%s: the variables of another object are not "
			   "supported yet", e->name, e->module, u->pt.path);
		return -1;
	}
	if (!u->dw || u->is32 || u->pt.kind == UP_MARK ||
	    u->pt.kind == UP_PLT) {
		prov_error(c, e->loc, "@var(\"%s\") needs the debuginfo "
			   "(DWARF) of %s: " DWARF_ADVICE, e->name,
			   u->pt.path);
		return -1;
	}
	rc = kdwarf_global(u->dw, name, at && at[1] ? at + 1 : NULL, &type,
			   &addr, &why);
	if (rc) {
		if (rc == -ENOTSUP)
			prov_error(c, e->loc, "@var(\"%s\") cannot be read: "
				   "%s", e->name, why);
		else
			prov_error(c, e->loc, "unable to find global '%s' in "
				   "%s", e->name, u->pt.path);
		return -1;
	}
	if (u->ret && !c->at_entry)
		return atvar_at_return(c, dp, e, type,
				       (long)(addr - u->pt.pc));
	r = new_tref(c);
	r->base = TRB_MEM;
	r->in_mem = true;
	r->user = true;
	r->reg = "ip";
	r->sp_off = (long)(addr - u->pt.pc);
	r->type = r->final = type;
	return target_bind(c, e, r);
}

static int up_resolve_entry(struct prov_ctx *c, struct derived_probe *dp,
			    struct expr *e)
{
	prov_save_at_entry(c, dp, e, e->a);
	return 0;
}

/* ------------------------------------------------------------ listing */

static void up_list_vars(const struct derived_probe *dp, struct strbuf *sb)
{
	const struct uprobe *u = dp->priv;
	int i;

	if (u->pt.kind == UP_MARK) {
		for (i = 0; i < u->nargs; i++)
			sb_printf(sb, " $arg%d:long", i + 1);
		return;
	}
	if (u->pt.kind == UP_PLT || u->is32 ||
	    (u->pt.kind == UP_FUNC && !u->pt.typed))
		return;
	if (u->ret && u->pt.sig.ret && u->pt.sig.ret->kind != KT_VOID)
		sb_printf(sb, " $return:%s", ktype_name(u->pt.sig.ret));
	target_list_vars(sb, &u->pt.sig, u->at_entry, &u->vars);
}

/* ------------------------------------------------------------ pass 3 */

static const char *up_probe_type(const struct derived_probe *dp)
{
	const struct uprobe *u = dp->priv;

	return u->ret ? "STP_PROBE_URETPROBE" : "STP_PROBE_UPROBE";
}

/* A .return probe with values saved at entry: its entry part fills a
 * frame of the runtime (nonzero: no return for this frame), and its
 * return part reads it.
 */
static void emit_entry_handlers(struct emitter *em, struct strbuf *d,
				struct derived_probe *dp)
{
	int n = dp->index;
	const char *print = emit_probe_run_flags(em, dp);

	sb_printf(d, "static int stp_up_%d_entry(struct stp_uprobe *up, "
		  "struct pt_regs *regs,\n\t\t\t  void *data)\n{\n"
		  "\treturn __stp_probe_run_edata(&stp_entry_probe_%d, "
		  "stp_probe_%d_entry,\n\t\t\t\t     regs, data, "
		  "STAP_SESSION_RUNNING, %s) ? 1 : 0;\n}\n\n", n, n, n,
		  print);
	sb_printf(d, "static int stp_up_%d_ret(struct stp_uprobe *up, "
		  "struct pt_regs *regs,\n\t\t\tvoid *data)\n{\n"
		  "\t__stp_probe_run_edata(%s, %s, regs, data,\n"
		  "\t\t\t      STAP_SESSION_RUNNING, %s);\n"
		  "\treturn 0;\n}\n\n", n, emit_probe_ref(em, dp),
		  emit_probe_handler(em, dp), print);
}

/* Each probe's callback: the runtime's fast path, inline.  A uprobe
 * handler runs in the task, preemptible.
 */
static void emit_handler(struct emitter *em, struct strbuf *d,
			 struct derived_probe *dp)
{
	int n = dp->index;

	if (dp->entry_exprs.n) {
		emit_entry_handlers(em, d, dp);
		return;
	}
	sb_printf(d, "static int stp_up_%d(struct stp_uprobe *up, "
		  "struct pt_regs *regs)\n{\n", n);
	if (emit_probe_lean(em, dp))
		sb_printf(d, "\t__stp_probe_run_lean(%s, %s_lean, "
			  "regs, NULL, NULL,\n\t\t\t     "
			  "STAP_SESSION_RUNNING, false);\n",
			  emit_probe_ref(em, dp), emit_probe_handler(em, dp));
	else
		sb_printf(d, "\t__stp_probe_run_flags(%s, %s, regs, "
			  "NULL, NULL,\n\t\t\t      STAP_SESSION_RUNNING, "
			  "%s);\n", emit_probe_ref(em, dp),
			  emit_probe_handler(em, dp),
			  emit_probe_run_flags(em, dp));
	sb_puts(d, "\treturn 0;\n}\n\n");
}

/* The calls a .callee probe must be reached by: per path, the
 * link-time addresses where each level of the stack may return (level
 * 0, the callee's own return, first); then the paths over them.
 */
static void emit_call_sites(struct strbuf *d, const struct uprobe *u,
			    int n)
{
	const struct vec *paths = u->pt.paths;
	int i, j, l;

	sb_printf(d, "static const struct stp_ucall stp_up_%d_from[] = {\n",
		  n);
	for (i = 0; i < paths->n; i++) {
		const struct kcallpath *p = paths->items[i];

		for (l = 0; l < p->depth; l++)
			for (j = 0; j < p->levels[l].n; j++) {
				const struct kcallsite *cs =
					p->levels[l].items[j];

				sb_printf(d, "\t{ %#" PRIx64 ", %d },\n",
					  cs->ret_pc, l);
			}
	}
	sb_puts(d, "};\n\n");
	prov_emit_callee_paths(d, paths, "stp_upath", "stp_up", n);
}

/* A .callee probe's fields of struct stp_uprobe. */
static void emit_callee_fields(struct strbuf *d, const struct uprobe *u,
			       int n)
{
	int i, depth = 0;

	for (i = 0; i < u->pt.paths->n; i++) {
		const struct kcallpath *p = u->pt.paths->items[i];

		if (p->depth > depth)
			depth = p->depth;
	}
	sb_printf(d, "\t\t.paths = stp_up_%d_paths,\n"
		  "\t\t.npaths = %d,\n\t\t.depth = %d,\n"
		  "\t\t.entry_pc = %#" PRIx64 ",\n", n, u->pt.paths->n,
		  depth, u->pt.pc);
}

static void up_emit_group(struct emitter *em, struct vec *dps)
{
	struct strbuf *d = emit_out(em, EMIT_DECLS);
	int i;

	for (i = 0; i < dps->n; i++) {
		const struct derived_probe *dp = dps->items[i];
		const struct uprobe *u = dp->priv;

		if (u->pt.paths)
			emit_call_sites(d, u, dp->index);
		emit_handler(em, d, dps->items[i]);
	}
	sb_printf(d, "static struct stp_uprobe stp_uprobes[%d] = {\n",
		  dps->n);
	for (i = 0; i < dps->n; i++) {
		const struct derived_probe *dp = dps->items[i];
		const struct uprobe *u = dp->priv;

		sb_puts(d, "\t{\n\t\t.path = ");
		sb_c_string(d, u->pt.path);
		sb_printf(d, ",\n\t\t.offset = %#" PRIx64 ",\n", u->offset);
		if (u->sem_off)
			sb_printf(d, "\t\t.sdt_sem = %#" PRIx64 ",\n",
				  u->sem_off);
		if (u->exe) {
			sb_puts(d, "\t\t.exe = ");
			sb_c_string(d, u->exe);
			sb_puts(d, ",\n");
		}
		if (u->pid)
			sb_printf(d, "\t\t.pid = %" PRId64 ",\n", u->pid);
		if (u->ret)
			sb_puts(d, "\t\t.ret = true,\n");
		if (u->must)
			sb_puts(d, "\t\t.must = true,\n");
		if (u->pt.paths)
			emit_callee_fields(d, u, dp->index);
		sb_printf(d, "\t\t.probe = %s,\n", emit_probe_ref(em, dp));
		if (dp->entry_exprs.n)
			sb_printf(d, "\t\t.entry_handler = stp_up_%d_entry,\n"
				  "\t\t.ret_handler = stp_up_%d_ret,\n"
				  "\t\t.data_size = sizeof(struct "
				  "stp_entry_%d),\n", dp->index, dp->index,
				  dp->index);
		else
			sb_printf(d, "\t\t.handler = stp_up_%d,\n",
				  dp->index);
		sb_puts(d, "\t},\n");
	}
	sb_puts(d, "};\n\n");
	sb_printf(emit_out(em, EMIT_START),
		  "\trc = _stp_uprobes_register(stp_uprobes, %d);\n", dps->n);
	sb_printf(emit_out(em, EMIT_STOP),
		  "\t_stp_uprobes_unregister(stp_uprobes, %d);\n", dps->n);
}

/* A bare process is the target's program (-c, -x). */
#define UP_ROOTS "{process,process(s),process(n)}{,.library(s)}"

static const char *const up_patterns[] = {
	UP_ROOTS ".function(s){,.call,.exported,.inline,.return,.label(s),"
		".callee(s){,.call,.return},.callees,.callees(n)}",
	UP_ROOTS ".function(n){,.call,.exported,.return}",
	UP_ROOTS ".statement({s,n})",
	UP_ROOTS "{.mark(s),.provider(s).mark(s)}",
	UP_ROOTS ".plt{,(s)}{,.return}",
	NULL
};

const struct provider uprobe_provider = {
	.name = "process",
	.patterns = up_patterns,
	.expand = up_expand,
	.build = up_build,
	.resolve_target = up_resolve_target,
	.resolve_atvar = up_resolve_atvar,
	.resolve_entry = up_resolve_entry,
	.entry_data = "c->edata",
	.entry_type = "STP_PROBE_UPROBE",
	.list_vars = up_list_vars,
	.emit_group = up_emit_group,
	.probe_type = up_probe_type,
};
