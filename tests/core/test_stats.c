/* The core's counting rules (core/results/stats.c) and the results view built over
 * them (core/results/results.c), without a worker: what a request's result adds
 * where, application outcomes, the bounded tables, and the identities a
 * reporter relies on (requests_total == ok + errors == ok + the sum over
 * errors_ex; `errors` holds only the six kinds of ABI 1.1). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include <shb/shb.h>

#include "results/results.h"
#include "results/stats.h"

#define T0 1000000000ull /* a request's send time */

static struct shb_stats st;

static int stats_setup(void)
{
	return shb_stats_init(&st);
}

static int stats_teardown(void)
{
	shb_stats_destroy(&st);
	return 0;
}

/* A response: status 200, 100 head + 13 body bytes, first byte at +1 ms. */
static struct shb_req_result response(void)
{
	struct shb_req_result r;
	memset(&r, 0, sizeof(r));
	r.struct_size = sizeof(r);
	r.outcome = SHB_REQ_OK;
	r.status = 200;
	r.rx_header_bytes = 100;
	r.rx_body_bytes = 13;
	r.ts_first_byte = T0 + 1000000;
	return r;
}

static uint64_t ops_count(const struct shb_hist *h)
{
	return shb_histo_ops.count(h);
}

static void test_plain_response(void)
{
	shb_stats_reset(&st);
	struct shb_req_result r = response();
	CU_ASSERT_EQUAL(shb_stats_response(&st, &r, T0, T0 + 3000000), 1);
	CU_ASSERT_EQUAL(st.ok, 1);
	CU_ASSERT_EQUAL(st.errors, 0);
	CU_ASSERT_EQUAL(st.status[200], 1);
	CU_ASSERT_EQUAL(st.rx_header_bytes, 100);
	CU_ASSERT_EQUAL(st.rx_body_bytes, 13);
	CU_ASSERT_EQUAL(shb_histo_count(&st.latency), 1);
	CU_ASSERT_EQUAL(shb_histo_min(&st.latency), 3000000);
	CU_ASSERT_EQUAL(shb_histo_count(&st.first_byte), 1);
	CU_ASSERT_EQUAL(shb_histo_min(&st.first_byte), 1000000);
	CU_ASSERT_EQUAL(st.napp, 0);
}

/* No first byte seen (0 as 1.1 plugins leave it, or NONE), or a time
 * before the send: the request stays out of first_byte, not of latency. */
static void test_first_byte_left_out(void)
{
	shb_stats_reset(&st);
	shb_tstamp bad[] = {0, SHB_TSTAMP_NONE, T0 - 1};
	for (size_t i = 0; i < 3; i++) {
		struct shb_req_result r = response();
		r.ts_first_byte = bad[i];
		CU_ASSERT_EQUAL(shb_stats_response(&st, &r, T0, T0 + 10), 1);
	}
	CU_ASSERT_EQUAL(shb_histo_count(&st.latency), 3);
	CU_ASSERT_EQUAL(shb_histo_count(&st.first_byte), 0);
	/* the send time itself is a first byte after 0 ns */
	struct shb_req_result r = response();
	r.ts_first_byte = T0;
	shb_stats_response(&st, &r, T0, T0 + 10);
	CU_ASSERT_EQUAL(shb_histo_count(&st.first_byte), 1);
}

static void test_app_ok_and_error(void)
{
	shb_stats_reset(&st);
	struct shb_req_result r = response();
	r.app_space = SHB_APPSPACE_GRPC;
	r.app_code = 0;
	r.app_ok = 1;
	CU_ASSERT_EQUAL(shb_stats_response(&st, &r, T0, T0 + 5), 1);
	r.app_code = 14;
	r.app_ok = 0;
	r.detail = "grpc-status 14: unavailable";
	CU_ASSERT_EQUAL(shb_stats_response(&st, &r, T0, T0 + 5), 0);
	CU_ASSERT_EQUAL(shb_stats_response(&st, &r, T0, T0 + 5), 0);
	/* only app_ok == 1 is success */
	r.app_ok = 2;
	r.detail = NULL;
	CU_ASSERT_EQUAL(shb_stats_response(&st, &r, T0, T0 + 5), 0);

	CU_ASSERT_EQUAL(st.ok, 1);
	CU_ASSERT_EQUAL(st.errors, 3);
	CU_ASSERT_EQUAL(st.err_kind[SHB_ERRK_APPLICATION], 3);
	CU_ASSERT_STRING_EQUAL(st.err_sample[SHB_ERRK_APPLICATION],
			       "grpc-status 14: unavailable");
	/* every response with a status is in the statuses, errors too */
	CU_ASSERT_EQUAL(st.status[200], 4);
	/* latency and first byte: the request counted ok only */
	CU_ASSERT_EQUAL(shb_histo_count(&st.latency), 1);
	CU_ASSERT_EQUAL(shb_histo_count(&st.first_byte), 1);
	/* bytes: of the request counted ok only */
	CU_ASSERT_EQUAL(st.rx_body_bytes, 13);
	CU_ASSERT_EQUAL_FATAL(st.napp, 2);
	CU_ASSERT_EQUAL(st.app[0].space, SHB_APPSPACE_GRPC);
	CU_ASSERT_EQUAL(st.app[0].code, 0);
	CU_ASSERT_EQUAL(st.app[0].ok, 1);
	CU_ASSERT_EQUAL(st.app[0].count, 1);
	CU_ASSERT_EQUAL(st.app[1].code, 14);
	CU_ASSERT_EQUAL(st.app[1].ok, 0);
	CU_ASSERT_EQUAL(st.app[1].count, 3);
}

