/* WebSocket framing (RFC 6455 5.2), Sans-I/O: a client-side encoder
 * (masked frames) and an incremental decoder for the server's frames that
 * accepts its input split anywhere. */
#ifndef WS_FRAME_H
#define WS_FRAME_H

#include <stddef.h>
#include <stdint.h>

enum ws_opcode {
	WS_OP_CONT = 0x0,
	WS_OP_TEXT = 0x1,
	WS_OP_BINARY = 0x2,
	WS_OP_CLOSE = 0x8,
	WS_OP_PING = 0x9,
	WS_OP_PONG = 0xa,
};

#define WS_CONTROL_MAX 125 /* payload of a control frame (5.5) */
#define WS_HEADER_MAX 14   /* 2 + 8 (64-bit length) + 4 (mask key) */

/* Decoder errors (negative), each a violation of RFC 6455 by the peer. */
enum ws_dec_err {
	WS_DEC_RSV = -1,        /* RSV1-3 set without an extension */
	WS_DEC_OPCODE = -2,     /* reserved opcode */
	WS_DEC_MASKED = -3,     /* a server frame is never masked (5.1) */
	WS_DEC_CONTROL = -4,    /* control frame fragmented or > 125 bytes */
	WS_DEC_LENGTH = -5,     /* 64-bit length with the top bit set, or
				 * a length not in its shortest form */
};

/* What the decoder reports; each returns 0 to go on or a negative code of
 * the caller's, which ws_dec_feed returns as is. */
struct ws_dec_cb {
	int (*begin)(void *ctx, uint32_t opcode, uint32_t fin, uint64_t len,
		     uint32_t header_len);
	int (*data)(void *ctx, const uint8_t *p, size_t n);
	int (*end)(void *ctx);
};

struct ws_dec {
	uint8_t hdr[WS_HEADER_MAX];
	uint32_t have;      /* header bytes collected */
	uint32_t need;      /* header bytes this frame has (2 until known) */
	uint32_t in_payload;
	uint64_t left;      /* payload bytes still to come */
};

/* Feeds p[len]: every complete header is checked and reported (begin),
 * payload is passed on as it comes (data, possibly in several pieces),
 * and each frame's end is reported (end, also for an empty payload).
 * Returns 0, a negative enum ws_dec_err, or a callback's code. After an
 * error the decoder must not be fed again. */
int ws_dec_feed(struct ws_dec *d, const uint8_t *p, size_t len,
		const struct ws_dec_cb *cb, void *ctx);

/* Writes a client frame header (FIN as given, MASK set with `key`) into
 * out and returns its length (6, 8 or 14). */
size_t ws_frame_header(uint8_t out[WS_HEADER_MAX], uint32_t opcode,
		       uint32_t fin, uint64_t len, const uint8_t key[4]);

/* XORs p[n] with `key`, starting at payload offset `off`. */
void ws_mask(uint8_t *p, size_t n, const uint8_t key[4], uint64_t off);

/* Name of a decoder error, for error details. */
const char *ws_dec_strerror(int err);

#endif
