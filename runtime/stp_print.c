/* stp_print.c - the script's output: a print buffer per CPU that probe
 * handlers fill and hand to the transport at probe end, or sooner when
 * the next piece does not fit, so that no output is ever cut.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#else
#include "kshim-print.h"
#endif
#include "stp_print.h"
#include "stp_transport.h"
#include "stp_vsprintf.h"
#ifdef STP_JSON
#include <linux/timekeeping.h>
#include "msg.h"
#include "stp_json.h"
#include "stp_probe.h"
#endif

/* What the last formatting call on a CPU ran into (_stp_print_fault). */
#define STP_PFAULT_NONE		0
#define STP_PFAULT_KERNEL	1
#define STP_PFAULT_USER		2

struct stp_pbuf {
	char *data;			/* STP_PRINT_BUF_LEN bytes */
	size_t len;			/* bytes waiting in data */
	unsigned long fault_addr;
	int fault;			/* STP_PFAULT_* */
#ifdef STP_JSON
	/* the record the buffer becomes (stp_json_rec) */
	u64 time_ns;			/* its first byte was printed */
	const char *pp;			/* by this probe, or NULL */
	u16 kind;			/* enum stp_json_kind */
#endif
};

/* The handler owns its CPU's buffer: it runs with preemption disabled
 * and the probe prologue lets only one handler per CPU in.
 */
static struct stp_pbuf __percpu *stp_pbufs;

#ifdef STP_JSON
/* stap --json: each handing-over is one record, which says when its
 * first byte was printed and by which probe; staprun makes the JSON.
 */
static void stp_pbuf_write(struct stp_pbuf *pb, const char *data,
			   size_t len)
{
	struct stp_json_rec h = {
		.magic = STP_JSON_MAGIC,
		.kind = pb->kind,
		.len = (u32)len,
		.time_ns = pb->time_ns,
	};
	size_t pp_len = pb->pp ? strnlen(pb->pp, 0xffff) : 0;

	h.pp_len = (u16)pp_len;
	_stp_transport_write_rec(&h, sizeof(h), pb->pp, pp_len, data, len);
}

/* The buffer is empty and a print is about to fill it.  (The core is
 * compiled without the script's STP_CONTEXT_LOCALS: only members of
 * struct context before them are read here.)
 */
static void stp_pbuf_start(struct stp_pbuf *pb)
{
	struct context *c;

	if (pb->len)
		return;
	pb->time_ns = ktime_get_real_fast_ns();
	c = _stp_context_get(raw_smp_processor_id());
	pb->pp = c && atomic_read(&c->busy) > 0 ? c->probe_point : NULL;
}

void _stp_print_kind(int kind)
{
	struct stp_pbuf *pb;

	if (unlikely(!stp_pbufs))
		return;
	pb = this_cpu_ptr(stp_pbufs);
	if (pb->len) {
		stp_pbuf_write(pb, pb->data, pb->len);
		pb->len = 0;
	}
	pb->kind = (u16)kind;
}

void _stp_print_json_str(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned long n = strlen(s), used;
	char esc[STP_JSON_ESC_MAX];
	unsigned int k;

	_stp_print_char('"');
	while (n) {
		k = stp_json_escape(esc, p, n, &used);
		_stp_print_n(esc, k);
		p += used;
		n -= used;
	}
	_stp_print_char('"');
}
#else
static void stp_pbuf_write(struct stp_pbuf *pb, const char *data,
			   size_t len)
{
	(void)pb;
	_stp_transport_write(data, len);
}

static inline void stp_pbuf_start(struct stp_pbuf *pb)
{
	(void)pb;
}
#endif

static void stp_pbuf_flush(struct stp_pbuf *pb)
{
	if (pb->len) {
		stp_pbuf_write(pb, pb->data, pb->len);
		pb->len = 0;
	}
}

/* The drain hook of a formatter writing straight into the buffer. */
static void stp_pbuf_drain(struct stp_out *o)
{
	stp_pbuf_write(this_cpu_ptr(stp_pbufs), o->buf, o->pos);
	o->pos = 0;
}

static void stp_pbuf_note(struct stp_pbuf *pb, const struct stp_out *o,
			  int rc)
{
	if (!rc) {
		pb->fault = STP_PFAULT_NONE;
		return;
	}
	pb->fault = o->fault_user ? STP_PFAULT_USER : STP_PFAULT_KERNEL;
	pb->fault_addr = o->fault_addr;
}

int _stp_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct stp_out o;
	int rc;

	stp_out_init(&o, buf, size ? size - 1 : 0, NULL);
	rc = stp_format(&o, fmt, ap);
	/* raw_: sprintf may also run in process context (init, exit),
	 * where the record is not consulted.
	 */
	if (stp_pbufs)
		stp_pbuf_note(raw_cpu_ptr(stp_pbufs), &o, rc);
	if (rc) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	if (size)
		buf[o.pos] = '\0';
	return o.total < INT_MAX ? (int)o.total : INT_MAX;
}

