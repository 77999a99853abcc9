/* Congestion control: one deliberately simple NewReno-like controller
 * (RFC 9002 Section 7, without ECN or HyStart; pacing is quic_pacer.h).
 *
 *  - The window starts at RFC 9002's 7.2 value, min(10 * max_datagram,
 *    max(2 * max_datagram, 14720)): 12000 bytes for 1200-byte datagrams.
 *    A larger start (the 4 MiB this client used to start with) stays
 *    available for lab links where nothing is congested.
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
 *  - Application-limited (RFC 9002 7.8): the window grows only when the
 *    sender was using it, judged by the bytes in flight before the ACK
 *    (cwnd_limited()), or when the pacer held data back (the recovery
 *    part knows): a load generator's client that sends small requests
 *    keeps its initial window instead of growing one it never fills and
 *    later dumping a bulk upload into it in one burst.
 *
 * Plain data owned by the caller. Sizes are bytes, times nanoseconds.
 */
#ifndef SHB_QUIC_CC_H
#define SHB_QUIC_CC_H

#include <stdint.h>

#define SHB_QUIC_CC_MAX_DATAGRAM 1200u
/* The start this client had before it followed RFC 9002 7.2; kept for
 * `--proto-opt initial-window=` on lab links. */
#define SHB_QUIC_CC_LAB_WINDOW (UINT64_C(4) << 20)
/* Slack below a full window that still counts as using it: a sender
 * rarely fills the last bytes exactly (RFC 9002 7.8 leaves the rule to
 * the implementation; this one is Chromium's and quic-go's). */
#define SHB_QUIC_CC_LIMITED_SLACK 3u /* datagrams */

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

/* initial_window 0 means shb_quic_cc_rfc_window(max_datagram),
 * max_datagram 0 means 1200. The window never goes below
 * 2 * max_datagram. */
void shb_quic_cc_init(struct shb_quic_cc *cc, uint64_t initial_window,
		      uint32_t max_datagram);

/* RFC 9002 7.2: min(10 * max_datagram, max(2 * max_datagram, 14720)). */
uint64_t shb_quic_cc_rfc_window(uint32_t max_datagram);

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

/* Was the sender using its window, with `prior_in_flight` bytes in flight
 * before an ACK? Yes when the window is full or within
 * SHB_QUIC_CC_LIMITED_SLACK datagrams of it, and in slow start also when
 * more than half of it is in flight (the window doubles per round trip,
 * so half of it was the whole window one round trip ago). Otherwise the
 * sender is application-limited and acknowledged bytes must not grow the
 * window (the recovery part checks this before grow()). */
int shb_quic_cc_cwnd_limited(const struct shb_quic_cc *cc,
			     uint64_t prior_in_flight);

/* Bytes the window still has room for (0 when full). */
uint64_t shb_quic_cc_available(const struct shb_quic_cc *cc);

/* Non-zero when a packet of `bytes` fits in the window. */
int shb_quic_cc_can_send(const struct shb_quic_cc *cc, uint64_t bytes);

#endif
