/* Frames: every RFC 9000 frame type as a hand-computed example that must
 * decode to exactly these fields and encode back to exactly these bytes;
 * each example cut at every length; the packet-type rules of Table 3;
 * field range errors (test_frame_enc.c: the STREAM and CRYPTO encoders
 * that fill space). */
#include <stdlib.h>
#include <string.h>

#include "quic_frame.h"
#include "quic_header.h"
#include "quic_varint.h"
#include "quic_wire_err.h"
#include "wire_tests.h"

static const uint8_t d_abc[] = "abc";
static const uint8_t d_z[] = "z";
static const uint8_t d_hi[] = "hi";
static const uint8_t d_bad[] = "bad";
static const uint8_t d_tok[] = {0xaa, 0xbb};
static const uint8_t d_cid[] = {0xa1, 0xa2, 0xa3, 0xa4};
static const uint8_t d_srt[16] = {0, 1, 2, 3, 4, 5, 6, 7,
				  8, 9, 10, 11, 12, 13, 14, 15};
static const uint8_t d_ranges[] = {0x00, 0x01};

#define STREAM_EX(t, off, hoff, hlen)                                       \
	{.type = SHB_QUIC_FT_STREAM,                                        \
	 .u.stream = {.stream_id = 4, .offset = off, .data = d_hi, .len = 2, \
		      .fin = (t) & 1, .has_offset = hoff, .has_len = hlen}}

struct example {
	const char *name;
	const char *hex;
	struct shb_quic_frame f;
	int prefix_ok;	/* a shorter prefix may itself be a valid frame */
};

