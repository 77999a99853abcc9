/* shb merge (see merge.h): reads the JSON reports' counters and decodes
 * their histograms, checks that the runs had the same options, and sums.
 * Each report becomes one struct shb_stats, merged like a worker's. */
#include "results/merge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/hdrv2.h"
#include "results/merge_json.h"
#include "common/outcome_names.h"
#include "common/quote.h"


static const char *str(const json_t *doc, const char *key)
{
	const char *s = json_string_value(json_object_get(doc, key));
	return s ? s : "";
}

static void copy(char *dst, size_t len, const char *s)
{
	snprintf(dst, len, "%s", s);
}

/* ---- the options that must match ----------------------------------------- */

/* The run options a report records. Shards split -n, -c and the rates
 * (so with a shard they may differ, and the merged run has their sums)
 * and run at their own start time; the rest must be equal. */
static const char *const same_keys[] = {
	"schemaVersion", "url", "method", "protocolName", "parallel", "tls",
	"tlsVerify", "durationTargetSeconds", "warmupSeconds", "label",
	/* 1.4: the same protocol names its outcomes alike; --source and
	 * --unix-socket may differ from machine to machine */
	"requestModel", "success", "proxy", "connectTo", "resolve",
	"outcomeSpaces",
};

static const char *shown(const json_t *v, char *buf, size_t len)
{
	char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
	snprintf(buf, len, "%s", s ? s : "absent");
	free(s);
	return buf;
}

static int differs(const struct shb_merge *m, const char *name,
		   const char *key, const json_t *a, const json_t *b,
		   char *err, size_t errlen)
{
	if ((!a && !b) || (a && b && json_equal(a, b)))
		return 0;
	char x[96], y[96];
	return shb_errf(err, errlen, "%s: %s is %s, but %s in %s (merge needs "
		    "runs with the same options)", name, key, shown(b, y, sizeof(y)),
		    shown(a, x, sizeof(x)), m->first_name);
}

static const json_t *shard_count(const json_t *doc)
{
	return json_object_get(json_object_get(doc, "shard"), "count");
}

/* Shards: both open or closed loop, the same stages' durations. */
static int same_stage_times(const struct shb_merge *m, const char *name,
			    const json_t *ola, const json_t *olb, char *err,
			    size_t errlen)
{
	const json_t *sa = json_object_get(ola, "stages");
	const json_t *sb = json_object_get(olb, "stages");
	if (differs(m, name, "openLoop", json_is_object(ola) ? json_true() :
		    json_false(), json_is_object(olb) ? json_true() :
		    json_false(), err, errlen))
		return -1;
	if (json_array_size(sa) != json_array_size(sb))
		return differs(m, name, "openLoop.stages", sa, sb, err, errlen);
	for (size_t i = 0; i < json_array_size(sa); i++)
		if (differs(m, name, "openLoop.stages",
			    json_object_get(json_array_get(sa, i), "durationSeconds"),
			    json_object_get(json_array_get(sb, i), "durationSeconds"),
			    err, errlen))
			return -1;
	return 0;
}

static int check_same(const struct shb_merge *m, const char *name,
		      const json_t *doc, char *err, size_t errlen)
{
	const json_t *f = m->first;
	for (size_t i = 0; i < sizeof(same_keys) / sizeof(same_keys[0]); i++)
		if (differs(m, name, same_keys[i], json_object_get(f, same_keys[i]),
			    json_object_get(doc, same_keys[i]), err, errlen))
			return -1;
	const json_t *ola = json_object_get(f, "openLoop");
	const json_t *olb = json_object_get(doc, "openLoop");
	/* Shards split the rates (open_loop_of sums them); their stages
	 * must still last as long. */
	if (differs(m, name, "shard.count", shard_count(f), shard_count(doc),
		    err, errlen))
		return -1;
	if (shard_count(doc))
		return same_stage_times(m, name, ola, olb, err, errlen);
	if (differs(m, name, "openLoop.rateTarget", json_object_get(ola, "rateTarget"),
		    json_object_get(olb, "rateTarget"), err, errlen) ||
	    differs(m, name, "openLoop.stages", json_object_get(ola, "stages"),
		    json_object_get(olb, "stages"), err, errlen))
		return -1;
	/* Unsharded runs must also have had the same connections. */
	if (!shard_count(doc) &&
	    differs(m, name, "connections", json_object_get(f, "connections"),
		    json_object_get(doc, "connections"), err, errlen))
		return -1;
	return 0;
}

