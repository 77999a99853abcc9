/* What a closing connection may still receive before its receive is
 * cancelled (core/engine/closing_rx.c, used by shb_conn_on_recv): not a
 * byte more than CLOSING_RX_MAX (256 KiB) is let through without a
 * cancel, a goodbye below it costs none, and the count never wraps
 * however long a peer sends (a wrap would end the cancels and let the
 * receive run for ever). */
#include <CUnit/CUnit.h>
#include <stdint.h>

#include "engine/closing_rx.h"

static void test_boundary(void)
{
	uint32_t count = 0;
	CU_ASSERT_EQUAL(CLOSING_RX_MAX, 262144u);
	/* 16 receives of 16 KiB: exactly the cap, no cancel yet. */
	for (int i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(shb_closing_rx_add(&count, 16384), 0);
	CU_ASSERT_EQUAL(count, 262144u);
	/* One byte more: cancel, and at every receive after. */
	CU_ASSERT_EQUAL(shb_closing_rx_add(&count, 1), 1);
	CU_ASSERT_EQUAL(count, 262145u);
	CU_ASSERT_EQUAL(shb_closing_rx_add(&count, 16384), 1);
	CU_ASSERT_EQUAL(count, 262145u); /* no longer counted */
}

static void test_goodbye(void)
{
	uint32_t count = 0;
	/* The rest of a response, a GOAWAY and a close_notify: no cancel. */
	CU_ASSERT_EQUAL(shb_closing_rx_add(&count, 200000), 0);
	CU_ASSERT_EQUAL(shb_closing_rx_add(&count, 17), 0);
	CU_ASSERT_EQUAL(shb_closing_rx_add(&count, 24), 0);
	CU_ASSERT_EQUAL(count, 200041u);
	/* One receive past the cap at once. */
	count = 0;
	CU_ASSERT_EQUAL(shb_closing_rx_add(&count, 262145), 1);
	count = 262000;
	CU_ASSERT_EQUAL(shb_closing_rx_add(&count, 65536), 1);
	CU_ASSERT_EQUAL(count, 327536u);
}

static void test_no_wrap(void)
{
	uint32_t count = 0;
	int cancels = 0;
	/* 8 GiB in receives of 64 KiB (a GRO-sized read), and a few of
	 * UINT32_MAX: a plain sum would wrap past 4 GiB and read as below
	 * the cap. */
	for (uint32_t i = 0; i < 131072; i++)
		cancels += shb_closing_rx_add(&count, 65536);
	CU_ASSERT_EQUAL(cancels, 131072 - 4);
	CU_ASSERT_EQUAL(count, 327680u);
	CU_ASSERT_EQUAL(shb_closing_rx_add(&count, UINT32_MAX), 1);
	CU_ASSERT_EQUAL(count, 327680u);
	count = CLOSING_RX_MAX;
	CU_ASSERT_EQUAL(shb_closing_rx_add(&count, UINT32_MAX), 1);
	CU_ASSERT_EQUAL(count, 2u * CLOSING_RX_MAX + 1u);
	CU_ASSERT_EQUAL(shb_closing_rx_add(&count, UINT32_MAX), 1);
}

static CU_TestInfo closing_rx_tests[] = {
	{"256 KiB let through, the byte after cancels", test_boundary},
	{"a goodbye costs no cancel", test_goodbye},
	{"the count never wraps", test_no_wrap},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"closing_rx", NULL, NULL, NULL, NULL, closing_rx_tests},
	CU_SUITE_INFO_NULL,
};
