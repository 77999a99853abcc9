/* Requests: issuing (templated ones too), completing and failing them
 * exactly once, the policy for refused requests, and --timeout. */
#include <stdio.h>
#include <stdlib.h>

#include "engine/redirect.h"
#include "engine/script_run.h"
#include "engine/timers.h"
#include "engine/worker_int.h"

void shb_worker_finished_one(struct worker *w)
{
	w->done++;
	if (shb_worker_count_mode(w) && w->done >= w->budget && !w->stopping)
		w->args->end_ns = w->now;
}

void shb_worker_count_error(struct worker *w, unsigned kind, const char *msg)
{
	shb_stats_error(w->stats, kind, msg);
	shb_worker_debugf(w, "error: %s (%ld)", msg ? msg : "", (long)kind);
}

/* A mixed run (mix.h): the error in its target's statistics too. */
static void count_target_error(struct worker *w, uint32_t t, unsigned kind,
			       const char *msg)
{
	struct shb_stats *ts = shb_mix_stats(w->mixw, t);
	if (ts)
		shb_stats_error(ts, kind, msg);
}

/* Fails every request still outstanding on c (the plugin did not report
 * them). A connection that fails before carrying any request (refused
 * ones given back do not count) charges one unit of the budget instead, so that a run against a server that never
 * works still ends; one whose requests were all reported already (e.g. the
 * plugin said CONN_LOST before returning its error) costs nothing more. */
void shb_conn_fail_outstanding(struct shb_conn *c, unsigned kind, const char *msg)
{
	struct worker *w = c->w;
	if (w->stopping)
		return;
	if (c->nused == 0) {
		uint32_t t = 0;
		if (c->issued_here)
			return;
		/* -L: a hop waiting for this origin ends in the error first
		 * (its chain is a request of -n already). */
		if (w->redir && shb_redir_fail_one(c, kind, msg))
			return;
		/* A mixed run charges the next target of c's origin. */
		if (w->mixw && shb_mix_pick(w, c, &t) < 0)
			return;
		if (!shb_worker_count_mode(w) || w->issued < w->budget) {
			w->issued++;
			shb_worker_count_error(w, kind, msg);
			count_target_error(w, t, kind, msg);
			shb_worker_finished_one(w);
		}
		return;
	}
	for (uint32_t i = 0; i < w->parallel && c->nused; i++) {
		struct req_slot *r = &c->reqs[i];
		if (!r->used)
			continue;
		shb_conn_req_drop(c, i);
		shb_redir_slot_end(w, r); /* the chain ends in this error */
		if (shb_worker_warmup_req(w, r->t_start)) {
			w->args->warmup_requests++;
		} else {
			shb_worker_count_error(w, kind, msg);
			count_target_error(w, r->target, kind, msg);
			shb_worker_finished_one(w);
		}
		shb_wait_again(w, c->idx);
	}
}

/* Open loop: the request due at `due` went out at w->now; how late it
 * was counts while measuring (as the request itself does), and this
 * worker's next request becomes due. */
static void sched_advance(struct worker *w, shb_tstamp due)
{
	uint64_t lag = w->now > due ? w->now - due : 0;
	if (w->measuring) {
		w->stats->late += lag > SHB_SCHED_LATE_NS;
		if (lag > w->stats->lag_max)
			w->stats->lag_max = lag;
	}
	shb_worker_sched_next(w);
}

void shb_worker_sched_next(struct worker *w)
{
	w->sched_k += w->run->threads;
	uint64_t t = shb_sched_time(&w->sched, w->sched_k);
	w->next_due = t == UINT64_MAX ? UINT64_MAX : w->sched_origin + t;
}

void shb_worker_fail_unsent(struct worker *w, uint32_t t, shb_tstamp due,
			    const char *msg)
{
	w->issued++;
	if (shb_worker_warmup_req(w, due)) {
		w->args->warmup_requests++;
		return;
	}
	shb_worker_count_error(w, SHB_ERRK_TIMEOUT, msg);
	count_target_error(w, t, SHB_ERRK_TIMEOUT, msg);
	shb_worker_finished_one(w);
}

/* Templated runs: the scratch every request of this worker expands into,
 * sized once for the largest expansion, and the PRNG seeded from the
 * system's secure source. */
