/* URI references (url_ref.h): RFC 3986 section 5.2, written from its
 * pseudo-code, on spans of the caller's strings. */
#include "cli/url_ref.h"

#include <string.h>

/* A component of a URI reference (Appendix B's regular expression): set
 * tells "absent" from "empty", which 5.2.2 distinguishes. */
struct span {
	const char *p;
	size_t n;
	int set;
};

struct uri {
	struct span scheme, authority, path, query, fragment;
};

static struct span span_of(const char *p, size_t n, int set)
{
	return (struct span){p, n, set};
}

/* ^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))? */
static void parse(const char *s, size_t n, struct uri *u)
{
	size_t i = 0, j;

	memset(u, 0, sizeof(*u));
	for (j = 0; j < n && !strchr(":/?#", s[j]); j++)
		;
	if (j > 0 && j < n && s[j] == ':') {
		u->scheme = span_of(s, j, 1);
		i = j + 1;
	}
	if (n - i >= 2 && s[i] == '/' && s[i + 1] == '/') {
		for (j = i + 2; j < n && !strchr("/?#", s[j]); j++)
			;
		u->authority = span_of(s + i + 2, j - i - 2, 1);
		i = j;
	}
	for (j = i; j < n && s[j] != '?' && s[j] != '#'; j++)
		;
	u->path = span_of(s + i, j - i, 1);
	i = j;
	if (i < n && s[i] == '?') {
		for (j = i + 1; j < n && s[j] != '#'; j++)
			;
		u->query = span_of(s + i + 1, j - i - 1, 1);
		i = j;
	}
	if (i < n && s[i] == '#')
		u->fragment = span_of(s + i + 1, n - i - 1, 1);
}

static int starts(const char *in, size_t n, const char *lit)
{
	size_t k = strlen(lit);
	return n >= k && memcmp(in, lit, k) == 0;
}

static int is(const char *in, size_t n, const char *lit)
{
	return n == strlen(lit) && memcmp(in, lit, n) == 0;
}

/* The output without its last segment (and the '/' before it). */
static size_t drop_last(const char *out, size_t m)
{
	while (m > 0 && out[m - 1] != '/')
		m--;
	return m > 0 ? m - 1 : 0;
}

/* Section 5.2.4, steps A to E, from in[n] into out (at least n bytes). */
static size_t remove_dots(const char *in, size_t n, char *out)
{
	size_t m = 0;

	while (n > 0) {
		if (starts(in, n, "../")) {
			in += 3, n -= 3;
		} else if (starts(in, n, "./")) {
			in += 2, n -= 2;
		} else if (starts(in, n, "/./")) {
			in += 2, n -= 2;
		} else if (is(in, n, "/.")) {
			in = "/", n = 1;
		} else if (starts(in, n, "/../")) {
			in += 3, n -= 3;
			m = drop_last(out, m);
		} else if (is(in, n, "/..")) {
			in = "/", n = 1;
			m = drop_last(out, m);
		} else if (is(in, n, ".") || is(in, n, "..")) {
			n = 0;
		} else {
			size_t k = 1;
			while (k < n && in[k] != '/')
				k++;
			memcpy(out + m, in, k);
			m += k, in += k, n -= k;
		}
	}
	return m;
}

/* Appends p[n] at out[*at] if it fits (cap keeps room for the NUL). */
static int put(char *out, size_t cap, size_t *at, const char *p, size_t n)
{
	if (n >= cap - *at)
		return -1;
	memcpy(out + *at, p, n);
	*at += n;
	return 0;
}

/* Section 5.2.3 then 5.2.4: the reference's relative path after the
 * base's directory, dots removed, into path[] (2 * SHB_URL_REF_MAX). */
static size_t merged_path(const struct uri *b, const struct span *r,
			  char *tmp, char *path)
{
	size_t n = 0;

	if (b->authority.set && b->path.n == 0) {
		tmp[n++] = '/';
	} else {
		size_t k = b->path.n;
		while (k > 0 && b->path.p[k - 1] != '/')
			k--;
		memcpy(tmp, b->path.p, k);
		n = k;
	}
	memcpy(tmp + n, r->p, r->n);
	return remove_dots(tmp, n + r->n, path);
}

