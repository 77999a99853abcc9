/* --interval's per-worker double buffer (core/results/interval.c): the deltas the
 * main thread collects (counts, statuses, connections opened, latency)
 * add up exactly to the worker's totals, with a writer thread counting
 * while a reader collects. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include <shb/shb.h>

#include "results/interval.h"
#include "results/stats.h"

/* One "request" per call: ok (latency n, status 503 every 11th, else
 * 200) or, every 7th, a timeout; every 100th opens a connection first. */
static void count_one(struct shb_ival *iv, struct shb_stats *t, uint64_t n)
{
	if (n % 100 == 0)
		t->conns_opened++;
	if (n % 7 == 0) {
		shb_stats_error(t, SHB_ERRK_TIMEOUT, "timeout");
		return;
	}
	uint32_t status = n % 11 == 0 ? 503 : 200;
	shb_ival_status(iv, status);
	shb_stats_ok(t, status, 1000 + n % 5000);
	t->bytes_recv += 10;
	shb_ival_latency(iv, 1000 + n % 5000);
}

static void test_single_thread(void)
{
	struct shb_ival iv;
	struct shb_stats t, sum;
	CU_ASSERT_FATAL(shb_ival_init(&iv) == 0);
	CU_ASSERT_FATAL(shb_stats_init(&t) == 0);
	CU_ASSERT_FATAL(shb_stats_init(&sum) == 0);
	/* Counted outside a section (before the warm-up ends): dropped by
	 * the rebase, as the totals are reset. */
	shb_stats_ok(&t, 200, 5);
	shb_stats_reset(&t);
	shb_ival_rebase(&iv, &t);
	uint64_t n = 1;
	uint64_t want_ok[3] = {0};
	for (int k = 0; k < 3; k++) {
		shb_ival_enter(&iv);
		shb_ival_enter(&iv); /* no-op: already open */
		for (int i = 0; i < 100 * (k + 1); i++, n++) {
			count_one(&iv, &t, n);
			want_ok[k] += n % 7 != 0;
		}
		shb_ival_leave(&iv, &t);
		shb_ival_leave(&iv, &t); /* no-op: closed */
		struct shb_stats d;
		CU_ASSERT_FATAL(shb_stats_init(&d) == 0);
		shb_ival_collect(&iv, &d);
		CU_ASSERT_EQUAL(d.ok, want_ok[k]);
		CU_ASSERT_EQUAL(d.ok + d.errors, 100u * (k + 1));
		CU_ASSERT_EQUAL(d.err_kind[SHB_ERRK_TIMEOUT], d.errors);
		CU_ASSERT_EQUAL(d.bytes_recv, 10 * d.ok);
		CU_ASSERT_EQUAL(shb_histo_count(&d.latency), d.ok);
		CU_ASSERT_EQUAL(d.status[200] + d.status[503], d.ok);
		CU_ASSERT(d.status[503] > 0);
		shb_stats_merge(&sum, &d);
		shb_stats_destroy(&d);
	}
	/* Nothing new: an empty delta. */
	struct shb_stats d;
	CU_ASSERT_FATAL(shb_stats_init(&d) == 0);
	shb_ival_collect(&iv, &d);
	CU_ASSERT_EQUAL(d.ok + d.errors, 0);
	CU_ASSERT_EQUAL(shb_histo_count(&d.latency), 0);
	shb_stats_destroy(&d);
	CU_ASSERT_EQUAL(sum.ok, t.ok);
	CU_ASSERT_EQUAL(sum.errors, t.errors);
	CU_ASSERT_EQUAL(sum.ok + sum.errors, 600);
	CU_ASSERT_EQUAL(shb_histo_count(&sum.latency), t.ok);
	CU_ASSERT_EQUAL(sum.status[200], t.status[200]);
	CU_ASSERT_EQUAL(sum.status[503], t.status[503]);
	CU_ASSERT_EQUAL(sum.status[503], 600 / 11 - 600 / 77); /* not 77, 154, ... */
	CU_ASSERT_EQUAL(sum.conns_opened, t.conns_opened);
	CU_ASSERT_EQUAL(sum.conns_opened, 6);
	shb_stats_destroy(&sum);
	shb_stats_destroy(&t);
	shb_ival_destroy(&iv);
}

