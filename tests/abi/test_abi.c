/* ABI checks that run: SHB_HAS against struct sizes written by older and
 * newer peers. (The frozen layouts are checked at compile time by
 * layout_1_1_x86_64.c, layout_1_2_x86_64.c and layout_1_3_x86_64.c, against
 * the 1.1, 1.2 and 1.3 headers kept in v1.1/, v1.2/ and v1.3/, and
 * layout_1_4_x86_64.c; the header_*.c files check each header stands
 * alone.) */
#include <CUnit/CUnit.h>
#include <stddef.h>
#include <shb/shb.h>

int shb_abi_layout_checked(void);
int shb_abi_layout_1_1_checked(void);
int shb_abi_layout_1_2_checked(void);
int shb_abi_layout_1_3_checked(void);

static void test_abi_layout_compiled(void)
{
	CU_ASSERT_EQUAL(shb_abi_layout_checked(), 1);
	CU_ASSERT_EQUAL(shb_abi_layout_1_1_checked(), 1);
	CU_ASSERT_EQUAL(shb_abi_layout_1_2_checked(), 1);
	CU_ASSERT_EQUAL(shb_abi_layout_1_3_checked(), 1);
}

/* A 1.1 writer's struct_size ends before every 1.2 member. */
static void test_abi_1_1_sizes_hide_1_2_members(void)
{
	struct shb_req_result r = {.struct_size = 64};
	struct shb_proto_desc d = {.struct_size = 80};
	struct shb_results s = {.struct_size = 128};
	struct shb_run_info i = {.struct_size = 88};
	struct shb_host h = {.struct_size = 96};

	CU_ASSERT_TRUE(SHB_HAS(&r, struct shb_req_result, detail));
	CU_ASSERT_FALSE(SHB_HAS(&r, struct shb_req_result, app_space));
	CU_ASSERT_TRUE(SHB_HAS(&d, struct shb_proto_desc, vt));
	CU_ASSERT_FALSE(SHB_HAS(&d, struct shb_proto_desc, scheme_defs));
	CU_ASSERT_TRUE(SHB_HAS(&s, struct shb_results, latency));
	CU_ASSERT_FALSE(SHB_HAS(&s, struct shb_results, latency_uncorrected));
	CU_ASSERT_TRUE(SHB_HAS(&i, struct shb_run_info, start_unix_ns));
	CU_ASSERT_FALSE(SHB_HAS(&i, struct shb_run_info, shard_index));
	CU_ASSERT_TRUE(SHB_HAS(&h, struct shb_host, hist));
	CU_ASSERT_FALSE(SHB_HAS(&h, struct shb_host, conn_origin));
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

/* A 1.2 writer's struct_size ends before every 1.3 member. */
static void test_abi_1_2_sizes_hide_1_3_members(void)
{
	struct shb_run_config c = {.struct_size = 96};
	struct shb_origin o = {.struct_size = 56};
	struct shb_results s = {.struct_size = 304};
	struct shb_run_info i = {.struct_size = 200};
	struct shb_host h = {.struct_size = 104};

	CU_ASSERT_TRUE(SHB_HAS(&c, struct shb_run_config, cafile));
	CU_ASSERT_FALSE(SHB_HAS(&c, struct shb_run_config, cert_file));
	CU_ASSERT_TRUE(SHB_HAS(&o, struct shb_origin, prepared));
	CU_ASSERT_FALSE(SHB_HAS(&o, struct shb_origin, route_flags));
	CU_ASSERT_TRUE(SHB_HAS(&s, struct shb_results, reserved1));
	CU_ASSERT_FALSE(SHB_HAS(&s, struct shb_results, tls_ja3));
	CU_ASSERT_TRUE(SHB_HAS(&i, struct shb_run_info, percentile_count));
	CU_ASSERT_FALSE(SHB_HAS(&i, struct shb_run_info, compare_index));
	CU_ASSERT_TRUE(SHB_HAS(&h, struct shb_host, conn_origin));
	CU_ASSERT_FALSE(SHB_HAS(&h, struct shb_host, tls_client_hello));
}

/* A 1.3 writer's struct_size ends before every 1.4 member. */
static void test_abi_1_3_sizes_hide_1_4_members(void)
{
	struct shb_proto_desc d = {.struct_size = 104};
	struct shb_results s = {.struct_size = 344};
	struct shb_run_info i = {.struct_size = 208};

	CU_ASSERT_TRUE(SHB_HAS(&d, struct shb_proto_desc, max_train));
	CU_ASSERT_FALSE(SHB_HAS(&d, struct shb_proto_desc, request_model));
	CU_ASSERT_FALSE(SHB_HAS(&d, struct shb_proto_desc, outcome_spaces));
	CU_ASSERT_TRUE(SHB_HAS(&s, struct shb_results, load_start_unix_ns));
	CU_ASSERT_FALSE(SHB_HAS(&s, struct shb_results, requests_answered));
	CU_ASSERT_TRUE(SHB_HAS(&i, struct shb_run_info, compare_count));
	CU_ASSERT_FALSE(SHB_HAS(&i, struct shb_run_info, request_model));
	/* a 1.3 host table (112 bytes) has no conn_fingerprint, a 1.3
	 * results struct none of the connection fingerprints */
	struct shb_host h = {.struct_size = 112};
	CU_ASSERT_TRUE(SHB_HAS(&h, struct shb_host, tls_client_hello));
	CU_ASSERT_FALSE(SHB_HAS(&h, struct shb_host, conn_fingerprint));
	CU_ASSERT_FALSE(SHB_HAS(&s, struct shb_results, h2_fingerprint));
	s.struct_size = 368; /* 1.4 before the fingerprints */
	CU_ASSERT_TRUE(SHB_HAS(&s, struct shb_results, reserved2));
	CU_ASSERT_FALSE(SHB_HAS(&s, struct shb_results, h2_fingerprint));
}

static void test_abi_version(void)
{
	CU_ASSERT_EQUAL(SHB_ABI_MAJOR, 1);
	CU_ASSERT_EQUAL(SHB_ABI_MINOR, 4);
	CU_ASSERT_TRUE(SHB_TARGET_ABI_MINOR <= SHB_ABI_MINOR);
}

static CU_TestInfo abi_tests[] = {
	{"layout_compiled", test_abi_layout_compiled},
	{"has_members", test_abi_has_members},
	{"1_1_sizes_hide_1_2_members", test_abi_1_1_sizes_hide_1_2_members},
	{"1_2_sizes_hide_1_3_members", test_abi_1_2_sizes_hide_1_3_members},
	{"1_3_sizes_hide_1_4_members", test_abi_1_3_sizes_hide_1_4_members},
	{"version", test_abi_version},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"abi", NULL, NULL, NULL, NULL, abi_tests},
	CU_SUITE_INFO_NULL,
};
