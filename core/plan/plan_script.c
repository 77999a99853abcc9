/* The script engine of a run with -s (plan_script.h). */
#include <stdio.h>
#include <string.h>

#include "common/quote.h"
#include "plan/plan.h"
#include "plan/plan_script.h"

int shb_plan_script(struct shb_plan *plan, struct shb_loader *l, char *err,
		    size_t errlen)
{
	const struct shb_config *cfg = plan->cfg;
	const char *lang;
	char e[512];

	if (!cfg->script)
		return 0;
	lang = shb_script_lang(cfg->script);
	if (!lang) {
		snprintf(err, errlen, "-s %s: the file name has no extension "
			 "naming the script's language (FILE.lua)",
			 shb_quote(cfg->script).s);
		return -1;
	}
	if (shb_loader_script(l, lang, &plan->script, e, sizeof(e)) < 0) {
		snprintf(err, errlen, "-s %s: %s", shb_quote(cfg->script).s, e);
		return -1;
	}
	plan->has_script = 1;
	/* A script's requests are whole requests (ABI 1.4 issue_req). */
	for (size_t k = 0; k < plan->nruns; k++)
		if (!plan->runs[k].proto.vt.issue_req) {
			snprintf(err, errlen, "-s: protocol \"%s\" cannot send a "
				 "script's requests (it has no issue_req, ABI 1.4)",
				 plan->runs[k].proto.desc->name);
			return -1;
		}
	/* wrk needs no flag: its string is the pipeline. -p given keeps
	 * strings waiting for room in it; --disable-keepalive sends one
	 * request per connection, so a string's go one after another. */
	if (cfg->parallel_given || cfg->disable_keepalive)
		return 0;
	for (size_t k = 0; k < plan->nruns; k++) {
		struct shb_plan_run *r = &plan->runs[k];
		if (!(r->proto.desc->flags & SHB_PROTO_MULTIPLEXED))
			continue;
		r->streams = SHB_SCRIPT_PIPE_MAX;
		r->strings = 1;
	}
	return 0;
}
