/* What a newcomer trips over on the command line. Other tools' meanings
 * of -d and -m (core/cli/cli_hints.h): wrk's duration and h2load's streams
 * are refused with shb's option named; the long spellings and the values
 * shb means still go through. Several reports on stdout get a warning
 * (shb_cli_warn_reports, cli_usage.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "cli/config.h"
#include "test_util.h"

#define URL "http://example.com/x"

static void test_data_duration_refused(void)
{
	EXPECT_ERROR("-d 5s: shb's -d is the request body; for a run of 5s "
		     "(wrk's -d) give -z 5s, or to send the body \"5s\" write "
		     "--data 5s",
		     "-d", "5s", URL);
	EXPECT_ERROR("-d 5s: shb's -d is the request body; for a run of 5s "
		     "(wrk's -d) give -z 5s, or to send the body \"5s\" write "
		     "--data 5s",
		     "-d5s", URL);
	EXPECT_ERROR("-d 1m30s: shb's -d is the request body; for a run of "
		     "1m30s (wrk's -d) give -z 1m30s, or to send the body "
		     "\"1m30s\" write --data 1m30s",
		     URL, "-c", "10", "-d", "1m30s");
	EXPECT_ERROR("-d 500ms: shb's -d is the request body; for a run of "
		     "500ms (wrk's -d) give -z 500ms, or to send the body "
		     "\"500ms\" write --data 500ms",
		     "-d", "500ms", URL);
}

/* The body is sent as typed where the value is not a duration with a
 * unit, or where --data / --data-binary say so. */
static void expect_body(const char *body, const char *const *args)
{
	struct shb_config cfg;
	char err[512];

	CU_ASSERT_EQUAL_FATAL(shb_test_parse(&cfg, err, sizeof(err), args), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_EQUAL(cfg.has_body, 1);
	CU_ASSERT_EQUAL(cfg.body_len, strlen(body));
	CU_ASSERT_EQUAL(memcmp(cfg.body, body, cfg.body_len), 0);
	CU_ASSERT_STRING_EQUAL(cfg.method, "POST");
	shb_config_free(&cfg);
}

#define EXPECT_BODY(body, ...)                                                 \
	expect_body((body), (const char *const[]){__VA_ARGS__, NULL})

static void test_data_sent_as_typed(void)
{
	EXPECT_BODY("5s", "--data", "5s", URL);
	EXPECT_BODY("5s", "--data=5s", URL);
	EXPECT_BODY("5s", "--data-binary", "5s", URL);
	EXPECT_BODY("5", "-d", "5", URL);
	EXPECT_BODY("1.5", "-d", "1.5", URL);
	EXPECT_BODY("ms", "-d", "ms", URL);
	EXPECT_BODY("5 s", "-d", "5 s", URL);
	EXPECT_BODY("a=1&5sec", "-d", "a=1", "-d", "5sec", URL);
}

static void test_method_number_refused(void)
{
	EXPECT_ERROR("-m 32: shb's -m is the request method; for 32 requests "
		     "in flight per connection (h2load's -m) give -p 32, or to "
		     "send the method \"32\" write --method 32",
		     "--http2", "-m", "32", URL);
	EXPECT_ERROR("-m 100: shb's -m is the request method; for 100 "
		     "requests in flight per connection (h2load's -m) give -p "
		     "100, or to send the method \"100\" write --method 100",
		     "-m100", URL);
}

static void expect_method(const char *method, const char *const *args)
{
	struct shb_config cfg;
	char err[512];

	CU_ASSERT_EQUAL_FATAL(shb_test_parse(&cfg, err, sizeof(err), args), 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_STRING_EQUAL(cfg.method, method);
	shb_config_free(&cfg);
}

#define EXPECT_METHOD(m, ...)                                                  \
	expect_method((m), (const char *const[]){__VA_ARGS__, NULL})

static void test_method_sent_as_typed(void)
{
	EXPECT_METHOD("32", "--method", "32", URL);
	EXPECT_METHOD("32", "--method=32", URL);
	EXPECT_METHOD("32", "-X", "32", URL);
	EXPECT_METHOD("M32", "-m", "M32", URL);
	EXPECT_METHOD("PUT", "-m", "PUT", URL);
}

/* How many reports share stdout for args, and the warning line printed. */
static int stdout_reports(char *line, size_t cap, const char *const *args)
{
	struct shb_config cfg;
	char err[512], *text = NULL;
	size_t len = 0;

	CU_ASSERT_EQUAL_FATAL(shb_test_parse(&cfg, err, sizeof(err), args), 0);
	FILE *f = open_memstream(&text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	int n = shb_cli_warn_reports(&cfg, f);
	fclose(f);
	snprintf(line, cap, "%s", text);
	free(text);
	shb_config_free(&cfg);
	return n;
}

#define STDOUT_REPORTS(line, ...)                                              \
	stdout_reports((line), sizeof(line), (const char *const[]){__VA_ARGS__, NULL})

static void test_reports_share_stdout(void)
{
	char line[512];
	static const char want[] =
		"shb: warning: the text, json reports all write to stdout, one "
		"after the other; give all but one a file (e.g. --report "
		"json:out.json)\n";

	CU_ASSERT_EQUAL(STDOUT_REPORTS(line, "--report", "text,json", URL), 2);
	CU_ASSERT_STRING_EQUAL(line, want);
	CU_ASSERT_EQUAL(STDOUT_REPORTS(line, "--report", "text", "-j", URL), 2);
	CU_ASSERT_STRING_EQUAL(line, want);
	CU_ASSERT_EQUAL(STDOUT_REPORTS(line, "--report", "text,csv,json", URL), 3);
	CU_ASSERT_STRING_EQUAL(line, "shb: warning: the text, csv, json reports "
			       "all write to stdout, one after the other; give "
			       "all but one a file (e.g. --report json:out.json)\n");
	/* One on stdout: nothing to say. */
	CU_ASSERT_EQUAL(STDOUT_REPORTS(line, "--report", "text,json:o.json", URL), 1);
	CU_ASSERT_STRING_EQUAL(line, "");
	CU_ASSERT_EQUAL(STDOUT_REPORTS(line, URL), 1);
	CU_ASSERT_STRING_EQUAL(line, "");
	CU_ASSERT_EQUAL(STDOUT_REPORTS(line, "-j", URL), 1);
	CU_ASSERT_STRING_EQUAL(line, "");
	CU_ASSERT_EQUAL(STDOUT_REPORTS(line, "--report", "tui,text", URL), 1);
	CU_ASSERT_STRING_EQUAL(line, "");
}

CU_TestInfo shb_cli_hint_tests[] = {
	{"-d with a duration (wrk's -d)", test_data_duration_refused},
	{"bodies sent as typed", test_data_sent_as_typed},
	{"-m with a number (h2load's -m)", test_method_number_refused},
	{"methods sent as typed", test_method_sent_as_typed},
	{"reports sharing stdout", test_reports_share_stdout},
	CU_TEST_INFO_NULL,
};
