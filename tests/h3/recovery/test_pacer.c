/* Pacing, the RFC 9002 7.2 initial window and the application-limited
 * check: the token bucket alone (exact release times, burst bound, no
 * drift from rounding), then through the recovery part with the scripted
 * clock (window spread over the RTT, probes never held, the time a
 * waiting sender must wake up at, no growth while the window is not
 * used). */
#include "quic_pacer.h"
#include "recovery_tests.h"

#define US UINT64_C(1000)
#define APP SHB_QUIC_PNS_APP

static struct rh h;

/* 48000-byte window, 100 ms RTT, congestion avoidance: 5/4 * 48000 per
 * 100 ms = 600 bytes per ms, a datagram every 2 ms once the burst of ten
 * is spent. */
static void test_bucket_spreads_window(void)
{
	struct shb_quic_pace_rate r = shb_quic_pacer_rate(48000, 100 * MS, 0);
	struct shb_quic_pacer p;
	uint64_t t = T0;

	CU_ASSERT_EQUAL(r.bytes, 240000);
	CU_ASSERT_EQUAL(r.ns, 400 * MS);
	shb_quic_pacer_init(&p, 0, 1200, 1);
	CU_ASSERT_EQUAL(p.burst, 12000);
	CU_ASSERT_EQUAL(shb_quic_pacer_next(&p, r), 0); /* nothing sent yet */
	for (int i = 0; i < 10; i++) {
		CU_ASSERT_TRUE(shb_quic_pacer_next(&p, r) <= T0);
		shb_quic_pacer_on_sent(&p, 1200, T0, r);
	}
	CU_ASSERT_EQUAL(p.tokens, 0);
	/* The other 30 datagrams of the window, one every 2 ms. */
	for (int i = 1; i <= 30; i++) {
		t = shb_quic_pacer_next(&p, r);
		CU_ASSERT_EQUAL(t, T0 + (uint64_t)i * 2 * MS);
		CU_ASSERT_EQUAL(shb_quic_pacer_tokens(&p, t - 1, r), 1199);
		CU_ASSERT_EQUAL(shb_quic_pacer_tokens(&p, t, r), 1200);
		shb_quic_pacer_on_sent(&p, 1200, t, r);
	}
	/* 40 datagrams (the window) took 60 ms of the 100 ms RTT. */
	CU_ASSERT_EQUAL(t, T0 + 60 * MS);
}

/* However long the sender was idle, the bucket never holds more than its
 * burst: ten datagrams at once, not eleven. */
static void test_bucket_burst_bound(void)
{
	struct shb_quic_pace_rate r = shb_quic_pacer_rate(48000, 100 * MS, 0);
	struct shb_quic_pacer p;
	uint64_t t = T0 + 10000 * MS;

	shb_quic_pacer_init(&p, 0, 1200, 1);
	shb_quic_pacer_on_sent(&p, 1200, T0, r);
	CU_ASSERT_EQUAL(shb_quic_pacer_tokens(&p, t, r), 12000);
	for (int i = 0; i < 10; i++) {
		CU_ASSERT_TRUE(shb_quic_pacer_next(&p, r) <= t);
		shb_quic_pacer_on_sent(&p, 1200, t, r);
	}
	CU_ASSERT_EQUAL(shb_quic_pacer_next(&p, r), t + 2 * MS);
	/* A packet sent anyway (a probe) empties the bucket, no debt. */
	shb_quic_pacer_on_sent(&p, 1200, t, r);
	CU_ASSERT_EQUAL(p.tokens, 0);
	CU_ASSERT_EQUAL(shb_quic_pacer_next(&p, r), t + 2 * MS);
	/* A burst smaller than a datagram is raised to one. */
	shb_quic_pacer_init(&p, 100, 1200, 1);
	CU_ASSERT_EQUAL(p.burst, 1200);
}

/* On a fast path the bucket holds 1 ms at the pacing rate, up to a GSO
 * train: 1 MB per ms (congestion avoidance, 800000-byte window, 1 ms
 * RTT) would be 1000000 bytes, capped at 64 datagrams; 48000 per 100 ms
 * stays at the ten-datagram floor; 2 * 600000 per 100 ms is 12000
 * exactly, 2 * 700000 gives 14000. */
