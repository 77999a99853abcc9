/* Unit tests for shb merge (core/results/merge.c): merges that must equal
 * the histogram of the union bucket for bucket, intervals on the wall
 * clock, hostile reports, and every refusal word for word (test_hdr.c:
 * the HdrHistogram export they carry). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include <jansson.h>

#include "common/hdrv2.h"
#include "results/merge.h"
#include "cli/percentiles.h"
#include "merge_fx.h"

/* Deterministic values over six decades. */
static uint64_t next_value(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	uint64_t r = *state >> 33;
	static const uint64_t scale[] = {1, 10, 1000, 100000, 10000000, 1000000000};
	return 1 + r % 1000 * scale[r % 6];
}

static void test_merge_exact(void)
{
	struct shb_histo a, b, all;
	mt_new_histo(&a);
	mt_new_histo(&b);
	mt_new_histo(&all);
	uint64_t st = 42;
	for (int i = 0; i < 30000; i++) {
		uint64_t v = next_value(&st);
		shb_histo_record(i % 3 ? &a : &b, v);
		shb_histo_record(&all, v);
	}
	json_t *ja = mt_report(&a, 3, "http://x/", 4), *jb = mt_report(&b, 2, "http://x/", 4);
	json_object_set_new(jb, "startTime", json_string("2026-01-02T03:04:06.007Z"));
	struct shb_merge m;
	char err[SHB_MERGE_TEXT] = "";
	CU_ASSERT_EQUAL_FATAL(shb_merge_init(&m), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "a.json", ja, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "b.json", jb, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	const struct shb_histo *h = &m.stats.latency;
	int same = 1;
	for (int32_t i = 0; i < all.counts_len; i++)
		same &= h->counts[i] == all.counts[i];
	CU_ASSERT_TRUE(same);
	CU_ASSERT_EQUAL(h->total, 30000);
	CU_ASSERT_EQUAL(shb_histo_min(h), shb_histo_min(&all));
	CU_ASSERT_EQUAL(shb_histo_max(h), shb_histo_max(&all));
	static const uint32_t ppm[] = {1, 100000, 500000, 900000, 990000, 999000,
				       999900, 999990, 1000000};
	for (size_t i = 0; i < sizeof(ppm) / sizeof(ppm[0]); i++)
		CU_ASSERT_EQUAL(shb_histo_value_at_ppm(h, ppm[i]),
				shb_histo_value_at_ppm(&all, ppm[i]));
	/* mean and stddev come from the reports' rounded figures */
	CU_ASSERT_TRUE(llabs((long long)shb_histo_mean(h) - (long long)shb_histo_mean(&all)) <= 1);
	uint64_t sd = shb_histo_stddev(&all);
	CU_ASSERT_TRUE(llabs((long long)shb_histo_stddev(h) - (long long)sd) <= (long long)(sd / 1000000 + 1));

	/* the counters add up, and the results say so */
	struct shb_results_buf rb;
	struct shb_run_info info;
	struct shb_target_info target;
	shb_merge_results(&m, &rb, &info, &target, NULL, 0);
	CU_ASSERT_EQUAL(rb.r.requests_ok, 30000);
	CU_ASSERT_EQUAL(rb.r.requests_errors, 5);
	CU_ASSERT_EQUAL(rb.r.requests_total, 30005);
	CU_ASSERT_EQUAL(rb.r.bytes_received, 100 * 30000);
	CU_ASSERT_EQUAL(rb.r.bytes_sent, 40 * 30005);
	CU_ASSERT_EQUAL(rb.r.connections_opened, 8);
	CU_ASSERT_EQUAL(rb.r.status_count, 1);
	CU_ASSERT_EQUAL(rb.r.statuses[0].count, 30000);
	CU_ASSERT_EQUAL(rb.r.error_ex_count, 1);
	CU_ASSERT_EQUAL(rb.r.errors_ex[0].kind, SHB_ERRK_TIMEOUT);
	CU_ASSERT_EQUAL(rb.r.errors_ex[0].count, 5);
	CU_ASSERT_STRING_EQUAL(rb.r.errors_ex[0].sample, "request timed out");
	CU_ASSERT_EQUAL(rb.r.elapsed_ns, 1500000000);
	CU_ASSERT_EQUAL(info.requests_target, 30005);
	CU_ASSERT_EQUAL(info.connections, 8);
	CU_ASSERT_EQUAL(info.start_unix_ns, 1767323045250000000ull);
	CU_ASSERT_EQUAL(m.start_max_ns, 1767323046007000000ull);
	CU_ASSERT_STRING_EQUAL(info.url, "http://x/");
	shb_merge_fini(&m);
	json_decref(ja);
	json_decref(jb);
	shb_histo_destroy(&a);
	shb_histo_destroy(&b);
	shb_histo_destroy(&all);
}


static void test_merge_refused(void)
{
	struct shb_histo h;
	mt_new_histo(&h);
	shb_histo_record(&h, 1000);
	shb_histo_record(&h, 5000);
	json_t *a = mt_report(&h, 0, "http://x/", 4);
	static const struct {
		const char *key;
		const char *json; /* the new value */
		const char *want;
	} cases[] = {
		{"url", "\"http://y/\"", "b.json: url is \"http://y/\", but \"http://x/\" in a.json (merge needs runs with the same options)"},
		{"method", "\"POST\"", "b.json: method is \"POST\", but \"GET\" in a.json (merge needs runs with the same options)"},
		{"protocolName", "\"h2\"", "b.json: protocolName is \"h2\", but \"h1\" in a.json (merge needs runs with the same options)"},
		{"parallel", "8", "b.json: parallel is 8, but 1 in a.json (merge needs runs with the same options)"},
		{"tls", "true", "b.json: tls is true, but false in a.json (merge needs runs with the same options)"},
		{"tlsVerify", "\"system\"", "b.json: tlsVerify is \"system\", but \"none\" in a.json (merge needs runs with the same options)"},
		{"durationTargetSeconds", "10.0", "b.json: durationTargetSeconds is 10.0, but null in a.json (merge needs runs with the same options)"},
		{"warmupSeconds", "1.0", "b.json: warmupSeconds is 1.0, but 0.0 in a.json (merge needs runs with the same options)"},
		{"label", "\"x\"", "b.json: label is \"x\", but null in a.json (merge needs runs with the same options)"},
		{"connections", "5", "b.json: connections is 5, but 4 in a.json (merge needs runs with the same options)"},
		{"openLoop", "{\"rateTarget\": 100.0, \"stages\": []}", "b.json: openLoop.rateTarget is 100.0, but absent in a.json (merge needs runs with the same options)"},
		{"shard", "{\"index\": 1, \"count\": 2}", "b.json: shard.count is 2, but absent in a.json (merge needs runs with the same options)"},
		{"schemaVersion", "2", "b.json: not an shb JSON report (schemaVersion 1)"},
		{"targets", "[{\"index\": 0}]", "b.json: a report of several targets (merge takes runs of one target)"},
		{"latencyHistogram", "null", "b.json: no latencyHistogram (a report of an shb without histogram export?)"},
		{"latencyHistogram", "\"HISTFAAAAQAA\"", "b.json: latencyHistogram: compressed length beyond the data"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *b = json_deep_copy(a);
		json_object_set_new(b, cases[i].key,
				    json_loads(cases[i].json, JSON_DECODE_ANY, NULL));
		mt_refused(a, b, cases[i].want);
		json_decref(b);
	}
	/* a histogram that is not the one of requests.ok */
	json_t *b = json_deep_copy(a);
	json_object_set_new(json_object_get(b, "requests"), "ok", json_integer(3));
	mt_refused(a, b, "b.json: latencyHistogram holds 2 values, requests.ok is 3");
	json_decref(b);
	/* a min the histogram cannot hold */
	b = json_deep_copy(a);
	json_object_set_new(json_object_get(b, "latencySeconds"), "min", json_real(2e-6));
	mt_refused(a, b, "b.json: latencyHistogram does not hold the min and max the report gives");
	json_decref(b);
	/* sharded runs may split -c, but not differ in their shard count */
	json_t *s1 = json_deep_copy(a), *s2 = json_deep_copy(a);
	json_object_set_new(s1, "shard", json_pack("{s:i, s:i}", "index", 0, "count", 2));
	json_object_set_new(s2, "shard", json_pack("{s:i, s:i}", "index", 1, "count", 2));
	json_object_set_new(s2, "connections", json_integer(3));
	struct shb_merge m;
	char err[SHB_MERGE_TEXT] = "";
	CU_ASSERT_EQUAL_FATAL(shb_merge_init(&m), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "s1", s1, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "s2", s2, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(m.connections, 7);
	shb_merge_fini(&m);
	json_decref(s1);
	json_decref(s2);
	json_decref(a);
	shb_histo_destroy(&h);
}

/* ---- intervals on the wall clock, a line per report -------------------------- */

/* One interval as the json reporter writes it: `vals` ok requests. */
static json_t *interval(int index, double start, const uint64_t *vals, size_t n)
{
	struct shb_histo h;
	mt_new_histo(&h);
	for (size_t i = 0; i < n; i++)
		shb_histo_record(&h, vals[i]);
	char *b64 = mt_encode_histo(&h);
	json_t *o = json_pack("{s:i, s:f, s:f, s:I, s:i, s:f, s:i, s:i, s:{s:f}, s:s}",
		"index", index, "startSeconds", start, "durationSeconds", 1.0,
		"ok", (json_int_t)n, "errors", index, "requestsPerSec", (double)n,
		"bytesSent", 10, "bytesReceived", 20,
		"latency", "max", (double)shb_histo_max(&h) / 1e9,
		"latencyHistogram", b64);
	free(b64);
	shb_histo_destroy(&h);
	return o;
}

static const uint64_t iv_a[3][3] = {{1000, 2000, 3000}, {4000, 5000, 6000},
				     {7000, 8000, 900000}};
static const uint64_t iv_b[2][3] = {{10000, 20000, 30000}, {1500, 2500, 3500}};

/* Shard a loads from 03:04:05.5, shard b 2.2 s later: b's first interval
 * lies over a's third on the wall clock, not over a's first. */
static void test_merge_wall_clock(void)
{
	struct shb_histo h;
	mt_new_histo(&h);
	shb_histo_record(&h, 1000);
	json_t *a = mt_report(&h, 0, "http://x/", 4), *b = mt_report(&h, 0, "http://x/", 4);
	json_object_set_new(a, "shard", json_pack("{s:i, s:i}", "index", 0, "count", 2));
	json_object_set_new(b, "shard", json_pack("{s:i, s:i}", "index", 1, "count", 2));
	json_object_set_new(a, "loadStart", json_string("2026-01-02T03:04:05.500000000Z"));
	/* b: no loadStart (a core before 1.3): startTime + setupSeconds */
	json_object_set_new(b, "startTime", json_string("2026-01-02T03:04:06.250Z"));
	json_object_set_new(b, "setupSeconds", json_real(1.45));
	json_object_set_new(a, "requestsPerSec", json_real(12.5));
	json_object_set_new(a, "latencySeconds", json_pack("{s:f, s:f, s:{s:f, s:f}}",
		"min", 1e-6, "max", 1e-6, "percentiles", "p50", 1e-6, "p99", 1e-6));
	json_t *ia = json_array(), *ib = json_array();
	for (int i = 0; i < 3; i++)
		json_array_append_new(ia, interval(i, i, iv_a[i], 3));
	for (int i = 0; i < 2; i++)
		json_array_append_new(ib, interval(i, i, iv_b[i], 3));
	json_object_set_new(a, "intervals", ia);
	json_object_set_new(b, "intervals", ib);
	CU_ASSERT_EQUAL(shb_merge_load_start(b), 1767323047700000000ull);

	struct shb_merge m;
	char err[SHB_MERGE_TEXT] = "";
	CU_ASSERT_EQUAL_FATAL(shb_merge_init(&m), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "a.json", a, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "b.json", b, err, sizeof(err)), 0);
	json_t *out = json_object();
	CU_ASSERT_EQUAL(shb_merge_extend(&m, out, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(out, "loadStart")),
			       "2026-01-02T03:04:05.500000000Z");
	CU_ASSERT_DOUBLE_EQUAL(json_number_value(json_object_get(out, "startSkewSeconds")),
			       2.2, 1e-9);

	/* bins of 1 s from a's start: a0, a1, a2 + b0, b1 */
	json_t *iv = json_object_get(out, "intervals");
	CU_ASSERT_EQUAL_FATAL(json_array_size(iv), 4);
	static const json_int_t ok[] = {3, 3, 6, 3}, errs[] = {0, 1, 2, 1};
	for (size_t k = 0; k < 4; k++) {
		json_t *v = json_array_get(iv, k);
		CU_ASSERT_EQUAL(json_integer_value(json_object_get(v, "index")), (json_int_t)k);
		CU_ASSERT_DOUBLE_EQUAL(json_number_value(json_object_get(v, "startSeconds")),
				       (double)k, 1e-12);
		CU_ASSERT_EQUAL(json_integer_value(json_object_get(v, "ok")), ok[k]);
		CU_ASSERT_EQUAL(json_integer_value(json_object_get(v, "errors")), errs[k]);
		CU_ASSERT_EQUAL(json_integer_value(json_object_get(v, "bytesSent")),
				k == 2 ? 20 : 10);
	}
	/* bin 2's latency: the percentiles of a2's and b0's values together,
	 * by the core's own rule on their union */
	struct shb_histo u;
	mt_new_histo(&u);
	for (int i = 0; i < 3; i++) {
		shb_histo_record(&u, iv_a[2][i]);
		shb_histo_record(&u, iv_b[0][i]);
	}
	json_t *lat = json_object_get(json_array_get(iv, 2), "latency");
	static const char *const keys[] = {"p50", "p90", "p99", "max"};
	static const uint32_t ppm[] = {500000, 900000, 990000, 1000000};
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL((uint64_t)llround(json_number_value(
			json_object_get(lat, keys[i])) * 1e9),
			shb_histo_value_at_ppm(&u, ppm[i]));
	CU_ASSERT_EQUAL((uint64_t)llround(json_number_value(json_object_get(lat, "p50")) * 1e9), 10000 + 7);
	CU_ASSERT_EQUAL((uint64_t)llround(json_number_value(json_object_get(lat, "max")) * 1e9), 900000);
	shb_histo_destroy(&u);

	/* a line per report */
	json_t *parts = json_object_get(out, "shards");
	CU_ASSERT_EQUAL_FATAL(json_array_size(parts), 2);
	json_t *p1 = json_array_get(parts, 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p1, "file")), "b.json");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(p1, "shard"), "index")), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p1, "loadStart")),
			       "2026-01-02T03:04:07.700000000Z");
	CU_ASSERT_DOUBLE_EQUAL(json_number_value(json_object_get(p1, "startOffsetSeconds")),
			       2.2, 1e-9);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(p1, "requests")), 1);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	shb_merge_text(&m, f);
	fclose(f);
	const char *want =
		"Shards:       2 reports merged, start skew 2200.000 ms (load starts, as each machine's clock says)\n"
		"  0/2                1 requests        0 errors         12.5/s  p50 0.001 ms  p99 0.001 ms  start +0.000 ms  a.json\n"
		"  1/2                1 requests        0 errors          0.0/s  p50 0.000 ms  p99 0.000 ms  start +2200.000 ms  b.json\n";
	CU_ASSERT_STRING_EQUAL(text, want);
	if (strcmp(text, want))
		fprintf(stderr, "\ngot:\n%s", text);
	free(text);
	json_decref(out);
	shb_merge_fini(&m);

	/* one report: "1 report merged", not "1 reports" */
	CU_ASSERT_EQUAL_FATAL(shb_merge_init(&m), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "a.json", a, err, sizeof(err)), 0);
	f = open_memstream(&text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	shb_merge_text(&m, f);
	fclose(f);
	CU_ASSERT_EQUAL(strncmp(text, "Shards:       1 report merged, start skew 0.000 ms", 50), 0);
	free(text);
	shb_merge_fini(&m);
	json_decref(a);
	json_decref(b);
	shb_histo_destroy(&h);
}

