/* --start-at TIME: the wall-clock instant the load starts at, so that the
 * shards of a run on several machines start together. Connections are set
 * up before; the load waits for the instant (or starts at once, late,
 * when the set-up ends after it).
 *
 * [main] only, while parsing the command line. */
#ifndef SHB_CORE_START_AT_H
#define SHB_CORE_START_AT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* How far from now a --start-at may be. */
#define SHB_START_AT_PAST_NS 1000000000ull          /* 1 s */
#define SHB_START_AT_AHEAD_NS (24ull * 3600000000000ull) /* 24 h */

/* Parses an RFC 3339 date-time with a Z or a numeric offset
 * ("2026-12-01T20:00:00Z", "2026-12-01T21:00:00.25+01:00"; at most 9
 * fraction digits; no leap second) or Unix seconds with an optional
 * fraction ("1796155200.5"), into ns since the Unix epoch. Returns NULL,
 * or what is wrong (a static string). */
const char *shb_start_at_parse(const char *v, uint64_t *unix_ns);

/* --start-at's value `v` (`name` as typed), parsed and checked against
 * the wall clock `now_unix_ns`: no more than 1 s in the past and no more
 * than 24 h ahead. Returns 0 and *unix_ns, or -1 with one line in err. */
int shb_start_at_opt(const char *name, const char *v, uint64_t now_unix_ns,
		     uint64_t *unix_ns, char *err, size_t errlen);

/* [main] The instant `at_unix_ns` on the monotonic clock, from one
 * reading of each clock (`now_unix_ns`, `now_mono_ns`) taken together:
 * the wall clock is read once, so that a step of it during the set-up
 * (NTP) does not move the start. Never 0 (0 means no --start-at). */
uint64_t shb_start_at_mono(uint64_t at_unix_ns, uint64_t now_unix_ns,
			   uint64_t now_mono_ns);

/* [main] After the run: one line on `out` with the start skew, when the
 * first worker started loading (`loaded_ns`, 0 if none did) minus the
 * --start-at instant (`at_ns`, monotonic), and whether the set-up ended
 * late (`load_ns`: when the load was due to start). */
void shb_start_at_report(FILE *out, uint64_t at_ns, uint64_t load_ns,
			 uint64_t loaded_ns);

#endif
