/* The connection driven through the vtable like the core drives it, under
 * the test kit (shb/kit.h): its fake host records req_done and conn_event
 * and checks the host's rules (every connection ends asserting that none
 * was broken), its clock gives each call its `now`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_fixture.h"
#include "http_huffman.h"
#include "http_prefint.h"

static const struct shb_h2_setting_kv nginx_settings[] = {
	{SHB_H2_SET_MAX_CONCURRENT_STREAMS, 128},
	{SHB_H2_SET_INITIAL_WINDOW_SIZE, 65536},
	{SHB_H2_SET_MAX_FRAME_SIZE, 16777215},
};

/* Server SETTINGS fed and our ACK checked and dropped. */
static void server_hello(struct shb_h2_fx *f)
{
	struct shb_h2_bytes b = {0};
	static const uint8_t ack[] = {0, 0, 0, 4, 1, 0, 0, 0, 0};

	/* What was queued before goes out first. */
	shb_h2_fx_flush(f, 0);
	f->sent.len = 0;
	shb_h2_srv_settings(&b, nginx_settings, 3);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(f, b.p, b.len), (shb_ssize)b.len);
	shb_h2_bytes_free(&b);
	shb_h2_fx_flush(f, 0);
	CU_ASSERT_EQUAL_FATAL(f->sent.len, sizeof(ack));
	CU_ASSERT_EQUAL(memcmp(f->sent.p, ack, sizeof(ack)), 0);
	f->sent.len = 0;
}

/* ---- start and a simple exchange ---------------------------------------- */

static void test_preface_and_capacity(void)
{
	struct shb_h2_fx f;

	shb_h2_fx_open(&f, 0, 200, NULL, 0, NULL, 0, 0);
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f), 0);
	shb_h2_fx_ready(&f);
	/* 100 streams until the peer's SETTINGS. */
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 100);
	server_hello(&f);
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 128);
	CU_ASSERT_EQUAL(shb_h2_kit.event_count, 1);
	CU_ASSERT_EQUAL(shb_h2_kit.events[0].ev.kind, SHB_CEV_HANDSHAKE_DONE);
	shb_h2_fx_close(&f);

	shb_h2_fx_open(&f, 0, 8, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 8);
	{
		/* A SETTINGS without MAX_CONCURRENT_STREAMS: no limit. */
		struct shb_h2_bytes b = {0};
		static const struct shb_h2_setting_kv kv[] = {
			{SHB_H2_SET_MAX_CONCURRENT_STREAMS, 3}};

		shb_h2_srv_settings(&b, NULL, 0);
		CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
		CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 8);
		shb_h2_fx_issue(&f);
		CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 7);
		b.len = 0;
		shb_h2_srv_settings(&b, kv, 1);
		CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
		CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 2);
		shb_h2_fx_issue(&f);
		shb_h2_fx_issue(&f);
		CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 0);
		CU_ASSERT_EQUAL(shb_h2_fx_issue_rc(&f, 1), SHB_E_BUSY);
		shb_h2_bytes_free(&b);
	}
	shb_h2_fx_close(&f);
}

static void test_simple_get(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	struct shb_h2_fx_frame fr[4];
	const struct shb_h2_request *r;
	const struct shb_kit_done *d;
	uint64_t cookie;

	shb_h2_fx_open(&f, 0, 4, NULL, 0, NULL, 0, 0);
	r = f.prep;
	shb_h2_fx_ready(&f);
	cookie = shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	/* One HEADERS frame: the prepared block behind a 9-octet header. */
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 4), 1);
	CU_ASSERT_EQUAL(fr[0].h.type, SHB_H2_HEADERS);
	CU_ASSERT_EQUAL(fr[0].h.flags,
			SHB_H2_FLAG_END_STREAM | SHB_H2_FLAG_END_HEADERS);
	CU_ASSERT_EQUAL(fr[0].h.stream_id, 1);
	CU_ASSERT_EQUAL(fr[0].h.length, r->block_len);
	CU_ASSERT_EQUAL(memcmp(fr[0].payload, r->block, r->block_len), 0);
	f.sent.len = 0;

	shb_h2_srv_settings(&b, nginx_settings, 3);
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 200);
	f.now = 2000;
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 0);
	b.len = 0;
	shb_h2_srv_data(&b, 1, 0, "hel");
	shb_h2_srv_data(&b, 1, SHB_H2_FLAG_END_STREAM, "lo");
	f.now = 3000;
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL_FATAL(shb_h2_kit.done_count, 1);
	d = shb_h2_fx_done(cookie);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->conn, f.kc.handle);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(d->res.status, 200);
	CU_ASSERT_EQUAL(d->res.rx_header_bytes, 9 + 14);
	CU_ASSERT_EQUAL(d->res.rx_body_bytes, 5);
	CU_ASSERT_EQUAL(d->res.ts_first_byte, 2000);
	CU_ASSERT_EQUAL(d->res.ts_done, 3000);
	CU_ASSERT_EQUAL(d->res.err_space, SHB_ERRSPACE_NONE);
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 4);
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_WANT_WRITE); /* SETTINGS ACK */
	CU_ASSERT_EQUAL(shb_h2_fx_next_deadline(&f), SHB_TSTAMP_NONE);
	f.now = 5000;
	CU_ASSERT_EQUAL(shb_h2_fx_on_timer(&f), SHB_OK);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

/* ---- the reader, fed a whole conversation split at every offset -------- */

struct outcome {
	uint32_t outcome, status;
	uint64_t head, body, code;
};

