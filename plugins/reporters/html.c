/* The "html" reporter: one self-contained HTML page per report file, with
 * the run's facts, the latency percentile spectrum (corrected and, under
 * open loop, uncorrected, on HdrHistogram's plotter's axis), throughput
 * and p50/p99 over time from the interval samples, the set-up timings,
 * status codes and errors. Charts are inline SVG written here; the page
 * has no script, no style sheet, font or image to fetch, and a
 * Content-Security-Policy that forbids every fetch in case one slipped in.
 * Every string from the run (URL, labels, error samples, plugin paths) is
 * escaped for HTML, and invalid UTF-8 is replaced by U+FFFD.
 *
 * Samples: the descriptor sets SHB_REPORT_WANTS_INTERVALS, so the core
 * calls sample() every second, or every --interval D. At most
 * HTML_POINTS_MAX points are kept: when they are full, neighbours are
 * merged pairwise and later intervals fill points covering as many (see
 * add_point); memory stays bounded for any run length.
 *
 * Comparisons (ABI 1.3): one instance gets begin..end once per run; the
 * page's head goes out with the first end(), one <section> per run, and
 * the closing tags with the last (compare_index + 1 == compare_count), or
 * from destroy() when the comparison stopped early. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_chart.h"
#include "report_common.h"

/* Interval points kept for the time series (even: pairs merge). */
#define HTML_POINTS_MAX 1000
/* Percentile spectrum points: HdrHistogram's steps give about 5 per
 * halving of what is left to 100 %, so 64-bit counts need under 400. */
#define SPECTRUM_MAX 512
#define TICKS_PER_HALF 5

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

/* ---- writing HTML ---------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at p (1..4), 0 if invalid: no
 * overlong forms, surrogates or code points past U+10FFFF. */
static int utf8_len(const unsigned char *p)
{
	unsigned char c = p[0];
	int n;
	unsigned char lo = 0x80, hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* A string from the run, safe as HTML text and as a quoted attribute
 * value: the five markup characters as references, control characters
 * and invalid UTF-8 as U+FFFD. NULL writes nothing. */
static void esc(struct shb_rpt_out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		const char *rep = NULL;
		int n = 1;
		switch (*p) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default:
			if (*p >= 0x80 && (n = utf8_len(p)) == 0)
				rep = "&#xFFFD;";
			else if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f)
				rep = "&#xFFFD;";
		}
		if (rep) {
			shb_rpt_puts(o, rep);
			n = 1;
		} else {
			shb_rpt_write(o, p, (size_t)n);
		}
		p += n;
	}
}

