/* The worker loop: one thread, one io_uring, its own connections, plugin
 * state and statistics. Nothing mutable is shared with other workers.
 *
 * Every connection lives in a fixed slot (its index is also its registered
 * file slot). A slot is reused only after every operation it handed to the
 * kernel has completed, so buffers, msghdrs and plugin memory referenced by
 * an SQE always outlive it; the generation in user_data guards the rest. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "loader/proto_pick.h"
#include "engine/script_run.h"
#include "engine/setup_phase.h"
#include "engine/sock_direct.h"
#include "engine/redirect.h"
#include "engine/timers.h"
#include "engine/worker_int.h"

uint64_t shb_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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
	unsigned op = (unsigned)(ud & ((1u << UD_OP_BITS) - 1));
	uint32_t idx = (uint32_t)((ud >> UD_OP_BITS) & (MAX_SLOTS - 1));
	uint32_t gen = (uint32_t)(ud >> (UD_OP_BITS + SLOT_BITS));
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
		shb_conn_on_connect(c, cqe->res);
		break;
	case OP_RECV:
		if (w->dgram)
			shb_dgram_on_recv(c, cqe);
		else
			shb_conn_on_recv(c, cqe);
		break;
	case OP_SEND:
		c->ops--;
		shb_conn_on_send(c, cqe->res);
		break;
	case OP_SHUT:
		c->ops--;
		break;
	case OP_SOCKET: /* on failure the connect linked to it is cancelled */
		c->ops--;
		if (cqe->res < 0)
			c->sock_err = -cqe->res;
		break;
	}
	if (c->st == C_CLOSING && c->ops == 0)
		shb_conn_finish_close(c);
}

static void update_deadline(struct shb_conn *c)
{
	struct worker *w = c->w;
	/* Since 1.2 a protocol without timers has neither member. */
	shb_tstamp d = w->vt->next_deadline ? w->vt->next_deadline(c->p)
					    : SHB_TSTAMP_NONE;
	if (d == SHB_TSTAMP_NONE)
		shb_conn_timer_del(c, TK_PROTO);
	else
		shb_conn_timer_set(c, TK_PROTO, d);
}

static void service(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (w->dgram)
		shb_dgram_deliver(c);
	if (c->st != C_READY)
		return;
	if (w->redir) /* -L: hops first, their chains are under way */
		shb_redir_issue(c);
	/* capacity() is how many more issue() takes now: asked once a pass,
	 * not once a request. An issue() that refuses after all (SHB_E_BUSY)
	 * ends the pass like any refusal. */
	uint32_t room = shb_worker_may_issue(w) ? w->vt->capacity(c->p) : 0;
	for (; room && shb_worker_may_issue(w); room--)
		if (shb_conn_issue(c) < 0)
			break;
	if (!c->nused && c->established)
		shb_conn_timer_grant(c);
	uint32_t st = w->vt->state(c->p);
	/* A write_dgrams_v train's rest is the core's to send. */
	if (((st & SHB_CS_WANT_WRITE) || shb_dgram_pending(c)) && !c->send_busy) {
		shb_conn_flush_protocol(c);
		if (c->st != C_READY)
			return;
		st = w->vt->state(c->p);
	}
	if (c->tls_live)
		shb_conn_flush_tls(c);
	/* Its last words (CONNECTION_CLOSE, a WebSocket close frame) go out
	 * before the socket closes: still queued in the plugin, or, over the
	 * core's TLS, taken by TLS (sent() was called) but the record not yet
	 * on the wire. Closing now would drop them. */
	if ((st & SHB_CS_CLOSED) && c->send_busy &&
	    ((st & SHB_CS_WANT_WRITE) || c->tls_live)) {
		update_deadline(c);
		return;
	}
	if (st & SHB_CS_CLOSED) {
		if (c->nused) {
			shb_conn_fail(c, SHB_ERRK_READ, "connection closed with a request outstanding");
			return;
		}
		if (c->tls_live)
			shb_conn_say_goodbye(c);
		shb_conn_close_after_peer(c);
		return;
	}
	update_deadline(c);
}

