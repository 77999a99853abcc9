/* Loss detection, PTO and congestion control for the QUIC client
 * (RFC 9002), with the receive-side ACK state of each packet number space.
 *
 * Sans-I/O: every time is a uint64_t nanosecond `now` passed in; nothing
 * reads a clock, nothing does I/O, nothing allocates after
 * shb_quic_recovery_init() (which allocates the rings once; reset() reuses
 * them for a new connection).
 *
 * One struct shb_quic_recovery per connection, used from the connection's
 * thread only. It owns, per space: the sent-packet ring (quic_sent.h), the
 * receive-side ACK tracker (quic_ackrx.h), the loss timer and probe count;
 * and, per connection: the RTT estimator (quic_rtt.h) and the congestion
 * controller (quic_cc.h).
 *
 * How the connection drives it
 * ----------------------------
 * Receiving a packet (after it decrypted):
 *   if (shb_quic_recovery_on_received(r, space, pn, ack_eliciting, now)
 *       == SHB_QUIC_ACKRX_DUPLICATE) drop it;
 *   for packet-number decoding use shb_quic_recovery_largest_received().
 * Receiving an ACK frame:
 *   shb_quic_recovery_on_ack(r, space, ranges, n, ack_delay_ns, now)
 *   (or on_ack_iter()); the `acked` and `lost` callbacks fire from inside
 *   for every packet newly acknowledged / declared lost.
 * Building packets:
 *   pn = shb_quic_recovery_next_pn(r, space);
 *   pn length from shb_quic_recovery_largest_acked(r, space);
 *   an ACK frame from shb_quic_recovery_ack_view() when
 *   shb_quic_recovery_ack_owed() (or ack_pending() if the packet goes out
 *   anyway);
 *   before an ack-eliciting packet: shb_quic_recovery_can_send_at() (the
 *   window and the pacer; can_send() asks the window alone);
 *   after sending (every packet, ACK-only ones too):
 *   shb_quic_recovery_on_sent().
 * Timers: shb_quic_recovery_deadline() / shb_quic_recovery_on_timeout(),
 *   shb_quic_recovery_ack_deadline() / shb_quic_recovery_ack_timer();
 *   while data waits only for the pacer, wake up at
 *   shb_quic_recovery_pacer_time().
 * Handshake progress: handshake_keys(), discard(), handshake_confirmed(),
 *   set_peer_max_ack_delay().
 *
 * Rules applied here (RFC 9002 unless noted):
 *  - loss: packet threshold 3, time threshold 9/8 * max(latest_rtt,
 *    smoothed_rtt), granularity 1 ms; initial RTT 333 ms;
 *  - RTT sampled only when the largest acknowledged packet is newly
 *    acknowledged and something newly acknowledged is ack-eliciting; the
 *    peer's ACK delay is ignored in the Initial space and clamped to its
 *    max_ack_delay once the handshake is confirmed;
 *  - PTO = smoothed + max(4 * rttvar, 1 ms) + max_ack_delay (0 in Initial
 *    and Handshake), times 2^pto_count, from the last ack-eliciting packet
 *    sent in the space, the earliest over the spaces; the application
 *    space is skipped until the handshake is confirmed;
 *  - anti-deadlock: until the server acknowledged a Handshake packet (or the
 *    handshake is confirmed) the PTO is armed even with nothing in flight,
 *    from the time it was armed, in the Handshake space when its keys exist,
 *    else Initial; such a PTO asks for one probe, an ordinary one for two;
 *  - probes are counted down by ack-eliciting packets sent in the probed
 *    space; they may exceed the congestion window and use two ring slots
 *    kept in reserve for them; should even those be taken, a probe may
 *    still go out as an untracked PING, so a full ring never stops the PTO;
 *  - an ACK that newly acknowledges something (a record, or a new largest
 *    acknowledged: an untracked PING probe) resets pto_count and every
 *    owed probe, except an Initial ACK while the server has not
 *    acknowledged any Handshake packet (RFC 9002 6.2.1: a client not sure
 *    that its address was validated keeps backing off);
 *  - only ack-eliciting packets are in flight (counted in bytes in flight,
 *    arm the PTO); ACK-only packets are recorded only so that our ACK ranges
 *    can be trimmed when the peer acknowledges them;
 *  - persistent congestion: a run of lost packets with nothing acknowledged
 *    between them, whose first and last ack-eliciting packets (both sent
 *    after the first RTT sample) are more than 3 * (smoothed + max(4 *
 *    rttvar, 1 ms) + max_ack_delay) apart;
 *  - an ACK frame detects losses in its own space only; acknowledging a
 *    packet already declared lost changes nothing (no spurious-loss undo:
 *    its data was requeued when the loss was reported);
 *  - congestion control in quic_cc.h (RFC 9002 7.2 initial window unless
 *    configured, no growth while application-limited), pacing in
 *    quic_pacer.h (ack-eliciting packets only; probes are never held);
 *  - discarding a space drops its records (out of bytes in flight, no
 *    callbacks), ACK state, loss timer and probes, and resets pto_count.
 *
 * Callbacks run synchronously inside on_ack() and on_timeout(). They may
 * read anything (the getters) but must not call a function of this header
 * that changes state; the record and references they get are valid only
 * during the call.
 */
