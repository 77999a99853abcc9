/* The QUIC wire codec test executable: varints and packet numbers,
 * headers, frames, ACK ranges, transport parameters, hostile input. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire_tests.h"

CU_SuiteInfo shb_test_suites[] = {
	{"wire_varint_pn", NULL, NULL, NULL, NULL, shb_wire_varint_tests},
	{"wire_header", NULL, NULL, NULL, NULL, shb_wire_header_tests},
	{"wire_frame", NULL, NULL, NULL, NULL, shb_wire_frame_tests},
	{"wire_frame_enc", NULL, NULL, NULL, NULL, shb_wire_frame_enc_tests},
	{"wire_ack", NULL, NULL, NULL, NULL, shb_wire_ack_tests},
	{"wire_tp", NULL, NULL, NULL, NULL, shb_wire_tp_tests},
	{"wire_tp_items", NULL, NULL, NULL, NULL, shb_wire_tp_items_tests},
	{"wire_robust", NULL, NULL, NULL, NULL, shb_wire_robust_tests},
	CU_SUITE_INFO_NULL,
};

static int nibble(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

uint8_t *wt_hex(const char *hex, size_t *len)
{
	size_t digits = 0, n = 0;
	uint8_t *out;
	int hi = -1;

	for (const char *p = hex; *p; p++)
		if (!isspace((unsigned char)*p))
			digits++;
	if (digits % 2) {
		fprintf(stderr, "odd hex string: %s\n", hex);
		abort();
	}
	out = malloc(digits / 2 ? digits / 2 : 1);
	if (!out)
		abort();
	for (const char *p = hex; *p; p++) {
		int v;

		if (isspace((unsigned char)*p))
			continue;
		v = nibble((unsigned char)*p);
		if (v < 0) {
			fprintf(stderr, "bad hex digit in: %s\n", hex);
			abort();
		}
		if (hi < 0) {
			hi = v;
		} else {
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	*len = n;
	return out;
}

uint8_t *wt_copy(const uint8_t *p, size_t n)
{
	/* malloc(0) under ASan gives a pointer with nothing readable. */
	uint8_t *out = malloc(n);

	if (!out && n)
		abort();
	if (n)
		memcpy(out, p, n);
	return out;
}

int wt_same(const uint8_t *a, const uint8_t *b, size_t n)
{
	return n == 0 || memcmp(a, b, n) == 0;
}

int wt_bytes_eq(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	return al == bl && wt_same(a, b, al);
}

uint64_t wt_rand(uint64_t *state)
{
	/* xorshift64*: enough spread for choosing test values. */
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(2685821657736338717);
}
