/* relay.c - the output side of staprun: the per-CPU relay files of the
 * module, read without blocking, and the files they are copied to (one
 * merged stream, or one file per CPU in bulk mode).
 */
#define _GNU_SOURCE
#include "relay.h"
#include "json.h"

#include "../runtime/msg.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define READ_BUF_SIZE (256 * 1024)
/* Reads of one CPU per relay_read(), so that a busy CPU cannot starve
 * the others.
 */
#define READS_PER_CPU 8
/* An unfinished line longer than this is written out unfinished: the
 * output is binary, or a line really is that long.
 */
#define CARRY_MAX (64 * 1024)

struct relay_cpu {
	int fd;				/* traceN; -1: no such CPU */
	int out_fd;			/* bulk: this CPU's file */
	struct relay_rot rot;		/* bulk -S: its files */
	char *carry;			/* merged: unfinished last line */
	size_t carry_len;
	struct json_cpu *json;		/* --json: the records' decoder */
};

struct json_sink {
	struct relay *r;
	int *fdp;
};

static int output(struct relay *r, int *fdp, const char *p, size_t n);

static int json_sink_out(void *ctx, const char *p, size_t n)
{
	struct json_sink *k = ctx;

	return output(k->r, k->fdp, p, n);
}

static int write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* -S: the files that *fdp writes, the merged stream's or a CPU's. */
/* The CPU whose bulk file *fdp is, or NULL for the merged stream's. */
static struct relay_cpu *cpu_of(struct relay *r, int *fdp)
{
	if (fdp == &r->out_fd)
		return NULL;
	return (struct relay_cpu *)((char *)fdp -
				    offsetof(struct relay_cpu, out_fd));
}

static struct relay_rot *rot_of(struct relay *r, int *fdp)
{
	struct relay_cpu *c = cpu_of(r, fdp);

	return c ? &c->rot : &r->rot;
}

/* A failed output (a pipe whose reader left, a full disk, a closed
 * stdout) is reported once and stops all output: what follows is lost,
 * and the run ends with a non-zero status (relay.broken).
 */
static int rotate(struct relay *r, int *fdp);

static int output(struct relay *r, int *fdp, const char *p, size_t n)
{
	struct relay_rot *rot = NULL;
	int fd, err;

	if (r->broken)
		return 0;
	if (r->rotate_bytes) {
		rot = rot_of(r, fdp);
		if (rot->bytes >= r->rotate_bytes && rotate(r, fdp)) {
			r->broken = true;
			fputs("staprun: the rest of the output is lost\n",
			      stderr);
			return -EIO;
		}
	}
	fd = *fdp;
	if (fd == STDOUT_FILENO && r->sink)
		err = r->sink(r->sink_ctx, p, n);
	else
		err = fd == STDOUT_FILENO && r->stdout_closed ? -EBADF :
							  write_all(fd, p, n);
	if (err) {
		fprintf(stderr, "staprun: cannot write the output: %s; "
			"the rest of it is lost\n", strerror(-err));
		r->broken = true;
		return err;
	}
	r->bytes += n;
	if (rot)
		rot->bytes += n;
	return 0;
}

