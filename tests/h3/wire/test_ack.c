/* ACK frames: encoding from range lists, decoding and walking many
 * ranges, fitting into little space, delays and exponents, bad range
 * lists. */
#include <stdlib.h>
#include <string.h>

#include "quic_ack.h"
#include "quic_frame.h"
#include "quic_header.h"
#include "quic_varint.h"
#include "quic_wire_err.h"
#include "wire_tests.h"

static void test_encode_bytes(void)
{
	static const struct shb_quic_ack_range one[] = {{0, 0}};
	static const struct shb_quic_ack_range two[] = {{8, 10}, {5, 6}};
	uint8_t out[32];

	/* The ACK of RFC 9001 A.3. */
	CU_ASSERT_EQUAL(shb_quic_ack_frame_len(one, 1, 0, 3), 5);
	CU_ASSERT_EQUAL(shb_quic_ack_frame_encode(out, sizeof(out), one, 1, 0,
						  3),
			5);
	CU_ASSERT(wt_same(out, (const uint8_t[]){2, 0, 0, 0, 0}, 5));
	/* 24 us with exponent 3 is a delay field of 3. */
	CU_ASSERT_EQUAL(shb_quic_ack_frame_encode(out, sizeof(out), two, 2, 24,
						  3),
			7);
	CU_ASSERT(wt_same(out, (const uint8_t[]){0x02, 0x0a, 0x03, 0x01, 0x02,
						 0x00, 0x01},
			  7));
	/* Exponent 0 with a large delay, and a large packet number. */
	{
		static const struct shb_quic_ack_range big[] = {
			{1000000, 1000000}};

		CU_ASSERT_EQUAL(shb_quic_ack_frame_encode(out, sizeof(out), big,
							  1, 20000, 0),
				11);
		CU_ASSERT(wt_same(out, (const uint8_t[]){0x02, 0x80, 0x0f, 0x42,
							 0x40, 0x80, 0x00, 0x4e,
							 0x20, 0x00, 0x00},
				  11));
	}
	/* One byte short: nothing. */
	CU_ASSERT_EQUAL(shb_quic_ack_frame_encode(out, 6, two, 2, 24, 3), 0);
	CU_ASSERT_EQUAL(shb_quic_ack_frame_encode(NULL, 60, two, 2, 24, 3), 0);
}

static void test_encode_invalid(void)
{
	uint8_t out[64];
	static const struct shb_quic_ack_range adjacent[] = {{5, 6}, {3, 4}};
	static const struct shb_quic_ack_range overlap[] = {{5, 9}, {3, 6}};
	static const struct shb_quic_ack_range ascending[] = {{1, 1}, {5, 6}};
	static const struct shb_quic_ack_range reversed[] = {{7, 6}};
	static const struct shb_quic_ack_range gap1[] = {{5, 6}, {0, 3}};
	static const struct shb_quic_ack_range huge[] = {
		{0, SHB_QUIC_VARINT_MAX + 1}};
	static const struct shb_quic_ack_range low[] = {{1, 1}, {0, 0}};

	CU_ASSERT_EQUAL(shb_quic_ack_frame_len(adjacent, 2, 0, 3), 0);
	CU_ASSERT_EQUAL(shb_quic_ack_frame_len(overlap, 2, 0, 3), 0);
	CU_ASSERT_EQUAL(shb_quic_ack_frame_len(ascending, 2, 0, 3), 0);
	CU_ASSERT_EQUAL(shb_quic_ack_frame_len(reversed, 1, 0, 3), 0);
	CU_ASSERT_EQUAL(shb_quic_ack_frame_len(huge, 1, 0, 3), 0);
	CU_ASSERT_EQUAL(shb_quic_ack_frame_len(low, 2, 0, 3), 0);
	CU_ASSERT_EQUAL(shb_quic_ack_frame_len(gap1, 0, 0, 3), 0);
	CU_ASSERT_EQUAL(shb_quic_ack_frame_len(NULL, 1, 0, 3), 0);
	CU_ASSERT_EQUAL(shb_quic_ack_frame_len(gap1, 2, 0, 21), 0);
	CU_ASSERT_EQUAL(shb_quic_ack_frame_encode(out, 64, adjacent, 2, 0, 3),
			0);
	CU_ASSERT_EQUAL(shb_quic_ack_ranges_fit(adjacent, 2, 0, 3, 64), 0);
	/* One missing packet between ranges is the smallest gap: field 0. */
	CU_ASSERT_EQUAL(shb_quic_ack_frame_encode(out, 64, gap1, 2, 0, 3), 7);
	CU_ASSERT(wt_same(out, (const uint8_t[]){2, 6, 0, 1, 1, 0, 3}, 7));
}

/* Builds n ranges, largest first, with pseudo-random gaps and lengths so
 * that the varints take every size. */
static void make_ranges(struct shb_quic_ack_range *r, size_t n, uint64_t top,
			uint64_t seed)
{
	uint64_t st = seed, hi = top;

	for (size_t i = 0; i < n; i++) {
		uint64_t len = wt_rand(&st) % ((i % 5 == 0) ? 20000 : 70);
		uint64_t gap = wt_rand(&st) % ((i % 7 == 0) ? 100000 : 60);

		r[i].hi = hi;
		r[i].lo = hi - len;
		hi = r[i].lo - gap - 2;
	}
}

