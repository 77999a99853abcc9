/* Parsing a script's request bytes (script_req.h). The string is copied
 * once into the set's text, and each piece (method, path, names, values)
 * is ended with a NUL written over its delimiter, so that the requests
 * point into that copy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/script_req.h"

/* The cursor over one copy of the string. */
struct sp {
	char *p, *end;
	char *err;
	size_t errlen;
	size_t nreq; /* the request being parsed, from 1, for messages */
};

static int bad(struct sp *s, const char *what)
{
	snprintf(s->err, s->errlen, "malformed request #%zu from the script: %s",
		 s->nreq, what);
	return -1;
}

/* RFC 9110 tchar. */
static int tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The next line: *line and *n (its CR LF or LF cut off and a NUL written
 * over the line's end), or -1 when the string ends without an end of
 * line, -2 when the line holds a NUL byte (the pieces are C strings). */
static int next_line(struct sp *s, char **line, size_t *n)
{
	char *lf = memchr(s->p, '\n', (size_t)(s->end - s->p));
	if (!lf)
		return -1;
	if (memchr(s->p, '\0', (size_t)(lf - s->p)))
		return -2;
	*line = s->p;
	*n = (size_t)(lf - s->p);
	if (*n && lf[-1] == '\r')
		(*n)--;
	(*line)[*n] = '\0';
	s->p = lf + 1;
	return 0;
}

static int request_line(struct sp *s, struct shb_request *r)
{
	char *line, *sp1, *sp2;
	size_t n;

	int rc = next_line(s, &line, &n);
	if (rc == -2)
		return bad(s, "a NUL byte in the request line");
	if (rc < 0)
		return bad(s, "the request line does not end (no CR LF)");
	sp1 = memchr(line, ' ', n);
	sp2 = sp1 ? memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - line)) : NULL;
	if (!sp1 || !sp2)
		return bad(s, "the request line is not \"METHOD /path HTTP/1.1\"");
	*sp1 = *sp2 = '\0';
	if (strcmp(sp2 + 1, "HTTP/1.1") && strcmp(sp2 + 1, "HTTP/1.0"))
		return bad(s, "the version is not HTTP/1.1 (nor HTTP/1.0)");
	if (sp1 == line)
		return bad(s, "no method");
	for (char *m = line; *m; m++)
		if (!tchar((unsigned char)*m))
			return bad(s, "the method is not a token (RFC 9110)");
	if (sp1[1] != '/')
		return bad(s, "the path does not start with '/'");
	for (char *q = sp1 + 1; *q; q++)
		if ((unsigned char)*q <= ' ' || *q == 0x7f)
			return bad(s, "a control or space in the path");
	r->method = line;
	r->path = sp1 + 1;
	return 0;
}

static char *trim(char *v, size_t *n)
{
	while (*n && (*v == ' ' || *v == '\t'))
		v++, (*n)--;
	while (*n && (v[*n - 1] == ' ' || v[*n - 1] == '\t'))
		(*n)--;
	v[*n] = '\0';
	return v;
}

/* Content-Length's value, or -1. At most SHB_SCRIPT_REQUEST_MAX. */
static long long clen_value(const char *v)
{
	long long x = 0;
	if (!*v)
		return -1;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return -1;
		x = x * 10 + (*v - '0');
		if (x > (long long)SHB_SCRIPT_REQUEST_MAX)
			return -1;
	}
	return x;
}

static int kv_room(struct shb_sreq_set *set, size_t need)
{
	if (need <= set->kv_cap)
		return 0;
	size_t cap = set->kv_cap ? set->kv_cap * 2 : 16;
	while (cap < need)
		cap *= 2;
	struct shb_kv *kv = realloc(set->kv, cap * sizeof(*kv));
	if (!kv)
		return -1;
	set->kv = kv;
	set->kv_cap = cap;
	return 0;
}

/* What the fields of one request say about framing. */
struct framing {
	long long clen; /* -1: none */
};

/* One field line (not empty): a header kept at set->kv[*nkv], or Host
 * and Content-Length taken out. */