/* -o FILE with its strftime escapes expanded, plus a suffix. */
static int output_name(const char *pattern, const char *suffix, char *out,
		       size_t size)
{
	char name[PATH_MAX];
	time_t now = time(NULL);
	struct tm tm;
	size_t n = 0;

	if (localtime_r(&now, &tm))
		n = strftime(name, sizeof(name), pattern, &tm);
	/* 0 also means an empty expansion: keep the pattern then. */
	if (!n && snprintf(name, sizeof(name), "%s", pattern) >=
		  (int)sizeof(name))
		return -ENAMETOOLONG;
	if (snprintf(out, size, "%s%s", name, suffix) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

static int open_output(const char *pattern, const char *suffix)
{
	char name[PATH_MAX];
	int fd, err;

	err = output_name(pattern, suffix, name, sizeof(name));
	if (err) {
		fprintf(stderr, "staprun: output file name '%s' is too "
			"long\n", pattern);
		return err;
	}
	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		err = -errno;
		fprintf(stderr, "staprun: cannot open the output file %s: "
			"%s\n", name, strerror(-err));
	}
	return fd < 0 ? err : fd;
}

/* -S: the next file of a stream, FILE.N (FILE_cpuC.N in bulk mode),
 * the one N files back removed.  cpu is -1 for the merged stream.
 */
static int open_rot(struct relay *r, struct relay_rot *rot, int cpu)
{
	char suffix[48], name[PATH_MAX];
	int fd, err, slot;

	if (cpu < 0)
		snprintf(suffix, sizeof(suffix), ".%d", rot->fnum);
	else
		snprintf(suffix, sizeof(suffix), "_cpu%d.%d", cpu, rot->fnum);
	err = output_name(r->pattern, suffix, name, sizeof(name));
	if (err) {
		fprintf(stderr, "staprun: output file name '%s' is too "
			"long\n", r->pattern);
		return err;
	}
	if (r->rotate_keep) {
		slot = rot->fnum % r->rotate_keep;
		if (!rot->names) {
			rot->names = calloc((size_t)r->rotate_keep,
					    sizeof(*rot->names));
			if (!rot->names) {
				fputs("staprun: out of memory\n", stderr);
				return -ENOMEM;
			}
		}
		if (rot->names[slot] && unlink(rot->names[slot]) < 0 &&
		    errno != ENOENT)
			fprintf(stderr, "staprun: cannot remove the old output "
				"file %s: %s\n", rot->names[slot],
				strerror(errno));
		free(rot->names[slot]);
		rot->names[slot] = strdup(name);
		if (!rot->names[slot]) {
			fputs("staprun: out of memory\n", stderr);
			return -ENOMEM;
		}
	}
	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		err = -errno;
		fprintf(stderr, "staprun: cannot open the output file %s: "
			"%s\n", name, strerror(-err));
		return err;
	}
	rot->bytes = 0;
	return fd;
}

static int rotate(struct relay *r, int *fdp)
{
	struct relay_cpu *c = cpu_of(r, fdp);
	struct relay_rot *rot = c ? &c->rot : &r->rot;
	int cpu = c ? (int)(c - r->cpus) : -1;
	int fd;

	if (*fdp >= 0)
		close(*fdp);
	*fdp = -1;
	rot->fnum++;
	fd = open_rot(r, rot, cpu);
	if (fd < 0)
		return fd;
	*fdp = fd;
	return 0;
}

static void rot_free(struct relay *r, struct relay_rot *rot)
{
	int i;

	for (i = 0; rot->names && i < r->rotate_keep; i++)
		free(rot->names[i]);
	free(rot->names);
	rot->names = NULL;
}

/* Bulk files: FILE_N for -o FILE, stpd_cpuN otherwise; with -S, the
 * first of each CPU's files.
 */
static int open_bulk_outputs(struct relay *r)
{
	char suffix[32];
	int i, fd;

	for (i = 0; i < r->ncpus; i++) {
		if (r->cpus[i].fd < 0)
			continue;
		if (r->pattern && r->rotate_bytes) {
			fd = open_rot(r, &r->cpus[i].rot, i);
		} else if (r->pattern) {
			snprintf(suffix, sizeof(suffix), "_%d", i);
			fd = open_output(r->pattern, suffix);
		} else {
			snprintf(suffix, sizeof(suffix), "stpd_cpu%d", i);
			fd = open_output(suffix, "");
		}
		if (fd < 0)
			return fd;
		r->cpus[i].out_fd = fd;
	}
	return 0;
}

