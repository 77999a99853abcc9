/* shb merge and the ABI 1.4 members of a report: the json reporter's
 * reports of a fabricated 1.4 run (tests/report/fixture14.h) merged, the
 * merged report written by the json reporter again, so that the outcome
 * names and the error replies' histograms make the whole round trip; and
 * every refusal word for word.
 *
 * SHB_REPORT_PLUGIN_DIR (set by meson): the reporters' build directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include <jansson.h>

#include "common/hdrv2.h"
#include "fixture14.h"
#include "results/merge.h"

#define GET(o, k) json_object_get((o), (k))

/* The json reporter's report of the fixture, with its interval. */
static json_t *report(uint64_t start_s)
{
	struct fx14 f;
	CU_ASSERT_EQUAL_FATAL(fx14_init(&f, 0, start_s), 0);
	char *out = fx14_report("json", &f, 1);
	fx14_fini(&f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	json_t *doc = json_loads(out, 0, NULL);
	free(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	return doc;
}

static uint64_t hdr_total(const json_t *v)
{
	struct shb_hdr_counts c;
	char err[160];
	uint64_t n = UINT64_MAX;
	CU_ASSERT_EQUAL_FATAL(shb_hdr_counts_init(&c), 0);
	if (json_is_string(v) &&
	    shb_hdr_decode(json_string_value(v), &c, err, sizeof(err)) == 0)
		n = c.total;
	shb_hdr_counts_free(&c);
	return n;
}

/* The merge of docs[n], written by the json reporter and extended as
 * `shb merge` does; NULL with the refusal in err. */
static json_t *merged(json_t *const *docs, size_t n, char *err, size_t errlen)
{
	struct shb_merge m;
	struct shb_results_buf *b = calloc(1, sizeof(*b));
	struct shb_run_info info;
	struct shb_target_info target;
	json_t *out = NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL_FATAL(shb_merge_init(&m), 0);
	for (size_t i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof(name), "%c.json", (char)('a' + i));
		if (shb_merge_add(&m, name, docs[i], err, errlen) < 0)
			goto done;
	}
	shb_merge_results(&m, b, &info, &target, NULL, 0);
	char *s = fx14_run_reporter("json", &info, &b->r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	out = json_loads(s, 0, NULL);
	free(s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	if (shb_merge_extend(&m, out, err, errlen) < 0) {
		json_decref(out);
		out = NULL;
	}
done:
	shb_merge_fini(&m);
	free(b);
	return out;
}

/* Two reports: the names survive (the table, the app outcomes by name),
 * answered requests and error replies add up, histograms too, also in
 * the intervals; and the merged report merges again. */
static void test_round_trip(void)
{
	json_t *docs[2] = {report(1700000000), report(1700000000)};
	char err[512] = "";
	json_t *m = merged(docs, 2, err, sizeof(err));
	if (!m)
		fprintf(stderr, "\n%s\n", err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_TRUE(json_equal(GET(m, "outcomeSpaces"), GET(docs[0], "outcomeSpaces")));
	CU_ASSERT_STRING_EQUAL(json_string_value(GET(m, "requestModel")), "none");
	CU_ASSERT_TRUE(json_is_null(GET(m, "method")));
	CU_ASSERT_STRING_EQUAL(json_string_value(GET(m, "proxy")), "http://127.0.0.1:3128");
	CU_ASSERT_TRUE(json_equal(GET(m, "connectTo"), GET(docs[0], "connectTo")));
	CU_ASSERT_EQUAL(json_integer_value(GET(GET(m, "requests"), "answered")), 194);
	json_t *nil = json_array_get(GET(m, "appOutcomes"), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(GET(nil, "space")), "redis");
	CU_ASSERT_STRING_EQUAL(json_string_value(GET(nil, "name")), "nil");
	CU_ASSERT_EQUAL(json_integer_value(GET(nil, "count")), 10);
	json_t *seven = json_array_get(GET(m, "appOutcomes"), 3);
	CU_ASSERT_EQUAL(json_integer_value(GET(seven, "code")), 7);
	CU_ASSERT_EQUAL(json_integer_value(GET(seven, "count")), 4);
	CU_ASSERT_EQUAL(hdr_total(GET(m, "latencyErrorReplyHistogram")), 24);
	json_t *er = GET(m, "latencyErrorReplySeconds"), *er1 = GET(docs[0], "latencyErrorReplySeconds");
	CU_ASSERT_EQUAL(json_integer_value(GET(er, "count")), 24);
	/* the same values twice: the same percentiles, min and max */
	CU_ASSERT_TRUE(json_equal(GET(er, "percentiles"), GET(er1, "percentiles")));
	CU_ASSERT_TRUE(json_equal(GET(er, "max"), GET(er1, "max")));
	json_t *iv = json_array_get(GET(m, "intervals"), 0);
	CU_ASSERT_EQUAL(json_integer_value(GET(iv, "answered")), 194);
	CU_ASSERT_EQUAL(hdr_total(GET(iv, "latencyErrorReplyHistogram")), 24);
	/* the merged report is a report merge reads, names and all */
	json_t *again = merged(&m, 1, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(again);
	CU_ASSERT_TRUE(json_equal(GET(again, "appOutcomes"), GET(m, "appOutcomes")));
	CU_ASSERT_EQUAL(hdr_total(GET(again, "latencyErrorReplyHistogram")), 24);
	json_decref(again);
	json_decref(m);
	json_decref(docs[0]);
	json_decref(docs[1]);
}

/* One change to the second report, and the one line merge answers. */
static void refused(void (*edit)(json_t *doc), const char *want)
{
	json_t *docs[2] = {report(1700000000), report(1700000000)};
	char err[512] = "";
	edit(docs[1]);
	json_t *m = merged(docs, 2, err, sizeof(err));
	CU_ASSERT_PTR_NULL(m);
	if (strcmp(err, want))
		fprintf(stderr, "\ngot: %s\n", err);
	CU_ASSERT_STRING_EQUAL(err, want);
	json_decref(m);
	json_decref(docs[0]);
	json_decref(docs[1]);
}

static void rename_code(json_t *d)
{
	json_t *c = json_array_get(GET(json_array_get(GET(d, "outcomeSpaces"), 0),
				       "codes"), 1);
	json_object_set_new(c, "name", json_string("null"));
}

static void test_tables_disagree(void)
{
	/* each side shown to 95 bytes: here up to the code renamed */
	refused(rename_code, "b.json: outcomeSpaces is [{\"number\":65541,\"name\":"
		"\"redis\",\"codes\":[{\"code\":0,\"name\":\"ok\",\"ok\":true},"
		"{\"code\":1,\"name\":\"nul, but [{\"number\":65541,\"name\":"
		"\"redis\",\"codes\":[{\"code\":0,\"name\":\"ok\",\"ok\":true},"
		"{\"code\":1,\"name\":\"nil in a.json (merge needs runs with the "
		"same options)");
}

static void no_table(json_t *d)
{
	json_object_del(d, "outcomeSpaces");
}

static void test_table_missing(void)
{
	refused(no_table, "b.json: outcomeSpaces is absent, but [{\"number\":"
		"65541,\"name\":\"redis\",\"codes\":[{\"code\":0,\"name\":\"ok\","
		"\"ok\":true},{\"code\":1,\"name\":\"nil in a.json (merge needs "
		"runs with the same options)");
}

static void answered_low(json_t *d)
{
	json_object_set_new(GET(d, "requests"), "answered", json_integer(84));
}

static void test_answered_below_ok(void)
{
	refused(answered_low, "b.json: requests.answered is not between "
		"requests.ok and ok plus errors");
}

static void answered_off(json_t *d)
{
	json_object_set_new(GET(d, "requests"), "answered", json_integer(96));
}

static void test_histogram_count(void)
{
	refused(answered_off, "b.json: latencyErrorReplyHistogram holds 12 "
		"values, requests.answered minus ok is 11");
}

static void interval_off(json_t *d)
{
	json_object_set_new(json_array_get(GET(d, "intervals"), 0), "answered",
			    json_integer(96));
}

static void test_interval_count(void)
{
	refused(interval_off, "b.json: an interval's latencyErrorReplyHistogram "
		"holds 12 values, its answered minus ok is 11");
}

/* A first report whose table is not the json reporter's. */
static void first_refused(const char *key, json_t *v, const char *want)
{
	json_t *doc = report(1700000000);
	char err[512] = "";
	json_object_set_new(doc, key, v);
	json_t *m = merged(&doc, 1, err, sizeof(err));
	CU_ASSERT_PTR_NULL(m);
	CU_ASSERT_STRING_EQUAL(err, want);
	json_decref(m);
	json_decref(doc);
}

static void test_bad_tables(void)
{
	first_refused("outcomeSpaces", json_pack("[{s:i,s:s,s:[]}]", "number", 65536,
		      "name", "Redis", "codes"), "a.json: outcomeSpaces: a space without a "
		      "name [a-z0-9_]{1,31} or a number from 65536 to 2^32 - 1");
	first_refused("outcomeSpaces", json_pack("[{s:i,s:s,s:[]}]", "number", 3,
		      "name", "redis", "codes"), "a.json: outcomeSpaces: a space without a "
		      "name [a-z0-9_]{1,31} or a number from 65536 to 2^32 - 1");
	first_refused("outcomeSpaces", json_pack("[{s:i,s:s,s:[]},{s:i,s:s,s:[]}]",
		      "number", 65536, "name", "a", "codes", "number", 65537, "name", "a",
		      "codes"),
		      "a.json: outcomeSpaces: space a given twice");
	first_refused("outcomeSpaces", json_pack("[{s:i,s:s,s:[{s:i,s:s},{s:i,s:s}]}]",
		      "number", 65536, "name", "a", "codes", "code", 1, "name", "x", "code", 1,
		      "name", "y"), "a.json: outcomeSpaces.codes: code y given twice");
	first_refused("outcomeSpaces", json_string("redis"), "a.json: outcomeSpaces: "
		      "not an array of at most 16 spaces");
	first_refused("requestModel", json_string("http"), "a.json: requestModel: "
		      "not \"none\"");
	first_refused("connectTo", json_pack("[i]", 1), "a.json: connectTo: not an "
		      "array of at most 64 strings");
}

/* A report of an shb without answered requests: the merge does not make
 * up a count of error replies, its result is one of ABI 1.3. */
static void no_answered(json_t *d)
{
	json_object_del(GET(d, "requests"), "answered");
}

static void test_answered_unknown(void)
{
	json_t *docs[2] = {report(1700000000), report(1700000000)};
	char err[512] = "";
	no_answered(docs[1]);
	json_t *m = merged(docs, 2, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_PTR_NULL(GET(GET(m, "requests"), "answered"));
	CU_ASSERT_PTR_NULL(GET(m, "latencyErrorReplyHistogram"));
	CU_ASSERT_EQUAL(json_integer_value(GET(GET(m, "requests"), "ok")), 170);
	json_decref(m);
	json_decref(docs[0]);
	json_decref(docs[1]);
}

/* Per-target counters written null read back as 0 (merge's reading of
 * every count), not as a refusal. */
static void test_null_counters(void)
{
	json_t *doc = report(1700000000);
	char err[512] = "";
	json_object_set_new(doc, "bytesSent", json_null());
	json_object_set_new(doc, "connectionsOpened", json_null());
	json_t *m = merged(&doc, 1, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(json_integer_value(GET(m, "bytesSent")), 0);
	CU_ASSERT_EQUAL(json_integer_value(GET(m, "connectionsOpened")), 0);
	CU_ASSERT_EQUAL(json_integer_value(GET(m, "bytesReceived")), 9000);
	json_decref(m);
	json_decref(doc);
}

/* A first report refused after its names were read (its table names
 * another space than its app outcomes), then a good one: the good one's names, nothing of the first
 * kept (LeakSanitizer checks its table was let go). */
static void test_first_refused_then_good(void)
{
	json_t *bad = report(1700000000), *good = report(1700000000);
	struct shb_merge m;
	char err[512] = "";
	json_object_set_new(json_array_get(GET(bad, "outcomeSpaces"), 0), "name",
			    json_string("other"));
	CU_ASSERT_EQUAL_FATAL(shb_merge_init(&m), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "a.json", bad, err, sizeof(err)), -1);
	/* its app outcomes say "redis", a space its table does not name */
	CU_ASSERT_STRING_EQUAL(err, "a.json: appOutcomes: unknown space \"redis\"");
	CU_ASSERT_EQUAL(shb_merge_add(&m, "b.json", good, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(m.v14.table.count, 1);
	CU_ASSERT_STRING_EQUAL(m.v14.table.spaces[0].name, "redis");
	CU_ASSERT_EQUAL(m.stats.error_replies, 12);
	shb_merge_fini(&m);
	json_decref(bad);
	json_decref(good);
}

/* ---- the protocol's metrics ---------------------------------------------- */

/* Two reports: counters add, histograms add bucket for bucket (the same
 * values twice: the same percentiles), kinds, units and help survive, the
 * intervals' counts add; and the merged report merges again. */
static void test_metrics_round_trip(void)
{
	json_t *docs[2] = {report(1700000000), report(1700000000)};
	char err[512] = "";
	json_t *m = merged(docs, 2, err, sizeof(err));
	if (!m)
		fprintf(stderr, "\n%s\n", err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	json_t *ms = GET(m, "metrics"), *ms1 = GET(docs[0], "metrics");
	CU_ASSERT_EQUAL(json_object_size(ms), 3);
	json_t *sent = GET(ms, "msgs_sent"), *lat = GET(ms, "msg_latency");
	json_t *depth = GET(ms, "depth");
	CU_ASSERT_EQUAL(json_integer_value(GET(sent, "count")), 200);
	CU_ASSERT_STRING_EQUAL(json_string_value(GET(sent, "unit")), "messages");
	CU_ASSERT_STRING_EQUAL(json_string_value(GET(lat, "kind")), "latency");
	CU_ASSERT_EQUAL(json_integer_value(GET(lat, "count")), 20);
	CU_ASSERT_EQUAL(hdr_total(GET(lat, "histogram")), 20);
	CU_ASSERT_STRING_EQUAL(json_string_value(GET(lat, "help")), "send to answer");
	static const char *const same[] = {"mean", "p50", "p90", "p99", "max"};
	for (size_t i = 0; i < 5; i++) {
		CU_ASSERT_TRUE(json_equal(GET(lat, same[i]),
					  GET(GET(ms1, "msg_latency"), same[i])));
		CU_ASSERT_TRUE(json_equal(GET(depth, same[i]),
					  GET(GET(ms1, "depth"), same[i])));
	}
	CU_ASSERT_EQUAL(json_integer_value(GET(depth, "count")), 40);
	CU_ASSERT_EQUAL(json_integer_value(GET(depth, "p99")), 20);
	json_t *iv = GET(json_array_get(GET(m, "intervals"), 0), "metrics");
	CU_ASSERT_EQUAL(json_integer_value(GET(GET(iv, "msgs_sent"), "count")), 200);
	CU_ASSERT_EQUAL(json_integer_value(GET(GET(iv, "depth"), "count")), 40);
	json_t *again = merged(&m, 1, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(again);
	CU_ASSERT_TRUE(json_equal(GET(again, "metrics"), ms));
	json_decref(again);
	json_decref(m);
	json_decref(docs[0]);
	json_decref(docs[1]);
}

static void metric_gone(json_t *d)
{
	json_object_del(GET(d, "metrics"), "depth");
}

static void metric_count_off(json_t *d)
{
	json_object_set_new(GET(GET(d, "metrics"), "msg_latency"), "count",
			    json_integer(11));
}

static void metric_kind_changed(json_t *d)
{
	json_object_set_new(GET(GET(d, "metrics"), "msgs_sent"), "kind",
			    json_string("value"));
}

static void metric_histogram_bad(json_t *d)
{
	json_object_set_new(GET(GET(d, "metrics"), "depth"), "histogram",
			    json_string("HISTFAAAAAnotbase64!"));
}

static void test_metrics_refused(void)
{
	refused(metric_gone, "b.json: metrics differ from the first report's "
		"(2 metrics, not 3)");
	refused(metric_count_off, "b.json: metrics.msg_latency: histogram does "
		"not hold count values");
	refused(metric_kind_changed, "b.json: metrics.msgs_sent: missing, or of "
		"another kind than in the first report");
	json_t *d = report(1700000000);
	char err[512] = "", want[512];
	metric_histogram_bad(d);
	CU_ASSERT_PTR_NULL(merged(&d, 1, err, sizeof(err)));
	snprintf(want, sizeof(want), "a.json: metrics.depth.histogram: ");
	CU_ASSERT_EQUAL(strncmp(err, want, strlen(want)), 0);
	json_decref(d);
	first_refused("metrics", json_pack("{s:{s:s,s:i}}", "Bad", "kind",
					   "counter", "count", 1),
		      "a.json: metrics.Bad: not a metric name ([a-z][a-z0-9_], 1 "
		      "to 32 bytes)");
	first_refused("metrics", json_pack("{s:{s:s,s:i}}", "x", "kind",
					   "gauge", "count", 1),
		      "a.json: metrics.x: kind is not counter, latency or value");
	first_refused("metrics", json_pack("{s:{s:s,s:s,s:i}}", "x", "kind",
					   "counter", "unit", "a\tb", "count", 1),
		      "a.json: metrics.x: unit or help is not short printable ASCII");
	first_refused("metrics", json_pack("{s:{s:s,s:i}}", "x", "kind",
					   "counter", "count", -1),
		      "a.json: metrics.x: count is not a count");
	first_refused("metrics", json_string("x"), "a.json: metrics is not an object");
}

/* A first report refused after its metrics were made, then one whose
 * metric of the same place is of another kind: what the refused one made
 * is freed all the same (found by fuzzing: a latency histogram leaked
 * when the new table called it a counter). LeakSanitizer checks. */
static void test_metrics_first_refused(void)
{
	json_t *bad = report(1700000000), *good = report(1700000000);
	struct shb_merge m;
	char err[512] = "";
	json_object_set_new(json_array_get(GET(bad, "outcomeSpaces"), 0), "name",
			    json_string("other"));
	json_object_set_new(GET(good, "metrics"), "msg_latency",
			    json_pack("{s:s,s:n,s:n,s:i}", "kind", "counter", "unit",
				      "help", "count", 10));
	CU_ASSERT_EQUAL_FATAL(shb_merge_init(&m), 0);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "a.json", bad, err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(shb_merge_add(&m, "b.json", good, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(m.stats.metrics.n, 3);
	CU_ASSERT_EQUAL(m.stats.metrics.defs[1].kind, SHB_METRIC_COUNTER);
	CU_ASSERT_EQUAL(shb_metrics_count(&m.stats.metrics, 1), 10);
	shb_merge_fini(&m);
	json_decref(bad);
	json_decref(good);
}

static CU_TestInfo merge14_tests[] = {
	{"protocol metrics of a refused first report freed", test_metrics_first_refused},
	{"protocol metrics round trip", test_metrics_round_trip},
	{"protocol metrics refused", test_metrics_refused},
	{"a first report refused, then a good one", test_first_refused_then_good},
	{"names and error replies round trip", test_round_trip},
	{"outcome tables that disagree", test_tables_disagree},
	{"an outcome table on one side only", test_table_missing},
	{"answered below ok", test_answered_below_ok},
	{"error-reply histogram of another count", test_histogram_count},
	{"an interval's error-reply histogram of another count", test_interval_count},
	{"tables and facts that are not the reporter's", test_bad_tables},
	{"a report without answered requests", test_answered_unknown},
	{"null counters read back", test_null_counters},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"merge-1.4", NULL, NULL, NULL, NULL, merge14_tests},
	CU_SUITE_INFO_NULL,
};