/* The server side of a busy conversation with streams 1..11. */
static void rich_conversation(struct shb_h2_bytes *b, struct outcome *want)
{
	static const uint8_t ping[8] = {9, 8, 7, 6, 5, 4, 3, 2};
	static const struct shb_h2_setting_kv kv[] = {
		{SHB_H2_SET_HEADER_TABLE_SIZE, 4096},
		{SHB_H2_SET_MAX_CONCURRENT_STREAMS, 100},
		{SHB_H2_SET_INITIAL_WINDOW_SIZE, 1 << 20},
		{SHB_H2_SET_MAX_FRAME_SIZE, 1 << 20},
		{SHB_H2_SET_MAX_HEADER_LIST_SIZE, 1 << 16},
		{0x99, 7}, /* unknown: ignored */
	};
	uint8_t pad[64], big[300];
	size_t n0;

	shb_h2_srv_settings(b, kv, 6);
	shb_h2_srv_u32(b, SHB_H2_WINDOW_UPDATE, 0, 1 << 24);
	shb_h2_srv_frame(b, SHB_H2_PING, 0, 0, ping, 8);
	shb_h2_srv_frame(b, SHB_H2_SETTINGS, SHB_H2_FLAG_ACK, 0, NULL, 0);
	/* stream 1: 103, then 200 with PADDED|PRIORITY, padded DATA,
	 * trailers */
	n0 = b->len;
	shb_h2_srv_status(b, 1, SHB_H2_FLAG_END_HEADERS, 103);
	want[0].head = b->len - n0;
	pad[0] = 3; /* pad length */
	memcpy(pad + 1, "\x80\x00\x00\x03\x10", 5); /* priority */
	pad[6] = 0x88;
	memset(pad + 7, 0, 3);
	shb_h2_srv_frame(b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_PADDED |
				 SHB_H2_FLAG_PRIORITY,
			 1, pad, 10);
	want[0].head += 19;
	pad[0] = 4;
	memcpy(pad + 1, "body", 4);
	memset(pad + 5, 0, 4);
	shb_h2_srv_frame(b, SHB_H2_DATA, SHB_H2_FLAG_PADDED, 1, pad, 9);
	/* an unknown frame type and a PRIORITY frame: ignored */
	shb_h2_srv_frame(b, 0x20, 0xff, 1, "whatever", 8);
	shb_h2_srv_frame(b, SHB_H2_PRIORITY, 0, 3, "\x00\x00\x00\x01\x20", 5);
	/* stream 3: a block over HEADERS + 2 CONTINUATIONs */
	memset(big, 0, sizeof(big));
	big[0] = 0x08;
	big[1] = 3;
	memcpy(big + 2, "299", 3);
	for (size_t i = 5; i + 10 <= 295; i += 10) {
		big[i] = 0x00;
		big[i + 1] = 2;
		memcpy(big + i + 2, "xy", 2);
		big[i + 4] = 5;
		memcpy(big + i + 5, "vvvvv", 5);
	}
	shb_h2_srv_frame(b, SHB_H2_HEADERS, 0, 3, big, 100);
	shb_h2_srv_frame(b, SHB_H2_CONTINUATION, 0, 3, big + 100, 100);
	shb_h2_srv_frame(b, SHB_H2_CONTINUATION, SHB_H2_FLAG_END_HEADERS, 3,
			 big + 200, 95);
	want[1].head = 3 * 9 + 295;
	shb_h2_srv_data(b, 3, 0, "0123456789");
	/* stream 1 trailers (no :status) end it */
	n0 = b->len;
	shb_h2_srv_frame(b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 1,
			 "\x40\x01\x61\x01\x62", 5);
	want[0].head += b->len - n0;
	want[0].outcome = SHB_REQ_OK;
	want[0].status = 200;
	want[0].body = 4;
	shb_h2_srv_data(b, 3, SHB_H2_FLAG_END_STREAM, "abc");
	want[1].outcome = SHB_REQ_OK;
	want[1].status = 299;
	want[1].body = 13;
	/* stream 5 refused, stream 7 reset */
	shb_h2_srv_u32(b, SHB_H2_RST_STREAM, 5, SHB_H2_REFUSED_STREAM);
	want[2].outcome = SHB_REQ_REFUSED;
	want[2].code = SHB_H2_REFUSED_STREAM;
	n0 = b->len;
	shb_h2_srv_status(b, 7, SHB_H2_FLAG_END_HEADERS, 500);
	want[3].head = b->len - n0;
	shb_h2_srv_u32(b, SHB_H2_RST_STREAM, 7, SHB_H2_INTERNAL_ERROR);
	want[3].outcome = SHB_REQ_RESET;
	want[3].code = SHB_H2_INTERNAL_ERROR;
	/* GOAWAY: 9 is accepted, 11 is not */
	shb_h2_srv_goaway(b, 9, SHB_H2_NO_ERROR, "bye");
	want[5].outcome = SHB_REQ_REFUSED;
	n0 = b->len;
	shb_h2_srv_status(b, 9, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM,
			  404);
	want[4].head = b->len - n0;
	want[4].outcome = SHB_REQ_OK;
	want[4].status = 404;
}

static void run_rich(const struct shb_h2_bytes *in, size_t cut,
		     struct shb_h2_bytes *out, struct outcome got[6])
{
	struct shb_h2_fx f;
	uint64_t cookies[6];

	shb_h2_fx_open(&f, 0, 8, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	for (int i = 0; i < 6; i++)
		cookies[i] = shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	f.sent.len = 0;
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, in->p, cut), (shb_ssize)cut);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, in->p + cut, in->len - cut),
			(shb_ssize)(in->len - cut));
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 6);
	for (int i = 0; i < 6; i++) {
		const struct shb_kit_done *d = shb_h2_fx_done(cookies[i]);

		memset(&got[i], 0xff, sizeof(got[i]));
		if (!d)
			continue;
		got[i].outcome = d->res.outcome;
		got[i].status = d->res.status;
		got[i].head = d->res.rx_header_bytes;
		got[i].body = d->res.rx_body_bytes;
		got[i].code = d->res.err_code;
	}
	CU_ASSERT_EQUAL(shb_h2_kit.event_count, 2);
	CU_ASSERT_EQUAL(shb_h2_kit.events[0].ev.kind, SHB_CEV_HANDSHAKE_DONE);
	CU_ASSERT_EQUAL(shb_h2_kit.events[1].ev.kind, SHB_CEV_GOAWAY);
	CU_ASSERT_EQUAL(shb_h2_kit.events[1].ev.last_accepted, 9);
	CU_ASSERT_STRING_EQUAL(shb_h2_kit.events[1].detail, "bye");
	/* Drained: every stream ended after the GOAWAY. */
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f) & (SHB_CS_CLOSED | SHB_CS_DRAINING),
			SHB_CS_CLOSED | SHB_CS_DRAINING);
	shb_h2_fx_flush(&f, 0);
	out->len = 0;
	shb_h2_bytes_add(out, f.sent.p, f.sent.len);
	shb_h2_fx_close(&f);
}

static void test_reader_every_split(void)
{
	struct shb_h2_bytes in = {0}, out = {0}, out0 = {0};
	struct outcome want[6], got[6];
	struct shb_h2_fx_frame fr[4];

	memset(want, 0, sizeof(want));
	rich_conversation(&in, want);
	for (size_t cut = 0; cut <= in.len; cut++) {
		run_rich(&in, cut, &out, got);
		for (int i = 0; i < 6; i++) {
			CU_ASSERT_EQUAL(got[i].outcome, want[i].outcome);
			CU_ASSERT_EQUAL(got[i].status, want[i].status);
			CU_ASSERT_EQUAL(got[i].head, want[i].head);
			CU_ASSERT_EQUAL(got[i].body, want[i].body);
			CU_ASSERT_EQUAL(got[i].code, want[i].code);
		}
		if (cut == 0)
			shb_h2_bytes_add(&out0, out.p, out.len);
		/* What we answer does not depend on the split. */
		CU_ASSERT_EQUAL(out.len, out0.len);
		CU_ASSERT_EQUAL(memcmp(out.p, out0.p, out.len), 0);
	}
	/* SETTINGS ACK and PING ACK with the server's data. */
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(out0.p, out0.len, fr, 4), 2);
	CU_ASSERT_EQUAL(fr[0].h.type, SHB_H2_SETTINGS);
	CU_ASSERT_EQUAL(fr[0].h.flags, SHB_H2_FLAG_ACK);
	CU_ASSERT_EQUAL(fr[1].h.type, SHB_H2_PING);
	CU_ASSERT_EQUAL(fr[1].h.flags, SHB_H2_FLAG_ACK);
	CU_ASSERT_EQUAL(memcmp(fr[1].payload, "\x09\x08\x07\x06\x05\x04\x03\x02", 8), 0);
	shb_h2_bytes_free(&in);
	shb_h2_bytes_free(&out);
	shb_h2_bytes_free(&out0);
}

