/* What a connection profile changes in HTTP/3: our SETTINGS from a list
 * (ids, values and order as given, a reserved one where the list says),
 * and a request's pseudo-header order and default headers merged with
 * the user's. */
#include "http3_tests.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "h3_defs.h"
#include "h3_local.h"
#include "h3_request.h"
#include "qpack_fields.h"

static int same(const uint8_t *got, size_t n, const char *hex)
{
	uint8_t want[SHB_H3_LOCAL_CONTROL_MAX];
	size_t m = shb_h3t_unhex(want, sizeof(want), hex);

	return n == m && memcmp(got, want, n) == 0;
}

/* Firefox 147's list, its QPACK values lowered to a decoder without a
 * table (h3_profile.c does that). */
static void test_control_list(void)
{
	static const struct shb_h3_setting ff[] = {
		{1, 0}, {7, 0}, {0x2b603742, 0}, {0xffd277, 1}, {0x33, 1}, {8, 1}};
	static const struct shb_h3_setting chrome[] = {
		{1, 0}, {6, 262144}, {7, 0}, {0x33, 1}, {SHB_H3_SETTING_GREASE, 0}};
	uint8_t out[SHB_H3_LOCAL_CONTROL_MAX];
	char t[128];
	size_t n;

	n = shb_h3_local_control_list(out, sizeof(out), ff, 6, 77);
	CU_ASSERT(same(out, n, "00 04 12 0100 0700 ab603742 00 80ffd277 01 3301 0801"));
	CU_ASSERT_EQUAL(shb_h3_local_settings_text(out, n, t, sizeof(t)), 39);
	CU_ASSERT_STRING_EQUAL(t, "1:0;7:0;727725890:0;16765559:1;51:1;8:1");
	n = shb_h3_local_control_list(out, sizeof(out), chrome, 5, 5);
	CU_ASSERT(same(out, n, "00 04 0e 0100 06 80040000 0700 3301 40bc 05"));
	CU_ASSERT(shb_h3_local_settings_text(out, n, t, sizeof(t)) > 0);
	CU_ASSERT_STRING_EQUAL(t, "1:0;6:262144;7:0;51:1;GREASE");
	/* grease 0: the reserved entry is left out. */
	n = shb_h3_local_control_list(out, sizeof(out), chrome, 5, 0);
	CU_ASSERT(same(out, n, "00 04 0b 0100 06 80040000 0700 3301"));
}

static void test_control_list_refused(void)
{
	struct shb_h3_setting s[SHB_H3_LOCAL_SETTINGS_MAX + 1];
	uint8_t out[SHB_H3_LOCAL_CONTROL_MAX];

	for (size_t i = 0; i < SHB_H3_LOCAL_SETTINGS_MAX + 1; i++)
		s[i] = (struct shb_h3_setting){0x40 + i, 1};
	CU_ASSERT_EQUAL(shb_h3_local_control_list(out, sizeof(out), s,
						  SHB_H3_LOCAL_SETTINGS_MAX + 1, 0), 0);
	CU_ASSERT(shb_h3_local_control_list(out, sizeof(out), s,
					    SHB_H3_LOCAL_SETTINGS_MAX, 0) > 0);
	s[1].id = s[0].id; /* twice: H3_SETTINGS_ERROR at the server */
	CU_ASSERT_EQUAL(shb_h3_local_control_list(out, sizeof(out), s, 2, 0), 0);
	s[1].id = UINT64_C(1) << 62; /* no varint */
	CU_ASSERT_EQUAL(shb_h3_local_control_list(out, sizeof(out), s, 2, 0), 0);
	s[1].id = 9;
	CU_ASSERT_EQUAL(shb_h3_local_control_list(out, 5, s, 2, 0), 0);
}

/* :method :authority :scheme :path, the profile's headers with the
 * user's Accept in its place, then the user's other header; Host left
 * out as always. */
static void test_request_look(void)
{
	static const struct shb_kv defaults[] = {
		{"user-agent", "UA/1"}, {"accept", "*/*"}, {"te", "trailers"}};
	static const struct shb_kv user[] = {
		{"X-One", "1"}, {"Host", "h"}, {"Accept", "text/x"}};
	const struct shb_h3_look look = {"masp", defaults, 3};
	struct shb_request req = {
		.struct_size = sizeof(req), .method = "GET", .scheme = "https",
		.authority = "example.com", .path = "/",
		.headers = user, .header_count = 3,
	};
	struct shb_buf strs = SHB_BUF_INIT(64, 4096), kvs = SHB_BUF_INIT(64, 4096);
	struct shb_h3_request *r = NULL;
	char err[128] = "";
	const struct shb_kv *kv;
	const uint8_t *sec;

	CU_ASSERT_EQUAL_FATAL(shb_h3_request_encode_as(&req, &look, &r, err,
						       sizeof(err)), SHB_OK);
	sec = r->bytes + r->section_off;
	CU_ASSERT(memcmp(sec, "\x00\x00\xd1\x50\x0b" "example.com" "\xd7\xc1", 18) == 0);
	CU_ASSERT_EQUAL_FATAL(shb_qpack_fields(sec, r->section_len, NULL, &strs, &kvs), 4);
	kv = (const struct shb_kv *)(void *)kvs.p;
	CU_ASSERT_STRING_EQUAL(kv[0].key, "user-agent");
	CU_ASSERT_STRING_EQUAL(kv[0].value, "UA/1");
	CU_ASSERT_STRING_EQUAL(kv[1].key, "accept");
	CU_ASSERT_STRING_EQUAL(kv[1].value, "text/x");
	CU_ASSERT_STRING_EQUAL(kv[2].key, "te");
	CU_ASSERT_STRING_EQUAL(kv[3].key, "x-one");
	/* The user's headers keep their places for issue_var. */
	CU_ASSERT_EQUAL(r->at[2].value_len, 6);
	CU_ASSERT_EQUAL(r->at[0].value_len, 1);
	CU_ASSERT_EQUAL(r->at[1].len, 0); /* Host: dropped */
	/* 42 + 53 + 44 + 38, then 10+4, 6+6, 2+8, 5+1, each +32 */
	CU_ASSERT_EQUAL(r->field_section_size, 177 + 42 + 4 * 32);
	shb_h3_request_free(r);
	/* No look: shb's own order, :method :scheme :authority :path. */
	req.header_count = 0;
	CU_ASSERT_EQUAL_FATAL(shb_h3_request_encode_as(&req, NULL, &r, err,
						       sizeof(err)), SHB_OK);
	CU_ASSERT(memcmp(r->bytes + r->section_off, "\x00\x00\xd1\xd7\x50\x0b", 6) == 0);
	shb_h3_request_free(r);
	shb_buf_free(&strs);
	shb_buf_free(&kvs);
}

CU_TestInfo shb_h3t_look_tests[] = {
	{"SETTINGS from a list", test_control_list},
	{"SETTINGS lists refused", test_control_list_refused},
	{"a request in a profile's look", test_request_look},
	CU_TEST_INFO_NULL,
};
