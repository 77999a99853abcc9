/* HTTP/1.x response boundary scanner (Sans-I/O).
 *
 * Finds where one response ends in a byte stream and what a load generator
 * needs from it: the status, the framing, the keep-alive verdict and the
 * number of head and body bytes. It is not a full parser: only header names
 * starting with 'c' or 't' (case-insensitive) are looked at, to recognise
 * Content-Length, Connection and Transfer-Encoding; every other header and
 * every body byte is counted and skipped unread.
 *
 * Nothing is buffered: the scanner is an incremental state machine that keeps
 * only the few facts it extracted from an incomplete line, so a caller may
 * feed bytes in pieces of any size (down to one byte) with the same result as
 * feeding them all at once. Nothing allocates; the struct may live anywhere
 * (it is plain data, about 100 bytes) and one is needed per connection.
 *
 * Use:
 *   shb_h1_scan_begin(&s, is_head_request);
 *   for each piece received:
 *     rc = shb_h1_scan_feed(&s, data, len, &used);
 *     SHB_H1_SCAN_MORE:  all `len` bytes were consumed, the response goes on;
 *     SHB_H1_SCAN_DONE:  the response ended after `used` bytes (<= len); the
 *                        rest belongs to whatever follows; call begin() again
 *                        before feeding it;
 *     SHB_H1_SCAN_ERROR: malformed; shb_h1_scan_reason() says why.
 *   at end of stream: shb_h1_scan_eof(&s) completes a close-delimited body
 *   (DONE) or reports a truncated response (ERROR).
 *
 * Rules (RFC 9112, as a client needs them):
 *  - the status line starts "HTTP/1." and a digit, the status is three
 *    digits 100..999 at offsets 9-11, followed by SP or the line end;
 *  - lines end in LF, an optional CR before it is ignored;
 *  - 1xx responses are skipped (their bytes count as head bytes); 101 is an
 *    error since the scanner cannot follow a protocol switch;
 *  - no body for HEAD requests, 204 and 304; otherwise Transfer-Encoding
 *    overrides Content-Length: chunked when its last coding is "chunked",
 *    else the body runs to EOF; then Content-Length; else body to EOF;
 *  - repeated Content-Length values (in one header as a list or in several
 *    headers) must be identical; a value above 2^62 is an error;
 *  - obs-fold (a header line starting with SP or HTAB continues the one
 *    before): an error inside Content-Length or Transfer-Encoding, more
 *    list elements inside Connection, skipped elsewhere;
 *  - chunk sizes are hex, chunk extensions are ignored, trailers are skipped
 *    up to the empty line;
 *  - keep-alive: not after a close-delimited body, not with a "close"
 *    Connection token; HTTP/1.0 only with a "keep-alive" token (and without
 *    Transfer-Encoding, whose framing 1.0 cannot vouch for);
 *  - one line (status line, header, chunk-size line, trailer) longer than
 *    SHB_H1_MAX_LINE bytes is an error; so is a head or trailer section
 *    longer than SHB_H1_MAX_SECTION bytes, and more than
 *    SHB_H1_MAX_INTERIM interim responses.
 *
 * Counting: head bytes are every byte that is not body payload (status lines,
 * headers, interim responses, chunk-size lines, chunk CRLFs, trailers), so
 * head + body is exactly the response's size on the wire.
 */
#ifndef SHB_H1_SCAN_H
#define SHB_H1_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define SHB_H1_MAX_LINE ((uint64_t)1 << 20)
/* A response's head (status line and fields) or its trailer section over
 * this many bytes is an error, so endless headers cannot keep a request
 * open for ever; so are more than SHB_H1_MAX_INTERIM 1xx responses. */
#define SHB_H1_MAX_SECTION ((uint64_t)2 << 20)
#define SHB_H1_MAX_INTERIM 16

enum shb_h1_scan_rc {
	SHB_H1_SCAN_ERROR = -1,
	SHB_H1_SCAN_MORE = 0,
	SHB_H1_SCAN_DONE = 1,
};

/* How the final response's body is delimited. */
enum shb_h1_framing {
	SHB_H1_FRAME_UNKNOWN = 0, /* head not complete yet */
	SHB_H1_FRAME_NONE = 1,    /* HEAD, 204, 304 */
	SHB_H1_FRAME_LENGTH = 2,  /* Content-Length */
	SHB_H1_FRAME_CHUNKED = 3,
	SHB_H1_FRAME_EOF = 4, /* close-delimited */
};

