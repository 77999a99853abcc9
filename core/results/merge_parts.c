/* shb merge's additions to the merged report (merge.h): a line per report
 * merged, the start skew between them, and their intervals aligned on the
 * wall clock. [main] only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/hdrv2.h"
#include "results/merge_json.h"
#include "results/merge.h"
#include "common/quote.h"

static json_t *secs(uint64_t ns)
{
	return json_real((double)ns / 1e9);
}

/* Every report's load start; 0 in *lo when one is unknown. */
static void load_span(const struct shb_merge *m, uint64_t *lo, uint64_t *hi)
{
	*lo = *hi = 0;
	for (size_t i = 0; i < json_array_size(m->docs); i++) {
		uint64_t t = shb_merge_load_start(json_array_get(m->docs, i));
		if (!t) {
			*lo = *hi = 0;
			return;
		}
		if (!*lo || t < *lo)
			*lo = t;
		if (t > *hi)
			*hi = t;
	}
}

static json_t *rfc3339(uint64_t ns)
{
	time_t s = (time_t)(ns / 1000000000u);
	struct tm tm;
	char buf[48];
	if (!ns || !gmtime_r(&s, &tm))
		return json_null();
	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%09uZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (unsigned)(ns % 1000000000u));
	return json_string(buf);
}

/* ---- one line per report ------------------------------------------------- */

static json_t *part(const json_t *doc, const char *name, uint64_t first)
{
	const json_t *req = json_object_get(doc, "requests");
	const json_t *pct = json_object_get(json_object_get(doc, "latencySeconds"),
					    "percentiles");
	const json_t *sh = json_object_get(doc, "shard");
	uint64_t t = shb_merge_load_start(doc);
	json_t *o = json_object();
	json_t *lat = pct ? json_object() : json_null();
	if (pct) {
		json_object_set(lat, "p50", json_object_get(pct, "p50"));
		json_object_set(lat, "p99", json_object_get(pct, "p99"));
	}
	json_object_set_new(o, "file", json_string(name));
	json_object_set_new(o, "shard", json_is_object(sh) ? json_deep_copy(sh) :
			    json_null());
	json_object_set_new(o, "loadStart", rfc3339(t));
	json_object_set_new(o, "startOffsetSeconds", t && first ?
			    secs(t - first) : json_null());
	json_object_set_new(o, "requests", json_integer((json_int_t)shb_mj_u64(
				    json_object_get(req, "total"))));
	json_object_set_new(o, "errors", json_integer((json_int_t)shb_mj_u64(
				    json_object_get(req, "errors"))));
	json_object_set(o, "requestsPerSec", json_object_get(doc, "requestsPerSec"));
	json_object_set(o, "durationSeconds", json_object_get(doc, "durationSeconds"));
	json_object_set_new(o, "latencySeconds", lat);
	return o;
}

/* ---- intervals on the wall clock ----------------------------------------- */

/* Where a report's intervals start on the wall clock: its load start,
 * then --warmup; 0 when unknown. */
static uint64_t measure_start(const json_t *doc)
{
	uint64_t t = shb_merge_load_start(doc);
	return t ? t + shb_mj_ns(json_object_get(doc, "warmupSeconds")) : 0;
}

/* The merged series: bins of `len` ns from `t0`, each report's interval
 * in the bin nearest its own wall-clock start. */
struct ival_grid {
	uint64_t t0, len;
	size_t bins;
};

