/* The reporters' reading of ABI 1.4 (report_v14.h). */
#include "report_v14.h"

#include <stdio.h>

#define HAS(p, T, m) ((p) && SHB_HAS(p, T, m))

int shb_rpt_http(const struct shb_run_info *run)
{
	return !HAS(run, struct shb_run_info, request_model) ||
	       run->request_model != SHB_REQMODEL_NONE;
}

void shb_rpt_outcomes_of(const struct shb_run_info *run,
			 struct shb_outcome_table *t)
{
	t->spaces = NULL;
	t->count = 0;
	if (HAS(run, struct shb_run_info, outcome_space_count) &&
	    run->outcome_spaces) {
		t->spaces = run->outcome_spaces;
		t->count = run->outcome_space_count;
	}
}

void shb_rpt_facts_of(const struct shb_run_info *run, struct shb_rpt_facts *f)
{
	*f = (struct shb_rpt_facts){0};
	if (!HAS(run, struct shb_run_info, unix_socket))
		return;
	f->success = run->success;
	f->proxy = run->proxy;
	f->source = run->source;
	f->unix_socket = run->unix_socket;
	if (run->connect_to) {
		f->connect_to = run->connect_to;
		f->connect_to_count = run->connect_to_count;
	}
	if (run->resolve) {
		f->resolve = run->resolve;
		f->resolve_count = run->resolve_count;
	}
}

int shb_rpt_answered_known(const struct shb_results *r)
{
	return HAS(r, struct shb_results, latency_error_reply) &&
	       r->latency_error_reply;
}

uint64_t shb_rpt_error_replies(const struct shb_results *r)
{
	if (!shb_rpt_answered_known(r) || r->requests_answered < r->requests_ok)
		return 0;
	return r->requests_answered - r->requests_ok;
}

uint32_t shb_rpt_measured(const struct shb_results *r,
			  const struct shb_results *t)
{
	const uint32_t all = SHB_MEASURED_BYTES | SHB_MEASURED_CONNECTIONS;
	/* A run's result has every bit: a core that left it 0 did not fill
	 * the 1.4 results, and its targets' 0 says nothing either. */
	if (!HAS(r, struct shb_results, measured) || !r->measured ||
	    !HAS(t, struct shb_results, measured))
		return all;
	return t->measured;
}

const char *shb_rpt_app_label(char *buf, size_t len,
			      const struct shb_outcome_table *t,
			      const struct shb_app_count *a)
{
	char sp[32];
	const char *name = shb_outcome_code_name(t, a->space, a->code);
	const char *space = shb_outcome_space_name(sp, sizeof(sp), t, a->space);
	if (name)
		snprintf(buf, len, "%s %s", space, name);
	else
		snprintf(buf, len, "%s %llu", space, (unsigned long long)a->code);
	return buf;
}
