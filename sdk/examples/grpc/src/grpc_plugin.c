/* A gRPC protocol for shb (--proto grpc), built on the HTTP/2
 * plugin through its extension org.shb.h2.proto/1 (shb/ext/h2.h): h2 does
 * the framing, HPACK, flow control and streams; this plugin adds what is
 * gRPC's own (grpc_wire.h).
 *
 *  - A connection is h2's connection state with ours in front of it: the
 *    descriptor's conn_size is ours plus h2's, found in init(). Every
 *    vtable call is forwarded to h2's vtable on h2's part.
 *  - h2's module is created with a host table of ours (a copy of the
 *    core's with req_done, conn_event, conn_origin and, on a 1.4 core,
 *    conn_fingerprint replaced: every member that names a connection)
 *    and each h2
 *    connection is given our connection state as its handle: every call
 *    h2 makes then finds our state at once, and we forward host calls with
 *    the core's handle.
 *  - The observer sees each response's fields and body: the body is read
 *    as length-prefixed messages, grpc-status and grpc-message give the
 *    request's application outcome (SHB_APPSPACE_GRPC; status 0 is ok).
 *
 * One request is one call, from its HEADERS to the trailers, whatever its
 * kind (grpc_request.h): POST to the URL's path, which must be
 * /package.Service/Method, with content-type application/grpc and te:
 * trailers; the body is the call's uncompressed request messages, all
 * queued when the call is issued (as a client that sends without waiting
 * for the answers), and the response's messages are read as they arrive.
 * A unary or client-stream call must answer exactly one message, a
 * server-stream or bidi call any number. */
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Built for ABI 1.2: it needs nothing a later minor added, so it loads on
 * every core from 1.2 on (the entry says abi_minor 2); it forwards the
 * 1.4 conn_fingerprint when the core has it (SHB_HAS). */
#define SHB_TARGET_ABI_MINOR 2
#include <shb/shb.h>
#include <shb/define.h>
#include <shb/ext/h2.h>

#include "grpc_request.h"
#include "grpc_wire.h"

#define GRPC_ID "org.shb.example.grpc"

/* Found by init() through the host; valid until our deinit. */
static const struct shb_h2_proto_ext *g_h2;

struct grpc_module {
	const struct shb_host *host; /* the core's */
	struct shb_host h2host;      /* what h2 gets: forwards to `host` */
	const struct shb_proto_vtable *h2vt;
	void *h2mod;
	uint32_t parallel; /* call slots per connection (-p) */
	uint32_t tls;      /* the run's scheme runs over TLS */
	struct grpc_opts opts;
};

/* The plugin's metrics (ABI 1.4, grpc_desc.metrics), by index. */
enum grpc_metric {
	GRPC_METRIC_SENT = 0,     /* request messages, `messages` per call */
	GRPC_METRIC_RECEIVED = 1, /* response messages read whole */
	GRPC_METRIC_LATENCY = 2,  /* issue to each response message */
	GRPC_METRIC_COUNT = 3,
};

/* One request in flight on a connection. */
struct grpc_call {
	uint64_t cookie;
	shb_tstamp start;     /* when the call was issued */
	uint8_t used;
	uint8_t have_status;  /* grpc-status seen (trailers or Trailers-Only) */
	uint8_t ct_ok;        /* content-type application/grpc seen */
	uint32_t http_status; /* :status of the head */
	uint32_t status;      /* grpc-status */
	const char *error;    /* static: why the response is not valid gRPC */
	uint32_t error_arg;
	struct grpc_reader rd;
	char message[96];     /* grpc-message, decoded, cut to fit */
};

struct grpc_conn {
	const struct grpc_module *mod;
	struct shb_conn *handle;  /* the core's */
	struct grpc_call *calls;  /* mod->parallel slots */
	shb_tstamp now;           /* of the recv h2 is in (its observer's time) */
	char detail[192];         /* the last result's detail */
};

/* h2's state follows ours, aligned as malloc would align it. */
#define H2_OFF                                                                 \
	((sizeof(struct grpc_conn) + alignof(max_align_t) - 1) &               \
	 ~(alignof(max_align_t) - 1))

