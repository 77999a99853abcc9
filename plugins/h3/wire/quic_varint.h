/* QUIC variable-length integers (RFC 9000 Section 16): the two most
 * significant bits of the first byte give the length (1, 2, 4 or 8 bytes),
 * the remaining bits hold the value big-endian, so values go up to 2^62-1.
 *
 * No function here allocates or keeps state; every one is safe on any
 * input (lengths are checked before any byte is read or written).
 */
#ifndef SHB_QUIC_VARINT_H
#define SHB_QUIC_VARINT_H

#include <stddef.h>
#include <stdint.h>

/* The largest value a varint can carry. */
#define SHB_QUIC_VARINT_MAX ((UINT64_C(1) << 62) - 1)

/* Bytes of the shortest encoding of v (1, 2, 4 or 8); 0 when v is above
 * SHB_QUIC_VARINT_MAX. */
size_t shb_quic_varint_len(uint64_t v);

/* Writes v in its shortest form into out[cap]. Returns the bytes written,
 * or 0 (nothing written) when cap is too small or v is above the maximum. */
size_t shb_quic_varint_encode(uint8_t *out, size_t cap, uint64_t v);

/* Writes v on exactly n bytes (1, 2, 4 or 8), padding with leading zero
 * bits when n is longer than needed: used for fields whose size must be
 * known before their value, like the long-header Length that is patched
 * after the payload is built. Returns n, or 0 (nothing written) when n is
 * not a varint length, cap < n, or v does not fit in n bytes. */
size_t shb_quic_varint_encode_n(uint8_t *out, size_t cap, uint64_t v,
				size_t n);

/* Decodes the varint at in[0..len). Returns its length (1..8) and sets *v;
 * returns 0 and leaves *v alone when len ends before the varint does (len
 * may be 0 and `in` NULL then). Non-shortest encodings are accepted, as
 * RFC 9000 Section 16 requires; where the shortest form is mandatory (frame
 * types) the caller compares the returned length with shb_quic_varint_len. */
size_t shb_quic_varint_decode(const uint8_t *in, size_t len, uint64_t *v);

#endif
