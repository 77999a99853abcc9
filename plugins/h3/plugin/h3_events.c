/* What the QUIC connection tells the HTTP/3 plugin: the handshake, the
 * server's streams and their bytes, resets, GOAWAY, the end. Runs inside
 * the QUIC calls of h3_conn.c (recv, on_timeout, close); see h3_conn.h. */
#include "h3_conn.h"

#include <stdio.h>
#include <string.h>

#include "h3_defs.h"
#include "h3_errtext.h"
#include "h3_local.h"

/* Client bidirectional (requests), client and server unidirectional
 * stream IDs (RFC 9000 Section 2.1). */
static int is_request(uint64_t id) { return (id & 3) == 0; }
static int is_ours_uni(uint64_t id) { return (id & 3) == 2; }

/* ---- requests ---------------------------------------------------------- */

/* ABI 1.4: the response kept for req (runs that want responses), handed
 * to the core before req_done. A section the field decoder could not read
 * (it passed the streaming checks, so only a cap) goes without fields. */
static void deliver(struct shb_h3_conn *c, const struct shb_h3_req *req)
{
	const struct shb_host *h = c->mod->host;
	const struct shb_h3_keep *k = req->keep;

	if (!SHB_HAS(h, struct shb_host, req_response) || !h->req_response)
		return;
	long n = k->nfields;
	struct shb_response resp = {
		.struct_size = sizeof(resp),
		.status = req->resp.status,
		.flags = k->truncated ? SHB_RESP_BODY_TRUNCATED : 0,
		.headers = n > 0 ? (const struct shb_kv *)(void *)k->kvs.p : NULL,
		.header_count = n > 0 ? (size_t)n : 0,
		.body = k->body.len ? k->body.p : NULL,
		.body_len = k->body.len,
	};
	h->req_response(c->handle, req->cookie, &resp);
}

/* Reports `req` and forgets it; the stream is retired with `retire_code`
 * (used only for what is left of it: unsent request bytes, an unread
 * response). */
static void finish(struct shb_h3_conn *c, struct shb_h3_req *req,
		   uint32_t outcome, uint64_t err_code, const char *detail,
		   uint64_t retire_code)
{
	struct shb_req_result res;
	uint64_t id = req->id, cookie = req->cookie;

	memset(&res, 0, sizeof(res));
	res.struct_size = sizeof(res);
	res.outcome = outcome;
	if (outcome == SHB_REQ_OK) {
		res.status = req->resp.status;
	} else if (outcome == SHB_REQ_RESET || outcome == SHB_REQ_PROTO_ERROR) {
		res.err_space = SHB_ERRSPACE_H3;
		res.err_code = err_code;
	}
	res.rx_header_bytes = req->resp.header_bytes;
	res.rx_body_bytes = req->resp.body_bytes;
	res.ts_first_byte = req->ts_first_byte;
	res.ts_done = c->now;
	res.detail = detail;
	if (outcome == SHB_REQ_OK && req->keep)
		deliver(c, req);
	shb_h3_qpack_forget(c, req);
	shb_h3_reqtab_remove(&c->reqs, req);
	c->ops->retire(c->q, id, retire_code);
	c->mod->host->req_done(c->handle, cookie, &res);
}

/* The response bytes of req's stream, in order. */
static void feed_request(struct shb_h3_conn *c, struct shb_h3_req *req,
			 const uint8_t *data, size_t len, int fin)
{
	uint64_t id = req->id;
	char code[64];
	int rc = shb_h3_resp_feed(&req->resp, data, len, fin);

	if (req->resp.acks)
		shb_h3_qpack_acks(c, req);
	switch (rc) {
	case SHB_H3_RESP_MORE:
		return;
	case SHB_H3_RESP_BLOCKED:
		if (c->mod->trace)
			shb_h3_trace(c, "stream %llu blocked: Required Insert "
				     "Count %llu, %llu inserts seen",
				     (unsigned long long)id,
				     (unsigned long long)req->resp.qd.ric,
				     (unsigned long long)c->peer.table.inserted);
		shb_h3_qpack_hold(c, req, data ? data + req->resp.used : data,
				  len - req->resp.used, fin);
		return;
	case SHB_H3_RESP_DONE:
		if (c->mod->trace)
			shb_h3_trace(c, "stream %llu: %u, %llu body bytes",
				     (unsigned long long)id, req->resp.status,
				     (unsigned long long)req->resp.body_bytes);
		finish(c, req, SHB_REQ_OK, 0, NULL, SHB_H3_NO_ERROR);
		return;
	case SHB_H3_RESP_E_STREAM:
		snprintf(c->scratch, sizeof(c->scratch),
			 "malformed HTTP/3 response: %s (%s)",
			 req->resp.detail ? req->resp.detail : "stream error",
			 shb_h3_app_code_text(req->resp.error, code, sizeof(code)));
		if (c->mod->debug)
			shb_h3_trace(c, "stream %llu: %s", (unsigned long long)id,
				     c->scratch);
		finish(c, req, SHB_REQ_PROTO_ERROR, req->resp.error, c->scratch,
		       req->resp.error);
		return;
	default:
		shb_h3_conn_fail(c, req->resp.error, "response on stream %llu: %s",
				 (unsigned long long)id,
				 req->resp.detail ? req->resp.detail : "malformed");
		return;
	}
}

