/* Prepared HTTP/3 requests: see h3_request.h. */
#include "h3_request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "h3_defs.h"
#include "h3_frame.h"
#include "http_fields.h"
#include "http_look.h"
#include "http_var.h"
#include "qpack_enc.h"
#include "qpack_static.h"

/* RFC 9114 Section 4.2.2: each field costs its name, its value and 32. */
#define FIELD_OVERHEAD 32

/* A field whose name is in the static table. */
static void named(struct shb_buf *b, uint64_t *size, uint64_t index,
		  const char *value)
{
	size_t len = strlen(value);

	shb_qpack_put_static_name(b, index, value, len);
	*size += shb_qpack_static_get(index)->name_len + len + FIELD_OVERHEAD;
}

/* The field list's entries (http_var.h): headers, then :path, then
 * content-length. */
#define AT_PATH(r) SHB_HTTP_AT_PATH(r)
#define AT_CLEN(r) SHB_HTTP_AT_CLEN(r)

static struct shb_http_fspan span_from(const struct shb_buf *b,
				     size_t start, size_t value_len)
{
	struct shb_http_fspan s = {start, b->len - start, value_len};
	return s;
}

/* A literal line's octets up to its value: the line with an empty value
 * less its last octet (the value's length, 0). */
static void prefix_end(struct shb_buf *pre, struct shb_http_fspan *at,
		       size_t start)
{
	if (pre->err)
		return;
	pre->len--;
	at->off = start;
	at->len = pre->len - start;
}

static const struct shb_h3_look own_look = {"msap", NULL, 0};

struct section {
	const struct shb_request *req;
	struct shb_buf *b, *pre;
	struct shb_h3_request *r;
	uint64_t *size;
};

/* The pseudo-headers in the look's order. */
static void pseudo_fields(struct section *s, const char *order)
{
	const struct shb_request *req = s->req;
	size_t at;

	for (const char *o = order; *o; o++) {
		if (*o == 'm') {
			named(s->b, s->size, SHB_QPACK_IDX_METHOD_CONNECT, req->method);
		} else if (*o == 's') {
			named(s->b, s->size, SHB_QPACK_IDX_SCHEME_HTTPS, req->scheme);
		} else if (*o == 'a') {
			named(s->b, s->size, SHB_QPACK_IDX_AUTHORITY, req->authority);
		} else if (*o == 'p') {
			at = s->b->len;
			named(s->b, s->size, SHB_QPACK_IDX_PATH_ROOT, req->path);
			s->r->at[AT_PATH(s->r)] = span_from(s->b, at, strlen(req->path));
			at = s->pre->len;
			shb_qpack_put_name_ref(s->pre, SHB_QPACK_IDX_PATH_ROOT, "", 0);
			prefix_end(s->pre, &s->r->pre_at[AT_PATH(s->r)], at);
		}
	}
}

/* One header of the look's order (http_look.h): a default (i SIZE_MAX)
 * or the template's header i, names lower case. */
static int header_field(void *user, const char *name, const char *value,
			size_t i)
{
	struct section *s = user;
	size_t nlen = strlen(name), vlen = strlen(value), at = s->b->len;

	shb_qpack_put_literal(s->b, name, nlen, value, vlen);
	*s->size += nlen + vlen + FIELD_OVERHEAD;
	if (i == SIZE_MAX)
		return 0;
	s->r->at[i] = span_from(s->b, at, vlen);
	at = s->pre->len;
	shb_qpack_put_literal(s->pre, name, nlen, "", 0);
	prefix_end(s->pre, &s->r->pre_at[i], at);
	return 0;
}

static int build_section(const struct shb_request *req,
			 const struct shb_h3_look *look, struct shb_buf *b,
			 uint64_t *size, struct shb_h3_request *r,
			 struct shb_buf *pre)
{
	struct section s = {req, b, pre, r, size};
	char clen[24];
	size_t at;

	shb_qpack_put_prefix(b);
	pseudo_fields(&s, look->pseudo);
	if (shb_http_look_walk(look->defaults, look->n, req, header_field, &s))
		return -1;
	at = b->len;
	if (req->flags & SHB_REQUEST_HAS_BODY) {
		snprintf(clen, sizeof(clen), "%zu", req->body_len);
		named(b, size, SHB_QPACK_IDX_CONTENT_LENGTH, clen);
	}
	r->at[AT_CLEN(r)] = span_from(b, at, b->len > at ? strlen(clen) : 0);
	at = pre->len;
	shb_qpack_put_name_ref(pre, SHB_QPACK_IDX_CONTENT_LENGTH, "", 0);
	prefix_end(pre, &r->pre_at[AT_CLEN(r)], at);
	return 0;
}