/* ---- histograms ------------------------------------------------------------ */

/* shb's histogram layout is the export layout: counts copy index for
 * index. Checked, since hist.c could change without hdrv2.c. */
static int layout_ok(const struct shb_histo *h)
{
	return h->counts_len == SHB_HDR_COUNTS && h->unit_magnitude == 0 &&
	       h->sub_bucket_half_count_magnitude == SHB_HDR_SUB_HALF_MAG &&
	       h->highest == SHB_HDR_HIGHEST;
}

/* Fills h (empty, of the stats' layout) from one exported histogram and
 * its summary in the same report: min, max, mean and stddev where the
 * summary has them (exact to the ns), else from the buckets. */
int shb_merge_histo_from(struct shb_histo *h, const char *name, const char *key,
			 const json_t *b64, const json_t *summary, char *err,
			 size_t errlen)
{
	if (!b64 || json_is_null(b64))
		return 0;
	if (!json_is_string(b64))
		return shb_errf(err, errlen, "%s: %s is not a string", name, key);
	if (!layout_ok(h))
		return shb_errf(err, errlen, "internal error: histogram layout");
	struct shb_hdr_counts c;
	char herr[160];
	if (shb_hdr_counts_init(&c) < 0)
		return shb_errf(err, errlen, "out of memory");
	if (shb_hdr_decode(json_string_value(b64), &c, herr, sizeof(herr)) < 0) {
		shb_hdr_counts_free(&c);
		return shb_errf(err, errlen, "%s: %s: %s", name, key, herr);
	}
	long double sum = 0;
	int32_t lo_i = -1;
	for (int32_t i = 0; i <= c.max_index; i++) {
		if (!c.counts[i])
			continue;
		uint64_t lo, hi;
		shb_hdr_bounds(i, &lo, &hi);
		if (lo_i < 0)
			lo_i = i;
		h->counts[i] = c.counts[i];
		sum += (long double)c.counts[i] * ((long double)lo + hi) / 2;
	}
	h->total = c.total;
	if (!c.total) {
		shb_hdr_counts_free(&c);
		return 0;
	}
	uint64_t blo, bhi, tlo, thi;
	shb_hdr_bounds(lo_i, &blo, &bhi);
	shb_hdr_bounds(c.max_index, &tlo, &thi);
	const json_t *v;
	h->min = (v = json_object_get(summary, "min")) ? shb_mj_ns(v) : blo;
	h->max = (v = json_object_get(summary, "max")) ? shb_mj_ns(v) : thi;
	if (h->min < blo || h->min > bhi || h->max < tlo || h->max > thi) {
		shb_hdr_counts_free(&c);
		return shb_errf(err, errlen, "%s: %s does not hold the min and max "
			    "the report gives", name, key);
	}
	long double n = (long double)c.total;
	long double mean = (v = json_object_get(summary, "mean")) ?
			   (long double)shb_mj_ns(v) : sum / n;
	h->sum = mean * n;
	/* sum_sq about the mean: n * variance. */
	h->sq_origin = (uint64_t)(mean + 0.5L);
	long double d = mean - (long double)h->sq_origin;
	if ((v = json_object_get(summary, "stddev"))) {
		long double sd = (long double)shb_mj_ns(v);
		h->sum_sq = n * (sd * sd + d * d);
	} else {
		long double sq = 0;
		for (int32_t i = lo_i; i <= c.max_index; i++) {
			uint64_t lo, hi;
			shb_hdr_bounds(i, &lo, &hi);
			long double x = ((long double)lo + hi) / 2 - h->sq_origin;
			sq += (long double)c.counts[i] * x * x;
		}
		h->sum_sq = sq;
	}
	shb_hdr_counts_free(&c);
	return 0;
}

