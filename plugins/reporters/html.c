/* The "html" reporter: one self-contained HTML page per report file, with
 * a headline of the run's figures on the first screen, the run's facts,
 * the latency percentile spectrum (corrected and, under open loop,
 * uncorrected, on HdrHistogram's plotter's axis), throughput and p50/p99
 * over time from the interval samples, the set-up timings, status codes
 * and errors. Charts are inline SVG, as wide as the window (viewBox and
 * CSS); the page
 * has no script, no style sheet, font or image to fetch, and a
 * Content-Security-Policy that forbids every fetch in case one slipped in.
 * Every string from the run (URL, labels, error samples, plugin paths) is
 * escaped for HTML, and invalid UTF-8 is replaced by U+FFFD.
 *
 * The parts of a run's section: html_tables.c (facts, totals, set-up,
 * targets, statuses, errors), html_latency.c (the spectrum),
 * html_timeline.c (the time series), html_chart.c (the SVG); this file
 * writes the page around them and is the plugin's entry point.
 *
 * Samples: the descriptor sets SHB_REPORT_WANTS_INTERVALS, so the core
 * calls sample() every second, or every --interval D. At most
 * HTML_POINTS_MAX points are kept: when they are full, neighbours are
 * merged pairwise and later intervals fill points covering as many (see
 * html_add_point in html_timeline.c); memory stays bounded for any run length.
 *
 * Comparisons (ABI 1.3): one instance gets begin..end once per run; the
 * page's head goes out with the first end(), one <section> per run, and
 * the closing tags with the last (compare_index + 1 == compare_count), or
 * from destroy() when the comparison stopped early. */
#include <stdio.h>
#include <stdlib.h>

#include "html.h"
#include "html_latency.h"
#include "html_tables.h"
#include "html_timeline.h"
#include "html_write.h"

/* ---- the page around the sections ---------------------------------------- */

static const char page_style[] =
	"body{font-family:sans-serif;margin:1.5em;color:#222;background:#fff}\n"
	"h1{font-size:1.5em}h2{font-size:1.25em;margin-top:2em;word-break:break-all}\n"
	"h3{font-size:1.05em;margin:1.5em 0 .5em}\n"
	"table{border-collapse:collapse;margin:.3em 0 1em}\n"
	"th,td{border:1px solid #ccc;padding:.2em .6em;text-align:right;"
	"vertical-align:top}\n"
	"th:first-child{text-align:left}\n"
	"table.facts td,td.text{text-align:left;word-break:break-all}\n"
	".note{color:#555;font-size:.9em;max-width:60em}\n"
	".warn{color:#a00;font-weight:bold}\n"
	".headline{display:flex;flex-wrap:wrap;gap:.6em;margin:.6em 0 1em}\n"
	".stat{border:1px solid #ccc;border-radius:4px;padding:.3em .8em;"
	"min-width:6em}\n"
	".stat .value{display:block;font-size:1.6em;font-weight:bold}\n"
	".stat .name{display:block;color:#555;font-size:.85em}\n"
	".stat.bad .value{color:#a00}\n"
	".pair{display:flex;flex-wrap:wrap;gap:0 2.5em;align-items:flex-start}\n"
	".pair>div{min-width:0;max-width:100%}\n"
	/* Charts are as wide as the window up to 60em; height follows the
	 * viewBox. On a phone the labels grow so that they stay legible. */
	"svg.chart{display:block;width:100%;max-width:60em;height:auto}\n"
	".chart text{font-size:12px;fill:#333}\n"
	".grid line{stroke:#e4e4e4}\n.axis line{stroke:#333}\n"
	"polyline.series{fill:none;stroke-width:2;stroke-linejoin:round}\n"
	".key{stroke-width:3}\n"
	".corrected{stroke:#1f77b4;fill:#1f77b4}\n"
	".uncorrected{stroke:#ff7f0e;fill:#ff7f0e}\n"
	".ok{stroke:#2ca02c;fill:#2ca02c}\n.errors{stroke:#d62728;fill:#d62728}\n"
	".p50{stroke:#1f77b4;fill:#1f77b4}\n.p99{stroke:#9467bd;fill:#9467bd}\n"
	"circle.dot{stroke:none}\n"
	/* A table wider than a phone scrolls by itself, not the page. */
	"@media (max-width:40em){body{margin:.8em}"
	"table{display:block;overflow-x:auto;max-width:100%}"
	".chart text{font-size:16px}}\n";

