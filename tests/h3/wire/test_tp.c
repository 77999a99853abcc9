/* Transport parameters: the client's encoding byte-exact, the server's
 * decoding (all parameters, unknown and reserved ones skipped), every
 * validation error, cut at every length, and the connection-ID checks. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "quic_tp.h"
#include "quic_varint.h"
#include "quic_wire_err.h"
#include "wire_tests.h"

static const uint8_t scid8[8] = {1, 2, 3, 4, 5, 6, 7, 8};

static void test_init_defaults(void)
{
	struct shb_quic_tp tp;

	memset(&tp, 0xee, sizeof(tp));
	shb_quic_tp_init(&tp);
	CU_ASSERT_EQUAL(tp.present, 0);
	CU_ASSERT_EQUAL(tp.max_idle_timeout_ms, 0);
	CU_ASSERT_EQUAL(tp.max_udp_payload_size, 65527);
	CU_ASSERT_EQUAL(tp.initial_max_data, 0);
	CU_ASSERT_EQUAL(tp.initial_max_stream_data_bidi_local, 0);
	CU_ASSERT_EQUAL(tp.initial_max_stream_data_bidi_remote, 0);
	CU_ASSERT_EQUAL(tp.initial_max_stream_data_uni, 0);
	CU_ASSERT_EQUAL(tp.initial_max_streams_bidi, 0);
	CU_ASSERT_EQUAL(tp.initial_max_streams_uni, 0);
	CU_ASSERT_EQUAL(tp.ack_delay_exponent, 3);
	CU_ASSERT_EQUAL(tp.max_ack_delay_ms, 25);
	CU_ASSERT_EQUAL(tp.active_connection_id_limit, 2);
	CU_ASSERT_EQUAL(tp.disable_active_migration, 0);
	CU_ASSERT_EQUAL(tp.initial_scid.len, 0);
	CU_ASSERT_EQUAL(tp.original_dcid.len, 0);
	CU_ASSERT_EQUAL(tp.retry_scid.len, 0);
}

/* What shb's client sends: 1200-byte datagrams, a 2^30-1 window, three
 * uni streams for HTTP/3, max_ack_delay 0, no migration. */
static void client_params(struct shb_quic_tp *tp)
{
	shb_quic_tp_init(tp);
	tp->max_idle_timeout_ms = 30000;
	tp->max_udp_payload_size = 1200;
	tp->initial_max_data = 1073741823;
	tp->initial_max_stream_data_bidi_local = 1073741823;
	tp->initial_max_stream_data_uni = 1073741823;
	tp->initial_max_streams_uni = 3;
	tp->max_ack_delay_ms = 0;
	tp->disable_active_migration = 1;
	shb_quic_cid_set(&tp->initial_scid, scid8, 8);
}

static const char client_hex[] =
	"01 04 80007530"		/* max_idle_timeout 30000 */
	"03 02 44b0"			/* max_udp_payload_size 1200 */
	"04 04 bfffffff"		/* initial_max_data */
	"05 04 bfffffff"		/* ..._stream_data_bidi_local */
	"07 04 bfffffff"		/* ..._stream_data_uni */
	"09 01 03"			/* initial_max_streams_uni */
	"0b 01 00"			/* max_ack_delay 0 */
	"0c 00"				/* disable_active_migration */
	"0f 08 0102030405060708";	/* initial_source_connection_id */

static void test_encode_client_bytes(void)
{
	struct shb_quic_tp tp;
	uint8_t out[SHB_QUIC_TP_CLIENT_MAX_LEN];
	size_t n = 99, wl;
	uint8_t *want = wt_hex(client_hex, &wl);

	client_params(&tp);
	CU_ASSERT_EQUAL(shb_quic_tp_encode_client(out, sizeof(out), &tp, &n),
			SHB_QUIC_OK);
	CU_ASSERT_EQUAL(n, 46);
	CU_ASSERT_EQUAL(wl, 46);
	CU_ASSERT(n == wl && wt_same(out, want, wl));
	/* Every smaller buffer is refused. */
	for (size_t cap = 0; cap < wl; cap++) {
		uint8_t *q = wt_copy(want, cap);

		CU_ASSERT_EQUAL(shb_quic_tp_encode_client(q, cap, &tp, &n),
				SHB_QUIC_E_SPACE);
		CU_ASSERT_EQUAL(n, 0);
		free(q);
	}
	free(want);
}

