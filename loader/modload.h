/* modload.h - putting a module into the kernel and taking it out, and
 * the debugfs mount that its control and output files live on.
 */
#ifndef TAPIR_MODLOAD_H
#define TAPIR_MODLOAD_H

#include "staprun.h"

/* finit_module() with the var=val arguments and the buffer options as
 * module parameters.  0 or -errno, the message printed.
 */
int modload_insert(const struct staprun_options *o);
/* delete_module(), retried while the module is still busy for a moment.
 * 0 or -errno, the message printed.
 */
int modload_remove(const char *name, int verbose);
/* Whether NAME is a tapir module that nobody reads: 0 when it is (it is
 * stopped, or stops now: see doc/safety.md), -EBUSY when a staprun is
 * attached to it, -ENOENT when no tapir module of that name is loaded.
 */
int modload_orphaned(const char *name);
/* staprun -A NAME: whether NAME is a tapir module running detached
 * that a staprun may attach to.  0 or -errno, the message printed.
 */
int modload_attachable(const char *name);
/* staprun -d NAME, or '*' for every tapir module that nobody reads.
 * 0 or -errno, the message printed.
 */
int modload_delete(const char *name, int verbose);
/* Mount debugfs on /sys/kernel/debug unless it is there; 0 or -errno. */
int modload_debugfs_quiet(void);
/* Mount debugfs on /sys/kernel/debug unless it is there.  0 or -errno,
 * the message printed.
 */
int modload_debugfs(void);

#endif
