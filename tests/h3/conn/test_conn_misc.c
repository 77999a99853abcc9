/* Close both ways, idle and handshake timeouts, keepalive, Retry,
 * Version Negotiation, key update, stateless reset, connection IDs,
 * path validation. */
#include <string.h>

#include "conn_harness.h"
#include "conn_tests.h"

static const uint8_t req[] = "GET /";

static void test_client_close(void)
{
	struct harness h;
	uint64_t type, code;
	const char *reason;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 31) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	shb_quic_conn_close(h.c, 0x100, "bye", h.now);
	CU_ASSERT_EQUAL(h.closed, 1);
	CU_ASSERT_EQUAL(h.close.origin, SHB_QUIC_CLOSE_LOCAL);
	CU_ASSERT_EQUAL(h.close.app, 1);
	CU_ASSERT_EQUAL(h.close.code, 0x100);
	CU_ASSERT_STRING_EQUAL(h.close_reason, "bye");
	CU_ASSERT_EQUAL(shb_quic_conn_state(h.c), SHB_QUIC_CONN_CLOSING);
	CU_ASSERT_TRUE(shb_quic_conn_want_write(h.c));
	CU_ASSERT_EQUAL(shb_quic_conn_bidi_open(h.c), SHB_QUIC_CONN_E_CLOSED);
	CU_ASSERT_EQUAL(shb_quic_conn_deadline(h.c), UINT64_MAX);
	h_run(&h, NULL, 100 * H_MS);
	CU_ASSERT_EQUAL(shb_quic_conn_state(h.c), SHB_QUIC_CONN_CLOSED);
	CU_ASSERT_TRUE(ts_got_close(h.s, &type, &code, &reason));
	CU_ASSERT_EQUAL(type, 0x1d);
	CU_ASSERT_EQUAL(code, 0x100);
	CU_ASSERT_STRING_EQUAL(reason, "bye");
	/* A second close, and receiving, change nothing. */
	shb_quic_conn_close(h.c, 0x101, NULL, h.now);
	CU_ASSERT_EQUAL(h.closed, 1);
	CU_ASSERT_EQUAL(shb_quic_conn_recv(h.c, (uint8_t *)"x", 1, h.now),
			SHB_QUIC_CONN_E_CLOSED);
	h_fini(&h);
}

/* Closing during the handshake: a transport close with
 * APPLICATION_ERROR, never 0x1d, in a padded Initial. */
static void test_close_in_handshake(void)
{
	struct harness h;
	uint64_t type, code;
	const char *reason;
	size_t min_len;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 32) == 0);
	h.down.drop_all = true;
	h_run(&h, NULL, 50 * H_MS);
	shb_quic_conn_close(h.c, 0x10c, "cancelled", h.now);
	h_run(&h, NULL, 100 * H_MS);
	CU_ASSERT_EQUAL(shb_quic_conn_state(h.c), SHB_QUIC_CONN_CLOSED);
	CU_ASSERT_TRUE(ts_got_close(h.s, &type, &code, &reason));
	CU_ASSERT_EQUAL(type, 0x1c);
	CU_ASSERT_EQUAL(code, 0x0c);
	CU_ASSERT_STRING_EQUAL(reason, "");
	ts_initials_received(h.s, &min_len);
	CU_ASSERT_TRUE(min_len >= 1200);
	CU_ASSERT_EQUAL(h.short_initials, 0);
	h_fini(&h);
}

/* Closing before anything was sent needs no packet. */
static void test_close_before_start(void)
{
	struct harness h;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 33) == 0);
	shb_quic_conn_close(h.c, 0x100, NULL, h.now);
	CU_ASSERT_EQUAL(shb_quic_conn_state(h.c), SHB_QUIC_CONN_CLOSED);
	CU_ASSERT_FALSE(shb_quic_conn_want_write(h.c));
	h_fini(&h);
}

