/* Durations as users type them: "10s", "1m30s", "500ms", "2h", "1.5s",
 * a bare number = seconds. The small parser every option and file format
 * with a duration shares (-z, --timeout, --slo, --stages, ...). */
#ifndef SHB_DURATION_H
#define SHB_DURATION_H

#include <stdint.h>

/* Returns 0 and *ns, or -1. "1m30" is refused as ambiguous. */
int shb_parse_duration(const char *s, uint64_t *ns);

#endif
