/* --success (success.h). */
#include "cli/success.h"

#include <stdio.h>
#include <string.h>

#include "common/quote.h"

/* Three digits at p (n bytes): the status, or 0. */
static uint32_t status_at(const char *p, size_t n)
{
	if (n != 3)
		return 0;
	uint32_t v = 0;
	for (size_t i = 0; i < 3; i++) {
		if (p[i] < '0' || p[i] > '9')
			return 0;
		v = v * 10 + (uint32_t)(p[i] - '0');
	}
	return v >= SHB_SUCCESS_MIN && v <= SHB_SUCCESS_MAX ? v : 0;
}

/* One item: [*lo, *hi], or -1. */
static int item(const char *p, size_t n, uint32_t *lo, uint32_t *hi)
{
	const char *dash = memchr(p, '-', n);
	if (n == 3 && p[0] >= '1' && p[0] <= '9' && p[1] == 'x' && p[2] == 'x') {
		*lo = (uint32_t)(p[0] - '0') * 100;
		*hi = *lo + 99;
		return 0;
	}
	if (!dash) {
		*lo = *hi = status_at(p, n);
		return *lo ? 0 : -1;
	}
	*lo = status_at(p, (size_t)(dash - p));
	*hi = status_at(dash + 1, n - (size_t)(dash - p) - 1);
	return *lo && *hi && *lo <= *hi ? 0 : -1;
}

int shb_success_parse(const char *list, struct shb_success *s, char *err,
		      size_t errlen)
{
	memset(s, 0, sizeof(*s));
	if (strcmp(list, "any") == 0) {
		s->given = s->any = 1;
		snprintf(s->text, sizeof(s->text), "any");
		return 0;
	}
	for (const char *p = list;;) {
		size_t n = strcspn(p, ",");
		uint32_t lo, hi;
		if (item(p, n, &lo, &hi) < 0)
			return shb_errf(err, errlen, "\"%s\" in \"%s\" is not a "
					"status (304), a range (200-299) or a "
					"class (2xx) of statuses 100..999 (or "
					"\"any\" alone)",
					shb_quote_n(p, n).s, shb_quote(list).s);
		for (uint32_t v = lo; v <= hi; v++) {
			uint32_t i = v - SHB_SUCCESS_MIN;
			s->bit[i / 8] |= (uint8_t)(1u << (i % 8));
		}
		if (!p[n])
			break;
		p += n + 1;
	}
	s->given = 1;
	snprintf(s->text, sizeof(s->text), "%s", list);
	return 0;
}

const char *shb_success_text(const struct shb_success *s)
{
	return s->given ? s->text : SHB_SUCCESS_DEFAULT_TEXT;
}
