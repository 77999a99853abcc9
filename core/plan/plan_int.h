/* The plan's steps (plan.c calls them in order), each in the file named
 * after it. [main] thread. */
#ifndef SHB_CORE_PLAN_INT_H
#define SHB_CORE_PLAN_INT_H

#include <stddef.h>

#include "plan/plan.h"

/* plan_run.c: run k's URL (target k of a comparison, else target 0),
 * protocol and streams; -p checked against the protocol. */
int shb_plan_run_pick(struct shb_plan_run *r, const struct shb_config *cfg,
		      struct shb_loader *l, size_t k, char *err, size_t errlen);
void shb_plan_run_free(struct shb_plan_run *r);

/* plan_fds.c: plan->threads and the descriptor mode. */
int shb_plan_threads(struct shb_plan *plan, char *err, size_t errlen);

/* plan_mix.c: a mixed run's origins, their connections and the targets'
 * counts; caps plan->threads at the smallest origin's connections. */
int shb_plan_mix(struct shb_plan *plan, char *err, size_t errlen);

/* plan_workers.c: every worker's share (plan->workers). */
int shb_plan_workers(struct shb_plan *plan, char *err, size_t errlen);

#endif
