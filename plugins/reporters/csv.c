/* The "csv" reporter: a header row and one summary row per run, integer
 * values with the unit in the column name, fields quoted per RFC 4180
 * where needed. Option "noheader" leaves the header out, for appending
 * runs to one file. Columns are documented in docs/reports.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_common.h"
#include "report_metrics.h"

#define OPT_NOHEADER (1u << 0)

static const char *const csv_options[] = {"noheader", NULL};

/* The columns before the percentiles, and after them. */
static const char *const head_cols[] = {
	"url", "method", "protocol", "threads", "connections", "parallel",
	"duration_ns", "interrupted", "requests_total", "requests_ok",
	"requests_errors", "connect_errors", "tls_errors", "read_errors",
	"write_errors", "timeout_errors", "protocol_errors", "retried",
	"requests_per_sec", "bytes_received", "bytes_sent",
	"connections_opened", "latency_min_ns", "latency_mean_ns",
	"latency_stddev_ns", "latency_max_ns",
};

/* Columns are only appended, so that rows of older runs still line up.
 * The status classes are left out for a protocol without HTTP (1.4). */
static const char *const status_cols[] = {
	"status_2xx", "status_3xx", "status_4xx", "status_5xx", "status_other",
};
static const char *const tail_cols[] = {
	"start_time", "shb_version", "warmup_ns", "warmup_requests",
};

/* Since ABI 1.2, appended when the core's results carry 1.2 members (a
 * 1.1 core's report keeps the columns above, unchanged). */
static const char *const v12_cols[] = {
	"label", "target_index", "shard_index", "shard_count", "rate_milli",
	"setup_ns", "rx_header_bytes", "rx_body_bytes",
	"rx_header_bytes_per_response", "rx_body_bytes_per_response",
	"application_errors", "requests_late", "requests_unsent",
	"schedule_lag_max_ns", "latency_uncorrected_mean_ns",
	"latency_uncorrected_p50_ns", "latency_uncorrected_p90_ns",
	"latency_uncorrected_p99_ns", "latency_uncorrected_max_ns",
};
/* Then count, mean, p50, p90, p99, max of each set-up histogram, then: */
static const char *const setup_stats[] = {
	"count", "mean_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns",
};
static const char *const v12_tail_cols[] = {
	"app_outcomes", "error_codes", "stages", "plugins",
};

