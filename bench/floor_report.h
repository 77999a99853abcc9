/* What bench/http_floor prints: the whole run's line, and with --warmup
 * the measured window, what the worker threads did between the end of
 * their warm-up and the end of their load, so that the floor's CPU per
 * request can be read beside a client's taken over the same part of a run
 * (bench/timers.sh leaves shb's set-up and exit out the same way). */
#ifndef FLOOR_REPORT_H
#define FLOOR_REPORT_H

#include <stddef.h>
#include <stdint.h>

/* One point of a worker's run: its requests so far, the wall clock
 * (CLOCK_REALTIME, comparable with other processes' clocks) and its own
 * thread's CPU (RUSAGE_THREAD), all in microseconds. */
struct floor_mark {
	uint64_t done;
	int64_t real_us, user_us, sys_us;
	int taken;
};

/* Prints "requests N errors E seconds S req/s R user U sys Y us/req C",
 * the CPU being the whole process's (getrusage), set-up and exit included. */
void floor_run_print(uint64_t done, uint64_t errors, double secs);

/* Called by the worker thread itself: it reads its own CPU. */
void floor_mark_take(struct floor_mark *m, uint64_t done);

/* Prints "window START_US END_US requests N user U sys S us/req C user/req
 * UC" over every thread's marks (from the earliest start to the latest end;
 * CPU and requests summed), or nothing when no thread took both marks. */
void floor_window_print(const struct floor_mark *from, const struct floor_mark *to,
			int threads, size_t stride);

#endif
