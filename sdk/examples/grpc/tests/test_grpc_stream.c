/* Streaming calls through the kit (test_grpc_stream.h): the request
 * messages a call sends, a server's stream of messages split at every
 * offset, Trailers-Only and error statuses at the end of a stream,
 * RST_STREAM in the middle of one, a message above max-message, a stream
 * that never ends until the call is cancelled, and the options a user can
 * get wrong. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shb/kit.h>

#include "../src/grpc_wire.h"
#include "grpc_script.h"
#include "test_grpc_stream.h"

static const char *const trailers_ok[] = {"grpc-status", "0", NULL};

/* DATA whose payload is p[n] (a part of a message, or several). */
static void data(struct bytes *b, uint32_t sid, uint8_t flags, const void *p,
		 size_t n)
{
	frame(b, DATA, flags, sid, p, n);
}

/* The DATA a call sent on stream 1 equals want[n]. */
static void expect_request(const char *msg, const char *const *opts,
			   const uint8_t *want, size_t n)
{
	struct shb_kit_module m;
	struct shb_kit_conn c;
	const uint8_t *p;
	size_t len = 0;

	CHECK(make_module(&m, "/shb.test.Echo/Stream", msg, opts) == SHB_OK);
	CHECK(shb_kit_conn_init(&c, &m) == SHB_OK);
	CHECK(shb_kit_conn_ready(&c, NULL) == SHB_OK);
	CHECK(shb_kit_conn_issue(&c, NULL, 1) == SHB_OK);
	server_settings(&c);
	p = sent_frame(&c, DATA, 1, &len);
	CHECK(p != NULL && len == n && memcmp(p, want, n) == 0);
	/* all of the call's messages in that frame, END_STREAM on it */
	CHECK(p != NULL && (p[-5] & END_STREAM));
	shb_kit_conn_fini(&c);
	shb_kit_module_destroy(&m);
}

/* client-stream and bidi send `messages` copies of the message, queued
 * at once; server-stream one. */
static void test_request_messages(void)
{
	static const char *const client3[] = {"call", "client-stream",
					      "messages", "3", NULL};
	static const char *const bidi2[] = {"call", "bidi", "messages", "2",
					    "message-bytes", "3", NULL};
	static const char *const server[] = {"call", "server-stream", NULL};
	static const uint8_t hi3[] = {0, 0, 0, 0, 2, 'h', 'i', 0, 0, 0, 0, 2,
				      'h', 'i', 0, 0, 0, 0, 2, 'h', 'i'};
	static const uint8_t x3x2[] = {0, 0, 0, 0, 3, 'x', 'x', 'x',
				       0, 0, 0, 0, 3, 'x', 'x', 'x'};
	static const uint8_t hi[] = {0, 0, 0, 0, 2, 'h', 'i'};

	expect_request("hi", client3, hi3, sizeof(hi3));
	expect_request(NULL, bidi2, x3x2, sizeof(x3x2));
	expect_request("hi", server, hi, sizeof(hi));
	check_no_violations();
}

/* Stream 1: four messages ("one", "two", "", "three") in DATA frames
 * that cut them anywhere, then grpc-status 0; stream 3: Trailers-Only
 * with grpc-status 0 (a stream of no message). 31 body octets. */
static void stream_of_four(struct bytes *b)
{
	static const char *const trailers_only[] = {
		":status", "200", "content-type", "application/grpc",
		"grpc-status", "0", NULL};
	uint8_t p[64];
	size_t n = 0;

	frame(b, SETTINGS, 0, 0, NULL, 0);
	headers(b, 1, 0, head_ok);
	grpc_prefix(p, 3);
	memcpy(p + 5, "one", 3);
	grpc_prefix(p + 8, 3);
	memcpy(p + 13, "two", 3);
	grpc_prefix(p + 16, 0);
	grpc_prefix(p + 21, 5);
	memcpy(p + 26, "three", 5);
	n = 31;
	data(b, 1, 0, p, 11);          /* "one" and 3 octets of the next */
	data(b, 1, 0, p + 11, 12);     /* the rest of "two", "" and 2 more */
	data(b, 1, 0, p + 23, n - 23); /* the rest of "three" */
	headers(b, 1, END_STREAM, trailers_ok);
	headers(b, 3, END_STREAM, trailers_only);
}

static void split_results(const char *const *opts, const struct bytes *b,
			  struct shb_kit_split *s, struct shb_kit_module *m)
{
	CHECK(make_module(m, "/shb.test.Echo/Stream", "hi", opts) == SHB_OK);
	memset(s, 0, sizeof(*s));
	s->m = m;
	s->setup = issue_two;
	CHECK(shb_kit_split_check(s, b->p, b->len) == 0);
	if (s->mismatch[0])
		fprintf(stderr, "split: %s\n", s->mismatch);
	CHECK(s->ref.result_count == 2);
	CHECK(s->ref.outstanding == 0);
	CHECK(s->feeds > b->len);
}

