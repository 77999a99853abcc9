/* Connections that never opened: every slot of -c is either opened at
 * least once during the run (its transport, TLS and any protocol
 * handshake done) or counted here by the reason it never was, so that a
 * server that accepts fewer connections than asked is reported as such
 * (overload.h prints the line), never hidden behind a run that held
 * fewer connections than it says. */
#ifndef SHB_CORE_CENSUS_H
#define SHB_CORE_CENSUS_H

#include <stdint.h>

#include "results/stats.h"

/* Why a slot never opened: the last failure of its connections, or,
 * without one, that it was still connecting when the load ended or was
 * never tried (set-up ended before it, and the load did not reach it). */
enum shb_never_kind {
	SHB_NEVER_TIMEOUT = 0,    /* connect or handshake timed out */
	SHB_NEVER_REFUSED = 1,    /* connection refused */
	SHB_NEVER_OTHER = 2,      /* any other failure (its sample says) */
	SHB_NEVER_CONNECTING = 3, /* first connect still under way at the end */
	SHB_NEVER_UNTRIED = 4,    /* never tried (duration and rate runs) */
	SHB_NEVER_KINDS = 5,
};

/* One worker's census, taken when it stops; the main thread sums them
 * after joining (shb_census_add). */
struct shb_census {
	uint64_t asked;                   /* its slots */
	uint64_t never[SHB_NEVER_KINDS];  /* slots that never opened, by kind */
	/* The first message of each failing kind (timeout, refused, other). */
	char sample[SHB_NEVER_KINDS][SHB_SAMPLE_LEN];
};

/* [any] Which kind a failure message is: our own connect and handshake
 * messages say "timed out" or strerror(ECONNREFUSED). */
enum shb_never_kind shb_census_kind(const char *msg);

/* [main] Adds b into a (samples: a's first, else b's). */
void shb_census_add(struct shb_census *a, const struct shb_census *b);

/* [main] Slots that never opened in all. */
uint64_t shb_census_never(const struct shb_census *c);

#endif
