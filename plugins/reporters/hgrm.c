/* The "hgrm" reporter: the latency percentile spectrum in the text form of
 * HdrHistogram's outputPercentileDistribution (5 ticks per half distance),
 * which HdrHistogram's plotter (plotFiles.html) and wrk2's users read:
 * a header, one line per percentile step "value percentile count
 * 1/(1-percentile)", the 100% line, and three "#[...]" summary lines.
 * Values in milliseconds (option "us": microseconds).
 *
 * The steps walk the histogram's buckets through host->hist's
 * foreach_bucket exactly as HdrHistogram's percentile iterator walks its
 * counts, and each value is its bucket's highest value, as HdrHistogram
 * prints it; shb's histograms have HdrHistogram's layout (lowest 1 ns,
 * 3 significant digits), so the lines are those HdrHistogram prints for
 * the same data. The summary gives shb's exact mean, standard deviation
 * and max (HdrHistogram's own come from bucket values). Open loop: the
 * corrected latency; the uncorrected one follows, after a "#" line, and
 * so do the error replies' (ABI 1.4) when there were any. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hdrv2.h"
#include "report_common.h"
#include "report_metrics.h"

#define OPT_US (1u << 0)
#define TICKS_PER_HALF 5

static const char *const hgrm_options[] = {"us", NULL};

struct spectrum {
	struct shb_rpt_out *o;
	double unit;      /* ns per printed unit */
	uint64_t total, seen;
	double level;     /* the next percentile level to report */
};

static void line(struct spectrum *s, uint64_t value, double level)
{
	double p = level / 100;
	if (level < 100)
		shb_rpt_printf(s->o, "%12.3f %2.12f %10llu %14.2f\n",
			       (double)value / s->unit, p,
			       (unsigned long long)s->seen, 1 / (1 - p));
	else
		shb_rpt_printf(s->o, "%12.3f %2.12f %10llu\n",
			       (double)value / s->unit, p,
			       (unsigned long long)s->seen);
}

/* HdrHistogram's tick: 5 steps per half of the distance left to 100%. */
static void next_level(struct spectrum *s)
{
	double ticks = TICKS_PER_HALF *
		       pow(2, floor(log2(100 / (100 - s->level))) + 1);
	s->level += 100 / ticks;
}

/* Each bucket reports every level its cumulative count reaches; the last
 * one reports one level, then 100%. */
static int on_bucket(void *user, uint64_t lo, uint64_t hi, uint64_t count)
{
	struct spectrum *s = user;
	(void)lo;
	s->seen += count;
	if (s->seen >= s->total) {
		line(s, hi, s->level);
		line(s, hi, 100);
		return 1; /* done */
	}
	while (100.0 * (double)s->seen / (double)s->total >= s->level) {
		line(s, hi, s->level);
		next_level(s);
	}
	return 0;
}

static void spectrum(struct shb_rpt_out *o, const struct shb_host *host,
		     const struct shb_hist *h, double unit)
{
	const struct shb_hist_ops *ops = host->hist;
	struct spectrum s = {o, unit, ops->count(h), 0, 0};
	shb_rpt_puts(o, "       Value     Percentile TotalCount 1/(1-Percentile)\n\n");
	if (s.total)
		ops->foreach_bucket(h, on_bucket, &s);
	shb_rpt_printf(o, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n",
		       (double)ops->mean(h) / unit, (double)ops->stddev(h) / unit);
	shb_rpt_printf(o, "#[Max     = %12.3f, Total count    = %12llu]\n",
		       (double)ops->max(h) / unit, (unsigned long long)s.total);
	shb_rpt_printf(o, "#[Buckets = %12d, SubBuckets     = %12d]\n",
		       SHB_HDR_BUCKETS, 2 << SHB_HDR_SUB_HALF_MAG);
}

static int hgrm_end(void *rep, const struct shb_results *r)
{
	struct shb_rpt *g = rep;
	if (!shb_rpt_check(g, r))
		return SHB_E_INVAL;
	if (!g->host->hist->foreach_bucket)
		return SHB_E_UNSUPPORTED;
	double unit = (g->flags & OPT_US) ? 1e3 : 1e6;
	struct shb_rpt_out o;
	shb_rpt_out_init(&o, g->out);
	spectrum(&o, g->host, r->latency, unit);
	if (SHB_RPT_HAS(r, struct shb_results, latency_uncorrected) &&
	    r->latency_uncorrected && r->latency_uncorrected != r->latency) {
		shb_rpt_puts(&o, "# uncorrected: from the actual send\n");
		spectrum(&o, g->host, r->latency_uncorrected, unit);
	}
	/* 1.4: the error replies apart, when there were any */
	if (shb_rpt_error_replies(r)) {
		shb_rpt_puts(&o, "# error replies: answers counted as errors\n");
		spectrum(&o, g->host, r->latency_error_reply, unit);
	}
	/* 1.4: each of the protocol's latency metrics that holds values (a
	 * value metric's numbers are no times: not here) */
	const struct shb_metric_value *m;
	size_t n = shb_rpt_metrics(r, &m);
	for (size_t i = 0; i < n; i++) {
		if (m[i].kind != SHB_METRIC_LATENCY || !m[i].hist || !m[i].count)
			continue;
		shb_rpt_printf(&o, "# metric %s\n", shb_rpt_str(m[i].name));
		spectrum(&o, g->host, m[i].hist, unit);
	}
	return shb_rpt_flush(&o);
}

static int hgrm_create(const struct shb_host *host,
		       const struct shb_ostream *out, const char *options,
		       void **rep, char *err, size_t errlen)
{
	return shb_rpt_create("hgrm", hgrm_options, host, out, options, rep,
			      err, errlen);
}

static const struct shb_report_vtable hgrm_vt = {
	.struct_size = sizeof(struct shb_report_vtable),
	.create = hgrm_create,
	.begin = shb_rpt_begin,
	.sample = NULL,
	.end = hgrm_end,
	.destroy = shb_rpt_destroy,
};

/* --report-opt hgrm.KEY: the core checks keys against these. */
static const struct shb_option_def hgrm_option_defs[] = {
	{"us", NULL, "values in microseconds (default: milliseconds)"},
	{NULL, NULL, NULL},
};

const struct shb_report_desc shb_rpt_module_desc = {
	.struct_size = sizeof(struct shb_report_desc),
	.flags = 0,
	.name = "hgrm",
	.summary = "HdrHistogram percentile spectrum (.hgrm); option: us",
	.vt = &hgrm_vt,
	.option_defs = hgrm_option_defs,
};

SHB_PLUGIN_DEFINE_FULL("org.shb.report.hgrm", SHB_VERSION_STRING, "shb", NULL, "MIT",
		       shb_rpt_init, NULL, NULL, SHB_NO_PROTOCOLS,
		       SHB_REPORTERS(&shb_rpt_module_desc));
