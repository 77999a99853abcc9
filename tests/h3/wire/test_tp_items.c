/* A client's transport parameters as a list (quic_tp_items.h): exact
 * octets, reserved parameters and versions from the random octets, the
 * permutation, what the encoder refuses, and max_datagram_frame_size read
 * back by the decoder. */
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "quic_header.h"
#include "quic_tp.h"
#include "quic_tp_items.h"
#include "quic_wire_err.h"
#include "wire_tests.h"

static const uint8_t scid[3] = {0xaa, 0xbb, 0xcc};

/* Random octets 0, 1, 2, ...: GREASE N = 0x0001 (id 58), length byte 2,
 * value 04 05 ..., reserved version from 0x14151617. */
static void counting(uint8_t *rnd)
{
	for (unsigned i = 0; i < SHB_QUIC_TP_RANDOM_LEN; i++)
		rnd[i] = (uint8_t)i;
}

static void test_items_bytes(void)
{
	static const uint8_t opts[4] = {'O', 'R', 'I', 'G'};
	const struct shb_quic_tp_item it[] = {
		{SHB_QUIC_TP_MAX_IDLE_TIMEOUT, SHB_QUIC_TPK_INT, 0, 30000, NULL},
		{SHB_QUIC_TP_INITIAL_SCID, SHB_QUIC_TPK_SCID, 0, 0, NULL},
		{SHB_QUIC_TP_VERSION_INFORMATION, SHB_QUIC_TPK_VERSIONS, 0, 1, NULL},
		{0, SHB_QUIC_TPK_GREASE, 2, 0, NULL},
		{0x3128, SHB_QUIC_TPK_BYTES, 4, 0, opts},
		{SHB_QUIC_TP_DISABLE_ACTIVE_MIGRATION, SHB_QUIC_TPK_EMPTY, 0, 0, NULL},
		{SHB_QUIC_TP_MAX_DATAGRAM_FRAME_SIZE, SHB_QUIC_TPK_INT, 0, 65535, NULL},
	};
	static const uint8_t want[] = {
		0x01, 0x04, 0x80, 0x00, 0x75, 0x30,	/* idle 30000 */
		0x0f, 0x03, 0xaa, 0xbb, 0xcc,		/* our SCID */
		0x11, 0x0c, 0, 0, 0, 1,			/* chosen v1 */
		0x1a, 0x1a, 0x1a, 0x1a, 0, 0, 0, 1,	/* reserved, then v1 */
		0x3a, 0x02, 0x04, 0x05,			/* 31 * 1 + 27 */
		0x71, 0x28, 0x04, 'O', 'R', 'I', 'G',
		0x0c, 0x00,
		0x20, 0x04, 0x80, 0x00, 0xff, 0xff,
	};
	uint8_t rnd[SHB_QUIC_TP_RANDOM_LEN], out[SHB_QUIC_TP_ITEMS_MAX_LEN];
	struct shb_quic_cid c;
	struct shb_quic_tp tp;
	size_t n = 0;

	counting(rnd);
	shb_quic_cid_set(&c, scid, sizeof(scid));
	CU_ASSERT_EQUAL_FATAL(shb_quic_tp_encode_items(out, sizeof(out), it, 7, &c,
						       rnd, &n), SHB_QUIC_OK);
	CU_ASSERT_EQUAL_FATAL(n, sizeof(want));
	CU_ASSERT_EQUAL(memcmp(out, want, n), 0);
	/* Read back: what the connection then acts on. */
	CU_ASSERT_EQUAL_FATAL(shb_quic_tp_decode_server(out, n, &tp, NULL),
			      SHB_QUIC_OK);
	CU_ASSERT_EQUAL(tp.max_idle_timeout_ms, 30000);
	CU_ASSERT_EQUAL(tp.max_datagram_frame_size, 65535);
	CU_ASSERT_TRUE(tp.disable_active_migration);
	CU_ASSERT(shb_quic_cid_eq(&tp.initial_scid, scid, sizeof(scid)));
	/* No room: refused whole. */
	CU_ASSERT_EQUAL(shb_quic_tp_encode_items(out, n - 1, it, 7, &c, rnd, &n),
			SHB_QUIC_E_SPACE);
	CU_ASSERT_EQUAL(n, 0);
}

/* A reserved parameter of a random length 0..len, v1 first among the
 * versions. */
