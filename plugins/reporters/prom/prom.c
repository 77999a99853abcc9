/* The "prom" reporter: the run's counters and latency histogram pushed to
 * Prometheus with remote write, after every interval (--interval; every
 * second by default) and once more with the run's totals at the end, so
 * that what Prometheus holds last equals the JSON report. docs/reports.md
 * ("prom") says why remote write and not a scrape endpoint.
 *
 * sample() and end() run on the main thread ([main], report.h): they only
 * encode (tens of microseconds) and queue; a thread of this reporter
 * (prom_push.h) does the HTTP, so the workers never wait for Prometheus
 * and neither does the main thread, but at end() for the final push. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prom_opts.h"
#include "prom_push.h"
#include "prom_series.h"
#include "prom_wire.h"
#include "report_common.h"

#define PROM_ID "org.shb.report.prom"
#define PROM_BODY_MAX (8u << 20) /* protobuf of one push; ~20 KiB usual */

struct prom {
	const struct shb_host *host;
	const struct shb_ostream *out;
	struct shb_prom_opts o;
	char run_id[SHB_PROM_ID_MAX + 8];
	char shard[16];
	const struct shb_run_info *run;
	struct shb_prom_push *push; /* from begin() to end() */
	struct shb_prom_state st;
	int64_t last_ts;
};

