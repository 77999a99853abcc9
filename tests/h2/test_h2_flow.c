/* Flow control: request bodies cut by the peer's windows and max frame
 * size and pumped on WINDOW_UPDATE and SETTINGS changes; our receive
 * windows topped up well before they run out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_fixture.h"

static uint8_t *make_body(size_t n)
{
	uint8_t *b = malloc(n);

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + i / 251);
	return b;
}

/* Collects the DATA sent so far for stream sid into `body`; returns the
 * number of DATA frames and sets *end when END_STREAM was seen. Frames
 * are checked against max_frame. */
static size_t take_data(struct shb_h2_fx *f, uint32_t sid, size_t max_frame,
			struct shb_h2_bytes *body, int *end)
{
	static struct shb_h2_fx_frame fr[4096];
	size_t n, k = 0;

	shb_h2_fx_flush(f, 0);
	n = shb_h2_fx_frames(f->sent.p, f->sent.len, fr, 4096);
	for (size_t i = 0; i < n; i++) {
		if (fr[i].h.type != SHB_H2_DATA)
			continue;
		CU_ASSERT_EQUAL(fr[i].h.stream_id, sid);
		CU_ASSERT(fr[i].h.length <= max_frame);
		CU_ASSERT(fr[i].h.length > 0);
		CU_ASSERT_FALSE(*end);
		shb_h2_bytes_add(body, fr[i].payload, fr[i].h.length);
		if (fr[i].h.flags & SHB_H2_FLAG_END_STREAM)
			*end = 1;
		CU_ASSERT_EQUAL(fr[i].h.flags & ~SHB_H2_FLAG_END_STREAM, 0);
		k++;
	}
	f->sent.len = 0;
	return k;
}

static void feed(struct shb_h2_fx *f, struct shb_h2_bytes *b)
{
	shb_ssize r = shb_h2_fx_recv(f, b->p, b->len);

	if (r != (shb_ssize)b->len)
		fprintf(stderr, "\n  recv: %s\n", shb_h2_fx_error_detail(f));
	CU_ASSERT_EQUAL(r, (shb_ssize)b->len);
	b->len = 0;
}

/* 200 KB against a server with 64 KiB windows and 16 KiB frames. */
static void test_body_small_windows(void)
{
	const size_t len = 200 * 1024;
	uint8_t *body = make_body(len);
	struct shb_h2_fx f;
	struct shb_h2_bytes got = {0}, b = {0};
	struct shb_h2_stream *s;
	static const struct shb_h2_setting_kv wider[] = {
		{SHB_H2_SET_INITIAL_WINDOW_SIZE, 100000}};
	int end = 0;
	uint64_t c;

	shb_h2_fx_open(&f, 0, 4, body, len, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_srv_settings(&b, NULL, 0);
	feed(&f, &b);
	c = shb_h2_fx_issue(&f);
	s = shb_h2_stream_find(f.c, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	/* 65535 = 3 x 16384 + 16383, then both windows are empty. */
	CU_ASSERT_EQUAL(take_data(&f, 1, 16384, &got, &end), 4);
	CU_ASSERT_EQUAL(got.len, 65535);
	CU_ASSERT_EQUAL(s->send_window, 0);
	CU_ASSERT_EQUAL(f.c->send_window, 0);
	CU_ASSERT_EQUAL(shb_h2_fx_state(&f), 0);
	/* A larger initial window applies to the open stream, but the
	 * connection window still blocks. */
	shb_h2_srv_settings(&b, wider, 1);
	feed(&f, &b);
	CU_ASSERT_EQUAL(s->send_window, 100000 - 65535);
	CU_ASSERT_EQUAL(take_data(&f, 1, 16384, &got, &end), 0);
	/* Connection +50000: the stream's 34465 go. */
	shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 0, 50000);
	feed(&f, &b);
	CU_ASSERT_EQUAL(take_data(&f, 1, 16384, &got, &end), 3);
	CU_ASSERT_EQUAL(got.len, 100000);
	CU_ASSERT_EQUAL(s->send_window, 0);
	CU_ASSERT_EQUAL(f.c->send_window, 50000 - 34465);
	/* Stream +200000: the connection's 15535 go. */
	shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 1, 200000);
	feed(&f, &b);
	CU_ASSERT_EQUAL(take_data(&f, 1, 16384, &got, &end), 1);
	CU_ASSERT_EQUAL(got.len, 115535);
	CU_ASSERT_EQUAL(f.c->send_window, 0);
	CU_ASSERT_EQUAL(s->send_window, 200000 - 15535);
	/* Connection +1000000: the rest, END_STREAM on the last frame. */
	shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 0, 1000000);
	feed(&f, &b);
	take_data(&f, 1, 16384, &got, &end);
	CU_ASSERT(end);
	CU_ASSERT_EQUAL_FATAL(got.len, len);
	CU_ASSERT_EQUAL(memcmp(got.p, body, len), 0);
	CU_ASSERT_EQUAL(f.c->send_window, 1000000 - (len - 115535));
	CU_ASSERT_EQUAL(f.c->body_streams, 0);
	/* The response completes the request normally. */
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 201);
	feed(&f, &b);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c)->res.status, 201);
	shb_h2_bytes_free(&got);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
	free(body);
}

