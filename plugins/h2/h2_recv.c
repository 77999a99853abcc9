/* Input: the incremental frame reader and the handling of every frame the
 * peer can send (RFC 9113 Section 6). Connection errors end the
 * connection with one message; stream errors reset just that stream. */
#include <stdio.h>
#include <string.h>

#include "h2_conn.h"

/* ---- helpers ---------------------------------------------------------------- */

static const char *const settings_names[] = {
	"?", "HEADER_TABLE_SIZE", "ENABLE_PUSH", "MAX_CONCURRENT_STREAMS",
	"INITIAL_WINDOW_SIZE", "MAX_FRAME_SIZE", "MAX_HEADER_LIST_SIZE",
};

const uint32_t shb_h2_flood_caps[SHB_H2_FLOOD_KINDS] = {
	[SHB_H2_FLOOD_PING] = 10000,
	[SHB_H2_FLOOD_SETTINGS] = 1000,
	[SHB_H2_FLOOD_RST_STREAM] = 10000,
	[SHB_H2_FLOOD_EMPTY_DATA] = 1000,
	[SHB_H2_FLOOD_WINDOW_UPDATE] = 1000,
};

_Static_assert(SHB_H2_MAX_INTERIM == 16, "block_done names the cap");

static const char *const flood_names[SHB_H2_FLOOD_KINDS] = {
	"PING", "SETTINGS", "RST_STREAM", "empty DATA",
	"WINDOW_UPDATE (with no DATA of ours to update)",
};

/* Counts one frame of `kind` in the current second (RFC 9113 Section
 * 10.5: an endpoint may treat too many as ENHANCE_YOUR_CALM). */
