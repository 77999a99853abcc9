/* The plugin test kit's host side (test_kit.c has the rule checks): its
 * host table, clock and random source, extension providers (the kit's
 * own and a plugin's), its histogram and its sink and report fixture. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <shb/kit.h>

#include "kit_fx.h"

/* ---- clock, host table, histogram, sink ---------------------------------------------- */

static int zeros(void *buf, size_t len)
{
	memset(buf, 0, len);
	return SHB_OK;
}

static void test_host_table(void)
{
	uint8_t a[8], b[8];

	CU_ASSERT_EQUAL(shb_kit_host_init(&kh, SHB_ABI_MINOR + 1), -1);
	CU_ASSERT_EQUAL(shb_kit_host_init(&kh, 1), 0);
	CU_ASSERT_EQUAL(kh.host.abi_minor, 1);
	CU_ASSERT(kh.host.struct_size < sizeof(struct shb_host));
	CU_ASSERT_FALSE(SHB_HAS(&kh.host, struct shb_host, conn_origin));
	shb_kit_host_fini(&kh);

	/* A 1.2 host has conn_origin but no tls_client_hello. */
	CU_ASSERT_EQUAL(shb_kit_host_init(&kh, 2), 0);
	CU_ASSERT_TRUE(SHB_HAS(&kh.host, struct shb_host, conn_origin));
	CU_ASSERT_FALSE(SHB_HAS(&kh.host, struct shb_host, tls_client_hello));
	shb_kit_host_fini(&kh);

	/* A 1.3 host has tls_client_hello but no conn_fingerprint, no
	 * req_response and no metric_add. */
	CU_ASSERT_EQUAL(shb_kit_host_init(&kh, 3), 0);
	CU_ASSERT_TRUE(SHB_HAS(&kh.host, struct shb_host, tls_client_hello));
	CU_ASSERT_FALSE(SHB_HAS(&kh.host, struct shb_host, conn_fingerprint));
	CU_ASSERT_FALSE(SHB_HAS(&kh.host, struct shb_host, req_response));
	CU_ASSERT_FALSE(SHB_HAS(&kh.host, struct shb_host, metric_add));
	shb_kit_host_fini(&kh);

	CU_ASSERT_EQUAL(shb_kit_host_init(&kh, 4), 0);
	CU_ASSERT_PTR_EQUAL(shb_kit_host_active(), &kh);
	CU_ASSERT_EQUAL(kh.host.struct_size, sizeof(struct shb_host));
	CU_ASSERT_PTR_NOT_NULL(kh.host.conn_fingerprint);
	CU_ASSERT_PTR_NOT_NULL(kh.host.req_response);
	CU_ASSERT_PTR_NOT_NULL(kh.host.metric_add);
	CU_ASSERT_PTR_NOT_NULL(kh.host.metric_record);
	CU_ASSERT_PTR_NOT_NULL(kh.host.conn_origin);
	CU_ASSERT_PTR_NOT_NULL(kh.host.tls_client_hello);
	CU_ASSERT_EQUAL(kh.host.now(), 1);
	shb_kit_clock_set(&kh.clock, 5000);
	shb_kit_clock_advance(&kh.clock, 7);
	CU_ASSERT_EQUAL(kh.host.now(), 5007);
	CU_ASSERT_EQUAL(kh.host.log_enabled(SHB_LOG_WARN), 1);
	CU_ASSERT_EQUAL(kh.host.log_enabled(SHB_LOG_DEBUG), 0);
	CU_ASSERT_STRING_EQUAL(kh.host.strerror(SHB_E_PROTO), "protocol error");
	/* Deterministic from the seed. */
	kh.seed = 42;
	CU_ASSERT_EQUAL(kh.host.random_secure(a, sizeof a), SHB_OK);
	kh.rng = 0;
	CU_ASSERT_EQUAL(kh.host.random_secure(b, sizeof b), SHB_OK);
	CU_ASSERT(memcmp(a, b, sizeof a) == 0);
	kh.random = zeros;
	memset(a, 0xaa, sizeof a);
	CU_ASSERT_EQUAL(kh.host.random_secure(a, sizeof a), SHB_OK);
	CU_ASSERT(a[0] == 0 && a[7] == 0);
	kh.log_level = SHB_LOG_DEBUG;
	CU_ASSERT_EQUAL(kh.host.log_enabled(SHB_LOG_DEBUG), 1);
	CU_ASSERT_EQUAL(kh.host.log_enabled(SHB_LOG_TRACE), 0);
	CU_ASSERT_PTR_NULL(kh.host.get_extension("org.example.x/1"));
	CU_ASSERT_EQUAL(shb_kit_host_add_extension(&kh, "org.example.x/1", a), 0);
	CU_ASSERT_PTR_EQUAL(kh.host.get_extension("org.example.x/1"), a);
	shb_kit_host_fini(&kh);
	CU_ASSERT_PTR_NULL(shb_kit_host_active());
}

