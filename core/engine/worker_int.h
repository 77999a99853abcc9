/* The worker's internals, shared by the files that make it up: the slot
 * and worker structs, and the calls between its parts.
 *   worker.c       the loop: setup, the completion batch, service, timers
 *   ring.c         SQEs and CQEs: bounded submits, the completion stash
 *   requests.c     issuing and completing requests, the refusal policy,
 *                  --timeout
 *   conn_budget.c  connections that fail: backoff, the run's early stop,
 *                  connections that never take a request
 *   waiting.c      requests due but not sent yet (no connection or stream
 *                  had room): their --timeout, and the unsent count
 *   timers.c       the worker's checks by the clock, every deadline in
 *                  its timer heap (timer_heap.h)
 *   conn.c         connection life cycle common to every transport
 *   conn_stream.c  TCP and TLS over TCP: connect, receive with backpressure,
 *                  send
 *   conn_dgram.c   connected UDP: datagram batches and GSO trains
 * Everything runs on the worker's own thread. */
#ifndef SHB_CORE_WORKER_INT_H
#define SHB_CORE_WORKER_INT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/batch.h"
#include "engine/conn_budget.h"
#include "engine/mix.h"
#include "engine/rx_clock.h"
#include "engine/run.h"
#include "loader/proto_pick.h"
#include "engine/timer_heap.h"
#include "cli/schedule.h"
#include "cli/source.h"
#include "cli/template.h"
#include "engine/uring_shim.h"
#include "engine/waiting.h"

/* A pass that reaped more completions than this reads the clock again
 * before it sends (worker.c). */
#define REAP_REFRESH 4u
/* How long a cleanly ended connection waits for the server's FIN before
 * sending its own (conn.c shb_conn_close_after_peer). */
#define FIN_WAIT_NS 10000000ull
/* How long a closing connection whose socket is held by the ring only
 * waits for its send in flight (its last words: GOAWAY, close_notify)
 * before it shuts the socket down all the same, which fails that send
 * (conn.c shut_now). Any peer that reads takes a goodbye at once; one
 * that stopped reading would otherwise hold the slot for ever. */
#define SEND_WAIT_NS 100000000ull
/* OP_SHUT: a shutdown through the ring (a socket held only in the file
 * table: run->plan->ring_only_fds, or made by the ring); OP_SOCKET: a
 * socket made by the ring (sock_direct.h). */
enum { OP_CONNECT = 0, OP_RECV = 1, OP_SEND = 2, OP_SHUT = 3, OP_SOCKET = 4 };
#define UD_OP_BITS 3
#define UD_DEADLINE UINT64_MAX
#define UD_IGNORE (UINT64_MAX - 1)
#define SLOT_BITS 20
#define MAX_SLOTS (1u << SLOT_BITS)
/* Also a datagram worker's buffer without GRO: proto.h promises
 * SHB_DGRAM_RECV_MAX whole (with GRO a buffer holds 64 KiB). */
#define RECV_BUF_SIZE 16384
_Static_assert(RECV_BUF_SIZE >= SHB_DGRAM_RECV_MAX, "recv_dgrams promise");
/* Receive buffers of a stream worker's ring at most (worker.c). */
#define RECV_BUFS_MAX 2048u
#define MAX_VECS 16
#define TICK_NS 100000000ull /* wait at most 100 ms: Ctrl-C latency */
/* How often a worker done with its set-up looks whether the others are. */
#define SETUP_POLL_NS 1000000ull
/* Connections a worker has connecting (TCP, proxy, TLS) at once at most:
 * set-up of -c 100000 opens them in waves instead of all at once, which
 * would overflow the server's accept queue and time the last ones out. */
#define CONNECTS_MAX 1024u
/* Datagram connections a worker has in their handshake at once at most
 * during set-up: QUIC's first flights all at once overflow a server's
 * UDP receive buffer (-c 256 against gtlsserver: 46 of 256 handshakes
 * still lost after the 5 s connect timeout, Initial PTOs being 1 s and
 * doubling); in waves of this many, none is lost there. A window that
 * grew by one per handshake completed (a slow start) brought the losses
 * back on loopback, where completions come in bursts. */