int shb_worker_tmpl_setup(struct worker *w)
{
	struct shb_worker_args *a = w->args;
	size_t scratch = 0, nhv = 0;
	uint8_t seed[32];

	w->tmpls = w->run->tmpls;
	if (!w->tmpls)
		return 0;
	for (uint32_t t = 0; t < w->run->ntmpls; t++) {
		const struct shb_tmpl *tm = w->tmpls[t];
		if (tm && shb_tmpl_scratch_size(tm) > scratch)
			scratch = shb_tmpl_scratch_size(tm);
		if (tm && shb_tmpl_var_headers(tm) > nhv)
			nhv = shb_tmpl_var_headers(tm);
	}
	w->conn_base = a->conn_base;
	w->tscratch = malloc(scratch + 1);
	w->thv = calloc(nhv + 1, sizeof(*w->thv));
	if (!w->tscratch || !w->thv) {
		snprintf(a->err, sizeof(a->err), "out of memory for request templates");
		return -1;
	}
	if (w->run->host->random_secure(seed, sizeof(seed)) != SHB_OK) {
		snprintf(a->err, sizeof(a->err), "no random bytes for request templates");
		return -1;
	}
	shb_tmpl_rng_seed(&w->trng, seed);
	return 0;
}

/* A templated run: target t's expansion for this request, borrowed by
 * issue_var for the call (a target without placeholders is issued as it
 * is). The number is taken here, so it follows the issue order. */
static int issue_templated(struct shb_conn *c, const void *prep, uint32_t t,
			   uint64_t cookie)
{
	struct worker *w = c->w;
	const struct shb_tmpl *tm = w->tmpls[t];
	struct shb_request_var var;

	if (!tm) {
		if (w->redir) /* nothing of it varied */
			(void)shb_redir_keep(c, cookie, NULL);
		return w->vt->issue(c->p, prep, cookie, shb_conn_now(c));
	}
	struct shb_tmpl_ctx ctx = {
		.seq = atomic_fetch_add_explicit(&w->run->seq, 1, memory_order_relaxed),
		.worker = w->args->index,
		.conn = w->conn_base + c->idx,
		.rng = &w->trng,
	};
	shb_tmpl_expand(tm, &ctx, w->tscratch, w->thv, &var);
	/* -L: a hop resends what this request was sent with. */
	if (w->redir && shb_redir_keep(c, cookie, &var) < 0) {
		shb_worker_fatal(w, "out of memory for -L's redirect chains");
		return SHB_E_NOMEM;
	}
	return w->vt->issue_var(c->p, prep, &var, cookie, shb_conn_now(c));
}

/* -s: the script failed to make request i of c (script_run.h). It counts
 * as one request of the run, an error of kind script: charged to -n, due
 * again at once, and in the open loop its time slot is used up. */
static void script_failed(struct shb_conn *c, uint32_t i, int resend,
			  shb_tstamp intended)
{
	struct worker *w = c->w;
	shb_conn_req_drop(c, i);
	c->issued_here--;
	if (shb_worker_warmup_req(w, w->now))
		w->args->warmup_requests++;
	else {
		shb_worker_count_error(w, SHB_ERRK_SCRIPT, w->script->err);
		shb_worker_finished_one(w);
	}
	shb_wait_again(w, c->idx);
	if (w->open && !resend)
		sched_advance(w, intended);
	/* The next try comes with the next pass (its service may not mark
	 * itself again): a script that fails every time costs errors at the
	 * pace of the loop, and -n or -z still ends the run. */
	shb_conn_timer_set(c, TK_DELAY, w->now);
}

