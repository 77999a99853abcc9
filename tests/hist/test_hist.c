/* Unit tests for the latency histogram: every answer is compared with the
 * exact answer computed from the sorted samples. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "results/hist.h"

#define HOUR_NS 3600000000000ull
#define N_SAMPLES 100000u
#define PPM_ALL 1000000u

/* splitmix64: small, seedable, good enough to spread test values. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rng_range(uint64_t *s, uint64_t lo, uint64_t hi)
{
	return lo + rng_next(s) % (hi - lo + 1);
}

/* Uniform in (0, 1]. */
static double rng_unit(uint64_t *s)
{
	return (double)((rng_next(s) >> 11) + 1) * 0x1p-53;
}

/* Sample generators: fill v[0..n) from seed. */
typedef void (*gen_fn)(uint64_t *v, size_t n, uint64_t seed);

static void gen_uniform(uint64_t *v, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		v[i] = rng_range(&seed, 1000, 10000000); /* 1 us .. 10 ms */
}

/* Median 1 ms, spreading over microseconds to seconds. */
static void gen_lognormal(uint64_t *v, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		double z = sqrt(-2 * log(rng_unit(&seed))) *
			   cos(2 * M_PI * rng_unit(&seed));
		double x = exp(log(1e6) + 1.2 * z);
		v[i] = x < 1 ? 1 : x > (double)HOUR_NS ? HOUR_NS : (uint64_t)x;
	}
}

/* Mostly 100 us .. 1 ms, with a few values up to the highest trackable. */
static void gen_outliers(uint64_t *v, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		v[i] = rng_next(&seed) % 5000 == 0 ?
			       rng_range(&seed, 10000000000ull, HOUR_NS) :
			       rng_range(&seed, 100000, 1000000);
	v[n / 2] = HOUR_NS;
}

static void gen_equal_small(uint64_t *v, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		v[i] = 1234567;
}

static void gen_equal_top(uint64_t *v, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		v[i] = HOUR_NS;
}

/* A spread of 10 ns at the very top of the range: the stddev must come
 * out right although the squares of the values are around 1e25. */
static void gen_tight_top(uint64_t *v, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		v[i] = HOUR_NS - rng_range(&seed, 0, 9);
}

/* The exactly represented range below sub_bucket_count, zeros included. */
static void gen_small(uint64_t *v, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		v[i] = rng_range(&seed, 0, 4999);
}

struct dataset {
	const char *name;
	gen_fn gen;
	uint64_t seed;
};

