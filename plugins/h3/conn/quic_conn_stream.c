/* Streams: the table (request streams found by ID arithmetic), the send
 * queue, receive-side reassembly and flow control, the stream API, and
 * what happens when a frame we sent is acknowledged or lost. */
#include "quic_conn_int.h"

#include <stdlib.h>
#include <string.h>

#include "quic_wire_err.h"

/* ---- table ----------------------------------------------------------------- */

static uint32_t uni_slot(const struct shb_quic_conn *c, uint64_t idx)
{
	return c->nbidi + (uint32_t)idx;
}

static uint32_t peer_slot0(const struct shb_quic_conn *c)
{
	return c->nbidi + SHB_QUIC_CONN_MAX_UNI;
}

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
		return &c->st[uni_slot(c, idx)];
	case 3:
		for (uint32_t i = peer_slot0(c); i < c->nslots; i++)
			if (c->st[i].used && c->st[i].id == id)
				return &c->st[i];
		return NULL;
	default:
		return NULL;
	}
}

/* Slot contents for a new stream; `in_q` survives because the send queue
 * may still hold the slot from its previous stream. */
static void stream_init(struct qc_stream *s, uint64_t id, uint8_t kind)
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

static void free_held(struct shb_quic_conn *c, struct qc_stream *s)
{
	shb_quic_ro_clear(&c->ro, &s->ro);
}

static void refresh_max_data(struct shb_quic_conn *c)
{
	uint64_t w = c->cfg.conn_window;

	if (c->rx_max_data - c->rx_consumed <= w / 2) {
		c->rx_max_data = c->rx_consumed + w;
		c->md_pending = 1;
	}
}

/* Counts bytes that will never be read as consumed, so the connection
 * window keeps moving (RFC 9000 Section 4.5). */
static void consume_rest(struct shb_quic_conn *c, struct qc_stream *s,
			 uint64_t upto)
{
	if (upto > s->rx_off) {
		c->rx_consumed += upto - s->rx_off;
		s->rx_off = upto;
		refresh_max_data(c);
	}
}

static void stop_awaiting(struct shb_quic_conn *c, struct qc_stream *s)
{
	if (s->awaiting) {
		s->awaiting = 0;
		c->bidi_awaiting--;
	}
}

