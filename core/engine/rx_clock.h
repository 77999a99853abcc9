/* Kernel receive timestamps: when the bytes of a receive reached the
 * socket, as the kernel stamped them (TCP, and UDP through the GRO
 * receive path).
 *
 * Why: a worker waits for a batch of completions and reads its clock
 * once the wait returns, so a response timed by that clock carries the
 * rest of the wait (up to the linger, batch.h). Timed by the kernel's
 * receive stamp it does not, and the batch can be sized for the CPU it
 * saves instead of for the bias it would add.
 *
 * How: SO_TIMESTAMPNS on the socket, receives armed as multishot
 * recvmsg (one control message area per receive), the stamp read from
 * the SCM_TIMESTAMPNS message (TCP reports the stamp of the last segment
 * the receive took: the last byte's arrival; a UDP receive, that of its
 * datagram, or of the first of a GRO train, whose datagrams came within
 * the kernel's coalescing of one interrupt). The stamp is CLOCK_REALTIME;
 * the worker's clock is CLOCK_MONOTONIC, so the worker reads both at most
 * once per tick (its timer check, every millisecond or more), the first
 * time it needs the offset, and a stamp is moved by it. Both clocks are
 * slewed alike; only a step of the wall clock (an NTP step,
 * settimeofday) can misplace the stamps of one tick, and a stamp is
 * clamped to the worker's clock, never later.
 *
 * Pure parsing and arithmetic apart from shb_rx_clock_enable and the two
 * clock reads; tests/core/test_rx_clock.c. */
#ifndef SHB_CORE_RX_CLOCK_H
#define SHB_CORE_RX_CLOCK_H

#include <stdint.h>
#include <sys/socket.h>

/* The control area a receive asks for: one SCM_TIMESTAMPNS message. */
#define SHB_RX_CLOCK_CMSG_SPACE CMSG_SPACE(16)

struct shb_rx_clock {
	int64_t off; /* CLOCK_REALTIME minus CLOCK_MONOTONIC, in ns */
	int fresh;   /* off was read in this tick */
};

/* [worker] Asks the kernel to stamp what `fd` receives. 0, or -errno. */
int shb_rx_clock_enable(int fd);

/* [main] Turns the kernel's receive stamping on for the process's life,
 * before any connection needs it: the first socket in the system to ask
 * for stamps only schedules the switch (net_enable_timestamp defers it to
 * a work item), and a TCP segment that arrives before it is delivered
 * without one, which would take the run off kernel timing (batch.h).
 * Holds one UDP socket with SO_TIMESTAMPNS; idempotent; harmless when
 * the socket cannot be made. */
void shb_rx_clock_warm(void);

/* [worker] One multishot recvmsg buffer of `res` bytes, armed with
 * `msg` (its msg_controllen): the payload (*data, *len: 0 is end of
 * stream) and the kernel's CLOCK_REALTIME stamp in ns (0 when the
 * receive carried none). -1 when the layout is not what was asked for
 * or the payload was cut. */
int shb_rx_stamp(const struct msghdr *msg, void *buf, uint32_t res,
		 const uint8_t **data, uint32_t *len, uint64_t *real_ns);

/* [worker] The CLOCK_REALTIME stamp in ns of an SCM_TIMESTAMPNS control
 * message, or 0 when `cm` is another message or malformed. */
uint64_t shb_rx_cmsg_stamp(const struct cmsghdr *cm);

/* [worker] A new tick: the offset is read again when next needed. */
static inline void shb_rx_clock_tick(struct shb_rx_clock *c)
{
	c->fresh = 0;
}

/* [worker] `real_ns` on the worker's clock, at most `now` (its
 * CLOCK_MONOTONIC time); 0 for 0 (no stamp). */
uint64_t shb_rx_clock_mono(struct shb_rx_clock *c, uint64_t real_ns, uint64_t now);

/* The conversion alone (tests): a stamp moved by `off`, clamped to
 * [1, now]. */
static inline uint64_t shb_rx_clock_apply(int64_t off, uint64_t real_ns, uint64_t now)
{
	if (!real_ns)
		return 0;
	int64_t m = (int64_t)real_ns - off;
	if (m <= 0)
		return 1;
	return (uint64_t)m < now ? (uint64_t)m : now;
}

#endif
