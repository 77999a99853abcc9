#include "results/results.h"

#include <stdlib.h>
#include <string.h>

const uint32_t shb_results_pcts[SHB_RESULTS_PCT_COUNT] = {
	100000, 250000, 500000, 750000, 900000, 950000, 990000, 999000, 999900,
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_app(const void *x, const void *y)
{
	const struct shb_app_count *a = x, *b = y;
	int c = cmp_u64(a->space, b->space);
	if (!c)
		c = cmp_u64(a->code, b->code);
	return c ? c : cmp_u64(a->ok, b->ok);
}

static int cmp_code(const void *x, const void *y)
{
	const struct shb_code_count *a = x, *b = y;
	int c = cmp_u64(a->kind, b->kind);
	if (!c)
		c = cmp_u64(a->space, b->space);
	return c ? c : cmp_u64(a->code, b->code);
}

static void build_statuses(struct shb_results_buf *b, const struct shb_stats *s)
{
	size_t n = 0;
	for (uint32_t code = 100; code < SHB_STATUS_SLOTS; code++) {
		if (!s->status[code])
			continue;
		b->statuses[n].code = code;
		b->statuses[n].reserved0 = 0;
		b->statuses[n].count = s->status[code];
		n++;
	}
	b->r.statuses = b->statuses;
	b->r.status_count = n;
}

/* errors: the six kinds of 1.1, so that a 1.1 reporter never meets a kind
 * it does not know; errors_ex: every kind. */
static void build_errors(struct shb_results_buf *b, const struct shb_stats *s)
{
	size_t n = 0, nx = 0;
	for (uint32_t k = 0; k < SHB_ERRK_EX_COUNT; k++) {
		if (!s->err_kind[k])
			continue;
		struct shb_error_count e = {
			.kind = k,
			.count = s->err_kind[k],
			.sample = s->err_sample[k][0] ? s->err_sample[k] : NULL,
		};
		b->errors_ex[nx++] = e;
		if (k < SHB_ERRK_COUNT)
			b->errors[n++] = e;
	}
	b->r.errors = b->errors;
	b->r.error_count = n;
	b->r.errors_ex = b->errors_ex;
	b->r.error_ex_count = nx;
}

static void build_apps(struct shb_results_buf *b, const struct shb_stats *s)
{
	size_t n = s->napp;
	memcpy(b->apps, s->app, n * sizeof(b->apps[0]));
	for (uint32_t ok = 0; ok < 2; ok++)
		if (s->app_over[ok])
			b->apps[n++] = (struct shb_app_count){
				.space = SHB_OVERFLOW_SPACE, .ok = ok,
				.code = SHB_OVERFLOW_CODE, .count = s->app_over[ok]};
	qsort(b->apps, n, sizeof(b->apps[0]), cmp_app);
	b->r.app_outcomes = b->apps;
	b->r.app_outcome_count = n;
}

static void build_codes(struct shb_results_buf *b, const struct shb_stats *s)
{
	size_t n = s->ncode;
	memcpy(b->codes, s->code, n * sizeof(b->codes[0]));
	for (uint32_t k = 0; k < SHB_ERRK_EX_COUNT; k++)
		if (s->code_over[k])
			b->codes[n++] = (struct shb_code_count){
				.kind = k, .space = SHB_OVERFLOW_SPACE,
				.code = SHB_OVERFLOW_CODE, .count = s->code_over[k]};
	qsort(b->codes, n, sizeof(b->codes[0]), cmp_code);
	b->r.error_codes = b->codes;
	b->r.error_code_count = n;
}

/* The protocol's metrics in its order; none in a per-target result,
 * whose statistics never hold them. */
static void build_metrics(struct shb_results_buf *b, const struct shb_stats *s)
{
	const struct shb_metrics *m = &s->metrics;
	for (uint32_t i = 0; i < m->n; i++)
		b->metrics[i] = (struct shb_metric_value){
			.kind = m->defs[i].kind,
			.name = m->defs[i].name,
			.unit = m->defs[i].unit,
			.help = m->defs[i].help,
			.count = shb_metrics_count(m, i),
			.hist = shb_metrics_is_hist(m->defs[i].kind) ?
				shb_histo_abi(&m->hist[i]) : NULL,
		};
	b->r.metrics = m->n ? b->metrics : NULL;
	b->r.metric_count = m->n;
}

void shb_results_build(struct shb_results_buf *b, const struct shb_stats *s,
		       const struct shb_run_info *info, uint64_t elapsed_ns,
		       int interrupted)
{
	struct shb_results *r = &b->r;
	memset(r, 0, sizeof(*r));
	r->struct_size = sizeof(*r);
	r->kind = SHB_RESULTS_TOTAL;
	r->interrupted = interrupted ? 1 : 0;
	r->run = info;
	r->elapsed_ns = elapsed_ns;
	r->requests_ok = s->ok;
	r->requests_errors = s->errors;
	r->requests_total = s->ok + s->errors;
	r->requests_retried = s->retried;
	r->bytes_sent = s->bytes_sent;
	r->bytes_received = s->bytes_recv;
	r->connections_opened = s->conns_opened;
	r->rx_header_bytes = s->rx_header_bytes;
	r->rx_body_bytes = s->rx_body_bytes;
	build_statuses(b, s);
	build_errors(b, s);
	build_apps(b, s);
	build_codes(b, s);
	r->latency = shb_histo_abi(&s->latency);
	/* Closed loop: every request is sent when it is due, so the two
	 * latencies are one histogram. */
	r->latency_uncorrected = s->open_loop ?
				 shb_histo_abi(&s->latency_uncorrected) : r->latency;
	r->requests_late = s->late;
	r->requests_unsent = s->unsent;
	r->schedule_lag_max_ns = s->lag_max;
	r->connect = shb_histo_abi(&s->connect);
	r->handshake = shb_histo_abi(&s->handshake);
	r->first_byte = shb_histo_abi(&s->first_byte);
	r->requests_answered = s->ok + s->error_replies;
	r->latency_error_reply = shb_histo_abi(&s->latency_error_reply);
	r->measured = SHB_MEASURED_BYTES | SHB_MEASURED_CONNECTIONS;
	build_metrics(b, s);
}

void shb_results_run_info(struct shb_run_info *info,
			  struct shb_target_info *target,
			  const struct shb_config *cfg, const char *url_text)
{
	memset(target, 0, sizeof(*target));
	target->label = url_text;
	target->url = url_text;
	target->method = cfg->method;
	target->weight = 1;
	target->origin = 0;
	info->shard_index = 0;
	info->shard_count = 1;
	info->rate_milli = cfg->rate_milli;
	info->stages = cfg->stages;
	info->stage_count = cfg->stage_count;
	info->warmup_ns = cfg->warmup_ns;
	info->interval_ns = 0;
	info->targets = target;
	info->target_count = 1;
	info->label = NULL;
	info->percentiles_ppm = cfg->percentile_count ? cfg->percentiles :
							 shb_results_pcts;
	info->percentile_count = cfg->percentile_count ? cfg->percentile_count :
							 SHB_RESULTS_PCT_COUNT;
}

void shb_results_run_facts(struct shb_run_info *info,
			   struct shb_target_info *target,
			   const struct shb_config *cfg,
			   const struct shb_proto_request *req)
{
	info->request_model = req->request_model;
	info->reserved1 = 0;
	if (req->request_model == SHB_REQMODEL_NONE) {
		/* No method is sent: reports show none. */
		info->method = "";
		target->method = "";
	}
	info->outcome_spaces = req->outcome_spaces;
	info->outcome_space_count = req->outcome_space_count;
	info->success = shb_success_text(&req->success);
	info->proxy = NULL; /* the engine's: the proxy a run used */
	info->connect_to = (const char *const *)cfg->typed.connect_to;
	info->connect_to_count = cfg->typed.connect_to_count;
	info->resolve = (const char *const *)cfg->typed.resolve;
	info->resolve_count = cfg->typed.resolve_count;
	info->source = cfg->typed.source;
	info->unix_socket = cfg->unix_socket;
}