/* A smaller initial window makes open stream windows negative; DATA
 * resumes only once they are positive again. */
static void test_initial_window_decrease(void)
{
	const size_t len = 70000;
	uint8_t *body = make_body(len);
	struct shb_h2_fx f;
	struct shb_h2_bytes got = {0}, b = {0};
	struct shb_h2_stream *s;
	static const struct shb_h2_setting_kv small[] = {
		{SHB_H2_SET_INITIAL_WINDOW_SIZE, 1000}};
	int end = 0;

	shb_h2_fx_open(&f, 0, 4, body, len, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_srv_settings(&b, NULL, 0);
	feed(&f, &b);
	shb_h2_fx_issue(&f);
	s = shb_h2_stream_find(f.c, 1);
	CU_ASSERT_EQUAL(take_data(&f, 1, 16384, &got, &end), 4);
	shb_h2_srv_settings(&b, small, 1);
	shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 0, 100000);
	feed(&f, &b);
	CU_ASSERT_EQUAL(s->send_window, 1000 - 65535);
	CU_ASSERT_EQUAL(take_data(&f, 1, 16384, &got, &end), 0);
	shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 1, 64535);
	feed(&f, &b);
	CU_ASSERT_EQUAL(s->send_window, 0);
	CU_ASSERT_EQUAL(take_data(&f, 1, 16384, &got, &end), 0);
	shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 1, 10);
	feed(&f, &b);
	CU_ASSERT_EQUAL(take_data(&f, 1, 16384, &got, &end), 1);
	CU_ASSERT_EQUAL(got.len, 65545);
	CU_ASSERT_FALSE(end);
	/* A stream window overflowing through SETTINGS is an error. */
	{
		static const struct shb_h2_setting_kv huge[] = {
			{SHB_H2_SET_INITIAL_WINDOW_SIZE, 0x7fffffff}};

		shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 1, 0x7fff0000);
		feed(&f, &b);
		shb_h2_srv_settings(&b, huge, 1);
		CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), SHB_E_PROTO);
		CU_ASSERT_PTR_NOT_NULL(strstr(shb_h2_fx_error_detail(&f),
					      "overflows the window of stream 1"));
	}
	shb_h2_bytes_free(&got);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
	free(body);
}

/* A body issued before the server's first SETTINGS waits for it, then
 * goes out under the window it sets: a server that lowers its initial
 * window (Go's x/net) resets a stream that sent the default 65535. */
