/* --shard and --start-at: the exact split of every total over N shards
 * (sums checked for N up to 10,000 and many random totals, remainders on
 * the first shards, the open-loop schedule's totals), the exact message
 * of every bad value, and RFC 3339 / Unix-seconds parsing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "cli/config.h"
#include "cli/schedule.h"
#include "cli/shard.h"
#include "cli/start_at.h"

#define URL "http://127.0.0.1:1/"
#define NS 1000000000ull

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_part_spread(void)
{
	CU_ASSERT_EQUAL(shb_shard_part(10, 0, 4), 3);
	CU_ASSERT_EQUAL(shb_shard_part(10, 1, 4), 3);
	CU_ASSERT_EQUAL(shb_shard_part(10, 2, 4), 2);
	CU_ASSERT_EQUAL(shb_shard_part(10, 3, 4), 2);
	CU_ASSERT_EQUAL(shb_shard_part(7, 0, 1), 7);
	CU_ASSERT_EQUAL(shb_shard_part(3, 2, 10000), 1);
	CU_ASSERT_EQUAL(shb_shard_part(3, 3, 10000), 0);
	CU_ASSERT_EQUAL(shb_shard_part(UINT64_MAX, 0, 2), UINT64_MAX / 2 + 1);
	CU_ASSERT_EQUAL(shb_shard_part(UINT64_MAX, 1, 2), UINT64_MAX / 2);
}

/* Random totals over random N up to 10,000 (and N = 10,000 itself): the
 * parts sum to the total, differ by at most one, and the larger come
 * first. */
static void test_part_sums(void)
{
	for (int round = 0; round < 300; round++) {
		uint32_t n = round == 0 ? SHB_SHARD_MAX :
			     (uint32_t)(next_rand() % SHB_SHARD_MAX) + 1;
		uint64_t total = round % 3 == 0 ? next_rand() % 100000 :
				 round % 3 == 1 ? next_rand() % SHB_SCHED_MAX_RATE_MILLI :
				 next_rand();
		uint64_t sum = 0, first = shb_shard_part(total, 0, n), prev = first;
		int ok = 1;
		for (uint32_t i = 0; i < n; i++) {
			uint64_t p = shb_shard_part(total, i, n);
			ok &= p <= prev && first - p <= 1;
			prev = p;
			sum += p;
		}
		CU_ASSERT(ok);
		CU_ASSERT_EQUAL(sum, total);
	}
}

/* shb_shard_apply on every shard of a config: -n, -c, -R and each stage's
 * rates sum to the totals; -z and -t are left alone. */
static void apply_all(uint32_t n, uint64_t requests, uint32_t conns,
		      uint64_t rate, const struct shb_stage *stages,
		      size_t nst)
{
	uint64_t sum_req = 0, sum_conn = 0, sum_rate = 0;
	uint64_t sum_st[8][2] = {{0}};
	shb_sched_n whole = 0, sum_sched = 0;
	struct shb_sched s;
	int ok = 1;

	if (stages && shb_sched_init(&s, 0, stages, nst, 0) == 0)
		whole = s.total;
	for (uint32_t i = 0; i < n; i++) {
		struct shb_config cfg;
		struct shb_stage st[8];
		char err[256];
		memset(&cfg, 0, sizeof(cfg));
		cfg.shard_index = i;
		cfg.shard_count = n;
		cfg.requests = requests;
		cfg.connections = conns;
		cfg.rate_milli = rate;
		cfg.threads = 3;
		cfg.duration_ns = requests ? 0 : 47 * NS;
		if (stages) {
			memcpy(st, stages, nst * sizeof(*st));
			cfg.stages = st;
			cfg.stage_count = nst;
		}
		ok &= shb_shard_apply(&cfg, err, sizeof(err)) == 0;
		ok &= cfg.threads == 3 && cfg.duration_ns == (requests ? 0 : 47 * NS);
		sum_req += cfg.requests;
		sum_conn += cfg.connections;
		sum_rate += cfg.rate_milli;
		for (size_t k = 0; k < nst; k++) {
			sum_st[k][0] += st[k].rate_from_milli;
			sum_st[k][1] += st[k].rate_to_milli;
		}
		if (stages && shb_sched_init(&s, 0, st, nst, 0) == 0)
			sum_sched += s.total;
	}
	CU_ASSERT(ok);
	CU_ASSERT_EQUAL(sum_req, requests);
	CU_ASSERT_EQUAL(sum_conn, conns);
	CU_ASSERT_EQUAL(sum_rate, rate);
	for (size_t k = 0; k < nst; k++) {
		CU_ASSERT_EQUAL(sum_st[k][0], stages[k].rate_from_milli);
		CU_ASSERT_EQUAL(sum_st[k][1], stages[k].rate_to_milli);
	}
	/* The schedules' request counts add up to the whole run's. */
	CU_ASSERT(sum_sched == whole);
}

