/* ctl.c - the control channel seen from staprun: opening the module's
 * .cmd file, and framing the protocol's messages on it.
 */
#include "ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define OPEN_RETRY_NS 10000000L		/* 10 ms */

int ctl_open(const char *dir, int timeout_ms)
{
	const struct timespec delay = { 0, OPEN_RETRY_NS };
	char path[4096];
	int fd, waited = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, STP_CTL_NAME);
	/* The module makes the file in its init, so it normally exists
	 * as soon as the module is in; debugfs may lag a little.
	 */
	while ((fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0) {
		if (errno != ENOENT || waited >= timeout_ms) {
			int err = errno;

			fprintf(stderr, "staprun: cannot open the control file "
				"%s: %s\n", path, strerror(err));
			return -err;
		}
		nanosleep(&delay, NULL);
		waited += OPEN_RETRY_NS / 1000000;
	}
	return fd;
}

int ctl_send(int fd, uint32_t type, const void *payload, size_t len)
{
	char buf[sizeof(struct stp_msg_hdr) + 64];
	struct stp_msg_hdr h = { .type = type, .len = (uint32_t)len };
	ssize_t n;

	if (len > sizeof(buf) - sizeof(h))
		return -EMSGSIZE;
	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), payload, len);
	do
		n = write(fd, buf, sizeof(h) + len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == sizeof(h) + len ? 0 : -EIO;
}

int ctl_recv(int fd, struct ctl_msg *m)
{
	ssize_t n;

	do
		n = read(fd, m, STP_MSG_MAX);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? -EAGAIN : -errno;
	if (n == 0)
		return -EPIPE;
	if ((size_t)n < sizeof(m->hdr) ||
	    m->hdr.len != (size_t)n - sizeof(m->hdr))
		return -EPROTO;
	m->payload[m->hdr.len] = '\0';
	return 0;
}

int ctl_recv_wait(int fd, struct ctl_msg *m, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int rc = ctl_recv(fd, m);

	if (rc != -EAGAIN)
		return rc;
	do
		rc = poll(&p, 1, timeout_ms);
	while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return -errno;
	return rc ? ctl_recv(fd, m) : -ETIMEDOUT;
}
