/* A hostile server: frames the test server would never send, injected
 * into its 1-RTT packets (ts_inject). Every buffer the server can grow is
 * capped, and crossing a cap is a connection error whose reason names it;
 * floods of frames that owe an answer are answered from a fixed slot.
 * Also the cancellation of one request as the HTTP/3 plugin does it. */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "conn_harness.h"
#include "conn_tests.h"
#include "quic_varint.h"

static const uint8_t req[] = "GET /";

/* A frame builder. */
struct fb {
	uint8_t b[1100];
	size_t n;
};

static void fb_varint(struct fb *f, uint64_t v)
{
	size_t k = shb_quic_varint_encode(f->b + f->n, sizeof(f->b) - f->n, v);

	CU_ASSERT_FATAL(k > 0);
	f->n += k;
}

static void fb_octets(struct fb *f, const uint8_t *p, size_t n)
{
	CU_ASSERT_FATAL(n <= sizeof(f->b) - f->n);
	memcpy(f->b + f->n, p, n);
	f->n += n;
}

/* STREAM with offset and length: bytes as the test server's (ts_byte). */
static void fb_stream(struct fb *f, uint64_t id, uint64_t off, size_t len)
{
	fb_varint(f, 0x0e);
	fb_varint(f, id);
	fb_varint(f, off);
	fb_varint(f, len);
	for (size_t i = 0; i < len; i++) {
		uint8_t b = ts_byte(id, off + i);

		fb_octets(f, &b, 1);
	}
}

static void handshake(struct harness *h, const struct ts_config *sc,
		      uint64_t seed)
{
	CU_ASSERT_FATAL(h_init(h, NULL, sc, seed) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(h, h_cond_handshake, 5000 * H_MS));
	h_run(h, h_cond_quiet, 1000 * H_MS);
}

/* The client closed with transport error `code` for frame `type` and the
 * reason `why`; the server got the same. */
static void expect_closed_ex(struct harness *h, uint64_t code,
			     uint64_t type, const char *why, bool server)
{
	uint64_t ftype = 0, fcode = 0;
	const char *reason = NULL;

	CU_ASSERT_TRUE(h_run(h, h_cond_closed, 1000 * H_MS));
	CU_ASSERT_EQUAL(h->close.origin, SHB_QUIC_CLOSE_ERROR);
	CU_ASSERT_EQUAL(h->close.app, 0);
	CU_ASSERT_EQUAL(h->close.code, code);
	CU_ASSERT_EQUAL(h->close.frame_type, type);
	CU_ASSERT_STRING_EQUAL(h->close_reason, why);
	if (!server)
		return;
	h_run(h, NULL, 100 * H_MS);
	CU_ASSERT_TRUE(ts_got_close(h->s, &ftype, &fcode, &reason));
	CU_ASSERT_EQUAL(ftype, 0x1c);
	CU_ASSERT_EQUAL(fcode, code);
	if (reason)
		CU_ASSERT_STRING_EQUAL(reason, why);
}

static void expect_closed(struct harness *h, uint64_t code, uint64_t type,
			  const char *why)
{
	expect_closed_ex(h, code, type, why, true);
}

/* ---- CRYPTO ------------------------------------------------------------- */

/* 1-RTT CRYPTO beyond the 4096 octets we hold ahead of a gap:
 * CRYPTO_BUFFER_EXCEEDED (RFC 9000 Section 7.5). */
static void test_crypto_beyond_window(void)
{
	struct harness h;
	struct fb f = {0};
	static const uint8_t x[8];

	handshake(&h, NULL, 61);
	fb_varint(&f, 0x06);
	fb_varint(&f, 1u << 20);
	fb_varint(&f, sizeof(x));
	fb_octets(&f, x, sizeof(x));
	ts_inject(h.s, f.b, f.n, 1);
	expect_closed(&h, 0x0d, 0x06,
		      "CRYPTO data beyond the reassembly window (cap 4096)");
	h_fini(&h);
}

/* ---- STREAM ------------------------------------------------------------- */

/* Out-of-order STREAM data past our connection window (256 KiB): a
 * FLOW_CONTROL_ERROR before anything is held. */
