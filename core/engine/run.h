/* One load run: the state every worker shares read-only, and the per-worker
 * slot the main thread reads after joining. */
#ifndef SHB_CORE_RUN_H
#define SHB_CORE_RUN_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>

#include "engine/census.h"
#include "cli/config.h"
#include "loader/loader.h"
#include "plan/plan.h"
#include "results/stats.h"
#include "results/interval.h"
#include "engine/tls.h"
#include "engine/tls_fp.h"
#include "engine/conn_fp.h"

/* Where a connection goes (c->ro): its origin for host->conn_origin, its
 * addresses and its TLS. Read-only while the workers run. */
struct shb_run_origin {
	const struct shb_origin *origin;
	const struct shb_addr *addrs;
	uint32_t naddrs;
	int use_tls;
	int sni_hint;
	struct shb_tls_ctx *tls;
};

struct shb_mix;
struct shb_mix_worker;
struct shb_script_run;

struct shb_run {
	const struct shb_config *cfg;   /* as parsed: read-only */
	/* What runs (plan.h): threads, every worker's share, the reporters'
	 * interval; prun is this run's URL and protocol, url its URL. */
	const struct shb_plan *plan;
	const struct shb_plan_run *prun;
	const struct shb_url *url;
	/* The headers every request carries: cfg's -H, and a proxy's
	 * credentials for the absolute form (shb_run_route_headers). */
	const struct shb_header *headers;
	size_t header_count;
	struct shb_header *own_headers; /* when they are not cfg's: owned */
	const struct shb_proto_handle *proto;
	const struct shb_host *host;
	struct shb_loader *loader; /* provenance: shb_loader_plugins */
	void *module;   /* from module_create; read-only during the run */
	/* Bytes of plugin memory per connection: the descriptor's conn_size,
	 * or more when the module's conn_size_for (1.4) asks for more. */
	size_t conn_size;
	void *prepared; /* the request, compiled once */
	/* Templates and --body-lines (template.h): NULL when nothing varies
	 * per request; else one compiled template per target (ntmpls: 1
	 * without a mix), NULL for a target that does not vary, and
	 * issue_var gets the expansion. seq numbers the run's requests
	 * across workers (a relaxed fetch-add per templated request). */
	struct shb_tmpl **tmpls;
	uint32_t ntmpls;
	_Atomic uint64_t seq;
	/* host->conn_origin: set before the workers start (after prepared),
	 * read-only until module_destroy. */
	struct shb_origin origin;
	/* Where connections go, in order: a connection slot moves to the
	 * next address when a connect fails (refused, unreachable, timed
	 * out), and keeps one that worked. */
	struct shb_addr addrs[SHB_MAX_ADDRS];
	uint32_t naddrs;
	/* TLS to an IP literal without --sni: no SNI goes out, and a failed
	 * handshake says how to send one. */
	int sni_hint;
	/* A forward proxy (route_run.h): every new connection first sends
	 * connect_req (CONNECT host:port) and waits for a 2xx before TLS and
	 * the protocol; or, for plain h1, proxy_absolute: requests in
	 * absolute form straight to the proxy. NULL and 0 otherwise. */
	char *connect_req;
	size_t connect_req_len;
	int proxy_absolute;
	/* Absolute form through a proxy with credentials: "Basic ..." for
	 * the Proxy-Authorization header every request carries (in headers
	 * above, shb_run_route_headers). */
	char *proxy_auth;
	/* The proxy as reports show it, "http://host:port" without
	 * credentials (shb_run_info.proxy), or NULL; kept by route_run.c
	 * for the process's life. */
	const char *proxy_shown;
	/* Some connection got through (transport and TLS up, or a request
	 * answered): until then a run whose every connection keeps failing
	 * stops early. */
	atomic_int connected;
	int use_tls;
	struct shb_tls_ctx tls;
	/* --ciphers/--tls-version as one GnuTLS priority string (malloc'd),
	 * NULL for the default: the core's TLS and a QUIC module use it. */
	char *tls_priority;
	/* The run's first ClientHello, for the report's JA3 and JA4: written
	 * once by whichever worker's connection sends one first (the core's
	 * TLS, or a module through host->tls_client_hello), read on the main
	 * thread. */
	struct shb_hello hello;
	/* The run's first connection fingerprint of each kind, handed by
	 * the module (host->conn_fingerprint), read on the main thread. */
	struct shb_conn_fps conn_fps;
	uint32_t threads;
	uint64_t start_ns;   /* the run starts: connections are set up */
	/* The load starts (the warm-up first, if any) once every worker has
	 * set up its first connections: setup_left counts the workers still
	 * setting up, and the one that brings it to 0 stores load_ns (0
	 * before). Counting starts at load_ns + --warmup; -z counts from
	 * there too. */
	atomic_uint setup_left;
	/* Workers that have not finished building their ring and
	 * connection tables yet: none opens a socket before every one has
	 * (a worker still creating its ring must not find the descriptors
	 * taken by another's first connections). */
	atomic_uint rings_left;
	_Atomic uint64_t load_ns;
	/* --start-at on the monotonic clock (0 without): load_ns is never
	 * earlier, and the workers wait for it before they send. loaded_ns:
	 * when the first worker did start loading, for the start skew. */
	uint64_t start_at_ns;
	_Atomic uint64_t loaded_ns;
	atomic_int alpn_warned; /* one warning per run */
	/* Each connection's origin (mix.h): ro[0] views origin, addrs,
	 * naddrs, use_tls, tls and sni_hint above (ro0); a mixed run (--mix,
	 * --urls) adds one per further origin. Set by shb_run_views before
	 * the workers start. */
	struct shb_run_origin ro0;
	const struct shb_run_origin *ro;
	uint32_t norigins;
	struct shb_mix *mix; /* a mixed run (mix.h), else NULL */
	/* -s: the script and its threads (script_run.h), else NULL. */
	struct shb_script_run *script;
	/* Set by a worker that hit a local fatal condition (its args->err
	 * says which): every worker stops as if the run had ended. */
	atomic_int abort_run;
};

