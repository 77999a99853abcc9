/* See fuzz_h1_host.h. */
#include <string.h>

#include "fuzz_h1_host.h"
#include "fuzz_input.h"
#include "fuzz_plugin.h"

static struct shb_conn *want_handle;
static h1fz_done_fn on_done;
static const struct shb_origin *conn_origin;
static int debug_on;

void h1fz_host_init(struct shb_conn *handle, h1fz_done_fn done,
		    const struct shb_origin *origin)
{
	want_handle = handle;
	on_done = done;
	conn_origin = origin;
}

static void fz_log(uint32_t level, const char *id, const char *msg)
{
	(void)level;
	FZ_CHECK(id && msg && strlen(msg) < 4096);
}

static int32_t fz_log_enabled(uint32_t level)
{
	return level <= SHB_LOG_WARN || debug_on;
}

static void fz_req_done(struct shb_conn *c, uint64_t cookie,
			const struct shb_req_result *res)
{
	FZ_CHECK(c == want_handle && res->struct_size == sizeof(*res));
	on_done(cookie, res);
}

static void fz_conn_event(struct shb_conn *c, const struct shb_conn_event *ev)
{
	FZ_CHECK(c == want_handle && ev->struct_size == sizeof(*ev));
}

static const struct shb_origin *fz_conn_origin(struct shb_conn *c)
{
	FZ_CHECK(c == want_handle);
	return conn_origin;
}

static const struct shb_host host = {
	.struct_size = sizeof(struct shb_host),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_ABI_MINOR,
	.version = "fuzz",
	.log = fz_log,
	.log_enabled = fz_log_enabled,
	.req_done = fz_req_done,
	.conn_event = fz_conn_event,
	.conn_origin = fz_conn_origin,
};

const struct shb_proto_desc *h1fz_desc(void)
{
	FZ_CHECK(on_done != NULL);
	return fz_plugin_desc(&host);
}

void *h1fz_module(uint32_t parallel, int debug)
{
	static void *mods[H1FZ_MAX_DEPTH + 1][2];
	struct shb_run_config cfg = {
		.struct_size = sizeof(cfg),
		.flags = debug ? SHB_RUN_DEBUG : 0,
		.connections = 1,
		.parallel = parallel,
		.threads = 1,
		.port = 80,
		.scheme = "http",
		.host = "example.com",
		.authority = "example.com",
	};
	char err[128];

	FZ_CHECK(parallel >= 1 && parallel <= H1FZ_MAX_DEPTH);
	debug = !!debug;
	debug_on = debug;
	if (!mods[parallel][debug])
		FZ_CHECK(h1fz_desc()->vt->module_create(&host, &cfg,
			&mods[parallel][debug], err, sizeof(err)) == SHB_OK);
	return mods[parallel][debug];
}

void h1fz_record(struct h1fz_result *r, uint64_t cookie,
		 const struct shb_req_result *res)
{
	memset(r, 0, sizeof(*r));
	r->cookie = cookie;
	r->outcome = res->outcome;
	r->status = res->status;
	if (res->outcome == SHB_REQ_OK) {
		FZ_CHECK(res->status >= 100 && res->status <= 999);
		r->head = res->rx_header_bytes;
		r->body = res->rx_body_bytes;
	}
}

int h1fz_feed(void *ctx, const uint8_t *p, size_t n, int last)
{
	struct h1fz_feed_ctx *f = ctx;
	const struct shb_proto_vtable *vt = h1fz_desc()->vt;
	shb_ssize r;

	(void)last;
	if (vt->state(f->c) & SHB_CS_CLOSED)
		return 1;
	r = vt->recv(f->c, p, n, 0);
	FZ_CHECK(r < 0 || (size_t)r == n);
	if (r < 0) {
		f->rc = (int)r;
		return 1;
	}
	return 0;
}
