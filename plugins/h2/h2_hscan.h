/* The response header block scanner: walks an HPACK block fed in pieces
 * of any size (HEADERS and CONTINUATION payloads, split anywhere), finds
 * :status and measures and skips every other field.
 *
 * shb advertises SETTINGS_HEADER_TABLE_SIZE 0, so the peer's encoder has
 * no dynamic table: any reference into it, or a size update above 0, is a
 * compression error, and decoding needs no state across blocks. */
#ifndef SHB_H2_HSCAN_H
#define SHB_H2_HSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "http_prefint.h"

enum shb_h2_hscan_result {
	SHB_H2_HSCAN_OK = 0,
	SHB_H2_HSCAN_E_INDEX0 = -1,      /* index 0 */
	SHB_H2_HSCAN_E_DYNAMIC = -2,     /* dynamic table reference */
	SHB_H2_HSCAN_E_SIZE_UPDATE = -4, /* above 0, or after a field */
	SHB_H2_HSCAN_E_INTEGER = -5,     /* integer out of range */
	SHB_H2_HSCAN_E_TRUNCATED = -6,   /* block ends inside a field */
};

struct shb_h2_hscan {
	uint8_t state;
	uint8_t target;  /* what the integer being read is */
	uint8_t part;    /* name or value string */
	uint8_t huffman; /* the current string is Huffman-coded */
	uint8_t is_status; /* the current field is :status */
	uint8_t fields;  /* a field was seen: size updates are too late */
	uint8_t multi_status; /* :status appeared more than once */
	uint8_t collected;    /* octets of the string kept in sbuf */
	uint8_t too_long;     /* the string did not fit in sbuf */
	uint8_t sbuf[8];
	uint32_t field_count; /* fields in the block */
	struct shb_prefint num;
	uint64_t left; /* string octets still to come */
	int status;    /* 0 none yet, -1 malformed, else 100..999 */
};

/* Starts a new block. */
void shb_h2_hscan_begin(struct shb_h2_hscan *s);

/* Feeds the next piece of the block: SHB_H2_HSCAN_OK or an error, after
 * which the scanner must not be fed again. */
int shb_h2_hscan_feed(struct shb_h2_hscan *s, const uint8_t *p, size_t n);

/* The block ended (END_HEADERS): SHB_H2_HSCAN_OK when it ended between
 * fields, else SHB_H2_HSCAN_E_TRUNCATED. */
int shb_h2_hscan_end(const struct shb_h2_hscan *s);

/* After end(): 0 when the block had no :status (trailers), -1 when
 * :status was malformed (not three digits, or repeated), else the code. */
int shb_h2_hscan_status(const struct shb_h2_hscan *s);

/* Static text for an error. */
const char *shb_h2_hscan_strerror(int err);

#endif
