/* A run's script on the workers (script_run.h): each worker calls its own
 * thread only, so nothing here is shared between workers. */
#include <stdio.h>
#include <string.h>

#include "engine/script_run.h"
#include "engine/timers.h"
#include "engine/worker_int.h"
#include "plan/plan_script.h"

int shb_script_worker_setup(struct worker *w)
{
	struct shb_script_run *s = w->run->script;
	if (!s)
		return 0;
	struct shb_script_worker *sw = &s->w[w->args->index];
	w->script = sw;
	sw->rate_at = 0;
	if (!sw->own_addr)
		return 0;
	/* thread.addr: every connection of this worker goes there. */
	sw->ro = w->run->ro[0];
	sw->ro.addrs = &sw->addr;
	sw->ro.naddrs = 1;
	for (uint32_t i = 0; i < w->nconns; i++)
		w->conns[i].ro = &sw->ro;
	return 0;
}

static void script_stop(struct worker *w)
{
	w->script_stop = 1;
}

int shb_script_hold(struct shb_conn *c)
{
	struct worker *w = c->w;
	struct shb_script_worker *sw = w->script;
	uint64_t ms = 0;

	if (!(sw->hooks & SHB_SCRIPT_HOOK_DELAY) || sw->next < sw->set.count)
		return 0;
	if (c->script_at) {
		if (w->now < c->script_at)
			return 1;
		c->script_at = 0; /* waited: this request goes now */
		return 0;
	}
	int rc = w->run->script->h->vt.delay(sw->thread, &ms, sw->err, sizeof(sw->err));
	if (rc == SHB_SCRIPT_STOP)
		script_stop(w);
	if (rc < 0) {
		shb_worker_count_error(w, SHB_ERRK_SCRIPT, sw->err);
		return 0; /* no delay: the request goes */
	}
	if (ms == 0)
		return 0;
	c->script_at = w->now + ms * 1000000ull;
	shb_conn_timer_set(c, TK_DELAY, c->script_at);
	return 1;
}

/* The next string from request(), parsed; 0, or -1 with sw->err set
 * (SHB_SCRIPT_STOP: -1 with no error and the worker stopping). */
static int next_string(struct worker *w, struct shb_script_worker *sw)
{
	struct shb_vec v = {0};
	sw->next = 0;
	if (!(sw->hooks & SHB_SCRIPT_HOOK_REQUEST))
		return 0; /* the one request, again */
	sw->set.count = 0;
	int rc = w->run->script->h->vt.request(sw->thread, &v, sw->err,
					       sizeof(sw->err));
	if (rc == SHB_SCRIPT_STOP) {
		script_stop(w);
		return -1;
	}
	if (rc < 0)
		return -1;
	return shb_sreq_parse(&sw->set, v.base, v.len, w->run->url->scheme,
			      sw->err, sizeof(sw->err));
}

/* A string's requests go out together on one connection, in one write
 * on a protocol that pipelines (wrk's pipeline.lua): its first request
 * waits for a connection with room for all of them (or for -p, when the
 * string is longer), or with nothing else in flight, so that it never
 * waits for ever (a server may allow fewer streams than -p). The slot of
 * this request is taken already: c->nused counts it. */
static int string_fits(struct shb_conn *c, size_t k)
{
	struct worker *w = c->w;
	uint32_t want = k < w->parallel ? (uint32_t)k : w->parallel;

	return c->nused <= 1 || w->vt->capacity(c->p) >= want;
}

/* The connection the string under way went to, while it lives: a closed
 * one's slot has another generation, and the rest of its string goes to
 * the next connection with nothing in flight. */
static int owner_live(const struct worker *w, const struct shb_script_worker *sw)
{
	const struct shb_conn *o = &w->conns[sw->owner];
	return o->gen == sw->owner_gen && o->st == C_READY;
}

/* -s without -p: a string is the pipeline (plan_script.h). Its first
 * request goes to a connection with nothing else in flight, the rest to
 * the same connection (under -R each when it is due); the others wait,
 * and are woken once the string is out (wake_turned_away). A string
 * over the cap is dropped whole: one error of kind script. 0 to go on,
 * SHB_E_BUSY, or SHB_SCRIPT_FAILED with sw->err set. */
