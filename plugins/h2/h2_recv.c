/* Input: the incremental frame reader, the checks every frame header
 * gets, DATA and PING, and the helpers the handlers of the other frames
 * share (RFC 9113 Section 6). Header blocks are handled in
 * h2_recv_headers.c, SETTINGS, RST_STREAM, GOAWAY and WINDOW_UPDATE in
 * h2_recv_ctrl.c. Connection errors end the connection with one message;
 * stream errors reset just that stream. */
#include <string.h>

#include "h2_conn.h"
#include "h2_recv.h"
#include "h2_recv_ctrl.h"
#include "h2_recv_headers.h"

/* ---- helpers ---------------------------------------------------------------- */

const uint32_t shb_h2_flood_caps[SHB_H2_FLOOD_KINDS] = {
	[SHB_H2_FLOOD_PING] = 10000,
	[SHB_H2_FLOOD_SETTINGS] = 1000,
	[SHB_H2_FLOOD_RST_STREAM] = 10000,
	[SHB_H2_FLOOD_EMPTY_DATA] = 1000,
	[SHB_H2_FLOOD_WINDOW_UPDATE] = 1000,
};

static const char *const flood_names[SHB_H2_FLOOD_KINDS] = {
	"PING", "SETTINGS", "RST_STREAM", "empty DATA",
	"WINDOW_UPDATE (with no DATA of ours to update)",
};

/* Counts one frame of `kind` in the current second (RFC 9113 Section
 * 10.5: an endpoint may treat too many as ENHANCE_YOUR_CALM). */
int shb_h2_flood_count(struct shb_h2_conn *c, enum shb_h2_flood kind)
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

/* A malformed response or a stream-level protocol violation: reset the
 * stream and report the request as a protocol error. */
int shb_h2_stream_error(struct shb_h2_conn *c, struct shb_h2_stream *s,
			uint32_t code, const char *why)
{
	int rc = shb_h2_send_rst_stream(c, s->id, code);

	if (c->mod->debug)
		shb_h2_trace(c, "stream %u: %s", s->id, why);
	shb_h2_stream_finish(c, s, SHB_REQ_PROTO_ERROR, code, why);
	return rc;
}

/* The peer ended stream s: remembered for a while (see
 * shb_h2_late_frame). A stream whose request body we still send is reset
 * by us right after, and frames already on their way for it are then no
 * fault of the peer. */
