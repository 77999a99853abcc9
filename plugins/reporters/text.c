/* The "text" reporter: a human-readable summary in the layout users know
 * from wrk and oha. Everything is printed at end(); see docs/reports.md. */
#include <stdio.h>
#include <string.h>

#include "report_common.h"
#include "report_metrics.h"

/* Label column: "Connections:   " */
#define LABEL_WIDTH 15

/* Bytes that could move the cursor or change the terminal's state come
 * from servers (error samples) and must not reach a terminal raw. */
static void put_clean(struct shb_rpt_out *o, const char *s)
{
	char buf[256];
	size_t n = 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		buf[n++] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
		if (n == sizeof(buf)) {
			shb_rpt_write(o, buf, n);
			n = 0;
		}
	}
	shb_rpt_write(o, buf, n);
}

static void label(struct shb_rpt_out *o, const char *name)
{
	/* A label as wide as the column still gets a space after it. */
	shb_rpt_printf(o, "%-*s%s", LABEL_WIDTH, name,
		       strlen(name) >= LABEL_WIDTH ? " " : "");
}

static void line_str(struct shb_rpt_out *o, const char *name, const char *v)
{
	label(o, name);
	put_clean(o, shb_rpt_str(v));
	shb_rpt_puts(o, "\n");
}

static void line_u64(struct shb_rpt_out *o, const char *name, uint64_t v)
{
	label(o, name);
	shb_rpt_printf(o, "%llu\n", (unsigned long long)v);
}

