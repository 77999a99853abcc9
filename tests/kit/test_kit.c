/* The plugin test kit: its rule checks fire with the exact message on the
 * fixture protocol's bugs (fixture_kit.c, loaded with dlopen from
 * SHB_KIT_FIXTURES), and its clock, histogram, split driver and sink do
 * what they say. This file: the rule checks, another thread and the split
 * driver; test_kit_host.c the host table, extensions, histogram and sink. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <shb/kit.h>

#include "kit_fx.h"

static void conn_open(struct fx *f, struct shb_kit_conn *c)
{
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_init(c, &f->m), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_ready(c, NULL), SHB_OK);
}
/* ---- the good protocol ---------------------------------------------------------- */

static void test_conversation(void)
{
	struct fx f;
	struct shb_kit_conn c;

	fx_open(&f, "line");
	kh.log_level = SHB_LOG_DEBUG;
	conn_open(&f, &c);
	/* conn_origin answered from the run config; the log line recorded. */
	CU_ASSERT_EQUAL_FATAL(kh.log_count, 1);
	CU_ASSERT_EQUAL(kh.logs[0].level, SHB_LOG_DEBUG);
	CU_ASSERT_STRING_EQUAL(kh.logs[0].plugin_id, "org.shb.test.kit.line");
	CU_ASSERT_STRING_EQUAL(kh.logs[0].msg, "ready line://example.com");
	CU_ASSERT_EQUAL(f.m.origin.port, 7000);
	CU_ASSERT_STRING_EQUAL(f.m.origin.sni, "example.com");

	CU_ASSERT_EQUAL(c.capacity, 4);
	shb_kit_clock_set(&kh.clock, 100);
	CU_ASSERT_EQUAL(shb_kit_conn_issue(&c, NULL, 1), SHB_OK);
	CU_ASSERT_EQUAL(shb_kit_conn_issue(&c, NULL, 2), SHB_OK);
	CU_ASSERT_EQUAL(c.state, SHB_CS_WANT_WRITE);
	CU_ASSERT_EQUAL(c.capacity, 2);
	CU_ASSERT_EQUAL(c.deadline, 100 + 1000000000ull);
	CU_ASSERT_EQUAL(shb_kit_conn_flush(&c, 3), 12);
	CU_ASSERT_EQUAL(c.out_len, 12);
	CU_ASSERT(memcmp(c.out, "REQ 1\nREQ 2\n", 12) == 0);
	CU_ASSERT_EQUAL(c.state, 0);

	shb_kit_clock_set(&kh.clock, 250);
	CU_ASSERT_EQUAL(shb_kit_conn_feed(&c, "404\n20", 6), SHB_OK);
	CU_ASSERT_EQUAL(shb_kit_conn_feed(&c, "1\n", 2), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(kh.done_count, 2);
	CU_ASSERT_EQUAL(kh.done[0].cookie, 1);
	CU_ASSERT_EQUAL(kh.done[0].res.status, 404);
	CU_ASSERT_EQUAL(kh.done[0].res.ts_done, 250);
	CU_ASSERT(kh.done[0].conn == c.handle);
	CU_ASSERT_STRING_EQUAL(kh.done[0].call, "recv");
	CU_ASSERT_FALSE(kh.done[0].has_detail);
	CU_ASSERT_EQUAL(kh.done[1].cookie, 2);
	CU_ASSERT_EQUAL(kh.done[1].res.status, 201);
	CU_ASSERT_PTR_EQUAL(shb_kit_done_find(&kh, 2), &kh.done[1]);
	CU_ASSERT_PTR_NULL(shb_kit_done_find(&kh, 3));
	CU_ASSERT_EQUAL(c.outstanding_count, 0);
	CU_ASSERT_EQUAL(c.deadline, SHB_TSTAMP_NONE);

	/* A request nobody answers times out when the clock gets there. */
	CU_ASSERT_EQUAL(shb_kit_conn_issue(&c, NULL, 3), SHB_OK);
	CU_ASSERT_EQUAL(shb_kit_conn_run_timers(&c), SHB_OK);
	CU_ASSERT_EQUAL(kh.done_count, 2);
	CU_ASSERT_EQUAL(shb_kit_conn_advance_to_deadline(&c), 1);
	CU_ASSERT_EQUAL(shb_kit_clock_now(&kh.clock), 250 + 1000000000ull);
	CU_ASSERT_EQUAL(kh.host.now(), 250 + 1000000000ull);
	CU_ASSERT_EQUAL_FATAL(kh.done_count, 3);
	CU_ASSERT_EQUAL(kh.done[2].res.outcome, SHB_REQ_TIMEOUT);
	CU_ASSERT_STRING_EQUAL(kh.done[2].detail, "no response in time");
	CU_ASSERT_STRING_EQUAL(kh.done[2].call, "on_timer");
	CU_ASSERT_EQUAL(c.timers_fired, 1);
	CU_ASSERT_EQUAL(shb_kit_conn_advance_to_deadline(&c), 0);

	/* Outstanding at conn_fini: the core's to complete, not reported. */
	CU_ASSERT_EQUAL(shb_kit_conn_issue(&c, NULL, 4), SHB_OK);
	shb_kit_conn_fini(&c);
	CU_ASSERT_EQUAL(c.outstanding_at_fini, 1);
	CU_ASSERT_EQUAL(kh.done_count, 3);
	assert_violations(NULL, 0);
	fx_close(&f);
}

static void test_cancel_and_eof(void)
{
	struct fx f;
	struct shb_kit_conn c;

	fx_open(&f, "line");
	conn_open(&f, &c);
	CU_ASSERT_EQUAL(shb_kit_conn_issue(&c, NULL, 7), SHB_OK);
	shb_kit_conn_cancel(&c, 7);
	CU_ASSERT_EQUAL(c.state, SHB_CS_CLOSED);
	CU_ASSERT_EQUAL(c.outstanding_count, 0);
	shb_kit_conn_fini(&c);

	conn_open(&f, &c);
	CU_ASSERT_EQUAL(shb_kit_conn_issue(&c, NULL, 8), SHB_OK);
	CU_ASSERT_EQUAL(shb_kit_conn_recv_eof(&c), SHB_E_CLOSED);
	CU_ASSERT_EQUAL_FATAL(kh.done_count, 1);
	CU_ASSERT_EQUAL(kh.done[0].res.outcome, SHB_REQ_CONN_LOST);
	shb_kit_conn_fini(&c);
	assert_violations(NULL, 0);
	fx_close(&f);
}

/* ---- each rule, broken once -------------------------------------------------------- */

static void test_done_twice(void)
{
	static const char *const want[] = {"req_done twice for cookie 1"};
	struct fx f;
	struct shb_kit_conn c;

	fx_open(&f, "twice");
	conn_open(&f, &c);
	CU_ASSERT_EQUAL(shb_kit_conn_issue(&c, NULL, 1), SHB_OK);
	CU_ASSERT_EQUAL(kh.done_count, 2);
	assert_violations(want, 1);
	shb_kit_conn_fini(&c);
	fx_close(&f);
}

static void test_done_outside_call(void)
{
	static const char *const want[] = {
		"req_done outside a [conn] call (cookie 5)",
		"req_done after conn_fini (cookie 5)",
	};
	struct fx f;
	struct shb_kit_conn c;

	fx_open(&f, "stash");
	conn_open(&f, &c);
	CU_ASSERT_EQUAL(shb_kit_conn_issue(&c, NULL, 5), SHB_OK);
	/* prepare_request is [main]: the connection is live, no call is. */
	CU_ASSERT_EQUAL(shb_kit_module_prepare(&f.m, NULL), SHB_OK);
	CU_ASSERT_EQUAL(kh.done_count, 1);
	CU_ASSERT_PTR_NULL(kh.done[0].call);
	CU_ASSERT_EQUAL(c.outstanding_count, 1); /* not counted as done */
	shb_kit_conn_fini(&c);
	CU_ASSERT_EQUAL(c.outstanding_at_fini, 1);
	/* And once the connection is gone. */
	CU_ASSERT_EQUAL(shb_kit_module_prepare(&f.m, NULL), SHB_OK);
	assert_violations(want, 2);
	fx_close(&f);
}

static void test_done_from_fini(void)
{
	static const char *const want[] = {
		"req_done from conn_fini (cookie 1)",
		"req_done from conn_fini (cookie 2)",
	};
	struct fx f;
	struct shb_kit_conn c;

	fx_open(&f, "fini");
	conn_open(&f, &c);
	CU_ASSERT_EQUAL(shb_kit_conn_issue(&c, NULL, 1), SHB_OK);
	CU_ASSERT_EQUAL(shb_kit_conn_issue(&c, NULL, 2), SHB_OK);
	shb_kit_conn_fini(&c);
	CU_ASSERT_EQUAL(kh.done_count, 2);
	CU_ASSERT_STRING_EQUAL(kh.done[0].call, "conn_fini");
	CU_ASSERT_EQUAL(c.outstanding_at_fini, 2);
	assert_violations(want, 2);
	fx_close(&f);
}

static void test_done_unknown(void)
{
	static const char *const want[] = {"req_done for unknown cookie 1001"};
	struct fx f;
	struct shb_kit_conn c;

	fx_open(&f, "unknown");
	conn_open(&f, &c);
	CU_ASSERT_EQUAL(shb_kit_conn_issue(&c, NULL, 1), SHB_OK);
	CU_ASSERT_EQUAL(shb_kit_conn_feed(&c, "200\n", 4), SHB_OK);
	assert_violations(want, 1);
	CU_ASSERT_EQUAL(c.outstanding_count, 1);
	shb_kit_conn_fini(&c);
	fx_close(&f);
}

static void test_done_cancelled(void)
{
	static const char *const want[] = {"req_done for cancelled cookie 1"};
	struct fx f;
	struct shb_kit_conn c;

	fx_open(&f, "cancel");
	conn_open(&f, &c);
	CU_ASSERT_EQUAL(shb_kit_conn_issue(&c, NULL, 1), SHB_OK);
	shb_kit_conn_cancel(&c, 1);
	CU_ASSERT_EQUAL(shb_kit_conn_feed(&c, "200\n", 4), SHB_OK);
	assert_violations(want, 1);
	shb_kit_conn_fini(&c);
	fx_close(&f);
}

static void test_past_deadline(void)
{
	static const char *const want[] = {
		"next_deadline 1000000000 in the past (now 1000000001) after "
		"on_timer",
	};
	struct fx f;
	struct shb_kit_conn c;

	fx_open(&f, "past");
	conn_open(&f, &c);
	CU_ASSERT_EQUAL(shb_kit_conn_issue(&c, NULL, 1), SHB_OK);
	CU_ASSERT_EQUAL(shb_kit_conn_advance_to_deadline(&c), 1);
	assert_violations(want, 1);
	shb_kit_conn_fini(&c);
	fx_close(&f);
}

static void test_no_want_write(void)
{
	static const char *const want[] = {
		"recv consumed 2 of 4 bytes without WANT_WRITE",
	};
	struct fx f;
	struct shb_kit_conn c;

	fx_open(&f, "half");
	conn_open(&f, &c);
	CU_ASSERT_EQUAL(shb_kit_conn_issue(&c, NULL, 1), SHB_OK);
	shb_kit_conn_flush(&c, 0);
	CU_ASSERT_EQUAL(shb_kit_conn_feed(&c, "200\n", 4), SHB_OK);
	assert_violations(want, 1);
	shb_kit_conn_fini(&c);
	fx_close(&f);
}

static void test_unknown_handle(void)
{
	static const char *const want[] = {
		"req_done on an unknown connection handle (cookie 9)",
		"req_done: OK result with status 0 (cookie 9)",
		"log from plugin id 'other', expected 'org.shb.test.kit.line'",
	};
	struct shb_req_result r = {.struct_size = sizeof r};
	struct fx f;

	fx_open(&f, "line");
	kh.host.req_done((struct shb_conn *)(uintptr_t)0x5eed, 9, &r);
	kh.host.log(SHB_LOG_WARN, "other", "hello");
	/* The record is kept even when the call broke a rule. */
	CU_ASSERT_EQUAL(kh.done_count, 1);
	CU_ASSERT_EQUAL(kh.log_count, 1);
	CU_ASSERT_EQUAL(kh.violation_count, 3);
	if (kh.violation_count == 3) {
		/* The result check runs first, the connection check after. */
		CU_ASSERT_STRING_EQUAL(kh.violations[0], want[1]);
		CU_ASSERT_STRING_EQUAL(kh.violations[1], want[0]);
		CU_ASSERT_STRING_EQUAL(kh.violations[2], want[2]);
	}
	shb_kit_host_reset(&kh);
	CU_ASSERT_EQUAL(kh.violation_count, 0);
	CU_ASSERT_EQUAL(kh.done_count, 0);
	fx_close(&f);
}

static void test_conn_event_rules(void)
{
	static const char *const want[] = {
		"conn_event outside a [conn] call",
		"conn_event: unknown kind 9",
		"conn_event outside a [conn] call",
		"conn_event after conn_fini",
	};
	struct shb_conn_event ev = {
		.struct_size = sizeof ev,
		.kind = SHB_CEV_GOAWAY,
		.detail = "bye",
	};
	struct fx f;
	struct shb_kit_conn c;

	fx_open(&f, "line");
	conn_open(&f, &c);
	kh.host.conn_event(c.handle, &ev);
	ev.kind = 9;
	kh.host.conn_event(c.handle, &ev);
	shb_kit_conn_fini(&c);
	ev.kind = SHB_CEV_GOAWAY;
	kh.host.conn_event(c.handle, &ev);
	CU_ASSERT_EQUAL_FATAL(kh.event_count, 3);
	CU_ASSERT_EQUAL(kh.events[0].ev.kind, SHB_CEV_GOAWAY);
	CU_ASSERT_STRING_EQUAL(kh.events[0].detail, "bye");
	CU_ASSERT_PTR_NULL(kh.events[0].ev.detail);
	CU_ASSERT(kh.events[0].conn == c.handle);
	assert_violations(want, 4);
	fx_close(&f);
}

/* ---- a linked-in protocol whose issue() reports from another thread ---------- */

static const struct shb_host *thr_host;

struct thr_arg {
	struct shb_conn *handle;
	uint64_t cookie;
};

struct thr_conn {
	struct shb_conn *handle;
};

static void *thr_report(void *p)
{
	const struct thr_arg *a = p;
	struct shb_req_result r = {
		.struct_size = sizeof r,
		.outcome = SHB_REQ_OK,
		.status = 204,
	};

	thr_host->req_done(a->handle, a->cookie, &r);
	return NULL;
}

static int thr_create(const struct shb_host *host,
		      const struct shb_run_config *cfg, void **module,
		      char *err, size_t errlen)
{
	thr_host = host;
	*module = &thr_host;
	return SHB_OK;
}

static void thr_destroy(void *module) {}

static int thr_prepare(void *module, const struct shb_request *req,
		       void **prepared, char *err, size_t errlen)
{
	*prepared = module;
	return SHB_OK;
}

static int thr_conn_init(void *module, void *worker, void *conn,
			 struct shb_conn *handle, shb_tstamp now)
{
	((struct thr_conn *)conn)->handle = handle;
	return SHB_OK;
}

static void thr_conn_fini(void *conn) {}

static int thr_ready(void *conn, const struct shb_transport_info *info,
		     shb_tstamp now)
{
	return SHB_OK;
}

static shb_ssize thr_recv(void *conn, const uint8_t *d, size_t n, shb_tstamp now)
{
	return (shb_ssize)n;
}

static int thr_eof(void *conn, shb_tstamp now) { return SHB_OK; }

static shb_ssize thr_pull(void *conn, struct shb_vec *v, size_t max,
			  shb_tstamp now)
{
	return 0;
}

static void thr_sent(void *conn, size_t n, shb_tstamp now) {}
static uint32_t thr_state(const void *conn) { return 0; }
static uint32_t thr_capacity(const void *conn) { return 1; }

/* Reports the request at once, but from a thread of its own. */
static int thr_issue(void *conn, const void *prepared, uint64_t cookie,
		     shb_tstamp now)
{
	struct thr_arg a = {((struct thr_conn *)conn)->handle, cookie};
	pthread_t t;

	if (pthread_create(&t, NULL, thr_report, &a))
		return SHB_E_NOMEM;
	pthread_join(t, NULL);
	return SHB_OK;
}

static const struct shb_proto_vtable thr_vt = {
	.struct_size = sizeof(struct shb_proto_vtable),
	.module_create = thr_create,
	.module_destroy = thr_destroy,
	.prepare_request = thr_prepare,
	.conn_init = thr_conn_init,
	.conn_fini = thr_conn_fini,
	.on_transport_ready = thr_ready,
	.recv = thr_recv,
	.recv_eof = thr_eof,
	.pull_send = thr_pull,
	.sent = thr_sent,
	.state = thr_state,
	.capacity = thr_capacity,
	.issue = thr_issue,
};

static const struct shb_proto_desc thr_desc = {
	.struct_size = sizeof(struct shb_proto_desc),
	.transport = SHB_TRANSPORT_STREAM,
	.name = "thr",
	.conn_size = sizeof(struct thr_conn),
	.vt = &thr_vt,
};

static void test_other_thread(void)
{
	static const char *const want[] = {
		"req_done from another thread than issue (cookie 1)",
	};
	struct shb_kit_module m;
	struct shb_kit_conn c;

	CU_ASSERT_EQUAL_FATAL(shb_kit_host_init(&kh, SHB_ABI_MINOR), 0);
	/* A descriptor linked into the test: no plugin entry needed. */
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_create(&m, &kh, &thr_desc, NULL),
			      SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_prepare(&m, NULL), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_init(&c, &m), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_ready(&c, NULL), SHB_OK);
	CU_ASSERT_EQUAL(c.deadline, SHB_TSTAMP_NONE); /* no timers */
	CU_ASSERT_EQUAL(shb_kit_conn_issue(&c, NULL, 1), SHB_OK);
	CU_ASSERT_EQUAL(kh.done_count, 1);
	CU_ASSERT_EQUAL(kh.done[0].res.status, 204);
	assert_violations(want, 1);
	shb_kit_conn_fini(&c);
	CU_ASSERT_EQUAL(c.outstanding_at_fini, 1);
	shb_kit_module_destroy(&m);
	shb_kit_host_fini(&kh);
}

