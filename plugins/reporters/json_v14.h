/* The json reporter's ABI 1.4 members (docs/reports.md, "ABI 1.4"): the
 * run facts beside the URL, the protocol's outcome names, answered
 * requests and the error replies' latency, per-target counters that are
 * not measured. [main]. */
#ifndef SHB_REPORT_JSON_V14_H
#define SHB_REPORT_JSON_V14_H

#include "json_util.h"

/* requestModel (only "none"), success, proxy, connectTo, resolve,
 * source, unixSocket and outcomeSpaces, each only when given. */
void json14_run(struct jb *b, json_t *doc, const struct shb_run_info *run);

/* appOutcomes: "space" the space's name, "name" the code's when the run
 * names it. */
json_t *json14_app_outcomes(struct jb *b, const struct shb_run_info *run,
			    const struct shb_results *r);

/* latencyErrorReplySeconds (count, min, mean, stddev, max, percentiles;
 * null without error replies), when the core gives answered requests. */
void json14_error_reply_latency(struct jb *b, json_t *doc,
				const struct shb_host *host,
				const struct shb_run_info *run,
				const struct shb_results *r);

/* A target's bytesReceived, bytesSent (and their rates) and
 * connectionsOpened as null where `measured` says they are not. */
void json14_unmeasured(struct jb *b, json_t *doc, uint32_t measured);

#endif
