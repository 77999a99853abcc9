/* The worker loop: one thread, one io_uring, its own connections, plugin
 * state and statistics. Nothing mutable is shared with other workers.
 *
 * Every connection lives in a fixed slot (its index is also its registered
 * file slot). A slot is reused only after every operation it handed to the
 * kernel has completed, so buffers, msghdrs and plugin memory referenced by
 * an SQE always outlive it; the generation in user_data guards the rest. */
#include "run.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "uring_shim.h"

enum { OP_CONNECT = 0, OP_RECV = 1, OP_SEND = 2 };
#define UD_DEADLINE UINT64_MAX
#define UD_IGNORE (UINT64_MAX - 1)
#define SLOT_BITS 20
#define MAX_SLOTS (1u << SLOT_BITS)
#define RECV_BUF_SIZE 16384
#define MAX_VECS 16
#define TICK_NS 100000000ull /* wait at most 100 ms: Ctrl-C latency */
#define DGRAM_MAX 1200     /* QUIC: no PMTUD, every datagram <= 1200 bytes */
#define GSO_SEGMENTS 64    /* kernel limit per UDP_SEGMENT send */
#define RX_DGRAMS 64       /* datagrams held per connection per batch */
/* Refusals in a row (no response in between) resent before further ones
 * become errors: at least this many, and at least two full flights. */
#define REFUSE_STREAK_MIN 16
/* A slot whose connections keep failing before any request ends waits
 * BACKOFF_BASE_NS << (failures - 1), at most BACKOFF_MAX_NS, jittered down
 * to half, before it connects again. */
#define BACKOFF_BASE_NS 10000000ull  /* 10 ms */
#define BACKOFF_MAX_NS 1000000000ull /* 1 s */
/* Plaintext a plugin has not taken yet. Receiving pauses as soon as there
 * is any, so only what was already on its way lands here; more than this
 * means the plugin stopped consuming for good. */
#define BACKLOG_CAP (1u << 20)
#define SUBMIT_TRIES 64        /* refused submits before the run stops */
#define STASH_MAX (1u << 22)   /* completions stashed at most */

enum conn_st {
	C_IDLE,       /* no socket; may be (re)connected */
	C_CONNECTING, /* connect SQE in flight */
	C_HANDSHAKE,  /* TLS handshake */
	C_READY,      /* transport ready; the plugin runs requests */
	C_CLOSING,    /* waiting for in-flight operations to complete */
};

struct req_slot {
	shb_tstamp t_start;
	uint16_t gen;
	uint8_t used;
};

struct worker;

struct shb_conn {
	struct worker *w;
	uint32_t idx;
	uint32_t gen;
	int fd;
	uint8_t st;
	uint8_t recv_armed, send_busy, connect_busy;
	uint8_t recv_paused; /* backlog held: the multishot recv is not re-armed */
	uint8_t eof_pending; /* the peer's FIN came behind the backlog */
	uint8_t dirty, plugin_live, has_deadline;
	uint32_t ops; /* operations in the kernel */
	void *p;      /* plugin connection memory (conn_size bytes) */
	struct req_slot *reqs;
	uint32_t nused;
	uint32_t issued_here; /* requests issued on this connection */
	/* A request on it ended other than refused (a response, or an error
	 * the budget was charged for): the server is doing something. */
	uint8_t answered;
	uint8_t fails;       /* connections in a row on this slot that did not */
	shb_tstamp retry_at; /* do not reconnect before (backoff) */
	shb_tstamp t_connect;
	shb_tstamp deadline;
	/* plain send: vecs from pull_send, stable until the CQE */
	struct iovec iov[MAX_VECS];
	struct msghdr msg;
	/* TLS: two ciphertext buffers, one filling, one in the kernel */
	struct shb_tls tls;
	int tls_live;
	struct shb_bytes tbuf[2];
	uint8_t tfill;
	size_t tsent;
	/* plaintext the plugin did not take yet (backpressure) */
	struct shb_bytes backlog;
	/* datagrams: received ones held until the end of the completion
	 * batch (the protocol advances once per batch), and the send train
	 * buffer with its msghdr and GSO control message, stable until the
	 * send completes */
	uint16_t rx_bid[RX_DGRAMS];
	uint32_t rx_len[RX_DGRAMS];
	uint32_t nrx;
	uint8_t got_data;
	uint8_t *dgram_buf;
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} cmsg;
};

struct worker {
	struct shb_worker_args *args;
	struct shb_run *run;
	const struct shb_proto_vtable *vt;
	const struct shb_proto_desc *desc;
	struct shb_stats *stats;
	struct shb_uring u;
	int have_ring;
	struct shb_buf_ring br;
	struct shb_conn *conns;
	uint32_t nconns;
	uint8_t *pmem;
	size_t pstride;
	void *pworker;
	uint32_t *dirty;
	uint32_t ndirty;
	uint32_t parallel;
	uint64_t budget, issued, done;
	uint64_t nretry; /* refused requests given back, waiting to be resent */
	uint64_t refuse_streak; /* refusals since the last response */
	uint64_t refuse_cap;    /* ... resent at most; errors beyond */
	shb_tstamp revive_at;   /* earliest backoff end of an idle slot */
	uint64_t rng;           /* xorshift state for backoff jitter */
	uint32_t nconnecting;
	uint32_t nidle; /* conns in C_IDLE that may be revived */
	uint32_t ndeadlines;
	shb_tstamp now;
	shb_tstamp next_check;
	int stopping;
	int deadline_hit;
	int dgram;  /* the protocol runs over UDP */
	int gso;    /* UDP_SEGMENT works on this kernel */
	unsigned want;
	struct __kernel_timespec connect_ts;
	struct __kernel_timespec deadline_ts;
	struct io_uring_cqe *stash; /* completions moved out of a full CQ */
	uint32_t nstash, stash_head, stash_cap;
	struct io_uring_sqe dead_sqe; /* filled after a fatal submit error */
	uint8_t scratch[RECV_BUF_SIZE];
};

uint64_t shb_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t ud_make(unsigned op, uint32_t idx, uint32_t gen)
{
	return (uint64_t)op | ((uint64_t)idx << 2) | ((uint64_t)gen << (2 + SLOT_BITS));
}

static int debug_on(const struct worker *w)
{
	return w->run->host->log_enabled(SHB_LOG_DEBUG);
}

static void debugf(const struct worker *w, const char *fmt, const char *a,
		   long b)
{
	if (!debug_on(w))
		return;
	char line[256];
	snprintf(line, sizeof(line), fmt, a, b);
	w->run->host->log(SHB_LOG_DEBUG, "core", line);
}

/* ---- budget ------------------------------------------------------------ */

static int count_mode(const struct worker *w)
{
	return w->budget != 0;
}

static int may_issue(const struct worker *w)
{
	if (w->stopping)
		return 0;
	return !count_mode(w) || w->issued < w->budget;
}

static uint64_t unissued(const struct worker *w)
{
	if (!count_mode(w))
		return UINT64_MAX;
	return w->budget > w->issued ? w->budget - w->issued : 0;
}

static void finished_one(struct worker *w)
{
	w->done++;
	if (count_mode(w) && w->done >= w->budget && !w->stopping)
		w->args->end_ns = w->now;
}

/* ---- SQEs ---------------------------------------------------------------- */

/* A condition of this machine, not of the server (no file descriptors,
 * io_uring refusing work): the whole run stops with one line instead of
 * counting a storm of per-request errors. Every worker sees the flag. */
static void worker_fatal(struct worker *w, const char *msg)
{
	if (!w->args->failed) {
		snprintf(w->args->err, sizeof(w->args->err), "%s", msg);
		w->args->failed = 1;
	}
	atomic_store(&w->run->abort_run, 1);
}