#define HANDSHAKES_MAX 16u
#define RX_DGRAMS 64       /* receives held per connection per batch */
/* UDP GRO: one receive may carry up to 64 KiB of coalesced datagrams,
 * behind the io_uring_recvmsg_out header and the UDP_GRO control message;
 * fewer such buffers than for TCP, since one holds a whole GSO train. */
#define GRO_BUF_SIZE (65536 + 256)
#define GRO_BUFS_MAX 256u
/* A run in which no connection ever got through stops once every slot
 * of a worker failed this many times in a row (each time after trying
 * every address). */
#define GIVE_UP_FAILS 5
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
/* The backlog's buffer holds BACKLOG_CAP plus one receive (or one TLS
 * read, as large): an append past that fails with SHB_BUF_E_CAP. */
#define BACKLOG_BUF_MAX ((size_t)BACKLOG_CAP + RECV_BUF_SIZE)
/* The ciphertext a TLS connection holds to send (each of its two
 * buffers): a flush encrypts at most 16 rounds of the protocol's output,
 * a request body is at most 64 MiB (SHB_MAX_BODY), and GnuTLS's own
 * records (alerts, key updates the peer asks for) are small; past this
 * the write fails, and with it the connection. */
#define TLS_OUT_MAX ((size_t)256 << 20)
/* The first allocation of those buffers: small, since a connection keeps
 * them and every page written in them stays resident (starting at 16 KiB
 * cost each TLS connection about 5 KB more, with requests of a few
 * hundred bytes). Doubling from here. */
#define CONN_BUF_FIRST 2048
#define SUBMIT_TRIES 64        /* refused submits before the run stops */
#define STASH_MAX (1u << 22)   /* completions stashed at most */

enum conn_st {
	C_IDLE,       /* no socket; may be (re)connected */
	C_CONNECTING, /* connect SQE in flight */
	C_PROXY,      /* CONNECT sent to a proxy, its answer awaited */
	C_HANDSHAKE,  /* TLS handshake */
	C_READY,      /* transport ready; the plugin runs requests */
	C_CLOSING,    /* waiting for in-flight operations to complete */
};

struct req_slot {
	shb_tstamp t_start;    /* sent */
	shb_tstamp t_intended; /* due (open loop); t_start otherwise */
	/* When it became due, waiting for a connection or a stream
	 * included (waiting.c): --timeout counts from here. */
	shb_tstamp t_due;
	uint16_t gen;
	uint8_t used;
	uint8_t target; /* a mixed run: the target it was issued for */
	/* -L (redirect.h): the chain this request is a hop of, once it
	 * has one (a redirect came, or it is a next hop); NULL otherwise. */
	struct shb_redir_chain *chain;
};

struct worker;

