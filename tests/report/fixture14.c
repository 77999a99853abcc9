/* The fabricated ABI 1.4 run (fixture14.h). */
#include "fixture14.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/loader.h"
#include "report_host.h"
#include "results/stats.h"

#define MS 1000000ull

static const struct shb_outcome_code redis_codes[] = {
	{.code = 0, .name = "ok", .ok = 1},
	{.code = 1, .name = "nil", .ok = 1},
	{.code = 2, .name = "error", .ok = 0},
	{.code = 0, .name = NULL},
};
static const struct shb_outcome_space spaces[] = {
	{.space = FX14_SPACE, .name = "redis", .codes = redis_codes},
};
static const char *const connect_to[] = {
	"example.test:6379:127.0.0.1:16379", "b.test:6379:127.0.0.1:16380",
};
static const char *const resolve[] = {"example.test:6379:127.0.0.1"};

/* 80 ok, 5 nil (a success by the table), 10 error and 2 of code 7, which
 * the table does not name: the 12 error replies. */
static const struct shb_app_count apps[] = {
	{.space = FX14_SPACE, .ok = 1, .code = 0, .count = 80},
	{.space = FX14_SPACE, .ok = 1, .code = 1, .count = 5},
	{.space = FX14_SPACE, .ok = 0, .code = 2, .count = 10},
	{.space = FX14_SPACE, .ok = 0, .code = 7, .count = 2},
};
static const struct shb_error_count errors[] = {
	{.kind = SHB_ERRK_TIMEOUT, .count = 3, .sample = "request timed out"},
};
static const struct shb_error_count errors_ex[] = {
	{.kind = SHB_ERRK_TIMEOUT, .count = 3, .sample = "request timed out"},
	{.kind = SHB_ERRK_APPLICATION, .count = 12, .sample = "redis error 2"},
};

static void fill_info(struct fx14 *f, int mix, uint64_t start_s)
{
	struct shb_run_info *i = &f->info;
	for (int k = 0; k < 2; k++)
		f->target_info[k] = (struct shb_target_info){
			.label = k ? "b" : "a", .weight = 1,
			.url = k ? "redis://b.test:6379/" : "redis://example.test:6379/",
			.method = "GET", .origin = (uint32_t)k};
	*i = (struct shb_run_info){
		.struct_size = sizeof(*i), .threads = 1, .connections = 4,
		.parallel = 1, .shb_version = "0.1.0",
		.url = "redis://example.test:6379/",
		.method = "GET", /* what a core may pass: never shown */
		.proto_name = "redis", .proto_display = "Redis",
		.requests_target = 100, .start_unix_ns = start_s * 1000000000ull,
		.shard_count = 1, .interval_ns = 1000 * MS,
		.targets = f->target_info, .target_count = mix ? 2 : 1,
		.request_model = SHB_REQMODEL_NONE,
		.outcome_spaces = spaces, .outcome_space_count = 1,
		.success = "ok,nil", .proxy = "http://127.0.0.1:3128",
		.connect_to = connect_to, .connect_to_count = 2,
		.resolve = resolve, .resolve_count = 1,
		.source = "127.0.0.2", .unix_socket = NULL,
	};
}

static void fill_result(struct fx14 *f, struct shb_results *r, uint64_t start_s)
{
	*r = (struct shb_results){
		.struct_size = sizeof(*r), .kind = SHB_RESULTS_TOTAL,
		.run = &f->info, .elapsed_ns = 1000 * MS, .requests_total = 100,
		.requests_ok = 85, .requests_errors = 15,
		.bytes_sent = 4000, .bytes_received = 9000,
		.connections_opened = 4,
		.errors = errors, .error_count = 1,
		.latency = shb_histo_abi(&f->latency),
		.latency_uncorrected = shb_histo_abi(&f->latency),
		.connect = shb_histo_abi(&f->empty),
		.handshake = shb_histo_abi(&f->empty),
		.first_byte = shb_histo_abi(&f->empty),
		.setup_ns = 2 * MS,
		.rx_header_bytes = 0, .rx_body_bytes = 9000,
		.app_outcomes = apps, .app_outcome_count = 4,
		.errors_ex = errors_ex, .error_ex_count = 2,
		.load_start_unix_ns = start_s * 1000000000ull + 2 * MS,
		.requests_answered = 97,
		.latency_error_reply = shb_histo_abi(&f->error_reply),
		.measured = SHB_MEASURED_BYTES | SHB_MEASURED_CONNECTIONS,
		.metrics = f->metrics, .metric_count = 3,
	};
}