static int histograms(struct shb_stats *s, const char *name, const json_t *doc,
		      char *err, size_t errlen)
{
	const json_t *lat = json_object_get(doc, "latencyHistogram");
	if (!lat || (json_is_null(lat) && shb_mj_u64(json_object_get(
			json_object_get(doc, "requests"), "ok"))))
		return shb_errf(err, errlen, "%s: no latencyHistogram (a report "
			    "of an shb without histogram export?)", name);
	const json_t *setup = json_object_get(doc, "setupHistograms");
	const json_t *timing = json_object_get(doc, "setupTimings");
	const json_t *unc = json_object_get(doc, "latencyUncorrectedHistogram");
	if (shb_merge_histo_from(&s->latency, name, "latencyHistogram", lat,
		       json_object_get(doc, "latencySeconds"), err, errlen) < 0 ||
	    shb_merge_histo_from(&s->connect, name, "setupHistograms.connect",
		       json_object_get(setup, "connect"),
		       json_object_get(timing, "connect"), err, errlen) < 0 ||
	    shb_merge_histo_from(&s->handshake, name, "setupHistograms.handshake",
		       json_object_get(setup, "handshake"),
		       json_object_get(timing, "handshake"), err, errlen) < 0 ||
	    shb_merge_histo_from(&s->first_byte, name, "setupHistograms.firstByte",
		       json_object_get(setup, "firstByte"),
		       json_object_get(timing, "firstByte"), err, errlen) < 0)
		return -1;
	if (unc && !json_is_null(unc)) {
		s->open_loop = 1;
		if (shb_merge_histo_from(&s->latency_uncorrected, name,
			       "latencyUncorrectedHistogram", unc,
			       json_object_get(doc, "latencyUncorrectedSeconds"),
			       err, errlen) < 0)
			return -1;
	}
	if (s->latency.total != s->ok)
		return shb_errf(err, errlen, "%s: latencyHistogram holds %llu "
			    "values, requests.ok is %llu", name,
			    (unsigned long long)s->latency.total,
			    (unsigned long long)s->ok);
	return 0;
}

/* ---- counters --------------------------------------------------------------- */


static int kind_of(const char *s)
{
	int k = shb_err_kind_of(s);
	return k >= 0 ? k : SHB_ERRK_PROTOCOL; /* "other": where shb_stats_code puts it */
}

/* The json reporter writes an overflow entry's code UINT64_MAX clamped. */
static int is_overflow(int64_t space, const json_t *code)
{
	return space == SHB_OVERFLOW_SPACE &&
	       json_integer_value(code) == INT64_MAX;
}

static int too_many(const char *name, const char *field, char *err,
		    size_t errlen)
{
	return shb_errf(err, errlen, "%s: %s: counts whose sum passes 2^63",
			name, field);
}

/* app: the run's outcome names (1.4), to map "redis" back to its number. */
static int tables(struct shb_stats *s, const struct shb_outcome_table *app,
		  const char *name, const json_t *doc, char *err, size_t errlen)
{
	size_t i;
	const json_t *e;
	json_array_foreach(json_object_get(doc, "appOutcomes"), i, e) {
		int64_t sp = shb_outcome_space_of(app, str(e, "space"));
		const json_t *code = json_object_get(e, "code");
		uint32_t ok = json_is_true(json_object_get(e, "ok"));
		uint64_t n = shb_mj_u64(json_object_get(e, "count"));
		if (sp < 0)
			return shb_errf(err, errlen, "%s: appOutcomes: unknown space "
				    "\"%s\"", name, shb_quote(str(e, "space")).s);
		if (is_overflow(sp, code) || s->napp == SHB_TABLE_CAP) {
			if (shb_mj_add(&s->app_over[ok], n) < 0)
				return too_many(name, "appOutcomes", err, errlen);
		} else
			s->app[s->napp++] = (struct shb_app_count){
				.space = (uint32_t)sp, .ok = ok,
				.code = shb_mj_u64(code), .count = n};
	}
	json_array_foreach(json_object_get(doc, "errorCodes"), i, e) {
		int64_t sp = shb_err_space_of(str(e, "space"));
		const json_t *code = json_object_get(e, "code");
		int kind = kind_of(str(e, "kind"));
		uint64_t n = shb_mj_u64(json_object_get(e, "count"));
		if (sp < 0)
			return shb_errf(err, errlen, "%s: errorCodes: unknown space "
				    "\"%s\"", name, shb_quote(str(e, "space")).s);
		if (is_overflow(sp, code) || s->ncode == SHB_TABLE_CAP) {
			if (shb_mj_add(&s->code_over[kind], n) < 0)
				return too_many(name, "errorCodes", err, errlen);
		} else
			s->code[s->ncode++] = (struct shb_code_count){
				.kind = (uint32_t)kind, .space = (uint32_t)sp,
				.code = shb_mj_u64(code), .count = n};
	}
	return 0;
}

