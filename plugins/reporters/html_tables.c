/* The html reporter's tables: the run's facts, the totals, connection
 * set-up, targets, status codes and errors. */
#include "html_tables.h"

#include <stdio.h>

#include "common/outcome_names.h"
#include "html_write.h"
#include "report_metrics.h"

/* ---- the run's facts -------------------------------------------------------- */

const char *html_run_label(const struct shb_run_info *run)
{
	return SHB_RPT_HAS(run, struct shb_run_info, label) ? run->label : NULL;
}

int html_open_loop(const struct shb_run_info *run)
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
	if (!html_open_loop(run)) {
		html_fact(o, "Load", "closed loop: a new request as soon as one "
			  "ends");
	} else if (n == 0) {
		snprintf(line, sizeof(line), "open loop at %s requests/s",
			 shb_rpt_milli(a, sizeof(a), run->rate_milli));
		html_fact(o, "Load", line);
	}
	for (size_t i = 0; i < n; i++) {
		html_secs(c, sizeof(c), st[i].duration_ns);
		if (st[i].rate_from_milli == st[i].rate_to_milli)
			snprintf(line, sizeof(line), "%s s at %s/s", c,
				 shb_rpt_milli(a, sizeof(a), st[i].rate_from_milli));
		else
			snprintf(line, sizeof(line), "%s s from %s/s to %s/s", c,
				 shb_rpt_milli(a, sizeof(a), st[i].rate_from_milli),
				 shb_rpt_milli(b, sizeof(b), st[i].rate_to_milli));
		html_fact(o, i == 0 ? "Stages (open loop)" : "", line);
	}
	if (run->requests_target)
		html_fact(o, "Requests (-n)", html_u64s(a, sizeof(a), run->requests_target));
	if (run->duration_target_ns)
		html_fact(o, "Duration (-z), s", html_secs(a, sizeof(a), run->duration_target_ns));
}

static void optional_facts(struct shb_rpt_out *o, const struct shb_run_info *run,
			   const struct shb_rpt_warmup *w)
{
	char a[32], line[64];
	if (w->known && w->ns)
		html_fact(o, "Warm-up, s", html_secs(a, sizeof(a), w->ns));
	if (SHB_RPT_HAS(run, struct shb_run_info, interval_ns) && run->interval_ns)
		html_fact(o, "Interval, s", html_secs(a, sizeof(a), run->interval_ns));
	if (SHB_RPT_HAS(run, struct shb_run_info, shard_count) &&
	    run->shard_count > 1) {
		snprintf(line, sizeof(line), "%u of %u", run->shard_index + 1,
			 run->shard_count);
		html_fact(o, "Shard", line);
	}
	const struct shb_plugin_info *p;
	size_t n = shb_rpt_plugins(run, &p);
	for (size_t i = 0; i < n; i++) {
		shb_rpt_printf(o, "<tr><th>%s</th><td>", i ? "" : "Plugins");
		html_esc(o, p[i].role);
		shb_rpt_puts(o, " ");
		html_esc(o, p[i].name);
		shb_rpt_puts(o, ": ");
		html_esc(o, p[i].id);
		shb_rpt_puts(o, " ");
		html_esc(o, p[i].version);
		shb_rpt_printf(o, " (ABI 1.%u)</td></tr>\n", p[i].abi_minor);
	}
}

/* 1.4: what shaped the run beside the URL, each only when given. */
static void facts14(struct shb_rpt_out *o, const struct shb_run_info *run)
{
	struct shb_rpt_facts f;
	shb_rpt_facts_of(run, &f);
	if (f.success)
		html_fact(o, "Success", f.success);
	if (f.proxy)
		html_fact(o, "Proxy", f.proxy);
	for (size_t i = 0; i < f.connect_to_count; i++)
		html_fact(o, i ? "" : "Connect to", f.connect_to[i]);
	for (size_t i = 0; i < f.resolve_count; i++)
		html_fact(o, i ? "" : "Resolve", f.resolve[i]);
	if (f.source)
		html_fact(o, "Source", f.source);
	if (f.unix_socket)
		html_fact(o, "Unix socket", f.unix_socket);
}

