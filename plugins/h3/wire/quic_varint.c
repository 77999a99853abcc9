/* QUIC variable-length integers (RFC 9000 Section 16). */
#include "quic_varint.h"

size_t shb_quic_varint_len(uint64_t v)
{
	if (v <= 63)
		return 1;
	if (v <= 16383)
		return 2;
	if (v <= 1073741823)
		return 4;
	if (v <= SHB_QUIC_VARINT_MAX)
		return 8;
	return 0;
}

/* 2-bit length class for an encoded length, -1 for a length that is not
 * one of the four. */
static int length_class(size_t n)
{
	switch (n) {
	case 1:
		return 0;
	case 2:
		return 1;
	case 4:
		return 2;
	case 8:
		return 3;
	default:
		return -1;
	}
}

size_t shb_quic_varint_encode_n(uint8_t *out, size_t cap, uint64_t v,
				size_t n)
{
	int cls = length_class(n);

	if (cls < 0 || cap < n || v > SHB_QUIC_VARINT_MAX)
		return 0;
	if (n < 8 && v >> (8 * n - 2))
		return 0;
	for (size_t i = n; i-- > 0;) {
		out[i] = (uint8_t)v;
		v >>= 8;
	}
	out[0] |= (uint8_t)(cls << 6);
	return n;
}

size_t shb_quic_varint_encode(uint8_t *out, size_t cap, uint64_t v)
{
	size_t n = shb_quic_varint_len(v);

	return n ? shb_quic_varint_encode_n(out, cap, v, n) : 0;
}

size_t shb_quic_varint_decode(const uint8_t *in, size_t len, uint64_t *v)
{
	if (len == 0)
		return 0;
	size_t n = (size_t)1 << (in[0] >> 6);
	if (n > len)
		return 0;
	uint64_t x = in[0] & 0x3f;
	for (size_t i = 1; i < n; i++)
		x = x << 8 | in[i];
	*v = x;
	return n;
}
