/* stp_runtime.h - the runtime's interface, included by a generated
 * module after it has defined STP_CONTEXT_LOCALS, and by stp_core.c
 * without them.
 */
#ifndef STP_RUNTIME_H
#define STP_RUNTIME_H

#include "stp_runtime_pre.h"
#include "tapset-api.h"
#include "stp_probe.h"
#include "stp_deref.h"
#include "stp_session.h"
#include "stp_print.h"
#include "stp_string.h"
#include "stp_stat.h"
#include "stp_map.h"
#include "stp_transport.h"
#include "stp_kprobe.h"
#include "stp_kentry.h"
#include "stp_tracepoint.h"
#include "stp_procfs.h"
#include "stp_netfilter.h"
#include "stp_perf.h"
#include "stp_hwbkpt.h"
#include "stp_syscall.h"
#include "stp_uprobe.h"
#include "stp_usym.h"
#include "stp_lines.h"
#include "stp_task.h"
#include "stp_monitor.h"
#include "stp_probe_inline.h"
#include "stp_nesting.h"

#endif