int shb_conn_issue(struct shb_conn *c)
{
	struct worker *w = c->w;
	uint32_t i;
	/* -s without -p: one string at a time (script_run.h), asked first:
	 * the connection has room for 64 and usually carries one. */
	if (w->strings && shb_script_string_wait(w->script, c->nused))
		return -1;
	/* Slots below free_from are in use: O(1) in the steady state,
	 * where a response frees a slot and the next request takes it. */
	for (i = c->free_from; i < w->parallel; i++)
		if (!c->reqs[i].used)
			break;
	if (i == w->parallel)
		return -1;
	/* -s: the script's delay() before its next request. */
	if (w->script && shb_script_hold(c))
		return -1;
	/* -z over several origins: c's origin waits while it is ahead. */
	if (w->mixw && shb_mix_hold(w, c))
		return -1;
	struct req_slot *r = &c->reqs[i];
	/* A mixed run: the next target of c's origin, with its request. */
	const void *prep = w->run->prepared;
	uint32_t t = 0;
	if (w->mixw) {
		if (shb_mix_pick(w, c, &t) < 0)
			return -1;
		prep = w->run->mix->prepared[t];
	}
	r->target = (uint8_t)t;
	r->gen++;
	r->chain = NULL; /* a new request starts no chain until redirected */
	uint64_t cookie = shb_conn_cookie(c, i);
	int resend = w->nretry > 0;
	w->nretry -= (uint64_t)resend;
	r->t_start = w->now;
	/* Open loop: a new request runs from when it was due; a resent
	 * one lost that time with its first connection and runs from now. */
	r->t_intended = w->open && !resend ? w->next_due : w->now;
	/* Closed loop: a request was due since its user's previous one
	 * ended (or the load started), a resent one since it first was; the
	 * rest of a script's string since its first (its user's one turn). */
	int took = 0;
	if (w->open)
		r->t_due = resend ? w->now : r->t_intended;
	else if (w->strings && shb_script_midstring(w->script))
		r->t_due = w->script->due;
	else {
		r->t_due = w->waitq ? shb_wait_take(w) : w->now;
		took = 1;
	}
	shb_conn_req_add(c, i);
	c->issued_here++;
	w->issued++;
	/* One predictable branch: plain runs call issue() as before. */
	int rc = w->script ? shb_script_issue(c, cookie) :
		 w->tmpls ? issue_templated(c, prep, t, cookie) :
		 w->vt->issue(c->p, prep, cookie, shb_conn_now(c));
	if (rc == SHB_SCRIPT_FAILED) {
		script_failed(c, i, resend, r->t_intended);
		return -1;
	}
	if (rc < 0) {
		shb_mix_giveback(w, t);
		shb_conn_req_drop(c, i);
		c->issued_here--;
		w->issued--;
		w->nretry += (uint64_t)resend;
		if (took)
			shb_wait_putback(w, r->t_due, c->idx);
		return -1;
	}
	/* w->strings implies a script (plan.h); said so for the analyzer,
	 * which cannot follow it across the worker's set-up. */
	if (w->script && w->strings)
		w->script->due = r->t_due;
	if (w->run->cfg->timeout_ns) /* --timeout counts from t_due */
		shb_conn_timer_request(c, r->t_due);
	if (w->open && !resend)
		sched_advance(w, r->t_intended);
	return 0;
}

static void requeue_refused(struct worker *w)
{
	w->nretry++;
	w->issued--;
	w->stats->retried++;
}

/* The connection never reached its server and the next address will be
 * tried: what it carried goes back to be sent there, counted nowhere. */
void shb_conn_requeue_outstanding(struct shb_conn *c)
{
	struct worker *w = c->w;
	for (uint32_t i = 0; i < w->parallel && c->nused; i++) {
		if (!c->reqs[i].used)
			continue;
		shb_conn_req_drop(c, i);
		if (c->reqs[i].chain) { /* a hop: queued again (redirect.h) */
			c->issued_here--;
			shb_redir_requeue(w, &c->reqs[i]);
			continue;
		}
		shb_mix_giveback(w, c->reqs[i].target);
		c->issued_here--;
		w->nretry++;
		w->issued--;
		shb_wait_putback(w, c->reqs[i].t_due, c->idx);
	}
}

static unsigned outcome_kind(uint32_t outcome)
{
	switch (outcome) {
	case SHB_REQ_CONN_LOST: return SHB_ERRK_READ;
	case SHB_REQ_TIMEOUT: return SHB_ERRK_TIMEOUT;
	default: return SHB_ERRK_PROTOCOL;
	}
}

/* A request the plugin reported as failed: an error with its bytes and,
 * for a reset or malformed response, its code. */
static void count_failed(struct worker *w, const struct req_slot *r,
			 const struct shb_req_result *res, unsigned kind,
			 const char *msg)
{
	shb_stats_failed(w->stats, res, kind, msg);
	if (w->mixw)
		shb_stats_failed(shb_mix_stats(w->mixw, r->target), res, kind, msg);
	shb_worker_debugf(w, "error: %s (%ld)", msg, (long)kind);
}