static int counters(struct shb_stats *s, const struct shb_outcome_table *app,
		    const char *name, const json_t *doc, char *err, size_t errlen)
{
	const json_t *req = json_object_get(doc, "requests");
	if (!json_is_object(req))
		return shb_errf(err, errlen, "%s: no requests object", name);
	s->ok = shb_mj_u64(json_object_get(req, "ok"));
	s->errors = shb_mj_u64(json_object_get(req, "errors"));
	s->retried = shb_mj_u64(json_object_get(req, "retried"));
	s->bytes_sent = shb_mj_u64(json_object_get(doc, "bytesSent"));
	s->bytes_recv = shb_mj_u64(json_object_get(doc, "bytesReceived"));
	s->conns_opened = shb_mj_u64(json_object_get(doc, "connectionsOpened"));
	s->rx_header_bytes = shb_mj_u64(json_object_get(doc, "rxHeaderBytes"));
	s->rx_body_bytes = shb_mj_u64(json_object_get(doc, "rxBodyBytes"));
	const char *key;
	const json_t *v;
	json_object_foreach((json_t *)json_object_get(doc, "statusCodes"), key, v) {
		/* three digits, as the json reporter writes them: "0200" or
		 * "200x" would add to 200 twice */
		unsigned long code = strspn(key, "0123456789") == 3 && !key[3] ?
				     strtoul(key, NULL, 10) : 0;
		if (code < 100 || code >= SHB_STATUS_SLOTS)
			return shb_errf(err, errlen, "%s: status code \"%s\"", name,
					shb_quote(key).s);
		if (shb_mj_add(&s->status[code], shb_mj_u64(v)) < 0)
			return too_many(name, "statusCodes", err, errlen);
	}
	const json_t *errs = json_object_get(doc, "errors");
	const json_t *samples = json_object_get(doc, "errorSamples");
	uint64_t sum = 0;
	for (int k = 0; k < SHB_ERRK_EX_COUNT; k++) {
		s->err_kind[k] = shb_mj_u64(json_object_get(errs, shb_err_kind_names[k]));
		if (shb_mj_add(&sum, s->err_kind[k]) < 0)
			return too_many(name, "errors", err, errlen);
		const char *smp = json_string_value(json_object_get(samples, shb_err_kind_names[k]));
		if (smp)
			copy(s->err_sample[k], SHB_SAMPLE_LEN, smp);
	}
	if (sum != s->errors)
		return shb_errf(err, errlen, "%s: errors by kind sum to %llu, "
			    "requests.errors is %llu", name,
			    (unsigned long long)sum, (unsigned long long)s->errors);
	const json_t *ol = json_object_get(doc, "openLoop");
	s->late = shb_mj_u64(json_object_get(ol, "requestsLate"));
	s->unsent = shb_mj_u64(json_object_get(ol, "requestsUnsent"));
	s->lag_max = shb_mj_ns(json_object_get(ol, "scheduleLagMaxSeconds"));
	return tables(s, app, name, doc, err, errlen);
}

/* Times from 2200 on are no report's: read as unknown, so that a start
 * plus the lengths after it stays far from 2^64 ns. */
#define TIME_MAX_S 7258118400ll

uint64_t shb_merge_time_of(const char *s)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p)
		return 0;
	uint64_t ns = 0, scale = 100000000;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
			ns += (uint64_t)(*p - '0') * scale;
	if (strcmp(p, "Z"))
		return 0;
	time_t t = timegm(&tm);
	return t < 0 || t >= TIME_MAX_S ? 0 : (uint64_t)t * 1000000000ull + ns;
}

