/* Response header blocks (h2_recv_headers.c), called by the frame reader
 * (h2_recv.c) at the start, the content and the end of each HEADERS and
 * CONTINUATION frame. Each returns SHB_OK, or what ending the connection
 * or resetting the stream returned. */
#ifndef SHB_H2_RECV_HEADERS_H
#define SHB_H2_RECV_HEADERS_H

#include <stddef.h>
#include <stdint.h>

#include "h2_conn.h"

/* A HEADERS frame's header: opens a header block. */
int shb_h2_begin_headers_checked(struct shb_h2_conn *c,
				 const struct shb_h2_frame_header *h);

/* The same, inline in the reader for most HEADERS frames: a head on an
 * open stream of a connection that decodes no fields (no observer, no
 * kept response), where it comes down to counting the frame and opening
 * the block. Any other goes to shb_h2_begin_headers_checked. */
static inline int shb_h2_begin_headers(struct shb_h2_conn *c,
				       const struct shb_h2_frame_header *h)
{
	struct shb_h2_stream *s = shb_h2_stream_find(c, h->stream_id);

	if (!s || c->mod->observed || c->keep)
		return shb_h2_begin_headers_checked(c, h);
	if (!s->ts_first_byte)
		s->ts_first_byte = c->now;
	s->rx_header_bytes += SHB_H2_FRAME_HEADER_LEN + h->length;
	c->hb_unstarted = 1;
	c->hb_bytes = h->length;
	c->hb_frames = 1;
	c->hb_stream = s;
	c->hb_end_stream = (h->flags & SHB_H2_FLAG_END_STREAM) != 0;
	c->hb_sid = h->stream_id;
	return SHB_OK;
}
/* A CONTINUATION frame's header: the block's frame and octet caps. */
int shb_h2_begin_continuation(struct shb_h2_conn *c,
			      const struct shb_h2_frame_header *h);
/* A header block the scanner refused: the connection error it makes. */
int shb_h2_hscan_error(struct shb_h2_conn *c, uint32_t sid, int rc);

/* Block fragment octets, to the scanner. Inline: a head's one piece
 * goes straight to the scanner from the reader. */
static inline int shb_h2_headers_content(struct shb_h2_conn *c,
					 const uint8_t *p, size_t n)
{
	int rc;

	if (c->hb_unstarted) {
		c->hb_unstarted = 0;
		rc = shb_h2_hscan_start(&c->hscan, &c->dtable, &c->hmemo, p, n);
	} else {
		rc = shb_h2_hscan_feed(&c->hscan, p, n);
	}
	return rc == SHB_H2_HSCAN_OK ? SHB_OK
				     : shb_h2_hscan_error(c, c->hb_sid, rc);
}
/* The end of a HEADERS or CONTINUATION frame: with END_HEADERS, the
 * complete block for its stream. */
int shb_h2_end_header_checked(struct shb_h2_conn *c);

/* The same, inline in the reader for most blocks: a well-formed final
 * head, its body to follow, on an open stream of a connection that
 * decodes no fields, where it comes down to noting the status. Any
 * other goes to shb_h2_end_header_checked. */
static inline int shb_h2_end_header_fragment(struct shb_h2_conn *c)
{
	struct shb_h2_stream *s = c->hb_stream;
	int status = shb_h2_hscan_status(&c->hscan);

	if (!(c->rd.fh.flags & SHB_H2_FLAG_END_HEADERS) || c->hb_unstarted ||
	    !s || s->got_final || c->hb_end_stream ||
	    shb_h2_hscan_end(&c->hscan) != SHB_H2_HSCAN_OK ||
	    c->hscan.malformed || status < 200 || c->keep || c->mod->observed)
		return shb_h2_end_header_checked(c);
	c->hb_sid = 0;
	s->got_final = 1;
	s->status = (uint16_t)status;
	return SHB_OK;
}

#endif