#ifndef SHB_QUIC_RECOVERY_H
#define SHB_QUIC_RECOVERY_H

#include <stddef.h>
#include <stdint.h>

#include "quic_ackrx.h"
#include "quic_cc.h"
#include "quic_pacer.h"
#include "quic_pns.h"
#include "quic_rtt.h"
#include "quic_sent.h"

/* Ring slots per space kept for PTO probes. */
#define SHB_QUIC_PROBE_RESERVE 2u
/* Packet threshold for loss (kPacketThreshold). */
#define SHB_QUIC_PACKET_THRESHOLD 3u
/* Default peer max_ack_delay until its transport parameters say otherwise
 * (RFC 9000 Section 18.2). */
#define SHB_QUIC_DEFAULT_MAX_ACK_DELAY (25 * SHB_QUIC_MS)

/* Zero members take the default shown. */
struct shb_quic_recovery_config {
	/* Sent-packet records per space: Initial 32, Handshake 32, App 1024.
	 * At least SHB_QUIC_PROBE_RESERVE + 2. The App ring caps the number of
	 * packets in flight: 1024 * 1200 bytes is 1.2 MB. */
	uint32_t ring_capacity[SHB_QUIC_PNS_COUNT];
	/* Frame references per space: 2 * ring_capacity. */
	uint32_t ref_capacity[SHB_QUIC_PNS_COUNT];
	/* RFC 9002 7.2: min(10 * max_datagram, max(2 * max_datagram,
	 * 14720)), 12000 bytes for 1200-byte datagrams. */
	uint64_t initial_window;
	uint32_t max_datagram;   /* 1200 */
	uint32_t no_pacing;      /* 0: paced (quic_pacer.h); 1: not (lab use) */
	uint64_t initial_rtt;    /* 333 ms */
	/* The application space's ACK policy (shb_quic_ackrx_set_policy):
	 * an ACK every `ack_every` ack-eliciting packets, none held longer
	 * than `ack_delay` ns. 0 (either): every ack-eliciting packet is
	 * acknowledged at once, as in the Initial and Handshake spaces.
	 * ack_every above 255 is refused. */
	uint32_t ack_every;
	uint64_t ack_delay;
};

/* One packet newly acknowledged or declared lost. `refs` are its
 * pkt->nrefs frame references (NULL when none). */
typedef void (*shb_quic_sent_cb)(void *ctx, enum shb_quic_pns space,
				 const struct shb_quic_sent *pkt,
				 const struct shb_quic_frame_ref *refs);

struct shb_quic_recovery_cbs {
	shb_quic_sent_cb acked; /* may be NULL */
	shb_quic_sent_cb lost;  /* may be NULL */
	void *ctx;
};

