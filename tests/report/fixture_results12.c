/* Test-only reporter "r12": writes the ABI 1.2 members of the results and
 * the run facts as "name value" lines, so that the end-to-end tests can
 * assert exact numbers (set-up histogram counts, bytes per request, app
 * outcomes, errors by code) whatever the real reporters show. Never
 * installed. Histograms are written as "NAME count min max". */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <shb/shb.h>

static const struct shb_host *host;

struct rep {
	const struct shb_ostream *out;
};

static int put(const struct rep *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int put(const struct rep *r, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line))
		return SHB_E_INVAL;
	return r->out->write(r->out->ctx, line, (size_t)n) == n ? SHB_OK : SHB_E_CLOSED;
}

static int create(const struct shb_host *h, const struct shb_ostream *out,
		  const char *options, void **rep, char *err, size_t errlen)
{
	(void)h;
	(void)options;
	struct rep *r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return SHB_E_NOMEM;
	}
	r->out = out;
	*rep = r;
	return SHB_OK;
}

static int begin(void *rep, const struct shb_run_info *info)
{
	(void)rep;
	(void)info;
	return SHB_OK;
}

static int hist(const struct rep *r, const char *name, const struct shb_hist *h)
{
	if (!h)
		return put(r, "%s null\n", name);
	const struct shb_hist_ops *o = host->hist;
	return put(r, "%s %llu %llu %llu\n", name, (unsigned long long)o->count(h),
		   (unsigned long long)o->min(h), (unsigned long long)o->max(h));
}

static int run_facts(const struct rep *r, const struct shb_run_info *i)
{
	if (!SHB_HAS(i, struct shb_run_info, percentile_count))
		return put(r, "run.v12 missing\n");
	int rc = put(r, "run.shard %u/%u\nrun.rate_milli %llu\nrun.stages %zu\n"
		     "run.warmup_ns %llu\nrun.interval_ns %llu\nrun.label %s\n"
		     "run.targets %zu\n", i->shard_index, i->shard_count,
		     (unsigned long long)i->rate_milli, i->stage_count,
		     (unsigned long long)i->warmup_ns,
		     (unsigned long long)i->interval_ns, i->label ? i->label : "(null)",
		     i->target_count);
	for (size_t k = 0; rc == SHB_OK && k < i->target_count; k++) {
		const struct shb_target_info *t = &i->targets[k];
		rc = put(r, "run.target %zu %s %s %s %u %u\n", k, t->label, t->url,
			 t->method, t->weight, t->origin);
	}
	for (size_t k = 0; rc == SHB_OK && k < i->percentile_count; k++)
		rc = put(r, "run.percentile %u\n", i->percentiles_ppm[k]);
	return rc;
}

static int end(void *rep, const struct shb_results *res)
{
	const struct rep *r = rep;
	if (!SHB_HAS(res, struct shb_results, reserved1))
		return put(r, "v12 missing\n");
	uint64_t ex = 0, old = 0;
	for (size_t i = 0; i < res->error_ex_count; i++)
		ex += res->errors_ex[i].count;
	for (size_t i = 0; i < res->error_count; i++)
		old += res->errors[i].count;
	int rc = put(r, "requests_total %llu\nrequests_ok %llu\nrequests_errors %llu\n"
		     "errors_ex_sum %llu\nerrors_sum %llu\nrequests_warmup %llu\n"
		     "connections_opened %llu\nrx_header_bytes %llu\n"
		     "rx_body_bytes %llu\nsetup_ns %llu\nelapsed_ns %llu\n"
		     "latency_uncorrected_is_latency %d\n",
		     (unsigned long long)res->requests_total,
		     (unsigned long long)res->requests_ok,
		     (unsigned long long)res->requests_errors,
		     (unsigned long long)ex, (unsigned long long)old,
		     (unsigned long long)res->requests_warmup,
		     (unsigned long long)res->connections_opened,
		     (unsigned long long)res->rx_header_bytes,
		     (unsigned long long)res->rx_body_bytes,
		     (unsigned long long)res->setup_ns,
		     (unsigned long long)res->elapsed_ns,
		     res->latency_uncorrected == res->latency);
	if (rc == SHB_OK)
		rc = hist(r, "latency", res->latency);
	if (rc == SHB_OK)
		rc = hist(r, "connect", res->connect);
	if (rc == SHB_OK)
		rc = hist(r, "handshake", res->handshake);
	if (rc == SHB_OK)
		rc = hist(r, "first_byte", res->first_byte);
	for (size_t i = 0; rc == SHB_OK && i < res->status_count; i++)
		rc = put(r, "status %u %llu\n", res->statuses[i].code,
			 (unsigned long long)res->statuses[i].count);
	for (size_t i = 0; rc == SHB_OK && i < res->error_ex_count; i++)
		rc = put(r, "error %u %llu %s\n", res->errors_ex[i].kind,
			 (unsigned long long)res->errors_ex[i].count,
			 res->errors_ex[i].sample ? res->errors_ex[i].sample : "(null)");
	for (size_t i = 0; rc == SHB_OK && i < res->app_outcome_count; i++) {
		const struct shb_app_count *a = &res->app_outcomes[i];
		rc = put(r, "app %u %llu %u %llu\n", a->space,
			 (unsigned long long)a->code, a->ok,
			 (unsigned long long)a->count);
	}
	for (size_t i = 0; rc == SHB_OK && i < res->error_code_count; i++) {
		const struct shb_code_count *c = &res->error_codes[i];
		rc = put(r, "code %u %u %llu %llu\n", c->kind, c->space,
			 (unsigned long long)c->code, (unsigned long long)c->count);
	}
	if (rc == SHB_OK)
		rc = run_facts(r, res->run);
	return rc;
}

static void destroy(void *rep)
{
	free(rep);
}

static const struct shb_report_vtable vt = {
	.struct_size = sizeof(vt),
	.create = create,
	.begin = begin,
	.end = end,
	.destroy = destroy,
};

static const struct shb_report_desc desc = {
	.struct_size = sizeof(desc),
	.name = "r12",
	.summary = "test reporter: the ABI 1.2 results as name value lines",
	.vt = &vt,
};

static const struct shb_report_desc *get(uint32_t i)
{
	return i == 0 ? &desc : NULL;
}

static const struct shb_report_factory factory = {sizeof(factory), 1, get};

static int init(const struct shb_host *h)
{
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
	.id = "org.shb.test.r12",
	.version = "1",
	.init = init,
	.get_factory = get_factory,
};
