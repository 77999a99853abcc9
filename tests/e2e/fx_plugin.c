/* A test protocol with its own URL schemes and options (ABI 1.2
 * scheme_defs and option_defs), for tests/e2e/schemes.sh, and with
 * upload=BYTES and bye for tests/e2e/goodbye.sh.
 *
 * Schemes: fx (default port 7070, plain) and fxs (7443, TLS run by the
 * core). On the wire it is the smallest HTTP/1.1 client that the test
 * server's hello mode answers: "GET PATH HTTP/1.1" with a Host header, and
 * a response read up to its Content-Length. Options: tag=TEXT (kept),
 * fail (module_create fails) and failreq (prepare_request fails), each
 * failure saying exactly what the plugin was given, so that the test sees
 * what reached it: the options in order, the scheme, TLS flag and port of
 * shb_run_config, and the scheme, authority and path of shb_request.
 * upload=BYTES makes every request a POST with a body of that many 'x';
 * bye makes a graceful shutdown queue the line "BYE\r\n" after whatever
 * is unsent, so a server sees whether the goodbye reached it.
 * hello makes every connection open with a handshake of its own: it sends
 * "HELLO\r\n" and takes no request until the server's "OK\r\n"; a
 * graceful shutdown before the OK says DRAINING alone and sends BYE once
 * the OK came (tests/e2e/handshake-end.sh: the end of a run waits for it).
 * failworker=INDEX makes worker_init of that worker fail, and then every
 * worker_fini says which worker it ends on stderr ("fx: worker_fini N"),
 * for tests/e2e/plugin-fail.sh: fini only after a successful init.
 * tlsprio=STRING is what tls_priority (ABI 1.4) returns, for
 * tests/e2e/schemes.sh: the core checks it before any traffic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <shb/shb.h>

#define HEAD_MAX 4096

static const struct shb_host *host;

struct module {
	int failreq;
	int bye;
	int hello;
	size_t upload;
	int failworker;         /* failworker given: fini says so */
	unsigned long failindex; /* ... and the worker whose init fails */
	char *tlsprio;           /* tlsprio=STRING, or NULL */
};

struct worker {
	uint32_t index;
	int inited;
};

static const char bye_line[] = "BYE\r\n";
static const char hello_line[] = "HELLO\r\n";
static const char ok_line[] = "OK\r\n";

struct prepared {
	size_t len;
	char bytes[];
};

struct conn {
	struct shb_conn *h;
	const struct module *m;
	size_t bye_sent; /* bytes of bye_line out */
	int bye;         /* a graceful shutdown queued bye_line */
	size_t hello_sent; /* bytes of hello_line out */
	size_t ok_got;     /* bytes of ok_line in; all: the handshake is done */
	int bye_on_ok;     /* shut down before the OK: BYE once it comes */
	const struct prepared *req; /* in flight, or NULL */
	uint64_t cookie;
	size_t sent;
	char head[HEAD_MAX];
	size_t head_len;
	int in_body;
	unsigned status;
	size_t body_left;
	int closed;
};

/* "key=value key2 ..." of cfg->options, cut to n. */
static void options_text(const struct shb_run_config *cfg, char *buf, size_t n)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < cfg->option_count && o < n; i++) {
		int w = snprintf(buf + o, n - o, "%s%s=%s", i ? " " : "",
				 cfg->options[i].key, cfg->options[i].value);
		if (w < 0)
			break;
		o += (size_t)w;
	}
}

static int module_create(const struct shb_host *h,
			 const struct shb_run_config *cfg, void **module,
			 char *err, size_t errlen)
{
	struct module *m = calloc(1, sizeof(*m));
	char opts[256];
	int fail = 0;

	(void)h;
	if (!m)
		return SHB_E_NOMEM;
	for (size_t i = 0; i < cfg->option_count; i++) {
		fail |= strcmp(cfg->options[i].key, "fail") == 0;
		m->failreq |= strcmp(cfg->options[i].key, "failreq") == 0;
		m->bye |= strcmp(cfg->options[i].key, "bye") == 0;
		m->hello |= strcmp(cfg->options[i].key, "hello") == 0;
		if (strcmp(cfg->options[i].key, "upload") == 0)
			m->upload = strtoul(cfg->options[i].value, NULL, 10);
		if (strcmp(cfg->options[i].key, "tlsprio") == 0 && !m->tlsprio)
			m->tlsprio = strdup(cfg->options[i].value);
		if (strcmp(cfg->options[i].key, "failworker") == 0) {
			m->failworker = 1;
			m->failindex = strtoul(cfg->options[i].value, NULL, 10);
		}
	}
	if (fail) {
		options_text(cfg, opts, sizeof(opts));
		snprintf(err, errlen, "options [%s] scheme %s tls %u port %u "
			 "authority %s", opts, cfg->scheme,
			 (unsigned)(cfg->flags & SHB_RUN_TLS), (unsigned)cfg->port,
			 cfg->authority);
		free(m->tlsprio);
		free(m);
		return SHB_E_INVAL;
	}
	*module = m;
	return SHB_OK;
}

