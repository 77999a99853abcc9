/* shb: the command-line program. Parses options, loads the protocol and
 * reporter plugins, runs the workers, merges their statistics and hands the
 * results to the reporters. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli/compare.h"
#include "engine/mix.h"
#include "engine/overload.h"
#include "cli/config.h"
#include "engine/host.h"
#include "loader/loader.h"
#include "merge_main.h"
#include "results/merge.h"
#include "results/slo_check.h"
#include "cli/plugin_opts.h"
#include "engine/progress.h"
#include "loader/proto_pick.h"
#include "common/quote.h"
#include "results/reporters.h"
#include "results/results.h"
#include "engine/run.h"
#include "engine/route_run.h"
#include "engine/rx_clock.h"
#include "engine/tseries.h"
#include "engine/worker_args.h"
#include "engine/uring_shim.h"
#include "shb_build_config.h"
#include "cli/start_at.h"
#include "cli/template.h"

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

/* ---- reporters ----------------------------------------------------------- */

/* --interval: one interval's results to every reporter that takes them. */
struct sample_ctx {
	struct shb_reporter *reps;
	size_t n;
	int failed;
	struct shb_hello *hello; /* the run's, for tls_ja3/tls_ja4 */
};

static void sample_all(void *ctx, const struct shb_results *r)
{
	struct sample_ctx *sc = ctx;
	struct shb_results fr = *r;
	shb_hello_fingerprints(sc->hello, &fr.tls_ja3, &fr.tls_ja4);
	for (size_t i = 0; i < sc->n; i++)
		if (sc->reps[i].samples && sc->reps[i].h.vt.sample(sc->reps[i].rep, &fr) < 0)
			sc->failed = 1;
}

/* ---- protocol and request ----------------------------------------------- */

static int check_proto(const struct shb_config *cfg,
		       const struct shb_proto_desc *d, char *err, size_t errlen)
{
	if (cfg->parallel > 1 && !(d->flags & SHB_PROTO_MULTIPLEXED)) {
		snprintf(err, errlen, "-p %u: protocol %s sends one request at a time "
			 "per connection (use --proto h2 or h3 for -p)",
			 cfg->parallel, d->name);
		return -1;
	}
	/* Datagram protocols (QUIC) run their own TLS. */
	if (cfg->url.tls && d->transport == SHB_TRANSPORT_STREAM &&
	    !(d->flags & SHB_PROTO_CORE_TLS)) {
		snprintf(err, errlen, "protocol %s cannot run over TLS here", d->name);
		return -1;
	}
	return 0;
}

static int prepare(struct shb_run *run, const struct shb_config *cfg,
		   char *err, size_t errlen)
{
	const struct shb_proto_handle *p = run->proto;
	struct shb_run_config rc;
	memset(&rc, 0, sizeof(rc));
	rc.struct_size = sizeof(rc);
	rc.flags = (cfg->url.tls ? SHB_RUN_TLS : 0) |
		   (cfg->disable_keepalive ? SHB_RUN_DISABLE_KEEPALIVE : 0) |
		   (shb_debug_level() ? SHB_RUN_DEBUG : 0);
	rc.connections = cfg->connections;
	rc.parallel = cfg->parallel;
	rc.threads = run->threads;
	rc.port = cfg->url.port;
	rc.scheme = cfg->url.scheme;
	/* QUIC takes SNI and the name it verifies from here (none for an IP
	 * literal): --sni replaces both. */
	rc.host = cfg->sni ? cfg->sni : cfg->url.host;
	rc.authority = cfg->host_header ? cfg->host_header : cfg->url.authority;
	rc.connect_timeout_ns = cfg->connect_timeout_ns;
	rc.request_timeout_ns = cfg->timeout_ns;
	rc.tls_verify = !cfg->url.tls ? SHB_TLS_VERIFY_NONE :
			cfg->cacert ? SHB_TLS_VERIFY_CAFILE :
			cfg->verify ? SHB_TLS_VERIFY_SYSTEM : SHB_TLS_VERIFY_NONE;
	rc.cafile = cfg->cacert;
	rc.cert_file = cfg->cert;
	rc.key_file = cfg->cert ? (cfg->key ? cfg->key : cfg->cert) : NULL;
	rc.tls_priority = run->tls_priority;
	struct shb_kv *opts;
	if (shb_proto_opts(cfg, p->desc, &opts, err, errlen) < 0)
		return -1;
	rc.options = opts;
	rc.option_count = cfg->proto_opt_count;

	char perr[256] = "";
	int created = p->vt.module_create(run->host, &rc, &run->module, perr, sizeof(perr));
	free(opts);
	if (created < 0) {
		snprintf(err, errlen, "protocol %s: %s", p->desc->name,
			 perr[0] ? perr : "cannot start");
		run->module = NULL;
		return -1;
	}
	struct shb_kv *kv = calloc(cfg->header_count + 1, sizeof(*kv));
	if (!kv) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < cfg->header_count; i++) {
		kv[i].key = cfg->headers[i].name;
		kv[i].value = cfg->headers[i].value;
	}
	struct shb_request req;
	memset(&req, 0, sizeof(req));
	req.struct_size = sizeof(req);
	req.flags = cfg->has_body ? SHB_REQUEST_HAS_BODY : 0;
	req.method = cfg->method;
	req.scheme = cfg->url.scheme;
	req.authority = rc.authority;
	req.path = cfg->url.path;
	req.headers = kv;
	req.header_count = cfg->header_count;
	req.body = cfg->body;
	req.body_len = cfg->body_len;
	int r = p->vt.prepare_request(run->module, &req, &run->prepared, perr, sizeof(perr));
	free(kv);
	if (r < 0) {
		snprintf(err, errlen, "protocol %s: %s", p->desc->name,
			 perr[0] ? perr : "cannot encode the request");
		run->prepared = NULL;
		return -1;
	}
	return 0;
}

