/* stp_transport.c - the script's output path: the module's debugfs
 * directory, one relay buffer per CPU (traceN) that staprun reads, and a
 * bounded per-CPU overflow area that holds output while staprun is
 * behind.  Bringing the whole transport up and down starts here.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/relay.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "msg.h"
#include "stp_transport.h"

/* Per CPU, on top of the relay buffer; -D may change it. */
#ifndef STP_OVERFLOW_SIZE
#define STP_OVERFLOW_SIZE (64 * 1024)
#endif
/* How long the end of a run waits for staprun to make room for what is
 * still in the overflow areas.
 */
#ifndef STP_DRAIN_TIMEOUT_MS
#define STP_DRAIN_TIMEOUT_MS 10000
#endif

static unsigned int _stp_bufsize;
module_param(_stp_bufsize, uint, 0);
MODULE_PARM_DESC(_stp_bufsize, "output buffer in MB (staprun -s)");
static unsigned int _stp_bulkmode;
module_param(_stp_bulkmode, uint, 0);
MODULE_PARM_DESC(_stp_bulkmode, "1: one output file per CPU (staprun -b)");

/* The overflow area is a ring.  busy guards a CPU's relay buffer and
 * ring: they are only touched on their own CPU with interrupts off, so
 * busy is only ever found set by an NMI that interrupted a write.
 */
struct _stp_tcpu {
	int busy;
	unsigned int ov_head;		/* oldest byte */
	unsigned int ov_len;		/* bytes waiting */
	char *ov_buf;
	struct work_struct drain_work;
};

static DEFINE_PER_CPU(struct _stp_tcpu, _stp_tcpu);
static struct rchan *_stp_relay_chan;
static atomic64_t _stp_lost_bytes = ATOMIC64_INIT(0);
/* Set at the end of the run: the periodic drain stops. */
static bool _stp_relay_final;

static struct dentry *_stp_root_dir;	/* debugfs/systemtap, shared */
static struct dentry *_stp_module_dir;	/* debugfs/systemtap/MODULE */

struct dentry *_stp_transport_dir(void)
{
	return _stp_module_dir;
}

/* ---- Relay buffers -------------------------------------------------- */

/* A full buffer refuses new sub-buffers: what does not fit waits in the
 * overflow area rather than overwriting output staprun has not read.
 * While the session runs detached (staprun -L, the flight recorder)
 * nobody will read it soon: the newest output is kept, overwriting the
 * oldest, for the staprun -A that comes to look.
 */
static int _stp_relay_subbuf_start(struct rchan_buf *buf, void *subbuf,
				   void *prev_subbuf, size_t prev_padding)
{
	return !relay_buf_full(buf) || _stp_ctl_is_detached();
}

static struct dentry *_stp_relay_create_file(const char *filename,
					     struct dentry *parent,
					     umode_t mode,
					     struct rchan_buf *buf,
					     int *is_global)
{
	struct dentry *d;

	d = debugfs_create_file(filename, 0400, parent, buf,
				&relay_file_operations);
	/* relay only understands NULL as failure */
	return IS_ERR(d) ? NULL : d;
}

static int _stp_relay_remove_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks _stp_relay_callbacks = {
	.subbuf_start = _stp_relay_subbuf_start,
	.create_buf_file = _stp_relay_create_file,
	.remove_buf_file = _stp_relay_remove_file,
};

/* -s MB is the whole buffer, spread over the CPUs, unless each CPU has
 * its own output file (bulk mode): then it is per CPU.
 */
static void _stp_relay_geometry(size_t *subbuf_size, size_t *n_subbufs)
{
	u64 bytes;

	*n_subbufs = STP_RELAY_N_SUBBUFS;
	*subbuf_size = STP_RELAY_SUBBUF_SIZE;
	if (!_stp_bufsize)
		return;
	bytes = (u64)_stp_bufsize << 20;
	if (!_stp_bulkmode)
		bytes = div_u64(bytes, num_online_cpus());
	bytes = div_u64(bytes, *n_subbufs);
	*subbuf_size = max_t(u64, PAGE_ALIGN(bytes), PAGE_SIZE);
}

