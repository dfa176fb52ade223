/* stp_ctl.c - the control file debugfs/systemtap/MODULE/.cmd: staprun's
 * commands in, the module's messages out through a bounded queue of
 * preallocated buffers.  Probes may queue a message in any context, even
 * with scheduler locks held, so only plain process context wakes the
 * reader at once; otherwise a periodic work item does.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "msg.h"
#include "stp_print.h"
#include "stp_session.h"
#include "stp_transport.h"
#include "tapset-api.h"

#ifndef STP_CTL_NBUFS
#define STP_CTL_NBUFS 32
#endif
/* Buffers that warnings may not take, so replies always find one. */
#define STP_CTL_RESERVED 6
#if STP_CTL_NBUFS <= STP_CTL_RESERVED
#error "STP_CTL_NBUFS leaves no buffer for warnings and errors"
#endif
/* How often queued messages are announced to a waiting staprun. */
#ifndef STP_CTL_POLL_MS
#define STP_CTL_POLL_MS 20
#endif

struct _stp_ctl_buf {
	struct list_head list;
	u32 len;			/* header and payload */
	char data[STP_MSG_MAX];
};

static struct _stp_ctl_buf _stp_ctl_bufs[STP_CTL_NBUFS];
static LIST_HEAD(_stp_ctl_free);
static LIST_HEAD(_stp_ctl_ready);
static unsigned int _stp_ctl_nfree;
static DEFINE_RAW_SPINLOCK(_stp_ctl_lock);
static DECLARE_WAIT_QUEUE_HEAD(_stp_ctl_wq);
static atomic_t _stp_ctl_ndropped = ATOMIC_INIT(0);
/* 0: not asked, 1: REQUEST_EXIT to be read, 2: read */
static atomic_t _stp_ctl_exit_state = ATOMIC_INIT(0);
static unsigned long _stp_ctl_open;	/* bit 0: .cmd is open */
static bool _stp_ctl_ready_seen;	/* READY came, START may follow */
static bool _stp_ctl_stopping;
static bool _stp_ctl_detach_asked;	/* DETACH came: closing is no stop */
static bool _stp_ctl_detached;		/* closed after DETACH, nobody reads */
static pid_t _stp_ctl_reader;		/* who has the file open, 0: nobody */
static struct dentry *_stp_ctl_file;
static struct delayed_work _stp_ctl_poll_work;

static bool _stp_ctl_pending(void)
{
	return !list_empty_careful(&_stp_ctl_ready) ||
	       atomic_read(&_stp_ctl_exit_state) == 1;
}

/* Take a free buffer; a warning leaves the last few to replies.  An NMI
 * that finds the lock taken on its own CPU gives up rather than spin.
 */
static struct _stp_ctl_buf *_stp_ctl_get(bool reply, unsigned long *flags)
{
	struct _stp_ctl_buf *b = NULL;

	if (in_nmi()) {
		if (!raw_spin_trylock_irqsave(&_stp_ctl_lock, *flags))
			goto dropped;
	} else {
		raw_spin_lock_irqsave(&_stp_ctl_lock, *flags);
	}
	if (_stp_ctl_nfree > (reply ? 0 : STP_CTL_RESERVED)) {
		b = list_first_entry(&_stp_ctl_free, struct _stp_ctl_buf,
				     list);
		list_del(&b->list);
		_stp_ctl_nfree--;
		return b;
	}
	raw_spin_unlock_irqrestore(&_stp_ctl_lock, *flags);
dropped:
	atomic_inc(&_stp_ctl_ndropped);
	return NULL;
}

/* Queue b (the lock is held since _stp_ctl_get) and wake the reader
 * now only where waking cannot deadlock: process context, no locks.
 */
static void _stp_ctl_queue(struct _stp_ctl_buf *b, unsigned long flags)
{
	list_add_tail(&b->list, &_stp_ctl_ready);
	raw_spin_unlock_irqrestore(&_stp_ctl_lock, flags);
	if (preemptible())
		wake_up_interruptible(&_stp_ctl_wq);
}

