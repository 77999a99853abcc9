/* --priority: the Priority header of RFC 9218 (an RFC 8941 Dictionary
 * with u, the urgency 0..7, and i, incremental, a boolean). */
#ifndef SHB_CORE_PRIORITY_H
#define SHB_CORE_PRIORITY_H

#include <stddef.h>

/* Checks `s`: members separated by commas with optional blanks, each
 * "u=N" (N 0..7) or "i" / "i=?1" / "i=?0", each key at most once.
 * Returns 0, or -1 with one line in err that starts with `name "VALUE": `. */
int shb_priority_check(const char *name, const char *s, char *err,
		       size_t errlen);

#endif
