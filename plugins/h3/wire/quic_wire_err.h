/* Result codes of the QUIC v1 wire codec and the transport error codes
 * (RFC 9000 Section 20.1) they stand for.
 *
 * Every decoder in plugins/h3/wire returns SHB_QUIC_OK or one negative code.
 * Three codes are connection errors the caller closes with (the transport
 * error code to put in CONNECTION_CLOSE is shb_quic_wire_err_code()); the
 * others are not the peer's fault on the connection:
 *
 *   SHB_QUIC_E_FRAME_ENCODING  FRAME_ENCODING_ERROR (0x07): a frame is
 *                              truncated, of an unknown type, or has a field
 *                              out of its range.
 *   SHB_QUIC_E_PROTOCOL        PROTOCOL_VIOLATION (0x0a): a frame in a packet
 *                              type that may not carry it (RFC 9000 Table 3),
 *                              a frame type not in its shortest encoding, or
 *                              reserved header bits set after unprotection.
 *   SHB_QUIC_E_TRANSPORT_PARAM TRANSPORT_PARAMETER_ERROR (0x08): the peer's
 *                              transport parameters are malformed, repeated
 *                              or out of range, or disagree with the
 *                              connection IDs seen.
 *   SHB_QUIC_E_DROP            the packet header is unreadable (truncated,
 *                              fixed bit clear, CID over 20 bytes, Length past
 *                              the datagram, too short to sample): discard it
 *                              and the rest of the datagram, send nothing.
 *   SHB_QUIC_E_VERSION         a long header of a version other than 1 (and
 *                              not Version Negotiation): discard the rest of
 *                              the datagram.
 *   SHB_QUIC_E_SPACE           an encoder ran out of output space.
 *   SHB_QUIC_E_INVALID         an encoder was given a value it cannot put on
 *                              the wire (caller bug, or a bad option value).
 */
#ifndef SHB_QUIC_WIRE_ERR_H
#define SHB_QUIC_WIRE_ERR_H

#include <stdint.h>

enum shb_quic_wire_rc {
	SHB_QUIC_OK = 0,
	SHB_QUIC_E_FRAME_ENCODING = -1,
	SHB_QUIC_E_PROTOCOL = -2,
	SHB_QUIC_E_TRANSPORT_PARAM = -3,
	SHB_QUIC_E_DROP = -4,
	SHB_QUIC_E_VERSION = -5,
	SHB_QUIC_E_SPACE = -6,
	SHB_QUIC_E_INVALID = -7,
};

/* QUIC transport error codes (RFC 9000 Section 20.1). */
enum shb_quic_transport_error {
	SHB_QUIC_TE_NO_ERROR = 0x00,
	SHB_QUIC_TE_INTERNAL_ERROR = 0x01,
	SHB_QUIC_TE_CONNECTION_REFUSED = 0x02,
	SHB_QUIC_TE_FLOW_CONTROL_ERROR = 0x03,
	SHB_QUIC_TE_STREAM_LIMIT_ERROR = 0x04,
	SHB_QUIC_TE_STREAM_STATE_ERROR = 0x05,
	SHB_QUIC_TE_FINAL_SIZE_ERROR = 0x06,
	SHB_QUIC_TE_FRAME_ENCODING_ERROR = 0x07,
	SHB_QUIC_TE_TRANSPORT_PARAMETER_ERROR = 0x08,
	SHB_QUIC_TE_CONNECTION_ID_LIMIT_ERROR = 0x09,
	SHB_QUIC_TE_PROTOCOL_VIOLATION = 0x0a,
	SHB_QUIC_TE_INVALID_TOKEN = 0x0b,
	SHB_QUIC_TE_APPLICATION_ERROR = 0x0c,
	SHB_QUIC_TE_CRYPTO_BUFFER_EXCEEDED = 0x0d,
	SHB_QUIC_TE_KEY_UPDATE_ERROR = 0x0e,
	SHB_QUIC_TE_AEAD_LIMIT_REACHED = 0x0f,
	SHB_QUIC_TE_NO_VIABLE_PATH = 0x10,
	/* RFC 9368 Section 10.2: version_information does not match. */
	SHB_QUIC_TE_VERSION_NEGOTIATION_ERROR = 0x11,
	/* CRYPTO_ERROR: 0x0100 + the TLS alert description (0x0100..0x01ff). */
	SHB_QUIC_TE_CRYPTO_ERROR_BASE = 0x0100,
};

/* The transport error code to close the connection with for `rc`:
 * 0x07, 0x0a or 0x08 for the three connection errors; INTERNAL_ERROR for
 * any other negative code (those are never the peer's fault, and DROP and
 * VERSION must not close anything); NO_ERROR for SHB_QUIC_OK. */
uint64_t shb_quic_wire_err_code(int rc);

/* A short static English name for `rc` ("frame encoding error", ...);
 * never NULL, for logs. */
const char *shb_quic_wire_err_str(int rc);

#endif