static const struct dataset datasets[] = {
	{"uniform", gen_uniform, 1},
	{"uniform", gen_uniform, 2},
	{"uniform", gen_uniform, 3},
	{"lognormal", gen_lognormal, 4},
	{"lognormal", gen_lognormal, 5},
	{"lognormal", gen_lognormal, 6},
	{"outliers", gen_outliers, 7},
	{"outliers", gen_outliers, 8},
	{"equal-small", gen_equal_small, 0},
	{"equal-top", gen_equal_top, 0},
	{"tight-top", gen_tight_top, 9},
	{"small", gen_small, 10},
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The direct API, dressed as the ABI table so that one checker serves
 * both; the direct API has no bucket walk of its own. */
static const struct shb_histo *direct(const struct shb_hist *h)
{
	return (const struct shb_histo *)(const void *)h;
}
static uint64_t d_count(const struct shb_hist *h)
{
	return shb_histo_count(direct(h));
}
static uint64_t d_min(const struct shb_hist *h)
{
	return shb_histo_min(direct(h));
}
static uint64_t d_max(const struct shb_hist *h)
{
	return shb_histo_max(direct(h));
}
static uint64_t d_mean(const struct shb_hist *h)
{
	return shb_histo_mean(direct(h));
}
static uint64_t d_stddev(const struct shb_hist *h)
{
	return shb_histo_stddev(direct(h));
}
static uint64_t d_value_at_ppm(const struct shb_hist *h, uint32_t ppm)
{
	return shb_histo_value_at_ppm(direct(h), ppm);
}
static int d_foreach(const struct shb_hist *h, shb_hist_bucket_fn fn, void *u)
{
	return shb_histo_ops.foreach_bucket(h, fn, u);
}
static const struct shb_hist_ops direct_ops = {
	.struct_size = sizeof(struct shb_hist_ops),
	.count = d_count,
	.min = d_min,
	.max = d_max,
	.mean = d_mean,
	.stddev = d_stddev,
	.value_at_ppm = d_value_at_ppm,
	.foreach_bucket = d_foreach,
};

/* Every 0.1% step plus the tails and the out-of-range ppm values. */
static size_t ppm_list(uint32_t *out)
{
	static const uint32_t extra[] = {1,      10,     100,    999,
					 990000, 999000, 999500, 999900,
					 999990, 999999, 1000001, UINT32_MAX};
	size_t n = 0;
	for (uint32_t p = 0; p <= PPM_ALL; p += 1000)
		out[n++] = p;
	for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
		out[n++] = extra[i];
	return n;
}

/* 1-based rank ceil(p * n), at least 1, at most n. */
static size_t exact_rank(uint32_t ppm, size_t n)
{
	if (ppm >= PPM_ALL)
		return n;
	size_t r = (size_t)(((uint64_t)ppm * n + PPM_ALL - 1) / PPM_ALL);
	return r ? r : 1;
}

static void check_percentiles(const struct shb_hist_ops *ops,
			      const struct shb_hist *h, const uint64_t *sorted,
			      size_t n, const char *name)
{
	uint32_t ppms[1100];
	size_t np = ppm_list(ppms), bad = 0;
	for (size_t i = 0; i < np; i++) {
		uint64_t exact = sorted[exact_rank(ppms[i], n) - 1];
		uint64_t got = ops->value_at_ppm(h, ppms[i]);
		/* HdrHistogram semantics: the bucket's highest equivalent
		 * value, so never below the sample and within 0.1% above. */
		int ok = got >= exact && got <= sorted[n - 1] &&
			 (got - exact) * 1000 <= exact;
		if (!ok && bad++ == 0)
			fprintf(stderr, "\n  %s: ppm %u: got %llu, exact %llu\n",
				name, ppms[i], (unsigned long long)got,
				(unsigned long long)exact);
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(ops->value_at_ppm(h, PPM_ALL), sorted[n - 1]);
}

static void check_moments(const struct shb_hist_ops *ops,
			  const struct shb_hist *h, const uint64_t *v, size_t n,
			  const char *name)
{
	long double sum = 0, sq = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	long double mean = sum / n;
	for (size_t i = 0; i < n; i++)
		sq += ((long double)v[i] - mean) * ((long double)v[i] - mean);
	long double sd = sqrtl(sq / n);
	/* The answers are rounded to whole nanoseconds. */
	long double em = fabsl((long double)ops->mean(h) - mean);
	long double es = fabsl((long double)ops->stddev(h) - sd);
	if (em > mean * 1e-3L + 0.5L || es > sd * 1e-3L + 0.5L)
		fprintf(stderr, "\n  %s: mean %llu (exact %.3Lf) sd %llu (%.3Lf)\n",
			name, (unsigned long long)ops->mean(h), mean,
			(unsigned long long)ops->stddev(h), sd);
	CU_ASSERT(em <= mean * 1e-3L + 0.5L);
	CU_ASSERT(es <= sd * 1e-3L + 0.5L);
}

/* Walks the buckets along the sorted samples: each bucket must hold
 * exactly the samples inside its bounds, and none may fall between. */
struct walk {
	const uint64_t *s;
	size_t n, j, buckets, bad;
	uint64_t prev_hi, sum;
};

static int walk_bucket(void *user, uint64_t lo, uint64_t hi, uint64_t count)
{
	struct walk *w = user;
	uint64_t inside = 0;
	if (lo > hi || count == 0 || (w->buckets && lo <= w->prev_hi))
		w->bad++;
	for (; w->j < w->n && w->s[w->j] < lo; w->j++)
		w->bad++; /* a sample no bucket holds */
	for (; w->j < w->n && w->s[w->j] <= hi; w->j++)
		inside++;
	if (inside != count)
		w->bad++;
	w->prev_hi = hi;
	w->sum += count;
	w->buckets++;
	return 0;
}

static void check_buckets(const struct shb_hist_ops *ops,
			  const struct shb_hist *h, const uint64_t *sorted,
			  size_t n)
{
	struct walk w = {.s = sorted, .n = n};
	CU_ASSERT_EQUAL(ops->foreach_bucket(h, walk_bucket, &w), 0);
	CU_ASSERT_EQUAL(w.bad, 0);
	CU_ASSERT_EQUAL(w.j, n);
	CU_ASSERT_EQUAL(w.sum, n);
	CU_ASSERT_EQUAL(w.sum, ops->count(h));
	CU_ASSERT(w.buckets > 0);
}

/* Records v[0..n) and compares every answer with the exact one. */
static void check_all(const struct shb_hist_ops *ops, const uint64_t *v,
		      size_t n, const char *name)
{
	struct shb_histo h;
	CU_ASSERT_FATAL(shb_histo_init(&h, HOUR_NS, 3) == 0);
	for (size_t i = 0; i < n; i++)
		shb_histo_record(&h, v[i]);
	uint64_t *sorted = malloc(n * sizeof *sorted);
	CU_ASSERT_FATAL(sorted != NULL);
	memcpy(sorted, v, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, cmp_u64);

	const struct shb_hist *hh = shb_histo_abi(&h);
	CU_ASSERT_EQUAL(ops->count(hh), n);
	CU_ASSERT_EQUAL(ops->min(hh), sorted[0]);
	CU_ASSERT_EQUAL(ops->max(hh), sorted[n - 1]);
	CU_ASSERT_EQUAL(h.clamped, 0);
	check_moments(ops, hh, v, n, name);
	check_percentiles(ops, hh, sorted, n, name);
	check_buckets(ops, hh, sorted, n);
	free(sorted);
	shb_histo_destroy(&h);
}

static void run_datasets(const struct shb_hist_ops *ops)
{
	uint64_t *v = malloc(N_SAMPLES * sizeof *v);
	CU_ASSERT_FATAL(v != NULL);
	for (size_t i = 0; i < sizeof datasets / sizeof datasets[0]; i++) {
		datasets[i].gen(v, N_SAMPLES, datasets[i].seed);
		check_all(ops, v, N_SAMPLES, datasets[i].name);
	}
	free(v);
}

static void test_against_exact(void)
{
	run_datasets(&direct_ops);
}

static void test_abi_view(void)
{
	const struct shb_hist_ops *o = &shb_histo_ops;
	CU_ASSERT_EQUAL(o->struct_size, sizeof(struct shb_hist_ops));
	CU_ASSERT(o->count && o->min && o->max && o->mean && o->stddev &&
		  o->value_at_ppm && o->foreach_bucket);
	run_datasets(o);
}

/* Small data sets, where every sample's own rank can be checked. */
static void test_tiny_sets(void)
{
	static const uint64_t one[] = {42};
	static const uint64_t two[] = {1000000, 3};
	static const uint64_t zeros[] = {0, 0, 0, 7};
	check_all(&direct_ops, one, 1, "one");
	check_all(&direct_ops, two, 2, "two");
	check_all(&direct_ops, zeros, 4, "zeros");

	struct shb_histo h;
	CU_ASSERT_FATAL(shb_histo_init(&h, HOUR_NS, 3) == 0);
	shb_histo_record(&h, 0);
	CU_ASSERT_EQUAL(shb_histo_count(&h), 1);
	CU_ASSERT_EQUAL(shb_histo_min(&h), 0);
	CU_ASSERT_EQUAL(shb_histo_max(&h), 0);
	CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, 500000), 0);
	CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, PPM_ALL), 0);
	/* p50 of {3, 1000000} is 3, p50.0001 is the top sample. */
	shb_histo_reset(&h);
	shb_histo_record(&h, 1000000);
	shb_histo_record(&h, 3);
	CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, 500000), 3);
	CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, 500001), 1000000);
	shb_histo_destroy(&h);
}