/* Lays out HEADERS frame | DATA header | body in one block. */
static int assemble(struct shb_h3_request *r, const struct shb_buf *b,
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
	r->section_off = hn;
	r->section_len = b->len;
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
	return shb_h3_request_encode_as(req, NULL, out, err, errlen);
}

int shb_h3_request_encode_as(const struct shb_request *req,
			     const struct shb_h3_look *look,
			     struct shb_h3_request **out, char *err,
			     size_t errlen)
{
	struct shb_buf b = SHB_BUF_INIT(64, SHB_H3_REQ_SECTION_MAX);
	struct shb_buf pre = SHB_BUF_INIT(64, SHB_H3_REQ_SECTION_MAX);
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
	r->header_count = req->header_count;
	r->at = calloc(req->header_count + 2, sizeof(*r->at));
	r->pre_at = calloc(req->header_count + 2, sizeof(*r->pre_at));
	if (r->at && r->pre_at &&
	    build_section(req, look ? look : &own_look, &b,
			  &r->field_section_size, r, &pre) < 0)
		b.err = b.err ? b.err : SHB_BUF_E_NOMEM;
	rc = b.err || pre.err || !r->at || !r->pre_at ||
			     shb_http_prio_keep(req->headers, req->header_count,
						&r->prio, &r->prio_len,
						&r->prio_at) < 0
		     ? SHB_E_NOMEM : assemble(r, &b, req);
	if (b.err == SHB_BUF_E_CAP || pre.err == SHB_BUF_E_CAP)
		rc = SHB_E_INVAL;
	shb_buf_free(&b);
	if (rc == SHB_OK)
		r->pre = shb_buf_take(&pre, &r->pre_len); /* freed with r */
	else
		shb_buf_free(&pre);
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
	free(r->at);
	free(r->pre_at);
	free(r->pre);
	free(r->prio);
	free(r);
}

void shb_h3_request_prio(const struct shb_h3_request *r,
			 const struct shb_request_var *var,
			 const char **value, size_t *len)
{
	*value = r->prio;
	*len = r->prio_len;
	if (r->prio)
		shb_http_var_header(var, r->prio_at, value, len);
}

/* ---- per-request variation (issue_var) ---------------------------------- */

int shb_h3_request_var_section(const struct shb_h3_request *r,
			       const struct shb_request_var *v,
			       struct shb_buf *b, uint64_t *size)
{
	const struct shb_http_tmpl t = {
		.block = r->bytes + r->section_off,
		.block_len = r->section_len,
		.at = r->at,
		.pre_at = r->pre_at,
		.pre = r->pre,
		.header_count = r->header_count,
	};
	uint64_t delta;
	int rc = shb_http_var_splice(&t, v, b, &delta);

	if (rc < 0)
		return rc;
	*size = r->field_section_size + delta;
	/* Without a body the template has no content-length line: a varied
	 * body adds one, its name and overhead too. */
	if ((v->flags & SHB_VAR_BODY) && r->at[AT_CLEN(r)].len == 0)
		*size += shb_qpack_static_get(SHB_QPACK_IDX_CONTENT_LENGTH)->name_len +
			 FIELD_OVERHEAD;
	return SHB_OK;
}

static const uint8_t *var_body(const struct shb_h3_request *r,
			       const struct shb_request_var *v, size_t *len)
{
	if (v->flags & SHB_VAR_BODY) {
		*len = v->body_len;
		return v->body;
	}
	*len = r->body_len;
	return r->bytes + r->headers_len + r->data_header_len;
}

size_t shb_h3_request_var_len(const struct shb_h3_request *r,
			      const struct shb_request_var *v, size_t sec_len)
{
	uint8_t h[SHB_H3_FRAME_HEADER_MAX];
	size_t body, n = shb_h3_frame_header_encode(h, sizeof(h),
						    SHB_H3_FRAME_HEADERS, sec_len);

	(void)var_body(r, v, &body);
	if (n == 0)
		return 0;
	n += sec_len;
	if (body) {
		size_t d = shb_h3_frame_header_encode(h, sizeof(h),
						      SHB_H3_FRAME_DATA, body);
		if (d == 0)
			return 0;
		n += d + body;
	}
	return n;
}

void shb_h3_request_var_write(const struct shb_h3_request *r,
			      const struct shb_request_var *v,
			      const uint8_t *sec, size_t sec_len, uint8_t *out)
{
	size_t body;
	const uint8_t *bp = var_body(r, v, &body);

	out += shb_h3_frame_header_encode(out, SHB_H3_FRAME_HEADER_MAX,
					  SHB_H3_FRAME_HEADERS, sec_len);
	memcpy(out, sec, sec_len);
	out += sec_len;
	if (!body)
		return;
	out += shb_h3_frame_header_encode(out, SHB_H3_FRAME_HEADER_MAX,
					  SHB_H3_FRAME_DATA, body);
	memcpy(out, bp, body);
}
