/* Loss, reordering and duplication: the handshake and bulk transfers
 * must complete, PTO probes must stay small, CRYPTO must be resent. */
#include <stdlib.h>
#include <string.h>

#include "conn_harness.h"
#include "conn_tests.h"
#include "quic_pn.h"

static const uint8_t req[] = "GET /1m";

static bool got_fin0(struct harness *h)
{
	struct h_stream *s = h_stream(h, 0);

	return s && s->fin;
}

static void test_first_initial_lost(void)
{
	struct harness h;
	struct shb_quic_conn_stats st;
	size_t min_len;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 11) == 0);
	h.up.drop_first = 1;
	CU_ASSERT_TRUE(h_run(&h, h_cond_handshake, 5000 * H_MS));
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT_EQUAL(st.pto_count, 1);
	/* The PTO came after 3 * 333 ms (initial RTT, no sample yet) and the
	 * ClientHello went again, padded. */
	CU_ASSERT_TRUE(st.ts_handshake - st.ts_first_sent >= 999 * H_MS);
	CU_ASSERT_TRUE(st.ts_handshake - st.ts_first_sent < 1100 * H_MS);
	CU_ASSERT_TRUE(ts_initials_received(h.s, &min_len) >= 1);
	CU_ASSERT_TRUE(min_len >= 1200);
	CU_ASSERT_EQUAL(h.short_initials, 0);
	h_fini(&h);
}

/* The server's first datagram (ServerHello and more) is lost: both sides
 * time out and resend; the client's duplicate ClientHello is harmless. */
static void test_server_initial_lost(void)
{
	struct harness h;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 12) == 0);
	h.down.drop_list[0] = 1;
	CU_ASSERT_TRUE(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 5000 * H_MS));
	CU_ASSERT_EQUAL(h.closed, 0);
	CU_ASSERT_TRUE(h.c->confirmed);
	h_fini(&h);
}

/* A flight of several datagrams (large certificate) with two of them
 * lost: CRYPTO reassembly holds what follows the gap. */
static void test_server_handshake_lost(void)
{
	struct harness h;
	struct ts_config sc = {.cert = h_big_cert()};

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 13) == 0);
	h.down.drop_list[0] = 2;
	h.down.drop_list[1] = 3;
	CU_ASSERT_TRUE(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_TRUE(h.c->sp[QC_HANDSHAKE].cr.off > 4000 ||
		       h.c->sp[QC_HANDSHAKE].discarded);
	h_fini(&h);
}

static bool kept_early(struct harness *h)
{
	return h->c->nearly > 0;
}

static bool handshake_keys(struct harness *h)
{
	return shb_quic_keys_ready(&h->c->sp[QC_HANDSHAKE].rx);
}

/* The server's first datagram (its Initial) is lost, so the Handshake
 * datagrams behind it arrive before their keys: they are kept, counted,
 * and replayed in the very call that installs the keys (the count is
 * what lets every other datagram skip the replay). */
static void test_handshake_before_keys(void)
{
	struct harness h;
	struct ts_config sc = {.cert = h_big_cert()};
	unsigned held = 0;

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, 14) == 0);
	h.down.drop_list[0] = 1;
	CU_ASSERT_TRUE_FATAL(h_run(&h, kept_early, 5000 * H_MS));
	for (unsigned i = 0; i < QC_EARLY_PKTS; i++)
		held += h.c->early[i].len != 0;
	CU_ASSERT_EQUAL(held, h.c->nearly);
	CU_ASSERT_TRUE_FATAL(h_run(&h, handshake_keys, 5000 * H_MS));
	CU_ASSERT_EQUAL(h.c->nearly, 0);
	for (unsigned i = 0; i < QC_EARLY_PKTS; i++)
		CU_ASSERT_EQUAL(h.c->early[i].len, 0);
	CU_ASSERT_TRUE(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_EQUAL(h.closed, 0);
	h_fini(&h);
}

/* Every ACK from the server lost for a while during an upload: PTOs fire
 * and each probe train is at most two datagrams. */
