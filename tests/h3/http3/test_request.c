/* Prepared requests: exact bytes of the HEADERS frame, the DATA frame
 * header and the body, and what is dropped. */
#include "http3_tests.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "h3_local.h"
#include "h3_request.h"
#include "h3_response.h"
#include "qpack_dec.h"

static struct shb_h3_request *encode(const struct shb_request *req)
{
	struct shb_h3_request *r = NULL;
	char err[128] = "";
	int rc = shb_h3_request_encode(req, &r, err, sizeof(err));

	CU_ASSERT_EQUAL(rc, SHB_OK);
	CU_ASSERT_STRING_EQUAL(err, "");
	return r;
}

static void expect_bytes(const struct shb_h3_request *r, const char *hex)
{
	static uint8_t want[4096];
	size_t n = shb_h3t_unhex(want, sizeof(want), hex);

	CU_ASSERT_EQUAL(r->len, n);
	CU_ASSERT(r->len == n && memcmp(r->bytes, want, n) == 0);
}

/* The field section in r decodes to its end, `lines` lines; read as a
 * response it is malformed (request pseudo-headers). */
static void expect_decodable(const struct shb_h3_request *r, uint32_t lines)
{
	struct shb_h3_resp resp;
	struct shb_qpack_dec d;
	size_t hdr = r->headers_len - (size_t)(r->headers_len > 66 ? 3 : 2);

	shb_qpack_dec_begin(&d, hdr);
	CU_ASSERT_EQUAL(shb_qpack_dec_feed(&d, r->bytes + r->headers_len - hdr,
					   hdr),
			SHB_QPACK_DEC_E_MESSAGE);
	CU_ASSERT_EQUAL(d.lines, lines);
	CU_ASSERT_EQUAL(d.left, 0);
	CU_ASSERT_STRING_EQUAL(d.detail, "request or unknown pseudo-header "
					 "field in a response");
	/* Read as a response, a request has no :status. */
	shb_h3_resp_init(&resp);
	CU_ASSERT_EQUAL(shb_h3_resp_feed(&resp, r->bytes, r->len, 1),
			SHB_H3_RESP_E_STREAM);
	CU_ASSERT_EQUAL(resp.error, 0x010e);
}

static void test_get_root(void)
{
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = "GET",
		.scheme = "https",
		.authority = "example.com",
		.path = "/",
	};
	struct shb_h3_request *r = encode(&req);

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	expect_bytes(r, "01 12"
			"0000 d1 d7 500b 6578616d706c652e636f6d c1");
	CU_ASSERT_EQUAL(r->headers_len, 20);
	CU_ASSERT_EQUAL(r->data_header_len, 0);
	CU_ASSERT_EQUAL(r->body_len, 0);
	CU_ASSERT_EQUAL(r->has_body, 0);
	/* :method GET 42, :scheme https 44, :authority 53, :path / 38 */
	CU_ASSERT_EQUAL(r->field_section_size, 177);
	expect_decodable(r, 4);
	shb_h3_request_free(r);
}

static void test_post_with_headers(void)
{
	static const struct shb_kv headers[] = {
		{"User-Agent", "shb/0.1"},
		{"Host", "other.example"},
		{"te", "Trailers"},
		{"X-Custom", "A b"},
		{"Content-Length", "99"},
	};
	struct shb_request req = {
		.struct_size = sizeof(req),
		.flags = SHB_REQUEST_HAS_BODY,
		.method = "POST",
		.scheme = "https",
		.authority = "example.com:8443",
		.path = "/submit?x=1",
		.headers = headers,
		.header_count = sizeof(headers) / sizeof(headers[0]),
		.body = (const uint8_t *)"hello",
		.body_len = 5,
	};
	struct shb_h3_request *r = encode(&req);

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	expect_bytes(r, "01 4054"
			"0000 d4 d7"
			"5010 6578616d706c652e636f6d3a38343433"
			"510b 2f7375626d69743f783d31"
			"2703 757365722d6167656e74 07 7368622f302e31"
			"22 7465 08 547261696c657273"
			"2701 782d637573746f6d 03 412062"
			"5401 35"
			"00 05 68656c6c6f");
	CU_ASSERT_EQUAL(r->headers_len, 87);
	CU_ASSERT_EQUAL(r->data_header_len, 2);
	CU_ASSERT_EQUAL(r->body_len, 5);
	CU_ASSERT_EQUAL(r->has_body, 1);
	/* 43 + 44 + 58 + 48 + (10+7+32) + (2+8+32) + (8+3+32) + (14+1+32) */
	CU_ASSERT_EQUAL(r->field_section_size, 43 + 44 + 58 + 48 + 49 + 42 +
						       43 + 47);
	expect_decodable(r, 8);
	shb_h3_request_free(r);
}