static void *h2c(void *conn)
{
	return (uint8_t *)conn + H2_OFF;
}

static const void *h2cc(const void *conn)
{
	return (const uint8_t *)conn + H2_OFF;
}

/* ---- the host h2 sees: our connection is its handle ----------------------- */

static void wrap_req_done(struct shb_conn *h, uint64_t cookie,
			  const struct shb_req_result *res)
{
	struct grpc_conn *g = (struct grpc_conn *)h;

	/* on_result has run: the call's slot is free from here. */
	for (uint32_t i = 0; i < g->mod->parallel; i++)
		if (g->calls[i].used && g->calls[i].cookie == cookie)
			g->calls[i].used = 0;
	g->mod->host->req_done(g->handle, cookie, res);
}

static void wrap_conn_event(struct shb_conn *h, const struct shb_conn_event *ev)
{
	struct grpc_conn *g = (struct grpc_conn *)h;

	g->mod->host->conn_event(g->handle, ev);
}

static const struct shb_origin *wrap_conn_origin(struct shb_conn *h)
{
	struct grpc_conn *g = (struct grpc_conn *)h;

	return g->mod->host->conn_origin(g->handle);
}

/* ABI 1.4, when the core has it: h2's fingerprint of the connection is
 * the run's too. */
static void wrap_conn_fingerprint(struct shb_conn *h, uint32_t kind,
				  const char *text)
{
	struct grpc_conn *g = (struct grpc_conn *)h;

	g->mod->host->conn_fingerprint(g->handle, kind, text);
}

/* A counter of ours, on a core of ABI 1.4 or later (an older one has no
 * metric_add and reads no metrics from the descriptor). */
static void metric_add(struct grpc_conn *g, uint32_t i, uint64_t n)
{
	const struct shb_host *h = g->mod->host;
	if (n && SHB_HAS(h, struct shb_host, metric_add) && h->metric_add)
		h->metric_add(g->handle, i, n);
}

/* `n` response messages of call `c` read whole at g->now (they came in
 * the same read): counted as they arrive, so a stream cancelled by
 * --timeout still counts what it sent, and each timed from the call's
 * issue, when every request message was queued (for bidi, from the
 * message sent to its echo). */
static void messages_read(struct grpc_conn *g, const struct grpc_call *c,
			  uint32_t n)
{
	const struct shb_host *h = g->mod->host;

	metric_add(g, GRPC_METRIC_RECEIVED, n);
	if (!SHB_HAS(h, struct shb_host, metric_record) || !h->metric_record)
		return;
	for (uint32_t i = 0; i < n; i++)
		h->metric_record(g->handle, GRPC_METRIC_LATENCY,
				 g->now > c->start ? g->now - c->start : 0);
}

/* ---- the observer ----------------------------------------------------------- */

static struct grpc_call *find_call(struct grpc_conn *g, uint64_t cookie)
{
	for (uint32_t i = 0; i < g->mod->parallel; i++)
		if (g->calls[i].used && g->calls[i].cookie == cookie)
			return &g->calls[i];
	return NULL;
}

/* Marks the response invalid; h2 then resets the stream. */
static int call_error(struct grpc_call *c, const char *why, uint32_t arg)
{
	if (!c->error) {
		c->error = why;
		c->error_arg = arg;
	}
	return SHB_E_PROTO;
}

static int is(const char *name, size_t nlen, const char *want)
{
	return nlen == strlen(want) && memcmp(name, want, nlen) == 0;
}

