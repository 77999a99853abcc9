/* The floor of an HTTP load generator: the least a client can do for the
 * work shb, wrk and h2load do, so that their CPU per request can be read
 * as multiples of it (bench/run.sh, bench/h2.sh). No latency, no parsing,
 * no reconnects. See bench/README.md.
 *
 * HTTP/1.1: the request bytes are built once; responses are counted by
 * bytes against the response size learnt from two requests before the
 * run. Where a response should begin the bytes must read "HTTP/1.1 2",
 * else the run stops: a response of another size is never miscounted.
 * h2c (prior knowledge): preface, SETTINGS (stream window 2^31-1) and a
 * WINDOW_UPDATE to 2^31-1 once, then pre-encoded HEADERS frames with the
 * stream id patched in; responses are counted by END_STREAM on DATA or
 * HEADERS in a walk of frame headers; SETTINGS and PING are acknowledged
 * and the connection window replenished, so the run cannot stall.
 *
 * Per thread one io_uring: registered files, a multishot recv per
 * connection into a provided-buffer ring, one send in flight per
 * connection, and, as shb does in closed loop, waits for a batch of
 * completions (a quarter of the connections, at most 8, over HTTP/1.1;
 * one per connection, at most 32, over HTTP/2) of at most 500 µs.
 * Prints requests, seconds, req/s and its CPU (getrusage user + sys);
 * with --warmup S also the same over the load but its first S seconds,
 * set-up and exit left out (floor_report.h).
 * Built only when asked: ninja -C BUILD bench/http_floor. Loopback only. */
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "floor_opts.h"
#include "floor_report.h"

#define BUF_SIZE 16384		/* one provided receive buffer */
#define BGID 7			/* the buffer group of every ring */
#define ACKS_PER_SEND 8		/* SETTINGS acks written per send */
#define MAX_ACKS_OWED 1024	/* more unanswered SETTINGS kill the connection */
#define H2_WINDOW 0x7fffffffu	/* the largest window HTTP/2 allows */
#define H2_REFILL (1u << 30)	/* replenish the connection window past this */

enum { OP_RECV = 1, OP_SEND, OP_TIMEOUT };
enum { F_DATA = 0, F_HEADERS = 1, F_RST = 3, F_SETTINGS = 4, F_PING = 6, F_GOAWAY = 7 };

static uint8_t *reqs;		/* HTTP/1.1: depth copies of the request */
static size_t req_len;		/* HTTP/1.1 request or HTTP/2 HEADERS frame */
static size_t resp_size;	/* HTTP/1.1 response, head and body */
static uint8_t h2_hdr[9 + 1300]; /* HTTP/2: the HEADERS frame, stream id 0 */
static pthread_barrier_t barrier;

struct conn {
	int slot, dead;
	uint32_t pending;	/* responses completed, requests not yet re-sent */
	int sending, queued;
	const uint8_t *sbuf;
	size_t slen, soff;
	size_t off;		/* HTTP/1.1: bytes into the current response */
	/* HTTP/2 */
	uint8_t *out;
	uint32_t next_id, skip, flen, fh_have, ctl_have, acks, goaway;
	uint8_t fh[9], ftype, fflags, ping[8];
	int ping_owed, started;
	uint64_t consumed;	/* DATA bytes since the last connection WINDOW_UPDATE */
};

struct worker {
	pthread_t th;
	int n, stop, nbufs, nready, lost;
	struct io_uring ring;
	struct conn *c;
	int *ready;		/* connections with something to send */
	uint8_t *bufs;
	struct io_uring_buf_ring *br;
	int returned;		/* buffers given back, not yet published */
	struct __kernel_timespec ts;
	uint64_t done, errors;
	double secs;
	char why[160];		/* a fatal condition of this worker */
	struct floor_mark warm, end;	/* --warmup: the measured window */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- requests, encoded once ------------------------------------------- */

static uint8_t *put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
	return p + 4;
}

/* A frame header: 24-bit length, type, flags, stream id. */
static uint8_t *put_frame(uint8_t *p, uint32_t len, uint8_t type, uint8_t flags, uint32_t id)
{
	put_u32(p, len << 8);
	p[3] = type;
	p[4] = flags;
	return put_u32(p + 5, id);
}