static void check_decoded(const uint8_t *p, size_t len,
			  const struct shb_quic_ack_range *r, size_t n)
{
	struct shb_quic_frame f;
	struct shb_quic_ack_iter it;
	struct shb_quic_ack_range got;
	size_t i = 0;

	CU_ASSERT_EQUAL_FATAL(shb_quic_frame_decode(p, len, SHB_QUIC_PT_1RTT,
						    &f),
			      SHB_QUIC_OK);
	CU_ASSERT_EQUAL(f.wire_len, len);
	CU_ASSERT_EQUAL(f.type, SHB_QUIC_FT_ACK);
	CU_ASSERT_EQUAL(f.u.ack.largest, r[0].hi);
	CU_ASSERT_EQUAL(f.u.ack.range_count, n - 1);
	CU_ASSERT_EQUAL(f.u.ack.smallest, r[n - 1].lo);
	shb_quic_ack_iter_init(&it, &f.u.ack);
	while (shb_quic_ack_iter_next(&it, &got)) {
		CU_ASSERT_FATAL(i < n);
		CU_ASSERT_EQUAL(got.lo, r[i].lo);
		CU_ASSERT_EQUAL(got.hi, r[i].hi);
		i++;
	}
	CU_ASSERT_EQUAL(i, n);
	CU_ASSERT_EQUAL(shb_quic_ack_iter_next(&it, &got), 0);
}

static void test_many_ranges(void)
{
	enum { N = 1000 };
	struct shb_quic_ack_range *r = malloc(N * sizeof(*r));
	size_t len, n;
	uint8_t *buf;

	if (!r)
		abort();
	make_ranges(r, N, UINT64_C(1) << 40, 42);
	len = shb_quic_ack_frame_len(r, N, 1000, 3);
	CU_ASSERT_FATAL(len > 2 * N);
	buf = malloc(len);
	if (!buf)
		abort();
	n = shb_quic_ack_frame_encode(buf, len, r, N, 1000, 3);
	CU_ASSERT_EQUAL_FATAL(n, len);
	check_decoded(buf, len, r, N);
	/* Cut at every length: always a FRAME_ENCODING_ERROR. */
	for (size_t k = 0; k < len; k++) {
		uint8_t *q = wt_copy(buf, k);
		struct shb_quic_frame f;

		CU_ASSERT_EQUAL(shb_quic_frame_decode(q, k, SHB_QUIC_PT_1RTT,
						      &f),
				SHB_QUIC_E_FRAME_ENCODING);
		free(q);
	}
	free(buf);
	free(r);
}

/* Ranges that reach packet 0 exactly, and 63 single-packet ranges. */
static void test_ranges_to_zero(void)
{
	struct shb_quic_ack_range r[64];
	uint8_t buf[256];
	size_t n;

	for (size_t i = 0; i < 64; i++)
		r[i].lo = r[i].hi = 2 * (63 - i);
	n = shb_quic_ack_frame_encode(buf, sizeof(buf), r, 64, 0, 3);
	CU_ASSERT_EQUAL(n, 1 + 2 + 1 + 1 + 1 + 63 * 2);
	check_decoded(buf, n, r, 64);
}

/* Whatever the room, the ranges that fit are the first ones, and one
 * more would not fit. */
static void test_ranges_fit(void)
{
	enum { N = 100 };
	struct shb_quic_ack_range r[N];
	size_t full;

	make_ranges(r, N, UINT64_C(5000000000), 7);
	full = shb_quic_ack_frame_len(r, N, 123456, 3);
	CU_ASSERT_FATAL(full > 0);
	for (size_t cap = 0; cap <= full + 2; cap++) {
		size_t k = shb_quic_ack_ranges_fit(r, N, 123456, 3, cap);

		if (k == 0) {
			CU_ASSERT(shb_quic_ack_frame_len(r, 1, 123456, 3) > cap);
			continue;
		}
		CU_ASSERT(shb_quic_ack_frame_len(r, k, 123456, 3) <= cap);
		if (k < N) {
			CU_ASSERT(shb_quic_ack_frame_len(r, k + 1, 123456, 3) >
				  cap);
		} else {
			CU_ASSERT(cap >= full);
		}
		{
			uint8_t *buf = malloc(cap);
			size_t n;

			if (!buf)
				abort();
			n = shb_quic_ack_frame_encode(buf, cap, r, k, 123456, 3);
			CU_ASSERT_EQUAL(n, shb_quic_ack_frame_len(r, k, 123456,
								  3));
			check_decoded(buf, n, r, k);
			free(buf);
		}
	}
}