static void test_stream_beyond_max_data(void)
{
	struct harness h;
	struct ts_config sc = {.no_auto_response = true};
	struct fb f = {0};

	handshake(&h, &sc, 62);
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 0);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	/* Just inside (the server's control stream took 3 octets): held,
	 * no error. */
	CU_ASSERT_EQUAL(h.c->rx_max_data - h.c->rx_data, (256u << 10) - 3);
	fb_stream(&f, 0, (256u << 10) - 3 - 10, 10);
	ts_inject(h.s, f.b, f.n, 1);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_EQUAL(h.closed, 0);
	/* One octet further. */
	f.n = 0;
	fb_stream(&f, 0, (256u << 10) - 3, 1);
	ts_inject(h.s, f.b, f.n, 1);
	expect_closed(&h, 0x03, 0x08,
		      "stream data beyond MAX_DATA (cap 262144)");
	h_fini(&h);
}

/* Resident pages wholly inside the reorder pool, and how many there are. */
static size_t pool_pages_resident(const struct shb_quic_conn *c, size_t *all)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 0;
	uintptr_t start = (uintptr_t)c->ro.b, end;
	unsigned char vec[512];

	end = (start + c->ro.n * sizeof(*c->ro.b)) & ~(uintptr_t)(page - 1);
	start = (start + page - 1) & ~(uintptr_t)(page - 1);
	*all = (end - start) / page;
	CU_ASSERT_FATAL(*all > 0 && *all <= sizeof(vec));
	CU_ASSERT_FATAL(mincore((void *)start, end - start, vec) == 0);
	for (size_t i = 0; i < *all; i++)
		n += vec[i] & 1;
	return n;
}

/* Many one-octet runs with gaps, each needing a reorder block: once the
 * fixed pool is full the packets are not acknowledged (the server must
 * send them again), nothing grows, and the stream still completes. The
 * pool's pages are in memory only while it holds data. */
static void test_reorder_pool_bounded(void)
{
	struct harness h;
	struct ts_config sc = {.no_auto_response = true};
	struct shb_quic_conn_stats st;
	uint32_t pool;
	size_t all;

	handshake(&h, &sc, 63);
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 0);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	pool = qc_ro_free(h.c);
	CU_ASSERT_EQUAL(pool_pages_resident(h.c, &all), 0);
	for (uint64_t round = 0; round * 100 < pool + 300; round++) {
		struct fb f = {0};

		for (uint64_t k = 0; k < 100; k++)
			fb_stream(&f, 0, 10 + 2 * (round * 100 + k), 1);
		ts_inject(h.s, f.b, f.n, 1);
		h_run(&h, NULL, 30 * H_MS);
	}
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT_EQUAL(h.closed, 0);
	CU_ASSERT_EQUAL(qc_ro_free(h.c), 0);
	CU_ASSERT_TRUE(st.packets_unacked > 0);
	CU_ASSERT_EQUAL(h_stream(&h, 0)->len, 0);
	CU_ASSERT_EQUAL(pool_pages_resident(h.c, &all), all);
	/* The real response fills every gap. */
	ts_respond(h.s, 0, 5000);
	h_run(&h, h_cond_quiet, 2000 * H_MS);
	CU_ASSERT_EQUAL(h.closed, 0);
	CU_ASSERT_EQUAL(h_stream(&h, 0)->len, 5000);
	CU_ASSERT_TRUE(h_stream(&h, 0)->fin);
	CU_ASSERT_EQUAL(h_stream(&h, 0)->bad_bytes, 0);
	CU_ASSERT_EQUAL(qc_ro_free(h.c), pool);
	CU_ASSERT_EQUAL(pool_pages_resident(h.c, &all), 0);
	h_fini(&h);
}

/* A server unidirectional stream above the 3 we allow. */
static void test_server_uni_above_limit(void)
{
	struct harness h;
	struct fb f = {0};

	handshake(&h, NULL, 64);
	fb_stream(&f, (3u << 2) | 3, 0, 1);
	ts_inject(h.s, f.b, f.n, 1);
	expect_closed(&h, 0x04, 0x08,
		      "server unidirectional stream above our limit");
	h_fini(&h);
}

/* One packet of seven STREAM frames, out of order within the packet: the
 * receive path runs the first frames as its validating pass decoded them
 * and decodes the rest again; every byte arrives once, in order. */
