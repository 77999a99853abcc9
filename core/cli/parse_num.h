/* Whole numbers and rates as options give them (parse_num.c). */
#ifndef SHB_CORE_PARSE_NUM_H
#define SHB_CORE_PARSE_NUM_H

#include <stdint.h>

/* s, digits only, into *out. Returns 0, or -1 (nothing, another
 * character, or more than UINT64_MAX) with *out unchanged. */
int shb_parse_u64(const char *s, uint64_t *out);
/* s[0..end), requests per second with at most 3 decimals, into *milli
 * as requests/s x 1000, at most SHB_SCHED_MAX_RATE_MILLI (schedule.h).
 * Returns 0, or -1 with *milli unchanged. */
int shb_parse_rate(const char *s, const char *end, uint64_t *milli);

#endif
