/* Frames we sent, once their packet is acknowledged or declared lost
 * (the recovery part hands back each packet's frame references): CRYPTO
 * bytes settle or are sent again, stream data is settled or queued for
 * retransmission as merged byte ranges, and control frames (RESET_STREAM,
 * STOP_SENDING, MAX_STREAM_DATA, MAX_DATA, MAX_STREAMS,
 * RETIRE_CONNECTION_ID) are marked to be sent again with their current
 * value. Separate from the stream files because it serves every frame
 * kind we send, not only streams, and runs from inside the recovery
 * callbacks. */
#include "quic_conn_int.h"

static void rtx_add(struct qc_stream *s, uint64_t off, uint64_t len)
{
	uint64_t end = off + len;

	if (len == 0)
		return;
	for (uint8_t i = 0; i < s->nrtx; i++) {
		struct qc_range *r = &s->rtx[i];

		if (off <= r->off + r->len && end >= r->off) {
			uint64_t lo = off < r->off ? off : r->off;
			uint64_t hi = end > r->off + r->len ? end : r->off + r->len;

			r->off = lo;
			r->len = hi - lo;
			return;
		}
	}
	if (s->nrtx < QC_RTX_MAX) {
		s->rtx[s->nrtx].off = off;
		s->rtx[s->nrtx].len = len;
		s->nrtx++;
		return;
	}
	/* Full: widen the nearest range over the gap. Bytes in the gap go
	 * out again, which costs a little and is never wrong. */
	struct qc_range *best = &s->rtx[0];
	uint64_t best_d = UINT64_MAX;

	for (uint8_t i = 0; i < s->nrtx; i++) {
		struct qc_range *r = &s->rtx[i];
		uint64_t d = off > r->off ? off - r->off : r->off - off;

		if (d < best_d) {
			best_d = d;
			best = r;
		}
	}
	uint64_t lo = off < best->off ? off : best->off;
	uint64_t hi = end > best->off + best->len ? end : best->off + best->len;

	best->off = lo;
	best->len = hi - lo;
}

static struct qc_retire *retire_entry(struct shb_quic_conn *c, uint64_t seq)
{
	for (unsigned i = 0; i < QC_RETIRE_MAX; i++)
		if (c->retire[i].state && c->retire[i].seq == seq)
			return &c->retire[i];
	return NULL;
}

void qc_ref_acked(struct shb_quic_conn *c, int space,
		  const struct shb_quic_frame_ref *r)
{
	struct qc_stream *s = NULL;

	switch (r->kind) {
	case QC_REF_CRYPTO: {
		struct qc_csend *cs = &c->sp[space].cs;

		if (r->offset <= cs->acked && r->offset + r->len > cs->acked)
			cs->acked = (uint32_t)(r->offset + r->len);
		return;
	}
	case QC_REF_RETIRE_CID: {
		struct qc_retire *e = retire_entry(c, r->offset);

		if (e)
			e->state = 0;
		return;
	}
	case QC_REF_STREAM:
	case QC_REF_RESET_STREAM:
		s = qc_stream_find(c, r->id);
		break;
	default:
		return;
	}
	if (!s)
		return;
	if (r->kind == QC_REF_STREAM) {
		if (s->inflight)
			s->inflight--;
		if (r->flags & QC_REF_FIN)
			s->fin_acked = 1;
		if (s->kind == QC_UNI_LOCAL)
			qc_uni_acked(c, s, r->offset, r->len);
	} else if (r->kind == QC_REF_RESET_STREAM) {
		if (s->inflight)
			s->inflight--;
		s->reset_acked = 1;
	}
	if (s->retired)
		c->sweep = 1;
}

void qc_ref_lost(struct shb_quic_conn *c, int space,
		 const struct shb_quic_frame_ref *r)
{
	struct qc_stream *s;

	switch (r->kind) {
	case QC_REF_CRYPTO: {
		struct qc_csend *cs = &c->sp[space].cs;

		if (r->offset < cs->next)
			cs->next = (uint32_t)r->offset;
		return;
	}
	case QC_REF_MAX_DATA:
		c->md_pending = 1;
		return;
	case QC_REF_MAX_STREAMS_UNI:
		c->msu_pending = 1;
		return;
	case QC_REF_RETIRE_CID: {
		struct qc_retire *e = retire_entry(c, r->offset);

		if (e)
			e->state = 1;
		return;
	}
	default:
		break;
	}
	s = qc_stream_find(c, r->id);
	if (!s)
		return;
	switch (r->kind) {
	case QC_REF_STREAM:
		if (s->inflight)
			s->inflight--;
		if (!s->reset) {
			uint64_t off = r->offset, len = r->len;

			/* Our uni streams no longer hold acknowledged bytes
			 * (a resent copy can be lost after the first arrived). */
			if (s->kind == QC_UNI_LOCAL) {
				uint64_t acked = c->uni_tx[s->id >> 2].acked;

				len = off + len <= acked ? 0
				      : off < acked ? off + len - acked : len;
				off = off < acked ? acked : off;
			}
			rtx_add(s, off, len);
			if (r->flags & QC_REF_FIN)
				s->fin_rtx = 1;
		}
		break;
	case QC_REF_RESET_STREAM:
		if (s->inflight)
			s->inflight--;
		s->reset_pending = 1;
		break;
	case QC_REF_STOP_SENDING:
		if (s->rx_final == QC_NONE)
			s->stop_pending = 1;
		break;
	case QC_REF_MAX_STREAM_DATA:
		/* Resent with the current value (RFC 9000 Section 13.3). */
		if (s->rx_final == QC_NONE && !s->retired)
			s->msd_pending = 1;
		break;
	default:
		return;
	}
	if (qc_stream_has_ctrl(s) || qc_stream_has_data(c, s))
		qc_sendq_push(c, s);
	if (s->retired)
		c->sweep = 1;
}