/* Set from the SIGINT handler; workers test it on every loop pass. */
extern atomic_int shb_interrupted;

struct shb_worker_args {
	struct shb_run *run;
	uint32_t index;
	uint32_t conns;  /* connections this worker owns */
	uint32_t conn_base; /* the run-wide number of its first ({{conn}}) */
	uint64_t budget; /* requests to finish; 0 in duration mode */
	struct shb_stats stats;
	struct shb_ival *ival; /* --interval: the deltas, or NULL */
	/* A mixed run: this worker's connections per origin, budgets and
	 * statistics per target (mix.h), owned by the main thread; NULL
	 * otherwise. */
	struct shb_mix_worker *mixw;
	uint64_t end_ns; /* when its budget was done or the run was stopped */
	uint64_t warmup_requests; /* ended during the warm-up: not in stats */
	int failed;      /* the worker could not run, or hit a fatal local
			  * condition; err says which */
	/* Published once per loop pass with relaxed atomic stores, read by the
	 * main thread for the progress line. */
	_Atomic uint64_t live_ok, live_errors;
	/* Gauges (ABI 1.3 connections_active/_connecting): connections up,
	 * and being set up (connect, TLS, a datagram protocol's handshake).
	 * A stopping worker no longer publishes, so after the run they hold
	 * the state at the end of the load. */
	_Atomic uint64_t live_active, live_connecting;
	/* 1 once the worker has left its loop (a release store: what it
	 * wrote before is seen by an acquire load of it). */
	atomic_int live_done;
	/* Slots whose connections failed and none ever opened yet (the
	 * set-up progress line), published like the gauges. */
	_Atomic uint64_t live_failed;
	/* Taken when the worker stops: the slots that never opened. */
	struct shb_census census;
	char err[512];
};

/* pthread entry: runs one worker until its budget is done, the -z deadline
 * passes, or the run is interrupted. */
void *shb_worker_main(void *arg);

/* The host callbacks that reach into worker state. */
struct shb_conn;
struct shb_req_result;
struct shb_conn_event;
void shb_worker_req_done(struct shb_conn *c, uint64_t cookie,
			 const struct shb_req_result *res);
void shb_worker_conn_event(struct shb_conn *c, const struct shb_conn_event *ev);
const struct shb_origin *shb_worker_conn_origin(struct shb_conn *c);
void shb_worker_tls_client_hello(struct shb_conn *c, const uint8_t *msg,
				 size_t len);
void shb_worker_conn_fingerprint(struct shb_conn *c, uint32_t kind,
				 const char *text);
/* -L (redirect.h): keeps the Location of a redirect for its slot. */
void shb_worker_req_response(struct shb_conn *c, uint64_t cookie,
			     const struct shb_response *resp);
void shb_worker_metric_add(struct shb_conn *c, uint32_t index, uint64_t n);
void shb_worker_metric_record(struct shb_conn *c, uint32_t index,
			      uint64_t value);

uint64_t shb_now_ns(void);

/* [main] Fills run->origin from the configuration and run->prepared. */
void shb_run_set_origin(struct shb_run *run);

#endif