static char *u64s(char *buf, size_t len, uint64_t v)
{
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/* Seconds with three decimals, rounded half up from ns. */
static char *secs(char *buf, size_t len, uint64_t ns)
{
	uint64_t ms = ns / 1000000 + (ns % 1000000 >= 500000);
	return shb_rpt_fixed(buf, len, ms, 3);
}

static char *one_decimal(char *buf, size_t len, double v)
{
	return shb_rpt_fixed(buf, len, shb_rpt_scale(v, 1), 1);
}

/* <tr><th>name</th><td>value</td></tr>, the value escaped. */
static void fact(struct shb_rpt_out *o, const char *name, const char *value)
{
	shb_rpt_printf(o, "<tr><th>%s</th><td>", name);
	esc(o, value);
	shb_rpt_puts(o, "</td></tr>\n");
}

/* A row of cells, the first a header: cells[0..n), all escaped. */
static void row(struct shb_rpt_out *o, const char *const *cells, size_t n)
{
	shb_rpt_puts(o, "<tr>");
	for (size_t i = 0; i < n; i++) {
		shb_rpt_puts(o, i ? "<td>" : "<th>");
		esc(o, cells[i]);
		shb_rpt_puts(o, i ? "</td>" : "</th>");
	}
	shb_rpt_puts(o, "</tr>\n");
}

static void head_row(struct shb_rpt_out *o, const char *const *cells, size_t n)
{
	shb_rpt_puts(o, "<tr>");
	for (size_t i = 0; i < n; i++)
		shb_rpt_printf(o, "<th>%s</th>", cells[i]);
	shb_rpt_puts(o, "</tr>\n");
}

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
	"svg.chart{display:block;max-width:100%;height:auto}\n"
	".chart text{font-size:12px;fill:#333}\n"
	".grid line{stroke:#e4e4e4}\n.axis line{stroke:#333}\n"
	"polyline.series{fill:none;stroke-width:2;stroke-linejoin:round}\n"
	".key{stroke-width:3}\n"
	".corrected{stroke:#1f77b4;fill:#1f77b4}\n"
	".uncorrected{stroke:#ff7f0e;fill:#ff7f0e}\n"
	".ok{stroke:#2ca02c;fill:#2ca02c}\n.errors{stroke:#d62728;fill:#d62728}\n"
	".p50{stroke:#1f77b4;fill:#1f77b4}\n.p99{stroke:#9467bd;fill:#9467bd}\n"
	"circle.dot{stroke:none}\n";

static void page_head(struct shb_rpt_out *o, const struct shb_run_info *run)
{
	shb_rpt_puts(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		     "<meta charset=\"utf-8\">\n"
		     "<meta http-equiv=\"Content-Security-Policy\" "
		     "content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
		     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		     "<meta name=\"generator\" content=\"shb ");
	esc(o, run->shb_version);
	shb_rpt_puts(o, "\">\n<title>shb: ");
	esc(o, run->method);
	shb_rpt_puts(o, " ");
	esc(o, run->url);
	shb_rpt_printf(o, "</title>\n<style>\n%s</style>\n</head>\n<body>\n"
		       "<h1>shb load test report</h1>\n", page_style);
}

static void page_tail(struct shb_rpt_out *o, const char *version)
{
	shb_rpt_puts(o, "<footer><p class=\"note\">Written by shb ");
	esc(o, version);
	shb_rpt_puts(o, ". Latency is measured per request and kept as a "
		     "histogram of 3 significant digits; times are in "
		     "milliseconds unless the heading says otherwise.</p></footer>\n"
		     "</body>\n</html>\n");
}

/* ---- the run's facts -------------------------------------------------------- */

static const char *run_label(const struct shb_run_info *run)
{
	return SHB_RPT_HAS(run, struct shb_run_info, label) ? run->label : NULL;
}

static int open_loop(const struct shb_run_info *run)
{
	const struct shb_stage *st;
	return (SHB_RPT_HAS(run, struct shb_run_info, rate_milli) &&
		run->rate_milli) || shb_rpt_stages(run, &st) > 0;
}

static void load_facts(struct shb_rpt_out *o, const struct shb_run_info *run)
{
	char a[32], b[32], c[32], line[128];
	const struct shb_stage *st;
	size_t n = shb_rpt_stages(run, &st);
	if (!open_loop(run)) {
		fact(o, "Load", "closed loop: a new request as soon as one "
			"ends");
	} else if (n == 0) {
		snprintf(line, sizeof(line), "open loop at %s requests/s",
			 shb_rpt_milli(a, sizeof(a), run->rate_milli));
		fact(o, "Load", line);
	}
	for (size_t i = 0; i < n; i++) {
		secs(c, sizeof(c), st[i].duration_ns);
		if (st[i].rate_from_milli == st[i].rate_to_milli)
			snprintf(line, sizeof(line), "%s s at %s/s", c,
				 shb_rpt_milli(a, sizeof(a), st[i].rate_from_milli));
		else
			snprintf(line, sizeof(line), "%s s from %s/s to %s/s", c,
				 shb_rpt_milli(a, sizeof(a), st[i].rate_from_milli),
				 shb_rpt_milli(b, sizeof(b), st[i].rate_to_milli));
		fact(o, i == 0 ? "Stages (open loop)" : "", line);
	}
	if (run->requests_target)
		fact(o, "Requests (-n)", u64s(a, sizeof(a), run->requests_target));
	if (run->duration_target_ns)
		fact(o, "Duration (-z), s", secs(a, sizeof(a), run->duration_target_ns));
}

static void optional_facts(struct shb_rpt_out *o, const struct shb_run_info *run,
			   const struct shb_rpt_warmup *w)
{
	char a[32], line[64];
	if (w->known && w->ns)
		fact(o, "Warm-up, s", secs(a, sizeof(a), w->ns));
	if (SHB_RPT_HAS(run, struct shb_run_info, interval_ns) && run->interval_ns)
		fact(o, "Interval, s", secs(a, sizeof(a), run->interval_ns));
	if (SHB_RPT_HAS(run, struct shb_run_info, shard_count) &&
	    run->shard_count > 1) {
		snprintf(line, sizeof(line), "%u of %u", run->shard_index + 1,
			 run->shard_count);
		fact(o, "Shard", line);
	}
	const struct shb_plugin_info *p;
	size_t n = shb_rpt_plugins(run, &p);
	for (size_t i = 0; i < n; i++) {
		shb_rpt_printf(o, "<tr><th>%s</th><td>", i ? "" : "Plugins");
		esc(o, p[i].role);
		shb_rpt_puts(o, " ");
		esc(o, p[i].name);
		shb_rpt_puts(o, ": ");
		esc(o, p[i].id);
		shb_rpt_puts(o, " ");
		esc(o, p[i].version);
		shb_rpt_printf(o, " (ABI 1.%u)</td></tr>\n", p[i].abi_minor);
	}
}

static void run_facts(struct shb_rpt_out *o, const struct shb_host *host,
		      const struct shb_run_info *run, const struct shb_results *r)
{
	char a[64], line[64];
	struct shb_rpt_warmup w;
	shb_rpt_warmup_of(host, run, r, &w);
	shb_rpt_puts(o, "<h3>Run</h3>\n<table class=\"facts\">\n");
	fact(o, "URL", run->url);
	if (run_label(run))
		fact(o, "Label", run_label(run));
	fact(o, "Method", run->method);
	snprintf(line, sizeof(line), "%s (%s)", shb_rpt_str(run->proto_display),
		 shb_rpt_str(run->proto_name));
	fact(o, "Protocol", line);
	fact(o, "Connections", u64s(a, sizeof(a), run->connections));
	if (run->parallel > 1)
		fact(o, "Streams per connection", u64s(a, sizeof(a), run->parallel));
	fact(o, "Threads", u64s(a, sizeof(a), run->threads));
	if (run->tls)
		fact(o, "TLS verify", shb_rpt_tls_verify_name(run->tls_verify));
	load_facts(o, run);
	optional_facts(o, run, &w);
	if (shb_rpt_start_time(a, sizeof(a), run))
		fact(o, "Start", a);
	fact(o, "shb version", run->shb_version);
	shb_rpt_puts(o, "</table>\n");
	if (w.known && w.ns)
		shb_rpt_printf(o, "<p class=\"note\">%llu requests ended during "
			       "the warm-up and are left out of every figure.</p>\n",
			       (unsigned long long)w.requests);
}

/* ---- the totals ------------------------------------------------------------- */

static void mb_row(struct shb_rpt_out *o, const char *name, uint64_t bytes,
		   uint64_t ns)
{
	char a[32], b[32], line[80];
	double mb = shb_rpt_per_sec(bytes, ns) / (1024.0 * 1024.0);
	snprintf(line, sizeof(line), "%s (%s MB/s)", u64s(a, sizeof(a), bytes),
		 shb_rpt_fixed(b, sizeof(b), shb_rpt_scale(mb, 2), 2));
	fact(o, name, line);
}

static void open_loop_rows(struct shb_rpt_out *o, const struct shb_run_info *run,
			   const struct shb_results *r)
{
	char a[32];
	if (!SHB_RPT_HAS(r, struct shb_results, schedule_lag_max_ns) ||
	    !open_loop(run))
		return;
	fact(o, "Started over 1 ms late", u64s(a, sizeof(a), r->requests_late));
	fact(o, "Due but never sent", u64s(a, sizeof(a), r->requests_unsent));
	/* docs/reports.md "Open loop shortfall". */
	fact(o, "Rate reached", shb_rpt_short(r) ?
	     "no: more than 5 % of the due requests never sent" : "yes");
	fact(o, "Largest schedule lag, ms",
	     shb_rpt_ms(a, sizeof(a), r->schedule_lag_max_ns));
}

static void totals(struct shb_rpt_out *o, const struct shb_run_info *run,
		   const struct shb_results *r)
{
	char a[32], b[32];
	shb_rpt_puts(o, "<h3>Totals</h3>\n<table class=\"facts\">\n");
	fact(o, "Requests", u64s(a, sizeof(a), r->requests_total));
	fact(o, "OK (complete responses)", u64s(a, sizeof(a), r->requests_ok));
	fact(o, "Errors", u64s(a, sizeof(a), r->requests_errors));
	if (r->requests_retried)
		fact(o, "Retried", u64s(a, sizeof(a), r->requests_retried));
	fact(o, "Duration of the load, s", secs(a, sizeof(a), r->elapsed_ns));
	fact(o, "OK per second",
	     one_decimal(a, sizeof(a), shb_rpt_per_sec(r->requests_ok, r->elapsed_ns)));
	if (SHB_RPT_HAS(r, struct shb_results, setup_ns) && r->setup_ns)
		fact(o, "Set-up before the load, s", secs(a, sizeof(a), r->setup_ns));
	open_loop_rows(o, run, r);
	mb_row(o, "Bytes received", r->bytes_received, r->elapsed_ns);
	mb_row(o, "Bytes sent", r->bytes_sent, r->elapsed_ns);
	if (SHB_RPT_HAS(r, struct shb_results, rx_body_bytes) && r->requests_ok &&
	    (r->rx_header_bytes || r->rx_body_bytes)) {
		char line[80];
		snprintf(line, sizeof(line), "%s header, %s body",
			 one_decimal(a, sizeof(a), shb_rpt_per(r->rx_header_bytes, r->requests_ok)),
			 one_decimal(b, sizeof(b), shb_rpt_per(r->rx_body_bytes, r->requests_ok)));
		fact(o, "Bytes per response", line);
	}
	fact(o, "Connections opened", u64s(a, sizeof(a), r->connections_opened));
	shb_rpt_puts(o, "</table>\n");
}

/* ---- the percentile spectrum ------------------------------------------------ */

/* The points of HdrHistogram's percentile distribution (the hgrm
 * reporter's lines, the 100 % line left out: its x is infinite): x in
 * decades of 1/(1 - p), y in ms. */
struct spectrum {
	double x[SPECTRUM_MAX], y[SPECTRUM_MAX];
	size_t n;
	uint64_t total, seen;
	double level; /* the next percentile level, in % */
};

static void spectrum_add(struct spectrum *s, uint64_t value)
{
	if (s->n < SPECTRUM_MAX) {
		s->x[s->n] = log10(100 / (100 - s->level));
		s->y[s->n] = (double)value / 1e6;
		s->n++;
	}
}

/* HdrHistogram's tick: 5 steps per half of the distance left to 100 %. */
static void spectrum_next(struct spectrum *s)
{
	double ticks = TICKS_PER_HALF *
		       pow(2, floor(log2(100 / (100 - s->level))) + 1);
	s->level += 100 / ticks;
}

/* The walk of hgrm.c: each bucket gives every level its cumulative count
 * reaches, valued at the bucket's highest value; the last gives one. */
static int spectrum_bucket(void *user, uint64_t lo, uint64_t hi, uint64_t count)
{
	struct spectrum *s = user;
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
			struct spectrum *s)
{
	s->n = 0;
	s->seen = 0;
	s->level = 0;
	s->total = h ? host->hist->count(h) : 0;
	if (s->total && host->hist->foreach_bucket)
		host->hist->foreach_bucket(h, spectrum_bucket, s);
}

static double max_of(const double *v, size_t n)
{
	double m = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

static void spectrum_chart(struct shb_rpt_out *o, const char *id,
			   const struct spectrum *c, const struct spectrum *u)
{
	struct html_series s[2] = {
		{"corrected", u ? "corrected (from the intended start)" : "latency",
		 c->x, c->y, NULL, c->n},
		{"uncorrected", "uncorrected (from the actual send)",
		 u ? u->x : NULL, u ? u->y : NULL, NULL, u ? u->n : 0},
	};
	struct html_chart chart = {
		.id = id, .kind = "spectrum", .title = "Latency by percentile",
		.xlabel = "percentile", .ylabel = "latency (ms)",
		.xscale = HTML_X_PERCENTILE,
		.xmax = fmax(max_of(c->x, c->n), u ? max_of(u->x, u->n) : 0),
		.ymax = fmax(max_of(c->y, c->n), u ? max_of(u->y, u->n) : 0),
		.series = s, .nseries = u ? 2 : 1,
	};
	html_chart(o, &chart);
}

static void latency_cells(const struct shb_rpt_latency *l, size_t i,
			  char *buf, size_t len)
{
	if (l->count)
		shb_rpt_ms(buf, len, l->pct[i]);
	else
		snprintf(buf, len, "-");
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
	head_row(o, u ? h3 : h2, u ? 3 : 2);
	for (size_t i = 0; i < c->npct; i++) {
		snprintf(name, sizeof(name), "%s%%",
			 shb_rpt_pct_label(a, sizeof(a), c->ppm[i], '.'));
		latency_cells(c, i, a, sizeof(a));
		if (u)
			latency_cells(u, i, b, sizeof(b));
		const char *cells[] = {name, a, b};
		row(o, cells, u ? 3 : 2);
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
		row(o, cells, u ? 3 : 2);
	}
	shb_rpt_puts(o, "</table>\n");
}

static void latency_section(struct shb_rpt_out *o, const struct shb_host *host,
			    unsigned idx, const struct shb_run_info *run,
			    const struct shb_results *r, struct spectrum *sp)
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
				    "server or client fell behind." : "");
	}
	percentile_table(o, &c, uh ? &u : NULL);
}

