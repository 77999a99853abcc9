/* QUIC varints: see h3_varint.h. */
#include "h3_varint.h"

size_t shb_h3_varint_len(uint64_t v)
{
	if (v < 0x40)
		return 1;
	if (v < 0x4000)
		return 2;
	if (v < 0x40000000)
		return 4;
	return 8;
}

size_t shb_h3_varint_encode(uint8_t *out, size_t cap, uint64_t v)
{
	static const uint8_t tag[9] = {0, 0x00, 0x40, 0, 0x80, 0, 0, 0, 0xc0};
	size_t n = shb_h3_varint_len(v);

	if (v > SHB_H3_VARINT_MAX || n > cap)
		return 0;
	for (size_t i = n; i-- > 0; v >>= 8)
		out[i] = (uint8_t)v;
	out[0] |= tag[n];
	return n;
}

size_t shb_h3_varint_feed(struct shb_h3_varint *v, const uint8_t *in,
			  size_t len, int *done)
{
	size_t i = 0;

	*done = 0;
	if (len == 0)
		return 0;
	if (v->len == 0) {
		v->len = (uint8_t)shb_h3_varint_len_first(in[0]);
		v->left = (uint8_t)(v->len - 1);
		v->value = in[i++] & 0x3f;
	}
	while (v->left > 0 && i < len) {
		v->value = (v->value << 8) | in[i++];
		v->left--;
	}
	*done = v->left == 0;
	return i;
}