/* --success (success.h): a response with an application outcome is judged
 * by it (shb_stats_response_at), any other by its status. */
static int status_success(const struct worker *w, const struct shb_req_result *res)
{
	if (SHB_HAS(res, struct shb_req_result, app_code) &&
	    res->app_space != SHB_APPSPACE_NONE)
		return 1;
	return shb_success_ok(&w->run->prun->req.success, res->status);
}

/* --success with outcome names (success.h): a reply with an application
 * outcome is a success when its outcome is named, whatever app_ok says.
 * Returns res, or *copy judged so (a copy of what res has, detail
 * included, app_ok set; msg holds the detail of a reply turned into a
 * failure). */
static const struct shb_req_result *judge_named(const struct worker *w,
						const struct shb_req_result *res,
						struct shb_req_result *copy,
						char *msg, size_t msglen)
{
	const struct shb_success *s = &w->run->prun->req.success;
	if (!s->outcome_count || !SHB_HAS(res, struct shb_req_result, app_code) ||
	    res->app_space == SHB_APPSPACE_NONE)
		return res;
	size_t n = res->struct_size < sizeof(*copy) ? res->struct_size : sizeof(*copy);
	memset(copy, 0, sizeof(*copy));
	memcpy(copy, res, n);
	copy->struct_size = (uint32_t)n;
	copy->app_ok = (uint32_t)shb_success_named(s, res->app_space, res->app_code);
	if (!copy->app_ok && res->app_ok == 1) {
		char name[72];
		shb_success_outcome_text(w->run->prun->req.outcome_spaces, res->app_space,
					 res->app_code, name, sizeof(name));
		/* a sample, cut to fit */
		if (snprintf(msg, msglen, "outcome %s is not a success "
			     "(--success %.64s)", name, s->text) < 0)
			msg[0] = '\0';
		copy->detail = msg;
	}
	return copy;
}

static void count_unsuccessful(struct worker *w, const struct req_slot *r,
			       const struct shb_req_result *res, uint64_t latency_ns)
{
	char msg[SHB_SAMPLE_LEN];
	const struct shb_success *ok = &w->run->prun->req.success;
	snprintf(msg, sizeof(msg), "status %u is not a success (--success %s%s)",
		 res->status, shb_success_text(ok),
		 ok->given ? "" : ", the default; --success any takes every status");
	shb_stats_unsuccessful(w->stats, res, msg, latency_ns);
	shb_ival_error_reply(w->args->ival, latency_ns);
	if (w->mixw)
		shb_stats_unsuccessful(shb_mix_stats(w->mixw, r->target), res, msg,
				       latency_ns);
	shb_worker_debugf(w, "error: %s (%ld)", msg, (long)res->status);
}

/* -L: a redirect that cannot be followed (redirect.h): an error reply
 * of kind application whose sample says why, its status counted. */
static void count_failed_reply(struct worker *w, const struct req_slot *r,
			       const struct shb_req_result *res, const char *why,
			       uint64_t latency_ns)
{
	shb_stats_unsuccessful(w->stats, res, why, latency_ns);
	shb_ival_error_reply(w->args->ival, latency_ns);
	if (w->mixw)
		shb_stats_unsuccessful(shb_mix_stats(w->mixw, r->target), res, why,
				       latency_ns);
	shb_worker_debugf(w, "error: %s (%ld)", why, (long)res->status);
}

/* Not processed by the server (above a GOAWAY, REFUSED_STREAM): resent,
 * wherever there is room, while refusals in a row stay under the cap.
 * Beyond it each refusal is an error that charges the budget, so a server
 * that refuses everything ends a -n run with errors instead of looping. */
static void on_refused(struct shb_conn *c, struct req_slot *r,
		       const struct shb_req_result *res)
{
	struct worker *w = c->w;
	if (!c->answered)
		shb_conn_note_failure(c, "every request refused by the server "
				      "(GOAWAY or REFUSED_STREAM)");
	if (w->refuse_streak < w->refuse_cap) {
		w->refuse_streak++;
		requeue_refused(w);
		c->issued_here--; /* given back: it charged nothing */
		shb_mix_giveback(w, r->target);
		/* Due since it was (a connection of strings: its one user,
		 * once nothing of its string is in flight). */
		if (!w->strings || !c->nused)
			shb_wait_putback(w, r->t_due, c->idx);
		return;
	}
	count_failed(w, r, res, SHB_ERRK_PROTOCOL,
		     "request refused by the server (too many refusals in a "
		     "row without a response; not resent)");
	shb_worker_finished_one(w);
	shb_wait_again(w, c->idx);
}

