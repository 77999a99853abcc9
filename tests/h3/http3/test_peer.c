/* The peer's unidirectional streams (control, QPACK encoder and decoder,
 * push, unknown) fed split at every offset, and our own control stream
 * bytes. */
#include "http3_tests.h"

#include <string.h>

#include "h3_defs.h"
#include "h3_local.h"
#include "h3_peer.h"

static struct shb_h3t_buf st;

/* Feeds st in two pieces split at `cut`; the FIN rides on the second.
 * Returns the OR of the events, or SHB_H3_PEER_ERROR. */
static int feed_two(struct shb_h3_peer *p, struct shb_h3_uni *u, size_t cut,
		    int fin)
{
	int a, b;

	shb_h3_peer_init(p);
	shb_h3_uni_init(u);
	a = shb_h3_uni_feed(p, u, st.b, cut, 0);
	if (a < 0)
		return a;
	b = shb_h3_uni_feed(p, u, st.b + cut, st.n - cut, fin);
	return b < 0 ? b : a | b;
}

static int feed_bytewise(struct shb_h3_peer *p, struct shb_h3_uni *u,
			 int fin)
{
	int ev = 0, rc;

	shb_h3_peer_init(p);
	shb_h3_uni_init(u);
	for (size_t i = 0; i < st.n; i++) {
		rc = shb_h3_uni_feed(p, u, st.b + i, 1, fin && i + 1 == st.n);
		if (rc < 0)
			return rc;
		ev |= rc;
	}
	return ev;
}

/* The stream in `st` must give `want` (events, or SHB_H3_PEER_ERROR with
 * p->error == code) however it is split. The last run's state is left in
 * *p and *u for further checks. */
static void expect(struct shb_h3_peer *p, struct shb_h3_uni *u, int fin,
		   int want, uint64_t code)
{
	for (size_t cut = 0; cut <= st.n; cut++) {
		int rc = feed_two(p, u, cut, fin);

		CU_ASSERT_EQUAL(rc, want);
		if (rc < 0) {
			CU_ASSERT_EQUAL(p->error, code);
			CU_ASSERT_PTR_NOT_NULL(p->detail);
			/* Failed for good. */
			CU_ASSERT_EQUAL(shb_h3_uni_feed(p, u, NULL, 0, 0),
					SHB_H3_PEER_ERROR);
		}
	}
	CU_ASSERT_EQUAL(feed_bytewise(p, u, fin), want);
	if (want < 0)
		CU_ASSERT_EQUAL(p->error, code);
}

static void stream_hex(const char *hex)
{
	shb_h3t_clear(&st);
	shb_h3t_hex(&st, hex);
}

/* ---- control stream ------------------------------------------------------ */

static void test_control_settings_goaway(void)
{
	struct shb_h3_peer p;
	struct shb_h3_uni u;

	stream_hex("00"
		   "04 09 06 4400  01 00  21 05  07 10" /* SETTINGS */
		   "07 01 08"                         /* GOAWAY 8 */
		   "21 03 aabbcc"                     /* reserved frame */
		   "07 01 04  07 01 04"               /* GOAWAY 4, again */
		   "1f 00"                            /* unknown, empty */
		   "07 01 00");                       /* GOAWAY 0 */
	expect(&p, &u, 0, SHB_H3_EV_SETTINGS | SHB_H3_EV_GOAWAY, 0);
	CU_ASSERT_EQUAL(u.kind, SHB_H3_UNI_CONTROL);
	CU_ASSERT_EQUAL(u.type, 0);
	CU_ASSERT(p.settings_received);
	CU_ASSERT_EQUAL(p.max_field_section_size, 1024);
	CU_ASSERT_EQUAL(p.qpack_max_table_capacity, 0);
	CU_ASSERT_EQUAL(p.qpack_blocked_streams, 16);
	CU_ASSERT_EQUAL(p.goaway_id, 0);
	CU_ASSERT_EQUAL(p.error, 0);
}

