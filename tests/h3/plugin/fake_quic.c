/* A scripted stand-in for plugins/h3/conn: records every call the plugin
 * makes and delivers queued events from inside recv() and on_timeout(),
 * like the real connection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h3p_tests.h"

struct shb_quic_conn *fq_last;
uint32_t fq_default_credit = 100;

static void deliver(struct shb_quic_conn *q, const struct shb_quic_event *ev)
{
	q->cfg.on_event(q->cfg.user, ev);
}

static struct shb_quic_conn *fq_new(const struct shb_quic_conn_config *cfg,
				    uint64_t now, int *rc)
{
	struct shb_quic_conn *q = calloc(1, sizeof(*q));

	(void)now;
	if (!q) {
		*rc = SHB_QUIC_CONN_E_NOMEM;
		return NULL;
	}
	q->cfg = *cfg;
	q->state = SHB_QUIC_CONN_HANDSHAKE;
	q->credit = fq_default_credit;
	q->next_uni = 2;
	q->deadline = UINT64_MAX;
	q->dirty = 1; /* the ClientHello */
	fq_last = q;
	return q;
}

static void fq_free(struct shb_quic_conn *q)
{
	if (fq_last == q)
		fq_last = NULL;
	for (size_t i = 0; i < FQ_MAX_STREAMS; i++)
		free(q->own[i]);
	free(q);
}

static int ended(const struct shb_quic_conn *q)
{
	return q->state == SHB_QUIC_CONN_CLOSING || q->state == SHB_QUIC_CONN_CLOSED;
}

static int fq_recv(struct shb_quic_conn *q, uint8_t *d, size_t len, uint64_t now)
{
	(void)d; (void)len; (void)now;
	q->recv_calls++;
	for (size_t i = 0; i < q->qcount && !ended(q); i++) {
		struct shb_quic_event *ev = &q->queue[i];
		if (ev->kind == SHB_QUIC_EV_HANDSHAKE_DONE)
			q->state = SHB_QUIC_CONN_ESTABLISHED;
		if (ev->kind == SHB_QUIC_EV_CLOSED) {
			q->state = q->close_writes ? SHB_QUIC_CONN_CLOSING :
						     SHB_QUIC_CONN_CLOSED;
			q->dirty = q->close_writes;
		}
		deliver(q, ev);
	}
	q->qcount = 0;
	return ended(q) ? SHB_QUIC_CONN_E_CLOSED : SHB_QUIC_CONN_OK;
}

static ptrdiff_t fq_write(struct shb_quic_conn *q, uint8_t *buf, size_t cap,
			  size_t *seg, uint64_t now)
{
	(void)now;
	q->write_calls++;
	*seg = 0;
	if (!q->dirty || q->state == SHB_QUIC_CONN_CLOSED || cap < 100)
		return 0;
	memset(buf, 0x40, 100);
	*seg = 100;
	q->dirty = 0;
	if (q->state == SHB_QUIC_CONN_CLOSING)
		q->state = SHB_QUIC_CONN_CLOSED;
	return 100;
}

static int fq_want_write(const struct shb_quic_conn *q)
{
	return q->dirty && q->state != SHB_QUIC_CONN_CLOSED;
}

static uint64_t fq_deadline(const struct shb_quic_conn *q)
{
	return ended(q) ? UINT64_MAX : q->deadline;
}

static int fq_on_timeout(struct shb_quic_conn *q, uint64_t now)
{
	if (ended(q))
		return SHB_QUIC_CONN_E_CLOSED;
	if (now < q->deadline || !q->timeout_origin)
		return SHB_QUIC_CONN_OK;
	struct shb_quic_event ev = {.kind = SHB_QUIC_EV_CLOSED, .close = &q->close};
	q->close.origin = q->timeout_origin;
	q->close.reason = "";
	q->state = SHB_QUIC_CONN_CLOSED;
	q->dirty = 0;
	deliver(q, &ev);
	return SHB_QUIC_CONN_E_CLOSED;
}

static uint32_t fq_state(const struct shb_quic_conn *q)
{
	return q->state;
}

static void fq_stats(const struct shb_quic_conn *q, struct shb_quic_conn_stats *out)
{
	(void)q;
	memset(out, 0, sizeof(*out));
	out->ts_first_sent = 1000000;
	out->ts_handshake = 3000000;
}

