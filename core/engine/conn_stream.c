/* TCP, and TLS over TCP run in memory by GnuTLS: connect with a linked
 * timeout, multishot receive into the buffer ring with input flow control
 * (paused while the plugin holds a backlog), one send in flight. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>

#include "engine/closing_rx.h"
#include "engine/proxy.h"
#include "engine/sock_direct.h"
#include "engine/timers.h"
#include "engine/worker_int.h"

static void deliver_eof(struct shb_conn *c);
static void deliver(struct shb_conn *c, const uint8_t *data, size_t len);
static void transport_connected(struct shb_conn *c);

/* ---- a CONNECT tunnel through a forward proxy (proxy.h) ---------------- */

/* The proxy's time to set up the tunnel is part of the connect time. */
static void proxy_start(struct shb_conn *c)
{
	struct shb_run *run = c->w->run;
	c->st = C_PROXY;
	shb_buf_clear(&c->backlog);
	c->tsent = 0;
	c->proxy_sending = 1;
	shb_conn_send(c, run->connect_req, run->connect_req_len);
}

static void proxy_sent(struct shb_conn *c, int res)
{
	struct shb_run *run = c->w->run;
	char msg[160];

	if (c->st == C_CLOSING || c->st == C_IDLE)
		return;
	if (res <= 0) {
		snprintf(msg, sizeof(msg), "proxy CONNECT: send: %s",
			 res ? strerror(-res) : "wrote nothing");
		shb_conn_fail(c, SHB_ERRK_CONNECT, msg);
		return;
	}
	c->tsent += (size_t)res;
	if (c->tsent < run->connect_req_len) {
		shb_conn_send(c, run->connect_req + c->tsent,
			      run->connect_req_len - c->tsent);
		return;
	}
	c->proxy_sending = 0;
	c->tsent = 0;
	/* The answer may have come first: what waited for the send goes. */
	if (c->tls_live)
		shb_conn_flush_tls(c);
	else if (c->st == C_READY)
		shb_conn_mark_dirty(c);
}

/* The proxy's answer: its head, bounded, then a 2xx opens the tunnel. */
static void proxy_input(struct shb_conn *c, const uint8_t *data, size_t len)
{
	char msg[SHB_SAMPLE_LEN];
	unsigned status = 0;

	/* Held at most SHB_PROXY_HEAD_MAX plus one receive: past the cap
	 * without the head's end, the answer is refused below. What follows
	 * the head is the tunnel's first bytes, kept whole. */
	if (shb_buf_put(&c->backlog, data, len) != SHB_BUF_OK) {
		shb_conn_fail(c, SHB_ERRK_CONNECT, "out of memory");
		return;
	}
	long n = shb_proxy_read_head(c->backlog.p, c->backlog.len, &status,
				     msg, sizeof(msg));
	if (n == 0)
		return;
	if (n < 0) {
		shb_conn_fail(c, SHB_ERRK_CONNECT, msg);
		return;
	}
	if (status < 200 || status > 299) {
		size_t line = strcspn((const char *)c->backlog.p, "\r\n");
		snprintf(msg, sizeof(msg), "proxy refused CONNECT: %.*s",
			 (int)(line < 120 ? line : 120),
			 (const char *)c->backlog.p);
		shb_conn_fail(c, SHB_ERRK_CONNECT, msg);
		return;
	}
	size_t rest = c->backlog.len - (size_t)n;
	if (rest && c->ro->use_tls) {
		/* A TLS server speaks only after our ClientHello. */
		shb_conn_fail(c, SHB_ERRK_CONNECT, "proxy sent bytes after its "
			      "answer to CONNECT, before the TLS handshake");
		return;
	}
	memmove(c->backlog.p, c->backlog.p + n, rest);
	shb_buf_clear(&c->backlog);
	transport_connected(c);
	/* Bytes the server sent through the tunnel right away (an HTTP/2
	 * server's SETTINGS) go to the protocol. */
	if (rest && c->st == C_READY) {
		c->backlog.len = rest;
		deliver(c, NULL, 0);
	}
}

/* The connect, then its timeout, linked: the last two of a chain. */
static void queue_connect(struct shb_conn *c, const struct shb_addr *addr)
{
	struct worker *w = c->w;
	struct io_uring_sqe *sqe = shb_worker_sqe(w);
	io_uring_prep_connect(sqe, (int)c->idx, (const struct sockaddr *)&addr->ss, addr->len);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_IO_LINK;
	sqe->user_data = shb_ud_make(OP_CONNECT, c->idx, c->gen);
	sqe = shb_worker_sqe(w);
	io_uring_prep_link_timeout(sqe, &w->connect_ts, 0);
	sqe->user_data = UD_IGNORE;
	c->connect_busy = 1;
	c->ops++;
}

