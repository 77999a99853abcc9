/* Our unidirectional streams (the HTTP/3 control and QPACK streams):
 * opening them, and their send buffers, which keep only the bytes not yet
 * acknowledged and grow from the connection's fixed slot to the heap up
 * to SHB_QUIC_CONN_UNI_MAX_BUF. Separate from quic_conn_stream.c because
 * request streams borrow the owner's bytes and never keep or trim a
 * buffer: this bookkeeping (acknowledged prefix, ranges above it,
 * compaction) concerns these few long-lived streams alone. */
#include "quic_conn_int.h"

#include <stdlib.h>
#include <string.h>

int64_t shb_quic_conn_uni_open(struct shb_quic_conn *c)
{
	int rc = qc_api_check(c);

	if (rc != SHB_QUIC_CONN_OK)
		return rc;
	if (c->uni_next >= SHB_QUIC_CONN_MAX_UNI || c->uni_next >= c->peer_max_uni)
		return SHB_QUIC_CONN_E_LIMIT;
	uint64_t idx = c->uni_next++;
	struct qc_stream *s = &c->st[qc_uni_slot(c, idx)];

	qc_stream_init(s, (idx << 2) | 2, QC_UNI_LOCAL);
	s->sbuf = c->uni_buf + idx * SHB_QUIC_CONN_UNI_BUF;
	s->tx_max = c->peer_tp.initial_max_stream_data_uni;
	s->send_given = 1;
	s->rx_final = 0;
	s->rx_done = 1;
	return (int64_t)s->id;
}

/* Our uni stream s's window: the acknowledged prefix catches up when
 * nothing is in flight or waiting to be resent (every byte sent was then
 * acknowledged, whatever acks the list dropped). */
static struct qc_uni_tx *uni_tx(struct shb_quic_conn *c,
				const struct qc_stream *s)
{
	struct qc_uni_tx *u = &c->uni_tx[s->id >> 2];

	if (s->inflight == 0 && s->nrtx == 0 && s->tx_next == s->slen)
		u->acked = s->slen;
	return u;
}

/* Drops the acknowledged bytes below u->acked from s's buffer. */
static void uni_compact(struct qc_stream *s, struct qc_uni_tx *u)
{
	uint64_t base = u->acked;
	uint8_t *buf = (uint8_t *)(uintptr_t)s->sbuf;

	if (base <= s->sbase)
		return;
	memmove(buf, buf + (base - s->sbase), (size_t)(s->slen - base));
	s->sbase = base;
	/* A range lost, then acknowledged after all, needs no resend. */
	for (uint8_t i = 0; i < s->nrtx;) {
		struct qc_range *r = &s->rtx[i];
		uint64_t end = r->off + r->len;

		if (end <= base) {
			memmove(r, r + 1, (size_t)(s->nrtx - i - 1) * sizeof(*r));
			s->nrtx--;
			continue;
		}
		if (r->off < base) {
			r->len = end - base;
			r->off = base;
		}
		i++;
	}
}

/* Room for len more bytes in s's buffer: acknowledged bytes dropped
 * first, then a larger heap buffer (doubling, at most
 * SHB_QUIC_CONN_UNI_MAX_BUF). False when that does not suffice. */
static bool uni_room(struct shb_quic_conn *c, struct qc_stream *s, size_t len)
{
	struct qc_uni_tx *u = uni_tx(c, s);
	size_t cap = u->heap ? u->cap : SHB_QUIC_CONN_UNI_BUF;
	size_t held = (size_t)(s->slen - s->sbase);

	if (len <= cap - held)
		return true;
	uni_compact(s, u);
	held = (size_t)(s->slen - s->sbase);
	if (len <= cap - held)
		return true;
	if (len > SHB_QUIC_CONN_UNI_MAX_BUF - held)
		return false;
	while (cap - held < len)
		cap *= 2;
	if (cap > SHB_QUIC_CONN_UNI_MAX_BUF)
		cap = SHB_QUIC_CONN_UNI_MAX_BUF;
	uint8_t *p = malloc(cap);

	if (!p)
		return false;
	memcpy(p, s->sbuf, held);
	free(u->heap);
	u->heap = p;
	u->cap = cap;
	s->sbuf = p;
	return true;
}

/* Stream bytes [off, off + len) of our uni stream s were acknowledged. */
void qc_uni_acked(struct shb_quic_conn *c, const struct qc_stream *s,
		  uint64_t off, uint64_t len)
{
	struct qc_uni_tx *u = &c->uni_tx[s->id >> 2];
	uint64_t end = off + len;

	if (end <= u->acked)
		return;
	if (off > u->acked) {
		for (uint8_t i = 0; i < u->nack; i++) {
			struct qc_range *r = &u->ack[i];

			if (off <= r->off + r->len && end >= r->off) {
				uint64_t lo = off < r->off ? off : r->off;
				uint64_t hi = end > r->off + r->len ? end : r->off + r->len;

				r->off = lo;
				r->len = hi - lo;
				return;
			}
		}
		if (u->nack < QC_UNI_ACKS)
			u->ack[u->nack++] = (struct qc_range){off, len};
		return;
	}
	u->acked = end;
	for (uint8_t i = 0; i < u->nack;) {
		struct qc_range *r = &u->ack[i];

		if (r->off > u->acked) {
			i++;
			continue;
		}
		if (r->off + r->len > u->acked)
			u->acked = r->off + r->len;
		*r = u->ack[--u->nack];
		i = 0; /* the prefix grew: look again from the start */
	}
}

int shb_quic_conn_uni_send(struct shb_quic_conn *c, uint64_t id,
			   const uint8_t *data, size_t len)
{
	int rc = qc_api_check(c);

	if (rc != SHB_QUIC_CONN_OK)
		return rc;
	if (!data && len)
		return SHB_QUIC_CONN_E_INVAL;
	struct qc_stream *s = qc_stream_find(c, id);

	if (!s || s->kind != QC_UNI_LOCAL || s->reset)
		return SHB_QUIC_CONN_E_STATE;
	if (!uni_room(c, s, len))
		return SHB_QUIC_CONN_E_LIMIT;
	if (len) {
		memcpy((uint8_t *)(uintptr_t)s->sbuf + (s->slen - s->sbase), data,
		       len);
		s->slen += len;
		qc_sendq_push(c, s);
	}
	return SHB_QUIC_CONN_OK;
}