static int flood(struct shb_h2_conn *c, enum shb_h2_flood kind)
{
	uint32_t cap = shb_h2_flood_caps[kind];

	if (c->now < c->flood_start ||
	    c->now - c->flood_start >= SHB_H2_FLOOD_INTERVAL) {
		memset(c->flood, 0, sizeof(c->flood));
		c->flood_start = c->now;
	}
	if (++c->flood[kind] <= cap)
		return SHB_OK;
	return shb_h2_conn_error(c, SHB_H2_ENHANCE_YOUR_CALM,
				 "peer flood: more than %u %s frames in a second (cap %u)",
				 cap, flood_names[kind], cap);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* A malformed response or a stream-level protocol violation: reset the
 * stream and report the request as a protocol error. */
static int stream_error(struct shb_h2_conn *c, struct shb_h2_stream *s,
			uint32_t code, const char *why)
{
	int rc = shb_h2_send_rst_stream(c, s->id, code);

	if (c->mod->debug)
		shb_h2_trace(c, "stream %u: %s", s->id, why);
	shb_h2_stream_finish(c, s, SHB_REQ_PROTO_ERROR, code, why);
	return rc;
}

/* The peer ended stream s: remembered for a while (see late_frame). A
 * stream whose request body we still send is reset by us right after, and
 * frames already on their way for it are then no fault of the peer. */
static void peer_ended(struct shb_h2_conn *c, const struct shb_h2_stream *s,
		       int reset)
{
	if (s->body_pending)
		return;
	c->peer_ended[c->peer_ended_next++ % SHB_H2_PEER_ENDED] =
		s->id | (reset ? 0x80000000u : 0);
}

/* Observed modules: the request ends on the observer's word (a negative
 * on_field or on_data) as a protocol error. A stream the peer has not
 * ended, or whose request body we still send, is reset (CANCEL); one it
 * ended (`ended`: the block had END_STREAM) is closed already. Returns
 * what sending the reset did. */
static int observer_stop(struct shb_h2_conn *c, struct shb_h2_stream *s,
			 int ended)
{
	int reset = !ended || s->body_pending, rc = SHB_OK;

	if (ended)
		peer_ended(c, s, 0);
	if (reset)
		rc = shb_h2_send_rst_stream(c, s->id, SHB_H2_CANCEL);
	if (c->mod->debug)
		shb_h2_trace(c, "stream %u: stopped by the observer", s->id);
	shb_h2_stream_finish(c, s, SHB_REQ_PROTO_ERROR,
			     reset ? SHB_H2_CANCEL : SHB_H2_NO_ERROR,
			     "h2: the response was refused by the protocol on top of HTTP/2");
	return rc;
}

/* DATA or HEADERS on a stream the peer ended: after its END_STREAM a
 * connection error, after its RST_STREAM a stream error (RFC 9113 5.1).
 * Returns 1 when handled (rc in *rc), 0 for an id not remembered. */
static int late_frame(struct shb_h2_conn *c, uint32_t id, int *rc)
{
	const char *type = shb_h2_frame_type_name(c->rd.fh.type);

	for (uint32_t k = 0; k < SHB_H2_PEER_ENDED; k++) {
		uint32_t e = c->peer_ended[k];
		if (e == id) {
			*rc = shb_h2_conn_error(c, SHB_H2_STREAM_CLOSED,
						"%s on stream %u after its END_STREAM",
						type, id);
			return 1;
		}
		if (e == (id | 0x80000000u)) {
			*rc = shb_h2_send_rst_stream(c, id, SHB_H2_STREAM_CLOSED);
			return 1;
		}
	}
	return 0;
}

/* A frame on a stream id that is not open: frames for streams we ended
 * are dropped; anything on an id we never used is a protocol error. */
static int unknown_stream(struct shb_h2_conn *c, uint32_t id)
{
	if (shb_h2_stream_used_id(c, id))
		return SHB_OK;
	return shb_h2_conn_error(c, SHB_H2_PROTOCOL_ERROR,
				 "%s on stream %u, which we never opened",
				 shb_h2_frame_type_name(c->rd.fh.type), id);
}

/* ---- frame start: validation that needs only the header ----------------- */

static int begin_data(struct shb_h2_conn *c, const struct shb_h2_frame_header *h)
{
	struct shb_h2_stream *s;

	if (h->stream_id == 0)
		return shb_h2_conn_error(c, SHB_H2_PROTOCOL_ERROR,
					 "DATA on stream 0");
	if (h->length == 0 && !(h->flags & SHB_H2_FLAG_END_STREAM) &&
	    flood(c, SHB_H2_FLOOD_EMPTY_DATA) < 0)
		return SHB_E_PROTO;
	/* Flow control counts the whole payload, padding included. */
	c->recv_window -= h->length;
	if (c->recv_window < 0)
		return shb_h2_conn_error(c, SHB_H2_FLOW_CONTROL_ERROR,
					 "DATA beyond the connection window");
	if (c->recv_window <= (int64_t)(SHB_H2_RECV_WINDOW - SHB_H2_WINDOW_REFILL)) {
		int rc = shb_h2_send_window_update(
			c, 0, (uint32_t)(SHB_H2_RECV_WINDOW - c->recv_window));

		if (rc < 0)
			return rc;
		c->recv_window = SHB_H2_RECV_WINDOW;
	}
	s = shb_h2_stream_find(c, h->stream_id);
	if (!s) {
		int rc;
		if (late_frame(c, h->stream_id, &rc))
			return rc;
		return unknown_stream(c, h->stream_id);
	}
	if (!s->got_final)
		return stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
				    "DATA before the response headers");
	s->recv_used += h->length;
	if (s->recv_used > SHB_H2_RECV_WINDOW)
		return stream_error(c, s, SHB_H2_FLOW_CONTROL_ERROR,
				    "DATA beyond the stream window");
	if (s->recv_used >= SHB_H2_WINDOW_REFILL) {
		int rc = shb_h2_send_window_update(c, s->id,
						   (uint32_t)s->recv_used);

		if (rc < 0)
			return rc;
		s->recv_used = 0;
	}
	c->rd.st = s;
	return SHB_OK;
}

