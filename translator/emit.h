/* emit.h - pass 3: the kernel module's C text, written against the
 * runtime (the headers in runtime/).  Providers add their declarations and the
 * registration of their probes through the hooks in provider.h.
 */
#ifndef TAPIR_EMIT_H
#define TAPIR_EMIT_H

#include "elab.h"

struct emitter;

/* Generate the module source for the elaborated session into out.
 * Returns 0, or -1 after reporting errors (constructs that pass 3 does
 * not support yet are errors, never silently dropped).
 */
int emit_module(struct session *s, const char *module_name,
		struct strbuf *out);

/* For providers: the output section being written. */
enum emit_section {
	EMIT_DECLS,		/* file scope, after the probe handlers */
	EMIT_START,		/* inside stp_probes_start(): register */
	EMIT_STOP,		/* inside stp_probes_stop(): unregister */
};

struct strbuf *emit_out(struct emitter *em, enum emit_section sec);
/* The C name of the probe's descriptor: "&stp_probes[N]". */
const char *emit_probe_ref(struct emitter *em, const struct derived_probe *dp);
/* The C function that runs dp's handler, "stp_probe_N": its own, or
 * that of an earlier probe whose handler is the same (handler sharing);
 * its lean copy, when it has one, is the name with "_lean" after it.
 */
const char *emit_probe_handler(struct emitter *em,
			       const struct derived_probe *dp);
/* The probe whose handler dp runs (dp's own index when not shared). */
int emit_probe_runs(const struct emitter *em, const struct derived_probe *dp);
/* Report an error at a location (pass 3 fails). */
void emit_error(struct emitter *em, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct session *emit_session(struct emitter *em);
/* The last argument of __stp_probe_run_flags for dp's handler, as C:
 * STP_RUN_PRINT when it can print (the flush is spared when not),
 * STP_RUN_SAMPLED when its cost per hit is bounded (stp_probe_inline.h).
 */
const char *emit_probe_run_flags(struct emitter *em,
				 struct derived_probe *dp);
/* The probe's handler has a lean copy, stp_probe_N_lean(void), that
 * needs no context (analyze.c says when); its callback may run it through
 * the runtime's __stp_probe_run_lean().
 */
bool emit_probe_lean(struct emitter *em, const struct derived_probe *dp);

#endif
