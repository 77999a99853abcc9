/* The small parsers of option values, each driven directly (the cli
 * target reaches them only through whole argument vectors). Input: one
 * selector byte, then the value (up to the first NUL; what follows it is
 * the environment of --shard auto):
 *   0 durations (shb_parse_duration)   1 --slo          2 --percentiles
 *   3 --success                        4 --shard        5 --start-at
 *   6 --stages (through the command line)  7 -R (likewise)
 *   8 --interval, --timeout, --warmup (likewise)
 *
 * Checked besides memory safety: a refusal has a one-line message; what
 * is accepted keeps the parser's promises: a duration written back in ns
 * parses to itself, percentiles ascend within (0, 100%], a --slo gate
 * checks to 0 or 1 with a one-line message, --success keeps to the
 * statuses it names and resolves only outcome names a table has (1.4), a
 * shard's index is below its count, stages have a
 * length, and the run options of the command line are within their
 * bounds. */
#include <inttypes.h>
#include <string.h>

#include "cli/config.h"
#include "fuzz_input.h"
#include "results/slo_check.h"
#include "results/stats.h" /* the histograms' layout */
#include "cli/percentiles.h"
#include "cli/shard.h"
#include "cli/slo.h"
#include "results/slo_check.h" /* struct shb_slo_data */
#include "cli/start_at.h"
#include "cli/success.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char text[4096];
static const char *env_text; /* after the value's NUL */

static void one_line(const char *err)
{
	FZ_CHECK(err[0] != '\0' && !strchr(err, '\n'));
}

static void duration(const char *v)
{
	uint64_t ns, again;
	char back[32];

	if (shb_parse_duration(v, &ns) != 0)
		return;
	snprintf(back, sizeof(back), "%" PRIu64 "ns", ns);
	FZ_CHECK(shb_parse_duration(back, &again) == 0 && again == ns);
}

static void slo(const char *v)
{
	static struct shb_histo h;
	struct shb_slo s;
	char err[256] = "", msg[256] = "";

	if (!h.counts) {
		if (shb_histo_init(&h, SHB_HIST_HIGHEST, SHB_HIST_SIGFIGS) < 0)
			abort();
		for (uint64_t x = 1; x < SHB_HIST_HIGHEST; x = x * 3 + 1)
			shb_histo_record(&h, x);
	}
	if (shb_slo_parse(v, &s, err, sizeof(err)) != 0) {
		one_line(err);
		return;
	}
	FZ_CHECK(memchr(s.name, '\0', sizeof(s.name)) &&
		 memchr(s.limit_text, '\0', sizeof(s.limit_text)));
	FZ_CHECK(s.metric != SHB_SLO_PCT || (s.ppm >= 1 && s.ppm <= 1000000));
	struct shb_slo_data d = {.ok = h.total, .errors = 3,
				 .elapsed_ns = 1500000000, .latency = &h};
	int r = shb_slo_check(&s, &d, msg, sizeof(msg));
	FZ_CHECK(r == 0 || r == 1);
	if (r == 0)
		one_line(msg);
}

static void percentiles(const char *v)
{
	uint32_t ppm[SHB_PCT_MAX];
	size_t n = 0;
	char err[256] = "";

	if (shb_percentiles_parse(v, ppm, &n, err, sizeof(err)) != 0) {
		one_line(err);
		return;
	}
	FZ_CHECK(n >= 1 && n <= SHB_PCT_MAX);
	for (size_t i = 0; i < n; i++)
		FZ_CHECK(ppm[i] >= 1 && ppm[i] <= 1000000 &&
			 (i == 0 || ppm[i] > ppm[i - 1]));
}

