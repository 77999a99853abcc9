/* The connection's streams (test_h2_conn.c has the set-up): GOAWAY and
 * EOF, malformed responses that reset one stream, status forms, resets,
 * the peer's table size, CONTINUATION both ways, stream ids and slots,
 * cancel, shutdown, output buffers, --disable-keepalive, debug traces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_fixture.h"
#include "http_huffman.h"
#include "http_prefint.h"

/* ---- streams ------------------------------------------------------------------ */

static void test_goaway_refuses_above_line(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	uint64_t c[4];

	shb_h2_fx_open(&f, 0, 8, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	for (int i = 0; i < 4; i++)
		c[i] = shb_h2_fx_issue(&f); /* streams 1, 3, 5, 7 */
	shb_h2_fx_flush(&f, 0);
	shb_h2_srv_goaway(&b, 3, SHB_H2_NO_ERROR, "");
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL_FATAL(shb_h2_kit.done_count, 2);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c[2])->res.outcome, SHB_REQ_REFUSED);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c[3])->res.outcome, SHB_REQ_REFUSED);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c[3])->res.err_space, SHB_ERRSPACE_H2);
	CU_ASSERT_EQUAL_FATAL(shb_h2_kit.event_count, 2);
	CU_ASSERT_EQUAL(shb_h2_kit.events[1].ev.kind, SHB_CEV_GOAWAY);
	CU_ASSERT_EQUAL(shb_h2_kit.events[1].ev.err_space, SHB_ERRSPACE_H2);
	CU_ASSERT_EQUAL(shb_h2_kit.events[1].ev.err_code, SHB_H2_NO_ERROR);
	CU_ASSERT_EQUAL(shb_h2_kit.events[1].ev.last_accepted, 3);
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 0);
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_DRAINING);
	CU_ASSERT_EQUAL(shb_h2_fx_issue_rc(&f, 1), SHB_E_BUSY);
	b.len = 0;
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 200);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_DRAINING);
	b.len = 0;
	shb_h2_srv_status(&b, 3, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 204);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c[1])->res.status, 204);
	/* Drained: the core closes and replaces it. */
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_DRAINING | SHB_CS_CLOSED);
	/* Frames for the refused streams are dropped. */
	b.len = 0;
	shb_h2_srv_status(&b, 5, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 200);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 4);
	/* EOF now is clean. */
	CU_ASSERT_EQUAL(shb_h2_fx_recv_eof(&f), SHB_OK);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

static void test_goaway_with_error_then_eof(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};

	shb_h2_fx_open(&f, 0, 8, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	shb_h2_fx_issue(&f);
	shb_h2_fx_issue(&f);
	shb_h2_srv_goaway(&b, 0x7fffffff, SHB_H2_ENHANCE_YOUR_CALM, "calm\x01");
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 0);
	CU_ASSERT_STRING_EQUAL(shb_h2_kit.events[1].detail, "calm?");
	CU_ASSERT_EQUAL(shb_h2_kit.events[1].ev.err_code, SHB_H2_ENHANCE_YOUR_CALM);
	CU_ASSERT_EQUAL(shb_h2_fx_recv_eof(&f), SHB_E_CLOSED);
	CU_ASSERT_STRING_EQUAL(shb_h2_fx_error_detail(&f),
			       "h2: the server closed the connection after "
			       "GOAWAY (ENHANCE_YOUR_CALM) with 2 streams open");
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_CLOSED);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

