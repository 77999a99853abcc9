/* ACK frames received (RFC 9002 OnAckReceived with OnPacketsAcked): the
 * ranges checked and applied to the sent-packet ring, the RTT sample,
 * congestion window growth after loss detection, and the PTO backoff
 * reset. Separate from quic_recovery.c because it is the one path that
 * walks the ring on the peer's word, with its own per-frame state (struct
 * ack_batch); it ends in loss detection and the timer of
 * quic_recovery_loss.c. Its entry points are declared in quic_recovery.h. */
#include "quic_recovery.h"
#include "quic_recovery_loss.h"

/* What one ACK frame newly acknowledged. Window growth is summed here and
 * applied after loss detection, as RFC 9002 orders OnPacketsLost before
 * OnPacketsAcked: a loss found by this very ACK ends growth for packets
 * of the new recovery period. */
struct ack_batch {
	uint64_t largest_pn; /* newly acked, or PN_NONE */
	uint64_t largest_sent;
	uint64_t trim; /* highest ack_largest of acked packets, or PN_NONE */
	uint64_t grow_all;   /* in-flight bytes acknowledged */
	uint64_t grow_after; /* ... of packets sent after recovery start */
	uint32_t newly;
	uint8_t eliciting;
};

static void mark_acked(struct shb_quic_recovery *r, int space,
		       struct shb_quic_sent *p, struct ack_batch *b)
{
	struct shb_quic_pns_state *st = &r->s[space];

	p->state = SHB_QUIC_SENT_ACKED;
	if (p->flags & SHB_QUIC_SENT_IN_FLIGHT) {
		shb_quic_cc_on_removed(&r->cc, p->size);
		st->eliciting_in_flight--;
		p->flags &= (uint8_t)~SHB_QUIC_SENT_IN_FLIGHT;
		b->grow_all += p->size;
		if (!shb_quic_cc_in_recovery(&r->cc, p->time_sent))
			b->grow_after += p->size;
	}
	if (p->flags & SHB_QUIC_SENT_ACK_ELICITING)
		b->eliciting = 1;
	if (b->largest_pn == SHB_QUIC_PN_NONE || p->pn > b->largest_pn) {
		b->largest_pn = p->pn;
		b->largest_sent = p->time_sent;
	}
	if (p->ack_largest != SHB_QUIC_PN_NONE &&
	    (b->trim == SHB_QUIC_PN_NONE || p->ack_largest > b->trim))
		b->trim = p->ack_largest;
	b->newly++;
	r->stats.packets_acked++;
	if (r->cb.acked)
		r->cb.acked(r->cb.ctx, (enum shb_quic_pns)space, p,
			    shb_quic_sent_ring_refs(&st->sent, p));
}

static void ack_range(struct shb_quic_recovery *r, int space,
		      const struct shb_quic_ack_range *rg, struct ack_batch *b)
{
	struct shb_quic_sent_ring *g = &r->s[space].sent;
	uint32_t i = shb_quic_sent_ring_find(g, rg->hi);

	if (i == UINT32_MAX)
		return;
	for (;;) {
		struct shb_quic_sent *p = shb_quic_sent_ring_at(g, i);

		if (p->pn < rg->lo)
			break;
		if (p->state == SHB_QUIC_SENT_OUTSTANDING)
			mark_acked(r, space, p, b);
		if (i == 0)
			break;
		i--;
	}
}

/* Applies ranges while they are well-formed. Returns 0 or E_FRAME. */
static int ack_ranges(struct shb_quic_recovery *r, int space,
		      struct shb_quic_ack_range first, shb_quic_ack_next_fn next,
		      void *it, struct ack_batch *b)
{
	struct shb_quic_ack_range rg = first;

	for (;;) {
		uint64_t prev_lo = rg.lo;
		int rc;

		ack_range(r, space, &rg, b);
		rc = next(it, &rg);
		if (rc == 0)
			return 0;
		/* Each range lies below the previous one, with a gap. */
		if (rc < 0 || rg.lo > rg.hi || rg.hi + 1 >= prev_lo)
			return SHB_QUIC_RECOVERY_E_FRAME;
	}
}

