/* Variable-length integers (RFC 9000 Section 16, A.1) and packet numbers
 * (RFC 9000 Section 17.1, A.2, A.3). */
#include <stdlib.h>
#include <string.h>

#include "quic_pn.h"
#include "quic_varint.h"
#include "quic_wire_err.h"
#include "wire_tests.h"

/* RFC 9000 Appendix A.1. */
static const struct {
	const char *hex;
	uint64_t value;
	int minimal;
} a1[] = {
	{"c2197c5eff14e88c", UINT64_C(151288809941952652), 1},
	{"9d7f3e7d", 494878333, 1},
	{"7bbd", 15293, 1},
	{"25", 37, 1},
	{"4025", 37, 0},
};

static void test_a1_decode(void)
{
	for (size_t i = 0; i < sizeof(a1) / sizeof(a1[0]); i++) {
		size_t len;
		uint8_t *b = wt_hex(a1[i].hex, &len);
		uint64_t v = 0;

		CU_ASSERT_EQUAL(shb_quic_varint_decode(b, len, &v), len);
		CU_ASSERT_EQUAL(v, a1[i].value);
		free(b);
	}
}

static void test_a1_encode(void)
{
	for (size_t i = 0; i < sizeof(a1) / sizeof(a1[0]); i++) {
		size_t len;
		uint8_t *b = wt_hex(a1[i].hex, &len);
		uint8_t out[8];

		/* The forced-length form always reproduces the bytes; the
		 * shortest form only for the minimal encodings. */
		CU_ASSERT_EQUAL(shb_quic_varint_encode_n(out, sizeof(out),
							 a1[i].value, len),
				len);
		CU_ASSERT(wt_same(out, b, len));
		if (a1[i].minimal) {
			CU_ASSERT_EQUAL(shb_quic_varint_len(a1[i].value), len);
			CU_ASSERT_EQUAL(shb_quic_varint_encode(out, sizeof(out),
							       a1[i].value),
					len);
			CU_ASSERT(wt_same(out, b, len));
		} else {
			CU_ASSERT(shb_quic_varint_len(a1[i].value) < len);
		}
		free(b);
	}
}

/* Every prefix shorter than the varint is refused and nothing past it is
 * read (each prefix is its own exact-size heap block). */
static void test_truncated(void)
{
	for (size_t i = 0; i < sizeof(a1) / sizeof(a1[0]); i++) {
		size_t len;
		uint8_t *b = wt_hex(a1[i].hex, &len);

		for (size_t k = 0; k < len; k++) {
			uint8_t *p = wt_copy(b, k);
			uint64_t v = 77;

			CU_ASSERT_EQUAL(shb_quic_varint_decode(p, k, &v), 0);
			CU_ASSERT_EQUAL(v, 77);
			free(p);
		}
		free(b);
	}
	CU_ASSERT_EQUAL(shb_quic_varint_decode(NULL, 0, &(uint64_t){0}), 0);
}

static void test_boundaries(void)
{
	static const struct {
		uint64_t v;
		size_t len;
		const char *hex;
	} c[] = {
		{0, 1, "00"},
		{63, 1, "3f"},
		{64, 2, "4040"},
		{16383, 2, "7fff"},
		{16384, 4, "80004000"},
		{1073741823, 4, "bfffffff"},
		{1073741824, 8, "c000000040000000"},
		{SHB_QUIC_VARINT_MAX, 8, "ffffffffffffffff"},
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t len;
		uint8_t *want = wt_hex(c[i].hex, &len);
		uint8_t out[8];
		uint64_t back;

		CU_ASSERT_EQUAL(shb_quic_varint_len(c[i].v), c[i].len);
		CU_ASSERT_EQUAL(shb_quic_varint_encode(out, 8, c[i].v), len);
		CU_ASSERT(wt_same(out, want, len));
		CU_ASSERT_EQUAL(shb_quic_varint_decode(out, 8, &back), len);
		CU_ASSERT_EQUAL(back, c[i].v);
		/* One byte short of room: nothing written. */
		memset(out, 0xee, sizeof(out));
		CU_ASSERT_EQUAL(shb_quic_varint_encode(out, len - 1, c[i].v),
				0);
		CU_ASSERT_EQUAL(out[0], 0xee);
		free(want);
	}
	CU_ASSERT_EQUAL(shb_quic_varint_len(SHB_QUIC_VARINT_MAX + 1), 0);
	CU_ASSERT_EQUAL(shb_quic_varint_encode((uint8_t[8]){0}, 8,
					       SHB_QUIC_VARINT_MAX + 1),
			0);
}