static void test_control_events_in_order(void)
{
	struct shb_h3_peer p;
	struct shb_h3_uni u;

	shb_h3_peer_init(&p);
	shb_h3_uni_init(&u);
	CU_ASSERT_EQUAL(p.goaway_id, SHB_H3_NO_GOAWAY);
	CU_ASSERT_EQUAL(p.max_field_section_size, SHB_H3_UNLIMITED);
	stream_hex("00 04 00");
	CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &u, st.b, st.n, 0),
			SHB_H3_EV_SETTINGS);
	CU_ASSERT(p.settings_received);
	CU_ASSERT_EQUAL(p.max_field_section_size, SHB_H3_UNLIMITED);
	stream_hex("07 01 1c 07");
	CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &u, st.b, st.n, 0),
			SHB_H3_EV_GOAWAY);
	CU_ASSERT_EQUAL(p.goaway_id, 28);
	stream_hex("02");
	CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &u, st.b, st.n, 0), 0);
	stream_hex("4010"); /* GOAWAY 16, two-octet varint */
	CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &u, st.b, st.n, 0),
			SHB_H3_EV_GOAWAY);
	CU_ASSERT_EQUAL(p.goaway_id, 16);
	/* An application may read the control stream a long time: nothing
	 * but the end of it is an error. */
	CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &u, NULL, 0, 1), SHB_H3_PEER_ERROR);
	CU_ASSERT_EQUAL(p.error, SHB_H3_CLOSED_CRITICAL_STREAM);
}

struct bad {
	const char *hex; /* after the control stream type */
	uint64_t code;
};

static void test_control_errors(void)
{
	static const struct bad bad[] = {
		{"07 01 00", SHB_H3_MISSING_SETTINGS},
		{"21 00 04 00", SHB_H3_MISSING_SETTINGS},
		{"00 00", SHB_H3_MISSING_SETTINGS},
		{"04 00 04 00", SHB_H3_FRAME_UNEXPECTED},
		{"04 02 00 00", SHB_H3_SETTINGS_ERROR},
		{"04 02 02 00", SHB_H3_SETTINGS_ERROR},
		{"04 02 03 64", SHB_H3_SETTINGS_ERROR},
		{"04 02 04 00", SHB_H3_SETTINGS_ERROR},
		{"04 02 05 00", SHB_H3_SETTINGS_ERROR},
		{"04 04 06 01 06 02", SHB_H3_SETTINGS_ERROR},
		{"04 04 01 00 01 00", SHB_H3_SETTINGS_ERROR},
		{"04 06 07 00 21 00 07 00", SHB_H3_SETTINGS_ERROR},
		{"04 02 33 02", SHB_H3_SETTINGS_ERROR}, /* RFC 9297 2.1.1 */
		{"04 01 06", SHB_H3_FRAME_ERROR},
		{"04 02 06 40 00", SHB_H3_FRAME_ERROR},
		{"04 03 06 80 00 00 00", SHB_H3_FRAME_ERROR},
		{"04 00 07 01 04 07 01 08", SHB_H3_ID_ERROR},
		{"04 00 07 01 01", SHB_H3_ID_ERROR},
		{"04 00 07 01 02", SHB_H3_ID_ERROR},
		{"04 00 07 01 03", SHB_H3_ID_ERROR},
		{"04 00 07 02 04 00", SHB_H3_FRAME_ERROR},
		{"04 00 07 00", SHB_H3_FRAME_ERROR},
		{"04 00 07 01 40", SHB_H3_FRAME_ERROR},
		{"04 00 00 00", SHB_H3_FRAME_UNEXPECTED},
		{"04 00 01 02 0000", SHB_H3_FRAME_UNEXPECTED},
		{"04 00 05 00", SHB_H3_FRAME_UNEXPECTED},
		{"04 00 0d 01 00", SHB_H3_FRAME_UNEXPECTED},
		{"04 00 03 01 00", SHB_H3_ID_ERROR},
		{"04 00 02 00", SHB_H3_FRAME_UNEXPECTED},
		{"04 00 06 08 0000000000000000", SHB_H3_FRAME_UNEXPECTED},
		{"04 00 08 00", SHB_H3_FRAME_UNEXPECTED},
		{"04 00 09 00", SHB_H3_FRAME_UNEXPECTED},
	};
	struct shb_h3_peer p;
	struct shb_h3_uni u;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		stream_hex("00");
		shb_h3t_hex(&st, bad[i].hex);
		expect(&p, &u, 0, SHB_H3_PEER_ERROR, bad[i].code);
	}
}

