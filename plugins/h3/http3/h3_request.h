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

#include "http_var.h"

/* One field section we encode (the template's, or a varied one): servers
 * refuse far less (SETTINGS_MAX_FIELD_SECTION_SIZE); the cap only stops an
 * absurd template before it costs memory per connection. */
#define SHB_H3_REQ_SECTION_MAX ((size_t)16 << 20)

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
	/* For issue_var (shb_http_var_splice, plugins/common/http_var.h):
	 * the field section is bytes[section_off ..
	 * section_off + section_len). at[] says where each field line sits
	 * in it and pre[pre_at[]] holds the line's octets up to its value (a
	 * literal, never an indexed line): entry i < header_count is template
	 * header i (len 0: dropped), then :path, then content-length (without
	 * a body: at the section's end, len 0). */
	size_t section_off, section_len;
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
};

/* Builds the request for `req` (borrowed; nothing of it is kept). On
 * success *out is owned by the caller (free with shb_h3_request_free) and
 * SHB_OK is returned; otherwise a negative SHB_E_* (SHB_E_INVAL for a
 * request without method, scheme, authority or path, with a
 * connection-specific header, or a section above SHB_H3_REQ_SECTION_MAX;
 * SHB_E_NOMEM) with
 * one line in err[errlen]. */
int shb_h3_request_encode(const struct shb_request *req,
			  struct shb_h3_request **out, char *err,
			  size_t errlen);

/* A client's look (a connection profile's, h3_profile.h): the
 * pseudo-headers in the order of `pseudo` ("masp": :method :authority
 * :scheme :path; each letter once), then defaults[0..n) merged with the
 * user's headers by plugins/common/http_look.h, each as a literal with a
 * literal name. */
struct shb_h3_look {
	const char *pseudo;
	const struct shb_kv *defaults;
	size_t n;
};

/* shb_h3_request_encode with a look; NULL: shb's own (the order above). */
int shb_h3_request_encode_as(const struct shb_request *req,
			     const struct shb_h3_look *look,
			     struct shb_h3_request **out, char *err,
			     size_t errlen);

/* Frees a request from shb_h3_request_encode; NULL is accepted. */
void shb_h3_request_free(struct shb_h3_request *r);

struct shb_buf;

/* [conn] Encodes the field section of r varied by `var` into `sec`
 * (emptied first, its memory reused): :path, the varied header values
 * and content-length (for a varied body) as literals (static name
 * reference where the template has one, else the literal name), the
 * other lines copied. Sets *size to the section's RFC 9114 4.2.2 size.
 * SHB_OK, SHB_E_INVAL (a header index the template lacks or out of
 * order, or a section above sec's cap), SHB_E_NOMEM. */
int shb_h3_request_var_section(const struct shb_h3_request *r,
			       const struct shb_request_var *var,
			       struct shb_buf *sec, uint64_t *size);

/* [conn] The request bytes for section sec[0..sec_len) and the body
 * (var's when it varies, else the template's): the octets needed, and
 * the writer into out[need]. 0 when a frame length cannot be encoded. */
size_t shb_h3_request_var_len(const struct shb_h3_request *r,
			      const struct shb_request_var *var, size_t sec_len);
void shb_h3_request_var_write(const struct shb_h3_request *r,
			      const struct shb_request_var *var,
			      const uint8_t *sec, size_t sec_len, uint8_t *out);

/* [conn] The Priority field value a request sends: the template's, or
 * the varied one when `var` (may be NULL) varies that header. *value is
 * NULL when the request has none. */
void shb_h3_request_prio(const struct shb_h3_request *r,
			 const struct shb_request_var *var,
			 const char **value, size_t *len);

/* User headers: host (the authority goes in :authority) and
 * content-length (shb sends its own for a body) are left out
 * (shb_http_field_dropped); the connection-specific fields of RFC 9114
 * Section 4.2 are refused: shb_h3_request_encode fails with one line
 * naming the field (shb_http_refuse_conn_specific). Both are in
 * plugins/common/http_fields.h. */

#endif
