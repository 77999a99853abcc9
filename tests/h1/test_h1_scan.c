/* The response scanner: every vector is fed whole, split in two at every
 * offset, split in three at every pair of offsets (small vectors) and byte
 * by byte; every way must give the same responses, counts and verdicts
 * (the driver: h1_scan_fx.c). */
#include <stdlib.h>
#include <string.h>

#include "h1_scan.h"
#include "h1_scan_fx.h"
#include "h1_tests.h"

/* ---- vectors ----------------------------------------------------------- */

#define TXT(s) (const uint8_t *)(s), sizeof(s) - 1
#define LEN(s) (sizeof(s) - 1)
#define OK(st, resp, body, ka, fr) {0, st, LEN(resp), body, ka, SHB_H1_FRAME_##fr, NULL}
#define ERR(why) {1, 0, 0, 0, 0, 0, why}

#define CL_RESP "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer: test\r\n" \
		"content-type: text/plain\r\nCONTENT-LENGTH: 5\r\n\r\nhello"

static void test_content_length(void)
{
	struct vector v = {"content-length", TXT(CL_RESP), 0, 0, 1,
			   {OK(200, CL_RESP, 5, 1, LENGTH)}};
	h1s_check_vector(&v);
}

static void test_content_length_list(void)
{
#define R "HTTP/1.1 200 OK\r\nContent-Length: 3 , 3\r\ncontent-length:3\r\n\r\nabc"
	struct vector v = {"cl list", TXT(R), 0, 0, 1, {OK(200, R, 3, 1, LENGTH)}};
	h1s_check_vector(&v);
#undef R
}

#define CH_RESP "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n" \
		"Content-Length: 3\r\n\r\n" \
		"5;name=value\r\nhello\r\n" \
		"A ; ext=\"x\"\r\n0123456789\r\n" \
		"1F\r\n0123456789abcdef0123456789abcde\r\n" \
		"0;last\r\nX-Trailer: yes\r\nExpires: 0\r\n\r\n"

static void test_chunked(void)
{
	struct vector v = {"chunked", TXT(CH_RESP), 0, 0, 1,
			   {OK(200, CH_RESP, 46, 1, CHUNKED)}};
	h1s_check_vector(&v);
}

#define INTERIM_RESP "HTTP/1.1 100 Continue\r\n\r\n" \
	"HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n" \
	"Connection: close\r\nContent-Length: 99\r\n\r\n" \
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

static void test_interim(void)
{
	struct vector v = {"1xx", TXT(INTERIM_RESP), 0, 0, 1,
			   {OK(200, INTERIM_RESP, 2, 1, LENGTH)}};
	h1s_check_vector(&v);
}

#define HEAD_R1 "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"
#define HEAD_R2 "HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nnop"

static void test_head(void)
{
	struct vector v = {"head", TXT(HEAD_R1 HEAD_R2), 0, 1, 2,
			   {OK(200, HEAD_R1, 0, 1, NONE),
			    OK(404, HEAD_R2, 3, 1, LENGTH)}};
	h1s_check_vector(&v);
}

#define NB_R1 "HTTP/1.1 204 No Content\r\nServer: x\r\n\r\n"
#define NB_R2 "HTTP/1.1 304 Not Modified\r\nETag: \"a\"\r\n\r\n"
#define NB_R3 "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"

static void test_no_body(void)
{
	struct vector v = {"204/304", TXT(NB_R1 NB_R2 NB_R3), 0, 0, 3,
			   {OK(204, NB_R1, 0, 1, NONE), OK(304, NB_R2, 0, 1, NONE),
			    OK(200, NB_R3, 0, 1, LENGTH)}};
	h1s_check_vector(&v);
}

#define EOF_RESP "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nbody until the end"

static void test_close_delimited(void)
{
	struct vector v = {"to eof", TXT(EOF_RESP), 1, 0, 1,
			   {OK(200, EOF_RESP, 18, 0, EOF)}};
	h1s_check_vector(&v);
}

#define GZ_RESP "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n" \
		"Transfer-Encoding: gzip\r\nContent-Length: 2\r\n\r\n\x1f\x8b" "abc"

