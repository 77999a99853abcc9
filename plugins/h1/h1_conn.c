/* HTTP/1.1 connection: see h1_conn.h. */
#include "h1_conn.h"
#include "h1_resp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char unsolicited_reason[] =
	"response bytes with no request outstanding";

__attribute__((format(printf, 2, 3))) static void
trace(const struct shb_h1_conn *c, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	c->mod->host->log(SHB_LOG_DEBUG, SHB_H1_PLUGIN_ID, line);
}

/* The bytes one request puts on the wire. */
static size_t req_total(const struct shb_h1_conn *c)
{
	return c->req->total + c->abs_len;
}

static int send_pending(const struct shb_h1_conn *c)
{
	return c->req && c->send_off < req_total(c);
}

/* A core before 1.3 has no route_flags: never absolute form. */
static void pick_form(struct shb_h1_conn *c)
{
	const struct shb_host *h = c->mod->host;
	if (!SHB_HAS(h, struct shb_host, conn_origin) || !h->conn_origin)
		return;
	const struct shb_origin *o = h->conn_origin(c->handle);
	if (!o || !SHB_HAS(o, struct shb_origin, route_flags) ||
	    !(o->route_flags & SHB_ROUTE_ABSOLUTE_FORM) || !o->scheme ||
	    !o->authority)
		return;
	c->abs_scheme = o->scheme;
	c->abs_authority = o->authority;
	c->abs_len = strlen(o->scheme) + 3 + strlen(o->authority);
}

int shb_h1_conn_init(void *module, void *worker, void *conn,
		     struct shb_conn *handle, shb_tstamp now)
{
	struct shb_h1_conn *c = conn;

	memset(c, 0, sizeof(*c));
	c->mod = module;
	c->handle = handle;
	pick_form(c);
	if (!(c->mod->run_flags & SHB_RUN_WANT_RESPONSE))
		return SHB_OK;
	c->keep = calloc(1, sizeof(*c->keep));
	if (!c->keep)
		return SHB_E_NOMEM;
	/* The scanner fails a head past SHB_H1_MAX_SECTION first. */
	shb_buf_init(&c->keep->head, 1024, SHB_H1_MAX_SECTION + 2);
	shb_buf_init(&c->keep->body, 1024,
		     c->mod->body_max ? (size_t)c->mod->body_max : 1);
	c->keep->body_max = c->mod->body_max;
	shb_buf_init(&c->kvs, 32 * sizeof(struct shb_kv),
		     (SHB_H1_MAX_SECTION / 2) * sizeof(struct shb_kv));
	return SHB_OK;
}

void shb_h1_conn_fini(void *conn)
{
	struct shb_h1_conn *c = conn;

	/* The prepared request belongs to the module; only the buffer of
	 * varied requests is ours. */
	free(c->vbuf);
	c->vbuf = NULL;
	c->vcap = 0;
	if (c->keep) {
		shb_buf_free(&c->keep->head);
		shb_buf_free(&c->keep->body);
		free(c->keep);
		c->keep = NULL;
	}
	shb_buf_free(&c->kvs);
}

int shb_h1_conn_transport_ready(void *conn,
				const struct shb_transport_info *info,
				shb_tstamp now)
{
	struct shb_h1_conn *c = conn;

	c->ready = 1;
	if (c->mod->debug && info && SHB_HAS(info, struct shb_transport_info, alpn))
		trace(c, "transport ready (alpn %s)",
		      info->alpn ? info->alpn : "none");
	return SHB_OK;
}

/* ---- completing a request ------------------------------------------------ */

static void result_from_scan(const struct shb_h1_conn *c,
			     struct shb_req_result *res, uint32_t outcome,
			     shb_tstamp now)
{
	memset(res, 0, sizeof(*res));
	res->struct_size = sizeof(*res);
	res->outcome = outcome;
	res->status = outcome == SHB_REQ_OK ? shb_h1_scan_status(&c->scan) : 0;
	res->rx_header_bytes = shb_h1_scan_header_bytes(&c->scan);
	res->rx_body_bytes = shb_h1_scan_body_bytes(&c->scan);
	res->ts_first_byte =
		shb_h1_scan_started(&c->scan) ? c->ts_first_byte : 0;
	res->ts_done = now;
}

