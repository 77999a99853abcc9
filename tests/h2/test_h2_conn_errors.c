/* The connection's errors (test_h2_conn.c has the set-up): SETTINGS
 * validation, frame errors, frames after a stream ended, CONTINUATION
 * rules, the first frame, garbage. Each is a connection error with a
 * GOAWAY (h2_fixture.h: shb_h2_fx_conn_error). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_fixture.h"
#include "http_huffman.h"
#include "http_prefint.h"

static void conn_error_setting(uint16_t id, uint32_t v, uint32_t code,
			       const char *text)
{
	struct shb_h2_bytes b = {0};
	struct shb_h2_setting_kv kv = {id, v};

	shb_h2_srv_settings(&b, &kv, 1);
	shb_h2_fx_conn_error(&b, 0, code, text);
	shb_h2_bytes_free(&b);
}

static void test_settings_validation(void)
{
	conn_error_setting(SHB_H2_SET_ENABLE_PUSH, 2, SHB_H2_PROTOCOL_ERROR,
			   "SETTINGS_ENABLE_PUSH = 2");
	conn_error_setting(SHB_H2_SET_INITIAL_WINDOW_SIZE, 0x80000000u,
			   SHB_H2_FLOW_CONTROL_ERROR,
			   "SETTINGS_INITIAL_WINDOW_SIZE = 2147483648");
	conn_error_setting(SHB_H2_SET_MAX_FRAME_SIZE, 16383,
			   SHB_H2_PROTOCOL_ERROR, "SETTINGS_MAX_FRAME_SIZE = 16383");
	conn_error_setting(SHB_H2_SET_MAX_FRAME_SIZE, 1u << 24,
			   SHB_H2_PROTOCOL_ERROR,
			   "SETTINGS_MAX_FRAME_SIZE = 16777216");
	shb_h2_fx_conn_error_frame(SHB_H2_SETTINGS, 0, 0, "\0\x01\0\0\0", 5,
			 SHB_H2_FRAME_SIZE_ERROR, "SETTINGS with length 5");
	shb_h2_fx_conn_error_frame(SHB_H2_SETTINGS, SHB_H2_FLAG_ACK, 0, "\0\x01\0\0\0\0", 6,
			 SHB_H2_FRAME_SIZE_ERROR, "SETTINGS with length 6");
	shb_h2_fx_conn_error_frame(SHB_H2_SETTINGS, 0, 1, NULL, 0, SHB_H2_PROTOCOL_ERROR,
			 "SETTINGS on stream 1");
	/* The boundaries themselves are fine. */
	{
		struct shb_h2_fx f;
		struct shb_h2_bytes b = {0};
		static const struct shb_h2_setting_kv ok[] = {
			{SHB_H2_SET_ENABLE_PUSH, 1},
			{SHB_H2_SET_ENABLE_PUSH, 0},
			{SHB_H2_SET_INITIAL_WINDOW_SIZE, 0x7fffffff},
			{SHB_H2_SET_MAX_FRAME_SIZE, 16384},
			{SHB_H2_SET_MAX_FRAME_SIZE, 16777215},
			{SHB_H2_SET_MAX_CONCURRENT_STREAMS, 0},
		};

		shb_h2_fx_open(&f, 0, 4, NULL, 0, NULL, 0, 0);
		shb_h2_fx_ready(&f);
		shb_h2_srv_settings(&b, ok, 6);
		CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
		CU_ASSERT_EQUAL(f.c->peer_max_frame, 16777215);
		CU_ASSERT_EQUAL(f.c->peer_initial_window, 0x7fffffff);
		CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 0); /* 0 streams allowed */
		CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_WANT_WRITE);
		shb_h2_bytes_free(&b);
		shb_h2_fx_close(&f);
	}
}

/* RFC 9113 5.1: DATA or HEADERS on a stream after the peer's END_STREAM
 * is a connection error STREAM_CLOSED (the request itself was complete
 * and counts ok); after the peer's RST_STREAM, a stream error. */
