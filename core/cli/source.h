/* --source: the local addresses connections are made from.
 *
 * One address offers a client about 28,000 ephemeral ports towards one
 * server address and port (net.ipv4.ip_local_port_range), so 100,000
 * connections to one server need several local addresses. Each connection
 * slot binds to one of them before it connects, in turn: slot k of the run
 * takes address k mod count, so that every address carries the same number
 * of connections (give or take one). The socket is bound with
 * IP_BIND_ADDRESS_NO_PORT, so that the kernel still picks the port at
 * connect time, per 4-tuple, instead of reserving one at bind. */
#ifndef SHB_CORE_SOURCE_H
#define SHB_CORE_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

/* Addresses in one --source at most: 256 IPv4 addresses hold millions of
 * ports, and a typo in a range must not expand into millions of them. */
#define SHB_SOURCE_MAX 256u

union shb_source_addr {
	struct sockaddr sa;
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
};

struct shb_source {
	int family;        /* AF_INET or AF_INET6: every address's */
	socklen_t len;     /* sizeof the family's sockaddr */
	uint32_t count;    /* 1 .. SHB_SOURCE_MAX */
	union shb_source_addr addr[]; /* in the order given, ranges expanded */
};

/* [main] Parses "ADDR", "ADDR-ADDR" (an inclusive range) or a comma-
 * separated list of those, IPv4 or IPv6 (optionally in brackets), ports
 * 0. Refuses mixed families, a range whose end is below its start, an
 * address given twice, the unspecified address, and more than
 * SHB_SOURCE_MAX addresses. Returns a malloc'd set (free with
 * shb_source_free), or NULL with one line in err naming what is wrong. */
struct shb_source *shb_source_parse(const char *spec, char *err, size_t errlen);

/* [main] Before any traffic: each address can be bound on this machine
 * (EADDRNOTAVAIL: not one of its addresses). Returns 0, or -1 with one
 * line in err naming the first address that cannot. */
int shb_source_check_local(const struct shb_source *s, int stream, char *err,
			   size_t errlen);

/* [any] The address connection slot `slot` (numbered across the run's
 * workers) binds to: addr[slot % count]. Owned by s. */
static inline const union shb_source_addr *
shb_source_pick(const struct shb_source *s, uint64_t slot)
{
	return &s->addr[slot % s->count];
}

/* [worker] Binds fd to a, port 0; for a stream socket first sets
 * IP_BIND_ADDRESS_NO_PORT so that connect picks the port. Returns 0 or
 * -errno. */
int shb_source_bind(int fd, const struct shb_source *s,
		    const union shb_source_addr *a, int stream);

/* [any] Writes a's text (no port) into buf. */
void shb_source_text(const struct shb_source *s,
		     const union shb_source_addr *a, char *buf, size_t len);

void shb_source_free(struct shb_source *s);

#endif