static void say(struct prom *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* One line on the reporter's output (stdout, or prom:FILE). */
static void say(struct prom *p, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0)
		p->out->write(p->out->ctx, line,
			      (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

static void warn_line(void *ctx, const char *line)
{
	const struct prom *p = ctx;
	p->host->log(SHB_LOG_WARN, PROM_ID, line);
}

static int prom_create(const struct shb_host *host, const struct shb_ostream *out,
		       const char *options, void **rep, char *err, size_t errlen)
{
	/* host: the table init() checked (shb_rpt_init: the histogram
	 * accessors); log and random_secure are in every ABI 1.x table */
	if (!rep || !host || !out || !SHB_HAS(out, struct shb_ostream, write) ||
	    !out->write)
		return SHB_E_INVAL;
	struct prom *p = calloc(1, sizeof(*p));
	if (!p)
		return SHB_E_NOMEM;
	p->host = host;
	p->out = out;
	if (shb_prom_opts_parse(options, &p->o, err, errlen) < 0) {
		free(p);
		return SHB_E_INVAL;
	}
	*rep = p;
	return SHB_OK;
}

/* run=ID, else one the shards of a run share when they were started
 * together (--start-at), else random. */
static void pick_run_id(struct prom *p, const struct shb_run_info *run)
{
	uint8_t r[6] = {0};
	if (p->run_id[0])
		return;
	if (p->o.run_id[0]) {
		snprintf(p->run_id, sizeof(p->run_id), "%s", p->o.run_id);
		return;
	}
	if (SHB_RPT_HAS(run, struct shb_run_info, start_at_unix_ns) &&
	    run->start_at_unix_ns) {
		snprintf(p->run_id, sizeof(p->run_id), "shb-%llu",
			 (unsigned long long)(run->start_at_unix_ns / 1000000));
		return;
	}
	if (p->host->random_secure(r, sizeof(r)) != SHB_OK) {
		uint64_t t = run->start_unix_ns;
		memcpy(r, &t, sizeof(r));
	}
	snprintf(p->run_id, sizeof(p->run_id), "shb-%02x%02x%02x%02x%02x%02x",
		 r[0], r[1], r[2], r[3], r[4], r[5]);
}

static const char *target_of(const struct shb_run_info *run)
{
	if (SHB_RPT_HAS(run, struct shb_run_info, label) && run->label)
		return run->label;
	return shb_rpt_str(run->url);
}

static int prom_begin(void *rep, const struct shb_run_info *run)
{
	struct prom *p = rep;
	if (!run || !SHB_HAS(run, struct shb_run_info, duration_target_ns))
		return SHB_E_INVAL;
	p->run = run;
	memset(&p->st, 0, sizeof(p->st));
	pick_run_id(p, run);
	uint32_t shard = SHB_RPT_HAS(run, struct shb_run_info, shard_count) ?
			 run->shard_index : 0;
	snprintf(p->shard, sizeof(p->shard), "%u", shard);
	p->push = shb_prom_push_start(&p->o.target, p->o.timeout_ns, warn_line, p);
	if (!p->push)
		return SHB_E_NOMEM;
	uint64_t iv = SHB_RPT_HAS(run, struct shb_run_info, interval_ns) ?
		      run->interval_ns : 0;
	char every[48] = "";
	if (iv)
		snprintf(every, sizeof(every), "every %llu ms and ",
			 (unsigned long long)(iv / 1000000));
	say(p, "prom: pushing to %s as run_id=\"%s\" target=\"%s\" protocol=\"%s\" "
	    "shard=\"%s\", %sat the end\n", p->o.target.url, p->run_id,
	    target_of(run), shb_rpt_str(run->proto_name), p->shard, every);
	return SHB_OK;
}

static int64_t next_ts(struct prom *p)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int64_t ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (ms <= p->last_ts) /* one sample per millisecond and series */
		ms = p->last_ts + 1;
	p->last_ts = ms;
	return ms;
}

/* Encodes the state and hands it to the sender. */
static int push(struct prom *p, int final)
{
	struct shb_buf pb = SHB_BUF_INIT(16384, PROM_BODY_MAX);
	struct shb_buf sn = SHB_BUF_INIT(16384, PROM_BODY_MAX + PROM_BODY_MAX / 16);
	struct shb_prom_ids ids = {p->run_id, target_of(p->run),
				   shb_rpt_str(p->run->proto_name), p->shard};
	int rc = shb_prom_encode(&p->st, &ids, next_ts(p), &pb);
	if (rc == SHB_BUF_OK)
		rc = shb_prom_snappy(&sn, pb.p, pb.len);
	shb_buf_free(&pb);
	size_t len = 0;
	uint8_t *body = rc == SHB_BUF_OK ? shb_buf_take(&sn, &len) : NULL;
	shb_buf_free(&sn);
	if (!body)
		return SHB_E_NOMEM;
	shb_prom_push_queue(p->push, body, len, final);
	return SHB_OK;
}

static int prom_sample(void *rep, const struct shb_results *r)
{
	struct prom *p = rep;
	if (!p->push || !r)
		return SHB_E_STATE;
	shb_prom_take(&p->st, p->host->hist, r, 0);
	return push(p, 0);
}

static int prom_end(void *rep, const struct shb_results *r)
{
	struct prom *p = rep;
	struct shb_prom_stats st;
	if (!p->push || !r)
		return SHB_E_STATE;
	shb_prom_take(&p->st, p->host->hist, r, 1);
	int rc = push(p, 1);
	shb_prom_push_finish(p->push, &st);
	p->push = NULL;
	say(p, "prom: %llu pushes taken, %llu failed, %llu dropped; the run's "
	    "totals %s\n", (unsigned long long)st.sent,
	    (unsigned long long)st.failed, (unsigned long long)st.dropped,
	    st.final_sent ? "are in Prometheus" : "did NOT reach Prometheus");
	if (!st.final_sent)
		warn_line(p, "the final push failed: Prometheus lacks the run's "
			  "totals (the JSON report has them)");
	return rc;
}

static void prom_destroy(void *rep)
{
	struct prom *p = rep;
	struct shb_prom_stats st;
	if (!p)
		return;
	if (p->push) /* a run that never ended: stop the sender */
		shb_prom_push_finish(p->push, &st);
	free(p);
}

static const struct shb_report_vtable prom_vt = {
	.struct_size = sizeof(struct shb_report_vtable),
	.create = prom_create,
	.begin = prom_begin,
	.sample = prom_sample,
	.end = prom_end,
	.destroy = prom_destroy,
};

static const struct shb_option_def prom_option_defs[] = {
	{"url", "URL", "the remote-write receiver (default "
		       SHB_PROM_URL_DEFAULT ")"},
	{"run", "ID", "the run_id label (default: shb-START_AT_MS with "
		      "--start-at, so that shards share it, else random)"},
	{"timeout", "DURATION", "one push's connect, send and answer (default 2s)"},
	{NULL, NULL, NULL},
};

const struct shb_report_desc shb_rpt_module_desc = {
	.struct_size = sizeof(struct shb_report_desc),
	.flags = SHB_REPORT_WANTS_INTERVALS,
	.name = "prom",
	.summary = "Prometheus remote write, every interval and at the end; "
		   "options: url=URL, run=ID, timeout=DURATION",
	.vt = &prom_vt,
	.option_defs = prom_option_defs,
};

SHB_PLUGIN_DEFINE_FULL(PROM_ID, SHB_VERSION_STRING, "shb", NULL, "MIT",
		       shb_rpt_init, NULL, NULL, SHB_NO_PROTOCOLS,
		       SHB_REPORTERS(&shb_rpt_module_desc));