static int begin_headers(struct shb_h2_conn *c,
			 const struct shb_h2_frame_header *h)
{
	struct shb_h2_stream *s;

	if (h->stream_id == 0 || (h->stream_id & 1) == 0)
		return shb_h2_conn_error(c, SHB_H2_PROTOCOL_ERROR,
					 "HEADERS on stream %u", h->stream_id);
	s = shb_h2_stream_find(c, h->stream_id);
	if (!s) {
		int rc;

		if (late_frame(c, h->stream_id, &rc) && rc < 0)
			return rc;
		rc = unknown_stream(c, h->stream_id);
		if (rc < 0)
			return rc;
	} else {
		if (!s->ts_first_byte)
			s->ts_first_byte = c->now;
		s->rx_header_bytes += SHB_H2_FRAME_HEADER_LEN + h->length;
	}
	/* The block is decoded even for a stream we dropped: it must still
	 * be a valid HPACK block, and it may change the dynamic table that
	 * later blocks refer to. */
	shb_h2_hscan_begin(&c->hscan, &c->dtable);
	if (c->mod->observed)
		shb_h2_hscan_collect(&c->hscan, &c->fields);
	c->hb_bytes = h->length;
	c->hb_frames = 1;
	c->hb_stream = s;
	c->hb_end_stream = (h->flags & SHB_H2_FLAG_END_STREAM) != 0;
	c->hb_sid = h->stream_id;
	return SHB_OK;
}

static int begin_continuation(struct shb_h2_conn *c,
			      const struct shb_h2_frame_header *h)
{
	/* One that belongs to an open block passed the check in
	 * begin_frame. */
	if (c->hb_sid == 0)
		return shb_h2_conn_error(c, SHB_H2_PROTOCOL_ERROR,
					 "CONTINUATION without HEADERS");
	/* Endless CONTINUATION, empty or not, must end. */
	if (++c->hb_frames > SHB_H2_MAX_BLOCK_FRAMES)
		return shb_h2_conn_error(c, SHB_H2_ENHANCE_YOUR_CALM,
					 "stream %u: header block in more than %u frames (cap %u)",
					 c->hb_sid, SHB_H2_MAX_BLOCK_FRAMES,
					 SHB_H2_MAX_BLOCK_FRAMES);
	c->hb_bytes += h->length;
	if (c->hb_bytes > SHB_H2_MAX_BLOCK_BYTES)
		return shb_h2_conn_error(c, SHB_H2_ENHANCE_YOUR_CALM,
					 "stream %u: header block of more than %u octets (cap %u)",
					 c->hb_sid, SHB_H2_MAX_BLOCK_BYTES,
					 SHB_H2_MAX_BLOCK_BYTES);
	if (c->hb_stream)
		c->hb_stream->rx_header_bytes +=
			SHB_H2_FRAME_HEADER_LEN + h->length;
	return SHB_OK;
}

static int need_len(struct shb_h2_conn *c, const struct shb_h2_frame_header *h,
		    uint32_t len, int on_stream)
{
	if (on_stream ? h->stream_id == 0 : h->stream_id != 0)
		return shb_h2_conn_error(c, SHB_H2_PROTOCOL_ERROR,
					 "%s on stream %u",
					 shb_h2_frame_type_name(h->type),
					 h->stream_id);
	if (h->length != len)
		return shb_h2_conn_error(c, SHB_H2_FRAME_SIZE_ERROR,
					 "%s with length %u",
					 shb_h2_frame_type_name(h->type),
					 h->length);
	return SHB_OK;
}

static int begin_settings(struct shb_h2_conn *c,
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
	if (flood(c, SHB_H2_FLOOD_SETTINGS) < 0)
		return SHB_E_PROTO;
	/* The first SETTINGS replaces our guess; without the setting the
	 * peer allows any number of streams. */
	if (!c->got_settings)
		c->peer_max_streams = UINT32_MAX;
	return SHB_OK;
}

