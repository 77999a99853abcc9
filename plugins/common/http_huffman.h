/* The HTTP Huffman code of RFC 7541 Appendix B (HPACK; QPACK reuses it):
 * the code table, a decoder with the padding and EOS rules of RFC 7541
 * Section 5.2, and an encoder. */
#ifndef SHB_HTTP_HUFFMAN_H
#define SHB_HTTP_HUFFMAN_H

#include <stddef.h>
#include <stdint.h>

#define SHB_HUFF_EOS 256
#define SHB_HUFF_SYMBOLS 257
#define SHB_HUFF_MAX_LEN 30

/* One symbol's code: the `len` low bits of `code`, first-sent bit most
 * significant. */
struct shb_huff_code {
	uint32_t code;
	uint32_t len;
};

/* Indexed by symbol (0..255 octets, 256 EOS). */
extern const struct shb_huff_code shb_huff_codes[SHB_HUFF_SYMBOLS];

/* The code is canonical: codes of one length are consecutive and sorted
 * by symbol, so the decoder needs only the symbols in (length, symbol)
 * order and the number of codes of each length. */
extern const uint16_t shb_huff_canon_syms[SHB_HUFF_SYMBOLS];
extern const uint16_t shb_huff_len_count[SHB_HUFF_MAX_LEN + 1];

/* For each length L, the first 32-bit left-aligned window that starts
 * with a code longer than L: a window's next code has the smallest L with
 * window < shb_huff_len_limit[L]. Derived from shb_huff_len_count (the
 * unit tests check it); lets the length counter skip symbol lookup. */
extern const uint64_t shb_huff_len_limit[SHB_HUFF_MAX_LEN + 1];

enum shb_huff_result {
	SHB_HUFF_OK = 0,
	SHB_HUFF_E_EOS = -1,     /* EOS decoded inside the string */
	SHB_HUFF_E_PADDING = -2, /* padding over 7 bits, or not all ones */
	SHB_HUFF_E_SPACE = -3,   /* out[cap] is too small */
};

/* Decodes in[len] into out[cap]; *out_len is the decoded length. Returns
 * SHB_HUFF_OK or an enum shb_huff_result error. */
int shb_huff_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap,
		    size_t *out_len);

/* The decoded length of a Huffman string fed in pieces split anywhere,
 * without storing the octets: HPACK sizes its table entries by decoded
 * lengths (RFC 7541 Section 4.1), and a scanner that only measures fields
 * needs nothing more. No allocation; the state is a few words. */
struct shb_huff_count {
	uint64_t acc;  /* pending bits, left-aligned; fewer than 30 */
	uint32_t bits; /* how many */
	uint64_t len;  /* octets decoded so far */
	uint8_t check_upper; /* set by the caller: look for 'A'..'Z' */
	uint8_t upper;       /* an uppercase letter was decoded */
};

/* Starts a string (check_upper off). A caller measuring a field name sets
 * h->check_upper after this: HTTP/2 and HTTP/3 field names must be lower
 * case (RFC 9113 Section 8.2.1, RFC 9114 Section 4.2), and every letter's
 * code is at most 8 bits long, so the check costs a short table walk for
 * short codes only. */
void shb_huff_count_begin(struct shb_huff_count *h);

/* Feeds the next in[n]: SHB_HUFF_OK or SHB_HUFF_E_EOS, after which h must
 * not be fed again. */
int shb_huff_count_feed(struct shb_huff_count *h, const uint8_t *in,
			size_t n);

/* The string ended: SHB_HUFF_OK when what is left is valid padding (h->len
 * is then the decoded length), else SHB_HUFF_E_PADDING. */
int shb_huff_count_end(const struct shb_huff_count *h);

/* One-shot: the decoded length of in[len] into *out_len. Returns
 * SHB_HUFF_OK or an enum shb_huff_result error, exactly as
 * shb_huff_decode would for the same input. */
int shb_huff_decoded_len(const uint8_t *in, size_t len, uint64_t *out_len);

/* Encoded size in octets of in[len], EOS padding included. */
size_t shb_huff_encoded_len(const uint8_t *in, size_t len);

/* Encodes in[len] into out[cap] with EOS padding. Returns the octets
 * written, or 0 when cap is too small (and len > 0). */
size_t shb_huff_encode(const uint8_t *in, size_t len, uint8_t *out,
		       size_t cap);

#endif