static int _stp_relay_open(void)
{
	size_t size, n;

	_stp_relay_geometry(&size, &n);
	_stp_relay_chan = relay_open(STP_RELAY_NAME, _stp_module_dir, size, n,
				     &_stp_relay_callbacks, NULL);
	return _stp_relay_chan ? 0 : -ENOMEM;
}

/* Append to a relay buffer, switching sub-buffers as they fill; the
 * bytes are in place before the offset that makes them readable moves.
 * Returns how much fitted.
 */
static size_t _stp_relay_put(struct rchan_buf *buf, const char *data,
			     size_t len)
{
	size_t size = _stp_relay_chan->subbuf_size;
	size_t done = 0, n;

	if (unlikely(!buf))
		return 0;
	while (done < len) {
		n = min(len - done, size);
		if (buf->offset >= size && !relay_switch_subbuf(buf, n))
			break;
		n = min(n, size - buf->offset);
		memcpy(buf->data + buf->offset, data + done, n);
		smp_wmb();
		WRITE_ONCE(buf->offset, buf->offset + n);
		done += n;
	}
	return done;
}

void _stp_transport_info(struct stp_msg_transport *t)
{
	memset(t, 0, sizeof(*t));
	t->version = STP_MSG_VERSION;
	t->bulk = !!_stp_bulkmode;
	t->ncpus = nr_cpu_ids;
	if (_stp_relay_chan) {
		t->subbuf_size = _stp_relay_chan->subbuf_size;
		t->n_subbufs = _stp_relay_chan->n_subbufs;
	}
#ifdef STP_JSON
	t->flags = STP_TRANSPORT_JSON | (STP_JSON_FIELDS);
#endif
}

/* ---- Overflow areas ------------------------------------------------- */

/* Keep what the relay buffer refused; past the ring's size it is lost. */
static void _stp_ov_put(struct _stp_tcpu *tc, const char *data, size_t len)
{
	size_t room = STP_OVERFLOW_SIZE - tc->ov_len;
	size_t tail, n;

	if (len > room) {
		atomic64_add(len - room, &_stp_lost_bytes);
		len = room;
	}
	while (len) {
		tail = (tc->ov_head + tc->ov_len) % STP_OVERFLOW_SIZE;
		n = min(len, (size_t)STP_OVERFLOW_SIZE - tail);
		memcpy(tc->ov_buf + tail, data, n);
		tc->ov_len += n;
		data += n;
		len -= n;
	}
}

/* Move the ring into the relay buffer, oldest first, as far as it goes. */
static void _stp_ov_drain(struct _stp_tcpu *tc, struct rchan_buf *buf)
{
	size_t n, done;

	while (tc->ov_len) {
		n = min((size_t)tc->ov_len,
			(size_t)STP_OVERFLOW_SIZE - tc->ov_head);
		done = _stp_relay_put(buf, tc->ov_buf + tc->ov_head, n);
		tc->ov_head = (tc->ov_head + done) % STP_OVERFLOW_SIZE;
		tc->ov_len -= done;
		if (done < n)
			break;
	}
	if (!tc->ov_len)
		tc->ov_head = 0;
}

/* Output stays in order: nothing passes what already waits.  With the
 * ring drained as far as it went, data goes into the relay buffer when
 * nothing waits, and what does not fit (or all of it) into the ring.
 */
static inline void _stp_put_behind(struct _stp_tcpu *tc,
				   struct rchan_buf *buf, const char *data,
				   size_t len)
{
	size_t n = 0;

	if (likely(!tc->ov_len))
		n = _stp_relay_put(buf, data, len);
	if (unlikely(n < len))
		_stp_ov_put(tc, data + n, len - n);
}

