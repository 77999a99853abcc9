/* RTT estimator: RFC 9002 Section 5 arithmetic on hand-computed numbers. */
#include "quic_rtt.h"
#include "recovery_tests.h"

static void test_initial(void)
{
	struct shb_quic_rtt r;

	shb_quic_rtt_init(&r, 0);
	CU_ASSERT_FALSE(shb_quic_rtt_has_sample(&r));
	CU_ASSERT_EQUAL(r.smoothed, 333 * MS);
	CU_ASSERT_EQUAL(r.var, 166500000);
	CU_ASSERT_EQUAL(r.min, 0);
	CU_ASSERT_EQUAL(r.latest, 0);
	/* PTO base 333 + 4 * 166.5 = 999 ms; loss delay 9/8 * 333 ms. */
	CU_ASSERT_EQUAL(shb_quic_rtt_pto_base(&r), 999 * MS);
	CU_ASSERT_EQUAL(shb_quic_rtt_loss_delay(&r), 374625000);
	shb_quic_rtt_init(&r, 100 * MS);
	CU_ASSERT_EQUAL(r.smoothed, 100 * MS);
	CU_ASSERT_EQUAL(r.var, 50 * MS);
}

/* First sample, then two more with ACK delays (worked by hand):
 *   s1 = 100 ms             -> srtt 100, rttvar 50, min 100
 *   s2 = 120 ms, delay 10   -> adjusted 110: rttvar (3*50 + 10)/4 = 40,
 *                              srtt (7*100 + 110)/8 = 101.25
 *   s3 = 90 ms, delay 5     -> min 90; 90 < 90 + 5 so no adjustment:
 *                              rttvar (3*40 + 11.25)/4 = 32.8125,
 *                              srtt (7*101.25 + 90)/8 = 99.84375 */
static void test_samples(void)
{
	struct shb_quic_rtt r;

	shb_quic_rtt_init(&r, 0);
	shb_quic_rtt_sample(&r, 100 * MS, 7 * MS, SHB_QUIC_TIME_NONE, T0);
	CU_ASSERT_TRUE(shb_quic_rtt_has_sample(&r));
	CU_ASSERT_EQUAL(r.first_sample_time, T0);
	CU_ASSERT_EQUAL(r.latest, 100 * MS);
	CU_ASSERT_EQUAL(r.min, 100 * MS);
	CU_ASSERT_EQUAL(r.smoothed, 100 * MS); /* the delay is not used */
	CU_ASSERT_EQUAL(r.var, 50 * MS);

	shb_quic_rtt_sample(&r, 120 * MS, 10 * MS, SHB_QUIC_TIME_NONE, T0 + 1);
	CU_ASSERT_EQUAL(r.latest, 120 * MS);
	CU_ASSERT_EQUAL(r.min, 100 * MS);
	CU_ASSERT_EQUAL(r.var, 40 * MS);
	CU_ASSERT_EQUAL(r.smoothed, 101250000);

	shb_quic_rtt_sample(&r, 90 * MS, 5 * MS, SHB_QUIC_TIME_NONE, T0 + 2);
	CU_ASSERT_EQUAL(r.min, 90 * MS);
	CU_ASSERT_EQUAL(r.var, 32812500);
	CU_ASSERT_EQUAL(r.smoothed, 99843750);
	CU_ASSERT_EQUAL(r.first_sample_time, T0);
	/* PTO base 99.84375 + 4 * 32.8125 = 231.09375 ms; loss delay
	 * 9/8 * max(90, 99.84375) = 112.32421875 ms (rounded down). */
	CU_ASSERT_EQUAL(shb_quic_rtt_pto_base(&r), 231093750);
	CU_ASSERT_EQUAL(shb_quic_rtt_loss_delay(&r), 112324218);
}

