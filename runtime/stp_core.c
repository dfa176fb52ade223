/* stp_core.c - the whole runtime, the same for every script: control
 * channel, relay transport, print buffers and formats, strings, regular
 * expressions, statistics and maps, the probe contexts, the session,
 * probe registration per kind, and module init and exit.  It never sees
 * a script's locals or tables, only what the script's module exports in
 * stp_script (stp_session.h) and its hooks, so pass 4 compiles it once
 * per kernel (and set of -D limits), keeps the object in the cache and
 * links it into each module beside the script's own object.
 */
/* the limits it reads from stp_script (stp_limits.h) */
#define STP_CORE 1
#include "stp_runtime.h"

#include "stp_ctl.c"
#include "stp_transport.c"
#include "stp_print.c"
#include "stp_vsprintf.c"
#include "stp_string.c"
#include "stp_regex.c"
#include "stp_stat.c"
#include "stp_map.c"
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
#include "stp_monitor.c"
#include "stp_main.c"
