/* NewReno-like window arithmetic; see quic_cc.h for the policy. */
#include "quic_cc.h"

uint64_t shb_quic_cc_rfc_window(uint32_t max_datagram)
{
	uint64_t md = max_datagram ? max_datagram : SHB_QUIC_CC_MAX_DATAGRAM;
	uint64_t floor = 2 * md > 14720 ? 2 * md : 14720;

	return 10 * md < floor ? 10 * md : floor;
}

void shb_quic_cc_init(struct shb_quic_cc *cc, uint64_t initial_window,
		      uint32_t max_datagram)
{
	if (max_datagram == 0)
		max_datagram = SHB_QUIC_CC_MAX_DATAGRAM;
	if (initial_window == 0)
		initial_window = shb_quic_cc_rfc_window(max_datagram);
	cc->max_datagram = max_datagram;
	cc->min_window = 2 * (uint64_t)max_datagram;
	cc->cwnd = initial_window < cc->min_window ? cc->min_window
						   : initial_window;
	cc->ssthresh = UINT64_MAX;
	cc->bytes_in_flight = 0;
	cc->acked_carry = 0;
	cc->recovery_start = 0;
	cc->in_recovery_period = 0;
}

void shb_quic_cc_on_sent(struct shb_quic_cc *cc, uint64_t bytes)
{
	cc->bytes_in_flight += bytes;
}

void shb_quic_cc_on_removed(struct shb_quic_cc *cc, uint64_t bytes)
{
	cc->bytes_in_flight = bytes > cc->bytes_in_flight
				      ? 0
				      : cc->bytes_in_flight - bytes;
}

int shb_quic_cc_in_recovery(const struct shb_quic_cc *cc, uint64_t sent_time)
{
	return cc->in_recovery_period && sent_time <= cc->recovery_start;
}

void shb_quic_cc_grow(struct shb_quic_cc *cc, uint64_t acked)
{
	if (cc->cwnd < cc->ssthresh) {
		uint64_t room = cc->ssthresh - cc->cwnd;
		uint64_t add = acked < room ? acked : room;

		cc->cwnd += add;
		acked -= add;
	}
	if (acked == 0)
		return;
	/* Congestion avoidance: one datagram per window of acked bytes. The
	 * window grows inside the loop, so each step needs a full window. */
	cc->acked_carry += acked;
	while (cc->acked_carry >= cc->cwnd) {
		cc->acked_carry -= cc->cwnd;
		cc->cwnd += cc->max_datagram;
	}
}

void shb_quic_cc_on_acked(struct shb_quic_cc *cc, uint64_t bytes,
			  uint64_t sent_time)
{
	shb_quic_cc_on_removed(cc, bytes);
	if (!shb_quic_cc_in_recovery(cc, sent_time))
		shb_quic_cc_grow(cc, bytes);
}

int shb_quic_cc_on_congestion(struct shb_quic_cc *cc, uint64_t newest_sent,
			      uint64_t now)
{
	if (shb_quic_cc_in_recovery(cc, newest_sent))
		return 0;
	cc->in_recovery_period = 1;
	cc->recovery_start = now;
	cc->ssthresh = cc->cwnd / 2;
	cc->cwnd = cc->ssthresh < cc->min_window ? cc->min_window
						 : cc->ssthresh;
	cc->acked_carry = 0;
	return 1;
}

void shb_quic_cc_on_persistent(struct shb_quic_cc *cc)
{
	cc->cwnd = cc->min_window;
	cc->acked_carry = 0;
	cc->in_recovery_period = 0;
}

int shb_quic_cc_cwnd_limited(const struct shb_quic_cc *cc,
			     uint64_t prior_in_flight)
{
	uint64_t slack = (uint64_t)SHB_QUIC_CC_LIMITED_SLACK * cc->max_datagram;

	if (prior_in_flight + slack >= cc->cwnd)
		return 1;
	return cc->cwnd < cc->ssthresh && prior_in_flight > cc->cwnd / 2;
}

uint64_t shb_quic_cc_available(const struct shb_quic_cc *cc)
{
	return cc->cwnd > cc->bytes_in_flight ? cc->cwnd - cc->bytes_in_flight
					      : 0;
}

int shb_quic_cc_can_send(const struct shb_quic_cc *cc, uint64_t bytes)
{
	return bytes <= shb_quic_cc_available(cc);
}