static void module_destroy(void *module)
{
	free(((struct module *)module)->tlsprio);
	free(module);
}

static const char *tls_priority(void *module)
{
	return ((const struct module *)module)->tlsprio;
}

static int prepare_request(void *module, const struct shb_request *req,
			   void **prepared, char *err, size_t errlen)
{
	const struct module *m = module;
	struct prepared *p;
	int n;

	if (m->failreq) {
		/* Prefixed with the protocol's own name, as many plugins
		 * write their lines: the core must not print it twice. */
		snprintf(err, errlen, "fx: request scheme %s authority %s path %s",
			 req->scheme, req->authority, req->path);
		return SHB_E_INVAL;
	}
	if (m->upload) {
		static const char f[] = "POST %s HTTP/1.1\r\nHost: %s\r\n"
					"Content-Length: %zu\r\n\r\n";

		n = snprintf(NULL, 0, f, req->path, req->authority, m->upload);
		p = malloc(sizeof(*p) + (size_t)n + 1 + m->upload);
		if (!p)
			return SHB_E_NOMEM;
		snprintf(p->bytes, (size_t)n + 1, f, req->path, req->authority, m->upload);
		memset(p->bytes + n, 'x', m->upload);
		p->len = (size_t)n + m->upload;
		*prepared = p;
		return SHB_OK;
	}
	n = snprintf(NULL, 0, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", req->path,
		     req->authority);
	p = malloc(sizeof(*p) + (size_t)n + 1);
	if (!p)
		return SHB_E_NOMEM;
	snprintf(p->bytes, (size_t)n + 1, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n",
		 req->path, req->authority);
	p->len = (size_t)n;
	*prepared = p;
	return SHB_OK;
}

static void release_request(void *module, void *prepared)
{
	(void)module;
	free(prepared);
}

static int worker_init(void *module, void *worker, uint32_t index)
{
	const struct module *m = module;
	struct worker *w = worker;

	if (m->failworker && index == m->failindex)
		return SHB_E_INVAL;
	w->index = index;
	w->inited = 1;
	return SHB_OK;
}

/* A fini without its init, or twice, shows as a line of its own. */
static void worker_fini(void *module, void *worker)
{
	const struct module *m = module;
	struct worker *w = worker;

	if (m->failworker)
		fprintf(stderr, "fx: worker_fini %s%u\n",
			w->inited ? "" : "without init, ", (unsigned)w->index);
	w->inited = 0;
}

static int conn_init(void *module, void *worker, void *conn,
		     struct shb_conn *handle, shb_tstamp now)
{
	struct conn *c = conn;

	(void)worker, (void)now;
	c->h = handle;
	c->m = module;
	return SHB_OK;
}

static void conn_fini(void *conn)
{
	(void)conn;
}

static int on_transport_ready(void *conn, const struct shb_transport_info *info,
			      shb_tstamp now)
{
	(void)conn, (void)info, (void)now;
	return SHB_OK;
}

static void complete(struct conn *c, shb_tstamp now)
{
	struct shb_req_result r;

	memset(&r, 0, sizeof(r));
	r.struct_size = sizeof(r);
	r.outcome = SHB_REQ_OK;
	r.status = c->status;
	r.ts_first_byte = SHB_TSTAMP_NONE;
	r.ts_done = now;
	c->req = NULL;
	c->head_len = 0;
	c->in_body = 0;
	host->req_done(c->h, c->cookie, &r);
}

