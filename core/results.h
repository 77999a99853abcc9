/* Builds the immutable ABI results view over merged statistics. */
#ifndef SHB_CORE_RESULTS_H
#define SHB_CORE_RESULTS_H

#include <shb/results.h>
#include "stats.h"

struct shb_results_buf {
	struct shb_results r;
	struct shb_status_count statuses[SHB_STATUS_SLOTS];
	struct shb_error_count errors[SHB_ERRK_COUNT];
};

/* `s` and `info` must outlive every use of b->r. */
void shb_results_build(struct shb_results_buf *b, const struct shb_stats *s,
		       const struct shb_run_info *info, uint64_t elapsed_ns,
		       int interrupted);

#endif
