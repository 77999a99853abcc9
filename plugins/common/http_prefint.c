/* Prefixed integers: see http_prefint.h. */
#include "http_prefint.h"

int shb_prefint_begin(struct shb_prefint *p, uint8_t first,
		      unsigned prefix_bits)
{
	uint8_t mask = (uint8_t)((1u << prefix_bits) - 1);

	p->value = first & mask;
	p->shift = 0;
	return p->value < mask ? SHB_PREFINT_DONE : SHB_PREFINT_MORE;
}

int shb_prefint_next(struct shb_prefint *p, uint8_t octet)
{
	uint64_t add = (uint64_t)(octet & 0x7f);

	/* 56 bits of continuation are plenty below 2^62; beyond that even
	 * zero groups are refused so that a peer cannot stall us forever
	 * with 0x80 octets. */
	if (p->shift > 56)
		return SHB_PREFINT_E_RANGE;
	add <<= p->shift;
	if (add > SHB_PREFINT_MAX - p->value)
		return SHB_PREFINT_E_RANGE;
	p->value += add;
	p->shift += 7;
	return (octet & 0x80) ? SHB_PREFINT_MORE : SHB_PREFINT_DONE;
}

int shb_prefint_decode(const uint8_t *in, size_t len, unsigned prefix_bits,
		       uint64_t *value, size_t *used)
{
	struct shb_prefint p;
	int rc;
	size_t i = 0;

	if (len == 0)
		return SHB_PREFINT_MORE;
	rc = shb_prefint_begin(&p, in[i++], prefix_bits);
	while (rc == SHB_PREFINT_MORE && i < len)
		rc = shb_prefint_next(&p, in[i++]);
	if (rc == SHB_PREFINT_DONE) {
		*value = p.value;
		*used = i;
	}
	return rc;
}

size_t shb_prefint_len(uint64_t value, unsigned prefix_bits)
{
	uint64_t mask = (1u << prefix_bits) - 1;
	size_t n = 1;

	if (value < mask)
		return 1;
	value -= mask;
	for (n = 2; value >= 0x80; n++)
		value >>= 7;
	return n;
}

size_t shb_prefint_encode(uint8_t *out, size_t cap, unsigned prefix_bits,
			  uint8_t flags, uint64_t value)
{
	uint8_t mask = (uint8_t)((1u << prefix_bits) - 1);
	size_t n = shb_prefint_len(value, prefix_bits), i = 0;

	if (value > SHB_PREFINT_MAX || n > cap)
		return 0;
	flags &= (uint8_t)~mask;
	if (value < mask) {
		out[0] = (uint8_t)(flags | value);
		return 1;
	}
	out[i++] = (uint8_t)(flags | mask);
	value -= mask;
	while (value >= 0x80) {
		out[i++] = (uint8_t)(0x80 | (value & 0x7f));
		value >>= 7;
	}
	out[i++] = (uint8_t)value;
	return i;
}