static int field(struct sp *s, struct shb_sreq_set *set, struct shb_request *r,
		 char *line, size_t n, size_t *nkv, struct framing *f)
{
	char *colon = memchr(line, ':', n);
	if (line[0] == ' ' || line[0] == '\t')
		return bad(s, "obsolete line folding in the header fields");
	if (!colon || colon == line)
		return bad(s, "a header line without a name and ':'");
	*colon = '\0';
	for (char *c = line; *c; c++)
		if (!tchar((unsigned char)*c))
			return bad(s, "a header name is not a token (RFC 9110)");
	size_t vn = n - (size_t)(colon + 1 - line);
	char *v = trim(colon + 1, &vn);
	for (size_t i = 0; i < vn; i++)
		if (((unsigned char)v[i] < ' ' && v[i] != '\t') || v[i] == 0x7f)
			return bad(s, "a control character in a header value");
	if (!strcasecmp(line, "transfer-encoding"))
		return bad(s, "Transfer-Encoding is not taken (give "
			   "Content-Length, as wrk.format does)");
	if (!strcasecmp(line, "content-length")) {
		long long x = clen_value(v);
		if (x < 0)
			return bad(s, "Content-Length is not a number of bytes");
		if (f->clen >= 0 && f->clen != x)
			return bad(s, "two different Content-Length values");
		f->clen = x;
		return 0;
	}
	if (!strcasecmp(line, "host")) {
		if (!vn || memchr(v, ' ', vn) || memchr(v, '\t', vn))
			return bad(s, "the Host value is empty or has a space");
		r->authority = v;
		return 0;
	}
	if (r->header_count >= SHB_SREQ_HEADERS_MAX)
		return bad(s, "more than 256 header fields");
	if (kv_room(set, *nkv + 1) < 0) {
		snprintf(s->err, s->errlen, "out of memory for a script's request");
		return -1;
	}
	set->kv[*nkv].key = line;
	set->kv[*nkv].value = v;
	(*nkv)++;
	r->header_count++;
	return 0;
}

/* One request from s->p; its headers from set->kv[*nkv]. */
static int one_request(struct sp *s, struct shb_sreq_set *set,
		       struct shb_request *r, size_t *nkv)
{
	struct framing f = {-1};
	char *line;
	size_t n;

	if (request_line(s, r) < 0)
		return -1;
	for (;;) {
		int rc = next_line(s, &line, &n);
		if (rc == -2)
			return bad(s, "a NUL byte in a header line");
		if (rc < 0)
			return bad(s, "the header fields do not end with an "
				   "empty line");
		if (n == 0)
			break;
		if (field(s, set, r, line, n, nkv, &f) < 0)
			return -1;
	}
	if (f.clen > 0) {
		if ((long long)(s->end - s->p) < f.clen)
			return bad(s, "the body is shorter than its Content-Length");
		r->body = (const uint8_t *)s->p;
		r->body_len = (size_t)f.clen;
		s->p += f.clen;
	}
	if (f.clen >= 0)
		r->flags |= SHB_REQUEST_HAS_BODY;
	return 0;
}

static int grow_set(struct shb_sreq_set *set, size_t len)
{
	if (set->text_cap < len + 1) {
		char *t = realloc(set->text, len + 1);
		if (!t)
			return -1;
		set->text = t;
		set->text_cap = len + 1;
	}
	if (set->count == set->reqs_cap) {
		size_t cap = set->reqs_cap ? set->reqs_cap * 2 : 4;
		struct shb_request *r = realloc(set->reqs, cap * sizeof(*r));
		if (!r)
			return -1;
		set->reqs = r;
		set->reqs_cap = cap;
	}
	return 0;
}

/* The header pointers, once the kv table stopped moving: each request's
 * headers were counted from kv[0] in order. */
static void fix_headers(struct shb_sreq_set *set)
{
	size_t at = 0;
	for (size_t i = 0; i < set->count; i++) {
		set->reqs[i].headers = set->reqs[i].header_count ? &set->kv[at] : NULL;
		at += set->reqs[i].header_count;
	}
}

int shb_sreq_parse(struct shb_sreq_set *set, const uint8_t *buf, size_t len,
		   const char *scheme, char *err, size_t errlen)
{
	struct sp s = {NULL, NULL, err, errlen, 1};
	size_t nkv = 0;

	set->count = 0;
	if (len == 0 || !buf) {
		snprintf(err, errlen, "the script's request is an empty string");
		return -1;
	}
	if (len > SHB_SCRIPT_REQUEST_MAX) {
		snprintf(err, errlen, "the script's request is %zu bytes (at most "
			 "%zu)", len, SHB_SCRIPT_REQUEST_MAX);
		return -1;
	}
	if (grow_set(set, len) < 0)
		goto oom;
	memcpy(set->text, buf, len);
	set->text[len] = '\0';
	s.p = set->text;
	s.end = set->text + len;
	while (s.p < s.end) {
		if (set->count >= SHB_SREQ_REQUESTS_MAX) {
			snprintf(err, errlen, "the script's request string holds "
				 "more than %u requests", SHB_SREQ_REQUESTS_MAX);
			return -1;
		}
		if (grow_set(set, len) < 0)
			goto oom;
		struct shb_request *r = &set->reqs[set->count];
		memset(r, 0, sizeof(*r));
		r->struct_size = sizeof(*r);
		r->scheme = scheme;
		if (one_request(&s, set, r, &nkv) < 0) {
			set->count = 0;
			return -1;
		}
		set->count++;
		s.nreq++;
	}
	fix_headers(set);
	return 0;
oom:
	set->count = 0;
	snprintf(err, errlen, "out of memory for a script's request");
	return -1;
}

void shb_sreq_free(struct shb_sreq_set *set)
{
	free(set->reqs);
	free(set->kv);
	free(set->text);
	memset(set, 0, sizeof(*set));
}
