#include "engine/tseries.h"

#include <string.h>
#include "results/results.h"

int shb_tseries_init(struct shb_tseries *ts, struct shb_worker_args *wa,
		     uint32_t n, const struct shb_run_info *info,
		     uint64_t interval_ns)
{
	memset(ts, 0, sizeof(*ts));
	ts->wa = wa;
	ts->n = n;
	ts->info = info;
	ts->interval_ns = interval_ns;
	if (shb_stats_init(&ts->delta) < 0)
		return -1;
	if (shb_stats_init(&ts->held_delta) < 0) {
		shb_stats_destroy(&ts->delta);
		return -1;
	}
	return 0;
}

int shb_tseries_metrics(struct shb_tseries *ts,
			const struct shb_metric_def *defs, uint32_t n)
{
	if (shb_metrics_init(&ts->delta.metrics, defs, n) < 0)
		return -1;
	return shb_metrics_init(&ts->held_delta.metrics, defs, n);
}

void shb_tseries_destroy(struct shb_tseries *ts)
{
	shb_stats_destroy(&ts->delta);
	shb_stats_destroy(&ts->held_delta);
}

void shb_tseries_gauges(const struct shb_worker_args *wa, uint32_t n,
			struct shb_results *r)
{
	r->connections_active = 0;
	r->connections_connecting = 0;
	for (uint32_t i = 0; i < n; i++) {
		r->connections_active +=
			atomic_load_explicit(&wa[i].live_active, memory_order_relaxed);
		r->connections_connecting +=
			atomic_load_explicit(&wa[i].live_connecting, memory_order_relaxed);
	}
}

/* Interval `index` of `len` ns to the reporters and the progress line;
 * d is cleared. */
static void emit(struct shb_tseries *ts, struct shb_stats *d, uint64_t index,
		 uint64_t len)
{
	static struct shb_results_buf rb; /* [main] only; too big for a stack */
	shb_results_build(&rb, d, ts->info, len, 0);
	rb.r.kind = SHB_RESULTS_INTERVAL;
	rb.r.interval_index = index;
	rb.r.interval_start_ns = index * ts->interval_ns;
	shb_tseries_gauges(ts->wa, ts->n, &rb.r);
	if (ts->emit)
		ts->emit(ts->ctx, &rb.r);
	ts->have_last = 1;
	ts->last_ok = d->ok;
	ts->last_errors = d->errors;
	ts->last_ns = len;
	ts->last_p50 = shb_histo_value_at_ppm(&d->latency, 500000);
	ts->last_p99 = shb_histo_value_at_ppm(&d->latency, 990000);
	shb_stats_reset(d);
}

static void emit_held(struct shb_tseries *ts, uint64_t len)
{
	emit(ts, &ts->held_delta, ts->index - 1, len);
	ts->held = 0;
}

static void take_last(struct shb_tseries *ts, uint64_t end_rel)
{
	uint64_t start = ts->index * ts->interval_ns;
	uint64_t len = end_rel > start ? end_rel - start : 0;
	struct shb_stats *d = &ts->delta;
	if (ts->held && len < shb_tseries_fold_ns(ts)) {
		shb_stats_merge(&ts->held_delta, d);
		shb_stats_reset(d);
		emit_held(ts, ts->interval_ns + len);
		return;
	}
	if (ts->held)
		emit_held(ts, ts->interval_ns);
	if (len == 0 && d->ok + d->errors == 0)
		return;
	emit(ts, d, ts->index++, len);
}

void shb_tseries_take(struct shb_tseries *ts, uint64_t end_rel, int last)
{
	for (uint32_t i = 0; i < ts->n; i++)
		if (ts->wa[i].ival)
			shb_ival_collect(ts->wa[i].ival, &ts->delta);
	if (last) {
		take_last(ts, end_rel);
		return;
	}
	if (ts->held) { /* its D/10 passed: what came since is the next one's */
		emit_held(ts, ts->interval_ns);
		return;
	}
	/* Hold the interval just ended: swap it out, count the next. */
	struct shb_stats t = ts->held_delta;
	ts->held_delta = ts->delta;
	ts->delta = t;
	ts->held = 1;
	ts->index++;
}