/* Since ABI 1.4, appended when the core gives answered requests. */
static const char *const v14_cols[] = {
	"requests_answered", "answered_per_sec", "error_replies",
	"error_reply_p50_ns", "error_reply_p99_ns", "error_reply_max_ns",
	"request_model", "success", "proxy", "connect_to", "resolve", "source",
	"unix_socket",
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static int has_v12(const struct shb_results *r)
{
	return SHB_RPT_HAS(r, struct shb_results, latency_uncorrected);
}

/* A row is built field by field; each field after the first gets a comma. */
struct row {
	struct shb_rpt_out *o;
	int n;
};

static void sep(struct row *w)
{
	if (w->n++ > 0)
		shb_rpt_puts(w->o, ",");
}

/* RFC 4180: a field holding a comma, a quote, CR or LF is quoted, and its
 * quotes doubled. */
static void field_str(struct row *w, const char *s)
{
	sep(w);
	s = shb_rpt_str(s);
	if (s[strcspn(s, ",\"\r\n")] == '\0') {
		shb_rpt_puts(w->o, s);
		return;
	}
	shb_rpt_puts(w->o, "\"");
	for (const char *q; (q = strchr(s, '"')) != NULL; s = q + 1) {
		shb_rpt_write(w->o, s, (size_t)(q - s) + 1);
		shb_rpt_puts(w->o, "\"");
	}
	shb_rpt_puts(w->o, s);
	shb_rpt_puts(w->o, "\"");
}

static void field_u64(struct row *w, uint64_t v)
{
	sep(w);
	shb_rpt_printf(w->o, "%llu", (unsigned long long)v);
}

/* Latency of a run without samples: empty fields, not a made-up 0. */
static void field_lat(struct row *w, const struct shb_rpt_latency *l, uint64_t v)
{
	if (l->count)
		field_u64(w, v);
	else
		sep(w);
}

/* A member the core's struct does not carry: an empty field. */
static void field_opt(struct row *w, int has, uint64_t v)
{
	if (has)
		field_u64(w, v);
	else
		sep(w);
}

/* 1.4: the protocol's metrics after the other columns of a run, before
 * the interval ones: a counter's sum as metric_NAME; a histogram's
 * count, mean, p50, p90, p99 and max as metric_NAME_count ... _max, with
 * _ns after a latency's. */
static const char *const metric_stats[] = {"count", "mean", "p50", "p90", "p99", "max"};
#define METRIC_HIST_COLS 6

static int metric_cols(const struct shb_results *r)
{
	const struct shb_metric_value *m;
	size_t n = shb_rpt_metrics(r, &m);
	int c = 0;
	for (size_t i = 0; i < n; i++)
		c += m[i].kind == SHB_METRIC_COUNTER ? 1 : METRIC_HIST_COLS;
	return c;
}

static void metric_header(struct row *w, const struct shb_results *r)
{
	const struct shb_metric_value *m;
	size_t n = shb_rpt_metrics(r, &m);
	char col[80];
	for (size_t i = 0; i < n; i++) {
		const char *name = shb_rpt_str(m[i].name);
		if (m[i].kind == SHB_METRIC_COUNTER) {
			snprintf(col, sizeof(col), "metric_%s", name);
			field_str(w, col);
			continue;
		}
		for (int k = 0; k < METRIC_HIST_COLS; k++) {
			snprintf(col, sizeof(col), "metric_%s_%s%s", name,
				 metric_stats[k], k && m[i].kind == SHB_METRIC_LATENCY ?
				 "_ns" : "");
			field_str(w, col);
		}
	}
}

/* The run's metrics, or (a target's row, whose result has none) as many
 * empty columns as the run's result `top` has. */
static void metric_fields(struct row *w, const struct shb_host *host,
			  const struct shb_results *r,
			  const struct shb_results *top)
{
	const struct shb_metric_value *m;
	size_t n = shb_rpt_metrics(r, &m);
	if (!n) {
		for (int c = metric_cols(top); c > 0; c--)
			sep(w);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct shb_rpt_metric v;
		shb_rpt_metric_read(host, &m[i], &v);
		field_u64(w, v.count);
		if (m[i].kind == SHB_METRIC_COUNTER)
			continue;
		uint64_t x[5] = {v.mean, v.p50, v.p90, v.p99, v.max};
		for (int k = 0; k < 5; k++) {
			if (v.count)
				field_u64(w, x[k]);
			else
				sep(w);
		}
	}
}

/* An interval's metrics: a counter's sum, a histogram's count and p99. */
static void metric_ival_fields(struct row *w, const struct shb_results *r,
			       const struct shb_rpt_ival *v)
{
	const struct shb_metric_value *m;
	size_t n = shb_rpt_metrics(r, &m);
	for (size_t i = 0; i < n; i++) {
		int has = i < v->nmetric;
		if (has)
			field_u64(w, shb_rpt_ival_count(v, i));
		else
			sep(w);
		if (m[i].kind == SHB_METRIC_COUNTER)
			continue;
		for (int k = 1; k < METRIC_HIST_COLS; k++) {
			if (k == 4 && has && shb_rpt_ival_count(v, i))
				field_u64(w, shb_rpt_ival_p99(v, i));
			else
				sep(w);
		}
	}
}

/* With --interval only, appended after every other column. */
static const char *const ival_cols[] = {"interval_index", "interval_start_ns"};

/* Returns the number of columns. */
static int header(struct shb_rpt_out *o, const struct shb_rpt_latency *l,
		  int v12, int v14, int http, int ivals,
		  const struct shb_results *r)
{
	struct row w = {o, 0};
	char col[48], pct[16];
	for (size_t i = 0; i < COUNT_OF(head_cols); i++)
		field_str(&w, head_cols[i]);
	for (size_t i = 0; i < l->npct; i++) {
		snprintf(col, sizeof(col), "latency_p%s_ns",
			 shb_rpt_pct_label(pct, sizeof(pct), l->ppm[i], '_'));
		field_str(&w, col);
	}
	for (size_t i = 0; http && i < COUNT_OF(status_cols); i++)
		field_str(&w, status_cols[i]);
	for (size_t i = 0; i < COUNT_OF(tail_cols); i++)
		field_str(&w, tail_cols[i]);
	if (v12) {
		for (size_t i = 0; i < COUNT_OF(v12_cols); i++)
			field_str(&w, v12_cols[i]);
		for (int h = 0; h < SHB_RPT_SETUP_COUNT; h++)
			for (size_t i = 0; i < COUNT_OF(setup_stats); i++) {
				snprintf(col, sizeof(col), "%s_%s",
					 shb_rpt_setup_names[h], setup_stats[i]);
				field_str(&w, col);
			}
		for (size_t i = 0; i < COUNT_OF(v12_tail_cols); i++)
			field_str(&w, v12_tail_cols[i]);
	}
	for (size_t i = 0; v14 && i < COUNT_OF(v14_cols); i++)
		field_str(&w, v14_cols[i]);
	metric_header(&w, r);
	for (size_t i = 0; ivals && i < COUNT_OF(ival_cols); i++)
		field_str(&w, ival_cols[i]);
	shb_rpt_puts(o, "\n");
	return w.n;
}

/* 2xx..5xx by class; 1xx and 600..999 fall in "other". */
static void status_classes(const struct shb_results *r, uint64_t cls[5])
{
	memset(cls, 0, 5 * sizeof(cls[0]));
	for (size_t i = 0; i < r->status_count; i++) {
		uint32_t c = r->statuses[i].code / 100;
		cls[(c >= 2 && c <= 5) ? c - 2 : 4] += r->statuses[i].count;
	}
}

/* The lists of 1.2 as one field each: items joined by ';', the parts of
 * an item by ':' (docs/reports.md). */
static void field_list(struct row *w, FILE *f, char **buf)
{
	/* *buf is only up to date after fclose. */
	if (f && fclose(f) == 0 && *buf)
		field_str(w, *buf);
	else
		sep(w);
	free(*buf);
}

/* "space:code:ok=count"; with the run's names (1.4) the space and the
 * code by name ("redis:nil:failed=3"), a code it does not name by number. */
static void field_app_outcomes(struct row *w, const struct shb_run_info *run,
			       const struct shb_results *r)
{
	char *buf = NULL, sp[32], num[24];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const struct shb_app_count *a;
	struct shb_outcome_table t;
	size_t n = shb_rpt_app_outcomes(r, &a);
	shb_rpt_outcomes_of(run, &t);
	for (size_t i = 0; f && i < n; i++) {
		const char *code = shb_outcome_code_name(&t, a[i].space, a[i].code);
		snprintf(num, sizeof(num), "%llu", (unsigned long long)a[i].code);
		fprintf(f, "%s%s:%s:%s=%llu", i ? ";" : "",
			shb_outcome_space_name(sp, sizeof(sp), &t, a[i].space),
			code ? code : num, a[i].ok ? "ok" : "failed",
			(unsigned long long)a[i].count);
	}
	field_list(w, f, &buf);
}

/* The run facts' lists (1.4) as one field each, items joined by ';'. */
static void field_strs(struct row *w, const char *const *v, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	for (size_t i = 0; f && i < n; i++)
		fprintf(f, "%s%s", i ? ";" : "", v[i]);
	if (n)
		field_list(w, f, &buf);
	else {
		if (f)
			fclose(f);
		free(buf);
		sep(w);
	}
}

/* The 1.4 columns of one row: answered requests and the error replies'
 * latency of this result, the run facts. */
static void v14_fields(struct row *w, const struct shb_host *host,
		       const struct shb_run_info *run,
		       const struct shb_results *r)
{
	static const struct shb_rpt_pcts p2 = {2, {500000, 990000}};
	struct shb_rpt_latency l;
	struct shb_rpt_facts f;
	int known = shb_rpt_answered_known(r);
	field_opt(w, known, known ? r->requests_answered : 0);
	field_opt(w, known, known ? shb_rpt_scale(shb_rpt_per_sec(
		r->requests_answered, r->elapsed_ns), 0) : 0);
	field_opt(w, known, shb_rpt_error_replies(r));
	shb_rpt_read_hist(host, known ? r->latency_error_reply : NULL, &p2, &l);
	field_lat(w, &l, l.pct[0]);
	field_lat(w, &l, l.pct[1]);
	field_lat(w, &l, l.max);
	field_str(w, shb_rpt_http(run) ? "http" : "none");
	shb_rpt_facts_of(run, &f);
	field_str(w, f.success);
	field_str(w, f.proxy);
	field_strs(w, f.connect_to, f.connect_to_count);
	field_strs(w, f.resolve, f.resolve_count);
	field_str(w, f.source);
	field_str(w, f.unix_socket);
}

static void field_error_codes(struct row *w, const struct shb_results *r)
{
	char *buf = NULL, sp[32];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const struct shb_code_count *c;
	size_t n = shb_rpt_error_codes(r, &c);
	for (size_t i = 0; f && i < n; i++)
		fprintf(f, "%s%s:%s:%llu=%llu", i ? ";" : "",
			shb_err_kind_name(c[i].kind),
			shb_err_space_name(sp, sizeof(sp), c[i].space),
			(unsigned long long)c[i].code,
			(unsigned long long)c[i].count);
	field_list(w, f, &buf);
}

static void field_stages(struct row *w, const struct shb_run_info *run)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const struct shb_stage *st;
	size_t n = shb_rpt_stages(run, &st);
	for (size_t i = 0; f && i < n; i++)
		fprintf(f, "%s%llu:%llu:%llu", i ? ";" : "",
			(unsigned long long)st[i].duration_ns,
			(unsigned long long)st[i].rate_from_milli,
			(unsigned long long)st[i].rate_to_milli);
	field_list(w, f, &buf);
}

