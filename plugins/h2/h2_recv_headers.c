/* Response header blocks: HEADERS and its CONTINUATION frames (the
 * block's caps, decoding through the scanner) and what a complete block
 * means for its stream: interim heads, the final head, trailers, the
 * checks RFC 9113 Section 8.1 asks for, and the observer of a module
 * layered on h2. Separate from h2_recv.c, the reader, because a block
 * spans frames and is the one place a response is judged malformed;
 * h2_recv.c calls it through h2_recv_headers.h. */
#include "h2_conn.h"
#include "h2_recv.h"
#include "h2_recv_headers.h"

_Static_assert(SHB_H2_MAX_INTERIM == 16, "block_done names the cap");

int shb_h2_begin_headers_checked(struct shb_h2_conn *c,
				 const struct shb_h2_frame_header *h)
{
	struct shb_h2_stream *s;

	if (h->stream_id == 0 || (h->stream_id & 1) == 0)
		return shb_h2_conn_error(c, SHB_H2_PROTOCOL_ERROR,
					 "HEADERS on stream %u", h->stream_id);
	s = shb_h2_stream_find(c, h->stream_id);
	if (!s) {
		int rc;

		if (shb_h2_late_frame(c, h->stream_id, &rc) && rc < 0)
			return rc;
		rc = shb_h2_unknown_stream(c, h->stream_id);
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
	c->hb_unstarted = !c->mod->observed && !c->keep;
	if (!c->hb_unstarted) {
		shb_h2_hscan_begin(&c->hscan, &c->dtable);
		shb_h2_hscan_memo(&c->hscan, &c->hmemo);
		shb_h2_hscan_collect(&c->hscan, &c->fields);
	}
	c->hb_bytes = h->length;
	c->hb_frames = 1;
	c->hb_stream = s;
	c->hb_end_stream = (h->flags & SHB_H2_FLAG_END_STREAM) != 0;
	c->hb_sid = h->stream_id;
	return SHB_OK;
}

int shb_h2_begin_continuation(struct shb_h2_conn *c,
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

/* A header block the scanner refused: a decoding error, or a cap. */
int shb_h2_hscan_error(struct shb_h2_conn *c, uint32_t sid, int rc)
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
			*rc = shb_h2_observer_stop(c, s, end_stream);
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
			return shb_h2_stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
						   "header block after the response head without END_STREAM");
		if (status != 0)
			return shb_h2_stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
						   "a second response head (:status in trailers)");
		if (c->hscan.pseudo_seen)
			return shb_h2_stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
						   "pseudo-header field in trailers");
		if (malformed)
			return shb_h2_stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
						   malformed);
		if (c->mod->observed &&
		    observe_block(c, s, SHB_H2_FIELD_TRAILER, 1, &rc))
			return rc;
		shb_h2_peer_ended(c, s, 0);
		shb_h2_stream_finish(c, s, SHB_REQ_OK, 0, NULL);
		return SHB_OK;
	}
	/* RFC 9113 Section 8.1.1: a malformed response is a stream error. */
	if (malformed)
		return shb_h2_stream_error(c, s, SHB_H2_PROTOCOL_ERROR, malformed);
	if (status == 0)
		return shb_h2_stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
					   "response head without :status");
	if (status < 200) {
		/* Interim (100, 103): the final head is still to come;
		 * 101 has no meaning in HTTP/2. */
		if (end_stream || status == 101)
			return shb_h2_stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
						   "invalid interim response");
		if (++s->interim > SHB_H2_MAX_INTERIM)
			return shb_h2_stream_error(c, s, SHB_H2_PROTOCOL_ERROR,
						   "more than 16 interim (1xx) responses (cap 16)");
		return SHB_OK;
	}
	s->got_final = 1;
	s->status = (uint16_t)status;
	if (c->keep)
		shb_h2_keep_head(c, s);
	if (c->mod->observed &&
	    observe_block(c, s, SHB_H2_FIELD_HEADER, end_stream, &rc))
		return rc;
	if (end_stream) {
		shb_h2_peer_ended(c, s, 0);
		shb_h2_stream_finish(c, s, SHB_REQ_OK, 0, NULL);
	}
	return SHB_OK;
}

int shb_h2_end_header_checked(struct shb_h2_conn *c)
{
	int rc;

	if (!(c->rd.fh.flags & SHB_H2_FLAG_END_HEADERS))
		return SHB_OK;
	c->hb_sid = 0;
	if (c->hb_unstarted) { /* a block without octets */
		c->hb_unstarted = 0;
		shb_h2_hscan_begin(&c->hscan, &c->dtable);
		shb_h2_hscan_memo(&c->hscan, &c->hmemo);
	}
	rc = shb_h2_hscan_end(&c->hscan);
	if (rc != SHB_H2_HSCAN_OK)
		return shb_h2_hscan_error(c, c->rd.fh.stream_id, rc);
	return block_done(c, c->hb_stream, c->hb_end_stream);
}
