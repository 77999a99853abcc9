/* HPACK (RFC 7541) as shb uses it: the static table, and the encoder of
 * request header blocks. The encoder never inserts into the dynamic table
 * and never Huffman-codes: every field is a static index, or a literal
 * without indexing that names a static entry when it can. */
#ifndef SHB_H2_HPACK_H
#define SHB_H2_HPACK_H

#include <stddef.h>
#include <stdint.h>

#define SHB_HPACK_STATIC_COUNT 61

/* Static table indices shb relies on by number. */
enum {
	SHB_HPACK_IDX_AUTHORITY = 1,
	SHB_HPACK_IDX_METHOD_GET = 2,
	SHB_HPACK_IDX_STATUS_200 = 8,
	SHB_HPACK_IDX_STATUS_500 = 14,
	SHB_HPACK_IDX_CONTENT_LENGTH = 28,
};

struct shb_hpack_static_entry {
	const char *name;
	const char *value; /* "" when the entry has no value */
	uint8_t name_len;  /* strlen(name) */
	uint8_t value_len; /* strlen(value) */
};

/* The table itself, index i at [i - 1]: for callers that checked i. */
extern const struct shb_hpack_static_entry
	shb_hpack_static_table[SHB_HPACK_STATIC_COUNT];

/* Index 1..61 -> entry, else NULL. */
const struct shb_hpack_static_entry *shb_hpack_static_get(uint64_t index);

/* The status of static index 8..14, else 0. */
int shb_hpack_static_status(uint64_t index);

/* Blocks are built in a struct shb_buf (common/buf.h): an append that
 * fails sets its sticky err, so a builder checks err once at the end. */
struct shb_buf;

/* Appends one field (name already lower-case): an indexed field for an
 * exact static match, else a literal without indexing with a static name
 * index when the name is in the table, else with a literal name. */
void shb_hpack_encode_field(struct shb_buf *b, const char *name,
			    size_t name_len, const char *value,
			    size_t value_len);

/* Appends a dynamic table size update to `size`. */
void shb_hpack_encode_size_update(struct shb_buf *b, uint64_t size);

#endif