static void _stp_ctl_put_free(struct _stp_ctl_buf *b)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&_stp_ctl_lock, flags);
	list_add(&b->list, &_stp_ctl_free);
	_stp_ctl_nfree++;
	raw_spin_unlock_irqrestore(&_stp_ctl_lock, flags);
}

static void _stp_ctl_set_header(struct _stp_ctl_buf *b, u32 type,
				size_t payload)
{
	struct stp_msg_hdr h = { .type = type, .len = payload };

	memcpy(b->data, &h, sizeof(h));
	b->len = sizeof(h) + payload;
}

int _stp_ctl_send(u32 type, const void *data, size_t len, bool reply)
{
	struct _stp_ctl_buf *b;
	unsigned long flags;

	len = min(len, STP_MSG_PAYLOAD_MAX);
	b = _stp_ctl_get(reply, &flags);
	if (!b)
		return -ENOSPC;
	_stp_ctl_set_header(b, type, len);
	if (len)
		memcpy(b->data + sizeof(struct stp_msg_hdr), data, len);
	_stp_ctl_queue(b, flags);
	return 0;
}

/* Format straight into the queued buffer: a probe has no stack to spare
 * for a message-sized one.
 */
static __printf(4, 0) void _stp_ctl_vprintf(u32 type, bool reply,
					    const char *prefix,
					    const char *fmt, va_list ap)
{
	const size_t max = STP_MSG_PAYLOAD_MAX;
	struct _stp_ctl_buf *b;
	unsigned long flags;
	size_t n;
	char *p;

	b = _stp_ctl_get(reply, &flags);
	if (!b)
		return;
	/* n < max: the payload needs no NUL, so the newline fits */
	p = b->data + sizeof(struct stp_msg_hdr);
	n = scnprintf(p, max, "%s", prefix);
	n += vscnprintf(p + n, max - n, fmt, ap);
	if (n && p[n - 1] != '\n')
		p[n++] = '\n';
	_stp_ctl_set_header(b, type, n);
	_stp_ctl_queue(b, flags);
}

void _stp_ctl_printf(u32 type, bool reply, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	_stp_ctl_vprintf(type, reply, "", fmt, ap);
	va_end(ap);
}

void _stp_ctl_warn(const char *text)
{
	_stp_ctl_printf(STP_MSG_WARNING, false, "%s", text);
}

void _stp_ctl_error(const char *text)
{
	_stp_ctl_printf(STP_MSG_ERROR, false, "%s", text);
}

void _stp_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	_stp_ctl_vprintf(STP_MSG_WARNING, false, "WARNING: ", fmt, ap);
	va_end(ap);
}

/* Output printed before system() must come out before the command's:
 * this CPU's print buffer goes first, and staprun empties the relay
 * buffers before it runs the command.
 */
void _stp_system(const char *cmd)
{
	_stp_print_flush();
	_stp_ctl_send(STP_MSG_SYSTEM, cmd, strlen(cmd), false);
}

void _stp_switch_file(void)
{
	_stp_print_flush();
	_stp_ctl_send(STP_MSG_SWITCH_FILE, NULL, 0, false);
}

void _stp_ctl_request_exit(void)
{
	atomic_cmpxchg(&_stp_ctl_exit_state, 0, 1);
}

bool _stp_ctl_attached(void)
{
	return test_bit(0, &_stp_ctl_open);
}

bool _stp_ctl_is_detached(void)
{
	return READ_ONCE(_stp_ctl_detached);
}

/* /sys/module/MODULE/parameters/_stp_reader: the process that has the
 * control file open, 0 when none has; staprun -d asks it to stop.
 */
static int _stp_ctl_reader_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", _stp_ctl_attached() ?
			  READ_ONCE(_stp_ctl_reader) : 0);
}

static const struct kernel_param_ops _stp_ctl_reader_ops = {
	.get = _stp_ctl_reader_get,
};
module_param_cb(_stp_reader, &_stp_ctl_reader_ops, NULL, 0444);
MODULE_PARM_DESC(_stp_reader, "pid of the attached staprun (read-only)");