/* A protocol without HTTP status (WebSocket): status 0 is fine with an app
 * outcome, and is never a status code of the report. Without a detail the
 * sample names the outcome. */
static void test_app_without_status(void)
{
	shb_stats_reset(&st);
	struct shb_req_result r = response();
	r.status = 0;
	r.app_space = SHB_APPSPACE_WEBSOCKET;
	r.app_code = 1000;
	r.app_ok = 1;
	CU_ASSERT_EQUAL(shb_stats_response(&st, &r, T0, T0 + 5), 1);
	r.app_code = 1011;
	r.app_ok = 0;
	CU_ASSERT_EQUAL(shb_stats_response(&st, &r, T0, T0 + 5), 0);
	CU_ASSERT_EQUAL(st.ok, 1);
	CU_ASSERT_EQUAL(st.errors, 1);
	CU_ASSERT_EQUAL(st.status[0], 0);
	CU_ASSERT_STRING_EQUAL(st.err_sample[SHB_ERRK_APPLICATION],
			       "application outcome 2:1011");
	struct shb_results_buf b;
	shb_results_build(&b, &st, NULL, 1, 0);
	CU_ASSERT_EQUAL(b.r.status_count, 0);
}

/* A result written by a 1.1 plugin ends before app_space: whatever lies
 * beyond its struct_size is not read. */
static void test_result_from_1_1_plugin(void)
{
	shb_stats_reset(&st);
	struct shb_req_result r = response();
	r.struct_size = offsetof(struct shb_req_result, app_space);
	r.app_space = SHB_APPSPACE_GRPC; /* garbage to a 1.1 reader */
	r.app_ok = 0;
	CU_ASSERT_EQUAL(shb_stats_response(&st, &r, T0, T0 + 5), 1);
	CU_ASSERT_EQUAL(st.ok, 1);
	CU_ASSERT_EQUAL(st.errors, 0);
	CU_ASSERT_EQUAL(st.napp, 0);
}

static void test_failed_codes(void)
{
	shb_stats_reset(&st);
	struct shb_req_result r;
	memset(&r, 0, sizeof(r));
	r.struct_size = sizeof(r);
	r.outcome = SHB_REQ_RESET;
	r.err_space = SHB_ERRSPACE_H2;
	r.err_code = 8; /* CANCEL */
	r.rx_header_bytes = 9;
	shb_stats_failed(&st, &r, SHB_ERRK_PROTOCOL, "stream reset");
	shb_stats_failed(&st, &r, SHB_ERRK_PROTOCOL, "stream reset again");
	r.outcome = SHB_REQ_PROTO_ERROR;
	r.err_space = SHB_ERRSPACE_H3;
	r.err_code = 0x101;
	shb_stats_failed(&st, &r, SHB_ERRK_PROTOCOL, "bad frame");
	/* a lost connection's space is not a code the peer gave */
	r.outcome = SHB_REQ_CONN_LOST;
	shb_stats_failed(&st, &r, SHB_ERRK_READ, "lost");
	/* no code without a space */
	r.outcome = SHB_REQ_RESET;
	r.err_space = SHB_ERRSPACE_NONE;
	shb_stats_failed(&st, &r, SHB_ERRK_PROTOCOL, NULL);
	/* a connection-level code (a CONN_ERROR event) is not an error */
	shb_stats_code(&st, SHB_ERRK_TLS, SHB_ERRSPACE_TLS_ALERT, 40);

	CU_ASSERT_EQUAL(st.errors, 5);
	CU_ASSERT_EQUAL(st.err_kind[SHB_ERRK_PROTOCOL], 4);
	CU_ASSERT_EQUAL(st.err_kind[SHB_ERRK_READ], 1);
	CU_ASSERT_STRING_EQUAL(st.err_sample[SHB_ERRK_PROTOCOL], "stream reset");
	/* failed requests add no response bytes */
	CU_ASSERT_EQUAL(st.rx_header_bytes, 0);
	CU_ASSERT_EQUAL_FATAL(st.ncode, 3);
	CU_ASSERT_EQUAL(st.code[0].kind, SHB_ERRK_PROTOCOL);
	CU_ASSERT_EQUAL(st.code[0].space, SHB_ERRSPACE_H2);
	CU_ASSERT_EQUAL(st.code[0].code, 8);
	CU_ASSERT_EQUAL(st.code[0].count, 2);
	CU_ASSERT_EQUAL(st.code[1].space, SHB_ERRSPACE_H3);
	CU_ASSERT_EQUAL(st.code[1].code, 0x101);
	CU_ASSERT_EQUAL(st.code[1].count, 1);
	CU_ASSERT_EQUAL(st.code[2].kind, SHB_ERRK_TLS);
	CU_ASSERT_EQUAL(st.code[2].count, 1);
}

