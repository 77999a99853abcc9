/* The life cycle every connection shares, whatever its transport:
 * becoming ready, failing, closing politely, and giving the slot back only
 * once the kernel holds nothing of it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/setup_phase.h"
#include "engine/timers.h"
#include "engine/worker_int.h"

static void last_words(struct shb_conn *c, int bye);

void shb_conn_finish_close(struct shb_conn *c)
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
	shb_buf_clear(&c->tbuf[0]);
	shb_buf_clear(&c->tbuf[1]);
	shb_buf_clear(&c->backlog);
	c->proxy_sending = 0;
	c->recv_paused = 0;
	c->recv_cancelled = 0;
	c->closing_rx = 0;
	c->eof_pending = 0;
	for (uint32_t i = 0; i < c->nrx; i++)
		shb_buf_ring_recycle(&w->br, c->dg->rx_bid[i]);
	c->nrx = 0;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->ring_only = c->shut_pending = c->bye_pending = c->finishing = 0;
	shb_conn_timers_clear(c);
	c->gen++;
	c->issued_here = 0;
	shb_conn_note_outcome(c);
	c->answered = 0;
	c->established = 0;
	shb_conn_set_idle(c);
}

/* A socket held only in the ring's table: its shutdown goes through the
 * ring, counted, so that the slot is not reused before it ran (the
 * registration of the next socket in the slot would otherwise come first
 * and be shut down instead). */
void shb_conn_shut_via_ring(struct shb_conn *c)
{
	struct io_uring_sqe *sqe = shb_worker_sqe(c->w);
	io_uring_prep_shutdown(sqe, (int)c->idx, SHUT_RDWR);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = shb_ud_make(OP_SHUT, c->idx, c->gen);
	c->shut_pending = 0;
	c->ops++;
	if (!c->await_fin)
		shb_conn_timer_del(c, TK_LINGER); /* its wait is over */
}

/* No more plugin calls: the state and the gauges of a closing slot. */
static int enter_closing(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (c->st == C_CLOSING || c->st == C_IDLE)
		return -1;
	if (c->st == C_CONNECTING || c->st == C_PROXY || c->st == C_HANDSHAKE)
		w->nconnecting--;
	else if (c->st == C_READY && c->established)
		w->nactive--;
	else if (c->st == C_READY && w->dgram)
		w->nhandshaking--;
	c->st = C_CLOSING;
	return 0;
}

/* Shuts the socket down (our FIN), which also ends a TCP receive: now, or
 * after the send in flight, within SEND_WAIT_NS: a peer that stopped
 * reading never completes that send, and the shutdown then fails it
 * (shb_conn_linger_over). Returns 1 when that ends c's receive, 0 when
 * it does not (a datagram socket: shutdown ends no UDP receive). */
static int shut_now(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (c->fd >= 0) {
		shutdown(c->fd, SHUT_RDWR);
	} else if (c->ring_only && !w->dgram && c->send_busy) {
		c->shut_pending = 1; /* after the last words (shb_conn_on_send) */
		shb_conn_timer_set(c, TK_LINGER, w->now + SEND_WAIT_NS);
	} else if (c->ring_only && !w->dgram) {
		shb_conn_shut_via_ring(c);
	} else {
		return 0;
	}
	return !w->dgram;
}

/* Cancels c's multishot receive, once per connection. */
void shb_conn_cancel_recv(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (c->recv_cancelled)
		return;
	struct io_uring_sqe *sqe = shb_worker_sqe(w);
	io_uring_prep_cancel64(sqe, shb_ud_make(OP_RECV, c->idx, c->gen), 0);
	sqe->user_data = UD_IGNORE;
	c->recv_cancelled = 1;
	w->recv_cancels++;
}

/* Stops using c: no more plugin calls, the socket is shut down so that the
 * kernel completes the multishot receive and any send, and the slot is
 * released once they have. A receive the shutdown does not end is
 * cancelled; one it ends is not: a cancel looks through every request
 * queued for the ring's workers (io-wq) before it finds its target, and
 * the shutdowns of a run's end are queued there (a shutdown always runs
 * in io-wq), so a cancel per connection costs the square of -c. A
 * receive the shutdown would end but that still gets data (the peer
 * keeps sending) is cancelled when that data comes (shb_conn_on_recv). */
