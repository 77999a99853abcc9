/* One remote-write POST over plain HTTP/1.1 (prom_push.h): a non-blocking
 * socket driven with poll() against one deadline, so that a receiver that
 * is down, slow or silent costs at most the timeout. */
#include "prom_push.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/quote.h"
#include "prom_wire.h"

static int fail_url(char *err, size_t errlen, const char *url, const char *why)
{
	return shb_quote_fail(err, errlen, "url", url, "%s", why);
}

/* HOST of "HOST[:PORT]" or "[V6][:PORT]" into host, PORT into port. */
static int split_authority(const char *a, size_t n, char *host, size_t hlen,
			   char *port, size_t plen)
{
	const char *colon;
	size_t hn;
	if (n > 0 && a[0] == '[') {
		const char *end = memchr(a, ']', n);
		if (!end)
			return -1;
		hn = (size_t)(end - a - 1);
		memcpy(host, a + 1, hn < hlen ? hn : 0);
		colon = end + 1 < a + n ? end + 1 : NULL;
		if (colon && *colon != ':')
			return -1;
	} else {
		colon = memchr(a, ':', n);
		hn = colon ? (size_t)(colon - a) : n;
		memcpy(host, a, hn < hlen ? hn : 0);
	}
	if (hn == 0 || hn >= hlen)
		return -1;
	host[hn] = '\0';
	size_t pn = colon ? (size_t)(a + n - colon - 1) : 0;
	if (colon && (pn == 0 || pn >= plen || strspn(colon + 1, "0123456789") < pn))
		return -1;
	snprintf(port, plen, "%.*s", colon ? (int)pn : 2, colon ? colon + 1 : "80");
	return 0;
}

int shb_prom_target_parse(const char *url, struct shb_prom_target *t,
			  char *err, size_t errlen)
{
	static const char scheme[] = "http://";
	char host[256], port[8];
	memset(t, 0, sizeof(*t));
	if (strlen(url) >= sizeof(t->url))
		return fail_url(err, errlen, url, "longer than 511 bytes");
	if (strncmp(url, scheme, sizeof(scheme) - 1) != 0)
		return fail_url(err, errlen, url, "expected http://HOST[:PORT][/PATH] "
				"(plain HTTP: put a TLS proxy in front for https)");
	snprintf(t->url, sizeof(t->url), "%s", url);
	const char *a = url + sizeof(scheme) - 1;
	size_t an = strcspn(a, "/?#");
	if (a[an] == '?' || strpbrk(a, "# \t\r\n"))
		return fail_url(err, errlen, url, "no fragment or spaces, and a "
				"query only after a path");
	if (split_authority(a, an, host, sizeof(host), port, sizeof(port)) < 0 ||
	    atoi(port) < 1 || atoi(port) > 65535)
		return fail_url(err, errlen, url, "expected HOST[:PORT] after http://");
	snprintf(t->hostport, sizeof(t->hostport), "%.*s", (int)an, a);
	snprintf(t->path, sizeof(t->path), "%s", a[an] ? a + an : "/api/v1/write");
	struct addrinfo hints = {0}, *res = NULL;
	hints.ai_socktype = SOCK_STREAM;
	int rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0 || !res)
		return shb_quote_fail(err, errlen, "url", url,
				      "cannot resolve %s: %s", host, gai_strerror(rc));
	for (const struct addrinfo *ai = res; ai && t->naddr < SHB_PROM_ADDRS;
	     ai = ai->ai_next) {
		if (ai->ai_addrlen > sizeof(t->addr[0]))
			continue;
		memcpy(&t->addr[t->naddr], ai->ai_addr, ai->ai_addrlen);
		t->addrlen[t->naddr++] = ai->ai_addrlen;
	}
	freeaddrinfo(res);
	if (!t->naddr)
		return shb_quote_fail(err, errlen, "url", url,
				      "cannot resolve %s: no usable address", host);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Waits for `events` on fd until the deadline: 1 ready, 0 timed out,
 * -1 poll failed. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	for (;;) {
		uint64_t now = mono_ns();
		if (now >= deadline)
			return 0;
		uint64_t ms = (deadline - now + 999999) / 1000000;
		struct pollfd pfd = {fd, events, 0};
		int n = poll(&pfd, 1, ms > 60000 ? 60000 : (int)ms);
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return -1;
	}
}

struct post {
	int fd;
	uint64_t deadline;
	char *why;
	size_t whylen;
};

static int fail(struct post *x, int kind, const char *what, int e)
{
	if (kind == SHB_PROM_FAIL_TIMEOUT)
		snprintf(x->why, x->whylen, "no answer within the timeout (%s)", what);
	else
		snprintf(x->why, x->whylen, "%s: %s", what, strerror(e));
	return kind;
}