void html_run_facts(struct shb_rpt_out *o, const struct shb_host *host,
		    const struct shb_run_info *run, const struct shb_results *r)
{
	char a[64], line[64];
	struct shb_rpt_warmup w;
	shb_rpt_warmup_of(host, run, r, &w);
	shb_rpt_puts(o, "<h3>Run</h3>\n<table class=\"facts\">\n");
	html_fact(o, "URL", run->url);
	if (html_run_label(run))
		html_fact(o, "Label", html_run_label(run));
	if (shb_rpt_http(run)) /* 1.4: nothing HTTP for a request model NONE */
		html_fact(o, "Method", run->method);
	snprintf(line, sizeof(line), "%s (%s)", shb_rpt_str(run->proto_display),
		 shb_rpt_str(run->proto_name));
	html_fact(o, "Protocol", line);
	html_fact(o, "Connections", html_u64s(a, sizeof(a), run->connections));
	if (run->parallel > 1)
		html_fact(o, "Streams per connection", html_u64s(a, sizeof(a), run->parallel));
	html_fact(o, "Threads", html_u64s(a, sizeof(a), run->threads));
	if (run->tls)
		html_fact(o, "TLS verify", shb_rpt_tls_verify_name(run->tls_verify));
	facts14(o, run);
	load_facts(o, run);
	optional_facts(o, run, &w);
	if (shb_rpt_start_time(a, sizeof(a), run))
		html_fact(o, "Start", a);
	html_fact(o, "shb version", run->shb_version);
	shb_rpt_puts(o, "</table>\n");
	if (w.known && w.ns)
		shb_rpt_printf(o, "<p class=\"note\">%llu requests ended during "
			       "the warm-up and are left out of every figure.</p>\n",
			       (unsigned long long)w.requests);
}

/* ---- the headline --------------------------------------------------------- */

static void stat(struct shb_rpt_out *o, unsigned idx, const char *id,
		 const char *value, const char *name, int bad)
{
	shb_rpt_printf(o, "<div class=\"stat%s\" id=\"run%u-%s\"><span "
		       "class=\"value\">%s</span><span class=\"name\">%s</span>"
		       "</div>\n", bad ? " bad" : "", idx, id, value, name);
}

void html_headline(struct shb_rpt_out *o, const struct shb_host *host,
		   unsigned idx, const struct shb_results *r)
{
	struct shb_rpt_pcts p = {2, {500000, 990000}};
	struct shb_rpt_latency l;
	char a[32], name[64];
	shb_rpt_read_hist(host, r->latency, &p, &l);
	shb_rpt_printf(o, "<div class=\"headline\" id=\"run%u-headline\">\n", idx);
	stat(o, idx, "rate", html_one_decimal(a, sizeof(a),
		shb_rpt_per_sec(r->requests_ok, r->elapsed_ns)), "ok per second", 0);
	html_latency_cells(&l, 0, a, sizeof(a));
	stat(o, idx, "p50", a, "p50 latency, ms", 0);
	html_latency_cells(&l, 1, a, sizeof(a));
	stat(o, idx, "p99", a, "p99 latency, ms", 0);
	/* The share of all requests, as the totals count them. */
	snprintf(name, sizeof(name), "errors (%s %% of requests)",
		 shb_rpt_fixed(a, sizeof(a), shb_rpt_scale(shb_rpt_per(
			 100 * r->requests_errors, r->requests_total), 1), 1));
	stat(o, idx, "errors", html_u64s(a, sizeof(a), r->requests_errors), name,
	     r->requests_errors > 0);
	stat(o, idx, "duration", html_secs(a, sizeof(a), r->elapsed_ns),
	     "seconds of load", 0);
	shb_rpt_puts(o, "</div>\n");
}

/* ---- the totals ------------------------------------------------------------- */

static void mb_row(struct shb_rpt_out *o, const char *name, uint64_t bytes,
		   uint64_t ns)
{
	char a[32], b[32], line[80];
	double mb = shb_rpt_per_sec(bytes, ns) / (1024.0 * 1024.0);
	snprintf(line, sizeof(line), "%s (%s MB/s)", html_u64s(a, sizeof(a), bytes),
		 shb_rpt_fixed(b, sizeof(b), shb_rpt_scale(mb, 2), 2));
	html_fact(o, name, line);
}

