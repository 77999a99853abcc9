/* RFC 9002 loss detection and PTO over the three packet number spaces,
 * following the structure of its Appendix A (OnAckReceived,
 * DetectAndRemoveLostPackets, SetLossDetectionTimer, OnLossDetectionTimeout)
 * with the client-only simplifications described in quic_recovery.h.
 *
 * This file holds the life cycle, handshake progress, the receive-side
 * ACK state and what sending asks and records; the loss detection timer,
 * loss detection and the timeout are in quic_recovery_loss.c, ACK frames
 * received in quic_recovery_ack.c. */
#include <stdlib.h>
#include <string.h>

#include "quic_recovery.h"
#include "quic_recovery_loss.h"

#define DEFAULT_RING_HS 32u
#define DEFAULT_RING_APP 1024u

/* ---- lifecycle --------------------------------------------------------- */

static void config_defaults(struct shb_quic_recovery_config *c)
{
	for (int i = 0; i < SHB_QUIC_PNS_COUNT; i++) {
		if (c->ring_capacity[i] == 0)
			c->ring_capacity[i] = i == SHB_QUIC_PNS_APP
						      ? DEFAULT_RING_APP
						      : DEFAULT_RING_HS;
		if (c->ref_capacity[i] == 0)
			c->ref_capacity[i] = 2 * c->ring_capacity[i];
	}
}

/* Copies and checks the config; the ring memory it needs, or 0. */
static size_t setup(struct shb_quic_recovery *r,
		    const struct shb_quic_recovery_config *cfg,
		    const struct shb_quic_recovery_cbs *cbs)
{
	size_t recs = 0, refs = 0;

	memset(r, 0, sizeof(*r));
	if (cfg)
		r->cfg = *cfg;
	if (cbs)
		r->cb = *cbs;
	config_defaults(&r->cfg);
	if (r->cfg.ack_every > 255)
		return 0;
	for (int i = 0; i < SHB_QUIC_PNS_COUNT; i++) {
		if (r->cfg.ring_capacity[i] < SHB_QUIC_PROBE_RESERVE + 2 ||
		    r->cfg.ring_capacity[i] > (UINT32_C(1) << 24) ||
		    r->cfg.ref_capacity[i] > (UINT32_C(1) << 26))
			return 0;
		recs += r->cfg.ring_capacity[i];
		refs += r->cfg.ref_capacity[i];
	}
	return recs * sizeof(struct shb_quic_sent) +
	       refs * sizeof(struct shb_quic_frame_ref);
}

size_t shb_quic_recovery_mem_size(const struct shb_quic_recovery_config *cfg)
{
	struct shb_quic_recovery r;

	return setup(&r, cfg, NULL);
}

int shb_quic_recovery_init(struct shb_quic_recovery *r,
			   const struct shb_quic_recovery_config *cfg,
			   const struct shb_quic_recovery_cbs *cbs)
{
	size_t len = setup(r, cfg, cbs);

	if (!len)
		return SHB_QUIC_RECOVERY_E_INVALID;
	r->mem = calloc(1, len);
	if (!r->mem)
		return SHB_QUIC_RECOVERY_E_INVALID;
	r->own_mem = 1;
	shb_quic_recovery_reset(r);
	return SHB_QUIC_RECOVERY_OK;
}

int shb_quic_recovery_init_in(struct shb_quic_recovery *r,
			      const struct shb_quic_recovery_config *cfg,
			      const struct shb_quic_recovery_cbs *cbs,
			      void *mem, size_t len)
{
	size_t need = setup(r, cfg, cbs);

	if (!need || !mem || len < need)
		return SHB_QUIC_RECOVERY_E_INVALID;
	r->mem = mem;
	shb_quic_recovery_reset(r);
	return SHB_QUIC_RECOVERY_OK;
}

/* The space's ACK tracker, empty, with its policy. */
static void ackrx_init(struct shb_quic_recovery *r, int space)
{
	struct shb_quic_ackrx *a = &r->s[space].ackrx;

	shb_quic_ackrx_init(a);
	if (space == SHB_QUIC_PNS_APP && r->cfg.ack_every > 1 && r->cfg.ack_delay)
		shb_quic_ackrx_set_policy(a, r->cfg.ack_every, r->cfg.ack_delay);
}

