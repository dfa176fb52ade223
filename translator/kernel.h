/* kernel.h - facts about the target kernel: release, version, machine,
 * build tree and .config, taken from -r, -a, --vm or the running host.
 */
#ifndef TAPIR_KERNEL_H
#define TAPIR_KERNEL_H

#include "session.h"

/* Fill s->kernel_vr, s->kernel_v, s->arch_name, s->opt.kernel_build_dir
 * and s->kconfig (NULL when the tree has no .config).  Call after
 * cmdline_parse.  Returns 0, or -1 after printing "stap: ..." when an
 * explicit -r DIR names no usable build tree.  Prints nothing on
 * success.
 */
int kernel_target_init(struct session *s);

#endif
