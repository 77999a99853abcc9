/* Seeded pseudo-random numbers for the lossy UDP relay.
 *
 * Every flow (one direction of one client's traffic) draws from its own
 * stream, derived from the run's seed and the flow's number, so what
 * happens to the n-th datagram of a flow depends only on the seed and n,
 * never on how the two directions interleave in time. That is what makes
 * a run reproducible. Not for cryptography. */
#ifndef SHB_RELAY_RNG_H
#define SHB_RELAY_RNG_H

#include <stdbool.h>
#include <stdint.h>

struct shb_relay_rng {
	uint64_t s[4];
};

/* Initialises RNG as stream STREAM of the run seeded with SEED. Distinct
 * (seed, stream) pairs give unrelated sequences. */
void shb_relay_rng_init(struct shb_relay_rng *rng, uint64_t seed,
			uint64_t stream);

/* The next 64 uniformly distributed bits. */
uint64_t shb_relay_rng_next(struct shb_relay_rng *rng);

/* Draws one number and returns true with probability PCT percent
 * (0 = never, 100 = always; values outside [0, 100] are clamped). Always
 * consumes exactly one draw, so later decisions do not shift when a
 * percentage changes. */
bool shb_relay_rng_chance(struct shb_relay_rng *rng, double pct);

#endif
