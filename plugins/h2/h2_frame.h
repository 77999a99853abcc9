/* HTTP/2 frame codec (RFC 9113 Section 4 and 6): constants, the 9-octet
 * frame header, and writers for every frame shb sends. Writers fill a
 * caller-provided buffer of at least the stated size and return the
 * octets written; they never fail. */
#ifndef SHB_H2_FRAME_H
#define SHB_H2_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define SHB_H2_FRAME_HEADER_LEN 9
#define SHB_H2_PREFACE "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
#define SHB_H2_PREFACE_LEN 24

#define SHB_H2_DEFAULT_WINDOW 65535
#define SHB_H2_MAX_WINDOW 0x7fffffffu
#define SHB_H2_MIN_FRAME_SIZE 16384u
#define SHB_H2_MAX_FRAME_SIZE 16777215u
#define SHB_H2_MAX_STREAM_ID 0x7fffffffu

enum shb_h2_frame_type {
	SHB_H2_DATA = 0x0,
	SHB_H2_HEADERS = 0x1,
	SHB_H2_PRIORITY = 0x2,
	SHB_H2_RST_STREAM = 0x3,
	SHB_H2_SETTINGS = 0x4,
	SHB_H2_PUSH_PROMISE = 0x5,
	SHB_H2_PING = 0x6,
	SHB_H2_GOAWAY = 0x7,
	SHB_H2_WINDOW_UPDATE = 0x8,
	SHB_H2_CONTINUATION = 0x9,
	SHB_H2_PRIORITY_UPDATE = 0x10, /* RFC 9218 Section 7.1 */
};

enum shb_h2_flag {
	SHB_H2_FLAG_END_STREAM = 0x1,
	SHB_H2_FLAG_ACK = 0x1,
	SHB_H2_FLAG_END_HEADERS = 0x4,
	SHB_H2_FLAG_PADDED = 0x8,
	SHB_H2_FLAG_PRIORITY = 0x20,
};

enum shb_h2_setting {
	SHB_H2_SET_HEADER_TABLE_SIZE = 0x1,
	SHB_H2_SET_ENABLE_PUSH = 0x2,
	SHB_H2_SET_MAX_CONCURRENT_STREAMS = 0x3,
	SHB_H2_SET_INITIAL_WINDOW_SIZE = 0x4,
	SHB_H2_SET_MAX_FRAME_SIZE = 0x5,
	SHB_H2_SET_MAX_HEADER_LIST_SIZE = 0x6,
	SHB_H2_SET_NO_RFC7540_PRIORITIES = 0x9, /* RFC 9218 Section 2.1 */
};

enum shb_h2_error {
	SHB_H2_NO_ERROR = 0x0,
	SHB_H2_PROTOCOL_ERROR = 0x1,
	SHB_H2_INTERNAL_ERROR = 0x2,
	SHB_H2_FLOW_CONTROL_ERROR = 0x3,
	SHB_H2_SETTINGS_TIMEOUT = 0x4,
	SHB_H2_STREAM_CLOSED = 0x5,
	SHB_H2_FRAME_SIZE_ERROR = 0x6,
	SHB_H2_REFUSED_STREAM = 0x7,
	SHB_H2_CANCEL = 0x8,
	SHB_H2_COMPRESSION_ERROR = 0x9,
	SHB_H2_CONNECT_ERROR = 0xa,
	SHB_H2_ENHANCE_YOUR_CALM = 0xb,
	SHB_H2_INADEQUATE_SECURITY = 0xc,
	SHB_H2_HTTP_1_1_REQUIRED = 0xd,
};

/* A parsed frame header. */
struct shb_h2_frame_header {
	uint32_t length; /* 24 bits */
	uint8_t type;
	uint8_t flags;
	uint32_t stream_id; /* reserved bit cleared */
};

