/* Command-line parsing: defaults, every option in each spelling, bodies
 * from files and stdin, and the exact message of every usage error. */
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

static void test_headers(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-H", "X-Empty:", "-H",
				    "A:\tb c\t ", "-H", "a: 2", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.header_count, 3);
	CU_ASSERT_STRING_EQUAL(cfg.headers[0].name, "X-Empty");
	CU_ASSERT_STRING_EQUAL(cfg.headers[0].value, "");
	CU_ASSERT_STRING_EQUAL(cfg.headers[1].name, "A");
	CU_ASSERT_STRING_EQUAL(cfg.headers[1].value, "b c");
	CU_ASSERT_STRING_EQUAL(cfg.headers[2].name, "a");
	CU_ASSERT_STRING_EQUAL(cfg.headers[2].value, "2");
	CU_ASSERT_PTR_NULL(cfg.host_header);
	shb_config_free(&cfg);

	/* Host goes aside, whatever its case; the last one wins. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-H", "HOST:  a.example  ",
				    "-H", "X: y", "-H", "host: b.example:81",
				    URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.header_count, 1);
	CU_ASSERT_STRING_EQUAL(cfg.headers[0].name, "X");
	CU_ASSERT_STRING_EQUAL(cfg.host_header, "b.example:81");
	CU_ASSERT_STRING_EQUAL(cfg.url.authority, "example.com");
	shb_config_free(&cfg);

	/* "Hosts" is not Host. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-H", "Hosts: x", URL), 0);
	CU_ASSERT_EQUAL(cfg.header_count, 1);
	CU_ASSERT_PTR_NULL(cfg.host_header);
	shb_config_free(&cfg);
}

static void test_content_type(void)
{
	struct shb_config cfg;
	char err[256];

	/* Added after the user's headers when a body has none. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-H", "X: 1", "-d", "a=1", URL),
			      0);
	CU_ASSERT_STRING_EQUAL(cfg.method, "POST");
	CU_ASSERT_EQUAL_FATAL(cfg.header_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg.headers[1].name, "Content-Type");
	CU_ASSERT_STRING_EQUAL(cfg.headers[1].value,
			       "application/x-www-form-urlencoded");
	shb_config_free(&cfg);

	/* Not when given, in any case and in any position. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--data-binary", "{}", "-H",
				    "content-TYPE: application/json", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.header_count, 1);
	CU_ASSERT_STRING_EQUAL(cfg.headers[0].value, "application/json");
	shb_config_free(&cfg);

	/* Not without a body. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-m", "POST", URL), 0);
	CU_ASSERT_EQUAL(cfg.header_count, 0);
	CU_ASSERT_EQUAL(cfg.has_body, 0);
	shb_config_free(&cfg);

	/* An empty body is still a body. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-d", "", URL), 0);
	CU_ASSERT_EQUAL(cfg.has_body, 1);
	CU_ASSERT_EQUAL(cfg.body_len, 0);
	CU_ASSERT_STRING_EQUAL(cfg.method, "POST");
	CU_ASSERT_EQUAL(cfg.header_count, 1);
	shb_config_free(&cfg);
}

static void test_body_sources(void)
{
	static const char crlf[] = "a=1\r\nb=2\n\rc=3\n";
	struct shb_config cfg;
	char err[256];
	uint8_t bin[300];
	char *dir = shb_test_mkdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);

	char *text = shb_test_write(dir, "text.txt", crlf, sizeof(crlf) - 1);
	for (size_t i = 0; i < sizeof(bin); i++)
		bin[i] = (uint8_t)(i * 7);
	char *binf = shb_test_write(dir, "bin", bin, sizeof(bin));
	char *empty = shb_test_write(dir, "empty", "", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(binf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(empty);
	char *at_text = NULL, *at_bin = NULL, *at_empty = NULL;
	CU_ASSERT_FATAL(asprintf(&at_text, "@%s", text) > 0);
	CU_ASSERT_FATAL(asprintf(&at_bin, "@%s", binf) > 0);
	CU_ASSERT_FATAL(asprintf(&at_empty, "@%s", empty) > 0);

	/* -d strips CR and LF from a file... */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-d", at_text, URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.body_len, 9);
	CU_ASSERT_EQUAL(memcmp(cfg.body, "a=1b=2c=3", 9), 0);
	shb_config_free(&cfg);

	/* ...--data-binary keeps every byte... */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--data-binary", at_text, URL),
			      0);
	CU_ASSERT_EQUAL_FATAL(cfg.body_len, sizeof(crlf) - 1);
	CU_ASSERT_EQUAL(memcmp(cfg.body, crlf, sizeof(crlf) - 1), 0);
	shb_config_free(&cfg);

	/* ...and a literal is never stripped. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--data", "x\r\ny", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.body_len, 4);
	CU_ASSERT_EQUAL(memcmp(cfg.body, "x\r\ny", 4), 0);
	shb_config_free(&cfg);

	/* Binary bytes, NULs included, survive --data-binary exactly. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--data-binary", at_bin, URL),
			      0);
	CU_ASSERT_EQUAL_FATAL(cfg.body_len, sizeof(bin));
	CU_ASSERT_EQUAL(memcmp(cfg.body, bin, sizeof(bin)), 0);
	shb_config_free(&cfg);

	/* -d on the same bytes drops only the 13s and 10s. */
	uint8_t want[300];
	size_t wn = 0;
	for (size_t i = 0; i < sizeof(bin); i++)
		if (bin[i] != '\r' && bin[i] != '\n')
			want[wn++] = bin[i];
	CU_ASSERT(wn < sizeof(bin));
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-d", at_bin, URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.body_len, wn);
	CU_ASSERT_EQUAL(memcmp(cfg.body, want, wn), 0);
	shb_config_free(&cfg);

	/* Several parts are joined with '&', as curl does. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-d", "a=1", "--data-binary",
				    at_empty, "-d", at_text, URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.body_len, 14);
	CU_ASSERT_EQUAL(memcmp(cfg.body, "a=1&&a=1b=2c=3", 14), 0);
	shb_config_free(&cfg);

	free(at_text);
	free(at_bin);
	free(at_empty);
	free(text);
	free(binf);
	free(empty);
	shb_test_rmdir(dir);
}

/* A file far larger than any read buffer is read in full. */
static void test_body_large_file(void)
{
	struct shb_config cfg;
	char err[256];
	size_t n = 3 * 1024 * 1024 + 17;
	uint8_t *big = malloc(n);
	char *dir = shb_test_mkdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);

	for (size_t i = 0; i < n; i++)
		big[i] = (uint8_t)(i % 251);
	char *f = shb_test_write(dir, "big", big, n);
	char *at = NULL;
	CU_ASSERT_FATAL(f && asprintf(&at, "@%s", f) > 0);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--data-binary", at, URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.body_len, n);
	CU_ASSERT_EQUAL(memcmp(cfg.body, big, n), 0);
	shb_config_free(&cfg);
	free(at);
	free(f);
	free(big);
	shb_test_rmdir(dir);
}

/* @- reads standard input to its end. */
static void test_body_stdin(void)
{
	static const char data[] = "k=v\r\n\0z";
	struct shb_config cfg;
	char err[256];
	char *dir = shb_test_mkdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	char *f = shb_test_write(dir, "in", data, sizeof(data) - 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);

	int saved = dup(STDIN_FILENO);
	int fd = open(f, O_RDONLY);
	CU_ASSERT_FATAL(saved >= 0 && fd >= 0);
	CU_ASSERT_FATAL(dup2(fd, STDIN_FILENO) == STDIN_FILENO);
	int rc = PARSE(&cfg, err, "-d", "@-", URL);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(cfg.body_len, 5);
	if (cfg.body_len == 5)
		CU_ASSERT_EQUAL(memcmp(cfg.body, "k=v\0z", 5), 0);
	shb_config_free(&cfg);

	CU_ASSERT_FATAL(lseek(STDIN_FILENO, 0, SEEK_SET) == 0);
	rc = PARSE(&cfg, err, "--data-binary", "@-", URL);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(cfg.body_len, sizeof(data) - 1);
	if (cfg.body_len == sizeof(data) - 1)
		CU_ASSERT_EQUAL(memcmp(cfg.body, data, sizeof(data) - 1), 0);
	shb_config_free(&cfg);

	dup2(saved, STDIN_FILENO);
	close(saved);
	close(fd);
	free(f);
	shb_test_rmdir(dir);
}