static void take_rtt_sample(struct shb_quic_recovery *r, int space,
			    const struct ack_batch *b, uint64_t ack_delay,
			    uint64_t now)
{
	uint64_t latest = now > b->largest_sent ? now - b->largest_sent : 0;

	/* Initial ACKs are never delayed on purpose (RFC 9002 5.3). */
	if (space == SHB_QUIC_PNS_INITIAL)
		ack_delay = 0;
	shb_quic_rtt_sample(&r->rtt, latest, ack_delay,
			    r->confirmed ? r->peer_max_ack_delay
					 : SHB_QUIC_TIME_NONE,
			    now);
}

static void apply_growth(struct shb_quic_recovery *r,
			 const struct ack_batch *b,
			 const struct qr_loss_result *lr, uint64_t prior_in_flight)
{
	if (b->grow_all == 0)
		return;
	/* RFC 9002 7.8: a window the sender did not use says nothing about
	 * the path; growing it would only allow a later burst. */
	if (!r->pacing_limited &&
	    !shb_quic_cc_cwnd_limited(&r->cc, prior_in_flight)) {
		r->stats.app_limited_acks++;
		return;
	}
	/* Persistent congestion ends the recovery period, so every packet
	 * counts; a new period excludes every packet of this ACK. */
	if (lr->persistent)
		shb_quic_cc_grow(&r->cc, b->grow_all);
	else if (!lr->reduced)
		shb_quic_cc_grow(&r->cc, b->grow_after);
}

static void reset_backoff(struct shb_quic_recovery *r)
{
	r->pto_count = 0;
	for (int i = 0; i < SHB_QUIC_PNS_COUNT; i++)
		r->s[i].probes = 0;
}

int shb_quic_recovery_on_ack_iter(struct shb_quic_recovery *r,
				  enum shb_quic_pns space,
				  shb_quic_ack_next_fn next, void *it,
				  uint64_t ack_delay_ns, uint64_t now)
{
	struct ack_batch b = {.largest_pn = SHB_QUIC_PN_NONE,
			      .trim = SHB_QUIC_PN_NONE};
	struct shb_quic_ack_range first;
	struct qr_loss_result lr;
	uint64_t prior_in_flight = r->cc.bytes_in_flight;

	if (!shb_quic_pns_valid(space))
		return SHB_QUIC_RECOVERY_E_INVALID;
	struct shb_quic_pns_state *st = &r->s[space];

	if (st->discarded)
		return 0;
	if (next(it, &first) <= 0 || first.lo > first.hi)
		return SHB_QUIC_RECOVERY_E_FRAME;
	if (first.hi >= st->next_pn)
		return SHB_QUIC_RECOVERY_E_PROTOCOL;
	/* A new largest acknowledged is a packet newly acknowledged even
	 * when it has no record: a PING probe sent with a full ring. With
	 * nothing else acknowledged, ignoring it would leave a ring of lost
	 * packets undetected and full for good, each PTO sending PINGs the
	 * peer acknowledges. */
	int raised = st->largest_acked == SHB_QUIC_PN_NONE ||
		     first.hi > st->largest_acked;

	if (raised)
		st->largest_acked = first.hi;

	int err = ack_ranges(r, space, first, next, it, &b);

	shb_quic_sent_ring_pop_settled(&st->sent);
	if (b.newly == 0 && !raised)
		return err;
	if (b.largest_pn == first.hi && b.eliciting)
		take_rtt_sample(r, space, &b, ack_delay_ns, now);
	if (b.trim != SHB_QUIC_PN_NONE)
		shb_quic_ackrx_trim(&st->ackrx, b.trim);
	if (space == SHB_QUIC_PNS_HANDSHAKE)
		r->hs_acked = 1;
	qr_detect_lost(r, space, now, &lr);
	apply_growth(r, &b, &lr, prior_in_flight);
	if (qr_peer_validated(r))
		reset_backoff(r);
	qr_set_timer(r, now);
	return err ? err : (int)b.newly;
}

struct array_it {
	const struct shb_quic_ack_range *ranges;
	uint32_t n;
	uint32_t i;
};

static int array_next(void *p, struct shb_quic_ack_range *out)
{
	struct array_it *it = p;

	if (it->i == it->n)
		return 0;
	*out = it->ranges[it->i++];
	return 1;
}

int shb_quic_recovery_on_ack(struct shb_quic_recovery *r,
			     enum shb_quic_pns space,
			     const struct shb_quic_ack_range *ranges,
			     uint32_t n, uint64_t ack_delay_ns, uint64_t now)
{
	struct array_it it = {.ranges = ranges, .n = ranges ? n : 0};

	return shb_quic_recovery_on_ack_iter(r, space, array_next, &it,
					     ack_delay_ns, now);
}
