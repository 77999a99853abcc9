/* Requests due but not sent yet (waiting.h). */
#include <stdio.h>
#include <stdlib.h>

#include "engine/worker_int.h"

/* Open loop: requests expired per check at most, so that a long stall at
 * a high rate does not hold the loop (the rest go at the next check). */
#define EXPIRE_BATCH 65536u

int shb_wait_init(struct worker *w)
{
	/* Without --timeout no one reads when a request became due: the
	 * closed loop keeps no queue then, and issuing a request and ending
	 * one cost no queue work (requests.c checks waitq). */
	if (w->open || !w->run->cfg->timeout_ns)
		return 0;
	w->wq_cap = w->nconns * w->users;
	w->waitq = calloc(w->wq_cap ? w->wq_cap : 1, sizeof(*w->waitq));
	if (w->waitq)
		return 0;
	snprintf(w->args->err, sizeof(w->args->err),
		 "out of memory for %u connections", w->nconns);
	return -1;
}

void shb_wait_free(struct worker *w)
{
	free(w->waitq);
	w->waitq = NULL;
}

/* Room for one more user waiting: the queue has a place for every user,
 * and with -n no more wait than there are requests left to send (refused
 * ones waiting to be resent are in the queue too). */
static int room(const struct worker *w)
{
	return w->wq_len < w->wq_cap && w->wq_len < shb_worker_unissued(w);
}

static void push(struct worker *w, uint64_t t, uint32_t conn)
{
	uint32_t i = w->wq_head + w->wq_len;
	if (i >= w->wq_cap)
		i -= w->wq_cap;
	w->waitq[i] = (struct shb_waiter){t, conn};
	w->wq_len++;
}

void shb_wait_start(struct worker *w)
{
	if (!w->waitq)
		return;
	/* Connection by connection, so that with -n below -c x -p every
	 * connection's users are there. */
	for (uint32_t k = 0; k < w->users; k++)
		for (uint32_t i = 0; i < w->nconns && room(w); i++)
			push(w, w->now, i);
}

uint64_t shb_wait_take(struct worker *w)
{
	if (!w->wq_len)
		return w->now;
	uint64_t t = w->waitq[w->wq_head].t;
	if (++w->wq_head == w->wq_cap)
		w->wq_head = 0;
	w->wq_len--;
	return t;
}

void shb_wait_putback(struct worker *w, uint64_t t, uint32_t conn)
{
	if (!w->waitq || w->wq_len == w->wq_cap || w->stopping)
		return;
	w->wq_head = w->wq_head ? w->wq_head - 1 : w->wq_cap - 1;
	w->waitq[w->wq_head] = (struct shb_waiter){t, conn};
	w->wq_len++;
}

void shb_wait_again(struct worker *w, uint32_t conn)
{
	/* A connection of strings has one user: free again once nothing of
	 * its string is in flight (the caller has dropped the slot). */
	if (w->strings && w->conns[conn].nused)
		return;
	if (w->waitq && w->loading && !w->stopping && room(w))
		push(w, w->now, conn);
}

/* A mixed run: the target an expired request is charged to (mix.h),
 * with the origins' blocked flags taken once per expiry pass. */
static int charge_to(struct worker *w, uint32_t oi, uint8_t *blocked,
		     int *known, uint32_t *t)
{
	if (!w->mixw)
		return 0;
	if (!*known)
		shb_mix_blocked(w, blocked);
	*known = 1;
	return shb_mix_pick_waiting(w, oi, blocked, t);
}

static void expire_closed(struct worker *w, uint64_t limit, const char *msg)
{
	uint8_t blocked[SHB_TARGETS_MAX];
	int known = 0;
	while (w->wq_len && w->now - w->waitq[w->wq_head].t > limit &&
	       shb_worker_unissued(w) > 0 && !w->stopping) {
		uint32_t ci = w->waitq[w->wq_head].conn, t = 0;
		if (charge_to(w, w->conns[ci].oi, blocked, &known, &t) < 0)
			return;
		uint64_t due = shb_wait_take(w);
		/* Refused ones wait in the queue too: which user it was does
		 * not matter, only that one fewer waits to be resent. */
		if (w->nretry)
			w->nretry--;
		shb_worker_fail_unsent(w, t, due, msg);
		shb_wait_again(w, ci);
	}
}

static void expire_open(struct worker *w, uint64_t limit, const char *msg)
{
	uint8_t blocked[SHB_TARGETS_MAX];
	int known = 0;
	for (uint32_t n = 0; n < EXPIRE_BATCH && !w->stopping; n++) {
		uint64_t due = w->next_due;
		uint32_t t = 0;
		if (due == UINT64_MAX || w->now <= due || w->now - due <= limit ||
		    shb_worker_unissued(w) <= w->nretry)
			return;
		if (charge_to(w, w->conns[w->cursor].oi, blocked, &known, &t) < 0)
			return;
		shb_worker_fail_unsent(w, t, due, msg);
		shb_worker_sched_next(w);
	}
}

void shb_wait_expire(struct worker *w)
{
	uint64_t limit = w->run->cfg->timeout_ns;
	char msg[160], d[32];

	if (!limit || !w->loading || w->stopping)
		return;
	snprintf(msg, sizeof(msg), "request timed out after %s, never sent: "
		 "no connection or stream had room for it",
		 shb_duration_text(limit, d, sizeof(d)));
	if (w->open)
		expire_open(w, limit, msg);
	else
		expire_closed(w, limit, msg);
}

uint64_t shb_wait_due(const struct worker *w)
{
	uint64_t limit = w->run->cfg->timeout_ns, due;

	if (!limit || !w->loading || w->stopping)
		return UINT64_MAX;
	if (w->open) {
		due = w->next_due;
		if (due == UINT64_MAX || shb_worker_unissued(w) <= w->nretry)
			return UINT64_MAX;
	} else {
		if (!w->wq_len || !shb_worker_unissued(w))
			return UINT64_MAX;
		due = w->waitq[w->wq_head].t;
	}
	/* Timed out once more than the limit has passed (expire_*). */
	return due + limit + 1;
}

/* Open loop, at the end: this worker's requests that were due while
 * measuring, before the end (the -z deadline at the latest), and never
 * started (nor timed out waiting); with -n, no more than the budget had
 * left. */
void shb_wait_count_unsent(struct worker *w)
{
	if (!w->open || !w->measuring || !w->loading)
		return;
	uint32_t nw = w->run->threads, i = w->args->index;
	shb_tstamp end = w->now;
	uint64_t d = w->run->cfg->duration_ns;
	if (d && w->measure_ns + d < end)
		end = w->measure_ns + d;
	if (end <= w->measure_ns)
		return;
	uint64_t due = shb_sched_share(shb_sched_count(&w->sched, end - w->sched_origin),
				       nw, i);
	uint64_t from = shb_sched_share(shb_sched_count(&w->sched,
				w->measure_ns - w->sched_origin), nw, i);
	uint64_t sent = (w->sched_k - i) / nw;
	if (sent > from)
		from = sent;
	uint64_t n = due > from ? due - from : 0;
	if (n > shb_worker_unissued(w))
		n = shb_worker_unissued(w);
	w->stats->unsent = n;
}
