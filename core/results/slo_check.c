/* --slo: the gates checked on merged results, with exact integers. */
#include "results/slo_check.h"

#include <stdio.h>
#include <string.h>

#include <shb/results.h>

#include "cli/config.h"
#include "cli/duration.h"

/* a OP b on exact integers. */
static int holds(enum shb_slo_op op, unsigned __int128 a, unsigned __int128 b)
{
	switch (op) {
	case SHB_SLO_LT: return a < b;
	case SHB_SLO_LE: return a <= b;
	case SHB_SLO_GT: return a > b;
	case SHB_SLO_GE: return a >= b;
	}
	return 0;
}

static const struct shb_metric_value *find_metric(const struct shb_slo_data *d,
						  const char *name)
{
	for (size_t i = 0; i < d->metric_count; i++)
		if (!strcmp(d->metrics[i].name, name))
			return &d->metrics[i];
	return NULL;
}

/* NAME.pNN and NAME.count; a name the results lack (a merge of reports
 * of another protocol) fails with "none". */
static int check_metric(const struct shb_slo *slo, const struct shb_slo_data *d,
			char *got, size_t gotlen)
{
	const struct shb_metric_value *m = find_metric(d, slo->metric_name);
	uint64_t v;

	if (!m) {
		snprintf(got, gotlen, "none (no such metric in the results)");
		return 0;
	}
	if (slo->metric == SHB_SLO_METRIC_COUNT) {
		v = m->count;
	} else {
		const struct shb_histo *h = (const struct shb_histo *)(const void *)m->hist;
		if (!h || shb_histo_count(h) == 0) {
			snprintf(got, gotlen, "none (no value recorded)");
			return 0;
		}
		v = shb_histo_value_at_ppm(h, slo->ppm);
	}
	if (!slo->plain) {
		shb_duration_text_sig(v, 4, got, gotlen);
		return holds(slo->op, v, slo->limit);
	}
	snprintf(got, gotlen, "%llu", (unsigned long long)v);
	return holds(slo->op, (unsigned __int128)v * SHB_SLO_MILLIONTH, slo->limit);
}

int shb_slo_check(const struct shb_slo *slo, const struct shb_slo_data *d,
		  char *msg, size_t msglen)
{
	char got[64];
	int ok = 0;
	uint64_t total = d->ok + d->errors;

	switch (slo->metric) {
	case SHB_SLO_PCT:
		if (!d->latency || shb_histo_count(d->latency) == 0) {
			snprintf(got, sizeof(got), "none (no request completed)");
			break;
		}
		uint64_t v = shb_histo_value_at_ppm(d->latency, slo->ppm);
		ok = holds(slo->op, v, slo->limit);
		shb_duration_text_sig(v, 4, got, sizeof(got));
		break;
	case SHB_SLO_ERROR_RATE:
		if (!total) {
			snprintf(got, sizeof(got), "none (no request ended)");
			break;
		}
		/* errors / total * 100 OP limit / 10^6, cross-multiplied. */
		ok = holds(slo->op, (unsigned __int128)d->errors * 100 * SHB_SLO_MILLIONTH,
			   (unsigned __int128)slo->limit * total);
		snprintf(got, sizeof(got), "%.4g%%", (double)d->errors * 100 / (double)total);
		break;
	case SHB_SLO_RPS: {
		/* ok * 10^9 / elapsed OP limit / 10^6; no time is 0 req/s, as
		 * in the report. */
		unsigned __int128 lhs = d->elapsed_ns ?
			(unsigned __int128)d->ok * 1000000000u * SHB_SLO_MILLIONTH : 0;
		ok = holds(slo->op, lhs, (unsigned __int128)slo->limit *
					     (d->elapsed_ns ? d->elapsed_ns : 1));
		snprintf(got, sizeof(got), "%.1f", d->elapsed_ns ?
			 (double)d->ok * 1e9 / (double)d->elapsed_ns : 0.0);
		break;
	}
	case SHB_SLO_METRIC_PCT:
	case SHB_SLO_METRIC_COUNT:
		ok = check_metric(slo, d, got, sizeof(got));
		break;
	}
	if (!ok)
		snprintf(msg, msglen, "%s = %s, wanted %s %s", slo->name, got,
			 shb_slo_op_text[slo->op], slo->limit_text);
	return ok;
}

int shb_slo_check_all(const struct shb_config *cfg,
		      const struct shb_results *r,
		      const struct shb_histo *latency, const char *which)
{
	struct shb_slo_data d = {
		.ok = r->requests_ok,
		.errors = r->requests_errors,
		.elapsed_ns = r->elapsed_ns,
		.latency = latency,
	};
	if (SHB_HAS(r, struct shb_results, metric_count)) {
		d.metrics = r->metrics;
		d.metric_count = r->metric_count;
	}
	int failed = 0;

	for (size_t i = 0; i < cfg->slo_count; i++) {
		char msg[256];
		if (!shb_slo_check(&cfg->slos[i], &d, msg, sizeof(msg))) {
			fprintf(stderr, "shb: SLO failed%s: %s\n", which, msg);
			failed = 1;
		}
	}
	return failed;
}
