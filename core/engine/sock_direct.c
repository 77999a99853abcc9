/* Sockets made by the ring (sock_direct.h). */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/sock_direct.h"

/* The kernel's names for the command (linux/io_uring.h of 6.7). */
#define SHB_SOCKET_URING_OP_SETSOCKOPT 3u

/* Fields of struct io_uring_sqe that liburing 2.3's copy predates, at
 * their kernel offsets: cmd_op shares `off`, level and optname share
 * `addr`, optlen shares `file_index`, optval shares `addr3`. */
_Static_assert(offsetof(struct io_uring_sqe, cmd_op) == 8, "sqe layout");
_Static_assert(offsetof(struct io_uring_sqe, addr) == 16, "sqe layout");
_Static_assert(offsetof(struct io_uring_sqe, file_index) == 44, "sqe layout");
_Static_assert(offsetof(struct io_uring_sqe, addr3) == 48, "sqe layout");

void shb_prep_setsockopt_int(struct io_uring_sqe *sqe, unsigned slot,
			     int level, int optname, const int *val)
{
	uint32_t lo = (uint32_t)level, hi = (uint32_t)optname;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = (int)slot;
	sqe->flags = IOSQE_FIXED_FILE;
	sqe->cmd_op = SHB_SOCKET_URING_OP_SETSOCKOPT;
	sqe->addr = (uint64_t)lo | (uint64_t)hi << 32;
	sqe->file_index = sizeof(*val); /* optlen */
	sqe->addr3 = (uint64_t)(uintptr_t)val; /* optval */
}

/* The probe's own completions carry this; any other is dropped. */
#define PROBE_TAG 0x7368622d70726f62ull
/* Submits what is queued and waits for the probe's `n` completions; the
 * number that succeeded, or -1. */
static int run(struct io_uring *ring, unsigned n)
{
	struct io_uring_cqe *cqe;
	int ok = 0;

	if (io_uring_submit_and_wait(ring, n) < 0)
		return -1;
	while (n > 0) {
		if (io_uring_wait_cqe(ring, &cqe) < 0)
			return -1;
		if (cqe->user_data == PROBE_TAG) {
			ok += cqe->res >= 0;
			n--;
		}
		io_uring_cqe_seen(ring, cqe);
	}
	return ok;
}

/* `n` SQEs at the head of an empty SQ, or -1 with nothing taken. What
 * is queued goes first: a submit can leave entries queued (the kernel
 * stops at one it refuses) but takes one at least, so as many submits as
 * the SQ has entries empty it. Then io_uring_get_sqe cannot fail, and no
 * half chain is ever queued. */
static int take_sqes(struct io_uring *ring, struct io_uring_sqe **sqe,
		     unsigned n)
{
	for (unsigned tries = 0; io_uring_sq_ready(ring) > 0; tries++)
		if (tries == ring->sq.ring_entries || io_uring_submit(ring) < 0)
			return -1;
	if (io_uring_sq_space_left(ring) < n)
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (!(sqe[i] = io_uring_get_sqe(ring)))
			return -1; /* not after the checks above */
	return 0;
}

int shb_sock_direct_probe(struct io_uring *ring, int family, unsigned slot)
{
	static const int one = 1;
	struct io_uring_sqe *sqe[3];
	int fd = -1, ok;

	if (take_sqes(ring, sqe, 3) < 0)
		return 0;
	io_uring_prep_socket_direct(sqe[0], family, SOCK_STREAM, IPPROTO_TCP, slot, 0);
	sqe[0]->flags |= IOSQE_IO_LINK;
	shb_prep_setsockopt_int(sqe[1], slot, SOL_SOCKET, SO_TIMESTAMPNS, &one);
	sqe[1]->flags |= IOSQE_IO_LINK;
	shb_prep_setsockopt_int(sqe[2], slot, IPPROTO_TCP, TCP_NODELAY, &one);
	for (int i = 0; i < 3; i++)
		sqe[i]->user_data = PROBE_TAG;
	ok = run(ring, 3);
	(void)io_uring_register_files_update(ring, slot, &fd, 1);
	return ok == 3;
}