/* Return codes. */
enum shb_quic_recovery_rc {
	SHB_QUIC_RECOVERY_OK = 0,
	/* on_sent: an ACK-only packet, or a probe without references, was
	 * not recorded (ring full of ack-eliciting packets); harmless. */
	SHB_QUIC_RECOVERY_NOT_RECORDED = 1,
	/* on_ack: the peer acknowledged a packet number never sent in the
	 * space: close with PROTOCOL_VIOLATION (RFC 9000 Section 13.1). */
	SHB_QUIC_RECOVERY_E_PROTOCOL = -1,
	/* on_ack: ranges out of order, overlapping, lo > hi, or none: close
	 * with FRAME_ENCODING_ERROR. Ranges before the bad one were applied. */
	SHB_QUIC_RECOVERY_E_FRAME = -2,
	/* on_sent: an ack-eliciting packet with no room (can_send() was not
	 * asked): it is not tracked, so it will never be retransmitted. */
	SHB_QUIC_RECOVERY_E_FULL = -3,
	/* on_sent / on_ack in a discarded space, bad argument, or init failed. */
	SHB_QUIC_RECOVERY_E_INVALID = -4,
};

/* What can_send() allows for the next ack-eliciting packet. */
enum shb_quic_send_verdict {
	SHB_QUIC_SEND_OK = 0,    /* within the congestion window */
	SHB_QUIC_SEND_PROBE = 1, /* a probe is owed: send even past the window */
	SHB_QUIC_SEND_CWND = -1, /* the congestion window is full: wait */
	/* The space's ring is full: wait for an ACK or timeout to free records
	 * (ACK-only packets may still be sent). */
	SHB_QUIC_SEND_RING_FULL = -2,
	SHB_QUIC_SEND_DISCARDED = -3, /* the space was discarded */
	/* can_send_at(): the window has room but the pacer holds the packet
	 * until shb_quic_recovery_pacer_time(). */
	SHB_QUIC_SEND_PACED = -4,
};

/* What a packet carried, for on_sent(). */
struct shb_quic_sent_desc {
	uint64_t tag;         /* opaque, handed back in the callbacks */
	uint64_t ack_largest; /* ACK frame's largest, or SHB_QUIC_PN_NONE */
	uint32_t size;        /* bytes on the wire */
	uint8_t ack_eliciting;
};

enum shb_quic_timeout_kind {
	SHB_QUIC_TIMEOUT_NONE = 0, /* not due yet, or nothing armed */
	SHB_QUIC_TIMEOUT_LOSS = 1, /* packets declared lost (callbacks ran) */
	/* Send `probes` ack-eliciting packets in `space` (even past the
	 * window, see can_send()): new data if any, else what is still
	 * outstanding (foreach_outstanding(); in Initial and Handshake, the
	 * CRYPTO data), else a PING. Initial probes are padded to 1200. */
	SHB_QUIC_TIMEOUT_PTO = 2,
};

struct shb_quic_timeout {
	uint32_t kind;   /* enum shb_quic_timeout_kind */
	uint32_t space;  /* enum shb_quic_pns: PTO where to probe, LOSS where */
	uint32_t probes; /* PTO: ack-eliciting packets owed in `space` */
	uint32_t lost;   /* LOSS: packets declared lost */
};

/* Counters for reports. */
struct shb_quic_recovery_stats {
	uint64_t packets_sent;
	uint64_t packets_acked;
	uint64_t packets_lost;
	uint64_t pto_fired;
	uint64_t congestion_events; /* window reductions */
	uint64_t persistent_congestion;
	/* ACKs that did not grow the window because it was not being used
	 * (RFC 9002 7.8). */
	uint64_t app_limited_acks;
};

struct shb_quic_pns_state {
	struct shb_quic_ackrx ackrx;
	struct shb_quic_sent_ring sent;
	uint64_t next_pn;
	uint64_t largest_acked;     /* or PN_NONE */
	uint64_t loss_time;         /* or TIME_NONE */
	uint64_t last_eliciting;    /* send time, or TIME_NONE */
	uint32_t eliciting_in_flight;
	uint32_t probes;
	uint8_t discarded;
};

