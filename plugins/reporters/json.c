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
#include "json_metrics.h"
#include "json_v14.h"

#define JSON_SCHEMA_VERSION 1
#define OPT_COMPACT (1u << 0)

static const char *const json_options[] = {"compact", NULL};

static void put_run(struct jb *b, json_t *doc, const struct shb_run_info *run,
		    const struct shb_rpt_warmup *w)
{
	char start[40];
	jput(b, doc, "schemaVersion", json_integer(JSON_SCHEMA_VERSION));
	jput(b, doc, "shbVersion", jstr(run->shb_version));
	const char *st = shb_rpt_start_time(start, sizeof(start), run);
	jput(b, doc, "startTime", st ? jstr(st) : json_null());
	jput(b, doc, "url", jstr(run->url));
	/* 1.4: a protocol without HTTP requests has no method */
	jput(b, doc, "method", shb_rpt_http(run) ? jstr(run->method) : json_null());
	jput(b, doc, "protocol", jstr(run->proto_display));
	jput(b, doc, "protocolName", jstr(run->proto_name));
	jput(b, doc, "threads", jint(run->threads));
	jput(b, doc, "connections", jint(run->connections));
	jput(b, doc, "parallel", jint(run->parallel));
	jput(b, doc, "tls", json_boolean(run->tls));
	jput(b, doc, "tlsVerify", jstr(shb_rpt_tls_verify_name(run->tls_verify)));
	jput(b, doc, "requestsTarget",
	    run->requests_target ? jint(run->requests_target) : json_null());
	jput(b, doc, "durationTargetSeconds",
	    run->duration_target_ns ? jsecs(run->duration_target_ns) : json_null());
	jput(b, doc, "warmupSeconds", w->known ? jsecs(w->ns) : json_null());
	jput(b, doc, "warmupRequests", w->known ? jint(w->requests) : json_null());
}

static void put_counts(struct jb *b, json_t *doc, const struct shb_results *r,
		       const struct shb_rpt_errors *e)
{
	jput(b, doc, "durationSeconds", jsecs(r->elapsed_ns));
	jput(b, doc, "interrupted", json_boolean(r->interrupted));
	json_t *req = json_object();
	jput(b, req, "total", jint(r->requests_total));
	jput(b, req, "ok", jint(r->requests_ok));
	jput(b, req, "errors", jint(r->requests_errors));
	jput(b, req, "connectErrors", jint(e->count[SHB_ERRK_CONNECT]));
	jput(b, req, "retried", jint(r->requests_retried));
	if (shb_rpt_answered_known(r)) /* 1.4: ok plus error replies */
		jput(b, req, "answered", jint(r->requests_answered));
	jput(b, doc, "requests", req);
	jput(b, doc, "requestsPerSec",
	    json_real(shb_rpt_per_sec(r->requests_ok, r->elapsed_ns)));
	if (shb_rpt_answered_known(r))
		jput(b, doc, "answeredPerSec",
		     json_real(shb_rpt_per_sec(r->requests_answered, r->elapsed_ns)));
	jput(b, doc, "bytesReceived", jint(r->bytes_received));
	jput(b, doc, "bytesReceivedPerSec",
	    json_real(shb_rpt_per_sec(r->bytes_received, r->elapsed_ns)));
	jput(b, doc, "bytesSent", jint(r->bytes_sent));
	jput(b, doc, "bytesSentPerSec",
	    json_real(shb_rpt_per_sec(r->bytes_sent, r->elapsed_ns)));
	jput(b, doc, "connectionsOpened", jint(r->connections_opened));
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
		jput(b, st, key, jint(n));
	}
	jput(b, doc, "statusCodes", st);
}

static void put_errors(struct jb *b, json_t *doc, const struct shb_rpt_errors *e)
{
	json_t *counts = json_object();
	json_t *samples = json_object();
	for (int k = 0; k < e->kinds; k++) {
		jput(b, counts, shb_err_kind_names[k], jint(e->count[k]));
		if (e->sample[k])
			jput(b, samples, shb_err_kind_names[k], jstr(e->sample[k]));
	}
	jput(b, doc, "errors", counts);
	jput(b, doc, "errorSamples", samples);
}

