/* The run plan (core/plan): every worker's connections, run-wide numbers
 * and budget; a mix's origins, connections per origin, requests per
 * target and their split over the workers; threads capped by -c, -n and a
 * mix's smallest origin; the exact line of a mix with fewer connections
 * than origins; and the configuration left exactly as it was. */
#include <stdint.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "plan/plan.h"
#include "plan/plan_int.h"

static struct shb_target_arg targets[3] = {
	{.url_text = (char *)"http://127.0.0.1:9/a", .weight = 3},
	{.url_text = (char *)"http://127.0.0.1:9/b", .weight = 1},
	{.url_text = (char *)"http://127.0.0.1:8/c", .weight = 1},
};

static struct shb_proto_desc desc;

static void config(struct shb_config *cfg, uint32_t c, uint64_t n)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->connections = c;
	cfg->requests = n;
	cfg->requests_all = n;
	cfg->parallel = 1;
	cfg->shard_count = 1;
	cfg->targets = targets;
	cfg->target_count = 1;
}

/* A plan of cfg as shb_plan_make starts it, with one run of protocol
 * `desc` (a stream protocol serving http and https). */
static void start(struct shb_plan *plan, struct shb_plan_run *run,
		  const struct shb_config *cfg, uint32_t threads)
{
	memset(plan, 0, sizeof(*plan));
	memset(run, 0, sizeof(*run));
	memset(&desc, 0, sizeof(desc));
	desc.struct_size = sizeof(desc);
	desc.name = "t";
	desc.transport = SHB_TRANSPORT_STREAM;
	run->proto.desc = &desc;
	plan->cfg = cfg;
	plan->runs = run;
	plan->threads = threads;
	plan->connections = cfg->connections;
	plan->requests = cfg->duration_ns ? 0 : cfg->requests;
	plan->requests_all = cfg->requests_all;
	plan->shard_count = 1;
}

static void finish(struct shb_plan *plan)
{
	plan->runs = NULL; /* the test's own */
	shb_plan_free(plan);
}