static void test_empty(void)
{
	struct shb_histo h;
	CU_ASSERT_FATAL(shb_histo_init(&h, HOUR_NS, 3) == 0);
	for (int pass = 0; pass < 2; pass++) {
		const struct shb_hist *hh = shb_histo_abi(&h);
		struct walk w = {0};
		CU_ASSERT_EQUAL(shb_histo_count(&h), 0);
		CU_ASSERT_EQUAL(shb_histo_min(&h), 0);
		CU_ASSERT_EQUAL(shb_histo_max(&h), 0);
		CU_ASSERT_EQUAL(shb_histo_mean(&h), 0);
		CU_ASSERT_EQUAL(shb_histo_stddev(&h), 0);
		CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, 0), 0);
		CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, 500000), 0);
		CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, PPM_ALL), 0);
		CU_ASSERT_EQUAL(shb_histo_ops.min(hh), 0);
		CU_ASSERT_EQUAL(shb_histo_ops.value_at_ppm(hh, 990000), 0);
		CU_ASSERT_EQUAL(shb_histo_ops.foreach_bucket(hh, walk_bucket, &w),
				0);
		CU_ASSERT_EQUAL(w.buckets, 0);
		CU_ASSERT_EQUAL(h.clamped, 0);
		/* Second pass: emptied again by reset after use. */
		shb_histo_record(&h, 5);
		shb_histo_record(&h, HOUR_NS + 1);
		shb_histo_reset(&h);
	}
	/* Nothing of the earlier min and max survives the reset. */
	shb_histo_record(&h, 0);
	CU_ASSERT_EQUAL(shb_histo_max(&h), 0);
	CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, PPM_ALL), 0);
	shb_histo_reset(&h);
	shb_histo_record(&h, HOUR_NS);
	CU_ASSERT_EQUAL(shb_histo_min(&h), HOUR_NS);
	shb_histo_destroy(&h);
}