static void test_bucket_fast_path(void)
{
	struct shb_quic_pace_rate fast = shb_quic_pacer_rate(800000, MS, 0);
	struct shb_quic_pacer p;
	uint64_t t = T0 + 1000 * MS;

	shb_quic_pacer_init(&p, 0, 1200, 1);
	CU_ASSERT_EQUAL(shb_quic_pacer_bucket(&p, fast), 64 * 1200);
	CU_ASSERT_EQUAL(shb_quic_pacer_bucket(&p, shb_quic_pacer_rate(48000, 100 * MS, 0)),
			12000);
	CU_ASSERT_EQUAL(shb_quic_pacer_bucket(&p, shb_quic_pacer_rate(600000, 100 * MS, 1)),
			12000);
	CU_ASSERT_EQUAL(shb_quic_pacer_bucket(&p, shb_quic_pacer_rate(700000, 100 * MS, 1)),
			14000);
	/* The first flight is the floor, ten datagrams, whatever the rate. */
	for (int i = 0; i < 10; i++) {
		CU_ASSERT_TRUE(shb_quic_pacer_next(&p, fast) <= T0);
		shb_quic_pacer_on_sent(&p, 1200, T0, fast);
	}
	CU_ASSERT_TRUE(shb_quic_pacer_next(&p, fast) > T0);
	/* After a pause, a whole train: 64 datagrams, not 65. */
	for (int i = 0; i < 64; i++) {
		CU_ASSERT_TRUE(shb_quic_pacer_next(&p, fast) <= t);
		shb_quic_pacer_on_sent(&p, 1200, t, fast);
	}
	CU_ASSERT_TRUE(shb_quic_pacer_next(&p, fast) > t);
}

/* Slow start paces at twice the window per RTT; a disabled pacer never
 * holds anything. */
static void test_bucket_ratio_and_off(void)
{
	struct shb_quic_pace_rate ss = shb_quic_pacer_rate(12000, 10 * MS, 1);
	struct shb_quic_pacer p;

	CU_ASSERT_EQUAL(ss.bytes, 24000);
	CU_ASSERT_EQUAL(ss.ns, 10 * MS);
	shb_quic_pacer_init(&p, 1200, 1200, 1);
	shb_quic_pacer_on_sent(&p, 1200, T0, ss);
	CU_ASSERT_EQUAL(shb_quic_pacer_next(&p, ss), T0 + 500 * US);
	shb_quic_pacer_init(&p, 1200, 1200, 0);
	for (int i = 0; i < 100; i++)
		shb_quic_pacer_on_sent(&p, 1200, T0, ss);
	CU_ASSERT_EQUAL(shb_quic_pacer_next(&p, ss), 0);
}

/* A rate that does not divide evenly: 50000 bytes per 28000004 ns is
 * 672000.096 ns per datagram. 1000 datagrams sent at the times next()
 * gives after the burst take 672000096 ns, give or take the rounding of
 * each step (at most 1 ns per datagram); a bucket that dropped the
 * fraction of a byte or rounded every wait up without carrying it would
 * be off by far more or drift one way. The slack is 100 ns. */
static void test_bucket_no_drift(void)
{
	struct shb_quic_pace_rate r = shb_quic_pacer_rate(10000, 7000001, 0);
	struct shb_quic_pacer p;
	uint64_t t = T0;

	shb_quic_pacer_init(&p, 0, 1200, 1);
	for (int i = 0; i < 10; i++)
		shb_quic_pacer_on_sent(&p, 1200, t, r);
	for (int i = 0; i < 1000; i++) {
		t = shb_quic_pacer_next(&p, r);
		shb_quic_pacer_on_sent(&p, 1200, t, r);
	}
	CU_ASSERT_TRUE(t >= T0 + 672000096 - 100);
	CU_ASSERT_TRUE(t <= T0 + 672000096 + 100);
}

static enum shb_quic_send_verdict verdict(uint64_t now)
{
	return shb_quic_recovery_can_send_at(&h.r, APP, SZ, NULL, now);
}

/* The default start is ten datagrams; an eleventh waits for the window. */
static void test_initial_window(void)
{
	rh_init(&h, NULL);
	shb_quic_recovery_handshake_confirmed(&h.r, T0);
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->cwnd, 12000);
	for (int i = 0; i < 10; i++) {
		CU_ASSERT_EQUAL(verdict(T0), SHB_QUIC_SEND_OK);
		rh_send(&h, APP, SZ, 1, T0, NULL);
	}
	CU_ASSERT_EQUAL(verdict(T0), SHB_QUIC_SEND_CWND);
	rh_free(&h);
}

