/* quic_get: fetches paths over HTTP/3 with the shb QUIC connection, on a
 * plain UDP socket and poll(), to check the connection against real
 * servers outside the load generator.
 *
 *   quic_get [-v] [-k] [-n COUNT] [-p PARALLEL] [-w WINDOW] HOST PORT PATH...
 *
 * Every path is fetched COUNT times (default 1) on one connection, at most
 * PARALLEL at once (default 8), WINDOW the connection receive window
 * (default: the connection's). For each response the status, the body
 * length and, for bodies in the test servers' "/1m" format (8-byte lines
 * "%07x\n" of their own offset), whether every byte is where it belongs.
 * Exit status 0 when every response was 200 with a well-formed body and
 * the connection closed cleanly; -k keeps the connection open (quiet) for
 * 5 more seconds after the last response, to see keepalive work. */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <shb/proto.h>

#include "h3_local.h"
#include "h3_request.h"
#include "h3_response.h"
#include "quic_conn.h"
#include "quic_conn_int.h" /* for the state dump after a time-out */

#define MAX_REQ 4096

struct req {
	int64_t id;
	const char *path;
	struct shb_h3_resp resp;
	/* DATA payload check for the "/1m" format */
	uint64_t frame_left, frame_type, body_off;
	uint8_t hdr[16];
	unsigned hdr_len;
	int in_payload;
	int bad_body;
	int done;
};