static int connect_one(struct post *x, const struct sockaddr_storage *a,
		       socklen_t alen)
{
	x->fd = socket(a->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (x->fd < 0)
		return fail(x, SHB_PROM_FAIL_CONNECT, "socket", errno);
	if (connect(x->fd, (const struct sockaddr *)a, alen) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return fail(x, SHB_PROM_FAIL_CONNECT, "connect", errno);
	int w = wait_fd(x->fd, POLLOUT, x->deadline);
	if (w <= 0)
		return w == 0 ? fail(x, SHB_PROM_FAIL_TIMEOUT, "connect", 0) :
				fail(x, SHB_PROM_FAIL_IO, "poll", errno);
	int e = 0;
	socklen_t el = sizeof(e);
	if (getsockopt(x->fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
		e = errno;
	return e ? fail(x, SHB_PROM_FAIL_CONNECT, "connect", e) : 0;
}

/* The target's addresses in turn, while they fail at once and the
 * deadline has not passed (a timeout used it up). */
static int do_connect(struct post *x, const struct shb_prom_target *t)
{
	int rc = SHB_PROM_FAIL_CONNECT;
	for (unsigned i = 0; i < t->naddr; i++) {
		rc = connect_one(x, &t->addr[i], t->addrlen[i]);
		if (rc != SHB_PROM_FAIL_CONNECT)
			return rc;
		if (x->fd >= 0)
			close(x->fd);
		x->fd = -1;
	}
	return rc;
}

static int send_all(struct post *x, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n > 0) {
		ssize_t k = send(x->fd, b, n, MSG_NOSIGNAL);
		if (k > 0) {
			b += k;
			n -= (size_t)k;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return fail(x, SHB_PROM_FAIL_IO, "send", errno);
		int w = wait_fd(x->fd, POLLOUT, x->deadline);
		if (w <= 0)
			return w == 0 ? fail(x, SHB_PROM_FAIL_TIMEOUT, "send", 0) :
					fail(x, SHB_PROM_FAIL_IO, "poll", errno);
	}
	return 0;
}

/* A 2xx whose head is complete: nothing after it matters, however long
 * the receiver keeps the connection (it may ignore Connection: close). */
static int accepted(const char *buf, size_t got)
{
	int status = 0;
	for (size_t i = 0; i + 3 < got; i++)
		if (memcmp(buf + i, "\r\n\r\n", 4) == 0)
			return shb_prom_status(buf, got, &status) == 1 &&
			       status >= 200 && status <= 299;
	return 0;
}

/* Reads the answer until the peer closes, the cap, the deadline, or a
 * 2xx head; another status's body is read on for its reason. */
static int read_answer(struct post *x, char *buf, size_t cap, size_t *got)
{
	*got = 0;
	while (*got < cap && !accepted(buf, *got)) {
		ssize_t k = recv(x->fd, buf + *got, cap - *got, 0);
		if (k == 0)
			return 0;
		if (k > 0) {
			*got += (size_t)k;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return *got ? 0 : fail(x, SHB_PROM_FAIL_IO, "recv", errno);
		int w = wait_fd(x->fd, POLLIN, x->deadline);
		if (w < 0)
			return fail(x, SHB_PROM_FAIL_IO, "poll", errno);
		if (w == 0) /* a status line in time is an answer */
			return *got ? 0 : fail(x, SHB_PROM_FAIL_TIMEOUT, "answer", 0);
	}
	return 0;
}

static int judge(struct post *x, const char *buf, size_t got)
{
	int status = shb_prom_answer(buf, got, x->why, x->whylen);
	if (status < 0)
		return SHB_PROM_FAIL_ANSWER;
	return status >= 200 && status <= 299 ? 0 : SHB_PROM_FAIL_STATUS;
}

int shb_prom_post(const struct shb_prom_target *t, const uint8_t *body,
		  size_t len, uint64_t timeout_ns, char *why, size_t whylen)
{
	struct post x = {-1, mono_ns() + timeout_ns, why, whylen};
	char head[1200], answer[SHB_PROM_ANSWER_MAX];
	int hn = snprintf(head, sizeof(head),
			  "POST %s HTTP/1.1\r\nHost: %s\r\n"
			  "Content-Type: application/x-protobuf\r\n"
			  "Content-Encoding: snappy\r\n"
			  "X-Prometheus-Remote-Write-Version: 0.1.0\r\n"
			  "User-Agent: shb\r\nContent-Length: %zu\r\n"
			  "Connection: close\r\n\r\n", t->path, t->hostport, len);
	size_t got = 0;
	int rc = do_connect(&x, t);
	if (rc == 0)
		rc = send_all(&x, head, (size_t)hn);
	if (rc == 0)
		rc = send_all(&x, body, len);
	if (rc == 0)
		rc = read_answer(&x, answer, sizeof(answer), &got);
	if (rc == 0)
		rc = judge(&x, answer, got);
	if (x.fd >= 0)
		close(x.fd);
	return rc;
}
