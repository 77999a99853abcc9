/* QUIC transport parameters (RFC 9000 Sections 7.3, 7.4 and 18): the
 * client's, encoded for the TLS extension quic_transport_parameters
 * (0x39), and the server's, decoded and validated.
 *
 * Use on the client:
 *   struct shb_quic_tp mine;
 *   shb_quic_tp_init(&mine);             // RFC defaults
 *   mine.initial_max_data = ...;         // set what differs
 *   shb_quic_cid_set(&mine.initial_scid, scid, scid_len);
 *   shb_quic_tp_encode_client(buf, sizeof buf, &mine, &n);
 * and when the server's extension arrives:
 *   struct shb_quic_tp peer;
 *   rc = shb_quic_tp_decode_server(bytes, len, &peer, &why);
 *   ... then once the handshake completes:
 *   rc = shb_quic_tp_check_server_cids(&peer, &first_dcid, &server_scid,
 *                                      retried ? &retry_scid : NULL);
 * Any rc other than SHB_QUIC_OK closes the connection with
 * TRANSPORT_PARAMETER_ERROR.
 */
#ifndef SHB_QUIC_TP_H
#define SHB_QUIC_TP_H

#include <stddef.h>
#include <stdint.h>

#include "quic_cid.h"

/* Transport parameter IDs (RFC 9000 Section 18.2). */
enum shb_quic_tp_id {
	SHB_QUIC_TP_ORIGINAL_DCID = 0x00,
	SHB_QUIC_TP_MAX_IDLE_TIMEOUT = 0x01,
	SHB_QUIC_TP_STATELESS_RESET_TOKEN = 0x02,
	SHB_QUIC_TP_MAX_UDP_PAYLOAD_SIZE = 0x03,
	SHB_QUIC_TP_INITIAL_MAX_DATA = 0x04,
	SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL = 0x05,
	SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE = 0x06,
	SHB_QUIC_TP_INITIAL_MAX_STREAM_DATA_UNI = 0x07,
	SHB_QUIC_TP_INITIAL_MAX_STREAMS_BIDI = 0x08,
	SHB_QUIC_TP_INITIAL_MAX_STREAMS_UNI = 0x09,
	SHB_QUIC_TP_ACK_DELAY_EXPONENT = 0x0a,
	SHB_QUIC_TP_MAX_ACK_DELAY = 0x0b,
	SHB_QUIC_TP_DISABLE_ACTIVE_MIGRATION = 0x0c,
	SHB_QUIC_TP_PREFERRED_ADDRESS = 0x0d,
	SHB_QUIC_TP_ACTIVE_CONNECTION_ID_LIMIT = 0x0e,
	SHB_QUIC_TP_INITIAL_SCID = 0x0f,
	SHB_QUIC_TP_RETRY_SCID = 0x10,
};

/* Bit for a parameter in shb_quic_tp.present. */
#define SHB_QUIC_TP_BIT(id) (UINT32_C(1) << (id))

/* The TLS extension codepoint that carries them. */
#define SHB_QUIC_TP_EXTENSION 0x39

/* Limits (RFC 9000 Section 18.2). */
#define SHB_QUIC_TP_MIN_UDP_PAYLOAD 1200
#define SHB_QUIC_TP_MAX_ACK_DELAY_EXPONENT 20
#define SHB_QUIC_TP_MAX_ACK_DELAY_LIMIT (1u << 14) /* values must be below */
#define SHB_QUIC_TP_MIN_ACTIVE_CID_LIMIT 2

/* Room that always holds the client's encoding (every field at its
 * largest). */
#define SHB_QUIC_TP_CLIENT_MAX_LEN 160

/* One side's parameters. After shb_quic_tp_init() every field holds the
 * RFC default, which is also the value in effect when the peer omits it. */