static void test_forced_length(void)
{
	uint8_t out[8];

	CU_ASSERT_EQUAL(shb_quic_varint_encode_n(out, 8, 37, 2), 2);
	CU_ASSERT(wt_same(out, (const uint8_t[]){0x40, 0x25}, 2));
	CU_ASSERT_EQUAL(shb_quic_varint_encode_n(out, 8, 1182, 4), 4);
	CU_ASSERT(wt_same(out, (const uint8_t[]){0x80, 0x00, 0x04, 0x9e}, 4));
	CU_ASSERT_EQUAL(shb_quic_varint_encode_n(out, 8, 0, 8), 8);
	CU_ASSERT(wt_same(out, (const uint8_t[]){0xc0, 0, 0, 0, 0, 0, 0, 0},
			  8));
	CU_ASSERT_EQUAL(shb_quic_varint_encode_n(out, 8, 16384, 2), 0);
	CU_ASSERT_EQUAL(shb_quic_varint_encode_n(out, 8, 64, 1), 0);
	CU_ASSERT_EQUAL(shb_quic_varint_encode_n(out, 8, 1, 3), 0);
	CU_ASSERT_EQUAL(shb_quic_varint_encode_n(out, 8, 1, 0), 0);
	CU_ASSERT_EQUAL(shb_quic_varint_encode_n(out, 3, 1, 4), 0);
	CU_ASSERT_EQUAL(shb_quic_varint_encode_n(out, 8,
						 SHB_QUIC_VARINT_MAX + 1, 8),
			0);
}

/* RFC 9000 Appendix A.2. */
static void test_pn_encode_a2(void)
{
	uint8_t out[4];

	CU_ASSERT_EQUAL(shb_quic_pn_len(11295746, 11266227), 2);
	shb_quic_pn_write(out, 11295746, 2);
	CU_ASSERT(wt_same(out, (const uint8_t[]){0x5c, 0x02}, 2));
	CU_ASSERT_EQUAL(shb_quic_pn_len(11331838, 11266227), 3);
	shb_quic_pn_write(out, 11331838, 3);
	CU_ASSERT(wt_same(out, (const uint8_t[]){0xac, 0xe8, 0xfe}, 3));
}

static void test_pn_len_edges(void)
{
	/* Nothing acknowledged: full_pn + 1 packets outstanding. */
	CU_ASSERT_EQUAL(shb_quic_pn_len(0, SHB_QUIC_PN_NONE), 1);
	CU_ASSERT_EQUAL(shb_quic_pn_len(127, SHB_QUIC_PN_NONE), 1);
	CU_ASSERT_EQUAL(shb_quic_pn_len(128, SHB_QUIC_PN_NONE), 2);
	/* 2 * unacked must fit in the window. */
	CU_ASSERT_EQUAL(shb_quic_pn_len(1000 + 128, 1000), 1);
	CU_ASSERT_EQUAL(shb_quic_pn_len(1000 + 129, 1000), 2);
	CU_ASSERT_EQUAL(shb_quic_pn_len(1000 + 32768, 1000), 2);
	CU_ASSERT_EQUAL(shb_quic_pn_len(1000 + 32769, 1000), 3);
	CU_ASSERT_EQUAL(shb_quic_pn_len(1000 + 8388608, 1000), 3);
	CU_ASSERT_EQUAL(shb_quic_pn_len(1000 + 8388609, 1000), 4);
	CU_ASSERT_EQUAL(shb_quic_pn_len(UINT64_C(1) << 40, 0), 4);
	CU_ASSERT_EQUAL(shb_quic_pn_len(5, 9), 1);
}

/* RFC 9000 Appendix A.3. */
static void test_pn_decode_a3(void)
{
	uint8_t in[2] = {0x9b, 0x32};

	CU_ASSERT_EQUAL(shb_quic_pn_read(in, 2), 0x9b32);
	CU_ASSERT_EQUAL(shb_quic_pn_decode(UINT64_C(0xa82f30ea), 0x9b32, 2),
			UINT64_C(0xa82f9b32));
}