static int string_gate(struct shb_conn *c, struct shb_script_worker *sw)
{
	struct worker *w = c->w;

	if (sw->set.count > SHB_SCRIPT_PIPE_MAX) {
		snprintf(sw->err, sizeof(sw->err), "request() returned %zu "
			 "requests in one string; without -p a string is a "
			 "pipeline of at most %u (give -p)", sw->set.count,
			 SHB_SCRIPT_PIPE_MAX);
		sw->next = sw->set.count;
		return SHB_SCRIPT_FAILED;
	}
	if (sw->next > 0 && owner_live(w, sw)) {
		if (c == &w->conns[sw->owner])
			return 0;
		sw->turned_away = 1;
		return SHB_E_BUSY;
	}
	if (c->nused > 1) {
		sw->turned_away |= sw->next > 0;
		return SHB_E_BUSY;
	}
	sw->owner = c->idx;
	sw->owner_gen = c->gen;
	return 0;
}

/* The string is out: the connections it turned away (idle, with nothing
 * in flight to wake them) are looked at again. Only after a string had to
 * wait (-R, a server's stream limit), so the walk is rare. */
static void wake_turned_away(struct worker *w, struct shb_script_worker *sw)
{
	sw->turned_away = 0;
	for (uint32_t i = 0; i < w->nconns; i++) {
		struct shb_conn *o = &w->conns[i];
		if (o->st == C_READY && !o->nused && !o->dirty)
			shb_conn_mark_dirty(o);
	}
}

int shb_script_issue(struct shb_conn *c, uint64_t cookie)
{
	struct worker *w = c->w;
	struct shb_script_worker *sw = w->script;
	char msg[SHB_SAMPLE_LEN];

	if (w->script_stop)
		return SHB_E_BUSY;
	if (sw->next >= sw->set.count && next_string(w, sw) < 0)
		return w->script_stop ? SHB_E_BUSY : SHB_SCRIPT_FAILED;
	if (w->strings) {
		int g = string_gate(c, sw);
		if (g)
			return g;
	} else if (sw->next == 0 && sw->set.count > 1 &&
		   !string_fits(c, sw->set.count)) {
		return SHB_E_BUSY;
	}
	struct shb_request *rq = &sw->set.reqs[sw->next];
	const char *own = rq->authority;
	if (!own)
		rq->authority = c->ro->origin->authority;
	int rc = w->vt->issue_req(c->p, rq, cookie, shb_conn_now(c));
	rq->authority = own;
	if (rc == SHB_E_BUSY)
		return rc;
	sw->next++;
	if (sw->turned_away && sw->next == sw->set.count)
		wake_turned_away(w, sw);
	if (rc < 0) {
		/* The protocol cannot send what the script made (a header
		 * HTTP/2 forbids, say): the script's error. */
		const char *d = w->vt->error_detail ? w->vt->error_detail(c->p) : NULL;
		snprintf(msg, sizeof(msg), "the protocol refused the script's "
			 "request #%zu: %s", sw->next, d ? d : "invalid request");
		snprintf(sw->err, sizeof(sw->err), "%s", msg);
		return SHB_SCRIPT_FAILED;
	}
	return rc;
}

void shb_script_tick(struct worker *w)
{
	struct shb_script_worker *sw = w->script;
	if (!w->measuring)
		return;
	if (!sw->rate_at) {
		sw->rate_at = w->now;
		sw->rate_done = w->done;
		return;
	}
	if (w->now - sw->rate_at < SHB_SCRIPT_RATE_NS)
		return;
	/* wrk samples a thread's rate only over intervals with requests. */
	uint64_t n = w->done - sw->rate_done;
	if (n)
		shb_histo_record(&sw->rates, n * 1000000000ull / (w->now - sw->rate_at));
	sw->rate_at = w->now;
	sw->rate_done = w->done;
}

void shb_script_response(struct shb_conn *c, uint64_t cookie,
			 const struct shb_response *resp)
{
	struct worker *w = c->w;
	struct shb_script_worker *sw = w->script;
	if (!sw || !(sw->hooks & SHB_SCRIPT_HOOK_RESPONSE) || w->stopping)
		return;
	int rc = w->run->script->h->vt.response(sw->thread, resp, sw->err,
						sizeof(sw->err));
	if (rc == SHB_SCRIPT_STOP)
		script_stop(w);
	if (rc < 0) {
		sw->failed = 1;
		sw->failed_cookie = cookie;
	}
}

int shb_script_response_failed(struct worker *w, uint64_t cookie,
			       const char **msg)
{
	struct shb_script_worker *sw = w->script;
	if (!sw || !sw->failed || sw->failed_cookie != cookie)
		return 0;
	sw->failed = 0;
	*msg = sw->err;
	return 1;
}