/* A lab window of 4 MiB is still paced: ten datagrams at once, then the
 * eleventh at 2 * 4 MiB per 333 ms (no RTT sample yet, slow start):
 * 1200 * 333 ms / 8388608 = 47636.6 ns, rounded up. Without pacing all
 * go at once. */
static void test_large_window_paced(void)
{
	struct shb_quic_recovery_config cfg = {
		.initial_window = SHB_QUIC_CC_LAB_WINDOW};

	rh_init(&h, &cfg);
	shb_quic_recovery_handshake_confirmed(&h.r, T0);
	for (int i = 0; i < 10; i++)
		rh_send(&h, APP, SZ, 1, T0, NULL);
	CU_ASSERT_EQUAL(verdict(T0), SHB_QUIC_SEND_PACED);
	CU_ASSERT_EQUAL(shb_quic_recovery_pacer_time(&h.r), T0 + 47637);
	CU_ASSERT_EQUAL(verdict(T0 + 47636), SHB_QUIC_SEND_PACED);
	CU_ASSERT_EQUAL(verdict(T0 + 47637), SHB_QUIC_SEND_OK);
	/* can_send() asks the window alone. */
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send(&h.r, APP, SZ, NULL),
			SHB_QUIC_SEND_OK);
	rh_free(&h);

	cfg.no_pacing = 1;
	rh_init(&h, &cfg);
	shb_quic_recovery_handshake_confirmed(&h.r, T0);
	for (int i = 0; i < 500; i++) {
		CU_ASSERT_EQUAL(verdict(T0), SHB_QUIC_SEND_OK);
		rh_send(&h, APP, SZ, 1, T0, NULL);
	}
	CU_ASSERT_EQUAL(shb_quic_recovery_pacer_time(&h.r), 0);
	rh_free(&h);
}

/* After an RTT sample of 100 ms and a full window acknowledged (24000,
 * slow start): the ten-datagram burst, then one datagram every 2.5 ms
 * (2 * 24000 per 100 ms) until the window is full after 20. A PTO probe
 * goes out with the bucket empty. */
static void test_window_spread_over_rtt(void)
{
	struct shb_quic_timeout to;
	uint64_t t = T0 + 100 * MS;
	int sent = 0;

	rh_init(&h, NULL);
	shb_quic_recovery_handshake_confirmed(&h.r, T0);
	for (int i = 0; i < 10; i++)
		rh_send(&h, APP, SZ, 1, T0, NULL);
	CU_ASSERT_EQUAL(rh_ack(&h, APP, 0, 9, 0, t), 10);
	CU_ASSERT_EQUAL(shb_quic_recovery_rtt(&h.r)->smoothed, 100 * MS);
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->cwnd, 24000);
	while (sent < 30) {
		enum shb_quic_send_verdict v = verdict(t);

		if (v == SHB_QUIC_SEND_CWND)
			break;
		if (v == SHB_QUIC_SEND_PACED) {
			uint64_t next = shb_quic_recovery_pacer_time(&h.r);

			CU_ASSERT_FATAL(next > t);
			t = next;
			continue;
		}
		CU_ASSERT_EQUAL(v, SHB_QUIC_SEND_OK);
		/* 10 at once, then 2.5 ms apart. */
		CU_ASSERT_EQUAL(t, T0 + 100 * MS +
				   (sent < 10 ? 0 : (uint64_t)(sent - 9) * 2500 * US));
		rh_send(&h, APP, SZ, 1, t, NULL);
		sent++;
	}
	CU_ASSERT_EQUAL(sent, 20);
	CU_ASSERT_EQUAL(t, T0 + 125 * MS);
	/* Bucket empty, window full: the PTO's probes still go. */
	CU_ASSERT_EQUAL(shb_quic_recovery_on_timeout(
				&h.r, shb_quic_recovery_deadline(&h.r), &to),
			SHB_QUIC_TIMEOUT_PTO);
	CU_ASSERT_EQUAL(shb_quic_recovery_can_send_at(&h.r, APP, SZ, NULL,
						      t),
			SHB_QUIC_SEND_PROBE);
	rh_free(&h);
}

/* RFC 9002 7.8: ACKs for a window that was not being used do not grow
 * it; once it is full they do. */
