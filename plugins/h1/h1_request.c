/* HTTP/1.1 request encoder: runs once per template at start, never per
 * request, so clarity wins over speed here. */
#include "h1_request.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The head lives right after the struct, in the same allocation. */
struct request_block {
	struct shb_h1_request req;
	uint8_t head[];
};

struct writer {
	uint8_t *p;
	uint8_t *base;
};

static size_t at(const struct writer *w)
{
	return (size_t)(w->p - w->base);
}

static void put(struct writer *w, const char *s, size_t n)
{
	memcpy(w->p, s, n);
	w->p += n;
}

static void puts_(struct writer *w, const char *s)
{
	put(w, s, strlen(s));
}

static int has_crlf(const char *s)
{
	return strpbrk(s, "\r\n") != NULL;
}

/* The core validates templates already; this catches a core that did not,
 * since a stray CRLF here would inject headers into every request. */
static int check_fields(const struct shb_request *req, char *err,
			size_t errlen)
{
	if (!req->method || !req->path || !req->authority || !*req->method ||
	    !*req->path) {
		snprintf(err, errlen, "h1: request without method, path or authority");
		return SHB_E_INVAL;
	}
	if (has_crlf(req->method) || has_crlf(req->path) ||
	    has_crlf(req->authority)) {
		snprintf(err, errlen, "h1: CR or LF in the method, path or authority");
		return SHB_E_INVAL;
	}
	for (size_t i = 0; i < req->header_count; i++) {
		const struct shb_kv *h = &req->headers[i];
		if (!h->key || !h->value || has_crlf(h->key) ||
		    has_crlf(h->value)) {
			snprintf(err, errlen, "h1: bad header #%zu", i + 1);
			return SHB_E_INVAL;
		}
	}
	if (req->body_len && !req->body) {
		snprintf(err, errlen, "h1: body length without body");
		return SHB_E_INVAL;
	}
	return SHB_OK;
}

static int has_body(const struct shb_request *req)
{
	return (req->flags & SHB_REQUEST_HAS_BODY) != 0;
}

/* Our Content-Length is the true one; a user copy could only conflict. */
static int skip_header(const struct shb_request *req, const struct shb_kv *h)
{
	return has_body(req) && strcasecmp(h->key, "content-length") == 0;
}

static size_t head_size(const struct shb_request *req, uint32_t run_flags,
			const char *clen)
{
	size_t n = strlen(req->method) + 1 + strlen(req->path) +
		   sizeof(" HTTP/1.1\r\n") - 1 + sizeof("Host: \r\n") - 1 +
		   strlen(req->authority);

	for (size_t i = 0; i < req->header_count; i++) {
		const struct shb_kv *h = &req->headers[i];
		if (!skip_header(req, h))
			n += strlen(h->key) + 2 + strlen(h->value) + 2;
	}
	if (has_body(req))
		n += sizeof("Content-Length: \r\n") - 1 + strlen(clen);
	if (run_flags & SHB_RUN_DISABLE_KEEPALIVE)
		n += sizeof("Connection: close\r\n") - 1;
	return n + 2;
}

static struct shb_h1_span span(size_t off, size_t len)
{
	struct shb_h1_span s = {off, len};
	return s;
}

static void write_head(struct writer *w, const struct shb_request *req,
		       uint32_t run_flags, const char *clen,
		       struct shb_h1_request *r, struct shb_h1_span *hv)
{
	puts_(w, req->method);
	puts_(w, " ");
	r->path = span(at(w), strlen(req->path));
	puts_(w, req->path);
	puts_(w, " HTTP/1.1\r\nHost: ");
	puts_(w, req->authority);
	puts_(w, "\r\n");
	for (size_t i = 0; i < req->header_count; i++) {
		const struct shb_kv *h = &req->headers[i];
		hv[i] = span(0, SIZE_MAX);
		if (skip_header(req, h))
			continue;
		puts_(w, h->key);
		puts_(w, ": ");
		hv[i] = span(at(w), strlen(h->value));
		puts_(w, h->value);
		puts_(w, "\r\n");
	}
	r->clen = span(at(w), 0);
	if (has_body(req)) {
		puts_(w, "Content-Length: ");
		r->clen = span(at(w), strlen(clen));
		puts_(w, clen);
		puts_(w, "\r\n");
	}
	if (run_flags & SHB_RUN_DISABLE_KEEPALIVE)
		puts_(w, "Connection: close\r\n");
	puts_(w, "\r\n");
}

static int copy_body(struct shb_h1_request *r, const struct shb_request *req)
{
	uint8_t *body;

	if (!has_body(req) || req->body_len == 0)
		return SHB_OK;
	body = malloc(req->body_len);
	if (!body)
		return SHB_E_NOMEM;
	memcpy(body, req->body, req->body_len);
	r->body = body;
	r->body_len = req->body_len;
	return SHB_OK;
}