static void test_apply_sums(void)
{
	const struct shb_stage stages[3] = {
		{10 * NS, 0, 1000001}, {30 * NS, 1000001, 5000003},
		{7 * NS, 5000003, 20000}};
	apply_all(4, 1000, 8, 0, NULL, 0);
	apply_all(7, 1000003, 50, 333333, NULL, 0);
	apply_all(SHB_SHARD_MAX, 123456789, 10000, 10000123, NULL, 0);
	apply_all(3, 0, 9, 0, stages, 3);
	apply_all(997, 0, 1000, 0, stages, 3);
	apply_all(SHB_SHARD_MAX, 0, 20000, 0, stages, 3);
	for (int round = 0; round < 20; round++) {
		uint32_t n = (uint32_t)(next_rand() % 2000) + 1;
		apply_all(n, n + next_rand() % 1000000000, n + (uint32_t)(next_rand() % 100000),
			  n + next_rand() % SHB_SCHED_MAX_RATE_MILLI, NULL, 0);
	}
}

/* Runs shb_cli_parse on {"shb", args..., NULL}. */
static int parse_v(struct shb_config *cfg, char *err, size_t errlen,
		   const char *const *args)
{
	char *argv[32];
	int argc = 0;

	argv[argc++] = strdup("shb");
	for (; *args && argc < 31; args++)
		argv[argc++] = strdup(*args);
	argv[argc] = NULL;
	int rc = shb_cli_parse(argc, argv, cfg, err, errlen);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return rc;
}

static void expect_error(const char *want, const char *const *args)
{
	struct shb_config cfg;
	char err[512];

	int rc = parse_v(&cfg, err, sizeof(err), args);
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (rc != -1 || strcmp(err, want) != 0)
		fprintf(stderr, "\n  rc %d\n  got: %s\n want: %s\n", rc, err,
			want);
	shb_config_free(&cfg);
}

#define EXPECT_ERROR(want, ...)                                                \
	expect_error((want), (const char *const[]){__VA_ARGS__, NULL})

/* getenv as the parser's environment reader (it returns const char *). */
static const char *env_get(const char *name)
{
	return getenv(name);
}

static void clear_env(void)
{
	unsetenv("JOB_COMPLETION_INDEX");
	unsetenv("SHB_SHARD_COUNT");
	unsetenv("SLURM_PROCID");
	unsetenv("SLURM_NTASKS");
}

