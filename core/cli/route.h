/* Where a run connects: --connect-to and --resolve with curl's meanings,
 * -4/-6, and the list of addresses a connection slot walks through. */
#ifndef SHB_CORE_ROUTE_H
#define SHB_CORE_ROUTE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Addresses kept per run at most: a slot walks them in order. */
#define SHB_MAX_ADDRS 32

/* --connect-to HOST:PORT:CONNECT-HOST:CONNECT-PORT. An empty HOST or PORT
 * matches any; an empty CONNECT-HOST or CONNECT-PORT keeps the URL's. */
struct shb_connect_to {
	char *host;       /* "" = any; IPv6 without brackets */
	uint16_t port;    /* 0 = any */
	char *to_host;    /* "" = the URL's host */
	uint16_t to_port; /* 0 = the URL's port */
};

struct shb_addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

/* --resolve HOST:PORT:ADDR[,ADDR]...: HOST may be "*" for any host. */
struct shb_resolve {
	char *host;
	uint16_t port;
	struct shb_addr *addrs; /* numeric, port not set */
	size_t count;
};

/* Each parser fills *out or returns -1 with one line in err that starts
 * with `name "VALUE": `. */
int shb_connect_to_parse(const char *name, const char *s,
			 struct shb_connect_to *out, char *err, size_t errlen);
void shb_connect_to_free(struct shb_connect_to *ct);
int shb_resolve_parse(const char *name, const char *s, struct shb_resolve *out,
		      char *err, size_t errlen);
void shb_resolve_free(struct shb_resolve *r);

/* The first --connect-to matching host:port (host compared without case)
 * sets *to_host and *to_port; without a match they are host and port.
 * Returns the entry used, or NULL. */
const struct shb_connect_to *
shb_route_connect_to(const struct shb_connect_to *v, size_t n,
		     const char *host, uint16_t port, const char **to_host,
		     uint16_t *to_port);
/* The --resolve entry for host:port: the last one given wins, as in curl;
 * "*" matches any host. NULL when none does. */
const struct shb_resolve *shb_route_resolve(const struct shb_resolve *v,
					    size_t n, const char *host,
					    uint16_t port);

struct shb_route_spec {
	const char *host; /* the URL's host, IPv6 without brackets */
	uint16_t port;
	int family; /* AF_UNSPEC, or AF_INET / AF_INET6 for -4 / -6 */
	const struct shb_connect_to *connect_to;
	size_t connect_to_count;
	const struct shb_resolve *resolve;
	size_t resolve_count;
};

/* The addresses to connect to, in order, at most SHB_MAX_ADDRS: after
 * --connect-to, from --resolve, the IP literal, or getaddrinfo. Returns the
 * count (> 0), or -1 with one line in err. */
int shb_route_addrs(const struct shb_route_spec *rs, struct shb_addr *out,
		    char *err, size_t errlen);

/* "127.0.0.1:80", "[::1]:443" or "unix:PATH". */
void shb_addr_text(const struct shb_addr *a, char *buf, size_t cap);

#endif
