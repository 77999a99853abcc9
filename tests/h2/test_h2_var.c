/* issue_var: the header block varied per request (:path, header values,
 * content-length) byte for byte, and varied bodies that outlive the call
 * that lent them, through the vtable under the test kit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_fixture.h"

static const struct shb_kv var_headers[] = {
	{"X-Id", "{{seq}}"},
	{"Host", "h"}, /* dropped: its value is the authority */
	{"Accept", "*/*"},
};

static const struct shb_h2_setting_kv big_frames[] = {
	{SHB_H2_SET_MAX_FRAME_SIZE, 16777215},
};

static int issue_var(struct shb_h2_fx *f, const struct shb_request_var *v,
		     uint64_t cookie)
{
	shb_kit_clock_set(&shb_h2_kit.clock, f->now);
	return shb_kit_conn_issue_var(&f->kc, f->prep, v, cookie);
}

#define LIT(s) s, sizeof(s) - 1

static void check_frame(const struct shb_h2_fx_frame *fr, uint8_t type,
			uint8_t flags, uint32_t sid, const void *want,
			size_t len)
{
	CU_ASSERT_EQUAL(fr->h.type, type);
	CU_ASSERT_EQUAL(fr->h.flags, flags);
	CU_ASSERT_EQUAL(fr->h.stream_id, sid);
	CU_ASSERT_EQUAL(fr->h.length, len);
	CU_ASSERT(fr->h.length == len && memcmp(fr->payload, want, len) == 0);
}

/* The prefix every block here shares: :method POST and :scheme http
 * indexed, :authority a literal with name index 1. */
#define HEAD3 "\x83\x86\x01\x0b" "example.com"

static void test_blocks_and_bodies(void)
{
	struct shb_h2_fx f;
	struct shb_h2_fx_frame fr[8];
	struct shb_h2_bytes in = {0};
	char body1[] = "hello!", body2[] = "WORLD!!";
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
		.flags = SHB_VAR_PATH | SHB_VAR_HEADERS | SHB_VAR_BODY,
		.path = "/v/2", .path_len = 4,
		.headers = &h2, .header_count = 1,
		.body = (const uint8_t *)body2, .body_len = 7,
	};
	struct shb_request_var v3 = {
		.struct_size = sizeof(v3),
		.flags = SHB_VAR_BODY,
		.body = (const uint8_t *)"", .body_len = 0,
	};

	shb_h2_fx_open(&f, 0, 4, (const uint8_t *)"tmpl", 4, var_headers, 3, 0);
	shb_h2_fx_ready(&f);
	/* The template's own block, for reference. */
	static const char tmpl[] = HEAD3 "\x84" "\x00\x04x-id\x07{{seq}}"
				   "\x0f\x04\x03*/*" "\x0f\x0d\x01" "4";
	const struct shb_h2_request *r = f.prep;
	CU_ASSERT(r->block_len == sizeof(tmpl) - 1 &&
		  memcmp(r->block, tmpl, r->block_len) == 0);

	/* No DATA before the server's SETTINGS: the bodies wait in the
	 * stream slots while the caller's buffers change. */
	CU_ASSERT_EQUAL(issue_var(&f, &v1, 1), SHB_OK);
	CU_ASSERT_EQUAL(issue_var(&f, &v2, 2), SHB_OK);
	CU_ASSERT_EQUAL(issue_var(&f, &v3, 3), SHB_OK);
	memset(body1, '#', 6);
	memset(body2, '#', 7);
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 8), 3);
	check_frame(&fr[0], SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
		    LIT(HEAD3 "\x04\x04/v/1" "\x00\x04x-id\x01" "1"
			"\x0f\x04\x03*/*" "\x0f\x0d\x01" "6"));
	check_frame(&fr[1], SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 3,
		    LIT(HEAD3 "\x04\x04/v/2" "\x00\x04x-id\x07{{seq}}"
			"\x0f\x04\x03" "a/b" "\x0f\x0d\x01" "7"));
	/* An empty body: content-length 0 and END_STREAM on HEADERS. */
	check_frame(&fr[2], SHB_H2_HEADERS,
		    SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM, 5,
		    LIT(HEAD3 "\x84" "\x00\x04x-id\x07{{seq}}"
			"\x0f\x04\x03*/*" "\x0f\x0d\x01" "0"));

	f.sent.len = 0;
	shb_h2_srv_settings(&in, big_frames, 1);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, in.p, in.len), (shb_ssize)in.len);
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 8), 3);
	CU_ASSERT_EQUAL(fr[0].h.type, SHB_H2_SETTINGS);
	check_frame(&fr[1], SHB_H2_DATA, SHB_H2_FLAG_END_STREAM, 1, LIT("hello!"));
	check_frame(&fr[2], SHB_H2_DATA, SHB_H2_FLAG_END_STREAM, 3, LIT("WORLD!!"));

	in.len = 0;
	for (uint32_t sid = 1; sid <= 5; sid += 2)
		shb_h2_srv_status(&in, sid, SHB_H2_FLAG_END_STREAM |
				  SHB_H2_FLAG_END_HEADERS, 200);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, in.p, in.len), (shb_ssize)in.len);
	CU_ASSERT_EQUAL_FATAL(shb_h2_kit.done_count, 3);
	for (uint64_t k = 1; k <= 3; k++) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(shb_h2_fx_done(k));
		CU_ASSERT_EQUAL(shb_h2_fx_done(k)->res.status, 200);
	}

	/* A larger body (its slot's buffer grows), then a plain issue that
	 * sends the template's block and body again. */
	char big[3000];
	memset(big, 'b', sizeof(big));
	v3.body = (const uint8_t *)big;
	v3.body_len = sizeof(big);
	f.sent.len = 0;
	CU_ASSERT_EQUAL(issue_var(&f, &v3, 4), SHB_OK);
	CU_ASSERT_EQUAL(shb_h2_fx_issue_rc(&f, 5), SHB_OK);
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 8), 4);
	check_frame(&fr[0], SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 7,
		    LIT(HEAD3 "\x84" "\x00\x04x-id\x07{{seq}}"
			"\x0f\x04\x03*/*" "\x0f\x0d\x04" "3000"));
	check_frame(&fr[1], SHB_H2_DATA, SHB_H2_FLAG_END_STREAM, 7, big,
		    sizeof(big));
	check_frame(&fr[2], SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 9,
		    tmpl, sizeof(tmpl) - 1);
	check_frame(&fr[3], SHB_H2_DATA, SHB_H2_FLAG_END_STREAM, 9, LIT("tmpl"));
	shb_h2_bytes_free(&in);
	shb_h2_fx_close(&f);
}

