/* Receive-side ACK bookkeeping for one packet number space (RFC 9000
 * Sections 13.2 and 19.3).
 *
 * Records the packet numbers received, tells duplicates apart, knows when an
 * ACK frame is owed and hands the frame encoder what to write. The struct is
 * plain fixed-size data (about 560 bytes); nothing allocates.
 *
 * Policy:
 *  - an ACK is "owed" when it must go out now: it rides on the next
 *    packet sent in the space, or goes alone in an ACK-only packet. Any
 *    packet makes an ACK "pending" (worth adding to a packet that is sent
 *    anyway, never a reason to send one by itself);
 *  - by default (shb_quic_ackrx_init) every ack-eliciting packet makes an
 *    ACK owed, as the Initial and Handshake spaces need (RFC 9000
 *    13.2.1);
 *  - with shb_quic_ackrx_set_policy(a, every, delay) (the application
 *    space), an ACK is owed after `every` ack-eliciting packets, after 2
 *    while fewer than SHB_QUIC_ACK_START_PKTS have arrived (the peer's
 *    slow start wants its ACK clock), at once for a packet out of order
 *    (one that fills a gap or opens one, RFC 9000 13.2.1), and otherwise
 *    `delay` after the first unacknowledged one arrived (deadline(),
 *    on_timer()): acknowledging every 2 packets (the RFC's general
 *    SHOULD, 13.2.2) costs a bulk receiver a send per 2 datagrams, and
 *    the RFC leaves room for fewer once the sender is past its start
 *    (the same decimation as widely deployed clients use);
 *  - ranges are kept largest first, at most SHB_QUIC_ACKRX_MAX_RANGES; when
 *    one more would be needed the oldest (smallest) range is forgotten;
 *  - once the peer acknowledges a packet of ours that carried an ACK whose
 *    largest was L, everything <= L is forgotten (shb_quic_ackrx_trim; the
 *    recovery part calls it for the connection);
 *  - what is forgotten is never accepted again: a packet number below the
 *    "floor" (one above the highest number forgotten) is reported as a
 *    duplicate, so a very late packet is dropped rather than processed
 *    twice (RFC 9000 Section 13.2.3 allows exactly this). The peer
 *    retransmits its contents in a new packet anyway;
 *  - the ACK Delay field is encoded with our exponent,
 *    SHB_QUIC_ACK_DELAY_EXPONENT (3, the default, so the transport
 *    parameter need not be sent).
 */
#ifndef SHB_QUIC_ACKRX_H
#define SHB_QUIC_ACKRX_H

#include <stdint.h>

#include "quic_pns.h"

#define SHB_QUIC_ACKRX_MAX_RANGES 32
/* Ack-eliciting packets acknowledged every 2 before `every` applies. */
#define SHB_QUIC_ACK_START_PKTS 100u
#define SHB_QUIC_ACK_DELAY_EXPONENT 3

/* A closed range of packet numbers, lo <= hi. The wire codec's quic_ack.h
 * declares the same type under the same guard, so either header may come
 * first. */
#ifndef SHB_QUIC_ACK_RANGE_DEFINED
#define SHB_QUIC_ACK_RANGE_DEFINED
struct shb_quic_ack_range {
	uint64_t lo;
	uint64_t hi;
};
#endif

/* What an ACK frame must say. ranges[0].hi == largest; ranges are
 * disjoint, not adjacent, largest first (ranges[i + 1].hi + 1 <
 * ranges[i].lo), which is the order of the frame's fields (the encoder
 * writes First ACK Range = ranges[0].hi - ranges[0].lo, then per range
 * Gap = ranges[i-1].lo - ranges[i].hi - 2, Length = hi - lo). An encoder
 * short of room may write a prefix of the ranges (the ranges left out are
 * forgotten anyway once that packet is acknowledged; the peer then sends
 * their contents again). */
struct shb_quic_ack_view {
	uint64_t largest;
	uint64_t ack_delay; /* the field's value: microseconds >> 3 */
	const struct shb_quic_ack_range *ranges; /* borrowed, see view() */
	uint32_t count;                          /* 1..MAX_RANGES */
};