struct shb_conn {
	struct worker *w;
	/* Its origin: addresses, TLS, conn_origin (run->ro[oi]; fixed). */
	const struct shb_run_origin *ro;
	uint32_t oi;
	uint32_t idx;
	uint32_t gen;
	uint32_t idle_pos; /* its place in worker.idle while C_IDLE */
	int fd;
	uint8_t st;
	uint8_t recv_armed, send_busy, connect_busy;
	uint8_t recv_paused; /* backlog held: the multishot recv is not re-armed */
	/* Closing, the receive still got more than CLOSING_RX_MAX bytes
	 * (closing_rx.h): it was cancelled (once). closing_rx counts them. */
	uint8_t recv_cancelled;
	uint32_t closing_rx;
	uint8_t eof_pending; /* the peer's FIN came behind the backlog */
	uint8_t dirty, plugin_live;
	uint32_t ops; /* operations in the kernel */
	void *p;      /* plugin connection memory (conn_size bytes) */
	struct req_slot *reqs;
	uint32_t nused;
	/* Every slot below it is in use: the search for a free one starts
	 * here (the lowest free slot, as a search from 0 would find). */
	uint32_t free_from;
	/* Requests issued on this connection and not given back (refused,
	 * requeued): with none, its failure charges the budget itself. */
	uint32_t issued_here;
	/* A response ended on it, or a request of it timed out (the server
	 * took it and is slow, not failing): its slot stops backing off.
	 * Errors do not count: a server that accepts and closes, or answers
	 * garbage, is failing (conn_budget.c). */
	uint8_t answered;
	uint8_t fails;       /* connections in a row on this slot that did not */
	/* It last could take a request, or had one in flight (conn_budget.c
	 * shb_conn_check_grant; kept by its service and when its last
	 * request ends, looked at by TK_GRANT). */
	shb_tstamp t_granted;
	shb_tstamp retry_at; /* do not reconnect before (backoff) */
	/* run->addrs[ai] is where this slot connects. A connect that fails
	 * (refused, unreachable, timed out) moves it to the next address;
	 * until every address failed once in a row (ai_tried) that attempt
	 * is neither an error nor a reason to back off. addr_kept: one
	 * connected, the slot stays with it. */
	uint8_t ai, ai_tried, addr_kept;
	uint8_t move_addr; /* at close: 1 move on quietly, 2 move on after an error */
	/* Transport and TLS up (stream), or the protocol's handshake done or
	 * a request answered (datagram): it got through. */
	uint8_t established;
	uint8_t hs_timed; /* DGRAM: its handshake time is recorded */
	/* The census (setup_phase.h): a connection of this slot opened once
	 * (ever_up); if not, 1 + the enum shb_never_kind of its last
	 * failure (never_why), 0 before any. */
	uint8_t ever_up, never_why;
	/* The CONNECT request to a proxy is in the kernel; tsent counts
	 * its bytes sent until it is all out. */
	uint8_t proxy_sending;
	/* Its receives are multishot recvmsg with the kernel's receive
	 * stamp (rx_clock.h; TCP; datagram connections with GRO keep
	 * theirs in dg->rx_at). */
	uint8_t rxts;
	/* Its socket is held only in the ring's file table (fd closed once
	 * registered): shutdown goes through the ring (OP_SHUT), after the
	 * send in flight if there is one (shut_pending), or SEND_WAIT_NS
	 * after the close began if that send is still in flight. */
	uint8_t ring_only, shut_pending;
	/* CLOSING, waiting for the server's FIN until its TK_LINGER
	 * deadline (shb_conn_close_after_peer). TK_LINGER also bounds the
	 * wait of shut_pending, which comes after this one. */
	uint8_t await_fin;
	/* The errno of a ring-made socket that failed (OP_SOCKET), read when
	 * the connect linked to it completes cancelled. */
	int sock_err;
	/* The run ended while a send was in flight: the goodbye (a close
	 * frame, GOAWAY, close_notify) follows that send's completion
	 * instead of being skipped (shb_conn_close_politely). */
	uint8_t bye_pending;
	/* The run ended while its protocol waited on the server to close
	 * cleanly (a handshake under way): its input is still delivered
	 * until it has its last words (shb_conn_finish_step). */
	uint8_t finishing;
	/* The last `now` a plugin call on it carried (shb_conn_now). */
	shb_tstamp t_handed;
	/* -s: the script's delay() holds its next request until then
	 * (script_run.h; TK_DELAY), 0 when it does not wait. */
	shb_tstamp script_at;
	shb_tstamp t_connect;   /* connect started (socket created) */
	shb_tstamp t_connected; /* TCP connected / UDP socket ready */
	/* plain send: vecs from pull_send, stable until the CQE */
	struct iovec iov[MAX_VECS];
	struct msghdr msg;
	/* TLS: two ciphertext buffers, one filling, one in the kernel */
	struct shb_tls tls;
	int tls_live;
	struct shb_buf tbuf[2];
	uint8_t tfill;
	size_t tsent;
	/* plaintext the plugin did not take yet (backpressure) */
	struct shb_buf backlog;
	/* datagrams: nrx receives held in dg until the end of the
	 * completion batch (the protocol advances once per batch) */
	uint32_t nrx;
	uint8_t got_data;
	struct shb_conn_dgram *dg; /* datagram transports only, else NULL */
};

