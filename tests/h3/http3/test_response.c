/* The response reader: every response fed whole, split in two at every
 * offset, one octet at a time, and with the FIN alone. */
#include "http3_tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h3_defs.h"
#include "h3_response.h"
#include "http_huffman.h"

static struct shb_h3t_buf msg, sec;

struct want {
	int rc;
	uint32_t status;
	uint32_t interim;
	uint64_t body_bytes;
	uint64_t error;
};

static void check(const struct shb_h3_resp *r, int rc, const struct want *w)
{
	CU_ASSERT_EQUAL(rc, w->rc);
	if (rc != w->rc)
		return;
	if (rc == SHB_H3_RESP_DONE) {
		CU_ASSERT_EQUAL(r->status, w->status);
		CU_ASSERT_EQUAL(r->interim, w->interim);
		CU_ASSERT_EQUAL(r->body_bytes, w->body_bytes);
		CU_ASSERT_EQUAL(r->header_bytes + r->body_bytes, msg.n);
		CU_ASSERT_EQUAL(r->error, 0);
	} else {
		CU_ASSERT_EQUAL(r->error, w->error);
		CU_ASSERT_PTR_NOT_NULL(r->detail);
	}
	/* A finished reader stays finished. */
	CU_ASSERT_EQUAL(shb_h3_resp_feed((struct shb_h3_resp *)r, msg.b, 1, 1),
			rc);
}

static int feed_two(struct shb_h3_resp *r, size_t cut)
{
	int rc;

	shb_h3_resp_init(r);
	rc = shb_h3_resp_feed(r, msg.b, cut, 0);
	if (rc != SHB_H3_RESP_MORE)
		return rc;
	return shb_h3_resp_feed(r, msg.b + cut, msg.n - cut, 1);
}

static int feed_bytewise(struct shb_h3_resp *r)
{
	int rc = SHB_H3_RESP_MORE;

	shb_h3_resp_init(r);
	for (size_t i = 0; i < msg.n && rc == SHB_H3_RESP_MORE; i++)
		rc = shb_h3_resp_feed(r, msg.b + i, 1, i + 1 == msg.n);
	if (msg.n == 0)
		rc = shb_h3_resp_feed(r, NULL, 0, 1);
	return rc;
}

/* Split offsets tried by expect(): every one unless a test with a large
 * message sets a stride (every Huffman octet is decoded, so all splits of
 * a 48 KB section would take minutes in a debug build). */
static size_t cut_stride = 1;

/* `msg` must give `w` however it is delivered. */
static void expect(const struct want *w)
{
	struct shb_h3_resp r;
	int rc;

	for (size_t cut = 0; cut <= msg.n; cut += cut_stride) {
		rc = feed_two(&r, cut);
		check(&r, rc, w);
	}
	check(&r, feed_bytewise(&r), w);
	/* All bytes first, then the FIN alone. */
	shb_h3_resp_init(&r);
	rc = shb_h3_resp_feed(&r, msg.b, msg.n, 0);
	if (rc == SHB_H3_RESP_MORE) {
		if (w->rc == SHB_H3_RESP_DONE)
			CU_ASSERT_EQUAL(r.status, w->status);
		rc = shb_h3_resp_feed(&r, NULL, 0, 1);
	}
	check(&r, rc, w);
}

static void expect_done(uint32_t status, uint32_t interim, uint64_t body)
{
	struct want w = {SHB_H3_RESP_DONE, status, interim, body, 0};

	expect(&w);
}

static void expect_error(int rc, uint64_t code)
{
	struct want w = {rc, 0, 0, 0, code};

	expect(&w);
}

/* ---- message builders ---------------------------------------------------- */

static void headers_hex(const char *section_hex)
{
	shb_h3t_clear(&sec);
	shb_h3t_hex(&sec, section_hex);
	shb_h3t_frame(&msg, SHB_H3_FRAME_HEADERS, sec.b, sec.n);
}

