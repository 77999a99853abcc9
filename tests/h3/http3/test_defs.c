/* Code points and the QPACK static table, checked line by line against the
 * RFC vector files in tests/vectors. */
#include "http3_tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h3_defs.h"
#include "qpack_static.h"

struct named {
	const char *kind;
	const char *name;
	uint64_t value;
	int seen;
};

static struct named codes[] = {
	{"H3_FRAME", "DATA", SHB_H3_FRAME_DATA, 0},
	{"H3_FRAME", "HEADERS", SHB_H3_FRAME_HEADERS, 0},
	{"H3_FRAME", "CANCEL_PUSH", SHB_H3_FRAME_CANCEL_PUSH, 0},
	{"H3_FRAME", "SETTINGS", SHB_H3_FRAME_SETTINGS, 0},
	{"H3_FRAME", "PUSH_PROMISE", SHB_H3_FRAME_PUSH_PROMISE, 0},
	{"H3_FRAME", "GOAWAY", SHB_H3_FRAME_GOAWAY, 0},
	{"H3_FRAME", "MAX_PUSH_ID", SHB_H3_FRAME_MAX_PUSH_ID, 0},
	{"H3_FRAME_RESERVED", "PRIORITY", SHB_H3_FRAME_H2_PRIORITY, 0},
	{"H3_FRAME_RESERVED", "PING", SHB_H3_FRAME_H2_PING, 0},
	{"H3_FRAME_RESERVED", "WINDOW_UPDATE", SHB_H3_FRAME_H2_WINDOW_UPDATE,
	 0},
	{"H3_FRAME_RESERVED", "CONTINUATION", SHB_H3_FRAME_H2_CONTINUATION, 0},
	{"H3_SETTING", "SETTINGS_QPACK_MAX_TABLE_CAPACITY",
	 SHB_H3_SETTING_QPACK_MAX_TABLE_CAPACITY, 0},
	{"H3_SETTING", "SETTINGS_MAX_FIELD_SECTION_SIZE",
	 SHB_H3_SETTING_MAX_FIELD_SECTION_SIZE, 0},
	{"H3_SETTING", "SETTINGS_QPACK_BLOCKED_STREAMS",
	 SHB_H3_SETTING_QPACK_BLOCKED_STREAMS, 0},
	{"H3_STREAM_TYPE", "CONTROL", SHB_H3_STREAM_CONTROL, 0},
	{"H3_STREAM_TYPE", "PUSH", SHB_H3_STREAM_PUSH, 0},
	{"H3_STREAM_TYPE", "QPACK_ENCODER", SHB_H3_STREAM_QPACK_ENCODER, 0},
	{"H3_STREAM_TYPE", "QPACK_DECODER", SHB_H3_STREAM_QPACK_DECODER, 0},
};

static FILE *open_vector(const char *name)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", SHB_TEST_VECTORS, name);
	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	return f;
}

/* Splits a data line at TABs into at most `max` fields; returns the count
 * (0 for comments and blank lines). */
static int fields(char *line, char **f, int max)
{
	int n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	if (line[0] == '#' || line[0] == '\0')
		return 0;
	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

static void test_frame_types(void)
{
	FILE *f = open_vector("h3-frame-types.txt");
	char line[1024], *fl[8];
	int reserved_settings = 0;

	while (fgets(line, sizeof(line), f)) {
		int n = fields(line, fl, 8);
		uint64_t v;

		if (n < 3 || strncmp(fl[0], "H3_", 3) != 0)
			continue;
		v = strtoull(fl[1], NULL, 16);
		if (strcmp(fl[0], "H3_SETTING_RESERVED") == 0) {
			/* 0x00 and 0x02..0x05, which the peer reader refuses */
			CU_ASSERT(v == 0 || (v >= 2 && v <= 5));
			reserved_settings++;
			continue;
		}
		int found = 0;
		for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
			if (strcmp(codes[i].kind, fl[0]) == 0 &&
			    strcmp(codes[i].name, fl[2]) == 0) {
				CU_ASSERT_EQUAL(codes[i].value, v);
				codes[i].seen++;
				found = 1;
			}
		}
		CU_ASSERT(found);
	}
	fclose(f);
	CU_ASSERT_EQUAL(reserved_settings, 5);
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		CU_ASSERT_EQUAL(codes[i].seen, 1);
}

