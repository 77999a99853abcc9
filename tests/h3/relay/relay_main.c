/* shb-udp-relay: a seeded lossy UDP relay for the HTTP/3 end-to-end tests.
 *
 * Each client address (4-tuple) that sends to the listening socket gets a
 * session with its own connected upstream socket; datagrams are forwarded
 * both ways, each direction through the impairments of relay_impair.h.
 * A held (reordered) datagram is released right after the next datagram of
 * its flow is sent, or when its timer expires, whichever comes first.
 * One libevent loop, no threads. */
#include "relay_impair.h"
#include "relay_opts.h"
#include "relay_rng.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#define PROG "shb-udp-relay"
/* Larger than any UDP payload (65527 on IPv6 without jumbograms), so a
 * datagram can never be truncated on receive. */
#define DGRAM_MAX 65536
#define HASH_BUCKETS 4096
/* Datagrams read per readiness event before yielding to other sockets. */
#define READ_BATCH 256
#define SOCKBUF_BYTES (4 << 20)

struct dir_stats {
	uint64_t in, out, dropped, duplicated, reordered, send_errors;
};

struct relay;

/* One direction of one session. */
struct flow {
	struct shb_relay_rng rng;
	uint64_t index;   /* datagrams seen so far in this flow */
	uint8_t *held;    /* the held datagram, or NULL */
	size_t held_len;
	struct event *timer;
	struct session *s;
	enum shb_relay_dir dir;
};

struct session {
	struct sockaddr_storage client;
	socklen_t client_len;
	int up_fd;
	struct event *up_ev;
	struct flow flow[2];
	struct session *next; /* hash chain */
	struct relay *r;
};

struct relay {
	struct shb_relay_opts o;
	struct event_base *base;
	int listen_fd;
	struct event *listen_ev;
	struct sockaddr_storage upstream;
	socklen_t upstream_len;
	struct session *buckets[HASH_BUCKETS];
	uint64_t sessions;
	uint64_t session_errors;
	struct dir_stats st[2];
	uint8_t buf[DGRAM_MAX];
};

/* --- addresses ---------------------------------------------------------- */

static int resolve(const char *host, uint16_t port, bool passive,
		   struct sockaddr_storage *ss, socklen_t *len)
{
	char service[8];
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_DGRAM,
				  .ai_flags = passive ? AI_PASSIVE | AI_NUMERICHOST : 0 };
	struct addrinfo *res;
	snprintf(service, sizeof(service), "%u", (unsigned)port);
	int rc = getaddrinfo(host, service, &hints, &res);
	if (rc != 0) {
		fprintf(stderr, PROG ": cannot resolve '%s': %s\n", host, gai_strerror(rc));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static uint16_t addr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static bool addr_equal(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
		return x->sin6_port == y->sin6_port &&
		       memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) == 0 &&
		       x->sin6_scope_id == y->sin6_scope_id;
	}
	const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
	return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
}

static size_t addr_hash(const struct sockaddr_storage *ss)
{
	const uint8_t *p;
	size_t n;
	if (ss->ss_family == AF_INET6) {
		p = (const uint8_t *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
		n = sizeof(struct in6_addr);
	} else {
		p = (const uint8_t *)&((const struct sockaddr_in *)ss)->sin_addr;
		n = sizeof(struct in_addr);
	}
	uint64_t h = 1469598103934665603ULL ^ addr_port(ss);
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return (size_t)(h % HASH_BUCKETS);
}

/* Big socket buffers so that a burst of thousands of datagrams is not
 * lost in the kernel, which would blur the configured loss rate. As root
 * the FORCE variants pass the system maximum. */
static void grow_buffers(int fd)
{
	int n = SOCKBUF_BYTES;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &n, sizeof(n)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &n, sizeof(n));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &n, sizeof(n)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &n, sizeof(n));
}

/* --- forwarding --------------------------------------------------------- */