static void data(const char *s)
{
	shb_h3t_frame(&msg, SHB_H3_FRAME_DATA, s, strlen(s));
}

static void frame_hex(uint64_t type, const char *payload_hex)
{
	uint8_t p[256];
	size_t n = shb_h3t_unhex(p, sizeof(p), payload_hex);

	shb_h3t_frame(&msg, type, p, n);
}

static void start(void)
{
	shb_h3t_clear(&msg);
}

/* ---- complete responses -------------------------------------------------- */

static void test_200_with_data(void)
{
	start();
	/* :status 200, content-type text/html, x-foo: bar */
	headers_hex("0000 d9 f4 25 782d666f6f 03 626172");
	data("hello ");
	data("");
	data("world");
	expect_done(200, 0, 11);
	/* No body at all. */
	start();
	headers_hex("0000 ff01"); /* 204 */
	expect_done(204, 0, 0);
}

static void test_interim_then_final(void)
{
	start();
	/* 103 with a link header, then 200. */
	headers_hex("0000 d8 5b 0b 3c2f612e6373733e3b2072");
	headers_hex("0000 d9");
	data("body");
	expect_done(200, 1, 4);
	/* 100, 103, then 500 without body. */
	start();
	headers_hex("0000 ff00");
	headers_hex("0000 d8");
	headers_hex("0000 ff08");
	expect_done(500, 2, 0);
	/* A 1xx that only a literal can carry (199). */
	start();
	headers_hex("0000 5f0a 03 313939");
	headers_hex("0000 dc"); /* 503 */
	expect_done(503, 1, 0);
}

static void test_trailers(void)
{
	start();
	headers_hex("0000 d9");
	data("abc");
	headers_hex("0000 2700 782d636865636b 03 616263"); /* x-check: abc */
	expect_done(200, 0, 3);
	/* Trailers right after the header section (empty body). */
	start();
	headers_hex("0000 d9");
	headers_hex("0000 2700 782d636865636b 00");
	expect_done(200, 0, 0);
}

static void test_unknown_frames_interleaved(void)
{
	start();
	frame_hex(0x21, "00112233");              /* reserved, before all */
	frame_hex(0x1f * 1000 + 0x21, "");        /* 4-octet type, empty */
	headers_hex("0000 d8");
	frame_hex(0x0a, "ff");                    /* unassigned type */
	headers_hex("0000 d9");
	frame_hex(UINT64_C(0x3fffffffffffffff), "01"); /* 8-octet type */
	data("xy");
	frame_hex(0x40, "");                      /* reserved, 0x1f + 0x21 */
	data("z");
	headers_hex("0000 5600");                 /* trailers: date */
	frame_hex(0x5e, "0102030405");            /* after the trailers */
	expect_done(200, 1, 3);
}

static void test_huffman_status(void)
{
	uint8_t huff[8];
	size_t hn;

	start();
	headers_hex("0000 5f0a 82 1001"); /* name of 25, Huffman "200" */
	data("ok");
	expect_done(200, 0, 2);
	/* Huffman-coded literal name and value. */
	hn = shb_huff_encode((const uint8_t *)":status", 7, huff, sizeof(huff));
	shb_h3t_clear(&sec);
	shb_h3t_hex(&sec, "0000");
	shb_h3t_prefint(&sec, 3, 0x28, hn);
	shb_h3t_bytes(&sec, huff, hn);
	hn = shb_huff_encode((const uint8_t *)"404", 3, huff, sizeof(huff));
	shb_h3t_prefint(&sec, 7, 0x80, hn);
	shb_h3t_bytes(&sec, huff, hn);
	start();
	shb_h3t_frame(&msg, SHB_H3_FRAME_HEADERS, sec.b, sec.n);
	expect_done(404, 0, 0);
}

