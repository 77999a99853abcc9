/* Congestion controller: slow start, congestion avoidance with the
 * remainder carried, one reduction per recovery period judged by send
 * times, minimum window, persistent congestion, and a randomised
 * comparison with a byte-by-byte reference model. */
#include <string.h>

#include "quic_cc.h"
#include "recovery_tests.h"

static void test_init(void)
{
	struct shb_quic_cc cc;

	shb_quic_cc_init(&cc, 0, 0);
	CU_ASSERT_EQUAL(cc.cwnd, 12000); /* RFC 9002 7.2 */
	CU_ASSERT_EQUAL(cc.ssthresh, UINT64_MAX);
	CU_ASSERT_EQUAL(cc.min_window, 2400);
	CU_ASSERT_EQUAL(cc.max_datagram, 1200);
	CU_ASSERT_EQUAL(cc.bytes_in_flight, 0);
	shb_quic_cc_init(&cc, 1000, 0);
	CU_ASSERT_EQUAL(cc.cwnd, 2400);
	shb_quic_cc_init(&cc, 50000, 1500);
	CU_ASSERT_EQUAL(cc.cwnd, 50000);
	CU_ASSERT_EQUAL(cc.min_window, 3000);
	/* min(10 * md, max(2 * md, 14720)) across the three regimes. */
	shb_quic_cc_init(&cc, 0, 1500);
	CU_ASSERT_EQUAL(cc.cwnd, 14720);
	CU_ASSERT_EQUAL(shb_quic_cc_rfc_window(1200), 12000);
	CU_ASSERT_EQUAL(shb_quic_cc_rfc_window(1472), 14720);
	CU_ASSERT_EQUAL(shb_quic_cc_rfc_window(1400), 14000);
	CU_ASSERT_EQUAL(shb_quic_cc_rfc_window(9000), 18000);
	CU_ASSERT_EQUAL(shb_quic_cc_rfc_window(0), 12000);
}

static void test_window_room(void)
{
	struct shb_quic_cc cc;

	shb_quic_cc_init(&cc, 12000, 0);
	for (int i = 0; i < 9; i++)
		shb_quic_cc_on_sent(&cc, SZ);
	CU_ASSERT_EQUAL(shb_quic_cc_available(&cc), 1200);
	CU_ASSERT_TRUE(shb_quic_cc_can_send(&cc, 1200));
	CU_ASSERT_FALSE(shb_quic_cc_can_send(&cc, 1201));
	shb_quic_cc_on_sent(&cc, SZ);
	CU_ASSERT_EQUAL(shb_quic_cc_available(&cc), 0);
	CU_ASSERT_FALSE(shb_quic_cc_can_send(&cc, 1));
	CU_ASSERT_TRUE(shb_quic_cc_can_send(&cc, 0));
	/* Probes may overshoot; the window then reports no room, not a
	 * negative amount. */
	shb_quic_cc_on_sent(&cc, SZ);
	CU_ASSERT_EQUAL(cc.bytes_in_flight, 13200);
	CU_ASSERT_EQUAL(shb_quic_cc_available(&cc), 0);
	shb_quic_cc_on_removed(&cc, 20000);
	CU_ASSERT_EQUAL(cc.bytes_in_flight, 0);
}

static void test_slow_start(void)
{
	struct shb_quic_cc cc;

	shb_quic_cc_init(&cc, 12000, 0);
	for (int i = 0; i < 10; i++)
		shb_quic_cc_on_sent(&cc, SZ);
	for (int i = 0; i < 10; i++)
		shb_quic_cc_on_acked(&cc, SZ, T0 + (uint64_t)i);
	CU_ASSERT_EQUAL(cc.cwnd, 24000);
	CU_ASSERT_EQUAL(cc.bytes_in_flight, 0);
}

/* Congestion avoidance with 100-byte ACKs: a per-ACK 1200 * 100 / cwnd
 * would add 10 bytes each (and 0 with a bigger window); carrying the
 * remainder adds exactly one datagram per window of acked bytes. */