void _stp_transport_write(const char *data, size_t len)
{
	struct _stp_tcpu *tc;
	struct rchan_buf *buf;
	unsigned long flags;

	if (unlikely(!len || !_stp_relay_chan))
		return;
	local_irq_save(flags);
	tc = this_cpu_ptr(&_stp_tcpu);
	if (unlikely(tc->busy)) {
		atomic64_add(len, &_stp_lost_bytes);
		goto out;
	}
	tc->busy = 1;
	barrier();
	buf = *this_cpu_ptr(_stp_relay_chan->buf);
	if (unlikely(tc->ov_len))
		_stp_ov_drain(tc, buf);
	_stp_put_behind(tc, buf, data, len);
	barrier();
	tc->busy = 0;
out:
	local_irq_restore(flags);
}

#ifdef STP_JSON
/* stap --json: a record in three pieces, kept or dropped whole (staprun
 * could not find the next record after a cut one).  What the relay
 * buffer refuses goes to the ring, so the ring must have room for all.
 */
void _stp_transport_write_rec(const void *hdr, size_t hlen, const char *pp,
			      size_t pplen, const char *data, size_t len)
{
	const char *part[3] = { hdr, pp, data };
	size_t plen[3] = { hlen, pplen, len };
	struct _stp_tcpu *tc;
	struct rchan_buf *buf;
	unsigned long flags;
	int i;

	if (unlikely(!_stp_relay_chan))
		return;
	local_irq_save(flags);
	tc = this_cpu_ptr(&_stp_tcpu);
	if (unlikely(tc->busy ||
		     STP_OVERFLOW_SIZE - tc->ov_len < hlen + pplen + len)) {
		atomic64_add(hlen + pplen + len, &_stp_lost_bytes);
		goto out;
	}
	tc->busy = 1;
	barrier();
	buf = *this_cpu_ptr(_stp_relay_chan->buf);
	if (unlikely(tc->ov_len))
		_stp_ov_drain(tc, buf);
	for (i = 0; i < 3; i++)
		_stp_put_behind(tc, buf, part[i], plen[i]);
	barrier();
	tc->busy = 0;
out:
	local_irq_restore(flags);
}
#endif

/* Runs on the CPU that owns tc; a work item that ended up elsewhere
 * (the CPU went offline) leaves the ring to the end of the run.
 */
static void _stp_ov_drain_work(struct work_struct *work)
{
	struct _stp_tcpu *tc = container_of(work, struct _stp_tcpu,
					    drain_work);
	unsigned long flags;

	local_irq_save(flags);
	if (tc == this_cpu_ptr(&_stp_tcpu) && !tc->busy) {
		tc->busy = 1;
		barrier();
		_stp_ov_drain(tc, *this_cpu_ptr(_stp_relay_chan->buf));
		barrier();
		tc->busy = 0;
	}
	local_irq_restore(flags);
}

void _stp_transport_kick(void)
{
	struct _stp_tcpu *tc;
	int cpu;

	if (!_stp_relay_chan || READ_ONCE(_stp_relay_final))
		return;
	for_each_online_cpu(cpu) {
		tc = per_cpu_ptr(&_stp_tcpu, cpu);
		if (READ_ONCE(tc->ov_len))
			queue_work_on(cpu, system_wq, &tc->drain_work);
	}
}

/* No writer runs any more: every ring may be drained from here.  The
 * bytes still waiting are returned.
 */
static size_t _stp_ov_drain_all(void)
{
	struct _stp_tcpu *tc;
	size_t pending = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		tc = per_cpu_ptr(&_stp_tcpu, cpu);
		_stp_ov_drain(tc, *per_cpu_ptr(_stp_relay_chan->buf, cpu));
		pending += tc->ov_len;
	}
	return pending;
}

static void _stp_ov_stop_drains(void)
{
	int cpu;

	WRITE_ONCE(_stp_relay_final, true);
	for_each_possible_cpu(cpu)
		cancel_work_sync(&per_cpu_ptr(&_stp_tcpu, cpu)->drain_work);
}

