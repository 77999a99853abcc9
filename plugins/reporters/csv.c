/* The "csv" reporter: a header row and one summary row per run, integer
 * values with the unit in the column name, fields quoted per RFC 4180
 * where needed. Option "noheader" leaves the header out, for appending
 * runs to one file. Columns are documented in docs/reports.md. */
#include <string.h>

#include "report_common.h"

#define OPT_NOHEADER (1u << 0)

static const char *const csv_options[] = {"noheader", NULL};

/* The columns before the percentiles, and after them. */
static const char *const head_cols[] = {
	"url", "method", "protocol", "threads", "connections", "parallel",
	"duration_ns", "interrupted", "requests_total", "requests_ok",
	"requests_errors", "connect_errors", "tls_errors", "read_errors",
	"write_errors", "timeout_errors", "protocol_errors", "retried",
	"requests_per_sec", "bytes_received", "bytes_sent",
	"connections_opened", "latency_min_ns", "latency_mean_ns",
	"latency_stddev_ns", "latency_max_ns",
};

/* Columns are only appended, so that rows of older runs still line up. */
static const char *const tail_cols[] = {
	"status_2xx", "status_3xx", "status_4xx", "status_5xx", "status_other",
	"start_time", "shb_version", "warmup_ns", "warmup_requests",
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* A row is built field by field; each field after the first gets a comma. */
struct row {
	struct shb_rpt_out *o;
	int n;
};

static void sep(struct row *w)
{
	if (w->n++ > 0)
		shb_rpt_puts(w->o, ",");
}

/* RFC 4180: a field holding a comma, a quote, CR or LF is quoted, and its
 * quotes doubled. */
static void field_str(struct row *w, const char *s)
{
	sep(w);
	s = shb_rpt_str(s);
	if (s[strcspn(s, ",\"\r\n")] == '\0') {
		shb_rpt_puts(w->o, s);
		return;
	}
	shb_rpt_puts(w->o, "\"");
	for (const char *q; (q = strchr(s, '"')) != NULL; s = q + 1) {
		shb_rpt_write(w->o, s, (size_t)(q - s) + 1);
		shb_rpt_puts(w->o, "\"");
	}
	shb_rpt_puts(w->o, s);
	shb_rpt_puts(w->o, "\"");
}

static void field_u64(struct row *w, uint64_t v)
{
	sep(w);
	shb_rpt_printf(w->o, "%llu", (unsigned long long)v);
}

/* Latency of a run without samples: empty fields, not a made-up 0. */
static void field_lat(struct row *w, const struct shb_rpt_latency *l, uint64_t v)
{
	if (l->count)
		field_u64(w, v);
	else
		sep(w);
}

static void header(struct shb_rpt_out *o)
{
	struct row w = {o, 0};
	for (size_t i = 0; i < COUNT_OF(head_cols); i++)
		field_str(&w, head_cols[i]);
	for (size_t i = 0; i < SHB_RPT_PCT_COUNT; i++)
		field_str(&w, shb_rpt_pcts[i].csv_col);
	for (size_t i = 0; i < COUNT_OF(tail_cols); i++)
		field_str(&w, tail_cols[i]);
	shb_rpt_puts(o, "\n");
}

/* 2xx..5xx by class; 1xx and 600..999 fall in "other". */
static void status_classes(const struct shb_results *r, uint64_t cls[5])
{
	memset(cls, 0, 5 * sizeof(cls[0]));
	for (size_t i = 0; i < r->status_count; i++) {
		uint32_t c = r->statuses[i].code / 100;
		cls[(c >= 2 && c <= 5) ? c - 2 : 4] += r->statuses[i].count;
	}
}

static void summary_row(struct shb_rpt_out *o, const struct shb_run_info *run,
			const struct shb_results *r, const struct shb_rpt_errors *e,
			const struct shb_rpt_latency *l,
			const struct shb_rpt_ext_run *x)
{
	struct row w = {o, 0};
	field_str(&w, run->url);
	field_str(&w, run->method);
	field_str(&w, run->proto_display);
	field_u64(&w, run->threads);
	field_u64(&w, run->connections);
	field_u64(&w, run->parallel);
	field_u64(&w, r->elapsed_ns);
	field_u64(&w, r->interrupted ? 1 : 0);
	field_u64(&w, r->requests_total);
	field_u64(&w, r->requests_ok);
	field_u64(&w, r->requests_errors);
	for (int k = 0; k < SHB_ERRK_COUNT; k++)
		field_u64(&w, e->count[k]);
	field_u64(&w, r->requests_retried);
	field_u64(&w, shb_rpt_scale(shb_rpt_per_sec(r->requests_ok, r->elapsed_ns), 0));
	field_u64(&w, r->bytes_received);
	field_u64(&w, r->bytes_sent);
	field_u64(&w, r->connections_opened);
	field_lat(&w, l, l->min);
	field_lat(&w, l, l->mean);
	field_lat(&w, l, l->stddev);
	field_lat(&w, l, l->max);
	for (int i = 0; i < SHB_RPT_PCT_COUNT; i++)
		field_lat(&w, l, l->pct[i]);
	uint64_t cls[5];
	status_classes(r, cls);
	for (int i = 0; i < 5; i++)
		field_u64(&w, cls[i]);
	char start[40];
	field_str(&w, shb_rpt_start_time(start, sizeof(start), run));
	field_str(&w, run->shb_version);
	if (x) {
		field_u64(&w, x->warmup_ns);
		field_u64(&w, x->warmup_requests);
	} else {
		sep(&w);
		sep(&w);
	}
	shb_rpt_puts(o, "\n");
}

static int csv_end(void *rep, const struct shb_results *r)
{
	struct shb_rpt *c = rep;
	const struct shb_run_info *run = shb_rpt_check(c, r);
	if (!run)
		return SHB_E_INVAL;
	struct shb_rpt_errors e;
	struct shb_rpt_latency lat;
	shb_rpt_sum_errors(r, &e);
	shb_rpt_read_latency(c->host, r, &lat);

	struct shb_rpt_out o;
	shb_rpt_out_init(&o, c->out);
	if (!(c->flags & OPT_NOHEADER))
		header(&o);
	summary_row(&o, run, r, &e, &lat, shb_rpt_ext_run(c->host));
	return shb_rpt_flush(&o);
}

static int csv_create(const struct shb_host *host,
		      const struct shb_ostream *out, const char *options,
		      void **rep, char *err, size_t errlen)
{
	return shb_rpt_create("csv", csv_options, host, out, options, rep, err,
			      errlen);
}

static const struct shb_report_vtable csv_vt = {
	.struct_size = sizeof(struct shb_report_vtable),
	.create = csv_create,
	.begin = shb_rpt_begin,
	.sample = NULL,
	.end = csv_end,
	.destroy = shb_rpt_destroy,
};

const struct shb_report_desc shb_rpt_module_desc = {
	.struct_size = sizeof(struct shb_report_desc),
	.flags = 0,
	.name = "csv",
	.summary = "CSV header and one summary row; option: noheader",
	.vt = &csv_vt,
};

SHB_PLUGIN_EXPORT const struct shb_plugin_entry shb_plugin_entry_v1 = {
	.struct_size = sizeof(struct shb_plugin_entry),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_TARGET_ABI_MINOR,
	.flags = 0,
	.id = "org.shb.report.csv",
	.version = SHB_VERSION_STRING,
	.vendor = "shb",
	.url = NULL,
	.license = "MIT",
	.init = shb_rpt_init,
	.deinit = NULL,
	.get_factory = shb_rpt_get_factory,
};
