/* A worker's set-up and the start of its load: the first connections
 * opened in waves before any request, the bound on how long that takes,
 * the census of slots that never opened (census.h), and the -z deadline.
 * Everything runs on the worker's own thread. */
#ifndef SHB_CORE_SETUP_PHASE_H
#define SHB_CORE_SETUP_PHASE_H

#include <stdint.h>
#include <shb/types.h>

struct shb_config;

struct worker;
struct shb_conn;

/* How long a worker stopped before the load started waits for its
 * sockets to close: there are no requests to finish and no goodbye to
 * say, and Ctrl-C during set-up must leave at once. */
#define SETUP_DRAIN_NS 100000000ull

/* [any] How long set-up waits for the next connection to open: the
 * connect timeout, or --timeout when that is shorter. A request that
 * waits longer than --timeout for a connection is a timeout error
 * (waiting.h), so set-up holding the load for longer than that, for a
 * slot that may never open, would only delay its timeout (and every
 * other request); a slot still connecting then opens during the load. */
uint64_t shb_setup_wait_ns(const struct shb_config *cfg);
/* [worker] Opens the next slots of the set-up, CONNECTS_MAX (datagram:
 * HANDSHAKES_MAX) at a time. */
void shb_setup_connect(struct worker *w);
/* [worker] Reports the worker set up when it is, and starts its load
 * once every worker is (run->load_ns). */
void shb_setup_step(struct worker *w);
/* [worker] This worker is done setting up, or never will be. */
void shb_setup_arrive(struct worker *w, shb_tstamp now);
/* [worker] --warmup is over (or there is none): counting starts. */
void shb_setup_begin_measuring(struct worker *w);
/* [worker] When the load ended, for its time: now, or the -z deadline
 * once it has passed. */
shb_tstamp shb_setup_load_end(const struct worker *w);

/* [worker] A connection of c's slot failed before it ever opened, with
 * msg (conn.c shb_conn_note_failure). */
void shb_census_fail(struct shb_conn *c, const char *msg);
/* [worker] c opened (conn.c shb_conn_established). */
void shb_census_up(struct shb_conn *c);
/* [worker] At the stop: the slots that never opened, by kind, into
 * w->args->census; in a count run (-n), untried slots were not needed. */
void shb_census_take(struct worker *w);

#endif