static void late_frame_case(int reset, uint8_t type, const char *text)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	struct shb_h2_fx_frame fr[8];
	size_t n;

	shb_h2_fx_open(&f, 0, 4, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	uint64_t cookie = shb_h2_fx_issue(&f);
	shb_h2_fx_hello(&f);
	f.sent.len = 0;
	if (reset) {
		shb_h2_srv_u32(&b, SHB_H2_RST_STREAM, 1, SHB_H2_CANCEL);
	} else {
		shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 200);
		shb_h2_srv_data(&b, 1, SHB_H2_FLAG_END_STREAM, "hi");
	}
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	const struct shb_kit_done *d = shb_h2_fx_done(cookie);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, reset ? SHB_REQ_RESET : SHB_REQ_OK);
	b.len = 0;
	if (type == SHB_H2_DATA)
		shb_h2_srv_data(&b, 1, 0, "late");
	else
		shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 200);
	shb_ssize r = shb_h2_fx_recv(&f, b.p, b.len);
	shb_h2_fx_flush(&f, 0);
	n = shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 8);
	CU_ASSERT_FATAL(n >= 1);
	if (reset) {
		/* The connection goes on; the stream is reset again. */
		CU_ASSERT_EQUAL(r, (shb_ssize)b.len);
		CU_ASSERT_EQUAL(fr[n - 1].h.type, SHB_H2_RST_STREAM);
		CU_ASSERT_EQUAL(fr[n - 1].h.stream_id, 1);
		CU_ASSERT_EQUAL(fr[n - 1].payload[3], SHB_H2_STREAM_CLOSED);
		CU_ASSERT_NOT_EQUAL(shb_h2_fx_state(&f) & SHB_CS_CLOSED, SHB_CS_CLOSED);
	} else {
		CU_ASSERT_EQUAL(r, SHB_E_PROTO);
		CU_ASSERT_EQUAL(shb_h2_fx_state(&f) & SHB_CS_CLOSED, SHB_CS_CLOSED);
		CU_ASSERT_PTR_NOT_NULL(strstr(shb_h2_fx_error_detail(&f), text));
		CU_ASSERT_EQUAL(fr[n - 1].h.type, SHB_H2_GOAWAY);
		CU_ASSERT_EQUAL(fr[n - 1].payload[7], SHB_H2_STREAM_CLOSED);
	}
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

static void test_late_frames(void)
{
	late_frame_case(0, SHB_H2_DATA, "DATA on stream 1 after its END_STREAM");
	late_frame_case(0, SHB_H2_HEADERS, "HEADERS on stream 1 after its END_STREAM");
	late_frame_case(1, SHB_H2_DATA, NULL);
	late_frame_case(1, SHB_H2_HEADERS, NULL);
}

