/* Tests of the gRPC example, without the core: the message reader and the
 * status helpers (grpc_wire.c) directly, then the built plugin on top of
 * the installed HTTP/2 plugin through the SDK's test kit (fake host,
 * connection driver, split driver). The h2 plugin is the kit host's
 * extension provider: host->get_extension("org.shb.h2.proto/1") gets the
 * table h2's own entry gives, as from the core.
 *
 * Environment: GRPC_PLUGIN (this build's module) and SHB_H2_PLUGIN (the
 * installed shb-proto-h2.so). Exit status 0 when every check passed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shb/kit.h>
#include <shb/ext/h2.h>

#include "../src/grpc_wire.h"
#include "grpc_script.h"
#include "test_grpc_stream.h"

/* ---- grpc_wire.c ------------------------------------------------------------ */

/* Three messages (5, 0 and 300 octets) fed split at every pair of
 * offsets: always three messages, 305 octets, nothing partial. */
static void test_reader_splits(void)
{
	uint8_t body[3 * GRPC_PREFIX_LEN + 305];
	size_t n = 0;

	grpc_prefix(body + n, 5);
	memcpy(body + n + 5, "hello", 5);
	n += 10;
	grpc_prefix(body + n, 0);
	n += 5;
	grpc_prefix(body + n, 300);
	memset(body + n + 5, 'x', 300);
	n += 305;
	CHECK(n == sizeof(body));
	for (size_t a = 0; a <= n; a += 7)
		for (size_t b = a; b <= n; b++) {
			struct grpc_reader r;

			grpc_reader_init(&r, 300);
			CHECK(grpc_reader_feed(&r, body, a) == GRPC_READ_OK);
			CHECK(grpc_reader_feed(&r, body + a, b - a) == GRPC_READ_OK);
			CHECK(grpc_reader_feed(&r, body + b, n - b) == GRPC_READ_OK);
			CHECK(r.messages == 3);
			CHECK(r.message_bytes == 305);
			CHECK(!grpc_reader_partial(&r));
			if (failures)
				return;
		}
}

static void test_reader_errors(void)
{
	struct grpc_reader r;
	uint8_t p[GRPC_PREFIX_LEN + 2];

	grpc_prefix(p, 2);
	p[5] = p[6] = 'a';
	grpc_reader_init(&r, 1);
	CHECK(grpc_reader_feed(&r, p, sizeof(p)) == GRPC_READ_E_TOO_LARGE);
	CHECK(grpc_reader_bad_length(&r) == 2);
	p[0] = 1;
	grpc_reader_init(&r, 10);
	CHECK(grpc_reader_feed(&r, p, sizeof(p)) == GRPC_READ_E_COMPRESSED);
	p[0] = 2;
	grpc_reader_init(&r, 10);
	CHECK(grpc_reader_feed(&r, p, sizeof(p)) == GRPC_READ_E_FLAG);
	p[0] = 0;
	for (size_t cut = 1; cut < sizeof(p); cut++) {
		grpc_reader_init(&r, 10);
		CHECK(grpc_reader_feed(&r, p, cut) == GRPC_READ_OK);
		CHECK(grpc_reader_partial(&r));
		CHECK(r.messages == 0);
	}
}