static void test_server_close(void)
{
	struct harness h;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 34) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	ts_close(h.s, true, 0x101, "general\nprotocol error");
	CU_ASSERT_TRUE(h_run(&h, h_cond_closed, 1000 * H_MS));
	CU_ASSERT_EQUAL(h.closed, 1);
	CU_ASSERT_EQUAL(h.close.origin, SHB_QUIC_CLOSE_PEER);
	CU_ASSERT_EQUAL(h.close.app, 1);
	CU_ASSERT_EQUAL(h.close.code, 0x101);
	/* Control bytes in the reason are replaced. */
	CU_ASSERT_STRING_EQUAL(h.close_reason, "general?protocol error");
	CU_ASSERT_PTR_NOT_NULL(shb_quic_conn_error_detail(h.c));
	h_fini(&h);
}

static void test_server_transport_close(void)
{
	struct harness h;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 35) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	ts_close(h.s, false, 0x0a, "nope");
	CU_ASSERT_TRUE(h_run(&h, h_cond_closed, 1000 * H_MS));
	CU_ASSERT_EQUAL(h.close.origin, SHB_QUIC_CLOSE_PEER);
	CU_ASSERT_EQUAL(h.close.app, 0);
	CU_ASSERT_EQUAL(h.close.code, 0x0a);
	CU_ASSERT_EQUAL(h.close.in_handshake, 0); /* a 1-RTT packet */
	h_fini(&h);
}

/* A Handshake packet from the server carrying CONNECTION_CLOSE with
 * transport `code`, sealed with the client's Handshake receive keys (the
 * server's send keys) into p[cap]; returns its length, 0 on failure. */
static size_t server_hs_close(struct harness *h, uint64_t code, uint8_t *p,
			      size_t cap)
{
	struct shb_quic_frame f = {.type = SHB_QUIC_FT_CONNECTION_CLOSE};
	struct shb_quic_hdr_layout lay;
	uint64_t pn = shb_quic_recovery_largest_received(&h->c->rec, QC_HANDSHAKE) + 1;
	struct shb_quic_hdr_spec sp = {
		.type = SHB_QUIC_PT_HANDSHAKE,
		.dcid = h->c->scid.id, .dcid_len = h->c->scid.len,
		.scid = h->c->server_scid.id, .scid_len = h->c->server_scid.len,
		.pn = pn, .pn_len = 2, .length_size = 2,
	};

	f.u.close.error_code = code;
	if (shb_quic_hdr_build(p, cap, &sp, &lay) != 0)
		return 0;
	size_t n = shb_quic_frame_encode(p + lay.len, cap - lay.len - 16, &f);

	if (n < shb_quic_hp_min_payload(lay.pn_len)) {
		memset(p + lay.len + n, 0, shb_quic_hp_min_payload(lay.pn_len) - n);
		n = shb_quic_hp_min_payload(lay.pn_len);
	}
	shb_quic_hdr_set_length(p, &lay, lay.len + n + 16);
	return shb_quic_protect(&h->c->sp[QC_HANDSHAKE].rx, pn, p, lay.pn_offset,
				n, lay.len + n + 16) < 0 ? 0 : lay.len + n + 16;
}

/* The server closes in a Handshake packet after our handshake completed:
 * its own had not (our Finished never reached it; ngtcp2 servers report
 * their handshake timeout that way, as PROTOCOL_VIOLATION). The close
 * says so, and the plugin's text with it. */
static void test_server_close_in_handshake(void)
{
	struct harness h;
	uint8_t d[256];
	size_t n;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 37) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	/* Not confirmed yet: the client still reads Handshake packets. */
	CU_ASSERT_FATAL(!h.c->sp[QC_HANDSHAKE].discarded);
	n = server_hs_close(&h, 0x0a, d, sizeof(d));
	CU_ASSERT_FATAL(n > 0);
	h_inject(&h, d, n);
	CU_ASSERT_EQUAL(h.closed, 1);
	CU_ASSERT_EQUAL(h.close.origin, SHB_QUIC_CLOSE_PEER);
	CU_ASSERT_EQUAL(h.close.app, 0);
	CU_ASSERT_EQUAL(h.close.code, 0x0a);
	CU_ASSERT_EQUAL(h.close.in_handshake, 1);
	h_fini(&h);
}

