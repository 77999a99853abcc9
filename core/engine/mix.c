/* A mixed run: origins, prepared requests and budgets per target, and the
 * worker's picks (mix.h). */
#include "engine/mix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/proto_pick.h"
#include "engine/worker_int.h"

/* ---- [main] the run's origins ---------------------------------------------- */

void shb_run_views(struct shb_run *run)
{
	run->ro0 = (struct shb_run_origin){
		.origin = &run->origin,
		.addrs = run->addrs,
		.naddrs = run->naddrs,
		.use_tls = run->use_tls,
		.sni_hint = run->sni_hint,
		.tls = &run->tls,
	};
	if (!run->mix) {
		run->ro = &run->ro0;
		run->norigins = 1;
		return;
	}
	struct shb_mix *m = run->mix;
	m->ro[0] = run->ro0;
	for (uint32_t k = 1; k < m->norigins; k++) {
		struct shb_mix_origin *o = &m->o[k];
		m->ro[k] = (struct shb_run_origin){
			.origin = &o->origin,
			.addrs = o->addrs,
			.naddrs = o->naddrs,
			.use_tls = o->use_tls,
			.sni_hint = o->sni_hint,
			.tls = &o->tls,
		};
	}
	/* Origin 0's handshake request is its first target's. */
	run->origin.prepared = m->prepared[m->order[0]];
	run->ro = m->ro;
	run->norigins = m->norigins;
}

static int fail(char *err, size_t errlen, const char *what, const char *msg)
{
	snprintf(err, errlen, "%s: %s", what, msg);
	return -1;
}

/* The TLS of origin k >= 1, set up as the run's own (run_setup.c). */
static int origin_tls(struct shb_run *run, struct shb_mix_origin *o,
		      char *err, size_t errlen)
{
	const struct shb_config *cfg = run->cfg;
	int verify = cfg->cacert ? 2 : cfg->verify ? 1 : 0;
	if (shb_tls_ctx_init(&o->tls, verify, cfg->cacert,
			     cfg->sni ? cfg->sni : o->url.host,
			     run->proto->desc->alpn, err, errlen) < 0)
		return -1;
	o->tls_live = 1;
	o->tls.hello = &run->hello;
	o->tls.resume = cfg->tls_resume;
	if (run->tls_priority &&
	    shb_tls_ctx_set_priority(&o->tls, run->tls_priority, err, errlen) < 0)
		return -1;
	if (cfg->cert && shb_tls_ctx_set_client_cert(&o->tls, cfg->cert,
			cfg->key ? cfg->key : cfg->cert, err, errlen) < 0)
		return -1;
	return 0;
}

/* Origin k >= 1: addresses after --connect-to, --resolve and -4/-6, TLS
 * and the identity host->conn_origin gives. */
static int origin_setup(struct shb_run *run, uint32_t k, const char *what,
			char *err, size_t errlen)
{
	const struct shb_config *cfg = run->cfg;
	struct shb_mix_origin *o = &run->mix->o[k];
	char e[384];
	struct shb_route_spec rs = {
		.host = o->url.host,
		.port = o->url.port,
		.family = cfg->family,
		.connect_to = cfg->connect_to,
		.connect_to_count = cfg->connect_to_count,
		.resolve = cfg->resolve,
		.resolve_count = cfg->resolve_count,
	};
	int n = shb_route_addrs(&rs, o->addrs, e, sizeof(e));
	if (n < 0)
		return fail(err, errlen, what, e);
	o->naddrs = (uint32_t)n;
	o->use_tls = o->url.tls && run->proto->desc->transport == SHB_TRANSPORT_STREAM;
	o->sni_hint = o->url.tls && o->url.host_is_ip && !cfg->sni;
	if (o->use_tls && origin_tls(run, o, e, sizeof(e)) < 0)
		return fail(err, errlen, what, e);
	o->authority = strdup(cfg->host_header ? cfg->host_header : o->url.authority);
	if (!o->authority)
		return fail(err, errlen, what, "out of memory");
	o->origin = (struct shb_origin){
		.struct_size = sizeof(o->origin),
		.index = k,
		.port = o->url.port,
		.flags = o->url.tls ? SHB_SCHEME_TLS : 0,
		.scheme = o->url.scheme,
		.host = o->url.host,
		.authority = o->authority,
		.sni = cfg->sni ? cfg->sni : o->url.host_is_ip ? NULL : o->url.host,
	};
	return 0;
}

