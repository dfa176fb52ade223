/* stp_core.c - the part of the runtime that is the same for every
 * script: control channel, relay transport, print buffers and formats,
 * strings, regular expressions, statistics and maps.  It never sees a
 * script's probe context, so pass 4 compiles it once per kernel (and set
 * of -D limits), keeps the object in the cache and links it into each
 * module beside the script's own object (stp_runtime.c).
 */
#include "stp_runtime.h"

#include "stp_ctl.c"
#include "stp_transport.c"
#include "stp_print.c"
#include "stp_vsprintf.c"
#include "stp_string.c"
#include "stp_regex.c"
#include "stp_stat.c"
#include "stp_map.c"