/* 70 distinct outcomes: the first 64 keep their own entry, the rest share
 * the overflow entry of their ok-ness (or kind); no count is lost. */
static void test_table_caps(void)
{
	shb_stats_reset(&st);
	for (uint64_t code = 0; code < 70; code++) {
		shb_stats_app(&st, SHB_APPSPACE_PRIVATE, code, code % 2);
		shb_stats_app(&st, SHB_APPSPACE_PRIVATE, code, code % 2);
		shb_stats_code(&st, SHB_ERRK_PROTOCOL, SHB_ERRSPACE_H2, code);
	}
	CU_ASSERT_EQUAL(st.napp, SHB_TABLE_CAP);
	CU_ASSERT_EQUAL(st.app_over[0], 6); /* codes 64, 66, 68, twice each */
	CU_ASSERT_EQUAL(st.app_over[1], 6);
	CU_ASSERT_EQUAL(st.ncode, SHB_TABLE_CAP);
	CU_ASSERT_EQUAL(st.code_over[SHB_ERRK_PROTOCOL], 6);
	/* an entry already in the table still counts there */
	shb_stats_app(&st, SHB_APPSPACE_PRIVATE, 63, 1);
	CU_ASSERT_EQUAL(st.app[63].count, 3);

	struct shb_results_buf b;
	shb_results_build(&b, &st, NULL, 1, 0);
	CU_ASSERT_EQUAL_FATAL(b.r.app_outcome_count, SHB_TABLE_CAP + 2);
	/* sorted by space, code, ok: the overflow entries (space NONE) first */
	CU_ASSERT_EQUAL(b.r.app_outcomes[0].space, SHB_OVERFLOW_SPACE);
	CU_ASSERT_EQUAL(b.r.app_outcomes[0].code, SHB_OVERFLOW_CODE);
	CU_ASSERT_EQUAL(b.r.app_outcomes[0].ok, 0);
	CU_ASSERT_EQUAL(b.r.app_outcomes[1].ok, 1);
	uint64_t sum = 0;
	for (size_t i = 0; i < b.r.app_outcome_count; i++) {
		sum += b.r.app_outcomes[i].count;
		if (i > 2)
			CU_ASSERT(b.r.app_outcomes[i - 1].code < b.r.app_outcomes[i].code);
	}
	CU_ASSERT_EQUAL(sum, 141);
	CU_ASSERT_EQUAL_FATAL(b.r.error_code_count, SHB_TABLE_CAP + 1);
	CU_ASSERT_EQUAL(b.r.error_codes[0].kind, SHB_ERRK_PROTOCOL);
	CU_ASSERT_EQUAL(b.r.error_codes[0].space, SHB_OVERFLOW_SPACE);
	CU_ASSERT_EQUAL(b.r.error_codes[0].count, 6);
	CU_ASSERT_EQUAL(b.r.error_codes[1].code, 0);
	CU_ASSERT_EQUAL(b.r.error_codes[SHB_TABLE_CAP].code, 63);
}

/* Workers' tables merge by key; what the merged table has no room for goes
 * to its overflow entries. Histograms merge bucket by bucket. */