/* Target t's request: its method, path and body, its origin's authority,
 * the run's headers. */
static int prepare_target(struct shb_run *run, uint32_t t,
			  const struct shb_url *u, const char *authority,
			  const char *what, char *err, size_t errlen)
{
	const struct shb_config *cfg = run->cfg;
	const struct shb_target_arg *ta = &cfg->targets[t];
	const struct shb_proto_handle *p = run->proto;
	struct shb_kv *kv = calloc(run->header_count + 1, sizeof(*kv));
	char perr[256] = "";
	if (!kv)
		return fail(err, errlen, what, "out of memory");
	for (size_t i = 0; i < run->header_count; i++) {
		kv[i].key = run->headers[i].name;
		kv[i].value = run->headers[i].value;
	}
	int own_body = ta->body_file != NULL;
	struct shb_request req = {
		.struct_size = sizeof(req),
		.flags = (own_body || cfg->has_body) ? SHB_REQUEST_HAS_BODY : 0,
		.method = ta->method ? ta->method :
			  shb_run_method(&run->prun->req, cfg),
		.scheme = u->scheme,
		.authority = authority,
		.path = u->path,
		.headers = kv,
		.header_count = run->header_count,
		.body = own_body ? ta->body : cfg->body,
		.body_len = own_body ? ta->body_len : cfg->body_len,
	};
	int r = p->vt.prepare_request(run->module, &req, &run->mix->prepared[t],
				      perr, sizeof(perr));
	free(kv);
	if (r < 0) {
		run->mix->prepared[t] = NULL;
		snprintf(err, errlen, "%s: protocol %s: %s", what, p->desc->name,
			 perr[0] ? perr : "cannot encode the request");
		return -1;
	}
	return 0;
}

/* Parses target t's URL against the protocol's schemes (the plan checked
 * it) and places it in its origin (the plan's). */
static int place_target(struct shb_run *run, uint32_t t, struct shb_url *u,
			char *err, size_t errlen)
{
	const struct shb_config *cfg = run->cfg;
	const struct shb_proto_desc *d = run->proto->desc;
	struct shb_mix *m = run->mix;
	char what[320], e[384];
	shb_plan_target_name(cfg, t, what, sizeof(what));
	memset(u, 0, sizeof(*u));
	if (shb_url_parse_any(cfg->targets[t].url_text, u, e, sizeof(e)) < 0 ||
	    shb_url_set_scheme(u, cfg->targets[t].url_text,
			       shb_proto_scheme_defs(d), d->name, e, sizeof(e)) < 0) {
		shb_url_free(u);
		return fail(err, errlen, what, e);
	}
	uint32_t k = run->plan->mix.origin_of[t];
	m->origin_of[t] = k;
	m->o[k].weight = run->plan->mix.oweight[k];
	m->o[k].conns = run->plan->mix.oconns[k];
	if (k < m->norigins)
		return 0;
	/* A new origin keeps this URL; origin 0 is the run's own. */
	m->o[k].url = *u;
	memset(u, 0, sizeof(*u));
	m->norigins++;
	return 0;
}

/* Targets grouped by origin, in their order within each, and -n's count
 * per target (the plan's). */
static void order_targets(struct shb_run *run)
{
	struct shb_mix *m = run->mix;
	uint32_t n = 0;
	for (uint32_t k = 0; k < m->norigins; k++) {
		m->o[k].first = n;
		for (uint32_t t = 0; t < m->ntargets; t++)
			if (m->origin_of[t] == k) {
				m->wsorted[n] = m->weight[t];
				m->order[n++] = t;
			}
		m->o[k].count = n - m->o[k].first;
	}
	for (uint32_t t = 0; t < m->ntargets; t++)
		m->count[t] = run->plan->mix.count[t];
}

/* What serves one origin only: the route of a proxy or a Unix socket is
 * the run's, and a QUIC module takes its server name from the run. */