static void field_plugins(struct row *w, const struct shb_run_info *run)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const struct shb_plugin_info *p;
	size_t n = shb_rpt_plugins(run, &p);
	for (size_t i = 0; f && i < n; i++)
		fprintf(f, "%s%s:%s:%s:%s:1.%u:%s", i ? ";" : "",
			shb_rpt_str(p[i].role), shb_rpt_str(p[i].name),
			shb_rpt_str(p[i].id), shb_rpt_str(p[i].version),
			p[i].abi_minor, shb_rpt_str(p[i].path));
	field_list(w, f, &buf);
}

static void field_per(struct row *w, int has, uint64_t total, uint64_t n)
{
	if (has && n)
		field_u64(w, shb_rpt_scale(shb_rpt_per(total, n), 0));
	else
		sep(w);
}

/* The 1.2 columns of one row; `target` is the target's index, or -1 for
 * the run's total row. */
static void v12_fields(struct row *w, const struct shb_host *host,
		       const struct shb_run_info *run,
		       const struct shb_results *r, const char *label,
		       long target)
{
	field_str(w, label);
	if (target >= 0)
		field_u64(w, (uint64_t)target);
	else
		sep(w);
	int has = SHB_RPT_HAS(run, struct shb_run_info, shard_count);
	field_opt(w, has, has ? run->shard_index : 0);
	field_opt(w, has, has ? run->shard_count : 0);
	has = SHB_RPT_HAS(run, struct shb_run_info, rate_milli);
	field_opt(w, has, has ? run->rate_milli : 0);
	has = SHB_RPT_HAS(r, struct shb_results, setup_ns);
	field_opt(w, has, has ? r->setup_ns : 0);
	/* 1.4: no header/body split without HTTP */
	has = SHB_RPT_HAS(r, struct shb_results, rx_body_bytes) && shb_rpt_http(run);
	field_opt(w, has, has ? r->rx_header_bytes : 0);
	field_opt(w, has, has ? r->rx_body_bytes : 0);
	field_per(w, has, has ? r->rx_header_bytes : 0, r->requests_ok);
	field_per(w, has, has ? r->rx_body_bytes : 0, r->requests_ok);
	struct shb_rpt_errors e;
	shb_rpt_sum_errors(r, &e);
	field_opt(w, e.kinds > SHB_ERRK_APPLICATION, e.count[SHB_ERRK_APPLICATION]);
	has = SHB_RPT_HAS(r, struct shb_results, schedule_lag_max_ns);
	field_opt(w, has, has ? r->requests_late : 0);
	field_opt(w, has, has ? r->requests_unsent : 0);
	field_opt(w, has, has ? r->schedule_lag_max_ns : 0);

	/* Uncorrected latency: only under open loop, where it differs. */
	static const struct shb_rpt_pcts p3 = {3, {500000, 900000, 990000}};
	struct shb_rpt_latency u;
	shb_rpt_read_hist(host, shb_rpt_uncorrected(r), &p3, &u);
	field_lat(w, &u, u.mean);
	for (int i = 0; i < 3; i++)
		field_lat(w, &u, u.pct[i]);
	field_lat(w, &u, u.max);

	struct shb_rpt_setup s;
	shb_rpt_read_setup(host, r, &s);
	for (int h = 0; h < SHB_RPT_SETUP_COUNT; h++) {
		const struct shb_rpt_latency *l = &s.h[h];
		field_u64(w, l->count);
		field_lat(w, l, l->mean);
		for (int i = 0; i < 3; i++)
			field_lat(w, l, l->pct[i]);
		field_lat(w, l, l->max);
	}
	field_app_outcomes(w, run, r);
	field_error_codes(w, r);
	field_stages(w, run);
	field_plugins(w, run);
}