/* A sparse file of n bytes (zeros), cheap whatever n is. */
static char *sparse_file(const char *dir, const char *name, off_t n)
{
	char *p = shb_test_write(dir, name, "", 0);

	if (p && truncate(p, n) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

/* A child that writes n bytes into fd (then exits); its pid. */
static pid_t writer(int fd, size_t n)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	static char chunk[65536];
	memset(chunk, 'w', sizeof(chunk));
	while (n > 0) {
		size_t k = n < sizeof(chunk) ? n : sizeof(chunk);
		ssize_t w = write(fd, chunk, k);
		if (w <= 0)
			_exit(1);
		n -= (size_t)w;
	}
	_exit(0);
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Bodies stop at SHB_MAX_BODY, whatever the source: a file up to the cap
 * is read in full, one byte more is refused, and so are parts that only
 * together pass it. */
static void test_body_cap(void)
{
	struct shb_config cfg;
	char err[512], *want = NULL, *at_max = NULL, *at_over = NULL;
	char *dir = shb_test_mkdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	char *max = sparse_file(dir, "max", (off_t)SHB_MAX_BODY);
	char *over = sparse_file(dir, "over", (off_t)SHB_MAX_BODY + 1);
	CU_ASSERT_FATAL(max && over);
	CU_ASSERT_FATAL(asprintf(&at_max, "@%s", max) > 0);
	CU_ASSERT_FATAL(asprintf(&at_over, "@%s", over) > 0);

	CU_ASSERT_EQUAL(SHB_MAX_BODY, 64u << 20);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--data-binary", at_max, URL),
			      0);
	CU_ASSERT_EQUAL(cfg.body_len, SHB_MAX_BODY);
	shb_config_free(&cfg);

	CU_ASSERT_FATAL(asprintf(&want, "--data-binary: body from %s exceeds "
				 "64 MiB", over) > 0);
	EXPECT_ERROR(want, "--data-binary", at_over, URL);
	free(want);
	CU_ASSERT_FATAL(asprintf(&want, "-d: body from %s exceeds 64 MiB "
				 "(with the parts before it)", max) > 0);
	EXPECT_ERROR(want, "-d", "a", "-d", at_max, URL);
	free(want);
	EXPECT_ERROR("-d: the body exceeds 64 MiB", "--data-binary", at_max,
		     "-d", "", URL);

	free(at_max);
	free(at_over);
	free(max);
	free(over);
	shb_test_rmdir(dir);
}

/* @- from a pipe that holds more than the cap stops at the cap. */
static void test_body_cap_stdin(void)
{
	int p[2];
	int saved = dup(STDIN_FILENO);
	CU_ASSERT_FATAL(saved >= 0 && pipe(p) == 0);
	pid_t pid = writer(p[1], SHB_MAX_BODY + 65536);
	CU_ASSERT_FATAL(pid > 0);
	close(p[1]);
	CU_ASSERT_FATAL(dup2(p[0], STDIN_FILENO) == STDIN_FILENO);
	EXPECT_ERROR("--data-binary: body from stdin exceeds 64 MiB",
		     "--data-binary", "@-", URL);
	dup2(saved, STDIN_FILENO);
	close(saved);
	close(p[0]);
	reap(pid);
}

/* Devices that never end are refused by name before a byte is read;
 * /dev/null is an empty body and a FIFO is read to its end. */
static void test_body_special_files(void)
{
	struct shb_config cfg;
	char err[512], *fifo = NULL, *at_fifo = NULL;
	char *dir = shb_test_mkdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);

	EXPECT_ERROR("-d: cannot read @/dev/zero: a character device, not a "
		     "file (use a regular file, a pipe or @-)", "-d",
		     "@/dev/zero", URL);
	EXPECT_ERROR("--data-binary: cannot read @/dev/urandom: a character "
		     "device, not a file (use a regular file, a pipe or @-)",
		     "--data-binary", "@/dev/urandom", URL);

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-d", "@/dev/null", URL), 0);
	CU_ASSERT_EQUAL(cfg.has_body, 1);
	CU_ASSERT_EQUAL(cfg.body_len, 0);
	shb_config_free(&cfg);

	CU_ASSERT_FATAL(asprintf(&fifo, "%s/fifo", dir) > 0);
	CU_ASSERT_FATAL(asprintf(&at_fifo, "@%s", fifo) > 0);
	CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		int fd = open(fifo, O_WRONLY);
		_exit(fd >= 0 && write(fd, "abc", 3) == 3 ? 0 : 1);
	}
	CU_ASSERT_EQUAL(PARSE(&cfg, err, "--data-binary", at_fifo, URL), 0);
	CU_ASSERT_EQUAL(cfg.body_len, 3);
	if (cfg.body_len == 3)
		CU_ASSERT_EQUAL(memcmp(cfg.body, "abc", 3), 0);
	shb_config_free(&cfg);
	reap(pid);

	free(fifo);
	free(at_fifo);
	shb_test_rmdir(dir);
}

/* A user Content-Length must state the body's length, once; a
 * Transfer-Encoding is never accepted. */
static void test_framing_headers(void)
{
	struct shb_config cfg;
	char err[512];

	EXPECT_ERROR("-H 'Content-Length: 5' disagrees with the body (0 "
		     "bytes)", "-H", "Content-Length: 5", URL);
	EXPECT_ERROR("-H 'content-length: 4' disagrees with the body (1 "
		     "byte)", "-d", "x", "-H", "content-length: 4", URL);
	EXPECT_ERROR("-H 'Content-Length: 0' disagrees with the body (5 "
		     "bytes)", "-H", "Content-Length: 0", "-d", "hello", URL);
	EXPECT_ERROR("-H 'Content-Length: 5, 5': Content-Length must be a "
		     "decimal number of bytes", "-H", "Content-Length: 5, 5",
		     "-d", "hello", URL);
	EXPECT_ERROR("-H 'Content-Length: -5': Content-Length must be a "
		     "decimal number of bytes", "-H", "Content-Length: -5",
		     URL);
	EXPECT_ERROR("-H 'Content-Length: ': Content-Length must be a "
		     "decimal number of bytes", "-H", "Content-Length:", URL);
	EXPECT_ERROR("-H 'CONTENT-LENGTH: 5': Content-Length is given more "
		     "than once; give it once or not at all", "-d", "hello",
		     "-H", "Content-Length: 5", "-H", "CONTENT-LENGTH: 5", URL);
	EXPECT_ERROR("-H 'Transfer-Encoding: chunked': shb sends the body "
		     "with a length, never chunked; remove this header", "-d",
		     "hello", "-H", "Transfer-Encoding: chunked", URL);
	EXPECT_ERROR("-H 'transfer-encoding: gzip': shb sends the body with "
		     "a length, never chunked; remove this header", "-H",
		     "transfer-encoding: gzip", URL);

	/* Agreeing lengths pass (the protocol sends one Content-Length). */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-H", "Content-Length:  05 ",
				    "--data-binary", "hello", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.header_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg.headers[0].value, "05");
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-m", "POST", "-H",
				    "Content-Length: 0", URL), 0);
	CU_ASSERT_EQUAL(cfg.has_body, 0);
	CU_ASSERT_EQUAL(cfg.header_count, 1);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-d", "", "-H",
				    "Content-Length: 0", URL), 0);
	shb_config_free(&cfg);
	/* TE (accepted codings of the response) is not Transfer-Encoding. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-H", "TE: trailers", URL), 0);
	shb_config_free(&cfg);
}

static void test_help_version_list(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL(PARSE(&cfg, err, "--help"), 1);
	CU_ASSERT_EQUAL(cfg.help, 1);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL(PARSE(&cfg, err, "-h", URL, "-c", "5"), 1);
	CU_ASSERT_EQUAL(cfg.help, 1);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL(PARSE(&cfg, err, "-V"), 1);
	CU_ASSERT_EQUAL(cfg.version, 1);
	CU_ASSERT_EQUAL(cfg.help, 0);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL(PARSE(&cfg, err, "--version"), 1);
	CU_ASSERT_EQUAL(cfg.version, 1);
	shb_config_free(&cfg);
	/* An error before or after --help still is an error. */
	EXPECT_ERROR("unknown option --bogus", "--help", "--bogus");

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--list-plugins"), 0);
	CU_ASSERT_EQUAL(cfg.list_plugins, 1);
	CU_ASSERT_PTR_NULL(cfg.url_text);
	CU_ASSERT_PTR_NULL(cfg.url.host);
	CU_ASSERT_STRING_EQUAL(cfg.proto, "h1");
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--list-plugins", URL), 0);
	CU_ASSERT_STRING_EQUAL(cfg.url.host, "example.com");
	shb_config_free(&cfg);
	EXPECT_ERROR("invalid URL \"1ftp://x\": invalid scheme (a letter, "
		     "then letters, digits, '+', '-' or '.')",
		     "--list-plugins", "1ftp://x");
}