/* Moves every completion in the CQ into the stash, so the kernel can post
 * more (it refuses submissions while its overflow list is not empty). */
static void stash_cqes(struct worker *w)
{
	struct io_uring_cqe *cqe;
	unsigned head;
	io_uring_for_each_cqe(&w->u.ring, head, cqe) {
		if (w->nstash == w->stash_cap) {
			uint32_t cap = w->stash_cap ? 2 * w->stash_cap : 256;
			void *p = cap <= STASH_MAX ? realloc(w->stash, cap * sizeof(*w->stash)) : NULL;
			if (!p) {
				worker_fatal(w, "io_uring: completions backed up beyond the stash");
				return;
			}
			w->stash = p;
			w->stash_cap = cap;
		}
		w->stash[w->nstash++] = *cqe;
		io_uring_cq_advance(&w->u.ring, 1);
	}
}

/* The next SQE. A full SQ is submitted first; a submit the kernel refuses
 * because its completion queue is backed up (EBUSY, EAGAIN) is retried
 * after the completions are stashed, a bounded number of times. Any other
 * failure is fatal for the run; the caller then fills a scratch SQE that
 * never reaches the kernel, and the loop stops. */
static struct io_uring_sqe *get_sqe(struct worker *w)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->u.ring);
	for (int tries = 0; !sqe && tries < SUBMIT_TRIES; tries++) {
		int r = io_uring_submit(&w->u.ring);
		if (r < 0 && r != -EINTR) {
			if (r != -EBUSY && r != -EAGAIN)
				tries = SUBMIT_TRIES;
			stash_cqes(w);
		}
		sqe = io_uring_get_sqe(&w->u.ring);
	}
	if (sqe)
		return sqe;
	worker_fatal(w, "io_uring: the kernel accepts no more submissions");
	memset(&w->dead_sqe, 0, sizeof(w->dead_sqe));
	return &w->dead_sqe;
}

static void mark_dirty(struct shb_conn *c)
{
	if (!c->dirty) {
		c->dirty = 1;
		c->w->dirty[c->w->ndirty++] = c->idx;
	}
}

static void arm_recv(struct shb_conn *c)
{
	struct io_uring_sqe *sqe = get_sqe(c->w);
	io_uring_prep_recv_multishot(sqe, (int)c->idx, NULL, 0, 0);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_BUFFER_SELECT;
	sqe->buf_group = 0;
	sqe->user_data = ud_make(OP_RECV, c->idx, c->gen);
	c->recv_armed = 1;
	c->ops++;
}

static void submit_send(struct shb_conn *c, const void *base, size_t len)
{
	struct io_uring_sqe *sqe = get_sqe(c->w);
	io_uring_prep_send(sqe, (int)c->idx, base, len, MSG_NOSIGNAL);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = ud_make(OP_SEND, c->idx, c->gen);
	c->send_busy = 1;
	c->ops++;
}

static void submit_sendmsg(struct shb_conn *c, size_t n)
{
	struct io_uring_sqe *sqe = get_sqe(c->w);
	memset(&c->msg, 0, sizeof(c->msg));
	c->msg.msg_iov = c->iov;
	c->msg.msg_iovlen = n;
	io_uring_prep_sendmsg(sqe, (int)c->idx, &c->msg, MSG_NOSIGNAL);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = ud_make(OP_SEND, c->idx, c->gen);
	c->send_busy = 1;
	c->ops++;
}

/* ---- requests -------------------------------------------------------------- */

static void count_error(struct worker *w, unsigned kind, const char *msg)
{
	shb_stats_error(w->stats, kind, msg);
	debugf(w, "error: %s (%ld)", msg ? msg : "", (long)kind);
}

/* Fails every request still outstanding on c (the plugin did not report
 * them). A connection that fails before carrying any request charges one
 * unit of the budget instead, so that a run against a server that never
 * works still ends; one whose requests were all reported already (e.g. the
 * plugin said CONN_LOST before returning its error) costs nothing more. */
static void fail_outstanding(struct shb_conn *c, unsigned kind, const char *msg)
{
	struct worker *w = c->w;
	if (w->stopping)
		return;
	if (c->nused == 0) {
		if (c->issued_here)
			return;
		if (!count_mode(w) || w->issued < w->budget) {
			w->issued++;
			count_error(w, kind, msg);
			finished_one(w);
		}
		return;
	}
	for (uint32_t i = 0; i < w->parallel && c->nused; i++) {
		struct req_slot *r = &c->reqs[i];
		if (!r->used)
			continue;
		r->used = 0;
		c->nused--;
		c->answered = 1;
		count_error(w, kind, msg);
		finished_one(w);
	}
}

/* The cookie names the slot, its use count and the connection's generation,
 * so a late or repeated report is recognised and ignored. */
static uint64_t req_cookie(const struct shb_conn *c, uint32_t i)
{
	return (uint64_t)i | ((uint64_t)c->reqs[i].gen << 16) | ((uint64_t)c->gen << 32);
}

static int issue_one(struct shb_conn *c)
{
	struct worker *w = c->w;
	uint32_t i;
	for (i = 0; i < w->parallel; i++)
		if (!c->reqs[i].used)
			break;
	if (i == w->parallel)
		return -1;
	struct req_slot *r = &c->reqs[i];
	r->gen++;
	uint64_t cookie = req_cookie(c, i);
	int resend = w->nretry > 0;
	w->nretry -= (uint64_t)resend;
	r->t_start = w->now;
	r->used = 1;
	c->nused++;
	c->issued_here++;
	w->issued++;
	if (w->vt->issue(c->p, w->run->prepared, cookie, w->now) < 0) {
		r->used = 0;
		c->nused--;
		c->issued_here--;
		w->issued--;
		w->nretry += (uint64_t)resend;
		return -1;
	}
	return 0;
}

static void requeue_refused(struct worker *w)
{
	w->nretry++;
	w->issued--;
	w->stats->retried++;
}

static unsigned outcome_kind(uint32_t outcome)
{
	switch (outcome) {
	case SHB_REQ_CONN_LOST: return SHB_ERRK_READ;
	case SHB_REQ_TIMEOUT: return SHB_ERRK_TIMEOUT;
	default: return SHB_ERRK_PROTOCOL;
	}
}

void shb_worker_req_done(struct shb_conn *c, uint64_t cookie,
			 const struct shb_req_result *res)
{
	struct worker *w = c->w;
	uint32_t i = (uint32_t)(cookie & 0xffff);
	uint16_t gen = (uint16_t)(cookie >> 16);

	if (i >= w->parallel || (uint32_t)(cookie >> 32) != c->gen ||
	    !c->reqs[i].used || c->reqs[i].gen != gen)
		return; /* unknown or already completed: ignore, never count twice */
	struct req_slot *r = &c->reqs[i];
	r->used = 0;
	c->nused--;
	mark_dirty(c);
	if (w->stopping)
		return; /* in flight at the end: not counted */
	switch (res->outcome) {
	case SHB_REQ_OK: {
		shb_tstamp done = res->ts_done ? res->ts_done : w->now;
		shb_stats_ok(w->stats, res->status,
			     done > r->t_start ? done - r->t_start : 0);
		finished_one(w);
		c->answered = 1;
		w->refuse_streak = 0;
		return;
	}
	case SHB_REQ_REFUSED:
		/* Not processed by the server (above a GOAWAY, REFUSED_STREAM):
		 * resent, wherever there is room, while refusals in a row stay
		 * under the cap. Beyond it each refusal is an error that
		 * charges the budget, so a server that refuses everything ends
		 * a -n run with errors instead of looping. */
		if (w->refuse_streak < w->refuse_cap) {
			w->refuse_streak++;
			requeue_refused(w);
			return;
		}
		count_error(w, SHB_ERRK_PROTOCOL,
			    "request refused by the server (too many refusals in a "
			    "row without a response; not resent)");
		finished_one(w);
		return;
	default: {
		char msg[SHB_SAMPLE_LEN];
		const char *d = SHB_HAS(res, struct shb_req_result, detail) ? res->detail : NULL;
		if (!d) {
			snprintf(msg, sizeof(msg), "request failed (outcome %u, code %llu)",
				 res->outcome, (unsigned long long)res->err_code);
			d = msg;
		}
		c->answered = 1;
		count_error(w, outcome_kind(res->outcome), d);
		finished_one(w);
	}
	}
}