/* ---- the time series ---------------------------------------------------- */

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
static void add_point(struct html *h, const struct html_point *p)
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
		.ymax = fmax(max_of(t->ok, h->n), max_of(t->err, h->n)),
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
	c.ymax = fmax(max_of(t->p99, h->n), max_of(t->p50, h->n));
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

static int timeline_section(struct shb_rpt_out *o, struct html *h,
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
		shb_rpt_printf(o, " of %s s", secs(a, sizeof(a), run->interval_ns));
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

/* ---- set-up, targets, statuses, errors ------------------------------------ */

static void setup_section(struct shb_rpt_out *o, const struct shb_host *host,
			  const struct shb_results *r)
{
	static const char *const names[SHB_RPT_SETUP_COUNT] = {
		"connect", "TLS or QUIC handshake", "first byte",
	};
	static const char *const head[] = {"phase", "count", "min", "p50",
					   "p90", "p99", "max"};
	struct shb_rpt_setup s;
	shb_rpt_read_setup(host, r, &s);
	if (!s.any)
		return;
	shb_rpt_puts(o, "<h3>Connection set-up, ms</h3>\n<table class=\"setup\">\n");
	head_row(o, head, 7);
	for (int i = 0; i < SHB_RPT_SETUP_COUNT; i++) {
		const struct shb_rpt_latency *l = &s.h[i];
		if (!l->count)
			continue;
		char v[6][32];
		uint64_t x[5] = {l->min, l->pct[0], l->pct[1], l->pct[2], l->max};
		u64s(v[0], sizeof(v[0]), l->count);
		for (int k = 0; k < 5; k++)
			shb_rpt_ms(v[k + 1], sizeof(v[k + 1]), x[k]);
		const char *cells[] = {names[i], v[0], v[1], v[2], v[3], v[4], v[5]};
		row(o, cells, 7);
	}
	shb_rpt_puts(o, "</table>\n<p class=\"note\">Connect and handshake: once "
		     "per connection. First byte: from the send to the first "
		     "byte of the response, per request counted ok.</p>\n");
}

static void targets_section(struct shb_rpt_out *o, const struct shb_host *host,
			    const struct shb_run_info *run,
			    const struct shb_results *r)
{
	static const char *const head[] = {"target", "URL", "ok", "errors",
					   "ok/s", "p50, ms", "p99, ms"};
	size_t n = shb_rpt_target_count(r);
	if (n == 0)
		return;
	shb_rpt_puts(o, "<h3>Targets</h3>\n<table class=\"targets\">\n");
	head_row(o, head, 7);
	for (size_t i = 0; i < n; i++) {
		const struct shb_target_info *ti;
		const struct shb_results *t = shb_rpt_target(r, run, i, &ti);
		if (!t)
			continue;
		struct shb_rpt_pcts p = {2, {500000, 990000}};
		struct shb_rpt_latency l;
		char v[5][32];
		shb_rpt_read_hist(host, t->latency, &p, &l);
		u64s(v[0], sizeof(v[0]), t->requests_ok);
		u64s(v[1], sizeof(v[1]), t->requests_errors);
		one_decimal(v[2], sizeof(v[2]), shb_rpt_per_sec(t->requests_ok, t->elapsed_ns));
		latency_cells(&l, 0, v[3], sizeof(v[3]));
		latency_cells(&l, 1, v[4], sizeof(v[4]));
		const char *cells[] = {ti ? ti->label : "", ti ? ti->url : "",
				       v[0], v[1], v[2], v[3], v[4]};
		row(o, cells, 7);
	}
	shb_rpt_puts(o, "</table>\n");
}

static void status_section(struct shb_rpt_out *o, const struct shb_results *r)
{
	static const char *const head[] = {"status", "responses"};
	char a[32], b[32];
	shb_rpt_puts(o, "<h3>Status codes</h3>\n");
	if (r->status_count == 0) {
		shb_rpt_puts(o, "<p class=\"note\">No response had a status.</p>\n");
		return;
	}
	shb_rpt_puts(o, "<table class=\"statuses\">\n");
	head_row(o, head, 2);
	for (size_t i = 0; i < r->status_count; i++) {
		const char *cells[] = {u64s(a, sizeof(a), r->statuses[i].code),
				       u64s(b, sizeof(b), r->statuses[i].count)};
		row(o, cells, 2);
	}
	shb_rpt_puts(o, "</table>\n");
	const struct shb_app_count *ap;
	size_t n = shb_rpt_app_outcomes(r, &ap);
	if (n == 0)
		return;
	static const char *const ahead[] = {"application outcome", "code",
					    "count", "counted"};
	shb_rpt_puts(o, "<table class=\"app-outcomes\">\n");
	head_row(o, ahead, 4);
	for (size_t i = 0; i < n; i++) {
		char sp[32], c[32], k[32];
		const char *cells[] = {shb_rpt_app_space(sp, sizeof(sp), ap[i].space),
				       u64s(c, sizeof(c), ap[i].code),
				       u64s(k, sizeof(k), ap[i].count),
				       ap[i].ok ? "ok" : "failed"};
		row(o, cells, 4);
	}
	shb_rpt_puts(o, "</table>\n");
}

static void error_row(struct shb_rpt_out *o, const char *kind, uint64_t count,
		      const char *sample)
{
	char a[32];
	shb_rpt_printf(o, "<tr><th>%s</th><td>%s</td><td class=\"text\">", kind,
		       u64s(a, sizeof(a), count));
	esc(o, sample);
	shb_rpt_puts(o, "</td></tr>\n");
}

static void error_codes(struct shb_rpt_out *o, const struct shb_results *r)
{
	static const char *const head[] = {"kind", "space", "code", "count"};
	const struct shb_code_count *c;
	size_t n = shb_rpt_error_codes(r, &c);
	if (n == 0)
		return;
	shb_rpt_puts(o, "<table class=\"error-codes\">\n");
	head_row(o, head, 4);
	for (size_t i = 0; i < n; i++) {
		char sp[32], code[32], k[32];
		const char *cells[] = {shb_rpt_err_kind(c[i].kind),
				       shb_rpt_err_space(sp, sizeof(sp), c[i].space),
				       u64s(code, sizeof(code), c[i].code),
				       u64s(k, sizeof(k), c[i].count)};
		row(o, cells, 4);
	}
	shb_rpt_puts(o, "</table>\n");
}

static void error_section(struct shb_rpt_out *o, const struct shb_results *r)
{
	static const char *const head[] = {"kind", "count", "first message seen"};
	struct shb_rpt_errors e;
	shb_rpt_sum_errors(r, &e);
	shb_rpt_puts(o, "<h3>Errors</h3>\n");
	if (r->requests_errors == 0 && e.other == 0) {
		int any = 0;
		for (int k = 0; k < e.kinds; k++)
			any |= e.count[k] != 0;
		if (!any) {
			shb_rpt_puts(o, "<p class=\"note\">None.</p>\n");
			return;
		}
	}
	shb_rpt_puts(o, "<table class=\"errors\">\n");
	head_row(o, head, 3);
	for (int k = 0; k < e.kinds; k++)
		if (e.count[k])
			error_row(o, shb_rpt_err_names[k], e.count[k], e.sample[k]);
	if (e.other)
		error_row(o, "other", e.other, e.other_sample);
	shb_rpt_puts(o, "</table>\n");
	error_codes(o, r);
}

/* ---- one run ------------------------------------------------------------------ */

static int section(struct shb_rpt_out *o, struct html *h,
		   const struct shb_run_info *run, const struct shb_results *r,
		   struct spectrum *sp)
{
	const struct shb_host *host = h->g->host;
	shb_rpt_printf(o, "<section class=\"run\" id=\"run-%u\">\n<h2>", h->sections);
	if (run_label(run)) {
		esc(o, run_label(run));
		shb_rpt_puts(o, ": ");
	}
	esc(o, run->method);
	shb_rpt_puts(o, " ");
	esc(o, run->url);
	shb_rpt_puts(o, "</h2>\n");
	if (r->interrupted)
		shb_rpt_puts(o, "<p class=\"warn\">Interrupted: the figures cover "
			     "what was measured until the signal.</p>\n");
	run_facts(o, host, run, r);
	totals(o, run, r);
	latency_section(o, host, h->sections, run, r, sp);
	int rc = timeline_section(o, h, run);
	setup_section(o, host, r);
	targets_section(o, host, run, r);
	status_section(o, r);
	error_section(o, r);
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
	struct spectrum *sp = malloc(2 * sizeof(*sp));
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
	add_point(h, &p);
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
