/* The live progress line and the --interval samples (progress.h). */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "engine/progress.h"

static int all_done(const struct shb_worker_args *wa, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (!atomic_load_explicit(&wa[i].live_done, memory_order_acquire))
			return 0;
	return 1;
}

/* Sleeps until t, or until every worker is done: looked at every
 * PROGRESS_POLL_NS, so that the report follows the end of the run at
 * once (Ctrl-C during set-up leaves within a few hundred ms) instead of
 * at the next refresh of the line. Returns 1 when they are done. */
static int nap_until(uint64_t t, const struct shb_worker_args *wa, uint32_t n)
{
	for (;;) {
		if (all_done(wa, n))
			return 1;
		uint64_t now = shb_now_ns();
		if (now >= t)
			return 0;
		uint64_t until = t - now > PROGRESS_POLL_NS ? now + PROGRESS_POLL_NS : t;
		struct timespec ts = {(time_t)(until / 1000000000u),
				      (long)(until % 1000000000u)};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
}

/* Set-up: how many of the connections are open, being opened, and
 * failed without one of their slot ever opening. */
static void show_setup(const struct shb_run *run,
		       const struct shb_worker_args *wa, uint32_t n,
		       uint64_t now)
{
	uint64_t open = 0, connecting = 0, failed = 0;
	for (uint32_t i = 0; i < n; i++) {
		open += atomic_load_explicit(&wa[i].live_active, memory_order_relaxed);
		connecting += atomic_load_explicit(&wa[i].live_connecting, memory_order_relaxed);
		failed += atomic_load_explicit(&wa[i].live_failed, memory_order_relaxed);
	}
	fprintf(stderr, "\r[%6.1fs] setting up: %llu/%u open, %llu connecting, "
		"%llu failed%10s", (double)(now - run->start_ns) / 1e9,
		(unsigned long long)open, run->cfg->connections,
		(unsigned long long)connecting, (unsigned long long)failed, "");
}

/* The progress line's numbers: the last interval's when --interval is on,
 * and the time left. */
static void show_line(const struct shb_run *run, const struct shb_tseries *ts,
		      uint64_t ok, uint64_t errs, double t)
{
	const struct shb_config *cfg = run->cfg;
	double rate = t > 0 ? (double)ok / t : 0.0;
	char last[96] = "";
	if (ts && ts->have_last) {
		double len = (double)ts->last_ns / 1e9;
		rate = len > 0 ? (double)ts->last_ok / len : 0.0;
		snprintf(last, sizeof(last), " (last %.1fs), %llu errors, p50 %.2fms p99 %.2fms",
			 len, (unsigned long long)ts->last_errors,
			 (double)ts->last_p50 / 1e6, (double)ts->last_p99 / 1e6);
	}
	double eta = -1;
	if (cfg->duration_ns)
		eta = (double)cfg->duration_ns / 1e9 - t;
	else if (rate > 0 && cfg->requests > ok + errs)
		eta = (double)(cfg->requests - ok - errs) / rate;
	char etas[32] = "";
	if (eta >= 0)
		snprintf(etas, sizeof(etas), ", ETA %.0fs", eta);
	fprintf(stderr, "\r[%6.1fs] %llu ok, %llu errors | %.0f req/s%s%s   ", t,
		(unsigned long long)ok, (unsigned long long)errs, rate, last, etas);
}

uint64_t shb_progress_watch(const struct shb_run *run, const struct shb_worker_args *wa,
			    uint32_t n, struct shb_tseries *ts, int tty)
{
	const uint64_t tick = 500000000u;
	uint64_t next_show = shb_now_ns() + tick, passes = 0;
	int shown = 0;
	for (;; passes++) {
		uint64_t wake = next_show;
		uint64_t load = atomic_load(&run->load_ns);
		uint64_t measure = load + run->cfg->warmup_ns;
		if (ts) {
			uint64_t e = shb_tseries_next_end(ts);
			uint64_t b = !load ? shb_now_ns() + 20000000u :
				     e == UINT64_MAX ? UINT64_MAX : measure + e;
			if (b < wake)
				wake = b;
		}
		if (nap_until(wake, wa, n))
			break;
		uint64_t ok = 0, errs = 0;
		for (uint32_t i = 0; i < n; i++) {
			ok += atomic_load_explicit(&wa[i].live_ok, memory_order_relaxed);
			errs += atomic_load_explicit(&wa[i].live_errors, memory_order_relaxed);
		}
		uint64_t now = shb_now_ns();
		load = atomic_load(&run->load_ns);
		measure = load + run->cfg->warmup_ns;
		while (ts && load && shb_tseries_next_end(ts) != UINT64_MAX &&
		       now >= measure + shb_tseries_next_end(ts))
			shb_tseries_take(ts, shb_tseries_next_end(ts), 0);
		/* next_show moves on with or without a terminal: it is also
		 * when this loop wakes next, and a past one would have it spin
		 * (--interval with -q or stderr not a terminal). */
		if (now < next_show)
			continue;
		next_show = now + tick;
		if (!tty)
			continue;
		if (!load) {
			show_setup(run, wa, n, now);
			shown = 1;
			continue;
		}
		if (now < measure) {
			fprintf(stderr, "\r[warm-up, %.1fs left] not counted%22s",
				(double)(measure - now) / 1e9, "");
			shown = 1;
			continue;
		}
		show_line(run, ts, ok, errs, (double)(now - measure) / 1e9);
		shown = 1;
	}
	if (shown)
		fprintf(stderr, "\r%110s\r", "");
	return passes;
}