/* ---- addresses ------------------------------------------------------------ */

/* Every address of the target after --connect-to, --resolve and -4/-6;
 * the workers' connections walk them in order. */
static int resolve_addrs(struct shb_run *run, const struct shb_config *cfg,
			 char *err, size_t errlen)
{
	/* A Unix socket or a proxy (route_run.h) instead of the URL's host. */
	int routed = shb_run_route(run, err, errlen);
	if (routed != 0)
		return routed < 0 ? -1 : 0;
	struct shb_route_spec rs = {
		.host = cfg->url.host,
		.port = cfg->url.port,
		.family = cfg->family,
		.connect_to = cfg->connect_to,
		.connect_to_count = cfg->connect_to_count,
		.resolve = cfg->resolve,
		.resolve_count = cfg->resolve_count,
	};
	int n = shb_route_addrs(&rs, run->addrs, err, errlen);
	if (n < 0)
		return -1;
	run->naddrs = (uint32_t)n;
	run->sni_hint = cfg->url.tls && cfg->url.host_is_ip && !cfg->sni;
	return 0;
}

/* ---- file descriptors ------------------------------------------------------ */

/* Each connection holds one socket at a time; each worker its ring and a
 * short-lived probe socket; the rest covers stdio, report files, plugins
 * and the certificate files GnuTLS opens while starting, with slack. */
#define SHB_FDS_PER_THREAD 2u
#define SHB_FDS_RESERVE 32u

/* Raises the soft limit to the hard one (or, when that fails, to `need`);
 * the soft limit then in force, 0 when unlimited or unknown. */
static uint64_t raise_fd_limit(uint64_t need)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0; /* cannot tell: the workers catch EMFILE */
	if (rl.rlim_cur < rl.rlim_max) {
		struct rlimit up = {rl.rlim_max, rl.rlim_max};
		/* An unlimited hard limit is capped by fs.nr_open: then ask
		 * for what the run needs. */
		if (setrlimit(RLIMIT_NOFILE, &up) == 0) {
			rl.rlim_cur = rl.rlim_max;
		} else if (need > rl.rlim_cur && need <= rl.rlim_max) {
			up.rlim_cur = (rlim_t)need;
			if (setrlimit(RLIMIT_NOFILE, &up) == 0)
				rl.rlim_cur = up.rlim_cur;
		}
	}
	return rl.rlim_cur == RLIM_INFINITY ? 0 : (uint64_t)rl.rlim_cur;
}

