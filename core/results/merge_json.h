/* Numbers read back from a JSON report, for shb merge (merge.c and
 * merge_parts.c). */
#ifndef SHB_CORE_MERGE_JSON_H
#define SHB_CORE_MERGE_JSON_H

#include <math.h>
#include <stdint.h>
#include <jansson.h>

#include "results/hist.h"

/* Counts are JSON integers: each, and every sum merge makes of them, at
 * most 2^63 - 1. */
#define SHB_MJ_COUNT_MAX ((uint64_t)INT64_MAX)
/* Seconds beyond about 31 years are no report's: read as absent, so that
 * times and lengths added together stay far from 2^64 ns. */
#define SHB_MJ_SECONDS_MAX 1e9

/* A count: a positive integer, anything else 0. */
static inline uint64_t shb_mj_u64(const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) > 0 ?
	       (uint64_t)json_integer_value(v) : 0;
}

/* *sum += v, unless the sum would pass SHB_MJ_COUNT_MAX: then -1 and
 * *sum is left as it was. */
static inline int shb_mj_add(uint64_t *sum, uint64_t v)
{
	if (*sum > SHB_MJ_COUNT_MAX || v > SHB_MJ_COUNT_MAX - *sum)
		return -1;
	*sum += v;
	return 0;
}

/* Seconds as written by the json reporter (15 significant digits) back
 * to whole nanoseconds: exact below about 11 days; 0 when not a number
 * of seconds in (0, SHB_MJ_SECONDS_MAX). */
static inline uint64_t shb_mj_ns(const json_t *v)
{
	double s = json_number_value(v);
	return s > 0 && s < SHB_MJ_SECONDS_MAX ? (uint64_t)llround(s * 1e9) : 0;
}

/* Fills h (empty, of the stats' layout) from one exported histogram `b64`
 * (a report's `key`; absent or null: nothing) and its summary in the same
 * report (min, max, mean, stddev where it gives them). 0, or -1 with one
 * line in err. merge.c. */
int shb_merge_histo_from(struct shb_histo *h, const char *name, const char *key,
			 const json_t *b64, const json_t *summary, char *err,
			 size_t errlen);

#endif