enum shb_quic_ackrx_rc {
	SHB_QUIC_ACKRX_NEW = 0,       /* process the packet's frames */
	SHB_QUIC_ACKRX_DUPLICATE = 1, /* seen before, or too old: drop it */
};

/* All members are private; use the functions below. */
struct shb_quic_ackrx {
	struct shb_quic_ack_range r[SHB_QUIC_ACKRX_MAX_RANGES];
	uint32_t n;
	uint8_t owed;
	uint8_t pending;
	uint32_t every;        /* policy: 0 or 1 = every ack-eliciting packet */
	uint32_t unacked;      /* ack-eliciting packets since the last ACK */
	uint64_t delay;        /* policy: ns an ACK may wait */
	uint64_t due;          /* when the waiting ACK becomes owed */
	uint32_t eliciting;    /* ack-eliciting packets so far, up to
				* SHB_QUIC_ACK_START_PKTS */
	uint64_t largest;      /* largest pn ever received, or PN_NONE */
	uint64_t largest_time; /* when `largest` arrived */
	uint64_t floor;        /* pns below this are refused */
};

/* Empty tracker (also: forget everything, e.g. when the space is
 * discarded). */
void shb_quic_ackrx_init(struct shb_quic_ackrx *a);

/* Acknowledge every `every` ack-eliciting packets (2..255; see the policy
 * above), none waiting longer than `delay` ns (> 0, at most the
 * max_ack_delay advertised). Call after init; init undoes it. */
void shb_quic_ackrx_set_policy(struct shb_quic_ackrx *a, uint32_t every,
			       uint64_t delay);

/* When an ACK that is pending but not yet owed becomes owed, or
 * SHB_QUIC_TIME_NONE. */
uint64_t shb_quic_ackrx_deadline(const struct shb_quic_ackrx *a);

/* Call with now >= deadline(): the waiting ACK becomes owed. Earlier
 * calls do nothing. */
void shb_quic_ackrx_on_timer(struct shb_quic_ackrx *a, uint64_t now);

/* Call once per packet that decrypted successfully, before acting on its
 * frames. `pn` is the full packet number, `ack_eliciting` non-zero when the
 * packet holds any frame other than ACK, PADDING or CONNECTION_CLOSE,
 * `now` the receive time. Returns SHB_QUIC_ACKRX_NEW (recorded) or
 * SHB_QUIC_ACKRX_DUPLICATE (already received, below the floor, older than
 * every range while all MAX_RANGES are in use, or above SHB_QUIC_PN_MAX):
 * nothing changed, drop the packet. */
int shb_quic_ackrx_on_packet(struct shb_quic_ackrx *a, uint64_t pn,
			     int ack_eliciting, uint64_t now);

/* Largest packet number received in the space (what packet number
 * decoding calls largest_pn), or SHB_QUIC_PN_NONE. Trimming never lowers
 * it. */
uint64_t shb_quic_ackrx_largest(const struct shb_quic_ackrx *a);

/* Non-zero when an ack-eliciting packet arrived since the last ACK sent:
 * the next packet in this space must carry an ACK frame (send an ACK-only
 * packet if nothing else is going out). */
int shb_quic_ackrx_owed(const struct shb_quic_ackrx *a);

/* Non-zero when any packet arrived since the last ACK sent (owed implies
 * pending): an ACK may be added to a packet that is being sent anyway. */
int shb_quic_ackrx_pending(const struct shb_quic_ackrx *a);

/* Fills *out for an ACK frame sent at `now`. Returns 0, or -1 when there is
 * nothing to acknowledge (no range left). out->ranges points into `a` and
 * is valid until the next call that changes `a`. */
int shb_quic_ackrx_view(const struct shb_quic_ackrx *a, uint64_t now,
			struct shb_quic_ack_view *out);

/* An ACK frame from view() went out: nothing is owed, pending or waiting
 * any more. */
void shb_quic_ackrx_on_ack_sent(struct shb_quic_ackrx *a);

/* The peer acknowledged a packet that carried our ACK whose largest was
 * `pn`: forget every packet number <= pn and refuse them from now on.
 * When no range is left nothing is owed or pending any more. */
void shb_quic_ackrx_trim(struct shb_quic_ackrx *a, uint64_t pn);

#endif
