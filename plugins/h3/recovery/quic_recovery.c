/* RFC 9002 loss detection and PTO over the three packet number spaces,
 * following the structure of its Appendix A (OnAckReceived,
 * DetectAndRemoveLostPackets, SetLossDetectionTimer, OnLossDetectionTimeout)
 * with the client-only simplifications described in quic_recovery.h. */
#include <stdlib.h>
#include <string.h>

#include "quic_recovery.h"

#define DEFAULT_RING_HS 32u
#define DEFAULT_RING_APP 1024u
#define PERSISTENT_THRESHOLD 3u
#define MAX_BACKOFF_SHIFT 30u

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t backoff(uint64_t d, uint32_t count)
{
	uint32_t shift = count > MAX_BACKOFF_SHIFT ? MAX_BACKOFF_SHIFT : count;

	return d > (UINT64_MAX >> shift) ? UINT64_MAX : d << shift;
}

static int valid_space(int space)
{
	return space >= 0 && space < SHB_QUIC_PNS_COUNT;
}

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

/* ---- timer ------------------------------------------------------------- */

static uint32_t eliciting_in_flight(const struct shb_quic_recovery *r)
{
	uint32_t n = 0;

	for (int i = 0; i < SHB_QUIC_PNS_COUNT; i++)
		n += r->s[i].eliciting_in_flight;
	return n;
}

/* The client may stop arming the PTO when idle only once the server has
 * shown it validated our address (RFC 9002 6.2.2.1). */
static int peer_validated(const struct shb_quic_recovery *r)
{
	return r->hs_acked || r->confirmed;
}

/* Where an anti-deadlock probe goes, or SHB_QUIC_PNS_COUNT for nowhere. */
static int anti_deadlock_space(const struct shb_quic_recovery *r)
{
	if (r->has_hs_keys && !r->s[SHB_QUIC_PNS_HANDSHAKE].discarded)
		return SHB_QUIC_PNS_HANDSHAKE;
	if (!r->s[SHB_QUIC_PNS_INITIAL].discarded)
		return SHB_QUIC_PNS_INITIAL;
	return SHB_QUIC_PNS_COUNT;
}

uint64_t shb_quic_recovery_pto_period(const struct shb_quic_recovery *r,
				      enum shb_quic_pns space)
{
	uint64_t d = backoff(shb_quic_rtt_pto_base(&r->rtt), r->pto_count);

	if (space == SHB_QUIC_PNS_APP)
		d = sat_add(d, backoff(r->peer_max_ack_delay, r->pto_count));
	return d;
}

/* RFC 9002 GetPtoTimeAndSpace. */
static uint64_t pto_time(const struct shb_quic_recovery *r, uint64_t now,
			 int *space)
{
	uint64_t best = SHB_QUIC_TIME_NONE;

	*space = SHB_QUIC_PNS_COUNT;
	if (eliciting_in_flight(r) == 0) {
		*space = anti_deadlock_space(r);
		if (*space == SHB_QUIC_PNS_COUNT)
			return SHB_QUIC_TIME_NONE;
		return sat_add(now, shb_quic_recovery_pto_period(r, *space));
	}
	for (int i = 0; i < SHB_QUIC_PNS_COUNT; i++) {
		const struct shb_quic_pns_state *st = &r->s[i];

		if (st->discarded || st->eliciting_in_flight == 0)
			continue;
		if (i == SHB_QUIC_PNS_APP && !r->confirmed)
			break;
		uint64_t t = sat_add(st->last_eliciting,
				     shb_quic_recovery_pto_period(r, i));

		if (t < best) {
			best = t;
			*space = i;
		}
	}
	return best;
}

static uint64_t earliest_loss_time(const struct shb_quic_recovery *r,
				   int *space)
{
	uint64_t best = SHB_QUIC_TIME_NONE;

	*space = SHB_QUIC_PNS_COUNT;
	for (int i = 0; i < SHB_QUIC_PNS_COUNT; i++) {
		if (r->s[i].loss_time < best) {
			best = r->s[i].loss_time;
			*space = i;
		}
	}
	return best;
}

/* RFC 9002 SetLossDetectionTimer. The deadline is stored, not recomputed
 * on demand, because the anti-deadlock PTO counts from when it was armed. */
static void set_timer(struct shb_quic_recovery *r, uint64_t now)
{
	int space;
	uint64_t t = earliest_loss_time(r, &space);

	if (t != SHB_QUIC_TIME_NONE) {
		r->timer = t;
		return;
	}
	if (eliciting_in_flight(r) == 0 && peer_validated(r)) {
		r->timer = SHB_QUIC_TIME_NONE;
		return;
	}
	r->timer = pto_time(r, now, &space);
}

/* ---- loss detection ---------------------------------------------------- */