/* A browser's SETTINGS from a server (RFC 9297's H3_DATAGRAM 0 or 1,
 * ENABLE_CONNECT_PROTOCOL, draft ids): read, the unknown ones ignored. */
static void test_settings_datagram(void)
{
	struct shb_h3_peer p;
	struct shb_h3_uni u;

	stream_hex("00 04 11 3301 0801 ab603742 00 80ffd277 01 06 4400");
	expect(&p, &u, 0, SHB_H3_EV_SETTINGS, 0);
	CU_ASSERT_EQUAL(p.max_field_section_size, 1024);
	stream_hex("00 04 02 3300");
	expect(&p, &u, 0, SHB_H3_EV_SETTINGS, 0);
	stream_hex("00 04 03 33 4002");
	expect(&p, &u, 0, SHB_H3_PEER_ERROR, SHB_H3_SETTINGS_ERROR);
	CU_ASSERT_STRING_EQUAL(p.detail, "H3_DATAGRAM setting neither 0 nor 1");
}

/* SETTINGS: at most 64 identifiers, known, unknown or reserved. */
static void test_settings_cap(void)
{
	struct shb_h3t_buf body;
	struct shb_h3_peer p;
	struct shb_h3_uni u;

	for (int over = 0; over < 2; over++) {
		shb_h3t_clear(&body);
		shb_h3t_hex(&body, "06 4400"); /* MAX_FIELD_SECTION_SIZE */
		for (uint64_t k = 1; k < 64 + (uint64_t)over; k++) {
			shb_h3t_varint(&body, 0x1f * k + 0x21);
			shb_h3t_varint(&body, k);
		}
		stream_hex("00");
		shb_h3t_frame(&st, SHB_H3_FRAME_SETTINGS, body.b, body.n);
		if (!over) {
			expect(&p, &u, 0, SHB_H3_EV_SETTINGS, 0);
			CU_ASSERT_EQUAL(p.max_field_section_size, 1024);
			continue;
		}
		expect(&p, &u, 0, SHB_H3_PEER_ERROR, SHB_H3_EXCESSIVE_LOAD);
		CU_ASSERT_STRING_EQUAL(p.detail, "more than 64 settings in "
						 "SETTINGS (cap 64)");
	}
}

/* Unknown and reserved frames are skipped by length, any number of
 * them, and a huge one is read through without being kept. */
static void test_unknown_frames_endless(void)
{
	struct shb_h3_peer p;
	struct shb_h3_uni u;
	static uint8_t junk[65536];

	stream_hex("00 04 00");
	for (int i = 0; i < 1500; i++)
		shb_h3t_hex(&st, i % 2 ? "21 00" : "4040 01 aa");
	shb_h3t_hex(&st, "07 01 08"); /* GOAWAY still read after them */
	expect(&p, &u, 0, SHB_H3_EV_SETTINGS | SHB_H3_EV_GOAWAY, 0);
	CU_ASSERT_EQUAL(p.goaway_id, 8);
	/* A reserved frame of 2^62 - 1 octets, fed 64 KiB at a time. */
	stream_hex("00 04 00 21 ffffffffffffffff");
	shb_h3_peer_init(&p);
	shb_h3_uni_init(&u);
	CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &u, st.b, st.n, 0),
			SHB_H3_EV_SETTINGS);
	for (int i = 0; i < 256; i++)
		CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &u, junk, sizeof(junk), 0),
				0);
	CU_ASSERT_EQUAL(p.frame_left,
			UINT64_C(0x3fffffffffffffff) - 256 * sizeof(junk));
}