static int count_buckets(void *user, uint64_t lo, uint64_t hi, uint64_t n)
{
	uint64_t *sum = user;

	sum[0]++;
	sum[1] += n;
	return lo == hi ? 0 : 1;
}

/* ---- extension providers ---------------------------------------------------------- */

static const int table_a = 1, table_b = 2;

static const void *provider_a(const char *id)
{
	return strcmp(id, "org.example.a/1") ? NULL : &table_a;
}

static const void *provider_b(const char *id)
{
	if (!strcmp(id, "org.example.a/1"))
		return &table_b; /* asked after provider_a: never wins */
	return strcmp(id, "org.example.b/1") ? NULL : &table_b;
}

static void *ask_a(void *arg)
{
	return (void *)kh.host.get_extension("org.example.a/1");
}

static void test_providers(void)
{
	static const char *const want[] = {
		"log from plugin id 'org.example.other', expected 'org.example.test'",
	};
	pthread_t t;
	void *got = (void *)&table_b;

	CU_ASSERT_EQUAL_FATAL(shb_kit_host_init(&kh, SHB_ABI_MINOR), 0);
	kh.plugin_id = "org.example.test";
	CU_ASSERT_EQUAL(shb_kit_host_add_extension_provider(&kh, NULL, "x"), -1);
	CU_ASSERT_EQUAL(shb_kit_host_add_extension_provider(&kh, provider_a,
							    "org.example.a"), 0);
	CU_ASSERT_EQUAL(shb_kit_host_add_extension_provider(&kh, provider_b,
							    NULL), 0);
	/* Providers in order, after the kit's own table. */
	CU_ASSERT_PTR_EQUAL(kh.host.get_extension("org.example.a/1"), &table_a);
	CU_ASSERT_PTR_EQUAL(kh.host.get_extension("org.example.b/1"), &table_b);
	CU_ASSERT_PTR_NULL(kh.host.get_extension("org.example.c/1"));
	CU_ASSERT_EQUAL(shb_kit_host_add_extension(&kh, "org.example.a/1", &got),
			0);
	CU_ASSERT_PTR_EQUAL(kh.host.get_extension("org.example.a/1"), &got);
	kh.extensions[0].id = NULL;
	/* [main] only, as the core answers plugins' ids. */
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, ask_a, NULL), 0);
	pthread_join(t, &got);
	CU_ASSERT_PTR_NULL(got);
	/* A provider's log lines are not another plugin's. */
	kh.host.log(SHB_LOG_WARN, "org.example.a", "from a provider");
	kh.host.log(SHB_LOG_WARN, "org.example.other", "from elsewhere");
	CU_ASSERT_EQUAL(kh.log_count, 2);
	assert_violations(want, 1);
	shb_kit_host_fini(&kh);

	/* A 1.1 host never asks plugins. */
	CU_ASSERT_EQUAL_FATAL(shb_kit_host_init(&kh, 1), 0);
	CU_ASSERT_EQUAL(shb_kit_host_add_extension_provider(&kh, provider_a,
							    NULL), 0);
	CU_ASSERT_PTR_NULL(kh.host.get_extension("org.example.a/1"));
	shb_kit_host_fini(&kh);
}

/* The fixtures: one offers FX_EXT_ID, the other needs it and its path. */
static void test_provider_plugins(void)
{
	const char *dir = getenv("SHB_KIT_FIXTURES");
	struct shb_kit_plugin ext, need;
	struct shb_kit_module m;
	struct shb_request req = {
		.struct_size = sizeof req,
		.method = "GET",
		.scheme = "line",
		.authority = "example.com",
		.path = "/kit/ext",
	};
	char path[512], err[256];

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	CU_ASSERT_EQUAL_FATAL(shb_kit_host_init(&kh, SHB_ABI_MINOR), 0);
	snprintf(path, sizeof path, "%s/shb-proto-kitext.so", dir);
	CU_ASSERT_EQUAL_FATAL(shb_kit_plugin_open(&ext, path, err, sizeof err), 0);
	snprintf(path, sizeof path, "%s/shb-proto-kitneedext.so", dir);
	CU_ASSERT_EQUAL_FATAL(shb_kit_plugin_open(&need, path, err, sizeof err), 0);
	/* Not initialised yet: refused. */
	CU_ASSERT_EQUAL(shb_kit_plugin_provide(&ext, &kh), -1);
	CU_ASSERT_EQUAL_FATAL(shb_kit_plugin_init(&ext, &kh), SHB_OK);
	CU_ASSERT_EQUAL(shb_kit_plugin_provide(&ext, &kh), 0);
	CU_ASSERT_EQUAL_FATAL(shb_kit_plugin_init(&need, &kh), SHB_OK);
	CU_ASSERT_STRING_EQUAL(kh.plugin_id, "org.shb.test.kit.needext");
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_create(&m, &kh,
						    shb_kit_plugin_proto(&need, NULL),
						    NULL),
			      SHB_OK);
	/* hello() logged under the provider's id: no violation. */
	CU_ASSERT_EQUAL(kh.log_count, 1);
	CU_ASSERT_STRING_EQUAL(kh.logs[0].plugin_id, "org.shb.test.kit.ext");
	CU_ASSERT_EQUAL(shb_kit_module_prepare(&m, NULL), SHB_E_INVAL);
	CU_ASSERT_STRING_EQUAL(m.err, "needext: the path must be /kit/ext, not '/'");
	CU_ASSERT_EQUAL(shb_kit_module_prepare(&m, &req), SHB_OK);
	assert_violations(NULL, 0);
	shb_kit_module_destroy(&m);
	shb_kit_plugin_close(&need);
	shb_kit_plugin_close(&ext);
	shb_kit_host_fini(&kh);
}

