/* A protocol plugin as an outsider wrote it for ABI 1.1: compiled against
 * the frozen 1.1 headers (tests/abi/v1.1) only, never sdk/include, so it
 * sees exactly the structs a 1.1 build saw. A small HTTP/1.1 client: one
 * request at a time per connection, responses framed by Content-Length.
 * run_1_1.sh runs it through the current core and counts its requests.
 *
 * Every member the 1.1 loader requires is set (next_deadline and on_timer
 * too, which 1.2 made optional): the point is an unchanged 1.1 build. */
#include <stdlib.h>
#include <string.h>
#include <shb/shb.h>

#if SHB_ABI_MINOR != 1
#error "this fixture must be built against the 1.1 headers (tests/abi/v1.1)"
#endif

#define HEAD_MAX 8192

static const struct shb_host *host;

struct module {
	int close_each; /* --disable-keepalive */
};

/* The request bytes, built once in prepare_request. */
struct prepared {
	size_t len;
	char bytes[];
};

struct conn {
	const struct module *m;
	struct shb_conn *h;
	const struct prepared *req;
	uint64_t cookie;
	int ready, busy, closed, in_body;
	size_t sent;         /* bytes of req already sent */
	size_t head_len;     /* bytes of the response head so far */
	uint64_t body_left;  /* of the body, once the head is complete */
	uint32_t status;
	uint64_t head_bytes, body_bytes;
	shb_tstamp first_byte;
	const char *err;
	char head[HEAD_MAX];
};

static int set_err(char *err, size_t errlen, const char *msg)
{
	if (err && errlen) {
		strncpy(err, msg, errlen - 1);
		err[errlen - 1] = '\0';
	}
	return SHB_E_INVAL;
}

static int module_create(const struct shb_host *h,
			 const struct shb_run_config *cfg, void **module,
			 char *err, size_t errlen)
{
	struct module *m = calloc(1, sizeof(*m));
	if (!m)
		return SHB_E_NOMEM;
	if (cfg->flags & SHB_RUN_TLS) {
		free(m);
		return set_err(err, errlen, "v11h1: http only");
	}
	m->close_each = (cfg->flags & SHB_RUN_DISABLE_KEEPALIVE) != 0;
	*module = m;
	return SHB_OK;
}

static void module_destroy(void *module)
{
	free(module);
}

static size_t put(char *dst, const char *s)
{
	size_t n = strlen(s);
	if (dst)
		memcpy(dst, s, n);
	return n;
}

/* Writes the request into dst (or only measures it when dst is NULL). */
static size_t build(char *dst, const struct shb_request *req, int close_each)
{
	size_t n = 0;
	char num[24];
	n += put(dst ? dst + n : NULL, req->method);
	n += put(dst ? dst + n : NULL, " ");
	n += put(dst ? dst + n : NULL, req->path);
	n += put(dst ? dst + n : NULL, " HTTP/1.1\r\nHost: ");
	n += put(dst ? dst + n : NULL, req->authority);
	n += put(dst ? dst + n : NULL, "\r\n");
	for (size_t i = 0; i < req->header_count; i++) {
		n += put(dst ? dst + n : NULL, req->headers[i].key);
		n += put(dst ? dst + n : NULL, ": ");
		n += put(dst ? dst + n : NULL, req->headers[i].value);
		n += put(dst ? dst + n : NULL, "\r\n");
	}
	if (req->flags & SHB_REQUEST_HAS_BODY) {
		size_t len = req->body_len, i = sizeof(num) - 1;
		num[i] = '\0';
		do {
			num[--i] = (char)('0' + len % 10);
			len /= 10;
		} while (len);
		n += put(dst ? dst + n : NULL, "Content-Length: ");
		n += put(dst ? dst + n : NULL, num + i);
		n += put(dst ? dst + n : NULL, "\r\n");
	}
	if (close_each)
		n += put(dst ? dst + n : NULL, "Connection: close\r\n");
	n += put(dst ? dst + n : NULL, "\r\n");
	if (req->flags & SHB_REQUEST_HAS_BODY) {
		if (dst && req->body_len)
			memcpy(dst + n, req->body, req->body_len);
		n += req->body_len;
	}
	return n;
}

