/* --success: which HTTP statuses count as a success.
 *
 * Without it the successes are 1xx, 2xx and 3xx (101 and 304 included), as
 * k6, vegeta and wrk's scripts count them: a server that answers 503 to
 * everything must fail `--slo 'error_rate<1%'`. A response whose status is
 * outside the set is counted as an error of kind application, with its
 * status still in the status codes, and is kept out of the latency
 * histogram and the requests/s of good answers, as k6's expected statuses
 * are. `--success any` takes every status (wrk's and h2load's own
 * counting: a 503 is a response). Responses that carry an application
 * outcome (gRPC, WebSocket: proto.h's app_space) are judged by it, not by
 * this.
 *
 * LIST: comma-separated items, each a status (304), a range (200-299) or
 * a class (2xx), of statuses 100..999; or the word `any`. Pure parsing;
 * tests/url_cli. */
#ifndef SHB_CORE_SUCCESS_H
#define SHB_CORE_SUCCESS_H

#include <stddef.h>
#include <stdint.h>

#define SHB_SUCCESS_MIN 100u
#define SHB_SUCCESS_MAX 999u

/* The set without --success, as reports and messages name it. */
#define SHB_SUCCESS_DEFAULT_TEXT "1xx-3xx"

/* All zero is the default set, so that a config made without the command
 * line (tests, merge) judges as a run without --success does. */
struct shb_success {
	int given; /* 0: the default set, 1xx-3xx */
	int any;   /* --success any: every status */
	uint8_t bit[(SHB_SUCCESS_MAX - SHB_SUCCESS_MIN) / 8 + 1];
	char text[64]; /* LIST as given, cut to fit, for messages */
};

/* [main] Parses LIST into *s. 0, or -1 with one line in err. */
int shb_success_parse(const char *list, struct shb_success *s, char *err,
		      size_t errlen);

/* [any] The set as the user would type it: LIST as given, "any", or
 * SHB_SUCCESS_DEFAULT_TEXT. Static or inside *s. */
const char *shb_success_text(const struct shb_success *s);

/* [worker] Is `status` a success? A status below 100 (the protocol gave
 * none) always is. */
static inline int shb_success_ok(const struct shb_success *s, uint32_t status)
{
	if (s->any || status < SHB_SUCCESS_MIN)
		return 1;
	if (!s->given)
		return status < 400;
	if (status > SHB_SUCCESS_MAX)
		return 0;
	uint32_t i = status - SHB_SUCCESS_MIN;
	return (s->bit[i / 8] >> (i % 8)) & 1;
}

#endif