static int on_field(struct shb_conn *h, uint64_t cookie, const char *name,
		    size_t nlen, const uint8_t *v, size_t vlen, uint32_t flags)
{
	struct grpc_call *c = find_call((struct grpc_conn *)h, cookie);
	uint32_t code;

	if (!c)
		return SHB_OK;
	if (is(name, nlen, "grpc-status")) {
		if (c->have_status)
			return call_error(c, "grpc-status twice", 0);
		if (grpc_parse_status(v, vlen, &code) < 0)
			return call_error(c, "grpc-status that is not a number", 0);
		c->status = code;
		c->have_status = 1;
	} else if (is(name, nlen, "grpc-message")) {
		grpc_decode_message(v, vlen, c->message, sizeof(c->message));
	} else if ((flags & SHB_H2_FIELD_HEADER) && is(name, nlen, ":status")) {
		if (grpc_parse_status(v, vlen, &code) == 0)
			c->http_status = code;
	} else if ((flags & SHB_H2_FIELD_HEADER) &&
		   is(name, nlen, "content-type")) {
		c->ct_ok = (uint8_t)grpc_content_type_ok(v, vlen);
	}
	return SHB_OK;
}

static int on_data(struct shb_conn *h, uint64_t cookie, const uint8_t *p,
		   size_t n)
{
	struct grpc_conn *g = (struct grpc_conn *)h;
	struct grpc_call *c = find_call(g, cookie);
	uint32_t before;
	int rc;

	/* Only a gRPC response body is read as messages (a proxy's 404 page
	 * is not one: its status decides, see on_result). */
	if (!c || c->http_status != 200 || !c->ct_ok)
		return SHB_OK;
	before = c->rd.messages;
	rc = grpc_reader_feed(&c->rd, p, n);
	if (c->rd.messages > before)
		messages_read(g, c, c->rd.messages - before);
	if (rc == GRPC_READ_E_TOO_LARGE)
		return call_error(c, "a message above max-message",
				  grpc_reader_bad_length(&c->rd));
	if (rc < 0)
		return call_error(c, grpc_read_strerror(rc), 0);
	return SHB_OK;
}

/* A response h2 accepted that is not valid gRPC. */
static void proto_error(struct grpc_conn *g, struct shb_req_result *res,
			const char *why, uint32_t arg)
{
	if (arg)
		snprintf(g->detail, sizeof(g->detail), "grpc: %s (%u)", why, arg);
	else
		snprintf(g->detail, sizeof(g->detail), "grpc: %s", why);
	res->outcome = SHB_REQ_PROTO_ERROR;
	res->detail = g->detail;
}

/* A complete gRPC response: its checks, then the status. */
static void grpc_outcome(struct grpc_conn *g, struct grpc_call *c,
			 struct shb_req_result *res)
{
	int unary = g->mod->opts.kind == GRPC_CALL_UNARY;
	const char *name;

	if (!c->have_status) {
		if (res->status == 200) {
			proto_error(g, res, "response without grpc-status", 0);
			return;
		}
		/* Not a gRPC server answering (a proxy, a 404): gRPC clients
		 * derive the status from the HTTP status. */
		res->app_space = SHB_APPSPACE_GRPC;
		res->app_code = grpc_code_from_http(res->status);
		res->app_ok = 0;
		snprintf(g->detail, sizeof(g->detail),
			 "grpc: HTTP status %u without grpc-status (%s)",
			 res->status, grpc_code_name((uint32_t)res->app_code));
		res->detail = g->detail;
		return;
	}
	if (c->status == 0 && res->status == 200) {
		const char *why = NULL;

		if (!c->ct_ok)
			why = "content-type is not application/grpc";
		else if (grpc_reader_partial(&c->rd))
			why = "the body ends inside a message";
		else if (grpc_kind_streams_back(g->mod->opts.kind))
			why = NULL; /* a stream: any number of messages */
		else if (c->rd.messages == 0)
			why = unary ? "a unary response without a message"
				    : "a client-stream response without a message";
		else if (c->rd.messages > 1)
			why = unary ? "a unary response with more than one message"
				    : "a client-stream response with more than one message";
		if (why) {
			proto_error(g, res, why, 0);
			return;
		}
	}
	res->app_space = SHB_APPSPACE_GRPC;
	res->app_code = c->status;
	res->app_ok = c->status == 0;
	if (c->status == 0)
		return;
	name = grpc_code_name(c->status);
	snprintf(g->detail, sizeof(g->detail), "grpc: %s (%u)%s%s",
		 name ? name : "status", c->status, c->message[0] ? ": " : "",
		 c->message);
	res->detail = g->detail;
}

