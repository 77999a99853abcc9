/* The [conn] entries of the HTTP/3 plugin: see h3_conn.h. */
#include "h3_conn.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "h3_defs.h"
#include "h3_local.h"
#include "h3_request.h"
#include "quic_tp.h"

/* ---- helpers shared with h3_events.c --------------------------------------- */

void shb_h3_trace(const struct shb_h3_conn *c, const char *fmt, ...)
{
	char line[400];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "w%u.%llu: ",
		     c->worker ? c->worker->index : 0,
		     (unsigned long long)c->serial);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	c->mod->host->log(SHB_LOG_DEBUG, SHB_H3_PLUGIN_ID, line);
}

void shb_h3_conn_fail(struct shb_h3_conn *c, uint64_t h3_code,
		      const char *fmt, ...)
{
	char why[sizeof(c->detail) - 48];
	const char *name = shb_h3_error_name(h3_code);
	va_list ap;

	if (c->ended || !c->q)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (name)
		snprintf(c->detail, sizeof(c->detail), "HTTP/3 error %s (0x%llx): %s",
			 name, (unsigned long long)h3_code, why);
	else
		snprintf(c->detail, sizeof(c->detail), "HTTP/3 error 0x%llx: %s",
			 (unsigned long long)h3_code, why);
	c->local_err = SHB_E_PROTO;
	if (c->mod->debug)
		shb_h3_trace(c, "closing: %s", c->detail);
	c->ops->close(c->q, h3_code, why, c->now);
}

void shb_h3_conn_settle_drain(struct shb_h3_conn *c)
{
	if (!c->draining || c->ended || c->aborted || !c->q || c->reqs.count)
		return;
	if (c->mod->debug)
		shb_h3_trace(c, "draining done: closing with H3_NO_ERROR");
	c->ops->close(c->q, SHB_H3_NO_ERROR, NULL, c->now);
}

/* What a [conn] call returns once the events it caused were handled. */
static int settle(struct shb_h3_conn *c)
{
	if (!c->ended)
		shb_h3_conn_settle_drain(c);
	if (!c->ended || c->end_rc == 0)
		return SHB_OK;
	if (c->deferred && !c->close_sent)
		return SHB_OK; /* our CONNECTION_CLOSE goes out first */
	return c->end_rc;
}

static int trng(void *user, void *buf, size_t len)
{
	const struct shb_h3_conn *c = user;
	return c->mod->host->random_secure(buf, len) == SHB_OK ? 0 : -1;
}

static void quic_log(void *user, const char *line)
{
	shb_h3_trace(user, "quic: %s", line);
}

/* For traces: the name goes out as SNI unless it is an IP literal (the
 * QUIC layer applies the same rule). */
static const char *sni_text(const char *name)
{
	struct in_addr a4;

	if (!name || !name[0] || strchr(name, ':') || inet_pton(AF_INET, name, &a4) == 1)
		return NULL;
	return name;
}

/* ---- life cycle ------------------------------------------------------------ */

int shb_h3_conn_init(void *module, void *worker, void *conn,
		     struct shb_conn *handle, shb_tstamp now)
{
	const struct shb_h3_module *m = module;
	struct shb_h3_conn *c = conn;

	(void)now;
	memset(c, 0, sizeof(*c));
	c->mod = m;
	c->ops = m->ops;
	c->worker = worker;
	c->handle = handle;
	if (c->worker)
		c->serial = c->worker->conns++;
	shb_buf_init(&c->vsec, 64, SHB_H3_REQ_SECTION_MAX);
	if (shb_h3_qpack_init(c) < 0 ||
	    shb_h3_reqtab_init(&c->reqs, m->parallel) < 0) {
		shb_h3_qpack_fini(c);
		return SHB_E_NOMEM;
	}
	if (m->want_response) {
		if (shb_h3_reqtab_keep(&c->reqs, m->body_max) < 0) {
			shb_h3_qpack_fini(c);
			shb_h3_reqtab_free(&c->reqs);
			return SHB_E_NOMEM;
		}
	}
	return SHB_OK;
}

/* SHB_DEBUG: what the connection cost on the wire, however it ended (a
 * run's end aborts connections without a CLOSED event). "resent" is
 * stream data sent again after a loss: with "sent" it gives the share of
 * upload bytes retransmitted. */
