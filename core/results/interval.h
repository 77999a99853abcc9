/* --interval: per-worker delta statistics that the main thread takes every
 * interval without ever making the worker wait.
 *
 * Each worker owns a struct shb_ival with two slots. The worker writes the
 * slot that `cur` names, inside a "section" (one pass of its loop, never
 * across a blocking wait); `seq` is odd while it is inside one. The main
 * thread flips `cur` and then, if `seq` was odd, waits for that section to
 * end (at most one loop pass; the worker never waits for the main thread):
 * the old slot is then the main thread's alone to read and clear.
 *
 * The worker's counters (ok, errors by kind, bytes, retried, connections
 * opened) are folded in as differences from its totals at the end of each
 * section, so the sum of the deltas equals the totals exactly; the latency
 * and the status of each response are recorded into the slot as it ends,
 * and so are the values of the protocol's histogram metrics (its counters
 * are folded like the core's).
 * Tables and the set-up histograms stay in the totals only. */
#ifndef SHB_CORE_INTERVAL_H
#define SHB_CORE_INTERVAL_H

#include <stdatomic.h>
#include <stdint.h>
#include "results/stats.h"

struct shb_ival {
	struct shb_stats slot[2];
	atomic_uint cur; /* the slot the worker writes; flipped by [main] */
	atomic_uint seq; /* odd while the worker is inside a section */
	/* [worker] only */
	struct shb_stats *w; /* the slot of the open section, or NULL */
	struct shb_stats last; /* counters of the totals at the last fold
				* (its histograms are never initialised) */
};

/* [main] before the worker starts; 0 or -1 (out of memory). */
int shb_ival_init(struct shb_ival *iv);
/* [main] after shb_ival_init: both slots keep the protocol's metrics
 * (metrics.h); 0 or -1 (out of memory). */
int shb_ival_metrics(struct shb_ival *iv, const struct shb_metric_def *defs,
		     uint32_t n);
void shb_ival_destroy(struct shb_ival *iv);

/* [worker] Opens a section (no-op when one is open). */
void shb_ival_enter(struct shb_ival *iv);
/* [worker] Folds what `totals` gained since the last fold into the open
 * slot and closes the section (no-op when none is open). */
void shb_ival_leave(struct shb_ival *iv, const struct shb_stats *totals);
/* [worker] `totals` were just reset (the end of --warmup): differences
 * count from them. */
void shb_ival_rebase(struct shb_ival *iv, const struct shb_stats *totals);
/* [worker] One request counted ok with this latency, inside a section. */
static inline void shb_ival_latency(struct shb_ival *iv, uint64_t ns)
{
	if (iv && iv->w)
		shb_histo_record(&iv->w->latency, ns);
}

/* [worker] One error reply (stats.h) with this latency, inside a
 * section. */
static inline void shb_ival_error_reply(struct shb_ival *iv, uint64_t ns)
{
	if (iv && iv->w)
		shb_histo_record(&iv->w->latency_error_reply, ns);
}

/* [worker] One response with this status (any response the totals count
 * in status[], application errors included), inside a section. */
static inline void shb_ival_status(struct shb_ival *iv, uint32_t status)
{
	if (iv && iv->w && status >= 100 && status < SHB_STATUS_SLOTS)
		iv->w->status[status]++;
}

/* [worker] One value of histogram metric i, inside a section (counters
 * are folded from the totals like the other counters). */
static inline void shb_ival_metric(struct shb_ival *iv, uint32_t i,
				   uint64_t v)
{
	if (iv && iv->w)
		shb_metrics_record(&iv->w->metrics, i, v);
}

/* [main] Adds what the worker recorded since the last collect to `into`
 * (merged) and clears it. Waits at most for the worker's current pass.
 * Once the worker has exited, takes whatever is left. */
void shb_ival_collect(struct shb_ival *iv, struct shb_stats *into);

#endif