struct loss_result {
	uint32_t lost;
	uint8_t reduced;    /* a new recovery period started */
	uint8_t persistent; /* persistent congestion established */
};

static void declare_lost(struct shb_quic_recovery *r, int space,
			 struct shb_quic_sent *p)
{
	struct shb_quic_pns_state *st = &r->s[space];

	p->state = SHB_QUIC_SENT_LOST;
	if (p->flags & SHB_QUIC_SENT_IN_FLIGHT) {
		shb_quic_cc_on_removed(&r->cc, p->size);
		st->eliciting_in_flight--;
		p->flags &= (uint8_t)~SHB_QUIC_SENT_IN_FLIGHT;
	}
	r->stats.packets_lost++;
	if (r->cb.lost)
		r->cb.lost(r->cb.ctx, (enum shb_quic_pns)space, p,
			   shb_quic_sent_ring_refs(&st->sent, p));
}

static uint64_t persistent_duration(const struct shb_quic_recovery *r)
{
	uint64_t d = sat_add(shb_quic_rtt_pto_base(&r->rtt),
			     r->peer_max_ack_delay);

	return d > UINT64_MAX / PERSISTENT_THRESHOLD
		       ? UINT64_MAX
		       : d * PERSISTENT_THRESHOLD;
}

static int is_lost(const struct shb_quic_pns_state *st,
		   const struct shb_quic_sent *p, uint64_t delay, uint64_t now)
{
	return sat_add(p->time_sent, delay) <= now ||
	       st->largest_acked - p->pn >= SHB_QUIC_PACKET_THRESHOLD;
}

/* Tracks a run of lost packets with nothing acknowledged in between for
 * persistent congestion: only ack-eliciting packets sent after the first
 * RTT sample open or extend it (RFC 9002 7.6.2). */
struct pc_run {
	uint64_t first_sent;
	uint64_t duration;
	uint8_t open;
	uint8_t established;
};

static void pc_lost(struct pc_run *run, const struct shb_quic_rtt *rtt,
		    const struct shb_quic_sent *p)
{
	if (!(p->flags & SHB_QUIC_SENT_ACK_ELICITING) ||
	    !shb_quic_rtt_has_sample(rtt) ||
	    p->time_sent <= rtt->first_sample_time)
		return;
	if (!run->open) {
		run->open = 1;
		run->first_sent = p->time_sent;
	} else if (p->time_sent > run->first_sent &&
		   p->time_sent - run->first_sent > run->duration) {
		run->established = 1;
	}
}

/* RFC 9002 DetectAndRemoveLostPackets + OnPacketsLost for one space. */
static void detect_lost(struct shb_quic_recovery *r, int space, uint64_t now,
			struct loss_result *res)
{
	struct shb_quic_pns_state *st = &r->s[space];
	uint64_t delay = shb_quic_rtt_loss_delay(&r->rtt);
	struct pc_run run = {.duration = persistent_duration(r)};
	uint64_t newest_sent = 0;
	int any_in_flight = 0;

	memset(res, 0, sizeof(*res));
	st->loss_time = SHB_QUIC_TIME_NONE;
	if (st->largest_acked == SHB_QUIC_PN_NONE)
		return;
	for (uint32_t i = 0; i < shb_quic_sent_ring_count(&st->sent); i++) {
		struct shb_quic_sent *p = shb_quic_sent_ring_at(&st->sent, i);

		if (p->pn > st->largest_acked)
			break;
		if (p->state == SHB_QUIC_SENT_ACKED) {
			run.open = 0;
			continue;
		}
		if (p->state == SHB_QUIC_SENT_LOST)
			continue;
		if (!is_lost(st, p, delay, now)) {
			uint64_t t = sat_add(p->time_sent, delay);

			run.open = 0;
			if (t < st->loss_time)
				st->loss_time = t;
			continue;
		}
		if (p->flags & SHB_QUIC_SENT_IN_FLIGHT) {
			any_in_flight = 1;
			if (p->time_sent > newest_sent)
				newest_sent = p->time_sent;
		}
		pc_lost(&run, &r->rtt, p);
		declare_lost(r, space, p);
		res->lost++;
	}
	shb_quic_sent_ring_pop_settled(&st->sent);
	if (any_in_flight && shb_quic_cc_on_congestion(&r->cc, newest_sent, now)) {
		res->reduced = 1;
		r->stats.congestion_events++;
	}
	if (run.established) {
		res->persistent = 1;
		shb_quic_cc_on_persistent(&r->cc);
		r->stats.persistent_congestion++;
	}
}

/* ---- ACK frames received ----------------------------------------------- */

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
			 const struct loss_result *lr, uint64_t prior_in_flight)
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
	struct loss_result lr;
	uint64_t prior_in_flight = r->cc.bytes_in_flight;

	if (!valid_space(space))
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
	detect_lost(r, space, now, &lr);
	apply_growth(r, &b, &lr, prior_in_flight);
	if (peer_validated(r))
		reset_backoff(r);
	set_timer(r, now);
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

