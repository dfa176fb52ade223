/* http.c - request heads and responses for tapir-exporter (http.h).
 * Strict where a mistake could mean serving the wrong thing (method,
 * version, path), lenient about what scrapers send (a bare "\n" ends a
 * line as well as "\r\n", unknown headers are ignored).
 */
#include "http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The end of the head: the first empty line.  Returns the length of the
 * head through it, or 0.
 */
static size_t head_end(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < len && buf[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/* One line of the head at *p (ending before end): its length without
 * the line break, *p moved past it.
 */
static size_t next_line(const char **p, const char *end, const char **line)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t n;

	if (!nl)
		nl = end;
	*line = *p;
	n = (size_t)(nl - *p);
	if (n && (*p)[n - 1] == '\r')
		n--;
	*p = nl < end ? nl + 1 : end;
	return n;
}

static bool is_token_upper(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] < 'A' || s[i] > 'Z')
			return false;
	return true;
}

/* request-line = method SP request-target SP HTTP-version */
static int parse_request_line(const char *l, size_t n, struct http_req *req,
			      int *minor)
{
	const char *sp1 = memchr(l, ' ', n), *sp2, *target;
	size_t tlen, plen;

	if (!sp1)
		return -400;
	sp2 = memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - l));
	if (!sp2 || memchr(sp2 + 1, ' ', n - (size_t)(sp2 + 1 - l)))
		return -400;
	if (!is_token_upper(l, (size_t)(sp1 - l)))
		return -400;
	if ((size_t)(l + n - (sp2 + 1)) != 8 ||
	    memcmp(sp2 + 1, "HTTP/1.", 7))
		return (size_t)(l + n - (sp2 + 1)) >= 5 &&
		       !memcmp(sp2 + 1, "HTTP/", 5) ? -505 : -400;
	if (sp2[8] != '0' && sp2[8] != '1')
		return -505;
	*minor = sp2[8] - '0';
	target = sp1 + 1;
	tlen = (size_t)(sp2 - target);
	if (!tlen || target[0] != '/')
		return -400;
	plen = strcspn(target, "?# ");
	if (plen > tlen)
		plen = tlen;
	if (plen >= HTTP_PATH_MAX)
		return -414;
	memcpy(req->path, target, plen);
	req->path[plen] = '\0';
	if (strlen(req->path) != plen)
		return -400;	/* a NUL byte in the path */
	if (sp1 - l == 3 && !memcmp(l, "GET", 3))
		req->head = false;
	else if (sp1 - l == 4 && !memcmp(l, "HEAD", 4))
		req->head = true;
	else
		return -405;
	return 0;
}

/* Header fields: only Connection matters, and a body (which we do not
 * read) makes the request one we answer and then close on.
 */
static int parse_fields(const char *p, const char *end, struct http_req *req)
{
	const char *l, *colon, *v;
	size_t n, vlen;

	while (p < end) {
		n = next_line(&p, end, &l);
		if (!n)
			break;
		colon = memchr(l, ':', n);
		if (!colon || colon == l || l[0] == ' ' || l[0] == '\t')
			return -400;
		v = colon + 1;
		while (v < l + n && (*v == ' ' || *v == '\t'))
			v++;
		vlen = (size_t)(l + n - v);
		if (colon - l == 10 && !strncasecmp(l, "Connection", 10)) {
			if (vlen == 5 && !strncasecmp(v, "close", 5))
				req->keep_alive = false;
			else if (vlen == 10 && !strncasecmp(v, "keep-alive", 10))
				req->keep_alive = true;
		} else if ((colon - l == 14 &&
			    !strncasecmp(l, "Content-Length", 14) &&
			    !(vlen == 1 && *v == '0')) ||
			   (colon - l == 17 &&
			    !strncasecmp(l, "Transfer-Encoding", 17))) {
			return -400;
		}
	}
	return 0;
}

int http_parse(const char *buf, size_t len, struct http_req *req)
{
	size_t hlen = head_end(buf, len), n;
	const char *p = buf, *end, *l;
	int minor = 1, rc;

	/* Empty lines before a request are allowed (RFC 9112, 2.2). */
	if (len && (buf[0] == '\n' || buf[0] == '\r')) {
		size_t skip = 0;

		while (skip < len && (buf[skip] == '\n' ||
		       (buf[skip] == '\r' && skip + 1 < len &&
			buf[skip + 1] == '\n')))
			skip += buf[skip] == '\n' ? 1 : 2;
		if (skip) {
			rc = http_parse(buf + skip, len - skip, req);
			return rc > 0 ? rc + (int)skip : rc;
		}
	}
	if (!hlen)
		return len >= HTTP_HEAD_MAX ? -431 : 0;
	if (hlen > HTTP_HEAD_MAX)
		return -431;
	end = buf + hlen;
	n = next_line(&p, end, &l);
	if (memchr(l, '\0', n))
		return -400;
	rc = parse_request_line(l, n, req, &minor);
	if (rc < 0 && rc != -405)
		return rc;
	req->keep_alive = minor == 1;
	if (rc == -405)
		return rc;
	rc = parse_fields(p, end, req);
	return rc < 0 ? rc : (int)hlen;
}

const char *http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	default: return "Error";
	}
}

char *http_response(int status, const char *extra, const char *body,
		    size_t body_len, bool head_only, bool keep_alive,
		    size_t *out_len)
{
	/* Prometheus's text exposition format, version 0.0.4. */
	static const char ctype[] =
		"text/plain; version=0.0.4; charset=utf-8";
	char head[512];
	char *out;
	int n;

	n = snprintf(head, sizeof(head),
		     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
		     "Content-Length: %zu\r\n%s%s\r\n",
		     status, http_reason(status), ctype, body_len,
		     keep_alive ? "" : "Connection: close\r\n",
		     status == 405 ? "Allow: GET, HEAD\r\n" : "");
	if (n < 0 || (size_t)n >= sizeof(head))
		return NULL;
	*out_len = (size_t)n + (extra ? strlen(extra) : 0) +
		   (head_only ? 0 : body_len);
	out = malloc(*out_len ? *out_len : 1);
	if (!out)
		return NULL;
	/* the extra headers go before the empty line */
	memcpy(out, head, (size_t)n - 2);
	n -= 2;
	if (extra) {
		memcpy(out + n, extra, strlen(extra));
		n += (int)strlen(extra);
	}
	memcpy(out + n, "\r\n", 2);
	n += 2;
	if (!head_only && body_len)
		memcpy(out + n, body, body_len);
	return out;
}
