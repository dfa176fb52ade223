/* test-http.c - tapir-exporter's request parser and response builder
 * (exporter/http.c) on their own, under the sanitizers: complete and
 * partial heads, every refusal with its status, and every prefix of a
 * request, which must read as "not complete yet" and never past its end.
 */
#define _GNU_SOURCE
#include "../../exporter/http.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The buffer is a copy of exactly len bytes, so that ASan sees a read
 * past its end.
 */
static int parse(const char *text, size_t len, struct http_req *req)
{
	char *buf = malloc(len ? len : 1);
	int rc;

	memcpy(buf, text, len);
	memset(req, 0, sizeof(*req));
	rc = http_parse(buf, len, req);
	free(buf);
	return rc;
}

static int parse_str(const char *text, struct http_req *req)
{
	return parse(text, strlen(text), req);
}

static void test_good(void)
{
	struct http_req r;
	const char *get = "GET /syscalls.ko HTTP/1.1\r\nHost: h\r\n\r\n";
	const char *lf = "HEAD /a.stp?x=1 HTTP/1.0\nConnection: keep-alive\n\n";

	tap_int_eq(parse_str(get, &r), (long long)strlen(get),
		   "GET: the length of the head");
	tap_str_eq(r.path, "/syscalls.ko", "GET: the path");
	tap_ok(!r.head && r.keep_alive, "GET over 1.1: persistent");
	tap_int_eq(parse_str(lf, &r), (long long)strlen(lf),
		   "bare line feeds end lines too");
	tap_str_eq(r.path, "/a.stp", "the query is not part of the path");
	tap_ok(r.head && r.keep_alive, "HEAD over 1.0 with keep-alive");
	parse_str("GET / HTTP/1.1\r\nconnection:   Close\r\n\r\n", &r);
	tap_ok(!r.keep_alive, "Connection: close, any case, any blanks");
	parse_str("GET / HTTP/1.0\r\n\r\n", &r);
	tap_ok(!r.keep_alive, "1.0 without keep-alive: closed after");
	tap_int_eq(parse_str("\r\n\nGET / HTTP/1.1\r\n\r\n", &r), 21,
		   "empty lines before the request count in its length");
	tap_int_eq(parse_str("GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
			     &r), 37, "Content-Length: 0 is no body");
	tap_int_eq(parse_str("GET / HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n",
			     &r), 18, "pipelined: the first head only");
}

static void test_bad(void)
{
	static const struct {
		const char *text;
		int status;
	} cases[] = {
		{ "HELLO\r\n\r\n", -400 },
		{ "GET /\r\n\r\n", -400 },
		{ "get / HTTP/1.1\r\n\r\n", -400 },
		{ "GET  / HTTP/1.1\r\n\r\n", -400 },
		{ "GET / HTTP/1.1 x\r\n\r\n", -400 },
		{ "GET x HTTP/1.1\r\n\r\n", -400 },
		{ "GET / HTTP/2.0\r\n\r\n", -505 },
		{ "GET / HTTP/1.2\r\n\r\n", -505 },
		{ "GET / HTTQ/1.1\r\n\r\n", -400 },
		{ "POST / HTTP/1.1\r\n\r\n", -405 },
		{ "DELETE / HTTP/1.1\r\n\r\n", -405 },
		{ "GET / HTTP/1.1\r\nno colon\r\n\r\n", -400 },
		{ "GET / HTTP/1.1\r\n: empty name\r\n\r\n", -400 },
		{ "GET / HTTP/1.1\r\n folded: x\r\n\r\n", -400 },
		{ "GET / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", -400 },
		{ "GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", -400 },
		{ "\rGET / HTTP/1.1\r\n\r\n", -400 },
	};
	struct http_req r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tap_int_eq(parse_str(cases[i].text, &r), cases[i].status,
			   "refused with %d: %.*s", -cases[i].status,
			   (int)strcspn(cases[i].text, "\r"), cases[i].text);
}

