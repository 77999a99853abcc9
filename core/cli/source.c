/* --source: parsing the local address set, and binding to one of it. */
#include "cli/source.h"
#include "common/quote.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One address as typed: its family and bytes in network order. */
struct raw {
	int family;
	uint8_t b[16];
	size_t n; /* 4 or 16 */
};

static int parse_one(const char *p, size_t len, struct raw *r)
{
	char buf[INET6_ADDRSTRLEN + 2];

	if (len >= 2 && p[0] == '[' && p[len - 1] == ']') {
		p++;
		len -= 2;
	}
	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, p, len);
	buf[len] = '\0';
	if (inet_pton(AF_INET, buf, r->b) == 1) {
		r->family = AF_INET;
		r->n = 4;
	} else if (inet_pton(AF_INET6, buf, r->b) == 1) {
		r->family = AF_INET6;
		r->n = 16;
	} else {
		return -1;
	}
	static const uint8_t zero[16];
	return memcmp(r->b, zero, r->n) == 0 ? -2 : 0;
}

/* Adds one to a big-endian number. */
static void increment(uint8_t *b, size_t n)
{
	while (n-- > 0 && ++b[n] == 0)
		;
}

static int add(struct shb_source *s, const struct raw *r, char *err, size_t errlen)
{
	char text[INET6_ADDRSTRLEN];

	for (uint32_t i = 0; i < s->count; i++) {
		const uint8_t *have = s->family == AF_INET ?
			(const uint8_t *)&s->addr[i].v4.sin_addr :
			(const uint8_t *)&s->addr[i].v6.sin6_addr;
		if (memcmp(have, r->b, r->n) == 0) {
			inet_ntop(r->family, r->b, text, sizeof(text));
			snprintf(err, errlen, "--source: %s is given twice", text);
			return -1;
		}
	}
	if (s->count == SHB_SOURCE_MAX) {
		snprintf(err, errlen, "--source holds more than %u addresses", SHB_SOURCE_MAX);
		return -1;
	}
	union shb_source_addr *a = &s->addr[s->count++];
	memset(a, 0, sizeof(*a));
	if (r->family == AF_INET) {
		a->v4.sin_family = AF_INET;
		memcpy(&a->v4.sin_addr, r->b, 4);
	} else {
		a->v6.sin6_family = AF_INET6;
		memcpy(&a->v6.sin6_addr, r->b, 16);
	}
	return 0;
}

/* One comma-separated item: an address or FROM-TO. */
static int parse_item(struct shb_source *s, const char *p, size_t len,
		      char *err, size_t errlen)
{
	const char *dash = memchr(p, '-', len);
	struct raw from, to;
	size_t flen = dash ? (size_t)(dash - p) : len;
	int r;

	if ((r = parse_one(p, flen, &from)) < 0 ||
	    (dash && (r = parse_one(dash + 1, len - flen - 1, &to)) < 0)) {
		snprintf(err, errlen, r == -2 ?
			 "--source \"%s\": the unspecified address is not a source" :
			 "--source \"%s\" is not an IPv4 or IPv6 address or "
			 "range (ADDR, ADDR-ADDR, or a comma-separated list)",
			 shb_quote_n(p, len).s);
		return -1;
	}
	if (!dash)
		to = from;
	if (s->count == 0)
		s->family = from.family;
	if (from.family != s->family || to.family != s->family) {
		snprintf(err, errlen, "--source mixes IPv4 and IPv6 addresses: give one family");
		return -1;
	}
	if (memcmp(from.b, to.b, from.n) > 0) {
		snprintf(err, errlen, "--source \"%s\": the range ends below its start",
			 shb_quote_n(p, len).s);
		return -1;
	}
	for (;;) {
		if (add(s, &from, err, errlen) < 0)
			return -1;
		if (memcmp(from.b, to.b, from.n) == 0)
			return 0;
		increment(from.b, from.n);
	}
}

struct shb_source *shb_source_parse(const char *spec, char *err, size_t errlen)
{
	struct shb_source *s = calloc(1, sizeof(*s) + SHB_SOURCE_MAX * sizeof(s->addr[0]));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	const char *p = spec;
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (parse_item(s, p, len, err, errlen) < 0) {
			free(s);
			return NULL;
		}
		if (!end)
			break;
		p = end + 1;
	}
	s->len = s->family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	return s;
}

int shb_source_bind(int fd, const struct shb_source *s,
		    const union shb_source_addr *a, int stream)
{
	int one = 1;
	if (stream)
		(void)setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
	return bind(fd, &a->sa, s->len) < 0 ? -errno : 0;
}

void shb_source_text(const struct shb_source *s,
		     const union shb_source_addr *a, char *buf, size_t len)
{
	const void *p = s->family == AF_INET ? (const void *)&a->v4.sin_addr :
					      (const void *)&a->v6.sin6_addr;
	if (!inet_ntop(s->family, p, buf, (socklen_t)len) && len)
		buf[0] = '\0';
}

int shb_source_check_local(const struct shb_source *s, int stream, char *err,
			   size_t errlen)
{
	for (uint32_t i = 0; i < s->count; i++) {
		int fd = socket(s->family, (stream ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			snprintf(err, errlen, "--source: socket: %s", strerror(errno));
			return -1;
		}
		int r = shb_source_bind(fd, s, &s->addr[i], stream);
		close(fd);
		if (r < 0) {
			char text[INET6_ADDRSTRLEN];
			shb_source_text(s, &s->addr[i], text, sizeof(text));
			snprintf(err, errlen, "--source: cannot bind to %s (%s)%s", text,
				 strerror(-r), r == -EADDRNOTAVAIL ?
				 ": not an address of this machine" : "");
			return -1;
		}
	}
	return 0;
}

void shb_source_free(struct shb_source *s)
{
	free(s);
}
