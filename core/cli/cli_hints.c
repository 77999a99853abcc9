/* Other tools' meanings of -d and -m (cli_hints.h). */
#include "cli/cli_hints.h"

#include "cli/duration.h"
#include "common/quote.h"

#include <stdint.h>
#include <string.h>

/* A duration with a unit ("5s", "1m30s", "500ms"): wrk's -d. A bare number
 * ("5", "1.5") is left alone: it is as likely a body, and wrk users write
 * the unit. */
static int looks_like_duration(const char *v)
{
	uint64_t ns;
	return strpbrk(v, "smh") && shb_parse_duration(v, &ns) == 0;
}

int shb_cli_hint_data(const char *name, const char *v, char *err,
		      size_t errlen)
{
	if (strcmp(name, "-d") != 0 || !looks_like_duration(v))
		return 0;
	return shb_errf(err, errlen,
			"-d %s: shb's -d is the request body; for a run of %s "
			"(wrk's -d) give -z %s, or to send the body \"%s\" "
			"write --data %s",
			shb_quote(v).s, shb_quote(v).s, shb_quote(v).s,
			shb_quote(v).s, shb_quote(v).s);
}

/* All digits: h2load's -m (max concurrent streams). No method registered
 * with IANA is a number. */
int shb_cli_hint_method(const char *name, const char *v, char *err,
			size_t errlen)
{
	if (strcmp(name, "-m") != 0 || !*v || strspn(v, "0123456789") != strlen(v))
		return 0;
	return shb_errf(err, errlen,
			"-m %s: shb's -m is the request method; for %s "
			"requests in flight per connection (h2load's -m) give "
			"-p %s, or to send the method \"%s\" write --method %s",
			shb_quote(v).s, shb_quote(v).s, shb_quote(v).s,
			shb_quote(v).s, shb_quote(v).s);
}
