/* Choosing the run's protocol and settling what depends on its descriptor
 * (ABI 1.2): the URL's scheme (scheme_defs), the --proto-opt keys
 * (option_defs) and the datagram limits (max_dgram, max_train). Every
 * call is [main], before any traffic. */
#ifndef SHB_CORE_PROTO_PICK_H
#define SHB_CORE_PROTO_PICK_H

#include <stddef.h>
#include <stdint.h>

#include <shb/proto.h>

#include "cli/config.h"
#include "loader/loader.h"

/* A descriptor's max_dgram of 0 means this (QUIC without path MTU
 * discovery); the loader refuses more than SHB_DGRAM_LIMIT (the largest
 * UDP payload, over IPv6). */
#define SHB_DGRAM_DEFAULT 1200u
#define SHB_DGRAM_LIMIT 65527u
/* Datagrams per send train: max_train 0 means the kernel's UDP_SEGMENT
 * limit, and no train is longer than that. */
#define SHB_TRAIN_DEFAULT 64u
/* Bytes per train: the kernel refuses a UDP send of more than 65535 bytes
 * of IPv4 packet, which leaves 65507 for the payload (GSO included). */
#define SHB_TRAIN_BYTES_MAX 65507u
/* The descriptor's scheme_defs, or NULL when it has none (or predates
 * 1.2): then it serves http and https. */
const struct shb_scheme *shb_proto_scheme_defs(const struct shb_proto_desc *d);

/* The largest datagram a DGRAM protocol writes, and how many of them one
 * send train carries (1 without GSO). */
void shb_proto_dgram_limits(const struct shb_proto_desc *d, int gso,
			    uint32_t *max_dgram, uint32_t *train);

/* Settles `url` (parsed from url_text, a target of cfg) for protocol d, a
 * descriptor the loader accepted (its scheme_defs and option_defs are well
 * formed and end): the scheme (accepted exactly as d declares it: TLS
 * flag, default port, authority) and cfg's --proto-opt keys. Returns 0, or
 * -1 with one line in err. */
int shb_proto_settle(const struct shb_config *cfg, struct shb_url *url,
		     const char *url_text, const struct shb_proto_desc *d,
		     char *err, size_t errlen);

/* Loads the protocol of a run of `url` into *out and settles the URL for
 * it: --proto when given; without it, h1 for http and https, and for any
 * other scheme the first protocol in the search path (directories in
 * order, files by name, each file's first protocol) that declares the
 * scheme. Returns 0, or -1 with one line in err. */
int shb_proto_pick(struct shb_loader *l, const struct shb_config *cfg,
		   struct shb_url *url, const char *url_text,
		   struct shb_proto_handle *out, char *err, size_t errlen);

#endif
