/* What the server sends on streams: STREAM, RESET_STREAM and
 * STOP_SENDING frames, the streams it opens implicitly, final sizes,
 * receive flow control (our MAX_STREAM_DATA and MAX_DATA windows),
 * in-order delivery to the owner through the reorder pool, and the
 * server's credit (MAX_STREAM_DATA, MAX_DATA, MAX_STREAMS). Separate from
 * quic_conn_stream.c, which holds the table and the API the owner calls:
 * everything here is driven by a received frame and may close the
 * connection with a transport error. */
#include "quic_conn_int.h"

#include "quic_wire_err.h"

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

		for (uint32_t i = qc_peer_slot0(c); i < c->nslots && !s; i++)
			if (!c->st[i].used)
				s = &c->st[i];
		if (!s) {
			qc_fail(c, SHB_QUIC_TE_INTERNAL_ERROR, what,
				"no slot for a server stream");
			return NULL;
		}
		qc_stream_init(s, (c->peer_uni_next << 2) | 3, QC_UNI_PEER);
		s->rx_max = c->cfg.uni_window;
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
	uint64_t w = s->kind == QC_UNI_PEER ? c->cfg.uni_window
					    : c->cfg.stream_window;

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
		qc_stream_stop_awaiting(c, s);
		c->sweep = 1;
	}
	qc_refresh_max_data(c);
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
		qc_stream_consume_rest(c, s, s->rx_high);
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
	qc_stream_free_held(c, s);
	qc_stream_consume_rest(c, s, final_size);
	qc_stream_stop_awaiting(c, s);
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
		qc_reset_sending(c, s, code);
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
