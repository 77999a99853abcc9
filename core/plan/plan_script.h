/* -s FILE: the script engine the run uses (shb_loader_script),
 * picked by the file's extension and loaded with the plan, and what the
 * run's protocol must offer for it. [main]. */
#ifndef SHB_CORE_PLAN_SCRIPT_H
#define SHB_CORE_PLAN_SCRIPT_H

#include <stddef.h>

#include "loader/loader.h"

struct shb_plan;

/* -s without -p: a request() string is the pipeline, as in wrk. A
 * connection carries one string at a time, all its requests in flight at
 * once (one write on HTTP/1.1, concurrent streams on HTTP/2 and HTTP/3),
 * so a protocol that takes -p is run with room for this many; a longer
 * string is an error of kind script (-p N sends longer ones N at a time).
 * Each connection holds a request slot per request of it. */
#define SHB_SCRIPT_PIPE_MAX 64u

/* Without -s: 0 and nothing loaded. Else loads the engine into
 * plan->script (plan->has_script set), checks that the protocol can
 * issue whole requests and, without -p or --disable-keepalive, makes a
 * protocol that takes -p run strings (struct shb_plan_run `strings`).
 * 0, or -1 with one line in err (exit 2). */
int shb_plan_script(struct shb_plan *plan, struct shb_loader *l, char *err,
		    size_t errlen);

#endif
