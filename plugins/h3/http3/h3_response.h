/* The response side of one HTTP/3 request stream (RFC 9114 Section 4.1),
 * Sans-I/O: fed the stream's ordered bytes in pieces of any size, it finds
 * the final status, counts head and body bytes and notices the end.
 *
 * Nothing is buffered and nothing allocates: HEADERS payloads go through
 * the streaming QPACK decoder (qpack_dec.h), which keeps only what it
 * needs for :status, so a 48 KB header section costs no memory and no
 * per-connection scratch is needed. The struct is plain data (about 270
 * bytes); one per request in flight.
 *
 * With the connection's dynamic table (shb_h3_resp_set_table), a section
 * whose Required Insert Count is above the inserts seen blocks the
 * stream: feed returns BLOCKED having consumed r->used octets of its
 * input; the caller keeps the rest (and the FIN) and feeds it again once
 * the table has r->qd.ric inserts. Each section decoded with a Required
 * Insert Count above 0 is counted in r->acks (the caller sends a Section
 * Acknowledgment per count and clears it), the largest such count in
 * r->ack_ric.
 *
 * Frames on a request stream, as a client sees them:
 *  - HEADERS: decoded for :status and checked (qpack_dec.h). 1xx
 *    responses are interim and skipped, up to SHB_H3_MAX_INTERIM of them
 *    (more is H3_EXCESSIVE_LOAD, a stream error; 101 is malformed in
 *    HTTP/3); the first status >= 200 is the final one. A HEADERS frame
 *    after the final one is the trailer section: accepted and skipped,
 *    but any pseudo-header in it makes the response malformed. A HEADERS
 *    frame with no :status before the final status is malformed. A
 *    HEADERS frame longer than SHB_H3_LOCAL_MAX_FIELD_SECTION_SIZE (what
 *    shb advertises) is refused without reading it (H3_EXCESSIVE_LOAD, a
 *    stream error); a shorter one that decodes to more than that is a
 *    connection error (H3_EXCESSIVE_LOAD, naming the cap).
 *  - DATA: skipped by length; the payload counts as body bytes. DATA
 *    before the final HEADERS, and DATA or HEADERS after the trailers,
 *    are H3_FRAME_UNEXPECTED.
 *  - CANCEL_PUSH, SETTINGS, GOAWAY, MAX_PUSH_ID and the reserved HTTP/2
 *    types (PRIORITY, PING, WINDOW_UPDATE, CONTINUATION) are
 *    H3_FRAME_UNEXPECTED; PUSH_PROMISE is H3_ID_ERROR (shb never sends
 *    MAX_PUSH_ID, so no push ID is valid).
 *  - every other type (unknown, reserved for greasing) is skipped by
 *    length.
 *  - the stream end (FIN): inside a frame is H3_FRAME_ERROR; before a
 *    final status is H3_REQUEST_INCOMPLETE (a stream error); otherwise
 *    the response is complete.
 *
 * Errors are either stream errors (the response is unusable, the
 * connection is fine: reset the stream / STOP_SENDING with r->error) or
 * connection errors (close the connection with r->error). QPACK failures
 * are always connection errors (RFC 9204 Section 6).
 *
 * Counting: header_bytes is every stream octet that is not DATA payload
 * (HEADERS frames including interim ones and trailers, DATA frame headers,
 * skipped frames), so header_bytes + body_bytes is the stream's size. */
#ifndef SHB_H3_RESPONSE_H
#define SHB_H3_RESPONSE_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "h3_frame.h"
#include "qpack_dec.h"

/* A response kept whole, for ABI 1.4's req_response (runs with
 * SHB_RUN_WANT_RESPONSE): with one given to shb_h3_resp_init_keep, the
 * reader copies the payload of each HEADERS frame before the final
 * status (the last is the final head's field section, at most
 * SHB_H3_LOCAL_MAX_FIELD_SECTION_SIZE octets: longer ones are refused
 * unread) into `section`, and up to body_max octets of DATA payload into
 * `body` (`truncated` once more came). Owned by the connection. */
struct shb_h3_keep {
	struct shb_buf section;
	struct shb_buf body;
	uint64_t body_max;
	uint8_t truncated;
	/* The final head's fields (qpack_fields.h), decoded as soon as its
	 * section was (the table may move on after its acknowledgment):
	 * nfields of them in kvs, pointing into strs; -1 when the section
	 * could not be decoded whole. */
	struct shb_buf strs, kvs;
	long nfields;
};

enum shb_h3_resp_rc {
	SHB_H3_RESP_MORE = 0,     /* everything consumed, no FIN yet */
	SHB_H3_RESP_DONE = 1,     /* FIN reached after a final status */
	SHB_H3_RESP_E_STREAM = -1, /* stream error r->error (r->detail) */
	SHB_H3_RESP_E_CONN = -2,   /* connection error r->error */
	SHB_H3_RESP_BLOCKED = 2,   /* a section waits for inserts: see above */
};

struct shb_h3_resp {
	uint64_t header_bytes; /* see "Counting" above */
	uint64_t body_bytes;   /* DATA payload octets */
	uint64_t error;        /* H3 error code once an error was returned */
	const char *detail;    /* static reason for the error, or NULL */
	uint32_t status;       /* final status 200..999, 0 until known */
	uint32_t interim;      /* 1xx responses skipped */
	/* private */
	uint64_t frame_left;
	uint64_t frame_type;
	struct shb_h3_fhead fh;
	struct shb_qpack_dec qd;
	uint8_t in_frame;
	uint8_t phase;
	int8_t result; /* terminal rc once DONE or an error was returned */
	struct shb_h3_keep *keep; /* NULL: nothing kept */
	const struct shb_qpack_table *table; /* NULL: static only */
	size_t used;      /* octets of the last feed consumed, when BLOCKED */
	uint64_t ack_ric; /* largest Required Insert Count acknowledged */
	uint32_t acks;    /* sections to acknowledge (caller clears) */
	uint8_t blocked;  /* a section waits for inserts */
};

/* Prepares `r` for a new response. */
void shb_h3_resp_init(struct shb_h3_resp *r);
/* The same, keeping the response in `keep` (emptied here; NULL keeps
 * nothing). */
void shb_h3_resp_init_keep(struct shb_h3_resp *r, struct shb_h3_keep *keep);

/* Decodes the sections of this response over the connection's dynamic
 * table t (borrowed for the response's life), instead of none. */
static inline void shb_h3_resp_set_table(struct shb_h3_resp *r,
					 const struct shb_qpack_table *t)
{
	r->table = t;
}

/* Consumes data[len] (borrowed for the call), the next ordered bytes of
 * the stream; `fin` non-zero when they end the stream (len may be 0).
 * Returns an enum shb_h3_resp_rc. Once DONE or an error was returned,
 * later calls return the same value and consume nothing. After BLOCKED
 * the next call must carry the octets not consumed (data + r->used on)
 * first.
 * r->status is set as soon as the final HEADERS frame was read, before
 * the FIN (a caller may use it, e.g. for time to first byte). */
int shb_h3_resp_feed(struct shb_h3_resp *r, const uint8_t *data, size_t len,
		     int fin);

#endif