static void test_eof(void)
{
	struct shb_h2_fx f;

	/* idle: clean */
	shb_h2_fx_open(&f, 0, 2, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	CU_ASSERT_EQUAL(shb_h2_fx_recv_eof(&f), SHB_OK);
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_CLOSED);
	shb_h2_fx_close(&f);
	/* before the server said anything */
	shb_h2_fx_open(&f, 0, 2, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_issue(&f);
	CU_ASSERT_EQUAL(shb_h2_fx_recv_eof(&f), SHB_E_CLOSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(shb_h2_fx_error_detail(&f), "before its SETTINGS"));
	shb_h2_fx_close(&f);
	/* mid-response */
	shb_h2_fx_open(&f, 0, 2, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	shb_h2_fx_issue(&f);
	CU_ASSERT_EQUAL(shb_h2_fx_recv_eof(&f), SHB_E_CLOSED);
	CU_ASSERT_STRING_EQUAL(shb_h2_fx_error_detail(&f),
			       "h2: the server closed the connection with 1 streams open");
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 0);
	shb_h2_fx_close(&f);
}
static void test_malformed_responses(void)
{
	struct shb_h2_bytes b = {0};

	shb_h2_srv_frame(&b, SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x40\x01\x61\x01\x62", 5);
	shb_h2_fx_stream_error(&b, "response head without :status");
	b.len = 0;
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x08\x02\x32\x30", 4);
	shb_h2_fx_stream_error(&b, "malformed :status (not three digits 100-999)");
	b.len = 0;
	shb_h2_srv_data(&b, 1, 0, "early");
	shb_h2_fx_stream_error(&b, "DATA before the response headers");
	b.len = 0;
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 100);
	shb_h2_fx_stream_error(&b, "invalid interim response");
	b.len = 0;
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 101);
	shb_h2_fx_stream_error(&b, "invalid interim response");
	b.len = 0;
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 200);
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x40\x01\x61\x01\x62", 5);
	shb_h2_fx_stream_error(&b, "header block after the response head without END_STREAM");
	b.len = 0;
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 200);
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 200);
	shb_h2_fx_stream_error(&b, "a second response head (:status in trailers)");
	b.len = 0;
	shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 1, 0);
	shb_h2_fx_stream_error(&b, "stream WINDOW_UPDATE of 0");
	b.len = 0;
	shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 1, 0x7fffffff);
	shb_h2_fx_stream_error(&b, "stream window above 2^31-1");
	shb_h2_bytes_free(&b);
}

static void test_status_forms_on_the_wire(void)
{
	static const int codes[] = {200, 204, 206, 304, 400, 404, 500, 103,
				    201, 302, 418, 503, 599, 999};
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};

	shb_h2_fx_open(&f, 0, 32, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		uint64_t c = shb_h2_fx_issue(&f);
		uint32_t sid = 2 * (uint32_t)i + 1;

		b.len = 0;
		if (codes[i] < 200) /* an interim head, then the final one */
			shb_h2_srv_status(&b, sid, SHB_H2_FLAG_END_HEADERS, codes[i]);
		shb_h2_srv_status(&b, sid,
				  SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM,
				  codes[i] < 200 ? 302 : codes[i]);
		CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(shb_h2_fx_done(c));
		CU_ASSERT_EQUAL(shb_h2_fx_done(c)->res.status,
				(uint32_t)(codes[i] < 200 ? 302 : codes[i]));
		CU_ASSERT_EQUAL(shb_h2_fx_done(c)->res.outcome, SHB_REQ_OK);
	}
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

/* A template's HEADERS frame is made once and copied with each stream's
 * id: the same octets as the block framed for it, END_STREAM only
 * without a body. */
