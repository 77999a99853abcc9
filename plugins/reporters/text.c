/* The "text" reporter: a human-readable summary in the layout users know
 * from wrk and oha. Everything is printed at end(); see docs/reports.md. */
#include <string.h>

#include "report_common.h"

/* Label column: "Connections:   " */
#define LABEL_WIDTH 15

/* Bytes that could move the cursor or change the terminal's state come
 * from servers (error samples) and must not reach a terminal raw. */
static void put_clean(struct shb_rpt_out *o, const char *s)
{
	char buf[256];
	size_t n = 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		buf[n++] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
		if (n == sizeof(buf)) {
			shb_rpt_write(o, buf, n);
			n = 0;
		}
	}
	shb_rpt_write(o, buf, n);
}

static void label(struct shb_rpt_out *o, const char *name)
{
	shb_rpt_printf(o, "%-*s", LABEL_WIDTH, name);
}

static void line_str(struct shb_rpt_out *o, const char *name, const char *v)
{
	label(o, name);
	put_clean(o, shb_rpt_str(v));
	shb_rpt_puts(o, "\n");
}

static void line_u64(struct shb_rpt_out *o, const char *name, uint64_t v)
{
	label(o, name);
	shb_rpt_printf(o, "%llu\n", (unsigned long long)v);
}