/* One row: the run's total (ti NULL) or one target's; `measured`: what
 * it measures (SHB_MEASURED_*), `v14`: the 1.4 columns are there. */
static void summary_row(struct shb_rpt_out *o, const struct shb_host *host,
			const struct shb_run_info *run,
			const struct shb_results *r,
			const struct shb_target_info *ti, long target, int ivals,
			uint32_t measured, int v14, const struct shb_results *top)
{
	int http = shb_rpt_http(run);
	struct shb_rpt_errors e;
	struct shb_rpt_latency lat;
	struct shb_rpt_warmup warm;
	const struct shb_rpt_latency *l = &lat;
	const struct shb_rpt_warmup *x = &warm;
	shb_rpt_warmup_of(host, run, r, &warm);
	shb_rpt_sum_errors(r, &e);
	shb_rpt_read_latency(host, r, run, &lat);
	struct row w = {o, 0};
	field_str(&w, ti ? ti->url : run->url);
	field_str(&w, !http ? NULL : ti ? ti->method : run->method);
	field_str(&w, run->proto_display);
	field_u64(&w, run->threads);
	field_u64(&w, run->connections);
	field_u64(&w, run->parallel);
	field_u64(&w, r->elapsed_ns);
	field_u64(&w, r->interrupted ? 1 : 0);
	field_u64(&w, r->requests_total);
	field_u64(&w, r->requests_ok);
	field_u64(&w, r->requests_errors);
	for (int k = 0; k < SHB_ERRK_COUNT; k++)
		field_u64(&w, e.count[k]);
	field_u64(&w, r->requests_retried);
	field_u64(&w, shb_rpt_scale(shb_rpt_per_sec(r->requests_ok, r->elapsed_ns), 0));
	field_opt(&w, measured & SHB_MEASURED_BYTES, r->bytes_received);
	field_opt(&w, measured & SHB_MEASURED_BYTES, r->bytes_sent);
	field_opt(&w, measured & SHB_MEASURED_CONNECTIONS, r->connections_opened);
	field_lat(&w, l, l->min);
	field_lat(&w, l, l->mean);
	field_lat(&w, l, l->stddev);
	field_lat(&w, l, l->max);
	for (size_t i = 0; i < l->npct; i++)
		field_lat(&w, l, l->pct[i]);
	uint64_t cls[5];
	status_classes(r, cls);
	for (int i = 0; http && i < 5; i++)
		field_u64(&w, cls[i]);
	char start[40];
	field_str(&w, shb_rpt_start_time(start, sizeof(start), run));
	field_str(&w, run->shb_version);
	if (x->known) {
		field_u64(&w, x->ns);
		field_u64(&w, x->requests);
	} else {
		sep(&w);
		sep(&w);
	}
	if (has_v12(r)) {
		const char *label = ti ? ti->label :
			SHB_RPT_HAS(run, struct shb_run_info, label) ? run->label : NULL;
		v12_fields(&w, host, run, r, label, target);
	}
	if (v14)
		v14_fields(&w, host, run, r);
	metric_fields(&w, host, r, top);
	if (ivals) { /* interval_index, interval_start_ns: empty */
		sep(&w);
		sep(&w);
	}
	shb_rpt_puts(o, "\n");
}