static void check_template_frames(const uint8_t *body, size_t body_len)
{
	struct shb_h2_fx f;
	struct shb_h2_fx_frame fr[8];
	const struct shb_h2_request *r;
	uint8_t flags = SHB_H2_FLAG_END_HEADERS |
			(body_len ? 0 : SHB_H2_FLAG_END_STREAM);
	size_t n, k = 0;

	shb_h2_fx_open(&f, 0, 4, body, body_len, NULL, 0, 0);
	r = f.prep;
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->frame);
	CU_ASSERT_EQUAL(r->frame[0] << 16 | r->frame[1] << 8 | r->frame[2],
			(int)r->block_len);
	CU_ASSERT_EQUAL(r->frame[3], SHB_H2_HEADERS);
	CU_ASSERT_EQUAL(r->frame[4], flags);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	for (int i = 0; i < 3; i++)
		shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	n = shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 8);
	for (size_t i = 0; i < n; i++) {
		if (fr[i].h.type == SHB_H2_DATA)
			continue;
		CU_ASSERT_EQUAL(fr[i].h.type, SHB_H2_HEADERS);
		CU_ASSERT_EQUAL(fr[i].h.stream_id, 2 * k + 1);
		CU_ASSERT_EQUAL(fr[i].h.flags, flags);
		CU_ASSERT_EQUAL_FATAL(fr[i].h.length, r->block_len);
		CU_ASSERT_EQUAL(memcmp(fr[i].payload, r->block, r->block_len), 0);
		k++;
	}
	CU_ASSERT_EQUAL(k, 3);
	CU_ASSERT_EQUAL(n, body_len ? 6 : 3);
	shb_h2_fx_close(&f);
}

static void test_template_frame(void)
{
	check_template_frames(NULL, 0);
	check_template_frames((const uint8_t *)"abc", 3);
}

static void test_refused_and_reset(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	uint64_t c1, c2;

	shb_h2_fx_open(&f, 0, 4, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	c1 = shb_h2_fx_issue(&f);
	c2 = shb_h2_fx_issue(&f);
	/* REFUSED_STREAM may even come before the SETTINGS is processed
	 * by us, right after it. */
	shb_h2_srv_settings(&b, shb_h2_fx_nginx_settings, 3);
	shb_h2_srv_u32(&b, SHB_H2_RST_STREAM, 1, SHB_H2_REFUSED_STREAM);
	shb_h2_srv_u32(&b, SHB_H2_RST_STREAM, 3, SHB_H2_CANCEL);
	/* a late RST for a finished stream is ignored */
	shb_h2_srv_u32(&b, SHB_H2_RST_STREAM, 3, SHB_H2_NO_ERROR);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL_FATAL(shb_h2_kit.done_count, 2);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c1)->res.outcome, SHB_REQ_REFUSED);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c1)->res.err_code, SHB_H2_REFUSED_STREAM);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c2)->res.outcome, SHB_REQ_RESET);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c2)->res.err_space, SHB_ERRSPACE_H2);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c2)->res.err_code, SHB_H2_CANCEL);
	CU_ASSERT_STRING_EQUAL(shb_h2_fx_done(c2)->detail,
			       "h2: stream reset by the server (CANCEL)");
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 4);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

/* Peer lowers HEADER_TABLE_SIZE: the next block starts with a size
 * update, once. */