static void test_status_helpers(void)
{
	char out[16];
	uint32_t code = 99;

	CHECK(grpc_parse_status((const uint8_t *)"0", 1, &code) == 0 && code == 0);
	CHECK(grpc_parse_status((const uint8_t *)"16", 2, &code) == 0 && code == 16);
	CHECK(grpc_parse_status((const uint8_t *)"4294967295", 10, &code) == 0 &&
	      code == 4294967295u);
	CHECK(grpc_parse_status((const uint8_t *)"4294967296", 10, &code) < 0);
	CHECK(grpc_parse_status((const uint8_t *)"", 0, &code) < 0);
	CHECK(grpc_parse_status((const uint8_t *)"1a", 2, &code) < 0);
	CHECK(grpc_parse_status((const uint8_t *)"-1", 2, &code) < 0);
	CHECK(grpc_decode_message((const uint8_t *)"a%20b%zz%4", 10, out,
				  sizeof(out)) == 8);
	CHECK_STR(out, "a b%zz%4");
	CHECK(grpc_decode_message((const uint8_t *)"%0A%e2x", 7, out, sizeof(out)) == 3);
	CHECK_STR(out, "??x");
	CHECK(grpc_decode_message((const uint8_t *)"abcdef", 6, out, 4) == 3);
	CHECK_STR(out, "abc");
	CHECK_STR(grpc_code_name(0), "OK");
	CHECK_STR(grpc_code_name(3), "INVALID_ARGUMENT");
	CHECK_STR(grpc_code_name(16), "UNAUTHENTICATED");
	CHECK(grpc_code_name(17) == NULL);
	CHECK(grpc_code_from_http(404) == 12);
	CHECK(grpc_code_from_http(503) == 14);
	CHECK(grpc_code_from_http(401) == 16);
	CHECK(grpc_code_from_http(500) == 2);
	CHECK(grpc_content_type_ok((const uint8_t *)"application/grpc", 16));
	CHECK(grpc_content_type_ok((const uint8_t *)"application/grpc+proto", 22));
	CHECK(grpc_content_type_ok((const uint8_t *)"application/grpc; x=1", 21));
	CHECK(!grpc_content_type_ok((const uint8_t *)"application/grpcx", 17));
	CHECK(!grpc_content_type_ok((const uint8_t *)"text/html", 9));
}

/* The request on the wire: POST to the path, gRPC's headers, one DATA
 * frame with the length-prefixed message and END_STREAM. */
static void test_request_bytes(void)
{
	static const uint8_t want[] = {0, 0, 0, 0, 2, 'h', 'i'};
	struct shb_kit_module m;
	struct shb_kit_conn c;
	const uint8_t *p;
	size_t n = 0;

	CHECK(make_module(&m, "/shb.test.Echo/Echo", "hi", NULL) == SHB_OK);
	CHECK(shb_kit_conn_init(&c, &m) == SHB_OK);
	CHECK(shb_kit_conn_ready(&c, NULL) == SHB_OK);
	CHECK(shb_kit_conn_issue(&c, NULL, 7) == SHB_OK);
	shb_kit_conn_flush(&c, 0);
	/* No DATA before the server's SETTINGS (h2's rule). */
	CHECK(sent_frame(&c, DATA, 1, &n) == NULL);
	server_settings(&c);
	p = sent_frame(&c, HEADERS, 1, &n);
	CHECK(p != NULL);
	if (p) {
		CHECK(contains(p, n, "/shb.test.Echo/Echo"));
		CHECK(contains(p, n, "application/grpc"));
		CHECK(contains(p, n, "trailers"));
	}
	p = sent_frame(&c, DATA, 1, &n);
	CHECK(p != NULL && n == sizeof(want) && memcmp(p, want, n) == 0);
	CHECK(c.out[24 + 3] == SETTINGS);
	shb_kit_conn_fini(&c);
	shb_kit_module_destroy(&m);

	/* message-hex, and no -d: the message is those octets. */
	{
		static const char *const opts[] = {"message-hex", "0aFF", NULL};
		static const uint8_t want2[] = {0, 0, 0, 0, 2, 0x0a, 0xff};

		CHECK(make_module(&m, "/a.B/C", NULL, opts) == SHB_OK);
		CHECK(shb_kit_conn_init(&c, &m) == SHB_OK);
		CHECK(shb_kit_conn_ready(&c, NULL) == SHB_OK);
		CHECK(shb_kit_conn_issue(&c, NULL, 7) == SHB_OK);
		server_settings(&c);
		p = sent_frame(&c, DATA, 1, &n);
		CHECK(p != NULL && n == sizeof(want2) &&
		      memcmp(p, want2, n) == 0);
		shb_kit_conn_fini(&c);
		shb_kit_module_destroy(&m);
	}
	check_no_violations();
}

/* Echo on stream 1 (head, one message, trailers with grpc-status 0) and a
 * Trailers-Only failure on stream 3, split at every offset: the same
 * results every time, with the gRPC outcome. */
