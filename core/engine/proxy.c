/* Forward proxies: see proxy.h. curl's syntax and meanings, so that a
 * proxy set up for curl (its variables, its --noproxy) carries over. */
#include "engine/proxy.h"
#include "common/quote.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Percent-decodes s[0..n) into a new string; -1 on a bad escape. */
static int pct_decode(const char *s, size_t n, char **out)
{
	char *d = malloc(n + 1);
	size_t k = 0;
	if (!d)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '%') {
			d[k++] = s[i];
			continue;
		}
		if (i + 2 >= n) {
			free(d);
			return -1;
		}
		int a = hexval(s[i + 1]), b = hexval(s[i + 2]);
		if (a < 0 || b < 0) {
			free(d);
			return -1;
		}
		d[k++] = (char)(a << 4 | b);
		i += 2;
	}
	d[k] = '\0';
	*out = d;
	return (int)k;
}

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* "Basic " and the base64 of user ':' password (RFC 7617). */
static char *basic_auth(const char *user, size_t ulen, const char *pass,
			size_t plen)
{
	size_t n = ulen + 1 + plen;
	char *raw = malloc(n);
	char *out = malloc(6 + (n + 2) / 3 * 4 + 1);
	if (!raw || !out) {
		free(raw);
		free(out);
		return NULL;
	}
	memcpy(raw, user, ulen);
	raw[ulen] = ':';
	memcpy(raw + ulen + 1, pass, plen);
	char *o = out + 6;
	memcpy(out, "Basic ", 6);
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)(uint8_t)raw[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)(uint8_t)raw[i + 1] << 8;
		if (i + 2 < n)
			v |= (uint8_t)raw[i + 2];
		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? b64[v & 63] : '=';
	}
	*o = '\0';
	free(raw);
	return out;
}

/* user[:password] before '@', both percent-decoded. */
static int parse_userinfo(const char *name, const char *s, const char *p,
			  size_t n, struct shb_proxy *out, char *err,
			  size_t errlen)
{
	const char *colon = memchr(p, ':', n);
	size_t ulen = colon ? (size_t)(colon - p) : n;
	char *user = NULL, *pass = NULL;
	int ul = pct_decode(p, ulen, &user);
	int pl = ul < 0 ? -1 : pct_decode(colon ? colon + 1 : "",
					  colon ? n - ulen - 1 : 0, &pass);
	if (ul < 0 || pl < 0) {
		free(user);
		free(pass);
		return shb_quote_fail(err, errlen, name, s,
				  "bad %%-escape in the user name or password");
	}
	out->auth = basic_auth(user, (size_t)ul, pass, (size_t)pl);
	free(user);
	free(pass);
	if (!out->auth)
		return shb_quote_fail(err, errlen, name, s, "out of memory");
	return 0;
}

static int parse_port(const char *name, const char *s, const char *p,
		      size_t n, uint16_t *port, char *err, size_t errlen)
{
	unsigned long v = 0;
	for (size_t i = 0; i < n && v <= 65535; i++) {
		if (p[i] < '0' || p[i] > '9') {
			v = 0;
			break;
		}
		v = v * 10 + (unsigned long)(p[i] - '0');
	}
	if (v == 0 || v > 65535)
		return shb_quote_fail(err, errlen, name, s,
				  "port \"%s\" is not a number from 1 to 65535",
				  shb_quote_n(p, n > 20 ? 20 : n).s);
	*port = (uint16_t)v;
	return 0;
}