unsigned int _stp_ctl_dropped(void)
{
	return atomic_read(&_stp_ctl_ndropped);
}

/* ---- The file ------------------------------------------------------- */

/* The oldest message, or the exit request once the queue is empty, so
 * that the errors that caused it are read first.
 */
static struct _stp_ctl_buf *_stp_ctl_next(bool *exit_request)
{
	struct _stp_ctl_buf *b = NULL;
	unsigned long flags;

	*exit_request = false;
	raw_spin_lock_irqsave(&_stp_ctl_lock, flags);
	if (!list_empty(&_stp_ctl_ready)) {
		b = list_first_entry(&_stp_ctl_ready, struct _stp_ctl_buf,
				     list);
		list_del(&b->list);
	} else if (atomic_cmpxchg(&_stp_ctl_exit_state, 1, 2) == 1) {
		*exit_request = true;
	}
	raw_spin_unlock_irqrestore(&_stp_ctl_lock, flags);
	return b;
}

static ssize_t _stp_ctl_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct stp_msg_hdr exit_msg = { .type = STP_MSG_REQUEST_EXIT };
	struct _stp_ctl_buf *b;
	bool exit_request;
	ssize_t rc;

	if (count < STP_MSG_MAX)
		return -EINVAL;
	for (;;) {
		b = _stp_ctl_next(&exit_request);
		if (b || exit_request)
			break;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		rc = wait_event_interruptible(_stp_ctl_wq, _stp_ctl_pending());
		if (rc)
			return rc;
	}
	if (exit_request)
		return copy_to_user(ubuf, &exit_msg, sizeof(exit_msg)) ?
		       -EFAULT : sizeof(exit_msg);
	rc = copy_to_user(ubuf, b->data, b->len) ? -EFAULT : b->len;
	_stp_ctl_put_free(b);
	return rc;
}

struct _stp_ctl_cmd {
	struct stp_msg_hdr hdr;
	union {
		struct stp_msg_ready ready;
		struct stp_msg_start start;
	} u;
};

static int _stp_ctl_command(const struct _stp_ctl_cmd *m)
{
	switch (m->hdr.type) {
	case STP_MSG_READY:
		if (m->hdr.len < sizeof(m->u.ready))
			return -EINVAL;
		if (m->u.ready.version != STP_MSG_VERSION)
			return -EPROTO;
		_stp_ctl_ready_seen = true;
		return 0;
	case STP_MSG_START:
		if (m->hdr.len < sizeof(m->u.start))
			return -EINVAL;
		if (!_stp_ctl_ready_seen)
			return -EPROTO;
		return _stp_session_start_cmd(m->u.start.target);
	case STP_MSG_EXIT:
		_stp_session_exit_cmd();
		return 0;
	case STP_MSG_DETACH:
		if (!_stp_ctl_ready_seen || !_stp_session_start_accepted())
			return -EPROTO;
		WRITE_ONCE(_stp_ctl_detach_asked, true);
		return 0;
	default:
		return -EINVAL;
	}
}

/* One command per write(), header and payload together. */
static ssize_t _stp_ctl_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct _stp_ctl_cmd m;
	int rc;

	if (count < sizeof(m.hdr) || count > sizeof(m))
		return -EINVAL;
	memset(&m, 0, sizeof(m));
	if (copy_from_user(&m, ubuf, count))
		return -EFAULT;
	if (m.hdr.len != count - sizeof(m.hdr))
		return -EINVAL;
	rc = _stp_ctl_command(&m);
	return rc ? rc : count;
}

static __poll_t _stp_ctl_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &_stp_ctl_wq, wait);
	return EPOLLOUT | EPOLLWRNORM |
	       (_stp_ctl_pending() ? EPOLLIN | EPOLLRDNORM : 0);
}

/* A staprun attaching to a detached session reads TRANSPORT first, as
 * at the start, ahead of what was queued meanwhile.
 */
