/* --interval on the main thread (core/engine/tseries.c): each interval is held
 * for a tenth of an interval after its end, a last one shorter than that
 * is folded into it (no stub interval of a few microseconds with 0 ok at
 * the end of `-z`), a longer one stands on its own, and the intervals
 * emitted add up exactly to what the worker counted. */
#include <string.h>
#include <CUnit/CUnit.h>
#include <shb/shb.h>

#include "results/interval.h"
#include "engine/run.h"
#include "results/stats.h"
#include "engine/tseries.h"

#define D 1000000000ull /* the interval: 1 s */

struct seen {
	unsigned n;
	uint64_t index[8], start[8], len[8], ok[8];
};

static void record(void *ctx, const struct shb_results *r)
{
	struct seen *s = ctx;
	if (s->n < 8) {
		s->index[s->n] = r->interval_index;
		s->start[s->n] = r->interval_start_ns;
		s->len[s->n] = r->elapsed_ns;
		s->ok[s->n] = r->requests_ok;
	}
	s->n++;
}

struct fixture {
	struct shb_worker_args wa;
	struct shb_ival iv;
	struct shb_stats t; /* the worker's totals */
	struct shb_tseries ts;
	struct seen seen;
};

static void setup(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	CU_ASSERT_FATAL(shb_ival_init(&f->iv) == 0);
	CU_ASSERT_FATAL(shb_stats_init(&f->t) == 0);
	shb_ival_rebase(&f->iv, &f->t);
	f->wa.ival = &f->iv;
	static struct shb_run_info info = {.struct_size = sizeof(info)};
	CU_ASSERT_FATAL(shb_tseries_init(&f->ts, &f->wa, 1, &info, D) == 0);
	f->ts.emit = record;
	f->ts.ctx = &f->seen;
}

static void teardown(struct fixture *f)
{
	shb_tseries_destroy(&f->ts);
	shb_stats_destroy(&f->t);
	shb_ival_destroy(&f->iv);
}

/* The worker answers n requests in one pass of its loop. */
static void answer(struct fixture *f, unsigned n)
{
	shb_ival_enter(&f->iv);
	for (unsigned i = 0; i < n; i++) {
		shb_ival_status(&f->iv, 200);
		shb_stats_ok(&f->t, 200, 1000);
		shb_ival_latency(&f->iv, 1000);
	}
	shb_ival_leave(&f->iv, &f->t);
}

/* What the watch loop does: take every interval due by `now`. */
static void watch_until(struct fixture *f, uint64_t now)
{
	while (shb_tseries_next_end(&f->ts) != UINT64_MAX &&
	       now >= shb_tseries_next_end(&f->ts))
		shb_tseries_take(&f->ts, shb_tseries_next_end(&f->ts), 0);
}

static void check_sum(struct fixture *f)
{
	uint64_t ok = 0;
	for (unsigned i = 0; i < f->seen.n && i < 8; i++)
		ok += f->seen.ok[i];
	CU_ASSERT_EQUAL(ok, f->t.ok);
}

/* -z 2s ending 59 us late: two intervals, the last 1 s + 59 us. */
static void test_stub_folded(void)
{
	struct fixture f;
	setup(&f);
	CU_ASSERT_EQUAL(shb_tseries_next_end(&f.ts), D);
	answer(&f, 5);
	watch_until(&f, D);
	CU_ASSERT_EQUAL(f.seen.n, 0); /* held for D/10 */
	CU_ASSERT_EQUAL(shb_tseries_next_end(&f.ts), D + D / 10);
	answer(&f, 3);
	watch_until(&f, D + D / 10);
	CU_ASSERT_EQUAL_FATAL(f.seen.n, 1);
	CU_ASSERT_EQUAL(f.seen.index[0], 0);
	CU_ASSERT_EQUAL(f.seen.len[0], D);
	CU_ASSERT_EQUAL(f.seen.ok[0], 5);
	CU_ASSERT_EQUAL(shb_tseries_next_end(&f.ts), 2 * D);
	answer(&f, 4);
	watch_until(&f, 2 * D);
	CU_ASSERT_EQUAL(f.seen.n, 1);
	shb_tseries_take(&f.ts, 2 * D + 59000, 1);
	CU_ASSERT_EQUAL_FATAL(f.seen.n, 2);
	CU_ASSERT_EQUAL(f.seen.index[1], 1);
	CU_ASSERT_EQUAL(f.seen.start[1], D);
	CU_ASSERT_EQUAL(f.seen.len[1], D + 59000);
	CU_ASSERT_EQUAL(f.seen.ok[1], 7);
	check_sum(&f);
	teardown(&f);
}

