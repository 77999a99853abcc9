/* The loss detection timer, loss detection and the timeout of RFC 9002
 * (SetLossDetectionTimer, DetectAndRemoveLostPackets with OnPacketsLost,
 * OnLossDetectionTimeout), with the PTO period and the anti-deadlock
 * probe of a client (quic_recovery.h lists the rules). Separate from
 * quic_recovery.c, which keeps the life cycle and what sending and
 * receiving ask: this is the part that decides when a packet is lost and
 * when to probe, and the ACK processing (quic_recovery_ack.c) and the
 * rest of the recovery part call into it through quic_recovery_loss.h. */
#include <string.h>

#include "quic_recovery.h"
#include "quic_recovery_loss.h"

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
int qr_peer_validated(const struct shb_quic_recovery *r)
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
void qr_set_timer(struct shb_quic_recovery *r, uint64_t now)
{
	int space;
	uint64_t t = earliest_loss_time(r, &space);

	if (t != SHB_QUIC_TIME_NONE) {
		r->timer = t;
		return;
	}
	if (eliciting_in_flight(r) == 0 && qr_peer_validated(r)) {
		r->timer = SHB_QUIC_TIME_NONE;
		return;
	}
	r->timer = pto_time(r, now, &space);
}

/* ---- loss detection ---------------------------------------------------- */

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
void qr_detect_lost(struct shb_quic_recovery *r, int space, uint64_t now,
		    struct qr_loss_result *res)
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
		struct qr_loss_result lr;

		qr_detect_lost(r, space, now, &lr);
		qr_set_timer(r, now);
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
	qr_set_timer(r, now);
	out->kind = SHB_QUIC_TIMEOUT_PTO;
	out->space = (uint32_t)space;
	out->probes = probes;
	return SHB_QUIC_TIMEOUT_PTO;
}
