/* issue_var: the request varied per issue (templates, body lines), byte
 * for byte on the wire, driven through the vtable under the test kit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h1_request.h"
#include "h1_tests.h"

#define RESP_OK "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

struct vfx {
	struct shb_kit_module m;
	struct shb_kit_conn c;
};

/* A template with three headers (the second one a user Content-Length,
 * never sent with a body: ours is) and the given body; nh < 3 keeps the
 * first nh headers only. */
static void vfx_open_n(struct vfx *f, uint32_t run_flags, const char *body,
		       size_t nh)
{
	const struct shb_proto_desc *d = shb_h1_test_desc();
	struct shb_run_config cfg;
	static const struct shb_kv hdrs[] = {
		{"X-Id", "{{seq}}"},
		{"Content-Length", "999"},
		{"Accept", "*/*"},
	};
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = body ? "POST" : "GET",
		.scheme = "http",
		.authority = "h:8",
		.path = "/t/{{seq}}",
		.headers = hdrs,
		.header_count = nh,
	};

	shb_h1_test_reset(0);
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
	shb_kit_clock_set(&shb_h1_kit.clock, 1);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_init(&f->c, &f->m), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_ready(&f->c, NULL), SHB_OK);
}

static void vfx_open(struct vfx *f, uint32_t run_flags, const char *body)
{
	vfx_open_n(f, run_flags, body, 3);
}

static void vfx_close(struct vfx *f)
{
	shb_kit_conn_fini(&f->c);
	shb_kit_module_destroy(&f->m);
	CU_ASSERT_EQUAL(shb_kit_host_dump_violations(&shb_h1_kit, "h1 var: "), 0);
}

/* Issues `v` as cookie, sends everything `chunk` bytes at a time and
 * checks the wire bytes, then answers it. */
static void vfx_round(struct vfx *f, const struct shb_request_var *v,
		      uint64_t cookie, size_t chunk, const char *want)
{
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_issue_var(&f->c, NULL, v, cookie), SHB_OK);
	shb_kit_conn_clear_output(&f->c);
	size_t n = shb_kit_conn_flush(&f->c, chunk);
	CU_ASSERT_EQUAL(n, strlen(want));
	CU_ASSERT(n == strlen(want) && memcmp(f->c.out, want, n) == 0);
	if (n != strlen(want) || memcmp(f->c.out, want, n))
		fprintf(stderr, "\n got: %.*s\nwant: %s\n", (int)n, f->c.out, want);
	size_t before = shb_h1_kit.done_count;
	CU_ASSERT_EQUAL(shb_kit_conn_recv(&f->c, RESP_OK, strlen(RESP_OK)),
			(shb_ssize)strlen(RESP_OK));
	CU_ASSERT_EQUAL_FATAL(shb_h1_kit.done_count, before + 1);
	CU_ASSERT_EQUAL(shb_h1_kit.done[before].cookie, cookie);
	CU_ASSERT_EQUAL(shb_h1_kit.done[before].res.status, 200);
}

static struct shb_request_var var_of(uint32_t flags, const char *path,
				     const struct shb_var_header *h, size_t nh,
				     const char *body)
{
	struct shb_request_var v = {
		.struct_size = sizeof(v),
		.flags = flags,
		.path = path,
		.path_len = path ? strlen(path) : 0,
		.headers = h,
		.header_count = nh,
		.body = (const uint8_t *)body,
		.body_len = body ? strlen(body) : 0,
	};
	return v;
}

static void test_path_and_header(void)
{
	struct vfx f;
	struct shb_var_header h = {0, 0, "41", 2};
	struct shb_request_var v = var_of(SHB_VAR_PATH | SHB_VAR_HEADERS,
					  "/t/41?q=1", &h, 1, NULL);

	vfx_open(&f, 0, NULL);
	vfx_round(&f, &v, 1, 0,
		  "GET /t/41?q=1 HTTP/1.1\r\nHost: h:8\r\nX-Id: 41\r\n"
		  "Content-Length: 999\r\nAccept: */*\r\n\r\n");
	/* The next request is shorter: nothing of the last one is left. */
	struct shb_var_header h2 = {0, 0, "", 0};
	v = var_of(SHB_VAR_PATH | SHB_VAR_HEADERS, "/", &h2, 1, NULL);
	vfx_round(&f, &v, 2, 3,
		  "GET / HTTP/1.1\r\nHost: h:8\r\nX-Id: \r\n"
		  "Content-Length: 999\r\nAccept: */*\r\n\r\n");
	/* A plain issue after varied ones sends the template. */
	CU_ASSERT_EQUAL(shb_kit_conn_issue(&f.c, NULL, 3), SHB_OK);
	shb_kit_conn_clear_output(&f.c);
	size_t n = shb_kit_conn_flush(&f.c, 0);
	const char *tmpl = "GET /t/{{seq}} HTTP/1.1\r\nHost: h:8\r\nX-Id: {{seq}}\r\n"
			   "Content-Length: 999\r\nAccept: */*\r\n\r\n";
	CU_ASSERT(n == strlen(tmpl) && memcmp(f.c.out, tmpl, n) == 0);
	vfx_close(&f);
}

