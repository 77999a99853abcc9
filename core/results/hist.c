/* Log-linear latency histogram (see hist.h), written from the published
 * description of HdrHistogram's layout.
 *
 * The value range is cut into buckets, each covering twice the range of the
 * one before. A bucket is divided into sub_bucket_count linear sub-buckets;
 * above bucket 0 only the upper half is stored, because the lower half
 * would cover the previous bucket's range at a coarser resolution. With a
 * lowest discernible value of 1 ns (unit magnitude 0), bucket 0 counts
 * every value below sub_bucket_count exactly, and bucket b >= 1 has
 * sub-buckets 2^b wide starting at sub_bucket_half_count * 2^b or more,
 * which bounds the relative error by 1 / sub_bucket_half_count, less than
 * 10^-sigfigs.
 *
 * Memory: for highest = 1 h (3.6e12 ns) and 3 significant digits,
 * sub_bucket_count = 2048 and bucket_count = 32, so counts_len =
 * (32 + 1) * 1024 = 33792 counters of 8 bytes: 270336 bytes (264 KiB) per
 * histogram, allocated once by shb_histo_init and never resized.
 */
#include "results/hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PPM_ALL 1000000u

/* Index of v in counts[]. With top the position of v's highest set bit
 * and hm = sub_bucket_half_count_magnitude, v lies in bucket
 * b = top - unit_magnitude - hm, sub-bucket v >> (top - hm), and its
 * index ((b + 1) << hm) + sub - sub_bucket_half_count is
 * (top << hm) + sub - index_base, index_base set at init: one record
 * (two a request) does no more than the shifts. The mask makes every value
 * of bucket 0 (below sub_bucket_count) look like its top, so those values
 * need no branch; it also keeps the argument of clz non-zero. */
static inline int32_t index_of(const struct shb_histo *h, uint64_t v)
{
	int32_t top = 63 - __builtin_clzll(v | (uint64_t)h->sub_bucket_mask);
	int32_t hm = h->sub_bucket_half_count_magnitude;
	return (top << hm) + (int32_t)(v >> (top - hm)) - h->index_base;
}

/* Inclusive value bounds of counts[i]. */
static void bounds_of(const struct shb_histo *h, int32_t i, uint64_t *lo,
		      uint64_t *hi)
{
	int32_t b = (i >> h->sub_bucket_half_count_magnitude) - 1;
	int32_t sub = (i & (h->sub_bucket_half_count - 1)) +
		      h->sub_bucket_half_count;
	if (b < 0) { /* the lower half of bucket 0 */
		sub -= h->sub_bucket_half_count;
		b = 0;
	}
	int shift = b + h->unit_magnitude;
	*lo = (uint64_t)sub << shift;
	*hi = *lo + ((uint64_t)1 << shift) - 1;
}

/* ceil(log2(x)) for x >= 1. */
static int ceil_log2(uint64_t x)
{
	int m = 0;
	while (m < 63 && ((uint64_t)1 << m) < x)
		m++;
	return m;
}

/* Buckets needed for the range [0, highest]: the last one doubles past
 * highest. Values stay below 2^63, the last bucket then ends at 2^63. */
static int32_t buckets_needed(uint64_t sub_bucket_count, int unit_magnitude,
			      uint64_t highest)
{
	uint64_t limit = sub_bucket_count << unit_magnitude;
	int32_t n = 1;
	while (limit <= highest) {
		if (limit > (uint64_t)INT64_MAX / 2)
			return n + 1;
		limit <<= 1;
		n++;
	}
	return n;
}

/* Returns 0, SHB_E_INVAL for a bad parameter (sigfigs outside 1..5,
 * highest below 2 or above INT64_MAX) or SHB_E_NOMEM. On error *h is
 * zeroed: queries answer 0 and shb_histo_destroy is harmless. */
