/* relay.h - the script's output: reading the module's per-CPU relay
 * files and writing what they hold to stdout, to -o FILE, or in bulk
 * mode to one file per CPU.
 */
#ifndef TAPIR_RELAY_H
#define TAPIR_RELAY_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct relay_cpu;

/* -S MB[,N]: the files of one output stream (the merged one, or one
 * CPU's in bulk mode): FILE.0, FILE.1, ... (FILE_cpuC.0, ... in bulk
 * mode), a new one once the current one holds MB megabytes, the oldest
 * removed when there would be more than N.
 */
struct relay_rot {
	unsigned long long bytes;	/* in the current file */
	int fnum;			/* the current file's number */
	char **names;			/* the last N files' names, by fnum % N */
};

struct relay {
	struct relay_cpu *cpus;
	int ncpus;			/* entries of cpus */
	bool bulk;
	const char *pattern;		/* -o FILE as given, or NULL */
	int out_fd;			/* merged output (not bulk) */
	int switches;			/* switch_file() calls so far */
	bool broken;			/* the output failed: drop it */
	unsigned int json_flags;	/* STP_TRANSPORT_JSON...: stap --json */
	bool stdout_closed;		/* fd 1 was closed at the start */
	/* when set, what would go to stdout goes here (staprun -M) */
	int (*sink)(void *ctx, const char *p, size_t n);
	void *sink_ctx;
	char *buf;			/* read buffer */
	unsigned long long bytes;	/* copied so far */
	unsigned long long rotate_bytes; /* -S MB in bytes, 0: none */
	int rotate_keep;		/* N of -S, 0: every file */
	struct relay_rot rot;		/* -S: the merged stream's files */
};

/* Open DIR/trace0..traceN-1 (those that exist: CPUs that are online)
 * and the output.  flags are the TRANSPORT message's: with
 * STP_TRANSPORT_JSON the module writes records, and each line becomes a
 * JSON object (json.c).  stdout_closed: staprun started with fd 1 closed (it
 * holds /dev/null now), so a write to stdout fails as EBADF would.
 * 0 or -errno, the message printed.
 */
int relay_open(struct relay *r, const char *dir, int ncpus, bool bulk,
	       unsigned int flags, const char *pattern, bool stdout_closed,
	       long rotate_mb, int rotate_keep);
/* Fill fds with the relay files to poll (POLLIN: a full sub-buffer);
 * returns how many, at most max.
 */
int relay_poll_fds(const struct relay *r, struct pollfd *fds, int max);
/* Copy what every CPU's buffer holds now.  Lines from different CPUs
 * are not interleaved: a CPU's unfinished last line waits for its end.
 * Returns the bytes read, or -errno when the output failed (reported
 * once on stderr; the output is then dropped from here on and broken
 * is set).
 */
ssize_t relay_read(struct relay *r);
/* Read until the buffers are empty, then write out unfinished lines. */
void relay_drain(struct relay *r);
/* Continue in the next output file (the script's switch_file()). */
int relay_switch_file(struct relay *r);
void relay_close(struct relay *r);

#endif