static void trace_totals(const struct shb_h3_conn *c)
{
	struct shb_quic_conn_stats st;

	c->ops->stats(c->q, &st);
	shb_h3_trace(c, "QUIC totals: datagram bytes sent %llu received %llu; "
		     "stream bytes sent %llu resent %llu received %llu; "
		     "packets sent %llu lost %llu; %llu PTOs; cwnd %llu; "
		     "srtt %.3f ms",
		     (unsigned long long)st.bytes_sent,
		     (unsigned long long)st.bytes_received,
		     (unsigned long long)st.stream_bytes_sent,
		     (unsigned long long)st.stream_bytes_resent,
		     (unsigned long long)st.stream_bytes_received,
		     (unsigned long long)st.packets_sent,
		     (unsigned long long)st.packets_lost,
		     (unsigned long long)st.pto_count,
		     (unsigned long long)st.cwnd,
		     (double)st.smoothed_rtt / 1e6);
	if (c->peer.table.limit)
		shb_h3_trace(c, "QPACK: %llu inserts, table %u of %u octets, "
			     "%llu section acknowledgments, %llu stream "
			     "cancellations, %llu blocked streams, %llu "
			     "instructions not sent (decoder stream full)",
			     (unsigned long long)c->peer.table.inserted,
			     c->peer.table.size, c->peer.table.capacity,
			     (unsigned long long)c->qpack_acks,
			     (unsigned long long)c->qpack_cancels,
			     (unsigned long long)c->qpack_blocked,
			     (unsigned long long)c->qpack_unsent);
	if (st.datagrams_received)
		shb_h3_trace(c, "DATAGRAM frames taken and dropped: %llu",
			     (unsigned long long)st.datagrams_received);
	if (c->prio_updates || c->prio_skipped)
		shb_h3_trace(c, "PRIORITY_UPDATE frames: %llu sent, %llu not "
			     "sent (control stream full)",
			     (unsigned long long)c->prio_updates,
			     (unsigned long long)c->prio_skipped);
}

void shb_h3_conn_fini(void *conn)
{
	struct shb_h3_conn *c = conn;

	if (c->q && c->mod->debug)
		trace_totals(c);
	if (c->q)
		c->ops->conn_free(c->q);
	c->q = NULL;
	shb_h3_reqtab_free(&c->reqs);
	shb_buf_free(&c->vsec);
	shb_h3_qpack_fini(c);
}

/* Inside transport_ready, a [conn] call: the core keeps the run's first
 * ClientHello for the report's JA3/JA4, and (1.4) the transport parameter
 * ids it carries, read back from the message as a server reads them
 * (cheap no-ops after the first). */
static void client_hello(void *user, const uint8_t *msg, size_t len)
{
	struct shb_h3_conn *c = user;
	const struct shb_host *h = c->mod->host;
	char ids[SHB_CONN_FP_MAX + 1];

	if (h->tls_client_hello)
		h->tls_client_hello(c->handle, msg, len);
	if (SHB_HAS(h, struct shb_host, conn_fingerprint) && h->conn_fingerprint &&
	    shb_quic_tp_hello_ids(msg, len, ids, sizeof(ids)))
		h->conn_fingerprint(c->handle, SHB_FP_QUIC_TP, ids);
}