static void page_head(struct shb_rpt_out *o, const struct shb_run_info *run)
{
	shb_rpt_puts(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		     "<meta charset=\"utf-8\">\n"
		     "<meta http-equiv=\"Content-Security-Policy\" "
		     "content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
		     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		     "<meta name=\"generator\" content=\"shb ");
	html_esc(o, run->shb_version);
	shb_rpt_puts(o, "\">\n<title>shb: ");
	/* 1.4: the protocol's name where there is no HTTP method */
	html_esc(o, shb_rpt_http(run) ? run->method : run->proto_display);
	shb_rpt_puts(o, " ");
	html_esc(o, run->url);
	shb_rpt_printf(o, "</title>\n<style>\n%s</style>\n</head>\n<body>\n"
		       "<h1>shb load test report</h1>\n", page_style);
}

static void page_tail(struct shb_rpt_out *o, const char *version)
{
	shb_rpt_puts(o, "<footer><p class=\"note\">Written by shb ");
	html_esc(o, version);
	shb_rpt_puts(o, ". Latency is measured per request and kept as a "
		     "histogram of 3 significant digits; times are in "
		     "milliseconds unless the heading says otherwise.</p></footer>\n"
		     "</body>\n</html>\n");
}

/* ---- one run ------------------------------------------------------------------ */

static int section(struct shb_rpt_out *o, struct html *h,
		   const struct shb_run_info *run, const struct shb_results *r,
		   struct html_spectrum *sp)
{
	const struct shb_host *host = h->g->host;
	shb_rpt_printf(o, "<section class=\"run\" id=\"run-%u\">\n<h2>", h->sections);
	if (html_run_label(run)) {
		html_esc(o, html_run_label(run));
		shb_rpt_puts(o, ": ");
	}
	/* 1.4: the protocol's name where there is no HTTP method */
	html_esc(o, shb_rpt_http(run) ? run->method : run->proto_display);
	shb_rpt_puts(o, " ");
	html_esc(o, run->url);
	shb_rpt_puts(o, "</h2>\n");
	if (r->interrupted)
		shb_rpt_puts(o, "<p class=\"warn\">Interrupted: the figures cover "
			     "what was measured until the signal.</p>\n");
	html_headline(o, host, h->sections, r);
	/* Side by side when the window is wide enough, so that the first
	 * screen reaches the charts. */
	shb_rpt_puts(o, "<div class=\"pair\"><div>\n");
	html_run_facts(o, host, run, r);
	shb_rpt_puts(o, "</div><div>\n");
	html_totals(o, host, run, r);
	shb_rpt_puts(o, "</div></div>\n");
	html_latency_section(o, host, h->sections, run, r, sp);
	int rc = html_timeline_section(o, h, run);
	html_setup_section(o, host, r);
	html_metrics_section(o, host, r);
	html_targets_section(o, host, run, r);
	html_status_section(o, run, r);
	html_error_section(o, r);
	shb_rpt_puts(o, "</section>\n");
	return rc;
}

/* The last run of a comparison, or a run of its own (ABI 1.3 fields). */
static int last_run(const struct shb_run_info *run)
{
	if (!SHB_RPT_HAS(run, struct shb_run_info, compare_count))
		return 1;
	return run->compare_index + 1 >= run->compare_count;
}

/* ---- the reporter ------------------------------------------------------------- */

static int html_end(void *rep, const struct shb_results *r)
{
	struct html *h = rep;
	const struct shb_run_info *run = h ? shb_rpt_check(h->g, r) : NULL;
	if (!run)
		return SHB_E_INVAL;
	struct html_spectrum *sp = malloc(2 * sizeof(*sp));
	if (!sp)
		return SHB_E_NOMEM;
	struct shb_rpt_out o;
	shb_rpt_out_init(&o, h->g->out);
	if (!h->head_done) {
		page_head(&o, run);
		h->head_done = 1;
	}
	int rc = section(&o, h, run, r, sp);
	h->sections++;
	free(sp);
	if (last_run(run) && !h->tail_done) {
		page_tail(&o, run->shb_version);
		h->tail_done = 1;
	}
	int frc = shb_rpt_flush(&o);
	return rc < 0 ? rc : frc;
}

