/* A prepared HTTP/3 request (RFC 9114 Section 4.1), encoded once at start
 * so that sending a request is one copy of immutable bytes.
 *
 * The field section (RFC 9204, capacity 0, no Huffman coding):
 *   prefix          Required Insert Count 0, Base 0
 *   :method         static indexed (entries 15-21: CONNECT DELETE GET
 *                   HEAD OPTIONS POST PUT), else a literal with static
 *                   name reference 15
 *   :scheme         static indexed (22 http, 23 https)
 *   :authority      literal with static name reference 0
 *   :path           static indexed 1 for "/", else a literal with static
 *                   name reference 1
 *   user headers    in order, names lower-cased, literals with literal
 *                   names; host and content-length dropped,
 *                   connection-specific ones refused (see
 *                   shb_http_field_dropped)
 *   content-length  when the request has a body: static indexed 4 for
 *                   "0", else a literal with static name reference 4
 *
 * The bytes are: the HEADERS frame, then (with a non-empty body) the DATA
 * frame header and the body. A request is sent as bytes[0..len) followed
 * by FIN on a new client bidirectional stream. */
#ifndef SHB_H3_REQUEST_H
#define SHB_H3_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include <shb/proto.h>

struct shb_h3_request {
	uint8_t *bytes;         /* HEADERS frame | DATA frame header | body */
	size_t len;             /* total octets in bytes */
	size_t headers_len;     /* the HEADERS frame, header included */
	size_t data_header_len; /* the DATA frame header; 0 without body */
	size_t body_len;        /* body octets at the end of bytes */
	/* The section's size as RFC 9114 Section 4.2.2 measures it (names
	 * and values plus 32 per field), to compare with the peer's
	 * SETTINGS_MAX_FIELD_SECTION_SIZE. */
	uint64_t field_section_size;
	uint32_t has_body; /* content-length was sent */
};

/* Builds the request for `req` (borrowed; nothing of it is kept). On
 * success *out is owned by the caller (free with shb_h3_request_free) and
 * SHB_OK is returned; otherwise a negative SHB_E_* (SHB_E_INVAL for a
 * request without method, scheme, authority or path, or with a
 * connection-specific header, SHB_E_NOMEM) with
 * one line in err[errlen]. */
int shb_h3_request_encode(const struct shb_request *req,
			  struct shb_h3_request **out, char *err,
			  size_t errlen);

/* Frees a request from shb_h3_request_encode; NULL is accepted. */
void shb_h3_request_free(struct shb_h3_request *r);

/* User headers: host (the authority goes in :authority) and
 * content-length (shb sends its own for a body) are left out
 * (shb_http_field_dropped); the connection-specific fields of RFC 9114
 * Section 4.2 are refused: shb_h3_request_encode fails with one line
 * naming the field (shb_http_refuse_conn_specific). Both are in
 * plugins/common/http_fields.h. */

#endif
