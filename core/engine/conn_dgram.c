/* Connected UDP for protocols that run their own crypto (QUIC): datagrams
 * received during one completion batch are handed over together, and sent
 * as GSO trains of equal-size segments. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/dgram_split.h"
#include "engine/worker_int.h"

static void set_buf(int fd, int opt, int bytes)
{
	/* Best effort: large bursts of datagrams must not be dropped by a
	 * small socket buffer, but a capped sysctl is not an error. */
	(void)setsockopt(fd, SOL_SOCKET, opt, &bytes, sizeof(bytes));
}

int shb_dgram_probe_gso(int family)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int seg = 0, ok;
	if (fd < 0)
		return 0;
	ok = setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg)) == 0;
	close(fd);
	return ok;
}

int shb_dgram_probe_gro(int family)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int one = 1, ok;
	if (fd < 0)
		return 0;
	ok = setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) == 0;
	close(fd);
	return ok;
}

void shb_dgram_start(struct shb_conn *c)
{
	struct worker *w = c->w;
	const struct shb_addr *addr = shb_conn_addr(c);
	const struct sockaddr *sa = (const struct sockaddr *)&addr->ss;
	char msg[160];

	shb_conn_leave_idle(c);
	c->st = C_CONNECTING;
	w->nconnecting++;
	c->t_connect = w->now;
	c->nrx = 0;
	c->got_data = 0;
	if (!c->dg) {
		c->dg = malloc(sizeof(*c->dg) + (size_t)w->dgram_train * w->dgram_max);
		if (!c->dg) {
			shb_conn_fail(c, SHB_ERRK_CONNECT, "out of memory");
			return;
		}
	}
	c->dg->vcount = c->dg->vnext = 0; /* a last socket's rest is not ours */
	c->fd = socket(sa->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
	if (c->fd < 0) {
		shb_conn_socket_failed(c, errno);
		return;
	}
	if (shb_conn_bind_source(c, 0) < 0)
		return;
	set_buf(c->fd, SO_RCVBUF, 4 << 20);
	set_buf(c->fd, SO_SNDBUF, 4 << 20);
	if (w->gro) {
		/* Probed at worker start; should this socket still refuse,
		 * its receives carry one datagram each, which the same path
		 * takes (no UDP_GRO control message means no segments). */
		int one = 1;
		(void)setsockopt(c->fd, SOL_UDP, UDP_GRO, &one, sizeof(one));
		/* The GRO path is a recvmsg: it carries receive stamps too. */
		if (shb_rx_clock_enable(c->fd) < 0)
			w->kernel_timed = 0;
	}
	/* A UDP connect only sets the peer; no need to go through the ring. */
	if (connect(c->fd, sa, addr->len) < 0) {
		int e = errno;
		snprintf(msg, sizeof(msg), "connect: %s", strerror(e));
		if (shb_conn_next_addr(c, e, msg))
			shb_conn_begin_close(c);
		else
			shb_conn_fail(c, SHB_ERRK_CONNECT, msg);
		return;
	}
	if (shb_conn_attach(c) < 0)
		return;
	w->stats->conns_opened++;
	/* No connect exchange over UDP (the connect histogram stays empty):
	 * the set-up a datagram protocol does is its handshake, timed from
	 * here to its SHB_CEV_HANDSHAKE_DONE. */
	c->t_connected = w->now;
	c->hs_timed = 0;
	shb_conn_arm_recv(c);
	shb_conn_transport_ready(c);
}

/* One recv_dgrams call at `at`, the kernel's stamp of the latest receive
 * the datagrams came in (0: none, the worker's clock), so that what the
 * protocol ends in them, and the core's timing of it, is the arrival
 * time (rx_clock.h). */
static int hand_over(struct shb_conn *c, struct shb_vec *v, size_t n,
		     shb_tstamp at)
{
	struct worker *w = c->w;
	w->rx_at = at;
	int r = w->vt->recv_dgrams(c->p, v, n, shb_conn_now(c));
	w->rx_at = 0;
	return r;
}

/* GRO: the held receives split into their datagrams, handed over in
 * batches of up to SEG_BATCH (a 64 KiB train of 1200-byte datagrams is 55).
 * Stops at the first failure: the connection is failing then. */
#define SEG_BATCH 128
static void deliver_segments(struct shb_conn *c, uint32_t n)
{
	struct worker *w = c->w;
	struct shb_vec v[SEG_BATCH];
	size_t nv = 0;
	shb_tstamp at = 0;
	int r;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *base = shb_buf_ring_buf(&w->br, c->dg->rx_bid[i]) + c->dg->rx_off[i];
		size_t skip = 0, k;
		at = c->dg->rx_at[i];
		while ((k = shb_dgram_split(base, c->dg->rx_len[i], c->dg->rx_seg[i], skip,
					    v + nv, SEG_BATCH - nv)) > 0) {
			skip += k;
			nv += k;
			if (nv < SEG_BATCH)
				break;
			r = hand_over(c, v, nv, at);
			if (r < 0)
				goto fail;
			nv = 0;
			if (c->st != C_READY)
				return;
		}
	}
	if (!nv)
		return;
	r = hand_over(c, v, nv, at);
	if (r >= 0)
		return;
fail:
	shb_conn_plugin_fail(c, r, "protocol error");
}