static int prepare(void *module, const struct shb_request *req,
		   void **prepared, char *err, size_t errlen)
{
	const struct module *m = module;
	size_t len = build(NULL, req, m->close_each);
	struct prepared *p = malloc(sizeof(*p) + len);
	if (!p)
		return SHB_E_NOMEM;
	p->len = build(p->bytes, req, m->close_each);
	*prepared = p;
	return SHB_OK;
}

static void release(void *module, void *prepared)
{
	free(prepared);
}

static int conn_init(void *module, void *worker, void *conn,
		     struct shb_conn *handle, shb_tstamp now)
{
	struct conn *c = conn;
	c->m = module;
	c->h = handle;
	return SHB_OK;
}

static void conn_fini(void *conn) {}

static int ready(void *conn, const struct shb_transport_info *info,
		 shb_tstamp now)
{
	((struct conn *)conn)->ready = 1;
	return SHB_OK;
}

static int fail(struct conn *c, const char *why)
{
	c->err = why;
	c->closed = 1;
	return SHB_E_PROTO;
}

static void complete(struct conn *c, shb_tstamp now)
{
	struct shb_req_result res = {
		.struct_size = sizeof(res),
		.outcome = SHB_REQ_OK,
		.status = c->status,
		.rx_header_bytes = c->head_bytes,
		.rx_body_bytes = c->body_bytes,
		.ts_first_byte = c->first_byte,
		.ts_done = now,
	};
	c->busy = 0;
	if (c->m->close_each)
		c->closed = 1;
	host->req_done(c->h, c->cookie, &res);
}

/* Case-insensitive "name:" at the start of a header line. */
static int is_header(const char *line, const char *name)
{
	for (; *name; line++, name++) {
		char a = *line, b = *name;
		if (a >= 'A' && a <= 'Z')
			a = (char)(a - 'A' + 'a');
		if (a != b)
			return 0;
	}
	return *line == ':';
}

/* The head is complete (it ends in CRLF CRLF): status and length. */
static int parse_head(struct conn *c)
{
	c->head[c->head_len] = '\0';
	if (strncmp(c->head, "HTTP/1.1 ", 9) != 0 || c->head_len < 12)
		return fail(c, "not an HTTP/1.1 status line");
	c->status = 0;
	for (int i = 9; i < 12; i++) {
		if (c->head[i] < '0' || c->head[i] > '9')
			return fail(c, "bad status code");
		c->status = c->status * 10 + (uint32_t)(c->head[i] - '0');
	}
	int have_len = 0;
	for (char *l = strstr(c->head, "\r\n"); l && l[2] != '\r';
	     l = strstr(l + 2, "\r\n")) {
		if (!is_header(l + 2, "content-length"))
			continue;
		char *v = l + 2 + strlen("content-length:");
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v < '0' || *v > '9')
			return fail(c, "bad Content-Length");
		c->body_left = strtoull(v, NULL, 10);
		have_len = 1;
	}
	if (!have_len)
		return fail(c, "no Content-Length");
	c->head_bytes = c->head_len;
	c->in_body = 1;
	return SHB_OK;
}

static shb_ssize recv_bytes(void *conn, const uint8_t *data, size_t len,
			    shb_tstamp now)
{
	struct conn *c = conn;
	size_t i = 0;
	while (i < len) {
		if (!c->busy)
			return fail(c, "bytes without a request");
		if (!c->first_byte)
			c->first_byte = now;
		if (!c->in_body) {
			if (c->head_len + 1 >= HEAD_MAX)
				return fail(c, "response head too long");
			c->head[c->head_len++] = (char)data[i++];
			if (c->head_len >= 4 &&
			    memcmp(c->head + c->head_len - 4, "\r\n\r\n", 4) == 0 &&
			    parse_head(c) < 0)
				return SHB_E_PROTO;
		} else {
			size_t n = len - i;
			if (n > c->body_left)
				n = (size_t)c->body_left;
			c->body_left -= n;
			c->body_bytes += n;
			i += n;
		}
		if (c->in_body && c->body_left == 0)
			complete(c, now);
	}
	return (shb_ssize)len;
}

