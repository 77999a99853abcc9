/* shb merge and the ABI 1.4 members of a JSON report (docs/reports.md):
 * the protocol's outcome names ("outcomeSpaces"), read back so that the
 * app outcomes' space names map to their numbers and the merged report
 * keeps them; the run facts beside the URL; answered requests and the
 * error replies' latency histogram. [main] only. */
#ifndef SHB_CORE_MERGE_V14_H
#define SHB_CORE_MERGE_V14_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <shb/shb.h>

#include "common/outcome_names.h"
#include "results/stats.h"

/* Bounds of what a report may give (a protocol's own bounds, checked by
 * the loader, are the same for the names). */
#define SHB_MERGE14_SPACES 16u
#define SHB_MERGE14_CODES 256u
#define SHB_MERGE14_LIST 64u

/* What the first report says, with its strings borrowed from its JSON
 * document (which the merge keeps). */
struct shb_merge14 {
	struct shb_outcome_space spaces[SHB_MERGE14_SPACES];
	struct shb_outcome_code *codes; /* every space's, each ended by name NULL; owned */
	struct shb_outcome_table table; /* over spaces */
	uint32_t request_model;
	const char *success, *proxy, *source, *unix_socket;
	const char *connect_to[SHB_MERGE14_LIST], *resolve[SHB_MERGE14_LIST];
	size_t connect_to_count, resolve_count;
	/* Every report so far gave requests.answered. */
	int answered_all;
};

/* The first report's 1.4 members into t (a zeroed struct). 0, or -1 with
 * one line in err naming the file and the field: an outcomeSpaces that
 * is not the json reporter's (a name not [a-z0-9_]{1,31}, a space below
 * the plugins' range or given twice, a code twice, past the bounds), a
 * list past SHB_MERGE14_LIST. */
int shb_merge14_take(struct shb_merge14 *t, const char *name, const json_t *doc,
		     char *err, size_t errlen);
void shb_merge14_fini(struct shb_merge14 *t);

/* One report's answered requests and error replies into s (after its
 * counters): error_replies from requests.answered, the histogram from
 * latencyErrorReplyHistogram. Clears t->answered_all when the report has
 * no requests.answered. 0, or -1 with one line in err. */
int shb_merge14_counters(struct shb_merge14 *t, struct shb_stats *s,
			 const char *name, const json_t *doc, char *err,
			 size_t errlen);

/* The run facts of the merged run (info->struct_size covers them). */
void shb_merge14_info(const struct shb_merge14 *t, struct shb_run_info *info);

#endif
