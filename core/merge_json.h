/* Numbers read back from a JSON report, for shb merge (merge.c and
 * merge_parts.c). */
#ifndef SHB_CORE_MERGE_JSON_H
#define SHB_CORE_MERGE_JSON_H

#include <math.h>
#include <stdint.h>
#include <jansson.h>

/* A count: a positive integer, anything else 0. */
static inline uint64_t shb_mj_u64(const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) > 0 ?
	       (uint64_t)json_integer_value(v) : 0;
}

/* Seconds as written by the json reporter (15 significant digits) back
 * to whole nanoseconds: exact below about 11 days. */
static inline uint64_t shb_mj_ns(const json_t *v)
{
	double s = json_number_value(v);
	return s > 0 ? (uint64_t)llround(s * 1e9) : 0;
}

#endif