static void test_table_size_update(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	struct shb_h2_fx_frame fr[4];
	const struct shb_h2_request *r;
	static const struct shb_h2_setting_kv lower[] = {
		{SHB_H2_SET_HEADER_TABLE_SIZE, 100}};
	static const struct shb_h2_setting_kv raise[] = {
		{SHB_H2_SET_HEADER_TABLE_SIZE, 8192}};
	static const struct shb_h2_setting_kv zero[] = {
		{SHB_H2_SET_HEADER_TABLE_SIZE, 0}};
	static const struct shb_h2_setting_kv same[] = {
		{SHB_H2_SET_HEADER_TABLE_SIZE, 4096}};

	shb_h2_fx_open(&f, 0, 8, NULL, 0, NULL, 0, 0);
	r = f.prep;
	shb_h2_fx_ready(&f);
	shb_h2_srv_settings(&b, same, 1);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	shb_h2_fx_issue(&f);
	b.len = 0;
	shb_h2_srv_settings(&b, lower, 1);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	shb_h2_fx_issue(&f);
	shb_h2_fx_issue(&f);
	b.len = 0;
	shb_h2_srv_settings(&b, raise, 1);
	shb_h2_srv_settings(&b, zero, 1);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	{
		struct shb_h2_fx_frame all[16];
		size_t n = shb_h2_fx_frames(f.sent.p, f.sent.len, all, 16), k = 0;

		for (size_t i = 0; i < n && k < 4; i++)
			if (all[i].h.type == SHB_H2_HEADERS)
				fr[k++] = all[i];
		CU_ASSERT_EQUAL_FATAL(k, 4);
	}
	/* 4096: nothing; 100: 0x3f 0x45; then nothing; 0: 0x20 */
	CU_ASSERT_EQUAL(fr[0].h.length, r->block_len);
	CU_ASSERT_EQUAL(fr[1].h.length, r->block_len + 2);
	CU_ASSERT_EQUAL(fr[1].payload[0], 0x3f);
	CU_ASSERT_EQUAL(fr[1].payload[1], 100 - 31);
	CU_ASSERT_EQUAL(memcmp(fr[1].payload + 2, r->block, r->block_len), 0);
	CU_ASSERT_EQUAL(fr[2].h.length, r->block_len);
	CU_ASSERT_EQUAL(fr[3].h.length, r->block_len + 1);
	CU_ASSERT_EQUAL(fr[3].payload[0], 0x20);
	CU_ASSERT_EQUAL(memcmp(fr[3].payload + 1, r->block, r->block_len), 0);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

/* A 48 KB response header block over HEADERS + CONTINUATION. */
static void test_continuation_48k(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes blk = {0}, b = {0};
	uint64_t c;
	size_t off = 0, frames = 0;

	shb_h2_bytes_add(&blk, "\x89", 1);
	while (blk.len < 48 * 1024) {
		static const uint8_t field[] = {
			0x00, 5, 'x', '-', 'a', 'b', 'c', 20, 'v', 'v', 'v',
			'v',  'v', 'v', 'v', 'v', 'v', 'v', 'v', 'v', 'v', 'v',
			'v',  'v', 'v', 'v', 'v', 'v'};
		shb_h2_bytes_add(&blk, field, sizeof(field));
	}
	shb_h2_fx_open(&f, 0, 2, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	c = shb_h2_fx_issue(&f);
	while (off < blk.len) {
		size_t n = blk.len - off < 16384 ? blk.len - off : 16384;
		uint8_t flags = off + n == blk.len ? SHB_H2_FLAG_END_HEADERS : 0;

		if (off == 0)
			flags |= SHB_H2_FLAG_END_STREAM;
		shb_h2_srv_frame(&b, off ? SHB_H2_CONTINUATION : SHB_H2_HEADERS,
				 flags, 1, blk.p + off, n);
		off += n;
		frames++;
	}
	CU_ASSERT_EQUAL(frames, 4);
	for (size_t i = 0; i < b.len; i += 4000) {
		size_t n = b.len - i < 4000 ? b.len - i : 4000;

		CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p + i, n), (shb_ssize)n);
	}
	CU_ASSERT_EQUAL_FATAL(shb_h2_kit.done_count, 1);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c)->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c)->res.status, 204);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c)->res.rx_header_bytes, blk.len + 9 * frames);
	shb_h2_bytes_free(&blk);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

/* A request header block above the peer's max frame size goes out as
 * HEADERS + CONTINUATION. */