static void on_request_data(struct shb_h3_conn *c, uint64_t id,
			    const uint8_t *data, size_t len, int fin)
{
	struct shb_h3_req *req = shb_h3_reqtab_find(&c->reqs, id);

	if (!req)
		return; /* cancelled or refused meanwhile */
	if (!req->ts_first_byte)
		req->ts_first_byte = c->now;
	if (req->resp.blocked) /* in order, after what it holds */
		shb_h3_qpack_hold(c, req, data, len, fin);
	else
		feed_request(c, req, data, len, fin);
}

/* The encoder stream added entries: the streams they unblock go on, then
 * the encoder learns what we received (Section 4.4.3). */
static void on_inserts(struct shb_h3_conn *c)
{
	struct shb_buf held;
	uint64_t id;
	int fin;

	while (!c->ended && shb_h3_qpack_ready(c, &held, &fin, &id)) {
		struct shb_h3_req *req = shb_h3_reqtab_find(&c->reqs, id);

		if (req) /* nothing held: no memory either */
			feed_request(c, req, held.p ? held.p : (const uint8_t *)"",
				     held.len, fin);
		shb_buf_free(&held);
	}
	shb_h3_qpack_increment(c);
}

static void on_request_reset(struct shb_h3_conn *c, uint64_t id,
			     uint64_t code)
{
	struct shb_h3_req *req = shb_h3_reqtab_find(&c->reqs, id);
	char text[64];

	if (!req)
		return;
	shb_h3_app_code_text(code, text, sizeof(text));
	if (code == SHB_H3_REQUEST_REJECTED ||
	    (c->goaway && id >= c->peer.goaway_id)) {
		/* Provably not processed (RFC 9114 Section 4.1.1): the core
		 * sends it again. */
		if (c->mod->debug)
			shb_h3_trace(c, "stream %llu refused by the server: %s",
				     (unsigned long long)id, text);
		finish(c, req, SHB_REQ_REFUSED, code, NULL,
		       SHB_H3_REQUEST_CANCELLED);
		return;
	}
	snprintf(c->scratch, sizeof(c->scratch), "stream reset by the server: %s",
		 text);
	if (c->mod->debug)
		shb_h3_trace(c, "stream %llu: %s", (unsigned long long)id,
			     c->scratch);
	finish(c, req, SHB_REQ_RESET, code, c->scratch, SHB_H3_REQUEST_CANCELLED);
}

/* ---- GOAWAY ------------------------------------------------------------ */

/* Requests on streams at or above the GOAWAY ID were not processed
 * (RFC 9114 Section 5.2): cancel them and give them back to the core. */
static void retire_above_goaway(struct shb_h3_conn *c, uint64_t gid)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i <= c->reqs.mask && c->reqs.count;) {
		struct shb_h3_req *req = shb_h3_reqtab_at(&c->reqs, i);
		if (!req || req->id < gid) {
			i++;
			continue;
		}
		/* The removal may shift another entry into slot i. */
		c->ops->stream_reset(c->q, req->id, SHB_H3_REQUEST_CANCELLED);
		finish(c, req, SHB_REQ_REFUSED, 0, NULL, SHB_H3_REQUEST_CANCELLED);
		n++;
	}
	if (c->mod->debug && n)
		shb_h3_trace(c, "%u request%s at or above stream %llu cancelled "
			     "(H3_REQUEST_CANCELLED) and refused", n,
			     n == 1 ? "" : "s", (unsigned long long)gid);
}

