/* A run that did not deliver what was asked says so: connections of -c
 * that never opened (census.h), an open loop that sent fewer requests
 * than its schedule had due, a load that never started. One line each on
 * stderr after the reports, and exit status 1 when the run fell short by
 * more than SHB_SHORT_PCT (README: exit status). The lines are built by
 * pure functions, tested without a run. */
#ifndef SHB_CORE_OVERLOAD_H
#define SHB_CORE_OVERLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <shb/results.h>

#include "engine/census.h"

/* More than this percentage of the asked connections never opened, or of
 * an open loop's due requests never sent: the run fell short (exit 1).
 * The reporters mark the open loop's by the same rule (docs/reports.md). */
#define SHB_SHORT_PCT 5

/* What an open loop's shortfall line is made of. */
struct shb_short_in {
	uint64_t total;      /* requests that ended (ok + errors) */
	uint64_t unsent;     /* due before the end, never sent */
	uint64_t elapsed_ns; /* the load's time */
	uint64_t mean_ns;    /* mean send-to-done time of the ok ones, 0: none */
	uint64_t conns;      /* connections the load had (-c, less never opened) */
	uint32_t streams;    /* requests in flight per connection at most */
	int multiplexed;     /* the protocol takes -p */
	uint32_t origins;    /* a mixed run's origins (shb_overload_report
			      * counts them), 0 or 1 without */
};

/* 1 when unsent is more than SHB_SHORT_PCT of total + unsent. */
int shb_short_fell(uint64_t total, uint64_t unsent);

/* Writes the shortfall line (no "shb: ", no newline) when the open loop
 * fell short and returns 1; else 0 and nothing. */
int shb_short_line(const struct shb_short_in *in, char *buf, size_t len);

/* Writes the line on connections that never opened and returns 2 when
 * more than SHB_SHORT_PCT of those asked did, 1 when some did, 0 (and
 * nothing) when every one opened. */
int shb_never_line(const struct shb_census *c, char *buf, size_t len);

/* [main] The lines of a finished run on f, naming the run in a
 * comparison (r->run); load_started 0 when it was stopped before its
 * load started. Returns 1 when the run fell short (exit 1). */
int shb_overload_report(FILE *f, const struct shb_results *r,
			const struct shb_census *cs,
			const struct shb_short_in *si, int load_started);

#endif
