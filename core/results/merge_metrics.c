/* shb merge and the protocol's metrics: see merge_metrics.h. */
#include "results/merge_metrics.h"

#include <string.h>

#include "common/outcome_names.h"
#include "common/quote.h"
#include "loader/loader_metrics.h"
#include "results/merge_json.h"

static int bad(const char *name, const char *metric, const char *why,
	       char *err, size_t errlen)
{
	return shb_errf(err, errlen, "%s: metrics.%s: %s", name,
			shb_quote_n(metric, 40).s, why);
}

/* Null, or a string a reporter may print as is. */
static int text_ok(const json_t *v, size_t max, const char **out)
{
	*out = json_string_value(v);
	if (!v || json_is_null(v))
		return 1;
	return *out && shb_metric_text_ok(*out, max);
}

static int def_of(struct shb_metric_def *d, const char *name, const char *key,
		  const json_t *v, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	if (!shb_metric_name_ok(key))
		return bad(name, key, "not a metric name ([a-z][a-z0-9_], 1 to 32 "
			   "bytes)", err, errlen);
	d->name = key;
	d->kind = shb_metric_kind_of(json_string_value(json_object_get(v, "kind")));
	if (!json_is_object(v) || !d->kind)
		return bad(name, key, "kind is not counter, latency or value", err,
			   errlen);
	if (!text_ok(json_object_get(v, "unit"), SHB_METRIC_UNIT_MAX, &d->unit) ||
	    !text_ok(json_object_get(v, "help"), SHB_METRIC_HELP_MAX, &d->help))
		return bad(name, key, "unit or help is not short printable ASCII",
			   err, errlen);
	return 0;
}

int shb_merge_metrics_take(struct shb_merge_metrics *t, const char *name,
			   const json_t *doc, char *err, size_t errlen)
{
	const json_t *ms = json_object_get(doc, "metrics"), *v;
	const char *key;

	t->n = 0;
	if (!ms)
		return 0;
	if (!json_is_object(ms))
		return shb_errf(err, errlen, "%s: metrics is not an object", name);
	if (json_object_size(ms) > SHB_METRIC_MAX)
		return shb_errf(err, errlen, "%s: metrics has more than %u metrics",
				name, SHB_METRIC_MAX);
	json_object_foreach((json_t *)ms, key, v) {
		if (def_of(&t->defs[t->n], name, key, v, err, errlen) < 0)
			return -1;
		t->n++;
	}
	return 0;
}

/* One metric of the report into s->metrics index i. */
static int read_one(struct shb_stats *s, uint32_t i, const char *name,
		    const json_t *v, char *err, size_t errlen)
{
	const struct shb_metric_def *d = &s->metrics.defs[i];
	const json_t *c = json_object_get(v, "count");
	if (!json_is_integer(c) || json_integer_value(c) < 0)
		return bad(name, d->name, "count is not a count", err, errlen);
	if (d->kind == SHB_METRIC_COUNTER) {
		s->metrics.count[i] = shb_mj_u64(c);
		return 0;
	}
	char key[64];
	snprintf(key, sizeof(key), "metrics.%s.histogram", d->name);
	/* A latency's summary is in seconds, like the report's latencies;
	 * a value's numbers come from the buckets (exact below 2048). */
	if (shb_merge_histo_from(&s->metrics.hist[i], name, key,
				 json_object_get(v, "histogram"),
				 d->kind == SHB_METRIC_LATENCY ? v : NULL, err,
				 errlen) < 0)
		return -1;
	if (s->metrics.hist[i].total != shb_mj_u64(c))
		return bad(name, d->name, "histogram does not hold count values",
			   err, errlen);
	return 0;
}

int shb_merge_metrics_read(const struct shb_merge_metrics *t,
			   struct shb_stats *s, const char *name,
			   const json_t *doc, char *err, size_t errlen)
{
	const json_t *ms = json_object_get(doc, "metrics");
	size_t n = json_is_object(ms) ? json_object_size(ms) : 0;

	if (n != t->n || (ms && !json_is_object(ms)))
		return shb_errf(err, errlen, "%s: metrics differ from the first "
				"report's (%zu metrics, not %u)", name, n, t->n);
	if (shb_metrics_init(&s->metrics, t->defs, t->n) < 0)
		return shb_errf(err, errlen, "out of memory");
	for (uint32_t i = 0; i < t->n; i++) {
		const json_t *v = json_object_get(ms, t->defs[i].name);
		if (!v || shb_metric_kind_of(json_string_value(
				  json_object_get(v, "kind"))) != t->defs[i].kind)
			return bad(name, t->defs[i].name, "missing, or of another "
				   "kind than in the first report", err, errlen);
		if (read_one(s, i, name, v, err, errlen) < 0)
			return -1;
	}
	return 0;
}

int shb_merge_metrics_ival(const struct shb_merge_metrics *t, uint64_t *sums,
			   const json_t *v, const char *name, char *err,
			   size_t errlen)
{
	const json_t *ms = json_object_get(v, "metrics");
	for (uint32_t i = 0; ms && i < t->n; i++) {
		const json_t *c = json_object_get(json_object_get(ms, t->defs[i].name),
						  "count");
		if (shb_mj_add(&sums[i], shb_mj_u64(c)) < 0)
			return shb_errf(err, errlen, "%s: intervals: metric counts "
					"whose sum passes 2^63", name);
	}
	return 0;
}

void shb_merge_metrics_ival_json(const struct shb_merge_metrics *t,
				 const uint64_t *sums, json_t *o)
{
	if (!t->n)
		return;
	json_t *ms = json_object();
	for (uint32_t i = 0; i < t->n; i++) {
		json_t *x = json_object();
		json_object_set_new(x, "count", json_integer((json_int_t)sums[i]));
		json_object_set_new(ms, t->defs[i].name, x);
	}
	json_object_set_new(o, "metrics", ms);
}