/* All defaults: only the (empty) initial_source_connection_id, which a
 * client must always send. Server-only fields are never written. */
static void test_encode_client_minimal(void)
{
	struct shb_quic_tp tp;
	uint8_t out[16];
	size_t n;

	shb_quic_tp_init(&tp);
	shb_quic_cid_set(&tp.original_dcid, scid8, 8);
	shb_quic_cid_set(&tp.retry_scid, scid8, 4);
	tp.stateless_reset_token[0] = 1;
	tp.present = 0xffff;
	CU_ASSERT_EQUAL(shb_quic_tp_encode_client(out, sizeof(out), &tp, &n),
			SHB_QUIC_OK);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT(wt_same(out, (const uint8_t[]){0x0f, 0x00}, 2));
}

static void test_encode_client_round_trip(void)
{
	struct shb_quic_tp tp, back;
	uint8_t out[SHB_QUIC_TP_CLIENT_MAX_LEN];
	size_t n;
	const char *why = "x";

	client_params(&tp);
	tp.initial_max_streams_bidi = UINT64_C(1) << 60;
	tp.ack_delay_exponent = 20;
	tp.active_connection_id_limit = 8;
	tp.initial_max_stream_data_bidi_remote = SHB_QUIC_VARINT_MAX;
	CU_ASSERT_EQUAL_FATAL(shb_quic_tp_encode_client(out, sizeof(out), &tp,
							&n),
			      SHB_QUIC_OK);
	CU_ASSERT_EQUAL_FATAL(shb_quic_tp_decode_server(out, n, &back, &why),
			      SHB_QUIC_OK);
	CU_ASSERT_PTR_NULL(why);
	CU_ASSERT_EQUAL(back.present,
			SHB_QUIC_TP_BIT(0x01) | SHB_QUIC_TP_BIT(0x03) |
				SHB_QUIC_TP_BIT(0x04) | SHB_QUIC_TP_BIT(0x05) |
				SHB_QUIC_TP_BIT(0x06) | SHB_QUIC_TP_BIT(0x07) |
				SHB_QUIC_TP_BIT(0x08) | SHB_QUIC_TP_BIT(0x09) |
				SHB_QUIC_TP_BIT(0x0a) | SHB_QUIC_TP_BIT(0x0b) |
				SHB_QUIC_TP_BIT(0x0c) | SHB_QUIC_TP_BIT(0x0e) |
				SHB_QUIC_TP_BIT(0x0f));
	back.present = tp.present;
	CU_ASSERT_EQUAL(memcmp(&back, &tp, sizeof(tp)), 0);
}

