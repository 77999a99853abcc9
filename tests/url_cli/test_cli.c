/* Command-line parsing: defaults, every option in each spelling, the
 * load model's and the reports' options (test_cli_body.c: headers and
 * bodies; test_cli_values.c: numbers, durations, rates and the exact
 * message of every usage error; test_cli_targets.c: routing, TLS, plugin
 * options, schemes and comparisons). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "cli/cli_scheme.h"
#include "cli/compare.h"
#include "cli/config.h"
#include "common/quote.h"
#include "test_util.h"

#define URL "http://example.com/x"
#define TLS_URL "https://example.com/x" /* --cacert needs TLS */

static void test_defaults(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, URL), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_STRING_EQUAL(cfg.url_text, URL);
	CU_ASSERT_STRING_EQUAL(cfg.url.host, "example.com");
	CU_ASSERT_STRING_EQUAL(cfg.url.path, "/x");
	CU_ASSERT_STRING_EQUAL(cfg.proto, "h1");
	CU_ASSERT_EQUAL_FATAL(cfg.report_count, 1);
	CU_ASSERT_STRING_EQUAL(cfg.reports[0].name, "text");
	CU_ASSERT_PTR_NULL(cfg.reports[0].path);
	CU_ASSERT_EQUAL(cfg.connections, 50);
	CU_ASSERT_EQUAL(cfg.parallel, 1);
	CU_ASSERT_EQUAL(cfg.threads, 0);
	CU_ASSERT_EQUAL(cfg.requests, 200);
	CU_ASSERT_EQUAL(cfg.duration_ns, 0);
	CU_ASSERT_STRING_EQUAL(cfg.method, "GET");
	CU_ASSERT_EQUAL(cfg.header_count, 0);
	CU_ASSERT_PTR_NULL(cfg.host_header);
	CU_ASSERT_PTR_NULL(cfg.body);
	CU_ASSERT_EQUAL(cfg.body_len, 0);
	CU_ASSERT_EQUAL(cfg.has_body, 0);
	CU_ASSERT_EQUAL(cfg.connect_timeout_ns, 5000000000ull);
	CU_ASSERT_EQUAL(cfg.timeout_ns, 0);
	CU_ASSERT_EQUAL(cfg.disable_keepalive, 0);
	CU_ASSERT_EQUAL(cfg.batch_size, 0);
	CU_ASSERT_EQUAL(cfg.batch_linger_us, 0); /* automatic */
	CU_ASSERT_EQUAL(cfg.plugin_dir_count, 0);
	CU_ASSERT_EQUAL(cfg.list_plugins, 0);
	CU_ASSERT_EQUAL(cfg.verify, 0);
	CU_ASSERT_PTR_NULL(cfg.cacert);
	CU_ASSERT_EQUAL(cfg.quiet, 0);
	CU_ASSERT_EQUAL(cfg.help, 0);
	CU_ASSERT_EQUAL(cfg.version, 0);
	shb_config_free(&cfg);
}