void shb_worker_conn_event(struct shb_conn *c, const struct shb_conn_event *ev)
{
	if (ev->kind == SHB_CEV_GOAWAY)
		debugf(c->w, "peer GOAWAY, last accepted %s%ld", "", (long)ev->last_accepted);
	mark_dirty(c);
}

/* ---- connection life cycle ------------------------------------------------- */

static void start_connect(struct shb_conn *c);

static uint64_t next_rand(struct worker *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

/* A connection that ended without any request ending on it (connect or
 * TLS failure, GOAWAY before the first stream, everything refused) makes
 * its slot back off before connecting again, so a dead or refusing server
 * costs a bounded number of attempts per second, not a storm. */
static void note_outcome(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (c->answered) {
		c->fails = 0;
		c->retry_at = 0;
		return;
	}
	if (c->fails < 63)
		c->fails++;
	uint64_t d = c->fails > 7 ? BACKOFF_MAX_NS : BACKOFF_BASE_NS << (c->fails - 1);
	if (d > BACKOFF_MAX_NS)
		d = BACKOFF_MAX_NS;
	d = d / 2 + next_rand(w) % (d / 2 + 1);
	c->retry_at = w->now + d;
}

static void finish_close(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (c->plugin_live) {
		w->vt->conn_fini(c->p);
		c->plugin_live = 0;
	}
	if (c->tls_live) {
		shb_tls_free(&c->tls);
		c->tls_live = 0;
	}
	c->tbuf[0].len = c->tbuf[1].len = 0;
	c->backlog.len = 0;
	c->recv_paused = 0;
	c->eof_pending = 0;
	for (uint32_t i = 0; i < c->nrx; i++)
		shb_buf_ring_recycle(&w->br, c->rx_bid[i]);
	c->nrx = 0;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	if (c->has_deadline) {
		c->has_deadline = 0;
		w->ndeadlines--;
	}
	c->gen++;
	c->issued_here = 0;
	note_outcome(c);
	c->answered = 0;
	c->st = C_IDLE;
	w->nidle++;
}

/* Stops using c: no more plugin calls, the socket is shut down so that the
 * kernel completes the multishot receive and any send, and the slot is
 * released once they have. */
static void begin_close(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (c->st == C_CLOSING || c->st == C_IDLE)
		return;
	if (c->st == C_CONNECTING || c->st == C_HANDSHAKE)
		w->nconnecting--;
	c->st = C_CLOSING;
	if (c->fd >= 0)
		shutdown(c->fd, SHUT_RDWR);
	if (c->recv_armed) {
		/* shutdown() ends a TCP receive, not a UDP one: cancel it. */
		struct io_uring_sqe *sqe = get_sqe(w);
		io_uring_prep_cancel64(sqe, ud_make(OP_RECV, c->idx, c->gen), 0);
		sqe->user_data = UD_IGNORE;
	}
	if (c->ops == 0)
		finish_close(c);
}

static void conn_fail(struct shb_conn *c, unsigned kind, const char *msg)
{
	if (c->st == C_CLOSING || c->st == C_IDLE)
		return;
	fail_outstanding(c, kind, msg);
	begin_close(c);
}

static unsigned plugin_err_kind(int code)
{
	switch (code) {
	case SHB_E_CLOSED: return SHB_ERRK_READ;
	case SHB_E_TLS: return SHB_ERRK_TLS;
	case SHB_E_TIMEOUT: return SHB_ERRK_TIMEOUT;
	default: return SHB_ERRK_PROTOCOL;
	}
}

static void last_words(struct shb_conn *c, int bye);

static void plugin_fail(struct shb_conn *c, int code, const char *fallback)
{
	const char *d = c->w->vt->error_detail ? c->w->vt->error_detail(c->p) : NULL;
	char msg[SHB_SAMPLE_LEN];
	snprintf(msg, sizeof(msg), "%s", d && d[0] ? d : fallback);
	/* The plugin may have queued a last frame saying why (GOAWAY with an
	 * error code, CONNECTION_CLOSE): the peer deserves to see it. */
	if (code > SHB_E_FATAL)
		last_words(c, 0);
	conn_fail(c, plugin_err_kind(code), msg);
}

/* Best effort at the end of a run: let the plugin say goodbye (GOAWAY) and
 * TLS send close_notify, without waiting for anything. */
/* Sends what the plugin still has queued (a GOAWAY, a CONNECTION_CLOSE)
 * and, for TLS, close_notify, with non-blocking sends straight on the
 * socket: best effort, nothing is waited for. Only when no send is in
 * flight, so the byte stream stays in order. */
static void last_words(struct shb_conn *c, int bye)
{
	struct worker *w = c->w;
	char err[128];
	if (c->st != C_READY || c->send_busy || !c->plugin_live)
		return;
	if (w->dgram) {
		size_t seg = 0;
		shb_ssize n = w->vt->write_dgrams(c->p, c->dgram_buf, DGRAM_MAX, &seg, w->now);
		if (n > 0)
			(void)send(c->fd, c->dgram_buf, (size_t)n, MSG_DONTWAIT);
		return;
	}
	struct shb_vec v[MAX_VECS];
	shb_ssize n = 0;
	if (w->vt->state(c->p) & SHB_CS_WANT_WRITE)
		n = w->vt->pull_send(c->p, v, MAX_VECS, w->now);
	for (shb_ssize i = 0; i < n; i++) {
		if (c->tls_live)
			shb_tls_write(&c->tls, v[i].base, v[i].len, err, sizeof(err));
		else
			(void)send(c->fd, v[i].base, v[i].len, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	if (c->tls_live) {
		struct shb_bytes *b = &c->tbuf[c->tfill];
		if (bye)
			shb_tls_bye(&c->tls);
		if (b->len)
			(void)send(c->fd, b->p, b->len, MSG_DONTWAIT | MSG_NOSIGNAL);
		b->len = 0;
	}
}

/* The end of a run, or a connection we are done with: let the plugin say
 * goodbye (GOAWAY, CONNECTION_CLOSE) and TLS send close_notify. */
static void close_politely(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (c->st == C_READY && !c->send_busy && c->plugin_live) {
		w->vt->shutdown(c->p, SHB_SHUT_GRACEFUL, w->now);
		last_words(c, 1);
	}
	begin_close(c);
}

static void transport_ready(struct shb_conn *c)
{
	struct worker *w = c->w;
	char alpn[64] = "";
	struct shb_transport_info info;

	memset(&info, 0, sizeof(info));
	info.struct_size = sizeof(info);
	info.peer = (const struct sockaddr *)&w->run->addr;
	info.peer_len = w->run->addrlen;
	info.ts_connected = c->t_connect;
	info.ts_handshake = w->now;
	info.max_dgram = DGRAM_MAX;
	if (c->tls_live) {
		shb_tls_alpn(&c->tls, alpn, sizeof(alpn));
		info.tls_version = shb_tls_version(&c->tls);
		info.alpn = alpn[0] ? alpn : NULL;
		if (w->desc->flags & SHB_PROTO_ALPN_REQUIRED) {
			int ok = 0;
			for (const char *const *a = w->desc->alpn; a && *a; a++)
				ok |= strcmp(*a, alpn) == 0;
			if (!ok) {
				char msg[160];
				snprintf(msg, sizeof(msg), "server did not select ALPN %s (got %s)",
					 w->desc->alpn && w->desc->alpn[0] ? w->desc->alpn[0] : "?",
					 alpn[0] ? alpn : "none");
				if (atomic_exchange(&w->run->alpn_warned, 1) == 0)
					w->run->host->log(SHB_LOG_WARN, "core", msg);
				conn_fail(c, SHB_ERRK_CONNECT, msg);
				return;
			}
		}
	}
	w->nconnecting--;
	c->st = C_READY;
	int r = w->vt->on_transport_ready(c->p, &info, w->now);
	if (r < 0) {
		plugin_fail(c, r, "protocol start failed");
		return;
	}
	mark_dirty(c);
}

static void start_dgram(struct shb_conn *c);

/* Out of descriptors is this machine's limit, not the server's fault:
 * stop the run with one line saying what to change. */
static void socket_failed(struct shb_conn *c, int err)
{
	char msg[200];
	if (err == EMFILE || err == ENFILE) {
		snprintf(msg, sizeof(msg), "socket: %s with %u connections per "
			 "worker: raise the limit (ulimit -n) or lower -c",
			 strerror(err), c->w->nconns);
		worker_fatal(c->w, msg);
		conn_fail(c, SHB_ERRK_CONNECT, msg);
		return;
	}
	snprintf(msg, sizeof(msg), "socket: %s", strerror(err));
	conn_fail(c, SHB_ERRK_CONNECT, msg);
}

static void start_connect(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (w->dgram) {
		start_dgram(c);
		return;
	}
	const struct sockaddr *sa = (const struct sockaddr *)&w->run->addr;
	char msg[160];
	int one = 1;

	w->nidle--;
	c->st = C_CONNECTING;
	w->nconnecting++;
	c->t_connect = w->now;
	c->fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	if (c->fd < 0) {
		socket_failed(c, errno);
		return;
	}
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* Replacing the slot's file also drops the previous socket's
	 * reference held by the registered table. */
	int r = io_uring_register_files_update(&w->u.ring, c->idx, &c->fd, 1);
	if (r < 0) {
		snprintf(msg, sizeof(msg), "register socket: %s", strerror(-r));
		conn_fail(c, SHB_ERRK_CONNECT, msg);
		return;
	}
	memset(c->p, 0, w->desc->conn_size);
	r = w->vt->conn_init(w->run->module, w->pworker, c->p, c, w->now);
	if (r < 0) {
		snprintf(msg, sizeof(msg), "protocol conn_init failed: %s",
			 w->run->host->strerror(r));
		conn_fail(c, SHB_ERRK_PROTOCOL, msg);
		return;
	}
	c->plugin_live = 1;
	c->deadline = SHB_TSTAMP_NONE;
	if (io_uring_sq_space_left(&w->u.ring) < 2)
		io_uring_submit(&w->u.ring); /* a link never straddles submits */
	struct io_uring_sqe *sqe = get_sqe(w);
	io_uring_prep_connect(sqe, (int)c->idx, sa, w->run->addrlen);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	sqe->user_data = ud_make(OP_CONNECT, c->idx, c->gen);
	sqe = get_sqe(w);
	io_uring_prep_link_timeout(sqe, &w->connect_ts, 0);
	sqe->user_data = UD_IGNORE;
	c->connect_busy = 1;
	c->ops++;
}


/* ---- datagram transport (QUIC) ---------------------------------------------- */

static void set_buf(int fd, int opt, int bytes)
{
	/* Best effort: large bursts of datagrams must not be dropped by a
	 * small socket buffer, but a capped sysctl is not an error. */
	(void)setsockopt(fd, SOL_SOCKET, opt, &bytes, sizeof(bytes));
}

static int probe_gso(int family)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int seg = 0, ok;
	if (fd < 0)
		return 0;
	ok = setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg)) == 0;
	close(fd);
	return ok;
}

