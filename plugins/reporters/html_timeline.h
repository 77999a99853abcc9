/* The html reporter's time series. [main], like every reporter call. */
#ifndef SHB_HTML_TIMELINE_H
#define SHB_HTML_TIMELINE_H

#include "html.h"

/* Keeps one interval's point (see html_timeline.c). */
void html_add_point(struct html *h, const struct html_point *p);
/* The throughput and latency charts of the current run and their note. */
int html_timeline_section(struct shb_rpt_out *o, struct html *h,
			  const struct shb_run_info *run);

#endif
