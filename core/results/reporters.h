/* The reporters of a run, from --report to their end() (reporters.c).
 * [main] thread. */
#ifndef SHB_CORE_REPORTERS_H
#define SHB_CORE_REPORTERS_H

#include <stddef.h>
#include <stdio.h>

#include <shb/shb.h>

#include "loader/loader.h"
#include "plan/plan.h"

struct shb_config;

struct shb_reporter {
	struct shb_report_handle h;
	FILE *f;
	int own_file;
	struct shb_ostream os;
	void *rep;
	const char *name;
	char *opts; /* the --report-opt string for create(), or NULL */
	int samples; /* sample() is called: --interval is on and the reporter
		      * asked for it (WANTS_INTERVALS) or the user did */
	int fresh;   /* built against ABI < 1.3: a new instance for each run
		      * of a comparison (compare.h) */
};

/* The n reporters the plan loaded (pr, plan_reports.h) into reps[n],
 * zeroed by the caller: opens the files and creates each reporter. -1 with
 * one line in err; shb_reporters_close releases what was opened either
 * way. */
int shb_reporters_open(const struct shb_plan_report *pr, size_t n,
		       const struct shb_host *host, struct shb_reporter *reps,
		       char *err, size_t errlen);

/* A comparison's next run: reporters older than ABI 1.3 get a new
 * instance on the same sink. -1 with one line in err. */
int shb_reporters_renew(const struct shb_host *host,
			struct shb_reporter *reps, size_t n, char *err,
			size_t errlen);

void shb_reporters_close(struct shb_reporter *reps, size_t n);

/* shb merge's reporting: the n reporters loaded (shb_plan_reports),
 * created, begun with info and ended with r (results that no run
 * produced). 0, 1 when a reporter failed to write, -1 with one line in err
 * when one could not be set up. */
int shb_report_results(const struct shb_plan_report *pr, size_t n,
		       const struct shb_host *host,
		       const struct shb_run_info *info,
		       const struct shb_results *r, char *err, size_t errlen);

#endif