static void start_dgram(struct shb_conn *c)
{
	struct worker *w = c->w;
	const struct sockaddr *sa = (const struct sockaddr *)&w->run->addr;
	char msg[160];

	w->nidle--;
	c->st = C_CONNECTING;
	w->nconnecting++;
	c->t_connect = w->now;
	c->nrx = 0;
	c->got_data = 0;
	if (!c->dgram_buf) {
		c->dgram_buf = malloc((size_t)(w->gso ? GSO_SEGMENTS : 1) * DGRAM_MAX);
		if (!c->dgram_buf) {
			conn_fail(c, SHB_ERRK_CONNECT, "out of memory");
			return;
		}
	}
	c->fd = socket(sa->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
	if (c->fd < 0) {
		socket_failed(c, errno);
		return;
	}
	set_buf(c->fd, SO_RCVBUF, 4 << 20);
	set_buf(c->fd, SO_SNDBUF, 4 << 20);
	/* A UDP connect only sets the peer; no need to go through the ring. */
	if (connect(c->fd, sa, w->run->addrlen) < 0) {
		snprintf(msg, sizeof(msg), "connect: %s", strerror(errno));
		conn_fail(c, SHB_ERRK_CONNECT, msg);
		return;
	}
	int r = io_uring_register_files_update(&w->u.ring, c->idx, &c->fd, 1);
	if (r < 0) {
		snprintf(msg, sizeof(msg), "register socket: %s", strerror(-r));
		conn_fail(c, SHB_ERRK_CONNECT, msg);
		return;
	}
	memset(c->p, 0, w->desc->conn_size);
	r = w->vt->conn_init(w->run->module, w->pworker, c->p, c, w->now);
	if (r < 0) {
		snprintf(msg, sizeof(msg), "protocol conn_init failed: %s",
			 w->run->host->strerror(r));
		conn_fail(c, SHB_ERRK_PROTOCOL, msg);
		return;
	}
	c->plugin_live = 1;
	c->deadline = SHB_TSTAMP_NONE;
	w->stats->conns_opened++;
	arm_recv(c);
	transport_ready(c);
}

/* Hands the datagrams held during this completion batch to the protocol at
 * once, then gives their buffers back. */
static void deliver_dgrams(struct shb_conn *c)
{
	struct worker *w = c->w;
	uint32_t n = c->nrx;
	if (!n)
		return;
	c->nrx = 0;
	if (c->st == C_READY) {
		struct shb_vec v[RX_DGRAMS];
		for (uint32_t i = 0; i < n; i++) {
			v[i].base = shb_buf_ring_buf(&w->br, c->rx_bid[i]);
			v[i].len = c->rx_len[i];
		}
		int r = w->vt->recv_dgrams(c->p, v, n, w->now);
		if (r < 0)
			plugin_fail(c, r, "protocol error");
	}
	for (uint32_t i = 0; i < n; i++)
		shb_buf_ring_recycle(&w->br, c->rx_bid[i]);
}

static void on_recv_dgram(struct shb_conn *c, struct io_uring_cqe *cqe)
{
	struct worker *w = c->w;
	int res = cqe->res;
	int more = (cqe->flags & IORING_CQE_F_MORE) != 0;

	if (cqe->flags & IORING_CQE_F_BUFFER) {
		unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
		if (res > 0 && c->st == C_READY) {
			w->stats->bytes_recv += (uint64_t)res;
			c->got_data = 1;
			if (c->nrx == RX_DGRAMS)
				deliver_dgrams(c);
			c->rx_bid[c->nrx] = (uint16_t)bid;
			c->rx_len[c->nrx] = (uint32_t)res;
			c->nrx++;
			mark_dirty(c);
		} else {
			shb_buf_ring_recycle(&w->br, bid);
		}
	}
	if (res < 0 && res != -ENOBUFS && res != -EMSGSIZE && c->st == C_READY) {
		/* EMSGSIZE after an ICMP "too big" is benign; a refused port
		 * before any answer is a connect error. */
		char msg[160];
		snprintf(msg, sizeof(msg), "recv: %s", strerror(-res));
		deliver_dgrams(c);
		conn_fail(c, c->got_data ? SHB_ERRK_READ : SHB_ERRK_CONNECT, msg);
	}
	if (!more) {
		c->recv_armed = 0;
		c->ops--;
		if (c->st == C_READY && res != 0)
			arm_recv(c);
	}
}

static void submit_train(struct shb_conn *c, size_t len, size_t seg)
{
	if (len <= seg || !c->w->gso) {
		submit_send(c, c->dgram_buf, len);
		return;
	}
	struct cmsghdr *cm;
	memset(&c->msg, 0, sizeof(c->msg));
	c->iov[0].iov_base = c->dgram_buf;
	c->iov[0].iov_len = len;
	c->msg.msg_iov = c->iov;
	c->msg.msg_iovlen = 1;
	c->msg.msg_control = c->cmsg.buf;
	c->msg.msg_controllen = sizeof(c->cmsg.buf);
	cm = CMSG_FIRSTHDR(&c->msg);
	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
	uint16_t s16 = (uint16_t)seg;
	memcpy(CMSG_DATA(cm), &s16, sizeof(s16));
	struct io_uring_sqe *sqe = get_sqe(c->w);
	io_uring_prep_sendmsg(sqe, (int)c->idx, &c->msg, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = ud_make(OP_SEND, c->idx, c->gen);
	c->send_busy = 1;
	c->ops++;
}

static void flush_dgrams(struct shb_conn *c)
{
	struct worker *w = c->w;
	size_t seg = 0;
	size_t cap = (size_t)(w->gso ? GSO_SEGMENTS : 1) * DGRAM_MAX;
	shb_ssize n = w->vt->write_dgrams(c->p, c->dgram_buf, cap, &seg, w->now);
	if (n < 0) {
		plugin_fail(c, (int)n, "protocol error");
		return;
	}
	if (n == 0)
		return;
	if (seg == 0 || seg > DGRAM_MAX || (size_t)n > cap) {
		conn_fail(c, SHB_ERRK_PROTOCOL, "protocol wrote an invalid datagram train");
		return;
	}
	submit_train(c, (size_t)n, seg);
}

/* ---- I/O completions ---------------------------------------------------- */

static void flush_tls(struct shb_conn *c)
{
	struct shb_bytes *b = &c->tbuf[c->tfill];
	if (c->send_busy || b->len == 0)
		return;
	c->tfill ^= 1;
	c->tbuf[c->tfill].len = 0;
	shb_tls_set_out(&c->tls, &c->tbuf[c->tfill]);
	c->tsent = 0;
	submit_send(c, b->p, b->len);
}

static void tls_failed(struct shb_conn *c, const char *err)
{
	conn_fail(c, SHB_ERRK_TLS, err);
}

static void on_connect(struct shb_conn *c, int res)
{
	struct worker *w = c->w;
	char msg[200];

	c->connect_busy = 0;
	if (c->st != C_CONNECTING)
		return;
	if (res < 0) {
		if (res == -ECANCELED)
			snprintf(msg, sizeof(msg), "connect: timed out after %.3gs",
				 (double)w->run->cfg->connect_timeout_ns / 1e9);
		else
			snprintf(msg, sizeof(msg), "connect: %s", strerror(-res));
		conn_fail(c, SHB_ERRK_CONNECT, msg);
		return;
	}
	w->stats->conns_opened++;
	arm_recv(c);
	if (!w->run->use_tls) {
		transport_ready(c);
		return;
	}
	c->st = C_HANDSHAKE;
	shb_tls_set_out(&c->tls, &c->tbuf[c->tfill]);
	if (shb_tls_new(&c->tls, &w->run->tls, &c->tbuf[c->tfill], msg, sizeof(msg)) < 0) {
		tls_failed(c, msg);
		return;
	}
	c->tls_live = 1;
	shb_tls_feed(&c->tls, NULL, 0);
	if (shb_tls_handshake(&c->tls, msg, sizeof(msg)) < 0) {
		tls_failed(c, msg);
		return;
	}
	flush_tls(c);
}

/* Input flow control: while the plugin holds back input, the multishot
 * receive is cancelled and not re-armed, so the kernel's socket buffer and
 * then the peer's window fill up instead of our memory. */
static void pause_recv(struct shb_conn *c)
{
	c->recv_paused = 1;
	if (!c->recv_armed)
		return;
	struct io_uring_sqe *sqe = get_sqe(c->w);
	io_uring_prep_cancel64(sqe, ud_make(OP_RECV, c->idx, c->gen), 0);
	sqe->user_data = UD_IGNORE;
}

static void resume_recv(struct shb_conn *c)
{
	c->recv_paused = 0;
	if (!c->recv_armed)
		arm_recv(c);
}

static void deliver_eof(struct shb_conn *c);

/* Hands plaintext to the plugin, keeping what it could not take yet. */
static void deliver(struct shb_conn *c, const uint8_t *data, size_t len)
{
	struct worker *w = c->w;
	if (c->backlog.len) {
		if (len && shb_bytes_append(&c->backlog, data, len) < 0) {
			conn_fail(c, SHB_ERRK_READ, "out of memory");
			return;
		}
		data = c->backlog.p;
		len = c->backlog.len;
	}
	shb_ssize n = w->vt->recv(c->p, data, len, w->now);
	mark_dirty(c);
	if (n < 0) {
		plugin_fail(c, (int)n, "protocol error");
		return;
	}
	size_t rest = len - ((size_t)n < len ? (size_t)n : len);
	if (data == c->backlog.p) {
		memmove(c->backlog.p, c->backlog.p + len - rest, rest);
		c->backlog.len = rest;
	} else if (rest && shb_bytes_append(&c->backlog, data + len - rest, rest) < 0) {
		conn_fail(c, SHB_ERRK_READ, "out of memory");
		return;
	}
	if (c->backlog.len > BACKLOG_CAP) {
		conn_fail(c, SHB_ERRK_PROTOCOL, "input backlog over its cap of 1 MiB: "
			  "the protocol stopped consuming");
		return;
	}
	if (c->backlog.len && !c->recv_paused)
		pause_recv(c);
	else if (!c->backlog.len && c->eof_pending)
		deliver_eof(c);
	else if (!c->backlog.len && c->recv_paused && c->st == C_READY)
		resume_recv(c);
}

static void deliver_eof(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (c->backlog.len && c->st == C_READY) {
		c->eof_pending = 1; /* after the bytes before it */
		return;
	}
	c->eof_pending = 0;
	if (c->st == C_HANDSHAKE) {
		conn_fail(c, SHB_ERRK_TLS, "connection closed during the TLS handshake");
		return;
	}
	if (c->st != C_READY)
		return;
	int r = w->vt->recv_eof(c->p, w->now);
	if (r < 0)
		plugin_fail(c, r, "connection closed by the server");
	else if (c->nused)
		conn_fail(c, SHB_ERRK_READ, "connection closed by the server");
	else
		begin_close(c);
}

static void tls_input(struct shb_conn *c, const uint8_t *data, size_t len)
{
	char err[200];
	shb_tls_feed(&c->tls, data, len);
	if (c->st == C_HANDSHAKE) {
		int h = shb_tls_handshake(&c->tls, err, sizeof(err));
		if (h < 0) {
			tls_failed(c, err);
			return;
		}
		if (h == 0) {
			flush_tls(c);
			return;
		}
		transport_ready(c);
		if (c->st != C_READY)
			return;
	}
	while (c->st == C_READY) {
		long n = shb_tls_read(&c->tls, c->w->scratch, sizeof(c->w->scratch),
				      err, sizeof(err));
		if (n == 0)
			break;
		if (n == SHB_TLS_EOF) {
			deliver_eof(c);
			break;
		}
		if (n < 0) {
			conn_fail(c, SHB_ERRK_TLS, err);
			break;
		}
		deliver(c, c->w->scratch, (size_t)n);
	}
	if (c->st == C_READY || c->st == C_HANDSHAKE)
		flush_tls(c);
}

static void on_recv(struct shb_conn *c, struct io_uring_cqe *cqe)
{
	struct worker *w = c->w;
	int res = cqe->res;
	int more = (cqe->flags & IORING_CQE_F_MORE) != 0;

	if (res > 0) {
		unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
		const uint8_t *buf = shb_buf_ring_buf(&w->br, bid);
		w->stats->bytes_recv += (uint64_t)res;
		if (c->st == C_READY || c->st == C_HANDSHAKE) {
			if (c->tls_live)
				tls_input(c, buf, (size_t)res);
			else
				deliver(c, buf, (size_t)res);
		}
		shb_buf_ring_recycle(&w->br, bid);
	} else if (res == 0) {
		deliver_eof(c);
	} else if (res != -ENOBUFS && res != -ECANCELED) {
		/* ECANCELED: our own cancel (pause_recv, begin_close). */
		char msg[160];
		snprintf(msg, sizeof(msg), "recv: %s", strerror(-res));
		conn_fail(c, SHB_ERRK_READ, msg);
	}
	if (!more) {
		c->recv_armed = 0;
		c->ops--;
		/* ENOBUFS just means the buffer ring ran dry for a moment. */
		if ((c->st == C_READY || c->st == C_HANDSHAKE) && res != 0 &&
		    !c->recv_paused)
			arm_recv(c);
	}
}

static void on_send(struct shb_conn *c, int res)
{
	struct worker *w = c->w;
	c->send_busy = 0;
	/* Counted whatever the state: the last sends of a run complete
	 * after its connections began to close. */
	if (res > 0)
		w->stats->bytes_sent += (uint64_t)res;
	if (c->st != C_READY && c->st != C_HANDSHAKE)
		return;
	if (w->dgram && (res == -EMSGSIZE || res == -ENOBUFS || res == -EAGAIN)) {
		mark_dirty(c); /* datagram dropped: QUIC recovers it */
		return;
	}
	if (res <= 0) {
		char msg[160];
		snprintf(msg, sizeof(msg), "send: %s", res ? strerror(-res) : "wrote nothing");
		if (w->dgram && !c->got_data) {
			conn_fail(c, SHB_ERRK_CONNECT, msg);
			return;
		}
		conn_fail(c, SHB_ERRK_WRITE, msg);
		return;
	}
	if (w->dgram) {
		mark_dirty(c);
		return;
	}
	if (c->tls_live) {
		struct shb_bytes *b = &c->tbuf[c->tfill ^ 1];
		c->tsent += (size_t)res;
		if (c->tsent < b->len) {
			submit_send(c, b->p + c->tsent, b->len - c->tsent);
			return;
		}
		b->len = 0;
	} else {
		w->vt->sent(c->p, (size_t)res, w->now);
	}
	/* A plugin that could not take all its input until it had flushed
	 * gets the rest now. */
	if (c->backlog.len && c->st == C_READY)
		deliver(c, NULL, 0);
	mark_dirty(c);
}

static void on_cqe(struct worker *w, struct io_uring_cqe *cqe)
{
	uint64_t ud = cqe->user_data;
	if (ud == UD_IGNORE)
		return;
	if (ud == UD_DEADLINE) {
		w->deadline_hit = 1;
		return;
	}
	unsigned op = (unsigned)(ud & 3);
	uint32_t idx = (uint32_t)((ud >> 2) & (MAX_SLOTS - 1));
	uint32_t gen = (uint32_t)(ud >> (2 + SLOT_BITS));
	if (idx >= w->nconns)
		return;
	struct shb_conn *c = &w->conns[idx];
	if (gen != c->gen) {
		/* Stale: only give back what it holds. */
		if (op == OP_RECV && (cqe->flags & IORING_CQE_F_BUFFER))
			shb_buf_ring_recycle(&w->br, cqe->flags >> IORING_CQE_BUFFER_SHIFT);
		return;
	}
	switch (op) {
	case OP_CONNECT:
		c->ops--;
		on_connect(c, cqe->res);
		break;
	case OP_RECV:
		if (w->dgram)
			on_recv_dgram(c, cqe);
		else
			on_recv(c, cqe);
		break;
	case OP_SEND:
		c->ops--;
		on_send(c, cqe->res);
		break;
	}
	if (c->st == C_CLOSING && c->ops == 0)
		finish_close(c);
}

/* ---- after each completion batch ---------------------------------------- */

static void flush_plain(struct shb_conn *c)
{
	struct worker *w = c->w;
	struct shb_vec v[MAX_VECS];
	shb_ssize n = w->vt->pull_send(c->p, v, MAX_VECS, w->now);
	if (n <= 0)
		return;
	if (n == 1) {
		submit_send(c, v[0].base, v[0].len);
		return;
	}
	memcpy(c->iov, v, (size_t)n * sizeof(v[0]));
	submit_sendmsg(c, (size_t)n);
}

static void flush_plugin_tls(struct shb_conn *c)
{
	struct worker *w = c->w;
	char err[160];
	/* Encrypt what the plugin has now; plaintext counts as sent once TLS
	 * took it. Bounded, so one connection cannot starve the others. */
	for (int round = 0; round < 16; round++) {
		struct shb_vec v[MAX_VECS];
		shb_ssize n = w->vt->pull_send(c->p, v, MAX_VECS, w->now);
		if (n <= 0)
			break;
		size_t total = 0;
		for (shb_ssize i = 0; i < n; i++) {
			if (shb_tls_write(&c->tls, v[i].base, v[i].len, err, sizeof(err)) < 0) {
				conn_fail(c, SHB_ERRK_TLS, err);
				return;
			}
			total += v[i].len;
		}
		w->vt->sent(c->p, total, w->now);
		if (!(w->vt->state(c->p) & SHB_CS_WANT_WRITE))
			break;
	}
	flush_tls(c);
}

static void update_deadline(struct shb_conn *c)
{
	struct worker *w = c->w;
	shb_tstamp d = w->vt->next_deadline(c->p);
	c->deadline = d;
	if (d != SHB_TSTAMP_NONE && !c->has_deadline) {
		c->has_deadline = 1;
		w->ndeadlines++;
	} else if (d == SHB_TSTAMP_NONE && c->has_deadline) {
		c->has_deadline = 0;
		w->ndeadlines--;
	}
}

static void service(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (w->dgram)
		deliver_dgrams(c);
	if (c->st != C_READY)
		return;
	while (may_issue(w) && w->vt->capacity(c->p) > 0)
		if (issue_one(c) < 0)
			break;
	uint32_t st = w->vt->state(c->p);
	if ((st & SHB_CS_WANT_WRITE) && !c->send_busy) {
		if (w->dgram)
			flush_dgrams(c);
		else if (c->tls_live)
			flush_plugin_tls(c);
		else
			flush_plain(c);
		if (c->st != C_READY)
			return;
		st = w->vt->state(c->p);
	}
	if (c->tls_live)
		flush_tls(c);
	if ((st & SHB_CS_CLOSED) && (st & SHB_CS_WANT_WRITE) && c->send_busy) {
		update_deadline(c);
		return; /* its last words (e.g. CONNECTION_CLOSE) go out first */
	}
	if (st & SHB_CS_CLOSED) {
		if (c->nused)
			conn_fail(c, SHB_ERRK_READ, "connection closed with a request outstanding");
		else if (c->tls_live && !c->send_busy) {
			close_politely(c);
		} else
			begin_close(c);
		return;
	}
	update_deadline(c);
}

static void service_dirty(struct worker *w)
{
	/* service() can dirty other connections only through this one, but a
	 * fresh entry may be appended while we walk: use an index loop. */
	for (uint32_t i = 0; i < w->ndirty; i++) {
		struct shb_conn *c = &w->conns[w->dirty[i]];
		/* Cleared only afterwards: the plugin calls made by service()
		 * (req_done, conn_event) must not put c on the list again, or
		 * the list, sized one entry per connection, would overflow. */
		service(c);
		c->dirty = 0;
	}
	w->ndirty = 0;
}

/* Refused requests went back to the budget: offer them to connections that
 * have room even if nothing else happened to them in this batch. */
static void place_retries(struct worker *w)
{
	for (uint32_t i = 0; i < w->nconns && w->nretry && may_issue(w); i++) {
		struct shb_conn *c = &w->conns[i];
		if (c->st == C_READY && !c->dirty && w->vt->capacity(c->p) > 0)
			mark_dirty(c);
	}
	service_dirty(w);
}

/* Revives idle slots while there is work nobody is connecting for. */
static void revive(struct worker *w)
{
	if (w->stopping || w->nidle == 0)
		return;
	w->revive_at = 0;
	for (uint32_t i = 0; i < w->nconns && w->nidle; i++) {
		struct shb_conn *c = &w->conns[i];
		if (c->st != C_IDLE)
			continue;
		if (unissued(w) <= w->nconnecting)
			break;
		if (c->retry_at > w->now) {
			if (!w->revive_at || c->retry_at < w->revive_at)
				w->revive_at = c->retry_at;
			continue;
		}
		start_connect(c);
	}
}

/* --timeout: the request is an error now, and only it. The plugin cancels
 * it (RST_STREAM, RESET_STREAM + STOP_SENDING; HTTP/1.1 closes, since a
 * response cannot be abandoned mid-stream); the slot is freed first, so
 * whatever the plugin might still report for the cookie is ignored. A
 * plugin without cancel loses its connection, and the other requests on
 * it with it. */
static void expire_request(struct shb_conn *c, uint32_t k)
{
	struct worker *w = c->w;
	char msg[120];
	snprintf(msg, sizeof(msg), "request timed out after %.3gs",
		 (double)w->run->cfg->timeout_ns / 1e9);
	if (!w->vt->cancel) {
		conn_fail(c, SHB_ERRK_TIMEOUT, msg);
		return;
	}
	uint64_t cookie = req_cookie(c, k);
	c->reqs[k].used = 0;
	c->nused--;
	c->answered = 1;
	count_error(w, SHB_ERRK_TIMEOUT, msg);
	finished_one(w);
	w->vt->cancel(c->p, cookie, w->now);
	mark_dirty(c);
}

static void check_timers(struct worker *w)
{
	const struct shb_config *cfg = w->run->cfg;
	char msg[120];

	for (uint32_t i = 0; i < w->nconns; i++) {
		struct shb_conn *c = &w->conns[i];
		if (c->st == C_HANDSHAKE && w->now - c->t_connect > cfg->connect_timeout_ns) {
			snprintf(msg, sizeof(msg), "TLS handshake: timed out after %.3gs",
				 (double)cfg->connect_timeout_ns / 1e9);
			conn_fail(c, SHB_ERRK_TIMEOUT, msg);
			continue;
		}
		if (c->st != C_READY)
			continue;
		if (c->has_deadline && w->now >= c->deadline) {
			int r = w->vt->on_timer(c->p, w->now);
			if (r < 0) {
				plugin_fail(c, r, "protocol timer failed");
				continue;
			}
			mark_dirty(c);
		}
		if (!cfg->timeout_ns || !c->nused)
			continue;
		for (uint32_t k = 0; k < w->parallel && c->st == C_READY; k++)
			if (c->reqs[k].used && w->now - c->reqs[k].t_start > cfg->timeout_ns)
				expire_request(c, k);
	}
}

static uint64_t next_wait(struct worker *w)
{
	uint64_t wait = TICK_NS;
	if (w->next_check > w->now && w->next_check - w->now < wait)
		wait = w->next_check - w->now;
	if (w->revive_at > w->now && w->revive_at - w->now < wait)
		wait = w->revive_at - w->now;
	if (w->ndeadlines) {
		for (uint32_t i = 0; i < w->nconns; i++) {
			struct shb_conn *c = &w->conns[i];
			if (!c->has_deadline)
				continue;
			uint64_t d = c->deadline > w->now ? c->deadline - w->now : 0;
			if (d < wait)
				wait = d;
		}
	}
	return wait;
}

static void stop_all(struct worker *w)
{
	if (!w->stopping && !w->args->end_ns)
		w->args->end_ns = w->now;
	w->stopping = 1;
	/* Sends queued in this pass (a last RST_STREAM) reach the kernel
	 * before the sockets are shut down under them. */
	io_uring_submit(&w->u.ring);
	for (uint32_t i = 0; i < w->nconns; i++)
		close_politely(&w->conns[i]);
}

static uint32_t ops_left(const struct worker *w)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < w->nconns; i++)
		n += w->conns[i].ops;
	return n;
}

