/* Congestion control: one deliberately simple NewReno-like controller
 * (RFC 9002 Section 7, without pacing, ECN or HyStart).
 *
 *  - The window starts large (4 MiB unless configured): a load generator's
 *    client mostly sends small requests, and a small start would only
 *    throttle it against servers that are not congested.
 *  - Slow start (window < ssthresh) adds every acknowledged byte, up to
 *    ssthresh; congestion avoidance then adds one max_datagram per window's
 *    worth of acknowledged bytes, carrying the remainder from ACK to ACK
 *    (a per-ACK integer division would round small ACKs to no growth).
 *  - A loss halves the window once per recovery period: a loss of a packet
 *    sent at or before the start of the current recovery period changes
 *    nothing, and packets sent before that start do not grow the window
 *    when acknowledged. Periods are judged by *send* times.
 *  - Persistent congestion drops the window to the minimum,
 *    2 * max_datagram, and ends the recovery period.
 *  - Only in-flight packets count in bytes_in_flight; the recovery part
 *    makes exactly the ack-eliciting packets in flight, so ACK-only
 *    packets, which may never be acknowledged, never fill the window.
 *  - There is no application-limited check (RFC 9002 7.8): the window
 *    grows with every acknowledged byte even when it was not full. With a
 *    4 MiB start this matters only for a client that later sends bulk
 *    data, which then leaves in one burst (there is no pacing either).
 *
 * Plain data owned by the caller. Sizes are bytes, times nanoseconds.
 */
#ifndef SHB_QUIC_CC_H
#define SHB_QUIC_CC_H

#include <stdint.h>

#define SHB_QUIC_CC_INITIAL_WINDOW (UINT64_C(4) << 20)
#define SHB_QUIC_CC_MAX_DATAGRAM 1200u

/* Read the members freely; change them only through the functions. */
struct shb_quic_cc {
	uint64_t cwnd;
	uint64_t ssthresh; /* UINT64_MAX until the first loss */
	uint64_t bytes_in_flight;
	uint64_t acked_carry; /* congestion avoidance bytes not yet counted */
	uint64_t recovery_start; /* valid when in_recovery_period */
	uint64_t min_window;
	uint32_t max_datagram;
	uint8_t in_recovery_period; /* a recovery period has started */
};

/* initial_window 0 means SHB_QUIC_CC_INITIAL_WINDOW, max_datagram 0 means
 * 1200. The window never goes below 2 * max_datagram. */
void shb_quic_cc_init(struct shb_quic_cc *cc, uint64_t initial_window,
		      uint32_t max_datagram);

/* An in-flight packet of `bytes` was sent. */
void shb_quic_cc_on_sent(struct shb_quic_cc *cc, uint64_t bytes);

/* An in-flight packet of `bytes` left the network (acknowledged, lost or
 * discarded): only bytes_in_flight changes. */
void shb_quic_cc_on_removed(struct shb_quic_cc *cc, uint64_t bytes);

/* Non-zero when a packet sent at `sent_time` belongs to the current
 * recovery period (sent at or before its start). */
int shb_quic_cc_in_recovery(const struct shb_quic_cc *cc, uint64_t sent_time);

/* Grows the window by `acked` bytes of in-flight packets that were sent
 * after the recovery period started (the caller filters with
 * in_recovery()). */
void shb_quic_cc_grow(struct shb_quic_cc *cc, uint64_t acked);

/* RFC 9002 OnPacketsAcked for one packet: on_removed + grow when the packet
 * was sent outside the recovery period. */
void shb_quic_cc_on_acked(struct shb_quic_cc *cc, uint64_t bytes,
			  uint64_t sent_time);

/* Losses were detected at `now`; `newest_sent` is the send time of the
 * newest lost in-flight packet. Halves the window and starts a recovery
 * period at `now` unless that packet belongs to the current period.
 * Returns 1 if the window was reduced, 0 otherwise. */
int shb_quic_cc_on_congestion(struct shb_quic_cc *cc, uint64_t newest_sent,
			      uint64_t now);

/* Persistent congestion was established: minimum window, recovery period
 * over (every acknowledged byte counts again). */
void shb_quic_cc_on_persistent(struct shb_quic_cc *cc);

/* Bytes the window still has room for (0 when full). */
uint64_t shb_quic_cc_available(const struct shb_quic_cc *cc);

/* Non-zero when a packet of `bytes` fits in the window. */
int shb_quic_cc_can_send(const struct shb_quic_cc *cc, uint64_t bytes);

#endif