/* Raises the soft RLIMIT_NOFILE to the hard one, as most load generators
 * do (the usual soft 1024 is far below what -c asks for), and refuses a
 * run that does not fit: running out mid-run would turn into a storm of
 * connect errors, which the workers stop only at first sight.
 *
 * A -c beyond the limit still fits when each socket is held only in its
 * worker's io_uring file table (registered, then its descriptor closed):
 * a table is limited to RLIMIT_NOFILE entries per ring, not per process,
 * so the run needs its connections per thread under the limit. Without
 * -t, the threads are raised until they are. */
static int fit_fd_limit(struct shb_config *cfg, uint32_t threads,
			char *err, size_t errlen)
{
	uint64_t base = cfg->report_count + SHB_FDS_RESERVE;
	uint64_t need = (uint64_t)cfg->connections + base +
			(uint64_t)threads * SHB_FDS_PER_THREAD;
	uint64_t limit = raise_fd_limit(need);

	cfg->ring_only_fds = 0;
	if (!limit || need <= limit)
		return 0;
	/* Ring-only: a table of connections/threads per worker, and one
	 * more descriptor per worker for the socket being registered. */
	uint64_t per = (cfg->connections + (uint64_t)threads - 1) / threads;
	if (!cfg->threads && limit > base + 3 * (uint64_t)threads) {
		uint64_t room = limit - base - 3 * (uint64_t)threads;
		uint64_t t = (cfg->connections + room - 1) / room;
		if (t > threads && t <= SHB_MAX_THREADS &&
		    base + 3 * t < limit) {
			threads = (uint32_t)t;
			per = (cfg->connections + t - 1) / t;
			cfg->threads = threads;
		}
	}
	if (per <= limit && base + 3 * (uint64_t)threads <= limit) {
		cfg->ring_only_fds = 1;
		return 0;
	}
	snprintf(err, errlen, "-c %u needs about %llu file descriptors but the "
		 "limit is %llu, and %llu connections per worker thread is over "
		 "it too (raise it with ulimit -n, add threads with -t, or lower "
		 "-c)", cfg->connections, (unsigned long long)need,
		 (unsigned long long)limit, (unsigned long long)per);
	return -1;
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

static uint32_t pick_threads(const struct shb_config *cfg)
{
	long n = cfg->threads ? (long)cfg->threads : sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	if ((uint64_t)n > cfg->connections)
		n = (long)cfg->connections;
	if (!cfg->duration_ns && (uint64_t)n > cfg->requests)
		n = (long)cfg->requests;
	return (uint32_t)n;
}

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
		wa[i].conns = cfg->connections / t + (i < cfg->connections % t);
		if (!cfg->duration_ns)
			wa[i].budget = cfg->requests / t + (i < cfg->requests % t);
	}
	/* A mixed run: connections per origin, budgets per target. */
	if (run->mix && shb_mix_split(run, wa, t) < 0) {
		free(tids);
		fprintf(stderr, "shb: out of memory\n");
		return -1;
	}
	shb_rx_clock_warm(); /* stamps on before the first response */
	for (uint32_t i = 1; i < t; i++) /* {{conn}}: run-wide numbers */
		wa[i].conn_base = wa[i - 1].conn_base + wa[i - 1].conns;
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

static uint64_t wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* --slo, on the merged results: one line on stderr per gate that fails,
 * naming the run in a comparison. Returns 1 if any failed. */
