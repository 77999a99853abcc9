/* The frame codec, byte for byte, for every frame type shb writes. */
#include <string.h>

#include "h2_frame.h"
#include "h2_tests.h"

#define EQ_BYTES(got, n, ...)                                                  \
	do {                                                                   \
		static const uint8_t want_[] = {__VA_ARGS__};                  \
		CU_ASSERT_EQUAL((n), sizeof(want_));                           \
		CU_ASSERT_EQUAL(memcmp((got), want_, sizeof(want_)), 0);       \
	} while (0)

static void test_header_round_trip(void)
{
	uint8_t p[9];
	struct shb_h2_frame_header h;

	EQ_BYTES(p, shb_h2_frame_header_write(p, 0x123456, 0x9, 0xa5, 0x7654321),
		 0x12, 0x34, 0x56, 0x09, 0xa5, 0x07, 0x65, 0x43, 0x21);
	shb_h2_frame_header_parse(p, &h);
	CU_ASSERT_EQUAL(h.length, 0x123456);
	CU_ASSERT_EQUAL(h.type, 9);
	CU_ASSERT_EQUAL(h.flags, 0xa5);
	CU_ASSERT_EQUAL(h.stream_id, 0x7654321);
	/* The reserved bit is ignored on input and never written. */
	p[5] |= 0x80;
	shb_h2_frame_header_parse(p, &h);
	CU_ASSERT_EQUAL(h.stream_id, 0x7654321);
	shb_h2_frame_header_write(p, 0, 0, 0, 0xffffffffu);
	CU_ASSERT_EQUAL(p[5], 0x7f);
	CU_ASSERT_EQUAL(p[8], 0xff);
}

static void test_settings(void)
{
	static const struct shb_h2_setting_kv kv[] = {
		{SHB_H2_SET_HEADER_TABLE_SIZE, 0},
		{SHB_H2_SET_ENABLE_PUSH, 0},
		{SHB_H2_SET_INITIAL_WINDOW_SIZE, 0x7fffffff},
	};
	uint8_t p[64];

	EQ_BYTES(p, shb_h2_write_settings(p, kv, 3),
		 0x00, 0x00, 0x12, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,
		 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
		 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
		 0x00, 0x04, 0x7f, 0xff, 0xff, 0xff);
	EQ_BYTES(p, shb_h2_write_settings(p, kv, 0),
		 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00);
	EQ_BYTES(p, shb_h2_write_settings_ack(p),
		 0x00, 0x00, 0x00, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00);
}

static void test_window_update(void)
{
	uint8_t p[16];

	EQ_BYTES(p, shb_h2_write_window_update(p, 0, 0x7fff0000),
		 0x00, 0x00, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00,
		 0x7f, 0xff, 0x00, 0x00);
	EQ_BYTES(p, shb_h2_write_window_update(p, 3, 0xffffffffu),
		 0x00, 0x00, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00, 0x03,
		 0x7f, 0xff, 0xff, 0xff);
}

static void test_rst_stream(void)
{
	uint8_t p[16];

	EQ_BYTES(p, shb_h2_write_rst_stream(p, 0x10001, SHB_H2_CANCEL),
		 0x00, 0x00, 0x04, 0x03, 0x00, 0x00, 0x01, 0x00, 0x01,
		 0x00, 0x00, 0x00, 0x08);
}

static void test_ping(void)
{
	static const uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	uint8_t p[32];

	EQ_BYTES(p, shb_h2_write_ping(p, data, 1),
		 0x00, 0x00, 0x08, 0x06, 0x01, 0x00, 0x00, 0x00, 0x00,
		 1, 2, 3, 4, 5, 6, 7, 8);
	EQ_BYTES(p, shb_h2_write_ping(p, data, 0),
		 0x00, 0x00, 0x08, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00,
		 1, 2, 3, 4, 5, 6, 7, 8);
}

static void test_goaway(void)
{
	uint8_t p[32];

	EQ_BYTES(p, shb_h2_write_goaway(p, 0, SHB_H2_NO_ERROR),
		 0x00, 0x00, 0x08, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00,
		 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00);
	EQ_BYTES(p, shb_h2_write_goaway(p, 0x81020304u, SHB_H2_COMPRESSION_ERROR),
		 0x00, 0x00, 0x08, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00,
		 0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x00, 0x09);
}

static void test_names(void)
{
	CU_ASSERT_STRING_EQUAL(shb_h2_frame_type_name(0), "DATA");
	CU_ASSERT_STRING_EQUAL(shb_h2_frame_type_name(9), "CONTINUATION");
	CU_ASSERT_STRING_EQUAL(shb_h2_frame_type_name(10), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(shb_h2_error_name(0), "NO_ERROR");
	CU_ASSERT_STRING_EQUAL(shb_h2_error_name(7), "REFUSED_STREAM");
	CU_ASSERT_STRING_EQUAL(shb_h2_error_name(0xd), "HTTP_1_1_REQUIRED");
	CU_ASSERT_STRING_EQUAL(shb_h2_error_name(0xe), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(shb_h2_error_name(UINT64_MAX), "UNKNOWN");
	CU_ASSERT_EQUAL(SHB_H2_PREFACE_LEN, strlen(SHB_H2_PREFACE));
}

CU_TestInfo shb_h2_frame_tests[] = {
	{"frame header write and parse", test_header_round_trip},
	{"SETTINGS and SETTINGS ACK", test_settings},
	{"WINDOW_UPDATE", test_window_update},
	{"RST_STREAM", test_rst_stream},
	{"PING", test_ping},
	{"GOAWAY", test_goaway},
	{"type and error names", test_names},
	CU_TEST_INFO_NULL,
};