static int digits(uint64_t v)
{
	int n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* The run's label (label=URL, ABI 1.2), when it has one. */
static const char *run_label(const struct shb_run_info *run)
{
	return SHB_RPT_HAS(run, struct shb_run_info, label) ? run->label : NULL;
}

static void print_run(struct shb_rpt_out *o, const struct shb_run_info *run)
{
	line_str(o, "URL:", run->url);
	if (run_label(run))
		line_str(o, "Label:", run_label(run));
	line_str(o, "Protocol:", run->proto_display);
	if (shb_rpt_http(run)) /* 1.4: no method for a request model NONE */
		line_str(o, "Method:", run->method);
	line_u64(o, "Threads:", run->threads);
	line_u64(o, "Connections:", run->connections);
	if (run->parallel > 1)
		line_u64(o, "Parallel:", run->parallel);
	if (run->tls)
		line_str(o, "TLS verify:", shb_rpt_tls_verify_name(run->tls_verify));
}

/* 1.3: the fingerprints of shb's own ClientHello, next to the TLS setting,
 * when the core knows them (a TLS run). */
static void print_tls_fp(struct shb_rpt_out *o, const struct shb_results *r)
{
	if (!SHB_RPT_HAS(r, struct shb_results, tls_ja4))
		return;
	if (r->tls_ja3)
		line_str(o, "TLS JA3:", r->tls_ja3);
	if (r->tls_ja4)
		line_str(o, "TLS JA4:", r->tls_ja4);
	/* 1.4: the protocol's own, when its module handed them */
	if (!SHB_RPT_HAS(r, struct shb_results, h3_settings_fingerprint))
		return;
	if (r->h2_fingerprint)
		line_str(o, "H2 Akamai:", r->h2_fingerprint);
	if (r->quic_tp_fingerprint)
		line_str(o, "QUIC params:", r->quic_tp_fingerprint);
	if (r->h3_settings_fingerprint)
		line_str(o, "H3 settings:", r->h3_settings_fingerprint);
}

/* A list of the run facts: a line each, the label on the first. */
static void lines_list(struct shb_rpt_out *o, const char *name,
		       const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		line_str(o, i ? "" : name, v[i]);
}

/* 1.4: what shaped the run beside the URL, each only when given. */
static void print_facts(struct shb_rpt_out *o, const struct shb_run_info *run)
{
	struct shb_rpt_facts f;
	shb_rpt_facts_of(run, &f);
	if (f.success)
		line_str(o, "Success:", f.success);
	if (f.proxy)
		line_str(o, "Proxy:", f.proxy);
	lines_list(o, "Connect to:", f.connect_to, f.connect_to_count);
	lines_list(o, "Resolve:", f.resolve, f.resolve_count);
	if (f.source)
		line_str(o, "Source:", f.source);
	if (f.unix_socket)
		line_str(o, "Unix socket:", f.unix_socket);
}

/* --shard, -R and --stages (ABI 1.2): only when given. */
static void print_schedule(struct shb_rpt_out *o, const struct shb_run_info *run)
{
	char a[32], b[32], d[32];
	if (SHB_RPT_HAS(run, struct shb_run_info, shard_count) &&
	    run->shard_count > 1) {
		label(o, "Shard:");
		shb_rpt_printf(o, "%u/%u\n", run->shard_index, run->shard_count);
	}
	if (SHB_RPT_HAS(run, struct shb_run_info, rate_milli) && run->rate_milli) {
		label(o, "Rate:");
		shb_rpt_printf(o, "%s/s (open loop)\n",
			       shb_rpt_milli(a, sizeof(a), run->rate_milli));
	}
	const struct shb_stage *st;
	size_t n = shb_rpt_stages(run, &st);
	for (size_t i = 0; i < n; i++) {
		label(o, i == 0 ? "Stages:" : "");
		uint64_t ms = st[i].duration_ns / 1000000 +
			      (st[i].duration_ns % 1000000 >= 500000);
		shb_rpt_printf(o, "%ss ", shb_rpt_fixed(d, sizeof(d), ms, 3));
		if (st[i].rate_from_milli == st[i].rate_to_milli)
			shb_rpt_printf(o, "at %s/s\n",
				       shb_rpt_milli(a, sizeof(a), st[i].rate_from_milli));
		else
			shb_rpt_printf(o, "%s/s -> %s/s\n",
				       shb_rpt_milli(a, sizeof(a), st[i].rate_from_milli),
				       shb_rpt_milli(b, sizeof(b), st[i].rate_to_milli));
	}
}

/* --warmup: how long, and how many requests it ended, none counted below. */
static void print_warmup(struct shb_rpt_out *o, const struct shb_rpt_warmup *w)
{
	char secs[32];
	if (!w->known || !w->ns)
		return;
	uint64_t ms = w->ns / 1000000 + (w->ns % 1000000 >= 500000);
	label(o, "Warm-up:");
	shb_rpt_printf(o, "%ss, %llu requests, not counted below\n",
		       shb_rpt_fixed(secs, sizeof(secs), ms, 3),
		       (unsigned long long)w->requests);
}

static void print_requests(struct shb_rpt_out *o, const struct shb_results *r,
			   const struct shb_rpt_errors *e)
{
	char secs[32], rate[32];
	label(o, "Requests:");
	shb_rpt_printf(o, "%llu (%llu ok, %llu errors",
		       (unsigned long long)r->requests_total,
		       (unsigned long long)r->requests_ok,
		       (unsigned long long)r->requests_errors);
	if (e->count[SHB_ERRK_CONNECT])
		shb_rpt_printf(o, ", of which %llu connect",
			       (unsigned long long)e->count[SHB_ERRK_CONNECT]);
	/* elapsed is ns: three decimals of seconds are whole milliseconds,
	 * rounded half up. */
	uint64_t ms = r->elapsed_ns / 1000000 + (r->elapsed_ns % 1000000 >= 500000);
	shb_rpt_printf(o, ") in %ss\n", shb_rpt_fixed(secs, sizeof(secs), ms, 3));
	label(o, "Requests/sec:");
	shb_rpt_printf(o, "%s\n",
		       shb_rpt_fixed(rate, sizeof(rate),
				     shb_rpt_scale(shb_rpt_per_sec(r->requests_ok,
								   r->elapsed_ns), 1), 1));
	if (!shb_rpt_answered_known(r)) /* 1.4: ok plus error replies */
		return;
	label(o, "Answered:");
	shb_rpt_printf(o, "%llu (%llu ok, %llu error replies), %s/s\n",
		       (unsigned long long)r->requests_answered,
		       (unsigned long long)r->requests_ok,
		       (unsigned long long)shb_rpt_error_replies(r),
		       shb_rpt_fixed(rate, sizeof(rate), shb_rpt_scale(
				shb_rpt_per_sec(r->requests_answered, r->elapsed_ns), 1), 1));
}

/* -R or --stages (ABI 1.2). */
static int open_loop(const struct shb_run_info *run)
{
	const struct shb_stage *st;
	return (SHB_RPT_HAS(run, struct shb_run_info, rate_milli) &&
		run->rate_milli) || shb_rpt_stages(run, &st) > 0;
}

/* Open loop short of its rate (shb_rpt_short): how much, and the hint. */
static void print_shortfall(struct shb_rpt_out *o, const struct shb_results *r)
{
	char pct[32], rate[32];
	uint64_t due = r->requests_total + r->requests_unsent;
	label(o, "Shortfall:");
	shb_rpt_printf(o, "%s%% of the due requests never sent (%s req/s sent): "
		       "the rate asked was not reached (raise -c or -p)\n",
		       shb_rpt_fixed(pct, sizeof(pct), shb_rpt_scale(100.0 *
				(double)r->requests_unsent / (double)due, 1), 1),
		       shb_rpt_fixed(rate, sizeof(rate), shb_rpt_scale(
				shb_rpt_per_sec(r->requests_total, r->elapsed_ns), 1), 1));
}

/* ABI 1.2: the connection set-up before the load (not in the time
 * above), and what open loop could not send on time. */
static void print_setup_and_lag(struct shb_rpt_out *o,
				const struct shb_run_info *run,
				const struct shb_results *r)
{
	char secs[32], lag[32];
	if (SHB_RPT_HAS(r, struct shb_results, setup_ns) && r->setup_ns) {
		uint64_t ms = r->setup_ns / 1000000 + (r->setup_ns % 1000000 >= 500000);
		label(o, "Set-up:");
		/* 1.3: no load start and no load time, the run stopped
		 * during its set-up. */
		if (SHB_RPT_HAS(r, struct shb_results, load_start_unix_ns) &&
		    !r->load_start_unix_ns && !r->elapsed_ns)
			shb_rpt_printf(o, "%ss, stopped before the load started\n",
				       shb_rpt_fixed(secs, sizeof(secs), ms, 3));
		else
			shb_rpt_printf(o, "%ss before the load, not in the time above\n",
				       shb_rpt_fixed(secs, sizeof(secs), ms, 3));
	}
	if (SHB_RPT_HAS(r, struct shb_results, schedule_lag_max_ns) &&
	    open_loop(run)) {
		label(o, "Schedule:");
		shb_rpt_printf(o, "%llu late, %llu unsent, largest lag %s ms\n",
			       (unsigned long long)r->requests_late,
			       (unsigned long long)r->requests_unsent,
			       shb_rpt_ms(lag, sizeof(lag), r->schedule_lag_max_ns));
	}
	if (open_loop(run) && shb_rpt_short(r))
		print_shortfall(o, r);
}

static char *mb_per_sec(char *buf, size_t len, uint64_t bytes, uint64_t ns)
{
	double mb = shb_rpt_per_sec(bytes, ns) / (1024.0 * 1024.0);
	return shb_rpt_fixed(buf, len, shb_rpt_scale(mb, 2), 2);
}

/* Header and body bytes per complete response, one decimal (ABI 1.2). */
static int per_response(const struct shb_results *r, char *hdr, char *body,
			size_t len)
{
	if (!SHB_RPT_HAS(r, struct shb_results, rx_body_bytes) ||
	    r->requests_ok == 0 || (!r->rx_header_bytes && !r->rx_body_bytes))
		return 0;
	shb_rpt_fixed(hdr, len, shb_rpt_scale(shb_rpt_per(r->rx_header_bytes,
							  r->requests_ok), 1), 1);
	shb_rpt_fixed(body, len, shb_rpt_scale(shb_rpt_per(r->rx_body_bytes,
							   r->requests_ok), 1), 1);
	return 1;
}

static void print_transfer(struct shb_rpt_out *o, const struct shb_results *r,
			   int http)
{
	char rx[32], tx[32];
	label(o, "Transfer:");
	shb_rpt_printf(o, "recv %s MB/s (%llu bytes), sent %s MB/s (%llu bytes)\n",
		       mb_per_sec(rx, sizeof(rx), r->bytes_received, r->elapsed_ns),
		       (unsigned long long)r->bytes_received,
		       mb_per_sec(tx, sizeof(tx), r->bytes_sent, r->elapsed_ns),
		       (unsigned long long)r->bytes_sent);
	if (http && per_response(r, rx, tx, sizeof(rx))) {
		label(o, "Per response:");
		shb_rpt_printf(o, "%s header bytes, %s body bytes\n", rx, tx);
	}
	line_u64(o, "Conns opened:", r->connections_opened);
	if (r->requests_retried)
		line_u64(o, "Retried:", r->requests_retried);
	if (r->interrupted)
		line_str(o, "Interrupted:", "yes");
}

static void print_statuses(struct shb_rpt_out *o, const struct shb_results *r)
{
	if (r->status_count == 0) {
		line_str(o, "Status codes:", "none");
		return;
	}
	int w = 1;
	for (size_t i = 0; i < r->status_count; i++)
		if (digits(r->statuses[i].count) > w)
			w = digits(r->statuses[i].count);
	shb_rpt_puts(o, "Status codes:\n");
	for (size_t i = 0; i < r->status_count; i++)
		shb_rpt_printf(o, "  [%u] %*llu\n", r->statuses[i].code, w,
			       (unsigned long long)r->statuses[i].count);
}

/* "[grpc 14]", "[redis nil]" with the run's names (1.4). */
static const char *app_name(char *buf, size_t len,
			    const struct shb_outcome_table *t,
			    const struct shb_app_count *a)
{
	char l[64];
	snprintf(buf, len, "[%s]", shb_rpt_app_label(l, sizeof(l), t, a));
	return buf;
}

/* ABI 1.2: application outcomes (grpc-status, WebSocket close codes) as
 * "[grpc 14]  10 failed", aligned like the status codes. */
static void print_app_outcomes(struct shb_rpt_out *o,
			       const struct shb_run_info *run,
			       const struct shb_results *r)
{
	const struct shb_app_count *a;
	size_t n = shb_rpt_app_outcomes(r, &a);
	char name[80];
	struct shb_outcome_table t;
	shb_rpt_outcomes_of(run, &t);
	int nw = 1, w = 1;
	for (size_t i = 0; i < n; i++) {
		if ((int)strlen(app_name(name, sizeof(name), &t, &a[i])) > nw)
			nw = (int)strlen(name);
		if (digits(a[i].count) > w)
			w = digits(a[i].count);
	}
	if (n)
		shb_rpt_puts(o, "App outcomes:\n");
	for (size_t i = 0; i < n; i++)
		shb_rpt_printf(o, "  %-*s %*llu %s\n", nw,
			       app_name(name, sizeof(name), &t, &a[i]), w,
			       (unsigned long long)a[i].count,
			       a[i].ok ? "ok" : "failed");
}

static void error_line(struct shb_rpt_out *o, const char *kind, int kw, int w,
		       uint64_t count, const char *sample)
{
	shb_rpt_printf(o, "  %-*s%*llu", kw, kind, w, (unsigned long long)count);
	if (sample) {
		shb_rpt_puts(o, "  ");
		put_clean(o, sample);
	}
	shb_rpt_puts(o, "\n");
}

static void print_errors(struct shb_rpt_out *o, const struct shb_rpt_errors *e)
{
	int w = 0, kw = 10; /* "protocol" and two spaces */
	for (int k = 0; k < e->kinds; k++) {
		if (!e->count[k])
			continue;
		if (digits(e->count[k]) > w)
			w = digits(e->count[k]);
		if ((int)strlen(shb_err_kind_names[k]) + 2 > kw)
			kw = (int)strlen(shb_err_kind_names[k]) + 2;
	}
	if (e->other && digits(e->other) > w)
		w = digits(e->other);
	if (w == 0)
		return;
	shb_rpt_puts(o, "Errors:\n");
	for (int k = 0; k < e->kinds; k++)
		if (e->count[k])
			error_line(o, shb_err_kind_names[k], kw, w, e->count[k],
				   e->sample[k]);
	if (e->other)
		error_line(o, "other", kw, w, e->other, e->other_sample);
}

static const char *code_name(char *buf, size_t len, const struct shb_code_count *c)
{
	char sp[32];
	snprintf(buf, len, "%-12s%s:%llu", shb_err_kind_name(c->kind),
		 shb_err_space_name(sp, sizeof(sp), c->space),
		 (unsigned long long)c->code);
	return buf;
}

/* ABI 1.2: errors by the code the protocol gave, "protocol  h2:8  5". */
static void print_error_codes(struct shb_rpt_out *o, const struct shb_results *r)
{
	const struct shb_code_count *c;
	size_t n = shb_rpt_error_codes(r, &c);
	char name[64];
	int nw = 1, w = 1;
	for (size_t i = 0; i < n; i++) {
		if ((int)strlen(code_name(name, sizeof(name), &c[i])) > nw)
			nw = (int)strlen(name);
		if (digits(c[i].count) > w)
			w = digits(c[i].count);
	}
	if (n)
		shb_rpt_puts(o, "Error codes:\n");
	for (size_t i = 0; i < n; i++)
		shb_rpt_printf(o, "  %-*s  %*llu\n", nw,
			       code_name(name, sizeof(name), &c[i]), w,
			       (unsigned long long)c[i].count);
}

static void print_latency(struct shb_rpt_out *o, const struct shb_rpt_latency *l,
			  const char *what)
{
	char a[32], b[32], c[32], d[32], head[64];
	if (l->count == 0) {
		shb_rpt_printf(o, "%s: no completed requests\n", what);
		return;
	}
	snprintf(head, sizeof(head), "%s (ms):", what);
	label(o, head);
	shb_rpt_printf(o, "min %s, mean %s, stddev %s, max %s\n",
		       shb_rpt_ms(a, sizeof(a), l->min),
		       shb_rpt_ms(b, sizeof(b), l->mean),
		       shb_rpt_ms(c, sizeof(c), l->stddev),
		       shb_rpt_ms(d, sizeof(d), l->max));
	char vals[SHB_RPT_PCT_MAX][32], names[SHB_RPT_PCT_MAX][16];
	int w = 0, nw = 5; /* "99.99" */
	for (size_t i = 0; i < l->npct; i++) {
		shb_rpt_ms(vals[i], sizeof(vals[i]), l->pct[i]);
		shb_rpt_pct_label(names[i], sizeof(names[i]), l->ppm[i], '.');
		if ((int)strlen(vals[i]) > w)
			w = (int)strlen(vals[i]);
		if ((int)strlen(names[i]) > nw)
			nw = (int)strlen(names[i]);
	}
	shb_rpt_printf(o, "%s distribution:\n", what);
	for (size_t i = 0; i < l->npct; i++)
		shb_rpt_printf(o, "  %*s%% in %*s ms\n", nw, names[i], w, vals[i]);
}

/* 1.4: the latency of the error replies, apart from the successes'. */
static void print_error_replies(struct shb_rpt_out *o, const struct shb_host *host,
				const struct shb_results *r)
{
	struct shb_rpt_pcts p = {3, {500000, 900000, 990000}};
	struct shb_rpt_latency l;
	char a[32], b[32], c[32], d[32];
	if (!shb_rpt_error_replies(r))
		return;
	shb_rpt_read_hist(host, r->latency_error_reply, &p, &l);
	label(o, "Error replies:");
	shb_rpt_printf(o, "%llu, latency (ms) p50 %s, p90 %s, p99 %s, max %s\n",
		       (unsigned long long)shb_rpt_error_replies(r),
		       shb_rpt_ms(a, sizeof(a), l.pct[0]), shb_rpt_ms(b, sizeof(b), l.pct[1]),
		       shb_rpt_ms(c, sizeof(c), l.pct[2]), shb_rpt_ms(d, sizeof(d), l.max));
}

/* ABI 1.2, open loop: latency from the actual send, beside the corrected
 * one above (measured from each request's intended start). */
static void print_uncorrected(struct shb_rpt_out *o, const struct shb_host *host,
			      const struct shb_run_info *run,
			      const struct shb_results *r)
{
	const struct shb_hist *h = shb_rpt_uncorrected(r);
	if (!h)
		return;
	struct shb_rpt_pcts p;
	struct shb_rpt_latency l;
	shb_rpt_pcts_of(run, &p);
	shb_rpt_read_hist(host, h, &p, &l);
	print_latency(o, &l, "Uncorrected latency");
}

/* ABI 1.2: connect, handshake and first-byte times, a table of the ones
 * that were measured. */
static void print_setup_timings(struct shb_rpt_out *o,
				const struct shb_rpt_setup *s)
{
	static const char *const rows[SHB_RPT_SETUP_COUNT] = {
		"connect", "handshake", "first byte",
	};
	if (!s->any)
		return;
	char v[5][32];
	int cw = 5, w = 4; /* "count", "mean" */
	for (int i = 0; i < SHB_RPT_SETUP_COUNT; i++) {
		const struct shb_rpt_latency *l = &s->h[i];
		if (!l->count)
			continue;
		if (digits(l->count) > cw)
			cw = digits(l->count);
		uint64_t vals[5] = {l->mean, l->pct[0], l->pct[1], l->pct[2], l->max};
		for (int k = 0; k < 5; k++)
			if ((int)strlen(shb_rpt_ms(v[k], sizeof(v[k]), vals[k])) > w)
				w = (int)strlen(v[k]);
	}
	shb_rpt_printf(o, "Set-up (ms):   %*s  %*s  %*s  %*s  %*s  %*s\n", cw,
		       "count", w, "mean", w, "p50", w, "p90", w, "p99", w, "max");
	for (int i = 0; i < SHB_RPT_SETUP_COUNT; i++) {
		const struct shb_rpt_latency *l = &s->h[i];
		if (!l->count)
			continue;
		uint64_t vals[5] = {l->mean, l->pct[0], l->pct[1], l->pct[2], l->max};
		shb_rpt_printf(o, "  %-12s %*llu", rows[i], cw,
			       (unsigned long long)l->count);
		for (int k = 0; k < 5; k++)
			shb_rpt_printf(o, "  %*s", w,
				       shb_rpt_ms(v[k], sizeof(v[k]), vals[k]));
		shb_rpt_puts(o, "\n");
	}
}

/* A target's share of the requests, and its weight's: ", 83.4% of
 * requests (weight 83.3%)". */
static void put_share(struct shb_rpt_out *o, const struct shb_results *r,
		      const struct shb_run_info *run, size_t i)
{
	struct shb_rpt_share sh;
	char a[32], w[32];
	shb_rpt_target_share(r, run, i, &sh);
	if (sh.achieved >= 0)
		shb_rpt_printf(o, ", %s%% of requests",
			       shb_rpt_fixed(a, sizeof(a), shb_rpt_scale(sh.achieved * 100, 1), 1));
	if (sh.intended >= 0)
		shb_rpt_printf(o, sh.achieved >= 0 ? " (weight %s%%)" : ", weight %s%%",
			       shb_rpt_fixed(w, sizeof(w), shb_rpt_scale(sh.intended * 100, 1), 1));
}

/* A target's status codes and errors by kind, a line each when it has
 * any: the breakdown the run's own sections give, in short. */
static void print_target_detail(struct shb_rpt_out *o, const struct shb_results *t,
				int http)
{
	struct shb_rpt_errors e;
	const char *sep = " ";
	if (http && t->status_count) {
		shb_rpt_puts(o, "      status");
		for (size_t i = 0; i < t->status_count; i++, sep = ", ")
			shb_rpt_printf(o, "%s[%u] %llu", sep, t->statuses[i].code,
				       (unsigned long long)t->statuses[i].count);
		shb_rpt_puts(o, "\n");
	}
	shb_rpt_sum_errors(t, &e);
	sep = " ";
	for (int k = 0; k < e.kinds; k++) {
		if (!e.count[k])
			continue;
		shb_rpt_printf(o, "%s%s %llu", sep[0] == ' ' ? "      errors " : ", ",
			       shb_err_kind_names[k], (unsigned long long)e.count[k]);
		sep = ", ";
	}
	if (e.other)
		shb_rpt_printf(o, "%sother %llu", sep[0] == ' ' ? "      errors " : ", ",
			       (unsigned long long)e.other);
	if (sep[0] != ' ' || e.other)
		shb_rpt_puts(o, "\n");
}

/* ABI 1.2, several targets: one line each, "[0] label url: ..." with
 * the numbers to compare them by. */
static void print_targets(struct shb_rpt_out *o, const struct shb_host *host,
			  const struct shb_run_info *run,
			  const struct shb_results *r)
{
	size_t n = shb_rpt_target_count(r);
	if (n == 0)
		return;
	shb_rpt_puts(o, "Targets:\n");
	for (size_t i = 0; i < n; i++) {
		const struct shb_target_info *ti;
		const struct shb_results *t = shb_rpt_target(r, run, i, &ti);
		if (!t)
			continue;
		struct shb_rpt_pcts p = {3, {500000, 900000, 990000}};
		struct shb_rpt_latency l;
		char rate[32], a[32], b[32], c[32], hdr[32], body[32];
		shb_rpt_read_hist(host, t->latency, &p, &l);
		shb_rpt_printf(o, "  [%zu] ", i);
		if (ti && ti->label && (!ti->url || strcmp(ti->label, ti->url) != 0)) {
			put_clean(o, ti->label);
			shb_rpt_puts(o, " ");
		}
		put_clean(o, shb_rpt_str(ti ? ti->url : NULL));
		shb_rpt_printf(o, ": %llu ok, %llu errors",
			       (unsigned long long)t->requests_ok,
			       (unsigned long long)t->requests_errors);
		put_share(o, r, run, i);
		shb_rpt_printf(o, ", %s req/s",
			       shb_rpt_fixed(rate, sizeof(rate),
					     shb_rpt_scale(shb_rpt_per_sec(t->requests_ok,
									   t->elapsed_ns), 1), 1));
		if (l.count)
			shb_rpt_printf(o, ", p50 %s p90 %s p99 %s ms",
				       shb_rpt_ms(a, sizeof(a), l.pct[0]),
				       shb_rpt_ms(b, sizeof(b), l.pct[1]),
				       shb_rpt_ms(c, sizeof(c), l.pct[2]));
		if (shb_rpt_http(run) && per_response(t, hdr, body, sizeof(hdr)))
			shb_rpt_printf(o, ", %s + %s bytes/response", hdr, body);
		shb_rpt_puts(o, "\n");
		print_target_detail(o, t, shb_rpt_http(run));
	}
}

/* ABI 1.2 provenance: which plugin files the run used. */
static void print_plugins(struct shb_rpt_out *o, const struct shb_run_info *run)
{
	const struct shb_plugin_info *p;
	size_t n = shb_rpt_plugins(run, &p);
	if (n == 0)
		return;
	shb_rpt_puts(o, "Plugins:\n");
	for (size_t i = 0; i < n; i++) {
		shb_rpt_puts(o, "  ");
		put_clean(o, shb_rpt_str(p[i].role));
		shb_rpt_puts(o, " ");
		put_clean(o, shb_rpt_str(p[i].name));
		shb_rpt_puts(o, ": ");
		put_clean(o, shb_rpt_str(p[i].id));
		if (p[i].version) {
			shb_rpt_puts(o, " ");
			put_clean(o, p[i].version);
		}
		shb_rpt_printf(o, " (ABI 1.%u) ", p[i].abi_minor);
		put_clean(o, shb_rpt_str(p[i].path));
		shb_rpt_puts(o, "\n");
	}
}

/* A comparison's table: one column per run, in the order they ran. */
static void cmp_cell(struct shb_rpt_out *o, int width, const char *v)
{
	shb_rpt_printf(o, " %*s", width, v);
}

static void print_comparison(struct shb_rpt_out *o, const struct shb_rpt *t)
{
	int width = 12;
	char buf[48];
	for (size_t i = 0; i < t->ncmp_rows; i++)
		if ((int)strlen(t->cmp_rows[i].label) > width)
			width = (int)strlen(t->cmp_rows[i].label);
	shb_rpt_printf(o, "\nComparison (%zu runs, one after another):\n%-16s",
		       t->ncmp_rows, "");
	for (size_t i = 0; i < t->ncmp_rows; i++)
		cmp_cell(o, width, t->cmp_rows[i].label);
	shb_rpt_printf(o, "\n%-16s", "  Requests/s");
	for (size_t i = 0; i < t->ncmp_rows; i++) {
		const struct shb_rpt_cmp_row *w = &t->cmp_rows[i];
		cmp_cell(o, width, shb_rpt_fixed(buf, sizeof(buf), shb_rpt_scale(
				 shb_rpt_per_sec(w->ok, w->elapsed_ns), 1), 1));
	}
	shb_rpt_printf(o, "\n%-16s", "  p50 ms");
	for (size_t i = 0; i < t->ncmp_rows; i++)
		cmp_cell(o, width, t->cmp_rows[i].ok ?
			 shb_rpt_ms(buf, sizeof(buf), t->cmp_rows[i].p50) : "-");
	shb_rpt_printf(o, "\n%-16s", "  p99 ms");
	for (size_t i = 0; i < t->ncmp_rows; i++)
		cmp_cell(o, width, t->cmp_rows[i].ok ?
			 shb_rpt_ms(buf, sizeof(buf), t->cmp_rows[i].p99) : "-");
	shb_rpt_printf(o, "\n%-16s", "  OK");
	for (size_t i = 0; i < t->ncmp_rows; i++) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)t->cmp_rows[i].ok);
		cmp_cell(o, width, buf);
	}
	shb_rpt_printf(o, "\n%-16s", "  Errors");
	for (size_t i = 0; i < t->ncmp_rows; i++) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)t->cmp_rows[i].errors);
		cmp_cell(o, width, buf);
	}
	/* Bytes received per ok request: what each server sends differs
	 * (headers, compression), and that explains part of a gap. */
	static const char *const rx_names[2] = {"  Header B/resp", "  Body B/resp"};
	for (int k = 0; k < 2; k++) {
		shb_rpt_printf(o, "\n%-16s", rx_names[k]);
		for (size_t i = 0; i < t->ncmp_rows; i++) {
			const struct shb_rpt_cmp_row *w = &t->cmp_rows[i];
			uint64_t v = k ? w->rx_body : w->rx_header;
			cmp_cell(o, width, w->has_rx && w->ok ?
				 shb_rpt_fixed(buf, sizeof(buf), shb_rpt_scale(
					 shb_rpt_per(v, w->ok), 1), 1) : "-");
		}
	}
	shb_rpt_puts(o, "\n");
	for (size_t i = 0; i < t->ncmp_rows; i++)
		if (t->cmp_rows[i].interrupted)
			shb_rpt_printf(o, "(%s was interrupted)\n", t->cmp_rows[i].label);
}