int shb_h1_request_encode(const struct shb_request *req, uint32_t run_flags,
			  struct shb_h1_request **out, char *err,
			  size_t errlen)
{
	char clen[24];
	struct request_block *b;
	struct writer w;
	size_t n;
	int rc = check_fields(req, err, errlen);

	if (rc != SHB_OK)
		return rc;
	snprintf(clen, sizeof(clen), "%zu", req->body_len);
	n = head_size(req, run_flags, clen);
	/* The header spans follow the head, aligned. */
	size_t hv_at = (n + 15) & ~(size_t)15;
	b = calloc(1, sizeof(*b) + hv_at +
			      req->header_count * sizeof(struct shb_h1_span));
	if (!b) {
		snprintf(err, errlen, "h1: out of memory");
		return SHB_E_NOMEM;
	}
	struct shb_h1_span *hv = (struct shb_h1_span *)(void *)(b->head + hv_at);
	w.p = w.base = b->head;
	write_head(&w, req, run_flags, clen, &b->req, hv);
	assert(w.p == b->head + n);
	b->req.head = b->head;
	b->req.head_len = n;
	b->req.hv = hv;
	b->req.header_count = req->header_count;
	b->req.has_body = has_body(req);
	b->req.is_head = strcmp(req->method, "HEAD") == 0;
	b->req.target_off = (uint32_t)strlen(req->method) + 1;
	if (copy_body(&b->req, req) != SHB_OK) {
		free(b);
		snprintf(err, errlen, "h1: out of memory");
		return SHB_E_NOMEM;
	}
	b->req.total = b->req.head_len + b->req.body_len;
	*out = &b->req;
	return SHB_OK;
}

void shb_h1_request_free(struct shb_h1_request *r)
{
	if (!r)
		return;
	free((void *)r->body);
	/* req is the first member of its request_block. */
	free(r);
}

/* ---- per-request variation (issue_var) ---------------------------------- */

/* Decimal digits of v into out (at most 20); returns their count. Per
 * request, so not snprintf. The same as plugins/common/http_dec.h, which
 * h2 and h3 use: h1's sources ship as the SDK's standalone example
 * (shb-dev), built against the installed SDK alone. */
static size_t put_dec(char *out, uint64_t v)
{
	char t[20];
	size_t k = sizeof(t);

	do {
		t[--k] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(out, t + k, sizeof(t) - k);
	return sizeof(t) - k;
}

static void plan_add(struct shb_h1_var_plan *p, struct shb_h1_span at,
		     const char *rep, size_t rep_len)
{
	struct shb_h1_repl *x = &p->repl[p->n++];

	x->off = at.off;
	x->len = at.len;
	x->rep = rep;
	x->rep_len = rep_len;
	p->size += rep_len - at.len;
}

int shb_h1_request_var_plan(const struct shb_h1_request *r,
			    const struct shb_request_var *v,
			    struct shb_h1_var_plan *p)
{
	static const char cl[] = "Content-Length: ";

	p->n = 0;
	p->size = r->head_len;
	if (v->flags & SHB_VAR_PATH)
		plan_add(p, r->path, v->path, v->path_len);
	if (v->flags & SHB_VAR_HEADERS) {
		if (v->header_count > SHB_H1_VAR_MAX_HEADERS)
			return SHB_E_INVAL;
		for (size_t i = 0; i < v->header_count; i++) {
			const struct shb_var_header *h = &v->headers[i];
			if (h->index >= r->header_count ||
			    (i && h->index <= v->headers[i - 1].index))
				return SHB_E_INVAL;
			if (r->hv[h->index].len == SIZE_MAX)
				continue; /* a user Content-Length: not sent */
			plan_add(p, r->hv[h->index], h->value, h->value_len);
		}
	}
	if (v->flags & SHB_VAR_BODY) {
		size_t k = 0;
		if (!r->has_body) { /* a whole line where none was */
			memcpy(p->clen, cl, sizeof(cl) - 1);
			k = sizeof(cl) - 1;
		}
		k += put_dec(p->clen + k, v->body_len);
		if (!r->has_body) {
			memcpy(p->clen + k, "\r\n", 2);
			k += 2;
		}
		plan_add(p, r->clen, p->clen, k);
	}
	p->size += (v->flags & SHB_VAR_BODY) ? v->body_len : r->body_len;
	return SHB_OK;
}

void shb_h1_request_var_write(const struct shb_h1_request *r,
			      const struct shb_request_var *v,
			      const struct shb_h1_var_plan *p, uint8_t *out,
			      struct shb_h1_request *view)
{
	size_t from = 0;
	uint8_t *o = out;

	for (uint32_t i = 0; i < p->n; i++) {
		const struct shb_h1_repl *x = &p->repl[i];
		memcpy(o, r->head + from, x->off - from);
		o += x->off - from;
		memcpy(o, x->rep, x->rep_len);
		o += x->rep_len;
		from = x->off + x->len;
	}
	memcpy(o, r->head + from, r->head_len - from);
	o += r->head_len - from;
	memset(view, 0, sizeof(*view));
	view->head = out;
	view->head_len = (size_t)(o - out);
	view->is_head = r->is_head;
	view->target_off = r->target_off;
	const uint8_t *body = (v->flags & SHB_VAR_BODY) ? v->body : r->body;
	view->body_len = (v->flags & SHB_VAR_BODY) ? v->body_len : r->body_len;
	if (view->body_len)
		memcpy(o, body, view->body_len);
	view->body = view->body_len ? o : NULL;
	view->total = view->head_len + view->body_len;
}