static void test_responses_every_split(void)
{
	static const char *const trailers_ok[] = {"grpc-status", "0", NULL};
	static const char *const trailers_only[] = {
		":status", "200", "content-type", "application/grpc",
		"grpc-status", "3", "grpc-message", "fail%20on%20purpose", NULL};
	struct shb_kit_module m;
	struct shb_kit_split s = {0};
	struct bytes b = {.len = 0};
	const struct shb_kit_done *d;

	frame(&b, SETTINGS, 0, 0, NULL, 0);
	headers(&b, 1, 0, head_ok);
	message(&b, 1, 0, "hi");
	headers(&b, 1, END_STREAM, trailers_ok);
	headers(&b, 3, END_STREAM, trailers_only);
	CHECK(make_module(&m, "/shb.test.Echo/Echo", "hi", NULL) == SHB_OK);
	s.m = &m;
	s.setup = issue_two;
	CHECK(shb_kit_split_check(&s, b.p, b.len) == 0);
	if (s.mismatch[0])
		fprintf(stderr, "split: %s\n", s.mismatch);
	CHECK(s.ref.result_count == 2);
	CHECK(s.ref.outstanding == 0);
	CHECK(s.ref.rc == SHB_OK);
	if (s.ref.result_count == 2) {
		d = &s.ref.results[0];
		CHECK(d->cookie == 1);
		CHECK(d->res.outcome == SHB_REQ_OK);
		CHECK(d->res.status == 200);
		CHECK(d->res.app_space == SHB_APPSPACE_GRPC);
		CHECK(d->res.app_code == 0);
		CHECK(d->res.app_ok == 1);
		CHECK(d->res.rx_body_bytes == 7);
		CHECK(!d->has_detail);
		d = &s.ref.results[1];
		CHECK(d->cookie == 2);
		CHECK(d->res.outcome == SHB_REQ_OK);
		CHECK(d->res.app_space == SHB_APPSPACE_GRPC);
		CHECK(d->res.app_code == 3);
		CHECK(d->res.app_ok == 0);
		CHECK_STR(d->detail, "grpc: INVALID_ARGUMENT (3): fail on purpose");
	}
	CHECK(s.feeds > b.len);
	shb_kit_split_fini(&s);
	shb_kit_module_destroy(&m);
	check_no_violations();
}

/* ABI 1.4: a message out per call, and the messages read back: one for
 * the unary answer, none for the Trailers-Only error. */
static void test_metrics(void)
{
	static const char *const trailers_ok[] = {"grpc-status", "0", NULL};
	static const char *const trailers_only[] = {
		":status", "200", "content-type", "application/grpc",
		"grpc-status", "3", NULL};
	struct shb_kit_module m;
	struct shb_kit_conn c;
	struct bytes b = {.len = 0};

	frame(&b, SETTINGS, 0, 0, NULL, 0);
	headers(&b, 1, 0, head_ok);
	message(&b, 1, 0, "hi");
	headers(&b, 1, END_STREAM, trailers_ok);
	headers(&b, 3, END_STREAM, trailers_only);
	CHECK(make_module(&m, "/shb.test.Echo/Echo", "hi", NULL) == SHB_OK);
	CHECK(shb_kit_metric_count(&kh, "grpc_msgs_sent") == 0);
	CHECK(shb_kit_conn_init(&c, &m) == SHB_OK);
	CHECK(shb_kit_conn_ready(&c, NULL) == SHB_OK);
	CHECK(issue_two(&c, NULL) == 0);
	CHECK(shb_kit_conn_feed(&c, b.p, b.len) == SHB_OK);
	CHECK(kh.done_count == 2);
	CHECK(shb_kit_metric_count(&kh, "grpc_msgs_sent") == 2);
	CHECK(shb_kit_metric_count(&kh, "grpc_msgs_received") == 1);
	const struct shb_kit_metric *r = shb_kit_metric(&kh, "grpc_msgs_received");
	CHECK(r && r->calls == 1 && r->kind == SHB_METRIC_COUNTER);
	shb_kit_conn_fini(&c);
	shb_kit_module_destroy(&m);
	check_no_violations();
}

