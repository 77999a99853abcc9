/* Prepared HTTP/2 requests: see h2_request.h. */
#include "h2_request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "h2_frame.h"
#include "h2_hpack.h"
#include "h2_profile.h"
#include "http_fields.h"
#include "http_look.h"
#include "http_var.h"

static void field(struct shb_buf *b, const char *name, const char *value)
{
	shb_hpack_encode_field(b, name, strlen(name), value, strlen(value));
}

/* The octets of a literal without indexing for `name` up to its value:
 * the encoding with an empty value (never an indexed field) less its
 * last octet, the value's length 0. */
static void name_prefix(struct shb_buf *pre, struct shb_http_fspan *at,
			const char *name)
{
	size_t start = pre->len;

	shb_hpack_encode_field(pre, name, strlen(name), "", 0);
	if (pre->err)
		return;
	pre->len--;
	at->off = start;
	at->len = pre->len - start;
}

/* User header names are tokens; HTTP/2 requires them in lower case. */
static int user_field(struct shb_buf *b, const struct shb_kv *kv,
		      struct shb_buf *pre, struct shb_http_fspan *pre_at)
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
	name_prefix(pre, pre_at, name);
	if (name != small)
		free(name);
	return 0;
}

static struct shb_http_fspan span_from(const struct shb_buf *b,
				       size_t start, size_t value_len)
{
	struct shb_http_fspan s = {start, b->len - start, value_len};
	return s;
}

/* The field list's entries (http_var.h): headers, then :path, then
 * content-length. */
#define AT_PATH(r) SHB_HTTP_AT_PATH(r)
#define AT_CLEN(r) SHB_HTTP_AT_CLEN(r)

/* The pseudo-headers in the profile's order; r->pseudo records it. */
static void pseudo_fields(const struct shb_request *req, const char *order,
			  struct shb_buf *b, struct shb_h2_request *r,
			  struct shb_buf *pre)
{
	size_t at, n = 0;

	for (const char *o = order; *o && n + 2 < sizeof(r->pseudo); o++) {
		if (n)
			r->pseudo[n++] = ',';
		r->pseudo[n++] = *o;
		if (*o == 'm')
			field(b, ":method", req->method);
		else if (*o == 's')
			field(b, ":scheme", req->scheme);
		else if (*o == 'a')
			field(b, ":authority", req->authority);
		else {
			at = b->len;
			field(b, ":path", req->path);
			r->at[AT_PATH(r)] = span_from(b, at, strlen(req->path));
			name_prefix(pre, &r->pre_at[AT_PATH(r)], ":path");
		}
	}
	r->pseudo[n] = '\0';
}

/* The user's header i (template index i: at[i] and pre_at[i]). */
static int user_at(const struct shb_request *req, size_t i, struct shb_buf *b,
		   struct shb_h2_request *r, struct shb_buf *pre)
{
	size_t at = b->len;

	if (user_field(b, &req->headers[i], pre, &r->pre_at[i]) < 0)
		return -1;
	r->at[i] = span_from(b, at, strlen(req->headers[i].value));
	return 0;
}

struct walk_ctx {
	const struct shb_request *req;
	struct shb_buf *b, *pre;
	struct shb_h2_request *r;
};

/* One field of the profile's order (http_look.h). */
static int walk_field(void *user, const char *name, const char *value,
		      size_t i)
{
	struct walk_ctx *w = user;

	if (i == SIZE_MAX) {
		field(w->b, name, value);
		return 0;
	}
	return user_at(w->req, i, w->b, w->r, w->pre);
}

static int build_block(const struct shb_request *req,
		       const struct shb_h2_profile *prof, struct shb_buf *b,
		       struct shb_h2_request *r, struct shb_buf *pre)
{
	char len[24];
	size_t at;
	struct walk_ctx w = {req, b, pre, r};

	pseudo_fields(req, prof->pseudo, b, r, pre);
	if (shb_http_look_walk(prof->headers, prof->n_headers, req, walk_field,
			       &w) != 0)
		return -1;
	at = b->len;
	if (req->flags & SHB_REQUEST_HAS_BODY) {
		snprintf(len, sizeof(len), "%zu", req->body_len);
		field(b, "content-length", len);
	}
	r->at[AT_CLEN(r)] = span_from(b, at, b->len > at ? strlen(len) : 0);
	name_prefix(pre, &r->pre_at[AT_CLEN(r)], "content-length");
	return b->err || pre->err ? -1 : 0;
}

