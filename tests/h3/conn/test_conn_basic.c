/* Handshake, a request on a bidirectional stream, datagram shapes,
 * transport parameter validation. */
#include <string.h>

#include "conn_harness.h"
#include "conn_tests.h"

static const uint8_t req[] = "GET / like bytes";

static void test_handshake(void)
{
	struct harness h;
	struct shb_quic_conn_stats st;
	size_t min_initial = 0;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 1) == 0);
	CU_ASSERT_EQUAL(shb_quic_conn_state(h.c), SHB_QUIC_CONN_HANDSHAKE);
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_available(h.c), 0);
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_open(h.c), SHB_QUIC_CONN_E_STATE);
	CU_ASSERT_TRUE(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_EQUAL(h.hs_done, 1);
	CU_ASSERT_EQUAL(shb_quic_conn_state(h.c), SHB_QUIC_CONN_ESTABLISHED);
	/* 100 streams allowed by the server, 16 * 2 table slots here. */
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_available(h.c), 32);
	/* One RTT is 20 ms: the handshake takes one round trip. */
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT_EQUAL(st.ts_handshake - st.ts_first_sent, 20 * H_MS);
	CU_ASSERT_EQUAL(st.retried, 0);
	/* HANDSHAKE_DONE arrives: the Handshake space goes. */
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 1000 * H_MS));
	CU_ASSERT_TRUE(h.c->confirmed);
	CU_ASSERT_TRUE(h.c->sp[QC_INITIAL].discarded);
	CU_ASSERT_TRUE(h.c->sp[QC_HANDSHAKE].discarded);
	/* The server's control stream was opened and read. */
	struct h_stream *s3 = h_stream(&h, 3);

	CU_ASSERT_TRUE(s3->opened);
	CU_ASSERT_EQUAL_FATAL(s3->len, 3);
	CU_ASSERT_EQUAL(memcmp(s3->data, "\x00\x04\x00", 3), 0);
	CU_ASSERT_FALSE(s3->fin);
	/* Every client Initial datagram was at least 1200 bytes. */
	CU_ASSERT_TRUE(ts_initials_received(h.s, &min_initial) >= 1);
	CU_ASSERT_TRUE(min_initial >= 1200);
	CU_ASSERT_EQUAL(h.short_initials, 0);
	CU_ASSERT_EQUAL(h.bad_trains, 0);
	CU_ASSERT_EQUAL(h.oversize, 0);
	CU_ASSERT_EQUAL(h.closed, 0);
	h_fini(&h);
}

static void test_request(void)
{
	struct harness h;
	struct ts_config sc = {.response_len = 5000};
	size_t len;
	bool fin;

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 2) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	int64_t id = h_request(&h, req, sizeof(req));

	CU_ASSERT_EQUAL(id, 0);
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 4);
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 2000 * H_MS));
	const uint8_t *got = ts_stream_data(h.s, 0, &len, &fin);

	CU_ASSERT_FATAL(got != NULL);
	CU_ASSERT_EQUAL(len, sizeof(req));
	CU_ASSERT_TRUE(fin);
	CU_ASSERT_EQUAL(memcmp(got, req, sizeof(req)), 0);
	ts_stream_data(h.s, 4, &len, &fin);
	CU_ASSERT_EQUAL(len, 3);
	CU_ASSERT_TRUE(fin);
	for (uint64_t i = 0; i < 8; i += 4) {
		struct h_stream *s = h_stream(&h, i);

		CU_ASSERT_EQUAL(s->len, 5000);
		CU_ASSERT_TRUE(s->fin);
		CU_ASSERT_EQUAL(s->fin_events, 1);
		CU_ASSERT_EQUAL(s->bad_bytes, 0);
		CU_ASSERT_EQUAL(s->bad_offsets, 0);
	}
	/* Retiring both frees their slots once everything settled. */
	CU_ASSERT_EQUAL(shb_quic_conn_stream_retire(h.c, 0, 0), 0);
	CU_ASSERT_EQUAL(shb_quic_conn_stream_retire(h.c, 4, 0), 0);
	CU_ASSERT_EQUAL(shb_quic_conn_stream_retire(h.c, 4, 0),
			SHB_QUIC_CONN_E_STATE);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_EQUAL(h.c->bidi_live, 0);
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_available(h.c), 32);
	/* Neither side reset or stopped anything. */
	uint64_t code, fs;

	CU_ASSERT_FALSE(ts_stream_got_reset(h.s, 0, &code, &fs));
	CU_ASSERT_FALSE(ts_stream_got_stop(h.s, 0, &code));
	h_fini(&h);
}

/* A bulk download: the client tells the server the datagram size it
 * takes and its ACK delay, and acknowledges about one packet in ten once
 * past the start, yet never leaves the server waiting (the download
 * completes with no loss on the link and nothing resent). */
