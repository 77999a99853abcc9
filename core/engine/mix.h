/* A mixed run (--mix, --urls FILE; targets.h): several targets, possibly
 * on several origins, in one run.
 *
 * Origins: targets with the same scheme, host and port share one; the
 * first target's origin is origin 0 and uses the run's own addresses and
 * TLS (run.h), every further origin gets its own here. Connections are per
 * origin: -c is split over the origins by weight (an origin's weight is
 * the sum of its targets'; largest remainder, at least one each), and each
 * worker gets its share of every origin's connections, so -t is at most
 * the smallest origin's connection count.
 *
 * Requests: each target has its own prepared request (prepare_request with
 * its method, path, authority and body). With -n the run's requests are
 * the smooth weighted sequence's picks (targets.h) from this shard's place
 * on: each target's count is exact, split over the workers; a worker's
 * connection of origin o takes the next target of o by the same smooth
 * weighted order, among the targets whose count is not used up. With -z
 * targets of one origin are picked by weight exactly (within one period),
 * and the origins' shares are held to their weights by each worker's
 * deficit gate (share_gate.h), closed and open loop alike: a connection
 * whose origin is a request ahead waits (held) until the others catch
 * up, and is woken then (shb_mix_wake).
 *
 * Counting: a request's outcome is counted in the run's totals (as without
 * targets) and in its target's own statistics; connection-level numbers
 * (bytes, connections, set-up times) are only in the totals. */
#ifndef SHB_CORE_MIX_H
#define SHB_CORE_MIX_H

#include <stdint.h>
#include <shb/results.h>

#include "results/results.h"
#include "cli/route.h"
#include "engine/run.h"
#include "engine/share_gate.h"
#include "results/stats.h"
#include "cli/targets.h"
#include "engine/tls.h"
#include "cli/url.h"

struct shb_run;
struct shb_worker_args;
struct worker;
struct shb_conn;

struct shb_mix_origin {
	struct shb_url url;      /* of its first target */
	char *authority;         /* as sent: -H Host, else the URL's */
	struct shb_origin origin;
	struct shb_addr addrs[SHB_MAX_ADDRS];
	uint32_t naddrs;
	int use_tls, sni_hint, tls_live;
	struct shb_tls_ctx tls;
	uint64_t weight;         /* the sum of its targets' */
	uint32_t conns;          /* its share of -c */
	uint32_t first, count;   /* its targets: order[first .. first+count) */
};

struct shb_mix {
	uint32_t ntargets, norigins;
	uint32_t weight[SHB_TARGETS_MAX];
	uint32_t origin_of[SHB_TARGETS_MAX];
	uint32_t order[SHB_TARGETS_MAX]; /* target indices grouped by origin */
	uint32_t wsorted[SHB_TARGETS_MAX]; /* weight[order[k]] */
	void *prepared[SHB_TARGETS_MAX];
	struct shb_target_info info[SHB_TARGETS_MAX];
	uint64_t count[SHB_TARGETS_MAX];   /* -n: each target's requests */
	struct shb_mix_origin o[SHB_TARGETS_MAX];
	struct shb_run_origin ro[SHB_TARGETS_MAX];
	/* The results per target, for the reporters (shb_mix_results). */
	struct shb_results_buf *rb;
	const struct shb_results *rp[SHB_TARGETS_MAX];
};

/* One worker's share. Per target: stats and budget; per origin: its
 * connection count and its picker over order[] (flat arrays). */
struct shb_mix_worker {
	uint32_t conns[SHB_TARGETS_MAX];  /* per origin */
	uint64_t budget[SHB_TARGETS_MAX]; /* per target (by order[] slot) */
	uint64_t left[SHB_TARGETS_MAX];   /* ... not issued yet (count mode) */
	int64_t cur[SHB_TARGETS_MAX];
	struct shb_stats *stats;          /* per target (by target index) */
	uint32_t nstats;
	/* -z over several origins: the gate, and per origin the connections
	 * it holds (a stack in held[base[k] ..], its connections' block). */
	struct shb_share_gate gate;
	uint32_t base[SHB_TARGETS_MAX];
	uint32_t nheld[SHB_TARGETS_MAX];
	uint32_t *held;                   /* connection indices */
	uint8_t *is_held;                 /* per connection */
	uint32_t nconns;                  /* of held[] and is_held[] */
};

/* [main] The run without a mix: one origin, the run's own (ro0). Call
 * once the run's addresses and TLS are set, before the workers start. */
void shb_run_views(struct shb_run *run);

/* [main] Sets up a mixed run after the module exists (run->module) and
 * origin 0 is resolved: every target's URL against the protocol's
 * schemes, its origin (the plan's, plan.h), addresses and TLS, its
 * prepared request; the counts per target and the connections per origin
 * are the plan's.
 * Returns 0, or -1 with one line in err (bad input: exit 2). */
int shb_mix_setup(struct shb_run *run, char *err, size_t errlen);
void shb_mix_free(struct shb_run *run);

/* [main] The run info's targets (info->targets, target_count). */
void shb_mix_run_info(struct shb_run *run, struct shb_run_info *info);

/* [main] Gives each worker its per-origin and per-target statistics and
 * shares (mixw), from the plan's (plan.h). Returns 0 or -1 (out of
 * memory). */
int shb_mix_split(struct shb_run *run, struct shb_worker_args *wa, uint32_t n);
void shb_mix_split_free(struct shb_worker_args *wa, uint32_t n);

/* [main] After the workers are joined: merges the targets' statistics
 * and points total->targets at one result each. Returns 0 or -1. */
int shb_mix_results(struct shb_run *run, struct shb_worker_args *wa,
		    uint32_t n, const struct shb_run_info *info,
		    struct shb_results *total);

/* [worker] Each connection's origin (c->ro, c->oi): in a mixed run the
 * worker's connections in blocks, origin by origin. */
void shb_mix_assign_conns(struct worker *w);
/* [worker] --warmup is over: the budgets start now. */
void shb_mix_begin_measuring(struct worker *w);
/* [worker] The next target for connection c (its origin's next by
 * weight); -1 when c's origin has none left (-n used up). */
int shb_mix_pick(struct worker *w, const struct shb_conn *c, uint32_t *t);
/* [worker] Per origin, 1 when none of this worker's connections of it
 * can take a request now (none ready with room): blocked[norigins]. */
void shb_mix_blocked(struct worker *w, uint8_t *blocked);
/* [worker] A request that waited longer than --timeout is charged
 * without being sent (waiting.c): the next target of a blocked origin
 * (shb_mix_blocked), oi's first, else of any origin with one left, in
 * index order from oi; -1 when none has one left. */
int shb_mix_pick_waiting(struct worker *w, uint32_t oi, const uint8_t *blocked,
			 uint32_t *t);
/* [worker] A picked target's request was not sent after all (refused,
 * requeued, issue failed): it goes back to its budget (and its origin's
 * share). */
void shb_mix_giveback(struct worker *w, uint32_t t);
/* [worker] 1 when c's origin is ahead of its share (-z, several origins):
 * c sends nothing now and is held until shb_mix_wake frees it; else 0. */
int shb_mix_hold(struct worker *w, const struct shb_conn *c);
/* [worker] Marks dirty the held connections whose origin may send again;
 * returns how many. */
uint32_t shb_mix_wake(struct worker *w);

/* [worker] The target's own statistics, or NULL without a mix. */
static inline struct shb_stats *shb_mix_stats(struct shb_mix_worker *m,
					      uint32_t t)
{
	return m ? &m->stats[t] : NULL;
}

#endif