int shb_h2_request_encode(const struct shb_request *req,
			  struct shb_h2_request **out, char *err,
			  size_t errlen)
{
	return shb_h2_request_encode_as(req, shb_h2_profile_default(), out, err,
					errlen);
}

/* r->frame for its block, when one frame takes it in any connection. */
static int make_frame(struct shb_h2_request *r)
{
	uint8_t flags = SHB_H2_FLAG_END_HEADERS;

	if (r->block_len > SHB_H2_MIN_FRAME_SIZE)
		return 0;
	r->frame = malloc(SHB_H2_FRAME_HEADER_LEN + r->block_len);
	if (!r->frame)
		return -1;
	if (!r->body_len)
		flags |= SHB_H2_FLAG_END_STREAM;
	shb_h2_frame_header_write(r->frame, (uint32_t)r->block_len,
				  SHB_H2_HEADERS, flags, 0);
	if (r->block_len)
		memcpy(r->frame + SHB_H2_FRAME_HEADER_LEN, r->block,
		       r->block_len);
	return 0;
}

int shb_h2_request_encode_as(const struct shb_request *req,
			     const struct shb_h2_profile *prof,
			     struct shb_h2_request **out, char *err,
			     size_t errlen)
{
	struct shb_buf b = SHB_BUF_INIT(256, SHB_H2_REQ_BLOCK_MAX);
	struct shb_buf pre = SHB_BUF_INIT(64, SHB_H2_REQ_BLOCK_MAX);
	struct shb_h2_request *r;
	int rc;

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
	if (!r)
		goto oom;
	r->header_count = req->header_count;
	r->at = calloc(req->header_count + 2, sizeof(*r->at));
	r->pre_at = calloc(req->header_count + 2, sizeof(*r->pre_at));
	if (!r->at || !r->pre_at || build_block(req, prof, &b, r, &pre) < 0 ||
	    shb_http_prio_keep(req->headers, req->header_count, &r->prio,
			       &r->prio_len, &r->prio_at) < 0)
		goto oom;
	r->pre = shb_buf_take(&pre, &r->pre_len);
	r->block = shb_buf_take(&b, &r->block_len);
	r->has_body = (req->flags & SHB_REQUEST_HAS_BODY) != 0;
	if (r->has_body && req->body_len) {
		r->body = malloc(req->body_len);
		if (!r->body)
			goto oom;
		memcpy(r->body, req->body, req->body_len);
		r->body_len = req->body_len;
	}
	if (make_frame(r) < 0)
		goto oom;
	*out = r;
	return SHB_OK;
oom:
	if (b.err == SHB_BUF_E_CAP || pre.err == SHB_BUF_E_CAP) {
		snprintf(err, errlen, "h2: request header block above %zu MiB",
			 SHB_H2_REQ_BLOCK_MAX >> 20);
		rc = SHB_E_INVAL;
	} else {
		snprintf(err, errlen, "h2: out of memory");
		rc = SHB_E_NOMEM;
	}
	shb_buf_free(&b);
	shb_buf_free(&pre);
	shb_h2_request_free(r);
	return rc;
}

void shb_h2_request_free(struct shb_h2_request *r)
{
	if (!r)
		return;
	free(r->block);
	free(r->frame);
	free(r->body);
	free(r->at);
	free(r->pre_at);
	free(r->pre);
	free(r->prio);
	free(r);
}

void shb_h2_request_prio(const struct shb_h2_request *r,
			 const struct shb_request_var *var,
			 const char **value, size_t *len)
{
	*value = r->prio;
	*len = r->prio_len;
	if (r->prio)
		shb_http_var_header(var, r->prio_at, value, len);
}

/* ---- per-request variation (issue_var) ---------------------------------- */

int shb_h2_request_var_block(const struct shb_h2_request *r,
			     const struct shb_request_var *v,
			     struct shb_buf *b)
{
	const struct shb_http_tmpl t = {
		.block = r->block,
		.block_len = r->block_len,
		.at = r->at,
		.pre_at = r->pre_at,
		.pre = r->pre,
		.header_count = r->header_count,
	};

	return shb_http_var_splice(&t, v, b, NULL);
}