static void test_clamp(void)
{
	struct shb_histo h;
	CU_ASSERT_FATAL(shb_histo_init(&h, 1000000, 3) == 0);
	shb_histo_record(&h, 5);
	shb_histo_record(&h, 1000000); /* highest itself is not clamped */
	CU_ASSERT_EQUAL(h.clamped, 0);
	shb_histo_record(&h, 1000001);
	shb_histo_record(&h, 5000000);
	shb_histo_record(&h, UINT64_MAX);
	CU_ASSERT_EQUAL(h.clamped, 3);
	CU_ASSERT_EQUAL(shb_histo_count(&h), 5);
	CU_ASSERT_EQUAL(shb_histo_min(&h), 5);
	CU_ASSERT_EQUAL(shb_histo_max(&h), 1000000);
	CU_ASSERT_EQUAL(shb_histo_mean(&h), (5 + 4 * 1000000) / 5);
	/* The top bucket reaches past 1000000: the answer stops at max. */
	CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, 500000), 1000000);
	CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, PPM_ALL), 1000000);
	CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, 200000), 5);

	static const uint64_t recorded[] = {5, 1000000, 1000000, 1000000,
					    1000000};
	check_buckets(&shb_histo_ops, shb_histo_abi(&h), recorded, 5);
	shb_histo_reset(&h);
	CU_ASSERT_EQUAL(h.clamped, 0);
	shb_histo_destroy(&h);
}

static void feed(struct shb_histo *h, const uint64_t *v, size_t n,
		 size_t from, size_t step)
{
	for (size_t i = from; i < n; i += step)
		shb_histo_record(h, v[i]);
}

