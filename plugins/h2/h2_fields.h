/* The decoded fields of one header block, collected only for an observer
 * of the org.shb.h2.proto/1 extension (shb/ext/h2.h): the scanner
 * (h2_hscan.h) appends every field as it decodes it, and the connection
 * hands them to the observer once the block was accepted.
 *
 * Records are laid out back to back in one buffer that grows as needed and
 * is reused for every block of the connection: name length and value
 * length (4 octets each, host order), then the name and the value octets.
 * The buffer is bounded by the scanner's caps: a block's decoded list is
 * at most SHB_H2_HSCAN_MAX_LIST octets and its wire size at most
 * SHB_H2_MAX_BLOCK_BYTES, so one block never holds more than about
 * 2 x 256 KiB plus 8 octets per field. */
#ifndef SHB_H2_FIELDS_H
#define SHB_H2_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#define SHB_H2_FIELDS_REC 8u /* the two lengths before each record */

struct shb_h2_fields {
	uint8_t *p;
	size_t len, cap;
	uint32_t count; /* complete records */
	size_t rec;      /* offset of the record being built */
	size_t str;      /* offset of the string being collected */
	size_t name_len; /* of the record being built, once its name is in */
};

/* Forgets every record (keeps the memory). */
void shb_h2_fields_reset(struct shb_h2_fields *f);
void shb_h2_fields_free(struct shb_h2_fields *f);

/* Room for n more octets at the end, or NULL when memory ran out; the
 * caller then adds n to f->len for what it wrote. */
uint8_t *shb_h2_fields_room(struct shb_h2_fields *f, size_t n);
/* Appends p[n]; 0, or -1 when memory ran out. */
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
