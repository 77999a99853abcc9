/* Reporter plugins (text, json, csv) loaded as the core loads them, fed
 * fixed results through a fake host, their output compared byte for byte
 * with tests/report/golden/ (JSON also field by field).
 *
 * Environment (set by meson): SHB_REPORT_PLUGIN_DIR, the build directory
 * of plugins/reporters; SHB_REPORT_GOLDEN_DIR, the golden files.
 * SHB_REPORT_UPDATE_GOLDEN=1 rewrites the golden files from the output
 * instead of comparing (review the diff before committing). */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <shb/shb.h>

/* ---- the fake histogram ------------------------------------------------------ */

#define PCTS 9

static const uint32_t pct_ppm[PCTS] = {100000, 250000, 500000, 750000, 900000,
				       950000, 990000, 999000, 999900};
static const char *const pct_key[PCTS] = {"p10", "p25", "p50", "p75", "p90",
					  "p95", "p99", "p99.9", "p99.99"};

/* The core's histogram is opaque to plugins; this test is the core here.
 * xppm/xval: percentiles beyond the nine, for --percentiles runs. */
struct shb_hist {
	uint64_t count, min, max, mean, stddev;
	uint64_t pct[PCTS];
	uint32_t xppm[2];
	uint64_t xval[2];
};

static int bad_ppm_asked;

static uint64_t h_count(const struct shb_hist *h) { return h->count; }
static uint64_t h_min(const struct shb_hist *h) { return h->min; }
static uint64_t h_max(const struct shb_hist *h) { return h->max; }
static uint64_t h_mean(const struct shb_hist *h) { return h->mean; }
static uint64_t h_stddev(const struct shb_hist *h) { return h->stddev; }

static uint64_t h_value_at_ppm(const struct shb_hist *h, uint32_t ppm)
{
	for (int i = 0; i < PCTS; i++)
		if (pct_ppm[i] == ppm)
			return h->pct[i];
	for (int i = 0; i < 2; i++)
		if (h->xppm[i] && h->xppm[i] == ppm)
			return h->xval[i];
	bad_ppm_asked = 1;
	return UINT64_MAX;
}

static const struct shb_hist_ops hist_ops = {
	.struct_size = sizeof(struct shb_hist_ops),
	.count = h_count,
	.min = h_min,
	.max = h_max,
	.mean = h_mean,
	.stddev = h_stddev,
	.value_at_ppm = h_value_at_ppm,
	.foreach_bucket = NULL,
};

/* The core's "shb.ext.run/1" (its layout as docs/reports.md gives it);
 * a test may change it, or hide it as a core without it would. */
static struct {
	uint32_t struct_size, reserved0;
	uint64_t warmup_ns, warmup_requests;
} ext_run = {.struct_size = 24};
static int ext_run_hidden;

static const void *get_extension(const char *id)
{
	if (!ext_run_hidden && strcmp(id, "shb.ext.run/1") == 0)
		return &ext_run;
	return NULL;
}

static const struct shb_host host = {
	.struct_size = sizeof(struct shb_host),
	.abi_major = SHB_ABI_MAJOR,
	.abi_minor = SHB_ABI_MINOR,
	.version = "0.1.0",
	.get_extension = get_extension,
	.hist = &hist_ops,
};

/* ---- fixtures ------------------------------------------------------------------ */

/* basic, allkinds and empty are what a 1.1 core hands over: its smaller
 * structs end before every 1.2 member, and their goldens are the 1.1
 * reporters' output, byte for byte. */
#define RESULTS_1_1_SIZE 128
#define RUN_INFO_1_1_SIZE 88
_Static_assert(offsetof(struct shb_results, latency_uncorrected) ==
	       RESULTS_1_1_SIZE, "1.1 results end at latency_uncorrected");
_Static_assert(offsetof(struct shb_run_info, shard_index) == RUN_INFO_1_1_SIZE,
	       "1.1 run info ends at shard_index");

/* basic: a plain HTTP/1.1 run with a few connect and read errors. */
static const struct shb_run_info basic_run = {
	.struct_size = RUN_INFO_1_1_SIZE,
	.threads = 2, .connections = 50, .parallel = 1,
	.tls = 0, .tls_verify = SHB_TLS_VERIFY_NONE,
	.shb_version = "0.1.0", .url = "http://127.0.0.1:8080/",
	.method = "GET", .proto_name = "h1", .proto_display = "HTTP/1.1",
	.requests_target = 10000, .duration_target_ns = 0,
	.start_unix_ns = 1700000000000000000ull,
};
static const struct shb_status_count basic_statuses[] = {
	{.code = 200, .count = 9980}, {.code = 404, .count = 10},
};
static const struct shb_error_count basic_errors[] = {
	{.kind = SHB_ERRK_CONNECT, .count = 3,
	 .sample = "connect: Connection refused"},
	{.kind = SHB_ERRK_READ, .count = 7,
	 .sample = "connection closed mid-response"},
};
static const struct shb_hist basic_hist = {
	.count = 1000, .min = 70000, .max = 3100000, .mean = 250000,
	.stddev = 100000,
	/* 80500 ns checks rounding half up to 0.081 ms */
	.pct = {80500, 120000, 200000, 300000, 450000, 600000, 1200000,
		2500000, 3100000},
};
static const struct shb_results basic_results = {
	.struct_size = RESULTS_1_1_SIZE,
	.kind = SHB_RESULTS_TOTAL, .interrupted = 0, .run = &basic_run,
	.elapsed_ns = 1234000000, .requests_total = 10000,
	.requests_ok = 9990, .requests_errors = 10, .requests_retried = 0,
	.bytes_sent = 560000, .bytes_received = 1523456,
	.connections_opened = 60,
	.statuses = basic_statuses, .status_count = 2,
	.errors = basic_errors, .error_count = 2,
	.latency = &basic_hist,
};

/* allkinds: https with a CA file, interrupted, retries, a 999 status and
 * errors of all six kinds (one without a sample, one with a control char). */
static const struct shb_run_info all_run = {
	.struct_size = RUN_INFO_1_1_SIZE,
	.threads = 4, .connections = 8, .parallel = 16,
	.tls = 1, .tls_verify = SHB_TLS_VERIFY_CAFILE,
	.shb_version = "0.1.0", .url = "https://example.test:8443/a?b=c",
	.method = "POST", .proto_name = "h2", .proto_display = "HTTP/2",
	.requests_target = 0, .duration_target_ns = 10000000000ull,
	.start_unix_ns = 1700000000000000000ull,
};
static const struct shb_status_count all_statuses[] = {
	{.code = 200, .count = 50000}, {.code = 301, .count = 5},
	{.code = 503, .count = 120}, {.code = 999, .count = 4},
};
static const struct shb_error_count all_errors[] = {
	{.kind = SHB_ERRK_CONNECT, .count = 1,
	 .sample = "connect: Connection timed out"},
	{.kind = SHB_ERRK_TLS, .count = 2,
	 .sample = "tls: The TLS connection was non-properly terminated."},
	{.kind = SHB_ERRK_READ, .count = 3,
	 .sample = "read: Connection reset by peer"},
	{.kind = SHB_ERRK_WRITE, .count = 4, .sample = NULL},
	{.kind = SHB_ERRK_TIMEOUT, .count = 5,
	 .sample = "request timed out after 2s"},
	{.kind = SHB_ERRK_PROTOCOL, .count = 6,
	 .sample = "h2: RST_STREAM PROTOCOL_ERROR\tstream 5"},
};
static const struct shb_hist all_hist = {
	.count = 50129, .min = 1500000, .max = 1234567890, .mean = 23456789,
	.stddev = 12345678,
	.pct = {2000000, 5000000, 15000000, 30000000, 60000000, 90000000,
		250000000, 900000000, 1234567890},
};
static const struct shb_results all_results = {
	.struct_size = RESULTS_1_1_SIZE,
	.kind = SHB_RESULTS_TOTAL, .interrupted = 1, .run = &all_run,
	.elapsed_ns = 7654321098ull, .requests_total = 50150,
	.requests_ok = 50129, .requests_errors = 21, .requests_retried = 42,
	.bytes_sent = 12345678, .bytes_received = 987654321,
	.connections_opened = 31,
	.statuses = all_statuses, .status_count = 4,
	.errors = all_errors, .error_count = 6,
	.latency = &all_hist,
};

/* empty: the server is down, nothing completed, no latency samples. */
static const struct shb_run_info empty_run = {
	.struct_size = RUN_INFO_1_1_SIZE,
	.threads = 1, .connections = 5, .parallel = 1,
	.tls = 0, .tls_verify = SHB_TLS_VERIFY_NONE,
	.shb_version = "0.1.0", .url = "http://10.0.0.1:9/",
	.method = "GET", .proto_name = "h1", .proto_display = "HTTP/1.1",
	.requests_target = 100, .duration_target_ns = 0,
	.start_unix_ns = 1700000000000000000ull,
};
static const struct shb_error_count empty_errors[] = {
	{.kind = SHB_ERRK_CONNECT, .count = 5,
	 .sample = "connect: Connection refused"},
};
static const struct shb_hist empty_hist = {0};
static const struct shb_results empty_results = {
	.struct_size = RESULTS_1_1_SIZE,
	.kind = SHB_RESULTS_TOTAL, .run = &empty_run,
	.elapsed_ns = 12000000, .requests_total = 5, .requests_ok = 0,
	.requests_errors = 5,
	.statuses = NULL, .status_count = 0,
	.errors = empty_errors, .error_count = 1,
	.latency = &empty_hist,
};

/* v12basic: the basic run from a 1.2 core in closed loop: provenance,
 * set-up timings, bytes per response, the warm-up in the run info, errors
 * by code; latency_uncorrected is the same histogram as latency. */