/* What only a datagram connection needs, out of struct shb_conn so that
 * a TCP connection does not carry it (about 700 bytes): allocated at its
 * first start (conn_dgram.c), kept across reconnects, freed with the
 * worker. */
struct shb_conn_dgram {
	/* received datagrams held until the end of the completion batch */
	uint16_t rx_bid[RX_DGRAMS];
	uint32_t rx_len[RX_DGRAMS];
	/* With GRO: where the payload starts in the buffer and the size of
	 * its segments (0: one datagram). */
	uint16_t rx_off[RX_DGRAMS];
	uint16_t rx_seg[RX_DGRAMS];
	/* With GRO: the kernel's receive stamp on the worker's clock (0:
	 * none; rx_clock.h). */
	shb_tstamp rx_at[RX_DGRAMS];
	/* the send train's GSO control message, stable until the send
	 * completes (with c->msg and c->iov) */
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} cmsg;
	/* A train from write_dgrams_v (1.4): its datagrams' sizes, how many,
	 * the first not yet sent and where it starts in buf. Each run of
	 * equal sizes goes as one send; the rest waits for its completion. */
	uint16_t vsize[SHB_TRAIN_DEFAULT];
	uint32_t vcount, vnext;
	size_t voff;
	uint8_t buf[]; /* the send train: dgram_max * dgram_train bytes */
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
	/* --tls-resume: the last session data per origin (run->ro[i]),
	 * else NULL. */
	struct shb_tls_ticket *tickets;
	uint32_t nconns;
	uint8_t *pmem;
	size_t pstride;
	void *pworker;
	int pworker_live; /* worker_init succeeded (or has none): fini due */
	uint32_t *dirty;
	uint32_t ndirty;
	uint32_t parallel;
	/* The closed loop's users per connection (waiting.c): parallel, or
	 * 1 when the connection carries a script's strings (its one string
	 * is its one user; plan.h `strings`). */
	uint32_t users;
	int strings; /* that case: -s without -p (plan.h) */
	uint64_t budget, issued, done;
	uint64_t nretry; /* refused requests given back, waiting to be resent */
	uint64_t refuse_streak; /* refusals since the last response */
	uint64_t refuse_cap;    /* ... resent at most; errors beyond */
	shb_tstamp revive_at;   /* earliest backoff end of an idle slot */
	uint64_t rng;           /* xorshift state for backoff jitter */
	uint32_t ngiving_up;    /* slots with fails >= GIVE_UP_FAILS */
	/* run->connected is known to be set: a response came on some
	 * connection of the run. */
	int seen_connected;
	/* Closed loop: the -c x -p users of this worker whose next request
	 * is due but not sent yet, oldest first (waiting.c). */
	struct shb_waiter *waitq;
	uint32_t wq_cap, wq_head, wq_len;
	char last_fail[SHB_SAMPLE_LEN]; /* the last failed connection's error, */
	uint32_t last_fail_ai;          /* ... its address */
	const struct shb_run_origin *last_fail_ro; /* ... of this origin */
	struct shb_mix_worker *mixw;    /* args->mixw */
	/* -s: this worker's script thread (script_run.h), else NULL;
	 * script_stop: the script stopped it (thread:stop()), so it sends
	 * nothing more and ends once nothing is in flight. */
	struct shb_script_worker *script;
	int script_stop;
	/* Connections with a request outstanding (nused > 0), and a moving
	 * average of the latency: the completion batch follows both
	 * (batch.h). */
	uint32_t nbusy;
	uint64_t lat_ns;
	uint32_t nconnecting;
	/* Templated runs (run->tmpls): expansion scratch sized once for the
	 * largest of the targets' templates (shb_tmpl_scratch_size), the
	 * varying header values, the PRNG, and this worker's first
	 * connection slot number in the run. */
	struct shb_tmpl *const *tmpls; /* run->tmpls, by target */
	uint8_t *tscratch;
	struct shb_var_header *thv;
	struct shb_tmpl_rng trng;
	uint32_t conn_base;
	/* -L (redirect.h): chains and queued hops; NULL without it. */
	struct shb_redir *redir;
	/* Gauges for the reports: READY and established (nactive), and over
	 * UDP READY but with the protocol's handshake not done yet
	 * (nhandshaking, counted as connecting). */
	uint32_t nactive, nhandshaking;
	/* The slots in C_IDLE (nidle of them, in no order; a slot's place is
	 * its idle_pos), so that reviving them does not walk every slot. */
	uint32_t *idle;
	uint32_t nidle;
	/* connect_all went through every idle slot and each waits out a
	 * backoff: nothing to start before revive_at unless a slot becomes
	 * idle. */
	uint8_t idle_all_waiting;
	/* Every connection's deadlines (timers.h). */
	struct shb_theap timers;
	shb_tstamp now;
	/* The periodic check: when it next runs, and how often. */
	shb_tstamp next_check;
	uint64_t check_every;
	int stopping;
	int deadline_hit;
	/* Receives cancelled by shb_conn_begin_close (a --debug figure). */
	uint32_t recv_cancels;
	/* Counting: off during --warmup, whose requests (those sent before
	 * w->measure_ns) are left out of every statistic; meanwhile budget
	 * is 0, so -n counts only what is sent after it. */
	int measuring;
	/* Set-up: until `loading`, the worker only connects (its first
	 * connections, no requests). It reports that it is done (`arrived`)
	 * once none is still connecting and every ready one can take a
	 * request, or at setup_until; the load starts when every worker has
	 * (run->load_ns), and measure_ns is then load start + --warmup. */
	int loading;
	int arrived;
	shb_tstamp setup_until;
	uint32_t setup_next; /* set-up: the next slot not started yet */
	/* Slots that opened once (nup_ever; set-up had seen setup_seen of
	 * them), and slots that failed and never opened (nfail_down): the
	 * census and the set-up progress line. */
	uint32_t nup_ever, setup_seen, nfail_down;
	shb_tstamp measure_ns; /* UINT64_MAX until the load starts */
	/* Open loop (-R, --stages): this worker sends the run's requests
	 * sched_k, sched_k + threads, ... (schedule.h), each once it is due
	 * (next_due, UINT64_MAX when the schedule is over) and a connection
	 * has room; the schedule starts with the load (sched_origin). Placing
	 * a due request looks at connections from `cursor` on, so that they
	 * take turns. */
	int open;
	uint64_t sched_k;
	shb_tstamp sched_origin;
	shb_tstamp next_due;
	uint32_t cursor;
	struct shb_sched sched;
	int dgram;  /* the protocol runs over UDP */
	int gso;    /* UDP_SEGMENT works on this kernel */
	/* UDP_GRO works: datagram receives are multishot recvmsg into
	 * GRO_BUF_SIZE buffers, split into segments on delivery. gro_msg
	 * asks for the UDP_GRO control message (read by the kernel when the
	 * receive is armed). */
	int gro;
	struct msghdr gro_msg;
	/* Kernel receive stamps (rx_clock.h): rx_msg asks stream receives
	 * for the SCM_TIMESTAMPNS message, gro_msg datagram ones for it and
	 * UDP_GRO. rx_at is the stamp of the receive being handed over (on
	 * the worker's clock; 0 outside one): a response that ends in it is
	 * timed by it, not by `now`. kernel_timed: every receive so far
	 * carried a stamp (a socket that refused SO_TIMESTAMPNS, a receive
	 * without one, a Unix socket, or datagrams without GRO clear it for
	 * the run), so the batch may linger longer (batch.h). */
	int kernel_timed;
	/* TCP sockets of this address family (AF_INET or AF_INET6) are
	 * made by the ring (sock_direct.h); 0: by socket(). Probed at
	 * setup; off with --source (which binds a descriptor). */
	int direct_sock;
	struct msghdr rx_msg;
	struct shb_rx_clock rxc;
	shb_tstamp rx_at;
	/* The largest datagram the protocol writes (its descriptor's
	 * max_dgram) and datagrams per send train (1 without GSO): the
	 * send buffer holds dgram_max * dgram_train bytes. */
	uint32_t dgram_max, dgram_train;
	struct __kernel_timespec connect_ts;
	struct __kernel_timespec deadline_ts;
	struct io_uring_cqe *stash; /* completions moved out of a full CQ */
	uint32_t nstash, stash_head, stash_cap;
	struct io_uring_sqe dead_sqe; /* filled after a fatal submit error */
	uint8_t scratch[RECV_BUF_SIZE];
};