/* Hands the datagrams held during this completion batch to the protocol at
 * once, then gives their buffers back. */
void shb_dgram_deliver(struct shb_conn *c)
{
	struct worker *w = c->w;
	uint32_t n = c->nrx;
	if (!n)
		return;
	c->nrx = 0;
	if (c->st == C_READY && !w->gro) {
		struct shb_vec v[RX_DGRAMS];
		for (uint32_t i = 0; i < n; i++) {
			v[i].base = shb_buf_ring_buf(&w->br, c->dg->rx_bid[i]);
			v[i].len = c->dg->rx_len[i];
		}
		int r = hand_over(c, v, n, 0); /* plain receives: no stamps */
		if (r < 0)
			shb_conn_plugin_fail(c, r, "protocol error");
	} else if (c->st == C_READY) {
		deliver_segments(c, n);
	}
	for (uint32_t i = 0; i < n; i++)
		shb_buf_ring_recycle(&w->br, c->dg->rx_bid[i]);
}

/* A multishot recvmsg buffer: the io_uring_recvmsg_out header, the control
 * messages, then the payload. Finds the payload, the UDP_GRO segment
 * size (none: one datagram) and the kernel's receive stamp (0: none).
 * -1 when the payload was truncated or the layout is not what was asked
 * for. */
static int gro_payload(struct worker *w, unsigned bid, uint32_t res,
		       uint32_t *off, uint32_t *len, uint32_t *seg,
		       uint64_t *real_ns)
{
	uint8_t *buf = shb_buf_ring_buf(&w->br, bid);
	struct io_uring_recvmsg_out *o =
		io_uring_recvmsg_validate(buf, (int)res, &w->gro_msg);
	struct cmsghdr *cm;
	if (!o || (o->flags & MSG_TRUNC))
		return -1;
	uint8_t *p = io_uring_recvmsg_payload(o, &w->gro_msg);
	*len = io_uring_recvmsg_payload_length(o, (int)res, &w->gro_msg);
	*off = (uint32_t)(p - buf);
	*seg = 0;
	*real_ns = 0;
	for (cm = io_uring_recvmsg_cmsg_firsthdr(o, &w->gro_msg); cm;
	     cm = io_uring_recvmsg_cmsg_nexthdr(o, &w->gro_msg, cm)) {
		int v;
		uint64_t ns = shb_rx_cmsg_stamp(cm);
		if (ns) {
			*real_ns = ns;
			continue;
		}
		if (cm->cmsg_level != SOL_UDP || cm->cmsg_type != UDP_GRO ||
		    cm->cmsg_len < CMSG_LEN(sizeof(v)))
			continue;
		memcpy(&v, CMSG_DATA(cm), sizeof(v));
		if (v > 0 && (uint32_t)v < *len)
			*seg = (uint32_t)v;
	}
	return *off + *len <= res ? 0 : -1;
}

void shb_dgram_on_recv(struct shb_conn *c, struct io_uring_cqe *cqe)
{
	struct worker *w = c->w;
	int res = cqe->res;
	int more = (cqe->flags & IORING_CQE_F_MORE) != 0;

	if (cqe->flags & IORING_CQE_F_BUFFER) {
		unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
		uint32_t off = 0, len = (uint32_t)res, seg = 0;
		uint64_t real = 0;
		if (res > 0 && w->gro &&
		    gro_payload(w, bid, (uint32_t)res, &off, &len, &seg, &real) < 0)
			len = 0; /* truncated or malformed: dropped, QUIC resends */
		if (res > 0 && len > 0 && c->st == C_READY) {
			shb_tstamp at = shb_rx_clock_mono(&w->rxc, real, w->now);
			if (!at)
				w->kernel_timed = 0;
			w->stats->bytes_recv += len;
			c->got_data = 1;
			c->addr_kept = 1; /* the peer answers here: stay */
			if (c->nrx == RX_DGRAMS)
				shb_dgram_deliver(c);
			c->dg->rx_bid[c->nrx] = (uint16_t)bid;
			c->dg->rx_len[c->nrx] = len;
			c->dg->rx_off[c->nrx] = (uint16_t)off;
			c->dg->rx_seg[c->nrx] = (uint16_t)seg;
			c->dg->rx_at[c->nrx] = at;
			c->nrx++;
			shb_conn_mark_dirty(c);
		} else {
			shb_buf_ring_recycle(&w->br, bid);
		}
	}
	if (res < 0 && res != -ENOBUFS && res != -EMSGSIZE && c->st == C_READY) {
		/* EMSGSIZE after an ICMP "too big" is benign; a refused port
		 * before any answer is a connect error. */
		char msg[160];
		/* Refused before any answer: no UDP socket on that port, often a
		 * server that speaks HTTP over TCP only. */
		const struct shb_proto_desc *d = c->w->run->proto->desc;
		snprintf(msg, sizeof(msg), "recv: %s", strerror(-res));
		if (res == -ECONNREFUSED && !c->got_data)
			snprintf(msg, sizeof(msg), "recv: %s (nothing listens on "
				 "this UDP port: %.32s runs over UDP, not TCP)",
				 strerror(-res), d->display_name ? d->display_name :
				 d->name);
		shb_dgram_deliver(c);
		if (!c->got_data && shb_conn_next_addr(c, -res, msg)) {
			shb_conn_requeue_outstanding(c);
			shb_conn_begin_close(c);
		} else {
			shb_conn_fail(c, c->got_data ? SHB_ERRK_READ : SHB_ERRK_CONNECT, msg);
		}
	}
	if (!more) {
		c->recv_armed = 0;
		c->ops--;
		if (c->st == C_READY && res != 0)
			shb_conn_arm_recv(c);
	}
}

