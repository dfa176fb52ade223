/* http.h - the HTTP/1.1 of tapir-exporter: a request head parsed from a
 * buffer, and a response put together in one allocation.  Only what a
 * metrics scraper needs: GET and HEAD, persistent connections, no
 * request bodies.
 */
#ifndef TAPIR_HTTP_H
#define TAPIR_HTTP_H

#include <stdbool.h>
#include <stddef.h>

/* A request head may not be longer than this (431 beyond). */
#define HTTP_HEAD_MAX 8192
/* The path of a request, without its query, at most this long (414). */
#define HTTP_PATH_MAX 256

struct http_req {
	bool head;		/* HEAD: the response without its body */
	bool keep_alive;	/* the connection stays open after it */
	char path[HTTP_PATH_MAX];
};

/* Parses the request head at the start of buf[0..len).  Returns its
 * length, through the empty line that ends it; 0 when the head is not
 * complete yet; or minus an HTTP status for a request that cannot be
 * served (400, 405, 414, 431, 501, 505), after which the connection is
 * closed.
 */
int http_parse(const char *buf, size_t len, struct http_req *req);

/* The reason phrase of an HTTP status. */
const char *http_reason(int status);

/* A complete response: status line, headers (extra, if not NULL, is
 * more header lines, each ending in "\r\n"), then the body unless
 * head_only.  Returns a malloc'd buffer and its length in *out_len, or
 * NULL when out of memory.
 */
char *http_response(int status, const char *extra, const char *body,
		    size_t body_len, bool head_only, bool keep_alive,
		    size_t *out_len);

#endif