/* A TCP socket made by the ring in c's slot (sock_direct.h): socket,
 * SO_TIMESTAMPNS, TCP_NODELAY and connect in one linked chain. Should the
 * socket fail (OP_SOCKET) the rest is cancelled and the connect's
 * completion reports it; the options are hard links, so should one fail
 * the connect still runs (the probe saw both work). */
static void start_direct(struct shb_conn *c, const struct shb_addr *addr)
{
	static const int one = 1;
	struct worker *w = c->w;
	struct io_uring_sqe *sqe;

	c->ring_only = 1;
	c->rxts = 1;
	c->sock_err = 0;
	if (shb_conn_attach_plugin(c) < 0)
		return;
	if (io_uring_sq_space_left(&w->u.ring) < 5)
		io_uring_submit(&w->u.ring); /* a link never straddles submits */
	sqe = shb_worker_sqe(w);
	io_uring_prep_socket_direct(sqe, addr->ss.ss_family, SOCK_STREAM,
				    IPPROTO_TCP, c->idx, 0);
	/* Its completion always comes (had it failed with CQE_SKIP_SUCCESS,
	 * the kernel would skip the cancelled connect's as well). */
	sqe->flags |= IOSQE_IO_LINK;
	sqe->user_data = shb_ud_make(OP_SOCKET, c->idx, c->gen);
	c->ops++;
	sqe = shb_worker_sqe(w);
	shb_prep_setsockopt_int(sqe, c->idx, SOL_SOCKET, SO_TIMESTAMPNS, &one);
	sqe->flags |= IOSQE_IO_HARDLINK | IOSQE_CQE_SKIP_SUCCESS;
	sqe->user_data = UD_IGNORE;
	sqe = shb_worker_sqe(w);
	shb_prep_setsockopt_int(sqe, c->idx, IPPROTO_TCP, TCP_NODELAY, &one);
	sqe->flags |= IOSQE_IO_HARDLINK | IOSQE_CQE_SKIP_SUCCESS;
	sqe->user_data = UD_IGNORE;
	queue_connect(c, addr);
}

void shb_conn_start(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (w->dgram) {
		shb_dgram_start(c);
		return;
	}
	const struct shb_addr *addr = shb_conn_addr(c);
	const struct sockaddr *sa = (const struct sockaddr *)&addr->ss;
	int one = 1;

	shb_conn_leave_idle(c);
	c->st = C_CONNECTING;
	w->nconnecting++;
	c->t_connect = w->now;
	/* A proxy's CONNECT and TLS must be done by then too (the ring
	 * times out the connect itself). */
	shb_conn_timer_set(c, TK_CONNECT, c->t_connect +
			   w->run->cfg->connect_timeout_ns + 1);
	if (w->direct_sock && sa->sa_family == w->direct_sock) {
		start_direct(c, addr);
		return;
	}
	c->fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC,
		       sa->sa_family == AF_UNIX ? 0 : IPPROTO_TCP);
	if (c->fd < 0) {
		shb_conn_socket_failed(c, errno);
		return;
	}
	if (sa->sa_family != AF_UNIX)
		setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* Unix stream sockets carry no receive stamps. */
	c->rxts = sa->sa_family != AF_UNIX && shb_rx_clock_enable(c->fd) == 0;
	if (!c->rxts)
		w->kernel_timed = 0;
	if (shb_conn_bind_source(c, 1) < 0 || shb_conn_attach(c) < 0)
		return;
	if (io_uring_sq_space_left(&w->u.ring) < 2)
		io_uring_submit(&w->u.ring); /* a link never straddles submits */
	queue_connect(c, addr);
}

void shb_conn_flush_tls(struct shb_conn *c)
{
	struct shb_buf *b = &c->tbuf[c->tfill];
	if (c->send_busy || b->len == 0)
		return;
	c->tfill ^= 1;
	shb_buf_clear(&c->tbuf[c->tfill]);
	shb_tls_set_out(&c->tls, &c->tbuf[c->tfill]);
	c->tsent = 0;
	shb_conn_send(c, b->p, b->len);
}

static void tls_failed(struct shb_conn *c, const char *err)
{
	shb_conn_fail(c, SHB_ERRK_TLS, err);
}

