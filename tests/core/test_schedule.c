/* The open-loop schedule (core/cli/schedule.c): when each request is due,
 * how the run's requests split across workers, ramps and stages, and
 * that nothing drifts. Exact counts throughout: a constant rate is exact
 * integer arithmetic, a ramp agrees with its integral within one request. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "cli/schedule.h"

#define S 1000000000ull /* one second in ns */

static struct shb_sched sc;

static void constant(uint64_t rate_milli, uint64_t warmup_ns)
{
	CU_ASSERT_EQUAL_FATAL(shb_sched_init(&sc, rate_milli, NULL, 0, warmup_ns), 0);
}

/* 1000/s: request k at exactly k ms, however large k. */
static void test_constant_exact(void)
{
	constant(1000000, 0);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 0), 0);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 1), 1000000);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 999), 999000000);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 1000000), 1000 * S);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, S), 1000);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, S + 1), 1001);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, 0), 0);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, 1), 1);
}

/* No drift: 3/s over 10^6 requests. Request k is due at round(k / 3 s);
 * walking the times one by one never strays from that formula, and each
 * gap is 333333333 or 333333334 ns. */
static void test_no_drift(void)
{
	constant(3000, 0);
	uint64_t prev = 0, bad = 0;
	for (uint64_t k = 1; k <= 1000000; k++) {
		uint64_t t = shb_sched_time(&sc, k);
		uint64_t want = (k * S + 1) / 3; /* round(k * 10^9 / 3) */
		uint64_t gap = t - prev;
		bad += t != want || gap < 333333333 || gap > 333333334;
		prev = t;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 3000000), 1000000 * S);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, 1000000 * S), 3000000);
}

/* 1000/s over 3 workers: worker i takes k % 3 == i. In [0, 1 s) the run
 * has 1000 requests, worker 0 334 and the others 333; at every t the
 * shares add up to the run's count exactly. */
static void test_split_across_workers(void)
{
	constant(1000000, 0);
	CU_ASSERT_EQUAL(shb_sched_share(1000, 3, 0), 334);
	CU_ASSERT_EQUAL(shb_sched_share(1000, 3, 1), 333);
	CU_ASSERT_EQUAL(shb_sched_share(1000, 3, 2), 333);
	uint64_t bad = 0;
	for (uint64_t t = 0; t <= 10 * S; t += 777777) {
		uint64_t n = shb_sched_count(&sc, t), sum = 0;
		for (uint32_t i = 0; i < 3; i++) {
			/* worker i's own count: its k below n */
			uint64_t mine = 0;
			for (uint64_t k = i; k < n; k += 3)
				mine++;
			bad += mine != shb_sched_share(n, 3, i);
			sum += shb_sched_share(n, 3, i);
		}
		bad += sum != n;
	}
	CU_ASSERT_EQUAL(bad, 0);
	/* 7 workers at 1000/s over 10 s: each gets 1428 or 1429, 10000 in all */
	uint64_t n = shb_sched_count(&sc, 10 * S), sum = 0;
	CU_ASSERT_EQUAL(n, 10000);
	for (uint32_t i = 0; i < 7; i++) {
		uint64_t m = shb_sched_share(n, 7, i);
		CU_ASSERT(m == 1428 || m == 1429);
		sum += m;
	}
	CU_ASSERT_EQUAL(sum, 10000);
}

/* 0.5/s: one request every 2 s; 333.333/s: 1000 requests in 3.000003 s. */
static void test_fractional(void)
{
	constant(500, 0);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 1), 2 * S);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 5), 10 * S);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, 10 * S), 5);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, 10 * S + 1), 6);
	constant(333333, 0);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 1000), 3000003000);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, 3 * S), 1000);
}

/* The number due in [0, t) is within 1 of the rate's integral, and every
 * time is consistent with the count. */
static void check_integral(long double (*n_of)(uint64_t), uint64_t end,
			   uint64_t step)
{
	uint64_t bad = 0;
	for (uint64_t t = 0; t <= end; t += step) {
		long double want = n_of(t);
		uint64_t c = shb_sched_count(&sc, t);
		bad += fabsl((long double)c - want) > 1.0L;
		if (c)
			bad += shb_sched_time(&sc, c - 1) >= t;
		bad += shb_sched_time(&sc, c) < t;
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* -R 1000:5000 -z 10s: N(t) = 1000 t + 200 t^2, 30000 in all. */
static long double ramp_up(uint64_t t)
{
	long double x = (long double)t / S;
	if (x > 10)
		x = 10;
	return 1000 * x + 200 * x * x;
}

static void test_ramp(void)
{
	struct shb_stage st = {10 * S, 1000000, 5000000};
	CU_ASSERT_EQUAL_FATAL(shb_sched_init(&sc, 0, &st, 1, 0), 0);
	check_integral(ramp_up, 12 * S, 3333333);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, 10 * S), 30000);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, 100 * S), 30000);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 29999) < 10 * S, 1);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 30000), UINT64_MAX);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 0), 0);
	/* the first second holds 1200, the last 4800 */
	CU_ASSERT_EQUAL(shb_sched_count(&sc, S), 1200);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, 10 * S) - shb_sched_count(&sc, 9 * S), 4800);
}

