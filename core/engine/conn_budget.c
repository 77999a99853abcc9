/* The policy for connections that fail (conn_budget.h): backoff per slot,
 * the early stop of a run nothing ever got through to, and connections
 * that never take a request. */
#include <stdio.h>

#include "engine/worker_int.h"

static uint64_t next_rand(struct worker *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

/* Every slot of this worker failed GIVE_UP_FAILS times in a row and no
 * connection of the run ever carried a response: retrying longer would
 * only spin. The run stops with one line naming the address and the error. */
static void give_up_if_hopeless(struct worker *w)
{
	char addr[64], others[48] = "", msg[sizeof(w->args->err)];

	if (w->stopping || w->ngiving_up < w->nconns || w->seen_connected)
		return;
	if (shb_worker_count_mode(w) && w->done >= w->budget)
		return; /* -n is used up anyway: its count stays exact */
	if (atomic_load_explicit(&w->run->connected, memory_order_relaxed)) {
		w->seen_connected = 1;
		return;
	}
	const struct shb_run_origin *ro = w->last_fail_ro;
	shb_addr_text(&ro->addrs[w->last_fail_ai], addr, sizeof(addr));
	if (ro->naddrs > 1)
		snprintf(others, sizeof(others), " (nor %u other address%s)",
			 ro->naddrs - 1, ro->naddrs > 2 ? "es" : "");
	snprintf(msg, sizeof(msg), "no connection to %s%s ever succeeded: "
		 "every connection failed %d times in a row, the last with: %s",
		 addr, others, GIVE_UP_FAILS, w->last_fail);
	shb_worker_fatal(w, msg);
}

/* A connection that ended without a response ending on it (connect or
 * TLS failure, accepted and closed at once, only errors answered, a
 * GOAWAY before the first stream, everything refused, no stream ever
 * granted) makes its slot back off before connecting again, so a dead,
 * broken or refusing server costs a bounded number of attempts per
 * second, not a storm, over TCP, TLS and UDP alike. */
void shb_conn_note_outcome(struct shb_conn *c)
{
	struct worker *w = c->w;
	uint8_t move = c->move_addr;

	c->move_addr = 0;
	if (move)
		c->ai = (uint8_t)((c->ai + 1) % c->ro->naddrs);
	if (move == 1) {
		c->retry_at = 0; /* an address not tried yet: at once */
		return;
	}
	if (c->answered) {
		if (c->fails >= GIVE_UP_FAILS)
			w->ngiving_up--;
		c->fails = 0;
		c->retry_at = 0;
		return;
	}
	/* One that ended cleanly (its protocol closed it) said nothing yet:
	 * the early stop's line must still name something. */
	if (!w->last_fail_ro)
		shb_conn_note_failure(c, "the connection ended before any response");
	if (c->fails < 63 && ++c->fails == GIVE_UP_FAILS) {
		w->ngiving_up++;
		give_up_if_hopeless(w);
		/* While nothing of the run ever connected, a slot that gave up
		 * waits the longest backoff, unjittered, before its next
		 * attempt: the other slots get their GIVE_UP_FAILS tries first,
		 * so a dead server costs exactly GIVE_UP_FAILS attempts a slot
		 * before the stop, however late the worker runs. */
		if (!w->seen_connected) {
			c->retry_at = w->now + BACKOFF_MAX_NS;
			return;
		}
	}
	uint64_t d = c->fails > 7 ? BACKOFF_MAX_NS : BACKOFF_BASE_NS << (c->fails - 1);
	if (d > BACKOFF_MAX_NS)
		d = BACKOFF_MAX_NS;
	d = d / 2 + next_rand(w) % (d / 2 + 1);
	c->retry_at = w->now + d;
}

/* A response ended on c: its slot stops backing off, and the run will
 * not stop early. */
void shb_conn_succeeded(struct shb_conn *c)
{
	struct worker *w = c->w;
	c->answered = 1;
	if (!c->established)
		shb_conn_established(c);
	if (!w->seen_connected) {
		w->seen_connected = 1;
		atomic_store_explicit(&w->run->connected, 1, memory_order_relaxed);
	}
}

void shb_conn_check_grant(struct shb_conn *c)
{
	struct worker *w = c->w;
	uint64_t limit = w->run->cfg->connect_timeout_ns;
	char msg[160];

	/* Over UDP, before its handshake is done, the protocol's own
	 * timers bound the wait. */
	if (!c->established || c->nused || !shb_worker_may_issue(w) ||
	    w->vt->capacity(c->p) > 0) {
		c->t_granted = w->now;
		return;
	}
	if (w->now - c->t_granted <= limit)
		return;
	snprintf(msg, sizeof(msg), "no request could be sent for %.3gs: the "
		 "server allowed none (no stream, no capacity)", (double)limit / 1e9);
	shb_conn_fail(c, SHB_ERRK_TIMEOUT, msg);
}
