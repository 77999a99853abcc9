/* The decoded fields of one header block, collected only for an observer
 * of the org.shb.h2.proto/1 extension (shb/ext/h2.h): the scanner
 * (h2_hscan.h) appends every field as it decodes it, and the connection
 * hands them to the observer once the block was accepted.
 *
 * Records are laid out back to back in one buffer that grows as needed and
 * is reused for every block of the connection: name length and value
 * length (4 octets each, host order), then the name and the value octets.
 * The buffer is bounded by the scanner's caps: a block's decoded list is
 * at most SHB_H2_HSCAN_MAX_LIST octets (32 of them per field, so at most
 * 8192 records of 8 octets) and its wire size at most
 * SHB_H2_MAX_BLOCK_BYTES, plus a Huffman string's decoding room (8/5 of
 * its octets): under 1 MiB. SHB_H2_FIELDS_MAX, twice that, is the
 * buffer's own cap (common/buf.h), a backstop should those caps change. */
#ifndef SHB_H2_FIELDS_H
#define SHB_H2_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define SHB_H2_FIELDS_REC 8u /* the two lengths before each record */
#define SHB_H2_FIELDS_MAX ((size_t)2 << 20)

/* Zero-initialise it; reset (shb_h2_hscan_collect calls it) sets up the
 * buffer's cap. */
struct shb_h2_fields {
	struct shb_buf b; /* the records */
	uint32_t count; /* complete records */
	size_t rec;      /* offset of the record being built */
	size_t str;      /* offset of the string being collected */
	size_t name_len; /* of the record being built, once its name is in */
};

/* Forgets every record (keeps the memory) and any buffer error. */
void shb_h2_fields_reset(struct shb_h2_fields *f);
void shb_h2_fields_free(struct shb_h2_fields *f);

/* Room for n more octets at the end, or NULL when memory ran out or the
 * cap was reached; the caller then adds what it wrote to f->b.len. */
uint8_t *shb_h2_fields_room(struct shb_h2_fields *f, size_t n);
/* Appends p[n]; 0, or -1 when memory ran out or the cap was reached. */
int shb_h2_fields_add(struct shb_h2_fields *f, const void *p, size_t n);

/* Starts a record; 0 or -1. */
int shb_h2_fields_begin(struct shb_h2_fields *f);
/* A string's octets follow (shb_h2_fields_add); str_end decodes them in
 * place when they are Huffman-coded: 0, -1 when memory ran out, -2 for a
 * bad Huffman string. */
void shb_h2_fields_str_begin(struct shb_h2_fields *f);
int shb_h2_fields_str_end(struct shb_h2_fields *f, int huffman);
/* Everything added since begin is the name; what follows is the value. */
void shb_h2_fields_name_done(struct shb_h2_fields *f);
/* The record is complete. */
void shb_h2_fields_end(struct shb_h2_fields *f);

/* The record at *off (start with 0): fills name, value and lengths and
 * advances *off; 0 when there is no record left. */
int shb_h2_fields_next(const struct shb_h2_fields *f, size_t *off,
		       const uint8_t **name, size_t *nlen,
		       const uint8_t **value, size_t *vlen);

#endif