static void test_other_methods_and_schemes(void)
{
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = "PATCH",
		.scheme = "http",
		.authority = "a",
		.path = "/x",
	};
	struct shb_h3_request *r = encode(&req);

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	expect_bytes(r, "01 12 0000 5f00 05 5041544348 d6 5001 61 5102 2f78");
	shb_h3_request_free(r);
	/* Methods are case-sensitive: "get" is not entry 17. */
	req.method = "get";
	r = encode(&req);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	expect_bytes(r, "01 10 0000 5f00 03 676574 d6 5001 61 5102 2f78");
	shb_h3_request_free(r);
	static const char *const methods[] = {"CONNECT", "DELETE", "GET",
					      "HEAD", "OPTIONS", "POST",
					      "PUT"};
	for (size_t i = 0; i < 7; i++) {
		req.method = methods[i];
		r = encode(&req);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		CU_ASSERT_EQUAL(r->bytes[4], 0xc0 | (15 + i));
		CU_ASSERT_EQUAL(r->len, 2 + 2 + 1 + 1 + 3 + 4);
		shb_h3_request_free(r);
	}
}

static void test_bodies(void)
{
	static uint8_t body[1000];
	struct shb_request req = {
		.struct_size = sizeof(req),
		.flags = SHB_REQUEST_HAS_BODY,
		.method = "PUT",
		.scheme = "https",
		.authority = "a",
		.path = "/",
	};
	struct shb_h3_request *r;

	/* An empty body: content-length 0 (static entry 4), no DATA. */
	r = encode(&req);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	expect_bytes(r, "01 09 0000 d5 d7 5001 61 c1 c4");
	CU_ASSERT_EQUAL(r->data_header_len, 0);
	CU_ASSERT_EQUAL(r->has_body, 1);
	shb_h3_request_free(r);
	/* 1000 octets: a two-octet DATA length. */
	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = (uint8_t)i;
	req.body = body;
	req.body_len = sizeof(body);
	r = encode(&req);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(r->headers_len, 2 + 2 + 1 + 1 + 3 + 1 + 6);
	CU_ASSERT_EQUAL(memcmp(r->bytes + 2, "\x00\x00\xd5\xd7\x50\x01"
					     "a\xc1\x54\x04"
					     "1000",
			       14),
			0);
	CU_ASSERT_EQUAL(r->data_header_len, 3);
	CU_ASSERT_EQUAL(memcmp(r->bytes + r->headers_len, "\x00\x43\xe8", 3),
			0);
	CU_ASSERT_EQUAL(memcmp(r->bytes + r->headers_len + 3, body,
			       sizeof(body)),
			0);
	CU_ASSERT_EQUAL(r->len, r->headers_len + 3 + sizeof(body));
	shb_h3_request_free(r);
	/* A body without the flag is not sent. */
	req.flags = 0;
	r = encode(&req);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	expect_bytes(r, "01 08 0000 d5 d7 5001 61 c1");
	shb_h3_request_free(r);
}

