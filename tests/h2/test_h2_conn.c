/* The connection driven through the vtable like the core drives it, under
 * the test kit (shb/kit.h): its fake host records req_done and conn_event
 * and checks the host's rules (every connection ends asserting that none
 * was broken), its clock gives each call its `now`. This file: the
 * start, a simple exchange, and the reader fed a whole conversation split
 * at every offset; test_h2_conn_errors.c, test_h2_conn_streams.c and
 * test_h2_conn_hostile.c the rest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_fixture.h"
#include "http_huffman.h"
#include "http_prefint.h"

/* ---- start and a simple exchange ---------------------------------------- */

static void test_preface_and_capacity(void)
{
	struct shb_h2_fx f;

	shb_h2_fx_open(&f, 0, 200, NULL, 0, NULL, 0, 0);
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f), 0);
	shb_h2_fx_ready(&f);
	/* 100 streams until the peer's SETTINGS. */
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 100);
	shb_h2_fx_hello(&f);
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

	shb_h2_srv_settings(&b, shb_h2_fx_nginx_settings, 3);
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

CU_TestInfo shb_h2_conn_tests[] = {
	{"preface, SETTINGS, capacity", test_preface_and_capacity},
	{"simple GET", test_simple_get},
	{"reader: every split of a busy conversation", test_reader_every_split},
	{"reader: one octet at a time", test_reader_bytewise},
	CU_TEST_INFO_NULL,
};