int shb_histo_init(struct shb_histo *h, uint64_t highest, int sigfigs)
{
	memset(h, 0, sizeof *h);
	if (sigfigs < 1 || sigfigs > 5 || highest < 2 ||
	    highest > (uint64_t)INT64_MAX)
		return SHB_E_INVAL;

	uint64_t single_unit_range = 2;
	for (int i = 0; i < sigfigs; i++)
		single_unit_range *= 10;
	int count_magnitude = ceil_log2(single_unit_range);

	h->highest = highest;
	h->sigfigs = sigfigs;
	h->unit_magnitude = 0; /* lowest discernible value: 1 ns */
	h->sub_bucket_half_count_magnitude = count_magnitude - 1;
	h->sub_bucket_count = (int32_t)1 << count_magnitude;
	h->sub_bucket_half_count = h->sub_bucket_count / 2;
	h->sub_bucket_mask = (int64_t)(h->sub_bucket_count - 1)
			     << h->unit_magnitude;
	h->index_base = ((h->unit_magnitude + h->sub_bucket_half_count_magnitude - 1)
			 << h->sub_bucket_half_count_magnitude) +
			h->sub_bucket_half_count;
	h->bucket_count = buckets_needed((uint64_t)h->sub_bucket_count,
					 h->unit_magnitude, highest);
	int32_t len = (h->bucket_count + 1) * h->sub_bucket_half_count;
	h->counts = calloc((size_t)len, sizeof *h->counts);
	if (!h->counts) {
		memset(h, 0, sizeof *h);
		return SHB_E_NOMEM;
	}
	h->counts_len = len;
	h->min = UINT64_MAX;
	return 0;
}

void shb_histo_destroy(struct shb_histo *h)
{
	free(h->counts);
	memset(h, 0, sizeof *h);
}

void shb_histo_reset(struct shb_histo *h)
{
	if (h->counts)
		memset(h->counts, 0, (size_t)h->counts_len * sizeof *h->counts);
	h->total = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	h->clamped = 0;
	h->sum = 0;
	h->sum_lo = h->sum_hi = 0;
	h->sum_sq = 0;
	h->sq_lo = h->sq_hi = 0;
	h->sq_origin = 0;
}

/* (*hi, *lo) += x, a 128-bit sum in two words. */
static inline void add128(uint64_t *lo, uint64_t *hi, uint64_t x)
{
	*lo += x;
	*hi += *lo < x;
}

/* 2^64 as a long double, to fold the high words. */
#define TWO_64 18446744073709551616.0L

/* The whole sum of the values, and of the squared distances. */
static long double sum_of(const struct shb_histo *h)
{
	return h->sum + (long double)h->sum_hi * TWO_64 +
	       (long double)h->sum_lo;
}

static long double sq_of(const struct shb_histo *h)
{
	return h->sum_sq + (long double)h->sq_hi * TWO_64 + (long double)h->sq_lo;
}

/* The hot path: conditional expressions and masks only, which compile to
 * conditional moves; the clamp is the one decision, and it too is a cmov.
 * The sums are integer: the x87 long double arithmetic they replace cost
 * more than the rest of a record. */
void shb_histo_record(struct shb_histo *h, uint64_t v)
{
	uint64_t over = v > h->highest;
	h->clamped += over;
	v = over ? h->highest : v;
	h->counts[index_of(h, v)]++;
	/* The first value becomes the origin of sum_sq: a branch taken once,
	 * predicted every other time, costs less than a mask made always. */
	if (h->total == 0)
		h->sq_origin = v;
	h->total++;
	h->min = v < h->min ? v : h->min;
	h->max = v > h->max ? v : h->max;
	/* v <= highest <= INT64_MAX: the distance is a signed 64-bit value,
	 * and its square fits 64 bits below 2^32. */
	int64_t d = (int64_t)v - (int64_t)h->sq_origin;
	uint64_t ad = d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
	add128(&h->sum_lo, &h->sum_hi, v);
	if (ad < ((uint64_t)1 << 32))
		add128(&h->sq_lo, &h->sq_hi, ad * ad);
	else
		h->sum_sq += (long double)d * (long double)d;
}

/* Sum over src of (v - origin)^2, from src's sums about its own origin:
 * sum (v - o)^2 = sum_sq + 2 * delta * sum (v - o_src) + n * delta^2 with
 * delta = o_src - o. */
static long double sq_about(const struct shb_histo *src, uint64_t origin)
{
	long double n = (long double)src->total;
	long double delta = (long double)src->sq_origin - (long double)origin;
	long double lin = sum_of(src) - n * (long double)src->sq_origin;
	return sq_of(src) + 2 * delta * lin + n * delta * delta;
}