static const struct example ex[] = {
	{"PADDING x3", "000000", {.type = SHB_QUIC_FT_PADDING, .u.padding = 3}, 1},
	{"PING", "01", {.type = SHB_QUIC_FT_PING}, 0},
	{"ACK, two ranges", "02 0a 03 01 02 00 01",
	 {.type = SHB_QUIC_FT_ACK,
	  .u.ack = {.largest = 10, .delay = 3, .range_count = 1,
		    .first_range = 2, .smallest = 5, .ranges = d_ranges,
		    .ranges_len = 2}}, 0},
	{"ACK_ECN", "03 0a 03 00 00 01 02 03",
	 {.type = SHB_QUIC_FT_ACK_ECN,
	  .u.ack = {.largest = 10, .delay = 3, .smallest = 10, .ect0 = 1,
		    .ect1 = 2, .ce = 3}}, 0},
	{"RESET_STREAM", "04 04 410c 4400",
	 {.type = SHB_QUIC_FT_RESET_STREAM,
	  .u.reset_stream = {.stream_id = 4, .error_code = 0x10c,
			     .final_size = 0x400}}, 0},
	{"STOP_SENDING", "05 08 410c",
	 {.type = SHB_QUIC_FT_STOP_SENDING,
	  .u.stop_sending = {.stream_id = 8, .error_code = 0x10c}}, 0},
	{"CRYPTO", "06 00 03 616263",
	 {.type = SHB_QUIC_FT_CRYPTO,
	  .u.crypto = {.offset = 0, .data = d_abc, .len = 3}}, 0},
	{"CRYPTO at 1024", "06 4400 01 7a",
	 {.type = SHB_QUIC_FT_CRYPTO,
	  .u.crypto = {.offset = 1024, .data = d_z, .len = 1}}, 0},
	{"NEW_TOKEN", "07 02 aabb",
	 {.type = SHB_QUIC_FT_NEW_TOKEN,
	  .u.new_token = {.token = d_tok, .len = 2}}, 0},
	{"STREAM 0x08", "08 04 6869", STREAM_EX(0x08, 0, 0, 0), 1},
	{"STREAM 0x09 FIN", "09 04 6869", STREAM_EX(0x09, 0, 0, 0), 1},
	{"STREAM 0x0a LEN", "0a 04 02 6869", STREAM_EX(0x0a, 0, 0, 1), 0},
	{"STREAM 0x0b LEN FIN", "0b 04 02 6869", STREAM_EX(0x0b, 0, 0, 1), 0},
	{"STREAM 0x0c OFF", "0c 04 4064 6869", STREAM_EX(0x0c, 100, 1, 0), 1},
	{"STREAM 0x0d OFF FIN", "0d 04 4064 6869",
	 STREAM_EX(0x0d, 100, 1, 0), 1},
	{"STREAM 0x0e OFF LEN", "0e 04 4064 02 6869",
	 STREAM_EX(0x0e, 100, 1, 1), 0},
	{"STREAM 0x0f OFF LEN FIN", "0f 04 4064 02 6869",
	 STREAM_EX(0x0f, 100, 1, 1), 0},
	{"STREAM with an explicit zero offset", "0e 04 00 02 6869",
	 STREAM_EX(0x0e, 0, 1, 1), 0},
	{"MAX_DATA", "10 80010000",
	 {.type = SHB_QUIC_FT_MAX_DATA, .u.limit = 65536}, 0},
	{"MAX_STREAM_DATA", "11 04 4400",
	 {.type = SHB_QUIC_FT_MAX_STREAM_DATA,
	  .u.stream_limit = {.stream_id = 4, .limit = 1024}}, 0},
	{"MAX_STREAMS bidi", "12 4064",
	 {.type = SHB_QUIC_FT_MAX_STREAMS_BIDI, .u.limit = 100}, 0},
	{"MAX_STREAMS uni", "13 03",
	 {.type = SHB_QUIC_FT_MAX_STREAMS_UNI, .u.limit = 3}, 0},
	{"DATA_BLOCKED", "14 3f",
	 {.type = SHB_QUIC_FT_DATA_BLOCKED, .u.limit = 63}, 0},
	{"STREAM_DATA_BLOCKED", "15 08 10",
	 {.type = SHB_QUIC_FT_STREAM_DATA_BLOCKED,
	  .u.stream_limit = {.stream_id = 8, .limit = 16}}, 0},
	{"STREAMS_BLOCKED bidi", "16 05",
	 {.type = SHB_QUIC_FT_STREAMS_BLOCKED_BIDI, .u.limit = 5}, 0},
	{"STREAMS_BLOCKED uni", "17 06",
	 {.type = SHB_QUIC_FT_STREAMS_BLOCKED_UNI, .u.limit = 6}, 0},
	{"NEW_CONNECTION_ID",
	 "18 01 00 04 a1a2a3a4 000102030405060708090a0b0c0d0e0f",
	 {.type = SHB_QUIC_FT_NEW_CONNECTION_ID,
	  .u.new_cid = {.seq = 1, .retire_prior_to = 0, .cid = d_cid,
			.cid_len = 4, .reset_token = d_srt}}, 0},
	{"RETIRE_CONNECTION_ID", "19 00",
	 {.type = SHB_QUIC_FT_RETIRE_CONNECTION_ID, .u.retire_seq = 0}, 0},
	{"PATH_CHALLENGE", "1a 0102030405060708",
	 {.type = SHB_QUIC_FT_PATH_CHALLENGE,
	  .u.path_data = {1, 2, 3, 4, 5, 6, 7, 8}}, 0},
	{"PATH_RESPONSE", "1b 1112131415161718",
	 {.type = SHB_QUIC_FT_PATH_RESPONSE,
	  .u.path_data = {0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18}}, 0},
	{"CONNECTION_CLOSE transport", "1c 0a 08 03 626164",
	 {.type = SHB_QUIC_FT_CONNECTION_CLOSE,
	  .u.close = {.error_code = 0x0a, .frame_type = 0x08,
		      .reason = d_bad, .reason_len = 3}}, 0},
	{"CONNECTION_CLOSE application", "1d 4100 00",
	 {.type = SHB_QUIC_FT_CONNECTION_CLOSE_APP,
	  .u.close = {.error_code = 0x100}}, 0},
	{"CONNECTION_CLOSE application with reason", "1d 410c 02 6869",
	 {.type = SHB_QUIC_FT_CONNECTION_CLOSE_APP,
	  .u.close = {.error_code = 0x10c, .reason = d_hi,
		      .reason_len = 2}}, 0},
	{"HANDSHAKE_DONE", "1e", {.type = SHB_QUIC_FT_HANDSHAKE_DONE}, 0},
};

#define N_EX (sizeof(ex) / sizeof(ex[0]))

