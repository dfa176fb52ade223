/* providers/perf.c - perf.type(T).config(C)[.sample(N)|.hz(N)]: a perf
 * event on every CPU, the handler run at each overflow (every N events,
 * 1000000 by default, or N times a second), through the kernel's
 * perf_event_create_kernel_counter (runtime/stp_perf.c).  With
 * .process[("PATH")] the event is the target process's (-c/-x), and
 * of what it creates, the handler run only in the tasks running PATH;
 * with .counter("NAME") it only counts, for @perf("NAME").  The tapset
 * names the usual events (perf.hw.*, perf.sw.*, perf.hw_cache.*).  No
 * target variables.
 */
#include "../debuginfo/uelf.h"
#include "../emit.h"
#include "../provider.h"
#include "../session.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PERF_DEFAULT_PERIOD 1000000

struct perf_info {
	int64_t type;
	int64_t config;
	int64_t period;			/* or the frequency, when freq */
	bool freq;
	bool task;			/* .process: the target's */
	const char *path;		/* .process("PATH"), resolved */
	const char *counter;		/* .counter("NAME") */
};

/* .process("PATH") as a shell finds PATH; NULL after reporting. */
static const char *resolve_path(struct prov_ctx *c, const struct pp_comp *pc)
{
	char *err = NULL, *path = uelf_resolve(pc->arg->str, &err);
	const char *r;

	if (!path) {
		prov_error(c, pc->arg->loc, "%s", err);
		free(err);
		return NULL;
	}
	r = arena_strdup(c->s->arena, path);
	free(path);
	return r;
}

/* A counter's name is unique among the perf probes derived before. */
static int check_counter(struct prov_ctx *c, struct derived_probe *dp,
			 const struct pp_comp *cc)
{
	struct vec *all = &c->s->probes;
	int i;

	for (i = 0; i < all->n; i++) {
		const struct derived_probe *o = all->items[i];
		const struct perf_info *oi = o->priv;

		if (o->prov == dp->prov && oi && oi->counter &&
		    !strcmp(oi->counter, cc->arg->str)) {
			prov_error(c, cc->arg->loc, "perf counter \"%s\" is "
				   "already defined (by %s)", oi->counter,
				   o->name);
			return -1;
		}
	}
	return 0;
}

static int build_process(struct prov_ctx *c, struct derived_probe *dp,
			 struct perf_info *pi)
{
	const struct pp_comp *pc = pp_comp_of(dp->pp, intern("process"));
	const struct pp_comp *cc = pp_comp_of(dp->pp, intern("counter"));

	pi->task = pc || cc;
	if (pc && pc->arg) {
		pi->path = resolve_path(c, pc);
		if (!pi->path)
			return -1;
	}
	if (cc) {
		if (!*cc->arg->str) {
			prov_error(c, cc->arg->loc, "a perf counter needs a "
				   "name");
			return -1;
		}
		if (check_counter(c, dp, cc))
			return -1;
		pi->counter = cc->arg->str;
	}
	return 0;
}

static int perf_build(struct prov_ctx *c, struct derived_probe *dp)
{
	const struct probe_point *pp = dp->pp;
	const struct pp_comp *tc = pp_comp_of(pp, intern("type"));
	const struct pp_comp *cc = pp_comp_of(pp, intern("config"));
	const struct pp_comp *sc = pp_comp_of(pp, intern("sample"));
	const struct pp_comp *hc = pp_comp_of(pp, intern("hz"));
	struct perf_info *pi = arena_alloc(c->s->arena, sizeof(*pi));

	if (!pp_arg_num(tc->arg, &pi->type) || pi->type < 0 ||
	    pi->type > UINT32_MAX) {
		prov_error(c, tc->arg->loc, "perf type must be between 0 and "
			   "%u", UINT32_MAX);
		return -1;
	}
	/* config is a 64-bit pattern: any literal goes */
	pp_arg_num(cc->arg, &pi->config);
	pi->period = PERF_DEFAULT_PERIOD;
	if (sc || hc) {
		const struct pp_comp *n = sc ? sc : hc;

		if (!pp_arg_num(n->arg, &pi->period) || pi->period < 1) {
			prov_error(c, n->arg->loc, "perf %s must be at least 1",
				   sc ? "sample period" : "frequency");
			return -1;
		}
		pi->freq = hc != NULL;
	}
	if (build_process(c, dp, pi))
		return -1;
	dp->priv = pi;
	return 0;
}

int perf_counter_slot(struct session *s, const char *name)
{
	int i, slot = 0;

	for (i = 0; i < s->probes.n; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		const struct perf_info *pi = dp->priv;

		if (dp->prov != &perf_provider)
			continue;
		if (pi->counter && !strcmp(pi->counter, name))
			return slot;
		slot++;
	}
	return -1;
}

static const char *perf_probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_PERF";
}

static void perf_emit_group(struct emitter *em, struct vec *dps)
{
	struct strbuf *d = emit_out(em, EMIT_DECLS);
	int i;

	sb_printf(d, "static struct stp_perf stp_perfs[%d] = {\n", dps->n);
	for (i = 0; i < dps->n; i++) {
		const struct derived_probe *dp = dps->items[i];
		const struct perf_info *pi = dp->priv;

		sb_printf(d, "\t{ .type = %" PRId64 "U, .config = %#" PRIx64
			  "ULL, .period = %" PRId64 "ULL, .freq = %s,\n"
			  "\t  .task = %s, .counter = %s, .path = ",
			  pi->type, (uint64_t)pi->config, pi->period,
			  pi->freq ? "true" : "false",
			  pi->task ? "true" : "false",
			  pi->counter ? "true" : "false");
		if (pi->path)
			sb_c_string(d, pi->path);
		else
			sb_puts(d, "NULL");
		sb_printf(d, ", .probe = %s },\n", emit_probe_ref(em, dp));
	}
	sb_puts(d, "};\n\n");
	sb_printf(emit_out(em, EMIT_START),
		  "\trc = _stp_perf_register(stp_perfs, %d);\n", dps->n);
	sb_printf(emit_out(em, EMIT_STOP),
		  "\t_stp_perf_unregister(stp_perfs, %d);\n", dps->n);
}

static const char *const perf_patterns[] = {
	"perf.type(n).config(n){,.sample(n),.hz(n)}{,.process{,(s)}}",
	"perf.type(n).config(n).process{,(s)}{.sample(n),.hz(n)}",
	"perf.type(n).config(n){,.process{,(s)}}.counter(s)",
	NULL
};

const struct provider perf_provider = {
	.name = "perf",
	.patterns = perf_patterns,
	.build = perf_build,
	.emit_group = perf_emit_group,
	.probe_type = perf_probe_type,
};
