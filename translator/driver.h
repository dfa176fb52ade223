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

#endif
