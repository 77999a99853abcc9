/* Unit tests for --slo: every parse error word for word, what a good
 * expression parses to, and the checks at their boundaries on histograms
 * and counts whose answers are known exactly. */
#include <stdio.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "cli/slo.h"
#include "results/slo_check.h"
#include "results/stats.h"

static void parses(const char *expr, enum shb_slo_metric m, enum shb_slo_op op,
		   uint32_t ppm, uint64_t limit, const char *name)
{
	struct shb_slo s;
	char err[256] = "";
	int rc = shb_slo_parse(expr, &s, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "\n%s: %s\n", expr, err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(s.metric, m);
	CU_ASSERT_EQUAL(s.op, op);
	CU_ASSERT_EQUAL(s.ppm, ppm);
	CU_ASSERT_EQUAL(s.limit, limit);
	CU_ASSERT_STRING_EQUAL(s.name, name);
}

static void test_parse_good(void)
{
	parses("p99<5ms", SHB_SLO_PCT, SHB_SLO_LT, 990000, 5000000, "p99");
	parses("p99.9<=20ms", SHB_SLO_PCT, SHB_SLO_LE, 999000, 20000000, "p99.9");
	parses("p50>1.5s", SHB_SLO_PCT, SHB_SLO_GT, 500000, 1500000000, "p50");
	parses("p100>=250us", SHB_SLO_PCT, SHB_SLO_GE, 1000000, 250000, "p100");
	parses("p0.0001<1m30s", SHB_SLO_PCT, SHB_SLO_LT, 1, 90000000000ull, "p0.0001");
	parses("p99.9999<7ns", SHB_SLO_PCT, SHB_SLO_LT, 999999, 7, "p99.9999");
	parses(" p99 <\t5ms ", SHB_SLO_PCT, SHB_SLO_LT, 990000, 5000000, "p99");
	parses("error_rate<1%", SHB_SLO_ERROR_RATE, SHB_SLO_LT, 0, 1000000, "error_rate");
	parses("error_rate<=0.000001%", SHB_SLO_ERROR_RATE, SHB_SLO_LE, 0, 1, "error_rate");
	parses("error_rate<100%", SHB_SLO_ERROR_RATE, SHB_SLO_LT, 0, 100000000, "error_rate");
	parses("error_rate<=0%", SHB_SLO_ERROR_RATE, SHB_SLO_LE, 0, 0, "error_rate");
	parses("rps>1000", SHB_SLO_RPS, SHB_SLO_GT, 0, 1000000000, "rps");
	parses("rps>=99.5", SHB_SLO_RPS, SHB_SLO_GE, 0, 99500000, "rps");

	struct shb_slo s;
	char err[64];
	CU_ASSERT_EQUAL(shb_slo_parse("p99 < 5ms", &s, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(s.limit_text, "5ms");
}

static void refused(const char *expr, const char *want)
{
	struct shb_slo s;
	char err[256] = "";
	CU_ASSERT_EQUAL(shb_slo_parse(expr, &s, err, sizeof(err)), -1);
	if (strcmp(err, want) != 0)
		fprintf(stderr, "\n%s:\n  got  %s\n  want %s\n", expr, err, want);
	CU_ASSERT_STRING_EQUAL(err, want);
}

static void test_parse_errors(void)
{
	refused("", "\"\": empty expression (e.g. p99<5ms, error_rate<1% or rps>1000)");
	refused(" \t", "\"\": empty expression (e.g. p99<5ms, error_rate<1% or rps>1000)");
	refused("p99", "\"p99\": no comparison (<, <=, > or >=), e.g. p99<5ms, "
		"error_rate<1% or rps>1000");
	refused("p99=5ms", "\"p99=5ms\": no comparison (<, <=, > or >=), e.g. "
		"p99<5ms, error_rate<1% or rps>1000");
	refused("<5ms", "\"<5ms\": no metric before < (pNN, error_rate or rps)");
	refused(">=5", "\">=5\": no metric before > (pNN, error_rate or rps)");
	refused("p99<", "\"p99<\": no limit after <");
	refused("rps>=", "\"rps>=\": no limit after >=");
	refused("latency<5ms", "\"latency<5ms\": unknown metric \"latency\" (pNN "
		"for a latency percentile, error_rate, rps, or a protocol "
		"metric's NAME.pNN or NAME.count)");
	refused("p<5ms", "\"p<5ms\": unknown metric \"p\" (pNN for a latency "
		"percentile, error_rate, rps, or a protocol metric's NAME.pNN "
		"or NAME.count)");
	const char *pct = "\": the percentile must be above 0 and at most 100, "
			  "with at most four decimals (p50, p99.9, p99.9999)";
	const char *bad_pcts[] = {"p0<5ms", "p0.0000<5ms", "p100.0001<5ms",
				  "p101<5ms", "p99.99999<5ms", "p99x<5ms",
				  "p99.<5ms", "p9.9.9<5ms"};
	for (size_t i = 0; i < sizeof(bad_pcts) / sizeof(bad_pcts[0]); i++) {
		char want[256];
		snprintf(want, sizeof(want), "\"%s%s", bad_pcts[i], pct);
		refused(bad_pcts[i], want);
	}
	refused("p99<5", "\"p99<5\": the limit needs a unit (ns, us, ms, s, m "
		"or h), e.g. p99<5ms");
	refused("p99.9<=0.5", "\"p99.9<=0.5\": the limit needs a unit (ns, us, "
		"ms, s, m or h), e.g. p99.9<5ms");
	refused("p99<5parsecs", "\"p99<5parsecs\": expected a duration like "
		"5ms, 250us or 1.5s after <");
	refused("p99<<5ms", "\"p99<<5ms\": expected a duration like 5ms, 250us "
		"or 1.5s after <");
	refused("p99<-5ms", "\"p99<-5ms\": expected a duration like 5ms, 250us "
		"or 1.5s after <");
	refused("error_rate<1", "\"error_rate<1\": expected a percentage like "
		"1% or 0.5% after <");
	refused("error_rate<=0.01", "\"error_rate<=0.01\": expected a "
		"percentage like 1% or 0.5% after <=");
	refused("error_rate<1%%", "\"error_rate<1%%\": expected a percentage "
		"like 1% or 0.5% after <");
	refused("error_rate<0.0000001%", "\"error_rate<0.0000001%\": expected "
		"a percentage like 1% or 0.5% after <");
	refused("error_rate<100.000001%", "\"error_rate<100.000001%\": the "
		"error rate must be from 0% to 100%");
	refused("rps>1k", "\"rps>1k\": expected a number of requests per "
		"second like 1000 or 99.5 after >");
	refused("rps>1e9", "\"rps>1e9\": expected a number of requests per "
		"second like 1000 or 99.5 after >");
	refused("rps>99999999999999999999", "\"rps>99999999999999999999\": "
		"expected a number of requests per second like 1000 or 99.5 "
		"after >");
	/* Control characters never reach the terminal through an error. */
	refused("p99<5ms\x1b", "\"p99<5ms?\": expected a duration like 5ms, "
		"250us or 1.5s after <");
	char longx[200];
	memset(longx, 'p', sizeof(longx) - 1);
	longx[sizeof(longx) - 1] = '\0';
	refused(longx, "\"pppppppppppppppppppppppppppppppppppppppp...\": too long");
	/* ... also when the expression is too long to be squeezed. */
	memset(longx, '\n', 20);
	refused(longx, "\"\\x0a\\x0a\\x0a\\x0a\\x0a\\x0a\\x0a\\x0a\\x0a\\x0a"
		"\\x0a\\x0a\\x0a\\x0a\\x0a\\x0a\\x0a\\x0a\\x0a\\x0a"
		"pppppppppppppppppppp...\": too long");
}

/* check(EXPR, data): 1 or 0, and the message when it fails. */
static int check(const char *expr, const struct shb_slo_data *d, char *msg,
		 size_t len)
{
	struct shb_slo s;
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(shb_slo_parse(expr, &s, err, sizeof(err)), 0);
	msg[0] = '\0';
	return shb_slo_check(&s, d, msg, len);
}

static void holds(const char *expr, const struct shb_slo_data *d)
{
	char msg[256];
	int ok = check(expr, d, msg, sizeof(msg));
	if (!ok)
		fprintf(stderr, "\n%s failed: %s\n", expr, msg);
	CU_ASSERT_EQUAL(ok, 1);
	CU_ASSERT_STRING_EQUAL(msg, "");
}

static void fails(const char *expr, const struct shb_slo_data *d, const char *want)
{
	char msg[256];
	CU_ASSERT_EQUAL(check(expr, d, msg, sizeof(msg)), 0);
	if (strcmp(msg, want) != 0)
		fprintf(stderr, "\n%s:\n  got  %s\n  want %s\n", expr, msg, want);
	CU_ASSERT_STRING_EQUAL(msg, want);
}

/* 1..1000 ns, each once: below 2048 every value has its own bucket, so
 * pN is exactly the value of rank ceil(N% of 1000). */
static void test_percentiles_exact(void)
{
	struct shb_histo h;
	CU_ASSERT_EQUAL_FATAL(shb_histo_init(&h, SHB_HIST_HIGHEST, SHB_HIST_SIGFIGS), 0);
	for (uint64_t v = 1; v <= 1000; v++)
		shb_histo_record(&h, v);
	struct shb_slo_data d = {.ok = 1000, .elapsed_ns = 1000000000, .latency = &h};

	holds("p99<=990ns", &d);
	fails("p99<990ns", &d, "p99 = 990ns, wanted < 990ns");
	holds("p99<991ns", &d);
	holds("p99>=990ns", &d);
	fails("p99>990ns", &d, "p99 = 990ns, wanted > 990ns");
	holds("p50<=500ns", &d);
	fails("p50<500ns", &d, "p50 = 500ns, wanted < 500ns");
	holds("p99.9<=999ns", &d);
	fails("p99.9<999ns", &d, "p99.9 = 999ns, wanted < 999ns");
	/* 99.95% of 1000 is rank 999.5, rounded up: the 1000th value. */
	fails("p99.95<1us", &d, "p99.95 = 1us, wanted < 1us");
	holds("p99.95<=1000ns", &d);
	fails("p100<1us", &d, "p100 = 1us, wanted < 1us");
	holds("p0.1<=1ns", &d);
	fails("p0.1>1ns", &d, "p0.1 = 1ns, wanted > 1ns");
	holds("p0.0001<=1ns", &d);

	/* Larger values print in the unit that fits. */
	shb_histo_reset(&h);
	shb_histo_record(&h, 7300000);
	fails("p99<5ms", &d, "p99 = 7.3ms, wanted < 5ms");
	shb_histo_reset(&h);
	shb_histo_record(&h, 2500000000ull);
	fails("p50<2s", &d, "p50 = 2.5s, wanted < 2s");
	shb_histo_reset(&h);
	shb_histo_record(&h, 1500);
	fails("p50<1us", &d, "p50 = 1.5us, wanted < 1us");

	/* No completed request: no latency to pass the gate with. */
	shb_histo_reset(&h);
	fails("p99<1h", &d, "p99 = none (no request completed), wanted < 1h");
	fails("p99>=0ns", &d, "p99 = none (no request completed), wanted >= 0ns");
	d.latency = NULL;
	fails("p50<5ms", &d, "p50 = none (no request completed), wanted < 5ms");
	shb_histo_destroy(&h);
}

/* Percentiles of merged worker stats: the gate reads the merged histogram. */
static void test_percentile_merged(void)
{
	struct shb_stats a, b;
	CU_ASSERT_EQUAL_FATAL(shb_stats_init(&a), 0);
	CU_ASSERT_EQUAL_FATAL(shb_stats_init(&b), 0);
	for (int i = 0; i < 98; i++)
		shb_stats_ok(&a, 200, 100);
	shb_stats_ok(&b, 200, 200);
	shb_stats_ok(&b, 200, 300);
	struct shb_slo_data d = {.ok = 98, .latency = &a.latency};
	holds("p99<=100ns", &d);
	shb_stats_merge(&a, &b);
	d.ok = 100;
	fails("p99<=100ns", &d, "p99 = 200ns, wanted <= 100ns");
	fails("p100<300ns", &d, "p100 = 300ns, wanted < 300ns");
	holds("p98<=100ns", &d);
	shb_stats_destroy(&a);
	shb_stats_destroy(&b);
}

static void test_error_rate(void)
{
	struct shb_slo_data d = {.ok = 99, .errors = 1, .elapsed_ns = 1};
	fails("error_rate<1%", &d, "error_rate = 1%, wanted < 1%");
	holds("error_rate<=1%", &d);
	holds("error_rate<1.000001%", &d);
	fails("error_rate<=0.999999%", &d, "error_rate = 1%, wanted <= 0.999999%");
	fails("error_rate>1%", &d, "error_rate = 1%, wanted > 1%");
	holds("error_rate>=1%", &d);

	/* One error in a million: 0.0001%, exactly at the finest limit. */
	d.ok = 999999;
	holds("error_rate<=0.0001%", &d);
	fails("error_rate<0.0001%", &d, "error_rate = 0.0001%, wanted < 0.0001%");
	holds("error_rate<0.000101%", &d);

	/* A third is not a finite decimal: compared exactly, printed short. */
	d.ok = 2;
	fails("error_rate<33.333333%", &d, "error_rate = 33.33%, wanted < 33.333333%");
	holds("error_rate<33.333334%", &d);

	d.ok = 0;
	d.errors = 1000000000000000ull; /* the largest -n: no overflow */
	fails("error_rate<100%", &d, "error_rate = 100%, wanted < 100%");
	holds("error_rate<=100%", &d);
	d.errors = 0;
	d.ok = 5;
	holds("error_rate<=0%", &d);
	fails("error_rate<0%", &d, "error_rate = 0%, wanted < 0%");
	d.ok = 0;
	fails("error_rate<=100%", &d,
	      "error_rate = none (no request ended), wanted <= 100%");
}

static void test_rps(void)
{
	struct shb_slo_data d = {.ok = 1000, .errors = 50, .elapsed_ns = 1000000000};
	fails("rps>1000", &d, "rps = 1000.0, wanted > 1000");
	holds("rps>=1000", &d);
	holds("rps>999.999999", &d);
	fails("rps>=1000.000001", &d, "rps = 1000.0, wanted >= 1000.000001");
	holds("rps<1000.5", &d);
	fails("rps<1000", &d, "rps = 1000.0, wanted < 1000");

	/* 2 ok in 3 s: 0.666... req/s, exactly between the limits. */
	d.ok = 2;
	d.elapsed_ns = 3000000000ull;
	holds("rps>0.666666", &d);
	fails("rps>0.666667", &d, "rps = 0.7, wanted > 0.666667");

	/* Huge counts over long runs do not overflow. */
	d.ok = 1000000000000000ull;
	d.elapsed_ns = 1;
	holds("rps>10000000000000", &d);
	d.elapsed_ns = 3600000000000ull * 24 * 365;
	fails("rps>31709792", &d, "rps = 31709792.0, wanted > 31709792");

	/* No time elapsed counts as 0 req/s, as in the report. */
	d.ok = 10;
	d.elapsed_ns = 0;
	holds("rps>=0", &d);
	fails("rps>0", &d, "rps = 0.0, wanted > 0");
}

/* ---- protocol metrics (ABI 1.4) ------------------------------------------ */

static void test_metric_parse(void)
{
	struct shb_slo s;
	char err[256] = "";
	parses("ws_msg_latency.p99<5ms", SHB_SLO_METRIC_PCT, SHB_SLO_LT, 990000,
	       5000000, "ws_msg_latency.p99");
	CU_ASSERT_EQUAL(shb_slo_parse("ws_msg_latency.p99<5ms", &s, err, 256), 0);
	CU_ASSERT_STRING_EQUAL(s.metric_name, "ws_msg_latency");
	CU_ASSERT_EQUAL(s.plain, 0);
	/* a VALUE metric's plain number, in millionths */
	parses("redis_pipeline.p50>=16", SHB_SLO_METRIC_PCT, SHB_SLO_GE, 500000,
	       16000000, "redis_pipeline.p50");
	CU_ASSERT_EQUAL(shb_slo_parse("redis_pipeline.p50>=16", &s, err, 256), 0);
	CU_ASSERT_EQUAL(s.plain, 1);
	parses("redis_pipeline.count>1000", SHB_SLO_METRIC_COUNT, SHB_SLO_GT, 0,
	       1000000000, "redis_pipeline.count");
	/* p99.9 is still the request latency's */
	parses("p99.9<5ms", SHB_SLO_PCT, SHB_SLO_LT, 999000, 5000000, "p99.9");
	refused("ws.mean<5ms", "\"ws.mean<5ms\": a protocol metric is NAME.pNN "
		"or NAME.count (e.g. ws_msg_latency.p99<5ms)");
	refused("Ws.count<5", "\"Ws.count<5\": a protocol metric is NAME.pNN or "
		"NAME.count (e.g. ws_msg_latency.p99<5ms)");
	refused("ws.count<5ms", "\"ws.count<5ms\": expected a number like 1000 "
		"after <");
	refused("ws.p99<5xs", "\"ws.p99<5xs\": expected a duration like 5ms (a "
		"LATENCY metric) or a number like 16 (a VALUE metric) after <");
	refused("ws.p0<5ms", "\"ws.p0<5ms\": the percentile must be above 0 and "
		"at most 100, with at most four decimals (p50, p99.9, p99.9999)");
}

static const struct shb_metric_def mdefs[] = {
	{SHB_METRIC_COUNTER, 0, "ws_msgs", "messages", NULL},
	{SHB_METRIC_LATENCY, 0, "ws_msg_latency", NULL, NULL},
	{SHB_METRIC_VALUE, 0, "depth", "commands", NULL},
};

static void metrics_refused(const char *expr, const char *want)
{
	struct shb_slo s;
	char err[256] = "";
	CU_ASSERT_EQUAL_FATAL(shb_slo_parse(expr, &s, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(shb_slo_metrics_check(&s, 1, mdefs, 3, "ws", err,
					      sizeof(err)), -1);
	if (strcmp(err, want) != 0)
		fprintf(stderr, "\n%s:\n  got  %s\n  want %s\n", expr, err, want);
	CU_ASSERT_STRING_EQUAL(err, want);
}

/* Known once the protocol is: its names, and what each kind takes. */
static void test_metric_names(void)
{
	struct shb_slo s[3];
	char err[256] = "";
	CU_ASSERT_EQUAL(shb_slo_parse("ws_msg_latency.p99<5ms", &s[0], err, 256), 0);
	CU_ASSERT_EQUAL(shb_slo_parse("depth.p90<=16", &s[1], err, 256), 0);
	CU_ASSERT_EQUAL(shb_slo_parse("ws_msgs.count>=1", &s[2], err, 256), 0);
	CU_ASSERT_EQUAL(shb_slo_metrics_check(s, 3, mdefs, 3, "ws", err, 256), 0);
	metrics_refused("ws_msg_lat.p99<5ms", "--slo \"ws_msg_lat.p99\": protocol "
			"\"ws\" has no metric \"ws_msg_lat\" (its metrics: ws_msgs, "
			"ws_msg_latency, depth)");
	metrics_refused("ws_msgs.p99<5", "--slo \"ws_msgs.p99\": ws_msgs of "
			"protocol \"ws\" is a counter: it has a count, no "
			"percentiles");
	metrics_refused("depth.p99<5ms", "--slo \"depth.p99<5ms\": depth of "
			"protocol \"ws\" holds plain numbers: give a number, not "
			"a duration");
	metrics_refused("ws_msg_latency.p99<5", "--slo \"ws_msg_latency.p99<5\": "
			"ws_msg_latency of protocol \"ws\" is a latency: the "
			"limit needs a unit (ns, us, ms, s, m or h)");
	CU_ASSERT_EQUAL(shb_slo_metrics_check(s, 1, NULL, 0, "h1", err, 256), -1);
	CU_ASSERT_STRING_EQUAL(err, "--slo \"ws_msg_latency.p99\": protocol \"h1\" "
			       "has no metric \"ws_msg_latency\" (it declares none)");
	/* gates on the core's numbers need no metric */
	CU_ASSERT_EQUAL(shb_slo_parse("p99<5ms", &s[0], err, 256), 0);
	CU_ASSERT_EQUAL(shb_slo_metrics_check(s, 1, NULL, 0, "h1", err, 256), 0);
}

/* Checked on two workers' metrics merged, at their boundaries. */
static void test_metric_checks(void)
{
	struct shb_stats a, b;
	CU_ASSERT_EQUAL_FATAL(shb_stats_init(&a), 0);
	CU_ASSERT_EQUAL_FATAL(shb_stats_init(&b), 0);
	CU_ASSERT_EQUAL_FATAL(shb_metrics_init(&a.metrics, mdefs, 3), 0);
	CU_ASSERT_EQUAL_FATAL(shb_metrics_init(&b.metrics, mdefs, 3), 0);
	shb_metrics_add(&a.metrics, 0, 600);
	shb_metrics_add(&b.metrics, 0, 400);
	shb_metrics_add(&b.metrics, 1, 5); /* a counter's call on a latency: ignored */
	shb_metrics_record(&a.metrics, 0, 9); /* and the other way round */
	shb_metrics_add(&a.metrics, 7, 1);    /* out of the table */
	for (uint64_t v = 1; v <= 99; v++) /* exact below 2048 */
		shb_metrics_record(&a.metrics, 1, v);
	shb_metrics_record(&b.metrics, 1, 7300000);
	for (int i = 0; i < 4; i++)
		shb_metrics_record(&b.metrics, 2, 16);
	shb_stats_merge(&a, &b);
	CU_ASSERT_EQUAL(shb_metrics_count(&a.metrics, 0), 1000);
	CU_ASSERT_EQUAL(shb_metrics_count(&a.metrics, 1), 100);
	CU_ASSERT_EQUAL(shb_metrics_count(&a.metrics, 2), 4);
	struct shb_metric_value mv[3];
	for (uint32_t i = 0; i < 3; i++)
		mv[i] = (struct shb_metric_value){
			.kind = mdefs[i].kind, .name = mdefs[i].name,
			.count = shb_metrics_count(&a.metrics, i),
			.hist = i ? shb_histo_abi(&a.metrics.hist[i]) : NULL};
	struct shb_slo_data d = {.metrics = mv, .metric_count = 3};
	holds("ws_msgs.count>=1000", &d);
	fails("ws_msgs.count>1000", &d, "ws_msgs.count = 1000, wanted > 1000");
	holds("ws_msg_latency.p99<=99ns", &d);
	fails("ws_msg_latency.p99<99ns", &d, "ws_msg_latency.p99 = 99ns, wanted < 99ns");
	fails("ws_msg_latency.p100<5ms", &d, "ws_msg_latency.p100 = 7.3ms, wanted < 5ms");
	holds("depth.p50<=16", &d);
	fails("depth.p50<16", &d, "depth.p50 = 16, wanted < 16");
	holds("depth.count>=4", &d);
	/* a reset keeps the set; nothing recorded fails a percentile gate */
	shb_stats_reset(&a);
	CU_ASSERT_EQUAL(a.metrics.n, 3);
	mv[1].count = 0;
	fails("ws_msg_latency.p99<1h", &d, "ws_msg_latency.p99 = none (no value "
	      "recorded), wanted < 1h");
	fails("other.count>=0", &d, "other.count = none (no such metric in the "
	      "results), wanted >= 0");
	shb_stats_destroy(&a);
	shb_stats_destroy(&b);
}

static CU_TestInfo slo_tests[] = {
	{"protocol metric gates parsed", test_metric_parse},
	{"protocol metric names checked", test_metric_names},
	{"protocol metric gates checked", test_metric_checks},
	{"good expressions", test_parse_good},
	{"every parse error", test_parse_errors},
	{"percentiles at their boundaries", test_percentiles_exact},
	{"percentiles of merged stats", test_percentile_merged},
	{"error rate at its boundaries", test_error_rate},
	{"rps at its boundaries", test_rps},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"slo", NULL, NULL, NULL, NULL, slo_tests},
	CU_SUITE_INFO_NULL,
};
