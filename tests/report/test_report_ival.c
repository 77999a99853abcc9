/* The reporters over --interval samples and a comparison (ABI 1.3), with
 * their goldens (test_report.c has the rest). */
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

/* --interval: two interval deltas (the second one partial, with no
 * request ok) before the v12basic totals they add up to. JSON and CSV
 * print them after the totals; text takes none (no sample()). */
static const struct shb_hist ival_hist = {
	.count = 9989, .min = 60000, .max = 2900000, .mean = 220000,
	.stddev = 80000,
	.pct = {70000, 110000, 180000, 270000, 420000, 570000, 1000000,
		2300000, 2900000},
};
static struct shb_run_info ival_run;
static struct shb_results ival_total, ival_samples[2];

static void ival_fixture(void)
{
	ival_run = v12basic_run;
	ival_run.interval_ns = 1000000000ull;
	ival_total = v12basic_results;
	ival_total.run = &ival_run;
	static const struct shb_hist one = {
		.count = 1, .min = 50000, .max = 50000, .mean = 50000,
		.pct = {50000, 50000, 50000, 50000, 50000, 50000, 50000,
			50000, 50000},
	};
	struct shb_results a = {
		.struct_size = sizeof(struct shb_results),
		.kind = SHB_RESULTS_INTERVAL, .run = &ival_run,
		.elapsed_ns = 1000000000ull, .requests_total = 9995,
		.requests_ok = 9989, .requests_errors = 6,
		.bytes_sent = 559000, .bytes_received = 1523000,
		.latency = &ival_hist, .latency_uncorrected = &ival_hist,
		.connect = &empty_hist, .handshake = &empty_hist,
		.first_byte = &empty_hist,
		.interval_index = 0, .interval_start_ns = 0,
	};
	ival_samples[0] = a;
	a.elapsed_ns = 234000000;
	a.requests_total = 5;
	a.requests_ok = 1;
	a.requests_errors = 4;
	a.bytes_sent = 1000;
	a.bytes_received = 456;
	a.latency = a.latency_uncorrected = &one;
	a.interval_index = 1;
	a.interval_start_ns = 1000000000ull;
	ival_samples[1] = a;
}

/* create/begin/sample* /end/destroy, sample() as a reporter has it. */
static int run_with_samples(int which, const struct shb_results *total,
			    const struct shb_results *samples, size_t n,
			    struct membuf *m)
{
	const struct shb_report_desc *d = ready(which);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	struct shb_ostream os = {
		.struct_size = sizeof(os), .is_terminal = 0, .ctx = m,
		.write = mem_write,
	};
	void *rep = NULL;
	char err[256] = "";
	int rc = d->vt->create(&host, &os, NULL, &rep, err, sizeof(err));
	if (rc != SHB_OK)
		return rc;
	rc = d->vt->begin(rep, total->run);
	for (size_t i = 0; rc == SHB_OK && d->vt->sample && i < n; i++)
		rc = d->vt->sample(rep, &samples[i]);
	if (rc == SHB_OK)
		rc = d->vt->end(rep, total);
	d->vt->destroy(rep);
	return rc;
}

static void test_intervals(void)
{
	ival_fixture();
	/* Neither asks for samples by default: --interval turns them on. */
	CU_ASSERT_EQUAL(ready(P_JSON)->flags & SHB_REPORT_WANTS_INTERVALS, 0);
	CU_ASSERT_EQUAL(ready(P_CSV)->flags & SHB_REPORT_WANTS_INTERVALS, 0);
	CU_ASSERT_PTR_NULL(ready(P_TEXT)->vt->sample);
	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_with_samples(P_CSV, &ival_total, ival_samples, 2, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	check_golden(&m, "intervals.csv");
	mem_free(&m);
	memset(&m, 0, sizeof(m));
	CU_ASSERT_EQUAL(run_with_samples(P_JSON, &ival_total, ival_samples, 2, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	check_golden(&m, "intervals.json");
	json_t *root = json_loadb(m.data, m.len, 0, NULL);
	mem_free(&m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	json_t *iv = json_object_get(root, "intervals");
	CU_ASSERT_EQUAL_FATAL(json_array_size(iv), 2);
	json_t *a = json_array_get(iv, 0), *b = json_array_get(iv, 1);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(a, "ok")) +
			json_integer_value(json_object_get(b, "ok")), 9990);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(a, "errors")) +
			json_integer_value(json_object_get(b, "errors")), 10);
	j_int(a, "index", 0);
	j_int(b, "index", 1);
	j_real(b, "startSeconds", 1.0);
	j_real(b, "durationSeconds", 0.234);
	j_real(a, "requestsPerSec", 9989.0);
	j_real(a, "latency/p99", 0.001);
	j_real(a, "latency/max", 0.0029);
	j_real(b, "latency/p50", 0.00005);
	json_decref(root);
	/* A sample() that is not an interval is refused. */
	const struct shb_report_desc *d = ready(P_JSON);
	struct shb_ostream os = {.struct_size = sizeof(os), .ctx = &m,
				 .write = mem_write};
	void *rep = NULL;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(d->vt->create(&host, &os, NULL, &rep, err, sizeof(err)), SHB_OK);
	CU_ASSERT_EQUAL(d->vt->sample(rep, &ival_total), SHB_E_INVAL);
	d->vt->destroy(rep);
	mem_free(&m);
}

/* ---- a comparison (ABI 1.3) ----------------------------------------------------------- */

/* Two runs of one instance, as the core drives a comparison: create,
 * (begin, end) for each of the `n` runs given, destroy. `count` is the
 * comparison's size, so n < count is one cut short. */
