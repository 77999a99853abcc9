/* A run's worker arguments, made and freed as one (worker_args.h). */
#include <stdlib.h>

#include "results/interval.h"
#include "engine/mix.h"
#include "results/stats.h"
#include "engine/worker_args.h"

/* The first `nstats` statistics, every interval state present, the
 * series when `ts` is set, the mixed run's split, and `wa` itself. */
static void free_part(struct shb_worker_args *wa, uint32_t n, uint32_t nstats,
		      struct shb_tseries *ts)
{
	for (uint32_t i = 0; i < n; i++) {
		if (i < nstats)
			shb_stats_destroy(&wa[i].stats);
		if (wa[i].ival)
			shb_ival_destroy(wa[i].ival);
		free(wa[i].ival);
	}
	if (ts)
		shb_tseries_destroy(ts);
	shb_mix_split_free(wa, n);
	free(wa);
}

struct shb_worker_args *shb_worker_args_new(uint32_t n, uint64_t interval_ns,
					    const struct shb_run_info *info,
					    struct shb_tseries *ts,
					    const struct shb_metric_def *mdefs,
					    uint32_t nm)
{
	struct shb_worker_args *wa = calloc(n, sizeof(*wa));
	uint32_t i;

	if (!wa)
		return NULL;
	for (i = 0; i < n; i++) {
		if (shb_stats_init(&wa[i].stats) < 0) {
			free_part(wa, n, i, NULL);
			return NULL;
		}
		if (shb_metrics_init(&wa[i].stats.metrics, mdefs, nm) < 0) {
			free_part(wa, n, i + 1, NULL);
			return NULL;
		}
	}
	if (!interval_ns)
		return wa;
	if (shb_tseries_init(ts, wa, n, info, interval_ns) < 0) {
		free_part(wa, n, n, NULL);
		return NULL;
	}
	if (shb_tseries_metrics(ts, mdefs, nm) < 0) {
		free_part(wa, n, n, ts);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		wa[i].ival = malloc(sizeof(*wa[i].ival));
		if (!wa[i].ival || shb_ival_init(wa[i].ival) < 0) {
			free(wa[i].ival); /* never initialised */
			wa[i].ival = NULL;
			free_part(wa, n, n, ts);
			return NULL;
		}
		if (shb_ival_metrics(wa[i].ival, mdefs, nm) < 0) {
			free_part(wa, n, n, ts);
			return NULL;
		}
	}
	return wa;
}

void shb_worker_args_free(struct shb_worker_args *wa, uint32_t n,
			  struct shb_tseries *ts)
{
	free_part(wa, n, n, ts);
}
