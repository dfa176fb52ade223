/* json.c - staprun's half of stap --json: the records of one CPU's relay
 * stream taken apart, their text cut into lines, and each line written
 * as one JSON object (doc/json.md); lines the module wrote as JSON
 * already pass as they are.
 */
#include "json.h"

#include "../runtime/msg.h"
#include "../runtime/stp_json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A line longer than this goes out in parts marked "partial", so that a
 * script printing without newlines cannot make staprun grow forever.
 */
#define JSON_LINE_MAX (1024 * 1024)
/* No module writes a record this long (a print buffer is 8 KB unless
 * -D STP_PRINT_BUF_LEN says otherwise): a header that says so is not a
 * header.
 */
#define JSON_REC_MAX (64 * 1024 * 1024)
/* Room for {"type":"printf", the fields and the closing. */
#define JSON_OBJ_EXTRA 128

struct json_cpu {
	int cpu;
	unsigned int flags;
	bool bad;			/* not records: dropped */
	char *rec;			/* a record not complete yet */
	size_t rec_len, rec_cap;
	/* the line being put together, and who printed its first byte */
	bool open;
	unsigned int kind;		/* enum stp_json_kind */
	char *line;
	size_t line_len, line_cap;
	char *pp;
	size_t pp_cap;
	uint64_t time_ns;
	/* the objects of one json_feed(), written out in one go */
	char *out;
	size_t out_len, out_cap;
};

/* Grow *buf to hold at least need bytes; false when memory runs out. */
static bool grow(char **buf, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : 256;
	char *p;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	p = realloc(*buf, n);
	if (!p) {
		fputs("staprun: out of memory\n", stderr);
		return false;
	}
	*buf = p;
	*cap = n;
	return true;
}

struct json_cpu *json_cpu_new(int cpu, unsigned int flags)
{
	struct json_cpu *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->cpu = cpu;
	j->flags = flags;
	return j;
}

void json_cpu_free(struct json_cpu *j)
{
	if (!j)
		return;
	free(j->rec);
	free(j->line);
	free(j->pp);
	free(j->out);
	free(j);
}

/* s[0..n) escaped and quoted at o; o has room for 6n + 2 bytes. */
static size_t put_str(char *o, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned long used;
	size_t k = 0;

	o[k++] = '"';
	while (n) {
		k += stp_json_escape(o + k, p, n, &used);
		p += used;
		n -= used;
	}
	o[k++] = '"';
	return k;
}

/* The open line as an object of type "printf" (the script's text). */
static int emit_text(struct json_cpu *j, bool partial)
{
	size_t pplen = j->pp ? strlen(j->pp) : 0;
	size_t need = j->out_len + JSON_OBJ_EXTRA + STP_JSON_ESC_MAX *
		      (j->line_len + pplen);
	char *o;
	size_t k = 0;

	if (!grow(&j->out, &j->out_cap, need))
		return -ENOMEM;
	o = j->out + j->out_len;
	k += (size_t)sprintf(o, "{\"type\":\"printf\"");
	if (j->flags & STP_JSON_FIELD_PROBE) {
		k += (size_t)sprintf(o + k, ",\"probe\":");
		k += put_str(o + k, j->pp ? j->pp : "", pplen);
	}
	if (j->flags & STP_JSON_FIELD_CPU)
		k += (size_t)sprintf(o + k, ",\"cpu\":%d", j->cpu);
	if (j->flags & STP_JSON_FIELD_TIME)
		k += (size_t)sprintf(o + k, ",\"time_ns\":%" PRIu64,
				     j->time_ns);
	k += (size_t)sprintf(o + k, ",\"data\":");
	k += put_str(o + k, j->line ? j->line : "", j->line_len);
	k += (size_t)sprintf(o + k, "%s}\n",
			     partial ? ",\"partial\":true" : "");
	j->out_len += k;
	return 0;
}

/* The open line goes out: text as an object, objects as they are. */
static int emit_line(struct json_cpu *j, bool partial)
{
	int err = 0;

	if (j->kind == STP_JSON_TEXT) {
		err = emit_text(j, partial);
	} else if (grow(&j->out, &j->out_cap,
			j->out_len + j->line_len + 1)) {
		memcpy(j->out + j->out_len, j->line, j->line_len);
		j->out_len += j->line_len;
		j->out[j->out_len++] = '\n';
	} else {
		err = -ENOMEM;
	}
	j->line_len = 0;
	return err;
}

