/* URI references (RFC 3986): a redirect's Location resolved against the
 * URL of the request it answered (section 5.2), and an absolute URL split
 * into what a request is made of. Pure functions on caller buffers, no
 * allocation; used by the engine's redirects (-L). */
#ifndef SHB_CORE_URL_REF_H
#define SHB_CORE_URL_REF_H

#include <stddef.h>

/* The longest URL a redirect may lead to (a Location and what it resolves
 * to): longer ones are an error of the chain, not a truncation. */
#define SHB_URL_REF_MAX 8192u

/* Resolves reference ref[0..ref_len) against the absolute URI `base`
 * (NUL-terminated) as RFC 3986 section 5.2.2 does (strict: a reference
 * with a scheme is absolute), with dot segments removed (5.2.4), into
 * out[cap] (NUL-terminated). The reference's surrounding whitespace is
 * ignored; a fragment is kept as resolution gives it. Returns the length,
 * or -1 when base has no scheme, either holds a control character or
 * space, or the result does not fit. */
long shb_url_ref_resolve(const char *base, const char *ref, size_t ref_len,
			 char *out, size_t cap);

/* An absolute URL's parts, as spans of it. */
struct shb_url_parts {
	const char *scheme;
	size_t scheme_len;
	const char *authority; /* without any userinfo "user@" */
	size_t authority_len;
	const char *path;      /* path and query, without the fragment; may
				* be empty (a request then sends "/") */
	size_t path_len;
};

/* Splits absolute URL `url` (scheme "://" authority path ["?" query]
 * ["#" fragment]). 0, or -1 when it has no scheme or no authority. */
int shb_url_ref_split(const char *url, struct shb_url_parts *p);

/* The authority's host (brackets of an IPv6 literal removed) and port:
 * *port 0 when it has none. 0, or -1 for a bad port. */
int shb_url_ref_host_port(const char *auth, size_t len, const char **host,
			  size_t *host_len, unsigned *port);

#endif