static void send_one(struct flow *f, const uint8_t *p, size_t n)
{
	struct session *s = f->s;
	struct relay *r = s->r;
	ssize_t rc;
	if (f->dir == SHB_RELAY_UP)
		rc = send(s->up_fd, p, n, 0);
	else
		rc = sendto(r->listen_fd, p, n, 0, (struct sockaddr *)&s->client,
			    s->client_len);
	if (rc == (ssize_t)n)
		r->st[f->dir].out++;
	else
		r->st[f->dir].send_errors++;
}

static void release_held(struct flow *f)
{
	if (!f->held)
		return;
	evtimer_del(f->timer);
	send_one(f, f->held, f->held_len);
	free(f->held);
	f->held = NULL;
}

static void on_hold_timeout(evutil_socket_t fd, short what, void *arg)
{
	release_held(arg);
}

/* Keeps a copy of P until the next datagram of F passes or the timer
 * fires. Returns false when no copy could be made. */
static bool hold(struct flow *f, const uint8_t *p, size_t n)
{
	f->held = malloc(n ? n : 1);
	if (!f->held)
		return false;
	memcpy(f->held, p, n);
	f->held_len = n;
	uint32_t ms = f->s->r->o.reorder_delay_ms;
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
	evtimer_add(f->timer, &tv);
	return true;
}

static void flow_datagram(struct flow *f, const uint8_t *p, size_t n)
{
	struct relay *r = f->s->r;
	struct dir_stats *st = &r->st[f->dir];
	st->in++;
	unsigned d = shb_relay_impair_decide(&r->o.impair[f->dir], &f->rng, f->index++);
	if (d & SHB_RELAY_DROP) {
		st->dropped++;
		return;
	}
	if (d & SHB_RELAY_DUP)
		st->duplicated++;
	/* One datagram held per flow at a time: a second one chosen while the
	 * first is still held just passes (and so releases the first). */
	if ((d & SHB_RELAY_HOLD) && !f->held && hold(f, p, n)) {
		st->reordered++;
		if (d & SHB_RELAY_DUP)
			send_one(f, p, n); /* the copy goes ahead of the original */
		return;
	}
	send_one(f, p, n);
	if (d & SHB_RELAY_DUP)
		send_one(f, p, n);
	release_held(f);
}

/* --- sessions ----------------------------------------------------------- */

static void on_upstream(evutil_socket_t fd, short what, void *arg);

static void session_free(struct session *s)
{
	for (int d = 0; d < 2; d++) {
		if (s->flow[d].timer)
			event_free(s->flow[d].timer);
		free(s->flow[d].held);
	}
	if (s->up_ev)
		event_free(s->up_ev);
	if (s->up_fd >= 0)
		close(s->up_fd);
	free(s);
}

static struct session *session_new(struct relay *r, const struct sockaddr_storage *client,
				   socklen_t client_len)
{
	struct session *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->r = r;
	s->up_fd = -1;
	memcpy(&s->client, client, client_len);
	s->client_len = client_len;
	s->up_fd = socket(r->upstream.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->up_fd < 0 ||
	    connect(s->up_fd, (struct sockaddr *)&r->upstream, r->upstream_len) < 0) {
		fprintf(stderr, PROG ": upstream socket: %s\n", strerror(errno));
		session_free(s);
		return NULL;
	}
	grow_buffers(s->up_fd);
	s->up_ev = event_new(r->base, s->up_fd, EV_READ | EV_PERSIST, on_upstream, s);
	for (int d = 0; d < 2; d++) {
		struct flow *f = &s->flow[d];
		f->s = s;
		f->dir = (enum shb_relay_dir)d;
		/* Streams by order of arrival: the n-th client of a run gets
		 * the same decisions in every run with the same seed. */
		shb_relay_rng_init(&f->rng, r->o.seed, r->sessions * 2 + (uint64_t)d);
		f->timer = evtimer_new(r->base, on_hold_timeout, f);
	}
	if (!s->up_ev || !s->flow[0].timer || !s->flow[1].timer ||
	    event_add(s->up_ev, NULL) < 0) {
		fprintf(stderr, PROG ": cannot create session events\n");
		session_free(s);
		return NULL;
	}
	return s;
}

