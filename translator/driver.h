/* driver.h - session set-up and pass 1 shared by the stap binary, the
 * fuzz target and the host tests.
 */
#ifndef TAPIR_DRIVER_H
#define TAPIR_DRIVER_H

#include "session.h"

/* Zero the session, make its arena, set option defaults. */
void driver_session_init(struct session *s);
/* Find the tapset and runtime directories (environment, build tree,
 * installed copy).
 */
void driver_locate(struct session *s);
/* Read and parse the user script and -E scripts: 0 or -1. */
int driver_pass1(struct session *s);

/* Passes 1 to opt.last_pass for the kernel set up by
 * kernel_target_init: 0 or the exit status.  With s->remote_build and
 * -p4 the module is left in s->built_ko, named s->built_name (and
 * s->built_tmp, its
 * temporary directory to remove, when it is not in the cache).
 */
int driver_run_passes(struct session *s);
/* staprun: $SYSTEMTAP_STAPRUN, beside stap, or found in PATH. */
const char *driver_staprun_path(struct session *s);
/* Push staprun's options that follow from stap's (-v, -o, -c, -x, -T,
 * -s, -b, -i), the ones before the module.
 */
void driver_staprun_opts(struct session *s, struct vec *args);

#endif
