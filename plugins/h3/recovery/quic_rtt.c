/* RFC 9002 Section 5, in integer nanoseconds. */
#include "quic_rtt.h"

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void shb_quic_rtt_init(struct shb_quic_rtt *r, uint64_t initial_rtt)
{
	if (initial_rtt == 0)
		initial_rtt = SHB_QUIC_INITIAL_RTT;
	r->latest = 0;
	r->min = 0;
	r->smoothed = initial_rtt;
	r->var = initial_rtt / 2;
	r->first_sample_time = SHB_QUIC_TIME_NONE;
}

int shb_quic_rtt_has_sample(const struct shb_quic_rtt *r)
{
	return r->first_sample_time != SHB_QUIC_TIME_NONE;
}

void shb_quic_rtt_sample(struct shb_quic_rtt *r, uint64_t latest,
			 uint64_t ack_delay, uint64_t max_ack_delay,
			 uint64_t now)
{
	r->latest = latest;
	if (!shb_quic_rtt_has_sample(r)) {
		r->min = latest;
		r->smoothed = latest;
		r->var = latest / 2;
		r->first_sample_time = now;
		return;
	}
	if (latest < r->min)
		r->min = latest;
	if (ack_delay > max_ack_delay)
		ack_delay = max_ack_delay;
	uint64_t adjusted = latest;

	/* A delay that would take the sample below min_rtt is implausible
	 * (the peer's clock or report is off): keep the raw sample. */
	if (latest >= sat_add(r->min, ack_delay))
		adjusted = latest - ack_delay;
	uint64_t dev = r->smoothed > adjusted ? r->smoothed - adjusted
					      : adjusted - r->smoothed;

	r->var = (3 * r->var + dev) / 4;
	r->smoothed = (7 * r->smoothed + adjusted) / 8;
}

uint64_t shb_quic_rtt_pto_base(const struct shb_quic_rtt *r)
{
	uint64_t v = r->var > UINT64_MAX / 4 ? UINT64_MAX : 4 * r->var;

	if (v < SHB_QUIC_GRANULARITY)
		v = SHB_QUIC_GRANULARITY;
	return sat_add(r->smoothed, v);
}

uint64_t shb_quic_rtt_loss_delay(const struct shb_quic_rtt *r)
{
	uint64_t m = r->latest > r->smoothed ? r->latest : r->smoothed;
	uint64_t d = m / 8 * 9 + (m % 8) * 9 / 8;

	return d < SHB_QUIC_GRANULARITY ? SHB_QUIC_GRANULARITY : d;
}

uint64_t shb_quic_ack_delay_ns(uint64_t raw, unsigned exponent)
{
	if (exponent > 20)
		exponent = 20;
	if (raw > (UINT64_MAX / 1000) >> exponent)
		return UINT64_MAX;
	return (raw << exponent) * 1000;
}