static void test_double_dash(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-c", "2", "--", URL), 0);
	CU_ASSERT_EQUAL(cfg.connections, 2);
	shb_config_free(&cfg);
	EXPECT_ERROR("invalid URL \"-c\": missing scheme (expected http:// or "
		     "https://)",
		     "--", "-c");
	EXPECT_ERROR("invalid URL \"-\": missing scheme (expected http:// or "
		     "https://)",
		     "-");
}

static void test_number_errors(void)
{
	EXPECT_ERROR("-c: expected a whole number from 1 to 1000000, got "
		     "\"abc\"", "-c", "abc", URL);
	EXPECT_ERROR("-c: expected a whole number from 1 to 1000000, got "
		     "\"abc\"", "-cabc", URL);
	EXPECT_ERROR("--connections: expected a whole number from 1 to "
		     "1000000, got \"0\"", "--connections=0", URL);
	EXPECT_ERROR("-c: expected a whole number from 1 to 1000000, got "
		     "\"1000001\"", "-c", "1000001", URL);
	EXPECT_ERROR("-c: expected a whole number from 1 to 1000000, got "
		     "\"-5\"", "-c", "-5", URL);
	EXPECT_ERROR("-c: expected a whole number from 1 to 1000000, got "
		     "\"10x\"", "-c", "10x", URL);
	EXPECT_ERROR("-c: expected a whole number from 1 to 1000000, got "
		     "\"\"", "-c", "", URL);
	EXPECT_ERROR("-c: expected a whole number from 1 to 1000000, got "
		     "\" 5\"", "-c", " 5", URL);
	EXPECT_ERROR("-c: expected a whole number from 1 to 1000000, got "
		     "\"+5\"", "-c", "+5", URL);
	EXPECT_ERROR("-c: expected a whole number from 1 to 1000000, got "
		     "\"0x10\"", "-c", "0x10", URL);
	EXPECT_ERROR("-c: expected a whole number from 1 to 1000000, got "
		     "\"99999999999999999999999\"",
		     "-c", "99999999999999999999999", URL);
	/* 2^32 + 5 must not wrap to 5. */
	EXPECT_ERROR("-c: expected a whole number from 1 to 1000000, got "
		     "\"4294967301\"", "-c", "4294967301", URL);
	EXPECT_ERROR("-p: expected a whole number from 1 to 1024, got \"0\"",
		     "-p", "0", URL);
	EXPECT_ERROR("--parallel: expected a whole number from 1 to 1024, got "
		     "\"1025\"", "--parallel", "1025", URL);
	EXPECT_ERROR("-n: expected a whole number from 1 to "
		     "1000000000000000, got \"0\"", "-n", "0", URL);
	EXPECT_ERROR("--requests: expected a whole number from 1 to "
		     "1000000000000000, got \"18446744073709551616\"",
		     "--requests", "18446744073709551616", URL);
	EXPECT_ERROR("-t: expected a whole number from 0 to 4096, got \"-1\"",
		     "-t", "-1", URL);
	EXPECT_ERROR("--threads: expected a whole number from 0 to 4096, got "
		     "\"4097\"", "--threads=4097", URL);
	EXPECT_ERROR("--batch-size: expected a whole number from 0 to 4096, "
		     "got \"4097\"", "--batch-size", "4097", URL);
	EXPECT_ERROR("--batch-linger: expected a whole number from 1 to "
		     "1000000, got \"0\"", "--batch-linger", "0", URL);
	EXPECT_ERROR("--batch-linger: expected a whole number from 1 to "
		     "1000000, got \"1000001\"", "--batch-linger", "1000001",
		     URL);

	/* The bounds themselves are accepted. */
	struct shb_config cfg;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-c", "1000000", "-p", "1024",
				    "-t", "0", "--batch-size", "4096",
				    "--batch-linger", "1000000", "-n",
				    "1000000000000000", URL), 0);
	CU_ASSERT_EQUAL(cfg.connections, 1000000);
	CU_ASSERT_EQUAL(cfg.parallel, 1024);
	CU_ASSERT_EQUAL(cfg.threads, 0);
	CU_ASSERT_EQUAL(cfg.batch_size, 4096);
	CU_ASSERT_EQUAL(cfg.batch_linger_us, 1000000);
	CU_ASSERT_EQUAL(cfg.requests, 1000000000000000ull);
	shb_config_free(&cfg);
}

static void test_duration_errors(void)
{
	EXPECT_ERROR("-z: expected a duration like 10s, 1m30s, 500ms or 1.5s, "
		     "got \"abc\"", "-z", "abc", URL);
	EXPECT_ERROR("--duration: expected a duration like 10s, 1m30s, 500ms "
		     "or 1.5s, got \"-1s\"", "--duration=-1s", URL);
	EXPECT_ERROR("-z: duration must be greater than 0, got \"0\"", "-z",
		     "0", URL);
	EXPECT_ERROR("--connect-timeout: duration must be greater than 0, got "
		     "\"0s\"", "--connect-timeout", "0s", URL);
	EXPECT_ERROR("--connect-timeout: expected a duration like 10s, 1m30s, "
		     "500ms or 1.5s, got \"5 s\"", "--connect-timeout", "5 s",
		     URL);
	EXPECT_ERROR("--timeout: expected a duration like 10s, 1m30s, 500ms "
		     "or 1.5s, got \"1m30\"", "--timeout", "1m30", URL);

	/* --timeout 0 means none. */
	struct shb_config cfg;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--timeout", "0", URL), 0);
	CU_ASSERT_EQUAL(cfg.timeout_ns, 0);
	shb_config_free(&cfg);
}

/* --warmup and --slo: values kept in order, errors named by option. */
static void test_warmup_and_slo(void)
{
	struct shb_config cfg;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--warmup", "1.5s", "--slo",
				    "p99.9<=20ms", "--slo=error_rate<1%", "-z",
				    "10s", "--slo", "rps > 1000", URL), 0);
	CU_ASSERT_EQUAL(cfg.warmup_ns, 1500000000ull);
	CU_ASSERT_EQUAL_FATAL(cfg.slo_count, 3);
	CU_ASSERT_EQUAL(cfg.slos[0].metric, SHB_SLO_PCT);
	CU_ASSERT_EQUAL(cfg.slos[0].ppm, 999000);
	CU_ASSERT_EQUAL(cfg.slos[0].op, SHB_SLO_LE);
	CU_ASSERT_EQUAL(cfg.slos[1].metric, SHB_SLO_ERROR_RATE);
	CU_ASSERT_EQUAL(cfg.slos[2].metric, SHB_SLO_RPS);
	CU_ASSERT_EQUAL(cfg.slos[2].limit, 1000000000ull);
	shb_config_free(&cfg);
	/* No --warmup, no gate; --warmup 0 is none. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--warmup", "0", URL), 0);
	CU_ASSERT_EQUAL(cfg.warmup_ns, 0);
	CU_ASSERT_EQUAL(cfg.slo_count, 0);
	CU_ASSERT_PTR_NULL(cfg.slos);
	shb_config_free(&cfg);

	EXPECT_ERROR("--warmup: expected a duration like 10s, 1m30s, 500ms "
		     "or 1.5s, got \"soon\"", "--warmup", "soon", URL);
	EXPECT_ERROR("--warmup: missing value", URL, "--warmup");
	EXPECT_ERROR("--slo \"p99<5\": the limit needs a unit (ns, us, ms, s, "
		     "m or h), e.g. p99<5ms", "--slo", "p99<5ms", "--slo",
		     "p99<5", URL);
	EXPECT_ERROR("--slo \"\": empty expression (e.g. p99<5ms, error_rate<1% or "
		     "rps>1000)", "--slo=", URL);
}

/* -R and --stages: rates x1000, ramps as one stage over -z, stages from
 * the rate before, the run's length; every message. */