static void on_result(struct shb_conn *h, uint64_t cookie,
		      struct shb_req_result *res)
{
	struct grpc_conn *g = (struct grpc_conn *)h;
	struct grpc_call *c = find_call(g, cookie);

	if (!c)
		return;
	if (c->error) /* we stopped it: say why */
		proto_error(g, res, c->error, c->error_arg);
	else if (res->outcome == SHB_REQ_OK)
		grpc_outcome(g, c, res);
}

static const struct shb_h2_observer grpc_observer = {
	.struct_size = sizeof(struct shb_h2_observer),
	.on_field = on_field,
	.on_data = on_data,
	.on_result = on_result,
};

/* ---- module ------------------------------------------------------------------- */

static void grpc_module_destroy(void *module)
{
	struct grpc_module *m = module;

	if (m->h2mod)
		m->h2vt->module_destroy(m->h2mod);
	grpc_opts_fini(&m->opts);
	free(m);
}

static int grpc_module_create(const struct shb_host *host,
			      const struct shb_run_config *cfg, void **module,
			      char *err, size_t errlen)
{
	struct grpc_module *m;
	struct shb_run_config c2;
	size_t n;
	int rc;

	if (!g_h2) {
		snprintf(err, errlen, "grpc: needs the HTTP/2 plugin's extension " SHB_EXT_H2_PROTO
			 " (shb-proto-h2 from shb 1.2 or later, in the plugin path)");
		return SHB_E_UNSUPPORTED;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "grpc: out of memory");
		return SHB_E_NOMEM;
	}
	m->host = host;
	m->h2vt = g_h2->desc->vt;
	m->parallel = cfg->parallel ? cfg->parallel : 1;
	m->tls = (cfg->flags & SHB_RUN_TLS) != 0;
	rc = grpc_opts_parse(&m->opts, cfg->options, cfg->option_count, err,
			     errlen);
	if (rc < 0)
		goto fail;
	/* h2 gets the core's host with the members that name a connection
	 * replaced, and the run without our options. */
	n = host->struct_size < sizeof(m->h2host) ? host->struct_size
						   : sizeof(m->h2host);
	memcpy(&m->h2host, host, n);
	m->h2host.struct_size = (uint32_t)n;
	m->h2host.req_done = wrap_req_done;
	m->h2host.conn_event = wrap_conn_event;
	if (SHB_HAS(host, struct shb_host, conn_origin) && host->conn_origin)
		m->h2host.conn_origin = wrap_conn_origin;
	if (SHB_HAS(host, struct shb_host, conn_fingerprint) &&
	    host->conn_fingerprint)
		m->h2host.conn_fingerprint = wrap_conn_fingerprint;
	/* h2's metrics, if it had any, would index its own table, not ours. */
	if (SHB_HAS(&m->h2host, struct shb_host, metric_record)) {
		m->h2host.metric_add = NULL;
		m->h2host.metric_record = NULL;
	}
	n = cfg->struct_size < sizeof(c2) ? cfg->struct_size : sizeof(c2);
	memset(&c2, 0, sizeof(c2));
	memcpy(&c2, cfg, n);
	c2.options = NULL;
	c2.option_count = 0;
	rc = m->h2vt->module_create(&m->h2host, &c2, &m->h2mod, err, errlen);
	if (rc < 0)
		goto fail;
	rc = g_h2->set_observer(m->h2mod, &grpc_observer);
	if (rc < 0) {
		snprintf(err, errlen, "grpc: the HTTP/2 plugin refused the observer (%d)", rc);
		goto fail;
	}
	*module = m;
	return SHB_OK;
fail:
	grpc_module_destroy(m);
	return rc;
}

/* /package.Service/Method: two non-empty segments, no query. */
static int path_ok(const char *path)
{
	const char *slash = path[0] == '/' ? strchr(path + 1, '/') : NULL;

	return slash && slash > path + 1 && slash[1] && !strchr(slash + 1, '/') &&
	       !strchr(path, '?');
}