static int open_traces(struct relay *r, const char *dir)
{
	char path[PATH_MAX];
	int i, found = 0, err;

	for (i = 0; i < r->ncpus; i++) {
		snprintf(path, sizeof(path), "%s/%s%d", dir, STP_RELAY_NAME, i);
		r->cpus[i].fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (r->cpus[i].fd >= 0) {
			found++;
		} else if (errno != ENOENT) {
			err = -errno;
			fprintf(stderr, "staprun: cannot open %s: %s\n", path,
				strerror(-err));
			return err;
		}
	}
	if (!found) {
		fprintf(stderr, "staprun: no output files %s/%s*\n", dir,
			STP_RELAY_NAME);
		return -ENOENT;
	}
	return 0;
}

/* --json: every CPU's stream is decoded on its own (json.c). */
static int open_json(struct relay *r)
{
	int i;

	for (i = 0; i < r->ncpus; i++) {
		if (r->cpus[i].fd < 0)
			continue;
		r->cpus[i].json = json_cpu_new(i, r->json_flags);
		if (!r->cpus[i].json) {
			fputs("staprun: out of memory\n", stderr);
			return -ENOMEM;
		}
	}
	return 0;
}

int relay_open(struct relay *r, const char *dir, int ncpus, bool bulk,
	       unsigned int flags, const char *pattern, bool stdout_closed,
	       long rotate_mb, int rotate_keep)
{
	int i, err;

	memset(r, 0, sizeof(*r));
	if (pattern && rotate_mb > 0) {
		r->rotate_bytes = (unsigned long long)rotate_mb << 20;
		r->rotate_keep = rotate_keep;
	}
	r->stdout_closed = stdout_closed;
	r->out_fd = -1;
	r->bulk = bulk;
	r->pattern = pattern;
	r->ncpus = ncpus;
	r->cpus = calloc((size_t)ncpus, sizeof(*r->cpus));
	r->buf = malloc(READ_BUF_SIZE);
	if (!r->cpus || !r->buf) {
		fputs("staprun: out of memory\n", stderr);
		return -ENOMEM;
	}
	for (i = 0; i < ncpus; i++)
		r->cpus[i].fd = r->cpus[i].out_fd = -1;
	err = open_traces(r, dir);
	if (err)
		return err;
	if (flags & STP_TRANSPORT_JSON) {
		r->json_flags = flags;
		err = open_json(r);
		if (err)
			return err;
	}
	if (bulk)
		return open_bulk_outputs(r);
	if (pattern && r->rotate_bytes)
		r->out_fd = open_rot(r, &r->rot, -1);
	else
		r->out_fd = pattern ? open_output(pattern, "") : STDOUT_FILENO;
	return r->out_fd < 0 ? r->out_fd : 0;
}

int relay_poll_fds(const struct relay *r, struct pollfd *fds, int max)
{
	int i, n = 0;

	for (i = 0; i < r->ncpus && n < max; i++) {
		if (r->cpus[i].fd < 0)
			continue;
		fds[n].fd = r->cpus[i].fd;
		fds[n].events = POLLIN;
		fds[n].revents = 0;
		n++;
	}
	return n;
}

/* Keep the unfinished line of a CPU until its end arrives. */
static int carry_add(struct relay *r, struct relay_cpu *c, const char *p,
		     size_t n)
{
	int err;

	if (c->carry_len + n > CARRY_MAX) {
		err = output(r, &r->out_fd, c->carry, c->carry_len);
		c->carry_len = 0;
		return err ?: output(r, &r->out_fd, p, n);
	}
	if (!c->carry) {
		c->carry = malloc(CARRY_MAX);
		if (!c->carry) {
			fputs("staprun: out of memory\n", stderr);
			return output(r, &r->out_fd, p, n);
		}
	}
	memcpy(c->carry + c->carry_len, p, n);
	c->carry_len += n;
	return 0;
}

/* Merged output carries whole lines only, so that lines printed on two
 * CPUs at once come out one after the other, never mixed.
 */
