/* --dry-run: the plan as lines "what: value", in the order a run takes
 * them (plan.h). Every number is the plan's own, not recomputed. */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "plan/plan.h"

/* Per-worker values as runs: "3 (workers 0-1), 2 (worker 2)". */
static void per_worker(FILE *out, const struct shb_plan *plan, int conns,
		       uint32_t origin)
{
	uint32_t i = 0, n = plan->threads;
	while (i < n) {
		const struct shb_plan_worker *w = &plan->workers[i];
		uint64_t v = origin != UINT32_MAX ? w->oconns[origin] :
			     conns ? w->conns : w->budget;
		uint32_t j = i + 1;
		while (j < n) {
			const struct shb_plan_worker *x = &plan->workers[j];
			uint64_t u = origin != UINT32_MAX ? x->oconns[origin] :
				     conns ? x->conns : x->budget;
			if (u != v)
				break;
			j++;
		}
		fprintf(out, "%s%" PRIu64 " (worker%s %" PRIu32, i ? ", " : "",
			v, j - i > 1 ? "s" : "", i);
		if (j - i > 1)
			fprintf(out, "-%" PRIu32, j - 1);
		fputc(')', out);
		i = j;
	}
}

/* Requests per second from milli-requests: "100", "33.333". */
static void rate_text(FILE *out, uint64_t milli)
{
	fprintf(out, "%" PRIu64, milli / 1000);
	if (milli % 1000)
		fprintf(out, ".%03" PRIu64, milli % 1000);
	fputs("/s", out);
}

static void print_runs(const struct shb_plan *plan, FILE *out)
{
	for (size_t k = 0; k < plan->nruns; k++) {
		const struct shb_plan_run *r = &plan->runs[k];
		const struct shb_proto_desc *d = r->proto.desc;
		if (plan->nruns > 1)
			fprintf(out, "run: %zu of %zu%s%s\n", k + 1, plan->nruns,
				r->label ? ", label " : "", r->label ? r->label : "");
		fprintf(out, "url: %s\n", r->url_text);
		fprintf(out, "protocol: %s (%s)\n", d->name,
			r->proto.file ? r->proto.file->path : "built in");
		fprintf(out, "streams per connection: %" PRIu32 "%s\n", r->streams,
			r->strings ? " (a script's string at a time)" : "");
	}
	/* -s: the script and the engine that runs it (not run by a dry run). */
	if (plan->has_script)
		fprintf(out, "script: %s, engine %s (%s)\n", plan->cfg->script,
			plan->script.desc->name, plan->script.file ?
			plan->script.file->path : "built in");
}

/* A mixed run: each target's weight, origin and requests, and each
 * origin's connections. */
static void print_mix(const struct shb_plan *plan, FILE *out)
{
	const struct shb_config *cfg = plan->cfg;
	const struct shb_plan_mix *m = &plan->mix;
	for (uint32_t t = 0; t < m->ntargets; t++) {
		fprintf(out, "target %" PRIu32 ": %s, weight %" PRIu32 ", origin %"
			PRIu32, t + 1, cfg->targets[t].url_text,
			cfg->targets[t].weight, m->origin_of[t]);
		if (!cfg->duration_ns)
			fprintf(out, ", requests %" PRIu64, m->count[t]);
		fputc('\n', out);
	}
	for (uint32_t k = 0; k < m->norigins; k++) {
		fprintf(out, "origin %" PRIu32 ": connections %" PRIu32
			", per worker ", k, m->oconns[k]);
		per_worker(out, plan, 1, k);
		fputc('\n', out);
	}
}

static void print_load(const struct shb_plan *plan, FILE *out)
{
	const struct shb_config *cfg = plan->cfg;
	char b[64];
	fprintf(out, "connections: %" PRIu32 ", per worker ", plan->connections);
	per_worker(out, plan, 1, UINT32_MAX);
	fputc('\n', out);
	if (cfg->duration_ns) {
		fprintf(out, "duration: %s\n", shb_duration_text(cfg->duration_ns,
								 b, sizeof(b)));
	} else {
		fprintf(out, "requests: %" PRIu64 ", per worker ", plan->requests);
		per_worker(out, plan, 0, UINT32_MAX);
		fputc('\n', out);
	}
	if (cfg->rate_milli) {
		fputs("rate: ", out);
		rate_text(out, cfg->rate_milli);
		fputs(", per worker ", out);
		rate_text(out, cfg->rate_milli / plan->threads);
		fprintf(out, " (worker i sends requests i, i + %" PRIu32
			", ... of the schedule)\n", plan->threads);
	}
	for (size_t s = 0; s < cfg->stage_count; s++) {
		const struct shb_stage *st = &cfg->stages[s];
		fprintf(out, "stage %zu: ", s + 1);
		rate_text(out, st->rate_from_milli);
		fputs(" to ", out);
		rate_text(out, st->rate_to_milli);
		fprintf(out, " over %s, shared by %" PRIu32 " workers in turn\n",
			shb_duration_text(st->duration_ns, b, sizeof(b)),
			plan->threads);
	}
	if (!cfg->rate_milli && !cfg->stage_count)
		fputs("rate: closed loop (as fast as answers come)\n", out);
}

static void print_when(const struct shb_plan *plan, FILE *out)
{
	const struct shb_config *cfg = plan->cfg;
	char b[64];
	if (plan->shard_count > 1)
		fprintf(out, "shard: %" PRIu32 " of %" PRIu32 " (0-based), "
			"its part of -c, -n and the rates\n", plan->shard_index,
			plan->shard_count);
	else
		fputs("shard: none\n", out);
	if (plan->start_at_unix_ns) {
		time_t s = (time_t)(plan->start_at_unix_ns / 1000000000u);
		struct tm tm;
		gmtime_r(&s, &tm);
		strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(out, "start: %s.%09" PRIu64 "Z\n", b,
			plan->start_at_unix_ns % 1000000000u);
	} else {
		fputs("start: once every connection is set up\n", out);
	}
	fprintf(out, "warm-up: %s\n", cfg->warmup_ns ?
		shb_duration_text(cfg->warmup_ns, b, sizeof(b)) : "none");
	fprintf(out, "interval: %s\n", plan->interval_ns ?
		shb_duration_text(plan->interval_ns, b, sizeof(b)) : "none");
}

void shb_plan_print(const struct shb_plan *plan, FILE *out)
{
	print_runs(plan, out);
	fprintf(out, "threads: %" PRIu32 "\n", plan->threads);
	if (plan->mixed)
		print_mix(plan, out);
	print_load(plan, out);
	print_when(plan, out);
	fputs("reporters:", out);
	for (size_t i = 0; i < plan->nreports; i++)
		fprintf(out, "%s %s to %s", i ? "," : "", plan->reports[i].name,
			plan->reports[i].path ? plan->reports[i].path : "stdout");
	fputc('\n', out);
	fprintf(out, "sockets: %s\n", plan->ring_only_fds ?
		"in the workers' io_uring file tables only (-c is over the "
		"open-files limit)" : "file descriptors");
}
