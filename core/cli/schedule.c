#include "cli/schedule.h"

#include <math.h>
#include <string.h>

/* Counts are in units of 1/(2 * 10^12) request (schedule.h): a request is
 * this many of them. */
#define ONE ((shb_sched_n)2000000000000ull)

static shb_sched_n seg_count(const struct shb_sched_seg *g)
{
	return (shb_sched_n)(g->a + g->b) * g->dur;
}

static void add_seg(struct shb_sched *s, uint64_t dur, uint64_t a, uint64_t b)
{
	struct shb_sched_seg *g = &s->seg[s->nseg];
	if (s->nseg) {
		const struct shb_sched_seg *p = &s->seg[s->nseg - 1];
		g->t0 = p->t0 + p->dur;
		g->n0 = p->n0 + seg_count(p);
	}
	g->dur = dur;
	g->a = a;
	g->b = b;
	s->nseg++;
}

int shb_sched_init(struct shb_sched *s, uint64_t rate_milli,
		   const struct shb_stage *stages, size_t stage_count,
		   uint64_t warmup_ns)
{
	memset(s, 0, sizeof(*s));
	if (stage_count > SHB_SCHED_MAX_STAGES)
		return -1;
	uint64_t first = stage_count ? stages[0].rate_from_milli : rate_milli;
	if (!first && stage_count)
		first = stages[0].rate_to_milli;
	if (warmup_ns)
		add_seg(s, warmup_ns, first, first);
	if (!stage_count) {
		if (!rate_milli)
			return -1;
		add_seg(s, 0, rate_milli, rate_milli);
		s->open_ended = 1;
		return 0;
	}
	shb_sched_n all = 0;
	for (size_t i = 0; i < stage_count; i++) {
		const struct shb_stage *st = &stages[i];
		add_seg(s, st->duration_ns, st->rate_from_milli, st->rate_to_milli);
		all += seg_count(&s->seg[s->nseg - 1]);
	}
	const struct shb_sched_seg *last = &s->seg[s->nseg - 1];
	s->total = last->n0 + seg_count(last);
	return all ? 0 : -1;
}

/* The segment request K (in count units) falls in: the one whose counts
 * cover it, so that segments at rate 0 are passed over. */
static const struct shb_sched_seg *find_seg(const struct shb_sched *s,
					    shb_sched_n K)
{
	for (uint32_t i = 0; i < s->nseg; i++) {
		const struct shb_sched_seg *g = &s->seg[i];
		if (s->open_ended && i == s->nseg - 1)
			return g;
		if (K < g->n0 + seg_count(g))
			return g;
	}
	return NULL;
}

/* Within a segment, M counts past its start are due after tau ns, where
 * A tau + (B - A) tau^2 / (2 D) = M / 2 (the rate's integral). The root
 * is written M / (A + sqrt(A^2 + (B - A) M / D)), which loses nothing
 * when B is close to A and holds for falling ramps. A constant rate is
 * plain integer division, exact at any k. */
static uint64_t seg_time(const struct shb_sched_seg *g, shb_sched_n M)
{
	if (g->a == g->b)
		return g->t0 + (uint64_t)((M + g->a) / (2 * (shb_sched_n)g->a));
	if (M == 0)
		return g->t0;
	long double A = (long double)g->a, B = (long double)g->b;
	long double m = (long double)M;
	long double tau = m / (A + sqrtl(A * A + (B - A) * m / (long double)g->dur));
	uint64_t t = (uint64_t)llroundl(tau);
	return g->t0 + (t < g->dur ? t : g->dur);
}

uint64_t shb_sched_time(const struct shb_sched *s, uint64_t k)
{
	shb_sched_n K = (shb_sched_n)k * ONE;
	if (!s->open_ended && K >= s->total)
		return UINT64_MAX;
	const struct shb_sched_seg *g = find_seg(s, K);
	if (!g)
		return UINT64_MAX;
	return seg_time(g, K - g->n0);
}

/* The rate's integral over [0, t), in requests (an estimate that
 * shb_sched_count corrects against shb_sched_time). */
static long double integral(const struct shb_sched *s, uint64_t t)
{
	for (uint32_t i = 0; i < s->nseg; i++) {
		const struct shb_sched_seg *g = &s->seg[i];
		int last = i == s->nseg - 1;
		if (t >= g->t0 + g->dur && !(last && s->open_ended))
			continue;
		long double tau = (long double)(t - g->t0);
		long double A = (long double)g->a, B = (long double)g->b;
		long double n = 2 * A * tau;
		if (g->dur)
			n += (B - A) * tau * tau / (long double)g->dur;
		return ((long double)g->n0 + n) / (long double)ONE;
	}
	return (long double)s->total / (long double)ONE;
}

uint64_t shb_sched_count(const struct shb_sched *s, uint64_t t)
{
	long double est = ceill(integral(s, t));
	uint64_t c = est > 0 ? (uint64_t)est : 0;
	while (c > 0 && shb_sched_time(s, c - 1) >= t)
		c--;
	while (shb_sched_time(s, c) < t)
		c++;
	return c;
}
