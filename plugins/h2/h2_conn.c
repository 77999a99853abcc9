/* HTTP/2 connection: vtable entries and the stream table. See h2_conn.h. */
#include "h2_conn.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* We do not announce SETTINGS_HEADER_TABLE_SIZE, so the peer's encoder may
 * fill the default: the decoder's ring must hold it. */
_Static_assert(SHB_H2_DEFAULT_TABLE_SIZE <= SHB_H2_DTABLE_MAX,
	       "the decoder table holds the default table size");

void shb_h2_trace(const struct shb_h2_conn *c, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	c->mod->host->log(SHB_LOG_DEBUG, SHB_H2_PLUGIN_ID, line);
}

int shb_h2_conn_error(struct shb_h2_conn *c, uint32_t code, const char *fmt,
		      ...)
{
	va_list ap;
	int n = snprintf(c->detail_buf, sizeof(c->detail_buf), "h2: ");

	va_start(ap, fmt);
	vsnprintf(c->detail_buf + n, sizeof(c->detail_buf) - (size_t)n, fmt, ap);
	va_end(ap);
	c->detail = c->detail_buf;
	if (c->mod->debug)
		shb_h2_trace(c, "connection error %s: %s",
			     shb_h2_error_name(code), c->detail);
	/* Best effort: the core closes the connection right after. We
	 * never accept server streams, so the last id is 0. */
	(void)shb_h2_send_goaway(c, 0, code);
	c->closed = 1;
	return SHB_E_PROTO;
}

/* ---- stream table --------------------------------------------------------- */

int shb_h2_stream_used_id(const struct shb_h2_conn *c, uint32_t id)
{
	return (id & 1) && (id >> 1) < c->next_k;
}

/* The observer may set the app outcome and detail, and turn OK into a
 * protocol error; whatever else it changed is put back, and an app
 * outcome on a result that is not OK is dropped. */
static void on_result(struct shb_h2_conn *c, uint64_t cookie,
		      struct shb_req_result *res)
{
	struct shb_req_result keep = *res;

	c->mod->obs.on_result(c->handle, cookie, res);
	if (!(keep.outcome == SHB_REQ_OK && res->outcome == SHB_REQ_PROTO_ERROR))
		res->outcome = keep.outcome;
	res->struct_size = keep.struct_size;
	res->status = keep.status;
	res->err_space = keep.err_space;
	res->err_code = keep.err_code;
	res->rx_header_bytes = keep.rx_header_bytes;
	res->rx_body_bytes = keep.rx_body_bytes;
	res->ts_first_byte = keep.ts_first_byte;
	res->ts_done = keep.ts_done;
	if (res->outcome == SHB_REQ_PROTO_ERROR && keep.outcome == SHB_REQ_OK) {
		res->status = 0;
		/* An application protocol error, not an HTTP/2 one. */
		res->err_space = SHB_ERRSPACE_NONE;
		res->err_code = 0;
	}
	/* An app outcome belongs to a complete response only. */
	if (res->outcome != SHB_REQ_OK) {
		res->app_space = SHB_APPSPACE_NONE;
		res->app_code = 0;
		res->app_ok = 0;
	}
}

/* A header block or DATA frame still being read for s (the core may
 * cancel between two recv calls) must not land in the slot's next
 * stream. */
static inline void forget_reads(struct shb_h2_conn *c,
				const struct shb_h2_stream *s)
{
	if (c->hb_stream == s)
		c->hb_stream = NULL;
	if (c->rd.st == s)
		c->rd.st = NULL;
}

/* What the core is told of s's end (inline: the complete-response path
 * below passes SHB_REQ_OK, and its branches fold away). */
static inline struct shb_req_result stream_result(const struct shb_h2_conn *c,
						  const struct shb_h2_stream *s,
						  uint32_t outcome, uint64_t err_code,
						  const char *detail)
{
	return (struct shb_req_result){
		.struct_size = sizeof(struct shb_req_result),
		.outcome = outcome,
		.status = outcome == SHB_REQ_OK ? s->status : 0,
		.err_space = outcome == SHB_REQ_OK ? SHB_ERRSPACE_NONE
						   : SHB_ERRSPACE_H2,
		.err_code = err_code,
		.rx_header_bytes = s->rx_header_bytes,
		.rx_body_bytes = s->rx_body_bytes,
		.ts_first_byte = s->ts_first_byte,
		.ts_done = c->now,
		.detail = detail,
	};
}