static void fill_metrics(struct fx14 *f)
{
	f->metrics[0] = (struct shb_metric_value){
		.kind = SHB_METRIC_COUNTER, .name = "msgs_sent",
		.unit = "messages", .help = "messages sent", .count = 100};
	f->metrics[1] = (struct shb_metric_value){
		.kind = SHB_METRIC_LATENCY, .name = "msg_latency",
		.help = "send to answer", .count = 10,
		.hist = shb_histo_abi(&f->msg_latency)};
	f->metrics[2] = (struct shb_metric_value){
		.kind = SHB_METRIC_VALUE, .name = "depth", .unit = "commands",
		.count = 20, .hist = shb_histo_abi(&f->depth)};
}

int fx14_init(struct fx14 *f, int mix, uint64_t start_s)
{
	memset(f, 0, sizeof(*f));
	if (shb_histo_init(&f->latency, SHB_HIST_HIGHEST, SHB_HIST_SIGFIGS) ||
	    shb_histo_init(&f->error_reply, SHB_HIST_HIGHEST, SHB_HIST_SIGFIGS) ||
	    shb_histo_init(&f->empty, SHB_HIST_HIGHEST, SHB_HIST_SIGFIGS) ||
	    shb_histo_init(&f->msg_latency, SHB_HIST_HIGHEST, SHB_HIST_SIGFIGS) ||
	    shb_histo_init(&f->depth, SHB_HIST_HIGHEST, SHB_HIST_SIGFIGS))
		return -1;
	for (uint64_t v = 1; v <= 10; v++)
		shb_histo_record(&f->msg_latency, v * MS);
	for (uint64_t v = 1; v <= 20; v++)
		shb_histo_record(&f->depth, v);
	fill_metrics(f);
	for (uint64_t v = 1; v <= 85; v++)
		shb_histo_record(&f->latency, v * MS);
	for (uint64_t v = 1; v <= 12; v++)
		shb_histo_record(&f->error_reply, 2 * v * MS);
	fill_info(f, mix, start_s);
	fill_result(f, &f->total, start_s);
	f->interval = f->total;
	f->interval.kind = SHB_RESULTS_INTERVAL;
	if (!mix)
		return 0;
	/* A mix: each target's result measures neither bytes nor
	 * connections (zeros there, as the core leaves them). */
	for (int k = 0; k < 2; k++) {
		f->targets[k] = f->total;
		f->targets[k].measured = 0;
		f->targets[k].bytes_sent = f->targets[k].bytes_received = 0;
		f->targets[k].connections_opened = 0;
		f->targets[k].target_index = (uint32_t)k;
		f->targets[k].metrics = NULL; /* a connection's, not a target's */
		f->targets[k].metric_count = 0;
		f->target_ptrs[k] = &f->targets[k];
	}
	f->total.targets = f->target_ptrs;
	f->total.target_count = 2;
	return 0;
}

void fx14_fini(struct fx14 *f)
{
	shb_histo_destroy(&f->latency);
	shb_histo_destroy(&f->error_reply);
	shb_histo_destroy(&f->empty);
	shb_histo_destroy(&f->msg_latency);
	shb_histo_destroy(&f->depth);
}

/* ---- running a reporter ------------------------------------------------- */

char *fx14_run_reporter(const char *name, const struct shb_run_info *info,
			const struct shb_results *total,
			const struct shb_results *interval)
{
	char err[256] = "";
	struct shb_loader l;
	struct shb_report_handle h;
	struct membuf m = {0};
	struct shb_ostream os = {sizeof(os), 0, &m, membuf_write};
	void *rep = NULL;
	if (rep_loader_init(&l) < 0)
		return NULL;
	int rc = shb_loader_report(&l, name, &h, err, sizeof(err));
	if (rc == 0)
		rc = h.vt.create(&rep_host, &os, NULL, &rep, err, sizeof(err));
	if (rc == 0) {
		rc = h.vt.begin(rep, info);
		if (rc == 0 && interval && h.vt.sample)
			rc = h.vt.sample(rep, interval);
		if (rc == 0)
			rc = h.vt.end(rep, total);
		h.vt.destroy(rep);
	}
	shb_loader_fini(&l);
	if (rc != 0) {
		fprintf(stderr, "\n%s: rc %d %s\n", name, rc, err);
		free(m.data);
		return NULL;
	}
	return m.data;
}

char *fx14_report(const char *name, const struct fx14 *f, int with_interval)
{
	return fx14_run_reporter(name, &f->info, &f->total,
				 with_interval ? &f->interval : NULL);
}