static void service_dirty(struct worker *w)
{
	/* A mixed run's held connections are woken only between walks (the
	 * list holds each connection once per walk): rounds while any is
	 * woken, up to a bound (the rest at the next call). */
	for (int round = 0; round < 64; round++) {
		/* service() can dirty other connections only through this
		 * one, but a fresh entry may be appended while we walk: use
		 * an index loop. */
		for (uint32_t i = 0; i < w->ndirty; i++) {
			struct shb_conn *c = &w->conns[w->dirty[i]];
			/* Cleared only afterwards: the plugin calls made by
			 * service() (req_done, conn_event) must not put c on
			 * the list again, or the list, sized one entry per
			 * connection, would overflow. */
			service(c);
			c->dirty = 0;
		}
		w->ndirty = 0;
		if (!w->mixw || !shb_mix_wake(w))
			break;
	}
}

/* Refused requests went back to the budget: offer them to connections that
 * have room even if nothing else happened to them in this batch. */
static void place_retries(struct worker *w)
{
	for (uint32_t i = 0; i < w->nconns && w->nretry && shb_worker_may_issue(w); i++) {
		struct shb_conn *c = &w->conns[i];
		if (c->st == C_READY && !c->dirty && w->vt->capacity(c->p) > 0)
			shb_conn_mark_dirty(c);
	}
	service_dirty(w);
}

/* Open loop: requests are due and no completion freed a connection for
 * them in this pass. Offered to the connections with room, taking turns
 * from the cursor; when none has room they wait for the next completion
 * (and count as late if it comes too late). */
static void place_due(struct worker *w)
{
	for (uint32_t n = 0; n < w->nconns && shb_worker_may_issue(w); n++) {
		struct shb_conn *c = &w->conns[w->cursor];
		if (++w->cursor == w->nconns)
			w->cursor = 0;
		if (c->st == C_READY && !c->dirty && w->vt->capacity(c->p) > 0) {
			shb_conn_mark_dirty(c);
			service_dirty(w);
		}
	}
}

/* Revives idle slots while there is work nobody is connecting for, with
 * at most CONNECTS_MAX connecting. Only once the load runs: during set-up
 * shb_setup_connect opens each slot once, and a slot whose first connection
 * failed waits for the load. */
static void connect_all(struct worker *w)
{
	if (w->stopping || w->nidle == 0)
		return;
	if (w->idle_all_waiting && w->revive_at > w->now)
		return;
	w->revive_at = 0;
	/* Each slot of the set once: one that fails at once comes back to
	 * the end of the set and waits for the next pass. */
	uint32_t k = 0, visits = w->nidle;
	/* Requests not issued yet, and -L's hops waiting for a connection. */
	uint64_t work = shb_worker_unissued(w), hops = shb_redir_queued(w);
	work = work > UINT64_MAX - hops ? UINT64_MAX : work + hops;
	while (visits-- && k < w->nidle) {
		struct shb_conn *c = &w->conns[w->idle[k]];
		if (work <= w->nconnecting || w->nconnecting >= CONNECTS_MAX)
			return;
		if (c->retry_at > w->now) {
			if (!w->revive_at || c->retry_at < w->revive_at)
				w->revive_at = c->retry_at;
			k++;
			continue;
		}
		shb_conn_start(c); /* leaves the set: idle[k] is another now */
		if (atomic_load_explicit(&w->run->abort_run, memory_order_relaxed))
			return; /* out of descriptors: no storm of failures */
	}
	w->idle_all_waiting = k == w->nidle;
}

static void revive(struct worker *w)
{
	if (w->loading)
		connect_all(w);
}

static uint64_t next_wait(struct worker *w)
{
	uint64_t wait = TICK_NS, t = shb_worker_next_timer(w);
	if (t < w->now + wait)
		wait = t > w->now ? t - w->now : 0;
	if (w->next_check > w->now && w->next_check - w->now < wait)
		wait = w->next_check - w->now;
	if (w->revive_at > w->now && w->revive_at - w->now < wait)
		wait = w->revive_at - w->now;
	if (!w->measuring && w->measure_ns - w->now < wait)
		wait = w->measure_ns - w->now;
	/* Open loop: awake when the next request is due, not after it (one
	 * already due waits for a completion instead). */
	if (w->open && w->loading && w->next_due > w->now &&
	    w->next_due - w->now < wait)
		wait = w->next_due - w->now;
	if (!w->loading) {
		/* Waiting for the other workers: nothing of theirs wakes this
		 * ring, so look again soon. */
		if (w->arrived && wait > SETUP_POLL_NS)
			wait = SETUP_POLL_NS;
		if (w->setup_until > w->now && w->setup_until - w->now < wait)
			wait = w->setup_until - w->now;
	}
	return wait;
}