static void free_stream(struct shb_quic_conn *c, struct qc_stream *s)
{
	free_held(c, s);
	stop_awaiting(c, s);
	if (s->rx_final != QC_NONE && s->rx_final > s->rx_high)
		c->rx_data += s->rx_final - s->rx_high;
	consume_rest(c, s, s->rx_final);
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

static int api_check(const struct shb_quic_conn *c)
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
	int rc = api_check(c);

	if (rc != SHB_QUIC_CONN_OK)
		return rc;
	if (shb_quic_conn_bidi_available(c) == 0)
		return SHB_QUIC_CONN_E_LIMIT;
	uint32_t slot = c->free_bidi[--c->nfree_bidi];
	struct qc_stream *s = &c->st[slot];
	uint64_t idx = c->bidi_next++;

	stream_init(s, idx << 2, QC_BIDI);
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
	int rc = api_check(c);

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
	if (api_check(c) != SHB_QUIC_CONN_OK)
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

int64_t shb_quic_conn_uni_open(struct shb_quic_conn *c)
{
	int rc = api_check(c);

	if (rc != SHB_QUIC_CONN_OK)
		return rc;
	if (c->uni_next >= SHB_QUIC_CONN_MAX_UNI || c->uni_next >= c->peer_max_uni)
		return SHB_QUIC_CONN_E_LIMIT;
	uint64_t idx = c->uni_next++;
	struct qc_stream *s = &c->st[uni_slot(c, idx)];

	stream_init(s, (idx << 2) | 2, QC_UNI_LOCAL);
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
static void uni_acked(struct shb_quic_conn *c, const struct qc_stream *s,
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
	int rc = api_check(c);

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

static void do_reset(struct shb_quic_conn *c, struct qc_stream *s,
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
	do_reset(c, s, app_code);
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
	stop_awaiting(c, s);
	if (s->kind == QC_BIDI && (!s->send_given || s->tx_next < s->slen))
		do_reset(c, s, app_code);
	do_stop(c, s, app_code);
	/* Nobody reads it any more: what is held or arrives is consumed. */
	free_held(c, s);
	consume_rest(c, s, s->rx_high);
	c->sweep = 1;
	qc_streams_sweep(c); /* no-op inside a callback */
	return SHB_QUIC_CONN_OK;
}

/* ---- receiving ------------------------------------------------------------------ */

/* A frame of a stream the server may use: finds or implicitly opens it.
 * NULL without error: a stream already forgotten (ignore the frame).
 * `what` is the frame type for errors; `carries_data`: STREAM or
 * RESET_STREAM, which our send-only streams never receive. */
static struct qc_stream *rx_stream(struct shb_quic_conn *c, uint64_t id,
				   uint64_t what, bool carries_data)
{
	uint64_t idx = id >> 2;

	switch (id & 3) {
	case 1:
		qc_fail(c, SHB_QUIC_TE_STREAM_LIMIT_ERROR, what,
			"server-initiated bidirectional stream");
		return NULL;
	case 2:
		if (carries_data || idx >= c->uni_next) {
			qc_fail(c, SHB_QUIC_TE_STREAM_STATE_ERROR, what,
				"frame for our send-only stream");
			return NULL;
		}
		return qc_stream_find(c, id);
	case 0:
		if (idx >= c->bidi_next) {
			qc_fail(c, SHB_QUIC_TE_STREAM_STATE_ERROR, what,
				"frame for a stream never opened");
			return NULL;
		}
		return qc_stream_find(c, id);
	default:
		break;
	}
	if (idx >= c->peer_uni_limit) {
		qc_fail(c, SHB_QUIC_TE_STREAM_LIMIT_ERROR, what,
			"server unidirectional stream above our limit");
		return NULL;
	}
	/* Opening a stream opens every lower one of its type. */
	while (c->peer_uni_next <= idx && !qc_ended(c)) {
		struct qc_stream *s = NULL;

		for (uint32_t i = peer_slot0(c); i < c->nslots && !s; i++)
			if (!c->st[i].used)
				s = &c->st[i];
		if (!s) {
			qc_fail(c, SHB_QUIC_TE_INTERNAL_ERROR, what,
				"no slot for a server stream");
			return NULL;
		}
		stream_init(s, (c->peer_uni_next << 2) | 3, QC_UNI_PEER);
		s->rx_max = c->cfg.stream_window;
		c->peer_uni_next++;

		struct shb_quic_event ev = {.kind = SHB_QUIC_EV_STREAM_OPENED,
					    .stream_id = s->id};

		qc_emit(c, &ev);
	}
	return qc_ended(c) ? NULL : qc_stream_find(c, id);
}

/* Checks offsets against the final size and flow control, and accounts
 * new bytes. Returns false after closing the connection. */
static bool rx_account(struct shb_quic_conn *c, struct qc_stream *s,
		       uint64_t end, bool fin, uint64_t what)
{
	if (s->rx_final != QC_NONE &&
	    (end > s->rx_final || (fin && end != s->rx_final))) {
		qc_fail(c, SHB_QUIC_TE_FINAL_SIZE_ERROR, what,
			"data beyond the final size");
		return false;
	}
	if (fin && end < s->rx_high) {
		qc_fail(c, SHB_QUIC_TE_FINAL_SIZE_ERROR, what,
			"final size below data received");
		return false;
	}
	/* Checked before anything is held: out-of-order data is only kept
	 * inside the windows we advertised, which the reorder pool covers. */
	if (end > s->rx_max) {
		qc_failf(c, SHB_QUIC_TE_FLOW_CONTROL_ERROR, what,
			 "stream data beyond MAX_STREAM_DATA (cap %llu)",
			 (unsigned long long)s->rx_max);
		return false;
	}
	if (end > s->rx_high) {
		c->rx_data += end - s->rx_high;
		s->rx_high = end;
		if (c->rx_data > c->rx_max_data) {
			qc_failf(c, SHB_QUIC_TE_FLOW_CONTROL_ERROR, what,
				 "stream data beyond MAX_DATA (cap %llu)",
				 (unsigned long long)c->rx_max_data);
			return false;
		}
	}
	if (fin)
		s->rx_final = end;
	return true;
}

static void refresh_stream_window(struct shb_quic_conn *c, struct qc_stream *s)
{
	uint64_t w = c->cfg.stream_window;

	if (s->rx_final == QC_NONE && s->rx_max - s->rx_off <= w / 2) {
		s->rx_max = s->rx_off + w;
		s->msd_pending = 1;
		qc_sendq_push(c, s);
	}
}

/* One in-order piece to the owner. */
static void deliver(struct shb_quic_conn *c, struct qc_stream *s,
		    const uint8_t *data, size_t len)
{
	struct shb_quic_event ev = {.kind = SHB_QUIC_EV_STREAM_DATA,
				    .stream_id = s->id,
				    .offset = s->rx_off,
				    .data = data,
				    .len = len};

	s->rx_off += len;
	c->rx_consumed += len;
	c->stats.stream_bytes_received += len;
	if (s->rx_final != QC_NONE && s->rx_off == s->rx_final) {
		ev.fin = 1;
		s->rx_done = 1;
		stop_awaiting(c, s);
		c->sweep = 1;
	}
	refresh_max_data(c);
	refresh_stream_window(c, s);
	qc_emit(c, &ev);
}

static bool readable(const struct qc_stream *s)
{
	return s->used && !s->retired && !s->rx_done;
}

/* Delivers held bytes that now continue the stream. */
static void drain_held(struct shb_quic_conn *c, struct qc_stream *s)
{
	const struct shb_quic_ro_block *b;

	while (readable(s) && !qc_ended(c) &&
	       (b = shb_quic_ro_first(&c->ro, &s->ro)) && b->off <= s->rx_off) {
		uint32_t idx = shb_quic_ro_detach(&c->ro, &s->ro);
		uint64_t end = b->off + b->len;

		/* Released after the callback: the event points into it. */
		if (end > s->rx_off)
			deliver(c, s, b->data + (s->rx_off - b->off),
				(size_t)(end - s->rx_off));
		shb_quic_ro_release(&c->ro, idx);
	}
}

uint32_t qc_ro_free(const struct shb_quic_conn *c)
{
	return c->ro.nfree;
}

uint32_t qc_stream_frame_blocks(struct shb_quic_conn *c,
				const struct shb_quic_frame_stream *f)
{
	struct qc_stream *s;
	static const struct shb_quic_ro_list empty;

	if (f->len == 0)
		return 0;
	if ((f->stream_id & 3) == 3 && (f->stream_id >> 2) >= c->peer_uni_next)
		return f->offset == 0
			       ? 0
			       : shb_quic_ro_needed(&c->ro, &empty, f->offset,
						    f->len);
	s = qc_stream_find(c, f->stream_id);
	if (!s || !readable(s) || f->offset <= s->rx_off)
		return 0;
	return shb_quic_ro_needed(&c->ro, &s->ro, f->offset, f->len);
}

/* The end of a stream whose bytes were all delivered without FIN. */
static void deliver_fin(struct shb_quic_conn *c, struct qc_stream *s)
{
	if (readable(s) && s->rx_final != QC_NONE && s->rx_off == s->rx_final)
		deliver(c, s, NULL, 0);
}

void qc_on_stream_frame(struct shb_quic_conn *c,
			const struct shb_quic_frame_stream *f)
{
	struct qc_stream *s = rx_stream(c, f->stream_id, SHB_QUIC_FT_STREAM,
					true);
	uint64_t end = f->offset + f->len;

	if (!s)
		return;
	if (!rx_account(c, s, end, f->fin != 0, SHB_QUIC_FT_STREAM))
		return;
	if (s->rx_reset || s->rx_done)
		return;
	if (s->retired) {
		consume_rest(c, s, s->rx_high);
		c->sweep = 1;
		return;
	}
	if (f->offset <= s->rx_off) {
		if (end > s->rx_off) {
			size_t skip = (size_t)(s->rx_off - f->offset);

			deliver(c, s, f->data + skip, f->len - skip);
		}
		drain_held(c, s);
		deliver_fin(c, s);
		return;
	}
	/* Cannot fail but in the unacknowledged case of rx_packet(). */
	(void)shb_quic_ro_insert(&c->ro, &s->ro, f->offset, f->data, f->len);
	deliver_fin(c, s);
}

void qc_on_reset_stream(struct shb_quic_conn *c, uint64_t id, uint64_t code,
			uint64_t final_size)
{
	struct qc_stream *s = rx_stream(c, id, SHB_QUIC_FT_RESET_STREAM, true);

	if (!s)
		return;
	if (s->rx_final != QC_NONE && final_size != s->rx_final) {
		qc_fail(c, SHB_QUIC_TE_FINAL_SIZE_ERROR,
			SHB_QUIC_FT_RESET_STREAM, "final size changed");
		return;
	}
	if (!rx_account(c, s, final_size, true, SHB_QUIC_FT_RESET_STREAM))
		return;
	if (s->rx_reset || s->rx_done)
		return;
	s->rx_reset = 1;
	s->rx_done = 1;
	s->msd_pending = 0;
	s->stop_pending = 0;
	free_held(c, s);
	consume_rest(c, s, final_size);
	stop_awaiting(c, s);
	c->sweep = 1;
	if (!s->retired) {
		struct shb_quic_event ev = {.kind = SHB_QUIC_EV_STREAM_RESET,
					    .stream_id = id,
					    .code = code,
					    .final_size = final_size};

		qc_emit(c, &ev);
	}
}

void qc_on_stop_sending(struct shb_quic_conn *c, uint64_t id, uint64_t code)
{
	struct qc_stream *s;

	if ((id & 3) == 3) {
		qc_fail(c, SHB_QUIC_TE_STREAM_STATE_ERROR,
			SHB_QUIC_FT_STOP_SENDING,
			"STOP_SENDING for a receive-only stream");
		return;
	}
	s = rx_stream(c, id, SHB_QUIC_FT_STOP_SENDING, false);
	if (!s)
		return;
	/* Unsent bytes are abandoned with the server's code (RFC 9000
	 * Section 3.5); what was all sent just settles. */
	if (!s->fin_sent)
		do_reset(c, s, code);
	if (!s->retired && !s->stop_seen) {
		s->stop_seen = 1;
		struct shb_quic_event ev = {.kind = SHB_QUIC_EV_STOP_SENDING,
					    .stream_id = id,
					    .code = code};

		qc_emit(c, &ev);
	}
}

void qc_on_max_stream_data(struct shb_quic_conn *c, uint64_t id,
			   uint64_t limit)
{
	struct qc_stream *s;

	if ((id & 3) == 3) {
		qc_fail(c, SHB_QUIC_TE_STREAM_STATE_ERROR,
			SHB_QUIC_FT_MAX_STREAM_DATA,
			"MAX_STREAM_DATA for a receive-only stream");
		return;
	}
	s = rx_stream(c, id, SHB_QUIC_FT_MAX_STREAM_DATA, false);
	if (!s || limit <= s->tx_max)
		return;
	s->tx_max = limit;
	if (qc_stream_has_data(c, s))
		qc_sendq_push(c, s);
}

void qc_on_max_data(struct shb_quic_conn *c, uint64_t limit)
{
	if (limit <= c->tx_max_data)
		return;
	bool was_blocked = c->tx_data >= c->tx_max_data;

	c->tx_max_data = limit;
	if (was_blocked)
		qc_streams_unblock(c);
}

void qc_on_max_streams(struct shb_quic_conn *c, int bidi, uint64_t limit)
{
	if (bidi) {
		if (limit > c->peer_max_bidi)
			c->peer_max_bidi = limit;
	} else if (limit > c->peer_max_uni) {
		c->peer_max_uni = limit;
	}
}

/* ---- frames we sent: acknowledged or lost --------------------------------------- */

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
			uni_acked(c, s, r->offset, r->len);
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
