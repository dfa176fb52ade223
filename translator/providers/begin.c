/* providers/begin.c - the begin, end and error probes (with an optional
 * signed sequence number that orders them) and the never probe, which is
 * only type-checked.  None of them has target variables.
 */
#include "../provider.h"

/* What pass 3 needs: when the probe runs relative to its siblings. */
struct be_info {
	int64_t seq;
};

static int be_build(struct prov_ctx *c, struct derived_probe *dp)
{
	const struct pp_comp *comp = vec_get(&dp->pp->comps, 0);
	struct be_info *info = arena_alloc(c->s->arena, sizeof(*info));

	if (comp->arg && !pp_arg_num(comp->arg, &info->seq)) {
		prov_error(c, comp->loc, "sequence of '%s' must be a number",
			   comp->functor);
		return -1;
	}
	dp->priv = info;
	return 0;
}

static int never_build(struct prov_ctx *c, struct derived_probe *dp)
{
	(void)c;
	(void)dp;
	return 0;
}

/* As probe_type() reports the session's events. */
static const char *be_probe_type(const struct derived_probe *dp)
{
	switch (dp->prov->run) {
	case PROV_RUN_END:
		return "STP_PROBE_END";
	case PROV_RUN_ERROR:
		return "STP_PROBE_ERROR";
	default:
		return "STP_PROBE_BEGIN";
	}
}

static const char *const begin_patterns[] = { "begin{,(n)}", NULL };
static const char *const end_patterns[] = { "end{,(n)}", NULL };
static const char *const error_patterns[] = { "error{,(n)}", NULL };
static const char *const never_patterns[] = { "never", NULL };

const struct provider begin_provider = {
	.name = "begin",
	.patterns = begin_patterns,
	.build = be_build,
	.run = PROV_RUN_BEGIN,
	.probe_type = be_probe_type,
};

const struct provider end_provider = {
	.name = "end",
	.patterns = end_patterns,
	.build = be_build,
	.run = PROV_RUN_END,
	.probe_type = be_probe_type,
};

const struct provider error_provider = {
	.name = "error",
	.patterns = error_patterns,
	.build = be_build,
	.run = PROV_RUN_ERROR,
	.probe_type = be_probe_type,
};

const struct provider never_provider = {
	.name = "never",
	.patterns = never_patterns,
	.build = never_build,
	.run = PROV_RUN_NEVER,
};
