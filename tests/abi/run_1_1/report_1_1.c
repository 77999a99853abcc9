/* A reporter as an outsider wrote it for ABI 1.1: compiled against the
 * frozen 1.1 headers (tests/abi/v1.1) only. It prints a few 1.1 fields
 * in a fixed format, and the struct_size of what the core handed it, so
 * that run_1_1.sh can check that a 1.2 core's larger structs reach an old
 * reader intact:
 *
 *   results_struct_size 304
 *   run_info_struct_size 200
 *   run_info_sizes_match 1      (begin's run info is the results' own)
 *   proto_name v11h1
 *   requests_target 200
 *   requests_total 200
 *   requests_ok 200
 *   requests_errors 0
 *   status_200 200
 *   latency_count 200
 *   bytes_received_nonzero 1
 *   instance 1                  (the how-manieth instance created)
 *   begins 1                    (begin() calls this instance got)
 *   url http://127.0.0.1:PORT/
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <shb/shb.h>

#if SHB_ABI_MINOR != 1
#error "this fixture must be built against the 1.1 headers (tests/abi/v1.1)"
#endif

static const struct shb_host *host;

struct rep {
	const struct shb_ostream *out;
	const struct shb_run_info *info;
	unsigned number; /* this instance's place among those created */
	unsigned begins; /* begin() calls it got */
};

/* Instances created so far: a comparison hands a 1.1 reporter a fresh
 * instance per run, each begun once. */
static unsigned created;

static int create(const struct shb_host *h, const struct shb_ostream *out,
		  const char *options, void **rep, char *err, size_t errlen)
{
	struct rep *r = calloc(1, sizeof(*r));
	if (!r)
		return SHB_E_NOMEM;
	r->out = out;
	r->number = ++created;
	*rep = r;
	return SHB_OK;
}

static int begin(void *rep, const struct shb_run_info *info)
{
	((struct rep *)rep)->info = info;
	((struct rep *)rep)->begins++;
	return SHB_OK;
}

/* One "key value" line; returns 1 when the stream refused it. */
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
	/* What a 1.1 reader checks: the members it reads are there. */
	if (!SHB_HAS(res, struct shb_results, latency) || !r->info ||
	    !SHB_HAS(r->info, struct shb_run_info, start_unix_ns))
		return SHB_E_INVAL;
	unsigned long long st200 = 0;
	for (size_t i = 0; i < res->status_count; i++)
		if (res->statuses[i].code == 200)
			st200 += res->statuses[i].count;
	int bad = 0;
	bad |= line(r, "results_struct_size", res->struct_size);
	bad |= line(r, "run_info_struct_size", r->info->struct_size);
	bad |= line(r, "run_info_sizes_match",
		    res->run && res->run->struct_size == r->info->struct_size);
	bad |= text(r, "proto_name", r->info->proto_name);
	bad |= line(r, "requests_target", r->info->requests_target);
	bad |= line(r, "requests_total", res->requests_total);
	bad |= line(r, "requests_ok", res->requests_ok);
	bad |= line(r, "requests_errors", res->requests_errors);
	bad |= line(r, "status_200", st200);
	bad |= line(r, "latency_count", host->hist->count(res->latency));
	bad |= line(r, "bytes_received_nonzero", res->bytes_received > 0);
	bad |= line(r, "instance", r->number);
	bad |= line(r, "begins", r->begins);
	bad |= text(r, "url", r->info->url);
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
	.end = end,
	.destroy = destroy,
};

static const struct shb_report_desc desc = {
	.struct_size = sizeof(struct shb_report_desc),
	.name = "v11",
	.summary = "a few 1.1 fields in a fixed format (ABI 1.1 fixture)",
	.vt = &vt,
};

static const struct shb_report_desc *get(uint32_t i)
{
	return i == 0 ? &desc : NULL;
}

static const struct shb_report_factory factory = {
	.struct_size = sizeof(struct shb_report_factory),
	.count = 1,
	.get = get,
};

static int init(const struct shb_host *h)
{
	if (!SHB_HAS(h, struct shb_host, hist) || !h->hist || !h->hist->count)
		return SHB_E_UNSUPPORTED;
	host = h;
	return SHB_OK;
}

static const void *get_factory(const char *id)
{
	return strcmp(id, SHB_FACTORY_REPORTER) == 0 ? &factory : NULL;
}

SHB_PLUGIN_EXPORT const struct shb_plugin_entry shb_plugin_entry_v1 = {
	.struct_size = sizeof(struct shb_plugin_entry),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_ABI_MINOR,
	.id = "org.shb.test.v11report",
	.version = "1.1.0",
	.init = init,
	.get_factory = get_factory,
};
