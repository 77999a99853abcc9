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
};

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

static void write_head(struct writer *w, const struct shb_request *req,
		       uint32_t run_flags, const char *clen)
{
	puts_(w, req->method);
	puts_(w, " ");
	puts_(w, req->path);
	puts_(w, " HTTP/1.1\r\nHost: ");
	puts_(w, req->authority);
	puts_(w, "\r\n");
	for (size_t i = 0; i < req->header_count; i++) {
		const struct shb_kv *h = &req->headers[i];
		if (skip_header(req, h))
			continue;
		puts_(w, h->key);
		puts_(w, ": ");
		puts_(w, h->value);
		puts_(w, "\r\n");
	}
	if (has_body(req)) {
		puts_(w, "Content-Length: ");
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
	b = calloc(1, sizeof(*b) + n);
	if (!b) {
		snprintf(err, errlen, "h1: out of memory");
		return SHB_E_NOMEM;
	}
	w.p = b->head;
	write_head(&w, req, run_flags, clen);
	assert(w.p == b->head + n);
	b->req.head = b->head;
	b->req.head_len = n;
	b->req.is_head = strcmp(req->method, "HEAD") == 0;
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