static void test_many_frames_one_packet(void)
{
	static const uint64_t offs[] = {0, 20, 10, 40, 30, 60, 50};
	const uint64_t id = (1u << 2) | 3; /* the server's second uni stream */
	struct harness h;
	struct fb f = {0};
	struct h_stream *s;

	handshake(&h, NULL, 66);
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		fb_stream(&f, id, offs[i], 10);
	ts_inject(h.s, f.b, f.n, 1);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_EQUAL(h.closed, 0);
	s = h_stream(&h, id);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(s->len, 70);
	CU_ASSERT_EQUAL(s->bad_offsets, 0);
	CU_ASSERT_FALSE(s->fin);
	for (size_t i = 0; i < s->len && i < 70; i++)
		CU_ASSERT_EQUAL(s->data[i], ts_byte(id, i));
	CU_ASSERT_EQUAL(h.c->ro.nfree, h.c->ro.n); /* nothing left held */
	h_fini(&h);
}

/* ---- ACK ---------------------------------------------------------------- */

/* RFC 9000 Section 13.1: an ACK of a packet we never sent. */
static void test_ack_of_unsent(void)
{
	struct harness h;
	static const uint8_t ack[] = {0x02, 0x80, 0x01, 0x00, 0x00, /* 65536 */
				      0x00, 0x00, 0x00};

	handshake(&h, NULL, 65);
	ts_inject(h.s, ack, sizeof(ack), 1);
	expect_closed(&h, 0x0a, 0x02, "ACK of a packet never sent");
	h_fini(&h);
}

/* A range count of 2^62 - 1 in a short frame, and 500 ranges running
 * below packet number 0: decoding stops at once. */
static void test_ack_huge_ranges(void)
{
	struct harness h;
	struct fb f = {0};

	handshake(&h, NULL, 66);
	fb_varint(&f, 0x02);
	fb_varint(&f, 3);
	fb_varint(&f, 0);
	fb_varint(&f, UINT64_C(0x3fffffffffffffff));
	fb_varint(&f, 0);
	fb_varint(&f, 0);
	fb_varint(&f, 0);
	ts_inject(h.s, f.b, f.n, 1);
	CU_ASSERT_TRUE(h_run(&h, h_cond_closed, 1000 * H_MS));
	CU_ASSERT_EQUAL(h.close.code, 0x07); /* FRAME_ENCODING_ERROR */
	h_fini(&h);

	handshake(&h, NULL, 67);
	f.n = 0;
	fb_varint(&f, 0x02);
	fb_varint(&f, 3);
	fb_varint(&f, 0);
	fb_varint(&f, 500);
	fb_varint(&f, 0);
	for (int i = 0; i < 500; i++) {
		fb_varint(&f, 0);
		fb_varint(&f, 0);
	}
	ts_inject(h.s, f.b, f.n, 1);
	CU_ASSERT_TRUE(h_run(&h, h_cond_closed, 1000 * H_MS));
	CU_ASSERT_EQUAL(h.close.code, 0x07);
	h_fini(&h);
}

/* ---- connection IDs, path validation ------------------------------------ */

static void fb_new_cid(struct fb *f, uint64_t seq, uint64_t rpt)
{
	uint8_t cid[8], token[16];

	memset(cid, (int)(0x40 + seq), sizeof(cid));
	memset(token, (int)(0x80 + seq), sizeof(token));
	fb_varint(f, 0x18);
	fb_varint(f, seq);
	fb_varint(f, rpt);
	fb_varint(f, sizeof(cid));
	fb_octets(f, cid, sizeof(cid));
	fb_octets(f, token, sizeof(token));
}

/* NEW_CONNECTION_ID frames that each retire the ones before: the
 * RETIRE_CONNECTION_ID frames owed wait in a table of 16. */
static void test_cid_retire_flood(void)
{
	struct harness h;
	struct fb f = {0};

	handshake(&h, NULL, 68);
	for (uint64_t seq = 1; seq <= 20; seq++)
		fb_new_cid(&f, seq, seq);
	ts_inject(h.s, f.b, f.n, 1);
	/* Our close goes to a connection ID the test server never issued:
	 * it cannot read it. */
	expect_closed_ex(&h, 0x09, 0x18,
			 "more than 16 connection IDs waiting to be retired "
			 "(cap 16)",
			 false);
	h_fini(&h);
}

