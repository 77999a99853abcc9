/* The deficit gate over a mixed run's origins (core/engine/share_gate.c): the
 * origin most behind may always send, none gets a request ahead of its
 * share, the shares hold whichever origin is slow, a silent origin holds
 * the others to its share, and a giveback, a reset and the rebase of long
 * runs keep the leads. */
#include <stdint.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "engine/share_gate.h"

static struct shb_share_gate g;

static void init2(uint64_t a, uint64_t b)
{
	uint64_t w[2] = {a, b};
	shb_share_gate_init(&g, 2, w);
}

/* sent[k] - total * w[k] / W, times W: the lead in W-ths of a request. */
static int64_t lead_w(uint32_t k)
{
	return (int64_t)(g.sent[k] * g.wsum) - (int64_t)(g.total * g.weight[k]);
}

/* Every origin free, the first one allowed takes: origin 0 goes ahead
 * by its one request at once (6 of the first 6: 6 - 6 x 10/12 = 1), and
 * from then on each origin gets exactly its weight's requests in every 12
 * (origin 0 one ahead, origin 1 one behind at each period's end). */
static void test_both_free(void)
{
	init2(10, 2);
	CU_ASSERT_TRUE(shb_share_gate_may(&g, 0));
	CU_ASSERT_TRUE(shb_share_gate_may(&g, 1));
	for (int n = 1; n <= 1200; n++) {
		uint32_t k = shb_share_gate_may(&g, 0) ? 0 : 1;
		CU_ASSERT_TRUE_FATAL(shb_share_gate_may(&g, k));
		shb_share_gate_take(&g, k);
		if (n == 6)
			CU_ASSERT_EQUAL(g.sent[0], 6);
		if (n % 12 == 0) {
			CU_ASSERT_EQUAL(g.sent[0], (uint64_t)n / 12 * 10 + 1);
			CU_ASSERT_EQUAL(g.sent[1], (uint64_t)n / 12 * 2 - 1);
		}
	}
	CU_ASSERT_EQUAL(g.total, 1200);
}

/* A closed loop over two origins: origin `slow` answers after 5 ticks,
 * the other at once, each with its connections (10 and 2); a connection
 * sends when the gate lets it. The shares are the weights' within a
 * request, and the slow origin's connections never wait on the gate. */
static void closed_loop(uint32_t slow, uint32_t conns_slow, uint32_t conns_fast)
{
	/* Only at the very start (all free at once) may it wait a tick. */
	uint32_t busy_until[16] = {0}, nconn = conns_slow + conns_fast;
	uint64_t slow_held = 0;
	for (uint32_t tick = 0; tick < 20000; tick++) {
		for (uint32_t i = 0; i < nconn; i++) {
			uint32_t k = i < conns_slow ? slow : 1 - slow;
			if (busy_until[i] > tick)
				continue;
			if (!shb_share_gate_may(&g, k)) {
				slow_held += k == slow && tick > 0;
				continue;
			}
			shb_share_gate_take(&g, k);
			busy_until[i] = tick + (k == slow ? 5 : 1);
		}
		/* under one ahead when it sends: under two after */
		for (uint32_t k = 0; k < 2; k++) {
			CU_ASSERT_TRUE_FATAL(lead_w(k) < 2 * (int64_t)g.wsum);
			CU_ASSERT_TRUE_FATAL(lead_w(k) > -2 * (int64_t)g.wsum);
		}
	}
	CU_ASSERT_EQUAL(slow_held, 0);
	/* The slow origin's 10 (or 2) connections, each a request per 5
	 * ticks, set the total. */
	uint64_t slow_sent = g.sent[slow];
	CU_ASSERT_TRUE(slow_sent >= 20000 / 5 * conns_slow - conns_slow);
	CU_ASSERT_TRUE(slow_sent <= 20000 / 5 * conns_slow);
}

static void test_slow_heavy(void)
{
	init2(10, 2);
	closed_loop(0, 10, 2);
	/* 4000 per slow connection (the 4 held at tick 0 start at tick 1);
	 * the fast one the most its lead allows: it sends while
	 * 12 s < 2 (40000 + s) + 12, up to s = 8001, so 8002 */
	CU_ASSERT_EQUAL(g.sent[0], 40000);
	CU_ASSERT_EQUAL(g.sent[1], 8002);
}

static void test_slow_light(void)
{
	/* origin 1 (weight 2) is slow: it is never held, and origin 0 gets
	 * five times what it sends */
	init2(10, 2);
	uint32_t busy_until[12] = {0};
	uint64_t slow_held = 0;
	for (uint32_t tick = 0; tick < 20000; tick++)
		for (uint32_t i = 0; i < 12; i++) {
			uint32_t k = i < 10 ? 0 : 1;
			if (busy_until[i] > tick)
				continue;
			if (!shb_share_gate_may(&g, k)) {
				slow_held += k == 1;
				continue;
			}
			shb_share_gate_take(&g, k);
			busy_until[i] = tick + (k == 1 ? 5 : 1);
		}
	CU_ASSERT_EQUAL(slow_held, 0);
	CU_ASSERT_EQUAL(g.sent[1], 8000);
	/* the most origin 0's lead allows: it sends while
	 * 12 s < 10 (s + 8000) + 12, up to s = 40005, so 40006 */
	CU_ASSERT_EQUAL(g.sent[0], 40006);
}

