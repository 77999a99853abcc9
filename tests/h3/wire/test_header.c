/* Packet headers: the RFC 9001 Appendix A packets parsed field by field,
 * headers built byte-exact, Retry and Version Negotiation, a coalesced
 * datagram walked and cut at every length, and malformed headers. */
#include <stdlib.h>
#include <string.h>

#include "quic_frame.h"
#include "quic_header.h"
#include "quic_pn.h"
#include "quic_wire_err.h"
#include "wire_tests.h"
#include "wire_vectors.h"

static const uint8_t a1_dcid[8] = {0x83, 0x94, 0xc8, 0xf0,
				   0x3e, 0x51, 0x57, 0x08};
static const uint8_t a3_scid[8] = {0xf0, 0x67, 0xa5, 0x50,
				   0x2a, 0x42, 0x62, 0xb5};

/* The protected client Initial: only what protection leaves readable. */
static void test_a2_protected(void)
{
	size_t len;
	uint8_t *p = wt_hex(wv_a2_packet, &len);
	struct shb_quic_hdr h;

	CU_ASSERT_EQUAL_FATAL(len, 1200);
	CU_ASSERT_EQUAL_FATAL(shb_quic_hdr_parse(p, len, 8, &h), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(h.type, SHB_QUIC_PT_INITIAL);
	CU_ASSERT_EQUAL(h.version, SHB_QUIC_VERSION_1);
	CU_ASSERT_EQUAL(h.first, 0xc0);
	CU_ASSERT_EQUAL(h.dcid_len, 8);
	CU_ASSERT_PTR_EQUAL(h.dcid, p + 6);
	CU_ASSERT(wt_same(h.dcid, a1_dcid, 8));
	CU_ASSERT_EQUAL(h.scid_len, 0);
	CU_ASSERT_EQUAL(h.token_len, 0);
	CU_ASSERT_PTR_NULL(h.token);
	CU_ASSERT_EQUAL(h.pn_offset, 18);
	CU_ASSERT_EQUAL(h.packet_len, 1200);
	CU_ASSERT_PTR_NULL(h.retry_tag);
	CU_ASSERT_EQUAL(h.version_count, 0);
	free(p);
}

/* A.2 without protection: header, the CRYPTO frame, PADDING to 1162
 * payload bytes, and a stand-in tag. */
static uint8_t *a2_plain(size_t *len)
{
	size_t hl, cl;
	uint8_t *hdr = wt_hex(wv_a2_unprotected_header, &hl);
	uint8_t *cf = wt_hex(wv_a2_crypto_frame, &cl);
	uint8_t *p = calloc(1, 1200);

	if (!p)
		abort();
	memcpy(p, hdr, hl);
	memcpy(p + hl, cf, cl);
	memset(p + 1200 - 16, 0xa5, 16);
	free(hdr);
	free(cf);
	*len = 1200;
	return p;
}

static void test_a2_unprotected(void)
{
	size_t len, cl;
	uint8_t *p = a2_plain(&len);
	uint8_t *cf = wt_hex(wv_a2_crypto_frame, &cl);
	struct shb_quic_hdr h;
	struct shb_quic_frame f;
	unsigned pn_len;
	size_t off;

	CU_ASSERT_EQUAL_FATAL(shb_quic_hdr_parse(p, len, 8, &h), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(h.first, 0xc3);
	CU_ASSERT_EQUAL(shb_quic_hdr_reserved_ok(h.first), SHB_QUIC_OK);
	pn_len = shb_quic_hdr_pn_len(h.first);
	CU_ASSERT_EQUAL(pn_len, 4);
	CU_ASSERT_EQUAL(shb_quic_pn_decode(SHB_QUIC_PN_NONE,
					   shb_quic_pn_read(p + h.pn_offset,
							    pn_len),
					   pn_len),
			2);
	/* Payload: the frames between the packet number and the tag. */
	off = h.pn_offset + pn_len;
	CU_ASSERT_EQUAL_FATAL(shb_quic_frame_decode(p + off, 1162, h.type, &f),
			      SHB_QUIC_OK);
	CU_ASSERT_EQUAL(f.type, SHB_QUIC_FT_CRYPTO);
	CU_ASSERT_EQUAL(f.wire_len, 245);
	CU_ASSERT_EQUAL(f.u.crypto.offset, 0);
	CU_ASSERT_EQUAL(f.u.crypto.len, 241);
	CU_ASSERT_PTR_EQUAL(f.u.crypto.data, p + off + 4);
	CU_ASSERT(wt_same(f.u.crypto.data, cf + 4, 241));
	CU_ASSERT_EQUAL_FATAL(shb_quic_frame_decode(p + off + 245, 1162 - 245,
						    h.type, &f),
			      SHB_QUIC_OK);
	CU_ASSERT_EQUAL(f.type, SHB_QUIC_FT_PADDING);
	CU_ASSERT_EQUAL(f.u.padding, 917);
	CU_ASSERT_EQUAL(f.wire_len, 917);
	CU_ASSERT_FALSE(shb_quic_frame_ack_eliciting(f.type));
	free(p);
	free(cf);
}

static void test_a3(void)
{
	size_t len, hl, fl;
	uint8_t *p = wt_hex(wv_a3_packet, &len);
	uint8_t *hdr = wt_hex(wv_a3_unprotected_header, &hl);
	uint8_t *fr = wt_hex(wv_a3_frames, &fl);
	uint8_t plain[135];
	struct shb_quic_hdr h;
	struct shb_quic_frame f;
	struct shb_quic_ack_iter it;
	struct shb_quic_ack_range r;

	CU_ASSERT_EQUAL_FATAL(len, 135);
	CU_ASSERT_EQUAL_FATAL(shb_quic_hdr_parse(p, len, 8, &h), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(h.type, SHB_QUIC_PT_INITIAL);
	CU_ASSERT_EQUAL(h.first, 0xcf);
	CU_ASSERT_EQUAL(h.dcid_len, 0);
	CU_ASSERT_EQUAL(h.scid_len, 8);
	CU_ASSERT(wt_same(h.scid, a3_scid, 8));
	CU_ASSERT_EQUAL(h.token_len, 0);
	CU_ASSERT_EQUAL(h.pn_offset, 18);
	CU_ASSERT_EQUAL(h.packet_len, 135);

	CU_ASSERT_EQUAL_FATAL(hl + fl + 16, 135);
	memcpy(plain, hdr, hl);
	memcpy(plain + hl, fr, fl);
	memset(plain + hl + fl, 0, 16);
	CU_ASSERT_EQUAL_FATAL(shb_quic_hdr_parse(plain, 135, 8, &h),
			      SHB_QUIC_OK);
	CU_ASSERT_EQUAL(shb_quic_hdr_pn_len(h.first), 2);
	CU_ASSERT_EQUAL(shb_quic_pn_read(plain + 18, 2), 1);
	CU_ASSERT_EQUAL_FATAL(shb_quic_frame_decode(plain + 20, fl, h.type, &f),
			      SHB_QUIC_OK);
	CU_ASSERT_EQUAL(f.type, SHB_QUIC_FT_ACK);
	CU_ASSERT_EQUAL(f.wire_len, 5);
	CU_ASSERT_EQUAL(f.u.ack.largest, 0);
	CU_ASSERT_EQUAL(f.u.ack.delay, 0);
	CU_ASSERT_EQUAL(f.u.ack.range_count, 0);
	shb_quic_ack_iter_init(&it, &f.u.ack);
	CU_ASSERT_EQUAL(shb_quic_ack_iter_next(&it, &r), 1);
	CU_ASSERT_EQUAL(r.lo, 0);
	CU_ASSERT_EQUAL(r.hi, 0);
	CU_ASSERT_EQUAL(shb_quic_ack_iter_next(&it, &r), 0);
	CU_ASSERT_EQUAL_FATAL(shb_quic_frame_decode(plain + 25, fl - 5, h.type,
						    &f),
			      SHB_QUIC_OK);
	CU_ASSERT_EQUAL(f.type, SHB_QUIC_FT_CRYPTO);
	CU_ASSERT_EQUAL(f.u.crypto.offset, 0);
	CU_ASSERT_EQUAL(f.u.crypto.len, 90);
	CU_ASSERT_EQUAL(f.wire_len, fl - 5);
	free(p);
	free(hdr);
	free(fr);
}

static void test_a4_retry(void)
{
	size_t len;
	uint8_t *p = wt_hex(wv_a4_retry_packet, &len);
	struct shb_quic_hdr h;

	CU_ASSERT_EQUAL_FATAL(shb_quic_hdr_parse(p, len, 8, &h), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(h.type, SHB_QUIC_PT_RETRY);
	CU_ASSERT_EQUAL(h.version, 1);
	CU_ASSERT_EQUAL(h.dcid_len, 0);
	CU_ASSERT_EQUAL(h.scid_len, 8);
	CU_ASSERT(wt_same(h.scid, a3_scid, 8));
	CU_ASSERT_EQUAL(h.token_len, 5);
	CU_ASSERT(wt_same(h.token, (const uint8_t *)"token", 5));
	CU_ASSERT_PTR_EQUAL(h.retry_tag, p + len - 16);
	CU_ASSERT_EQUAL(h.packet_len, len);
	CU_ASSERT_EQUAL(h.pn_offset, 0);
	/* Every prefix: a Retry takes the rest of the datagram, so any
	 * prefix holding the header and a tag parses, with a shorter token. */
	for (size_t k = 0; k < len; k++) {
		uint8_t *q = wt_copy(p, k);
		int rc = shb_quic_hdr_parse(q, k, 8, &h);

		if (k >= 31) {
			CU_ASSERT_EQUAL(rc, SHB_QUIC_OK);
			CU_ASSERT_EQUAL(h.token_len, k - 31);
			CU_ASSERT_EQUAL(h.packet_len, k);
		} else {
			CU_ASSERT_EQUAL(rc, SHB_QUIC_E_DROP);
		}
		free(q);
	}
	free(p);
}

static void test_a5_short(void)
{
	size_t len;
	uint8_t *p = wt_hex(wv_a5_packet, &len);
	struct shb_quic_hdr h;

	CU_ASSERT_EQUAL_FATAL(shb_quic_hdr_parse(p, len, 0, &h), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(h.type, SHB_QUIC_PT_1RTT);
	CU_ASSERT_EQUAL(h.version, 0);
	CU_ASSERT_EQUAL(h.dcid_len, 0);
	CU_ASSERT_PTR_NULL(h.scid);
	CU_ASSERT_EQUAL(h.pn_offset, 1);
	CU_ASSERT_EQUAL(h.packet_len, 21);
	/* The same bytes read with an 8-byte DCID leave too few bytes for
	 * the header-protection sample. */
	CU_ASSERT_EQUAL(shb_quic_hdr_parse(p, len, 8, &h), SHB_QUIC_E_DROP);
	CU_ASSERT_EQUAL(shb_quic_hdr_parse(p, len, 21, &h), SHB_QUIC_E_DROP);
	for (size_t k = 0; k < len; k++) {
		uint8_t *q = wt_copy(p, k);

		CU_ASSERT_EQUAL(shb_quic_hdr_parse(q, k, 0, &h),
				SHB_QUIC_E_DROP);
		free(q);
	}
	free(p);
}

/* Long headers whose Length runs past the datagram cut anywhere: every
 * prefix of the A.2 and A.3 packets is dropped. */
static void test_long_truncated(void)
{
	const char *v[] = {wv_a2_packet, wv_a3_packet};

	for (size_t i = 0; i < 2; i++) {
		size_t len;
		uint8_t *p = wt_hex(v[i], &len);

		for (size_t k = 0; k < len; k++) {
			uint8_t *q = wt_copy(p, k);
			struct shb_quic_hdr h;

			CU_ASSERT_EQUAL(shb_quic_hdr_parse(q, k, 8, &h),
					SHB_QUIC_E_DROP);
			free(q);
		}
		free(p);
	}
}

static void check_build(const struct shb_quic_hdr_spec *s, size_t pkt_len,
			const char *want_hex)
{
	size_t wl;
	uint8_t *want = wt_hex(want_hex, &wl);
	uint8_t out[64];
	struct shb_quic_hdr_layout l;

	CU_ASSERT_EQUAL_FATAL(shb_quic_hdr_build(out, sizeof(out), s, &l),
			      SHB_QUIC_OK);
	CU_ASSERT_EQUAL(l.len, wl);
	CU_ASSERT_EQUAL(l.pn_len, s->pn_len);
	CU_ASSERT_EQUAL(l.pn_offset, wl - s->pn_len);
	if (s->type != SHB_QUIC_PT_1RTT) {
		CU_ASSERT_EQUAL(l.length_size, s->length_size);
		CU_ASSERT_EQUAL(l.length_offset, l.pn_offset - s->length_size);
		CU_ASSERT_EQUAL(shb_quic_hdr_set_length(out, &l, pkt_len),
				SHB_QUIC_OK);
	} else {
		CU_ASSERT_EQUAL(l.length_size, 0);
		CU_ASSERT_EQUAL(shb_quic_hdr_set_length(out, &l, pkt_len),
				SHB_QUIC_E_INVALID);
	}
	CU_ASSERT(wt_same(out, want, wl));
	/* Every buffer one byte short or more is refused. */
	for (size_t cap = 0; cap < wl; cap++) {
		uint8_t *q = wt_copy(out, cap);

		CU_ASSERT_EQUAL(shb_quic_hdr_build(q ? q : out, cap, s, &l),
				SHB_QUIC_E_SPACE);
		free(q);
	}
	free(want);
}

static void test_build_rfc(void)
{
	struct shb_quic_hdr_spec a2 = {
		.type = SHB_QUIC_PT_INITIAL, .dcid = a1_dcid, .dcid_len = 8,
		.pn = 2, .pn_len = 4, .length_size = 2,
	};
	struct shb_quic_hdr_spec a3 = {
		.type = SHB_QUIC_PT_INITIAL, .scid = a3_scid, .scid_len = 8,
		.pn = 1, .pn_len = 2, .length_size = 2,
	};
	struct shb_quic_hdr_spec a5 = {
		.type = SHB_QUIC_PT_1RTT, .pn = 654360564, .pn_len = 3,
	};

	check_build(&a2, 1200, wv_a2_unprotected_header);
	check_build(&a3, 135, wv_a3_unprotected_header);
	check_build(&a5, 21, wv_a5_unprotected_header);
}

static void test_build_variants(void)
{
	static const uint8_t d[4] = {1, 2, 3, 4}, s[2] = {9, 8};
	struct shb_quic_hdr_spec hs = {
		.type = SHB_QUIC_PT_HANDSHAKE, .dcid = d, .dcid_len = 4,
		.scid = s, .scid_len = 2, .pn = 0x1234, .pn_len = 2,
		.length_size = 4,
	};
	struct shb_quic_hdr_spec in = {
		.type = SHB_QUIC_PT_INITIAL, .dcid = d, .dcid_len = 4,
		.token = (const uint8_t *)"tok", .token_len = 3, .pn = 7,
		.pn_len = 1, .length_size = 2,
	};
	struct shb_quic_hdr_spec zr = {
		.type = SHB_QUIC_PT_0RTT, .dcid = d, .dcid_len = 4, .pn = 3,
		.pn_len = 1, .length_size = 2,
	};
	struct shb_quic_hdr_spec sh = {
		.type = SHB_QUIC_PT_1RTT, .dcid = d, .dcid_len = 4, .pn = 0xab,
		.pn_len = 1, .key_phase = 1,
	};

	/* Handshake with a 4-byte Length of 0x0100 - 0x11 = 0xef. */
	check_build(&hs, 0x100, "e1 00000001 04 01020304 02 0908 800000ef 1234");
	check_build(&in, 0x40, "c0 00000001 04 01020304 00 03 746f6b 402f 07");
	check_build(&zr, 0x30, "d0 00000001 04 01020304 00 4023 03");
	check_build(&sh, 0, "44 01020304 ab");
}

static void test_build_errors(void)
{
	static const uint8_t d[21] = {0};
	uint8_t out[128];
	struct shb_quic_hdr_layout l;
	struct shb_quic_hdr_spec ok = {
		.type = SHB_QUIC_PT_HANDSHAKE, .dcid = d, .dcid_len = 8,
		.pn = 1, .pn_len = 1, .length_size = 2,
	};
	struct shb_quic_hdr_spec s;

	s = ok, s.pn_len = 0;
	CU_ASSERT_EQUAL(shb_quic_hdr_build(out, 128, &s, &l), SHB_QUIC_E_INVALID);
	s = ok, s.pn_len = 5;
	CU_ASSERT_EQUAL(shb_quic_hdr_build(out, 128, &s, &l), SHB_QUIC_E_INVALID);
	s = ok, s.length_size = 1;
	CU_ASSERT_EQUAL(shb_quic_hdr_build(out, 128, &s, &l), SHB_QUIC_E_INVALID);
	s = ok, s.length_size = 8;
	CU_ASSERT_EQUAL(shb_quic_hdr_build(out, 128, &s, &l), SHB_QUIC_E_INVALID);
	s = ok, s.dcid_len = 21;
	CU_ASSERT_EQUAL(shb_quic_hdr_build(out, 128, &s, &l), SHB_QUIC_E_INVALID);
	s = ok, s.scid = d, s.scid_len = 21;
	CU_ASSERT_EQUAL(shb_quic_hdr_build(out, 128, &s, &l), SHB_QUIC_E_INVALID);
	s = ok, s.token = d, s.token_len = 2; /* a token outside Initial */
	CU_ASSERT_EQUAL(shb_quic_hdr_build(out, 128, &s, &l), SHB_QUIC_E_INVALID);
	s = ok, s.type = SHB_QUIC_PT_RETRY;
	CU_ASSERT_EQUAL(shb_quic_hdr_build(out, 128, &s, &l), SHB_QUIC_E_INVALID);
	s = ok, s.type = SHB_QUIC_PT_1RTT, s.key_phase = 2;
	CU_ASSERT_EQUAL(shb_quic_hdr_build(out, 128, &s, &l), SHB_QUIC_E_INVALID);
	s = ok, s.pn = SHB_QUIC_PN_MAX + 1;
	CU_ASSERT_EQUAL(shb_quic_hdr_build(out, 128, &s, &l), SHB_QUIC_E_INVALID);

	/* Length limits: 2 bytes hold 16383, 4 bytes far more. */
	CU_ASSERT_EQUAL_FATAL(shb_quic_hdr_build(out, 128, &ok, &l), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(shb_quic_hdr_set_length(out, &l, l.pn_offset + 16383),
			SHB_QUIC_OK);
	CU_ASSERT_EQUAL(shb_quic_hdr_set_length(out, &l, l.pn_offset + 16384),
			SHB_QUIC_E_INVALID);
	CU_ASSERT_EQUAL(shb_quic_hdr_set_length(out, &l, l.pn_offset),
			SHB_QUIC_E_INVALID);
	CU_ASSERT_EQUAL(shb_quic_hdr_set_length(out, &l, l.pn_offset + 1),
			SHB_QUIC_OK);
	s = ok, s.length_size = 4;
	CU_ASSERT_EQUAL_FATAL(shb_quic_hdr_build(out, 128, &s, &l), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(shb_quic_hdr_set_length(out, &l, l.pn_offset + 16384),
			SHB_QUIC_OK);
	CU_ASSERT(wt_same(out + l.length_offset,
			  (const uint8_t[]){0x80, 0x00, 0x40, 0x00}, 4));
	CU_ASSERT_EQUAL(shb_quic_hp_min_payload(1), 3);
	CU_ASSERT_EQUAL(shb_quic_hp_min_payload(2), 2);
	CU_ASSERT_EQUAL(shb_quic_hp_min_payload(4), 0);
}

static void test_version_negotiation(void)
{
	/* Unused bits of the first byte are arbitrary, even the fixed bit. */
	static const char vn[] = "80 00000000 08 0102030405060708 "
				 "04 0a0b0c0d ff00001d 1a2a3a4a";
	size_t len;
	uint8_t *p = wt_hex(vn, &len);
	struct shb_quic_hdr h;

	CU_ASSERT_EQUAL_FATAL(shb_quic_hdr_parse(p, len, 8, &h), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(h.type, SHB_QUIC_PT_VERSION_NEG);
	CU_ASSERT_EQUAL(h.version, 0);
	CU_ASSERT_EQUAL(h.dcid_len, 8);
	CU_ASSERT_EQUAL(h.dcid[7], 0x08);
	CU_ASSERT_EQUAL(h.scid_len, 4);
	CU_ASSERT_EQUAL(h.scid[0], 0x0a);
	CU_ASSERT_EQUAL(h.version_count, 2);
	CU_ASSERT_EQUAL(shb_quic_vn_version(&h, 0), 0xff00001d);
	CU_ASSERT_EQUAL(shb_quic_vn_version(&h, 1), 0x1a2a3a4a);
	CU_ASSERT(shb_quic_vn_lists(&h, 0x1a2a3a4a));
	CU_ASSERT_FALSE(shb_quic_vn_lists(&h, SHB_QUIC_VERSION_1));
	CU_ASSERT_EQUAL(h.packet_len, len);
	/* Cut anywhere: only whole version lists parse. */
	for (size_t k = 0; k < len; k++) {
		uint8_t *q = wt_copy(p, k);
		int rc = shb_quic_hdr_parse(q, k, 8, &h);

		if (k > 19 && (k - 19) % 4 == 0) {
			CU_ASSERT_EQUAL(rc, SHB_QUIC_OK);
			CU_ASSERT_EQUAL(h.version_count, (k - 19) / 4);
		} else {
			CU_ASSERT_EQUAL(rc, SHB_QUIC_E_DROP);
		}
		free(q);
	}
	free(p);
}

/* Hand-made malformed headers: each must give exactly this result. */
static void test_bad_headers(void)
{
	static const struct {
		const char *what, *hex;
		size_t short_dcid;
		int rc;
	} c[] = {
		{"Initial with fixed bit clear",
		 "80 00000001 00 00 00 14 0000000000000000000000000000000000000000",
		 8, SHB_QUIC_E_DROP},
		{"DCID of 21 bytes",
		 "c0 00000001 15 000000000000000000000000000000000000000000 00 00 "
		 "14 0000000000000000000000000000000000000000",
		 8, SHB_QUIC_E_DROP},
		{"SCID of 21 bytes",
		 "c0 00000001 00 15 000000000000000000000000000000000000000000 00 "
		 "14 0000000000000000000000000000000000000000",
		 8, SHB_QUIC_E_DROP},
		{"Length too short to sample",
		 "e0 00000001 00 00 13 00000000000000000000000000000000000000",
		 8, SHB_QUIC_E_DROP},
		{"Length of exactly the sample",
		 "e0 00000001 00 00 14 0000000000000000000000000000000000000000",
		 8, SHB_QUIC_OK},
		{"Length one past the datagram",
		 "e0 00000001 00 00 15 0000000000000000000000000000000000000000",
		 8, SHB_QUIC_E_DROP},
		{"token length past the datagram",
		 "c0 00000001 00 00 50 00", 8, SHB_QUIC_E_DROP},
		{"Length varint cut",
		 "d0 00000001 00 00 80 00", 8, SHB_QUIC_E_DROP},
		{"unknown version",
		 "c0 ff00001d 01 aa 01 bb 00 14 0000000000000000000000000000000000000000",
		 8, SHB_QUIC_E_VERSION},
		{"unknown version with long CIDs",
		 "c0 ff00001d ff 00", 8, SHB_QUIC_E_VERSION},
		{"version cut", "c0 0000", 8, SHB_QUIC_E_DROP},
		{"Retry with fixed bit clear",
		 "b0 00000001 00 00 00000000000000000000000000000000",
		 8, SHB_QUIC_E_DROP},
		{"Version Negotiation with no versions",
		 "80 00000000 00 00", 8, SHB_QUIC_E_DROP},
		{"Version Negotiation with a partial version",
		 "80 00000000 00 00 00000001 0000", 8, SHB_QUIC_E_DROP},
		{"short header with fixed bit clear",
		 "00 0000000000000000 0000000000000000000000000000000000000000",
		 8, SHB_QUIC_E_DROP},
		{"short header exactly long enough",
		 "40 0000000000000000 0000000000000000000000000000000000000000",
		 8, SHB_QUIC_OK},
		{"short header DCID longer than 20",
		 "40 0000000000000000 0000000000000000000000000000000000000000",
		 21, SHB_QUIC_E_DROP},
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t len;
		uint8_t *p = wt_hex(c[i].hex, &len);
		struct shb_quic_hdr h;
		int rc = shb_quic_hdr_parse(p, len, c[i].short_dcid, &h);

		if (rc != c[i].rc)
			CU_FAIL(c[i].what);
		if (rc == SHB_QUIC_OK)
			CU_ASSERT(h.packet_len <= len);
		free(p);
	}
	{
		struct shb_quic_hdr h;
		size_t len;
		uint8_t *p = wt_hex(c[8].hex, &len);

		/* What an unknown version still exposes. */
		CU_ASSERT_EQUAL(shb_quic_hdr_parse(p, len, 8, &h),
				SHB_QUIC_E_VERSION);
		CU_ASSERT_EQUAL(h.version, 0xff00001d);
		CU_ASSERT_EQUAL(h.dcid_len, 1);
		CU_ASSERT_EQUAL(h.dcid[0], 0xaa);
		CU_ASSERT_EQUAL(h.scid[0], 0xbb);
		free(p);
	}
	CU_ASSERT_EQUAL(shb_quic_hdr_parse(NULL, 0, 8, &(struct shb_quic_hdr){0}),
			SHB_QUIC_E_DROP);
}

static void test_first_byte_bits(void)
{
	CU_ASSERT_EQUAL(shb_quic_hdr_reserved_ok(0xc3), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(shb_quic_hdr_reserved_ok(0xc4), SHB_QUIC_E_PROTOCOL);
	CU_ASSERT_EQUAL(shb_quic_hdr_reserved_ok(0xc8), SHB_QUIC_E_PROTOCOL);
	CU_ASSERT_EQUAL(shb_quic_hdr_reserved_ok(0x47), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(shb_quic_hdr_reserved_ok(0x48), SHB_QUIC_E_PROTOCOL);
	CU_ASSERT_EQUAL(shb_quic_hdr_reserved_ok(0x50), SHB_QUIC_E_PROTOCOL);
	CU_ASSERT_EQUAL(shb_quic_hdr_key_phase(0x44), 1);
	CU_ASSERT_EQUAL(shb_quic_hdr_key_phase(0x43), 0);
	CU_ASSERT_EQUAL(shb_quic_hdr_pn_len(0xc0), 1);
	CU_ASSERT_EQUAL(shb_quic_hdr_pn_len(0x42), 3);
}

/* ---- a coalesced datagram: Initial + Handshake + 1-RTT ------------- */

struct built {
	size_t start, len;	/* where the packet sits in the datagram */
	uint32_t type;
	size_t pn_offset;
};

static const uint8_t co_dcid[8] = {0x11, 0x12, 0x13, 0x14,
				   0x15, 0x16, 0x17, 0x18};
static const uint8_t co_scid[8] = {0x21, 0x22, 0x23, 0x24,
				   0x25, 0x26, 0x27, 0x28};

/* Builds one packet at out: header, a CRYPTO or STREAM frame, PADDING up
 * to the sample minimum, a stand-in tag; patches Length. */
static size_t build_packet(uint8_t *out, size_t cap,
			   const struct shb_quic_hdr_spec *s, const char *data,
			   struct built *b)
{
	struct shb_quic_hdr_layout l;
	size_t n, taken, dl = strlen(data);

	CU_ASSERT_EQUAL_FATAL(shb_quic_hdr_build(out, cap, s, &l), SHB_QUIC_OK);
	n = l.len;
	if (s->type == SHB_QUIC_PT_1RTT)
		n += shb_quic_stream_frame_encode(out + n, cap - n, 0, 0,
						  (const uint8_t *)data, dl, 1,
						  SHB_QUIC_STREAM_MODE_LEN,
						  &taken);
	else
		n += shb_quic_crypto_frame_encode(out + n, cap - n, 0,
						  (const uint8_t *)data, dl,
						  &taken);
	CU_ASSERT_EQUAL(taken, dl);
	n += shb_quic_padding_encode(out + n, cap - n, 8);
	memset(out + n, 0x5a, 16);
	n += 16;
	if (s->type != SHB_QUIC_PT_1RTT)
		CU_ASSERT_EQUAL(shb_quic_hdr_set_length(out, &l, n),
				SHB_QUIC_OK);
	b->len = n;
	b->type = s->type;
	b->pn_offset = l.pn_offset;
	return n;
}

static size_t build_coalesced(uint8_t *d, size_t cap, struct built b[3])
{
	struct shb_quic_hdr_spec in = {
		.type = SHB_QUIC_PT_INITIAL, .dcid = co_dcid, .dcid_len = 8,
		.scid = co_scid, .scid_len = 8,
		.token = (const uint8_t *)"retry-token", .token_len = 11,
		.pn = 0, .pn_len = 1, .length_size = 2,
	};
	struct shb_quic_hdr_spec hs = {
		.type = SHB_QUIC_PT_HANDSHAKE, .dcid = co_dcid, .dcid_len = 8,
		.scid = co_scid, .scid_len = 8, .pn = 300, .pn_len = 2,
		.length_size = 4,
	};
	struct shb_quic_hdr_spec sh = {
		.type = SHB_QUIC_PT_1RTT, .dcid = co_dcid, .dcid_len = 8,
		.pn = 70000, .pn_len = 3,
	};
	size_t n = 0;

	b[0].start = n;
	n += build_packet(d + n, cap - n, &in, "client hello", &b[0]);
	b[1].start = n;
	n += build_packet(d + n, cap - n, &hs, "finished", &b[1]);
	b[2].start = n;
	n += build_packet(d + n, cap - n, &sh, "GET /", &b[2]);
	return n;
}

static void test_coalesced_walk(void)
{
	uint8_t d[512];
	struct built b[3];
	size_t len = build_coalesced(d, sizeof(d), b);
	size_t off = 0, i = 0;

	while (off < len) {
		struct shb_quic_hdr h;
		struct shb_quic_frame f;
		unsigned pn_len;

		CU_ASSERT_EQUAL_FATAL(shb_quic_hdr_parse(d + off, len - off, 8,
							 &h),
				      SHB_QUIC_OK);
		CU_ASSERT_FATAL(i < 3);
		CU_ASSERT_EQUAL(off, b[i].start);
		CU_ASSERT_EQUAL(h.type, b[i].type);
		CU_ASSERT_EQUAL(h.packet_len, b[i].len);
		CU_ASSERT_EQUAL(h.pn_offset, b[i].pn_offset);
		CU_ASSERT(wt_same(h.dcid, co_dcid, 8));
		pn_len = shb_quic_hdr_pn_len(h.first);
		CU_ASSERT_EQUAL(shb_quic_hdr_reserved_ok(h.first), SHB_QUIC_OK);
		if (i == 0) {
			CU_ASSERT_EQUAL(h.token_len, 11);
			CU_ASSERT(wt_same(h.token,
					  (const uint8_t *)"retry-token", 11));
		}
		if (i == 1)
			CU_ASSERT_EQUAL(shb_quic_pn_read(d + off + h.pn_offset,
							 pn_len),
					300);
		if (i == 2) {
			CU_ASSERT_EQUAL(shb_quic_hdr_key_phase(h.first), 0);
			CU_ASSERT_EQUAL(shb_quic_pn_read(d + off + h.pn_offset,
							 pn_len),
					70000);
		}
		/* The first frame of each payload is the data we put. */
		CU_ASSERT_EQUAL_FATAL(
			shb_quic_frame_decode(d + off + h.pn_offset + pn_len,
					      h.packet_len - h.pn_offset -
						      pn_len - 16,
					      h.type, &f),
			SHB_QUIC_OK);
		CU_ASSERT_EQUAL(f.type, i == 2 ? SHB_QUIC_FT_STREAM
					       : SHB_QUIC_FT_CRYPTO);
		off += h.packet_len;
		i++;
	}
	CU_ASSERT_EQUAL(i, 3);
	CU_ASSERT_EQUAL(off, len);
}

/* The same datagram cut at every length: the packets wholly inside the
 * cut come out unchanged; the cut one is dropped, except the trailing
 * 1-RTT packet, which takes whatever remains once that holds a sample. */
static void test_coalesced_cut(void)
{
	uint8_t d[512];
	struct built b[3];
	size_t len = build_coalesced(d, sizeof(d), b);

	for (size_t k = 0; k <= len; k++) {
		uint8_t *q = wt_copy(d, k);
		size_t off = 0, whole = 0;
		int rc = SHB_QUIC_OK;

		while (off < k) {
			struct shb_quic_hdr h;

			rc = shb_quic_hdr_parse(q + off, k - off, 8, &h);
			if (rc != SHB_QUIC_OK)
				break;
			CU_ASSERT_FATAL(whole < 3);
			CU_ASSERT_EQUAL(off, b[whole].start);
			if (whole < 2) {
				CU_ASSERT_EQUAL(h.packet_len, b[whole].len);
			} else {
				CU_ASSERT_EQUAL(h.packet_len, k - off);
			}
			off += h.packet_len;
			whole++;
		}
		if (k == len)
			CU_ASSERT_EQUAL(whole, 3);
		if (k < b[1].start) {
			CU_ASSERT_EQUAL(whole, 0);
		} else if (k < b[2].start) {
			CU_ASSERT_EQUAL(whole, 1);
		} else if (k < b[2].start + 1 + 8 + 20) {
			CU_ASSERT_EQUAL(whole, 2);
		} else {
			CU_ASSERT_EQUAL(whole, 3);
		}
		CU_ASSERT(off == k || rc == SHB_QUIC_E_DROP);
		free(q);
	}
}

/* Zero bytes some stacks leave after the last packet read as a short
 * header with the fixed bit clear: dropped, the packets before intact. */
static void test_coalesced_trailing_zeros(void)
{
	uint8_t d[600];
	struct built b[3];
	size_t len = build_coalesced(d, sizeof(d), b);
	struct shb_quic_hdr h;

	/* Replace the 1-RTT packet with zeros. */
	memset(d + b[2].start, 0, len - b[2].start);
	CU_ASSERT_EQUAL(shb_quic_hdr_parse(d, len, 8, &h), SHB_QUIC_OK);
	CU_ASSERT_EQUAL(shb_quic_hdr_parse(d + b[1].start, len - b[1].start, 8,
					   &h),
			SHB_QUIC_OK);
	CU_ASSERT_EQUAL(shb_quic_hdr_parse(d + b[2].start, len - b[2].start, 8,
					   &h),
			SHB_QUIC_E_DROP);
}

CU_TestInfo shb_wire_header_tests[] = {
	{"RFC 9001 A.2 protected client Initial", test_a2_protected},
	{"RFC 9001 A.2 unprotected client Initial", test_a2_unprotected},
	{"RFC 9001 A.3 server Initial", test_a3},
	{"RFC 9001 A.4 Retry, cut at every length", test_a4_retry},
	{"RFC 9001 A.5 short header, cut at every length", test_a5_short},
	{"long headers cut at every length", test_long_truncated},
	{"build RFC 9001 headers byte-exact", test_build_rfc},
	{"build Handshake, Initial with token, 0-RTT, 1-RTT",
	 test_build_variants},
	{"build errors and Length limits", test_build_errors},
	{"Version Negotiation, cut at every length",
	 test_version_negotiation},
	{"malformed headers", test_bad_headers},
	{"unprotected first byte bits", test_first_byte_bits},
	{"coalesced datagram walk", test_coalesced_walk},
	{"coalesced datagram cut at every length", test_coalesced_cut},
	{"coalesced datagram with trailing zeros",
	 test_coalesced_trailing_zeros},
	CU_TEST_INFO_NULL,
};