static void test_frame_errors(void)
{
	static uint8_t big[16385];

	shb_h2_fx_conn_error_frame(SHB_H2_DATA, 0, 0, "x", 1, SHB_H2_PROTOCOL_ERROR,
			 "DATA on stream 0");
	shb_h2_fx_conn_error_frame(SHB_H2_DATA, 0, 5, "x", 1, SHB_H2_PROTOCOL_ERROR,
			 "DATA on stream 5, which we never opened");
	shb_h2_fx_conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 2, "\x88", 1,
			 SHB_H2_PROTOCOL_ERROR, "HEADERS on stream 2");
	shb_h2_fx_conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 0, "\x88", 1,
			 SHB_H2_PROTOCOL_ERROR, "HEADERS on stream 0");
	shb_h2_fx_conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 3, "\x88", 1,
			 SHB_H2_PROTOCOL_ERROR, "HEADERS on stream 3, which we never opened");
	shb_h2_fx_conn_error_frame(SHB_H2_PUSH_PROMISE, SHB_H2_FLAG_END_HEADERS, 1,
			 "\0\0\0\x02\x88", 5, SHB_H2_PROTOCOL_ERROR,
			 "PUSH_PROMISE, but push is disabled");
	shb_h2_fx_conn_error_frame(SHB_H2_PING, 0, 0, "1234567", 7,
			 SHB_H2_FRAME_SIZE_ERROR, "PING with length 7");
	shb_h2_fx_conn_error_frame(SHB_H2_PING, 0, 1, "12345678", 8,
			 SHB_H2_PROTOCOL_ERROR, "PING on stream 1");
	shb_h2_fx_conn_error_frame(SHB_H2_GOAWAY, 0, 0, "1234567", 7,
			 SHB_H2_FRAME_SIZE_ERROR, "GOAWAY with length 7");
	shb_h2_fx_conn_error_frame(SHB_H2_GOAWAY, 0, 1, "12345678", 8,
			 SHB_H2_PROTOCOL_ERROR, "GOAWAY on stream 1");
	shb_h2_fx_conn_error_frame(SHB_H2_RST_STREAM, 0, 0, "\0\0\0\x08", 4,
			 SHB_H2_PROTOCOL_ERROR, "RST_STREAM on stream 0");
	shb_h2_fx_conn_error_frame(SHB_H2_RST_STREAM, 0, 1, "\0\0\x08", 3,
			 SHB_H2_FRAME_SIZE_ERROR, "RST_STREAM with length 3");
	shb_h2_fx_conn_error_frame(SHB_H2_RST_STREAM, 0, 9, "\0\0\0\x08", 4,
			 SHB_H2_PROTOCOL_ERROR, "RST_STREAM on stream 9, which we never opened");
	shb_h2_fx_conn_error_frame(SHB_H2_WINDOW_UPDATE, 0, 0, "\0\0\x08", 3,
			 SHB_H2_FRAME_SIZE_ERROR, "WINDOW_UPDATE with length 3");
	shb_h2_fx_conn_error_frame(SHB_H2_WINDOW_UPDATE, 0, 0, "\0\0\0\0", 4,
			 SHB_H2_PROTOCOL_ERROR, "connection WINDOW_UPDATE of 0");
	shb_h2_fx_conn_error_frame(SHB_H2_WINDOW_UPDATE, 0, 0, "\x7f\xff\xff\xff", 4,
			 SHB_H2_FLOW_CONTROL_ERROR, "connection window above 2^31-1");
	shb_h2_fx_conn_error_frame(SHB_H2_PRIORITY, 0, 1, "\0\0\0\0", 4,
			 SHB_H2_FRAME_SIZE_ERROR, "PRIORITY with length 4");
	shb_h2_fx_conn_error_frame(SHB_H2_CONTINUATION, SHB_H2_FLAG_END_HEADERS, 1, "\x88", 1,
			 SHB_H2_PROTOCOL_ERROR, "CONTINUATION without HEADERS");
	shb_h2_fx_conn_error_frame(0x42, 0, 0, big, sizeof(big), SHB_H2_FRAME_SIZE_ERROR,
			 "UNKNOWN of 16385 octets (limit 16384)");
	/* padding longer than the frame */
	shb_h2_fx_conn_error_frame(SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_PADDED, 1,
			 "\x05\x88\0\0", 4, SHB_H2_PROTOCOL_ERROR,
			 "HEADERS padding longer than the frame");
	shb_h2_fx_conn_error_frame(SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_PRIORITY, 1,
			 "\0\0\0", 3, SHB_H2_FRAME_SIZE_ERROR,
			 "HEADERS too short for its flags");
	/* HPACK: a reference beyond the (empty) dynamic table, size updates
	 * above our 4096 and after a field */
	shb_h2_fx_conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1, "\x88\xbe", 2,
			 SHB_H2_COMPRESSION_ERROR,
			 "h2: stream 1: HPACK index beyond the dynamic table");
	shb_h2_fx_conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x3f\xe2\x1f\x88", 4, SHB_H2_COMPRESSION_ERROR,
			 "size update above our SETTINGS_HEADER_TABLE_SIZE");
	shb_h2_fx_conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1, "\x88\x20",
			 2, SHB_H2_COMPRESSION_ERROR, "size update after a field");
	shb_h2_fx_conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1, "\x08\x03\x32",
			 3, SHB_H2_COMPRESSION_ERROR, "ends inside a field");
}