static void test_request_continuation(void)
{
	static char big[40000];
	struct shb_kv hdr = {"x-big", big};
	struct shb_h2_fx f;
	struct shb_h2_fx_frame fr[8];
	const struct shb_h2_request *r;
	struct shb_h2_bytes joined = {0};
	size_t n;

	memset(big, 'q', sizeof(big) - 1);
	shb_h2_fx_open(&f, 0, 2, (const uint8_t *)"body", 4, &hdr, 1, 0);
	r = f.prep;
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f); /* MAX_FRAME_SIZE 16777215: one frame */
	shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	n = shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 8);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(fr[0].h.type, SHB_H2_HEADERS);
	CU_ASSERT_EQUAL(fr[0].h.flags, SHB_H2_FLAG_END_HEADERS);
	CU_ASSERT_EQUAL(fr[0].h.length, r->block_len);
	CU_ASSERT_EQUAL(fr[1].h.type, SHB_H2_DATA);
	CU_ASSERT_EQUAL(fr[1].h.flags, SHB_H2_FLAG_END_STREAM);
	CU_ASSERT_EQUAL(fr[1].h.length, 4);
	shb_h2_fx_close(&f);

	/* Default 16384: three frames; only the last has END_HEADERS and
	 * only the first END_STREAM (here: none, a body follows). */
	shb_h2_fx_open(&f, 0, 2, NULL, 0, &hdr, 1, 0);
	r = f.prep;
	CU_ASSERT_PTR_NULL(r->frame); /* above 16384: no frame made */
	shb_h2_fx_ready(&f);
	shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	n = shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 8);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_EQUAL(fr[0].h.type, SHB_H2_HEADERS);
	CU_ASSERT_EQUAL(fr[0].h.flags, SHB_H2_FLAG_END_STREAM);
	CU_ASSERT_EQUAL(fr[0].h.length, 16384);
	CU_ASSERT_EQUAL(fr[1].h.type, SHB_H2_CONTINUATION);
	CU_ASSERT_EQUAL(fr[1].h.flags, 0);
	CU_ASSERT_EQUAL(fr[1].h.length, 16384);
	CU_ASSERT_EQUAL(fr[2].h.type, SHB_H2_CONTINUATION);
	CU_ASSERT_EQUAL(fr[2].h.flags, SHB_H2_FLAG_END_HEADERS);
	CU_ASSERT_EQUAL(fr[2].h.length, r->block_len - 2 * 16384);
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(fr[i].h.stream_id, 1);
		shb_h2_bytes_add(&joined, fr[i].payload, fr[i].h.length);
	}
	CU_ASSERT_EQUAL(joined.len, r->block_len);
	CU_ASSERT_EQUAL(memcmp(joined.p, r->block, r->block_len), 0);

	/* With a size update in front, the split moves by its octet. */
	{
		struct shb_h2_bytes in = {0};
		static const struct shb_h2_setting_kv zero[] = {
			{SHB_H2_SET_HEADER_TABLE_SIZE, 0}};

		shb_h2_srv_settings(&in, zero, 1);
		CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, in.p, in.len), (shb_ssize)in.len);
		shb_h2_bytes_free(&in);
	}
	f.sent.len = 0;
	joined.len = 0;
	shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	n = shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 8);
	CU_ASSERT_EQUAL_FATAL(n, 4); /* SETTINGS ACK, HEADERS, 2 x CONT. */
	CU_ASSERT_EQUAL(fr[0].h.type, SHB_H2_SETTINGS);
	CU_ASSERT_EQUAL(fr[1].h.length, 16384);
	CU_ASSERT_EQUAL(fr[3].h.flags, SHB_H2_FLAG_END_HEADERS);
	CU_ASSERT_EQUAL(fr[3].h.length, r->block_len + 1 - 2 * 16384);
	for (size_t i = 1; i < n; i++) {
		CU_ASSERT_EQUAL(fr[i].h.stream_id, 3);
		shb_h2_bytes_add(&joined, fr[i].payload, fr[i].h.length);
	}
	CU_ASSERT_EQUAL_FATAL(joined.len, r->block_len + 1);
	CU_ASSERT_EQUAL(joined.p[0], 0x20);
	CU_ASSERT_EQUAL(memcmp(joined.p + 1, r->block, r->block_len), 0);
	shb_h2_bytes_free(&joined);
	shb_h2_fx_close(&f);
}

