/* The connection state machine, driven through the vtable like the core
 * drives it, with a fake host recording req_done. */
#include <stdlib.h>
#include <string.h>

#include "h1_request.h"
#include "h1_tests.h"

#define HANDLE ((struct shb_conn *)(uintptr_t)0x5eed)

#define RESP_OK "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"

struct fx {
	const struct shb_proto_vtable *vt;
	void *mod;
	void *prep;
	const struct shb_h1_request *req;
	void *conn;
};

static void fx_open(struct fx *f, uint32_t run_flags, const char *method,
		    const char *body, int debug)
{
	const struct shb_proto_desc *d = shb_h1_test_desc();
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = method,
		.scheme = "http",
		.authority = "h",
		.path = "/",
	};
	char err[128];

	shb_h1_test_reset(debug);
	memset(f, 0, sizeof(*f));
	f->vt = d->vt;
	f->mod = shb_h1_test_module(run_flags);
	if (body) {
		req.flags = SHB_REQUEST_HAS_BODY;
		req.body = (const uint8_t *)body;
		req.body_len = strlen(body);
	}
	CU_ASSERT_EQUAL_FATAL(f->vt->prepare_request(f->mod, &req, &f->prep, err,
						     sizeof(err)),
			      SHB_OK);
	f->req = f->prep;
	/* Zeroed and exactly conn_size bytes, as the core provides it, so
	 * that ASan checks the bounds. */
	f->conn = calloc(1, d->conn_size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->conn);
	CU_ASSERT_EQUAL(f->vt->conn_init(f->mod, NULL, f->conn, HANDLE, 1), SHB_OK);
}

static void fx_ready(struct fx *f)
{
	struct shb_transport_info info = {
		.struct_size = sizeof(info),
		.alpn = "http/1.1",
	};
	CU_ASSERT_EQUAL(f->vt->on_transport_ready(f->conn, &info, 2), SHB_OK);
}

static void fx_close(struct fx *f)
{
	f->vt->conn_fini(f->conn);
	free(f->conn);
	f->vt->release_request(f->mod, f->prep);
	f->vt->module_destroy(f->mod);
}

/* Sends everything, accepting at most `chunk` bytes per send; the bytes go
 * to out[cap]. Returns the bytes sent. */
static size_t fx_send(struct fx *f, size_t chunk, uint8_t *out, size_t cap)
{
	size_t total = 0;
	struct shb_vec v[4];
	shb_ssize k;

	while ((k = f->vt->pull_send(f->conn, v, 4, 3)) > 0) {
		size_t n = 0;
		for (shb_ssize i = 0; i < k && n < chunk; i++) {
			size_t take = v[i].len < chunk - n ? v[i].len : chunk - n;
			CU_ASSERT_FATAL(total + n + take <= cap);
			memcpy(out + total + n, v[i].base, take);
			n += take;
		}
		f->vt->sent(f->conn, n, 3);
		total += n;
	}
	return total;
}

/* recv from a private copy so that over-reads show under ASan. */
static shb_ssize fx_recv_n(struct fx *f, const char *s, size_t n, shb_tstamp now)
{
	uint8_t *b = malloc(n ? n : 1);
	shb_ssize rc;

	CU_ASSERT_FATAL(b != NULL);
	memcpy(b, s, n);
	rc = f->vt->recv(f->conn, b, n, now);
	free(b);
	return rc;
}

static shb_ssize fx_recv(struct fx *f, const char *s, shb_tstamp now)
{
	return fx_recv_n(f, s, strlen(s), now);
}

static uint32_t fx_state(struct fx *f)
{
	return f->vt->state(f->conn);
}

static uint32_t fx_cap(struct fx *f)
{
	return f->vt->capacity(f->conn);
}

static void fx_issue_sent(struct fx *f, uint64_t cookie)
{
	uint8_t out[512];

	CU_ASSERT_EQUAL_FATAL(f->vt->issue(f->conn, f->prep, cookie, 3), SHB_OK);
	CU_ASSERT_EQUAL(fx_send(f, 1 << 20, out, sizeof(out)), f->req->total);
}

