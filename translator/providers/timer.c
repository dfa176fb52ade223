/* providers/timer.c - timer probes: jiffies timers, high-resolution
 * timers in s/ms/us/ns or hz, with optional randomisation, and the
 * per-CPU profiling tick.  Checks the intervals; no target variables.
 */
#include "../emit.h"
#include "../provider.h"

#include <inttypes.h>
#include <string.h>

#define JIFFIES_MAX 1000000
#define HR_MIN_NS 100000LL			/* 100 us */
#define HR_MAX_NS (86400LL * 1000000000LL)	/* one day */

enum timer_kind {
	TIMER_JIFFIES,
	TIMER_HR,
	TIMER_PROFILE,
};

/* What pass 3 needs to arm the timer. */
struct timer_info {
	enum timer_kind kind;
	int64_t interval;		/* jiffies, or ns for TIMER_HR */
	int64_t randomize;		/* same unit, 0 = none */
};

struct unit {
	const char *name;
	int64_t ns;
};

static const struct unit units[] = {
	{ "s", 1000000000LL }, { "sec", 1000000000LL },
	{ "ms", 1000000LL }, { "msec", 1000000LL },
	{ "us", 1000LL }, { "usec", 1000LL },
	{ "ns", 1LL }, { "nsec", 1LL },
};

static const struct unit *find_unit(const char *functor)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (strcmp(units[i].name, functor) == 0)
			return &units[i];
	return NULL;
}

/* Every numeric component must have its number: "timer.ms" alone is
 * accepted by the patterns only to be reported here.
 */
static bool args_present(struct prov_ctx *c, const struct probe_point *pp)
{
	int i;

	for (i = 1; i < pp->comps.n; i++) {
		const struct pp_comp *comp = vec_get(&pp->comps, i);

		if (comp->arg || strcmp(comp->functor, "profile") == 0 ||
		    strcmp(comp->functor, "tick") == 0)
			continue;
		prov_error(c, comp->loc, "'%s' needs a number: %s(N)",
			   comp->functor, comp->functor);
		return false;
	}
	return true;
}

static int check_randomize(struct prov_ctx *c, const struct probe_point *pp,
			   struct timer_info *t, int64_t scale)
{
	const struct pp_comp *rc = pp_comp_of(pp, intern("randomize"));
	int64_t r;

	if (!rc)
		return 0;
	if (!pp_arg_num(rc->arg, &r) || r < 0 ||
	    (scale > 1 && r > INT64_MAX / scale) || r * scale >= t->interval) {
		prov_error(c, rc->arg ? rc->arg->loc : rc->loc,
			   "randomize value must be at least 0 and less than "
			   "the interval");
		return -1;
	}
	t->randomize = r * scale;
	return 0;
}

static int build_jiffies(struct prov_ctx *c, const struct probe_point *pp,
			 struct timer_info *t)
{
	const struct pp_comp *comp = vec_get(&pp->comps, 1);

	t->kind = TIMER_JIFFIES;
	if (!pp_arg_num(comp->arg, &t->interval) || t->interval < 1 ||
	    t->interval > JIFFIES_MAX) {
		prov_error(c, comp->arg->loc, "timer.jiffies interval must be "
			   "between 1 and %d", JIFFIES_MAX);
		return -1;
	}
	return check_randomize(c, pp, t, 1);
}

static int build_hz(struct prov_ctx *c, const struct probe_point *pp,
		    struct timer_info *t)
{
	const struct pp_comp *comp = vec_get(&pp->comps, 1);
	int64_t hz;

	t->kind = TIMER_HR;
	if (!pp_arg_num(comp->arg, &hz) || hz < 1 ||
	    1000000000LL / hz < HR_MIN_NS) {
		prov_error(c, comp->arg->loc, "timer.hz frequency must be "
			   "between 1 and %lld", 1000000000LL / HR_MIN_NS);
		return -1;
	}
	t->interval = 1000000000LL / hz;
	return 0;
}

static int build_hr(struct prov_ctx *c, const struct probe_point *pp,
		    const struct unit *u, struct timer_info *t)
{
	const struct pp_comp *comp = vec_get(&pp->comps, 1);
	int64_t n;

	t->kind = TIMER_HR;
	if (!pp_arg_num(comp->arg, &n) || n < 1 || n > HR_MAX_NS / u->ns ||
	    n * u->ns < HR_MIN_NS) {
		prov_error(c, comp->arg->loc, "timer interval must be between "
			   "100us and one day");
		return -1;
	}
	t->interval = n * u->ns;
	return check_randomize(c, pp, t, u->ns);
}