/* An origin that sends nothing holds the others to a request ahead:
 * 10:2 with origin 1 silent lets origin 0 send 6 (6 - 6 x 10/12 = 1). */
static void test_silent_origin(void)
{
	init2(10, 2);
	int sent = 0;
	while (shb_share_gate_may(&g, 0) && sent < 100) {
		shb_share_gate_take(&g, 0);
		sent++;
	}
	CU_ASSERT_EQUAL(sent, 6);
	CU_ASSERT_TRUE(shb_share_gate_may(&g, 1));
	/* one charged to origin 1 (an error counts too) frees 5 more */
	shb_share_gate_take(&g, 1);
	sent = 0;
	while (shb_share_gate_may(&g, 0) && sent < 100) {
		shb_share_gate_take(&g, 0);
		sent++;
	}
	CU_ASSERT_EQUAL(sent, 5);
}

/* Pseudo-random takes among the allowed of 5 origins: someone is always
 * allowed, nobody two requests ahead, nobody 4 x 2 behind. */
static void test_many_origins(void)
{
	uint64_t w[5] = {7, 1, 3, 1000, 2};
	uint32_t x = 12345;
	shb_share_gate_init(&g, 5, w);
	for (int n = 0; n < 200000; n++) {
		uint32_t ok[5], nok = 0;
		for (uint32_t k = 0; k < 5; k++)
			if (shb_share_gate_may(&g, k))
				ok[nok++] = k;
		CU_ASSERT_TRUE_FATAL(nok > 0);
		x = x * 1103515245u + 12345u;
		shb_share_gate_take(&g, ok[(x >> 16) % nok]);
		for (uint32_t k = 0; k < 5; k++) {
			CU_ASSERT_TRUE_FATAL(lead_w(k) < 2 * (int64_t)g.wsum);
			CU_ASSERT_TRUE_FATAL(lead_w(k) > -8 * (int64_t)g.wsum);
		}
	}
}

static void test_giveback_reset(void)
{
	init2(1, 1);
	shb_share_gate_take(&g, 0);
	CU_ASSERT_TRUE(shb_share_gate_may(&g, 0)); /* 1 - 1/2 < 1 */
	shb_share_gate_take(&g, 0);
	CU_ASSERT_FALSE(shb_share_gate_may(&g, 0)); /* 2 - 2/2 = 1 */
	shb_share_gate_giveback(&g, 0);
	shb_share_gate_giveback(&g, 0);
	CU_ASSERT_EQUAL(g.total, 0);
	CU_ASSERT_TRUE(shb_share_gate_may(&g, 0));
	shb_share_gate_giveback(&g, 1); /* nothing to give back: no change */
	CU_ASSERT_EQUAL(g.sent[1], 0);
	CU_ASSERT_EQUAL(g.total, 0);
	shb_share_gate_take(&g, 0);
	shb_share_gate_reset(&g);
	CU_ASSERT_EQUAL(g.total, 0);
	CU_ASSERT_TRUE(shb_share_gate_may(&g, 0) && shb_share_gate_may(&g, 1));
	CU_ASSERT_FALSE(shb_share_gate_may(&g, 2)); /* no such origin */
}

/* Near 2^40 requests the counts are rebased by whole periods: the leads,
 * and so the answers, stay. */
static void test_rebase(void)
{
	init2(10, 2);
	uint64_t periods = ((uint64_t)1 << 40) / 12;
	g.sent[0] = periods * 10 + 5;
	g.sent[1] = periods * 2;
	g.total = periods * 12 + 5;
	int64_t l0 = lead_w(0), l1 = lead_w(1);
	while (g.total < ((uint64_t)1 << 40) - 1) {
		g.sent[1]++;
		g.total++;
	}
	l0 = lead_w(0);
	l1 = lead_w(1);
	shb_share_gate_take(&g, 1);
	CU_ASSERT_TRUE(g.total < 1000);
	CU_ASSERT_EQUAL(lead_w(0), l0 - 10);
	CU_ASSERT_EQUAL(lead_w(1), l1 + 12 - 2);
}

static CU_TestInfo gate_tests[] = {
	{"every origin free: exact periods", test_both_free},
	{"slow origin weighted 10: its share, never held", test_slow_heavy},
	{"slow origin weighted 2: the others wait for it", test_slow_light},
	{"a silent origin holds the others", test_silent_origin},
	{"five origins, random takes: bounded leads", test_many_origins},
	{"giveback and reset", test_giveback_reset},
	{"rebase keeps the leads", test_rebase},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"share_gate", NULL, NULL, NULL, NULL, gate_tests},
	CU_SUITE_INFO_NULL,
};
