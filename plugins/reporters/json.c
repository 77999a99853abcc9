/* The "json" reporter: one JSON document per run, schemaVersion 1, laid out
 * as docs/shb-report.schema.json describes. Options: "compact" writes it
 * on one line (for appending runs to an NDJSON file). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "report_common.h"
#include "report_spool.h"
#include "common/hdrv2.h"

#define JSON_SCHEMA_VERSION 1
#define OPT_COMPACT (1u << 0)

static const char *const json_options[] = {"compact", NULL};

/* Builds a document; the first failed allocation or insertion sticks and
 * turns end() into SHB_E_NOMEM instead of a partial document. */
struct jb {
	int failed;
};

/* json_object_set_new fails cleanly on a NULL object or value and frees
 * `v` whenever it fails, so a failed allocation anywhere leaks nothing. */
static void put(struct jb *b, json_t *obj, const char *key, json_t *v)
{
	if (json_object_set_new(obj, key, v) != 0)
		b->failed = 1;
}

static json_t *jint(uint64_t v)
{
	return json_integer(v > (uint64_t)LLONG_MAX ? LLONG_MAX : (json_int_t)v);
}

static json_t *jsecs(uint64_t ns)
{
	return json_real((double)ns / 1e9);
}

/* Length of the valid UTF-8 sequence at s, or 0 (RFC 3629: no overlongs,
 * no surrogates, nothing above U+10FFFF). */
