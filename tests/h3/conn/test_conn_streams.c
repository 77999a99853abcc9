/* Flow control both ways, stream credit, resets, STOP_SENDING, stream
 * lifetimes. */
#include <string.h>

#include "conn_harness.h"
#include "conn_tests.h"

static const uint8_t req[] = "GET /";

static bool got_fin0(struct harness *h)
{
	return h_stream(h, 0)->fin;
}

/* The client's windows are small: a 1 MB response needs many
 * MAX_STREAM_DATA and MAX_DATA updates, and never exceeds them. */
static void test_receive_windows(void)
{
	struct harness h;
	struct shb_quic_conn_config cfg = {.stream_window = 64 * 1024,
					   .conn_window = 100 * 1024};
	struct ts_config sc = {.response_len = 1u << 20};

	CU_ASSERT_FATAL(h_init(&h, &cfg, &sc, 21) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_EQUAL(h_request(&h, req, sizeof(req)), 0);
	CU_ASSERT_TRUE(h_run(&h, got_fin0, 30000 * H_MS));
	struct h_stream *s = h_stream(&h, 0);

	CU_ASSERT_EQUAL(s->len, 1u << 20);
	CU_ASSERT_EQUAL(s->bad_bytes, 0);
	/* 1 MiB through a 64 KiB window refreshed at half: at least 30
	 * MAX_STREAM_DATA, and MAX_DATA for the 100 KiB connection window. */
	CU_ASSERT_TRUE(ts_max_stream_data_frames(h.s) >= 30);
	CU_ASSERT_TRUE(ts_max_data_frames(h.s) >= 20);
	CU_ASSERT_EQUAL(h.closed, 0);
	h_fini(&h);
}

/* The server's windows are small and not refreshed: the upload stops at
 * exactly the credit, resumes when it is raised. */
static void test_send_blocked(void)
{
	static uint8_t body[200000];
	struct harness h;
	struct ts_config sc = {.max_stream_data = 50000, .max_data = 120000,
			       .no_window_refresh = true};
	size_t len;
	bool fin;

	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = (uint8_t)(i % 251);
	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 22) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_EQUAL(h_request(&h, body, sizeof(body)), 0);
	CU_ASSERT_EQUAL(h_request(&h, body, sizeof(body)), 4);
	h_run(&h, h_cond_quiet, 2000 * H_MS);
	CU_ASSERT_EQUAL(ts_stream_rx_high(h.s, 0), 50000);
	CU_ASSERT_EQUAL(ts_stream_rx_high(h.s, 4), 50000);
	/* Stream credit for 0, but the connection allows 120000 in all. */
	ts_grant(h.s, 0, 150000, 0);
	h_run(&h, h_cond_quiet, 2000 * H_MS);
	CU_ASSERT_EQUAL(ts_stream_rx_high(h.s, 0), 70000);
	CU_ASSERT_EQUAL(ts_stream_rx_high(h.s, 4), 50000);
	ts_grant(h.s, 0, 300000, 1000000);
	ts_grant(h.s, 4, 300000, 0);
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 5000 * H_MS));
	const uint8_t *d = ts_stream_data(h.s, 0, &len, &fin);

	CU_ASSERT_EQUAL(len, sizeof(body));
	CU_ASSERT_TRUE(fin);
	CU_ASSERT_TRUE(d && memcmp(d, body, sizeof(body)) == 0);
	ts_stream_data(h.s, 4, &len, &fin);
	CU_ASSERT_EQUAL(len, sizeof(body));
	CU_ASSERT_TRUE(fin);
	h_fini(&h);
}

/* Blocked on the connection window while data is lost: retransmissions
 * must not need (or take) new credit. */
