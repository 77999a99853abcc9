/* QUIC v1 frames (RFC 9000 Sections 12.4 and 19): decoding every frame
 * type from a decrypted packet payload, the packet-type rules of Table 3,
 * and encoding.
 *
 * Decoding a payload:
 *
 *   size_t off = 0;                  // an empty payload is itself a
 *   while (off < len) {              // PROTOCOL_VIOLATION (Section 12.4)
 *           struct shb_quic_frame f;
 *           int rc = shb_quic_frame_decode(p + off, len - off, ptype, &f);
 *           if (rc != SHB_QUIC_OK)
 *                   close with shb_quic_wire_err_code(rc), f.why as reason;
 *           switch (f.type) { ... }
 *           off += f.wire_len;
 *   }
 *
 * Data (CRYPTO and STREAM data, tokens, reason phrases, connection IDs) is
 * borrowed from the payload: valid as long as the caller keeps the packet.
 * A run of PADDING bytes decodes as one frame.
 *
 * Encoding: shb_quic_frame_len() gives the size first so that a packet
 * builder can fit frames into the remaining space, shb_quic_frame_encode()
 * writes it. The same struct serves both ways, so a frame can be kept and
 * encoded again on loss. STREAM, CRYPTO and ACK have their own encoders
 * that choose the shortest form and fill the space available.
 */
#ifndef SHB_QUIC_FRAME_H
#define SHB_QUIC_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "quic_ack.h"

/* Frame types (RFC 9000 Table 3). STREAM is 0x08..0x0f on the wire (its
 * low bits are the flags below); decoded STREAM frames all have type
 * SHB_QUIC_FT_STREAM. */
enum shb_quic_ftype {
	SHB_QUIC_FT_PADDING = 0x00,
	SHB_QUIC_FT_PING = 0x01,
	SHB_QUIC_FT_ACK = 0x02,
	SHB_QUIC_FT_ACK_ECN = 0x03,
	SHB_QUIC_FT_RESET_STREAM = 0x04,
	SHB_QUIC_FT_STOP_SENDING = 0x05,
	SHB_QUIC_FT_CRYPTO = 0x06,
	SHB_QUIC_FT_NEW_TOKEN = 0x07,
	SHB_QUIC_FT_STREAM = 0x08,
	SHB_QUIC_FT_MAX_DATA = 0x10,
	SHB_QUIC_FT_MAX_STREAM_DATA = 0x11,
	SHB_QUIC_FT_MAX_STREAMS_BIDI = 0x12,
	SHB_QUIC_FT_MAX_STREAMS_UNI = 0x13,
	SHB_QUIC_FT_DATA_BLOCKED = 0x14,
	SHB_QUIC_FT_STREAM_DATA_BLOCKED = 0x15,
	SHB_QUIC_FT_STREAMS_BLOCKED_BIDI = 0x16,
	SHB_QUIC_FT_STREAMS_BLOCKED_UNI = 0x17,
	SHB_QUIC_FT_NEW_CONNECTION_ID = 0x18,
	SHB_QUIC_FT_RETIRE_CONNECTION_ID = 0x19,
	SHB_QUIC_FT_PATH_CHALLENGE = 0x1a,
	SHB_QUIC_FT_PATH_RESPONSE = 0x1b,
	SHB_QUIC_FT_CONNECTION_CLOSE = 0x1c,	 /* transport (QUIC layer) */
	SHB_QUIC_FT_CONNECTION_CLOSE_APP = 0x1d, /* application */
	SHB_QUIC_FT_HANDSHAKE_DONE = 0x1e,
	/* RFC 9221 Section 4: 0x30 without a Length field (the frame runs
	 * to the packet's end), 0x31 with one; both decode as DATAGRAM.
	 * The decoder takes them in 0-RTT and 1-RTT packets whatever was
	 * announced: the connection refuses them unless its
	 * max_datagram_frame_size allows. */
	SHB_QUIC_FT_DATAGRAM = 0x30,
	SHB_QUIC_FT_DATAGRAM_LEN = 0x31,
};

/* The low bits of a STREAM frame type. */
#define SHB_QUIC_STREAM_FIN 0x01
#define SHB_QUIC_STREAM_LEN 0x02
#define SHB_QUIC_STREAM_OFF 0x04

/* Stream offsets, stream counts and CRYPTO offsets are limited so that
 * every one fits a varint (RFC 9000 Sections 4.6, 19.6, 19.8). */