static void expect_same(const struct shb_histo *a, const struct shb_histo *b)
{
	uint32_t ppms[1100];
	size_t np = ppm_list(ppms), diff = 0;
	CU_ASSERT_EQUAL(a->counts_len, b->counts_len);
	CU_ASSERT(memcmp(a->counts, b->counts,
			 (size_t)a->counts_len * sizeof *a->counts) == 0);
	CU_ASSERT_EQUAL(shb_histo_count(a), shb_histo_count(b));
	CU_ASSERT_EQUAL(shb_histo_min(a), shb_histo_min(b));
	CU_ASSERT_EQUAL(shb_histo_max(a), shb_histo_max(b));
	CU_ASSERT_EQUAL(shb_histo_mean(a), shb_histo_mean(b));
	CU_ASSERT_EQUAL(a->clamped, b->clamped);
	/* Sums taken in another order may round differently. */
	uint64_t sa = shb_histo_stddev(a), sb = shb_histo_stddev(b);
	CU_ASSERT((sa > sb ? sa - sb : sb - sa) <= 1);
	for (size_t i = 0; i < np; i++)
		diff += shb_histo_value_at_ppm(a, ppms[i]) !=
			shb_histo_value_at_ppm(b, ppms[i]);
	CU_ASSERT_EQUAL(diff, 0);
}

static void test_merge(void)
{
	uint64_t *v = malloc(N_SAMPLES * sizeof *v);
	CU_ASSERT_FATAL(v != NULL);
	for (size_t d = 0; d < sizeof datasets / sizeof datasets[0]; d++) {
		struct shb_histo a, b, all, empty;
		datasets[d].gen(v, N_SAMPLES, datasets[d].seed);
		/* Different first values, so different sum origins. */
		v[0] = 1;
		v[1] = HOUR_NS + 5; /* clamped */
		CU_ASSERT_FATAL(shb_histo_init(&a, HOUR_NS, 3) == 0);
		CU_ASSERT_FATAL(shb_histo_init(&b, HOUR_NS, 3) == 0);
		CU_ASSERT_FATAL(shb_histo_init(&all, HOUR_NS, 3) == 0);
		CU_ASSERT_FATAL(shb_histo_init(&empty, HOUR_NS, 3) == 0);
		feed(&a, v, N_SAMPLES, 0, 2);
		feed(&b, v, N_SAMPLES, 1, 2);
		feed(&all, v, N_SAMPLES, 0, 1);
		CU_ASSERT_EQUAL(shb_histo_merge(&a, &empty), 0);
		CU_ASSERT_EQUAL(shb_histo_merge(&a, &b), 0);
		expect_same(&a, &all);
		/* Into an empty one. */
		CU_ASSERT_EQUAL(shb_histo_merge(&empty, &a), 0);
		expect_same(&empty, &all);
		/* Into itself: counts double, moments stay. */
		CU_ASSERT_EQUAL(shb_histo_merge(&a, &a), 0);
		CU_ASSERT_EQUAL(shb_histo_count(&a), 2 * N_SAMPLES);
		CU_ASSERT_EQUAL(a.clamped, 2);
		CU_ASSERT_EQUAL(shb_histo_mean(&a), shb_histo_mean(&all));
		uint64_t sa = shb_histo_stddev(&a), sb = shb_histo_stddev(&all);
		CU_ASSERT((sa > sb ? sa - sb : sb - sa) <= 1);
		shb_histo_destroy(&a);
		shb_histo_destroy(&b);
		shb_histo_destroy(&all);
		shb_histo_destroy(&empty);
	}
	free(v);
}

