/* providers/tracepoint.c - kernel.trace("[system:]event"), wildcards in
 * both parts.  Events and their argument names come from the kernel's
 * trace headers (debuginfo/tracepoints.c), argument types from the
 * btf_trace_EVENT typedefs of its BTF; an event needs both.  The module
 * attaches a callback taking every argument as a 64-bit word (what the
 * x86-64 convention passes for these scalar and pointer arguments).
 */
#include "../debuginfo/btf.h"
#include "../debuginfo/kmod.h"
#include "../debuginfo/tracepoints.h"
#include "../emit.h"
#include "../provider.h"
#include "../session.h"
#include "../target.h"

#include <fnmatch.h>
#include <string.h>

struct tpinfo {
	const char *system, *name;
	const char *module;		/* NULL: the kernel's own */
	struct kfunc sig;		/* types and names */
};

static const char *trace_arg(const struct probe_point *pp)
{
	const struct pp_comp *c = pp_comp_of(pp, intern("trace"));

	return c && c->arg && c->arg->kind == EX_STR ? c->arg->str : NULL;
}

struct tp_collect {
	struct prov_ctx *c;
	const struct probe_point *pp;
	struct kbtf *btf;
	struct vec *out;
};

/* A copy of the point with trace("SYSTEM:NAME"), carrying t. */
static void tp_push(struct tp_collect *k, struct tpinfo *t)
{
	struct arena *a = k->c->s->arena;
	struct probe_point *np;
	int i;

	np = arena_alloc(a, sizeof(*np));
	*np = *k->pp;
	np->prov_data = t;
	memset(&np->comps, 0, sizeof(np->comps));
	for (i = 0; i < k->pp->comps.n; i++) {
		const struct pp_comp *oc = vec_get(&k->pp->comps, i);
		struct pp_comp *nc = arena_alloc(a, sizeof(*nc));

		*nc = *oc;
		if (!strcmp(oc->functor, "trace")) {
			struct expr *s = arena_alloc(a, sizeof(*s));

			*s = *oc->arg;
			s->str = arena_printf(a, "%s:%s", t->system, t->name);
			nc->arg = s;
		}
		vec_push(a, &np->comps, nc);
	}
	vec_push(a, k->out, np);
}

static void tp_cb(const struct ktp_event *ev, void *arg)
{
	struct tp_collect *k = arg;
	struct tpinfo one, *t;
	int i;

	/* the headers list events the kernel was built without, and
	 * those of modules (tp_modules() has them)
	 */
	memset(&one, 0, sizeof(one));
	if (kbtf_tracepoint(k->btf, ev->name, &one.sig) ||
	    one.sig.nparams != ev->nargs)
		return;
	t = arena_alloc(k->c->s->arena, sizeof(*t));
	*t = one;
	t->system = ev->system;
	t->name = ev->name;
	for (i = 0; i < t->sig.nparams; i++)
		t->sig.params[i].name = ev->arg_names[i];
	tp_push(k, t);
}

/* ------------------------------------------------ tracepoints of modules
 * A module's tracepoints are its __tracepoint_NAME symbols; their types
 * are the btf_trace_NAME typedefs of its BTF, their argument names the
 * headers' (when the event is there) or its __traceiter_NAME function's
 * parameters, their system its str__SYSTEM__trace_system_name symbol.
 */
struct tp_modsyms {
	struct arena *a;
	struct vec names;		/* NAME of each __tracepoint_NAME */
	struct vec systems;		/* SYSTEM of each system name */
};

static bool tp_modsym(const char *sym, void *arg)
{
	static const char tp[] = "__tracepoint_", pre[] = "str__",
			  post[] = "__trace_system_name";
	struct tp_modsyms *m = arg;
	size_t n = strlen(sym), np = sizeof(post) - 1;
	int i;

	if (!strncmp(sym, tp, sizeof(tp) - 1) && sym[sizeof(tp) - 1]) {
		vec_push(m->a, &m->names,
			 arena_strdup(m->a, sym + sizeof(tp) - 1));
	} else if (!strncmp(sym, pre, sizeof(pre) - 1) &&
		   n > sizeof(pre) - 1 + np &&
		   !strcmp(sym + n - np, post)) {
		char *sys = arena_strndup(m->a, sym + sizeof(pre) - 1,
					  n - (sizeof(pre) - 1) - np);

		for (i = 0; i < m->systems.n; i++)
			if (!strcmp(m->systems.items[i], sys))
				return true;
		vec_push(m->a, &m->systems, sys);
	}
	return true;
}

