/* remote.h - stap --remote: the script translated here, once per kernel
 * release of the hosts, and run by staprun on each host over ssh (or
 * here, with direct://).
 */
#ifndef TAPIR_REMOTE_H
#define TAPIR_REMOTE_H

#include "session.h"

/* Everything after the command line for s->opt.remotes: ask the hosts
 * their kernels, build, copy, run, relay; returns the exit status (the
 * worst of the hosts').
 */
int remote_run(struct session *s);

#endif
