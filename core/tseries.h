/* --interval on the main thread: every interval, the deltas of every
 * worker (interval.h) merged into one SHB_RESULTS_INTERVAL result handed to
 * an emit callback (the reporters' sample()), and the last interval's
 * numbers kept for the progress line. Intervals count from the start of
 * the measured load (after set-up and --warmup): interval k covers
 * [k * D, (k + 1) * D), the last one ends with the run. */
#ifndef SHB_CORE_TSERIES_H
#define SHB_CORE_TSERIES_H

#include <stdint.h>
#include <shb/results.h>
#include "run.h"

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
	/* The last interval taken, for the progress line. */
	int have_last;
	uint64_t last_ok, last_errors, last_ns, last_p50, last_p99;
};

/* [main] 0, or -1 (out of memory). */
int shb_tseries_init(struct shb_tseries *ts, struct shb_worker_args *wa,
		     uint32_t n, const struct shb_run_info *info,
		     uint64_t interval_ns);
void shb_tseries_destroy(struct shb_tseries *ts);
/* [main] When the next interval ends, measured from the load's start. */
static inline uint64_t shb_tseries_next_end(const struct shb_tseries *ts)
{
	return (ts->index + 1) * ts->interval_ns;
}
/* [main] The connection gauges of ABI 1.3 into `r`: the sums of what the
 * `n` workers last published (run.h live_active, live_connecting). */
void shb_tseries_gauges(const struct shb_worker_args *wa, uint32_t n,
			struct shb_results *r);
/* [main] Takes the next interval, ending `end_rel` ns after the load's
 * start (the last one: when the run ended, which may be a little more or
 * less than a whole interval after its start). A last one of no length
 * and no request is left out. */
void shb_tseries_take(struct shb_tseries *ts, uint64_t end_rel, int last);

#endif