/* A server stream at every split: both calls ok, all 31 octets counted;
 * the same bytes answering unary calls are not valid gRPC. */
static void test_server_stream_every_split(void)
{
	static const char *const server[] = {"call", "server-stream", NULL};
	struct shb_kit_module m;
	struct shb_kit_split s;
	struct bytes b = {.len = 0};
	const struct shb_kit_done *d;

	stream_of_four(&b);
	split_results(server, &b, &s, &m);
	if (s.ref.result_count == 2) {
		d = &s.ref.results[0];
		CHECK(d->cookie == 1 && d->res.outcome == SHB_REQ_OK);
		CHECK(d->res.app_space == SHB_APPSPACE_GRPC);
		CHECK(d->res.app_code == 0 && d->res.app_ok == 1);
		CHECK(d->res.rx_body_bytes == 31);
		CHECK(!d->has_detail);
		d = &s.ref.results[1];
		CHECK(d->cookie == 2 && d->res.outcome == SHB_REQ_OK);
		CHECK(d->res.app_code == 0 && d->res.app_ok == 1);
		CHECK(d->res.rx_body_bytes == 0);
	}
	shb_kit_split_fini(&s);
	shb_kit_module_destroy(&m);

	split_results(NULL, &b, &s, &m);
	if (s.ref.result_count == 2) {
		CHECK(s.ref.results[0].res.outcome == SHB_REQ_PROTO_ERROR);
		CHECK_STR(s.ref.results[0].detail,
			  "grpc: a unary response with more than one message");
		CHECK(s.ref.results[1].res.outcome == SHB_REQ_PROTO_ERROR);
		CHECK_STR(s.ref.results[1].detail,
			  "grpc: a unary response without a message");
	}
	shb_kit_split_fini(&s);
	shb_kit_module_destroy(&m);
	check_no_violations();
}

/* A stream that ends in an error: two messages then INTERNAL with a
 * message (stream 1), NOT_FOUND as Trailers-Only (stream 3). */
static void test_stream_errors(void)
{
	static const char *const bidi[] = {"call", "bidi", "messages", "2", NULL};
	static const char *const internal[] = {"grpc-status", "13", "grpc-message",
					       "broke%20mid-stream", NULL};
	static const char *const not_found[] = {
		":status", "200", "content-type", "application/grpc",
		"grpc-status", "5", NULL};
	struct shb_kit_module m;
	struct shb_kit_split s;
	struct bytes b = {.len = 0};

	frame(&b, SETTINGS, 0, 0, NULL, 0);
	headers(&b, 1, 0, head_ok);
	message(&b, 1, 0, "hi");
	message(&b, 1, 0, "hi");
	headers(&b, 1, END_STREAM, internal);
	headers(&b, 3, END_STREAM, not_found);
	split_results(bidi, &b, &s, &m);
	if (s.ref.result_count == 2) {
		const struct shb_kit_done *d = &s.ref.results[0];

		CHECK(d->res.outcome == SHB_REQ_OK && d->res.app_code == 13);
		CHECK(d->res.app_ok == 0 && d->res.rx_body_bytes == 14);
		CHECK_STR(d->detail, "grpc: INTERNAL (13): broke mid-stream");
		d = &s.ref.results[1];
		CHECK(d->res.outcome == SHB_REQ_OK && d->res.app_code == 5);
		CHECK_STR(d->detail, "grpc: NOT_FOUND (5)");
	}
	shb_kit_split_fini(&s);
	shb_kit_module_destroy(&m);
	check_no_violations();
}

/* RST_STREAM after a message on stream 1: that call is reset (CANCEL), the
 * call on stream 3 answers after it as if nothing happened. */
static void test_reset_mid_stream(void)
{
	static const char *const server[] = {"call", "server-stream", NULL};
	static const uint8_t cancel[] = {0, 0, 0, 8};
	struct shb_kit_module m;
	struct shb_kit_split s;
	struct bytes b = {.len = 0};

	frame(&b, SETTINGS, 0, 0, NULL, 0);
	headers(&b, 1, 0, head_ok);
	headers(&b, 3, 0, head_ok);
	message(&b, 1, 0, "one");
	message(&b, 3, 0, "a");
	frame(&b, RST_STREAM, 0, 1, cancel, sizeof(cancel));
	message(&b, 3, 0, "b");
	headers(&b, 3, END_STREAM, trailers_ok);
	split_results(server, &b, &s, &m);
	if (s.ref.result_count == 2) {
		const struct shb_kit_done *d = &s.ref.results[0];

		CHECK(d->cookie == 1 && d->res.outcome == SHB_REQ_RESET);
		CHECK(d->res.err_code == 8);
		CHECK(d->res.app_space == SHB_APPSPACE_NONE);
		d = &s.ref.results[1];
		CHECK(d->cookie == 2 && d->res.outcome == SHB_REQ_OK);
		CHECK(d->res.app_code == 0 && d->res.rx_body_bytes == 12);
	}
	shb_kit_split_fini(&s);
	shb_kit_module_destroy(&m);
	check_no_violations();
}

