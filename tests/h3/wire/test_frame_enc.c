/* Frames: the STREAM and CRYPTO encoders that fill the space they are
 * given, byte for byte, their refusals, and every size filled. */
#include <stdlib.h>
#include <string.h>

#include "quic_frame.h"
#include "quic_header.h"
#include "quic_varint.h"
#include "quic_wire_err.h"
#include "wire_tests.h"

static const uint8_t d_abc[] = "abc";
static const uint8_t d_hi[] = "hi";

/* ---- STREAM and CRYPTO encoders ---------------------------------- */

static void check_stream(uint64_t id, uint64_t off, const char *data, int fin,
			 unsigned mode, size_t cap, const char *want_hex,
			 size_t want_taken)
{
	size_t wl, taken = 99, dl = data ? strlen(data) : 0;
	uint8_t *want = wt_hex(want_hex, &wl);
	uint8_t *out = malloc(cap);
	size_t n;

	if (!out)
		abort();
	n = shb_quic_stream_frame_encode(out, cap, id, off,
					 (const uint8_t *)data, dl, fin, mode,
					 &taken);
	CU_ASSERT_EQUAL(n, wl);
	CU_ASSERT_EQUAL(taken, want_taken);
	CU_ASSERT(n == wl && wt_same(out, want, wl));
	free(out);
	free(want);
}

static void test_stream_encoder_bytes(void)
{
	check_stream(0, 0, "hello", 1, SHB_QUIC_STREAM_MODE_LEN, 64,
		     "0b 00 05 68656c6c6f", 5);
	CU_ASSERT_EQUAL(shb_quic_stream_frame_len(0, 0, 5,
						  SHB_QUIC_STREAM_MODE_LEN),
			8);
	check_stream(4, 1000, "hi", 0, SHB_QUIC_STREAM_MODE_LAST, 64,
		     "0c 04 43e8 6869", 2);
	CU_ASSERT_EQUAL(shb_quic_stream_frame_len(4, 1000, 2,
						  SHB_QUIC_STREAM_MODE_LAST),
			6);
	check_stream(0, 0, "abc", 0, SHB_QUIC_STREAM_MODE_FILL, 10,
		     "0000000000 08 00 616263", 3);
	check_stream(0, 0, "abc", 1, SHB_QUIC_STREAM_MODE_FILL, 6,
		     "00 09 00 616263", 3);
	check_stream(0, 0, "abc", 1, SHB_QUIC_STREAM_MODE_FILL, 5,
		     "09 00 616263", 3); /* exact fit: no padding */
	check_stream(8, 77, NULL, 1, SHB_QUIC_STREAM_MODE_LEN, 64,
		     "0f 08 404d 00", 0);
	check_stream(8, 0, NULL, 1, SHB_QUIC_STREAM_MODE_LAST, 64, "09 08", 0);
	/* The data does not all fit: no FIN, as much as room allows. */
	check_stream(0, 0, "abcdefgh", 1, SHB_QUIC_STREAM_MODE_LEN, 7,
		     "0a 00 04 61626364", 4);
	check_stream(0, 0, "abcdefgh", 1, SHB_QUIC_STREAM_MODE_LAST, 7,
		     "08 00 6162636465", 5);
}