static void trace_response(const struct shb_h1_conn *c, int reuse)
{
	const struct shb_h1_scan *s = &c->scan;

	trace(c,
	      "HTTP/1.%u %u, %s, %u interim, %llu head + %llu body bytes, %s",
	      shb_h1_scan_version_minor(s), shb_h1_scan_status(s),
	      shb_h1_framing_name(shb_h1_scan_framing(s)),
	      shb_h1_scan_interim(s),
	      (unsigned long long)shb_h1_scan_header_bytes(s),
	      (unsigned long long)shb_h1_scan_body_bytes(s),
	      reuse ? "keep-alive"
		    : (shb_h1_scan_keep_alive(s) ? "close (ours)" : "close"));
}

static void complete(struct shb_h1_conn *c, shb_tstamp now)
{
	struct shb_req_result res;
	int reuse = shb_h1_scan_keep_alive(&c->scan) &&
		    !(c->mod->run_flags & SHB_RUN_DISABLE_KEEPALIVE);

	result_from_scan(c, &res, SHB_REQ_OK, now);
	c->awaiting = 0;
	if (!reuse)
		c->closed = 1;
	if (c->mod->debug)
		trace_response(c, reuse);
	if (c->keep)
		shb_h1_resp_deliver(c->mod->host, c->handle, c->cookie,
				    res.status, c->keep, &c->kvs);
	c->mod->host->req_done(c->handle, c->cookie, &res);
}

/* Ends the outstanding request with `outcome` and closes the connection. */
static void fail_request(struct shb_h1_conn *c, uint32_t outcome,
			 shb_tstamp now)
{
	struct shb_req_result res;

	c->detail = shb_h1_scan_reason(&c->scan);
	result_from_scan(c, &res, outcome, now);
	res.detail = c->detail;
	c->awaiting = 0;
	c->closed = 1;
	if (c->mod->debug)
		trace(c, "request failed: %s", c->detail);
	c->mod->host->req_done(c->handle, c->cookie, &res);
}

/* ---- receiving --------------------------------------------------------- */

static shb_ssize unsolicited(struct shb_h1_conn *c)
{
	c->detail = unsolicited_reason;
	c->closed = 1;
	if (c->mod->debug)
		trace(c, "%s", unsolicited_reason);
	return SHB_E_PROTO;
}

shb_ssize shb_h1_conn_recv(void *conn, const uint8_t *data, size_t len,
			   shb_tstamp now)
{
	struct shb_h1_conn *c = conn;
	size_t off = 0;

	while (off < len) {
		/* After a final response that closes the connection nothing
		 * more is read; the core is about to close it. */
		if (c->closed)
			break;
		if (!c->awaiting)
			return unsolicited(c);
		if (!shb_h1_scan_started(&c->scan))
			c->ts_first_byte = now;
		size_t used = 0;
		int rc = shb_h1_scan_feed(&c->scan, data + off, len - off,
					  &used);
		off += used;
		if (rc == SHB_H1_SCAN_ERROR) {
			fail_request(c, SHB_REQ_PROTO_ERROR, now);
			return SHB_E_PROTO;
		}
		if (rc == SHB_H1_SCAN_DONE)
			complete(c, now);
	}
	return (shb_ssize)len;
}