static int grid_of(const struct shb_merge *m, struct ival_grid *g,
		   char *err, size_t errlen)
{
	memset(g, 0, sizeof(*g));
	int any = 0;
	uint64_t step = 0;
	for (size_t i = 0; i < json_array_size(m->docs); i++) {
		const json_t *doc = json_array_get(m->docs, i);
		const json_t *iv = json_object_get(doc, "intervals");
		size_t k;
		const json_t *v;
		if (!json_array_size(iv))
			continue;
		uint64_t t = measure_start(doc);
		if (!t)
			return shb_errf(err, errlen, "%s: intervals, but no start time "
				    "to place them", json_string_value(
					    json_array_get(m->names, i)));
		any = 1;
		if (!g->t0 || t < g->t0)
			g->t0 = t;
		/* Interval i starts at i times the interval (tseries.c): the
		 * length, exact, from a start; the duration of a lone one
		 * otherwise (a run shorter than one interval). */
		json_array_foreach(iv, k, v) {
			uint64_t st = shb_mj_ns(json_object_get(v, "startSeconds"));
			uint64_t idx = shb_mj_u64(json_object_get(v, "index"));
			if (idx && st && !step)
				step = (st + idx / 2) / idx;
			uint64_t d = shb_mj_ns(json_object_get(v, "durationSeconds"));
			if (d > g->len)
				g->len = d;
		}
	}
	if (step)
		g->len = step;
	return any && !g->len ? shb_errf(err, errlen, "intervals of no length") : 0;
}

/* The bin of interval v of doc. Times and lengths are below 2^63 ns
 * (merge_json.h), so nothing wraps; w >= t0, the earliest start. */
static uint64_t bin_of(const struct ival_grid *g, const json_t *doc,
		       const json_t *v)
{
	uint64_t w = measure_start(doc) + shb_mj_ns(json_object_get(v, "startSeconds"));
	return (w - g->t0 + g->len / 2) / g->len;
}

/* The merged series has at most twice as many intervals as the reports
 * together, or BINS_FLOOR: room for shards that started far apart, while
 * an interval placed ages after its run (or bins of 1 ns) cannot make
 * the merge write millions of empty ones. */
#define BINS_FLOOR 100000u

/* One report interval and the bin it falls in. */
struct ival_ref {
	uint64_t bin;
	size_t doc, j;
};

static int by_bin(const void *a, const void *b)
{
	const struct ival_ref *x = a, *y = b;
	if (x->bin != y->bin)
		return x->bin < y->bin ? -1 : 1;
	if (x->doc != y->doc)
		return x->doc < y->doc ? -1 : 1;
	return (x->j > y->j) - (x->j < y->j);
}

/* Every report interval with its bin, in bin order (then report, then
 * index); *n of them in *bins bins. NULL with err when one lies beyond
 * the bins allowed, or out of memory. */
static struct ival_ref *place(const struct shb_merge *m,
			      const struct ival_grid *g, size_t *n,
			      uint64_t *bins, char *err, size_t errlen)
{
	size_t all = 0, k = 0;
	for (size_t i = 0; i < json_array_size(m->docs); i++)
		all += json_array_size(json_object_get(json_array_get(m->docs, i),
						       "intervals"));
	uint64_t cap = 2 * (uint64_t)all > BINS_FLOOR ? 2 * (uint64_t)all : BINS_FLOOR;
	struct ival_ref *r = malloc((all ? all : 1) * sizeof(*r));
	if (!r) {
		shb_errf(err, errlen, "out of memory");
		return NULL;
	}
	*bins = 0;
	for (size_t i = 0; i < json_array_size(m->docs); i++) {
		const json_t *doc = json_array_get(m->docs, i);
		const json_t *iv = json_object_get(doc, "intervals");
		for (size_t j = 0; j < json_array_size(iv); j++) {
			uint64_t b = bin_of(g, doc, json_array_get(iv, j));
			if (b >= cap) {
				free(r);
				shb_errf(err, errlen, "%s: intervals: interval %zu "
					 "would be the merged series' interval %llu "
					 "of %.3f s (at most %llu: reports too far "
					 "apart, or an interval far beyond its run)",
					 json_string_value(json_array_get(m->names, i)),
					 j, (unsigned long long)b, (double)g->len / 1e9,
					 (unsigned long long)cap);
				return NULL;
			}
			r[k++] = (struct ival_ref){b, i, j};
			*bins = b + 1 > *bins ? b + 1 : *bins;
		}
	}
	qsort(r, k, sizeof(*r), by_bin);
	*n = k;
	return r;
}

