/* The server's unidirectional streams as an HTTP/3 client reads them
 * (RFC 9114 Section 6.2, RFC 9204 Section 4.2), Sans-I/O and
 * allocation-free.
 *
 * Two structs:
 *  - struct shb_h3_peer, one per connection: the peer's SETTINGS and
 *    GOAWAY, which critical streams it opened, and the parsers of those
 *    streams (there is at most one of each, so their state lives here);
 *  - struct shb_h3_uni, one per peer-initiated unidirectional stream
 *    (32 bytes): the stream type, read from its first octets.
 *
 * Stream types:
 *  - 0x00 control: the first frame must be SETTINGS (else
 *    H3_MISSING_SETTINGS); a second SETTINGS, DATA, HEADERS, PUSH_PROMISE,
 *    MAX_PUSH_ID (servers never send it) and the reserved HTTP/2 types are
 *    H3_FRAME_UNEXPECTED; CANCEL_PUSH is H3_ID_ERROR (no push ID is valid:
 *    shb never sends MAX_PUSH_ID); GOAWAY carries a client-initiated
 *    bidirectional stream ID (else H3_ID_ERROR) that may only stay equal
 *    or decrease (else H3_ID_ERROR); unknown and reserved frame types are
 *    skipped. In SETTINGS the HTTP/2 identifiers 0x00 and 0x02..0x05 are
 *    H3_SETTINGS_ERROR, and so is a known identifier given twice (a
 *    repeated unknown identifier is not detected: that would need
 *    storage, and the RFC makes it optional). A frame whose payload ends
 *    inside a field, or has octets after the last field, is
 *    H3_FRAME_ERROR.
 *  - 0x01 push: H3_ID_ERROR (a push stream needs a push ID shb never
 *    allowed).
 *  - 0x02 QPACK encoder: read into the connection's dynamic table
 *    (qpack_encstream.h, qpack_table.h), whose limit is the capacity we
 *    announced (shb_h3_peer_init_table; 0 by default, when the only
 *    instruction a peer may send is Set Dynamic Table Capacity 0); a bad
 *    instruction is QPACK_ENCODER_STREAM_ERROR.
 *  - 0x03 QPACK decoder: shb's field sections never reference the
 *    dynamic table, so Stream Cancellation is accepted and skipped, while
 *    Section Acknowledgment and Insert Count Increment are
 *    QPACK_DECODER_STREAM_ERROR.
 *  - anything else (unknown, reserved for greasing): drained and ignored.
 *    A caller may also stop reading such a stream (STOP_SENDING with
 *    H3_STREAM_CREATION_ERROR); the reader does not require its bytes.
 * A second stream of type control, encoder or decoder is
 * H3_STREAM_CREATION_ERROR; the end (FIN) or reset of one of them is
 * H3_CLOSED_CRITICAL_STREAM. A stream that ends before its type is known
 * is ignored (RFC 9114 Section 6.2).
 *
 * Every error here is a connection error: close the connection with an
 * application CONNECTION_CLOSE carrying p->error. The reader does not see
 * stream IDs; the caller applies the rules that need them: a
 * server-initiated bidirectional stream is H3_STREAM_CREATION_ERROR, and
 * STOP_SENDING on one of shb's own critical streams is
 * H3_CLOSED_CRITICAL_STREAM. */
#ifndef SHB_H3_PEER_H
#define SHB_H3_PEER_H

#include <stddef.h>
#include <stdint.h>

#include "h3_frame.h"
#include "h3_varint.h"
#include "http_prefint.h"
#include "qpack_encstream.h"
#include "qpack_table.h"

/* p->goaway_id before any GOAWAY arrived. */
#define SHB_H3_NO_GOAWAY UINT64_MAX
/* p->max_field_section_size when the peer did not limit it. */
#define SHB_H3_UNLIMITED UINT64_MAX

/* Bits returned by shb_h3_uni_feed. */
enum shb_h3_peer_event {
	SHB_H3_EV_SETTINGS = 1u << 0, /* the SETTINGS frame was read */
	SHB_H3_EV_GOAWAY = 1u << 1,   /* a GOAWAY was read: p->goaway_id */
	SHB_H3_EV_INSERTS = 1u << 2,  /* entries were added to p->table */
};

#define SHB_H3_PEER_ERROR (-1)

