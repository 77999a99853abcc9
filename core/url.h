/* Target URL parsing (resolution: route.h). */
#ifndef SHB_CORE_URL_H
#define SHB_CORE_URL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct shb_url {
	char scheme[8];  /* "http" or "https", lower-cased */
	int tls;         /* 1 for https */
	char *host;      /* host name or IP literal, IPv6 without brackets */
	int host_is_ip;  /* 1 for an IPv4 or IPv6 literal (no SNI then) */
	int host_is_ipv6;
	uint16_t port;   /* explicit or the scheme default (80/443) */
	char *authority; /* host[:port] as sent in Host / :authority: IPv6 in
			  * brackets, port omitted when it is the default */
	char *path;      /* path and query, "/" when empty; no fragment */
};

/* Parses http[s]://host[:port][/path][?query][#fragment]. Rejects other
 * schemes, userinfo, empty hosts, bad ports (0, > 65535, non-digits),
 * unterminated or invalid [IPv6] literals, and control characters or spaces
 * anywhere. Returns 0, or -1 with one line (no newline) in err. */
int shb_url_parse(const char *s, struct shb_url *u, char *err, size_t errlen);
void shb_url_free(struct shb_url *u);

#endif
