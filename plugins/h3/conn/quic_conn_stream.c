/* Streams: the table (request streams found by ID arithmetic), the send
 * queue, freeing retired streams, the STREAMS_AVAILABLE edge, and the
 * stream API for request streams (open, send, reset, stop, retire). What
 * the server sends on streams is in quic_conn_stream_rx.c, our
 * unidirectional streams' buffers in quic_conn_uni.c, and what happens
 * when a frame we sent is acknowledged or lost in quic_conn_refs.c. */
#include "quic_conn_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- table ----------------------------------------------------------------- */

int qc_streams_init(struct shb_quic_conn *c)
{
	c->nfree_bidi = 0;
	for (uint32_t i = c->nbidi; i-- > 0;)
		c->free_bidi[c->nfree_bidi++] = i;
	return 0;
}

uint32_t qc_slot_of(const struct shb_quic_conn *c, const struct qc_stream *s)
{
	return (uint32_t)(s - c->st);
}

struct qc_stream *qc_stream_find(struct shb_quic_conn *c, uint64_t id)
{
	uint64_t idx = id >> 2;

	switch (id & 3) {
	case 0: {
		if (idx < c->bidi_base || idx >= c->bidi_next)
			return NULL;
		uint16_t e = c->bidi_map[idx & (c->map_cap - 1)];

		return e ? &c->st[e - 1] : NULL;
	}
	case 2:
		if (idx >= c->uni_next)
			return NULL;
		return &c->st[qc_uni_slot(c, idx)];
	case 3:
		for (uint32_t i = qc_peer_slot0(c); i < c->nslots; i++)
			if (c->st[i].used && c->st[i].id == id)
				return &c->st[i];
		return NULL;
	default:
		return NULL;
	}
}

/* Slot contents for a new stream; `in_q` survives because the send queue
 * may still hold the slot from its previous stream. */
void qc_stream_init(struct qc_stream *s, uint64_t id, uint8_t kind)
{
	uint8_t in_q = s->in_q;

	memset(s, 0, sizeof(*s));
	s->in_q = in_q;
	s->used = 1;
	s->id = id;
	s->kind = kind;
	s->rx_final = QC_NONE;
}

/* ---- send queue ------------------------------------------------------------ */

void qc_sendq_push(struct shb_quic_conn *c, struct qc_stream *s)
{
	if (s->in_q)
		return;
	s->in_q = 1;
	c->sendq[(c->sq_head + c->sq_len) % c->nslots] = qc_slot_of(c, s);
	c->sq_len++;
}

struct qc_stream *qc_sendq_pop(struct shb_quic_conn *c)
{
	while (c->sq_len) {
		struct qc_stream *s = &c->st[c->sendq[c->sq_head]];

		c->sq_head = (c->sq_head + 1) % c->nslots;
		c->sq_len--;
		s->in_q = 0;
		if (s->used)
			return s;
	}
	return NULL;
}

bool qc_stream_has_ctrl(const struct qc_stream *s)
{
	return s->reset_pending || s->stop_pending || s->msd_pending;
}

uint64_t qc_stream_credit(const struct shb_quic_conn *c,
			  const struct qc_stream *s)
{
	uint64_t want = s->slen - s->tx_next;
	uint64_t sc = s->tx_max > s->tx_next ? s->tx_max - s->tx_next : 0;
	uint64_t cc = c->tx_max_data > c->tx_data ? c->tx_max_data - c->tx_data
						  : 0;

	if (sc < want)
		want = sc;
	return cc < want ? cc : want;
}

bool qc_stream_has_data(const struct shb_quic_conn *c,
			const struct qc_stream *s)
{
	if (s->reset || !s->send_given)
		return false;
	if (s->nrtx || s->fin_rtx)
		return true;
	if (s->tx_next < s->slen)
		return qc_stream_credit(c, s) > 0;
	return s->fin && !s->fin_sent;
}

void qc_streams_unblock(struct shb_quic_conn *c)
{
	for (uint32_t i = 0; i < c->nslots; i++) {
		struct qc_stream *s = &c->st[i];

		if (s->used && qc_stream_has_data(c, s))
			qc_sendq_push(c, s);
	}
}

/* ---- freeing ----------------------------------------------------------------- */

static bool send_settled(const struct qc_stream *s)
{
	if (s->kind == QC_UNI_PEER)
		return true;
	if (s->reset)
		return s->reset_acked;
	return s->send_given && s->fin_acked && s->inflight == 0 &&
	       s->nrtx == 0 && !s->fin_rtx && s->tx_next == s->slen;
}

static bool recv_settled(const struct qc_stream *s)
{
	return s->rx_final != QC_NONE;
}

void qc_stream_free_held(struct shb_quic_conn *c, struct qc_stream *s)
{
	shb_quic_ro_clear(&c->ro, &s->ro);
}

