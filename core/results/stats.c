#include "results/stats.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define NHIST 6

/* The histograms, in one place so that init, reset and merge agree. */
static const size_t hist_off[NHIST] = {
	offsetof(struct shb_stats, latency),
	offsetof(struct shb_stats, first_byte),
	offsetof(struct shb_stats, connect),
	offsetof(struct shb_stats, handshake),
	offsetof(struct shb_stats, latency_uncorrected),
	offsetof(struct shb_stats, latency_error_reply),
};

static struct shb_histo *hist_at(struct shb_stats *s, int i)
{
	return (struct shb_histo *)(void *)((char *)s + hist_off[i]);
}

static const struct shb_histo *hist_of(const struct shb_stats *s, int i)
{
	return (const struct shb_histo *)(const void *)((const char *)s + hist_off[i]);
}

int shb_stats_init(struct shb_stats *s)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < NHIST; i++) {
		if (shb_histo_init(hist_at(s, i), SHB_HIST_HIGHEST, SHB_HIST_SIGFIGS) < 0) {
			while (i-- > 0)
				shb_histo_destroy(hist_at(s, i));
			return -1;
		}
	}
	return 0;
}

void shb_stats_destroy(struct shb_stats *s)
{
	for (int i = 0; i < NHIST; i++)
		shb_histo_destroy(hist_at(s, i));
	shb_metrics_destroy(&s->metrics);
}

void shb_stats_reset(struct shb_stats *s)
{
	struct shb_histo h[NHIST];
	struct shb_metrics m = s->metrics;
	int open_loop = s->open_loop;
	for (int i = 0; i < NHIST; i++)
		h[i] = *hist_at(s, i);
	memset(s, 0, sizeof(*s));
	s->open_loop = open_loop;
	shb_metrics_reset(&m);
	s->metrics = m;
	for (int i = 0; i < NHIST; i++) {
		shb_histo_reset(&h[i]);
		*hist_at(s, i) = h[i];
	}
}

static void sample_once(char *dst, const char *msg)
{
	if (!dst[0] && msg && msg[0])
		snprintf(dst, SHB_SAMPLE_LEN, "%s", msg);
}

void shb_stats_error(struct shb_stats *s, unsigned kind, const char *msg)
{
	if (kind >= SHB_ERRK_EX_COUNT)
		kind = SHB_ERRK_PROTOCOL;
	s->errors++;
	s->err_kind[kind]++;
	sample_once(s->err_sample[kind], msg);
}

static void add_code(struct shb_stats *s, unsigned kind, uint32_t space,
		     uint64_t code, uint64_t n)
{
	for (uint32_t i = 0; i < s->ncode; i++) {
		struct shb_code_count *e = &s->code[i];
		if (e->kind == kind && e->space == space && e->code == code) {
			e->count += n;
			return;
		}
	}
	if (s->ncode == SHB_TABLE_CAP) {
		s->code_over[kind] += n;
		return;
	}
	s->code[s->ncode++] = (struct shb_code_count){
		.kind = kind, .space = space, .code = code, .count = n};
}

void shb_stats_code(struct shb_stats *s, unsigned kind, uint32_t space,
		    uint64_t code)
{
	if (space == SHB_ERRSPACE_NONE)
		return;
	if (kind >= SHB_ERRK_EX_COUNT)
		kind = SHB_ERRK_PROTOCOL;
	add_code(s, kind, space, code, 1);
}

static void add_app(struct shb_stats *s, uint32_t space, uint64_t code,
		    uint32_t ok, uint64_t n)
{
	for (uint32_t i = 0; i < s->napp; i++) {
		struct shb_app_count *e = &s->app[i];
		if (e->space == space && e->code == code && e->ok == ok) {
			e->count += n;
			return;
		}
	}
	if (s->napp == SHB_TABLE_CAP) {
		s->app_over[ok] += n;
		return;
	}
	s->app[s->napp++] = (struct shb_app_count){
		.space = space, .ok = ok, .code = code, .count = n};
}

void shb_stats_app(struct shb_stats *s, uint32_t space, uint64_t code, int ok)
{
	if (space != SHB_APPSPACE_NONE)
		add_app(s, space, code, ok ? 1 : 0, 1);
}

/* Response bytes of requests counted ok only, so that the reports' bytes
 * per response describe complete responses. */
static void add_rx(struct shb_stats *s, const struct shb_req_result *res)
{
	if (SHB_HAS(res, struct shb_req_result, rx_body_bytes)) {
		s->rx_header_bytes += res->rx_header_bytes;
		s->rx_body_bytes += res->rx_body_bytes;
	}
}

/* Time to first byte: left out when the plugin saw none (SHB_TSTAMP_NONE,
 * or 0 as 1.1 plugins leave it) or gives a time before the send. */
