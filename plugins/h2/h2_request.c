/* Prepared HTTP/2 requests: see h2_request.h. */
#include "h2_request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "h2_hpack.h"
#include "http_fields.h"

static void field(struct shb_hpack_buf *b, const char *name, const char *value)
{
	shb_hpack_encode_field(b, name, strlen(name), value, strlen(value));
}

/* User header names are tokens; HTTP/2 requires them in lower case. */
static int user_field(struct shb_hpack_buf *b, const struct shb_kv *kv)
{
	size_t n = strlen(kv->key);
	char small[64], *name = n < sizeof(small) ? small : malloc(n + 1);

	if (!name)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char ch = kv->key[i];
		name[i] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
	}
	name[n] = '\0';
	shb_hpack_encode_field(b, name, n, kv->value, strlen(kv->value));
	if (name != small)
		free(name);
	return 0;
}

static int build_block(const struct shb_request *req, struct shb_hpack_buf *b)
{
	char len[24];

	field(b, ":method", req->method);
	field(b, ":scheme", req->scheme);
	field(b, ":authority", req->authority);
	field(b, ":path", req->path);
	for (size_t i = 0; i < req->header_count; i++) {
		const struct shb_kv *kv = &req->headers[i];

		if (!kv->key || !kv->value || shb_http_field_dropped(kv->key))
			continue;
		if (user_field(b, kv) < 0)
			return -1;
	}
	if (req->flags & SHB_REQUEST_HAS_BODY) {
		snprintf(len, sizeof(len), "%zu", req->body_len);
		field(b, "content-length", len);
	}
	return b->oom ? -1 : 0;
}

int shb_h2_request_encode(const struct shb_request *req,
			  struct shb_h2_request **out, char *err,
			  size_t errlen)
{
	struct shb_hpack_buf b = {0};
	struct shb_h2_request *r;

	if (!req->method || !req->scheme || !req->authority || !req->path ||
	    (req->header_count && !req->headers) ||
	    (req->body_len && !req->body)) {
		snprintf(err, errlen, "h2: incomplete request template");
		return SHB_E_INVAL;
	}
	/* A connection-specific user header makes every request malformed
	 * (RFC 9113 Section 8.2.2): refused before any traffic. */
	if (shb_http_refuse_conn_specific(req->headers, req->header_count, "h2",
					  "HTTP/2", "RFC 9113 8.2.2", err, errlen) < 0)
		return SHB_E_INVAL;
	r = calloc(1, sizeof(*r));
	if (!r || build_block(req, &b) < 0)
		goto oom;
	r->block = b.p;
	r->block_len = b.len;
	r->has_body = (req->flags & SHB_REQUEST_HAS_BODY) != 0;
	if (r->has_body && req->body_len) {
		r->body = malloc(req->body_len);
		if (!r->body)
			goto oom;
		memcpy(r->body, req->body, req->body_len);
		r->body_len = req->body_len;
	}
	*out = r;
	return SHB_OK;
oom:
	if (r && r->block)
		r->block = NULL; /* still owned by b */
	shb_hpack_buf_free(&b);
	free(r);
	snprintf(err, errlen, "h2: out of memory");
	return SHB_E_NOMEM;
}

void shb_h2_request_free(struct shb_h2_request *r)
{
	if (!r)
		return;
	free(r->block);
	free(r->body);
	free(r);
}