static void test_stream_encoder_refusals(void)
{
	uint8_t out[64];
	size_t taken = 99;

	CU_ASSERT_EQUAL(shb_quic_stream_frame_encode(out, 64, 0, 0, d_hi, 0, 0,
						     SHB_QUIC_STREAM_MODE_LEN,
						     &taken),
			0); /* nothing to say */
	CU_ASSERT_EQUAL(taken, 0);
	CU_ASSERT_EQUAL(shb_quic_stream_frame_encode(out, 2, 0, 0, d_hi, 2, 0,
						     SHB_QUIC_STREAM_MODE_LAST,
						     &taken),
			0); /* header only, no data byte */
	CU_ASSERT_EQUAL(shb_quic_stream_frame_encode(out, 3, 0, 0, d_hi, 2, 0,
						     SHB_QUIC_STREAM_MODE_LEN,
						     &taken),
			0); /* header and Length, no data byte */
	CU_ASSERT_EQUAL(shb_quic_stream_frame_encode(out, 1, 0, 0, NULL, 0, 1,
						     SHB_QUIC_STREAM_MODE_LAST,
						     &taken),
			0);
	CU_ASSERT_EQUAL(shb_quic_stream_frame_encode(
				out, 64, 0, SHB_QUIC_MAX_STREAM_OFFSET, d_hi, 1,
				0, SHB_QUIC_STREAM_MODE_LEN, &taken),
			0);
	CU_ASSERT_EQUAL(shb_quic_stream_frame_encode(
				out, 64, SHB_QUIC_VARINT_MAX + 1, 0, d_hi, 1, 0,
				SHB_QUIC_STREAM_MODE_LEN, &taken),
			0);
	CU_ASSERT_EQUAL(shb_quic_stream_frame_encode(out, 64, 0, 0, d_hi, 1, 0,
						     3, &taken),
			0);
	CU_ASSERT_EQUAL(shb_quic_stream_frame_encode(out, 64, 0, 0, NULL, 1, 0,
						     SHB_QUIC_STREAM_MODE_LEN,
						     &taken),
			0);
	CU_ASSERT_EQUAL(shb_quic_stream_frame_len(0, SHB_QUIC_MAX_STREAM_OFFSET,
						  1, SHB_QUIC_STREAM_MODE_LEN),
			0);
	CU_ASSERT_EQUAL(taken, 0);
}

/* Decodes what the STREAM encoder wrote (PADDING first in FILL mode) and
 * checks it against what was asked. */
static void check_stream_output(const uint8_t *out, size_t n, uint64_t id,
				uint64_t off, const uint8_t *data, size_t len,
				int fin, unsigned mode, size_t taken)
{
	struct shb_quic_frame f;
	size_t at = 0;

	CU_ASSERT_EQUAL_FATAL(shb_quic_frame_decode(out, n, SHB_QUIC_PT_1RTT,
						    &f),
			      SHB_QUIC_OK);
	if (f.type == SHB_QUIC_FT_PADDING) {
		CU_ASSERT_EQUAL(mode, SHB_QUIC_STREAM_MODE_FILL);
		at = f.wire_len;
		CU_ASSERT_EQUAL_FATAL(shb_quic_frame_decode(out + at, n - at,
							    SHB_QUIC_PT_1RTT,
							    &f),
				      SHB_QUIC_OK);
	}
	CU_ASSERT_EQUAL(at + f.wire_len, n);
	CU_ASSERT_EQUAL(f.type, SHB_QUIC_FT_STREAM);
	CU_ASSERT_EQUAL(f.u.stream.stream_id, id);
	CU_ASSERT_EQUAL(f.u.stream.offset, off);
	CU_ASSERT_EQUAL(f.u.stream.has_offset, off != 0);
	CU_ASSERT_EQUAL(f.u.stream.has_len, mode == SHB_QUIC_STREAM_MODE_LEN);
	CU_ASSERT_EQUAL(f.u.stream.fin, fin && taken == len);
	CU_ASSERT(wt_bytes_eq(f.u.stream.data, f.u.stream.len, data, taken));
}

/* For every buffer size, the encoder writes the most data that fits:
 * one more byte would not, and FILL always writes exactly cap. */