int shb_h3_conn_transport_ready(void *conn,
				const struct shb_transport_info *info,
				shb_tstamp now)
{
	struct shb_h3_conn *c = conn;
	const struct shb_h3_module *m = c->mod;
	struct shb_quic_conn_config cfg;
	int rc = 0;

	c->now = now;
	if (!SHB_HAS(info, struct shb_transport_info, max_dgram) ||
	    info->max_dgram < SHB_H3_DGRAM) {
		snprintf(c->detail, sizeof(c->detail),
			 "QUIC needs datagrams of %u bytes; the transport allows %u",
			 SHB_H3_DGRAM,
			 SHB_HAS(info, struct shb_transport_info, max_dgram) ?
				 info->max_dgram : 0);
		return SHB_E_UNSUPPORTED;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.tls = &m->tls;
	cfg.server_name = m->server_name;
	cfg.max_bidi_streams = m->parallel;
	cfg.max_dgram = SHB_H3_DGRAM;
	cfg.max_recv_dgram = SHB_DGRAM_RECV_MAX;
	cfg.initial_window = m->initial_window;
	cfg.no_pacing = m->no_pacing;
	cfg.idle_timeout = m->idle_timeout;
	cfg.handshake_timeout = m->handshake_timeout;
	cfg.on_event = shb_h3_on_event;
	cfg.user = c;
	cfg.log = m->debug ? quic_log : NULL;
	cfg.random = m->host->random_secure ? trng : NULL;
	if (SHB_HAS(m->host, struct shb_host, tls_client_hello) &&
	    m->host->tls_client_hello)
		cfg.client_hello = client_hello;
	/* A profile's transport parameters and what they bind (checked when
	 * the option was read). */
	if (m->prof && shb_h3_profile_quic(m->prof, &cfg) < 0) {
		snprintf(c->detail, sizeof(c->detail), "profile %s: transport "
			 "parameters the QUIC connection cannot hold", m->prof->name);
		return SHB_E_INVAL;
	}
	c->q = c->ops->conn_new(&cfg, now, &rc);
	if (!c->q) {
		snprintf(c->detail, sizeof(c->detail), "QUIC connection setup failed: %s",
			 rc == SHB_QUIC_CONN_E_NOMEM ? "out of memory" :
			 rc == SHB_QUIC_CONN_E_TLS ? "TLS session setup failed" :
			 "invalid configuration");
		return rc == SHB_QUIC_CONN_E_NOMEM ? SHB_E_NOMEM :
		       rc == SHB_QUIC_CONN_E_TLS ? SHB_E_TLS : SHB_E_INVAL;
	}
	if (m->debug)
		shb_h3_trace(c, "QUIC handshake starts (SNI %s, -p %u)",
			     sni_text(m->server_name) ? m->server_name : "none",
			     m->parallel);
	return SHB_OK;
}

/* ---- I/O ----------------------------------------------------------------- */

int shb_h3_conn_recv_dgrams(void *conn, struct shb_vec *dgrams, size_t count,
			    shb_tstamp now)
{
	struct shb_h3_conn *c = conn;
	size_t bytes = 0, i;

	c->now = now;
	if (!c->q || c->aborted)
		return SHB_OK;
	for (i = 0; i < count && !c->ended; i++) {
		bytes += dgrams[i].len;
		if (c->ops->recv(c->q, dgrams[i].base, dgrams[i].len, now) ==
		    SHB_QUIC_CONN_E_CLOSED) {
			i++;
			break;
		}
	}
	c->dgrams_in += i;
	if (c->mod->debug)
		shb_h3_trace(c, "received %zu datagram%s, %zu bytes", i,
			     i == 1 ? "" : "s", bytes);
	return settle(c);
}

shb_ssize shb_h3_conn_write_dgrams(void *conn, uint8_t *buf, size_t cap,
				   size_t *segment_size, shb_tstamp now)
{
	struct shb_h3_conn *c = conn;
	ptrdiff_t n;

	c->now = now;
	*segment_size = 0;
	if (!c->q || c->aborted)
		return 0;
	if (c->ended && c->close_sent) {
		if (c->end_rc < 0)
			return c->end_rc;
		/* Called again: the send of our close completed (the core
		 * writes only when no send is in flight). */
		c->close_done = 1;
		return 0;
	}
	n = c->ops->write(c->q, buf, cap, segment_size, now);
	if (n < 0) {
		snprintf(c->detail, sizeof(c->detail),
			 "QUIC connection refused to write (%d)", (int)n);
		return SHB_E_STATE;
	}
	if (c->ended && c->deferred &&
	    (n == 0 || c->ops->state(c->q) == SHB_QUIC_CONN_CLOSED)) {
		c->close_sent = 1;
		c->close_sent_at = now;
		if (n == 0 && c->end_rc < 0)
			return c->end_rc;
		if (n == 0)
			c->close_done = 1;
	}
	if (n > 0) {
		size_t seg = *segment_size, k = ((size_t)n + seg - 1) / seg;
		c->dgrams_out += k;
		if (c->mod->debug)
			shb_h3_trace(c, "sent %zu datagram%s, %zd bytes (segments of %zu)",
				     k, k == 1 ? "" : "s", n, seg);
	}
	return n;
}

shb_tstamp shb_h3_conn_next_deadline(const void *conn)
{
	const struct shb_h3_conn *c = conn;
	uint64_t d;

	if (!c->q || c->aborted)
		return SHB_TSTAMP_NONE;
	if (c->ended) {
		if (c->close_sent && !c->close_done)
			return c->close_sent_at + SHB_H3_CLOSE_GRACE_NS;
		return SHB_TSTAMP_NONE;
	}
	d = c->ops->deadline(c->q);
	return d == UINT64_MAX ? SHB_TSTAMP_NONE : d;
}

int shb_h3_conn_on_timer(void *conn, shb_tstamp now)
{
	struct shb_h3_conn *c = conn;

	c->now = now;
	if (!c->q || c->aborted)
		return SHB_OK;
	if (c->ended) {
		/* After our close went out the end waits for the next
		 * write_dgrams, or for the grace period. */
		if (c->close_sent && !c->close_done) {
			if (now < c->close_sent_at + SHB_H3_CLOSE_GRACE_NS)
				return SHB_OK;
			if (c->end_rc < 0)
				return c->end_rc;
			c->close_done = 1;
		}
		return settle(c);
	}
	c->ops->on_timeout(c->q, now);
	return settle(c);
}

/* ---- state --------------------------------------------------------------- */

uint32_t shb_h3_conn_state(const void *conn)
{
	const struct shb_h3_conn *c = conn;
	uint32_t st = 0;

	if (c->aborted)
		return SHB_CS_CLOSED | SHB_CS_DRAINING;
	if (!c->q)
		return 0;
	/* Our close written: WANT_WRITE until the core calls write_dgrams
	 * again, which it does once that send completed. */
	if (c->ops->want_write(c->q) ||
	    (c->ended && c->close_sent && !c->close_done))
		st |= SHB_CS_WANT_WRITE;
	if (c->draining || c->goaway || c->ended)
		st |= SHB_CS_DRAINING;
	/* A bad end is reported by returning its error, not by CLOSED: the
	 * core then fails what is in flight with our reason. A clean one
	 * waits for our close: closed at once, the socket would be shut
	 * down with the close still queued for sending. */
	if (c->ended && c->end_rc == 0 && (!c->deferred || c->close_done))
		st |= SHB_CS_CLOSED;
	return st;
}

uint32_t shb_h3_conn_capacity(const void *conn)
{
	const struct shb_h3_conn *c = conn;
	uint32_t room, avail;

	if (!c->q || !c->hs_done || c->draining || c->goaway || c->ended ||
	    c->aborted)
		return 0;
	room = c->reqs.limit - c->reqs.count;
	avail = c->ops->bidi_available(c->q);
	return avail < room ? avail : room;
}

/* ---- requests -------------------------------------------------------------- */

static int refuse_oversized(struct shb_h3_conn *c, uint64_t size,
			    uint64_t cookie)
{
	struct shb_req_result res;

	memset(&res, 0, sizeof(res));
	res.struct_size = sizeof(res);
	res.outcome = SHB_REQ_LOCAL_ERROR;
	res.ts_done = c->now;
	snprintf(c->scratch, sizeof(c->scratch),
		 "the request's header section (%llu bytes) exceeds the server's "
		 "SETTINGS_MAX_FIELD_SECTION_SIZE (%llu)",
		 (unsigned long long)size,
		 (unsigned long long)c->peer.max_field_section_size);
	res.detail = c->scratch;
	c->mod->host->req_done(c->handle, cookie, &res);
	return SHB_OK;
}

/* Opens a request stream for `cookie` with its table entry: the stream
 * id, or SHB_E_BUSY. */
static int64_t open_request(struct shb_h3_conn *c, uint64_t cookie,
			    struct shb_h3_req **out)
{
	struct shb_h3_req *req;
	int64_t id = c->ops->bidi_open(c->q);

	if (id < 0)
		return SHB_E_BUSY;
	req = shb_h3_reqtab_add(&c->reqs, (uint64_t)id);
	if (!req) {
		c->ops->retire(c->q, (uint64_t)id, SHB_H3_REQUEST_CANCELLED);
		return SHB_E_BUSY;
	}
	req->cookie = cookie;
	shb_h3_resp_init_keep(&req->resp, req->keep);
	if (c->peer.table.limit)
		shb_h3_resp_set_table(&req->resp, &c->peer.table);
	*out = req;
	return id;
}

/* Gives up a stream from open_request before anything was sent on it. */
static int drop_request(struct shb_h3_conn *c, int64_t id,
			struct shb_h3_req *req, int rc)
{
	shb_h3_reqtab_remove(&c->reqs, req);
	c->ops->retire(c->q, (uint64_t)id, SHB_H3_REQUEST_CANCELLED);
	return rc;
}

/* RFC 9218 Section 7.2: the request's Priority field again, as a
 * PRIORITY_UPDATE on our control stream, queued before the request's
 * HEADERS (QUIC orders nothing across streams; a server buffers a frame
 * for a stream it has not seen yet, Section 7). Sent whenever the
 * request has the field: HTTP/3 has no setting that announces support
 * (SETTINGS_NO_RFC7540_PRIORITIES is HTTP/2's, where RFC 7540 signals
 * existed), and a server without RFC 9218 discards the unknown frame
 * type (RFC 9114 Section 9). A control stream whose send buffer is full
 * (shb_quic_conn_uni_send: E_LIMIT) costs this request its frame, never
 * the connection. */
static void send_prio_update(struct shb_h3_conn *c, int64_t id,
			     const struct shb_h3_request *r,
			     const struct shb_request_var *var)
{
	uint8_t frame[SHB_H3_PRIORITY_UPDATE_MAX(SHB_H3_PRIORITY_VALUE_MAX)];
	const char *value;
	size_t len, n;

	if (c->mod->no_prio_update)
		return;
	shb_h3_request_prio(r, var, &value, &len);
	if (!value)
		return;
	n = len <= SHB_H3_PRIORITY_VALUE_MAX
		    ? shb_h3_local_priority_update(frame, sizeof(frame),
						   (uint64_t)id, value, len)
		    : 0;
	if (n && c->ops->uni_send(c->q, c->ctl_id, frame, n) == 0) {
		c->prio_updates++;
		return;
	}
	if (c->prio_skipped++ == 0 && c->mod->debug)
		shb_h3_trace(c, "PRIORITY_UPDATE not sent for stream %lld (value of "
			     "%zu bytes, or the control stream's buffer is full); "
			     "the Priority header still is", (long long)id, len);
}

/* Sends bytes[0..len) and FIN on the stream from open_request. */
static int send_request(struct shb_h3_conn *c, int64_t id,
			struct shb_h3_req *req, const uint8_t *bytes, size_t len)
{
	if (c->ops->bidi_send(c->q, (uint64_t)id, bytes, len, 1) < 0)
		return drop_request(c, id, req, SHB_E_STATE);
	c->issued++;
	if (c->mod->run_flags & SHB_RUN_DISABLE_KEEPALIVE)
		c->draining = 1; /* one request per connection */
	if (c->mod->trace)
		shb_h3_trace(c, "request on stream %lld", (long long)id);
	return SHB_OK;
}

int shb_h3_conn_issue(void *conn, const void *prepared, uint64_t cookie,
		      shb_tstamp now)
{
	struct shb_h3_conn *c = conn;
	const struct shb_h3_request *r = prepared;
	struct shb_h3_req *req;
	int64_t id;

	c->now = now;
	if (!r || shb_h3_conn_capacity(c) == 0)
		return SHB_E_BUSY;
	if (c->peer.settings_received &&
	    r->field_section_size > c->peer.max_field_section_size)
		return refuse_oversized(c, r->field_section_size, cookie);
	id = open_request(c, cookie, &req);
	if (id < 0)
		return (int)id;
	send_prio_update(c, id, r, NULL);
	return send_request(c, id, req, r->bytes, r->len);
}

/* The varied section is encoded into the connection's reusable buffer,
 * then the whole request is written into a buffer its QUIC stream owns:
 * the stream sends (and resends) from it after this call returned. */
int shb_h3_conn_issue_var(void *conn, const void *prepared,
			  const struct shb_request_var *var, uint64_t cookie,
			  shb_tstamp now)
{
	struct shb_h3_conn *c = conn;
	const struct shb_h3_request *r = prepared;
	struct shb_h3_req *req;
	uint64_t size;
	uint8_t *out;
	size_t need;
	int64_t id;
	int rc;

	c->now = now;
	if (!r || shb_h3_conn_capacity(c) == 0)
		return SHB_E_BUSY;
	if (!var)
		return SHB_E_INVAL;
	rc = shb_h3_request_var_section(r, var, &c->vsec, &size);
	if (rc < 0)
		return rc;
	if (c->peer.settings_received && size > c->peer.max_field_section_size)
		return refuse_oversized(c, size, cookie);
	need = shb_h3_request_var_len(r, var, c->vsec.len);
	if (need == 0)
		return SHB_E_INVAL;
	id = open_request(c, cookie, &req);
	if (id < 0)
		return (int)id;
	out = c->ops->bidi_buffer(c->q, (uint64_t)id, need);
	if (!out)
		return drop_request(c, id, req, SHB_E_NOMEM);
	shb_h3_request_var_write(r, var, c->vsec.p, c->vsec.len, out);
	send_prio_update(c, id, r, var);
	return send_request(c, id, req, out, need);
}

/* A whole request (a redirect's next hop, a script's): encoded like a
 * template, written into a buffer its QUIC stream owns. */
int shb_h3_conn_issue_req(void *conn, const struct shb_request *req,
			  uint64_t cookie, shb_tstamp now)
{
	struct shb_h3_conn *c = conn;
	struct shb_h3_request *r = NULL;
	struct shb_h3_req *hr;
	char err[128];
	int64_t id;
	int rc;

	c->now = now;
	if (shb_h3_conn_capacity(c) == 0)
		return SHB_E_BUSY;
	if (!req || !SHB_HAS(req, struct shb_request, body_len))
		return SHB_E_INVAL;
	rc = shb_h3_request_encode_as(req, &c->mod->look, &r, err, sizeof(err));
	if (rc < 0)
		return rc;
	if (c->peer.settings_received &&
	    r->field_section_size > c->peer.max_field_section_size) {
		rc = refuse_oversized(c, r->field_section_size, cookie);
	} else if ((id = open_request(c, cookie, &hr)) < 0) {
		rc = (int)id;
	} else {
		uint8_t *out = c->ops->bidi_buffer(c->q, (uint64_t)id, r->len);
		if (!out) {
			rc = drop_request(c, id, hr, SHB_E_NOMEM);
		} else {
			memcpy(out, r->bytes, r->len);
			send_prio_update(c, id, r, NULL);
			rc = send_request(c, id, hr, out, r->len);
		}
	}
	shb_h3_request_free(r);
	return rc;
}

void shb_h3_conn_cancel(void *conn, uint64_t cookie, shb_tstamp now)
{
	struct shb_h3_conn *c = conn;
	struct shb_h3_req *req;
	uint64_t id;

	c->now = now;
	if (!c->q || c->ended)
		return;
	req = shb_h3_reqtab_find_cookie(&c->reqs, cookie);
	if (!req)
		return;
	id = req->id;
	shb_h3_qpack_forget(c, req);
	shb_h3_reqtab_remove(&c->reqs, req);
	c->ops->stream_reset(c->q, id, SHB_H3_REQUEST_CANCELLED);
	c->ops->retire(c->q, id, SHB_H3_REQUEST_CANCELLED);
	if (c->mod->debug)
		shb_h3_trace(c, "stream %llu cancelled (H3_REQUEST_CANCELLED)",
			     (unsigned long long)id);
	shb_h3_conn_settle_drain(c);
}

void shb_h3_conn_shutdown(void *conn, uint32_t mode, shb_tstamp now)
{
	struct shb_h3_conn *c = conn;

	c->now = now;
	if (mode == SHB_SHUT_ABORT) {
		c->aborted = 1;
		return;
	}
	c->draining = 1;
	if (!c->q || c->ended)
		return;
	if (c->mod->debug)
		shb_h3_trace(c, "shutdown: closing with H3_NO_ERROR");
	c->ops->close(c->q, SHB_H3_NO_ERROR, NULL, now);
}

const char *shb_h3_conn_error_detail(const void *conn)
{
	const struct shb_h3_conn *c = conn;
	return c->detail[0] ? c->detail : NULL;
}
