/* The reporters with the ABI 1.2 members (test_report.c has the rest):
 * the 1.2 goldens, 1.1-sized structs that hide them, NULL arrays, the
 * warm-up over the extension, the open-loop shortfall, percentile lists. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <shb/shb.h>

#include "report_fake.h"
#include "report_fixtures.h"

/* ---- tests: ABI 1.2 members ------------------------------------------------------------------ */

static void test_text_v12basic(void) { golden_case(P_TEXT, &v12basic_results, "v12basic.txt"); }
static void test_text_v12full(void) { golden_case(P_TEXT, &v12full_results, "v12full.txt"); }
static void test_csv_v12basic(void) { golden_case(P_CSV, &v12basic_results, "v12basic.csv"); }
static void test_csv_v12full(void) { golden_case(P_CSV, &v12full_results, "v12full.csv"); }

/* An address that faults when read: a reporter that touched a 1.2 member
 * of a 1.1-sized struct would crash instead of passing. */
#define POISON ((void *)(uintptr_t)0x18)

/* A 1.1 core's structs followed by garbage where 1.2 members would be:
 * the output is the 1.1 golden, byte for byte, in all three formats. */
static void test_v11_sizes_hide_v12(void)
{
	struct shb_run_info run = basic_run;
	run.shard_index = 5;
	run.shard_count = 9;
	run.rate_milli = 77;
	run.stages = POISON;
	run.stage_count = 3;
	run.warmup_ns = 123;
	run.targets = POISON;
	run.target_count = 2;
	run.plugins = POISON;
	run.plugin_count = 2;
	run.label = POISON;
	run.percentiles_ppm = POISON;
	run.percentile_count = 4;
	struct shb_results r = basic_results;
	r.run = &run;
	r.latency_uncorrected = POISON;
	r.connect = r.handshake = r.first_byte = POISON;
	r.setup_ns = 99;
	r.requests_warmup = 98;
	r.requests_late = 97;
	r.rx_header_bytes = r.rx_body_bytes = 96;
	r.app_outcomes = POISON;
	r.app_outcome_count = 2;
	r.errors_ex = POISON;
	r.error_ex_count = 2;
	r.error_codes = POISON;
	r.error_code_count = 2;
	r.targets = POISON;
	r.target_count = 2;
	CU_ASSERT_EQUAL(run.struct_size, RUN_INFO_1_1_SIZE);
	CU_ASSERT_EQUAL(r.struct_size, RESULTS_1_1_SIZE);
	golden_case(P_TEXT, &r, "basic.txt");
	golden_case(P_CSV, &r, "basic.csv");
	golden_case(P_JSON, &r, "basic.json");
}

/* A 1.2 core with a NULL array and a non-zero count (a broken writer):
 * the member reads as absent, nothing crashes. */