int shb_h1_conn_recv_eof(void *conn, shb_tstamp now)
{
	struct shb_h1_conn *c = conn;

	if (c->closed || !c->awaiting) {
		/* An idle keep-alive connection timing out on the server side
		 * is normal, not an error. */
		if (c->mod->debug && !c->closed)
			trace(c, "peer closed an idle connection");
		c->closed = 1;
		return SHB_OK;
	}
	if (shb_h1_scan_eof(&c->scan) == SHB_H1_SCAN_DONE) {
		complete(c, now);
		c->closed = 1;
		return SHB_OK;
	}
	fail_request(c, SHB_REQ_CONN_LOST, now);
	return SHB_E_CLOSED;
}

/* ---- sending ----------------------------------------------------------- */

static struct shb_vec vec_of(const uint8_t *p, size_t n)
{
	/* The core only reads send buffers; the prepared bytes stay const. */
	struct shb_vec v = {(void *)(uintptr_t)p, n};
	return v;
}

/* Absolute form: the head split at the request target, with scheme,
 * "://" and authority in between, then the body; send_off bytes in. */
static shb_ssize pull_absolute(const struct shb_h1_conn *c,
			       struct shb_vec *vecs, size_t max)
{
	const struct shb_h1_request *r = c->req;
	const size_t sl = strlen(c->abs_scheme);
	struct shb_vec seg[6] = {
		vec_of(r->head, r->target_off),
		vec_of((const uint8_t *)c->abs_scheme, sl),
		vec_of((const uint8_t *)"://", 3),
		vec_of((const uint8_t *)c->abs_authority, c->abs_len - sl - 3),
		vec_of(r->head + r->target_off, r->head_len - r->target_off),
		vec_of(r->body, r->body_len),
	};
	size_t skip = c->send_off, k = 0;

	for (size_t i = 0; i < 6 && k < max; i++) {
		if (skip >= seg[i].len) {
			skip -= seg[i].len;
			continue;
		}
		vecs[k++] = vec_of((const uint8_t *)seg[i].base + skip,
				   seg[i].len - skip);
		skip = 0;
	}
	return (shb_ssize)k;
}

shb_ssize shb_h1_conn_pull_send(void *conn, struct shb_vec *vecs, size_t max,
				shb_tstamp now)
{
	struct shb_h1_conn *c = conn;
	const struct shb_h1_request *r = c->req;
	size_t k = 0, off = c->send_off;

	if (c->closed || !send_pending(c))
		return 0;
	if (c->abs_len)
		return pull_absolute(c, vecs, max);
	if (k < max && off < r->head_len) {
		vecs[k++] = vec_of(r->head + off, r->head_len - off);
		off = r->head_len;
	}
	if (k < max && off < r->total) {
		size_t b = off - r->head_len;
		vecs[k++] = vec_of(r->body + b, r->body_len - b);
	}
	return (shb_ssize)k;
}

void shb_h1_conn_sent(void *conn, size_t n, shb_tstamp now)
{
	struct shb_h1_conn *c = conn;
	size_t left;

	if (!c->req)
		return;
	left = req_total(c) - c->send_off;
	c->send_off += n < left ? n : left;
}

/* ---- state ------------------------------------------------------------- */

shb_tstamp shb_h1_conn_next_deadline(const void *conn)
{
	return SHB_TSTAMP_NONE; /* request timeouts are the core's */
}

int shb_h1_conn_on_timer(void *conn, shb_tstamp now)
{
	return SHB_OK;
}

uint32_t shb_h1_conn_state(const void *conn)
{
	const struct shb_h1_conn *c = conn;

	if (c->closed)
		return SHB_CS_CLOSED;
	return send_pending(c) ? SHB_CS_WANT_WRITE : 0;
}

uint32_t shb_h1_conn_capacity(const void *conn)
{
	const struct shb_h1_conn *c = conn;

	/* An eager server may answer before our body is out; the next
	 * request must still wait, or its bytes would follow a partial
	 * body. */
	return c->ready && !c->closed && !c->awaiting && !send_pending(c);
}