void shb_quic_recovery_reset(struct shb_quic_recovery *r)
{
	struct shb_quic_sent *rec = r->mem;
	struct shb_quic_frame_ref *ref;
	size_t recs = 0;

	for (int i = 0; i < SHB_QUIC_PNS_COUNT; i++)
		recs += r->cfg.ring_capacity[i];
	ref = (struct shb_quic_frame_ref *)(rec + recs);
	for (int i = 0; i < SHB_QUIC_PNS_COUNT; i++) {
		struct shb_quic_pns_state *st = &r->s[i];

		memset(st, 0, sizeof(*st));
		ackrx_init(r, i);
		shb_quic_sent_ring_init(&st->sent, rec, r->cfg.ring_capacity[i],
					ref, r->cfg.ref_capacity[i]);
		rec += r->cfg.ring_capacity[i];
		ref += r->cfg.ref_capacity[i];
		st->largest_acked = SHB_QUIC_PN_NONE;
		st->loss_time = SHB_QUIC_TIME_NONE;
		st->last_eliciting = SHB_QUIC_TIME_NONE;
	}
	shb_quic_rtt_init(&r->rtt, r->cfg.initial_rtt);
	shb_quic_cc_init(&r->cc, r->cfg.initial_window, r->cfg.max_datagram);
	/* Bursts of the RFC's initial window (RFC 9002 7.7) whatever window
	 * the connection starts with; more only where 1 ms at the pacing
	 * rate is more (quic_pacer.h). */
	shb_quic_pacer_init(&r->pacer, shb_quic_cc_rfc_window(r->cc.max_datagram),
			    r->cc.max_datagram, !r->cfg.no_pacing);
	memset(&r->stats, 0, sizeof(r->stats));
	r->timer = SHB_QUIC_TIME_NONE;
	r->peer_max_ack_delay = SHB_QUIC_DEFAULT_MAX_ACK_DELAY;
	r->pto_count = 0;
	r->has_hs_keys = 0;
	r->hs_acked = 0;
	r->confirmed = 0;
	r->pacing_limited = 0;
}

void shb_quic_recovery_free(struct shb_quic_recovery *r)
{
	if (r->own_mem)
		free(r->mem);
	r->mem = NULL;
	r->own_mem = 0;
}

/* ---- handshake progress ------------------------------------------------ */

void shb_quic_recovery_set_peer_max_ack_delay(struct shb_quic_recovery *r,
					      uint64_t ns)
{
	r->peer_max_ack_delay = ns;
}

void shb_quic_recovery_handshake_keys(struct shb_quic_recovery *r)
{
	r->has_hs_keys = 1;
}

void shb_quic_recovery_handshake_confirmed(struct shb_quic_recovery *r,
					   uint64_t now)
{
	r->confirmed = 1;
	qr_set_timer(r, now);
}

void shb_quic_recovery_discard(struct shb_quic_recovery *r,
			       enum shb_quic_pns space, uint64_t now)
{
	if (!shb_quic_pns_valid(space) || r->s[space].discarded)
		return;
	struct shb_quic_pns_state *st = &r->s[space];

	for (uint32_t i = 0; i < shb_quic_sent_ring_count(&st->sent); i++) {
		const struct shb_quic_sent *p =
			shb_quic_sent_ring_at(&st->sent, i);

		if (p->flags & SHB_QUIC_SENT_IN_FLIGHT)
			shb_quic_cc_on_removed(&r->cc, p->size);
	}
	shb_quic_sent_ring_clear(&st->sent);
	shb_quic_ackrx_init(&st->ackrx);
	st->loss_time = SHB_QUIC_TIME_NONE;
	st->last_eliciting = SHB_QUIC_TIME_NONE;
	st->eliciting_in_flight = 0;
	st->probes = 0;
	st->discarded = 1;
	r->pto_count = 0;
	qr_set_timer(r, now);
}

/* ---- receiving --------------------------------------------------------- */

int shb_quic_recovery_on_received(struct shb_quic_recovery *r,
				  enum shb_quic_pns space, uint64_t pn,
				  int ack_eliciting, uint64_t now)
{
	if (!shb_quic_pns_valid(space) || r->s[space].discarded)
		return SHB_QUIC_ACKRX_DUPLICATE;
	return shb_quic_ackrx_on_packet(&r->s[space].ackrx, pn, ack_eliciting,
					now);
}

uint64_t shb_quic_recovery_largest_received(const struct shb_quic_recovery *r,
					    enum shb_quic_pns space)
{
	if (!shb_quic_pns_valid(space))
		return SHB_QUIC_PN_NONE;
	return shb_quic_ackrx_largest(&r->s[space].ackrx);
}