static void test_encode_client_invalid(void)
{
	static const struct {
		const char *what;
		size_t off;
		uint64_t v;
	} c[] = {
#define F(field) offsetof(struct shb_quic_tp, field)
		{"max_udp_payload_size 1199", F(max_udp_payload_size), 1199},
		{"ack_delay_exponent 21", F(ack_delay_exponent), 21},
		{"max_ack_delay 2^14", F(max_ack_delay_ms), 16384},
		{"active_connection_id_limit 1",
		 F(active_connection_id_limit), 1},
		{"initial_max_streams_bidi 2^60+1",
		 F(initial_max_streams_bidi), (UINT64_C(1) << 60) + 1},
		{"initial_max_streams_uni 2^60+1", F(initial_max_streams_uni),
		 (UINT64_C(1) << 60) + 1},
		{"initial_max_data 2^62", F(initial_max_data),
		 UINT64_C(1) << 62},
		{"max_idle_timeout 2^62", F(max_idle_timeout_ms),
		 UINT64_C(1) << 62},
#undef F
	};
	uint8_t out[SHB_QUIC_TP_CLIENT_MAX_LEN];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct shb_quic_tp tp;
		size_t n = 99;

		client_params(&tp);
		memcpy((char *)&tp + c[i].off, &c[i].v, sizeof(uint64_t));
		if (shb_quic_tp_encode_client(out, sizeof(out), &tp, &n) !=
		    SHB_QUIC_E_INVALID)
			CU_FAIL(c[i].what);
		CU_ASSERT_EQUAL(n, 0);
	}
	{
		struct shb_quic_tp tp;
		size_t n;

		client_params(&tp);
		tp.disable_active_migration = 2;
		CU_ASSERT_EQUAL(shb_quic_tp_encode_client(out, sizeof(out), &tp,
							  &n),
				SHB_QUIC_E_INVALID);
		client_params(&tp);
		tp.initial_scid.len = 21;
		CU_ASSERT_EQUAL(shb_quic_tp_encode_client(out, sizeof(out), &tp,
							  &n),
				SHB_QUIC_E_INVALID);
		client_params(&tp);
		CU_ASSERT_EQUAL(shb_quic_tp_encode_client(NULL, 64, &tp, &n),
				SHB_QUIC_E_SPACE);
	}
}

/* Every field at its largest still fits the advertised bound. */
static void test_encode_client_max(void)
{
	struct shb_quic_tp tp;
	uint8_t out[SHB_QUIC_TP_CLIENT_MAX_LEN];
	uint8_t cid[20] = {0};
	size_t n;

	shb_quic_tp_init(&tp);
	tp.max_idle_timeout_ms = SHB_QUIC_VARINT_MAX;
	tp.max_udp_payload_size = SHB_QUIC_VARINT_MAX;
	tp.initial_max_data = SHB_QUIC_VARINT_MAX;
	tp.initial_max_stream_data_bidi_local = SHB_QUIC_VARINT_MAX;
	tp.initial_max_stream_data_bidi_remote = SHB_QUIC_VARINT_MAX;
	tp.initial_max_stream_data_uni = SHB_QUIC_VARINT_MAX;
	tp.initial_max_streams_bidi = UINT64_C(1) << 60;
	tp.initial_max_streams_uni = UINT64_C(1) << 60;
	tp.ack_delay_exponent = 20;
	tp.max_ack_delay_ms = 16383;
	tp.active_connection_id_limit = SHB_QUIC_VARINT_MAX;
	tp.disable_active_migration = 1;
	shb_quic_cid_set(&tp.initial_scid, cid, 20);
	CU_ASSERT_EQUAL(shb_quic_tp_encode_client(out, sizeof(out), &tp, &n),
			SHB_QUIC_OK);
	CU_ASSERT(n <= SHB_QUIC_TP_CLIENT_MAX_LEN);
	CU_ASSERT_EQUAL(n, 9 * 10 + 3 + 4 + 2 + 22);
}

/* The parameters inside the ClientHello of RFC 9001 A.2, read with the
 * same decoder (every one of them is also valid from a server). */
static void test_decode_rfc9001_params(void)
{
	static const char hex[] =
		"0408ffffffffffffffff05048000ffff07048000ffff0801100104800075"
		"300901100f088394c8f03e51570806048000ffff";
	static const uint8_t dcid[8] = {0x83, 0x94, 0xc8, 0xf0,
					0x3e, 0x51, 0x57, 0x08};
	size_t len;
	uint8_t *p = wt_hex(hex, &len);
	struct shb_quic_tp tp;

	CU_ASSERT_EQUAL(len, 50);
	CU_ASSERT_EQUAL_FATAL(shb_quic_tp_decode_server(p, len, &tp, NULL),
			      SHB_QUIC_OK);
	CU_ASSERT_EQUAL(tp.initial_max_data, SHB_QUIC_VARINT_MAX);
	CU_ASSERT_EQUAL(tp.initial_max_stream_data_bidi_local, 65535);
	CU_ASSERT_EQUAL(tp.initial_max_stream_data_bidi_remote, 65535);
	CU_ASSERT_EQUAL(tp.initial_max_stream_data_uni, 65535);
	CU_ASSERT_EQUAL(tp.initial_max_streams_bidi, 16);
	CU_ASSERT_EQUAL(tp.initial_max_streams_uni, 16);
	CU_ASSERT_EQUAL(tp.max_idle_timeout_ms, 30000);
	CU_ASSERT(shb_quic_cid_eq(&tp.initial_scid, dcid, 8));
	CU_ASSERT_EQUAL(tp.max_udp_payload_size, 65527); /* default */
	CU_ASSERT_EQUAL(tp.present,
			SHB_QUIC_TP_BIT(0x01) | SHB_QUIC_TP_BIT(0x04) |
				SHB_QUIC_TP_BIT(0x05) | SHB_QUIC_TP_BIT(0x06) |
				SHB_QUIC_TP_BIT(0x07) | SHB_QUIC_TP_BIT(0x08) |
				SHB_QUIC_TP_BIT(0x09) | SHB_QUIC_TP_BIT(0x0f));
	free(p);
}

