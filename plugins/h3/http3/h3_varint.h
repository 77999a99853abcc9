/* QUIC variable-length integers (RFC 9000 Section 16) as HTTP/3 frames
 * and stream headers use them: a 2-bit length prefix (1, 2, 4 or 8 octets)
 * and a 62-bit value. Includes a decoder that takes its input one octet at
 * a time, for stream bytes that arrive split anywhere. */
#ifndef SHB_H3_VARINT_H
#define SHB_H3_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define SHB_H3_VARINT_MAX ((UINT64_C(1) << 62) - 1)

/* Octets the encoding of `v` (<= SHB_H3_VARINT_MAX) takes: 1, 2, 4 or 8. */
size_t shb_h3_varint_len(uint64_t v);

/* Writes the shortest encoding of `v` into out[cap]. Returns the octets
 * written, or 0 when cap is too small or v > SHB_H3_VARINT_MAX. */
size_t shb_h3_varint_encode(uint8_t *out, size_t cap, uint64_t v);

/* A varint being read one octet at a time. Zero-initialised (or after
 * shb_h3_varint_reset) it waits for a first octet. */
struct shb_h3_varint {
	uint64_t value;
	uint8_t left; /* octets still to read; 0 = waiting for the first */
	uint8_t len;  /* total length once the first octet was seen */
};

static inline void shb_h3_varint_reset(struct shb_h3_varint *v)
{
	v->value = 0;
	v->left = 0;
	v->len = 0;
}

/* Octets the varint starting with `first` takes. */
static inline size_t shb_h3_varint_len_first(uint8_t first)
{
	return (size_t)1 << (first >> 6);
}

/* Takes octets from in[len] until the varint is complete. Returns the
 * octets used (<= len); *done is set to 1 when v->value is complete (the
 * state must then be reset before the next varint), else 0 (all of in[]
 * was used). */
size_t shb_h3_varint_feed(struct shb_h3_varint *v, const uint8_t *in,
			  size_t len, int *done);

/* True when a varint is partly read. */
static inline int shb_h3_varint_started(const struct shb_h3_varint *v)
{
	return v->len != 0;
}

#endif
