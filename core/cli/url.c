/* Target URL parsing.
 *
 * The parser is deliberately narrower than RFC 3986: a load generator only
 * needs an origin (scheme, host, port) and a request target, and every byte it accepts
 * ends up verbatim in a request line or a :path pseudo-header, so anything
 * that could not be sent as-is is refused with a reason instead of being
 * silently rewritten. */
#include "cli/url.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

/* Longest part of the URL echoed back in an error message: the reason,
 * which follows it, must survive a modest err buffer. */
#define SHB_URL_ECHO_MAX 120

/* Writes `invalid URL "<s>": <reason>` with the URL made printable and
 * shortened, so that the message stays one readable line. */
static void url_error(char *err, size_t errlen, const char *s,
		      const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void url_error(char *err, size_t errlen, const char *s,
		      const char *fmt, ...)
{
	char echo[SHB_URL_ECHO_MAX * 4 + 8];
	size_t o = 0;
	const unsigned char *p = (const unsigned char *)s;

	if (!err || errlen == 0)
		return;
	for (size_t i = 0; p[i]; i++) {
		if (i >= SHB_URL_ECHO_MAX) {
			memcpy(echo + o, "...", 3);
			o += 3;
			break;
		}
		if (p[i] < 0x20 || p[i] == 0x7f || p[i] == '"' ||
		    p[i] == '\\')
			o += (size_t)snprintf(echo + o, sizeof(echo) - o,
					      "\\x%02x", p[i]);
		else
			echo[o++] = (char)p[i];
	}
	echo[o] = '\0';

	int n = snprintf(err, errlen, "invalid URL \"%s\": ", echo);
	if (n < 0 || (size_t)n >= errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

static char *dup_range(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* Letters, digits, '-', '.' and '_' (the last is not legal in DNS host
 * names but common in internal service names, and harmless to pass on). */
static int host_char_ok(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

const struct shb_scheme shb_url_default_schemes[] = {
	{"http", 80, 0},
	{"https", 443, SHB_SCHEME_TLS},
	{NULL, 0, 0},
};

const struct shb_scheme *shb_url_find_scheme(const struct shb_scheme *schemes,
					     const char *name)
{
	if (!schemes)
		schemes = shb_url_default_schemes;
	for (const struct shb_scheme *d = schemes; d->name; d++)
		if (strcmp(d->name, name) == 0)
			return d;
	return NULL;
}

/* "a", "a or b", "a, b or c": the schemes that would have been accepted. */
static void scheme_list(const struct shb_scheme *schemes, char *buf, size_t n)
{
	size_t count = 0, o = 0;

	buf[0] = '\0';
	while (schemes[count].name)
		count++;
	for (size_t i = 0; i < count && o < n; i++) {
		const char *sep = i == 0 ? "" : i + 1 == count ? " or " : ", ";
		int w = snprintf(buf + o, n - o, "%s%s", sep, schemes[i].name);
		if (w < 0)
			break;
		o += (size_t)w;
	}
}

/* The message for a scheme the protocol does not serve. */
static void scheme_error(char *err, size_t errlen, const char *s,
			 const struct shb_scheme *schemes, const char *proto)
{
	char list[256];

	scheme_list(schemes, list, sizeof(list));
	if (proto)
		url_error(err, errlen, s, "scheme must be %s for protocol %s",
			  list, proto);
	else
		url_error(err, errlen, s, "scheme must be %s", list);
}

/* RFC 3986 3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ). */
static int scheme_syntax_ok(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
		if (!alpha && (i == 0 || !((c >= '0' && c <= '9') || c == '+' ||
					  c == '-' || c == '.')))
			return 0;
	}
	return n > 0;
}

/* Is s[0..n) "http" or "https", in any case? */
static int web_scheme(const char *s, size_t n)
{
	return (n == 4 && strncasecmp(s, "http", 4) == 0) ||
	       (n == 5 && strncasecmp(s, "https", 5) == 0);
}

/* No "://" where one was meant: "x:/h/" (one slash), "http:h/" (none),
 * "http//h/" (no colon) say what is wrong; "h", "h:80/x", "a:b=URL" have
 * no scheme. */
static void missing_scheme(const char *s, char *err, size_t errlen)
{
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strcspn(s, "/");
	const char *slash = strstr(s, "//");
	if (colon && scheme_syntax_ok(s, n) && colon[1] == '/')
		url_error(err, errlen, s, "one slash after \"%.*s:\" (expected "
			  "\"%.*s://\")", (int)n, s, (int)n, s);
	else if (colon && web_scheme(s, n))
		url_error(err, errlen, s, "no \"//\" after \"%.*s:\" (expected "
			  "\"%.*s://\")", (int)n, s, (int)n, s);
	else if (!colon && slash == s + n && web_scheme(s, n))
		url_error(err, errlen, s, "no ':' after \"%.*s\" (expected "
			  "\"%.*s://\")", (int)n, s, (int)n, s);
	else
		url_error(err, errlen, s,
			  "missing scheme (expected http:// or https://)");
}

/* Parses the scheme and "://" into u->scheme, lower-cased. With `known`
 * (the default schemes) an unknown scheme is refused at once, before the
 * rest of the URL is looked at. Returns the offset of the authority or
 * -1. */
static long parse_scheme(const char *s, struct shb_url *u, int known,
			 char *err, size_t errlen)
{
	const char *sep = strstr(s, "://");
	const char *colon = strchr(s, ':');

	if (!sep || colon != sep) {
		missing_scheme(s, err, errlen);
		return -1;
	}
	size_t n = (size_t)(sep - s);
	/* A name that is no scheme at all cannot be a known one either. */
	if (known && (n >= sizeof(u->scheme) || !scheme_syntax_ok(s, n))) {
		scheme_error(err, errlen, s, shb_url_default_schemes, NULL);
		return -1;
	}
	if (!scheme_syntax_ok(s, n)) {
		url_error(err, errlen, s,
			  "invalid scheme (a letter, then letters, digits, "
			  "'+', '-' or '.')");
		return -1;
	}
	if (n >= sizeof(u->scheme)) {
		url_error(err, errlen, s, "scheme longer than %d characters",
			  SHB_URL_SCHEME_MAX);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		u->scheme[i] = (char)tolower((unsigned char)s[i]);
	u->scheme[n] = '\0';
	if (known && !shb_url_find_scheme(NULL, u->scheme)) {
		scheme_error(err, errlen, s, shb_url_default_schemes, NULL);
		return -1;
	}
	return (long)(n + 3);
}

/* Port digits (possibly empty, which RFC 3986 allows and means the
 * default). */
static int parse_port(const char *s, const char *p, size_t n,
		      struct shb_url *u, char *err, size_t errlen)
{
	unsigned long v = 0;

	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9') {
			url_error(err, errlen, s,
				  "port must be a number from 1 to 65535");
			return -1;
		}
		v = v * 10 + (unsigned long)(p[i] - '0');
		if (v > 65535)
			break;
	}
	if (v == 0 || v > 65535) {
		url_error(err, errlen, s,
			  "port must be a number from 1 to 65535");
		return -1;
	}
	u->port = (uint16_t)v;
	u->port_given = 1;
	return 0;
}

static int parse_ipv6_host(const char *s, const char *a, size_t alen,
			   size_t *used, struct shb_url *u, char *err,
			   size_t errlen)
{
	const char *close = memchr(a, ']', alen);
	struct in6_addr a6;

	if (!close) {
		url_error(err, errlen, s, "unterminated [IPv6] literal");
		return -1;
	}
	size_t hlen = (size_t)(close - a) - 1;
	if (memchr(a + 1, '%', hlen)) {
		url_error(err, errlen, s,
			  "IPv6 zone ids (%%...) are not supported");
		return -1;
	}
	u->host = dup_range(a + 1, hlen);
	if (!u->host) {
		url_error(err, errlen, s, "out of memory");
		return -1;
	}
	if (hlen == 0 || inet_pton(AF_INET6, u->host, &a6) != 1) {
		url_error(err, errlen, s, "invalid IPv6 address in brackets");
		return -1;
	}
	u->host_is_ip = 1;
	u->host_is_ipv6 = 1;
	*used = hlen + 2;
	return 0;
}

/* A name made only of digits and dots would be read by getaddrinfo as a
 * shorthand IPv4 form ("127.1"); only dotted quads are accepted as
 * addresses, the rest is refused rather than guessed. */
static int parse_name_host(const char *s, const char *a, size_t hlen,
			   struct shb_url *u, char *err, size_t errlen)
{
	int numeric = 1;
	struct in_addr a4;

	if (hlen == 0) {
		url_error(err, errlen, s, "empty host");
		return -1;
	}
	for (size_t i = 0; i < hlen; i++) {
		unsigned char c = (unsigned char)a[i];
		if (!host_char_ok(c)) {
			url_error(err, errlen, s,
				  "invalid character '%c' in host", c);
			return -1;
		}
		if (c != '.' && (c < '0' || c > '9'))
			numeric = 0;
	}
	u->host = dup_range(a, hlen);
	if (!u->host) {
		url_error(err, errlen, s, "out of memory");
		return -1;
	}
	if (inet_pton(AF_INET, u->host, &a4) == 1) {
		u->host_is_ip = 1;
	} else if (numeric) {
		url_error(err, errlen, s, "invalid IPv4 address");
		return -1;
	}
	return 0;
}

/* host[:port] between "://" and the first '/', '?' or '#'. */
static int parse_authority(const char *s, const char *a, size_t alen,
			   struct shb_url *u, char *err, size_t errlen)
{
	size_t hlen;

	if (memchr(a, '@', alen)) {
		url_error(err, errlen, s,
			  "user info (user@host) is not supported");
		return -1;
	}
	if (alen > 0 && a[0] == '[') {
		if (parse_ipv6_host(s, a, alen, &hlen, u, err, errlen) < 0)
			return -1;
		if (hlen < alen && a[hlen] != ':') {
			url_error(err, errlen, s,
				  "unexpected characters after ']'");
			return -1;
		}
	} else {
		const char *colon = memchr(a, ':', alen);
		hlen = colon ? (size_t)(colon - a) : alen;
		if (colon && memchr(colon + 1, ':', alen - hlen - 1)) {
			url_error(err, errlen, s,
				  "IPv6 addresses must be in brackets, like "
				  "http://[::1]:8080/");
			return -1;
		}
		if (parse_name_host(s, a, hlen, u, err, errlen) < 0)
			return -1;
	}
	if (hlen < alen)
		return parse_port(s, a + hlen + 1, alen - hlen - 1, u, err,
				  errlen);
	return 0;
}

/* Sets *out to host[:port], the port left out when it is `def`. */
static int build_authority(const struct shb_url *u, uint32_t def, char **out)
{
	size_t n = strlen(u->host) + 16;
	char *a = malloc(n);

	if (!a)
		return -1;
	const char *lb = u->host_is_ipv6 ? "[" : "";
	const char *rb = u->host_is_ipv6 ? "]" : "";
	if (u->port == def)
		snprintf(a, n, "%s%s%s", lb, u->host, rb);
	else
		snprintf(a, n, "%s%s%s:%u", lb, u->host, rb, (unsigned)u->port);
	*out = a;
	return 0;
}

/* Path and query up to the fragment; "?q" alone becomes "/?q". */
static int build_path(const char *p, struct shb_url *u)
{
	size_t n = strcspn(p, "#");
	int slash = (n == 0 || p[0] != '/');

	u->path = malloc(n + 2);
	if (!u->path)
		return -1;
	if (slash)
		u->path[0] = '/';
	memcpy(u->path + slash, p, n);
	u->path[n + (size_t)slash] = '\0';
	return 0;
}

static int check_bytes(const char *s, char *err, size_t errlen)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p <= 0x20 || *p == 0x7f) {
			url_error(err, errlen, s, "%s at offset %zu",
				  *p == ' ' ? "space" : "control character",
				  (size_t)(p - (const unsigned char *)s));
			return -1;
		}
		if (*p >= 0x80) {
			url_error(err, errlen, s,
				  "non-ASCII byte at offset %zu "
				  "(percent-encode it)",
				  (size_t)(p - (const unsigned char *)s));
			return -1;
		}
	}
	return 0;
}