static int timer_build(struct prov_ctx *c, struct derived_probe *dp)
{
	const struct probe_point *pp = dp->pp;
	const struct pp_comp *comp = vec_get(&pp->comps, 1);
	struct timer_info *t = arena_alloc(c->s->arena, sizeof(*t));
	const struct unit *u;
	int r;

	if (!args_present(c, pp))
		return -1;
	if (strcmp(comp->functor, "profile") == 0) {
		t->kind = TIMER_PROFILE;
		r = 0;
	} else if (strcmp(comp->functor, "jiffies") == 0) {
		r = build_jiffies(c, pp, t);
	} else if (strcmp(comp->functor, "hz") == 0) {
		r = build_hz(c, pp, t);
	} else if ((u = find_unit(comp->functor))) {
		r = build_hr(c, pp, u, t);
	} else {
		prov_error(c, comp->loc, "unknown timer '%s'", comp->functor);
		r = -1;
	}
	dp->priv = t;
	return r;
}

/* Pass 3.  High-resolution timers rearm themselves from the callback;
 * jiffies timers with mod_timer.  Both run the handler in interrupt
 * context, like the established tool's.
 */
/* The period, in the timer's unit: the interval, and with randomize
 * a uniform offset in [-randomize, randomize] added each time.
 */
static void emit_period(struct strbuf *o, const struct timer_info *t)
{
	if (!t->randomize) {
		sb_printf(o, "%" PRId64, t->interval);
		return;
	}
	sb_printf(o, "%" PRId64 "LL + ((int64_t)(get_random_u32() %% %" PRId64
		  "ULL) - %" PRId64 "LL)", t->interval,
		  2 * t->randomize + 1, t->randomize);
}

static void emit_hrtimer(struct emitter *em, struct derived_probe *dp,
			 const struct timer_info *t)
{
	struct strbuf *d = emit_out(em, EMIT_DECLS);
	int n = dp->index;

	sb_printf(d, "static struct hrtimer stp_timer_%d;\n\n"
		  "static ktime_t stp_timer_%d_period(void)\n{\n"
		  "\treturn ns_to_ktime(", n, n);
	emit_period(d, t);
	sb_printf(d, ");\n}\n\n"
		  "static enum hrtimer_restart stp_timer_%d_fn(struct hrtimer "
		  "*h)\n{\n"
		  "\t_stp_probe_run(%s, get_irq_regs(), "
		  "STAP_SESSION_RUNNING);\n"
		  "\thrtimer_forward_now(h, stp_timer_%d_period());\n"
		  "\treturn HRTIMER_RESTART;\n}\n\n", n,
		  emit_probe_ref(em, dp), n);
	sb_printf(emit_out(em, EMIT_START),
		  "#ifdef STAPCONF_HRTIMER_SETUP\n"
		  "\thrtimer_setup(&stp_timer_%d, stp_timer_%d_fn, "
		  "CLOCK_MONOTONIC,\n\t\t      HRTIMER_MODE_REL);\n"
		  "#else\n"
		  "\thrtimer_init(&stp_timer_%d, CLOCK_MONOTONIC, "
		  "HRTIMER_MODE_REL);\n"
		  "\tstp_timer_%d.function = stp_timer_%d_fn;\n"
		  "#endif\n"
		  "\thrtimer_start(&stp_timer_%d, stp_timer_%d_period(), "
		  "HRTIMER_MODE_REL);\n", n, n, n, n, n, n, n);
	sb_printf(emit_out(em, EMIT_STOP), "\thrtimer_cancel(&stp_timer_%d);\n",
		  n);
}

static void emit_jiffies(struct emitter *em, struct derived_probe *dp,
			 const struct timer_info *t)
{
	struct strbuf *d = emit_out(em, EMIT_DECLS);
	int n = dp->index;

	sb_printf(d, "static struct timer_list stp_timer_%d;\n\n"
		  "static unsigned long stp_timer_%d_period(void)\n{\n"
		  "\treturn ", n, n);
	if (t->randomize)
		sb_puts(d, "(unsigned long)(");
	emit_period(d, t);
	sb_printf(d, "%s;\n}\n\n"
		  "static void stp_timer_%d_fn(struct timer_list *tl)\n{\n"
		  "\t_stp_probe_run(%s, get_irq_regs(), "
		  "STAP_SESSION_RUNNING);\n"
		  "\tif (_stp_session_get_state() == STAP_SESSION_RUNNING)\n"
		  "\t\tmod_timer(tl, jiffies + stp_timer_%d_period());\n"
		  "}\n\n", t->randomize ? ")" : "", n,
		  emit_probe_ref(em, dp), n);
	sb_printf(emit_out(em, EMIT_START),
		  "\ttimer_setup(&stp_timer_%d, stp_timer_%d_fn, 0);\n"
		  "\tmod_timer(&stp_timer_%d, jiffies + "
		  "stp_timer_%d_period());\n", n, n, n, n);
	sb_printf(emit_out(em, EMIT_STOP),
		  "#ifdef STAPCONF_TIMER_DELETE_SYNC\n"
		  "\ttimer_delete_sync(&stp_timer_%d);\n"
		  "#else\n\tdel_timer_sync(&stp_timer_%d);\n#endif\n", n, n);
}