static void test_body_replaced(void)
{
	struct vfx f;
	struct shb_var_header h[] = {{0, 0, "7", 1}, {1, 0, "5", 1}, {2, 0, "a/b", 3}};
	struct shb_request_var v = var_of(SHB_VAR_HEADERS | SHB_VAR_BODY, NULL,
					  h, 3, "{\"n\":7}");

	vfx_open(&f, 0, "template body");
	/* The user Content-Length (header 1) is not sent: its var is
	 * ignored and ours says the varied body's length. */
	vfx_round(&f, &v, 1, 1,
		  "POST /t/{{seq}} HTTP/1.1\r\nHost: h:8\r\nX-Id: 7\r\n"
		  "Accept: a/b\r\nContent-Length: 7\r\n\r\n{\"n\":7}");
	v = var_of(SHB_VAR_BODY, NULL, NULL, 0, "");
	vfx_round(&f, &v, 2, 0,
		  "POST /t/{{seq}} HTTP/1.1\r\nHost: h:8\r\nX-Id: {{seq}}\r\n"
		  "Accept: */*\r\nContent-Length: 0\r\n\r\n");
	vfx_close(&f);
}

/* A template without a body gets one, with a Content-Length line before
 * Connection: close. */
static void test_body_added(void)
{
	struct vfx f;
	struct shb_request_var v = var_of(SHB_VAR_BODY, NULL, NULL, 0, "xyz");

	vfx_open_n(&f, SHB_RUN_DISABLE_KEEPALIVE, NULL, 1);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_issue_var(&f.c, NULL, &v, 1), SHB_OK);
	shb_kit_conn_clear_output(&f.c);
	size_t n = shb_kit_conn_flush(&f.c, 2);
	const char *want = "GET /t/{{seq}} HTTP/1.1\r\nHost: h:8\r\nX-Id: {{seq}}\r\n"
			   "Content-Length: 3\r\nConnection: close\r\n\r\nxyz";
	CU_ASSERT(n == strlen(want) && memcmp(f.c.out, want, n) == 0);
	vfx_close(&f);
}

static void test_refused(void)
{
	struct vfx f;
	struct shb_var_header bad = {3, 0, "x", 1};
	struct shb_var_header order[] = {{2, 0, "x", 1}, {0, 0, "y", 1}};
	struct shb_request_var v = var_of(SHB_VAR_HEADERS, NULL, &bad, 1, NULL);

	vfx_open(&f, 0, NULL);
	CU_ASSERT_EQUAL(shb_kit_conn_issue_var(&f.c, NULL, &v, 1), SHB_E_INVAL);
	v = var_of(SHB_VAR_HEADERS, NULL, order, 2, NULL);
	CU_ASSERT_EQUAL(shb_kit_conn_issue_var(&f.c, NULL, &v, 2), SHB_E_INVAL);
	/* Busy while a request is out, like issue(). */
	v = var_of(SHB_VAR_PATH, "/a", NULL, 0, NULL);
	CU_ASSERT_EQUAL(shb_kit_conn_issue_var(&f.c, NULL, &v, 3), SHB_OK);
	CU_ASSERT_EQUAL(shb_kit_conn_issue_var(&f.c, NULL, &v, 4), SHB_E_BUSY);
	CU_ASSERT_EQUAL(shb_kit_conn_recv(&f.c, RESP_OK, strlen(RESP_OK)),
			(shb_ssize)strlen(RESP_OK));
	vfx_close(&f);
}

CU_TestInfo shb_h1_var_tests[] = {
	{"path and header value", test_path_and_header},
	{"body and Content-Length replaced", test_body_replaced},
	{"body added to a template without", test_body_added},
	{"bad header index, busy", test_refused},
	CU_TEST_INFO_NULL,
};
