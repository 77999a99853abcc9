/* Pacing (RFC 9002 Section 7.7): a token bucket that lets ack-eliciting
 * packets leave at a rate of N * cwnd / smoothed_rtt instead of as one
 * burst per window.
 *
 *  - The bucket starts with `burst` bytes (the RFC 9002 7.2 initial
 *    window: ten 1200-byte datagrams), so the first flight may leave at
 *    once. It holds at most the larger of `burst` and what the rate
 *    sends in SHB_QUIC_PACER_QUANTUM_NS, up to SHB_QUIC_PACER_MAX_BURST
 *    datagrams (Linux TCP sizes its bursts the same way): on a 50 Mbit/s
 *    path that is ten datagrams, on loopback a whole GSO train, which
 *    keeps the cost per byte of a fast path where it was without pacing.
 *  - It refills at the rate the caller passes with each call (the recovery
 *    part computes it from the window and the smoothed RTT, N = 2 in slow
 *    start so that the doubling window is not held back, 5/4 afterwards,
 *    as Linux TCP paces); the time of the last refill moves by the time
 *    the counted bytes took, so fractions of a byte are never lost.
 *  - A packet may leave when the bucket holds a full datagram; a packet
 *    sent anyway (a probe) empties it rather than going below zero.
 *
 * Sans-I/O: `now` is passed in, nanoseconds. Plain data owned by the
 * caller, used from the connection's thread only.
 */
#ifndef SHB_QUIC_PACER_H
#define SHB_QUIC_PACER_H

#include <stdint.h>

/* Bursts of up to this much time at the pacing rate ... */
#define SHB_QUIC_PACER_QUANTUM_NS UINT64_C(1000000)
/* ... but never more datagrams than one GSO train carries. */
#define SHB_QUIC_PACER_MAX_BURST 64u

/* Read the members freely; change them only through the functions. */
struct shb_quic_pacer {
	uint64_t tokens; /* bytes that may leave, as of `last` */
	uint64_t last;   /* when tokens was counted; SHB_QUIC_TIME_NONE
			  * before the first packet */
	uint64_t burst;  /* bucket size at least, bytes */
	uint32_t max_datagram;
	uint8_t enabled; /* 0: every query says "now" */
};

/* Pacing rate: `bytes` per `ns` (cwnd * N per smoothed_rtt). */
struct shb_quic_pace_rate {
	uint64_t bytes;
	uint64_t ns;
};

/* burst 0: 10 * max_datagram. enabled 0: the pacer never holds a packet. */
void shb_quic_pacer_init(struct shb_quic_pacer *p, uint64_t burst,
			 uint32_t max_datagram, int enabled);

/* The rate for window `cwnd`, smoothed RTT `srtt` (ns, > 0) and whether
 * the controller is in slow start. */
struct shb_quic_pace_rate shb_quic_pacer_rate(uint64_t cwnd, uint64_t srtt,
					      int slow_start);

/* An ack-eliciting packet of `bytes` left at `now`. */
void shb_quic_pacer_on_sent(struct shb_quic_pacer *p, uint64_t bytes,
			    uint64_t now, struct shb_quic_pace_rate rate);

/* From when the next full datagram may leave at `rate`: a time at or
 * before the last packet sent when it may leave at once (compare with
 * now), SHB_QUIC_TIME_NONE never. Always 0 when disabled. */
uint64_t shb_quic_pacer_next(const struct shb_quic_pacer *p,
			     struct shb_quic_pace_rate rate);

/* The most the bucket holds at `rate`, bytes. */
uint64_t shb_quic_pacer_bucket(const struct shb_quic_pacer *p,
			       struct shb_quic_pace_rate rate);

/* The bytes the bucket holds at `now` (for tests and traces). */
uint64_t shb_quic_pacer_tokens(const struct shb_quic_pacer *p, uint64_t now,
			       struct shb_quic_pace_rate rate);

#endif
