/* Incremental decoder for a chunked request body (RFC 9112 section 7.1).
 * It only frames and counts: data bytes are skipped, extensions and
 * trailers are ignored. Feed it any split of the input. */
#ifndef SHB_HARNESS_CHUNKED_H
#define SHB_HARNESS_CHUNKED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct shb_hchunked {
	int state;
	int digits;       /* hex digits seen in the current size line */
	uint64_t left;    /* data bytes left in the current chunk */
	uint64_t body;    /* decoded body bytes so far */
	size_t line;      /* bytes in the current extension or trailer line */
};

void shb_hchunked_init(struct shb_hchunked *c);

/* Consumes bytes from data[0..len). Returns how many were consumed (all of
 * them unless the body ended inside the span, in which case *done is set
 * and the rest belongs to what follows the body), or -1 when the framing
 * is malformed. */
ssize_t shb_hchunked_feed(struct shb_hchunked *c, const uint8_t *data,
			  size_t len, int *done);

#endif