static void success(const char *v)
{
	struct shb_success s;
	char err[256] = "";
	unsigned ok = 0;

	if (shb_success_parse(v, &s, err, sizeof(err)) != 0) {
		one_line(err);
		return;
	}
	FZ_CHECK(memchr(s.text, '\0', sizeof(s.text)));
	for (uint32_t st = 0; st < 1000; st++)
		ok += (unsigned)shb_success_ok(&s, st);
	FZ_CHECK(shb_success_ok(&s, 0) && ok >= 100); /* below 100: always */
	/* 1.4: the names resolved against a table with a shared name, for
	 * an HTTP protocol and one of request model NONE */
	static const struct shb_outcome_code a[] = {
		{0, "ok", 1, 0}, {1, "nil", 1, 0}, {2, "error", 0, 0}, {0, NULL, 0, 0}};
	static const struct shb_outcome_code b[] = {
		{7, "ok", 1, 0}, {0, NULL, 0, 0}};
	static const struct shb_outcome_space sp[] = {
		{SHB_APPSPACE_PRIVATE, 0, "redis", a},
		{SHB_APPSPACE_PRIVATE + 1, 0, "resp", b}, {0, 0, NULL, NULL}};
	for (int http = 0; http < 2; http++) {
		err[0] = '\0';
		if (shb_success_resolve(&s, sp, http, "p", err, sizeof(err)) < 0) {
			one_line(err);
			continue;
		}
		FZ_CHECK(s.outcome_count <= (size_t)s.names);
		for (size_t i = 0; i < s.outcome_count; i++)
			FZ_CHECK(shb_success_named(&s, s.outcome[i].space,
						   s.outcome[i].code));
	}
}

static const char *env(const char *name)
{
	/* every variable the same: the text after the value's NUL */
	(void)name;
	return env_text;
}

static void shard(const char *v)
{
	uint32_t index = 0, count = 0;
	char err[256] = "";

	if (shb_shard_parse("--shard", v, env, &index, &count, err,
			    sizeof(err)) != 0) {
		one_line(err);
		return;
	}
	FZ_CHECK(index < count);
}

static void start_at(const char *v)
{
	uint64_t ns = 0, now = 1796155200000000000ull;
	char err[256] = "";

	shb_start_at_parse(v, &ns);
	if (shb_start_at_opt("--start-at", v, now, &ns, err, sizeof(err)) != 0) {
		one_line(err);
		return;
	}
	FZ_CHECK(ns + SHB_START_AT_PAST_NS >= now &&
		 ns <= now + SHB_START_AT_AHEAD_NS);
}

/* One option and its value on the command line of a plain run. */
static void option(const char *name, const char *v)
{
	char *run[] = {"shb", "-z", "10s", (char *)name, (char *)v,
		       "http://127.0.0.1:1/", NULL};
	char *staged[] = {"shb", (char *)name, (char *)v,
			  "http://127.0.0.1:1/", NULL}; /* they set -z */
	int stages = !strcmp(name, "--stages");
	struct shb_config cfg;
	char err[512] = "";
	int rc = stages ? shb_cli_parse(4, staged, &cfg, err, sizeof(err)) :
			  shb_cli_parse(6, run, &cfg, err, sizeof(err));

	FZ_CHECK(rc == -1 || rc == 0);
	if (rc < 0) {
		one_line(err);
	} else {
		uint64_t sum = 0;

		for (size_t i = 0; i < cfg.stage_count; i++) {
			FZ_CHECK(cfg.stages[i].duration_ns > 0);
			FZ_CHECK(sum + cfg.stages[i].duration_ns > sum);
			sum += cfg.stages[i].duration_ns;
		}
		FZ_CHECK(!cfg.stage_count || !strcmp(name, "-R") ||
			 cfg.duration_ns == sum);
		FZ_CHECK(cfg.duration_ns > 0);
		FZ_CHECK(!cfg.interval_ns || (cfg.interval_ns >= SHB_INTERVAL_MIN_NS &&
					     cfg.interval_ns <= SHB_INTERVAL_MAX_NS));
	}
	shb_config_free(&cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz in = {data, size};
	unsigned sel = fz_u8(&in);

	if (in.n >= sizeof(text))
		return 0;
	memcpy(text, in.p, in.n);
	text[in.n] = '\0';
	size_t vlen = strlen(text);
	env_text = vlen < in.n ? text + vlen + 1 : NULL;
	static const char *const durations[] = {"--interval", "--timeout",
						"--warmup"};
	switch (sel % 9) {
	case 0: duration(text); break;
	case 1: slo(text); break;
	case 2: percentiles(text); break;
	case 3: success(text); break;
	case 4: shard(text); break;
	case 5: start_at(text); break;
	case 6: option("--stages", text); break;
	case 7: option("-R", text); break;
	default: option(durations[(sel / 9) % 3], text); break;
	}
	return 0;
}