#define SHB_QUIC_MAX_STREAM_OFFSET ((UINT64_C(1) << 62) - 1)
#define SHB_QUIC_MAX_STREAMS (UINT64_C(1) << 60)

#define SHB_QUIC_STATELESS_RESET_TOKEN_LEN 16
#define SHB_QUIC_PATH_DATA_LEN 8

struct shb_quic_frame_stream {
	uint64_t stream_id;
	uint64_t offset;	/* 0 when the Offset field is absent */
	const uint8_t *data;
	size_t len;
	uint8_t fin;
	uint8_t has_offset;	/* the Offset field is (to be) present */
	uint8_t has_len;	/* the Length field is (to be) present; when
				 * not, the frame runs to the packet's end */
};

struct shb_quic_frame_crypto {
	uint64_t offset;
	const uint8_t *data;
	size_t len;
};

struct shb_quic_frame_close {
	uint64_t error_code;
	uint64_t frame_type;	/* CONNECTION_CLOSE (0x1c) only: the type of
				 * the frame that caused it, 0 if unknown */
	const uint8_t *reason;	/* UTF-8 (not checked), not terminated */
	size_t reason_len;
};

struct shb_quic_frame_new_cid {
	uint64_t seq;
	uint64_t retire_prior_to;	/* <= seq */
	const uint8_t *cid;
	uint8_t cid_len;		/* 1..20 */
	const uint8_t *reset_token;	/* 16 bytes */
};

/* One frame. Which union member is meaningful depends on `type`. */
struct shb_quic_frame {
	uint64_t type;		/* enum shb_quic_ftype */
	size_t wire_len;	/* decode: bytes this frame took */
	const char *why;	/* decode error: a static English phrase saying
				 * what was wrong, usable as a CONNECTION_CLOSE
				 * reason; NULL on success */
	union {
		/* PADDING: bytes in the run (>= 1). */
		size_t padding;
		/* ACK, ACK_ECN. */
		struct shb_quic_ack ack;
		/* RESET_STREAM. */
		struct {
			uint64_t stream_id;
			uint64_t error_code;
			uint64_t final_size;
		} reset_stream;
		/* STOP_SENDING. */
		struct {
			uint64_t stream_id;
			uint64_t error_code;
		} stop_sending;
		/* CRYPTO. */
		struct shb_quic_frame_crypto crypto;
		/* NEW_TOKEN: the token (never empty). */
		struct {
			const uint8_t *token;
			size_t len;
		} new_token;
		/* STREAM. */
		struct shb_quic_frame_stream stream;
		/* MAX_DATA, DATA_BLOCKED, MAX_STREAMS_*, STREAMS_BLOCKED_*:
		 * the byte or stream count (stream counts <= 2^60). */
		uint64_t limit;
		/* MAX_STREAM_DATA, STREAM_DATA_BLOCKED. */
		struct {
			uint64_t stream_id;
			uint64_t limit;
		} stream_limit;
		/* NEW_CONNECTION_ID. */
		struct shb_quic_frame_new_cid new_cid;
		/* RETIRE_CONNECTION_ID: the sequence number. */
		uint64_t retire_seq;
		/* PATH_CHALLENGE, PATH_RESPONSE: the 8 bytes, copied. */
		uint8_t path_data[SHB_QUIC_PATH_DATA_LEN];
		/* CONNECTION_CLOSE, CONNECTION_CLOSE_APP. */
		struct shb_quic_frame_close close;
		/* DATAGRAM: the payload, borrowed. */
		struct {
			const uint8_t *data;
			size_t len;
		} datagram;
	} u;
};

/* Decodes the frame at in[0..len) (len >= 1: the rest of a decrypted
 * payload) carried in a packet of type ptype (enum shb_quic_ptype).
 * Returns SHB_QUIC_OK with f filled in and f->wire_len bytes consumed, or
 * a connection error with f->why set:
 *   SHB_QUIC_E_PROTOCOL       the frame type may not appear in ptype
 *                             (Table 3), or the type is a known one in a
 *                             longer encoding than needed;
 *   SHB_QUIC_E_FRAME_ENCODING unknown type, the frame runs past len, or a
 *                             field is out of range: an ACK range below
 *                             packet 0, offset + length above 2^62-1, a
 *                             stream count above 2^60, an empty NEW_TOKEN,
 *                             a NEW_CONNECTION_ID length outside 1..20 or
 *                             Retire Prior To above its Sequence Number.
 * Never reads outside in[0..len). */
int shb_quic_frame_decode(const uint8_t *in, size_t len, uint32_t ptype,
			  struct shb_quic_frame *f);

