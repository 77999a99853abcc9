/* RFC 9218 PRIORITY_UPDATE (type 0x10) on HTTP/2: the frame byte for
 * byte, sent right before the HEADERS of each request with a Priority
 * field in the same write, gated by the server's first SETTINGS
 * (NO_RFC7540_PRIORITIES, Section 2.1.1), switched off by
 * --proto-opt priority-update=off; a server's PRIORITY_UPDATE is a
 * connection error (Section 7.1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2_fixture.h"

#define LIT(s) s, sizeof(s) - 1

static const struct shb_kv prio_headers[] = {
	{"Accept", "*/*"},
	{"Priority", "u=1, i"},
};

static const struct shb_h2_setting_kv no7540[] = {
	{SHB_H2_SET_NO_RFC7540_PRIORITIES, 1},
};
static const struct shb_h2_setting_kv with7540[] = {
	{SHB_H2_SET_NO_RFC7540_PRIORITIES, 0},
};

/* The block of the GET with prio_headers: :method, :scheme indexed,
 * :authority with name index 1, :path "/" indexed, then the two
 * headers as literals without indexing. */
#define BLOCK "\x82\x86\x01\x0b" "example.com" "\x84" \
	"\x0f\x04\x03*/*" "\x00\x08priority\x06u=1, i"
#define EH_ES (SHB_H2_FLAG_END_HEADERS | SHB_H2_FLAG_END_STREAM)

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

/* Opens, makes ready and feeds the server's SETTINGS (n entries; n < 0:
 * none at all), then drops our output so far (the ACK). */
static void open_with(struct shb_h2_fx *f, const struct shb_kv *h, size_t nh,
		      const struct shb_h2_setting_kv *kv, int n)
{
	struct shb_h2_bytes in = {0};

	shb_h2_fx_open(f, 0, 4, NULL, 0, h, nh, 0);
	shb_h2_fx_ready(f);
	if (n >= 0) {
		shb_h2_srv_settings(&in, kv, (size_t)n);
		CU_ASSERT_EQUAL(shb_h2_fx_recv(f, in.p, in.len), (shb_ssize)in.len);
		shb_h2_fx_flush(f, 0);
	}
	f->sent.len = 0;
	shb_h2_bytes_free(&in);
}

static void test_frame_bytes(void)
{
	static const uint8_t want[] = {
		0x00, 0x00, 0x0a, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x03, 'u', '=', '1', ',', ' ', 'i',
	};
	static const uint8_t high[] = {
		0x00, 0x00, 0x07, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x7f, 0xff, 0xff, 0xff, 'u', '=', '7',
	};
	uint8_t out[32];

	memset(out, 0xee, sizeof(out));
	CU_ASSERT_EQUAL(shb_h2_write_priority_update(out, 3, "u=1, i", 6),
			sizeof(want));
	CU_ASSERT(memcmp(out, want, sizeof(want)) == 0);
	CU_ASSERT_EQUAL(out[sizeof(want)], 0xee);
	/* The reserved bit stays clear whatever the caller passes. */
	CU_ASSERT_EQUAL(shb_h2_write_priority_update(out, 0xffffffffu, "u=7", 3),
			sizeof(high));
	CU_ASSERT(memcmp(out, high, sizeof(high)) == 0);
	CU_ASSERT_STRING_EQUAL(shb_h2_frame_type_name(0x10), "PRIORITY_UPDATE");
}

/* Before the server's SETTINGS nothing says it ignores the frame: sent
 * (Section 2.1.1), before the HEADERS, in the one buffer a single
 * write takes. */
static void test_before_settings(void)
{
	struct shb_h2_fx f;
	struct shb_h2_fx_frame fr[4];
	struct shb_vec v[4];

	open_with(&f, prio_headers, 2, NULL, -1);
	CU_ASSERT_EQUAL(shb_h2_fx_issue_rc(&f, 1), SHB_OK);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_pull_send(&f, v, 4), 1);
	CU_ASSERT_EQUAL(v[0].len, 9 + 4 + 6 + 9 + sizeof(BLOCK) - 1);
	shb_h2_bytes_add(&f.sent, v[0].base, v[0].len);
	shb_h2_fx_sent(&f, v[0].len);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 4), 2);
	check_frame(&fr[0], SHB_H2_PRIORITY_UPDATE, 0, 0,
		    LIT("\x00\x00\x00\x01" "u=1, i"));
	check_frame(&fr[1], SHB_H2_HEADERS, EH_ES, 1, LIT(BLOCK));
	shb_h2_fx_close(&f);
}

/* NO_RFC7540_PRIORITIES = 1: one frame per request, each right before
 * its own HEADERS. */