void shb_conn_on_connect(struct shb_conn *c, int res)
{
	struct worker *w = c->w;
	char msg[200], d[32];

	c->connect_busy = 0;
	if (c->st != C_CONNECTING)
		return;
	if (res < 0 && c->sock_err) {
		int err = c->sock_err;
		c->sock_err = 0;
		shb_conn_socket_failed(c, err);
		return;
	}
	if (res < 0) {
		if (res == -ECANCELED)
			snprintf(msg, sizeof(msg), "connect: timed out after %s",
				 shb_duration_text(w->run->cfg->connect_timeout_ns, d, sizeof(d)));
		else
			snprintf(msg, sizeof(msg), "connect: %s%s", strerror(-res),
				 /* This machine's local ports, not the server. */
				 res == -EADDRNOTAVAIL ?
				 " (out of local ports: use keep-alive, widen "
				 "net.ipv4.ip_local_port_range, or add addresses "
				 "with --source)" : "");
		if (shb_conn_next_addr(c, -res, msg))
			shb_conn_begin_close(c);
		else
			shb_conn_fail(c, SHB_ERRK_CONNECT, msg);
		return;
	}
	c->addr_kept = 1; /* this address works: the slot stays with it */
	c->ai_tried = 0;
	shb_conn_arm_recv(c);
	if (w->run->connect_req) {
		proxy_start(c);
		return;
	}
	transport_connected(c);
}

/* TCP (and any proxy tunnel) is up: connect time ends here, and TLS or
 * the protocol starts. */
static void transport_connected(struct shb_conn *c)
{
	struct worker *w = c->w;
	char msg[200];

	w->stats->conns_opened++;
	c->t_connected = w->now;
	shb_histo_record(&w->stats->connect, w->now - c->t_connect);
	if (!c->ro->use_tls) {
		shb_conn_transport_ready(c);
		return;
	}
	c->st = C_HANDSHAKE;
	shb_tls_set_out(&c->tls, &c->tbuf[c->tfill]);
	if (shb_tls_new(&c->tls, c->ro->tls, &c->tbuf[c->tfill], msg, sizeof(msg)) < 0) {
		tls_failed(c, msg);
		return;
	}
	if (w->tickets) /* --tls-resume: the origin's last session */
		shb_tls_resume(&c->tls, &w->tickets[c->ro - w->run->ro]);
	c->tls_live = 1;
	shb_tls_feed(&c->tls, NULL, 0);
	if (shb_tls_handshake(&c->tls, msg, sizeof(msg)) < 0) {
		tls_failed(c, msg);
		return;
	}
	shb_conn_flush_tls(c);
}

/* Input flow control: while the plugin holds back input, the multishot
 * receive is cancelled and not re-armed, so the kernel's socket buffer and
 * then the peer's window fill up instead of our memory. */
static void pause_recv(struct shb_conn *c)
{
	c->recv_paused = 1;
	if (!c->recv_armed)
		return;
	struct io_uring_sqe *sqe = shb_worker_sqe(c->w);
	io_uring_prep_cancel64(sqe, shb_ud_make(OP_RECV, c->idx, c->gen), 0);
	sqe->user_data = UD_IGNORE;
}

static void resume_recv(struct shb_conn *c)
{
	c->recv_paused = 0;
	if (!c->recv_armed)
		shb_conn_arm_recv(c);
}

/* An append to the backlog failed: past its cap (BACKLOG_BUF_MAX), the
 * plugin stopped taking input; else there was no memory for it. */
static void backlog_failed(struct shb_conn *c)
{
	if (c->backlog.err == SHB_BUF_E_CAP)
		shb_conn_fail(c, SHB_ERRK_PROTOCOL, "input backlog over its cap of 1 MiB: "
			      "the protocol stopped consuming");
	else
		shb_conn_fail(c, SHB_ERRK_READ, "out of memory");
}

