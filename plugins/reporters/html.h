/* The html reporter's state, shared by its files: html.c (the page and
 * the plugin's entry points), html_tables.c, html_latency.c and
 * html_timeline.c. [main], like every reporter call. */
#ifndef SHB_HTML_H
#define SHB_HTML_H

#include <stdint.h>

#include "report_common.h"

/* Interval points kept for the time series (even: pairs merge). */
#define HTML_POINTS_MAX 1000

/* One point of the time series: one interval, or consecutive ones merged
 * (counts summed, p50 and p99 the highest of those that had any ok). */
struct html_point {
	uint64_t start_ns, len_ns;
	uint64_t ok, errors;
	uint64_t p50, p99;      /* ns; 0 when with_latency is 0 */
	uint32_t intervals;     /* intervals covered */
	uint32_t with_latency;  /* of those, the ones with ok > 0 */
};

struct html {
	struct shb_rpt *g;         /* host, out, run info; owned */
	struct html_point *pt;     /* HTML_POINTS_MAX, owned */
	size_t n;
	uint32_t span;             /* intervals a full point covers */
	uint64_t samples;          /* sample() calls of the current run */
	unsigned sections;         /* runs written so far */
	int head_done, tail_done;
};

#endif
