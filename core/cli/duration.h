/* Durations as users type them: "10s", "1m30s", "500ms", "2h", "1.5s",
 * a bare number = seconds. The small parser every option and file format
 * with a duration shares (-z, --timeout, --slo, --stages, ...). */
#ifndef SHB_DURATION_H
#define SHB_DURATION_H

#include <stddef.h>
#include <stdint.h>

/* Returns 0 and *ns, or -1. "1m30" is refused as ambiguous. */
int shb_parse_duration(const char *s, uint64_t *ns);

/* ns as the options take it, in the largest unit that keeps it at least 1:
 * "10ms", "1.5s", "250us", "90s" (3 significant digits), so that messages
 * echo `--timeout 10ms` as 10ms, not 0.01s. Returns buf. */
const char *shb_duration_text(uint64_t ns, char *buf, size_t n);

/* The same with sig significant digits (measured values in messages). */
const char *shb_duration_text_sig(uint64_t ns, int sig, char *buf, size_t n);

#endif
