#include "engine/uring_shim.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int shb_uring_init(struct shb_uring *u, unsigned entries)
{
	static const unsigned ladder[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN |
			IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE,
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN |
			IORING_SETUP_CQSIZE,
		IORING_SETUP_CQSIZE,
		0,
	};
	int ret = -EINVAL;

	memset(u, 0, sizeof(*u));
	for (size_t i = 0; i < sizeof(ladder) / sizeof(ladder[0]); i++) {
		struct io_uring_params p;
		memset(&p, 0, sizeof(p));
		p.flags = ladder[i];
		/* A CQ four times the SQ: an overflow costs far more (a
		 * third of throughput) than the memory. CLAMP: past the
		 * kernel's largest CQ (65536) the largest, not EINVAL, which
		 * sent a ring of more than 16384 entries (a worker of more
		 * than 8,188 connections) down the ladder to no flags. */
		if (p.flags & IORING_SETUP_CQSIZE) {
			p.flags |= IORING_SETUP_CLAMP;
			p.cq_entries = entries * 4;
		}
		ret = io_uring_queue_init_params(entries, &u->ring, &p);
		if (ret == 0) {
			u->setup_flags = p.flags;
			u->features = p.features;
			break;
		}
		if (ret == -EPERM || ret == -ENOSYS)
			return ret; /* no flag combination will help */
	}
	if (ret)
		return ret;
	u->min_timeout = (u->features & IORING_FEAT_MIN_TIMEOUT) != 0;
	u->ring_fd_registered = io_uring_register_ring_fd(&u->ring) == 1;
	return 0;
}

/* The first line of a /proc file, or "" when it cannot be read. */
static void read_line(const char *path, const char *prefix, char *buf,
		      size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = strlen(prefix);
	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(buf, (int)len, f))
		if (!strncmp(buf, prefix, n)) {
			n += strspn(buf + n, " \t");
			memmove(buf, buf + n, strlen(buf + n) + 1);
			buf[strcspn(buf, " \t\n")] = '\0';
			fclose(f);
			return;
		}
	buf[0] = '\0';
	fclose(f);
}

int shb_uring_probe(char *err, size_t errlen)
{
	struct io_uring ring;
	int r = io_uring_queue_init(4, &ring, 0);
	if (r == 0) {
		io_uring_queue_exit(&ring);
		return 0;
	}
	char disabled[16], seccomp[16];
	read_line("/proc/sys/kernel/io_uring_disabled", "", disabled,
		  sizeof(disabled));
	read_line("/proc/self/status", "Seccomp:", seccomp, sizeof(seccomp));
	if (r != -EPERM && r != -ENOSYS)
		snprintf(err, errlen, "io_uring is not available: io_uring_setup: %s",
			 strerror(-r));
	else if (disabled[0] && strcmp(disabled, "0"))
		snprintf(err, errlen, "io_uring is not available: io_uring_setup "
			 "failed (%s) because the sysctl kernel.io_uring_disabled is "
			 "%s: set it to 0 (sysctl -w kernel.io_uring_disabled=0)%s",
			 strerror(-r), disabled, strcmp(disabled, "1") ? "" :
			 " or run shb in the group kernel.io_uring_group");
	else if (!strcmp(seccomp, "2"))
		snprintf(err, errlen, "io_uring is not available: io_uring_setup "
			 "failed (%s) under a seccomp filter, as container runtimes' "
			 "default profiles do: run with a seccomp profile that allows "
			 "io_uring_setup, io_uring_enter and io_uring_register "
			 "(docs/distributed.md, \"io_uring in containers\")",
			 strerror(-r));
	else
		snprintf(err, errlen, "io_uring is not available: io_uring_setup "
			 "failed (%s): this kernel lacks io_uring or a security module "
			 "refuses it (5.19 or later with CONFIG_IO_URING is needed)",
			 strerror(-r));
	return -1;
}

void shb_uring_exit(struct shb_uring *u)
{
	io_uring_queue_exit(&u->ring);
}

/* liburing 2.3 keeps its SQ flush private; this does what it does: publish
 * the local SQE tail to the kernel and return what is queued. The SQ index
 * array was filled with the identity at init. */
static unsigned flush_sq(struct io_uring *ring)
{
	struct io_uring_sq *sq = &ring->sq;
	unsigned tail = sq->sqe_tail;

	if (sq->sqe_head != tail) {
		sq->sqe_head = tail;
		io_uring_smp_store_release(sq->ktail, tail);
	}
	return tail - IO_URING_READ_ONCE(*sq->khead);
}

int shb_uring_submit_wait(struct shb_uring *u, unsigned want,
			  uint32_t linger_us, uint64_t timeout_ns)
{
	struct __kernel_timespec ts = {
		.tv_sec = (long long)(timeout_ns / 1000000000u),
		.tv_nsec = (long long)(timeout_ns % 1000000000u),
	};
	struct io_uring_getevents_arg arg;
	unsigned flags = IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG;
	int fd = u->ring.ring_fd;

	memset(&arg, 0, sizeof(arg));
	arg.ts = (uint64_t)(uintptr_t)&ts;
	/* `pad` is the kernel's min_wait_usec; kernels without the feature
	 * ignore it and would then sit out the whole timeout for want > 1. */
	if (!u->min_timeout)
		want = want ? 1 : 0;
	else if (want > 1)
		arg.pad = linger_us;
	if (u->ring_fd_registered) {
		fd = u->ring.enter_ring_fd;
		flags |= IORING_ENTER_REGISTERED_RING;
	}
	unsigned to_submit = flush_sq(&u->ring);
	long ret = syscall(__NR_io_uring_enter, fd, to_submit, want, flags,
			   &arg, sizeof(arg));
	if (ret < 0) {
		int e = errno;
		if (e == ETIME || e == EINTR)
			return 0;
		return -e;
	}
	return (int)ret;
}

int shb_buf_ring_init(struct shb_uring *u, struct shb_buf_ring *b,
		      unsigned entries, unsigned buf_size, uint16_t bgid)
{
	struct io_uring_buf_reg reg;
	long page = sysconf(_SC_PAGESIZE);
	int ret;

	memset(b, 0, sizeof(*b));
	b->ring_bytes = (entries * sizeof(struct io_uring_buf) + (size_t)page - 1) &
			~((size_t)page - 1);
	void *mem = mmap(NULL, b->ring_bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return -errno;
	b->br = mem;
	b->bufs = mmap(NULL, (size_t)entries * buf_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->bufs == MAP_FAILED) {
		ret = -errno;
		munmap(mem, b->ring_bytes);
		return ret;
	}
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (uint64_t)(uintptr_t)mem;
	reg.ring_entries = entries;
	reg.bgid = bgid;
	ret = io_uring_register_buf_ring(&u->ring, &reg, 0);
	if (ret) {
		munmap(b->bufs, (size_t)entries * buf_size);
		munmap(mem, b->ring_bytes);
		return ret;
	}
	io_uring_buf_ring_init(b->br);
	b->entries = entries;
	b->mask = io_uring_buf_ring_mask(entries);
	b->buf_size = buf_size;
	b->bgid = bgid;
	for (unsigned i = 0; i < entries; i++)
		shb_buf_ring_recycle(b, i);
	shb_buf_ring_publish(b);
	return 0;
}

void shb_buf_ring_free(struct shb_uring *u, struct shb_buf_ring *b)
{
	if (!b->br)
		return;
	if (u)
		io_uring_unregister_buf_ring(&u->ring, b->bgid);
	munmap(b->bufs, (size_t)b->entries * b->buf_size);
	munmap(b->br, b->ring_bytes);
	b->br = NULL;
}