static int emit(struct relay *r, struct relay_cpu *c, const char *p,
		size_t n)
{
	const char *nl;
	size_t whole;
	int err = 0;

	if (c->json) {
		struct json_sink k = { r, r->bulk ? &c->out_fd : &r->out_fd };

		err = json_feed(c->json, p, n, json_sink_out, &k);
		return err == -EPROTO ? 0 : err;
	}
	if (r->bulk)
		return output(r, &c->out_fd, p, n);
	nl = memrchr(p, '\n', n);
	if (!nl)
		return carry_add(r, c, p, n);
	whole = (size_t)(nl + 1 - p);
	if (c->carry_len) {
		err = output(r, &r->out_fd, c->carry, c->carry_len);
		c->carry_len = 0;
	}
	err = err ?: output(r, &r->out_fd, p, whole);
	return err ?: (whole < n ? carry_add(r, c, p + whole, n - whole) : 0);
}

static ssize_t read_cpu(struct relay *r, struct relay_cpu *c, int *err)
{
	ssize_t n, total = 0;
	int i;

	for (i = 0; i < READS_PER_CPU; i++) {
		n = read(c->fd, r->buf, READ_BUF_SIZE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
		if (!*err)
			*err = emit(r, c, r->buf, (size_t)n);
		if (n < READ_BUF_SIZE)
			break;
	}
	return total;
}

ssize_t relay_read(struct relay *r)
{
	ssize_t total = 0;
	int i, err = 0;

	for (i = 0; i < r->ncpus; i++)
		if (r->cpus[i].fd >= 0)
			total += read_cpu(r, &r->cpus[i], &err);
	return err ? err : total;
}

static void flush_carries(struct relay *r)
{
	int i;

	for (i = 0; i < r->ncpus; i++) {
		if (r->cpus[i].json) {
			struct json_sink k = { r, r->bulk ?
						   &r->cpus[i].out_fd :
						   &r->out_fd };

			json_finish(r->cpus[i].json, json_sink_out, &k);
		}
		if (r->cpus[i].carry_len)
			output(r, &r->out_fd, r->cpus[i].carry,
			       r->cpus[i].carry_len);
		r->cpus[i].carry_len = 0;
	}
}

void relay_drain(struct relay *r)
{
	if (!r->cpus)
		return;
	while (relay_read(r) > 0)
		;
	flush_carries(r);
}

/* FILE.1, FILE.2, ... after FILE; the script asks with switch_file().
 * With -S the next file of the rotation, of every CPU in bulk mode.
 */
int relay_switch_file(struct relay *r)
{
	char suffix[32];
	int fd, i, err = 0;

	if (r->rotate_bytes) {
		relay_drain(r);
		if (!r->bulk)
			return rotate(r, &r->out_fd);
		for (i = 0; i < r->ncpus; i++)
			if (r->cpus[i].fd >= 0 && !err)
				err = rotate(r, &r->cpus[i].out_fd);
		return err;
	}
	if (r->bulk || !r->pattern)
		return 0;
	relay_drain(r);
	snprintf(suffix, sizeof(suffix), ".%d", ++r->switches);
	fd = open_output(r->pattern, suffix);
	if (fd < 0)
		return fd;
	close(r->out_fd);
	r->out_fd = fd;
	return 0;
}

void relay_close(struct relay *r)
{
	int i;

	for (i = 0; r->cpus && i < r->ncpus; i++) {
		if (r->cpus[i].fd >= 0)
			close(r->cpus[i].fd);
		if (r->cpus[i].out_fd >= 0)
			close(r->cpus[i].out_fd);
		free(r->cpus[i].carry);
		json_cpu_free(r->cpus[i].json);
		rot_free(r, &r->cpus[i].rot);
	}
	rot_free(r, &r->rot);
	if (r->out_fd > STDERR_FILENO)
		close(r->out_fd);
	free(r->cpus);
	free(r->buf);
	memset(r, 0, sizeof(*r));
	r->out_fd = -1;
}