/* Hands plaintext to the plugin, keeping what it could not take yet. */
static void deliver(struct shb_conn *c, const uint8_t *data, size_t len)
{
	struct worker *w = c->w;
	if (c->backlog.len) {
		if (len && shb_buf_put(&c->backlog, data, len) != SHB_BUF_OK) {
			backlog_failed(c);
			return;
		}
		data = c->backlog.p;
		len = c->backlog.len;
	}
	shb_ssize n = w->vt->recv(c->p, data, len, shb_conn_now(c));
	shb_conn_mark_dirty(c);
	if (n < 0) {
		shb_conn_plugin_fail(c, (int)n, "protocol error");
		return;
	}
	size_t rest = len - ((size_t)n < len ? (size_t)n : len);
	if (data == c->backlog.p) {
		memmove(c->backlog.p, c->backlog.p + len - rest, rest);
		c->backlog.len = rest;
	} else if (rest && shb_buf_put(&c->backlog, data + len - rest, rest) != SHB_BUF_OK) {
		backlog_failed(c);
		return;
	}
	if (c->backlog.len && !c->recv_paused)
		pause_recv(c);
	else if (!c->backlog.len && c->eof_pending)
		deliver_eof(c);
	else if (!c->backlog.len && c->recv_paused && c->st == C_READY)
		resume_recv(c);
	shb_conn_finish_step(c);
}

static void deliver_eof(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (c->backlog.len && c->st == C_READY) {
		c->eof_pending = 1; /* after the bytes before it */
		return;
	}
	c->eof_pending = 0;
	if (c->st == C_PROXY) {
		shb_conn_fail(c, SHB_ERRK_CONNECT, "proxy closed the connection "
			      "before answering CONNECT");
		return;
	}
	if (c->st == C_HANDSHAKE) {
		shb_conn_fail(c, SHB_ERRK_TLS, "connection closed during the TLS handshake");
		return;
	}
	if (c->st != C_READY)
		return;
	int r = w->vt->recv_eof(c->p, shb_conn_now(c));
	if (r < 0)
		shb_conn_plugin_fail(c, r, "connection closed by the server");
	else if (c->nused)
		shb_conn_fail(c, SHB_ERRK_READ, "connection closed by the server");
	else
		shb_conn_begin_close(c);
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
			shb_conn_flush_tls(c);
			return;
		}
		shb_conn_transport_ready(c);
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
			shb_conn_fail(c, SHB_ERRK_TLS, err);
			break;
		}
		deliver(c, c->w->scratch, (size_t)n);
	}
	if (c->st == C_READY || c->st == C_HANDSHAKE)
		shb_conn_flush_tls(c);
}

/* A stamped receive (c->rxts): its payload, and the time its last byte
 * came (w->rx_at). *len 0 is the end of the stream. */
static int stamped_payload(struct shb_conn *c, const uint8_t *buf, int res,
			   const uint8_t **data, uint32_t *len)
{
	struct worker *w = c->w;
	uint64_t real;
	if (shb_rx_stamp(&w->rx_msg, (void *)buf, (uint32_t)res, data, len, &real) < 0) {
		shb_conn_fail(c, SHB_ERRK_READ, "recv: a receive buffer not laid out "
			      "as asked for");
		return -1;
	}
	w->rx_at = shb_rx_clock_mono(&w->rxc, real, w->now);
	if (!w->rx_at && *len)
		w->kernel_timed = 0;
	return 0;
}

void shb_conn_on_recv(struct shb_conn *c, struct io_uring_cqe *cqe)
{
	struct worker *w = c->w;
	int res = cqe->res;
	int more = (cqe->flags & IORING_CQE_F_MORE) != 0;
	int eof = res == 0;

	/* Our shutdown ends a TCP receive only once the socket's queue is
	 * empty: a peer that keeps sending (an endless response) keeps it
	 * full, and the receive would go on reading for a connection that
	 * is closing, holding its slot forever. Past what a goodbye takes,
	 * a cancel ends it instead. */
	if (res > 0 && more && c->st == C_CLOSING &&
	    shb_closing_rx_add(&c->closing_rx, (uint32_t)res))
		shb_conn_cancel_recv(c);
	if (res > 0) {
		unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
		const uint8_t *buf = shb_buf_ring_buf(&w->br, bid);
		uint32_t len = (uint32_t)res;
		if (c->rxts && stamped_payload(c, buf, res, &buf, &len) < 0)
			len = 0;
		else if (!len)
			eof = 1;
		w->stats->bytes_recv += len;
		if (len && (c->st == C_READY || c->st == C_HANDSHAKE)) {
			if (c->tls_live)
				tls_input(c, buf, len);
			else
				deliver(c, buf, len);
		} else if (len && c->st == C_PROXY) {
			proxy_input(c, buf, len);
		}
		if (eof)
			deliver_eof(c); /* at the stamp of the receive that saw it */
		w->rx_at = 0;
		shb_buf_ring_recycle(&w->br, bid);
	} else if (eof) {
		deliver_eof(c);
	}
	if (res < 0 && res != -ENOBUFS && res != -ECANCELED) {
		/* ECANCELED: our own cancel (pause_recv, begin_close). */
		char msg[160];
		snprintf(msg, sizeof(msg), "recv: %s", strerror(-res));
		shb_conn_fail(c, SHB_ERRK_READ, msg);
	}
	if (!more) {
		c->recv_armed = 0;
		c->ops--;
		/* Waiting for the server's FIN: it came (or the receive ended
		 * otherwise); ours follows. */
		shb_conn_fin_done(c);
		/* ENOBUFS just means the buffer ring ran dry for a moment. */
		if ((c->st == C_READY || c->st == C_HANDSHAKE ||
		     c->st == C_PROXY) && !eof && !c->recv_paused)
			shb_conn_arm_recv(c);
	}
}

