/* Output: two buffers (one handed to the transport until sent(), one
 * filling), the frames we write, and request bodies cut into DATA frames
 * as the peer's windows allow. See h2_conn.h. */
#include <stdlib.h>
#include <string.h>

#include "h2_conn.h"
#include "http_prefint.h"

/* ---- buffers ------------------------------------------------------------ */

void shb_h2_out_init(struct shb_h2_conn *c)
{
	/* Small first: a connection keeps its buffers, and every page
	 * written in them stays resident. */
	shb_buf_init(&c->out[0], 4096, SHB_H2_OUT_MAX);
	shb_buf_init(&c->out[1], 4096, SHB_H2_OUT_MAX);
}

uint8_t *shb_h2_out_reserve(struct shb_h2_conn *c, size_t n)
{
	/* Only the filling buffer moves: the other one may be in the
	 * kernel. */
	return shb_buf_room(&c->out[c->fill], n);
}

void shb_h2_out_commit(struct shb_h2_conn *c, size_t n)
{
	shb_buf_commit(&c->out[c->fill], n);
}

size_t shb_h2_out_pending(const struct shb_h2_conn *c)
{
	const struct shb_buf *busy = &c->out[c->fill ^ 1];

	return c->out[c->fill].len + (busy->len - c->sent_off);
}

void shb_h2_out_free(struct shb_h2_conn *c)
{
	shb_buf_free(&c->out[0]);
	shb_buf_free(&c->out[1]);
}

shb_ssize shb_h2_out_pull(struct shb_h2_conn *c, struct shb_vec *vecs,
			  size_t max)
{
	struct shb_buf *busy = &c->out[c->fill ^ 1];

	if (max == 0)
		return 0;
	if (busy->len == 0 && c->pump_more)
		(void)shb_h2_pump(c);
	if (busy->len == 0) {
		/* Swap: what filled since the last send goes out as one. */
		if (c->out[c->fill].len == 0)
			return 0;
		c->fill ^= 1;
		c->sent_off = 0;
		c->ctrl_busy = c->ctrl_fill;
		c->ctrl_fill = 0;
		busy = &c->out[c->fill ^ 1];
	}
	vecs[0].base = busy->p + c->sent_off;
	vecs[0].len = busy->len - c->sent_off;
	return 1;
}

void shb_h2_out_sent(struct shb_h2_conn *c, size_t n)
{
	struct shb_buf *busy = &c->out[c->fill ^ 1];
	size_t left = busy->len - c->sent_off;

	c->sent_off += n < left ? n : left;
	if (c->sent_off == busy->len) {
		busy->len = 0;
		c->sent_off = 0;
		c->ctrl_busy = 0;
	}
}

/* ---- frames --------------------------------------------------------------- */

static void trace_out(const struct shb_h2_conn *c, uint8_t type,
		      uint8_t flags, uint32_t sid, size_t len)
{
	if (c->mod->debug)
		shb_h2_trace(c, "send %s stream %u len %zu flags 0x%02x",
			     shb_h2_frame_type_name(type), sid, len, flags);
}

_Static_assert(SHB_H2_OUT_MAX == (size_t)64 << 20, "oom() names the cap");

/* The filling buffer refused an append: out of memory, or its cap. */
static int oom(struct shb_h2_conn *c)
{
	c->detail = c->out[c->fill].err == SHB_BUF_E_CAP
			    ? "h2: output buffer above its cap (64 MiB)"
			    : "h2: out of memory for the output buffer";
	c->closed = 1;
	return SHB_E_NOMEM;
}

int shb_h2_send_preface(struct shb_h2_conn *c)
{
	/* The profile's, written once at module_create (h2_profile.h). shb's
	 * own keeps SETTINGS_HEADER_TABLE_SIZE at its default (4096): a
	 * profile that announces more has a decoder table that large. */
	const struct shb_h2_preface *pf = &c->mod->preface;
	size_t n = pf->len;
	struct shb_buf *b = &c->out[c->fill];

	if (!shb_h2_out_reserve(c, n))
		return oom(c);
	/* Nothing may precede the preface (a SETTINGS ACK for a server
	 * that spoke first, say). */
	memmove(b->p + n, b->p, b->len);
	memcpy(b->p, pf->bytes, n);
	b->len += n;
	c->recv_window = pf->conn_window;
	if (c->mod->debug)
		shb_h2_trace(c, "send preface (profile %s): %s",
			     c->mod->prof->name, pf->fp);
	return SHB_OK;
}

/* Room for one control frame of n octets, or NULL with the connection
 * failed: out of memory, or SHB_H2_CTRL_HARD frames already waiting. */