/* 1 when a frame of wire type `type` may be carried in a packet of type
 * ptype (RFC 9000 Table 3: I = Initial, H = Handshake, 0 = 0-RTT,
 * 1 = 1-RTT), else 0 (also for unknown types and for Retry and VN). */
int shb_quic_frame_allowed(uint64_t type, uint32_t ptype);

/* 1 when a frame of this type makes its packet ack-eliciting: every type
 * but PADDING, ACK, ACK_ECN and the two CONNECTION_CLOSE (RFC 9002 Section
 * 2). Packets holding only non-eliciting frames other than PADDING are not
 * counted in bytes in flight. */
int shb_quic_frame_ack_eliciting(uint64_t type);

/* The encoded size of f, or 0 when f cannot be encoded: unknown type, a
 * value above its limit (varints above 2^62-1, offset + length above
 * 2^62-1, stream counts above 2^60), a STREAM without the Offset field but
 * a non-zero offset, an empty NEW_TOKEN, a NEW_CONNECTION_ID length outside
 * 1..20 or retire_prior_to above seq, a PADDING of 0 bytes, an ACK whose
 * raw ranges do not hold range_count valid pairs. An ACK is written from
 * its decoded form (raw ranges); use shb_quic_ack_frame_encode() to build
 * one from a range list. A STREAM frame is written with the fields its
 * has_offset / has_len / fin flags ask for; shb_quic_stream_frame_encode()
 * picks the shortest form instead. f->wire_len and f->why are ignored. */
size_t shb_quic_frame_len(const struct shb_quic_frame *f);

/* Writes f into out[0..cap). Returns shb_quic_frame_len(f), or 0 (nothing
 * useful written) when f is invalid or does not fit. */
size_t shb_quic_frame_encode(uint8_t *out, size_t cap,
			     const struct shb_quic_frame *f);

/* Writes n PADDING bytes (zeros). Returns n, or 0 when n > cap. */
size_t shb_quic_padding_encode(uint8_t *out, size_t cap, size_t n);

/* How a STREAM frame is shaped by shb_quic_stream_frame_encode. */
enum shb_quic_stream_mode {
	/* With a Length field: other frames may follow. */
	SHB_QUIC_STREAM_MODE_LEN = 0,
	/* No Length field: the frame ends the packet. */
	SHB_QUIC_STREAM_MODE_LAST = 1,
	/* Exactly cap bytes, ending the packet: no Length field, and PADDING
	 * written before the frame when the data does not fill cap. This is
	 * how every datagram of a GSO train gets the same size. */
	SHB_QUIC_STREAM_MODE_FILL = 2,
};

/* Size of a STREAM frame carrying all len bytes at `offset` in the
 * shortest form for `mode` (no Offset field when offset is 0; FILL counts
 * as LAST). 0 when offset + len is above 2^62-1 or id above 2^62-1. */
size_t shb_quic_stream_frame_len(uint64_t stream_id, uint64_t offset,
				 size_t len, unsigned mode);

/* Writes a STREAM frame for stream_id carrying as much of data[0..len) as
 * fits in out[0..cap), in the shortest form for `mode`. FIN is set only
 * when `fin` is non-zero and all len bytes went in. *taken receives the
 * data bytes written. Returns the bytes written (cap exactly in FILL
 * mode), or 0 (with *taken 0) when the frame header and at least one data
 * byte do not fit (or just the header when len is 0 and fin is set), or for
 * invalid input (offset + len above 2^62-1, a varint out of range, len 0
 * without fin, an unknown mode). */
size_t shb_quic_stream_frame_encode(uint8_t *out, size_t cap,
				    uint64_t stream_id, uint64_t offset,
				    const uint8_t *data, size_t len, int fin,
				    unsigned mode, size_t *taken);

/* Size of a CRYPTO frame carrying len bytes at offset; 0 when offset + len
 * is above 2^62-1. */
size_t shb_quic_crypto_frame_len(uint64_t offset, size_t len);

/* Writes a CRYPTO frame (always with its Length) carrying as much of
 * data[0..len) as fits in out[0..cap); *taken receives the data bytes
 * written. Returns the bytes written, or 0 (with *taken 0) when not even
 * one data byte fits, len is 0, or offset + len is above 2^62-1. */
size_t shb_quic_crypto_frame_encode(uint8_t *out, size_t cap, uint64_t offset,
				    const uint8_t *data, size_t len,
				    size_t *taken);

#endif