static void test_merge(void)
{
	struct shb_stats a, b;
	CU_ASSERT_EQUAL_FATAL(shb_stats_init(&a), 0);
	CU_ASSERT_EQUAL_FATAL(shb_stats_init(&b), 0);
	for (uint64_t code = 0; code < 40; code++)
		shb_stats_app(&a, SHB_APPSPACE_GRPC, code, code == 0);
	for (uint64_t code = 20; code < 60; code++) /* 20 shared, 20 new */
		shb_stats_app(&b, SHB_APPSPACE_GRPC, code, 0);
	for (uint64_t code = 100; code < 110; code++) /* 10 more: 4 fit */
		shb_stats_app(&b, SHB_APPSPACE_GRPC, code, 0);
	b.app_over[1] = 5;
	shb_stats_code(&a, SHB_ERRK_PROTOCOL, SHB_ERRSPACE_H2, 2);
	shb_stats_code(&b, SHB_ERRK_PROTOCOL, SHB_ERRSPACE_H2, 2);
	shb_stats_code(&b, SHB_ERRK_TLS, SHB_ERRSPACE_TLS_ALERT, 40);
	shb_stats_error(&a, SHB_ERRK_APPLICATION, NULL);
	shb_stats_error(&b, SHB_ERRK_APPLICATION, "from b");
	shb_histo_record(&a.connect, 1000);
	shb_histo_record(&b.connect, 2000);
	shb_histo_record(&b.handshake, 3000);
	shb_histo_record(&b.first_byte, 4000);
	b.rx_body_bytes = 7;
	b.rx_header_bytes = 11;

	shb_stats_merge(&a, &b);
	CU_ASSERT_EQUAL(a.napp, SHB_TABLE_CAP);
	CU_ASSERT_EQUAL(a.app[20].count, 2);
	CU_ASSERT_EQUAL(a.app_over[0], 6);
	CU_ASSERT_EQUAL(a.app_over[1], 5);
	CU_ASSERT_EQUAL_FATAL(a.ncode, 2);
	CU_ASSERT_EQUAL(a.code[0].count, 2);
	CU_ASSERT_EQUAL(a.code[1].kind, SHB_ERRK_TLS);
	CU_ASSERT_EQUAL(a.errors, 2);
	CU_ASSERT_EQUAL(a.err_kind[SHB_ERRK_APPLICATION], 2);
	CU_ASSERT_STRING_EQUAL(a.err_sample[SHB_ERRK_APPLICATION], "from b");
	CU_ASSERT_EQUAL(shb_histo_count(&a.connect), 2);
	CU_ASSERT_EQUAL(shb_histo_max(&a.connect), 2000);
	CU_ASSERT_EQUAL(shb_histo_count(&a.handshake), 1);
	CU_ASSERT_EQUAL(shb_histo_count(&a.first_byte), 1);
	CU_ASSERT_EQUAL(a.rx_body_bytes, 7);
	CU_ASSERT_EQUAL(a.rx_header_bytes, 11);
	shb_stats_destroy(&a);
	shb_stats_destroy(&b);
}

