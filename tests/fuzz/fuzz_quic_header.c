/* QUIC packet headers (plugins/h3/wire/quic_header.c), walked over a
 * datagram of coalesced packets as the connection does before removing
 * header protection. Input: a byte whose value modulo 21 is the length of
 * our connection IDs (what a short header's DCID is) and whose top bit
 * says we sent grease_quic_bit (RFC 9287: any QUIC bit taken), then the
 * datagram.
 *
 * Checked besides memory safety: every pointer and length the parser
 * returns lies inside the datagram, and a packet is never empty, so the
 * walk always moves on. */
#include <string.h>

#include "fuzz_input.h"
#include "quic_header.h"
#include "quic_wire_err.h"

static void inside(const uint8_t *base, size_t len, const uint8_t *p,
		   size_t n)
{
	if (!p) {
		FZ_CHECK(n == 0);
		return;
	}
	FZ_CHECK(p >= base && p <= base + len && n <= (size_t)(base + len - p));
}

static volatile uint32_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	unsigned first = fz_u8(&f);
	size_t cid_len = first % 21, off = 0;
	/* An endpoint that sent grease_quic_bit (RFC 9287) when the byte's
	 * top bit is set: a clear QUIC bit is then taken too. */
	int any_bit = first >= 0x80;

	while (off < f.n) {
		const uint8_t *pkt = f.p + off;
		size_t left = f.n - off;
		struct shb_quic_hdr h;
		int rc;

		memset(&h, 0xa5, sizeof(h));
		rc = shb_quic_hdr_parse_bit(pkt, left, cid_len, any_bit, &h);
		if (!any_bit || (pkt[0] & 0x40)) {
			struct shb_quic_hdr g;
			/* The bit aside, both parsers agree. */
			FZ_CHECK(shb_quic_hdr_parse(pkt, left, cid_len, &g) == rc);
		}
		if (rc == SHB_QUIC_E_VERSION) {
			if (h.dcid_len <= 20 && h.dcid)
				inside(pkt, left, h.dcid, h.dcid_len);
			break;
		}
		if (rc != SHB_QUIC_OK) {
			FZ_CHECK(rc == SHB_QUIC_E_DROP);
			break;
		}
		FZ_CHECK(h.type <= SHB_QUIC_PT_VERSION_NEG);
		FZ_CHECK(h.dcid_len <= 20 && h.scid_len <= 20);
		inside(pkt, left, h.dcid, h.dcid_len);
		inside(pkt, left, h.scid, h.scid_len);
		inside(pkt, left, h.token, h.token_len);
		FZ_CHECK(h.packet_len > 0 && h.packet_len <= left);
		if (h.retry_tag) {
			FZ_CHECK(h.type == SHB_QUIC_PT_RETRY);
			inside(pkt, h.packet_len, h.retry_tag, 16);
		}
		if (h.type == SHB_QUIC_PT_VERSION_NEG) {
			FZ_CHECK(h.version_count > 0);
			inside(pkt, left, h.versions, h.version_count * 4);
			for (size_t i = 0; i < h.version_count; i++)
				sink += shb_quic_vn_version(&h, i);
			sink += (uint32_t)shb_quic_vn_lists(&h,
							    SHB_QUIC_VERSION_1);
		} else if (h.type != SHB_QUIC_PT_RETRY) {
			/* header protection samples 16 bytes 4 after the
			 * packet number's start: they must be there */
			FZ_CHECK(h.pn_offset > 0);
			FZ_CHECK(h.pn_offset + SHB_QUIC_HP_SAMPLE_OFFSET +
					 SHB_QUIC_HP_SAMPLE_LEN <=
				 h.packet_len);
			sink += shb_quic_hdr_pn_len(h.first);
			sink += (uint32_t)shb_quic_hdr_reserved_ok(h.first);
			sink += shb_quic_hdr_key_phase(h.first);
		}
		off += h.packet_len;
	}
	return 0;
}
