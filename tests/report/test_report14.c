/* The reporters with a fabricated ABI 1.4 run (fixture14.h): a protocol
 * without HTTP requests that names its outcomes, error replies, a proxy,
 * --connect-to, --resolve and --source. Text, JSON and CSV compared byte
 * for byte with golden/v14none.* and golden/v14mix.* (JSON also field by
 * field), html and hgrm by what they must and must not say.
 *
 * Environment (set by meson): SHB_REPORT_PLUGIN_DIR, SHB_REPORT_GOLDEN_DIR.
 * SHB_REPORT_UPDATE_GOLDEN=1 rewrites the golden files from the output
 * (review the diff before committing). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include <jansson.h>

#include "common/hdrv2.h"
#include "fixture14.h"

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	static char buf[1 << 20];
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void check_golden(const char *got, const char *name)
{
	char path[4096];
	const char *dir = getenv("SHB_REPORT_GOLDEN_DIR");
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	const char *update = getenv("SHB_REPORT_UPDATE_GOLDEN");
	if (update && strcmp(update, "1") == 0) {
		FILE *f = fopen(path, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fputs(got, f);
		fclose(f);
		return;
	}
	const char *want = read_all(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	if (strcmp(got, want) != 0) {
		size_t i = 0;
		while (got[i] && got[i] == want[i])
			i++;
		fprintf(stderr, "\n%s differs at byte %zu: got \"%.60s\"\n", name,
			i, got + i);
	}
	CU_ASSERT_STRING_EQUAL(got, want);
}

static void golden(const char *reporter, int mix, const char *name)
{
	struct fx14 f;
	CU_ASSERT_EQUAL_FATAL(fx14_init(&f, mix, 1700000000), 0);
	char *out = fx14_report(reporter, &f, 1);
	check_golden(out, name);
	free(out);
	fx14_fini(&f);
}

static void test_text(void) { golden("text", 0, "v14none.txt"); }
static void test_text_mix(void) { golden("text", 1, "v14mix.txt"); }
static void test_csv(void) { golden("csv", 0, "v14none.csv"); }
static void test_csv_mix(void) { golden("csv", 1, "v14mix.csv"); }
static void test_json_golden(void) { golden("json", 0, "v14none.json"); }
static void test_json_mix_golden(void) { golden("json", 1, "v14mix.json"); }

static json_t *json_of(int mix)
{
	struct fx14 f;
	CU_ASSERT_EQUAL_FATAL(fx14_init(&f, mix, 1700000000), 0);
	char *out = fx14_report("json", &f, 1);
	fx14_fini(&f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	json_t *root = json_loads(out, 0, NULL);
	free(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	return root;
}

static uint64_t hdr_total(const json_t *v)
{
	struct shb_hdr_counts c;
	char err[160];
	uint64_t n = UINT64_MAX;
	CU_ASSERT_TRUE_FATAL(json_is_string(v));
	CU_ASSERT_EQUAL_FATAL(shb_hdr_counts_init(&c), 0);
	if (shb_hdr_decode(json_string_value(v), &c, err, sizeof(err)) == 0)
		n = c.total;
	shb_hdr_counts_free(&c);
	return n;
}

#define GET(o, k) json_object_get((o), (k))

static void test_json_fields(void)
{
	json_t *r = json_of(0);
	CU_ASSERT_TRUE(json_is_null(GET(r, "method")));
	CU_ASSERT_STRING_EQUAL(json_string_value(GET(r, "requestModel")), "none");
	CU_ASSERT_PTR_NULL(GET(r, "statusCodes"));
	CU_ASSERT_PTR_NULL(GET(r, "rxHeaderBytes"));
	CU_ASSERT_PTR_NULL(GET(r, "unixSocket"));
	CU_ASSERT_STRING_EQUAL(json_string_value(GET(r, "success")), "ok,nil");
	CU_ASSERT_STRING_EQUAL(json_string_value(GET(r, "proxy")),
			       "http://127.0.0.1:3128");
	CU_ASSERT_EQUAL(json_array_size(GET(r, "connectTo")), 2);
	CU_ASSERT_EQUAL(json_array_size(GET(r, "resolve")), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(GET(r, "source")), "127.0.0.2");
	CU_ASSERT_EQUAL(json_integer_value(GET(GET(r, "requests"), "answered")), 97);
	CU_ASSERT_DOUBLE_EQUAL(json_real_value(GET(r, "answeredPerSec")), 97.0, 1e-9);
	json_t *sp = json_array_get(GET(r, "outcomeSpaces"), 0);
	CU_ASSERT_EQUAL(json_integer_value(GET(sp, "number")), FX14_SPACE);
	CU_ASSERT_STRING_EQUAL(json_string_value(GET(sp, "name")), "redis");
	CU_ASSERT_EQUAL(json_array_size(GET(sp, "codes")), 3);
	json_t *apps = GET(r, "appOutcomes");
	CU_ASSERT_STRING_EQUAL(json_string_value(GET(json_array_get(apps, 1), "space")), "redis");
	CU_ASSERT_STRING_EQUAL(json_string_value(GET(json_array_get(apps, 1), "name")), "nil");
	/* code 7 is not in the table: by number, no name */
	CU_ASSERT_EQUAL(json_integer_value(GET(json_array_get(apps, 3), "code")), 7);
	CU_ASSERT_PTR_NULL(GET(json_array_get(apps, 3), "name"));
	json_t *er = GET(r, "latencyErrorReplySeconds");
	CU_ASSERT_EQUAL(json_integer_value(GET(er, "count")), 12);
	CU_ASSERT_EQUAL(hdr_total(GET(r, "latencyErrorReplyHistogram")), 12);
	json_t *iv = json_array_get(GET(r, "intervals"), 0);
	CU_ASSERT_EQUAL(json_integer_value(GET(iv, "answered")), 97);
	CU_ASSERT_EQUAL(hdr_total(GET(iv, "latencyErrorReplyHistogram")), 12);
	json_decref(r);
}