static void test_refused(void)
{
	struct shb_request req = {
		.struct_size = sizeof(req),
		.scheme = "https",
		.authority = "a",
		.path = "/",
	};
	struct shb_h3_request *r = (struct shb_h3_request *)&req;
	char err[128] = "";

	CU_ASSERT_EQUAL(shb_h3_request_encode(&req, &r, err, sizeof(err)),
			SHB_E_INVAL);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT(strlen(err) > 0 && strchr(err, '\n') == NULL);
	req.method = "POST";
	req.flags = SHB_REQUEST_HAS_BODY;
	req.body_len = 3;
	err[0] = '\0';
	CU_ASSERT_EQUAL(shb_h3_request_encode(&req, &r, err, sizeof(err)),
			SHB_E_INVAL);
	CU_ASSERT(strlen(err) > 0);
	shb_h3_request_free(NULL);
}

/* Connection-specific user headers (RFC 9114 Section 4.2) are refused
 * with one line naming the header as the user wrote it. */
static void test_conn_specific_refused(void)
{
	static const struct {
		const char *name, *value, *err;
	} v[] = {
		{"Connection", "close", "h3: header 'Connection' is connection-specific and not allowed in HTTP/3 (RFC 9114 4.2)"},
		{"KEEP-ALIVE", "x", "h3: header 'KEEP-ALIVE' is connection-specific and not allowed in HTTP/3 (RFC 9114 4.2)"},
		{"proxy-connection", "x", "h3: header 'proxy-connection' is connection-specific and not allowed in HTTP/3 (RFC 9114 4.2)"},
		{"Transfer-Encoding", "chunked", "h3: header 'Transfer-Encoding' is connection-specific and not allowed in HTTP/3 (RFC 9114 4.2)"},
		{"upgrade", "h2c", "h3: header 'upgrade' is connection-specific and not allowed in HTTP/3 (RFC 9114 4.2)"},
		{"TE", "gzip", "h3: header 'TE: gzip' is not allowed in HTTP/3: TE may only be \"trailers\" (RFC 9114 4.2)"},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct shb_kv h[2] = {{"accept", "*/*"}, {v[i].name, v[i].value}};
		struct shb_request req = {
			.struct_size = sizeof(req),
			.method = "GET",
			.scheme = "https",
			.authority = "a",
			.path = "/",
			.headers = h,
			.header_count = 2,
		};
		struct shb_h3_request *r = (struct shb_h3_request *)&req;
		char err[160] = "";

		CU_ASSERT_EQUAL(shb_h3_request_encode(&req, &r, err, sizeof(err)),
				SHB_E_INVAL);
		CU_ASSERT_PTR_NULL(r);
		CU_ASSERT_STRING_EQUAL(err, v[i].err);
	}
}

/* --priority (RFC 9218) reaches HTTP/3 as a plain field: a literal name,
 * lower case, no Huffman; its value is kept for the PRIORITY_UPDATE the
 * plugin sends on the control stream (tests/h3/plugin test_prio.c). */
static void test_priority_field(void)
{
	static const struct shb_kv headers[] = {{"Priority", "u=1, i"}};
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = "GET",
		.scheme = "https",
		.authority = "example.com",
		.path = "/",
		.headers = headers,
		.header_count = 1,
	};
	struct shb_h3_request *r = encode(&req);

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	expect_bytes(r, "01 23"
			"0000 d1 d7 500b 6578616d706c652e636f6d c1"
			"2701 7072696f72697479 06 753d312c2069");
	/* 177 as for GET /, plus 8 + 6 + 32. */
	CU_ASSERT_EQUAL(r->field_section_size, 177 + 46);
	expect_decodable(r, 5);
	CU_ASSERT_EQUAL(r->prio_len, 6);
	CU_ASSERT_EQUAL(r->prio_at, 0);
	CU_ASSERT(r->prio && strcmp(r->prio, "u=1, i") == 0);
	shb_h3_request_free(r);
}

/* PRIORITY_UPDATE for a request stream (RFC 9218 Section 7.2): type
 * 0xF0700 as a 4-octet varint, the payload length, the stream ID as a
 * varint, the field value; 0 when it does not fit. */