/* A response kept whole, for ABI 1.4's req_response (runs with
 * SHB_RUN_WANT_RESPONSE): with one attached (shb_h1_scan_keep), the
 * scanner appends the final head's bytes (status line, fields, the empty
 * line) to `head`, capped with the head itself at SHB_H1_MAX_SECTION, and
 * the body's payload (dechunked) to `body` up to body_max bytes; past
 * them `truncated` is set and the rest is counted only. Without one the
 * scanner copies nothing. Owned by the connection. */
struct shb_h1_keep {
	struct shb_buf head;
	struct shb_buf body;
	uint64_t body_max;
	uint8_t truncated;
};

/* All members are private; use the functions below. */
struct shb_h1_scan {
	uint8_t state;
	uint8_t sub;        /* position inside the current line's grammar */
	uint8_t line_first; /* first byte of the current line */
	uint8_t head_req;
	uint8_t version_minor;
	uint8_t framing;
	uint8_t keep_alive;
	uint8_t field;     /* header whose value is being read */
	uint8_t name_mask; /* header names still matching */
	uint8_t tok_mask;  /* list literals still matching the token */
	uint8_t tok_flags;
	uint8_t flags; /* facts gathered from the current head */
	uint16_t status;
	uint16_t interim;  /* 1xx responses skipped */
	uint32_t name_pos; /* bytes of the header name seen */
	uint32_t tok_pos;  /* bytes of the current list token seen */
	uint32_t digits;   /* digits of the current number */
	uint64_t num;      /* Content-Length element or chunk size being read */
	uint64_t content_length;
	uint64_t line_len;
	uint64_t section_len; /* bytes of the current head or trailer section */
	uint64_t remaining; /* body or chunk bytes still to come */
	uint64_t header_bytes;
	uint64_t body_bytes;
	const char *reason;
	struct shb_h1_keep *keep; /* NULL: nothing kept */
};

/* Resets `s` for a new response. `head_request` non-zero: the request was
 * HEAD, so the response has no body whatever its headers say. */
void shb_h1_scan_begin(struct shb_h1_scan *s, int head_request);

/* The same, keeping the response's head and body in `keep` (emptied
 * here); NULL keeps nothing, as shb_h1_scan_begin. */
void shb_h1_scan_begin_keep(struct shb_h1_scan *s, int head_request,
			    struct shb_h1_keep *keep);

/* Scans `len` bytes of the response. Returns an enum shb_h1_scan_rc; sets
 * *used to the bytes that belong to this response (== len unless DONE).
 * After DONE or ERROR further calls change nothing and return the same. */
int shb_h1_scan_feed(struct shb_h1_scan *s, const uint8_t *data, size_t len,
		     size_t *used);

/* The peer closed the stream. DONE if that ended a close-delimited body (or
 * the response was already complete), ERROR otherwise. */
int shb_h1_scan_eof(struct shb_h1_scan *s);

/* Non-zero once any byte of the response was fed. */
static inline int shb_h1_scan_started(const struct shb_h1_scan *s)
{
	return s->header_bytes != 0;
}

/* The final status, valid after DONE (0 before the status line). */
static inline uint32_t shb_h1_scan_status(const struct shb_h1_scan *s)
{
	return s->status;
}

/* 0 for HTTP/1.0, 1 for HTTP/1.1, of the last status line seen. */
static inline uint32_t shb_h1_scan_version_minor(const struct shb_h1_scan *s)
{
	return s->version_minor;
}

/* Non-zero if the connection may carry another request; valid after DONE. */
static inline int shb_h1_scan_keep_alive(const struct shb_h1_scan *s)
{
	return s->keep_alive;
}

/* enum shb_h1_framing of the final response. */
static inline uint32_t shb_h1_scan_framing(const struct shb_h1_scan *s)
{
	return s->framing;
}

/* Declared Content-Length (valid with SHB_H1_FRAME_LENGTH). */
static inline uint64_t shb_h1_scan_content_length(const struct shb_h1_scan *s)
{
	return s->content_length;
}

/* 1xx responses skipped so far. */
static inline uint32_t shb_h1_scan_interim(const struct shb_h1_scan *s)
{
	return s->interim;
}

static inline uint64_t shb_h1_scan_header_bytes(const struct shb_h1_scan *s)
{
	return s->header_bytes;
}

static inline uint64_t shb_h1_scan_body_bytes(const struct shb_h1_scan *s)
{
	return s->body_bytes;
}

/* Static text for the last error, or NULL. */
static inline const char *shb_h1_scan_reason(const struct shb_h1_scan *s)
{
	return s->reason;
}

/* Short static name of a framing, for traces. */
const char *shb_h1_framing_name(uint32_t framing);

#endif