/* The protocol's metrics: kinds, units, help, counts and the spread in
 * seconds (latency) or numbers (value), the histograms holding their
 * counts; per interval the counts and p99; none in a target. */
static void test_json_metrics(void)
{
	json_t *r = json_of(1);
	json_t *ms = GET(r, "metrics");
	CU_ASSERT_EQUAL(json_object_size(ms), 3);
	json_t *c = GET(ms, "msgs_sent"), *l = GET(ms, "msg_latency"), *v = GET(ms, "depth");
	CU_ASSERT_STRING_EQUAL(json_string_value(GET(c, "kind")), "counter");
	CU_ASSERT_EQUAL(json_integer_value(GET(c, "count")), 100);
	CU_ASSERT_PTR_NULL(GET(c, "histogram"));
	CU_ASSERT_TRUE(json_is_null(GET(l, "unit")));
	CU_ASSERT_DOUBLE_EQUAL(json_real_value(GET(l, "max")), 0.010, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(json_real_value(GET(l, "mean")), 0.0055, 1e-12);
	CU_ASSERT_EQUAL(hdr_total(GET(l, "histogram")), 10);
	CU_ASSERT_STRING_EQUAL(json_string_value(GET(v, "kind")), "value");
	CU_ASSERT_EQUAL(json_integer_value(GET(v, "p90")), 18);
	CU_ASSERT_EQUAL(json_integer_value(GET(v, "max")), 20);
	CU_ASSERT_EQUAL(hdr_total(GET(v, "histogram")), 20);
	json_t *iv = GET(json_array_get(GET(r, "intervals"), 0), "metrics");
	CU_ASSERT_EQUAL(json_integer_value(GET(GET(iv, "msgs_sent"), "count")), 100);
	CU_ASSERT_PTR_NULL(GET(GET(iv, "msgs_sent"), "p99"));
	CU_ASSERT_EQUAL(json_integer_value(GET(GET(iv, "depth"), "p99")), 20);
	CU_ASSERT_PTR_NULL(GET(json_array_get(GET(r, "targets"), 0), "metrics"));
	json_decref(r);
}

/* A mix's targets measure neither bytes nor connections: null, while
 * the run's own counters stay numbers. */
static void test_json_unmeasured(void)
{
	json_t *r = json_of(1);
	CU_ASSERT_EQUAL(json_integer_value(GET(r, "bytesSent")), 4000);
	json_t *t = json_array_get(GET(r, "targets"), 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	static const char *const keys[] = {"bytesReceived", "bytesReceivedPerSec",
					   "bytesSent", "bytesSentPerSec",
					   "connectionsOpened"};
	for (size_t i = 0; i < 5; i++)
		CU_ASSERT_TRUE(json_is_null(GET(t, keys[i])));
	CU_ASSERT_EQUAL(json_integer_value(GET(GET(t, "requests"), "answered")), 97);
	json_decref(r);
}

static void test_html(void)
{
	struct fx14 f;
	CU_ASSERT_EQUAL_FATAL(fx14_init(&f, 0, 1700000000), 0);
	char *h = fx14_report("html", &f, 1);
	fx14_fini(&f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_PTR_NULL(strstr(h, "<th>Method</th>"));
	CU_ASSERT_PTR_NULL(strstr(h, "Status codes"));
	CU_ASSERT_PTR_NULL(strstr(h, "Bytes per response"));
	CU_ASSERT_PTR_NULL(strstr(h, "GET"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "<title>shb: Redis redis://example.test:6379/</title>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "<tr><th>Proxy</th><td>http://127.0.0.1:3128</td></tr>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "<tr><th>Success</th><td>ok,nil</td></tr>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "<tr><th></th><td>b.test:6379:127.0.0.1:16380</td></tr>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "<tr><th>Answered (ok and error replies)</th><td>97</td></tr>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "<tr><th>Error-reply latency p50, p99, ms</th><td>12.001, 24.000</td></tr>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "<tr><th>redis</th><td>nil</td><td>5</td><td>ok</td></tr>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "<tr><th>redis</th><td>7</td><td>2</td><td>failed</td></tr>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "<h3>Protocol metrics</h3>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "<tr><th>msgs_sent</th><td>counter</td><td>100</td><td></td>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "<tr><th>msg_latency</th><td>latency, ms</td><td>10</td><td>5.500</td><td>5.001</td><td>9.003</td><td>10.000</td><td>10.000</td><td>send to answer</td></tr>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(h, "<tr><th>depth</th><td>value</td><td>20</td><td>11</td><td>10</td><td>18</td><td>20</td><td>20</td><td></td></tr>"));
	free(h);
}

static void test_hgrm(void)
{
	struct fx14 f;
	CU_ASSERT_EQUAL_FATAL(fx14_init(&f, 0, 1700000000), 0);
	char *h = fx14_report("hgrm", &f, 0);
	fx14_fini(&f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	const char *er = strstr(h, "# error replies: answers counted as errors\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(er);
	/* the spectrum after it ends with its own count: 12 replies */
	CU_ASSERT_PTR_NOT_NULL(strstr(er, "#[Max     =       24.000, Total count    =           12]"));
	/* then the latency metric's, and no spectrum of the value metric */
	const char *ml = strstr(er, "# metric msg_latency\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(ml);
	CU_ASSERT_PTR_NOT_NULL(strstr(ml, "#[Max     =       10.000, Total count    =           10]"));
	CU_ASSERT_PTR_NULL(strstr(h, "# metric depth"));
	free(h);
}

static CU_TestInfo tests14[] = {
	{"text: request model none, names, facts", test_text},
	{"text: a mix", test_text_mix},
	{"csv: request model none, names, facts", test_csv},
	{"csv: a mix, unmeasured target counters empty", test_csv_mix},
	{"json: golden", test_json_golden},
	{"json: a mix, golden", test_json_mix_golden},
	{"json: the 1.4 fields", test_json_fields},
	{"json: unmeasured target counters are null", test_json_unmeasured},
	{"json: the protocol's metrics", test_json_metrics},
	{"html: nothing HTTP, facts, answered, names", test_html},
	{"hgrm: the error replies' and a latency metric's spectrum", test_hgrm},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"report-1.4", NULL, NULL, NULL, NULL, tests14},
	CU_SUITE_INFO_NULL,
};