/* A 48 KB header section: many literal lines of every length class. */
static void test_large_header_section(void)
{
	static char value[300];
	char name[32];
	uint8_t huff[512];
	size_t hn;

	memset(value, 'v', sizeof(value));
	shb_h3t_clear(&sec);
	shb_h3t_hex(&sec, "0000 d9");
	for (int i = 0; sec.n < 48 * 1024; i++) {
		size_t vlen = (size_t)(i * 37) % sizeof(value);
		int nlen = snprintf(name, sizeof(name), "x-filler-%d", i);

		if (i % 3 == 0) {
			shb_h3t_prefint(&sec, 3, 0x20, (uint64_t)nlen);
			shb_h3t_bytes(&sec, name, (size_t)nlen);
			shb_h3t_prefint(&sec, 7, 0x00, vlen);
			shb_h3t_bytes(&sec, value, vlen);
		} else if (i % 3 == 1) {
			hn = shb_huff_encode((const uint8_t *)value, vlen,
					     huff, sizeof(huff));
			shb_h3t_hex(&sec, "5f 4d"); /* server */
			shb_h3t_prefint(&sec, 7, 0x80, hn);
			shb_h3t_bytes(&sec, huff, hn);
		} else {
			/* static entries 29..48: no :status among them */
			shb_h3t_prefint(&sec, 6, 0xc0, (uint64_t)(i % 20 + 29));
		}
	}
	CU_ASSERT(sec.n >= 48 * 1024);
	start();
	shb_h3t_frame(&msg, SHB_H3_FRAME_HEADERS, sec.b, sec.n);
	data("tail");
	cut_stride = 61;
	expect_done(200, 0, 4);
	cut_stride = 1;
}

/* A HEADERS frame of exactly MAX_FIELD_SECTION_SIZE (256 KiB) octets is
 * accepted when it decodes to no more than that: a Huffman value of NUL
 * octets (13 bits each) is shorter decoded than encoded. */
static void test_max_size_section(void)
{
	static uint8_t zeros[200000], huff[SHB_H3T_MAX];
	const size_t max = (size_t)SHB_H3_LOCAL_MAX_FIELD_SECTION_SIZE;
	struct shb_h3_resp r;
	size_t hn;

	hn = shb_huff_encode(zeros, 161000, huff, sizeof(huff));
	shb_h3t_clear(&sec);
	shb_h3t_hex(&sec, "0000 d9 52");
	shb_h3t_prefint(&sec, 7, 0x80, hn);
	shb_h3t_bytes(&sec, huff, hn);
	while (sec.n < max)
		shb_h3t_hex(&sec, "c2"); /* age: 0 */
	CU_ASSERT_EQUAL_FATAL(sec.n, max);
	start();
	shb_h3t_frame(&msg, SHB_H3_FRAME_HEADERS, sec.b, sec.n);
	CU_ASSERT_EQUAL_FATAL(msg.n, 5 + max);
	shb_h3_resp_init(&r);
	CU_ASSERT_EQUAL(shb_h3_resp_feed(&r, msg.b, msg.n, 1), SHB_H3_RESP_DONE);
	CU_ASSERT_EQUAL(r.status, 200);
	CU_ASSERT_EQUAL(r.header_bytes, msg.n);
	CU_ASSERT(r.qd.size <= max);
	/* One octet more is refused at the frame header. */
	shb_h3t_unhex(msg.b, 5, "01 80040001");
	shb_h3_resp_init(&r);
	CU_ASSERT_EQUAL(shb_h3_resp_feed(&r, msg.b, 5, 0), SHB_H3_RESP_E_STREAM);
	CU_ASSERT_EQUAL(r.error, SHB_H3_EXCESSIVE_LOAD);
}

/* A short frame that decodes above the cap (one-octet static lines of 36
 * decoded octets each) is a connection error naming the cap. */
