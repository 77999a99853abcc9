/* Plugin options and descriptor-driven settling: --proto-opt and
 * --report-opt checked against option_defs, the strings and pairs the
 * plugins get, scheme_defs and the datagram limits of a descriptor (whose
 * form the loader checks: tests/loader). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "cli/config.h"
#include "cli/plugin_opts.h"
#include "loader/proto_pick.h"
#include "test_util.h"

static const struct shb_option_def fx_opts[] = {
	{"tag", "TEXT", "a word echoed back"},
	{"fail", NULL, "module_create fails"},
	{NULL, NULL, NULL},
};

static const struct shb_option_def no_opts[] = {{NULL, NULL, NULL}};

static const struct shb_scheme fx_schemes[] = {
	{"fx", 7070, 0},
	{"fxs", 7443, SHB_SCHEME_TLS},
	{NULL, 0, 0},
};

static const char *const http_schemes[] = {"http", "https", NULL};
static const char *const https_only[] = {"https", NULL};

/* A 1.2 descriptor, filled as a plugin would. */
static struct shb_proto_desc fx_desc(void)
{
	struct shb_proto_desc d;

	memset(&d, 0, sizeof(d));
	d.struct_size = sizeof(d);
	d.transport = SHB_TRANSPORT_STREAM;
	d.name = "fx";
	d.schemes = http_schemes;
	d.scheme_defs = fx_schemes;
	d.option_defs = fx_opts;
	return d;
}

/* The one line settling cfg for d gives, or "" when it succeeds. */
static void expect_settle(const struct shb_proto_desc *d, const char *want,
			  const char *const *args)
{
	struct shb_config cfg;
	char err[512] = "";

	CU_ASSERT_EQUAL_FATAL(shb_test_parse(&cfg, err, sizeof(err), args), 0);
	err[0] = '\0';
	int rc = shb_proto_settle(&cfg, &cfg.url, cfg.url_text, d, err,
				  sizeof(err));
	CU_ASSERT_EQUAL(rc, want[0] ? -1 : 0);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (strcmp(err, want) != 0)
		fprintf(stderr, "\n  got: %s\n want: %s\n", err, want);
	shb_config_free(&cfg);
}

#define EXPECT_SETTLE(d, want, ...)                                            \
	expect_settle((d), (want), (const char *const[]){__VA_ARGS__, NULL})

static void test_proto_option_checks(void)
{
	struct shb_proto_desc d = fx_desc();

	EXPECT_SETTLE(&d, "", "--proto-opt", "tag=x", "--proto-opt", "fail",
		      "fx://h/");
	EXPECT_SETTLE(&d, "--proto-opt \"bogus=1\": protocol fx has no option "
			  "\"bogus\" (known: tag=TEXT, fail)",
		      "--proto-opt", "tag=x", "--proto-opt", "bogus=1",
		      "fx://h/");
	EXPECT_SETTLE(&d, "--proto-opt \"fail=yes\": option \"fail\" of "
			  "protocol fx takes no value (give it as fail alone)",
		      "--proto-opt", "fail=yes", "fx://h/");
	EXPECT_SETTLE(&d, "--proto-opt \"tag\": option \"tag\" of protocol fx "
			  "needs a value (tag=TEXT)",
		      "--proto-opt", "tag", "fx://h/");
	d.option_defs = no_opts;
	EXPECT_SETTLE(&d, "--proto-opt \"tag=x\": protocol fx has no option "
			  "\"tag\" (it takes none)",
		      "--proto-opt", "tag=x", "fx://h/");
	/* Without option_defs every key goes to module_create. */
	d.option_defs = NULL;
	EXPECT_SETTLE(&d, "", "--proto-opt", "anything=1", "--proto-opt",
		      "flag", "fx://h/");
	/* A 1.1 descriptor ends before option_defs: never read. */
	d = fx_desc();
	d.struct_size = (uint32_t)offsetof(struct shb_proto_desc, scheme_defs);
	EXPECT_SETTLE(&d, "", "--proto-opt", "bogus", "http://h/");
}

