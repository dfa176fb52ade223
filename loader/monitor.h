/* monitor.h - staprun -M (stap --monitor): the full-screen live view of a
 * running script, drawn with plain ANSI escapes: uptime, memory, the
 * probes' hits and cycles, the script's globals and the last lines of
 * its output, from the module's debugfs "monitor" file
 * (runtime/stp_monitor.c), refreshed every interval; keys sort, pause,
 * reset and quit.
 */
#ifndef TAPIR_MONITOR_H
#define TAPIR_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <termios.h>
#include <time.h>

#define MONITOR_TAIL 16384	/* bytes of output kept for the view */

struct monitor {
	bool on;			/* the view is up */
	char path[4200];		/* debugfs/systemtap/MODULE/monitor */
	const char *module;
	int interval;			/* seconds between refreshes */
	unsigned long long buffers;	/* relay bytes, all CPUs */
	struct termios saved;		/* the terminal as it was */
	struct timespec start;		/* when the script started */
	struct timespec next;		/* the next refresh */
	int sort;			/* column the probes are sorted by */
	bool paused;
	bool stopping;			/* EXIT sent: output is kept */
	bool help;			/* the keys' help is shown */
	char tail[MONITOR_TAIL];	/* the output's last bytes */
	size_t tail_len;
	char *after;			/* output once stopping, for after */
	size_t after_len, after_size;
	bool after_lost;		/* out of memory for it */
	char *msgs;			/* stderr messages, for the end */
	size_t msgs_len, msgs_size;
};

/* What a key asks of the run. */
enum monitor_action {
	MONITOR_NONE,
	MONITOR_QUIT,			/* stop the script, as SIGINT */
};

/* Prepare the view of module (whose debugfs directory is dir); buffers
 * is the output buffers' size.  Nothing is drawn before monitor_begin().
 */
void monitor_init(struct monitor *m, const char *dir, const char *module,
		  int interval, unsigned long long buffers);
/* The script runs: take the terminal (when stdin and stdout are one;
 * otherwise there is no view and the output goes out as usual).
 */
void monitor_begin(struct monitor *m);
/* The descriptor to poll for keys, -1 when there is no view. */
int monitor_poll_fd(const struct monitor *m);
/* Milliseconds until the next refresh is due (at most max). */
int monitor_timeout(const struct monitor *m, int max);
/* Read the keys waiting on stdin. */
enum monitor_action monitor_keys(struct monitor *m);
/* Redraw when the interval has passed (or now, with force). */
void monitor_refresh(struct monitor *m, bool force);
/* The run asked the module to stop: what comes from now on (the end
 * probes' output) is printed once the view is closed.
 */
void monitor_stopping(struct monitor *m);
/* A message for stderr (the script's warnings and errors): kept, shown
 * in the view and written to stderr when it closes; false when there is
 * no view, and the caller writes it.
 */
bool monitor_message(struct monitor *m, const char *p, size_t n);
/* relay.h's sink for the script's output while the view is up. */
int monitor_output(void *ctx, const char *p, size_t n);
/* Give the terminal back and print the output kept since stopping
 * (and on stderr the messages).
 */
void monitor_end(struct monitor *m);

#endif
