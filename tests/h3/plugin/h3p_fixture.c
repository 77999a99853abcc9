/* The fake host, and a connection driven through the vtable as the core
 * drives a datagram protocol. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h3p_tests.h"

struct h3p_seen h3p_seen;
static int debug_on;

static void fake_log(uint32_t level, const char *plugin_id, const char *msg)
{
	size_t i = h3p_seen.log_count;

	CU_ASSERT_STRING_EQUAL(plugin_id, "org.shb.proto.h3");
	if (i < H3P_MAX_LOG) {
		snprintf(h3p_seen.log[i], sizeof(h3p_seen.log[i]), "%u %s", level, msg);
		h3p_seen.log_count++;
	}
}

static int32_t fake_log_enabled(uint32_t level)
{
	return level <= SHB_LOG_WARN || (debug_on && level <= SHB_LOG_DEBUG);
}

/* Deterministic "random" bytes: zeros, so no grease setting is sent and
 * the control stream's bytes are fixed. */
static int fake_random(void *buf, size_t len)
{
	memset(buf, 0, len);
	return SHB_OK;
}

static void fake_req_done(struct shb_conn *conn, uint64_t cookie,
			  const struct shb_req_result *res)
{
	size_t i = h3p_seen.done_count;

	CU_ASSERT_PTR_EQUAL(conn, H3P_HANDLE);
	CU_ASSERT_FATAL(i < H3P_MAX_DONE);
	CU_ASSERT_EQUAL(res->struct_size, sizeof(*res));
	for (size_t k = 0; k < i; k++)
		CU_ASSERT(h3p_seen.done[k].cookie != cookie); /* once per cookie */
	h3p_seen.done[i].cookie = cookie;
	h3p_seen.done[i].res = *res;
	snprintf(h3p_seen.done[i].detail, sizeof(h3p_seen.done[i].detail), "%s",
		 res->detail ? res->detail : "");
	h3p_seen.done[i].res.detail = NULL;
	h3p_seen.done_count++;
}

static void fake_conn_event(struct shb_conn *conn, const struct shb_conn_event *ev)
{
	size_t i = h3p_seen.event_count;

	CU_ASSERT_PTR_EQUAL(conn, H3P_HANDLE);
	CU_ASSERT_FATAL(i < H3P_MAX_EVENTS);
	CU_ASSERT_EQUAL(ev->struct_size, sizeof(*ev));
	h3p_seen.events[i] = *ev;
	h3p_seen.events[i].detail = NULL;
	h3p_seen.event_count++;
}

const struct shb_host h3p_host = {
	.struct_size = sizeof(struct shb_host),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_ABI_MINOR,
	.version = "test",
	.log = fake_log,
	.log_enabled = fake_log_enabled,
	.random_secure = fake_random,
	.req_done = fake_req_done,
	.conn_event = fake_conn_event,
};

void h3p_reset(int debug)
{
	memset(&h3p_seen, 0, sizeof(h3p_seen));
	debug_on = debug;
}

const struct h3p_done *h3p_done_for(uint64_t cookie)
{
	for (size_t i = 0; i < h3p_seen.done_count; i++)
		if (h3p_seen.done[i].cookie == cookie)
			return &h3p_seen.done[i];
	return NULL;
}

int h3p_logged(const char *text)
{
	for (size_t i = 0; i < h3p_seen.log_count; i++)
		if (strstr(h3p_seen.log[i], text))
			return 1;
	return 0;
}

/* ---- the fixture ------------------------------------------------------- */