static void _stp_ctl_send_transport_first(void)
{
	struct stp_msg_transport t;
	struct _stp_ctl_buf *b;
	unsigned long flags;

	_stp_transport_info(&t);
	b = _stp_ctl_get(true, &flags);
	if (!b)
		return;
	_stp_ctl_set_header(b, STP_MSG_TRANSPORT, sizeof(t));
	memcpy(b->data + sizeof(struct stp_msg_hdr), &t, sizeof(t));
	list_add(&b->list, &_stp_ctl_ready);
	raw_spin_unlock_irqrestore(&_stp_ctl_lock, flags);
	wake_up_interruptible(&_stp_ctl_wq);
}

/* One staprun at a time. */
static int _stp_ctl_file_open(struct inode *inode, struct file *file)
{
	int rc;

	if (test_and_set_bit(0, &_stp_ctl_open))
		return -EBUSY;
	rc = nonseekable_open(inode, file);
	if (rc) {
		clear_bit(0, &_stp_ctl_open);
		return rc;
	}
	WRITE_ONCE(_stp_ctl_reader, task_tgid_nr(current));
	if (READ_ONCE(_stp_ctl_detached)) {
		_stp_ctl_send_transport_first();
		WRITE_ONCE(_stp_ctl_detached, false);
	}
	return 0;
}

/* Closed without EXIT (staprun killed, say): the session stops itself;
 * after DETACH it goes on with nobody reading.
 */
static int _stp_ctl_release(struct inode *inode, struct file *file)
{
	bool detach = READ_ONCE(_stp_ctl_detach_asked);

	_stp_ctl_ready_seen = false;
	WRITE_ONCE(_stp_ctl_detach_asked, false);
	WRITE_ONCE(_stp_ctl_reader, 0);
	if (detach)
		WRITE_ONCE(_stp_ctl_detached, true);
	clear_bit(0, &_stp_ctl_open);
	if (!detach)
		_stp_session_detached();
	return 0;
}

static const struct file_operations _stp_ctl_fops = {
	.owner = THIS_MODULE,
	.open = _stp_ctl_file_open,
	.release = _stp_ctl_release,
	.read = _stp_ctl_read,
	.write = _stp_ctl_write,
	.poll = _stp_ctl_poll,
};

static void _stp_ctl_poll_fn(struct work_struct *work)
{
	if (_stp_ctl_pending())
		wake_up_interruptible(&_stp_ctl_wq);
	_stp_transport_kick();
	if (!READ_ONCE(_stp_ctl_stopping))
		schedule_delayed_work(&_stp_ctl_poll_work,
				      msecs_to_jiffies(STP_CTL_POLL_MS));
}

/* TRANSPORT is the first message staprun reads. */
int _stp_ctl_init(struct dentry *dir)
{
	struct stp_msg_transport t;
	int i;

	for (i = 0; i < STP_CTL_NBUFS; i++)
		list_add_tail(&_stp_ctl_bufs[i].list, &_stp_ctl_free);
	_stp_ctl_nfree = STP_CTL_NBUFS;
	_stp_transport_info(&t);
	_stp_ctl_send(STP_MSG_TRANSPORT, &t, sizeof(t), true);
	_stp_ctl_file = debugfs_create_file(STP_CTL_NAME, 0600, dir, NULL,
					    &_stp_ctl_fops);
	if (IS_ERR(_stp_ctl_file))
		return PTR_ERR(_stp_ctl_file);
	INIT_DELAYED_WORK(&_stp_ctl_poll_work, _stp_ctl_poll_fn);
	schedule_delayed_work(&_stp_ctl_poll_work,
			      msecs_to_jiffies(STP_CTL_POLL_MS));
	return 0;
}

void _stp_ctl_exit(void)
{
	WRITE_ONCE(_stp_ctl_stopping, true);
	cancel_delayed_work_sync(&_stp_ctl_poll_work);
	debugfs_remove(_stp_ctl_file);
	_stp_ctl_file = NULL;
}