static void submit_train(struct shb_conn *c, uint8_t *p, size_t len, size_t seg)
{
	if (len <= seg || !c->w->gso) {
		shb_conn_send(c, p, len);
		return;
	}
	struct cmsghdr *cm;
	memset(&c->msg, 0, sizeof(c->msg));
	c->iov[0].iov_base = p;
	c->iov[0].iov_len = len;
	c->msg.msg_iov = c->iov;
	c->msg.msg_iovlen = 1;
	c->msg.msg_control = c->dg->cmsg.buf;
	c->msg.msg_controllen = sizeof(c->dg->cmsg.buf);
	cm = CMSG_FIRSTHDR(&c->msg);
	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
	uint16_t s16 = (uint16_t)seg;
	memcpy(CMSG_DATA(cm), &s16, sizeof(s16));
	struct io_uring_sqe *sqe = shb_worker_sqe(c->w);
	io_uring_prep_sendmsg(sqe, (int)c->idx, &c->msg, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = shb_ud_make(OP_SEND, c->idx, c->gen);
	c->send_busy = 1;
	c->ops++;
}

/* The next run of a write_dgrams_v train: the datagrams of its first
 * one's size, and a shorter one ending it (GSO segments). */
static void send_run(struct shb_conn *c)
{
	struct shb_conn_dgram *d = c->dg;
	size_t seg = d->vsize[d->vnext], len = 0;
	while (d->vnext < d->vcount && d->vsize[d->vnext] <= seg) {
		len += d->vsize[d->vnext];
		if (d->vsize[d->vnext++] < seg || !c->w->gso)
			break;
	}
	uint8_t *p = d->buf + d->voff;
	d->voff += len;
	submit_train(c, p, len, seg);
}

int shb_dgram_pending(const struct shb_conn *c)
{
	return c->dg && c->dg->vnext < c->dg->vcount;
}

/* 1.4: datagrams of any sizes, checked before any is sent. */
static void flush_v(struct shb_conn *c)
{
	struct worker *w = c->w;
	struct shb_conn_dgram *d = c->dg;
	size_t count = 0, sum = 0;
	size_t cap = (size_t)w->dgram_train * w->dgram_max;
	if (shb_dgram_pending(c)) {
		send_run(c);
		return;
	}
	d->vcount = d->vnext = 0;
	d->voff = 0;
	shb_ssize n = w->vt->write_dgrams_v(c->p, d->buf, cap, d->vsize,
					    w->dgram_train, &count, shb_conn_now(c));
	if (n < 0) {
		shb_conn_plugin_fail(c, (int)n, "protocol error");
		return;
	}
	for (size_t i = 0; i < count && i < w->dgram_train; i++)
		sum += d->vsize[i] && d->vsize[i] <= w->dgram_max ? d->vsize[i] : cap + 1;
	if (n == 0 && count == 0)
		return;
	if (count == 0 || count > w->dgram_train || sum != (size_t)n || (size_t)n > cap) {
		shb_conn_fail(c, SHB_ERRK_PROTOCOL, "protocol wrote an invalid datagram train");
		return;
	}
	d->vcount = (uint32_t)count;
	send_run(c);
}

void shb_dgram_flush(struct shb_conn *c)
{
	struct worker *w = c->w;
	size_t seg = 0;
	size_t cap = (size_t)w->dgram_train * w->dgram_max;
	if (w->vt->write_dgrams_v) {
		flush_v(c);
		return;
	}
	shb_ssize n = w->vt->write_dgrams(c->p, c->dg->buf, cap, &seg, shb_conn_now(c));
	if (n < 0) {
		shb_conn_plugin_fail(c, (int)n, "protocol error");
		return;
	}
	if (n == 0)
		return;
	if (seg == 0 || seg > w->dgram_max || (size_t)n > cap) {
		shb_conn_fail(c, SHB_ERRK_PROTOCOL, "protocol wrote an invalid datagram train");
		return;
	}
	submit_train(c, c->dg->buf, (size_t)n, seg);
}
