/* stp_transport.h - the module's side of the link with staprun: per-CPU
 * relay buffers for the script's output and a control channel for
 * commands and out-of-band messages (warnings, errors, exit requests).
 */
#ifndef STP_TRANSPORT_H
#define STP_TRANSPORT_H

#include "stp_limits.h"

/* Module init/exit. */
int _stp_transport_init(void);
void _stp_transport_close(void);

/* Script output from any context (probe handlers included): appended to
 * this CPU's relay buffer in one piece.  Never sleeps, never allocates.
 * When the buffer is full the data waits in a bounded overflow area or,
 * as a last resort, is counted as lost and reported at the end; with
 * the default buffer size and a reader that keeps up nothing is lost.
 */
void _stp_transport_write(const char *data, size_t len);

/* Out-of-band text for staprun's stderr ("WARNING: ...", "ERROR: ..."),
 * any context.
 */
void _stp_ctl_warn(const char *text);
void _stp_ctl_error(const char *text);

#endif