/* Starts r (capacity checked by the caller). */
static void begin(struct shb_h1_conn *c, const struct shb_h1_request *r,
		  uint64_t cookie)
{
	c->req = r;
	c->send_off = 0;
	c->cookie = cookie;
	c->awaiting = 1;
	c->ts_first_byte = 0;
	shb_h1_scan_begin_keep(&c->scan, (int)c->req->is_head, c->keep);
}

int shb_h1_conn_issue(void *conn, const void *prepared, uint64_t cookie,
		      shb_tstamp now)
{
	struct shb_h1_conn *c = conn;

	if (!shb_h1_conn_capacity(c))
		return SHB_E_BUSY;
	if (!prepared)
		return SHB_E_INVAL;
	begin(c, prepared, cookie);
	return SHB_OK;
}

/* The varied request is written whole into the connection's buffer
 * (HTTP/1.1 has one request in flight, so one buffer does), which grows
 * only when a request is larger than any before it. */
int shb_h1_conn_issue_var(void *conn, const void *prepared,
			  const struct shb_request_var *var, uint64_t cookie,
			  shb_tstamp now)
{
	struct shb_h1_conn *c = conn;
	const struct shb_h1_request *r = prepared;

	if (!shb_h1_conn_capacity(c))
		return SHB_E_BUSY;
	if (!r || !var)
		return SHB_E_INVAL;
	struct shb_h1_var_plan plan;
	int rc = shb_h1_request_var_plan(r, var, &plan);
	if (rc < 0)
		return rc;
	if (plan.size > c->vcap) {
		uint8_t *p = realloc(c->vbuf, plan.size);
		if (!p)
			return SHB_E_NOMEM;
		c->vbuf = p;
		c->vcap = plan.size;
	}
	shb_h1_request_var_write(r, var, &plan, c->vbuf, &c->vreq);
	begin(c, &c->vreq, cookie);
	return SHB_OK;
}

/* A whole request (a redirect's next hop, a script's): encoded like a
 * template, then copied into the connection's buffer of varied
 * requests, so the connection holds nothing of the caller's. */
int shb_h1_conn_issue_req(void *conn, const struct shb_request *req,
			  uint64_t cookie, shb_tstamp now)
{
	struct shb_h1_conn *c = conn;
	struct shb_h1_request *r = NULL;
	char err[128];

	if (!shb_h1_conn_capacity(c))
		return SHB_E_BUSY;
	if (!req || !SHB_HAS(req, struct shb_request, body_len))
		return SHB_E_INVAL;
	int rc = shb_h1_request_encode(req, c->mod->run_flags, &r, err,
				       sizeof(err));
	if (rc < 0)
		return rc;
	if (r->total > c->vcap) {
		uint8_t *p = realloc(c->vbuf, r->total);
		if (!p) {
			shb_h1_request_free(r);
			return SHB_E_NOMEM;
		}
		c->vbuf = p;
		c->vcap = r->total;
	}
	memcpy(c->vbuf, r->head, r->head_len);
	if (r->body_len)
		memcpy(c->vbuf + r->head_len, r->body, r->body_len);
	c->vreq = *r;
	c->vreq.head = c->vbuf;
	c->vreq.body = r->body_len ? c->vbuf + r->head_len : NULL;
	c->vreq.hv = NULL;
	c->vreq.header_count = 0;
	shb_h1_request_free(r);
	begin(c, &c->vreq, cookie);
	return SHB_OK;
}

void shb_h1_conn_cancel(void *conn, uint64_t cookie, shb_tstamp now)
{
	struct shb_h1_conn *c = conn;

	/* HTTP/1.1 cannot abandon a response mid-stream; the connection
	 * goes. */
	c->awaiting = 0;
	c->closed = 1;
	c->detail = "request cancelled";
}

void shb_h1_conn_shutdown(void *conn, uint32_t mode, shb_tstamp now)
{
	struct shb_h1_conn *c = conn;

	c->closed = 1;
}

const char *shb_h1_conn_error_detail(const void *conn)
{
	const struct shb_h1_conn *c = conn;

	return c->detail;
}
