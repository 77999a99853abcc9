/* ACK frames (RFC 9000 Section 19.3): the decoded form with its ranges
 * read through an iterator (no allocation, however many ranges the peer
 * sent), and the encoder a client uses for its own acknowledgements.
 *
 * An ACK lists acknowledged packet numbers as ranges, largest first: the
 * first range ends at Largest Acknowledged, and each further range is
 * given by the Gap of unacknowledged numbers before it and its length.
 */
#ifndef SHB_QUIC_ACK_H
#define SHB_QUIC_ACK_H

#include <stddef.h>
#include <stdint.h>

/* Packet numbers lo..hi, both included (lo <= hi). The recovery part
 * (quic_ackrx.h) uses the very same type so that ranges pass between the
 * two unchanged; whichever header comes first defines it, and
 * SHB_QUIC_ACK_RANGE_DEFINED says it is there. */
#if !defined(SHB_QUIC_ACK_RANGE_DEFINED) && !defined(SHB_QUIC_ACKRX_H)
#define SHB_QUIC_ACK_RANGE_DEFINED
struct shb_quic_ack_range {
	uint64_t lo;
	uint64_t hi;
};
#endif

/* A decoded ACK or ACK_ECN frame. The decoder has already checked that
 * every range is in bounds and that no packet number goes below zero, so
 * iterating cannot fail. */
struct shb_quic_ack {
	uint64_t largest;	/* Largest Acknowledged */
	/* The ACK Delay field as sent: microseconds shifted right by the
	 * *sender's* ack_delay_exponent; use shb_quic_ack_delay_us(). */
	uint64_t delay;
	uint64_t range_count;	/* ACK Range Count: ranges after the first */
	uint64_t first_range;	/* First ACK Range */
	uint64_t smallest;	/* lowest packet number acknowledged */
	/* The range_count Gap / ACK Range Length pairs as on the wire,
	 * borrowed from the packet. */
	const uint8_t *ranges;
	size_t ranges_len;
	/* ACK_ECN only (frame type 0x03); else 0. */
	uint64_t ect0;
	uint64_t ect1;
	uint64_t ce;
};

/* Walks the ranges of a decoded ACK, largest first. Private members. */
struct shb_quic_ack_iter {
	const uint8_t *p;
	size_t left;
	uint64_t prev_lo;	/* low end of the range last yielded */
	uint64_t remaining;	/* ranges still to yield after the first */
	uint64_t largest;
	uint64_t first_range;
	uint8_t started;
	uint8_t done;
};

void shb_quic_ack_iter_init(struct shb_quic_ack_iter *it,
			    const struct shb_quic_ack *a);

/* Yields the next range (largest first) into *r and returns 1; returns 0
 * when there are no more. 1 + range_count ranges in all for a decoded ACK
 * (a hand-made inconsistent one just ends early). */
int shb_quic_ack_iter_next(struct shb_quic_ack_iter *it,
			   struct shb_quic_ack_range *r);

/* The peer's ACK delay in microseconds: a->delay << exponent, where
 * exponent is the *peer's* ack_delay_exponent transport parameter (0..20).
 * Saturates at UINT64_MAX. */
uint64_t shb_quic_ack_delay_us(const struct shb_quic_ack *a,
			       unsigned exponent);

/* Encoding an ACK (type 0x02, no ECN counts) from the caller's ranges:
 * r[0..n) largest first, disjoint and not adjacent (r[i].hi + 2 <=
 * r[i-1].lo, since adjacent ranges would be one range), every bound at most
 * 2^62-1, n >= 1. delay_us is how long the largest acknowledged packet was
 * held before this ACK, written as delay_us >> exponent with *our*
 * ack_delay_exponent (the one in our transport parameters, 0..20).
 *
 * shb_quic_ack_frame_len: the encoded size, or 0 for invalid input.
 * shb_quic_ack_frame_encode: writes the frame into out[0..cap) and returns
 *   its size, or 0 (nothing useful written) for invalid input or when it
 *   does not fit.
 * shb_quic_ack_ranges_fit: how many of the first ranges (largest first) fit
 *   in cap bytes, 0 when not even one does (or invalid input); encode that
 *   many to acknowledge the most recent packets when space is short. */
size_t shb_quic_ack_frame_len(const struct shb_quic_ack_range *r, size_t n,
			      uint64_t delay_us, unsigned exponent);
size_t shb_quic_ack_frame_encode(uint8_t *out, size_t cap,
				 const struct shb_quic_ack_range *r, size_t n,
				 uint64_t delay_us, unsigned exponent);
size_t shb_quic_ack_ranges_fit(const struct shb_quic_ack_range *r, size_t n,
			       uint64_t delay_us, unsigned exponent,
			       size_t cap);

#endif