/* The server's 1 s max_idle_timeout wins over our 30 s. */
static void test_idle_timeout(void)
{
	struct harness h;
	struct ts_config sc = {.idle_timeout_ms = 1000};
	uint64_t t0;

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 36) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_EQUAL(shb_quic_conn_idle_timeout(h.c), 1000 * H_MS);
	t0 = h.now;
	CU_ASSERT_TRUE(h_run(&h, h_cond_closed, 5000 * H_MS));
	CU_ASSERT_EQUAL(h.close.origin, SHB_QUIC_CLOSE_IDLE);
	/* From the last packet received (HANDSHAKE_DONE, one RTT later). */
	CU_ASSERT_TRUE(h.now - t0 >= 1000 * H_MS);
	CU_ASSERT_TRUE(h.now - t0 <= 1050 * H_MS);
	CU_ASSERT_FALSE(ts_got_close(h.s, &t0, &t0, &(const char *){0}));
	h_fini(&h);
}

/* RFC 9000 10.1: three times the current PTO, smoothed RTT + 4 rttvar +
 * max_ack_delay, without the backoff of the probes sent since. */
static uint64_t three_ptos(const struct harness *h)
{
	const struct shb_quic_rtt *r = shb_quic_recovery_rtt(&h->c->rec);
	uint64_t var4 = 4 * r->var > H_MS / 1000 ? 4 * r->var : H_MS / 1000;

	return 3 * (r->smoothed + var4 + 25 * H_MS);
}

/* The path goes dead with a request in flight (so PTOs fire, each
 * doubling the probe timeout): the connection still ends at
 * max(idle timeout, 3 PTO) after the request was sent, within 1 ms. With
 * the backoff in the floor, each probe moved the deadline further away. */
static void dead_path(uint64_t one_way_ms, uint64_t idle_ms, int seed,
		      uint64_t min_ptos)
{
	struct harness h;
	struct ts_config sc = {.idle_timeout_ms = idle_ms};
	struct shb_quic_conn_stats st;
	uint64_t t0, want;

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, seed) == 0);
	h.up.delay = h.down.delay = one_way_ms * H_MS;
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 20000 * H_MS));
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 20000 * H_MS));
	want = three_ptos(&h);
	if (want < idle_ms * H_MS)
		want = idle_ms * H_MS;
	h.up.drop_all = h.down.drop_all = true;
	t0 = h.now;
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 0);
	CU_ASSERT_TRUE(h_run(&h, h_cond_closed, 10 * want));
	CU_ASSERT_EQUAL(h.close.origin, SHB_QUIC_CLOSE_IDLE);
	CU_ASSERT_TRUE(h.now - t0 >= want);
	CU_ASSERT_TRUE(h.now - t0 <= want + H_MS);
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT_TRUE(st.pto_count >= min_ptos); /* the backoff was in play */
	h_fini(&h);
}

/* 10 ms each way: the 8 s idle timeout is above 3 PTO, and the liveness
 * PINGs (every sixteenth of it, 500 ms) leave the first three PTOs to
 * the backoff. */
static void test_idle_dead_path(void)
{
	dead_path(10, 8000, 40, 3);
}

/* 150 ms each way: 3 PTO is above the 500 ms idle timeout. */
static void test_idle_dead_path_slow(void)
{
	dead_path(150, 500, 41, 1);
}

/* While a response is owed, PINGs at half the idle timeout keep the
 * connection alive. */
static void test_keepalive(void)
{
	struct harness h;
	struct ts_config sc = {.idle_timeout_ms = 1000, .no_auto_response = true};
	uint64_t before;

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 37) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 0);
	h_run(&h, h_cond_quiet, 100 * H_MS);
	before = ts_datagrams_received(h.s);
	h_run(&h, NULL, 5000 * H_MS);
	CU_ASSERT_EQUAL(h.closed, 0);
	/* About 10 PINGs in 5 s (every 500 ms), each acknowledged. */
	CU_ASSERT_TRUE(ts_datagrams_received(h.s) - before >= 9);
	CU_ASSERT_TRUE(ts_datagrams_received(h.s) - before <= 12);
	/* Once the response is in, no more keepalive: idle closes. */
	ts_respond(h.s, 0, 10);
	CU_ASSERT_TRUE(h_run(&h, h_cond_closed, 5000 * H_MS));
	CU_ASSERT_EQUAL(h.close.origin, SHB_QUIC_CLOSE_IDLE);
	CU_ASSERT_TRUE(h_stream(&h, 0)->fin);
	h_fini(&h);
}

