/* shb plugin ABI: read access to the core's latency histograms.
 *
 * Histograms are opaque: their bucket layout is private to the core and may
 * change without an ABI break. Reporters read them through host->hist.
 * Values are nanoseconds. Every accessor is [main] (reporters only), takes a
 * histogram that is valid for the duration of the reporter callback that
 * handed it out, and does not retain it. */
#ifndef SHB_HIST_H
#define SHB_HIST_H

#include <shb/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shb_hist; /* opaque, core-owned */

/* Called once per non-empty bucket, in ascending order; [lo, hi] are the
 * bucket's value bounds (inclusive). A non-zero return stops the walk and is
 * returned by foreach_bucket. */
typedef int (*shb_hist_bucket_fn)(void *user, uint64_t lo, uint64_t hi,
				  uint64_t count);

struct shb_hist_ops {
	uint32_t struct_size;
	uint64_t (*count)(const struct shb_hist *h);
	uint64_t (*min)(const struct shb_hist *h); /* 0 when empty */
	uint64_t (*max)(const struct shb_hist *h); /* 0 when empty */
	uint64_t (*mean)(const struct shb_hist *h);   /* rounded; 0 when empty */
	uint64_t (*stddev)(const struct shb_hist *h); /* population; rounded */
	/* The value at percentile `ppm` parts per million (p99.9 = 999000),
	 * with HdrHistogram semantics: the smallest recorded-bucket value such
	 * that at least ppm/1e6 of all samples are <= it, reported as the
	 * bucket's highest equivalent value and never above max(). */
	uint64_t (*value_at_ppm)(const struct shb_hist *h, uint32_t ppm);
	int (*foreach_bucket)(const struct shb_hist *h, shb_hist_bucket_fn fn,
			      void *user);
};

#ifdef __cplusplus
}
#endif
#endif
