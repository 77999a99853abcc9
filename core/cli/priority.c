/* --priority: see priority.h. Only the two parameters RFC 9218 defines
 * are accepted: a typo (urgency=1, u=high) would otherwise reach the
 * server as a parameter it ignores, and the run would test nothing.
 * Anything else can still be sent with -H 'Priority: ...'. */
#include "cli/priority.h"
#include "common/quote.h"

#include <stdio.h>
#include <string.h>

static const char *skip_ows(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

int shb_priority_check(const char *name, const char *s, char *err,
		       size_t errlen)
{
	static const char syntax[] = "expected u=N (0..7) and/or i, "
				     "separated by a comma, as in \"u=1, i\"";
	const char *p = skip_ows(s);
	int seen_u = 0, seen_i = 0;

	if (!*p)
		return shb_quote_fail(err, errlen, name, s, "%s", syntax);
	for (;;) {
		if (p[0] == 'u' && p[1] == '=') {
			if (seen_u++)
				return shb_quote_fail(err, errlen, name, s,
						 "u given twice");
			/* An sf-integer: no sign, no leading '+', one digit. */
			if (p[2] < '0' || p[2] > '9' ||
			    (p[3] >= '0' && p[3] <= '9'))
				return shb_quote_fail(err, errlen, name, s, "the "
						 "urgency u must be 0 to 7");
			if (p[2] > '7')
				return shb_quote_fail(err, errlen, name, s, "the "
						 "urgency u must be 0 to 7");
			p += 3;
		} else if (p[0] == 'i' && (p[1] == '=' || p[1] == ',' ||
					   p[1] == ' ' || p[1] == '\t' ||
					   !p[1])) {
			if (seen_i++)
				return shb_quote_fail(err, errlen, name, s,
						 "i given twice");
			p++;
			if (*p == '=') {
				if (p[1] != '?' || (p[2] != '0' && p[2] != '1'))
					return shb_quote_fail(err, errlen, name, s,
							 "i is a boolean: i, "
							 "i=?1 or i=?0");
				p += 3;
			}
		} else {
			return shb_quote_fail(err, errlen, name, s, "%s", syntax);
		}
		p = skip_ows(p);
		if (!*p)
			return 0;
		if (*p != ',')
			return shb_quote_fail(err, errlen, name, s, "%s", syntax);
		p = skip_ows(p + 1);
		if (!*p)
			return shb_quote_fail(err, errlen, name, s,
					 "trailing comma");
	}
}
