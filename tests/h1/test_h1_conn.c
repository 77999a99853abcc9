/* The connection state machine, driven through the vtable like the core
 * drives it, under the test kit (shb/kit.h): its fake host records
 * req_done and checks the thread and ownership rules, its clock gives each
 * call its `now`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h1_request.h"
#include "h1_tests.h"

#define RESP_OK "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"

struct fx {
	struct shb_kit_module m;
	struct shb_kit_conn c;
	const struct shb_h1_request *req;
};

static void fx_open(struct fx *f, uint32_t run_flags, const char *method,
		    const char *body, int debug)
{
	const struct shb_proto_desc *d = shb_h1_test_desc();
	struct shb_run_config cfg;
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = method,
		.scheme = "http",
		.authority = "h",
		.path = "/",
	};

	shb_h1_test_reset(debug);
	memset(f, 0, sizeof(*f));
	shb_kit_run_config_default(&cfg, d);
	cfg.flags = run_flags;
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_create(&f->m, &shb_h1_kit, d, &cfg),
			      SHB_OK);
	if (body) {
		req.flags = SHB_REQUEST_HAS_BODY;
		req.body = (const uint8_t *)body;
		req.body_len = strlen(body);
	}
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_prepare(&f->m, &req), SHB_OK);
	f->req = f->m.prepared;
	/* The kit gives the connection exactly conn_size zeroed bytes, as
	 * the core does, so that ASan checks the bounds. */
	shb_kit_clock_set(&shb_h1_kit.clock, 1);
	CU_ASSERT_EQUAL(shb_kit_conn_init(&f->c, &f->m), SHB_OK);
}

static void fx_ready(struct fx *f)
{
	struct shb_transport_info info = {
		.struct_size = sizeof(info),
		.alpn = "http/1.1",
	};
	shb_kit_clock_set(&shb_h1_kit.clock, 2);
	CU_ASSERT_EQUAL(shb_kit_conn_ready(&f->c, &info), SHB_OK);
}

/* Ends the connection and asserts that the plugin broke no rule of the
 * host (req_done only from a call on its connection, once per cookie, a
 * full-size result; log lines under its own id). */
static void fx_close(struct fx *f)
{
	shb_kit_conn_fini(&f->c);
	shb_kit_module_destroy(&f->m);
	for (size_t i = 0; i < shb_h1_kit.done_count; i++)
		CU_ASSERT_EQUAL(shb_h1_kit.done[i].res.struct_size,
				sizeof(struct shb_req_result));
	CU_ASSERT_EQUAL(shb_kit_host_dump_violations(&shb_h1_kit, "h1: "), 0);
}

/* Each [conn] call through the kit, at time `now`. */
static void at(shb_tstamp now)
{
	shb_kit_clock_set(&shb_h1_kit.clock, now);
}

static int fx_issue(struct fx *f, uint64_t cookie, shb_tstamp now)
{
	at(now);
	return shb_kit_conn_issue(&f->c, NULL, cookie);
}

static shb_ssize fx_pull_send(struct fx *f, struct shb_vec *v, size_t max,
			      shb_tstamp now)
{
	at(now);
	return shb_kit_conn_pull_send(&f->c, v, max);
}

static void fx_sent(struct fx *f, size_t n, shb_tstamp now)
{
	at(now);
	shb_kit_conn_sent(&f->c, n);
}

static int fx_recv_eof(struct fx *f, shb_tstamp now)
{
	at(now);
	return shb_kit_conn_recv_eof(&f->c);
}

static int fx_on_timer(struct fx *f, shb_tstamp now)
{
	at(now);
	return shb_kit_conn_on_timer(&f->c);
}

static void fx_cancel(struct fx *f, uint64_t cookie, shb_tstamp now)
{
	at(now);
	shb_kit_conn_cancel(&f->c, cookie);
}