/* Field-by-field comparison, borrowed data compared by content. */
static int frame_eq(const struct shb_quic_frame *w,
		    const struct shb_quic_frame *g)
{
	if (w->type != g->type)
		return 0;
	switch (w->type) {
	case SHB_QUIC_FT_PADDING:
		return w->u.padding == g->u.padding;
	case SHB_QUIC_FT_ACK:
	case SHB_QUIC_FT_ACK_ECN:
		return w->u.ack.largest == g->u.ack.largest &&
		       w->u.ack.delay == g->u.ack.delay &&
		       w->u.ack.range_count == g->u.ack.range_count &&
		       w->u.ack.first_range == g->u.ack.first_range &&
		       w->u.ack.smallest == g->u.ack.smallest &&
		       wt_bytes_eq(w->u.ack.ranges, w->u.ack.ranges_len,
				g->u.ack.ranges, g->u.ack.ranges_len) &&
		       w->u.ack.ect0 == g->u.ack.ect0 &&
		       w->u.ack.ect1 == g->u.ack.ect1 &&
		       w->u.ack.ce == g->u.ack.ce;
	case SHB_QUIC_FT_RESET_STREAM:
		return !memcmp(&w->u.reset_stream, &g->u.reset_stream,
			       sizeof(w->u.reset_stream));
	case SHB_QUIC_FT_STOP_SENDING:
		return !memcmp(&w->u.stop_sending, &g->u.stop_sending,
			       sizeof(w->u.stop_sending));
	case SHB_QUIC_FT_CRYPTO:
		return w->u.crypto.offset == g->u.crypto.offset &&
		       wt_bytes_eq(w->u.crypto.data, w->u.crypto.len,
				g->u.crypto.data, g->u.crypto.len);
	case SHB_QUIC_FT_NEW_TOKEN:
		return wt_bytes_eq(w->u.new_token.token, w->u.new_token.len,
				g->u.new_token.token, g->u.new_token.len);
	case SHB_QUIC_FT_STREAM:
		return w->u.stream.stream_id == g->u.stream.stream_id &&
		       w->u.stream.offset == g->u.stream.offset &&
		       w->u.stream.fin == g->u.stream.fin &&
		       w->u.stream.has_offset == g->u.stream.has_offset &&
		       w->u.stream.has_len == g->u.stream.has_len &&
		       wt_bytes_eq(w->u.stream.data, w->u.stream.len,
				g->u.stream.data, g->u.stream.len);
	case SHB_QUIC_FT_MAX_STREAM_DATA:
	case SHB_QUIC_FT_STREAM_DATA_BLOCKED:
		return w->u.stream_limit.stream_id ==
			       g->u.stream_limit.stream_id &&
		       w->u.stream_limit.limit == g->u.stream_limit.limit;
	case SHB_QUIC_FT_NEW_CONNECTION_ID:
		return w->u.new_cid.seq == g->u.new_cid.seq &&
		       w->u.new_cid.retire_prior_to ==
			       g->u.new_cid.retire_prior_to &&
		       wt_bytes_eq(w->u.new_cid.cid, w->u.new_cid.cid_len,
				g->u.new_cid.cid, g->u.new_cid.cid_len) &&
		       wt_same(w->u.new_cid.reset_token,
			       g->u.new_cid.reset_token, 16);
	case SHB_QUIC_FT_RETIRE_CONNECTION_ID:
		return w->u.retire_seq == g->u.retire_seq;
	case SHB_QUIC_FT_PATH_CHALLENGE:
	case SHB_QUIC_FT_PATH_RESPONSE:
		return wt_same(w->u.path_data, g->u.path_data, 8);
	case SHB_QUIC_FT_CONNECTION_CLOSE:
	case SHB_QUIC_FT_CONNECTION_CLOSE_APP:
		return w->u.close.error_code == g->u.close.error_code &&
		       w->u.close.frame_type == g->u.close.frame_type &&
		       wt_bytes_eq(w->u.close.reason, w->u.close.reason_len,
				g->u.close.reason, g->u.close.reason_len);
	case SHB_QUIC_FT_PING:
	case SHB_QUIC_FT_HANDSHAKE_DONE:
		return 1;
	default: /* MAX_DATA, DATA_BLOCKED, MAX_STREAMS_*, STREAMS_BLOCKED_* */
		return w->u.limit == g->u.limit;
	}
}