/* shb's percentile rule: the value of rank ceil(p * count) reported as
 * its bucket's highest value, never above the max. */
static uint64_t value_at(const struct shb_hdr_counts *c, double p, uint64_t max)
{
	uint64_t rank = (uint64_t)ceil(p * (double)c->total), seen = 0;
	if (rank < 1)
		rank = 1;
	for (int32_t i = 0; i <= c->max_index; i++) {
		seen += c->counts[i];
		if (seen >= rank) {
			uint64_t lo, hi;
			shb_hdr_bounds(i, &lo, &hi);
			return hi < max ? hi : max;
		}
	}
	return max;
}

struct bin_sum {
	uint64_t ok, errors, sent, recv, len, max;
	int exact; /* every ok request's histogram known */
	/* 1.4: answered requests, known when every interval of the bin gives
	 * them; the error replies' histogram in `er` */
	uint64_t answered;
	int answered_all;
	struct shb_hdr_counts *er;
	/* 1.4: the protocol's metric counts, by the merge's metric set */
	uint64_t metric[SHB_METRIC_MAX];
};

/* 1.4: an interval's answered requests and the histogram of its error
 * replies (answered minus ok of them; absent when none). */
static int bin_add14(struct bin_sum *b, const json_t *v, uint64_t ok,
		     const char *name, char *err, size_t errlen)
{
	const json_t *ans = json_object_get(v, "answered");
	uint64_t a = shb_mj_u64(ans);
	if (!ans) {
		b->answered_all = 0;
		return 0;
	}
	if (a < ok || shb_mj_add(&b->answered, a) < 0)
		return shb_errf(err, errlen, "%s: an interval's answered is below "
				"its ok, or sums past 2^63", name);
	const char *h = json_string_value(json_object_get(v, "latencyErrorReplyHistogram"));
	char herr[160];
	uint64_t before = b->er->total;
	if (h && shb_hdr_decode(h, b->er, herr, sizeof(herr)) < 0)
		return shb_errf(err, errlen, "%s: intervals: %s", name, herr);
	if (b->er->total - before != a - ok)
		return shb_errf(err, errlen, "%s: an interval's latencyErrorReply"
				"Histogram holds %llu values, its answered minus ok "
				"is %llu", name,
				(unsigned long long)(b->er->total - before),
				(unsigned long long)(a - ok));
	return 0;
}

/* Adds one report interval to the bin: its counts, and its histogram. */
static int bin_add(const struct shb_merge *m, struct bin_sum *b,
		   struct shb_hdr_counts *c, const json_t *v, const char *name,
		   char *err, size_t errlen)
{
	uint64_t ok = shb_mj_u64(json_object_get(v, "ok"));
	if (shb_mj_add(&b->ok, ok) < 0 ||
	    shb_mj_add(&b->errors, shb_mj_u64(json_object_get(v, "errors"))) < 0 ||
	    shb_mj_add(&b->sent, shb_mj_u64(json_object_get(v, "bytesSent"))) < 0 ||
	    shb_mj_add(&b->recv, shb_mj_u64(json_object_get(v, "bytesReceived"))) < 0)
		return shb_errf(err, errlen, "%s: intervals: counts whose sum "
			    "passes 2^63", name);
	uint64_t d = shb_mj_ns(json_object_get(v, "durationSeconds"));
	b->len = d > b->len ? d : b->len;
	uint64_t mx = shb_mj_ns(json_object_get(json_object_get(v, "latency"), "max"));
	b->max = mx > b->max ? mx : b->max;
	const char *h = json_string_value(json_object_get(v, "latencyHistogram"));
	if (bin_add14(b, v, ok, name, err, errlen) < 0 ||
	    shb_merge_metrics_ival(&m->metrics, b->metric, v, name, err, errlen) < 0)
		return -1;
	if (!ok)
		return 0;
	if (!h) {
		b->exact = 0;
		return 0;
	}
	char herr[160];
	uint64_t before = c->total;
	if (shb_hdr_decode(h, c, herr, sizeof(herr)) < 0)
		return shb_errf(err, errlen, "%s: intervals: %s", name, herr);
	if (c->total - before != ok)
		return shb_errf(err, errlen, "%s: an interval's latencyHistogram "
			    "holds %llu values, its ok is %llu", name,
			    (unsigned long long)(c->total - before),
			    (unsigned long long)ok);
	return 0;
}

