/* test-json.c - staprun's --json decoder (loader/json.c) fed records as
 * a --json module writes them: lines cut across records and reads,
 * the optional fields, object lines, partial lines, escapes, a stream
 * that is not records.  "test-json --dump" writes the objects of every
 * byte value for test-json.sh to parse with python3.
 */
#include "../../loader/json.h"
#include "../../runtime/msg.h"
#include "tap.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sink {
	char *buf;
	size_t len;
	int calls;
};

static int sink_out(void *ctx, const char *p, size_t n)
{
	struct sink *k = ctx;
	char *b = realloc(k->buf, k->len + n + 1);

	if (!b)
		return -ENOMEM;
	memcpy(b + k->len, p, n);
	k->len += n;
	b[k->len] = '\0';
	k->buf = b;
	k->calls++;
	return 0;
}

/* A stream of records, as the module's print buffers become them. */
struct stream {
	char buf[1 << 16];
	size_t len;
};

static void rec(struct stream *s, unsigned int kind, const char *pp,
		uint64_t t, const char *data, size_t n)
{
	struct stp_json_rec h = {
		.magic = STP_JSON_MAGIC,
		.kind = (uint16_t)kind,
		.pp_len = (uint16_t)(pp ? strlen(pp) : 0),
		.len = (uint32_t)n,
		.time_ns = t,
	};

	memcpy(s->buf + s->len, &h, sizeof(h));
	s->len += sizeof(h);
	memcpy(s->buf + s->len, pp, h.pp_len);
	s->len += h.pp_len;
	memcpy(s->buf + s->len, data, n);
	s->len += n;
}

static void text(struct stream *s, const char *pp, uint64_t t,
		 const char *data)
{
	rec(s, STP_JSON_TEXT, pp, t, data, strlen(data));
}

/* Decode s in pieces of step bytes (0: at once), then finish. */
static char *decode(const struct stream *s, unsigned int flags,
		    size_t step, int *err)
{
	struct json_cpu *j = json_cpu_new(1, STP_TRANSPORT_JSON | flags);
	struct sink k = { 0 };
	size_t off = 0, n;

	*err = 0;
	while (off < s->len && !*err) {
		n = step && s->len - off > step ? step : s->len - off;
		*err = json_feed(j, s->buf + off, n, sink_out, &k);
		off += n;
	}
	if (!*err)
		*err = json_finish(j, sink_out, &k);
	json_cpu_free(j);
	return k.buf ? k.buf : strdup("");
}

static void check(const struct stream *s, unsigned int flags,
		  const char *want, const char *name)
{
	size_t steps[] = { 0, 1, 7, 31 };
	unsigned int i;
	char *got;
	int err;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		got = decode(s, flags, steps[i], &err);
		tap_int_eq(err, 0, "%s: no error (reads of %zu)", name,
			   steps[i]);
		tap_str_eq(got, want, "%s (reads of %zu)", name, steps[i]);
		free(got);
	}
}

static void test_lines(void)
{
	static struct stream s;

	s.len = 0;
	text(&s, "begin", 5, "a\nb");
	text(&s, "timer.s(1)", 6, "c\n\nd");
	check(&s, 0, "{\"type\":\"printf\",\"data\":\"a\"}\n"
	      "{\"type\":\"printf\",\"data\":\"bc\"}\n"
	      "{\"type\":\"printf\",\"data\":\"\"}\n"
	      "{\"type\":\"printf\",\"data\":\"d\",\"partial\":true}\n",
	      "lines across records, the unfinished one partial");
	check(&s, STP_JSON_FIELD_PROBE | STP_JSON_FIELD_CPU |
	      STP_JSON_FIELD_TIME,
	      "{\"type\":\"printf\",\"probe\":\"begin\",\"cpu\":1,"
	      "\"time_ns\":5,\"data\":\"a\"}\n"
	      "{\"type\":\"printf\",\"probe\":\"begin\",\"cpu\":1,"
	      "\"time_ns\":5,\"data\":\"bc\"}\n"
	      "{\"type\":\"printf\",\"probe\":\"timer.s(1)\",\"cpu\":1,"
	      "\"time_ns\":6,\"data\":\"\"}\n"
	      "{\"type\":\"printf\",\"probe\":\"timer.s(1)\",\"cpu\":1,"
	      "\"time_ns\":6,\"data\":\"d\",\"partial\":true}\n",
	      "fields: those of the record with the line's first byte");
	check(&s, STP_JSON_FIELD_TIME,
	      "{\"type\":\"printf\",\"time_ns\":5,\"data\":\"a\"}\n"
	      "{\"type\":\"printf\",\"time_ns\":5,\"data\":\"bc\"}\n"
	      "{\"type\":\"printf\",\"time_ns\":6,\"data\":\"\"}\n"
	      "{\"type\":\"printf\",\"time_ns\":6,\"data\":\"d\","
	      "\"partial\":true}\n", "time alone");
}