/* A request answered in the stub is folded in too, not lost. */
static void test_stub_with_requests(void)
{
	struct fixture f;
	setup(&f);
	answer(&f, 5);
	watch_until(&f, D);
	answer(&f, 2);
	shb_tseries_take(&f.ts, D + D / 10 - 1, 1);
	CU_ASSERT_EQUAL_FATAL(f.seen.n, 1);
	CU_ASSERT_EQUAL(f.seen.index[0], 0);
	CU_ASSERT_EQUAL(f.seen.len[0], D + D / 10 - 1);
	CU_ASSERT_EQUAL(f.seen.ok[0], 7);
	check_sum(&f);
	teardown(&f);
}

/* A last part of D/10 or more is an interval of its own. */
static void test_partial_kept(void)
{
	struct fixture f;
	setup(&f);
	answer(&f, 5);
	watch_until(&f, D);
	answer(&f, 2);
	shb_tseries_take(&f.ts, D + D / 10, 1);
	CU_ASSERT_EQUAL_FATAL(f.seen.n, 2);
	CU_ASSERT_EQUAL(f.seen.len[0], D);
	CU_ASSERT_EQUAL(f.seen.ok[0], 5);
	CU_ASSERT_EQUAL(f.seen.index[1], 1);
	CU_ASSERT_EQUAL(f.seen.len[1], D / 10);
	CU_ASSERT_EQUAL(f.seen.ok[1], 2);
	/* After the hold was emitted: a last part of 0.5 s stands alone. */
	teardown(&f);
	setup(&f);
	answer(&f, 5);
	watch_until(&f, D + D / 10);
	answer(&f, 1);
	shb_tseries_take(&f.ts, D + D / 2, 1);
	CU_ASSERT_EQUAL_FATAL(f.seen.n, 2);
	CU_ASSERT_EQUAL(f.seen.len[1], D / 2);
	CU_ASSERT_EQUAL(f.seen.ok[1], 1);
	check_sum(&f);
	teardown(&f);
}

/* A run shorter than one interval: one interval, its own length; a run
 * that ended on an edge with nothing after it: no empty interval. */
static void test_short_and_edge(void)
{
	struct fixture f;
	setup(&f);
	answer(&f, 3);
	shb_tseries_take(&f.ts, D / 20, 1);
	CU_ASSERT_EQUAL_FATAL(f.seen.n, 1);
	CU_ASSERT_EQUAL(f.seen.len[0], D / 20);
	CU_ASSERT_EQUAL(f.seen.ok[0], 3);
	teardown(&f);
	setup(&f);
	answer(&f, 3);
	watch_until(&f, D + D / 10);
	shb_tseries_take(&f.ts, D, 1);
	CU_ASSERT_EQUAL(f.seen.n, 1);
	check_sum(&f);
	teardown(&f);
}

/* -z 2s whose stop took longer than D/10 (a loaded machine): the last
 * interval stays held past its D/10, and what the workers counted after
 * it (answered before the deadline) is folded in, never an interval of
 * no length of its own. */
static void test_last_held_until_end(void)
{
	struct fixture f;
	setup(&f);
	f.ts.end_ns = 2 * D;
	answer(&f, 5);
	watch_until(&f, D + D / 10);
	CU_ASSERT_EQUAL(f.seen.n, 1);
	answer(&f, 4);
	watch_until(&f, 2 * D);
	CU_ASSERT_EQUAL(shb_tseries_next_end(&f.ts), UINT64_MAX);
	answer(&f, 2);
	watch_until(&f, 3 * D); /* the watch loop, long after the end */
	CU_ASSERT_EQUAL(f.seen.n, 1);
	shb_tseries_take(&f.ts, 2 * D, 1);
	CU_ASSERT_EQUAL_FATAL(f.seen.n, 2);
	CU_ASSERT_EQUAL(f.seen.index[1], 1);
	CU_ASSERT_EQUAL(f.seen.len[1], D);
	CU_ASSERT_EQUAL(f.seen.ok[1], 6);
	check_sum(&f);
	teardown(&f);
}

static CU_TestInfo tseries_tests[] = {
	{"a stub at the end is folded into the interval before", test_stub_folded},
	{"requests in the stub are folded in too", test_stub_with_requests},
	{"a last part of D/10 or more stands alone", test_partial_kept},
	{"a short run, and an end on an edge", test_short_and_edge},
	{"a -z run's last interval is held until the end", test_last_held_until_end},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"tseries", NULL, NULL, NULL, NULL, tseries_tests},
	CU_SUITE_INFO_NULL,
};
