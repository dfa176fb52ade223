/* stp_uframe.c - the frames of values saved at a user-space function's
 * entry for its .return probe: a fixed table per probe, a slot taken by
 * (task, stack pointer) at entry and given back at the return.
 *
 * Only the owning task uses a frame between claim and release (a task
 * runs one handler at a time); the lock orders claims and releases
 * among tasks.  Handlers may sleep on user page faults, so the lock is
 * never held while one runs.
 */
#ifdef __KERNEL__
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#else
#include "kshim.h"	/* the host test adds tasks, pids and locks */
#endif

#include "stp_limits.h"
#include "stp_uframe.h"

struct stp_uframe {
	struct task_struct *task;	/* NULL: free */
	pid_t pid;			/* the task's, to see it gone */
	bool ready;			/* filled in: its return may run */
	unsigned long sp;
};

struct stp_uframes {
	raw_spinlock_t lock;
	size_t stride;			/* bytes of data per frame */
	struct stp_uframe f[MAXURETPROBE_FRAMES];
	u64 data[];			/* MAXURETPROBE_FRAMES * stride */
};

struct stp_uframes *_stp_uframes_new(size_t data_size)
{
	size_t stride = ALIGN(data_size, sizeof(u64));
	struct stp_uframes *fs;

	fs = kvzalloc(sizeof(*fs) + MAXURETPROBE_FRAMES * stride,
		      GFP_KERNEL);
	if (!fs)
		return NULL;
	raw_spin_lock_init(&fs->lock);
	fs->stride = stride;
	return fs;
}

void _stp_uframes_free(struct stp_uframes *fs)
{
	kvfree(fs);
}

void *_stp_uframe_data(struct stp_uframes *fs, struct stp_uframe *f)
{
	return (char *)fs->data + (size_t)(f - fs->f) * fs->stride;
}

/* A full table: a frame whose task has exited (its pid no longer names
 * it), never t's own.
 */
static struct stp_uframe *_stp_uframe_reap(struct stp_uframes *fs,
					   struct task_struct *t)
{
	struct stp_uframe *f, *got = NULL;
	int i;

	rcu_read_lock();
	for (i = 0; i < MAXURETPROBE_FRAMES && !got; i++) {
		f = &fs->f[i];
		if (f->task != t &&
		    pid_task(find_pid_ns(f->pid, &init_pid_ns),
			     PIDTYPE_PID) != f->task)
			got = f;
	}
	rcu_read_unlock();
	return got;
}

struct stp_uframe *_stp_uframe_claim(struct stp_uframes *fs,
				     struct task_struct *t, unsigned long sp)
{
	struct stp_uframe *f, *got = NULL;
	int i;

	raw_spin_lock(&fs->lock);
	for (i = 0; i < MAXURETPROBE_FRAMES; i++) {
		f = &fs->f[i];
		if (f->task == t && f->sp <= sp)
			f->task = NULL;
		if (!f->task && !got)
			got = f;
	}
	if (!got)
		got = _stp_uframe_reap(fs, t);
	if (got) {
		got->task = t;
		got->pid = task_pid_nr(t);
		got->sp = sp;
		got->ready = false;
	}
	raw_spin_unlock(&fs->lock);
	return got;
}

void _stp_uframe_done(struct stp_uframes *fs, struct stp_uframe *f,
		      bool ready)
{
	raw_spin_lock(&fs->lock);
	if (ready)
		f->ready = true;
	else
		f->task = NULL;
	raw_spin_unlock(&fs->lock);
}

struct stp_uframe *_stp_uframe_find(struct stp_uframes *fs,
				    struct task_struct *t, unsigned long sp)
{
	struct stp_uframe *f, *got = NULL;
	int i;

	raw_spin_lock(&fs->lock);
	for (i = 0; i < MAXURETPROBE_FRAMES; i++) {
		f = &fs->f[i];
		if (f->task != t)
			continue;
		if (f->sp == sp && f->ready && !got)
			got = f;
		else if (f->sp < sp)
			f->task = NULL;
	}
	if (got)
		got->ready = false;
	raw_spin_unlock(&fs->lock);
	return got;
}
