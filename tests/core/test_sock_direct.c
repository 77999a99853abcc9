/* Sockets made by the ring (core/engine/sock_direct.c): the probe, and what the
 * setsockopt command really sets. The kernel answers SOL_SOCKET
 * getsockopt commands too, so the test reads SO_TIMESTAMPNS back from a
 * socket that has no descriptor; a level the kernel does not know must
 * fail (the level and option name are where the kernel reads them). On a
 * kernel before 6.7 (no socket commands) the probe must say no. */
#include <CUnit/CUnit.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <liburing.h>

#include "engine/sock_direct.h"

static struct io_uring ring;

static int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 0;
	return ma > major || (ma == major && mi >= minor);
}

/* Submits one sqe (already filled) and returns its result. */
static int run_one(void)
{
	struct io_uring_cqe *cqe;
	int res;

	CU_ASSERT_FATAL(io_uring_submit_and_wait(&ring, 1) == 1);
	CU_ASSERT_FATAL(io_uring_wait_cqe(&ring, &cqe) == 0);
	res = cqe->res;
	io_uring_cqe_seen(&ring, cqe);
	return res;
}

static void test_probe_and_options(void)
{
	static const int one = 1;
	int got = 0, probe;
	struct io_uring_sqe *sqe;

	CU_ASSERT_FATAL(io_uring_queue_init(8, &ring, 0) == 0);
	CU_ASSERT_FATAL(io_uring_register_files_sparse(&ring, 4) == 0);
	probe = shb_sock_direct_probe(&ring, AF_INET, 0);
	if (!kernel_at_least(6, 7)) {
		CU_ASSERT_EQUAL(probe, 0);
		io_uring_queue_exit(&ring);
		return;
	}
	CU_ASSERT_EQUAL_FATAL(probe, 1);
	/* The probe left its slot free: a socket can be made there again. */
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_socket_direct(sqe, AF_INET, SOCK_STREAM, IPPROTO_TCP, 0, 0);
	CU_ASSERT_EQUAL(run_one(), 0);
	sqe = io_uring_get_sqe(&ring);
	shb_prep_setsockopt_int(sqe, 0, SOL_SOCKET, SO_TIMESTAMPNS, &one);
	CU_ASSERT_EQUAL(run_one(), 0);
	sqe = io_uring_get_sqe(&ring);
	shb_prep_setsockopt_int(sqe, 0, IPPROTO_TCP, TCP_NODELAY, &one);
	CU_ASSERT_EQUAL(run_one(), 0);
	/* Read back through SOCKET_URING_OP_GETSOCKOPT (2): the same
	 * fields, the result is the option's length. */
	sqe = io_uring_get_sqe(&ring);
	shb_prep_setsockopt_int(sqe, 0, SOL_SOCKET, SO_TIMESTAMPNS, &got);
	sqe->cmd_op = 2;
	CU_ASSERT_EQUAL(run_one(), (int)sizeof(got));
	CU_ASSERT_EQUAL(got, 1);
	/* A level no protocol has: refused, so the level is read. */
	sqe = io_uring_get_sqe(&ring);
	shb_prep_setsockopt_int(sqe, 0, 0x7777, TCP_NODELAY, &one);
	CU_ASSERT(run_one() < 0);
	/* An empty slot: no socket to set anything on. */
	sqe = io_uring_get_sqe(&ring);
	shb_prep_setsockopt_int(sqe, 3, SOL_SOCKET, SO_TIMESTAMPNS, &one);
	CU_ASSERT(run_one() < 0);
	io_uring_queue_exit(&ring);
}

/* A full SQ whose submits each take one entry only: the kernel stops
 * at an entry it refuses (an opcode it does not know). The probe makes
 * room with more submits, answers as on an empty ring, and leaves neither
 * an entry queued nor a completion behind. */
static void test_probe_full_sq(void)
{
	struct io_uring_sqe *sqe;
	int fresh, probe;

	CU_ASSERT_FATAL(io_uring_queue_init(8, &ring, 0) == 0);
	CU_ASSERT_FATAL(io_uring_register_files_sparse(&ring, 4) == 0);
	fresh = shb_sock_direct_probe(&ring, AF_INET, 0);
	while ((sqe = io_uring_get_sqe(&ring)) != NULL) {
		io_uring_prep_nop(sqe);
		sqe->opcode = 0xff;
		sqe->user_data = 42;
	}
	CU_ASSERT_EQUAL_FATAL(io_uring_sq_space_left(&ring), 0);
	probe = shb_sock_direct_probe(&ring, AF_INET, 0);
	CU_ASSERT_EQUAL(probe, fresh);
	CU_ASSERT_EQUAL(io_uring_sq_ready(&ring), 0);
	/* Its own completions taken, and those of the refused entries
	 * before them dropped. */
	CU_ASSERT_EQUAL(io_uring_cq_ready(&ring), 0);
	io_uring_queue_exit(&ring);
}

CU_TestInfo sock_direct_tests[] = {
	{"probe, options set and read back", test_probe_and_options},
	{"probe on a full SQ", test_probe_full_sq},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"sock_direct", NULL, NULL, NULL, NULL, sock_direct_tests},
	CU_SUITE_INFO_NULL,
};