/* A connection with one server-stream call issued (cookie 1). */
static void one_stream(struct shb_kit_module *m, struct shb_kit_conn *c,
		       const char *const *opts)
{
	CHECK(make_module(m, "/shb.test.Echo/Stream", "hi", opts) == SHB_OK);
	CHECK(shb_kit_conn_init(c, m) == SHB_OK);
	CHECK(shb_kit_conn_ready(c, NULL) == SHB_OK);
	CHECK(shb_kit_conn_issue(c, NULL, 1) == SHB_OK);
	shb_kit_conn_flush(c, 0);
}

/* The third message of a stream above max-message stops the call at once
 * (RST_STREAM), whatever the first two were. */
static void test_stream_max_message(void)
{
	static const char *const max3[] = {"call", "server-stream",
					   "max-message", "3", NULL};
	struct shb_kit_module m;
	struct shb_kit_conn c;
	struct bytes b = {.len = 0};
	const struct shb_kit_done *d;
	size_t n;

	frame(&b, SETTINGS, 0, 0, NULL, 0);
	headers(&b, 1, 0, head_ok);
	message(&b, 1, 0, "abc");
	message(&b, 1, 0, "");
	message(&b, 1, 0, "abcd");
	one_stream(&m, &c, max3);
	CHECK(shb_kit_conn_feed(&c, b.p, b.len) == SHB_OK);
	shb_kit_conn_flush(&c, 0);
	d = shb_kit_done_find(&kh, 1);
	CHECK(d != NULL && d->res.outcome == SHB_REQ_PROTO_ERROR);
	if (d)
		CHECK_STR(d->detail, "grpc: a message above max-message (4)");
	CHECK(sent_frame(&c, RST_STREAM, 1, &n) != NULL);
	shb_kit_conn_fini(&c);
	shb_kit_module_destroy(&m);
	check_no_violations();
}

/* A server that streams and never ends the call: 200 messages, no result;
 * the core's cancel (--timeout) resets the stream, and what the server
 * still sends after it reports nothing. */
static void test_endless_stream_cancelled(void)
{
	static const char *const server[] = {"call", "server-stream", NULL};
	struct shb_kit_module m;
	struct shb_kit_conn c;
	struct bytes b = {.len = 0};
	size_t n;

	frame(&b, SETTINGS, 0, 0, NULL, 0);
	headers(&b, 1, 0, head_ok);
	one_stream(&m, &c, server);
	CHECK(shb_kit_conn_feed(&c, b.p, b.len) == SHB_OK);
	for (int i = 0; i < 200; i++) {
		b.len = 0;
		message(&b, 1, 0, "tick");
		CHECK(shb_kit_conn_feed(&c, b.p, b.len) == SHB_OK);
	}
	CHECK(kh.done_count == 0);
	CHECK(c.outstanding_count == 1);
	/* counted as they came, though the call never ends */
	CHECK(shb_kit_metric_count(&kh, "grpc_msgs_received") == 200);
	shb_kit_conn_cancel(&c, 1);
	shb_kit_conn_flush(&c, 0);
	CHECK(sent_frame(&c, RST_STREAM, 1, &n) != NULL);
	b.len = 0;
	message(&b, 1, 0, "late");
	headers(&b, 1, END_STREAM, trailers_ok);
	CHECK(shb_kit_conn_feed(&c, b.p, b.len) == SHB_OK);
	CHECK(kh.done_count == 0);
	CHECK(c.outstanding_count == 0);
	CHECK(shb_kit_metric_count(&kh, "grpc_msgs_received") == 200);
	shb_kit_conn_fini(&c);
	shb_kit_module_destroy(&m);
	check_no_violations();
}

/* ABI 1.4 metrics of a bidi call of 3 messages: 3 sent at issue (t),
 * the first echo read whole at t + 1 ms (its prefix came at t + 0.5 ms),
 * the other two together at t + 3 ms: 3 received, latencies 1, 3, 3 ms. */
