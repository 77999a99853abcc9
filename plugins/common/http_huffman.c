/* HTTP Huffman decoder and encoder: see http_huffman.h. */
#include "http_huffman.h"

/* Decodes one symbol from the top `bits` bits of `acc`. Returns the
 * symbol and sets *used, or -1 when the bits end before a code does. The
 * canonical walk (first code of each length = (first + count) << 1 of the
 * previous one) needs no decoding tree. */
static int next_symbol(uint64_t acc, unsigned bits, unsigned *used)
{
	uint32_t code = 0, first = 0, idx = 0;

	for (unsigned len = 1; len <= SHB_HUFF_MAX_LEN && len <= bits; len++) {
		uint32_t count = shb_huff_len_count[len];

		code |= (uint32_t)(acc >> (64 - len)) & 1u;
		if (code - first < count) {
			*used = len;
			return shb_huff_canon_syms[idx + code - first];
		}
		idx += count;
		first = (first + count) << 1;
		code <<= 1;
	}
	return -1;
}

int shb_huff_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap,
		    size_t *out_len)
{
	uint64_t acc = 0; /* pending bits, left-aligned */
	unsigned bits = 0;
	size_t i = 0, o = 0;

	*out_len = 0;
	for (;;) {
		unsigned used = 0;
		int sym;

		while (bits <= 56 && i < len) {
			acc |= (uint64_t)in[i++] << (56 - bits);
			bits += 8;
		}
		if (bits == 0)
			break;
		sym = next_symbol(acc, bits, &used);
		if (sym < 0) {
			/* What is left must be a strict prefix of EOS: at
			 * most 7 bits, all ones. */
			if (bits > 7 || (acc >> (64 - bits)) != (1u << bits) - 1)
				return SHB_HUFF_E_PADDING;
			break;
		}
		if (sym == SHB_HUFF_EOS)
			return SHB_HUFF_E_EOS;
		if (o == cap)
			return SHB_HUFF_E_SPACE;
		out[o++] = (uint8_t)sym;
		acc <<= used;
		bits -= used;
	}
	*out_len = o;
	return SHB_HUFF_OK;
}

size_t shb_huff_encoded_len(const uint8_t *in, size_t len)
{
	uint64_t bits = 0;

	for (size_t i = 0; i < len; i++)
		bits += shb_huff_codes[in[i]].len;
	return (size_t)((bits + 7) / 8);
}

size_t shb_huff_encode(const uint8_t *in, size_t len, uint8_t *out,
		       size_t cap)
{
	uint64_t acc = 0; /* pending bits, right-aligned */
	unsigned bits = 0;
	size_t o = 0;

	if (shb_huff_encoded_len(in, len) > cap)
		return 0;
	for (size_t i = 0; i < len; i++) {
		const struct shb_huff_code *c = &shb_huff_codes[in[i]];

		acc = (acc << c->len) | c->code;
		bits += c->len;
		while (bits >= 8) {
			bits -= 8;
			out[o++] = (uint8_t)(acc >> bits);
		}
	}
	if (bits > 0) /* pad with the leading (one) bits of EOS */
		out[o++] = (uint8_t)((acc << (8 - bits)) | (0xffu >> bits));
	return o;
}