static void put_latency(struct jb *b, json_t *doc, const char *key,
			const struct shb_rpt_latency *l)
{
	if (l->count == 0) {
		jput(b, doc, key, json_null());
		return;
	}
	json_t *lat = json_object();
	jput(b, lat, "min", jsecs(l->min));
	jput(b, lat, "mean", jsecs(l->mean));
	jput(b, lat, "stddev", jsecs(l->stddev));
	jput(b, lat, "max", jsecs(l->max));
	json_t *pct = json_object();
	for (size_t i = 0; i < l->npct; i++) {
		char name[16];
		name[0] = 'p';
		shb_rpt_pct_label(name + 1, sizeof(name) - 1, l->ppm[i], '.');
		jput(b, pct, name, jsecs(l->pct[i]));
	}
	jput(b, lat, "percentiles", pct);
	jput(b, doc, key, lat);
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
	jput(&b, o, "count", jint(l->count));
	jput(&b, o, "mean", jsecs(l->mean));
	jput(&b, o, "p50", jsecs(l->pct[0]));
	jput(&b, o, "p90", jsecs(l->pct[1]));
	jput(&b, o, "p99", jsecs(l->pct[2]));
	jput(&b, o, "max", jsecs(l->max));
	if (b.failed) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static void put_outcomes(struct jb *b, json_t *doc,
			 const struct shb_run_info *run,
			 const struct shb_results *r)
{
	char sp[32];
	size_t n;
	json_t *arr = json14_app_outcomes(b, run, r);
	jput(b, doc, "appOutcomes", arr);

	const struct shb_code_count *c;
	n = shb_rpt_error_codes(r, &c);
	arr = json_array();
	for (size_t i = 0; i < n && arr; i++) {
		json_t *o = json_object();
		jput(b, o, "kind", jstr(shb_err_kind_name(c[i].kind)));
		jput(b, o, "space", jstr(shb_err_space_name(sp, sizeof(sp), c[i].space)));
		jput(b, o, "code", jint(c[i].code));
		jput(b, o, "count", jint(c[i].count));
		if (json_array_append_new(arr, o) != 0)
			b->failed = 1;
	}
	jput(b, doc, "errorCodes", arr);
}

/* The result members of 1.2, for the run and for each target alike. */
static void put_results12(struct jb *b, json_t *doc, const struct shb_host *host,
			  const struct shb_run_info *run,
			  const struct shb_results *r)
{
	if (SHB_RPT_HAS(r, struct shb_results, setup_ns))
		jput(b, doc, "setupSeconds", jsecs(r->setup_ns));
	if (SHB_RPT_HAS(r, struct shb_results, rx_body_bytes) && shb_rpt_http(run)) {
		jput(b, doc, "rxHeaderBytes", jint(r->rx_header_bytes));
		jput(b, doc, "rxBodyBytes", jint(r->rx_body_bytes));
		jput(b, doc, "rxHeaderBytesPerResponse",
		    jper(r->rx_header_bytes, r->requests_ok));
		jput(b, doc, "rxBodyBytesPerResponse",
		    jper(r->rx_body_bytes, r->requests_ok));
	}
	if (SHB_RPT_HAS(r, struct shb_results, error_code_count))
		put_outcomes(b, doc, run, r);
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
		jput(b, o, "connect", jsetup(&s.h[SHB_RPT_SETUP_CONNECT]));
		jput(b, o, "handshake", jsetup(&s.h[SHB_RPT_SETUP_HANDSHAKE]));
		jput(b, o, "firstByte", jsetup(&s.h[SHB_RPT_SETUP_FIRST_BYTE]));
		jput(b, doc, "setupTimings", o);
	}
}

