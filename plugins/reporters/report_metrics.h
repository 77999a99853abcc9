/* What the reporters read of a protocol's own metrics (ABI 1.4,
 * shb_results.metrics): counters, latency and value histograms, for the
 * run and per interval. Read after SHB_HAS(); a core or a result without
 * them reads as none. [main], like every reporter call. */
#ifndef SHB_REPORT_METRICS_H
#define SHB_REPORT_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <shb/shb.h>

#include "report_common.h"

/* The result's metrics (*m set), or 0. */
size_t shb_rpt_metrics(const struct shb_results *r,
		       const struct shb_metric_value **m);

/* One metric read once: its count, and for a histogram its mean, p50,
 * p90, p99 and max (0 when it holds no value). */
struct shb_rpt_metric {
	uint64_t count;
	int hist;
	uint64_t mean, p50, p90, p99, max;
};

void shb_rpt_metric_read(const struct shb_host *host,
			 const struct shb_metric_value *m,
			 struct shb_rpt_metric *out);

/* A histogram metric's value as reports print it: milliseconds with three
 * decimals for a LATENCY, the plain number otherwise. Returns buf. */
char *shb_rpt_metric_text(char *buf, size_t len, uint32_t kind, uint64_t v);

/* The text report's "Plugin metrics:" block; nothing without metrics. */
void shb_rpt_print_metrics(struct shb_rpt_out *o, const struct shb_host *host,
			   const struct shb_results *r);

/* sample(): what an interval keeps of its metrics, counts and p99s in
 * v->metric_vals (allocated only when there are metrics; names are read
 * from the run's result at end()). SHB_OK or SHB_E_NOMEM. */
int shb_rpt_ival_metrics(struct shb_rpt_ival *v, const struct shb_host *host,
			 const struct shb_results *r);

/* An interval's count and p99 of metric i (0 past what it kept). */
static inline uint64_t shb_rpt_ival_count(const struct shb_rpt_ival *v,
					  size_t i)
{
	return i < v->nmetric ? v->metric_vals[i] : 0;
}

static inline uint64_t shb_rpt_ival_p99(const struct shb_rpt_ival *v, size_t i)
{
	return i < v->nmetric ? v->metric_vals[v->nmetric + i] : 0;
}

#endif