#define PASSES 20000
#define PER_PASS 50
/* On a loaded machine the reader may not run at all during PASSES: the
 * writer goes on until the reader saw counts in a few collects (so that
 * the test always exercises the two threads at once), up to this many. */
#define PASSES_MAX (PASSES * 100)
#define SEEN_WANTED 3u

struct writer {
	struct shb_ival iv;
	struct shb_stats t;
	atomic_int done;
	atomic_uint seen; /* the reader's collects that found counts */
	uint64_t passes;  /* how many the writer made (read after join) */
};

static void *writer_main(void *arg)
{
	struct writer *wr = arg;
	uint64_t n = 1;
	int p;
	for (p = 0; p < PASSES || (p < PASSES_MAX &&
					 atomic_load(&wr->seen) < SEEN_WANTED); p++) {
		shb_ival_enter(&wr->iv);
		for (int i = 0; i < PER_PASS; i++, n++)
			count_one(&wr->iv, &wr->t, n);
		shb_ival_leave(&wr->iv, &wr->t);
	}
	wr->passes = (uint64_t)p;
	atomic_store(&wr->done, 1);
	return NULL;
}

static void test_concurrent(void)
{
	static struct writer wr;
	struct shb_stats sum, d;
	CU_ASSERT_FATAL(shb_ival_init(&wr.iv) == 0);
	CU_ASSERT_FATAL(shb_stats_init(&wr.t) == 0);
	CU_ASSERT_FATAL(shb_stats_init(&sum) == 0);
	CU_ASSERT_FATAL(shb_stats_init(&d) == 0);
	atomic_store(&wr.done, 0);
	atomic_store(&wr.seen, 0);
	pthread_t tid;
	CU_ASSERT_FATAL(pthread_create(&tid, NULL, writer_main, &wr) == 0);
	unsigned collects = 0, nonempty = 0;
	while (!atomic_load(&wr.done)) {
		shb_ival_collect(&wr.iv, &d);
		/* Each delta is whole: every ok has its latency. */
		CU_ASSERT_EQUAL(shb_histo_count(&d.latency), d.ok);
		CU_ASSERT_EQUAL(d.bytes_recv, 10 * d.ok);
		CU_ASSERT_EQUAL(d.status[200] + d.status[503], d.ok);
		nonempty += d.ok + d.errors > 0;
		atomic_store(&wr.seen, nonempty);
		shb_stats_merge(&sum, &d);
		shb_stats_reset(&d);
		collects++;
	}
	pthread_join(tid, NULL);
	shb_ival_collect(&wr.iv, &d); /* what is left */
	shb_stats_merge(&sum, &d);
	CU_ASSERT(collects > 1);
	CU_ASSERT(nonempty > 1);
	CU_ASSERT(wr.passes >= PASSES);
	CU_ASSERT_EQUAL(sum.ok + sum.errors, wr.passes * PER_PASS);
	CU_ASSERT_EQUAL(sum.ok, wr.t.ok);
	CU_ASSERT_EQUAL(sum.errors, wr.t.errors);
	CU_ASSERT_EQUAL(sum.err_kind[SHB_ERRK_TIMEOUT], wr.t.errors);
	CU_ASSERT_EQUAL(sum.bytes_recv, wr.t.bytes_recv);
	CU_ASSERT_EQUAL(sum.status[200], wr.t.status[200]);
	CU_ASSERT_EQUAL(sum.status[503], wr.t.status[503]);
	CU_ASSERT_EQUAL(sum.conns_opened, wr.t.conns_opened);
	CU_ASSERT_EQUAL(sum.conns_opened, wr.passes * PER_PASS / 100);
	CU_ASSERT_EQUAL(shb_histo_count(&sum.latency), wr.t.ok);
	CU_ASSERT_EQUAL(shb_histo_count(&sum.latency), shb_histo_count(&wr.t.latency));
	shb_stats_destroy(&d);
	shb_stats_destroy(&sum);
	shb_stats_destroy(&wr.t);
	shb_ival_destroy(&wr.iv);
}

static CU_TestInfo ival_tests[] = {
	{"deltas of passes add up to the totals", test_single_thread},
	{"a reader collecting while a writer counts", test_concurrent},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"interval", NULL, NULL, NULL, NULL, ival_tests},
	CU_SUITE_INFO_NULL,
};
