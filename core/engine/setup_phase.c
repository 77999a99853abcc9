/* A worker's set-up and the start of its load (setup_phase.h).
 *
 * Set-up opens each slot once, in order, in waves of at most CONNECTS_MAX
 * connecting at once (datagram: HANDSHAKES_MAX connecting or in their
 * handshake): the rest start as those complete. It ends when every slot
 * was tried and none is still connecting, and at the latest one connect
 * timeout after the last connection that opened (or after its start):
 * a server that stops accepting costs one connect timeout, not one per
 * wave (-c 30000 against a server that takes 20,000 used to set up for a
 * minute). What is not open then is opened during the load, and a slot
 * that never opens in the whole run is counted by why (census.h). */
#include <stdio.h>

#include "engine/census.h"
#include "engine/setup_phase.h"
#include "engine/waiting.h"
#include "engine/worker_int.h"

uint64_t shb_setup_wait_ns(const struct shb_config *cfg)
{
	uint64_t t = cfg->connect_timeout_ns;
	if (cfg->timeout_ns && cfg->timeout_ns < t)
		t = cfg->timeout_ns;
	return t;
}

/* If a whole wave failed (none connected, none still trying), set-up
 * stops opening and ends: the slots left wait for the load, as failed
 * ones do. */
void shb_setup_connect(struct worker *w)
{
	const struct shb_config *cfg = w->run->cfg;
	if (w->nup_ever > w->setup_seen) { /* progress: another timeout */
		w->setup_seen = w->nup_ever;
		w->setup_until = w->now + shb_setup_wait_ns(cfg);
	}
	if (w->now >= w->setup_until)
		return;
	while (w->setup_next < w->nconns && !w->stopping &&
	       (w->dgram ? w->nconnecting + w->nhandshaking < HANDSHAKES_MAX
			 : w->nconnecting < CONNECTS_MAX)) {
		if (w->setup_next && !w->nconnecting && !w->nactive && !w->nhandshaking) {
			w->setup_next = w->nconns;
			return;
		}
		struct shb_conn *c = &w->conns[w->setup_next++];
		if (c->st != C_IDLE)
			continue;
		if (shb_worker_unissued(w) <= w->nconnecting) {
			w->setup_next = w->nconns;
			return;
		}
		shb_conn_start(c);
		if (atomic_load_explicit(&w->run->abort_run, memory_order_relaxed))
			return; /* out of descriptors: no storm of failures */
	}
}

void shb_setup_begin_measuring(struct worker *w)
{
	w->args->warmup_requests += w->stats->ok + w->stats->errors;
	shb_stats_reset(w->stats);
	shb_mix_begin_measuring(w);
	w->measuring = 1;
	if (w->args->ival) {
		shb_ival_rebase(w->args->ival, w->stats);
		shb_ival_enter(w->args->ival);
	}
	w->budget = w->args->budget;
	w->issued = 0;
	w->done = 0;
}

/* -z counts from the load's start, after --warmup: every worker stops at
 * the same time, whenever it saw the load start. The timeout is absolute
 * (CLOCK_MONOTONIC, shb_now_ns's clock): a relative one would start at
 * its submit, after this pass has put the first requests on every
 * connection, which with -c 100000 took seconds (a -z 10s load of 14.6 s). */
static void arm_deadline(struct worker *w)
{
	uint64_t d = w->run->cfg->duration_ns;
	if (!d)
		return;
	uint64_t end = w->measure_ns + d;
	w->deadline_ts.tv_sec = (long long)(end / 1000000000u);
	w->deadline_ts.tv_nsec = (long long)(end % 1000000000u);
	struct io_uring_sqe *sqe = shb_worker_sqe(w);
	io_uring_prep_timeout(sqe, &w->deadline_ts, 0, IORING_TIMEOUT_ABS);
	sqe->user_data = UD_DEADLINE;
}

/* The pass that notices the deadline may come after it (a long batch of
 * completions); the load ends at the deadline all the same, and the
 * goodbyes that follow are no part of it. */
shb_tstamp shb_setup_load_end(const struct worker *w)
{
	uint64_t d = w->run->cfg->duration_ns;
	if (d && w->loading && w->measure_ns != UINT64_MAX &&
	    w->measure_ns + d < w->now)
		return w->measure_ns + d;
	return w->now;
}

