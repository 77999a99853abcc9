/* The json reporter's protocol metrics: see json_metrics.h. */
#include "json_metrics.h"

#include "common/outcome_names.h"
#include "report_metrics.h"

/* A histogram metric's value: seconds for a latency, like every latency
 * of the report; the number itself for a value. */
static json_t *jval(uint32_t kind, uint64_t v)
{
	return kind == SHB_METRIC_LATENCY ? jsecs(v) : jint(v);
}

static json_t *jmetric(struct jb *b, const struct shb_host *host,
		       const struct shb_metric_value *m)
{
	struct shb_rpt_metric v;
	json_t *o = json_object();
	shb_rpt_metric_read(host, m, &v);
	jput(b, o, "kind", json_string(shb_metric_kind_name(m->kind)));
	jput(b, o, "unit", m->unit ? jstr(m->unit) : json_null());
	jput(b, o, "help", m->help ? jstr(m->help) : json_null());
	jput(b, o, "count", jint(v.count));
	if (!v.hist)
		return o;
	if (v.count) {
		jput(b, o, "mean", jval(m->kind, v.mean));
		jput(b, o, "p50", jval(m->kind, v.p50));
		jput(b, o, "p90", jval(m->kind, v.p90));
		jput(b, o, "p99", jval(m->kind, v.p99));
		jput(b, o, "max", jval(m->kind, v.max));
	}
	/* what shb merge adds, bucket for bucket */
	jput(b, o, "histogram", jhdr(host, m->hist));
	return o;
}

void json_metrics_put(struct jb *b, json_t *doc, const struct shb_host *host,
		      const struct shb_results *r)
{
	const struct shb_metric_value *m;
	size_t n = shb_rpt_metrics(r, &m);
	if (!n)
		return;
	json_t *o = json_object();
	for (size_t i = 0; i < n; i++)
		jput(b, o, shb_rpt_str(m[i].name), jmetric(b, host, &m[i]));
	jput(b, doc, "metrics", o);
}

void json_metrics_ival(struct jb *b, json_t *o, const struct shb_rpt_ival *v,
		       const struct shb_results *r)
{
	const struct shb_metric_value *m;
	size_t n = shb_rpt_metrics(r, &m);
	if (!n || v->nmetric != n)
		return;
	json_t *ms = json_object();
	for (size_t i = 0; i < n; i++) {
		json_t *x = json_object();
		jput(b, x, "count", jint(shb_rpt_ival_count(v, i)));
		if (m[i].kind != SHB_METRIC_COUNTER && shb_rpt_ival_count(v, i))
			jput(b, x, "p99", jval(m[i].kind, shb_rpt_ival_p99(v, i)));
		jput(b, ms, shb_rpt_str(m[i].name), x);
	}
	jput(b, o, "metrics", ms);
}