/* shb_h2_stream_finish, every case. */
static __attribute__((noinline)) void
finish_checked(struct shb_h2_conn *c, struct shb_h2_stream *s,
	       uint32_t outcome, uint64_t err_code, const char *detail)
{
	if (s->body_pending) {
		s->body_pending = 0;
		c->body_streams--;
		/* The response is complete while our body is not: stop the
		 * stream instead of leaving it half open at the server. */
		if (outcome == SHB_REQ_OK)
			(void)shb_h2_send_rst_stream(c, s->id, SHB_H2_CANCEL);
	}
	forget_reads(c, s);
	if (c->mod->debug)
		shb_h2_trace(c, "stream %u done: outcome %u status %u, %llu head + %llu body octets",
			     s->id, outcome, s->status,
			     (unsigned long long)s->rx_header_bytes,
			     (unsigned long long)s->rx_body_bytes);
	if (outcome != SHB_REQ_CANCELLED) {
		struct shb_req_result res =
			stream_result(c, s, outcome, err_code, detail);
		uint64_t cookie = s->cookie;

		if (c->keep && outcome == SHB_REQ_OK)
			shb_h2_keep_deliver(c, s);
		shb_h2_stream_clear(s);
		c->open--;
		if (c->mod->obs.on_result)
			on_result(c, cookie, &res);
		c->mod->host->req_done(c->handle, cookie, &res);
		return;
	}
	shb_h2_stream_clear(s);
	c->open--;
}

void shb_h2_stream_finish(struct shb_h2_conn *c, struct shb_h2_stream *s,
			  uint32_t outcome, uint64_t err_code,
			  const char *detail)
{
	uint64_t cookie = s->cookie;
	struct shb_req_result res;

	/* Most streams: a complete response, no body of ours left to stop,
	 * nothing to trace, keep or show an observer. finish_checked does
	 * the same for them; apart, the registers its other cases need are
	 * not saved for every response. */
	if (outcome != SHB_REQ_OK || s->body_pending || c->mod->debug ||
	    c->keep || c->mod->obs.on_result) {
		finish_checked(c, s, outcome, err_code, detail);
		return;
	}
	forget_reads(c, s);
	res = stream_result(c, s, SHB_REQ_OK, err_code, detail);
	shb_h2_stream_clear(s);
	c->open--;
	c->mod->host->req_done(c->handle, cookie, &res);
}

/* ---- life cycle ------------------------------------------------------------ */