static void test_stream_metrics(void)
{
	static const char *const bidi3[] = {"call", "bidi", "messages", "3", NULL};
	static const uint8_t hi[] = {0, 0, 0, 0, 2, 'h', 'i'};
	struct shb_kit_module m;
	struct shb_kit_conn c;
	struct bytes b = {.len = 0};
	const struct shb_kit_metric *lat;

	CHECK(make_module(&m, "/shb.test.Echo/Chat", "hi", bidi3) == SHB_OK);
	CHECK(shb_kit_conn_init(&c, &m) == SHB_OK);
	CHECK(shb_kit_conn_ready(&c, NULL) == SHB_OK);
	CHECK(shb_kit_conn_issue(&c, NULL, 1) == SHB_OK);
	shb_kit_conn_flush(&c, 0);
	CHECK(shb_kit_metric_count(&kh, "grpc_msgs_sent") == 3);
	frame(&b, SETTINGS, 0, 0, NULL, 0);
	headers(&b, 1, 0, head_ok);
	data(&b, 1, 0, hi, 3);
	shb_kit_clock_advance(&kh.clock, 500000);
	CHECK(shb_kit_conn_feed(&c, b.p, b.len) == SHB_OK);
	CHECK(shb_kit_metric_count(&kh, "grpc_msgs_received") == 0);
	b.len = 0;
	data(&b, 1, 0, hi + 3, 4);
	shb_kit_clock_advance(&kh.clock, 500000);
	CHECK(shb_kit_conn_feed(&c, b.p, b.len) == SHB_OK);
	CHECK(shb_kit_metric_count(&kh, "grpc_msgs_received") == 1);
	b.len = 0;
	message(&b, 1, 0, "hi");
	message(&b, 1, 0, "hi");
	headers(&b, 1, END_STREAM, trailers_ok);
	shb_kit_clock_advance(&kh.clock, 2000000);
	CHECK(shb_kit_conn_feed(&c, b.p, b.len) == SHB_OK);
	CHECK(kh.done_count == 1);
	CHECK(shb_kit_metric_count(&kh, "grpc_msgs_received") == 3);
	lat = shb_kit_metric(&kh, "grpc_msg_latency");
	CHECK(lat && lat->kind == SHB_METRIC_LATENCY && lat->calls == 3);
	CHECK(lat && lat->min == 1000000 && lat->max == 3000000);
	CHECK(lat && lat->sum == 7000000);
	shb_kit_conn_fini(&c);
	shb_kit_module_destroy(&m);
	check_no_violations();
}

/* One line each, before any traffic. */
static void test_stream_bad_input(void)
{
	static const char *const kind[] = {"call", "stream", NULL};
	static const char *const unary2[] = {"messages", "2", NULL};
	static const char *const zero[] = {"call", "bidi", "messages", "0", NULL};
	static const char *const bytes_bad[] = {"message-bytes", "1k", NULL};
	static const char *const two_msgs[] = {"message-bytes", "1",
					       "message-hex", "00", NULL};
	static const char *const bytes1[] = {"message-bytes", "1", NULL};
	static const char *const huge[] = {"call", "client-stream", "messages",
					   "13421772", "message-bytes", "1", NULL};
	struct shb_kit_module m;

	CHECK(make_module(&m, "/a.B/C", NULL, kind) == SHB_E_INVAL);
	CHECK_STR(m.err, "grpc: call must be unary, server-stream, client-stream or bidi, not 'stream'");
	CHECK(make_module(&m, "/a.B/C", NULL, unary2) == SHB_E_INVAL);
	CHECK_STR(m.err, "grpc: messages needs call=client-stream or call=bidi (a unary call sends one message)");
	CHECK(make_module(&m, "/a.B/C", NULL, zero) == SHB_E_INVAL);
	CHECK_STR(m.err, "grpc: messages must be a count from 1 to 13421772, not '0'");
	CHECK(make_module(&m, "/a.B/C", NULL, bytes_bad) == SHB_E_INVAL);
	CHECK_STR(m.err, "grpc: message-bytes must be a byte count from 0 to 67108864, not '1k'");
	CHECK(make_module(&m, "/a.B/C", NULL, two_msgs) == SHB_E_INVAL);
	CHECK_STR(m.err, "grpc: give one of message-hex and message-bytes, once");
	CHECK(make_module(&m, "/a.B/C", "x", bytes1) == SHB_E_INVAL);
	CHECK_STR(m.err, "grpc: give the message with one of -d, message-hex and message-bytes");
	shb_kit_module_destroy(&m);
	/* 13421772 messages of 6 octets: above 64 MiB in all */
	CHECK(make_module(&m, "/a.B/C", NULL, huge) == SHB_E_INVAL);
	CHECK_STR(m.err, "grpc: a call's request messages above 67108864 bytes in all");
	shb_kit_module_destroy(&m);
	check_no_violations();
}

void test_grpc_stream(void)
{
	test_request_messages();
	test_server_stream_every_split();
	test_stream_errors();
	test_reset_mid_stream();
	test_stream_max_message();
	test_endless_stream_cancelled();
	test_stream_metrics();
	test_stream_bad_input();
}
