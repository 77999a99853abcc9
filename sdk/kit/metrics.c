/* The fake host's protocol metrics: see shb/kit/metrics.h. */
#include <shb/kit/metrics.h>

#include <stdio.h>
#include <string.h>

#include "kit_int.h"

/* Keeps the kinds: the table may belong to a plugin closed since (a
 * test's last reset runs after its plugin's dlclose). */
void shb_kit_metrics_clear(struct shb_kit_host *kh)
{
	for (uint32_t i = 0; i < SHB_METRIC_MAX; i++) {
		uint32_t kind = kh->metrics[i].kind;
		memset(&kh->metrics[i], 0, sizeof(kh->metrics[i]));
		kh->metrics[i].kind = kind;
	}
}

void shb_kit_metrics_use(struct shb_kit_host *kh,
			 const struct shb_proto_desc *d)
{
	int has = d && SHB_HAS(d, struct shb_proto_desc, metric_count) &&
		  d->metrics && d->metric_count <= SHB_METRIC_MAX;
	kh->metric_defs = has ? d->metrics : NULL;
	kh->metric_def_count = has ? d->metric_count : 0;
	memset(kh->metrics, 0, sizeof(kh->metrics));
	for (uint32_t i = 0; i < kh->metric_def_count; i++)
		kh->metrics[i].kind = kh->metric_defs[i].kind;
}

/* The metric a call names, if the rules allow the call; NULL after
 * recording the violation otherwise. */
static struct shb_kit_metric *metric_of(struct shb_kit_host *kh,
					struct shb_conn *handle,
					const char *what, uint32_t index,
					int hist)
{
	char tag[48];
	snprintf(tag, sizeof tag, " (metric %u)", (unsigned)index);
	if (!shb_kit_callback_conn(kh, handle, what, tag))
		return NULL;
	if (index >= kh->metric_def_count) {
		shb_kit_violation(kh, "%s: index %u out of the descriptor's %u "
				  "metrics", what, (unsigned)index,
				  (unsigned)kh->metric_def_count);
		return NULL;
	}
	const struct shb_metric_def *d = &kh->metric_defs[index];
	if (hist != (d->kind != SHB_METRIC_COUNTER)) {
		shb_kit_violation(kh, "%s on metric \"%s\", a %s", what, d->name,
				  d->kind == SHB_METRIC_COUNTER ? "counter" :
				  "histogram");
		return NULL;
	}
	return &kh->metrics[index];
}

void shb_kit_host_metric_add(struct shb_conn *handle, uint32_t index,
			     uint64_t n)
{
	struct shb_kit_host *kh = shb_kit_host_active();
	struct shb_kit_metric *m = kh ? metric_of(kh, handle, "metric_add",
						  index, 0) : NULL;
	if (!m)
		return;
	m->count += n;
	m->calls++;
}

void shb_kit_host_metric_record(struct shb_conn *handle, uint32_t index,
				uint64_t value)
{
	struct shb_kit_host *kh = shb_kit_host_active();
	struct shb_kit_metric *m = kh ? metric_of(kh, handle, "metric_record",
						  index, 1) : NULL;
	if (!m)
		return;
	if (!m->count || value < m->min)
		m->min = value;
	if (value > m->max)
		m->max = value;
	m->count++;
	m->calls++;
	m->sum += value;
}

const struct shb_kit_metric *shb_kit_metric(const struct shb_kit_host *kh,
					    const char *name)
{
	for (uint32_t i = 0; name && i < kh->metric_def_count; i++)
		if (!strcmp(kh->metric_defs[i].name, name))
			return &kh->metrics[i];
	return NULL;
}

uint64_t shb_kit_metric_count(const struct shb_kit_host *kh, const char *name)
{
	const struct shb_kit_metric *m = shb_kit_metric(kh, name);
	return m ? m->count : UINT64_MAX;
}
