/* stp_runtime.c - the runtime's implementation, included at the end of
 * every generated module so that module and runtime are one translation
 * unit: everything that is not part of an API header is static.
 */
#include "stp_probe.c"
#include "stp_mem.c"
#include "stp_session.c"
#include "stp_ctl.c"
#include "stp_transport.c"
#include "stp_print.c"
#include "stp_vsprintf.c"
#include "stp_string.c"
#include "stp_regex.c"
#include "stp_stat.c"
#include "stp_map.c"
#include "stp_main.c"
