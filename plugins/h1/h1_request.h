/* HTTP/1.1 request bytes, encoded once per request template.
 *
 * The encoded request is immutable after shb_h1_request_encode returns and
 * is read concurrently by every worker: connections send straight from it
 * (head, then body) without copying. */
#ifndef SHB_H1_REQUEST_H
#define SHB_H1_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include <shb/proto.h>

/* Where one varying part sits in the head: bytes [off, off + len). */
struct shb_h1_span {
	size_t off, len;
};

struct shb_h1_request {
	const uint8_t *head; /* request line, headers, empty line */
	size_t head_len;
	const uint8_t *body; /* NULL when body_len is 0 */
	size_t body_len;
	size_t total; /* head_len + body_len */
	uint32_t is_head; /* method is HEAD: the response has no body */
	/* Where the request target starts in head (after "METHOD "): a
	 * connection to a forward proxy inserts "scheme://authority" there
	 * (absolute form, RFC 9112 section 3.2.2). */
	uint32_t target_off;
	uint32_t has_body; /* SHB_REQUEST_HAS_BODY: Content-Length is sent */
	/* For issue_var: the path in the request line; each template
	 * header's value (len SIZE_MAX: not sent, a user Content-Length);
	 * the Content-Length value, or without a body the offset where its
	 * line goes (len 0). Unset in a per-request view. */
	struct shb_h1_span path;
	struct shb_h1_span clen;
	const struct shb_h1_span *hv;
	size_t header_count;
};

/* Encodes `req` as
 *   METHOD SP path SP HTTP/1.1 CRLF
 *   Host: authority CRLF
 *   user headers, in order and casing as given CRLF
 *   Content-Length: N CRLF      (SHB_REQUEST_HAS_BODY; replaces any user one)
 *   Connection: close CRLF      (SHB_RUN_DISABLE_KEEPALIVE in run_flags)
 *   CRLF
 * and copies the body. Returns SHB_OK and *out (free with
 * shb_h1_request_free), or SHB_E_INVAL / SHB_E_NOMEM with one line in
 * err[errlen]. */
int shb_h1_request_encode(const struct shb_request *req, uint32_t run_flags,
			  struct shb_h1_request **out, char *err,
			  size_t errlen);

void shb_h1_request_free(struct shb_h1_request *r);

/* A varied request laid out by shb_h1_request_var_plan: head[off, off +
 * len) replaced by rep[0..rep_len), in head order (the path, header
 * values, the Content-Length). Lives on the caller's stack for one call. */
#define SHB_H1_VAR_MAX_HEADERS 64
struct shb_h1_repl {
	size_t off, len;
	const char *rep;
	size_t rep_len;
};
struct shb_h1_var_plan {
	struct shb_h1_repl repl[SHB_H1_VAR_MAX_HEADERS + 2];
	uint32_t n;
	char clen[48]; /* the Content-Length value, or its whole line */
	size_t size;   /* octets of head and body */
};

/* [conn] Lays out `r` varied by `var` (borrowed, as the plan is) into
 * *plan. SHB_OK, or SHB_E_INVAL for a header index the template lacks,
 * out of order, or more than SHB_H1_VAR_MAX_HEADERS of them. */
int shb_h1_request_var_plan(const struct shb_h1_request *r,
			    const struct shb_request_var *var,
			    struct shb_h1_var_plan *plan);

/* [conn] Writes the planned request into out (plan->size octets): the
 * head with the path, the header values and the Content-Length
 * replaced, then the body. Fills *view to send it from out. */
void shb_h1_request_var_write(const struct shb_h1_request *r,
			      const struct shb_request_var *var,
			      const struct shb_h1_var_plan *plan, uint8_t *out,
			      struct shb_h1_request *view);

#endif
