/* The open-loop schedule (-R, --stages): when each request is due.
 *
 * The run's requests are numbered 0, 1, 2, ... in the order they are due;
 * request k is due at the time t where the integral of the rate from the
 * schedule's start reaches k (so request 0 is due at the start). Each time
 * is computed from k, never accumulated, so nothing drifts however long the
 * run. Worker i of W takes the requests k with k % W == i: the workers'
 * shares add up to the run's schedule exactly at every moment, whatever
 * the rate and the number of workers.
 *
 * Pure arithmetic, no clock: each worker keeps its own copy, built at
 * start, and reads it on its own thread. */
#ifndef SHB_CORE_SCHEDULE_H
#define SHB_CORE_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>
#include <shb/results.h>

/* --stages takes at most this many; one more segment holds a warm-up. */
#define SHB_SCHED_MAX_STAGES 64
/* Rates are requests/s x 1000; at most a billion requests per second. */
#define SHB_SCHED_MAX_RATE_MILLI 1000000000000ull
/* A request started more than this after it was due is late. */
#define SHB_SCHED_LATE_NS 1000000ull

/* Counts are kept exactly, as integers in units of 1/(2 * 10^12)
 * request: a stage of D ns going from A to B (rates x1000) holds
 * (A + B) * D of them. */
__extension__ typedef unsigned __int128 shb_sched_n;

struct shb_sched_seg {
	uint64_t t0;   /* start, ns from the schedule's start */
	uint64_t dur;  /* ns; 0 for the open-ended last segment */
	uint64_t a, b; /* rates at its start and end, requests/s x 1000 */
	shb_sched_n n0; /* due before t0, in the units above */
};

struct shb_sched {
	struct shb_sched_seg seg[SHB_SCHED_MAX_STAGES + 1];
	uint32_t nseg;
	int open_ended;    /* the last segment never ends */
	shb_sched_n total; /* all the schedule holds, unless open_ended */
};

/* Builds the schedule of a run: a constant rate (`rate_milli` > 0, no
 * stages, never ending: -z or -n ends the run) or `stages` (ramps, the
 * schedule ends with the last). `warmup_ns` > 0 puts a constant segment
 * first, at the rate the stages start with (their first target when that
 * is 0), so that the measured schedule starts after it. Returns 0, or -1
 * when there is nothing to schedule or too many stages. */
int shb_sched_init(struct shb_sched *s, uint64_t rate_milli,
		   const struct shb_stage *stages, size_t stage_count,
		   uint64_t warmup_ns);

/* When request k is due, in ns from the schedule's start (rounded to the
 * nearest ns), or UINT64_MAX when the schedule ends before it. */
uint64_t shb_sched_time(const struct shb_sched *s, uint64_t k);

/* How many requests are due in [0, t): the k with shb_sched_time(k) < t. */
uint64_t shb_sched_count(const struct shb_sched *s, uint64_t t);

/* Of the run's first `n` requests, how many are worker `index`'s of
 * `workers` (those with k % workers == index). */
static inline uint64_t shb_sched_share(uint64_t n, uint32_t workers,
				       uint32_t index)
{
	return n / workers + (index < n % workers);
}

#endif
