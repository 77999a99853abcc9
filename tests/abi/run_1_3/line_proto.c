/* A protocol that is not HTTP, one source built twice so that the two
 * cannot drift: "line13" as an outsider wrote it for ABI 1.3, compiled
 * against the frozen 1.3 headers (tests/abi/v1.3) only, defined with the
 * 1.3 SHB_PLUGIN_DEFINE (run_1_3.sh runs it through the current core: what
 * 1.4 added must not change how a 1.3 build runs); and "line14", against
 * the current headers (tests/e2e, reqmodel.sh), with what 1.4 adds.
 *
 * Both speak a line protocol of the Redis kind over TCP (scheme line://,
 * port 7000 by default): each request is "PING\r\n", each answer a line,
 * "+..." a success and "-..." an error reply; requests are pipelined (-p)
 * and answered in order. An error reply is an application outcome in a
 * private space (1.2), code 1, not ok.
 *
 * line14 is of request model NONE with named outcomes, space "line": ok
 * (0, a success) and err (1, not). Its prepare_request fails the run,
 * naming what it got, unless the core hands it the empty method, the
 * URL's path "/", no header and no body. It carries the reporter
 * "facts14" (tests/e2e/line14_facts.h), which prints the 1.4 run facts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <shb/shb.h>
#include <shb/define.h>

#if SHB_ABI_MINOR == 3
#define NAME "line13"
#elif SHB_ABI_MINOR >= 4
#define NAME "line14"
#else
#error "this fixture is built against the 1.3 headers or the current ones"
#endif

#define PIPE_MAX 64u
#define LINE_MAX 512u
#define SPACE (SHB_APPSPACE_PRIVATE + 1u)

static const struct shb_host *the_host;
static const char ping[] = "PING\r\n";

struct module {
	uint32_t parallel;
};

struct conn {
	struct shb_conn *h;
	uint32_t parallel;
	int ready;
	/* Requests sent or to send, oldest first (answers come in order). */
	uint64_t cookie[PIPE_MAX];
	uint32_t head, count;
	uint32_t unsent;    /* the newest `unsent` of them are not sent yet */
	size_t sent_part;   /* bytes of the oldest unsent one already sent */
	char out[PIPE_MAX * (sizeof ping - 1)];
	size_t out_len;     /* bytes handed to the core by pull_send */
	size_t line_len;
	char line[LINE_MAX];
	const char *err;
};

static int module_create(const struct shb_host *h,
			 const struct shb_run_config *cfg, void **module,
			 char *err, size_t errlen)
{
	struct module *m = calloc(1, sizeof(*m));

	(void)err;
	(void)errlen;
	if (!m)
		return SHB_E_NOMEM;
	the_host = h;
	m->parallel = cfg->parallel < PIPE_MAX ? cfg->parallel : PIPE_MAX;
	*module = m;
	return SHB_OK;
}

static void module_destroy(void *module)
{
	free(module);
}

/* line14, request model NONE: the core hands no method, header or body
 * (the URL's path only); anything else fails the run, named. */
static int prepare_request(void *module, const struct shb_request *req,
			   void **prepared, char *err, size_t errlen)
{
	(void)module;
#if SHB_ABI_MINOR == 3
	(void)req;
	(void)err;
	(void)errlen;
#else
	if (strcmp(req->method, "") != 0 || req->header_count != 0 ||
	    (req->flags & SHB_REQUEST_HAS_BODY) || req->body_len != 0 ||
	    strcmp(req->path, "/") != 0) {
		snprintf(err, errlen, "line14: got method \"%s\", %zu headers, "
			 "body %zu, path \"%s\"", req->method, req->header_count,
			 req->body_len, req->path);
		return SHB_E_INVAL;
	}
#endif
	*prepared = (void *)ping; /* every request is the same line */
	return SHB_OK;
}

static int conn_init(void *module, void *worker, void *conn,
		     struct shb_conn *handle, shb_tstamp now)
{
	struct conn *c = conn;

	(void)worker;
	(void)now;
	c->h = handle;
	c->parallel = ((const struct module *)module)->parallel;
	return SHB_OK;
}

static void conn_fini(void *conn)
{
	(void)conn;
}

static int on_transport_ready(void *conn, const struct shb_transport_info *info,
			      shb_tstamp now)
{
	(void)info;
	(void)now;
	((struct conn *)conn)->ready = 1;
	return SHB_OK;
}

/* One answer line: the oldest request is done. */
static int answer(struct conn *c, shb_tstamp now)
{
	struct shb_req_result r = {
		.struct_size = sizeof r,
		.outcome = SHB_REQ_OK,
		.rx_header_bytes = c->line_len,
		.ts_first_byte = SHB_TSTAMP_NONE,
		.ts_done = now,
	};
	uint64_t cookie;

	if (c->count == c->unsent || (c->line[0] != '+' && c->line[0] != '-')) {
		c->err = NAME ": an answer nothing asked for";
		return SHB_E_PROTO;
	}
	r.app_space = SPACE;
	r.app_ok = c->line[0] == '+';
	r.app_code = r.app_ok ? 0 : 1;
	r.detail = r.app_ok ? NULL : NAME ": error reply";
	cookie = c->cookie[c->head];
	c->head = (c->head + 1) % PIPE_MAX;
	c->count--;
	the_host->req_done(c->h, cookie, &r);
	return SHB_OK;
}

