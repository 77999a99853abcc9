/* What a run hands the reporters (run_report.h). [main] thread. */
#include "engine/run_report.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/compare.h"
#include "cli/start_at.h"
#include "engine/host.h"
#include "engine/mix.h"
#include "engine/overload.h"
#include "engine/tseries.h"
#include "results/slo_check.h"
#include "shb_build_config.h"

static uint64_t wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void shb_run_sample(void *ctx, const struct shb_results *r)
{
	struct shb_sample_ctx *sc = ctx;
	struct shb_results fr = *r;
	shb_hello_fingerprints(sc->hello, &fr.tls_ja3, &fr.tls_ja4);
	shb_conn_fp_results(sc->fps, &fr);
	for (size_t i = 0; i < sc->n; i++)
		if (sc->reps[i].samples && sc->reps[i].h.vt.sample(sc->reps[i].rep, &fr) < 0)
			sc->failed = 1;
}

void shb_run_info_fill(struct shb_run *run, uint32_t k, uint32_t n,
		       struct shb_run_info *pinfo, struct shb_target_info *target)
{
	const struct shb_config *cfg = run->cfg;
	const struct shb_plan *plan = run->plan;
	const struct shb_proto_desc *d = run->proto->desc;
	struct shb_run_info info;
	memset(&info, 0, sizeof(info));
	info.struct_size = sizeof(info);
	info.threads = run->threads;
	info.connections = plan->connections;
	info.parallel = cfg->parallel;
	info.tls = (uint32_t)run->url->tls;
	info.tls_verify = !run->url->tls ? SHB_TLS_VERIFY_NONE :
			  cfg->cacert ? SHB_TLS_VERIFY_CAFILE :
			  cfg->verify ? SHB_TLS_VERIFY_SYSTEM : SHB_TLS_VERIFY_NONE;
	info.shb_version = SHB_VERSION;
	info.method = cfg->method;
	info.proto_name = d->name;
	info.proto_display = d->display_name ? d->display_name : d->name;
	info.requests_target = plan->requests;
	info.duration_target_ns = cfg->duration_ns;
	info.start_unix_ns = wall_ns();
	info.plugins = shb_loader_plugins(run->loader, &info.plugin_count);
	shb_results_run_info(&info, target, cfg, run->prun->url_text);
	shb_results_run_facts(&info, target, cfg, &run->prun->req);
	info.proxy = run->proxy_shown;
	info.url = cfg->targets[k].url_text;
	info.label = run->prun->label;
	target->label = info.label ? info.label : info.url;
	target->url = info.url;
	info.compare_index = k;
	info.compare_count = n;
	shb_mix_run_info(run, &info);
	info.interval_ns = plan->interval_ns;
	info.shard_index = plan->shard_index;
	info.shard_count = plan->shard_count;
	info.start_at_unix_ns = plan->start_at_unix_ns;
	if (plan->start_at_unix_ns)
		run->start_at_ns = shb_start_at_mono(plan->start_at_unix_ns,
						     wall_ns(), shb_now_ns());
	*pinfo = info;
}

/* The workers' failures, ends and warm-ups; their statistics into wa[0]. */
static uint64_t merge_workers(struct shb_run *run, struct shb_worker_args *wa,
			      struct shb_run_end *e)
{
	uint64_t end = run->start_ns;
	shb_ext_run_info.warmup_ns = run->cfg->warmup_ns;
	shb_ext_run_info.warmup_requests = 0;
	/* Under --tui the screen is the terminal's until the tui reporter's
	 * end(): the line waits for it, so that it is not drawn over and lost. */
	for (uint32_t i = 0; i < run->threads; i++) {
		if (wa[i].failed) {
			if (!e->failed && !run->cfg->tui)
				fprintf(stderr, "shb: %s\n", wa[i].err);
			if (!e->failed)
				e->fail_err = wa[i].err;
			e->failed = 1;
		}
		if (wa[i].end_ns > end)
			end = wa[i].end_ns;
		shb_ext_run_info.warmup_requests += wa[i].warmup_requests;
		if (i)
			shb_stats_merge(&wa[0].stats, &wa[i].stats);
	}
	return end;
}

void shb_run_collect(struct shb_run *run, struct shb_worker_args *wa,
		     struct shb_tseries *ts, const struct shb_run_info *info, struct shb_run_end *e,
		     struct shb_results_buf *rb)
{
	uint64_t end = merge_workers(run, wa, e);
	/* The run's time starts with the load, after the warm-up (0 if
	 * stopped before); the set-up is what came before the load. A run
	 * stopped before any worker started loading never had a load
	 * (whatever load_ns the stop wrote): elapsed 0, all of it set-up. */
	uint64_t load = atomic_load(&run->loaded_ns) ? atomic_load(&run->load_ns) : 0;
	uint64_t measure = load ? load + run->cfg->warmup_ns : UINT64_MAX;
	uint64_t elapsed = end > measure ? end - measure : 0;
	e->load_ns = load;
	if (ts && load) /* the last interval, whole or not */
		shb_tseries_take(ts, elapsed, 1);
	shb_results_build(rb, &wa[0].stats, info, elapsed,
			  atomic_load(&shb_interrupted));
	rb->r.setup_ns = (load ? load : end) - run->start_ns;
	rb->r.requests_warmup = shb_ext_run_info.warmup_requests;
	shb_hello_fingerprints(&run->hello, &rb->r.tls_ja3, &rb->r.tls_ja4);
	shb_conn_fp_results(&run->conn_fps, &rb->r);
	/* 1.3: the load start on the wall clock, through the monotonic
	 * time since (a wall-clock step during the run moves it). */
	rb->r.load_start_unix_ns = load ? wall_ns() - (shb_now_ns() - load) : 0;
	shb_tseries_gauges(wa, run->threads, &rb->r);
}

int shb_run_check_slos(const struct shb_config *cfg,
		       const struct shb_run_info *info,
		       const struct shb_results *r, const struct shb_stats *s)
{
	char which[SHB_LABEL_MAX + 64] = "";
	if (info->compare_count > 1)
		snprintf(which, sizeof(which), " in run %u of %u (%s)",
			 info->compare_index + 1, info->compare_count,
			 info->label ? info->label : info->url);
	return shb_slo_check_all(cfg, r, &s->latency, which);
}

int shb_run_overload(const struct shb_run *run, const struct shb_worker_args *wa,
		     const struct shb_results *r, int load_started)
{
	struct shb_census cs = {0};
	for (uint32_t i = 0; i < run->threads; i++)
		shb_census_add(&cs, &wa[i].census);
	int mux = (run->proto->desc->flags & SHB_PROTO_MULTIPLEXED) != 0;
	uint64_t never = shb_census_never(&cs);
	uint32_t conns = run->plan->connections;
	struct shb_short_in si = {
		.total = r->requests_total, .unsent = r->requests_unsent,
		.elapsed_ns = r->elapsed_ns,
		.mean_ns = shb_histo_mean(&wa[0].stats.latency_uncorrected),
		.conns = conns > never ? conns - never : 0,
		.streams = run->prun->streams,
		.multiplexed = mux,
	};
	return shb_overload_report(stderr, r, &cs, &si, load_started);
}
