/* providers/perf.c - perf.type(T).config(C)[.sample(N)|.hz(N)]: a perf
 * event on every CPU, the handler run at each overflow (every N events,
 * 1000000 by default, or N times a second), through the kernel's
 * perf_event_create_kernel_counter (runtime/stp_perf.c).  The tapset
 * names the usual events (perf.hw.*, perf.sw.*, perf.hw_cache.*).
 * .process and .counter are recognised and reported as not supported
 * yet.  No target variables.
 */
#include "../emit.h"
#include "../provider.h"
#include "../session.h"

#include <inttypes.h>
#include <string.h>

#define PERF_DEFAULT_PERIOD 1000000

struct perf_info {
	int64_t type;
	int64_t config;
	int64_t period;			/* or the frequency, when freq */
	bool freq;
};

static int perf_build(struct prov_ctx *c, struct derived_probe *dp)
{
	const struct probe_point *pp = dp->pp;
	const struct pp_comp *tc = pp_comp_of(pp, intern("type"));
	const struct pp_comp *cc = pp_comp_of(pp, intern("config"));
	const struct pp_comp *sc = pp_comp_of(pp, intern("sample"));
	const struct pp_comp *hc = pp_comp_of(pp, intern("hz"));
	const struct pp_comp *xc = pp_comp_of(pp, intern("process"));
	struct perf_info *pi = arena_alloc(c->s->arena, sizeof(*pi));

	if (!xc)
		xc = pp_comp_of(pp, intern("counter"));
	if (xc) {
		prov_error(c, xc->loc, "perf probes with .%s are not "
			   "supported yet (a perf event of every CPU is: "
			   "perf.type(T).config(C)[.sample(N)|.hz(N)])",
			   xc->functor);
		return -1;
	}
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
	dp->priv = pi;
	return 0;
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

	sb_printf(d, "#define STP_HAVE_PERF 1\n"
		  "static struct stp_perf stp_perfs[%d] = {\n", dps->n);
	for (i = 0; i < dps->n; i++) {
		const struct derived_probe *dp = dps->items[i];
		const struct perf_info *pi = dp->priv;

		sb_printf(d, "\t{ .type = %" PRId64 "U, .config = %#" PRIx64
			  "ULL, .period = %" PRId64 "ULL, .freq = %s, "
			  ".probe = %s },\n", pi->type, (uint64_t)pi->config,
			  pi->period, pi->freq ? "true" : "false",
			  emit_probe_ref(em, dp));
	}
	sb_puts(d, "};\n\n");
	sb_printf(emit_out(em, EMIT_START),
		  "\trc = _stp_perf_register(stp_perfs, %d);\n", dps->n);
	sb_printf(emit_out(em, EMIT_STOP),
		  "\t_stp_perf_unregister(stp_perfs, %d);\n", dps->n);
}

static const char *const perf_patterns[] = {
	"perf.type(n).config(n){,.sample(n),.hz(n),.process{,(s)},"
		".counter(s),.process(s).counter(s)}",
	NULL
};

const struct provider perf_provider = {
	.name = "perf",
	.patterns = perf_patterns,
	.build = perf_build,
	.emit_group = perf_emit_group,
	.probe_type = perf_probe_type,
};
