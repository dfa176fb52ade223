/* providers/netfilter.c - netfilter.hook("NAME").pf("FAMILY")
 * [.priority(N)]: a netfilter hook of the module's own in every network
 * namespace (runtime/stp_netfilter.c) whose handler sees the packet and
 * the devices, and under -g sets the verdict the hook returns.
 */
#include "../emit.h"
#include "../provider.h"
#include "../session.h"
#include "../target.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The slots of c->targs, as the hook function fills them. */
enum {
	NF_ARG_HOOKNUM,
	NF_ARG_SKB,
	NF_ARG_IN,
	NF_ARG_OUT,
	NF_ARG_OKFN,
	NF_ARG_VERDICT,
	NF_NARGS
};

struct nf_var {
	const char *name;		/* without the '$' */
	int slot;
	const char *type;		/* as the type source names it */
	bool ptr;			/* a pointer to type */
};

static const struct nf_var nf_vars[] = {
	{ "hooknum", NF_ARG_HOOKNUM, "unsigned int", false },
	{ "skb", NF_ARG_SKB, "struct sk_buff", true },
	{ "in", NF_ARG_IN, "struct net_device", true },
	{ "out", NF_ARG_OUT, "struct net_device", true },
	{ "indev", NF_ARG_IN, "struct net_device", true },
	{ "outdev", NF_ARG_OUT, "struct net_device", true },
	{ "okfn", NF_ARG_OKFN, "long", false },
	{ "verdict", NF_ARG_VERDICT, "unsigned int", false },
};

#define NF_NVARS ((int)(sizeof(nf_vars) / sizeof(nf_vars[0])))

/* The families and their hooks, by the kernel's names (uapi
 * linux/netfilter.h and the netfilter_*.h of each family); hook i is
 * the hook number i.
 */
struct nf_family {
	const char *name;
	int pf;
	const char *prefix;		/* of the hook names */
	const char *const *hooks;
	int nhooks;
};

static const char *const inet_hooks[] = {
	"PRE_ROUTING", "LOCAL_IN", "FORWARD", "LOCAL_OUT", "POST_ROUTING",
};
static const char *const arp_hooks[] = { "IN", "OUT", "FORWARD" };

static const struct nf_family nf_families[] = {
	{ "NFPROTO_IPV4", 2, "NF_INET_", inet_hooks, 5 },
	{ "NFPROTO_IPV4", 2, "NF_IP_", inet_hooks, 5 },
	{ "NFPROTO_IPV6", 10, "NF_INET_", inet_hooks, 5 },
	{ "NFPROTO_IPV6", 10, "NF_IP6_", inet_hooks, 5 },
	{ "NFPROTO_ARP", 3, "NF_ARP_", arp_hooks, 3 },
	{ "NFPROTO_BRIDGE", 7, "NF_BR_", inet_hooks, 5 },
};

#define NF_NFAMILIES ((int)(sizeof(nf_families) / sizeof(nf_families[0])))

/* Named priorities of the IPv4 and IPv6 tables (linux/netfilter_ipv4.h
 * and _ipv6.h; the same numbers under NF_IP6_PRI_*).
 */
static const struct {
	const char *name;
	int64_t value;
} nf_priorities[] = {
	{ "FIRST", INT_MIN },
	{ "RAW_BEFORE_DEFRAG", -450 },
	{ "CONNTRACK_DEFRAG", -400 },
	{ "RAW", -300 },
	{ "SELINUX_FIRST", -225 },
	{ "CONNTRACK", -200 },
	{ "MANGLE", -150 },
	{ "NAT_DST", -100 },
	{ "FILTER", 0 },
	{ "SECURITY", 50 },
	{ "NAT_SRC", 100 },
	{ "SELINUX_LAST", 225 },
	{ "CONNTRACK_HELPER", 300 },
	{ "CONNTRACK_CONFIRM", INT_MAX },
	{ "LAST", INT_MAX },
};

struct nf_info {
	int hook, pf;
	int64_t priority;
	const struct ktype *types[NF_NVARS];
};

/* A number written as a string ("0", "-100"): true and *out. */
static bool str_num(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!*s)
		return false;
	v = strtoll(s, &end, 0);
	if (*end)
		return false;
	*out = v;
	return true;
}

static int nf_family_of(const char *pf, int64_t *num)
{
	int i;

	for (i = 0; i < NF_NFAMILIES; i++)
		if (!strcmp(nf_families[i].name, pf))
			return nf_families[i].pf;
	if (str_num(pf, num) && (*num == 2 || *num == 3 || *num == 7 ||
				 *num == 10))
		return (int)*num;
	return -1;
}

