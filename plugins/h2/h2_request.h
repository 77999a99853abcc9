/* A prepared HTTP/2 request: the HPACK header block, encoded once at
 * start and copied into a HEADERS frame per request, and the body. */
#ifndef SHB_H2_REQUEST_H
#define SHB_H2_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include <shb/proto.h>

#include "http_var.h"

/* One request header block we encode (the template's, or a varied one):
 * servers refuse far less (nginx 32 KiB by default); the cap only stops
 * an absurd template before it costs memory per connection. */
#define SHB_H2_REQ_BLOCK_MAX ((size_t)16 << 20)

struct shb_h2_request {
	uint8_t *block; /* HPACK block, block_len octets */
	size_t block_len;
	/* The HEADERS frame of a request sent as the template is: its
	 * 9-octet header (stream 0, END_HEADERS, END_STREAM without a body)
	 * and the block, to copy and give its stream id. Owned; NULL for a
	 * block above SHB_H2_MIN_FRAME_SIZE, which every peer takes in one
	 * frame. */
	uint8_t *frame;
	uint8_t *body; /* owned copy; NULL when body_len is 0 */
	size_t body_len;
	uint32_t has_body; /* send DATA / content-length */
	/* For issue_var (shb_http_var_splice, plugins/common/http_var.h):
	 * where each field sits in block and the first octets of its literal
	 * without indexing up to the value (the name's static index, or the
	 * literal name), in `pre`. Entry i < header_count is template header
	 * i (len 0: dropped), then :path, then content-length (without a
	 * body: at the block's end, len 0). */
	struct shb_http_fspan *at;
	struct shb_http_fspan *pre_at;
	uint8_t *pre;
	size_t pre_len;
	size_t header_count;
	/* The template's Priority field (RFC 9218), which PRIORITY_UPDATE
	 * repeats: an owned copy of its value (NULL without one) and its
	 * header index. */
	char *prio;
	size_t prio_len;
	size_t prio_at;
	/* The pseudo-headers in the order the block has them, as the Akamai
	 * fingerprint writes them ("m,s,a,p"). */
	char pseudo[8];
};

/* Builds the block for `req`: pseudo-headers from static indices, user
 * headers lower-cased as literals without indexing, host and
 * content-length dropped, content-length for a body. A connection-specific
 * user header (Connection, TE other than "trailers", ...) and a block
 * above SHB_H2_REQ_BLOCK_MAX are refused with SHB_E_INVAL. SHB_OK, or a negative SHB_E_* with one line in
 * err[errlen]. */
int shb_h2_request_encode(const struct shb_request *req,
			  struct shb_h2_request **out, char *err,
			  size_t errlen);

struct shb_h2_profile;
/* The same as a profile's request (h2_profile.h): its pseudo-header
 * order, and its default headers in its order, a user header of the same
 * name (any case) taking the place of the profile's; the user's other
 * headers follow in their order. */
int shb_h2_request_encode_as(const struct shb_request *req,
			     const struct shb_h2_profile *prof,
			     struct shb_h2_request **out, char *err,
			     size_t errlen);

void shb_h2_request_free(struct shb_h2_request *r);

struct shb_buf;

/* [conn] Writes r's block varied by `var` into `out` (emptied first, its
 * memory reused): the template's fields with :path, the varied header
 * values and content-length (for a varied body of var->body_len octets)
 * re-encoded, each as a literal without indexing (static name index
 * where there is one), never Huffman-coded. SHB_OK, SHB_E_INVAL for a header index the
 * template lacks or out of order or a block above `out`'s cap,
 * SHB_E_NOMEM. */
int shb_h2_request_var_block(const struct shb_h2_request *r,
			     const struct shb_request_var *var,
			     struct shb_buf *out);

/* [conn] The Priority field value a request sends: the template's, or
 * the varied one when `var` (may be NULL) varies that header. *value is
 * NULL when the request has none. */
void shb_h2_request_prio(const struct shb_h2_request *r,
			 const struct shb_request_var *var,
			 const char **value, size_t *len);

/* User headers: host and content-length are left out
 * (shb_http_field_dropped), connection-specific ones refused
 * (shb_http_refuse_conn_specific), both in plugins/common/http_fields.h. */

#endif
