/* Request encoding: the exact bytes prepare_request produces. */
#include <string.h>

#include "h1_request.h"
#include "h1_tests.h"

#define NKV(a) (sizeof(a) / sizeof((a)[0]))

struct built {
	void *module;
	const struct shb_h1_request *r;
	int rc;
	char err[160];
};

static void build(struct built *b, uint32_t run_flags,
		  const struct shb_request *req)
{
	const struct shb_proto_vtable *vt = shb_h1_test_desc()->vt;
	void *prep = NULL;

	memset(b, 0, sizeof(*b));
	b->module = shb_h1_test_module(run_flags);
	b->rc = vt->prepare_request(b->module, req, &prep, b->err, sizeof(b->err));
	b->r = prep;
}

static void release(struct built *b)
{
	const struct shb_proto_vtable *vt = shb_h1_test_desc()->vt;

	if (b->r)
		vt->release_request(b->module, (void *)b->r);
	vt->module_destroy(b->module);
}

static void check_head(const struct built *b, const char *want)
{
	CU_ASSERT_EQUAL_FATAL(b->rc, SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b->r);
	CU_ASSERT_EQUAL(b->r->head_len, strlen(want));
	CU_ASSERT(b->r->head_len == strlen(want) &&
		  memcmp(b->r->head, want, b->r->head_len) == 0);
	CU_ASSERT_EQUAL(b->r->total, b->r->head_len + b->r->body_len);
}

static struct shb_request make_req(const char *method, const char *path)
{
	struct shb_request r = {
		.struct_size = sizeof(r),
		.method = method,
		.scheme = "http",
		.authority = "example.com:8080",
		.path = path,
	};
	return r;
}

static void test_get(void)
{
	struct shb_request req = make_req("GET", "/a/b?c=1&d=%20");
	struct built b;

	build(&b, 0, &req);
	check_head(&b, "GET /a/b?c=1&d=%20 HTTP/1.1\r\nHost: example.com:8080\r\n\r\n");
	CU_ASSERT_EQUAL(b.r->body_len, 0);
	CU_ASSERT_PTR_NULL(b.r->body);
	CU_ASSERT_FALSE(b.r->is_head);
	release(&b);
}

static void test_post_body(void)
{
	static const struct shb_kv hdrs[] = {
		{"Content-Type", "application/x-www-form-urlencoded"},
	};
	static const char body[] = "a=1&b=2";
	struct shb_request req = make_req("POST", "/form");
	struct built b;

	req.flags = SHB_REQUEST_HAS_BODY;
	req.headers = hdrs;
	req.header_count = NKV(hdrs);
	req.body = (const uint8_t *)body;
	req.body_len = 7;
	build(&b, 0, &req);
	check_head(&b, "POST /form HTTP/1.1\r\nHost: example.com:8080\r\n"
		       "Content-Type: application/x-www-form-urlencoded\r\n"
		       "Content-Length: 7\r\n\r\n");
	CU_ASSERT_EQUAL_FATAL(b.r->body_len, 7);
	CU_ASSERT(memcmp(b.r->body, body, 7) == 0);
	/* A copy: the template is only borrowed. */
	CU_ASSERT(b.r->body != (const uint8_t *)body);
	release(&b);
}

static void test_empty_body(void)
{
	struct shb_request req = make_req("PUT", "/");
	struct built b;

	req.flags = SHB_REQUEST_HAS_BODY;
	build(&b, 0, &req);
	check_head(&b, "PUT / HTTP/1.1\r\nHost: example.com:8080\r\n"
		       "Content-Length: 0\r\n\r\n");
	CU_ASSERT_EQUAL(b.r->body_len, 0);
	release(&b);
}