static int run_compare(int which, const char *options,
		       const struct shb_results *const *r, uint32_t n,
		       struct membuf *m)
{
	const struct shb_report_desc *d = ready(which);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	struct shb_ostream os = {.struct_size = sizeof(os), .ctx = m,
				 .write = mem_write};
	void *rep = NULL;
	char err[256] = "";
	int rc = d->vt->create(&host, &os, options, &rep, err, sizeof(err));
	for (uint32_t i = 0; rc == SHB_OK && i < n; i++) {
		rc = d->vt->begin(rep, r[i]->run);
		if (rc == SHB_OK)
			rc = d->vt->end(rep, r[i]);
	}
	if (rep)
		d->vt->destroy(rep);
	return rc;
}

static struct shb_run_info cmp_run[2];
static struct shb_results cmp_res[2];
static const struct shb_hist cmp_hist2 = {
	.count = 5000, .min = 90000, .max = 9000000, .mean = 400000,
	.stddev = 200000,
	.pct = {100000, 150000, 300000, 450000, 700000, 900000, 2000000,
		5000000, 9000000},
};

/* bun then node: v12basic twice, the second slower with bigger headers. */
static void cmp_fixture(uint32_t count)
{
	static const char *const labels[2] = {"bun", "node"};
	static const char *const urls[2] = {"http://127.0.0.1:3000/",
					    "http://127.0.0.1:3001/"};
	for (int i = 0; i < 2; i++) {
		cmp_run[i] = v12basic_run;
		cmp_run[i].url = urls[i];
		cmp_run[i].label = labels[i];
		cmp_run[i].compare_index = (uint32_t)i;
		cmp_run[i].compare_count = count;
		cmp_res[i] = v12basic_results;
		cmp_res[i].run = &cmp_run[i];
	}
	cmp_res[1].requests_ok = 5000;
	cmp_res[1].requests_total = 5000;
	cmp_res[1].requests_errors = 0;
	cmp_res[1].error_count = 0;
	cmp_res[1].error_ex_count = 0;
	cmp_res[1].error_code_count = 0;
	cmp_res[1].status_count = 0;
	cmp_res[1].latency = &cmp_hist2;
	cmp_res[1].latency_uncorrected = &cmp_hist2;
	cmp_res[1].rx_header_bytes = 5000 * 151;
	cmp_res[1].rx_body_bytes = 5000 * 12;
	cmp_res[1].interrupted = 1;
}

static void test_compare(void)
{
	static const char *const golden[P_COUNT] = {"compare.txt", "compare.json",
						    "compare.csv"};
	const struct shb_results *r[2] = {&cmp_res[0], &cmp_res[1]};
	struct membuf m = {0};

	cmp_fixture(2);
	for (int p = 0; p < P_COUNT; p++) {
		memset(&m, 0, sizeof(m));
		CU_ASSERT_EQUAL(run_compare(p, NULL, r, 2, &m), SHB_OK);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
		check_golden(&m, golden[p]);
		mem_free(&m);
	}
	/* JSON: one array of the two documents, each with its place. */
	CU_ASSERT_EQUAL(run_compare(P_JSON, NULL, r, 2, &m), SHB_OK);
	json_t *root = json_loadb(m.data, m.len, 0, NULL);
	mem_free(&m);
	CU_ASSERT_FATAL(json_is_array(root) && json_array_size(root) == 2);
	json_t *a = json_array_get(root, 0), *b = json_array_get(root, 1);
	j_str(a, "label", "bun");
	j_int(a, "compare/index", 0);
	j_int(a, "compare/count", 2);
	j_str(b, "label", "node");
	j_int(b, "compare/index", 1);
	j_real(b, "rxHeaderBytesPerResponse", 151.0);
	json_decref(root);
	/* compact: the array on one line. */
	CU_ASSERT_EQUAL(run_compare(P_JSON, "compact", r, 2, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_EQUAL(m.data[0], '[');
	CU_ASSERT_PTR_EQUAL(strchr(m.data, '\n'), m.data + m.len - 1);
	root = json_loadb(m.data, m.len, 0, NULL);
	CU_ASSERT(json_is_array(root) && json_array_size(root) == 2);
	json_decref(root);
	mem_free(&m);

	/* Cut short after the first of three: the array is closed, the
	 * table holds the run that ended. */
	cmp_fixture(3);
	CU_ASSERT_EQUAL(run_compare(P_JSON, NULL, r, 1, &m), SHB_OK);
	root = json_loadb(m.data, m.len, 0, NULL);
	CU_ASSERT(json_is_array(root) && json_array_size(root) == 1);
	json_decref(root);
	mem_free(&m);
	CU_ASSERT_EQUAL(run_compare(P_TEXT, NULL, r, 1, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "== Run 1 of 3 ==\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "\nComparison (1 runs, one after another):\n"));
	mem_free(&m);

	/* Outside a comparison (count 0 or 1) nothing changes: no array, no
	 * compare key, no heading. */
	cmp_fixture(1);
	CU_ASSERT_EQUAL(run_compare(P_JSON, NULL, r, 1, &m), SHB_OK);
	root = json_loadb(m.data, m.len, 0, NULL);
	CU_ASSERT(json_is_object(root) && !json_object_get(root, "compare"));
	json_decref(root);
	mem_free(&m);
	CU_ASSERT_EQUAL(run_compare(P_TEXT, NULL, r, 1, &m), SHB_OK);
	CU_ASSERT_PTR_NULL(strstr(m.data, "== Run"));
	CU_ASSERT_PTR_NULL(strstr(m.data, "Comparison"));
	mem_free(&m);
}

CU_TestInfo report_ival_tests[] = {
	{"intervals (csv, json goldens)", test_intervals},
	{"a comparison (1.3; goldens)", test_compare},
	CU_TEST_INFO_NULL,
};
