/* What liburing 2.3 (Debian 12) lacks, filled at the kernel ABI level:
 * a provided-buffer-ring setup, a submit-and-wait with the kernel's minimum
 * wait (IORING_FEAT_MIN_TIMEOUT, kernel 6.12), and a ring setup that falls
 * back flag by flag. */
#ifndef SHB_CORE_URING_SHIM_H
#define SHB_CORE_URING_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <liburing.h>

#ifndef IORING_FEAT_MIN_TIMEOUT
#define IORING_FEAT_MIN_TIMEOUT (1U << 15)
#endif

struct shb_uring {
	struct io_uring ring;
	unsigned setup_flags; /* the flags the kernel accepted */
	unsigned features;
	int ring_fd_registered; /* io_uring_register_ring_fd succeeded */
	int min_timeout;        /* IORING_FEAT_MIN_TIMEOUT available */
};

/* Creates the ring on the calling thread (SINGLE_ISSUER requires that the
 * creator enters it). Tries SINGLE_ISSUER|COOP_TASKRUN|DEFER_TASKRUN with a
 * 4x CQ (at most the kernel's largest: IORING_SETUP_CLAMP), then without
 * DEFER_TASKRUN, then no flags. Never passes
 * IORING_SETUP_NO_SQARRAY (liburing 2.3 corrupts the ring with it).
 * Returns 0 or a negative errno; on EPERM the caller explains seccomp. */
int shb_uring_init(struct shb_uring *u, unsigned entries);
void shb_uring_exit(struct shb_uring *u);

/* [main] Before any connection: can this process set up a ring at all?
 * Returns 0, or -1 with one line in err naming why not (a seccomp filter,
 * the sysctl kernel.io_uring_disabled, a kernel without io_uring) and
 * what allows it. */
int shb_uring_probe(char *err, size_t errlen);

/* Submits every queued SQE and waits for at least `want` completions, at
 * most `timeout_ns`; with want > 1 and the min-timeout feature it returns
 * after `linger_us` as soon as one completion is ready. Returns the number
 * submitted (>= 0) or a negative errno other than ETIME/EINTR. */
int shb_uring_submit_wait(struct shb_uring *u, unsigned want,
			  uint32_t linger_us, uint64_t timeout_ns);

/* A provided buffer ring: `entries` (power of two, <= 32768) buffers of
 * `buf_size` bytes in one allocation, group `bgid`. */
struct shb_buf_ring {
	struct io_uring_buf_ring *br;
	uint8_t *bufs;
	size_t ring_bytes;
	unsigned entries;
	unsigned mask;
	unsigned buf_size;
	uint16_t bgid;
	unsigned pending; /* recycled but not yet published */
};

int shb_buf_ring_init(struct shb_uring *u, struct shb_buf_ring *b,
		      unsigned entries, unsigned buf_size, uint16_t bgid);
/* Unregisters and frees; only after the ring is quiesced or destroyed. */
void shb_buf_ring_free(struct shb_uring *u, struct shb_buf_ring *b);
static inline uint8_t *shb_buf_ring_buf(const struct shb_buf_ring *b,
					unsigned bid)
{
	return b->bufs + (size_t)bid * b->buf_size;
}
/* Gives buffer `bid` back; published by shb_buf_ring_publish (once per
 * completion batch). */
static inline void shb_buf_ring_recycle(struct shb_buf_ring *b, unsigned bid)
{
	io_uring_buf_ring_add(b->br, shb_buf_ring_buf(b, bid), b->buf_size,
			      (unsigned short)bid, b->mask, (int)b->pending);
	b->pending++;
}
static inline void shb_buf_ring_publish(struct shb_buf_ring *b)
{
	if (b->pending) {
		io_uring_buf_ring_advance(b->br, (int)b->pending);
		b->pending = 0;
	}
}

#endif
