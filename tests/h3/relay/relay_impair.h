/* What the relay does to each datagram of a flow: drop it, duplicate it,
 * or hold it back so that it arrives after the next one (reordering).
 * Pure decisions, separate from the sockets, so they can be tested on
 * their own. The relay never truncates or alters a datagram. */
#ifndef SHB_RELAY_IMPAIR_H
#define SHB_RELAY_IMPAIR_H

#include <stdint.h>

#include "relay_rng.h"

/* Impairments of one direction. Percentages are in [0, 100]. */
struct shb_relay_impair {
	double loss_pct;
	double dup_pct;
	double reorder_pct;
	/* The first DROP_FIRST datagrams of each flow are dropped whatever
	 * the draws say (to lose a handshake's first flight on purpose). */
	uint64_t drop_first;
};

enum {
	SHB_RELAY_DROP = 1u << 0, /* never forwarded; excludes the others */
	SHB_RELAY_DUP = 1u << 1,  /* forwarded twice */
	SHB_RELAY_HOLD = 1u << 2, /* held back until the next one passes */
};

/* Decides the fate of datagram number INDEX (0-based) of a flow, drawing
 * from that flow's RNG. Returns a mask of SHB_RELAY_* flags (0 = forward
 * once, in order). Draws exactly three numbers per call whatever the
 * outcome, so the n-th decision depends only on the seed and n. */
unsigned shb_relay_impair_decide(const struct shb_relay_impair *imp,
				 struct shb_relay_rng *rng, uint64_t index);

#endif