/* No answer at all: the handshake deadline, not the idle timeout. */
static void test_handshake_timeout(void)
{
	struct harness h;
	struct shb_quic_conn_config cfg = {.handshake_timeout = 3000 * H_MS};
	struct shb_quic_conn_stats st;

	CU_ASSERT_FATAL(h_init(&h, &cfg, NULL, 38) == 0);
	h.down.drop_all = true;
	CU_ASSERT_TRUE(h_run(&h, h_cond_closed, 10000 * H_MS));
	CU_ASSERT_EQUAL(h.close.origin, SHB_QUIC_CLOSE_HANDSHAKE_TIMEOUT);
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT_EQUAL(h.now - st.ts_first_sent, 3000 * H_MS);
	/* PTOs resent the ClientHello meanwhile (1 s, then 2 s later). */
	CU_ASSERT_EQUAL(st.pto_count, 2);
	h_fini(&h);
}

static void test_retry(void)
{
	struct harness h;
	struct ts_config sc = {.retry = true, .response_len = 2000};
	struct shb_quic_conn_stats st;
	size_t min_len;

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 39) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT_EQUAL(st.retried, 1);
	/* Two round trips: the Retry, then the handshake. */
	CU_ASSERT_EQUAL(st.ts_handshake - st.ts_first_sent, 40 * H_MS);
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 0);
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 1000 * H_MS));
	CU_ASSERT_EQUAL(h_stream(&h, 0)->len, 2000);
	ts_initials_received(h.s, &min_len);
	CU_ASSERT_TRUE(min_len >= 1200);
	h_fini(&h);
}

/* A Retry whose integrity tag is wrong is ignored; so is a second one. */
static void test_retry_bad_tag(void)
{
	struct harness h;
	uint8_t pkt[64];
	size_t n = 0;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 40) == 0);
	h.down.drop_all = true;
	h_run(&h, NULL, 1 * H_MS);
	pkt[n++] = 0xf0;
	memcpy(pkt + n, "\x00\x00\x00\x01", 4);
	n += 4;
	pkt[n++] = h.c->scid.len;
	memcpy(pkt + n, h.c->scid.id, h.c->scid.len);
	n += h.c->scid.len;
	pkt[n++] = 4;
	memcpy(pkt + n, "abcd", 4);
	n += 4;
	memcpy(pkt + n, "tok", 3);
	n += 3;
	memset(pkt + n, 0x55, 16);
	n += 16;
	h_inject(&h, pkt, n);
	CU_ASSERT_EQUAL(h.c->retried, 0);
	CU_ASSERT_EQUAL(h.c->token_len, 0);
	h_fini(&h);
}

static void test_version_negotiation(void)
{
	struct harness h;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 41) == 0);
	ts_version_negotiation(h.s);
	CU_ASSERT_TRUE(h_run(&h, h_cond_closed, 2000 * H_MS));
	CU_ASSERT_EQUAL(h.close.origin, SHB_QUIC_CLOSE_VERSION);
	h_fini(&h);
}

/* A Version Negotiation that lists v1, or does not echo our IDs, is
 * ignored. */
static void test_version_negotiation_ignored(void)
{
	struct harness h;
	uint8_t pkt[64];
	size_t n = 0;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 42) == 0);
	h.down.drop_all = true;
	h_run(&h, NULL, 1 * H_MS);
	pkt[n++] = 0x80;
	memset(pkt + n, 0, 4);
	n += 4;
	pkt[n++] = h.c->scid.len;
	memcpy(pkt + n, h.c->scid.id, h.c->scid.len);
	n += h.c->scid.len;
	pkt[n++] = h.c->odcid.len;
	memcpy(pkt + n, h.c->odcid.id, h.c->odcid.len);
	n += h.c->odcid.len;
	memcpy(pkt + n, "\x1a\x2a\x3a\x4a\x00\x00\x00\x01", 8);
	h_inject(&h, pkt, n + 8);
	CU_ASSERT_EQUAL(h.closed, 0);
	pkt[n - 1] ^= 1; /* wrong SCID echo, v1 not listed */
	h_inject(&h, pkt, n + 4);
	CU_ASSERT_EQUAL(h.closed, 0);
	h_fini(&h);
}