/* One request, the server's bytes `b`: the result, copied. */
static struct shb_kit_done one(const struct bytes *b, const char *const *opts,
			       int *reset_sent)
{
	struct shb_kit_module m;
	struct shb_kit_conn c;
	struct shb_kit_done d;
	const struct shb_kit_done *r;
	size_t n;

	memset(&d, 0, sizeof(d));
	CHECK(make_module(&m, "/shb.test.Echo/Echo", "hi", opts) == SHB_OK);
	CHECK(shb_kit_conn_init(&c, &m) == SHB_OK);
	CHECK(shb_kit_conn_ready(&c, NULL) == SHB_OK);
	CHECK(shb_kit_conn_issue(&c, NULL, 1) == SHB_OK);
	shb_kit_conn_flush(&c, 0);
	CHECK(shb_kit_conn_feed(&c, b->p, b->len) == SHB_OK);
	shb_kit_conn_flush(&c, 0);
	*reset_sent = sent_frame(&c, RST_STREAM, 1, &n) != NULL;
	r = shb_kit_done_find(&kh, 1);
	CHECK(r != NULL);
	if (r)
		d = *r;
	CHECK(c.outstanding_count == 0);
	shb_kit_conn_fini(&c);
	shb_kit_module_destroy(&m);
	check_no_violations();
	return d;
}

static void expect_proto_error(const struct bytes *b, const char *const *opts,
			       const char *detail, int reset)
{
	int rst = -1;
	struct shb_kit_done d = one(b, opts, &rst);

	CHECK(d.res.outcome == SHB_REQ_PROTO_ERROR);
	CHECK(d.res.app_space == SHB_APPSPACE_NONE);
	CHECK_STR(d.detail, detail);
	CHECK(rst == reset);
}

/* Responses that are valid HTTP/2 but not valid gRPC. */
static void test_invalid_responses(void)
{
	static const char *const no_status[] = {"grpc-message", "x", NULL};
	static const char *const st0[] = {"grpc-status", "0", NULL};
	static const char *const st_bad[] = {"grpc-status", "OK", NULL};
	static const char *const head_text[] = {":status", "200", "content-type",
						"text/plain", NULL};
	static const char *const max1[] = {"max-message", "1", NULL};
	struct bytes b;

#define SERVER(...)                                                            \
	do {                                                                   \
		b.len = 0;                                                     \
		frame(&b, SETTINGS, 0, 0, NULL, 0);                            \
		__VA_ARGS__;                                                   \
	} while (0)

	SERVER(headers(&b, 1, 0, head_ok); message(&b, 1, 0, "hi");
	       headers(&b, 1, END_STREAM, no_status));
	expect_proto_error(&b, NULL, "grpc: response without grpc-status", 0);

	SERVER(headers(&b, 1, 0, head_ok); message(&b, 1, 0, "hi");
	       headers(&b, 1, END_STREAM, st_bad));
	/* refused in the trailers: the stream had ended, nothing to reset */
	expect_proto_error(&b, NULL, "grpc: grpc-status that is not a number", 0);

	SERVER(headers(&b, 1, 0, head_ok); message(&b, 1, 0, "hi");
	       headers(&b, 1, END_STREAM, st0));
	expect_proto_error(&b, max1, "grpc: a message above max-message (2)", 1);

	SERVER(headers(&b, 1, 0, head_ok); message(&b, 1, 0, "hi");
	       message(&b, 1, 0, "again"); headers(&b, 1, END_STREAM, st0));
	expect_proto_error(&b, NULL, "grpc: a unary response with more than one message", 0);

	SERVER(headers(&b, 1, 0, head_ok); headers(&b, 1, END_STREAM, st0));
	expect_proto_error(&b, NULL, "grpc: a unary response without a message", 0);

	SERVER(headers(&b, 1, 0, head_ok);
	       frame(&b, DATA, 0, 1, "\0\0\0\0\5hel", 8);
	       headers(&b, 1, END_STREAM, st0));
	expect_proto_error(&b, NULL, "grpc: the body ends inside a message", 0);

	SERVER(headers(&b, 1, 0, head_ok);
	       frame(&b, DATA, 0, 1, "\1\0\0\0\2hi", 7);
	       headers(&b, 1, END_STREAM, st0));
	expect_proto_error(&b, NULL,
			   "grpc: a compressed message (the request allowed none)", 1);

	SERVER(headers(&b, 1, 0, head_text); message(&b, 1, 0, "hi");
	       headers(&b, 1, END_STREAM, st0));
	expect_proto_error(&b, NULL, "grpc: content-type is not application/grpc", 0);
#undef SERVER
}