/* A server's parameters, one string per parameter so that the cut test
 * knows where each ends. */
static const char *const server_params[] = {
	"00 08 8394c8f03e515708",
	"01 04 80007530",
	"02 10 00112233445566778899aabbccddeeff",
	"03 02 45dc",
	"04 04 80100000",
	"05 04 80040000",
	"06 04 80040001",
	"07 04 80040002",
	"08 02 4064",
	"09 01 03",
	"0a 01 08",
	"0b 01 14",
	"0c 00",
	"0d 2d 7f000001 1151 00000000000000000000000000000001 1151 04 c1c2c3c4"
	" a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
	"0e 01 04",
	"0f 08 f067a5502a4262b5",
	"10 04 d1d2d3d4",
	"1b 03 010203",				/* reserved 31*0+27 */
	"4059 00",				/* reserved 31*2+27 */
	"1b 00",				/* repeated reserved one */
	"c000000000001234 02 abcd",		/* unknown, 8-byte ID */
	"4021 01 ff",				/* unknown */
};

#define N_SERVER (sizeof(server_params) / sizeof(server_params[0]))

static uint8_t *server_blob(size_t *len, size_t ends[N_SERVER])
{
	uint8_t *blob = malloc(1024);
	size_t n = 0;

	if (!blob)
		abort();
	for (size_t i = 0; i < N_SERVER; i++) {
		size_t l;
		uint8_t *p = wt_hex(server_params[i], &l);

		memcpy(blob + n, p, l);
		n += l;
		ends[i] = n;
		free(p);
	}
	*len = n;
	return blob;
}

static const uint8_t odcid[8] = {0x83, 0x94, 0xc8, 0xf0,
				 0x3e, 0x51, 0x57, 0x08};
static const uint8_t srv_scid[8] = {0xf0, 0x67, 0xa5, 0x50,
				    0x2a, 0x42, 0x62, 0xb5};
static const uint8_t rscid[4] = {0xd1, 0xd2, 0xd3, 0xd4};