/* The same conversation one octet per recv call. */
static void test_reader_bytewise(void)
{
	struct shb_h2_bytes in = {0};
	struct outcome want[6];
	struct shb_h2_fx f;

	memset(want, 0, sizeof(want));
	rich_conversation(&in, want);
	shb_h2_fx_open(&f, 0, 8, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	for (int i = 0; i < 6; i++)
		shb_h2_fx_issue(&f);
	for (size_t i = 0; i < in.len; i++)
		CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, in.p + i, 1), 1);
	CU_ASSERT_EQUAL_FATAL(shb_h2_kit.done_count, 6);
	for (int i = 0; i < 6; i++) {
		const struct shb_kit_done *d = shb_h2_fx_done(100 + (uint64_t)i);

		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT_EQUAL(d->res.outcome, want[i].outcome);
		CU_ASSERT_EQUAL(d->res.status, want[i].status);
		CU_ASSERT_EQUAL(d->res.rx_header_bytes, want[i].head);
		CU_ASSERT_EQUAL(d->res.rx_body_bytes, want[i].body);
	}
	/* Reset details name the code; refused ones are H2 space too. */
	CU_ASSERT_STRING_EQUAL(shb_h2_fx_done(103)->detail,
			       "h2: stream reset by the server (INTERNAL_ERROR)");
	CU_ASSERT_EQUAL(shb_h2_fx_done(103)->res.err_space, SHB_ERRSPACE_H2);
	CU_ASSERT_EQUAL(shb_h2_fx_done(102)->res.err_space, SHB_ERRSPACE_H2);
	shb_h2_fx_close(&f);
	shb_h2_bytes_free(&in);
}

/* ---- connection errors ----------------------------------------------------- */

/* Feeds `in` after the server's SETTINGS (unless raw) and expects a
 * connection error whose detail contains `text`, a GOAWAY with `code`,
 * and a CLOSED state; also split at every offset. */
static void expect_conn_error_step(const struct shb_h2_bytes *in, int raw,
				   uint32_t code, const char *text,
				   size_t step)
{
	for (size_t cut = 0; cut <= in->len;
	     cut = cut == in->len || cut + step <= in->len ? cut + step
							   : in->len) {
		struct shb_h2_fx f;
		struct shb_h2_fx_frame fr[8];
		shb_ssize r1, r2 = 0;
		size_t n;

		shb_h2_fx_open(&f, 0, 4, NULL, 0, NULL, 0, 0);
		shb_h2_fx_ready(&f);
		shb_h2_fx_issue(&f);
		if (!raw)
			server_hello(&f);
		shb_h2_fx_flush(&f, 0);
		f.sent.len = 0;
		r1 = shb_h2_fx_recv(&f, in->p, cut);
		if (r1 >= 0)
			r2 = shb_h2_fx_recv(&f, in->p + cut, in->len - cut);
		CU_ASSERT(r1 == SHB_E_PROTO || (r1 == (shb_ssize)cut && r2 == SHB_E_PROTO));
		CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_CLOSED);
		CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(shb_h2_fx_error_detail(&f));
		if (!strstr(shb_h2_fx_error_detail(&f), text))
			fprintf(stderr, "\n  detail: %s\n", shb_h2_fx_error_detail(&f));
		CU_ASSERT_PTR_NOT_NULL(strstr(shb_h2_fx_error_detail(&f), text));
		CU_ASSERT_EQUAL(strncmp(shb_h2_fx_error_detail(&f), "h2: ", 4), 0);
		/* The core completes the stream itself. */
		CU_ASSERT_EQUAL(shb_h2_kit.done_count, 0);
		shb_h2_fx_flush(&f, 0);
		n = shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 8);
		CU_ASSERT_FATAL(n >= 1);
		CU_ASSERT_EQUAL(fr[n - 1].h.type, SHB_H2_GOAWAY);
		CU_ASSERT_EQUAL(memcmp(fr[n - 1].payload, "\0\0\0\0", 4), 0);
		CU_ASSERT_EQUAL(fr[n - 1].payload[7], code);
		/* Nothing more is read. */
		CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, "junk", 4), 4);
		shb_h2_fx_close(&f);
	}
}

static void expect_conn_error(const struct shb_h2_bytes *in, int raw,
			      uint32_t code, const char *text)
{
	expect_conn_error_step(in, raw, code, text, 1);
}

static void conn_error_frame(uint8_t type, uint8_t flags, uint32_t sid,
			     const void *p, size_t n, uint32_t code,
			     const char *text)
{
	struct shb_h2_bytes b = {0};

	shb_h2_srv_frame(&b, type, flags, sid, p, n);
	expect_conn_error(&b, 0, code, text);
	shb_h2_bytes_free(&b);
}