/* One interval (--interval): the columns an interval has (its length in
 * duration_ns, its counts, rate, bytes, latency max and the p50, p90 and
 * p99 columns when the run prints them), the others empty, then its index
 * and start. `ncols`: the header's. */
static void interval_row(struct shb_rpt_out *o, const struct shb_run_info *run,
			 const struct shb_rpt_latency *l,
			 const struct shb_rpt_ival *v, int ncols,
			 const struct shb_results *r)
{
	struct row w = {o, 0};
	field_str(&w, run->url);
	field_str(&w, shb_rpt_http(run) ? run->method : NULL);
	field_str(&w, run->proto_display);
	field_u64(&w, run->threads);
	field_u64(&w, run->connections);
	field_u64(&w, run->parallel);
	field_u64(&w, v->len_ns);
	field_u64(&w, 0);
	field_u64(&w, v->ok + v->errors);
	field_u64(&w, v->ok);
	field_u64(&w, v->errors);
	for (int k = 0; k < SHB_ERRK_COUNT + 1; k++) /* kinds, retried */
		sep(&w);
	field_u64(&w, shb_rpt_scale(shb_rpt_per_sec(v->ok, v->len_ns), 0));
	field_u64(&w, v->bytes_received);
	field_u64(&w, v->bytes_sent);
	for (int i = 0; i < 4; i++) /* connections_opened, min, mean, stddev */
		sep(&w);
	if (v->ok)
		field_u64(&w, v->max);
	else
		sep(&w);
	for (size_t i = 0; i < l->npct; i++) {
		uint32_t p = l->ppm[i];
		uint64_t x = p == 500000 ? v->p50 : p == 900000 ? v->p90 : v->p99;
		if (v->ok && (p == 500000 || p == 900000 || p == 990000))
			field_u64(&w, x);
		else
			sep(&w);
	}
	while (w.n < ncols - 2 - metric_cols(r))
		sep(&w);
	metric_ival_fields(&w, r, v);
	field_u64(&w, v->index);
	field_u64(&w, v->start_ns);
	shb_rpt_puts(o, "\n");
}