struct shb_quic_tp {
	/* Decode: SHB_QUIC_TP_BIT(id) for each known parameter received.
	 * Ignored by the encoder. */
	uint32_t present;
	uint64_t max_idle_timeout_ms;		/* 0: none */
	uint64_t max_udp_payload_size;		/* >= 1200, default 65527 */
	uint64_t initial_max_data;
	uint64_t initial_max_stream_data_bidi_local;
	uint64_t initial_max_stream_data_bidi_remote;
	uint64_t initial_max_stream_data_uni;
	uint64_t initial_max_streams_bidi;	/* <= 2^60 */
	uint64_t initial_max_streams_uni;	/* <= 2^60 */
	uint64_t ack_delay_exponent;		/* <= 20, default 3 */
	uint64_t max_ack_delay_ms;		/* < 2^14, default 25 */
	uint64_t active_connection_id_limit;	/* >= 2, default 2 */
	uint8_t disable_active_migration;	/* 0 or 1 */
	/* Server only (decode): valid when its bit is in `present`. */
	uint8_t stateless_reset_token[16];
	struct shb_quic_cid original_dcid;
	struct shb_quic_cid retry_scid;
	/* Both: the Source Connection ID of the sender's first Initial. */
	struct shb_quic_cid initial_scid;
	/* Decode only (RFC 9221): the largest DATAGRAM frame the sender
	 * takes, 0 when it sent none (it takes no DATAGRAM frame). */
	uint64_t max_datagram_frame_size;
	uint8_t has_max_datagram;
	/* Decode only (RFC 9287): the sender takes packets whose QUIC bit
	 * (0x40) is 0. */
	uint8_t grease_quic_bit;
	/* Decode only (RFC 9368): version_information was sent, with this
	 * Chosen Version. */
	uint8_t has_version_info;
	uint32_t chosen_version;
};

/* Sets every field to its RFC default and `present` to 0. */
void shb_quic_tp_init(struct shb_quic_tp *tp);

/* Encodes the client's parameters into out[0..cap): every integer
 * parameter whose value differs from its default (an absent parameter means
 * the default), initial_source_connection_id always (possibly empty), and
 * disable_active_migration when set; in ascending ID order. Server-only
 * fields and `present` are ignored. Returns SHB_QUIC_OK and *written,
 * SHB_QUIC_E_SPACE when cap is too small, or SHB_QUIC_E_INVALID when a
 * value breaks the limits above (so a bad option fails here, not at the
 * server). */
int shb_quic_tp_encode_client(uint8_t *out, size_t cap,
			      const struct shb_quic_tp *tp, size_t *written);

/* Decodes the server's parameters from in[0..len) into tp (initialised to
 * the defaults first). max_datagram_frame_size (0x20, RFC 9221) is read
 * as an integer, grease_quic_bit (0x2ab2, RFC 9287) must be empty,
 * version_information (0x11, RFC 9368) a list of non-zero versions; other unknown parameters (including the reserved 31*N+27
 * "grease" ones) are skipped; preferred_address is checked for shape and
 * ignored (no migration). Returns SHB_QUIC_OK, or
 * SHB_QUIC_E_TRANSPORT_PARAM when: a parameter runs past len; a known
 * parameter appears twice; an integer parameter's value does not fill its
 * length exactly; max_udp_payload_size < 1200; ack_delay_exponent > 20;
 * max_ack_delay >= 2^14; active_connection_id_limit < 2; a max_streams
 * above 2^60; a connection ID over 20 bytes; a stateless_reset_token not
 * 16 bytes; disable_active_migration not empty; a preferred_address of the
 * wrong length or with an empty connection ID. *why (when why is not NULL)
 * receives a static English phrase naming the problem, NULL on success.
 * Presence of the parameters a server must send is checked by
 * shb_quic_tp_check_server_cids(). */
int shb_quic_tp_decode_server(const uint8_t *in, size_t len,
			      struct shb_quic_tp *tp, const char **why);

/* The connection-ID checks of RFC 9000 Section 7.3, for a client:
 * original_destination_connection_id and initial_source_connection_id
 * must be present; the former must equal first_dcid (the Destination
 * Connection ID of the client's first Initial), the latter server_scid
 * (the Source Connection ID of the server's first Initial);
 * retry_source_connection_id must be present and equal retry_scid when a
 * Retry was accepted (retry_scid is its Source Connection ID), and absent
 * when retry_scid is NULL. Returns SHB_QUIC_OK or
 * SHB_QUIC_E_TRANSPORT_PARAM, with *why as for the decoder. */
int shb_quic_tp_check_server_cids(const struct shb_quic_tp *tp,
				  const struct shb_quic_cid *first_dcid,
				  const struct shb_quic_cid *server_scid,
				  const struct shb_quic_cid *retry_scid,
				  const char **why);

/* The fingerprint of the parameters a ClientHello carries, as a server
 * reads them: the ids of its quic_transport_parameters extension in the
 * order sent, in decimal, joined by '-' ("1-3-4-5-6-7-8-9-14-15"), into
 * out[cap] with its NUL. `hello` is the handshake message from its type
 * octet on (len octets, never read beyond). Returns the text's length, or
 * 0 when the message has no such extension, is cut short, or the text
 * does not fit. */
size_t shb_quic_tp_hello_ids(const uint8_t *hello, size_t len, char *out,
			     size_t cap);

#endif