/* ---- hostile reports ------------------------------------------------------------ */

/* Numbers no run writes: read as absent or refused, never wrapped. */
static void test_merge_hostile_numbers(void)
{
	struct shb_histo h;
	mt_new_histo(&h);
	shb_histo_record(&h, 1000);
	shb_histo_record(&h, 5000);
	json_t *a = mt_report(&h, 0, "http://x/", 4);
	/* a status key that would add to 200 a second time */
	json_t *b = json_deep_copy(a);
	json_object_set_new(json_object_get(b, "statusCodes"), "0200", json_integer(1));
	mt_refused(a, b, "b.json: status code \"0200\"");
	json_decref(b);
	/* counts whose sum over the reports passes 2^63 */
	json_t *big = json_deep_copy(a);
	json_object_set_new(big, "bytesReceived", json_integer(INT64_MAX / 2));
	b = json_deep_copy(big);
	json_object_set_new(b, "bytesSent", json_integer(1000));
	struct shb_merge m;
	char err[SHB_MERGE_TEXT] = "";
	CU_ASSERT_EQUAL_FATAL(shb_merge_init(&m), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "a.json", big, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "b.json", b, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "b.json: counts too large to merge (their sum "
			       "with the other reports' passes 2^63)");
	CU_ASSERT_EQUAL(m.files, 1);
	CU_ASSERT_EQUAL(m.stats.bytes_recv, INT64_MAX / 2);
	shb_merge_fini(&m);
	json_decref(b);
	json_decref(big);
	/* errors by kind that wrap around to requests.errors */
	b = json_deep_copy(a);
	json_object_set_new(json_object_get(b, "requests"), "errors", json_integer(2));
	json_object_set_new(b, "errors", json_pack("{s:I, s:I, s:I}", "connect",
		(json_int_t)INT64_MAX, "tls", (json_int_t)INT64_MAX, "read", (json_int_t)4));
	mt_refused(a, b, "b.json: errors: counts whose sum passes 2^63");
	json_decref(b);
	/* a negative rate, seconds and a start time beyond any run's */
	json_t *s1 = json_deep_copy(a), *s2 = json_deep_copy(a);
	json_object_set_new(s1, "shard", json_pack("{s:i, s:i}", "index", 0, "count", 2));
	json_object_set_new(s2, "shard", json_pack("{s:i, s:i}", "index", 1, "count", 2));
	json_object_set_new(s1, "openLoop", json_pack("{s:f}", "rateTarget", 100.0));
	json_object_set_new(s2, "openLoop", json_pack("{s:f}", "rateTarget", -5.0));
	json_object_set_new(s2, "durationSeconds", json_real(1e12));
	json_object_set_new(s2, "startTime", json_string("2600-01-01T00:00:00Z"));
	CU_ASSERT_EQUAL_FATAL(shb_merge_init(&m), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "s1", s1, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "s2", s2, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(m.rate_milli, 100000);
	CU_ASSERT_EQUAL(m.elapsed_ns, 1500000000);
	CU_ASSERT_EQUAL(m.start_max_ns, 1767323045250000000ull);
	shb_merge_fini(&m);
	CU_ASSERT_EQUAL(shb_merge_time_of("2600-01-01T00:00:00Z"), 0);
	CU_ASSERT_EQUAL(shb_merge_time_of("2199-12-31T23:59:59.5Z"),
			7258118399500000000ull);
	json_decref(s1);
	json_decref(s2);
	json_decref(a);
	shb_histo_destroy(&h);
}

/* Two reports with intervals, for extend: a's from `a_iv`, b's from b_iv. */
static int extend_two(json_t *a_iv, json_t *b_iv, json_t **out, char *err,
		      size_t errlen)
{
	struct shb_histo h;
	mt_new_histo(&h);
	shb_histo_record(&h, 1000);
	json_t *a = mt_report(&h, 0, "http://x/", 4), *b = mt_report(&h, 0, "http://x/", 4);
	json_object_set_new(a, "loadStart", json_string("2026-01-02T03:04:05.5Z"));
	json_object_set_new(b, "loadStart", json_string("2026-01-02T03:04:05.5Z"));
	json_object_set_new(a, "intervals", a_iv);
	json_object_set_new(b, "intervals", b_iv);
	struct shb_merge m;
	CU_ASSERT_EQUAL_FATAL(shb_merge_init(&m), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "a.json", a, err, errlen), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "b.json", b, err, errlen), 0);
	*out = json_object();
	int rc = shb_merge_extend(&m, *out, err, errlen);
	shb_merge_fini(&m);
	json_decref(a);
	json_decref(b);
	shb_histo_destroy(&h);
	return rc;
}

