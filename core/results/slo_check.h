/* --slo gates (cli/slo.h) checked on a run's merged results, by `shb` at
 * the end of a run and by `shb merge` on the merged reports alike.
 * [main] thread. */
#ifndef SHB_CORE_SLO_CHECK_H
#define SHB_CORE_SLO_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "cli/slo.h"
#include "results/hist.h"

struct shb_config;
struct shb_results;

/* What the gates are checked against: the run's merged totals. */
struct shb_slo_data {
	uint64_t ok, errors;
	uint64_t elapsed_ns;
	const struct shb_histo *latency; /* of ok requests */
	/* The protocol's metrics (shb_results.metrics), their histograms
	 * the core's (struct shb_histo); NULL and 0 for none. */
	const struct shb_metric_value *metrics;
	size_t metric_count;
};

/* Checks one gate. Returns 1 when it holds, 0 when it fails; then msg
 * holds the line to print after "SLO failed: ", e.g.
 * "p99 = 7.3ms, wanted < 5ms". */
int shb_slo_check(const struct shb_slo *slo, const struct shb_slo_data *d,
		  char *msg, size_t msglen);

/* Checks every --slo of cfg against r (and latency, r's ok latencies),
 * printing "shb: SLO failed<which>: ..." on stderr for each that fails;
 * which is "" or says which run of a comparison. Returns 1 when any
 * failed, else 0. */
int shb_slo_check_all(const struct shb_config *cfg,
		      const struct shb_results *r,
		      const struct shb_histo *latency, const char *which);

#endif