static void test_avoidance_carry(void)
{
	struct shb_quic_cc cc;

	shb_quic_cc_init(&cc, 24000, 0);
	CU_ASSERT_EQUAL(shb_quic_cc_on_congestion(&cc, T0, T0 + 1), 1);
	CU_ASSERT_EQUAL(cc.cwnd, 12000);
	CU_ASSERT_EQUAL(cc.ssthresh, 12000);
	for (int i = 0; i < 119; i++)
		shb_quic_cc_on_acked(&cc, 100, T0 + 2);
	CU_ASSERT_EQUAL(cc.cwnd, 12000);
	shb_quic_cc_on_acked(&cc, 100, T0 + 2);
	CU_ASSERT_EQUAL(cc.cwnd, 13200);
	/* The next step needs a whole 13200. */
	for (int i = 0; i < 131; i++)
		shb_quic_cc_on_acked(&cc, 100, T0 + 2);
	CU_ASSERT_EQUAL(cc.cwnd, 13200);
	shb_quic_cc_on_acked(&cc, 150, T0 + 2);
	CU_ASSERT_EQUAL(cc.cwnd, 14400);
	CU_ASSERT_EQUAL(cc.acked_carry, 50);
	/* With a 4 MiB window, one-byte ACKs still add up. */
	shb_quic_cc_init(&cc, SHB_QUIC_CC_LAB_WINDOW, 0);
	cc.ssthresh = cc.cwnd;
	for (uint64_t i = 0; i < cc.cwnd; i += 1000)
		shb_quic_cc_grow(&cc, 1000);
	CU_ASSERT_EQUAL(cc.cwnd, UINT64_C(4194304) + 1200);
}

static void test_slow_start_to_avoidance(void)
{
	struct shb_quic_cc cc;

	shb_quic_cc_init(&cc, 10000, 0);
	cc.ssthresh = 12000;
	shb_quic_cc_grow(&cc, 5000); /* 2000 to reach ssthresh, 3000 carried */
	CU_ASSERT_EQUAL(cc.cwnd, 12000);
	CU_ASSERT_EQUAL(cc.acked_carry, 3000);
	shb_quic_cc_grow(&cc, 9000);
	CU_ASSERT_EQUAL(cc.cwnd, 13200);
	CU_ASSERT_EQUAL(cc.acked_carry, 0);
}

/* One reduction per recovery period; packets sent at or before its start
 * neither reduce again nor grow the window. */
static void test_recovery_period(void)
{
	struct shb_quic_cc cc;
	const uint64_t start = T0 + 100 * MS;

	shb_quic_cc_init(&cc, 100000, 0);
	CU_ASSERT_FALSE(shb_quic_cc_in_recovery(&cc, 0));
	CU_ASSERT_EQUAL(shb_quic_cc_on_congestion(&cc, T0 + 50 * MS, start), 1);
	CU_ASSERT_EQUAL(cc.cwnd, 50000);
	CU_ASSERT_TRUE(shb_quic_cc_in_recovery(&cc, start));
	CU_ASSERT_FALSE(shb_quic_cc_in_recovery(&cc, start + 1));
	/* Losses of packets sent before (or at) the start: nothing. */
	CU_ASSERT_EQUAL(shb_quic_cc_on_congestion(&cc, T0 + 99 * MS,
						  start + 10 * MS), 0);
	CU_ASSERT_EQUAL(shb_quic_cc_on_congestion(&cc, start, start + 20 * MS),
			0);
	CU_ASSERT_EQUAL(cc.cwnd, 50000);
	/* Acks of old packets: no growth (the ACK's arrival time, later than
	 * the start, does not matter). */
	shb_quic_cc_on_sent(&cc, SZ);
	shb_quic_cc_on_acked(&cc, SZ, T0 + 60 * MS);
	CU_ASSERT_EQUAL(cc.cwnd, 50000);
	CU_ASSERT_EQUAL(cc.bytes_in_flight, 0);
	/* A packet sent after the start ends recovery: growth (congestion
	 * avoidance, the window is at ssthresh) and the next loss reduces. */
	shb_quic_cc_on_acked(&cc, 50000, start + 1);
	CU_ASSERT_EQUAL(cc.cwnd, 51200);
	CU_ASSERT_EQUAL(shb_quic_cc_on_congestion(&cc, start + 1,
						  start + 200 * MS), 1);
	CU_ASSERT_EQUAL(cc.cwnd, 25600);
	CU_ASSERT_EQUAL(cc.ssthresh, 25600);
}

