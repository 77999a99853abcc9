/* The fixed results the reporter tests feed (report_fixtures.h). */
#include "report_fixtures.h"

#include <stddef.h>

/* basic, allkinds and empty are what a 1.1 core hands over: its smaller
 * structs end before every 1.2 member, and their goldens are the 1.1
 * reporters' output, byte for byte. */
_Static_assert(offsetof(struct shb_results, latency_uncorrected) ==
	       RESULTS_1_1_SIZE, "1.1 results end at latency_uncorrected");
_Static_assert(offsetof(struct shb_run_info, shard_index) == RUN_INFO_1_1_SIZE,
	       "1.1 run info ends at shard_index");

/* basic: a plain HTTP/1.1 run with a few connect and read errors. */
const struct shb_run_info basic_run = {
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
const struct shb_hist basic_hist = {
	.count = 1000, .min = 70000, .max = 3100000, .mean = 250000,
	.stddev = 100000,
	/* 80500 ns checks rounding half up to 0.081 ms */
	.pct = {80500, 120000, 200000, 300000, 450000, 600000, 1200000,
		2500000, 3100000},
};
const struct shb_results basic_results = {
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
const struct shb_run_info all_run = {
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
const struct shb_hist all_hist = {
	.count = 50129, .min = 1500000, .max = 1234567890, .mean = 23456789,
	.stddev = 12345678,
	.pct = {2000000, 5000000, 15000000, 30000000, 60000000, 90000000,
		250000000, 900000000, 1234567890},
};
const struct shb_results all_results = {
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
const struct shb_hist empty_hist = {0};
const struct shb_results empty_results = {
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
const struct shb_run_info v12basic_run = {
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
const struct shb_results v12basic_results = {
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
const struct shb_run_info v12full_run = {
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
const struct shb_results v12full_results = {
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
