/* Every worker's share of the run (plan_int.h): its connections, their
 * run-wide numbers and, with -n, its requests; a mixed run's per origin
 * and per target. */
#include <stdio.h>
#include <stdlib.h>

#include "plan/plan_int.h"

/* A mixed run: each target's count goes round the workers from where the
 * previous target's ended, so every worker gets its floor or ceiling of -n
 * (and so at least one request, as threads <= -n); each origin's
 * connections are split over the workers, and with -n a worker keeps no
 * more of an origin's than its requests there can keep busy. */
static void split_mix(struct shb_plan *plan)
{
	const struct shb_plan_mix *m = &plan->mix;
	const struct shb_config *cfg = plan->cfg;
	uint32_t n = plan->threads;
	uint64_t start[SHB_TARGETS_MAX] = {0}, at = 0;
	for (uint32_t t = 0; t < m->ntargets; t++) {
		start[t] = at % n;
		at += m->count[t];
	}
	for (uint32_t i = 0; i < n; i++) {
		struct shb_plan_worker *w = &plan->workers[i];
		w->conns = 0;
		w->budget = 0;
		for (uint32_t k = 0; k < m->norigins; k++) {
			uint64_t ob = 0;
			for (uint32_t t = 0; t < m->ntargets; t++) {
				uint64_t c = m->count[t];
				if (m->origin_of[t] != k)
					continue;
				w->tbudget[t] = c / n + ((i + n - start[t]) % n < c % n);
				ob += w->tbudget[t];
			}
			uint64_t oc = m->oconns[k] / n + (i < m->oconns[k] % n);
			if (!cfg->duration_ns) {
				uint64_t need = (ob + cfg->parallel - 1) / cfg->parallel;
				if (oc > need)
					oc = need;
			}
			w->oconns[k] = (uint32_t)oc;
			w->conns += (uint32_t)oc;
			w->budget += ob;
		}
		if (cfg->duration_ns)
			w->budget = 0;
	}
}

int shb_plan_workers(struct shb_plan *plan, char *err, size_t errlen)
{
	uint32_t t = plan->threads;
	plan->workers = calloc(t, sizeof(*plan->workers));
	if (!plan->workers)
		goto oom;
	for (uint32_t i = 0; i < t; i++) {
		struct shb_plan_worker *w = &plan->workers[i];
		w->conns = plan->connections / t + (i < plan->connections % t);
		w->budget = plan->requests / t + (i < plan->requests % t);
		if (!plan->mixed)
			continue;
		w->oconns = calloc(plan->mix.norigins, sizeof(*w->oconns));
		w->tbudget = calloc(plan->mix.ntargets, sizeof(*w->tbudget));
		if (!w->oconns || !w->tbudget)
			goto oom;
	}
	if (plan->mixed)
		split_mix(plan);
	for (uint32_t i = 1; i < t; i++) /* {{conn}}: run-wide numbers */
		plan->workers[i].conn_base = plan->workers[i - 1].conn_base +
					     plan->workers[i - 1].conns;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}