static void build_h1(void)
{
	char one[1400];
	int n = snprintf(one, sizeof(one), "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", o.path, o.authority);

	req_len = (size_t)n;
	reqs = malloc(req_len * (size_t)o.depth);
	if (!reqs)
		exit(1);
	for (int i = 0; i < o.depth; i++)
		memcpy(reqs + (size_t)i * req_len, one, req_len);
}

/* A literal field without indexing whose name is static-table entry idx
 * (RFC 7541 6.2.2), value not Huffman-coded, lengths below 127 or with
 * the one-octet continuation the sizes here need. */
static size_t hpack_literal(uint8_t *p, unsigned idx, const char *v)
{
	size_t len = strlen(v), k = 0;

	p[k++] = (uint8_t)idx;	/* 0000xxxx, idx < 15 */
	if (len < 127) {
		p[k++] = (uint8_t)len;
	} else {
		p[k++] = 127;
		size_t rest = len - 127;
		while (rest >= 128) {
			p[k++] = (uint8_t)(0x80 | (rest & 0x7f));
			rest >>= 7;
		}
		p[k++] = (uint8_t)rest;
	}
	memcpy(p + k, v, len);
	return k + len;
}

/* :method GET (2), :scheme http (6), :path (4 when "/", else a literal
 * with name 4), :authority (literal with name 1). */
static void build_h2(void)
{
	uint8_t *b = h2_hdr + 9;
	size_t n = 0;

	b[n++] = 0x82;
	b[n++] = 0x86;
	if (!strcmp(o.path, "/"))
		b[n++] = 0x84;
	else
		n += hpack_literal(b + n, 4, o.path);
	n += hpack_literal(b + n, 1, o.authority);
	put_frame(h2_hdr, (uint32_t)n, F_HEADERS, 0x5, 0);	/* END_STREAM | END_HEADERS */
	req_len = 9 + n;
}

/* ---- HTTP/1.1: the response size, from two requests -------------------- */

static int dial(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0 || connect(fd, (struct sockaddr *)&o.addr, sizeof(o.addr))) {
		fprintf(stderr, "http_floor: connect to %s: %s\n", o.authority, strerror(errno));
		exit(1);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static void probe_fail(const char *why)
{
	fprintf(stderr, "http_floor: the probe request to %s: %s\n", o.authority, why);
	exit(1);
}

/* One request and its whole response; returns the response's size. */
static size_t probe_one(int fd)
{
	static char buf[65536];
	size_t have = 0, head = 0, body = 0;
	char *end = NULL, *cl = NULL;

	if (send(fd, reqs, req_len, MSG_NOSIGNAL) != (ssize_t)req_len)
		probe_fail("send failed");
	while (!end) {
		ssize_t r = recv(fd, buf + have, sizeof(buf) - 1 - have, 0);
		if (r <= 0)
			probe_fail(r ? strerror(errno) : "the server closed the connection");
		have += (size_t)r;
		buf[have] = 0;
		end = strstr(buf, "\r\n\r\n");
		if (!end && have >= sizeof(buf) - 1)
			probe_fail("no end of the response head in 64 KiB");
	}
	head = (size_t)(end - buf) + 4;
	if (strncmp(buf, "HTTP/1.1 2", 10))
		probe_fail("the response's status is not 2xx");
	for (char *l = strstr(buf, "\r\n"); l && l < end; l = strstr(l + 2, "\r\n"))
		if (!strncasecmp(l + 2, "content-length:", 15))
			body = strtoul(l + 17, &cl, 10);
	if (!cl)
		probe_fail("the response has no Content-Length (a chunked one cannot be counted by size)");
	for (size_t got = have - head; got < body;) {
		ssize_t r = recv(fd, buf, sizeof(buf), 0);
		if (r <= 0)
			probe_fail("the body did not arrive");
		got += (size_t)r;
	}
	return head + body;
}

static void probe_h1(void)
{
	struct timeval tv = { .tv_sec = 5 };
	int fd = dial();
	size_t a, b;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	a = probe_one(fd);
	b = probe_one(fd);
	close(fd);
	if (a != b) {
		fprintf(stderr, "http_floor: two responses of %zu and %zu bytes: the floor counts responses"
			" by a fixed size\n", a, b);
		exit(1);
	}
	resp_size = a;
}

/* ---- the ring ---------------------------------------------------------- */

static struct io_uring_sqe *sqe_get(struct worker *w)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&w->ring);

	if (!s) {
		io_uring_submit(&w->ring);
		s = io_uring_get_sqe(&w->ring);
	}
	return s;
}

