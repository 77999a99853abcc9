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
	if (shb_h1_pipe_init(&c->pipe, c->mod->depth) < 0)
		return SHB_E_NOMEM;
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

	/* The prepared request belongs to the module; only the buffers of
	 * varied requests are ours. */
	shb_h1_pipe_fini(&c->pipe);
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

/* ---- completing requests ----------------------------------------------- */

static const char behind_failed[] =
	"connection closed: the response to a request before this one in "
	"the pipeline failed";
static const char behind_cancelled[] =
	"connection closed: another request in the pipeline was cancelled "
	"(HTTP/1.1 cannot skip a response)";
static const char behind_close[] =
	"not processed: the server closed the connection after the response "
	"to a request before this one in the pipeline";

/* The oldest request owed. */
static struct shb_h1_entry *owed_front(struct shb_h1_conn *c)
{
	return shb_h1_pipe_at(&c->pipe, c->pipe.ans);
}

/* Starts the scanner on r's response. */
static void scan_start(struct shb_h1_conn *c, const struct shb_h1_request *r)
{
	c->ts_first_byte = 0;
	shb_h1_scan_begin_keep(&c->scan, (int)r->is_head, c->keep);
}

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

/* Reports every request still owed, from the oldest, with `outcome` and
 * `why` (none is `skip`, a cookie the core gave up), and forgets them
 * all: the connection is closing. */
static void end_owed(struct shb_h1_conn *c, uint32_t outcome, const char *why,
		     int skip_one, uint64_t skip, shb_tstamp now)
{
	struct shb_req_result res;
	struct shb_h1_pipe *p = &c->pipe;

	memset(&res, 0, sizeof(res));
	res.struct_size = sizeof(res);
	res.outcome = outcome;
	res.detail = why;
	res.ts_done = now;
	c->closed = 1;
	for (uint32_t s = p->ans; s != p->tail; s++) {
		uint64_t cookie = shb_h1_pipe_at(p, s)->cookie;
		if (!(skip_one && cookie == skip))
			c->mod->host->req_done(c->handle, cookie, &res);
	}
	if (c->mod->debug && shb_h1_pipe_owed(p))
		trace(c, "%u request(s) behind: %s", shb_h1_pipe_owed(p), why);
	shb_h1_pipe_clear(p);
}

static void complete(struct shb_h1_conn *c, shb_tstamp now)
{
	struct shb_req_result res;
	uint64_t cookie = owed_front(c)->cookie;
	int reuse = shb_h1_scan_keep_alive(&c->scan) &&
		    !(c->mod->run_flags & SHB_RUN_DISABLE_KEEPALIVE);

	result_from_scan(c, &res, SHB_REQ_OK, now);
	if (c->mod->debug)
		trace_response(c, reuse);
	if (c->keep)
		shb_h1_resp_deliver(c->mod->host, c->handle, cookie,
				    res.status, c->keep, &c->kvs);
	shb_h1_pipe_answer(&c->pipe);
	c->mod->host->req_done(c->handle, cookie, &res);
	if (!reuse)
		end_owed(c, SHB_REQ_REFUSED, behind_close, 0, 0, now);
	else if (shb_h1_pipe_owed(&c->pipe))
		scan_start(c, owed_front(c)->req);
}

/* Ends the oldest request owed with `outcome`, the ones behind it as
 * conn lost, and closes the connection. */
