/* shb plugin test kit: a protocol's metrics (ABI 1.4), read back.
 *
 * The fake host (host.h) implements metric_add and metric_record: it
 * checks each call (an index in the descriptor's table, metric_add on a
 * COUNTER, metric_record on a LATENCY or VALUE metric, from inside a
 * [conn] call on that connection) and adds it to kh->metrics. A plugin's
 * tests read them back by name and assert exact counts:
 *
 *   CU_ASSERT_EQUAL(shb_kit_metric_count(&kh, "redis_pipeline_depth"), 3);
 *   const struct shb_kit_metric *m = shb_kit_metric(&kh, "ws_msg_latency");
 *   CU_ASSERT_EQUAL(m->max, 2000000);
 *
 * shb_kit_host_reset clears them. The names are the descriptor's: read
 * them while its plugin is loaded. Test thread only. */
#ifndef SHB_KIT_METRICS_H
#define SHB_KIT_METRICS_H

#include <stdint.h>

#include <shb/kit/host.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The metric `name` of the module under test, or NULL when its
 * descriptor declares none by that name. */
const struct shb_kit_metric *shb_kit_metric(const struct shb_kit_host *kh,
					    const char *name);

/* Its count (a COUNTER's sum, a histogram's number of values), or
 * UINT64_MAX when the descriptor declares no metric `name`. */
uint64_t shb_kit_metric_count(const struct shb_kit_host *kh, const char *name);

#ifdef __cplusplus
}
#endif
#endif
