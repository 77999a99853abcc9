/* Kernel receive timestamps (core/engine/rx_clock.c): the recvmsg buffer layout
 * and its stamp, the move to the monotonic clock, and the kernel itself:
 * a multishot recvmsg on a TCP loopback connection, as the worker arms
 * it, carries a stamp that lies between the send and the completion; so
 * does one on a UDP socket with GRO, beside its UDP_GRO message. */
#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <liburing.h>

#include "engine/rx_clock.h"
#include "engine/uring_shim.h"

static uint8_t buf[4096];

/* A multishot recvmsg buffer as the kernel lays it out: the header, the
 * control area it was armed with (holding `cmsgs` bytes), the payload. */
static uint32_t lay_out(const struct msghdr *m, const void *cmsgs, uint32_t cmsg_len,
			const char *payload, uint32_t flags)
{
	struct io_uring_recvmsg_out o = {
		.namelen = 0, .controllen = cmsg_len,
		.payloadlen = (unsigned)strlen(payload), .flags = flags,
	};
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &o, sizeof(o));
	memcpy(buf + sizeof(o), cmsgs, cmsg_len);
	memcpy(buf + sizeof(o) + m->msg_controllen, payload, strlen(payload));
	return (uint32_t)(sizeof(o) + m->msg_controllen + strlen(payload));
}

static uint32_t stamp_cmsg(uint8_t *area, long sec, long nsec)
{
	struct cmsghdr *cm = (struct cmsghdr *)area;
	struct timespec ts = {sec, nsec};
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_TIMESTAMPNS;
	cm->cmsg_len = CMSG_LEN(sizeof(ts));
	memcpy(CMSG_DATA(cm), &ts, sizeof(ts));
	return (uint32_t)CMSG_SPACE(sizeof(ts));
}

static void test_layout(void)
{
	struct msghdr m = {.msg_controllen = SHB_RX_CLOCK_CMSG_SPACE};
	uint8_t area[64] = {0};
	const uint8_t *data;
	uint32_t len;
	uint64_t real;

	uint32_t res = lay_out(&m, area, stamp_cmsg(area, 1700000000, 123456789), "HTTP/1.1", 0);
	CU_ASSERT_EQUAL(shb_rx_stamp(&m, buf, res, &data, &len, &real), 0);
	CU_ASSERT_EQUAL(len, 8);
	CU_ASSERT_EQUAL(memcmp(data, "HTTP/1.1", 8), 0);
	CU_ASSERT_EQUAL(real, 1700000000123456789ull);

	/* No control message: the payload, and no stamp. */
	res = lay_out(&m, area, 0, "abc", 0);
	CU_ASSERT_EQUAL(shb_rx_stamp(&m, buf, res, &data, &len, &real), 0);
	CU_ASSERT_EQUAL(len, 3);
	CU_ASSERT_EQUAL(real, 0);

	/* Another control message is skipped. */
	struct cmsghdr *cm = (struct cmsghdr *)area;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	res = lay_out(&m, area, CMSG_SPACE(16), "x", 0);
	CU_ASSERT_EQUAL(shb_rx_stamp(&m, buf, res, &data, &len, &real), 0);
	CU_ASSERT_EQUAL(real, 0);

	/* End of stream: a header with no payload. */
	res = lay_out(&m, area, stamp_cmsg(area, 5, 0), "", 0);
	CU_ASSERT_EQUAL(shb_rx_stamp(&m, buf, res, &data, &len, &real), 0);
	CU_ASSERT_EQUAL(len, 0);

	/* Shorter than the header and control area, or a payload length
	 * past the completion's size: refused. */
	CU_ASSERT_EQUAL(shb_rx_stamp(&m, buf, 20, &data, &len, &real), -1);
	res = lay_out(&m, area, stamp_cmsg(area, 5, 0), "abcdef", 0);
	CU_ASSERT_EQUAL(shb_rx_stamp(&m, buf, res - 1, &data, &len, &real), -1);

	/* A nonsense time is no stamp. */
	res = lay_out(&m, area, stamp_cmsg(area, 5, 1000000000), "a", 0);
	CU_ASSERT_EQUAL(shb_rx_stamp(&m, buf, res, &data, &len, &real), 0);
	CU_ASSERT_EQUAL(real, 0);
}

static void test_apply(void)
{
	/* The offset moved out, clamped to the pass's clock and above 0. */
	CU_ASSERT_EQUAL(shb_rx_clock_apply(1000, 5000, 10000), 4000);
	CU_ASSERT_EQUAL(shb_rx_clock_apply(1000, 20000, 10000), 10000);
	CU_ASSERT_EQUAL(shb_rx_clock_apply(1000, 500, 10000), 1);
	CU_ASSERT_EQUAL(shb_rx_clock_apply(-3000, 5000, 10000), 8000);
	CU_ASSERT_EQUAL(shb_rx_clock_apply(1000, 0, 10000), 0);
}

static uint64_t mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A ring with 8 buffers of `size` and one multishot recvmsg on fd, armed
 * with m as the worker arms its receives. */