static void test_server_opted_in(void)
{
	struct shb_h2_fx f;
	struct shb_h2_fx_frame fr[8];

	open_with(&f, prio_headers, 2, no7540, 1);
	CU_ASSERT_EQUAL(f.c->peer_no_7540, 1);
	CU_ASSERT_EQUAL(shb_h2_fx_issue_rc(&f, 1), SHB_OK);
	CU_ASSERT_EQUAL(shb_h2_fx_issue_rc(&f, 2), SHB_OK);
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 8), 4);
	check_frame(&fr[0], SHB_H2_PRIORITY_UPDATE, 0, 0,
		    LIT("\x00\x00\x00\x01" "u=1, i"));
	check_frame(&fr[1], SHB_H2_HEADERS, EH_ES, 1, LIT(BLOCK));
	check_frame(&fr[2], SHB_H2_PRIORITY_UPDATE, 0, 0,
		    LIT("\x00\x00\x00\x03" "u=1, i"));
	check_frame(&fr[3], SHB_H2_HEADERS, EH_ES, 3, LIT(BLOCK));
	shb_h2_fx_close(&f);
}

/* Without the setting, or with it at 0: the header alone. */
static void test_server_silent(void)
{
	struct shb_h2_fx f;
	struct shb_h2_fx_frame fr[4];

	for (int k = 0; k < 2; k++) {
		open_with(&f, prio_headers, 2, with7540, k);
		CU_ASSERT_EQUAL(shb_h2_fx_issue_rc(&f, 1), SHB_OK);
		shb_h2_fx_flush(&f, 0);
		CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 4), 1);
		check_frame(&fr[0], SHB_H2_HEADERS, EH_ES, 1, LIT(BLOCK));
		shb_h2_fx_close(&f);
	}
}

/* Only the first SETTINGS counts: a later 0 changes nothing. */
static void test_later_settings(void)
{
	struct shb_h2_fx f;
	struct shb_h2_fx_frame fr[4];
	struct shb_h2_bytes in = {0};

	open_with(&f, prio_headers, 2, no7540, 1);
	shb_h2_srv_settings(&in, with7540, 1);
	CU_ASSERT_EQUAL(shb_h2_fx_recv(&f, in.p, in.len), (shb_ssize)in.len);
	shb_h2_fx_flush(&f, 0);
	f.sent.len = 0;
	CU_ASSERT_EQUAL(shb_h2_fx_issue_rc(&f, 1), SHB_OK);
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 4), 2);
	CU_ASSERT_EQUAL(fr[0].h.type, SHB_H2_PRIORITY_UPDATE);
	CU_ASSERT_EQUAL(fr[1].h.type, SHB_H2_HEADERS);
	shb_h2_bytes_free(&in);
	shb_h2_fx_close(&f);
}

/* No Priority field: no frame, whatever the server says. */
static void test_no_field(void)
{
	struct shb_h2_fx f;
	struct shb_h2_fx_frame fr[4];

	open_with(&f, prio_headers, 1, no7540, 1);
	CU_ASSERT_EQUAL(shb_h2_fx_issue_rc(&f, 1), SHB_OK);
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 4), 1);
	CU_ASSERT_EQUAL(fr[0].h.type, SHB_H2_HEADERS);
	shb_h2_fx_close(&f);
}

/* priority-update=off: the header alone even for a server that opted
 * in; the option's values are checked. */
static void test_off(void)
{
	static const struct shb_kv off[] = {{"priority-update", "off"}};
	static const struct shb_kv bad[] = {{"priority-update", "on"}};
	const struct shb_proto_desc *d = shb_h2_test_desc();
	struct shb_run_config cfg;
	struct shb_h2_fx f;
	struct shb_h2_fx_frame fr[4];
	char err[160] = "";
	void *m = NULL;

	shb_h2_test_config(&cfg, 0, 1);
	cfg.options = bad;
	cfg.option_count = 1;
	CU_ASSERT_EQUAL(d->vt->module_create(&shb_h2_kit.host, &cfg, &m, err,
					     sizeof(err)), SHB_E_INVAL);
	CU_ASSERT_PTR_NULL(m);
	CU_ASSERT_STRING_EQUAL(err, "h2: --proto-opt priority-update=on: "
			       "expected auto or off");
	cfg.options = off;
	CU_ASSERT_EQUAL_FATAL(d->vt->module_create(&shb_h2_kit.host, &cfg, &m,
						   err, sizeof(err)), SHB_OK);
	CU_ASSERT_EQUAL(((struct shb_h2_module *)m)->no_prio_update, 1);
	d->vt->module_destroy(m);
	CU_ASSERT_PTR_NOT_NULL(d->option_defs);
	CU_ASSERT_STRING_EQUAL(d->option_defs[0].key, "priority-update");
	CU_ASSERT_STRING_EQUAL(d->option_defs[1].key, "profile");
	CU_ASSERT_PTR_NULL(d->option_defs[2].key);

	open_with(&f, prio_headers, 2, no7540, 1);
	((struct shb_h2_module *)f.mod)->no_prio_update = 1;
	CU_ASSERT_EQUAL(shb_h2_fx_issue_rc(&f, 1), SHB_OK);
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 4), 1);
	check_frame(&fr[0], SHB_H2_HEADERS, EH_ES, 1, LIT(BLOCK));
	shb_h2_fx_close(&f);
}