static void test_body_waits_for_settings(void)
{
	const size_t len = 5000;
	uint8_t *body = make_body(len);
	struct shb_h2_fx f;
	struct shb_h2_bytes got = {0}, b = {0};
	struct shb_h2_fx_frame fr[8];
	static const struct shb_h2_setting_kv small[] = {
		{SHB_H2_SET_INITIAL_WINDOW_SIZE, 1024}};
	int end = 0;

	shb_h2_fx_open(&f, 0, 4, body, len, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_fx_issue(&f);
	/* HEADERS alone. */
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 8), 1);
	CU_ASSERT_EQUAL(fr[0].h.type, SHB_H2_HEADERS);
	CU_ASSERT_EQUAL(fr[0].h.flags & SHB_H2_FLAG_END_STREAM, 0);
	f.sent.len = 0;
	CU_ASSERT_EQUAL(take_data(&f, 1, 16384, &got, &end), 0);
	/* The server's SETTINGS: its ACK, then 1024 octets, no more. */
	shb_h2_srv_settings(&b, small, 1);
	feed(&f, &b);
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 8), 2);
	CU_ASSERT_EQUAL(fr[0].h.type, SHB_H2_SETTINGS);
	CU_ASSERT_EQUAL(fr[0].h.flags, SHB_H2_FLAG_ACK);
	CU_ASSERT_EQUAL(fr[1].h.type, SHB_H2_DATA);
	CU_ASSERT_EQUAL(fr[1].h.length, 1024);
	CU_ASSERT_EQUAL(fr[1].h.flags, 0);
	shb_h2_bytes_add(&got, fr[1].payload, fr[1].h.length);
	f.sent.len = 0;
	CU_ASSERT_EQUAL(take_data(&f, 1, 16384, &got, &end), 0);
	CU_ASSERT_EQUAL(got.len, 1024);
	CU_ASSERT_EQUAL(shb_h2_stream_find(f.c, 1)->send_window, 0);
	/* A WINDOW_UPDATE for the rest ends the body. */
	shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 1, 10000);
	feed(&f, &b);
	CU_ASSERT_EQUAL(take_data(&f, 1, 16384, &got, &end), 1);
	CU_ASSERT(end);
	CU_ASSERT_EQUAL_FATAL(got.len, len);
	CU_ASSERT_EQUAL(memcmp(got.p, body, len), 0);
	CU_ASSERT_EQUAL(f.c->body_streams, 0);
	shb_h2_bytes_free(&got);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
	free(body);
}

/* With wide windows a large body is cut at the pump limit and the rest
 * follows as output is taken; frames follow the peer's max frame size. */
static void test_pump_limit_and_frame_size(void)
{
	const size_t len = 1536 * 1024;
	uint8_t *body = make_body(len);
	struct shb_h2_fx f;
	struct shb_h2_bytes got = {0}, b = {0};
	static const struct shb_h2_setting_kv kv[] = {
		{SHB_H2_SET_INITIAL_WINDOW_SIZE, 0x7fffffff},
		{SHB_H2_SET_MAX_FRAME_SIZE, 65536}};
	int end = 0, rounds = 0;
	struct shb_vec v[2];

	shb_h2_fx_open(&f, 0, 4, body, len, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_srv_settings(&b, kv, 2);
	shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 0, 0x7fff0000);
	feed(&f, &b);
	shb_h2_fx_issue(&f);
	CU_ASSERT(f.c->pump_more);
	CU_ASSERT(f.c->out[f.c->fill].len < SHB_H2_PUMP_LIMIT + 65536 + 64);
	CU_ASSERT(shb_h2_fx_state(&f) & SHB_CS_WANT_WRITE);
	/* Each batch handed out stays under the limit plus one frame. */
	while (shb_h2_fx_pull_send(&f, v, 2) > 0) {
		CU_ASSERT(v[0].len < SHB_H2_PUMP_LIMIT + 65536 + 64);
		shb_h2_bytes_add(&f.sent, v[0].base, v[0].len);
		shb_h2_fx_sent(&f, v[0].len);
		rounds++;
	}
	CU_ASSERT(rounds >= 6);
	take_data(&f, 1, 65536, &got, &end);
	CU_ASSERT(end);
	CU_ASSERT_EQUAL_FATAL(got.len, len);
	CU_ASSERT_EQUAL(memcmp(got.p, body, len), 0);
	CU_ASSERT_EQUAL(f.c->pump_more, 0);
	shb_h2_bytes_free(&got);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
	free(body);
}

/* Several bodies share the connection window fairly enough that each
 * gets data, and all complete. */