static json_t *bin_json(const struct shb_merge *m, size_t k,
			const struct ival_grid *g, const struct bin_sum *b,
			const struct shb_hdr_counts *c)
{
	json_t *o = json_object();
	json_object_set_new(o, "index", json_integer((json_int_t)k));
	json_object_set_new(o, "startSeconds", secs(k * g->len));
	json_object_set_new(o, "durationSeconds", secs(b->len));
	json_object_set_new(o, "ok", json_integer((json_int_t)b->ok));
	json_object_set_new(o, "errors", json_integer((json_int_t)b->errors));
	if (b->answered_all) {
		json_object_set_new(o, "answered", json_integer((json_int_t)b->answered));
		char *e64 = b->er->total ? shb_hdr_encode(b->er) : NULL;
		if (e64)
			json_object_set_new(o, "latencyErrorReplyHistogram",
					    json_string(e64));
		free(e64);
	}
	json_object_set_new(o, "requestsPerSec", json_real(
		b->len ? (double)b->ok * 1e9 / (double)b->len : 0));
	json_object_set_new(o, "bytesSent", json_integer((json_int_t)b->sent));
	json_object_set_new(o, "bytesReceived", json_integer((json_int_t)b->recv));
	shb_merge_metrics_ival_json(&m->metrics, b->metric, o);
	if (!b->ok || !b->exact) {
		json_object_set_new(o, "latency", json_null());
		json_object_set_new(o, "latencyHistogram", json_null());
		return o;
	}
	json_t *lat = json_object();
	json_object_set_new(lat, "p50", secs(value_at(c, 0.50, b->max)));
	json_object_set_new(lat, "p90", secs(value_at(c, 0.90, b->max)));
	json_object_set_new(lat, "p99", secs(value_at(c, 0.99, b->max)));
	json_object_set_new(lat, "max", secs(b->max));
	json_object_set_new(o, "latency", lat);
	char *b64 = shb_hdr_encode(c);
	json_object_set_new(o, "latencyHistogram", b64 ? json_string(b64) :
			    json_null());
	free(b64);
	return o;
}

static void counts_clear(struct shb_hdr_counts *c)
{
	memset(c->counts, 0, (size_t)(c->max_index + 1) * sizeof(*c->counts));
	c->total = 0;
	c->max_index = -1;
}

/* One bin at a time: a histogram's counts are 270 KB. The intervals come
 * in bin order, so each is looked at once. */
static json_t *merged_intervals(const struct shb_merge *m,
				const struct ival_grid *g, char *err,
				size_t errlen)
{
	size_t n = 0, at = 0;
	uint64_t bins = 0;
	struct ival_ref *r = place(m, g, &n, &bins, err, errlen);
	if (!r)
		return NULL;
	struct shb_hdr_counts c, er;
	json_t *arr = json_array();
	if (!arr || shb_hdr_counts_init(&c) < 0) {
		json_decref(arr);
		free(r);
		shb_errf(err, errlen, "out of memory");
		return NULL;
	}
	if (shb_hdr_counts_init(&er) < 0) {
		shb_hdr_counts_free(&c);
		json_decref(arr);
		free(r);
		shb_errf(err, errlen, "out of memory");
		return NULL;
	}
	for (uint64_t k = 0; k < bins && arr; k++) {
		struct bin_sum b = {.exact = 1, .answered_all = 1, .er = &er};
		/* nothing above max_index: a decode refused adds nothing */
		counts_clear(&c);
		counts_clear(&er);
		for (; at < n && r[at].bin == k && arr; at++) {
			const json_t *doc = json_array_get(m->docs, r[at].doc);
			const json_t *v = json_array_get(json_object_get(doc, "intervals"),
							 r[at].j);
			const char *name = json_string_value(json_array_get(m->names,
									    r[at].doc));
			if (bin_add(m, &b, &c, v, name, err, errlen) < 0) {
				json_decref(arr);
				arr = NULL;
			}
		}
		if (arr && json_array_append_new(arr, bin_json(m, (size_t)k, g, &b, &c)) < 0) {
			json_decref(arr);
			arr = NULL;
			shb_errf(err, errlen, "out of memory");
		}
	}
	shb_hdr_counts_free(&c);
	shb_hdr_counts_free(&er);
	free(r);
	return arr;
}

