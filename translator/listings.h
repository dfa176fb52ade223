/* listings.h - what stap prints without running a script: the probe
 * point patterns of the providers, the tapset's aliases and functions,
 * and the example scripts shipped with tapir.
 */
#ifndef TAPIR_LISTINGS_H
#define TAPIR_LISTINGS_H

#include "session.h"

/* --dump-probe-types, --dump-probe-aliases or --dump-functions, as the
 * options ask: the exit status.
 */
int listing_dump(struct session *s);

/* --example: with no FILE, list the examples (returns 0 or 1, and sets
 * *done); with one, make s->opt.script_file the example's path
 * (returns 0, or 1 after reporting that there is no such example).
 */
int listing_example(struct session *s, bool *done);

#endif
