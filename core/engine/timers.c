/* The worker's checks by the clock (timers.h). */
#include <stdio.h>

#include "engine/timers.h"
#include "engine/worker_int.h"

void shb_worker_check_timers(struct worker *w, int periodic)
{
	const struct shb_config *cfg = w->run->cfg;
	char msg[120], d[32];

	for (uint32_t i = 0; i < w->nconns; i++) {
		struct shb_conn *c = &w->conns[i];
		if ((c->st == C_HANDSHAKE || c->st == C_PROXY) &&
		    w->now - c->t_connect > cfg->connect_timeout_ns) {
			snprintf(msg, sizeof(msg), "%s: timed out after %s",
				 c->st == C_PROXY ? "proxy CONNECT" : "TLS handshake",
				 shb_duration_text(cfg->connect_timeout_ns, d, sizeof(d)));
			shb_conn_fail(c, SHB_ERRK_TIMEOUT, msg);
			continue;
		}
		if (c->st != C_READY)
			continue;
		if (c->has_deadline && w->now >= c->deadline && w->vt->on_timer) {
			int r = w->vt->on_timer(c->p, shb_conn_now(c));
			if (r < 0) {
				shb_conn_plugin_fail(c, r, "protocol timer failed");
				continue;
			}
			shb_conn_mark_dirty(c);
		}
		if (periodic && c->st == C_READY)
			shb_conn_check_grant(c);
		if (!cfg->timeout_ns || !c->nused)
			continue;
		/* From when it became due: the wait for a connection or a
		 * stream counts (waiting.h). */
		for (uint32_t k = 0; k < w->parallel && c->st == C_READY; k++)
			if (c->reqs[k].used && w->now - c->reqs[k].t_due > cfg->timeout_ns)
				shb_conn_expire_request(c, k);
	}
	if (periodic)
		shb_wait_expire(w);
}

void shb_worker_fin_sweep(struct worker *w)
{
	shb_tstamp due = UINT64_MAX;
	for (uint32_t i = 0; i < w->nconns && w->nfinwait; i++) {
		struct shb_conn *c = &w->conns[i];
		if (!c->await_fin)
			continue;
		if (w->now >= c->deadline)
			shb_conn_fin_done(c);
		else if (c->deadline < due)
			due = c->deadline;
	}
	w->fin_due = due;
}