static inline uint64_t shb_ud_make(unsigned op, uint32_t idx, uint32_t gen)
{
	return (uint64_t)op | ((uint64_t)idx << UD_OP_BITS) |
	       ((uint64_t)gen << (UD_OP_BITS + SLOT_BITS));
}

/* [worker] The `now` a plugin call on `c` carries, never earlier than the
 * last one it carried (types.h: the plugin's clock does not run back).
 * Inside a stamped receive (w->rx_at) it is the kernel's stamp, so that
 * the protocol's first-byte and done times are the arrival times; the
 * stamp, raised to the connection's clock when it is behind it, is
 * written back for the core's own timing of the responses it ends.
 * Elsewhere it is the worker's clock. */
static inline shb_tstamp shb_conn_now(struct shb_conn *c)
{
	struct worker *w = c->w;
	shb_tstamp t = w->now;
	if (w->rx_at) {
		if (w->rx_at < c->t_handed)
			w->rx_at = c->t_handed;
		t = w->rx_at;
	}
	c->t_handed = t;
	return t;
}

/* [worker] The `now` for a send completion on a stream connection: the
 * connection's clock as it was (the send is known to be done, not when),
 * so that a send and the response to it reaped in one batch do not
 * push the response's time to the end of the wait. */
static inline shb_tstamp shb_conn_now_held(struct shb_conn *c)
{
	return c->t_handed ? c->t_handed : shb_conn_now(c);
}

