/* A request's per-issue variation (templates, struct shb_request_var) as
 * HTTP/2 and HTTP/3 apply it to a header block (HPACK) or field section
 * (QPACK) prepared once at start.
 *
 * Neither encoder ever refers to another field (no dynamic table on our
 * side), so a varied block is the template's octets with some fields
 * swapped: each swapped field becomes "the octets of its literal up to
 * the value" (kept at prepare time in `pre`), the value's length as a
 * 7-bit prefixed integer without Huffman coding (the same in HPACK and
 * QPACK), and the value. Both protocols also need a header's varied value
 * apart from the block (the Priority field, which drives PRIORITY_UPDATE
 * frames). */
#ifndef SHB_HTTP_VAR_H
#define SHB_HTTP_VAR_H

#include <stddef.h>
#include <stdint.h>

#include <shb/shb.h>

struct shb_buf;

/* One field in a prepared block: octets [off, off + len), its value
 * value_len octets long. */
struct shb_http_fspan {
	size_t off, len, value_len;
};

/* A prepared block as the splice reads it (all borrowed). at[] and
 * pre_at[] have header_count + 2 entries: entry i < header_count is
 * template header i (len 0: dropped, never varied), then :path, then
 * content-length (without a body: at the block's end, len 0, so a varied
 * body adds the line there). pre[pre_at[k]] holds field k's literal up to
 * its value. */
struct shb_http_tmpl {
	const uint8_t *block;
	size_t block_len;
	const struct shb_http_fspan *at;
	const struct shb_http_fspan *pre_at;
	const uint8_t *pre;
	size_t header_count;
};

#define SHB_HTTP_AT_PATH(t) ((t)->header_count)
#define SHB_HTTP_AT_CLEN(t) ((t)->header_count + 1)

/* [conn] Writes t's block varied by `var` into `out` (cleared first, its
 * memory reused): :path, the varied header values and content-length
 * (for a varied body of var->body_len octets) re-encoded as above, the
 * other fields copied. *value_delta (may be NULL) gets the varied values'
 * total length less the template's for the same fields, modulo 2^64 (add
 * it to a size to get the varied one). SHB_OK; SHB_E_INVAL for a header
 * index the template lacks or out of order, or a block above out's cap;
 * SHB_E_NOMEM. */
int shb_http_var_splice(const struct shb_http_tmpl *t,
			const struct shb_request_var *var, struct shb_buf *out,
			uint64_t *value_delta);

/* [main] Keeps an owned copy of the first Priority header's value among
 * headers[0..count) (entries with a NULL key or value are skipped), its
 * length and its index: 0 (*value NULL without one), or -1 out of
 * memory. */
int shb_http_prio_keep(const struct shb_kv *headers, size_t count,
		       char **value, size_t *len, size_t *index);

/* [conn] The value of header number `index` (the order of struct
 * shb_request's headers) for this issue: *value and *len are left as
 * given (the prepared value) unless `var` (may be NULL) carries headers
 * and one of them has that index. The value is borrowed from `var` for
 * the issue_var call. */
void shb_http_var_header(const struct shb_request_var *var, size_t index,
			 const char **value, size_t *len);

#endif