static void test_decode_server_full(void)
{
	size_t len, ends[N_SERVER];
	uint8_t *blob = server_blob(&len, ends);
	uint8_t *p = wt_copy(blob, len);
	struct shb_quic_tp tp;
	const char *why = "x";

	CU_ASSERT_EQUAL_FATAL(shb_quic_tp_decode_server(p, len, &tp, &why),
			      SHB_QUIC_OK);
	CU_ASSERT_PTR_NULL(why);
	CU_ASSERT_EQUAL(tp.present, 0x1ffff);
	CU_ASSERT(shb_quic_cid_eq(&tp.original_dcid, odcid, 8));
	CU_ASSERT_EQUAL(tp.max_idle_timeout_ms, 30000);
	CU_ASSERT_EQUAL(tp.stateless_reset_token[0], 0x00);
	CU_ASSERT_EQUAL(tp.stateless_reset_token[15], 0xff);
	CU_ASSERT_EQUAL(tp.max_udp_payload_size, 1500);
	CU_ASSERT_EQUAL(tp.initial_max_data, 1048576);
	CU_ASSERT_EQUAL(tp.initial_max_stream_data_bidi_local, 262144);
	CU_ASSERT_EQUAL(tp.initial_max_stream_data_bidi_remote, 262145);
	CU_ASSERT_EQUAL(tp.initial_max_stream_data_uni, 262146);
	CU_ASSERT_EQUAL(tp.initial_max_streams_bidi, 100);
	CU_ASSERT_EQUAL(tp.initial_max_streams_uni, 3);
	CU_ASSERT_EQUAL(tp.ack_delay_exponent, 8);
	CU_ASSERT_EQUAL(tp.max_ack_delay_ms, 20);
	CU_ASSERT_EQUAL(tp.disable_active_migration, 1);
	CU_ASSERT_EQUAL(tp.active_connection_id_limit, 4);
	CU_ASSERT(shb_quic_cid_eq(&tp.initial_scid, srv_scid, 8));
	CU_ASSERT(shb_quic_cid_eq(&tp.retry_scid, rscid, 4));
	free(p);
	free(blob);
}

/* Cut at every length: whole parameters decode, a cut one is an error. */
static void test_decode_server_cut(void)
{
	size_t len, ends[N_SERVER];
	uint8_t *blob = server_blob(&len, ends);

	for (size_t k = 0; k <= len; k++) {
		uint8_t *q = wt_copy(blob, k);
		struct shb_quic_tp tp;
		const char *why = NULL;
		int boundary = k == 0;
		int rc;

		for (size_t i = 0; i < N_SERVER; i++)
			boundary |= ends[i] == k;
		rc = shb_quic_tp_decode_server(q, k, &tp, &why);
		CU_ASSERT_EQUAL(rc, boundary ? SHB_QUIC_OK
					     : SHB_QUIC_E_TRANSPORT_PARAM);
		if (rc != SHB_QUIC_OK)
			CU_ASSERT_PTR_NOT_NULL(why);
		free(q);
	}
	free(blob);
	CU_ASSERT_EQUAL(shb_quic_tp_decode_server(NULL, 0,
						  &(struct shb_quic_tp){0},
						  NULL),
			SHB_QUIC_OK);
}

static void test_decode_errors(void)
{
	static const struct {
		const char *hex, *why; /* why: NULL when it must decode */
	} c[] = {
		{"01 01 05 01 01 06", "duplicate"},
		{"0c 00 0c 00", "duplicate"},
		{"0f 00 0f 00", "duplicate"},
		{"04 02 05 00", "does not fill"},
		{"04 00", "does not fill"},
		{"04 01 40", "does not fill"},
		{"04 02 4005", NULL},	/* longer than needed but filling */
		{"03 02 44af", "below 1200"},
		{"03 02 44b0", NULL},
		{"0a 01 15", "above 20"},
		{"0a 01 14", NULL},
		{"0b 04 80004000", "2^14"},
		{"0b 02 7fff", NULL},
		{"0e 01 01", "below 2"},
		{"0e 01 00", "below 2"},
		{"0e 01 02", NULL},
		{"08 08 d000000000000001", "2^60"},
		{"09 08 d000000000000001", "2^60"},
		{"08 08 d000000000000000", NULL},
		{"00 15 000102030405060708090a0b0c0d0e0f1011121314", "20 bytes"},
		{"0f 15 000102030405060708090a0b0c0d0e0f1011121314", "20 bytes"},
		{"10 15 000102030405060708090a0b0c0d0e0f1011121314", "20 bytes"},
		{"10 14 000102030405060708090a0b0c0d0e0f10111213", NULL},
		{"02 0f 000102030405060708090a0b0c0d0e", "16 bytes"},
		{"02 11 000102030405060708090a0b0c0d0e0f10", "16 bytes"},
		{"0c 01 00", "not empty"},
		{"0d 28 00000000000000000000000000000000000000000000000000000000"
		 "000000000000000000000000",
		 "too short"},
		{"0d 29 7f000001 1151 00000000000000000000000000000001 1151 00"
		 " a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
		 "outside 1..20"},
		{"0d 3e 7f000001 1151 00000000000000000000000000000001 1151 15"
		 " 000102030405060708090a0b0c0d0e0f1011121314"
		 " a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
		 "outside 1..20"},
		{"0d 2c 7f000001 1151 00000000000000000000000000000001 1151 04"
		 " c1c2c3c4 a0a1a2a3a4a5a6a7a8a9aaabacadae",
		 "does not match"},
		{"01", "truncated"},
		{"01 04 8000", "truncated"},
		{"40", "truncated"},
		{"1b 05 0102", "truncated"},
		{"ffffffffffffffff ffffffffffffffff", "truncated"},
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t len;
		uint8_t *p = wt_hex(c[i].hex, &len);
		struct shb_quic_tp tp;
		const char *why = NULL;
		int rc = shb_quic_tp_decode_server(p, len, &tp, &why);

		if (!c[i].why) {
			if (rc != SHB_QUIC_OK)
				CU_FAIL(c[i].hex);
		} else if (rc != SHB_QUIC_E_TRANSPORT_PARAM || !why ||
			   !strstr(why, c[i].why)) {
			CU_FAIL(c[i].hex);
		}
		free(p);
	}
}

