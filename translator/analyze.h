/* analyze.h - the analyses between elaboration and emission: the locks
 * of each probe, call depth and recursion, lean handlers, counters, the
 * parts of statistics read and written-only globals.  Results live on
 * the tree (derived_probe, vardecl, func, session); the emitter only
 * reads them.
 */
#ifndef TAPIR_ANALYZE_H
#define TAPIR_ANALYZE_H

#include "elab.h"

/* What a probe's handler needs of one global (derived_probe.locks). */
enum lock_mode {
	LOCK_NONE,
	LOCK_READ,		/* shared: reads, adds to a counter or stat */
	LOCK_WRITE,		/* exclusive */
};

/* Run every analysis over the elaborated session, once. */
void analyze(struct session *s);

/* The global that an add statement (x++, x += e, a[k]--, ...) adds
 * to, or NULL: the writes a counter is made of.
 */
const struct vardecl *analyze_counter_target(const struct expr *e);

/* The -p2 -v section "# analysis": what analyze() found. */
void analyze_print(struct strbuf *sb, struct session *s);

#endif