uint64_t shb_merge_load_start(const json_t *doc)
{
	uint64_t t = shb_merge_time_of(str(doc, "loadStart"));
	if (t)
		return t;
	t = shb_merge_time_of(str(doc, "startTime"));
	return t ? t + shb_mj_ns(json_object_get(doc, "setupSeconds")) : 0;
}

/* ---- the run ------------------------------------------------------------------ */

static uint32_t verify_of(const char *s)
{
	if (!strcmp(s, "system"))
		return SHB_TLS_VERIFY_SYSTEM;
	if (!strcmp(s, "cafile"))
		return SHB_TLS_VERIFY_CAFILE;
	return SHB_TLS_VERIFY_NONE;
}

/* A rate in requests per second (--rate's bounds are far below), as
 * thousandths; 0 when not a number in (0, 1e12). */
static uint64_t milli_of(const json_t *v)
{
	double x = json_is_number(v) ? json_number_value(v) : 0;
	return x > 0 && x < 1e12 ? (uint64_t)llround(x * 1000) : 0;
}

/* The options, from the first report. */
static int open_loop_of(struct shb_merge *m, const char *name,
			const json_t *doc, char *err, size_t errlen);

static int take_run(struct shb_merge *m, const char *name, const json_t *doc,
		    char *err, size_t errlen)
{
	copy(m->first_name, sizeof(m->first_name), name);
	copy(m->url, sizeof(m->url), str(doc, "url"));
	copy(m->method, sizeof(m->method), str(doc, "method"));
	copy(m->proto, sizeof(m->proto), str(doc, "protocolName"));
	copy(m->proto_display, sizeof(m->proto_display), str(doc, "protocol"));
	const json_t *label = json_object_get(doc, "label");
	m->has_label = json_is_string(label);
	copy(m->label, sizeof(m->label), m->has_label ? json_string_value(label) : "");
	m->parallel = (uint32_t)shb_mj_u64(json_object_get(doc, "parallel"));
	m->tls = json_is_true(json_object_get(doc, "tls"));
	m->tls_verify = verify_of(str(doc, "tlsVerify"));
	m->duration_target_ns = shb_mj_ns(json_object_get(doc, "durationTargetSeconds"));
	m->warmup_ns = shb_mj_ns(json_object_get(doc, "warmupSeconds"));
	return open_loop_of(m, name, doc, err, errlen);
}

/* Adds the report's rates to m's (the first report's are m's; a shard's
 * are its parts of the whole run's, whose sum they are). */
static int open_loop_of(struct shb_merge *m, const char *name,
			const json_t *doc, char *err, size_t errlen)
{
	const json_t *ol = json_object_get(doc, "openLoop");
	m->rate_milli += milli_of(json_object_get(ol, "rateTarget"));
	size_t i;
	const json_t *st;
	json_array_foreach(json_object_get(ol, "stages"), i, st) {
		if (i == sizeof(m->stages) / sizeof(m->stages[0]))
			return shb_errf(err, errlen, "%s: more than %zu stages", name, i);
		m->stages[i].duration_ns = shb_mj_ns(json_object_get(st, "durationSeconds"));
		m->stages[i].rate_from_milli += milli_of(json_object_get(st, "rateFrom"));
		m->stages[i].rate_to_milli += milli_of(json_object_get(st, "rateTo"));
		m->stage_count = i + 1;
	}
	return 0;
}

/* The sum of every count of one report (histograms by their totals:
 * their buckets add up to them); -1 when it passes SHB_MJ_COUNT_MAX. */