static void conn_error_setting(uint16_t id, uint32_t v, uint32_t code,
			       const char *text)
{
	struct shb_h2_bytes b = {0};
	struct shb_h2_setting_kv kv = {id, v};

	shb_h2_srv_settings(&b, &kv, 1);
	expect_conn_error(&b, 0, code, text);
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
	conn_error_frame(SHB_H2_SETTINGS, 0, 0, "\0\x01\0\0\0", 5,
			 SHB_H2_FRAME_SIZE_ERROR, "SETTINGS with length 5");
	conn_error_frame(SHB_H2_SETTINGS, SHB_H2_FLAG_ACK, 0, "\0\x01\0\0\0\0", 6,
			 SHB_H2_FRAME_SIZE_ERROR, "SETTINGS with length 6");
	conn_error_frame(SHB_H2_SETTINGS, 0, 1, NULL, 0, SHB_H2_PROTOCOL_ERROR,
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
	server_hello(&f);
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

	conn_error_frame(SHB_H2_DATA, 0, 0, "x", 1, SHB_H2_PROTOCOL_ERROR,
			 "DATA on stream 0");
	conn_error_frame(SHB_H2_DATA, 0, 5, "x", 1, SHB_H2_PROTOCOL_ERROR,
			 "DATA on stream 5, which we never opened");
	conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 2, "\x88", 1,
			 SHB_H2_PROTOCOL_ERROR, "HEADERS on stream 2");
	conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 0, "\x88", 1,
			 SHB_H2_PROTOCOL_ERROR, "HEADERS on stream 0");
	conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 3, "\x88", 1,
			 SHB_H2_PROTOCOL_ERROR, "HEADERS on stream 3, which we never opened");
	conn_error_frame(SHB_H2_PUSH_PROMISE, SHB_H2_FLAG_END_HEADERS, 1,
			 "\0\0\0\x02\x88", 5, SHB_H2_PROTOCOL_ERROR,
			 "PUSH_PROMISE, but push is disabled");
	conn_error_frame(SHB_H2_PING, 0, 0, "1234567", 7,
			 SHB_H2_FRAME_SIZE_ERROR, "PING with length 7");
	conn_error_frame(SHB_H2_PING, 0, 1, "12345678", 8,
			 SHB_H2_PROTOCOL_ERROR, "PING on stream 1");
	conn_error_frame(SHB_H2_GOAWAY, 0, 0, "1234567", 7,
			 SHB_H2_FRAME_SIZE_ERROR, "GOAWAY with length 7");
	conn_error_frame(SHB_H2_GOAWAY, 0, 1, "12345678", 8,
			 SHB_H2_PROTOCOL_ERROR, "GOAWAY on stream 1");
	conn_error_frame(SHB_H2_RST_STREAM, 0, 0, "\0\0\0\x08", 4,
			 SHB_H2_PROTOCOL_ERROR, "RST_STREAM on stream 0");
	conn_error_frame(SHB_H2_RST_STREAM, 0, 1, "\0\0\x08", 3,
			 SHB_H2_FRAME_SIZE_ERROR, "RST_STREAM with length 3");
	conn_error_frame(SHB_H2_RST_STREAM, 0, 9, "\0\0\0\x08", 4,
			 SHB_H2_PROTOCOL_ERROR, "RST_STREAM on stream 9, which we never opened");
	conn_error_frame(SHB_H2_WINDOW_UPDATE, 0, 0, "\0\0\x08", 3,
			 SHB_H2_FRAME_SIZE_ERROR, "WINDOW_UPDATE with length 3");
	conn_error_frame(SHB_H2_WINDOW_UPDATE, 0, 0, "\0\0\0\0", 4,
			 SHB_H2_PROTOCOL_ERROR, "connection WINDOW_UPDATE of 0");
	conn_error_frame(SHB_H2_WINDOW_UPDATE, 0, 0, "\x7f\xff\xff\xff", 4,
			 SHB_H2_FLOW_CONTROL_ERROR, "connection window above 2^31-1");
	conn_error_frame(SHB_H2_PRIORITY, 0, 1, "\0\0\0\0", 4,
			 SHB_H2_FRAME_SIZE_ERROR, "PRIORITY with length 4");
	conn_error_frame(SHB_H2_CONTINUATION, SHB_H2_FLAG_END_HEADERS, 1, "\x88", 1,
			 SHB_H2_PROTOCOL_ERROR, "CONTINUATION without HEADERS");
	conn_error_frame(0x42, 0, 0, big, sizeof(big), SHB_H2_FRAME_SIZE_ERROR,
			 "UNKNOWN of 16385 octets (limit 16384)");
	/* padding longer than the frame */
	conn_error_frame(SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_PADDED, 1,
			 "\x05\x88\0\0", 4, SHB_H2_PROTOCOL_ERROR,
			 "HEADERS padding longer than the frame");
	conn_error_frame(SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_PRIORITY, 1,
			 "\0\0\0", 3, SHB_H2_FRAME_SIZE_ERROR,
			 "HEADERS too short for its flags");
	/* HPACK: a reference beyond the (empty) dynamic table, size updates
	 * above our 4096 and after a field */
	conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1, "\x88\xbe", 2,
			 SHB_H2_COMPRESSION_ERROR,
			 "h2: stream 1: HPACK index beyond the dynamic table");
	conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x3f\xe2\x1f\x88", 4, SHB_H2_COMPRESSION_ERROR,
			 "size update above our SETTINGS_HEADER_TABLE_SIZE");
	conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1, "\x88\x20",
			 2, SHB_H2_COMPRESSION_ERROR, "size update after a field");
	conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1, "\x08\x03\x32",
			 3, SHB_H2_COMPRESSION_ERROR, "ends inside a field");
}

static void test_continuation_rules(void)
{
	struct shb_h2_bytes b = {0};

	/* another frame inside a header block */
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, 0, 1, "\x88", 1);
	shb_h2_srv_frame(&b, SHB_H2_PING, 0, 0, "12345678", 8);
	expect_conn_error(&b, 0, SHB_H2_PROTOCOL_ERROR,
			  "PING on stream 0 inside the header block of stream 1");
	/* a CONTINUATION of another stream */
	b.len = 0;
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, 0, 1, "\x88", 1);
	shb_h2_srv_frame(&b, SHB_H2_CONTINUATION, SHB_H2_FLAG_END_HEADERS, 3,
			 "", 0);
	expect_conn_error(&b, 0, SHB_H2_PROTOCOL_ERROR,
			  "CONTINUATION on stream 3 inside the header block of stream 1");
	/* DATA inside the block */
	b.len = 0;
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, 0, 1, "\x88", 1);
	shb_h2_srv_data(&b, 1, 0, "x");
	expect_conn_error(&b, 0, SHB_H2_PROTOCOL_ERROR, "DATA on stream 1 inside");
	shb_h2_bytes_free(&b);
}

static void test_first_frame_and_http1(void)
{
	struct shb_h2_bytes b = {0};
	static const char http1[] =
		"HTTP/1.1 400 Bad Request\r\nServer: nginx\r\n"
		"Content-Length: 0\r\n\r\n";

	shb_h2_bytes_add(&b, http1, strlen(http1));
	expect_conn_error(&b, 1, SHB_H2_PROTOCOL_ERROR,
			  "the server answered in HTTP/1.x: it does not speak "
			  "HTTP/2 over cleartext (h2c) on this port");
	b.len = 0;
	shb_h2_bytes_add(&b, "HTTP/", 5);
	expect_conn_error(&b, 1, SHB_H2_PROTOCOL_ERROR, "answered in HTTP/1.x");
	b.len = 0;
	shb_h2_srv_frame(&b, SHB_H2_PING, 0, 0, "12345678", 8);
	expect_conn_error(&b, 1, SHB_H2_PROTOCOL_ERROR,
			  "the server's first frame is PING, not SETTINGS");
	b.len = 0;
	shb_h2_srv_frame(&b, SHB_H2_SETTINGS, SHB_H2_FLAG_ACK, 0, NULL, 0);
	expect_conn_error(&b, 1, SHB_H2_PROTOCOL_ERROR,
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
			server_hello(&f);
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

/* ---- streams ------------------------------------------------------------------ */

static void test_goaway_refuses_above_line(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	uint64_t c[4];

	shb_h2_fx_open(&f, 0, 8, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	server_hello(&f);
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
	server_hello(&f);
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
	server_hello(&f);
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
	server_hello(&f);
	shb_h2_fx_issue(&f);
	CU_ASSERT_EQUAL(shb_h2_fx_recv_eof(&f), SHB_E_CLOSED);
	CU_ASSERT_STRING_EQUAL(shb_h2_fx_error_detail(&f),
			       "h2: the server closed the connection with 1 streams open");
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 0);
	shb_h2_fx_close(&f);
}

/* Malformed responses reset only their stream. */
static void stream_error_case(const struct shb_h2_bytes *b, const char *detail)
{
	struct shb_h2_fx f;
	struct shb_h2_fx_frame fr[4];
	const struct shb_kit_done *d;
	uint64_t c1, c2;

	shb_h2_fx_open(&f, 0, 4, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	server_hello(&f);
	c1 = shb_h2_fx_issue(&f);
	c2 = shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	f.sent.len = 0;
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b->p, b->len), (shb_ssize)b->len);
	CU_ASSERT_EQUAL_FATAL(shb_h2_kit.done_count, 1);
	d = shb_h2_fx_done(c1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_PROTO_ERROR);
	CU_ASSERT_EQUAL(d->res.err_space, SHB_ERRSPACE_H2);
	CU_ASSERT_STRING_EQUAL(d->detail, detail);
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 4), 1);
	CU_ASSERT_EQUAL(fr[0].h.type, SHB_H2_RST_STREAM);
	CU_ASSERT_EQUAL(fr[0].h.stream_id, 1);
	/* The other stream and the connection carry on. */
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f), 0);
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 3);
	{
		struct shb_h2_bytes ok = {0};

		shb_h2_srv_status(&ok, 3, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 200);
		CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, ok.p, ok.len), (shb_ssize)ok.len);
		CU_ASSERT_EQUAL(shb_h2_fx_done(c2)->res.status, 200);
		shb_h2_bytes_free(&ok);
	}
	shb_h2_fx_close(&f);
}