/* More IDs than our active_connection_id_limit (4), in one packet. */
static void test_cid_limit_flood(void)
{
	struct harness h;
	struct fb f = {0};

	handshake(&h, NULL, 69);
	for (uint64_t seq = 1; seq <= 10; seq++)
		fb_new_cid(&f, seq, 0);
	ts_inject(h.s, f.b, f.n, 1);
	expect_closed(&h, 0x09, 0x18,
		      "more connection IDs than our active_connection_id_limit");
	h_fini(&h);
}

/* 100 PATH_CHALLENGE frames per packet, 5 packets: one pending answer is
 * kept (the latest), so at most one PATH_RESPONSE per packet received. */
static void test_path_challenge_flood(void)
{
	struct harness h;
	struct fb f = {0};
	uint64_t before;

	handshake(&h, NULL, 70);
	before = ts_path_response_frames(h.s);
	for (int i = 0; i < 100; i++) {
		uint8_t d[8];

		memset(d, i, sizeof(d));
		fb_varint(&f, 0x1a);
		fb_octets(&f, d, sizeof(d));
	}
	ts_inject(h.s, f.b, f.n, 5);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_EQUAL(h.closed, 0);
	CU_ASSERT_TRUE(ts_path_response_frames(h.s) - before >= 1);
	CU_ASSERT_TRUE(ts_path_response_frames(h.s) - before <= 5);
	h_fini(&h);
}

/* ---- cancelling one request ---------------------------------------------- */

static bool got_request0(struct harness *h)
{
	size_t len = 0;
	bool fin = false;

	return ts_stream_data(h->s, 0, &len, &fin) && fin;
}

static bool got_some4(struct harness *h)
{
	return h_stream(h, 4)->len > 0;
}

/* What the HTTP/3 plugin's cancel() does (RFC 9114 Section 4.1.1):
 * RESET_STREAM and STOP_SENDING with H3_REQUEST_CANCELLED. While the
 * request is not yet acknowledged both frames go out; once it is (the
 * send side is in "Data Recvd", RFC 9000 Section 3.1) there is nothing
 * left to reset and only STOP_SENDING goes. Late response data is
 * discarded without an event or error, its flow control credit returned,
 * and the stream's slot freed once the server resets. */
