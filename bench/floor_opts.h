/* bench/http_floor's command line, parsed once before the threads start
 * and read-only after. */
#ifndef FLOOR_OPTS_H
#define FLOOR_OPTS_H

#include <netinet/in.h>

#define MAX_DEPTH 1024		/* requests in flight per connection */

struct floor_opts {
	int h2, conns, depth, duration, threads, batch, linger_us;
	int warmup;		/* --warmup: seconds before the measured window, 0 for none */
	struct sockaddr_in addr;
	char authority[32], path[1024];
};

extern struct floor_opts o;

/* Fills o from argv; bad input prints the usage with one line saying what
 * is wrong and exits 2. */
void floor_parse_args(int argc, char **argv);

#endif