/* All members are private; use the functions below. */
struct shb_quic_recovery {
	struct shb_quic_pns_state s[SHB_QUIC_PNS_COUNT];
	struct shb_quic_rtt rtt;
	struct shb_quic_cc cc;
	struct shb_quic_pacer pacer;
	struct shb_quic_recovery_cbs cb;
	struct shb_quic_recovery_config cfg;
	struct shb_quic_recovery_stats stats;
	uint64_t timer; /* loss or PTO deadline, or TIME_NONE */
	uint64_t peer_max_ack_delay;
	uint32_t pto_count;
	uint8_t has_hs_keys;
	uint8_t hs_acked;  /* the server acknowledged a Handshake packet */
	uint8_t confirmed; /* handshake confirmed (HANDSHAKE_DONE) */
	uint8_t pacing_limited; /* set_pacing_limited() */
	uint8_t own_mem;   /* mem came from init(), not init_in() */
	void *mem;
};

/* Allocates the rings (the only allocation) and starts in the state of a
 * new connection. cfg and cbs may be NULL (defaults / no callbacks); both
 * are copied. Returns SHB_QUIC_RECOVERY_OK, or E_INVALID (a capacity too
 * small, or out of memory) with nothing to free. */
int shb_quic_recovery_init(struct shb_quic_recovery *r,
			   const struct shb_quic_recovery_config *cfg,
			   const struct shb_quic_recovery_cbs *cbs);

/* The bytes of ring memory init_in() needs for cfg (NULL: defaults), or
 * 0 when cfg is invalid. */
size_t shb_quic_recovery_mem_size(const struct shb_quic_recovery_config *cfg);

/* As init(), but the rings live in the caller's mem[len] (at least
 * mem_size() bytes, aligned for uint64_t), which free() leaves alone:
 * lets a connection keep all its state in one block. */
int shb_quic_recovery_init_in(struct shb_quic_recovery *r,
			      const struct shb_quic_recovery_config *cfg,
			      const struct shb_quic_recovery_cbs *cbs,
			      void *mem, size_t len);

/* Back to the state of a new connection, keeping the memory and the
 * callbacks. */
void shb_quic_recovery_reset(struct shb_quic_recovery *r);

/* Frees the rings (unless init_in()); r may then be init()ed again. Safe
 * on a zeroed struct. */
void shb_quic_recovery_free(struct shb_quic_recovery *r);

/* ---- handshake progress ------------------------------------------------ */

/* The peer's max_ack_delay transport parameter, in ns (default 25 ms). */
void shb_quic_recovery_set_peer_max_ack_delay(struct shb_quic_recovery *r,
					      uint64_t ns);

/* Handshake keys are installed: an anti-deadlock PTO now probes the
 * Handshake space. */
void shb_quic_recovery_handshake_keys(struct shb_quic_recovery *r);

/* The handshake is confirmed (the client received HANDSHAKE_DONE): the
 * application space gets a PTO, ACK delays are clamped, no anti-deadlock.
 * Re-arms the timer at `now`. */
void shb_quic_recovery_handshake_confirmed(struct shb_quic_recovery *r,
					   uint64_t now);

/* The keys of `space` were dropped (Initial: on the first Handshake packet
 * sent; Handshake: when the handshake is confirmed). Its records leave
 * bytes in flight without callbacks; its ACK state, loss time and probes
 * are cleared, pto_count is reset and the timer re-armed at `now`. Later
 * calls for the space are refused or ignored. */
void shb_quic_recovery_discard(struct shb_quic_recovery *r,
			       enum shb_quic_pns space, uint64_t now);

/* ---- receiving --------------------------------------------------------- */

/* A packet decrypted in `space`: SHB_QUIC_ACKRX_NEW (process its frames)
 * or SHB_QUIC_ACKRX_DUPLICATE (drop it; also for a discarded space). See
 * shb_quic_ackrx_on_packet(). */
int shb_quic_recovery_on_received(struct shb_quic_recovery *r,
				  enum shb_quic_pns space, uint64_t pn,
				  int ack_eliciting, uint64_t now);

/* Largest packet number received in `space` (for decoding), or
 * SHB_QUIC_PN_NONE. */
uint64_t shb_quic_recovery_largest_received(const struct shb_quic_recovery *r,
					    enum shb_quic_pns space);

/* When an ACK held back by the policy becomes owed (the earliest over
 * the spaces), or SHB_QUIC_TIME_NONE. */
uint64_t shb_quic_recovery_ack_deadline(const struct shb_quic_recovery *r);