static void test_probes_small(void)
{
	static uint8_t body[300000];
	struct harness h;
	struct shb_quic_conn_stats st;
	size_t len;
	bool fin;

	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = (uint8_t)(i * 7);
	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 14) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 1000 * H_MS));
	CU_ASSERT_EQUAL(h_request(&h, body, sizeof(body)), 0);
	h.down.drop_all = true;
	h_run(&h, NULL, 3000 * H_MS);
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT_TRUE(st.pto_count >= 2);
	CU_ASSERT_TRUE(h.probe_trains >= 2);
	CU_ASSERT_TRUE(h.probe_train_max <= 2);
	CU_ASSERT_TRUE(h.max_train > 2); /* the upload itself went in trains */
	h.down.drop_all = false;
	CU_ASSERT_TRUE(h_run(&h, got_fin0, 20000 * H_MS));
	const uint8_t *d = ts_stream_data(h.s, 0, &len, &fin);

	CU_ASSERT_EQUAL(len, sizeof(body));
	CU_ASSERT_TRUE(fin);
	CU_ASSERT_TRUE(d && memcmp(d, body, sizeof(body)) == 0);
	CU_ASSERT_EQUAL(h.bad_trains, 0);
	h_fini(&h);
}

static bool probe_sent(struct harness *h)
{
	return h->probe_trains > 0;
}

/* An upload fills the sent-packet ring and every datagram of it is lost,
 * with the first PTO's probes, which take the ring's last two slots. The
 * next probes can only be untracked PINGs; the server acknowledges them
 * and nothing else. That ACK newly acknowledges packets recovery never
 * recorded, and it must still count: packet-threshold loss of the whole
 * ring, and the upload goes on. (Seen against ngtcp2's gtlsserver on a
 * loaded machine: the stream stayed stuck until the request timeout,
 * each PTO sending two PINGs the server acknowledged.) A ring's worth in
 * flight at once needs the lab start: a 4 MiB window, no pacing. */
static void test_full_ring_lost(void)
{
	static uint8_t body[800000];
	struct shb_quic_conn_config cfg = {.initial_window = 4u << 20,
					   .no_pacing = 1};
	struct harness h;
	struct shb_quic_conn_stats st;
	size_t len;
	bool fin;

	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = (uint8_t)(i * 13 + (i >> 9));
	CU_ASSERT_FATAL(h_init(&h, &cfg, NULL, 15) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 1000 * H_MS));
	CU_ASSERT_EQUAL(h_request(&h, body, sizeof(body)), 0);
	h.up.drop_all = true;
	CU_ASSERT_TRUE_FATAL(h_run(&h, probe_sent, 5000 * H_MS));
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT_EQUAL(st.pto_count, 1);
	CU_ASSERT_EQUAL(st.packets_lost, 0);
	CU_ASSERT_EQUAL(shb_quic_recovery_ring_count(&h.c->rec, QC_APP),
			QC_APP_RING);
	h.up.drop_all = false;
	CU_ASSERT_TRUE(h_run(&h, got_fin0, 20000 * H_MS));
	const uint8_t *d = ts_stream_data(h.s, 0, &len, &fin);

	CU_ASSERT_EQUAL(len, sizeof(body));
	CU_ASSERT_TRUE(fin);
	CU_ASSERT_TRUE(d && memcmp(d, body, sizeof(body)) == 0);
	shb_quic_conn_stats(h.c, &st);
	/* The whole ring was declared lost: no record was ever acknowledged
	 * before the PINGs' ACK. */
	CU_ASSERT_TRUE(st.packets_lost >= QC_APP_RING);
	CU_ASSERT_EQUAL(h.closed, 0);
	CU_ASSERT_EQUAL(h.bad_trains, 0);
	h_fini(&h);
}

/* Handshake and a 1 MB response over an impaired path, for one seed. */
static void impaired(uint64_t seed, uint32_t loss, uint32_t reorder,
		     uint32_t dup, bool big_cert)
{
	struct harness h;
	struct ts_config sc = {.response_len = 1u << 20,
			       .cert = big_cert ? h_big_cert() : NULL};
	const char *only = getenv("H_SEED");

	/* H_SEED=n runs just that seed (debugging). */
	if (only && strtoull(only, NULL, 10) != seed)
		return;

	CU_ASSERT_FATAL(h_init(&h, NULL, &sc, seed) == 0);
	h.up.loss_pct = h.down.loss_pct = loss;
	h.up.reorder_pct = h.down.reorder_pct = reorder;
	h.up.dup_pct = h.down.dup_pct = dup;
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 30000 * H_MS));
	CU_ASSERT_EQUAL(h_request(&h, req, sizeof(req)), 0);
	CU_ASSERT_TRUE(h_run(&h, got_fin0, 120000 * H_MS));
	struct h_stream *s = h_stream(&h, 0);

	if (!s->fin)
		h_dump(&h);

	CU_ASSERT_EQUAL(s->len, 1u << 20);
	CU_ASSERT_EQUAL(s->bad_bytes, 0);
	CU_ASSERT_EQUAL(s->bad_offsets, 0);
	CU_ASSERT_EQUAL(s->fin_events, 1);
	CU_ASSERT_EQUAL(h.closed, 0);
	CU_ASSERT_EQUAL(h.bad_trains, 0);
	CU_ASSERT_EQUAL(h.short_initials, 0);
	h_fini(&h);
}

