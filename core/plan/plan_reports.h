/* The reporters of a run or of `shb merge`, loaded but not created (no
 * report file is opened), and the interval they are sampled at. [main]. */
#ifndef SHB_CORE_PLAN_REPORTS_H
#define SHB_CORE_PLAN_REPORTS_H

#include <stddef.h>
#include <stdint.h>

#include "plan/plan.h"

/* Loads every --report reporter into *out (cfg->report_count of them,
 * calloc'd) and checks the --report-opt items against them. 0, or -1 with
 * one line in err; shb_plan_reports_free(*out) either way. */
int shb_plan_reports(const struct shb_config *cfg, struct shb_loader *l,
		     struct shb_plan_report **out, char *err, size_t errlen);
void shb_plan_reports_free(struct shb_plan_report *reps, size_t n);

/* --interval, or its default when a reporter wants samples (0: none);
 * sets which reporters get sample(). */
uint64_t shb_plan_interval(const struct shb_config *cfg,
			   struct shb_plan_report *reps, size_t n);

#endif
