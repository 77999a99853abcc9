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
int shb_h2_begin_headers(struct shb_h2_conn *c,
			 const struct shb_h2_frame_header *h);
/* A CONTINUATION frame's header: the block's frame and octet caps. */
int shb_h2_begin_continuation(struct shb_h2_conn *c,
			      const struct shb_h2_frame_header *h);
/* Block fragment octets, to the scanner. */
int shb_h2_headers_content(struct shb_h2_conn *c, const uint8_t *p,
			   size_t n);
/* The end of a HEADERS or CONTINUATION frame: with END_HEADERS, the
 * complete block for its stream. */
int shb_h2_end_header_fragment(struct shb_h2_conn *c);

#endif