/* issue_var: a varied Priority value is what the frame carries. */
static void test_varied_value(void)
{
	struct shb_h2_fx f;
	struct shb_h2_fx_frame fr[4];
	struct shb_var_header h = {1, 0, "u=6", 3};
	struct shb_request_var v = {
		.struct_size = sizeof(v),
		.flags = SHB_VAR_HEADERS,
		.headers = &h, .header_count = 1,
	};

	open_with(&f, prio_headers, 2, no7540, 1);
	shb_kit_clock_set(&shb_h2_kit.clock, f.now);
	CU_ASSERT_EQUAL(shb_kit_conn_issue_var(&f.kc, f.prep, &v, 1), SHB_OK);
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 4), 2);
	check_frame(&fr[0], SHB_H2_PRIORITY_UPDATE, 0, 0,
		    LIT("\x00\x00\x00\x01" "u=6"));
	check_frame(&fr[1], SHB_H2_HEADERS, EH_ES, 1,
		    LIT("\x82\x86\x01\x0b" "example.com" "\x84"
			"\x0f\x04\x03*/*" "\x00\x08priority\x03u=6"));
	shb_h2_fx_close(&f);
}

/* SETTINGS_NO_RFC7540_PRIORITIES above 1, and a PRIORITY_UPDATE from
 * the server: connection errors of type PROTOCOL_ERROR. */
static void test_peer_errors(void)
{
	static const struct shb_h2_setting_kv two[] = {
		{SHB_H2_SET_NO_RFC7540_PRIORITIES, 2},
	};
	struct shb_h2_fx f;
	struct shb_h2_fx_frame fr[4];
	struct shb_h2_bytes in = {0};

	shb_h2_fx_open(&f, 0, 4, NULL, 0, prio_headers, 2, 0);
	shb_h2_fx_ready(&f);
	shb_h2_srv_settings(&in, two, 1);
	CU_ASSERT(shb_h2_fx_recv(&f, in.p, in.len) < 0);
	CU_ASSERT_STRING_EQUAL(shb_h2_fx_error_detail(&f),
			       "h2: SETTINGS_NO_RFC7540_PRIORITIES = 2");
	shb_h2_fx_flush(&f, 0);
	CU_ASSERT_EQUAL_FATAL(shb_h2_fx_frames(f.sent.p, f.sent.len, fr, 4), 1);
	check_frame(&fr[0], SHB_H2_GOAWAY, 0, 0,
		    LIT("\0\0\0\0\0\0\0\x01"));
	shb_h2_fx_close(&f);

	open_with(&f, prio_headers, 2, no7540, 1);
	in.len = 0;
	shb_h2_srv_frame(&in, SHB_H2_PRIORITY_UPDATE, 0, 0,
			 "\0\0\0\x01u=1", 7);
	CU_ASSERT(shb_h2_fx_recv(&f, in.p, in.len) < 0);
	CU_ASSERT_STRING_EQUAL(shb_h2_fx_error_detail(&f),
			       "h2: PRIORITY_UPDATE from the server "
			       "(RFC 9218 7.1: only clients send it)");
	shb_h2_bytes_free(&in);
	shb_h2_fx_close(&f);
}

CU_TestInfo shb_h2_prio_tests[] = {
	{"PRIORITY_UPDATE frame bytes", test_frame_bytes},
	{"before the server's SETTINGS: frame, then HEADERS, one write",
	 test_before_settings},
	{"NO_RFC7540_PRIORITIES=1: a frame before each HEADERS",
	 test_server_opted_in},
	{"setting absent or 0: the header alone", test_server_silent},
	{"a later SETTINGS does not change it", test_later_settings},
	{"no Priority field: no frame", test_no_field},
	{"priority-update=off and its values", test_off},
	{"issue_var: the varied value", test_varied_value},
	{"bad setting value, server PRIORITY_UPDATE", test_peer_errors},
	CU_TEST_INFO_NULL,
};