static int counts_sum(const struct shb_stats *s, uint64_t *sum)
{
	const uint64_t one[] = {
		s->ok, s->errors, s->retried, s->bytes_sent, s->bytes_recv,
		s->conns_opened, s->rx_header_bytes, s->rx_body_bytes, s->late,
		s->unsent, s->app_over[0], s->app_over[1], s->latency.total,
		s->error_replies, s->latency_error_reply.total,
		s->latency_uncorrected.total, s->first_byte.total,
		s->connect.total, s->handshake.total,
	};
	int bad = 0;
	*sum = 0;
	for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++)
		bad |= shb_mj_add(sum, one[i]);
	for (size_t i = 0; i < SHB_STATUS_SLOTS; i++)
		bad |= shb_mj_add(sum, s->status[i]);
	for (int k = 0; k < SHB_ERRK_EX_COUNT; k++)
		bad |= shb_mj_add(sum, s->err_kind[k]) |
		       shb_mj_add(sum, s->code_over[k]);
	for (uint32_t i = 0; i < s->napp; i++)
		bad |= shb_mj_add(sum, s->app[i].count);
	for (uint32_t i = 0; i < s->ncode; i++)
		bad |= shb_mj_add(sum, s->code[i].count);
	for (uint32_t i = 0; i < s->metrics.n; i++)
		bad |= shb_mj_add(sum, shb_metrics_count(&s->metrics, i));
	return bad ? -1 : 0;
}

/* Every merged sum is a part of m->counted: the report's counts are
 * checked to fit before they are added to anything. *sum: theirs. */
static int counts_fit(const struct shb_merge *m, const char *name,
		      const struct shb_stats *s, uint64_t *sum, char *err,
		      size_t errlen)
{
	uint64_t all = m->counted;
	if (counts_sum(s, sum) < 0 || shb_mj_add(&all, *sum) < 0)
		return shb_errf(err, errlen, "%s: counts too large to merge (their "
			    "sum with the other reports' passes 2^63)", name);
	return 0;
}

int shb_merge_init(struct shb_merge *m)
{
	memset(m, 0, sizeof(*m));
	m->docs = json_array();
	m->names = json_array();
	if (!m->docs || !m->names || shb_stats_init(&m->stats) < 0) {
		json_decref(m->docs);
		json_decref(m->names);
		return -1;
	}
	return 0;
}

void shb_merge_fini(struct shb_merge *m)
{
	shb_stats_destroy(&m->stats);
	shb_merge14_fini(&m->v14);
	json_decref(m->first);
	json_decref(m->docs);
	json_decref(m->names);
	m->first = m->docs = m->names = NULL;
}

int shb_merge_add(struct shb_merge *m, const char *name, json_t *doc,
		  char *err, size_t errlen)
{
	if (json_is_array(doc))
		return shb_errf(err, errlen, "%s: a comparison's report (an array "
			    "of runs); merge takes one run per file", name);
	if (!json_is_object(doc) ||
	    json_integer_value(json_object_get(doc, "schemaVersion")) != 1)
		return shb_errf(err, errlen, "%s: not an shb JSON report "
			    "(schemaVersion 1)", name);
	if (json_array_size(json_object_get(doc, "targets")) > 0)
		return shb_errf(err, errlen, "%s: a report of several targets "
			    "(merge takes runs of one target)", name);
	if (m->first && check_same(m, name, doc, err, errlen) < 0)
		return -1;
	/* the name goes into the merged report (shards[].file): UTF-8 */
	json_t *jn = json_string(name);
	if (!jn)
		return shb_errf(err, errlen, "%s: a file name that is not UTF-8 "
			    "cannot be named in the merged report", name);
	struct shb_stats s;
	if (shb_stats_init(&s) < 0) {
		json_decref(jn);
		return shb_errf(err, errlen, "out of memory");
	}
	/* the first report's names first: its app outcomes are read by them */
	int rc = m->first ? 0 : shb_merge14_take(&m->v14, name, doc, err, errlen);
	if (rc == 0 && !m->first)
		rc = shb_merge_metrics_take(&m->metrics, name, doc, err, errlen);
	if (rc == 0)
		rc = shb_merge_metrics_read(&m->metrics, &s, name, doc, err, errlen);
	if (rc == 0 && !m->first) {
		/* made again if an earlier first report was refused */
		shb_metrics_destroy(&m->stats.metrics);
		if (shb_metrics_init(&m->stats.metrics, m->metrics.defs,
				     m->metrics.n) < 0)
			rc = shb_errf(err, errlen, "out of memory");
	}
	if (rc == 0)
		rc = counters(&s, &m->v14.table, name, doc, err, errlen);
	if (rc == 0)
		rc = histograms(&s, name, doc, err, errlen);
	if (rc == 0)
		rc = shb_merge14_counters(&m->v14, &s, name, doc, err, errlen);
	uint64_t counted = 0;
	if (rc == 0)
		rc = counts_fit(m, name, &s, &counted, err, errlen);
	if (rc == 0 && !m->first)
		rc = take_run(m, name, doc, err, errlen);
	else if (rc == 0 && shard_count(doc))
		rc = open_loop_of(m, name, doc, err, errlen);
	if (rc == 0) {
		m->counted += counted;
		m->stats.open_loop |= s.open_loop;
		shb_stats_merge(&m->stats, &s);
		if (!m->first)
			m->first = json_incref(doc);
		if (json_array_append(m->docs, doc) < 0 ||
		    json_array_append(m->names, jn) < 0)
			rc = shb_errf(err, errlen, "out of memory");
		m->files++;
		uint64_t el = shb_mj_ns(json_object_get(doc, "durationSeconds"));
		uint64_t su = shb_mj_ns(json_object_get(doc, "setupSeconds"));
		uint64_t t0 = shb_merge_time_of(str(doc, "startTime"));
		m->elapsed_ns = el > m->elapsed_ns ? el : m->elapsed_ns;
		m->setup_ns = su > m->setup_ns ? su : m->setup_ns;
		if (t0 && (!m->start_unix_ns || t0 < m->start_unix_ns))
			m->start_unix_ns = t0;
		if (t0 > m->start_max_ns)
			m->start_max_ns = t0;
		const json_t *target = json_object_get(doc, "requestsTarget");
		if (m->files == 1 || m->requests_target)
			m->requests_target = json_is_integer(target) ?
					     m->requests_target + shb_mj_u64(target) : 0;
		m->warmup_requests += shb_mj_u64(json_object_get(doc, "warmupRequests"));
		m->threads += (uint32_t)shb_mj_u64(json_object_get(doc, "threads"));
		m->connections += (uint32_t)shb_mj_u64(json_object_get(doc, "connections"));
		m->interrupted |= json_is_true(json_object_get(doc, "interrupted"));
	}
	shb_stats_destroy(&s);
	json_decref(jn);
	return rc;
}

