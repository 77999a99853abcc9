/* RTT estimation (RFC 9002 Section 5) and the durations derived from it.
 *
 * Plain data, owned by the caller (the recovery part embeds one per
 * connection). All values are nanoseconds.
 */
#ifndef SHB_QUIC_RTT_H
#define SHB_QUIC_RTT_H

#include <stdint.h>

#include "quic_pns.h"

#define SHB_QUIC_INITIAL_RTT (333 * SHB_QUIC_MS)
#define SHB_QUIC_GRANULARITY SHB_QUIC_MS

/* Read the members freely; change them only through the functions. */
struct shb_quic_rtt {
	uint64_t latest;   /* latest_rtt, 0 before the first sample */
	uint64_t min;      /* min_rtt, 0 before the first sample */
	uint64_t smoothed; /* smoothed_rtt */
	uint64_t var;      /* rttvar */
	/* When the first sample was taken, SHB_QUIC_TIME_NONE before. */
	uint64_t first_sample_time;
};

/* Before any sample: smoothed = initial_rtt (0 means the RFC's 333 ms),
 * rttvar = initial_rtt / 2. */
void shb_quic_rtt_init(struct shb_quic_rtt *r, uint64_t initial_rtt);

/* Non-zero once a sample was taken. */
int shb_quic_rtt_has_sample(const struct shb_quic_rtt *r);

/* Takes one RTT sample at `now`: `latest` = now - send time of the largest
 * newly acknowledged packet; `ack_delay` = the peer's reported delay in ns
 * (pass 0 to ignore it); `max_ack_delay` = the bound to clamp ack_delay to
 * (the peer's max_ack_delay once the handshake is confirmed, else
 * SHB_QUIC_TIME_NONE for no clamp). The first sample sets everything to
 * `latest`; later ones follow Section 5.3: min_rtt ignores the delay, the
 * delay is subtracted only when the result stays >= min_rtt. */
void shb_quic_rtt_sample(struct shb_quic_rtt *r, uint64_t latest,
			 uint64_t ack_delay, uint64_t max_ack_delay,
			 uint64_t now);

/* smoothed_rtt + max(4 * rttvar, granularity): the PTO period before
 * max_ack_delay and backoff. */
uint64_t shb_quic_rtt_pto_base(const struct shb_quic_rtt *r);

/* Time threshold for loss (Section 6.1.2):
 * max(9/8 * max(latest_rtt, smoothed_rtt), granularity). */
uint64_t shb_quic_rtt_loss_delay(const struct shb_quic_rtt *r);

/* The ACK Delay field of a received ACK frame in ns: raw * 2^exponent
 * microseconds, saturating instead of overflowing (exponent is the peer's
 * ack_delay_exponent, at most 20). */
uint64_t shb_quic_ack_delay_ns(uint64_t raw, unsigned exponent);

#endif
