/* [main] What a run hands the reporters, from its plan and its workers:
 * the run info before it starts, each interval's results, the merged
 * results after it, and the lines of a run that fell short or missed an
 * --slo. */
#ifndef SHB_CORE_RUN_REPORT_H
#define SHB_CORE_RUN_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/run.h"
#include "results/reporters.h"
#include "results/results.h"

struct shb_tseries;

/* --interval: one interval's results to every reporter that takes them
 * (shb_run_sample is a tseries emit). */
struct shb_sample_ctx {
	struct shb_reporter *reps;
	size_t n;
	int failed;
	struct shb_hello *hello; /* the run's, for tls_ja3/tls_ja4 */
	struct shb_conn_fps *fps; /* the run's, for h2_fingerprint... */
};
void shb_run_sample(void *ctx, const struct shb_results *r);

/* Fills *info and *target (the caller's: reporters may keep them until
 * destroy) for run k of n (0 and 1 without a comparison), and sets
 * run->start_at_ns from --start-at. */
void shb_run_info_fill(struct shb_run *run, uint32_t k, uint32_t n,
		       struct shb_run_info *info, struct shb_target_info *target);

/* After the workers are joined: the first failure's line (printed at
 * once unless --tui holds the screen: then fail_err keeps it), the
 * statistics merged into wa[0], the series' last interval (ts, or NULL),
 * the load's start, and the results in *rb. */
struct shb_run_end {
	int failed;
	const char *fail_err; /* the first failed worker's line, or NULL */
	uint64_t load_ns;     /* when the load started, 0 if it never did */
};
void shb_run_collect(struct shb_run *run, struct shb_worker_args *wa,
		     struct shb_tseries *ts, const struct shb_run_info *info, struct shb_run_end *e,
		     struct shb_results_buf *rb);

/* The lines of a run that fell short (overload.h); 1 when it did. */
int shb_run_overload(const struct shb_run *run, const struct shb_worker_args *wa,
		     const struct shb_results *r, int load_started);

/* --slo, on the merged results: one line on stderr per gate that fails,
 * naming the run in a comparison. Returns 1 if any failed. */
int shb_run_check_slos(const struct shb_config *cfg,
		       const struct shb_run_info *info,
		       const struct shb_results *r, const struct shb_stats *s);

#endif
