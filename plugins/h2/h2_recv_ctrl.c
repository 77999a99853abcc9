/* The connection's control frames from the peer: SETTINGS (checked and
 * applied entry by entry as they arrive, then acknowledged), RST_STREAM,
 * GOAWAY (with its debug data kept for the report) and WINDOW_UPDATE.
 * Separate from h2_recv.c, the reader, because these change the
 * connection's state (the peer's limits, windows, the streams a GOAWAY
 * refuses) rather than carry a response; h2_recv.c calls them from its
 * per-frame dispatch through h2_recv_ctrl.h. */
#include <stdio.h>

#include "h2_conn.h"
#include "h2_recv.h"
#include "h2_recv_ctrl.h"

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static const char *const settings_names[] = {
	"?", "HEADER_TABLE_SIZE", "ENABLE_PUSH", "MAX_CONCURRENT_STREAMS",
	"INITIAL_WINDOW_SIZE", "MAX_FRAME_SIZE", "MAX_HEADER_LIST_SIZE",
};

int shb_h2_begin_settings(struct shb_h2_conn *c,
			  const struct shb_h2_frame_header *h)
{
	if (h->stream_id != 0)
		return shb_h2_conn_error(c, SHB_H2_PROTOCOL_ERROR,
					 "SETTINGS on stream %u", h->stream_id);
	if ((h->flags & SHB_H2_FLAG_ACK) ? h->length != 0
					 : h->length % SHB_H2_SETTINGS_ENTRY_LEN)
		return shb_h2_conn_error(c, SHB_H2_FRAME_SIZE_ERROR,
					 "SETTINGS with length %u", h->length);
	if (h->flags & SHB_H2_FLAG_ACK)
		return SHB_OK;
	if (h->length / SHB_H2_SETTINGS_ENTRY_LEN > SHB_H2_MAX_SETTINGS_ENTRIES)
		return shb_h2_conn_error(c, SHB_H2_ENHANCE_YOUR_CALM,
					 "SETTINGS with %u entries (cap %u)",
					 h->length / SHB_H2_SETTINGS_ENTRY_LEN,
					 SHB_H2_MAX_SETTINGS_ENTRIES);
	if (shb_h2_flood_count(c, SHB_H2_FLOOD_SETTINGS) < 0)
		return SHB_E_PROTO;
	/* The first SETTINGS replaces our guess; without the setting the
	 * peer allows any number of streams. */
	if (!c->got_settings)
		c->peer_max_streams = UINT32_MAX;
	return SHB_OK;
}

static int apply_setting(struct shb_h2_conn *c, uint16_t id, uint32_t v)
{
	if (c->mod->debug && id >= 1 && id <= 6)
		shb_h2_trace(c, "  %s = %u", settings_names[id], v);
	switch (id) {
	case SHB_H2_SET_HEADER_TABLE_SIZE:
		if (v < c->enc_table_size) {
			c->enc_table_size = v;
			c->size_update = 1;
		}
		return SHB_OK;
	case SHB_H2_SET_ENABLE_PUSH:
		if (v > 1)
			return shb_h2_conn_error(c, SHB_H2_PROTOCOL_ERROR,
						 "SETTINGS_ENABLE_PUSH = %u", v);
		return SHB_OK;
	case SHB_H2_SET_MAX_CONCURRENT_STREAMS:
		c->peer_max_streams = v;
		return SHB_OK;
	case SHB_H2_SET_NO_RFC7540_PRIORITIES:
		if (c->mod->debug)
			shb_h2_trace(c, "  NO_RFC7540_PRIORITIES = %u", v);
		if (v > 1)
			return shb_h2_conn_error(c, SHB_H2_PROTOCOL_ERROR,
						 "SETTINGS_NO_RFC7540_PRIORITIES = %u", v);
		/* Only the first SETTINGS may carry it (RFC 9218 2.1): a
		 * later change is ignored. */
		if (!c->got_settings)
			c->peer_no_7540 = (uint8_t)v;
		return SHB_OK;
	case SHB_H2_SET_INITIAL_WINDOW_SIZE: {
		int64_t delta = (int64_t)v - (int64_t)c->peer_initial_window;

		if (v > SHB_H2_MAX_WINDOW)
			return shb_h2_conn_error(c, SHB_H2_FLOW_CONTROL_ERROR,
						 "SETTINGS_INITIAL_WINDOW_SIZE = %u",
						 v);
		for (uint32_t k = 0; k <= c->slot_mask; k++) {
			struct shb_h2_stream *s = &c->streams[k];

			if (!s->id)
				continue;
			s->send_window += delta;
			if (s->send_window > (int64_t)SHB_H2_MAX_WINDOW)
				return shb_h2_conn_error(
					c, SHB_H2_FLOW_CONTROL_ERROR,
					"SETTINGS_INITIAL_WINDOW_SIZE overflows the window of stream %u",
					s->id);
		}
		c->peer_initial_window = v;
		return SHB_OK;
	}
	case SHB_H2_SET_MAX_FRAME_SIZE:
		if (v < SHB_H2_MIN_FRAME_SIZE || v > SHB_H2_MAX_FRAME_SIZE)
			return shb_h2_conn_error(c, SHB_H2_PROTOCOL_ERROR,
						 "SETTINGS_MAX_FRAME_SIZE = %u", v);
		c->peer_max_frame = v;
		return SHB_OK;
	default:
		return SHB_OK; /* MAX_HEADER_LIST_SIZE is advisory; others unknown */
	}
}

