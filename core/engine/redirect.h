/* -L: redirects followed by the core (ABI 1.4 issue_req and
 * req_response). All [worker], on the worker's own thread.
 *
 * A response to a request of a chain (every request starts one) whose
 * status is 301, 302, 303, 307 or 308 and that has a Location is kept by
 * req_response. When it ends (req_done), it is counted as a request of its
 * own, with its status and its own latency, and the next hop is resolved
 * (url_ref.h) and queued for a connection of its origin, the same or
 * another one the run has (a --urls origin): issue_req sends it there from
 * the service of such a connection. A 303, and a 301 or 302 after a POST,
 * turn into GET without a body (as curl does); 307 and 308 keep method and
 * body. A chain ends at a response that is not followed; -n counts chains
 * (a hop neither charges it nor ends a request of it), and closed-loop
 * users and the open-loop schedule wait for a chain's end, so a hop is
 * never a new intended start: its latency runs from when it was sent.
 * A chain is one request for --timeout too: it counts from when the
 * chain's first request became due, for a hop in flight and for one
 * waiting in the queue (a timeout error, its chain ended, never sent).
 *
 * A Location that does not resolve, an origin the worker has no connection
 * to, a URL seen twice in one chain (a loop) and a hop past --max-redirs
 * end the chain with an error of kind application on the 3xx response,
 * the chain in the sample. */
#ifndef SHB_CORE_REDIRECT_H
#define SHB_CORE_REDIRECT_H

#include <stdint.h>

#include <shb/proto.h>

struct worker;
struct shb_conn;
struct req_slot;
struct shb_redir;

/* Sets up w->redir for a run with -L (nothing otherwise). 0, or -1 out
 * of memory with w->args->err set. */
int shb_redir_setup(struct worker *w);
void shb_redir_free(struct worker *w);

/* A templated run: slot `cookie` of c was sent with *var (borrowed for
 * the call; NULL: nothing varied), kept in case a redirect makes a chain
 * of it (redirect_var.h). 0, or -1 out of memory. Only with w->redir. */
int shb_redir_keep(struct shb_conn *c, uint64_t cookie,
		   const struct shb_request_var *var);

/* The response `res` (outcome OK) to slot r of c ended. 1: a redirect to
 * follow, counted like any response, whose hop is now queued (the chain
 * goes on: its user is not free and -n is not charged); 0: the chain ends
 * here, counted as usual; -1: it ends in an error of kind application
 * whose sample is why[SHB_SAMPLE_LEN] (the response counts as an error
 * reply). r's chain is released unless 1. */
int shb_redir_on_response(struct shb_conn *c, struct req_slot *r,
			  const struct shb_req_result *res, char *why);

/* Slot r of c is given up without a response (an error, a timeout, its
 * connection gone): its chain, if any, is released. */
void shb_redir_slot_end(struct worker *w, struct req_slot *r);

/* Slot r's hop was not processed (refused, or its connection never
 * reached the server): queued again, first in line, as it was due. */
void shb_redir_requeue(struct worker *w, struct req_slot *r);

/* Hops queued, waiting for a connection of their origin with room: work
 * that idle connection slots are revived for, as for requests not issued
 * yet (-n counts chains, so a hop is not among those). */
uint32_t shb_redir_queued(const struct worker *w);

/* c failed before carrying any request: the first hop queued for its
 * origin, if any, ends in that error (kind, msg), so that a chain whose
 * origin cannot be reached ends like a request that cannot be sent.
 * 1 when there was one. */
int shb_redir_fail_one(struct shb_conn *c, unsigned kind, const char *msg);

/* From c's service: sends the hops queued for c's origin while c has
 * room (one past --timeout ends in a timeout instead). */
void shb_redir_issue(struct shb_conn *c);

/* --timeout for the hops in the queue: when the next one expires
 * (UINT64_MAX for none), and each one past it ends its chain in a
 * timeout error. */
uint64_t shb_redir_due(const struct worker *w);
void shb_redir_expire(struct worker *w);

#endif