static void test_hist(void)
{
	const struct shb_hist_ops *ops = &shb_kit_hist_ops;
	struct shb_kit_hist h;
	const struct shb_hist *hh;
	uint64_t sum[2] = {0, 0};

	shb_kit_hist_init(&h);
	hh = shb_kit_hist_handle(&h);
	CU_ASSERT_EQUAL(ops->count(hh), 0);
	CU_ASSERT_EQUAL(ops->max(hh), 0);
	CU_ASSERT_EQUAL(ops->value_at_ppm(hh, 990000), 0);
	for (uint64_t v = 100; v >= 1; v--)
		CU_ASSERT_EQUAL(shb_kit_hist_add(&h, v, 1), 0);
	CU_ASSERT_EQUAL(shb_kit_hist_add(&h, 100, 2), 0);
	CU_ASSERT_EQUAL(ops->count(hh), 102);
	CU_ASSERT_EQUAL(ops->min(hh), 1);
	CU_ASSERT_EQUAL(ops->max(hh), 100);
	CU_ASSERT_EQUAL(ops->mean(hh), 51); /* 5250 / 102 = 51.47 */
	CU_ASSERT_EQUAL(ops->value_at_ppm(hh, 500000), 51);
	CU_ASSERT_EQUAL(ops->value_at_ppm(hh, 990000), 100);
	CU_ASSERT_EQUAL(ops->value_at_ppm(hh, 0), 1);
	CU_ASSERT_EQUAL(ops->foreach_bucket(hh, count_buckets, sum), 0);
	CU_ASSERT_EQUAL(sum[0], 100);
	CU_ASSERT_EQUAL(sum[1], 102);
	shb_kit_hist_fini(&h);
}

static void test_sink_and_fixture(void)
{
	struct shb_kit_sink s;
	struct shb_kit_report_fixture f;

	shb_kit_sink_init(&s);
	CU_ASSERT_EQUAL(s.os.write(s.os.ctx, "abc", 3), 3);
	CU_ASSERT_EQUAL(s.os.write(s.os.ctx, "de", 2), 2);
	CU_ASSERT_STRING_EQUAL(s.buf, "abcde");
	s.fail = 1;
	CU_ASSERT_EQUAL(s.os.write(s.os.ctx, "x", 1), SHB_E_CLOSED);
	CU_ASSERT_EQUAL(s.len, 5);
	shb_kit_sink_fini(&s);

	shb_kit_report_fixture_init(&f, 0);
	CU_ASSERT_EQUAL(f.total.requests_ok + f.total.requests_errors,
			f.total.requests_total);
	CU_ASSERT_EQUAL(shb_kit_hist_ops.count(f.total.latency), 990);
	CU_ASSERT_EQUAL(shb_kit_hist_ops.max(f.total.latency), 990000000ull);
	CU_ASSERT_EQUAL(f.statuses[0].count + f.statuses[1].count,
			f.total.requests_ok);
	CU_ASSERT_EQUAL(f.errors[0].count + f.errors[1].count,
			f.total.requests_errors);
	shb_kit_report_fixture_fini(&f);
	shb_kit_report_fixture_init(&f, 1);
	CU_ASSERT_EQUAL(f.total.requests_total, 0);
	CU_ASSERT_EQUAL(shb_kit_hist_ops.count(f.total.latency), 0);
	shb_kit_report_fixture_fini(&f);
}

CU_TestInfo kit_host_tests[] = {
	{"host table, clock, random, extensions", test_host_table},
	{"extension providers", test_providers},
	{"a plugin on another plugin's extension", test_provider_plugins},
	{"histogram", test_hist},
	{"sink and report fixture", test_sink_and_fixture},
	CU_TEST_INFO_NULL,
};
