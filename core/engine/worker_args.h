/* A run's worker arguments (run.h), made and freed as one: every worker's
 * statistics and, with --interval, the series and every worker's interval
 * state. The main thread makes them before the reporters begin, so that a
 * failure leaves no reporter begun, and frees them on every path. */
#ifndef SHB_CORE_WORKER_ARGS_H
#define SHB_CORE_WORKER_ARGS_H

#include <stdint.h>
#include <shb/results.h>
#include "engine/run.h"
#include "engine/tseries.h"

/* [main] `n` zeroed worker arguments with their statistics, which keep
 * the protocol's `nm` metrics `mdefs` (metrics.h; borrowed until
 * shb_worker_args_free); with `interval_ns`, `ts` set up on them too (else
 * `ts` is not touched). NULL when out of memory, with nothing left
 * allocated. `info` is borrowed by `ts` until shb_worker_args_free. */
struct shb_worker_args *shb_worker_args_new(uint32_t n, uint64_t interval_ns,
					    const struct shb_run_info *info,
					    struct shb_tseries *ts,
					    const struct shb_metric_def *mdefs,
					    uint32_t nm);

/* [main] Frees what shb_worker_args_new made (and a mixed run's split,
 * mix.h), after the workers were joined. `ts` is NULL without --interval. */
void shb_worker_args_free(struct shb_worker_args *wa, uint32_t n,
			  struct shb_tseries *ts);

#endif