void shb_conn_begin_close(struct shb_conn *c)
{
	if (enter_closing(c) < 0)
		return;
	if (!shut_now(c) && c->recv_armed)
		shb_conn_cancel_recv(c);
	if (c->ops == 0)
		shb_conn_finish_close(c);
}

/* The protocol ended c cleanly and the server is to close it too (HTTP/1.1
 * after Connection: close, HTTP/2 after GOAWAY, WebSocket after the close
 * handshake): wait for its FIN before sending ours, at most FIN_WAIT_NS.
 * The side that closes first keeps the connection in TIME_WAIT: this way
 * it is the server, and this machine's ports stay free for new
 * connections (a client in TIME_WAIT runs out of them under churn, and
 * every connect then searches a fuller port range). */
void shb_conn_close_after_peer(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (w->dgram || !c->recv_armed || c->st != C_READY) {
		shb_conn_begin_close(c);
		return;
	}
	if (enter_closing(c) < 0)
		return;
	c->await_fin = 1;
	shb_conn_timer_set(c, TK_LINGER, w->now + FIN_WAIT_NS);
}

void shb_conn_fin_done(struct shb_conn *c)
{
	if (!c->await_fin)
		return;
	c->await_fin = 0;
	shb_conn_timer_del(c, TK_LINGER);
	(void)shut_now(c); /* a TCP connection: its receive ends with it */
}

void shb_conn_linger_over(struct shb_conn *c)
{
	if (c->await_fin)
		shb_conn_fin_done(c);
	else if (c->shut_pending && c->st == C_CLOSING)
		shb_conn_shut_via_ring(c); /* the send in flight fails */
}

/* Without SNI a server that picks its certificate by name may refuse
 * the handshake (Caddy sends alert 80, nginx 112): say how to send one,
 * only where SNI can be the cause (shb_tls_sni_may_matter). */
#define SNI_HINT " (no SNI was sent for an IP address: set one with " \
		 "--sni NAME or use a host name)"