uint64_t shb_quic_recovery_ack_deadline(const struct shb_quic_recovery *r)
{
	uint64_t d = SHB_QUIC_TIME_NONE;

	for (int i = 0; i < SHB_QUIC_PNS_COUNT; i++) {
		uint64_t t = r->s[i].discarded ? SHB_QUIC_TIME_NONE
					       : shb_quic_ackrx_deadline(&r->s[i].ackrx);
		if (t < d)
			d = t;
	}
	return d;
}

void shb_quic_recovery_ack_timer(struct shb_quic_recovery *r, uint64_t now)
{
	for (int i = 0; i < SHB_QUIC_PNS_COUNT; i++)
		if (!r->s[i].discarded)
			shb_quic_ackrx_on_timer(&r->s[i].ackrx, now);
}

int shb_quic_recovery_ack_owed(const struct shb_quic_recovery *r,
			       enum shb_quic_pns space)
{
	return shb_quic_pns_valid(space) && shb_quic_ackrx_owed(&r->s[space].ackrx);
}

int shb_quic_recovery_ack_pending(const struct shb_quic_recovery *r,
				  enum shb_quic_pns space)
{
	return shb_quic_pns_valid(space) && shb_quic_ackrx_pending(&r->s[space].ackrx);
}

int shb_quic_recovery_ack_view(const struct shb_quic_recovery *r,
			       enum shb_quic_pns space, uint64_t now,
			       struct shb_quic_ack_view *out)
{
	if (!shb_quic_pns_valid(space) || r->s[space].discarded)
		return -1;
	return shb_quic_ackrx_view(&r->s[space].ackrx, now, out);
}

/* ---- sending ----------------------------------------------------------- */

uint64_t shb_quic_recovery_next_pn(const struct shb_quic_recovery *r,
				   enum shb_quic_pns space)
{
	return shb_quic_pns_valid(space) ? r->s[space].next_pn : 0;
}

uint64_t shb_quic_recovery_largest_acked(const struct shb_quic_recovery *r,
					 enum shb_quic_pns space)
{
	return shb_quic_pns_valid(space) ? r->s[space].largest_acked
				  : SHB_QUIC_PN_NONE;
}

enum shb_quic_send_verdict
shb_quic_recovery_can_send(const struct shb_quic_recovery *r,
			   enum shb_quic_pns space, uint64_t bytes,
			   uint32_t *max_refs)
{
	if (max_refs)
		*max_refs = 0;
	if (!shb_quic_pns_valid(space) || r->s[space].discarded)
		return SHB_QUIC_SEND_DISCARDED;
	const struct shb_quic_pns_state *st = &r->s[space];

	/* A probe always goes out, if need be as an unrecorded PING (no
	 * references): a PTO that cannot probe could only wait for the idle
	 * timeout. */
	if (st->probes > 0) {
		shb_quic_sent_ring_fits(&st->sent, 0, max_refs);
		return SHB_QUIC_SEND_PROBE;
	}
	if (!shb_quic_sent_ring_fits(&st->sent, SHB_QUIC_PROBE_RESERVE,
				     max_refs))
		return SHB_QUIC_SEND_RING_FULL;
	if (!shb_quic_cc_can_send(&r->cc, bytes)) {
		if (max_refs)
			*max_refs = 0;
		return SHB_QUIC_SEND_CWND;
	}
	return SHB_QUIC_SEND_OK;
}

static struct shb_quic_pace_rate pace_rate(const struct shb_quic_recovery *r)
{
	return shb_quic_pacer_rate(r->cc.cwnd, r->rtt.smoothed,
				   r->cc.cwnd < r->cc.ssthresh);
}

void shb_quic_recovery_set_pacing_limited(struct shb_quic_recovery *r,
					  int limited)
{
	r->pacing_limited = limited != 0;
}

uint64_t shb_quic_recovery_pacer_time(const struct shb_quic_recovery *r)
{
	return shb_quic_pacer_next(&r->pacer, pace_rate(r));
}

enum shb_quic_send_verdict
shb_quic_recovery_can_send_at(const struct shb_quic_recovery *r,
			      enum shb_quic_pns space, uint64_t bytes,
			      uint32_t *max_refs, uint64_t now)
{
	enum shb_quic_send_verdict v =
		shb_quic_recovery_can_send(r, space, bytes, max_refs);

	if (v != SHB_QUIC_SEND_OK || shb_quic_recovery_pacer_time(r) <= now)
		return v;
	if (max_refs)
		*max_refs = 0;
	return SHB_QUIC_SEND_PACED;
}

