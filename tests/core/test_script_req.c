/* The parser of a script's request bytes (core/engine/script_req.c): what
 * wrk.format makes, a pipeline of three, a body framed by Content-Length,
 * Host as the authority, LF-only lines, and one error line per malformed
 * input, with the set reused across parses. */
#include <CUnit/CUnit.h>
#include <string.h>

#include "engine/script_req.h"

static struct shb_sreq_set set;
static char err[256];

static int parse(const char *s)
{
	err[0] = '\0';
	return shb_sreq_parse(&set, (const uint8_t *)s, strlen(s), "http", err,
			      sizeof(err));
}

/* wrk.format("GET", "/x") with its Host, and one header of the user. */
static void test_format_get(void)
{
	CU_ASSERT_EQUAL_FATAL(parse("GET /x?a=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
				    "X-Counter: 7\r\n\r\n"), 0);
	CU_ASSERT_EQUAL_FATAL(set.count, 1);
	const struct shb_request *r = &set.reqs[0];
	CU_ASSERT_STRING_EQUAL(r->method, "GET");
	CU_ASSERT_STRING_EQUAL(r->path, "/x?a=1");
	CU_ASSERT_STRING_EQUAL(r->scheme, "http");
	CU_ASSERT_STRING_EQUAL(r->authority, "127.0.0.1:8080");
	CU_ASSERT_EQUAL(r->header_count, 1);
	CU_ASSERT_STRING_EQUAL(r->headers[0].key, "X-Counter");
	CU_ASSERT_STRING_EQUAL(r->headers[0].value, "7");
	CU_ASSERT_EQUAL(r->flags & SHB_REQUEST_HAS_BODY, 0);
	CU_ASSERT_EQUAL(r->body_len, 0);
}

/* post.lua: the body after the head, Content-Length taken out. */
static void test_post_body(void)
{
	CU_ASSERT_EQUAL_FATAL(parse("POST / HTTP/1.1\r\nContent-Type: application/"
				    "x-www-form-urlencoded\r\nContent-Length: 16\r\n"
				    "Host: h\r\n\r\nfoo=bar&baz=quux"), 0);
	CU_ASSERT_EQUAL_FATAL(set.count, 1);
	const struct shb_request *r = &set.reqs[0];
	CU_ASSERT_STRING_EQUAL(r->method, "POST");
	CU_ASSERT_EQUAL(r->header_count, 1);
	CU_ASSERT_STRING_EQUAL(r->headers[0].key, "Content-Type");
	CU_ASSERT_EQUAL(r->flags & SHB_REQUEST_HAS_BODY, SHB_REQUEST_HAS_BODY);
	CU_ASSERT_EQUAL_FATAL(r->body_len, 16);
	CU_ASSERT_EQUAL(memcmp(r->body, "foo=bar&baz=quux", 16), 0);
	/* Content-Length: 0 is a body too (empty). */
	CU_ASSERT_EQUAL_FATAL(parse("PUT /e HTTP/1.1\r\nContent-Length: 0\r\n\r\n"), 0);
	CU_ASSERT_EQUAL(set.reqs[0].flags & SHB_REQUEST_HAS_BODY, SHB_REQUEST_HAS_BODY);
	CU_ASSERT_EQUAL(set.reqs[0].body_len, 0);
	CU_ASSERT_PTR_NULL(set.reqs[0].authority);
}

/* pipeline.lua: three requests in one string, each with its headers. */
static void test_pipeline(void)
{
	CU_ASSERT_EQUAL_FATAL(parse("GET /?foo HTTP/1.1\r\nHost: h\r\nA: 1\r\n\r\n"
				    "POST /?bar HTTP/1.1\r\nHost: h\r\nB: 2\r\nC: 3\r\n"
				    "Content-Length: 2\r\n\r\nhi"
				    "GET /?baz HTTP/1.1\r\nHost: h\r\n\r\n"), 0);
	CU_ASSERT_EQUAL_FATAL(set.count, 3);
	CU_ASSERT_STRING_EQUAL(set.reqs[0].path, "/?foo");
	CU_ASSERT_EQUAL(set.reqs[0].header_count, 1);
	CU_ASSERT_STRING_EQUAL(set.reqs[0].headers[0].value, "1");
	CU_ASSERT_STRING_EQUAL(set.reqs[1].path, "/?bar");
	CU_ASSERT_EQUAL(set.reqs[1].header_count, 2);
	CU_ASSERT_STRING_EQUAL(set.reqs[1].headers[1].key, "C");
	CU_ASSERT_EQUAL(set.reqs[1].body_len, 2);
	CU_ASSERT_STRING_EQUAL(set.reqs[2].path, "/?baz");
	CU_ASSERT_EQUAL(set.reqs[2].header_count, 0);
	CU_ASSERT_PTR_NULL(set.reqs[2].headers);
}

/* LF alone ends lines; values lose their blanks. */
static void test_lf_and_blanks(void)
{
	CU_ASSERT_EQUAL_FATAL(parse("DELETE /d HTTP/1.0\nX:  a b \t\n\n"), 0);
	CU_ASSERT_STRING_EQUAL(set.reqs[0].method, "DELETE");
	CU_ASSERT_STRING_EQUAL(set.reqs[0].headers[0].value, "a b");
}

#define BAD(s, want)                                                           \
	do {                                                                   \
		CU_ASSERT_EQUAL(parse(s), -1);                                 \
		CU_ASSERT_STRING_EQUAL(err, want);                             \
		CU_ASSERT_EQUAL(set.count, 0);                                 \
	} while (0)