void qc_refresh_max_data(struct shb_quic_conn *c)
{
	uint64_t w = c->cfg.conn_window;

	if (c->rx_max_data - c->rx_consumed <= w / 2) {
		c->rx_max_data = c->rx_consumed + w;
		c->md_pending = 1;
	}
}

/* Counts bytes that will never be read as consumed, so the connection
 * window keeps moving (RFC 9000 Section 4.5). */
void qc_stream_consume_rest(struct shb_quic_conn *c, struct qc_stream *s,
			    uint64_t upto)
{
	if (upto > s->rx_off) {
		c->rx_consumed += upto - s->rx_off;
		s->rx_off = upto;
		qc_refresh_max_data(c);
	}
}

void qc_stream_stop_awaiting(struct shb_quic_conn *c, struct qc_stream *s)
{
	if (s->awaiting) {
		s->awaiting = 0;
		c->bidi_awaiting--;
	}
}

static void free_stream(struct shb_quic_conn *c, struct qc_stream *s)
{
	qc_stream_free_held(c, s);
	qc_stream_stop_awaiting(c, s);
	if (s->rx_final != QC_NONE && s->rx_final > s->rx_high)
		c->rx_data += s->rx_final - s->rx_high;
	qc_stream_consume_rest(c, s, s->rx_final);
	s->used = 0;
	if (s->kind == QC_BIDI) {
		uint64_t idx = s->id >> 2;

		c->bidi_map[idx & (c->map_cap - 1)] = 0;
		c->free_bidi[c->nfree_bidi++] = qc_slot_of(c, s);
		c->bidi_live--;
		while (c->bidi_base < c->bidi_next &&
		       !c->bidi_map[c->bidi_base & (c->map_cap - 1)])
			c->bidi_base++;
	} else if (s->kind == QC_UNI_PEER) {
		c->peer_uni_limit++;
		c->msu_pending = 1;
	}
}

void qc_streams_sweep(struct shb_quic_conn *c)
{
	if (!c->sweep || c->in_event)
		return;
	c->sweep = 0;
	for (uint32_t i = 0; i < c->nslots; i++) {
		struct qc_stream *s = &c->st[i];

		if (s->used && s->retired && s->kind != QC_UNI_LOCAL &&
		    send_settled(s) && recv_settled(s))
			free_stream(c, s);
	}
}

/* ---- availability ------------------------------------------------------------ */

uint32_t shb_quic_conn_bidi_available(const struct shb_quic_conn *c)
{
	if (!c || !c->hs_done || qc_ended(c))
		return 0;
	uint64_t n = c->peer_max_bidi > c->bidi_next
			     ? c->peer_max_bidi - c->bidi_next : 0;
	uint64_t window = c->map_cap - (c->bidi_next - c->bidi_base);

	if (n > c->nfree_bidi)
		n = c->nfree_bidi;
	if (n > window)
		n = window;
	return (uint32_t)n;
}

void qc_check_streams_available(struct shb_quic_conn *c)
{
	qc_streams_sweep(c);
	if (!c->hs_done || c->in_event)
		return;
	if (shb_quic_conn_bidi_available(c) == 0) {
		c->avail_was_zero = 1;
	} else if (c->avail_was_zero) {
		struct shb_quic_event ev = {.kind = SHB_QUIC_EV_STREAMS_AVAILABLE};

		c->avail_was_zero = 0;
		qc_emit(c, &ev);
	}
}

bool qc_streams_awaiting(const struct shb_quic_conn *c)
{
	return c->bidi_awaiting > 0;
}

/* ---- the stream API ------------------------------------------------------------ */

int qc_api_check(const struct shb_quic_conn *c)
{
	if (!c)
		return SHB_QUIC_CONN_E_INVAL;
	if (qc_ended(c))
		return SHB_QUIC_CONN_E_CLOSED;
	if (!c->hs_done)
		return SHB_QUIC_CONN_E_STATE;
	return SHB_QUIC_CONN_OK;
}

int64_t shb_quic_conn_bidi_open(struct shb_quic_conn *c)
{
	int rc = qc_api_check(c);

	if (rc != SHB_QUIC_CONN_OK)
		return rc;
	if (shb_quic_conn_bidi_available(c) == 0)
		return SHB_QUIC_CONN_E_LIMIT;
	uint32_t slot = c->free_bidi[--c->nfree_bidi];
	struct qc_stream *s = &c->st[slot];
	uint64_t idx = c->bidi_next++;

	qc_stream_init(s, idx << 2, QC_BIDI);
	s->tx_max = c->peer_tp.initial_max_stream_data_bidi_remote;
	s->rx_max = c->cfg.stream_window;
	s->awaiting = 1;
	c->bidi_awaiting++;
	c->bidi_map[idx & (c->map_cap - 1)] = (uint16_t)(slot + 1);
	c->bidi_live++;
	return (int64_t)s->id;
}

