/* A protocol's metrics in the reports: see report_metrics.h. */
#include "report_metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t shb_rpt_metrics(const struct shb_results *r,
		       const struct shb_metric_value **m)
{
	*m = NULL;
	if (!SHB_RPT_HAS(r, struct shb_results, metric_count) || !r->metrics)
		return 0;
	*m = r->metrics;
	return r->metric_count > SHB_METRIC_MAX ? SHB_METRIC_MAX : r->metric_count;
}

static int is_hist(uint32_t kind)
{
	return kind == SHB_METRIC_LATENCY || kind == SHB_METRIC_VALUE;
}

void shb_rpt_metric_read(const struct shb_host *host,
			 const struct shb_metric_value *m,
			 struct shb_rpt_metric *out)
{
	memset(out, 0, sizeof(*out));
	out->count = m->count;
	out->hist = is_hist(m->kind) && m->hist;
	if (!out->hist)
		return;
	struct shb_rpt_pcts p = {3, {500000, 900000, 990000}};
	struct shb_rpt_latency l;
	shb_rpt_read_hist(host, m->hist, &p, &l);
	if (!l.count)
		return;
	out->mean = l.mean;
	out->p50 = l.pct[0];
	out->p90 = l.pct[1];
	out->p99 = l.pct[2];
	out->max = l.max;
}

char *shb_rpt_metric_text(char *buf, size_t len, uint32_t kind, uint64_t v)
{
	if (kind == SHB_METRIC_LATENCY)
		return shb_rpt_ms(buf, len, v);
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static void print_one(struct shb_rpt_out *o, const struct shb_host *host,
		      const struct shb_metric_value *m, int nw)
{
	struct shb_rpt_metric v;
	char a[32], b[32], c[32], d[32], e[32];
	shb_rpt_metric_read(host, m, &v);
	const char *unit = m->unit ? m->unit : is_hist(m->kind) ? "values" : NULL;
	shb_rpt_printf(o, "  %-*s  %llu%s%s", nw, shb_rpt_str(m->name),
		       (unsigned long long)v.count, unit ? " " : "",
		       unit ? unit : "");
	if (v.hist && v.count) {
		uint32_t k = m->kind;
		shb_rpt_printf(o, ", %s mean %s, p50 %s, p90 %s, p99 %s, max %s",
			       k == SHB_METRIC_LATENCY ? "latency (ms)" : "value",
			       shb_rpt_metric_text(a, sizeof(a), k, v.mean),
			       shb_rpt_metric_text(b, sizeof(b), k, v.p50),
			       shb_rpt_metric_text(c, sizeof(c), k, v.p90),
			       shb_rpt_metric_text(d, sizeof(d), k, v.p99),
			       shb_rpt_metric_text(e, sizeof(e), k, v.max));
	}
	shb_rpt_puts(o, "\n");
}

void shb_rpt_print_metrics(struct shb_rpt_out *o, const struct shb_host *host,
			   const struct shb_results *r)
{
	const struct shb_metric_value *m;
	size_t n = shb_rpt_metrics(r, &m);
	int nw = 1;
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		if ((int)strlen(shb_rpt_str(m[i].name)) > nw)
			nw = (int)strlen(shb_rpt_str(m[i].name));
	shb_rpt_puts(o, "Plugin metrics:\n");
	for (size_t i = 0; i < n; i++)
		print_one(o, host, &m[i], nw);
}

int shb_rpt_ival_metrics(struct shb_rpt_ival *v, const struct shb_host *host,
			 const struct shb_results *r)
{
	const struct shb_metric_value *m;
	size_t n = shb_rpt_metrics(r, &m);
	v->nmetric = 0;
	v->metric_vals = NULL;
	if (!n)
		return SHB_OK;
	v->metric_vals = calloc(2 * n, sizeof(*v->metric_vals));
	if (!v->metric_vals)
		return SHB_E_NOMEM;
	v->nmetric = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		struct shb_rpt_metric x;
		shb_rpt_metric_read(host, &m[i], &x);
		v->metric_vals[i] = x.count;
		v->metric_vals[n + i] = x.p99;
	}
	return SHB_OK;
}
