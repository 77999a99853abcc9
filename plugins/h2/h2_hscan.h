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
 * block of the connection must therefore be scanned, in order.
 *
 * Every Huffman string is checked (RFC 7541 Section 5.2: an EOS symbol
 * or bad padding is a decoding error, whether or not anyone reads the
 * string), and the block is checked for what makes a response malformed
 * (RFC 9113 Section 8.3): a pseudo-header other than :status, one after a
 * regular field, a repeated or bad :status, an uppercase field name. The
 * decoded header list size (names + values + 32 per field, Section 6.5.2)
 * is capped at SHB_H2_HSCAN_MAX_LIST.
 *
 * What servers send most, one-octet indexed fields and literals with an
 * indexed name, is taken a whole field at a time when it lies in one
 * piece and nothing is collected: the same checks without a round of
 * the octet-by-octet state machine per part, which takes the rest. A
 * Huffman value equal to one of the last few valid ones (struct
 * shb_h2_hmemo) takes the length measured then, and a block equal to
 * the last one kept there, on a table where it reads the same, takes the
 * scanner's state after it and makes its table inserts again. */
#ifndef SHB_H2_HSCAN_H
#define SHB_H2_HSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "h2_dtable.h"
#include "h2_fields.h"
#include "http_huffman.h"
#include "http_prefint.h"

#define SHB_H2_HMEMO_SLOTS 4u
#define SHB_H2_HMEMO_MAX 32u /* longest string kept, on the wire */
#define SHB_H2_BMEMO_MAX 64u     /* longest block piece kept, octets */
#define SHB_H2_BMEMO_INSERTS 4u  /* most table inserts of a kept piece */
struct shb_h2_hmemo;

/* A table insert of the block, as the scanner made it. */
struct shb_h2_hins {
	uint64_t size;
	uint32_t name_len;
	int16_t status;
	uint8_t name_kind;
};

enum shb_h2_hscan_result {
	SHB_H2_HSCAN_OK = 0,
	SHB_H2_HSCAN_E_INDEX0 = -1,      /* index 0 */
	SHB_H2_HSCAN_E_INDEX = -2,       /* beyond the dynamic table */
	SHB_H2_HSCAN_E_SIZE_LATE = -3,   /* size update after a field */
	SHB_H2_HSCAN_E_SIZE_UPDATE = -4, /* size update above our limit */
	SHB_H2_HSCAN_E_INTEGER = -5,     /* integer out of range */
	SHB_H2_HSCAN_E_TRUNCATED = -6,   /* block ends inside a field */
	SHB_H2_HSCAN_E_HUFFMAN = -7,     /* Huffman string with EOS or bad padding */
	SHB_H2_HSCAN_E_LIST_SIZE = -8,   /* header list above SHB_H2_HSCAN_MAX_LIST */
	SHB_H2_HSCAN_E_NOMEM = -9,       /* collecting fields: out of memory */
};

/* The largest decoded header list we take in one block (response head or
 * trailers): far above what servers send, far below what hurts. */
#define SHB_H2_HSCAN_MAX_LIST (256u * 1024u)

/* Why a well-encoded block is a malformed response (first reason found). */
enum shb_h2_hscan_malformed {
	SHB_H2_HSCAN_M_NONE = 0,
	SHB_H2_HSCAN_M_STATUS_VALUE, /* :status not three digits 100..999 */
	SHB_H2_HSCAN_M_STATUS_DUP,   /* :status more than once */
	SHB_H2_HSCAN_M_PSEUDO,       /* a pseudo-header other than :status */
	SHB_H2_HSCAN_M_PSEUDO_LATE,  /* a pseudo-header after a regular field */
	SHB_H2_HSCAN_M_UPPERCASE,    /* a field name with an uppercase letter */
};

/* struct shb_h2_hscan's state between two fields (the others are the
 * scanner's own). */
#define SHB_H2_HSCAN_ST_FIELD 0

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
	uint8_t oversize;     /* the field is larger than the table */
	uint8_t upper;        /* the plain name has an uppercase letter */
	uint8_t name_kind;    /* enum shb_h2_name_kind of the current field */
	uint8_t regular_seen; /* a regular field was seen in the block */
	uint8_t pseudo_seen;  /* a pseudo-header was seen in the block */
	uint8_t malformed;    /* enum shb_h2_hscan_malformed, first reason */
	uint8_t sbuf[8];
	uint32_t field_count; /* fields in the block */
	uint32_t name_len;    /* decoded name length of an indexed field */
	uint64_t ent_len;     /* decoded octets of an indexed field so far */
	uint64_t str_len;     /* the current string's length on the wire */
	uint64_t field_size;  /* decoded name + value of the current field */
	uint64_t list_size;   /* decoded header list size of the block so far */
	struct shb_prefint num;
	struct shb_huff_count hc;
	uint64_t left; /* string octets still to come */
	int status;    /* 0 none yet, -1 malformed, else 100..999 */
	struct shb_h2_fields *out; /* decoded fields go here, or NULL */
	struct shb_h2_hmemo *memo; /* the connection's, or NULL */
	/* For the block memo (struct shb_h2_hmemo): what the block did to
	 * and read from the table. */
	uint8_t fed;      /* a piece was fed */
	uint8_t dyn_read; /* an entry of the dynamic table was read */
	uint8_t resized;  /* a size update */
	uint8_t n_ins;    /* inserts (saturating; logged up to the cap) */
	struct shb_h2_hins ins[SHB_H2_BMEMO_INSERTS];
};

