/* The reporter plugins with the real core pieces around them: found and
 * validated by the core's loader, reading the core's own histogram
 * through shb_histo_ops. Catches what a fake host cannot: a descriptor the
 * loader refuses, or a disagreement about histogram accessors.
 *
 * SHB_REPORT_PLUGIN_DIR (set by meson) is the build directory of
 * plugins/reporters. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <shb/shb.h>

#include "common/hdrv2.h"
#include "results/hist.h"
#include "loader/loader.h"
#include "report_host.h"

static struct shb_loader loader;
static struct shb_histo histo;

static int suite_init(void)
{
	if (rep_loader_init(&loader) < 0)
		return -1;
	if (shb_histo_init(&histo, 60000000000ull, 3) != 0)
		return -1;
	/* 1 us .. 1000 us, one sample each */
	for (uint64_t us = 1; us <= 1000; us++)
		shb_histo_record(&histo, us * 1000);
	return 0;
}

static int suite_clean(void)
{
	shb_loader_fini(&loader);
	shb_histo_destroy(&histo);
	return 0;
}

static const struct shb_run_info run = {
	.struct_size = sizeof(struct shb_run_info),
	.threads = 1, .connections = 10, .parallel = 1,
	.shb_version = "0.1.0", .url = "http://127.0.0.1:8080/",
	.method = "GET", .proto_name = "h1", .proto_display = "HTTP/1.1",
	.requests_target = 1000,
};
static const struct shb_status_count statuses[] = {{.code = 200, .count = 1000}};

static int run_named(const char *name, struct membuf *m)
{
	struct shb_report_handle h;
	char err[256] = "";
	int rc = shb_loader_report(&loader, name, &h, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "\nloader: %s\n", err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(h.desc->name, name);
	const struct shb_results r = {
		.struct_size = sizeof(r), .kind = SHB_RESULTS_TOTAL,
		.run = &run, .elapsed_ns = 500000000, .requests_total = 1000,
		.requests_ok = 1000, .statuses = statuses, .status_count = 1,
		.latency = shb_histo_abi(&histo),
	};
	struct shb_ostream os = {sizeof(os), 0, m, membuf_write};
	void *rep = NULL;
	rc = h.vt.create(&rep_host, &os, NULL, &rep, err, sizeof(err));
	CU_ASSERT_EQUAL_FATAL(rc, SHB_OK);
	rc = h.vt.begin(rep, &run);
	if (rc == SHB_OK)
		rc = h.vt.end(rep, &r);
	h.vt.destroy(rep);
	return rc;
}

static void test_json_reads_core_histogram(void)
{
	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_named("json", &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	json_t *root = json_loads(m.data, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	json_t *lat = json_object_get(root, "latencySeconds");
	json_t *pct = json_object_get(lat, "percentiles");
	CU_ASSERT_PTR_NOT_NULL_FATAL(pct);
	struct { const char *key; double want; } checks[] = {
		{"min", shb_histo_min(&histo) / 1e9},
		{"max", shb_histo_max(&histo) / 1e9},
		{"mean", shb_histo_mean(&histo) / 1e9},
		{"stddev", shb_histo_stddev(&histo) / 1e9},
	};
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		double got = json_real_value(json_object_get(lat, checks[i].key));
		CU_ASSERT_DOUBLE_EQUAL(got, checks[i].want, checks[i].want * 1e-12);
	}
	double p50 = json_real_value(json_object_get(pct, "p50"));
	double p99 = json_real_value(json_object_get(pct, "p99"));
	CU_ASSERT_DOUBLE_EQUAL(p50, shb_histo_value_at_ppm(&histo, 500000) / 1e9, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(p99, shb_histo_value_at_ppm(&histo, 990000) / 1e9, 1e-15);
	/* 3 significant figures: the median of 1..1000 us is 500 us */
	CU_ASSERT_DOUBLE_EQUAL(p50, 500e-6, 1e-6);
	json_decref(root);
	free(m.data);
}

/* latencyHistogram, built from the bucket walk, decodes to the core's
 * histogram count for count. */
static void test_json_exports_core_histogram(void)
{
	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_named("json", &m), SHB_OK);
	json_t *root = json_loads(m.data, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(root, "histogramUnit")),
			       "nanoseconds");
	const char *b64 = json_string_value(json_object_get(root, "latencyHistogram"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(b64);
	struct shb_hdr_counts c;
	char err[160] = "";
	CU_ASSERT_EQUAL_FATAL(shb_hdr_counts_init(&c), 0);
	CU_ASSERT_EQUAL(shb_hdr_decode(b64, &c, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(c.total, 1000);
	int same = 1, nonzero = 0;
	for (int32_t i = 0; i < histo.counts_len; i++) {
		same &= c.counts[i] == histo.counts[i];
		nonzero += c.counts[i] != 0;
	}
	for (int32_t i = histo.counts_len; i < SHB_HDR_COUNTS; i++)
		same &= c.counts[i] == 0;
	CU_ASSERT_TRUE(same);
	CU_ASSERT_TRUE(nonzero > 500);
	shb_hdr_counts_free(&c);
	json_decref(root);
	free(m.data);
}

static void test_text_and_csv_load(void)
{
	struct membuf t = {0}, c = {0};
	CU_ASSERT_EQUAL(run_named("text", &t), SHB_OK);
	CU_ASSERT_EQUAL(run_named("csv", &c), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t.data);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c.data);
	char want[64];
	unsigned long long us = (shb_histo_min(&histo) + 500) / 1000;
	snprintf(want, sizeof(want), "Latency (ms):  min %llu.%03llu, ",
		 us / 1000, us % 1000);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.data, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.data, "Requests/sec:  2000.0\n"));
	snprintf(want, sizeof(want), ",%llu,%llu,",
		 (unsigned long long)shb_histo_min(&histo),
		 (unsigned long long)shb_histo_mean(&histo));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.data, want));
	free(t.data);
	free(c.data);
}

static CU_TestInfo core_tests[] = {
	{"json reads the core histogram", test_json_reads_core_histogram},
	{"json exports the core histogram", test_json_exports_core_histogram},
	{"text and csv through the loader", test_text_and_csv_load},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"report-core", suite_init, suite_clean, NULL, NULL, core_tests},
	CU_SUITE_INFO_NULL,
};