static int begin_frame(struct shb_h2_conn *c)
{
	const struct shb_h2_frame_header *h = &c->rd.fh;

	if (c->mod->debug)
		shb_h2_trace(c, "recv %s stream %u len %u flags 0x%02x",
			     shb_h2_frame_type_name(h->type), h->stream_id,
			     h->length, h->flags);
	if (!c->got_settings &&
	    (h->type != SHB_H2_SETTINGS || (h->flags & SHB_H2_FLAG_ACK)))
		return shb_h2_conn_error(
			c, SHB_H2_PROTOCOL_ERROR,
			"the server's first frame is %s, not SETTINGS",
			h->type == SHB_H2_SETTINGS
				? "SETTINGS ACK"
				: shb_h2_frame_type_name(h->type));
	/* We never raise SETTINGS_MAX_FRAME_SIZE above its initial value. */
	if (h->length > SHB_H2_MIN_FRAME_SIZE)
		return shb_h2_conn_error(c, SHB_H2_FRAME_SIZE_ERROR,
					 "%s of %u octets (limit %u)",
					 shb_h2_frame_type_name(h->type),
					 h->length, SHB_H2_MIN_FRAME_SIZE);
	if (c->hb_sid &&
	    (h->type != SHB_H2_CONTINUATION || h->stream_id != c->hb_sid))
		return shb_h2_conn_error(
			c, SHB_H2_PROTOCOL_ERROR,
			"%s on stream %u inside the header block of stream %u",
			shb_h2_frame_type_name(h->type), h->stream_id,
			c->hb_sid);
	c->rd.st = NULL;
	c->rd.small_have = 0;
	switch (h->type) {
	case SHB_H2_DATA: return begin_data(c, h);
	case SHB_H2_HEADERS: return begin_headers(c, h);
	case SHB_H2_CONTINUATION: return begin_continuation(c, h);
	case SHB_H2_PRIORITY: return need_len(c, h, 5, 1);
	case SHB_H2_RST_STREAM:
		if (need_len(c, h, 4, 1) < 0)
			return SHB_E_PROTO;
		return flood(c, SHB_H2_FLOOD_RST_STREAM);
	case SHB_H2_SETTINGS: return begin_settings(c, h);
	case SHB_H2_PUSH_PROMISE:
		return shb_h2_conn_error(c, SHB_H2_PROTOCOL_ERROR,
					 "PUSH_PROMISE, but push is disabled");
	case SHB_H2_PRIORITY_UPDATE:
		return shb_h2_conn_error(c, SHB_H2_PROTOCOL_ERROR,
					 "PRIORITY_UPDATE from the server "
					 "(RFC 9218 7.1: only clients send it)");
	case SHB_H2_PING:
		if (need_len(c, h, 8, 0) < 0)
			return SHB_E_PROTO;
		if (h->flags & SHB_H2_FLAG_ACK)
			return SHB_OK;
		return flood(c, SHB_H2_FLOOD_PING);
	case SHB_H2_GOAWAY:
		if (h->length < 8)
			return shb_h2_conn_error(c, SHB_H2_FRAME_SIZE_ERROR,
						 "GOAWAY with length %u",
						 h->length);
		return need_len(c, h, h->length, 0);
	case SHB_H2_WINDOW_UPDATE:
		if (h->length != 4)
			return shb_h2_conn_error(c, SHB_H2_FRAME_SIZE_ERROR,
						 "WINDOW_UPDATE with length %u",
						 h->length);
		/* Updates matter only to DATA we send. */
		return c->data_sent ? SHB_OK
				    : flood(c, SHB_H2_FLOOD_WINDOW_UPDATE);
	default:
		return SHB_OK; /* unknown types are ignored (Section 5.5) */
	}
}

/* ---- frame content --------------------------------------------------------- */

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

/* Gathers the fixed part of a control frame into rd.small. */
static size_t gather(struct shb_h2_conn *c, const uint8_t *p, size_t n,
		     size_t want)
{
	size_t take = want - c->rd.small_have;

	if (take > n)
		take = n;
	memcpy(c->rd.small + c->rd.small_have, p, take);
	c->rd.small_have = (uint8_t)(c->rd.small_have + take);
	return take;
}

