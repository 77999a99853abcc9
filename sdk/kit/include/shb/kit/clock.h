/* shb plugin test kit: the controllable clock.
 *
 * Every [conn] call the kit makes gets `now` from this clock, and the fake
 * host's now() returns it: time moves only when the test moves it, so a
 * test asserts exact timestamps (ts_first_byte, deadlines) and runs a
 * module's timers without sleeping.
 *
 * Thread: the clock belongs to the test thread; it is plain data. */
#ifndef SHB_KIT_CLOCK_H
#define SHB_KIT_CLOCK_H

#include <shb/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shb_kit_clock {
	shb_tstamp now; /* nanoseconds; starts at 1 (0 looks unset) */
};

/* Sets the time; it may go backwards (a test's choice, not the core's). */
void shb_kit_clock_set(struct shb_kit_clock *c, shb_tstamp now);
/* Moves the time forward by `ns`. */
void shb_kit_clock_advance(struct shb_kit_clock *c, shb_tstamp ns);
shb_tstamp shb_kit_clock_now(const struct shb_kit_clock *c);

#ifdef __cplusplus
}
#endif
#endif
