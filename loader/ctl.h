/* ctl.h - staprun's end of the control file: one protocol message
 * (runtime/msg.h) per read() or write().
 */
#ifndef TAPIR_CTL_H
#define TAPIR_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "../runtime/msg.h"

struct ctl_msg {
	struct stp_msg_hdr hdr;
	/* the payload, with a NUL after it for text messages */
	char payload[STP_MSG_PAYLOAD_MAX + 1];
};

/* Open DIR/.cmd, non-blocking, waiting up to timeout_ms for it to
 * appear.  The fd or -errno (message printed).
 */
int ctl_open(const char *dir, int timeout_ms);
/* 0 or -errno. */
int ctl_send(int fd, uint32_t type, const void *payload, size_t len);
/* One message: 0, -EAGAIN when none is waiting, -EPIPE when the module
 * closed the channel, -EPROTO for a malformed message, or -errno.
 */
int ctl_recv(int fd, struct ctl_msg *m);
/* Wait up to timeout_ms for a message and receive it. */
int ctl_recv_wait(int fd, struct ctl_msg *m, int timeout_ms);

#endif
