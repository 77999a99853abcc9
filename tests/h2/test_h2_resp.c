/* ABI 1.4 on HTTP/2, through the vtable under the test kit: issue_req
 * sends what the same request prepared as a template sends, and
 * req_response hands over the final head's fields (a dynamic table
 * reference resolved, pseudo-headers left out) and the body cut at
 * response_body_max, only in runs that want them. */
#include <stdio.h>
#include <string.h>

#include "h2_fixture.h"

/* The server's SETTINGS (none changed), then our output forgotten. */
static void settle(struct shb_h2_fx *f)
{
	struct shb_h2_bytes in = {0};

	shb_h2_srv_settings(&in, NULL, 0);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(f, in.p, in.len), (shb_ssize)in.len);
	shb_h2_fx_flush(f, 0);
	f->sent.len = 0;
	shb_h2_bytes_free(&in);
}

static const struct shb_kv hdrs[] = {{"X-A", "1"}};

static const struct shb_request post = {
	.struct_size = sizeof(struct shb_request),
	.flags = SHB_REQUEST_HAS_BODY,
	.method = "POST", .scheme = "http", .authority = "example.com",
	.path = "/echo?x=1", .headers = hdrs, .header_count = 1,
	.body = (const uint8_t *)"xyz", .body_len = 3,
};

static void test_issue_req(void)
{
	struct shb_h2_fx f;
	struct shb_h2_fx_frame fr[4];
	struct shb_h2_request *ref = NULL;
	char err[128];

	shb_h2_fx_open(&f, 0, 2, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	settle(&f);
	CU_ASSERT_EQUAL_FATAL(shb_h2_request_encode(&post, &ref, err, sizeof(err)),
			      SHB_OK);
	shb_kit_clock_set(&shb_h2_kit.clock, f.now);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_issue_req(&f.kc, &post, 1), SHB_OK);
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 4), 2);
	CU_ASSERT_EQUAL(fr[0].h.type, SHB_H2_HEADERS);
	CU_ASSERT_EQUAL(fr[0].h.stream_id, 1);
	CU_ASSERT(fr[0].h.length == ref->block_len &&
		  memcmp(fr[0].payload, ref->block, ref->block_len) == 0);
	CU_ASSERT_EQUAL(fr[1].h.type, SHB_H2_DATA);
	CU_ASSERT_EQUAL(fr[1].h.flags, SHB_H2_FLAG_END_STREAM);
	CU_ASSERT(fr[1].h.length == 3 && memcmp(fr[1].payload, "xyz", 3) == 0);
	shb_h2_request_free(ref);
	/* The request belongs to the connection: answered, nothing kept. */
	struct shb_h2_bytes in = {0};
	shb_h2_srv_status(&in, 1, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 200);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, in.p, in.len), (shb_ssize)in.len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(shb_h2_fx_done(1));
	CU_ASSERT_EQUAL(shb_h2_fx_done(1)->res.status, 200);
	CU_ASSERT_EQUAL(shb_h2_kit.response_count, 0);
	CU_ASSERT_PTR_NULL(f.c->keep);
	shb_h2_bytes_free(&in);
	shb_h2_fx_close(&f);
}

static void test_response(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes in = {0};

	shb_h2_test_body_max = 5;
	shb_h2_fx_open(&f, SHB_RUN_WANT_RESPONSE | SHB_RUN_WANT_BODY, 2, NULL, 0,
		       NULL, 0, 0);
	shb_h2_test_body_max = 0;
	shb_h2_fx_ready(&f);
	settle(&f);
	shb_kit_clock_set(&shb_h2_kit.clock, f.now);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_issue_req(&f.kc, &post, 1), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_issue_rc(&f, 2), SHB_OK);
	shb_h2_fx_flush(&f, 0);
	/* Stream 1: a 301 (literal :status) whose "server: nginx" goes into
	 * the dynamic table, then 6 body bytes in two DATA frames. */
	shb_h2_srv_status(&in, 1, SHB_H2_FLAG_END_HEADERS, 301);
	shb_h2_srv_data(&in, 1, 0, "abc");
	shb_h2_srv_data(&in, 1, SHB_H2_FLAG_END_STREAM, "def");
	/* Stream 3: :status 200 and the table's entry (index 62). */
	shb_h2_srv_frame(&in, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 3,
			 "\x88\xbe", 2);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, in.p, in.len), (shb_ssize)in.len);
	CU_ASSERT_EQUAL_FATAL(shb_h2_kit.response_count, 2);
	const struct shb_kit_response *r = shb_kit_response_find(&shb_h2_kit, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(r->status, 301);
	CU_ASSERT_EQUAL(r->header_count, 2);
	CU_ASSERT_STRING_EQUAL(r->headers[0], "server: nginx");
	CU_ASSERT_STRING_EQUAL(r->headers[1], "date: now");
	CU_ASSERT_EQUAL(r->body_len, 5);
	CU_ASSERT_EQUAL(memcmp(r->body, "abcde", 5), 0);
	CU_ASSERT_EQUAL(r->flags, SHB_RESP_BODY_TRUNCATED);
	r = shb_kit_response_find(&shb_h2_kit, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(r->status, 200);
	CU_ASSERT_EQUAL(r->header_count, 1);
	CU_ASSERT_STRING_EQUAL(r->headers[0], "server: nginx");
	CU_ASSERT_EQUAL(r->body_len, 0);
	CU_ASSERT_EQUAL(r->flags, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(shb_h2_fx_done(1));
	CU_ASSERT_EQUAL(shb_h2_fx_done(1)->res.rx_body_bytes, 6);
	shb_h2_bytes_free(&in);
	shb_h2_fx_close(&f);
}

CU_TestInfo shb_h2_resp_tests[] = {
	{"issue_req: the template's block and body", test_issue_req},
	{"req_response: fields through the dynamic table, body cut", test_response},
	CU_TEST_INFO_NULL,
};