static void fx_shutdown(struct fx *f, uint32_t mode, shb_tstamp now)
{
	at(now);
	shb_kit_conn_shutdown(&f->c, mode);
}

static const char *fx_error_detail(struct fx *f)
{
	return shb_kit_conn_error_detail(&f->c);
}

static shb_tstamp fx_next_deadline(struct fx *f)
{
	shb_kit_conn_poll(&f->c);
	return f->c.deadline;
}

/* Sends everything, accepting at most `chunk` bytes per send; the bytes go
 * to out[cap]. Returns the bytes sent. */
static size_t fx_send(struct fx *f, size_t chunk, uint8_t *out, size_t cap)
{
	size_t total;

	at(3);
	shb_kit_conn_clear_output(&f->c);
	total = shb_kit_conn_flush(&f->c, chunk);
	CU_ASSERT_FATAL(total <= cap);
	memcpy(out, f->c.out, total);
	return total;
}

/* recv through the kit, which passes a private copy so that over-reads
 * show under ASan. */
static shb_ssize fx_recv_n(struct fx *f, const char *s, size_t n, shb_tstamp now)
{
	at(now);
	return shb_kit_conn_recv(&f->c, s, n);
}

static shb_ssize fx_recv(struct fx *f, const char *s, shb_tstamp now)
{
	return fx_recv_n(f, s, strlen(s), now);
}

static uint32_t fx_state(struct fx *f)
{
	shb_kit_conn_poll(&f->c);
	return f->c.state;
}

static uint32_t fx_cap(struct fx *f)
{
	shb_kit_conn_poll(&f->c);
	return f->c.capacity;
}

static void fx_issue_sent(struct fx *f, uint64_t cookie)
{
	uint8_t out[512];

	CU_ASSERT_EQUAL_FATAL(fx_issue(f, cookie, 3), SHB_OK);
	CU_ASSERT_EQUAL(fx_send(f, 1 << 20, out, sizeof(out)), f->req->total);
}

static const struct shb_kit_done *done_at(size_t i)
{
	CU_ASSERT_FATAL(shb_h1_kit.done_count > i);
	return &shb_h1_kit.done[i];
}

/* Log line i as "LEVEL MESSAGE". */
static const char *log_line(size_t i)
{
	static char buf[SHB_KIT_LOG_MAX + 16];

	CU_ASSERT_FATAL(shb_h1_kit.log_count > i);
	snprintf(buf, sizeof(buf), "%u %s", shb_h1_kit.logs[i].level,
		 shb_h1_kit.logs[i].msg);
	return buf;
}

/* ---- tests ------------------------------------------------------------- */