static uint64_t fq_idle(const struct shb_quic_conn *q)
{
	return q->cfg.idle_timeout;
}

static void fq_close(struct shb_quic_conn *q, uint64_t code, const char *reason,
		     uint64_t now)
{
	(void)now;
	if (ended(q))
		return;
	q->closed_locally = 1;
	q->close_code = code;
	snprintf(q->close_reason, sizeof(q->close_reason), "%s", reason ? reason : "");
	q->close.origin = SHB_QUIC_CLOSE_LOCAL;
	q->close.app = 1;
	q->close.code = code;
	q->close.reason = q->close_reason;
	q->state = SHB_QUIC_CONN_CLOSING;
	q->dirty = 1;
	struct shb_quic_event ev = {.kind = SHB_QUIC_EV_CLOSED, .close = &q->close};
	deliver(q, &ev);
}

static uint32_t fq_bidi_available(const struct shb_quic_conn *q)
{
	if (q->state != SHB_QUIC_CONN_ESTABLISHED)
		return 0;
	return q->credit > q->opened ? q->credit - q->opened : 0;
}

static int64_t fq_bidi_open(struct shb_quic_conn *q)
{
	if (ended(q))
		return SHB_QUIC_CONN_E_CLOSED;
	if (q->state != SHB_QUIC_CONN_ESTABLISHED)
		return SHB_QUIC_CONN_E_STATE;
	if (!fq_bidi_available(q))
		return SHB_QUIC_CONN_E_LIMIT;
	return (int64_t)(4 * (uint64_t)q->opened++);
}

static int fq_bidi_send(struct shb_quic_conn *q, uint64_t id, const uint8_t *data,
			size_t len, int fin)
{
	if (ended(q))
		return SHB_QUIC_CONN_E_CLOSED;
	if (q->send_count == FQ_MAX_STREAMS || (id & 3) || id >= 4 * (uint64_t)q->opened)
		return SHB_QUIC_CONN_E_STATE;
	q->sends[q->send_count++] = (struct fq_stream_send){id, data, len, fin};
	q->dirty = 1;
	return SHB_QUIC_CONN_OK;
}

/* A fresh buffer per stream, as the real one keeps its slot's until the
 * stream is done: never reused within a test. */
static uint8_t *fq_bidi_buffer(struct shb_quic_conn *q, uint64_t id, size_t len)
{
	if (ended(q) || (id & 3) || id >= 4 * (uint64_t)q->opened ||
	    id / 4 >= FQ_MAX_STREAMS || q->own[id / 4])
		return NULL;
	q->own[id / 4] = malloc(len ? len : 1);
	return q->own[id / 4];
}

static int64_t fq_uni_open(struct shb_quic_conn *q)
{
	if (q->state != SHB_QUIC_CONN_ESTABLISHED)
		return SHB_QUIC_CONN_E_STATE;
	if (q->uni_count == 4)
		return SHB_QUIC_CONN_E_LIMIT;
	q->uni[q->uni_count].id = q->next_uni;
	q->uni_count++;
	q->next_uni += 4;
	return (int64_t)q->uni[q->uni_count - 1].id;
}

static int fq_uni_send(struct shb_quic_conn *q, uint64_t id, const uint8_t *data,
		       size_t len)
{
	for (size_t i = 0; i < q->uni_count; i++) {
		struct fq_uni *u = &q->uni[i];
		if (u->id != id)
			continue;
		if (u->len + len > sizeof(u->bytes))
			return SHB_QUIC_CONN_E_LIMIT;
		memcpy(u->bytes + u->len, data, len);
		u->len += len;
		if (u->nsend < 8) {
			u->end_at[u->nsend] = u->len;
			u->bidi_before[u->nsend++] = q->send_count;
		}
		q->dirty = 1;
		return SHB_QUIC_CONN_OK;
	}
	return SHB_QUIC_CONN_E_STATE;
}

static int record(struct shb_quic_conn *q, char what, uint64_t id, uint64_t code)
{
	if (ended(q))
		return SHB_QUIC_CONN_E_CLOSED;
	if (q->op_count < FQ_MAX_OPS)
		q->ops[q->op_count++] = (struct fq_op){what, id, code};
	q->dirty = 1;
	return SHB_QUIC_CONN_OK;
}