static const struct shb_plugin_info v12_plugins[] = {
	{.path = "/opt/shb/lib/shb/shb-proto-h1.so", .id = "org.shb.proto.h1",
	 .version = "0.1.0", .role = "protocol", .name = "h1", .abi_minor = 2},
	{.path = "/opt/shb/lib/shb/shb-report-json.so",
	 .id = "org.shb.report.json", .version = NULL, .role = "reporter",
	 .name = "json", .abi_minor = 1},
};
static const struct shb_run_info v12basic_run = {
	.struct_size = sizeof(struct shb_run_info),
	.threads = 2, .connections = 50, .parallel = 1,
	.tls = 0, .tls_verify = SHB_TLS_VERIFY_NONE,
	.shb_version = "0.1.0", .url = "http://127.0.0.1:8080/",
	.method = "GET", .proto_name = "h1", .proto_display = "HTTP/1.1",
	.requests_target = 10000, .duration_target_ns = 0,
	.start_unix_ns = 1700000000000000000ull,
	.shard_index = 0, .shard_count = 1,
	.warmup_ns = 1500000000ull,
	.plugins = v12_plugins, .plugin_count = 2,
};
static const struct shb_error_count v12basic_errors_ex[] = {
	{.kind = SHB_ERRK_CONNECT, .count = 3,
	 .sample = "connect: Connection refused"},
	{.kind = SHB_ERRK_READ, .count = 7,
	 .sample = "connection closed mid-response"},
};
static const struct shb_code_count v12basic_codes[] = {
	{.kind = SHB_ERRK_CONNECT, .space = SHB_ERRSPACE_ERRNO, .code = 111,
	 .count = 3},
	{.kind = SHB_ERRK_READ, .space = SHB_ERRSPACE_ERRNO, .code = 104,
	 .count = 7},
};
static const struct shb_hist connect_hist = {
	.count = 60, .min = 40000, .max = 900000, .mean = 120000,
	.stddev = 50000,
	.pct = {50000, 60000, 100000, 150000, 300000, 400000, 800000, 900000,
		900000},
};
static const struct shb_hist first_byte_hist = {
	.count = 9990, .min = 60000, .max = 3000000, .mean = 230000,
	.stddev = 90000,
	.pct = {70000, 110000, 190000, 280000, 430000, 580000, 1100000,
		2400000, 3000000},
};
static const struct shb_results v12basic_results = {
	.struct_size = sizeof(struct shb_results),
	.kind = SHB_RESULTS_TOTAL, .interrupted = 0, .run = &v12basic_run,
	.elapsed_ns = 1234000000, .requests_total = 10000,
	.requests_ok = 9990, .requests_errors = 10, .requests_retried = 0,
	.bytes_sent = 560000, .bytes_received = 1523456,
	.connections_opened = 60,
	.statuses = basic_statuses, .status_count = 2,
	.errors = basic_errors, .error_count = 2,
	.latency = &basic_hist,
	.latency_uncorrected = &basic_hist,
	.connect = &connect_hist, .handshake = &empty_hist,
	.first_byte = &first_byte_hist,
	.setup_ns = 52345678, .requests_warmup = 4321,
	.rx_header_bytes = 1038960, .rx_body_bytes = 119880,
	.errors_ex = v12basic_errors_ex, .error_ex_count = 2,
	.error_codes = v12basic_codes, .error_code_count = 2,
};

/* v12full: everything 1.2 adds at once. An open-loop gRPC run over two
 * labelled targets with stages, shard 1 of 3, --percentiles with a
 * 99.999th, application outcomes and errors, a TLS handshake and an
 * uncorrected latency of its own. */
static const struct shb_stage v12_stages[] = {
	{.duration_ns = 10000000000ull, .rate_from_milli = 500,
	 .rate_to_milli = 2000000},
	{.duration_ns = 30000000000ull, .rate_from_milli = 2000000,
	 .rate_to_milli = 2000000},
};
static const struct shb_target_info v12_targets[] = {
	{.label = "bun", .url = "https://a.test/rpc", .method = "POST",
	 .weight = 1, .origin = 0},
	{.label = "https://b.test/rpc", .url = "https://b.test/rpc",
	 .method = "POST", .weight = 3, .origin = 1},
};
static const uint32_t v12_ppm[] = {500000, 900000, 990000, 999000, 999990};
static const struct shb_run_info v12full_run = {
	.struct_size = sizeof(struct shb_run_info),
	.threads = 2, .connections = 8, .parallel = 4,
	.tls = 1, .tls_verify = SHB_TLS_VERIFY_SYSTEM,
	.shb_version = "0.1.0", .url = "https://a.test/rpc",
	.method = "POST", .proto_name = "grpc", .proto_display = "gRPC",
	.requests_target = 0, .duration_target_ns = 40000000000ull,
	.start_unix_ns = 1700000000000000000ull,
	.shard_index = 1, .shard_count = 3,
	.rate_milli = 2000000, .stages = v12_stages, .stage_count = 2,
	.warmup_ns = 0,
	.targets = v12_targets, .target_count = 2,
	.plugins = v12_plugins, .plugin_count = 1,
	.label = "compare",
	.percentiles_ppm = v12_ppm, .percentile_count = 5,
};
static const struct shb_hist corrected_hist = {
	.count = 70000, .min = 900000, .max = 250000000, .mean = 3000000,
	.stddev = 9000000,
	.pct = {1000000, 1200000, 1500000, 2000000, 4000000, 6000000,
		40000000, 200000000, 240000000},
	.xppm = {999990}, .xval = {249000000},
};
static const struct shb_hist uncorrected_hist = {
	.count = 70000, .min = 900000, .max = 30000000, .mean = 1600000,
	.stddev = 800000,
	.pct = {1000000, 1100000, 1400000, 1700000, 2200000, 2600000,
		5000000, 20000000, 29000000},
	.xppm = {999990}, .xval = {29900000},
};
static const struct shb_hist handshake_hist = {
	.count = 8, .min = 2000000, .max = 4500000, .mean = 3000000,
	.stddev = 800000,
	.pct = {2000000, 2500000, 2900000, 3100000, 4000000, 4500000,
		4500000, 4500000, 4500000},
};
static const struct shb_status_count v12_statuses[] = {
	{.code = 200, .count = 70010},
};
static const struct shb_status_count t0_statuses[] = {
	{.code = 200, .count = 17500},
};
static const struct shb_status_count t1_statuses[] = {
	{.code = 200, .count = 52510},
};
static const struct shb_error_count v12full_errors[] = {
	{.kind = SHB_ERRK_TIMEOUT, .count = 2, .sample = "request timed out"},
};
static const struct shb_error_count v12full_errors_ex[] = {
	{.kind = SHB_ERRK_TIMEOUT, .count = 2, .sample = "request timed out"},
	{.kind = SHB_ERRK_APPLICATION, .count = 10,
	 .sample = "grpc-status 14: unavailable"},
};
static const struct shb_app_count v12_apps[] = {
	{.space = SHB_APPSPACE_GRPC, .ok = 1, .code = 0, .count = 70000},
	{.space = SHB_APPSPACE_GRPC, .ok = 0, .code = 14, .count = 10},
	{.space = SHB_APPSPACE_PRIVATE + 3, .ok = 1, .code = 7, .count = 0},
};
static const struct shb_code_count v12full_codes[] = {
	{.kind = SHB_ERRK_TIMEOUT, .space = SHB_ERRSPACE_NONE, .code = 0,
	 .count = 2},
	{.kind = SHB_ERRK_APPLICATION, .space = SHB_ERRSPACE_H2, .code = 8,
	 .count = 10},
};
/* The two targets: bun all ok, b.test with the errors. */
static const struct shb_app_count t0_apps[] = {
	{.space = SHB_APPSPACE_GRPC, .ok = 1, .code = 0, .count = 17500},
};
static const struct shb_results t0_results = {
	.struct_size = sizeof(struct shb_results),
	.kind = SHB_RESULTS_TOTAL, .run = &v12full_run,
	.elapsed_ns = 20000000000ull, .requests_total = 17500,
	.requests_ok = 17500, .bytes_sent = 2000000, .bytes_received = 3500000,
	.connections_opened = 4,
	.statuses = t0_statuses, .status_count = 1,
	.latency = &uncorrected_hist, .latency_uncorrected = &uncorrected_hist,
	.connect = &connect_hist, .handshake = &handshake_hist,
	.first_byte = &first_byte_hist,
	.setup_ns = 10000000, .rx_header_bytes = 1750000, .rx_body_bytes = 875000,
	.app_outcomes = t0_apps, .app_outcome_count = 1,
	.target_index = 0,
};
static const struct shb_results t1_results = {
	.struct_size = sizeof(struct shb_results),
	.kind = SHB_RESULTS_TOTAL, .run = &v12full_run,
	.elapsed_ns = 20000000000ull, .requests_total = 52522,
	.requests_ok = 52510, .requests_errors = 12, .bytes_sent = 6000000,
	.bytes_received = 10500000, .connections_opened = 4,
	.statuses = t1_statuses, .status_count = 1,
	.errors = v12full_errors, .error_count = 1,
	.latency = &corrected_hist, .latency_uncorrected = &uncorrected_hist,
	.connect = &connect_hist, .handshake = &handshake_hist,
	.first_byte = &first_byte_hist,
	.setup_ns = 12000000, .rx_header_bytes = 5251000, .rx_body_bytes = 0,
	.app_outcomes = v12_apps, .app_outcome_count = 2,
	.errors_ex = v12full_errors_ex, .error_ex_count = 2,
	.error_codes = v12full_codes, .error_code_count = 2,
	.target_index = 1,
};
static const struct shb_results *const v12_target_results[] = {
	&t0_results, &t1_results,
};
static const struct shb_results v12full_results = {
	.struct_size = sizeof(struct shb_results),
	.kind = SHB_RESULTS_TOTAL, .interrupted = 0, .run = &v12full_run,
	.elapsed_ns = 40000000000ull, .requests_total = 70022,
	.requests_ok = 70010, .requests_errors = 12, .requests_retried = 0,
	.bytes_sent = 8000000, .bytes_received = 14000000,
	.connections_opened = 8,
	.statuses = v12_statuses, .status_count = 1,
	.errors = v12full_errors, .error_count = 1,
	.latency = &corrected_hist,
	.latency_uncorrected = &uncorrected_hist,
	.connect = &connect_hist, .handshake = &handshake_hist,
	.first_byte = &first_byte_hist,
	.setup_ns = 22000000, .requests_warmup = 0,
	.requests_late = 41, .requests_unsent = 3,
	.schedule_lag_max_ns = 180000000,
	.rx_header_bytes = 7001000, .rx_body_bytes = 875000,
	.app_outcomes = v12_apps, .app_outcome_count = 3,
	.errors_ex = v12full_errors_ex, .error_ex_count = 2,
	.error_codes = v12full_codes, .error_code_count = 2,
	.targets = v12_target_results, .target_count = 2,
};

/* ---- a memory ostream ------------------------------------------------------------ */

struct membuf {
	char *data;
	size_t len, cap;
	int writes;     /* calls to write so far */
	int fail_at;    /* 1-based call that fails; 0: none */
	shb_ssize fail_rc;
	size_t chunk;   /* accept at most this much per call; 0: all */
};