static void test_get_cycle(void)
{
	struct fx f;
	struct shb_vec v[4];
	uint8_t out[256];
	size_t n;

	fx_open(&f, 0, "GET", NULL, 0);
	CU_ASSERT_EQUAL(fx_cap(&f), 0); /* transport not up */
	CU_ASSERT_EQUAL(fx_issue(&f, 1, 2), SHB_E_BUSY);
	fx_ready(&f);
	CU_ASSERT_EQUAL(fx_cap(&f), 1);
	CU_ASSERT_EQUAL(fx_state(&f), 0);
	CU_ASSERT_EQUAL(fx_next_deadline(&f), SHB_TSTAMP_NONE);
	CU_ASSERT_EQUAL(fx_on_timer(&f, 5), SHB_OK);

	CU_ASSERT_EQUAL(fx_issue(&f, 7, 3), SHB_OK);
	CU_ASSERT_EQUAL(fx_cap(&f), 0);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_WANT_WRITE);
	CU_ASSERT_EQUAL(fx_issue(&f, 8, 3), SHB_E_BUSY);

	/* Zero copy: the vec points into the prepared bytes. */
	CU_ASSERT_EQUAL(fx_pull_send(&f, v, 4, 3), 1);
	CU_ASSERT(v[0].base == (const void *)f.req->head);
	CU_ASSERT_EQUAL(v[0].len, f.req->head_len);
	fx_sent(&f, 5, 3); /* short send */
	CU_ASSERT_EQUAL(fx_pull_send(&f, v, 4, 3), 1);
	CU_ASSERT(v[0].base == (const void *)(f.req->head + 5));
	CU_ASSERT_EQUAL(v[0].len, f.req->head_len - 5);
	n = fx_send(&f, 7, out, sizeof(out));
	CU_ASSERT_EQUAL(n, f.req->head_len - 5);
	CU_ASSERT(memcmp(out, f.req->head + 5, n) == 0);
	CU_ASSERT_EQUAL(fx_state(&f), 0);
	CU_ASSERT_EQUAL(fx_cap(&f), 0); /* response owed */
	CU_ASSERT_EQUAL(fx_pull_send(&f, v, 4, 3), 0);

	CU_ASSERT_EQUAL(fx_recv(&f, "HTTP/1.1 200 OK\r\nContent-", 100), 25);
	CU_ASSERT_EQUAL(fx_recv(&f, "Length: 5\r\n\r\nhel", 200), 16);
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, 0);
	CU_ASSERT_EQUAL(fx_recv(&f, "lo", 300), 2);
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.done_count, 1);
	const struct shb_kit_done *d = done_at(0);
	CU_ASSERT(d->conn == f.c.handle);
	CU_ASSERT_EQUAL(d->cookie, 7);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(d->res.status, 200);
	CU_ASSERT_EQUAL(d->res.rx_header_bytes, 38);
	CU_ASSERT_EQUAL(d->res.rx_body_bytes, 5);
	CU_ASSERT_EQUAL(d->res.ts_first_byte, 100);
	CU_ASSERT_EQUAL(d->res.ts_done, 300);
	CU_ASSERT_FALSE(d->has_detail);
	CU_ASSERT_EQUAL(fx_cap(&f), 1);
	CU_ASSERT_EQUAL(fx_state(&f), 0);

	/* Keep-alive: the same connection carries the next request. */
	fx_issue_sent(&f, 9);
	CU_ASSERT_EQUAL(fx_recv(&f, "HTTP/1.1 404 Nope\r\nTransfer-Encoding: chunked\r\n\r\n"
				    "2\r\nno\r\n0\r\n\r\n", 400), 61);
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.done_count, 2);
	d = done_at(1);
	CU_ASSERT_EQUAL(d->cookie, 9);
	CU_ASSERT_EQUAL(d->res.status, 404);
	CU_ASSERT_EQUAL(d->res.rx_body_bytes, 2);
	CU_ASSERT_EQUAL(d->res.rx_header_bytes, 59);
	CU_ASSERT_EQUAL(d->res.ts_first_byte, 400);
	CU_ASSERT_EQUAL(fx_cap(&f), 1);
	CU_ASSERT_EQUAL(shb_h1_kit.log_count, 0); /* quiet without debug */
	fx_close(&f);
}

