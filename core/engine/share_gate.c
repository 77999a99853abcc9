/* The deficit gate over a mixed run's origins (share_gate.h). */
#include "engine/share_gate.h"

#include <string.h>

/* The counts are rebased once the total passes this: the products in
 * shb_share_gate_may (a count times a weight of at most SHB_WEIGHT_MAX,
 * about 2^20) then stay far below 2^64. */
#define REBASE_AT ((uint64_t)1 << 40)

void shb_share_gate_init(struct shb_share_gate *g, uint32_t n,
			 const uint64_t *weight)
{
	memset(g, 0, sizeof(*g));
	g->n = n > SHB_TARGETS_MAX ? SHB_TARGETS_MAX : n;
	for (uint32_t k = 0; k < g->n; k++) {
		g->weight[k] = weight[k] ? weight[k] : 1;
		g->wsum += g->weight[k];
	}
}

void shb_share_gate_reset(struct shb_share_gate *g)
{
	memset(g->sent, 0, sizeof(g->sent));
	g->total = 0;
}

int shb_share_gate_may(const struct shb_share_gate *g, uint32_t k)
{
	if (k >= g->n)
		return 0;
	/* sent - total * w / W < 1, in integers. */
	return g->sent[k] * g->wsum < g->total * g->weight[k] + g->wsum;
}

/* Takes the same whole number of periods (W requests, weight[k] of each
 * origin) off every count: the leads, all the gate looks at, stay. */
static void rebase(struct shb_share_gate *g)
{
	uint64_t m = UINT64_MAX;
	for (uint32_t k = 0; k < g->n; k++)
		if (g->sent[k] / g->weight[k] < m)
			m = g->sent[k] / g->weight[k];
	for (uint32_t k = 0; k < g->n; k++)
		g->sent[k] -= m * g->weight[k];
	g->total -= m * g->wsum;
}

void shb_share_gate_take(struct shb_share_gate *g, uint32_t k)
{
	if (k >= g->n)
		return;
	g->sent[k]++;
	g->total++;
	if (g->total >= REBASE_AT)
		rebase(g);
}

void shb_share_gate_giveback(struct shb_share_gate *g, uint32_t k)
{
	if (k >= g->n || g->sent[k] == 0)
		return;
	g->sent[k]--;
	g->total--;
}
