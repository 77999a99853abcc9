/* Load-model options of the open loop: -R (a rate or a ramp) and
 * --stages, and what they make together with -n and -z once the scan is
 * done (schedule.h). -c, -p, -n and -z themselves are plain numbers and
 * durations (cli.c). */
#include "common/quote.h"
#include "cli/cli.h"
#include "cli/cli_load.h"
#include "cli/parse_num.h"
#include "cli/schedule.h"

#include <stdlib.h>
#include <string.h>

#define RATE_LIKE "like 1000 or 0.5 (requests per second, at most 3 " \
		  "decimals, at most 1000000000)"

/* -R N or -R A:B; whether a ramp has its -z is known only at the end. */
int shb_cli_rate_opt(struct cli *c, const char *name, const char *v)
{
	const char *colon = strchr(v, ':');
	const char *end = v + strlen(v);

	snprintf(c->rate_name, sizeof(c->rate_name), "%s", name);
	snprintf(c->rate_text, sizeof(c->rate_text), "%s", v);
	c->rate_ramp = colon != NULL;
	if (shb_parse_rate(v, colon ? colon : end, &c->rate_from) < 0 ||
	    (colon && shb_parse_rate(colon + 1, end, &c->rate_to) < 0))
		return fail(c, "%s: expected a rate %s, or a ramp FROM:TO like "
			       "1000:5000, got \"%s\"",
			    name, RATE_LIKE, shb_quote(v).s);
	if (!colon)
		c->rate_to = c->rate_from;
	if (!c->rate_from && !c->rate_to)
		return fail(c, "%s %s: the rate must be greater than 0", name,
			    shb_quote(v).s);
	return 0;
}

/* One "DURATION:RATE" of --stages, item n (1-based) of `len` bytes. */
static int stage_item(struct cli *c, const char *name, unsigned n,
		      const char *item, size_t len, struct shb_stage *st)
{
	char buf[96];
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, item, len);
	buf[len] = '\0';
	char *colon = strrchr(buf, ':');
	if (!colon)
		return fail(c, "%s: stage %u \"%s\": expected DURATION:RATE "
			       "like 30s:5000", name, n, shb_quote(buf).s);
	*colon = '\0';
	if (shb_parse_duration(buf, &st->duration_ns) < 0 || !st->duration_ns)
		return fail(c, "%s: stage %u: expected a duration greater than 0 "
			       "like 10s, 1m30s, 500ms or 1.5s before ':', got "
			       "\"%s\"", name, n, shb_quote(buf).s);
	if (shb_parse_rate(colon + 1, colon + 1 + strlen(colon + 1),
			   &st->rate_to_milli) < 0)
		return fail(c, "%s: stage %u: expected a rate %s after ':', got "
			       "\"%s\"", name, n, RATE_LIKE, shb_quote(colon + 1).s);
	return 0;
}

/* --stages D:R,D:R,...: each stage goes linearly from the rate the one
 * before ended at (0 for the first) to its own, over its duration. */
int shb_cli_stages_opt(struct cli *c, const char *name, const char *v)
{
	struct shb_config *cfg = c->cfg;
	struct shb_stage st[SHB_SCHED_MAX_STAGES];
	unsigned n = 0;
	uint64_t total = 0, prev = 0, any = 0;

	for (const char *p = v;; p++) {
		size_t len = strcspn(p, ",");
		if (n == SHB_SCHED_MAX_STAGES)
			return fail(c, "%s: at most %d stages", name,
				    SHB_SCHED_MAX_STAGES);
		if (stage_item(c, name, n + 1, p, len, &st[n]) < 0)
			return -1;
		st[n].rate_from_milli = prev;
		prev = st[n].rate_to_milli;
		any |= st[n].rate_from_milli | st[n].rate_to_milli;
		if (total > UINT64_MAX / 2 - st[n].duration_ns)
			return fail(c, "%s: the stages add up to more than "
				       "shb can time", name);
		total += st[n].duration_ns;
		n++;
		p += len;
		if (!*p)
			break;
	}
	if (!any)
		return fail(c, "%s %s: every rate is 0, nothing would be sent",
			    name, shb_quote(v).s);
	struct shb_stage *a = malloc(n * sizeof(*a));
	if (!a)
		return fail(c, "out of memory");
	memcpy(a, st, n * sizeof(*a));
	free(cfg->stages);
	cfg->stages = a;
	cfg->stage_count = n;
	return 0;
}

/* After the scan: -R and --stages against -n and -z, and the schedule
 * they make. */
int shb_cli_finish_open_loop(struct cli *c)
{
	struct shb_config *cfg = c->cfg;

	if (c->rate_name[0] && cfg->stages)
		return fail(c, "%s and --stages cannot be combined: give a rate "
			       "or a ramp with -R, or stages", c->rate_name);
	if (cfg->stages) {
		if (c->duration_given || c->requests_given)
			return fail(c, "--stages and %s cannot be combined: the "
				       "run lasts as long as the stages",
				    c->duration_given ? "-z/--duration" :
							"-n/--requests");
		for (size_t i = 0; i < cfg->stage_count; i++)
			cfg->duration_ns += cfg->stages[i].duration_ns;
		c->duration_given = 1;
		return 0;
	}
	if (!c->rate_name[0])
		return 0;
	if (!c->rate_ramp || c->rate_from == c->rate_to) {
		cfg->rate_milli = c->rate_from;
		return 0;
	}
	if (!c->duration_given)
		return fail(c, "%s %s: a ramp runs over the run's duration: "
			       "give -z/--duration", c->rate_name, c->rate_text);
	cfg->stages = malloc(sizeof(*cfg->stages));
	if (!cfg->stages)
		return fail(c, "out of memory");
	cfg->stages[0] = (struct shb_stage){.duration_ns = cfg->duration_ns,
		.rate_from_milli = c->rate_from, .rate_to_milli = c->rate_to};
	cfg->stage_count = 1;
	return 0;
}