/* The identities of the results view. */
static void test_results_identities(void)
{
	shb_stats_reset(&st);
	struct shb_req_result r = response();
	for (int i = 0; i < 5; i++)
		shb_stats_response(&st, &r, T0, T0 + 2000);
	r.app_space = SHB_APPSPACE_GRPC;
	r.app_code = 5;
	r.app_ok = 0;
	r.detail = "not found";
	shb_stats_response(&st, &r, T0, T0 + 2000);
	shb_stats_response(&st, &r, T0, T0 + 2000);
	shb_stats_error(&st, SHB_ERRK_CONNECT, "connect: refused");
	shb_stats_error(&st, SHB_ERRK_TIMEOUT, "timed out");
	shb_stats_error(&st, SHB_ERRK_TIMEOUT, NULL);
	shb_histo_record(&st.connect, 5000);
	st.retried = 4;

	struct shb_run_info info = {.struct_size = sizeof(info)};
	struct shb_results_buf b;
	shb_results_build(&b, &st, &info, 2000000000, 1);
	const struct shb_results *res = &b.r;
	CU_ASSERT_EQUAL(res->struct_size, sizeof(*res));
	CU_ASSERT_PTR_EQUAL(res->run, &info);
	CU_ASSERT_EQUAL(res->interrupted, 1);
	CU_ASSERT_EQUAL(res->elapsed_ns, 2000000000);
	CU_ASSERT_EQUAL(res->requests_ok, 5);
	CU_ASSERT_EQUAL(res->requests_errors, 5);
	CU_ASSERT_EQUAL(res->requests_total, 10);
	CU_ASSERT_EQUAL(res->requests_retried, 4);
	uint64_t ex = 0, old = 0;
	for (size_t i = 0; i < res->error_ex_count; i++)
		ex += res->errors_ex[i].count;
	for (size_t i = 0; i < res->error_count; i++) {
		CU_ASSERT(res->errors[i].kind < SHB_ERRK_COUNT);
		old += res->errors[i].count;
	}
	CU_ASSERT_EQUAL(ex, res->requests_errors);
	CU_ASSERT_EQUAL(res->requests_total, res->requests_ok + ex);
	CU_ASSERT_EQUAL(old, 3); /* without the 2 application errors */
	CU_ASSERT_EQUAL_FATAL(res->error_count, 2);
	CU_ASSERT_EQUAL(res->errors[0].kind, SHB_ERRK_CONNECT);
	CU_ASSERT_STRING_EQUAL(res->errors[0].sample, "connect: refused");
	CU_ASSERT_EQUAL(res->errors[1].kind, SHB_ERRK_TIMEOUT);
	CU_ASSERT_EQUAL(res->errors[1].count, 2);
	CU_ASSERT_EQUAL_FATAL(res->error_ex_count, 3);
	CU_ASSERT_EQUAL(res->errors_ex[2].kind, SHB_ERRK_APPLICATION);
	CU_ASSERT_EQUAL(res->errors_ex[2].count, 2);
	CU_ASSERT_STRING_EQUAL(res->errors_ex[2].sample, "not found");
	CU_ASSERT_EQUAL_FATAL(res->status_count, 1);
	CU_ASSERT_EQUAL(res->statuses[0].code, 200);
	CU_ASSERT_EQUAL(res->statuses[0].count, 7);
	CU_ASSERT_EQUAL_FATAL(res->app_outcome_count, 1);
	CU_ASSERT_EQUAL(res->app_outcomes[0].code, 5);
	CU_ASSERT_EQUAL(res->app_outcomes[0].count, 2);
	/* response bytes of the 5 requests counted ok */
	CU_ASSERT_EQUAL(res->rx_header_bytes, 5 * 100);
	CU_ASSERT_EQUAL(res->rx_body_bytes, 5 * 13);
	/* histograms: never NULL; the uncorrected latency is latency */
	CU_ASSERT_PTR_NOT_NULL_FATAL(res->latency);
	CU_ASSERT_PTR_EQUAL(res->latency_uncorrected, res->latency);
	CU_ASSERT_EQUAL(ops_count(res->latency), 5);
	CU_ASSERT_EQUAL(ops_count(res->first_byte), 5);
	CU_ASSERT_EQUAL(ops_count(res->connect), 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(res->handshake);
	CU_ASSERT_EQUAL(ops_count(res->handshake), 0);
	CU_ASSERT_EQUAL(res->target_count, 0);
	CU_ASSERT_PTR_NULL(res->targets);
}

/* The end of --warmup: nothing recorded stays, the histograms still work. */
static void test_reset(void)
{
	struct shb_req_result r = response();
	r.app_space = SHB_APPSPACE_GRPC;
	r.app_ok = 1;
	shb_stats_response(&st, &r, T0, T0 + 5);
	shb_stats_code(&st, SHB_ERRK_PROTOCOL, SHB_ERRSPACE_H2, 1);
	shb_histo_record(&st.handshake, 9);
	shb_stats_reset(&st);
	CU_ASSERT_EQUAL(st.ok + st.errors + st.napp + st.ncode, 0);
	CU_ASSERT_EQUAL(st.rx_body_bytes, 0);
	CU_ASSERT_EQUAL(shb_histo_count(&st.latency) + shb_histo_count(&st.first_byte) +
			shb_histo_count(&st.connect) + shb_histo_count(&st.handshake), 0);
	shb_histo_record(&st.handshake, 9);
	CU_ASSERT_EQUAL(shb_histo_count(&st.handshake), 1);
}

static void test_run_info(void)
{
	struct shb_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.url_text = (char *)"https://example.com/x";
	cfg.method = (char *)"POST";
	cfg.warmup_ns = 3000000000ull;
	struct shb_run_info info;
	struct shb_target_info t;
	memset(&info, 0xff, sizeof(info));
	info.plugins = NULL;
	shb_results_run_info(&info, &t, &cfg, cfg.url_text);
	CU_ASSERT_EQUAL(info.shard_index, 0);
	CU_ASSERT_EQUAL(info.shard_count, 1);
	CU_ASSERT_EQUAL(info.rate_milli, 0);
	CU_ASSERT_PTR_NULL(info.stages);
	CU_ASSERT_EQUAL(info.stage_count, 0);
	CU_ASSERT_EQUAL(info.warmup_ns, 3000000000ull);
	CU_ASSERT_EQUAL(info.interval_ns, 0);
	CU_ASSERT_PTR_NULL(info.label);
	CU_ASSERT_PTR_NULL(info.plugins); /* left alone */
	CU_ASSERT_EQUAL_FATAL(info.target_count, 1);
	CU_ASSERT_PTR_EQUAL(info.targets, &t);
	CU_ASSERT_STRING_EQUAL(t.label, "https://example.com/x");
	CU_ASSERT_STRING_EQUAL(t.url, "https://example.com/x");
	CU_ASSERT_STRING_EQUAL(t.method, "POST");
	CU_ASSERT_EQUAL(t.weight, 1);
	CU_ASSERT_EQUAL(t.origin, 0);
	/* the nine percentiles the reporters print */
	static const uint32_t want[] = {100000, 250000, 500000, 750000, 900000,
					950000, 990000, 999000, 999900};
	CU_ASSERT_EQUAL_FATAL(info.percentile_count, 9);
	CU_ASSERT_EQUAL(memcmp(info.percentiles_ppm, want, sizeof(want)), 0);
}

/* Open loop: latency from the intended start, the uncorrected one from
 * the send, first byte from the send; the schedule counters merge (late
 * and unsent add up, the lag is the largest) and survive into the
 * results; reset keeps the mode. Closed loop: one histogram. */
static void test_open_loop(void)
{
	struct shb_stats a, b;
	CU_ASSERT_EQUAL_FATAL(shb_stats_init(&a), 0);
	CU_ASSERT_EQUAL_FATAL(shb_stats_init(&b), 0);
	a.open_loop = b.open_loop = 1;
	struct shb_req_result r = response();
	/* due at T0 - 7 ms, sent at T0, done 3 ms later */
	CU_ASSERT_EQUAL(shb_stats_response_at(&a, &r, T0 - 7000000, T0, T0 + 3000000), 1);
	CU_ASSERT_EQUAL(shb_histo_count(&a.latency), 1);
	CU_ASSERT_EQUAL(shb_histo_count(&a.latency_uncorrected), 1);
	CU_ASSERT(shb_histo_max(&a.latency) >= 9990000 && shb_histo_max(&a.latency) <= 10010000);
	CU_ASSERT(shb_histo_max(&a.latency_uncorrected) >= 2997000 &&
		  shb_histo_max(&a.latency_uncorrected) <= 3003000);
	CU_ASSERT(shb_histo_max(&a.first_byte) >= 999000 &&
		  shb_histo_max(&a.first_byte) <= 1001000);
	a.late = 2;
	a.unsent = 1;
	a.lag_max = 7000000;
	b.late = 3;
	b.unsent = 4;
	b.lag_max = 9000000;
	shb_stats_response_at(&b, &r, T0, T0, T0 + 5);
	shb_stats_merge(&a, &b);
	CU_ASSERT_EQUAL(a.late, 5);
	CU_ASSERT_EQUAL(a.unsent, 5);
	CU_ASSERT_EQUAL(a.lag_max, 9000000);
	CU_ASSERT_EQUAL(shb_histo_count(&a.latency_uncorrected), 2);

	struct shb_run_info info;
	memset(&info, 0, sizeof(info));
	static struct shb_results_buf rb;
	shb_results_build(&rb, &a, &info, 1000000000, 0);
	CU_ASSERT_PTR_NOT_EQUAL(rb.r.latency_uncorrected, rb.r.latency);
	CU_ASSERT_EQUAL(ops_count(rb.r.latency_uncorrected), 2);
	CU_ASSERT_EQUAL(rb.r.requests_late, 5);
	CU_ASSERT_EQUAL(rb.r.requests_unsent, 5);
	CU_ASSERT_EQUAL(rb.r.schedule_lag_max_ns, 9000000);

	shb_stats_reset(&a);
	CU_ASSERT_EQUAL(a.open_loop, 1);
	CU_ASSERT_EQUAL(a.late + a.unsent + a.lag_max, 0);
	CU_ASSERT_EQUAL(shb_histo_count(&a.latency_uncorrected), 0);

	/* closed loop: the uncorrected histogram stays empty and the results
	 * point both members at latency */
	b.open_loop = 0;
	shb_stats_reset(&b);
	shb_stats_response_at(&b, &r, T0 - 7000000, T0, T0 + 5);
	CU_ASSERT_EQUAL(shb_histo_count(&b.latency_uncorrected), 0);
	shb_results_build(&rb, &b, &info, 1000000000, 0);
	CU_ASSERT_PTR_EQUAL(rb.r.latency_uncorrected, rb.r.latency);
	CU_ASSERT_EQUAL(rb.r.requests_late + rb.r.requests_unsent, 0);
	shb_stats_destroy(&a);
	shb_stats_destroy(&b);
}

static void test_run_info_open_loop(void)
{
	struct shb_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.url_text = (char *)"http://example.com/";
	cfg.method = (char *)"GET";
	struct shb_stage stg[2] = {{1000, 0, 5000}, {2000, 5000, 0}};
	cfg.rate_milli = 0;
	cfg.stages = stg;
	cfg.stage_count = 2;
	struct shb_run_info info;
	struct shb_target_info t;
	memset(&info, 0, sizeof(info));
	shb_results_run_info(&info, &t, &cfg, cfg.url_text);
	CU_ASSERT_PTR_EQUAL(info.stages, stg);
	CU_ASSERT_EQUAL(info.stage_count, 2);
	CU_ASSERT_EQUAL(info.rate_milli, 0);
	cfg.stages = NULL;
	cfg.stage_count = 0;
	cfg.rate_milli = 2500;
	shb_results_run_info(&info, &t, &cfg, cfg.url_text);
	CU_ASSERT_EQUAL(info.rate_milli, 2500);
	CU_ASSERT_PTR_NULL(info.stages);
	CU_ASSERT_EQUAL(info.stage_count, 0);
}

/* ABI 1.4 run facts: the protocol's request model and outcome names, the
 * success set as text, the proxy used, the routing options as typed; a
 * protocol of request model NONE shows no method. */
static void test_run_facts(void)
{
	static const struct shb_outcome_code codes[] = {
		{0, "ok", 1, 0}, {0, NULL, 0, 0}};
	static const struct shb_outcome_space spaces[] = {
		{SHB_APPSPACE_PRIVATE + 1, 0, "line", codes}, {0, 0, NULL, NULL}};
	struct shb_config cfg;
	char err[256];
	memset(&cfg, 0, sizeof(cfg));
	cfg.url_text = (char *)"line://127.0.0.1:7000/";
	cfg.method = (char *)"GET";
	struct shb_run_info info;
	struct shb_target_info t;
	struct shb_proto_request req;
	memset(&req, 0, sizeof(req));
	memset(&info, 0xff, sizeof(info));
	info.method = cfg.method;
	shb_results_run_info(&info, &t, &cfg, cfg.url_text);
	shb_results_run_facts(&info, &t, &cfg, &req);
	/* without any of it: HTTP, no names, the default set, all NULL */
	CU_ASSERT_EQUAL(info.request_model, SHB_REQMODEL_HTTP);
	CU_ASSERT_EQUAL(info.reserved1, 0);
	CU_ASSERT_PTR_NULL(info.outcome_spaces);
	CU_ASSERT_EQUAL(info.outcome_space_count, 0);
	CU_ASSERT_STRING_EQUAL(info.success, "1xx-3xx");
	CU_ASSERT_PTR_NULL(info.proxy);
	CU_ASSERT_EQUAL(info.connect_to_count + info.resolve_count, 0);
	CU_ASSERT_PTR_NULL(info.source);
	CU_ASSERT_PTR_NULL(info.unix_socket);
	CU_ASSERT_STRING_EQUAL(info.method, "GET");
	CU_ASSERT_STRING_EQUAL(t.method, "GET");

	req.request_model = SHB_REQMODEL_NONE;
	req.outcome_spaces = spaces;
	req.outcome_space_count = 1;
	CU_ASSERT_EQUAL_FATAL(shb_success_parse("ok", &req.success, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(shb_typed_note(&cfg.typed, "--connect-to", "a:1:b:2"), 0);
	CU_ASSERT_EQUAL(shb_typed_note(&cfg.typed, "--resolve", "h:1:127.0.0.1"), 0);
	CU_ASSERT_EQUAL(shb_typed_note(&cfg.typed, "--resolve", "i:2:::1"), 0);
	CU_ASSERT_EQUAL(shb_typed_note(&cfg.typed, "--source", "127.0.0.2"), 0);
	cfg.unix_socket = (char *)"/run/x.sock";
	shb_results_run_info(&info, &t, &cfg, cfg.url_text);
	shb_results_run_facts(&info, &t, &cfg, &req);
	CU_ASSERT_EQUAL(info.request_model, SHB_REQMODEL_NONE);
	CU_ASSERT_PTR_EQUAL(info.outcome_spaces, spaces);
	CU_ASSERT_EQUAL(info.outcome_space_count, 1);
	CU_ASSERT_STRING_EQUAL(info.success, "ok");
	CU_ASSERT_PTR_NULL(info.proxy);
	CU_ASSERT_EQUAL_FATAL(info.connect_to_count, 1);
	CU_ASSERT_STRING_EQUAL(info.connect_to[0], "a:1:b:2");
	CU_ASSERT_EQUAL_FATAL(info.resolve_count, 2);
	CU_ASSERT_STRING_EQUAL(info.resolve[0], "h:1:127.0.0.1");
	CU_ASSERT_STRING_EQUAL(info.resolve[1], "i:2:::1");
	CU_ASSERT_STRING_EQUAL(info.source, "127.0.0.2");
	CU_ASSERT_STRING_EQUAL(info.unix_socket, "/run/x.sock");
	CU_ASSERT_STRING_EQUAL(info.method, "");
	CU_ASSERT_STRING_EQUAL(t.method, "");
	shb_typed_free(&cfg.typed);
}

/* ABI 1.4: an error reply is an answer: counted among the errors, and
 * among the answered requests with its latency (from the intended start),
 * apart from the latency of successes; merged like every counter. */
static void test_error_replies(void)
{
	static struct shb_results_buf b;
	struct shb_stats other;
	shb_stats_reset(&st);
	struct shb_req_result r = response();
	CU_ASSERT_EQUAL(shb_stats_response(&st, &r, T0, T0 + 7000), 1);
	r.app_space = SHB_APPSPACE_GRPC;
	r.app_code = 14;
	r.app_ok = 0;
	CU_ASSERT_EQUAL(shb_stats_response_at(&st, &r, T0 - 2000, T0, T0 + 3000), 0);
	r.app_space = SHB_APPSPACE_NONE;
	r.status = 503;
	shb_stats_unsuccessful(&st, &r, "status 503 is not a success", 9000);
	CU_ASSERT_EQUAL(st.ok, 1);
	CU_ASSERT_EQUAL(st.errors, 2);
	CU_ASSERT_EQUAL(st.error_replies, 2);
	CU_ASSERT_EQUAL(shb_histo_count(&st.latency), 1);
	CU_ASSERT_EQUAL(shb_histo_count(&st.latency_error_reply), 2);
	CU_ASSERT_EQUAL(shb_histo_min(&st.latency_error_reply), 5000);
	CU_ASSERT_EQUAL(shb_histo_max(&st.latency_error_reply), 9000);

	CU_ASSERT_EQUAL_FATAL(shb_stats_init(&other), 0);
	shb_stats_merge(&other, &st);
	shb_stats_merge(&other, &st);
	CU_ASSERT_EQUAL(other.error_replies, 4);
	CU_ASSERT_EQUAL(shb_histo_count(&other.latency_error_reply), 4);
	shb_results_build(&b, &other, NULL, 1000000000, 0);
	CU_ASSERT_EQUAL(b.r.requests_answered, 6);
	CU_ASSERT_EQUAL(b.r.requests_errors, 4);
	CU_ASSERT_EQUAL(b.r.measured, SHB_MEASURED_BYTES | SHB_MEASURED_CONNECTIONS);
	CU_ASSERT_PTR_NOT_NULL(b.r.latency_error_reply);
	shb_stats_destroy(&other);
}

static CU_TestInfo stats_tests[] = {
	{"a plain response", test_plain_response},
	{"first byte left out", test_first_byte_left_out},
	{"app outcome ok and error", test_app_ok_and_error},
	{"app outcome without status", test_app_without_status},
	{"error replies (1.4)", test_error_replies},
	{"result of a 1.1 plugin", test_result_from_1_1_plugin},
	{"errors by code", test_failed_codes},
	{"table caps", test_table_caps},
	{"merge", test_merge},
	{"results identities", test_results_identities},
	{"reset", test_reset},
	{"run info 1.2", test_run_info},
	{"open loop", test_open_loop},
	{"run info, open loop", test_run_info_open_loop},
	{"run facts 1.4", test_run_facts},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"stats", stats_setup, stats_teardown, NULL, NULL, stats_tests},
	CU_SUITE_INFO_NULL,
};
