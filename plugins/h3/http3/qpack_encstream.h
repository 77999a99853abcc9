/* The reader of the server's QPACK encoder stream (RFC 9204 Section 4.3),
 * Sans-I/O: the stream's ordered octets, split anywhere, change our
 * dynamic table (qpack_table.h).
 *
 * Instructions: Set Dynamic Table Capacity, Insert with Name Reference
 * (static or dynamic, relative to the inserts so far), Insert with
 * Literal Name, Duplicate. Names and values are stored decoded (Huffman
 * strings through plugins/common's decoder).
 *
 * Each of these is QPACK_ENCODER_STREAM_ERROR (a connection error): a
 * capacity above the one we announced, a static index above 98, a
 * dynamic reference to an entry not in the table, an entry larger than
 * the capacity, an integer above 2^62, a bad Huffman string, and a
 * string longer than the table limit we announced (no entry could hold
 * it: this caps what one instruction makes us buffer).
 *
 * Memory: two growable buffers, the current string's Huffman octets
 * (at most the limit) and the decoded name and value (at most three
 * times the limit), kept for reuse; freed by shb_qpack_encrd_fini. */
#ifndef SHB_QPACK_ENCSTREAM_H
#define SHB_QPACK_ENCSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "http_prefint.h"
#include "qpack_table.h"

struct shb_qpack_encrd {
	struct shb_prefint pi;
	struct shb_buf raw; /* the current Huffman string, as sent */
	struct shb_buf nv;  /* decoded name, then value */
	uint64_t str_left;  /* octets of the current string still to come */
	uint64_t inserts;   /* entries inserted by this reader */
	uint32_t name_len;  /* decoded name length, at the front of nv */
	uint8_t state, what, huffman, is_static;
	const char *detail; /* static reason once an error was returned */
};

/* Prepares a reader for a table of limit `limit` (no allocation). */
void shb_qpack_encrd_init(struct shb_qpack_encrd *r, uint32_t limit);
void shb_qpack_encrd_fini(struct shb_qpack_encrd *r);

/* Consumes in[len] (borrowed), the next octets of the encoder stream,
 * into table t. Returns the number of entries inserted (0 or more), or
 * -1 with r->detail set (QPACK_ENCODER_STREAM_ERROR; the reader must not
 * be fed again). */
long shb_qpack_encrd_feed(struct shb_qpack_encrd *r,
			  struct shb_qpack_table *t, const uint8_t *in,
			  size_t len);

#endif
