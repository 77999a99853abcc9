/* QUIC varints and frame headers: RFC 9000 Appendix A.1 examples, class
 * boundaries, and the one-octet-at-a-time reader at every split. */
#include "http3_tests.h"

#include <string.h>

#include "h3_frame.h"
#include "h3_varint.h"

struct example {
	const char *hex;
	uint64_t value;
	int minimal;
};

/* RFC 9000 Appendix A.1. */
static const struct example examples[] = {
	{"c2197c5eff14e88c", UINT64_C(151288809941952652), 1},
	{"9d7f3e7d", 494878333, 1},
	{"7bbd", 15293, 1},
	{"25", 37, 1},
	{"4025", 37, 0},
};

/* Reads in[n] split into two pieces at every offset. */
static void read_split(const uint8_t *in, size_t n, uint64_t want)
{
	for (size_t cut = 0; cut <= n; cut++) {
		struct shb_h3_varint v = {0};
		int done;
		size_t a = shb_h3_varint_feed(&v, in, cut, &done);

		CU_ASSERT_EQUAL(a, cut);
		CU_ASSERT_EQUAL(done, cut == n);
		if (cut < n) {
			size_t b = shb_h3_varint_feed(&v, in + cut, n - cut,
						      &done);
			CU_ASSERT_EQUAL(b, n - cut);
			CU_ASSERT(done);
		}
		CU_ASSERT_EQUAL(v.value, want);
	}
}

static void test_examples(void)
{
	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		uint8_t in[8], out[8];
		size_t n = shb_h3t_unhex(in, sizeof(in), examples[i].hex);
		size_t m = shb_h3_varint_encode(out, sizeof(out),
						examples[i].value);

		read_split(in, n, examples[i].value);
		CU_ASSERT_EQUAL(shb_h3_varint_len_first(in[0]), n);
		if (examples[i].minimal) {
			CU_ASSERT_EQUAL(m, n);
			CU_ASSERT_EQUAL(memcmp(in, out, n), 0);
		} else {
			CU_ASSERT(m < n);
		}
	}
}

static void test_boundaries(void)
{
	static const uint64_t v[] = {0, 63, 64, 16383, 16384, 1073741823,
				     1073741824, UINT64_C(4611686018427387903)};
	static const size_t len[] = {1, 1, 2, 2, 4, 4, 8, 8};
	uint8_t out[8];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		CU_ASSERT_EQUAL(shb_h3_varint_len(v[i]), len[i]);
		CU_ASSERT_EQUAL(shb_h3_varint_encode(out, 8, v[i]), len[i]);
		read_split(out, len[i], v[i]);
		CU_ASSERT_EQUAL(shb_h3_varint_encode(out, len[i] - 1, v[i]), 0);
	}
	CU_ASSERT_EQUAL(shb_h3_varint_encode(out, 8, SHB_H3_VARINT_MAX + 1), 0);
}

/* Two frame headers back to back, read in pieces of every size. */
static void test_frame_header(void)
{
	uint8_t in[2 * SHB_H3_FRAME_HEADER_MAX], small[4];
	size_t a = shb_h3_frame_header_encode(in, sizeof(in), 0x1f * 3 + 0x21,
					      70000);
	size_t b = shb_h3_frame_header_encode(in + a, sizeof(in) - a, 0x01, 5);

	CU_ASSERT_EQUAL(a, 2 + 4);
	CU_ASSERT_EQUAL(b, 2);
	CU_ASSERT_EQUAL(shb_h3_frame_header_encode(small, 3, 0x40, 64), 0);
	CU_ASSERT_EQUAL(shb_h3_frame_header_encode(small, 4, 0x40, 64), 4);
	for (size_t step = 1; step <= a + b; step++) {
		struct shb_h3_fhead h = {0};
		uint64_t type[2] = {0}, length[2] = {0};
		size_t got = 0, at = 0;

		while (at < a + b) {
			size_t n = a + b - at < step ? a + b - at : step;
			int done;
			size_t used = shb_h3_fhead_feed(&h, in + at, n,
							&type[got],
							&length[got], &done);

			at += used;
			if (done)
				got++;
			else
				CU_ASSERT_EQUAL(used, n);
			CU_ASSERT(got <= 2);
		}
		CU_ASSERT_EQUAL(got, 2);
		CU_ASSERT(!shb_h3_fhead_started(&h));
		CU_ASSERT_EQUAL(type[0], 0x1f * 3 + 0x21);
		CU_ASSERT_EQUAL(length[0], 70000);
		CU_ASSERT_EQUAL(type[1], 0x01);
		CU_ASSERT_EQUAL(length[1], 5);
	}
}

CU_TestInfo shb_h3t_varint_tests[] = {
	{"RFC 9000 A.1 examples", test_examples},
	{"length class boundaries", test_boundaries},
	{"frame headers in pieces", test_frame_header},
	CU_TEST_INFO_NULL,
};