static void add_first_byte(struct shb_stats *s, const struct shb_req_result *res,
			   uint64_t t_start)
{
	if (!SHB_HAS(res, struct shb_req_result, ts_first_byte))
		return;
	shb_tstamp t = res->ts_first_byte;
	if (t == 0 || t == SHB_TSTAMP_NONE || t < t_start)
		return;
	shb_histo_record(&s->first_byte, t - t_start);
}

int shb_stats_response(struct shb_stats *s, const struct shb_req_result *res,
		       uint64_t t_start, uint64_t now)
{
	return shb_stats_response_at(s, res, t_start, t_start, now);
}

/* An answer that counts as an application error: its status (if it has
 * one) among the status codes, its latency among the error replies'. */
static void answer_failed(struct shb_stats *s, uint32_t status, const char *msg,
			  uint64_t latency_ns)
{
	if (status >= 100 && status < SHB_STATUS_SLOTS)
		s->status[status]++;
	shb_stats_error(s, SHB_ERRK_APPLICATION, msg);
	s->error_replies++;
	shb_histo_record(&s->latency_error_reply, latency_ns);
}

int shb_stats_response_at(struct shb_stats *s, const struct shb_req_result *res,
			  uint64_t t_intended, uint64_t t_start, uint64_t now)
{
	uint32_t space = SHB_HAS(res, struct shb_req_result, app_code) ?
			 res->app_space : SHB_APPSPACE_NONE;
	if (space != SHB_APPSPACE_NONE) {
		shb_stats_app(s, space, res->app_code, res->app_ok == 1);
		if (res->app_ok != 1) {
			char msg[SHB_SAMPLE_LEN];
			const char *d = res->detail;
			if (!d || !d[0]) {
				snprintf(msg, sizeof(msg), "application outcome %u:%llu",
					 space, (unsigned long long)res->app_code);
				d = msg;
			}
			answer_failed(s, res->status, d,
				      now > t_intended ? now - t_intended : 0);
			return 0;
		}
	}
	shb_stats_ok(s, res->status, now > t_intended ? now - t_intended : 0);
	if (s->open_loop)
		shb_histo_record(&s->latency_uncorrected,
				 now > t_start ? now - t_start : 0);
	add_first_byte(s, res, t_start);
	add_rx(s, res);
	return 1;
}

void shb_stats_unsuccessful(struct shb_stats *s, const struct shb_req_result *res,
			    const char *msg, uint64_t latency_ns)
{
	answer_failed(s, res->status, msg, latency_ns);
	add_rx(s, res);
}

void shb_stats_failed(struct shb_stats *s, const struct shb_req_result *res,
		      unsigned kind, const char *msg)
{
	shb_stats_error(s, kind, msg);
	if (res->outcome == SHB_REQ_RESET || res->outcome == SHB_REQ_PROTO_ERROR ||
	    res->outcome == SHB_REQ_REFUSED)
		shb_stats_code(s, kind, res->err_space, res->err_code);
}

void shb_stats_merge(struct shb_stats *dst, const struct shb_stats *src)
{
	dst->ok += src->ok;
	dst->errors += src->errors;
	dst->retried += src->retried;
	dst->error_replies += src->error_replies;
	for (unsigned k = 0; k < SHB_ERRK_EX_COUNT; k++) {
		dst->err_kind[k] += src->err_kind[k];
		if (!dst->err_sample[k][0] && src->err_sample[k][0])
			memcpy(dst->err_sample[k], src->err_sample[k], SHB_SAMPLE_LEN);
		dst->code_over[k] += src->code_over[k];
	}
	for (unsigned i = 0; i < SHB_STATUS_SLOTS; i++)
		dst->status[i] += src->status[i];
	dst->bytes_sent += src->bytes_sent;
	dst->bytes_recv += src->bytes_recv;
	dst->conns_opened += src->conns_opened;
	dst->rx_header_bytes += src->rx_header_bytes;
	dst->rx_body_bytes += src->rx_body_bytes;
	dst->late += src->late;
	dst->unsent += src->unsent;
	if (src->lag_max > dst->lag_max)
		dst->lag_max = src->lag_max;
	for (uint32_t i = 0; i < src->napp; i++)
		add_app(dst, src->app[i].space, src->app[i].code, src->app[i].ok,
			src->app[i].count);
	dst->app_over[0] += src->app_over[0];
	dst->app_over[1] += src->app_over[1];
	for (uint32_t i = 0; i < src->ncode; i++)
		add_code(dst, src->code[i].kind, src->code[i].space,
			 src->code[i].code, src->code[i].count);
	for (int i = 0; i < NHIST; i++)
		shb_histo_merge(hist_at(dst, i), hist_of(src, i));
	shb_metrics_merge(&dst->metrics, &src->metrics);
}