static const struct shb_h1_test_done *done_at(size_t i)
{
	CU_ASSERT_FATAL(shb_h1_seen.done_count > i);
	return &shb_h1_seen.done[i];
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
	CU_ASSERT_EQUAL(f.vt->issue(f.conn, f.prep, 1, 2), SHB_E_BUSY);
	fx_ready(&f);
	CU_ASSERT_EQUAL(fx_cap(&f), 1);
	CU_ASSERT_EQUAL(fx_state(&f), 0);
	CU_ASSERT_EQUAL(f.vt->next_deadline(f.conn), SHB_TSTAMP_NONE);
	CU_ASSERT_EQUAL(f.vt->on_timer(f.conn, 5), SHB_OK);

	CU_ASSERT_EQUAL(f.vt->issue(f.conn, f.prep, 7, 3), SHB_OK);
	CU_ASSERT_EQUAL(fx_cap(&f), 0);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_WANT_WRITE);
	CU_ASSERT_EQUAL(f.vt->issue(f.conn, f.prep, 8, 3), SHB_E_BUSY);

	/* Zero copy: the vec points into the prepared bytes. */
	CU_ASSERT_EQUAL(f.vt->pull_send(f.conn, v, 4, 3), 1);
	CU_ASSERT(v[0].base == (const void *)f.req->head);
	CU_ASSERT_EQUAL(v[0].len, f.req->head_len);
	f.vt->sent(f.conn, 5, 3); /* short send */
	CU_ASSERT_EQUAL(f.vt->pull_send(f.conn, v, 4, 3), 1);
	CU_ASSERT(v[0].base == (const void *)(f.req->head + 5));
	CU_ASSERT_EQUAL(v[0].len, f.req->head_len - 5);
	n = fx_send(&f, 7, out, sizeof(out));
	CU_ASSERT_EQUAL(n, f.req->head_len - 5);
	CU_ASSERT(memcmp(out, f.req->head + 5, n) == 0);
	CU_ASSERT_EQUAL(fx_state(&f), 0);
	CU_ASSERT_EQUAL(fx_cap(&f), 0); /* response owed */
	CU_ASSERT_EQUAL(f.vt->pull_send(f.conn, v, 4, 3), 0);

	CU_ASSERT_EQUAL(fx_recv(&f, "HTTP/1.1 200 OK\r\nContent-", 100), 25);
	CU_ASSERT_EQUAL(fx_recv(&f, "Length: 5\r\n\r\nhel", 200), 16);
	CU_ASSERT_EQUAL(shb_h1_seen.done_count, 0);
	CU_ASSERT_EQUAL(fx_recv(&f, "lo", 300), 2);
	CU_ASSERT_EQUAL_FATAL(shb_h1_seen.done_count, 1);
	const struct shb_h1_test_done *d = done_at(0);
	CU_ASSERT(d->conn == HANDLE);
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
	CU_ASSERT_EQUAL_FATAL(shb_h1_seen.done_count, 2);
	d = done_at(1);
	CU_ASSERT_EQUAL(d->cookie, 9);
	CU_ASSERT_EQUAL(d->res.status, 404);
	CU_ASSERT_EQUAL(d->res.rx_body_bytes, 2);
	CU_ASSERT_EQUAL(d->res.rx_header_bytes, 59);
	CU_ASSERT_EQUAL(d->res.ts_first_byte, 400);
	CU_ASSERT_EQUAL(fx_cap(&f), 1);
	CU_ASSERT_EQUAL(shb_h1_seen.log_count, 0); /* quiet without debug */
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
	CU_ASSERT_EQUAL(f.vt->issue(f.conn, f.prep, 1, 3), SHB_OK);
	CU_ASSERT_EQUAL(f.vt->pull_send(f.conn, v, 4, 3), 2);
	CU_ASSERT(v[0].base == (const void *)f.req->head);
	CU_ASSERT(v[1].base == (const void *)f.req->body);
	CU_ASSERT_EQUAL(v[1].len, 10);
	/* Room for one vec: the head alone. */
	CU_ASSERT_EQUAL(f.vt->pull_send(f.conn, v, 1, 3), 1);
	CU_ASSERT_EQUAL(v[0].len, f.req->head_len);
	f.vt->sent(f.conn, f.req->head_len + 3, 3);
	CU_ASSERT_EQUAL(f.vt->pull_send(f.conn, v, 4, 3), 1);
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
	CU_ASSERT_EQUAL(f.vt->issue(f.conn, f.prep, 1, 3), SHB_OK);
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
	CU_ASSERT_EQUAL(f.vt->issue(f.conn, f.prep, 5, 3), SHB_OK);
	CU_ASSERT_EQUAL(f.vt->pull_send(f.conn, v, 4, 3), 2);
	f.vt->sent(f.conn, f.req->head_len + 4, 3);

	CU_ASSERT_EQUAL(fx_recv(&f, "HTTP/1.1 413 Too Large\r\nContent-Length: 0\r\n\r\n", 10), 45);
	CU_ASSERT_EQUAL_FATAL(shb_h1_seen.done_count, 1);
	CU_ASSERT_EQUAL(done_at(0)->res.status, 413);
	/* The rest of the body must go out before any next request. */
	CU_ASSERT_EQUAL(fx_cap(&f), 0);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_WANT_WRITE);
	CU_ASSERT_EQUAL(f.vt->issue(f.conn, f.prep, 6, 11), SHB_E_BUSY);
	CU_ASSERT_EQUAL(fx_send(&f, 5, out, sizeof(out)), f.req->body_len - 4);
	CU_ASSERT(memcmp(out, f.req->body + 4, f.req->body_len - 4) == 0);
	CU_ASSERT_EQUAL(fx_cap(&f), 1);
	CU_ASSERT_EQUAL(fx_state(&f), 0);
	CU_ASSERT_EQUAL(f.vt->issue(f.conn, f.prep, 6, 12), SHB_OK);
	fx_close(&f);
}