static void test_decoded_size_cap(void)
{
	struct want done = {SHB_H3_RESP_DONE, 200, 0, 0, 0};
	struct want err = {SHB_H3_RESP_E_CONN, 0, 0, 0, SHB_H3_EXCESSIVE_LOAD};
	struct shb_h3_resp r;

	shb_h3t_clear(&sec);
	shb_h3t_hex(&sec, "0000 d9");
	for (int i = 0; i < 7280; i++)
		shb_h3t_hex(&sec, "c2"); /* age: 0 */
	start();
	shb_h3t_frame(&msg, SHB_H3_FRAME_HEADERS, sec.b, sec.n);
	/* 42 + 7280 * 36 = 262122 octets. Every split would be quadratic
	 * (7285 octets, each a line): a stride. */
	for (size_t cut = 0; cut <= msg.n; cut += 97)
		check(&r, feed_two(&r, cut), &done);
	check(&r, feed_bytewise(&r), &done);
	shb_h3t_hex(&sec, "c2"); /* one line more: 262158 octets */
	start();
	shb_h3t_frame(&msg, SHB_H3_FRAME_HEADERS, sec.b, sec.n);
	for (size_t cut = 0; cut <= msg.n; cut += 97)
		check(&r, feed_two(&r, cut), &err);
	check(&r, feed_bytewise(&r), &err);
	CU_ASSERT_STRING_EQUAL(r.detail, "decoded field section above 262144 "
					 "octets (cap 262144)");
}

/* Up to 16 interim responses, then H3_EXCESSIVE_LOAD (a stream error). */
static void test_interim_cap(void)
{
	struct shb_h3_resp r;

	start();
	for (int i = 0; i < 16; i++)
		headers_hex(i % 2 ? "0000 d8" : "0000 ff00"); /* 103, 100 */
	headers_hex("0000 d9");
	data("ok");
	expect_done(200, 16, 2);
	start();
	for (int i = 0; i < 17; i++)
		headers_hex("0000 d8");
	headers_hex("0000 d9");
	expect_error(SHB_H3_RESP_E_STREAM, SHB_H3_EXCESSIVE_LOAD);
	shb_h3_resp_init(&r);
	CU_ASSERT_EQUAL(shb_h3_resp_feed(&r, msg.b, msg.n, 0),
			SHB_H3_RESP_E_STREAM);
	CU_ASSERT_STRING_EQUAL(r.detail, "more than 16 interim (1xx) "
					 "responses (cap 16)");
	CU_ASSERT_EQUAL(r.interim, 17);
	/* 101 has no meaning in HTTP/3 (RFC 9114 Section 4.5). */
	start();
	headers_hex("0000 5f0a 03 313031");
	headers_hex("0000 d9");
	expect_error(SHB_H3_RESP_E_STREAM, SHB_H3_MESSAGE_ERROR);
}

/* Malformed sections (RFC 9114 Sections 4.1.2, 4.2, 4.3) are stream
 * errors; bad Huffman anywhere is a connection error. */
static void test_malformed_sections(void)
{
	static const char *const stream[] = {
		"0000 d9 c1",              /* :path in a response */
		"0000 d9 24 3a666f6f 00",  /* unknown pseudo-header */
		"0000 f4 d9",              /* :status after a regular field */
		"0000 d9 d9",              /* two :status */
		"0000 d9 25 582d466f6f 00", /* uppercase name "X-Foo" */
	};

	for (size_t i = 0; i < sizeof(stream) / sizeof(stream[0]); i++) {
		start();
		headers_hex(stream[i]);
		data("x");
		expect_error(SHB_H3_RESP_E_STREAM, SHB_H3_MESSAGE_ERROR);
	}
	start(); /* in an interim response too */
	headers_hex("0000 d8 c1");
	headers_hex("0000 d9");
	expect_error(SHB_H3_RESP_E_STREAM, SHB_H3_MESSAGE_ERROR);
	start(); /* Huffman padding of a plain header's value */
	headers_hex("0000 d9 52 81 18");
	expect_error(SHB_H3_RESP_E_CONN, SHB_QPACK_DECOMPRESSION_FAILED);
	start(); /* EOS inside a name */
	headers_hex("0000 d9 2c ffffffff 00");
	expect_error(SHB_H3_RESP_E_CONN, SHB_QPACK_DECOMPRESSION_FAILED);
}

