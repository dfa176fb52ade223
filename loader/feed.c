/* feed.c - standard input to the module's __stdin file (feed.h).  Each
 * character is a write of its own, so each runs the write probes once:
 * input.char sees every character, input.line gathers them to the
 * newline.  A terminal is put in non-canonical mode without echo for
 * the run, so that a key press reaches the script without Enter;
 * /dev/null, an empty pipe or a file ends the feed at its end, and the
 * script runs on.
 */
#include "feed.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Read at most this much between two turns of the main loop, so that
 * the output keeps flowing while a big input goes in.
 */
#define FEED_CHUNK 512

static void tty_raw(struct feed *f)
{
	struct termios t;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &f->saved))
		return;
	t = f->saved;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0)
		f->tty = true;
}

void feed_start(struct feed *f, const char *module)
{
	char path[PATH_MAX];

	f->fd = -1;
	snprintf(path, sizeof(path), "/proc/systemtap/%s/__stdin", module);
	f->fd = open(path, O_WRONLY | O_CLOEXEC);
	if (f->fd < 0) {
		fprintf(stderr, "staprun: -i: cannot open %s: %s\n", path,
			strerror(errno));
		return;
	}
	tty_raw(f);
}

int feed_poll_fd(const struct feed *f)
{
	return f->fd >= 0 ? STDIN_FILENO : -1;
}

static int feed_write(struct feed *f, const char *buf, ssize_t n)
{
	ssize_t i;

	for (i = 0; i < n; i++) {
		while (write(f->fd, buf + i, 1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "staprun: -i: cannot pass input to "
				"the module: %s\n", strerror(errno));
			return -1;
		}
	}
	return 0;
}

void feed_read(struct feed *f)
{
	char buf[FEED_CHUNK];
	ssize_t n;

	if (f->fd < 0)
		return;
	n = read(STDIN_FILENO, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n < 0)
		fprintf(stderr, "staprun: -i: cannot read standard input: "
			"%s\n", strerror(errno));
	if (n <= 0 || feed_write(f, buf, n))
		feed_stop(f);
}

void feed_stop(struct feed *f)
{
	if (f->tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &f->saved);
	f->tty = false;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}