static void arm(struct shb_uring *u, struct shb_buf_ring *br, unsigned size,
		int fd, struct msghdr *m)
{
	CU_ASSERT_FATAL(shb_uring_init(u, 8) == 0);
	CU_ASSERT_FATAL(shb_buf_ring_init(u, br, 8, size, 0) == 0);
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
	io_uring_prep_recvmsg_multishot(sqe, fd, m, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = 0;
	CU_ASSERT_FATAL(io_uring_submit(&u->ring) == 1);
}

/* The kernel turns stamping on a little after the first socket asks for
 * it (a deferred work item; rx_clock.h's shb_rx_clock_warm): sends a
 * one-byte probe from `from` until its receive on the armed ring carries a
 * stamp, as a run's first responses do after the warm-up. */
static void prime(struct shb_uring *u, struct shb_buf_ring *br, struct msghdr *m,
		  int from)
{
	shb_rx_clock_warm();
	for (int i = 0; i < 1000; i++) {
		struct io_uring_cqe *cqe;
		const uint8_t *data;
		uint32_t len;
		uint64_t real = 0;
		CU_ASSERT_FATAL(write(from, "p", 1) == 1);
		CU_ASSERT_FATAL(io_uring_wait_cqe(&u->ring, &cqe) == 0);
		CU_ASSERT_FATAL(cqe->res > 0 && (cqe->flags & IORING_CQE_F_BUFFER));
		unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
		CU_ASSERT_FATAL(shb_rx_stamp(m, shb_buf_ring_buf(br, bid), (uint32_t)cqe->res,
					     &data, &len, &real) == 0);
		io_uring_cqe_seen(&u->ring, cqe);
		shb_buf_ring_recycle(br, bid);
		shb_buf_ring_publish(br);
		if (real)
			return;
		struct timespec nap = {0, 1000000};
		nanosleep(&nap, NULL);
	}
	CU_FAIL_FATAL("no receive stamp within a second");
}

/* A connected TCP pair on loopback: *cli (stamped) and *srv. */
static int tcp_pair(int *cli, int *srv)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	int one = 1;
	int l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &al))
		return -1;
	*cli = socket(AF_INET, SOCK_STREAM, 0);
	if (*cli < 0 || connect(*cli, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	*srv = accept(l, NULL, NULL);
	close(l);
	setsockopt(*srv, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return *srv < 0 ? -1 : shb_rx_clock_enable(*cli);
}

/* What the worker relies on: the stamp of each receive of a multishot
 * recvmsg on TCP, moved to the monotonic clock, lies after the send and
 * before the completion is seen; one receive that waited 20 ms in the
 * socket still carries its arrival time, not the time it was read. */
static void test_kernel_tcp(void)
{
	struct shb_uring u;
	struct shb_buf_ring br;
	struct shb_rx_clock clk = {0};
	struct msghdr m = {.msg_controllen = SHB_RX_CLOCK_CMSG_SPACE};
	int cli = -1, srv = -1;

	CU_ASSERT_FATAL(tcp_pair(&cli, &srv) == 0);
	arm(&u, &br, 2048, cli, &m);
	prime(&u, &br, &m, srv);

	for (int round = 0; round < 3; round++) {
		uint64_t t_send = mono();
		CU_ASSERT_FATAL(write(srv, "response", 8) == 8);
		if (round == 2) { /* let it wait in the socket */
			struct timespec nap = {0, 20000000};
			nanosleep(&nap, NULL);
		}
		struct io_uring_cqe *cqe;
		CU_ASSERT_FATAL(io_uring_wait_cqe(&u.ring, &cqe) == 0);
		uint64_t t_seen = mono();
		CU_ASSERT_FATAL(cqe->res > 0 && (cqe->flags & IORING_CQE_F_BUFFER));
		CU_ASSERT(cqe->flags & IORING_CQE_F_MORE);
		unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
		const uint8_t *data;
		uint32_t len;
		uint64_t real;
		shb_rx_clock_tick(&clk);
		CU_ASSERT_EQUAL(shb_rx_stamp(&m, shb_buf_ring_buf(&br, bid), (uint32_t)cqe->res,
					     &data, &len, &real), 0);
		CU_ASSERT_EQUAL(len, 8);
		CU_ASSERT_NOT_EQUAL(real, 0);
		uint64_t t = shb_rx_clock_mono(&clk, real, t_seen);
		/* The offset's error is tens of ns; allow 50 us. */
		CU_ASSERT(t + 50000 >= t_send);
		CU_ASSERT(t <= t_seen);
		if (round == 2)
			CU_ASSERT(t_seen - t >= 15000000);
		io_uring_cqe_seen(&u.ring, cqe);
		shb_buf_ring_recycle(&br, bid);
		shb_buf_ring_publish(&br);
	}
	close(srv);
	close(cli);
	shb_buf_ring_free(&u, &br);
	shb_uring_exit(&u);
}

#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

/* A connected UDP pair on loopback: *cli (GRO and stamps, as
 * core/engine/conn_dgram.c sets it up) and *srv. */
static int udp_pair(int *cli, int *srv)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_in b = a;
	socklen_t al = sizeof(a);
	int one = 1;
	*cli = socket(AF_INET, SOCK_DGRAM, 0);
	*srv = socket(AF_INET, SOCK_DGRAM, 0);
	if (*cli < 0 || *srv < 0 || bind(*cli, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(*cli, (struct sockaddr *)&a, &al) ||
	    bind(*srv, (struct sockaddr *)&b, sizeof(b)) ||
	    getsockname(*srv, (struct sockaddr *)&b, &al) ||
	    connect(*cli, (struct sockaddr *)&b, sizeof(b)) ||
	    connect(*srv, (struct sockaddr *)&a, sizeof(a)) ||
	    setsockopt(*cli, SOL_UDP, UDP_GRO, &one, sizeof(one)))
		return -1;
	return shb_rx_clock_enable(*cli);
}

/* A GSO train of three 1,200-byte datagrams sent at once. */
static int send_train(int fd)
{
	static uint8_t payload[3 * 1200];
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {payload, sizeof(payload)};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1,
			   .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	uint16_t seg = 1200;
	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(seg));
	memcpy(CMSG_DATA(cm), &seg, sizeof(seg));
	return sendmsg(fd, &m, 0) == (ssize_t)sizeof(payload) ? 0 : -1;
}

/* The control area the worker arms datagram receives with (UDP_GRO and
 * the stamp) holds both messages; the stamp of a train that waited 20 ms
 * in the socket is still its arrival time. */
static void test_kernel_udp_gro(void)
{
	struct shb_uring u;
	struct shb_buf_ring br;
	struct shb_rx_clock clk = {0};
	struct msghdr m = {.msg_controllen = CMSG_SPACE(sizeof(int)) +
					     SHB_RX_CLOCK_CMSG_SPACE};
	int cli = -1, srv = -1;

	CU_ASSERT_FATAL(udp_pair(&cli, &srv) == 0);
	arm(&u, &br, 8192, cli, &m);
	prime(&u, &br, &m, srv);

	for (int round = 0; round < 2; round++) {
		uint64_t t_send = mono();
		CU_ASSERT_FATAL(send_train(srv) == 0);
		if (round == 1) {
			struct timespec nap = {0, 20000000};
			nanosleep(&nap, NULL);
		}
		uint32_t got = 0;
		while (got < 3 * 1200) {
			struct io_uring_cqe *cqe;
			CU_ASSERT_FATAL(io_uring_wait_cqe(&u.ring, &cqe) == 0);
			uint64_t t_seen = mono();
			CU_ASSERT_FATAL(cqe->res > 0 && (cqe->flags & IORING_CQE_F_BUFFER));
			unsigned bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
			uint8_t *b = shb_buf_ring_buf(&br, bid);
			struct io_uring_recvmsg_out *o =
				io_uring_recvmsg_validate(b, cqe->res, &m);
			CU_ASSERT_FATAL(o != NULL);
			uint64_t real = 0;
			int seg = 0;
			for (struct cmsghdr *cm = io_uring_recvmsg_cmsg_firsthdr(o, &m); cm;
			     cm = io_uring_recvmsg_cmsg_nexthdr(o, &m, cm)) {
				if (shb_rx_cmsg_stamp(cm))
					real = shb_rx_cmsg_stamp(cm);
				else if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO)
					memcpy(&seg, CMSG_DATA(cm), sizeof(seg));
			}
			CU_ASSERT_FALSE(o->flags & MSG_CTRUNC);
			CU_ASSERT_NOT_EQUAL(real, 0);
			/* A coalesced train says its segment size. */
			if (o->payloadlen > 1200)
				CU_ASSERT_EQUAL(seg, 1200);
			got += o->payloadlen;
			shb_rx_clock_tick(&clk);
			uint64_t t = shb_rx_clock_mono(&clk, real, t_seen);
			CU_ASSERT(t + 50000 >= t_send);
			CU_ASSERT(t <= t_seen);
			if (round == 1)
				CU_ASSERT(t_seen - t >= 15000000);
			io_uring_cqe_seen(&u.ring, cqe);
			shb_buf_ring_recycle(&br, bid);
			shb_buf_ring_publish(&br);
		}
		CU_ASSERT_EQUAL(got, 3 * 1200);
	}
	close(srv);
	close(cli);
	shb_buf_ring_free(&u, &br);
	shb_uring_exit(&u);
}

static CU_TestInfo rx_tests[] = {
	{"recvmsg buffer layout and stamp", test_layout},
	{"realtime to monotonic", test_apply},
	{"a TCP multishot recvmsg carries its arrival time", test_kernel_tcp},
	{"so does a UDP GRO receive, beside UDP_GRO", test_kernel_udp_gro},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"rx_clock", NULL, NULL, NULL, NULL, rx_tests},
	CU_SUITE_INFO_NULL,
};