static void test_malformed_responses(void)
{
	struct shb_h2_bytes b = {0};

	shb_h2_srv_frame(&b, SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x40\x01\x61\x01\x62", 5);
	stream_error_case(&b, "response head without :status");
	b.len = 0;
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x08\x02\x32\x30", 4);
	stream_error_case(&b, "malformed :status (not three digits 100-999)");
	b.len = 0;
	shb_h2_srv_data(&b, 1, 0, "early");
	stream_error_case(&b, "DATA before the response headers");
	b.len = 0;
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 100);
	stream_error_case(&b, "invalid interim response");
	b.len = 0;
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 101);
	stream_error_case(&b, "invalid interim response");
	b.len = 0;
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 200);
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x40\x01\x61\x01\x62", 5);
	stream_error_case(&b, "header block after the response head without END_STREAM");
	b.len = 0;
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 200);
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 200);
	stream_error_case(&b, "a second response head (:status in trailers)");
	b.len = 0;
	shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 1, 0);
	stream_error_case(&b, "stream WINDOW_UPDATE of 0");
	b.len = 0;
	shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 1, 0x7fffffff);
	stream_error_case(&b, "stream window above 2^31-1");
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
	server_hello(&f);
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
	shb_h2_srv_settings(&b, nginx_settings, 3);
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
	server_hello(&f);
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
	server_hello(&f); /* MAX_FRAME_SIZE 16777215: one frame */
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
	server_hello(&f);
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
	server_hello(&f);
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
	server_hello(&f);
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
	server_hello(&f);
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
	server_hello(&f);
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
	shb_h2_srv_settings(&b, nginx_settings, 3);
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
	shb_h2_srv_settings(&b, nginx_settings, 3);
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

/* ---- the server's HPACK dynamic table ------------------------------------ */

/* A server that indexes its responses (as h2o does): each block refers
 * to entries earlier blocks added, including blocks of a stream we
 * cancelled, trailers, a 1xx head and a block split over CONTINUATION. */
static void indexing_conversation(struct shb_h2_bytes *b)
{
	uint8_t blk[16];
	size_t n = 0;

	/* 1: :status 200 and x: y, both indexed -> [x:y, 200] */
	shb_h2_srv_frame(b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 1,
			 "\x48\x03" "200" "\x40\x01x\x01y", 10);
	/* 3 (cancelled): :status with a Huffman "404", indexed
	 * -> [404, x:y, 200] */
	blk[n++] = 0x48;
	n += shb_huff_encode((const uint8_t *)"404", 3, blk + n + 1, 8);
	blk[1] = (uint8_t)(0x80 | (n - 1));
	n++;
	shb_h2_srv_frame(b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 3,
			 blk, n);
	/* 5: 62 is 404 */
	shb_h2_srv_frame(b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 5,
			 "\xbe", 1);
	/* 7: 64 is 200; a body; trailers that index a: b
	 * -> [a:b, 404, x:y, 200] */
	shb_h2_srv_frame(b, SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 7,
			 "\xc0", 1);
	shb_h2_srv_data(b, 7, 0, "ok");
	shb_h2_srv_frame(b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 7,
			 "\x40\x01" "a" "\x01" "b", 5);
	/* 9: the name of 65 (:status, 200) with 201, over HEADERS +
	 * CONTINUATION */
	shb_h2_srv_frame(b, SHB_H2_HEADERS, SHB_H2_FLAG_END_STREAM, 9,
			 "\x0f", 1);
	shb_h2_srv_frame(b, SHB_H2_CONTINUATION, SHB_H2_FLAG_END_HEADERS, 9,
			 "\x32\x03" "201", 5);
	/* 11: an indexed 103 -> [103, a:b, 404, x:y, 200], then 64 is 404 */
	shb_h2_srv_frame(b, SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 11,
			 "\x48\x03" "103", 5);
	shb_h2_srv_frame(b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 11,
			 "\xc0", 1);
	/* 13: a size update to 0 empties the table */
	shb_h2_srv_frame(b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 13,
			 "\x20\x88", 2);
}

static void run_indexing(const struct shb_h2_bytes *in, size_t cut,
			 int bytewise)
{
	static const uint32_t want_status[7] = {200, 0, 404, 200, 201, 404, 200};
	struct shb_h2_fx f;
	uint64_t cookies[7];

	shb_h2_fx_open(&f, 0, 8, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	server_hello(&f);
	for (int i = 0; i < 7; i++)
		cookies[i] = shb_h2_fx_issue(&f);
	shb_h2_fx_cancel(&f, cookies[1]);
	if (bytewise) {
		for (size_t i = 0; i < in->len; i++)
			CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, in->p + i, 1), 1);
	} else {
		CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, in->p, cut), (shb_ssize)cut);
		CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, in->p + cut, in->len - cut),
				(shb_ssize)(in->len - cut));
	}
	CU_ASSERT_PTR_NULL(shb_h2_fx_error_detail(&f));
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 6);
	for (int i = 0; i < 7; i++) {
		const struct shb_kit_done *d = shb_h2_fx_done(cookies[i]);

		if (i == 1) {
			CU_ASSERT_PTR_NULL(d);
			continue;
		}
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_OK);
		CU_ASSERT_EQUAL(d->res.status, want_status[i]);
	}
	CU_ASSERT_EQUAL(shb_h2_fx_done(cookies[3])->res.rx_body_bytes, 2);
	CU_ASSERT_EQUAL(f.c->dtable.count, 0);
	CU_ASSERT_EQUAL(f.c->dtable.max, 0);
	shb_h2_fx_close(&f);
}

