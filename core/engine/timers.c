/* The worker's checks by the clock (timers.h). */
#include <stdio.h>
#include <stdlib.h>

#include "engine/redirect.h"
#include "engine/timers.h"
#include "engine/worker_int.h"

static uint32_t tid(const struct shb_conn *c, unsigned kind)
{
	return c->idx * TK_N + kind;
}

int shb_worker_timers_init(struct worker *w)
{
	if (shb_theap_init(&w->timers, w->nconns * TK_N) == 0)
		return 0;
	snprintf(w->args->err, sizeof(w->args->err),
		 "out of memory for the timers of %u connections", w->nconns);
	return -1;
}

void shb_worker_timers_free(struct worker *w)
{
	shb_theap_free(&w->timers);
}

void shb_conn_timer_set(struct shb_conn *c, unsigned kind, uint64_t at)
{
	shb_theap_set(&c->w->timers, tid(c, kind), at);
}

void shb_conn_timer_del(struct shb_conn *c, unsigned kind)
{
	shb_theap_del(&c->w->timers, tid(c, kind));
}

void shb_conn_timers_clear(struct shb_conn *c)
{
	for (unsigned k = 0; k < TK_N; k++)
		shb_conn_timer_del(c, k);
	c->script_at = 0;
}

void shb_conn_timer_request(struct shb_conn *c, uint64_t t_due)
{
	struct shb_theap *h = &c->w->timers;
	uint64_t limit = c->w->run->cfg->timeout_ns;
	uint32_t id = tid(c, TK_REQ);
	/* Timed out once more than the limit has passed. */
	uint64_t at = t_due + limit + 1;
	if (limit && (!shb_theap_armed(h, id) || at < shb_theap_at(h, id)))
		shb_theap_set(h, id, at);
}

void shb_conn_timer_grant(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (w->vt->capacity(c->p) > 0) {
		c->t_granted = w->now;
		shb_conn_timer_del(c, TK_GRANT);
		return;
	}
	/* Since t_granted it had a request in flight or room for one. An
	 * entry already there is at most early (looked at, moved on). */
	if (!shb_theap_armed(&w->timers, tid(c, TK_GRANT)))
		shb_conn_timer_set(c, TK_GRANT, c->t_granted +
				   w->run->cfg->connect_timeout_ns + 1);
}

static void on_connect_timer(struct shb_conn *c)
{
	struct worker *w = c->w;
	uint64_t limit = w->run->cfg->connect_timeout_ns;
	char msg[120], d[32];

	if (c->st == C_CONNECTING) {
		/* The ring times the connect out (connect_ts); what follows
		 * it still has to end in time: look again. */
		shb_conn_timer_set(c, TK_CONNECT, w->now + w->check_every);
		return;
	}
	if ((c->st != C_HANDSHAKE && c->st != C_PROXY) ||
	    w->now - c->t_connect <= limit)
		return;
	snprintf(msg, sizeof(msg), "%s: timed out after %s",
		 c->st == C_PROXY ? "proxy CONNECT" : "TLS handshake",
		 shb_duration_text(limit, d, sizeof(d)));
	shb_conn_fail(c, SHB_ERRK_TIMEOUT, msg);
}

static void on_proto_timer(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (c->st != C_READY || !w->vt->on_timer)
		return;
	int r = w->vt->on_timer(c->p, shb_conn_now(c));
	if (r < 0) {
		shb_conn_plugin_fail(c, r, "protocol timer failed");
		return;
	}
	/* Its service asks for the next deadline. */
	shb_conn_mark_dirty(c);
}

/* From when it became due: the wait for a connection or a stream counts
 * (waiting.h). The ones not timed out yet set the next deadline. */
static void on_request_timer(struct shb_conn *c)
{
	struct worker *w = c->w;
	uint64_t limit = w->run->cfg->timeout_ns, next = UINT64_MAX;

	for (uint32_t k = 0; k < w->parallel && c->st == C_READY && c->nused; k++) {
		struct req_slot *r = &c->reqs[k];
		if (!r->used)
			continue;
		if (w->now - r->t_due > limit)
			shb_conn_expire_request(c, k);
		else if (r->t_due + limit + 1 < next)
			next = r->t_due + limit + 1;
	}
	if (c->st == C_READY && c->nused && next != UINT64_MAX)
		shb_conn_timer_set(c, TK_REQ, next);
}

static void on_grant_timer(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (c->st != C_READY)
		return;
	shb_conn_check_grant(c);
	if (c->st != C_READY || !c->established || c->nused ||
	    w->vt->capacity(c->p) > 0)
		return; /* its service watches it again if it needs to */
	/* Excused for now (nothing may be sent: set-up, open loop between
	 * requests, -n used up): looked at again a check interval later,
	 * as often as the periodic check did. */
	if (c->t_granted == w->now)
		shb_conn_timer_set(c, TK_GRANT, w->now + w->check_every);
	else
		shb_conn_timer_set(c, TK_GRANT, c->t_granted +
				   w->run->cfg->connect_timeout_ns + 1);
}

static void fire(struct worker *w, uint32_t id)
{
	struct shb_conn *c = &w->conns[id / TK_N];
	switch (id % TK_N) {
	case TK_PROTO:
		on_proto_timer(c);
		break;
	case TK_REQ:
		on_request_timer(c);
		break;
	case TK_GRANT:
		on_grant_timer(c);
		break;
	case TK_CONNECT:
		on_connect_timer(c);
		break;
	case TK_LINGER:
		shb_conn_linger_over(c);
		break;
	case TK_DELAY: /* its service sends the request that waited */
		shb_conn_mark_dirty(c);
		break;
	}
}

void shb_worker_check_timers(struct worker *w, int periodic)
{
	/* Each entry at most once a pass: what a handler arms again is for
	 * a later pass even if it is due already. */
	for (uint32_t n = w->timers.n; n; n--) {
		uint32_t id = shb_theap_pop_due(&w->timers, w->now);
		if (id == SHB_THEAP_NONE)
			break;
		fire(w, id);
	}
	if (periodic || w->now >= shb_wait_due(w))
		shb_wait_expire(w);
	if (periodic || w->now >= shb_redir_due(w))
		shb_redir_expire(w);
}

int shb_worker_timers_due(const struct worker *w)
{
	return shb_theap_next(&w->timers) <= w->now || shb_wait_due(w) <= w->now ||
	       shb_redir_due(w) <= w->now;
}

uint64_t shb_worker_next_timer(const struct worker *w)
{
	uint64_t t = shb_theap_next(&w->timers), q = shb_wait_due(w);
	uint64_t h = shb_redir_due(w); /* always moves when due */
	/* A due wait that could not move (nothing left to charge it to)
	 * is looked at by the periodic check only: no spinning on it. */
	t = q > w->now && q < t ? q : t;
	return h < t ? h : t;
}
