/* Reporter fixtures (report.h): a memory sink and a fabricated run. */
#include <stdlib.h>
#include <string.h>

#include "kit_int.h"

static shb_ssize sink_write(void *ctx, const void *buf, size_t len)
{
	struct shb_kit_sink *s = ctx;

	if (s->fail)
		return SHB_E_CLOSED;
	if (shb_kit_grow(&s->buf, &s->cap, s->len + len + 1, 1))
		return SHB_E_NOMEM;
	memcpy(s->buf + s->len, buf, len);
	s->len += len;
	s->buf[s->len] = '\0';
	return (shb_ssize)len;
}

void shb_kit_sink_init(struct shb_kit_sink *s)
{
	memset(s, 0, sizeof *s);
	s->os.struct_size = sizeof s->os;
	s->os.is_terminal = 0;
	s->os.ctx = s;
	s->os.write = sink_write;
}

void shb_kit_sink_fini(struct shb_kit_sink *s)
{
	free(s->buf);
	shb_kit_sink_init(s);
}

#define MS 1000000ull

static void fill_info(struct shb_kit_report_fixture *f, int empty)
{
	struct shb_run_info *i = &f->info;

	f->target = (struct shb_target_info){
		.label = "http://example.com/",
		.url = "http://example.com/",
		.method = "GET",
		.weight = 1,
	};
	f->plugins[0] = (struct shb_plugin_info){
		.path = "/usr/lib/shb/plugins/shb-proto-h1.so",
		.id = "org.shb.proto.h1", .version = SHB_VERSION_STRING,
		.role = "protocol", .name = "h1", .abi_minor = 1,
	};
	f->plugins[1] = (struct shb_plugin_info){
		.path = "/usr/lib/shb/plugins/shb-report-kit.so",
		.id = "org.shb.kit.report", .version = SHB_VERSION_STRING,
		.role = "reporter", .name = "kit", .abi_minor = SHB_ABI_MINOR,
	};
	f->percentiles[0] = 500000;
	f->percentiles[1] = 900000;
	f->percentiles[2] = 990000;
	f->percentiles[3] = 999000;
	memset(i, 0, sizeof *i);
	i->struct_size = sizeof *i;
	i->threads = 2;
	i->connections = 10;
	i->parallel = 1;
	i->shb_version = SHB_VERSION_STRING;
	i->url = "http://example.com/";
	i->method = "GET";
	i->proto_name = "h1";
	i->proto_display = "HTTP/1.1";
	i->requests_target = empty ? 0 : 1000;
	i->duration_target_ns = empty ? 1000 * MS : 0;
	i->start_unix_ns = 1700000000ull * 1000000000ull;
	i->shard_count = 1;
	i->targets = &f->target;
	i->target_count = 1;
	i->plugins = f->plugins;
	i->plugin_count = 2;
	i->percentiles_ppm = f->percentiles;
	i->percentile_count = 4;
	i->request_model = SHB_REQMODEL_HTTP;
	i->success = "1xx-3xx";
}

static void fill_results(struct shb_kit_report_fixture *f,
			 struct shb_results *r, int empty)
{
	memset(r, 0, sizeof *r);
	r->struct_size = sizeof *r;
	r->kind = SHB_RESULTS_TOTAL;
	r->run = &f->info;
	r->elapsed_ns = 1000 * MS;
	r->latency = shb_kit_hist_handle(&f->latency);
	r->latency_uncorrected = r->latency;
	r->connect = shb_kit_hist_handle(&f->connect);
	r->handshake = shb_kit_hist_handle(&f->handshake);
	r->first_byte = shb_kit_hist_handle(&f->first_byte);
	r->latency_error_reply = shb_kit_hist_handle(&f->error_reply);
	r->measured = SHB_MEASURED_BYTES | SHB_MEASURED_CONNECTIONS;
	if (empty)
		return;
	r->requests_total = 1000;
	r->requests_ok = 990;
	r->requests_errors = 10;
	r->requests_answered = 990;
	r->bytes_sent = 40000;
	r->bytes_received = 120000;
	r->connections_opened = 10;
	r->statuses = f->statuses;
	r->status_count = 2;
	r->errors = f->errors;
	r->error_count = 2;
	r->setup_ns = 5 * MS;
	r->rx_header_bytes = 99000;
	r->rx_body_bytes = 4950;
	r->app_outcomes = f->apps;
	r->app_outcome_count = 0;
	r->errors_ex = f->errors_ex;
	r->error_ex_count = 2;
	r->error_codes = f->codes;
	r->error_code_count = 0;
}

void shb_kit_report_fixture_init(struct shb_kit_report_fixture *f, int empty)
{
	memset(f, 0, sizeof *f);
	shb_kit_hist_init(&f->latency);
	shb_kit_hist_init(&f->connect);
	shb_kit_hist_init(&f->handshake);
	shb_kit_hist_init(&f->first_byte);
	shb_kit_hist_init(&f->error_reply);
	if (!empty) {
		for (uint64_t v = 1; v <= 990; v++) {
			shb_kit_hist_add(&f->latency, v * MS, 1);
			shb_kit_hist_add(&f->first_byte, v * MS / 2, 1);
		}
		for (uint64_t v = 1; v <= 10; v++)
			shb_kit_hist_add(&f->connect, v * MS / 10, 1);
	}
	f->statuses[0] = (struct shb_status_count){.code = 200, .count = 980};
	f->statuses[1] = (struct shb_status_count){.code = 404, .count = 10};
	f->errors[0] = (struct shb_error_count){
		.kind = SHB_ERRK_CONNECT, .count = 4,
		.sample = "connection refused"};
	f->errors[1] = (struct shb_error_count){
		.kind = SHB_ERRK_TIMEOUT, .count = 6,
		.sample = "request timed out"};
	f->errors_ex[0] = f->errors[0];
	f->errors_ex[1] = f->errors[1];
	fill_info(f, empty);
	fill_results(f, &f->total, empty);
	fill_results(f, &f->interval, empty);
	f->interval.kind = SHB_RESULTS_INTERVAL;
	f->interval.interval_index = 0;
	f->interval.interval_start_ns = 0;
}

void shb_kit_report_fixture_fini(struct shb_kit_report_fixture *f)
{
	shb_kit_hist_fini(&f->latency);
	shb_kit_hist_fini(&f->connect);
	shb_kit_hist_fini(&f->handshake);
	shb_kit_hist_fini(&f->first_byte);
	shb_kit_hist_fini(&f->error_reply);
}