static void test_priority_update_frame(void)
{
	static const struct {
		uint64_t id;
		const char *value, *hex;
	} v[] = {
		{0, "u=1, i", "800f0700 07 00 753d312c2069"},
		{4, "u=7", "800f0700 04 04 753d37"},
		{64, "u=0", "800f0700 05 4040 753d30"},
		{16384, "i", "800f0700 05 80004000 69"},
		{(UINT64_C(1) << 62) - 4, "",
		 "800f0700 08 fffffffffffffffc"},
	};
	uint8_t out[64], want[64];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t n = shb_h3t_unhex(want, sizeof(want), v[i].hex);
		size_t got = shb_h3_local_priority_update(out, sizeof(out), v[i].id,
							  v[i].value,
							  strlen(v[i].value));

		CU_ASSERT_EQUAL(got, n);
		CU_ASSERT(got == n && memcmp(out, want, n) == 0);
		CU_ASSERT(n <= SHB_H3_PRIORITY_UPDATE_MAX(strlen(v[i].value)));
		/* One octet short: nothing. */
		CU_ASSERT_EQUAL(shb_h3_local_priority_update(out, n - 1, v[i].id,
							     v[i].value,
							     strlen(v[i].value)), 0);
	}
	CU_ASSERT_EQUAL(shb_h3_local_priority_update(out, sizeof(out),
						     UINT64_C(1) << 62, "u=1", 3), 0);
}

/* A section above SHB_H3_REQ_SECTION_MAX is refused with one line,
 * before any traffic; a varied section above its buffer's cap is
 * SHB_E_INVAL. */
static void test_section_cap(void)
{
	char *big = malloc(SHB_H3_REQ_SECTION_MAX + 1);
	struct shb_kv hdr = {"x-big", big};
	struct shb_request req = {
		.struct_size = sizeof(req),
		.method = "GET",
		.scheme = "https",
		.authority = "a",
		.path = "/",
		.headers = &hdr,
		.header_count = 1,
	};
	struct shb_h3_request *r = NULL;
	struct shb_buf small = SHB_BUF_INIT(16, 64);
	struct shb_request_var v = {.struct_size = sizeof(v),
				    .flags = SHB_VAR_PATH};
	char err[128] = "", path[100];
	uint64_t size = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	memset(big, 'v', SHB_H3_REQ_SECTION_MAX);
	big[SHB_H3_REQ_SECTION_MAX] = '\0';
	CU_ASSERT_EQUAL(shb_h3_request_encode(&req, &r, err, sizeof(err)),
			SHB_E_INVAL);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_STRING_EQUAL(err, "h3: request too large to encode");
	free(big);
	hdr.value = "v";
	CU_ASSERT_EQUAL_FATAL(shb_h3_request_encode(&req, &r, err, sizeof(err)),
			      SHB_OK);
	memset(path, 'p', sizeof(path));
	v.path = path;
	v.path_len = 40; /* fits 64 octets */
	CU_ASSERT_EQUAL(shb_h3_request_var_section(r, &v, &small, &size), SHB_OK);
	v.path_len = sizeof(path); /* does not */
	CU_ASSERT_EQUAL(shb_h3_request_var_section(r, &v, &small, &size),
			SHB_E_INVAL);
	CU_ASSERT_EQUAL(small.err, SHB_BUF_E_CAP);
	CU_ASSERT(small.len <= 64);
	shb_buf_free(&small);
	shb_h3_request_free(r);
}

CU_TestInfo shb_h3t_request_tests[] = {
	{"Priority field (RFC 9218)", test_priority_field},
	{"PRIORITY_UPDATE frame bytes", test_priority_update_frame},
	{"GET / exact bytes", test_get_root},
	{"POST with body and headers", test_post_with_headers},
	{"methods and schemes", test_other_methods_and_schemes},
	{"bodies", test_bodies},
	{"refused requests", test_refused},
	{"connection-specific headers refused", test_conn_specific_refused},
	{"section cap", test_section_cap},
	CU_TEST_INFO_NULL,
};
