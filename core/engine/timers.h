/* The worker's checks by the clock: connect and handshake timeouts, the
 * protocol's timers, --timeout, connections that take no request, and
 * the wait for a server's FIN. Each is a deadline in the worker's timer
 * heap (timer_heap.h), one entry per connection and kind, moved in place
 * when it changes: a pass of the loop touches only what is due, however
 * many connections there are. All [worker]. */
#ifndef SHB_CORE_TIMERS_H
#define SHB_CORE_TIMERS_H

#include <stdint.h>

struct worker;
struct shb_conn;

/* A connection's kinds of deadline (its ids in the heap are
 * idx * TK_N + kind). */
enum shb_timer_kind {
	TK_PROTO,   /* the protocol's next_deadline: on_timer */
	TK_REQ,     /* --timeout: its oldest request (or earlier: moved
		     * on when it comes) */
	TK_GRANT,   /* established, nothing in flight, no room: the server
		     * grants no request (shb_conn_check_grant) */
	TK_CONNECT, /* proxy CONNECT and TLS handshake: the connect timeout */
	TK_LINGER,  /* closing, waiting for the server's FIN (FIN_WAIT_NS),
		     * then for the send in flight (SEND_WAIT_NS) */
	TK_DELAY,   /* -s: the script's delay() is over, or its request
		     * failed and the next is due (script_run.h) */
	TK_N
};

/* The heap, sized for the worker's connections. 0, or -1 out of memory
 * with args->err set. */
int shb_worker_timers_init(struct worker *w);
void shb_worker_timers_free(struct worker *w);
void shb_conn_timer_set(struct shb_conn *c, unsigned kind, uint64_t at);
void shb_conn_timer_del(struct shb_conn *c, unsigned kind);
/* The slot is given back: none of its deadlines stays. */
void shb_conn_timers_clear(struct shb_conn *c);
/* A request became outstanding, due since t_due: --timeout's deadline
 * moves earlier if it is. */
void shb_conn_timer_request(struct shb_conn *c, uint64_t t_due);
/* After a service pass: an established connection with nothing in flight
 * is watched while it has no room either (TK_GRANT). */
void shb_conn_timer_grant(struct shb_conn *c);
/* Handles every deadline due by w->now. `periodic`: the check that runs
 * every check interval also looks at what is cheap to be late for:
 * requests still waiting to be sent (waiting.h) and the receive clock. */
void shb_worker_check_timers(struct worker *w, int periodic);
/* Some deadline has come (the pass calls shb_worker_check_timers). */
int shb_worker_timers_due(const struct worker *w);
/* When the next deadline of the heap or of the wait queue comes (for the
 * ring's wait), UINT64_MAX for none. */
uint64_t shb_worker_next_timer(const struct worker *w);

#endif