static void test_objects(void)
{
	static struct stream s;
	const char *o1 = "{\"type\":\"global\",";
	const char *o2 = "\"name\":\"x\",\"value\":1}\n{\"type\":\"hist\"}\n";

	s.len = 0;
	text(&s, "end", 1, "half");
	rec(&s, STP_JSON_OBJECTS, "end", 2, o1, strlen(o1));
	rec(&s, STP_JSON_OBJECTS, "end", 3, o2, strlen(o2));
	text(&s, "end", 4, "after\n");
	check(&s, STP_JSON_FIELD_PROBE,
	      "{\"type\":\"printf\",\"probe\":\"end\",\"data\":\"half\","
	      "\"partial\":true}\n"
	      "{\"type\":\"global\",\"name\":\"x\",\"value\":1}\n"
	      "{\"type\":\"hist\"}\n"
	      "{\"type\":\"printf\",\"probe\":\"end\",\"data\":\"after\"}\n",
	      "object lines pass whole, after the unfinished text line");
}

static void test_escapes(void)
{
	static struct stream s;
	const char d[] = "q\" b\\ \t\r\b\f\x01\x1f\x7f / \xc3\xa9 "
			 "\xf0\x9f\x98\x80 \xff \xc3( \xed\xa0\x80 \xc0\xaf "
			 "\xf4\x90\x80\x80 \xe2\x82\n";

	s.len = 0;
	rec(&s, STP_JSON_TEXT, "p\"q", 0, d, sizeof(d) - 1);
	check(&s, STP_JSON_FIELD_PROBE,
	      "{\"type\":\"printf\",\"probe\":\"p\\\"q\",\"data\":"
	      "\"q\\\" b\\\\ \\t\\r\\b\\f\\u0001\\u001f\\u007f / \xc3\xa9 "
	      "\xf0\x9f\x98\x80 \\udcff \\udcc3( \\udced\\udca0\\udc80 "
	      "\\udcc0\\udcaf \\udcf4\\udc90\\udc80\\udc80 "
	      "\\udce2\\udc82\"}\n", "escapes");
}

static void test_not_records(void)
{
	struct json_cpu *j = json_cpu_new(0, STP_TRANSPORT_JSON);
	struct sink k = { 0 };
	char junk[64];

	memset(junk, 'x', sizeof(junk));
	tap_int_eq(json_feed(j, junk, sizeof(junk), sink_out, &k), -EPROTO,
		   "a stream that is not records is refused");
	tap_int_eq(json_feed(j, junk, sizeof(junk), sink_out, &k), 0,
		   "and dropped from then on");
	tap_int_eq(k.calls, 0, "nothing was written");
	json_finish(j, sink_out, &k);
	json_cpu_free(j);
	free(k.buf);
}

/* A header with the magic but a length no module writes. */
static void test_huge_length(void)
{
	struct json_cpu *j = json_cpu_new(0, STP_TRANSPORT_JSON);
	struct stp_json_rec h = {
		.magic = STP_JSON_MAGIC,
		.kind = STP_JSON_TEXT,
		.len = 0xffffffffu,
	};
	struct sink k = { 0 };

	tap_int_eq(json_feed(j, (const char *)&h, sizeof(h), sink_out, &k),
		   -EPROTO, "a record of 4 GiB is refused, not waited for");
	json_cpu_free(j);
	free(k.buf);
}

static void test_long_line(void)
{
	size_t n = 3 * 1024 * 1024 / 2, off = 0, part = 8192;
	struct json_cpu *j = json_cpu_new(0, STP_TRANSPORT_JSON);
	struct sink k = { 0 };
	char *data = malloc(part);
	struct stp_json_rec h = {
		.magic = STP_JSON_MAGIC,
		.kind = STP_JSON_TEXT,
		.len = (uint32_t)part,
	};
	int err = 0;

	memset(data, 'y', part);
	while (off < n && !err) {
		err = json_feed(j, (const char *)&h, sizeof(h), sink_out, &k);
		err = err ?: json_feed(j, data, part, sink_out, &k);
		off += part;
	}
	err = err ?: json_finish(j, sink_out, &k);
	tap_int_eq(err, 0, "a line of 1.5 MiB: no error");
	tap_int_eq(k.calls, 2, "in two objects: 1 MiB, then the rest");
	tap_ok(k.buf && strstr(k.buf, "\"partial\":true}\n{") != NULL,
	       "the first marked partial");
	json_cpu_free(j);
	free(data);
	free(k.buf);
}

/* Every byte value, in lines of 16, and some UTF-8: test-json.sh gets
 * the bytes back from python3's parse with "surrogateescape".
 */
static int dump(void)
{
	static struct stream s;
	char line[64];
	int i, b, err;
	char *got;

	s.len = 0;
	for (i = 0; i < 16; i++) {
		for (b = 0; b < 16; b++) {
			int c = i * 16 + b;

			line[b] = (char)(c == '\n' ? ' ' : c);
		}
		line[16] = '\n';
		rec(&s, STP_JSON_TEXT, "x", 0, line, 17);
	}
	got = decode(&s, 0, 0, &err);
	fputs(got, stdout);
	free(got);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--dump"))
		return dump();
	test_lines();
	test_objects();
	test_escapes();
	test_not_records();
	test_huge_length();
	test_long_line();
	return tap_done();
}
