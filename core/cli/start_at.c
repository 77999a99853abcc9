/* --start-at: RFC 3339 and Unix-seconds parsing, and the window check
 * (start_at.h). Hand-written rather than strptime/timegm: those read the
 * locale and the TZ environment, and know neither offsets nor fractions. */
#include "cli/start_at.h"
#include "common/quote.h"

#include <stdio.h>
#include <string.h>

#define NS 1000000000ull

static const char syntax[] =
	"expected an RFC 3339 time with Z or an offset "
	"(2026-12-01T20:00:00Z, 2026-12-01T21:00:00.5+01:00) or Unix seconds "
	"(1796155200.5)";

/* Exactly `n` digits at *p, moved past. */
static int digits(const char **p, int n, uint32_t *out)
{
	uint32_t v = 0;
	for (int i = 0; i < n; i++) {
		char ch = (*p)[i];
		if (ch < '0' || ch > '9')
			return -1;
		v = v * 10 + (uint32_t)(ch - '0');
	}
	*p += n;
	*out = v;
	return 0;
}

/* ".ddd" (1 to 9 digits) as ns, when *p is at a '.'; 0 otherwise. */
static const char *fraction(const char **p, uint64_t *ns)
{
	uint64_t scale = NS / 10;
	int n = 0;

	*ns = 0;
	if (**p != '.')
		return NULL;
	for ((*p)++; **p >= '0' && **p <= '9'; (*p)++, n++) {
		if (n == 9)
			return "at most 9 fraction digits (ns)";
		*ns += (uint64_t)(**p - '0') * scale;
		scale /= 10;
	}
	return n ? NULL : syntax;
}

static int leap(uint32_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Days from 1970-01-01 to y-m-d (y >= 1970). */
static uint64_t days_since_epoch(uint32_t y, uint32_t m, uint32_t d)
{
	static const uint16_t before[12] = {0, 31, 59, 90, 120, 151, 181,
					    212, 243, 273, 304, 334};
	uint64_t days = 0;
	for (uint32_t i = 1970; i < y; i++)
		days += 365 + (uint64_t)leap(i);
	return days + before[m - 1] + (m > 2 && leap(y)) + d - 1;
}

static const char *unix_seconds(const char *v, uint64_t *unix_ns)
{
	uint64_t s = 0, frac;
	const char *p = v;
	int n = 0;

	for (; *p >= '0' && *p <= '9'; p++, n++) {
		if (n == 11)
			return "too many digits for Unix seconds";
		s = s * 10 + (uint64_t)(*p - '0');
	}
	const char *why = fraction(&p, &frac);
	if (why)
		return why;
	if (!n || *p)
		return syntax;
	*unix_ns = s * NS + frac;
	return NULL;
}

static const char *rfc3339(const char *v, uint64_t *unix_ns)
{
	static const uint8_t mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30,
					  31, 30, 31};
	uint32_t y, mo, d, h, mi, s, oh = 0, om = 0;
	uint64_t frac;
	const char *p = v, *why;
	int sign = 0;

	if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) ||
	    *p++ != '-' || digits(&p, 2, &d) || (*p != 'T' && *p != 't') ||
	    (p++, digits(&p, 2, &h)) || *p++ != ':' || digits(&p, 2, &mi) ||
	    *p++ != ':' || digits(&p, 2, &s))
		return syntax;
	if ((why = fraction(&p, &frac)))
		return why;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p++ == '-' ? -1 : 1;
		if (digits(&p, 2, &oh) || *p++ != ':' || digits(&p, 2, &om))
			return syntax;
		if (oh > 23 || om > 59)
			return "the offset must be -23:59 to +23:59";
	} else {
		return "the time needs Z or an offset such as +01:00";
	}
	if (*p)
		return syntax;
	if (y < 1970)
		return "the year must be 1970 or later";
	if (mo < 1 || mo > 12)
		return "the month must be 01 to 12";
	if (d < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap(y)))
		return "no such day in that month";
	if (h > 23)
		return "the hour must be 00 to 23";
	if (mi > 59)
		return "the minute must be 00 to 59";
	if (s > 59)
		return "the second must be 00 to 59 (leap seconds are not "
		       "taken)";
	uint64_t t = ((days_since_epoch(y, mo, d) * 24 + h) * 60 + mi) * 60 + s;
	uint64_t off = ((uint64_t)oh * 60 + om) * 60;
	/* Local time = UTC + offset, so UTC = local - offset. */
	if (sign > 0 && off > t)
		return "the time is before 1970";
	t = sign > 0 ? t - off : t + off;
	*unix_ns = t * NS + frac;
	return NULL;
}

const char *shb_start_at_parse(const char *v, uint64_t *unix_ns)
{
	if (v[0] && strspn(v, "0123456789.") == strlen(v))
		return unix_seconds(v, unix_ns);
	return rfc3339(v, unix_ns);
}

int shb_start_at_opt(const char *name, const char *v, uint64_t now_unix_ns,
		     uint64_t *unix_ns, char *err, size_t errlen)
{
	const char *why = shb_start_at_parse(v, unix_ns);

	if (why) {
		snprintf(err, errlen, "%s %s: %s", name, shb_quote(v).s, why);
		return -1;
	}
	if (*unix_ns + SHB_START_AT_PAST_NS < now_unix_ns) {
		snprintf(err, errlen, "%s %s: that is %.1f s in the past; give "
			 "a time ahead (at most 1 s ago)", name, v,
			 (double)(now_unix_ns - *unix_ns) / 1e9);
		return -1;
	}
	if (*unix_ns > now_unix_ns + SHB_START_AT_AHEAD_NS) {
		snprintf(err, errlen, "%s %s: that is more than 24 hours "
			 "ahead", name, v);
		return -1;
	}
	return 0;
}

uint64_t shb_start_at_mono(uint64_t at_unix_ns, uint64_t now_unix_ns,
			   uint64_t now_mono_ns)
{
	if (at_unix_ns >= now_unix_ns)
		return now_mono_ns + (at_unix_ns - now_unix_ns);
	uint64_t back = now_unix_ns - at_unix_ns;
	return back < now_mono_ns ? now_mono_ns - back : 1;
}

void shb_start_at_report(FILE *out, uint64_t at_ns, uint64_t load_ns,
			 uint64_t loaded_ns)
{
	if (!loaded_ns) {
		fprintf(out, "shb: --start-at: the load never started\n");
		return;
	}
	double skew = ((double)loaded_ns - (double)at_ns) / 1e9;
	if (load_ns > at_ns)
		fprintf(out, "shb: --start-at: the set-up ended %.6f s after "
			"the instant; the load started %.6f s late\n",
			(double)(load_ns - at_ns) / 1e9, skew);
	else
		fprintf(out, "shb: --start-at: the load started %.6f s after "
			"the instant\n", skew);
}