static int grpc_prepare_request(void *module, const struct shb_request *req,
				void **prepared, char *err, size_t errlen)
{
	const struct grpc_module *m = module;
	size_t len = 0, nh = 0;
	struct shb_request r;
	struct shb_kv *hdr;
	uint8_t *body;
	int rc;

	if (strcmp(req->method, "POST") != 0 && strcmp(req->method, "GET") != 0) {
		snprintf(err, errlen, "grpc: calls are POSTs, not %s", req->method);
		return SHB_E_INVAL;
	}
	if (!path_ok(req->path)) {
		snprintf(err, errlen, "grpc: the URL path must be /package.Service/Method, not '%s'",
			 req->path);
		return SHB_E_INVAL;
	}
	if ((req->body_len || (req->flags & SHB_REQUEST_HAS_BODY)) &&
	    m->opts.has_message) {
		snprintf(err, errlen, "grpc: give the message with one of -d, message-hex and message-bytes");
		return SHB_E_INVAL;
	}
	rc = grpc_body_build(&m->opts, req->body, req->body_len, &body, &len,
			     err, errlen);
	if (rc < 0)
		return rc;
	hdr = calloc(req->header_count + 2, sizeof(*hdr));
	if (!hdr) {
		free(body);
		snprintf(err, errlen, "grpc: out of memory");
		return SHB_E_NOMEM;
	}
	/* Ours replace the user's (and the core's form Content-Type). */
	for (size_t i = 0; i < req->header_count; i++)
		if (strcasecmp(req->headers[i].key, "content-type") != 0 &&
		    strcasecmp(req->headers[i].key, "te") != 0)
			hdr[nh++] = req->headers[i];
	hdr[nh++] = (struct shb_kv){"content-type", "application/grpc"};
	hdr[nh++] = (struct shb_kv){"te", "trailers"};
	r = *req;
	r.method = "POST";
	r.scheme = m->tls ? "https" : "http"; /* :scheme, whatever the URL */
	r.flags |= SHB_REQUEST_HAS_BODY;
	r.body = body;
	r.body_len = len;
	r.headers = hdr;
	r.header_count = nh;
	/* h2 copies what it keeps: its prepared request is ours. */
	rc = m->h2vt->prepare_request(m->h2mod, &r, prepared, err, errlen);
	free(body);
	free(hdr);
	return rc;
}

static void grpc_release_request(void *module, void *prepared)
{
	const struct grpc_module *m = module;

	if (m->h2vt->release_request)
		m->h2vt->release_request(m->h2mod, prepared);
}

static int grpc_worker_init(void *module, void *worker, uint32_t index)
{
	const struct grpc_module *m = module;

	return m->h2vt->worker_init ? m->h2vt->worker_init(m->h2mod, worker, index)
				    : SHB_OK;
}

static void grpc_worker_fini(void *module, void *worker)
{
	const struct grpc_module *m = module;

	if (m->h2vt->worker_fini)
		m->h2vt->worker_fini(m->h2mod, worker);
}

/* ---- connection: ours, then h2's ----------------------------------------- */

static int grpc_conn_init(void *module, void *worker, void *conn,
			  struct shb_conn *handle, shb_tstamp now)
{
	const struct grpc_module *m = module;
	struct grpc_conn *g = conn;
	int rc;

	g->mod = m;
	g->handle = handle;
	g->calls = calloc(m->parallel, sizeof(*g->calls));
	if (!g->calls)
		return SHB_E_NOMEM;
	rc = m->h2vt->conn_init(m->h2mod, worker, h2c(conn),
				(struct shb_conn *)g, now);
	if (rc < 0) {
		free(g->calls);
		g->calls = NULL;
	}
	return rc;
}

static void grpc_conn_fini(void *conn)
{
	struct grpc_conn *g = conn;

	g->mod->h2vt->conn_fini(h2c(conn));
	free(g->calls);
	g->calls = NULL;
}

#define VT(conn) (((const struct grpc_conn *)(conn))->mod->h2vt)

