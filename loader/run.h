/* run.h - one run of a module from insertion to removal: the control
 * protocol, the output, signals, -c and -T.
 */
#ifndef TAPIR_RUN_H
#define TAPIR_RUN_H

#include "staprun.h"

/* Insert, start, copy the output until the script ends, remove.  The
 * exit status: 0, or 1 when the module could not be loaded, started or
 * removed, or reported a script error.
 */
int run_module(const struct staprun_options *o);

#endif