static void test_cancel_request(void)
{
	struct harness h;
	struct ts_config sc = {.no_auto_response = true};
	/* A small stream window: the response comes in several flights. */
	struct shb_quic_conn_config cfg = {.stream_window = 16384};
	uint64_t code = 0, fs = 0;

	CU_ASSERT_FATAL(h_init(&h, &cfg, &sc, 71) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	/* Stream 0: cancelled as soon as the server has it, before its
	 * acknowledgement is back (10 ms away). */
	CU_ASSERT_EQUAL(h_request(&h, req, 5), 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, got_request0, 1000 * H_MS));
	CU_ASSERT_EQUAL(shb_quic_conn_stream_reset(h.c, 0, 0x10c), 0);
	CU_ASSERT_EQUAL(shb_quic_conn_stream_retire(h.c, 0, 0x10c), 0);
	/* Stream 4: answered in part, then cancelled. */
	CU_ASSERT_EQUAL(h_request(&h, req, 5), 4);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_TRUE(ts_stream_got_reset(h.s, 0, &code, &fs));
	CU_ASSERT_EQUAL(code, 0x10c);
	CU_ASSERT_EQUAL(fs, 5);
	CU_ASSERT_TRUE(ts_stream_got_stop(h.s, 0, &code));
	CU_ASSERT_EQUAL(code, 0x10c);
	ts_respond(h.s, 4, 100000);
	CU_ASSERT_TRUE(h_run(&h, got_some4, 1000 * H_MS));
	CU_ASSERT_TRUE(h_stream(&h, 4)->len < 100000);
	CU_ASSERT_EQUAL(shb_quic_conn_stream_reset(h.c, 4, 0x10c), 0);
	CU_ASSERT_EQUAL(shb_quic_conn_stream_retire(h.c, 4, 0x10c), 0);
	size_t seen4 = h_stream(&h, 4)->len;

	/* Late data on both: no event, no error. */
	ts_respond(h.s, 0, 3000);
	h_run(&h, h_cond_quiet, 2000 * H_MS);
	CU_ASSERT_EQUAL(h.closed, 0);
	CU_ASSERT_EQUAL(h_stream(&h, 0)->len, 0);
	CU_ASSERT_EQUAL(h_stream(&h, 4)->len, seen4);
	CU_ASSERT_FALSE(h_stream(&h, 4)->fin);
	CU_ASSERT_TRUE(ts_stream_got_stop(h.s, 4, &code));
	CU_ASSERT_EQUAL(code, 0x10c);
	CU_ASSERT_FALSE(ts_stream_got_reset(h.s, 4, &code, &fs));
	/* The server answers the STOP_SENDINGs with resets: slots free. */
	ts_reset_stream(h.s, 0, 0x10c);
	ts_reset_stream(h.s, 4, 0x10c);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_PTR_NULL(qc_stream_find(h.c, 0));
	CU_ASSERT_PTR_NULL(qc_stream_find(h.c, 4));
	CU_ASSERT_FALSE(h_stream(&h, 0)->reset);
	CU_ASSERT_FALSE(h_stream(&h, 4)->reset);
	/* Everything received was counted as consumed. */
	CU_ASSERT_EQUAL(h.c->rx_consumed, h.c->rx_data);
	/* The connection goes on. */
	CU_ASSERT_EQUAL(h_request(&h, req, 5), 8);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	ts_respond(h.s, 8, 700);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_EQUAL(h_stream(&h, 8)->len, 700);
	CU_ASSERT_TRUE(h_stream(&h, 8)->fin);
	h_fini(&h);
}

/* ---- a profile's transport parameters ------------------------------------ */

/* A parameter list (quic_tp_items.h) that announces max_datagram_frame_size
 * 100 and active_connection_id_limit 8 with the windows of *k. */
static const struct shb_quic_tp_item prof_items[] = {
	{SHB_QUIC_TP_MAX_IDLE_TIMEOUT, SHB_QUIC_TPK_INT, 0, 30000, NULL},
	{SHB_QUIC_TP_INITIAL_MAX_DATA, SHB_QUIC_TPK_INT, 0, 1 << 20, NULL},
	{SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL, SHB_QUIC_TPK_INT, 0,
	 1 << 19, NULL},
	{SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_UNI, SHB_QUIC_TPK_INT, 0, 1 << 18, NULL},
	{SHB_QUIC_TP_INITIAL_MAX_STREAMS_UNI, SHB_QUIC_TPK_INT, 0, 5, NULL},
	{SHB_QUIC_TP_MAX_UDP_PAYLOAD_SIZE, SHB_QUIC_TPK_INT, 0, 1472, NULL},
	{SHB_QUIC_TP_ACTIVE_CONNECTION_ID_LIMIT, SHB_QUIC_TPK_INT, 0, 8, NULL},
	{SHB_QUIC_TP_INITIAL_SCID, SHB_QUIC_TPK_SCID, 0, 0, NULL},
	{SHB_QUIC_TP_MAX_DATAGRAM_FRAME_SIZE, SHB_QUIC_TPK_INT, 0, 100, NULL},
	{0, SHB_QUIC_TPK_GREASE, 4, 0, NULL},
};

static void prof_config(struct shb_quic_conn_config *k)
{
	memset(k, 0, sizeof(*k));
	k->tp_items = prof_items;
	k->tp_count = sizeof(prof_items) / sizeof(prof_items[0]);
	k->tp_shuffle = 1;
	k->idle_timeout = 30000 * H_MS;
	k->conn_window = 1 << 20;
	k->stream_window = 1 << 19;
	k->uni_window = 1 << 18;
	k->peer_uni = 5;
	k->max_recv_dgram = 1472;
}

static void fb_datagram(struct fb *f, size_t len, bool with_len)
{
	static const uint8_t x[200];

	fb_varint(f, with_len ? 0x31 : 0x30);
	if (with_len)
		fb_varint(f, len);
	fb_octets(f, x, len);
}