static void test_continuation_rules(void)
{
	struct shb_h2_bytes b = {0};

	/* another frame inside a header block */
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, 0, 1, "\x88", 1);
	shb_h2_srv_frame(&b, SHB_H2_PING, 0, 0, "12345678", 8);
	shb_h2_fx_conn_error(&b, 0, SHB_H2_PROTOCOL_ERROR,
			  "PING on stream 0 inside the header block of stream 1");
	/* a CONTINUATION of another stream */
	b.len = 0;
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, 0, 1, "\x88", 1);
	shb_h2_srv_frame(&b, SHB_H2_CONTINUATION, SHB_H2_FLAG_END_HEADERS, 3,
			 "", 0);
	shb_h2_fx_conn_error(&b, 0, SHB_H2_PROTOCOL_ERROR,
			  "CONTINUATION on stream 3 inside the header block of stream 1");
	/* DATA inside the block */
	b.len = 0;
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, 0, 1, "\x88", 1);
	shb_h2_srv_data(&b, 1, 0, "x");
	shb_h2_fx_conn_error(&b, 0, SHB_H2_PROTOCOL_ERROR, "DATA on stream 1 inside");
	shb_h2_bytes_free(&b);
}

static void test_first_frame_and_http1(void)
{
	struct shb_h2_bytes b = {0};
	static const char http1[] =
		"HTTP/1.1 400 Bad Request\r\nServer: nginx\r\n"
		"Content-Length: 0\r\n\r\n";

	shb_h2_bytes_add(&b, http1, strlen(http1));
	shb_h2_fx_conn_error(&b, 1, SHB_H2_PROTOCOL_ERROR,
			  "the server answered in HTTP/1.x: it does not speak "
			  "HTTP/2 over cleartext (h2c) on this port");
	b.len = 0;
	shb_h2_bytes_add(&b, "HTTP/", 5);
	shb_h2_fx_conn_error(&b, 1, SHB_H2_PROTOCOL_ERROR, "answered in HTTP/1.x");
	b.len = 0;
	shb_h2_srv_frame(&b, SHB_H2_PING, 0, 0, "12345678", 8);
	shb_h2_fx_conn_error(&b, 1, SHB_H2_PROTOCOL_ERROR,
			  "the server's first frame is PING, not SETTINGS");
	b.len = 0;
	shb_h2_srv_frame(&b, SHB_H2_SETTINGS, SHB_H2_FLAG_ACK, 0, NULL, 0);
	shb_h2_fx_conn_error(&b, 1, SHB_H2_PROTOCOL_ERROR,
			  "the server's first frame is SETTINGS ACK, not SETTINGS");
	shb_h2_bytes_free(&b);
}

/* Random octets after a valid start: one clean error or nothing, never a
 * crash (ASan/UBSan builds check the rest). */
static void test_garbage(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	uint8_t junk[512];

	for (int round = 0; round < 400; round++) {
		struct shb_h2_fx f;
		size_t n = 1 + (size_t)(seed % sizeof(junk));
		shb_ssize r = 0;

		for (size_t i = 0; i < n; i++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			junk[i] = (uint8_t)seed;
		}
		/* Some rounds look like frame headers with small lengths. */
		if (round % 2)
			junk[0] = junk[1] = 0;
		shb_h2_fx_open(&f, 0, 4, NULL, 0, NULL, 0, 0);
		shb_h2_fx_ready(&f);
		for (int i = 0; i < 4; i++)
			shb_h2_fx_issue(&f);
		if (round % 3)
			shb_h2_fx_hello(&f);
		for (size_t off = 0; off < n && r >= 0; off += 7) {
			size_t k = n - off < 7 ? n - off : 7;

			r = shb_h2_fx_recv(&f, junk + off, k);
			CU_ASSERT(r == (shb_ssize)k || r == SHB_E_PROTO);
		}
		if (r < 0) {
			CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_CLOSED);
			CU_ASSERT_PTR_NOT_NULL(shb_h2_fx_error_detail(&f));
		}
		CU_ASSERT(shb_h2_kit.done_count <= 4);
		shb_h2_fx_flush(&f, 0);
		shb_h2_fx_close(&f);
	}
}

CU_TestInfo shb_h2_conn_error_tests[] = {
	{"SETTINGS validation", test_settings_validation},
	{"frame errors", test_frame_errors},
	{"frames after the peer ended a stream", test_late_frames},
	{"CONTINUATION rules", test_continuation_rules},
	{"first frame; HTTP/1 answer", test_first_frame_and_http1},
	{"garbage gives a clean error", test_garbage},
	CU_TEST_INFO_NULL,
};