static void test_merge_hostile_intervals(void)
{
	/* an interval placed 150000 s after its run's start: as many empty
	 * intervals of 1 s, 270 KB cleared for each, once */
	json_t *ia = json_array(), *ib = json_array(), *out;
	for (int i = 0; i < 2; i++)
		json_array_append_new(ia, interval(i, i, iv_a[i], 3));
	json_array_append_new(ia, interval(2, 150000.0, iv_a[2], 3));
	json_array_append_new(ib, interval(0, 0, iv_b[0], 3));
	char err[SHB_MERGE_TEXT] = "";
	CU_ASSERT_EQUAL(extend_two(ia, ib, &out, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "a.json: intervals: interval 2 would be the "
			       "merged series' interval 150000 of 1.000 s (at most "
			       "100000: reports too far apart, or an interval far "
			       "beyond its run)");
	json_decref(out);
	/* ok counts whose sum in one bin passes 2^63, each with a histogram
	 * that holds it */
	const int64_t words[] = {-1000, INT64_MAX};
	const char *hist = mt_wrap_words(words, 2);
	ia = json_array();
	ib = json_array();
	json_array_append_new(ia, json_pack("{s:i, s:f, s:f, s:I, s:s}", "index", 0,
		"startSeconds", 0.0, "durationSeconds", 1.0, "ok", (json_int_t)INT64_MAX,
		"latencyHistogram", hist));
	json_array_append_new(ib, json_deep_copy(json_array_get(ia, 0)));
	err[0] = '\0';
	CU_ASSERT_EQUAL(extend_two(ia, ib, &out, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "b.json: intervals: counts whose sum passes 2^63");
	json_decref(out);
}


CU_TestInfo merge_tests[] = {
	{"two reports merge into the union, bucket for bucket", test_merge_exact},
	{"mismatched runs are refused", test_merge_refused},
	{"intervals on the wall clock, a line per report", test_merge_wall_clock},
	{"numbers no run writes", test_merge_hostile_numbers},
	{"intervals no run writes", test_merge_hostile_intervals},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"hdr", NULL, NULL, NULL, NULL, hdr_tests},
	{"merge", NULL, NULL, NULL, NULL, merge_tests},
	CU_SUITE_INFO_NULL,
};