/* What the objects made so far goes to out, in one write. */
static int emit_flush(struct json_cpu *j, json_out_fn out, void *ctx)
{
	int err = 0;

	if (j->out_len)
		err = out(ctx, j->out, j->out_len);
	j->out_len = 0;
	return err;
}

static int open_line(struct json_cpu *j, const struct stp_json_rec *h,
		     const char *pp)
{
	if (!grow(&j->pp, &j->pp_cap, (size_t)h->pp_len + 1))
		return -ENOMEM;
	memcpy(j->pp, pp, h->pp_len);
	j->pp[h->pp_len] = '\0';
	j->time_ns = h->time_ns;
	j->kind = h->kind;
	j->open = true;
	j->line_len = 0;
	return 0;
}

/* Add n bytes to the open line; past JSON_LINE_MAX the line so far goes
 * out as a partial one.
 */
static int add_to_line(struct json_cpu *j, const char *p, size_t n)
{
	size_t k;
	int err;

	while (n) {
		if (j->line_len == JSON_LINE_MAX) {
			err = emit_line(j, true);
			if (err)
				return err;
		}
		k = JSON_LINE_MAX - j->line_len;
		k = n < k ? n : k;
		if (!grow(&j->line, &j->line_cap, j->line_len + k))
			return -ENOMEM;
		memcpy(j->line + j->line_len, p, k);
		j->line_len += k;
		p += k;
		n -= k;
	}
	return 0;
}

/* One record: its bytes continue the open line or start new ones. */
static int take_record(struct json_cpu *j, const struct stp_json_rec *h,
		       const char *pp, const char *data)
{
	size_t len = h->len, seg;
	const char *nl;
	int err;

	if (j->open && j->kind != h->kind) {
		err = emit_line(j, true);
		j->open = false;
		if (err)
			return err;
	}
	while (len) {
		nl = memchr(data, '\n', len);
		seg = nl ? (size_t)(nl - data) : len;
		if (!j->open) {
			err = open_line(j, h, pp);
			if (err)
				return err;
		}
		err = add_to_line(j, data, seg);
		if (err || !nl)
			return err;
		err = emit_line(j, false);
		j->open = false;
		if (err)
			return err;
		data += seg + 1;
		len -= seg + 1;
	}
	return 0;
}

int json_feed(struct json_cpu *j, const char *p, size_t n, json_out_fn out,
	      void *ctx)
{
	struct stp_json_rec h;
	size_t off = 0, total;
	int err = 0;

	if (j->bad)
		return 0;
	if (!grow(&j->rec, &j->rec_cap, j->rec_len + n))
		return -ENOMEM;
	memcpy(j->rec + j->rec_len, p, n);
	j->rec_len += n;
	while (!err && j->rec_len - off >= sizeof(h)) {
		memcpy(&h, j->rec + off, sizeof(h));
		if (h.magic != STP_JSON_MAGIC || h.kind > STP_JSON_OBJECTS ||
		    h.len > JSON_REC_MAX) {
			fprintf(stderr, "staprun: the output of CPU %d is not "
				"in the --json record format; the rest of it "
				"is dropped\n", j->cpu);
			j->bad = true;
			j->rec_len = 0;
			emit_flush(j, out, ctx);
			return -EPROTO;
		}
		total = sizeof(h) + h.pp_len + (size_t)h.len;
		if (j->rec_len - off < total)
			break;
		err = take_record(j, &h, j->rec + off + sizeof(h),
				  j->rec + off + sizeof(h) + h.pp_len);
		off += total;
	}
	memmove(j->rec, j->rec + off, j->rec_len - off);
	j->rec_len -= off;
	if (err)
		j->out_len = 0;
	return err ?: emit_flush(j, out, ctx);
}

int json_finish(struct json_cpu *j, json_out_fn out, void *ctx)
{
	int err = 0;

	if (j->open && j->line_len)
		err = emit_line(j, true);
	j->open = false;
	j->line_len = 0;
	return err ?: emit_flush(j, out, ctx);
}
