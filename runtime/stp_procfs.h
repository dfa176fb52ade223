/* stp_procfs.h - procfs probes: files under /proc/systemtap/MODULE
 * whose read runs the file's read probe (what it puts in $value is what
 * the reader gets) and whose write runs its write probes with what was
 * written in $value.  The buffers are static in the module; the files
 * exist from START to the stop of the session.
 */
#ifndef STP_PROCFS_H
#define STP_PROCFS_H

#include <linux/mutex.h>
#include <linux/wait.h>

#include "stp_limits.h"

#ifndef STP_PROCFS_BUFSIZE
#define STP_PROCFS_BUFSIZE MAXSTRINGLEN
#endif

struct proc_dir_entry;

/* $value in a handler: c->edata points to this during a procfs probe. */
struct stp_procfs_data {
	char *buf;
	size_t size;			/* room, the NUL included */
	size_t len;
};

struct stp_procfs_dir {
	const char *name;
	int parent;			/* index of the parent, -1: the
					 * module's directory */
	struct proc_dir_entry *pde;
};

struct stp_procfs_file {
	const char *name;
	int dir;			/* as stp_procfs_dir.parent */
	unsigned short mode;
	const struct stp_probe *read;
	char *rbuf;
	size_t rsize;
	const struct stp_probe *const *writes;
	int nwrites;
	char *wbuf;			/* MAXSTRINGLEN */
	/* runtime state */
	size_t rlen;			/* bytes of rbuf a read returns */
	bool filled;			/* rbuf holds this open's content */
	bool closing;			/* the file is being removed */
	atomic_t busy;			/* open (one opener at a time) */
	struct mutex lock;		/* one read or write at a time */
	wait_queue_head_t wq;		/* openers waiting for busy */
};

/* Create the module's directory, the subdirectories and the files
 * (process context, at START); an error undoes it all and is reported.
 */
int _stp_procfs_start(struct stp_procfs_dir *d, int nd,
		      struct stp_procfs_file *f, int nf);
/* Remove them: no handler runs and no file is open when it returns. */
void _stp_procfs_stop(struct stp_procfs_file *f, int nf);

/* $value for the generated code.  Reading it gives the data written
 * (a write probe) or what was put so far (a read probe).
 */
static inline const char *_stp_procfs_value(struct context *c)
{
	const struct stp_procfs_data *d = c->edata;

	return d ? d->buf : "";
}

/* $value .= s and $value = s in a read probe, cut to the buffer's
 * size (s never points into it: the generated code copies $value).
 */
static inline const char *_stp_procfs_append(struct context *c,
					     const char *s)
{
	struct stp_procfs_data *d = c->edata;

	if (d && d->len < d->size - 1) {
		ssize_t n = strscpy(d->buf + d->len, s, d->size - d->len);

		d->len = n < 0 ? d->size - 1 : d->len + (size_t)n;
	}
	return s;
}

static inline const char *_stp_procfs_set(struct context *c, const char *s)
{
	struct stp_procfs_data *d = c->edata;

	if (d) {
		d->len = 0;
		d->buf[0] = '\0';
	}
	return _stp_procfs_append(c, s);
}

#endif
