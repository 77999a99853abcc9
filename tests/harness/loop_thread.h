/* Runs an event_base on a thread of its own, for tests whose main thread
 * drives the code under test (a client) while peers answer.
 *
 * Create the base and its peers first (peer ports are known as soon as
 * shb_hpeer_new returns), then start. Until stop returns, the base and
 * everything on it belong to the loop thread: do not touch the peers, not
 * even their stats. Stop wakes the loop through a pipe, so the base needs
 * no libevent locking. */
#ifndef SHB_HARNESS_LOOP_THREAD_H
#define SHB_HARNESS_LOOP_THREAD_H

#include <stddef.h>

struct event_base;
struct shb_hloop;

/* Returns NULL with one line in err on failure. */
struct shb_hloop *shb_hloop_start(struct event_base *base, char *err,
				  size_t errlen);
/* Breaks the loop, joins the thread and frees l. Afterwards the caller
 * owns the base and its peers again. */
void shb_hloop_stop(struct shb_hloop *l);

#endif