/* A GET template gets content-length and DATA for a varied body. */
static void test_body_added(void)
{
	struct shb_h2_fx f;
	struct shb_h2_fx_frame fr[4];
	struct shb_h2_bytes in = {0};
	struct shb_request_var v = {
		.struct_size = sizeof(v),
		.flags = SHB_VAR_BODY,
		.body = (const uint8_t *)"xy", .body_len = 2,
	};

	shb_h2_fx_open(&f, 0, 2, NULL, 0, NULL, 0, 0);
	shb_h2_fx_ready(&f);
	shb_h2_srv_settings(&in, big_frames, 1);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, in.p, in.len), (shb_ssize)in.len);
	shb_h2_fx_flush(&f, 0);
	f.sent.len = 0;
	CU_ASSERT_EQUAL(issue_var(&f, &v, 1), SHB_OK);
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 4), 2);
	check_frame(&fr[0], SHB_H2_HEADERS, SHB_H2_FLAG_END_HEADERS, 1,
		    LIT("\x82\x86\x01\x0b" "example.com" "\x84"
			"\x0f\x0d\x01" "2"));
	check_frame(&fr[1], SHB_H2_DATA, SHB_H2_FLAG_END_STREAM, 1, LIT("xy"));
	shb_h2_bytes_free(&in);
	shb_h2_fx_close(&f);
}

static void test_refused(void)
{
	struct shb_h2_fx f;
	struct shb_var_header bad = {3, 0, "x", 1};
	struct shb_var_header order[] = {{2, 0, "x", 1}, {0, 0, "y", 1}};
	struct shb_request_var v = {
		.struct_size = sizeof(v),
		.flags = SHB_VAR_HEADERS,
		.headers = &bad, .header_count = 1,
	};

	shb_h2_fx_open(&f, 0, 2, NULL, 0, var_headers, 3, 0);
	CU_ASSERT_EQUAL(issue_var(&f, &v, 1), SHB_E_BUSY); /* not ready */
	shb_h2_fx_ready(&f);
	CU_ASSERT_EQUAL(issue_var(&f, &v, 1), SHB_E_INVAL);
	v.headers = order;
	v.header_count = 2;
	CU_ASSERT_EQUAL(issue_var(&f, &v, 2), SHB_E_INVAL);
	CU_ASSERT_EQUAL(shb_h2_fx_capacity(&f), 2); /* no stream taken */
	shb_h2_fx_close(&f);
}

CU_TestInfo shb_h2_var_tests[] = {
	{"varied blocks and held bodies", test_blocks_and_bodies},
	{"body added to a GET template", test_body_added},
	{"bad header index, busy", test_refused},
	CU_TEST_INFO_NULL,
};
