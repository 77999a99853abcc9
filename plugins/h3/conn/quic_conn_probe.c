/* What a PTO probe carries in the application space (RFC 9002 6.2.4):
 * new data if there is any (the send queue, pending control frames), else
 * the frames of the oldest unacknowledged packets again, a PING only when
 * none of them carried any.
 *
 * A PING alone, when the packet it stands for was lost (a request on a
 * connection with nothing else to say), brought back an ACK, then a loss
 * and only then the resend: a round trip and a loss timer more, after a
 * PTO that has been doubling. The frames are put back in the send queues
 * as a loss would put them (stream ranges, control frames pending again),
 * with two differences: the packet is not lost, so its references stay
 * counted in flight; and should it be declared lost later, its frames are
 * not queued a second time, since the copy queued here went out in a
 * packet of its own whose fate recovery tracks.
 *
 * A request stream's data is put back only while the stream awaits its
 * response: once the response ended the server had the request, and as
 * request streams keep no acknowledged ranges, every copy in flight would
 * hold the stream's slot until acknowledged or lost, which on a quiet
 * connection the PTO backoff decides, seconds later. */
#include "quic_conn_int.h"

static bool counted_in_flight(const struct shb_quic_frame_ref *r)
{
	return r->kind == QC_REF_STREAM || r->kind == QC_REF_RESET_STREAM;
}

struct probe_fill {
	struct shb_quic_conn *c;
	uint32_t left; /* packets still to requeue */
};

static void remember(struct shb_quic_conn *c, uint64_t pn)
{
	for (unsigned i = 0; i < QC_PROBED; i++)
		if (c->probed[i] == pn + 1)
			return;
	c->probed[c->probed_next] = pn + 1;
	c->probed_next = (uint8_t)((c->probed_next + 1) % QC_PROBED);
}

/* Requeues one outstanding packet's frames (request data only while its
 * response is awaited, see above); the streams' `inflight`
 * counts are put back, since the references are still outstanding.
 * Resent ranges lie below tx_next and take no flow-control credit; a
 * range already queued merges with them. */
static void requeue(void *ctx, enum shb_quic_pns space,
		    const struct shb_quic_sent *pkt,
		    const struct shb_quic_frame_ref *refs)
{
	struct probe_fill *pf = ctx;

	if (pf->left == 0 || pkt->nrefs == 0)
		return;
	pf->left--;
	remember(pf->c, pkt->pn);
	for (uint16_t i = 0; i < pkt->nrefs; i++) {
		struct qc_stream *s = NULL;
		uint32_t inflight = 0;

		if (counted_in_flight(&refs[i]))
			s = qc_stream_find(pf->c, refs[i].id);
		if (s && refs[i].kind == QC_REF_STREAM && s->kind == QC_BIDI &&
		    !s->awaiting)
			continue;
		if (s)
			inflight = s->inflight;
		qc_ref_lost(pf->c, (int)space, &refs[i]);
		if (s)
			s->inflight = inflight;
	}
}

/* Something new to send: stream data or stream control frames queued (a
 * loss's retransmissions included), or connection-level frames pending.
 * Data blocked by flow control does not count: it cannot go. */
static bool has_new(const struct shb_quic_conn *c)
{
	if (c->md_pending || c->msu_pending || c->path_resp_pending)
		return true;
	for (unsigned i = 0; i < QC_RETIRE_MAX; i++)
		if (c->retire[i].state == 1)
			return true;
	for (uint32_t i = 0; i < c->sq_len; i++) {
		const struct qc_stream *s =
			&c->st[c->sendq[(c->sq_head + i) % c->nslots]];

		if (s->used && (qc_stream_has_ctrl(s) || qc_stream_has_data(c, s)))
			return true;
	}
	return false;
}

void qc_probe_fill(struct shb_quic_conn *c, uint32_t probes)
{
	struct probe_fill pf = {c, probes};

	if (has_new(c))
		return;
	shb_quic_recovery_foreach_outstanding(&c->rec, SHB_QUIC_PNS_APP,
					      requeue, &pf);
}

bool qc_probe_lost(struct shb_quic_conn *c, const struct shb_quic_sent *pkt,
		   const struct shb_quic_frame_ref *refs)
{
	unsigned i = 0;

	while (i < QC_PROBED && c->probed[i] != pkt->pn + 1)
		i++;
	if (i == QC_PROBED)
		return false;
	c->probed[i] = 0;
	for (uint16_t k = 0; k < pkt->nrefs; k++) {
		struct qc_stream *s = counted_in_flight(&refs[k])
					      ? qc_stream_find(c, refs[k].id)
					      : NULL;

		if (!s)
			continue;
		if (s->inflight)
			s->inflight--;
		if (s->retired)
			c->sweep = 1;
	}
	return true;
}