static uint8_t *ctrl_reserve(struct shb_h2_conn *c, size_t n, int *rc)
{
	uint8_t *p;

	if (shb_h2_ctrl_pending(c) >= SHB_H2_CTRL_HARD) {
		*rc = shb_h2_conn_error(c, SHB_H2_ENHANCE_YOUR_CALM,
					"peer flood: more than %u control frames queued (cap %u)",
					SHB_H2_CTRL_HARD, SHB_H2_CTRL_HARD);
		return NULL;
	}
	p = shb_h2_out_reserve(c, n);
	if (!p) {
		*rc = oom(c);
		return NULL;
	}
	c->ctrl_fill++;
	return p;
}

int shb_h2_send_settings_ack(struct shb_h2_conn *c)
{
	int rc = SHB_OK;
	uint8_t *p = ctrl_reserve(c, SHB_H2_FRAME_HEADER_LEN, &rc);

	if (!p)
		return rc;
	shb_h2_out_commit(c, shb_h2_write_settings_ack(p));
	trace_out(c, SHB_H2_SETTINGS, SHB_H2_FLAG_ACK, 0, 0);
	return SHB_OK;
}

int shb_h2_send_ping_ack(struct shb_h2_conn *c, const uint8_t *data)
{
	int rc = SHB_OK;
	uint8_t *p = ctrl_reserve(c, SHB_H2_PING_LEN, &rc);

	if (!p)
		return rc;
	shb_h2_out_commit(c, shb_h2_write_ping(p, data, 1));
	trace_out(c, SHB_H2_PING, SHB_H2_FLAG_ACK, 0, 8);
	return SHB_OK;
}

int shb_h2_send_window_update(struct shb_h2_conn *c, uint32_t stream_id,
			      uint32_t increment)
{
	int rc = SHB_OK;
	uint8_t *p = ctrl_reserve(c, SHB_H2_WINDOW_UPDATE_LEN, &rc);

	if (!p)
		return rc;
	shb_h2_out_commit(c, shb_h2_write_window_update(p, stream_id, increment));
	trace_out(c, SHB_H2_WINDOW_UPDATE, 0, stream_id, 4);
	return SHB_OK;
}

int shb_h2_send_rst_stream(struct shb_h2_conn *c, uint32_t stream_id,
			   uint32_t code)
{
	int rc = SHB_OK;
	uint8_t *p = ctrl_reserve(c, SHB_H2_RST_STREAM_LEN, &rc);

	if (!p)
		return rc;
	shb_h2_out_commit(c, shb_h2_write_rst_stream(p, stream_id, code));
	trace_out(c, SHB_H2_RST_STREAM, 0, stream_id, 4);
	return SHB_OK;
}

int shb_h2_send_goaway(struct shb_h2_conn *c, uint32_t last_id, uint32_t code)
{
	uint8_t *p;

	if (c->goaway_sent || !c->ready)
		return SHB_OK;
	p = shb_h2_out_reserve(c, SHB_H2_GOAWAY_LEN);
	if (!p)
		return oom(c);
	shb_h2_out_commit(c, shb_h2_write_goaway(p, last_id, code));
	c->goaway_sent = 1;
	trace_out(c, SHB_H2_GOAWAY, 0, 0, 8);
	return SHB_OK;
}

/* Copies n octets from offset off of the concatenation upd || block. */
static void copy_block(uint8_t *dst, const uint8_t *upd, size_t upd_len,
		       const uint8_t *block, size_t off, size_t n)
{
	if (off < upd_len) {
		size_t a = upd_len - off < n ? upd_len - off : n;

		memcpy(dst, upd + off, a);
		dst += a;
		off += a;
		n -= a;
	}
	if (n)
		memcpy(dst, block + (off - upd_len), n);
}

int shb_h2_send_headers(struct shb_h2_conn *c, struct shb_h2_stream *s,
			const uint8_t *block, size_t block_len)
{
	uint8_t upd[8];
	size_t upd_len = 0, total, frames, off = 0, fsz = c->peer_max_frame;
	uint8_t end_stream = s->body_len ? 0 : SHB_H2_FLAG_END_STREAM;
	uint8_t *p;

	/* Most blocks: one frame, no size update to put first. */
	if (!c->size_update && block_len <= fsz) {
		p = shb_h2_out_reserve(c, SHB_H2_FRAME_HEADER_LEN + block_len);
		if (!p)
			return oom(c);
		shb_h2_out_commit(c, SHB_H2_FRAME_HEADER_LEN + block_len);
		p += shb_h2_frame_header_write(p, (uint32_t)block_len,
					       SHB_H2_HEADERS,
					       end_stream | SHB_H2_FLAG_END_HEADERS,
					       s->id);
		memcpy(p, block, block_len);
		trace_out(c, SHB_H2_HEADERS, end_stream | SHB_H2_FLAG_END_HEADERS,
			  s->id, block_len);
		return SHB_OK;
	}
	/* A lowered peer table is acknowledged at the start of the next
	 * block, once (RFC 7541 Section 4.2). */
	if (c->size_update)
		upd_len = shb_prefint_encode(upd, sizeof(upd), 5, 0x20,
					     c->enc_table_size);
	total = upd_len + block_len;
	frames = total > fsz ? (total + fsz - 1) / fsz : 1;
	p = shb_h2_out_reserve(c, total + frames * SHB_H2_FRAME_HEADER_LEN);
	if (!p)
		return oom(c);
	c->size_update = 0;
	shb_h2_out_commit(c, total + frames * SHB_H2_FRAME_HEADER_LEN);
	for (size_t i = 0; i < frames; i++) {
		size_t n = total - off < fsz ? total - off : fsz;
		uint8_t type = i ? SHB_H2_CONTINUATION : SHB_H2_HEADERS;
		uint8_t flags = i ? 0 : end_stream;

		if (i + 1 == frames)
			flags |= SHB_H2_FLAG_END_HEADERS;
		p += shb_h2_frame_header_write(p, (uint32_t)n, type, flags,
					       s->id);
		copy_block(p, upd, upd_len, block, off, n);
		p += n;
		off += n;
		trace_out(c, type, flags, s->id, n);
	}
	return SHB_OK;
}

