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
#ifdef STP_JSON
/* stap --json: header, probe point and output as one record, written
 * whole or (when even the overflow area is full) dropped whole.
 */
void _stp_transport_write_rec(const void *hdr, size_t hlen, const char *pp,
			      size_t pplen, const char *data, size_t len);
#endif

/* Out-of-band text for staprun's stderr ("WARNING: ...", "ERROR: ..."),
 * any context.
 */
void _stp_ctl_warn(const char *text);
void _stp_ctl_error(const char *text);

/* ---- Between the runtime's own files (session, control, relay) ---- */

struct dentry;
struct stp_msg_transport;

/* The module's directory, debugfs/systemtap/MODULE/ (NULL before init). */
struct dentry *_stp_transport_dir(void);
/* What the TRANSPORT message tells staprun about the relay buffers. */
void _stp_transport_info(struct stp_msg_transport *t);
/* Periodic, process context: move data waiting in the overflow areas
 * into the relay buffers on their own CPUs.
 */
void _stp_transport_kick(void);
/* End of the run, process context, no probe running: push all waiting
 * output into the relay buffers (waiting for staprun while it is
 * attached and reading) and mark the buffers readable.
 */
void _stp_transport_flush(void);
/* Bytes of output dropped so far. */
u64 _stp_transport_lost(void);

/* The control channel (stp_ctl.c): set up under dir, torn down. */
int _stp_ctl_init(struct dentry *dir);
void _stp_ctl_exit(void);
/* A message to staprun from process context; replies may use the few
 * buffers kept back from warnings.  0 or -ENOSPC.
 */
int _stp_ctl_send(u32 type, const void *data, size_t len, bool reply);
/* Text for staprun's stderr, any context; type is STP_MSG_WARNING or
 * STP_MSG_ERROR.  The text is sent as written (a newline is added when
 * it lacks one).
 */
void _stp_ctl_printf(u32 type, bool reply, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Ask staprun for EXIT, any context; sent once. */
void _stp_ctl_request_exit(void);
/* Whether staprun has the control file open. */
bool _stp_ctl_attached(void);
/* The session was detached (staprun -L): nobody reads the output. */
bool _stp_ctl_is_detached(void);
/* Messages dropped because the queue was full. */
unsigned int _stp_ctl_dropped(void);

#endif