static void test_server_indexes(void)
{
	struct shb_h2_bytes in = {0};

	indexing_conversation(&in);
	for (size_t cut = 0; cut <= in.len; cut++)
		run_indexing(&in, cut, 0);
	run_indexing(&in, 0, 1);
	shb_h2_bytes_free(&in);
}

/* The table is the connection's: an entry added on one stream is gone
 * for the next block after a size update, and a reference to it is a
 * connection error (COMPRESSION_ERROR) that names the stream. */
static void test_index_beyond_table_is_fatal(void)
{
	struct shb_h2_bytes b = {0};

	/* 200, a: b indexed and referenced (62) */
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x48\x03" "200" "\x40\x01" "a" "\x01" "b" "\xbe", 11);
	/* trailers: the same reference after a size update to 0 */
	shb_h2_srv_frame(&b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 1,
			 "\x20\xbe", 2);
	expect_conn_error(&b, 0, SHB_H2_COMPRESSION_ERROR,
			  "h2: stream 1: HPACK index beyond the dynamic table");
	shb_h2_bytes_free(&b);
}

/* ---- hostile peers: malformed responses, caps, floods ----------------- */

/* Responses RFC 9113 Section 8.3 calls malformed reset their stream and
 * count as protocol errors; broken Huffman strings anywhere in a block
 * are a connection error (COMPRESSION_ERROR). */
static void test_malformed_pseudo_headers(void)
{
	static const struct {
		const char *blk;
		size_t len;
		const char *detail;
	} v[] = {
		{"\x88\x82", 2, "request or unknown pseudo-header field in a response"},
		{"\x88\x84", 2, "request or unknown pseudo-header field in a response"},
		{"\x88\x81", 2, "request or unknown pseudo-header field in a response"},
		{"\x88\x87", 2, "request or unknown pseudo-header field in a response"},
		{"\x88\x00\x09:protocol\x03" "foo", 16,
		 "request or unknown pseudo-header field in a response"},
		{"\x88\x00\x04:foo\x01x", 9,
		 "request or unknown pseudo-header field in a response"},
		{"\x0f\x0d\x01" "0\x88", 5, "pseudo-header field after a regular field"},
		{"\x88\x88", 2, "more than one :status"},
		{"\x88\x08\x03" "200", 6, "more than one :status"},
		{"\x88\x00\x03X-a\x01v", 8, "uppercase letter in a field name"},
	};
	struct shb_h2_bytes b = {0};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		b.len = 0;
		shb_h2_srv_frame(&b, SHB_H2_HEADERS,
				 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM,
				 1, v[i].blk, v[i].len);
		stream_error_case(&b, v[i].detail);
	}
	/* trailers: no pseudo-headers at all, names lower case */
	b.len = 0;
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 200);
	shb_h2_srv_frame(&b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 1,
			 "\x84", 1);
	stream_error_case(&b, "pseudo-header field in trailers");
	b.len = 0;
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 200);
	shb_h2_srv_frame(&b, SHB_H2_HEADERS,
			 SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 1,
			 "\x00\x01Q\x01v", 5);
	stream_error_case(&b, "uppercase letter in a field name");
	shb_h2_bytes_free(&b);
}

static void test_huffman_errors_are_fatal(void)
{
	/* EOS inside a value that is not indexed; a name with a zero in
	 * its padding; 11 bits of padding in a never-indexed value */
	conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x88\x0f\x0d\x84\xff\xff\xff\xff", 8,
			 SHB_H2_COMPRESSION_ERROR,
			 "h2: stream 1: HPACK Huffman string with an EOS or bad padding");
	conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x88\x00\x81\x18\x01\x62", 6, SHB_H2_COMPRESSION_ERROR,
			 "HPACK Huffman string with an EOS or bad padding");
	conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x88\x1f\x0d\x82\x1f\xff", 6, SHB_H2_COMPRESSION_ERROR,
			 "HPACK Huffman string with an EOS or bad padding");
	/* a prefixed integer past 2^62 */
	conn_error_frame(SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
			 "\x88\x00\x7f\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01",
			 13, SHB_H2_COMPRESSION_ERROR, "HPACK integer out of range");
}

/* At most 16 interim heads per stream: the 17th resets it. */
static void test_interim_flood(void)
{
	struct shb_h2_bytes b = {0};
	struct shb_h2_fx f;
	uint64_t c;

	for (int i = 0; i < 17; i++)
		shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 100);
	stream_error_case(&b, "more than 16 interim (1xx) responses (cap 16)");
	/* 16, then the final head: fine */
	b.len = 0;
	for (int i = 0; i < 16; i++)
		shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 103);
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM,
			  204);
	shb_h2_fx_open(&f, 0, 2, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	server_hello(&f);
	c = shb_h2_fx_issue(&f);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(shb_h2_fx_done(c));
	CU_ASSERT_EQUAL(shb_h2_fx_done(c)->res.outcome, SHB_REQ_OK);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c)->res.status, 204);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

/* Header blocks: 64 frames and 256 KiB at most, the decoded list 256 KiB
 * at most (an HPACK bomb of references to one big entry); SETTINGS with
 * at most 32 entries. All ENHANCE_YOUR_CALM, naming the cap. */
static void test_block_caps(void)
{
	struct shb_h2_bytes b = {0};
	static uint8_t chunk[16384];
	static char value[3968];
	uint8_t blk[8192];
	size_t n = 0;

	/* endless empty CONTINUATION: 63 are fine, the 64th... is the
	 * 65th frame of the block */
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, 0, 1, "\x88", 1);
	for (int i = 0; i < 64; i++)
		shb_h2_srv_frame(&b, SHB_H2_CONTINUATION, 0, 1, NULL, 0);
	expect_conn_error(&b, 0, SHB_H2_ENHANCE_YOUR_CALM,
			  "h2: stream 1: header block in more than 64 frames (cap 64)");
	/* 17 full frames of one endless value */
	b.len = 0;
	memset(chunk, 'v', sizeof(chunk));
	chunk[0] = 0x88;
	chunk[1] = 0x00;
	chunk[2] = 0x01;
	chunk[3] = 'x';
	chunk[4] = 0x7f; /* value length 127 + 2^21 */
	chunk[5] = 0x80;
	chunk[6] = 0x80;
	chunk[7] = 0x80;
	chunk[8] = 0x01;
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, 0, 1, chunk, sizeof(chunk));
	memset(chunk, 'v', 9);
	for (int i = 0; i < 16; i++)
		shb_h2_srv_frame(&b, SHB_H2_CONTINUATION, 0, 1, chunk,
				 sizeof(chunk));
	expect_conn_error_step(&b, 0, SHB_H2_ENHANCE_YOUR_CALM,
			       "h2: stream 1: header block of more than 262144 octets (cap 262144)",
			       4099);
	/* the bomb: a 4000-octet entry, then 66 one-octet references */
	b.len = 0;
	memset(value, 'v', sizeof(value) - 1);
	blk[n++] = 0x88;
	blk[n++] = 0x40;
	blk[n++] = 0x01;
	blk[n++] = 'x';
	n += shb_prefint_encode(blk + n, 8, 7, 0x00, sizeof(value) - 1);
	memcpy(blk + n, value, sizeof(value) - 1);
	n += sizeof(value) - 1;
	for (int i = 0; i < 66; i++)
		blk[n++] = 0xbe;
	shb_h2_srv_frame(&b, SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1, blk, n);
	expect_conn_error_step(&b, 0, SHB_H2_ENHANCE_YOUR_CALM,
			       "h2: stream 1: response header list above 262144 octets (cap 262144)",
			       97);
	/* 33 SETTINGS entries */
	b.len = 0;
	memset(blk, 0, 33 * 6);
	shb_h2_srv_frame(&b, SHB_H2_SETTINGS, 0, 0, blk, 33 * 6);
	expect_conn_error(&b, 0, SHB_H2_ENHANCE_YOUR_CALM,
			  "h2: SETTINGS with 33 entries (cap 32)");
	shb_h2_bytes_free(&b);
}

