/* The prefixed integer of HPACK (RFC 7541 Section 5.1), which QPACK
 * reuses: a value in the low N bits of a first octet, continued in 7-bit
 * groups when it does not fit. */
#ifndef SHB_HTTP_PREFINT_H
#define SHB_HTTP_PREFINT_H

#include <stddef.h>
#include <stdint.h>

/* Values above this are refused: nothing in HTTP needs more, and it keeps
 * the arithmetic free of overflow. */
#define SHB_PREFINT_MAX ((UINT64_C(1) << 62) - 1)

/* An integer being decoded one octet at a time (input split anywhere). */
struct shb_prefint {
	uint64_t value;
	uint32_t shift;
};

enum shb_prefint_result {
	SHB_PREFINT_DONE = 1,
	SHB_PREFINT_MORE = 0,
	SHB_PREFINT_E_RANGE = -1, /* above SHB_PREFINT_MAX */
};

/* Starts with the first octet; prefix_bits is 1..8. Returns DONE when the
 * prefix held the whole value, else MORE. */
int shb_prefint_begin(struct shb_prefint *p, uint8_t first,
		      unsigned prefix_bits);
/* Feeds one continuation octet: DONE, MORE or E_RANGE. */
int shb_prefint_next(struct shb_prefint *p, uint8_t octet);

/* One-shot decode from in[len]: DONE (with *value and *used set), MORE
 * when in[] ends first, or E_RANGE. */
int shb_prefint_decode(const uint8_t *in, size_t len, unsigned prefix_bits,
		       uint64_t *value, size_t *used);

/* Octets needed to encode `value` with a prefix_bits prefix. */
size_t shb_prefint_len(uint64_t value, unsigned prefix_bits);

/* Writes `value` into out[cap]; `flags` are the first octet's bits above
 * the prefix. Returns the octets written, 0 when cap is too small or the
 * value is above SHB_PREFINT_MAX. */
size_t shb_prefint_encode(uint8_t *out, size_t cap, unsigned prefix_bits,
			  uint8_t flags, uint64_t value);

#endif