/* Stream ids grow; a slot still busy is skipped, lookups stay exact. */
static void test_stream_ids_and_slots(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	uint64_t c[3];

	shb_h2_fx_open(&f, 0, 2, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	c[0] = shb_h2_fx_issue(&f); /* 1, slot 0 */
	c[1] = shb_h2_fx_issue(&f); /* 3, slot 1 */
	shb_h2_srv_status(&b, 3, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 200);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	c[2] = shb_h2_fx_issue(&f); /* 5 would be slot 0 (busy): 7 */
	CU_ASSERT_PTR_NOT_NULL(shb_h2_stream_find(f.c, 7));
	CU_ASSERT_PTR_NULL(shb_h2_stream_find(f.c, 5));
	CU_ASSERT(shb_h2_stream_used_id(f.c, 5));
	CU_ASSERT(!shb_h2_stream_used_id(f.c, 9));
	/* A frame on the skipped id 5 is dropped, one on 9 is an error. */
	b.len = 0;
	shb_h2_srv_u32(&b, SHB_H2_RST_STREAM, 5, SHB_H2_CANCEL);
	shb_h2_srv_status(&b, 7, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 404);
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 500);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c[2])->res.status, 404);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c[0])->res.status, 500);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c[1])->res.status, 200);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

static void test_stream_id_exhaustion(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	uint64_t c;

	shb_h2_fx_open(&f, 0, 4, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	/* Ids up to 2^31-1: 2k+1 with k < 2^30. */
	f.c->next_k = (1u << 30) - 6;
	c = shb_h2_fx_issue(&f);
	CU_ASSERT_PTR_NOT_NULL(shb_h2_stream_find(f.c, 0x7ffffff5));
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 3);
	shb_h2_fx_issue(&f);
	/* Too few ids left for the worst case: drain like a GOAWAY. */
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 0);
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f) & SHB_CS_DRAINING, SHB_CS_DRAINING);
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 0);
	shb_h2_srv_status(&b, 0x7ffffff5, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 200);
	shb_h2_srv_status(&b, 0x7ffffff7, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 200);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c)->res.status, 200);
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f) & SHB_CS_CLOSED, SHB_CS_CLOSED);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

static void test_cancel(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	struct shb_h2_fx_frame fr[4];
	uint64_t c1, c2;

	shb_h2_fx_open(&f, 0, 2, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	c1 = shb_h2_fx_issue(&f);
	c2 = shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	f.sent.len = 0;
	shb_h2_fx_cancel(&f, c1);
	shb_h2_fx_cancel(&f, 999); /* unknown: ignored */
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 1);
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 4), 1);
	CU_ASSERT_EQUAL(fr[0].h.type, SHB_H2_RST_STREAM);
	CU_ASSERT_EQUAL(fr[0].h.stream_id, 1);
	CU_ASSERT_EQUAL(fr[0].payload[3], SHB_H2_CANCEL);
	/* Its response is dropped and never reported. */
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 200);
	shb_h2_srv_data(&b, 1, SHB_H2_FLAG_END_STREAM, "late");
	shb_h2_srv_status(&b, 3, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 200);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 1);
	CU_ASSERT_PTR_NOT_NULL(shb_h2_fx_done(c2));
	CU_ASSERT_PTR_NULL(shb_h2_fx_done(c1));
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

/* A cancel between two pieces of a frame: the slot's next stream must
 * not receive the rest. */
static void test_cancel_mid_frame(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	uint64_t c1, c2;
	size_t half;

	shb_h2_fx_open(&f, 0, 1, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	c1 = shb_h2_fx_issue(&f);
	/* HEADERS 200 without END_HEADERS, then a CONTINUATION with
	 * END_STREAM on the HEADERS: the block completes stream 1. */
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, SHB_H2_FLAG_END_STREAM, 1, "\x88", 1);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	shb_h2_fx_cancel(&f, c1);
	c2 = shb_h2_fx_issue(&f); /* stream 3, the same slot */
	CU_ASSERT_PTR_NOT_NULL(shb_h2_stream_find(f.c, 3));
	b.len = 0;
	shb_h2_srv_frame(&b, SHB_H2_CONTINUATION, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x0f\x12\x01x", 4);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 0);
	/* The same with a DATA frame cut in the middle. */
	b.len = 0;
	shb_h2_srv_status(&b, 3, SHB_H2_FLAG_END_HEADERS, 200);
	shb_h2_srv_data(&b, 3, SHB_H2_FLAG_END_STREAM, "0123456789");
	half = b.len - 5;
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, half), (shb_ssize)half);
	shb_h2_fx_cancel(&f, c2);
	shb_h2_fx_issue(&f); /* stream 5, the same slot */
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p + half, 5), 5);
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 0);
	CU_ASSERT_EQUAL(shb_h2_stream_find(f.c, 5)->rx_body_bytes, 0);
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 0);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

