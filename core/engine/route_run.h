/* [main] Where a run's connections go when that is not the URL's host:
 * a Unix socket (--unix-socket) or a forward proxy (--proxy and the
 * environment, proxy.h). */
#ifndef SHB_CORE_ROUTE_RUN_H
#define SHB_CORE_ROUTE_RUN_H

#include <stddef.h>

struct shb_run;

/* Called before the run's addresses are resolved, once the protocol is
 * picked (run->proto). Returns 1 when it filled run->addrs (a socket
 * path, or the proxy's addresses, with run->connect_req or
 * run->proxy_absolute set for a proxy), 0 for a direct run, -1 with one
 * line in err (bad input: exit 2). */
int shb_run_route(struct shb_run *run, char *err, size_t errlen);

/* Frees what shb_run_route allocated. */
void shb_run_route_free(struct shb_run *run);

/* [main] After shb_run_route, before the request is prepared: sets
 * run->headers, the headers every request of this run carries: the
 * config's -H, and for requests in absolute form to a proxy with
 * credentials a Proxy-Authorization too (curl does the same), unless -H
 * gives one; a tunnel sends them in its CONNECT only, never to the
 * origin. The config stays as parsed: the next target of a comparison may
 * not go through the proxy. shb_run_route_unheaders frees the list. 0, or
 * -1 out of memory. */
int shb_run_route_headers(struct shb_run *run);
void shb_run_route_unheaders(struct shb_run *run);

#endif