/* Tracepoint name of module as t; sys, when not NULL, must be its
 * system.  0, or -1 (nothing reported).
 */
static int tp_module_one(struct prov_ctx *c, struct loc loc,
			 const char *module, const struct tp_modsyms *ms,
			 const char *sys, const char *name, struct tpinfo *t)
{
	struct prov_ctx quiet = *c;
	struct ktp_catalog *cat;
	const struct ktp_event *ev;
	struct kbtf_func f;
	struct kbtf *btf;
	int i;

	quiet.quiet = true;
	for (i = 0; i < ms->names.n; i++)
		if (!strcmp(ms->names.items[i], name))
			break;
	if (i == ms->names.n)
		return -1;
	btf = target_module_btf(&quiet, loc, module);
	if (!btf || kbtf_tracepoint(btf, name, &t->sig))
		return -1;
	cat = target_tracepoints(&quiet, loc);
	ev = cat ? ktp_find(cat, NULL, name) : NULL;
	if (ev && ev->nargs != t->sig.nparams)
		ev = NULL;
	if (ev)
		t->system = ev->system;
	else if (ms->systems.n == 1)
		t->system = ms->systems.items[0];
	else
		t->system = module;
	if (sys && strcmp(sys, t->system) && strcmp(sys, module))
		return -1;
	if (sys)
		t->system = arena_strdup(c->s->arena, sys);
	t->name = arena_strdup(c->s->arena, name);
	t->module = arena_strdup(c->s->arena, module);
	if (!ev && kbtf_func(btf, arena_printf(c->s->arena, "__traceiter_%s",
					       name), &f))
		memset(&f, 0, sizeof(f));
	for (i = 0; i < t->sig.nparams; i++) {
		const char *n = ev ? ev->arg_names[i] :
				i + 1 < f.nparams ? f.param_names[i + 1] : "";

		t->sig.params[i].name = n && *n ? n :
			arena_printf(c->s->arena, "arg%d", i + 1);
	}
	return 0;
}

static bool tp_module_syms(struct prov_ctx *c, struct loc loc,
			   const char *module, struct tp_modsyms *ms)
{
	struct prov_ctx quiet = *c;

	quiet.quiet = true;
	memset(ms, 0, sizeof(*ms));
	ms->a = c->s->arena;
	return target_module_exists(&quiet, loc, module) &&
	       !target_module_symbols(&quiet, loc, module, tp_modsym, ms);
}

/* The events of module mod for sys:name as points; how many. */
static int tp_module_points(struct tp_collect *k, const char *mod,
			    const char *sys, const char *name)
{
	struct prov_ctx *c = k->c;
	struct tp_modsyms ms;
	int j, n = 0;

	if (!tp_module_syms(c, k->pp->loc, mod, &ms))
		return 0;
	for (j = 0; j < ms.names.n; j++) {
		struct tpinfo *t;
		const char *nm = ms.names.items[j];

		if (fnmatch(name, nm, 0))
			continue;
		t = arena_alloc(c->s->arena, sizeof(*t));
		if (!tp_module_one(c, k->pp->loc, mod, &ms, sys, nm, t)) {
			tp_push(k, t);
			n++;
		}
	}
	return n;
}

struct tp_prefixed {
	struct arena *a;
	struct vec names;
};

static void tp_prefixed_cb(const char *name, void *arg)
{
	struct tp_prefixed *p = arg;

	vec_push(p->a, &p->names, arena_strdup(p->a, name));
}

/* At most this many modules named SYSTEM* are searched. */
#define TP_PREFIXED_MAX 8

/* Points of the modules for sys:name (sys may be NULL, name a glob only
 * when sys names a module): the module called sys, that of the event's
 * system in the headers, the one exporting __tracepoint_NAME; failing
 * those, the first few whose names start with the system's
 * ("kyber" is in kyber_iosched).
 */