int shb_h2_settings_content(struct shb_h2_conn *c, const uint8_t *p,
			    size_t n)
{
	while (n) {
		size_t used = shb_h2_gather(c, p, n, SHB_H2_SETTINGS_ENTRY_LEN);

		p += used;
		n -= used;
		if (c->rd.small_have == SHB_H2_SETTINGS_ENTRY_LEN) {
			int rc = apply_setting(
				c, (uint16_t)(c->rd.small[0] << 8 | c->rd.small[1]),
				get32(c->rd.small + 2));

			if (rc < 0)
				return rc;
			c->rd.small_have = 0;
		}
	}
	return SHB_OK;
}

void shb_h2_goaway_content(struct shb_h2_conn *c, const uint8_t *p,
			   size_t n)
{
	size_t used = shb_h2_gather(c, p, n, 8);

	/* Debug data: kept for the error message, printable only. */
	for (p += used, n -= used; n; p++, n--)
		if (c->goaway_debug_len + 1u < sizeof(c->goaway_debug))
			c->goaway_debug[c->goaway_debug_len++] =
				(*p >= 0x20 && *p < 0x7f) ? (char)*p : '?';
	c->goaway_debug[c->goaway_debug_len] = '\0';
}

int shb_h2_end_settings(struct shb_h2_conn *c)
{
	const struct shb_host *host = c->mod->host;
	int rc;

	if (c->rd.fh.flags & SHB_H2_FLAG_ACK) {
		c->settings_acked = 1;
		return SHB_OK;
	}
	if (!c->got_settings) {
		c->got_settings = 1;
		if (host->conn_event) {
			struct shb_conn_event ev = {
				.struct_size = sizeof(ev),
				.kind = SHB_CEV_HANDSHAKE_DONE,
			};
			host->conn_event(c->handle, &ev);
		}
	}
	rc = shb_h2_send_settings_ack(c);
	if (rc < 0)
		return rc;
	/* A new initial window may unblock bodies (the first SETTINGS
	 * always does: no DATA goes before it). The DATA follows the ACK,
	 * which tells the server its windows apply from there on. */
	if (c->body_streams && shb_h2_pump(c) < 0)
		return SHB_E_NOMEM;
	return SHB_OK;
}

int shb_h2_end_rst_stream(struct shb_h2_conn *c)
{
	uint32_t id = c->rd.fh.stream_id, code = get32(c->rd.small);
	struct shb_h2_stream *s = shb_h2_stream_find(c, id);

	if (!s)
		return shb_h2_unknown_stream(c, id);
	shb_h2_peer_ended(c, s, 1);
	if (code == SHB_H2_REFUSED_STREAM) {
		/* The peer did not process it: the core sends it again. */
		shb_h2_stream_finish(c, s, SHB_REQ_REFUSED, code,
				     "stream refused by the server");
		return SHB_OK;
	}
	snprintf(c->detail_buf, sizeof(c->detail_buf),
		 "h2: stream reset by the server (%s)",
		 shb_h2_error_name(code));
	shb_h2_stream_finish(c, s, SHB_REQ_RESET, code, c->detail_buf);
	return SHB_OK;
}

int shb_h2_end_goaway(struct shb_h2_conn *c)
{
	uint32_t last = get32(c->rd.small) & SHB_H2_MAX_STREAM_ID;
	uint32_t code = get32(c->rd.small + 4);
	const struct shb_host *host = c->mod->host;

	c->goaway_rcvd = 1;
	c->draining = 1;
	c->goaway_last_id = last;
	c->goaway_code = code;
	if (c->mod->debug)
		shb_h2_trace(c, "GOAWAY last stream %u, %s%s%s", last,
			     shb_h2_error_name(code),
			     c->goaway_debug_len ? ": " : "", c->goaway_debug);
	/* Streams above the line were never processed: they go back to the
	 * core to be sent again elsewhere. */
	for (uint32_t k = 0; k <= c->slot_mask; k++) {
		struct shb_h2_stream *s = &c->streams[k];

		if (s->id > last)
			shb_h2_stream_finish(c, s, SHB_REQ_REFUSED, code,
					     "stream above the server's GOAWAY");
	}
	if (host->conn_event) {
		struct shb_conn_event ev = {
			.struct_size = sizeof(ev),
			.kind = SHB_CEV_GOAWAY,
			.err_space = SHB_ERRSPACE_H2,
			.err_code = code,
			.last_accepted = last,
			.detail = c->goaway_debug_len ? c->goaway_debug : NULL,
		};
		host->conn_event(c->handle, &ev);
	}
	c->goaway_debug_len = 0;
	return SHB_OK;
}

int shb_h2_end_window_update(struct shb_h2_conn *c)
{
	uint32_t id = c->rd.fh.stream_id;
	uint32_t inc = get32(c->rd.small) & SHB_H2_MAX_WINDOW;
	struct shb_h2_stream *s = NULL;

	if (id == 0) {
		if (inc == 0)
			return shb_h2_conn_error(c, SHB_H2_PROTOCOL_ERROR,
						 "connection WINDOW_UPDATE of 0");
		c->send_window += inc;
		if (c->send_window > (int64_t)SHB_H2_MAX_WINDOW)
			return shb_h2_conn_error(c, SHB_H2_FLOW_CONTROL_ERROR,
						 "connection window above 2^31-1");
	} else {
		s = shb_h2_stream_find(c, id);
		if (!s)
			return shb_h2_unknown_stream(c, id);
		if (inc == 0)
			return shb_h2_stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
						   "stream WINDOW_UPDATE of 0");
		s->send_window += inc;
		if (s->send_window > (int64_t)SHB_H2_MAX_WINDOW)
			return shb_h2_stream_error(c, s, SHB_H2_FLOW_CONTROL_ERROR,
						   "stream window above 2^31-1");
	}
	return c->body_streams ? shb_h2_pump(c) : SHB_OK;
}
