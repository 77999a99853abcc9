/* The html reporter's latency part: the percentile spectrum (corrected
 * and, under open loop, uncorrected, on HdrHistogram's plotter's axis)
 * and the table of the run's percentiles. */
#include "html_latency.h"

#include <math.h>
#include <stdio.h>

#include "html_chart.h"
#include "html_write.h"

#define TICKS_PER_HALF 5

static void spectrum_add(struct html_spectrum *s, uint64_t value)
{
	if (s->n < SPECTRUM_MAX) {
		s->x[s->n] = log10(100 / (100 - s->level));
		s->y[s->n] = (double)value / 1e6;
		s->n++;
	}
}

/* HdrHistogram's tick: 5 steps per half of the distance left to 100 %. */
static void spectrum_next(struct html_spectrum *s)
{
	double ticks = TICKS_PER_HALF *
		       pow(2, floor(log2(100 / (100 - s->level))) + 1);
	s->level += 100 / ticks;
}

/* The walk of hgrm.c: each bucket gives every level its cumulative count
 * reaches, valued at the bucket's highest value; the last gives one. */
static int spectrum_bucket(void *user, uint64_t lo, uint64_t hi, uint64_t count)
{
	struct html_spectrum *s = user;
	(void)lo;
	s->seen += count;
	if (s->seen >= s->total) {
		spectrum_add(s, hi);
		return 1;
	}
	while (100.0 * (double)s->seen / (double)s->total >= s->level) {
		spectrum_add(s, hi);
		spectrum_next(s);
	}
	return 0;
}

static void spectrum_of(const struct shb_host *host, const struct shb_hist *h,
			struct html_spectrum *s)
{
	s->n = 0;
	s->seen = 0;
	s->level = 0;
	s->total = h ? host->hist->count(h) : 0;
	if (s->total && host->hist->foreach_bucket)
		host->hist->foreach_bucket(h, spectrum_bucket, s);
}


static void spectrum_chart(struct shb_rpt_out *o, const char *id,
			   const struct html_spectrum *c, const struct html_spectrum *u)
{
	struct html_series s[2] = {
		{"corrected", u ? "corrected" : "latency",
		 c->x, c->y, NULL, c->n},
		{"uncorrected", "uncorrected",
		 u ? u->x : NULL, u ? u->y : NULL, NULL, u ? u->n : 0},
	};
	struct html_chart chart = {
		.id = id, .kind = "spectrum", .title = "Latency by percentile",
		.xlabel = "percentile", .ylabel = "latency (ms)",
		.xscale = HTML_X_PERCENTILE,
		.xmax = fmax(html_max_of(c->x, c->n), u ? html_max_of(u->x, u->n) : 0),
		.ymax = fmax(html_max_of(c->y, c->n), u ? html_max_of(u->y, u->n) : 0),
		.series = s, .nseries = u ? 2 : 1,
	};
	html_chart(o, &chart);
}


/* The run's percentiles (--percentiles) beside the chart. */
static void percentile_table(struct shb_rpt_out *o, const struct shb_rpt_latency *c,
			     const struct shb_rpt_latency *u)
{
	char name[24], a[32], b[32];
	static const char *const h2[] = {"percentile", "latency, ms"};
	static const char *const h3[] = {"percentile", "corrected, ms",
					 "uncorrected, ms"};
	shb_rpt_puts(o, "<table class=\"percentiles\">\n");
	html_head_row(o, u ? h3 : h2, u ? 3 : 2);
	for (size_t i = 0; i < c->npct; i++) {
		snprintf(name, sizeof(name), "%s%%",
			 shb_rpt_pct_label(a, sizeof(a), c->ppm[i], '.'));
		html_latency_cells(c, i, a, sizeof(a));
		if (u)
			html_latency_cells(u, i, b, sizeof(b));
		const char *cells[] = {name, a, b};
		html_row(o, cells, u ? 3 : 2);
	}
	const char *const stat[] = {"min", "mean", "stddev", "max"};
	for (int k = 0; k < 4 && c->count; k++) {
		const struct shb_rpt_latency *l[2] = {c, u};
		char v[2][32];
		for (int j = 0; j < 2 && l[j]; j++) {
			uint64_t x[4] = {l[j]->min, l[j]->mean, l[j]->stddev, l[j]->max};
			shb_rpt_ms(v[j], sizeof(v[j]), x[k]);
		}
		const char *cells[] = {stat[k], v[0], v[1]};
		html_row(o, cells, u ? 3 : 2);
	}
	shb_rpt_puts(o, "</table>\n");
}

void html_latency_section(struct shb_rpt_out *o, const struct shb_host *host,
			  unsigned idx, const struct shb_run_info *run,
			  const struct shb_results *r, struct html_spectrum *sp)
{
	const struct shb_hist *uh = shb_rpt_uncorrected(r);
	struct shb_rpt_pcts p;
	struct shb_rpt_latency c, u;
	char top[32], id[32];
	shb_rpt_pcts_of(run, &p);
	shb_rpt_read_hist(host, r->latency, &p, &c);
	if (uh)
		shb_rpt_read_hist(host, uh, &p, &u);
	shb_rpt_puts(o, "<h3>Latency percentile spectrum</h3>\n");
	if (!c.count) {
		shb_rpt_puts(o, "<p class=\"note\">No request completed: there "
			     "is no latency to show.</p>\n");
		return;
	}
	if (!host->hist->foreach_bucket) {
		shb_rpt_puts(o, "<p class=\"note\">This shb cannot walk its "
			     "histograms: no spectrum, the percentiles only.</p>\n");
	} else {
		spectrum_of(host, r->latency, &sp[0]);
		if (uh)
			spectrum_of(host, uh, &sp[1]);
		snprintf(id, sizeof(id), "run%u-spectrum", idx);
		spectrum_chart(o, id, &sp[0], uh ? &sp[1] : NULL);
		shb_rpt_printf(o, "<p class=\"note\">The x axis is logarithmic in "
			       "1/(1 - percentile), as HdrHistogram's plotter draws "
			       "it; the steps are HdrHistogram's (the hgrm "
			       "reporter's lines). Highest: %s ms.%s</p>\n",
			       shb_rpt_ms(top, sizeof(top), c.max),
			       uh ? " Under open loop the corrected latency runs "
				    "from each request's intended start, so it "
				    "shows the time requests waited when the "
				    "server or client fell behind; the "
				    "uncorrected from the actual send." : "");
	}
	percentile_table(o, &c, uh ? &u : NULL);
}
