/* Command line of shb-udp-relay. */
#ifndef SHB_RELAY_OPTS_H
#define SHB_RELAY_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "relay_impair.h"

#define SHB_RELAY_HOST_MAX 256

enum shb_relay_dir {
	SHB_RELAY_UP = 0,   /* client -> upstream */
	SHB_RELAY_DOWN = 1, /* upstream -> client */
};

struct shb_relay_opts {
	char listen_host[SHB_RELAY_HOST_MAX]; /* numeric address */
	uint16_t listen_port;                  /* 0 = any free port */
	char upstream_host[SHB_RELAY_HOST_MAX];
	uint16_t upstream_port;
	const char *port_file;  /* NULL = none; points into argv */
	const char *stats_file; /* NULL = none; points into argv */
	uint64_t seed;
	uint32_t reorder_delay_ms;
	struct shb_relay_impair impair[2]; /* indexed by enum shb_relay_dir */
};

/* Splits "HOST:PORT" or "[IPV6]:PORT" into HOST (NUL-terminated, at most
 * HOST_CAP bytes with the NUL) and PORT. Returns 0, or -1 when the text is
 * malformed, the host is empty or too long, or the port is not a decimal
 * number in [0, 65535]. */
int shb_relay_split_hostport(const char *text, char *host, size_t host_cap,
			     uint16_t *port);

/* Parses ARGV (ARGV[0] is the program name) into O, starting from the
 * defaults (listen 127.0.0.1:0, seed 1, no impairment, reorder delay
 * 10 ms). Accepts "--name VALUE" and "--name=VALUE". Returns 0 on success,
 * 1 when --help was given (nothing else is checked), or -1 with one
 * message in ERR (at most ERR_CAP bytes) on the first bad argument or a
 * missing --upstream. O keeps pointers into ARGV. */
int shb_relay_opts_parse(struct shb_relay_opts *o, int argc, char **argv,
			 char *err, size_t err_cap);

/* The usage text, for --help and after an error. */
extern const char shb_relay_usage[];

#endif