static int tp_modules(struct tp_collect *k, const char *sys,
		      const char *name)
{
	struct prov_ctx *c = k->c;
	struct loc loc = k->pp->loc;
	const char *cand[3] = { NULL, NULL, NULL };
	struct tp_prefixed pre = { c->s->arena, { 0 } };
	const char *system = sys && !has_wildcard(sys) ? sys : NULL;
	struct ktp_catalog *cat;
	const struct ktp_event *ev;
	struct prov_ctx quiet = *c;
	int i, j, n = 0;

	quiet.quiet = true;
	if (system)
		cand[n++] = system;
	if (!has_wildcard(name)) {
		const char *o;

		cat = target_tracepoints(&quiet, loc);
		ev = cat ? ktp_find(cat, sys, name) : NULL;
		if (ev) {
			cand[n++] = ev->system;
			system = ev->system;
		}
		o = target_symbol_owner(&quiet, loc, arena_printf(
			c->s->arena, "__tracepoint_%s", name));
		if (o && strcmp(o, "vmlinux")) {
			o = strrchr(o, '/') ? strrchr(o, '/') + 1 : o;
			cand[n++] = o;
		}
	}
	for (i = 0; i < n; i++) {
		char *mod = arena_strdup(c->s->arena, cand[i]);

		kmod_canon(mod);
		for (j = 0; j < i; j++)
			if (!strcmp(cand[j], mod))
				break;
		cand[i] = mod;
		if (j == i && tp_module_points(k, mod, sys, name))
			return k->out->n;
	}
	if (!system)
		return 0;
	if (target_modules_matching(&quiet, loc, arena_printf(c->s->arena,
				    "%s?*", system), tp_prefixed_cb,
				    &pre) < 0)
		return 0;
	for (i = 0; i < pre.names.n && i < TP_PREFIXED_MAX; i++)
		if (tp_module_points(k, pre.names.items[i], sys, name))
			break;
	return k->out->n;
}

static int tp_expand(struct prov_ctx *c, const struct probe_point *pp,
		     struct vec *out)
{
	struct tp_collect k = { c, pp, NULL, out };
	const char *spec = trace_arg(pp), *colon;
	struct ktp_catalog *cat;
	char *sys = NULL;
	const char *name;

	if (!spec)
		return -1;
	cat = target_tracepoints(c, pp->loc);
	k.btf = target_kernel_btf(c, pp->loc);
	if (!cat || !k.btf)
		return -1;
	colon = strchr(spec, ':');
	if (colon)
		sys = arena_strndup(c->s->arena, spec, (size_t)(colon - spec));
	name = colon ? colon + 1 : spec;
	ktp_each(cat, sys, name, tp_cb, &k);
	/* the modules only when the kernel has none, or for a system
	 * named in full: kernel.trace("*") stays quick
	 */
	if (!out->n && (!has_wildcard(name) || (sys && !has_wildcard(sys))))
		tp_modules(&k, sys, name);
	if (!out->n && !has_wildcard(spec) && !c->optional && !c->quiet)
		prov_error(c, pp->loc, "no tracepoint '%s' in kernel %s or "
			   "its modules", spec, c->s->kernel_vr);
	return out->n;
}

static int tp_build(struct prov_ctx *c, struct derived_probe *dp)
{
	struct tpinfo *t = dp->pp->prov_data;

	(void)c;
	dp->priv = t;
	return t ? 0 : -1;
}

static struct tref *tp_arg(struct prov_ctx *c, const struct tpinfo *t,
			   int i)
{
	struct tref *r = arena_alloc(c->s->arena, sizeof(*r));

	r->base = TRB_TARG;
	r->argno = i;
	r->type = r->final = t->sig.params[i].type;
	return r;
}

static int tp_resolve_target(struct prov_ctx *c, struct derived_probe *dp,
			     struct expr *e)
{
	const struct tpinfo *t = dp->priv;
	struct tref *r;
	int i;

	if (!strcmp(e->name, "$$name") || !strcmp(e->name, "$$system")) {
		r = arena_alloc(c->s->arena, sizeof(*r));
		r->base = TRB_STRING;
		r->reg = e->name[2] == 'n' ? t->name : t->system;
		if (e->comps.n || e->addressof || e->pretty) {
			prov_error(c, e->loc, "'%s' is a plain string", e->name);
			return -1;
		}
		e->tref = r;
		return 0;
	}
	if (!strcmp(e->name, "$$parms") || !strcmp(e->name, "$$vars") ||
	    !strcmp(e->name, "$$locals")) {
		r = target_list(c, e, KFUNC_MAX_PARAMS + 1);
		if (!r)
			return -1;
		for (i = 0; e->name[2] != 'l' && i < t->sig.nparams; i++) {
			r->list_names[r->nlist] = t->sig.params[i].name;
			r->list[r->nlist++] = tp_arg(c, t, i);
		}
		return 0;
	}
	for (i = 0; i < t->sig.nparams; i++)
		if (!strcmp(t->sig.params[i].name, e->name + 1))
			break;
	if (i == t->sig.nparams) {
		struct strbuf sb;

		sb_init(&sb);
		target_list_params(&sb, &t->sig);
		prov_error(c, e->loc, "tracepoint '%s' has no argument '%s' "
			   "(alternatives:%s)", t->name, e->name,
			   sb.buf ? sb.buf : " none");
		sb_free(&sb);
		return -1;
	}
	r = tp_arg(c, t, i);
	return target_bind(c, e, r);
}