/* One completion at a time, each released to the kernel before it is
 * handled: a handler may need an SQE, and get_sqe may then stash what is
 * left in the CQ. The stash holds older completions, so it goes first. */
static void reap(struct worker *w)
{
	for (;;) {
		struct io_uring_cqe cqe, *k;
		unsigned head;
		int got = 0;
		if (w->stash_head < w->nstash) {
			cqe = w->stash[w->stash_head++];
			if (w->stash_head == w->nstash)
				w->stash_head = w->nstash = 0;
			got = 1;
		} else {
			io_uring_for_each_cqe(&w->u.ring, head, k) {
				cqe = *k;
				io_uring_cq_advance(&w->u.ring, 1);
				got = 1;
				break;
			}
		}
		if (!got)
			return;
		on_cqe(w, &cqe);
	}
}

/* ---- setup and the loop --------------------------------------------------- */

static unsigned pow2_at_least(unsigned v)
{
	unsigned p = 1;
	while (p < v)
		p <<= 1;
	return p;
}

static int worker_setup(struct worker *w)
{
	struct shb_worker_args *a = w->args;
	const struct shb_config *cfg = w->run->cfg;
	int r;

	w->nconns = a->conns;
	if (a->budget && a->budget < w->nconns * (uint64_t)w->parallel)
		w->nconns = (uint32_t)((a->budget + w->parallel - 1) / w->parallel);
	unsigned entries = pow2_at_least(2 * w->nconns + 8);
	if (entries < 256)
		entries = 256;
	if (entries > 32768)
		entries = 32768;
	r = shb_uring_init(&w->u, entries);
	if (r < 0) {
		if (r == -EPERM || r == -ENOSYS)
			snprintf(a->err, sizeof(a->err),
				 "io_uring is not available (%s): in a container, allow the "
				 "io_uring_setup/enter/register syscalls (e.g. docker "
				 "--security-opt seccomp=unconfined), or check "
				 "/proc/sys/kernel/io_uring_disabled", strerror(-r));
		else
			snprintf(a->err, sizeof(a->err), "io_uring setup: %s", strerror(-r));
		return -1;
	}
	w->have_ring = 1;
	r = io_uring_register_files_sparse(&w->u.ring, w->nconns);
	if (r < 0) {
		snprintf(a->err, sizeof(a->err), "io_uring register files: %s", strerror(-r));
		return -1;
	}
	unsigned nbuf = pow2_at_least(2 * w->nconns);
	nbuf = nbuf < 64 ? 64 : nbuf > 32768 ? 32768 : nbuf;
	r = shb_buf_ring_init(&w->u, &w->br, nbuf, RECV_BUF_SIZE, 0);
	if (r < 0) {
		snprintf(a->err, sizeof(a->err), "io_uring buffer ring: %s", strerror(-r));
		return -1;
	}
	size_t align = 64;
	w->pstride = (w->desc->conn_size + align - 1) & ~(align - 1);
	w->conns = calloc(w->nconns, sizeof(*w->conns));
	w->pmem = aligned_alloc(align, w->pstride * w->nconns);
	w->dirty = calloc(w->nconns, sizeof(*w->dirty));
	struct req_slot *reqs = calloc((size_t)w->nconns * w->parallel, sizeof(*reqs));
	if (!w->conns || !w->pmem || !w->dirty || !reqs) {
		free(reqs);
		snprintf(a->err, sizeof(a->err), "out of memory for %u connections", w->nconns);
		return -1;
	}
	for (uint32_t i = 0; i < w->nconns; i++) {
		struct shb_conn *c = &w->conns[i];
		c->w = w;
		c->idx = i;
		c->fd = -1;
		c->st = C_IDLE;
		c->p = w->pmem + w->pstride * i;
		c->reqs = reqs + (size_t)i * w->parallel;
	}
	w->nidle = w->nconns;
	w->refuse_cap = 2ull * w->nconns * w->parallel;
	if (w->refuse_cap < REFUSE_STREAK_MIN)
		w->refuse_cap = REFUSE_STREAK_MIN;
	w->rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)a->index + 1) * 0xbf58476d1ce4e5b9ull;
	w->dgram = w->desc->transport == SHB_TRANSPORT_DGRAM;
	if (w->dgram)
		w->gso = probe_gso(w->run->addr.ss_family);
	if (w->desc->worker_size) {
		w->pworker = calloc(1, w->desc->worker_size);
		if (!w->pworker) {
			snprintf(a->err, sizeof(a->err), "out of memory");
			return -1;
		}
	}
	if (w->vt->worker_init &&
	    (r = w->vt->worker_init(w->run->module, w->pworker, a->index)) < 0) {
		snprintf(a->err, sizeof(a->err), "protocol worker_init failed: %s",
			 w->run->host->strerror(r));
		return -1;
	}
	w->connect_ts.tv_sec = (long long)(cfg->connect_timeout_ns / 1000000000u);
	w->connect_ts.tv_nsec = (long long)(cfg->connect_timeout_ns % 1000000000u);
	if (cfg->batch_size)
		w->want = cfg->batch_size;
	else if (w->desc->flags & SHB_PROTO_MULTIPLEXED)
		w->want = w->parallel / 2;
	else
		w->want = w->nconns / 4;
	if (w->want < 1)
		w->want = 1;
	if (!cfg->batch_size && w->want > ((w->desc->flags & SHB_PROTO_MULTIPLEXED) ? 32u : 8u))
		w->want = (w->desc->flags & SHB_PROTO_MULTIPLEXED) ? 32u : 8u;
	return 0;
}