static void test_post_vecs(void)
{
	struct fx f;
	struct shb_vec v[4];
	uint8_t out[512];
	size_t n;

	fx_open(&f, 0, "POST", "0123456789", 0);
	fx_ready(&f);
	CU_ASSERT_EQUAL(fx_issue(&f, 1, 3), SHB_OK);
	CU_ASSERT_EQUAL(fx_pull_send(&f, v, 4, 3), 2);
	CU_ASSERT(v[0].base == (const void *)f.req->head);
	CU_ASSERT(v[1].base == (const void *)f.req->body);
	CU_ASSERT_EQUAL(v[1].len, 10);
	/* Room for one vec: the head alone. */
	CU_ASSERT_EQUAL(fx_pull_send(&f, v, 1, 3), 1);
	CU_ASSERT_EQUAL(v[0].len, f.req->head_len);
	fx_sent(&f, f.req->head_len + 3, 3);
	CU_ASSERT_EQUAL(fx_pull_send(&f, v, 4, 3), 1);
	CU_ASSERT(v[0].base == (const void *)(f.req->body + 3));
	CU_ASSERT_EQUAL(v[0].len, 7);
	n = fx_send(&f, 2, out, sizeof(out));
	CU_ASSERT_EQUAL(n, 7);
	CU_ASSERT(memcmp(out, "3456789", 7) == 0);
	CU_ASSERT_EQUAL(fx_state(&f), 0);
	fx_close(&f);

	/* The wire bytes, sent one byte at a time. */
	fx_open(&f, 0, "POST", "0123456789", 0);
	fx_ready(&f);
	CU_ASSERT_EQUAL(fx_issue(&f, 1, 3), SHB_OK);
	n = fx_send(&f, 1, out, sizeof(out));
	static const char want[] = "POST / HTTP/1.1\r\nHost: h\r\n"
				   "Content-Length: 10\r\n\r\n0123456789";
	CU_ASSERT_EQUAL(n, sizeof(want) - 1);
	CU_ASSERT(n == sizeof(want) - 1 && memcmp(out, want, n) == 0);
	fx_close(&f);
}

static void test_eager_server(void)
{
	struct fx f;
	struct shb_vec v[4];
	uint8_t out[512];

	fx_open(&f, 0, "POST", "a body the server does not wait for", 0);
	fx_ready(&f);
	CU_ASSERT_EQUAL(fx_issue(&f, 5, 3), SHB_OK);
	CU_ASSERT_EQUAL(fx_pull_send(&f, v, 4, 3), 2);
	fx_sent(&f, f.req->head_len + 4, 3);

	CU_ASSERT_EQUAL(fx_recv(&f, "HTTP/1.1 413 Too Large\r\nContent-Length: 0\r\n\r\n", 10), 45);
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.done_count, 1);
	CU_ASSERT_EQUAL(done_at(0)->res.status, 413);
	/* The rest of the body must go out before any next request. */
	CU_ASSERT_EQUAL(fx_cap(&f), 0);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_WANT_WRITE);
	CU_ASSERT_EQUAL(fx_issue(&f, 6, 11), SHB_E_BUSY);
	CU_ASSERT_EQUAL(fx_send(&f, 5, out, sizeof(out)), f.req->body_len - 4);
	CU_ASSERT(memcmp(out, f.req->body + 4, f.req->body_len - 4) == 0);
	CU_ASSERT_EQUAL(fx_cap(&f), 1);
	CU_ASSERT_EQUAL(fx_state(&f), 0);
	CU_ASSERT_EQUAL(fx_issue(&f, 6, 12), SHB_OK);
	fx_close(&f);
}

static void test_unsolicited(void)
{
	struct fx f;

	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	CU_ASSERT_EQUAL(fx_recv(&f, "HTTP/1.1 200 OK\r\n", 5), SHB_E_PROTO);
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, 0);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(fx_cap(&f), 0);
	CU_ASSERT_PTR_NOT_NULL(fx_error_detail(&f));
	fx_close(&f);

	/* Extra bytes after a complete keep-alive response. */
	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	fx_issue_sent(&f, 1);
	CU_ASSERT_EQUAL(fx_recv(&f, RESP_OK "HTTP", 5), SHB_E_PROTO);
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, 1);
	CU_ASSERT_EQUAL(done_at(0)->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	fx_close(&f);
}

static void test_idle_eof(void)
{
	struct fx f;

	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	CU_ASSERT_EQUAL(fx_recv_eof(&f, 9), SHB_OK);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, 0);
	fx_close(&f);

	/* Idle after a keep-alive response: still clean. */
	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	fx_issue_sent(&f, 1);
	CU_ASSERT_EQUAL(fx_recv(&f, RESP_OK, 5), (shb_ssize)strlen(RESP_OK));
	CU_ASSERT_EQUAL(fx_state(&f), 0);
	CU_ASSERT_EQUAL(fx_recv_eof(&f, 9), SHB_OK);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(fx_cap(&f), 0);
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, 1);
	fx_close(&f);
}