int shb_histo_merge(struct shb_histo *dst, const struct shb_histo *src)
{
	if (dst->highest != src->highest || dst->sigfigs != src->sigfigs ||
	    dst->counts_len != src->counts_len)
		return -1;
	if (src->total == 0)
		return 0;
	/* Computed before dst changes: src may be dst. */
	uint64_t origin = dst->total ? dst->sq_origin : src->sq_origin;
	long double src_sq = sq_about(src, origin);
	long double src_sum = sum_of(src);
	for (int32_t i = 0; i < dst->counts_len; i++)
		dst->counts[i] += src->counts[i];
	/* dst's integer words fold into its long doubles first. */
	dst->sum_sq = sq_of(dst) + src_sq;
	dst->sq_lo = dst->sq_hi = 0;
	dst->sum = sum_of(dst) + src_sum;
	dst->sum_lo = dst->sum_hi = 0;
	dst->sq_origin = origin;
	dst->total += src->total;
	dst->clamped += src->clamped;
	dst->min = src->min < dst->min ? src->min : dst->min;
	dst->max = src->max > dst->max ? src->max : dst->max;
	return 0;
}

uint64_t shb_histo_count(const struct shb_histo *h)
{
	return h->total;
}

uint64_t shb_histo_min(const struct shb_histo *h)
{
	return h->total ? h->min : 0;
}

uint64_t shb_histo_max(const struct shb_histo *h)
{
	return h->total ? h->max : 0;
}

uint64_t shb_histo_mean(const struct shb_histo *h)
{
	if (!h->total)
		return 0;
	return (uint64_t)(sum_of(h) / (long double)h->total + 0.5L);
}

uint64_t shb_histo_stddev(const struct shb_histo *h)
{
	if (!h->total)
		return 0;
	long double n = (long double)h->total;
	long double mean_off = sum_of(h) / n - (long double)h->sq_origin;
	long double var = sq_of(h) / n - mean_off * mean_off;
	if (!(var > 0)) /* rounding can leave a tiny negative */
		return 0;
	return (uint64_t)(sqrtl(var) + 0.5L);
}

/* The rank ceil(ppm * total / 1e6), without overflowing for any total. */
static uint64_t rank_at_ppm(uint64_t total, uint32_t ppm)
{
	uint64_t q = total / PPM_ALL, r = total % PPM_ALL;
	uint64_t rank = q * ppm + (r * ppm + PPM_ALL - 1) / PPM_ALL;
	return rank ? rank : 1;
}

uint64_t shb_histo_value_at_ppm(const struct shb_histo *h, uint32_t ppm)
{
	if (!h->total)
		return 0;
	if (ppm >= PPM_ALL)
		return h->max;
	uint64_t rank = rank_at_ppm(h->total, ppm);
	uint64_t seen = 0;
	/* Nothing lies below min's counter or above max's. */
	int32_t last = index_of(h, h->max);
	for (int32_t i = index_of(h, h->min); i <= last; i++) {
		seen += h->counts[i];
		if (seen >= rank) {
			uint64_t lo, hi;
			bounds_of(h, i, &lo, &hi);
			return hi < h->max ? hi : h->max;
		}
	}
	return h->max; /* not reached: the counts sum to total */
}

/* The ABI view. */

static const struct shb_histo *from_abi(const struct shb_hist *h)
{
	return (const struct shb_histo *)(const void *)h;
}

static uint64_t abi_count(const struct shb_hist *h)
{
	return shb_histo_count(from_abi(h));
}

static uint64_t abi_min(const struct shb_hist *h)
{
	return shb_histo_min(from_abi(h));
}

static uint64_t abi_max(const struct shb_hist *h)
{
	return shb_histo_max(from_abi(h));
}

static uint64_t abi_mean(const struct shb_hist *h)
{
	return shb_histo_mean(from_abi(h));
}

static uint64_t abi_stddev(const struct shb_hist *h)
{
	return shb_histo_stddev(from_abi(h));
}

static uint64_t abi_value_at_ppm(const struct shb_hist *h, uint32_t ppm)
{
	return shb_histo_value_at_ppm(from_abi(h), ppm);
}

static int abi_foreach_bucket(const struct shb_hist *hist,
			      shb_hist_bucket_fn fn, void *user)
{
	const struct shb_histo *h = from_abi(hist);
	if (!h->total)
		return 0;
	int32_t last = index_of(h, h->max);
	for (int32_t i = index_of(h, h->min); i <= last; i++) {
		if (!h->counts[i])
			continue;
		uint64_t lo, hi;
		bounds_of(h, i, &lo, &hi);
		int rc = fn(user, lo, hi, h->counts[i]);
		if (rc)
			return rc;
	}
	return 0;
}

const struct shb_hist_ops shb_histo_ops = {
	.struct_size = sizeof(struct shb_hist_ops),
	.count = abi_count,
	.min = abi_min,
	.max = abi_max,
	.mean = abi_mean,
	.stddev = abi_stddev,
	.value_at_ppm = abi_value_at_ppm,
	.foreach_bucket = abi_foreach_bucket,
};
