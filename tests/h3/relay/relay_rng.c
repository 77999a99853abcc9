/* xoshiro256** seeded through splitmix64: small, fast, and good enough
 * that loss and duplication rates match their percentages. */
#include "relay_rng.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void shb_relay_rng_init(struct shb_relay_rng *rng, uint64_t seed,
			uint64_t stream)
{
	/* Mixing the stream number through splitmix first keeps streams of
	 * neighbouring seeds from overlapping (seed 1 stream 2 vs seed 2
	 * stream 1). */
	uint64_t x = stream;
	uint64_t sm = seed ^ splitmix64(&x);
	for (int i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&sm);
}

uint64_t shb_relay_rng_next(struct shb_relay_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

bool shb_relay_rng_chance(struct shb_relay_rng *rng, double pct)
{
	/* 53 bits give an exact double in [0, 1). */
	double u = (double)(shb_relay_rng_next(rng) >> 11) * 0x1p-53;
	return u * 100.0 < pct;
}