static void test_eof_mid_body(void)
{
	struct fx f;

	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	fx_issue_sent(&f, 42);
	CU_ASSERT_EQUAL(fx_recv(&f, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", 50), 42);
	CU_ASSERT_EQUAL(fx_recv_eof(&f, 60), SHB_E_CLOSED);
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.done_count, 1);
	const struct shb_kit_done *d = done_at(0);
	CU_ASSERT_EQUAL(d->cookie, 42);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_CONN_LOST);
	CU_ASSERT_EQUAL(d->res.rx_header_bytes, 39);
	CU_ASSERT_EQUAL(d->res.rx_body_bytes, 3);
	CU_ASSERT_EQUAL(d->res.ts_first_byte, 50);
	CU_ASSERT_EQUAL(d->res.ts_done, 60);
	CU_ASSERT_STRING_EQUAL(d->detail, "connection closed mid-response");
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_STRING_EQUAL(fx_error_detail(&f), "connection closed mid-response");
	fx_close(&f);

	/* Nothing of the response arrived. */
	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	fx_issue_sent(&f, 43);
	CU_ASSERT_EQUAL(fx_recv_eof(&f, 60), SHB_E_CLOSED);
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.done_count, 1);
	CU_ASSERT_EQUAL(done_at(0)->res.outcome, SHB_REQ_CONN_LOST);
	CU_ASSERT_EQUAL(done_at(0)->res.ts_first_byte, 0);
	CU_ASSERT_STRING_EQUAL(done_at(0)->detail, "connection closed before the response");
	fx_close(&f);
}

static void test_close_delimited(void)
{
	struct fx f;

	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	fx_issue_sent(&f, 3);
	CU_ASSERT_EQUAL(fx_recv(&f, "HTTP/1.1 200 OK\r\n\r\nstream", 20), 25);
	CU_ASSERT_EQUAL(fx_recv(&f, "ing", 21), 3);
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, 0);
	CU_ASSERT_EQUAL(fx_recv_eof(&f, 30), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.done_count, 1);
	const struct shb_kit_done *d = done_at(0);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(d->res.status, 200);
	CU_ASSERT_EQUAL(d->res.rx_header_bytes, 19);
	CU_ASSERT_EQUAL(d->res.rx_body_bytes, 9);
	CU_ASSERT_EQUAL(d->res.ts_first_byte, 20);
	CU_ASSERT_EQUAL(d->res.ts_done, 30);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	fx_close(&f);
}

/* Each response that forbids reuse leaves the connection CLOSED. */
static void check_closes(uint32_t run_flags, const char *resp)
{
	struct fx f;

	fx_open(&f, run_flags, "GET", NULL, 0);
	fx_ready(&f);
	fx_issue_sent(&f, 1);
	CU_ASSERT_EQUAL(fx_recv(&f, resp, 5), (shb_ssize)strlen(resp));
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.done_count, 1);
	CU_ASSERT_EQUAL(done_at(0)->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(fx_cap(&f), 0);
	CU_ASSERT_EQUAL(fx_issue(&f, 2, 6), SHB_E_BUSY);
	/* Whatever follows is ignored, the core is closing. */
	CU_ASSERT_EQUAL(fx_recv(&f, "junk", 6), 4);
	CU_ASSERT_EQUAL(fx_recv_eof(&f, 7), SHB_OK);
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, 1);
	fx_close(&f);
}