/* A response (outcome OK) to slot r of c. With -L a redirect followed
 * is counted like any response, but its chain goes on (redirect.h): its
 * user is not free yet and -n not charged; one that cannot be followed
 * is an error reply. */
static void on_response(struct shb_conn *c, struct req_slot *r,
			const struct shb_req_result *res)
{
	struct worker *w = c->w;
	/* Timed by the core (ts_done is not read): at the kernel's stamp of
	 * the receive that ended it where there is one (rx_clock.h), else at
	 * w->now, the time every [conn] call carries. An application error
	 * (app_ok 0) is still an answer. */
	shb_tstamp done = w->rx_at ? w->rx_at : w->now;
	if (done < r->t_start)
		done = r->t_start;
	shb_ival_status(w->args->ival, res->status);
	/* What the batch may linger for follows the latency. */
	w->lat_ns = shb_batch_lat_update(w->lat_ns, done - r->t_start);
	uint64_t lat = done > r->t_intended ? done - r->t_intended : 0;
	struct shb_req_result judged;
	char why[SHB_SAMPLE_LEN];
	res = judge_named(w, res, &judged, why, sizeof(why));
	int hop = r->chain ? shb_redir_on_response(c, r, res, why) : 0;
	if (hop < 0) {
		count_failed_reply(w, r, res, why, lat);
	} else if (!status_success(w, res)) {
		count_unsuccessful(w, r, res, lat);
	} else {
		if (w->mixw)
			shb_stats_response_at(shb_mix_stats(w->mixw, r->target),
					      res, r->t_intended, r->t_start, done);
		if (!shb_stats_response_at(w->stats, res, r->t_intended,
					   r->t_start, done)) {
			shb_ival_error_reply(w->args->ival, lat);
			shb_worker_debugf(w, "error: application outcome %s%ld",
					  "", (long)res->app_code);
		} else {
			shb_ival_latency(w->args->ival, lat);
		}
	}
	if (hop <= 0) {
		shb_worker_finished_one(w);
		if (w->waitq) /* none without --timeout (waiting.c) */
			shb_wait_again(w, c->idx);
	}
	w->refuse_streak = 0;
	shb_conn_succeeded(c);
}

/* A hop the server refused (redirect.h): sent again, first in line, while
 * refusals in a row stay under the cap; beyond it the chain ends in an
 * error. */
static void on_hop_refused(struct shb_conn *c, struct req_slot *r,
			   const struct shb_req_result *res)
{
	struct worker *w = c->w;
	if (w->refuse_streak < w->refuse_cap) {
		w->refuse_streak++;
		w->stats->retried++;
		c->issued_here--;
		shb_redir_requeue(w, r);
		return;
	}
	shb_redir_slot_end(w, r);
	count_failed(w, r, res, SHB_ERRK_PROTOCOL,
		     "redirect hop refused by the server (too many refusals in a "
		     "row without a response; not resent)");
	shb_worker_finished_one(w);
	shb_wait_again(w, c->idx);
}