/* What every spelling of the "all options" command line must give. */
static void check_all(struct shb_config *cfg, const char *cacert)
{
	CU_ASSERT_STRING_EQUAL(cfg->proto, "h2");
	CU_ASSERT_EQUAL_FATAL(cfg->report_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg->reports[0].name, "text");
	CU_ASSERT_PTR_NULL(cfg->reports[0].path);
	CU_ASSERT_STRING_EQUAL(cfg->reports[1].name, "json");
	CU_ASSERT_STRING_EQUAL(cfg->reports[1].path, "out.json");
	CU_ASSERT_EQUAL(cfg->connections, 10);
	CU_ASSERT_EQUAL(cfg->parallel, 4);
	CU_ASSERT_EQUAL(cfg->requests, 1000);
	CU_ASSERT_EQUAL(cfg->duration_ns, 0);
	CU_ASSERT_EQUAL(cfg->threads, 3);
	CU_ASSERT_STRING_EQUAL(cfg->method, "PUT");
	CU_ASSERT_EQUAL_FATAL(cfg->header_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg->headers[0].name, "X-A");
	CU_ASSERT_STRING_EQUAL(cfg->headers[0].value, "1");
	CU_ASSERT_STRING_EQUAL(cfg->headers[1].name, "Content-Type");
	CU_ASSERT_STRING_EQUAL(cfg->headers[1].value,
			       "application/x-www-form-urlencoded");
	CU_ASSERT_EQUAL(cfg->has_body, 1);
	CU_ASSERT_EQUAL(cfg->body_len, 3);
	CU_ASSERT_EQUAL(memcmp(cfg->body, "abc", 3), 0);
	CU_ASSERT_EQUAL(cfg->connect_timeout_ns, 2000000000ull);
	CU_ASSERT_EQUAL(cfg->timeout_ns, 1500000000ull);
	CU_ASSERT_EQUAL(cfg->disable_keepalive, 1);
	CU_ASSERT_EQUAL(cfg->batch_size, 64);
	CU_ASSERT_EQUAL(cfg->batch_linger_us, 100);
	CU_ASSERT_EQUAL_FATAL(cfg->plugin_dir_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg->plugin_dirs[0], "d1");
	CU_ASSERT_STRING_EQUAL(cfg->plugin_dirs[1], "d2");
	CU_ASSERT_EQUAL(cfg->list_plugins, 1);
	CU_ASSERT_EQUAL(cfg->verify, 1);
	CU_ASSERT_STRING_EQUAL(cfg->cacert, cacert);
	CU_ASSERT_EQUAL(cfg->quiet, 1);
	CU_ASSERT_STRING_EQUAL(cfg->url.authority, "example.com");
}

static char *arg_eq(const char *opt, const char *val)
{
	char *s;
	if (asprintf(&s, "%s=%s", opt, val) < 0)
		return NULL;
	return s;
}

static void test_all_options_long(void)
{
	struct shb_config cfg;
	char err[256];
	char *dir = shb_test_mkdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	char *ca = shb_test_write(dir, "ca.pem", "x", 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ca);

	int rc = PARSE(&cfg, err, "--proto", "h2", "--report",
		       "text,json:out.json", "--connections", "10",
		       "--parallel", "4", "--requests", "1000", "--threads",
		       "3", "--method", "PUT", "--header", "X-A:  1 ", "--data",
		       "abc", "--connect-timeout", "2s", "--timeout", "1500ms",
		       "--disable-keepalive", "--batch-size", "64",
		       "--batch-linger", "100", "--plugin-dir", "d1",
		       "--plugin-dir", "d2", "--list-plugins", "--verify",
		       "--cacert", ca, "--quiet", TLS_URL);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	check_all(&cfg, ca);
	shb_config_free(&cfg);

	/* The same with --opt=value everywhere. */
	char *ca_eq = arg_eq("--cacert", ca);
	rc = PARSE(&cfg, err, "--proto=h2", "--report=text,json:out.json",
		   "--connections=10", "--parallel=4", "--requests=1000",
		   "--threads=3", "--method=PUT", "--header=X-A:1",
		   "--data=abc", "--connect-timeout=2s", "--timeout=1.5s",
		   "--disable-keepalive", "--batch-size=64",
		   "--batch-linger=100", "--plugin-dir=d1", "--plugin-dir=d2",
		   "--list-plugins", "--verify", ca_eq, "--quiet", TLS_URL);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	check_all(&cfg, ca);
	shb_config_free(&cfg);
	free(ca_eq);
	free(ca);
	shb_test_rmdir(dir);
}

static void test_all_options_short(void)
{
	struct shb_config cfg;
	char err[256];
	char *dir = shb_test_mkdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	char *ca = shb_test_write(dir, "ca.pem", "x", 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ca);

	/* Attached values, URL first, options after it. */
	int rc = PARSE(&cfg, err, TLS_URL, "--http2", "--report", "text",
		       "--report", "json:out.json", "-c10", "-p4", "-n1000",
		       "-t3", "-mPUT", "-HX-A: 1", "-dabc",
		       "--connect-timeout", "2", "--timeout", "0.0250m",
		       "--disable-keepalive", "--batch-size", "64",
		       "--batch-linger", "100", "--plugin-dir", "d1",
		       "--plugin-dir", "d2", "--list-plugins", "--verify",
		       "--cacert", ca, "-q");
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	check_all(&cfg, ca);
	shb_config_free(&cfg);

	/* Separate values and a cluster of flags ending in one with a
	 * value. */
	rc = PARSE(&cfg, err, "--proto", "h3", "--http2", "--report",
		   "text,json:out.json", "-c", "10", "-p", "4", "-n", "1000",
		   "-t", "3", "-X", "PUT", "-H", "X-A: 1", "-d", "abc",
		   "--connect-timeout", "2000ms", "--timeout", "1.5",
		   "--disable-keepalive", "--batch-size", "64",
		   "--batch-linger", "100", "--plugin-dir", "d1",
		   "--plugin-dir", "d2", "--list-plugins", "--verify",
		   "--cacert", ca, TLS_URL, "-qc", "10");
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	check_all(&cfg, ca);
	shb_config_free(&cfg);
	free(ca);
	shb_test_rmdir(dir);
}