static shb_ssize mem_write(void *ctx, const void *buf, size_t len)
{
	struct membuf *m = ctx;
	m->writes++;
	if (m->fail_at && m->writes >= m->fail_at)
		return m->fail_rc;
	if (m->chunk && len > m->chunk)
		len = m->chunk;
	if (m->len + len + 1 > m->cap) {
		size_t cap = (m->len + len + 1) * 2;
		char *p = realloc(m->data, cap);
		if (!p)
			return SHB_E_NOMEM;
		m->data = p;
		m->cap = cap;
	}
	memcpy(m->data + m->len, buf, len);
	m->len += len;
	m->data[m->len] = '\0';
	return (shb_ssize)len;
}

static void mem_free(struct membuf *m)
{
	free(m->data);
	memset(m, 0, sizeof(*m));
}

/* ---- loading ----------------------------------------------------------------------- */

struct plugin {
	const char *name;
	void *dl;
	const struct shb_plugin_entry *entry;
	const struct shb_report_desc *desc;
};

static struct plugin plugins[] = {
	{.name = "text"}, {.name = "json"}, {.name = "csv"},
};
enum { P_TEXT, P_JSON, P_CSV, P_COUNT };

static int open_plugin(struct plugin *p)
{
	const char *dir = getenv("SHB_REPORT_PLUGIN_DIR");
	char path[PATH_MAX];
	if (!dir)
		return -1;
	snprintf(path, sizeof(path), "%s/shb-report-%s.so", dir, p->name);
	p->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!p->dl) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		return -1;
	}
	p->entry = dlsym(p->dl, SHB_PLUGIN_ENTRY_SYMBOL);
	return p->entry ? 0 : -1;
}

static int suite_init(void)
{
	for (int i = 0; i < P_COUNT; i++)
		if (open_plugin(&plugins[i]) != 0)
			return -1;
	return 0;
}

static int suite_clean(void)
{
	for (int i = 0; i < P_COUNT; i++)
		if (plugins[i].dl)
			dlclose(plugins[i].dl);
	return 0;
}

/* Every test but the first starts from an initialised plugin. */
static const struct shb_report_desc *ready(int which)
{
	struct plugin *p = &plugins[which];
	if (!p->desc) {
		if (p->entry->init(&host) != SHB_OK)
			return NULL;
		const struct shb_report_factory *f =
			p->entry->get_factory(SHB_FACTORY_REPORTER);
		p->desc = f ? f->get(0) : NULL;
	}
	return p->desc;
}

/* create/begin/end/destroy into `m`; returns end()'s result, or the first
 * earlier failure. */
static int run_reporter(int which, const char *options,
			const struct shb_results *r, struct membuf *m)
{
	const struct shb_report_desc *d = ready(which);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	struct shb_ostream os = {
		.struct_size = sizeof(os), .is_terminal = 0, .ctx = m,
		.write = mem_write,
	};
	void *rep = NULL;
	char err[256] = "";
	int rc = d->vt->create(&host, &os, options, &rep, err, sizeof(err));
	if (rc != SHB_OK)
		return rc;
	rc = d->vt->begin(rep, r->run);
	if (rc == SHB_OK)
		rc = d->vt->end(rep, r);
	d->vt->destroy(rep);
	return rc;
}

/* ---- golden files -------------------------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n - 1 == 0) {
			char *p = realloc(buf, cap * 2);
			if (!p) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = p;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

static void golden_path(char *path, size_t len, const char *name)
{
	const char *dir = getenv("SHB_REPORT_GOLDEN_DIR");
	snprintf(path, len, "%s/%s", dir ? dir : ".", name);
}

/* Compares `m` with golden/<name>, or rewrites it in update mode; prints
 * both on a mismatch so that the failure is readable. */
static void check_golden(const struct membuf *m, const char *name)
{
	char path[PATH_MAX];
	golden_path(path, sizeof(path), name);
	const char *update = getenv("SHB_REPORT_UPDATE_GOLDEN");
	if (update && strcmp(update, "1") == 0) {
		FILE *f = fopen(path, "wb");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		CU_ASSERT_EQUAL(fwrite(m->data, 1, m->len, f), m->len);
		fclose(f);
		return;
	}
	size_t len = 0;
	char *want = read_file(path, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	int same = len == m->len && memcmp(want, m->data, len) == 0;
	CU_ASSERT_TRUE(same);
	if (!same)
		fprintf(stderr, "\n--- %s (expected)\n%s--- got\n%.*s---\n", name,
			want, (int)m->len, m->data ? m->data : "");
	free(want);
}

static void golden_case(int which, const struct shb_results *r,
			const char *name)
{
	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_reporter(which, NULL, r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	check_golden(&m, name);
	mem_free(&m);
}

/* ---- JSON field checks ----------------------------------------------------------------- */

/* `path` is '/'-separated (keys such as "p99.9" contain dots). */
static json_t *jpath(json_t *root, const char *path)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", path);
	json_t *v = root;
	for (char *save = NULL, *k = strtok_r(buf, "/", &save); k && v;
	     k = strtok_r(NULL, "/", &save))
		v = json_object_get(v, k);
	return v;
}

static void j_int(json_t *root, const char *path, long long want)
{
	json_t *v = jpath(root, path);
	CU_ASSERT_TRUE(json_is_integer(v));
	CU_ASSERT_EQUAL(json_integer_value(v), want);
	if (!json_is_integer(v) || json_integer_value(v) != want)
		fprintf(stderr, "\n%s: want %lld\n", path, want);
}

static void j_real(json_t *root, const char *path, double want)
{
	json_t *v = jpath(root, path);
	CU_ASSERT_TRUE(json_is_real(v));
	double got = json_real_value(v);
	/* 15 significant digits are printed */
	CU_ASSERT_TRUE(fabs(got - want) <= fabs(want) * 1e-14);
	if (!json_is_real(v) || fabs(got - want) > fabs(want) * 1e-14)
		fprintf(stderr, "\n%s: want %.17g got %.17g\n", path, want, got);
}

static void j_str(json_t *root, const char *path, const char *want)
{
	json_t *v = jpath(root, path);
	CU_ASSERT_TRUE(json_is_string(v));
	CU_ASSERT_STRING_EQUAL(json_string_value(v) ? json_string_value(v) : "",
			       want);
}

static void j_bool(json_t *root, const char *path, int want)
{
	json_t *v = jpath(root, path);
	CU_ASSERT_TRUE(json_is_boolean(v));
	CU_ASSERT_EQUAL(json_is_true(v), want);
}

static void j_null(json_t *root, const char *path)
{
	json_t *v = jpath(root, path);
	CU_ASSERT_PTR_NOT_NULL(v);
	CU_ASSERT_TRUE(json_is_null(v));
}

/* The object at `path` has exactly these keys, in this order. */
static void j_keys(json_t *root, const char *path, const char *const *keys)
{
	json_t *obj = path ? jpath(root, path) : root;
	CU_ASSERT_TRUE_FATAL(json_is_object(obj));
	size_t i = 0;
	for (void *it = json_object_iter(obj); it;
	     it = json_object_iter_next(obj, it), i++) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(keys[i]);
		CU_ASSERT_STRING_EQUAL(json_object_iter_key(it), keys[i]);
	}
	CU_ASSERT_PTR_NULL(keys[i]);
}

static const char *const top_keys[] = {
	"schemaVersion", "shbVersion", "startTime", "url", "method", "protocol",
	"protocolName", "threads", "connections", "parallel", "tls",
	"tlsVerify", "requestsTarget", "durationTargetSeconds",
	"warmupSeconds", "warmupRequests", "durationSeconds", "interrupted", "requests", "requestsPerSec",
	"bytesReceived", "bytesReceivedPerSec", "bytesSent", "bytesSentPerSec",
	"connectionsOpened", "statusCodes", "errors", "errorSamples",
	"latencySeconds", "histogramUnit", "latencyHistogram", NULL,
};
static const char *const request_keys[] = {
	"total", "ok", "errors", "connectErrors", "retried", NULL,
};
static const char *const error_keys[] = {
	"connect", "tls", "read", "write", "timeout", "protocol", NULL,
};
static const char *const latency_keys[] = {
	"min", "mean", "stddev", "max", "percentiles", NULL,
};