static void test_min_window_and_persistent(void)
{
	struct shb_quic_cc cc;

	shb_quic_cc_init(&cc, 3000, 0);
	CU_ASSERT_EQUAL(shb_quic_cc_on_congestion(&cc, T0, T0 + 1), 1);
	CU_ASSERT_EQUAL(cc.ssthresh, 1500);
	CU_ASSERT_EQUAL(cc.cwnd, 2400);
	CU_ASSERT_EQUAL(shb_quic_cc_on_congestion(&cc, T0 + 2, T0 + 3), 1);
	CU_ASSERT_EQUAL(cc.cwnd, 2400);

	shb_quic_cc_init(&cc, 100000, 0);
	shb_quic_cc_on_congestion(&cc, T0, T0 + 10);
	shb_quic_cc_on_persistent(&cc);
	CU_ASSERT_EQUAL(cc.cwnd, 2400);
	CU_ASSERT_EQUAL(cc.ssthresh, 50000);
	/* The recovery period is over: even an old packet grows the window,
	 * in slow start again. */
	CU_ASSERT_FALSE(shb_quic_cc_in_recovery(&cc, T0));
	shb_quic_cc_on_acked(&cc, SZ, T0);
	CU_ASSERT_EQUAL(cc.cwnd, 3600);
}

/* ---- model: the same rules applied one byte at a time ------------------- */

struct cc_model {
	uint64_t cwnd, ssthresh, carry, start;
	int in_rec;
};

static void model_ack(struct cc_model *m, uint64_t bytes, uint64_t sent)
{
	if (m->in_rec && sent <= m->start)
		return;
	for (uint64_t b = 0; b < bytes; b++) {
		if (m->cwnd < m->ssthresh) {
			m->cwnd++;
		} else if (++m->carry == m->cwnd) {
			m->carry = 0;
			m->cwnd += 1200;
		}
	}
}

static void model_loss(struct cc_model *m, uint64_t sent, uint64_t now)
{
	if (m->in_rec && sent <= m->start)
		return;
	m->in_rec = 1;
	m->start = now;
	m->ssthresh = m->cwnd / 2;
	m->cwnd = m->ssthresh > 2400 ? m->ssthresh : 2400;
	m->carry = 0;
}

static void test_model_random(void)
{
	uint64_t seed = 12345;

	for (int round = 0; round < 30; round++) {
		struct shb_quic_cc cc;
		struct cc_model m = {.ssthresh = UINT64_MAX};
		uint64_t now = T0;

		shb_quic_cc_init(&cc, 2400 + rh_rand(&seed) % 40000, 0);
		m.cwnd = cc.cwnd;
		for (int step = 0; step < 400; step++) {
			uint64_t x = rh_rand(&seed);
			uint64_t sent = now - (x >> 20) % (50 * MS);

			now += (x >> 8) % (3 * MS);
			if (x % 11 == 0) {
				shb_quic_cc_on_congestion(&cc, sent, now);
				model_loss(&m, sent, now);
			} else if (x % 97 == 1) {
				shb_quic_cc_on_persistent(&cc);
				m.cwnd = 2400;
				m.carry = 0;
				m.in_rec = 0;
			} else {
				uint64_t bytes = 1 + (x >> 32) % 3000;

				shb_quic_cc_on_sent(&cc, bytes);
				shb_quic_cc_on_acked(&cc, bytes, sent);
				model_ack(&m, bytes, sent);
			}
			CU_ASSERT_EQUAL_FATAL(cc.cwnd, m.cwnd);
			CU_ASSERT_EQUAL_FATAL(cc.ssthresh, m.ssthresh);
			CU_ASSERT_EQUAL_FATAL(cc.acked_carry, m.carry);
			CU_ASSERT_EQUAL(cc.bytes_in_flight, 0);
		}
	}
}

CU_TestInfo shb_rec_cc_tests[] = {
	{"defaults and minimum", test_init},
	{"room in the window", test_window_room},
	{"slow start adds acked bytes", test_slow_start},
	{"avoidance carries the remainder", test_avoidance_carry},
	{"slow start into avoidance", test_slow_start_to_avoidance},
	{"one reduction per recovery period", test_recovery_period},
	{"minimum window, persistent congestion", test_min_window_and_persistent},
	{"random ACKs and losses vs byte-wise model", test_model_random},
	CU_TEST_INFO_NULL,
};
