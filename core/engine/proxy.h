/* A forward HTTP proxy: --proxy, the *_proxy environment variables and
 * --noproxy with curl's meanings, the CONNECT request a tunnel starts
 * with, and the bounded reading of the proxy's answer. Pure functions:
 * the connection states that use them are in conn_stream.c. */
#ifndef SHB_CORE_PROXY_H
#define SHB_CORE_PROXY_H

#include <stddef.h>
#include <stdint.h>

/* The proxy's answer to CONNECT is read up to this many bytes: more
 * without the empty line that ends its head is a connect error. */
#define SHB_PROXY_HEAD_MAX 16384
/* A proxy URL without a port: curl's default. */
#define SHB_PROXY_DEFAULT_PORT 1080

struct shb_proxy {
	char *host;  /* IPv6 without brackets */
	uint16_t port;
	int host_is_ip6;
	/* "Basic <base64 of user:password>" from user:password@ in the URL
	 * (percent-decoded first, as curl does), or NULL. */
	char *auth;
	/* Where the URL came from, for messages: "--proxy" or the
	 * environment variable's name. */
	const char *source;
};

/* Parses [http://][USER[:PASSWORD]@]HOST[:PORT][/]. Fills *out or returns
 * -1 with one line in err that starts with `name "VALUE": `. */
int shb_proxy_parse(const char *name, const char *s, struct shb_proxy *out,
		    char *err, size_t errlen);
void shb_proxy_free(struct shb_proxy *p);

/* 1 when `host` is in the --noproxy / NO_PROXY list `list`: "*" matches
 * every host; an entry matches that host name and every name under it
 * (a leading dot is ignored), or an IP address exactly; entries are
 * separated by commas and blanks; names compare without case. */
int shb_noproxy_match(const char *list, const char *host);

/* The proxy a run to `host` uses, curl's way: --proxy (`given`, may be
 * "" for none) first; else for TLS `https_proxy` then `HTTPS_PROXY`, for
 * plain http `http_proxy` only (an upper-case HTTP_PROXY can be set by a
 * request header in CGI programs, so curl ignores it), then `all_proxy`
 * and `ALL_PROXY`; unless `noproxy` (--noproxy) or else `no_proxy` /
 * `NO_PROXY` lists the host. Returns 1 and *out, 0 for a direct run, -1
 * with one line in err (a bad proxy URL, naming where it came from). */
int shb_proxy_pick(const char *given, const char *noproxy, const char *host,
		   int tls, struct shb_proxy *out, char *err, size_t errlen);

/* "CONNECT host:port HTTP/1.1" with Host and Proxy-Authorization, as one
 * malloc'd block in *out (*len bytes, NUL-terminated). 0 or -1. */
int shb_proxy_connect_request(const struct shb_proxy *p, const char *host,
			      uint16_t port, char **out, size_t *len);

/* Reads the proxy's answer in buf[0..len): returns 0 while its head is
 * not complete (and len is under SHB_PROXY_HEAD_MAX), the head's length
 * once it is, with *status set (any 1xx interim heads before it skipped),
 * or -1 with one line in err (malformed, too long). */
long shb_proxy_read_head(const uint8_t *buf, size_t len, unsigned *status,
			 char *err, size_t errlen);

#endif