static void test_no_reuse(void)
{
	check_closes(0, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx");
	check_closes(0, "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx");
	check_closes(SHB_RUN_DISABLE_KEEPALIVE, RESP_OK);
}

static void test_disable_keepalive_bytes(void)
{
	struct fx f;
	uint8_t out[256];
	static const char want[] = "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n";

	fx_open(&f, SHB_RUN_DISABLE_KEEPALIVE, "GET", NULL, 0);
	fx_ready(&f);
	CU_ASSERT_EQUAL(fx_issue(&f, 1, 3), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(fx_send(&f, 3, out, sizeof(out)), sizeof(want) - 1);
	CU_ASSERT(memcmp(out, want, sizeof(want) - 1) == 0);
	fx_close(&f);
}

static void test_proto_error(void)
{
	struct fx f;

	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	fx_issue_sent(&f, 77);
	CU_ASSERT_EQUAL(fx_recv(&f, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 5),
			SHB_E_PROTO);
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.done_count, 1);
	const struct shb_kit_done *d = done_at(0);
	CU_ASSERT_EQUAL(d->cookie, 77);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_PROTO_ERROR);
	CU_ASSERT_STRING_EQUAL(d->detail, "conflicting Content-Length values");
	CU_ASSERT_STRING_EQUAL(fx_error_detail(&f), "conflicting Content-Length values");
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(fx_recv_eof(&f, 6), SHB_OK);
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, 1);
	fx_close(&f);

	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	fx_issue_sent(&f, 78);
	CU_ASSERT_EQUAL(fx_recv(&f, "HTTP/1.1 101 Switching Protocols\r\n\r\n", 5), SHB_E_PROTO);
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.done_count, 1);
	CU_ASSERT_EQUAL(done_at(0)->res.outcome, SHB_REQ_PROTO_ERROR);
	CU_ASSERT_STRING_EQUAL(done_at(0)->detail, "101 Switching Protocols is not supported");
	fx_close(&f);
}

static void test_head_and_interim(void)
{
	struct fx f;
	static const char resp[] = "HTTP/1.1 100 Continue\r\n\r\n"
				   "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
				   "HTTP/1.1 204 No Content\r\n\r\n";

	fx_open(&f, 0, "HEAD", NULL, 0);
	fx_ready(&f);
	fx_issue_sent(&f, 1);
	/* Up to the end of the HEAD response, which has no body. */
	CU_ASSERT_EQUAL(fx_recv_n(&f, resp, 65, 5), 65);
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.done_count, 1);
	CU_ASSERT_EQUAL(done_at(0)->res.status, 200);
	CU_ASSERT_EQUAL(done_at(0)->res.rx_header_bytes, 65);
	CU_ASSERT_EQUAL(done_at(0)->res.rx_body_bytes, 0);
	fx_issue_sent(&f, 2);
	CU_ASSERT_EQUAL(fx_recv(&f, resp + 65, 6), 27);
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.done_count, 2);
	CU_ASSERT_EQUAL(done_at(1)->res.status, 204);
	CU_ASSERT_EQUAL(fx_cap(&f), 1);
	fx_close(&f);
}

static void test_cancel_shutdown(void)
{
	struct fx f;

	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	fx_issue_sent(&f, 1);
	fx_cancel(&f, 1, 4);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(fx_cap(&f), 0);
	CU_ASSERT_EQUAL(fx_recv(&f, RESP_OK, 5), (shb_ssize)strlen(RESP_OK));
	CU_ASSERT_EQUAL(fx_recv_eof(&f, 6), SHB_OK);
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, 0);
	fx_close(&f);

	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	fx_shutdown(&f, SHB_SHUT_GRACEFUL, 4);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(fx_cap(&f), 0);
	fx_close(&f);

	/* Shut down mid-send: nothing more to send. */
	fx_open(&f, 0, "POST", "body", 0);
	fx_ready(&f);
	CU_ASSERT_EQUAL(fx_issue(&f, 1, 3), SHB_OK);
	fx_shutdown(&f, SHB_SHUT_ABORT, 4);
	struct shb_vec v[2];
	CU_ASSERT_EQUAL(fx_pull_send(&f, v, 2, 5), 0);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, 0);
	fx_close(&f);
}