static void on_goaway(struct shb_h3_conn *c)
{
	uint64_t gid = c->peer.goaway_id;
	struct shb_conn_event ev;

	if (c->mod->debug)
		shb_h3_trace(c, "GOAWAY: stream %llu, %u request%s in flight",
			     (unsigned long long)gid, c->reqs.count,
			     c->reqs.count == 1 ? "" : "s");
	c->goaway = 1;
	c->draining = 1;
	retire_above_goaway(c, gid);
	memset(&ev, 0, sizeof(ev));
	ev.struct_size = sizeof(ev);
	ev.kind = SHB_CEV_GOAWAY;
	ev.err_space = SHB_ERRSPACE_H3;
	ev.last_accepted = gid >= 4 ? gid - 4 : UINT64_MAX;
	c->mod->host->conn_event(c->handle, &ev);
}

/* ---- the server's unidirectional streams --------------------------------- */

static struct shb_h3_peer_uni *find_uni(struct shb_h3_conn *c, uint64_t id)
{
	for (uint32_t i = 0; i < SHB_H3_UNI_SLOTS; i++)
		if (c->uni[i].used && c->uni[i].id == id)
			return &c->uni[i];
	return NULL;
}

static void on_uni_opened(struct shb_h3_conn *c, uint64_t id)
{
	for (uint32_t i = 0; i < SHB_H3_UNI_SLOTS; i++) {
		if (c->uni[i].used)
			continue;
		c->uni[i].used = 1;
		c->uni[i].id = id;
		shb_h3_uni_init(&c->uni[i].u);
		return;
	}
	/* More than we track: only critical streams are kept, and there are
	 * three, so this one can only be of an ignored type. */
	c->ops->retire(c->q, id, SHB_H3_STREAM_CREATION_ERROR);
}

static const char *uni_name(const struct shb_h3_uni *u)
{
	switch (u->kind) {
	case SHB_H3_UNI_CONTROL: return "control";
	case SHB_H3_UNI_QPACK_ENCODER: return "QPACK encoder";
	case SHB_H3_UNI_QPACK_DECODER: return "QPACK decoder";
	default: return "unidirectional";
	}
}

static void on_uni_data(struct shb_h3_conn *c, uint64_t id,
			const uint8_t *data, size_t len, int fin)
{
	struct shb_h3_peer_uni *s = find_uni(c, id);
	int rc;

	if (!s)
		return;
	rc = shb_h3_uni_feed(&c->peer, &s->u, data, len, fin);
	if (rc == SHB_H3_PEER_ERROR) {
		shb_h3_conn_fail(c, c->peer.error, "server %s stream %llu: %s",
				 uni_name(&s->u), (unsigned long long)id,
				 c->peer.detail ? c->peer.detail : "malformed");
		return;
	}
	if ((rc & SHB_H3_EV_SETTINGS) && c->mod->debug)
		shb_h3_trace(c, "server SETTINGS: max_field_section_size %llu, "
			     "qpack_max_table_capacity %llu, blocked_streams %llu",
			     (unsigned long long)c->peer.max_field_section_size,
			     (unsigned long long)c->peer.qpack_max_table_capacity,
			     (unsigned long long)c->peer.qpack_blocked_streams);
	if (rc & SHB_H3_EV_INSERTS)
		on_inserts(c);
	if (rc & SHB_H3_EV_GOAWAY)
		on_goaway(c);
	if (c->ended)
		return;
	if (s->u.kind == SHB_H3_UNI_IGNORED) {
		/* RFC 9114 Section 6.2: stop reading unknown stream types. */
		c->ops->retire(c->q, id, SHB_H3_STREAM_CREATION_ERROR);
		s->used = 0;
	} else if (fin) {
		s->used = 0; /* ended before its type: ignored */
	}
}

static void on_uni_reset(struct shb_h3_conn *c, uint64_t id)
{
	struct shb_h3_peer_uni *s = find_uni(c, id);

	if (!s)
		return;
	if (shb_h3_uni_reset(&c->peer, &s->u) == SHB_H3_PEER_ERROR) {
		shb_h3_conn_fail(c, c->peer.error, "server reset its %s stream %llu",
				 uni_name(&s->u), (unsigned long long)id);
		return;
	}
	s->used = 0;
}

/* ---- handshake and end ------------------------------------------------- */

/* Opens one of our uni streams with bytes[len]; its id into *out. */
static int open_local(struct shb_h3_conn *c, const uint8_t *bytes, size_t len,
		      uint64_t *out)
{
	int64_t id = c->ops->uni_open(c->q);

	if (id < 0)
		return -1;
	*out = (uint64_t)id;
	return c->ops->uni_send(c->q, (uint64_t)id, bytes, len);
}