/* --stages 10s:1000,30s:5000,10s:0: 0->1000 over 10 s (5000), 1000->5000
 * over 30 s (90000), 5000->0 over 10 s (25000): 120000 in 50 s. */
static long double stages_n(uint64_t t)
{
	long double x = (long double)t / S;
	if (x <= 10)
		return 50 * x * x;
	if (x <= 40) {
		long double y = x - 10;
		return 5000 + 1000 * y + (4000.0L / 60) * y * y;
	}
	long double y = x > 50 ? 10 : x - 40;
	return 95000 + 5000 * y - 250 * y * y;
}

static void test_stages(void)
{
	struct shb_stage st[3] = {
		{10 * S, 0, 1000000},
		{30 * S, 1000000, 5000000},
		{10 * S, 5000000, 0},
	};
	CU_ASSERT_EQUAL_FATAL(shb_sched_init(&sc, 0, st, 3, 0), 0);
	check_integral(stages_n, 55 * S, 7654321);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, 10 * S), 5000);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, 40 * S), 95000);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, 50 * S), 120000);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 120000), UINT64_MAX);
	/* times never go backwards, across every stage boundary */
	uint64_t prev = 0, bad = 0;
	for (uint64_t k = 1; k < 120000; k++) {
		uint64_t t = shb_sched_time(&sc, k);
		bad += t < prev || t > 50 * S;
		prev = t;
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* A stage at rate 0 sends nothing and moves the next one later. */
static void test_pause_stage(void)
{
	struct shb_stage st[3] = {
		{S, 1000000, 1000000},
		{2 * S, 0, 0},
		{S, 1000000, 1000000},
	};
	CU_ASSERT_EQUAL_FATAL(shb_sched_init(&sc, 0, st, 3, 0), 0);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 999), 999000000);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 1000), 3 * S);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, 3 * S), 1000);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, 4 * S), 2000);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 2000), UINT64_MAX);
}

/* --warmup 2s with 100/s: 200 requests first, then the schedule proper;
 * a ramp from 0 warms up at its first target. */
static void test_warmup(void)
{
	constant(100000, 2 * S);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, 2 * S), 200);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 200), 2 * S);
	CU_ASSERT_EQUAL(shb_sched_time(&sc, 300), 3 * S);
	struct shb_stage st = {10 * S, 0, 1000000};
	CU_ASSERT_EQUAL_FATAL(shb_sched_init(&sc, 0, &st, 1, S), 0);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, S), 1000);
	CU_ASSERT_EQUAL(shb_sched_count(&sc, 11 * S), 1000 + 5000);
}

static void test_nothing_to_schedule(void)
{
	struct shb_stage st[2] = {{S, 0, 0}, {S, 0, 0}};
	CU_ASSERT_EQUAL(shb_sched_init(&sc, 0, st, 2, 0), -1);
	CU_ASSERT_EQUAL(shb_sched_init(&sc, 0, NULL, 0, 0), -1);
	struct shb_stage many[SHB_SCHED_MAX_STAGES + 1];
	for (int i = 0; i <= SHB_SCHED_MAX_STAGES; i++)
		many[i] = (struct shb_stage){S, 1000, 1000};
	CU_ASSERT_EQUAL(shb_sched_init(&sc, 0, many, SHB_SCHED_MAX_STAGES + 1, 0), -1);
	CU_ASSERT_EQUAL(shb_sched_init(&sc, 0, many, SHB_SCHED_MAX_STAGES, S), 0);
}

static CU_TestInfo schedule_tests[] = {
	{"constant rate, exact", test_constant_exact},
	{"no drift over 10^6 requests", test_no_drift},
	{"exact split across workers", test_split_across_workers},
	{"fractional rates", test_fractional},
	{"ramp against its integral", test_ramp},
	{"stages against their integral", test_stages},
	{"a stage at rate 0", test_pause_stage},
	{"warm-up before the schedule", test_warmup},
	{"nothing to schedule", test_nothing_to_schedule},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"schedule", NULL, NULL, NULL, NULL, schedule_tests},
	CU_SUITE_INFO_NULL,
};