static int check_slos(const struct shb_config *cfg,
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

/* The lines of a run that fell short (overload.h); 1 when it did. */
static int report_overload(const struct shb_run *run,
			   const struct shb_worker_args *wa,
			   const struct shb_results *r, int load_started)
{
	const struct shb_config *cfg = run->cfg;
	struct shb_census cs = {0};
	for (uint32_t i = 0; i < run->threads; i++)
		shb_census_add(&cs, &wa[i].census);
	int mux = (run->proto->desc->flags & SHB_PROTO_MULTIPLEXED) != 0;
	uint64_t never = shb_census_never(&cs);
	struct shb_short_in si = {
		.total = r->requests_total, .unsent = r->requests_unsent,
		.elapsed_ns = r->elapsed_ns,
		.mean_ns = shb_histo_mean(&wa[0].stats.latency_uncorrected),
		.conns = cfg->connections > never ? cfg->connections - never : 0,
		.streams = mux && cfg->parallel ? cfg->parallel : 1,
		.multiplexed = mux,
	};
	return shb_overload_report(stderr, r, &cs, &si, load_started);
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
	struct shb_run_info info;
	memset(&info, 0, sizeof(info));
	info.struct_size = sizeof(info);
	info.threads = run->threads;
	info.connections = cfg->connections;
	info.parallel = cfg->parallel;
	info.tls = (uint32_t)cfg->url.tls;
	info.tls_verify = !cfg->url.tls ? SHB_TLS_VERIFY_NONE :
			  cfg->cacert ? SHB_TLS_VERIFY_CAFILE :
			  cfg->verify ? SHB_TLS_VERIFY_SYSTEM : SHB_TLS_VERIFY_NONE;
	info.shb_version = SHB_VERSION;
	info.url = cfg->url_text;
	info.method = cfg->method;
	info.proto_name = run->proto->desc->name;
	info.proto_display = run->proto->desc->display_name ?
			     run->proto->desc->display_name : run->proto->desc->name;
	info.requests_target = cfg->duration_ns ? 0 : cfg->requests;
	info.duration_target_ns = cfg->duration_ns;
	info.start_unix_ns = wall_ns();
	info.plugins = shb_loader_plugins(run->loader, &info.plugin_count);
	shb_results_run_info(&info, target, cfg);
	info.url = cfg->targets[k].url_text;
	/* A mixed run's labels are its targets' (shb_mix_run_info). */
	info.label = cfg->mix ? NULL : cfg->targets[k].label;
	target->label = info.label ? info.label : info.url;
	target->url = info.url;
	info.compare_index = k;
	info.compare_count = n;
	shb_mix_run_info(run, &info);
	info.interval_ns = cfg->interval_ns;
	info.shard_index = cfg->shard_index;
	info.shard_count = cfg->shard_count;
	info.start_at_unix_ns = cfg->start_at_unix_ns;
	if (cfg->start_at_unix_ns)
		run->start_at_ns = shb_start_at_mono(cfg->start_at_unix_ns,
						     wall_ns(), shb_now_ns());
	*pinfo = info;
	/* All the run needs first: once begun, every reporter is ended. */
	struct shb_tseries tsd, *ts = cfg->interval_ns ? &tsd : NULL;
	struct shb_worker_args *wa = shb_worker_args_new(run->threads,
							 cfg->interval_ns, pinfo, ts);
	if (!wa) {
		fprintf(stderr, "shb: out of memory\n");
		return EXIT_RUN_FAILED;
	}
	struct sample_ctx sc = {reps, nrep, 0, &run->hello};
	if (ts) {
		ts->emit = sample_all;
		ts->ctx = &sc;
	}
	for (size_t i = 0; i < nrep; i++)
		reps[i].h.vt.begin(reps[i].rep, pinfo);
	/* Stays installed through the report, so that a repeated signal
	 * cannot cut it short. */
	install_stop_signals();
	int ran = run_workers(run, wa, ts) == 0, failed = !ran;
	if (ran && run->start_at_ns && !cfg->quiet)
		shb_start_at_report(stderr, run->start_at_ns,
				    atomic_load(&run->load_ns),
				    atomic_load(&run->loaded_ns));

	uint64_t end = run->start_ns;
	shb_ext_run_info.warmup_ns = cfg->warmup_ns;
	shb_ext_run_info.warmup_requests = 0;
	/* Under --tui the screen is the terminal's until the tui reporter's
	 * end(): the line waits for it, so that it is not drawn over and lost. */
	const char *fail_err = NULL;
	for (uint32_t i = 0; i < run->threads; i++) {
		if (wa[i].failed) {
			if (!failed && !cfg->tui)
				fprintf(stderr, "shb: %s\n", wa[i].err);
			if (!failed)
				fail_err = wa[i].err;
			failed = 1;
		}
		if (wa[i].end_ns > end)
			end = wa[i].end_ns;
		shb_ext_run_info.warmup_requests += wa[i].warmup_requests;
		if (i)
			shb_stats_merge(&wa[0].stats, &wa[i].stats);
	}
	/* The run's time starts with the load, after the warm-up (0 if
	 * stopped before); the set-up is what came before the load. */
	/* A run stopped before any worker started loading never had a load
	 * (whatever load_ns the stop wrote): elapsed 0, all of it set-up. */
	uint64_t load = atomic_load(&run->loaded_ns) ? atomic_load(&run->load_ns) : 0;
	uint64_t measure = load ? load + cfg->warmup_ns : UINT64_MAX;
	uint64_t elapsed = end > measure ? end - measure : 0;
	if (ts && load) /* the last interval, whole or not */
		shb_tseries_take(ts, elapsed, 1);
	if (sc.failed)
		fprintf(stderr, "shb: a reporter failed to take an interval\n");
	struct shb_results_buf rb;
	shb_results_build(&rb, &wa[0].stats, pinfo, elapsed,
			  atomic_load(&shb_interrupted));
	rb.r.setup_ns = (load ? load : end) - run->start_ns;
	rb.r.requests_warmup = shb_ext_run_info.warmup_requests;
	shb_hello_fingerprints(&run->hello, &rb.r.tls_ja3, &rb.r.tls_ja4);
	/* 1.3: the load start on the wall clock, through the monotonic
	 * time since (a wall-clock step during the run moves it). */
	rb.r.load_start_unix_ns = load ? wall_ns() - (shb_now_ns() - load) : 0;
	shb_tseries_gauges(wa, run->threads, &rb.r);
	if (ran && shb_mix_results(run, wa, run->threads, pinfo, &rb.r) < 0) {
		fprintf(stderr, "shb: out of memory\n");
		failed = 1;
	}
	int rep_failed = 0;
	for (size_t i = 0; i < nrep; i++)
		if (reps[i].h.vt.end(reps[i].rep, &rb.r) < 0) {
			fprintf(stderr, "shb: reporter %s failed to write its report\n",
				reps[i].name);
			rep_failed = 1;
		}
	if (fail_err && cfg->tui)
		fprintf(stderr, "shb: %s\n", fail_err);
	/* A failed run has said why in its one line (a local fatal
	 * condition: no storm of lines after it). */
	int fell_short = failed ? 0 : report_overload(run, wa, &rb.r, load != 0);
	uint64_t ok = rb.r.requests_ok;
	int slo_failed = check_slos(cfg, pinfo, &rb.r, &wa[0].stats);
	shb_worker_args_free(wa, run->threads, ts);
	if (atomic_load(&shb_interrupted) && !failed)
		return atomic_load(&stop_signal) == SIGTERM ? EXIT_TERMINATED :
							       EXIT_INTERRUPTED;
	if (failed || rep_failed || ok == 0 || fell_short)
		return EXIT_RUN_FAILED;
	return slo_failed ? EXIT_SLO_FAILED : 0;
}

/* ---- one target, and a comparison of several ---------------------------- */

/* Templates and --body-lines: compiled once, before any traffic; a
 * protocol that cannot vary its requests is refused here. */

/* Target t's template (t 0 without a mix): its path and body, the run's
 * headers. NULL with err[0] == '\0' when it does not vary. */
static struct shb_tmpl *compile_target(const struct shb_config *cfg, size_t t,
				       const char *const *names,
				       const char *const *values, char *err,
				       size_t errlen)
{
	struct shb_tmpl_src src = {
		.path = cfg->url.path,
		.header_names = names,
		.header_values = values,
		.header_count = cfg->header_count,
		.body = cfg->has_body && !cfg->body_lines && !cfg->body_verbatim ?
			(cfg->body ? cfg->body : (const uint8_t *)"") : NULL,
		.body_len = cfg->body_len,
		.body_lines = cfg->body_lines,
	};
	struct shb_url u;
	char e[256];
	if (!cfg->mix)
		return shb_tmpl_compile(&src, err, errlen);
	const struct shb_target_arg *ta = &cfg->targets[t];
	if (shb_url_parse_any(ta->url_text, &u, e, sizeof(e)) < 0) {
		snprintf(err, errlen, "%s", e);
		return NULL;
	}
	src.path = u.path;
	if (ta->body_file && cfg->body_lines) {
		snprintf(err, errlen, "target %zu: --body-lines and the body file "
			 "of its line: give one of them", t + 1);
		shb_url_free(&u);
		return NULL;
	}
	if (ta->body_file) { /* sent unchanged, like --data-binary */
		src.body = NULL;
		src.body_len = 0;
	}
	struct shb_tmpl *tm = shb_tmpl_compile(&src, e, sizeof(e));
	shb_url_free(&u);
	if (!tm && e[0])
		snprintf(err, errlen, "target %zu: %s", t + 1, e);
	return tm;
}

static int compile_templates(struct shb_run *run, const struct shb_config *cfg,
			     char *err, size_t errlen)
{
	size_t n = cfg->mix ? cfg->target_count : 1, any = 0;
	if (cfg->host_header && strstr(cfg->host_header, "{{")) {
		snprintf(err, errlen, "template in header \"Host\": not "
			 "expanded (the Host is the connection's authority)");
		return -1;
	}
	const char **names = calloc(cfg->header_count + 1, sizeof(*names));
	const char **values = calloc(cfg->header_count + 1, sizeof(*values));
	run->tmpls = calloc(n, sizeof(*run->tmpls));
	if (!names || !values || !run->tmpls) {
		free(names);
		free(values);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	run->ntmpls = (uint32_t)n;
	for (size_t i = 0; i < cfg->header_count; i++) {
		names[i] = cfg->headers[i].name;
		values[i] = cfg->headers[i].value;
	}
	err[0] = '\0';
	for (size_t t = 0; t < n && !err[0]; t++) {
		run->tmpls[t] = compile_target(cfg, t, names, values, err, errlen);
		any += run->tmpls[t] != NULL;
	}
	free(names);
	free(values);
	if (err[0])
		return -1;
	if (!any) { /* a plain run: issue() only */
		free(run->tmpls);
		run->tmpls = NULL;
		run->ntmpls = 0;
		return 0;
	}
	if (!run->proto->vt.issue_var) {
		snprintf(err, errlen, "protocol %s cannot vary requests (it has no "
			 "issue_var): templates and --body-lines need it",
			 run->proto->desc->name);
		return -1;
	}
	return 0;
}

/* --cert/--key, --tls-version and --ciphers, checked before any traffic
 * whichever runs the TLS (the core, or a QUIC module): *prio receives the
 * priority string, or NULL for the default. */
static int tls_options(const struct shb_config *cfg,
		       const struct shb_proto_desc *desc, char **prio,
		       char *err, size_t errlen)
{
	*prio = NULL;
	if (!cfg->url.tls)
		return 0;
	if (cfg->cert && shb_tls_check_client_cert(cfg->cert,
			cfg->key ? cfg->key : cfg->cert, err, errlen) < 0)
		return -1;
	if (cfg->tls_resume && desc->transport == SHB_TRANSPORT_DGRAM) {
		snprintf(err, errlen, "--tls-resume: %s sessions are not resumed "
			 "(QUIC); h1 and h2 over TLS are", desc->name);
		return -1;
	}
	return shb_tls_priority(cfg->ciphers, cfg->tls_version,
				desc->transport == SHB_TRANSPORT_DGRAM, prio,
				err, errlen);
}

static void release_run(struct shb_run *run)
{
	for (uint32_t t = 0; run->tmpls && t < run->ntmpls; t++)
		shb_tmpl_free(run->tmpls[t]);
	free(run->tmpls);
	shb_mix_free(run);
	if (run->prepared && run->proto->vt.release_request) /* optional */
		run->proto->vt.release_request(run->module, run->prepared);
	if (run->module)
		run->proto->vt.module_destroy(run->module);
	if (run->use_tls)
		shb_tls_ctx_free(&run->tls);
	free(run->tls_priority);
	shb_run_route_free(run);
	memset(run, 0, sizeof(*run));
}

/* Sets up the selected target (addresses, protocol module, request, TLS),
 * runs it and reports it. Returns the run's exit code (EXIT_USAGE after
 * printing the line when the set-up refused the input). */
static int run_target(struct shb_config *cfg, struct shb_loader *loader,
		      const struct shb_host *host,
		      const struct shb_proto_handle *proto, struct shb_reporter *reps,
		      struct shb_run_info *info, struct shb_target_info *target,
		      uint32_t k, uint32_t n)
{
	struct shb_run run;
	char err[512] = "";
	int rc;

	memset(&run, 0, sizeof(run));
	run.cfg = cfg;
	run.host = host;
	run.loader = loader;
	run.proto = proto;
	if (resolve_addrs(&run, cfg, err, sizeof(err)) < 0) {
		rc = fail_usage(err);
		goto out;
	}
	run.threads = pick_threads(cfg);
	if (shb_run_route_headers(cfg, &run) < 0) {
		rc = fail_usage("out of memory");
		goto out;
	}
	if (tls_options(cfg, proto->desc, &run.tls_priority, err, sizeof(err)) < 0 ||
	    prepare(&run, cfg, err, sizeof(err)) < 0 ||
	    compile_templates(&run, cfg, err, sizeof(err)) < 0) {
		rc = fail_usage(err);
		goto out;
	}
	shb_run_set_origin(&run);
	if (cfg->url.tls && proto->desc->transport == SHB_TRANSPORT_STREAM) {
		run.use_tls = 1;
		int verify = cfg->cacert ? 2 : cfg->verify ? 1 : 0;
		if (shb_tls_ctx_init(&run.tls, verify, cfg->cacert,
				     cfg->sni ? cfg->sni : cfg->url.host,
				     proto->desc->alpn, err, sizeof(err)) < 0) {
			run.use_tls = 0;
			rc = fail_usage(err);
			goto out;
		}
		run.tls.hello = &run.hello;
		run.tls.resume = cfg->tls_resume;
		if ((run.tls_priority &&
		     shb_tls_ctx_set_priority(&run.tls, run.tls_priority, err,
					      sizeof(err)) < 0) ||
		    (cfg->cert &&
		     shb_tls_ctx_set_client_cert(&run.tls, cfg->cert,
			     cfg->key ? cfg->key : cfg->cert, err, sizeof(err)) < 0)) {
			rc = fail_usage(err);
			goto out;
		}
	}
	/* --mix, --urls: every target's origin and request (mix.h); each
	 * target's template was compiled with the others (compile_templates). */
	if (cfg->mix && shb_mix_setup(&run, err, sizeof(err)) < 0) {
		rc = fail_usage(err);
		goto out;
	}
	shb_run_views(&run);
	rc = run_and_report(&run, reps, cfg->report_count, info, target, k, n);
out:
	shb_run_route_unheaders(cfg, &run);
	release_run(&run);
	return rc;
}

/* A comparison refuses bad input before any traffic: every target's
 * protocol, scheme and addresses are checked first. */
static int preflight(struct shb_config *cfg, struct shb_loader *loader,
		     char *err, size_t errlen)
{
	for (size_t k = 0; k < cfg->target_count; k++) {
		struct shb_proto_handle proto;
		struct shb_run run;
		char e[512] = "";
		memset(&run, 0, sizeof(run));
		run.cfg = cfg;
		run.proto = &proto; /* filled by shb_proto_pick below */
		if (shb_compare_select(cfg, k, e, sizeof(e)) < 0 ||
		    shb_proto_pick(loader, cfg, &proto, e, sizeof(e)) < 0 ||
		    check_proto(cfg, proto.desc, e, sizeof(e)) < 0 ||
		    tls_options(cfg, proto.desc, &run.tls_priority, e, sizeof(e)) < 0 ||
		    resolve_addrs(&run, cfg, e, sizeof(e)) < 0) {
			snprintf(err, errlen, "target %zu (%s): %s", k + 1,
				 cfg->targets[k].label ? cfg->targets[k].label :
				 cfg->targets[k].url_text, e);
			shb_run_route_free(&run);
			free(run.tls_priority);
			return -1;
		}
		shb_run_route_free(&run);
		free(run.tls_priority);
	}
	return 0;
}

/* A comparison's exit code: a stop by signal wins, then a failed run,
 * then a failed SLO. */
static int worse_exit(int a, int b)
{
	static const int order[] = {EXIT_TERMINATED, EXIT_INTERRUPTED, EXIT_USAGE,
				    EXIT_RUN_FAILED, EXIT_SLO_FAILED, 0};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (a == order[i] || b == order[i])
			return order[i];
	return a ? a : b;
}

/* ---- main ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	struct shb_config cfg;
	char err[512] = "";
	int rc = EXIT_USAGE;

	if (argc > 1 && strcmp(argv[1], "merge") == 0)
		return shb_merge_main(argc - 1, argv + 1);
	int r = shb_cli_parse(argc, argv, &cfg, err, sizeof(err));
	if (r == 0 && cfg.tui && !cfg.list_plugins && !isatty(STDOUT_FILENO)) {
		snprintf(err, sizeof(err), "--tui draws on a terminal, and "
			 "standard output is not one (for files and pipes use "
			 "--report, e.g. -j or --report csv:FILE)");
		r = -1;
	}
	if (r < 0) {
		fprintf(stderr, "shb: %s (see shb --help)\n", err);
		shb_config_free(&cfg);
		return EXIT_USAGE;
	}
	if (r == 1) {
		if (cfg.help)
			shb_cli_usage(stdout);
		else
			shb_cli_version(stdout);
		shb_config_free(&cfg);
		return 0;
	}

	const struct shb_host *host = shb_core_host();
	struct shb_loader loader;
	shb_loader_init(&loader, host, cfg.plugin_dirs, cfg.plugin_dir_count);
	shb_host_set_extensions(shb_loader_extension, &loader);
	if (cfg.list_plugins) {
		/* Exit 1 when any file was refused or crashed. */
		rc = shb_loader_list(&loader, stdout) ? 1 : 0;
		shb_loader_fini(&loader);
		shb_host_set_extensions(NULL, NULL);
		shb_config_free(&cfg);
		return rc;
	}

	shb_cli_warn_reports(&cfg, stderr);
	struct shb_reporter *reps = calloc(cfg.report_count ? cfg.report_count : 1, sizeof(*reps));
	/* One each per run of a comparison: reporters may keep them until
	 * destroy. */
	size_t n = cfg.target_count && !cfg.mix ? cfg.target_count : 1;
	struct shb_run_info *infos = calloc(n, sizeof(*infos));
	struct shb_target_info *tinfos = calloc(n, sizeof(*tinfos));
	struct shb_proto_handle proto;
	if (!reps || !infos || !tinfos) {
		rc = fail_usage("out of memory");
		goto out;
	}
	/* io_uring refused (a container's seccomp profile, a sysctl): one
	 * line naming why, exit 1, before any connection or report file. */
	if (shb_uring_probe(err, sizeof(err)) < 0) {
		fprintf(stderr, "shb: %s\n", err);
		rc = EXIT_RUN_FAILED;
		goto out;
	}
	if ((n > 1 && preflight(&cfg, &loader, err, sizeof(err)) < 0) ||
	    shb_compare_select(&cfg, 0, err, sizeof(err)) < 0 ||
	    shb_proto_pick(&loader, &cfg, &proto, err, sizeof(err)) < 0 ||
	    check_proto(&cfg, proto.desc, err, sizeof(err)) < 0 ||
	    fit_fd_limit(&cfg, pick_threads(&cfg), err, sizeof(err)) < 0 ||
	    shb_reporters_open(&cfg, &loader, host, reps, err, sizeof(err)) < 0) {
		rc = fail_usage(err);
		goto out;
	}
	shb_reporters_pick_intervals(&cfg, reps);
	rc = 0;
	for (size_t k = 0; k < n; k++) {
		if (k > 0 &&
		    (shb_compare_select(&cfg, k, err, sizeof(err)) < 0 ||
		     shb_proto_pick(&loader, &cfg, &proto, err, sizeof(err)) < 0 ||
		     check_proto(&cfg, proto.desc, err, sizeof(err)) < 0 ||
		     shb_reporters_renew(host, reps, cfg.report_count, err, sizeof(err)) < 0)) {
			rc = fail_usage(err);
			break;
		}
		int one = run_target(&cfg, &loader, host, &proto, reps, &infos[k],
				   &tinfos[k], (uint32_t)k, (uint32_t)n);
		rc = worse_exit(rc, one);
		if (one == EXIT_USAGE || one == EXIT_INTERRUPTED || one == EXIT_TERMINATED)
			break;
	}
out:
	if (reps)
		shb_reporters_close(reps, cfg.report_count);
	free(infos);
	free(tinfos);
	free(reps);
	shb_loader_fini(&loader);
	shb_host_set_extensions(NULL, NULL);
	shb_config_free(&cfg);
	return rc;
}
