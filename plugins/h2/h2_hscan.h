/* The response header block scanner: walks an HPACK block fed in pieces
 * of any size (HEADERS and CONTINUATION payloads, split anywhere), finds
 * :status and measures and skips every other field.
 *
 * shb keeps the default SETTINGS_HEADER_TABLE_SIZE (4096), so the peer's
 * encoder may index response fields. The scanner keeps the connection's
 * dynamic table in step (h2_dtable.h) from lengths alone: a field with
 * incremental indexing adds an entry of its decoded size (Huffman-coded
 * strings are counted, not decoded), size updates evict, and references
 * into the table resolve to the entry's :status, if it has one. Every
 * block of the connection must therefore be scanned, in order. */
#ifndef SHB_H2_HSCAN_H
#define SHB_H2_HSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "h2_dtable.h"
#include "http_huffman.h"
#include "http_prefint.h"

enum shb_h2_hscan_result {
	SHB_H2_HSCAN_OK = 0,
	SHB_H2_HSCAN_E_INDEX0 = -1,      /* index 0 */
	SHB_H2_HSCAN_E_INDEX = -2,       /* beyond the dynamic table */
	SHB_H2_HSCAN_E_SIZE_LATE = -3,   /* size update after a field */
	SHB_H2_HSCAN_E_SIZE_UPDATE = -4, /* size update above our limit */
	SHB_H2_HSCAN_E_INTEGER = -5,     /* integer out of range */
	SHB_H2_HSCAN_E_TRUNCATED = -6,   /* block ends inside a field */
	SHB_H2_HSCAN_E_HUFFMAN = -7,     /* bad Huffman string being indexed */
};

struct shb_h2_hscan {
	struct shb_h2_dtable *table; /* the connection's, outlives the block */
	uint8_t state;
	uint8_t target;  /* what the integer being read is */
	uint8_t part;    /* name or value string */
	uint8_t huffman; /* the current string is Huffman-coded */
	uint8_t is_status; /* the current field is :status */
	uint8_t fields;  /* a field was seen: size updates are too late */
	uint8_t multi_status; /* :status appeared more than once */
	uint8_t collected;    /* octets of the string kept in sbuf */
	uint8_t too_long;     /* the string did not fit in sbuf */
	uint8_t indexing;     /* the field goes into the table at its end */
	uint8_t counting;     /* the string's Huffman code is being counted */
	uint8_t oversize;     /* the field is larger than the table */
	uint8_t sbuf[8];
	uint32_t field_count; /* fields in the block */
	uint32_t name_len;    /* decoded name length of an indexed field */
	uint64_t ent_len;     /* decoded octets of an indexed field so far */
	struct shb_prefint num;
	struct shb_huff_count hc;
	uint64_t left; /* string octets still to come */
	int status;    /* 0 none yet, -1 malformed, else 100..999 */
};

/* Starts a new block that reads and updates `table`. */
void shb_h2_hscan_begin(struct shb_h2_hscan *s, struct shb_h2_dtable *table);

/* Feeds the next piece of the block: SHB_H2_HSCAN_OK or an error, after
 * which the scanner (and its table) must not be used again. */
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