static uint32_t pow2_at_least(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

int shb_h2_conn_init(void *module, void *worker, void *conn,
		     struct shb_conn *handle, shb_tstamp now)
{
	struct shb_h2_conn *c = conn;
	const struct shb_h2_module *m = module;
	uint32_t nslots = pow2_at_least(m->parallel ? m->parallel : 1);

	memset(c, 0, sizeof(*c));
	c->mod = m;
	c->handle = handle;
	c->now = now;
	shb_h2_out_init(c);
	shb_buf_init(&c->vblock, 256, SHB_H2_REQ_BLOCK_MAX);
	c->streams = calloc(nslots, sizeof(*c->streams));
	if (!c->streams)
		return SHB_E_NOMEM;
	c->slot_mask = nslots - 1;
	c->peer_max_streams = SHB_H2_ASSUMED_MAX_STREAMS;
	c->peer_max_frame = SHB_H2_MIN_FRAME_SIZE;
	c->peer_initial_window = SHB_H2_DEFAULT_WINDOW;
	c->enc_table_size = SHB_H2_DEFAULT_TABLE_SIZE;
	/* Our decoder's table is the size our SETTINGS announce (4096
	 * unless a profile says more). */
	if (shb_h2_dtable_init_big(&c->dtable, m->preface.table_size) < 0) {
		free(c->streams);
		c->streams = NULL;
		return SHB_E_NOMEM;
	}
	/* Fields are decoded for an observer or a kept response only: the
	 * dynamic table keeps its octets then. */
	if ((m->want_response && shb_h2_keep_init(c) != SHB_OK) ||
	    ((m->observed || m->want_response) &&
	     !(c->dtable_octets = malloc(shb_h2_dtable_ring(&c->dtable))))) {
		shb_h2_keep_free(c);
		shb_h2_dtable_free(&c->dtable);
		free(c->streams);
		c->streams = NULL;
		return SHB_E_NOMEM;
	}
	if (c->dtable_octets)
		shb_h2_dtable_keep_octets(&c->dtable, c->dtable_octets);
	/* Past the idle streams a profile's PRIORITY frames name. */
	c->next_k = m->preface.first_k;
	c->send_window = SHB_H2_DEFAULT_WINDOW;
	c->recv_window = SHB_H2_DEFAULT_WINDOW;
	return SHB_OK;
}

void shb_h2_conn_fini(void *conn)
{
	struct shb_h2_conn *c = conn;

	/* Outstanding cookies are the core's to complete. */
	for (uint32_t k = 0; c->vbody && k <= c->slot_mask; k++)
		shb_buf_free(&c->vbody[k]);
	free(c->vbody);
	c->vbody = NULL;
	shb_buf_free(&c->vblock);
	free(c->streams);
	c->streams = NULL;
	free(c->dtable_octets);
	c->dtable_octets = NULL;
	shb_h2_dtable_free(&c->dtable);
	shb_h2_fields_free(&c->fields);
	shb_h2_keep_free(c);
	shb_h2_own_free(c);
	shb_h2_out_free(c);
}

int shb_h2_conn_transport_ready(void *conn,
				const struct shb_transport_info *info,
				shb_tstamp now)
{
	struct shb_h2_conn *c = conn;

	c->now = now;
	if (c->mod->debug && info &&
	    SHB_HAS(info, struct shb_transport_info, alpn))
		shb_h2_trace(c, "transport ready (alpn %s)",
			     info->alpn ? info->alpn : "none");
	c->ready = 1;
	return shb_h2_send_preface(c);
}

shb_ssize shb_h2_conn_recv(void *conn, const uint8_t *data, size_t len,
			   shb_tstamp now)
{
	struct shb_h2_conn *c = conn;

	c->now = now;
	if (c->closed)
		return (shb_ssize)len; /* the core is closing it */
	return shb_h2_read(c, data, len);
}

int shb_h2_conn_recv_eof(void *conn, shb_tstamp now)
{
	struct shb_h2_conn *c = conn;

	c->now = now;
	if (c->closed || c->open == 0) {
		c->closed = 1;
		return SHB_OK;
	}
	c->closed = 1;
	if (!c->got_settings)
		snprintf(c->detail_buf, sizeof(c->detail_buf),
			 "h2: the server closed the connection before its "
			 "SETTINGS (does it speak HTTP/2 on this port?)");
	else if (c->goaway_rcvd)
		snprintf(c->detail_buf, sizeof(c->detail_buf),
			 "h2: the server closed the connection after GOAWAY "
			 "(%s) with %u streams open",
			 shb_h2_error_name(c->goaway_code), c->open);
	else
		snprintf(c->detail_buf, sizeof(c->detail_buf),
			 "h2: the server closed the connection with %u "
			 "streams open", c->open);
	c->detail = c->detail_buf;
	return SHB_E_CLOSED;
}

shb_ssize shb_h2_conn_pull_send(void *conn, struct shb_vec *vecs, size_t max,
				shb_tstamp now)
{
	struct shb_h2_conn *c = conn;

	c->now = now;
	if (!c->ready)
		return 0;
	return shb_h2_out_pull(c, vecs, max);
}

void shb_h2_conn_sent(void *conn, size_t n, shb_tstamp now)
{
	struct shb_h2_conn *c = conn;

	c->now = now;
	shb_h2_out_sent(c, n);
}

uint32_t shb_h2_conn_state(const void *conn)
{
	const struct shb_h2_conn *c = conn;
	uint32_t st = 0;

	if (c->closed)
		return SHB_CS_CLOSED;
	if (c->ready && (shb_h2_out_pending(c) || c->pump_more))
		st |= SHB_CS_WANT_WRITE;
	if (c->draining) {
		st |= SHB_CS_DRAINING;
		/* Drained: the core closes it and opens a replacement. */
		if (c->open == 0)
			st |= SHB_CS_CLOSED;
	}
	return st;
}

uint32_t shb_h2_conn_capacity(const void *conn)
{
	const struct shb_h2_conn *c = conn;
	uint32_t lim = c->mod->parallel;

	if (!c->ready || c->draining || c->closed)
		return 0;
	if (lim > c->peer_max_streams)
		lim = c->peer_max_streams;
	return lim > c->open ? lim - c->open : 0;
}

/* Takes the next free slot and returns its stream; 0 ids left makes the
 * connection drain, like a GOAWAY. */
static struct shb_h2_stream *open_stream(struct shb_h2_conn *c)
{
	uint32_t k = c->next_k;
	struct shb_h2_stream *s;

	/* Ids must only grow, not be consecutive: skipping the ids whose
	 * slot is still busy keeps lookups a mask. At most nslots steps,
	 * since fewer streams than slots are open. */
	while (c->streams[k & c->slot_mask].id)
		k++;
	s = &c->streams[k & c->slot_mask];
	s->id = 2 * k + 1;
	c->next_k = k + 1;
	c->open++;
	/* Keep enough ids for the worst case of the next open_stream. */
	if ((uint64_t)2 * (c->next_k + c->slot_mask + 1) + 1 > SHB_H2_MAX_STREAM_ID) {
		c->draining = 1;
		if (c->mod->debug)
			shb_h2_trace(c, "stream ids exhausted: draining");
	}
	return s;
}

/* The connection's Akamai fingerprint, once: the preface's part read back
 * from its octets, then the order the request's block has its
 * pseudo-headers in. A host before 1.4 (or a wrapping plugin's shorter
 * table) has no conn_fingerprint: nothing then. */
static void report_fp(struct shb_h2_conn *c, const struct shb_h2_request *r)
{
	const struct shb_host *h = c->mod->host;
	char fp[SHB_H2_FP_HEAD_MAX + 16];

	c->fp_done = 1;
	if (!SHB_HAS(h, struct shb_host, conn_fingerprint) ||
	    !h->conn_fingerprint || !c->mod->preface.fp[0])
		return;
	snprintf(fp, sizeof(fp), "%s|%s", c->mod->preface.fp, r->pseudo);
	h->conn_fingerprint(c->handle, SHB_FP_H2_AKAMAI, fp);
}

/* Starts stream s (from open_stream, its body set) for r with the header
 * block[0..len): HEADERS now, DATA as the windows allow. Inlined into
 * the three issue entries: a call of its own, with its registers saved,
 * for every request. */
static inline __attribute__((always_inline)) int start(struct shb_h2_conn *c, const struct shb_h2_request *r,
		 const struct shb_request_var *var, uint64_t cookie,
		 const uint8_t *block, size_t len, struct shb_h2_stream *s)
{
	const char *prio;
	size_t prio_len;
	int rc;

	s->cookie = cookie;
	s->req = r;
	s->send_window = (int64_t)c->peer_initial_window;
	if (!c->fp_done)
		report_fp(c, r);
	/* Most requests have no Priority field: two calls saved. */
	rc = SHB_OK;
	if (r->prio) {
		shb_h2_request_prio(r, var, &prio, &prio_len);
		rc = shb_h2_send_priority_update(c, s, prio, prio_len);
	}
	/* The template's block (issue, issue_req) has its frame made. */
	if (rc == SHB_OK)
		rc = block == r->block ? shb_h2_send_headers_as(c, s, r)
				       : shb_h2_send_headers(c, s, block, len);
	if (rc < 0) {
		shb_h2_stream_clear(s);
		c->open--;
		return rc;
	}
	if (s->body_len) {
		s->body_pending = 1;
		c->body_streams++;
		rc = shb_h2_pump(c);
		if (rc < 0)
			return SHB_OK; /* closed: the core fails the cookie */
	}
	if (c->mod->run_flags & SHB_RUN_DISABLE_KEEPALIVE)
		c->draining = 1;
	return SHB_OK;
}

int shb_h2_conn_issue(void *conn, const void *prepared, uint64_t cookie,
		      shb_tstamp now)
{
	struct shb_h2_conn *c = conn;
	const struct shb_h2_request *r = prepared;
	struct shb_h2_stream *s;

	c->now = now;
	if (!shb_h2_conn_capacity(c))
		return SHB_E_BUSY;
	if (!r)
		return SHB_E_INVAL;
	s = open_stream(c);
	s->body = r->body;
	s->body_len = r->body_len;
	return start(c, r, NULL, cookie, r->block, r->block_len, s);
}

/* Copies a varied body into the stream slot's own buffer: DATA frames
 * are cut from it later, after the call that lent it returned. */
static int keep_body(struct shb_h2_conn *c, struct shb_h2_stream *s,
		     const struct shb_request_var *var)
{
	struct shb_buf *vb;

	if (!c->vbody) {
		c->vbody = calloc(c->slot_mask + 1, sizeof(*c->vbody));
		if (!c->vbody)
			return SHB_E_NOMEM;
		for (uint32_t k = 0; k <= c->slot_mask; k++)
			shb_buf_init(&c->vbody[k], 0, SHB_H2_VAR_BODY_MAX);
	}
	vb = &c->vbody[s - c->streams];
	shb_buf_clear(vb);
	if (shb_buf_put(vb, var->body, var->body_len) != SHB_BUF_OK)
		return vb->err == SHB_BUF_E_CAP ? SHB_E_INVAL : SHB_E_NOMEM;
	s->body = vb->p;
	s->body_len = var->body_len;
	return SHB_OK;
}

int shb_h2_conn_issue_var(void *conn, const void *prepared,
			  const struct shb_request_var *var, uint64_t cookie,
			  shb_tstamp now)
{
	struct shb_h2_conn *c = conn;
	const struct shb_h2_request *r = prepared;
	struct shb_h2_stream *s;
	int rc;

	c->now = now;
	if (!shb_h2_conn_capacity(c))
		return SHB_E_BUSY;
	if (!r || !var)
		return SHB_E_INVAL;
	rc = shb_h2_request_var_block(r, var, &c->vblock);
	if (rc < 0)
		return rc;
	s = open_stream(c);
	s->body = r->body;
	s->body_len = r->body_len;
	if ((var->flags & SHB_VAR_BODY) && (rc = keep_body(c, s, var)) < 0) {
		shb_h2_stream_clear(s);
		c->open--;
		return rc;
	}
	return start(c, r, var, cookie, c->vblock.p, c->vblock.len, s);
}

/* A whole request (a redirect's next hop, a script's): encoded like a
 * template into a request the stream's slot owns until its next one. */
int shb_h2_conn_issue_req(void *conn, const struct shb_request *req,
			  uint64_t cookie, shb_tstamp now)
{
	struct shb_h2_conn *c = conn;
	struct shb_h2_request *r = NULL;
	struct shb_h2_stream *s;
	char err[128];
	int rc;

	c->now = now;
	if (!shb_h2_conn_capacity(c))
		return SHB_E_BUSY;
	if (!req || !SHB_HAS(req, struct shb_request, body_len))
		return SHB_E_INVAL;
	rc = shb_h2_request_encode(req, &r, err, sizeof(err));
	if (rc < 0)
		return rc;
	s = open_stream(c);
	rc = shb_h2_own_request(c, (uint32_t)(s - c->streams), r);
	if (rc < 0) {
		shb_h2_request_free(r);
		shb_h2_stream_clear(s);
		c->open--;
		return rc;
	}
	s->body = r->body;
	s->body_len = r->body_len;
	return start(c, r, NULL, cookie, r->block, r->block_len, s);
}

void shb_h2_conn_cancel(void *conn, uint64_t cookie, shb_tstamp now)
{
	struct shb_h2_conn *c = conn;

	c->now = now;
	for (uint32_t k = 0; k <= c->slot_mask; k++) {
		struct shb_h2_stream *s = &c->streams[k];

		if (s->id && s->cookie == cookie) {
			(void)shb_h2_send_rst_stream(c, s->id, SHB_H2_CANCEL);
			shb_h2_stream_finish(c, s, SHB_REQ_CANCELLED, 0, NULL);
			return;
		}
	}
}

void shb_h2_conn_shutdown(void *conn, uint32_t mode, shb_tstamp now)
{
	struct shb_h2_conn *c = conn;

	c->now = now;
	if (mode == SHB_SHUT_GRACEFUL && !c->closed)
		(void)shb_h2_send_goaway(c, 0, SHB_H2_NO_ERROR);
	c->draining = 1;
	c->closed = 1;
}

const char *shb_h2_conn_error_detail(const void *conn)
{
	const struct shb_h2_conn *c = conn;

	return c->detail;
}