static void test_cli_shard(void)
{
	struct shb_config cfg;
	char err[512];

	clear_env();
	CU_ASSERT_EQUAL(parse_v(&cfg, err, sizeof(err), (const char *const[]){
		"--shard", "1/4", "-n", "1001", "-c", "10", URL, NULL}), 0);
	CU_ASSERT_EQUAL(cfg.shard_index, 1);
	CU_ASSERT_EQUAL(cfg.shard_count, 4);
	CU_ASSERT_EQUAL(cfg.requests, 250);
	CU_ASSERT_EQUAL(cfg.connections, 3);
	shb_config_free(&cfg);
	/* Without --shard: 0 of 1, nothing split. */
	CU_ASSERT_EQUAL(parse_v(&cfg, err, sizeof(err), (const char *const[]){
		"-R", "10.5", "-z", "1s", URL, NULL}), 0);
	CU_ASSERT_EQUAL(cfg.shard_index, 0);
	CU_ASSERT_EQUAL(cfg.shard_count, 1);
	CU_ASSERT_EQUAL(cfg.rate_milli, 10500);
	shb_config_free(&cfg);
	/* -R and a ramp, --shard=I/N spelling. */
	CU_ASSERT_EQUAL(parse_v(&cfg, err, sizeof(err), (const char *const[]){
		"--shard=2/3", "-R", "10:0.005", "-z", "1s", URL, NULL}), 0);
	CU_ASSERT_EQUAL(cfg.stage_count, 1);
	CU_ASSERT_EQUAL(cfg.stages[0].rate_from_milli, 3333);
	CU_ASSERT_EQUAL(cfg.stages[0].rate_to_milli, 1);
	CU_ASSERT_EQUAL(cfg.duration_ns, NS);
	shb_config_free(&cfg);

	const char *syntax = "expected I/N, shard I of N numbered from 0 "
			     "(0/4 to 3/4), N at most 10000, or auto";
	char want[512];
	const char *bad[] = {"", "1", "1/", "/4", "a/4", "1/4x", "-1/4",
			     "1 /4", "0/10001", "10001/10002", "auto/4", "AUTO"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want), "--shard %s: %s", bad[i], syntax);
		EXPECT_ERROR(want, "--shard", bad[i], URL);
	}
	EXPECT_ERROR("--shard 4/4: shard 4 is not below the count 4 (shards "
		     "are numbered from 0 to 3)", "--shard", "4/4", URL);
	EXPECT_ERROR("--shard 0/0: the shard count must be 1 to 10000",
		     "--shard", "0/0", URL);
	EXPECT_ERROR("--shard 5/10: -n 3 leaves this shard no requests: use "
		     "at most 3 shards", "--shard", "5/10", "-n", "3", URL);
	EXPECT_ERROR("--shard 2/10: -c 2 leaves this shard no connections: "
		     "give -c 10 or more", "--shard", "2/10", "-c", "2", URL);
	EXPECT_ERROR("--shard 3/4: the rate split 4 ways leaves this shard no "
		     "requests: use fewer shards or a higher rate",
		     "--shard", "3/4", "-R", "0.003", "-c", "4", URL);
	EXPECT_ERROR("--shard 3/4: the rate split 4 ways leaves this shard no "
		     "requests: use fewer shards or a higher rate",
		     "--shard", "3/4", "--stages", "1s:0.002,1s:0.003", "-c",
		     "4", URL);
	/* A stage at 0 for this shard is fine when another is not. */
	CU_ASSERT_EQUAL(parse_v(&cfg, err, sizeof(err), (const char *const[]){
		"--shard", "3/4", "--stages", "1s:0.003,1s:0.004", "-c", "4",
		URL, NULL}), 0);
	CU_ASSERT_EQUAL(cfg.stages[0].rate_to_milli, 0);
	CU_ASSERT_EQUAL(cfg.stages[1].rate_to_milli, 1);
	shb_config_free(&cfg);
}

