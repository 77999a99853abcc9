/* The duration parser (duration.h), apart from the command line so that
 * everyone reading durations shares it. */
#include "cli/duration.h"

#include <stdio.h>
#include <string.h>

struct unit {
	const char *sfx;
	uint64_t ns;
};

/* Longer suffixes first so that "ms" is not read as "m" + junk. */
static const struct unit units[] = {
	{"ns", 1ull},
	{"us", 1000ull},
	{"ms", 1000000ull},
	{"s", 1000000000ull},
	{"m", 60000000000ull},
	{"h", 3600000000000ull},
};

static const struct unit *match_unit(const char *p)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strncmp(p, units[i].sfx, strlen(units[i].sfx)) == 0)
			return &units[i];
	return NULL;
}

/* One "<int>[.<frac>]" component; the fraction keeps 9 digits, which is
 * below a nanosecond for every unit up to hours' 3.6 us. */
static int duration_number(const char **pp, uint64_t *ip, uint64_t *frac,
			   uint64_t *scale)
{
	const char *p = *pp;
	int digits = 0;

	*ip = 0;
	*frac = 0;
	*scale = 1;
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		unsigned d = (unsigned)(*p - '0');
		if (*ip > (UINT64_MAX - d) / 10)
			return -1;
		*ip = *ip * 10 + d;
	}
	if (*p == '.') {
		int fdigits = 0;
		for (p++; *p >= '0' && *p <= '9'; p++, fdigits++) {
			if (*scale < 1000000000ull) {
				*frac = *frac * 10 + (uint64_t)(*p - '0');
				*scale *= 10;
			}
		}
		if (fdigits == 0)
			return -1;
		digits += fdigits;
	}
	*pp = p;
	return digits > 0 ? 0 : -1;
}

int shb_parse_duration(const char *s, uint64_t *ns)
{
	uint64_t total = 0;
	const char *p = s;

	if (!s || !*s)
		return -1;
	while (*p) {
		uint64_t ip, frac, scale, unit;
		const char *start = p;
		if (duration_number(&p, &ip, &frac, &scale) < 0)
			return -1;
		const struct unit *u = match_unit(p);
		if (u) {
			unit = u->ns;
			p += strlen(u->sfx);
		} else if (start == s && !*p) {
			unit = 1000000000ull; /* a lone bare number: seconds */
		} else {
			return -1; /* "1m30" is ambiguous, so refused */
		}
		if (ip > UINT64_MAX / unit)
			return -1;
		/* frac/scale of a unit, split so neither product overflows:
		 * frac < scale <= 1e9 and unit % scale < 1e9. */
		uint64_t part = ip * unit + frac * (unit / scale) +
				frac * (unit % scale) / scale;
		if (part < ip * unit || total > UINT64_MAX - part)
			return -1;
		total += part;
	}
	*ns = total;
	return 0;
}

const char *shb_duration_text_sig(uint64_t ns, int sig, char *buf, size_t n)
{
	if (ns >= 1000000000ull)
		snprintf(buf, n, "%.*gs", sig, (double)ns / 1e9);
	else if (ns >= 1000000ull)
		snprintf(buf, n, "%.*gms", sig, (double)ns / 1e6);
	else if (ns >= 1000ull)
		snprintf(buf, n, "%.*gus", sig, (double)ns / 1e3);
	else
		snprintf(buf, n, "%lluns", (unsigned long long)ns);
	return buf;
}

const char *shb_duration_text(uint64_t ns, char *buf, size_t n)
{
	return shb_duration_text_sig(ns, 3, buf, n);
}