static void test_v12_null_arrays(void)
{
	struct shb_run_info run = v12full_run;
	run.stages = NULL;
	run.plugins = NULL;
	run.targets = NULL;
	run.percentiles_ppm = NULL;
	struct shb_results r = v12full_results;
	r.run = &run;
	r.app_outcomes = NULL;
	r.error_codes = NULL;
	r.targets = NULL;
	for (int i = 0; i < P_COUNT; i++) {
		struct membuf m = {0};
		CU_ASSERT_EQUAL(run_reporter(i, NULL, &r, &m), SHB_OK);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
		CU_ASSERT_PTR_NULL(strstr(m.data, "Targets:"));
		CU_ASSERT_PTR_NULL(strstr(m.data, "private:3"));
		mem_free(&m);
	}
	json_t *root = run_json(&r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT_EQUAL(json_array_size(jpath(root, "targets")), 0);
	CU_ASSERT_EQUAL(json_array_size(jpath(root, "plugins")), 0);
	CU_ASSERT_EQUAL(json_array_size(jpath(root, "appOutcomes")), 0);
	/* the fixed nine again */
	j_real(root, "latencySeconds/percentiles/p10", 0.001);
	json_decref(root);
}

static const char *const v12_top_keys[] = {
	"schemaVersion", "shbVersion", "startTime", "url", "method", "protocol",
	"protocolName", "threads", "connections", "parallel", "tls",
	"tlsVerify", "requestsTarget", "durationTargetSeconds",
	"warmupSeconds", "warmupRequests", "durationSeconds", "interrupted",
	"requests", "requestsPerSec", "bytesReceived", "bytesReceivedPerSec",
	"bytesSent", "bytesSentPerSec", "connectionsOpened", "statusCodes",
	"errors", "errorSamples", "latencySeconds",
	"setupSeconds", "rxHeaderBytes", "rxBodyBytes",
	"rxHeaderBytesPerResponse", "rxBodyBytesPerResponse", "appOutcomes",
	"errorCodes", "latencyUncorrectedSeconds", "setupTimings",
	"histogramUnit", "latencyHistogram", "setupHistograms",
	"label", "shard", "openLoop", "plugins", "targets", NULL,
};
/* v12full's latency_uncorrected is a histogram of its own. */
static const char *const v12_open_top_keys[] = {
	"schemaVersion", "shbVersion", "startTime", "url", "method", "protocol",
	"protocolName", "threads", "connections", "parallel", "tls",
	"tlsVerify", "requestsTarget", "durationTargetSeconds",
	"warmupSeconds", "warmupRequests", "durationSeconds", "interrupted",
	"requests", "requestsPerSec", "bytesReceived", "bytesReceivedPerSec",
	"bytesSent", "bytesSentPerSec", "connectionsOpened", "statusCodes",
	"errors", "errorSamples", "latencySeconds",
	"setupSeconds", "rxHeaderBytes", "rxBodyBytes",
	"rxHeaderBytesPerResponse", "rxBodyBytesPerResponse", "appOutcomes",
	"errorCodes", "latencyUncorrectedSeconds", "setupTimings",
	"histogramUnit", "latencyHistogram", "latencyUncorrectedHistogram",
	"setupHistograms", "label", "shard", "openLoop", "plugins", "targets",
	NULL,
};
static const char *const v12_error_keys[] = {
	"connect", "tls", "read", "write", "timeout", "protocol",
	"application", "script", NULL,
};

static void test_json_v12basic(void)
{
	json_t *root = run_json(&v12basic_results, "v12basic.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	j_keys(root, NULL, v12_top_keys);
	j_keys(root, "errors", v12_error_keys);
	j_int(root, "errors/application", 0);
	/* the warm-up from the run info, not the extension */
	j_real(root, "warmupSeconds", 1.5);
	j_int(root, "warmupRequests", 4321);
	j_real(root, "setupSeconds", 0.052345678);
	j_int(root, "rxHeaderBytes", 1038960);
	j_int(root, "rxBodyBytes", 119880);
	j_real(root, "rxHeaderBytesPerResponse", 104.0);
	j_real(root, "rxBodyBytesPerResponse", 12.0);
	CU_ASSERT_EQUAL(json_array_size(jpath(root, "appOutcomes")), 0);
	json_t *codes = jpath(root, "errorCodes");
	CU_ASSERT_EQUAL_FATAL(json_array_size(codes), 2);
	json_t *c = json_array_get(codes, 1);
	j_str(c, "kind", "read");
	j_str(c, "space", "errno");
	j_int(c, "code", 104);
	j_int(c, "count", 7);
	/* closed loop: one histogram, no uncorrected one */
	j_null(root, "latencyUncorrectedSeconds");
	static const char *const setup_keys[] = {"connect", "handshake",
						 "firstByte", NULL};
	static const char *const hsum_keys[] = {"count", "mean", "p50", "p90",
						"p99", "max", NULL};
	j_keys(root, "setupTimings", setup_keys);
	j_keys(root, "setupTimings/connect", hsum_keys);
	j_int(root, "setupTimings/connect/count", 60);
	j_real(root, "setupTimings/connect/mean", 0.00012);
	j_real(root, "setupTimings/connect/p50", 0.0001);
	j_real(root, "setupTimings/connect/p90", 0.0003);
	j_real(root, "setupTimings/connect/p99", 0.0008);
	j_real(root, "setupTimings/connect/max", 0.0009);
	j_null(root, "setupTimings/handshake");
	j_int(root, "setupTimings/firstByte/count", 9990);
	j_null(root, "label");
	j_null(root, "shard");
	j_null(root, "openLoop");
	json_t *pl = jpath(root, "plugins");
	CU_ASSERT_EQUAL_FATAL(json_array_size(pl), 2);
	static const char *const plugin_keys[] = {"role", "name", "id",
						  "version", "abiMinor", "path",
						  NULL};
	j_keys(json_array_get(pl, 0), NULL, plugin_keys);
	j_str(json_array_get(pl, 0), "path", "/opt/shb/lib/shb/shb-proto-h1.so");
	j_str(json_array_get(pl, 0), "id", "org.shb.proto.h1");
	j_str(json_array_get(pl, 0), "version", "0.1.0");
	j_str(json_array_get(pl, 0), "role", "protocol");
	j_str(json_array_get(pl, 0), "name", "h1");
	j_int(json_array_get(pl, 0), "abiMinor", 2);
	j_null(json_array_get(pl, 1), "version");
	j_int(json_array_get(pl, 1), "abiMinor", 1);
	CU_ASSERT_EQUAL(json_array_size(jpath(root, "targets")), 0);
	check_latency(root, &basic_hist);
	json_decref(root);
	CU_ASSERT_FALSE(bad_ppm_asked);
}

static void test_json_v12full(void)
{
	json_t *root = run_json(&v12full_results, "v12full.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	j_keys(root, NULL, v12_open_top_keys);
	j_str(root, "label", "compare");
	j_int(root, "shard/index", 1);
	j_int(root, "shard/count", 3);
	j_real(root, "openLoop/rateTarget", 2000.0);
	json_t *st = jpath(root, "openLoop/stages");
	CU_ASSERT_EQUAL_FATAL(json_array_size(st), 2);
	j_real(json_array_get(st, 0), "durationSeconds", 10.0);
	j_real(json_array_get(st, 0), "rateFrom", 0.5);
	j_real(json_array_get(st, 0), "rateTo", 2000.0);
	j_int(root, "openLoop/requestsLate", 41);
	j_int(root, "openLoop/requestsUnsent", 3);
	j_real(root, "openLoop/scheduleLagMaxSeconds", 0.18);
	/* the run's percentiles, not the nine */
	static const char *const pk[] = {"p50", "p90", "p99", "p99.9",
					 "p99.999", NULL};
	j_keys(root, "latencySeconds/percentiles", pk);
	j_real(root, "latencySeconds/percentiles/p99.999", 0.249);
	j_keys(root, "latencyUncorrectedSeconds/percentiles", pk);
	j_real(root, "latencyUncorrectedSeconds/percentiles/p99", 0.005);
	j_real(root, "latencyUncorrectedSeconds/percentiles/p99.999", 0.0299);
	j_real(root, "latencyUncorrectedSeconds/max", 0.03);
	/* errors_ex: the application kind, with its sample */
	j_keys(root, "errors", v12_error_keys);
	j_int(root, "errors/timeout", 2);
	j_int(root, "errors/application", 10);
	j_str(root, "errorSamples/application", "grpc-status 14: unavailable");
	json_t *apps = jpath(root, "appOutcomes");
	CU_ASSERT_EQUAL_FATAL(json_array_size(apps), 3);
	static const char *const app_keys[] = {"space", "code", "ok", "count",
					       NULL};
	j_keys(json_array_get(apps, 1), NULL, app_keys);
	j_str(json_array_get(apps, 1), "space", "grpc");
	j_int(json_array_get(apps, 1), "code", 14);
	j_bool(json_array_get(apps, 1), "ok", 0);
	j_int(json_array_get(apps, 1), "count", 10);
	j_str(json_array_get(apps, 2), "space", "private:3");
	j_str(json_array_get(jpath(root, "errorCodes"), 1), "kind", "application");
	j_str(json_array_get(jpath(root, "errorCodes"), 1), "space", "h2");
	j_int(root, "setupTimings/handshake/count", 8);
	j_real(root, "setupTimings/handshake/p99", 0.0045);
	/* per target: the same fields as the run, after the target's own */
	json_t *tg = jpath(root, "targets");
	CU_ASSERT_EQUAL_FATAL(json_array_size(tg), 2);
	json_t *t0 = json_array_get(tg, 0), *t1 = json_array_get(tg, 1);
	static const char *const target_keys[] = {
		"index", "label", "url", "method", "weight", "weightShare",
		"requestShare", "durationSeconds", "interrupted", "requests", "requestsPerSec",
		"bytesReceived", "bytesReceivedPerSec", "bytesSent",
		"bytesSentPerSec", "connectionsOpened", "statusCodes", "errors",
		"errorSamples", "latencySeconds", "setupSeconds",
		"rxHeaderBytes", "rxBodyBytes", "rxHeaderBytesPerResponse",
		"rxBodyBytesPerResponse", "appOutcomes", "errorCodes",
		"latencyUncorrectedSeconds", "setupTimings", "histogramUnit",
		"latencyHistogram", "setupHistograms", NULL,
	};
	j_keys(t0, NULL, target_keys);
	j_int(t0, "index", 0);
	j_str(t0, "label", "bun");
	j_str(t0, "url", "https://a.test/rpc");
	j_int(t0, "weight", 1);
	/* intended 1 of 1 + 3; achieved 17500 of 17500 + 52522 requests */
	j_real(t0, "weightShare", 0.25);
	j_real(t0, "requestShare", 17500.0 / 70022.0);
	j_int(t0, "requests/ok", 17500);
	j_real(t0, "rxHeaderBytesPerResponse", 100.0);
	j_real(t0, "rxBodyBytesPerResponse", 50.0);
	j_null(t0, "latencyUncorrectedSeconds");
	/* t0 has no errors_ex array but a 1.2 size: seven kinds, all 0 */
	j_keys(t0, "errors", v12_error_keys);
	j_int(t1, "index", 1);
	j_str(t1, "url", "https://b.test/rpc");
	j_int(t1, "weight", 3);
	j_real(t1, "weightShare", 0.75);
	j_real(t1, "requestShare", 52522.0 / 70022.0);
	j_int(t1, "errors/application", 10);
	j_real(t1, "latencySeconds/percentiles/p99.999", 0.249);
	j_real(t1, "latencyUncorrectedSeconds/percentiles/p99.999", 0.0299);
	json_decref(root);
	CU_ASSERT_FALSE(bad_ppm_asked);
}

/* From a 1.2 core, the warm-up comes from the run info and the results,
 * even where the extension says otherwise. */
static void test_v12_warmup(void)
{
	ext_run.warmup_ns = 9000000000ull;
	ext_run.warmup_requests = 9;
	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &v12basic_results, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data,
		"Warm-up:       1.500s, 4321 requests, not counted below\n"));
	mem_free(&m);
	CU_ASSERT_EQUAL(run_reporter(P_CSV, "noheader", &v12basic_results, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, ",0.1.0,1500000000,4321,"));
	mem_free(&m);
	ext_run.warmup_ns = ext_run.warmup_requests = 0;
}

/* Open loop short of its rate: 10000 of 80022 due never sent (12.5 %,
 * over the 5 % of docs/reports.md) is marked in text and JSON; 3 of
 * 70025 is not. A run stopped during set-up says so on its Set-up line. */
static void test_v12_shortfall(void)
{
	struct shb_results r = v12full_results;
	struct membuf m = {0};
	r.requests_unsent = 10000;
	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "\nShortfall:     12.5% of the due "
		"requests never sent (1750.6 req/s sent): the rate asked was not "
		"reached (raise -c or -p)\n"));
	mem_free(&m);
	CU_ASSERT_EQUAL(run_reporter(P_JSON, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "\"shortfall\": true"));
	mem_free(&m);
	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &v12full_results, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NULL(strstr(m.data, "Shortfall:"));
	mem_free(&m);
	r = v12basic_results;
	r.elapsed_ns = 0;
	r.load_start_unix_ns = 0;
	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "\nSet-up:        0.052s, stopped "
				      "before the load started\n"));
	mem_free(&m);
}