/* Sizes of the fixed frames written below. */
#define SHB_H2_SETTINGS_ENTRY_LEN 6
#define SHB_H2_WINDOW_UPDATE_LEN (SHB_H2_FRAME_HEADER_LEN + 4)
#define SHB_H2_RST_STREAM_LEN (SHB_H2_FRAME_HEADER_LEN + 4)
#define SHB_H2_PING_LEN (SHB_H2_FRAME_HEADER_LEN + 8)
#define SHB_H2_GOAWAY_LEN (SHB_H2_FRAME_HEADER_LEN + 8)
#define SHB_H2_PRIORITY_LEN (SHB_H2_FRAME_HEADER_LEN + 5)

/* p[9] -> h. Never fails: every bit pattern is a header. Inline: the
 * reader parses one per frame received. */
static inline void shb_h2_frame_header_parse(const uint8_t *p,
					     struct shb_h2_frame_header *h)
{
	h->length = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
	h->type = p[3];
	h->flags = p[4];
	h->stream_id = ((uint32_t)p[5] << 24 | (uint32_t)p[6] << 16 |
			(uint32_t)p[7] << 8 | p[8]) & SHB_H2_MAX_STREAM_ID;
}

/* Writes a 9-octet header; length must be < 2^24. Inline: the sender
 * writes one per request. */
static inline size_t shb_h2_frame_header_write(uint8_t *p, uint32_t length,
					       uint8_t type, uint8_t flags,
					       uint32_t stream_id)
{
	stream_id &= SHB_H2_MAX_STREAM_ID;
	p[0] = (uint8_t)(length >> 16);
	p[1] = (uint8_t)(length >> 8);
	p[2] = (uint8_t)length;
	p[3] = type;
	p[4] = flags;
	p[5] = (uint8_t)(stream_id >> 24);
	p[6] = (uint8_t)(stream_id >> 16);
	p[7] = (uint8_t)(stream_id >> 8);
	p[8] = (uint8_t)stream_id;
	return SHB_H2_FRAME_HEADER_LEN;
}

/* One SETTINGS entry as id and value. */
struct shb_h2_setting_kv {
	uint16_t id;
	uint32_t value;
};

/* SETTINGS with n entries: 9 + 6n octets. */
size_t shb_h2_write_settings(uint8_t *p, const struct shb_h2_setting_kv *kv,
			     size_t n);
/* SETTINGS with ACK: 9 octets. */
size_t shb_h2_write_settings_ack(uint8_t *p);
/* WINDOW_UPDATE: SHB_H2_WINDOW_UPDATE_LEN octets. */
size_t shb_h2_write_window_update(uint8_t *p, uint32_t stream_id,
				  uint32_t increment);
/* RST_STREAM: SHB_H2_RST_STREAM_LEN octets. */
size_t shb_h2_write_rst_stream(uint8_t *p, uint32_t stream_id,
			       uint32_t error_code);
/* PING (ack non-zero: the ACK flag) echoing data[8]: SHB_H2_PING_LEN. */
size_t shb_h2_write_ping(uint8_t *p, const uint8_t *data, int ack);
/* GOAWAY without debug data: SHB_H2_GOAWAY_LEN octets. */
size_t shb_h2_write_goaway(uint8_t *p, uint32_t last_stream_id,
			   uint32_t error_code);

/* PRIORITY (RFC 9113 6.3, deprecated but still sent by some browsers):
 * stream_id depends on depends_on (exclusive non-zero: exclusively) with
 * weight 1..256 (written as weight - 1): SHB_H2_PRIORITY_LEN octets. */
size_t shb_h2_write_priority(uint8_t *p, uint32_t stream_id, int exclusive,
			     uint32_t depends_on, uint32_t weight);

/* PRIORITY_UPDATE (RFC 9218 Section 7.1) on stream 0 for request stream
 * `stream_id` with the Priority field value[len]:
 * SHB_H2_FRAME_HEADER_LEN + 4 + len octets (len + 4 < 2^24). */
size_t shb_h2_write_priority_update(uint8_t *p, uint32_t stream_id,
				    const char *value, size_t len);

/* Static names for traces and error messages ("DATA", "PROTOCOL_ERROR");
 * unknown values give "UNKNOWN". */
const char *shb_h2_frame_type_name(uint8_t type);
const char *shb_h2_error_name(uint64_t code);

#endif
