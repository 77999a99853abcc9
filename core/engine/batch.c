/* The completion batch policy (batch.h). */
#include "engine/batch.h"

struct shb_batch shb_batch_policy(const struct shb_batch_in *in)
{
	struct shb_batch b = {1, 0};
	if (in->eager || in->busy < 2)
		return b;
	uint32_t want = in->size;
	if (!want && in->multiplexed)
		want = in->busy < SHB_BATCH_MUX_MAX ? in->busy : SHB_BATCH_MUX_MAX;
	else if (!want) {
		want = in->busy / SHB_BATCH_AUTO_DIV;
		if (want > SHB_BATCH_AUTO_MAX)
			want = SHB_BATCH_AUTO_MAX;
	}
	/* Never more than can come: a batch that cannot fill only lingers. */
	if (want > in->busy)
		want = in->busy;
	if (want < 2)
		return b;
	uint64_t linger = in->linger_us;
	if (!linger && in->kernel_timed)
		linger = SHB_BATCH_LINGER_MAX_US;
	else if (!linger) {
		linger = in->lat_ns / 1000 / SHB_BATCH_LAT_SHARE;
		if (linger < SHB_BATCH_LINGER_FLOOR_US)
			linger = SHB_BATCH_LINGER_FLOOR_US;
		if (linger > SHB_BATCH_LINGER_MAX_US)
			linger = SHB_BATCH_LINGER_MAX_US;
	}
	if (in->wait_ns / 1000 < linger)
		linger = in->wait_ns / 1000;
	if (!linger)
		return b;
	b.want = want;
	b.linger_us = (uint32_t)linger;
	return b;
}
