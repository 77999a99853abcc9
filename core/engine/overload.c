/* Lines for a run that fell short of what was asked (overload.h). */
#include <inttypes.h>
#include <string.h>

#include "engine/overload.h"

int shb_short_fell(uint64_t total, uint64_t unsent)
{
	/* unsent / (total + unsent) > SHB_SHORT_PCT %, in integers. */
	return unsent && unsent * 100 > (total + unsent) * SHB_SHORT_PCT;
}

/* Why it fell short: with every connection (and stream) busy, more of
 * them would have carried the rate (Little's law: in flight = rate x
 * time per request); with room left, this client could not keep up. */
static void short_cause(const struct shb_short_in *in, double sent_rate,
			char *buf, size_t len)
{
	if (!in->mean_ns || !in->conns) {
		snprintf(buf, len, "no request was answered to tell why; raise -c%s "
			 "or lower -R", in->multiplexed ? " or -p" : "");
		return;
	}
	double ms = (double)in->mean_ns / 1e6;
	double cap = (double)in->conns * in->streams * 1e3 / ms;
	if (sent_rate >= 0.8 * cap) {
		snprintf(buf, len, "every connection was busy (%" PRIu64 " x %u "
			 "in flight at %.1f ms per request carry about %.0f req/s); "
			 "raise -c%s", in->conns, in->streams, ms, cap,
			 in->multiplexed ? " or -p" : "");
		return;
	}
	/* A mix over several origins holds each to its weight's share
	 * (share_gate.h): room in all is no sign the client fell behind. */
	if (in->origins > 1) {
		snprintf(buf, len, "the connections had room in all (about %.0f "
			 "req/s at %.1f ms per request), but each origin gets its "
			 "weight's share: the one slowest for its weight (see the "
			 "targets' latencies) set the rate; raise -c or lower -R",
			 cap, ms);
		return;
	}
	snprintf(buf, len, "the connections had room (about %.0f req/s at "
		 "%.1f ms per request), this client fell behind; raise -t or "
		 "split the run into shards (--shard)", cap, ms);
}

int shb_short_line(const struct shb_short_in *in, char *buf, size_t len)
{
	if (!shb_short_fell(in->total, in->unsent))
		return 0;
	uint64_t due = in->total + in->unsent;
	double secs = in->elapsed_ns ? (double)in->elapsed_ns / 1e9 : 0;
	double sent_rate = secs > 0 ? (double)in->total / secs : 0;
	double due_rate = secs > 0 ? (double)due / secs : 0;
	char cause[256];
	short_cause(in, sent_rate, cause, sizeof(cause));
	snprintf(buf, len, "open loop fell short: %" PRIu64 " of %" PRIu64
		 " due requests sent (%.1f %%, %.1f req/s of the %.1f due), %" PRIu64
		 " never sent: %s", in->total, due,
		 100.0 * (double)in->total / (double)due, sent_rate, due_rate,
		 in->unsent, cause);
	return 1;
}

static const char *const never_what[SHB_NEVER_KINDS] = {
	[SHB_NEVER_TIMEOUT] = "timed out",
	[SHB_NEVER_REFUSED] = "refused",
	[SHB_NEVER_OTHER] = "failed",
	[SHB_NEVER_CONNECTING] = "still connecting at the end",
	[SHB_NEVER_UNTRIED] = "not tried before the end",
};

int shb_never_line(const struct shb_census *c, char *buf, size_t len)
{
	uint64_t never = shb_census_never(c);
	if (!never || !c->asked)
		return 0;
	size_t at = (size_t)snprintf(buf, len, "%" PRIu64 " of %" PRIu64
				     " connections never opened (%.1f %%):",
				     never, c->asked,
				     100.0 * (double)never / (double)c->asked);
	const char *sep = " ";
	for (int k = 0; k < SHB_NEVER_KINDS && at < len; k++) {
		if (!c->never[k])
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%" PRIu64 " %s",
				       sep, c->never[k], never_what[k]);
		if (at < len && c->sample[k][0])
			at += (size_t)snprintf(buf + at, len - at, " (%s)",
					       c->sample[k]);
		sep = ", ";
	}
	if (at < len)
		snprintf(buf + at, len - at, "; the load ran on the others");
	return never * 100 > c->asked * SHB_SHORT_PCT ? 2 : 1;
}

/* "run 2 of 3 (label): " in a comparison, else "". */
static void which_run(const struct shb_results *r, char *buf, size_t len)
{
	const struct shb_run_info *i = r->run;
	buf[0] = '\0';
	if (i && i->compare_count > 1)
		snprintf(buf, len, "run %u of %u (%.160s): ", i->compare_index + 1,
			 i->compare_count, i->label ? i->label : i->url);
}

/* The origins of a mixed run's targets (run info), 0 without. */
static uint32_t count_origins(const struct shb_results *r)
{
	const struct shb_run_info *i = r->run;
	uint32_t most = 0;
	if (!i || !SHB_HAS(i, struct shb_run_info, target_count) || !i->targets)
		return 0;
	for (uint32_t t = 0; t < i->target_count; t++)
		if (i->targets[t].origin + 1 > most)
			most = i->targets[t].origin + 1;
	return most;
}

int shb_overload_report(FILE *f, const struct shb_results *r,
			const struct shb_census *cs,
			const struct shb_short_in *si_in, int load_started)
{
	char which[224], line[1024];
	struct shb_short_in sin = *si_in;
	const struct shb_short_in *si = &sin;
	sin.origins = count_origins(r);
	which_run(r, which, sizeof(which));
	if (!load_started) {
		fprintf(f, "shb: %sstopped during set-up: the load never started "
			"(%" PRIu64 " of %u connections open after %.3f s), "
			"nothing was measured\n", which, r->connections_active,
			r->run ? r->run->connections : 0, (double)r->setup_ns / 1e9);
		return 0;
	}
	int fell = 0, n = shb_never_line(cs, line, sizeof(line));
	if (n) {
		fprintf(f, "shb: %s%s\n", which, line);
		fell |= n == 2;
	}
	if (shb_short_line(si, line, sizeof(line))) {
		fprintf(f, "shb: %s%s\n", which, line);
		fell = 1;
	}
	return fell;
}
