/* ABI 1.4 on HTTP/1.1, driven through the vtable under the test kit:
 * issue_req's bytes on the wire, and the response handed to
 * req_response (fields as sent, the body dechunked and cut at
 * response_body_max) only in runs that want it. */
#include <stdio.h>
#include <string.h>

#include "h1_conn.h"
#include "h1_tests.h"

struct rfx {
	struct shb_kit_module m;
	struct shb_kit_conn c;
};

static void rfx_open(struct rfx *f, uint32_t run_flags, uint64_t body_max)
{
	const struct shb_proto_desc *d = shb_h1_test_desc();
	struct shb_run_config cfg;
	struct shb_request tmpl = {
		.struct_size = sizeof(tmpl), .method = "GET", .scheme = "http",
		.authority = "h:8", .path = "/",
	};

	shb_h1_test_reset(0);
	memset(f, 0, sizeof(*f));
	shb_kit_run_config_default(&cfg, d);
	cfg.flags = run_flags;
	cfg.response_body_max = body_max;
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_create(&f->m, &shb_h1_kit, d, &cfg),
			      SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_prepare(&f->m, &tmpl), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_init(&f->c, &f->m), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_ready(&f->c, NULL), SHB_OK);
}

static void rfx_close(struct rfx *f)
{
	shb_kit_conn_fini(&f->c);
	shb_kit_module_destroy(&f->m);
	CU_ASSERT_EQUAL(shb_kit_host_dump_violations(&shb_h1_kit, "h1 resp: "), 0);
}

static void expect_wire(struct rfx *f, const char *want)
{
	shb_kit_conn_clear_output(&f->c);
	size_t n = shb_kit_conn_flush(&f->c, 0);
	CU_ASSERT(n == strlen(want) && memcmp(f->c.out, want, n) == 0);
	if (n != strlen(want) || memcmp(f->c.out, want, n) != 0)
		fprintf(stderr, "\n got: %.*s\nwant: %s\n", (int)n, f->c.out, want);
}

/* A redirect's next hop: a POST with a body to another path, then a GET
 * without one, on one connection. */
static void test_issue_req(void)
{
	struct rfx f;
	static const struct shb_kv h[] = {{"X-A", "1"}};
	struct shb_request req = {
		.struct_size = sizeof(req), .flags = SHB_REQUEST_HAS_BODY,
		.method = "POST", .scheme = "http", .authority = "h:8",
		.path = "/echo?x=1", .headers = h, .header_count = 1,
		.body = (const uint8_t *)"xyz", .body_len = 3,
	};
	static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";

	rfx_open(&f, 0, 0);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_issue_req(&f.c, &req, 5), SHB_OK);
	expect_wire(&f, "POST /echo?x=1 HTTP/1.1\r\nHost: h:8\r\nX-A: 1\r\n"
			"Content-Length: 3\r\n\r\nxyz");
	/* One at a time on HTTP/1.1. */
	CU_ASSERT_EQUAL(shb_kit_conn_issue_req(&f.c, &req, 6), SHB_E_BUSY);
	CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, ok, strlen(ok)), (shb_ssize)strlen(ok));
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.done_count, 1);
	CU_ASSERT_EQUAL(shb_h1_kit.done[0].cookie, 5);
	CU_ASSERT_EQUAL(shb_h1_kit.done[0].res.status, 200);
	req = (struct shb_request){.struct_size = sizeof(req), .method = "GET",
		.scheme = "http", .authority = "h:8", .path = "/c"};
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_issue_req(&f.c, &req, 7), SHB_OK);
	expect_wire(&f, "GET /c HTTP/1.1\r\nHost: h:8\r\n\r\n");
	/* No response is kept or handed over in a run that does not want
	 * them. */
	CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, ok, strlen(ok)), (shb_ssize)strlen(ok));
	CU_ASSERT_EQUAL(shb_h1_kit.done_count, 2);
	CU_ASSERT_EQUAL(shb_h1_kit.response_count, 0);
	CU_ASSERT_PTR_NULL(((struct shb_h1_conn *)f.c.mem)->keep);
	rfx_close(&f);
}

/* After an interim 100, a 301 with folded and colon-less lines, a name
 * holding a NUL (left out, not cut) and a chunked body of 6 bytes, kept
 * up to 4: fed one byte at a time. */