/* Set-up is over for this worker when none of its connections is still
 * connecting (TCP, TLS) and every ready one can take a request (a
 * protocol's handshake, QUIC's, is done) or is closing; at setup_until
 * (see above) it is over anyway. */
static int setup_done(struct worker *w)
{
	if (w->now >= w->setup_until)
		return 1;
	if (w->nconnecting || w->setup_next < w->nconns)
		return 0;
	for (uint32_t i = 0; i < w->nconns; i++) {
		struct shb_conn *c = &w->conns[i];
		if (c->st != C_READY || w->vt->capacity(c->p) > 0)
			continue;
		if (!(w->vt->state(c->p) & (SHB_CS_DRAINING | SHB_CS_CLOSED)))
			return 0;
	}
	return 1;
}

/* The last worker to say so starts the load. */
void shb_setup_arrive(struct worker *w, shb_tstamp now)
{
	if (w->arrived)
		return;
	w->arrived = 1;
	if (atomic_fetch_sub(&w->run->setup_left, 1) == 1)
		atomic_store_explicit(&w->run->load_ns,
				      now > w->run->start_at_ns ? now :
				      w->run->start_at_ns, memory_order_release);
}

/* Once the load has started: requests may go out on every ready
 * connection, the warm-up and the -z clock run from its start. */
void shb_setup_step(struct worker *w)
{
	if (!w->arrived && setup_done(w))
		shb_setup_arrive(w, w->now);
	uint64_t t = atomic_load_explicit(&w->run->load_ns, memory_order_acquire);
	if (!t)
		return;
	/* Another worker's clock started the load: ours was read before it,
	 * maybe. Read it again, or the first requests would start before the
	 * load did, be taken for warm-up ones, never count against -n, and a
	 * count run would never end. */
	if (w->now < t)
		w->now = shb_now_ns();
	/* --start-at: set up and waiting; next_wait polls every
	 * SETUP_POLL_NS until then. */
	if (w->now < t)
		return;
	uint64_t none = 0;
	atomic_compare_exchange_strong(&w->run->loaded_ns, &none, w->now);
	w->loading = 1;
	shb_wait_start(w);
	w->measure_ns = t + w->run->cfg->warmup_ns;
	if (w->open) {
		/* The schedule starts with the load, warm-up included. */
		uint64_t first = shb_sched_time(&w->sched, w->sched_k);
		w->sched_origin = t;
		w->next_due = first == UINT64_MAX ? UINT64_MAX : t + first;
	}
	if (!w->measuring && w->now >= w->measure_ns)
		shb_setup_begin_measuring(w);
	arm_deadline(w);
	for (uint32_t i = 0; i < w->nconns; i++)
		if (w->conns[i].st == C_READY) {
			/* Nothing could be sent on it until now: the connect
			 * timeout for a grant (shb_conn_check_grant) starts with the
			 * load, however long set-up took. */
			w->conns[i].t_granted = w->now;
			shb_conn_mark_dirty(&w->conns[i]);
		}
}

/* ---- the census ---------------------------------------------------------- */

void shb_census_fail(struct shb_conn *c, const char *msg)
{
	struct worker *w = c->w;
	if (c->ever_up)
		return;
	enum shb_never_kind k = shb_census_kind(msg);
	if (!c->never_why)
		w->nfail_down++;
	c->never_why = (uint8_t)(k + 1);
	char *s = w->args->census.sample[k];
	if (!s[0] && msg)
		snprintf(s, SHB_SAMPLE_LEN, "%s", msg);
}

void shb_census_up(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (c->ever_up)
		return;
	c->ever_up = 1;
	w->nup_ever++;
	if (c->never_why)
		w->nfail_down--;
}

void shb_census_take(struct worker *w)
{
	struct shb_census *cs = &w->args->census;
	cs->asked = w->nconns;
	for (uint32_t i = 0; i < w->nconns; i++) {
		const struct shb_conn *c = &w->conns[i];
		enum shb_never_kind k;
		if (c->ever_up)
			continue;
		if (c->never_why)
			k = (enum shb_never_kind)(c->never_why - 1);
		else if (c->st == C_CONNECTING || c->st == C_PROXY ||
			 c->st == C_HANDSHAKE || c->st == C_READY)
			k = SHB_NEVER_CONNECTING;
		else if (w->args->budget)
			continue; /* -n: its requests were done without it */
		else
			k = SHB_NEVER_UNTRIED;
		cs->never[k]++;
	}
}