static int text_end(void *rep, const struct shb_results *r)
{
	struct shb_rpt *t = rep;
	const struct shb_run_info *run = shb_rpt_check(t, r);
	if (!run)
		return SHB_E_INVAL;
	uint32_t ci = shb_rpt_compare_index(run), cn = shb_rpt_compare_count(run);
	if (cn > 1 && shb_rpt_compare_keep(t, run, r) < 0)
		return SHB_E_NOMEM;
	struct shb_rpt_errors e;
	struct shb_rpt_latency lat;
	struct shb_rpt_warmup warm;
	struct shb_rpt_setup setup;
	shb_rpt_sum_errors(r, &e);
	shb_rpt_read_latency(t->host, r, run, &lat);
	shb_rpt_warmup_of(t->host, run, r, &warm);
	shb_rpt_read_setup(t->host, r, &setup);

	struct shb_rpt_out o;
	shb_rpt_out_init(&o, t->out);
	if (cn > 1)
		shb_rpt_printf(&o, "%s== Run %u of %u ==\n", ci ? "\n" : "",
			       ci + 1, cn);
	print_run(&o, run);
	print_tls_fp(&o, r);
	print_facts(&o, run);
	print_schedule(&o, run);
	print_warmup(&o, &warm);
	print_requests(&o, r, &e);
	print_setup_and_lag(&o, run, r);
	print_transfer(&o, r, shb_rpt_http(run));
	if (shb_rpt_http(run))
		print_statuses(&o, r);
	print_app_outcomes(&o, run, r);
	print_errors(&o, &e);
	print_error_codes(&o, r);
	print_latency(&o, &lat, "Latency");
	print_error_replies(&o, t->host, r);
	print_uncorrected(&o, t->host, run, r);
	print_setup_timings(&o, &setup);
	shb_rpt_print_metrics(&o, t->host, r);
	print_targets(&o, t->host, run, r);
	print_plugins(&o, run);
	if (cn > 1 && ci + 1 == cn) {
		print_comparison(&o, t);
		t->ncmp_rows = 0; /* printed */
	}
	return shb_rpt_flush(&o);
}