/* More frames on stream 0 and idle streams that must not be there. */
static void test_stream_rules(void)
{
	conn_error_frame(SHB_H2_PRIORITY, 0, 0, "\0\0\0\x01\x10", 5,
			 SHB_H2_PROTOCOL_ERROR, "PRIORITY on stream 0");
	conn_error_frame(SHB_H2_CONTINUATION, SHB_H2_FLAG_END_HEADERS, 0, "\x88",
			 1, SHB_H2_PROTOCOL_ERROR, "CONTINUATION without HEADERS");
	conn_error_frame(SHB_H2_WINDOW_UPDATE, 0, 7, "\0\0\0\x01", 4,
			 SHB_H2_PROTOCOL_ERROR,
			 "WINDOW_UPDATE on stream 7, which we never opened");
	conn_error_frame(SHB_H2_WINDOW_UPDATE, 0, 2, "\0\0\0\x01", 4,
			 SHB_H2_PROTOCOL_ERROR,
			 "WINDOW_UPDATE on stream 2, which we never opened");
	conn_error_frame(SHB_H2_RST_STREAM, 0, 4, "\0\0\0\x08", 4,
			 SHB_H2_PROTOCOL_ERROR,
			 "RST_STREAM on stream 4, which we never opened");
	conn_error_frame(SHB_H2_PUSH_PROMISE, SHB_H2_FLAG_END_HEADERS, 0,
			 "\0\0\0\x02\x88", 5, SHB_H2_PROTOCOL_ERROR,
			 "PUSH_PROMISE, but push is disabled");
}

/* Feeds `count` copies of frame[len] in chunks of 100 frames, flushing
 * after each chunk (a peer that reads): the frames up to the cap pass,
 * the one after it fails the connection with ENHANCE_YOUR_CALM. When
 * `step_ns` is non-zero the clock moves that much per chunk instead, and
 * every frame passes. `after_hello` runs once the server's SETTINGS are
 * in (an open stream, a finished one). */
static void flood_case(const uint8_t *frame, size_t len, uint32_t count,
		       uint64_t step_ns, const char *text,
		       void (*after_hello)(struct shb_h2_fx *f))
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	static struct shb_h2_fx_frame fr[128];
	uint32_t fed = 0;
	shb_ssize r = 0;

	shb_h2_fx_open(&f, 0, 4, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	server_hello(&f);
	if (after_hello)
		after_hello(&f);
	for (int i = 0; i < 100; i++)
		shb_h2_bytes_add(&b, frame, len);
	while (fed < count) {
		uint32_t k = count - fed < 100 ? count - fed : 100;

		r = shb_h2_fx_recv(&f, b.p, k * len);
		if (r < 0)
			break;
		CU_ASSERT_EQUAL_FATAL(r, (shb_ssize)(k * len));
		fed += k;
		shb_h2_fx_flush(&f, 0);
		f.sent.len = 0;
		f.now += step_ns;
	}
	if (!text) {
		CU_ASSERT_EQUAL(r, (shb_ssize)((count % 100 ? count % 100 : 100) * len));
		CU_ASSERT_NOT_EQUAL(shb_h2_fx_state(&f), SHB_CS_CLOSED);
	} else {
		CU_ASSERT_EQUAL(r, SHB_E_PROTO);
		CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_CLOSED);
		if (!strstr(shb_h2_fx_error_detail(&f), text))
			fprintf(stderr, "\n  detail: %s\n", shb_h2_fx_error_detail(&f));
		CU_ASSERT_PTR_NOT_NULL(strstr(shb_h2_fx_error_detail(&f), text));
		shb_h2_fx_flush(&f, 0);
		{
			size_t n = shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 128);

			CU_ASSERT_FATAL(n >= 1);
			CU_ASSERT_EQUAL(fr[n - 1].h.type, SHB_H2_GOAWAY);
			CU_ASSERT_EQUAL(fr[n - 1].payload[7],
					SHB_H2_ENHANCE_YOUR_CALM);
		}
	}
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

static void open_stream_1(struct shb_h2_fx *f)
{
	struct shb_h2_bytes b = {0};

	shb_h2_fx_issue(f);
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 200);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(f, b.p, b.len), (shb_ssize)b.len);
	shb_h2_fx_flush(f, 0);
	f->sent.len = 0;
	shb_h2_bytes_free(&b);
}

static void finished_stream_1(struct shb_h2_fx *f)
{
	struct shb_h2_bytes b = {0};

	shb_h2_fx_issue(f);
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM,
			  200);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(f, b.p, b.len), (shb_ssize)b.len);
	CU_ASSERT_EQUAL(shb_h2_kit.done_count, 1);
	shb_h2_bytes_free(&b);
}

/* Rate limits per second, as nghttp2 has them: PING, SETTINGS,
 * RST_STREAM (here on a stream already done), empty DATA, and
 * WINDOW_UPDATE on a connection where we send no DATA. At the cap all
 * pass; one more fails; spread over seconds, any number passes. */