void shb_conn_flush_plain(struct shb_conn *c)
{
	struct worker *w = c->w;
	struct shb_vec v[MAX_VECS];
	shb_ssize n = w->vt->pull_send(c->p, v, MAX_VECS, shb_conn_now(c));
	if (n <= 0)
		return;
	if (n == 1) {
		shb_conn_send(c, v[0].base, v[0].len);
		return;
	}
	memcpy(c->iov, v, (size_t)n * sizeof(v[0]));
	shb_conn_sendmsg(c, (size_t)n);
}

void shb_conn_flush_plugin_tls(struct shb_conn *c)
{
	struct worker *w = c->w;
	char err[160];
	/* Encrypt what the plugin has now; plaintext counts as sent once TLS
	 * took it. Bounded, so one connection cannot starve the others. */
	for (int round = 0; round < 16; round++) {
		struct shb_vec v[MAX_VECS];
		shb_ssize n = w->vt->pull_send(c->p, v, MAX_VECS, shb_conn_now(c));
		if (n <= 0)
			break;
		size_t total = 0;
		for (shb_ssize i = 0; i < n; i++) {
			if (shb_tls_write(&c->tls, v[i].base, v[i].len, err, sizeof(err)) < 0) {
				shb_conn_fail(c, SHB_ERRK_TLS, err);
				return;
			}
			total += v[i].len;
		}
		w->vt->sent(c->p, total, shb_conn_now(c));
		if (!(w->vt->state(c->p) & SHB_CS_WANT_WRITE))
			break;
	}
	shb_conn_flush_tls(c);
}

void shb_conn_on_send(struct shb_conn *c, int res)
{
	struct worker *w = c->w;
	c->send_busy = 0;
	/* Counted whatever the state: the last sends of a run complete
	 * after its connections began to close. */
	if (res > 0)
		w->stats->bytes_sent += (uint64_t)res;
	if (c->shut_pending)
		shb_conn_shut_via_ring(c); /* the last words are out */
	if (c->proxy_sending) {
		proxy_sent(c, res);
		return;
	}
	if (c->st != C_READY && c->st != C_HANDSHAKE)
		return;
	if (w->dgram && (res == -EMSGSIZE || res == -ENOBUFS || res == -EAGAIN)) {
		/* datagram dropped: QUIC recovers it */
		if (!shb_conn_bye_after_send(c))
			shb_conn_mark_dirty(c);
		return;
	}
	if (res <= 0) {
		char msg[160];
		snprintf(msg, sizeof(msg), "send: %s", res ? strerror(-res) : "wrote nothing");
		if (w->dgram && !c->got_data) {
			shb_conn_fail(c, SHB_ERRK_CONNECT, msg);
			return;
		}
		shb_conn_fail(c, SHB_ERRK_WRITE, msg);
		return;
	}
	if (w->dgram) {
		if (!shb_conn_bye_after_send(c))
			shb_conn_mark_dirty(c);
		return;
	}
	if (c->tls_live) {
		struct shb_buf *b = &c->tbuf[c->tfill ^ 1];
		c->tsent += (size_t)res;
		if (c->tsent < b->len) {
			shb_conn_send(c, b->p + c->tsent, b->len - c->tsent);
			return;
		}
		shb_buf_clear(b);
	} else {
		w->vt->sent(c->p, (size_t)res, shb_conn_now_held(c));
	}
	if (shb_conn_bye_after_send(c))
		return;
	/* A plugin that could not take all its input until it had flushed
	 * gets the rest now. */
	if (c->backlog.len && c->st == C_READY)
		deliver(c, NULL, 0);
	shb_conn_mark_dirty(c);
}