/* A comparison cut short (Ctrl-C) never reaches its last end(): the table
 * of the runs that did end still comes out. */
static void text_destroy(void *rep)
{
	struct shb_rpt *t = rep;
	if (t && t->ncmp_rows) {
		struct shb_rpt_out o;
		shb_rpt_out_init(&o, t->out);
		print_comparison(&o, t);
		shb_rpt_flush(&o);
	}
	shb_rpt_destroy(rep);
}

static int text_create(const struct shb_host *host,
		       const struct shb_ostream *out, const char *options,
		       void **rep, char *err, size_t errlen)
{
	return shb_rpt_create("text", NULL, host, out, options, rep, err,
			      errlen);
}

static const struct shb_report_vtable text_vt = {
	.struct_size = sizeof(struct shb_report_vtable),
	.create = text_create,
	.begin = shb_rpt_begin,
	.sample = NULL,
	.end = text_end,
	.destroy = text_destroy,
};

/* The text reporter takes no options: the core refuses every key. */
static const struct shb_option_def text_option_defs[] = {
	{NULL, NULL, NULL},
};

const struct shb_report_desc shb_rpt_module_desc = {
	.struct_size = sizeof(struct shb_report_desc),
	.flags = 0,
	.name = "text",
	.summary = "human-readable summary (wrk/oha style)",
	.vt = &text_vt,
	.option_defs = text_option_defs,
};

SHB_PLUGIN_DEFINE_FULL("org.shb.report.text", SHB_VERSION_STRING, "shb", NULL, "MIT",
		       shb_rpt_init, NULL, NULL, SHB_NO_PROTOCOLS,
		       SHB_REPORTERS(&shb_rpt_module_desc));
