/* QUIC frames (plugins/h3/wire/quic_frame_dec.c and quic_ack.c), decoded
 * one after another from a decrypted packet payload as quic_conn_rx.c
 * does, ACK ranges walked. Input: a byte whose value modulo 5 is the
 * packet type (Initial, 0-RTT, Handshake, Retry, 1-RTT), then the payload.
 *
 * Checked besides memory safety: a decoded frame's size is within what was
 * left and not zero; an error has its reason; every decoded frame can be
 * encoded again (shb_quic_frame_len() > 0), the encoding decodes to a
 * frame that encodes to the same bytes; ACK ranges come largest first,
 * disjoint, exactly range_count + 1 of them, ending at `smallest`. */
#include <string.h>

#include "fuzz_input.h"
#include "quic_frame.h"
#include "quic_header.h"
#include "quic_wire_err.h"

static uint8_t enc1[70000], enc2[70000];

static void check_ack(const struct shb_quic_ack *a)
{
	struct shb_quic_ack_iter it;
	struct shb_quic_ack_range r;
	uint64_t n = 0, prev_lo = 0;

	shb_quic_ack_iter_init(&it, a);
	while (shb_quic_ack_iter_next(&it, &r)) {
		FZ_CHECK(r.lo <= r.hi);
		if (n == 0)
			FZ_CHECK(r.hi == a->largest);
		else
			FZ_CHECK(r.hi + 1 < prev_lo);
		prev_lo = r.lo;
		n++;
	}
	FZ_CHECK(n == a->range_count + 1);
	FZ_CHECK(prev_lo == a->smallest);
}

static void check_roundtrip(const struct shb_quic_frame *f, uint32_t ptype)
{
	struct shb_quic_frame g;
	size_t n1 = shb_quic_frame_len(f), n2;

	FZ_CHECK(n1 > 0 && n1 <= sizeof(enc1));
	FZ_CHECK(shb_quic_frame_encode(enc1, sizeof(enc1), f) == n1);
	FZ_CHECK(shb_quic_frame_decode(enc1, n1, ptype, &g) == SHB_QUIC_OK);
	FZ_CHECK(g.type == f->type && g.wire_len == n1);
	n2 = shb_quic_frame_encode(enc2, sizeof(enc2), &g);
	FZ_CHECK(n2 == n1 && memcmp(enc1, enc2, n1) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	uint32_t ptype = fz_u8(&f) % 5;
	size_t off = 0;

	if (f.n > 65536)
		return 0;
	while (off < f.n) {
		struct shb_quic_frame fr;
		int rc = shb_quic_frame_decode(f.p + off, f.n - off, ptype, &fr);

		if (rc != SHB_QUIC_OK) {
			FZ_CHECK(rc < 0 && fr.why != NULL);
			break;
		}
		FZ_CHECK(fr.why == NULL);
		FZ_CHECK(fr.wire_len > 0 && fr.wire_len <= f.n - off);
		FZ_CHECK(shb_quic_frame_allowed(fr.type, ptype));
		if (fr.type == SHB_QUIC_FT_ACK || fr.type == SHB_QUIC_FT_ACK_ECN)
			check_ack(&fr.u.ack);
		if (fr.type == SHB_QUIC_FT_DATAGRAM) {
			/* decoded only (RFC 9221): its payload within the frame */
			FZ_CHECK(fr.u.datagram.data >= f.p + off &&
				 fr.u.datagram.len <= fr.wire_len &&
				 fr.u.datagram.data + fr.u.datagram.len <=
					 f.p + off + fr.wire_len);
		} else {
			check_roundtrip(&fr, ptype);
		}
		off += fr.wire_len;
	}
	return 0;
}
