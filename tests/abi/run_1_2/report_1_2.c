/* A reporter as an outsider wrote it for ABI 1.2: compiled against the
 * frozen 1.2 headers (tests/abi/v1.2) only, defined with the 1.2
 * SHB_PLUGIN_DEFINE_FULL, declaring an option (--report-opt v12.tag=...)
 * and asking for interval samples. It prints 1.2 fields in a fixed format,
 * so that run_1_2.sh can check that a newer core's larger structs reach a
 * 1.2 reader intact and that the 1.2 members it reads are filled:
 *
 *   tag abc                 (the option's value)
 *   begin 1                 (begin calls on this instance)
 *   results_struct_size N   (the core's size, larger than 1.2's 304)
 *   run_info_sizes_match 1
 *   requests_total 300
 *   requests_ok 300
 *   samples_nonzero 1       (sample() came, each an INTERVAL delta)
 *   sample_requests_le_total 1
 *   setup_ns_nonzero 1
 *   uncorrected_count 300   (closed loop: the same histogram's count)
 *   first_byte_count 300
 *   connect_count 3
 *   rx_header_bytes_nonzero 1
 *   percentile_count 2      (--percentiles 50,99)
 *   target_count 1
 *   shard 0/1
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <shb/shb.h>
#include <shb/define.h>

#if SHB_ABI_MINOR != 2
#error "this fixture must be built against the 1.2 headers (tests/abi/v1.2)"
#endif

static const struct shb_host *the_host;

struct rep {
	const struct shb_ostream *out;
	const struct shb_run_info *info;
	char tag[32];
	unsigned begins;
	unsigned long long samples, sample_requests, bad_kind;
};

static int create(const struct shb_host *h, const struct shb_ostream *out,
		  const char *options, void **rep, char *err, size_t errlen)
{
	struct rep *r = calloc(1, sizeof(*r));

	(void)h;
	if (!r)
		return SHB_E_NOMEM;
	r->out = out;
	/* The core refused any key but "tag" before calling us. */
	if (options && strncmp(options, "tag=", 4) == 0)
		snprintf(r->tag, sizeof r->tag, "%s", options + 4);
	else if (options && *options) {
		snprintf(err, errlen, "unexpected options '%s'", options);
		free(r);
		return SHB_E_INVAL;
	}
	*rep = r;
	return SHB_OK;
}

static int begin(void *rep, const struct shb_run_info *info)
{
	struct rep *r = rep;

	r->info = info;
	r->begins++;
	return SHB_OK;
}

static int sample(void *rep, const struct shb_results *res)
{
	struct rep *r = rep;

	if (res->kind != SHB_RESULTS_INTERVAL)
		r->bad_kind++;
	r->samples++;
	r->sample_requests += res->requests_total;
	return SHB_OK;
}

static int line(const struct rep *r, const char *key, unsigned long long v)
{
	char buf[96];
	int n = snprintf(buf, sizeof(buf), "%s %llu\n", key, v);

	return r->out->write(r->out->ctx, buf, (size_t)n) != n;
}

static int text(const struct rep *r, const char *key, const char *v)
{
	char buf[128];
	int n = snprintf(buf, sizeof(buf), "%s %s\n", key, v ? v : "");

	return n < 0 || n >= (int)sizeof(buf) ||
	       r->out->write(r->out->ctx, buf, (size_t)n) != n;
}

static int end(void *rep, const struct shb_results *res)
{
	const struct rep *r = rep;
	const struct shb_run_info *i = r->info;
	char shard[32];
	int bad = 0;

	/* What a 1.2 reader checks: the members it reads are there. */
	if (!i || !SHB_HAS(res, struct shb_results, reserved1) ||
	    !SHB_HAS(i, struct shb_run_info, percentile_count))
		return SHB_E_INVAL;
	snprintf(shard, sizeof shard, "%u/%u", i->shard_index, i->shard_count);
	bad |= text(r, "tag", r->tag);
	bad |= line(r, "begin", r->begins);
	bad |= line(r, "results_struct_size", res->struct_size);
	bad |= line(r, "run_info_sizes_match",
		    res->run && res->run->struct_size == i->struct_size);
	bad |= line(r, "requests_total", res->requests_total);
	bad |= line(r, "requests_ok", res->requests_ok);
	bad |= line(r, "samples_nonzero", r->samples > 0 && !r->bad_kind);
	bad |= line(r, "sample_requests_le_total",
		    r->sample_requests <= res->requests_total);
	bad |= line(r, "setup_ns_nonzero", res->setup_ns > 0);
	bad |= line(r, "uncorrected_count",
		    the_host->hist->count(res->latency_uncorrected));
	bad |= line(r, "first_byte_count", the_host->hist->count(res->first_byte));
	bad |= line(r, "connect_count", the_host->hist->count(res->connect));
	bad |= line(r, "rx_header_bytes_nonzero", res->rx_header_bytes > 0);
	bad |= line(r, "percentile_count", i->percentile_count);
	bad |= line(r, "target_count", i->target_count);
	bad |= text(r, "shard", shard);
	return bad ? SHB_E_FATAL : SHB_OK;
}

static void destroy(void *rep)
{
	free(rep);
}

static const struct shb_report_vtable vt = {
	.struct_size = sizeof(struct shb_report_vtable),
	.create = create,
	.begin = begin,
	.sample = sample,
	.end = end,
	.destroy = destroy,
};

static const struct shb_option_def opts[] = {
	{.key = "tag", .value_name = "TEXT", .summary = "echoed back"},
	{0},
};

static const struct shb_report_desc desc = {
	.struct_size = sizeof(struct shb_report_desc),
	.flags = SHB_REPORT_WANTS_INTERVALS,
	.name = "v12",
	.summary = "1.2 fields in a fixed format (ABI 1.2 fixture)",
	.vt = &vt,
	.option_defs = opts,
};

static int init(const struct shb_host *h)
{
	if (!SHB_HAS(h, struct shb_host, conn_origin) || !h->hist ||
	    !h->hist->count)
		return SHB_E_UNSUPPORTED;
	the_host = h;
	return SHB_OK;
}

SHB_PLUGIN_DEFINE("org.shb.test.v12report", "1.2.0", init, NULL,
		  SHB_NO_PROTOCOLS, SHB_REPORTERS(&desc));