/* The server updates keys twice: the client follows each time, and
 * data keeps flowing both ways. */
static void test_key_update(void)
{
	struct harness h;
	struct ts_config sc = {.response_len = 300000};
	struct shb_quic_conn_stats st;

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 43) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	ts_key_update(h.s);
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 0);
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 2000 * H_MS));
	CU_ASSERT_EQUAL(h.c->key_phase, 1);
	CU_ASSERT_EQUAL(ts_key_phase_rx(h.s), 1);
	CU_ASSERT_EQUAL(h_stream(&h, 0)->len, 300000);
	ts_key_update(h.s);
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 4);
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 2000 * H_MS));
	CU_ASSERT_EQUAL(h.c->key_phase, 0);
	CU_ASSERT_EQUAL(ts_key_phase_rx(h.s), 0);
	CU_ASSERT_EQUAL(h_stream(&h, 4)->len, 300000);
	CU_ASSERT_EQUAL(h_stream(&h, 4)->bad_bytes, 0);
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT_EQUAL(st.key_updates, 2);
	CU_ASSERT_EQUAL(h.closed, 0);
	h_fini(&h);
}

/* A key update under reordering: late packets of the old phase still
 * open with the previous keys. */
static void test_key_update_reordered(void)
{
	struct harness h;
	struct ts_config sc = {.response_len = 200000};

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 44) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	h.down.reorder_pct = 30;
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 0);
	h_run(&h, NULL, 10 * H_MS);
	ts_key_update(h.s);
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 5000 * H_MS));
	CU_ASSERT_EQUAL(h_stream(&h, 0)->len, 200000);
	CU_ASSERT_EQUAL(h_stream(&h, 0)->bad_bytes, 0);
	CU_ASSERT_EQUAL(h.c->key_phase, 1);
	CU_ASSERT_EQUAL(h.closed, 0);
	h_fini(&h);
}

static void test_stateless_reset(void)
{
	struct harness h;
	uint8_t d[43];

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 45) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	/* A datagram too short to be a reset, then one with a wrong token:
	 * both dropped. */
	CU_ASSERT_EQUAL(ts_stateless_reset(h.s, 0, d, 20), 20);
	h_inject(&h, d, 20);
	CU_ASSERT_EQUAL(ts_stateless_reset(h.s, 0, d, sizeof(d)), sizeof(d));
	d[sizeof(d) - 1] ^= 1;
	h_inject(&h, d, sizeof(d));
	CU_ASSERT_EQUAL(h.closed, 0);
	d[sizeof(d) - 1] ^= 1;
	h_inject(&h, d, sizeof(d));
	CU_ASSERT_EQUAL(h.closed, 1);
	CU_ASSERT_EQUAL(h.close.origin, SHB_QUIC_CLOSE_STATELESS_RESET);
	CU_ASSERT_EQUAL(shb_quic_conn_state(h.c), SHB_QUIC_CONN_CLOSED);
	h_fini(&h);
}

/* NEW_CONNECTION_ID with retire_prior_to: the ID in use is retired, the
 * client moves to the new one and tells the server; a reset for the new
 * ID's token is recognised. */
static void test_new_connection_id(void)
{
	struct harness h;
	uint64_t last = 0;
	uint8_t d[40];

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 46) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	ts_new_cid(h.s, 1, 0);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_EQUAL(ts_retired_cids(h.s, &last), 0);
	CU_ASSERT_EQUAL(h.c->cur_cid, 0);
	ts_new_cid(h.s, 2, 2);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_EQUAL(ts_retired_cids(h.s, &last), 2);
	CU_ASSERT_EQUAL(h.c->cids[h.c->cur_cid].seq, 2);
	uint64_t before = ts_packets_to_cid(h.s, 2);

	CU_ASSERT_EQUAL(h_request(&h, req, 3), 0);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_TRUE(ts_packets_to_cid(h.s, 2) > before);
	CU_ASSERT_EQUAL(h_stream(&h, 0)->len, 13);
	/* The old token no longer resets; the new one does. */
	ts_stateless_reset(h.s, 0, d, sizeof(d));
	h_inject(&h, d, sizeof(d));
	CU_ASSERT_EQUAL(h.closed, 0);
	ts_stateless_reset(h.s, 2, d, sizeof(d));
	h_inject(&h, d, sizeof(d));
	CU_ASSERT_EQUAL(h.close.origin, SHB_QUIC_CLOSE_STATELESS_RESET);
	h_fini(&h);
}