/* The status line and Content-Length of a complete head. */
static int parse_head(struct conn *c)
{
	const char *cl;

	c->head[c->head_len] = '\0';
	if (strncmp(c->head, "HTTP/1.1 ", 9) != 0)
		return SHB_E_PROTO;
	c->status = (unsigned)strtoul(c->head + 9, NULL, 10);
	if (c->status < 100 || c->status > 999)
		return SHB_E_PROTO;
	cl = strcasestr(c->head, "\r\ncontent-length:");
	c->body_left = cl ? strtoul(cl + 17, NULL, 10) : 0;
	c->in_body = 1;
	return SHB_OK;
}

static int hello_done(const struct conn *c)
{
	return !c->m->hello || c->ok_got == sizeof(ok_line) - 1;
}

/* The server's "OK\r\n" to our HELLO, byte by byte; a shutdown that came
 * before it queues BYE now. Returns the bytes taken, or SHB_E_PROTO. */
static shb_ssize read_ok(struct conn *c, const uint8_t *data, size_t len)
{
	size_t i = 0;

	while (i < len && !hello_done(c)) {
		if (data[i++] != (uint8_t)ok_line[c->ok_got++])
			return SHB_E_PROTO;
	}
	if (hello_done(c) && c->bye_on_ok)
		c->bye = 1;
	return (shb_ssize)i;
}

static shb_ssize recv_bytes(void *conn, const uint8_t *data, size_t len,
			    shb_tstamp now)
{
	struct conn *c = conn;
	size_t i = 0;

	if (!hello_done(c)) {
		shb_ssize n = read_ok(c, data, len);

		if (n < 0)
			return n;
		i = (size_t)n;
	}
	while (i < len) {
		if (!c->req)
			return SHB_E_PROTO; /* bytes nobody asked for */
		if (!c->in_body) {
			if (c->head_len + 1 >= HEAD_MAX)
				return SHB_E_PROTO;
			c->head[c->head_len++] = (char)data[i++];
			if (c->head_len >= 4 &&
			    memcmp(c->head + c->head_len - 4, "\r\n\r\n", 4) == 0 &&
			    parse_head(c) < 0)
				return SHB_E_PROTO;
		} else {
			size_t take = len - i < c->body_left ? len - i : c->body_left;
			c->body_left -= take;
			i += take;
		}
		if (c->in_body && c->body_left == 0)
			complete(c, now);
	}
	return (shb_ssize)len;
}

static int recv_eof(void *conn, shb_tstamp now)
{
	struct conn *c = conn;

	(void)now;
	c->closed = 1;
	return c->req ? SHB_E_CLOSED : SHB_OK;
}

static int bye_left(const struct conn *c)
{
	return c->bye && c->bye_sent < sizeof(bye_line) - 1;
}

static int hello_left(const struct conn *c)
{
	return c->m->hello && c->hello_sent < sizeof(hello_line) - 1;
}

static shb_ssize pull_send(void *conn, struct shb_vec *vecs, size_t max,
			   shb_tstamp now)
{
	struct conn *c = conn;
	size_t n = 0;

	(void)now;
	if (hello_left(c) && n < max) {
		vecs[n].base = (void *)(hello_line + c->hello_sent);
		vecs[n++].len = sizeof(hello_line) - 1 - c->hello_sent;
	}
	if (c->req && c->sent < c->req->len && n < max) {
		vecs[n].base = (void *)(c->req->bytes + c->sent);
		vecs[n++].len = c->req->len - c->sent;
	}
	if (bye_left(c) && n < max) {
		vecs[n].base = (void *)(bye_line + c->bye_sent);
		vecs[n++].len = sizeof(bye_line) - 1 - c->bye_sent;
	}
	return (shb_ssize)n;
}

static void sent(void *conn, size_t n, shb_tstamp now)
{
	struct conn *c = conn;
	size_t hl = sizeof(hello_line) - 1 - c->hello_sent;
	size_t left, take;

	(void)now;
	if (c->m->hello) {
		take = n < hl ? n : hl;
		c->hello_sent += take;
		n -= take;
	}
	left = c->req ? c->req->len - c->sent : 0;
	take = n < left ? n : left;
	c->sent += take;
	c->bye_sent += n - take;
}

/* A graceful end: the goodbye line, when asked for, after what is unsent. */
static void shutdown_conn(void *conn, uint32_t how, shb_tstamp now)
{
	struct conn *c = conn;

	(void)now;
	if (c->m->hello && !hello_done(c)) {
		/* The HELLO out: the server may answer it, and BYE may only
		 * follow its OK. Not out: the server knows of no handshake. */
		if (how == SHB_SHUT_GRACEFUL && !hello_left(c))
			c->bye_on_ok = 1;
		else
			c->closed = 1;
		return;
	}
	if (how == SHB_SHUT_GRACEFUL && c->m->bye)
		c->bye = 1;
}

