/* See floor_report.h. Linux only (RUSAGE_THREAD). */
#include "floor_report.h"

#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

static int64_t tv_us(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

void floor_run_print(uint64_t done, uint64_t errors, double secs)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	double user = (double)tv_us(ru.ru_utime) / 1e6, sys = (double)tv_us(ru.ru_stime) / 1e6;
	printf("requests %llu errors %llu seconds %.3f req/s %.0f user %.3f sys %.3f us/req %.3f\n",
	       (unsigned long long)done, (unsigned long long)errors, secs, secs > 0 ? (double)done / secs : 0,
	       user, sys, done ? (user + sys) * 1e6 / (double)done : 0);
}

void floor_mark_take(struct floor_mark *m, uint64_t done)
{
	struct timespec ts;
	struct rusage ru;

	clock_gettime(CLOCK_REALTIME, &ts);
	getrusage(RUSAGE_THREAD, &ru);
	m->done = done;
	m->real_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	m->user_us = tv_us(ru.ru_utime);
	m->sys_us = tv_us(ru.ru_stime);
	m->taken = 1;
}

/* The marks live inside each thread's own struct, `stride` bytes apart. */
#define AT(p, i) ((const struct floor_mark *)((const char *)(p) + (size_t)(i) * stride))

void floor_window_print(const struct floor_mark *from, const struct floor_mark *to,
			int threads, size_t stride)
{
	int64_t start = 0, end = 0, user = 0, sys = 0;
	uint64_t n = 0;

	for (int i = 0; i < threads; i++) {
		const struct floor_mark *a = AT(from, i), *b = AT(to, i);
		if (!a->taken || !b->taken)
			return;
		if (!start || a->real_us < start)
			start = a->real_us;
		if (b->real_us > end)
			end = b->real_us;
		n += b->done - a->done;
		user += b->user_us - a->user_us;
		sys += b->sys_us - a->sys_us;
	}
	printf("window %lld %lld requests %llu user %.6f sys %.6f us/req %.3f user/req %.3f\n",
	       (long long)start, (long long)end, (unsigned long long)n, (double)user / 1e6,
	       (double)sys / 1e6, n ? (double)(user + sys) / (double)n : 0.0,
	       n ? (double)user / (double)n : 0.0);
}