static int html_sample(void *rep, const struct shb_results *r)
{
	struct html *h = rep;
	if (!h || !r || !SHB_HAS(r, struct shb_results, interval_start_ns) ||
	    r->kind != SHB_RESULTS_INTERVAL)
		return SHB_E_INVAL;
	struct shb_rpt_pcts pc = {2, {500000, 990000}};
	struct shb_rpt_latency lat;
	shb_rpt_read_hist(h->g->host, r->latency, &pc, &lat);
	struct html_point p = {
		.start_ns = r->interval_start_ns, .len_ns = r->elapsed_ns,
		.ok = r->requests_ok, .errors = r->requests_errors,
		.p50 = lat.count ? lat.pct[0] : 0,
		.p99 = lat.count ? lat.pct[1] : 0,
		.intervals = 1, .with_latency = lat.count > 0,
	};
	html_add_point(h, &p);
	h->samples++;
	return SHB_OK;
}

static int html_begin(void *rep, const struct shb_run_info *info)
{
	struct html *h = rep;
	if (!h)
		return SHB_E_INVAL;
	/* Each run of a comparison has its own time series. */
	h->n = 0;
	h->span = 1;
	h->samples = 0;
	return shb_rpt_begin(h->g, info);
}

static void html_destroy(void *rep)
{
	struct html *h = rep;
	if (!h)
		return;
	if (h->head_done && !h->tail_done) {
		/* A comparison that stopped before its last run: close the
		 * page so that it is whole. */
		struct shb_rpt_out o;
		shb_rpt_out_init(&o, h->g->out);
		page_tail(&o, h->g->info ? h->g->info->shb_version : NULL);
		shb_rpt_flush(&o);
	}
	shb_rpt_destroy(h->g);
	free(h->pt);
	free(h);
}

static int html_create(const struct shb_host *host,
		       const struct shb_ostream *out, const char *options,
		       void **rep, char *err, size_t errlen)
{
	void *g = NULL;
	if (!rep)
		return SHB_E_INVAL;
	*rep = NULL;
	if (out && SHB_HAS(out, struct shb_ostream, is_terminal) &&
	    out->is_terminal) {
		if (err && errlen)
			snprintf(err, errlen, "html reporter: will not write a page "
				 "to a terminal; use --report html:FILE (or "
				 "redirect stdout)");
		return SHB_E_INVAL;
	}
	int rc = shb_rpt_create("html", NULL, host, out, options, &g, err, errlen);
	if (rc < 0)
		return rc;
	struct html *h = calloc(1, sizeof(*h));
	struct html_point *pt = calloc(HTML_POINTS_MAX, sizeof(*pt));
	if (!h || !pt) {
		free(h);
		free(pt);
		shb_rpt_destroy(g);
		if (err && errlen)
			snprintf(err, errlen, "html reporter: out of memory");
		return SHB_E_NOMEM;
	}
	h->g = g;
	h->pt = pt;
	h->span = 1;
	*rep = h;
	return SHB_OK;
}

static const struct shb_report_vtable html_vt = {
	.struct_size = sizeof(struct shb_report_vtable),
	.create = html_create,
	.begin = html_begin,
	.sample = html_sample,
	.end = html_end,
	.destroy = html_destroy,
};

/* The html reporter takes no options: the core refuses every key. */
static const struct shb_option_def html_option_defs[] = {
	{NULL, NULL, NULL},
};

const struct shb_report_desc shb_rpt_module_desc = {
	.struct_size = sizeof(struct shb_report_desc),
	.flags = SHB_REPORT_WANTS_INTERVALS,
	.name = "html",
	.summary = "one self-contained HTML page with SVG charts (to a file)",
	.vt = &html_vt,
	.option_defs = html_option_defs,
};

SHB_PLUGIN_DEFINE_FULL("org.shb.report.html", SHB_VERSION_STRING, "shb", NULL, "MIT",
		       shb_rpt_init, NULL, NULL, SHB_NO_PROTOCOLS,
		       SHB_REPORTERS(&shb_rpt_module_desc));