static void test_error_codes(void)
{
	FILE *f = open_vector("quic-error-codes.txt");
	char line[1024], *fl[8];
	int count = 0;

	while (fgets(line, sizeof(line), f)) {
		int n = fields(line, fl, 8);
		const char *name;

		if (n < 3 || strcmp(fl[0], "H3_ERROR") != 0)
			continue;
		name = shb_h3_error_name(strtoull(fl[1], NULL, 16));
		CU_ASSERT_PTR_NOT_NULL(name);
		if (name)
			CU_ASSERT_STRING_EQUAL(name, fl[2]);
		count++;
	}
	fclose(f);
	CU_ASSERT_EQUAL(count, 20);
	CU_ASSERT_PTR_NULL(shb_h3_error_name(0x00ff));
	CU_ASSERT_PTR_NULL(shb_h3_error_name(0x0111));
	CU_ASSERT_PTR_NULL(shb_h3_error_name(0x0203));
	CU_ASSERT_STRING_EQUAL(shb_h3_error_name(SHB_H3_FRAME_UNEXPECTED),
			       "H3_FRAME_UNEXPECTED");
}

static void test_static_table(void)
{
	FILE *f = open_vector("qpack-static-table.txt");
	char line[1024], *fl[4];
	int count = 0, statuses = 0;

	while (fgets(line, sizeof(line), f)) {
		int n = fields(line, fl, 4);
		const struct shb_qpack_static_entry *e;
		const char *value;
		int idx;

		if (n < 2)
			continue;
		idx = atoi(fl[0]);
		value = n > 2 ? fl[2] : "";
		CU_ASSERT_EQUAL(idx, count);
		e = shb_qpack_static_get((uint64_t)idx);
		CU_ASSERT_PTR_NOT_NULL_FATAL(e);
		CU_ASSERT_STRING_EQUAL(e->name, fl[1]);
		CU_ASSERT_STRING_EQUAL(e->value, value);
		CU_ASSERT_EQUAL(e->name_len, strlen(fl[1]));
		CU_ASSERT_EQUAL(e->value_len, strlen(value));
		CU_ASSERT_EQUAL(shb_qpack_static_is_status((uint64_t)idx),
				strcmp(fl[1], ":status") == 0);
		CU_ASSERT_EQUAL(shb_qpack_static_find(fl[1], strlen(fl[1]),
						      value, strlen(value)),
				idx);
		statuses += strcmp(fl[1], ":status") == 0;
		count++;
	}
	fclose(f);
	CU_ASSERT_EQUAL(count, SHB_QPACK_STATIC_COUNT);
	CU_ASSERT_EQUAL(statuses, 14);
	CU_ASSERT_PTR_NULL(shb_qpack_static_get(SHB_QPACK_STATIC_COUNT));
	CU_ASSERT(!shb_qpack_static_is_status(SHB_QPACK_STATIC_COUNT));
	CU_ASSERT_EQUAL(shb_qpack_static_find(":method", 7, "PATCH", 5), -1);
	/* The indices the encoder relies on by number. */
	CU_ASSERT_STRING_EQUAL(
		shb_qpack_static_get(SHB_QPACK_IDX_METHOD_CONNECT)->value,
		"CONNECT");
	CU_ASSERT_STRING_EQUAL(
		shb_qpack_static_get(SHB_QPACK_IDX_METHOD_PUT)->value, "PUT");
	CU_ASSERT_STRING_EQUAL(
		shb_qpack_static_get(SHB_QPACK_IDX_SCHEME_HTTPS)->value,
		"https");
	CU_ASSERT_STRING_EQUAL(
		shb_qpack_static_get(SHB_QPACK_IDX_CONTENT_LENGTH)->name,
		"content-length");
}

static void test_grease(void)
{
	CU_ASSERT(shb_h3_is_grease(0x21));
	CU_ASSERT(shb_h3_is_grease(0x40));
	CU_ASSERT(shb_h3_is_grease(0x1f * 1000 + 0x21));
	CU_ASSERT(!shb_h3_is_grease(0x20));
	CU_ASSERT(!shb_h3_is_grease(0x22));
	CU_ASSERT(!shb_h3_is_grease(0x00));
	CU_ASSERT(!shb_h3_is_grease(0x01));
}

CU_TestInfo shb_h3t_defs_tests[] = {
	{"frame, stream and setting types", test_frame_types},
	{"error codes and names", test_error_codes},
	{"static table", test_static_table},
	{"grease code points", test_grease},
	CU_TEST_INFO_NULL,
};