int shb_url_set_scheme(struct shb_url *u, const char *s,
		       const struct shb_scheme *schemes, const char *proto,
		       char *err, size_t errlen)
{
	const struct shb_scheme *d = shb_url_find_scheme(schemes, u->scheme);
	char *authority;

	if (!d) {
		scheme_error(err, errlen, s,
			     schemes ? schemes : shb_url_default_schemes, proto);
		return -1;
	}
	uint16_t port = u->port_given ? u->port : (uint16_t)d->default_port;
	struct shb_url t = *u;
	t.port = port;
	if (build_authority(&t, d->default_port, &authority) < 0) {
		url_error(err, errlen, s, "out of memory");
		return -1;
	}
	free(u->authority);
	u->authority = authority;
	u->port = port;
	u->tls = (d->flags & SHB_SCHEME_TLS) != 0;
	return 0;
}

static int parse(const char *s, struct shb_url *u, int known, char *err,
		 size_t errlen)
{
	memset(u, 0, sizeof(*u));
	if (!s || !*s) {
		url_error(err, errlen, s ? s : "", "empty URL");
		return -1;
	}
	if (check_bytes(s, err, errlen) < 0)
		return -1;
	long off = parse_scheme(s, u, known, err, errlen);
	if (off < 0)
		goto fail;
	const char *a = s + off;
	size_t alen = strcspn(a, "/?#");
	if (parse_authority(s, a, alen, u, err, errlen) < 0)
		goto fail;
	if (build_path(a + alen, u) < 0) {
		url_error(err, errlen, s, "out of memory");
		goto fail;
	}
	if (known && shb_url_set_scheme(u, s, NULL, NULL, err, errlen) < 0)
		goto fail;
	return 0;
fail:
	shb_url_free(u);
	return -1;
}

int shb_url_parse(const char *s, struct shb_url *u, char *err, size_t errlen)
{
	return parse(s, u, 1, err, errlen);
}

int shb_url_parse_any(const char *s, struct shb_url *u, char *err,
		      size_t errlen)
{
	return parse(s, u, 0, err, errlen);
}

void shb_url_free(struct shb_url *u)
{
	if (!u)
		return;
	free(u->host);
	free(u->authority);
	free(u->path);
	memset(u, 0, sizeof(*u));
}