/* ---- split driver ------------------------------------------------------------------ */

static int issue_two(struct shb_kit_conn *c, void *user)
{
	if (shb_kit_conn_issue(c, NULL, 1) || shb_kit_conn_issue(c, NULL, 2))
		return -1;
	shb_kit_conn_flush(c, 0);
	return 0;
}

static void test_split_same(void)
{
	struct fx f;
	struct shb_kit_split s = {.setup = issue_two};

	fx_open(&f, "line");
	s.m = &f.m;
	CU_ASSERT_EQUAL(shb_kit_split_check(&s, "404\n200\n", 8), 0);
	CU_ASSERT_STRING_EQUAL(s.mismatch, "");
	CU_ASSERT_EQUAL(s.feeds, 1 + 7 + 1);
	CU_ASSERT_EQUAL_FATAL(s.ref.result_count, 2);
	CU_ASSERT_EQUAL(s.ref.results[0].res.status, 404);
	CU_ASSERT_EQUAL(s.ref.results[1].res.status, 200);
	CU_ASSERT_EQUAL(s.ref.rc, SHB_OK);
	CU_ASSERT_EQUAL(s.ref.outstanding, 0);
	assert_violations(NULL, 0);
	shb_kit_split_fini(&s);

	/* With EOF after a partial answer: one request lost, every split. */
	s.eof = 1;
	CU_ASSERT_EQUAL(shb_kit_split_check(&s, "404\n20", 6), 0);
	CU_ASSERT_EQUAL_FATAL(s.ref.result_count, 2);
	CU_ASSERT_EQUAL(s.ref.results[1].res.outcome, SHB_REQ_CONN_LOST);
	CU_ASSERT_EQUAL(s.ref.rc, SHB_E_CLOSED);
	CU_ASSERT_EQUAL(s.feeds, 1 + 5 + 1);
	shb_kit_split_fini(&s);

	/* max_len bounds the two-piece splits. */
	s.eof = 0;
	s.max_len = 3;
	CU_ASSERT_EQUAL(shb_kit_split_check(&s, "404\n200\n", 8), 0);
	CU_ASSERT_EQUAL(s.feeds, 1 + 3 + 1);
	shb_kit_split_fini(&s);
	fx_close(&f);
}

