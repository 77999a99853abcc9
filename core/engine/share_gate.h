/* The origins' shares of a mixed run with -z (mix.h): a deficit gate that
 * keeps the requests each origin is sent at its weight's share, whatever
 * the origins' latencies.
 *
 * Connections are bound to origins, so a closed loop left alone sends to
 * each origin what its connections can carry: a fast origin gets more than
 * its weight. The gate counts, per worker, the requests charged to each
 * origin (sent, or charged as an error) and lets a connection of origin k
 * send only while k is less than one request ahead of its share of the
 * total:
 *
 *     sent[k] - total * weight[k] / W < 1      (W: the sum of the weights)
 *
 * The leads sum to 0, so the origin most behind may always send: the gate
 * never stops every origin. An origin sends only while less than one
 * request ahead, so none is ever two ahead, nor 2 x (origins - 1) behind
 * its share. An origin that is
 * slow for its weight thus sets the total rate (its share is kept, the
 * others wait for it), and no more is lost than the weights imply: the
 * origin holding the others back is never itself held.
 *
 * Pure arithmetic, no I/O: the worker asks, takes, and gives back. One
 * gate per worker thread, never shared, so no locks. */
#ifndef SHB_CORE_SHARE_GATE_H
#define SHB_CORE_SHARE_GATE_H

#include <stdint.h>

#include "cli/targets.h"

struct shb_share_gate {
	uint32_t n;                         /* origins */
	uint64_t wsum;                      /* W */
	uint64_t weight[SHB_TARGETS_MAX];   /* per origin, each > 0 */
	uint64_t sent[SHB_TARGETS_MAX];     /* charged to each origin */
	uint64_t total;                     /* sum of sent[] */
};

/* n origins (1..SHB_TARGETS_MAX) with their weights (each > 0, sum at
 * most SHB_WEIGHT_MAX); nothing sent yet. */
void shb_share_gate_init(struct shb_share_gate *g, uint32_t n,
			 const uint64_t *weight);

/* Starts the counts afresh (the measured load begins). */
void shb_share_gate_reset(struct shb_share_gate *g);

/* 1 when origin k may be sent its next request now, else 0. */
int shb_share_gate_may(const struct shb_share_gate *g, uint32_t k);

/* A request was charged to origin k (sent, or counted as an error). */
void shb_share_gate_take(struct shb_share_gate *g, uint32_t k);

/* A request taken for origin k was not sent after all. */
void shb_share_gate_giveback(struct shb_share_gate *g, uint32_t k);

#endif