static void test_te_not_chunked(void)
{
	struct vector v = {"te gzip", TXT(GZ_RESP), 1, 0, 1,
			   {OK(200, GZ_RESP, 5, 0, EOF)}};
	h1s_check_vector(&v);
}

#define V10_R1 "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi"

static void test_http10_close(void)
{
	struct vector v = {"1.0", TXT(V10_R1), 0, 0, 1,
			   {OK(200, V10_R1, 2, 0, LENGTH)}};
	h1s_check_vector(&v);
}

#define V10_KA1 "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nhi"
#define V10_KA2 "HTTP/1.0 200 OK\r\nContent-Length: 0\r\nconnection: foo, keep-alive\r\n\r\n"

static void test_http10_keep_alive(void)
{
	struct vector v = {"1.0 keep-alive", TXT(V10_KA1 V10_KA2), 0, 0, 2,
			   {OK(200, V10_KA1, 2, 1, LENGTH),
			    OK(200, V10_KA2, 0, 1, LENGTH)}};
	h1s_check_vector(&v);
}

/* A 1.0 peer cannot vouch for chunked framing: read it, then close. */
#define V10_TE "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n" \
	       "Transfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n"

static void test_http10_chunked(void)
{
	struct vector v = {"1.0 chunked", TXT(V10_TE), 0, 0, 1,
			   {OK(200, V10_TE, 2, 0, CHUNKED)}};
	h1s_check_vector(&v);
}

#define V10_EOF "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nabc"

static void test_http10_eof(void)
{
	struct vector v = {"1.0 to eof", TXT(V10_EOF), 1, 0, 1,
			   {OK(200, V10_EOF, 3, 0, EOF)}};
	h1s_check_vector(&v);
}

#define CC_RESP "HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 1\r\n\r\nx"

static void test_connection_close(void)
{
	struct vector v = {"close", TXT(CC_RESP), 0, 0, 1,
			   {OK(200, CC_RESP, 1, 0, LENGTH)}};
	h1s_check_vector(&v);
}

/* Tokens and names that only look like "close" must not count. */
#define NC_RESP "HTTP/1.1 200 OK\r\nConnection: closed, clo se, upgrade\r\n" \
		"Connections: close\r\nConnection : close\r\nX-Connection: close\r\n" \
		"Content-Length: 1\r\n\r\nx"

static void test_connection_lookalikes(void)
{
	struct vector v = {"not close", TXT(NC_RESP), 0, 0, 1,
			   {OK(200, NC_RESP, 1, 1, LENGTH)}};
	h1s_check_vector(&v);
}

#define PL_R1 "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"
#define PL_R2 "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nxyz\r\n0\r\n\r\n"
#define PL_R3 "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"
#define PL_R4 "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n!"

static void test_pipelined(void)
{
	struct vector v = {"pipelined", TXT(PL_R1 PL_R2 PL_R3 PL_R4), 0, 0, 4,
			   {OK(200, PL_R1, 3, 1, LENGTH), OK(201, PL_R2, 3, 1, CHUNKED),
			    OK(500, PL_R3, 0, 1, LENGTH), OK(200, PL_R4, 1, 1, LENGTH)}};
	h1s_check_vector(&v);
}

#define LF_R1 "HTTP/1.1 200 OK\nContent-Length: 4\n\nbody"
#define LF_R2 "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n4\nbody\n0\n\n"

static void test_bare_lf(void)
{
	struct vector v = {"bare lf", TXT(LF_R1 LF_R2), 0, 0, 2,
			   {OK(200, LF_R1, 4, 1, LENGTH), OK(200, LF_R2, 4, 1, CHUNKED)}};
	h1s_check_vector(&v);
}

#define ST_R1 "HTTP/1.1 999 Whatever\r\nContent-Length: 0\r\n\r\n"
#define ST_R2 "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n"
#define ST_R3 "HTTP/1.1 100\n\nHTTP/1.1 599 \n\n"