static void test_reorder(void)
{
	for (uint64_t seed = 100; seed < 104; seed++)
		impaired(seed, 0, 25, 0, true);
}

static void test_duplicate(void)
{
	for (uint64_t seed = 200; seed < 204; seed++)
		impaired(seed, 0, 0, 20, true);
}

static void test_loss(void)
{
	for (uint64_t seed = 300; seed < 306; seed++)
		impaired(seed, 10, 0, 0, seed & 1);
}

static void test_everything(void)
{
	for (uint64_t seed = 400; seed < 408; seed++)
		impaired(seed, 8, 15, 8, seed & 1);
}

/* Every datagram to the server lost for 26 s with a request owed (a
 * server's overflowing socket drops every probe): the probes back off
 * (96 ms, then 192, 384 ms ...: the ninth would come 49 s after the
 * request), yet one goes at least every sixteenth of the 30 s idle
 * period, so the response arrives within that of the path's return and
 * the connection lives on. Before, it ended by idle timeout at 30 s. */
static void test_probes_through_a_long_outage(void)
{
	struct harness h;
	struct shb_quic_conn_stats st;
	uint64_t t0, gap = 30000 * H_MS / 16, sent;
	static const uint8_t get[] = "GET /";

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 17) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 1000 * H_MS));
	h.up.drop_all = true;
	t0 = h.now;
	sent = h.up.sent;
	CU_ASSERT_EQUAL(h_request(&h, get, 5), 0);
	h_run(&h, NULL, 26000 * H_MS);
	CU_ASSERT_EQUAL(h.closed, 0);
	/* The request, 5 PTOs of 2 probes (96 ms to 3 s after it; a sixth
	 * would wait 3 s, more than the gap), then a PING every 1.875 s: 12
	 * in the 23 s left. */
	CU_ASSERT_EQUAL(h.up.sent - sent, 1 + 2 * 5 + 12);
	h.up.drop_all = false;
	CU_ASSERT_TRUE(h_run(&h, got_fin0, 10000 * H_MS));
	CU_ASSERT_EQUAL(h.closed, 0);
	CU_ASSERT_TRUE(h.now - t0 <= 26000 * H_MS + gap + 100 * H_MS);
	CU_ASSERT_EQUAL(h_stream(&h, 0)->len, 13);
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT_EQUAL(st.pto_count, 5);
	h_fini(&h);
}

/* The same outage on a slow path (400 ms each way: 800 ms smoothed RTT,
 * 300 ms variance, a PTO of 2.0 s, as against a server that answers
 * late under load). The liveness gap was at least four PTOs, 8.1 s: 8
 * datagrams in the outage (the request, 3 PTOs of 2 probes, 1 PING) and
 * no answer within 10 s of the path's return. Against gtlsserver's
 * overflowing socket at -c 1000, connections probing that seldom (every
 * 5 s at the end) timed out when seven probes in a row were dropped. Now
 * the gap is idle/16 (1.875 s), or one PTO when that is longer (here):
 * 14 datagrams (the request, 1 PTO of 2, then 11 PINGs, each restarting
 * the probe timer) and the response within a gap and a round trip of
 * the return. */
static void test_probes_through_an_outage_on_a_slow_path(void)
{
	struct harness h;
	struct shb_quic_conn_stats st;
	const struct shb_quic_rtt *rtt;
	uint64_t back, gap, sent;
	static const uint8_t get[] = "GET /";

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 19) == 0);
	h.up.delay = h.down.delay = 400 * H_MS;
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 10000 * H_MS));
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 3000 * H_MS));
	rtt = shb_quic_recovery_rtt(&h.c->rec);
	gap = rtt->smoothed + 4 * rtt->var + 25 * H_MS; /* one PTO */
	CU_ASSERT_EQUAL(gap, 2025 * H_MS);
	h.up.drop_all = true;
	sent = h.up.sent;
	CU_ASSERT_EQUAL(h_request(&h, get, 5), 0);
	h_run(&h, NULL, 26000 * H_MS);
	CU_ASSERT_EQUAL(h.closed, 0);
	CU_ASSERT_EQUAL(h.up.sent - sent, 1 + 2 * 1 + 11);
	h.up.drop_all = false;
	back = h.now;
	CU_ASSERT_TRUE(h_run(&h, got_fin0, 10000 * H_MS));
	CU_ASSERT_EQUAL(h.closed, 0);
	CU_ASSERT_TRUE(h.now - back <= gap + 800 * H_MS + 50 * H_MS);
	CU_ASSERT_EQUAL(h_stream(&h, 0)->len, 13);
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT_EQUAL(st.pto_count, 1);
	h_fini(&h);
}

