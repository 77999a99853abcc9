/* The worker's ring set-up (core/engine/uring_shim.c): a ring sized for
 * many connections gets the same flags as a small one. The CQ asked for is
 * four times the SQ, and past 16384 entries that is more than the kernel's
 * largest CQ (65536): without IORING_SETUP_CLAMP every step of the flag
 * ladder was refused (EINVAL) down to a ring with no flags at all, so a
 * worker of more than 8,188 connections ran without DEFER_TASKRUN and
 * COOP_TASKRUN, and paid for every completion's task work at once. */
#include <CUnit/CUnit.h>
#include <liburing.h>

#include "engine/uring_shim.h"

/* The kernel's largest SQ and CQ (IORING_MAX_ENTRIES, IORING_MAX_CQ_ENTRIES). */
#define MAX_SQ 32768u
#define MAX_CQ 65536u

static void test_flags_do_not_depend_on_size(void)
{
	struct shb_uring small, big;

	CU_ASSERT_EQUAL_FATAL(shb_uring_init(&small, 256), 0);
	CU_ASSERT_EQUAL_FATAL(shb_uring_init(&big, MAX_SQ), 0);
	/* Whatever this kernel accepts, it accepts at both sizes. */
	CU_ASSERT_EQUAL(big.setup_flags, small.setup_flags);
	CU_ASSERT(big.setup_flags & IORING_SETUP_CQSIZE);
	CU_ASSERT_EQUAL(small.ring.sq.ring_entries, 256u);
	CU_ASSERT_EQUAL(small.ring.cq.ring_entries, 1024u);
	CU_ASSERT_EQUAL(big.ring.sq.ring_entries, MAX_SQ);
	CU_ASSERT_EQUAL(big.ring.cq.ring_entries, MAX_CQ);
	shb_uring_exit(&small);
	shb_uring_exit(&big);
}

/* Between the sizes: 16384 entries ask for exactly the largest CQ. */
static void test_cq_at_the_limit(void)
{
	struct shb_uring u;

	CU_ASSERT_EQUAL_FATAL(shb_uring_init(&u, MAX_CQ / 4), 0);
	CU_ASSERT(u.setup_flags & IORING_SETUP_CQSIZE);
	CU_ASSERT_EQUAL(u.ring.cq.ring_entries, MAX_CQ);
	shb_uring_exit(&u);
}

CU_TestInfo uring_shim_tests[] = {
	{"a ring of 32768 entries gets the flags of a ring of 256", test_flags_do_not_depend_on_size},
	{"16384 entries get the largest CQ", test_cq_at_the_limit},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"uring_shim", NULL, NULL, NULL, NULL, uring_shim_tests},
	CU_SUITE_INFO_NULL,
};