static void test_bulk_acks(void)
{
	struct shb_quic_conn_config cfg = {.max_recv_dgram = 16384};
	struct harness h;
	struct ts_config sc = {.response_len = 2000000};
	const struct shb_quic_tp *tp;

	CU_ASSERT_FATAL(h_init(&h, &cfg, &sc, 12) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	tp = ts_client_tp(h.s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tp);
	CU_ASSERT_EQUAL(tp->max_udp_payload_size, 16384);
	CU_ASSERT_EQUAL(tp->max_ack_delay_ms, QC_MAX_ACK_DELAY_MS);
	uint64_t up0 = h.up.sent, down0 = h.down.sent;

	CU_ASSERT_EQUAL(h_request(&h, req, sizeof(req)), 0);
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 5000 * H_MS));
	CU_ASSERT_EQUAL(h_stream(&h, 0)->len, 2000000);
	CU_ASSERT_TRUE(h_stream(&h, 0)->fin);
	uint64_t up = h.up.sent - up0, down = h.down.sent - down0;

	/* 2 MB in 1200-byte datagrams: about 1700 down. At most every 2
	 * during the start (50), then every 10 (160), and flow control
	 * updates; this link delivers bursts, each acknowledged once. */
	CU_ASSERT(down > 1600);
	CU_ASSERT(up < 50 + down / 8);
	CU_ASSERT(up >= 10);
	h_fini(&h);
}

/* A request of 0 bytes is just a FIN; the one-shot send is once only. */
static void test_request_api(void)
{
	struct harness h;
	size_t len;
	bool fin;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 3) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	int64_t id = shb_quic_conn_bidi_open(h.c);

	CU_ASSERT_EQUAL(id, 0);
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_send(h.c, 0, req, 1, 0),
			SHB_QUIC_CONN_E_INVAL);
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_send(h.c, 0, NULL, 0, 1), 0);
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_send(h.c, 0, req, 1, 1),
			SHB_QUIC_CONN_E_STATE);
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_send(h.c, 8, req, 1, 1),
			SHB_QUIC_CONN_E_STATE);
	CU_ASSERT_EQUAL(shb_quic_conn_uni_send(h.c, 0, req, 1),
			SHB_QUIC_CONN_E_STATE);
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 2000 * H_MS));
	ts_stream_data(h.s, 0, &len, &fin);
	CU_ASSERT_EQUAL(len, 0);
	CU_ASSERT_TRUE(fin);
	CU_ASSERT_EQUAL(h_stream(&h, 0)->len, 13);
	CU_ASSERT_TRUE(h_stream(&h, 0)->fin);
	h_fini(&h);
}

/* Our control and QPACK streams: ids 2, 6, 10, bytes copied, never FIN. */
static void test_uni_streams(void)
{
	struct harness h;
	uint8_t big[SHB_QUIC_CONN_UNI_BUF];
	uint8_t settings[] = {0x00, 0x04, 0x02, 0x01, 0x00};

	memset(big, 'x', sizeof(big));
	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 4) == 0);
	CU_ASSERT_EQUAL(shb_quic_conn_uni_open(h.c), SHB_QUIC_CONN_E_STATE);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_EQUAL(shb_quic_conn_uni_open(h.c), 2);
	CU_ASSERT_EQUAL(shb_quic_conn_uni_open(h.c), 6);
	CU_ASSERT_EQUAL(shb_quic_conn_uni_open(h.c), 10);
	/* The server allows 3. */
	CU_ASSERT_EQUAL(shb_quic_conn_uni_open(h.c), SHB_QUIC_CONN_E_LIMIT);
	CU_ASSERT_EQUAL(shb_quic_conn_uni_send(h.c, 2, settings, 5), 0);
	CU_ASSERT_EQUAL(shb_quic_conn_uni_send(h.c, 6, settings, 1), 0);
	CU_ASSERT_EQUAL(shb_quic_conn_uni_send(h.c, 10, big, sizeof(big)), 0);
	/* More than SHB_QUIC_CONN_UNI_BUF not yet acknowledged moves to a
	 * heap buffer (test_conn_uni.c has its limits). */
	CU_ASSERT_EQUAL(shb_quic_conn_uni_send(h.c, 10, big, 1), 0);
	CU_ASSERT_PTR_NOT_NULL(h.c->uni_tx[2].heap);
	CU_ASSERT_EQUAL(shb_quic_conn_uni_send(h.c, 14, big, 1),
			SHB_QUIC_CONN_E_STATE);
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 2000 * H_MS));
	CU_ASSERT_EQUAL(shb_quic_conn_uni_send(h.c, 2, settings + 1, 4), 0);
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 2000 * H_MS));
	CU_ASSERT_EQUAL(ts_uni_bytes(h.s, 2), 9);
	CU_ASSERT_EQUAL(ts_uni_bytes(h.s, 6), 1);
	CU_ASSERT_EQUAL(ts_uni_bytes(h.s, 10), sizeof(big) + 1);
	size_t len;
	bool fin;
	const uint8_t *d = ts_stream_data(h.s, 2, &len, &fin);

	CU_ASSERT_FALSE(fin);
	CU_ASSERT_EQUAL(memcmp(d, settings, 5), 0);
	CU_ASSERT_EQUAL(memcmp(d + 5, settings + 1, 4), 0);
	h_fini(&h);
}

