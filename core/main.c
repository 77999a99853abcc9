/* shb: the command-line program. Parses options, computes the run plan
 * (plan/: protocols, reporters, threads, every worker's share), then
 * prints it (--dry-run) or runs it: starts the workers, merges their
 * statistics and hands the results to the reporters. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/config.h"
#include "cli/start_at.h"
#include "common/quote.h"
#include "engine/host.h"
#include "engine/mix.h"
#include "engine/progress.h"
#include "engine/run.h"
#include "engine/run_report.h"
#include "engine/run_setup.h"
#include "engine/script_run.h"
#include "engine/rx_clock.h"
#include "engine/tseries.h"
#include "engine/uring_shim.h"
#include "engine/worker_args.h"
#include "loader/loader.h"
#include "merge_main.h"
#include "plan/plan.h"
#include "results/reporters.h"
#include "results/results.h"

#define EXIT_RUN_FAILED 1
#define EXIT_USAGE 2
#define EXIT_SLO_FAILED 3
#define EXIT_INTERRUPTED 130 /* 128 + SIGINT */
#define EXIT_TERMINATED 143  /* 128 + SIGTERM */
/* Signals this soon after the first one repeat it rather than insist. */
#define SIGNAL_REPEAT_NS 1000000000ull

atomic_int shb_interrupted;
static atomic_int stop_signal;               /* the first SIGINT/SIGTERM */
static _Atomic uint64_t first_signal_ns;     /* when it came */

/* The first SIGINT or SIGTERM stops the load and the report of what was
 * measured follows. timeout(1) signals the process and then its group,
 * so a second signal within a second of the first is that same request;
 * one later means "exit now". Only async-signal-safe calls here. */
static void on_stop_signal(int sig)
{
	uint64_t now = shb_now_ns();
	int none = 0;
	if (atomic_compare_exchange_strong(&stop_signal, &none, sig)) {
		atomic_store(&first_signal_ns, now);
		atomic_store(&shb_interrupted, 1);
		return;
	}
	uint64_t first = atomic_load(&first_signal_ns);
	if (!first || now - first < SIGNAL_REPEAT_NS)
		return;
	signal(sig, SIG_DFL);
	raise(sig); /* delivered when the handler returns */
}

static void install_stop_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	/* No SA_RESTART: a blocked io_uring_enter returns EINTR. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int fail_usage(const char *err)
{
	char line[1024];

	snprintf(line, sizeof(line), "%s", err);
	shb_err_one_line(line, sizeof(line));
	fprintf(stderr, "shb: %s\n", line);
	return EXIT_USAGE;
}

/* ---- running --------------------------------------------------------------- */

