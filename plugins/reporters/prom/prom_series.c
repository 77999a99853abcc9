/* The prom reporter's series (prom_series.h). */
#include "prom_series.h"

#include <stdio.h>
#include <string.h>

#include "common/outcome_names.h"
#include "prom_wire.h"
#include "report_common.h"

/* 1-1.5-2-3-5-7 per decade: neighbours at most 1.67 apart, so that an
 * interpolated quantile is off by less than that factor, over what a load
 * test meets (tens of microseconds on loopback to timeouts of a minute),
 * in 41 series per histogram. */
const uint64_t shb_prom_le_ns[SHB_PROM_BUCKETS] = {
	1000, 1500, 2000, 3000, 5000, 7000,
	10000, 15000, 20000, 30000, 50000, 70000,
	100000, 150000, 200000, 300000, 500000, 700000,
	1000000, 1500000, 2000000, 3000000, 5000000, 7000000,
	10000000, 15000000, 20000000, 30000000, 50000000, 70000000,
	100000000, 150000000, 200000000, 300000000, 500000000, 700000000,
	1000000000, 1500000000, 2000000000, 3000000000, 5000000000, 7000000000,
	10000000000, 15000000000, 20000000000, 30000000000, 60000000000,
};

size_t shb_prom_bucket_of(uint64_t hi)
{
	size_t i = 0;
	while (i < SHB_PROM_BUCKETS && shb_prom_le_ns[i] < hi)
		i++;
	return i;
}

char *shb_prom_le_label(char *buf, size_t len, size_t i)
{
	uint64_t ns = shb_prom_le_ns[i];
	char frac[10];
	snprintf(frac, sizeof(frac), "%09llu", (unsigned long long)(ns % 1000000000));
	for (int k = 8; k >= 0 && frac[k] == '0'; k--)
		frac[k] = '\0';
	snprintf(buf, len, "%llu%s%s", (unsigned long long)(ns / 1000000000),
		 frac[0] ? "." : "", frac);
	return buf;
}

/* One series: the common labels, the name, and at most one more label. */
struct emit {
	const struct shb_prom_ids *ids;
	int64_t ts;
	struct shb_buf *pb;
};

static void series(struct emit *e, const char *name, const char *lname,
		   const char *lvalue, double v)
{
	struct shb_prom_label l[6] = {
		{"__name__", name}, {"protocol", e->ids->protocol},
		{"run_id", e->ids->run_id}, {"shard", e->ids->shard},
		{"target", e->ids->target},
	};
	size_t n = 5;
	if (lname)
		l[n++] = (struct shb_prom_label){lname, lvalue};
	shb_prom_sort_labels(l, n);
	shb_prom_put_series(e->pb, l, n, v, e->ts);
}

static void counters(struct emit *e, const struct shb_prom_state *s)
{
	series(e, "shb_requests_total", "result", "ok", (double)s->ok);
	series(e, "shb_requests_total", "result", "error", (double)s->errors);
	series(e, "shb_requests_retried_total", NULL, NULL, (double)s->retried);
	if (s->answered_known)
		series(e, "shb_requests_answered_total", NULL, NULL,
		       (double)s->answered);
	for (int k = 0; k < s->kinds; k++)
		series(e, "shb_errors_total", "kind", shb_err_kind_name((uint32_t)k),
		       (double)s->errk[k]);
	for (size_t c = 100; c < SHB_PROM_STATUS_SLOTS; c++) {
		char code[8];
		if (!s->status[c])
			continue;
		snprintf(code, sizeof(code), "%zu", c);
		series(e, "shb_responses_total", "status", code, (double)s->status[c]);
	}
	series(e, "shb_sent_bytes_total", NULL, NULL, (double)s->sent);
	series(e, "shb_received_bytes_total", NULL, NULL, (double)s->received);
	series(e, "shb_connections_opened_total", NULL, NULL, (double)s->opened);
}

static void gauges(struct emit *e, const struct shb_prom_state *s)
{
	if (s->gauges_known) {
		series(e, "shb_connections_active", NULL, NULL, (double)s->active);
		series(e, "shb_connections_connecting", NULL, NULL,
		       (double)s->connecting);
	}
	series(e, "shb_elapsed_seconds", NULL, NULL, (double)s->elapsed_ns / 1e9);
	series(e, "shb_run_finished", NULL, NULL, s->final ? 1.0 : 0.0);
}

static void histogram(struct emit *e, const struct shb_prom_state *s)
{
	uint64_t cum = 0;
	char le[24];
	for (size_t i = 0; i < SHB_PROM_BUCKETS; i++) {
		cum += s->bucket[i];
		series(e, "shb_request_duration_seconds_bucket", "le",
		       shb_prom_le_label(le, sizeof(le), i), (double)cum);
	}
	series(e, "shb_request_duration_seconds_bucket", "le", "+Inf",
	       (double)(cum + s->bucket[SHB_PROM_BUCKETS]));
	series(e, "shb_request_duration_seconds_sum", NULL, NULL,
	       s->lat_sum_ns / 1e9);
	series(e, "shb_request_duration_seconds_count", NULL, NULL,
	       (double)s->lat_count);
}

int shb_prom_encode(const struct shb_prom_state *s,
		    const struct shb_prom_ids *ids, int64_t ts_ms,
		    struct shb_buf *pb)
{
	struct emit e = {ids, ts_ms, pb};
	counters(&e, s);
	gauges(&e, s);
	histogram(&e, s);
	return pb->err;
}

static int add_bucket(void *user, uint64_t lo, uint64_t hi, uint64_t count)
{
	struct shb_prom_state *s = user;
	(void)lo;
	s->bucket[shb_prom_bucket_of(hi)] += count;
	s->lat_count += count;
	return 0;
}

static void take_counts(struct shb_prom_state *s, const struct shb_results *r)
{
	struct shb_rpt_errors e;
	s->ok += r->requests_ok;
	s->errors += r->requests_errors;
	s->retried += r->requests_retried;
	s->answered_known = shb_rpt_answered_known(r);
	if (s->answered_known)
		s->answered += r->requests_answered;
	s->sent += r->bytes_sent;
	s->received += r->bytes_received;
	s->opened += r->connections_opened;
	shb_rpt_sum_errors(r, &e);
	s->kinds = e.kinds;
	for (int k = 0; k < e.kinds; k++)
		s->errk[k] += e.count[k];
	for (size_t i = 0; i < r->status_count; i++)
		if (r->statuses[i].code >= 100 &&
		    r->statuses[i].code < SHB_PROM_STATUS_SLOTS)
			s->status[r->statuses[i].code] += r->statuses[i].count;
}

void shb_prom_take(struct shb_prom_state *s, const struct shb_hist_ops *h,
		   const struct shb_results *r, int total)
{
	double sum = s->lat_sum_ns;
	if (total) {
		struct shb_prom_state z = {0};
		*s = z;
	}
	take_counts(s, r);
	uint64_t before = s->lat_count;
	if (h->foreach_bucket)
		h->foreach_bucket(r->latency, add_bucket, s);
	double part = (double)h->mean(r->latency) * (double)(s->lat_count - before);
	s->lat_sum_ns = total ? (part > sum ? part : sum) : sum + part;
	s->gauges_known = SHB_RPT_HAS(r, struct shb_results, connections_connecting);
	if (s->gauges_known) {
		s->active = r->connections_active;
		s->connecting = r->connections_connecting;
	}
	s->elapsed_ns = total ? r->elapsed_ns : s->elapsed_ns + r->elapsed_ns;
	s->final = total;
}