static void test_cli_shard_auto(void)
{
	struct shb_config cfg;
	char err[512];

	clear_env();
	EXPECT_ERROR("--shard auto: no shard in the environment: neither "
		     "JOB_COMPLETION_INDEX (Kubernetes Indexed Job) nor "
		     "SLURM_PROCID and SLURM_NTASKS (Slurm) is set",
		     "--shard", "auto", URL);
	setenv("SLURM_PROCID", "1", 1); /* without SLURM_NTASKS */
	EXPECT_ERROR("--shard auto: no shard in the environment: neither "
		     "JOB_COMPLETION_INDEX (Kubernetes Indexed Job) nor "
		     "SLURM_PROCID and SLURM_NTASKS (Slurm) is set",
		     "--shard", "auto", URL);
	setenv("SLURM_NTASKS", "3", 1);
	CU_ASSERT_EQUAL(parse_v(&cfg, err, sizeof(err), (const char *const[]){
		"--shard", "auto", "-n", "10", "-c", "3", URL, NULL}), 0);
	CU_ASSERT_EQUAL(cfg.shard_index, 1);
	CU_ASSERT_EQUAL(cfg.shard_count, 3);
	CU_ASSERT_EQUAL(cfg.requests, 3);
	CU_ASSERT_EQUAL(cfg.connections, 1);
	shb_config_free(&cfg);
	setenv("SLURM_PROCID", "3", 1);
	EXPECT_ERROR("--shard auto (SLURM_PROCID=3, SLURM_NTASKS=3): shard 3 "
		     "is not below the count 3 (shards are numbered from 0 to 2)",
		     "--shard", "auto", URL);
	setenv("SLURM_NTASKS", "x", 1);
	EXPECT_ERROR("--shard auto: SLURM_NTASKS=x is not a number from 0 to "
		     "10000", "--shard", "auto", URL);
	/* the parser's own message is one line whatever the value or the
	 * environment holds (the command line's guard comes after it) */
	uint32_t si, sn;
	char line[256] = "";
	setenv("SLURM_NTASKS", "3\n", 1);
	CU_ASSERT_EQUAL(shb_shard_parse("--shard", "auto", env_get, &si, &sn, line,
					sizeof(line)), -1);
	CU_ASSERT_STRING_EQUAL(line, "--shard auto: SLURM_NTASKS=3\\x0a is not a "
			       "number from 0 to 10000");
	CU_ASSERT_EQUAL(shb_shard_parse("--shard", "1\n/4", env_get, &si, &sn, line,
					sizeof(line)), -1);
	CU_ASSERT_STRING_EQUAL(line, "--shard 1\\x0a/4: expected I/N, shard I of "
			       "N numbered from 0 (0/4 to 3/4), N at most 10000, "
			       "or auto");
	setenv("SLURM_NTASKS", "x", 1);
	/* Kubernetes first when both are set. */
	setenv("JOB_COMPLETION_INDEX", "2", 1);
	EXPECT_ERROR("--shard auto: JOB_COMPLETION_INDEX is set but "
		     "SHB_SHARD_COUNT is not: set it to the Job's completions",
		     "--shard", "auto", URL);
	setenv("SHB_SHARD_COUNT", "0", 1);
	EXPECT_ERROR("--shard auto (JOB_COMPLETION_INDEX=2, SHB_SHARD_COUNT=0): "
		     "the shard count must be 1 to 10000", "--shard", "auto", URL);
	setenv("SHB_SHARD_COUNT", "10001", 1);
	EXPECT_ERROR("--shard auto: SHB_SHARD_COUNT=10001 is not a number from "
		     "0 to 10000", "--shard", "auto", URL);
	setenv("JOB_COMPLETION_INDEX", "", 1);
	EXPECT_ERROR("--shard auto: JOB_COMPLETION_INDEX= is not a number from "
		     "0 to 10000", "--shard", "auto", URL);
	setenv("JOB_COMPLETION_INDEX", "2", 1);
	setenv("SHB_SHARD_COUNT", "4", 1);
	CU_ASSERT_EQUAL(parse_v(&cfg, err, sizeof(err), (const char *const[]){
		"--shard", "auto", "-n", "10", "-c", "8", URL, NULL}), 0);
	CU_ASSERT_EQUAL(cfg.shard_index, 2);
	CU_ASSERT_EQUAL(cfg.shard_count, 4);
	CU_ASSERT_EQUAL(cfg.requests, 2);
	CU_ASSERT_EQUAL(cfg.connections, 2);
	shb_config_free(&cfg);
	clear_env();
}

