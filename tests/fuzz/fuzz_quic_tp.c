/* The server's QUIC transport parameters (plugins/h3/wire/quic_tp.c), as
 * the TLS layer hands them over, then the connection-ID checks the
 * connection makes once the handshake is done. Input: three bytes for the
 * lengths (modulo 21) of the first DCID, the server's SCID and a Retry's
 * SCID (0: no Retry), then the extension's bytes. The same bytes, read
 * six at a time as a client's parameter list (quic_tp_items.h: kind, id,
 * length, value), are encoded and read back.
 *
 * Checked besides memory safety: an accepted set respects every limit the
 * decoder promises, and a rejected one has its reason; an encoded list
 * holds its items' ids in order, a reserved id where the list has one. */
#include <string.h>

#include "fuzz_input.h"
#include "quic_tp.h"
#include "quic_tp_items.h"
#include "quic_varint.h"
#include "quic_wire_err.h"

static void cid(struct shb_quic_cid *c, unsigned len, uint8_t fill)
{
	memset(c, 0, sizeof(*c));
	c->len = (uint8_t)(len % 21);
	memset(c->id, fill, c->len);
}

/* The input as a parameter list, encoded, then walked. */
static void items(const uint8_t *p, size_t n)
{
	static const uint8_t bytes[32] = "0123456789abcdef0123456789abcdef";
	struct shb_quic_tp_item it[SHB_QUIC_TP_ITEMS_MAX];
	uint8_t rnd[SHB_QUIC_TP_RANDOM_LEN] = {0}, out[SHB_QUIC_TP_ITEMS_MAX_LEN];
	struct shb_quic_cid scid = {.len = 8};
	size_t k = 0, len = 0, at = 0;

	memcpy(rnd, p, n < sizeof(rnd) ? n : sizeof(rnd));
	for (; k < SHB_QUIC_TP_ITEMS_MAX && (k + 1) * 6 <= n; k++) {
		const uint8_t *q = p + 6 * k;
		it[k] = (struct shb_quic_tp_item){
			(uint64_t)(q[1] << 8 | q[2]), q[0] % 7u, q[3] % 40u,
			(uint64_t)(q[4] << 8 | q[5]), bytes};
	}
	if (shb_quic_tp_encode_items(out, sizeof(out), it, k, &scid, rnd, &len) !=
	    SHB_QUIC_OK) {
		FZ_CHECK(len == 0);
		return;
	}
	FZ_CHECK(len <= sizeof(out));
	for (size_t i = 0; i < k; i++) {
		uint64_t id, vlen;
		size_t a = shb_quic_varint_decode(out + at, len - at, &id), b;

		FZ_CHECK(a > 0);
		b = shb_quic_varint_decode(out + at + a, len - at - a, &vlen);
		FZ_CHECK(b > 0 && vlen <= len - at - a - b);
		FZ_CHECK(it[i].kind == SHB_QUIC_TPK_GREASE ? shb_quic_tp_is_grease(id)
							  : id == it[i].id);
		at += a + b + (size_t)vlen;
	}
	FZ_CHECK(at == len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size};
	struct shb_quic_cid first, scid, retry;
	struct shb_quic_tp tp;
	const char *why = NULL;
	unsigned retry_len;
	int rc;

	cid(&first, fz_u8(&f), 0x11);
	cid(&scid, fz_u8(&f), 0x22);
	retry_len = fz_u8(&f) % 21;
	cid(&retry, retry_len, 0x33);
	items(f.p, f.n);
	rc = shb_quic_tp_decode_server(f.p, f.n, &tp, &why);
	if (rc != SHB_QUIC_OK) {
		FZ_CHECK(rc == SHB_QUIC_E_TRANSPORT_PARAM && why != NULL);
		return 0;
	}
	FZ_CHECK(why == NULL);
	FZ_CHECK(tp.max_udp_payload_size >= SHB_QUIC_TP_MIN_UDP_PAYLOAD);
	FZ_CHECK(tp.ack_delay_exponent <= SHB_QUIC_TP_MAX_ACK_DELAY_EXPONENT);
	FZ_CHECK(tp.max_ack_delay_ms < SHB_QUIC_TP_MAX_ACK_DELAY_LIMIT);
	FZ_CHECK(tp.active_connection_id_limit >=
		 SHB_QUIC_TP_MIN_ACTIVE_CID_LIMIT);
	FZ_CHECK(tp.initial_max_streams_bidi <= (UINT64_C(1) << 60));
	FZ_CHECK(tp.initial_max_streams_uni <= (UINT64_C(1) << 60));
	FZ_CHECK(tp.disable_active_migration <= 1);
	FZ_CHECK(tp.grease_quic_bit <= 1 && tp.has_max_datagram <= 1);
	FZ_CHECK(tp.has_max_datagram || tp.max_datagram_frame_size == 0);
	FZ_CHECK(tp.original_dcid.len <= 20 && tp.retry_scid.len <= 20 &&
		 tp.initial_scid.len <= 20);
	rc = shb_quic_tp_check_server_cids(&tp, &first, &scid,
					   retry_len ? &retry : NULL, &why);
	FZ_CHECK(rc == SHB_QUIC_OK ? why == NULL : why != NULL);
	return 0;
}