static uint32_t state(const void *conn)
{
	const struct conn *c = conn;

	if (c->closed)
		return SHB_CS_CLOSED;
	if (c->bye_on_ok && !hello_done(c))
		return SHB_CS_DRAINING; /* waits for the OK before its BYE */
	return (c->req && c->sent < c->req->len) || bye_left(c) || hello_left(c)
		       ? SHB_CS_WANT_WRITE : 0;
}

static uint32_t capacity(const void *conn)
{
	const struct conn *c = conn;

	return !c->closed && !c->req && !c->bye && !c->bye_on_ok && hello_done(c);
}

static int issue(void *conn, const void *prepared, uint64_t cookie,
		 shb_tstamp now)
{
	struct conn *c = conn;

	(void)now;
	if (c->req || c->closed)
		return SHB_E_BUSY;
	c->req = prepared;
	c->cookie = cookie;
	c->sent = 0;
	return SHB_OK;
}

static shb_tstamp next_deadline(const void *conn)
{
	(void)conn;
	return SHB_TSTAMP_NONE;
}

static int on_timer(void *conn, shb_tstamp now)
{
	(void)conn, (void)now;
	return SHB_OK;
}

static const struct shb_proto_vtable vt = {
	.struct_size = sizeof(vt),
	.module_create = module_create,
	.module_destroy = module_destroy,
	.prepare_request = prepare_request,
	.release_request = release_request,
	.worker_init = worker_init,
	.worker_fini = worker_fini,
	.conn_init = conn_init,
	.conn_fini = conn_fini,
	.on_transport_ready = on_transport_ready,
	.recv = recv_bytes,
	.recv_eof = recv_eof,
	.pull_send = pull_send,
	.sent = sent,
	.shutdown = shutdown_conn,
	.next_deadline = next_deadline,
	.on_timer = on_timer,
	.state = state,
	.capacity = capacity,
	.issue = issue,
	.tls_priority = tls_priority,
};

static const char *const schemes[] = {"fx", "fxs", NULL};
static const char *const alpn[] = {"http/1.1", NULL};

static const struct shb_scheme scheme_defs[] = {
	{"fx", 7070, 0},
	{"fxs", 7443, SHB_SCHEME_TLS},
	{NULL, 0, 0},
};

static const struct shb_option_def option_defs[] = {
	{"tag", "TEXT", "a word module_create keeps"},
	{"fail", NULL, "module_create fails, saying what it was given"},
	{"failreq", NULL, "prepare_request fails, saying what it was given"},
	{"upload", "BYTES", "every request a POST with this many bytes of body"},
	{"bye", NULL, "a graceful shutdown sends the line BYE after the rest"},
	{"hello", NULL, "each connection first sends HELLO and waits for OK"},
	{"failworker", "INDEX", "worker_init of that worker fails"},
	{"tlsprio", "STRING", "the TLS priority string tls_priority returns"},
	{NULL, NULL, NULL},
};

static const struct shb_proto_desc desc = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_STREAM,
	.flags = SHB_PROTO_CORE_TLS,
	.name = "fx",
	.display_name = "FX (test)",
	.summary = "test protocol with its own schemes fx:// and fxs://",
	.schemes = schemes,
	.alpn = alpn,
	.conn_size = sizeof(struct conn),
	.worker_size = sizeof(struct worker),
	.vt = &vt,
	.scheme_defs = scheme_defs,
	.option_defs = option_defs,
};

static const struct shb_proto_desc *get(uint32_t i)
{
	return i == 0 ? &desc : NULL;
}

static const struct shb_proto_factory factory = {sizeof(factory), 1, get};

static int init(const struct shb_host *h)
{
	host = h;
	return SHB_OK;
}

static const void *get_factory(const char *id)
{
	return strcmp(id, SHB_FACTORY_PROTOCOL) == 0 ? &factory : NULL;
}

SHB_PLUGIN_EXPORT const struct shb_plugin_entry shb_plugin_entry_v1 = {
	.struct_size = sizeof(struct shb_plugin_entry),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_ABI_MINOR,
	.id = "org.shb.test.fx",
	.version = "1",
	.init = init,
	.get_factory = get_factory,
};
