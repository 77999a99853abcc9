/* ABI checks that run: SHB_HAS against struct sizes written by older and
 * newer peers. (The frozen layout is checked at compile time by
 * layout_x86_64.c; the header_*.c files check each header stands alone.) */
#include <CUnit/CUnit.h>
#include <stddef.h>
#include <shb/shb.h>

int shb_abi_layout_checked(void);

static void test_abi_layout_compiled(void)
{
	CU_ASSERT_EQUAL(shb_abi_layout_checked(), 1);
}

static void test_abi_has_members(void)
{
	struct shb_req_result r = {0};
	r.struct_size = sizeof(r);
	CU_ASSERT_TRUE(SHB_HAS(&r, struct shb_req_result, detail));
	/* A writer built before `detail` existed. */
	r.struct_size = (uint32_t)offsetof(struct shb_req_result, detail);
	CU_ASSERT_FALSE(SHB_HAS(&r, struct shb_req_result, detail));
	CU_ASSERT_TRUE(SHB_HAS(&r, struct shb_req_result, ts_done));
	/* A member only partly covered is absent. */
	r.struct_size = (uint32_t)offsetof(struct shb_req_result, ts_done) + 4;
	CU_ASSERT_FALSE(SHB_HAS(&r, struct shb_req_result, ts_done));
}

static void test_abi_version(void)
{
	CU_ASSERT_EQUAL(SHB_ABI_MAJOR, 1);
	CU_ASSERT_TRUE(SHB_TARGET_ABI_MINOR <= SHB_ABI_MINOR);
}

static CU_TestInfo abi_tests[] = {
	{"layout_compiled", test_abi_layout_compiled},
	{"has_members", test_abi_has_members},
	{"version", test_abi_version},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"abi", NULL, NULL, NULL, NULL, abi_tests},
	CU_SUITE_INFO_NULL,
};