static void test_open_loop(void)
{
	struct shb_config cfg;
	char err[512];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-R", "1000", URL), 0);
	CU_ASSERT_EQUAL(cfg.rate_milli, 1000000);
	CU_ASSERT_EQUAL(cfg.stage_count, 0);
	CU_ASSERT_EQUAL(cfg.requests, 200); /* the default -n still applies */
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--rate=0.5", "-n", "10", URL), 0);
	CU_ASSERT_EQUAL(cfg.rate_milli, 500);
	CU_ASSERT_EQUAL(cfg.requests, 10);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-R333.333", "-z", "1s", URL), 0);
	CU_ASSERT_EQUAL(cfg.rate_milli, 333333);
	shb_config_free(&cfg);
	/* a ramp: one stage over -z, given before or after it */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-R", "1000:5000", "-z", "10s", URL), 0);
	CU_ASSERT_EQUAL(cfg.rate_milli, 0);
	CU_ASSERT_EQUAL_FATAL(cfg.stage_count, 1);
	CU_ASSERT_EQUAL(cfg.stages[0].duration_ns, 10000000000ull);
	CU_ASSERT_EQUAL(cfg.stages[0].rate_from_milli, 1000000);
	CU_ASSERT_EQUAL(cfg.stages[0].rate_to_milli, 5000000);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-z", "2s", "-R", "0:7.5", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.stage_count, 1);
	CU_ASSERT_EQUAL(cfg.stages[0].rate_from_milli, 0);
	CU_ASSERT_EQUAL(cfg.stages[0].rate_to_milli, 7500);
	shb_config_free(&cfg);
	/* FROM == TO is a constant rate */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-R", "5:5", URL), 0);
	CU_ASSERT_EQUAL(cfg.rate_milli, 5000);
	CU_ASSERT_EQUAL(cfg.stage_count, 0);
	shb_config_free(&cfg);
	/* stages: each from the rate before; the run lasts their sum */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--stages", "10s:1000,30s:5000,10s:0",
				    URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.stage_count, 3);
	CU_ASSERT_EQUAL(cfg.stages[0].rate_from_milli, 0);
	CU_ASSERT_EQUAL(cfg.stages[0].rate_to_milli, 1000000);
	CU_ASSERT_EQUAL(cfg.stages[1].duration_ns, 30000000000ull);
	CU_ASSERT_EQUAL(cfg.stages[1].rate_from_milli, 1000000);
	CU_ASSERT_EQUAL(cfg.stages[1].rate_to_milli, 5000000);
	CU_ASSERT_EQUAL(cfg.stages[2].rate_from_milli, 5000000);
	CU_ASSERT_EQUAL(cfg.stages[2].rate_to_milli, 0);
	CU_ASSERT_EQUAL(cfg.duration_ns, 50000000000ull);
	CU_ASSERT_EQUAL(cfg.requests, 0);
	CU_ASSERT_EQUAL(cfg.rate_milli, 0);
	shb_config_free(&cfg);
	/* the last --stages wins */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--stages", "1s:1", "--stages=1.5s:0.5",
				    URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.stage_count, 1);
	CU_ASSERT_EQUAL(cfg.stages[0].duration_ns, 1500000000ull);
	CU_ASSERT_EQUAL(cfg.stages[0].rate_to_milli, 500);
	CU_ASSERT_EQUAL(cfg.duration_ns, 1500000000ull);
	shb_config_free(&cfg);
	/* closed loop */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, URL), 0);
	CU_ASSERT_EQUAL(cfg.rate_milli, 0);
	CU_ASSERT_PTR_NULL(cfg.stages);
	shb_config_free(&cfg);

#define RATE_WANT(name, v) name ": expected a rate like 1000 or 0.5 (requests " \
	"per second, at most 3 decimals, at most 1000000000), or a ramp " \
	"FROM:TO like 1000:5000, got \"" v "\""
	EXPECT_ERROR(RATE_WANT("-R", "fast"), "-R", "fast", URL);
	EXPECT_ERROR(RATE_WANT("--rate", ""), "--rate=", URL);
	EXPECT_ERROR(RATE_WANT("-R", "0.0005"), "-R", "0.0005", URL);
	EXPECT_ERROR(RATE_WANT("-R", "1."), "-R", "1.", URL);
	EXPECT_ERROR(RATE_WANT("-R", ".5"), "-R", ".5", URL);
	EXPECT_ERROR(RATE_WANT("-R", "-5"), "-R", "-5", URL);
	EXPECT_ERROR(RATE_WANT("-R", "1e3"), "-R", "1e3", URL);
	EXPECT_ERROR(RATE_WANT("-R", "1000000000.001"), "-R", "1000000000.001", URL);
	EXPECT_ERROR(RATE_WANT("-R", "99999999999999999999"), "-R",
		     "99999999999999999999", URL);
	EXPECT_ERROR(RATE_WANT("-R", "1000:"), "-R", "1000:", URL);
	EXPECT_ERROR(RATE_WANT("-R", "1:2:3"), "-R", "1:2:3", "-z", "1s", URL);
	EXPECT_ERROR("-R: missing value", URL, "-R");
	EXPECT_ERROR("-R 0: the rate must be greater than 0", "-R", "0", URL);
	EXPECT_ERROR("--rate 0:0.000: the rate must be greater than 0", "--rate",
		     "0:0.000", "-z", "1s", URL);
	EXPECT_ERROR("-R 1000:5000: a ramp runs over the run's duration: give "
		     "-z/--duration", "-R", "1000:5000", URL);
	EXPECT_ERROR("-R 1000:5000: a ramp runs over the run's duration: give "
		     "-z/--duration", "-R", "1000:5000", "-n", "10", URL);
	EXPECT_ERROR("--rate and --stages cannot be combined: give a rate or a "
		     "ramp with -R, or stages", "--rate", "5", "--stages", "1s:5", URL);
	EXPECT_ERROR("--stages and -z/--duration cannot be combined: the run "
		     "lasts as long as the stages", "-z", "5s", "--stages", "1s:5", URL);
	EXPECT_ERROR("--stages and -n/--requests cannot be combined: the run "
		     "lasts as long as the stages", "--stages", "1s:5", "-n", "5", URL);
	EXPECT_ERROR("--stages: stage 2 \"2s\": expected DURATION:RATE like 30s:5000",
		     "--stages", "1s:5,2s", URL);
	EXPECT_ERROR("--stages: stage 2 \"\": expected DURATION:RATE like 30s:5000",
		     "--stages", "1s:5,", URL);
	EXPECT_ERROR("--stages: stage 1 \"\": expected DURATION:RATE like 30s:5000",
		     "--stages=", URL);
	EXPECT_ERROR("--stages: stage 1: expected a duration greater than 0 like "
		     "10s, 1m30s, 500ms or 1.5s before ':', got \"0s\"",
		     "--stages", "0s:5", URL);
	EXPECT_ERROR("--stages: stage 3: expected a duration greater than 0 like "
		     "10s, 1m30s, 500ms or 1.5s before ':', got \"soon\"",
		     "--stages", "1s:5,1s:5,soon:5", URL);
	EXPECT_ERROR("--stages: stage 1: expected a rate like 1000 or 0.5 "
		     "(requests per second, at most 3 decimals, at most "
		     "1000000000) after ':', got \"lots\"", "--stages", "1s:lots", URL);
	EXPECT_ERROR("--stages 1s:0,2s:0: every rate is 0, nothing would be sent",
		     "--stages", "1s:0,2s:0", URL);
	char many[64 * 6 + 8] = "";
	for (int i = 0; i < 65; i++)
		strcat(many, i ? ",1s:1" : "1s:1");
	EXPECT_ERROR("--stages: at most 64 stages", "--stages", many, URL);
	many[strlen(many) - 5] = '\0'; /* 64 stages are fine */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--stages", many, URL), 0);
	CU_ASSERT_EQUAL(cfg.stage_count, 64);
	CU_ASSERT_EQUAL(cfg.duration_ns, 64000000000ull);
	shb_config_free(&cfg);
	EXPECT_ERROR("--stages: the stages add up to more than shb can time",
		     "--stages", "2562047h:1,2562047h:1", URL);
}

