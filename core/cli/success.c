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

/* An outcome name, [space.]name of [a-z0-9_] starting with a letter
 * (shb/types.h): resolved later, once the protocol is known. */
static int is_name(const char *p, size_t n)
{
	size_t dots = 0;

	if (n == 0 || n > 63 || p[0] < 'a' || p[0] > 'z' ||
	    (n == 3 && memcmp(p, "any", 3) == 0)) /* "any" alone */
		return 0;
	for (size_t i = 0; i < n; i++) {
		char ch = p[i];
		if (ch == '.' && i > 0 && i + 1 < n && p[i - 1] != '.')
			dots++;
		else if (!(ch >= 'a' && ch <= 'z') && !(ch >= '0' && ch <= '9') &&
			 ch != '_')
			return 0;
	}
	return dots <= 1;
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
		uint32_t lo = 1, hi = 0;
		if (is_name(p, n)) {
			if (++s->names > (int)SHB_SUCCESS_NAMES_MAX)
				return shb_errf(err, errlen, "more than %u outcome "
						"names in \"%s\"",
						SHB_SUCCESS_NAMES_MAX,
						shb_quote(list).s);
		} else if (item(p, n, &lo, &hi) < 0) {
			return shb_errf(err, errlen, "\"%s\" in \"%s\" is not a "
					"status (304), a range (200-299) or a "
					"class (2xx) of statuses 100..999, nor "
					"an outcome name of the protocol (ok) "
					"(or \"any\" alone)",
					shb_quote_n(p, n).s, shb_quote(list).s);
		} else {
			s->statuses = 1;
		}
		for (uint32_t v = lo; v <= hi; v++) {
			uint32_t i = v - SHB_SUCCESS_MIN;
			s->bit[i / 8] |= (uint8_t)(1u << (i % 8));
		}
		if (!p[n])
			break;
		p += n + 1;
	}
	if (s->names && strlen(list) >= sizeof(s->text))
		return shb_errf(err, errlen, "\"%s\": a list of outcome names "
				"is at most %u bytes", shb_quote(list).s,
				SHB_SUCCESS_TEXT_MAX - 1);
	s->given = 1;
	snprintf(s->text, sizeof(s->text), "%s", list);
	return 0;
}

const char *shb_success_text(const struct shb_success *s)
{
	if (s->own)
		return s->text[0] ? s->text : "the protocol's own (none named)";
	return s->given ? s->text : SHB_SUCCESS_DEFAULT_TEXT;
}

int shb_success_opt(const char *name, const char *v, struct shb_success *s,
		    char *err, size_t errlen)
{
	char serr[400];

	if (s->given)
		return shb_errf(err, errlen, "%s given twice: list the statuses "
				"in one (e.g. 2xx,304)", name);
	if (shb_success_parse(v, s, serr, sizeof(serr)) < 0)
		return shb_errf(err, errlen, "%s: %s", name, serr);
	return 0;
}
