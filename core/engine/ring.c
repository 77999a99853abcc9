/* The worker's ring: SQEs that never spin (a submit the kernel refuses is
 * retried a bounded number of times, with the completion queue moved into
 * a stash so the kernel can post again), and the three operations every
 * connection hands it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/worker_int.h"

/* A condition of this machine, not of the server (no file descriptors,
 * io_uring refusing work): the whole run stops with one line instead of
 * counting a storm of per-request errors. Every worker sees the flag. */
void shb_worker_fatal(struct worker *w, const char *msg)
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
				shb_worker_fatal(w, "io_uring: completions backed up beyond the stash");
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
struct io_uring_sqe *shb_worker_sqe(struct worker *w)
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
	shb_worker_fatal(w, "io_uring: the kernel accepts no more submissions");
	memset(&w->dead_sqe, 0, sizeof(w->dead_sqe));
	return &w->dead_sqe;
}

void shb_conn_arm_recv(struct shb_conn *c)
{
	struct io_uring_sqe *sqe = shb_worker_sqe(c->w);
	if (c->w->gro)
		io_uring_prep_recvmsg_multishot(sqe, (int)c->idx, &c->w->gro_msg, 0);
	else if (c->rxts)
		io_uring_prep_recvmsg_multishot(sqe, (int)c->idx, &c->w->rx_msg, 0);
	else
		io_uring_prep_recv_multishot(sqe, (int)c->idx, NULL, 0, 0);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_BUFFER_SELECT;
	sqe->buf_group = 0;
	sqe->user_data = shb_ud_make(OP_RECV, c->idx, c->gen);
	c->recv_armed = 1;
	c->ops++;
}

void shb_conn_send(struct shb_conn *c, const void *base, size_t len)
{
	struct io_uring_sqe *sqe = shb_worker_sqe(c->w);
	io_uring_prep_send(sqe, (int)c->idx, base, len, MSG_NOSIGNAL);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = shb_ud_make(OP_SEND, c->idx, c->gen);
	c->send_busy = 1;
	c->ops++;
}

void shb_conn_sendmsg(struct shb_conn *c, size_t n)
{
	struct io_uring_sqe *sqe = shb_worker_sqe(c->w);
	memset(&c->msg, 0, sizeof(c->msg));
	c->msg.msg_iov = c->iov;
	c->msg.msg_iovlen = n;
	io_uring_prep_sendmsg(sqe, (int)c->idx, &c->msg, MSG_NOSIGNAL);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe->user_data = shb_ud_make(OP_SEND, c->idx, c->gen);
	c->send_busy = 1;
	c->ops++;
}
