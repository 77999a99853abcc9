#include "cli/percentiles.h"
#include "common/quote.h"

#include <stdio.h>
#include <string.h>

/* One item of [s, end): digits, optionally '.' and 1..4 digits. Returns
 * the ppm, or 0 when it is not a percentile in (0, 100]. */
static uint32_t item_ppm(const char *s, const char *end)
{
	uint64_t whole = 0, frac = 0;
	int digits = 0, fdigits = 0;
	for (; s < end && *s >= '0' && *s <= '9'; s++, digits++) {
		whole = whole * 10 + (uint64_t)(*s - '0');
		if (whole > 100)
			return 0;
	}
	if (s < end && *s == '.') {
		for (s++; s < end && *s >= '0' && *s <= '9'; s++, fdigits++) {
			if (fdigits == 4)
				return 0;
			frac = frac * 10 + (uint64_t)(*s - '0');
		}
		if (fdigits == 0)
			return 0;
	}
	if (s != end || digits == 0)
		return 0;
	for (int i = fdigits; i < 4; i++)
		frac *= 10;
	uint64_t ppm = whole * 10000 + frac;
	return ppm > 0 && ppm <= 1000000 ? (uint32_t)ppm : 0;
}

int shb_percentiles_parse(const char *list, uint32_t ppm[SHB_PCT_MAX],
			  size_t *count, char *err, size_t errlen)
{
	size_t n = 0;
	const char *s = list;
	for (;;) {
		const char *end = strchr(s, ',');
		if (!end)
			end = s + strlen(s);
		size_t len = (size_t)(end - s);
		uint32_t v = item_ppm(s, end);
		if (!v) {
			snprintf(err, errlen, "\"%s\" is not a percentile "
				 "(0 < P <= 100, at most 4 decimals)",
				 shb_quote_n(s, len).s);
			return -1;
		}
		if (n == SHB_PCT_MAX) {
			snprintf(err, errlen, "at most %d percentiles", SHB_PCT_MAX);
			return -1;
		}
		if (n && v <= ppm[n - 1]) {
			snprintf(err, errlen, "\"%s\": percentiles must be "
				 "ascending and distinct", shb_quote_n(s, len).s);
			return -1;
		}
		ppm[n++] = v;
		if (!*end)
			break;
		s = end + 1;
	}
	*count = n;
	return 0;
}