/* ---- timeout ----------------------------------------------------------- */

uint64_t shb_quic_recovery_deadline(const struct shb_quic_recovery *r)
{
	return r->timer;
}

/* RFC 9002 OnLossDetectionTimeout. */
int shb_quic_recovery_on_timeout(struct shb_quic_recovery *r, uint64_t now,
				 struct shb_quic_timeout *out)
{
	int space;

	memset(out, 0, sizeof(*out));
	if (r->timer == SHB_QUIC_TIME_NONE || now < r->timer)
		return SHB_QUIC_TIMEOUT_NONE;
	if (earliest_loss_time(r, &space) != SHB_QUIC_TIME_NONE) {
		struct loss_result lr;

		detect_lost(r, space, now, &lr);
		set_timer(r, now);
		out->kind = SHB_QUIC_TIMEOUT_LOSS;
		out->space = (uint32_t)space;
		out->lost = lr.lost;
		return SHB_QUIC_TIMEOUT_LOSS;
	}
	uint32_t probes = eliciting_in_flight(r) == 0 ? 1 : 2;

	pto_time(r, now, &space);
	if (space == SHB_QUIC_PNS_COUNT) {
		r->timer = SHB_QUIC_TIME_NONE; /* nothing left to probe */
		return SHB_QUIC_TIMEOUT_NONE;
	}
	r->s[space].probes = probes;
	r->pto_count++;
	r->stats.pto_fired++;
	set_timer(r, now);
	out->kind = SHB_QUIC_TIMEOUT_PTO;
	out->space = (uint32_t)space;
	out->probes = probes;
	return SHB_QUIC_TIMEOUT_PTO;
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
	set_timer(r, now);
}

void shb_quic_recovery_discard(struct shb_quic_recovery *r,
			       enum shb_quic_pns space, uint64_t now)
{
	if (!valid_space(space) || r->s[space].discarded)
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
	set_timer(r, now);
}

/* ---- receiving --------------------------------------------------------- */

int shb_quic_recovery_on_received(struct shb_quic_recovery *r,
				  enum shb_quic_pns space, uint64_t pn,
				  int ack_eliciting, uint64_t now)
{
	if (!valid_space(space) || r->s[space].discarded)
		return SHB_QUIC_ACKRX_DUPLICATE;
	return shb_quic_ackrx_on_packet(&r->s[space].ackrx, pn, ack_eliciting,
					now);
}

uint64_t shb_quic_recovery_largest_received(const struct shb_quic_recovery *r,
					    enum shb_quic_pns space)
{
	if (!valid_space(space))
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
	return valid_space(space) && shb_quic_ackrx_owed(&r->s[space].ackrx);
}

int shb_quic_recovery_ack_pending(const struct shb_quic_recovery *r,
				  enum shb_quic_pns space)
{
	return valid_space(space) && shb_quic_ackrx_pending(&r->s[space].ackrx);
}

int shb_quic_recovery_ack_view(const struct shb_quic_recovery *r,
			       enum shb_quic_pns space, uint64_t now,
			       struct shb_quic_ack_view *out)
{
	if (!valid_space(space) || r->s[space].discarded)
		return -1;
	return shb_quic_ackrx_view(&r->s[space].ackrx, now, out);
}

/* ---- sending ----------------------------------------------------------- */

uint64_t shb_quic_recovery_next_pn(const struct shb_quic_recovery *r,
				   enum shb_quic_pns space)
{
	return valid_space(space) ? r->s[space].next_pn : 0;
}

uint64_t shb_quic_recovery_largest_acked(const struct shb_quic_recovery *r,
					 enum shb_quic_pns space)
{
	return valid_space(space) ? r->s[space].largest_acked
				  : SHB_QUIC_PN_NONE;
}

enum shb_quic_send_verdict
shb_quic_recovery_can_send(const struct shb_quic_recovery *r,
			   enum shb_quic_pns space, uint64_t bytes,
			   uint32_t *max_refs)
{
	if (max_refs)
		*max_refs = 0;
	if (!valid_space(space) || r->s[space].discarded)
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
	if (!valid_space(space))
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
	set_timer(r, now);
	return rc;
}

uint32_t shb_quic_recovery_probes(const struct shb_quic_recovery *r,
				  enum shb_quic_pns space)
{
	return valid_space(space) ? r->s[space].probes : 0;
}

void shb_quic_recovery_foreach_outstanding(const struct shb_quic_recovery *r,
					   enum shb_quic_pns space,
					   shb_quic_sent_cb fn, void *ctx)
{
	if (!valid_space(space))
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
	return valid_space(space) ? shb_quic_sent_ring_count(&r->s[space].sent)
				  : 0;
}
