/* listings.h - what stap prints without running a script: the probe
 * point patterns of the providers, the tapset's aliases and functions.
 */
#ifndef TAPIR_LISTINGS_H
#define TAPIR_LISTINGS_H

#include "session.h"

/* --dump-probe-types, --dump-probe-aliases or --dump-functions, as the
 * options ask: the exit status.
 */
int listing_dump(struct session *s);

#endif