void shb_h2_peer_ended(struct shb_h2_conn *c, const struct shb_h2_stream *s,
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
int shb_h2_observer_stop(struct shb_h2_conn *c, struct shb_h2_stream *s,
			 int ended)
{
	int reset = !ended || s->body_pending, rc = SHB_OK;

	if (ended)
		shb_h2_peer_ended(c, s, 0);
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
int shb_h2_late_frame(struct shb_h2_conn *c, uint32_t id, int *rc)
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
int shb_h2_unknown_stream(struct shb_h2_conn *c, uint32_t id)
{
	if (shb_h2_stream_used_id(c, id))
		return SHB_OK;
	return shb_h2_conn_error(c, SHB_H2_PROTOCOL_ERROR,
				 "%s on stream %u, which we never opened",
				 shb_h2_frame_type_name(c->rd.fh.type), id);
}

/* ---- frame start: validation that needs only the header ----------------- */

/* begin_frame_as() (with begin_data), content_as() and end_frame_as()
 * are inlined into whole_frame, the step most frames take: a call each,
 * with the registers it saved and the switch behind it, was some 55
 * instructions of a response's two frames. */
#define SHB_H2_HOT static inline __attribute__((always_inline))

/* DATA: every check and update, in the order RFC 9113 gives them. */
static __attribute__((noinline)) int
data_checked(struct shb_h2_conn *c, const struct shb_h2_frame_header *h)
{
	const struct shb_h2_preface *pf = &c->mod->preface;
	struct shb_h2_stream *s;

	if (h->stream_id == 0)
		return shb_h2_conn_error(c, SHB_H2_PROTOCOL_ERROR,
					 "DATA on stream 0");
	if (h->length == 0 && !(h->flags & SHB_H2_FLAG_END_STREAM) &&
	    shb_h2_flood_count(c, SHB_H2_FLOOD_EMPTY_DATA) < 0)
		return SHB_E_PROTO;
	/* Flow control counts the whole payload, padding included. */
	c->recv_window -= h->length;
	if (c->recv_window < 0)
		return shb_h2_conn_error(c, SHB_H2_FLOW_CONTROL_ERROR,
					 "DATA beyond the connection window");
	if (c->recv_window <= (int64_t)pf->conn_low) {
		int rc = shb_h2_send_window_update(
			c, 0, (uint32_t)(pf->conn_window - c->recv_window));

		if (rc < 0)
			return rc;
		c->recv_window = pf->conn_window;
	}
	s = shb_h2_stream_find(c, h->stream_id);
	if (!s) {
		int rc;
		if (shb_h2_late_frame(c, h->stream_id, &rc))
			return rc;
		return shb_h2_unknown_stream(c, h->stream_id);
	}
	if (!s->got_final)
		return shb_h2_stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
					   "DATA before the response headers");
	s->recv_used += h->length;
	if (s->recv_used > pf->stream_window)
		return shb_h2_stream_error(c, s, SHB_H2_FLOW_CONTROL_ERROR,
					   "DATA beyond the stream window");
	if (s->recv_used >= pf->stream_refill) {
		int rc = shb_h2_send_window_update(c, s->id,
						   (uint32_t)s->recv_used);

		if (rc < 0)
			return rc;
		s->recv_used = 0;
	}
	c->rd.st = s;
	return SHB_OK;
}

/* Most DATA frames: a body on an open stream after its head, within
 * both windows and short of both points where we top them up. What
 * data_checked then does comes down to the two counts and the stream,
 * and only that is done here, inline; any other frame (stream 0 or
 * unknown, empty without END_STREAM, a window error or refill) goes
 * to data_checked before anything changed. */
SHB_H2_HOT int begin_data(struct shb_h2_conn *c,
			  const struct shb_h2_frame_header *h)
{
	const struct shb_h2_preface *pf = &c->mod->preface;
	struct shb_h2_stream *s = shb_h2_stream_find(c, h->stream_id);
	int64_t win = c->recv_window - (int64_t)h->length;

	/* conn_low <= conn_window and stream_refill <= stream_window: a
	 * frame short of the refills is inside the windows. */
	if (!s || !s->got_final ||
	    (h->length == 0 && !(h->flags & SHB_H2_FLAG_END_STREAM)) ||
	    win <= (int64_t)pf->conn_low ||
	    s->recv_used + h->length >= pf->stream_refill)
		return data_checked(c, h);
	c->recv_window = win;
	s->recv_used += h->length;
	c->rd.st = s;
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

SHB_H2_HOT int begin_frame_as(struct shb_h2_conn *c, uint8_t type)
{
	const struct shb_h2_frame_header *h = &c->rd.fh;

	if (c->mod->debug)
		shb_h2_trace(c, "recv %s stream %u len %u flags 0x%02x",
			     shb_h2_frame_type_name(type), h->stream_id,
			     h->length, h->flags);
	if (!c->got_settings &&
	    (type != SHB_H2_SETTINGS || (h->flags & SHB_H2_FLAG_ACK)))
		return shb_h2_conn_error(
			c, SHB_H2_PROTOCOL_ERROR,
			"the server's first frame is %s, not SETTINGS",
			type == SHB_H2_SETTINGS
				? "SETTINGS ACK"
				: shb_h2_frame_type_name(type));
	/* We never raise SETTINGS_MAX_FRAME_SIZE above its initial value. */
	if (h->length > SHB_H2_MIN_FRAME_SIZE)
		return shb_h2_conn_error(c, SHB_H2_FRAME_SIZE_ERROR,
					 "%s of %u octets (limit %u)",
					 shb_h2_frame_type_name(type),
					 h->length, SHB_H2_MIN_FRAME_SIZE);
	if (c->hb_sid &&
	    (type != SHB_H2_CONTINUATION || h->stream_id != c->hb_sid))
		return shb_h2_conn_error(
			c, SHB_H2_PROTOCOL_ERROR,
			"%s on stream %u inside the header block of stream %u",
			shb_h2_frame_type_name(type), h->stream_id,
			c->hb_sid);
	c->rd.st = NULL;
	c->rd.small_have = 0;
	switch (type) {
	case SHB_H2_DATA: return begin_data(c, h);
	case SHB_H2_HEADERS: return shb_h2_begin_headers(c, h);
	case SHB_H2_CONTINUATION: return shb_h2_begin_continuation(c, h);
	case SHB_H2_PRIORITY: return need_len(c, h, 5, 1);
	case SHB_H2_RST_STREAM:
		if (need_len(c, h, 4, 1) < 0)
			return SHB_E_PROTO;
		return shb_h2_flood_count(c, SHB_H2_FLOOD_RST_STREAM);
	case SHB_H2_SETTINGS: return shb_h2_begin_settings(c, h);
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
		return shb_h2_flood_count(c, SHB_H2_FLOOD_PING);
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
				    : shb_h2_flood_count(c, SHB_H2_FLOOD_WINDOW_UPDATE);
	default:
		return SHB_OK; /* unknown types are ignored (Section 5.5) */
	}
}

/* ---- frame content --------------------------------------------------------- */


/* Gathers the fixed part of a control frame into rd.small. */
size_t shb_h2_gather(struct shb_h2_conn *c, const uint8_t *p, size_t n,
		     size_t want)
{
	size_t take = want - c->rd.small_have;

	if (take > n)
		take = n;
	memcpy(c->rd.small + c->rd.small_have, p, take);
	c->rd.small_have = (uint8_t)(c->rd.small_have + take);
	return take;
}

SHB_H2_HOT int content_as(struct shb_h2_conn *c, uint8_t type, const uint8_t *p,
			  size_t n)
{
	switch (type) {
	case SHB_H2_DATA:
		if (c->rd.st) {
			struct shb_h2_stream *s = c->rd.st;

			s->rx_body_bytes += n;
			if (c->keep && n)
				shb_h2_keep_data(c, s, p, n);
			if (c->mod->obs.on_data && n &&
			    c->mod->obs.on_data(c->handle, s->cookie, p, n) < 0)
				return shb_h2_observer_stop(c, s, 0);
		}
		return SHB_OK;
	case SHB_H2_HEADERS:
	case SHB_H2_CONTINUATION:
		return shb_h2_headers_content(c, p, n);
	case SHB_H2_SETTINGS:
		return shb_h2_settings_content(c, p, n);
	case SHB_H2_GOAWAY:
		shb_h2_goaway_content(c, p, n);
		return SHB_OK;
	case SHB_H2_PING:
		shb_h2_gather(c, p, n, 8);
		return SHB_OK;
	case SHB_H2_RST_STREAM:
	case SHB_H2_WINDOW_UPDATE:
		shb_h2_gather(c, p, n, 4);
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
		shb_h2_peer_ended(c, s, 0);
		shb_h2_stream_finish(c, s, SHB_REQ_OK, 0, NULL);
	}
	return SHB_OK;
}

SHB_H2_HOT int end_frame_as(struct shb_h2_conn *c, uint8_t type)
{
	c->frames_in++;
	switch (type) {
	case SHB_H2_DATA: return end_data(c);
	case SHB_H2_HEADERS:
	case SHB_H2_CONTINUATION: return shb_h2_end_header_fragment(c);
	case SHB_H2_SETTINGS: return shb_h2_end_settings(c);
	case SHB_H2_PING:
		if (c->rd.fh.flags & SHB_H2_FLAG_ACK)
			return SHB_OK;
		return shb_h2_send_ping_ack(c, c->rd.small);
	case SHB_H2_RST_STREAM: return shb_h2_end_rst_stream(c);
	case SHB_H2_GOAWAY: return shb_h2_end_goaway(c);
	case SHB_H2_WINDOW_UPDATE: return shb_h2_end_window_update(c);
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

	/* A whole header in the input, after the first frame (whose first
	 * octets may be an HTTP/1 answer): read in place. */
	if (r->hdr_have == 0 && n >= SHB_H2_FRAME_HEADER_LEN &&
	    c->frames_in != 0) {
		shb_h2_frame_header_parse(p, &r->fh);
		*rc = begin_frame_as(c, r->fh.type);
		if (*rc == SHB_OK)
			*rc = start_payload(c);
		return SHB_H2_FRAME_HEADER_LEN;
	}
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
	*rc = begin_frame_as(c, r->fh.type);
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

/* The steps of a whole frame of `type` (its header parsed into rd.fh),
 * below: inlined for DATA and HEADERS apart, so that each of their
 * three steps is the code of its type, not a switch on it. */
SHB_H2_HOT size_t frame_as(struct shb_h2_conn *c, const uint8_t *p,
			   uint32_t len, int *rc, uint8_t type)
{
	struct shb_h2_reader *r = &c->rd;

	*rc = begin_frame_as(c, type);
	if (*rc != SHB_OK)
		return SHB_H2_FRAME_HEADER_LEN;
	r->prefix_need = 0;
	r->prefix_have = 0;
	r->pad_left = 0;
	r->payload_left = 0;
	r->phase = SHB_H2_R_PAYLOAD;
	if (c->closed)
		return SHB_H2_FRAME_HEADER_LEN;
	if (len) {
		*rc = content_as(c, type, p + SHB_H2_FRAME_HEADER_LEN, len);
		if (*rc != SHB_OK || c->closed)
			return SHB_H2_FRAME_HEADER_LEN + len;
	}
	r->phase = SHB_H2_R_HEADER;
	*rc = end_frame_as(c, type);
	return SHB_H2_FRAME_HEADER_LEN + len;
}

/* A whole frame in p[n], between frames (after the first, whose first
 * octets may be an HTTP/1 answer), without padding or priority: header,
 * content and end in one step, the steps the loop below would take one
 * a turn, leaving the reader as they would. Returns the octets taken, 0
 * (nothing done) for any other frame. */
static size_t whole_frame(struct shb_h2_conn *c, const uint8_t *p, size_t n,
			  int *rc)
{
	struct shb_h2_reader *r = &c->rd;
	uint32_t len;

	if (n < SHB_H2_FRAME_HEADER_LEN || c->frames_in == 0)
		return 0;
	len = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
	if (len > n - SHB_H2_FRAME_HEADER_LEN ||
	    ((p[3] == SHB_H2_DATA || p[3] == SHB_H2_HEADERS) &&
	     (p[4] & (SHB_H2_FLAG_PADDED | SHB_H2_FLAG_PRIORITY))))
		return 0;
	shb_h2_frame_header_parse(p, &r->fh);
	switch (p[3]) {
	case SHB_H2_DATA: return frame_as(c, p, len, rc, SHB_H2_DATA);
	case SHB_H2_HEADERS: return frame_as(c, p, len, rc, SHB_H2_HEADERS);
	default: return frame_as(c, p, len, rc, p[3]);
	}
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
			rc = end_frame_as(c, r->fh.type);
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
			take = r->hdr_have ? 0
					   : whole_frame(c, data + off, left, &rc);
			off += take ? take : read_header(c, data + off, left, &rc);
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
			rc = content_as(c, r->fh.type, data + off, take);
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
