/* Reassembly of one CRYPTO stream (one encryption level, RFC 9000 Section
 * 19.6) so that TLS gets every byte exactly once and in order.
 *
 * Bytes that continue the stream are passed straight from the packet to
 * the delivery function (no copy); bytes that arrive ahead of a gap wait
 * in a fixed window of `cap` bytes after the delivered offset (a ring
 * indexed by offset, with one bit per byte saying which are held).
 * Duplicates and overlaps are trimmed. Data beyond the window is refused:
 * CRYPTO_BUFFER_EXCEEDED (RFC 9000 Section 7.5 asks for at least 4096).
 *
 * The storage (cap bytes + cap / 8 bytes of bits) is the caller's; nothing
 * allocates. Also used by the test server.
 */
#ifndef SHB_QUIC_CRECV_H
#define SHB_QUIC_CRECV_H

#include <stddef.h>
#include <stdint.h>

struct shb_quic_crecv {
	uint8_t *buf;  /* cap bytes: byte at offset o lives at o % cap */
	uint8_t *bits; /* cap / 8 bytes */
	uint32_t cap;  /* a multiple of 8 */
	uint32_t held; /* bytes held ahead of `off` */
	uint64_t off;  /* next offset to deliver */
};

/* Bytes the caller must provide for a window of cap bytes. */
#define SHB_QUIC_CRECV_STORAGE(cap) ((size_t)(cap) + (size_t)(cap) / 8)

/* Delivery: data[0..len) continues the stream. Return 0, or a negative
 * value that stops delivery and is returned by feed(). */
typedef int (*shb_quic_crecv_fn)(void *ctx, const uint8_t *data, size_t len);

/* Starts empty at offset 0 with storage[SHB_QUIC_CRECV_STORAGE(cap)]
 * (cap a non-zero multiple of 8). */
void shb_quic_crecv_init(struct shb_quic_crecv *r, uint8_t *storage,
			 uint32_t cap);

enum shb_quic_crecv_rc {
	SHB_QUIC_CRECV_OK = 0,
	SHB_QUIC_CRECV_E_FULL = -1000, /* beyond the window */
};

/* A CRYPTO frame: data[0..len) at stream offset `off`. Delivers what
 * became contiguous (zero or more calls of fn, in order). Returns
 * SHB_QUIC_CRECV_OK, SHB_QUIC_CRECV_E_FULL (nothing stored or delivered),
 * or fn's negative return. */
int shb_quic_crecv_feed(struct shb_quic_crecv *r, uint64_t off,
			const uint8_t *data, size_t len, shb_quic_crecv_fn fn,
			void *ctx);

#endif
