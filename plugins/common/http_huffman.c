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

const uint64_t shb_huff_len_limit[SHB_HUFF_MAX_LEN + 1] = {
	0, 0, 0, 0, 0,
	0x050000000, 0x0b8000000, 0x0f8000000, 0x0fe000000, /* 5..8 */
	0x0fe000000, 0x0ff400000, 0x0ffa00000, 0x0ffc00000, /* 9..12 */
	0x0fff00000, 0x0fff80000, 0x0fffe0000, 0x0fffe0000, /* 13..16 */
	0x0fffe0000, 0x0fffe0000, 0x0fffe6000, 0x0fffee000, /* 17..20 */
	0x0ffff4800, 0x0ffffb000, 0x0ffffea00, 0x0fffff600, /* 21..24 */
	0x0fffff800, 0x0fffffbc0, 0x0fffffe20, 0x0fffffff0, /* 25..28 */
	0x0fffffff0, 0x100000000,                           /* 29..30 */
};

#define SHORTEST_CODE 5
#define EOS_CODE 0x3fffffffu

void shb_huff_count_begin(struct shb_huff_count *h)
{
	h->acc = 0;
	h->bits = 0;
	h->len = 0;
	h->check_upper = 0;
	h->upper = 0;
}

/* The symbol of the l-bit code at the top of the 32-bit window w, by the
 * same canonical walk as next_symbol. */
static unsigned code_symbol(uint64_t w, unsigned l)
{
	uint32_t first = 0, idx = 0;

	for (unsigned k = 1; k < l; k++) {
		idx += shb_huff_len_count[k];
		first = (first + shb_huff_len_count[k]) << 1;
	}
	return shb_huff_canon_syms[idx + (uint32_t)(w >> (32 - l)) - first];
}

/* 'A'..'Z' all have codes of 6 to 8 bits (the unit tests check it). */
#define UPPER_CODE_MAX 8

int shb_huff_count_feed(struct shb_huff_count *h, const uint8_t *in,
			size_t n)
{
	uint64_t acc = h->acc, len = h->len;
	unsigned bits = h->bits;

	/* Fewer than 30 bits are ever left pending (any 30 bits hold a whole
	 * code), so one more octet always fits. Only code lengths matter:
	 * the canonical limits give them in a few compares, where the
	 * decoder walks the code bit by bit. Bits not yet received read as
	 * zeros, which can only make the length found shorter; it is
	 * trusted only when that many bits are in. */
	for (size_t i = 0; i < n; i++) {
		acc |= (uint64_t)in[i] << (56 - bits);
		bits += 8;
		while (bits >= SHORTEST_CODE) {
			uint64_t w = acc >> 32;
			unsigned l = SHORTEST_CODE;

			while (w >= shb_huff_len_limit[l])
				l++;
			if (l > bits)
				break;
			if (l == SHB_HUFF_MAX_LEN && (w >> 2) == EOS_CODE)
				return SHB_HUFF_E_EOS;
			if (h->check_upper && l <= UPPER_CODE_MAX) {
				unsigned sym = code_symbol(w, l);

				if (sym >= 'A' && sym <= 'Z')
					h->upper = 1;
			}
			len++;
			acc <<= l;
			bits -= l;
		}
	}
	h->acc = acc;
	h->bits = bits;
	h->len = len;
	return SHB_HUFF_OK;
}

int shb_huff_count_end(const struct shb_huff_count *h)
{
	/* A strict prefix of EOS: at most 7 bits, all ones. */
	if (h->bits > 7 ||
	    (h->bits && (h->acc >> (64 - h->bits)) != (1u << h->bits) - 1))
		return SHB_HUFF_E_PADDING;
	return SHB_HUFF_OK;
}

int shb_huff_decoded_len(const uint8_t *in, size_t len, uint64_t *out_len)
{
	struct shb_huff_count h;
	int rc;

	*out_len = 0;
	shb_huff_count_begin(&h);
	rc = shb_huff_count_feed(&h, in, len);
	if (rc == SHB_HUFF_OK)
		rc = shb_huff_count_end(&h);
	if (rc == SHB_HUFF_OK)
		*out_len = h.len;
	return rc;
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