static void test_header_order(void)
{
	static const struct shb_kv hdrs[] = {
		{"X-B", "2"}, {"x-a", "1"}, {"ACCEPT", "*/*"},
		{"X-Empty", ""}, {"x-b", "again, with: colon"},
	};
	struct shb_request req = make_req("GET", "/");
	struct built b;

	req.headers = hdrs;
	req.header_count = NKV(hdrs);
	build(&b, 0, &req);
	check_head(&b, "GET / HTTP/1.1\r\nHost: example.com:8080\r\n"
		       "X-B: 2\r\nx-a: 1\r\nACCEPT: */*\r\nX-Empty: \r\n"
		       "x-b: again, with: colon\r\n\r\n");
	release(&b);
}

static void test_disable_keepalive(void)
{
	static const char body[] = "xyz";
	struct shb_request req = make_req("GET", "/");
	struct built b;

	build(&b, SHB_RUN_DISABLE_KEEPALIVE, &req);
	check_head(&b, "GET / HTTP/1.1\r\nHost: example.com:8080\r\n"
		       "Connection: close\r\n\r\n");
	release(&b);

	req = make_req("POST", "/p");
	req.flags = SHB_REQUEST_HAS_BODY;
	req.body = (const uint8_t *)body;
	req.body_len = 3;
	build(&b, SHB_RUN_DISABLE_KEEPALIVE | SHB_RUN_TLS, &req);
	check_head(&b, "POST /p HTTP/1.1\r\nHost: example.com:8080\r\n"
		       "Content-Length: 3\r\nConnection: close\r\n\r\n");
	release(&b);
}

/* With a body our Content-Length is the only one; without, the user's
 * header goes out as typed. */
static void test_user_content_length(void)
{
	static const struct shb_kv hdrs[] = {
		{"content-length", "99"}, {"X-A", "1"},
	};
	static const char body[] = "hello";
	struct shb_request req = make_req("POST", "/");
	struct built b;

	req.flags = SHB_REQUEST_HAS_BODY;
	req.headers = hdrs;
	req.header_count = NKV(hdrs);
	req.body = (const uint8_t *)body;
	req.body_len = 5;
	build(&b, 0, &req);
	check_head(&b, "POST / HTTP/1.1\r\nHost: example.com:8080\r\n"
		       "X-A: 1\r\nContent-Length: 5\r\n\r\n");
	release(&b);

	req.flags = 0;
	req.body = NULL;
	req.body_len = 0;
	build(&b, 0, &req);
	check_head(&b, "POST / HTTP/1.1\r\nHost: example.com:8080\r\n"
		       "content-length: 99\r\nX-A: 1\r\n\r\n");
	release(&b);
}

static void test_head_method(void)
{
	struct shb_request req = make_req("HEAD", "/x");
	struct built b;

	build(&b, 0, &req);
	check_head(&b, "HEAD /x HTTP/1.1\r\nHost: example.com:8080\r\n\r\n");
	CU_ASSERT_TRUE(b.r->is_head);
	release(&b);
}

static void test_rejects_crlf(void)
{
	static const struct shb_kv hdrs[] = {{"X-A", "1\r\nX-Injected: 1"}};
	struct shb_request req = make_req("GET", "/");
	struct built b;

	req.headers = hdrs;
	req.header_count = NKV(hdrs);
	build(&b, 0, &req);
	CU_ASSERT_EQUAL(b.rc, SHB_E_INVAL);
	CU_ASSERT_PTR_NULL(b.r);
	CU_ASSERT_STRING_EQUAL(b.err, "h1: bad header #1");
	release(&b);

	req = make_req("GET", "/a\nb");
	build(&b, 0, &req);
	CU_ASSERT_EQUAL(b.rc, SHB_E_INVAL);
	CU_ASSERT(strstr(b.err, "CR or LF") != NULL);
	release(&b);
}

CU_TestInfo shb_h1_request_tests[] = {
	{"GET", test_get},
	{"POST with body", test_post_body},
	{"empty body", test_empty_body},
	{"user headers order and casing", test_header_order},
	{"disable keep-alive", test_disable_keepalive},
	{"user Content-Length", test_user_content_length},
	{"HEAD", test_head_method},
	{"CR/LF rejected", test_rejects_crlf},
	CU_TEST_INFO_NULL,
};
