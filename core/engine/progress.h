/* The main thread while the workers run: the live progress line on
 * stderr (on a terminal) and the --interval samples. */
#ifndef SHB_CORE_PROGRESS_H
#define SHB_CORE_PROGRESS_H

#include <stdint.h>

#include "engine/run.h"
#include "engine/tseries.h"

/* How often the main thread looks whether the workers are done. */
#define PROGRESS_POLL_NS 20000000ull

/* [main] Until every one of the n workers is done: with tty, a live line
 * on stderr refreshed twice a second from the counters the workers
 * publish (during set-up: connections open, connecting and failed of
 * -c), cleared before the report prints; with --interval (ts), each
 * interval taken from the workers as it ends. Sleeps in between: returns
 * how many times it woke to look at the counters (a few per second; what
 * tests/core/test_progress.c bounds). */
uint64_t shb_progress_watch(const struct shb_run *run,
			    const struct shb_worker_args *wa, uint32_t n,
			    struct shb_tseries *ts, int tty);

#endif