static void test_items_random(void)
{
	const struct shb_quic_tp_item it[] = {
		{0, SHB_QUIC_TPK_GREASE, 16, 1, NULL},
		{SHB_QUIC_TP_VERSION_INFORMATION, SHB_QUIC_TPK_VERSIONS, 0, 0, NULL},
	};
	uint8_t rnd[SHB_QUIC_TP_RANDOM_LEN], out[128];
	struct shb_quic_cid c = {0};
	size_t n;

	memset(rnd, 0xff, sizeof(rnd));
	rnd[2] = 20; /* length 20 % 17 = 3 */
	CU_ASSERT_EQUAL_FATAL(shb_quic_tp_encode_items(out, sizeof(out), it, 2, &c,
						       rnd, &n), SHB_QUIC_OK);
	/* id 31 * 65535 + 27 = 2031612 = 0x1effac, a 4-octet varint */
	CU_ASSERT_EQUAL(out[0], 0x80);
	CU_ASSERT_EQUAL(out[1], 0x1e);
	CU_ASSERT_EQUAL(out[2], 0xff);
	CU_ASSERT_EQUAL(out[3], 0xfc);
	CU_ASSERT_TRUE(shb_quic_tp_is_grease(2031612));
	CU_ASSERT_EQUAL(out[4], 3);
	CU_ASSERT_EQUAL(n, 4 + 1 + 3 + 2 + 12);
	CU_ASSERT_EQUAL(memcmp(out + 10, "\0\0\0\1\0\0\0\1\xfa\xfa\xfa\xfa", 12), 0);
}

/* value 2: Chosen Version 1, Available Versions 1 alone, no reserved
 * version (ngtcp2's client), and read back as v1. */
static void test_items_v1_alone(void)
{
	const struct shb_quic_tp_item it[] = {
		{SHB_QUIC_TP_VERSION_INFORMATION, SHB_QUIC_TPK_VERSIONS, 0, 2, NULL},
	};
	static const uint8_t want[] = {0x11, 0x08, 0, 0, 0, 1, 0, 0, 0, 1};
	uint8_t rnd[SHB_QUIC_TP_RANDOM_LEN], out[64];
	struct shb_quic_cid c = {0};
	struct shb_quic_tp tp;
	size_t n = 0;

	counting(rnd);
	CU_ASSERT_EQUAL_FATAL(shb_quic_tp_encode_items(out, sizeof(out), it, 1, &c,
						       rnd, &n), SHB_QUIC_OK);
	CU_ASSERT_EQUAL_FATAL(n, sizeof(want));
	CU_ASSERT_EQUAL(memcmp(out, want, n), 0);
	CU_ASSERT_EQUAL_FATAL(shb_quic_tp_decode_server(out, n, &tp, NULL),
			      SHB_QUIC_OK);
	CU_ASSERT_TRUE(tp.has_version_info);
	CU_ASSERT_EQUAL(tp.chosen_version, 1);
}

static void test_items_shuffle(void)
{
	struct shb_quic_tp_item it[5];
	uint8_t rnd[SHB_QUIC_TP_RANDOM_LEN];
	unsigned seen = 0;

	memset(rnd, 0, sizeof(rnd));
	for (unsigned i = 0; i < 5; i++)
		it[i] = (struct shb_quic_tp_item){i + 1, SHB_QUIC_TPK_INT, 0, i, NULL};
	/* All zeros: each step swaps i-1 with 0, a rotation. */
	shb_quic_tp_items_shuffle(it, 5, rnd);
	CU_ASSERT_EQUAL(it[0].id, 2);
	CU_ASSERT_EQUAL(it[1].id, 3);
	CU_ASSERT_EQUAL(it[4].id, 1);
	for (unsigned i = 0; i < 5; i++)
		seen |= 1u << it[i].id;
	CU_ASSERT_EQUAL(seen, 0x3e); /* a permutation */
	CU_ASSERT_EQUAL(shb_quic_tp_items_int(it, 5, 3, 99), 2);
	CU_ASSERT_EQUAL(shb_quic_tp_items_int(it, 5, 9, 99), 99);
}