/* 1.4: the SETTINGS of our control stream, read back from its octets,
 * for the report (the host keeps the run's first). */
static void report_settings(struct shb_h3_conn *c, const uint8_t *ctl, size_t n)
{
	const struct shb_host *h = c->mod->host;
	char text[SHB_CONN_FP_MAX + 1];

	if (SHB_HAS(h, struct shb_host, conn_fingerprint) && h->conn_fingerprint &&
	    shb_h3_local_settings_text(ctl, n, text, sizeof(text)))
		h->conn_fingerprint(c->handle, SHB_FP_H3_SETTINGS, text);
}

/* Our control stream's opening: the profile's SETTINGS, its QPACK ones
 * no higher than the run's decoder takes (conf), or shb's own. */
static size_t local_control(const struct shb_h3_conn *c, uint8_t *ctl,
			    size_t cap, uint32_t grease)
{
	const struct shb_h3_conn_config *k = &c->mod->conf;
	struct shb_h3_setting s[SHB_H3_LOCAL_SETTINGS_MAX];
	size_t n = c->mod->prof ? shb_h3_profile_settings(
					  c->mod->prof, k->qpack_max_table_capacity,
					  k->qpack_blocked_streams, s)
				: 0;

	if (n == 0)
		return shb_h3_local_control(ctl, cap, k, grease);
	return shb_h3_local_control_list(ctl, cap, s, n, grease);
}

static void on_handshake(struct shb_h3_conn *c)
{
	uint8_t ctl[SHB_H3_LOCAL_CONTROL_MAX];
	uint32_t grease = 0;
	size_t n;
	struct shb_conn_event ev;

	c->hs_done = 1;
	/* A reserved setting keeps servers honest about ignoring unknown
	 * ones (RFC 9114 Section 7.2.4.1). */
	if (c->mod->host->random_secure)
		(void)c->mod->host->random_secure(&grease, sizeof(grease));
	n = local_control(c, ctl, sizeof(ctl), grease);
	report_settings(c, ctl, n);
	uint64_t qpack_id;

	if (n == 0 || open_local(c, ctl, n, &c->ctl_id) < 0 ||
	    open_local(c, shb_h3_local_encoder_stream, 1, &qpack_id) < 0 ||
	    open_local(c, shb_h3_local_decoder_stream, 1, &c->qdec_id) < 0) {
		shb_h3_conn_fail(c, SHB_H3_STREAM_CREATION_ERROR,
				 "cannot open the control and QPACK streams "
				 "(the server must allow 3 unidirectional streams)");
		return;
	}
	if (c->mod->debug) {
		struct shb_quic_conn_stats st;
		c->ops->stats(c->q, &st);
		shb_h3_trace(c, "QUIC handshake done in %.3f ms%s; control and "
			     "QPACK streams open; %u request streams available",
			     st.ts_handshake > st.ts_first_sent ?
				     (double)(st.ts_handshake - st.ts_first_sent) / 1e6 : 0.0,
			     st.retried ? " (after a Retry)" : "",
			     c->ops->bidi_available(c->q));
	}
	memset(&ev, 0, sizeof(ev));
	ev.struct_size = sizeof(ev);
	ev.kind = SHB_CEV_HANDSHAKE_DONE;
	c->mod->host->conn_event(c->handle, &ev);
}

/* Whether a close by the server or by idleness left nothing behind: then
 * it is the normal end of a connection and the core just replaces it. */
static int clean_end(const struct shb_h3_conn *c,
		     const struct shb_quic_close_info *ci)
{
	if (c->reqs.count || !c->issued)
		return 0;
	if (ci->origin == SHB_QUIC_CLOSE_IDLE)
		return 1;
	return ci->origin == SHB_QUIC_CLOSE_PEER &&
	       ((ci->app && ci->code == SHB_H3_NO_ERROR) ||
		(!ci->app && ci->code == 0));
}

static void report_conn_error(struct shb_h3_conn *c,
			      const struct shb_quic_close_info *ci)
{
	struct shb_conn_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.struct_size = sizeof(ev);
	ev.kind = SHB_CEV_CONN_ERROR;
	if (ci->origin == SHB_QUIC_CLOSE_LOCAL || ci->app)
		ev.err_space = SHB_ERRSPACE_H3;
	else if (ci->code >= 0x100 && ci->code <= 0x1ff)
		ev.err_space = SHB_ERRSPACE_TLS_ALERT;
	else if (ci->origin == SHB_QUIC_CLOSE_ERROR ||
		 ci->origin == SHB_QUIC_CLOSE_PEER)
		ev.err_space = SHB_ERRSPACE_QUIC_TRANSPORT;
	ev.err_code = ev.err_space == SHB_ERRSPACE_TLS_ALERT ? ci->code - 0x100 :
		      ci->code;
	ev.detail = c->detail;
	c->mod->host->conn_event(c->handle, &ev);
}

