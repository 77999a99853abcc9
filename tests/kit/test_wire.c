/* What the h1 and h2 plugins put on the wire for the core's routing and
 * priority options, loaded as shared modules and driven by the test kit
 * as the core drives them: --priority's header on both (RFC 9218; on h2
 * also a PRIORITY_UPDATE before the server's SETTINGS, never PRIORITY),
 * and h1's absolute form for a
 * forward proxy (origin route_flags SHB_ROUTE_ABSOLUTE_FORM, since 1.3)
 * with every split of the sends. h3's field section is checked byte for
 * byte in tests/h3/http3 (its datagrams are encrypted here). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include <shb/kit/driver.h>
#include <shb/kit/plugin.h>

struct wire {
	struct shb_kit_host kh;
	struct shb_kit_plugin p;
	struct shb_kit_module m;
	struct shb_kit_conn c;
};

static const struct shb_kv prio_hdr[] = {{"Priority", "u=1, i"}};

/* Loads plugin $ENV, prepares `req` over plain http and sends it on one
 * connection, `route_flags` on its origin, `chunk` bytes per send. */
static void wire_run(struct wire *w, const char *env, const struct shb_request *req,
		     uint32_t route_flags, size_t chunk)
{
	char err[256] = "";
	const char *path = getenv(env);

	memset(w, 0, sizeof(*w));
	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	CU_ASSERT_EQUAL_FATAL(shb_kit_host_init(&w->kh, SHB_ABI_MINOR), 0);
	CU_ASSERT_EQUAL_FATAL(shb_kit_plugin_open(&w->p, path, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(shb_kit_plugin_init(&w->p, &w->kh), SHB_OK);
	const struct shb_proto_desc *d = shb_kit_plugin_proto(&w->p, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_create(&w->m, &w->kh, d, NULL), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_prepare(&w->m, req), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_module_worker_init(&w->m), SHB_OK);
	w->m.origin.route_flags = route_flags;
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_init(&w->c, &w->m), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_ready(&w->c, NULL), SHB_OK);
	shb_kit_conn_flush(&w->c, chunk);
	shb_kit_conn_clear_output(&w->c); /* a preface and SETTINGS (h2) */
	CU_ASSERT_EQUAL_FATAL(shb_kit_conn_issue(&w->c, NULL, 7), SHB_OK);
	shb_kit_conn_flush(&w->c, chunk);
}

static void wire_done(struct wire *w)
{
	CU_ASSERT_EQUAL(shb_kit_host_dump_violations(&w->kh, "  violation: "), 0);
	shb_kit_conn_fini(&w->c);
	shb_kit_module_destroy(&w->m);
	shb_kit_plugin_close(&w->p);
	shb_kit_host_fini(&w->kh);
}

static void expect_out(const struct wire *w, const char *want, size_t n)
{
	CU_ASSERT_EQUAL(w->c.out_len, n);
	CU_ASSERT(w->c.out_len == n && memcmp(w->c.out, want, n) == 0);
	if (w->c.out_len != n || memcmp(w->c.out, want, n) != 0)
		fprintf(stderr, "\n  got  %.*s\n  want %.*s\n", (int)w->c.out_len,
			(const char *)w->c.out, (int)n, want);
}

static struct shb_request get_req(const struct shb_kv *h, size_t nh)
{
	struct shb_request r = {
		.struct_size = sizeof(r),
		.method = "GET",
		.scheme = "http",
		.authority = "example.com",
		.path = "/a?b=c",
		.headers = h,
		.header_count = nh,
	};
	return r;
}

static void test_h1_priority(void)
{
	static const char want[] = "GET /a?b=c HTTP/1.1\r\nHost: example.com\r\n"
				   "Priority: u=1, i\r\n\r\n";
	struct shb_request req = get_req(prio_hdr, 1);
	struct wire w;

	wire_run(&w, "SHB_H1_PLUGIN", &req, 0, 0);
	expect_out(&w, want, sizeof(want) - 1);
	wire_done(&w);
}

/* HTTP/2: the HEADERS frame's field block holds priority as a literal
 * field, after a PRIORITY_UPDATE (0x10) frame on stream 0 with the same
 * value (no SETTINGS from a server yet: RFC 9218 2.1.1 has the client
 * send both signals); no PRIORITY (0x2) frame, no PRIORITY flag on
 * HEADERS. tests/h2 has the SETTINGS-gated cases. */
static void test_h2_priority(void)
{
	static const uint8_t block[] = {
		0x82, /* :method GET */
		0x86, /* :scheme http */
		0x01, 0x0b, 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c', 'o', 'm',
		0x04, 0x06, '/', 'a', '?', 'b', '=', 'c', /* :path, not indexed */
		0x00, 0x08, 'p', 'r', 'i', 'o', 'r', 'i', 't', 'y',
		0x06, 'u', '=', '1', ',', ' ', 'i',
	};
	static const uint8_t update[] = {
		0, 0, 10, 0x10, 0, 0, 0, 0, 0, /* PRIORITY_UPDATE, stream 0 */
		0, 0, 0, 1, 'u', '=', '1', ',', ' ', 'i', /* for stream 1 */
	};
	uint8_t want[sizeof(update) + 9 + sizeof(block)] = {0};
	static const uint8_t head[9] = {
		0, 0, sizeof(block), 0x01, 0x05 /* END_STREAM | END_HEADERS */,
		0, 0, 0, 1,
	};
	struct shb_request req = get_req(prio_hdr, 1);
	struct wire w;

	memcpy(want, update, sizeof(update));
	memcpy(want + sizeof(update), head, sizeof(head));
	memcpy(want + sizeof(update) + 9, block, sizeof(block));
	wire_run(&w, "SHB_H2_PLUGIN", &req, 0, 0);
	CU_ASSERT_EQUAL(w.c.out_len, sizeof(want));
	CU_ASSERT(w.c.out_len == sizeof(want) &&
		  memcmp(w.c.out, want, sizeof(want)) == 0);
	if (w.c.out_len != sizeof(want) || memcmp(w.c.out, want, sizeof(want))) {
		fprintf(stderr, "\n  got ");
		for (size_t i = 0; i < w.c.out_len; i++)
			fprintf(stderr, "%02x", w.c.out[i]);
		fprintf(stderr, "\n");
	}
	wire_done(&w);
}

/* Absolute form: "GET http://example.com/a?b=c HTTP/1.1", Host kept
 * (RFC 9112 section 3.2.2), the body after it; the same bytes whatever
 * the transport takes per send. */
static void test_h1_absolute_form(void)
{
	static const char want[] = "POST http://example.com/a?b=c HTTP/1.1\r\n"
				   "Host: example.com\r\nContent-Length: 5\r\n\r\n"
				   "hello";
	static const char plain[] = "GET /a?b=c HTTP/1.1\r\nHost: example.com\r\n\r\n";
	struct shb_request req = get_req(NULL, 0);
	struct wire w;

	req.method = "POST";
	req.flags = SHB_REQUEST_HAS_BODY;
	req.body = (const uint8_t *)"hello";
	req.body_len = 5;
	for (size_t chunk = 0; chunk < sizeof(want); chunk++) {
		wire_run(&w, "SHB_H1_PLUGIN", &req, SHB_ROUTE_ABSOLUTE_FORM, chunk);
		expect_out(&w, want, sizeof(want) - 1);
		CU_ASSERT_EQUAL(w.c.state & SHB_CS_WANT_WRITE, 0);
		wire_done(&w);
	}
	/* Without the flag: origin form. */
	req = get_req(NULL, 0);
	wire_run(&w, "SHB_H1_PLUGIN", &req, 0, 0);
	expect_out(&w, plain, sizeof(plain) - 1);
	wire_done(&w);
}

static CU_TestInfo wire_tests[] = {
	{"h1: --priority header", test_h1_priority},
	{"h2: --priority header, no frames", test_h2_priority},
	{"h1: absolute form for a proxy", test_h1_absolute_form},
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo shb_test_suites[] = {
	{"wire", NULL, NULL, NULL, NULL, wire_tests},
	CU_SUITE_INFO_NULL,
};