static inline int shb_worker_debug_on(const struct worker *w)
{
	return w->run->host->log_enabled(SHB_LOG_DEBUG);
}

__attribute__((format(printf, 2, 3)))
static inline void shb_worker_debugf(const struct worker *w, const char *fmt,
				     ...)
{
	if (!shb_worker_debug_on(w))
		return;
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	w->run->host->log(SHB_LOG_DEBUG, "core", line);
}

/* A request sent during --warmup that ends after it: not counted. */
static inline int shb_worker_warmup_req(const struct worker *w, shb_tstamp t_start)
{
	return w->measuring && t_start < w->measure_ns;
}

/* The -z deadline has passed by the time of what is being handed over
 * (the kernel's receive stamp, else the worker's clock) while the pass
 * that will stop the load has not come yet: the load ended at the
 * deadline (shb_setup_load_end), so a request that ends now was in flight
 * at the end, and counts nowhere, and the rate is not inflated by the
 * completions of a late pass. */
static inline int shb_worker_past_deadline(const struct worker *w)
{
	uint64_t d = w->run->cfg->duration_ns;
	shb_tstamp t = w->rx_at ? w->rx_at : w->now;
	return d && w->loading && w->measure_ns != UINT64_MAX &&
	       t > w->measure_ns + d;
}

static inline int shb_worker_count_mode(const struct worker *w)
{
	return w->budget != 0;
}

static inline int shb_worker_may_issue(const struct worker *w)
{
	if (w->stopping || !w->loading || w->script_stop)
		return 0;
	/* Past the -z deadline a request would count nowhere (see
	 * shb_worker_past_deadline): the server is not sent it either. */
	if (shb_worker_past_deadline(w))
		return 0;
	/* Open loop: a new request only once it is due; a refused one is
	 * resent at once (it was due already). */
	if (w->open && !w->nretry && w->next_due > w->now)
		return 0;
	return !shb_worker_count_mode(w) || w->issued < w->budget;
}

static inline uint64_t shb_worker_unissued(const struct worker *w)
{
	if (!shb_worker_count_mode(w))
		return UINT64_MAX;
	return w->budget > w->issued ? w->budget - w->issued : 0;
}