static void expect_time(const char *v, uint64_t want)
{
	uint64_t got = 0;
	const char *why = shb_start_at_parse(v, &got);
	CU_ASSERT_PTR_NULL(why);
	CU_ASSERT_EQUAL(got, want);
	if (why || got != want)
		fprintf(stderr, "\n  %s: %s, got %llu want %llu\n", v,
			why ? why : "ok", (unsigned long long)got,
			(unsigned long long)want);
}

static void test_start_at_parse(void)
{
	expect_time("1970-01-01T00:00:00Z", 0);
	expect_time("2000-02-29T12:34:56.789Z", 951827696789000000ull);
	expect_time("2026-12-01T20:00:00Z", 1796155200 * NS);
	expect_time("2026-12-01t20:00:00z", 1796155200 * NS);
	expect_time("2026-12-01T21:00:00+01:00", 1796155200 * NS);
	expect_time("2026-12-01T20:00:00-00:00", 1796155200 * NS);
	expect_time("2024-12-31T23:59:59.999999999Z", 1735689599 * NS + 999999999);
	expect_time("2100-03-01T00:00:00Z", 4107542400 * NS);
	expect_time("1970-01-01T05:30:00+05:30", 0);
	expect_time("2026-06-15T08:00:00-07:45", 1781538300 * NS);
	expect_time("2026-06-15T08:00:00.5-07:45", 1781538300 * NS + NS / 2);
	expect_time("1796155200", 1796155200 * NS);
	expect_time("1796155200.5", 1796155200 * NS + NS / 2);
	expect_time("1796155200.000000001", 1796155200 * NS + 1);
	expect_time("0", 0);
}

static void expect_opt(const char *v, uint64_t now, const char *want)
{
	char err[512] = "";
	uint64_t t;
	int rc = shb_start_at_opt("--start-at", v, now, &t, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, -1);
	CU_ASSERT_STRING_EQUAL(err, want);
	if (rc != -1 || strcmp(err, want) != 0)
		fprintf(stderr, "\n  got: %s\n want: %s\n", err, want);
}