static void test_merge_mismatch(void)
{
	struct shb_histo a, b, c;
	CU_ASSERT_FATAL(shb_histo_init(&a, HOUR_NS, 3) == 0);
	CU_ASSERT_FATAL(shb_histo_init(&b, HOUR_NS, 2) == 0);
	CU_ASSERT_FATAL(shb_histo_init(&c, HOUR_NS / 2, 3) == 0);
	shb_histo_record(&a, 10);
	shb_histo_record(&b, 20);
	shb_histo_record(&c, 30);
	CU_ASSERT_EQUAL(shb_histo_merge(&a, &b), -1);
	CU_ASSERT_EQUAL(shb_histo_merge(&a, &c), -1);
	CU_ASSERT_EQUAL(shb_histo_merge(&c, &a), -1);
	CU_ASSERT_EQUAL(shb_histo_count(&a), 1);
	CU_ASSERT_EQUAL(shb_histo_max(&a), 10);
	CU_ASSERT_EQUAL(shb_histo_count(&c), 1);
	shb_histo_destroy(&a);
	shb_histo_destroy(&b);
	shb_histo_destroy(&c);
}

static void test_memory_constant(void)
{
	struct shb_histo h, fresh;
	CU_ASSERT_FATAL(shb_histo_init(&h, HOUR_NS, 3) == 0);
	CU_ASSERT_FATAL(shb_histo_init(&fresh, HOUR_NS, 3) == 0);
	/* The layout documented in hist.c: 33792 counters, 264 KiB. */
	CU_ASSERT_EQUAL(h.sub_bucket_count, 2048);
	CU_ASSERT_EQUAL(h.sub_bucket_half_count, 1024);
	CU_ASSERT_EQUAL(h.bucket_count, 32);
	CU_ASSERT_EQUAL(h.counts_len, 33792);
	int32_t len = h.counts_len;
	uint64_t *counts = h.counts;
	uint64_t seed = 99;
	for (int i = 0; i < 1000000; i++)
		shb_histo_record(&h, rng_next(&seed) >> (rng_next(&seed) % 64));
	CU_ASSERT_EQUAL(h.counts_len, len);
	CU_ASSERT_PTR_EQUAL(h.counts, counts);
	CU_ASSERT_EQUAL(h.counts_len, fresh.counts_len);
	CU_ASSERT_EQUAL(shb_histo_count(&h), 1000000);
	CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, PPM_ALL), shb_histo_max(&h));
	CU_ASSERT_EQUAL(shb_histo_max(&h), HOUR_NS); /* some were clamped */
	CU_ASSERT(h.clamped > 0);
	shb_histo_reset(&h);
	CU_ASSERT_PTR_EQUAL(h.counts, counts);
	CU_ASSERT_EQUAL(h.counts_len, len);
	shb_histo_destroy(&h);
	shb_histo_destroy(&fresh);
}

/* With s significant digits, every bucket is narrow enough that its
 * highest value is within 10^-s of its lowest. */
struct precision {
	uint64_t scale, bad, buckets;
};

static int precision_bucket(void *user, uint64_t lo, uint64_t hi,
			    uint64_t count)
{
	struct precision *p = user;
	if (lo == 0 ? hi != 0 : (hi - lo) * p->scale > lo)
		p->bad++;
	p->buckets++;
	return 0;
}

static void test_sigfigs(void)
{
	static const int32_t sub_counts[] = {32, 256, 2048, 32768, 262144};
	uint64_t scale = 1;
	for (int s = 1; s <= 5; s++) {
		struct shb_histo h;
		scale *= 10;
		CU_ASSERT_FATAL(shb_histo_init(&h, HOUR_NS, s) == 0);
		CU_ASSERT_EQUAL(h.sub_bucket_count, sub_counts[s - 1]);
		/* Both sides of every power of two, plus random values. */
		for (int k = 0; k < 42; k++) {
			uint64_t p = (uint64_t)1 << k;
			shb_histo_record(&h, p - 1);
			shb_histo_record(&h, p);
			shb_histo_record(&h, p + 1);
		}
		uint64_t seed = 1000 + s;
		for (int i = 0; i < 20000; i++)
			shb_histo_record(&h, rng_next(&seed) >> (23 + i % 41));
		shb_histo_record(&h, HOUR_NS);
		CU_ASSERT_EQUAL(h.clamped, 0);
		struct precision p = {.scale = scale};
		shb_histo_ops.foreach_bucket(shb_histo_abi(&h), precision_bucket,
					     &p);
		CU_ASSERT_EQUAL(p.bad, 0);
		CU_ASSERT(p.buckets > 100);
		shb_histo_destroy(&h);
	}
}