static void test_retransmit_without_credit(void)
{
	static uint8_t body[100000];
	struct harness h;
	struct ts_config sc = {.max_data = 100000, .no_window_refresh = true};
	size_t len;
	bool fin;

	memset(body, 'b', sizeof(body));
	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 23) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	h.up.loss_pct = 30;
	CU_ASSERT_EQUAL(h_request(&h, body, sizeof(body)), 0);
	/* Fixed scripted times, not "quiet": with a paced 12000-byte window
	 * the links go quiet while a PTO is pending. */
	h_run(&h, NULL, 2000 * H_MS);
	h.up.loss_pct = 0;
	h_run(&h, NULL, 20000 * H_MS);
	ts_stream_data(h.s, 0, &len, &fin);
	CU_ASSERT_EQUAL(len, sizeof(body));
	CU_ASSERT_TRUE(fin);
	CU_ASSERT_EQUAL(h.c->tx_data, sizeof(body));
	h_fini(&h);
}

/* MAX_STREAMS: two streams allowed, then more. */
static void test_stream_credit(void)
{
	struct harness h;
	struct ts_config sc = {.max_streams_bidi = 2};

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 24) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_available(h.c), 2);
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 0);
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 4);
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_available(h.c), 0);
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_open(h.c), SHB_QUIC_CONN_E_LIMIT);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_EQUAL(h.streams_available, 0);
	ts_max_streams(h.s, 5);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_EQUAL(h.streams_available, 1);
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_available(h.c), 3);
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 8);
	/* A lower MAX_STREAMS changes nothing. */
	ts_max_streams(h.s, 3);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_available(h.c), 2);
	CU_ASSERT_EQUAL(ts_streams_opened(h.s), 3);
	h_fini(&h);
}

/* The table has 2 * max_bidi_streams slots: finished streams free them
 * once retired and settled, so hundreds of requests go through. */
static void test_many_requests(void)
{
	struct harness h;
	struct shb_quic_conn_config cfg = {.max_bidi_streams = 4};
	struct ts_config sc = {.max_streams_bidi = 1000, .response_len = 3000};
	int done = 0;

	CU_ASSERT_FATAL(h_init(&h, &cfg, &sc, 25) == 0);
	h.auto_retire = true;
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	for (int round = 0; round < 100; round++) {
		while (shb_quic_conn_bidi_available(h.c) > 0 &&
		       h.c->bidi_next < 300)
			CU_ASSERT_TRUE(h_request(&h, req, 4) >= 0);
		h_run(&h, h_cond_quiet, 1000 * H_MS);
	}
	for (size_t i = 0; i < h.nst; i++)
		if ((h.st[i].id & 3) == 0 && h.st[i].fin && h.st[i].len == 3000 &&
		    !h.st[i].bad_bytes)
			done++;
	CU_ASSERT_EQUAL(done, 300);
	CU_ASSERT_EQUAL(h.c->bidi_live, 0);
	CU_ASSERT_EQUAL(ts_streams_opened(h.s), 300);
	h_fini(&h);
}

/* The server resets a response: event with its code; and STOP_SENDING:
 * the client answers RESET_STREAM with the same code. */
static void test_server_reset_and_stop(void)
{
	static uint8_t body[300000];
	struct harness h;
	/* A small client window keeps the response in progress. */
	struct shb_quic_conn_config cfg = {.stream_window = 8192};
	struct ts_config sc = {.no_auto_response = true,
			       .max_stream_data = 20000,
			       .no_window_refresh = true};
	uint64_t code = 0, fs = 0;

	CU_ASSERT_FATAL(h_init(&h, &cfg, &sc, 26) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 0);
	CU_ASSERT_EQUAL(h_request(&h, body, sizeof(body)), 4);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	ts_respond(h.s, 0, 1000000);
	h_run(&h, NULL, 25 * H_MS);
	CU_ASSERT_TRUE(h_stream(&h, 0)->len >= 8192);
	CU_ASSERT_TRUE(h_stream(&h, 0)->len < 1000000);
	ts_reset_stream(h.s, 0, 0x10b);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	struct h_stream *s0 = h_stream(&h, 0);

	CU_ASSERT_TRUE(s0->reset);
	CU_ASSERT_EQUAL(s0->reset_code, 0x10b);
	CU_ASSERT_FALSE(s0->fin);
	CU_ASSERT_TRUE(s0->final_size >= s0->len);
	CU_ASSERT_TRUE(s0->final_size < 1000000);
	/* Stream 4 is blocked at 20000 of 300000 bytes. */
	CU_ASSERT_EQUAL(ts_stream_rx_high(h.s, 4), 20000);
	ts_stop_sending(h.s, 4, 0x10c);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	struct h_stream *s4 = h_stream(&h, 4);

	CU_ASSERT_TRUE(s4->stop);
	CU_ASSERT_EQUAL(s4->stop_code, 0x10c);
	CU_ASSERT_TRUE(ts_stream_got_reset(h.s, 4, &code, &fs));
	CU_ASSERT_EQUAL(code, 0x10c);
	CU_ASSERT_EQUAL(fs, 20000);
	/* Nothing more is sent on it, even with credit. */
	ts_grant(h.s, 4, 1000000, 0);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_EQUAL(ts_stream_rx_high(h.s, 4), 20000);
	h_fini(&h);
}