/* Most settings (known, unknown or reserved) accepted in the peer's
 * SETTINGS frame; more is H3_EXCESSIVE_LOAD. A frame of endless greased
 * settings would otherwise be read for ever. Other frames on the control
 * stream are skipped by length without being kept, whatever their number
 * or size. */
#define SHB_H3_MAX_SETTINGS 64u

struct shb_h3_peer {
	/* The peer's settings: defaults until settings_received. */
	uint64_t qpack_max_table_capacity; /* its decoder's table: unused */
	uint64_t qpack_blocked_streams;
	uint64_t max_field_section_size; /* cap on our request sections */
	uint32_t settings_received;
	/* Lowest stream ID of the GOAWAY frames received, or
	 * SHB_H3_NO_GOAWAY: requests on streams >= this were not processed
	 * and may be retried elsewhere. */
	uint64_t goaway_id;
	uint64_t error;     /* H3 error code once SHB_H3_PEER_ERROR returned */
	const char *detail; /* static reason for it */
	/* private: control stream frame parser */
	struct shb_h3_fhead fh;
	struct shb_h3_varint vi;
	uint64_t frame_type, frame_left, setting_id;
	uint32_t flags;
	uint32_t settings; /* identifiers read in the SETTINGS frame */
	uint8_t in_frame, field; /* field: SETTINGS id or value next */
	/* private: QPACK decoder stream instruction parser */
	struct shb_prefint dec_int;
	uint8_t dec_in_int;
	/* The dynamic table the server's encoder stream fills, read by the
	 * request streams' decoders; owned (shb_h3_peer_fini). */
	struct shb_qpack_table table;
	struct shb_qpack_encrd enc; /* private: encoder stream reader */
};

enum shb_h3_uni_kind {
	SHB_H3_UNI_PENDING = 0, /* type not read yet */
	SHB_H3_UNI_CONTROL,
	SHB_H3_UNI_QPACK_ENCODER,
	SHB_H3_UNI_QPACK_DECODER,
	SHB_H3_UNI_IGNORED, /* unknown or reserved type: drained */
};

/* One peer unidirectional stream; zero-initialise it (or
 * shb_h3_uni_init) when the stream appears. */
struct shb_h3_uni {
	struct shb_h3_varint vi; /* private */
	uint64_t type;           /* stream type once kind != PENDING */
	uint32_t kind;           /* enum shb_h3_uni_kind */
};

/* Prepares the connection-wide state (defaults: no SETTINGS yet, no
 * GOAWAY, unlimited field sections) with no dynamic table. */
void shb_h3_peer_init(struct shb_h3_peer *p);
/* The same with a dynamic table of limit `table_limit` octets (what our
 * SETTINGS announce), allocated only once the encoder uses it. */
void shb_h3_peer_init_table(struct shb_h3_peer *p, uint32_t table_limit);
/* Frees the dynamic table and the encoder stream reader's buffers. */
void shb_h3_peer_fini(struct shb_h3_peer *p);

static inline void shb_h3_uni_init(struct shb_h3_uni *u)
{
	shb_h3_varint_reset(&u->vi);
	u->type = 0;
	u->kind = SHB_H3_UNI_PENDING;
}

/* Consumes data[len] (borrowed), the next ordered bytes of the
 * unidirectional stream `u`; `fin` non-zero when they end it. Returns an
 * OR of enum shb_h3_peer_event bits (0: nothing to report), or
 * SHB_H3_PEER_ERROR with p->error and p->detail set. After an error every
 * call returns SHB_H3_PEER_ERROR. */
int shb_h3_uni_feed(struct shb_h3_peer *p, struct shb_h3_uni *u,
		    const uint8_t *data, size_t len, int fin);

/* The peer reset stream `u` (RESET_STREAM): 0, or SHB_H3_PEER_ERROR when
 * it was a critical stream (H3_CLOSED_CRITICAL_STREAM). */
int shb_h3_uni_reset(struct shb_h3_peer *p, struct shb_h3_uni *u);

/* Non-zero when `u` is one of the peer's critical streams (control, QPACK
 * encoder or decoder), which must stay open for the connection's life. */
static inline int shb_h3_uni_is_critical(const struct shb_h3_uni *u)
{
	return u->kind == SHB_H3_UNI_CONTROL ||
	       u->kind == SHB_H3_UNI_QPACK_ENCODER ||
	       u->kind == SHB_H3_UNI_QPACK_DECODER;
}

#endif
