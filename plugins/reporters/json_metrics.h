/* The json reporter's "metrics" (ABI 1.4, docs/reports.md "Protocol
 * metrics"): the protocol's own counters and histograms, for the run and
 * per interval, written so that `shb merge` adds them back exactly.
 * [main]. */
#ifndef SHB_REPORT_JSON_METRICS_H
#define SHB_REPORT_JSON_METRICS_H

#include "json_util.h"

/* doc.metrics = {name: {kind, unit, help, count, and for a histogram
 * mean, p50, p90, p99, max (seconds for a latency, numbers for a value)
 * and its HdrHistogram V2 export "histogram"}}; nothing without metrics. */
void json_metrics_put(struct jb *b, json_t *doc, const struct shb_host *host,
		      const struct shb_results *r);

/* An interval's "metrics": {name: {count, p99 when a histogram has
 * values}}, names from the run's result `r`; nothing without metrics. */
void json_metrics_ival(struct jb *b, json_t *o, const struct shb_rpt_ival *v,
		       const struct shb_results *r);

#endif