static void test_examples_decode(void)
{
	for (size_t i = 0; i < N_EX; i++) {
		size_t len;
		uint8_t *p = wt_hex(ex[i].hex, &len);
		struct shb_quic_frame f;
		int rc = shb_quic_frame_decode(p, len, SHB_QUIC_PT_1RTT, &f);

		CU_ASSERT_EQUAL(rc, SHB_QUIC_OK);
		CU_ASSERT_EQUAL(f.wire_len, len);
		CU_ASSERT_PTR_NULL(f.why);
		if (rc != SHB_QUIC_OK || !frame_eq(&ex[i].f, &f))
			CU_FAIL(ex[i].name);
		free(p);
	}
}

static void test_examples_encode(void)
{
	for (size_t i = 0; i < N_EX; i++) {
		size_t len;
		uint8_t *want = wt_hex(ex[i].hex, &len);
		uint8_t *out = wt_copy(want, len);

		memset(out, 0xee, len);
		CU_ASSERT_EQUAL(shb_quic_frame_len(&ex[i].f), len);
		CU_ASSERT_EQUAL(shb_quic_frame_encode(out, len, &ex[i].f), len);
		if (!wt_same(out, want, len))
			CU_FAIL(ex[i].name);
		/* Any smaller buffer: refused, nothing written past it. */
		for (size_t cap = 0; cap < len; cap++) {
			uint8_t *small = wt_copy(want, cap);

			CU_ASSERT_EQUAL(shb_quic_frame_encode(small, cap,
							      &ex[i].f),
					0);
			free(small);
		}
		free(out);
		free(want);
	}
}

/* Every example cut at every length must give FRAME_ENCODING_ERROR with
 * a reason, never a read past the cut; the few frames whose prefix can
 * be whole (PADDING, STREAM without Length) must then have used exactly
 * the bytes there were. */
static void test_examples_truncated(void)
{
	for (size_t i = 0; i < N_EX; i++) {
		size_t len;
		uint8_t *p = wt_hex(ex[i].hex, &len);

		for (size_t k = 0; k < len; k++) {
			uint8_t *q = wt_copy(p, k);
			struct shb_quic_frame f;
			int rc = shb_quic_frame_decode(q, k, SHB_QUIC_PT_1RTT,
						       &f);

			if (rc == SHB_QUIC_OK) {
				CU_ASSERT(ex[i].prefix_ok);
				CU_ASSERT_EQUAL(f.wire_len, k);
			} else {
				CU_ASSERT_EQUAL(rc, SHB_QUIC_E_FRAME_ENCODING);
				CU_ASSERT_PTR_NOT_NULL(f.why);
			}
			if (!ex[i].prefix_ok && rc == SHB_QUIC_OK)
				CU_FAIL(ex[i].name);
			free(q);
		}
		free(p);
	}
}

/* A frame stops at its own end when more follows. */
static void test_examples_followed(void)
{
	for (size_t i = 0; i < N_EX; i++) {
		size_t len;
		uint8_t *p = wt_hex(ex[i].hex, &len);
		uint8_t *q = malloc(len + 1);
		struct shb_quic_frame f;

		if (!q)
			abort();
		memcpy(q, p, len);
		q[len] = SHB_QUIC_FT_PING;
		CU_ASSERT_EQUAL(shb_quic_frame_decode(q, len + 1,
						      SHB_QUIC_PT_1RTT, &f),
				SHB_QUIC_OK);
		if (ex[i].f.type == SHB_QUIC_FT_STREAM &&
		    !ex[i].f.u.stream.has_len) {
			CU_ASSERT_EQUAL(f.wire_len, len + 1); /* to the end */
		} else {
			CU_ASSERT_EQUAL(f.wire_len, len);
		}
		free(q);
		free(p);
	}
}

/* RFC 9000 Table 3, written as in the table: I H 0 1, "_" = not allowed. */
static const char *const table3[0x1f] = {
	"IH01", "IH01", "IH_1", "IH_1", "__01", "__01", "IH_1", "___1",
	"__01", "__01", "__01", "__01", "__01", "__01", "__01", "__01",
	"__01", "__01", "__01", "__01", "__01", "__01", "__01", "__01",
	"__01", "__01", "__01", "___1", "IH01", "__01", "___1",
};

