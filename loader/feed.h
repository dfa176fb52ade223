/* feed.h - staprun -i: what staprun reads from its standard input goes
 * to the script's input.char and input.line probes, one character at a
 * time, through the module's procfs file __stdin.
 */
#ifndef TAPIR_FEED_H
#define TAPIR_FEED_H

#include <stdbool.h>
#include <termios.h>

struct feed {
	int fd;				/* the module's __stdin, or -1 */
	bool tty;			/* stdin is a terminal we changed */
	struct termios saved;		/* its settings before */
};

/* Once the module has started (its procfs files exist): open __stdin
 * of module and, when stdin is a terminal, make each key press a
 * character right away, unechoed.  Prints why it cannot; the run goes
 * on without input.
 */
void feed_start(struct feed *f, const char *module);
/* The descriptor to poll for input, or -1 when there is no feed. */
int feed_poll_fd(const struct feed *f);
/* stdin is readable: pass on what is there.  At the end of input, or
 * when the module no longer takes it, the feed stops.
 */
void feed_read(struct feed *f);
/* Stop, and give the terminal its settings back. */
void feed_stop(struct feed *f);

#endif
