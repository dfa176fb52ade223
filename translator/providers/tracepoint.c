/* providers/tracepoint.c - kernel.trace("[system:]event"), wildcards in
 * both parts.  Events and their argument names come from the kernel's
 * trace headers (debuginfo/tracepoints.c), argument types from the
 * btf_trace_EVENT typedefs of its BTF; an event needs both.  The module
 * attaches a callback taking every argument as a 64-bit word (what the
 * x86-64 convention passes for these scalar and pointer arguments).
 */
#include "../debuginfo/btf.h"
#include "../debuginfo/tracepoints.h"
#include "../emit.h"
#include "../provider.h"
#include "../session.h"
#include "../target.h"

#include <string.h>

struct tpinfo {
	const struct ktp_event *ev;
	struct kfunc sig;		/* types; names from ev */
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

static void tp_cb(const struct ktp_event *ev, void *arg)
{
	struct tp_collect *k = arg;
	struct arena *a = k->c->s->arena;
	struct probe_point *np;
	struct kfunc f;
	int i;

	/* the headers list events the kernel was built without */
	if (kbtf_tracepoint(k->btf, ev->name, &f) || f.nparams != ev->nargs)
		return;
	np = arena_alloc(a, sizeof(*np));
	*np = *k->pp;
	memset(&np->comps, 0, sizeof(np->comps));
	for (i = 0; i < k->pp->comps.n; i++) {
		const struct pp_comp *oc = vec_get(&k->pp->comps, i);
		struct pp_comp *nc = arena_alloc(a, sizeof(*nc));

		*nc = *oc;
		if (!strcmp(oc->functor, "trace")) {
			struct expr *s = arena_alloc(a, sizeof(*s));

			*s = *oc->arg;
			s->str = arena_printf(a, "%s:%s", ev->system, ev->name);
			nc->arg = s;
		}
		vec_push(a, &np->comps, nc);
	}
	vec_push(a, k->out, np);
}

static int tp_expand(struct prov_ctx *c, const struct probe_point *pp,
		     struct vec *out)
{
	struct tp_collect k = { c, pp, NULL, out };
	const char *spec = trace_arg(pp), *colon;
	struct ktp_catalog *cat;
	char *sys = NULL;

	if (!spec)
		return -1;
	cat = target_tracepoints(c, pp->loc);
	k.btf = target_kernel_btf(c, pp->loc);
	if (!cat || !k.btf)
		return -1;
	colon = strchr(spec, ':');
	if (colon)
		sys = arena_strndup(c->s->arena, spec, (size_t)(colon - spec));
	ktp_each(cat, sys, colon ? colon + 1 : spec, tp_cb, &k);
	if (!out->n && !has_wildcard(spec) && !c->optional && !c->quiet)
		prov_error(c, pp->loc, "no tracepoint '%s' in kernel %s", spec,
			   c->s->kernel_vr);
	return out->n;
}

static int tp_build(struct prov_ctx *c, struct derived_probe *dp)
{
	const char *spec = trace_arg(dp->pp);
	const char *colon = strchr(spec, ':');
	struct tpinfo *t = arena_alloc(c->s->arena, sizeof(*t));
	struct ktp_catalog *cat = target_tracepoints(c, dp->pp->loc);
	struct kbtf *btf = target_kernel_btf(c, dp->pp->loc);
	int i;

	dp->priv = t;
	if (!cat || !btf || !colon)
		return -1;
	t->ev = ktp_find(cat, arena_strndup(c->s->arena, spec,
					    (size_t)(colon - spec)), colon + 1);
	if (!t->ev || kbtf_tracepoint(btf, t->ev->name, &t->sig))
		return -1;
	for (i = 0; i < t->sig.nparams; i++)
		t->sig.params[i].name = t->ev->arg_names[i];
	return 0;
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
		r->reg = e->name[2] == 'n' ? t->ev->name : t->ev->system;
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
			   "(alternatives:%s)", t->ev->name, e->name,
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
				  "stp_probe_%d_lean, NULL, NULL, NULL,\n"
				  "\t\t\t     STAP_SESSION_RUNNING, false);\n"
				  "}\n\n", emit_probe_ref(em, dp), dp->index);
			continue;
		}
		sb_printf(d, "\tu64 args[%d] = {", t->sig.nparams ?
			  t->sig.nparams : 1);
		for (k = 0; k < t->sig.nparams; k++)
			sb_printf(d, "%s a%d", k ? "," : "", k);
		sb_puts(d, " };\n\n");
		sb_printf(d, "\t__stp_probe_run_flags(%s, stp_probe_%d, "
			  "NULL, NULL, args,\n\t\t\t      "
			  "STAP_SESSION_RUNNING, %s);\n}\n\n",
			  emit_probe_ref(em, dp), dp->index,
			  emit_probe_may_print(em, (struct derived_probe *)dp) ?
			  "true" : "false");
	}
	sb_printf(d, "static struct stp_tracepoint stp_tracepoints[%d] = {\n",
		  dps->n);
	for (i = 0; i < dps->n; i++) {
		const struct derived_probe *dp = dps->items[i];
		const struct tpinfo *t = dp->priv;

		sb_printf(d, "\t{ .name = \"%s\", .probe = %s, .fn = stp_tp_%d "
			  "},\n", t->ev->name, emit_probe_ref(em, dp),
			  dp->index);
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
