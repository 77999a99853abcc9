/* HTTP/2 frame codec: see h2_frame.h. */
#include "h2_frame.h"

#include <string.h>

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

size_t shb_h2_write_settings(uint8_t *p, const struct shb_h2_setting_kv *kv,
			     size_t n)
{
	size_t off = shb_h2_frame_header_write(
		p, (uint32_t)(n * SHB_H2_SETTINGS_ENTRY_LEN), SHB_H2_SETTINGS,
		0, 0);

	for (size_t i = 0; i < n; i++) {
		p[off] = (uint8_t)(kv[i].id >> 8);
		p[off + 1] = (uint8_t)kv[i].id;
		put32(p + off + 2, kv[i].value);
		off += SHB_H2_SETTINGS_ENTRY_LEN;
	}
	return off;
}

size_t shb_h2_write_settings_ack(uint8_t *p)
{
	return shb_h2_frame_header_write(p, 0, SHB_H2_SETTINGS,
					 SHB_H2_FLAG_ACK, 0);
}

size_t shb_h2_write_window_update(uint8_t *p, uint32_t stream_id,
				  uint32_t increment)
{
	shb_h2_frame_header_write(p, 4, SHB_H2_WINDOW_UPDATE, 0, stream_id);
	put32(p + SHB_H2_FRAME_HEADER_LEN, increment & SHB_H2_MAX_WINDOW);
	return SHB_H2_WINDOW_UPDATE_LEN;
}

size_t shb_h2_write_rst_stream(uint8_t *p, uint32_t stream_id,
			       uint32_t error_code)
{
	shb_h2_frame_header_write(p, 4, SHB_H2_RST_STREAM, 0, stream_id);
	put32(p + SHB_H2_FRAME_HEADER_LEN, error_code);
	return SHB_H2_RST_STREAM_LEN;
}

size_t shb_h2_write_ping(uint8_t *p, const uint8_t *data, int ack)
{
	shb_h2_frame_header_write(p, 8, SHB_H2_PING, ack ? SHB_H2_FLAG_ACK : 0,
				  0);
	memcpy(p + SHB_H2_FRAME_HEADER_LEN, data, 8);
	return SHB_H2_PING_LEN;
}

size_t shb_h2_write_goaway(uint8_t *p, uint32_t last_stream_id,
			   uint32_t error_code)
{
	shb_h2_frame_header_write(p, 8, SHB_H2_GOAWAY, 0, 0);
	put32(p + SHB_H2_FRAME_HEADER_LEN, last_stream_id & SHB_H2_MAX_STREAM_ID);
	put32(p + SHB_H2_FRAME_HEADER_LEN + 4, error_code);
	return SHB_H2_GOAWAY_LEN;
}

size_t shb_h2_write_priority(uint8_t *p, uint32_t stream_id, int exclusive,
			     uint32_t depends_on, uint32_t weight)
{
	shb_h2_frame_header_write(p, 5, SHB_H2_PRIORITY, 0, stream_id);
	put32(p + SHB_H2_FRAME_HEADER_LEN,
	      (depends_on & SHB_H2_MAX_STREAM_ID) | (exclusive ? 0x80000000u : 0));
	p[SHB_H2_FRAME_HEADER_LEN + 4] = (uint8_t)(weight - 1);
	return SHB_H2_PRIORITY_LEN;
}

size_t shb_h2_write_priority_update(uint8_t *p, uint32_t stream_id,
				    const char *value, size_t len)
{
	shb_h2_frame_header_write(p, (uint32_t)(4 + len), SHB_H2_PRIORITY_UPDATE,
				  0, 0);
	put32(p + SHB_H2_FRAME_HEADER_LEN, stream_id & SHB_H2_MAX_STREAM_ID);
	if (len)
		memcpy(p + SHB_H2_FRAME_HEADER_LEN + 4, value, len);
	return SHB_H2_FRAME_HEADER_LEN + 4 + len;
}

const char *shb_h2_frame_type_name(uint8_t type)
{
	static const char *const names[] = {
		"DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS",
		"PUSH_PROMISE", "PING", "GOAWAY", "WINDOW_UPDATE",
		"CONTINUATION",
	};
	if (type == SHB_H2_PRIORITY_UPDATE)
		return "PRIORITY_UPDATE";
	return type < sizeof(names) / sizeof(names[0]) ? names[type]
						       : "UNKNOWN";
}

const char *shb_h2_error_name(uint64_t code)
{
	static const char *const names[] = {
		"NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR",
		"FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
		"FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL",
		"COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
		"INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
	};
	return code < sizeof(names) / sizeof(names[0]) ? names[code]
						       : "UNKNOWN";
}