/* No pseudo-header in trailers, :status or any other (Section 4.3). */
static void test_trailer_pseudo(void)
{
	static const char *const trailers[] = {
		"0000 d9",
		"0000 56 00 c1",
		"0000 5f0a 03 323030",
	};
	struct shb_h3_resp r;

	for (size_t i = 0; i < sizeof(trailers) / sizeof(trailers[0]); i++) {
		start();
		headers_hex("0000 d9");
		data("abc");
		headers_hex(trailers[i]);
		expect_error(SHB_H3_RESP_E_STREAM, SHB_H3_MESSAGE_ERROR);
	}
	shb_h3_resp_init(&r);
	CU_ASSERT_EQUAL(shb_h3_resp_feed(&r, msg.b, msg.n, 1),
			SHB_H3_RESP_E_STREAM);
	CU_ASSERT_STRING_EQUAL(r.detail, "pseudo-header field in the trailers");
}

/* ---- errors -------------------------------------------------------------- */

static void test_frame_order_errors(void)
{
	start();
	data("x");
	headers_hex("0000 d9");
	expect_error(SHB_H3_RESP_E_CONN, SHB_H3_FRAME_UNEXPECTED);
	start(); /* DATA after an interim response only */
	headers_hex("0000 d8");
	data("x");
	expect_error(SHB_H3_RESP_E_CONN, SHB_H3_FRAME_UNEXPECTED);
	start(); /* DATA after the trailers */
	headers_hex("0000 d9");
	data("x");
	headers_hex("0000 5600");
	data("y");
	expect_error(SHB_H3_RESP_E_CONN, SHB_H3_FRAME_UNEXPECTED);
	start(); /* HEADERS after the trailers */
	headers_hex("0000 d9");
	headers_hex("0000 5600");
	headers_hex("0000 5600");
	expect_error(SHB_H3_RESP_E_CONN, SHB_H3_FRAME_UNEXPECTED);
	start(); /* a second final HEADERS: :status in the trailer position */
	headers_hex("0000 d9");
	headers_hex("0000 d9");
	expect_error(SHB_H3_RESP_E_STREAM, SHB_H3_MESSAGE_ERROR);
	start(); /* ... also after DATA */
	headers_hex("0000 d9");
	data("x");
	headers_hex("0000 d8");
	expect_error(SHB_H3_RESP_E_STREAM, SHB_H3_MESSAGE_ERROR);
}

static void test_forbidden_frames(void)
{
	static const uint64_t unexpected[] = {
		SHB_H3_FRAME_CANCEL_PUSH, SHB_H3_FRAME_SETTINGS,
		SHB_H3_FRAME_GOAWAY, SHB_H3_FRAME_MAX_PUSH_ID,
		SHB_H3_FRAME_H2_PRIORITY, SHB_H3_FRAME_H2_PING,
		SHB_H3_FRAME_H2_WINDOW_UPDATE, SHB_H3_FRAME_H2_CONTINUATION,
	};

	for (size_t i = 0; i < sizeof(unexpected) / sizeof(unexpected[0]);
	     i++) {
		start();
		headers_hex("0000 d9");
		frame_hex(unexpected[i], "00");
		expect_error(SHB_H3_RESP_E_CONN, SHB_H3_FRAME_UNEXPECTED);
	}
	start();
	headers_hex("0000 d9");
	frame_hex(SHB_H3_FRAME_PUSH_PROMISE, "00 0000 d1");
	expect_error(SHB_H3_RESP_E_CONN, SHB_H3_ID_ERROR);
}