static void test_stream_encoder_fit(void)
{
	static const uint64_t ids[] = {0, 64, UINT64_C(1) << 30};
	static const uint64_t offs[] = {0, 1, 20000};
	uint8_t data[300];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 1);
	for (unsigned mode = 0; mode <= SHB_QUIC_STREAM_MODE_FILL; mode++)
	for (size_t a = 0; a < 3; a++)
	for (size_t b = 0; b < 3; b++)
	for (size_t cap = 0; cap <= 320; cap++) {
		uint8_t *out = malloc(cap);
		size_t taken = 99, len = 300;
		int fin = (int)(cap & 1);
		size_t n = shb_quic_stream_frame_encode(out, cap, ids[a],
							offs[b], data, len,
							fin, mode, &taken);

		if (n == 0) {
			CU_ASSERT_EQUAL(taken, 0);
			CU_ASSERT(shb_quic_stream_frame_len(ids[a], offs[b], 1,
							    mode) > cap);
		} else {
			CU_ASSERT(n <= cap);
			if (mode == SHB_QUIC_STREAM_MODE_FILL)
				CU_ASSERT_EQUAL(n, cap);
			CU_ASSERT(taken >= 1 && taken <= len);
			if (taken < len)
				CU_ASSERT(shb_quic_stream_frame_len(
						  ids[a], offs[b], taken + 1,
						  mode) > cap);
			if (mode != SHB_QUIC_STREAM_MODE_FILL)
				CU_ASSERT_EQUAL(n, shb_quic_stream_frame_len(
							   ids[a], offs[b],
							   taken, mode));
			check_stream_output(out, n, ids[a], offs[b], data, len,
					    fin, mode, taken);
		}
		free(out);
	}
}

static void test_crypto_encoder(void)
{
	uint8_t data[300], out[8];
	size_t taken = 99;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i ^ 0x5a);
	CU_ASSERT_EQUAL(shb_quic_crypto_frame_encode(out, 8, 0, d_abc, 3,
						     &taken),
			6);
	CU_ASSERT_EQUAL(taken, 3);
	CU_ASSERT(wt_same(out, (const uint8_t[]){0x06, 0x00, 0x03, 'a', 'b',
						 'c'},
			  6));
	CU_ASSERT_EQUAL(shb_quic_crypto_frame_len(0, 3), 6);
	CU_ASSERT_EQUAL(shb_quic_crypto_frame_len(SHB_QUIC_MAX_STREAM_OFFSET, 1),
			0);
	CU_ASSERT_EQUAL(shb_quic_crypto_frame_encode(out, 8, 0, d_abc, 0,
						     &taken),
			0);
	CU_ASSERT_EQUAL(shb_quic_crypto_frame_encode(out, 3, 0, d_abc, 3,
						     &taken),
			0);
	CU_ASSERT_EQUAL(taken, 0);
	for (size_t cap = 0; cap <= 320; cap++) {
		uint64_t off = cap % 3 == 0 ? 0 : cap * 1000;
		uint8_t *buf = malloc(cap);
		size_t n = shb_quic_crypto_frame_encode(buf, cap, off, data,
							sizeof(data), &taken);
		struct shb_quic_frame f;

		if (n == 0) {
			CU_ASSERT(shb_quic_crypto_frame_len(off, 1) > cap);
		} else {
			CU_ASSERT(n <= cap);
			CU_ASSERT_EQUAL(n, shb_quic_crypto_frame_len(off, taken));
			if (taken < sizeof(data))
				CU_ASSERT(shb_quic_crypto_frame_len(
						  off, taken + 1) > cap);
			CU_ASSERT_EQUAL_FATAL(
				shb_quic_frame_decode(buf, n,
						      SHB_QUIC_PT_INITIAL, &f),
				SHB_QUIC_OK);
			CU_ASSERT_EQUAL(f.wire_len, n);
			CU_ASSERT_EQUAL(f.u.crypto.offset, off);
			CU_ASSERT(wt_bytes_eq(f.u.crypto.data, f.u.crypto.len,
					   data, taken));
		}
		free(buf);
	}
}

CU_TestInfo shb_wire_frame_enc_tests[] = {
	{"STREAM encoder bytes", test_stream_encoder_bytes},
	{"STREAM encoder refusals", test_stream_encoder_refusals},
	{"STREAM encoder fills every size", test_stream_encoder_fit},
	{"CRYPTO encoder", test_crypto_encoder},
	CU_TEST_INFO_NULL,
};