static int recv_eof(void *conn, shb_tstamp now)
{
	struct conn *c = conn;
	c->closed = 1;
	if (c->busy) {
		c->err = "closed before the response ended";
		return SHB_E_CLOSED;
	}
	return SHB_OK;
}

static shb_ssize pull_send(void *conn, struct shb_vec *vecs, size_t max,
			   shb_tstamp now)
{
	struct conn *c = conn;
	if (!c->busy || c->sent >= c->req->len || max == 0)
		return 0;
	vecs[0].base = (void *)(c->req->bytes + c->sent);
	vecs[0].len = c->req->len - c->sent;
	return 1;
}

static void sent(void *conn, size_t n, shb_tstamp now)
{
	((struct conn *)conn)->sent += n;
}

static shb_tstamp next_deadline(const void *conn) { return SHB_TSTAMP_NONE; }
static int on_timer(void *conn, shb_tstamp now) { return SHB_OK; }

static uint32_t state(const void *conn)
{
	const struct conn *c = conn;
	if (c->closed && !c->busy)
		return SHB_CS_CLOSED;
	return c->busy && c->sent < c->req->len ? SHB_CS_WANT_WRITE : 0;
}

static uint32_t capacity(const void *conn)
{
	const struct conn *c = conn;
	return c->ready && !c->busy && !c->closed;
}

static int issue(void *conn, const void *prepared, uint64_t cookie,
		 shb_tstamp now)
{
	struct conn *c = conn;
	if (!capacity(c))
		return SHB_E_BUSY;
	c->req = prepared;
	c->cookie = cookie;
	c->busy = 1;
	c->sent = c->head_len = 0;
	c->in_body = 0;
	c->body_left = c->head_bytes = c->body_bytes = 0;
	c->first_byte = 0;
	return SHB_OK;
}

/* The response may still arrive: this connection is done. */
static void cancel(void *conn, uint64_t cookie, shb_tstamp now)
{
	struct conn *c = conn;
	c->busy = 0;
	c->closed = 1;
}

static void shutdown_conn(void *conn, uint32_t mode, shb_tstamp now)
{
	((struct conn *)conn)->closed = 1;
}

static const char *error_detail(const void *conn)
{
	return ((const struct conn *)conn)->err;
}

static const struct shb_proto_vtable vt = {
	.struct_size = sizeof(struct shb_proto_vtable),
	.module_create = module_create,
	.module_destroy = module_destroy,
	.prepare_request = prepare,
	.release_request = release,
	.conn_init = conn_init,
	.conn_fini = conn_fini,
	.on_transport_ready = ready,
	.recv = recv_bytes,
	.recv_eof = recv_eof,
	.pull_send = pull_send,
	.sent = sent,
	.next_deadline = next_deadline,
	.on_timer = on_timer,
	.state = state,
	.capacity = capacity,
	.issue = issue,
	.cancel = cancel,
	.shutdown = shutdown_conn,
	.error_detail = error_detail,
};

static const char *const schemes[] = {"http", NULL};

static const struct shb_proto_desc desc = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_STREAM,
	.name = "v11h1",
	.display_name = "HTTP/1.1 (ABI 1.1 fixture)",
	.summary = "HTTP/1.1 client built against the ABI 1.1 headers",
	.schemes = schemes,
	.conn_size = sizeof(struct conn),
	.vt = &vt,
};

static const struct shb_proto_desc *get(uint32_t i)
{
	return i == 0 ? &desc : NULL;
}

static const struct shb_proto_factory factory = {
	.struct_size = sizeof(struct shb_proto_factory),
	.count = 1,
	.get = get,
};

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
	.id = "org.shb.test.v11proto",
	.version = "1.1.0",
	.init = init,
	.get_factory = get_factory,
};
