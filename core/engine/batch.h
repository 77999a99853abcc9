/* The worker's completion batch: how many completions one pass of the
 * loop waits for, and how long it may linger for them.
 *
 * Waiting for several completions saves wake-ups and system calls (the
 * closed-loop CPU per request). Over TCP, and UDP with GRO, a response
 * is timed by the kernel's stamp of the receive that ended it
 * (rx_clock.h), so the wait adds nothing to it and the linger is simply
 * SHB_BATCH_LINGER_MAX_US (kernel_timed). Where there are no stamps
 * (UDP without GRO, Unix sockets, a kernel
 * that gives none) and while connections are being set up (connect and
 * handshake times are the worker's clock), the clock is read once the
 * wait returns, so a completion that came early in a batch is timed late:
 * its latency includes the rest of the wait. The policy keeps that bias
 * small:
 *   - open loop (and stopping) never batches: each completion is timed as
 *     it comes, and the wait ends at the next request's due time;
 *   - a pass never waits for more completions than can come: at most one
 *     per connection with a request outstanding (a response is at least
 *     one receive), so a lone connection is never held for the linger;
 *   - the automatic size follows those busy connections, not the
 *     requests in flight: a quarter of them for one request per
 *     connection (its send and its response are two completions, and
 *     they spread out), one per connection at most SHB_BATCH_MUX_MAX for
 *     a multiplexed protocol (many responses on one connection arrive in
 *     one receive);
 *   - the linger is at most the time to the next timer or due request;
 *     unless --batch-linger gives one or responses are kernel-timed, it is SHB_BATCH_LINGER_FLOOR_US or
 *     1/SHB_BATCH_LAT_SHARE of the recent latency, whichever is more, at
 *     most SHB_BATCH_LINGER_MAX_US: what a batch can add to a request's
 *     latency stays below that, and the saving in wake-ups is kept (below
 *     about 50 us the batch stops paying for itself).
 * Pure arithmetic: no clock, no worker; tests/core/test_batch.c. */
#ifndef SHB_CORE_BATCH_H
#define SHB_CORE_BATCH_H

#include <stdint.h>

/* Automatic batch: a quarter of the busy connections, at most 8; one
 * per busy connection, at most 32, when multiplexed. */
#define SHB_BATCH_AUTO_DIV 4u
#define SHB_BATCH_AUTO_MAX 8u
#define SHB_BATCH_MUX_MAX 32u
/* The automatic linger: the larger of these two, at most the third. */
#define SHB_BATCH_LINGER_FLOOR_US 50u
#define SHB_BATCH_LAT_SHARE 16u /* the recent latency divided by this */
#define SHB_BATCH_LINGER_MAX_US 500u

struct shb_batch_in {
	uint32_t size;      /* --batch-size; 0 = automatic */
	uint32_t linger_us; /* --batch-linger; 0 = automatic */
	uint32_t busy;      /* connections with a request outstanding */
	int multiplexed;    /* several requests per connection (h2, h3 with
			     * -p above 1) */
	int eager;          /* open loop or stopping: no batch */
	uint64_t wait_ns;   /* the longest the pass may sleep (next timer) */
	uint64_t lat_ns;    /* recent latency (shb_batch_lat_update); 0 none */
	/* Responses are timed by the kernel's receive stamps (rx_clock.h)
	 * and no connection is being set up (connect and handshake times
	 * are still read off the worker's clock): a wait adds nothing to
	 * a latency, only the linger's cap is left. */
	int kernel_timed;
};

struct shb_batch {
	uint32_t want;      /* completions to wait for, >= 1 */
	uint32_t linger_us; /* 0 when want is 1 (no minimum wait) */
};

/* [worker] The batch of the next pass. */
struct shb_batch shb_batch_policy(const struct shb_batch_in *in);

/* [worker] The recent latency: a moving average over about the last 16
 * responses (`lat` 0 before the first one). */
static inline uint64_t shb_batch_lat_update(uint64_t lat, uint64_t sample)
{
	if (!lat)
		return sample ? sample : 1;
	return sample >= lat ? lat + (sample - lat) / 16 : lat - (lat - sample) / 16;
}

#endif
