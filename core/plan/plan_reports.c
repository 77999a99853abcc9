/* The run's reporters, loaded and their --report-opt items checked before
 * any report file is created (so that a usage error truncates nothing),
 * and the interval they are sampled at. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/plugin_opts.h"
#include "plan/plan_reports.h"

int shb_plan_reports(const struct shb_config *cfg, struct shb_loader *l,
		     struct shb_plan_report **out, char *err, size_t errlen)
{
	unsigned char *used = calloc(cfg->report_opt_count + 1, 1);
	struct shb_plan_report *reps = calloc(cfg->report_count + 1, sizeof(*reps));
	int rc = 0;

	*out = reps;
	if (!used || !reps) {
		free(used);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < cfg->report_count && rc == 0; i++) {
		const struct shb_report_spec *s = &cfg->reports[i];
		struct shb_plan_report *r = &reps[i];
		r->name = s->name;
		r->path = s->path;
		if (shb_loader_report(l, s->name, &r->h, err, errlen) < 0 ||
		    shb_report_opts(cfg, s->name, r->h.desc, &r->opts, used, err,
				    errlen) < 0)
			rc = -1;
	}
	if (rc == 0)
		rc = shb_report_opts_unused(cfg, used, err, errlen);
	free(used);
	return rc;
}

uint64_t shb_plan_interval(const struct shb_config *cfg,
			   struct shb_plan_report *reps, size_t n)
{
	uint64_t ns = cfg->interval_ns;
	int given = ns != 0;
	for (size_t i = 0; i < n; i++)
		if (!given && (reps[i].h.desc->flags & SHB_REPORT_WANTS_INTERVALS))
			ns = SHB_INTERVAL_DEFAULT_NS;
	for (size_t i = 0; i < n; i++)
		reps[i].samples = ns && reps[i].h.vt.sample &&
				  (given || (reps[i].h.desc->flags & SHB_REPORT_WANTS_INTERVALS));
	return ns;
}

void shb_plan_reports_free(struct shb_plan_report *reps, size_t n)
{
	for (size_t i = 0; reps && i < n; i++)
		free(reps[i].opts);
	free(reps);
}