/* Starts the workers on their plan's shares, watches them and joins them. */
static int run_workers(struct shb_run *run, struct shb_worker_args *wa,
		       struct shb_tseries *ts)
{
	const struct shb_config *cfg = run->cfg;
	pthread_t *tids = calloc(run->threads, sizeof(*tids));
	if (!tids) {
		fprintf(stderr, "shb: out of memory\n");
		return -1;
	}
	uint32_t t = run->threads;
	for (uint32_t i = 0; i < t; i++) {
		wa[i].run = run;
		wa[i].index = i;
		wa[i].conns = run->plan->workers[i].conns;
		wa[i].conn_base = run->plan->workers[i].conn_base;
		wa[i].budget = run->plan->workers[i].budget;
	}
	/* A mixed run: statistics and shares per origin and target. */
	if (run->mix && shb_mix_split(run, wa, t) < 0) {
		free(tids);
		fprintf(stderr, "shb: out of memory\n");
		return -1;
	}
	shb_rx_clock_warm(); /* stamps on before the first response */
	/* The workers set up their connections first; the last one done
	 * starts the load (run->load_ns). */
	atomic_store(&run->setup_left, t);
	atomic_store(&run->rings_left, t);
	atomic_store(&run->load_ns, 0);
	run->start_ns = shb_now_ns();
	uint32_t started = 0;
	for (; started < t; started++) {
		if (pthread_create(&tids[started], NULL, shb_worker_main, &wa[started])) {
			snprintf(wa[started].err, sizeof(wa[started].err),
				 "cannot start a worker thread");
			wa[started].failed = 1;
			atomic_store(&shb_interrupted, 1);
			/* Those never started do not hold the others back. */
			atomic_fetch_sub(&run->rings_left, t - started);
			break;
		}
	}
	int tty = !cfg->quiet && isatty(STDERR_FILENO);
	if (tty || ts)
		shb_progress_watch(run, wa, started, ts, tty);
	for (uint32_t i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	return 0;
}

/* The reporters' end(), the lines after them and the run's exit code. */
static int finish_report(struct shb_run *run, struct shb_reporter *reps,
			 size_t nrep, const struct shb_run_info *pinfo,
			 struct shb_worker_args *wa, struct shb_run_end *e,
			 struct shb_results_buf *rb)
{
	const struct shb_config *cfg = run->cfg;
	int rep_failed = 0;
	for (size_t i = 0; i < nrep; i++)
		if (reps[i].h.vt.end(reps[i].rep, &rb->r) < 0) {
			fprintf(stderr, "shb: reporter %s failed to write its report\n",
				reps[i].name);
			rep_failed = 1;
		}
	if (e->fail_err && cfg->tui)
		fprintf(stderr, "shb: %s\n", e->fail_err);
	/* A failed run has said why in its one line (a local fatal
	 * condition: no storm of lines after it). */
	int fell_short = e->failed ? 0 : shb_run_overload(run, wa, &rb->r,
							  e->load_ns != 0);
	uint64_t ok = rb->r.requests_ok;
	int slo_failed = shb_run_check_slos(cfg, pinfo, &rb->r, &wa[0].stats);
	if (atomic_load(&shb_interrupted) && !e->failed)
		return atomic_load(&stop_signal) == SIGTERM ? EXIT_TERMINATED :
							       EXIT_INTERRUPTED;
	if (slo_failed) /* what a gate asks about: wins over a failed run */
		return EXIT_SLO_FAILED;
	return e->failed || rep_failed || ok == 0 || fell_short ? EXIT_RUN_FAILED : 0;
}

/* One run and its report. `info` and `target` are the caller's: reporters
 * may keep them until destroy (a comparison's earlier runs). `k` is the
 * run's index in a comparison of `n` (0 and 1 without one). */
static int run_and_report(struct shb_run *run, struct shb_reporter *reps,
			  size_t nrep, struct shb_run_info *pinfo,
			  struct shb_target_info *target, uint32_t k,
			  uint32_t n)
{
	const struct shb_config *cfg = run->cfg;
	uint64_t interval = run->plan->interval_ns;
	shb_run_info_fill(run, k, n, pinfo, target);
	/* All the run needs first: once begun, every reporter is ended. */
	struct shb_tseries tsd, *ts = interval ? &tsd : NULL;
	const struct shb_proto_request *req = &run->prun->req;
	struct shb_worker_args *wa = shb_worker_args_new(
		run->threads, interval, pinfo, ts, req->metrics,
		(uint32_t)req->metric_count);
	if (!wa) {
		fprintf(stderr, "shb: out of memory\n");
		return EXIT_RUN_FAILED;
	}
	struct shb_sample_ctx sc = {reps, nrep, 0, &run->hello, &run->conn_fps};
	if (ts) {
		ts->emit = shb_run_sample;
		ts->ctx = &sc;
		ts->end_ns = run->cfg->duration_ns;
	}
	for (size_t i = 0; i < nrep; i++)
		reps[i].h.vt.begin(reps[i].rep, pinfo);
	/* Stays installed through the report, so that a repeated signal
	 * cannot cut it short. */
	install_stop_signals();
	int ran = run_workers(run, wa, ts) == 0;
	if (ran && run->start_at_ns && !cfg->quiet)
		shb_start_at_report(stderr, run->start_at_ns,
				    atomic_load(&run->load_ns),
				    atomic_load(&run->loaded_ns));
	struct shb_run_end e = {.failed = !ran};
	struct shb_results_buf rb;
	shb_run_collect(run, wa, ts, pinfo, &e, &rb);
	if (sc.failed)
		fprintf(stderr, "shb: a reporter failed to take an interval\n");
	if (ran && shb_mix_results(run, wa, run->threads, pinfo, &rb.r) < 0) {
		fprintf(stderr, "shb: out of memory\n");
		e.failed = 1;
	}
	int rc = finish_report(run, reps, nrep, pinfo, wa, &e, &rb);
	/* -s: the script's done() after the reports, as wrk calls it. */
	char serr[512];
	if (ran && shb_script_run_done(run, &rb.r, serr, sizeof(serr)) < 0) {
		fprintf(stderr, "shb: %s\n", serr);
		rc = rc ? rc : EXIT_RUN_FAILED;
	}
	shb_worker_args_free(wa, run->threads, ts);
	return rc;
}

/* ---- one target, and a comparison of several ---------------------------- */

/* Sets up run k of the plan (addresses, protocol module, request, TLS),
 * runs it and reports it. Returns the run's exit code (EXIT_USAGE after
 * printing the line when the set-up refused the input). */
static int run_target(const struct shb_plan *plan, struct shb_loader *loader,
		      const struct shb_host *host, struct shb_reporter *reps,
		      struct shb_run_info *info, struct shb_target_info *target,
		      uint32_t k, uint32_t n)
{
	struct shb_run run;
	char err[512] = "";
	int rc;

	if (shb_run_setup(&run, plan, k, host, loader, err, sizeof(err)) < 0)
		rc = fail_usage(err);
	else
		rc = run_and_report(&run, reps, plan->nreports, info, target, k, n);
	shb_run_release(&run);
	return rc;
}

/* A comparison refuses bad input before any traffic: the plan checked
 * every target's protocol and scheme; here their TLS options and
 * addresses. */
static int preflight(const struct shb_plan *plan, char *err, size_t errlen)
{
	const struct shb_config *cfg = plan->cfg;
	for (size_t k = 0; plan->nruns > 1 && k < plan->nruns; k++) {
		struct shb_run run;
		char e[512] = "";
		memset(&run, 0, sizeof(run));
		run.cfg = cfg;
		run.plan = plan;
		run.prun = &plan->runs[k];
		run.url = &run.prun->url;
		run.proto = &run.prun->proto;
		int bad = shb_run_tls_options(cfg, run.url, run.proto->desc,
					      &run.tls_priority, e, sizeof(e)) < 0 ||
			  shb_run_resolve(&run, e, sizeof(e)) < 0;
		shb_run_release(&run);
		if (bad) {
			snprintf(err, errlen, "target %zu (%s): %s", k + 1,
				 cfg->targets[k].label ? cfg->targets[k].label :
				 cfg->targets[k].url_text, e);
			return -1;
		}
	}
	return 0;
}

/* A comparison's exit code: a stop by signal wins, then bad input, a
 * failed SLO, a failed run. */
static int worse_exit(int a, int b)
{
	static const int order[] = {EXIT_TERMINATED, EXIT_INTERRUPTED, EXIT_USAGE,
				    EXIT_SLO_FAILED, EXIT_RUN_FAILED, 0};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (a == order[i] || b == order[i])
			return order[i];
	return a ? a : b;
}

/* Every run of the plan in turn, with the reporters open. */
static int run_plan(const struct shb_plan *plan, struct shb_loader *loader,
		    const struct shb_host *host, struct shb_reporter *reps)
{
	size_t n = plan->nruns;
	struct shb_run_info *infos = calloc(n, sizeof(*infos));
	struct shb_target_info *tinfos = calloc(n, sizeof(*tinfos));
	char err[512] = "";
	int rc = 0;
	if (!infos || !tinfos) {
		rc = fail_usage("out of memory");
		n = 0;
	}
	for (size_t k = 0; k < n; k++) {
		if (k > 0 && shb_reporters_renew(host, reps, plan->nreports, err,
						 sizeof(err)) < 0) {
			rc = fail_usage(err);
			break;
		}
		/* One info each per run of a comparison: reporters may keep
		 * them until destroy. */
		int one = run_target(plan, loader, host, reps, &infos[k],
				     &tinfos[k], (uint32_t)k, (uint32_t)n);
		rc = worse_exit(rc, one);
		if (one == EXIT_USAGE || one == EXIT_INTERRUPTED || one == EXIT_TERMINATED)
			break;
	}
	/* The reporters go first: they may point into the infos. */
	shb_reporters_close(reps, plan->nreports);
	free(infos);
	free(tinfos);
	return rc;
}

/* ---- main ------------------------------------------------------------------ */

/* Parses argv into *cfg; -1 with the exit code in *rc when nothing runs
 * (bad input, --help, --version). */
static int parse(int argc, char **argv, struct shb_config *cfg, int *rc)
{
	char err[512] = "";
	int r = shb_cli_parse(argc, argv, cfg, err, sizeof(err));
	if (r == 0 && cfg->tui && !cfg->list_plugins && !cfg->dry_run &&
	    !isatty(STDOUT_FILENO)) {
		snprintf(err, sizeof(err), "--tui draws on a terminal, and "
			 "standard output is not one (for files and pipes use "
			 "--report, e.g. -j or --report csv:FILE)");
		r = -1;
	}
	if (r < 0) {
		fprintf(stderr, "shb: %s (see shb --help)\n", err);
		*rc = EXIT_USAGE;
		return -1;
	}
	if (r == 1) {
		if (cfg->help)
			shb_cli_usage(stdout);
		else
			shb_cli_version(stdout);
		*rc = 0;
		return -1;
	}
	return 0;
}

/* --dry-run: each run's set-up checks (shb_run_check), in the order the
 * runs would meet them. */
static int dry_check(const struct shb_plan *plan, struct shb_loader *loader,
		     const struct shb_host *host, char *err, size_t errlen)
{
	for (size_t k = 0; k < plan->nruns; k++)
		if (shb_run_check(plan, k, host, loader, err, errlen) < 0)
			return -1;
	return 0;
}

/* The plan, then --dry-run's print or the runs. */
static int plan_and_run(const struct shb_config *cfg, struct shb_loader *loader,
			const struct shb_host *host)
{
	struct shb_plan plan;
	struct shb_reporter *reps = NULL;
	char err[512] = "";
	int rc;

	shb_cli_warn_reports(cfg, stderr);
	/* io_uring refused (a container's seccomp profile, a sysctl): one
	 * line naming why, exit 1, before any connection or report file.
	 * A dry run opens no ring. */
	if (!cfg->dry_run && shb_uring_probe(err, sizeof(err)) < 0) {
		fprintf(stderr, "shb: %s\n", err);
		return EXIT_RUN_FAILED;
	}
	if (shb_plan_make(&plan, cfg, loader, err, sizeof(err)) < 0 ||
	    (cfg->dry_run && dry_check(&plan, loader, host, err, sizeof(err)) < 0)) {
		rc = fail_usage(err);
	} else if (cfg->dry_run) {
		shb_plan_print(&plan, stdout);
		rc = fflush(stdout) == 0 ? 0 : EXIT_RUN_FAILED;
	} else if (!(reps = calloc(plan.nreports + 1, sizeof(*reps)))) {
		rc = fail_usage("out of memory");
	} else if (preflight(&plan, err, sizeof(err)) < 0 ||
		   shb_reporters_open(plan.reports, plan.nreports, host, reps,
				      err, sizeof(err)) < 0) {
		shb_reporters_close(reps, plan.nreports);
		rc = fail_usage(err);
	} else {
		rc = run_plan(&plan, loader, host, reps);
	}
	free(reps);
	shb_plan_free(&plan);
	return rc;
}

int main(int argc, char **argv)
{
	struct shb_config cfg;
	int rc = EXIT_USAGE;

	if (argc > 1 && strcmp(argv[1], "merge") == 0)
		return shb_merge_main(argc - 1, argv + 1);
	if (parse(argc, argv, &cfg, &rc) < 0) {
		shb_config_free(&cfg);
		return rc;
	}
	/* From here on the configuration is read-only: what a run derives
	 * from it is its plan (plan.h). */
	const struct shb_config *c = &cfg;
	const struct shb_host *host = shb_core_host();
	struct shb_loader loader;
	shb_loader_init(&loader, host, c->plugin_dirs, c->plugin_dir_count);
	shb_host_set_extensions(shb_loader_extension, &loader);
	if (c->list_plugins) /* exit 1 when any file was refused or crashed */
		rc = shb_loader_list(&loader, stdout) ? 1 : 0;
	else
		rc = plan_and_run(c, &loader, host);
	shb_loader_fini(&loader);
	shb_host_set_extensions(NULL, NULL);
	shb_config_free(&cfg);
	return rc;
}