static int settings_content(struct shb_h2_conn *c, const uint8_t *p, size_t n)
{
	while (n) {
		size_t used = gather(c, p, n, SHB_H2_SETTINGS_ENTRY_LEN);

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

static void goaway_content(struct shb_h2_conn *c, const uint8_t *p, size_t n)
{
	size_t used = gather(c, p, n, 8);

	/* Debug data: kept for the error message, printable only. */
	for (p += used, n -= used; n; p++, n--)
		if (c->goaway_debug_len + 1u < sizeof(c->goaway_debug))
			c->goaway_debug[c->goaway_debug_len++] =
				(*p >= 0x20 && *p < 0x7f) ? (char)*p : '?';
	c->goaway_debug[c->goaway_debug_len] = '\0';
}

/* A header block the scanner refused: a decoding error, or a cap. */
static int hscan_error(struct shb_h2_conn *c, uint32_t sid, int rc)
{
	uint32_t code = SHB_H2_COMPRESSION_ERROR;

	if (rc == SHB_H2_HSCAN_E_LIST_SIZE)
		code = SHB_H2_ENHANCE_YOUR_CALM;
	else if (rc == SHB_H2_HSCAN_E_NOMEM)
		code = SHB_H2_INTERNAL_ERROR;
	return shb_h2_conn_error(c, code,
				 "stream %u: %s", sid,
				 shb_h2_hscan_strerror(rc));
}

static int content(struct shb_h2_conn *c, const uint8_t *p, size_t n)
{
	switch (c->rd.fh.type) {
	case SHB_H2_DATA:
		if (c->rd.st) {
			struct shb_h2_stream *s = c->rd.st;

			s->rx_body_bytes += n;
			if (c->mod->obs.on_data && n &&
			    c->mod->obs.on_data(c->handle, s->cookie, p, n) < 0)
				return observer_stop(c, s, 0);
		}
		return SHB_OK;
	case SHB_H2_HEADERS:
	case SHB_H2_CONTINUATION: {
		int rc = shb_h2_hscan_feed(&c->hscan, p, n);

		return rc == SHB_H2_HSCAN_OK ? SHB_OK
					     : hscan_error(c, c->hb_sid, rc);
	}
	case SHB_H2_SETTINGS:
		return settings_content(c, p, n);
	case SHB_H2_GOAWAY:
		goaway_content(c, p, n);
		return SHB_OK;
	case SHB_H2_PING:
		gather(c, p, n, 8);
		return SHB_OK;
	case SHB_H2_RST_STREAM:
	case SHB_H2_WINDOW_UPDATE:
		gather(c, p, n, 4);
		return SHB_OK;
	default:
		return SHB_OK;
	}
}

/* ---- frame end --------------------------------------------------------------- */

static int end_data(struct shb_h2_conn *c)
{
	struct shb_h2_stream *s = c->rd.st;

	if (s && (c->rd.fh.flags & SHB_H2_FLAG_END_STREAM)) {
		peer_ended(c, s, 0);
		shb_h2_stream_finish(c, s, SHB_REQ_OK, 0, NULL);
	}
	return SHB_OK;
}

/* Observed modules: the fields of an accepted block, in order. Returns 1
 * when the observer stopped the stream (then *rc is what stopping did),
 * else 0. */
static int observe_block(struct shb_h2_conn *c, struct shb_h2_stream *s,
			 uint32_t flags, int end_stream, int *rc)
{
	const uint8_t *name, *value;
	size_t off = 0, nlen, vlen;

	if (!c->mod->obs.on_field)
		return 0;
	while (shb_h2_fields_next(&c->fields, &off, &name, &nlen, &value, &vlen))
		if (c->mod->obs.on_field(c->handle, s->cookie,
					 (const char *)name, nlen, value, vlen,
					 flags) < 0) {
			*rc = observer_stop(c, s, end_stream);
			return 1;
		}
	return 0;
}

/* A complete header block for stream s (NULL: one we dropped). */
static int block_done(struct shb_h2_conn *c, struct shb_h2_stream *s,
		      int end_stream)
{
	int status = shb_h2_hscan_status(&c->hscan);
	const char *malformed = shb_h2_hscan_malformed(&c->hscan);
	int rc = SHB_OK;

	if (!s)
		return SHB_OK;
	if (s->got_final) { /* trailers */
		if (!end_stream)
			return stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
					    "header block after the response head without END_STREAM");
		if (status != 0)
			return stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
					    "a second response head (:status in trailers)");
		if (c->hscan.pseudo_seen)
			return stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
					    "pseudo-header field in trailers");
		if (malformed)
			return stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
					    malformed);
		if (c->mod->observed &&
		    observe_block(c, s, SHB_H2_FIELD_TRAILER, 1, &rc))
			return rc;
		peer_ended(c, s, 0);
		shb_h2_stream_finish(c, s, SHB_REQ_OK, 0, NULL);
		return SHB_OK;
	}
	/* RFC 9113 Section 8.1.1: a malformed response is a stream error. */
	if (malformed)
		return stream_error(c, s, SHB_H2_PROTOCOL_ERROR, malformed);
	if (status == 0)
		return stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
				    "response head without :status");
	if (status < 200) {
		/* Interim (100, 103): the final head is still to come;
		 * 101 has no meaning in HTTP/2. */
		if (end_stream || status == 101)
			return stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
					    "invalid interim response");
		if (++s->interim > SHB_H2_MAX_INTERIM)
			return stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
					    "more than 16 interim (1xx) responses (cap 16)");
		return SHB_OK;
	}
	s->got_final = 1;
	s->status = (uint16_t)status;
	if (c->mod->observed &&
	    observe_block(c, s, SHB_H2_FIELD_HEADER, end_stream, &rc))
		return rc;
	if (end_stream) {
		peer_ended(c, s, 0);
		shb_h2_stream_finish(c, s, SHB_REQ_OK, 0, NULL);
	}
	return SHB_OK;
}