static void check_bad_cids(int which)
{
	struct harness h;
	struct ts_config sc = {.bad_cids = which, .retry = which == 3};

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 5) == 0);
	CU_ASSERT_TRUE(h_run(&h, h_cond_closed, 5000 * H_MS));
	CU_ASSERT_EQUAL(h.hs_done, 0);
	CU_ASSERT_EQUAL(h.closed, 1);
	CU_ASSERT_EQUAL(h.close.origin, SHB_QUIC_CLOSE_ERROR);
	CU_ASSERT_EQUAL(h.close.app, 0);
	CU_ASSERT_EQUAL(h.close.code, 0x08);
	uint64_t type, code;
	const char *reason;

	CU_ASSERT_TRUE(h_run(&h, NULL, 100 * H_MS));
	CU_ASSERT_TRUE(ts_got_close(h.s, &type, &code, &reason));
	CU_ASSERT_EQUAL(type, 0x1c);
	CU_ASSERT_EQUAL(code, 0x08);
	h_fini(&h);
}

static void test_bad_cids(void)
{
	check_bad_cids(1);
	check_bad_cids(2);
	check_bad_cids(3);
}

/* A certificate chain spanning several packets: CRYPTO reassembly. */
static void test_big_certificate(void)
{
	struct harness h;
	struct ts_config sc = {.cert = h_big_cert()};

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 6) == 0);
	CU_ASSERT_TRUE(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_TRUE(h.c->sp[QC_HANDSHAKE].cr.off > 4000);
	h_fini(&h);
}

static void test_memory(void)
{
	struct shb_quic_conn_config cfg = {.max_bidi_streams = 100};
	size_t m = shb_quic_conn_memory(&cfg);

	/* About 490 KiB, as documented in quic_conn.h. */
	CU_ASSERT_TRUE(m > 400 * 1024);
	CU_ASSERT_TRUE(m < 560 * 1024);
	/* The reorder store follows the connection window. */
	cfg.conn_window = 64 * 1024;
	CU_ASSERT_TRUE(shb_quic_conn_memory(&cfg) < m - 150 * 1024);
	cfg.conn_window = 0;
	cfg.max_bidi_streams = 1000;
	CU_ASSERT_TRUE(shb_quic_conn_memory(&cfg) > m);
}

/* The ClientHello hook (for the report's JA3/JA4): once, inside
 * shb_quic_conn_new, with one whole ClientHello handshake message. */
static unsigned hello_calls;
static size_t hello_len;
static uint8_t hello_first[4];

static void on_client_hello(void *user, const uint8_t *msg, size_t len)
{
	(void)user;
	hello_calls++;
	hello_len = len;
	memcpy(hello_first, msg, len < 4 ? len : 4);
}

static void test_client_hello_hook(void)
{
	struct harness h;
	struct shb_quic_conn_config cfg = {.client_hello = on_client_hello};

	hello_calls = 0;
	CU_ASSERT_FATAL(h_init(&h, &cfg, NULL, 3) == 0);
	CU_ASSERT_EQUAL(hello_calls, 1);
	CU_ASSERT_EQUAL(hello_first[0], 1); /* client_hello */
	CU_ASSERT_EQUAL(hello_len, 4 + ((size_t)hello_first[1] << 16 |
					(size_t)hello_first[2] << 8 | hello_first[3]));
	CU_ASSERT_TRUE(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_EQUAL(hello_calls, 1);
	h_fini(&h);
}

static void test_bad_config(void)
{
	struct shb_quic_conn_config cfg = {0};
	int rc = 0;

	CU_ASSERT_PTR_NULL(shb_quic_conn_new(NULL, 0, &rc));
	CU_ASSERT_EQUAL(rc, SHB_QUIC_CONN_E_INVAL);
	CU_ASSERT_PTR_NULL(shb_quic_conn_new(&cfg, 0, &rc));
	CU_ASSERT_EQUAL(rc, SHB_QUIC_CONN_E_INVAL);
}

CU_TestInfo shb_test_conn_basic[] = {
	{"handshake", test_handshake},
	{"request exchange with FIN both ways", test_request},
	{"request API rules", test_request_api},
	{"bulk download: datagram size, decimated ACKs", test_bulk_acks},
	{"client unidirectional streams", test_uni_streams},
	{"transport parameter CID checks", test_bad_cids},
	{"certificate over several packets", test_big_certificate},
	{"memory per connection", test_memory},
	{"ClientHello handed once", test_client_hello_hook},
	{"bad config", test_bad_config},
	CU_TEST_INFO_NULL,
};