static void test_shutdown(void)
{
	struct shb_h2_fx f;
	static const uint8_t goaway[] = {0, 0, 8, 7, 0, 0, 0, 0, 0,
					 0, 0, 0, 0, 0, 0, 0, 0};

	shb_h2_fx_open(&f, 0, 2, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_hello(&f);
	shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	f.sent.len = 0;
	shb_h2_fx_shutdown(&f, SHB_SHUT_GRACEFUL);
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 0);
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(f.sent.len, sizeof(goaway));
	CU_ASSERT_EQUAL(memcmp(f.sent.p, goaway, sizeof(goaway)), 0);
	/* Once only. */
	shb_h2_fx_shutdown(&f, SHB_SHUT_GRACEFUL);
	CU_ASSERT_EQUAL(shb_h2_fx_flush(&f, 0), 0);
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 0);
	shb_h2_fx_close(&f);

	shb_h2_fx_open(&f, 0, 2, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_shutdown(&f, SHB_SHUT_ABORT);
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(shb_h2_fx_flush(&f, 0), 0);
	shb_h2_fx_close(&f);
}

/* What pull_send handed out stays unchanged until sent(), while new
 * frames accumulate in the other buffer; partial sends resume. */
static void test_two_output_buffers(void)
{
	static char pad[1000];
	struct shb_kv hdr = {"x-pad", pad};
	struct shb_h2_fx f;
	struct shb_vec v[4];
	uint8_t copy[16384];
	size_t first_len, total = 0;
	const uint8_t *first;
	shb_ssize k;
	struct shb_h2_bytes all = {0};
	struct shb_h2_fx_frame fr[64];

	memset(pad, 'p', sizeof(pad) - 1);
	shb_h2_fx_open(&f, 0, 64, NULL, 0, &hdr, 1, 0);
	shb_h2_fx_ready(&f);
	for (int i = 0; i < 10; i++)
		shb_h2_fx_issue(&f);
	k = shb_h2_fx_pull_send(&f, v, 4);
	CU_ASSERT_EQUAL_FATAL(k, 1);
	first = v[0].base;
	first_len = v[0].len;
	CU_ASSERT_FATAL(first_len <= sizeof(copy));
	memcpy(copy, first, first_len);
	/* Lots of new frames while the first batch is "in the kernel":
	 * the second buffer grows (and moves), the first must not. */
	for (int i = 0; i < 50; i++)
		shb_h2_fx_issue(&f);
	CU_ASSERT_EQUAL(memcmp(first, copy, first_len), 0);
	CU_ASSERT(shb_h2_fx_state(&f) & SHB_CS_WANT_WRITE);
	/* Partial send of 7 octets: the rest of the same batch comes next. */
	shb_h2_bytes_add(&all, first, 7);
	shb_h2_fx_sent(&f, 7);
	k = shb_h2_fx_pull_send(&f, v, 4);
	CU_ASSERT_EQUAL_FATAL(k, 1);
	CU_ASSERT_PTR_EQUAL(v[0].base, first + 7);
	CU_ASSERT_EQUAL(v[0].len, first_len - 7);
	CU_ASSERT_EQUAL(memcmp(v[0].base, copy + 7, first_len - 7), 0);
	shb_h2_bytes_add(&all, v[0].base, v[0].len);
	shb_h2_fx_sent(&f, v[0].len);
	/* Then the 50 later requests in one batch. */
	k = shb_h2_fx_pull_send(&f, v, 4);
	CU_ASSERT_EQUAL_FATAL(k, 1);
	CU_ASSERT_EQUAL(v[0].len, 50 * (9 + ((const struct shb_h2_request *)f.prep)->block_len));
	shb_h2_bytes_add(&all, v[0].base, v[0].len);
	shb_h2_fx_sent(&f, v[0].len);
	CU_ASSERT_EQUAL(shb_h2_fx_pull_send(&f, v, 4), 0);
	CU_ASSERT_EQUAL(shb_h2_fx_pull_send(&f, v, 0), 0);
	/* 60 HEADERS frames on streams 1..119, in order. */
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(all.p, all.len, fr, 64), 60);
	for (uint32_t i = 0; i < 60; i++) {
		CU_ASSERT_EQUAL(fr[i].h.type, SHB_H2_HEADERS);
		CU_ASSERT_EQUAL(fr[i].h.stream_id, 2 * i + 1);
		total += fr[i].h.length;
	}
	CU_ASSERT(total > 0);
	shb_h2_bytes_free(&all);
	shb_h2_fx_close(&f);
}