static void test_items_refused(void)
{
	static const uint8_t b[40];
	struct shb_quic_tp_item it[SHB_QUIC_TP_ITEMS_MAX + 1];
	uint8_t rnd[SHB_QUIC_TP_RANDOM_LEN] = {0}, out[SHB_QUIC_TP_ITEMS_MAX_LEN];
	struct shb_quic_cid c = {0};
	size_t n;

	memset(it, 0, sizeof(it));
	it[0] = (struct shb_quic_tp_item){1, SHB_QUIC_TPK_INT, 0, 5, NULL};
	it[1] = it[0]; /* twice */
	CU_ASSERT_EQUAL(shb_quic_tp_encode_items(out, sizeof(out), it, 2, &c, rnd, &n),
			SHB_QUIC_E_INVALID);
	it[1] = (struct shb_quic_tp_item){2, SHB_QUIC_TPK_BYTES, 33, 0, b};
	CU_ASSERT_EQUAL(shb_quic_tp_encode_items(out, sizeof(out), it, 2, &c, rnd, &n),
			SHB_QUIC_E_INVALID);
	it[1] = (struct shb_quic_tp_item){0, SHB_QUIC_TPK_GREASE, 17, 0, NULL};
	CU_ASSERT_EQUAL(shb_quic_tp_encode_items(out, sizeof(out), it, 2, &c, rnd, &n),
			SHB_QUIC_E_INVALID);
	it[1] = (struct shb_quic_tp_item){0x11, SHB_QUIC_TPK_VERSIONS, 0, 3, NULL};
	CU_ASSERT_EQUAL(shb_quic_tp_encode_items(out, sizeof(out), it, 2, &c, rnd, &n),
			SHB_QUIC_E_INVALID);
	it[1] = (struct shb_quic_tp_item){2, 6, 0, 0, NULL};
	CU_ASSERT_EQUAL(shb_quic_tp_encode_items(out, sizeof(out), it, 2, &c, rnd, &n),
			SHB_QUIC_E_INVALID);
	it[1] = (struct shb_quic_tp_item){UINT64_C(1) << 62, SHB_QUIC_TPK_EMPTY, 0, 0, NULL};
	CU_ASSERT_EQUAL(shb_quic_tp_encode_items(out, sizeof(out), it, 2, &c, rnd, &n),
			SHB_QUIC_E_INVALID);
	for (unsigned i = 0; i < SHB_QUIC_TP_ITEMS_MAX + 1; i++)
		it[i] = (struct shb_quic_tp_item){0x40 + i, SHB_QUIC_TPK_EMPTY, 0, 0, NULL};
	CU_ASSERT_EQUAL(shb_quic_tp_encode_items(out, sizeof(out), it,
						 SHB_QUIC_TP_ITEMS_MAX + 1, &c, rnd, &n),
			SHB_QUIC_E_INVALID);
	CU_ASSERT_EQUAL(shb_quic_tp_encode_items(out, sizeof(out), it,
						 SHB_QUIC_TP_ITEMS_MAX, &c, rnd, &n),
			SHB_QUIC_OK);
}

