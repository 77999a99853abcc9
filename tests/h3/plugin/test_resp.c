/* ABI 1.4 on HTTP/3, through the vtable under the test kit: issue_req
 * sends what the same request prepared as a template sends, from a
 * buffer its stream owns; req_response hands over the final head's
 * fields (after an interim one; static name references, literal names)
 * and the body cut at response_body_max, only in runs that want them. */
#include <string.h>

#include "h3p_tests.h"

static const struct shb_kv hdrs[] = {{"X-A", "1"}};

static struct shb_request post(void)
{
	struct shb_request r = {
		.struct_size = sizeof(r), .flags = SHB_REQUEST_HAS_BODY,
		.method = "POST", .scheme = "https", .authority = "example.com",
		.path = "/echo?x=1", .headers = hdrs, .header_count = 1,
		.body = (const uint8_t *)"xyz", .body_len = 3,
	};
	return r;
}

static void ready(struct h3p_fx *f, uint32_t flags)
{
	h3p_open(f, flags, 2, NULL, 0);
	fq_q_handshake(f->q);
	CU_ASSERT_EQUAL_FATAL(h3p_recv(f), SHB_OK);
}

static void test_issue_req(void)
{
	struct h3p_fx f;
	struct shb_h3_request *ref = NULL;
	struct shb_request req = post();
	char err[128], body[] = "xyz";
	uint8_t resp[64];

	ready(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h3_request_encode(&req, &ref, err, sizeof(err)),
			      SHB_OK);
	req.body = (const uint8_t *)body;
	shb_kit_clock_set(&h3p_kit.clock, f.now);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_issue_req(&f.kc, &req, 1), SHB_OK);
	memset(body, '#', 3); /* lent for the call only */
	CU_ASSERT_EQUAL_FATAL(f.q->send_count, 1);
	CU_ASSERT_EQUAL(f.q->sends[0].id, 0);
	CU_ASSERT_EQUAL(f.q->sends[0].fin, 1);
	CU_ASSERT(f.q->sends[0].len == ref->len &&
		  memcmp(f.q->sends[0].data, ref->bytes, ref->len) == 0);
	shb_h3_request_free(ref);
	size_t n = h3p_headers_status_idx(resp, 25); /* 200 */
	fq_q_data(f.q, 0, resp, n, 1);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h3p_done_for(1));
	CU_ASSERT_EQUAL(h3p_done_for(1)->res.status, 200);
	CU_ASSERT_EQUAL(h3p_kit.response_count, 0);
	h3p_close(&f);
}

static void test_response(void)
{
	struct h3p_fx f;
	uint8_t in[128];
	size_t n = 0;
	/* :status 103 (static 24), then :status 301 (name of static 24),
	 * location /b (name of static 12), x-a: 1 (a literal name). */
	static const uint8_t interim[] = {0x01, 0x03, 0x00, 0x00, 0xd8};
	static const uint8_t final[] = {
		0x01, 0x12, 0x00, 0x00, 0x5f, 0x09, 0x03, '3', '0', '1',
		0x5c, 0x02, '/', 'b', 0x23, 'x', '-', 'a', 0x01, '1'};

	h3p_body_max = 4;
	ready(&f, SHB_RUN_WANT_RESPONSE | SHB_RUN_WANT_BODY);
	h3p_body_max = 0;
	uint64_t cookie = h3p_issue(&f);
	memcpy(in, interim, sizeof(interim));
	n = sizeof(interim);
	memcpy(in + n, final, sizeof(final));
	n += sizeof(final);
	n += h3p_data(in + n, "abcdef");
	fq_q_data(f.q, 0, in, n, 1);
	CU_ASSERT_EQUAL(h3p_recv(&f), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(h3p_kit.response_count, 1);
	const struct shb_kit_response *r = &h3p_kit.responses[0];
	CU_ASSERT_EQUAL(r->cookie, cookie);
	CU_ASSERT_EQUAL(r->status, 301);
	CU_ASSERT_EQUAL(r->header_count, 2);
	CU_ASSERT_STRING_EQUAL(r->headers[0], "location: /b");
	CU_ASSERT_STRING_EQUAL(r->headers[1], "x-a: 1");
	CU_ASSERT_EQUAL(r->body_len, 4);
	CU_ASSERT_EQUAL(memcmp(r->body, "abcd", 4), 0);
	CU_ASSERT_EQUAL(r->flags, SHB_RESP_BODY_TRUNCATED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h3p_done_for(cookie));
	CU_ASSERT_EQUAL(h3p_done_for(cookie)->res.rx_body_bytes, 6);
	h3p_close(&f);
}

CU_TestInfo shb_h3p_resp_tests[] = {
	{"issue_req: the template's bytes, owned by the stream", test_issue_req},
	{"req_response: after an interim head, fields and a cut body", test_response},
	CU_TEST_INFO_NULL,
};
