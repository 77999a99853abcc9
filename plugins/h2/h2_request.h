/* A prepared HTTP/2 request: the HPACK header block, encoded once at
 * start and copied into a HEADERS frame per request, and the body. */
#ifndef SHB_H2_REQUEST_H
#define SHB_H2_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include <shb/proto.h>

struct shb_h2_request {
	uint8_t *block; /* HPACK block, block_len octets */
	size_t block_len;
	uint8_t *body; /* owned copy; NULL when body_len is 0 */
	size_t body_len;
	uint32_t has_body; /* send DATA / content-length */
};

/* Builds the block for `req`: pseudo-headers from static indices, user
 * headers lower-cased as literals without indexing, host and
 * content-length dropped, content-length for a body. A connection-specific
 * user header (Connection, TE other than "trailers", ...) is refused with
 * SHB_E_INVAL. SHB_OK, or a negative SHB_E_* with one line in
 * err[errlen]. */
int shb_h2_request_encode(const struct shb_request *req,
			  struct shb_h2_request **out, char *err,
			  size_t errlen);

void shb_h2_request_free(struct shb_h2_request *r);

/* User headers: host and content-length are left out
 * (shb_http_field_dropped), connection-specific ones refused
 * (shb_http_refuse_conn_specific), both in plugins/common/http_fields.h. */

#endif