static shb_ssize recv_bytes(void *conn, const uint8_t *data, size_t len,
			    shb_tstamp now)
{
	struct conn *c = conn;

	for (size_t i = 0; i < len; i++) {
		if (c->line_len == LINE_MAX) {
			c->err = NAME ": an answer line above 512 bytes";
			return SHB_E_PROTO;
		}
		c->line[c->line_len++] = (char)data[i];
		if (data[i] != '\n')
			continue;
		if (answer(c, now) < 0)
			return SHB_E_PROTO;
		c->line_len = 0;
	}
	return (shb_ssize)len;
}

static int recv_eof(void *conn, shb_tstamp now)
{
	(void)now;
	return ((struct conn *)conn)->count ? SHB_E_CLOSED : SHB_OK;
}

static shb_ssize pull_send(void *conn, struct shb_vec *vecs, size_t max,
			   shb_tstamp now)
{
	struct conn *c = conn;
	size_t n = c->unsent * (sizeof ping - 1) - c->sent_part;

	(void)now;
	if (!max || !n)
		return 0;
	for (size_t i = 0; i < n; i++)
		c->out[i] = ping[(c->sent_part + i) % (sizeof ping - 1)];
	c->out_len = n;
	vecs[0].base = c->out;
	vecs[0].len = n;
	return 1;
}

static void sent(void *conn, size_t n, shb_tstamp now)
{
	struct conn *c = conn;
	size_t done = c->sent_part + n;

	(void)now;
	c->unsent -= (uint32_t)(done / (sizeof ping - 1));
	c->sent_part = done % (sizeof ping - 1);
}

static uint32_t state(const void *conn)
{
	const struct conn *c = conn;

	return c->unsent ? SHB_CS_WANT_WRITE : 0;
}

static uint32_t capacity(const void *conn)
{
	const struct conn *c = conn;

	return c->ready && c->count < c->parallel ? c->parallel - c->count : 0;
}

static int issue(void *conn, const void *prepared, uint64_t cookie,
		 shb_tstamp now)
{
	struct conn *c = conn;

	(void)prepared;
	(void)now;
	if (!capacity(c))
		return SHB_E_BUSY;
	c->cookie[(c->head + c->count) % PIPE_MAX] = cookie;
	c->count++;
	c->unsent++;
	return SHB_OK;
}

static const char *error_detail(const void *conn)
{
	return ((const struct conn *)conn)->err;
}

static const struct shb_proto_vtable vt = {
	.struct_size = sizeof vt,
	.module_create = module_create,
	.module_destroy = module_destroy,
	.prepare_request = prepare_request,
	.conn_init = conn_init,
	.conn_fini = conn_fini,
	.on_transport_ready = on_transport_ready,
	.recv = recv_bytes,
	.recv_eof = recv_eof,
	.pull_send = pull_send,
	.sent = sent,
	.state = state,
	.capacity = capacity,
	.issue = issue,
	.error_detail = error_detail,
};

static const char *const schemes[] = { "line", NULL };
static const struct shb_scheme scheme_defs[] = {
	{ "line", 7000, 0 },
	{ NULL, 0, 0 },
};

#if SHB_ABI_MINOR >= 4
static const struct shb_outcome_code line_codes[] = {
	{ 0, "ok", 1, 0 },
	{ 1, "err", 0, 0 },
	{ 0, NULL, 0, 0 },
};

static const struct shb_outcome_space spaces[] = {
	{ SPACE, 0, "line", line_codes },
	{ 0, 0, NULL, NULL },
};
#endif

static const struct shb_proto_desc desc = {
	.struct_size = sizeof desc,
	.transport = SHB_TRANSPORT_STREAM,
	.flags = SHB_PROTO_MULTIPLEXED,
	.name = NAME,
#if SHB_ABI_MINOR == 3
	.display_name = "Line (1.3)",
	.summary = "a pipelined line protocol built against ABI 1.3",
#else
	.display_name = "Line (1.4)",
	.summary = "a pipelined line protocol of request model NONE",
#endif
	.schemes = schemes,
	.conn_size = sizeof(struct conn),
	.vt = &vt,
	.scheme_defs = scheme_defs,
#if SHB_ABI_MINOR >= 4
	.request_model = SHB_REQMODEL_NONE,
	.outcome_spaces = spaces,
#endif
};

#if SHB_ABI_MINOR == 3
SHB_PLUGIN_DEFINE("org.shb.test.line13", "1.3.0", NULL, NULL,
		  SHB_PROTOCOLS(&desc), SHB_NO_REPORTERS);
#else
#include "line14_facts.h"

SHB_PLUGIN_DEFINE("org.shb.test.line14", "1.4.0", NULL, NULL,
		  SHB_PROTOCOLS(&desc), SHB_REPORTERS(&facts_desc));
#endif