/* latencyHistogram and the others of docs/reports.md "Histograms". */
static void put_histograms(struct jb *b, json_t *doc,
			   const struct shb_host *host,
			   const struct shb_results *r)
{
	jput(b, doc, "histogramUnit", json_string("nanoseconds"));
	jput(b, doc, "latencyHistogram", jhdr(host, r->latency));
	if (shb_rpt_answered_known(r))
		jput(b, doc, "latencyErrorReplyHistogram",
		     jhdr(host, r->latency_error_reply));
	if (SHB_RPT_HAS(r, struct shb_results, latency_uncorrected) &&
	    r->latency_uncorrected && r->latency_uncorrected != r->latency)
		jput(b, doc, "latencyUncorrectedHistogram",
		    jhdr(host, r->latency_uncorrected));
	if (SHB_RPT_HAS(r, struct shb_results, first_byte)) {
		json_t *o = json_object();
		jput(b, o, "connect", jhdr(host, r->connect));
		jput(b, o, "handshake", jhdr(host, r->handshake));
		jput(b, o, "firstByte", jhdr(host, r->first_byte));
		jput(b, doc, "setupHistograms", o);
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
	jput(&b, o, "rateTarget", run->rate_milli ?
	    json_real((double)run->rate_milli / 1000.0) : json_null());
	json_t *arr = json_array();
	for (size_t i = 0; i < n && arr; i++) {
		json_t *s = json_object();
		jput(&b, s, "durationSeconds", jsecs(st[i].duration_ns));
		jput(&b, s, "rateFrom", json_real((double)st[i].rate_from_milli / 1000.0));
		jput(&b, s, "rateTo", json_real((double)st[i].rate_to_milli / 1000.0));
		if (json_array_append_new(arr, s) != 0)
			b.failed = 1;
	}
	jput(&b, o, "stages", arr);
	if (SHB_RPT_HAS(r, struct shb_results, schedule_lag_max_ns)) {
		jput(&b, o, "requestsLate", jint(r->requests_late));
		jput(&b, o, "requestsUnsent", jint(r->requests_unsent));
		jput(&b, o, "scheduleLagMaxSeconds", jsecs(r->schedule_lag_max_ns));
		jput(&b, o, "rateAchieved",
		    json_real(shb_rpt_per_sec(r->requests_total, r->elapsed_ns)));
		jput(&b, o, "shortfall", json_boolean(shb_rpt_short(r)));
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
		jput(b, doc, "label", run->label ? jstr(run->label) : json_null());
	if (shb_rpt_compare_count(run) > 1) { /* 1.3: only in a comparison */
		json_t *c = json_object();
		jput(b, c, "index", jint(shb_rpt_compare_index(run)));
		jput(b, c, "count", jint(shb_rpt_compare_count(run)));
		jput(b, doc, "compare", c);
	}
	if (SHB_RPT_HAS(run, struct shb_run_info, shard_count)) {
		json_t *sh = json_null();
		if (run->shard_count > 1) {
			sh = json_object();
			jput(b, sh, "index", jint(run->shard_index));
			jput(b, sh, "count", jint(run->shard_count));
		}
		jput(b, doc, "shard", sh);
	}
	if (SHB_RPT_HAS(run, struct shb_run_info, stage_count))
		jput(b, doc, "openLoop", jopen_loop(run, r));
	if (SHB_RPT_HAS(run, struct shb_run_info, plugin_count)) {
		const struct shb_plugin_info *p;
		size_t n = shb_rpt_plugins(run, &p);
		json_t *arr = json_array();
		for (size_t i = 0; i < n && arr; i++) {
			json_t *o = json_object();
			jput(b, o, "role", jstr(p[i].role));
			jput(b, o, "name", jstr(p[i].name));
			jput(b, o, "id", jstr(p[i].id));
			jput(b, o, "version", p[i].version ? jstr(p[i].version) : json_null());
			jput(b, o, "abiMinor", jint(p[i].abi_minor));
			jput(b, o, "path", jstr(p[i].path));
			if (json_array_append_new(arr, o) != 0)
				b->failed = 1;
		}
		jput(b, doc, "plugins", arr);
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
	if (shb_rpt_http(run)) /* 1.4: no status codes without HTTP */
		put_statuses(b, doc, r);
	put_errors(b, doc, &e);
	put_latency(b, doc, "latencySeconds", &lat);
	json14_error_reply_latency(b, doc, host, run, r);
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
		jput(b, o, "index", jint(i));
		jput(b, o, "label", ti && ti->label ? jstr(ti->label) : json_null());
		jput(b, o, "url", jstr(ti ? ti->url : NULL));
		jput(b, o, "method", shb_rpt_http(run) ? jstr(ti ? ti->method : NULL)
					       : json_null());
		jput(b, o, "weight", jint(ti ? ti->weight : 1));
		struct shb_rpt_share sh;
		shb_rpt_target_share(r, run, i, &sh);
		jput(b, o, "weightShare", sh.intended < 0 ? json_null() :
		    json_real(sh.intended));
		jput(b, o, "requestShare", sh.achieved < 0 ? json_null() :
		    json_real(sh.achieved));
		put_result(b, o, host, run, t);
		json14_unmeasured(b, o, shb_rpt_measured(r, t));
		if (json_array_append_new(arr, o) != 0)
			b->failed = 1;
	}
	jput(b, doc, "targets", arr);
}

/* --interval: one object per interval, deltas (never cumulative); times
 * in seconds from the start of the measured load; latency null when no
 * request of the interval was ok. */
static void put_intervals(struct jb *b, json_t *doc, const struct shb_rpt *j,
			  const struct shb_results *r)
{
	if (!j->nivals)
		return;
	json_t *arr = json_array();
	for (size_t i = 0; i < j->nivals; i++) {
		const struct shb_rpt_ival *v = &j->ivals[i];
		json_t *o = json_object();
		jput(b, o, "index", jint(v->index));
		jput(b, o, "startSeconds", jsecs(v->start_ns));
		jput(b, o, "durationSeconds", jsecs(v->len_ns));
		jput(b, o, "ok", jint(v->ok));
		jput(b, o, "errors", jint(v->errors));
		if (v->answered_known)
			jput(b, o, "answered", jint(v->answered));
		jput(b, o, "requestsPerSec", json_real(shb_rpt_per_sec(v->ok, v->len_ns)));
		jput(b, o, "bytesSent", jint(v->bytes_sent));
		jput(b, o, "bytesReceived", jint(v->bytes_received));
		if (v->ok) {
			json_t *lat = json_object();
			jput(b, lat, "p50", jsecs(v->p50));
			jput(b, lat, "p90", jsecs(v->p90));
			jput(b, lat, "p99", jsecs(v->p99));
			jput(b, lat, "max", jsecs(v->max));
			jput(b, o, "latency", lat);
			/* what shb merge sums to merge intervals exactly;
			 * absent when the host cannot walk histograms */
			if (v->hdr || v->hdr_len) {
				char *owned;
				const char *t = shb_rpt_spool_text(j, v, &owned);
				jput(b, o, "latencyHistogram", t ? json_string(t) : NULL);
				free(owned);
			}
		} else {
			jput(b, o, "latency", json_null());
		}
		if (v->hdr_error_reply) /* 1.4, for shb merge */
			jput(b, o, "latencyErrorReplyHistogram",
			     json_string(v->hdr_error_reply));
		json_metrics_ival(b, o, v, r);
		if (json_array_append_new(arr, o) != 0)
			b->failed = 1;
	}
	jput(b, doc, "intervals", arr);
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
	if (rc < 0 || !shb_rpt_error_replies(r))
		return rc;
	if (!(h = jhdr(j->host, r->latency_error_reply)))
		return SHB_E_NOMEM;
	b64 = json_string_value(h);
	v->hdr_error_reply = b64 ? strdup(b64) : NULL;
	rc = b64 && !v->hdr_error_reply ? SHB_E_NOMEM : SHB_OK;
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
	jput(b, doc, "loadStart", json_string(buf));
}

/* 1.3: JA3 and JA4 of shb's own ClientHello, only when the core knows
 * them (a TLS run whose ClientHello was seen). */
static void put_tls_fp(struct jb *b, json_t *doc, const struct shb_results *r)
{
	if (!SHB_RPT_HAS(r, struct shb_results, tls_ja4))
		return;
	if (r->tls_ja3)
		jput(b, doc, "tlsJa3", jstr(r->tls_ja3));
	if (r->tls_ja4)
		jput(b, doc, "tlsJa4", jstr(r->tls_ja4));
	/* 1.4: the protocol's own, when its module handed them */
	if (!SHB_RPT_HAS(r, struct shb_results, h3_settings_fingerprint))
		return;
	if (r->h2_fingerprint)
		jput(b, doc, "h2Fingerprint", jstr(r->h2_fingerprint));
	if (r->quic_tp_fingerprint)
		jput(b, doc, "quicTpFingerprint", jstr(r->quic_tp_fingerprint));
	if (r->h3_settings_fingerprint)
		jput(b, doc, "h3SettingsFingerprint", jstr(r->h3_settings_fingerprint));
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
	json14_run(&b, doc, run);
	put_result(&b, doc, j->host, run, r);
	put_run12(&b, doc, run, r);
	put_load_start(&b, doc, r);
	put_tls_fp(&b, doc, r);
	if (SHB_RPT_HAS(r, struct shb_results, target_count))
		put_targets(&b, doc, j->host, run, r);
	json_metrics_put(&b, doc, j->host, r);
	put_intervals(&b, doc, j, r);
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
