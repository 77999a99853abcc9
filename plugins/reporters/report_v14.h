/* What the reporters read of ABI 1.4 (docs/abi-1.4.md): the request model,
 * the protocol's outcome names, the run facts beside the URL, answered
 * requests and error replies, and what a per-target result measures.
 *
 * Every member is read after SHB_HAS() and, since a core may leave them
 * unset, NULL and 0 read as "not given": the report then says what a 1.3
 * core's report says. [main], like every reporter call. */
#ifndef SHB_REPORT_V14_H
#define SHB_REPORT_V14_H

#include <stddef.h>
#include <stdint.h>
#include <shb/shb.h>

#include "common/outcome_names.h"

/* 1 unless the run says its protocol has no HTTP requests
 * (SHB_REQMODEL_NONE): no method, status codes or header/body split. */
int shb_rpt_http(const struct shb_run_info *run);

/* The run's outcome names; an empty table when it has none. */
void shb_rpt_outcomes_of(const struct shb_run_info *run,
			 struct shb_outcome_table *t);

/* What shaped the run beside the URL; each NULL (or count 0) when not
 * given. */
struct shb_rpt_facts {
	const char *success, *proxy, *source, *unix_socket;
	const char *const *connect_to;
	size_t connect_to_count;
	const char *const *resolve;
	size_t resolve_count;
};

void shb_rpt_facts_of(const struct shb_run_info *run, struct shb_rpt_facts *f);

/* Answered requests: known when the core gives the 1.4 results (it always
 * sets latency_error_reply then). */
int shb_rpt_answered_known(const struct shb_results *r);
/* Error replies: answered minus ok (0 when unknown). */
uint64_t shb_rpt_error_replies(const struct shb_results *r);

/* Which counters target result `t` of run result `r` measures
 * (SHB_MEASURED_* bits): all of them unless a 1.4 core says otherwise. */
uint32_t shb_rpt_measured(const struct shb_results *r,
			  const struct shb_results *t);

/* An application outcome as the text and html reports name it: "redis
 * nil", "redis 7" (a code the table does not name), "grpc 14". */
const char *shb_rpt_app_label(char *buf, size_t len,
			      const struct shb_outcome_table *t,
			      const struct shb_app_count *a);

#endif
