/* Fixture: a protocol built against ABI 1.2 that leaves out the optional
 * members (next_deadline, on_timer, cancel, shutdown, error_detail,
 * issue_var). It speaks just enough HTTP/1.1 to run a whole load against
 * shb-testserver: one request at a time per connection, responses with a
 * Content-Length. The loader test runs it with -n and checks the exact
 * count, so a core that calls a NULL member crashes the test. */
#include <string.h>
#include <shb/shb.h>

static const struct shb_host *nt_host;

struct nt_prepared {
	char bytes[512];
	size_t len;
};

struct nt_conn {
	struct shb_conn *handle;
	const struct nt_prepared *req; /* being sent or awaiting its answer */
	uint64_t cookie;
	size_t sent;    /* bytes of req sent */
	int busy;       /* a request is in flight */
	int closed;
	/* The response head is collected here; the body only counted. */
	char head[1024];
	size_t head_len;
	size_t body_left; /* once the head is complete */
	int in_body;
	uint32_t status;
	shb_tstamp first_byte;
};

static int nt_module_create(const struct shb_host *host,
			    const struct shb_run_config *cfg, void **module,
			    char *err, size_t errlen)
{
	*module = NULL;
	return SHB_OK;
}

static void nt_module_destroy(void *module) {}

static int nt_prepare(void *module, const struct shb_request *req,
		      void **prepared, char *err, size_t errlen)
{
	static struct nt_prepared p; /* one template per run */
	size_t m = strlen(req->method), a = strlen(req->authority),
	       u = strlen(req->path);

	if (m + a + u + 32 > sizeof p.bytes)
		return SHB_E_INVAL;
	p.len = 0;
	memcpy(p.bytes + p.len, req->method, m), p.len += m;
	p.bytes[p.len++] = ' ';
	memcpy(p.bytes + p.len, req->path, u), p.len += u;
	memcpy(p.bytes + p.len, " HTTP/1.1\r\nHost: ", 17), p.len += 17;
	memcpy(p.bytes + p.len, req->authority, a), p.len += a;
	memcpy(p.bytes + p.len, "\r\n\r\n", 4), p.len += 4;
	*prepared = &p;
	return SHB_OK;
}

static int nt_conn_init(void *module, void *worker, void *conn,
			struct shb_conn *handle, shb_tstamp now)
{
	struct nt_conn *c = conn;

	c->handle = handle;
	return SHB_OK;
}

static void nt_conn_fini(void *conn) {}

static int nt_ready(void *conn, const struct shb_transport_info *info,
		    shb_tstamp now)
{
	return SHB_OK;
}

/* Status from "HTTP/1.1 200 ..." and Content-Length (no other framing). */
static int nt_parse_head(struct nt_conn *c)
{
	const char *h = c->head, *p;
	size_t len = 0;

	if (c->head_len < 12 || memcmp(h, "HTTP/1.1 ", 9))
		return -1;
	c->status = (uint32_t)((h[9] - '0') * 100 + (h[10] - '0') * 10 +
			       (h[11] - '0'));
	p = strstr(h, "\r\nContent-Length: ");
	if (!p)
		p = strstr(h, "\r\ncontent-length: ");
	if (!p)
		return -1;
	for (p += 18; *p >= '0' && *p <= '9'; p++)
		len = len * 10 + (size_t)(*p - '0');
	c->body_left = len;
	return 0;
}

static void nt_done(struct nt_conn *c, shb_tstamp now)
{
	struct shb_req_result r = {
		.struct_size = sizeof r,
		.outcome = SHB_REQ_OK,
		.status = c->status,
		.rx_header_bytes = c->head_len,
		.ts_first_byte = c->first_byte,
		.ts_done = now,
	};

	c->busy = 0;
	c->in_body = 0;
	c->head_len = 0;
	nt_host->req_done(c->handle, c->cookie, &r);
}