static void test_app_limited_no_growth(void)
{
	rh_init(&h, NULL);
	shb_quic_recovery_handshake_confirmed(&h.r, T0);
	for (int round = 0; round < 5; round++) {
		uint64_t t = T0 + (uint64_t)round * 100 * MS;
		uint64_t pn = rh_send(&h, APP, SZ, 1, t, NULL);

		rh_send(&h, APP, SZ, 1, t, NULL);
		CU_ASSERT_EQUAL(rh_ack(&h, APP, pn, pn + 1, 0, t + 50 * MS), 2);
	}
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->cwnd, 12000);
	CU_ASSERT_EQUAL(shb_quic_recovery_stats(&h.r)->app_limited_acks, 5);
	/* Seven of ten (8400 bytes): more than half the window in slow
	 * start counts as using it. */
	uint64_t first = rh_send(&h, APP, SZ, 1, T0 + 600 * MS, NULL);

	for (int i = 1; i < 7; i++)
		rh_send(&h, APP, SZ, 1, T0 + 600 * MS, NULL);
	CU_ASSERT_EQUAL(rh_ack(&h, APP, first, first + 6, 0, T0 + 650 * MS), 7);
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->cwnd, 12000 + 7 * SZ);
	CU_ASSERT_EQUAL(shb_quic_recovery_stats(&h.r)->app_limited_acks, 5);
	rh_free(&h);
}

/* A window the pacer keeps from filling is being used: with the owner
 * saying so, ACKs grow it even with little in flight (RFC 9002 7.8:
 * "and sending is not pacing limited"); once it says no, they do not. */
static void test_pacing_limited_grows(void)
{
	uint64_t pn;

	rh_init(&h, NULL);
	shb_quic_recovery_handshake_confirmed(&h.r, T0);
	shb_quic_recovery_set_pacing_limited(&h.r, 1);
	pn = rh_send(&h, APP, SZ, 1, T0, NULL);
	rh_send(&h, APP, SZ, 1, T0, NULL);
	CU_ASSERT_EQUAL(rh_ack(&h, APP, pn, pn + 1, 0, T0 + 50 * MS), 2);
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->cwnd, 12000 + 2 * SZ);
	CU_ASSERT_EQUAL(shb_quic_recovery_stats(&h.r)->app_limited_acks, 0);
	shb_quic_recovery_set_pacing_limited(&h.r, 0);
	pn = rh_send(&h, APP, SZ, 1, T0 + 100 * MS, NULL);
	CU_ASSERT_EQUAL(rh_ack(&h, APP, pn, pn, 0, T0 + 150 * MS), 1);
	CU_ASSERT_EQUAL(shb_quic_recovery_cc(&h.r)->cwnd, 12000 + 2 * SZ);
	CU_ASSERT_EQUAL(shb_quic_recovery_stats(&h.r)->app_limited_acks, 1);
	/* reset() forgets it. */
	shb_quic_recovery_set_pacing_limited(&h.r, 1);
	shb_quic_recovery_reset(&h.r);
	CU_ASSERT_EQUAL(h.r.pacing_limited, 0);
	rh_free(&h);
}

/* The same rule on the controller alone, in congestion avoidance: within
 * three datagrams of the window counts as full, half does not. */
static void test_cwnd_limited_rule(void)
{
	struct shb_quic_cc cc;

	shb_quic_cc_init(&cc, 0, 0);
	CU_ASSERT_FALSE(shb_quic_cc_cwnd_limited(&cc, 6000));
	CU_ASSERT_TRUE(shb_quic_cc_cwnd_limited(&cc, 6001));
	cc.ssthresh = cc.cwnd; /* congestion avoidance */
	CU_ASSERT_FALSE(shb_quic_cc_cwnd_limited(&cc, 8399));
	CU_ASSERT_TRUE(shb_quic_cc_cwnd_limited(&cc, 8400));
	CU_ASSERT_TRUE(shb_quic_cc_cwnd_limited(&cc, 20000));
}

CU_TestInfo shb_rec_pacer_tests[] = {
	{"bucket spreads a window over the RTT", test_bucket_spreads_window},
	{"bucket burst bound", test_bucket_burst_bound},
	{"bucket of 1 ms on a fast path", test_bucket_fast_path},
	{"slow-start ratio, pacing off", test_bucket_ratio_and_off},
	{"no drift from rounding", test_bucket_no_drift},
	{"initial window is ten datagrams", test_initial_window},
	{"large window still paced, or not", test_large_window_paced},
	{"window spread over the RTT, probes pass", test_window_spread_over_rtt},
	{"app-limited ACKs do not grow the window", test_app_limited_no_growth},
	{"pacing-limited ACKs grow the window", test_pacing_limited_grows},
	{"cwnd-limited rule", test_cwnd_limited_rule},
	CU_TEST_INFO_NULL,
};