static void stop_all(struct worker *w)
{
	if (!w->stopping) {
		shb_wait_count_unsent(w);
		shb_census_take(w);
	}
	if (!w->stopping && !w->args->end_ns)
		w->args->end_ns = shb_setup_load_end(w);
	w->stopping = 1;
	/* Sends queued in this pass (a last RST_STREAM) reach the kernel
	 * before the sockets are shut down under them. */
	io_uring_submit(&w->u.ring);
	for (uint32_t i = 0; i < w->nconns; i++)
		shb_conn_close_politely(&w->conns[i]);
}

static uint32_t ops_left(const struct worker *w)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < w->nconns; i++)
		n += w->conns[i].ops;
	return n;
}

/* The end of a run: whether every connection's operations completed, or
 * the drain is over. --debug says which, and how many receives the
 * closing cancelled (shb_conn_begin_close). */
static int drained(struct worker *w, shb_tstamp until)
{
	uint32_t left = ops_left(w);
	if (left && w->now < until)
		return 0;
	shb_worker_debugf(w, "end of run: %u receive cancels, %u operations left",
			  w->recv_cancels, left);
	return 1;
}

/* Handles every completion there is and says how many: one at a time,
 * each released to the kernel before it is handled (a handler may need
 * an SQE, and get_sqe may then stash what is left in the CQ). The stash
 * holds older completions, so it goes first. */
static unsigned reap(struct worker *w)
{
	for (unsigned n = 0;; n++) {
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
			return n;
		on_cqe(w, &cqe);
	}
}

static unsigned pow2_at_least(unsigned v)
{
	unsigned p = 1;
	while (p < v)
		p <<= 1;
	return p;
}

/* The ring, sized for the connections, and their file table. */
static int ring_setup(struct worker *w)
{
	struct shb_worker_args *a = w->args;
	unsigned entries = pow2_at_least(2 * w->nconns + 8);
	if (entries < 256)
		entries = 256;
	if (entries > 32768)
		entries = 32768;
	int r = shb_uring_init(&w->u, entries);
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
	return 0;
}

/* The receive buffers the kernel picks from. */
static int recv_bufs_setup(struct worker *w)
{
	unsigned nbuf = pow2_at_least(2 * w->nconns);
	unsigned bsize = RECV_BUF_SIZE;
	nbuf = nbuf < 64 ? 64 : nbuf > 32768 ? 32768 : nbuf;
	/* A stream connection holds a receive buffer only from its CQE to
	 * the end of that completion pass: one per connection covers a pass
	 * in which every connection got data, and past RECV_BUFS_MAX the
	 * ring need not grow with -c at all. The kernel walks the ring in
	 * order and sooner or later touches every buffer, so its size is
	 * what it costs in memory. A pass that finds it empty re-arms
	 * (ENOBUFS). */
	if (w->desc->transport != SHB_TRANSPORT_DGRAM) {
		w->kernel_timed = 1; /* until a socket or a receive says otherwise */
		w->rx_msg.msg_controllen = SHB_RX_CLOCK_CMSG_SPACE;
		nbuf = pow2_at_least(w->nconns);
		nbuf = nbuf < 64 ? 64 : nbuf > RECV_BUFS_MAX ? RECV_BUFS_MAX : nbuf;
	}
	if (w->desc->transport == SHB_TRANSPORT_DGRAM &&
	    shb_dgram_probe_gro(w->run->addrs[0].ss.ss_family)) {
		/* One buffer takes a whole coalesced train: fewer, larger,
		 * four per connection (a small ring stays in cache; one the
		 * kernel finds empty is re-armed after the pass, the
		 * datagrams waiting in the socket meanwhile). */
		w->gro = 1;
		w->kernel_timed = 1; /* as for streams, until told otherwise */
		w->gro_msg.msg_controllen = CMSG_SPACE(sizeof(int)) +
					    SHB_RX_CLOCK_CMSG_SPACE;
		bsize = GRO_BUF_SIZE;
		nbuf = pow2_at_least(4 * w->nconns);
		nbuf = nbuf < 16 ? 16 : nbuf > GRO_BUFS_MAX ? GRO_BUFS_MAX : nbuf;
	}
	int r = shb_buf_ring_init(&w->u, &w->br, nbuf, bsize, 0);
	if (r < 0) {
		snprintf(w->args->err, sizeof(w->args->err), "io_uring buffer ring: %s",
			 strerror(-r));
		return -1;
	}
	return 0;
}

