/* The 1.4 metrics table of a protocol descriptor (shb_proto_desc.metrics,
 * .metric_count), checked with the rest of the descriptor before anything
 * of the plugin runs. Main thread only, like the loader. */
#ifndef SHB_CORE_LOADER_METRICS_H
#define SHB_CORE_LOADER_METRICS_H

#include <stddef.h>

#include <shb/shb.h>

#define SHB_METRIC_NAME_MAX 32u  /* [a-z][a-z0-9_]{0,31} */
#define SHB_METRIC_UNIT_MAX 31u
#define SHB_METRIC_HELP_MAX 127u

/* 0, or -1 with one line in why[n]: more than SHB_METRIC_MAX metrics, a
 * count without a table, an unknown kind, a name that is not
 * [a-z][a-z0-9_]{0,31} or is given twice, a unit or help that is not short
 * printable ASCII. Reads only what d->struct_size covers. */
int shb_loader_metrics_check(const struct shb_proto_desc *d, char *why,
			     size_t n);

/* The descriptor's metrics (NULL and 0 when it has none or predates
 * 1.4), *count set. */
const struct shb_metric_def *shb_proto_metrics(const struct shb_proto_desc *d,
					       size_t *count);

/* Whether s is [a-z][a-z0-9_]{0,31}: a metric name. */
int shb_metric_name_ok(const char *s);
/* Whether s is NULL, or printable ASCII of at most max bytes: a unit or a
 * help text reports print as is. */
int shb_metric_text_ok(const char *s, size_t max);

#endif