/* Not a gRPC server: a 404 page without grpc-status gives the status a
 * gRPC client derives (UNIMPLEMENTED), an application error. */
static void test_http_status_mapping(void)
{
	static const char *const h404[] = {":status", "404", "content-type",
					   "text/html", NULL};
	struct bytes b = {.len = 0};
	struct shb_kit_done d;
	int rst = -1;

	frame(&b, SETTINGS, 0, 0, NULL, 0);
	headers(&b, 1, 0, h404);
	frame(&b, DATA, END_STREAM, 1, "<html>not here</html>", 21);
	d = one(&b, NULL, &rst);
	CHECK(d.res.outcome == SHB_REQ_OK);
	CHECK(d.res.status == 404);
	CHECK(d.res.app_space == SHB_APPSPACE_GRPC);
	CHECK(d.res.app_code == 12);
	CHECK(d.res.app_ok == 0);
	CHECK_STR(d.detail, "grpc: HTTP status 404 without grpc-status (UNIMPLEMENTED)");
	CHECK(rst == 0);
}

/* What the user can get wrong: one line each, before any traffic. */
static void test_bad_input(void)
{
	static const char *const unknown[] = {"compress", "gzip", NULL};
	static const char *const bad_max[] = {"max-message", "0", NULL};
	static const char *const bad_hex[] = {"message-hex", "abc", NULL};
	static const char *const bad_hex2[] = {"message-hex", "zz", NULL};
	static const char *const hex[] = {"message-hex", "00", NULL};
	struct shb_kit_module m;

	CHECK(make_module(&m, "/a.B/C", NULL, unknown) == SHB_E_INVAL);
	CHECK_STR(m.err, "grpc: unknown option 'compress' (known: call, messages, message-bytes, message-hex, max-message)");
	CHECK(make_module(&m, "/a.B/C", NULL, bad_max) == SHB_E_INVAL);
	CHECK_STR(m.err, "grpc: max-message must be a byte count from 1 to 4294967295, not '0'");
	CHECK(make_module(&m, "/a.B/C", NULL, bad_hex) == SHB_E_INVAL);
	CHECK_STR(m.err, "grpc: message-hex must be an even number of hex digits");
	CHECK(make_module(&m, "/a.B/C", NULL, bad_hex2) == SHB_E_INVAL);

	CHECK(make_module(&m, "/", NULL, NULL) == SHB_E_INVAL);
	CHECK_STR(m.err, "grpc: the URL path must be /package.Service/Method, not '/'");
	shb_kit_module_destroy(&m);
	CHECK(make_module(&m, "/a.B/C/D", NULL, NULL) == SHB_E_INVAL);
	shb_kit_module_destroy(&m);
	CHECK(make_module(&m, "/a.B/C?x=1", NULL, NULL) == SHB_E_INVAL);
	shb_kit_module_destroy(&m);
	CHECK(make_module(&m, "//C", NULL, NULL) == SHB_E_INVAL);
	shb_kit_module_destroy(&m);
	CHECK(make_module(&m, "/a.B/C", "x", hex) == SHB_E_INVAL);
	CHECK_STR(m.err, "grpc: give the message with one of -d, message-hex and message-bytes");
	shb_kit_module_destroy(&m);
	check_no_violations();
}

int main(void)
{
	test_reader_splits();
	test_reader_errors();
	test_status_helpers();
	load_plugins();
	test_request_bytes();
	test_responses_every_split();
	test_metrics();
	test_invalid_responses();
	test_http_status_mapping();
	test_bad_input();
	test_grpc_stream();
	shb_kit_plugin_close(&gp);
	shb_kit_plugin_close(&h2p);
	shb_kit_host_fini(&kh);
	if (failures) {
		fprintf(stderr, "test_grpc: %d checks failed\n", failures);
		return 1;
	}
	printf("test_grpc: all checks passed\n");
	return 0;
}