static shb_ssize nt_recv(void *conn, const uint8_t *data, size_t len,
			 shb_tstamp now)
{
	struct nt_conn *c = conn;
	size_t i = 0;

	while (i < len) {
		if (!c->busy)
			return SHB_E_PROTO; /* bytes nobody asked for */
		if (!c->in_body) {
			if (c->head_len == 0)
				c->first_byte = now;
			if (c->head_len + 1 >= sizeof c->head)
				return SHB_E_PROTO;
			c->head[c->head_len++] = (char)data[i++];
			c->head[c->head_len] = '\0';
			if (c->head_len < 4 ||
			    memcmp(c->head + c->head_len - 4, "\r\n\r\n", 4))
				continue;
			if (nt_parse_head(c))
				return SHB_E_PROTO;
			c->in_body = 1;
		} else {
			size_t n = len - i < c->body_left ? len - i : c->body_left;

			i += n;
			c->body_left -= n;
		}
		if (c->in_body && c->body_left == 0)
			nt_done(c, now);
	}
	return (shb_ssize)len;
}

static int nt_recv_eof(void *conn, shb_tstamp now)
{
	struct nt_conn *c = conn;

	c->closed = 1;
	return c->busy ? SHB_E_CLOSED : SHB_OK;
}

static shb_ssize nt_pull_send(void *conn, struct shb_vec *vecs, size_t max,
			      shb_tstamp now)
{
	struct nt_conn *c = conn;

	if (!c->busy || c->sent == c->req->len || max == 0)
		return 0;
	vecs[0].base = (void *)(c->req->bytes + c->sent);
	vecs[0].len = c->req->len - c->sent;
	return 1;
}

static void nt_sent(void *conn, size_t n, shb_tstamp now)
{
	((struct nt_conn *)conn)->sent += n;
}

static uint32_t nt_state(const void *conn)
{
	const struct nt_conn *c = conn;

	if (c->closed)
		return SHB_CS_CLOSED;
	return c->busy && c->sent < c->req->len ? SHB_CS_WANT_WRITE : 0;
}

static uint32_t nt_capacity(const void *conn)
{
	const struct nt_conn *c = conn;

	return c->busy || c->closed ? 0 : 1;
}

static int nt_issue(void *conn, const void *prepared, uint64_t cookie,
		    shb_tstamp now)
{
	struct nt_conn *c = conn;

	if (c->busy || c->closed)
		return SHB_E_BUSY;
	c->req = prepared;
	c->cookie = cookie;
	c->sent = 0;
	c->busy = 1;
	return SHB_OK;
}

static const struct shb_proto_vtable nt_vt = {
	.struct_size = sizeof(struct shb_proto_vtable),
	.module_create = nt_module_create,
	.module_destroy = nt_module_destroy,
	.prepare_request = nt_prepare,
	.conn_init = nt_conn_init,
	.conn_fini = nt_conn_fini,
	.on_transport_ready = nt_ready,
	.recv = nt_recv,
	.recv_eof = nt_recv_eof,
	.pull_send = nt_pull_send,
	.sent = nt_sent,
	.state = nt_state,
	.capacity = nt_capacity,
	.issue = nt_issue,
};

static const char *const nt_schemes[] = { "http", NULL };

static const struct shb_proto_desc nt_desc = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_STREAM,
	.name = "notimer",
	.display_name = "HTTP/1.1 (no timers)",
	.summary = "fixture protocol without timers (ABI 1.2)",
	.schemes = nt_schemes,
	.conn_size = sizeof(struct nt_conn),
	.vt = &nt_vt,
};

static const struct shb_proto_desc *nt_get(uint32_t i)
{
	return &nt_desc;
}

static const struct shb_proto_factory nt_factory = {
	.struct_size = sizeof(struct shb_proto_factory),
	.count = 1,
	.get = nt_get,
};

static int nt_init(const struct shb_host *host)
{
	nt_host = host;
	return SHB_OK;
}

static const void *nt_get_factory(const char *id)
{
	return strcmp(id, SHB_FACTORY_PROTOCOL) ? NULL : &nt_factory;
}

SHB_PLUGIN_EXPORT const struct shb_plugin_entry shb_plugin_entry_v1 = {
	.struct_size = sizeof(struct shb_plugin_entry),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = 2,
	.id = "org.shb.test.notimer",
	.version = "0.1",
	.init = nt_init,
	.get_factory = nt_get_factory,
};
