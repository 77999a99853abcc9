/* HTTP Huffman decoder and encoder: see http_huffman.h. */
#include "http_huffman.h"

#include <pthread.h>

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

/* The length of the code at the top of the 32-bit window w: the smallest
 * L with w < shb_huff_len_limit[L]. */
static unsigned code_len(uint64_t w)
{
	unsigned l = SHORTEST_CODE;

	while (w >= shb_huff_len_limit[l])
		l++;
	return l;
}

/* The fast path of the counter: for every FAST_BITS-bit window, the whole
 * codes it starts with (at most two: the shortest code has 5 bits), in
 * one lookup instead of a search per code. An entry holds the bits those
 * codes use (0: the first code is longer than the window), how many they
 * are, and whether one of them is an uppercase letter. Built once from
 * the canonical limits; the unit tests compare what it counts with the
 * decoder. */
#define FAST_BITS 12
#define FAST_USED(e) ((e) & 15u)
#define FAST_COUNT(e) (((e) >> 4) & 3u)
#define FAST_UPPER 0x40u

static uint8_t fast_table[1u << FAST_BITS];
static pthread_once_t fast_once = PTHREAD_ONCE_INIT;

static void fast_build(void)
{
	for (uint32_t x = 0; x < (1u << FAST_BITS); x++) {
		unsigned pos = 0, count = 0, upper = 0;

		for (;;) {
			/* The window's bits after pos, left-aligned in 32;
			 * the zeros past its end can only shorten the
			 * length found, which is trusted when it fits. */
			uint64_t w = ((uint64_t)x << (32 - FAST_BITS + pos)) &
				     0xffffffffu;
			unsigned l = code_len(w);
			unsigned sym;

			if (pos + l > FAST_BITS)
				break;
			sym = code_symbol(w, l);
			if (sym >= 'A' && sym <= 'Z')
				upper = FAST_UPPER;
			count++;
			pos += l;
		}
		fast_table[x] = (uint8_t)(pos | count << 4 | upper);
	}
}

/* Counts the codes that the bits in (*acc, *bits) determine: those whose
 * length is known from the bits present. Returns SHB_HUFF_OK, or
 * SHB_HUFF_E_EOS when one of them is EOS. */
static int count_pending(struct shb_huff_count *h, uint64_t *acc,
			 unsigned *bits)
{
	while (*bits >= SHORTEST_CODE) {
		uint64_t w = *acc >> 32;
		unsigned l = code_len(w);

		if (l > *bits)
			break;
		if (l == SHB_HUFF_MAX_LEN && (w >> 2) == EOS_CODE)
			return SHB_HUFF_E_EOS;
		if (h->check_upper && l <= UPPER_CODE_MAX) {
			unsigned sym = code_symbol(w, l);

			if (sym >= 'A' && sym <= 'Z')
				h->upper = 1;
		}
		h->len++;
		*acc <<= l;
		*bits -= l;
	}
	return SHB_HUFF_OK;
}

/* Loads whole octets of in[n] below the *bits pending in *acc, as many
 * as fit in 64 bits, and returns how many. Eight at a time when in[]
 * has them: one load instead of a loop per octet. */
static size_t refill(uint64_t *acc, unsigned *bits, const uint8_t *in,
		     size_t n)
{
	size_t k = (64 - *bits) >> 3;

	if (k == 0 || n == 0)
		return 0;
	if (n >= 8) {
		uint64_t x = (uint64_t)in[0] << 56 | (uint64_t)in[1] << 48 |
			     (uint64_t)in[2] << 40 | (uint64_t)in[3] << 32 |
			     (uint64_t)in[4] << 24 | (uint64_t)in[5] << 16 |
			     (uint64_t)in[6] << 8 | (uint64_t)in[7];

		/* The top k octets of x; k == 8 only when nothing is
		 * pending. */
		if (k < 8)
			x &= ~(UINT64_MAX >> (8 * k));
		*acc |= x >> *bits;
		*bits += (unsigned)(8 * k);
		return k;
	}
	if (k > n)
		k = n;
	for (size_t j = 0; j < k; j++) {
		*acc |= (uint64_t)in[j] << (56 - *bits);
		*bits += 8;
	}
	return k;
}

int shb_huff_count_feed(struct shb_huff_count *h, const uint8_t *in,
			size_t n)
{
	uint64_t acc = h->acc, len = h->len;
	unsigned bits = h->bits, upper = 0;
	size_t i = 0;
	int rc;

	pthread_once(&fast_once, fast_build);
	/* Only code lengths matter. Up to 64 bits are loaded at a time;
	 * windows of FAST_BITS take the short codes, which are nearly all
	 * of them, and a longer code is measured from the canonical limits
	 * once its length is known from the bits present. Bits not yet
	 * received read as zeros, which can only make a length found
	 * shorter; it is trusted only when that many bits are in. */
	for (;;) {
		i += refill(&acc, &bits, in + i, n - i);
		while (bits >= FAST_BITS) {
			unsigned e = fast_table[acc >> (64 - FAST_BITS)];

			if (FAST_USED(e) == 0)
				break;
			len += FAST_COUNT(e);
			upper |= e;
			acc <<= FAST_USED(e);
			bits -= FAST_USED(e);
		}
		if (bits >= FAST_BITS) { /* a code longer than the window */
			uint64_t w = acc >> 32;
			unsigned l = code_len(w);

			if (l <= bits) {
				if (l == SHB_HUFF_MAX_LEN && (w >> 2) == EOS_CODE)
					return SHB_HUFF_E_EOS;
				len++;
				acc <<= l;
				bits -= l;
				continue;
			}
		}
		if (i == n)
			break;
	}
	/* No more input: what is left is short, counted code by code. */
	if (h->check_upper && (upper & FAST_UPPER))
		h->upper = 1;
	h->len = len;
	rc = count_pending(h, &acc, &bits);
	h->acc = acc;
	h->bits = bits;
	return rc;
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
