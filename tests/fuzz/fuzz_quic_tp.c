/* The server's QUIC transport parameters (plugins/h3/wire/quic_tp.c), as
 * the TLS layer hands them over, then the connection-ID checks the
 * connection makes once the handshake is done. Input: three bytes for the
 * lengths (modulo 21) of the first DCID, the server's SCID and a Retry's
 * SCID (0: no Retry), then the extension's bytes.
 *
 * Checked besides memory safety: an accepted set respects every limit the
 * decoder promises, and a rejected one has its reason. */
#include <string.h>

#include "fuzz_input.h"
#include "quic_tp.h"
#include "quic_wire_err.h"

static void cid(struct shb_quic_cid *c, unsigned len, uint8_t fill)
{
	memset(c, 0, sizeof(*c));
	c->len = (uint8_t)(len % 21);
	memset(c->id, fill, c->len);
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
	FZ_CHECK(tp.original_dcid.len <= 20 && tp.retry_scid.len <= 20 &&
		 tp.initial_scid.len <= 20);
	rc = shb_quic_tp_check_server_cids(&tp, &first, &scid,
					   retry_len ? &retry : NULL, &why);
	FZ_CHECK(rc == SHB_QUIC_OK ? why == NULL : why != NULL);
	return 0;
}