/* Whether the server may act on PRIORITY_UPDATE (RFC 9218 2.1.1): a
 * client that does not know yet sends both signals; one whose server
 * did not send SETTINGS_NO_RFC7540_PRIORITIES = 1 stops sending frames
 * that are likely ignored, and keeps the header. */
static int prio_update_wanted(const struct shb_h2_conn *c)
{
	return !c->mod->no_prio_update && (!c->got_settings || c->peer_no_7540);
}

int shb_h2_send_priority_update(struct shb_h2_conn *c,
				const struct shb_h2_stream *s,
				const char *value, size_t len)
{
	uint8_t *p;

	if (!value || !prio_update_wanted(c) || len + 4 > c->peer_max_frame)
		return SHB_OK;
	p = shb_h2_out_reserve(c, SHB_H2_FRAME_HEADER_LEN + 4 + len);
	if (!p)
		return oom(c);
	shb_h2_out_commit(c, shb_h2_write_priority_update(p, s->id, value, len));
	trace_out(c, SHB_H2_PRIORITY_UPDATE, 0, 0, 4 + len);
	return SHB_OK;
}

/* ---- request bodies --------------------------------------------------------- */

/* Frames as much of s's body as the windows allow. Returns 1 when it
 * stopped at the pump limit, 0 otherwise, or a negative SHB_E_*. */
static int pump_stream(struct shb_h2_conn *c, struct shb_h2_stream *s)
{
	while (s->body_off < s->body_len && s->send_window > 0 &&
	       c->send_window > 0) {
		uint64_t n = s->body_len - s->body_off;
		uint8_t flags = 0, *p;

		if (c->out[c->fill].len >= SHB_H2_PUMP_LIMIT)
			return 1;
		if (n > (uint64_t)s->send_window)
			n = (uint64_t)s->send_window;
		if (n > (uint64_t)c->send_window)
			n = (uint64_t)c->send_window;
		if (n > c->peer_max_frame)
			n = c->peer_max_frame;
		if (s->body_off + n == s->body_len)
			flags = SHB_H2_FLAG_END_STREAM;
		p = shb_h2_out_reserve(c, SHB_H2_FRAME_HEADER_LEN + n);
		if (!p)
			return oom(c);
		shb_h2_frame_header_write(p, (uint32_t)n, SHB_H2_DATA, flags,
					  s->id);
		memcpy(p + SHB_H2_FRAME_HEADER_LEN, s->body + s->body_off, n);
		shb_h2_out_commit(c, SHB_H2_FRAME_HEADER_LEN + n);
		c->data_sent = 1;
		s->body_off += n;
		s->send_window -= (int64_t)n;
		c->send_window -= (int64_t)n;
		trace_out(c, SHB_H2_DATA, flags, s->id, n);
	}
	if (s->body_off == s->body_len) {
		s->body_pending = 0;
		c->body_streams--;
	}
	return 0;
}

int shb_h2_pump(struct shb_h2_conn *c)
{
	uint32_t nslots = c->slot_mask + 1;

	c->pump_more = 0;
	/* No DATA before the server's first SETTINGS: RFC 9113 lets us send
	 * 64 KiB - 1 per stream until then, but a server that lowers its
	 * initial window (Go's x/net with MaxUploadBufferPerStream) resets
	 * a stream that did. end_settings pumps once it arrives. */
	if (!c->got_settings)
		return SHB_OK;
	/* Round robin, so that one large body does not hold back the
	 * others when the connection window is the limit. */
	for (uint32_t i = 0; i < nslots && c->body_streams; i++) {
		uint32_t k = (c->pump_cursor + i) & c->slot_mask;
		struct shb_h2_stream *s = &c->streams[k];
		int rc;

		if (c->send_window <= 0)
			break;
		if (!s->id || !s->body_pending)
			continue;
		rc = pump_stream(c, s);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			c->pump_more = 1;
			c->pump_cursor = k;
			return SHB_OK;
		}
	}
	c->pump_cursor = (c->pump_cursor + 1) & c->slot_mask;
	return SHB_OK;
}