static void open_loop_rows(struct shb_rpt_out *o, const struct shb_run_info *run,
			   const struct shb_results *r)
{
	char a[32];
	if (!SHB_RPT_HAS(r, struct shb_results, schedule_lag_max_ns) ||
	    !html_open_loop(run))
		return;
	html_fact(o, "Started over 1 ms late", html_u64s(a, sizeof(a), r->requests_late));
	html_fact(o, "Due but never sent", html_u64s(a, sizeof(a), r->requests_unsent));
	/* docs/reports.md "Open loop shortfall". */
	html_fact(o, "Rate reached", shb_rpt_short(r) ?
		  "no: more than 5 % of the due requests never sent" : "yes");
	html_fact(o, "Largest schedule lag, ms",
		  shb_rpt_ms(a, sizeof(a), r->schedule_lag_max_ns));
}

/* 1.4: answered requests, and the error replies' latency when any. */
static void answered_rows(struct shb_rpt_out *o, const struct shb_host *host,
			  const struct shb_results *r)
{
	struct shb_rpt_pcts p = {2, {500000, 990000}};
	struct shb_rpt_latency l;
	char a[32], b[32], line[80];
	if (!shb_rpt_answered_known(r))
		return;
	html_fact(o, "Answered (ok and error replies)",
		  html_u64s(a, sizeof(a), r->requests_answered));
	html_fact(o, "Answered per second", html_one_decimal(a, sizeof(a),
		  shb_rpt_per_sec(r->requests_answered, r->elapsed_ns)));
	if (!shb_rpt_error_replies(r))
		return;
	shb_rpt_read_hist(host, r->latency_error_reply, &p, &l);
	html_fact(o, "Error replies", html_u64s(a, sizeof(a), shb_rpt_error_replies(r)));
	snprintf(line, sizeof(line), "%s, %s", shb_rpt_ms(a, sizeof(a), l.pct[0]),
		 shb_rpt_ms(b, sizeof(b), l.pct[1]));
	html_fact(o, "Error-reply latency p50, p99, ms", line);
}

void html_totals(struct shb_rpt_out *o, const struct shb_host *host,
		 const struct shb_run_info *run, const struct shb_results *r)
{
	char a[32], b[32];
	shb_rpt_puts(o, "<h3>Totals</h3>\n<table class=\"facts\">\n");
	html_fact(o, "Requests", html_u64s(a, sizeof(a), r->requests_total));
	html_fact(o, "OK (complete responses)", html_u64s(a, sizeof(a), r->requests_ok));
	html_fact(o, "Errors", html_u64s(a, sizeof(a), r->requests_errors));
	if (r->requests_retried)
		html_fact(o, "Retried", html_u64s(a, sizeof(a), r->requests_retried));
	html_fact(o, "Duration of the load, s", html_secs(a, sizeof(a), r->elapsed_ns));
	html_fact(o, "OK per second",
		  html_one_decimal(a, sizeof(a), shb_rpt_per_sec(r->requests_ok, r->elapsed_ns)));
	answered_rows(o, host, r);
	if (SHB_RPT_HAS(r, struct shb_results, setup_ns) && r->setup_ns)
		html_fact(o, "Set-up before the load, s", html_secs(a, sizeof(a), r->setup_ns));
	open_loop_rows(o, run, r);
	mb_row(o, "Bytes received", r->bytes_received, r->elapsed_ns);
	mb_row(o, "Bytes sent", r->bytes_sent, r->elapsed_ns);
	if (SHB_RPT_HAS(r, struct shb_results, rx_body_bytes) && r->requests_ok &&
	    shb_rpt_http(run) &&
	    (r->rx_header_bytes || r->rx_body_bytes)) {
		char line[80];
		snprintf(line, sizeof(line), "%s header, %s body",
			 html_one_decimal(a, sizeof(a), shb_rpt_per(r->rx_header_bytes, r->requests_ok)),
			 html_one_decimal(b, sizeof(b), shb_rpt_per(r->rx_body_bytes, r->requests_ok)));
		html_fact(o, "Bytes per response", line);
	}
	html_fact(o, "Connections opened", html_u64s(a, sizeof(a), r->connections_opened));
	shb_rpt_puts(o, "</table>\n");
}

