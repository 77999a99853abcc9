/* The run plan, computed once (plan.h). */
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_int.h"
#include "plan/plan_reports.h"
#include "plan/plan_script.h"

/* Every run's URL and protocol: a comparison's targets are all checked
 * before any traffic, each error naming its target. */
static int pick_runs(struct shb_plan *plan, struct shb_loader *l, char *err,
		     size_t errlen)
{
	const struct shb_config *cfg = plan->cfg;
	size_t n = cfg->target_count && !cfg->mix ? cfg->target_count : 1;
	plan->runs = calloc(n, sizeof(*plan->runs));
	if (!plan->runs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t k = 0; k < n; k++) {
		char e[512] = "";
		plan->nruns = k + 1;
		if (shb_plan_run_pick(&plan->runs[k], cfg, l, k, e, sizeof(e)) == 0)
			continue;
		if (n > 1)
			snprintf(err, errlen, "target %zu (%s): %s", k + 1,
				 cfg->targets[k].label ? cfg->targets[k].label :
				 cfg->targets[k].url_text, e);
		else
			snprintf(err, errlen, "%s", e);
		return -1;
	}
	return 0;
}

int shb_plan_make(struct shb_plan *plan, const struct shb_config *cfg,
		  struct shb_loader *l, char *err, size_t errlen)
{
	memset(plan, 0, sizeof(*plan));
	plan->cfg = cfg;
	plan->connections = cfg->connections;
	plan->requests = cfg->duration_ns ? 0 : cfg->requests;
	plan->requests_all = cfg->requests_all ? cfg->requests_all : cfg->requests;
	plan->shard_index = cfg->shard_index;
	plan->shard_count = cfg->shard_count ? cfg->shard_count : 1;
	plan->start_at_unix_ns = cfg->start_at_unix_ns;
	if (pick_runs(plan, l, err, errlen) < 0 ||
	    shb_plan_threads(plan, err, errlen) < 0 ||
	    shb_plan_mix(plan, err, errlen) < 0 ||
	    shb_plan_workers(plan, err, errlen) < 0)
		return -1;
	plan->nreports = cfg->report_count;
	if (shb_plan_reports(cfg, l, &plan->reports, err, errlen) < 0 ||
	    shb_plan_script(plan, l, err, errlen) < 0)
		return -1;
	plan->interval_ns = shb_plan_interval(cfg, plan->reports, plan->nreports);
	return 0;
}

void shb_plan_free(struct shb_plan *plan)
{
	for (size_t k = 0; plan->runs && k < plan->nruns; k++)
		shb_plan_run_free(&plan->runs[k]);
	free(plan->runs);
	for (uint32_t i = 0; plan->workers && i < plan->threads; i++) {
		free(plan->workers[i].oconns);
		free(plan->workers[i].tbudget);
	}
	free(plan->workers);
	shb_plan_reports_free(plan->reports, plan->nreports);
	memset(plan, 0, sizeof(*plan));
}