/* "-cN" is split at every offset into "-c" "N": same result. */
static void test_attached_vs_separate(void)
{
	static const char *const words[] = {"-c123", "-n456", "-t7", "-p12",
					    "-mPATCH", "-HX-Y:z", "-z1m30s"};
	for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
		struct shb_config a, b;
		char err[256];
		char opt[3] = {words[w][0], words[w][1], '\0'};
		CU_ASSERT_EQUAL_FATAL(PARSE(&a, err, words[w], URL), 0);
		CU_ASSERT_EQUAL_FATAL(PARSE(&b, err, opt, words[w] + 2, URL),
				      0);
		CU_ASSERT_EQUAL(a.connections, b.connections);
		CU_ASSERT_EQUAL(a.requests, b.requests);
		CU_ASSERT_EQUAL(a.threads, b.threads);
		CU_ASSERT_EQUAL(a.parallel, b.parallel);
		CU_ASSERT_EQUAL(a.duration_ns, b.duration_ns);
		CU_ASSERT_STRING_EQUAL(a.method, b.method);
		CU_ASSERT_EQUAL(a.header_count, b.header_count);
		shb_config_free(&a);
		shb_config_free(&b);
	}
}

static void test_duration_mode(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-z", "1m30s", URL), 0);
	CU_ASSERT_EQUAL(cfg.duration_ns, 90000000000ull);
	CU_ASSERT_EQUAL(cfg.requests, 0);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--duration=10", URL), 0);
	CU_ASSERT_EQUAL(cfg.duration_ns, 10000000000ull);
	CU_ASSERT_EQUAL(cfg.requests, 0);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-n", "7", URL), 0);
	CU_ASSERT_EQUAL(cfg.requests, 7);
	CU_ASSERT_EQUAL(cfg.duration_ns, 0);
	shb_config_free(&cfg);
	EXPECT_ERROR("-n/--requests and -z/--duration cannot be combined: "
		     "give a request count or a duration",
		     "-n", "5", "-z", "10s", URL);
	EXPECT_ERROR("-n/--requests and -z/--duration cannot be combined: "
		     "give a request count or a duration",
		     "--duration=1s", URL, "--requests=200");
}

static void test_proto_and_method(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--http3", URL), 0);
	CU_ASSERT_STRING_EQUAL(cfg.proto, "h3");
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--http2", "--proto",
				    "./my-proto.so", URL), 0);
	CU_ASSERT_STRING_EQUAL(cfg.proto, "./my-proto.so");
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-X", "M-SEARCH", URL), 0);
	CU_ASSERT_STRING_EQUAL(cfg.method, "M-SEARCH");
	CU_ASSERT_EQUAL(cfg.has_body, 0);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-m", "!#$%&'*+-.^_`|~09aZ",
				    URL), 0);
	CU_ASSERT_STRING_EQUAL(cfg.method, "!#$%&'*+-.^_`|~09aZ");
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-d", "x", "-m", "PUT", URL), 0);
	CU_ASSERT_STRING_EQUAL(cfg.method, "PUT");
	shb_config_free(&cfg);
}