static void test_response(void)
{
	struct rfx f;
	static const char resp[] =
		"HTTP/1.1 100 Continue\r\nX-Interim: 1\r\n\r\n"
		"HTTP/1.1 301 Moved\r\nLocation: /b\r\nX-A:  v w \t\r\n"
		" folded\r\nnocolon\r\nX-\0Nul: 1\r\n"
		"Transfer-Encoding: chunked\r\n\r\n"
		"3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n";

	rfx_open(&f, SHB_RUN_WANT_RESPONSE | SHB_RUN_WANT_BODY, 4);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_issue(&f.c, NULL, 9), SHB_OK);
	shb_kit_conn_flush(&f.c, 0);
	for (size_t i = 0; i < sizeof(resp) - 1; i++)
		CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, resp + i, 1), 1);
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.response_count, 1);
	const struct shb_kit_response *r = &shb_h1_kit.responses[0];
	CU_ASSERT_EQUAL(r->cookie, 9);
	CU_ASSERT_EQUAL(r->status, 301);
	CU_ASSERT_EQUAL(r->header_count, 3);
	CU_ASSERT_STRING_EQUAL(r->headers[0], "Location: /b");
	CU_ASSERT_STRING_EQUAL(r->headers[1], "X-A: v w");
	CU_ASSERT_STRING_EQUAL(r->headers[2], "Transfer-Encoding: chunked");
	CU_ASSERT_EQUAL(r->body_len, 4);
	CU_ASSERT_EQUAL(memcmp(r->body, "abcd", 4), 0);
	CU_ASSERT_EQUAL(r->flags, SHB_RESP_BODY_TRUNCATED);
	CU_ASSERT_STRING_EQUAL(r->call, "recv");
	/* req_done after it, the whole body counted. */
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.done_count, 1);
	CU_ASSERT_EQUAL(shb_h1_kit.done[0].res.status, 301);
	CU_ASSERT_EQUAL(shb_h1_kit.done[0].res.rx_body_bytes, 6);

	/* The next response on the connection starts empty; without
	 * WANT_BODY nothing of a body would be kept, here 2 of 4 fit. */
	static const char two[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_issue(&f.c, NULL, 10), SHB_OK);
	shb_kit_conn_flush(&f.c, 0);
	CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, two, strlen(two)), (shb_ssize)strlen(two));
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.response_count, 2);
	r = &shb_h1_kit.responses[1];
	CU_ASSERT_EQUAL(r->status, 200);
	CU_ASSERT_EQUAL(r->header_count, 1);
	CU_ASSERT_STRING_EQUAL(r->headers[0], "Content-Length: 2");
	CU_ASSERT_EQUAL(r->body_len, 2);
	CU_ASSERT_EQUAL(memcmp(r->body, "ok", 2), 0);
	CU_ASSERT_EQUAL(r->flags, 0);
	rfx_close(&f);
}

/* Status and headers only: no body kept, a close-delimited one counted. */
static void test_no_body(void)
{
	struct rfx f;
	static const char resp[] = "HTTP/1.0 302 Found\nlocation:c\n\nbody to eof";

	rfx_open(&f, SHB_RUN_WANT_RESPONSE, 0);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_issue(&f.c, NULL, 3), SHB_OK);
	shb_kit_conn_flush(&f.c, 0);
	CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, resp, strlen(resp)), (shb_ssize)strlen(resp));
	CU_ASSERT_EQUAL(shb_h1_kit.response_count, 0); /* not ended yet */
	CU_ASSERT_EQUAL(shb_kit_conn_recv_eof(&f.c), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.response_count, 1);
	const struct shb_kit_response *r = &shb_h1_kit.responses[0];
	CU_ASSERT_EQUAL(r->status, 302);
	CU_ASSERT_EQUAL(r->header_count, 1);
	CU_ASSERT_STRING_EQUAL(r->headers[0], "location: c");
	CU_ASSERT_EQUAL(r->body_len, 0);
	CU_ASSERT_EQUAL(r->flags, SHB_RESP_BODY_TRUNCATED);
	CU_ASSERT_EQUAL(shb_h1_kit.done[0].res.rx_body_bytes, 11);
	rfx_close(&f);
}

CU_TestInfo shb_h1_resp_tests[] = {
	{"issue_req: whole requests on the wire", test_issue_req},
	{"req_response: interim, fields, chunked body cut at the cap", test_response},
	{"req_response: no body kept without WANT_BODY", test_no_body},
	CU_TEST_INFO_NULL,
};