static const struct shb_proto_desc *desc(void)
{
	static int inited;
	const struct shb_proto_factory *f;

	if (!inited) {
		CU_ASSERT_EQUAL_FATAL(shb_plugin_entry_v1.init(&h3p_host), SHB_OK);
		inited = 1;
	}
	f = shb_plugin_entry_v1.get_factory(SHB_FACTORY_PROTOCOL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	return f->get(0);
}

void h3p_open(struct h3p_fx *f, uint32_t run_flags, uint32_t parallel,
	      const char *body, int debug)
{
	const struct shb_proto_desc *d;
	struct shb_run_config cfg = {
		.struct_size = sizeof(cfg),
		.flags = SHB_RUN_TLS | run_flags,
		.connections = 1,
		.parallel = parallel,
		.threads = 1,
		.port = 443,
		.scheme = "https",
		.host = "example.com",
		.authority = "example.com",
		.connect_timeout_ns = 5000000000ull,
	};
	struct shb_request req = {
		.struct_size = sizeof(req),
		.flags = body ? SHB_REQUEST_HAS_BODY : 0,
		.method = body ? "POST" : "GET",
		.scheme = "https",
		.authority = "example.com",
		.path = "/",
		.body = (const uint8_t *)body,
		.body_len = body ? strlen(body) : 0,
	};
	struct shb_transport_info info = {
		.struct_size = sizeof(info),
		.max_dgram = 1200,
	};
	char err[160] = "";
	void *m = NULL, *prep = NULL;

	h3p_reset(debug);
	memset(f, 0, sizeof(*f));
	d = desc();
	f->vt = d->vt;
	CU_ASSERT_EQUAL_FATAL(f->vt->module_create(&h3p_host, &cfg, &m, err, sizeof(err)),
			      SHB_OK);
	f->mod = m;
	f->mod->ops = &fq_ops;
	CU_ASSERT_EQUAL_FATAL(f->vt->prepare_request(m, &req, &prep, err, sizeof(err)),
			      SHB_OK);
	f->prep = prep;
	CU_ASSERT_EQUAL_FATAL(f->vt->worker_init(m, &f->worker, 3), SHB_OK);
	f->c = calloc(1, d->conn_size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->c);
	f->now = 1000000000ull;
	CU_ASSERT_EQUAL_FATAL(f->vt->conn_init(m, &f->worker, f->c, H3P_HANDLE, f->now),
			      SHB_OK);
	CU_ASSERT_EQUAL_FATAL(f->vt->on_transport_ready(f->c, &info, f->now), SHB_OK);
	f->q = fq_last;
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->q);
	f->next_cookie = 0x100;
}

void h3p_open_ready(struct h3p_fx *f, uint32_t parallel)
{
	h3p_open(f, 0, parallel, NULL, 0);
	CU_ASSERT_EQUAL(f->vt->capacity(f->c), 0);
	fq_q_handshake(f->q);
	CU_ASSERT_EQUAL_FATAL(h3p_recv(f), SHB_OK);
}

void h3p_close(struct h3p_fx *f)
{
	f->vt->conn_fini(f->c);
	free(f->c);
	f->vt->release_request(f->mod, f->prep);
	f->vt->module_destroy(f->mod);
	memset(f, 0, sizeof(*f));
}

int h3p_recv(struct h3p_fx *f)
{
	uint8_t dgram[1200] = {0};
	struct shb_vec v = {dgram, sizeof(dgram)};

	f->now += 1000000;
	return f->vt->recv_dgrams(f->c, &v, 1, f->now);
}

uint64_t h3p_issue(struct h3p_fx *f)
{
	uint64_t cookie = f->next_cookie++;

	CU_ASSERT_FATAL(f->vt->capacity(f->c) > 0);
	CU_ASSERT_EQUAL_FATAL(f->vt->issue(f->c, f->prep, cookie, f->now), SHB_OK);
	return cookie;
}

shb_ssize h3p_write(struct h3p_fx *f)
{
	static uint8_t buf[64 * 1200];
	size_t seg = 0;

	return f->vt->write_dgrams(f->c, buf, sizeof(buf), &seg, f->now);
}

size_t h3p_headers_status_idx(uint8_t *out, unsigned index)
{
	/* HEADERS: prefix 00 00, then an indexed static line 11xxxxxx with a
	 * 6-bit prefix integer (RFC 9204 Section 4.5.2). */
	size_t n = 4;

	out[0] = 0x01;
	out[2] = 0x00;
	out[3] = 0x00;
	if (index < 63) {
		out[n++] = (uint8_t)(0xc0 | index);
	} else {
		out[n++] = 0xff;
		out[n++] = (uint8_t)(index - 63);
	}
	out[1] = (uint8_t)(n - 2);
	return n;
}

size_t h3p_data(uint8_t *out, const char *text)
{
	size_t n = strlen(text);

	out[0] = 0x00;
	out[1] = (uint8_t)n;
	memcpy(out + 2, text, n);
	return n + 2;
}
