/* The metrics table of a protocol descriptor: see loader_metrics.h. */
#include "loader/loader_metrics.h"

#include <string.h>

#include "loader/loader_int.h"

/* Names become JSON keys, CSV columns and --slo words unquoted. */
int shb_metric_name_ok(const char *s)
{
	size_t n = 0;

	if (!s || !(s[0] >= 'a' && s[0] <= 'z'))
		return 0;
	for (; s[n]; n++)
		if (n == SHB_METRIC_NAME_MAX ||
		    !((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') ||
		      s[n] == '_'))
			return 0;
	return 1;
}

int shb_metric_text_ok(const char *s, size_t max)
{
	size_t n = 0;

	for (; s && s[n]; n++)
		if (n == max || s[n] < 0x20 || s[n] > 0x7e)
			return 0;
	return 1;
}

static int metric_check(const struct shb_metric_def *m, uint32_t i, char *why,
			size_t n)
{
	char a[64];

	shb_loader_clean(m[i].name, a, sizeof a);
	if (!shb_metric_name_ok(m[i].name)) {
		shb_loader_fmt(why, n, "protocol descriptor has a bad metric name "
		    "\"%s\" ([a-z][a-z0-9_], 1 to %u bytes)", a, SHB_METRIC_NAME_MAX);
		return -1;
	}
	if (m[i].kind < SHB_METRIC_COUNTER || m[i].kind > SHB_METRIC_VALUE) {
		shb_loader_fmt(why, n, "protocol descriptor has metric \"%s\" of "
		    "unknown kind %u", a, (unsigned)m[i].kind);
		return -1;
	}
	if (!shb_metric_text_ok(m[i].unit, SHB_METRIC_UNIT_MAX) ||
	    !shb_metric_text_ok(m[i].help, SHB_METRIC_HELP_MAX)) {
		shb_loader_fmt(why, n, "protocol descriptor has metric \"%s\" with "
		    "a unit or help that is not printable ASCII (at most %u and "
		    "%u bytes)", a, SHB_METRIC_UNIT_MAX, SHB_METRIC_HELP_MAX);
		return -1;
	}
	for (uint32_t j = 0; j < i; j++)
		if (!strcmp(m[j].name, m[i].name)) {
			shb_loader_fmt(why, n, "protocol descriptor lists metric "
			    "\"%s\" twice", a);
			return -1;
		}
	return 0;
}

int shb_loader_metrics_check(const struct shb_proto_desc *d, char *why,
			     size_t n)
{
	if (!SHB_HAS(d, struct shb_proto_desc, metric_count) || !d->metric_count)
		return 0;
	if (d->metric_count > SHB_METRIC_MAX) {
		shb_loader_fmt(why, n, "protocol descriptor declares %u metrics "
		    "(at most %u)", (unsigned)d->metric_count, SHB_METRIC_MAX);
		return -1;
	}
	if (!d->metrics) {
		shb_loader_fmt(why, n, "protocol descriptor declares %u metrics "
		    "without a table", (unsigned)d->metric_count);
		return -1;
	}
	for (uint32_t i = 0; i < d->metric_count; i++)
		if (metric_check(d->metrics, i, why, n))
			return -1;
	return 0;
}

const struct shb_metric_def *shb_proto_metrics(const struct shb_proto_desc *d,
					       size_t *count)
{
	if (!SHB_HAS(d, struct shb_proto_desc, metric_count) ||
	    !d->metric_count || !d->metrics) {
		*count = 0;
		return NULL;
	}
	*count = d->metric_count;
	return d->metrics;
}