static const uint32_t t3_ptype[4] = {SHB_QUIC_PT_INITIAL,
				     SHB_QUIC_PT_HANDSHAKE, SHB_QUIC_PT_0RTT,
				     SHB_QUIC_PT_1RTT};

static void test_table3_allowed(void)
{
	for (uint64_t t = 0; t < 0x1f; t++) {
		for (int j = 0; j < 4; j++)
			CU_ASSERT_EQUAL(shb_quic_frame_allowed(t, t3_ptype[j]),
					table3[t][j] != '_');
		CU_ASSERT_FALSE(shb_quic_frame_allowed(t, SHB_QUIC_PT_RETRY));
		CU_ASSERT_FALSE(shb_quic_frame_allowed(
			t, SHB_QUIC_PT_VERSION_NEG));
	}
	CU_ASSERT_FALSE(shb_quic_frame_allowed(0x1f, SHB_QUIC_PT_1RTT));
	/* RFC 9221 Section 4: DATAGRAM in 0-RTT and 1-RTT only. */
	CU_ASSERT_TRUE(shb_quic_frame_allowed(0x30, SHB_QUIC_PT_1RTT));
	CU_ASSERT_TRUE(shb_quic_frame_allowed(0x31, SHB_QUIC_PT_0RTT));
	CU_ASSERT_FALSE(shb_quic_frame_allowed(0x30, SHB_QUIC_PT_INITIAL));
	CU_ASSERT_FALSE(shb_quic_frame_allowed(0x31, SHB_QUIC_PT_HANDSHAKE));
	CU_ASSERT_FALSE(shb_quic_frame_allowed(0x32, SHB_QUIC_PT_1RTT));
}

/* RFC 9221 Section 4: 0x30 runs to the packet's end, 0x31 has a Length;
 * both decode as DATAGRAM whatever the connection announced. */
static void test_datagram_decode(void)
{
	static const uint8_t a[] = {0x31, 0x03, 'a', 'b', 'c', 0x01};
	static const uint8_t b[] = {0x30, 'a', 'b', 'c'};
	static const uint8_t cut[] = {0x31, 0x05, 'a', 'b'};
	struct shb_quic_frame f;

	CU_ASSERT_EQUAL_FATAL(shb_quic_frame_decode(a, sizeof(a), SHB_QUIC_PT_1RTT, &f),
			      SHB_QUIC_OK);
	CU_ASSERT_EQUAL(f.type, SHB_QUIC_FT_DATAGRAM);
	CU_ASSERT_EQUAL(f.wire_len, 5);
	CU_ASSERT_EQUAL(f.u.datagram.len, 3);
	CU_ASSERT_PTR_EQUAL(f.u.datagram.data, a + 2);
	CU_ASSERT_TRUE(shb_quic_frame_ack_eliciting(f.type));
	CU_ASSERT_EQUAL_FATAL(shb_quic_frame_decode(b, sizeof(b), SHB_QUIC_PT_0RTT, &f),
			      SHB_QUIC_OK);
	CU_ASSERT_EQUAL(f.type, SHB_QUIC_FT_DATAGRAM);
	CU_ASSERT_EQUAL(f.wire_len, 4);
	CU_ASSERT_EQUAL(f.u.datagram.len, 3);
	CU_ASSERT_EQUAL(shb_quic_frame_decode(cut, sizeof(cut), SHB_QUIC_PT_1RTT, &f),
			SHB_QUIC_E_FRAME_ENCODING);
	CU_ASSERT_STRING_EQUAL(f.why, "DATAGRAM frame truncated");
	CU_ASSERT_EQUAL(shb_quic_frame_decode(b, sizeof(b), SHB_QUIC_PT_HANDSHAKE, &f),
			SHB_QUIC_E_PROTOCOL);
}

/* The decoder applies Table 3 itself: every example in every packet type
 * either decodes or is a PROTOCOL_VIOLATION. */