/* ---- set-up, targets, statuses, errors ------------------------------------ */

void html_setup_section(struct shb_rpt_out *o, const struct shb_host *host,
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
	html_head_row(o, head, 7);
	for (int i = 0; i < SHB_RPT_SETUP_COUNT; i++) {
		const struct shb_rpt_latency *l = &s.h[i];
		if (!l->count)
			continue;
		char v[6][32];
		uint64_t x[5] = {l->min, l->pct[0], l->pct[1], l->pct[2], l->max};
		html_u64s(v[0], sizeof(v[0]), l->count);
		for (int k = 0; k < 5; k++)
			shb_rpt_ms(v[k + 1], sizeof(v[k + 1]), x[k]);
		const char *cells[] = {names[i], v[0], v[1], v[2], v[3], v[4], v[5]};
		html_row(o, cells, 7);
	}
	shb_rpt_puts(o, "</table>\n<p class=\"note\">Connect and handshake: once "
		     "per connection. First byte: from the send to the first "
		     "byte of the response, per request counted ok.</p>\n");
}

/* 1.4: the protocol's own metrics, a row each: a counter's sum, a
 * histogram's count and spread (ms for a latency, the plain number for a
 * value), with the protocol's help text. */
void html_metrics_section(struct shb_rpt_out *o, const struct shb_host *host,
			  const struct shb_results *r)
{
	static const char *const head[] = {"metric", "kind", "count", "mean",
					   "p50", "p90", "p99", "max", "about"};
	const struct shb_metric_value *m;
	size_t n = shb_rpt_metrics(r, &m);
	if (!n)
		return;
	shb_rpt_puts(o, "<h3>Protocol metrics</h3>\n<table class=\"metrics\">\n");
	html_head_row(o, head, 9);
	for (size_t i = 0; i < n; i++) {
		struct shb_rpt_metric v;
		char c[6][32], unit[64];
		shb_rpt_metric_read(host, &m[i], &v);
		html_u64s(c[0], sizeof(c[0]), v.count);
		uint64_t x[5] = {v.mean, v.p50, v.p90, v.p99, v.max};
		for (int k = 0; k < 5; k++)
			if (v.hist && v.count)
				shb_rpt_metric_text(c[k + 1], sizeof(c[k + 1]), m[i].kind, x[k]);
			else
				c[k + 1][0] = '\0';
		snprintf(unit, sizeof(unit), "%s%s",
			 shb_metric_kind_name(m[i].kind),
			 m[i].kind == SHB_METRIC_LATENCY ? ", ms" : "");
		const char *cells[] = {shb_rpt_str(m[i].name), unit, c[0], c[1], c[2],
				       c[3], c[4], c[5], shb_rpt_str(m[i].help)};
		html_row(o, cells, 9);
	}
	shb_rpt_puts(o, "</table>\n");
}

void html_targets_section(struct shb_rpt_out *o, const struct shb_host *host,
			  const struct shb_run_info *run,
			  const struct shb_results *r)
{
	static const char *const head[] = {"target", "URL", "ok", "errors",
					   "ok/s", "p50, ms", "p99, ms"};
	size_t n = shb_rpt_target_count(r);
	if (n == 0)
		return;
	shb_rpt_puts(o, "<h3>Targets</h3>\n<table class=\"targets\">\n");
	html_head_row(o, head, 7);
	for (size_t i = 0; i < n; i++) {
		const struct shb_target_info *ti;
		const struct shb_results *t = shb_rpt_target(r, run, i, &ti);
		if (!t)
			continue;
		struct shb_rpt_pcts p = {2, {500000, 990000}};
		struct shb_rpt_latency l;
		char v[5][32];
		shb_rpt_read_hist(host, t->latency, &p, &l);
		html_u64s(v[0], sizeof(v[0]), t->requests_ok);
		html_u64s(v[1], sizeof(v[1]), t->requests_errors);
		html_one_decimal(v[2], sizeof(v[2]), shb_rpt_per_sec(t->requests_ok, t->elapsed_ns));
		html_latency_cells(&l, 0, v[3], sizeof(v[3]));
		html_latency_cells(&l, 1, v[4], sizeof(v[4]));
		const char *cells[] = {ti ? ti->label : "", ti ? ti->url : "",
				       v[0], v[1], v[2], v[3], v[4]};
		html_row(o, cells, 7);
	}
	shb_rpt_puts(o, "</table>\n");
}

