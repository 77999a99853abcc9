/* Target URL parsing (resolution: route.h). */
#ifndef SHB_CORE_URL_H
#define SHB_CORE_URL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <shb/proto.h>

/* The longest scheme name kept; a longer one is refused as a typo. */
#define SHB_URL_SCHEME_MAX 32

struct shb_url {
	char scheme[SHB_URL_SCHEME_MAX + 1]; /* as typed, lower-cased */
	int tls;         /* the scheme runs over TLS (https, wss, ...) */
	char *host;      /* host name or IP literal, IPv6 without brackets */
	int host_is_ip;  /* 1 for an IPv4 or IPv6 literal (no SNI then) */
	int host_is_ipv6;
	uint16_t port;   /* explicit or the scheme's default; 0 while the
			  * scheme is not resolved and the URL has none */
	int port_given;  /* the URL names a port */
	char *authority; /* host[:port] as sent in Host / :authority: IPv6 in
			  * brackets, port omitted when it is the default;
			  * NULL while the scheme is not resolved */
	char *path;      /* path and query, "/" when empty; no fragment */
};

/* The schemes of a protocol without scheme_defs (ABI 1.1): http on 80
 * and https on 443 over TLS. */
extern const struct shb_scheme shb_url_default_schemes[];

/* Parses scheme://host[:port][/path][?query][#fragment] with the schemes
 * of shb_url_default_schemes. Rejects other schemes, userinfo, empty
 * hosts, bad ports (0, > 65535, non-digits), unterminated or invalid
 * [IPv6] literals, and control characters or spaces anywhere. Returns 0,
 * or -1 with one line (no newline) in err. */
int shb_url_parse(const char *s, struct shb_url *u, char *err, size_t errlen);

/* Like shb_url_parse, but any RFC 3986 scheme name passes (lower-cased):
 * tls, the default port and authority wait for shb_url_set_scheme, which
 * knows the protocol's schemes. */
int shb_url_parse_any(const char *s, struct shb_url *u, char *err,
		      size_t errlen);

/* Looks u->scheme up in `schemes` (an array ending with name == NULL; NULL
 * means shb_url_default_schemes) and sets tls, the default port when the
 * URL has none, and authority. `s` is the URL as typed (for the message)
 * and `proto` the protocol's name, or NULL. Returns 0, or -1 with one line
 * in err naming the schemes that are served; u is left unchanged then. */
int shb_url_set_scheme(struct shb_url *u, const char *s,
		       const struct shb_scheme *schemes, const char *proto,
		       char *err, size_t errlen);

/* The entry of `schemes` (NULL: the defaults) named `name`, or NULL. */
const struct shb_scheme *shb_url_find_scheme(const struct shb_scheme *schemes,
					     const char *name);

void shb_url_free(struct shb_url *u);

#endif