static void test_status_forms(void)
{
	struct vector v = {"status", TXT(ST_R1 ST_R2 ST_R3), 1, 0, 3,
			   {OK(999, ST_R1, 0, 1, LENGTH), OK(200, ST_R2, 0, 1, LENGTH),
			    OK(599, ST_R3, 0, 0, EOF)}};
	h1s_check_vector(&v);
}

#define SPLIT_CRLF "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

static void test_split_in_crlf(void)
{
	/* Every piece ends between a CR and its LF. */
	static const size_t cuts[] = {16, 35, 37};
	struct vector v = {"crlf", TXT(SPLIT_CRLF), 0, 0, 1,
			   {OK(200, SPLIT_CRLF, 2, 1, LENGTH)}};
	struct outcome o;

	CU_ASSERT_EQUAL(v.data[15], '\r');
	CU_ASSERT_EQUAL(v.data[34], '\r');
	CU_ASSERT_EQUAL(v.data[36], '\r');
	h1s_drive(&v, cuts, 3, &o);
	h1s_check_expected(&v, &o);
	h1s_check_vector(&v);
}

/* ---- errors ------------------------------------------------------------ */

static void check_error(const char *text, const char *why)
{
	struct vector v = {"error", (const uint8_t *)text, strlen(text), 1, 0, 1,
			   {ERR(why)}};
	h1s_check_vector(&v);
}

static void test_conflicting_length(void)
{
	check_error("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabc",
		    "conflicting Content-Length values");
	check_error("HTTP/1.1 200 OK\r\nContent-Length: 3,4\r\n\r\nabc",
		    "conflicting Content-Length values");
}

static void test_bad_length(void)
{
	check_error("HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n", "bad Content-Length");
	check_error("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "bad Content-Length");
	check_error("HTTP/1.1 200 OK\r\nContent-Length: 1 2\r\n\r\n", "bad Content-Length");
	check_error("HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n", "bad Content-Length");
	check_error("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
		    "Content-Length too large");
}

/* RFC 9110 §8.6: a list of identical values is one value. */
#define CL_SAME "HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello"

static void test_length_list_forms(void)
{
	struct vector v = {"5, 5", TXT(CL_SAME), 0, 0, 1,
			   {OK(200, CL_SAME, 5, 1, LENGTH)}};
	h1s_check_vector(&v);
	check_error("HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nhello",
		    "conflicting Content-Length values");
	check_error("HTTP/1.1 200 OK\r\nContent-Length: 5,\r\n\r\nhello",
		    "bad Content-Length");
	check_error("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5, 4\r\n\r\n",
		    "conflicting Content-Length values");
}

/* Past 2^62 (the cap that keeps sums of lengths from overflowing), at
 * 2^63 (a signed overflow elsewhere) and past 2^64 (an unsigned one). */
static void test_huge_length(void)
{
	static const char *const big[] = {
		"4611686018427387905", "9223372036854775807",
		"9223372036854775808", "18446744073709551615",
		"18446744073709551616", "18446744073709551626",
	};
	static const char max[] = "HTTP/1.1 200 OK\r\nContent-Length: "
				  "4611686018427387904\r\n\r\n";
	char buf[128];
	struct shb_h1_scan s;
	size_t used;

	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		snprintf(buf, sizeof(buf), "HTTP/1.1 200 OK\r\nContent-Length: "
			 "%s\r\n\r\nx", big[i]);
		check_error(buf, "Content-Length too large");
	}
	/* 2^62 itself is a length: the head ends and the body is awaited. */
	shb_h1_scan_begin(&s, 0);
	CU_ASSERT_EQUAL(shb_h1_scan_feed(&s, TXT(max), &used), SHB_H1_SCAN_MORE);
	CU_ASSERT_EQUAL(used, LEN(max));
	CU_ASSERT_EQUAL(shb_h1_scan_framing(&s), SHB_H1_FRAME_LENGTH);
	CU_ASSERT_EQUAL(shb_h1_scan_content_length(&s), (uint64_t)1 << 62);
}

/* Transfer-Encoding overrides Content-Length in either order (RFC 9112
 * §6.3): the chunked body is read, not 3 or 99 bytes. */