struct app {
	struct shb_quic_conn *c;
	int verbose;
	const char *host;
	char **paths;
	int npaths;
	int count;
	int parallel;
	struct shb_h3_request *prep[64];
	struct req reqs[MAX_REQ];
	int nreq, next_req, running, finished, failures;
	int closed;
	uint64_t t0;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void log_line(void *user, const char *line)
{
	struct app *a = user;

	fprintf(stderr, "[%8.3f ms] %s\n", (double)(now_ns() - a->t0) / 1e6,
		line);
}

static size_t varint(const uint8_t *p, size_t len, uint64_t *v)
{
	size_t n;

	if (!len)
		return 0;
	n = (size_t)1 << (p[0] >> 6);
	if (len < n)
		return 0;
	*v = p[0] & 0x3f;
	for (size_t i = 1; i < n; i++)
		*v = (*v << 8) | p[i];
	return n;
}

/* Checks DATA payload bytes against the "/1m" format. */
static void check_body(struct req *r, const uint8_t *d, size_t n)
{
	for (size_t i = 0; i < n; i++, r->body_off++) {
		uint64_t line = r->body_off & ~(uint64_t)7;
		char want[24];

		snprintf(want, sizeof(want), "%07llx\n", (unsigned long long)line);
		if (d[i] != (uint8_t)want[r->body_off - line])
			r->bad_body = 1;
	}
}

/* A minimal frame walker over the response stream, only to see DATA
 * payloads (the real parser, h3_response, only counts them). */
static void walk_frames(struct req *r, const uint8_t *d, size_t n)
{
	while (n) {
		if (r->in_payload) {
			size_t k = n < r->frame_left ? n : (size_t)r->frame_left;

			if (r->frame_type == 0 && !strcmp(r->path, "/1m"))
				check_body(r, d, k);
			d += k;
			n -= k;
			r->frame_left -= k;
			if (!r->frame_left)
				r->in_payload = 0;
			continue;
		}
		r->hdr[r->hdr_len++] = *d++;
		n--;
		uint64_t t, l;
		size_t a = varint(r->hdr, r->hdr_len, &t);
		size_t b = a ? varint(r->hdr + a, r->hdr_len - a, &l) : 0;

		if (a && b) {
			r->frame_type = t;
			r->frame_left = l;
			r->in_payload = l > 0;
			r->hdr_len = 0;
		} else if (r->hdr_len == sizeof(r->hdr)) {
			r->bad_body = 1;
			r->hdr_len = 0;
		}
	}
}

static void start_requests(struct app *a)
{
	while (a->next_req < a->nreq && a->running < a->parallel &&
	       shb_quic_conn_bidi_available(a->c) > 0) {
		struct req *r = &a->reqs[a->next_req];
		int pi = a->next_req % a->npaths;
		int64_t id = shb_quic_conn_bidi_open(a->c);

		if (id < 0)
			return;
		r->id = id;
		r->path = a->paths[pi];
		shb_h3_resp_init(&r->resp);
		if (shb_quic_conn_bidi_send(a->c, (uint64_t)id, a->prep[pi]->bytes,
					    a->prep[pi]->len, 1) != 0) {
			fprintf(stderr, "bidi_send failed\n");
			exit(2);
		}
		a->next_req++;
		a->running++;
	}
}

static struct req *find_req(struct app *a, uint64_t id)
{
	for (int i = 0; i < a->next_req; i++)
		if (a->reqs[i].id == (int64_t)id && !a->reqs[i].done)
			return &a->reqs[i];
	return NULL;
}

static void finish(struct app *a, struct req *r, const char *what)
{
	int ok = r->resp.status == 200 && !r->bad_body;

	r->done = 1;
	a->running--;
	a->finished++;
	if (!ok)
		a->failures++;
	if (a->verbose || !ok || a->nreq <= 16)
		printf("%s %s: status %u, body %llu bytes%s%s\n", r->path,
		       ok ? "ok" : "FAILED", r->resp.status,
		       (unsigned long long)r->resp.body_bytes,
		       r->bad_body ? ", body content wrong" : "",
		       what ? what : "");
	shb_quic_conn_stream_retire(a->c, (uint64_t)r->id, 0x10c);
}

static void on_stream_data(struct app *a, const struct shb_quic_event *ev)
{
	if ((ev->stream_id & 3) != 0)
		return; /* server uni streams: read and ignored here */
	struct req *r = find_req(a, ev->stream_id);

	if (!r)
		return;
	walk_frames(r, ev->data, ev->len);
	int rc = shb_h3_resp_feed(&r->resp, ev->data, ev->len, (int)ev->fin);

	if (rc == SHB_H3_RESP_DONE)
		finish(a, r, NULL);
	else if (rc < 0)
		finish(a, r, " (malformed response)");
}

static void on_event(void *user, const struct shb_quic_event *ev)
{
	struct app *a = user;
	uint8_t ctl[SHB_H3_LOCAL_CONTROL_MAX];
	size_t n;

	switch (ev->kind) {
	case SHB_QUIC_EV_HANDSHAKE_DONE: {
		int64_t id = shb_quic_conn_uni_open(a->c);

		n = shb_h3_local_control(ctl, sizeof(ctl), NULL, 7);
		if (id < 0 || shb_quic_conn_uni_send(a->c, (uint64_t)id, ctl, n) ||
		    (id = shb_quic_conn_uni_open(a->c)) < 0 ||
		    shb_quic_conn_uni_send(a->c, (uint64_t)id,
					   shb_h3_local_encoder_stream, 1) ||
		    (id = shb_quic_conn_uni_open(a->c)) < 0 ||
		    shb_quic_conn_uni_send(a->c, (uint64_t)id,
					   shb_h3_local_decoder_stream, 1)) {
			fprintf(stderr, "cannot open HTTP/3 streams\n");
			exit(2);
		}
		if (a->verbose)
			log_line(a, "handshake done");
		start_requests(a);
		break;
	}
	case SHB_QUIC_EV_STREAM_DATA:
		on_stream_data(a, ev);
		break;
	case SHB_QUIC_EV_STREAM_RESET: {
		struct req *r = find_req(a, ev->stream_id);

		if (r)
			finish(a, r, " (reset by the server)");
		break;
	}
	case SHB_QUIC_EV_STREAMS_AVAILABLE:
		start_requests(a);
		break;
	case SHB_QUIC_EV_CLOSED:
		a->closed = 1;
		printf("connection closed: %s\n",
		       shb_quic_conn_error_detail(a->c));
		break;
	default:
		break;
	}
}

static int open_socket(const char *host, const char *port)
{
	struct addrinfo hints = {.ai_socktype = SOCK_DGRAM}, *res, *ai;
	int fd = -1;

	if (getaddrinfo(host, port, &hints, &res) != 0) {
		fprintf(stderr, "cannot resolve %s\n", host);
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

static void flush(struct app *a, int fd, uint8_t *buf, size_t cap)
{
	for (;;) {
		size_t seg = 0;
		ptrdiff_t n = shb_quic_conn_write(a->c, buf, cap, &seg, now_ns());

		if (n <= 0)
			return;
		for (size_t off = 0; off < (size_t)n; off += seg) {
			size_t len = (size_t)n - off < seg ? (size_t)n - off : seg;

			if (send(fd, buf + off, len, 0) < 0 && errno != ECONNREFUSED)
				perror("send");
		}
		if ((size_t)n < cap)
			return;
	}
}

static int prepare(struct app *a)
{
	char err[200];

	for (int i = 0; i < a->npaths; i++) {
		struct shb_request rq = {
			.struct_size = sizeof(rq), .method = "GET",
			.scheme = "https", .authority = a->host,
			.path = a->paths[i]};

		if (shb_h3_request_encode(&rq, &a->prep[i], err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return -1;
		}
	}
	return 0;
}

/* What a stuck connection looks like from inside. */
static void dump(struct app *a)
{
	struct shb_quic_conn *c = a->c;
	struct shb_quic_conn_stats st;

	shb_quic_conn_stats(c, &st);
	fprintf(stderr,
		"state %u hs_done %u confirmed %u cwnd %llu in_flight %llu "
		"tx_data %llu/%llu rx_data %llu/%llu consumed %llu ro free "
		"%u sendq %u deadline %lld ms want_write %d\n",
		c->state, c->hs_done, c->confirmed,
		(unsigned long long)st.cwnd, (unsigned long long)st.bytes_in_flight,
		(unsigned long long)c->tx_data, (unsigned long long)c->tx_max_data,
		(unsigned long long)c->rx_data, (unsigned long long)c->rx_max_data,
		(unsigned long long)c->rx_consumed, c->ro.nfree, c->sq_len,
		(long long)((int64_t)(shb_quic_conn_deadline(c) - now_ns()) / 1000000),
		shb_quic_conn_want_write(c));
	for (uint32_t i = 0; i < c->nslots; i++) {
		struct qc_stream *s = &c->st[i];

		if (!s->used)
			continue;
		fprintf(stderr,
			"  stream %llu kind %u retired %u rx %llu/%llu max %llu "
			"final %lld done %u blocks %u | tx %llu/%llu max %llu fin "
			"%u/%u/%u inflight %u rtx %u reset %u\n",
			(unsigned long long)s->id, s->kind, s->retired,
			(unsigned long long)s->rx_off, (unsigned long long)s->rx_high,
			(unsigned long long)s->rx_max, (long long)s->rx_final,
			s->rx_done, s->ro.blocks, (unsigned long long)s->tx_next,
			(unsigned long long)s->slen, (unsigned long long)s->tx_max,
			s->fin, s->fin_sent, s->fin_acked, s->inflight, s->nrtx,
			s->reset);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: quic_get [-v] [-k] [-n COUNT] [-p PARALLEL] "
			"[-w WINDOW] HOST PORT PATH...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct app a;
	static uint8_t buf[64 * 1200], rbuf[65536];
	struct shb_quic_tls_config tcfg = {0};
	struct shb_quic_tls_ctx ctx;
	struct shb_quic_conn_config cfg = {0};
	char err[200];
	int opt, keep = 0, fd, rc;
	uint64_t linger_until = 0;

	a.count = 1;
	a.parallel = 8;
	while ((opt = getopt(argc, argv, "vkn:p:w:")) != -1) {
		if (opt == 'v')
			a.verbose = 1;
		else if (opt == 'k')
			keep = 1;
		else if (opt == 'n')
			a.count = atoi(optarg);
		else if (opt == 'p')
			a.parallel = atoi(optarg);
		else if (opt == 'w')
			cfg.conn_window = strtoull(optarg, NULL, 10);
		else
			usage();
	}
	if (argc - optind < 3 || a.count < 1 || a.parallel < 1 || a.parallel > 256)
		usage();
	a.host = argv[optind];
	a.paths = argv + optind + 2;
	a.npaths = argc - optind - 2;
	if (a.npaths > 64 || (long)a.npaths * a.count > MAX_REQ)
		usage();
	a.nreq = a.npaths * a.count;
	a.t0 = now_ns();
	if (prepare(&a) < 0 || shb_quic_tls_ctx_init(&ctx, &tcfg, err, sizeof(err))) {
		fprintf(stderr, "setup failed %s\n", err);
		return 2;
	}
	fd = open_socket(a.host, argv[optind + 1]);
	if (fd < 0)
		return 2;
	cfg.tls = &ctx;
	cfg.server_name = a.host;
	cfg.max_bidi_streams = (uint32_t)a.parallel;
	cfg.on_event = on_event;
	cfg.user = &a;
	cfg.log = a.verbose ? log_line : NULL;
	a.c = shb_quic_conn_new(&cfg, now_ns(), &rc);
	if (!a.c) {
		fprintf(stderr, "shb_quic_conn_new: %d\n", rc);
		return 2;
	}
	uint64_t give_up = now_ns() + 30000000000u;

	while (shb_quic_conn_state(a.c) != SHB_QUIC_CONN_CLOSED) {
		if (now_ns() > give_up) {
			fprintf(stderr, "TIMEOUT: %d of %d done\n", a.finished,
				a.nreq);
			dump(&a);
			break;
		}
		if (shb_quic_conn_state(a.c) == SHB_QUIC_CONN_ESTABLISHED)
			start_requests(&a);
		flush(&a, fd, buf, sizeof(buf));
		if (shb_quic_conn_state(a.c) == SHB_QUIC_CONN_CLOSED)
			break;
		if (a.finished == a.nreq && !a.closed) {
			if (keep && !linger_until)
				linger_until = now_ns() + 5000000000u;
			if (!keep || now_ns() >= linger_until) {
				shb_quic_conn_close(a.c, 0x100, NULL, now_ns());
				continue;
			}
		}
		uint64_t d = shb_quic_conn_deadline(a.c), t = now_ns();
		int wait = d == UINT64_MAX ? 1000 : d <= t ? 0 : (int)((d - t) / 1000000u + 1);
		struct pollfd p = {.fd = fd, .events = POLLIN};

		if (wait > 1000)
			wait = 1000;
		if (poll(&p, 1, wait) > 0) {
			ssize_t n;

			while ((n = recv(fd, rbuf, sizeof(rbuf), MSG_DONTWAIT)) >= 0)
				shb_quic_conn_recv(a.c, rbuf, (size_t)n, now_ns());
		}
		if (now_ns() >= shb_quic_conn_deadline(a.c))
			shb_quic_conn_on_timeout(a.c, now_ns());
	}
	struct shb_quic_conn_stats st;

	shb_quic_conn_stats(a.c, &st);
	printf("%d/%d ok in %.1f ms; packets sent %llu received %llu lost %llu, "
	       "PTOs %llu, rtt %.3f ms, key updates %llu\n",
	       a.finished - a.failures, a.nreq, (double)(now_ns() - a.t0) / 1e6,
	       (unsigned long long)st.packets_sent,
	       (unsigned long long)st.packets_received,
	       (unsigned long long)st.packets_lost,
	       (unsigned long long)st.pto_count, (double)st.smoothed_rtt / 1e6,
	       (unsigned long long)st.key_updates);
	const struct shb_quic_close_info *ci = shb_quic_conn_close_info(a.c);
	int clean = ci->origin == SHB_QUIC_CLOSE_LOCAL;

	shb_quic_conn_free(a.c);
	for (int i = 0; i < a.npaths; i++)
		shb_h3_request_free(a.prep[i]);
	shb_quic_tls_ctx_deinit(&ctx);
	close(fd);
	return a.failures == 0 && a.finished == a.nreq && clean ? 0 : 1;
}