static int nf_hook_of(int pf, const char *hook)
{
	int64_t num;
	int i, k;

	for (i = 0; i < NF_NFAMILIES; i++) {
		const struct nf_family *f = &nf_families[i];
		size_t n = strlen(f->prefix);

		if (f->pf != pf || strncmp(hook, f->prefix, n))
			continue;
		for (k = 0; k < f->nhooks; k++)
			if (!strcmp(hook + n, f->hooks[k]))
				return k;
	}
	for (i = 0; i < NF_NFAMILIES; i++)
		if (nf_families[i].pf == pf)
			break;
	if (str_num(hook, &num) && num >= 0 &&
	    num < nf_families[i].nhooks)
		return (int)num;
	return -1;
}

static bool nf_priority_of(const char *s, int64_t *out)
{
	const char *rest = NULL;
	int i;

	if (str_num(s, out))
		return *out >= INT_MIN && *out <= INT_MAX;
	if (!strncmp(s, "NF_IP_PRI_", 10))
		rest = s + 10;
	else if (!strncmp(s, "NF_IP6_PRI_", 11))
		rest = s + 11;
	for (i = 0; rest && i < (int)(sizeof(nf_priorities) /
				     sizeof(nf_priorities[0])); i++)
		if (!strcmp(rest, nf_priorities[i].name)) {
			*out = nf_priorities[i].value;
			return true;
		}
	return false;
}

static const struct pp_comp *nf_comp(const struct probe_point *pp,
				     const char *functor)
{
	return pp_comp_of(pp, intern(functor));
}

/* The types of the variables, from the kernel's type source when it
 * has them; a plain long otherwise.
 */
static const struct ktype nf_long = { .kind = KT_INT, .name = "long",
				      .size = 8, .is_signed = true };

static void nf_types(struct prov_ctx *c, struct derived_probe *dp,
		     struct nf_info *ni)
{
	const struct ksrc *src = target_kernel_types(c, dp->pp->loc);
	int i;

	for (i = 0; i < NF_NVARS; i++) {
		const struct ktype *t = NULL;

		if (src && src->ops->type_by_name(src, nf_vars[i].type, &t))
			t = NULL;
		if (t && nf_vars[i].ptr)
			t = target_pointer_to(c->s->arena, t);
		ni->types[i] = t ? t : &nf_long;
	}
}

static int nf_build(struct prov_ctx *c, struct derived_probe *dp)
{
	const struct pp_comp *hk = nf_comp(dp->pp, "hook");
	const struct pp_comp *pf = nf_comp(dp->pp, "pf");
	const struct pp_comp *pr = nf_comp(dp->pp, "priority");
	struct nf_info *ni = arena_alloc(c->s->arena, sizeof(*ni));
	int64_t num = 0;

	ni->pf = nf_family_of(pf->arg->str, &num);
	if (ni->pf < 0) {
		prov_error(c, pf->arg->loc, "unknown netfilter protocol family "
			   "\"%s\" (NFPROTO_IPV4, NFPROTO_IPV6, NFPROTO_ARP "
			   "or NFPROTO_BRIDGE)", pf->arg->str);
		return -1;
	}
	ni->hook = nf_hook_of(ni->pf, hk->arg->str);
	if (ni->hook < 0) {
		prov_error(c, hk->arg->loc, "unknown netfilter hook \"%s\" "
			   "for protocol family \"%s\"", hk->arg->str,
			   pf->arg->str);
		return -1;
	}
	if (pr && pr->arg && pr->arg->kind == EX_STR &&
	    !nf_priority_of(pr->arg->str, &ni->priority)) {
		prov_error(c, pr->arg->loc, "unknown netfilter priority "
			   "\"%s\" (a number, or NF_IP_PRI_* / NF_IP6_PRI_*)",
			   pr->arg->str);
		return -1;
	}
	if (pr && pr->arg && pr->arg->kind != EX_STR &&
	    (!pp_arg_num(pr->arg, &ni->priority) || ni->priority < INT_MIN ||
	     ni->priority > INT_MAX)) {
		prov_error(c, pr->arg->loc, "netfilter priority must be a "
			   "32-bit number");
		return -1;
	}
	nf_types(c, dp, ni);
	dp->priv = ni;
	return 0;
}

static struct tref *nf_tref(struct prov_ctx *c, const struct nf_info *ni,
			    int i)
{
	struct tref *r = arena_alloc(c->s->arena, sizeof(*r));

	r->base = TRB_TARG;
	r->argno = nf_vars[i].slot;
	r->type = r->final = ni->types[i];
	r->writable = nf_vars[i].slot == NF_ARG_VERDICT;
	return r;
}

static int nf_resolve_target(struct prov_ctx *c, struct derived_probe *dp,
			     struct expr *e)
{
	const struct nf_info *ni = dp->priv;
	struct tref *r;
	int i;

