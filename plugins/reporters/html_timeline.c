/* The html reporter's time series: the interval samples kept in at most
 * HTML_POINTS_MAX points (neighbours merge pairwise when they are full,
 * so memory stays bounded for any run length), and the throughput and
 * latency charts drawn from them. */
#include "html_timeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "html_chart.h"
#include "html_write.h"

/* b, which follows a in time, joins a: counts add up, the percentiles
 * keep the highest (percentiles of parts do not give the whole's). */
static void merge_point(struct html_point *a, const struct html_point *b)
{
	a->len_ns = b->start_ns + b->len_ns - a->start_ns;
	a->ok += b->ok;
	a->errors += b->errors;
	if (b->with_latency) {
		a->p50 = a->p50 > b->p50 ? a->p50 : b->p50;
		a->p99 = a->p99 > b->p99 ? a->p99 : b->p99;
	}
	a->intervals += b->intervals;
	a->with_latency += b->with_latency;
}

/* Up to HTML_POINTS_MAX points: a new interval joins the last point while
 * that covers fewer than `span` intervals; when every point is full and
 * all are taken, pairs merge and span doubles. So the points always cover
 * equal runs of intervals, except the last, which may be partial. */
void html_add_point(struct html *h, const struct html_point *p)
{
	if (h->n && h->pt[h->n - 1].intervals < h->span) {
		merge_point(&h->pt[h->n - 1], p);
		return;
	}
	if (h->n == HTML_POINTS_MAX) {
		for (size_t i = 0; i < h->n / 2; i++) {
			h->pt[i] = h->pt[2 * i];
			merge_point(&h->pt[i], &h->pt[2 * i + 1]);
		}
		h->n /= 2;
		h->span *= 2;
	}
	h->pt[h->n++] = *p;
}

struct timeline {
	double *x, *ok, *err, *p50, *p99;
	unsigned char *none; /* no ok request: no latency */
	int any_errors;
};

static int timeline_of(const struct html *h, struct timeline *t)
{
	double *m = calloc(h->n ? 5 * h->n : 1, sizeof(double));
	unsigned char *none = calloc(h->n ? h->n : 1, 1);
	if (!m || !none) {
		free(m);
		free(none);
		return SHB_E_NOMEM;
	}
	*t = (struct timeline){m, m + h->n, m + 2 * h->n, m + 3 * h->n,
			       m + 4 * h->n, none, 0};
	for (size_t i = 0; i < h->n; i++) {
		const struct html_point *p = &h->pt[i];
		t->x[i] = ((double)p->start_ns + (double)p->len_ns / 2) / 1e9;
		t->ok[i] = shb_rpt_per_sec(p->ok, p->len_ns);
		t->err[i] = shb_rpt_per_sec(p->errors, p->len_ns);
		t->p50[i] = (double)p->p50 / 1e6;
		t->p99[i] = (double)p->p99 / 1e6;
		t->none[i] = p->with_latency == 0;
		t->any_errors |= p->errors > 0;
	}
	return SHB_OK;
}

static void timeline_free(struct timeline *t)
{
	free(t->x);
	free(t->none);
}

static void timeline_charts(struct shb_rpt_out *o, const struct html *h,
			    const struct timeline *t)
{
	const struct html_point *last = &h->pt[h->n - 1];
	char id[32];
	double span = (double)(last->start_ns + last->len_ns) / 1e9;
	struct html_series rate[2] = {
		{"ok", "ok/s", t->x, t->ok, NULL, h->n},
		{"errors", "errors/s", t->x, t->err, NULL, h->n},
	};
	snprintf(id, sizeof(id), "run%u-throughput", h->sections);
	struct html_chart c = {
		.id = id, .kind = "throughput", .title = "Throughput over time",
		.xlabel = "seconds since the load started",
		.ylabel = "requests per second", .xscale = HTML_X_LINEAR,
		.xmax = span,
		.ymax = fmax(html_max_of(t->ok, h->n), html_max_of(t->err, h->n)),
		.series = rate, .nseries = t->any_errors ? 2 : 1,
	};
	shb_rpt_puts(o, "<h3>Throughput over time</h3>\n");
	html_chart(o, &c);
	struct html_series lat[2] = {
		{"p50", "p50", t->x, t->p50, t->none, h->n},
		{"p99", "p99", t->x, t->p99, t->none, h->n},
	};
	snprintf(id, sizeof(id), "run%u-latency", h->sections);
	c.kind = "latency";
	c.title = "Latency over time (p50 and p99 of each interval)";
	c.ylabel = "latency (ms)";
	c.ymax = fmax(html_max_of(t->p99, h->n), html_max_of(t->p50, h->n));
	c.series = lat;
	c.nseries = 2;
	shb_rpt_puts(o, "<h3>Latency over time</h3>\n");
	html_chart(o, &c);
}

/* The last interval ends with the run, often a fraction of a millisecond
 * after the last tick: a rate over so short a time is noise. When it is
 * shorter than half the point before it, it joins that point (the
 * counts stay exact). Returns 1 when it did. */
static int fold_tail(struct html *h)
{
	if (h->n < 2 || h->pt[h->n - 1].len_ns >= h->pt[h->n - 2].len_ns / 2)
		return 0;
	merge_point(&h->pt[h->n - 2], &h->pt[h->n - 1]);
	h->n--;
	return 1;
}

int html_timeline_section(struct shb_rpt_out *o, struct html *h,
			  const struct shb_run_info *run)
{
	char a[32];
	int folded = fold_tail(h);
	if (h->n == 0) {
		shb_rpt_puts(o, "<h3>Over time</h3>\n<p class=\"note\">No "
			     "intervals were recorded (the load never started, "
			     "or these are merged results).</p>\n");
		return SHB_OK;
	}
	struct timeline t;
	int rc = timeline_of(h, &t);
	if (rc < 0)
		return rc;
	timeline_charts(o, h, &t);
	timeline_free(&t);
	shb_rpt_printf(o, "<p class=\"note\">%llu intervals",
		       (unsigned long long)h->samples);
	if (SHB_RPT_HAS(run, struct shb_run_info, interval_ns) && run->interval_ns)
		shb_rpt_printf(o, " of %s s", html_secs(a, sizeof(a), run->interval_ns));
	shb_rpt_puts(o, " (the last ends with the run");
	if (folded)
		shb_rpt_puts(o, "; it was shorter than half the one before and is "
			     "drawn together with it");
	shb_rpt_puts(o, "); each point is drawn at the middle of its time");
	if (h->span > 1)
		shb_rpt_printf(o, ". To keep at most %d points, each covers up "
			       "to %u consecutive intervals: their requests are "
			       "summed, and its p50 and p99 are the highest of "
			       "those intervals'", HTML_POINTS_MAX, h->span);
	shb_rpt_puts(o, ". A break in a latency line is an interval in which "
		     "no request completed.</p>\n");
	return SHB_OK;
}