static void test_table3_decode(void)
{
	for (size_t i = 0; i < N_EX; i++) {
		size_t len;
		uint8_t *p = wt_hex(ex[i].hex, &len);

		for (int j = 0; j < 4; j++) {
			struct shb_quic_frame f;
			int rc = shb_quic_frame_decode(p, len, t3_ptype[j], &f);

			if (table3[p[0]][j] == '_') {
				CU_ASSERT_EQUAL(rc, SHB_QUIC_E_PROTOCOL);
				CU_ASSERT_PTR_NOT_NULL(f.why);
			} else {
				CU_ASSERT_EQUAL(rc, SHB_QUIC_OK);
			}
		}
		CU_ASSERT_EQUAL(shb_quic_frame_decode(p, len, SHB_QUIC_PT_RETRY,
						      &(struct shb_quic_frame){0}),
				SHB_QUIC_E_PROTOCOL);
		free(p);
	}
}

static void test_ack_eliciting(void)
{
	for (uint64_t t = 0; t < 0x1f; t++) {
		int want = !(t == 0x00 || t == 0x02 || t == 0x03 ||
			     t == 0x1c || t == 0x1d);

		CU_ASSERT_EQUAL(shb_quic_frame_ack_eliciting(t), want);
	}
}

struct bad {
	const char *what, *hex;
	uint32_t ptype;
	int rc;
};

static void run_bad(const struct bad *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len;
		uint8_t *p = wt_hex(c[i].hex, &len);
		struct shb_quic_frame f;
		int rc = shb_quic_frame_decode(p, len, c[i].ptype, &f);

		if (rc != c[i].rc)
			CU_FAIL(c[i].what);
		CU_ASSERT(rc == SHB_QUIC_OK ? f.why == NULL : f.why != NULL);
		free(p);
	}
}

static void test_type_encoding(void)
{
	static const struct bad c[] = {
		{"PING on two bytes", "4001", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_PROTOCOL},
		{"CRYPTO on four bytes", "80000006 00 01 61", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_PROTOCOL},
		{"PADDING on eight bytes", "c000000000000000", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_PROTOCOL},
		{"type 0x1f", "1f", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_FRAME_ENCODING},
		{"type 0x32", "32", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_FRAME_ENCODING},
		{"DATAGRAM in Initial", "30", SHB_QUIC_PT_INITIAL,
		 SHB_QUIC_E_PROTOCOL},
		{"unknown two-byte type", "401f", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_FRAME_ENCODING},
		{"unknown type, unknown packet", "3f", SHB_QUIC_PT_INITIAL,
		 SHB_QUIC_E_FRAME_ENCODING},
		{"type varint cut", "40", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_FRAME_ENCODING},
		{"empty input", "", SHB_QUIC_PT_1RTT, SHB_QUIC_E_FRAME_ENCODING},
		{"application close in Initial", "1d 4100 00",
		 SHB_QUIC_PT_INITIAL, SHB_QUIC_E_PROTOCOL},
		{"application close in Handshake", "1d 4100 00",
		 SHB_QUIC_PT_HANDSHAKE, SHB_QUIC_E_PROTOCOL},
		{"transport close in Initial", "1c 0a 00 00",
		 SHB_QUIC_PT_INITIAL, SHB_QUIC_OK},
		{"STREAM in Handshake", "0a 00 01 61", SHB_QUIC_PT_HANDSHAKE,
		 SHB_QUIC_E_PROTOCOL},
		{"HANDSHAKE_DONE in 0-RTT", "1e", SHB_QUIC_PT_0RTT,
		 SHB_QUIC_E_PROTOCOL},
	};

	run_bad(c, sizeof(c) / sizeof(c[0]));
}