static void test_proto_option_pairs(void)
{
	struct shb_proto_desc d = fx_desc();
	struct shb_config cfg;
	struct shb_kv *kv;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--proto-opt", "tag=a=b",
				    "--proto-opt", "fail", "--proto-opt",
				    "tag=", "fx://h/"), 0);
	CU_ASSERT_EQUAL_FATAL(shb_proto_opts(&cfg, &d, &kv, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(kv);
	CU_ASSERT_STRING_EQUAL(kv[0].key, "tag");
	CU_ASSERT_STRING_EQUAL(kv[0].value, "a=b");
	CU_ASSERT_STRING_EQUAL(kv[1].key, "fail");
	CU_ASSERT_STRING_EQUAL(kv[1].value, ""); /* a flag */
	CU_ASSERT_STRING_EQUAL(kv[2].key, "tag");
	CU_ASSERT_STRING_EQUAL(kv[2].value, "");
	free(kv);
	shb_config_free(&cfg);

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "fx://h/"), 0);
	kv = (struct shb_kv *)1;
	CU_ASSERT_EQUAL(shb_proto_opts(&cfg, &d, &kv, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NULL(kv);
	shb_config_free(&cfg);
}

static struct shb_report_desc report_desc(const char *name,
					  const struct shb_option_def *defs)
{
	struct shb_report_desc d;

	memset(&d, 0, sizeof(d));
	d.struct_size = sizeof(d);
	d.name = name;
	d.option_defs = defs;
	return d;
}

static void test_report_options(void)
{
	static const struct shb_option_def json_defs[] = {
		{"compact", NULL, ""}, {"indent", "N", ""}, {NULL, NULL, NULL}};
	struct shb_report_desc json = report_desc("json", json_defs);
	struct shb_report_desc text = report_desc("text", no_opts);
	struct shb_report_desc csv = report_desc("csv", NULL);
	struct shb_config cfg;
	unsigned char used[4] = {0};
	char err[512], *s;

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--report", "text,json:o.json,"
				    "/p/shb-report-csv.so", "--report-opt",
				    "json.indent=2", "--report-opt",
				    "csv.anything=x=y", "--report-opt",
				    "json.compact", "http://h/"), 0);
	CU_ASSERT_EQUAL(shb_report_opts(&cfg, "text", &text, &s, used, err,
					sizeof(err)), 0);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_EQUAL(shb_report_opts(&cfg, "json", &json, &s, used, err,
					sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(s, "indent=2,compact");
	free(s);
	CU_ASSERT_EQUAL(used[0] + used[1] + used[2], 2);
	CU_ASSERT_EQUAL(shb_report_opts_unused(&cfg, used, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--report-opt \"csv.anything=x=y\": "
				    "reporter csv is not in this run (--report "
				    "text,json,/p/shb-report-csv.so)");
	/* A reporter given by path is found by its descriptor's name; one
	 * without option_defs validates alone. */
	CU_ASSERT_EQUAL(shb_report_opts(&cfg, "/p/shb-report-csv.so", &csv, &s,
					used, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(s, "anything=x=y");
	free(s);
	CU_ASSERT_EQUAL(shb_report_opts_unused(&cfg, used, err, sizeof(err)), 0);
	shb_config_free(&cfg);

	memset(used, 0, sizeof(used));
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--report", "json", "--report-opt",
				    "json.pretty", "http://h/"), 0);
	CU_ASSERT_EQUAL(shb_report_opts(&cfg, "json", &json, &s, used, err,
					sizeof(err)), -1);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_STRING_EQUAL(err, "--report-opt \"json.pretty\": reporter "
				    "json has no option \"pretty\" (known: "
				    "compact, indent=N)");
	shb_config_free(&cfg);

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--report-opt", "text.x",
				    "http://h/"), 0);
	CU_ASSERT_EQUAL(shb_report_opts(&cfg, "text", &text, &s, used, err,
					sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--report-opt \"text.x\": reporter text "
				    "has no option \"x\" (it takes none)");
	shb_config_free(&cfg);

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--report", "json", "--report-opt",
				    "json.compact=1", "--report-opt",
				    "json.indent", "http://h/"), 0);
	CU_ASSERT_EQUAL(shb_report_opts(&cfg, "json", &json, &s, used, err,
					sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--report-opt \"json.compact=1\": option "
				    "\"compact\" of reporter json takes no value "
				    "(give it as compact alone)");
	shb_config_free(&cfg);
}

