/* stp_runtime.c - the part of the runtime that depends on the script
 * (its probe contexts, the session that runs its probes, module init
 * and exit), included at the end of every generated module.  The rest
 * is stp_core.c, an object of its own.
 */
#include "stp_probe.c"
#include "stp_usym.c"
#include "stp_mem.c"
#include "stp_lines.c"
#include "stp_session.c"
#include "stp_kprobe.c"
#include "stp_tracepoint.c"
#include "stp_procfs.c"
#include "stp_netfilter.c"
#include "stp_perf.c"
#include "stp_hwbkpt.c"
#include "stp_syscall.c"
#include "stp_uframe.c"
#include "stp_uprobe.c"
#include "stp_task.c"
#include "stp_main.c"