static void test_workers_uneven(void)
{
	struct shb_config cfg, before;
	struct shb_plan plan;
	struct shb_plan_run run;
	char err[256] = "";
	config(&cfg, 10, 100);
	before = cfg;
	start(&plan, &run, &cfg, 3);
	CU_ASSERT_EQUAL_FATAL(shb_plan_workers(&plan, err, sizeof(err)), 0);
	static const uint32_t conns[] = {4, 3, 3}, base[] = {0, 4, 7};
	static const uint64_t budget[] = {34, 33, 33};
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(plan.workers[i].conns, conns[i]);
		CU_ASSERT_EQUAL(plan.workers[i].conn_base, base[i]);
		CU_ASSERT_EQUAL(plan.workers[i].budget, budget[i]);
		CU_ASSERT_PTR_NULL(plan.workers[i].oconns);
	}
	CU_ASSERT_EQUAL(memcmp(&cfg, &before, sizeof(cfg)), 0);
	finish(&plan);

	/* -z: no budget. */
	config(&cfg, 5, 200);
	cfg.duration_ns = 1000000000ull;
	start(&plan, &run, &cfg, 2);
	CU_ASSERT_EQUAL_FATAL(shb_plan_workers(&plan, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(plan.workers[0].conns, 3);
	CU_ASSERT_EQUAL(plan.workers[1].conns, 2);
	CU_ASSERT_EQUAL(plan.workers[0].budget, 0);
	CU_ASSERT_EQUAL(plan.workers[1].budget, 0);
	finish(&plan);
}

/* -t as given, never over -c nor -n; ring-only only past the limit. */
static void test_threads(void)
{
	struct shb_config cfg;
	struct shb_plan plan;
	struct shb_plan_run run;
	char err[256] = "";
	config(&cfg, 10, 100);
	cfg.threads = 3;
	start(&plan, &run, &cfg, 0);
	CU_ASSERT_EQUAL(shb_plan_threads(&plan, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(plan.threads, 3);
	CU_ASSERT_EQUAL(plan.ring_only_fds, 0);
	CU_ASSERT_EQUAL(cfg.threads, 3);
	config(&cfg, 2, 100);
	cfg.threads = 8;
	start(&plan, &run, &cfg, 0);
	CU_ASSERT_EQUAL(shb_plan_threads(&plan, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(plan.threads, 2);
	config(&cfg, 10, 1);
	cfg.threads = 8;
	start(&plan, &run, &cfg, 0);
	CU_ASSERT_EQUAL(shb_plan_threads(&plan, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(plan.threads, 1);
}

/* Weights 3, 1, 1 on two origins (4 and 1): -c 5 gives them 4 and 1, so
 * one thread; -n 10 gives the targets 6, 2 and 2. */
static void test_mix_shares(void)
{
	struct shb_config cfg, before;
	struct shb_plan plan;
	struct shb_plan_run run;
	char err[256] = "";
	config(&cfg, 5, 10);
	cfg.mix = 1;
	cfg.target_count = 3;
	before = cfg;
	start(&plan, &run, &cfg, 2);
	CU_ASSERT_EQUAL_FATAL(shb_plan_mix(&plan, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(plan.mixed, 1);
	CU_ASSERT_EQUAL(plan.threads, 1);
	CU_ASSERT_EQUAL(plan.mix.norigins, 2);
	CU_ASSERT_EQUAL(plan.mix.origin_of[0], 0);
	CU_ASSERT_EQUAL(plan.mix.origin_of[1], 0);
	CU_ASSERT_EQUAL(plan.mix.origin_of[2], 1);
	CU_ASSERT_EQUAL(plan.mix.oweight[0], 4);
	CU_ASSERT_EQUAL(plan.mix.oconns[0], 4);
	CU_ASSERT_EQUAL(plan.mix.oconns[1], 1);
	CU_ASSERT_EQUAL(plan.mix.count[0], 6);
	CU_ASSERT_EQUAL(plan.mix.count[1], 2);
	CU_ASSERT_EQUAL(plan.mix.count[2], 2);
	CU_ASSERT_EQUAL_FATAL(shb_plan_workers(&plan, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(plan.workers[0].conns, 5);
	CU_ASSERT_EQUAL(plan.workers[0].budget, 10);
	CU_ASSERT_EQUAL(plan.workers[0].oconns[1], 1);
	CU_ASSERT_EQUAL(plan.workers[0].tbudget[0], 6);
	CU_ASSERT_EQUAL(memcmp(&cfg, &before, sizeof(cfg)), 0);
	finish(&plan);
}

/* Two workers over -c 8 -n 9 (weights 3, 1, 1): each target's count goes
 * round the workers from where the one before ended; with -n a worker
 * keeps no more of an origin's connections than its requests there. */
static void test_mix_split(void)
{
	struct shb_config cfg;
	struct shb_plan plan;
	struct shb_plan_run run;
	char err[256] = "";
	config(&cfg, 8, 9);
	cfg.mix = 1;
	cfg.target_count = 3;
	start(&plan, &run, &cfg, 2);
	CU_ASSERT_EQUAL_FATAL(shb_plan_mix(&plan, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(plan.threads, 2);
	CU_ASSERT_EQUAL(plan.mix.oconns[0], 6);
	CU_ASSERT_EQUAL(plan.mix.oconns[1], 2);
	uint64_t sum[3] = {0};
	CU_ASSERT_EQUAL_FATAL(shb_plan_workers(&plan, err, sizeof(err)), 0);
	for (int i = 0; i < 2; i++)
		for (int t = 0; t < 3; t++)
			sum[t] += plan.workers[i].tbudget[t];
	for (int t = 0; t < 3; t++)
		CU_ASSERT_EQUAL(sum[t], plan.mix.count[t]);
	CU_ASSERT_EQUAL(plan.workers[0].budget + plan.workers[1].budget, 9);
	/* Origin 1's two connections: one per worker, each with a request. */
	CU_ASSERT_EQUAL(plan.workers[0].oconns[1], 1);
	CU_ASSERT_EQUAL(plan.workers[1].oconns[1], 1);
	CU_ASSERT_EQUAL(plan.workers[1].conn_base, plan.workers[0].conns);
	finish(&plan);
}

static void test_mix_refused(void)
{
	struct shb_config cfg;
	struct shb_plan plan;
	struct shb_plan_run run;
	char err[256] = "";
	config(&cfg, 1, 10);
	cfg.mix = 1;
	cfg.target_count = 3;
	start(&plan, &run, &cfg, 1);
	CU_ASSERT_EQUAL(shb_plan_mix(&plan, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "-c 1: the targets are on 2 origins, and "
			       "each needs a connection of its own: give -c 2 "
			       "or more");
	finish(&plan);
}

static CU_TestInfo plan_tests[] = {
	{"workers: -c and -n not divisible by the threads", test_workers_uneven},
	{"threads: -t capped by -c and -n", test_threads},
	{"mix: origins, connections and counts", test_mix_shares},
	{"mix: the split over workers", test_mix_split},
	{"mix: fewer connections than origins", test_mix_refused},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"plan", NULL, NULL, NULL, NULL, plan_tests},
	CU_SUITE_INFO_NULL,
};