static void fail_requests(struct shb_h1_conn *c, uint32_t outcome,
			  shb_tstamp now)
{
	struct shb_req_result res;
	uint64_t cookie = owed_front(c)->cookie;

	c->detail = shb_h1_scan_reason(&c->scan);
	result_from_scan(c, &res, outcome, now);
	res.detail = c->detail;
	c->closed = 1;
	if (c->mod->debug)
		trace(c, "request failed: %s", c->detail);
	shb_h1_pipe_answer(&c->pipe);
	c->mod->host->req_done(c->handle, cookie, &res);
	end_owed(c, SHB_REQ_CONN_LOST, behind_failed, 0, 0, now);
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
		if (!shb_h1_pipe_owed(&c->pipe))
			return unsolicited(c);
		if (!shb_h1_scan_started(&c->scan))
			c->ts_first_byte = now;
		size_t used = 0;
		int rc = shb_h1_scan_feed(&c->scan, data + off, len - off,
					  &used);
		off += used;
		if (rc == SHB_H1_SCAN_ERROR) {
			fail_requests(c, SHB_REQ_PROTO_ERROR, now);
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

	if (c->closed || !shb_h1_pipe_owed(&c->pipe)) {
		/* An idle keep-alive connection timing out on the server side
		 * is normal, not an error. */
		if (c->mod->debug && !c->closed)
			trace(c, "peer closed an idle connection");
		c->closed = 1;
		return SHB_OK;
	}
	if (shb_h1_scan_eof(&c->scan) == SHB_H1_SCAN_DONE) {
		/* A body to EOF: its request is answered, any behind it
		 * were not processed. */
		complete(c, now);
		c->closed = 1;
		return SHB_OK;
	}
	fail_requests(c, SHB_REQ_CONN_LOST, now);
	return SHB_E_CLOSED;
}

/* ---- sending ----------------------------------------------------------- */

static struct shb_vec vec_of(const uint8_t *p, size_t n)
{
	/* The core only reads send buffers; the prepared bytes stay const. */
	struct shb_vec v = {(void *)(uintptr_t)p, n};
	return v;
}

/* Request r's bytes from `skip` on into vecs[max], in absolute form: the
 * head split at the request target, with scheme, "://" and authority in
 * between, then the body. The vec count. */
static size_t absolute_vecs(const struct shb_h1_conn *c,
			    const struct shb_h1_request *r, size_t skip,
			    struct shb_vec *vecs, size_t max)
{
	const size_t sl = strlen(c->abs_scheme);
	struct shb_vec seg[6] = {
		vec_of(r->head, r->target_off),
		vec_of((const uint8_t *)c->abs_scheme, sl),
		vec_of((const uint8_t *)"://", 3),
		vec_of((const uint8_t *)c->abs_authority, c->abs_len - sl - 3),
		vec_of(r->head + r->target_off, r->head_len - r->target_off),
		vec_of(r->body, r->body_len),
	};
	size_t k = 0;

	for (size_t i = 0; i < 6 && k < max; i++) {
		if (skip >= seg[i].len) {
			skip -= seg[i].len;
			continue;
		}
		vecs[k++] = vec_of((const uint8_t *)seg[i].base + skip,
				   seg[i].len - skip);
		skip = 0;
	}
	return k;
}

/* Every request not yet sent, in order, as far as `max` vecs go: a
 * pipeline leaves in one write. Origin form (no proxy) is each request's
 * head and body as they are. */
shb_ssize shb_h1_conn_pull_send(void *conn, struct shb_vec *vecs, size_t max,
				shb_tstamp now)
{
	struct shb_h1_conn *c = conn;
	struct shb_h1_pipe *p = &c->pipe;
	size_t k = 0, skip = p->send_off;

	if (c->closed)
		return 0;
	for (uint32_t s = p->snt; s != p->tail && k < max; s++, skip = 0) {
		const struct shb_h1_request *r = shb_h1_pipe_at(p, s)->req;
		if (c->abs_len) {
			k += absolute_vecs(c, r, skip, vecs + k, max - k);
			continue;
		}
		if (skip < r->head_len)
			vecs[k++] = vec_of(r->head + skip, r->head_len - skip);
		if (k < max && r->body_len) {
			size_t b = skip > r->head_len ? skip - r->head_len : 0;
			vecs[k++] = vec_of(r->body + b, r->body_len - b);
		}
	}
	return (shb_ssize)k;
}

void shb_h1_conn_sent(void *conn, size_t n, shb_tstamp now)
{
	struct shb_h1_conn *c = conn;

	shb_h1_pipe_sent(&c->pipe, n, c->abs_len);
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
	return shb_h1_pipe_unsent(&c->pipe) ? SHB_CS_WANT_WRITE : 0;
}

uint32_t shb_h1_conn_capacity(const void *conn)
{
	const struct shb_h1_conn *c = conn;

	/* A request stays in the FIFO until its response is read and its
	 * last byte sent (an eager server may answer before the body is
	 * out): with -p 1 the next one waits for both. */
	return c->ready && !c->closed ? shb_h1_pipe_room(&c->pipe) : 0;
}

/* Starts r (room checked by the caller): it joins the FIFO, and becomes
 * the response the scanner reads if none is owed before it. */
static void begin(struct shb_h1_conn *c, const struct shb_h1_request *r,
		  uint64_t cookie)
{
	int first = !shb_h1_pipe_owed(&c->pipe);

	shb_h1_pipe_push(&c->pipe, r, cookie);
	if (first)
		scan_start(c, r);
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

/* The varied request is written whole into its FIFO entry's buffer,
 * which grows only when a request is larger than any it carried. */
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
	uint8_t *buf = shb_h1_pipe_buf(&c->pipe, plan.size);
	if (!buf)
		return SHB_E_NOMEM;
	struct shb_h1_own *o = shb_h1_pipe_tail_own(&c->pipe);
	shb_h1_request_var_write(r, var, &plan, buf, &o->req);
	begin(c, &o->req, cookie);
	return SHB_OK;
}

/* A whole request (a redirect's next hop, a script's): encoded like a
 * template, then copied into its FIFO entry's buffer, so the connection
 * holds nothing of the caller's. */
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
	uint8_t *buf = shb_h1_pipe_buf(&c->pipe, r->total);
	if (!buf) {
		shb_h1_request_free(r);
		return SHB_E_NOMEM;
	}
	struct shb_h1_own *o = shb_h1_pipe_tail_own(&c->pipe);
	memcpy(buf, r->head, r->head_len);
	if (r->body_len)
		memcpy(buf + r->head_len, r->body, r->body_len);
	o->req = *r;
	o->req.head = buf;
	o->req.body = r->body_len ? buf + r->head_len : NULL;
	o->req.hv = NULL;
	o->req.header_count = 0;
	shb_h1_request_free(r);
	begin(c, &o->req, cookie);
	return SHB_OK;
}

void shb_h1_conn_cancel(void *conn, uint64_t cookie, shb_tstamp now)
{
	struct shb_h1_conn *c = conn;

	/* HTTP/1.1 cannot abandon a response mid-stream, nor skip one: the
	 * connection goes, and with it the requests behind. */
	c->detail = "request cancelled";
	end_owed(c, SHB_REQ_CONN_LOST, behind_cancelled, 1, cookie, now);
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