/* Request slot i of c taken (the lowest free one) or given back: its
 * used flag, c->free_from, c->nused and, when nused goes from or to 0,
 * the worker's busy connections. */
static inline void shb_conn_req_add(struct shb_conn *c, uint32_t i)
{
	c->reqs[i].used = 1;
	if (i == c->free_from)
		c->free_from = i + 1;
	if (c->nused++ == 0)
		c->w->nbusy++;
}

/* The cookie names the slot, its use count and the connection's
 * generation, so a late or repeated report is recognised and ignored. */
static inline uint64_t shb_conn_cookie(const struct shb_conn *c, uint32_t i)
{
	return (uint64_t)i | ((uint64_t)c->reqs[i].gen << 16) |
	       ((uint64_t)c->gen << 32);
}

/* The slot `cookie` names while its request is outstanding, else NULL. */
static inline struct req_slot *shb_conn_slot_of(const struct shb_conn *c,
						uint64_t cookie)
{
	uint32_t i = (uint32_t)(cookie & 0xffff);
	if (i >= c->w->parallel || (uint32_t)(cookie >> 32) != c->gen ||
	    !c->reqs[i].used || c->reqs[i].gen != (uint16_t)(cookie >> 16))
		return NULL;
	return &c->reqs[i];
}

/* Puts c on the list of connections to service after this batch, once:
 * inline, since every response and event marks its connection. */
static inline void shb_conn_mark_dirty(struct shb_conn *c)
{
	if (!c->dirty) {
		c->dirty = 1;
		c->w->dirty[c->w->ndirty++] = c->idx;
	}
}

static inline void shb_conn_req_drop(struct shb_conn *c, uint32_t i)
{
	c->reqs[i].used = 0;
	if (i < c->free_from)
		c->free_from = i;
	if (--c->nused == 0) {
		c->w->nbusy--;
		c->t_granted = c->w->now; /* it had one until now */
	}
}

/* ring.c */
void shb_worker_fatal(struct worker *w, const char *msg);
struct io_uring_sqe *shb_worker_sqe(struct worker *w);
void shb_conn_arm_recv(struct shb_conn *c);
void shb_conn_send(struct shb_conn *c, const void *base, size_t len);
void shb_conn_sendmsg(struct shb_conn *c, size_t n);

/* requests.c */
void shb_worker_finished_one(struct worker *w);
void shb_worker_count_error(struct worker *w, unsigned kind, const char *msg);
/* [worker] A request that never went out (due at `due`, target t) is a
 * --timeout error: charged to the budget like one sent. */
void shb_worker_fail_unsent(struct worker *w, uint32_t t, shb_tstamp due,
			    const char *msg);
/* [worker] Templated runs: the worker's expansion scratch and PRNG;
 * 0, or -1 with args->err set. */
int shb_worker_tmpl_setup(struct worker *w);
/* [worker] Open loop: this worker's next request becomes due. */
void shb_worker_sched_next(struct worker *w);
void shb_conn_fail_outstanding(struct shb_conn *c, unsigned kind, const char *msg);
int shb_conn_issue(struct shb_conn *c);
void shb_conn_requeue_outstanding(struct shb_conn *c);
void shb_conn_expire_request(struct shb_conn *c, uint32_t k);

/* conn.c */
void shb_conn_finish_close(struct shb_conn *c);
void shb_conn_begin_close(struct shb_conn *c);
/* [worker] Cancels c's multishot receive (once per connection): a
 * closing connection whose peer keeps sending; see shb_conn_on_recv. */
void shb_conn_cancel_recv(struct shb_conn *c);
/* [worker] Closes once the server has (or after FIN_WAIT_NS); what the
 * wait ended with. */
void shb_conn_close_after_peer(struct shb_conn *c);
void shb_conn_fin_done(struct shb_conn *c);
/* [worker] TK_LINGER: the wait of a closing connection is over, for the
 * server's FIN (await_fin) or for its send in flight (shut_pending). */
void shb_conn_linger_over(struct shb_conn *c);
/* [worker] The protocol's goodbye (GOAWAY, CONNECTION_CLOSE) and TLS
 * close_notify, sent without waiting (conn.c); no close. */
