/* The QUIC client connection's timers: the idle timeout, keep-alive
 * PINGs while a response is owed, the handshake deadline and the
 * recovery timers, behind shb_quic_conn_deadline() and
 * shb_quic_conn_on_timeout(). See quic_conn.h. */
#include "quic_conn_int.h"

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The current PTO, smoothed RTT + 4 rttvar + max_ack_delay, without the
 * probes' exponential backoff. */
static uint64_t pto_unbacked(const struct shb_quic_conn *c)
{
	return add_sat(shb_quic_rtt_pto_base(shb_quic_recovery_rtt(&c->rec)),
		       c->rec.peer_max_ack_delay);
}

/* The idle period with its floor of three PTOs (RFC 9000 10.1), PTOs
 * without the backoff, as ngtcp2 and quic-go compute it. With the backoff
 * the floor grew with every probe on a dead path (each one doubling it),
 * and the deadline, recomputed after each, kept moving away: 81 s
 * instead of 30 s, or never. */
static uint64_t idle_period(const struct shb_quic_conn *c)
{
	uint64_t pto = pto_unbacked(c);
	uint64_t floor = pto > UINT64_MAX / 3 ? UINT64_MAX : 3 * pto;

	return c->idle_timeout > floor ? c->idle_timeout : floor;
}

/* The longest a connection that owes a response goes without sending an
 * ack-eliciting packet while the last ones are unanswered, as a share of
 * the idle period: a sixteenth, 1.9 s of 30 s. */
#define QC_LIVENESS_SHARE 16u

/* A PING (RFC 9000 10.1.2: to test liveness) once the application
 * space's last ack-eliciting packet went unanswered for that gap, or for
 * one PTO when that is longer (never more often than the probes would
 * go). The probes' own backoff is left as it is; alone, on a path that
 * loses most datagrams (a server's socket overflowing under load: half
 * of them at times, on loopback), it left a connection silent for
 * seconds, then for longer than its idle timeout, with the path working
 * much of that time. The floor was four PTOs once: against such a server
 * the RTT (its queue) and its variance grow, a PTO reached 1.2 s, and
 * connections probing only every 5 s still timed out when seven probes
 * in a row were dropped. Costs at most one small datagram per gap and
 * connection, only while nothing is heard. */
static uint64_t liveness_at(const struct shb_quic_conn *c)
{
	const struct shb_quic_pns_state *st = &c->rec.s[SHB_QUIC_PNS_APP];
	uint64_t gap = idle_period(c) / QC_LIVENESS_SHARE;
	uint64_t pto = pto_unbacked(c);

	if (st->eliciting_in_flight == 0 ||
	    st->last_eliciting == SHB_QUIC_TIME_NONE)
		return QC_NONE;
	return add_sat(st->last_eliciting, gap > pto ? gap : pto);
}

/* While a request stream awaits its response: a PING at half the idle
 * period of quiet (a server slow to answer), and the liveness PING. */
static uint64_t keepalive_at(const struct shb_quic_conn *c)
{
	if (!c->hs_done || c->ping_pending || !qc_streams_awaiting(c))
		return QC_NONE;
	uint64_t from = c->last_rx > c->ka_sent ? c->last_rx : c->ka_sent;

	return min_u64(add_sat(from, idle_period(c) / 2), liveness_at(c));
}

uint64_t shb_quic_conn_deadline(const struct shb_quic_conn *c)
{
	if (!c || qc_ended(c))
		return QC_NONE;
	uint64_t d = shb_quic_recovery_deadline(&c->rec);

	d = min_u64(d, shb_quic_recovery_ack_deadline(&c->rec));
	d = min_u64(d, c->hs_done ? QC_NONE : c->hs_deadline);
	d = min_u64(d, add_sat(c->idle_start, idle_period(c)));
	d = min_u64(d, keepalive_at(c));
	/* Data held back by the pacer: the owner's timer brings us back. */
	d = min_u64(d, qc_tx_paced_until(c));
	return d;
}

static void on_recovery_timeout(struct shb_quic_conn *c, uint64_t now)
{
	struct shb_quic_timeout t;

	if (shb_quic_recovery_on_timeout(&c->rec, now, &t) !=
	    SHB_QUIC_TIMEOUT_PTO)
		return;
	c->stats.pto_count++;
	qc_log(c, "PTO in space %u, %u probes", t.space, t.probes);
	/* Resend the space's handshake bytes: the server may never have
	 * received them, and a PING alone could not make up for that. */
	if (t.space != QC_APP) {
		struct qc_csend *cs = &c->sp[t.space].cs;

		cs->next = cs->acked;
	} else {
		qc_probe_fill(c, t.probes);
	}
}

int shb_quic_conn_on_timeout(struct shb_quic_conn *c, uint64_t now)
{
	if (!c)
		return SHB_QUIC_CONN_E_INVAL;
	if (qc_ended(c))
		return SHB_QUIC_CONN_E_CLOSED;
	c->now = now;
	if (!c->hs_done && c->hs_deadline != QC_NONE && now >= c->hs_deadline) {
		qc_terminate(c, SHB_QUIC_CLOSE_HANDSHAKE_TIMEOUT, 0, 0, 0,
			     (const uint8_t *)"handshake timeout", 17);
		return SHB_QUIC_CONN_E_CLOSED;
	}
	if (now >= add_sat(c->idle_start, idle_period(c))) {
		qc_terminate(c, SHB_QUIC_CLOSE_IDLE, 0, 0, 0,
			     (const uint8_t *)"idle timeout", 12);
		return SHB_QUIC_CONN_E_CLOSED;
	}
	if (now >= shb_quic_recovery_deadline(&c->rec))
		on_recovery_timeout(c, now);
	shb_quic_recovery_ack_timer(&c->rec, now);
	if (now >= keepalive_at(c)) {
		c->ping_pending = 1;
		c->ka_sent = now;
	}
	return qc_after_call(c);
}

uint64_t shb_quic_conn_idle_timeout(const struct shb_quic_conn *c)
{
	return idle_period(c);
}