/* Call with now >= ack_deadline(): that ACK is owed from now. */
void shb_quic_recovery_ack_timer(struct shb_quic_recovery *r, uint64_t now);

/* An ACK frame is owed in `space` (the next packet there must carry one;
 * send an ACK-only packet if there is nothing else). */
int shb_quic_recovery_ack_owed(const struct shb_quic_recovery *r,
			       enum shb_quic_pns space);

/* Something arrived since the last ACK: worth an ACK frame in a packet
 * that is being sent in `space` anyway. */
int shb_quic_recovery_ack_pending(const struct shb_quic_recovery *r,
				  enum shb_quic_pns space);

/* The ACK frame to send in `space` at `now`: 0, or -1 if there is nothing
 * to acknowledge. See shb_quic_ackrx_view() (out->ranges is valid until
 * the next call that changes r). Pass out->largest as the packet's
 * desc.ack_largest to on_sent(), which marks the ACK as sent. */
int shb_quic_recovery_ack_view(const struct shb_quic_recovery *r,
			       enum shb_quic_pns space, uint64_t now,
			       struct shb_quic_ack_view *out);

/* ---- ACK frames received ----------------------------------------------- */

/* An ACK frame received in `space` at `now`. ranges[0..n) are the frame's
 * ranges, largest first (ranges[0].hi is Largest Acknowledged);
 * ack_delay_ns is the decoded ACK Delay (shb_quic_ack_delay_ns() with the
 * peer's exponent). Marks newly acknowledged packets (callback `acked`
 * each), trims our ACK ranges for acknowledged packets that carried one,
 * updates the RTT, detects losses in the space (callback `lost` each),
 * updates the congestion window, resets the PTO backoff and re-arms the
 * timer. A new Largest Acknowledged counts as newly acknowledging even
 * when that packet has no record (a PING probe sent with a full ring);
 * any other ACK that acknowledges no record anew changes nothing. Returns
 * the number of records newly acknowledged (>= 0),
 * SHB_QUIC_RECOVERY_E_PROTOCOL (nothing changed), or
 * SHB_QUIC_RECOVERY_E_FRAME. An ACK in a discarded space returns 0. */
int shb_quic_recovery_on_ack(struct shb_quic_recovery *r,
			     enum shb_quic_pns space,
			     const struct shb_quic_ack_range *ranges,
			     uint32_t n, uint64_t ack_delay_ns, uint64_t now);

/* Same, pulling ranges from an iterator (e.g. straight from the frame
 * decoder, so any number of ranges works without a buffer): next() fills
 * *out and returns 1, returns 0 after the last range, or < 0 if the frame
 * is malformed (then E_FRAME is returned). */
typedef int (*shb_quic_ack_next_fn)(void *it, struct shb_quic_ack_range *out);
int shb_quic_recovery_on_ack_iter(struct shb_quic_recovery *r,
				  enum shb_quic_pns space,
				  shb_quic_ack_next_fn next, void *it,
				  uint64_t ack_delay_ns, uint64_t now);

/* ---- sending ----------------------------------------------------------- */

/* Packet number the next packet in `space` gets (on_sent() consumes it). */
uint64_t shb_quic_recovery_next_pn(const struct shb_quic_recovery *r,
				   enum shb_quic_pns space);

/* Largest packet number the peer acknowledged in `space`, or
 * SHB_QUIC_PN_NONE (for the packet number length). */
uint64_t shb_quic_recovery_largest_acked(const struct shb_quic_recovery *r,
					 enum shb_quic_pns space);

/* May an ack-eliciting packet of `bytes` be sent in `space` now? On OK or
 * PROBE, *max_refs (if not NULL) is the most frame references it may
 * carry: the builder stops adding retransmittable frames there (a PING
 * needs none; a PROBE with *max_refs == 0 must be a PING). Otherwise
 * *max_refs is 0. ACK-only packets need no permission. */
enum shb_quic_send_verdict
shb_quic_recovery_can_send(const struct shb_quic_recovery *r,
			   enum shb_quic_pns space, uint64_t bytes,
			   uint32_t *max_refs);

/* can_send() and then the pacer: SHB_QUIC_SEND_PACED (with *max_refs 0)
 * when the window allows the packet but the pacer does not at `now`.
 * Probes are never paced. */