void shb_merge_results(struct shb_merge *m, struct shb_results_buf *b,
		       struct shb_run_info *info, struct shb_target_info *target,
		       const uint32_t *ppm, size_t nppm)
{
	memset(info, 0, sizeof(*info));
	memset(target, 0, sizeof(*target));
	info->struct_size = sizeof(*info);
	info->threads = m->threads;
	info->connections = m->connections;
	info->parallel = m->parallel;
	info->tls = m->tls;
	info->tls_verify = m->tls_verify;
	info->shb_version = json_string_value(json_object_get(m->first, "shbVersion"));
	info->url = m->url;
	info->method = m->method;
	info->proto_name = m->proto;
	info->proto_display = m->proto_display;
	info->requests_target = m->requests_target;
	info->duration_target_ns = m->duration_target_ns;
	info->start_unix_ns = m->start_unix_ns;
	target->label = m->has_label ? m->label : m->url;
	target->url = m->url;
	target->method = m->method;
	target->weight = 1;
	/* The merged report is the whole run: no shard. */
	info->shard_index = 0;
	info->shard_count = 1;
	info->rate_milli = m->rate_milli;
	info->stages = m->stage_count ? m->stages : NULL;
	info->stage_count = m->stage_count;
	info->warmup_ns = m->warmup_ns;
	info->targets = target;
	info->target_count = 1;
	info->label = m->has_label ? m->label : NULL;
	info->percentiles_ppm = nppm ? ppm : shb_results_pcts;
	info->percentile_count = nppm ? nppm : SHB_RESULTS_PCT_COUNT;
	shb_merge14_info(&m->v14, info);
	shb_results_build(b, &m->stats, info, m->elapsed_ns, m->interrupted);
	b->r.setup_ns = m->setup_ns;
	b->r.requests_warmup = m->warmup_requests;
	/* A report without answered requests (an older shb's): the merged
	 * result is one of 1.3, without them, rather than one that counts
	 * its error replies as none. */
	if (!m->v14.answered_all)
		b->r.struct_size = offsetof(struct shb_results, requests_answered);
}