/* The connection slots, their plugin memory, request slots and timers. */
static int conns_setup(struct worker *w)
{
	size_t align = 64;
	w->pstride = (w->run->conn_size + align - 1) & ~(align - 1);
	w->conns = calloc(w->nconns, sizeof(*w->conns));
	w->pmem = aligned_alloc(align, w->pstride * w->nconns);
	w->dirty = calloc(w->nconns, sizeof(*w->dirty));
	w->idle = calloc(w->nconns, sizeof(*w->idle));
	if (w->run->cfg->tls_resume)
		w->tickets = calloc(w->run->norigins, sizeof(*w->tickets));
	struct req_slot *reqs = calloc((size_t)w->nconns * w->parallel, sizeof(*reqs));
	if (!w->conns || !w->pmem || !w->dirty || !w->idle || !reqs ||
	    (w->run->cfg->tls_resume && !w->tickets)) {
		free(reqs);
		snprintf(w->args->err, sizeof(w->args->err),
			 "out of memory for %u connections", w->nconns);
		return -1;
	}
	for (uint32_t i = 0; i < w->nconns; i++) {
		struct shb_conn *c = &w->conns[i];
		c->w = w;
		c->idx = i;
		c->fd = -1;
		c->p = w->pmem + w->pstride * i;
		c->reqs = reqs + (size_t)i * w->parallel;
		shb_buf_init(&c->tbuf[0], CONN_BUF_FIRST, TLS_OUT_MAX);
		shb_buf_init(&c->tbuf[1], CONN_BUF_FIRST, TLS_OUT_MAX);
		shb_buf_init(&c->backlog, CONN_BUF_FIRST, BACKLOG_BUF_MAX);
	}
	for (uint32_t i = 0; i < w->nconns; i++)
		shb_conn_set_idle(&w->conns[i]);
	shb_mix_assign_conns(w);
	return shb_worker_timers_init(w);
}

/* The transport's probes and the protocol's per-worker state. */
static int proto_setup(struct worker *w)
{
	struct shb_worker_args *a = w->args;
	int fam = w->run->addrs[0].ss.ss_family, r;
	w->dgram = w->desc->transport == SHB_TRANSPORT_DGRAM;
	if (!w->dgram && !w->run->cfg->source && (fam == AF_INET || fam == AF_INET6) &&
	    shb_sock_direct_probe(&w->u.ring, fam, 0))
		w->direct_sock = fam;
	if (w->dgram) {
		w->gso = shb_dgram_probe_gso(fam);
		shb_proto_dgram_limits(w->desc, w->gso, &w->dgram_max, &w->dgram_train);
	}
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
	w->pworker_live = 1;
	return 0;
}