void _stp_transport_flush(void)
{
	unsigned long deadline;
	struct _stp_tcpu *tc;
	int cpu;

	if (!_stp_relay_chan)
		return;
	_stp_ov_stop_drains();
	deadline = jiffies + msecs_to_jiffies(STP_DRAIN_TIMEOUT_MS);
	while (_stp_ov_drain_all() && _stp_ctl_attached() &&
	       time_before(jiffies, deadline))
		msleep(20);
	for_each_possible_cpu(cpu) {
		tc = per_cpu_ptr(&_stp_tcpu, cpu);
		atomic64_add(tc->ov_len, &_stp_lost_bytes);
		tc->ov_len = 0;
		tc->ov_head = 0;
	}
	/* No relay_flush(): staprun read()s, which takes the bytes of a
	 * sub-buffer in progress as they are.  A flush would close every
	 * CPU's sub-buffer with padding, from this CPU, while staprun may
	 * be reading: a reader that saw the new sub-buffer but not yet its
	 * predecessor's padding took the unwritten rest of it (a whole
	 * sub-buffer of NULs for a CPU that printed nothing).  Without a
	 * flush a sub-buffer is only left full, with no padding at all.
	 */
}

u64 _stp_transport_lost(void)
{
	return atomic64_read(&_stp_lost_bytes);
}

static void _stp_ov_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		vfree(per_cpu_ptr(&_stp_tcpu, cpu)->ov_buf);
		per_cpu_ptr(&_stp_tcpu, cpu)->ov_buf = NULL;
	}
}

static int _stp_ov_alloc(void)
{
	struct _stp_tcpu *tc;
	int cpu;

	for_each_possible_cpu(cpu) {
		tc = per_cpu_ptr(&_stp_tcpu, cpu);
		INIT_WORK(&tc->drain_work, _stp_ov_drain_work);
		tc->ov_buf = vmalloc(STP_OVERFLOW_SIZE);
		if (!tc->ov_buf) {
			_stp_ov_free();
			return -ENOMEM;
		}
	}
	return 0;
}

/* ---- Directories ---------------------------------------------------- */

/* debugfs/systemtap is shared by every loaded module and stays when the
 * last one goes: removing it could race with another module's load.
 * Our reference to it comes from debugfs_lookup() either way.
 */
static int _stp_dirs_create(void)
{
	struct dentry *d = debugfs_lookup(STP_DEBUGFS_DIR, NULL);

	if (!d) {
		d = debugfs_create_dir(STP_DEBUGFS_DIR, NULL);
		if (IS_ERR(d) && PTR_ERR(d) != -EEXIST)
			return PTR_ERR(d);
		d = debugfs_lookup(STP_DEBUGFS_DIR, NULL);
		if (!d)
			return -ENOENT;
	}
	_stp_root_dir = d;
	d = debugfs_create_dir(module_name(THIS_MODULE), _stp_root_dir);
	if (IS_ERR(d)) {
		dput(_stp_root_dir);
		_stp_root_dir = NULL;
		return PTR_ERR(d);
	}
	_stp_module_dir = d;
	return 0;
}

static void _stp_dirs_remove(void)
{
	debugfs_remove(_stp_module_dir);
	_stp_module_dir = NULL;
	dput(_stp_root_dir);
	_stp_root_dir = NULL;
}

/* ---- Module init/exit ----------------------------------------------- */

int _stp_transport_init(void)
{
	int rc;

	rc = _stp_dirs_create();
	if (rc)
		return rc;
	rc = _stp_ov_alloc();
	if (rc)
		goto out_dirs;
	rc = _stp_relay_open();
	if (rc)
		goto out_ov;
	rc = _stp_ctl_init(_stp_module_dir);
	if (rc)
		goto out_relay;
	return 0;

out_relay:
	relay_close(_stp_relay_chan);
	_stp_relay_chan = NULL;
out_ov:
	_stp_ov_free();
out_dirs:
	_stp_dirs_remove();
	return rc;
}

void _stp_transport_close(void)
{
	_stp_ctl_exit();
	_stp_ov_stop_drains();
	if (_stp_relay_chan)
		relay_close(_stp_relay_chan);
	_stp_relay_chan = NULL;
	_stp_ov_free();
	_stp_dirs_remove();
}