/* Records one packet; reserve = ring slots to leave free. */
static struct shb_quic_sent *record(struct shb_quic_pns_state *st,
				    const struct shb_quic_sent *tmpl,
				    const struct shb_quic_frame_ref *refs,
				    uint32_t reserve)
{
	uint32_t max;

	if (!shb_quic_sent_ring_fits(&st->sent, reserve, &max) ||
	    tmpl->nrefs > max)
		return NULL;
	return shb_quic_sent_ring_push(&st->sent, tmpl, refs);
}

int shb_quic_recovery_on_sent(struct shb_quic_recovery *r,
			      enum shb_quic_pns space,
			      const struct shb_quic_sent_desc *desc,
			      const struct shb_quic_frame_ref *refs,
			      uint32_t nrefs, uint64_t now)
{
	if (!shb_quic_pns_valid(space))
		return SHB_QUIC_RECOVERY_E_INVALID;
	struct shb_quic_pns_state *st = &r->s[space];
	struct shb_quic_sent p = {
		.pn = st->next_pn++,
		.time_sent = now,
		.tag = desc->tag,
		.ack_largest = desc->ack_largest,
		.size = desc->size,
		.nrefs = (uint16_t)nrefs,
	};

	if (st->discarded || (nrefs > 0 && !refs))
		return SHB_QUIC_RECOVERY_E_INVALID;
	r->stats.packets_sent++;
	if (desc->ack_largest != SHB_QUIC_PN_NONE)
		shb_quic_ackrx_on_ack_sent(&st->ackrx);
	if (!desc->ack_eliciting) {
		/* ACK-only packets leave the probe reserve alone too. */
		if (nrefs > UINT16_MAX ||
		    !record(st, &p, refs, SHB_QUIC_PROBE_RESERVE))
			return SHB_QUIC_RECOVERY_NOT_RECORDED;
		return SHB_QUIC_RECOVERY_OK;
	}
	p.flags = SHB_QUIC_SENT_ACK_ELICITING | SHB_QUIC_SENT_IN_FLIGHT;
	int rc = SHB_QUIC_RECOVERY_OK;

	if (nrefs > UINT16_MAX ||
	    !record(st, &p, refs,
		    st->probes > 0 ? 0 : SHB_QUIC_PROBE_RESERVE)) {
		if (st->probes == 0 || nrefs > 0)
			return SHB_QUIC_RECOVERY_E_FULL;
		/* A PING probe with a full ring: counted as sent for the PTO
		 * (its ACK will acknowledge older packets too), not tracked. */
		rc = SHB_QUIC_RECOVERY_NOT_RECORDED;
	} else {
		shb_quic_cc_on_sent(&r->cc, p.size);
		st->eliciting_in_flight++;
	}
	shb_quic_pacer_on_sent(&r->pacer, p.size, now, pace_rate(r));
	st->last_eliciting = now;
	if (st->probes > 0)
		st->probes--;
	qr_set_timer(r, now);
	return rc;
}

uint32_t shb_quic_recovery_probes(const struct shb_quic_recovery *r,
				  enum shb_quic_pns space)
{
	return shb_quic_pns_valid(space) ? r->s[space].probes : 0;
}

void shb_quic_recovery_foreach_outstanding(const struct shb_quic_recovery *r,
					   enum shb_quic_pns space,
					   shb_quic_sent_cb fn, void *ctx)
{
	if (!shb_quic_pns_valid(space))
		return;
	const struct shb_quic_sent_ring *g = &r->s[space].sent;

	for (uint32_t i = 0; i < shb_quic_sent_ring_count(g); i++) {
		const struct shb_quic_sent *p = shb_quic_sent_ring_at(g, i);

		if (p->state == SHB_QUIC_SENT_OUTSTANDING &&
		    (p->flags & SHB_QUIC_SENT_ACK_ELICITING))
			fn(ctx, space, p, shb_quic_sent_ring_refs(g, p));
	}
}

/* ---- state ------------------------------------------------------------- */

const struct shb_quic_rtt *
shb_quic_recovery_rtt(const struct shb_quic_recovery *r)
{
	return &r->rtt;
}

const struct shb_quic_cc *
shb_quic_recovery_cc(const struct shb_quic_recovery *r)
{
	return &r->cc;
}

const struct shb_quic_recovery_stats *
shb_quic_recovery_stats(const struct shb_quic_recovery *r)
{
	return &r->stats;
}

uint32_t shb_quic_recovery_pto_count(const struct shb_quic_recovery *r)
{
	return r->pto_count;
}

uint32_t shb_quic_recovery_ring_count(const struct shb_quic_recovery *r,
				      enum shb_quic_pns space)
{
	return shb_quic_pns_valid(space) ? shb_quic_sent_ring_count(&r->s[space].sent)
				  : 0;
}