/* --percentiles as the core hands it over; out-of-range and unsorted
 * entries are left out rather than asked of the histogram. */
static void test_v12_percentile_list(void)
{
	static const uint32_t ppm[] = {0, 500000, 400000, 999000, 999000,
				       1000001, 999990};
	struct shb_run_info run = v12full_run;
	run.percentiles_ppm = ppm;
	run.percentile_count = 7;
	struct shb_results r = v12full_results;
	r.run = &run;
	r.targets = NULL;
	r.target_count = 0;
	json_t *root = run_json(&r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	static const char *const pk[] = {"p50", "p99.9", "p99.999", NULL};
	j_keys(root, "latencySeconds/percentiles", pk);
	json_decref(root);
	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_reporter(P_CSV, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, ",latency_max_ns,latency_p50_ns,"
				      "latency_p99_9_ns,latency_p99_999_ns,status_2xx,"));
	mem_free(&m);
	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "Latency distribution:\n"
				      "      50% in   1.500 ms\n"
				      "    99.9% in 200.000 ms\n"
				      "  99.999% in 249.000 ms\n"));
	mem_free(&m);
	CU_ASSERT_FALSE(bad_ppm_asked);
}

CU_TestInfo report_v12_tests[] = {
	{"1.1 sizes hide the 1.2 members (1.1 goldens)", test_v11_sizes_hide_v12},
	{"text v12basic (golden)", test_text_v12basic},
	{"text v12full (golden)", test_text_v12full},
	{"csv v12basic (golden)", test_csv_v12basic},
	{"csv v12full (golden)", test_csv_v12full},
	{"json v12basic (fields, golden)", test_json_v12basic},
	{"json v12full (fields, golden)", test_json_v12full},
	{"open loop shortfall, stopped in set-up", test_v12_shortfall},
	{"1.2 NULL arrays read as absent", test_v12_null_arrays},
	{"1.2 warm-up over the extension", test_v12_warmup},
	{"1.2 percentile list", test_v12_percentile_list},
	CU_TEST_INFO_NULL,
};
