/* issue_var: the QPACK field section varied per request (:path, header
 * values, content-length) and the request's bytes byte for byte, written
 * into a buffer the QUIC stream owns, so they outlive the call that lent
 * the values. */
#include <string.h>

#include "h3p_tests.h"

#define LIT(s) s, sizeof(s) - 1

static const struct shb_kv var_headers[] = {
	{"X-Id", "{{seq}}"},
	{"Host", "h"}, /* dropped: its value is :authority */
	{"Accept", "*/*"},
};

/* Section prefix, :method POST (static 20) and :scheme https (23)
 * indexed, :authority a literal with static name reference 0. */
#define HEAD "\x00\x00\xd4\xd7\x50\x0b" "example.com"
#define XID(v) "\x24x-id" v
#define ACCEPT(v) "\x26" "accept" v

/* A second template with headers beside the fixture's plain one. */
static void *prepare(struct h3p_fx *f, const char *body)
{
	struct shb_request req = {
		.struct_size = sizeof(req),
		.flags = body ? SHB_REQUEST_HAS_BODY : 0,
		.method = body ? "POST" : "GET",
		.scheme = "https",
		.authority = "example.com",
		.path = "/",
		.headers = var_headers,
		.header_count = 3,
		.body = (const uint8_t *)body,
		.body_len = body ? strlen(body) : 0,
	};
	void *prep = NULL;
	char err[200];
	CU_ASSERT_EQUAL_FATAL(f->vt->prepare_request(f->mod, &req, &prep, err,
						     sizeof(err)), SHB_OK);
	return prep;
}

static int issue_var(struct h3p_fx *f, const void *prep,
		     const struct shb_request_var *v, uint64_t cookie)
{
	shb_kit_clock_set(&h3p_kit.clock, f->now);
	return shb_kit_conn_issue_var(&f->kc, prep, v, cookie);
}

/* HEADERS frame of section[n] (n < 64), then DATA of body when given. */
static size_t request(uint8_t *out, const char *sec, size_t n, const char *body)
{
	size_t k = 0;
	out[k++] = 0x01;
	out[k++] = (uint8_t)n;
	memcpy(out + k, sec, n);
	k += n;
	if (body && *body) {
		out[k++] = 0x00;
		out[k++] = (uint8_t)strlen(body);
		memcpy(out + k, body, strlen(body));
		k += strlen(body);
	}
	return k;
}

static void check_send(const struct fq_stream_send *s, uint64_t id,
		       const uint8_t *want, size_t len)
{
	CU_ASSERT_EQUAL(s->id, id);
	CU_ASSERT_EQUAL(s->fin, 1);
	CU_ASSERT_EQUAL(s->len, len);
	CU_ASSERT(s->len == len && memcmp(s->data, want, len) == 0);
}

