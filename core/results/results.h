/* Builds the immutable ABI results view over merged statistics, and the
 * run facts of ABI 1.2 that the core knows before the run. */
#ifndef SHB_CORE_RESULTS_H
#define SHB_CORE_RESULTS_H

#include <shb/results.h>
#include "cli/config.h"
#include "loader/proto_request.h"
#include "results/stats.h"

struct shb_results_buf {
	struct shb_results r;
	struct shb_status_count statuses[SHB_STATUS_SLOTS];
	struct shb_error_count errors[SHB_ERRK_COUNT];
	struct shb_error_count errors_ex[SHB_ERRK_EX_COUNT];
	/* the table, then one overflow entry for ok and one for not ok */
	struct shb_app_count apps[SHB_TABLE_CAP + 2];
	/* the table, then one overflow entry per kind */
	struct shb_code_count codes[SHB_TABLE_CAP + SHB_ERRK_EX_COUNT];
	struct shb_metric_value metrics[SHB_METRIC_MAX];
};

/* `s` and `info` must outlive every use of b->r. The caller sets the
 * members that are not statistics (setup_ns, requests_warmup). */
void shb_results_build(struct shb_results_buf *b, const struct shb_stats *s,
		       const struct shb_run_info *info, uint64_t elapsed_ns,
		       int interrupted);

/* The percentiles the reporters print (ppm, ascending). */
#define SHB_RESULTS_PCT_COUNT 9
extern const uint32_t shb_results_pcts[SHB_RESULTS_PCT_COUNT];

/* Fills the 1.2 members of `info` for today's runs: one target (`target`,
 * of url_text, both of which must outlive info), -R's rate and the stages
 * (pointing into cfg, which must outlive info too), no shards, no
 * intervals, the warm-up and the percentiles above. Leaves plugins alone. */
void shb_results_run_info(struct shb_run_info *info,
			  struct shb_target_info *target,
			  const struct shb_config *cfg, const char *url_text);

/* Fills the 1.4 members of `info` but the proxy (NULL: the engine sets
 * the one a run used): the run's request model and outcome names and its
 * success set as text (req, a plan run's), --connect-to,
 * --resolve, --source and --unix-socket as typed; with request model
 * NONE, info->method and target->method are "". Every string points into
 * cfg and req, which must outlive info. */
void shb_results_run_facts(struct shb_run_info *info,
			   struct shb_target_info *target,
			   const struct shb_config *cfg,
			   const struct shb_proto_request *req);

#endif