/* RFC 9221 Section 3: within the size we announced, DATAGRAM frames are
 * counted and dropped; one of 101 octets is a PROTOCOL_VIOLATION. */
static void test_datagram_announced(void)
{
	struct shb_quic_conn_config k;
	struct shb_quic_conn_stats st;
	struct harness h;
	struct fb f = {0};

	prof_config(&k);
	CU_ASSERT_FATAL(h_init(&h, &k, NULL, 81) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	fb_datagram(&f, 10, true);	/* 12 octets */
	fb_datagram(&f, 97, true);	/* 1 + 2 + 97: the most */
	ts_inject(h.s, f.b, f.n, 1);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	f.n = 0;
	fb_datagram(&f, 99, false);	/* 100 octets to the packet's end */
	ts_inject(h.s, f.b, f.n, 1);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_EQUAL(h.closed, 0);
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT_EQUAL(st.datagrams_received, 3);
	f.n = 0;
	fb_datagram(&f, 98, true);	/* 101 octets */
	ts_inject(h.s, f.b, f.n, 1);
	expect_closed(&h, 0x0a, 0x30,
		      "DATAGRAM frame above our max_datagram_frame_size");
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT_EQUAL(st.datagrams_received, 3);
	h_fini(&h);
}

/* Without max_datagram_frame_size (shb's own parameters) any DATAGRAM
 * frame is a PROTOCOL_VIOLATION. */
static void test_datagram_unannounced(void)
{
	struct harness h;
	struct fb f = {0};

	handshake(&h, NULL, 82);
	fb_datagram(&f, 1, true);
	ts_inject(h.s, f.b, f.n, 1);
	expect_closed(&h, 0x0a, 0x30,
		      "DATAGRAM frame without our max_datagram_frame_size");
	h_fini(&h);
}

/* active_connection_id_limit 8 announced: 7 more IDs are taken (shb's
 * own limit, 4, refuses the fifth: test_cid_limit_flood), the 8th more is
 * CONNECTION_ID_LIMIT_ERROR. */
static void test_cid_limit_profile(void)
{
	struct shb_quic_conn_config k;
	struct harness h;
	struct fb f = {0};

	prof_config(&k);
	CU_ASSERT_FATAL(h_init(&h, &k, NULL, 83) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	for (uint64_t seq = 1; seq <= 7; seq++)
		fb_new_cid(&f, seq, 0);
	ts_inject(h.s, f.b, f.n, 1);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_EQUAL(h.closed, 0);
	f.n = 0;
	fb_new_cid(&f, 8, 0);
	ts_inject(h.s, f.b, f.n, 1);
	expect_closed(&h, 0x09, 0x18,
		      "more connection IDs than our active_connection_id_limit");
	h_fini(&h);
}

/* RFC 9287: a server clears the QUIC bit of its 1-RTT packets. Once we
 * sent grease_quic_bit they are ours; without it they are dropped. */
static void test_grease_quic_bit(void)
{
	static const struct shb_quic_tp_item grease[] = {
		{SHB_QUIC_TP_INITIAL_MAX_DATA, SHB_QUIC_TPK_INT, 0, 1 << 20, NULL},
		{SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL, SHB_QUIC_TPK_INT, 0,
		 1 << 19, NULL},
		{SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_UNI, SHB_QUIC_TPK_INT, 0,
		 1 << 18, NULL},
		{SHB_QUIC_TP_INITIAL_MAX_STREAMS_UNI, SHB_QUIC_TPK_INT, 0, 5, NULL},
		{SHB_QUIC_TP_MAX_UDP_PAYLOAD_SIZE, SHB_QUIC_TPK_INT, 0, 1472, NULL},
		{SHB_QUIC_TP_MAX_IDLE_TIMEOUT, SHB_QUIC_TPK_INT, 0, 30000, NULL},
		{SHB_QUIC_TP_GREASE_QUIC_BIT, SHB_QUIC_TPK_EMPTY, 0, 0, NULL},
		{SHB_QUIC_TP_INITIAL_SCID, SHB_QUIC_TPK_SCID, 0, 0, NULL},
	};
	struct ts_config sc = {.clear_fixed_bit = true, .response_len = 3000};
	struct shb_quic_conn_config k;
	struct shb_quic_conn_stats st;
	struct harness h;

	prof_config(&k);
	k.tp_items = grease;
	k.tp_count = sizeof(grease) / sizeof(grease[0]);
	CU_ASSERT_FATAL(h_init(&h, &k, &sc, 86) == 0);
	CU_ASSERT_TRUE(h.c->local_tp.grease_quic_bit);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_EQUAL(h_request(&h, req, 5), 0);
	h_run(&h, h_cond_quiet, 2000 * H_MS);
	CU_ASSERT_EQUAL(h_stream(&h, 0)->len, 3000);
	CU_ASSERT_TRUE(h_stream(&h, 0)->fin);
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT_EQUAL(st.packets_dropped, 0);
	h_fini(&h);
	/* shb's own parameters: the same packets are dropped. */
	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 87) == 0);
	CU_ASSERT_FALSE(h.c->local_tp.grease_quic_bit);
	h_run(&h, h_cond_handshake, 2000 * H_MS);
	if (h.hs_done)
		h_request(&h, req, 5);
	h_run(&h, h_cond_quiet, 2000 * H_MS);
	CU_ASSERT_EQUAL(h_stream(&h, 0) ? h_stream(&h, 0)->len : 0, 0);
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT(st.packets_dropped > 0);
	h_fini(&h);
}

