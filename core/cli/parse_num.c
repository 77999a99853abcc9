/* Numbers as options give them: digits only, no sign, blanks, base
 * prefixes or suffixes. Kept apart from the options that take them (cli.c,
 * cli_load.c, cli_checks.c) so that each is written once. */
#include "cli/parse_num.h"
#include "cli/schedule.h"

/* Digits only: no sign, blanks, base prefixes or suffixes, so that "-5",
 * " 5", "5x" and "0x10" are all refused rather than half-read. */
int shb_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* A rate in requests per second with at most 3 decimals ("1000", "0.5"),
 * as requests/s x 1000. Digits only, like shb_parse_u64. */
int shb_parse_rate(const char *s, const char *end, uint64_t *milli)
{
	uint64_t v = 0;
	int digits = 0, decimals = -1;

	for (; s < end; s++) {
		if (*s == '.' && decimals < 0 && digits) {
			decimals = 0;
			continue;
		}
		if (*s < '0' || *s > '9' || decimals == 3)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		digits++;
		if (decimals >= 0)
			decimals++;
		if (v > SHB_SCHED_MAX_RATE_MILLI)
			return -1;
	}
	if (!digits || decimals == 0)
		return -1;
	if (decimals < 0)
		decimals = 0;
	for (; decimals < 3; decimals++)
		v *= 10;
	if (v > SHB_SCHED_MAX_RATE_MILLI)
		return -1;
	*milli = v;
	return 0;
}
