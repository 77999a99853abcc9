/* A mixed run's shares (plan_int.h, mix.h): each target's URL against the
 * protocol, the origins, -c per origin and -n per target. */
#include <stdio.h>
#include <string.h>

#include "loader/proto_pick.h"
#include "plan/plan_int.h"

void shb_plan_target_name(const struct shb_config *cfg, uint32_t t, char *buf,
			  size_t len)
{
	if (cfg->urls_file)
		snprintf(buf, len, "%s:%d", cfg->urls_file, cfg->targets[t].line);
	else
		snprintf(buf, len, "target %u (%s)", t + 1, cfg->targets[t].url_text);
}

/* Same scheme, host and port: the same origin. */
int shb_plan_same_origin(const struct shb_url *a, const struct shb_url *b)
{
	return strcmp(a->scheme, b->scheme) == 0 && a->port == b->port &&
	       strcmp(a->host, b->host) == 0;
}

/* Target t's URL, settled for the protocol into *u (freed by the caller). */
static int target_url(const struct shb_plan *plan, uint32_t t,
		      struct shb_url *u, char *err, size_t errlen)
{
	const struct shb_config *cfg = plan->cfg;
	const struct shb_proto_desc *d = plan->runs[0].proto.desc;
	char what[320], e[384];
	shb_plan_target_name(cfg, t, what, sizeof(what));
	memset(u, 0, sizeof(*u));
	if (shb_url_parse_any(cfg->targets[t].url_text, u, e, sizeof(e)) < 0 ||
	    shb_url_set_scheme(u, cfg->targets[t].url_text,
			       shb_proto_scheme_defs(d), d->name, e, sizeof(e)) < 0) {
		snprintf(err, errlen, "%s: %s", what, e);
		return -1;
	}
	if (u->tls && d->transport == SHB_TRANSPORT_STREAM &&
	    !(d->flags & SHB_PROTO_CORE_TLS)) {
		snprintf(err, errlen, "%s: protocol %s cannot run over TLS here",
			 what, d->name);
		return -1;
	}
	return 0;
}

/* Every target's origin: numbered in the order they first appear. */
static int place_targets(struct shb_plan *plan, char *err, size_t errlen)
{
	struct shb_plan_mix *m = &plan->mix;
	struct shb_url first[SHB_TARGETS_MAX];
	int rc = 0;
	/* first[k] is set for every k below norigins, which counts from 0
	 * here, whatever the plan held before. */
	m->norigins = 0;
	for (uint32_t t = 0; t < m->ntargets && rc == 0; t++) {
		struct shb_url u;
		if (target_url(plan, t, &u, err, errlen) < 0) {
			rc = -1;
		} else {
			uint32_t k = 0;
			while (k < m->norigins && !shb_plan_same_origin(&first[k], &u))
				k++;
			m->origin_of[t] = k;
			m->oweight[k] += plan->cfg->targets[t].weight;
			if (k == m->norigins) {
				first[m->norigins++] = u;
				continue;
			}
		}
		shb_url_free(&u);
	}
	for (uint32_t k = 0; k < m->norigins; k++)
		shb_url_free(&first[k]);
	return rc;
}

/* Connections per origin (by weight, at least one each), and the threads
 * every origin can serve: a worker needs a connection of each. */
static int split_conns(struct shb_plan *plan, char *err, size_t errlen)
{
	struct shb_plan_mix *m = &plan->mix;
	uint32_t total = plan->connections, least = UINT32_MAX;
	if (total < m->norigins) {
		snprintf(err, errlen, "-c %u: the targets are on %u origins, and "
			 "each needs a connection of its own: give -c %u or more",
			 total, m->norigins, m->norigins);
		return -1;
	}
	shb_split_weighted(total, m->oweight, m->norigins, m->oconns);
	for (uint32_t k = 0; k < m->norigins; k++)
		if (m->oconns[k] < least)
			least = m->oconns[k];
	if (plan->threads > least)
		plan->threads = least;
	return 0;
}

int shb_plan_mix(struct shb_plan *plan, char *err, size_t errlen)
{
	const struct shb_config *cfg = plan->cfg;
	struct shb_plan_mix *m = &plan->mix;
	uint32_t weight[SHB_TARGETS_MAX];
	if (!cfg->mix)
		return 0;
	plan->mixed = 1;
	m->ntargets = (uint32_t)cfg->target_count;
	for (uint32_t t = 0; t < m->ntargets; t++)
		weight[t] = cfg->targets[t].weight;
	if (place_targets(plan, err, errlen) < 0 ||
	    split_conns(plan, err, errlen) < 0)
		return -1;
	if (cfg->duration_ns)
		return 0;
	/* --shard I/N took a part of -n: the shards before it took the
	 * parts before (shard.h), so this one starts where they end. */
	uint64_t off = 0, all = plan->requests_all;
	for (uint32_t i = 0; i < plan->shard_index; i++)
		off += all / plan->shard_count + (i < all % plan->shard_count);
	shb_swrr_counts(weight, m->ntargets, off, plan->requests, m->count);
	return 0;
}