static void test_floods(void)
{
	static const uint8_t ping[] = {0, 0, 8, 6, 0, 0, 0, 0, 0,
				       1, 2, 3, 4, 5, 6, 7, 8};
	static const uint8_t settings[] = {0, 0, 0, 4, 0, 0, 0, 0, 0};
	static const uint8_t rst[] = {0, 0, 4, 3, 0, 0, 0, 0, 1, 0, 0, 0, 8};
	static const uint8_t empty_data[] = {0, 0, 0, 0, 0, 0, 0, 0, 1};
	static const uint8_t wu[] = {0, 0, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	const uint64_t sec = SHB_H2_FLOOD_INTERVAL;

	CU_ASSERT_EQUAL(shb_h2_flood_caps[SHB_H2_FLOOD_PING], 10000);
	flood_case(ping, sizeof(ping), 10000, 0, NULL, NULL);
	flood_case(ping, sizeof(ping), 10001, 0,
		   "h2: peer flood: more than 10000 PING frames in a second (cap 10000)",
		   NULL);
	flood_case(ping, sizeof(ping), 30000, sec / 20, NULL, NULL);
	/* the hello's SETTINGS counts too */
	flood_case(settings, sizeof(settings), 999, 0, NULL, NULL);
	flood_case(settings, sizeof(settings), 1000, 0,
		   "more than 1000 SETTINGS frames in a second (cap 1000)", NULL);
	flood_case(settings, sizeof(settings), 3000, sec / 5, NULL, NULL);
	flood_case(rst, sizeof(rst), 10000, 0, NULL, finished_stream_1);
	flood_case(rst, sizeof(rst), 10001, 0,
		   "more than 10000 RST_STREAM frames in a second (cap 10000)",
		   finished_stream_1);
	flood_case(empty_data, sizeof(empty_data), 1000, 0, NULL, open_stream_1);
	flood_case(empty_data, sizeof(empty_data), 1001, 0,
		   "more than 1000 empty DATA frames in a second (cap 1000)",
		   open_stream_1);
	flood_case(empty_data, sizeof(empty_data), 5000, sec / 5, NULL,
		   open_stream_1);
	flood_case(wu, sizeof(wu), 1000, 0, NULL, NULL);
	flood_case(wu, sizeof(wu), 1001, 0,
		   "more than 1000 WINDOW_UPDATE (with no DATA of ours to update) frames in a second (cap 1000)",
		   NULL);
}

/* A peer that floods PINGs and never reads: recv takes frames until 256
 * ACKs wait, then takes nothing more (WANT_WRITE) until a send drains
 * them; every PING is still answered, in order. */
static void test_ping_backpressure(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	struct shb_h2_fx_frame *fr = calloc(1000, sizeof(*fr));
	size_t off = 0, acks = 0, rounds = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(fr);
	for (uint32_t i = 0; i < 1000; i++) {
		uint8_t p[8] = {0, 0, 0, 0, (uint8_t)(i >> 24),
				(uint8_t)(i >> 16), (uint8_t)(i >> 8), (uint8_t)i};

		shb_h2_srv_frame(&b, SHB_H2_PING, 0, 0, p, 8);
	}
	shb_h2_fx_open(&f, 0, 4, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	server_hello(&f);
	while (off < b.len) {
		shb_ssize r = shb_h2_fx_recv(&f, b.p + off, b.len - off);
		size_t want = b.len - off < SHB_H2_CTRL_SOFT * 17u
				      ? b.len - off
				      : SHB_H2_CTRL_SOFT * 17u;

		CU_ASSERT_EQUAL_FATAL(r, (shb_ssize)want);
		off += (size_t)r;
		if (off < b.len) {
			CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_WANT_WRITE);
			/* offered again before a send: nothing taken */
			CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p + off, b.len - off), 0);
			CU_ASSERT_EQUAL(f.c->ctrl_fill + f.c->ctrl_busy,
					SHB_H2_CTRL_SOFT);
		}
		shb_h2_fx_flush(&f, 0);
		rounds++;
	}
	CU_ASSERT_EQUAL(rounds, 4);
	acks = shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 1000);
	CU_ASSERT_EQUAL_FATAL(acks, 1000);
	for (size_t i = 0; i < acks; i++) {
		CU_ASSERT_EQUAL(fr[i].h.type, SHB_H2_PING);
		CU_ASSERT_EQUAL(fr[i].h.flags, SHB_H2_FLAG_ACK);
		CU_ASSERT_EQUAL(fr[i].payload[6], (uint8_t)(i >> 8));
		CU_ASSERT_EQUAL(fr[i].payload[7], (uint8_t)i);
	}
	/* a partly sent buffer still counts what it holds */
	CU_ASSERT_EQUAL(f.c->ctrl_fill + f.c->ctrl_busy, 0);
	free(fr);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

/* The hard cap: 1000 control frames wait at most. 1000 cancels while the
 * transport takes nothing queue 1000 RST_STREAM; the next one fails the
 * connection. */
static void test_control_hard_cap(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	static const struct shb_h2_setting_kv kv[] = {
		{SHB_H2_SET_MAX_CONCURRENT_STREAMS, 5000}};
	uint64_t first;

	shb_h2_fx_open(&f, 0, 1024, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_srv_settings(&b, kv, 1);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), (shb_ssize)b.len);
	first = f.next_cookie;
	for (int i = 0; i < 1001; i++)
		shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	/* the SETTINGS ACK went out; now nothing more is sent */
	for (uint64_t c = first; c < first + SHB_H2_CTRL_HARD; c++)
		shb_h2_fx_cancel(&f, c);
	CU_ASSERT_EQUAL(shb_h2_ctrl_pending(f.c), SHB_H2_CTRL_HARD);
	CU_ASSERT_NOT_EQUAL(shb_h2_fx_state(&f), SHB_CS_CLOSED);
	shb_h2_fx_cancel(&f, first + SHB_H2_CTRL_HARD);
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f), SHB_CS_CLOSED);
	CU_ASSERT_STRING_EQUAL(shb_h2_fx_error_detail(&f),
			       "h2: peer flood: more than 1000 control frames queued (cap 1000)");
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

CU_TestInfo shb_h2_conn_tests[] = {
	{"preface, SETTINGS, capacity", test_preface_and_capacity},
	{"simple GET", test_simple_get},
	{"reader: every split of a busy conversation", test_reader_every_split},
	{"reader: one octet at a time", test_reader_bytewise},
	{"SETTINGS validation", test_settings_validation},
	{"frame errors", test_frame_errors},
	{"frames after the peer ended a stream", test_late_frames},
	{"CONTINUATION rules", test_continuation_rules},
	{"first frame; HTTP/1 answer", test_first_frame_and_http1},
	{"garbage gives a clean error", test_garbage},
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
	{"cancel in the middle of a frame", test_cancel_mid_frame},
	{"shutdown", test_shutdown},
	{"two output buffers", test_two_output_buffers},
	{"--disable-keepalive", test_disable_keepalive},
	{"SHB_DEBUG traces", test_debug_traces},
	{"a server that indexes its responses", test_server_indexes},
	{"reference beyond the dynamic table", test_index_beyond_table_is_fatal},
	{"malformed responses: pseudo-headers, :status, uppercase",
	 test_malformed_pseudo_headers},
	{"bad Huffman strings and integers are connection errors",
	 test_huffman_errors_are_fatal},
	{"interim (1xx) flood", test_interim_flood},
	{"header block, list and SETTINGS caps", test_block_caps},
	{"frames on stream 0 and idle streams", test_stream_rules},
	{"PING, SETTINGS, RST_STREAM, empty DATA, WINDOW_UPDATE floods",
	 test_floods},
	{"PING flood without reading: backpressure", test_ping_backpressure},
	{"control frame hard cap", test_control_hard_cap},
	CU_TEST_INFO_NULL,
};
