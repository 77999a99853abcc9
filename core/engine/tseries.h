/* --interval on the main thread: every interval, the deltas of every
 * worker (interval.h) merged into one SHB_RESULTS_INTERVAL result handed to
 * an emit callback (the reporters' sample()), and the last interval's
 * numbers kept for the progress line. Intervals count from the start of
 * the measured load (after set-up and --warmup): interval k covers
 * [k * D, (k + 1) * D), the last one ends with the run.
 *
 * A run rarely ends on an interval's edge: `-z 10s --interval 1s` ends a
 * few tens of microseconds after 10 s, which made an eleventh interval of
 * about 59 us with 0 ok that plots as a drop to zero. So each interval is
 * held for a tenth of D after its end before it is emitted, and a last
 * one shorter than D/10 is folded into it (one interval of D plus that
 * stub): the intervals still add up exactly to the totals. A last one of
 * D/10 or more is emitted on its own, with its own length; live views
 * see each interval D/10 late. */
#ifndef SHB_CORE_TSERIES_H
#define SHB_CORE_TSERIES_H

#include <stdint.h>
#include <shb/results.h>
#include "engine/run.h"

struct shb_tseries {
	struct shb_worker_args *wa; /* borrowed: every worker's ival set */
	uint32_t n;
	const struct shb_run_info *info; /* borrowed, for results.run */
	uint64_t interval_ns;
	/* [main] called once per interval; `r` is borrowed for the call. */
	void (*emit)(void *ctx, const struct shb_results *r);
	void *ctx;
	uint64_t index; /* of the next interval */
	struct shb_stats delta;
	/* Interval index - 1, taken but not yet emitted (held for D/10). */
	int held;
	/* -z: the load's length (0 for none). The interval that ends there
	 * is held until the run's end whatever the wait: what its workers
	 * count after its D/10 (a stop that takes longer on a loaded
	 * machine) was in it, and on its own would be an interval of no
	 * length. */
	uint64_t end_ns;
	struct shb_stats held_delta;
	/* The last interval taken, for the progress line. */
	int have_last;
	uint64_t last_ok, last_errors, last_ns, last_p50, last_p99;
};

/* [main] 0, or -1 (out of memory). */
int shb_tseries_init(struct shb_tseries *ts, struct shb_worker_args *wa,
		     uint32_t n, const struct shb_run_info *info,
		     uint64_t interval_ns);
void shb_tseries_destroy(struct shb_tseries *ts);
/* [main] after shb_tseries_init: the intervals carry the protocol's
 * metrics too; 0, or -1 (out of memory). */
int shb_tseries_metrics(struct shb_tseries *ts,
			const struct shb_metric_def *defs, uint32_t n);
/* The tenth of an interval a last one must reach to stand on its own. */
static inline uint64_t shb_tseries_fold_ns(const struct shb_tseries *ts)
{
	return ts->interval_ns / 10;
}
/* [main] When shb_tseries_take is due next, measured from the load's
 * start: the held interval's emission, else the next interval's end;
 * UINT64_MAX when the held one is the last of a -z run (end_ns). */
static inline uint64_t shb_tseries_next_end(const struct shb_tseries *ts)
{
	if (ts->held && ts->end_ns && ts->index * ts->interval_ns >= ts->end_ns)
		return UINT64_MAX;
	if (ts->held)
		return ts->index * ts->interval_ns + shb_tseries_fold_ns(ts);
	return (ts->index + 1) * ts->interval_ns;
}
/* [main] The connection gauges of ABI 1.3 into `r`: the sums of what the
 * `n` workers last published (run.h live_active, live_connecting). */
void shb_tseries_gauges(const struct shb_worker_args *wa, uint32_t n,
			struct shb_results *r);
/* [main] At shb_tseries_next_end (last 0): emits the held interval, or
 * takes the next one and holds it. At the run's end, `end_rel` ns after
 * the load's start (last 1): takes what is left, folds it into the held
 * interval when shorter than D/10, and emits what is held and left. A last
 * one of no length and no request is left out. */
void shb_tseries_take(struct shb_tseries *ts, uint64_t end_rel, int last);

#endif
