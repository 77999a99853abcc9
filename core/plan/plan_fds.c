/* Threads and file descriptors (plan_int.h): how many workers, and whether
 * their sockets fit the open-files limit as descriptors or live in the
 * workers' io_uring file tables only. */
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "plan/plan_int.h"

/* Each connection holds one socket at a time; each worker its ring and a
 * short-lived probe socket; the rest covers stdio, report files, plugins
 * and the certificate files GnuTLS opens while starting, with slack. */
#define SHB_FDS_PER_THREAD 2u
#define SHB_FDS_RESERVE 32u

/* -t, or one per processor online, never more than the connections nor,
 * with -n, than the requests. `asked` 0: automatic. */
static uint32_t pick_threads(const struct shb_config *cfg, uint32_t asked)
{
	long n = asked ? (long)asked : sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	if ((uint64_t)n > cfg->connections)
		n = (long)cfg->connections;
	if (!cfg->duration_ns && (uint64_t)n > cfg->requests)
		n = (long)cfg->requests;
	return (uint32_t)n;
}

/* Raises the soft limit to the hard one (or, when that fails, to `need`);
 * the soft limit then in force, 0 when unlimited or unknown. */
static uint64_t raise_fd_limit(uint64_t need)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0; /* cannot tell: the workers catch EMFILE */
	if (rl.rlim_cur < rl.rlim_max) {
		struct rlimit up = {rl.rlim_max, rl.rlim_max};
		/* An unlimited hard limit is capped by fs.nr_open: then ask
		 * for what the run needs. */
		if (setrlimit(RLIMIT_NOFILE, &up) == 0) {
			rl.rlim_cur = rl.rlim_max;
		} else if (need > rl.rlim_cur && need <= rl.rlim_max) {
			up.rlim_cur = (rlim_t)need;
			if (setrlimit(RLIMIT_NOFILE, &up) == 0)
				rl.rlim_cur = up.rlim_cur;
		}
	}
	return rl.rlim_cur == RLIM_INFINITY ? 0 : (uint64_t)rl.rlim_cur;
}

/* Raises the soft RLIMIT_NOFILE to the hard one, as most load generators
 * do (the usual soft 1024 is far below what -c asks for), and refuses a
 * run that does not fit: running out mid-run would turn into a storm of
 * connect errors, which the workers stop only at first sight.
 *
 * A -c beyond the limit still fits when each socket is held only in its
 * worker's io_uring file table (registered, then its descriptor closed):
 * a table is limited to RLIMIT_NOFILE entries per ring, not per process,
 * so the run needs its connections per thread under the limit. Without
 * -t, the threads are raised until they are: *threads receives them. */
static int fit_fd_limit(struct shb_plan *plan, uint32_t *threads, char *err,
			size_t errlen)
{
	const struct shb_config *cfg = plan->cfg;
	uint32_t t0 = *threads;
	uint64_t base = cfg->report_count + SHB_FDS_RESERVE;
	uint64_t need = (uint64_t)cfg->connections + base +
			(uint64_t)t0 * SHB_FDS_PER_THREAD;
	uint64_t limit = raise_fd_limit(need);

	plan->fd_need = need;
	plan->fd_limit = limit;
	if (!limit || need <= limit)
		return 0;
	/* Ring-only: a table of connections/threads per worker, and one
	 * more descriptor per worker for the socket being registered. */
	uint64_t per = (cfg->connections + (uint64_t)t0 - 1) / t0;
	if (!cfg->threads && limit > base + 3 * (uint64_t)t0) {
		uint64_t room = limit - base - 3 * (uint64_t)t0;
		uint64_t t = (cfg->connections + room - 1) / room;
		if (t > t0 && t <= SHB_MAX_THREADS && base + 3 * t < limit) {
			*threads = (uint32_t)t;
			per = (cfg->connections + t - 1) / t;
		}
	}
	if (per <= limit && base + 3 * (uint64_t)*threads <= limit) {
		plan->ring_only_fds = 1;
		return 0;
	}
	snprintf(err, errlen, "-c %u needs about %llu file descriptors but the "
		 "limit is %llu, and %llu connections per worker thread is over "
		 "it too (raise it with ulimit -n, add threads with -t, or lower "
		 "-c)", cfg->connections, (unsigned long long)need,
		 (unsigned long long)limit, (unsigned long long)per);
	return -1;
}

int shb_plan_threads(struct shb_plan *plan, char *err, size_t errlen)
{
	uint32_t t = pick_threads(plan->cfg, plan->cfg->threads);
	if (fit_fd_limit(plan, &t, err, errlen) < 0)
		return -1;
	/* Threads raised for the limit are capped like -t's. */
	plan->threads = pick_threads(plan->cfg, t);
	return 0;
}