void shb_conn_say_goodbye(struct shb_conn *c);
/* [worker] Shutdown through the ring for a ring_only socket (conn.c). */
void shb_conn_shut_via_ring(struct shb_conn *c);
void shb_conn_fail(struct shb_conn *c, unsigned kind, const char *msg);
void shb_conn_plugin_fail(struct shb_conn *c, int code, const char *fallback);
void shb_conn_close_politely(struct shb_conn *c);
/* [worker] After input to a connection the run's end left finishing: its
 * last words and close once the protocol has them, or is CLOSED. */
void shb_conn_finish_step(struct shb_conn *c);
/* [worker] Hands the kernel what the protocol has queued (datagrams,
 * plaintext through TLS, or plain bytes); only with no send in flight. */
void shb_conn_flush_protocol(struct shb_conn *c);
int shb_conn_bye_after_send(struct shb_conn *c);
void shb_conn_transport_ready(struct shb_conn *c);
void shb_conn_socket_failed(struct shb_conn *c, int err);
int shb_conn_attach(struct shb_conn *c);
int shb_conn_attach_plugin(struct shb_conn *c);
const struct shb_addr *shb_conn_addr(const struct shb_conn *c);
int shb_conn_next_addr(struct shb_conn *c, int err, const char *msg);
void shb_conn_note_failure(struct shb_conn *c, const char *msg);
void shb_conn_established(struct shb_conn *c);
void shb_conn_handshake_done(struct shb_conn *c);

/* conn_stream.c */
void shb_conn_start(struct shb_conn *c);
void shb_conn_on_connect(struct shb_conn *c, int res);
void shb_conn_on_recv(struct shb_conn *c, struct io_uring_cqe *cqe);
void shb_conn_on_send(struct shb_conn *c, int res);
void shb_conn_flush_plain(struct shb_conn *c);
void shb_conn_flush_plugin_tls(struct shb_conn *c);
void shb_conn_flush_tls(struct shb_conn *c);

/* conn_dgram.c */
int shb_dgram_probe_gso(int family);
int shb_dgram_probe_gro(int family);
void shb_dgram_start(struct shb_conn *c);
void shb_dgram_deliver(struct shb_conn *c);
void shb_dgram_on_recv(struct shb_conn *c, struct io_uring_cqe *cqe);
void shb_dgram_flush(struct shb_conn *c);
/* 1 while a write_dgrams_v train still has datagrams to send (conn_dgram.c). */
int shb_dgram_pending(const struct shb_conn *c);

/* --source: binds c's new socket to its slot's local address before it
 * connects (source.h: slot k of the run takes address k mod count).
 * Returns 0, or -1 after failing c with a connect error. */
static inline int shb_conn_bind_source(struct shb_conn *c, int stream)
{
	const struct shb_source *s = c->w->run->cfg->source;
	if (!s)
		return 0;
	const union shb_source_addr *a = shb_source_pick(s, (uint64_t)c->w->conn_base + c->idx);
	int r = shb_source_bind(c->fd, s, a, stream);
	if (r == 0)
		return 0;
	char text[64], msg[160];
	shb_source_text(s, a, text, sizeof(text));
	snprintf(msg, sizeof(msg), "bind to --source %s: %s", text, strerror(-r));
	shb_conn_fail(c, SHB_ERRK_CONNECT, msg);
	return -1;
}

/* A slot enters C_IDLE: it joins the idle set. */
static inline void shb_conn_set_idle(struct shb_conn *c)
{
	struct worker *w = c->w;
	c->st = C_IDLE;
	c->idle_pos = w->nidle;
	w->idle[w->nidle++] = c->idx;
	w->idle_all_waiting = 0;
}

/* A slot leaves C_IDLE (it starts connecting): the last of the set takes
 * its place. */
static inline void shb_conn_leave_idle(struct shb_conn *c)
{
	struct worker *w = c->w;
	uint32_t last = w->idle[--w->nidle];
	w->idle[c->idle_pos] = last;
	w->conns[last].idle_pos = c->idle_pos;
}

#endif
