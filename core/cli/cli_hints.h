/* Values that another load generator's flag of the same letter would
 * mean. shb's -d is curl's request body and -m curl's/hey's method, but
 * wrk's -d is the run's duration and h2load's -m its streams per
 * connection: `shb -d 5s URL` would POST the body "5s" and `shb -m 32 URL`
 * send the method "32" (and count the 400s it gets as answers), both
 * silently. Where a value is far more likely the other tool's meaning, the
 * short option refuses it with one line naming shb's option; the long
 * spelling (--data, --method) is unambiguous and sends the value as typed.
 * Pure: tests/url_cli. */
#ifndef SHB_CORE_CLI_HINTS_H
#define SHB_CORE_CLI_HINTS_H

#include <stddef.h>

/* [main] `name` is the option as typed ("-d", "--data", "-m", "-X",
 * "--method"), v its value. 0 when v is taken as shb's meaning, or -1
 * with one line in err. */
int shb_cli_hint_data(const char *name, const char *v, char *err,
		      size_t errlen);
int shb_cli_hint_method(const char *name, const char *v, char *err,
			size_t errlen);

#endif