static int worker_setup(struct worker *w)
{
	struct shb_worker_args *a = w->args;
	const struct shb_config *cfg = w->run->cfg;

	w->nconns = a->conns;
	/* This worker's first slot number in the run (--source takes turns
	 * by it; templates number connections by it). */
	w->conn_base = a->conn_base;
	w->mixw = a->mixw; /* a mixed run sized its connections per origin */
	if (!w->mixw && a->budget && a->budget < w->nconns * (uint64_t)w->users)
		w->nconns = (uint32_t)((a->budget + w->users - 1) / w->users);
	if (ring_setup(w) < 0 || recv_bufs_setup(w) < 0 || conns_setup(w) < 0)
		return -1;
	w->refuse_cap = 2ull * w->nconns * w->parallel;
	if (w->refuse_cap < REFUSE_STREAK_MIN)
		w->refuse_cap = REFUSE_STREAK_MIN;
	w->rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)a->index + 1) * 0xbf58476d1ce4e5b9ull;
	if (proto_setup(w) < 0)
		return -1;
	w->connect_ts.tv_sec = (long long)(cfg->connect_timeout_ns / 1000000000u);
	w->connect_ts.tv_nsec = (long long)(cfg->connect_timeout_ns % 1000000000u);
	if (shb_redir_setup(w) < 0 || shb_worker_tmpl_setup(w) < 0)
		return -1;
	return shb_script_worker_setup(w);
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
		shb_buf_free(&c->tbuf[0]);
		shb_buf_free(&c->tbuf[1]);
		shb_buf_free(&c->backlog);
		free(c->dg);
	}
	shb_redir_free(w);
	free(w->tscratch);
	free(w->thv);
	shb_wait_free(w);
	if (w->pworker_live && w->vt->worker_fini) /* only after its init */
		w->vt->worker_fini(w->run->module, w->pworker);
	free(w->pworker);
	if (w->conns)
		free(w->conns[0].reqs);
	free(w->conns);
	free(w->pmem);
	free(w->dirty);
	free(w->idle);
	for (uint32_t i = 0; w->tickets && i < w->run->norigins; i++)
		shb_tls_ticket_free(&w->tickets[i]);
	free(w->tickets);
	free(w->stash);
	shb_worker_timers_free(w);
}

/* The figures the main thread shows while the run goes (run.h). */
static void publish(struct worker *w)
{
	struct shb_worker_args *a = w->args;
	atomic_store_explicit(&a->live_ok, w->stats->ok, memory_order_relaxed);
	atomic_store_explicit(&a->live_errors, w->stats->errors, memory_order_relaxed);
	atomic_store_explicit(&a->live_active, w->nactive, memory_order_relaxed);
	atomic_store_explicit(&a->live_connecting, w->nconnecting + w->nhandshaking,
			      memory_order_relaxed);
	atomic_store_explicit(&a->live_failed, w->nfail_down, memory_order_relaxed);
}

/* Whether responses come several per receive (batch.h): with -p 1 a
 * multiplexed protocol answers one request per receive, as HTTP/1.1
 * does; a script's strings without -p several when they hold several
 * (the worker's last string says how many), as with -p that deep. */
static int batch_multiplexed(const struct worker *w)
{
	if (!(w->desc->flags & SHB_PROTO_MULTIPLEXED))
		return 0;
	return w->users > 1 || (w->strings && w->script->set.count > 1);
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
	w->check_every = check_every;
	w->now = shb_now_ns();
	w->next_check = w->now + check_every;
	w->setup_until = w->now + shb_setup_wait_ns(cfg);
	shb_setup_connect(w);
	/* A datagram protocol without a handshake is ready as soon as its
	 * socket is, inside shb_setup_connect, and nothing would wake the
	 * ring for it: the load starts now, not at the first periodic
	 * check (check_every, up to TICK_NS later). */
	shb_setup_step(w);
	service_dirty(w);
	for (;;) {
		if (!w->stopping &&
		    (w->deadline_hit || atomic_load_explicit(&shb_interrupted, memory_order_relaxed) ||
		     atomic_load_explicit(&w->run->abort_run, memory_order_relaxed) ||
		     (shb_worker_count_mode(w) && w->done >= w->budget) ||
		     (w->script_stop && !w->nbusy))) {
			stop_all(w);
			drain_until = w->now + (w->loading ? 1000000000ull : SETUP_DRAIN_NS);
		}
		if (w->stopping && drained(w, drain_until))
			break;
		uint64_t wait = w->stopping ? 10000000ull : next_wait(w);
		/* --interval: the main thread may take this pass's deltas
		 * while we wait. */
		if (w->args->ival)
			shb_ival_leave(w->args->ival, w->stats);
		/* Responses are timed by the kernel's receive stamps where
		 * there are any (rx_clock.h), else by the clock read once the
		 * wait returns: batch.h keeps what a batch adds to them small. */
		struct shb_batch_in bi = {
			.size = cfg->batch_size, .linger_us = cfg->batch_linger_us,
			.busy = w->nbusy, .eager = w->stopping || w->open,
			.kernel_timed = w->kernel_timed && !w->nconnecting && !w->nhandshaking,
			.multiplexed = batch_multiplexed(w),
			.wait_ns = wait, .lat_ns = w->lat_ns,
		};
		struct shb_batch b = shb_batch_policy(&bi);
		int r = shb_uring_submit_wait(&w->u, b.want, b.linger_us, wait);
		if (r < 0 && r != -EBUSY && r != -EAGAIN) {
			snprintf(w->args->err, sizeof(w->args->err), "io_uring_enter: %s",
				 strerror(-r));
			w->args->failed = 1;
			stop_all(w);
			break;
		}
		w->now = shb_now_ns();
		if (!w->measuring && w->now >= w->measure_ns)
			shb_setup_begin_measuring(w);
		if (w->args->ival && w->measuring)
			shb_ival_enter(w->args->ival);
		unsigned reaped = reap(w);
		shb_buf_ring_publish(&w->br);
		if (w->stopping)
			continue;
		/* What the pass sends now starts now, not when the wait
		 * returned: a large batch takes a while to reap (a few
		 * completions take a microsecond or two, less than a clock
		 * read is worth). */
		if (reaped > REAP_REFRESH)
			w->now = shb_now_ns();
		service_dirty(w);
		if (w->nretry)
			place_retries(w);
		if (w->script)
			shb_script_tick(w);
		if (w->open && w->next_due <= w->now)
			place_due(w);
		shb_buf_ring_publish(&w->br);
		if (w->now >= w->next_check || shb_worker_timers_due(w)) {
			int periodic = w->now >= w->next_check;
			if (periodic) {
				w->next_check = w->now + w->check_every;
				shb_rx_clock_tick(&w->rxc);
			}
			shb_worker_check_timers(w, periodic);
			service_dirty(w);
		}
		if (!w->loading) {
			shb_setup_connect(w);
			shb_setup_step(w);
		}
		revive(w);
		/* A new datagram connection has nothing in flight to wake us:
		 * let it send its first flight now, not after the next tick. */
		service_dirty(w);
		publish(w);
	}
}