static void test_option_errors(void)
{
	EXPECT_ERROR("unknown option --foo", "--foo", URL);
	EXPECT_ERROR("unknown option --foo", "--foo=1", URL);
	EXPECT_ERROR("unknown option --con", "--con", "5", URL);
	EXPECT_ERROR("unknown option -Y", "-Y", URL);
	EXPECT_ERROR("unknown option -Y in \"-qY\"", "-qY", URL);
	/* -s is wrk's script option: "-json" is -j -s on. */
	EXPECT_ERROR("-s on: the file name has no extension naming the "
		     "script's language (FILE.lua)", "-json", URL);
	EXPECT_ERROR("unknown option --a\\x0a", "--a\n", URL);
	EXPECT_ERROR("unknown option -\\x01", "-\x01", URL);
	EXPECT_ERROR("unknown option -\\x0d in \"-q\\x0d\"", "-q\r", URL);
	EXPECT_ERROR("unknown option "
		     "--aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...",
		     "--aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		     URL);
	EXPECT_ERROR("-c: missing value", URL, "-c");
	EXPECT_ERROR("--connections: missing value", URL, "--connections");
	EXPECT_ERROR("-H: missing value", URL, "-qH");
	EXPECT_ERROR("--quiet: takes no value", "--quiet=1", URL);
	EXPECT_ERROR("--http2: takes no value", "--http2=", URL);
	EXPECT_ERROR("--proto: empty protocol name", "--proto=", URL);
	EXPECT_ERROR("--plugin-dir: empty directory name", "--plugin-dir", "",
		     URL);
	EXPECT_ERROR("-m: invalid method \"GE T\" (letters, digits and "
		     "!#$%&'*+-.^_`|~ only)", "-m", "GE T", URL);
	EXPECT_ERROR("-X: invalid method \"\" (letters, digits and "
		     "!#$%&'*+-.^_`|~ only)", "-X", "", URL);
	EXPECT_ERROR("--method: invalid method \"G\\x0aET\" (letters, digits "
		     "and !#$%&'*+-.^_`|~ only)", "--method", "G\nET", URL);
	EXPECT_ERROR("--report: empty reporter name in \"\"", "--report", "",
		     URL);
	EXPECT_ERROR("--report: empty reporter name in \"text,\"", "--report",
		     "text,", URL);
	EXPECT_ERROR("--report: empty reporter name in \":f\"", "--report",
		     ":f", URL);
	EXPECT_ERROR("--report: empty file name after \"json:\" in "
		     "\"text,json:\"", "--report", "text,json:", URL);
	/* Found by fuzzing: the name was repeated raw, so a newline in it
	 * broke the one-line message. */
	EXPECT_ERROR("--report: empty file name after \"te\\x0axt:\" in "
		     "\"te\\x0axt:\"", "--report", "te\nxt:", URL);
	/* Found by fuzzing: percentiles and --source repeated the item
	 * raw. */
	EXPECT_ERROR("--percentiles: \"\\x0a\" is not a percentile (0 < P <= "
		     "100, at most 4 decimals)", "--percentiles", "5,\n", URL);
	EXPECT_ERROR("--percentiles: \"-d\\x0a\" is not a percentile (0 < P "
		     "<= 100, at most 4 decimals)", "--percentiles", "-d\n", URL);
	EXPECT_ERROR("missing URL (usage: shb [options] URL)",
		     "-c", "5");
	EXPECT_ERROR("invalid URL \"f_tp://x\": invalid scheme (a letter, "
		     "then letters, digits, '+', '-' or '.')",
		     "http://a/", "-c", "5", "b=f_tp://x");
	EXPECT_ERROR("invalid URL \"f_tp://x\": invalid scheme (a letter, "
		     "then letters, digits, '+', '-' or '.')",
		     "f_tp://x");
	EXPECT_ERROR("invalid URL \"http://h/a b\": space at offset 10",
		     "-c", "1", "http://h/a b");
}

/* --success (success.h): statuses, ranges and classes; without it 1xx-3xx,
 * with `any` every status, and a status below 100 (none) always is. */
static void test_success(void)
{
	struct shb_config cfg;
	char err[512];
	static const uint32_t dflt[] = {0, 99, 100, 101, 200, 204, 301, 304, 399};
	static const uint32_t dflt_no[] = {400, 404, 429, 500, 503, 599, 999};

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, URL), 0);
	CU_ASSERT_FALSE(cfg.success.given);
	for (size_t i = 0; i < sizeof(dflt) / sizeof(dflt[0]); i++)
		CU_ASSERT_TRUE(shb_success_ok(&cfg.success, dflt[i]));
	for (size_t i = 0; i < sizeof(dflt_no) / sizeof(dflt_no[0]); i++)
		CU_ASSERT_FALSE(shb_success_ok(&cfg.success, dflt_no[i]));
	CU_ASSERT_STRING_EQUAL(shb_success_text(&cfg.success), "1xx-3xx");
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--success", "any", URL), 0);
	for (size_t i = 0; i < sizeof(dflt_no) / sizeof(dflt_no[0]); i++)
		CU_ASSERT_TRUE(shb_success_ok(&cfg.success, dflt_no[i]));
	CU_ASSERT_STRING_EQUAL(shb_success_text(&cfg.success), "any");
	shb_config_free(&cfg);

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--success", "2xx,304,400-402,999",
				    URL), 0);
	CU_ASSERT_TRUE(cfg.success.given);
	CU_ASSERT_STRING_EQUAL(cfg.success.text, "2xx,304,400-402,999");
	static const uint32_t yes[] = {200, 250, 299, 304, 400, 401, 402, 999, 0, 99};
	static const uint32_t no[] = {100, 199, 300, 303, 305, 399, 403, 404, 500,
				      503, 998, 1000, 65535};
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		CU_ASSERT_TRUE(shb_success_ok(&cfg.success, yes[i]));
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		CU_ASSERT_FALSE(shb_success_ok(&cfg.success, no[i]));
	shb_config_free(&cfg);

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--success=100-999", URL), 0);
	CU_ASSERT_TRUE(shb_success_ok(&cfg.success, 100));
	CU_ASSERT_TRUE(shb_success_ok(&cfg.success, 999));
	shb_config_free(&cfg);
	static const char *const bad[] = {"", ",", "2xx,", ",2xx", "2x", "2xy",
					  "0xx", "2XX", "20", "2000", "099", "1000",
					  "300-200", "200-", "-200", "200-300-400",
					  "2xx-3xx", "20a", " 200", "any,2xx",
					  "ANY", "a..b", ".ok", "ok.", "a.b.c", "Ok"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(PARSE(&cfg, err, "--success", bad[i], URL), -1);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, "is not a status (304), a range "
					      "(200-299) or a class (2xx) of statuses "
					      "100..999"));
		shb_config_free(&cfg);
	}
	EXPECT_ERROR("--success: \"4x\" in \"2xx,4x\" is not a status (304), a "
		     "range (200-299) or a class (2xx) of statuses 100..999, nor "
		     "an outcome name of the protocol (ok) (or \"any\" alone)",
		     "--success", "2xx,4x", URL);
	EXPECT_ERROR("--success: \"2\\x0a\" in \"2\\x0a\" is not a status (304), "
		     "a range (200-299) or a class (2xx) of statuses 100..999, "
		     "nor an outcome name of the protocol (ok) (or \"any\" alone)",
		     "--success", "2\n", URL);
	EXPECT_ERROR("--success given twice: list the statuses in one (e.g. 2xx,304)",
		     "--success", "2xx", "--success", "3xx", URL);
}

/* The last guard (quote.h): whatever a message carries, it leaves as one
 * printable line, cut to the buffer. */
static void test_err_one_line(void)
{
	char err[16] = "a\nb\x01" "c";
	shb_err_one_line(err, sizeof(err));
	CU_ASSERT_STRING_EQUAL(err, "a\\x0ab\\x01c");
	char small[8] = "\n\n\n\n";
	shb_err_one_line(small, sizeof(small));
	CU_ASSERT_STRING_EQUAL(small, "\\x0a");
	char plain[32] = "no control \xcf bytes";
	shb_err_one_line(plain, sizeof(plain));
	CU_ASSERT_STRING_EQUAL(plain, "no control \xcf bytes");
	shb_err_one_line(NULL, 0);
}

static void test_header_errors(void)
{
	EXPECT_ERROR("-H: expected \"Name: Value\", got \"NoColon\"", "-H",
		     "NoColon", URL);
	EXPECT_ERROR("--header: invalid header name in \": v\" (letters, "
		     "digits and !#$%&'*+-.^_`|~ only)", "--header", ": v",
		     URL);
	EXPECT_ERROR("-H: invalid header name in \"Bad Name: v\" (letters, "
		     "digits and !#$%&'*+-.^_`|~ only)", "-H", "Bad Name: v",
		     URL);
	EXPECT_ERROR("-H: invalid header name in \"X : v\" (letters, digits "
		     "and !#$%&'*+-.^_`|~ only)", "-H", "X : v", URL);
	EXPECT_ERROR("-H: value of header \"X\" contains CR, LF or another "
		     "control character", "-H", "X: a\r\nEvil: 1", URL);
	EXPECT_ERROR("-H: value of header \"X\" contains CR, LF or another "
		     "control character", "-H", "X: a\nb", URL);
	EXPECT_ERROR("-H: value of header \"X\" contains CR, LF or another "
		     "control character", "-H", "X: a\rb", URL);
	EXPECT_ERROR("-H: value of header \"X\" contains CR, LF or another "
		     "control character", "-H", "X: a\x01", URL);
	EXPECT_ERROR("-H: the Host header needs a value", "-H", "Host:  ",
		     URL);
}