static void test_schemes_and_protocols(void)
{
	struct shb_proto_desc d = fx_desc();

	EXPECT_SETTLE(&d, "", "fxs://h/");
	EXPECT_SETTLE(&d, "invalid URL \"http://h/\": scheme must be fx or fxs "
			  "for protocol fx", "http://h/");
	EXPECT_SETTLE(&d, "invalid URL \"ws://h/\": scheme must be fx or fxs "
			  "for protocol fx", "ws://h/");
	EXPECT_SETTLE(&d, "--sni a.example: SNI is sent only over TLS, and "
			  "fx:// does not run over TLS",
		      "--sni", "a.example", "fx://h/");
	EXPECT_SETTLE(&d, "", "--sni", "a.example", "fxs://h/");
	/* Without scheme_defs: http and https, as far as `schemes` lists. */
	d.scheme_defs = NULL;
	EXPECT_SETTLE(&d, "", "https://h/");
	EXPECT_SETTLE(&d, "invalid URL \"fx://h/\": scheme must be http or "
			  "https for protocol fx", "fx://h/");
	d.schemes = https_only;
	EXPECT_SETTLE(&d, "protocol fx does not support http:// URLs",
		      "http://h/");

	struct shb_config cfg;
	char err[256];
	d = fx_desc();
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "FXS://[::1]/p"), 0);
	CU_ASSERT_EQUAL(shb_proto_settle(&cfg, &cfg.url, cfg.url_text, &d, err,
					 sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(cfg.url.scheme, "fxs");
	CU_ASSERT_EQUAL(cfg.url.tls, 1);
	CU_ASSERT_EQUAL(cfg.url.port, 7443);
	CU_ASSERT_STRING_EQUAL(cfg.url.authority, "[::1]");
	CU_ASSERT_STRING_EQUAL(cfg.url_text, "FXS://[::1]/p");
	shb_config_free(&cfg);
}

static void test_dgram_limits(void)
{
	struct shb_proto_desc d = fx_desc();
	uint32_t m, t;

	d.transport = SHB_TRANSPORT_DGRAM;
	static const struct {
		uint32_t max_dgram, max_train;
		int gso;
		uint32_t m, t;
	} cases[] = {
		{0, 0, 1, 1200, 54},      /* 64 would pass 65507 bytes */
		{0, 0, 0, 1200, 1},       /* no GSO: one datagram a send */
		{1200, 10, 1, 1200, 10},
		{1200, 1000, 1, 1200, 54},
		{1000, 0, 1, 1000, 64},
		{9000, 0, 1, 9000, 7},
		{65527, 8, 1, 65527, 1},
		{1, 0, 1, 1, 64},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		d.max_dgram = cases[i].max_dgram;
		d.max_train = cases[i].max_train;
		shb_proto_dgram_limits(&d, cases[i].gso, &m, &t);
		CU_ASSERT_EQUAL(m, cases[i].m);
		CU_ASSERT_EQUAL(t, cases[i].t);
		CU_ASSERT((uint64_t)m * t <= SHB_TRAIN_BYTES_MAX || t == 1);
	}
	/* A 1.1 descriptor has neither member: the defaults. */
	d.max_dgram = 9000;
	d.max_train = 2;
	d.struct_size = (uint32_t)offsetof(struct shb_proto_desc, scheme_defs);
	shb_proto_dgram_limits(&d, 1, &m, &t);
	CU_ASSERT_EQUAL(m, 1200);
	CU_ASSERT_EQUAL(t, 54);
}

CU_TestInfo shb_plugin_opt_tests[] = {
	{"protocol options against option_defs", test_proto_option_checks},
	{"protocol option pairs", test_proto_option_pairs},
	{"reporter options", test_report_options},
	{"schemes of a protocol", test_schemes_and_protocols},
	{"datagram limits", test_dgram_limits},
	CU_TEST_INFO_NULL,
};
