/* HTTP/3 frame headers (RFC 9114 Section 7.1): a varint type and a varint
 * payload length, read from stream bytes split anywhere, and written. */
#ifndef SHB_H3_FRAME_H
#define SHB_H3_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "h3_varint.h"

/* Longest frame header: two 8-octet varints. */
#define SHB_H3_FRAME_HEADER_MAX 16

/* A frame header being read. Zero-initialised it waits for a type. */
struct shb_h3_fhead {
	struct shb_h3_varint vi;
	uint64_t type;
	uint8_t have_type;
};

/* Consumes octets of in[len] until the header is complete. Returns the
 * octets used; *done is 1 when *type and *length are set (the reader is
 * then ready for the next header), else 0 and all of in[] was used. */
size_t shb_h3_fhead_feed(struct shb_h3_fhead *h, const uint8_t *in,
			 size_t len, uint64_t *type, uint64_t *length,
			 int *done);

/* True when part of a header was read (a stream ending now would
 * truncate a frame). */
static inline int shb_h3_fhead_started(const struct shb_h3_fhead *h)
{
	return h->have_type || shb_h3_varint_started(&h->vi);
}

/* Writes a frame header into out[cap]; returns its length, or 0 when cap
 * is too small or a value is above 2^62 - 1. */
size_t shb_h3_frame_header_encode(uint8_t *out, size_t cap, uint64_t type,
				  uint64_t length);

#endif