static void test_field_errors(void)
{
	static const struct bad c[] = {
		{"ACK first range below 0", "02 05 00 00 06", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_FRAME_ENCODING},
		{"ACK first range to exactly 0", "02 05 00 00 05",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_OK},
		{"ACK gap below 0", "02 05 00 01 01 03 00", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_FRAME_ENCODING},
		{"ACK range below 0", "02 05 00 01 01 00 03", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_FRAME_ENCODING},
		{"ACK gap after a range ending at 0", "02 05 00 01 05 00 00",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_E_FRAME_ENCODING},
		{"ACK gap after a range ending at 1", "02 05 00 01 04 00 00",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_E_FRAME_ENCODING},
		{"ACK gap after a range ending at 2", "02 05 00 01 03 00 00",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_OK},
		{"ACK range to exactly 0", "02 05 00 01 01 00 02",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_OK},
		{"ACK with 2^62-1 ranges and two bytes",
		 "02 05 00 ffffffffffffffff 00 0000", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_FRAME_ENCODING},
		{"ACK_ECN without counts", "03 05 00 00 00", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_FRAME_ENCODING},
		{"STREAM offset + length above 2^62-1",
		 "0e 00 ffffffffffffffff 01 aa", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_FRAME_ENCODING},
		{"STREAM empty at offset 2^62-1", "0e 00 ffffffffffffffff 00",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_OK},
		{"STREAM to the end past 2^62-1", "0c 00 ffffffffffffffff aa",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_E_FRAME_ENCODING},
		{"STREAM length past the payload", "0a 04 05 6869",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_E_FRAME_ENCODING},
		{"CRYPTO offset + length above 2^62-1",
		 "06 ffffffffffffffff 01 aa", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_FRAME_ENCODING},
		{"CRYPTO length 2^62-1", "06 00 ffffffffffffffff",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_E_FRAME_ENCODING},
		{"empty NEW_TOKEN", "07 00", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_FRAME_ENCODING},
		{"MAX_STREAMS bidi 2^60", "12 d000000000000000",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_OK},
		{"MAX_STREAMS bidi 2^60+1", "12 d000000000000001",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_E_FRAME_ENCODING},
		{"MAX_STREAMS uni 2^60+1", "13 d000000000000001",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_E_FRAME_ENCODING},
		{"STREAMS_BLOCKED bidi 2^60+1", "16 d000000000000001",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_E_FRAME_ENCODING},
		{"STREAMS_BLOCKED uni 2^60+1", "17 ffffffffffffffff",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_E_FRAME_ENCODING},
		{"NEW_CONNECTION_ID of length 0",
		 "18 01 00 00 000102030405060708090a0b0c0d0e0f",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_E_FRAME_ENCODING},
		{"NEW_CONNECTION_ID of length 21",
		 "18 01 00 15 000000000000000000000000000000000000000000"
		 "000102030405060708090a0b0c0d0e0f",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_E_FRAME_ENCODING},
		{"NEW_CONNECTION_ID of length 20",
		 "18 01 00 14 0000000000000000000000000000000000000000"
		 "000102030405060708090a0b0c0d0e0f",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_OK},
		{"NEW_CONNECTION_ID retiring beyond itself",
		 "18 01 02 04 a1a2a3a4 000102030405060708090a0b0c0d0e0f",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_E_FRAME_ENCODING},
		{"NEW_CONNECTION_ID retiring up to itself",
		 "18 02 02 04 a1a2a3a4 000102030405060708090a0b0c0d0e0f",
		 SHB_QUIC_PT_1RTT, SHB_QUIC_OK},
		{"CONNECTION_CLOSE reason past the payload",
		 "1c 0a 08 05 626164", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_FRAME_ENCODING},
		{"CONNECTION_CLOSE reason length 2^62-1",
		 "1d 00 ffffffffffffffff", SHB_QUIC_PT_1RTT,
		 SHB_QUIC_E_FRAME_ENCODING},
	};

	run_bad(c, sizeof(c) / sizeof(c[0]));
}

/* All examples back to back in one 1-RTT payload, walked like a
 * receiver does (the STREAM frames without Length go last, one only). */
static void test_payload_walk(void)
{
	uint8_t buf[1024];
	size_t n = 0, count = 0, want = 0, off = 0;
	size_t last = 0;

	for (size_t i = 0; i < N_EX; i++) {
		int open_ended = ex[i].f.type == SHB_QUIC_FT_STREAM &&
				 !ex[i].f.u.stream.has_len;

		if (open_ended || ex[i].f.type == SHB_QUIC_FT_PADDING) {
			last = open_ended ? i : last;
			continue;
		}
		n += shb_quic_frame_encode(buf + n, sizeof(buf) - n, &ex[i].f);
		want++;
	}
	n += shb_quic_padding_encode(buf + n, sizeof(buf) - n, 40);
	want++;
	n += shb_quic_frame_encode(buf + n, sizeof(buf) - n, &ex[last].f);
	want++;
	{
		uint8_t *p = wt_copy(buf, n);

		while (off < n) {
			struct shb_quic_frame f;

			CU_ASSERT_EQUAL_FATAL(
				shb_quic_frame_decode(p + off, n - off,
						      SHB_QUIC_PT_1RTT, &f),
				SHB_QUIC_OK);
			CU_ASSERT(f.wire_len > 0);
			off += f.wire_len;
			count++;
		}
		free(p);
	}
	CU_ASSERT_EQUAL(off, n);
	CU_ASSERT_EQUAL(count, want);
}