static void test_reports(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-j", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.report_count, 1);
	CU_ASSERT_STRING_EQUAL(cfg.reports[0].name, "json");
	CU_ASSERT_PTR_NULL(cfg.reports[0].path);
	shb_config_free(&cfg);

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--json", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.report_count, 1);
	CU_ASSERT_STRING_EQUAL(cfg.reports[0].name, "json");
	shb_config_free(&cfg);

	/* -j adds json to stdout to an explicit list... */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-j", "--report", "csv:r.csv",
				    URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.report_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg.reports[0].name, "csv");
	CU_ASSERT_STRING_EQUAL(cfg.reports[0].path, "r.csv");
	CU_ASSERT_STRING_EQUAL(cfg.reports[1].name, "json");
	CU_ASSERT_PTR_NULL(cfg.reports[1].path);
	shb_config_free(&cfg);

	/* ...unless it already has it; json to a file does not count. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--report", "text,json", "-j",
				    URL), 0);
	CU_ASSERT_EQUAL(cfg.report_count, 2);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--report=json:j.json", "-qj",
				    URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.report_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg.reports[0].path, "j.json");
	CU_ASSERT_PTR_NULL(cfg.reports[1].path);
	CU_ASSERT_EQUAL(cfg.quiet, 1);
	shb_config_free(&cfg);

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--report",
				    "./r.so:a:b,text", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.report_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg.reports[0].name, "./r.so");
	CU_ASSERT_STRING_EQUAL(cfg.reports[0].path, "a:b");
	CU_ASSERT_STRING_EQUAL(cfg.reports[1].name, "text");
	shb_config_free(&cfg);
}

/* --tui: the reporter tui, first (it leaves the screen before the others
 * print there), the progress line off; --report tui likewise; never to a
 * file. Whether stdout is a terminal is main's check. */
static void test_tui(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--tui", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.report_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg.reports[0].name, "tui");
	CU_ASSERT_PTR_NULL(cfg.reports[0].path);
	CU_ASSERT_STRING_EQUAL(cfg.reports[1].name, "text");
	CU_ASSERT_EQUAL(cfg.tui, 1);
	CU_ASSERT_EQUAL(cfg.quiet, 1);
	CU_ASSERT_EQUAL(cfg.interval_ns, 0); /* the reporter asks: 1s */
	shb_config_free(&cfg);

	/* an explicit list keeps its order behind tui, and no text is added */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--report", "json:a.json,csv",
				    "--tui", "--interval", "250ms", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.report_count, 3);
	CU_ASSERT_STRING_EQUAL(cfg.reports[0].name, "tui");
	CU_ASSERT_STRING_EQUAL(cfg.reports[1].name, "json");
	CU_ASSERT_STRING_EQUAL(cfg.reports[1].path, "a.json");
	CU_ASSERT_STRING_EQUAL(cfg.reports[2].name, "csv");
	CU_ASSERT_EQUAL(cfg.interval_ns, 250000000u);
	shb_config_free(&cfg);

	/* --report tui is moved first, once, also with --tui */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--report", "text,json,tui",
				    "--tui", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.report_count, 3);
	CU_ASSERT_STRING_EQUAL(cfg.reports[0].name, "tui");
	CU_ASSERT_STRING_EQUAL(cfg.reports[1].name, "text");
	CU_ASSERT_STRING_EQUAL(cfg.reports[2].name, "json");
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--report", "text,tui", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.report_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg.reports[0].name, "tui");
	CU_ASSERT_STRING_EQUAL(cfg.reports[1].name, "text");
	CU_ASSERT_EQUAL(cfg.tui, 1);
	CU_ASSERT_EQUAL(cfg.quiet, 1);
	shb_config_free(&cfg);

	/* without either, nothing changes */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, URL), 0);
	CU_ASSERT_EQUAL(cfg.tui, 0);
	CU_ASSERT_EQUAL(cfg.quiet, 0);
	shb_config_free(&cfg);

	EXPECT_ERROR("--report tui:s.txt: the tui reporter draws on the "
		     "terminal, never to a file; give it no FILE",
		     "--report", "tui:s.txt", URL);
	EXPECT_ERROR("--report tui:s.txt: the tui reporter draws on the "
		     "terminal, never to a file; give it no FILE",
		     "--tui", "--report", "text,tui:s.txt", URL);
	EXPECT_ERROR("--tui: takes no value", "--tui=1", URL);
}

CU_TestInfo shb_cli_tests[] = {
	{"defaults", test_defaults},
	{"all options, long", test_all_options_long},
	{"all options, short", test_all_options_short},
	{"attached vs separate values", test_attached_vs_separate},
	{"-n / -z", test_duration_mode},
	{"proto and method", test_proto_and_method},
	{"reports and -j", test_reports},
	{"--tui and --report tui", test_tui},
	CU_TEST_INFO_NULL,
};