static void arm_recv(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *s = sqe_get(w);

	io_uring_prep_recv_multishot(s, c->slot, NULL, 0, 0);
	s->flags |= IOSQE_FIXED_FILE | IOSQE_BUFFER_SELECT;
	s->buf_group = BGID;
	io_uring_sqe_set_data64(s, ((uint64_t)OP_RECV << 32) | (uint64_t)c->slot);
}

static void submit_send(struct worker *w, struct conn *c)
{
	struct io_uring_sqe *s = sqe_get(w);

	io_uring_prep_send(s, c->slot, c->sbuf + c->soff, c->slen - c->soff, MSG_NOSIGNAL);
	s->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(s, ((uint64_t)OP_SEND << 32) | (uint64_t)c->slot);
	c->sending = 1;
}

/* DEFER_TASKRUN where the kernel has it, then less, then nothing. */
static int ring_init(struct worker *w)
{
	static const unsigned tries[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_COOP_TASKRUN,
		IORING_SETUP_COOP_TASKRUN, 0,
	};
	unsigned entries = 64;
	int rc = -1;

	while (entries < (unsigned)(2 * w->n + 8) && entries < 32768)
		entries <<= 1;
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]) && rc < 0; i++) {
		/* CLAMP: past 16384 entries 4x is above the largest CQ. */
		struct io_uring_params p = { .flags = tries[i] | IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP,
					     .cq_entries = 4 * entries };
		rc = io_uring_queue_init_params(entries, &w->ring, &p);
	}
	if (rc < 0) {
		snprintf(w->why, sizeof(w->why), "io_uring_queue_init: %s", strerror(-rc));
		return -1;
	}
	io_uring_register_ring_fd(&w->ring);
	return 0;
}