/* -R or --stages: this worker's copy of the schedule, and its first
 * request (its index: worker i takes k = i, i + threads, ...). */
static int open_loop_setup(struct worker *w)
{
	const struct shb_config *cfg = w->run->cfg;
	w->open = cfg->rate_milli || cfg->stage_count;
	w->stats->open_loop = w->open;
	w->sched_k = w->args->index;
	w->next_due = UINT64_MAX;
	if (w->open && shb_sched_init(&w->sched, cfg->rate_milli, cfg->stages,
				      cfg->stage_count, cfg->warmup_ns) < 0) {
		snprintf(w->args->err, sizeof(w->args->err),
			 "open loop: the schedule holds no request");
		return -1;
	}
	return 0;
}

/* Until every worker has its ring (or failed to), or the run is stopped. */
static void wait_rings(struct shb_run *run)
{
	const struct timespec nap = {0, 100000};
	while (atomic_load(&run->rings_left) && !atomic_load(&shb_interrupted))
		nanosleep(&nap, NULL);
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
	w->measuring = a->run->cfg->warmup_ns == 0;
	w->measure_ns = UINT64_MAX;
	w->budget = w->measuring ? a->budget : 0; /* no -n during the warm-up */
	w->parallel = a->run->prun->streams; /* 1 unless multiplexed */
	w->strings = a->run->prun->strings;
	w->users = w->strings ? 1 : w->parallel;
	int ok = open_loop_setup(w) == 0 && worker_setup(w) == 0 &&
		 shb_wait_init(w) == 0;
	atomic_fetch_sub(&w->run->rings_left, 1);
	if (ok)
		wait_rings(w->run);
	if (ok)
		run_loop(w);
	else
		a->failed = 1;
	if (!a->end_ns)
		a->end_ns = shb_now_ns();
	/* A worker that stopped before its set-up was over (-n used up by
	 * connect errors, a failure) must not hold the others back. */
	shb_setup_arrive(w, a->end_ns);
	worker_teardown(w);
	/* The last deltas, before the main thread's final collect. */
	if (a->ival && w->measuring) {
		shb_ival_enter(a->ival);
		shb_ival_leave(a->ival, w->stats);
	}
	free(w);
	atomic_store_explicit(&a->live_done, 1, memory_order_release);
	return NULL;
}