static int second_origin_ok(const struct shb_run *run, const char *what,
			    char *err, size_t errlen)
{
	const char *why = run->proto->desc->transport != SHB_TRANSPORT_STREAM ?
		"a datagram protocol (one server name per run)" :
		run->connect_req || run->proxy_absolute ? "a proxy" :
		run->cfg->unix_socket ? "--unix-socket" : NULL;
	if (!why)
		return 0;
	snprintf(err, errlen, "%s: a second origin (scheme, host and port), "
		 "which %s does not serve: give targets of one origin", what, why);
	return -1;
}

int shb_mix_setup(struct shb_run *run, char *err, size_t errlen)
{
	const struct shb_config *cfg = run->cfg;
	struct shb_mix *m = calloc(1, sizeof(*m));
	struct shb_url u;
	char what[320];
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	run->mix = m;
	m->ntargets = (uint32_t)cfg->target_count;
	for (uint32_t t = 0; t < m->ntargets; t++) {
		m->weight[t] = cfg->targets[t].weight;
		if (place_target(run, t, &u, err, errlen) < 0)
			return -1;
		shb_plan_target_name(cfg, t, what, sizeof(what));
		uint32_t k = m->origin_of[t];
		const char *authority = k ? NULL : run->origin.authority;
		/* A new origin (its URL moved into m->o[k]) is set up once. */
		if (k && !u.host && (second_origin_ok(run, what, err, errlen) < 0 ||
				     origin_setup(run, k, what, err, errlen) < 0))
			return -1;
		if (k)
			authority = m->o[k].authority;
		/* The target that made its origin lent the origin its URL. */
		const struct shb_url *tu = u.host ? &u : &m->o[k].url;
		int r = prepare_target(run, t, tu, authority, what, err, errlen);
		/* A handshake protocol builds on its origin's first request. */
		if (r == 0 && k && !m->o[k].origin.prepared)
			m->o[k].origin.prepared = m->prepared[t];
		struct shb_target_info *ti = &m->info[t];
		ti->label = cfg->targets[t].label ? cfg->targets[t].label :
			    cfg->targets[t].url_text;
		ti->url = cfg->targets[t].url_text;
		ti->method = cfg->targets[t].method ? cfg->targets[t].method :
			     shb_run_method(&run->prun->req, cfg);
		ti->weight = m->weight[t];
		ti->origin = k;
		shb_url_free(&u);
		if (r < 0)
			return -1;
	}
	order_targets(run);
	return 0;
}

void shb_mix_free(struct shb_run *run)
{
	struct shb_mix *m = run->mix;
	if (!m)
		return;
	for (uint32_t t = 0; t < m->ntargets; t++)
		if (m->prepared[t] && run->proto->vt.release_request)
			run->proto->vt.release_request(run->module, m->prepared[t]);
	for (uint32_t k = 0; k < m->norigins; k++) {
		if (m->o[k].tls_live)
			shb_tls_ctx_free(&m->o[k].tls);
		free(m->o[k].authority);
		shb_url_free(&m->o[k].url);
	}
	free(m->rb);
	free(m);
	run->mix = NULL;
}

void shb_mix_run_info(struct shb_run *run, struct shb_run_info *info)
{
	if (!run->mix)
		return;
	info->targets = run->mix->info;
	info->target_count = run->mix->ntargets;
}

/* ---- [main] each worker's share ------------------------------------------------ */

/* The worker's gate over the origins' weights, and room to hold each of
 * its connections (origin k's block starts at base[k], as
 * shb_mix_assign_conns lays them out). */
static int gate_setup(const struct shb_mix *m, struct shb_mix_worker *x,
		      uint32_t conns)
{
	uint64_t w[SHB_TARGETS_MAX];
	uint32_t at = 0;
	for (uint32_t k = 0; k < m->norigins; k++) {
		w[k] = m->o[k].weight;
		x->base[k] = at;
		at += x->conns[k];
	}
	shb_share_gate_init(&x->gate, m->norigins, w);
	x->nconns = conns;
	x->held = calloc(conns ? conns : 1, sizeof(*x->held));
	x->is_held = calloc(conns ? conns : 1, 1);
	return x->held && x->is_held ? 0 : -1;
}