void shb_conn_fail(struct shb_conn *c, unsigned kind, const char *msg)
{
	char hinted[SHB_SAMPLE_LEN];

	if (c->st == C_CLOSING || c->st == C_IDLE)
		return;
	if (kind == SHB_ERRK_TLS && !c->established && c->ro->sni_hint &&
	    shb_tls_sni_may_matter(msg)) {
		/* The message is cut, never the hint. */
		snprintf(hinted, sizeof(hinted), "%.*s" SNI_HINT,
			 (int)(sizeof(hinted) - sizeof(SNI_HINT)), msg);
		msg = hinted;
	}
	if (!c->answered)
		shb_conn_note_failure(c, msg);
	shb_conn_fail_outstanding(c, kind, msg);
	shb_conn_begin_close(c);
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

void shb_conn_plugin_fail(struct shb_conn *c, int code, const char *fallback)
{
	const char *d = c->w->vt->error_detail ? c->w->vt->error_detail(c->p) : NULL;
	char msg[SHB_SAMPLE_LEN];
	snprintf(msg, sizeof(msg), "%s", d && d[0] ? d : fallback);
	/* The plugin may have queued a last frame saying why (GOAWAY with an
	 * error code, CONNECTION_CLOSE): the peer deserves to see it. */
	if (code > SHB_E_FATAL)
		last_words(c, 0);
	shb_conn_fail(c, plugin_err_kind(code), msg);
}

/* One best-effort send of last words: straight on the socket, not
 * waited for; a socket held only in the ring's table (ring_only) sends
 * through the ring instead, counted, with `v` copied into c->iov (its
 * memory stays until the slot closes, which waits for the send). */
static void send_last(struct shb_conn *c, const struct shb_vec *v, size_t n)
{
	if (c->ring_only) {
		memcpy(c->iov, v, n * sizeof(v[0]));
		shb_conn_sendmsg(c, n);
		return;
	}
	/* struct shb_vec is layout-compatible with struct iovec. */
	struct msghdr m = {.msg_iov = (struct iovec *)(void *)v, .msg_iovlen = n};
	(void)sendmsg(c->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* Sends what the plugin still has queued (a GOAWAY, a CONNECTION_CLOSE)
 * and, for TLS, close_notify: best effort, nothing is waited for. Only
 * when no send is in flight, so the byte stream stays in order. */
static void last_words(struct shb_conn *c, int bye)
{
	struct worker *w = c->w;
	char err[128];
	if (c->st != C_READY || c->send_busy || !c->plugin_live)
		return;
	if (w->dgram) {
		size_t seg = 0, count = 0;
		uint16_t size;
		/* One datagram, whichever way the protocol writes them. */
		shb_ssize n = w->vt->write_dgrams_v ?
			w->vt->write_dgrams_v(c->p, c->dg->buf, w->dgram_max, &size, 1,
					      &count, shb_conn_now(c)) :
			w->vt->write_dgrams(c->p, c->dg->buf, w->dgram_max, &seg,
					    shb_conn_now(c));
		if (n > 0)
			send_last(c, &(struct shb_vec){c->dg->buf, (size_t)n}, 1);
		return;
	}
	struct shb_vec v[MAX_VECS];
	shb_ssize n = 0;
	if (w->vt->state(c->p) & SHB_CS_WANT_WRITE)
		n = w->vt->pull_send(c->p, v, MAX_VECS, shb_conn_now(c));
	if (n > 0 && !c->tls_live) {
		send_last(c, v, (size_t)n);
		return;
	}
	for (shb_ssize i = 0; i < n; i++)
		shb_tls_write(&c->tls, v[i].base, v[i].len, err, sizeof(err));
	if (c->tls_live) {
		struct shb_buf *b = &c->tbuf[c->tfill];
		if (bye)
			shb_tls_bye(&c->tls);
		/* Over the ring b stays as it is until the send completes. */
		if (b->len)
			send_last(c, &(struct shb_vec){b->p, b->len}, 1);
		if (!c->ring_only)
			shb_buf_clear(b);
	}
}

/* The end of a run, or a connection we are done with: let the plugin say
 * goodbye (GOAWAY, CONNECTION_CLOSE) and TLS send close_notify. */
void shb_conn_say_goodbye(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (c->st == C_READY && !c->send_busy && c->plugin_live) {
		if (w->vt->shutdown) /* optional: nothing to say first */
			w->vt->shutdown(c->p, SHB_SHUT_GRACEFUL, shb_conn_now(c));
		last_words(c, 1);
	}
}

/* The end of a run: the protocol's graceful shutdown, its last words, and
 * the close. A stream protocol that then says DRAINING with nothing to
 * send and not CLOSED waits on the server before it can close cleanly (a
 * WebSocket upgrade whose 101 has not come yet: no close frame may go
 * before it): c stays, its input still delivered, until the protocol has
 * its last words or is CLOSED (shb_conn_finish_step), within the worker's
 * drain. Closing it at once would end a connection the server has just
 * accepted without the protocol's goodbye. */
static void end_politely(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (!w->dgram && c->st == C_READY && !c->send_busy && c->plugin_live &&
	    c->recv_armed && w->vt->shutdown) {
		w->vt->shutdown(c->p, SHB_SHUT_GRACEFUL, shb_conn_now(c));
		uint32_t st = w->vt->state(c->p);
		if ((st & (SHB_CS_DRAINING | SHB_CS_WANT_WRITE | SHB_CS_CLOSED)) ==
		    SHB_CS_DRAINING) {
			c->finishing = 1;
			return;
		}
		last_words(c, 1);
	} else {
		shb_conn_say_goodbye(c);
	}
	shb_conn_begin_close(c);
}

void shb_conn_close_politely(struct shb_conn *c)
{
	shb_conn_fin_done(c); /* the run is ending: no more waiting */
	if (c->st == C_READY && c->send_busy && c->plugin_live) {
		/* Its goodbye must follow the bytes in flight (one stream),
		 * or wait for the datagram buffer they are sent from:
		 * shb_conn_bye_after_send. The worker's drain bounds the wait. */
		c->bye_pending = 1;
		return;
	}
	end_politely(c);
}

void shb_conn_finish_step(struct shb_conn *c)
{
	if (!c->finishing || c->st != C_READY)
		return;
	uint32_t st = c->w->vt->state(c->p);
	if ((st & (SHB_CS_DRAINING | SHB_CS_WANT_WRITE | SHB_CS_CLOSED)) == SHB_CS_DRAINING)
		return; /* still waiting on the server */
	c->finishing = 0;
	if (c->send_busy) {
		c->bye_pending = 1; /* after that send: shb_conn_bye_after_send */
		return;
	}
	last_words(c, 1);
	shb_conn_begin_close(c);
}

void shb_conn_flush_protocol(struct shb_conn *c)
{
	if (c->w->dgram)
		shb_dgram_flush(c);
	else if (c->tls_live)
		shb_conn_flush_plugin_tls(c);
	else
		shb_conn_flush_plain(c);
}

/* A send completed (a stream one whole): a goodbye put off by
 * shb_conn_close_politely goes now for a datagram connection, and for a
 * stream once the protocol has nothing else left to send; until then the
 * sending goes on from here (the loop serves no connection while
 * stopping). Returns 1 when the caller is done with c. */
int shb_conn_bye_after_send(struct shb_conn *c)
{
	if (!c->bye_pending)
		return 0;
	/* Datagrams keep no order: a CONNECTION_CLOSE goes as soon as the
	 * send buffer is free. */
	if (!c->w->dgram && (c->w->vt->state(c->p) & SHB_CS_WANT_WRITE))
		shb_conn_flush_protocol(c);
	else if (!c->w->dgram && c->tls_live)
		shb_conn_flush_tls(c); /* records TLS still holds */
	if (c->st != C_READY || c->send_busy)
		return 1;
	c->bye_pending = 0;
	end_politely(c);
	return 1;
}

void shb_conn_transport_ready(struct shb_conn *c)
{
	struct worker *w = c->w;
	char alpn[64] = "";
	struct shb_transport_info info;

	memset(&info, 0, sizeof(info));
	info.struct_size = sizeof(info);
	info.peer = (const struct sockaddr *)&shb_conn_addr(c)->ss;
	info.peer_len = shb_conn_addr(c)->len;
	info.ts_connected = c->t_connected;
	info.ts_handshake = w->now;
	info.max_dgram = w->dgram ? w->dgram_max : 0;
	if (c->tls_live) {
		/* The core's TLS handshake, from TCP connected to done. */
		shb_histo_record(&w->stats->handshake, w->now - c->t_connected);
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
				shb_conn_fail(c, SHB_ERRK_CONNECT, msg);
				return;
			}
		}
	}
	w->nconnecting--;
	c->st = C_READY;
	shb_conn_timer_del(c, TK_CONNECT);
	if (w->dgram)
		w->nhandshaking++;
	else
		shb_conn_established(c);
	int r = w->vt->on_transport_ready(c->p, &info, shb_conn_now(c));
	if (r < 0) {
		shb_conn_plugin_fail(c, r, "protocol start failed");
		return;
	}
	shb_conn_mark_dirty(c);
}

/* Out of descriptors is this machine's limit, not the server's fault:
 * stop the run with one line saying what to change. */
void shb_conn_socket_failed(struct shb_conn *c, int err)
{
	char msg[200];
	if (err == EMFILE || err == ENFILE) {
		snprintf(msg, sizeof(msg), "socket: %s with %u connections per "
			 "worker: raise the limit (ulimit -n) or lower -c",
			 strerror(err), c->w->nconns);
		shb_worker_fatal(c->w, msg);
		shb_conn_fail(c, SHB_ERRK_CONNECT, msg);
		return;
	}
	snprintf(msg, sizeof(msg), "socket: %s", strerror(err));
	if (shb_conn_next_addr(c, err, msg))
		shb_conn_begin_close(c);
	else
		shb_conn_fail(c, SHB_ERRK_CONNECT, msg);
}

const struct shb_addr *shb_conn_addr(const struct shb_conn *c)
{
	return &c->ro->addrs[c->ai];
}

/* Errors after which another address of the name may work: this one
 * refuses, cannot be reached, does not answer, or is of a family this
 * host lacks. */
static int other_addr_may_work(int err)
{
	return err == ECONNREFUSED || err == ENETUNREACH ||
	       err == EHOSTUNREACH || err == EADDRNOTAVAIL ||
	       err == ETIMEDOUT || err == ECANCELED || err == EAFNOSUPPORT;
}

/* A connect failed with err: decides whether the slot moves to the next
 * address when it closes. Returns 1 when that address was not tried yet
 * in this round: the caller closes without an error, and the slot
 * reconnects at once. Returns 0 when the failure is an error (the caller
 * fails the connection): after a full round the slot still moves on, but
 * backs off first. Once an address worked for a slot, it stays. */
int shb_conn_next_addr(struct shb_conn *c, int err, const char *msg)
{
	struct worker *w = c->w;
	uint32_t n = c->ro->naddrs;

	if (n < 2 || c->addr_kept || !other_addr_may_work(err))
		return 0;
	if ((uint32_t)c->ai_tried + 1 < n) {
		c->ai_tried++;
		c->move_addr = 1;
		shb_conn_note_failure(c, msg);
		if (shb_worker_debug_on(w)) {
			char a[64], line[SHB_SAMPLE_LEN + 96];
			shb_addr_text(shb_conn_addr(c), a, sizeof(a));
			snprintf(line, sizeof(line), "%s: %.*s; trying the next "
				 "address", a, SHB_SAMPLE_LEN - 1, msg);
			w->run->host->log(SHB_LOG_DEBUG, "core", line);
		}
		return 1;
	}
	c->ai_tried = 0;
	c->move_addr = 2;
	return 0;
}

/* Remembered for the line that stops a run nothing ever got through to. */
void shb_conn_note_failure(struct shb_conn *c, const char *msg)
{
	struct worker *w = c->w;
	shb_census_fail(c, msg);
	if (w->seen_connected)
		return;
	snprintf(w->last_fail, sizeof(w->last_fail), "%.*s",
		 (int)sizeof(w->last_fail) - 1, msg);
	w->last_fail_ai = c->ai;
	w->last_fail_ro = c->ro;
}

/* The connection is up (transport and TLS, or the protocol's handshake
 * over UDP): the slot keeps its address. The run stops early only when
 * no response ever came (shb_conn_succeeded). */
void shb_conn_established(struct shb_conn *c)
{
	struct worker *w = c->w;
	shb_census_up(c);
	if (!c->established && c->st == C_READY) {
		w->nactive++;
		if (w->dgram)
			w->nhandshaking--;
	}
	if (!c->established)
		c->t_granted = w->now;
	c->established = 1;
	c->addr_kept = 1;
	c->ai_tried = 0;
}

/* The protocol says its handshake is done (SHB_CEV_HANDSHAKE_DONE). Over
 * UDP that is the connection's set-up (QUIC): timed from the socket being
 * ready, once per connection. Over TCP the core timed its own TLS
 * handshake, and a protocol's later one (HTTP/2 SETTINGS) is not timed. */
void shb_conn_handshake_done(struct shb_conn *c)
{
	struct worker *w = c->w;
	if (!w->dgram || c->hs_timed || w->stopping)
		return;
	c->hs_timed = 1;
	shb_histo_record(&w->stats->handshake,
			 w->now > c->t_connected ? w->now - c->t_connected : 0);
}

/* host->conn_origin: one origin per run today, the URL's. */
const struct shb_origin *shb_worker_conn_origin(struct shb_conn *c)
{
	return c->ro->origin;
}

/* host->tls_client_hello: a QUIC module's ClientHello; the first of the
 * run is kept for the report's fingerprints. */
void shb_worker_tls_client_hello(struct shb_conn *c, const uint8_t *msg,
				 size_t len)
{
	if (c && msg)
		shb_hello_keep(&c->w->run->hello, msg, len, 1);
}

/* host->conn_fingerprint: the first of each kind of the run is kept for
 * the report. */
void shb_worker_conn_fingerprint(struct shb_conn *c, uint32_t kind,
				 const char *text)
{
	if (c)
		shb_conn_fp_keep(&c->w->run->conn_fps, kind, text);
}

/* The protocol's metrics count like requests: from the end of --warmup
 * (the totals are reset there) to the end of the run. */
static struct shb_stats *metric_stats(struct shb_conn *c)
{
	struct worker *w = c ? c->w : NULL;
	if (!w || !w->measuring || w->stopping || shb_worker_past_deadline(w))
		return NULL;
	return w->stats;
}

/* host->metric_add: the worker's own sum, folded into the interval. */
void shb_worker_metric_add(struct shb_conn *c, uint32_t index, uint64_t n)
{
	struct shb_stats *s = metric_stats(c);
	if (s)
		shb_metrics_add(&s->metrics, index, n);
}

/* host->metric_record: the worker's histogram and the open interval's. */
void shb_worker_metric_record(struct shb_conn *c, uint32_t index,
			      uint64_t value)
{
	struct shb_stats *s = metric_stats(c);
	if (!s)
		return;
	shb_metrics_record(&s->metrics, index, value);
	if (index < s->metrics.n && shb_metrics_is_hist(s->metrics.defs[index].kind))
		shb_ival_metric(c->w->args->ival, index, value);
}

void shb_run_set_origin(struct shb_run *run)
{
	const struct shb_config *cfg = run->cfg;
	struct shb_origin *o = &run->origin;

	memset(o, 0, sizeof(*o));
	o->struct_size = sizeof(*o);
	o->index = 0;
	o->port = run->url->port;
	o->flags = run->url->tls ? SHB_SCHEME_TLS : 0;
	o->scheme = run->url->scheme;
	o->host = run->url->host;
	o->authority = cfg->host_header ? cfg->host_header : run->url->authority;
	/* RFC 6066: no SNI for an IP literal unless --sni names one. */
	o->sni = cfg->sni ? cfg->sni : run->url->host_is_ip ? NULL : run->url->host;
	o->prepared = run->prepared;
	o->route_flags = run->proxy_absolute ? SHB_ROUTE_ABSOLUTE_FORM : 0;
}

/* The slot's new socket goes into the registered file table (replacing
 * the previous one drops its reference there) and the plugin constructs
 * its connection. 0, or -1 with the connection failed. */
int shb_conn_attach(struct shb_conn *c)
{
	struct worker *w = c->w;
	char msg[160];
	int r = io_uring_register_files_update(&w->u.ring, c->idx, &c->fd, 1);
	if (r < 0) {
		snprintf(msg, sizeof(msg), "register socket: %s", strerror(-r));
		shb_conn_fail(c, SHB_ERRK_CONNECT, msg);
		return -1;
	}
	if (w->run->plan->ring_only_fds) {
		/* The table holds the socket now: the descriptor is not
		 * needed, and its slot in the process's table is what -c
		 * beyond the open-files limit needs back. */
		close(c->fd);
		c->fd = -1;
		c->ring_only = 1;
	}
	return shb_conn_attach_plugin(c);
}

/* The protocol constructs its connection on the slot (whose socket the
 * table holds, or is about to: sock_direct.h). 0, or -1 with the
 * connection failed. */
int shb_conn_attach_plugin(struct shb_conn *c)
{
	struct worker *w = c->w;
	char msg[160];
	int r;
	memset(c->p, 0, w->run->conn_size);
	r = w->vt->conn_init(w->run->module, w->pworker, c->p, c, shb_conn_now(c));
	if (r < 0) {
		snprintf(msg, sizeof(msg), "protocol conn_init failed: %s",
			 w->run->host->strerror(r));
		shb_conn_fail(c, SHB_ERRK_PROTOCOL, msg);
		return -1;
	}
	c->plugin_live = 1;
	return 0;
}
