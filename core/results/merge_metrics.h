/* shb merge and a protocol's metrics in JSON reports (ABI 1.4,
 * docs/reports.md "Protocol metrics"): the first report's "metrics"
 * names the set (kinds, units, help), every report must carry the same
 * set, counters are summed and histograms added bucket for bucket from
 * their HdrHistogram export; intervals sum their counts. Reports are
 * untrusted input: every name, kind and count is checked. [main] only. */
#ifndef SHB_CORE_MERGE_METRICS_H
#define SHB_CORE_MERGE_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <shb/shb.h>

#include "results/stats.h"

/* The set, its strings borrowed from the first report's document (which
 * the merge keeps). */
struct shb_merge_metrics {
	struct shb_metric_def defs[SHB_METRIC_MAX];
	uint32_t n;
};

/* The first report's "metrics" into t (zeroed): at most SHB_METRIC_MAX,
 * names [a-z][a-z0-9_]{0,31}, kinds "counter", "latency" or "value",
 * unit and help null or short printable ASCII. A report without
 * "metrics" has none. 0, or -1 with one line in err naming the file and
 * the field. */
int shb_merge_metrics_take(struct shb_merge_metrics *t, const char *name,
			   const json_t *doc, char *err, size_t errlen);

/* One report's metrics into s (its statistics, s->metrics not made yet):
 * the set must be t's (same names and kinds), a histogram must decode
 * and hold `count` values. 0, or -1 with one line in err. */
int shb_merge_metrics_read(const struct shb_merge_metrics *t,
			   struct shb_stats *s, const char *name,
			   const json_t *doc, char *err, size_t errlen);

/* An interval's metric counts (v.metrics.NAME.count) added to sums[] by
 * t's order. 0, or -1 with one line in err when a sum passes 2^63. */
int shb_merge_metrics_ival(const struct shb_merge_metrics *t, uint64_t *sums,
			   const json_t *v, const char *name, char *err,
			   size_t errlen);

/* o.metrics = {NAME: {count}} of a merged interval; nothing without
 * metrics. */
void shb_merge_metrics_ival_json(const struct shb_merge_metrics *t,
				 const uint64_t *sums, json_t *o);

#endif
