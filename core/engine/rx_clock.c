/* Kernel receive timestamps (rx_clock.h). */
#include "engine/rx_clock.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <liburing.h>

int shb_rx_clock_enable(int fd)
{
	int one = 1;
	return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) ? -errno : 0;
}

void shb_rx_clock_warm(void)
{
	static int fd = -1;
	if (fd >= 0)
		return;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && shb_rx_clock_enable(fd) < 0) {
		close(fd);
		fd = -1;
	}
}

int shb_rx_stamp(const struct msghdr *msg, void *buf, uint32_t res,
		 const uint8_t **data, uint32_t *len, uint64_t *real_ns)
{
	/* liburing's helpers take a non-const msghdr but only read it. */
	struct msghdr *m = (struct msghdr *)msg;
	struct io_uring_recvmsg_out *o = io_uring_recvmsg_validate(buf, (int)res, m);
	*real_ns = 0;
	if (!o)
		return -1;
	uint8_t *p = io_uring_recvmsg_payload(o, m);
	uint32_t n = o->payloadlen;
	if ((size_t)(p - (uint8_t *)buf) + n > res)
		return -1;
	*data = p;
	*len = n;
	for (struct cmsghdr *cm = io_uring_recvmsg_cmsg_firsthdr(o, m); cm;
	     cm = io_uring_recvmsg_cmsg_nexthdr(o, m, cm)) {
		uint64_t ns = shb_rx_cmsg_stamp(cm);
		if (ns)
			*real_ns = ns;
	}
	return 0;
}

uint64_t shb_rx_cmsg_stamp(const struct cmsghdr *cm)
{
	struct timespec ts;
	if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_TIMESTAMPNS ||
	    cm->cmsg_len < CMSG_LEN(sizeof(ts)))
		return 0;
	memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
	if (ts.tv_sec <= 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t shb_rx_clock_mono(struct shb_rx_clock *c, uint64_t real_ns, uint64_t now)
{
	if (!real_ns)
		return 0;
	if (!c->fresh) {
		/* Monotonic between two wall-clock reads: the offset's error
		 * is half their distance, tens of nanoseconds. */
		struct timespec r0, m, r1;
		clock_gettime(CLOCK_REALTIME, &r0);
		clock_gettime(CLOCK_MONOTONIC, &m);
		clock_gettime(CLOCK_REALTIME, &r1);
		int64_t real = ((int64_t)r0.tv_sec + r1.tv_sec) * 500000000 +
			       ((int64_t)r0.tv_nsec + r1.tv_nsec) / 2;
		c->off = real - ((int64_t)m.tv_sec * 1000000000 + m.tv_nsec);
		c->fresh = 1;
	}
	return shb_rx_clock_apply(c->off, real_ns, now);
}
