/* Lines of a run that fell short (core/engine/overload.c) and the census of
 * connections that never opened (core/engine/census.c): the 5 % rule at its
 * edges, the cause of an open loop's shortfall, and the exact lines. */
#include <stdio.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "engine/census.h"
#include "engine/overload.h"

/* 5 % of due (ended + never sent) is not short; one more is. */
static void test_short_edges(void)
{
	CU_ASSERT_EQUAL(shb_short_fell(0, 0), 0);
	CU_ASSERT_EQUAL(shb_short_fell(95, 5), 0);
	CU_ASSERT_EQUAL(shb_short_fell(94, 6), 1);
	CU_ASSERT_EQUAL(shb_short_fell(1900, 100), 0);
	CU_ASSERT_EQUAL(shb_short_fell(1899, 101), 1);
	CU_ASSERT_EQUAL(shb_short_fell(0, 1), 1);
	CU_ASSERT_EQUAL(shb_short_fell(1000, 0), 0);
}

/* -R 1000 -c 4 against 20 ms: the connections were the limit. */
static void test_short_busy(void)
{
	struct shb_short_in in = {
		.total = 400, .unsent = 1600, .elapsed_ns = 2000000000ull,
		.mean_ns = 20000000ull, .conns = 4, .streams = 1,
	};
	char buf[512];
	CU_ASSERT_EQUAL(shb_short_line(&in, buf, sizeof(buf)), 1);
	CU_ASSERT_STRING_EQUAL(buf, "open loop fell short: 400 of 2000 due "
		"requests sent (20.0 %, 200.0 req/s of the 1000.0 due), 1600 "
		"never sent: every connection was busy (4 x 1 in flight at 20.0 "
		"ms per request carry about 200 req/s); raise -c");
	in.multiplexed = 1;
	in.streams = 2;
	in.conns = 2;
	CU_ASSERT_EQUAL(shb_short_line(&in, buf, sizeof(buf)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "(2 x 2 in flight at 20.0 ms per "
				      "request carry about 200 req/s); raise -c or -p"));
}

/* Room on the connections (400 could be carried, 200 were sent): the
 * client fell behind. */
static void test_short_client(void)
{
	struct shb_short_in in = {
		.total = 400, .unsent = 1600, .elapsed_ns = 2000000000ull,
		.mean_ns = 1000000ull, .conns = 10, .streams = 1,
	};
	char buf[512];
	CU_ASSERT_EQUAL(shb_short_line(&in, buf, sizeof(buf)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "1600 never sent: the connections "
		"had room (about 10000 req/s at 1.0 ms per request), this client "
		"fell behind; raise -t or split the run into shards (--shard)"));
	in.origins = 2; /* a mix: the gate held the origins to their shares */
	CU_ASSERT_EQUAL(shb_short_line(&in, buf, sizeof(buf)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "1600 never sent: the connections "
		"had room in all (about 10000 req/s at 1.0 ms per request), but "
		"each origin gets its weight's share: the one slowest for its "
		"weight (see the targets' latencies) set the rate; raise -c or "
		"lower -R"));
	in.origins = 1;
	in.mean_ns = 0; /* nothing answered */
	CU_ASSERT_EQUAL(shb_short_line(&in, buf, sizeof(buf)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "never sent: no request was "
				      "answered to tell why; raise -c or lower -R"));
	in.unsent = 5; /* 5 of 405: not short, nothing written */
	buf[0] = 'x';
	CU_ASSERT_EQUAL(shb_short_line(&in, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(buf[0], 'x');
}

static void test_census_kind(void)
{
	CU_ASSERT_EQUAL(shb_census_kind("connect: timed out after 1s"), SHB_NEVER_TIMEOUT);
	CU_ASSERT_EQUAL(shb_census_kind("TLS handshake: timed out after 5s"), SHB_NEVER_TIMEOUT);
	CU_ASSERT_EQUAL(shb_census_kind("connect: Connection refused"), SHB_NEVER_REFUSED);
	CU_ASSERT_EQUAL(shb_census_kind("connect: Network is unreachable"), SHB_NEVER_OTHER);
	CU_ASSERT_EQUAL(shb_census_kind(NULL), SHB_NEVER_OTHER);
}

/* Two workers' censuses summed; the first sample of each kind kept. */
static void test_never_line(void)
{
	struct shb_census a = {0}, b = {0}, sum = {0};
	char buf[1024];
	a.asked = 100;
	b.asked = 100;
	CU_ASSERT_EQUAL(shb_never_line(&a, buf, sizeof(buf)), 0);
	a.never[SHB_NEVER_TIMEOUT] = 70;
	snprintf(a.sample[SHB_NEVER_TIMEOUT], SHB_SAMPLE_LEN, "connect: timed out after 1s");
	b.never[SHB_NEVER_TIMEOUT] = 70;
	snprintf(b.sample[SHB_NEVER_TIMEOUT], SHB_SAMPLE_LEN, "TLS handshake: timed out");
	b.never[SHB_NEVER_REFUSED] = 8;
	snprintf(b.sample[SHB_NEVER_REFUSED], SHB_SAMPLE_LEN, "connect: Connection refused");
	b.never[SHB_NEVER_CONNECTING] = 2;
	shb_census_add(&sum, &a);
	shb_census_add(&sum, &b);
	CU_ASSERT_EQUAL(sum.asked, 200);
	CU_ASSERT_EQUAL(shb_census_never(&sum), 150);
	CU_ASSERT_EQUAL(shb_never_line(&sum, buf, sizeof(buf)), 2);
	CU_ASSERT_STRING_EQUAL(buf, "150 of 200 connections never opened "
		"(75.0 %): 140 timed out (connect: timed out after 1s), 8 refused "
		"(connect: Connection refused), 2 still connecting at the end; "
		"the load ran on the others");
}

/* 5 % of -c never opened: a line, but not short; 6 %: short. */
static void test_never_edges(void)
{
	struct shb_census c = {0};
	char buf[512];
	c.asked = 100;
	c.never[SHB_NEVER_UNTRIED] = 5;
	CU_ASSERT_EQUAL(shb_never_line(&c, buf, sizeof(buf)), 1);
	CU_ASSERT_STRING_EQUAL(buf, "5 of 100 connections never opened (5.0 %): "
		"5 not tried before the end; the load ran on the others");
	c.never[SHB_NEVER_OTHER] = 1;
	CU_ASSERT_EQUAL(shb_never_line(&c, buf, sizeof(buf)), 2);
	/* A short buffer is cut, never overrun. */
	char small[16];
	CU_ASSERT_EQUAL(shb_never_line(&c, small, sizeof(small)), 2);
	CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);
}

static CU_TestInfo overload_tests[] = {
	{"open loop: the 5 % rule", test_short_edges},
	{"open loop: connections busy", test_short_busy},
	{"open loop: client behind, nothing answered", test_short_client},
	{"census: kind of a failure message", test_census_kind},
	{"census: the line, summed over workers", test_never_line},
	{"census: the 5 % rule, a short buffer", test_never_edges},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"overload", NULL, NULL, NULL, NULL, overload_tests},
	CU_SUITE_INFO_NULL,
};
