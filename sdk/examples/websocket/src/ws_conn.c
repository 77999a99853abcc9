/* One WebSocket connection: the upgrade, then one message out and one
 * message back per request, answered in order. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws.h"

/* RFC 6455 7.4.1 close codes the client sends or reads. */
enum {
	WS_CLOSE_NORMAL = 1000,
	WS_CLOSE_GOING_AWAY = 1001,
	WS_CLOSE_PROTOCOL = 1002,
	WS_CLOSE_NO_STATUS = 1005, /* never sent: an empty close frame */
	WS_CLOSE_TOO_BIG = 1009,
};

int ws_buf_append(struct ws_buf *b, const void *p, size_t n)
{
	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *q;

		while (cap - b->len < n)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q)
			return -1;
		b->p = q;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

void ws_buf_free(struct ws_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static int set_err(struct ws_conn *c, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return code;
}

/* Four bytes of a fresh masking key (RFC 6455 5.3: unpredictable, from a
 * strong source), taken from a batch to keep the syscalls few. */
static int next_key(struct ws_conn *c, uint8_t key[4])
{
	if (c->keys_used == 0) {
		if (c->mod->host->random_secure(c->keys, sizeof(c->keys)) != SHB_OK)
			return -1;
		c->keys_used = 0;
	}
	memcpy(key, c->keys + c->keys_used, 4);
	c->keys_used += 4;
	if (c->keys_used == sizeof(c->keys))
		c->keys_used = 0;
	return 0;
}

/* Appends one masked frame with payload p[n] to the output. */
static int queue_frame(struct ws_conn *c, uint32_t op, const void *p, size_t n)
{
	uint8_t hdr[WS_HEADER_MAX], key[4];
	size_t hlen, at;

	if (next_key(c, key))
		return set_err(c, SHB_E_FATAL, "ws: no random bytes for a masking key");
	hlen = ws_frame_header(hdr, op, 1, n, key);
	at = c->pending.len + hlen;
	if (ws_buf_append(&c->pending, hdr, hlen) ||
	    ws_buf_append(&c->pending, p, n))
		return set_err(c, SHB_E_NOMEM, "ws: out of memory");
	ws_mask(c->pending.p + at, n, key, 0);
	return SHB_OK;
}

/* Queues our close frame once. */
static void queue_close(struct ws_conn *c, uint32_t code)
{
	uint8_t b[2] = {(uint8_t)(code >> 8), (uint8_t)code};

	if (c->close_queued)
		return;
	c->close_queued = 1;
	queue_frame(c, WS_OP_CLOSE, b, code == WS_CLOSE_NO_STATUS ? 0 : 2);
}

/* The metrics go to a host of ABI 1.4 or later; an older core has no
 * metric_add and never hears of them. */
static void metric_add(struct ws_conn *c, uint32_t i, uint64_t n)
{
	const struct shb_host *h = c->mod->host;
	if (SHB_HAS(h, struct shb_host, metric_add) && h->metric_add)
		h->metric_add(c->handle, i, n);
}

static void metric_record(struct ws_conn *c, uint32_t i, uint64_t v)
{
	const struct shb_host *h = c->mod->host;
	if (SHB_HAS(h, struct shb_host, metric_record) && h->metric_record)
		h->metric_record(c->handle, i, v);
}

/* Reports the oldest request in flight. */
static void complete(struct ws_conn *c, uint32_t outcome, uint64_t app_code,
		     uint32_t app_ok, const char *detail)
{
	struct ws_slot *s = &c->slots[c->head_slot];
	struct shb_req_result r;

	memset(&r, 0, sizeof(r));
	r.struct_size = sizeof(r);
	r.outcome = outcome;
	r.status = 0; /* no HTTP status: the app outcome says it all */
	r.rx_header_bytes = s->rx_header_bytes;
	r.rx_body_bytes = s->rx_body_bytes;
	r.ts_first_byte = s->ts_first_byte;
	r.ts_done = c->now;
	r.detail = detail;
	if (outcome == SHB_REQ_OK) {
		r.app_space = SHB_APPSPACE_WEBSOCKET;
		r.app_code = app_code;
		r.app_ok = app_ok;
	}
	c->head_slot = (c->head_slot + 1) % c->mod->parallel;
	c->inflight--;
	c->mod->host->req_done(c->handle, s->cookie, &r);
}

/* The peer broke the protocol: the request being answered fails, a close
 * frame with `close_code` goes out (the core flushes it), and the
 * connection ends. */
static int proto_error(struct ws_conn *c, uint32_t close_code)
{
	if (c->inflight)
		complete(c, SHB_REQ_PROTO_ERROR, 0, 0, c->err);
	if (c->phase < WS_PHASE_CLOSING)
		queue_close(c, close_code);
	c->phase = WS_PHASE_CLOSED;
	return SHB_E_PROTO;
}

/* ---- frames in ------------------------------------------------------------ */

static int frame_begin(void *ctx, uint32_t op, uint32_t fin, uint64_t len,
		       uint32_t header_len)
{
	struct ws_conn *c = ctx;
	struct ws_slot *s = &c->slots[c->head_slot];

	if (c->close_received)
		return 0; /* nothing counts after the server's close */
	c->frame_op = op;
	c->frame_fin = fin;
	c->ctl_len = 0;
	if (op >= WS_OP_CLOSE)
		return 0;
	if (op == WS_OP_CONT && !c->msg_op)
		return set_err(c, -WS_CLOSE_PROTOCOL,
			       "ws: a continuation frame outside a message");
	if (op != WS_OP_CONT) {
		if (c->msg_op)
			return set_err(c, -WS_CLOSE_PROTOCOL,
				       "ws: a new message inside a fragmented one");
		if (!c->inflight)
			return set_err(c, -WS_CLOSE_PROTOCOL,
				       "ws: a message with no request in flight");
		c->msg_op = op;
		c->msg_len = 0;
	}
	/* Bounded before any payload is read. */
	if (len > c->mod->max_message - c->msg_len)
		return set_err(c, -WS_CLOSE_TOO_BIG,
			       "ws: a message longer than max-message (%llu bytes)",
			       (unsigned long long)c->mod->max_message);
	if (s->ts_first_byte == SHB_TSTAMP_NONE)
		s->ts_first_byte = c->now;
	s->rx_header_bytes += header_len;
	return 0;
}

static int frame_data(void *ctx, const uint8_t *p, size_t n)
{
	struct ws_conn *c = ctx;

	if (c->close_received)
		return 0;
	if (c->frame_op < WS_OP_CLOSE) {
		c->msg_len += n;
		c->slots[c->head_slot].rx_body_bytes += n;
	} else {
		/* At most 125 bytes: the decoder checked the length. */
		memcpy(c->ctl + c->ctl_len, p, n);
		c->ctl_len += (uint32_t)n;
	}
	return 0;
}

/* The server closed: every request in flight ends, by its close code. */
static int on_close(struct ws_conn *c)
{
	uint32_t code = WS_CLOSE_NO_STATUS;
	int n;

	if (c->ctl_len == 1)
		return set_err(c, -WS_CLOSE_PROTOCOL,
			       "ws: a close frame with a 1-byte payload");
	if (c->ctl_len >= 2)
		code = (uint32_t)c->ctl[0] << 8 | c->ctl[1];
	n = snprintf(c->detail, sizeof(c->detail),
		     "ws: closed by the server with %u", (unsigned)code);
	if (c->ctl_len > 2 && n > 0 && (size_t)n < sizeof(c->detail))
		snprintf(c->detail + n, sizeof(c->detail) - (size_t)n, " (%.*s)",
			 (int)(c->ctl_len - 2), (const char *)c->ctl + 2);
	/* A normal close (1000, 1001) ends the connection, not the messages
	 * in flight: they were never answered, so they are refused and shb
	 * sends them again on another connection (within its refusal budget),
	 * as a multiplexed protocol does for streams a GOAWAY left out. Any
	 * other code is the application's answer to them: an error. */
	while (c->inflight)
		if (code == WS_CLOSE_NORMAL || code == WS_CLOSE_GOING_AWAY)
			complete(c, SHB_REQ_REFUSED, 0, 0, c->detail);
		else
			complete(c, SHB_REQ_OK, code, 0, c->detail);
	queue_close(c, code);
	c->phase = WS_PHASE_CLOSING;
	c->close_received = 1;
	return 0;
}

static int frame_end(void *ctx)
{
	struct ws_conn *c = ctx;

	if (c->close_received)
		return 0;
	switch (c->frame_op) {
	case WS_OP_PING:
		/* Answered before any message queued after it. */
		return c->close_queued ? 0 : queue_frame(c, WS_OP_PONG, c->ctl, c->ctl_len);
	case WS_OP_PONG:
		return 0;
	case WS_OP_CLOSE:
		return on_close(c);
	default:
		if (!c->frame_fin)
			return 0;
		c->msg_op = 0;
		metric_add(c, WS_METRIC_RECEIVED, 1);
		/* An answer with no request waiting failed in frame_begin. */
		metric_record(c, WS_METRIC_LATENCY,
			      c->now - c->slots[c->head_slot].ts_issued);
		complete(c, SHB_REQ_OK, WS_CLOSE_NORMAL, 1, NULL);
		return 0;
	}
}

static const struct ws_dec_cb ws_dec_cbs = {
	.begin = frame_begin,
	.data = frame_data,
	.end = frame_end,
};

static shb_ssize feed_frames(struct ws_conn *c, const uint8_t *p, size_t len)
{
	int rc;

	if (c->close_received || len == 0)
		return 0; /* nothing may follow the server's close */
	rc = ws_dec_feed(&c->dec, p, len, &ws_dec_cbs, c);
	if (rc == 0)
		return 0;
	if (rc <= -WS_CLOSE_NORMAL) /* a callback's: -(close code), err set */
		return proto_error(c, (uint32_t)-rc);
	if (rc <= SHB_E_FATAL) /* out of memory or randomness */
		return rc;
	set_err(c, 0, "ws: %s", ws_dec_strerror(rc));
	return proto_error(c, WS_CLOSE_PROTOCOL);
}

/* ---- the handshake ---------------------------------------------------------- */

/* Collects the 101 answer; returns the bytes of p[len] it took, or a
 * negative code. */
static shb_ssize read_head(struct ws_conn *c, const uint8_t *p, size_t len)
{
	size_t old = c->head.len, from = old > 3 ? old - 3 : 0, take = len;
	const uint8_t *end = NULL;

	if (take > WS_RESPONSE_HEAD_MAX - old)
		take = WS_RESPONSE_HEAD_MAX - old;
	if (ws_buf_append(&c->head, p, take))
		return set_err(c, SHB_E_NOMEM, "ws: out of memory");
	for (size_t i = from; i + 4 <= c->head.len; i++) {
		if (memcmp(c->head.p + i, "\r\n\r\n", 4) == 0) {
			end = c->head.p + i + 4;
			break;
		}
	}
	if (!end) {
		if (c->head.len >= WS_RESPONSE_HEAD_MAX)
			return set_err(c, SHB_E_PROTO,
				       "ws: the answer to the upgrade is longer than %d bytes",
				       WS_RESPONSE_HEAD_MAX);
		return (shb_ssize)take;
	}
	if (ws_handshake_check((const char *)c->head.p, (size_t)(end - c->head.p),
			       c->accept, c->err, sizeof(c->err)))
		return SHB_E_PROTO;
	take = (size_t)(end - c->head.p) - old;
	ws_buf_free(&c->head);
	c->phase = WS_PHASE_OPEN;
	{
		struct shb_conn_event ev;

		memset(&ev, 0, sizeof(ev));
		ev.struct_size = sizeof(ev);
		ev.kind = SHB_CEV_HANDSHAKE_DONE;
		c->mod->host->conn_event(c->handle, &ev);
	}
	/* The run ended during the upgrade: the close the shutdown could not
	 * send before the 101 goes now. */
	if (c->close_on_open) {
		queue_close(c, WS_CLOSE_NORMAL);
		c->phase = WS_PHASE_CLOSING;
	}
	return (shb_ssize)take;
}

/* ---- the vtable's [conn] members ------------------------------------------ */

int ws_conn_init(void *module, void *worker, void *conn,
		 struct shb_conn *handle, shb_tstamp now)
{
	struct ws_conn *c = conn;

	c->mod = module;
	c->handle = handle;
	c->slots = calloc(c->mod->parallel, sizeof(*c->slots));
	return c->slots ? SHB_OK : SHB_E_NOMEM;
}

void ws_conn_fini(void *conn)
{
	struct ws_conn *c = conn;

	ws_buf_free(&c->pending);
	ws_buf_free(&c->flight);
	ws_buf_free(&c->head);
	free(c->slots);
	c->slots = NULL;
}

int ws_conn_transport_ready(void *conn, const struct shb_transport_info *info,
			    shb_tstamp now)
{
	struct ws_conn *c = conn;
	const struct shb_host *h = c->mod->host;
	const struct shb_origin *o = NULL;
	const struct ws_prepared *pr = c->mod->first;
	const char *authority = c->mod->authority;
	uint8_t key[16];

	/* The core's origin when it has one (1.2), else what the module kept. */
	if (SHB_HAS(h, struct shb_host, conn_origin) && h->conn_origin)
		o = h->conn_origin(c->handle);
	if (o && SHB_HAS(o, struct shb_origin, prepared) && o->prepared)
		pr = o->prepared;
	if (o && o->authority)
		authority = o->authority;
	if (!pr)
		return set_err(c, SHB_E_STATE, "ws: no request to build the upgrade from");
	if (h->random_secure(key, sizeof(key)) != SHB_OK)
		return set_err(c, SHB_E_FATAL, "ws: no random bytes for the key");
	if (ws_handshake_request(&c->pending, pr->path, authority, pr->headers,
				 key, c->accept))
		return set_err(c, SHB_E_NOMEM, "ws: out of memory");
	c->phase = WS_PHASE_HANDSHAKE;
	return SHB_OK;
}

shb_ssize ws_conn_recv(void *conn, const uint8_t *data, size_t len,
		       shb_tstamp now)
{
	struct ws_conn *c = conn;
	shb_ssize used = 0, rc;

	c->now = now;
	if (c->phase == WS_PHASE_HANDSHAKE) {
		used = read_head(c, data, len);
		if (used < 0)
			return used;
	}
	if (c->phase >= WS_PHASE_OPEN && c->phase < WS_PHASE_CLOSED) {
		rc = feed_frames(c, data + used, len - (size_t)used);
		if (rc < 0)
			return rc;
	}
	return (shb_ssize)len;
}

int ws_conn_recv_eof(void *conn, shb_tstamp now)
{
	struct ws_conn *c = conn;
	uint32_t phase = c->phase;

	c->phase = WS_PHASE_CLOSED;
	if (phase >= WS_PHASE_CLOSING || (phase == WS_PHASE_OPEN && !c->inflight))
		return SHB_OK;
	if (phase == WS_PHASE_HANDSHAKE)
		return set_err(c, SHB_E_CLOSED,
			       "ws: the server closed the connection during the upgrade");
	return set_err(c, SHB_E_CLOSED,
		       "ws: the server closed the connection with requests in flight (%u)",
		       (unsigned)c->inflight);
}

shb_ssize ws_conn_pull_send(void *conn, struct shb_vec *vecs, size_t max,
			    shb_tstamp now)
{
	struct ws_conn *c = conn;

	if (max == 0)
		return 0;
	if (c->flight_off == c->flight.len && c->pending.len) {
		struct ws_buf t = c->flight;

		c->flight = c->pending;
		c->pending = t;
		c->pending.len = 0;
		c->flight_off = 0;
	}
	if (c->flight_off == c->flight.len)
		return 0;
	vecs[0].base = c->flight.p + c->flight_off;
	vecs[0].len = c->flight.len - c->flight_off;
	c->flight_handed = 1;
	return 1;
}

void ws_conn_sent(void *conn, size_t n, shb_tstamp now)
{
	struct ws_conn *c = conn;

	c->flight_handed = 0;
	c->flight_off += n;
	if (c->flight_off < c->flight.len)
		return;
	c->flight.len = 0;
	c->flight_off = 0;
	/* Our close went out after the server's: the close handshake is
	 * over (RFC 6455 7.1.1 lets the client close the TCP then). Or we
	 * closed first (shutdown): the end of the run does not wait. */
	if (c->close_queued && !c->pending.len && c->phase == WS_PHASE_CLOSING)
		c->phase = WS_PHASE_CLOSED;
}

uint32_t ws_conn_state(const void *conn)
{
	const struct ws_conn *c = conn;
	uint32_t st = 0;

	if (c->pending.len || (!c->flight_handed && c->flight_off < c->flight.len))
		st |= SHB_CS_WANT_WRITE;
	if (c->phase >= WS_PHASE_CLOSING || c->close_on_open)
		st |= SHB_CS_DRAINING;
	if (c->phase == WS_PHASE_CLOSED)
		st |= SHB_CS_CLOSED;
	return st;
}

uint32_t ws_conn_capacity(const void *conn)
{
	const struct ws_conn *c = conn;

	if (c->phase != WS_PHASE_OPEN)
		return 0;
	return c->mod->parallel - c->inflight;
}

int ws_conn_issue(void *conn, const void *prepared, uint64_t cookie,
		  shb_tstamp now)
{
	struct ws_conn *c = conn;
	const struct ws_prepared *pr = prepared;
	struct ws_slot *s;
	int rc;

	if (ws_conn_capacity(c) == 0)
		return SHB_E_BUSY;
	rc = queue_frame(c, pr->opcode, pr->payload, pr->payload_len);
	if (rc != SHB_OK)
		return rc;
	s = &c->slots[(c->head_slot + c->inflight) % c->mod->parallel];
	memset(s, 0, sizeof(*s));
	s->cookie = cookie;
	s->ts_first_byte = SHB_TSTAMP_NONE;
	s->ts_issued = now;
	c->inflight++;
	metric_add(c, WS_METRIC_SENT, 1);
	return SHB_OK;
}

void ws_conn_shutdown(void *conn, uint32_t mode, shb_tstamp now)
{
	struct ws_conn *c = conn;

	if (mode == SHB_SHUT_GRACEFUL && c->phase == WS_PHASE_OPEN) {
		queue_close(c, WS_CLOSE_NORMAL);
		c->phase = WS_PHASE_CLOSING;
		return;
	}
	if (c->phase == WS_PHASE_HANDSHAKE && !c->flight.len && c->pending.len) {
		/* The upgrade was never handed out: it is not sent now either,
		 * and the server knows nothing of this connection. */
		ws_buf_free(&c->pending);
	} else if (mode == SHB_SHUT_GRACEFUL && c->phase == WS_PHASE_HANDSHAKE) {
		/* The upgrade is out: the server may accept it, and a
		 * connection it accepted deserves a close frame, which RFC
		 * 6455 4.1 lets us send only after its 101. Until then the
		 * state says DRAINING alone; a core that waits for the 101
		 * (the end of a run) gets the close frame once it came. */
		c->close_on_open = 1;
		return;
	}
	c->phase = WS_PHASE_CLOSED;
}

const char *ws_conn_error_detail(const void *conn)
{
	const struct ws_conn *c = conn;

	return c->err[0] ? c->err : NULL;
}
