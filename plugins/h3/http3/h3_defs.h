/* HTTP/3 (RFC 9114) and QPACK (RFC 9204) code points: frame types, stream
 * types, settings, error codes, and the limits shb advertises.
 *
 * Error codes are the HTTP/3 application error space (SHB_ERRSPACE_H3 in
 * shb/proto.h): they go into RESET_STREAM, STOP_SENDING and an application
 * CONNECTION_CLOSE, and into shb_req_result.err_code. */
#ifndef SHB_H3_DEFS_H
#define SHB_H3_DEFS_H

#include <stdint.h>

/* Frame types (RFC 9114 Section 7.2). */
enum {
	SHB_H3_FRAME_DATA = 0x00,
	SHB_H3_FRAME_HEADERS = 0x01,
	SHB_H3_FRAME_CANCEL_PUSH = 0x03,
	SHB_H3_FRAME_SETTINGS = 0x04,
	SHB_H3_FRAME_PUSH_PROMISE = 0x05,
	SHB_H3_FRAME_GOAWAY = 0x07,
	SHB_H3_FRAME_MAX_PUSH_ID = 0x0d,
	/* RFC 9218 Section 7.2: PRIORITY_UPDATE for a request stream, sent
	 * by clients on their control stream only. */
	SHB_H3_FRAME_PRIORITY_UPDATE = 0xF0700,
	/* HTTP/2 frame types with no HTTP/3 meaning: receiving one is
	 * H3_FRAME_UNEXPECTED (RFC 9114 Section 7.2.8). */
	SHB_H3_FRAME_H2_PRIORITY = 0x02,
	SHB_H3_FRAME_H2_PING = 0x06,
	SHB_H3_FRAME_H2_WINDOW_UPDATE = 0x08,
	SHB_H3_FRAME_H2_CONTINUATION = 0x09,
};

/* Unidirectional stream types (RFC 9114 Section 6.2, RFC 9204 4.2). */
enum {
	SHB_H3_STREAM_CONTROL = 0x00,
	SHB_H3_STREAM_PUSH = 0x01,
	SHB_H3_STREAM_QPACK_ENCODER = 0x02,
	SHB_H3_STREAM_QPACK_DECODER = 0x03,
};

/* SETTINGS identifiers (RFC 9114 Section 7.2.4.1, RFC 9204 Section 5).
 * 0x00 and 0x02..0x05 were HTTP/2 settings: receiving one is
 * H3_SETTINGS_ERROR. */
enum {
	SHB_H3_SETTING_QPACK_MAX_TABLE_CAPACITY = 0x01,
	SHB_H3_SETTING_MAX_FIELD_SECTION_SIZE = 0x06,
	SHB_H3_SETTING_QPACK_BLOCKED_STREAMS = 0x07,
	/* RFC 8441 Section 3 (RFC 9220 for HTTP/3): extended CONNECT. */
	SHB_H3_SETTING_ENABLE_CONNECT_PROTOCOL = 0x08,
	/* RFC 9297 Section 2.1.1: HTTP Datagrams, value 0 or 1. */
	SHB_H3_SETTING_H3_DATAGRAM = 0x33,
};

/* HTTP/3 and QPACK error codes (RFC 9114 Section 8.1, RFC 9204 6). */
enum {
	SHB_H3_NO_ERROR = 0x0100,
	SHB_H3_GENERAL_PROTOCOL_ERROR = 0x0101,
	SHB_H3_INTERNAL_ERROR = 0x0102,
	SHB_H3_STREAM_CREATION_ERROR = 0x0103,
	SHB_H3_CLOSED_CRITICAL_STREAM = 0x0104,
	SHB_H3_FRAME_UNEXPECTED = 0x0105,
	SHB_H3_FRAME_ERROR = 0x0106,
	SHB_H3_EXCESSIVE_LOAD = 0x0107,
	SHB_H3_ID_ERROR = 0x0108,
	SHB_H3_SETTINGS_ERROR = 0x0109,
	SHB_H3_MISSING_SETTINGS = 0x010a,
	SHB_H3_REQUEST_REJECTED = 0x010b,
	SHB_H3_REQUEST_CANCELLED = 0x010c,
	SHB_H3_REQUEST_INCOMPLETE = 0x010d,
	SHB_H3_MESSAGE_ERROR = 0x010e,
	SHB_H3_CONNECT_ERROR = 0x010f,
	SHB_H3_VERSION_FALLBACK = 0x0110,
	SHB_QPACK_DECOMPRESSION_FAILED = 0x0200,
	SHB_QPACK_ENCODER_STREAM_ERROR = 0x0201,
	SHB_QPACK_DECODER_STREAM_ERROR = 0x0202,
};

/* What shb advertises in its SETTINGS besides the QPACK table (struct
 * shb_h3_conn_config in h3_local.h): a 256 KiB cap on response field
 * sections (as HTTP/2's header list cap), which the response reader
 * enforces on HEADERS frame sizes and the QPACK decoder on decoded sizes
 * (SHB_QPACK_DEC_MAX_SECTION). */
#define SHB_H3_LOCAL_MAX_FIELD_SECTION_SIZE ((uint64_t)256 << 10)
/* Interim (1xx) responses accepted before the final one, per request. */
#define SHB_H3_MAX_INTERIM 16u

/* Frame types, settings, stream types and error codes of the form
 * 0x1f * N + 0x21 are reserved for greasing and carry no meaning. */
static inline int shb_h3_is_grease(uint64_t v)
{
	return v >= 0x21 && (v - 0x21) % 0x1f == 0;
}

/* Short name of an error code above ("H3_FRAME_UNEXPECTED"), or NULL for
 * any other value. */
const char *shb_h3_error_name(uint64_t code);

#endif