static struct session *session_get(struct relay *r, const struct sockaddr_storage *client,
				   socklen_t client_len)
{
	size_t b = addr_hash(client);
	for (struct session *s = r->buckets[b]; s; s = s->next)
		if (addr_equal(&s->client, client))
			return s;
	struct session *s = session_new(r, client, client_len);
	if (!s) {
		r->session_errors++;
		return NULL;
	}
	r->sessions++;
	s->next = r->buckets[b];
	r->buckets[b] = s;
	return s;
}

/* --- event handlers ----------------------------------------------------- */

static void on_listen(evutil_socket_t fd, short what, void *arg)
{
	struct relay *r = arg;
	for (int i = 0; i < READ_BATCH; i++) {
		struct sockaddr_storage from;
		socklen_t from_len = sizeof(from);
		ssize_t n = recvfrom(fd, r->buf, sizeof(r->buf), 0,
				     (struct sockaddr *)&from, &from_len);
		if (n < 0)
			return; /* EAGAIN, or an ICMP error queued on the socket */
		struct session *s = session_get(r, &from, from_len);
		if (s)
			flow_datagram(&s->flow[SHB_RELAY_UP], r->buf, (size_t)n);
	}
}

static void on_upstream(evutil_socket_t fd, short what, void *arg)
{
	struct session *s = arg;
	struct relay *r = s->r;
	for (int i = 0; i < READ_BATCH; i++) {
		ssize_t n = recv(fd, r->buf, sizeof(r->buf), 0);
		if (n < 0) {
			/* ECONNREFUSED: the upstream is not (yet) listening;
			 * the datagram that caused it is already counted as
			 * out, as a real network would. Keep going. */
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			continue;
		}
		flow_datagram(&s->flow[SHB_RELAY_DOWN], r->buf, (size_t)n);
	}
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	event_base_loopexit(arg, NULL);
}

/* --- start-up and stats ------------------------------------------------- */

/* Written under a temporary name and renamed, so a script polling for the
 * file never reads it half-written. */