static int end_header_fragment(struct shb_h2_conn *c)
{
	int rc;

	if (!(c->rd.fh.flags & SHB_H2_FLAG_END_HEADERS))
		return SHB_OK;
	c->hb_sid = 0;
	rc = shb_h2_hscan_end(&c->hscan);
	if (rc != SHB_H2_HSCAN_OK)
		return hscan_error(c, c->rd.fh.stream_id, rc);
	return block_done(c, c->hb_stream, c->hb_end_stream);
}

static int end_settings(struct shb_h2_conn *c)
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

static int end_rst_stream(struct shb_h2_conn *c)
{
	uint32_t id = c->rd.fh.stream_id, code = get32(c->rd.small);
	struct shb_h2_stream *s = shb_h2_stream_find(c, id);

	if (!s)
		return unknown_stream(c, id);
	peer_ended(c, s, 1);
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

static int end_goaway(struct shb_h2_conn *c)
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

static int end_window_update(struct shb_h2_conn *c)
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
			return unknown_stream(c, id);
		if (inc == 0)
			return stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
					    "stream WINDOW_UPDATE of 0");
		s->send_window += inc;
		if (s->send_window > (int64_t)SHB_H2_MAX_WINDOW)
			return stream_error(c, s, SHB_H2_FLOW_CONTROL_ERROR,
					    "stream window above 2^31-1");
	}
	return c->body_streams ? shb_h2_pump(c) : SHB_OK;
}

static int end_frame(struct shb_h2_conn *c)
{
	c->frames_in++;
	switch (c->rd.fh.type) {
	case SHB_H2_DATA: return end_data(c);
	case SHB_H2_HEADERS:
	case SHB_H2_CONTINUATION: return end_header_fragment(c);
	case SHB_H2_SETTINGS: return end_settings(c);
	case SHB_H2_PING:
		if (c->rd.fh.flags & SHB_H2_FLAG_ACK)
			return SHB_OK;
		return shb_h2_send_ping_ack(c, c->rd.small);
	case SHB_H2_RST_STREAM: return end_rst_stream(c);
	case SHB_H2_GOAWAY: return end_goaway(c);
	case SHB_H2_WINDOW_UPDATE: return end_window_update(c);
	default: return SHB_OK;
	}
}

/* ---- the reader -------------------------------------------------------------- */

/* After the header: how many prefix octets (pad length, priority) come
 * before the content. */
static int start_payload(struct shb_h2_conn *c)
{
	struct shb_h2_reader *r = &c->rd;
	uint8_t need = 0;

	if ((r->fh.type == SHB_H2_DATA || r->fh.type == SHB_H2_HEADERS) &&
	    (r->fh.flags & SHB_H2_FLAG_PADDED))
		need = 1;
	if (r->fh.type == SHB_H2_HEADERS && (r->fh.flags & SHB_H2_FLAG_PRIORITY))
		need += 5;
	if (r->fh.length < need)
		return shb_h2_conn_error(c, SHB_H2_FRAME_SIZE_ERROR,
					 "%s too short for its flags",
					 shb_h2_frame_type_name(r->fh.type));
	r->prefix_need = need;
	r->prefix_have = 0;
	r->payload_left = r->fh.length - need;
	r->pad_left = 0;
	r->phase = need ? SHB_H2_R_PREFIX : SHB_H2_R_PAYLOAD;
	return SHB_OK;
}