/* RFC 9368 Section 4: a server whose version_information chooses another
 * version than the connection's v1 is a VERSION_NEGOTIATION_ERROR; one
 * that chooses v1 is fine. */
static void test_version_information(void)
{
	struct ts_config sc = {.chosen_version = 1};
	struct harness h;

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 88) == 0);
	CU_ASSERT_TRUE(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_EQUAL(h.closed, 0);
	h_fini(&h);
	sc.chosen_version = 0x6b3343cf; /* QUIC v2 */
	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 89) == 0);
	expect_closed_ex(&h, 0x11, 0x06,
			 "version_information chooses another version than 1",
			 false);
	CU_ASSERT_EQUAL(h.hs_done, 0);
	h_fini(&h);
}

/* A list that announces what the connection does not enforce is
 * refused: here a connection window other than conn_window. */
static void test_items_mismatch(void)
{
	struct shb_quic_conn_config k;
	struct harness h;

	prof_config(&k);
	k.conn_window = 1 << 21;
	CU_ASSERT_NOT_EQUAL(h_init(&h, &k, NULL, 84), 0);
	CU_ASSERT_PTR_NULL(h.c);
	h_fini(&h);
	prof_config(&k);
	k.peer_uni = 4;
	CU_ASSERT_NOT_EQUAL(h_init(&h, &k, NULL, 85), 0);
	CU_ASSERT_PTR_NULL(h.c);
	h_fini(&h);
}

CU_TestInfo shb_test_conn_hostile[] = {
	{"DATAGRAM frames within max_datagram_frame_size",
	 test_datagram_announced},
	{"DATAGRAM frame not announced", test_datagram_unannounced},
	{"active_connection_id_limit of a profile", test_cid_limit_profile},
	{"a parameter list the connection does not match", test_items_mismatch},
	{"grease_quic_bit (RFC 9287)", test_grease_quic_bit},
	{"version_information (RFC 9368)", test_version_information},
	{"CRYPTO beyond the reassembly window", test_crypto_beyond_window},
	{"STREAM beyond MAX_DATA", test_stream_beyond_max_data},
	{"reorder pool bounded", test_reorder_pool_bounded},
	{"server uni stream above the limit", test_server_uni_above_limit},
	{"seven STREAM frames in one packet", test_many_frames_one_packet},
	{"ACK of a packet never sent", test_ack_of_unsent},
	{"ACK with huge range counts", test_ack_huge_ranges},
	{"NEW_CONNECTION_ID retire flood", test_cid_retire_flood},
	{"NEW_CONNECTION_ID beyond the limit", test_cid_limit_flood},
	{"PATH_CHALLENGE flood", test_path_challenge_flood},
	{"cancel: RESET_STREAM, STOP_SENDING, late data",
	 test_cancel_request},
	CU_TEST_INFO_NULL,
};