static int digits(uint64_t v)
{
	int n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static void print_run(struct shb_rpt_out *o, const struct shb_run_info *run)
{
	line_str(o, "URL:", run->url);
	line_str(o, "Protocol:", run->proto_display);
	line_str(o, "Method:", run->method);
	line_u64(o, "Threads:", run->threads);
	line_u64(o, "Connections:", run->connections);
	if (run->parallel > 1)
		line_u64(o, "Parallel:", run->parallel);
	if (run->tls)
		line_str(o, "TLS verify:", shb_rpt_tls_verify_name(run->tls_verify));
}

/* --warmup: how long, and how many requests it ended, none counted below. */
static void print_warmup(struct shb_rpt_out *o, const struct shb_rpt_ext_run *x)
{
	char secs[32];
	if (!x || !x->warmup_ns)
		return;
	uint64_t ms = x->warmup_ns / 1000000 + (x->warmup_ns % 1000000 >= 500000);
	label(o, "Warm-up:");
	shb_rpt_printf(o, "%ss, %llu requests, not counted below\n",
		       shb_rpt_fixed(secs, sizeof(secs), ms, 3),
		       (unsigned long long)x->warmup_requests);
}

static void print_requests(struct shb_rpt_out *o, const struct shb_results *r,
			   const struct shb_rpt_errors *e)
{
	char secs[32], rate[32];
	label(o, "Requests:");
	shb_rpt_printf(o, "%llu (%llu ok, %llu errors",
		       (unsigned long long)r->requests_total,
		       (unsigned long long)r->requests_ok,
		       (unsigned long long)r->requests_errors);
	if (e->count[SHB_ERRK_CONNECT])
		shb_rpt_printf(o, ", of which %llu connect",
			       (unsigned long long)e->count[SHB_ERRK_CONNECT]);
	/* elapsed is ns: three decimals of seconds are whole milliseconds,
	 * rounded half up. */
	uint64_t ms = r->elapsed_ns / 1000000 + (r->elapsed_ns % 1000000 >= 500000);
	shb_rpt_printf(o, ") in %ss\n", shb_rpt_fixed(secs, sizeof(secs), ms, 3));
	label(o, "Requests/sec:");
	shb_rpt_printf(o, "%s\n",
		       shb_rpt_fixed(rate, sizeof(rate),
				     shb_rpt_scale(shb_rpt_per_sec(r->requests_ok,
								   r->elapsed_ns), 1), 1));
}

static char *mb_per_sec(char *buf, size_t len, uint64_t bytes, uint64_t ns)
{
	double mb = shb_rpt_per_sec(bytes, ns) / (1024.0 * 1024.0);
	return shb_rpt_fixed(buf, len, shb_rpt_scale(mb, 2), 2);
}

static void print_transfer(struct shb_rpt_out *o, const struct shb_results *r)
{
	char rx[32], tx[32];
	label(o, "Transfer:");
	shb_rpt_printf(o, "recv %s MB/s (%llu bytes), sent %s MB/s (%llu bytes)\n",
		       mb_per_sec(rx, sizeof(rx), r->bytes_received, r->elapsed_ns),
		       (unsigned long long)r->bytes_received,
		       mb_per_sec(tx, sizeof(tx), r->bytes_sent, r->elapsed_ns),
		       (unsigned long long)r->bytes_sent);
	shb_rpt_printf(o, "Connections opened: %llu\n",
		       (unsigned long long)r->connections_opened);
	if (r->requests_retried)
		line_u64(o, "Retried:", r->requests_retried);
	if (r->interrupted)
		line_str(o, "Interrupted:", "yes");
}

static void print_statuses(struct shb_rpt_out *o, const struct shb_results *r)
{
	if (r->status_count == 0) {
		line_str(o, "Status codes:", "none");
		return;
	}
	int w = 1;
	for (size_t i = 0; i < r->status_count; i++)
		if (digits(r->statuses[i].count) > w)
			w = digits(r->statuses[i].count);
	shb_rpt_puts(o, "Status codes:\n");
	for (size_t i = 0; i < r->status_count; i++)
		shb_rpt_printf(o, "  [%u] %*llu\n", r->statuses[i].code, w,
			       (unsigned long long)r->statuses[i].count);
}

static void error_line(struct shb_rpt_out *o, const char *kind, int w,
		       uint64_t count, const char *sample)
{
	shb_rpt_printf(o, "  %-10s%*llu", kind, w, (unsigned long long)count);
	if (sample) {
		shb_rpt_puts(o, "  ");
		put_clean(o, sample);
	}
	shb_rpt_puts(o, "\n");
}

static void print_errors(struct shb_rpt_out *o, const struct shb_rpt_errors *e)
{
	int w = 0;
	for (int k = 0; k < SHB_ERRK_COUNT; k++)
		if (e->count[k] && digits(e->count[k]) > w)
			w = digits(e->count[k]);
	if (e->other && digits(e->other) > w)
		w = digits(e->other);
	if (w == 0)
		return;
	shb_rpt_puts(o, "Errors:\n");
	for (int k = 0; k < SHB_ERRK_COUNT; k++)
		if (e->count[k])
			error_line(o, shb_rpt_err_names[k], w, e->count[k],
				   e->sample[k]);
	if (e->other)
		error_line(o, "other", w, e->other, e->other_sample);
}

static void print_latency(struct shb_rpt_out *o, const struct shb_rpt_latency *l)
{
	char a[32], b[32], c[32], d[32];
	if (l->count == 0) {
		shb_rpt_puts(o, "Latency: no completed requests\n");
		return;
	}
	label(o, "Latency (ms):");
	shb_rpt_printf(o, "min %s, mean %s, stddev %s, max %s\n",
		       shb_rpt_ms(a, sizeof(a), l->min),
		       shb_rpt_ms(b, sizeof(b), l->mean),
		       shb_rpt_ms(c, sizeof(c), l->stddev),
		       shb_rpt_ms(d, sizeof(d), l->max));
	char vals[SHB_RPT_PCT_COUNT][32];
	int w = 0;
	for (int i = 0; i < SHB_RPT_PCT_COUNT; i++) {
		shb_rpt_ms(vals[i], sizeof(vals[i]), l->pct[i]);
		if ((int)strlen(vals[i]) > w)
			w = (int)strlen(vals[i]);
	}
	shb_rpt_puts(o, "Latency distribution:\n");
	for (int i = 0; i < SHB_RPT_PCT_COUNT; i++)
		shb_rpt_printf(o, "  %5s%% in %*s ms\n", shb_rpt_pcts[i].label,
			       w, vals[i]);
}

static int text_end(void *rep, const struct shb_results *r)
{
	struct shb_rpt *t = rep;
	const struct shb_run_info *run = shb_rpt_check(t, r);
	if (!run)
		return SHB_E_INVAL;
	struct shb_rpt_errors e;
	struct shb_rpt_latency lat;
	shb_rpt_sum_errors(r, &e);
	shb_rpt_read_latency(t->host, r, &lat);

	struct shb_rpt_out o;
	shb_rpt_out_init(&o, t->out);
	print_run(&o, run);
	print_warmup(&o, shb_rpt_ext_run(t->host));
	print_requests(&o, r, &e);
	print_transfer(&o, r);
	print_statuses(&o, r);
	print_errors(&o, &e);
	print_latency(&o, &lat);
	return shb_rpt_flush(&o);
}

static int text_create(const struct shb_host *host,
		       const struct shb_ostream *out, const char *options,
		       void **rep, char *err, size_t errlen)
{
	return shb_rpt_create("text", NULL, host, out, options, rep, err,
			      errlen);
}

static const struct shb_report_vtable text_vt = {
	.struct_size = sizeof(struct shb_report_vtable),
	.create = text_create,
	.begin = shb_rpt_begin,
	.sample = NULL,
	.end = text_end,
	.destroy = shb_rpt_destroy,
};

const struct shb_report_desc shb_rpt_module_desc = {
	.struct_size = sizeof(struct shb_report_desc),
	.flags = 0,
	.name = "text",
	.summary = "human-readable summary (wrk/oha style)",
	.vt = &text_vt,
};

SHB_PLUGIN_EXPORT const struct shb_plugin_entry shb_plugin_entry_v1 = {
	.struct_size = sizeof(struct shb_plugin_entry),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_TARGET_ABI_MINOR,
	.flags = 0,
	.id = "org.shb.report.text",
	.version = SHB_VERSION_STRING,
	.vendor = "shb",
	.url = NULL,
	.license = "MIT",
	.init = shb_rpt_init,
	.deinit = NULL,
	.get_factory = shb_rpt_get_factory,
};