/* The client resets and stops; retire resets unsent bytes and stops an
 * unfinished response. */
static void test_client_reset_and_stop(void)
{
	static uint8_t body[300000];
	struct harness h;
	struct ts_config sc = {.no_auto_response = true,
			       .max_stream_data = 20000,
			       .no_window_refresh = true};
	uint64_t code = 0, fs = 0;

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 27) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_EQUAL(h_request(&h, body, sizeof(body)), 0);
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 4);
	CU_ASSERT_EQUAL(h_request(&h, body, sizeof(body)), 8);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_EQUAL(shb_quic_conn_stream_reset(h.c, 0, 0x101), 0);
	CU_ASSERT_EQUAL(shb_quic_conn_stream_stop_sending(h.c, 4, 0x102), 0);
	CU_ASSERT_EQUAL(shb_quic_conn_stream_retire(h.c, 8, 0x10c), 0);
	CU_ASSERT_EQUAL(shb_quic_conn_stream_reset(h.c, 3, 1),
			SHB_QUIC_CONN_E_STATE);
	CU_ASSERT_EQUAL(shb_quic_conn_stream_stop_sending(h.c, 2, 1),
			SHB_QUIC_CONN_E_STATE);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_TRUE(ts_stream_got_reset(h.s, 0, &code, &fs));
	CU_ASSERT_EQUAL(code, 0x101);
	CU_ASSERT_EQUAL(fs, 20000);
	CU_ASSERT_TRUE(ts_stream_got_stop(h.s, 4, &code));
	CU_ASSERT_EQUAL(code, 0x102);
	CU_ASSERT_TRUE(ts_stream_got_reset(h.s, 8, &code, &fs));
	CU_ASSERT_EQUAL(code, 0x10c);
	CU_ASSERT_EQUAL(fs, 20000);
	CU_ASSERT_TRUE(ts_stream_got_stop(h.s, 8, &code));
	CU_ASSERT_EQUAL(code, 0x10c);
	/* The server answers the STOP_SENDING on 8 with a reset: then the
	 * slot is free; events stay quiet for the retired stream. */
	ts_reset_stream(h.s, 8, 0x10c);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_FALSE(h_stream(&h, 8)->reset);
	CU_ASSERT_PTR_NULL(qc_stream_find(h.c, 8));
	h_fini(&h);
}

/* Data for a retired stream is ignored; data for a stream never opened
 * is a STREAM_STATE_ERROR. */
