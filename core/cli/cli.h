/* The scanner's state, shared by the files that parse the options of one
 * concern (cli_*.c) and cli.c, and the few helpers they all use. Internal to
 * core/cli: the rest of shb calls shb_cli_parse (config.h). */
#ifndef SHB_CORE_CLI_H
#define SHB_CORE_CLI_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/config.h"

/* What the scan remembers beyond the config itself. */
struct cli {
	struct shb_config *cfg;
	char *err;
	size_t errlen;
	const char *url;
	int json;
	int requests_given;
	int duration_given;
	int max_redirs_given;
	/* -R as typed: the option's name, a constant rate or a ramp */
	char rate_name[8];
	char rate_text[48];
	uint64_t rate_from, rate_to;
	int rate_ramp;
};

/* The helpers every option file uses, static so that their short names
 * stay inside each file. fail writes one line to c->err and returns -1,
 * for `return fail(c, ...)`. */
static inline int fail(struct cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline int fail(struct cli *c, const char *fmt, ...)
{
	va_list ap;

	if (c->err && c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static inline char *dup_or_fail(struct cli *c, const char *s)
{
	char *d = strdup(s);
	if (!d)
		fail(c, "out of memory");
	return d;
}

/* Replaces *slot with a copy of s. */
static inline int set_string(struct cli *c, char **slot, const char *s)
{
	char *d = dup_or_fail(c, s);
	if (!d)
		return -1;
	free(*slot);
	*slot = d;
	return 0;
}

#endif