/* The STREAM frame on `id` in one of our 1-RTT datagrams still on the
 * link, read with the client's own 1-RTT keys (a copy is opened): 1 with
 * its offset, length and FIN, 0 when the packet carries none, -1 when it
 * does not open. */
static int sent_stream_frame(struct harness *h, const struct h_dgram *d,
			     uint64_t id, struct shb_quic_frame_stream *out)
{
	static uint8_t p[1500];
	struct shb_quic_hdr hd;
	const struct shb_quic_keys *k = &h->c->sp[QC_APP].tx;
	uint64_t trunc;

	memcpy(p, d->data, d->len);
	if (shb_quic_hdr_parse(p, d->len, h->c->dcid.len, &hd) != 0 ||
	    hd.type != SHB_QUIC_PT_1RTT)
		return -1;
	int pnl = shb_quic_hp_remove(k, p, hd.packet_len, hd.pn_offset, &trunc);

	if (pnl < 0)
		return -1;
	uint64_t pn = shb_quic_pn_decode(
		shb_quic_recovery_next_pn(&h->c->rec, QC_APP) - 1, trunc,
		(unsigned)pnl);
	size_t hl = hd.pn_offset + (size_t)pnl;
	int n = shb_quic_open(k, pn, p, hl, hd.packet_len);

	for (size_t off = 0; n > 0 && off < (size_t)n;) {
		struct shb_quic_frame f;

		if (shb_quic_frame_decode(p + hl + off, (size_t)n - off,
					  hd.type, &f) != 0)
			return -1;
		if (f.type == SHB_QUIC_FT_STREAM && f.u.stream.stream_id == id) {
			*out = f.u.stream;
			return 1;
		}
		off += f.wire_len;
	}
	return n > 0 ? 0 : -1;
}

/* A request whose only packet is lost (RFC 9002 6.2.4): the first PTO's
 * probe carries its STREAM frame again, so the response comes one PTO
 * and one round trip after the request. With a PING for a probe, the
 * request went out only once that PING's ACK had the packet declared
 * lost, a round trip and a loss timer later. */
static void test_probe_carries_lost_request(void)
{
	struct harness h;
	struct shb_quic_conn_stats st;
	struct shb_quic_frame_stream sf = {0};
	static const uint8_t get[] = "GET /";
	uint64_t t0, pto, rtt;

	CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 18) == 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 1000 * H_MS));
	h.up.drop_list[0] = h.up.sent + 1; /* the request's datagram */
	t0 = h.now;
	pto = shb_quic_recovery_pto_period(&h.c->rec, QC_APP);
	rtt = 2 * h.up.delay;
	CU_ASSERT_EQUAL(h_request(&h, get, 5), 0);
	CU_ASSERT_TRUE_FATAL(h_run(&h, probe_sent, 5000 * H_MS));
	CU_ASSERT_EQUAL(h.up.sent, h.up.drop_list[0] + 2);
	/* Two probes on the link; the first carries the request. */
	CU_ASSERT_EQUAL_FATAL(h.up.n, 2);
	CU_ASSERT_EQUAL(sent_stream_frame(&h, &h.up.q[0], 0, &sf), 1);
	CU_ASSERT_EQUAL(sf.offset, 0);
	CU_ASSERT_EQUAL(sf.len, 5);
	CU_ASSERT_EQUAL(sf.fin, 1);
	CU_ASSERT(sf.len == 5 && sf.data && memcmp(sf.data, get, 5) == 0);
	/* Merged into one range: the second is a PING, no second copy. */
	CU_ASSERT_EQUAL(sent_stream_frame(&h, &h.up.q[1], 0, &sf), 0);
	CU_ASSERT_TRUE(h_run(&h, got_fin0, 5000 * H_MS));
	CU_ASSERT_EQUAL(h_stream(&h, 0)->len, 13);
	CU_ASSERT_TRUE(h.now - t0 <= pto + rtt + 2 * H_MS);
	shb_quic_conn_stats(h.c, &st);
	CU_ASSERT_EQUAL(st.pto_count, 1);
	/* The original is declared lost once the probe's ACK comes; its
	 * bytes, already queued again for the probe, are not sent a third
	 * time. */
	CU_ASSERT_EQUAL(st.packets_lost, 1);
	CU_ASSERT_EQUAL(st.stream_bytes_resent, 5);
	CU_ASSERT_EQUAL(h.closed, 0);
	/* The original and the probe each held one reference: both settle. */
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 2000 * H_MS));
	CU_ASSERT_EQUAL(shb_quic_conn_stream_retire(h.c, 0, 0), 0);
	CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 2000 * H_MS));
	CU_ASSERT_EQUAL(h.c->bidi_live, 0);
	h_fini(&h);
}