static void worker_teardown(struct worker *w)
{
	/* The ring goes first: it cancels whatever is still in flight before
	 * the memory those operations point at is freed. */
	if (w->have_ring)
		shb_uring_exit(&w->u);
	shb_buf_ring_free(NULL, &w->br);
	for (uint32_t i = 0; w->conns && i < w->nconns; i++) {
		struct shb_conn *c = &w->conns[i];
		if (c->plugin_live)
			w->vt->conn_fini(c->p);
		if (c->tls_live)
			shb_tls_free(&c->tls);
		if (c->fd >= 0)
			close(c->fd);
		free(c->tbuf[0].p);
		free(c->tbuf[1].p);
		free(c->backlog.p);
		free(c->dgram_buf);
	}
	if (w->pworker || w->vt->worker_fini) {
		if (w->vt->worker_fini)
			w->vt->worker_fini(w->run->module, w->pworker);
	}
	free(w->pworker);
	if (w->conns)
		free(w->conns[0].reqs);
	free(w->conns);
	free(w->pmem);
	free(w->dirty);
	free(w->stash);
}

static void arm_deadline(struct worker *w)
{
	uint64_t d = w->run->cfg->duration_ns;
	if (!d)
		return;
	w->deadline_ts.tv_sec = (long long)(d / 1000000000u);
	w->deadline_ts.tv_nsec = (long long)(d % 1000000000u);
	struct io_uring_sqe *sqe = get_sqe(w);
	io_uring_prep_timeout(sqe, &w->deadline_ts, 0, 0);
	sqe->user_data = UD_DEADLINE;
}

