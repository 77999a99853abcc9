#include "tseries.h"

#include <string.h>
#include "results.h"

int shb_tseries_init(struct shb_tseries *ts, struct shb_worker_args *wa,
		     uint32_t n, const struct shb_run_info *info,
		     uint64_t interval_ns)
{
	memset(ts, 0, sizeof(*ts));
	ts->wa = wa;
	ts->n = n;
	ts->info = info;
	ts->interval_ns = interval_ns;
	return shb_stats_init(&ts->delta);
}

void shb_tseries_destroy(struct shb_tseries *ts)
{
	shb_stats_destroy(&ts->delta);
}

void shb_tseries_gauges(const struct shb_worker_args *wa, uint32_t n,
			struct shb_results *r)
{
	r->connections_active = 0;
	r->connections_connecting = 0;
	for (uint32_t i = 0; i < n; i++) {
		r->connections_active +=
			__atomic_load_n(&wa[i].live_active, __ATOMIC_RELAXED);
		r->connections_connecting +=
			__atomic_load_n(&wa[i].live_connecting, __ATOMIC_RELAXED);
	}
}

void shb_tseries_take(struct shb_tseries *ts, uint64_t end_rel, int last)
{
	uint64_t start = ts->index * ts->interval_ns;
	for (uint32_t i = 0; i < ts->n; i++)
		if (ts->wa[i].ival)
			shb_ival_collect(ts->wa[i].ival, &ts->delta);
	struct shb_stats *d = &ts->delta;
	uint64_t len = end_rel > start ? end_rel - start : 0;
	if (last && len == 0 && d->ok + d->errors == 0)
		return;
	static struct shb_results_buf rb; /* [main] only; too big for a stack */
	shb_results_build(&rb, d, ts->info, len, 0);
	rb.r.kind = SHB_RESULTS_INTERVAL;
	rb.r.interval_index = ts->index;
	rb.r.interval_start_ns = start;
	shb_tseries_gauges(ts->wa, ts->n, &rb.r);
	if (ts->emit)
		ts->emit(ts->ctx, &rb.r);
	ts->have_last = 1;
	ts->last_ok = d->ok;
	ts->last_errors = d->errors;
	ts->last_ns = len;
	ts->last_p50 = shb_histo_value_at_ppm(&d->latency, 500000);
	ts->last_p99 = shb_histo_value_at_ppm(&d->latency, 990000);
	ts->index++;
	shb_stats_reset(d);
}