static uint64_t want_sent; /* sent_enough(): datagrams offered */

static bool sent_enough(struct harness *h)
{
	return h->up.sent >= want_sent;
}

/* New data goes first (RFC 9002 6.2.4): a PTO requeues the oldest
 * packet's frames only when nothing new waits. With the request's only
 * packet lost and nothing else to send, its bytes go back in the queue
 * (in-flight count kept, the packet remembered); with a frame pending
 * (MAX_DATA here), the probe carries that and nothing is requeued. */
static void test_probe_prefers_new_data(void)
{
	static const uint8_t get[] = "GET /";

	for (int pending = 0; pending < 2; pending++) {
		struct harness h;
		struct qc_stream *s;
		uint64_t probed = 0;

		CU_ASSERT_FATAL(h_init(&h, NULL, NULL, 19) == 0);
		CU_ASSERT_TRUE_FATAL(h_run(&h, h_cond_handshake, 5000 * H_MS));
		CU_ASSERT_TRUE(h_run(&h, h_cond_quiet, 1000 * H_MS));
		h.up.drop_list[0] = h.up.sent + 1; /* the request's datagram */
		want_sent = h.up.sent + 1;
		CU_ASSERT_EQUAL(h_request(&h, get, 5), 0);
		CU_ASSERT_TRUE_FATAL(h_run(&h, sent_enough, 1000 * H_MS));
		s = qc_stream_find(h.c, 0);
		CU_ASSERT_FATAL(s != NULL);
		CU_ASSERT_EQUAL(s->nrtx, 0);
		CU_ASSERT_EQUAL(s->inflight, 1);
		h.c->md_pending = (uint8_t)pending;
		qc_probe_fill(h.c, 2);
		for (unsigned i = 0; i < QC_PROBED; i++)
			probed += h.c->probed[i] != 0;
		CU_ASSERT_EQUAL(s->inflight, 1);
		if (pending) {
			CU_ASSERT_EQUAL(s->nrtx, 0);
			CU_ASSERT_EQUAL(probed, 0);
		} else {
			CU_ASSERT_EQUAL_FATAL(s->nrtx, 1);
			CU_ASSERT_EQUAL(s->rtx[0].off, 0);
			CU_ASSERT_EQUAL(s->rtx[0].len, 5);
			CU_ASSERT_EQUAL(s->fin_rtx, 1);
			CU_ASSERT_EQUAL(probed, 1);
		}
		h_fini(&h);
	}
}

CU_TestInfo shb_test_conn_loss[] = {
	{"client's first Initial lost", test_first_initial_lost},
	{"server's first datagram lost", test_server_initial_lost},
	{"server handshake datagrams lost", test_server_handshake_lost},
	{"Handshake before its keys: kept and replayed",
	 test_handshake_before_keys},
	{"PTO probes are at most two datagrams", test_probes_small},
	{"a lost full ring, then ACKs of untracked probes",
	 test_full_ring_lost},
	{"1 MB with reordering", test_reorder},
	{"1 MB with duplication", test_duplicate},
	{"1 MB with 10% loss", test_loss},
	{"1 MB with loss, reordering and duplication", test_everything},
	{"probes through a 26 s outage", test_probes_through_a_long_outage},
	{"a PTO probe carries the lost request",
	 test_probe_carries_lost_request},
	{"a PTO probe prefers new data", test_probe_prefers_new_data},
	{"probes through it on a slow path",
	 test_probes_through_an_outage_on_a_slow_path},
	CU_TEST_INFO_NULL,
};
