/* The html reporter's latency part: the percentile spectrum chart and
 * the percentile table. [main], like every reporter call. */
#ifndef SHB_HTML_LATENCY_H
#define SHB_HTML_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#include "report_common.h"

/* Percentile spectrum points: HdrHistogram's steps give about 5 per
 * halving of what is left to 100 %, so 64-bit counts need under 400. */
#define SPECTRUM_MAX 512

/* The points of HdrHistogram's percentile distribution (the hgrm
 * reporter's lines, the 100 % line left out: its x is infinite): x in
 * decades of 1/(1 - p), y in ms. */
struct html_spectrum {
	double x[SPECTRUM_MAX], y[SPECTRUM_MAX];
	size_t n;
	uint64_t total, seen;
	double level; /* the next percentile level, in % */
};

/* The spectrum chart and percentile table of run idx; sp: room for two
 * spectra (corrected, uncorrected), scratch for the call. */
void html_latency_section(struct shb_rpt_out *o, const struct shb_host *host,
			  unsigned idx, const struct shb_run_info *run,
			  const struct shb_results *r, struct html_spectrum *sp);

#endif
