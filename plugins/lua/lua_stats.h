/* done(summary, latency, requests): the summary table and the two
 * statistics objects of wrk's API (min, max, mean, stdev,
 * percentile(p), obj(i) giving the i-th recorded value and its count,
 * #obj the number of such values), over the core's histograms. They read
 * the histograms only during done(): used later they raise an error. */
#ifndef SHB_LUA_STATS_H
#define SHB_LUA_STATS_H

#include <lua.h>

#include <shb/shb.h>

/* Pushes summary, latency and requests onto L: latency is kept in
 * nanoseconds and shown in microseconds, as wrk's; rates as they are. */
void shb_lua_push_done_args(lua_State *L, const struct shb_host *host,
			    const struct shb_script_summary *sum);
/* Makes the objects pushed for the done() call that just ended unusable. */
void shb_lua_stats_expire(void);

#endif