/* The Range Count varint grows from 1 to 2 bytes at 64 ranges. */
static void test_fit_count_growth(void)
{
	struct shb_quic_ack_range r[65];
	size_t len64, len65;

	for (size_t i = 0; i < 65; i++)
		r[i].lo = r[i].hi = 1000 - 2 * i;
	len64 = shb_quic_ack_frame_len(r, 64, 0, 3);
	len65 = shb_quic_ack_frame_len(r, 65, 0, 3);
	CU_ASSERT_EQUAL(len65, len64 + 3); /* a pair and a longer count */
	CU_ASSERT_EQUAL(shb_quic_ack_ranges_fit(r, 65, 0, 3, len65 - 1), 64);
	CU_ASSERT_EQUAL(shb_quic_ack_ranges_fit(r, 65, 0, 3, len65), 65);
}

static void test_delay(void)
{
	struct shb_quic_ack a = {.delay = 125};

	CU_ASSERT_EQUAL(shb_quic_ack_delay_us(&a, 3), 1000);
	CU_ASSERT_EQUAL(shb_quic_ack_delay_us(&a, 0), 125);
	a.delay = SHB_QUIC_VARINT_MAX;
	CU_ASSERT_EQUAL(shb_quic_ack_delay_us(&a, 20), UINT64_MAX);
	CU_ASSERT_EQUAL(shb_quic_ack_delay_us(&a, 2), SHB_QUIC_VARINT_MAX << 2);
	CU_ASSERT_EQUAL(shb_quic_ack_delay_us(&a, 64), UINT64_MAX);
	/* Encoding shifts right by our exponent (truncating). */
	{
		static const struct shb_quic_ack_range r[] = {{1, 1}};
		uint8_t out[16];
		struct shb_quic_frame f;

		CU_ASSERT_EQUAL(shb_quic_ack_frame_encode(out, 16, r, 1, 1015,
							  3),
				6);
		CU_ASSERT_EQUAL(shb_quic_frame_decode(out, 6, SHB_QUIC_PT_1RTT,
						      &f),
				SHB_QUIC_OK);
		CU_ASSERT_EQUAL(f.u.ack.delay, 126);
		CU_ASSERT_EQUAL(shb_quic_ack_delay_us(&f.u.ack, 3), 1008);
		/* A delay beyond the varint range is clamped, not refused. */
		CU_ASSERT_EQUAL(shb_quic_ack_frame_encode(out, 16, r, 1,
							  UINT64_MAX, 0),
				12);
		CU_ASSERT_EQUAL(shb_quic_frame_decode(out, 12, SHB_QUIC_PT_1RTT,
						      &f),
				SHB_QUIC_OK);
		CU_ASSERT_EQUAL(f.u.ack.delay, SHB_QUIC_VARINT_MAX);
	}
}

/* The iterator on a hand-made ACK whose ranges do not add up stops
 * where they end; it never reads beyond ranges_len. */
static void test_iter_inconsistent(void)
{
	static const uint8_t pair[2] = {0, 1};
	struct shb_quic_ack a = {.largest = 10, .first_range = 2,
				 .range_count = 5, .ranges = pair,
				 .ranges_len = 2};
	struct shb_quic_ack_iter it;
	struct shb_quic_ack_range r;
	uint8_t *p = wt_copy(pair, 2);

	a.ranges = p;
	shb_quic_ack_iter_init(&it, &a);
	CU_ASSERT_EQUAL(shb_quic_ack_iter_next(&it, &r), 1);
	CU_ASSERT_EQUAL(r.lo, 8);
	CU_ASSERT_EQUAL(shb_quic_ack_iter_next(&it, &r), 1);
	CU_ASSERT_EQUAL(r.hi, 6);
	CU_ASSERT_EQUAL(r.lo, 5);
	CU_ASSERT_EQUAL(shb_quic_ack_iter_next(&it, &r), 0);
	CU_ASSERT_EQUAL(shb_quic_ack_iter_next(&it, &r), 0);
	a.first_range = 11;
	shb_quic_ack_iter_init(&it, &a);
	CU_ASSERT_EQUAL(shb_quic_ack_iter_next(&it, &r), 0);
	free(p);
	/* More pairs than range_count: the count wins. */
	{
		static const uint8_t pairs[4] = {0, 0, 0, 0};
		struct shb_quic_ack b = {.largest = 20, .first_range = 0,
					 .range_count = 1, .ranges = pairs,
					 .ranges_len = 4};

		shb_quic_ack_iter_init(&it, &b);
		CU_ASSERT_EQUAL(shb_quic_ack_iter_next(&it, &r), 1);
		CU_ASSERT_EQUAL(shb_quic_ack_iter_next(&it, &r), 1);
		CU_ASSERT_EQUAL(r.hi, 18);
		CU_ASSERT_EQUAL(shb_quic_ack_iter_next(&it, &r), 0);
	}
}

CU_TestInfo shb_wire_ack_tests[] = {
	{"ACK bytes from range lists", test_encode_bytes},
	{"ACK range list refusals", test_encode_invalid},
	{"ACK with 1000 ranges, cut at every length", test_many_ranges},
	{"ACK ranges down to packet 0", test_ranges_to_zero},
	{"ACK ranges fit the room", test_ranges_fit},
	{"ACK range count varint growth", test_fit_count_growth},
	{"ACK delay and exponents", test_delay},
	{"ACK iterator on inconsistent input", test_iter_inconsistent},
	CU_TEST_INFO_NULL,
};