static void test_limits(void)
{
	struct http_req r;
	char *big = malloc(HTTP_HEAD_MAX + 64);
	int n;

	/* a path of HTTP_PATH_MAX characters does not fit */
	n = snprintf(big, HTTP_HEAD_MAX, "GET /%0*d HTTP/1.1\r\n\r\n",
		     HTTP_PATH_MAX - 1, 0);
	tap_int_eq(parse(big, (size_t)n, &r), -414, "a path too long: 414");
	n = snprintf(big, HTTP_HEAD_MAX, "GET /%0*d HTTP/1.1\r\n\r\n",
		     HTTP_PATH_MAX - 2, 0);
	tap_int_eq(parse(big, (size_t)n, &r), n, "the longest path: served");
	/* a head that has not ended within HTTP_HEAD_MAX bytes */
	memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
	memset(big + 19, 'a', HTTP_HEAD_MAX - 19);
	tap_int_eq(parse(big, HTTP_HEAD_MAX, &r), -431,
		   "no end within %d bytes: 431", HTTP_HEAD_MAX);
	tap_int_eq(parse(big, HTTP_HEAD_MAX - 1, &r), 0,
		   "one byte less: not complete yet");
	memcpy(big + HTTP_HEAD_MAX, "\r\n\r\n", 4);
	tap_int_eq(parse(big, HTTP_HEAD_MAX + 4, &r), -431,
		   "a head ending past %d bytes: 431", HTTP_HEAD_MAX);
	tap_int_eq(parse_str("GET /a\0b HTTP/1.1\r\n\r\n", &r), 0,
		   "a C string stops at NUL: not complete");
	tap_int_eq(parse("GET /a\0b HTTP/1.1\r\n\r\n", 21, &r), -400,
		   "a NUL byte in the request line: 400");
	free(big);
}

/* Every proper prefix of a request is incomplete, never an error. */
static void test_prefixes(void)
{
	const char *req = "\r\nGET /x.ko?q HTTP/1.1\r\nHost: a\r\n"
			  "Connection: keep-alive\r\n\r\n";
	size_t i, len = strlen(req);
	struct http_req r;
	bool all = true;

	for (i = 0; i < len; i++)
		if (parse(req, i, &r) != 0) {
			tap_diag("prefix of %zu bytes: %d", i, parse(req, i, &r));
			all = false;
		}
	tap_ok(all, "each of %zu prefixes is incomplete", len);
	tap_int_eq(parse(req, len, &r), (long long)len, "the whole request");
}

static void test_response(void)
{
	size_t len;
	char *out = http_response(200, NULL, "a 1\n", 4, false, true, &len);
	const char *want = "HTTP/1.1 200 OK\r\n"
		"Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
		"Content-Length: 4\r\n\r\na 1\n";

	tap_ok(out && len == strlen(want) && !memcmp(out, want, len),
	       "a 200 response, byte for byte");
	free(out);
	out = http_response(503, "Retry-After: 5\r\n", "x\n", 2, true, false,
			    &len);
	want = "HTTP/1.1 503 Service Unavailable\r\n"
		"Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
		"Content-Length: 2\r\nConnection: close\r\n"
		"Retry-After: 5\r\n\r\n";
	tap_ok(out && len == strlen(want) && !memcmp(out, want, len),
	       "HEAD of a 503 that closes: headers only, extra ones last");
	free(out);
	out = http_response(405, NULL, "", 0, false, false, &len);
	tap_ok(out && memmem(out, len, "\r\nAllow: GET, HEAD\r\n\r\n", 22) &&
	       !memcmp(out + len - 4, "\r\n\r\n", 4),
	       "405 says what is allowed");
	free(out);
	tap_str_eq(http_reason(431), "Request Header Fields Too Large",
		   "reason of 431");
}

int main(void)
{
	test_good();
	test_bad();
	test_limits();
	test_prefixes();
	test_response();
	return tap_done();
}