static json_t *run_json(const struct shb_results *r, const char *golden)
{
	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_reporter(P_JSON, NULL, r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	if (golden)
		check_golden(&m, golden);
	json_error_t jerr;
	json_t *root = json_loadb(m.data, m.len, 0, &jerr);
	if (!root)
		fprintf(stderr, "\njson: %s at line %d\n", jerr.text, jerr.line);
	mem_free(&m);
	CU_ASSERT_PTR_NOT_NULL(root);
	return root;
}

static void check_common_shape(json_t *root)
{
	j_keys(root, NULL, top_keys);
	j_keys(root, "requests", request_keys);
	j_keys(root, "errors", error_keys);
	j_int(root, "schemaVersion", 1);
	j_str(root, "shbVersion", "0.1.0");
	/* 1700000000 s after the epoch. */
	j_str(root, "startTime", "2023-11-14T22:13:20.000Z");
}

static void check_latency(json_t *root, const struct shb_hist *h)
{
	j_keys(root, "latencySeconds", latency_keys);
	j_real(root, "latencySeconds/min", h->min / 1e9);
	j_real(root, "latencySeconds/mean", h->mean / 1e9);
	j_real(root, "latencySeconds/stddev", h->stddev / 1e9);
	j_real(root, "latencySeconds/max", h->max / 1e9);
	const char *keys[PCTS + 1];
	for (int i = 0; i < PCTS; i++) {
		char path[64];
		snprintf(path, sizeof(path), "latencySeconds/percentiles/%s",
			 pct_key[i]);
		j_real(root, path, h->pct[i] / 1e9);
		keys[i] = pct_key[i];
	}
	keys[PCTS] = NULL;
	j_keys(root, "latencySeconds/percentiles", keys);
}

/* ---- tests: loading ---------------------------------------------------------------------- */

static const struct shb_host host_without_hist = {
	.struct_size = offsetof(struct shb_host, hist), /* an older layout */
	.abi_major = SHB_ABI_MAJOR,
};

static void test_entry_and_init(void)
{
	static const char *const ids[P_COUNT] = {
		"org.shb.report.text", "org.shb.report.json", "org.shb.report.csv",
	};
	for (int i = 0; i < P_COUNT; i++) {
		struct plugin *p = &plugins[i];
		const struct shb_plugin_entry *e = p->entry;
		CU_ASSERT_PTR_NOT_NULL_FATAL(e);
		CU_ASSERT_EQUAL(e->struct_size, sizeof(struct shb_plugin_entry));
		CU_ASSERT_EQUAL(e->abi_major, SHB_ABI_MAJOR);
		CU_ASSERT_EQUAL(e->abi_minor, SHB_ABI_MINOR);
		CU_ASSERT_STRING_EQUAL(e->id, ids[i]);
		const struct shb_report_factory *f =
			e->get_factory(SHB_FACTORY_REPORTER);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		CU_ASSERT_PTR_NULL(e->get_factory(SHB_FACTORY_PROTOCOL));
		CU_ASSERT_PTR_NULL(e->get_factory("shb.reporter/2"));
		CU_ASSERT_EQUAL(f->count, 1);
		CU_ASSERT_PTR_NULL(f->get(1));
		const struct shb_report_desc *d = f->get(0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT_EQUAL(d->struct_size, sizeof(struct shb_report_desc));
		CU_ASSERT_STRING_EQUAL(d->name, p->name);
		CU_ASSERT_EQUAL(d->flags, 0);
		CU_ASSERT_PTR_NOT_NULL(d->summary);
		CU_ASSERT_PTR_NOT_NULL_FATAL(d->vt);
		CU_ASSERT_PTR_NOT_NULL(d->vt->create);
		CU_ASSERT_PTR_NOT_NULL(d->vt->begin);
		CU_ASSERT_PTR_NOT_NULL(d->vt->end);
		CU_ASSERT_PTR_NOT_NULL(d->vt->destroy);
		/* json and csv take intervals (with --interval); text none */
		CU_ASSERT_EQUAL(d->vt->sample == NULL, i == P_TEXT);

		/* Before init, create must refuse rather than use no host. */
		struct membuf m = {0};
		struct shb_ostream os = {sizeof(os), 0, &m, mem_write};
		void *rep = (void *)1;
		char err[128] = "";
		CU_ASSERT_EQUAL(d->vt->create(&host, &os, NULL, &rep, err,
					      sizeof(err)), SHB_E_STATE);
		CU_ASSERT_PTR_NULL(rep);
		CU_ASSERT_TRUE(strlen(err) > 0);

		CU_ASSERT_EQUAL(e->init(NULL), SHB_E_UNSUPPORTED);
		CU_ASSERT_EQUAL(e->init(&host_without_hist), SHB_E_UNSUPPORTED);
		CU_ASSERT_EQUAL(e->init(&host), SHB_OK);
		CU_ASSERT_PTR_EQUAL(ready(i), d);
	}
}

/* Only the entry is exported: the shared library's names stay hidden. */
static void test_only_entry_exported(void)
{
	static const char *const hidden[] = {
		"shb_rpt_init", "shb_rpt_default_ppm", "shb_rpt_printf",
		"shb_rpt_module_desc", "shb_rpt_get_factory", NULL,
	};
	for (int i = 0; i < P_COUNT; i++)
		for (int k = 0; hidden[k]; k++)
			CU_ASSERT_PTR_NULL(dlsym(plugins[i].dl, hidden[k]));
}

/* ---- tests: golden output ------------------------------------------------------------------ */

static void test_text_basic(void) { golden_case(P_TEXT, &basic_results, "basic.txt"); }
static void test_text_allkinds(void) { golden_case(P_TEXT, &all_results, "allkinds.txt"); }
static void test_text_empty(void) { golden_case(P_TEXT, &empty_results, "empty.txt"); }
static void test_csv_basic(void) { golden_case(P_CSV, &basic_results, "basic.csv"); }
static void test_csv_allkinds(void) { golden_case(P_CSV, &all_results, "allkinds.csv"); }
static void test_csv_empty(void) { golden_case(P_CSV, &empty_results, "empty.csv"); }

static void test_csv_quoting(void)
{
	struct shb_run_info run = basic_run;
	struct shb_results r = basic_results;
	run.url = "http://h/x?a=1,2&b=\"q\"";
	r.run = &run;
	golden_case(P_CSV, &r, "quote.csv");
}

static void test_json_basic(void)
{
	json_t *root = run_json(&basic_results, "basic.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	check_common_shape(root);
	j_str(root, "url", "http://127.0.0.1:8080/");
	j_str(root, "method", "GET");
	j_str(root, "protocol", "HTTP/1.1");
	j_str(root, "protocolName", "h1");
	j_int(root, "threads", 2);
	j_int(root, "connections", 50);
	j_int(root, "parallel", 1);
	j_bool(root, "tls", 0);
	j_str(root, "tlsVerify", "none");
	j_int(root, "requestsTarget", 10000);
	j_null(root, "durationTargetSeconds");
	j_real(root, "durationSeconds", 1.234);
	j_bool(root, "interrupted", 0);
	j_int(root, "requests/total", 10000);
	j_int(root, "requests/ok", 9990);
	j_int(root, "requests/errors", 10);
	j_int(root, "requests/connectErrors", 3);
	j_int(root, "requests/retried", 0);
	j_real(root, "requestsPerSec", 9990 / 1.234);
	j_int(root, "bytesReceived", 1523456);
	j_real(root, "bytesReceivedPerSec", 1523456 / 1.234);
	j_int(root, "bytesSent", 560000);
	j_real(root, "bytesSentPerSec", 560000 / 1.234);
	j_int(root, "connectionsOpened", 60);
	static const char *const codes[] = {"200", "404", NULL};
	j_keys(root, "statusCodes", codes);
	j_int(root, "statusCodes/200", 9980);
	j_int(root, "statusCodes/404", 10);
	j_int(root, "errors/connect", 3);
	j_int(root, "errors/tls", 0);
	j_int(root, "errors/read", 7);
	j_int(root, "errors/write", 0);
	j_int(root, "errors/timeout", 0);
	j_int(root, "errors/protocol", 0);
	static const char *const samples[] = {"connect", "read", NULL};
	j_keys(root, "errorSamples", samples);
	j_str(root, "errorSamples/connect", "connect: Connection refused");
	j_str(root, "errorSamples/read", "connection closed mid-response");
	check_latency(root, &basic_hist);
	json_decref(root);
	CU_ASSERT_FALSE(bad_ppm_asked);
}

static void test_json_allkinds(void)
{
	json_t *root = run_json(&all_results, "allkinds.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	check_common_shape(root);
	const double secs = 7.654321098;
	j_str(root, "url", "https://example.test:8443/a?b=c");
	j_str(root, "method", "POST");
	j_str(root, "protocol", "HTTP/2");
	j_str(root, "protocolName", "h2");
	j_int(root, "threads", 4);
	j_int(root, "connections", 8);
	j_int(root, "parallel", 16);
	j_bool(root, "tls", 1);
	j_str(root, "tlsVerify", "cafile");
	j_null(root, "requestsTarget");
	j_real(root, "durationTargetSeconds", 10.0);
	j_real(root, "durationSeconds", secs);
	j_bool(root, "interrupted", 1);
	j_int(root, "requests/total", 50150);
	j_int(root, "requests/ok", 50129);
	j_int(root, "requests/errors", 21);
	j_int(root, "requests/connectErrors", 1);
	j_int(root, "requests/retried", 42);
	j_real(root, "requestsPerSec", 50129 / secs);
	j_int(root, "bytesReceived", 987654321);
	j_real(root, "bytesReceivedPerSec", 987654321 / secs);
	j_int(root, "bytesSent", 12345678);
	j_real(root, "bytesSentPerSec", 12345678 / secs);
	j_int(root, "connectionsOpened", 31);
	static const char *const codes[] = {"200", "301", "503", "999", NULL};
	j_keys(root, "statusCodes", codes);
	j_int(root, "statusCodes/200", 50000);
	j_int(root, "statusCodes/301", 5);
	j_int(root, "statusCodes/503", 120);
	j_int(root, "statusCodes/999", 4);
	for (int k = 0; k < SHB_ERRK_COUNT; k++) {
		char path[32];
		snprintf(path, sizeof(path), "errors/%s", error_keys[k]);
		j_int(root, path, k + 1);
	}
	static const char *const samples[] = {"connect", "tls", "read",
					      "timeout", "protocol", NULL};
	j_keys(root, "errorSamples", samples);
	j_str(root, "errorSamples/connect", "connect: Connection timed out");
	j_str(root, "errorSamples/tls",
	      "tls: The TLS connection was non-properly terminated.");
	j_str(root, "errorSamples/read", "read: Connection reset by peer");
	j_str(root, "errorSamples/timeout", "request timed out after 2s");
	j_str(root, "errorSamples/protocol",
	      "h2: RST_STREAM PROTOCOL_ERROR\tstream 5");
	check_latency(root, &all_hist);
	json_decref(root);
}

static void test_json_empty(void)
{
	json_t *root = run_json(&empty_results, "empty.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	check_common_shape(root);
	j_str(root, "url", "http://10.0.0.1:9/");
	j_int(root, "requestsTarget", 100);
	j_real(root, "durationSeconds", 0.012);
	j_int(root, "requests/total", 5);
	j_int(root, "requests/ok", 0);
	j_int(root, "requests/errors", 5);
	j_int(root, "requests/connectErrors", 5);
	j_real(root, "requestsPerSec", 0.0);
	j_real(root, "bytesReceivedPerSec", 0.0);
	j_int(root, "errors/connect", 5);
	static const char *const none[] = {NULL};
	j_keys(root, "statusCodes", none);
	j_null(root, "latencySeconds");
	json_decref(root);
}

/* ---- tests: options and bad input ----------------------------------------------------------- */

static int create_err(int which, const char *options, char *err, size_t len)
{
	struct membuf m = {0};
	struct shb_ostream os = {sizeof(os), 0, &m, mem_write};
	void *rep = (void *)1;
	const struct shb_report_desc *d = ready(which);
	int rc = d->vt->create(&host, &os, options, &rep, err, len);
	if (rc == SHB_OK)
		d->vt->destroy(rep);
	else
		CU_ASSERT_PTR_NULL(rep);
	return rc;
}

static void test_options(void)
{
	char err[256];
	CU_ASSERT_EQUAL(create_err(P_TEXT, "wide", err, sizeof(err)), SHB_E_INVAL);
	CU_ASSERT_STRING_EQUAL(err, "text reporter: unknown option 'wide' (it takes none)");
	CU_ASSERT_EQUAL(create_err(P_CSV, "noheader,bogus", err, sizeof(err)), SHB_E_INVAL);
	CU_ASSERT_STRING_EQUAL(err, "csv reporter: unknown option 'bogus' (known: noheader)");
	CU_ASSERT_EQUAL(create_err(P_JSON, "compactx", err, sizeof(err)), SHB_E_INVAL);
	CU_ASSERT_STRING_EQUAL(err, "json reporter: unknown option 'compactx' (known: compact)");
	CU_ASSERT_EQUAL(create_err(P_TEXT, "", err, sizeof(err)), SHB_OK);
	CU_ASSERT_EQUAL(create_err(P_CSV, ",noheader,", err, sizeof(err)), SHB_OK);
	/* a tiny error buffer truncates, never overflows */
	char tiny[8];
	CU_ASSERT_EQUAL(create_err(P_CSV, "bogus", tiny, sizeof(tiny)), SHB_E_INVAL);
	CU_ASSERT_STRING_EQUAL(tiny, "csv rep");
}

static void test_csv_noheader(void)
{
	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_reporter(P_CSV, "noheader", &basic_results, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	size_t len = 0;
	char path[PATH_MAX];
	golden_path(path, sizeof(path), "basic.csv");
	char *want = read_file(path, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	const char *row = strchr(want, '\n');
	CU_ASSERT_PTR_NOT_NULL_FATAL(row);
	CU_ASSERT_STRING_EQUAL(m.data, row + 1);
	free(want);
	mem_free(&m);
}

static void test_json_compact(void)
{
	struct membuf pretty = {0}, compact = {0};
	CU_ASSERT_EQUAL(run_reporter(P_JSON, NULL, &all_results, &pretty), SHB_OK);
	CU_ASSERT_EQUAL(run_reporter(P_JSON, "compact", &all_results, &compact), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pretty.data);
	CU_ASSERT_PTR_NOT_NULL_FATAL(compact.data);
	/* one line, ending in a newline */
	CU_ASSERT_PTR_EQUAL(strchr(compact.data, '\n'), compact.data + compact.len - 1);
	json_t *a = json_loads(pretty.data, 0, NULL);
	json_t *b = json_loads(compact.data, 0, NULL);
	CU_ASSERT_TRUE(a && b && json_equal(a, b));
	json_decref(a);
	json_decref(b);
	mem_free(&pretty);
	mem_free(&compact);
}

static void test_bad_create_and_results(void)
{
	for (int i = 0; i < P_COUNT; i++) {
		const struct shb_report_desc *d = ready(i);
		void *rep = NULL;
		char err[128] = "";
		CU_ASSERT_EQUAL(d->vt->create(&host, NULL, NULL, &rep, err,
					      sizeof(err)), SHB_E_INVAL);
		CU_ASSERT_PTR_NULL(rep);
		CU_ASSERT_TRUE(strlen(err) > 0);
		struct shb_ostream no_write = {sizeof(no_write), 0, NULL, NULL};
		CU_ASSERT_EQUAL(d->vt->create(&host, &no_write, NULL, &rep, err,
					      sizeof(err)), SHB_E_INVAL);

		struct membuf m = {0};
		struct shb_ostream os = {sizeof(os), 0, &m, mem_write};
		CU_ASSERT_EQUAL_FATAL(d->vt->create(&host, &os, NULL, &rep, err,
						    sizeof(err)), SHB_OK);
		struct shb_run_info short_info = basic_run;
		short_info.struct_size = offsetof(struct shb_run_info, url);
		CU_ASSERT_EQUAL(d->vt->begin(rep, &short_info), SHB_E_INVAL);
		CU_ASSERT_EQUAL(d->vt->begin(rep, NULL), SHB_E_INVAL);

		struct shb_results r = basic_results;
		r.struct_size = offsetof(struct shb_results, latency);
		CU_ASSERT_EQUAL(d->vt->end(rep, &r), SHB_E_INVAL);
		CU_ASSERT_EQUAL(d->vt->end(rep, NULL), SHB_E_INVAL);
		r = basic_results;
		r.run = NULL; /* and begin() was not given a usable one */
		CU_ASSERT_EQUAL(d->vt->end(rep, &r), SHB_E_INVAL);
		r = basic_results;
		r.statuses = NULL;
		CU_ASSERT_EQUAL(d->vt->end(rep, &r), SHB_E_INVAL);
		CU_ASSERT_EQUAL(m.writes, 0);

		/* Without r->run, the run info from begin() is used. */
		CU_ASSERT_EQUAL(d->vt->begin(rep, &basic_run), SHB_OK);
		r = basic_results;
		r.run = NULL;
		CU_ASSERT_EQUAL(d->vt->end(rep, &r), SHB_OK);
		d->vt->destroy(rep);

		struct membuf ref = {0};
		CU_ASSERT_EQUAL(run_reporter(i, NULL, &basic_results, &ref), SHB_OK);
		CU_ASSERT_TRUE(m.len == ref.len && m.len > 0 &&
			       memcmp(m.data, ref.data, m.len) == 0);
		mem_free(&m);
		mem_free(&ref);
	}
}

/* ---- tests: failing and short writes -------------------------------------------------------- */

/* A URL long enough that every report needs several writes. */
static char long_url[12000];

static const struct shb_results *long_results(struct shb_run_info *run,
					      struct shb_results *r)
{
	if (!long_url[0]) {
		memcpy(long_url, "http://h/", 9);
		memset(long_url + 9, 'a', sizeof(long_url) - 10);
	}
	*run = all_run;
	run->url = long_url;
	*r = all_results;
	r->run = run;
	return r;
}

static void test_write_fails(void)
{
	static const shb_ssize codes[] = {SHB_E_CLOSED, SHB_E_FATAL, -1};
	struct shb_run_info run;
	struct shb_results r;
	long_results(&run, &r);
	for (int i = 0; i < P_COUNT; i++) {
		struct membuf ok = {0};
		CU_ASSERT_EQUAL(run_reporter(i, NULL, &r, &ok), SHB_OK);
		CU_ASSERT_TRUE(ok.writes >= 3);
		/* Fail each write in turn: end() reports the stream's error
		 * and stops writing. */
		for (int at = 1; at <= ok.writes; at++) {
			struct membuf m = {.fail_at = at,
					   .fail_rc = codes[at % 3]};
			CU_ASSERT_EQUAL(run_reporter(i, NULL, &r, &m), codes[at % 3]);
			CU_ASSERT_EQUAL(m.writes, at);
			mem_free(&m);
		}
		/* also on a small report, where the first write is the only one */
		struct membuf m = {.fail_at = 1, .fail_rc = SHB_E_CLOSED};
		CU_ASSERT_EQUAL(run_reporter(i, NULL, &empty_results, &m), SHB_E_CLOSED);
		CU_ASSERT_EQUAL(m.writes, 1);
		mem_free(&m);
		/* a stream that accepts nothing must not make us spin */
		struct membuf zero = {.fail_at = 1, .fail_rc = 0};
		CU_ASSERT_TRUE(run_reporter(i, NULL, &r, &zero) < 0);
		CU_ASSERT_EQUAL(zero.writes, 1);
		mem_free(&zero);
		mem_free(&ok);
	}
}

/* Short writes are continued, and the bytes come out the same. */
static void test_short_writes(void)
{
	struct shb_run_info run;
	struct shb_results r;
	long_results(&run, &r);
	for (int i = 0; i < P_COUNT; i++) {
		struct membuf whole = {0}, bits = {.chunk = 7};
		CU_ASSERT_EQUAL(run_reporter(i, NULL, &r, &whole), SHB_OK);
		CU_ASSERT_EQUAL(run_reporter(i, NULL, &r, &bits), SHB_OK);
		CU_ASSERT_TRUE(whole.len > sizeof(long_url));
		CU_ASSERT_TRUE(bits.len == whole.len &&
			       memcmp(bits.data, whole.data, whole.len) == 0);
		mem_free(&whole);
		mem_free(&bits);
	}
}

/* ---- tests: what a newer core or a hostile server may send ---------------------------------- */

static void test_unknown_kinds_and_modes(void)
{
	struct shb_run_info run = all_run;
	run.tls_verify = 7; /* a mode a newer core added */
	static const struct shb_error_count errs[] = {
		{.kind = SHB_ERRK_READ, .count = 2, .sample = "r1"},
		{.kind = 9, .count = 11, .sample = "from the future"},
	};
	struct shb_results r = all_results;
	r.run = &run;
	r.errors = errs;
	r.error_count = 2;

	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "TLS verify:    unknown\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "\nErrors:\n"
					      "  read       2  r1\n"
					      "  other     11  from the future\n"
					      "Latency (ms):"));
	mem_free(&m);

	json_t *root = run_json(&r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	j_str(root, "tlsVerify", "unknown");
	j_keys(root, "errors", error_keys);
	j_int(root, "errors/read", 2);
	j_int(root, "requests/connectErrors", 0);
	static const char *const samples[] = {"read", NULL};
	j_keys(root, "errorSamples", samples);
	json_decref(root);
}

static void test_hostile_strings(void)
{
	struct shb_run_info run = basic_run;
	run.url = NULL; /* tolerated, printed empty */
	static const struct shb_error_count errs[] = {
		{.kind = SHB_ERRK_PROTOCOL, .count = 1,
		 .sample = "bad \x1b[2J\r\nbyte \xff\xfe end \xe2\x82\xac"},
	};
	struct shb_results r = basic_results;
	r.run = &run;
	r.errors = errs;
	r.error_count = 1;

	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_EQUAL(strncmp(m.data, "URL:           \n", 16), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "  protocol  1  bad  [2J  byte \xff\xfe end \xe2\x82\xac\n"));
	CU_ASSERT_PTR_NULL(strchr(m.data, '\x1b'));
	mem_free(&m);

	json_t *root = run_json(&r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	j_str(root, "url", "");
	j_str(root, "errorSamples/protocol",
	      "bad \x1b[2J\r\nbyte \xef\xbf\xbd\xef\xbf\xbd end \xe2\x82\xac");
	json_decref(root);

	CU_ASSERT_EQUAL(run_reporter(P_CSV, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_EQUAL(strncmp(strchr(m.data, '\n'), "\n,GET,HTTP/1.1,", 15), 0);
	mem_free(&m);
}

/* --warmup reaches every reporter through the core's extension; without
 * the extension (or without a start time) JSON says null, CSV leaves the
 * fields empty and text prints no warm-up line. */
static void test_warmup_and_start(void)
{
	struct membuf m = {0};
	struct shb_run_info run = basic_run;
	struct shb_results r = basic_results;
	r.run = &run;
	ext_run.warmup_ns = 2499500000ull; /* 2.4995 s: rounds half up */
	ext_run.warmup_requests = 777;
	run.start_unix_ns = 1764601200123999999ull;

	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "Connections:   50\n"
		"Warm-up:       2.500s, 777 requests, not counted below\n"
		"Requests:      10000 "));
	mem_free(&m);
	json_t *root = run_json(&r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	j_real(root, "warmupSeconds", 2.4995);
	j_int(root, "warmupRequests", 777);
	j_str(root, "startTime", "2025-12-01T15:00:00.123Z");
	json_decref(root);
	CU_ASSERT_EQUAL(run_reporter(P_CSV, "noheader", &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data,
		",2025-12-01T15:00:00.123Z,0.1.0,2499500000,777\n"));
	mem_free(&m);

	ext_run_hidden = 1;
	run.start_unix_ns = 0;
	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NULL(strstr(m.data, "Warm-up:"));
	mem_free(&m);
	root = run_json(&r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	j_null(root, "warmupSeconds");
	j_null(root, "warmupRequests");
	j_null(root, "startTime");
	json_decref(root);
	CU_ASSERT_EQUAL(run_reporter(P_CSV, "noheader", &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, ",9980,0,10,0,0,,0.1.0,,\n"));
	mem_free(&m);
	ext_run_hidden = 0;
	ext_run.warmup_ns = ext_run.warmup_requests = 0;
}

/* ---- tests: ABI 1.2 members ------------------------------------------------------------------ */

static void test_text_v12basic(void) { golden_case(P_TEXT, &v12basic_results, "v12basic.txt"); }
static void test_text_v12full(void) { golden_case(P_TEXT, &v12full_results, "v12full.txt"); }
static void test_csv_v12basic(void) { golden_case(P_CSV, &v12basic_results, "v12basic.csv"); }
static void test_csv_v12full(void) { golden_case(P_CSV, &v12full_results, "v12full.csv"); }

/* An address that faults when read: a reporter that touched a 1.2 member
 * of a 1.1-sized struct would crash instead of passing. */
#define POISON ((void *)(uintptr_t)0x18)

/* A 1.1 core's structs followed by garbage where 1.2 members would be:
 * the output is the 1.1 golden, byte for byte, in all three formats. */
static void test_v11_sizes_hide_v12(void)
{
	struct shb_run_info run = basic_run;
	run.shard_index = 5;
	run.shard_count = 9;
	run.rate_milli = 77;
	run.stages = POISON;
	run.stage_count = 3;
	run.warmup_ns = 123;
	run.targets = POISON;
	run.target_count = 2;
	run.plugins = POISON;
	run.plugin_count = 2;
	run.label = POISON;
	run.percentiles_ppm = POISON;
	run.percentile_count = 4;
	struct shb_results r = basic_results;
	r.run = &run;
	r.latency_uncorrected = POISON;
	r.connect = r.handshake = r.first_byte = POISON;
	r.setup_ns = 99;
	r.requests_warmup = 98;
	r.requests_late = 97;
	r.rx_header_bytes = r.rx_body_bytes = 96;
	r.app_outcomes = POISON;
	r.app_outcome_count = 2;
	r.errors_ex = POISON;
	r.error_ex_count = 2;
	r.error_codes = POISON;
	r.error_code_count = 2;
	r.targets = POISON;
	r.target_count = 2;
	CU_ASSERT_EQUAL(run.struct_size, RUN_INFO_1_1_SIZE);
	CU_ASSERT_EQUAL(r.struct_size, RESULTS_1_1_SIZE);
	golden_case(P_TEXT, &r, "basic.txt");
	golden_case(P_CSV, &r, "basic.csv");
	golden_case(P_JSON, &r, "basic.json");
}

/* A 1.2 core with a NULL array and a non-zero count (a broken writer):
 * the member reads as absent, nothing crashes. */
static void test_v12_null_arrays(void)
{
	struct shb_run_info run = v12full_run;
	run.stages = NULL;
	run.plugins = NULL;
	run.targets = NULL;
	run.percentiles_ppm = NULL;
	struct shb_results r = v12full_results;
	r.run = &run;
	r.app_outcomes = NULL;
	r.error_codes = NULL;
	r.targets = NULL;
	for (int i = 0; i < P_COUNT; i++) {
		struct membuf m = {0};
		CU_ASSERT_EQUAL(run_reporter(i, NULL, &r, &m), SHB_OK);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
		CU_ASSERT_PTR_NULL(strstr(m.data, "Targets:"));
		CU_ASSERT_PTR_NULL(strstr(m.data, "private:3"));
		mem_free(&m);
	}
	json_t *root = run_json(&r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT_EQUAL(json_array_size(jpath(root, "targets")), 0);
	CU_ASSERT_EQUAL(json_array_size(jpath(root, "plugins")), 0);
	CU_ASSERT_EQUAL(json_array_size(jpath(root, "appOutcomes")), 0);
	/* the fixed nine again */
	j_real(root, "latencySeconds/percentiles/p10", 0.001);
	json_decref(root);
}

static const char *const v12_top_keys[] = {
	"schemaVersion", "shbVersion", "startTime", "url", "method", "protocol",
	"protocolName", "threads", "connections", "parallel", "tls",
	"tlsVerify", "requestsTarget", "durationTargetSeconds",
	"warmupSeconds", "warmupRequests", "durationSeconds", "interrupted",
	"requests", "requestsPerSec", "bytesReceived", "bytesReceivedPerSec",
	"bytesSent", "bytesSentPerSec", "connectionsOpened", "statusCodes",
	"errors", "errorSamples", "latencySeconds",
	"setupSeconds", "rxHeaderBytes", "rxBodyBytes",
	"rxHeaderBytesPerResponse", "rxBodyBytesPerResponse", "appOutcomes",
	"errorCodes", "latencyUncorrectedSeconds", "setupTimings",
	"histogramUnit", "latencyHistogram", "setupHistograms",
	"label", "shard", "openLoop", "plugins", "targets", NULL,
};
/* v12full's latency_uncorrected is a histogram of its own. */
static const char *const v12_open_top_keys[] = {
	"schemaVersion", "shbVersion", "startTime", "url", "method", "protocol",
	"protocolName", "threads", "connections", "parallel", "tls",
	"tlsVerify", "requestsTarget", "durationTargetSeconds",
	"warmupSeconds", "warmupRequests", "durationSeconds", "interrupted",
	"requests", "requestsPerSec", "bytesReceived", "bytesReceivedPerSec",
	"bytesSent", "bytesSentPerSec", "connectionsOpened", "statusCodes",
	"errors", "errorSamples", "latencySeconds",
	"setupSeconds", "rxHeaderBytes", "rxBodyBytes",
	"rxHeaderBytesPerResponse", "rxBodyBytesPerResponse", "appOutcomes",
	"errorCodes", "latencyUncorrectedSeconds", "setupTimings",
	"histogramUnit", "latencyHistogram", "latencyUncorrectedHistogram",
	"setupHistograms", "label", "shard", "openLoop", "plugins", "targets",
	NULL,
};
static const char *const v12_error_keys[] = {
	"connect", "tls", "read", "write", "timeout", "protocol",
	"application", "script", NULL,
};

static void test_json_v12basic(void)
{
	json_t *root = run_json(&v12basic_results, "v12basic.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	j_keys(root, NULL, v12_top_keys);
	j_keys(root, "errors", v12_error_keys);
	j_int(root, "errors/application", 0);
	/* the warm-up from the run info, not the extension */
	j_real(root, "warmupSeconds", 1.5);
	j_int(root, "warmupRequests", 4321);
	j_real(root, "setupSeconds", 0.052345678);
	j_int(root, "rxHeaderBytes", 1038960);
	j_int(root, "rxBodyBytes", 119880);
	j_real(root, "rxHeaderBytesPerResponse", 104.0);
	j_real(root, "rxBodyBytesPerResponse", 12.0);
	CU_ASSERT_EQUAL(json_array_size(jpath(root, "appOutcomes")), 0);
	json_t *codes = jpath(root, "errorCodes");
	CU_ASSERT_EQUAL_FATAL(json_array_size(codes), 2);
	json_t *c = json_array_get(codes, 1);
	j_str(c, "kind", "read");
	j_str(c, "space", "errno");
	j_int(c, "code", 104);
	j_int(c, "count", 7);
	/* closed loop: one histogram, no uncorrected one */
	j_null(root, "latencyUncorrectedSeconds");
	static const char *const setup_keys[] = {"connect", "handshake",
						 "firstByte", NULL};
	static const char *const hsum_keys[] = {"count", "mean", "p50", "p90",
						"p99", "max", NULL};
	j_keys(root, "setupTimings", setup_keys);
	j_keys(root, "setupTimings/connect", hsum_keys);
	j_int(root, "setupTimings/connect/count", 60);
	j_real(root, "setupTimings/connect/mean", 0.00012);
	j_real(root, "setupTimings/connect/p50", 0.0001);
	j_real(root, "setupTimings/connect/p90", 0.0003);
	j_real(root, "setupTimings/connect/p99", 0.0008);
	j_real(root, "setupTimings/connect/max", 0.0009);
	j_null(root, "setupTimings/handshake");
	j_int(root, "setupTimings/firstByte/count", 9990);
	j_null(root, "label");
	j_null(root, "shard");
	j_null(root, "openLoop");
	json_t *pl = jpath(root, "plugins");
	CU_ASSERT_EQUAL_FATAL(json_array_size(pl), 2);
	static const char *const plugin_keys[] = {"role", "name", "id",
						  "version", "abiMinor", "path",
						  NULL};
	j_keys(json_array_get(pl, 0), NULL, plugin_keys);
	j_str(json_array_get(pl, 0), "path", "/opt/shb/lib/shb/shb-proto-h1.so");
	j_str(json_array_get(pl, 0), "id", "org.shb.proto.h1");
	j_str(json_array_get(pl, 0), "version", "0.1.0");
	j_str(json_array_get(pl, 0), "role", "protocol");
	j_str(json_array_get(pl, 0), "name", "h1");
	j_int(json_array_get(pl, 0), "abiMinor", 2);
	j_null(json_array_get(pl, 1), "version");
	j_int(json_array_get(pl, 1), "abiMinor", 1);
	CU_ASSERT_EQUAL(json_array_size(jpath(root, "targets")), 0);
	check_latency(root, &basic_hist);
	json_decref(root);
	CU_ASSERT_FALSE(bad_ppm_asked);
}

static void test_json_v12full(void)
{
	json_t *root = run_json(&v12full_results, "v12full.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	j_keys(root, NULL, v12_open_top_keys);
	j_str(root, "label", "compare");
	j_int(root, "shard/index", 1);
	j_int(root, "shard/count", 3);
	j_real(root, "openLoop/rateTarget", 2000.0);
	json_t *st = jpath(root, "openLoop/stages");
	CU_ASSERT_EQUAL_FATAL(json_array_size(st), 2);
	j_real(json_array_get(st, 0), "durationSeconds", 10.0);
	j_real(json_array_get(st, 0), "rateFrom", 0.5);
	j_real(json_array_get(st, 0), "rateTo", 2000.0);
	j_int(root, "openLoop/requestsLate", 41);
	j_int(root, "openLoop/requestsUnsent", 3);
	j_real(root, "openLoop/scheduleLagMaxSeconds", 0.18);
	/* the run's percentiles, not the nine */
	static const char *const pk[] = {"p50", "p90", "p99", "p99.9",
					 "p99.999", NULL};
	j_keys(root, "latencySeconds/percentiles", pk);
	j_real(root, "latencySeconds/percentiles/p99.999", 0.249);
	j_keys(root, "latencyUncorrectedSeconds/percentiles", pk);
	j_real(root, "latencyUncorrectedSeconds/percentiles/p99", 0.005);
	j_real(root, "latencyUncorrectedSeconds/percentiles/p99.999", 0.0299);
	j_real(root, "latencyUncorrectedSeconds/max", 0.03);
	/* errors_ex: the application kind, with its sample */
	j_keys(root, "errors", v12_error_keys);
	j_int(root, "errors/timeout", 2);
	j_int(root, "errors/application", 10);
	j_str(root, "errorSamples/application", "grpc-status 14: unavailable");
	json_t *apps = jpath(root, "appOutcomes");
	CU_ASSERT_EQUAL_FATAL(json_array_size(apps), 3);
	static const char *const app_keys[] = {"space", "code", "ok", "count",
					       NULL};
	j_keys(json_array_get(apps, 1), NULL, app_keys);
	j_str(json_array_get(apps, 1), "space", "grpc");
	j_int(json_array_get(apps, 1), "code", 14);
	j_bool(json_array_get(apps, 1), "ok", 0);
	j_int(json_array_get(apps, 1), "count", 10);
	j_str(json_array_get(apps, 2), "space", "private:3");
	j_str(json_array_get(jpath(root, "errorCodes"), 1), "kind", "application");
	j_str(json_array_get(jpath(root, "errorCodes"), 1), "space", "h2");
	j_int(root, "setupTimings/handshake/count", 8);
	j_real(root, "setupTimings/handshake/p99", 0.0045);
	/* per target: the same fields as the run, after the target's own */
	json_t *tg = jpath(root, "targets");
	CU_ASSERT_EQUAL_FATAL(json_array_size(tg), 2);
	json_t *t0 = json_array_get(tg, 0), *t1 = json_array_get(tg, 1);
	static const char *const target_keys[] = {
		"index", "label", "url", "method", "weight", "weightShare",
		"requestShare", "durationSeconds", "interrupted", "requests", "requestsPerSec",
		"bytesReceived", "bytesReceivedPerSec", "bytesSent",
		"bytesSentPerSec", "connectionsOpened", "statusCodes", "errors",
		"errorSamples", "latencySeconds", "setupSeconds",
		"rxHeaderBytes", "rxBodyBytes", "rxHeaderBytesPerResponse",
		"rxBodyBytesPerResponse", "appOutcomes", "errorCodes",
		"latencyUncorrectedSeconds", "setupTimings", "histogramUnit",
		"latencyHistogram", "setupHistograms", NULL,
	};
	j_keys(t0, NULL, target_keys);
	j_int(t0, "index", 0);
	j_str(t0, "label", "bun");
	j_str(t0, "url", "https://a.test/rpc");
	j_int(t0, "weight", 1);
	/* intended 1 of 1 + 3; achieved 17500 of 17500 + 52522 requests */
	j_real(t0, "weightShare", 0.25);
	j_real(t0, "requestShare", 17500.0 / 70022.0);
	j_int(t0, "requests/ok", 17500);
	j_real(t0, "rxHeaderBytesPerResponse", 100.0);
	j_real(t0, "rxBodyBytesPerResponse", 50.0);
	j_null(t0, "latencyUncorrectedSeconds");
	/* t0 has no errors_ex array but a 1.2 size: seven kinds, all 0 */
	j_keys(t0, "errors", v12_error_keys);
	j_int(t1, "index", 1);
	j_str(t1, "url", "https://b.test/rpc");
	j_int(t1, "weight", 3);
	j_real(t1, "weightShare", 0.75);
	j_real(t1, "requestShare", 52522.0 / 70022.0);
	j_int(t1, "errors/application", 10);
	j_real(t1, "latencySeconds/percentiles/p99.999", 0.249);
	j_real(t1, "latencyUncorrectedSeconds/percentiles/p99.999", 0.0299);
	json_decref(root);
	CU_ASSERT_FALSE(bad_ppm_asked);
}

/* From a 1.2 core, the warm-up comes from the run info and the results,
 * even where the extension says otherwise. */
static void test_v12_warmup(void)
{
	ext_run.warmup_ns = 9000000000ull;
	ext_run.warmup_requests = 9;
	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &v12basic_results, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data,
		"Warm-up:       1.500s, 4321 requests, not counted below\n"));
	mem_free(&m);
	CU_ASSERT_EQUAL(run_reporter(P_CSV, "noheader", &v12basic_results, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, ",0.1.0,1500000000,4321,"));
	mem_free(&m);
	ext_run.warmup_ns = ext_run.warmup_requests = 0;
}

/* Open loop short of its rate: 10000 of 80022 due never sent (12.5 %,
 * over the 5 % of docs/reports.md) is marked in text and JSON; 3 of
 * 70025 is not. A run stopped during set-up says so on its Set-up line. */
static void test_v12_shortfall(void)
{
	struct shb_results r = v12full_results;
	struct membuf m = {0};
	r.requests_unsent = 10000;
	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "\nShortfall:     12.5% of the due "
		"requests never sent (1750.6 req/s sent): the rate asked was not "
		"reached (raise -c or -p)\n"));
	mem_free(&m);
	CU_ASSERT_EQUAL(run_reporter(P_JSON, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "\"shortfall\": true"));
	mem_free(&m);
	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &v12full_results, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NULL(strstr(m.data, "Shortfall:"));
	mem_free(&m);
	r = v12basic_results;
	r.elapsed_ns = 0;
	r.load_start_unix_ns = 0;
	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "\nSet-up:        0.052s, stopped "
				      "before the load started\n"));
	mem_free(&m);
}

/* --percentiles as the core hands it over; out-of-range and unsorted
 * entries are left out rather than asked of the histogram. */
static void test_v12_percentile_list(void)
{
	static const uint32_t ppm[] = {0, 500000, 400000, 999000, 999000,
				       1000001, 999990};
	struct shb_run_info run = v12full_run;
	run.percentiles_ppm = ppm;
	run.percentile_count = 7;
	struct shb_results r = v12full_results;
	r.run = &run;
	r.targets = NULL;
	r.target_count = 0;
	json_t *root = run_json(&r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	static const char *const pk[] = {"p50", "p99.9", "p99.999", NULL};
	j_keys(root, "latencySeconds/percentiles", pk);
	json_decref(root);
	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_reporter(P_CSV, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, ",latency_max_ns,latency_p50_ns,"
				      "latency_p99_9_ns,latency_p99_999_ns,status_2xx,"));
	mem_free(&m);
	CU_ASSERT_EQUAL(run_reporter(P_TEXT, NULL, &r, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "Latency distribution:\n"
				      "      50% in   1.500 ms\n"
				      "    99.9% in 200.000 ms\n"
				      "  99.999% in 249.000 ms\n"));
	mem_free(&m);
	CU_ASSERT_FALSE(bad_ppm_asked);
}

/* ---- registration ------------------------------------------------------------------------------ */

/* --interval: two interval deltas (the second one partial, with no
 * request ok) before the v12basic totals they add up to. JSON and CSV
 * print them after the totals; text takes none (no sample()). */
static const struct shb_hist ival_hist = {
	.count = 9989, .min = 60000, .max = 2900000, .mean = 220000,
	.stddev = 80000,
	.pct = {70000, 110000, 180000, 270000, 420000, 570000, 1000000,
		2300000, 2900000},
};
static struct shb_run_info ival_run;
static struct shb_results ival_total, ival_samples[2];

static void ival_fixture(void)
{
	ival_run = v12basic_run;
	ival_run.interval_ns = 1000000000ull;
	ival_total = v12basic_results;
	ival_total.run = &ival_run;
	static const struct shb_hist one = {
		.count = 1, .min = 50000, .max = 50000, .mean = 50000,
		.pct = {50000, 50000, 50000, 50000, 50000, 50000, 50000,
			50000, 50000},
	};
	struct shb_results a = {
		.struct_size = sizeof(struct shb_results),
		.kind = SHB_RESULTS_INTERVAL, .run = &ival_run,
		.elapsed_ns = 1000000000ull, .requests_total = 9995,
		.requests_ok = 9989, .requests_errors = 6,
		.bytes_sent = 559000, .bytes_received = 1523000,
		.latency = &ival_hist, .latency_uncorrected = &ival_hist,
		.connect = &empty_hist, .handshake = &empty_hist,
		.first_byte = &empty_hist,
		.interval_index = 0, .interval_start_ns = 0,
	};
	ival_samples[0] = a;
	a.elapsed_ns = 234000000;
	a.requests_total = 5;
	a.requests_ok = 1;
	a.requests_errors = 4;
	a.bytes_sent = 1000;
	a.bytes_received = 456;
	a.latency = a.latency_uncorrected = &one;
	a.interval_index = 1;
	a.interval_start_ns = 1000000000ull;
	ival_samples[1] = a;
}

/* create/begin/sample* /end/destroy, sample() as a reporter has it. */
static int run_with_samples(int which, const struct shb_results *total,
			    const struct shb_results *samples, size_t n,
			    struct membuf *m)
{
	const struct shb_report_desc *d = ready(which);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	struct shb_ostream os = {
		.struct_size = sizeof(os), .is_terminal = 0, .ctx = m,
		.write = mem_write,
	};
	void *rep = NULL;
	char err[256] = "";
	int rc = d->vt->create(&host, &os, NULL, &rep, err, sizeof(err));
	if (rc != SHB_OK)
		return rc;
	rc = d->vt->begin(rep, total->run);
	for (size_t i = 0; rc == SHB_OK && d->vt->sample && i < n; i++)
		rc = d->vt->sample(rep, &samples[i]);
	if (rc == SHB_OK)
		rc = d->vt->end(rep, total);
	d->vt->destroy(rep);
	return rc;
}

static void test_intervals(void)
{
	ival_fixture();
	/* Neither asks for samples by default: --interval turns them on. */
	CU_ASSERT_EQUAL(ready(P_JSON)->flags & SHB_REPORT_WANTS_INTERVALS, 0);
	CU_ASSERT_EQUAL(ready(P_CSV)->flags & SHB_REPORT_WANTS_INTERVALS, 0);
	CU_ASSERT_PTR_NULL(ready(P_TEXT)->vt->sample);
	struct membuf m = {0};
	CU_ASSERT_EQUAL(run_with_samples(P_CSV, &ival_total, ival_samples, 2, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	check_golden(&m, "intervals.csv");
	mem_free(&m);
	memset(&m, 0, sizeof(m));
	CU_ASSERT_EQUAL(run_with_samples(P_JSON, &ival_total, ival_samples, 2, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	check_golden(&m, "intervals.json");
	json_t *root = json_loadb(m.data, m.len, 0, NULL);
	mem_free(&m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	json_t *iv = json_object_get(root, "intervals");
	CU_ASSERT_EQUAL_FATAL(json_array_size(iv), 2);
	json_t *a = json_array_get(iv, 0), *b = json_array_get(iv, 1);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(a, "ok")) +
			json_integer_value(json_object_get(b, "ok")), 9990);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(a, "errors")) +
			json_integer_value(json_object_get(b, "errors")), 10);
	j_int(a, "index", 0);
	j_int(b, "index", 1);
	j_real(b, "startSeconds", 1.0);
	j_real(b, "durationSeconds", 0.234);
	j_real(a, "requestsPerSec", 9989.0);
	j_real(a, "latency/p99", 0.001);
	j_real(a, "latency/max", 0.0029);
	j_real(b, "latency/p50", 0.00005);
	json_decref(root);
	/* A sample() that is not an interval is refused. */
	const struct shb_report_desc *d = ready(P_JSON);
	struct shb_ostream os = {.struct_size = sizeof(os), .ctx = &m,
				 .write = mem_write};
	void *rep = NULL;
	char err[256];
	CU_ASSERT_EQUAL_FATAL(d->vt->create(&host, &os, NULL, &rep, err, sizeof(err)), SHB_OK);
	CU_ASSERT_EQUAL(d->vt->sample(rep, &ival_total), SHB_E_INVAL);
	d->vt->destroy(rep);
	mem_free(&m);
}

/* ---- a comparison (ABI 1.3) ----------------------------------------------------------- */

/* Two runs of one instance, as the core drives a comparison: create,
 * (begin, end) for each of the `n` runs given, destroy. `count` is the
 * comparison's size, so n < count is one cut short. */
static int run_compare(int which, const char *options,
		       const struct shb_results *const *r, uint32_t n,
		       struct membuf *m)
{
	const struct shb_report_desc *d = ready(which);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	struct shb_ostream os = {.struct_size = sizeof(os), .ctx = m,
				 .write = mem_write};
	void *rep = NULL;
	char err[256] = "";
	int rc = d->vt->create(&host, &os, options, &rep, err, sizeof(err));
	for (uint32_t i = 0; rc == SHB_OK && i < n; i++) {
		rc = d->vt->begin(rep, r[i]->run);
		if (rc == SHB_OK)
			rc = d->vt->end(rep, r[i]);
	}
	if (rep)
		d->vt->destroy(rep);
	return rc;
}

static struct shb_run_info cmp_run[2];
static struct shb_results cmp_res[2];
static const struct shb_hist cmp_hist2 = {
	.count = 5000, .min = 90000, .max = 9000000, .mean = 400000,
	.stddev = 200000,
	.pct = {100000, 150000, 300000, 450000, 700000, 900000, 2000000,
		5000000, 9000000},
};

/* bun then node: v12basic twice, the second slower with bigger headers. */
static void cmp_fixture(uint32_t count)
{
	static const char *const labels[2] = {"bun", "node"};
	static const char *const urls[2] = {"http://127.0.0.1:3000/",
					    "http://127.0.0.1:3001/"};
	for (int i = 0; i < 2; i++) {
		cmp_run[i] = v12basic_run;
		cmp_run[i].url = urls[i];
		cmp_run[i].label = labels[i];
		cmp_run[i].compare_index = (uint32_t)i;
		cmp_run[i].compare_count = count;
		cmp_res[i] = v12basic_results;
		cmp_res[i].run = &cmp_run[i];
	}
	cmp_res[1].requests_ok = 5000;
	cmp_res[1].requests_total = 5000;
	cmp_res[1].requests_errors = 0;
	cmp_res[1].error_count = 0;
	cmp_res[1].error_ex_count = 0;
	cmp_res[1].error_code_count = 0;
	cmp_res[1].status_count = 0;
	cmp_res[1].latency = &cmp_hist2;
	cmp_res[1].latency_uncorrected = &cmp_hist2;
	cmp_res[1].rx_header_bytes = 5000 * 151;
	cmp_res[1].rx_body_bytes = 5000 * 12;
	cmp_res[1].interrupted = 1;
}

static void test_compare(void)
{
	static const char *const golden[P_COUNT] = {"compare.txt", "compare.json",
						    "compare.csv"};
	const struct shb_results *r[2] = {&cmp_res[0], &cmp_res[1]};
	struct membuf m = {0};

	cmp_fixture(2);
	for (int p = 0; p < P_COUNT; p++) {
		memset(&m, 0, sizeof(m));
		CU_ASSERT_EQUAL(run_compare(p, NULL, r, 2, &m), SHB_OK);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
		check_golden(&m, golden[p]);
		mem_free(&m);
	}
	/* JSON: one array of the two documents, each with its place. */
	CU_ASSERT_EQUAL(run_compare(P_JSON, NULL, r, 2, &m), SHB_OK);
	json_t *root = json_loadb(m.data, m.len, 0, NULL);
	mem_free(&m);
	CU_ASSERT_FATAL(json_is_array(root) && json_array_size(root) == 2);
	json_t *a = json_array_get(root, 0), *b = json_array_get(root, 1);
	j_str(a, "label", "bun");
	j_int(a, "compare/index", 0);
	j_int(a, "compare/count", 2);
	j_str(b, "label", "node");
	j_int(b, "compare/index", 1);
	j_real(b, "rxHeaderBytesPerResponse", 151.0);
	json_decref(root);
	/* compact: the array on one line. */
	CU_ASSERT_EQUAL(run_compare(P_JSON, "compact", r, 2, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_EQUAL(m.data[0], '[');
	CU_ASSERT_PTR_EQUAL(strchr(m.data, '\n'), m.data + m.len - 1);
	root = json_loadb(m.data, m.len, 0, NULL);
	CU_ASSERT(json_is_array(root) && json_array_size(root) == 2);
	json_decref(root);
	mem_free(&m);

	/* Cut short after the first of three: the array is closed, the
	 * table holds the run that ended. */
	cmp_fixture(3);
	CU_ASSERT_EQUAL(run_compare(P_JSON, NULL, r, 1, &m), SHB_OK);
	root = json_loadb(m.data, m.len, 0, NULL);
	CU_ASSERT(json_is_array(root) && json_array_size(root) == 1);
	json_decref(root);
	mem_free(&m);
	CU_ASSERT_EQUAL(run_compare(P_TEXT, NULL, r, 1, &m), SHB_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.data);
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "== Run 1 of 3 ==\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m.data, "\nComparison (1 runs, one after another):\n"));
	mem_free(&m);

	/* Outside a comparison (count 0 or 1) nothing changes: no array, no
	 * compare key, no heading. */
	cmp_fixture(1);
	CU_ASSERT_EQUAL(run_compare(P_JSON, NULL, r, 1, &m), SHB_OK);
	root = json_loadb(m.data, m.len, 0, NULL);
	CU_ASSERT(json_is_object(root) && !json_object_get(root, "compare"));
	json_decref(root);
	mem_free(&m);
	CU_ASSERT_EQUAL(run_compare(P_TEXT, NULL, r, 1, &m), SHB_OK);
	CU_ASSERT_PTR_NULL(strstr(m.data, "== Run"));
	CU_ASSERT_PTR_NULL(strstr(m.data, "Comparison"));
	mem_free(&m);
}

static CU_TestInfo report_tests[] = {
	{"entry and init (runs first)", test_entry_and_init},
	{"only the entry is exported", test_only_entry_exported},
	{"text basic (golden)", test_text_basic},
	{"text allkinds (golden)", test_text_allkinds},
	{"text empty (golden)", test_text_empty},
	{"csv basic (golden)", test_csv_basic},
	{"csv allkinds (golden)", test_csv_allkinds},
	{"csv empty (golden)", test_csv_empty},
	{"csv quoting (golden)", test_csv_quoting},
	{"json basic (fields, golden)", test_json_basic},
	{"json allkinds (fields, golden)", test_json_allkinds},
	{"json empty (fields, golden)", test_json_empty},
	{"options", test_options},
	{"csv noheader", test_csv_noheader},
	{"json compact", test_json_compact},
	{"bad create, begin and end input", test_bad_create_and_results},
	{"failing writes", test_write_fails},
	{"short writes", test_short_writes},
	{"unknown kinds and modes", test_unknown_kinds_and_modes},
	{"hostile strings", test_hostile_strings},
	{"warm-up and start time", test_warmup_and_start},
	{"1.1 sizes hide the 1.2 members (1.1 goldens)", test_v11_sizes_hide_v12},
	{"text v12basic (golden)", test_text_v12basic},
	{"text v12full (golden)", test_text_v12full},
	{"csv v12basic (golden)", test_csv_v12basic},
	{"csv v12full (golden)", test_csv_v12full},
	{"json v12basic (fields, golden)", test_json_v12basic},
	{"json v12full (fields, golden)", test_json_v12full},
	{"open loop shortfall, stopped in set-up", test_v12_shortfall},
	{"1.2 NULL arrays read as absent", test_v12_null_arrays},
	{"1.2 warm-up over the extension", test_v12_warmup},
	{"1.2 percentile list", test_v12_percentile_list},
	{"intervals (csv, json goldens)", test_intervals},
	{"a comparison (1.3; goldens)", test_compare},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"report", suite_init, suite_clean, NULL, NULL, report_tests},
	CU_SUITE_INFO_NULL,
};
