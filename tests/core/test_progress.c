/* The main thread while the workers run (core/engine/progress.c): it
 * sleeps between looks at the workers' counters. Without a terminal
 * (-q, or stderr redirected) and with --interval it used to spin from
 * the first half second on: the time of the next progress line, which is
 * also when it wakes next, moved on only when a line was shown, so every
 * pass found it past and went round again, a core's worth of CPU for the
 * whole run. The watcher returns how often it woke; over 1.2 s of a run
 * with no terminal it must be a few times, not millions. */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "engine/progress.h"

#define RUN_NS 1200000000L
/* One look at 0.5 s and 1.0 s, and the polls for the end fall inside
 * nap_until: a handful at most. */
#define MAX_PASSES 8

/* main.c's, which the test does not link: the engine reads it. */
atomic_int shb_interrupted;

static struct shb_worker_args wa[2];

/* Plays the workers: done after RUN_NS. */
static void *end_run(void *arg)
{
	(void)arg;
	struct timespec ts = {RUN_NS / 1000000000L, RUN_NS % 1000000000L};
	nanosleep(&ts, NULL);
	for (size_t i = 0; i < sizeof(wa) / sizeof(wa[0]); i++)
		atomic_store_explicit(&wa[i].live_done, 1, memory_order_release);
	return NULL;
}

static uint64_t watch(uint64_t load_ns, int tty, struct shb_tseries *ts)
{
	static struct shb_config cfg;
	static struct shb_run run;
	pthread_t t;

	memset(&run, 0, sizeof(run));
	run.cfg = &cfg;
	run.start_ns = shb_now_ns();
	atomic_store(&run.load_ns, load_ns);
	for (size_t i = 0; i < sizeof(wa) / sizeof(wa[0]); i++)
		atomic_store(&wa[i].live_done, 0);
	CU_ASSERT_FATAL(pthread_create(&t, NULL, end_run, NULL) == 0);
	uint64_t passes = shb_progress_watch(&run, wa, 2, ts, tty);
	pthread_join(t, NULL);
	return passes;
}

static void test_no_terminal_sleeps_during_load(void)
{
	uint64_t passes = watch(shb_now_ns(), 0, NULL);
	CU_ASSERT(passes >= 1);
	CU_ASSERT(passes <= MAX_PASSES);
}

/* --interval 200ms: each interval is taken at its end and emitted a
 * tenth of an interval later, two looks per interval over six intervals,
 * and the two of the progress line's clock. */
static void test_no_terminal_with_intervals(void)
{
	static struct shb_run_info info;
	struct shb_tseries ts;

	CU_ASSERT_FATAL(shb_tseries_init(&ts, wa, 2, &info, 200000000u) == 0);
	uint64_t passes = watch(shb_now_ns(), 0, &ts);
	CU_ASSERT(passes >= 6);
	CU_ASSERT(passes <= 2 * 6 + 2 + MAX_PASSES);
	CU_ASSERT(ts.index >= 5);
	shb_tseries_destroy(&ts);
}

static void test_no_terminal_sleeps_during_setup(void)
{
	uint64_t passes = watch(0, 0, NULL);
	CU_ASSERT(passes >= 1);
	CU_ASSERT(passes <= MAX_PASSES);
}

CU_TestInfo progress_tests[] = {
	{"no terminal: a few looks over 1.2 s of load", test_no_terminal_sleeps_during_load},
	{"no terminal: a few looks over 1.2 s of set-up", test_no_terminal_sleeps_during_setup},
	{"no terminal, --interval 200ms: two looks an interval", test_no_terminal_with_intervals},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"progress", NULL, NULL, NULL, NULL, progress_tests},
	CU_SUITE_INFO_NULL,
};