int shb_merge_extend(const struct shb_merge *m, json_t *report, char *err,
		     size_t errlen)
{
	uint64_t lo, hi;
	load_span(m, &lo, &hi);
	json_t *parts = json_array();
	for (size_t i = 0; parts && i < json_array_size(m->docs); i++)
		if (json_array_append_new(parts, part(json_array_get(m->docs, i),
				json_string_value(json_array_get(m->names, i)), lo)) < 0) {
			json_decref(parts);
			parts = NULL;
		}
	if (!parts)
		return shb_errf(err, errlen, "out of memory");
	json_object_set_new(report, "loadStart", rfc3339(lo));
	json_object_set_new(report, "startSkewSeconds", lo ? secs(hi - lo) :
			    json_null());
	json_object_set_new(report, "shards", parts);
	struct ival_grid g;
	if (grid_of(m, &g, err, errlen) < 0)
		return -1;
	if (!g.len)
		return 0;
	json_t *iv = merged_intervals(m, &g, err, errlen);
	if (!iv)
		return -1;
	json_object_set_new(report, "intervals", iv);
	return 0;
}

void shb_merge_text(const struct shb_merge *m, FILE *f)
{
	uint64_t lo, hi;
	load_span(m, &lo, &hi);
	size_t n = json_array_size(m->docs);
	fprintf(f, "Shards:       %zu report%s merged", n, n == 1 ? "" : "s");
	if (lo)
		fprintf(f, ", start skew %.3f ms (load starts, as each "
			"machine's clock says)\n", (double)(hi - lo) / 1e6);
	else
		fputs(", start skew unknown\n", f);
	for (size_t i = 0; i < json_array_size(m->docs); i++) {
		json_t *p = part(json_array_get(m->docs, i),
				 json_string_value(json_array_get(m->names, i)), lo);
		const json_t *sh = json_object_get(p, "shard");
		const json_t *lat = json_object_get(p, "latencySeconds");
		char id[32] = "-";
		if (json_is_object(sh))
			snprintf(id, sizeof(id), "%lld/%lld",
				 (long long)json_integer_value(json_object_get(sh, "index")),
				 (long long)json_integer_value(json_object_get(sh, "count")));
		fprintf(f, "  %-9s %10lld requests %8lld errors %12.1f/s  "
			"p50 %.3f ms  p99 %.3f ms  ",
			id, (long long)json_integer_value(json_object_get(p, "requests")),
			(long long)json_integer_value(json_object_get(p, "errors")),
			json_number_value(json_object_get(p, "requestsPerSec")),
			json_number_value(json_object_get(lat, "p50")) * 1e3,
			json_number_value(json_object_get(lat, "p99")) * 1e3);
		const json_t *off = json_object_get(p, "startOffsetSeconds");
		if (json_is_number(off))
			fprintf(f, "start +%.3f ms  ", json_number_value(off) * 1e3);
		fprintf(f, "%s\n", json_string_value(json_object_get(p, "file")));
		json_decref(p);
	}
}
