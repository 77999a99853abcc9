/* Hostile input: deterministic random buffers and bit-flipped valid ones
 * through every decoder. Each input is an exact-size heap block, so under
 * ASan any read past its end fails the run; here the results must keep
 * their invariants (a known code, lengths and borrowed pointers inside
 * the input). */
#include <stdlib.h>
#include <string.h>

#include "quic_frame.h"
#include "quic_header.h"
#include "quic_tp.h"
#include "quic_wire_err.h"
#include "wire_tests.h"
#include "wire_vectors.h"

static int inside(const uint8_t *base, size_t len, const uint8_t *p,
		  size_t n)
{
	if (n == 0)
		return 1;
	return p >= base && p <= base + len && n <= (size_t)(base + len - p);
}

/* Random bytes, biased towards small values so that varints and lengths
 * often look plausible. */
static uint8_t *random_input(uint64_t *st, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	if (!p)
		abort();
	for (size_t i = 0; i < len; i++) {
		uint64_t r = wt_rand(st);

		p[i] = (uint8_t)((r & 3) == 0 ? r >> 8 : (r >> 8) & 0x1f);
	}
	return p;
}

static void check_frames(const uint8_t *p, size_t len, uint32_t ptype)
{
	size_t off = 0;

	while (off < len) {
		struct shb_quic_frame f;
		int rc = shb_quic_frame_decode(p + off, len - off, ptype, &f);
		struct shb_quic_ack_iter it;
		struct shb_quic_ack_range r;
		size_t ranges = 0;

		if (rc != SHB_QUIC_OK) {
			CU_ASSERT(rc == SHB_QUIC_E_FRAME_ENCODING ||
				  rc == SHB_QUIC_E_PROTOCOL);
			CU_ASSERT_PTR_NOT_NULL(f.why);
			return;
		}
		CU_ASSERT_FATAL(f.wire_len >= 1 && f.wire_len <= len - off);
		CU_ASSERT(shb_quic_frame_allowed(
			f.type == SHB_QUIC_FT_STREAM ? 0x08 : f.type, ptype));
		switch (f.type) {
		case SHB_QUIC_FT_STREAM:
			CU_ASSERT(inside(p + off, f.wire_len, f.u.stream.data,
					 f.u.stream.len));
			break;
		case SHB_QUIC_FT_CRYPTO:
			CU_ASSERT(inside(p + off, f.wire_len, f.u.crypto.data,
					 f.u.crypto.len));
			break;
		case SHB_QUIC_FT_CONNECTION_CLOSE:
		case SHB_QUIC_FT_CONNECTION_CLOSE_APP:
			CU_ASSERT(inside(p + off, f.wire_len, f.u.close.reason,
					 f.u.close.reason_len));
			break;
		case SHB_QUIC_FT_ACK:
		case SHB_QUIC_FT_ACK_ECN:
			shb_quic_ack_iter_init(&it, &f.u.ack);
			while (shb_quic_ack_iter_next(&it, &r)) {
				CU_ASSERT(r.lo <= r.hi);
				CU_ASSERT(r.lo >= f.u.ack.smallest);
				ranges++;
			}
			CU_ASSERT_EQUAL(ranges, f.u.ack.range_count + 1);
			/* A decoded frame always encodes back to itself. */
			CU_ASSERT(shb_quic_frame_len(&f) > 0);
			break;
		default:
			break;
		}
		off += f.wire_len;
	}
}

static void test_random_frames(void)
{
	static const uint32_t ptypes[] = {SHB_QUIC_PT_INITIAL,
					  SHB_QUIC_PT_HANDSHAKE,
					  SHB_QUIC_PT_0RTT, SHB_QUIC_PT_1RTT};
	uint64_t st = 0xfeedface;

	for (int i = 0; i < 30000; i++) {
		size_t len = 1 + wt_rand(&st) % 64;
		uint8_t *p = random_input(&st, len);

		check_frames(p, len, ptypes[i & 3]);
		free(p);
	}
}

/* A well-formed 1-RTT payload of several frames with random bits
 * flipped. */