int _stp_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = _stp_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* Format into the room left; when the text does not fit, flush what is
 * there and format again into the empty buffer, draining as it fills.
 * So one printf normally reaches the transport in one piece, and a
 * longer one in several, in order and whole.
 */
void _stp_vprintf(const char *fmt, va_list ap)
{
	struct stp_pbuf *pb;
	struct stp_out o;
	va_list aq;
	int rc;

	if (unlikely(!stp_pbufs))
		return;
	pb = this_cpu_ptr(stp_pbufs);
	stp_pbuf_start(pb);
	if (pb->len) {
		stp_out_init(&o, pb->data + pb->len,
			     STP_PRINT_BUF_LEN - pb->len, NULL);
		va_copy(aq, ap);
		rc = stp_format(&o, fmt, aq);
		va_end(aq);
		if (rc || o.total <= o.size) {
			if (!rc)
				pb->len += o.total;
			stp_pbuf_note(pb, &o, rc);
			return;
		}
		stp_pbuf_flush(pb);
		stp_pbuf_start(pb);
	}
	stp_out_init(&o, pb->data, STP_PRINT_BUF_LEN, stp_pbuf_drain);
	rc = stp_format(&o, fmt, ap);
	pb->len = rc ? 0 : o.pos;
	stp_pbuf_note(pb, &o, rc);
}

void _stp_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	_stp_vprintf(fmt, ap);
	va_end(ap);
}

int _stp_print_fault(unsigned long *addr, int *user)
{
	struct stp_pbuf *pb;

	if (unlikely(!stp_pbufs))
		return 0;
	pb = this_cpu_ptr(stp_pbufs);
	if (pb->fault == STP_PFAULT_NONE)
		return 0;
	*addr = pb->fault_addr;
	*user = pb->fault == STP_PFAULT_USER;
	return -EFAULT;
}

/* A piece that does not fit in the room left goes after a flush; one
 * larger than the whole buffer goes through it in buffer-sized parts,
 * so the transport never sees a write longer than STP_PRINT_BUF_LEN.
 */
void _stp_print_n(const char *s, size_t n)
{
	struct stp_pbuf *pb;

	if (unlikely(!stp_pbufs))
		return;
	pb = this_cpu_ptr(stp_pbufs);
	stp_pbuf_start(pb);
	if (n > STP_PRINT_BUF_LEN - pb->len) {
		stp_pbuf_flush(pb);
		stp_pbuf_start(pb);
	}
	while (n > STP_PRINT_BUF_LEN - pb->len) {
		size_t k = STP_PRINT_BUF_LEN - pb->len;

		memcpy(pb->data + pb->len, s, k);
		pb->len += k;
		stp_pbuf_flush(pb);
		s += k;
		n -= k;
	}
	memcpy(pb->data + pb->len, s, n);
	pb->len += n;
}

void _stp_print(const char *s)
{
	_stp_print_n(s, strlen(s));
}

void _stp_print_char(char c)
{
	struct stp_pbuf *pb;

	if (unlikely(!stp_pbufs))
		return;
	pb = this_cpu_ptr(stp_pbufs);
	stp_pbuf_start(pb);
	if (unlikely(pb->len == STP_PRINT_BUF_LEN)) {
		stp_pbuf_flush(pb);
		stp_pbuf_start(pb);
	}
	pb->data[pb->len++] = c;
}

void _stp_print_flush(void)
{
	if (likely(stp_pbufs))
		stp_pbuf_flush(this_cpu_ptr(stp_pbufs));
}

int _stp_print_init(void)
{
	int cpu;

	stp_pbufs = alloc_percpu(struct stp_pbuf);
	if (!stp_pbufs)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct stp_pbuf *pb = per_cpu_ptr(stp_pbufs, cpu);

		pb->data = kvmalloc_node(STP_PRINT_BUF_LEN, GFP_KERNEL,
					 cpu_to_node(cpu));
		if (!pb->data) {
			_stp_print_exit();
			return -ENOMEM;
		}
		pb->len = 0;
		pb->fault = STP_PFAULT_NONE;
#ifdef STP_JSON
		pb->kind = STP_JSON_TEXT;
#endif
	}
	return 0;
}

/* Whatever a CPU still holds (a handler that never reached its flush)
 * goes out first; call this before the transport closes.
 */
void _stp_print_exit(void)
{
	int cpu;

	if (!stp_pbufs)
		return;
	for_each_possible_cpu(cpu) {
		struct stp_pbuf *pb = per_cpu_ptr(stp_pbufs, cpu);

		if (pb->data)
			stp_pbuf_flush(pb);
		kvfree(pb->data);
		pb->data = NULL;
	}
	free_percpu(stp_pbufs);
	stp_pbufs = NULL;
}
