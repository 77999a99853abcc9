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
 * a class (2xx), of statuses 100..999; or the word `any`. Since ABI 1.4 an
 * item may also name an outcome of the protocol's outcome_spaces (`ok`,
 * or `redis.ok` where two spaces share the name): names are read here
 * and resolved once the protocol is known (shb_success_resolve); a reply
 * with an application outcome is then a success when its outcome is
 * named, whatever the protocol's default (app_ok) says, and a reply
 * without one is judged by the statuses listed (the default set when
 * none is). Pure parsing; tests/url_cli. */
#ifndef SHB_CORE_SUCCESS_H
#define SHB_CORE_SUCCESS_H

#include <stddef.h>
#include <stdint.h>

#include <shb/types.h>

#define SHB_SUCCESS_MIN 100u
#define SHB_SUCCESS_MAX 999u

/* The set without --success, as reports and messages name it. */
#define SHB_SUCCESS_DEFAULT_TEXT "1xx-3xx"

/* Outcome names in one --success at most (a protocol names at most 16
 * spaces of 256 codes, but a success set is a handful of them). */
#define SHB_SUCCESS_NAMES_MAX 32u
/* LIST's length when it names outcomes: kept whole to resolve them. */
#define SHB_SUCCESS_TEXT_MAX 256u

/* One named outcome, resolved: (space, code) of shb_req_result. */
struct shb_success_outcome {
	uint32_t space;
	uint32_t reserved0;
	uint64_t code;
};

/* All zero is the default set, so that a config made without the command
 * line (tests, merge) judges as a run without --success does. */
struct shb_success {
	int given;    /* 0: the default set, 1xx-3xx */
	int any;      /* --success any: every status */
	int statuses; /* status items given (bit[] holds them) */
	int names;    /* outcome names given, to resolve (shb_success_resolve) */
	/* Not given, and the protocol takes no HTTP request: its own outcomes
	 * marked ok judge, and text names them (shb_success_resolve). */
	int own;
	uint8_t bit[(SHB_SUCCESS_MAX - SHB_SUCCESS_MIN) / 8 + 1];
	/* LIST as given (cut to fit when it names no outcome), for messages */
	char text[SHB_SUCCESS_TEXT_MAX];
	/* The names, resolved for the run's protocol. */
	struct shb_success_outcome outcome[SHB_SUCCESS_NAMES_MAX];
	size_t outcome_count;
};

/* [main] Parses LIST into *s. 0, or -1 with one line in err. */
int shb_success_parse(const char *list, struct shb_success *s, char *err,
		      size_t errlen);

/* [main] The option `name` (--success) with value v into *s, refused
 * when given twice. 0, or -1 with one line in err. */
int shb_success_opt(const char *name, const char *v, struct shb_success *s,
		    char *err, size_t errlen);

/* [main] Resolves the names in s->text against the protocol's outcome
 * spaces (`spaces`, ending with name NULL; NULL: none) of protocol
 * `proto`: fills s->outcome. `http` 0 (request model NONE) refuses status
 * items too. 0, or -1 with one line in err listing the names there are.
 * Called again for each target of a comparison. */
int shb_success_resolve(struct shb_success *s,
			const struct shb_outcome_space *spaces, int http,
			const char *proto, char *err, size_t errlen);

/* [any] Outcome (space, code) as --success names it, SPACE.NAME from
 * `spaces` (ending with name NULL; NULL: none), or SPACE:CODE in numbers
 * when the table does not name it; cut to outlen. */
void shb_success_outcome_text(const struct shb_outcome_space *spaces,
			      uint32_t space, uint64_t code, char *out,
			      size_t outlen);

/* [worker] Is outcome (space, code) one of the names resolved? */
int shb_success_named(const struct shb_success *s, uint32_t space,
		      uint64_t code);

/* [any] The set as the user would type it: LIST as given, "any", or
 * SHB_SUCCESS_DEFAULT_TEXT. Static or inside *s. */
const char *shb_success_text(const struct shb_success *s);

/* [worker] Is `status` a success? A status below 100 (the protocol gave
 * none) always is. */
static inline int shb_success_ok(const struct shb_success *s, uint32_t status)
{
	if (s->any || status < SHB_SUCCESS_MIN)
		return 1;
	if (!s->given || !s->statuses) /* none, or names only */
		return status < 400;
	if (status > SHB_SUCCESS_MAX)
		return 0;
	uint32_t i = status - SHB_SUCCESS_MIN;
	return (s->bit[i / 8] >> (i % 8)) & 1;
}

#endif