/* RFC 9221 Section 3: an integer, once. */
static void test_decode_datagram(void)
{
	static const uint8_t ok[] = {0x20, 0x02, 0x44, 0xb0};
	static const uint8_t twice[] = {0x20, 0x01, 0x05, 0x20, 0x01, 0x05};
	static const uint8_t empty[] = {0x20, 0x00};
	struct shb_quic_tp tp;
	const char *why;

	CU_ASSERT_EQUAL(shb_quic_tp_decode_server(ok, sizeof(ok), &tp, &why), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(tp.max_datagram_frame_size, 1200);
	CU_ASSERT_TRUE(tp.has_max_datagram);
	CU_ASSERT_EQUAL(shb_quic_tp_decode_server(twice, sizeof(twice), &tp, &why),
			SHB_QUIC_E_TRANSPORT_PARAM);
	CU_ASSERT_STRING_EQUAL(why, "duplicate transport parameter");
	CU_ASSERT_EQUAL(shb_quic_tp_decode_server(empty, sizeof(empty), &tp, &why),
			SHB_QUIC_E_TRANSPORT_PARAM);
	CU_ASSERT_STRING_EQUAL(why, "integer transport parameter does not fill its length");
	CU_ASSERT_EQUAL(shb_quic_tp_decode_server(ok, 0, &tp, &why), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(tp.max_datagram_frame_size, 0);
}

/* RFC 9287: grease_quic_bit is empty, once; an endpoint that sent it
 * takes packets whose QUIC bit is 0. */
static void test_grease_quic_bit(void)
{
	static const uint8_t ok[] = {0x6a, 0xb2, 0x00};
	static const uint8_t full[] = {0x6a, 0xb2, 0x01, 0x00};
	static const uint8_t twice[] = {0x6a, 0xb2, 0x00, 0x6a, 0xb2, 0x00};
	uint8_t pkt[40];
	struct shb_quic_tp tp;
	struct shb_quic_hdr h;
	const char *why;

	CU_ASSERT_EQUAL(shb_quic_tp_decode_server(ok, sizeof(ok), &tp, &why), SHB_QUIC_OK);
	CU_ASSERT_TRUE(tp.grease_quic_bit);
	CU_ASSERT_EQUAL(shb_quic_tp_decode_server(full, sizeof(full), &tp, &why),
			SHB_QUIC_E_TRANSPORT_PARAM);
	CU_ASSERT_STRING_EQUAL(why, "grease_quic_bit not empty");
	CU_ASSERT_EQUAL(shb_quic_tp_decode_server(twice, sizeof(twice), &tp, &why),
			SHB_QUIC_E_TRANSPORT_PARAM);
	CU_ASSERT_STRING_EQUAL(why, "duplicate transport parameter");
	/* A short header, 8-octet DCID, QUIC bit clear. */
	memset(pkt, 0x11, sizeof(pkt));
	pkt[0] = 0x01;
	CU_ASSERT_EQUAL(shb_quic_hdr_parse(pkt, sizeof(pkt), 8, &h), SHB_QUIC_E_DROP);
	CU_ASSERT_EQUAL(shb_quic_hdr_parse_bit(pkt, sizeof(pkt), 8, 0, &h), SHB_QUIC_E_DROP);
	CU_ASSERT_EQUAL(shb_quic_hdr_parse_bit(pkt, sizeof(pkt), 8, 1, &h), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(h.type, SHB_QUIC_PT_1RTT);
	CU_ASSERT_EQUAL(h.pn_offset, 9);
	/* A Handshake long header, QUIC bit clear: taken too. */
	memcpy(pkt, "\xa0\x00\x00\x00\x01\x00\x00\x19", 8);
	CU_ASSERT_EQUAL(shb_quic_hdr_parse(pkt, sizeof(pkt), 0, &h), SHB_QUIC_E_DROP);
	CU_ASSERT_EQUAL(shb_quic_hdr_parse_bit(pkt, sizeof(pkt), 0, 1, &h), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(h.type, SHB_QUIC_PT_HANDSHAKE);
	CU_ASSERT_EQUAL(h.packet_len, 8 + 25);
}

/* RFC 9368 Section 3: a list of non-zero versions, once. */
static void test_decode_versions(void)
{
	static const uint8_t ok[] = {0x11, 0x08, 0, 0, 0, 1, 0x1a, 0x2a, 0x3a, 0x4a};
	static const uint8_t chosen_only[] = {0x11, 0x04, 0, 0, 0, 2};
	static const uint8_t odd[] = {0x11, 0x05, 0, 0, 0, 1, 0};
	static const uint8_t empty[] = {0x11, 0x00};
	static const uint8_t zero[] = {0x11, 0x08, 0, 0, 0, 1, 0, 0, 0, 0};
	static const uint8_t twice[] = {0x11, 0x04, 0, 0, 0, 1, 0x11, 0x04, 0, 0, 0, 1};
	struct shb_quic_tp tp;
	const char *why;

	CU_ASSERT_EQUAL(shb_quic_tp_decode_server(ok, sizeof(ok), &tp, &why), SHB_QUIC_OK);
	CU_ASSERT_TRUE(tp.has_version_info);
	CU_ASSERT_EQUAL(tp.chosen_version, 1);
	CU_ASSERT_EQUAL(shb_quic_tp_decode_server(chosen_only, sizeof(chosen_only), &tp,
						  &why), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(tp.chosen_version, 2);
	CU_ASSERT_EQUAL(shb_quic_tp_decode_server(odd, sizeof(odd), &tp, &why),
			SHB_QUIC_E_TRANSPORT_PARAM);
	CU_ASSERT_STRING_EQUAL(why, "version_information not a list of versions");
	CU_ASSERT_EQUAL(shb_quic_tp_decode_server(empty, sizeof(empty), &tp, &why),
			SHB_QUIC_E_TRANSPORT_PARAM);
	CU_ASSERT_STRING_EQUAL(why, "version_information not a list of versions");
	CU_ASSERT_EQUAL(shb_quic_tp_decode_server(zero, sizeof(zero), &tp, &why),
			SHB_QUIC_E_TRANSPORT_PARAM);
	CU_ASSERT_STRING_EQUAL(why, "version_information with version 0");
	CU_ASSERT_EQUAL(shb_quic_tp_decode_server(twice, sizeof(twice), &tp, &why),
			SHB_QUIC_E_TRANSPORT_PARAM);
	CU_ASSERT_STRING_EQUAL(why, "duplicate transport parameter");
}

CU_TestInfo shb_wire_tp_items_tests[] = {
	{"version_information decoded", test_decode_versions},
	{"grease_quic_bit", test_grease_quic_bit},
	{"parameter list octets and read-back", test_items_bytes},
	{"reserved parameter and version choices", test_items_random},
	{"version_information with v1 alone", test_items_v1_alone},
	{"permutation", test_items_shuffle},
	{"lists refused", test_items_refused},
	{"max_datagram_frame_size decoded", test_decode_datagram},
	CU_TEST_INFO_NULL,
};