static int write_file_atomic(const char *path, const char *text)
{
	size_t n = strlen(path) + 8;
	char *tmp = malloc(n);
	if (!tmp)
		return -1;
	snprintf(tmp, n, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int ok = f && fputs(text, f) >= 0;
	if (f && fclose(f) != 0)
		ok = 0;
	if (ok && rename(tmp, path) < 0)
		ok = 0;
	if (!ok) {
		fprintf(stderr, PROG ": cannot write %s: %s\n", path, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return ok ? 0 : -1;
}

static int format_dir(char *out, size_t cap, const struct dir_stats *d)
{
	return snprintf(out, cap,
			"{\"in\": %" PRIu64 ", \"out\": %" PRIu64 ", \"dropped\": %" PRIu64
			", \"duplicated\": %" PRIu64 ", \"reordered\": %" PRIu64
			", \"sendErrors\": %" PRIu64 "}",
			d->in, d->out, d->dropped, d->duplicated, d->reordered,
			d->send_errors);
}

static void format_stats(const struct relay *r, char *out, size_t cap)
{
	char up[256], down[256];
	format_dir(up, sizeof(up), &r->st[SHB_RELAY_UP]);
	format_dir(down, sizeof(down), &r->st[SHB_RELAY_DOWN]);
	snprintf(out, cap,
		 "{\"sessions\": %" PRIu64 ", \"sessionErrors\": %" PRIu64
		 ", \"up\": %s, \"down\": %s}\n",
		 r->sessions, r->session_errors, up, down);
}

static int open_listener(struct relay *r)
{
	struct sockaddr_storage ss;
	socklen_t len;
	if (resolve(r->o.listen_host, r->o.listen_port, true, &ss, &len) < 0)
		return -1;
	r->listen_fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (r->listen_fd < 0 || bind(r->listen_fd, (struct sockaddr *)&ss, len) < 0) {
		fprintf(stderr, PROG ": cannot listen on %s:%u: %s\n", r->o.listen_host,
			(unsigned)r->o.listen_port, strerror(errno));
		return -1;
	}
	grow_buffers(r->listen_fd);
	len = sizeof(ss);
	if (getsockname(r->listen_fd, (struct sockaddr *)&ss, &len) < 0)
		return -1;
	r->o.listen_port = addr_port(&ss);
	return 0;
}

/* Every session holds a socket; a load test may open thousands. */
static void raise_fd_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int run(struct relay *r)
{
	char line[64];
	if (open_listener(r) < 0 ||
	    resolve(r->o.upstream_host, r->o.upstream_port, false, &r->upstream,
		    &r->upstream_len) < 0)
		return 1;
	r->listen_ev = event_new(r->base, r->listen_fd, EV_READ | EV_PERSIST, on_listen, r);
	if (!r->listen_ev || event_add(r->listen_ev, NULL) < 0) {
		fprintf(stderr, PROG ": cannot watch the listening socket\n");
		return 1;
	}
	snprintf(line, sizeof(line), "%u\n", (unsigned)r->o.listen_port);
	if (r->o.port_file && write_file_atomic(r->o.port_file, line) < 0)
		return 1;
	printf("listening on %s%s%s:%u\n", strchr(r->o.listen_host, ':') ? "[" : "",
	       r->o.listen_host, strchr(r->o.listen_host, ':') ? "]" : "",
	       (unsigned)r->o.listen_port);
	fflush(stdout);
	event_base_dispatch(r->base);
	return 0;
}

static void relay_free(struct relay *r)
{
	for (size_t b = 0; b < HASH_BUCKETS; b++) {
		struct session *s = r->buckets[b];
		while (s) {
			struct session *next = s->next;
			session_free(s);
			s = next;
		}
	}
	if (r->listen_ev)
		event_free(r->listen_ev);
	if (r->listen_fd >= 0)
		close(r->listen_fd);
	free(r);
}

int main(int argc, char **argv)
{
	char err[320];
	struct relay *r = calloc(1, sizeof(*r));
	if (!r) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	r->listen_fd = -1;
	int prc = shb_relay_opts_parse(&r->o, argc, argv, err, sizeof(err));
	if (prc != 0) {
		if (prc < 0)
			fprintf(stderr, PROG ": %s\n%s", err, shb_relay_usage);
		else
			fputs(shb_relay_usage, stdout);
		free(r);
		return prc < 0 ? 2 : 0;
	}
	signal(SIGPIPE, SIG_IGN);
	raise_fd_limit();
	r->base = event_base_new();
	struct event *sigterm = r->base ? evsignal_new(r->base, SIGTERM, on_signal, r->base) : NULL;
	struct event *sigint = r->base ? evsignal_new(r->base, SIGINT, on_signal, r->base) : NULL;
	int rc = 1;
	if (!sigterm || !sigint || evsignal_add(sigterm, NULL) < 0 ||
	    evsignal_add(sigint, NULL) < 0)
		fprintf(stderr, PROG ": cannot set up the event loop\n");
	else
		rc = run(r);
	if (rc == 0) {
		char stats[768];
		format_stats(r, stats, sizeof(stats));
		fprintf(stderr, PROG ": %s", stats);
		if (r->o.stats_file && write_file_atomic(r->o.stats_file, stats) < 0)
			rc = 1;
	}
	if (sigterm)
		event_free(sigterm);
	if (sigint)
		event_free(sigint);
	struct event_base *base = r->base;
	relay_free(r);
	if (base)
		event_base_free(base);
	return rc;
}