static void test_flipped_frames(void)
{
	static const char payload[] =
		"02 0a 03 01 02 00 01" "06 00 03 616263" "0e 04 4064 02 6869"
		"18 01 00 04 a1a2a3a4 000102030405060708090a0b0c0d0e0f"
		"1c 0a 08 03 626164" "10 80010000" "000000" "0d 04 4064 6869";
	size_t len;
	uint8_t *good = wt_hex(payload, &len);
	uint64_t st = 99;

	check_frames(good, len, SHB_QUIC_PT_1RTT);
	for (int i = 0; i < 20000; i++) {
		uint8_t *p = wt_copy(good, len);
		int flips = 1 + (int)(wt_rand(&st) % 3);

		for (int j = 0; j < flips; j++) {
			uint64_t r = wt_rand(&st);

			p[r % len] ^= (uint8_t)(1u << ((r >> 32) % 8));
		}
		check_frames(p, len, SHB_QUIC_PT_1RTT);
		free(p);
	}
	free(good);
}

static void check_header(const uint8_t *p, size_t len)
{
	struct shb_quic_hdr h;
	int rc = shb_quic_hdr_parse(p, len, 8, &h);

	if (rc == SHB_QUIC_E_DROP || rc == SHB_QUIC_E_VERSION)
		return;
	CU_ASSERT_EQUAL_FATAL(rc, SHB_QUIC_OK);
	CU_ASSERT(h.packet_len >= 1 && h.packet_len <= len);
	CU_ASSERT(inside(p, len, h.dcid, h.dcid_len));
	CU_ASSERT(inside(p, len, h.scid, h.scid_len));
	CU_ASSERT(inside(p, len, h.token, h.token_len));
	CU_ASSERT(inside(p, len, h.versions, 4 * h.version_count));
	if (h.pn_offset)
		CU_ASSERT(h.pn_offset + 20 <= h.packet_len);
	if (h.retry_tag)
		CU_ASSERT(inside(p, len, h.retry_tag, 16));
}

static void test_random_headers(void)
{
	const char *v[] = {wv_a2_packet, wv_a3_packet, wv_a4_retry_packet,
			   wv_a5_packet};
	uint64_t st = 7;

	for (int i = 0; i < 20000; i++) {
		size_t len = wt_rand(&st) % 80;
		uint8_t *p = random_input(&st, len);

		if (len)
			p[0] |= (uint8_t)(wt_rand(&st) & 0xc0);
		if (len > 4 && (i & 1)) /* often version 1 or 0 */
			memcpy(p + 1, (const uint8_t[]){0, 0, 0, (i & 2) != 0},
			       4);
		check_header(p, len);
		free(p);
	}
	for (size_t k = 0; k < 4; k++) {
		size_t len;
		uint8_t *good = wt_hex(v[k], &len);

		for (int i = 0; i < 3000; i++) {
			uint8_t *p = wt_copy(good, len);
			size_t lim = len < 40 ? len : 40; /* the header part */
			uint64_t r = wt_rand(&st);

			p[r % lim] ^= (uint8_t)(1u << ((r >> 32) % 8));
			check_header(p, len);
			free(p);
		}
		free(good);
	}
}

static void test_random_tp(void)
{
	uint64_t st = 1234;

	for (int i = 0; i < 20000; i++) {
		size_t len = wt_rand(&st) % 48;
		uint8_t *p = random_input(&st, len);
		struct shb_quic_tp tp;
		const char *why = NULL;
		int rc = shb_quic_tp_decode_server(p, len, &tp, &why);

		if (rc == SHB_QUIC_OK) {
			CU_ASSERT_PTR_NULL(why);
			CU_ASSERT(tp.max_udp_payload_size >= 1200);
			CU_ASSERT(tp.ack_delay_exponent <= 20);
			CU_ASSERT(tp.max_ack_delay_ms < 16384);
			CU_ASSERT(tp.active_connection_id_limit >= 2);
			CU_ASSERT(tp.initial_scid.len <= 20);
		} else {
			CU_ASSERT_EQUAL(rc, SHB_QUIC_E_TRANSPORT_PARAM);
			CU_ASSERT_PTR_NOT_NULL(why);
		}
		free(p);
	}
}

CU_TestInfo shb_wire_robust_tests[] = {
	{"random frame payloads", test_random_frames},
	{"bit-flipped frame payloads", test_flipped_frames},
	{"random and bit-flipped headers", test_random_headers},
	{"random transport parameters", test_random_tp},
	CU_TEST_INFO_NULL,
};