static void test_disable_keepalive(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};

	shb_h2_fx_open(&f, SHB_RUN_DISABLE_KEEPALIVE, 8, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 8);
	shb_h2_fx_issue(&f);
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 0);
	shb_h2_srv_settings(&b, shb_h2_fx_nginx_settings, 3);
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 200);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 1);
	CU_ASSERT(shb_h2_fx_state(&f) & SHB_CS_CLOSED);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

static void test_debug_traces(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	int saw_recv = 0, saw_send = 0, saw_done = 0;

	shb_h2_fx_open(&f, 0, 2, NULL, 0, NULL, 0, 1);
	shb_h2_fx_ready(&f);
	shb_h2_fx_issue(&f);
	shb_h2_srv_settings(&b, shb_h2_fx_nginx_settings, 3);
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 200);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	for (size_t i = 0; i < shb_h2_kit.log_count; i++) {
		const char *l = shb_h2_test_log_line(i);

		CU_ASSERT_EQUAL(l[0], '3'); /* SHB_LOG_DEBUG */
		saw_recv |= strstr(l, "recv SETTINGS stream 0 len 18") != NULL;
		saw_send |= strstr(l, "send HEADERS stream 1 len") != NULL;
		saw_done |= strstr(l, "stream 1 done: outcome 0 status 200") != NULL;
	}
	CU_ASSERT(saw_recv && saw_send && saw_done);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
	/* Quiet without SHB_DEBUG. */
	shb_h2_fx_open(&f, 0, 2, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_issue(&f);
	CU_ASSERT_EQUAL(shb_h2_kit.log_count, 0);
	shb_h2_fx_close(&f);
}

CU_TestInfo shb_h2_conn_stream_tests[] = {
	{"GOAWAY refuses streams above the line", test_goaway_refuses_above_line},
	{"GOAWAY with an error, then EOF", test_goaway_with_error_then_eof},
	{"EOF", test_eof},
	{"malformed responses reset one stream", test_malformed_responses},
	{"status forms", test_status_forms_on_the_wire},
	{"REFUSED_STREAM and other resets", test_refused_and_reset},
	{"peer lowers HEADER_TABLE_SIZE", test_table_size_update},
	{"CONTINUATION 48 KB", test_continuation_48k},
	{"request HEADERS + CONTINUATION", test_request_continuation},
	{"stream ids and slots", test_stream_ids_and_slots},
	{"stream id exhaustion drains", test_stream_id_exhaustion},
	{"cancel", test_cancel},
	{"a template's HEADERS frame made once", test_template_frame},
	{"cancel in the middle of a frame", test_cancel_mid_frame},
	{"shutdown", test_shutdown},
	{"two output buffers", test_two_output_buffers},
	{"--disable-keepalive", test_disable_keepalive},
	{"SHB_DEBUG traces", test_debug_traces},
	CU_TEST_INFO_NULL,
};