/* After confirmation the delay is clamped to max_ack_delay. */
static void test_ack_delay_clamp(void)
{
	struct shb_quic_rtt a, b;

	shb_quic_rtt_init(&a, 0);
	shb_quic_rtt_sample(&a, 100 * MS, 0, SHB_QUIC_TIME_NONE, T0);
	b = a;
	/* 200 ms with a claimed 100 ms delay: unclamped -> 100 ms,
	 * clamped to 25 ms -> 175 ms. */
	shb_quic_rtt_sample(&a, 200 * MS, 100 * MS, SHB_QUIC_TIME_NONE, T0);
	shb_quic_rtt_sample(&b, 200 * MS, 100 * MS, 25 * MS, T0);
	CU_ASSERT_EQUAL(a.smoothed, 100 * MS);
	CU_ASSERT_EQUAL(a.var, (3 * 50 * MS + 0) / 4);
	CU_ASSERT_EQUAL(b.smoothed, (7 * 100 * MS + 175 * MS) / 8);
	CU_ASSERT_EQUAL(b.var, (3 * 50 * MS + 75 * MS) / 4);
	/* A delay that would go below min_rtt is ignored entirely. */
	shb_quic_rtt_init(&a, 0);
	shb_quic_rtt_sample(&a, 100 * MS, 0, SHB_QUIC_TIME_NONE, T0);
	shb_quic_rtt_sample(&a, 105 * MS, 10 * MS, SHB_QUIC_TIME_NONE, T0);
	CU_ASSERT_EQUAL(a.smoothed, (7 * 100 * MS + 105 * MS) / 8);
	/* Exactly min + delay is still plausible. */
	shb_quic_rtt_init(&a, 0);
	shb_quic_rtt_sample(&a, 100 * MS, 0, SHB_QUIC_TIME_NONE, T0);
	shb_quic_rtt_sample(&a, 110 * MS, 10 * MS, SHB_QUIC_TIME_NONE, T0);
	CU_ASSERT_EQUAL(a.smoothed, 100 * MS);
}

static void test_floors(void)
{
	struct shb_quic_rtt r;

	shb_quic_rtt_init(&r, 0);
	shb_quic_rtt_sample(&r, 100000, 0, SHB_QUIC_TIME_NONE, T0); /* 100 us */
	/* 4 * 50 us < 1 ms granularity; 9/8 * 100 us < 1 ms. */
	CU_ASSERT_EQUAL(shb_quic_rtt_pto_base(&r), 100000 + MS);
	CU_ASSERT_EQUAL(shb_quic_rtt_loss_delay(&r), MS);
	/* latest above smoothed drives the loss delay. */
	shb_quic_rtt_init(&r, 0);
	shb_quic_rtt_sample(&r, 80 * MS, 0, SHB_QUIC_TIME_NONE, T0);
	shb_quic_rtt_sample(&r, 160 * MS, 0, SHB_QUIC_TIME_NONE, T0);
	CU_ASSERT_EQUAL(r.smoothed, 90 * MS);
	CU_ASSERT_EQUAL(shb_quic_rtt_loss_delay(&r), 180 * MS);
}

static void test_ack_delay_decode(void)
{
	CU_ASSERT_EQUAL(shb_quic_ack_delay_ns(0, 3), 0);
	CU_ASSERT_EQUAL(shb_quic_ack_delay_ns(1000, 3), 8 * MS);
	CU_ASSERT_EQUAL(shb_quic_ack_delay_ns(25000, 0), 25 * MS);
	CU_ASSERT_EQUAL(shb_quic_ack_delay_ns(1, 20), (UINT64_C(1) << 20) * 1000);
	CU_ASSERT_EQUAL(shb_quic_ack_delay_ns(1, 63), (UINT64_C(1) << 20) * 1000);
	CU_ASSERT_EQUAL(shb_quic_ack_delay_ns(SHB_QUIC_PN_MAX, 20), UINT64_MAX);
	CU_ASSERT_EQUAL(shb_quic_ack_delay_ns(UINT64_MAX / 1000 + 1, 0),
			UINT64_MAX);
	CU_ASSERT_EQUAL(shb_quic_ack_delay_ns(UINT64_MAX / 1000, 0),
			UINT64_MAX / 1000 * 1000);
}

CU_TestInfo shb_rec_rtt_tests[] = {
	{"initial values", test_initial},
	{"first and later samples (worked numbers)", test_samples},
	{"ack delay clamp and plausibility", test_ack_delay_clamp},
	{"granularity floors, latest drives loss delay", test_floors},
	{"ACK Delay field decoding saturates", test_ack_delay_decode},
	CU_TEST_INFO_NULL,
};