static int grpc_transport_ready(void *conn, const struct shb_transport_info *info,
				shb_tstamp now)
{
	return VT(conn)->on_transport_ready(h2c(conn), info, now);
}

static shb_ssize grpc_recv(void *conn, const uint8_t *data, size_t len,
			   shb_tstamp now)
{
	((struct grpc_conn *)conn)->now = now;
	return VT(conn)->recv(h2c(conn), data, len, now);
}

static int grpc_recv_eof(void *conn, shb_tstamp now)
{
	return VT(conn)->recv_eof(h2c(conn), now);
}

static shb_ssize grpc_pull_send(void *conn, struct shb_vec *vecs, size_t max,
				shb_tstamp now)
{
	return VT(conn)->pull_send(h2c(conn), vecs, max, now);
}

static void grpc_sent(void *conn, size_t n, shb_tstamp now)
{
	VT(conn)->sent(h2c(conn), n, now);
}

static shb_tstamp grpc_next_deadline(const void *conn)
{
	return VT(conn)->next_deadline ? VT(conn)->next_deadline(h2cc(conn))
				       : SHB_TSTAMP_NONE;
}

static int grpc_on_timer(void *conn, shb_tstamp now)
{
	return VT(conn)->on_timer ? VT(conn)->on_timer(h2c(conn), now) : SHB_OK;
}

static uint32_t grpc_state(const void *conn)
{
	return VT(conn)->state(h2cc(conn));
}

static uint32_t grpc_capacity(const void *conn)
{
	return VT(conn)->capacity(h2cc(conn));
}

static int grpc_issue(void *conn, const void *prepared, uint64_t cookie,
		      shb_tstamp now)
{
	struct grpc_conn *g = conn;
	struct grpc_call *c = NULL;
	int rc;

	for (uint32_t i = 0; i < g->mod->parallel && !c; i++)
		if (!g->calls[i].used)
			c = &g->calls[i];
	if (!c)
		return SHB_E_BUSY; /* h2's capacity is at most -p */
	memset(c, 0, sizeof(*c));
	c->used = 1;
	c->cookie = cookie;
	c->start = now;
	grpc_reader_init(&c->rd, g->mod->opts.max_message);
	rc = VT(conn)->issue(h2c(conn), prepared, cookie, now);
	if (rc < 0)
		c->used = 0;
	else
		metric_add(g, GRPC_METRIC_SENT, g->mod->opts.messages);
	return rc;
}

static void grpc_cancel(void *conn, uint64_t cookie, shb_tstamp now)
{
	struct grpc_conn *g = conn;
	struct grpc_call *c = find_call(g, cookie);

	VT(conn)->cancel(h2c(conn), cookie, now);
	if (c)
		c->used = 0;
}

static void grpc_shutdown(void *conn, uint32_t mode, shb_tstamp now)
{
	VT(conn)->shutdown(h2c(conn), mode, now);
}

static const char *grpc_error_detail(const void *conn)
{
	return VT(conn)->error_detail ? VT(conn)->error_detail(h2cc(conn)) : NULL;
}

static const struct shb_proto_vtable grpc_vtable = {
	.struct_size = sizeof(struct shb_proto_vtable),
	.module_create = grpc_module_create,
	.module_destroy = grpc_module_destroy,
	.prepare_request = grpc_prepare_request,
	.release_request = grpc_release_request,
	.worker_init = grpc_worker_init,
	.worker_fini = grpc_worker_fini,
	.conn_init = grpc_conn_init,
	.conn_fini = grpc_conn_fini,
	.on_transport_ready = grpc_transport_ready,
	.recv = grpc_recv,
	.recv_eof = grpc_recv_eof,
	.pull_send = grpc_pull_send,
	.sent = grpc_sent,
	.next_deadline = grpc_next_deadline,
	.on_timer = grpc_on_timer,
	.state = grpc_state,
	.capacity = grpc_capacity,
	.issue = grpc_issue,
	.cancel = grpc_cancel,
	.shutdown = grpc_shutdown,
	.error_detail = grpc_error_detail,
};