	if (!strcmp(e->name, "$$parms") || !strcmp(e->name, "$$vars")) {
		r = target_list(c, e, NF_NVARS);
		if (!r)
			return -1;
		for (i = 0; i < NF_NVARS; i++) {
			r->list_names[r->nlist] = nf_vars[i].name;
			r->list[r->nlist++] = nf_tref(c, ni, i);
		}
		return 0;
	}
	for (i = 0; i < NF_NVARS; i++)
		if (!strcmp(nf_vars[i].name, e->name + 1))
			break;
	if (i == NF_NVARS) {
		prov_error(c, e->loc, "netfilter probes have no '%s' "
			   "(alternatives: $hooknum $skb $in $out $indev "
			   "$outdev $okfn $verdict)", e->name);
		return -1;
	}
	return target_bind(c, e, nf_tref(c, ni, i));
}

static void nf_list_vars(const struct derived_probe *dp, struct strbuf *sb)
{
	const struct nf_info *ni = dp->priv;
	int i;

	for (i = 0; i < NF_NVARS; i++)
		sb_printf(sb, " $%s:%s", nf_vars[i].name,
			  ktype_name(ni->types[i]));
}

static const char *nf_probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_NETFILTER";
}

static void nf_emit_hook(struct emitter *em, struct strbuf *d,
			 const struct derived_probe *dp)
{
	sb_printf(d, "static unsigned int stp_nf_%d(void *priv, "
		  "struct sk_buff *skb,\n\t\t\t\tconst struct nf_hook_state "
		  "*state)\n{\n", dp->index);
	if (emit_probe_lean(em, dp)) {
		sb_printf(d, "\t__stp_probe_run_lean(%s, %s_lean, "
			  "NULL, NULL, NULL,\n\t\t\t     "
			  "STAP_SESSION_RUNNING, false);\n\treturn NF_ACCEPT;"
			  "\n}\n\n", emit_probe_ref(em, dp),
			  emit_probe_handler(em, dp));
		return;
	}
	sb_printf(d, "\tu64 args[%d] = {\n"
		  "\t\t[%d] = state->hook,\n"
		  "\t\t[%d] = (unsigned long)skb,\n"
		  "\t\t[%d] = (unsigned long)state->in,\n"
		  "\t\t[%d] = (unsigned long)state->out,\n"
		  "\t\t[%d] = (unsigned long)state->okfn,\n"
		  "\t\t[%d] = NF_ACCEPT,\n\t};\n\n", NF_NARGS,
		  NF_ARG_HOOKNUM, NF_ARG_SKB, NF_ARG_IN, NF_ARG_OUT,
		  NF_ARG_OKFN, NF_ARG_VERDICT);
	sb_printf(d, "\t__stp_probe_run_flags(%s, %s, NULL, NULL, "
		  "args,\n\t\t\t      STAP_SESSION_RUNNING, %s);\n"
		  "\treturn (unsigned int)args[%d];\n}\n\n",
		  emit_probe_ref(em, dp), emit_probe_handler(em, dp),
		  emit_probe_run_flags(em, (struct derived_probe *)dp),
		  NF_ARG_VERDICT);
}

static void nf_emit_group(struct emitter *em, struct vec *dps)
{
	struct strbuf *d = emit_out(em, EMIT_DECLS);
	int i;

	sb_puts(d, "#include <linux/netfilter.h>\n\n");
	for (i = 0; i < dps->n; i++)
		nf_emit_hook(em, d, dps->items[i]);
	sb_printf(d, "static struct nf_hook_ops stp_nf_ops[%d] = {\n",
		  dps->n);
	for (i = 0; i < dps->n; i++) {
		const struct derived_probe *dp = dps->items[i];
		const struct nf_info *ni = dp->priv;

		sb_printf(d, "\t{ .hook = stp_nf_%d, .pf = %d, .hooknum = %d, "
			  ".priority = %" PRId64 " },\n", dp->index, ni->pf,
			  ni->hook, ni->priority);
	}
	sb_puts(d, "};\n\n");
	sb_printf(emit_out(em, EMIT_START),
		  "\trc = _stp_netfilter_register(stp_nf_ops, %d);\n",
		  dps->n);
	sb_puts(emit_out(em, EMIT_STOP), "\t_stp_netfilter_unregister();\n");
}

static const char *const nf_patterns[] = {
	"netfilter{.hook(s).pf(s),.pf(s).hook(s)}{,.priority({s,n})}",
	NULL
};

const struct provider netfilter_provider = {
	.name = "netfilter",
	.patterns = nf_patterns,
	.build = nf_build,
	.resolve_target = nf_resolve_target,
	.list_vars = nf_list_vars,
	.emit_group = nf_emit_group,
	.probe_type = nf_probe_type,
};
