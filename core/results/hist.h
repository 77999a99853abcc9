/* A log-linear latency histogram with HdrHistogram semantics.
 *
 * Values are nanoseconds from 1 to `highest` (larger values are clamped to
 * highest and counted in `clamped`). With `sigfigs` significant digits every
 * recorded value is reproduced within a relative error of 10^-sigfigs.
 * Memory is fixed at init whatever the run length; histograms with the same
 * parameters merge by adding counts. One histogram per worker: not
 * thread-safe. */
#ifndef SHB_CORE_HIST_H
#define SHB_CORE_HIST_H

#include <stdint.h>
#include <shb/hist.h>

struct shb_histo {
	uint64_t highest;
	int sigfigs;
	int32_t sub_bucket_half_count_magnitude;
	int32_t unit_magnitude;
	int32_t sub_bucket_count;
	int32_t sub_bucket_half_count;
	int64_t sub_bucket_mask;
	int32_t index_base; /* index_of's constant (hist.c) */
	int32_t bucket_count;
	int32_t counts_len;
	uint64_t *counts;
	uint64_t total;
	uint64_t min, max;
	uint64_t clamped;
	/* The sum of the values is sum + sum_hi * 2^64 + sum_lo: record adds
	 * to the two integer words (exact, no floating point on the hot
	 * path), merges and reports fold them into sum. */
	long double sum;
	uint64_t sum_lo, sum_hi;
	/* Of the squared distances to sq_origin (the first value recorded):
	 * about a value inside the data, the variance does not cancel out of
	 * two huge sums, so tight distributions keep an exact stddev. It is
	 * sum_sq + sq_hi * 2^64 + sq_lo: distances below 2^32 (4.3 s) square
	 * exactly into the integer words; larger ones go to sum_sq. */
	long double sum_sq;
	uint64_t sq_lo, sq_hi;
	uint64_t sq_origin;
};

int shb_histo_init(struct shb_histo *h, uint64_t highest, int sigfigs);
void shb_histo_destroy(struct shb_histo *h);
void shb_histo_reset(struct shb_histo *h);
void shb_histo_record(struct shb_histo *h, uint64_t v);
/* dst += src; both must have been initialised with the same parameters.
 * Returns 0, or -1 if they differ. */
int shb_histo_merge(struct shb_histo *dst, const struct shb_histo *src);

uint64_t shb_histo_count(const struct shb_histo *h);
uint64_t shb_histo_min(const struct shb_histo *h);
uint64_t shb_histo_max(const struct shb_histo *h);
uint64_t shb_histo_mean(const struct shb_histo *h);
uint64_t shb_histo_stddev(const struct shb_histo *h);
uint64_t shb_histo_value_at_ppm(const struct shb_histo *h, uint32_t ppm);

/* The ABI view: struct shb_hist * is a struct shb_histo *. */
extern const struct shb_hist_ops shb_histo_ops;
static inline const struct shb_hist *shb_histo_abi(const struct shb_histo *h)
{
	return (const struct shb_hist *)(const void *)h;
}

#endif