static void test_bad_params(void)
{
	static const struct {
		uint64_t highest;
		int sigfigs;
	} bad[] = {
		{HOUR_NS, 0}, {HOUR_NS, 6}, {HOUR_NS, -1}, {0, 3}, {1, 3},
		{(uint64_t)INT64_MAX + 1, 3}, {UINT64_MAX, 3},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct shb_histo h;
		CU_ASSERT_EQUAL(shb_histo_init(&h, bad[i].highest, bad[i].sigfigs),
				SHB_E_INVAL);
		CU_ASSERT_PTR_NULL(h.counts);
		CU_ASSERT_EQUAL(shb_histo_count(&h), 0);
		CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, 500000), 0);
		shb_histo_reset(&h);
		shb_histo_destroy(&h);
	}
}

/* The extremes of the accepted range record and report without leaving
 * the counts array (the sanitizer build checks the bounds). */
static void test_extreme_ranges(void)
{
	struct shb_histo h;
	CU_ASSERT_FATAL(shb_histo_init(&h, 2, 1) == 0);
	shb_histo_record(&h, 0);
	shb_histo_record(&h, 2);
	shb_histo_record(&h, 3);
	CU_ASSERT_EQUAL(h.clamped, 1);
	CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, 1), 0);
	CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, 500000), 2);
	shb_histo_destroy(&h);

	CU_ASSERT_FATAL(shb_histo_init(&h, INT64_MAX, 3) == 0);
	static const uint64_t v[] = {0, 1, 2047, 2048, (uint64_t)1 << 62,
				     INT64_MAX};
	for (size_t i = 0; i < 6; i++)
		shb_histo_record(&h, v[i]);
	shb_histo_record(&h, UINT64_MAX);
	CU_ASSERT_EQUAL(h.clamped, 1);
	CU_ASSERT_EQUAL(shb_histo_max(&h), INT64_MAX);
	CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, PPM_ALL), INT64_MAX);
	CU_ASSERT_EQUAL(shb_histo_value_at_ppm(&h, 999999), INT64_MAX);
	const uint64_t recorded[] = {0, 1, 2047, 2048, (uint64_t)1 << 62,
				     INT64_MAX, INT64_MAX};
	check_buckets(&shb_histo_ops, shb_histo_abi(&h), recorded, 7);
	shb_histo_destroy(&h);
}

static int stop_after_one(void *user, uint64_t lo, uint64_t hi,
			  uint64_t count)
{
	++*(int *)user;
	return 7;
}

static void test_foreach_stop(void)
{
	struct shb_histo h;
	int calls = 0;
	CU_ASSERT_FATAL(shb_histo_init(&h, HOUR_NS, 3) == 0);
	shb_histo_record(&h, 10);
	shb_histo_record(&h, 10000);
	shb_histo_record(&h, 10000000);
	CU_ASSERT_EQUAL(shb_histo_ops.foreach_bucket(shb_histo_abi(&h),
						     stop_after_one, &calls),
			7);
	CU_ASSERT_EQUAL(calls, 1);
	shb_histo_destroy(&h);
}

static CU_TestInfo hist_tests[] = {
	{"percentiles and moments against exact", test_against_exact},
	{"the same through shb_histo_ops", test_abi_view},
	{"tiny sets and zero", test_tiny_sets},
	{"empty and reset", test_empty},
	{"clamping above highest", test_clamp},
	{"merge equals the union", test_merge},
	{"merge refuses other parameters", test_merge_mismatch},
	{"memory fixed at init", test_memory_constant},
	{"precision for 1..5 digits", test_sigfigs},
	{"bad parameters", test_bad_params},
	{"extreme ranges", test_extreme_ranges},
	{"foreach stops on non-zero", test_foreach_stop},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"hist", NULL, NULL, NULL, NULL, hist_tests},
	CU_SUITE_INFO_NULL,
};
