/* The completion batch policy (core/engine/batch.c): how many completions a
 * worker's pass waits for and how long it lingers, from the busy
 * connections, the next timer and the recent latency. Exact values. */
#include <stdint.h>
#include <CUnit/CUnit.h>

#include "engine/batch.h"

#define MS 1000000ull /* one millisecond in ns */

/* Closed loop, automatic, 500 us linger, a 100 ms tick, 10 ms latency. */
static struct shb_batch_in base(uint32_t busy)
{
	struct shb_batch_in in = {
		.size = 0, .linger_us = 500, .busy = busy, .eager = 0,
		.wait_ns = 100 * MS, .lat_ns = 10 * MS,
	};
	return in;
}

static struct shb_batch pol(struct shb_batch_in in)
{
	return shb_batch_policy(&in);
}

/* A quarter of the busy connections, at most 8; below 2, no batch. */
static void test_auto_follows_busy(void)
{
	static const uint32_t busy[] = {0, 1, 2, 7, 8, 11, 12, 31, 32, 33, 1000};
	static const uint32_t want[] = {1, 1, 1, 1, 2, 2, 3, 7, 8, 8, 8};
	for (unsigned i = 0; i < sizeof(busy) / sizeof(busy[0]); i++) {
		struct shb_batch b = pol(base(busy[i]));
		CU_ASSERT_EQUAL(b.want, want[i]);
		CU_ASSERT_EQUAL(b.linger_us, want[i] > 1 ? 500u : 0u);
	}
}

/* --batch-size is taken as given, but never beyond what can come. */
static void test_size_capped_by_busy(void)
{
	struct shb_batch_in in = base(100);
	in.size = 64;
	CU_ASSERT_EQUAL(pol(in).want, 64);
	in.busy = 5;
	CU_ASSERT_EQUAL(pol(in).want, 5);
	in.busy = 1;
	CU_ASSERT_EQUAL(pol(in).want, 1);
	CU_ASSERT_EQUAL(pol(in).linger_us, 0);
	in.busy = 0;
	CU_ASSERT_EQUAL(pol(in).want, 1);
	in.busy = 100;
	in.size = 1;
	CU_ASSERT_EQUAL(pol(in).want, 1);
	CU_ASSERT_EQUAL(pol(in).linger_us, 0);
}

/* Open loop and stopping take every completion as it comes. */
static void test_eager(void)
{
	struct shb_batch_in in = base(1000);
	in.size = 64;
	in.eager = 1;
	CU_ASSERT_EQUAL(pol(in).want, 1);
	CU_ASSERT_EQUAL(pol(in).linger_us, 0);
}

/* The linger ends no later than the next timer or due request. */
static void test_linger_bounded_by_wait(void)
{
	struct shb_batch_in in = base(32);
	in.wait_ns = 120000; /* 120 us */
	CU_ASSERT_EQUAL(pol(in).want, 8);
	CU_ASSERT_EQUAL(pol(in).linger_us, 120);
	in.wait_ns = 999; /* under 1 us: no linger, so no batch */
	CU_ASSERT_EQUAL(pol(in).want, 1);
	CU_ASSERT_EQUAL(pol(in).linger_us, 0);
}

/* The automatic linger (--batch-linger not given): 50 us or 1/16 of the
 * recent latency, whichever is more (50 us before any response), at most
 * 500 us. A --batch-linger given is taken as is, shorter or longer. */