#define TE_CL1 "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n" \
	       "Transfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n"
#define TE_CL2 "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n" \
	       "Content-Length: 99\r\n\r\n1\r\n!\r\n0\r\n\r\n"

static void test_length_and_chunked(void)
{
	struct vector v = {"cl + te", TXT(TE_CL1 TE_CL2), 0, 0, 2,
			   {OK(200, TE_CL1, 2, 1, CHUNKED),
			    OK(200, TE_CL2, 1, 1, CHUNKED)}};
	h1s_check_vector(&v);
}

/* RFC 9112 §5.2: an obs-fold is a space, so "2" folded with " 3" is the
 * invalid "2 3", not 2. */
static void test_fold_framing(void)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
		{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n 3\r\n\r\nabc",
		 "obs-fold in Content-Length"},
		{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\t3\r\n\r\nabc",
		 "obs-fold in Content-Length"},
		{"HTTP/1.1 200 OK\r\nContent-Length: 2\n \nX: y\n\nab",
		 "obs-fold in Content-Length"},
		{"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n 2\r\n\r\nab",
		 "obs-fold in Content-Length"},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip,\r\n chunked\r\n\r\n"
		 "2\r\nhi\r\n0\r\n\r\n",
		 "obs-fold in Transfer-Encoding"},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\t\r\n\r\n"
		 "2\r\nhi\r\n0\r\n\r\n",
		 "obs-fold in Transfer-Encoding"},
		{"HTTP/1.1 100 Continue\r\nContent-Length: 0\r\n 1\r\n\r\n"
		 "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
		 "obs-fold in Content-Length"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_error(cases[i].text, cases[i].why);
}

/* A fold of Connection adds to its list; a fold of any other header, or a
 * blank-led line right after the status line, is skipped unread even when
 * it looks like a framing header. */
#define FOLD_R1 "HTTP/1.1 200 OK\r\n Content-Length: 9\r\nX-A: 1\r\n" \
		"\tContent-Length: 8\r\n Transfer-Encoding: chunked\r\n" \
		"Content-Length: 2\r\n\r\nok"
#define FOLD_R2 "HTTP/1.1 200 OK\r\nConnection: keep-alive,\r\n close\r\n" \
		"Content-Length: 1\r\n\r\nx"

static void test_fold_other(void)
{
	struct vector v = {"folds", TXT(FOLD_R1 FOLD_R2), 0, 0, 2,
			   {OK(200, FOLD_R1, 2, 1, LENGTH),
			    OK(200, FOLD_R2, 1, 0, LENGTH)}};
	h1s_check_vector(&v);
}