static void test_many_bodies(void)
{
	const size_t len = 100000;
	uint8_t *body = make_body(len);
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	static struct shb_h2_fx_frame fr[4096];
	size_t per[8] = {0}, n;
	int ends = 0;

	shb_h2_fx_open(&f, 0, 8, body, len, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_srv_settings(&b, NULL, 0);
	feed(&f, &b);
	for (int i = 0; i < 8; i++)
		shb_h2_fx_issue(&f);
	for (int round = 0; round < 40 && f.c->body_streams; round++) {
		shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 0, 30000);
		for (uint32_t i = 0; i < 8; i++)
			shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 2 * i + 1, 30000);
		feed(&f, &b);
	}
	/* The last DATA may wait for output room (the pump limit). */
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL(f.c->body_streams, 0);
	n = shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 4096);
	for (size_t i = 0; i < n; i++) {
		if (fr[i].h.type != SHB_H2_DATA)
			continue;
		per[fr[i].h.stream_id / 2] += fr[i].h.length;
		ends += (fr[i].h.flags & SHB_H2_FLAG_END_STREAM) != 0;
	}
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(per[i], len);
	CU_ASSERT_EQUAL(ends, 8);
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
	free(body);
}

/* An early response stops the body: RST_STREAM(CANCEL), no more DATA.
 * A GOAWAY refuses streams above its line, bodies included; streams
 * below keep sending. */
static void test_bodies_end_early(void)
{
	const size_t len = 100000;
	uint8_t *body = make_body(len);
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0}, got = {0};
	struct shb_h2_fx_frame fr[64];
	uint64_t c1, c2, c3;
	size_t n;
	int end = 0;

	shb_h2_fx_open(&f, 0, 4, body, len, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_srv_settings(&b, NULL, 0);
	feed(&f, &b);
	c1 = shb_h2_fx_issue(&f);
	c2 = shb_h2_fx_issue(&f);
	c3 = shb_h2_fx_issue(&f);
	shb_h2_fx_flush(&f, 0);
	f.sent.len = 0;
	CU_ASSERT_EQUAL(f.c->body_streams, 3);
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 413);
	feed(&f, &b);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c1)->res.status, 413);
	CU_ASSERT_EQUAL(f.c->body_streams, 2);
	shb_h2_fx_flush(&f, 0);
	n = shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 64);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(fr[0].h.type, SHB_H2_RST_STREAM);
	CU_ASSERT_EQUAL(fr[0].h.stream_id, 1);
	CU_ASSERT_EQUAL(fr[0].payload[3], SHB_H2_CANCEL);
	f.sent.len = 0;
	shb_h2_srv_goaway(&b, 3, SHB_H2_NO_ERROR, "");
	feed(&f, &b);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c3)->res.outcome, SHB_REQ_REFUSED);
	CU_ASSERT_EQUAL(f.c->body_streams, 1);
	/* Window for everyone: only stream 3 sends, to the end. */
	shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 0, 1000000);
	shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 3, 1000000);
	shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 5, 1000000); /* dropped */
	shb_h2_srv_u32(&b, SHB_H2_WINDOW_UPDATE, 1, 1000000); /* dropped */
	feed(&f, &b);
	take_data(&f, 3, 16384, &got, &end);
	CU_ASSERT(end);
	CU_ASSERT(got.len > 0);
	CU_ASSERT_EQUAL(f.c->body_streams, 0);
	shb_h2_srv_status(&b, 3, SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 200);
	feed(&f, &b);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c2)->res.status, 200);
	CU_ASSERT(shb_h2_fx_state(&f) & SHB_CS_CLOSED);
	shb_h2_bytes_free(&b);
	shb_h2_bytes_free(&got);
	shb_h2_fx_close(&f);
	free(body);
}

/* Our receive side: DATA (padding included) is charged to both windows;
 * after 1 GiB the connection and the stream get a WINDOW_UPDATE. */
