/* The json reporter over a long --interval run: what it keeps per
 * interval until end() stays small (the intervals' histogram exports wait
 * in a temporary file, report_spool.h), and the report is byte for byte
 * the one it writes when they are kept in memory (no usable $TMPDIR).
 *
 * The reporter is found by the core's loader and reads the core's own
 * histograms, so that each interval's export is a real one of a few KB.
 * SHB_REPORT_PLUGIN_DIR (set by meson) is the build directory of
 * plugins/reporters. */
#include <malloc.h>
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

#if defined(__SANITIZE_ADDRESS__)
/* The sanitizer runtime's count (its allocator_interface.h ships with
 * clang, not with gcc). */
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

#define NIVALS 400
#define NVALUES 3000

/* Bytes the process has allocated and not freed: the sanitizer's count
 * under ASan (it replaces malloc), glibc's otherwise. */
static size_t heap_in_use(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return __sanitizer_get_current_allocated_bytes();
#else
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
#endif
}

static struct shb_loader loader;
static struct shb_histo histo;

static int suite_init(void)
{
	if (rep_loader_init(&loader) < 0)
		return -1;
	return shb_histo_init(&histo, 60000000000ull, 3);
}

static int suite_clean(void)
{
	shb_loader_fini(&loader);
	shb_histo_destroy(&histo);
	return 0;
}

static struct shb_run_info run = {
	.struct_size = sizeof(struct shb_run_info),
	.threads = 1, .connections = 1000, .parallel = 1,
	.shb_version = "0.1.0", .url = "http://127.0.0.1:8080/",
	.method = "GET", .proto_name = "h1", .proto_display = "HTTP/1.1",
	.duration_target_ns = NIVALS * 1000000000ull,
	.interval_ns = 1000000000ull,
};

/* Interval i: NVALUES latencies from 100 us to about 20 ms, shifted per
 * interval so that no two exports are alike. */
static void fill_interval(uint32_t i)
{
	shb_histo_reset(&histo);
	for (uint64_t k = 0; k < NVALUES; k++)
		shb_histo_record(&histo, 100000 + k * 6637 + i * 13);
}

static struct shb_results interval_results(uint32_t i)
{
	return (struct shb_results){
		.struct_size = sizeof(struct shb_results),
		.kind = SHB_RESULTS_INTERVAL, .run = &run,
		.elapsed_ns = 1000000000ull, .requests_total = NVALUES,
		.requests_ok = NVALUES, .latency = shb_histo_abi(&histo),
		.interval_index = i, .interval_start_ns = i * 1000000000ull,
	};
}

/* One run of NIVALS intervals. *per_ival receives the heap the reporter
 * kept per interval between the 50th sample and the last. */
static int run_intervals(struct membuf *m, double *per_ival)
{
	struct shb_report_handle h;
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(shb_loader_report(&loader, "json", &h, err,
						sizeof(err)), 0);
	struct shb_ostream os = {sizeof(os), 0, m, membuf_write};
	void *rep = NULL;
	int rc = h.vt.create(&rep_host, &os, NULL, &rep, err, sizeof(err));
	CU_ASSERT_EQUAL_FATAL(rc, SHB_OK);
	rc = h.vt.begin(rep, &run);
	size_t at50 = 0;
	for (uint32_t i = 0; rc == SHB_OK && i < NIVALS; i++) {
		fill_interval(i);
		struct shb_results r = interval_results(i);
		rc = h.vt.sample(rep, &r);
		if (i == 49)
			at50 = heap_in_use();
	}
	*per_ival = ((double)heap_in_use() - (double)at50) / (NIVALS - 50);
	shb_histo_reset(&histo);
	const struct shb_results total = {
		.struct_size = sizeof(total), .kind = SHB_RESULTS_TOTAL,
		.run = &run, .elapsed_ns = NIVALS * 1000000000ull,
		.requests_total = (uint64_t)NIVALS * NVALUES,
		.requests_ok = (uint64_t)NIVALS * NVALUES,
		.latency = shb_histo_abi(&histo),
	};
	if (rc == SHB_OK)
		rc = h.vt.end(rep, &total);
	h.vt.destroy(rep);
	return rc;
}

/* Every interval's export decodes to exactly what was recorded in it. */
static void check_exports(const char *doc)
{
	json_t *root = json_loads(doc, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	json_t *iv = json_object_get(root, "intervals");
	CU_ASSERT_EQUAL_FATAL(json_array_size(iv), NIVALS);
	int same = 1;
	for (uint32_t i = 0; i < NIVALS; i++) {
		const char *b64 = json_string_value(json_object_get(
			json_array_get(iv, i), "latencyHistogram"));
		CU_ASSERT_PTR_NOT_NULL_FATAL(b64);
		struct shb_hdr_counts c;
		char err[160] = "";
		CU_ASSERT_EQUAL_FATAL(shb_hdr_counts_init(&c), 0);
		CU_ASSERT_EQUAL(shb_hdr_decode(b64, &c, err, sizeof(err)), 0);
		fill_interval(i);
		same &= c.total == NVALUES;
		for (int32_t k = 0; k < histo.counts_len; k++)
			same &= c.counts[k] == histo.counts[k];
		shb_hdr_counts_free(&c);
	}
	CU_ASSERT_TRUE(same);
	json_decref(root);
}

static void test_intervals_spooled(void)
{
	char *saved = getenv("TMPDIR");
	saved = saved ? strdup(saved) : NULL;
	struct membuf spooled = {0}, kept = {0};
	double per_spooled, per_kept;

	unsetenv("TMPDIR"); /* /tmp */
	CU_ASSERT_EQUAL(run_intervals(&spooled, &per_spooled), SHB_OK);
	/* No temporary file possible: kept in memory, as before. */
	setenv("TMPDIR", "/nonexistent/shb-test-spool", 1);
	CU_ASSERT_EQUAL(run_intervals(&kept, &per_kept), SHB_OK);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);

	CU_ASSERT_PTR_NOT_NULL_FATAL(spooled.data);
	CU_ASSERT_PTR_NOT_NULL_FATAL(kept.data);
	/* The same report, byte for byte. */
	CU_ASSERT_EQUAL(spooled.len, kept.len);
	CU_ASSERT_TRUE(spooled.len == kept.len &&
		       memcmp(spooled.data, kept.data, kept.len) == 0);
	check_exports(spooled.data);
	/* Each export is a few KB; spooled, an interval keeps its record
	 * (112 bytes, in an array that doubles) and no more. */
	fprintf(stderr, "\n  heap per interval: %.0f bytes spooled, %.0f in memory\n",
		per_spooled, per_kept);
	CU_ASSERT_TRUE(per_kept > 2000);
	CU_ASSERT_TRUE(per_spooled < 256);
	free(spooled.data);
	free(kept.data);
}

static CU_TestInfo spool_tests[] = {
	{"json keeps interval exports out of memory, same report",
	 test_intervals_spooled},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"report-spool", suite_init, suite_clean, NULL, NULL, spool_tests},
	CU_SUITE_INFO_NULL,
};