static void run_loop(struct worker *w)
{
	const struct shb_config *cfg = w->run->cfg;
	uint64_t check_every = cfg->timeout_ns ? cfg->timeout_ns / 20 : TICK_NS;
	shb_tstamp drain_until = 0;

	if (check_every < 1000000)
		check_every = 1000000;
	if (cfg->connect_timeout_ns / 20 < check_every)
		check_every = cfg->connect_timeout_ns / 20 > 1000000 ? cfg->connect_timeout_ns / 20 : 1000000;
	w->now = shb_now_ns();
	w->next_check = w->now + check_every;
	arm_deadline(w);
	revive(w);
	service_dirty(w);
	for (;;) {
		if (!w->stopping &&
		    (w->deadline_hit || atomic_load_explicit(&shb_interrupted, memory_order_relaxed) ||
		     atomic_load_explicit(&w->run->abort_run, memory_order_relaxed) ||
		     (count_mode(w) && w->done >= w->budget))) {
			stop_all(w);
			drain_until = w->now + 1000000000ull;
		}
		if (w->stopping && (ops_left(w) == 0 || w->now >= drain_until))
			break;
		uint64_t wait = w->stopping ? 10000000ull : next_wait(w);
		int r = shb_uring_submit_wait(&w->u, w->stopping ? 1 : w->want,
					      cfg->batch_linger_us, wait);
		if (r < 0 && r != -EBUSY && r != -EAGAIN) {
			snprintf(w->args->err, sizeof(w->args->err), "io_uring_enter: %s",
				 strerror(-r));
			w->args->failed = 1;
			stop_all(w);
			break;
		}
		w->now = shb_now_ns();
		reap(w);
		shb_buf_ring_publish(&w->br);
		if (w->stopping)
			continue;
		service_dirty(w);
		if (w->nretry)
			place_retries(w);
		shb_buf_ring_publish(&w->br);
		if (w->now >= w->next_check || w->ndeadlines) {
			if (w->now >= w->next_check)
				w->next_check = w->now + check_every;
			check_timers(w);
			service_dirty(w);
		}
		revive(w);
		/* A new datagram connection has nothing in flight to wake us:
		 * let it send its first flight now, not after the next tick. */
		service_dirty(w);
		__atomic_store_n(&w->args->live_ok, w->stats->ok, __ATOMIC_RELAXED);
		__atomic_store_n(&w->args->live_errors, w->stats->errors, __ATOMIC_RELAXED);
	}
}

void *shb_worker_main(void *arg)
{
	struct shb_worker_args *a = arg;
	struct worker *w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(a->err, sizeof(a->err), "out of memory");
		a->failed = 1;
		return NULL;
	}
	w->args = a;
	w->run = a->run;
	w->vt = &a->run->proto->vt;
	w->desc = a->run->proto->desc;
	w->stats = &a->stats;
	w->budget = a->budget;
	w->parallel = a->run->cfg->parallel ? a->run->cfg->parallel : 1;
	if (!(w->desc->flags & SHB_PROTO_MULTIPLEXED))
		w->parallel = 1;
	if (worker_setup(w) == 0)
		run_loop(w);
	else
		a->failed = 1;
	if (!a->end_ns)
		a->end_ns = shb_now_ns();
	worker_teardown(w);
	free(w);
	__atomic_store_n(&a->live_done, 1, __ATOMIC_RELEASE);
	return NULL;
}