enum shb_quic_send_verdict
shb_quic_recovery_can_send_at(const struct shb_quic_recovery *r,
			      enum shb_quic_pns space, uint64_t bytes,
			      uint32_t *max_refs, uint64_t now);

/* The owner says, after each write, whether data it has is held back by
 * the pacer (1) or not (0: it sent what it had, or the window is full).
 * A window the pacer keeps from filling is still being used (RFC 9002
 * 7.8): ACKs grow it while this is set, whatever is in flight. */
void shb_quic_recovery_set_pacing_limited(struct shb_quic_recovery *r,
					  int limited);

/* When the pacer lets the next ack-eliciting datagram leave: a time at or
 * before now when it may leave now; 0 when pacing is off. Not part of
 * deadline(): the owner arms a timer for it only while data waits for it,
 * else an idle connection would wake up for nothing. */
uint64_t shb_quic_recovery_pacer_time(const struct shb_quic_recovery *r);

/* A packet went out in `space` at `now` with packet number next_pn().
 * Every packet must be reported, ACK-only ones included (they consume a
 * packet number; a report with desc->ack_largest set marks the ACK as
 * sent). refs[0..nrefs) are copied. Ack-eliciting packets enter bytes in
 * flight, take their size from the pacer, count down owed probes and
 * re-arm the PTO. Returns OK,
 * NOT_RECORDED (ACK-only or reference-free probe, no room; harmless),
 * E_FULL (ack-eliciting, no room or nrefs over the limit can_send() gave)
 * or E_INVALID (discarded space, refs NULL with nrefs > 0). The packet
 * number is consumed in every case. */
int shb_quic_recovery_on_sent(struct shb_quic_recovery *r,
			      enum shb_quic_pns space,
			      const struct shb_quic_sent_desc *desc,
			      const struct shb_quic_frame_ref *refs,
			      uint32_t nrefs, uint64_t now);

/* Ack-eliciting packets still owed as probes in `space` after a PTO. */
uint32_t shb_quic_recovery_probes(const struct shb_quic_recovery *r,
				  enum shb_quic_pns space);

/* Calls fn for every ack-eliciting packet of `space` that is neither
 * acknowledged nor lost, oldest first: what a PTO probe should carry again
 * when there is no new data (e.g. the CRYPTO ranges of the handshake).
 * Same rules as the callbacks. */
void shb_quic_recovery_foreach_outstanding(const struct shb_quic_recovery *r,
					   enum shb_quic_pns space,
					   shb_quic_sent_cb fn, void *ctx);

/* ---- timers ------------------------------------------------------------ */

/* The loss-detection deadline (loss time or PTO), or SHB_QUIC_TIME_NONE. */
uint64_t shb_quic_recovery_deadline(const struct shb_quic_recovery *r);

/* Call with now >= deadline() (earlier calls do nothing and report NONE).
 * Either declares packets lost by the time threshold (LOSS; `lost`
 * callbacks ran) or fires a PTO (PTO: pto_count is incremented and
 * `probes` ack-eliciting packets are owed in `space`). Re-arms the timer.
 * *out is filled in every case; the kind is also returned. */
int shb_quic_recovery_on_timeout(struct shb_quic_recovery *r, uint64_t now,
				 struct shb_quic_timeout *out);

/* ---- state for reports and tests --------------------------------------- */

const struct shb_quic_rtt *
shb_quic_recovery_rtt(const struct shb_quic_recovery *r);
const struct shb_quic_cc *
shb_quic_recovery_cc(const struct shb_quic_recovery *r);
const struct shb_quic_recovery_stats *
shb_quic_recovery_stats(const struct shb_quic_recovery *r);
uint32_t shb_quic_recovery_pto_count(const struct shb_quic_recovery *r);
/* Records in the space's ring (acknowledged holes included). */
uint32_t shb_quic_recovery_ring_count(const struct shb_quic_recovery *r,
				      enum shb_quic_pns space);
/* The current PTO period for `space` (with backoff and, for the
 * application space, max_ack_delay). */
uint64_t shb_quic_recovery_pto_period(const struct shb_quic_recovery *r,
				      enum shb_quic_pns space);

#endif
