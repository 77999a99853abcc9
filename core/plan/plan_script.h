/* -s FILE: the script engine the run uses (shb_loader_script),
 * picked by the file's extension and loaded with the plan, and what the
 * run's protocol must offer for it. [main]. */
#ifndef SHB_CORE_PLAN_SCRIPT_H
#define SHB_CORE_PLAN_SCRIPT_H

#include <stddef.h>

#include "loader/loader.h"

struct shb_plan;

/* Without -s: 0 and nothing loaded. Else loads the engine into
 * plan->script (plan->has_script set) and checks that the protocol can
 * issue whole requests. 0, or -1 with one line in err (exit 2). */
int shb_plan_script(struct shb_plan *plan, struct shb_loader *l, char *err,
		    size_t errlen);

#endif