static int fq_reset(struct shb_quic_conn *q, uint64_t id, uint64_t code)
{
	return record(q, 'r', id, code);
}

static int fq_stop(struct shb_quic_conn *q, uint64_t id, uint64_t code)
{
	return record(q, 's', id, code);
}

static int fq_retire(struct shb_quic_conn *q, uint64_t id, uint64_t code)
{
	return record(q, 't', id, code);
}

const struct shb_h3_quic_ops fq_ops = {
	.conn_new = fq_new,
	.conn_free = fq_free,
	.recv = fq_recv,
	.write = fq_write,
	.want_write = fq_want_write,
	.deadline = fq_deadline,
	.on_timeout = fq_on_timeout,
	.state = fq_state,
	.stats = fq_stats,
	.idle_timeout = fq_idle,
	.close = fq_close,
	.bidi_available = fq_bidi_available,
	.bidi_open = fq_bidi_open,
	.bidi_send = fq_bidi_send,
	.bidi_buffer = fq_bidi_buffer,
	.uni_open = fq_uni_open,
	.uni_send = fq_uni_send,
	.stream_reset = fq_reset,
	.stop_sending = fq_stop,
	.retire = fq_retire,
};

/* ---- queueing events ---------------------------------------------------- */

static struct shb_quic_event *slot(struct shb_quic_conn *q)
{
	CU_ASSERT_FATAL(q->qcount < FQ_MAX_QUEUE);
	struct shb_quic_event *ev = &q->queue[q->qcount++];
	memset(ev, 0, sizeof(*ev));
	return ev;
}

void fq_q_handshake(struct shb_quic_conn *q)
{
	slot(q)->kind = SHB_QUIC_EV_HANDSHAKE_DONE;
}

void fq_q_data(struct shb_quic_conn *q, uint64_t id, const void *data,
	       size_t len, int fin)
{
	size_t i = q->qcount;
	struct shb_quic_event *ev = slot(q);

	CU_ASSERT_FATAL(len <= sizeof(q->qdata[0]));
	if (len)
		memcpy(q->qdata[i], data, len);
	ev->kind = SHB_QUIC_EV_STREAM_DATA;
	ev->stream_id = id;
	ev->data = q->qdata[i];
	ev->len = len;
	ev->fin = (uint32_t)fin;
}

void fq_q_opened(struct shb_quic_conn *q, uint64_t id)
{
	struct shb_quic_event *ev = slot(q);
	ev->kind = SHB_QUIC_EV_STREAM_OPENED;
	ev->stream_id = id;
}

void fq_q_reset(struct shb_quic_conn *q, uint64_t id, uint64_t code)
{
	struct shb_quic_event *ev = slot(q);
	ev->kind = SHB_QUIC_EV_STREAM_RESET;
	ev->stream_id = id;
	ev->code = code;
}

void fq_q_stop(struct shb_quic_conn *q, uint64_t id, uint64_t code)
{
	struct shb_quic_event *ev = slot(q);
	ev->kind = SHB_QUIC_EV_STOP_SENDING;
	ev->stream_id = id;
	ev->code = code;
}

void fq_q_available(struct shb_quic_conn *q)
{
	slot(q)->kind = SHB_QUIC_EV_STREAMS_AVAILABLE;
}

void fq_q_closed(struct shb_quic_conn *q, uint32_t origin, uint32_t app,
		 uint64_t code, const char *reason, int closing)
{
	struct shb_quic_event *ev = slot(q);

	snprintf(q->close_reason, sizeof(q->close_reason), "%s", reason ? reason : "");
	q->close.origin = origin;
	q->close.app = app;
	q->close.code = code;
	q->close.reason = q->close_reason;
	/* recv() makes it CLOSING when a close frame is to be written */
	q->close_writes = closing;
	ev->kind = SHB_QUIC_EV_CLOSED;
	ev->close = &q->close;
}

const struct fq_op *fq_op_find(const struct shb_quic_conn *q, char what,
			       uint64_t id)
{
	for (size_t i = 0; i < q->op_count; i++)
		if (q->ops[i].what == what && q->ops[i].id == id)
			return &q->ops[i];
	return NULL;
}

size_t fq_op_count(const struct shb_quic_conn *q, char what)
{
	size_t n = 0;
	for (size_t i = 0; i < q->op_count; i++)
		n += q->ops[i].what == what;
	return n;
}