static void test_file_errors(void)
{
	char *dir = shb_test_mkdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	char *at_missing = NULL, *want = NULL, *at_dir = NULL;
	char *missing_ca = NULL;

	CU_ASSERT_FATAL(asprintf(&at_missing, "@%s/missing.txt", dir) > 0);
	CU_ASSERT_FATAL(asprintf(&at_dir, "@%s", dir) > 0);
	CU_ASSERT_FATAL(asprintf(&missing_ca, "%s/ca.pem", dir) > 0);

	CU_ASSERT_FATAL(asprintf(&want, "--data: cannot read %s: No such file "
				 "or directory", at_missing) > 0);
	EXPECT_ERROR(want, "--data", at_missing, URL);
	free(want);
	CU_ASSERT_FATAL(asprintf(&want, "-d: cannot read %s: No such file or "
				 "directory", at_missing) > 0);
	EXPECT_ERROR(want, "-d", at_missing, URL);
	free(want);
	CU_ASSERT_FATAL(asprintf(&want, "--data-binary: cannot read %s: a "
				 "directory, not a file (use a regular file, "
				 "a pipe or @-)", at_dir) > 0);
	EXPECT_ERROR(want, "--data-binary", at_dir, URL);
	free(want);
	CU_ASSERT_FATAL(asprintf(&want, "--cacert: cannot read %s: No such "
				 "file or directory", missing_ca) > 0);
	EXPECT_ERROR(want, "--cacert", missing_ca, URL);
	free(want);
	CU_ASSERT_FATAL(asprintf(&want, "--cacert: cannot read %s: Is a "
				 "directory", at_dir + 1) > 0);
	EXPECT_ERROR(want, "--cacert", at_dir + 1, URL);
	free(want);

	free(at_missing);
	free(at_dir);
	free(missing_ca);
	shb_test_rmdir(dir);
}

/* A tiny or absent error buffer is never overrun. */
static void test_small_err_buffer(void)
{
	struct shb_config cfg;
	char err[8];
	char *argv[] = {(char *)"shb", (char *)"-c", (char *)"abc", NULL};

	memset(err, 'Z', sizeof(err));
	CU_ASSERT_EQUAL(shb_cli_parse(3, argv, &cfg, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "-c: exp");
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL(shb_cli_parse(3, argv, &cfg, NULL, 0), -1);
	shb_config_free(&cfg);
}

static void test_config_free_safe(void)
{
	struct shb_config cfg;
	char err[256];

	memset(&cfg, 0, sizeof(cfg));
	shb_config_free(&cfg);
	shb_config_free(NULL);
	/* Partly filled by a parse that failed late. */
	CU_ASSERT_EQUAL(PARSE(&cfg, err, "-H", "A: 1", "-d", "x",
			      "--plugin-dir", "d", "--report", "a,b:c",
			      "-m", "PUT", "--proto", "p", "--proto-opt", "k=v",
			      "--report-opt", "a.k", "ftp:/x"), -1);
	CU_ASSERT_EQUAL(cfg.header_count, 2);
	shb_config_free(&cfg);
	CU_ASSERT_PTR_NULL(cfg.headers);
	CU_ASSERT_EQUAL(cfg.header_count, 0);
	shb_config_free(&cfg);
}

static void test_routing(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--connect-to", "a:1:b:2",
				    "--connect-to=::127.0.0.1:", "--resolve",
				    "x:80:[::1],127.0.0.1", "-6", "--sni",
				    "api.example", "-k", "https://a:1/"), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.connect_to_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg.connect_to[0].to_host, "b");
	CU_ASSERT_EQUAL(cfg.connect_to[0].to_port, 2);
	CU_ASSERT_STRING_EQUAL(cfg.connect_to[1].to_host, "127.0.0.1");
	CU_ASSERT_EQUAL(cfg.connect_to[1].to_port, 0);
	CU_ASSERT_EQUAL_FATAL(cfg.resolve_count, 1);
	CU_ASSERT_EQUAL(cfg.resolve[0].count, 2);
	CU_ASSERT_EQUAL(cfg.family, AF_INET6);
	CU_ASSERT_STRING_EQUAL(cfg.sni, "api.example");
	/* -k changes nothing: not verifying is the default. */
	CU_ASSERT_EQUAL(cfg.verify, 0);
	shb_config_free(&cfg);

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "-4", "--ipv4", "--insecure",
				    URL), 0);
	CU_ASSERT_EQUAL(cfg.family, AF_INET);
	CU_ASSERT_EQUAL(cfg.connect_to_count, 0);
	CU_ASSERT_PTR_NULL(cfg.sni);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, URL), 0);
	CU_ASSERT_EQUAL(cfg.family, AF_UNSPEC);
	shb_config_free(&cfg);
}

static void test_routing_errors(void)
{
	EXPECT_ERROR("-4/--ipv4 and -6/--ipv6 cannot be combined", "-4", "-6",
		     URL);
	EXPECT_ERROR("-4/--ipv4 and -6/--ipv6 cannot be combined", "--ipv6",
		     "-q4", URL);
	EXPECT_ERROR("--sni: empty name", "--sni", "", "https://a/");
	EXPECT_ERROR("--sni \"a b\": a host name holds only letters, "
		     "digits, '-', '.' and '_'", "--sni", "a b", "https://a/");
	EXPECT_ERROR("--sni \"::1\": a host name holds only letters, "
		     "digits, '-', '.' and '_'", "--sni=::1", "https://a/");
	EXPECT_ERROR("--sni 10.0.0.1: SNI holds a host name, never an address "
		     "(RFC 6066)", "--sni", "10.0.0.1", "https://a/");
	char long_name[255];
	memset(long_name, 'a', 254);
	long_name[254] = '\0';
	EXPECT_ERROR("--sni: a name is at most 253 characters, got 254",
		     "--sni", long_name, "https://a/");
	EXPECT_ERROR("--sni a.example: SNI is sent only over TLS, and the URL "
		     "is http://; use https://", "--sni", "a.example", URL);
	EXPECT_ERROR("--connect-to \"a:1\": expected HOST:PORT:CONNECT-HOST:"
		     "CONNECT-PORT (empty parts: any host or port, or the "
		     "URL's)", "--connect-to", "a:1", URL);
	EXPECT_ERROR("--resolve \"a:1:b\": \"b\" is not an IPv4 or IPv6 "
		     "address", "--resolve=a:1:b", URL);
	EXPECT_ERROR("--connect-to: missing value", URL, "--connect-to");
	EXPECT_ERROR("--insecure: takes no value", "--insecure=1", URL);
}

/* --cert/--key, --tls-version, --ciphers: parsed here, the files and the
 * priority string checked by GnuTLS at start (core/engine/tls.c). */
static void test_tls_options(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--cert", "c.pem", "--key", "k.pem",
				    "--tls-version", "1.2", "--ciphers",
				    "NORMAL:-CIPHER-ALL:+AES-256-GCM", "https://a/"), 0);
	CU_ASSERT_STRING_EQUAL(cfg.cert, "c.pem");
	CU_ASSERT_STRING_EQUAL(cfg.key, "k.pem");
	CU_ASSERT_EQUAL(cfg.tls_version, 0x0303);
	CU_ASSERT_STRING_EQUAL(cfg.ciphers, "NORMAL:-CIPHER-ALL:+AES-256-GCM");
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--cert=both.pem",
				    "--tls-version=1.3", "https://a/"), 0);
	CU_ASSERT_PTR_NULL(cfg.key); /* the key is in the certificate's file */
	CU_ASSERT_EQUAL(cfg.tls_version, 0x0304);
	CU_ASSERT_PTR_NULL(cfg.ciphers);
	shb_config_free(&cfg);

	EXPECT_ERROR("--tls-version 1.1: give 1.2 or 1.3", "--tls-version",
		     "1.1", "https://a/");
	EXPECT_ERROR("--tls-version TLSv1.3: give 1.2 or 1.3",
		     "--tls-version=TLSv1.3", "https://a/");
	EXPECT_ERROR("--ciphers: empty priority string (e.g. "
		     "NORMAL:-CIPHER-ALL:+AES-256-GCM)", "--ciphers", "",
		     "https://a/");
	EXPECT_ERROR("--key k.pem: give the certificate too (--cert FILE)",
		     "--key", "k.pem", "https://a/");
	EXPECT_ERROR("--cert: the URL is http://, which does not run over "
		     "TLS; use https://", "--cert", "c.pem", URL);
	EXPECT_ERROR("--ciphers: the URL is http://, which does not run over "
		     "TLS; use https://", "--ciphers", "NORMAL", URL);
	EXPECT_ERROR("--tls-version: the URL is http://, which does not run "
		     "over TLS; use https://", "--tls-version", "1.3", URL);
	EXPECT_ERROR("--tls-resume: the URL is http://, which does not run "
		     "over TLS; use https://", "--tls-resume", URL);
	EXPECT_ERROR("--cacert: the URL is http://, which does not run over "
		     "TLS; use https://", "--cacert", "/dev/null", URL);
	EXPECT_ERROR("--cacert: the URL is http://, which does not run over "
		     "TLS; use https://", "--cacert", "/dev/null", "--mix", URL,
		     "http://b/");
	/* a mix (or a comparison) with an https target beside: it verifies that */
	CU_ASSERT_EQUAL(PARSE(&cfg, err, "--cacert", "/dev/null", "--mix", URL,
			      "https://b/"), 0);
	shb_config_free(&cfg);
	EXPECT_ERROR("--tls-resume: takes no value", "--tls-resume=1", "https://a/");
	EXPECT_ERROR("--cert: missing value", URL, "--cert");
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "https://a/"), 0);
	CU_ASSERT_EQUAL(cfg.tls_resume, 0);
	shb_config_free(&cfg);
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--tls-resume", "https://a/"), 0);
	CU_ASSERT_EQUAL(cfg.tls_resume, 1);
	shb_config_free(&cfg);
}