static void test_errors(void)
{
	BAD("", "the script's request is an empty string");
	BAD("GET / HTTP/1.1\r\n", "malformed request #1 from the script: the "
	    "header fields do not end with an empty line");
	BAD("GET / HTTP/1.1", "malformed request #1 from the script: the request "
	    "line does not end (no CR LF)");
	BAD("GET /\r\n\r\n", "malformed request #1 from the script: the request "
	    "line is not \"METHOD /path HTTP/1.1\"");
	BAD("GET / HTTP/2\r\n\r\n", "malformed request #1 from the script: the "
	    "version is not HTTP/1.1 (nor HTTP/1.0)");
	BAD("G(T / HTTP/1.1\r\n\r\n", "malformed request #1 from the script: the "
	    "method is not a token (RFC 9110)");
	BAD("GET x HTTP/1.1\r\n\r\n", "malformed request #1 from the script: the "
	    "path does not start with '/'");
	BAD("GET /a\x01 HTTP/1.1\r\n\r\n", "malformed request #1 from the "
	    "script: a control or space in the path");
	BAD("GET / HTTP/1.1\r\nNoColon\r\n\r\n", "malformed request #1 from the "
	    "script: a header line without a name and ':'");
	BAD("GET / HTTP/1.1\r\nA: 1\r\n folded\r\n\r\n", "malformed request #1 "
	    "from the script: obsolete line folding in the header fields");
	BAD("GET / HTTP/1.1\r\nA B: 1\r\n\r\n", "malformed request #1 from the "
	    "script: a header name is not a token (RFC 9110)");
	BAD("GET / HTTP/1.1\r\nA: x\x7f\r\n\r\n", "malformed request #1 from the "
	    "script: a control character in a header value");
	BAD("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", "malformed "
	    "request #1 from the script: Transfer-Encoding is not taken (give "
	    "Content-Length, as wrk.format does)");
	BAD("POST / HTTP/1.1\r\nContent-Length: 5x\r\n\r\n", "malformed request "
	    "#1 from the script: Content-Length is not a number of bytes");
	BAD("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
	    "malformed request #1 from the script: two different Content-Length "
	    "values");
	BAD("POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\nabc", "malformed "
	    "request #1 from the script: the body is shorter than its "
	    "Content-Length");
	BAD("GET / HTTP/1.1\r\nHost: a b\r\n\r\n", "malformed request #1 from "
	    "the script: the Host value is empty or has a space");
	/* A NUL in the head would cut a name or value short. */
	CU_ASSERT_EQUAL(shb_sreq_parse(&set, (const uint8_t *)"GET / HTTP/1.1\r\n\0A: 1\r\n\r\n",
				       25, "http", err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "malformed request #1 from the script: a NUL "
			       "byte in a header line");
	CU_ASSERT_EQUAL(shb_sreq_parse(&set, (const uint8_t *)"GET /\0 HTTP/1.1\r\n\r\n",
				       19, "http", err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "malformed request #1 from the script: a NUL "
			       "byte in the request line");
	/* ... but not in a body. */
	CU_ASSERT_EQUAL(shb_sreq_parse(&set, (const uint8_t *)"PUT / HTTP/1.1\r\nContent-Length: 3\r\n\r\na\0b",
				       40, "http", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(set.reqs[0].body_len, 3);
	/* The second of a pipeline is named. */
	BAD("GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n", "malformed request #2 "
	    "from the script: the header fields do not end with an empty line");
	/* A body longer than Content-Length says: the rest is the next
	 * request, which is no request. */
	BAD("POST / HTTP/1.1\r\nContent-Length: 1\r\n\r\nab", "malformed request "
	    "#2 from the script: the request line does not end (no CR LF)");
}

static void test_bounds(void)
{
	static char big[300 * 8 + 64];
	size_t n = (size_t)sprintf(big, "GET / HTTP/1.1\r\n");
	for (int i = 0; i < 257; i++)
		n += (size_t)sprintf(big + n, "H%d: v\r\n", i);
	strcpy(big + n, "\r\n");
	BAD(big, "malformed request #1 from the script: more than 256 header "
	    "fields");
	/* 1025 requests in one string. */
	static char many[1025 * 18 + 1];
	for (int i = 0; i < 1025; i++)
		memcpy(many + i * 18, "GET / HTTP/1.1\r\n\r\n", 18);
	CU_ASSERT_EQUAL(shb_sreq_parse(&set, (const uint8_t *)many, 1024 * 18,
				       "http", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(set.count, 1024);
	CU_ASSERT_EQUAL(shb_sreq_parse(&set, (const uint8_t *)many, 1025 * 18,
				       "http", err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "the script's request string holds more "
			       "than 1024 requests");
	CU_ASSERT_EQUAL(shb_sreq_parse(&set, (const uint8_t *)many,
				       SHB_SCRIPT_REQUEST_MAX + 1, "http", err,
				       sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "the script's request is 67108865 bytes (at "
			       "most 67108864)");
	shb_sreq_free(&set);
	CU_ASSERT_PTR_NULL(set.reqs);
}

static CU_TestInfo sreq_tests[] = {
	{"wrk.format GET", test_format_get},
	{"a body by Content-Length", test_post_body},
	{"a pipeline of three", test_pipeline},
	{"LF lines, trimmed values", test_lf_and_blanks},
	{"malformed requests", test_errors},
	{"caps", test_bounds},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"script_req", NULL, NULL, NULL, NULL, sreq_tests},
	CU_SUITE_INFO_NULL,
};