static void test_linger_bounded_by_latency(void)
{
	struct shb_batch_in in = base(32);
	in.linger_us = 0;
	in.lat_ns = 400000; /* 400 us: 25 us, so the floor */
	CU_ASSERT_EQUAL(pol(in).want, 8);
	CU_ASSERT_EQUAL(pol(in).linger_us, 50);
	in.lat_ns = 0;
	CU_ASSERT_EQUAL(pol(in).want, 8);
	CU_ASSERT_EQUAL(pol(in).linger_us, 50);
	in.lat_ns = 1600000; /* 1.6 ms: 100 us */
	CU_ASSERT_EQUAL(pol(in).linger_us, 100);
	in.lat_ns = 1615999; /* 100.99 us: whole microseconds down */
	CU_ASSERT_EQUAL(pol(in).linger_us, 100);
	in.lat_ns = 8 * MS; /* 500 us */
	CU_ASSERT_EQUAL(pol(in).linger_us, 500);
	in.lat_ns = 20 * MS; /* 1250 us: at most 500 */
	CU_ASSERT_EQUAL(pol(in).linger_us, 500);
	in.lat_ns = 400000;
	in.linger_us = 20;
	CU_ASSERT_EQUAL(pol(in).linger_us, 20);
	in.linger_us = 900;
	CU_ASSERT_EQUAL(pol(in).linger_us, 900);
	in.wait_ns = 70000; /* the next timer still comes first */
	CU_ASSERT_EQUAL(pol(in).linger_us, 70);
	in.linger_us = 0;
	CU_ASSERT_EQUAL(pol(in).linger_us, 50);
}

/* Responses timed by kernel receive stamps: the automatic linger is the
 * cap, whatever the latency (a wait no longer adds to it); a given one,
 * the next timer and open loop still rule. */
static void test_linger_kernel_timed(void)
{
	struct shb_batch_in in = base(32);
	in.linger_us = 0;
	in.kernel_timed = 1;
	in.lat_ns = 100000;
	CU_ASSERT_EQUAL(pol(in).want, 8);
	CU_ASSERT_EQUAL(pol(in).linger_us, 500);
	in.lat_ns = 0;
	CU_ASSERT_EQUAL(pol(in).linger_us, 500);
	in.linger_us = 30;
	CU_ASSERT_EQUAL(pol(in).linger_us, 30);
	in.linger_us = 0;
	in.wait_ns = 70000;
	CU_ASSERT_EQUAL(pol(in).linger_us, 70);
	in.eager = 1;
	CU_ASSERT_EQUAL(pol(in).want, 1);
	CU_ASSERT_EQUAL(pol(in).linger_us, 0);
}

/* Multiplexed: one completion per busy connection, at most 32. */
static void test_multiplexed(void)
{
	static const uint32_t busy[] = {1, 2, 4, 16, 31, 32, 33, 500};
	static const uint32_t want[] = {1, 2, 4, 16, 31, 32, 32, 32};
	for (unsigned i = 0; i < sizeof(busy) / sizeof(busy[0]); i++) {
		struct shb_batch_in in = base(busy[i]);
		in.multiplexed = 1;
		CU_ASSERT_EQUAL(pol(in).want, want[i]);
	}
	struct shb_batch_in in = base(16);
	in.multiplexed = 1;
	in.size = 64; /* --batch-size still capped by what can come */
	CU_ASSERT_EQUAL(pol(in).want, 16);
}

/* The moving average: the first sample as is, then 1/16 of each step. */
static void test_latency_average(void)
{
	uint64_t l = shb_batch_lat_update(0, 1600);
	CU_ASSERT_EQUAL(l, 1600);
	l = shb_batch_lat_update(l, 3200);
	CU_ASSERT_EQUAL(l, 1700);
	l = shb_batch_lat_update(l, 100);
	CU_ASSERT_EQUAL(l, 1600);
	CU_ASSERT_EQUAL(shb_batch_lat_update(0, 0), 1);
	/* Converges: 200 samples of 50 us from 10 ms end within 1 us. */
	l = 10 * MS;
	for (int i = 0; i < 200; i++)
		l = shb_batch_lat_update(l, 50000);
	CU_ASSERT(l >= 50000 && l < 51000);
}

static CU_TestInfo batch_tests[] = {
	{"automatic size follows busy connections", test_auto_follows_busy},
	{"--batch-size capped by what can come", test_size_capped_by_busy},
	{"open loop and stopping: no batch", test_eager},
	{"linger bounded by the next timer", test_linger_bounded_by_wait},
	{"linger bounded by the latency", test_linger_bounded_by_latency},
	{"kernel-timed linger", test_linger_kernel_timed},
	{"multiplexed: one per busy connection", test_multiplexed},
	{"latency moving average", test_latency_average},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"batch", NULL, NULL, NULL, NULL, batch_tests},
	CU_SUITE_INFO_NULL,
};