/* More connection IDs than our active_connection_id_limit. */
static void test_cid_limit(void)
{
	struct harness h;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 47) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	for (uint64_t i = 1; i <= 4; i++)
		ts_new_cid(h.s, i, 0);
	h_run(&h, h_cond_closed, 1000 * H_MS);
	CU_ASSERT_EQUAL(h.close.origin, SHB_QUIC_CLOSE_ERROR);
	CU_ASSERT_EQUAL(h.close.code, 0x09);
	h_fini(&h);
}

static void test_path_challenge(void)
{
	struct harness h;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 48) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	ts_path_challenge(h.s);
	h_run(&h, h_cond_quiet, 1000 * H_MS);
	CU_ASSERT_EQUAL(ts_path_responses(h.s), 1);
	h_fini(&h);
}

/* The owner closes from inside a STREAM_DATA callback: CLOSED comes at
 * once, nothing after it, and the close goes out. */
static unsigned after_closed;

static void close_on_data(struct harness *h, const struct shb_quic_event *ev)
{
	if (h->closed && ev->kind != SHB_QUIC_EV_CLOSED)
		after_closed++;
	if (ev->kind == SHB_QUIC_EV_STREAM_DATA && ev->stream_id == 0 &&
	    !h->closed)
		shb_quic_conn_close(h->c, 0x10c, "enough", h->now);
}

static void test_close_in_callback(void)
{
	struct harness h;
	struct ts_config sc = {.response_len = 100000};
	uint64_t type, code;
	const char *reason;

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 49) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	after_closed = 0;
	h.hook = close_on_data;
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 0);
	CU_ASSERT_EQUAL(h_request(&h, req, 3), 4);
	h_run(&h, NULL, 200 * H_MS);
	CU_ASSERT_EQUAL(h.closed, 1);
	CU_ASSERT_EQUAL(after_closed, 0);
	CU_ASSERT_EQUAL(shb_quic_conn_state(h.c), SHB_QUIC_CONN_CLOSED);
	CU_ASSERT_TRUE(h_stream(&h, 0)->len > 0);
	CU_ASSERT_TRUE(h_stream(&h, 0)->len < 100000);
	CU_ASSERT_TRUE(ts_got_close(h.s, &type, &code, &reason));
	CU_ASSERT_EQUAL(type, 0x1d);
	CU_ASSERT_EQUAL(code, 0x10c);
	h_fini(&h);
}

CU_TestInfo shb_test_conn_misc[] = {
	{"close from inside a callback", test_close_in_callback},
	{"client close (application, 1-RTT)", test_client_close},
	{"client close during the handshake", test_close_in_handshake},
	{"close before anything was sent", test_close_before_start},
	{"server application close", test_server_close},
	{"server transport close", test_server_transport_close},
	{"server close in a Handshake packet", test_server_close_in_handshake},
	{"idle timeout", test_idle_timeout},
	{"idle timeout, dead path", test_idle_dead_path},
	{"idle timeout, dead path, 3 PTO", test_idle_dead_path_slow},
	{"keepalive while a response is owed", test_keepalive},
	{"handshake timeout", test_handshake_timeout},
	{"Retry", test_retry},
	{"Retry with a bad tag ignored", test_retry_bad_tag},
	{"Version Negotiation", test_version_negotiation},
	{"Version Negotiation ignored", test_version_negotiation_ignored},
	{"key update by the server, twice", test_key_update},
	{"key update with reordering", test_key_update_reordered},
	{"stateless reset", test_stateless_reset},
	{"NEW_CONNECTION_ID and retire_prior_to", test_new_connection_id},
	{"connection ID limit", test_cid_limit},
	{"PATH_CHALLENGE answered", test_path_challenge},
	CU_TEST_INFO_NULL,
};