/* A provided-buffer ring (liburing 2.3 has no io_uring_setup_buf_ring). */
static int bufs_init(struct worker *w)
{
	struct io_uring_buf_reg reg = { 0 };
	size_t rsz;
	int rc;

	w->nbufs = 64;
	while (w->nbufs < 2 * w->n && w->nbufs < 4096)
		w->nbufs <<= 1;
	rsz = (size_t)w->nbufs * sizeof(struct io_uring_buf);
	w->br = mmap(NULL, rsz, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	w->bufs = malloc((size_t)w->nbufs * BUF_SIZE);
	if (w->br == MAP_FAILED || !w->bufs) {
		snprintf(w->why, sizeof(w->why), "out of memory for receive buffers");
		return -1;
	}
	reg.ring_addr = (uint64_t)(uintptr_t)w->br;
	reg.ring_entries = (uint32_t)w->nbufs;
	reg.bgid = BGID;
	rc = io_uring_register_buf_ring(&w->ring, &reg, 0);
	if (rc) {
		snprintf(w->why, sizeof(w->why), "io_uring_register_buf_ring: %s", strerror(-rc));
		return -1;
	}
	io_uring_buf_ring_init(w->br);
	for (int i = 0; i < w->nbufs; i++)
		io_uring_buf_ring_add(w->br, w->bufs + (size_t)i * BUF_SIZE, BUF_SIZE, (unsigned short)i,
				      io_uring_buf_ring_mask((uint32_t)w->nbufs), i);
	io_uring_buf_ring_advance(w->br, w->nbufs);
	return 0;
}

static void buf_return(struct worker *w, unsigned bid)
{
	io_uring_buf_ring_add(w->br, w->bufs + (size_t)bid * BUF_SIZE, BUF_SIZE, (unsigned short)bid,
			      io_uring_buf_ring_mask((uint32_t)w->nbufs), w->returned++);
}

static void mark_ready(struct worker *w, struct conn *c)
{
	if (!c->queued && !c->dead) {
		c->queued = 1;
		w->ready[w->nready++] = c->slot;
	}
}

static void conn_lost(struct worker *w, struct conn *c)
{
	if (!c->dead) {
		c->dead = 1;
		w->errors++;
		w->lost++;
	}
}

/* ---- HTTP/2: the frame-header walk and what it owes ------------------- */

/* What a frame means to the floor, once all of it has been seen. */
static void h2_frame_end(struct worker *w, struct conn *c)
{
	switch (c->ftype) {
	case F_DATA:
	case F_HEADERS:
		if (c->fflags & 0x1) {	/* END_STREAM: a response is complete */
			c->pending++;
			w->done += !w->stop;
		}
		break;
	case F_RST:
		c->pending++;	/* the stream is over: its slot is free again */
		w->errors++;
		break;
	case F_SETTINGS:
		if (!(c->fflags & 0x1) && ++c->acks > MAX_ACKS_OWED)
			conn_lost(w, c);
		break;
	case F_PING: c->ping_owed |= !(c->fflags & 0x1) && c->ctl_have == 8; break;
	case F_GOAWAY: c->goaway = 1; break;
	}
}

/* Walks the frames in p[0..n) with the state kept in c: frame headers may
 * be split between receives, payloads are skipped (a PING's 8 bytes
 * kept). Nothing grows with what the peer sends. */
static void h2_walk(struct worker *w, struct conn *c, const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		if (c->skip) {
			size_t take = n - i < c->skip ? n - i : c->skip;
			if (c->ftype == F_PING)
				for (size_t k = 0; k < take && c->ctl_have < 8; k++)
					c->ping[c->ctl_have++] = p[i + k];
			i += take;
			c->skip -= (uint32_t)take;
			if (!c->skip)
				h2_frame_end(w, c);
			continue;
		}
		size_t take = 9 - c->fh_have < n - i ? 9 - c->fh_have : n - i;
		memcpy(c->fh + c->fh_have, p + i, take);
		i += take;
		c->fh_have += (uint32_t)take;
		if (c->fh_have < 9)
			break;
		c->fh_have = 0;
		c->flen = (uint32_t)c->fh[0] << 16 | (uint32_t)c->fh[1] << 8 | c->fh[2];
		c->ftype = c->fh[3];
		c->fflags = c->fh[4];
		c->ctl_have = 0;
		if (c->ftype == F_DATA)
			c->consumed += c->flen;
		c->skip = c->flen;
		if (!c->skip)
			h2_frame_end(w, c);
	}
}

/* The first bytes of a connection: preface, SETTINGS (ENABLE_PUSH 0,
 * INITIAL_WINDOW_SIZE 2^31-1), the connection window raised to 2^31-1. */
static uint8_t *h2_start(uint8_t *p)
{
	static const uint8_t settings[12] = { 0, 2, 0, 0, 0, 0, 0, 4, 0x7f, 0xff, 0xff, 0xff };

	memcpy(p, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 24);
	p = put_frame(p + 24, 12, F_SETTINGS, 0, 0);
	memcpy(p, settings, 12);
	p = put_frame(p + 12, 4, 8, 0, 0);
	return put_u32(p, H2_WINDOW - 65535);
}

/* Fills c->out with what is owed (control frames, then one HEADERS frame
 * per pending request) and sends it. */
static void h2_flush(struct worker *w, struct conn *c)
{
	uint8_t *p = c->out;
	uint32_t k;

	if (!c->started) {
		p = h2_start(p);
		c->started = 1;
	}
	for (k = 0; c->acks && k < ACKS_PER_SEND; k++, c->acks--)
		p = put_frame(p, 0, F_SETTINGS, 0x1, 0);
	if (c->ping_owed) {
		p = put_frame(p, 8, F_PING, 0x1, 0);
		memcpy(p, c->ping, 8);
		p += 8;
		c->ping_owed = 0;
	}
	if (c->consumed >= H2_REFILL) {
		p = put_frame(p, 4, 8, 0, 0);
		p = put_u32(p, (uint32_t)c->consumed);
		c->consumed = 0;
	}
	for (; c->pending && !c->goaway && c->next_id <= 0x7fffffff; c->pending--, c->next_id += 2) {
		memcpy(p, h2_hdr, req_len);
		put_u32(p + 5, c->next_id);
		p += req_len;
	}
	if (p == c->out)
		return;
	c->sbuf = c->out;
	c->slen = (size_t)(p - c->out);
	c->soff = 0;
	submit_send(w, c);
}