static void test_receive_windows(void)
{
	struct shb_h2_fx f;
	struct shb_h2_bytes b = {0};
	static struct shb_h2_fx_frame fr[16];
	static uint8_t frame[9 + 16384];
	struct shb_h2_stream *s;
	size_t n;
	uint64_t c;

	shb_h2_fx_open(&f, 0, 2, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	c = shb_h2_fx_issue(&f);
	shb_h2_srv_settings(&b, NULL, 0);
	shb_h2_srv_status(&b, 1, SHB_H2_FLAG_END_HEADERS, 200);
	feed(&f, &b);
	s = shb_h2_stream_find(f.c, 1);
	CU_ASSERT_EQUAL(f.c->recv_window, 0x7fffffff);
	/* padded: 1 + 10 + 20 octets */
	{
		uint8_t p[31];

		memset(p, 0, sizeof(p));
		p[0] = 20;
		memcpy(p + 1, "0123456789", 10);
		shb_h2_srv_frame(&b, SHB_H2_DATA, SHB_H2_FLAG_PADDED, 1, p, 31);
		feed(&f, &b);
	}
	CU_ASSERT_EQUAL(f.c->recv_window, 0x7fffffff - 31);
	CU_ASSERT_EQUAL(s->recv_used, 31);
	CU_ASSERT_EQUAL(s->rx_body_bytes, 10);
	shb_h2_fx_flush(&f, 0);
	f.sent.len = 0;
	/* 1 GiB - 31 more in 16 KiB frames: the refill point is crossed
	 * by the last one. */
	shb_h2_frame_header_write(frame, 16384, SHB_H2_DATA, 0, 1);
	for (uint32_t i = 0; i < 65535; i++)
		CU_ASSERT_EQUAL_FATAL(shb_h2_fx_recv(&f, frame, sizeof(frame)),
				      (shb_ssize)sizeof(frame));
	CU_ASSERT_EQUAL(shb_h2_fx_flush(&f, 0), 0);
	shb_h2_frame_header_write(frame, 16384 - 31, SHB_H2_DATA, 0, 1);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, frame, 9 + 16384 - 31), 9 + 16384 - 31);
	shb_h2_fx_flush(&f, 0);
	n = shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 16);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(fr[0].h.type, SHB_H2_WINDOW_UPDATE);
	CU_ASSERT_EQUAL(fr[0].h.stream_id, 0);
	CU_ASSERT_EQUAL(memcmp(fr[0].payload, "\x40\x00\x00\x00", 4), 0);
	CU_ASSERT_EQUAL(fr[1].h.type, SHB_H2_WINDOW_UPDATE);
	CU_ASSERT_EQUAL(fr[1].h.stream_id, 1);
	CU_ASSERT_EQUAL(memcmp(fr[1].payload, "\x40\x00\x00\x00", 4), 0);
	CU_ASSERT_EQUAL(f.c->recv_window, 0x7fffffff);
	CU_ASSERT_EQUAL(s->recv_used, 0);
	CU_ASSERT_EQUAL(s->rx_body_bytes, 10 + (1u << 30) - 31);
	shb_h2_srv_data(&b, 1, SHB_H2_FLAG_END_STREAM, "");
	feed(&f, &b);
	CU_ASSERT_EQUAL(shb_h2_fx_done(c)->res.rx_body_bytes, 10 + (1u << 30) - 31);
	/* More than the connection window allows is an error. */
	shb_h2_fx_issue(&f);
	shb_h2_srv_status(&b, 3, SHB_H2_FLAG_END_HEADERS, 200);
	feed(&f, &b);
	f.c->recv_window = 10;
	shb_h2_srv_data(&b, 3, 0, "01234567890");
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, b.p, b.len), SHB_E_PROTO);
	CU_ASSERT_STRING_EQUAL(shb_h2_fx_error_detail(&f),
			       "h2: DATA beyond the connection window");
	shb_h2_bytes_free(&b);
	shb_h2_fx_close(&f);
}

CU_TestInfo shb_h2_flow_tests[] = {
	{"200 KB body against 64 KiB windows", test_body_small_windows},
	{"initial window decrease", test_initial_window_decrease},
	{"body waits for the first SETTINGS", test_body_waits_for_settings},
	{"pump limit and max frame size", test_pump_limit_and_frame_size},
	{"many bodies share the connection", test_many_bodies},
	{"bodies ended by a response or a GOAWAY", test_bodies_end_early},
	{"receive windows and refills", test_receive_windows},
	CU_TEST_INFO_NULL,
};
