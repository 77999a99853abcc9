/* Prepared HTTP/3 requests: see h3_request.h. */
#include "h3_request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "h3_defs.h"
#include "h3_frame.h"
#include "http_fields.h"
#include "qpack_enc.h"
#include "qpack_static.h"

/* RFC 9114 Section 4.2.2: each field costs its name, its value and 32. */
#define FIELD_OVERHEAD 32

/* A field whose name is in the static table. */
static void named(struct shb_qpack_buf *b, uint64_t *size, uint64_t index,
		  const char *value)
{
	size_t len = strlen(value);

	shb_qpack_put_static_name(b, index, value, len);
	*size += shb_qpack_static_get(index)->name_len + len + FIELD_OVERHEAD;
}

static void build_section(const struct shb_request *req,
			  struct shb_qpack_buf *b, uint64_t *size)
{
	char clen[24];

	shb_qpack_put_prefix(b);
	named(b, size, SHB_QPACK_IDX_METHOD_CONNECT, req->method);
	named(b, size, SHB_QPACK_IDX_SCHEME_HTTPS, req->scheme);
	named(b, size, SHB_QPACK_IDX_AUTHORITY, req->authority);
	named(b, size, SHB_QPACK_IDX_PATH_ROOT, req->path);
	for (size_t i = 0; i < req->header_count; i++) {
		const struct shb_kv *kv = &req->headers[i];
		size_t nlen, vlen;

		if (!kv->key || !kv->value || shb_http_field_dropped(kv->key))
			continue;
		nlen = strlen(kv->key);
		vlen = strlen(kv->value);
		shb_qpack_put_literal(b, kv->key, nlen, kv->value, vlen);
		*size += nlen + vlen + FIELD_OVERHEAD;
	}
	if (req->flags & SHB_REQUEST_HAS_BODY) {
		snprintf(clen, sizeof(clen), "%zu", req->body_len);
		named(b, size, SHB_QPACK_IDX_CONTENT_LENGTH, clen);
	}
}

/* Lays out HEADERS frame | DATA header | body in one block. */
static int assemble(struct shb_h3_request *r, const struct shb_qpack_buf *b,
		    const struct shb_request *req)
{
	uint8_t hh[SHB_H3_FRAME_HEADER_MAX], dh[SHB_H3_FRAME_HEADER_MAX];
	size_t hn = shb_h3_frame_header_encode(hh, sizeof(hh),
					       SHB_H3_FRAME_HEADERS, b->len);
	size_t body = (req->flags & SHB_REQUEST_HAS_BODY) ? req->body_len : 0;
	size_t dn = 0;

	if (body > 0)
		dn = shb_h3_frame_header_encode(dh, sizeof(dh),
						SHB_H3_FRAME_DATA, body);
	if (hn == 0 || (body > 0 && dn == 0))
		return SHB_E_INVAL;
	r->headers_len = hn + b->len;
	r->data_header_len = dn;
	r->body_len = body;
	r->len = r->headers_len + dn + body;
	r->bytes = malloc(r->len);
	if (!r->bytes)
		return SHB_E_NOMEM;
	memcpy(r->bytes, hh, hn);
	memcpy(r->bytes + hn, b->p, b->len);
	memcpy(r->bytes + r->headers_len, dh, dn);
	if (body > 0)
		memcpy(r->bytes + r->headers_len + dn, req->body, body);
	return SHB_OK;
}

int shb_h3_request_encode(const struct shb_request *req,
			  struct shb_h3_request **out, char *err,
			  size_t errlen)
{
	struct shb_qpack_buf b = {0};
	struct shb_h3_request *r;
	int rc;

	*out = NULL;
	if (!req->method || !req->scheme || !req->authority || !req->path) {
		snprintf(err, errlen, "h3: request without method, scheme, "
				      "authority or path");
		return SHB_E_INVAL;
	}
	if ((req->flags & SHB_REQUEST_HAS_BODY) && req->body_len > 0 &&
	    !req->body) {
		snprintf(err, errlen, "h3: request body missing");
		return SHB_E_INVAL;
	}
	/* A connection-specific user header makes every request malformed
	 * (RFC 9114 Section 4.2): refused before any traffic. */
	if (shb_http_refuse_conn_specific(req->headers, req->header_count, "h3",
					  "HTTP/3", "RFC 9114 4.2", err, errlen) < 0)
		return SHB_E_INVAL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "h3: out of memory");
		return SHB_E_NOMEM;
	}
	build_section(req, &b, &r->field_section_size);
	rc = b.oom ? SHB_E_NOMEM : assemble(r, &b, req);
	shb_qpack_buf_free(&b);
	if (rc != SHB_OK) {
		snprintf(err, errlen, rc == SHB_E_NOMEM
				      ? "h3: out of memory"
				      : "h3: request too large to encode");
		shb_h3_request_free(r);
		return rc;
	}
	r->has_body = (req->flags & SHB_REQUEST_HAS_BODY) != 0;
	*out = r;
	return SHB_OK;
}

void shb_h3_request_free(struct shb_h3_request *r)
{
	if (!r)
		return;
	free(r->bytes);
	free(r);
}
