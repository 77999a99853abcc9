/* The "json" reporter: one JSON document per run, schemaVersion 1, laid out
 * as docs/shb-report.schema.json describes. Options: "compact" writes it
 * on one line (for appending runs to an NDJSON file). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "report_common.h"

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
		    const struct shb_rpt_ext_run *x)
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
	put(b, doc, "warmupSeconds", x ? jsecs(x->warmup_ns) : json_null());
	put(b, doc, "warmupRequests", x ? jint(x->warmup_requests) : json_null());
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
	for (int k = 0; k < SHB_ERRK_COUNT; k++) {
		put(b, counts, shb_rpt_err_names[k], jint(e->count[k]));
		if (e->sample[k])
			put(b, samples, shb_rpt_err_names[k], jstr(e->sample[k]));
	}
	put(b, doc, "errors", counts);
	put(b, doc, "errorSamples", samples);
}

static void put_latency(struct jb *b, json_t *doc, const struct shb_rpt_latency *l)
{
	if (l->count == 0) {
		put(b, doc, "latencySeconds", json_null());
		return;
	}
	json_t *lat = json_object();
	put(b, lat, "min", jsecs(l->min));
	put(b, lat, "mean", jsecs(l->mean));
	put(b, lat, "stddev", jsecs(l->stddev));
	put(b, lat, "max", jsecs(l->max));
	json_t *pct = json_object();
	for (int i = 0; i < SHB_RPT_PCT_COUNT; i++)
		put(b, pct, shb_rpt_pcts[i].json_key, jsecs(l->pct[i]));
	put(b, lat, "percentiles", pct);
	put(b, doc, "latencySeconds", lat);
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
	struct shb_rpt_errors e;
	struct shb_rpt_latency lat;
	shb_rpt_sum_errors(r, &e);
	shb_rpt_read_latency(j->host, r, &lat);

	struct jb b = {0};
	json_t *doc = json_object();
	put_run(&b, doc, run, shb_rpt_ext_run(j->host));
	put_counts(&b, doc, r, &e);
	put_statuses(&b, doc, r);
	put_errors(&b, doc, &e);
	put_latency(&b, doc, &lat);
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
	int rc = json_dump_callback(doc, dump_cb, &o, flags);
	json_decref(doc);
	shb_rpt_puts(&o, "\n");
	int wrc = shb_rpt_flush(&o);
	if (wrc < 0)
		return wrc;
	return rc == 0 ? SHB_OK : SHB_E_NOMEM;
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
	.sample = NULL,
	.end = json_end,
	.destroy = shb_rpt_destroy,
};

const struct shb_report_desc shb_rpt_module_desc = {
	.struct_size = sizeof(struct shb_report_desc),
	.flags = 0,
	.name = "json",
	.summary = "JSON document (schemaVersion 1); option: compact",
	.vt = &json_vt,
};

SHB_PLUGIN_EXPORT const struct shb_plugin_entry shb_plugin_entry_v1 = {
	.struct_size = sizeof(struct shb_plugin_entry),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_TARGET_ABI_MINOR,
	.flags = 0,
	.id = "org.shb.report.json",
	.version = SHB_VERSION_STRING,
	.vendor = "shb",
	.url = NULL,
	.license = "MIT",
	.init = shb_rpt_init,
	.deinit = NULL,
	.get_factory = shb_rpt_get_factory,
};