static void test_debug_trace(void)
{
	struct fx f;

	fx_open(&f, 0, "GET", NULL, 1);
	fx_ready(&f);
	fx_issue_sent(&f, 1);
	CU_ASSERT_EQUAL(fx_recv(&f, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
				    "1\r\nx\r\n0\r\n\r\n", 5), 58);
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.log_count, 2);
	CU_ASSERT_STRING_EQUAL(log_line(0), "3 transport ready (alpn http/1.1)");
	CU_ASSERT_STRING_EQUAL(log_line(1),
			       "3 HTTP/1.1 200, chunked, 0 interim, "
			       "57 head + 1 body bytes, keep-alive");
	fx_close(&f);
}

/* The kit's split driver: each response, fed whole, in two at every
 * offset and one byte at a time through recv, ends the same way. */
static int issue_one(struct shb_kit_conn *c, void *user)
{
	if (shb_kit_conn_issue(c, NULL, 11) != SHB_OK)
		return -1;
	shb_kit_conn_flush(c, 0);
	return 0;
}

static void check_split(const char *resp, int eof, uint32_t outcome,
			uint32_t status, uint64_t body, int rc)
{
	struct fx f;
	struct shb_kit_split s = {.setup = issue_one, .eof = eof};

	fx_open(&f, 0, "GET", NULL, 0);
	shb_kit_conn_fini(&f.c);
	s.m = &f.m;
	CU_ASSERT_EQUAL(shb_kit_split_check(&s, resp, strlen(resp)), 0);
	CU_ASSERT_STRING_EQUAL(s.mismatch, "");
	CU_ASSERT_EQUAL(s.feeds, strlen(resp) + 1);
	CU_ASSERT_EQUAL_FATAL(s.ref.result_count, 1);
	CU_ASSERT_EQUAL(s.ref.results[0].cookie, 11);
	CU_ASSERT_EQUAL(s.ref.results[0].res.outcome, outcome);
	CU_ASSERT_EQUAL(s.ref.results[0].res.status, status);
	CU_ASSERT_EQUAL(s.ref.results[0].res.rx_body_bytes, body);
	CU_ASSERT_EQUAL(s.ref.rc, rc);
	shb_kit_split_fini(&s);
	fx_close(&f);
}

static void test_split_driver(void)
{
	check_split("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"
		    "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n"
		    "2;ext=1\r\nde\r\n0\r\nTrailer: x\r\n\r\n",
		    0, SHB_REQ_OK, 200, 5, SHB_OK);
	check_split("HTTP/1.1 200 OK\r\n\r\nclose-delimited", 1, SHB_REQ_OK,
		    200, 15, SHB_OK);
	check_split("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n"
		    "Content-Length: 2\r\n\r\n", 0, SHB_REQ_PROTO_ERROR, 0, 0,
		    SHB_E_PROTO);
}

CU_TestInfo shb_h1_conn_tests[] = {
	{"GET: issue, short sends, recv, reuse", test_get_cycle},
	{"POST: vecs into the prepared bytes", test_post_vecs},
	{"eager server waits for sent()", test_eager_server},
	{"unsolicited bytes", test_unsolicited},
	{"idle EOF is clean", test_idle_eof},
	{"EOF mid-response", test_eof_mid_body},
	{"close-delimited body ended by EOF", test_close_delimited},
	{"no reuse after close/1.0/disable", test_no_reuse},
	{"disable keep-alive request bytes", test_disable_keepalive_bytes},
	{"malformed response", test_proto_error},
	{"HEAD and 1xx", test_head_and_interim},
	{"cancel and shutdown", test_cancel_shutdown},
	{"debug trace", test_debug_trace},
	{"every split through the kit's driver", test_split_driver},
	CU_TEST_INFO_NULL,
};