static int parse_hostport(const char *name, const char *s, const char *p,
			  size_t n, struct shb_proxy *out, char *err,
			  size_t errlen)
{
	const char *hend, *h = p;
	size_t hlen;
	struct in6_addr a6;

	if (n && *p == '[') {
		hend = memchr(p, ']', n);
		if (!hend)
			return shb_quote_fail(err, errlen, name, s,
					  "unterminated [IPv6] address");
		h = p + 1;
		hlen = (size_t)(hend - h);
		hend++;
		out->host_is_ip6 = 1;
	} else {
		hend = memchr(p, ':', n);
		if (!hend)
			hend = p + n;
		hlen = (size_t)(hend - p);
	}
	if (hlen == 0)
		return shb_quote_fail(err, errlen, name, s, "no proxy host");
	out->host = strndup(h, hlen);
	if (!out->host)
		return shb_quote_fail(err, errlen, name, s, "out of memory");
	if (out->host_is_ip6 && inet_pton(AF_INET6, out->host, &a6) != 1)
		return shb_quote_fail(err, errlen, name, s,
				  "invalid IPv6 address \"%s\"",
				  shb_quote(out->host).s);
	for (size_t i = 0; !out->host_is_ip6 && i < hlen; i++) {
		unsigned char c = (unsigned char)h[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_'))
			return shb_quote_fail(err, errlen, name, s,
					  "invalid character in the proxy host");
	}
	size_t rest = n - (size_t)(hend - p);
	out->port = SHB_PROXY_DEFAULT_PORT;
	if (rest == 0)
		return 0;
	if (*hend != ':')
		return shb_quote_fail(err, errlen, name, s,
				  "unexpected characters after the host");
	return parse_port(name, s, hend + 1, rest - 1, &out->port, err, errlen);
}

int shb_proxy_parse(const char *name, const char *s, struct shb_proxy *out,
		    char *err, size_t errlen)
{
	const char *p = s, *sep = strstr(s, "://");

	memset(out, 0, sizeof(*out));
	out->source = name;
	if (sep) {
		size_t sl = (size_t)(sep - s);
		if (sl == 4 && strncasecmp(s, "http", 4) == 0) {
			p = sep + 3;
		} else if (sl == 5 && strncasecmp(s, "https", 5) == 0) {
			return shb_quote_fail(err, errlen, name, s, "a proxy reached "
					  "over TLS (https://) is not supported: "
					  "use http://");
		} else {
			return shb_quote_fail(err, errlen, name, s, "scheme \"%s\" "
					  "is not supported (only http:// proxies)",
					  shb_quote_n(s, sl > 20 ? 20 : sl).s);
		}
	}
	size_t n = strcspn(p, "/?#");
	if (p[n] && strcmp(p + n, "/") != 0)
		return shb_quote_fail(err, errlen, name, s, "a proxy URL has no "
				  "path: give http://HOST:PORT");
	const char *at = NULL;
	for (size_t i = 0; i < n; i++)
		if (p[i] == '@')
			at = p + i;
	if (at) {
		if (parse_userinfo(name, s, p, (size_t)(at - p), out, err,
				   errlen) < 0)
			goto fail;
		n -= (size_t)(at + 1 - p);
		p = at + 1;
	}
	if (parse_hostport(name, s, p, n, out, err, errlen) < 0)
		goto fail;
	return 0;
fail:
	shb_proxy_free(out);
	return -1;
}

void shb_proxy_free(struct shb_proxy *p)
{
	free(p->host);
	free(p->auth);
	memset(p, 0, sizeof(*p));
}

/* One --noproxy entry e[0..n) against host. */
static int entry_match(const char *e, size_t n, const char *host)
{
	size_t hl = strlen(host);
	if (n && e[0] == '[' && e[n - 1] == ']') {
		e++;
		n -= 2;
	}
	while (n && e[0] == '.') {
		e++;
		n--;
	}
	if (n == 0)
		return 0;
	if (n == 1 && e[0] == '*')
		return 1;
	if (hl == n)
		return strncasecmp(e, host, n) == 0;
	/* A name under the entry: "example.com" covers "a.example.com". */
	return hl > n && host[hl - n - 1] == '.' &&
	       strncasecmp(e, host + hl - n, n) == 0;
}

int shb_noproxy_match(const char *list, const char *host)
{
	const char *p = list;
	while (p && *p) {
		p += strspn(p, ", \t");
		size_t n = strcspn(p, ", \t");
		if (n && entry_match(p, n, host))
			return 1;
		p += n;
	}
	return 0;
}

static const char *env_first(const char *const *names, const char **which)
{
	for (; *names; names++) {
		const char *v = getenv(*names);
		if (v && *v) {
			*which = *names;
			return v;
		}
	}
	return NULL;
}

int shb_proxy_pick(const char *given, const char *noproxy, const char *host,
		   int tls, struct shb_proxy *out, char *err, size_t errlen)
{
	static const char *const https_vars[] = {
		"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", NULL};
	static const char *const http_vars[] = {
		"http_proxy", "all_proxy", "ALL_PROXY", NULL};
	static const char *const no_vars[] = {"no_proxy", "NO_PROXY", NULL};
	const char *which = "--proxy", *url = given;

	memset(out, 0, sizeof(*out));
	if (!url)
		url = env_first(tls ? https_vars : http_vars, &which);
	if (!url || !*url)
		return 0; /* --proxy "" turns any variable off, as in curl */
	if (!noproxy)
		noproxy = env_first(no_vars, &(const char *){NULL});
	if (noproxy && shb_noproxy_match(noproxy, host))
		return 0;
	if (shb_proxy_parse(which, url, out, err, errlen) < 0) {
		/* A variable set for other tools: say how to go around it. */
		size_t n = strlen(err);
		if (url != given && n < errlen)
			snprintf(err + n, errlen - n, " (--noproxy '*' connects "
				 "directly)");
		return -1;
	}
	return 1;
}

int shb_proxy_connect_request(const struct shb_proxy *p, const char *host,
			      uint16_t port, char **out, size_t *len)
{
	const char *lb = strchr(host, ':') ? "[" : "";
	const char *rb = *lb ? "]" : "";
	char hp[300];
	int n = snprintf(hp, sizeof(hp), "%s%s%s:%u", lb, host, rb,
			 (unsigned)port);
	if (n < 0 || (size_t)n >= sizeof(hp))
		return -1;
	size_t cap = 64 + 2 * (size_t)n + (p->auth ? strlen(p->auth) + 32 : 0);
	char *b = malloc(cap);
	if (!b)
		return -1;
	n = snprintf(b, cap, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s%s%s\r\n",
		     hp, hp, p->auth ? "Proxy-Authorization: " : "",
		     p->auth ? p->auth : "", p->auth ? "\r\n" : "");
	if (n < 0 || (size_t)n >= cap) {
		free(b);
		return -1;
	}
	*out = b;
	*len = (size_t)n;
	return 0;
}

/* The end of a head starting at buf (after its empty line), or 0. */
static size_t head_end(const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (buf[i + 1] == '\n')
			return i + 2;
		if (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

long shb_proxy_read_head(const uint8_t *buf, size_t len, unsigned *status,
			 char *err, size_t errlen)
{
	size_t off = 0;
	if (len > SHB_PROXY_HEAD_MAX)
		len = SHB_PROXY_HEAD_MAX;
	for (;;) {
		const uint8_t *h = buf + off;
		size_t avail = len - off;
		/* "HTTP/1.x NNN" before anything else. */
		size_t chk = avail < 12 ? avail : 12;
		static const char pfx[] = "HTTP/1.";
		for (size_t i = 0; i < chk; i++) {
			int ok = i < 7 ? h[i] == (uint8_t)pfx[i] :
				 i == 7 ? h[i] >= '0' && h[i] <= '9' :
				 i == 8 ? h[i] == ' ' :
				 h[i] >= '0' && h[i] <= '9';
			if (!ok) {
				snprintf(err, errlen, "proxy: not an HTTP/1.x "
					 "answer to CONNECT (\"%s\")",
					 shb_quote_n((const char *)h,
						     avail < 40 ? avail : 40).s);
				return -1;
			}
		}
		size_t e = head_end(h, avail);
		if (!e) {
			if (len < SHB_PROXY_HEAD_MAX)
				return 0;
			snprintf(err, errlen, "proxy: answer to CONNECT longer "
				 "than %d bytes without the end of its head",
				 SHB_PROXY_HEAD_MAX);
			return -1;
		}
		if (e < 12 || (h[12] != ' ' && h[12] != '\r' && h[12] != '\n')) {
			snprintf(err, errlen, "proxy: malformed status line in "
				 "the answer to CONNECT");
			return -1;
		}
		*status = (unsigned)(h[9] - '0') * 100 +
			  (unsigned)(h[10] - '0') * 10 + (unsigned)(h[11] - '0');
		off += e;
		if (*status >= 200 || *status < 100)
			return (long)off;
	}
}
