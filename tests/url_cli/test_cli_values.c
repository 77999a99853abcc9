/* Command-line parsing of values and the exact message of every usage
 * error: help and version, "--", numbers, durations, warm-up and SLOs,
 * the open loop's rates, --success, header and file errors, small error
 * buffers, and a configuration freed twice. */
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

CU_TestInfo shb_cli_value_tests[] = {
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
	CU_TEST_INFO_NULL,
};