static void test_split_differs(void)
{
	struct fx f;
	struct shb_kit_split s = {.setup = issue_two};

	fx_open(&f, "split");
	s.m = &f.m;
	CU_ASSERT_EQUAL(shb_kit_split_check(&s, "404\n200\n", 8), 1);
	CU_ASSERT_STRING_EQUAL(s.mismatch,
			       "split at 1: result 0 status 500, whole feed gave 404");
	shb_kit_split_fini(&s);
	fx_close(&f);
}

CU_TestInfo kit_tests[] = {
	{"a conversation, timers, fini", test_conversation},
	{"cancel and EOF", test_cancel_and_eof},
	{"req_done twice", test_done_twice},
	{"req_done outside a call, after fini", test_done_outside_call},
	{"req_done from conn_fini", test_done_from_fini},
	{"req_done for an unknown cookie", test_done_unknown},
	{"req_done for a cancelled cookie", test_done_cancelled},
	{"deadline in the past after on_timer", test_past_deadline},
	{"recv short without WANT_WRITE", test_no_want_write},
	{"unknown handle, bad result, foreign log id", test_unknown_handle},
	{"conn_event rules", test_conn_event_rules},
	{"req_done from another thread", test_other_thread},
	{"split driver: same outcome", test_split_same},
	{"split driver: a split-sensitive parser", test_split_differs},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"kit", NULL, NULL, NULL, NULL, kit_tests},
	{"kit_host", NULL, NULL, NULL, NULL, kit_host_tests},
	CU_SUITE_INFO_NULL,
};
