#include "relay_impair.h"

unsigned shb_relay_impair_decide(const struct shb_relay_impair *imp,
				 struct shb_relay_rng *rng, uint64_t index)
{
	bool lose = shb_relay_rng_chance(rng, imp->loss_pct);
	bool dup = shb_relay_rng_chance(rng, imp->dup_pct);
	bool hold = shb_relay_rng_chance(rng, imp->reorder_pct);
	if (lose || index < imp->drop_first)
		return SHB_RELAY_DROP;
	return (dup ? SHB_RELAY_DUP : 0u) | (hold ? SHB_RELAY_HOLD : 0u);
}
