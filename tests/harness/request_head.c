/* Request head parsing for scripted peers: strict enough that a broken
 * client shows up as a protocol error, lenient about what does not affect
 * framing. */
#include "request_head.h"

#include <string.h>
#include <strings.h>

static int is_tchar(unsigned char ch)
{
	if ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
	    (ch >= 'A' && ch <= 'Z'))
		return 1;
	return ch != 0 && strchr("!#$%&'*+-.^_`|~", ch) != NULL;
}

/* Finds the CRLF that ends the line starting at p; returns its offset or
 * -1. A bare LF or CR inside a line is malformed. */
static long line_end(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '\r')
			return (i + 1 < len && p[i + 1] == '\n') ? (long)i : -1;
		if (p[i] == '\n')
			return -1;
	}
	return -1;
}

static int parse_request_line(const char *p, size_t n, struct shb_hreq *req)
{
	size_t i = 0;
	while (i < n && is_tchar((unsigned char)p[i]))
		i++;
	if (i == 0 || i >= sizeof(req->method) || i >= n || p[i] != ' ')
		return -1;
	memcpy(req->method, p, i);
	req->method[i] = '\0';
	size_t t = ++i;
	while (i < n && p[i] != ' ' && (unsigned char)p[i] > 0x20 &&
	       p[i] != 0x7f)
		i++;
	if (i == t || i >= n || p[i] != ' ')
		return -1;
	i++;
	if (n - i != 8 || memcmp(p + i, "HTTP/1.", 7) != 0)
		return -1;
	if (p[i + 7] != '0' && p[i + 7] != '1')
		return -1;
	req->version_minor = p[i + 7] - '0';
	return 0;
}

static void trim(const char **v, size_t *n)
{
	while (*n && (**v == ' ' || **v == '\t')) {
		(*v)++;
		(*n)--;
	}
	while (*n && ((*v)[*n - 1] == ' ' || (*v)[*n - 1] == '\t'))
		(*n)--;
}

static int parse_content_length(const char *v, size_t n, int64_t *out)
{
	uint64_t x = 0;
	if (n == 0 || n > 18)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	if (*out >= 0 && (uint64_t)*out != x)
		return -1; /* conflicting duplicates: ambiguous framing */
	*out = (int64_t)x;
	return 0;
}

/* Calls fn for each comma-separated, trimmed, non-empty element. */
static int each_token(const char *v, size_t n, int (*fn)(const char *, size_t,
	struct shb_hreq *), struct shb_hreq *req)
{
	size_t s = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && v[i] != ',')
			continue;
		const char *e = v + s;
		size_t en = i - s;
		trim(&e, &en);
		if (en && fn(e, en, req) < 0)
			return -1;
		s = i + 1;
	}
	return 0;
}

static int connection_token(const char *e, size_t n, struct shb_hreq *req)
{
	if (n == 5 && strncasecmp(e, "close", 5) == 0)
		req->wants_close = 1;
	else if (n == 10 && strncasecmp(e, "keep-alive", 10) == 0 &&
		 req->version_minor == 0)
		req->wants_close = 0;
	return 0;
}

/* Only the last coding decides whether the body is chunked; anything else
 * as the last coding leaves a request without a length, which is refused. */
static int te_token(const char *e, size_t n, struct shb_hreq *req)
{
	req->chunked = (n == 7 && strncasecmp(e, "chunked", 7) == 0) ? 1 : -1;
	return 0;
}

static int parse_field(const char *p, size_t n, struct shb_hreq *req,
		       int *saw_te)
{
	size_t i = 0;
	while (i < n && is_tchar((unsigned char)p[i]))
		i++;
	if (i == 0 || i >= n || p[i] != ':')
		return -1;
	const char *v = p + i + 1;
	size_t vn = n - i - 1;
	trim(&v, &vn);
	if (i == 14 && strncasecmp(p, "content-length", 14) == 0)
		return parse_content_length(v, vn, &req->content_length);
	if (i == 17 && strncasecmp(p, "transfer-encoding", 17) == 0) {
		*saw_te = 1;
		return each_token(v, vn, te_token, req);
	}
	if (i == 10 && strncasecmp(p, "connection", 10) == 0)
		return each_token(v, vn, connection_token, req);
	return 0;
}

int shb_hreq_parse(const char *head, size_t len, struct shb_hreq *req)
{
	memset(req, 0, sizeof(*req));
	req->content_length = -1;
	if (len < 4 || memcmp(head + len - 4, "\r\n\r\n", 4) != 0)
		return -1;
	req->head_len = len;
	long e = line_end(head, len);
	if (e < 0 || parse_request_line(head, (size_t)e, req) < 0)
		return -1;
	req->wants_close = req->version_minor == 0;
	int saw_te = 0;
	size_t pos = (size_t)e + 2;
	while (pos < len) {
		e = line_end(head + pos, len - pos);
		if (e < 0)
			return -1;
		if (e == 0)
			break; /* the empty line */
		if (parse_field(head + pos, (size_t)e, req, &saw_te) < 0)
			return -1;
		pos += (size_t)e + 2;
	}
	if (pos + 2 != len)
		return -1;
	if (saw_te) {
		if (req->chunked != 1 || req->version_minor == 0)
			return -1;
		/* Transfer-Encoding overrides Content-Length; the request is
		 * still suspect, so the connection closes after it. */
		if (req->content_length >= 0)
			req->wants_close = 1;
		req->content_length = -1;
	}
	return 0;
}
