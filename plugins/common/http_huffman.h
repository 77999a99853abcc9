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

/* Encoded size in octets of in[len], EOS padding included. */
size_t shb_huff_encoded_len(const uint8_t *in, size_t len);

/* Encodes in[len] into out[cap] with EOS padding. Returns the octets
 * written, or 0 when cap is too small (and len > 0). */
size_t shb_huff_encode(const uint8_t *in, size_t len, uint8_t *out,
		       size_t cap);

#endif