/* ---- descriptor and entry ------------------------------------------------------ */

static const char *const grpc_scheme_names[] = {"grpc", "grpcs", "http",
						"https", NULL};
static const char *const grpc_alpn[] = {"h2", NULL};

/* grpc:// is cleartext HTTP/2 with prior knowledge (h2c), on gRPC's
 * customary port; grpcs:// runs TLS with ALPN h2. http:// and https://
 * work the same for a core or URL that wants them. */
static const struct shb_scheme grpc_schemes[] = {
	{"grpc", 50051, 0},
	{"grpcs", 443, SHB_SCHEME_TLS},
	{"http", 80, 0},
	{"https", 443, SHB_SCHEME_TLS},
	{NULL, 0, 0},
};

static const struct shb_option_def grpc_options[] = {
	{"call", "KIND", "unary (default), server-stream, client-stream or bidi"},
	{"messages", "N", "request messages per call, client-stream and bidi (default 1)"},
	{"message-bytes", "BYTES", "the request message: BYTES octets 'x'"},
	{"message-hex", "HEX", "the request message as hex digits (default: -d, else empty)"},
	{"max-message", "BYTES", "largest response message accepted (default 4194304)"},
	{NULL, NULL, NULL},
};

/* ABI 1.4: messages each way beside the calls (a core older than 1.4
 * reads the descriptor only up to its own struct_size). */
static const struct shb_metric_def grpc_metrics[GRPC_METRIC_COUNT] = {
	[GRPC_METRIC_SENT] = {SHB_METRIC_COUNTER, 0, "grpc_msgs_sent", "messages",
			      "request messages, queued when a call is issued"},
	[GRPC_METRIC_RECEIVED] = {SHB_METRIC_COUNTER, 0, "grpc_msgs_received",
				  "messages", "response messages read whole"},
	[GRPC_METRIC_LATENCY] = {SHB_METRIC_LATENCY, 0, "grpc_msg_latency", NULL,
				 "from a call's issue to each response message"},
};

/* Not const: conn_size and worker_size are h2's plus ours, known once
 * init() found h2. The core reads the descriptor only after init. */
static struct shb_proto_desc grpc_desc = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_STREAM,
	.flags = SHB_PROTO_CORE_TLS | SHB_PROTO_MULTIPLEXED |
		 SHB_PROTO_ALPN_REQUIRED,
	.name = "grpc",
	.display_name = "gRPC",
	.summary = "gRPC unary and streaming calls over HTTP/2 (needs the h2 plugin); "
		   "URL grpc://host[:port]/package.Service/Method",
	.schemes = grpc_scheme_names,
	.alpn = grpc_alpn,
	.worker_size = 0,
	.conn_size = sizeof(struct grpc_conn),
	.vt = &grpc_vtable,
	.scheme_defs = grpc_schemes,
	.option_defs = grpc_options,
	.metrics = grpc_metrics,
	.metric_count = GRPC_METRIC_COUNT,
};

static int grpc_init(const struct shb_host *host)
{
	const struct shb_h2_proto_ext *x = NULL;

	if (SHB_HAS(host, struct shb_host, get_extension) && host->get_extension)
		x = host->get_extension(SHB_EXT_H2_PROTO);
	/* Without h2 the plugin still loads (--list-plugins shows it);
	 * module_create then says what is missing. */
	if (!x || !SHB_HAS(x, struct shb_h2_proto_ext, set_observer) ||
	    !x->desc || !x->set_observer)
		return SHB_OK;
	g_h2 = x;
	grpc_desc.conn_size = H2_OFF + x->desc->conn_size;
	grpc_desc.worker_size = x->desc->worker_size;
	return SHB_OK;
}

static void grpc_deinit(void)
{
	g_h2 = NULL;
}

SHB_PLUGIN_DEFINE_FULL(GRPC_ID, "1.0.0", "shb examples", NULL, "MIT",
		       grpc_init, grpc_deinit, NULL,
		       SHB_PROTOCOLS(&grpc_desc), SHB_NO_REPORTERS);