static void test_start_at_messages(void)
{
	const uint64_t now = 1796155200 * NS;
	const char *syntax = "expected an RFC 3339 time with Z or an offset "
		"(2026-12-01T20:00:00Z, 2026-12-01T21:00:00.5+01:00) or Unix "
		"seconds (1796155200.5)";
	const char *bad[] = {"", "soon", "2026-12-01", "2026-12-01T20:00Z",
		"2026-12-01 20:00:00Z", "2026-1-01T20:00:00Z",
		"2026-12-01T20:00:00.Z", "2026-12-01T20:00:00+0100",
		"2026-12-01T20:00:00Zx", "1796155200.", ".5", "1.2.3",
		"+1796155200", "2026-12-01T20:00:00+01"};
	char want[512];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want), "--start-at %s: %s", bad[i], syntax);
		expect_opt(bad[i], now, want);
	}
	static const struct { const char *v, *why; } range[] = {
		{"2026-12-01T20:00:00", "the time needs Z or an offset such as +01:00"},
		{"2026-12-01T20:00:00.1234567891Z", "at most 9 fraction digits (ns)"},
		{"1796155200.1234567891", "at most 9 fraction digits (ns)"},
		{"179615520000", "too many digits for Unix seconds"},
		{"2026-12-01T20:00:00+24:00", "the offset must be -23:59 to +23:59"},
		{"2026-12-01T20:00:00+01:60", "the offset must be -23:59 to +23:59"},
		{"1969-12-31T23:59:59Z", "the year must be 1970 or later"},
		{"1970-01-01T00:00:00+00:01", "the time is before 1970"},
		{"2026-13-01T20:00:00Z", "the month must be 01 to 12"},
		{"2026-00-01T20:00:00Z", "the month must be 01 to 12"},
		{"2026-11-31T20:00:00Z", "no such day in that month"},
		{"2026-02-29T20:00:00Z", "no such day in that month"},
		{"2026-12-00T20:00:00Z", "no such day in that month"},
		{"2026-12-01T24:00:00Z", "the hour must be 00 to 23"},
		{"2026-12-01T20:60:00Z", "the minute must be 00 to 59"},
		{"2026-12-31T23:59:60Z", "the second must be 00 to 59 (leap "
					 "seconds are not taken)"},
	};
	for (size_t i = 0; i < sizeof(range) / sizeof(range[0]); i++) {
		snprintf(want, sizeof(want), "--start-at %s: %s", range[i].v,
			 range[i].why);
		expect_opt(range[i].v, now, want);
	}
	/* the value quoted: the message stays one line */
	snprintf(want, sizeof(want), "--start-at 2\xff\\x0a0: %s", syntax);
	expect_opt("2\xff\n0", now, want);
	expect_opt("1796155198.9", now, "--start-at 1796155198.9: that is 1.1 s "
		   "in the past; give a time ahead (at most 1 s ago)");
	expect_opt("2026-12-02T20:00:00.000000001Z", now,
		   "--start-at 2026-12-02T20:00:00.000000001Z: that is more "
		   "than 24 hours ahead");
	/* The edges are in. */
	uint64_t t;
	char err[256];
	CU_ASSERT_EQUAL(shb_start_at_opt("--start-at", "1796155199", now, &t,
					 err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(shb_start_at_opt("--start-at", "2026-12-02T20:00:00Z",
					 now, &t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(t, now + 24 * 3600 * NS);
	/* Through the command line, against the real clock. */
	EXPECT_ERROR("--start-at 2026-12-01T20:00:00.Z: expected an RFC 3339 "
		     "time with Z or an offset (2026-12-01T20:00:00Z, "
		     "2026-12-01T21:00:00.5+01:00) or Unix seconds "
		     "(1796155200.5)", "--start-at", "2026-12-01T20:00:00.Z", URL);
	EXPECT_ERROR("--start-at 4102444800: that is more than 24 hours ahead",
		     "--start-at=4102444800", URL);
}

static void test_start_at_mono(void)
{
	CU_ASSERT_EQUAL(shb_start_at_mono(10 * NS, 8 * NS, 100 * NS), 102 * NS);
	CU_ASSERT_EQUAL(shb_start_at_mono(8 * NS, 8 * NS, 100 * NS), 100 * NS);
	CU_ASSERT_EQUAL(shb_start_at_mono(7 * NS, 8 * NS, 100 * NS), 99 * NS);
	CU_ASSERT_EQUAL(shb_start_at_mono(0, 200 * NS, 100 * NS), 1);
}

static CU_TestInfo shard_tests[] = {
	{"parts: remainders on the first shards", test_part_spread},
	{"parts: sums exact, N up to 10000", test_part_sums},
	{"apply: -n, -c, -R, stages and schedules sum exactly", test_apply_sums},
	{"--shard I/N: values and messages", test_cli_shard},
	{"--shard auto: Kubernetes, Slurm, messages", test_cli_shard_auto},
	CU_TEST_INFO_NULL,
};

static CU_TestInfo start_at_tests[] = {
	{"RFC 3339 and Unix seconds", test_start_at_parse},
	{"every message", test_start_at_messages},
	{"wall clock to monotonic", test_start_at_mono},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"shard", NULL, NULL, NULL, NULL, shard_tests},
	{"start_at", NULL, NULL, NULL, NULL, start_at_tests},
	CU_SUITE_INFO_NULL,
};
