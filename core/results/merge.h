/* `shb merge FILE...`: several JSON reports (docs/reports.md) of runs with
 * the same options, typically the shards of one run (--shard I/N), summed
 * into one result whose histograms are merged bucket for bucket from their
 * HdrHistogram export (hdrv2.h). [main] only. */
#ifndef SHB_CORE_MERGE_H
#define SHB_CORE_MERGE_H

#include <stdio.h>

#include <jansson.h>

#include "cli/config.h"
#include "loader/loader.h"
#include "results/results.h"
#include "results/stats.h"
#include "results/merge_metrics.h"
#include "results/merge_v14.h"

#define SHB_MERGE_TEXT 256

struct shb_merge {
	struct shb_stats stats; /* the sums and the merged histograms */
	json_t *first;          /* the first report: the run's options */
	char first_name[SHB_MERGE_TEXT];
	size_t files;
	uint64_t elapsed_ns;    /* the longest run */
	uint64_t setup_ns;      /* the longest set-up */
	uint64_t start_unix_ns; /* the earliest start, 0 when none known */
	uint64_t start_max_ns;  /* the latest start */
	uint64_t requests_target; /* summed; 0 when a run had none (-z) */
	uint64_t warmup_requests;
	uint32_t threads, connections; /* summed */
	/* Every count of every report added, summed: at most
	 * SHB_MJ_COUNT_MAX, so that no sum of the merge can pass it. */
	uint64_t counted;
	int interrupted;        /* any run was */
	char url[SHB_MERGE_TEXT], method[32], proto[64], proto_display[64];
	char label[SHB_MERGE_TEXT];
	int has_label;
	uint32_t parallel, tls, tls_verify;
	uint64_t duration_target_ns, warmup_ns, rate_milli;
	struct shb_stage stages[64];
	size_t stage_count;
	/* Every report added and the name it was given, in order (owned
	 * references): for the per-report lines and the merged intervals. */
	json_t *docs, *names;
	struct shb_merge14 v14; /* the first report's 1.4 members */
	struct shb_merge_metrics metrics; /* the first report's metric set */
};

/* 0, or -1 when out of memory. */
int shb_merge_init(struct shb_merge *m);
void shb_merge_fini(struct shb_merge *m);

/* Adds one report (`name` is how messages call it; `doc` is borrowed).
 * Returns 0, or -1 with one line in err: a report that is not shb's, a
 * histogram that does not decode, or a run whose options differ from the
 * first one's ("NAME: url differs from FIRST's: ..."). */
int shb_merge_add(struct shb_merge *m, const char *name, json_t *doc,
		  char *err, size_t errlen);

/* The merged results and run facts for the reporters: `info` and `target`
 * are filled, b is built over m->stats (valid while m is). */
void shb_merge_results(struct shb_merge *m, struct shb_results_buf *b,
		       struct shb_run_info *info, struct shb_target_info *target,
		       const uint32_t *ppm, size_t nppm);

/* "2026-12-01T18:35:23.165Z" (any number of fraction digits, Z only) to
 * Unix ns; 0 when NULL, empty or another form. */
uint64_t shb_merge_time_of(const char *s);

/* The wall clock at which a report's load started, in Unix ns: its
 * "loadStart" (ABI 1.3 reports, to the ns), else its startTime plus
 * setupSeconds (to the ms); 0 when the report has neither. */
uint64_t shb_merge_load_start(const json_t *doc);

/* What the merged JSON report has beyond what a run's has, added to
 * `report` (the json reporter's document of the merged results):
 *  - "shards": one object per report merged, in order: its file, shard,
 *    loadStart, startOffsetSeconds (from the earliest load start),
 *    requests, errors, requestsPerSec, latencySeconds p50 and p99;
 *  - "loadStart" (the earliest) and "startSkewSeconds" (latest minus
 *    earliest load start; null when a report has none);
 *  - "intervals", when the reports have some: each report's intervals
 *    placed by wall-clock time (its load start, --warmup and the
 *    interval's start) in bins of the interval length from the earliest
 *    start, counts summed and latency percentiles taken from the sum of
 *    their exported histograms (exact; null when a report lacks them).
 * Returns 0, or -1 with one line in err. */
int shb_merge_extend(const struct shb_merge *m, json_t *report, char *err,
		     size_t errlen);

/* The text report's lines about the reports merged ("Shards:"), written
 * after the text reporter's report. */
void shb_merge_text(const struct shb_merge *m, FILE *f);

#endif