static int end_prefix(struct shb_h2_conn *c)
{
	struct shb_h2_reader *r = &c->rd;

	if (r->fh.flags & SHB_H2_FLAG_PADDED) {
		uint32_t pad = r->prefix[0];

		if (pad > r->payload_left)
			return shb_h2_conn_error(c, SHB_H2_PROTOCOL_ERROR,
						 "%s padding longer than the frame",
						 shb_h2_frame_type_name(r->fh.type));
		r->payload_left -= pad;
		r->pad_left = pad;
	}
	r->phase = SHB_H2_R_PAYLOAD;
	return SHB_OK;
}

/* Non-zero when the first octets of the connection are an HTTP/1 status
 * line: the server does not speak h2c on this port. */
static int looks_like_http1(const struct shb_h2_conn *c)
{
	return c->frames_in == 0 && c->rd.hdr_have >= 5 &&
	       memcmp(c->rd.hdr, "HTTP/", 5) == 0;
}

static size_t read_header(struct shb_h2_conn *c, const uint8_t *p, size_t n,
			  int *rc)
{
	struct shb_h2_reader *r = &c->rd;
	size_t take = SHB_H2_FRAME_HEADER_LEN - r->hdr_have;

	if (take > n)
		take = n;
	memcpy(r->hdr + r->hdr_have, p, take);
	r->hdr_have = (uint8_t)(r->hdr_have + take);
	if (looks_like_http1(c)) {
		*rc = shb_h2_conn_error(
			c, SHB_H2_PROTOCOL_ERROR,
			"the server answered in HTTP/1.x: it does not speak "
			"HTTP/2 over cleartext (h2c) on this port");
		return take;
	}
	if (r->hdr_have < SHB_H2_FRAME_HEADER_LEN)
		return take;
	r->hdr_have = 0;
	shb_h2_frame_header_parse(r->hdr, &r->fh);
	*rc = begin_frame(c);
	if (*rc == SHB_OK)
		*rc = start_payload(c);
	return take;
}

static size_t read_prefix(struct shb_h2_conn *c, const uint8_t *p, size_t n,
			  int *rc)
{
	struct shb_h2_reader *r = &c->rd;
	size_t take = (size_t)(r->prefix_need - r->prefix_have);

	if (take > n)
		take = n;
	memcpy(r->prefix + r->prefix_have, p, take);
	r->prefix_have = (uint8_t)(r->prefix_have + take);
	if (r->prefix_have == r->prefix_need)
		*rc = end_prefix(c);
	return take;
}

shb_ssize shb_h2_read(struct shb_h2_conn *c, const uint8_t *data, size_t len)
{
	struct shb_h2_reader *r = &c->rd;
	size_t off = 0;
	int rc = SHB_OK;

	while (rc == SHB_OK && !c->closed) {
		size_t left = len - off, take;

		/* A frame is complete once its content and padding are in;
		 * empty frames complete right after their header. */
		if (r->phase != SHB_H2_R_HEADER && r->phase != SHB_H2_R_PREFIX &&
		    r->payload_left == 0 && r->pad_left == 0) {
			r->phase = SHB_H2_R_HEADER;
			rc = end_frame(c);
			continue;
		}
		if (left == 0)
			break;
		/* Backpressure: between frames, stop while the peer has not
		 * taken the control frames it made us queue. */
		if (r->phase == SHB_H2_R_HEADER && r->hdr_have == 0 &&
		    shb_h2_ctrl_pending(c) >= SHB_H2_CTRL_SOFT)
			break;
		switch (r->phase) {
		case SHB_H2_R_HEADER:
			off += read_header(c, data + off, left, &rc);
			break;
		case SHB_H2_R_PREFIX:
			off += read_prefix(c, data + off, left, &rc);
			break;
		case SHB_H2_R_PAYLOAD:
			take = left < r->payload_left ? left : r->payload_left;
			if (take == 0) {
				r->phase = SHB_H2_R_PAD;
				break;
			}
			rc = content(c, data + off, take);
			r->payload_left -= (uint32_t)take;
			off += take;
			break;
		default: /* SHB_H2_R_PAD */
			take = left < r->pad_left ? left : r->pad_left;
			r->pad_left -= (uint32_t)take;
			off += take;
			break;
		}
	}
	return rc < 0 ? rc : (shb_ssize)off;
}