static void test_stream_ids(void)
{
	struct harness h;
	struct ts_config sc = {.no_auto_response = true};

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 28) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 0);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	ts_respond(h.s, 0, 100);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_TRUE(h_stream(&h, 0)->fin);
	shb_quic_conn_stream_retire(h.c, 0, 0);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_PTR_NULL(qc_stream_find(h.c, 0));
	/* Late data on 0: ignored. */
	ts_respond(h.s, 0, 200);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_EQUAL(h.closed, 0);
	CU_ASSERT_EQUAL(h_stream(&h, 0)->len, 100);
	/* Stream 40 was never opened. */
	ts_respond(h.s, 40, 10);
	h_run(&h, h_cond_closed, 1000 * H_MS);
	CU_ASSERT_EQUAL(h.closed, 1);
	CU_ASSERT_EQUAL(h.close.origin, SHB_QUIC_CLOSE_ERROR);
	CU_ASSERT_EQUAL(h.close.code, 0x05);
	CU_ASSERT_EQUAL(h.close.frame_type, 0x08);
	h_fini(&h);
}

/* A server-initiated bidirectional stream: we allowed none. */
static void test_server_bidi(void)
{
	struct harness h;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 29) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	ts_respond(h.s, 1, 10);
	h_run(&h, h_cond_closed, 1000 * H_MS);
	CU_ASSERT_EQUAL(h.close.code, 0x04);
	h_fini(&h);
}

static bool paced(struct harness *h)
{
	return qc_tx_paced_until(h->c) != QC_NONE;
}

static bool upload_answered(struct harness *h)
{
	struct h_stream *s = h_stream(h, 0);

	return s && s->fin;
}

/* The pacer seen from the connection: on the default start (12000 bytes,
 * paced) a 300 KB upload soon has data that waits only for the pacer;
 * then write() has nothing to send, want_write() says no, and deadline()
 * is no later than the pacer's time (without it the next timer would be
 * the PTO, tens of ms away), so an owner that sleeps until deadline()
 * resumes the upload. Every byte arrives, and no PTO fires. */
static void test_paced_upload_deadline(void)
{
	static uint8_t body[300000];
	struct shb_quic_conn_stats st;
	uint8_t buf[64 * 1200];
	struct harness h;
	size_t len, seg;
	bool fin;

	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = (uint8_t)(i * 7 + (i >> 11));
	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 41) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.c->rec)->cwnd, 12000);
	CU_ASSERT_EQUAL(h_request(&h, body, sizeof(body)), 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, paced, 5000 * H_MS));
	uint64_t t = qc_tx_paced_until(h.c);

	CU_ASSERT_TRUE(t > h.now);
	CU_ASSERT_FALSE(shb_quic_conn_want_write(h.c));
	CU_ASSERT_TRUE(shb_quic_conn_deadline(h.c) <= t);
	CU_ASSERT_EQUAL(shb_quic_conn_write(h.c, buf, sizeof(buf), &seg, h.now), 0);
	CU_ASSERT_TRUE(h_run(&h, upload_answered, 20000 * H_MS));
	const uint8_t *d = ts_stream_data(h.s, 0, &len, &fin);

	CU_ASSERT_EQUAL(len, sizeof(body));
	CU_ASSERT_TRUE(fin);
	CU_ASSERT_TRUE(d && memcmp(d, body, sizeof(body)) == 0);
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT_EQUAL(st.pto_count, 0);
	CU_ASSERT_EQUAL(st.stream_bytes_resent, 0);
	CU_ASSERT_TRUE(st.stream_bytes_sent >= sizeof(body));
	CU_ASSERT_EQUAL(h.bad_trains, 0);
	h_fini(&h);
}

CU_TestInfo shb_test_conn_streams[] = {
	{"paced upload: deadline, want_write", test_paced_upload_deadline},
	{"receive windows refreshed", test_receive_windows},
	{"send side blocked by flow control", test_send_blocked},
	{"retransmissions need no new credit", test_retransmit_without_credit},
	{"MAX_STREAMS credit", test_stream_credit},
	{"300 requests through 8 slots", test_many_requests},
	{"server RESET_STREAM and STOP_SENDING", test_server_reset_and_stop},
	{"client reset, stop and retire", test_client_reset_and_stop},
	{"retired and never-opened stream IDs", test_stream_ids},
	{"server bidirectional stream refused", test_server_bidi},
	CU_TEST_INFO_NULL,
};