/* The profiling tick: one pinned hrtimer per CPU, each started on its
 * own CPU through on_each_cpu() and firing every scheduler tick with the
 * registers of whatever it interrupted.  A hard timer: PREEMPT_RT runs
 * the others from the timer softirq's thread, which would be what every
 * sample saw.  CPUs brought online later are not sampled.
 */
static void emit_profile(struct emitter *em, struct derived_probe *dp)
{
	struct strbuf *d = emit_out(em, EMIT_DECLS);
	int n = dp->index;

	sb_printf(d, "static DEFINE_PER_CPU(struct hrtimer, stp_profile_%d);\n"
		  "static struct cpumask stp_profile_%d_armed;\n\n"
		  "static enum hrtimer_restart stp_profile_%d_fn(struct hrtimer "
		  "*h)\n{\n"
		  "\t_stp_probe_run(%s, get_irq_regs(), "
		  "STAP_SESSION_RUNNING);\n"
		  "\thrtimer_forward_now(h, ns_to_ktime(TICK_NSEC));\n"
		  "\treturn HRTIMER_RESTART;\n}\n\n"
		  "static void stp_profile_%d_arm(void *unused)\n{\n"
		  "\tstruct hrtimer *h = this_cpu_ptr(&stp_profile_%d);\n\n"
		  "#ifdef STAPCONF_HRTIMER_SETUP\n"
		  "\thrtimer_setup(h, stp_profile_%d_fn, CLOCK_MONOTONIC,\n"
		  "\t\t      HRTIMER_MODE_REL_PINNED_HARD);\n"
		  "#else\n"
		  "\thrtimer_init(h, CLOCK_MONOTONIC, "
		  "HRTIMER_MODE_REL_PINNED_HARD);\n"
		  "\th->function = stp_profile_%d_fn;\n"
		  "#endif\n"
		  "\tcpumask_set_cpu(smp_processor_id(), "
		  "&stp_profile_%d_armed);\n"
		  "\thrtimer_start(h, ns_to_ktime(TICK_NSEC), "
		  "HRTIMER_MODE_REL_PINNED_HARD);\n}\n\n",
		  n, n, n, emit_probe_ref(em, dp), n, n, n, n, n);
	sb_printf(emit_out(em, EMIT_START),
		  "\ton_each_cpu(stp_profile_%d_arm, NULL, 1);\n", n);
	/* Only CPUs that were armed have an initialised timer. */
	sb_printf(emit_out(em, EMIT_STOP),
		  "\t{\n\t\tint cpu;\n\n"
		  "\t\tfor_each_cpu(cpu, &stp_profile_%d_armed)\n"
		  "\t\t\thrtimer_cancel(per_cpu_ptr(&stp_profile_%d, "
		  "cpu));\n"
		  "\t}\n", n, n);
}

static const char *timer_probe_type(const struct derived_probe *dp)
{
	const struct timer_info *t = dp->priv;

	switch (t->kind) {
	case TIMER_JIFFIES:
		return "STP_PROBE_TIMER";
	case TIMER_PROFILE:
		return "STP_PROBE_PROFILE_TIMER";
	case TIMER_HR:
		break;
	}
	return "STP_PROBE_HRTIMER";
}

static void timer_emit(struct emitter *em, struct derived_probe *dp)
{
	const struct timer_info *t = dp->priv;

	switch (t->kind) {
	case TIMER_HR:
		emit_hrtimer(em, dp, t);
		break;
	case TIMER_JIFFIES:
		emit_jiffies(em, dp, t);
		break;
	case TIMER_PROFILE:
		emit_profile(em, dp);
		break;
	}
}

static const char *const timer_patterns[] = {
	"timer.{s,sec,ms,msec,us,usec,ns,nsec,jiffies}{,(n)}"
		"{,.randomize{,(n)}}",
	"timer.hz{,(n)}",
	"timer.profile.tick",
	NULL
};

const struct provider timer_provider = {
	.name = "timer",
	.patterns = timer_patterns,
	.build = timer_build,
	.emit = timer_emit,
	.probe_type = timer_probe_type,
};