static void test_unsolicited(void)
{
	struct fx f;

	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	CU_ASSERT_EQUAL(fx_recv(&f, "HTTP/1.1 200 OK\r\n", 5), SHB_E_PROTO);
	CU_ASSERT_EQUAL(shb_h1_seen.done_count, 0);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(fx_cap(&f), 0);
	CU_ASSERT_PTR_NOT_NULL(f.vt->error_detail(f.conn));
	fx_close(&f);

	/* Extra bytes after a complete keep-alive response. */
	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	fx_issue_sent(&f, 1);
	CU_ASSERT_EQUAL(fx_recv(&f, RESP_OK "HTTP", 5), SHB_E_PROTO);
	CU_ASSERT_EQUAL(shb_h1_seen.done_count, 1);
	CU_ASSERT_EQUAL(done_at(0)->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	fx_close(&f);
}

static void test_idle_eof(void)
{
	struct fx f;

	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	CU_ASSERT_EQUAL(f.vt->recv_eof(f.conn, 9), SHB_OK);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(shb_h1_seen.done_count, 0);
	fx_close(&f);

	/* Idle after a keep-alive response: still clean. */
	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	fx_issue_sent(&f, 1);
	CU_ASSERT_EQUAL(fx_recv(&f, RESP_OK, 5), (shb_ssize)strlen(RESP_OK));
	CU_ASSERT_EQUAL(fx_state(&f), 0);
	CU_ASSERT_EQUAL(f.vt->recv_eof(f.conn, 9), SHB_OK);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(fx_cap(&f), 0);
	CU_ASSERT_EQUAL(shb_h1_seen.done_count, 1);
	fx_close(&f);
}

static void test_eof_mid_body(void)
{
	struct fx f;

	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	fx_issue_sent(&f, 42);
	CU_ASSERT_EQUAL(fx_recv(&f, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", 50), 42);
	CU_ASSERT_EQUAL(f.vt->recv_eof(f.conn, 60), SHB_E_CLOSED);
	CU_ASSERT_EQUAL_FATAL(shb_h1_seen.done_count, 1);
	const struct shb_h1_test_done *d = done_at(0);
	CU_ASSERT_EQUAL(d->cookie, 42);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_CONN_LOST);
	CU_ASSERT_EQUAL(d->res.rx_header_bytes, 39);
	CU_ASSERT_EQUAL(d->res.rx_body_bytes, 3);
	CU_ASSERT_EQUAL(d->res.ts_first_byte, 50);
	CU_ASSERT_EQUAL(d->res.ts_done, 60);
	CU_ASSERT_STRING_EQUAL(d->detail, "connection closed mid-response");
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_STRING_EQUAL(f.vt->error_detail(f.conn), "connection closed mid-response");
	fx_close(&f);

	/* Nothing of the response arrived. */
	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	fx_issue_sent(&f, 43);
	CU_ASSERT_EQUAL(f.vt->recv_eof(f.conn, 60), SHB_E_CLOSED);
	CU_ASSERT_EQUAL_FATAL(shb_h1_seen.done_count, 1);
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
	CU_ASSERT_EQUAL(shb_h1_seen.done_count, 0);
	CU_ASSERT_EQUAL(f.vt->recv_eof(f.conn, 30), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_h1_seen.done_count, 1);
	const struct shb_h1_test_done *d = done_at(0);
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
	CU_ASSERT_EQUAL_FATAL(shb_h1_seen.done_count, 1);
	CU_ASSERT_EQUAL(done_at(0)->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(fx_cap(&f), 0);
	CU_ASSERT_EQUAL(f.vt->issue(f.conn, f.prep, 2, 6), SHB_E_BUSY);
	/* Whatever follows is ignored, the core is closing. */
	CU_ASSERT_EQUAL(fx_recv(&f, "junk", 6), 4);
	CU_ASSERT_EQUAL(f.vt->recv_eof(f.conn, 7), SHB_OK);
	CU_ASSERT_EQUAL(shb_h1_seen.done_count, 1);
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
	CU_ASSERT_EQUAL(f.vt->issue(f.conn, f.prep, 1, 3), SHB_OK);
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
	CU_ASSERT_EQUAL_FATAL(shb_h1_seen.done_count, 1);
	const struct shb_h1_test_done *d = done_at(0);
	CU_ASSERT_EQUAL(d->cookie, 77);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_PROTO_ERROR);
	CU_ASSERT_STRING_EQUAL(d->detail, "conflicting Content-Length values");
	CU_ASSERT_STRING_EQUAL(f.vt->error_detail(f.conn), "conflicting Content-Length values");
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(f.vt->recv_eof(f.conn, 6), SHB_OK);
	CU_ASSERT_EQUAL(shb_h1_seen.done_count, 1);
	fx_close(&f);

	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	fx_issue_sent(&f, 78);
	CU_ASSERT_EQUAL(fx_recv(&f, "HTTP/1.1 101 Switching Protocols\r\n\r\n", 5), SHB_E_PROTO);
	CU_ASSERT_EQUAL_FATAL(shb_h1_seen.done_count, 1);
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
	CU_ASSERT_EQUAL_FATAL(shb_h1_seen.done_count, 1);
	CU_ASSERT_EQUAL(done_at(0)->res.status, 200);
	CU_ASSERT_EQUAL(done_at(0)->res.rx_header_bytes, 65);
	CU_ASSERT_EQUAL(done_at(0)->res.rx_body_bytes, 0);
	fx_issue_sent(&f, 2);
	CU_ASSERT_EQUAL(fx_recv(&f, resp + 65, 6), 27);
	CU_ASSERT_EQUAL_FATAL(shb_h1_seen.done_count, 2);
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
	f.vt->cancel(f.conn, 1, 4);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(fx_cap(&f), 0);
	CU_ASSERT_EQUAL(fx_recv(&f, RESP_OK, 5), (shb_ssize)strlen(RESP_OK));
	CU_ASSERT_EQUAL(f.vt->recv_eof(f.conn, 6), SHB_OK);
	CU_ASSERT_EQUAL(shb_h1_seen.done_count, 0);
	fx_close(&f);

	fx_open(&f, 0, "GET", NULL, 0);
	fx_ready(&f);
	f.vt->shutdown(f.conn, SHB_SHUT_GRACEFUL, 4);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(fx_cap(&f), 0);
	fx_close(&f);

	/* Shut down mid-send: nothing more to send. */
	fx_open(&f, 0, "POST", "body", 0);
	fx_ready(&f);
	CU_ASSERT_EQUAL(f.vt->issue(f.conn, f.prep, 1, 3), SHB_OK);
	f.vt->shutdown(f.conn, SHB_SHUT_ABORT, 4);
	struct shb_vec v[2];
	CU_ASSERT_EQUAL(f.vt->pull_send(f.conn, v, 2, 5), 0);
	CU_ASSERT_EQUAL(fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(shb_h1_seen.done_count, 0);
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
	CU_ASSERT_EQUAL_FATAL(shb_h1_seen.log_count, 2);
	CU_ASSERT_STRING_EQUAL(shb_h1_seen.log[0], "3 transport ready (alpn http/1.1)");
	CU_ASSERT_STRING_EQUAL(shb_h1_seen.log[1],
			       "3 HTTP/1.1 200, chunked, 0 interim, "
			       "57 head + 1 body bytes, keep-alive");
	fx_close(&f);
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
	CU_TEST_INFO_NULL,
};