static void test_check_cids(void)
{
	size_t len, ends[N_SERVER];
	uint8_t *blob = server_blob(&len, ends);
	struct shb_quic_tp tp, t2;
	struct shb_quic_cid first, server, retry, other;
	const char *why;

	shb_quic_cid_set(&first, odcid, 8);
	shb_quic_cid_set(&server, srv_scid, 8);
	shb_quic_cid_set(&retry, rscid, 4);
	shb_quic_cid_set(&other, rscid, 3);
	CU_ASSERT_EQUAL_FATAL(shb_quic_tp_decode_server(blob, len, &tp, NULL),
			      SHB_QUIC_OK);
	CU_ASSERT_EQUAL(shb_quic_tp_check_server_cids(&tp, &first, &server,
						      &retry, &why),
			SHB_QUIC_OK);
	CU_ASSERT_PTR_NULL(why);
#define BAD(a, b, c, text)                                                  \
	do {                                                                \
		why = NULL;                                                 \
		CU_ASSERT_EQUAL(shb_quic_tp_check_server_cids(&t2, a, b, c, \
							      &why),        \
				SHB_QUIC_E_TRANSPORT_PARAM);                \
		CU_ASSERT(why && strstr(why, text));                        \
	} while (0)
	t2 = tp;
	BAD(&other, &server, &retry, "original_destination_connection_id mismatch");
	BAD(&first, &other, &retry, "initial_source_connection_id mismatch");
	BAD(&first, &server, &other, "retry_source_connection_id mismatch");
	BAD(&first, &server, NULL, "without a Retry");
	t2.present &= ~SHB_QUIC_TP_BIT(SHB_QUIC_TP_ORIGINAL_DCID);
	BAD(&first, &server, &retry, "original_destination_connection_id missing");
	t2 = tp;
	t2.present &= ~SHB_QUIC_TP_BIT(SHB_QUIC_TP_INITIAL_SCID);
	BAD(&first, &server, &retry, "initial_source_connection_id missing");
	t2 = tp;
	t2.present &= ~SHB_QUIC_TP_BIT(SHB_QUIC_TP_RETRY_SCID);
	BAD(&first, &server, &retry, "retry_source_connection_id missing");
	CU_ASSERT_EQUAL(shb_quic_tp_check_server_cids(&t2, &first, &server,
						      NULL, NULL),
			SHB_QUIC_OK);
	/* An empty server SCID is legal and must match as empty. */
	t2.initial_scid.len = 0;
	server.len = 0;
	CU_ASSERT_EQUAL(shb_quic_tp_check_server_cids(&t2, &first, &server,
						      NULL, NULL),
			SHB_QUIC_OK);
#undef BAD
	free(blob);
}

