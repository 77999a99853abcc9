/* --connect-to, --resolve and the address list of a run. curl's syntax
 * and meanings, so that a command line tried with curl carries over:
 * --connect-to changes where a connection goes, never the Host header,
 * SNI or the name the certificate is checked against; --resolve gives
 * the addresses of a name (after --connect-to, as in curl). */
#include "common/quote.h"
#include "cli/route.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>

static char *dup_range(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* A host field up to the next ':' (an IPv6 literal in brackets may hold
 * colons). Empty is allowed; the caller decides what it means. Returns
 * the field's end (at ':' or the string's end) or NULL. */
static const char *host_field(const char *name, const char *s, const char *p,
			      char **host, char *err, size_t errlen)
{
	const char *end, *h = p;
	size_t n;
	struct in6_addr a6;

	if (*p == '[') {
		end = strchr(p, ']');
		if (!end) {
			shb_quote_fail(err, errlen, name, s,
				   "unterminated [IPv6] address");
			return NULL;
		}
		h = p + 1;
		n = (size_t)(end - h);
		end++;
		if (*end && *end != ':') {
			shb_quote_fail(err, errlen, name, s,
				   "unexpected characters after ']'");
			return NULL;
		}
	} else {
		end = p + strcspn(p, ":");
		n = (size_t)(end - p);
	}
	*host = dup_range(h, n);
	if (!*host) {
		shb_quote_fail(err, errlen, name, s, "out of memory");
		return NULL;
	}
	if (h != p) {
		if (n == 0 || inet_pton(AF_INET6, *host, &a6) != 1) {
			shb_quote_fail(err, errlen, name, s,
				   "invalid IPv6 address \"%s\"", shb_quote(*host).s);
			return NULL;
		}
		return end;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)h[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		      c == '_' || c == '*')) {
			if (c > 0x20 && c < 0x7f)
				shb_quote_fail(err, errlen, name, s, "invalid "
					   "character '%c' in a host name", c);
			else
				shb_quote_fail(err, errlen, name, s, "invalid "
					   "byte 0x%02x in a host name", c);
			return NULL;
		}
	}
	return end;
}

/* A port field up to the next ':' or the end; empty gives 0 when
 * allowed. Returns the field's end or NULL. */
static const char *port_field(const char *name, const char *s, const char *p,
			      int allow_empty, uint16_t *port, char *err,
			      size_t errlen)
{
	size_t n = strcspn(p, ":");
	unsigned long v = 0;

	*port = 0;
	if (n == 0 && allow_empty)
		return p;
	for (size_t i = 0; i < n && v <= 65535; i++) {
		if (p[i] < '0' || p[i] > '9') {
			v = 0;
			break;
		}
		v = v * 10 + (unsigned long)(p[i] - '0');
	}
	if (v == 0 || v > 65535) {
		shb_quote_fail(err, errlen, name, s,
			   "port \"%s\" is not a number from 1 to 65535",
			   shb_quote_n(p, n > 20 ? 20 : n).s);
		return NULL;
	}
	*port = (uint16_t)v;
	return p + n;
}

static int expect_colon(const char *name, const char *s, const char **p,
			const char *syntax, char *err, size_t errlen)
{
	if (**p != ':')
		return shb_quote_fail(err, errlen, name, s, "expected %s", syntax);
	(*p)++;
	return 0;
}

int shb_connect_to_parse(const char *name, const char *s,
			 struct shb_connect_to *out, char *err, size_t errlen)
{
	static const char syntax[] =
		"HOST:PORT:CONNECT-HOST:CONNECT-PORT (empty parts: any host "
		"or port, or the URL's)";
	const char *p = s;

	memset(out, 0, sizeof(*out));
	if (!(p = host_field(name, s, p, &out->host, err, errlen)) ||
	    expect_colon(name, s, &p, syntax, err, errlen) < 0 ||
	    !(p = port_field(name, s, p, 1, &out->port, err, errlen)) ||
	    expect_colon(name, s, &p, syntax, err, errlen) < 0 ||
	    !(p = host_field(name, s, p, &out->to_host, err, errlen)) ||
	    expect_colon(name, s, &p, syntax, err, errlen) < 0 ||
	    !(p = port_field(name, s, p, 1, &out->to_port, err, errlen)))
		goto fail;
	if (*p) {
		shb_quote_fail(err, errlen, name, s, "expected %s", syntax);
		goto fail;
	}
	if (strchr(out->host, '*') || strchr(out->to_host, '*')) {
		shb_quote_fail(err, errlen, name, s,
			   "a host cannot hold '*' (leave it empty for any)");
		goto fail;
	}
	return 0;
fail:
	shb_connect_to_free(out);
	return -1;
}

