/* The 1.4 members of a protocol descriptor: its request model and the
 * names of its outcomes (shb_proto_desc.request_model, .outcome_spaces),
 * checked like every other member before anything of the plugin runs.
 * Main thread only, like the loader. */
#ifndef SHB_CORE_LOADER_OUTCOMES_H
#define SHB_CORE_LOADER_OUTCOMES_H

#include <stddef.h>

#include <shb/shb.h>

/* Bounds of the tables (docs/ARCHITECTURE.md, "Bounds, backpressure and
 * retries"): a plugin names a handful of spaces with tens of codes. */
#define SHB_LOADER_MAX_SPACES 16u
#define SHB_LOADER_MAX_CODES 256u
#define SHB_OUTCOME_NAME_MAX 31u

/* 0, or -1 with one line in why[n]: an unknown request model; a space
 * below SHB_APPSPACE_PRIVATE, listed twice or named twice; a name that is
 * not [a-z0-9_]{1,31}; a code or code name twice in one space; more than
 * the bounds. Reads only what d->struct_size covers. */
int shb_loader_desc14_check(const struct shb_proto_desc *d, char *why,
			    size_t n);

/* The number of spaces in a checked table (0 for NULL). */
size_t shb_loader_space_count(const struct shb_outcome_space *s);

#endif