static void test_cid_helpers(void)
{
	struct shb_quic_cid c = {.len = 3};
	uint8_t big[21] = {0};

	CU_ASSERT_EQUAL(shb_quic_cid_set(&c, big, 21), SHB_QUIC_E_INVALID);
	CU_ASSERT_EQUAL(c.len, 3);
	CU_ASSERT_EQUAL(shb_quic_cid_set(&c, NULL, 0), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(c.len, 0);
	CU_ASSERT(shb_quic_cid_eq(&c, NULL, 0));
	CU_ASSERT_EQUAL(shb_quic_cid_set(&c, scid8, 8), SHB_QUIC_OK);
	CU_ASSERT(shb_quic_cid_eq(&c, scid8, 8));
	CU_ASSERT_FALSE(shb_quic_cid_eq(&c, scid8, 7));
	CU_ASSERT_FALSE(shb_quic_cid_eq(&c, srv_scid, 8));
}

/* The report's fingerprint: the ids of the parameters a ClientHello
 * carries, in order, read from the message as a server reads it; a
 * message without the extension, or cut short, gives none. */
static void test_hello_ids(void)
{
	struct shb_quic_tp tp;
	uint8_t tpb[SHB_QUIC_TP_CLIENT_MAX_LEN], m[256];
	size_t n, at = 0;
	char out[64];

	client_params(&tp);
	CU_ASSERT_EQUAL_FATAL(shb_quic_tp_encode_client(tpb, sizeof(tpb), &tp, &n),
			      SHB_QUIC_OK);
	/* type 1, uint24 length (filled below), version, random, empty
	 * session id, one suite, one compression method, extensions: ALPN
	 * "h3" then quic_transport_parameters */
	m[at++] = 1;
	at += 3;
	m[at++] = 3, m[at++] = 3;
	memset(m + at, 0xaa, 32), at += 32;
	m[at++] = 0;
	m[at++] = 0, m[at++] = 2, m[at++] = 0x13, m[at++] = 0x01;
	m[at++] = 1, m[at++] = 0;
	size_t ext_len = 4 + 5 + 4 + n;
	m[at++] = (uint8_t)(ext_len >> 8), m[at++] = (uint8_t)ext_len;
	memcpy(m + at, "\x00\x10\x00\x05\x00\x03\x02h3", 9), at += 9;
	m[at++] = 0, m[at++] = 0x39, m[at++] = 0, m[at++] = (uint8_t)n;
	memcpy(m + at, tpb, n), at += n;
	m[1] = 0, m[2] = (uint8_t)((at - 4) >> 8), m[3] = (uint8_t)(at - 4);
	CU_ASSERT_EQUAL(shb_quic_tp_hello_ids(m, at, out, sizeof(out)), 20);
	CU_ASSERT_STRING_EQUAL(out, "1-3-4-5-7-9-11-12-15");
	for (size_t cut = 0; cut < at; cut++)
		CU_ASSERT_EQUAL(shb_quic_tp_hello_ids(m, cut, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(shb_quic_tp_hello_ids(m, at, out, 20), 0); /* no room */
	m[at - n - 3] = 0x3a; /* another extension: no parameters */
	CU_ASSERT_EQUAL(shb_quic_tp_hello_ids(m, at, out, sizeof(out)), 0);
}

CU_TestInfo shb_wire_tp_tests[] = {
	{"ClientHello parameter ids", test_hello_ids},
	{"defaults", test_init_defaults},
	{"client encoding byte-exact", test_encode_client_bytes},
	{"client encoding of defaults", test_encode_client_minimal},
	{"client encoding round trip", test_encode_client_round_trip},
	{"client encoding refuses bad values", test_encode_client_invalid},
	{"client encoding at its largest", test_encode_client_max},
	{"RFC 9001 A.2 ClientHello parameters", test_decode_rfc9001_params},
	{"server parameters, all of them", test_decode_server_full},
	{"server parameters cut at every length", test_decode_server_cut},
	{"every validation error", test_decode_errors},
	{"connection ID checks", test_check_cids},
	{"connection ID helpers", test_cid_helpers},
	CU_TEST_INFO_NULL,
};