int shb_mix_split(struct shb_run *run, struct shb_worker_args *wa, uint32_t n)
{
	struct shb_mix *m = run->mix;

	for (uint32_t i = 0; i < n; i++) {
		const struct shb_plan_worker *pw = &run->plan->workers[i];
		struct shb_mix_worker *x = calloc(1, sizeof(*x));
		if (!x)
			return -1;
		wa[i].mixw = x;
		x->nstats = m->ntargets;
		x->stats = calloc(m->ntargets, sizeof(*x->stats));
		if (!x->stats) {
			x->nstats = 0; /* nothing for shb_mix_split_free */
			return -1;
		}
		for (uint32_t t = 0; t < m->ntargets; t++)
			if (shb_stats_init(&x->stats[t]) < 0) {
				x->nstats = t;
				return -1;
			}
		/* The plan's shares, budgets by order[] slot. */
		for (uint32_t k = 0; k < m->norigins; k++)
			x->conns[k] = pw->oconns[k];
		for (uint32_t j = 0; j < m->ntargets; j++)
			x->budget[j] = pw->tbudget[m->order[j]];
		if (gate_setup(m, x, pw->conns) < 0)
			return -1;
	}
	return 0;
}

void shb_mix_split_free(struct shb_worker_args *wa, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct shb_mix_worker *x = wa[i].mixw;
		if (!x)
			continue;
		for (uint32_t t = 0; t < x->nstats; t++)
			shb_stats_destroy(&x->stats[t]);
		free(x->stats);
		free(x->held);
		free(x->is_held);
		free(x);
		wa[i].mixw = NULL;
	}
}

int shb_mix_results(struct shb_run *run, struct shb_worker_args *wa,
		    uint32_t n, const struct shb_run_info *info,
		    struct shb_results *total)
{
	struct shb_mix *m = run->mix;
	if (!m)
		return 0;
	free(m->rb);
	m->rb = calloc(m->ntargets, sizeof(*m->rb));
	if (!m->rb)
		return -1;
	for (uint32_t t = 0; t < m->ntargets; t++) {
		struct shb_stats *s = &wa[0].mixw->stats[t];
		for (uint32_t i = 1; i < n; i++)
			shb_stats_merge(s, &wa[i].mixw->stats[t]);
		s->open_loop = wa[0].stats.open_loop;
		shb_results_build(&m->rb[t], s, info, total->elapsed_ns,
				  (int)total->interrupted);
		m->rb[t].r.target_index = t;
		m->rb[t].r.setup_ns = total->setup_ns;
		/* Bytes and connections belong to connections, which serve
		 * every target of their origin: not measured per target. */
		m->rb[t].r.measured = 0;
		m->rp[t] = &m->rb[t].r;
	}
	total->targets = m->rp;
	total->target_count = m->ntargets;
	return 0;
}

/* ---- [worker] ---------------------------------------------------------------------- */

void shb_mix_assign_conns(struct worker *w)
{
	const struct shb_run *run = w->run;
	struct shb_mix_worker *x = w->mixw;
	uint32_t k = 0, left = x ? x->conns[0] : w->nconns;
	for (uint32_t i = 0; i < w->nconns; i++) {
		while (x && left == 0 && k + 1 < run->norigins)
			left = x->conns[++k];
		w->conns[i].oi = k;
		w->conns[i].ro = &run->ro[k];
		left--;
	}
	if (x)
		memcpy(x->left, x->budget, sizeof(x->left));
}

void shb_mix_begin_measuring(struct worker *w)
{
	struct shb_mix_worker *x = w->mixw;
	if (!x)
		return;
	memcpy(x->left, x->budget, sizeof(x->left));
	memset(x->cur, 0, sizeof(x->cur));
	/* The measured load starts level: what the warm-up sent is not in
	 * the report's shares. */
	shb_share_gate_reset(&x->gate);
	for (uint32_t t = 0; t < x->nstats; t++)
		shb_stats_reset(&x->stats[t]);
}

