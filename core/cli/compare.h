/* A comparison: several positional targets, each `[label=]URL`, run one
 * after another with the same settings and reported side by side.
 *
 * Each run is a whole run of its own (set-up, warm-up, load, report) and
 * none overlaps another, so that the targets never compete for client CPU.
 * Reporters of ABI 1.3 and later keep one instance across the runs
 * (create, then begin/sample/end per run with shb_run_info.compare_index
 * and compare_count, then destroy); older ones get a fresh instance per
 * run, writing one report after another to the same sink. */
#ifndef SHB_CORE_COMPARE_H
#define SHB_CORE_COMPARE_H

#include <stddef.h>

#include "cli/config.h"

/* The longest label (label=URL) accepted. */
#define SHB_LABEL_MAX 64

/* Splits one positional argument into its label and URL: "bun=https://a/"
 * is label "bun", URL "https://a/". Only an '=' that comes before any ':',
 * '/', '?', '#' or '[' starts a label, so a URL with '=' in its query stays
 * whole. A label is 1..SHB_LABEL_MAX of A-Z a-z 0-9 . _ - (it names a
 * column and a CSV field). Returns 0 with *label (NULL when there is none;
 * points into arg) and *label_len and *url set, or -1 with one line in
 * err. */
int shb_target_split(const char *arg, const char **label, size_t *label_len,
		     const char **url, char *err, size_t errlen);

/* Target `k` of cfg->targets as a run uses it: *text (malloc'd) and *url
 * receive its URL, parsed and, for http and https, settled as
 * shb_cli_parse does. Returns 0, or -1 with one line in err; *text and
 * *url are then empty (NULL and zeroed). */
int shb_compare_select(const struct shb_config *cfg, size_t k, char **text,
		       struct shb_url *url, char *err, size_t errlen);

#endif
