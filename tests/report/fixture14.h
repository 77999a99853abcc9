/* A fabricated ABI 1.4 run for the reporter and merge tests: a protocol
 * without HTTP requests (request model NONE) that names its outcomes
 * ("redis": ok, nil, error), with error replies, a proxy, --connect-to,
 * --resolve and --source, histograms of the core's own kind. `mix`: two
 * targets whose results measure neither bytes nor connections.
 *
 * Counts: 100 requests, 85 ok, 15 errors (12 error replies of kind
 * application, 3 timeouts), 97 answered; ok latencies 1..85 ms, error
 * replies 2, 4, .. 24 ms. One interval (index 0, the whole run). The
 * protocol's metrics (not in a target's result): msgs_sent, a counter of
 * 100 messages; msg_latency, 10 latencies of 1..10 ms; depth, 20 values
 * 1..20. */
#ifndef SHB_TEST_FIXTURE14_H
#define SHB_TEST_FIXTURE14_H

#include <shb/shb.h>

#include "results/hist.h"

#define FX14_SPACE (SHB_APPSPACE_PRIVATE + 5)

struct fx14 {
	struct shb_run_info info;
	struct shb_results total, interval, targets[2];
	const struct shb_results *target_ptrs[2];
	struct shb_target_info target_info[2];
	struct shb_histo latency, error_reply, empty;
	struct shb_histo msg_latency, depth;
	struct shb_metric_value metrics[3];
};

/* start_s: the run's start time in Unix seconds (merge places intervals
 * by it). 0, or -1 when out of memory. */
int fx14_init(struct fx14 *f, int mix, uint64_t start_s);
void fx14_fini(struct fx14 *f);

/* Runs reporter `name` (found by the loader in SHB_REPORT_PLUGIN_DIR)
 * over begin, one sample (the interval) when `with_interval`, and end.
 * Returns the malloc'd output, or NULL on failure (reported). */
char *fx14_report(const char *name, const struct fx14 *f, int with_interval);

/* The same for any run facts and results (`interval` NULL: none). */
char *fx14_run_reporter(const char *name, const struct shb_run_info *info,
			const struct shb_results *total,
			const struct shb_results *interval);

#endif