static shb_ssize discard(void *ctx, const void *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	return (shb_ssize)len;
}

static int csv_end(void *rep, const struct shb_results *r)
{
	struct shb_rpt *c = rep;
	const struct shb_run_info *run = shb_rpt_check(c, r);
	if (!run)
		return SHB_E_INVAL;
	struct shb_rpt_latency lat;
	shb_rpt_read_latency(c->host, r, run, &lat);

	struct shb_rpt_out o;
	shb_rpt_out_init(&o, c->out);
	int ivals = c->nivals > 0;
	static const struct shb_ostream discard_os = {sizeof(discard_os), 0, NULL, discard};
	struct shb_rpt_out sink;
	shb_rpt_out_init(&sink, &discard_os);
	/* The column count, for the interval rows, even without a header.
	 * A comparison (1.3) has one header, then a row per run (its label
	 * and url columns say which): the same settings give the same
	 * columns. */
	int noheader = (c->flags & OPT_NOHEADER) || shb_rpt_compare_index(run) > 0;
	int v14 = shb_rpt_answered_known(r), http = shb_rpt_http(run);
	int ncols = header(noheader ? &sink : &o, &lat, has_v12(r), v14, http,
			   ivals, r);
	summary_row(&o, c->host, run, r, NULL, -1, ivals,
		    shb_rpt_measured(r, r), v14, r);
	/* Several targets: a row each after the total, in run order. */
	for (size_t i = 0; i < shb_rpt_target_count(r); i++) {
		const struct shb_target_info *ti;
		const struct shb_results *t = shb_rpt_target(r, run, i, &ti);
		struct shb_target_info none = {0};
		if (t)
			summary_row(&o, c->host, run, t, ti ? ti : &none,
				    (long)i, ivals, shb_rpt_measured(r, t), v14, r);
	}
	/* --interval: a row per interval after them, in order. */
	for (size_t i = 0; i < c->nivals; i++)
		interval_row(&o, run, &lat, &c->ivals[i], ncols, r);
	return shb_rpt_flush(&o);
}

static int csv_create(const struct shb_host *host,
		      const struct shb_ostream *out, const char *options,
		      void **rep, char *err, size_t errlen)
{
	return shb_rpt_create("csv", csv_options, host, out, options, rep, err,
			      errlen);
}

static const struct shb_report_vtable csv_vt = {
	.struct_size = sizeof(struct shb_report_vtable),
	.create = csv_create,
	.begin = shb_rpt_begin,
	.sample = shb_rpt_sample, /* with --interval only: no WANTS_INTERVALS */
	.end = csv_end,
	.destroy = shb_rpt_destroy,
};

/* --report-opt csv.KEY: the core checks keys against these. */
static const struct shb_option_def csv_option_defs[] = {
	{"noheader", NULL, "leave the header row out (to append runs)"},
	{NULL, NULL, NULL},
};

const struct shb_report_desc shb_rpt_module_desc = {
	.struct_size = sizeof(struct shb_report_desc),
	.flags = 0,
	.name = "csv",
	.summary = "CSV header and one summary row; option: noheader",
	.vt = &csv_vt,
	.option_defs = csv_option_defs,
};

SHB_PLUGIN_DEFINE_FULL("org.shb.report.csv", SHB_VERSION_STRING, "shb", NULL, "MIT",
		       shb_rpt_init, NULL, NULL, SHB_NO_PROTOCOLS,
		       SHB_REPORTERS(&shb_rpt_module_desc));