void shb_connect_to_free(struct shb_connect_to *ct)
{
	free(ct->host);
	free(ct->to_host);
	memset(ct, 0, sizeof(*ct));
}

/* One address of a --resolve list: IPv4, or IPv6 with or without
 * brackets. */
static int parse_addr(const char *name, const char *s, const char *a,
		      size_t n, struct shb_addr *out, char *err, size_t errlen)
{
	char text[INET6_ADDRSTRLEN + 2];
	struct sockaddr_in *v4 = (struct sockaddr_in *)&out->ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&out->ss;

	if (n >= 2 && a[0] == '[' && a[n - 1] == ']') {
		a++;
		n -= 2;
	}
	if (n == 0 || n >= sizeof(text))
		goto bad;
	memcpy(text, a, n);
	text[n] = '\0';
	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		out->len = sizeof(*v4);
		return 0;
	}
	if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		out->len = sizeof(*v6);
		return 0;
	}
bad:
	return shb_quote_fail(err, errlen, name, s,
			  "\"%s\" is not an IPv4 or IPv6 address",
			  shb_quote_n(a, n > 60 ? 60 : n).s);
}

int shb_resolve_parse(const char *name, const char *s, struct shb_resolve *out,
		      char *err, size_t errlen)
{
	static const char syntax[] = "HOST:PORT:ADDRESS[,ADDRESS]...";
	const char *p = s;

	memset(out, 0, sizeof(*out));
	if (!(p = host_field(name, s, p, &out->host, err, errlen)))
		goto fail;
	if (!out->host[0] || (strchr(out->host, '*') && strcmp(out->host, "*"))) {
		shb_quote_fail(err, errlen, name, s,
			   "expected %s (HOST a name, or * for any)", syntax);
		goto fail;
	}
	if (expect_colon(name, s, &p, syntax, err, errlen) < 0 ||
	    !(p = port_field(name, s, p, 0, &out->port, err, errlen)) ||
	    expect_colon(name, s, &p, syntax, err, errlen) < 0)
		goto fail;
	for (;;) {
		size_t n = strcspn(p, ",");
		if (out->count == SHB_MAX_ADDRS) {
			shb_quote_fail(err, errlen, name, s,
				   "more than %d addresses", SHB_MAX_ADDRS);
			goto fail;
		}
		struct shb_addr *a = realloc(out->addrs,
					     (out->count + 1) * sizeof(*a));
		if (!a) {
			shb_quote_fail(err, errlen, name, s, "out of memory");
			goto fail;
		}
		out->addrs = a;
		if (parse_addr(name, s, p, n, &a[out->count], err, errlen) < 0)
			goto fail;
		out->count++;
		if (!p[n])
			return 0;
		p += n + 1;
	}
fail:
	shb_resolve_free(out);
	return -1;
}

void shb_resolve_free(struct shb_resolve *r)
{
	free(r->host);
	free(r->addrs);
	memset(r, 0, sizeof(*r));
}

const struct shb_connect_to *
shb_route_connect_to(const struct shb_connect_to *v, size_t n,
		     const char *host, uint16_t port, const char **to_host,
		     uint16_t *to_port)
{
	*to_host = host;
	*to_port = port;
	for (size_t i = 0; i < n; i++) {
		if (v[i].host[0] && strcasecmp(v[i].host, host) != 0)
			continue;
		if (v[i].port && v[i].port != port)
			continue;
		if (v[i].to_host[0])
			*to_host = v[i].to_host;
		if (v[i].to_port)
			*to_port = v[i].to_port;
		return &v[i];
	}
	return NULL;
}

const struct shb_resolve *shb_route_resolve(const struct shb_resolve *v,
					    size_t n, const char *host,
					    uint16_t port)
{
	for (size_t i = n; i-- > 0;)
		if (v[i].port == port && (strcmp(v[i].host, "*") == 0 ||
					  strcasecmp(v[i].host, host) == 0))
			return &v[i];
	return NULL;
}