static void test_suggestions(void)
{
	EXPECT_ERROR("unknown option --duraton (did you mean --duration?)",
		     "--duraton", "3s", URL);
	EXPECT_ERROR("unknown option --conections (did you mean "
		     "--connections?)", "--conections=5", URL);
	EXPECT_ERROR("unknown option --hedaer (did you mean --header?)",
		     "--hedaer", "a: b", URL);
	EXPECT_ERROR("unknown option --http4 (did you mean --http2?)",
		     "--http4", URL);
	EXPECT_ERROR("unknown option --connectto (did you mean "
		     "--connect-to?)", "--connectto", "a:1:b:2", URL);
	EXPECT_ERROR("unknown option --snii (did you mean --sni?)", "--snii",
		     "x", URL);
	/* Too far from every option, or too short to guess. */
	EXPECT_ERROR("unknown option --durxxxxn", "--durxxxxn", URL);
	EXPECT_ERROR("unknown option --zz", "--zz", URL);
	EXPECT_ERROR("unknown option --k", "--k", URL);
}

static void test_usage(void)
{
	static const char *const must[] = {
		"Usage: shb [options] URL", "--proto", "--http2", "--http3",
		"--report", "-j, --json", "-c, --connections", "-p, --parallel",
		"-n, --requests", "-z, --duration", "-t, --threads",
		"-m, -X, --method", "-H, --header", "-d, --data",
		"--data-binary", "--connect-timeout", "--timeout",
		"--disable-keepalive", "--batch-size", "--batch-linger",
		"--plugin-dir", "--list-plugins", "--verify", "--cacert",
		"-q, --quiet", "-h, --help", "-V, --version", "(default: h1)",
		"(default: 50)", "(default: 1)", "(default: 5s)",
		"(default: automatic, 500 when responses are",
		"timed by kernel receive stamps, else 50 us or", "at most 500)",
		"(default: text to stdout)", "(default: 200",
		"(default: GET, or POST with a body)", "(default: none)",
		"(default: 0)", "1..1000000", "0..4096", "1..1024",
		"SHB_PLUGIN_PATH", "SHB_DEBUG", "Target:", "Load:", "Request:",
		"Timeouts", "TLS:", "Plugins:", "Output:",
		"at most 64 MiB in all", "-H Content-Length must equal",
		"Transfer-Encoding is refused", "soft limit is raised",
		"Exit status: 0 run completed, 1 run failed or no request "
		"completed,\n2 usage error, 3 an --slo failed, 130 or 143 "
		"stopped by SIGINT or\nSIGTERM (the report covers what ran "
		"until then).\n", "--slo EXPR", "--warmup D", "--success LIST", "--tls-resume",
		"-k, --insecure", "--sni NAME", "Routing (curl's meanings",
		"--connect-to HOST:PORT:CONNECT-HOST:CONNECT-PORT",
		"--resolve HOST:PORT:ADDR[,ADDR]...", "-4, --ipv4", "-6, --ipv6",
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	shb_cli_usage(f);
	fclose(f);
	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++) {
		CU_ASSERT_PTR_NOT_NULL(strstr(buf, must[i]));
		if (!strstr(buf, must[i]))
			fprintf(stderr, "\nhelp lacks %s\n", must[i]);
	}
	/* Fits an 80-column terminal. */
	for (char *line = buf; *line;) {
		char *nl = strchr(line, '\n');
		CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
		CU_ASSERT((size_t)(nl - line) <= 80);
		line = nl + 1;
	}
	free(buf);
}

/* --proto-opt and --report-opt: kept in order, KEY alone is a flag (no
 * value), a value may hold '=' and, for a protocol, ','. */
static void test_plugin_options(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--proto-opt", "tag=a=b,c",
				    "--report-opt", "json.compact",
				    "--proto-opt=fail", "--report-opt=csv.x=1",
				    "--proto-opt", "k.2-_=", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.proto_opt_count, 3);
	CU_ASSERT_PTR_NULL(cfg.proto_opts[0].plugin);
	CU_ASSERT_STRING_EQUAL(cfg.proto_opts[0].key, "tag");
	CU_ASSERT_STRING_EQUAL(cfg.proto_opts[0].value, "a=b,c");
	CU_ASSERT_STRING_EQUAL(cfg.proto_opts[0].text, "tag=a=b,c");
	CU_ASSERT_STRING_EQUAL(cfg.proto_opts[1].key, "fail");
	CU_ASSERT_PTR_NULL(cfg.proto_opts[1].value);
	CU_ASSERT_STRING_EQUAL(cfg.proto_opts[2].key, "k.2-_");
	CU_ASSERT_STRING_EQUAL(cfg.proto_opts[2].value, "");
	CU_ASSERT_EQUAL_FATAL(cfg.report_opt_count, 2);
	CU_ASSERT_STRING_EQUAL(cfg.report_opts[0].plugin, "json");
	CU_ASSERT_STRING_EQUAL(cfg.report_opts[0].key, "compact");
	CU_ASSERT_PTR_NULL(cfg.report_opts[0].value);
	CU_ASSERT_STRING_EQUAL(cfg.report_opts[1].plugin, "csv");
	CU_ASSERT_STRING_EQUAL(cfg.report_opts[1].key, "x");
	CU_ASSERT_STRING_EQUAL(cfg.report_opts[1].value, "1");
	/* --report json:compact keeps meaning a file named compact. */
	CU_ASSERT_EQUAL(cfg.proto_given, 0);
	shb_config_free(&cfg);
	CU_ASSERT_PTR_NULL(cfg.proto_opts);
	CU_ASSERT_EQUAL(cfg.report_opt_count, 0);

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--report", "json:compact", URL), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.report_count, 1);
	CU_ASSERT_STRING_EQUAL(cfg.reports[0].path, "compact");
	CU_ASSERT_EQUAL(cfg.report_opt_count, 0);
	shb_config_free(&cfg);
}

static void test_plugin_option_errors(void)
{
	EXPECT_ERROR("--proto-opt: expected KEY=VALUE or KEY, got \"\"",
		     "--proto-opt", "", URL);
	EXPECT_ERROR("--proto-opt: expected KEY=VALUE or KEY, got \"\"",
		     "--proto-opt=", URL);
	EXPECT_ERROR("--proto-opt \"=v\": empty key", "--proto-opt", "=v", URL);
	EXPECT_ERROR("--proto-opt \"a b=1\": invalid key \"a b\" (letters, "
		     "digits, '-', '_' and '.' only)",
		     "--proto-opt", "a b=1", URL);
	EXPECT_ERROR("--proto-opt \"k\\x0a=1\": invalid key \"k\\x0a\" "
		     "(letters, digits, '-', '_' and '.' only)",
		     "--proto-opt", "k\n=1", URL);
	EXPECT_ERROR("--proto-opt: missing value", URL, "--proto-opt");
	EXPECT_ERROR("--report-opt: expected NAME.KEY or NAME.KEY=VALUE, got "
		     "\"\"", "--report-opt", "", URL);
	EXPECT_ERROR("--report-opt \"compact\": expected NAME.KEY or "
		     "NAME.KEY=VALUE", "--report-opt", "compact", URL);
	EXPECT_ERROR("--report-opt \"json:compact\": expected NAME.KEY or "
		     "NAME.KEY=VALUE", "--report-opt", "json:compact", URL);
	EXPECT_ERROR("--report-opt \"k=a.b\": expected NAME.KEY or "
		     "NAME.KEY=VALUE", "--report-opt", "k=a.b", URL);
	EXPECT_ERROR("--report-opt \".compact\": empty reporter name",
		     "--report-opt", ".compact", URL);
	EXPECT_ERROR("--report-opt \"json.\": empty key",
		     "--report-opt", "json.", URL);
	EXPECT_ERROR("--report-opt \"json.=1\": empty key",
		     "--report-opt", "json.=1", URL);
	EXPECT_ERROR("--report-opt \"a/b.so.k\": invalid reporter name "
		     "\"a/b\" (letters, digits, '-' and '_' only)",
		     "--report-opt", "a/b.so.k", URL);
	EXPECT_ERROR("--report-opt \"json.a b\": invalid key \"a b\" "
		     "(letters, digits, '-', '_' and '.' only)",
		     "--report-opt", "json.a b", URL);
	EXPECT_ERROR("--report-opt \"csv.sep=a,b\": a reporter option's value "
		     "cannot hold ',' (the options reach the reporter "
		     "comma-separated)",
		     "--report-opt", "csv.sep=a,b", URL);
}