static size_t utf8_seq(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;
		if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		if (s[0] == 0xf0)
			lo = 0x90;
		if (s[0] == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* Error samples may carry a server's bytes: anything that is not UTF-8
 * becomes U+FFFD rather than making the document invalid. */
static json_t *jstr(const char *s)
{
	s = shb_rpt_str(s);
	json_t *v = json_string(s);
	if (v)
		return v;
	size_t len = strlen(s);
	char *clean = malloc(len * 3 + 1);
	if (!clean)
		return NULL;
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;
	while (*p) {
		size_t n = utf8_seq(p);
		if (n) {
			memcpy(clean + o, p, n);
			o += n;
			p += n;
		} else {
			memcpy(clean + o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
		}
	}
	clean[o] = '\0';
	v = json_string(clean);
	free(clean);
	return v;
}

static void put_run(struct jb *b, json_t *doc, const struct shb_run_info *run,
		    const struct shb_rpt_warmup *w)
{
	char start[40];
	put(b, doc, "schemaVersion", json_integer(JSON_SCHEMA_VERSION));
	put(b, doc, "shbVersion", jstr(run->shb_version));
	const char *st = shb_rpt_start_time(start, sizeof(start), run);
	put(b, doc, "startTime", st ? jstr(st) : json_null());
	put(b, doc, "url", jstr(run->url));
	put(b, doc, "method", jstr(run->method));
	put(b, doc, "protocol", jstr(run->proto_display));
	put(b, doc, "protocolName", jstr(run->proto_name));
	put(b, doc, "threads", jint(run->threads));
	put(b, doc, "connections", jint(run->connections));
	put(b, doc, "parallel", jint(run->parallel));
	put(b, doc, "tls", json_boolean(run->tls));
	put(b, doc, "tlsVerify", jstr(shb_rpt_tls_verify_name(run->tls_verify)));
	put(b, doc, "requestsTarget",
	    run->requests_target ? jint(run->requests_target) : json_null());
	put(b, doc, "durationTargetSeconds",
	    run->duration_target_ns ? jsecs(run->duration_target_ns) : json_null());
	put(b, doc, "warmupSeconds", w->known ? jsecs(w->ns) : json_null());
	put(b, doc, "warmupRequests", w->known ? jint(w->requests) : json_null());
}

static void put_counts(struct jb *b, json_t *doc, const struct shb_results *r,
		       const struct shb_rpt_errors *e)
{
	put(b, doc, "durationSeconds", jsecs(r->elapsed_ns));
	put(b, doc, "interrupted", json_boolean(r->interrupted));
	json_t *req = json_object();
	put(b, req, "total", jint(r->requests_total));
	put(b, req, "ok", jint(r->requests_ok));
	put(b, req, "errors", jint(r->requests_errors));
	put(b, req, "connectErrors", jint(e->count[SHB_ERRK_CONNECT]));
	put(b, req, "retried", jint(r->requests_retried));
	put(b, doc, "requests", req);
	put(b, doc, "requestsPerSec",
	    json_real(shb_rpt_per_sec(r->requests_ok, r->elapsed_ns)));
	put(b, doc, "bytesReceived", jint(r->bytes_received));
	put(b, doc, "bytesReceivedPerSec",
	    json_real(shb_rpt_per_sec(r->bytes_received, r->elapsed_ns)));
	put(b, doc, "bytesSent", jint(r->bytes_sent));
	put(b, doc, "bytesSentPerSec",
	    json_real(shb_rpt_per_sec(r->bytes_sent, r->elapsed_ns)));
	put(b, doc, "connectionsOpened", jint(r->connections_opened));
}

static void put_statuses(struct jb *b, json_t *doc, const struct shb_results *r)
{
	json_t *st = json_object();
	for (size_t i = 0; i < r->status_count && st; i++) {
		char key[16];
		snprintf(key, sizeof(key), "%u", r->statuses[i].code);
		/* Codes are unique by contract; adding keeps a repeat honest. */
		uint64_t n = r->statuses[i].count;
		json_t *prev = json_object_get(st, key);
		if (prev)
			n += (uint64_t)json_integer_value(prev);
		put(b, st, key, jint(n));
	}
	put(b, doc, "statusCodes", st);
}

static void put_errors(struct jb *b, json_t *doc, const struct shb_rpt_errors *e)
{
	json_t *counts = json_object();
	json_t *samples = json_object();
	for (int k = 0; k < e->kinds; k++) {
		put(b, counts, shb_err_kind_names[k], jint(e->count[k]));
		if (e->sample[k])
			put(b, samples, shb_err_kind_names[k], jstr(e->sample[k]));
	}
	put(b, doc, "errors", counts);
	put(b, doc, "errorSamples", samples);
}

static void put_latency(struct jb *b, json_t *doc, const char *key,
			const struct shb_rpt_latency *l)
{
	if (l->count == 0) {
		put(b, doc, key, json_null());
		return;
	}
	json_t *lat = json_object();
	put(b, lat, "min", jsecs(l->min));
	put(b, lat, "mean", jsecs(l->mean));
	put(b, lat, "stddev", jsecs(l->stddev));
	put(b, lat, "max", jsecs(l->max));
	json_t *pct = json_object();
	for (size_t i = 0; i < l->npct; i++) {
		char name[16];
		name[0] = 'p';
		shb_rpt_pct_label(name + 1, sizeof(name) - 1, l->ppm[i], '.');
		put(b, pct, name, jsecs(l->pct[i]));
	}
	put(b, lat, "percentiles", pct);
	put(b, doc, key, lat);
}

/* ---- ABI 1.2 members: added only when the core's structs carry them ---- */

static json_t *jper(uint64_t total, uint64_t n)
{
	return n ? json_real(shb_rpt_per(total, n)) : json_null();
}

/* A set-up histogram: count, mean, p50, p90, p99, max; null when empty. */
static json_t *jsetup(const struct shb_rpt_latency *l)
{
	if (l->count == 0)
		return json_null();
	json_t *o = json_object();
	struct jb b = {0};
	put(&b, o, "count", jint(l->count));
	put(&b, o, "mean", jsecs(l->mean));
	put(&b, o, "p50", jsecs(l->pct[0]));
	put(&b, o, "p90", jsecs(l->pct[1]));
	put(&b, o, "p99", jsecs(l->pct[2]));
	put(&b, o, "max", jsecs(l->max));
	if (b.failed) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static void put_outcomes(struct jb *b, json_t *doc, const struct shb_results *r)
{
	char sp[32];
	const struct shb_app_count *a;
	size_t n = shb_rpt_app_outcomes(r, &a);
	json_t *arr = json_array();
	for (size_t i = 0; i < n && arr; i++) {
		json_t *o = json_object();
		put(b, o, "space", jstr(shb_app_space_name(sp, sizeof(sp), a[i].space)));
		put(b, o, "code", jint(a[i].code));
		put(b, o, "ok", json_boolean(a[i].ok));
		put(b, o, "count", jint(a[i].count));
		if (json_array_append_new(arr, o) != 0)
			b->failed = 1;
	}
	put(b, doc, "appOutcomes", arr);

	const struct shb_code_count *c;
	n = shb_rpt_error_codes(r, &c);
	arr = json_array();
	for (size_t i = 0; i < n && arr; i++) {
		json_t *o = json_object();
		put(b, o, "kind", jstr(shb_err_kind_name(c[i].kind)));
		put(b, o, "space", jstr(shb_err_space_name(sp, sizeof(sp), c[i].space)));
		put(b, o, "code", jint(c[i].code));
		put(b, o, "count", jint(c[i].count));
		if (json_array_append_new(arr, o) != 0)
			b->failed = 1;
	}
	put(b, doc, "errorCodes", arr);
}

/* The result members of 1.2, for the run and for each target alike. */
static void put_results12(struct jb *b, json_t *doc, const struct shb_host *host,
			  const struct shb_run_info *run,
			  const struct shb_results *r)
{
	if (SHB_RPT_HAS(r, struct shb_results, setup_ns))
		put(b, doc, "setupSeconds", jsecs(r->setup_ns));
	if (SHB_RPT_HAS(r, struct shb_results, rx_body_bytes)) {
		put(b, doc, "rxHeaderBytes", jint(r->rx_header_bytes));
		put(b, doc, "rxBodyBytes", jint(r->rx_body_bytes));
		put(b, doc, "rxHeaderBytesPerResponse",
		    jper(r->rx_header_bytes, r->requests_ok));
		put(b, doc, "rxBodyBytesPerResponse",
		    jper(r->rx_body_bytes, r->requests_ok));
	}
	if (SHB_RPT_HAS(r, struct shb_results, error_code_count))
		put_outcomes(b, doc, r);
	if (SHB_RPT_HAS(r, struct shb_results, latency_uncorrected)) {
		const struct shb_hist *h = shb_rpt_uncorrected(r);
		struct shb_rpt_pcts p;
		struct shb_rpt_latency l;
		shb_rpt_pcts_of(run, &p);
		shb_rpt_read_hist(host, h, &p, &l);
		put_latency(b, doc, "latencyUncorrectedSeconds", &l);
	}
	if (SHB_RPT_HAS(r, struct shb_results, first_byte)) {
		struct shb_rpt_setup s;
		shb_rpt_read_setup(host, r, &s);
		json_t *o = json_object();
		put(b, o, "connect", jsetup(&s.h[SHB_RPT_SETUP_CONNECT]));
		put(b, o, "handshake", jsetup(&s.h[SHB_RPT_SETUP_HANDSHAKE]));
		put(b, o, "firstByte", jsetup(&s.h[SHB_RPT_SETUP_FIRST_BYTE]));
		put(b, doc, "setupTimings", o);
	}
}

/* The full histogram as HdrHistogram V2 compressed base64 (hdrv2.h),
 * built from the bucket walk of host->hist; null when empty, or when a
 * bucket is not exactly one of the export layout's (a core whose layout
 * changed: then nothing rather than a histogram that is not the one
 * measured). */
static json_t *jhdr(const struct shb_host *host, const struct shb_hist *h)
{
	const struct shb_hist_ops *ops = host->hist;
	if (!h || !ops || !ops->foreach_bucket || ops->count(h) == 0)
		return json_null();
	struct shb_hdr_counts c;
	if (shb_hdr_counts_init(&c) < 0)
		return NULL;
	json_t *v = json_null();
	if (ops->foreach_bucket(h, shb_hdr_add_bucket, &c) == 0 &&
	    c.total == ops->count(h)) {
		char *b64 = shb_hdr_encode(&c);
		v = b64 ? json_string(b64) : NULL;
		free(b64);
	}
	shb_hdr_counts_free(&c);
	return v;
}

/* latencyHistogram and the others of docs/reports.md "Histograms". */
static void put_histograms(struct jb *b, json_t *doc,
			   const struct shb_host *host,
			   const struct shb_results *r)
{
	put(b, doc, "histogramUnit", json_string("nanoseconds"));
	put(b, doc, "latencyHistogram", jhdr(host, r->latency));
	if (SHB_RPT_HAS(r, struct shb_results, latency_uncorrected) &&
	    r->latency_uncorrected && r->latency_uncorrected != r->latency)
		put(b, doc, "latencyUncorrectedHistogram",
		    jhdr(host, r->latency_uncorrected));
	if (SHB_RPT_HAS(r, struct shb_results, first_byte)) {
		json_t *o = json_object();
		put(b, o, "connect", jhdr(host, r->connect));
		put(b, o, "handshake", jhdr(host, r->handshake));
		put(b, o, "firstByte", jhdr(host, r->first_byte));
		put(b, doc, "setupHistograms", o);
	}
}

/* -R, --stages and what the schedule could not keep; null in closed loop. */
static json_t *jopen_loop(const struct shb_run_info *run,
			  const struct shb_results *r)
{
	const struct shb_stage *st;
	size_t n = shb_rpt_stages(run, &st);
	if (!run->rate_milli && n == 0)
		return json_null();
	struct jb b = {0};
	json_t *o = json_object();
	put(&b, o, "rateTarget", run->rate_milli ?
	    json_real((double)run->rate_milli / 1000.0) : json_null());
	json_t *arr = json_array();
	for (size_t i = 0; i < n && arr; i++) {
		json_t *s = json_object();
		put(&b, s, "durationSeconds", jsecs(st[i].duration_ns));
		put(&b, s, "rateFrom", json_real((double)st[i].rate_from_milli / 1000.0));
		put(&b, s, "rateTo", json_real((double)st[i].rate_to_milli / 1000.0));
		if (json_array_append_new(arr, s) != 0)
			b.failed = 1;
	}
	put(&b, o, "stages", arr);
	if (SHB_RPT_HAS(r, struct shb_results, schedule_lag_max_ns)) {
		put(&b, o, "requestsLate", jint(r->requests_late));
		put(&b, o, "requestsUnsent", jint(r->requests_unsent));
		put(&b, o, "scheduleLagMaxSeconds", jsecs(r->schedule_lag_max_ns));
		put(&b, o, "rateAchieved",
		    json_real(shb_rpt_per_sec(r->requests_total, r->elapsed_ns)));
		put(&b, o, "shortfall", json_boolean(shb_rpt_short(r)));
	}
	if (b.failed) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The run members of 1.2: label, shard, open loop, provenance. */
static void put_run12(struct jb *b, json_t *doc, const struct shb_run_info *run,
		      const struct shb_results *r)
{
	if (SHB_RPT_HAS(run, struct shb_run_info, label))
		put(b, doc, "label", run->label ? jstr(run->label) : json_null());
	if (shb_rpt_compare_count(run) > 1) { /* 1.3: only in a comparison */
		json_t *c = json_object();
		put(b, c, "index", jint(shb_rpt_compare_index(run)));
		put(b, c, "count", jint(shb_rpt_compare_count(run)));
		put(b, doc, "compare", c);
	}
	if (SHB_RPT_HAS(run, struct shb_run_info, shard_count)) {
		json_t *sh = json_null();
		if (run->shard_count > 1) {
			sh = json_object();
			put(b, sh, "index", jint(run->shard_index));
			put(b, sh, "count", jint(run->shard_count));
		}
		put(b, doc, "shard", sh);
	}
	if (SHB_RPT_HAS(run, struct shb_run_info, stage_count))
		put(b, doc, "openLoop", jopen_loop(run, r));
	if (SHB_RPT_HAS(run, struct shb_run_info, plugin_count)) {
		const struct shb_plugin_info *p;
		size_t n = shb_rpt_plugins(run, &p);
		json_t *arr = json_array();
		for (size_t i = 0; i < n && arr; i++) {
			json_t *o = json_object();
			put(b, o, "role", jstr(p[i].role));
			put(b, o, "name", jstr(p[i].name));
			put(b, o, "id", jstr(p[i].id));
			put(b, o, "version", p[i].version ? jstr(p[i].version) : json_null());
			put(b, o, "abiMinor", jint(p[i].abi_minor));
			put(b, o, "path", jstr(p[i].path));
			if (json_array_append_new(arr, o) != 0)
				b->failed = 1;
		}
		put(b, doc, "plugins", arr);
	}
}

/* Everything a result holds, for the run and for each target alike. */
static void put_result(struct jb *b, json_t *doc, const struct shb_host *host,
		       const struct shb_run_info *run,
		       const struct shb_results *r)
{
	struct shb_rpt_errors e;
	struct shb_rpt_latency lat;
	shb_rpt_sum_errors(r, &e);
	shb_rpt_read_latency(host, r, run, &lat);
	put_counts(b, doc, r, &e);
	put_statuses(b, doc, r);
	put_errors(b, doc, &e);
	put_latency(b, doc, "latencySeconds", &lat);
	put_results12(b, doc, host, run, r);
	put_histograms(b, doc, host, r);
}

/* Several targets: one object each, the target then its result. */
static void put_targets(struct jb *b, json_t *doc, const struct shb_host *host,
			const struct shb_run_info *run,
			const struct shb_results *r)
{
	size_t n = shb_rpt_target_count(r);
	json_t *arr = json_array();
	for (size_t i = 0; i < n && arr; i++) {
		const struct shb_target_info *ti;
		const struct shb_results *t = shb_rpt_target(r, run, i, &ti);
		if (!t)
			continue;
		json_t *o = json_object();
		put(b, o, "index", jint(i));
		put(b, o, "label", ti && ti->label ? jstr(ti->label) : json_null());
		put(b, o, "url", jstr(ti ? ti->url : NULL));
		put(b, o, "method", jstr(ti ? ti->method : NULL));
		put(b, o, "weight", jint(ti ? ti->weight : 1));
		struct shb_rpt_share sh;
		shb_rpt_target_share(r, run, i, &sh);
		put(b, o, "weightShare", sh.intended < 0 ? json_null() :
		    json_real(sh.intended));
		put(b, o, "requestShare", sh.achieved < 0 ? json_null() :
		    json_real(sh.achieved));
		put_result(b, o, host, run, t);
		if (json_array_append_new(arr, o) != 0)
			b->failed = 1;
	}
	put(b, doc, "targets", arr);
}

/* --interval: one object per interval, deltas (never cumulative); times
 * in seconds from the start of the measured load; latency null when no
 * request of the interval was ok. */
static void put_intervals(struct jb *b, json_t *doc, const struct shb_rpt *j)
{
	if (!j->nivals)
		return;
	json_t *arr = json_array();
	for (size_t i = 0; i < j->nivals; i++) {
		const struct shb_rpt_ival *v = &j->ivals[i];
		json_t *o = json_object();
		put(b, o, "index", jint(v->index));
		put(b, o, "startSeconds", jsecs(v->start_ns));
		put(b, o, "durationSeconds", jsecs(v->len_ns));
		put(b, o, "ok", jint(v->ok));
		put(b, o, "errors", jint(v->errors));
		put(b, o, "requestsPerSec", json_real(shb_rpt_per_sec(v->ok, v->len_ns)));
		put(b, o, "bytesSent", jint(v->bytes_sent));
		put(b, o, "bytesReceived", jint(v->bytes_received));
		if (v->ok) {
			json_t *lat = json_object();
			put(b, lat, "p50", jsecs(v->p50));
			put(b, lat, "p90", jsecs(v->p90));
			put(b, lat, "p99", jsecs(v->p99));
			put(b, lat, "max", jsecs(v->max));
			put(b, o, "latency", lat);
			/* what shb merge sums to merge intervals exactly;
			 * absent when the host cannot walk histograms */
			if (v->hdr || v->hdr_len) {
				char *owned;
				const char *t = shb_rpt_spool_text(j, v, &owned);
				put(b, o, "latencyHistogram", t ? json_string(t) : NULL);
				free(owned);
			}
		} else {
			put(b, o, "latency", json_null());
		}
		if (json_array_append_new(arr, o) != 0)
			b->failed = 1;
	}
	put(b, doc, "intervals", arr);
}

/* [main] --interval: the common numbers, and the interval's latency
 * histogram exported, so that shb merge can add shards' intervals; the
 * export is kept out of memory until end() (report_spool.h). */
static int json_sample(void *rep, const struct shb_results *r)
{
	struct shb_rpt *j = rep;
	int rc = shb_rpt_sample(rep, r);
	if (rc < 0)
		return rc;
	json_t *h = jhdr(j->host, r->latency);
	if (!h)
		return SHB_E_NOMEM;
	const char *b64 = json_string_value(h);
	struct shb_rpt_ival *v = &j->ivals[j->nivals - 1];
	/* Not in memory until end(): see report_spool.h. */
	rc = b64 ? shb_rpt_spool_keep(j, v, b64) : SHB_OK;
	json_decref(h);
	return rc;
}

/* 1.3: the wall clock at which this process's load started, RFC 3339 to
 * the ns ("2026-12-01T20:00:00.000412345Z"), for shb merge's start skew;
 * absent when unknown (0: a run stopped during set-up). */
static void put_load_start(struct jb *b, json_t *doc,
			   const struct shb_results *r)
{
	if (!SHB_RPT_HAS(r, struct shb_results, load_start_unix_ns))
		return;
	uint64_t ns = r->load_start_unix_ns;
	time_t secs = (time_t)(ns / 1000000000u);
	struct tm tm;
	char buf[48];
	if (!ns || !gmtime_r(&secs, &tm))
		return;
	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%09uZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (unsigned)(ns % 1000000000u));
	put(b, doc, "loadStart", json_string(buf));
}

/* 1.3: JA3 and JA4 of shb's own ClientHello, only when the core knows
 * them (a TLS run whose ClientHello was seen). */
static void put_tls_fp(struct jb *b, json_t *doc, const struct shb_results *r)
{
	if (!SHB_RPT_HAS(r, struct shb_results, tls_ja4))
		return;
	if (r->tls_ja3)
		put(b, doc, "tlsJa3", jstr(r->tls_ja3));
	if (r->tls_ja4)
		put(b, doc, "tlsJa4", jstr(r->tls_ja4));
}

static int dump_cb(const char *buf, size_t size, void *data)
{
	struct shb_rpt_out *o = data;
	shb_rpt_write(o, buf, size);
	return o->err == SHB_OK ? 0 : -1;
}

static int json_end(void *rep, const struct shb_results *r)
{
	struct shb_rpt *j = rep;
	const struct shb_run_info *run = shb_rpt_check(j, r);
	if (!run)
		return SHB_E_INVAL;
	struct shb_rpt_warmup warm;
	shb_rpt_warmup_of(j->host, run, r, &warm);

	struct jb b = {0};
	json_t *doc = json_object();
	put_run(&b, doc, run, &warm);
	put_result(&b, doc, j->host, run, r);
	put_run12(&b, doc, run, r);
	put_load_start(&b, doc, r);
	put_tls_fp(&b, doc, r);
	if (SHB_RPT_HAS(r, struct shb_results, target_count))
		put_targets(&b, doc, j->host, run, r);
	put_intervals(&b, doc, j);
	if (b.failed || !doc) {
		json_decref(doc);
		return SHB_E_NOMEM;
	}
	/* 15 significant digits: every latency (whole ns, under ~11 days)
	 * prints exactly, and no binary noise such as 0.07000000000000001. */
	size_t flags = JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15) |
		       ((j->flags & OPT_COMPACT) ? JSON_COMPACT : JSON_INDENT(2));
	struct shb_rpt_out o;
	shb_rpt_out_init(&o, j->out);
	/* A comparison is one array of these documents, written as each
	 * run ends; destroy closes it if the comparison was cut short. */
	uint32_t ci = shb_rpt_compare_index(run), cn = shb_rpt_compare_count(run);
	int compact = (j->flags & OPT_COMPACT) != 0;
	if (cn > 1)
		shb_rpt_puts(&o, j->cmp_open ? (compact ? "," : ",\n") :
					       (compact ? "[" : "[\n"));
	j->cmp_open = cn > 1;
	int rc = json_dump_callback(doc, dump_cb, &o, flags);
	json_decref(doc);
	if (cn > 1 && ci + 1 == cn) {
		shb_rpt_puts(&o, compact ? "]\n" : "\n]\n");
		j->cmp_open = 0;
	} else if (cn == 1) {
		shb_rpt_puts(&o, "\n");
	}
	int wrc = shb_rpt_flush(&o);
	if (wrc < 0)
		return wrc;
	return rc == 0 ? SHB_OK : SHB_E_NOMEM;
}

/* A comparison cut short (Ctrl-C) never reaches its last end(): the array
 * is closed after the runs that did end, so the file stays one JSON
 * value. */
static void json_destroy(void *rep)
{
	struct shb_rpt *j = rep;
	if (j && j->cmp_open) {
		struct shb_rpt_out o;
		shb_rpt_out_init(&o, j->out);
		shb_rpt_puts(&o, (j->flags & OPT_COMPACT) ? "]\n" : "\n]\n");
		shb_rpt_flush(&o);
	}
	shb_rpt_destroy(rep);
}

static int json_create(const struct shb_host *host,
		       const struct shb_ostream *out, const char *options,
		       void **rep, char *err, size_t errlen)
{
	return shb_rpt_create("json", json_options, host, out, options, rep,
			      err, errlen);
}

static const struct shb_report_vtable json_vt = {
	.struct_size = sizeof(struct shb_report_vtable),
	.create = json_create,
	.begin = shb_rpt_begin,
	.sample = json_sample, /* with --interval only: no WANTS_INTERVALS */
	.end = json_end,
	.destroy = json_destroy,
};

/* --report-opt json.KEY: the core checks keys against these. */
static const struct shb_option_def json_option_defs[] = {
	{"compact", NULL, "the document on one line (NDJSON)"},
	{NULL, NULL, NULL},
};

const struct shb_report_desc shb_rpt_module_desc = {
	.struct_size = sizeof(struct shb_report_desc),
	.flags = 0,
	.name = "json",
	.summary = "JSON document (schemaVersion 1); option: compact",
	.vt = &json_vt,
	.option_defs = json_option_defs,
};

SHB_PLUGIN_DEFINE_FULL("org.shb.report.json", SHB_VERSION_STRING, "shb", NULL, "MIT",
		       shb_rpt_init, NULL, NULL, SHB_NO_PROTOCOLS,
		       SHB_REPORTERS(&shb_rpt_module_desc));
