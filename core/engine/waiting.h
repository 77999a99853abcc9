/* Requests that are due but not sent yet, because no connection or
 * stream had room (connections still connecting or backing off, a
 * server that grants fewer streams than -p, or none): they are requests
 * all the same, and --timeout counts from when they became due. Closed
 * loop: each of the worker's -c x -p users has its next request due from
 * when its previous one ended (or the load started), and the users
 * waiting are kept oldest first; open loop: the schedule says when each
 * was due. All [worker]. */
#ifndef SHB_CORE_WAITING_H
#define SHB_CORE_WAITING_H

#include <stdint.h>

struct worker;

/* One closed-loop user waiting: due since `t`, its last connection (a
 * mixed run charges a timeout to a blocked origin, that connection's
 * first: shb_mix_pick_waiting). */
struct shb_waiter {
	uint64_t t;
	uint32_t conn;
};

/* The queue, one place per user (after the worker's set-up sized its
 * connections); none in the open loop or without --timeout, where no
 * one reads when a request became due. 0, or -1 out of memory with
 * args->err set. */
int shb_wait_init(struct worker *w);
void shb_wait_free(struct worker *w);
/* The load starts: every user's first request is due now (no more than
 * -n has left). */
void shb_wait_start(struct worker *w);
/* A new request goes out: when it became due (the oldest user's time). */
uint64_t shb_wait_take(struct worker *w);
/* It did not go out after all: the user waits again, first in line. */
void shb_wait_putback(struct worker *w, uint64_t t, uint32_t conn);
/* A request of connection `conn` ended: its user's next is due now,
 * while there is one to send (a connection of script strings: once it
 * has nothing in flight). */
void shb_wait_again(struct worker *w, uint32_t conn);
/* --timeout: requests that waited longer than it are timeout errors,
 * charged to the budget, never sent. */
void shb_wait_expire(struct worker *w);
/* When shb_wait_expire will next have one to expire (the oldest waiting,
 * or the open loop's next due, plus --timeout), UINT64_MAX for none. It
 * may have passed without one to charge (a mixed run none of whose
 * targets has a request left). */
uint64_t shb_wait_due(const struct worker *w);
/* Open loop, at the end: the requests that were due while measuring and
 * never started (stats->unsent). */
void shb_wait_count_unsent(struct worker *w);

#endif
