/* The run plan: everything decided from the parsed configuration before
 * any traffic, computed once by shb_plan_make and read-only afterwards.
 * The configuration says what was asked (and is const once parsed); the
 * plan says what will run: each run's URL and protocol, threads, the
 * file-descriptor mode, every worker's connections and request budget, a
 * mixed run's shares per origin and target, the reporters and the
 * interval. The engine, the worker arguments and the reports read it
 * instead of deriving any of it again. [main] thread. */
#ifndef SHB_CORE_PLAN_H
#define SHB_CORE_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/config.h"
#include "cli/targets.h"
#include "cli/url.h"
#include "loader/loader.h"
#include "loader/proto_request.h"

/* One run: a comparison (compare.h) has one per target, run one after
 * another; any other run has one (a mixed run's first target). */
struct shb_plan_run {
	char *url_text;      /* the URL as typed (owned) */
	struct shb_url url;  /* parsed and settled for the protocol */
	struct shb_proto_handle proto;
	/* ABI 1.4: its request model, outcome names and the success set
	 * with them (proto_request.h) */
	struct shb_proto_request req;
	const char *label;   /* the comparison's label, or NULL */
	/* Requests in flight per connection: -p for a multiplexed protocol,
	 * else 1; SHB_SCRIPT_PIPE_MAX when `strings`. */
	uint32_t streams;
	/* -s without -p (plan_script.h): each connection carries one of the
	 * script's request() strings at a time, all its requests at once. */
	int strings;
};

/* A mixed run (--mix, --urls): targets with the same scheme, host and
 * port share an origin; -c is split over the origins by weight, -n over
 * the targets by the smooth weighted sequence from this shard's place. */
struct shb_plan_mix {
	uint32_t ntargets, norigins;
	uint32_t origin_of[SHB_TARGETS_MAX]; /* target -> origin */
	uint64_t oweight[SHB_TARGETS_MAX];   /* per origin: its targets' sum */
	uint32_t oconns[SHB_TARGETS_MAX];    /* per origin: its share of -c */
	uint64_t count[SHB_TARGETS_MAX];     /* per target: its -n (count mode) */
};

/* One worker thread's share. */
struct shb_plan_worker {
	uint32_t conns;     /* connections it owns */
	uint32_t conn_base; /* the run-wide number of its first ({{conn}}) */
	uint64_t budget;    /* requests to finish; 0 in duration mode */
	/* A mixed run: its connections per origin and requests per target
	 * (count mode), plan->mix.norigins and .ntargets of them; NULL
	 * otherwise. */
	uint32_t *oconns;
	uint64_t *tbudget;
};

/* One --report reporter, loaded (not created: no file is opened). */
struct shb_plan_report {
	const char *name;   /* as given to --report */
	const char *path;   /* its file, or NULL for stdout */
	struct shb_report_handle h;
	char *opts;         /* its --report-opt string for create(), or NULL */
	int samples;        /* sample() is called each interval */
};

struct shb_plan {
	const struct shb_config *cfg;
	struct shb_plan_run *runs;
	size_t nruns;
	uint32_t threads;
	/* Sockets live in the workers' io_uring file tables only: -c does
	 * not fit the open-files limit otherwise (plan_fds.c). */
	int ring_only_fds;
	uint64_t fd_need;   /* descriptors the run needs, roughly */
	uint64_t fd_limit;  /* the soft limit in force; 0 unlimited/unknown */
	/* This shard's -c and -n (the whole run's without --shard) and the
	 * whole -n before the split. */
	uint32_t connections;
	uint64_t requests;
	uint64_t requests_all;
	uint32_t shard_index, shard_count; /* 0 and 1 without --shard */
	uint64_t interval_ns;              /* 0: no time series */
	uint64_t start_at_unix_ns;         /* --start-at, 0 without */
	struct shb_plan_worker *workers;   /* threads of them */
	int mixed;
	struct shb_plan_mix mix;           /* when mixed */
	struct shb_plan_report *reports;   /* cfg->report_count of them */
	size_t nreports;
	/* -s: the script engine (plan_script.h), loaded; has_script 0
	 * without. */
	struct shb_script_handle script;
	int has_script;
};

/* Computes the plan of cfg: picks each run's protocol (loading it), settles
 * its URL, checks -p against it, sizes the threads and the descriptors
 * (raising the soft RLIMIT_NOFILE), splits the connections and requests
 * over the workers (and a mix's origins and targets), loads the reporters
 * and checks their options, and picks the interval. Opens no socket and no
 * report file and resolves no name. 0, or -1 with one line in err (bad
 * input: exit 2). shb_plan_free either way. */
int shb_plan_make(struct shb_plan *plan, const struct shb_config *cfg,
		  struct shb_loader *l, char *err, size_t errlen);
void shb_plan_free(struct shb_plan *plan);

/* How messages name target t: "FILE:LINE" for --urls, else "target N
 * (URL)". */
void shb_plan_target_name(const struct shb_config *cfg, uint32_t t, char *buf,
			  size_t len);
/* Same scheme, host and port: the same origin. */
int shb_plan_same_origin(const struct shb_url *a, const struct shb_url *b);

/* --dry-run: the plan as lines on out, one fact each. */
void shb_plan_print(const struct shb_plan *plan, FILE *out);

#endif
