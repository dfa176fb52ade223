/* providers/process_events.c - process.begin, process.end,
 * process.thread.begin and process.thread.end: the life of user
 * processes and threads (runtime/stp_task.c), each probe run in the task
 * it is about; -c/-x limit them to the target's process tree,
 * process(PID) to one process and process("PATH") to the processes that
 * run a program (found as a shell finds it, named by its canonical path).
 * No target variables.
 */
#include "../emit.h"
#include "../provider.h"
#include "../session.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

/* The runtime's enum stp_task_event of a point: the functors after
 * "process" are begin, end, thread.begin or thread.end.
 */
static const char *pe_event(const struct probe_point *pp)
{
	const struct pp_comp *last = vec_get(&pp->comps, pp->comps.n - 1);
	bool thread = pp->comps.n == 3;
	bool begin = !strcmp(last->functor, "begin");

	if (thread)
		return begin ? "STP_TASK_THREAD_BEGIN" : "STP_TASK_THREAD_END";
	return begin ? "STP_TASK_BEGIN" : "STP_TASK_END";
}

struct pe_info {
	const char *event;
	int64_t pid;		/* process(PID), or 0 */
	const char *path;	/* process("PATH"), or NULL */
};

static int pe_build(struct prov_ctx *c, struct derived_probe *dp)
{
	struct pe_info *pi = arena_alloc(c->s->arena, sizeof(*pi));
	const struct pp_comp *proc = vec_get(&dp->pp->comps, 0);

	pi->event = pe_event(dp->pp);
	if (proc->arg && proc->arg->kind == EX_STR)
		pi->path = proc->arg->str;
	else if (proc->arg && pp_arg_num(proc->arg, &pi->pid) &&
	    (pi->pid <= 0 || pi->pid > INT32_MAX)) {
		prov_error(c, proc->arg->loc, "process(%" PRId64 "): not a "
			   "process ID", pi->pid);
		return -1;
	}
	dp->priv = pi;
	return 0;
}

static void pe_emit_group(struct emitter *em, struct vec *dps)
{
	struct strbuf *d = emit_out(em, EMIT_DECLS);
	int i;

	sb_printf(d, "static struct stp_task_probe stp_task_probes[%d] = {\n",
		  dps->n);
	for (i = 0; i < dps->n; i++) {
		const struct derived_probe *dp = dps->items[i];
		const struct pe_info *pi = dp->priv;

		sb_printf(d, "\t{ .event = %s, .pid = %" PRId64 ", ",
			  pi->event, pi->pid);
		if (pi->path) {
			sb_puts(d, ".path = ");
			sb_c_string(d, pi->path);
			sb_puts(d, ", ");
		}
		sb_printf(d, ".probe = %s },\n", emit_probe_ref(em, dp));
	}
	sb_puts(d, "};\n\n");
	sb_printf(emit_out(em, EMIT_START),
		  "\trc = _stp_task_probes_register(stp_task_probes, %d);\n",
		  dps->n);
	sb_printf(emit_out(em, EMIT_STOP),
		  "\t_stp_task_probes_unregister(stp_task_probes, %d);\n",
		  dps->n);
}

static const char *pe_probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_PROCESS";
}

static const char *const pe_patterns[] = {
	"process{,(n),(s)}{.begin,.end,.thread.begin,.thread.end}",
	NULL
};

const struct provider process_events_provider = {
	.name = "process events",
	.patterns = pe_patterns,
	.expand = prov_expand_process,
	.build = pe_build,
	.emit_group = pe_emit_group,
	.probe_type = pe_probe_type,
};