static int compose(const struct span *scheme, const struct span *auth,
		   const char *path, size_t path_n, const struct span *query,
		   const struct span *frag, char *out, size_t cap)
{
	size_t at = 0;

	if (put(out, cap, &at, scheme->p, scheme->n) < 0 ||
	    put(out, cap, &at, ":", 1) < 0)
		return -1;
	if (auth->set && (put(out, cap, &at, "//", 2) < 0 ||
			  put(out, cap, &at, auth->p, auth->n) < 0))
		return -1;
	if (put(out, cap, &at, path, path_n) < 0)
		return -1;
	if (query->set && (put(out, cap, &at, "?", 1) < 0 ||
			   put(out, cap, &at, query->p, query->n) < 0))
		return -1;
	if (frag->set && (put(out, cap, &at, "#", 1) < 0 ||
			  put(out, cap, &at, frag->p, frag->n) < 0))
		return -1;
	out[at] = '\0';
	return (int)at;
}

static int bad_char(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7f)
			return 1;
	return 0;
}

long shb_url_ref_resolve(const char *base, const char *ref, size_t ref_len,
			 char *out, size_t cap)
{
	static _Thread_local char tmp[2 * SHB_URL_REF_MAX + 2];
	static _Thread_local char path[2 * SHB_URL_REF_MAX + 2];
	struct uri b, r;
	const struct span *auth = &b.authority, *query = &r.query;
	size_t n;

	while (ref_len && (ref[0] == ' ' || ref[0] == '\t'))
		ref++, ref_len--;
	while (ref_len && (ref[ref_len - 1] == ' ' || ref[ref_len - 1] == '\t'))
		ref_len--;
	size_t blen = strlen(base);
	if (cap == 0 || bad_char(ref, ref_len) || ref_len > SHB_URL_REF_MAX ||
	    blen > SHB_URL_REF_MAX || bad_char(base, blen))
		return -1;
	parse(base, blen, &b);
	parse(ref, ref_len, &r);
	if (!b.scheme.set)
		return -1;
	if (r.scheme.set)
		return compose(&r.scheme, &r.authority, path,
			       remove_dots(r.path.p, r.path.n, path), &r.query,
			       &r.fragment, out, cap);
	if (r.authority.set) {
		auth = &r.authority;
		n = remove_dots(r.path.p, r.path.n, path);
	} else if (r.path.n == 0) {
		memcpy(path, b.path.p, b.path.n);
		n = b.path.n;
		if (!r.query.set)
			query = &b.query;
	} else if (r.path.p[0] == '/') {
		n = remove_dots(r.path.p, r.path.n, path);
	} else {
		n = merged_path(&b, &r.path, tmp, path);
	}
	return compose(&b.scheme, auth, path, n, query, &r.fragment, out, cap);
}

int shb_url_ref_split(const char *url, struct shb_url_parts *p)
{
	struct uri u;

	parse(url, strlen(url), &u);
	if (!u.scheme.set || !u.authority.set || u.authority.n == 0)
		return -1;
	const char *at = memchr(u.authority.p, '@', u.authority.n);
	p->scheme = u.scheme.p;
	p->scheme_len = u.scheme.n;
	p->authority = at ? at + 1 : u.authority.p;
	p->authority_len = u.authority.n - (size_t)(p->authority - u.authority.p);
	p->path = u.path.p;
	p->path_len = u.path.n + (u.query.set ? u.query.n + 1 : 0);
	return p->authority_len ? 0 : -1;
}

int shb_url_ref_host_port(const char *auth, size_t len, const char **host,
			  size_t *host_len, unsigned *port)
{
	size_t end = len;
	const char *colon = NULL;

	*port = 0;
	if (len && auth[0] == '[') {
		const char *rb = memchr(auth, ']', len);
		if (!rb)
			return -1;
		*host = auth + 1;
		*host_len = (size_t)(rb - auth) - 1;
		if (rb + 1 < auth + len) {
			if (rb[1] != ':')
				return -1;
			colon = rb + 1;
		}
	} else {
		colon = memchr(auth, ':', len);
		*host = auth;
		*host_len = colon ? (size_t)(colon - auth) : len;
	}
	if (!colon || colon + 1 == auth + end)
		return 0; /* "host:" is the default port (RFC 3986 3.2.3) */
	unsigned v = 0;
	for (const char *q = colon + 1; q < auth + end; q++) {
		if (*q < '0' || *q > '9' || v > 6553)
			return -1;
		v = v * 10 + (unsigned)(*q - '0');
	}
	if (v == 0 || v > 65535)
		return -1;
	*port = v;
	return 0;
}