static void test_fin_errors(void)
{
	start(); /* nothing at all */
	expect_error(SHB_H3_RESP_E_STREAM, SHB_H3_REQUEST_INCOMPLETE);
	start(); /* only an interim response */
	headers_hex("0000 d8");
	expect_error(SHB_H3_RESP_E_STREAM, SHB_H3_REQUEST_INCOMPLETE);
	start(); /* only unknown frames */
	frame_hex(0x21, "aa");
	expect_error(SHB_H3_RESP_E_STREAM, SHB_H3_REQUEST_INCOMPLETE);
	start(); /* truncated DATA */
	headers_hex("0000 d9");
	shb_h3t_hex(&msg, "00 05 6162");
	expect_error(SHB_H3_RESP_E_CONN, SHB_H3_FRAME_ERROR);
	start(); /* truncated HEADERS */
	shb_h3t_hex(&msg, "01 04 0000 d9");
	expect_error(SHB_H3_RESP_E_CONN, SHB_H3_FRAME_ERROR);
	start(); /* a frame type without its length */
	headers_hex("0000 d9");
	shb_h3t_hex(&msg, "00");
	expect_error(SHB_H3_RESP_E_CONN, SHB_H3_FRAME_ERROR);
	start(); /* half a two-octet frame length */
	headers_hex("0000 d9");
	shb_h3t_hex(&msg, "00 40");
	expect_error(SHB_H3_RESP_E_CONN, SHB_H3_FRAME_ERROR);
}

static void test_section_errors(void)
{
	start();
	headers_hex("0000 5f1d 00"); /* no :status */
	expect_error(SHB_H3_RESP_E_STREAM, SHB_H3_MESSAGE_ERROR);
	start();
	headers_hex("0000 5f0a 02 3230"); /* :status "20" */
	expect_error(SHB_H3_RESP_E_STREAM, SHB_H3_MESSAGE_ERROR);
	start();
	headers_hex("0000 d9 81"); /* dynamic reference */
	expect_error(SHB_H3_RESP_E_CONN, SHB_QPACK_DECOMPRESSION_FAILED);
	start();
	headers_hex("0000 d9 10"); /* post-base reference */
	expect_error(SHB_H3_RESP_E_CONN, SHB_QPACK_DECOMPRESSION_FAILED);
	start();
	headers_hex("0100 d9"); /* Required Insert Count 1 */
	expect_error(SHB_H3_RESP_E_CONN, SHB_QPACK_DECOMPRESSION_FAILED);
	start();
	headers_hex(""); /* empty HEADERS */
	expect_error(SHB_H3_RESP_E_CONN, SHB_QPACK_DECOMPRESSION_FAILED);
	start();
	headers_hex("0000 d9 51"); /* ends inside a line */
	data("x");
	expect_error(SHB_H3_RESP_E_CONN, SHB_QPACK_DECOMPRESSION_FAILED);
	start();
	headers_hex("0000 d9 51 05 61"); /* value longer than the frame */
	data("x");
	expect_error(SHB_H3_RESP_E_CONN, SHB_QPACK_DECOMPRESSION_FAILED);
	start(); /* oversized, nothing of its payload needed */
	shb_h3t_hex(&msg, "01 80100001 0000");
	expect_error(SHB_H3_RESP_E_STREAM, SHB_H3_EXCESSIVE_LOAD);
}

CU_TestInfo shb_h3t_response_tests[] = {
	{"200 with DATA", test_200_with_data},
	{"interim then final", test_interim_then_final},
	{"trailers", test_trailers},
	{"unknown frames interleaved", test_unknown_frames_interleaved},
	{"Huffman-coded :status", test_huffman_status},
	{"48 KB header section", test_large_header_section},
	{"256 KiB HEADERS boundary", test_max_size_section},
	{"decoded size above 256 KiB", test_decoded_size_cap},
	{"at most 16 interim responses", test_interim_cap},
	{"malformed field sections", test_malformed_sections},
	{"pseudo-headers in trailers", test_trailer_pseudo},
	{"frame order errors", test_frame_order_errors},
	{"frames not allowed on a request stream", test_forbidden_frames},
	{"FIN errors", test_fin_errors},
	{"field section errors", test_section_errors},
	CU_TEST_INFO_NULL,
};
