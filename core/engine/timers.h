/* The worker's checks by the clock: connect and handshake timeouts, the
 * protocol's timers, --timeout, connections that take no request, and
 * the wait for a server's FIN. All [worker]. */
#ifndef SHB_CORE_TIMERS_H
#define SHB_CORE_TIMERS_H

struct worker;

/* Every connection's timers. `periodic`: the check that runs every
 * check interval (else a pass for the protocols' deadlines only), which
 * also looks at what is cheap to be late for and costly to look at on
 * every pass: connections that take no request, and requests still
 * waiting to be sent. */
void shb_worker_check_timers(struct worker *w, int periodic);
/* Connections whose wait for the server's FIN ran out send theirs. */
void shb_worker_fin_sweep(struct worker *w);

#endif