static void test_bad_status(void)
{
	static const char *const bad[] = {
		"HTTP/2.0 200 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n",
		"HTTP/1.1 099 Low\r\n\r\n", "HTTP/1.1 2000 OK\r\n\r\n",
		"ICY 200 OK\r\n\r\n", "HTTP/1.x 200 OK\r\n\r\n",
		"HTTP/1.1  200 OK\r\n\r\n", "http/1.1 200 OK\r\n\r\n",
		"\r\nHTTP/1.1 200 OK\r\n\r\n", "HTTP/1.1 20\r\n\r\n",
		"HTTP/1.1 20\n\n", "HTTP/1.1 2x0 OK\r\n\r\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_error(bad[i], "bad status line");
	/* Cut short by EOF: truncation, not a malformed line. */
	check_error("HTTP/1.1 20", "connection closed mid-response");
	check_error("HTTP/1.1 200\r\n", "connection closed mid-response");
}

static void test_switching_protocols(void)
{
	check_error("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n",
		    "101 Switching Protocols is not supported");
}

static void test_bad_chunks(void)
{
	static const char head[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
	static const struct {
		const char *body, *why;
	} cases[] = {
		{"zz\r\n", "bad chunk size"},
		{";ext\r\n", "bad chunk size"},
		{"\r\n", "bad chunk size"},
		{"3\r\nabcX\r\n0\r\n\r\n", "missing CRLF after chunk data"},
		{"3\r\nabc\r\r\n", "missing CRLF after chunk data"},
		{"fffffffffffffffffff\r\n", "chunk size too large"},
		{"3\r\nab", "connection closed mid-response"},
		{"3\r\nabc\r\n0\r\nX-T: 1\r\n", "connection closed mid-response"},
	};
	char buf[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(buf, sizeof(buf), "%s%s", head, cases[i].body);
		check_error(buf, cases[i].why);
	}
}

#define GOOD_THEN_BAD "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"

static void test_error_after_good(void)
{
	struct vector v = {"good then bad", TXT(GOOD_THEN_BAD "HTTP/1.1 abc\r\n\r\n"), 0, 0, 2,
			   {OK(200, GOOD_THEN_BAD, 1, 1, LENGTH), ERR("bad status line")}};
	h1s_check_vector(&v);
}

static void test_eof_cases(void)
{
	struct shb_h1_scan s;
	size_t used;

	check_error("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabc",
		    "connection closed mid-response");
	check_error("HTTP/1.1 200 OK\r\nContent-Le", "connection closed mid-response");

	shb_h1_scan_begin(&s, 0);
	CU_ASSERT_FALSE(shb_h1_scan_started(&s));
	CU_ASSERT_EQUAL(shb_h1_scan_eof(&s), SHB_H1_SCAN_ERROR);
	CU_ASSERT_STRING_EQUAL(shb_h1_scan_reason(&s),
			       "connection closed before the response");

	/* EOF after a complete response changes nothing. */
	shb_h1_scan_begin(&s, 0);
	CU_ASSERT_EQUAL(shb_h1_scan_feed(&s, TXT(PL_R4), &used), SHB_H1_SCAN_DONE);
	CU_ASSERT_EQUAL(shb_h1_scan_eof(&s), SHB_H1_SCAN_DONE);
	CU_ASSERT_EQUAL(shb_h1_scan_status(&s), 200);
	/* Feeding after DONE consumes nothing. */
	CU_ASSERT_EQUAL(shb_h1_scan_feed(&s, TXT(PL_R4), &used), SHB_H1_SCAN_DONE);
	CU_ASSERT_EQUAL(used, 0);
}

/* ---- large heads ------------------------------------------------------- */

static uint8_t *append(uint8_t *p, const void *src, size_t n)
{
	memcpy(p, src, n);
	return p + n;
}

/* A 48 KB header skipped unread, a long header that starts like
 * "Connection", and a long Connection list that ends in "close". */
static size_t build_big(uint8_t **out)
{
	static const char pre[] = "HTTP/1.1 200 OK\r\nX-Big: ";
	static const char mid[] = "\r\nCache-Control: ";
	static const char conn[] = "\r\nConnection: ";
	static const char post[] = "close\r\nContent-Length: 4\r\n\r\nbody";
	size_t big = 48 * 1024, cc = 1000, toks = 200;
	size_t len = LEN(pre) + big + LEN(mid) + cc + LEN(conn) + toks * 5 + LEN(post);
	uint8_t *b = h1s_xmalloc(len), *p;

	p = append(b, pre, LEN(pre));
	memset(p, 'a', big);
	p = append(p + big, mid, LEN(mid));
	memset(p, 'b', cc);
	p = append(p + cc, conn, LEN(conn));
	for (size_t i = 0; i < toks; i++)
		p = append(p, "foo, ", 5);
	p = append(p, post, LEN(post));
	CU_ASSERT_FATAL((size_t)(p - b) == len);
	*out = b;
	return len;
}

static void test_big_header(void)
{
	uint8_t *b;
	size_t len = build_big(&b);
	struct vector v = {"48k header", b, len, 0, 0, 1,
			   {{0, 200, len, 4, 0, SHB_H1_FRAME_LENGTH, NULL}}};

	h1s_check_vector(&v);
	free(b);
}

/* A header line of exactly SHB_H1_MAX_LINE bytes (its CR included)
 * passes, one more byte fails, however the bytes arrive. */
static void check_long_line(size_t line, size_t piece, int ok)
{
	static const char pre[] = "HTTP/1.1 200 OK\r\n";
	/* Its first byte is the CR that ends the long line. */
	static const char post[] = "\r\nContent-Length: 0\r\n\r\n";
	size_t content = line - 1;
	size_t len = LEN(pre) + content + LEN(post);
	uint8_t *b = h1s_xmalloc(len);
	struct shb_h1_scan s;
	int rc = SHB_H1_SCAN_MORE;

	memcpy(b, pre, LEN(pre));
	memset(b + LEN(pre), 'x', content);
	memcpy(b + LEN(pre), "X-Long: ", 8);
	memcpy(b + LEN(pre) + content, post, LEN(post));
	shb_h1_scan_begin(&s, 0);
	for (size_t off = 0; off < len && rc == SHB_H1_SCAN_MORE;) {
		size_t n = len - off < piece ? len - off : piece, used;
		rc = shb_h1_scan_feed(&s, b + off, n, &used);
		off += used;
	}
	if (ok) {
		CU_ASSERT_EQUAL(rc, SHB_H1_SCAN_DONE);
		CU_ASSERT_EQUAL(shb_h1_scan_header_bytes(&s), len);
	} else {
		CU_ASSERT_EQUAL(rc, SHB_H1_SCAN_ERROR);
		CU_ASSERT_STRING_EQUAL(shb_h1_scan_reason(&s), "header line over 1 MiB");
	}
	free(b);
}

/* Feeds b[len] in pieces of `piece` bytes; returns the final rc. */
static int feed_pieces(struct shb_h1_scan *s, const uint8_t *b, size_t len,
		       size_t piece)
{
	int rc = SHB_H1_SCAN_MORE;
	shb_h1_scan_begin(s, 0);
	for (size_t off = 0; off < len && rc == SHB_H1_SCAN_MORE;) {
		size_t n = len - off < piece ? len - off : piece, used;
		rc = shb_h1_scan_feed(s, b + off, n, &used);
		off += used;
	}
	return rc;
}

/* Appends header lines "X:aaa...\r\n" of at most 1000 bytes filling
 * exactly `n` bytes (n >= 5) at b. */
static size_t fill_fields(uint8_t *b, size_t n)
{
	size_t off = 0;
	while (off < n) {
		size_t line = n - off > 1000 ? 1000 : n - off;
		if (n - off - line != 0 && n - off - line < 5)
			line -= 5; /* leave room for a last whole line */
		memcpy(b + off, "X:", 2);
		memset(b + off + 2, 'a', line - 4);
		memcpy(b + off + line - 2, "\r\n", 2);
		off += line;
	}
	return off;
}

/* A head or a trailer section of exactly SHB_H1_MAX_SECTION bytes passes,
 * one byte more fails naming the cap: endless headers end the request. */
static void check_section(int trailer, size_t total, size_t piece, int ok)
{
	static const char head[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n";
	static const char chunked[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n";
	const char *pre = trailer ? chunked : head;
	size_t plen = strlen(pre);
	/* The section: the head counts its status and Content-Length lines,
	 * the trailer only its own fields; both end with the empty line. */
	size_t counted = trailer ? 0 : plen;
	size_t len = plen + (total - counted - 2) + 2;
	uint8_t *b = h1s_xmalloc(len);
	struct shb_h1_scan s;

	memcpy(b, pre, plen);
	fill_fields(b + plen, total - counted - 2);
	memcpy(b + len - 2, "\r\n", 2);
	int rc = feed_pieces(&s, b, len, piece);
	if (ok) {
		CU_ASSERT_EQUAL(rc, SHB_H1_SCAN_DONE);
		CU_ASSERT_EQUAL(shb_h1_scan_header_bytes(&s), len);
	} else {
		CU_ASSERT_EQUAL(rc, SHB_H1_SCAN_ERROR);
		CU_ASSERT_STRING_EQUAL(shb_h1_scan_reason(&s),
				       trailer ? "trailer section over 2 MiB (cap)"
					       : "response head over 2 MiB (cap)");
	}
	free(b);
}

static void test_section_limit(void)
{
	size_t max = (size_t)SHB_H1_MAX_SECTION;
	static const size_t pieces[] = {1000000000, 4093, 1};

	for (size_t i = 0; i < 3; i++)
		for (int trailer = 0; trailer < 2; trailer++) {
			check_section(trailer, max, pieces[i], 1);
			check_section(trailer, max + 1, pieces[i], 0);
		}
}

/* 16 interim responses before the final one pass; a 17th fails. */
static void check_interims(unsigned n, size_t piece)
{
	static const char one[] = "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n";
	static const char fin[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
	size_t len = n * LEN(one) + LEN(fin);
	uint8_t *b = h1s_xmalloc(len);
	struct shb_h1_scan s;

	for (unsigned i = 0; i < n; i++)
		memcpy(b + i * LEN(one), one, LEN(one));
	memcpy(b + n * LEN(one), fin, LEN(fin));
	int rc = feed_pieces(&s, b, len, piece);
	if (n <= SHB_H1_MAX_INTERIM) {
		CU_ASSERT_EQUAL(rc, SHB_H1_SCAN_DONE);
		CU_ASSERT_EQUAL(shb_h1_scan_interim(&s), n);
		CU_ASSERT_EQUAL(shb_h1_scan_status(&s), 200);
	} else {
		CU_ASSERT_EQUAL(rc, SHB_H1_SCAN_ERROR);
		CU_ASSERT_STRING_EQUAL(shb_h1_scan_reason(&s),
				       "more than 16 interim (1xx) responses (cap 16)");
	}
	free(b);
}

static void test_interim_limit(void)
{
	for (size_t piece = 1; piece <= 64; piece *= 4) {
		check_interims(SHB_H1_MAX_INTERIM, piece);
		check_interims(SHB_H1_MAX_INTERIM + 1, piece);
		check_interims(200, piece);
	}
}

static void test_line_limit(void)
{
	size_t max = (size_t)SHB_H1_MAX_LINE;
	static const size_t pieces[] = {1000000000, 65536, 4093};

	for (size_t i = 0; i < 3; i++) {
		check_long_line(max, pieces[i], 1);
		check_long_line(max + 1, pieces[i], 0);
	}
}

CU_TestInfo shb_h1_scan_tests[] = {
	{"content-length", test_content_length},
	{"content-length list", test_content_length_list},
	{"chunked, extensions, trailers", test_chunked},
	{"1xx before 200 (100, 103)", test_interim},
	{"HEAD with Content-Length", test_head},
	{"204 and 304 without length", test_no_body},
	{"close-delimited body", test_close_delimited},
	{"last coding not chunked", test_te_not_chunked},
	{"HTTP/1.0 without keep-alive", test_http10_close},
	{"HTTP/1.0 with keep-alive", test_http10_keep_alive},
	{"HTTP/1.0 close-delimited", test_http10_eof},
	{"HTTP/1.0 chunked", test_http10_chunked},
	{"Connection: close", test_connection_close},
	{"Connection look-alikes", test_connection_lookalikes},
	{"pipelined responses", test_pipelined},
	{"bare LF line ends", test_bare_lf},
	{"status forms", test_status_forms},
	{"split inside CRLF", test_split_in_crlf},
	{"conflicting Content-Length", test_conflicting_length},
	{"bad Content-Length", test_bad_length},
	{"Content-Length lists", test_length_list_forms},
	{"huge Content-Length", test_huge_length},
	{"Content-Length with chunked", test_length_and_chunked},
	{"obs-fold in framing headers", test_fold_framing},
	{"obs-fold elsewhere", test_fold_other},
	{"bad status line", test_bad_status},
	{"101 is an error", test_switching_protocols},
	{"bad chunks", test_bad_chunks},
	{"error after a good response", test_error_after_good},
	{"EOF cases", test_eof_cases},
	{"48 KB header", test_big_header},
	{"1 MiB line limit", test_line_limit},
	{"2 MiB head and trailer section limits", test_section_limit},
	{"16 interim responses at most", test_interim_limit},
	CU_TEST_INFO_NULL,
};