void shb_worker_req_done(struct shb_conn *c, uint64_t cookie,
			 const struct shb_req_result *res)
{
	struct worker *w = c->w;
	struct req_slot *r = shb_conn_slot_of(c, cookie);
	if (!r)
		return; /* unknown or already completed: ignore, never count twice */
	/* The cookie's low bits are the slot's index (shb_conn_cookie). */
	shb_conn_req_drop(c, (uint32_t)(cookie & 0xffff));
	shb_conn_mark_dirty(c);
	if (w->stopping || shb_worker_past_deadline(w)) {
		shb_redir_slot_end(w, r);
		return; /* in flight at the end: not counted */
	}
	if (shb_worker_warmup_req(w, r->t_start)) {
		/* Sent during --warmup: left out, and a refusal not resent;
		 * redirects are not followed then. */
		shb_redir_slot_end(w, r);
		w->args->warmup_requests += res->outcome != SHB_REQ_REFUSED;
		if (res->outcome == SHB_REQ_OK)
			shb_conn_succeeded(c);
		shb_wait_again(w, c->idx);
		return;
	}
	const char *script_msg;
	if (res->outcome == SHB_REQ_OK && w->script &&
	    shb_script_response_failed(w, cookie, &script_msg)) {
		count_failed(w, r, res, SHB_ERRK_SCRIPT, script_msg);
		shb_worker_finished_one(w);
		shb_wait_again(w, c->idx);
		shb_conn_succeeded(c);
		return;
	}
	if (res->outcome == SHB_REQ_OK) {
		on_response(c, r, res);
		return;
	}
	if (res->outcome == SHB_REQ_REFUSED) {
		if (r->chain)
			on_hop_refused(c, r, res);
		else
			on_refused(c, r, res);
		return;
	}
	shb_redir_slot_end(w, r); /* the chain ends in this error */
	char msg[SHB_SAMPLE_LEN];
	const char *d = SHB_HAS(res, struct shb_req_result, detail) ? res->detail : NULL;
	if (!d) {
		snprintf(msg, sizeof(msg), "request failed (outcome %u, code %llu)",
			 res->outcome, (unsigned long long)res->err_code);
		d = msg;
	}
	/* An error is no sign the server works: for the line that stops a
	 * run nothing got through to. */
	if (!c->answered)
		shb_conn_note_failure(c, d);
	count_failed(w, r, res, outcome_kind(res->outcome), d);
	shb_worker_finished_one(w);
	shb_wait_again(w, c->idx);
}

/* The kind a connection-level error code is counted under in the
 * error-code table: the event itself is not a request error. */
static unsigned conn_error_kind(uint32_t space)
{
	switch (space) {
	case SHB_ERRSPACE_TLS_ALERT: return SHB_ERRK_TLS;
	case SHB_ERRSPACE_ERRNO: return SHB_ERRK_READ;
	default: return SHB_ERRK_PROTOCOL;
	}
}

void shb_worker_conn_event(struct shb_conn *c, const struct shb_conn_event *ev)
{
	struct worker *w = c->w;
	if (ev->kind == SHB_CEV_HANDSHAKE_DONE)
		shb_conn_handshake_done(c);
	if (ev->kind == SHB_CEV_HANDSHAKE_DONE && !c->established)
		shb_conn_established(c);
	if (ev->kind == SHB_CEV_CONN_ERROR && !w->stopping)
		shb_stats_code(w->stats, conn_error_kind(ev->err_space),
			       ev->err_space, ev->err_code);
	if (ev->kind == SHB_CEV_GOAWAY)
		shb_worker_debugf(c->w, "peer GOAWAY, last accepted %s%ld", "", (long)ev->last_accepted);
	shb_conn_mark_dirty(c);
}

/* --timeout: the request is an error now, and only it. The plugin cancels
 * it (RST_STREAM, RESET_STREAM + STOP_SENDING; HTTP/1.1 closes, since a
 * response cannot be abandoned mid-stream); the slot is freed first, so
 * whatever the plugin might still report for the cookie is ignored. A
 * plugin without cancel loses its connection, and the other requests on
 * it with it. */
void shb_conn_expire_request(struct shb_conn *c, uint32_t k)
{
	struct worker *w = c->w;
	char msg[120], d[32];
	snprintf(msg, sizeof(msg), "request timed out after %s",
		 shb_duration_text(w->run->cfg->timeout_ns, d, sizeof(d)));
	if (!w->vt->cancel) {
		shb_conn_fail(c, SHB_ERRK_TIMEOUT, msg);
		return;
	}
	uint64_t cookie = shb_conn_cookie(c, k);
	int warmup = shb_worker_warmup_req(w, c->reqs[k].t_start);
	shb_conn_req_drop(c, k);
	shb_redir_slot_end(w, &c->reqs[k]);
	c->answered = 1;
	if (warmup) {
		w->args->warmup_requests++;
	} else {
		shb_worker_count_error(w, SHB_ERRK_TIMEOUT, msg);
		count_target_error(w, c->reqs[k].target, SHB_ERRK_TIMEOUT, msg);
		shb_worker_finished_one(w);
	}
	shb_wait_again(w, c->idx);
	w->vt->cancel(c->p, cookie, shb_conn_now(c));
	shb_conn_mark_dirty(c);
}