static void test_sections(void)
{
	struct h3p_fx f;
	uint8_t want[256];
	char body1[] = "hello!";
	struct shb_var_header h1[] = {{0, 0, "1", 1}, {1, 0, "zzz", 3}};
	struct shb_var_header h2 = {2, 0, "a/b", 3};
	struct shb_request_var v1 = {
		.struct_size = sizeof(v1),
		.flags = SHB_VAR_PATH | SHB_VAR_HEADERS | SHB_VAR_BODY,
		.path = "/v/1", .path_len = 4,
		.headers = h1, .header_count = 2,
		.body = (const uint8_t *)body1, .body_len = 6,
	};
	struct shb_request_var v2 = {
		.struct_size = sizeof(v2),
		.flags = SHB_VAR_HEADERS | SHB_VAR_BODY,
		.headers = &h2, .header_count = 1,
		.body = (const uint8_t *)"", .body_len = 0,
	};

	h3p_open_ready(&f, 4);
	void *prep = prepare(&f, "tmpl");
	const struct shb_h3_request *r = prep;
	static const char tsec[] = HEAD "\xc1" XID("\x07{{seq}}")
				   ACCEPT("\x03*/*") "\x54\x01" "4";
	size_t n = request(want, LIT(tsec), "tmpl");
	CU_ASSERT(r->len == n && memcmp(r->bytes, want, n) == 0);

	CU_ASSERT_EQUAL_FATAL(issue_var(&f, prep, &v1, 1), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(issue_var(&f, prep, &v2, 2), SHB_OK);
	memset(body1, '#', 6); /* lent for the call only */
	CU_ASSERT_EQUAL_FATAL(f.q->send_count, 2);
	n = request(want, LIT(HEAD "\x51\x04/v/1" XID("\x01" "1")
			      ACCEPT("\x03*/*") "\x54\x01" "6"), "hello!");
	check_send(&f.q->sends[0], 0, want, n);
	/* An empty body: content-length 0 and no DATA frame. */
	n = request(want, LIT(HEAD "\xc1" XID("\x07{{seq}}")
			      ACCEPT("\x03" "a/b") "\x54\x01" "0"), NULL);
	check_send(&f.q->sends[1], 4, want, n);
	CU_ASSERT(f.q->sends[0].data != f.q->sends[1].data);

	/* The plain issue still sends the prepared bytes themselves. */
	CU_ASSERT_EQUAL(h3p_vt_issue(&f, prep, 3, f.now), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(f.q->send_count, 3);
	CU_ASSERT_PTR_EQUAL(f.q->sends[2].data, r->bytes);
	CU_ASSERT_EQUAL(f.q->sends[2].len, r->len);

	/* A bad header index takes no stream. */
	struct shb_var_header bad = {3, 0, "x", 1};
	struct shb_request_var vb = {
		.struct_size = sizeof(vb),
		.flags = SHB_VAR_HEADERS,
		.headers = &bad, .header_count = 1,
	};
	uint32_t cap = h3p_vt_capacity(&f);
	CU_ASSERT_EQUAL(issue_var(&f, prep, &vb, 4), SHB_E_INVAL);
	CU_ASSERT_EQUAL(h3p_vt_capacity(&f), cap);
	CU_ASSERT_EQUAL(f.q->opened, 3);
	f.vt->release_request(f.mod, prep);
	h3p_close(&f);
}

/* A GET template gets content-length and a DATA frame. */
static void test_body_added(void)
{
	struct h3p_fx f;
	uint8_t want[128];
	struct shb_request_var v = {
		.struct_size = sizeof(v),
		.flags = SHB_VAR_BODY,
		.body = (const uint8_t *)"xy", .body_len = 2,
	};

	h3p_open_ready(&f, 2);
	void *prep = prepare(&f, NULL);
	CU_ASSERT_EQUAL_FATAL(issue_var(&f, prep, &v, 1), SHB_OK);
	/* :method GET is static 17. */
	size_t n = request(want, LIT("\x00\x00\xd1\xd7\x50\x0b" "example.com"
				     "\xc1" XID("\x07{{seq}}") ACCEPT("\x03*/*")
				     "\x54\x01" "2"), "xy");
	CU_ASSERT_EQUAL_FATAL(f.q->send_count, 1);
	check_send(&f.q->sends[0], 0, want, n);
	f.vt->release_request(f.mod, prep);
	h3p_close(&f);
}

/* The varied section's size (RFC 9114 4.2.2) against the server's
 * SETTINGS_MAX_FIELD_SECTION_SIZE: the template's 309 (names, values and
 * 32 per line, host dropped) becomes 306 with the path 3 longer and the
 * X-Id value 6 shorter; one octet over is refused without a stream. */
static void test_section_size(void)
{
	struct h3p_fx f;
	struct shb_var_header h = {0, 0, "1", 1};
	struct shb_request_var v = {
		.struct_size = sizeof(v),
		.flags = SHB_VAR_PATH | SHB_VAR_HEADERS | SHB_VAR_BODY,
		.path = "/v/1", .path_len = 4,
		.headers = &h, .header_count = 1,
		.body = (const uint8_t *)"hello!", .body_len = 6,
	};

	h3p_open_ready(&f, 4);
	void *prep = prepare(&f, "tmpl");
	CU_ASSERT_EQUAL(((const struct shb_h3_request *)prep)->field_section_size, 309);
	f.c->peer.settings_received = 1;
	f.c->peer.max_field_section_size = 305;
	CU_ASSERT_EQUAL(issue_var(&f, prep, &v, 1), SHB_OK);
	CU_ASSERT_EQUAL(f.q->opened, 0);
	const struct shb_kit_done *d = h3p_done_for(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->res.outcome, SHB_REQ_LOCAL_ERROR);
	CU_ASSERT_STRING_EQUAL(d->detail, "the request's header section (306 "
			       "bytes) exceeds the server's "
			       "SETTINGS_MAX_FIELD_SECTION_SIZE (305)");
	f.c->peer.max_field_section_size = 306;
	CU_ASSERT_EQUAL(issue_var(&f, prep, &v, 2), SHB_OK);
	CU_ASSERT_EQUAL(f.q->opened, 1);
	CU_ASSERT_EQUAL(f.q->send_count, 1);
	f.vt->release_request(f.mod, prep);
	h3p_close(&f);
}

CU_TestInfo shb_h3p_var_tests[] = {
	{"section size against the server's limit", test_section_size},
	{"varied sections and owned bytes", test_sections},
	{"body added to a GET template", test_body_added},
	CU_TEST_INFO_NULL,
};
