/* The split of a UDP GRO receive into its datagrams (core/engine/conn_dgram.c):
 * equal segments and a shorter last one, a receive of one datagram, resuming
 * after `skip` datagrams when the caller's vec array filled, and the
 * bounds. */
#include <CUnit/CUnit.h>
#include <stdint.h>

#include "engine/dgram_split.h"

static uint8_t buf[65536];

static void test_split_segments(void)
{
	struct shb_vec v[8];
	/* 1200 x 3 + 727: four datagrams, the last one shorter. */
	size_t n = shb_dgram_split(buf, 4327, 1200, 0, v, 8);
	CU_ASSERT_EQUAL(n, 4);
	for (size_t i = 0; i < 3; i++) {
		CU_ASSERT_PTR_EQUAL(v[i].base, buf + 1200 * i);
		CU_ASSERT_EQUAL(v[i].len, 1200);
	}
	CU_ASSERT_PTR_EQUAL(v[3].base, buf + 3600);
	CU_ASSERT_EQUAL(v[3].len, 727);
	/* Exact multiple: no empty tail. */
	CU_ASSERT_EQUAL(shb_dgram_split(buf, 2400, 1200, 0, v, 8), 2);
	CU_ASSERT_EQUAL(v[1].len, 1200);
}

static void test_split_single(void)
{
	struct shb_vec v[2];
	/* No segment size, or one not smaller than the payload: one. */
	CU_ASSERT_EQUAL(shb_dgram_split(buf, 1200, 0, 0, v, 2), 1);
	CU_ASSERT_EQUAL(v[0].len, 1200);
	CU_ASSERT_EQUAL(shb_dgram_split(buf, 900, 1200, 0, v, 2), 1);
	CU_ASSERT_EQUAL(v[0].len, 900);
	CU_ASSERT_EQUAL(shb_dgram_split(buf, 900, 900, 0, v, 2), 1);
	/* Resuming after it gives nothing more. */
	CU_ASSERT_EQUAL(shb_dgram_split(buf, 900, 0, 1, v, 2), 0);
	CU_ASSERT_EQUAL(shb_dgram_split(buf, 900, 0, 0, v, 0), 0);
}

static void test_split_resume(void)
{
	struct shb_vec v[3];
	size_t total = 0, skip = 0, k;
	uint64_t bytes = 0;
	/* 54 datagrams of 1200 and one of 100, taken 3 at a time. */
	while ((k = shb_dgram_split(buf, 54 * 1200 + 100, 1200, skip, v, 3)) > 0) {
		CU_ASSERT_PTR_EQUAL(v[0].base, buf + skip * 1200);
		for (size_t i = 0; i < k; i++)
			bytes += v[i].len;
		skip += k;
		total += k;
	}
	CU_ASSERT_EQUAL(total, 55);
	CU_ASSERT_EQUAL(bytes, 54 * 1200 + 100);
}

static CU_TestInfo split_tests[] = {
	{"equal segments and a short last one", test_split_segments},
	{"one datagram", test_split_single},
	{"resume after a full vec array", test_split_resume},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"dgram_split", NULL, NULL, NULL, NULL, split_tests},
	CU_SUITE_INFO_NULL,
};