/* Application outcomes, by the run's names (1.4) where it has them. */
static void app_outcomes(struct shb_rpt_out *o, const struct shb_run_info *run,
			 const struct shb_results *r)
{
	const struct shb_app_count *ap;
	struct shb_outcome_table t;
	size_t n = shb_rpt_app_outcomes(r, &ap);
	shb_rpt_outcomes_of(run, &t);
	if (n == 0)
		return;
	static const char *const ahead[] = {"application outcome", "code",
					    "count", "counted"};
	shb_rpt_puts(o, "<table class=\"app-outcomes\">\n");
	html_head_row(o, ahead, 4);
	for (size_t i = 0; i < n; i++) {
		char sp[32], c[32], k[32];
		const char *code = shb_outcome_code_name(&t, ap[i].space, ap[i].code);
		const char *cells[] = {shb_outcome_space_name(sp, sizeof(sp), &t,
							      ap[i].space),
				       code ? code : html_u64s(c, sizeof(c), ap[i].code),
				       html_u64s(k, sizeof(k), ap[i].count),
				       ap[i].ok ? "ok" : "failed"};
		html_row(o, cells, 4);
	}
	shb_rpt_puts(o, "</table>\n");
}

void html_status_section(struct shb_rpt_out *o, const struct shb_run_info *run,
			 const struct shb_results *r)
{
	static const char *const head[] = {"status", "responses"};
	char a[32], b[32];
	if (!shb_rpt_http(run)) { /* 1.4: a protocol without statuses */
		app_outcomes(o, run, r);
		return;
	}
	shb_rpt_puts(o, "<h3>Status codes</h3>\n");
	if (r->status_count == 0) {
		shb_rpt_puts(o, "<p class=\"note\">No response had a status.</p>\n");
		return;
	}
	shb_rpt_puts(o, "<table class=\"statuses\">\n");
	html_head_row(o, head, 2);
	for (size_t i = 0; i < r->status_count; i++) {
		const char *cells[] = {html_u64s(a, sizeof(a), r->statuses[i].code),
				       html_u64s(b, sizeof(b), r->statuses[i].count)};
		html_row(o, cells, 2);
	}
	shb_rpt_puts(o, "</table>\n");
	app_outcomes(o, run, r);
}

static void error_row(struct shb_rpt_out *o, const char *kind, uint64_t count,
		      const char *sample)
{
	char a[32];
	shb_rpt_printf(o, "<tr><th>%s</th><td>%s</td><td class=\"text\">", kind,
		       html_u64s(a, sizeof(a), count));
	html_esc(o, sample);
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
	html_head_row(o, head, 4);
	for (size_t i = 0; i < n; i++) {
		char sp[32], code[32], k[32];
		const char *cells[] = {shb_err_kind_name(c[i].kind),
				       shb_err_space_name(sp, sizeof(sp), c[i].space),
				       html_u64s(code, sizeof(code), c[i].code),
				       html_u64s(k, sizeof(k), c[i].count)};
		html_row(o, cells, 4);
	}
	shb_rpt_puts(o, "</table>\n");
}

void html_error_section(struct shb_rpt_out *o, const struct shb_results *r)
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
	html_head_row(o, head, 3);
	for (int k = 0; k < e.kinds; k++)
		if (e.count[k])
			error_row(o, shb_err_kind_names[k], e.count[k], e.sample[k]);
	if (e.other)
		error_row(o, "other", e.other, e.other_sample);
	shb_rpt_puts(o, "</table>\n");
	error_codes(o, r);
}