static void on_closed(struct shb_h3_conn *c, const struct shb_quic_close_info *ci)
{
	struct shb_h3_close_ctx ctx;
	uint32_t qst = c->ops->state(c->q);

	c->ended = 1;
	if (ci->origin == SHB_QUIC_CLOSE_LOCAL) {
		c->end_rc = c->local_err;
	} else {
		char text[sizeof(c->detail)];
		ctx.handshake_timeout = c->mod->handshake_timeout;
		ctx.idle_timeout = c->ops->idle_timeout(c->q);
		ctx.handshake_done = c->hs_done;
		ctx.has_cert = c->mod->has_cert;
		c->end_rc = shb_h3_close_describe(ci, &ctx, text, sizeof(text));
		if (c->end_rc == 0 && ci->origin != SHB_QUIC_CLOSE_NONE)
			c->end_rc = SHB_E_CLOSED;
		if (clean_end(c, ci))
			c->end_rc = 0;
		memcpy(c->detail, text, sizeof(c->detail));
	}
	/* Our own CONNECTION_CLOSE still has to go out: report after, the
	 * clean end too. Reported at once, the core would close the socket
	 * before the close left it, and the server, its last response
	 * never acknowledged, would keep the connection until its idle
	 * timeout. */
	c->deferred = qst == SHB_QUIC_CONN_CLOSING;
	if (c->mod->debug) {
		struct shb_quic_conn_stats st;
		c->ops->stats(c->q, &st);
		shb_h3_trace(c, "connection ended: %s (%u request%s in flight; "
			     "%llu requests, packets sent %llu received %llu "
			     "lost %llu, %llu PTOs, rtt %.3f ms)",
			     c->detail[0] ? c->detail : "closed by us",
			     c->reqs.count, c->reqs.count == 1 ? "" : "s",
			     (unsigned long long)c->issued,
			     (unsigned long long)st.packets_sent,
			     (unsigned long long)st.packets_received,
			     (unsigned long long)st.packets_lost,
			     (unsigned long long)st.pto_count,
			     (double)st.smoothed_rtt / 1e6);
	}
	if (c->end_rc < 0)
		report_conn_error(c, ci);
}

/* ---- dispatch ------------------------------------------------------------ */

void shb_h3_on_event(void *user, const struct shb_quic_event *ev)
{
	struct shb_h3_conn *c = user;

	switch (ev->kind) {
	case SHB_QUIC_EV_HANDSHAKE_DONE:
		on_handshake(c);
		break;
	case SHB_QUIC_EV_STREAM_OPENED:
		if (!is_request(ev->stream_id) && !is_ours_uni(ev->stream_id))
			on_uni_opened(c, ev->stream_id);
		break;
	case SHB_QUIC_EV_STREAM_DATA:
		if (is_request(ev->stream_id))
			on_request_data(c, ev->stream_id, ev->data, ev->len, ev->fin);
		else
			on_uni_data(c, ev->stream_id, ev->data, ev->len, ev->fin);
		break;
	case SHB_QUIC_EV_STREAM_RESET:
		if (is_request(ev->stream_id))
			on_request_reset(c, ev->stream_id, ev->code);
		else
			on_uni_reset(c, ev->stream_id);
		break;
	case SHB_QUIC_EV_STOP_SENDING:
		/* A request may still be answered: keep reading. One of our
		 * critical streams must never be stopped. */
		if (is_ours_uni(ev->stream_id))
			shb_h3_conn_fail(c, SHB_H3_CLOSED_CRITICAL_STREAM,
					 "the server stopped our stream %llu",
					 (unsigned long long)ev->stream_id);
		else if (c->mod->debug)
			shb_h3_trace(c, "stream %llu: STOP_SENDING %llu",
				     (unsigned long long)ev->stream_id,
				     (unsigned long long)ev->code);
		break;
	case SHB_QUIC_EV_CLOSED:
		if (ev->close)
			on_closed(c, ev->close);
		break;
	default:
		break; /* STREAMS_AVAILABLE: capacity() asks anew */
	}
}