static void test_critical_closed(void)
{
	static const char *const streams[] = {"00", "00 04 00", "00 04 00 07",
					      "02", "02 20", "03", "03 48"};
	struct shb_h3_peer p;
	struct shb_h3_uni u;

	for (size_t i = 0; i < sizeof(streams) / sizeof(streams[0]); i++) {
		stream_hex(streams[i]);
		expect(&p, &u, 1, SHB_H3_PEER_ERROR,
		       SHB_H3_CLOSED_CRITICAL_STREAM);
		/* Reset instead of FIN. */
		shb_h3_peer_init(&p);
		shb_h3_uni_init(&u);
		CU_ASSERT(shb_h3_uni_feed(&p, &u, st.b, st.n, 0) >= 0);
		CU_ASSERT(shb_h3_uni_is_critical(&u));
		CU_ASSERT_EQUAL(shb_h3_uni_reset(&p, &u), SHB_H3_PEER_ERROR);
		CU_ASSERT_EQUAL(p.error, SHB_H3_CLOSED_CRITICAL_STREAM);
	}
}

/* ---- stream types -------------------------------------------------------- */

static void test_second_critical_stream(void)
{
	static const uint8_t types[] = {0x00, 0x02, 0x03};
	static const uint8_t settings[] = {0x04, 0x00};

	for (size_t i = 0; i < sizeof(types); i++) {
		struct shb_h3_peer p;
		struct shb_h3_uni a, b;

		shb_h3_peer_init(&p);
		shb_h3_uni_init(&a);
		shb_h3_uni_init(&b);
		CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &a, &types[i], 1, 0), 0);
		if (types[i] == 0x00)
			CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &a, settings, 2, 0),
					SHB_H3_EV_SETTINGS);
		CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &b, &types[i], 1, 0),
				SHB_H3_PEER_ERROR);
		CU_ASSERT_EQUAL(p.error, SHB_H3_STREAM_CREATION_ERROR);
	}
}

static void test_push_stream(void)
{
	struct shb_h3_peer p;
	struct shb_h3_uni u;

	stream_hex("01 00 01 02 0000");
	expect(&p, &u, 0, SHB_H3_PEER_ERROR, SHB_H3_ID_ERROR);
}

static void test_unknown_streams_drained(void)
{
	struct shb_h3_peer p;
	struct shb_h3_uni u;

	stream_hex("21 00 01 02 03 04 05 ff"); /* reserved type */
	expect(&p, &u, 1, 0, 0);
	CU_ASSERT_EQUAL(u.kind, SHB_H3_UNI_IGNORED);
	CU_ASSERT_EQUAL(u.type, 0x21);
	CU_ASSERT(!shb_h3_uni_is_critical(&u));
	CU_ASSERT_EQUAL(shb_h3_uni_reset(&p, &u), 0);
	stream_hex("4054 0004 00"); /* unknown two-octet type */
	expect(&p, &u, 1, 0, 0);
	CU_ASSERT_EQUAL(u.type, 0x54);
	stream_hex("c000000000001234"); /* eight-octet type, no data */
	expect(&p, &u, 1, 0, 0);
	CU_ASSERT_EQUAL(u.type, 0x1234);
	/* A stream may end or be reset before its type is complete. */
	stream_hex("40");
	expect(&p, &u, 1, 0, 0);
	CU_ASSERT_EQUAL(u.kind, SHB_H3_UNI_PENDING);
	CU_ASSERT_EQUAL(shb_h3_uni_reset(&p, &u), 0);
}

/* ---- QPACK streams ------------------------------------------------------- */

static void test_encoder_stream(void)
{
	static const char *const bad[] = {
		"02 3fbd01",                             /* B.2: capacity 220 */
		"02 c00f 7777772e6578616d706c652e636f6d", /* B.2: insert */
		"02 4a63 7573746f6d2d6b6579 0c 637573746f6d2d76616c7565",
		"02 02",                                 /* B.4: duplicate */
		"02 810d 637573746f6d2d76616c756532",    /* B.5: insert */
		"02 21",                                 /* capacity 1 */
		"02 20 3f00",                            /* capacity 31 */
		"02 20 20 00",                           /* duplicate 0 */
	};
	struct shb_h3_peer p;
	struct shb_h3_uni u;

	stream_hex("02");
	expect(&p, &u, 0, 0, 0);
	CU_ASSERT_EQUAL(u.kind, SHB_H3_UNI_QPACK_ENCODER);
	stream_hex("02 20 20 20");
	expect(&p, &u, 0, 0, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		stream_hex(bad[i]);
		expect(&p, &u, 0, SHB_H3_PEER_ERROR,
		       SHB_QPACK_ENCODER_STREAM_ERROR);
	}
}

