/* A QPACK field section decoder (RFC 9204), streaming: with no table
 * (shb_qpack_dec_begin) for a client that advertised a dynamic table
 * capacity of 0, or over the connection's dynamic table
 * (shb_qpack_dec_begin_table, qpack_table.h).
 *
 * It decodes the :status pseudo-header and checks every other field line
 * without keeping it: names and values are measured and skipped, Huffman
 * strings only counted (shb_huff_count: no symbol is stored), so input
 * may arrive split at any octet and a section is never buffered whatever
 * its size. The decoder keeps only the few facts it needs (at most 8
 * octets of a name or value that may be ":status" or its value).
 *
 * Accepted representations (RFC 9204 Section 4.5):
 *  - prefix: without a table, Required Insert Count 0 (anything else
 *    cannot come from an encoder that respects capacity 0) and Delta
 *    Base with sign 0 (sign 1 would make Base negative); with a table,
 *    any Required Insert Count that decodes (Section 4.5.1.1) and a Base
 *    that is not negative;
 *  - Indexed Field Line, static (T=1), index 0..98;
 *  - Literal Field Line with static Name Reference, index 0..98, value
 *    plain or Huffman-coded;
 *  - Literal Field Line with Literal Name, name and value plain or
 *    Huffman-coded.
 *  - with a table, the dynamic forms as well: Indexed Field Line and
 *    Literal with Name Reference relative to Base (T=0), and both
 *    post-base forms; each must name an entry below the Required Insert
 *    Count that is still in the table.
 * Without a table a dynamic reference (T=0) or either post-base
 * representation is QPACK_DECOMPRESSION_FAILED (a connection error), as
 * are, always, a static index above 98, an integer above 2^62, a string
 * running past the section's end, or a section ending inside a line.
 *
 * Blocked sections (Section 2.1.2): when the Required Insert Count is
 * above the inserts the table has seen, feed returns BLOCKED having
 * consumed d->used octets of its input (the prefix's first integer); the
 * caller keeps the rest, calls shb_qpack_dec_resume once t->inserted >=
 * d->ric and, unless that ended the section, feeds the rest again.
 *
 * Every Huffman string is checked (RFC 7541 Section 5.2, which QPACK
 * follows): an EOS symbol inside it or bad padding is also
 * QPACK_DECOMPRESSION_FAILED.
 *
 * :status comes from static entries 24-28 and 63-71, from a literal with
 * a name reference to one of them, or from a literal name ":status" (plain
 * or Huffman-coded); its value must be three digits 100..999. A response
 * section is malformed (H3_MESSAGE_ERROR, a stream error, RFC 9114
 * Sections 4.2 and 4.3) when :status is bad or repeated, when it holds a
 * request or unknown pseudo-header, a pseudo-header after a regular field,
 * or a field name with an uppercase letter. A malformed section is still
 * decoded to its end (a QPACK error later in it is a connection error);
 * the first reason is reported.
 *
 * The decoded size (RFC 9114 Section 4.2.2: name + value + 32 octets per
 * line) is capped at SHB_QPACK_DEC_MAX_SECTION, which shb advertises as
 * SETTINGS_MAX_FIELD_SECTION_SIZE: beyond it the section is refused at
 * once (SHB_QPACK_DEC_E_SIZE).
 *
 * Use: shb_qpack_dec_begin(&d, section_len), then shb_qpack_dec_feed()
 * with consecutive pieces of the section, until it returns DONE (all
 * section_len octets consumed) or an error. */
#ifndef SHB_QPACK_DEC_H
#define SHB_QPACK_DEC_H

#include <stddef.h>
#include <stdint.h>

#include "http_huffman.h"
#include "http_prefint.h"

/* Largest decoded field section accepted, octets (as HTTP/2's header
 * list cap); per line 32 octets count on top of name and value. */
#define SHB_QPACK_DEC_MAX_SECTION (256u * 1024u)
#define SHB_QPACK_DEC_LINE_OVERHEAD 32u

enum shb_qpack_dec_rc {
	SHB_QPACK_DEC_MORE = 0,       /* all input consumed, section goes on */
	SHB_QPACK_DEC_DONE = 1,       /* the section ended, well-formed */
	SHB_QPACK_DEC_BLOCKED = 2,    /* waits for inserts: see above */
	SHB_QPACK_DEC_E_CONN = -1,    /* QPACK_DECOMPRESSION_FAILED */
	SHB_QPACK_DEC_E_MESSAGE = -2, /* H3_MESSAGE_ERROR */
	SHB_QPACK_DEC_E_SIZE = -3,    /* above SHB_QPACK_DEC_MAX_SECTION */
};

struct shb_qpack_table;

/* Plain data (about 160 bytes); the table is borrowed. */
struct shb_qpack_dec {
	uint64_t left;     /* section octets not yet consumed */
	uint64_t str_left; /* octets of the current name or value to skip */
	uint64_t str_len;  /* length of the current name or value */
	uint64_t size;     /* decoded size of the lines so far (Section 4.2.2) */
	uint64_t name_len; /* private: decoded length of the current name */
	struct shb_prefint pi;
	struct shb_huff_count hc; /* private: the current Huffman string */
	uint32_t lines;   /* field lines decoded so far */
	uint16_t status;  /* :status of this section, 0 if none (yet) */
	uint8_t pseudo;   /* a pseudo-header line was decoded (any kind) */
	uint8_t state;    /* private */
	uint8_t what;     /* private: what the integer being read is */
	uint8_t flags;    /* private */
	uint8_t got;      /* private: octets kept in buf */
	uint8_t seen;     /* private: kinds of lines seen */
	uint8_t buf[8];   /* private: head of a possible :status name/value */
	const char *malformed; /* private: first reason the section is malformed */
	const char *detail; /* static reason once an error was returned */
	const struct shb_qpack_table *table; /* NULL: static table only */
	uint64_t ric;  /* Required Insert Count, once the prefix was read */
	uint64_t base; /* private */
	size_t used;   /* octets of the last feed consumed, when BLOCKED */
	uint8_t blocked; /* private */
};

/* Starts a section of section_len octets (the HEADERS frame payload). A
 * zero-length section is malformed: the first feed (even of nothing)
 * then fails. */
void shb_qpack_dec_begin(struct shb_qpack_dec *d, uint64_t section_len);
/* The same over dynamic table t (borrowed for the section; NULL: no
 * table). */
void shb_qpack_dec_begin_table(struct shb_qpack_dec *d, uint64_t section_len,
			       const struct shb_qpack_table *t);

/* After BLOCKED: the decoder goes on when the table has d->ric inserts.
 * Returns BLOCKED (not yet), MORE (feed the rest), or what the end of
 * the section gives when all of it came before it blocked (DONE or an
 * error). */
int shb_qpack_dec_resume(struct shb_qpack_dec *d);

/* Consumes in[len], which must not run past the section's end (len <=
 * d->left). Returns an enum shb_qpack_dec_rc; after an error, or BLOCKED
 * until resumed, the decoder must not be fed again. d->status is final once DONE was returned; a
 * section with d->ric > 0 then needs a Section Acknowledgment. */
int shb_qpack_dec_feed(struct shb_qpack_dec *d, const uint8_t *in,
		       size_t len);

#endif