/* ---- HTTP/1.1: counting by size ---------------------------------------- */

static int h1_count(struct worker *w, struct conn *c, const uint8_t *p, size_t n)
{
	size_t pos = c->off ? resp_size - c->off : 0, total = c->off + n, k;

	for (; pos < n; pos += resp_size) {
		if (p[pos] != 'H' || (pos + 10 <= n && memcmp(p + pos, "HTTP/1.1 2", 10))) {
			snprintf(w->why, sizeof(w->why), "a response does not start %zu bytes after the last:"
				 " responses are not of one size, or not 2xx", resp_size);
			return -1;
		}
	}
	k = total / resp_size;
	c->off = total % resp_size;
	c->pending += (uint32_t)k;
	w->done += w->stop ? 0 : k;
	return 0;
}

static void h1_flush(struct worker *w, struct conn *c)
{
	if (!c->pending)
		return;
	c->sbuf = reqs;
	c->slen = (size_t)c->pending * req_len;
	c->soff = 0;
	c->pending = 0;
	submit_send(w, c);
}

/* ---- the run ------------------------------------------------------------ */

static int on_recv(struct worker *w, struct conn *c, struct io_uring_cqe *cqe)
{
	int rc = 0;

	if (cqe->flags & IORING_CQE_F_BUFFER) {
		unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
		if (cqe->res > 0 && !c->dead) {
			const uint8_t *p = w->bufs + (size_t)bid * BUF_SIZE;
			if (o.h2)
				h2_walk(w, c, p, (size_t)cqe->res);
			else
				rc = h1_count(w, c, p, (size_t)cqe->res);
			mark_ready(w, c);
		}
		buf_return(w, bid);
	}
	if (cqe->res == 0 || (cqe->res < 0 && cqe->res != -ENOBUFS))
		conn_lost(w, c);
	else if (!(cqe->flags & IORING_CQE_F_MORE) && !c->dead)
		arm_recv(w, c);
	return rc;
}

static void on_send(struct worker *w, struct conn *c, int res)
{
	if (res <= 0) {
		conn_lost(w, c);
		return;
	}
	c->soff += (size_t)res;
	if (c->soff < c->slen) {
		submit_send(w, c);
		return;
	}
	c->sending = 0;
	mark_ready(w, c);
}

static void flush_ready(struct worker *w)
{
	for (int i = 0; i < w->nready; i++) {
		struct conn *c = &w->c[w->ready[i]];
		c->queued = 0;
		if (c->dead || c->sending)
			continue;
		if (o.h2)
			h2_flush(w, c);
		else
			h1_flush(w, c);
	}
	w->nready = 0;
}

static int reap(struct worker *w)
{
	struct io_uring_cqe *cqe;
	unsigned head, seen = 0;
	int rc = 0;

	io_uring_for_each_cqe(&w->ring, head, cqe) {
		uint64_t ud = io_uring_cqe_get_data64(cqe);
		struct conn *c = &w->c[ud & 0xffffffffu];
		seen++;
		switch (ud >> 32) {
		case OP_RECV:
			if (on_recv(w, c, cqe))
				rc = -1;
			break;
		case OP_SEND: on_send(w, c, cqe->res); break;
		case OP_TIMEOUT: w->stop = 1; break;
		}
	}
	io_uring_cq_advance(&w->ring, seen);
	if (w->returned) {
		io_uring_buf_ring_advance(w->br, w->returned);
		w->returned = 0;
	}
	return rc;
}

static int conns_init(struct worker *w)
{
	int *fds = malloc(sizeof(int) * (size_t)w->n), rc;

	w->c = calloc((size_t)w->n, sizeof(*w->c));
	w->ready = malloc(sizeof(int) * (size_t)w->n);
	if (!fds || !w->c || !w->ready)
		return -1;
	for (int i = 0; i < w->n; i++) {
		struct conn *c = &w->c[i];
		fds[i] = dial();
		c->slot = i;
		c->pending = (uint32_t)o.depth;
		c->next_id = 1;
		/* preface, SETTINGS, WINDOW_UPDATE, acks, PING ack, WINDOW_UPDATE, requests */
		if (o.h2 && !(c->out = malloc(24 + 21 + 13 + 9 * ACKS_PER_SEND + 17 + 13 +
					      (size_t)o.depth * req_len)))
			return -1;
	}
	rc = io_uring_register_files(&w->ring, fds, (unsigned)w->n);
	if (rc) {
		snprintf(w->why, sizeof(w->why), "io_uring_register_files: %s", strerror(-rc));
		return -1;
	}
	for (int i = 0; i < w->n; i++)
		close(fds[i]);	/* the ring holds them */
	free(fds);
	return 0;
}