/* http and https are settled by the parse; any other scheme waits for
 * the protocol (proto_pick), with the port only when the URL names it. */
static void test_url_schemes(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "WS://h:81/x"), 0);
	CU_ASSERT_STRING_EQUAL(cfg.url.scheme, "ws");
	CU_ASSERT_STRING_EQUAL(cfg.url_text, "WS://h:81/x");
	CU_ASSERT_EQUAL(cfg.url.port, 81);
	CU_ASSERT_EQUAL(cfg.url.port_given, 1);
	CU_ASSERT_PTR_NULL(cfg.url.authority);
	CU_ASSERT_STRING_EQUAL(cfg.url.path, "/x");
	CU_ASSERT_STRING_EQUAL(cfg.proto, "h1");
	CU_ASSERT_EQUAL(cfg.proto_given, 0);
	static const struct shb_scheme ws[] = {
		{"ws", 80, 0}, {"wss", 443, SHB_SCHEME_TLS}, {NULL, 0, 0}};
	CU_ASSERT_EQUAL(shb_cli_set_scheme(&cfg, &cfg.url, cfg.url_text, ws, "ws", err,
					   sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(cfg.url.authority, "h:81");
	CU_ASSERT_EQUAL(cfg.url.tls, 0);
	shb_config_free(&cfg);

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--sni", "a.example",
				    "wss://[::1]/"), 0);
	CU_ASSERT_EQUAL(cfg.url.port, 0);
	CU_ASSERT_EQUAL(cfg.url.port_given, 0);
	CU_ASSERT_EQUAL(shb_cli_set_scheme(&cfg, &cfg.url, cfg.url_text, ws, "ws", err,
					   sizeof(err)), 0);
	CU_ASSERT_EQUAL(cfg.url.port, 443);
	CU_ASSERT_EQUAL(cfg.url.tls, 1);
	CU_ASSERT_STRING_EQUAL(cfg.url.authority, "[::1]");
	shb_config_free(&cfg);

	/* --sni needs TLS, which ws:// does not run. */
	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "--sni", "a.example",
				    "ws://h/"), 0);
	CU_ASSERT_EQUAL(shb_cli_set_scheme(&cfg, &cfg.url, cfg.url_text, ws, "ws", err,
					   sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "--sni a.example: SNI is sent only over "
				    "TLS, and ws:// does not run over TLS");
	/* A protocol that does not serve the scheme names its schemes. */
	CU_ASSERT_EQUAL(shb_cli_set_scheme(&cfg, &cfg.url, cfg.url_text, NULL, "h1",
					   err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "invalid URL \"ws://h/\": scheme must be "
				    "http or https for protocol h1");
	shb_config_free(&cfg);

	EXPECT_ERROR("--sni a.example: SNI is sent only over TLS, and the URL "
		     "is http://; use https://", "--sni", "a.example",
		     "http://h/");
	EXPECT_ERROR("invalid URL \"abcdefghijabcdefghijabcdefghijabc://h/\": "
		     "scheme longer than 32 characters",
		     "abcdefghijabcdefghijabcdefghijabc://h/");

	/* --proto, --http2 and --http3 choose; the default h1 does not. */
	const char *given[][2] = {{"--proto", "h1"}, {"--http2", NULL},
				  {"--http3", NULL}};
	for (size_t i = 0; i < 3; i++) {
		int rc = given[i][1] ? PARSE(&cfg, err, given[i][0], given[i][1], URL)
				     : PARSE(&cfg, err, given[i][0], URL);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_EQUAL(cfg.proto_given, 1);
		shb_config_free(&cfg);
	}
}

/* Several positional targets make a comparison (compare.h); each may
 * carry a label. */
static void test_compare_targets(void)
{
	struct shb_config cfg;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(PARSE(&cfg, err, "bun=http://a:3000/x?q=1",
				    "-c", "2", "http://b/?k=v=w",
				    "node.v20=http://c/"), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.target_count, 3);
	CU_ASSERT_STRING_EQUAL(cfg.targets[0].label, "bun");
	CU_ASSERT_STRING_EQUAL(cfg.targets[0].url_text, "http://a:3000/x?q=1");
	CU_ASSERT_PTR_NULL(cfg.targets[1].label);
	CU_ASSERT_STRING_EQUAL(cfg.targets[1].url_text, "http://b/?k=v=w");
	CU_ASSERT_STRING_EQUAL(cfg.targets[2].label, "node.v20");
	/* The first target is the one selected. */
	CU_ASSERT_STRING_EQUAL(cfg.url_text, "http://a:3000/x?q=1");
	CU_ASSERT_STRING_EQUAL(cfg.url.host, "a");
	CU_ASSERT_EQUAL(cfg.url.port, 3000);
	/* Selecting another target leaves the config as parsed. */
	char *text;
	struct shb_url u;
	CU_ASSERT_EQUAL(shb_compare_select(&cfg, 2, &text, &u, err,
					   sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(text, "http://c/");
	CU_ASSERT_STRING_EQUAL(u.host, "c");
	CU_ASSERT_EQUAL(u.port, 80);
	CU_ASSERT_STRING_EQUAL(u.authority, "c");
	CU_ASSERT_STRING_EQUAL(cfg.url_text, "http://a:3000/x?q=1");
	free(text);
	shb_url_free(&u);
	shb_config_free(&cfg);

	EXPECT_ERROR("\"=http://a/\": the label before '=' is empty (give "
		     "label=URL, or the URL alone)", "=http://a/");
	EXPECT_ERROR("\"a b=http://a/\": a label may hold only letters, "
		     "digits, '.', '_' and '-'", "a b=http://a/");
	EXPECT_ERROR("\"x=\": no URL after the label", "x=");
	EXPECT_ERROR("\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		     "=http://a/\": a label is at most 64 characters",
		     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		     "=http://a/");
	EXPECT_ERROR("\"x=http://b/\": the label x is given twice",
		     "x=http://a/", "x=http://b/");
	EXPECT_ERROR("invalid URL \"nope\": missing scheme (expected http:// "
		     "or https://)",
		     "a=http://a/", "b=nope");
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
	{"headers and Host", test_headers},
	{"Content-Type only when absent", test_content_type},
	{"body from files", test_body_sources},
	{"body from a large file", test_body_large_file},
	{"body from stdin", test_body_stdin},
	{"body cap", test_body_cap},
	{"body cap on stdin", test_body_cap_stdin},
	{"body from devices and FIFOs", test_body_special_files},
	{"Content-Length and Transfer-Encoding", test_framing_headers},
	{"help, version, list-plugins", test_help_version_list},
	{"double dash", test_double_dash},
	{"number errors", test_number_errors},
	{"duration errors", test_duration_errors},
	{"--warmup and --slo", test_warmup_and_slo},
	{"-R and --stages", test_open_loop},
	{"option errors", test_option_errors},
	{"errors leave as one line", test_err_one_line},
	{"--success", test_success},
	{"header errors", test_header_errors},
	{"file errors", test_file_errors},
	{"small error buffer", test_small_err_buffer},
	{"config free is safe", test_config_free_safe},
	{"usage text", test_usage},
	{"routing options", test_routing},
	{"routing option errors", test_routing_errors},
	{"TLS options", test_tls_options},
	{"did you mean", test_suggestions},
	{"plugin options", test_plugin_options},
	{"plugin option errors", test_plugin_option_errors},
	{"URL schemes", test_url_schemes},
	{"compare targets", test_compare_targets},
	CU_TEST_INFO_NULL,
};
