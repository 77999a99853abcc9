/* A protocol's own metrics (ABI 1.4, shb_proto_desc.metrics) as one set
 * of statistics keeps them: a sum per COUNTER, a histogram per LATENCY or
 * VALUE metric, by the index the protocol declared them at. Part of struct
 * shb_stats (stats.h), so that they are reset, merged across workers and
 * intervals, and reported like the core's own numbers. Memory is fixed
 * when the set is made: SHB_METRIC_MAX sums and one histogram per
 * histogram metric, whatever the run length. Not thread-safe: one set per
 * worker, like the rest of its statistics. */
#ifndef SHB_CORE_METRICS_H
#define SHB_CORE_METRICS_H

#include <stdint.h>
#include <shb/types.h>
#include "results/hist.h"

struct shb_metrics {
	/* Borrowed: the protocol's static table, or `shb merge`'s own; valid
	 * as long as the set. n == 0: no metrics. */
	const struct shb_metric_def *defs;
	uint32_t n;
	uint64_t count[SHB_METRIC_MAX]; /* COUNTER: the sum */
	/* n histograms, allocated; those of LATENCY and VALUE metrics
	 * initialised like the latency histograms (1 ns to 1 h, 3 digits). */
	struct shb_histo *hist;
};

/* Makes the set for `defs` (n <= SHB_METRIC_MAX, checked by the loader or
 * the merge reader). 0, or -1 when out of memory with nothing kept. */
int shb_metrics_init(struct shb_metrics *m, const struct shb_metric_def *defs,
		     uint32_t n);
void shb_metrics_destroy(struct shb_metrics *m);
/* Back to nothing recorded, keeping the set. */
void shb_metrics_reset(struct shb_metrics *m);
/* dst += src, by name: a metric of src that dst lacks, or has of another
 * kind, is left out. */
void shb_metrics_merge(struct shb_metrics *dst, const struct shb_metrics *src);
/* The index of `name` in the set, or -1. */
int shb_metrics_find(const struct shb_metrics *m, const char *name);

static inline int shb_metrics_is_hist(uint32_t kind)
{
	return kind == SHB_METRIC_LATENCY || kind == SHB_METRIC_VALUE;
}

/* A COUNTER grows by n; anything else is ignored (a plugin's mistake
 * costs nothing but the number). */
static inline void shb_metrics_add(struct shb_metrics *m, uint32_t i,
				   uint64_t n)
{
	if (i < m->n && m->defs[i].kind == SHB_METRIC_COUNTER)
		m->count[i] += n;
}

/* A LATENCY or VALUE metric takes one value. */
static inline void shb_metrics_record(struct shb_metrics *m, uint32_t i,
				      uint64_t v)
{
	if (i < m->n && shb_metrics_is_hist(m->defs[i].kind))
		shb_histo_record(&m->hist[i], v);
}

/* What a report gives as the metric's count: the sum of a COUNTER, the
 * values a histogram holds. */
static inline uint64_t shb_metrics_count(const struct shb_metrics *m,
					 uint32_t i)
{
	return shb_metrics_is_hist(m->defs[i].kind) ?
	       shb_histo_count(&m->hist[i]) : m->count[i];
}

#endif