static void test_pn_decode_edges(void)
{
	CU_ASSERT_EQUAL(shb_quic_pn_decode(SHB_QUIC_PN_NONE, 0, 1), 0);
	CU_ASSERT_EQUAL(shb_quic_pn_decode(SHB_QUIC_PN_NONE, 5, 4), 5);
	/* Wrapping forward past a window boundary. */
	CU_ASSERT_EQUAL(shb_quic_pn_decode(0xff, 0x00, 1), 0x100);
	CU_ASSERT_EQUAL(shb_quic_pn_decode(0x1fe, 0x01, 1), 0x201);
	/* A late packet from just below the boundary. */
	CU_ASSERT_EQUAL(shb_quic_pn_decode(0x201, 0xff, 1), 0x1ff);
	/* Near the top of the number space nothing wraps past 2^62. */
	CU_ASSERT_EQUAL(shb_quic_pn_decode(SHB_QUIC_PN_MAX - 1, 0xff, 1),
			SHB_QUIC_PN_MAX);
	CU_ASSERT(shb_quic_pn_decode(SHB_QUIC_PN_MAX - 1, 0x00, 1) <=
		  SHB_QUIC_PN_MAX);
}

/* Whatever length the sender picks, a receiver that has processed at
 * least the largest acknowledged packet recovers the packet number, also
 * when it has seen anything up to the packet before. */
static void test_pn_round_trip(void)
{
	uint64_t st = 0x1234567u;

	for (int i = 0; i < 20000; i++) {
		uint64_t acked = wt_rand(&st) % (UINT64_C(1) << 40);
		uint64_t gap = 1 + wt_rand(&st) % ((i % 4 == 0) ? 100 : 5000000);
		uint64_t pn = acked + gap;
		unsigned len = shb_quic_pn_len(pn, acked);
		uint64_t seen = acked + wt_rand(&st) % gap;
		uint8_t b[4];

		shb_quic_pn_write(b, pn, len);
		CU_ASSERT_EQUAL_FATAL(
			shb_quic_pn_decode(seen, shb_quic_pn_read(b, len), len),
			pn);
	}
}

static void test_err_codes(void)
{
	CU_ASSERT_EQUAL(shb_quic_wire_err_code(SHB_QUIC_OK), 0x00);
	CU_ASSERT_EQUAL(shb_quic_wire_err_code(SHB_QUIC_E_FRAME_ENCODING), 0x07);
	CU_ASSERT_EQUAL(shb_quic_wire_err_code(SHB_QUIC_E_PROTOCOL), 0x0a);
	CU_ASSERT_EQUAL(shb_quic_wire_err_code(SHB_QUIC_E_TRANSPORT_PARAM),
			0x08);
	CU_ASSERT_EQUAL(shb_quic_wire_err_code(SHB_QUIC_E_DROP), 0x01);
	CU_ASSERT_EQUAL(shb_quic_wire_err_code(SHB_QUIC_E_SPACE), 0x01);
	for (int rc = -9; rc <= 0; rc++)
		CU_ASSERT_PTR_NOT_NULL(shb_quic_wire_err_str(rc));
	CU_ASSERT_STRING_EQUAL(shb_quic_wire_err_str(SHB_QUIC_E_PROTOCOL),
			       "protocol violation");
}

CU_TestInfo shb_wire_varint_tests[] = {
	{"RFC 9000 A.1 varints decode", test_a1_decode},
	{"RFC 9000 A.1 varints encode", test_a1_encode},
	{"varint truncated at every length", test_truncated},
	{"varint length class boundaries", test_boundaries},
	{"varint forced length", test_forced_length},
	{"RFC 9000 A.2 packet number encoding", test_pn_encode_a2},
	{"packet number length edges", test_pn_len_edges},
	{"RFC 9000 A.3 packet number decoding", test_pn_decode_a3},
	{"packet number decoding edges", test_pn_decode_edges},
	{"packet number truncate/recover round trip", test_pn_round_trip},
	{"error codes map to transport errors", test_err_codes},
	CU_TEST_INFO_NULL,
};