/* Completions to wait for: never more than can come, one per live
 * connection (each has a request outstanding). */
static unsigned batch_of(const struct worker *w)
{
	int live = w->n - w->lost, want = o.batch;

	if (!want)
		want = o.h2 ? (w->n < 32 ? w->n : 32) : (w->n / 4 < 1 ? 1 : w->n / 4 > 8 ? 8 : w->n / 4);
	return (unsigned)(want < live ? want : live > 0 ? live : 1);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int ok = ring_init(w) == 0 && bufs_init(w) == 0 && conns_init(w) == 0;
	double t0;

	pthread_barrier_wait(&barrier);
	if (!ok)
		return NULL;
	struct __kernel_timespec linger = { .tv_sec = o.linger_us / 1000000,
					    .tv_nsec = (long long)(o.linger_us % 1000000) * 1000 };
	t0 = now_s();
	w->ts.tv_sec = o.duration;
	struct io_uring_sqe *s = sqe_get(w);
	io_uring_prep_timeout(s, &w->ts, 0, 0);
	io_uring_sqe_set_data64(s, (uint64_t)OP_TIMEOUT << 32);
	for (int i = 0; i < w->n; i++) {
		arm_recv(w, &w->c[i]);
		mark_ready(w, &w->c[i]);
	}
	flush_ready(w);
	while (!w->stop) {
		struct io_uring_cqe *cqe;
		int rc = io_uring_submit_and_wait_timeout(&w->ring, &cqe, batch_of(w), &linger, NULL);
		if (rc < 0 && rc != -EINTR && rc != -ETIME) {
			snprintf(w->why, sizeof(w->why), "io_uring_enter: %s", strerror(-rc));
			break;
		}
		if (reap(w))
			break;
		double t = now_s() - t0;
		if (o.warmup && !w->warm.taken && t >= o.warmup)
			floor_mark_take(&w->warm, w->done);
		if (t >= o.duration || w->lost == w->n)
			w->stop = 1;	/* time is up, or no connection is left */
		flush_ready(w);
	}
	floor_mark_take(&w->end, w->done);	/* before the teardown */
	w->secs = now_s() - t0;
	w->stop = 1;
	io_uring_queue_exit(&w->ring);	/* cancels what is in flight, closes the files */
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker *ws;
	uint64_t done = 0, errors = 0;
	double secs = 0;
	int failed = 0;

	floor_parse_args(argc, argv);
	if (o.h2) {
		build_h2();
	} else {
		build_h1();	/* req_len: one request; reqs holds depth of them */
		probe_h1();
	}
	ws = calloc((size_t)o.threads, sizeof(*ws));
	if (!ws || pthread_barrier_init(&barrier, NULL, (unsigned)o.threads))
		return 1;
	for (int i = 0; i < o.threads; i++) {
		ws[i].n = o.conns / o.threads + (i < o.conns % o.threads);
		if (pthread_create(&ws[i].th, NULL, worker_main, &ws[i]))
			return 1;
	}
	for (int i = 0; i < o.threads; i++) {
		pthread_join(ws[i].th, NULL);
		if (ws[i].why[0]) {
			fprintf(stderr, "http_floor: thread %d: %s\n", i, ws[i].why);
			failed = 1;
		}
		done += ws[i].done;
		errors += ws[i].errors;
		if (ws[i].secs > secs)
			secs = ws[i].secs;
	}
	printf("%s -c %d -p %d -t %d -d %d --linger %d %s\n", o.h2 ? "h2c" : "http/1.1", o.conns, o.depth,
	       o.threads, o.duration, o.linger_us, o.authority);
	floor_run_print(done, errors, secs);
	if (o.warmup)
		floor_window_print(&ws[0].warm, &ws[0].end, o.threads, sizeof(*ws));
	return failed || done == 0;
}
