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

struct shb_h1_request {
	const uint8_t *head; /* request line, headers, empty line */
	size_t head_len;
	const uint8_t *body; /* NULL when body_len is 0 */
	size_t body_len;
	size_t total; /* head_len + body_len */
	uint32_t is_head; /* method is HEAD: the response has no body */
	uint32_t reserved0;
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

#endif
