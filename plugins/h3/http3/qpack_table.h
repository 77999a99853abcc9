/* The QPACK dynamic table of our decoder (RFC 9204 Sections 3.2 and
 * 4.5.1.1): the entries the server's encoder inserted, by absolute index,
 * with their octets, evicted oldest first to stay within the capacity the
 * encoder set, which never exceeds the one we announced.
 *
 * One table per connection, shared by both readers of field sections:
 * the streaming response scanner (qpack_dec.h) and the whole-section
 * field decoder of req_response (qpack_fields.h). Only the encoder stream
 * reader (qpack_encstream.h) changes it.
 *
 * Memory: nothing until the encoder sets a capacity above 0; then a ring
 * of entry slots (limit / 32 of them, a power of two) and the entries'
 * octets, name then value, one after the other in insertion order. The
 * octets buffer grows as entries arrive, to twice the limit at most: a
 * new entry that does not fit after the newest moves the live octets
 * (fewer than the limit) to the front, so each octet moves at most once
 * per limit octets inserted. Each entry's name and value stay contiguous,
 * so readers get plain pointers. */
#ifndef SHB_QPACK_TABLE_H
#define SHB_QPACK_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* The largest limit (our SETTINGS_QPACK_MAX_TABLE_CAPACITY). */
#define SHB_QPACK_TABLE_LIMIT_MAX 65536u
/* RFC 9204 Section 3.2.1: an entry's size is name + value + 32. */
#define SHB_QPACK_ENTRY_OVERHEAD 32u

/* What an entry's name is for a response (RFC 9114 Section 4.3). */
enum shb_qpack_name_kind {
	SHB_QPACK_NAME_REGULAR = 0,
	SHB_QPACK_NAME_STATUS = 1,
	SHB_QPACK_NAME_PSEUDO = 2, /* any other pseudo-header */
};

struct shb_qpack_entry {
	uint32_t off;       /* name, then value, at octets + off */
	uint32_t name_len;
	uint32_t value_len;
	int16_t status;    /* name :status: its code, -1 if not 3 digits */
	uint8_t kind;      /* enum shb_qpack_name_kind */
	uint8_t upper;     /* the name has an uppercase letter */
};

struct shb_qpack_table {
	struct shb_qpack_entry *slot; /* mask + 1 slots, or NULL */
	uint8_t *octets;              /* oct_cap octets, or NULL */
	uint64_t inserted; /* inserts ever made: the next absolute index */
	uint32_t mask;
	uint32_t count;    /* entries held: absolute inserted-count.. */
	uint32_t size;     /* sum of the entries' sizes */
	uint32_t capacity; /* the encoder's, from Set Dynamic Table Capacity */
	uint32_t limit;    /* ours, announced: capacity never exceeds it */
	uint32_t oct_cap;  /* octets allocated */
	uint32_t oct_end;  /* where the next entry's octets go */
};

enum shb_qpack_table_rc {
	SHB_QPACK_TABLE_OK = 0,
	SHB_QPACK_TABLE_E_CAPACITY = -1, /* above our limit */
	SHB_QPACK_TABLE_E_TOO_BIG = -2,  /* an entry above the capacity */
	SHB_QPACK_TABLE_E_NOMEM = -3,
};

/* An empty table of capacity 0 whose capacity may be set up to `limit`
 * (at most SHB_QPACK_TABLE_LIMIT_MAX; 0: no dynamic table). No
 * allocation. */
void shb_qpack_table_init(struct shb_qpack_table *t, uint32_t limit);
/* Frees what the table allocated; it is then empty, as after init. */
void shb_qpack_table_fini(struct shb_qpack_table *t);

/* Set Dynamic Table Capacity (Section 4.3.1): evicts down to `cap`.
 * Returns OK, E_CAPACITY (above the limit) or E_NOMEM. */
int shb_qpack_table_set_capacity(struct shb_qpack_table *t, uint64_t cap);

/* Inserts name[nlen] + value[vlen] (copied; they may point into the table
 * itself only if the caller copied them out first), evicting the oldest
 * entries it needs. Returns OK, E_TOO_BIG (larger than the capacity:
 * an encoder stream error) or E_NOMEM. */
int shb_qpack_table_insert(struct shb_qpack_table *t, const uint8_t *name,
			   size_t nlen, const uint8_t *value, size_t vlen);

/* The entry of absolute index `abs`, or NULL when it was evicted or not
 * inserted yet. */
static inline const struct shb_qpack_entry *
shb_qpack_table_get(const struct shb_qpack_table *t, uint64_t abs)
{
	if (abs >= t->inserted || abs < t->inserted - t->count)
		return NULL;
	return &t->slot[abs & t->mask];
}

static inline const uint8_t *
shb_qpack_entry_name(const struct shb_qpack_table *t,
		     const struct shb_qpack_entry *e)
{
	return t->octets + e->off;
}

static inline const uint8_t *
shb_qpack_entry_value(const struct shb_qpack_table *t,
		      const struct shb_qpack_entry *e)
{
	return t->octets + e->off + e->name_len;
}

/* Section 4.5.1.1: the Required Insert Count of a field section prefix
 * whose encoded value is `enc`, for a table of limit t->limit that has
 * seen t->inserted inserts, into *ric. Returns 0, or -1 when `enc` is
 * not a value an encoder can send (QPACK_DECOMPRESSION_FAILED). A *ric
 * above t->inserted means the section is blocked. */
int shb_qpack_ric_decode(const struct shb_qpack_table *t, uint64_t enc,
			 uint64_t *ric);

/* The reverse (for tests and the fuzz targets): encoded value of `ric`
 * for a table of limit `limit`. */
uint64_t shb_qpack_ric_encode(uint64_t ric, uint32_t limit);

/* Our decoder stream's instructions (Section 4.4), written into out[cap]:
 * Section Acknowledgment of stream `id`, Stream Cancellation of stream
 * `id`, Insert Count Increment by `n` (> 0). Return the octets written,
 * 0 when cap is too small. SHB_QPACK_DECINSN_MAX octets always suffice. */
#define SHB_QPACK_DECINSN_MAX 10u
size_t shb_qpack_section_ack(uint8_t *out, size_t cap, uint64_t id);
size_t shb_qpack_stream_cancel(uint8_t *out, size_t cap, uint64_t id);
size_t shb_qpack_insert_count_inc(uint8_t *out, size_t cap, uint64_t n);

#endif
