/* A protocol's metrics in a set of statistics: see metrics.h. */
#include "results/metrics.h"

#include <stdlib.h>
#include <string.h>

#include "results/stats.h"

int shb_metrics_init(struct shb_metrics *m, const struct shb_metric_def *defs,
		     uint32_t n)
{
	memset(m, 0, sizeof(*m));
	if (!n)
		return 0;
	m->hist = calloc(n, sizeof(*m->hist));
	if (!m->hist)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		if (!shb_metrics_is_hist(defs[i].kind))
			continue;
		if (shb_histo_init(&m->hist[i], SHB_HIST_HIGHEST, SHB_HIST_SIGFIGS) < 0) {
			m->defs = defs;
			m->n = i;
			shb_metrics_destroy(m);
			return -1;
		}
	}
	m->defs = defs;
	m->n = n;
	return 0;
}

/* By what was made, not by the table's kinds: shb merge may have
 * rewritten the table it points to since (a refused first report). */
void shb_metrics_destroy(struct shb_metrics *m)
{
	for (uint32_t i = 0; i < m->n; i++)
		if (m->hist[i].counts)
			shb_histo_destroy(&m->hist[i]);
	free(m->hist);
	memset(m, 0, sizeof(*m));
}

void shb_metrics_reset(struct shb_metrics *m)
{
	memset(m->count, 0, sizeof(m->count));
	for (uint32_t i = 0; i < m->n; i++)
		if (m->hist[i].counts)
			shb_histo_reset(&m->hist[i]);
}

int shb_metrics_find(const struct shb_metrics *m, const char *name)
{
	for (uint32_t i = 0; i < m->n; i++)
		if (!strcmp(m->defs[i].name, name))
			return (int)i;
	return -1;
}

void shb_metrics_merge(struct shb_metrics *dst, const struct shb_metrics *src)
{
	for (uint32_t i = 0; i < src->n; i++) {
		/* Workers share one table: the same index, no search. */
		int j = dst->defs == src->defs && i < dst->n ? (int)i :
			shb_metrics_find(dst, src->defs[i].name);
		if (j < 0 || dst->defs[j].kind != src->defs[i].kind)
			continue;
		dst->count[j] += src->count[i];
		if (shb_metrics_is_hist(src->defs[i].kind))
			shb_histo_merge(&dst->hist[j], &src->hist[i]);
	}
}
