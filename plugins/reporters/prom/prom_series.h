/* The prom reporter's metrics: what it keeps between pushes (cumulative
 * values, as Prometheus counters are) and the remote-write WriteRequest
 * that carries them, every series labelled run_id, target, protocol and
 * shard (docs/reports.md "prom" lists names and labels).
 *
 * Names follow Prometheus' conventions: shb_ prefix, base units (seconds,
 * bytes), counters ending in _total. Plugin metrics, when the ABI gives
 * them to reporters, map to shb_plugin_<name>_total (counts) and
 * shb_plugin_<name>_seconds (histograms, the same buckets) with the same
 * labels; nothing here needs to change for them but a loop. */
#ifndef SHB_PROM_SERIES_H
#define SHB_PROM_SERIES_H

#include <stddef.h>
#include <stdint.h>
#include <shb/hist.h>
#include <shb/results.h>

#include "common/buf.h"

/* The latency buckets' upper bounds ("le"), in ns: 1, 1.5, 2, 3, 5 and 7
 * times each power of ten from 1 us to 7 s, then 10, 15, 20, 30 and 60 s;
 * +Inf after them. */
#define SHB_PROM_BUCKETS 47
extern const uint64_t shb_prom_le_ns[SHB_PROM_BUCKETS];

#define SHB_PROM_STATUS_SLOTS 1000 /* codes 100..999 */

struct shb_prom_state {
	uint64_t ok, errors, retried, answered;
	int answered_known; /* the core gives requests_answered (1.4) */
	uint64_t sent, received, opened;
	int kinds;          /* error kinds known: 6, or 7 from a 1.2 core */
	uint64_t errk[SHB_ERRK_EX_COUNT];
	uint64_t status[SHB_PROM_STATUS_SLOTS];
	/* latency of ok requests: per bucket, not cumulative; [BUCKETS] is
	 * above the last bound */
	uint64_t bucket[SHB_PROM_BUCKETS + 1];
	uint64_t lat_count;
	double lat_sum_ns;
	int gauges_known;   /* connections_active/connecting (1.3) */
	uint64_t active, connecting;
	uint64_t elapsed_ns;
	int final;          /* the run's totals: shb_run_finished 1 */
};

/* The labels every series carries. */
struct shb_prom_ids {
	const char *run_id, *target, *protocol, *shard;
};

/* The bucket a core histogram bucket whose values end at `hi` ns falls
 * in: the first bound >= hi (HdrHistogram reports a bucket's values as
 * its highest one, so a percentile of the JSON report falls in the same
 * bucket here), SHB_PROM_BUCKETS above the last. */
size_t shb_prom_bucket_of(uint64_t hi);

/* Bound i as Prometheus's le label: seconds, the shortest exact decimal
 * ("0.000015", "1", "60"). Returns buf. */
char *shb_prom_le_label(char *buf, size_t len, size_t i);

/* Folds a result into s: an interval's deltas are added; the run's total
 * (total 1) replaces every count, so that the last push says exactly what
 * the JSON report says. The latency sum alone never goes down (a counter
 * that drops reads as a reset to rate()): it is count x the histogram's
 * mean, rounded to the ns, the total's unless the intervals' sum is
 * larger by their rounding. */
void shb_prom_take(struct shb_prom_state *s, const struct shb_hist_ops *h,
		   const struct shb_results *r, int total);

/* Appends the WriteRequest of every series of `s` at ts_ms. SHB_BUF_OK
 * or the buffer's error. */
int shb_prom_encode(const struct shb_prom_state *s,
		    const struct shb_prom_ids *ids, int64_t ts_ms,
		    struct shb_buf *pb);

#endif