static void test_decoder_stream(void)
{
	static const char *const bad[] = {
		"03 84",       /* B.2: Section Acknowledgment, stream 4 */
		"03 01",       /* B.3: Insert Count Increment 1 */
		"03 48 00",    /* Insert Count Increment 0 */
		"03 ff 00",    /* Section Acknowledgment, long stream ID */
		"03 7f ffffffffffffffffff01", /* stream ID above 2^62 */
	};
	struct shb_h3_peer p;
	struct shb_h3_uni u;

	/* B.4: Stream Cancellation of stream 8; then of stream 192. */
	stream_hex("03 48 7f 8101");
	expect(&p, &u, 0, 0, 0);
	CU_ASSERT_EQUAL(u.kind, SHB_H3_UNI_QPACK_DECODER);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		stream_hex(bad[i]);
		expect(&p, &u, 0, SHB_H3_PEER_ERROR,
		       SHB_QPACK_DECODER_STREAM_ERROR);
	}
}

/* ---- our side ------------------------------------------------------------ */

static int same(const uint8_t *got, size_t n, const char *hex)
{
	uint8_t want[64];
	size_t m = shb_h3t_unhex(want, sizeof(want), hex);

	return n == m && memcmp(got, want, n) == 0;
}

static void test_local_streams(void)
{
	uint8_t out[SHB_H3_LOCAL_CONTROL_MAX];
	size_t n;
	struct shb_h3_peer p;
	struct shb_h3_uni u;

	n = shb_h3_local_control(out, sizeof(out), NULL, 0);
	CU_ASSERT(same(out, n, "00 04 09 0100 0700 06 80040000"));
	/* Read back by our own peer reader. */
	shb_h3_peer_init(&p);
	shb_h3_uni_init(&u);
	CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &u, out, n, 0), SHB_H3_EV_SETTINGS);
	CU_ASSERT_EQUAL(p.max_field_section_size, 256 << 10);
	n = shb_h3_local_control(out, sizeof(out), NULL, 5);
	CU_ASSERT(same(out, n, "00 04 0c 0100 0700 06 80040000 40bc 05"));
	n = shb_h3_local_control(out, sizeof(out), NULL, 4097);
	CU_ASSERT(same(out, n, "00 04 0d 0100 0700 06 80040000 4040 5001"));
	n = shb_h3_local_control(out, sizeof(out), NULL, UINT32_MAX);
	CU_ASSERT_EQUAL(n, 24);
	shb_h3_peer_init(&p);
	shb_h3_uni_init(&u);
	CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &u, out, n, 0), SHB_H3_EV_SETTINGS);
	CU_ASSERT_EQUAL(p.error, 0);
	/* The dynamic table announced as configured (qpack-table=,
	 * qpack-blocked=), the browsers' largest included. */
	struct shb_h3_conn_config cfg = {4096, 16};
	n = shb_h3_local_control(out, sizeof(out), &cfg, 0);
	CU_ASSERT(same(out, n, "00 04 0a 015000 0710 06 80040000"));
	cfg = (struct shb_h3_conn_config){65536, 100};
	n = shb_h3_local_control(out, sizeof(out), &cfg, UINT32_MAX);
	CU_ASSERT_EQUAL(n, 28);
	shb_h3_peer_init(&p);
	shb_h3_uni_init(&u);
	CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &u, out, n, 0), SHB_H3_EV_SETTINGS);
	CU_ASSERT_EQUAL(p.qpack_max_table_capacity, 65536);
	CU_ASSERT_EQUAL(p.qpack_blocked_streams, 100);
	CU_ASSERT_EQUAL(shb_h3_local_control(out, 11, NULL, 0), 0);
	CU_ASSERT_EQUAL(shb_h3_local_control(out, 12, NULL, 0), 12);
	CU_ASSERT_EQUAL(shb_h3_local_control(out, 0, NULL, 0), 0);
	CU_ASSERT_EQUAL(shb_h3_local_encoder_stream[0], 0x02);
	CU_ASSERT_EQUAL(shb_h3_local_decoder_stream[0], 0x03);
	n = shb_h3_local_goaway(out, sizeof(out));
	CU_ASSERT(same(out, n, "07 01 00"));
	CU_ASSERT_EQUAL(shb_h3_local_goaway(out, 2), 0);
}

