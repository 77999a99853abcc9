/* Inline SVG line charts for the html reporter: axes with "nice" ticks,
 * a grid, a legend and one <polyline> per run of points. Written in C so
 * that the page needs no script and fetches nothing; every number is
 * printed without the C locale (shb_rpt_fixed), every coordinate with one
 * decimal.
 *
 * All strings given here are the reporter's own constants, written as
 * they are: nothing from the run (URLs, error samples) goes through a
 * chart. [main], like every reporter call. */
#ifndef SHB_HTML_CHART_H
#define SHB_HTML_CHART_H

#include <stddef.h>

#include "report_common.h"

/* The chart's size in CSS pixels and its plot area. */
#define HTML_CHART_W 760
#define HTML_CHART_H 300

/* One line of a chart: n points in data units (x[i], y[i]), borrowed for
 * the call. skip (may be NULL): skip[i] != 0 means "no value at i": the
 * line breaks there and goes on in a new <polyline> after it. A run of a
 * single point also gets a <circle>, so that it shows. */
struct html_series {
	const char *cls;  /* CSS class (also colours its legend entry) */
	const char *name; /* legend text */
	const double *x, *y;
	const unsigned char *skip;
	size_t n;
};

enum html_xscale {
	HTML_X_LINEAR,     /* 0..xmax with nice ticks */
	HTML_X_PERCENTILE, /* x in decades of 1/(1 - percentile): 0 is 0 %, 1
			    * is 90 %, 2 is 99 %, ...; ticks at each decade up
			    * to xmax (HdrHistogram's plotter's axis) */
};

struct html_chart {
	const char *id;     /* the <svg>'s id, unique in the page */
	const char *kind;   /* its class beside "chart": "spectrum", ... */
	const char *title;  /* <title>, for screen readers and tooltips */
	const char *xlabel, *ylabel;
	enum html_xscale xscale;
	double xmax; /* linear: the data's largest x; percentile: decades */
	double ymax; /* the data's largest y; the axis goes from 0 */
	const struct html_series *series;
	size_t nseries;
};

/* Writes one <svg class="chart ..."> element. Values beyond the axes
 * (which cannot happen with xmax/ymax as documented) are clamped to the
 * plot area. */
void html_chart(struct shb_rpt_out *o, const struct html_chart *c);

/* ---- ticks (exposed for the unit test) ------------------------------------ */

/* A linear axis from 0 in n steps of m x 10^e, m in {1, 2, 5}: the
 * smallest such step that reaches max in at most want + 1 steps. */
struct html_ticks {
	unsigned long long m;
	int e;
	unsigned n;
};

void html_ticks_of(double max, unsigned want, struct html_ticks *t);
double html_tick_value(const struct html_ticks *t, unsigned i);
/* "0", "0.05", "250", ... exact: i x m x 10^e in decimal. Returns buf. */
char *html_tick_label(char *buf, size_t len, const struct html_ticks *t,
		      unsigned i);
/* The label of decade d of a percentile axis: "0%", "90%", "99%",
 * "99.9%", ... Returns buf. */
char *html_decade_label(char *buf, size_t len, unsigned d);

#endif