static void test_generic_encode_errors(void)
{
	uint8_t out[64];
	struct shb_quic_frame f;

	f = (struct shb_quic_frame){.type = SHB_QUIC_FT_STREAM,
				    .u.stream = {.offset = 5, .data = d_hi,
						 .len = 2}};
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 0); /* offset, no OFF bit */
	f.u.stream.has_offset = 1;
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 5);
	f.u.stream.data = NULL;
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 0);
	f = (struct shb_quic_frame){.type = SHB_QUIC_FT_STREAM,
				    .u.stream = {.offset = SHB_QUIC_MAX_STREAM_OFFSET,
						 .has_offset = 1, .data = d_hi,
						 .len = 1}};
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 0);
	f = (struct shb_quic_frame){.type = SHB_QUIC_FT_PADDING};
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 0);
	f = (struct shb_quic_frame){.type = SHB_QUIC_FT_NEW_TOKEN};
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 0);
	f = (struct shb_quic_frame){.type = SHB_QUIC_FT_MAX_STREAMS_UNI,
				    .u.limit = SHB_QUIC_MAX_STREAMS + 1};
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 0);
	f.u.limit = SHB_QUIC_MAX_STREAMS;
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 9);
	f = (struct shb_quic_frame){.type = SHB_QUIC_FT_MAX_DATA,
				    .u.limit = SHB_QUIC_VARINT_MAX + 1};
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 0);
	f.u.limit = SHB_QUIC_VARINT_MAX;
	CU_ASSERT_EQUAL(shb_quic_frame_encode(out, sizeof(out), &f), 9);
	CU_ASSERT(wt_same(out, (const uint8_t[]){0x10, 0xff, 0xff, 0xff, 0xff,
						 0xff, 0xff, 0xff, 0xff},
			  9));
	f = (struct shb_quic_frame){.type = 0x1f};
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 0);
	f = (struct shb_quic_frame){.type = 0x40};
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 0);
	f = ex[26].f; /* NEW_CONNECTION_ID */
	CU_ASSERT_EQUAL_FATAL(f.type, SHB_QUIC_FT_NEW_CONNECTION_ID);
	f.u.new_cid.cid_len = 0;
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 0);
	f.u.new_cid.cid_len = 21;
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 0);
	f = ex[26].f;
	f.u.new_cid.retire_prior_to = 2;
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 0);
	/* An ACK whose raw ranges do not match its count. */
	f = ex[2].f;
	f.u.ack.range_count = 2;
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 0);
	f = ex[2].f;
	f.u.ack.range_count = 0;
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 0);
	f = ex[2].f;
	f.u.ack.first_range = 11;
	CU_ASSERT_EQUAL(shb_quic_frame_len(&f), 0);
	CU_ASSERT_EQUAL(shb_quic_frame_encode(NULL, 64, &ex[1].f), 0);
	CU_ASSERT_EQUAL(shb_quic_padding_encode(out, 3, 4), 0);
	CU_ASSERT_EQUAL(shb_quic_padding_encode(out, 4, 4), 4);
}

CU_TestInfo shb_wire_frame_tests[] = {
	{"every frame type decodes to its fields", test_examples_decode},
	{"every frame type encodes to its bytes", test_examples_encode},
	{"every frame type cut at every length", test_examples_truncated},
	{"every frame type followed by another", test_examples_followed},
	{"RFC 9000 Table 3 packet types", test_table3_allowed},
	{"DATAGRAM frames (RFC 9221)", test_datagram_decode},
	{"decoder enforces Table 3", test_table3_decode},
	{"ack-eliciting frame types", test_ack_eliciting},
	{"frame type encodings", test_type_encoding},
	{"frame field range errors", test_field_errors},
	{"a payload of many frames", test_payload_walk},
	{"generic encoder refusals", test_generic_encode_errors},
	CU_TEST_INFO_NULL,
};