/* The next target of origin oi, as shb_mix_pick. */
static int pick_in(struct worker *w, uint32_t oi, uint32_t *t)
{
	const struct shb_mix *m = w->run->mix;
	struct shb_mix_worker *x = w->mixw;
	const struct shb_mix_origin *o = &m->o[oi];
	/* Bounded while -n counts (after any warm-up); free-running with -z
	 * and during the warm-up. */
	struct shb_swrr s = {
		.n = o->count,
		.weight = &m->wsorted[o->first],
		.cur = &x->cur[o->first],
		.left = shb_worker_count_mode(w) ? &x->left[o->first] : NULL,
	};
	int j = shb_swrr_next(&s);
	if (j < 0)
		return -1;
	*t = m->order[o->first + (uint32_t)j];
	shb_share_gate_take(&x->gate, oi);
	return 0;
}

int shb_mix_pick(struct worker *w, const struct shb_conn *c, uint32_t *t)
{
	return pick_in(w, c->oi, t);
}

void shb_mix_blocked(struct worker *w, uint8_t *blocked)
{
	const struct shb_mix_worker *x = w->mixw;
	for (uint32_t k = 0; k < w->run->mix->norigins; k++) {
		blocked[k] = 1;
		for (uint32_t i = x->base[k]; i < x->base[k] + x->conns[k] &&
		     i < w->nconns && blocked[k]; i++) {
			struct shb_conn *c = &w->conns[i];
			if (c->st == C_READY && w->vt->capacity(c->p) > 0)
				blocked[k] = 0;
		}
	}
}

int shb_mix_pick_waiting(struct worker *w, uint32_t oi, const uint8_t *blocked,
			 uint32_t *t)
{
	uint32_t n = w->run->mix->norigins;
	/* The queue's users are interchangeable (any connection takes the
	 * oldest), so the entry's connection only says where to look
	 * first: the request that waited is one of an origin that could not
	 * take it (no connection up, or none with room), and one whose -n is
	 * not used up (an origin that answers uses its share up while the
	 * others' requests wait). */
	for (uint32_t pass = 0; pass < 2; pass++)
		for (uint32_t k = 0; k < n; k++) {
			uint32_t o = (oi + k) % n;
			if ((pass || blocked[o]) && pick_in(w, o, t) == 0)
				return 0;
		}
	return -1;
}

void shb_mix_giveback(struct worker *w, uint32_t t)
{
	const struct shb_mix *m = w->run->mix;
	struct shb_mix_worker *x = w->mixw;
	if (!x)
		return;
	shb_share_gate_giveback(&x->gate, m->origin_of[t]);
	if (!shb_worker_count_mode(w))
		return;
	const struct shb_mix_origin *o = &m->o[m->origin_of[t]];
	for (uint32_t j = o->first; j < o->first + o->count; j++)
		if (m->order[j] == t)
			x->left[j]++;
}

/* With -n the counts per target are exact already, and a gate could hold
 * an origin whose share of this worker's budget is rounded up behind one
 * that has used its own up: the gate works with -z only. */
static int gated(const struct worker *w)
{
	return w->mixw && w->run->mix->norigins > 1 && !shb_worker_count_mode(w);
}

int shb_mix_hold(struct worker *w, const struct shb_conn *c)
{
	struct shb_mix_worker *x = w->mixw;
	if (!gated(w) || shb_share_gate_may(&x->gate, c->oi))
		return 0;
	uint32_t k = c->oi, i = c->idx;
	/* Its block's stack has room for each of its connections once. */
	if (i < x->nconns && !x->is_held[i] && i >= x->base[k] &&
	    x->nheld[k] < x->conns[k]) {
		x->held[x->base[k] + x->nheld[k]++] = i;
		x->is_held[i] = 1;
	}
	return 1;
}

uint32_t shb_mix_wake(struct worker *w)
{
	struct shb_mix_worker *x = w->mixw;
	uint32_t woken = 0;
	if (!x)
		return 0;
	for (uint32_t k = 0; k < w->run->mix->norigins; k++) {
		if (!x->nheld[k] || (gated(w) && !shb_share_gate_may(&x->gate, k)))
			continue;
		while (x->nheld[k]) {
			uint32_t i = x->held[x->base[k] + --x->nheld[k]];
			struct shb_conn *c = &w->conns[i];
			x->is_held[i] = 0;
			/* One not ready is woken by its own events. */
			if (c->st == C_READY && !c->dirty) {
				shb_conn_mark_dirty(c);
				woken++;
			}
		}
	}
	return woken;
}