/* The report's fingerprint of our control stream: its SETTINGS as sent,
 * the reserved one as GREASE; anything else gives none. */
static void test_local_settings_text(void)
{
	uint8_t out[SHB_H3_LOCAL_CONTROL_MAX];
	char t[64];
	size_t n = shb_h3_local_control(out, sizeof(out), NULL, 0);

	CU_ASSERT_EQUAL(shb_h3_local_settings_text(out, n, t, sizeof(t)), 16);
	CU_ASSERT_STRING_EQUAL(t, "1:0;7:0;6:262144");
	n = shb_h3_local_control(out, sizeof(out), NULL, 4097);
	CU_ASSERT_EQUAL(shb_h3_local_settings_text(out, n, t, sizeof(t)), 23);
	CU_ASSERT_STRING_EQUAL(t, "1:0;7:0;6:262144;GREASE");
	for (size_t cut = 0; cut < n; cut++)
		CU_ASSERT_EQUAL(shb_h3_local_settings_text(out, cut, t, sizeof(t)), 0);
	CU_ASSERT_EQUAL(shb_h3_local_settings_text(out, n, t, 23), 0);
	out[0] = 0x02; /* not a control stream */
	CU_ASSERT_EQUAL(shb_h3_local_settings_text(out, n, t, sizeof(t)), 0);
}

/* A whole connection's worth of peer streams, interleaved. */
static void test_interleaved_streams(void)
{
	struct shb_h3_peer p;
	struct shb_h3_uni ctl, enc, dec, grease;
	uint8_t c[] = {0x00, 0x04, 0x02, 0x06, 0x10, 0x07, 0x01, 0x04};

	shb_h3_peer_init(&p);
	shb_h3_uni_init(&ctl);
	shb_h3_uni_init(&enc);
	shb_h3_uni_init(&dec);
	shb_h3_uni_init(&grease);
	CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &enc, (const uint8_t *)"\x02", 1,
					0),
			0);
	CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &ctl, c, 3, 0), 0);
	CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &grease,
					(const uint8_t *)"\x21xyz", 4, 1),
			0);
	CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &dec, (const uint8_t *)"\x03\x48",
					2, 0),
			0);
	CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &ctl, c + 3, 3, 0),
			SHB_H3_EV_SETTINGS);
	CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &enc, (const uint8_t *)"\x20", 1,
					0),
			0);
	CU_ASSERT_EQUAL(shb_h3_uni_feed(&p, &ctl, c + 6, 2, 0),
			SHB_H3_EV_GOAWAY);
	CU_ASSERT_EQUAL(p.goaway_id, 4);
	CU_ASSERT_EQUAL(p.max_field_section_size, 16);
	CU_ASSERT_EQUAL(p.error, 0);
}

CU_TestInfo shb_h3t_peer_tests[] = {
	{"control: SETTINGS then GOAWAYs", test_control_settings_goaway},
	{"control: events call by call", test_control_events_in_order},
	{"control: errors", test_control_errors},
	{"critical streams closed or reset", test_critical_closed},
	{"second critical stream", test_second_critical_stream},
	{"push stream", test_push_stream},
	{"unknown streams drained", test_unknown_streams_drained},
	{"at most 64 settings", test_settings_cap},
	{"a browser's SETTINGS, H3_DATAGRAM 0 or 1", test_settings_datagram},
	{"unknown control frames skipped", test_unknown_frames_endless},
	{"QPACK encoder stream", test_encoder_stream},
	{"QPACK decoder stream", test_decoder_stream},
	{"our control and QPACK streams", test_local_streams},
	{"our SETTINGS as the report shows them", test_local_settings_text},
	{"interleaved peer streams", test_interleaved_streams},
	CU_TEST_INFO_NULL,
};