/* For the scanner, if the connection lends it one (shb_h2_hscan_memo).
 * Zero-initialise it; it stays with the connection.
 *
 * The last few Huffman-coded values it measured in one piece, valid ones
 * only, with their decoded lengths. Servers repeat most of theirs
 * (server, content-type, the date for a second), and an equal string has
 * the same length and validity: it needs no second walk through its
 * codes.
 *
 * And the last block whose first piece was scanned from the block's
 * start without error, ending between fields (most blocks: one HEADERS
 * frame): its octets and the scanner after it. Servers send the same
 * head block for response after response (h2o: indexed fields only;
 * HAProxy: the same literals with indexing). The scanner's state after a
 * piece depends on its octets and on the table only through the table's
 * maximum and, if the piece referred to a dynamic entry, the entries: so
 * an equal piece, with the same maximum and, when it read the table, the
 * same table (its generation), leaves the same state, and the table the
 * same after its inserts are made again. A piece that resized the table,
 * made more than SHB_H2_BMEMO_INSERTS inserts, or was collected for an
 * observer is not kept. */
struct shb_h2_hmemo {
	uint8_t len[SHB_H2_HMEMO_SLOTS]; /* octets on the wire; 0: empty */
	uint8_t dec[SHB_H2_HMEMO_SLOTS]; /* decoded: at most 32 * 8 / 5 */
	uint8_t next;                    /* the slot the next one takes */
	uint8_t octets[SHB_H2_HMEMO_SLOTS][SHB_H2_HMEMO_MAX];
	uint32_t blen;     /* the kept piece's octets; 0: none */
	uint64_t bgen;     /* the table's generation before it */
	uint32_t bmax;     /* the table's maximum then */
	uint64_t bhits;    /* pieces taken from it (for tests) */
	uint8_t block[SHB_H2_BMEMO_MAX];
	struct shb_h2_hscan after; /* the scanner after it */
};

/* Starts a new block that reads and updates `table`. */
void shb_h2_hscan_begin(struct shb_h2_hscan *s, struct shb_h2_dtable *table);

/* After begin(): also decode every field of the block into `fields`
 * (reset first), for an observer. The table must keep its octets
 * (shb_h2_dtable_keep_octets) from its first block on, so that indexed
 * fields can be read back. */
void shb_h2_hscan_collect(struct shb_h2_hscan *s, struct shb_h2_fields *fields);

/* After begin(): values of the block may be measured with `memo`
 * (the connection's, zeroed at its start, kept for all its blocks). */
void shb_h2_hscan_memo(struct shb_h2_hscan *s, struct shb_h2_hmemo *memo);

/* Feeds the next piece of the block: SHB_H2_HSCAN_OK or an error, after
 * which the scanner (and its table) must not be used again. */
int shb_h2_hscan_feed(struct shb_h2_hscan *s, const uint8_t *p, size_t n);

/* begin(), memo() and feed() of the block's first piece in one, for a
 * block not collected: the same result and state, but a piece the block
 * memo takes costs no reset of the scanner first (a repeated head is
 * most blocks, and the reset was a third of its cost). */
int shb_h2_hscan_start(struct shb_h2_hscan *s, struct shb_h2_dtable *table,
		       struct shb_h2_hmemo *memo, const uint8_t *p, size_t n);

/* These three are inline: every response block ends with them, and they
 * were three calls into this file for a load and a compare each. */

/* The block ended (END_HEADERS): SHB_H2_HSCAN_OK when it ended between
 * fields, else SHB_H2_HSCAN_E_TRUNCATED. */
static inline int shb_h2_hscan_end(const struct shb_h2_hscan *s)
{
	return s->state == SHB_H2_HSCAN_ST_FIELD ? SHB_H2_HSCAN_OK
						 : SHB_H2_HSCAN_E_TRUNCATED;
}

/* After end(): 0 when the block had no :status (trailers), -1 when
 * :status was malformed (not three digits, or repeated), else the code. */
static inline int shb_h2_hscan_status(const struct shb_h2_hscan *s)
{
	return s->multi_status ? -1 : s->status;
}

/* Static text for an enum shb_h2_hscan_malformed, NULL for none. */
const char *shb_h2_hscan_malformed_text(unsigned why);

/* After end(): NULL for a well-formed response block, else static text
 * saying why it is malformed. */
static inline const char *shb_h2_hscan_malformed(const struct shb_h2_hscan *s)
{
	return s->malformed ? shb_h2_hscan_malformed_text(s->malformed) : NULL;
}

/* Static text for an error. */
const char *shb_h2_hscan_strerror(int err);

#endif