static void set_port(struct shb_addr *a, uint16_t port)
{
	if (a->ss.ss_family == AF_INET)
		((struct sockaddr_in *)&a->ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)&a->ss)->sin6_port = htons(port);
}

static const char *family_name(int family)
{
	return family == AF_INET ? "IPv4 (-4)" : "IPv6 (-6)";
}

/* getaddrinfo, in its order (RFC 6724 with /etc/gai.conf). */
static int lookup(const char *host, uint16_t port, int family,
		  struct shb_addr *out, char *err, size_t errlen)
{
	struct addrinfo hints, *res = NULL;
	char ps[8];
	int n = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = family;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_protocol = IPPROTO_TCP;
	/* No AI_ADDRCONFIG: it hides ::1 and even 127.0.0.1 on hosts whose
	 * only interface is loopback, which is exactly where tests run. */
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(ps, sizeof(ps), "%u", (unsigned)port);
	int rc = getaddrinfo(host, ps, &hints, &res);
	if (rc != 0) {
		const char *why = rc == EAI_SYSTEM ? strerror(errno)
						   : gai_strerror(rc);
		if (family != AF_UNSPEC && (rc == EAI_ADDRFAMILY ||
					    rc == EAI_NODATA || rc == EAI_NONAME))
			snprintf(err, errlen, "cannot resolve host \"%s\": no %s "
				 "address (%s)", host, family_name(family), why);
		else
			snprintf(err, errlen, "cannot resolve host \"%s\": %s",
				 host, why);
		return -1;
	}
	for (struct addrinfo *ai = res; ai && n < SHB_MAX_ADDRS; ai = ai->ai_next) {
		if (ai->ai_addrlen > sizeof(out[n].ss) ||
		    (ai->ai_family != AF_INET && ai->ai_family != AF_INET6))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		memcpy(&out[n].ss, ai->ai_addr, ai->ai_addrlen);
		out[n].len = ai->ai_addrlen;
		n++;
	}
	freeaddrinfo(res);
	if (n == 0) {
		snprintf(err, errlen, "cannot resolve host \"%s\": no usable "
			 "address", host);
		return -1;
	}
	return n;
}

int shb_route_addrs(const struct shb_route_spec *rs, struct shb_addr *out,
		    char *err, size_t errlen)
{
	const char *host;
	uint16_t port;
	int n = 0;

	shb_route_connect_to(rs->connect_to, rs->connect_to_count, rs->host,
			     rs->port, &host, &port);
	const struct shb_resolve *r = shb_route_resolve(rs->resolve,
							rs->resolve_count,
							host, port);
	if (!r) {
		n = lookup(host, port, rs->family, out, err, errlen);
		if (n < 0)
			return -1;
	} else {
		for (size_t i = 0; i < r->count; i++)
			if (rs->family == AF_UNSPEC ||
			    r->addrs[i].ss.ss_family == rs->family)
				out[n++] = r->addrs[i];
		if (n == 0) {
			snprintf(err, errlen, "--resolve %s:%u gives no %s "
				 "address", r->host, (unsigned)r->port,
				 family_name(rs->family));
			return -1;
		}
	}
	for (int i = 0; i < n; i++)
		set_port(&out[i], port);
	return n;
}

void shb_addr_text(const struct shb_addr *a, char *buf, size_t cap)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (a->ss.ss_family == AF_UNIX) {
		const struct sockaddr_un *un = (const void *)&a->ss;
		snprintf(buf, cap, "unix:%s", un->sun_path);
	} else if (a->ss.ss_family == AF_INET) {
		const struct sockaddr_in *v4 = (const void *)&a->ss;
		inet_ntop(AF_INET, &v4->sin_addr, ip, sizeof(ip));
		snprintf(buf, cap, "%s:%u", ip, (unsigned)ntohs(v4->sin_port));
	} else {
		const struct sockaddr_in6 *v6 = (const void *)&a->ss;
		inet_ntop(AF_INET6, &v6->sin6_addr, ip, sizeof(ip));
		snprintf(buf, cap, "[%s]:%u", ip, (unsigned)ntohs(v6->sin6_port));
	}
}