int shb_quic_conn_bidi_send(struct shb_quic_conn *c, uint64_t id,
			    const uint8_t *data, size_t len, int fin)
{
	int rc = qc_api_check(c);

	if (rc != SHB_QUIC_CONN_OK)
		return rc;
	if (!fin || (!data && len))
		return SHB_QUIC_CONN_E_INVAL;
	struct qc_stream *s = qc_stream_find(c, id);

	if (!s || s->kind != QC_BIDI || s->retired || s->send_given || s->reset)
		return SHB_QUIC_CONN_E_STATE;
	s->sbuf = data;
	s->slen = len;
	s->fin = 1;
	s->send_given = 1;
	qc_sendq_push(c, s);
	return SHB_QUIC_CONN_OK;
}

uint8_t *shb_quic_conn_bidi_buffer(struct shb_quic_conn *c, uint64_t id,
				   size_t len)
{
	if (qc_api_check(c) != SHB_QUIC_CONN_OK)
		return NULL;
	struct qc_stream *s = qc_stream_find(c, id);

	if (!s || s->kind != QC_BIDI || s->send_given)
		return NULL;
	if (!c->own) {
		c->own = calloc(c->nbidi, sizeof(*c->own));
		if (!c->own)
			return NULL;
	}
	struct qc_own *o = &c->own[qc_slot_of(c, s)];

	if (len > o->cap) {
		uint8_t *p = realloc(o->p, len ? len : 1);
		if (!p)
			return NULL;
		o->p = p;
		o->cap = len;
	}
	return o->p ? o->p : (uint8_t *)c->own; /* len 0: any valid pointer */
}

void qc_reset_sending(struct shb_quic_conn *c, struct qc_stream *s,
		      uint64_t code)
{
	if (s->reset || (s->send_given && s->fin_acked && send_settled(s)))
		return;
	s->reset = 1;
	s->reset_code = code;
	s->reset_final = s->tx_next;
	s->reset_pending = 1;
	s->nrtx = 0;
	s->fin_rtx = 0;
	qc_sendq_push(c, s);
}

static void do_stop(struct shb_quic_conn *c, struct qc_stream *s,
		    uint64_t code)
{
	if (s->stop || s->rx_final != QC_NONE)
		return;
	s->stop = 1;
	s->stop_code = code;
	s->stop_pending = 1;
	qc_sendq_push(c, s);
}

static struct qc_stream *api_stream(struct shb_quic_conn *c, uint64_t id,
				    int *rc)
{
	struct qc_stream *s;

	*rc = c ? (qc_ended(c) ? SHB_QUIC_CONN_E_CLOSED : SHB_QUIC_CONN_OK)
		: SHB_QUIC_CONN_E_INVAL;
	if (*rc != SHB_QUIC_CONN_OK)
		return NULL;
	s = qc_stream_find(c, id);
	if (!s)
		*rc = SHB_QUIC_CONN_E_STATE;
	return s;
}

int shb_quic_conn_stream_reset(struct shb_quic_conn *c, uint64_t id,
			       uint64_t app_code)
{
	int rc;
	struct qc_stream *s = api_stream(c, id, &rc);

	if (!s)
		return rc;
	if (s->kind == QC_UNI_PEER)
		return SHB_QUIC_CONN_E_STATE;
	qc_reset_sending(c, s, app_code);
	return SHB_QUIC_CONN_OK;
}

int shb_quic_conn_stream_stop_sending(struct shb_quic_conn *c, uint64_t id,
				      uint64_t app_code)
{
	int rc;
	struct qc_stream *s = api_stream(c, id, &rc);

	if (!s)
		return rc;
	if (s->kind == QC_UNI_LOCAL)
		return SHB_QUIC_CONN_E_STATE;
	do_stop(c, s, app_code);
	return SHB_QUIC_CONN_OK;
}

int shb_quic_conn_stream_retire(struct shb_quic_conn *c, uint64_t id,
				uint64_t app_code)
{
	struct qc_stream *s;

	if (!c)
		return SHB_QUIC_CONN_E_INVAL;
	s = qc_stream_find(c, id);
	if (!s || s->kind == QC_UNI_LOCAL || s->retired)
		return SHB_QUIC_CONN_E_STATE;
	s->retired = 1;
	qc_stream_stop_awaiting(c, s);
	if (s->kind == QC_BIDI && (!s->send_given || s->tx_next < s->slen))
		qc_reset_sending(c, s, app_code);
	do_stop(c, s, app_code);
	/* Nobody reads it any more: what is held or arrives is consumed. */
	qc_stream_free_held(c, s);
	qc_stream_consume_rest(c, s, s->rx_high);
	c->sweep = 1;
	qc_streams_sweep(c); /* no-op inside a callback */
	return SHB_QUIC_CONN_OK;
}