static void tp_list_vars(const struct derived_probe *dp, struct strbuf *sb)
{
	const struct tpinfo *t = dp->priv;

	target_list_params(sb, &t->sig);
}

static void tp_emit_group(struct emitter *em, struct vec *dps)
{
	struct strbuf *d = emit_out(em, EMIT_DECLS);
	const char *flags;
	int i, k;

	for (i = 0; i < dps->n; i++) {
		const struct derived_probe *dp = dps->items[i];
		const struct tpinfo *t = dp->priv;

		sb_printf(d, "static void stp_tp_%d(void *data", dp->index);
		for (k = 0; k < t->sig.nparams; k++)
			sb_printf(d, ", u64 a%d", k);
		sb_puts(d, ")\n{\n");
		/* a lean handler reads no argument, not even in its
		 * sampled full runs
		 */
		if (emit_probe_lean(em, dp)) {
			sb_printf(d, "\t__stp_probe_run_lean(%s, "
				  "%s_lean, NULL, NULL, NULL,\n"
				  "\t\t\t     STAP_SESSION_RUNNING, "
				  "STP_TP_PREEMPT_OFF);\n"
				  "}\n\n", emit_probe_ref(em, dp),
				  emit_probe_handler(em, dp));
			continue;
		}
		sb_printf(d, "\tu64 args[%d] = {", t->sig.nparams ?
			  t->sig.nparams : 1);
		for (k = 0; k < t->sig.nparams; k++)
			sb_printf(d, "%s a%d", k ? "," : "", k);
		sb_puts(d, " };\n\n");
		flags = emit_probe_run_flags(em, (struct derived_probe *)dp);
		sb_printf(d, "\t__stp_probe_run_flags(%s, %s, "
			  "NULL, NULL, args,\n\t\t\t      "
			  "STAP_SESSION_RUNNING,\n\t\t\t      "
			  "STP_TP_RUN%s%s);\n}\n\n",
			  emit_probe_ref(em, dp), emit_probe_handler(em, dp),
			  strcmp(flags, "0") ? " | " : "",
			  strcmp(flags, "0") ? flags : "");
	}
	sb_printf(d, "static struct stp_tracepoint stp_tracepoints[%d] = {\n",
		  dps->n);
	for (i = 0; i < dps->n; i++) {
		const struct derived_probe *dp = dps->items[i];
		const struct tpinfo *t = dp->priv;

		sb_printf(d, "\t{\n\t\t.name = \"%s\",\n", t->name);
		if (t->module)
			sb_printf(d, "\t\t.module = \"%s\",\n", t->module);
		sb_printf(d, "\t\t.probe = %s,\n\t\t.fn = stp_tp_%d,\n\t},\n",
			  emit_probe_ref(em, dp), dp->index);
	}
	sb_puts(d, "};\n\n");
	sb_printf(emit_out(em, EMIT_START),
		  "\trc = _stp_tracepoints_register(stp_tracepoints, %d);\n",
		  dps->n);
	sb_printf(emit_out(em, EMIT_STOP),
		  "\t_stp_tracepoints_unregister(stp_tracepoints, %d);\n",
		  dps->n);
}

static const char *tp_probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_TRACEPOINT";
}

static const char *const tp_patterns[] = {
	"kernel.trace(s)",
	NULL
};

const struct provider tracepoint_provider = {
	.name = "kernel.trace",
	.patterns = tp_patterns,
	.expand = tp_expand,
	.build = tp_build,
	.resolve_target = tp_resolve_target,
	.list_vars = tp_list_vars,
	.emit_group = tp_emit_group,
	.probe_type = tp_probe_type,
};
