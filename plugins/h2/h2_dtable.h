/* The HPACK dynamic table of our response decoder (RFC 7541 Section 2.3.2
 * and 4), kept only as far as shb needs it: per entry its size, its name
 * length (a later literal may borrow the name) and its :status code, never
 * the octets. It lives for the whole connection and must see every header
 * block in order, so that the peer's encoder and we agree on it.
 *
 * Entries cost at least 32 octets, so a table of SHB_H2_DTABLE_MAX octets
 * holds at most SHB_H2_DTABLE_SLOTS of them: a fixed ring, no allocation.
 *
 * Only a connection whose fields someone reads (an observer of the
 * org.shb.h2.proto/1 extension) keeps the octets too: in a ring of
 * SHB_H2_DTABLE_MAX octets the caller lends (shb_h2_dtable_keep_octets).
 * Entries leave in the order they came and their name + value octets sum
 * to less than the table's maximum, so a new entry written after the
 * newest never overwrites one still in the table. */
#ifndef SHB_H2_DTABLE_H
#define SHB_H2_DTABLE_H

#include <stddef.h>
#include <stdint.h>

/* The largest table a connection holds inline: the HTTP/2 default, which
 * shb announces unless a profile says otherwise. */
#define SHB_H2_DTABLE_MAX 4096u
/* The largest table at all: a profile may announce up to this (browsers
 * send SETTINGS_HEADER_TABLE_SIZE 65536); such a connection allocates its
 * slots (shb_h2_dtable_init_big). */
#define SHB_H2_DTABLE_CAP 65536u
/* RFC 7541 Section 4.1: an entry's size is name + value + 32. */
#define SHB_H2_DTABLE_OVERHEAD 32u
#define SHB_H2_DTABLE_SLOTS (SHB_H2_DTABLE_MAX / SHB_H2_DTABLE_OVERHEAD)

/* What a field name is, as far as a response may carry it (RFC 9113
 * Section 8.3): a regular field, :status, or any other pseudo-header
 * (a request one or an unknown one: malformed in a response); with
 * SHB_H2_NAME_UPPER when it has an uppercase letter (malformed, Section
 * 8.2.1). */
enum shb_h2_name_kind {
	SHB_H2_NAME_REGULAR = 0,
	SHB_H2_NAME_STATUS = 1,
	SHB_H2_NAME_PSEUDO = 2,
	SHB_H2_NAME_KIND_MASK = 3,
	SHB_H2_NAME_UPPER = 4,
};

struct shb_h2_dtable_entry {
	uint32_t size;     /* name + value + 32, decoded lengths */
	uint16_t name_len; /* decoded */
	int16_t status;    /* 0: name is not :status; -1: malformed; else code */
	uint8_t name_kind; /* enum shb_h2_name_kind */
	uint16_t off;      /* its name + value in the octet ring, if kept
			    * (the ring is at most 65536 octets) */
};

struct shb_h2_dtable {
	struct shb_h2_dtable_entry e[SHB_H2_DTABLE_SLOTS];
	/* A table above SHB_H2_DTABLE_MAX: its own slots (mask + 1 of them,
	 * owned, shb_h2_dtable_free), used instead of e; NULL otherwise, so
	 * that a small table can be copied by value. */
	struct shb_h2_dtable_entry *big;
	uint32_t mask;  /* slots - 1 */
	uint32_t ring;  /* octets of the ring, with octets kept */
	uint32_t newest; /* slot of index 1 when count > 0 */
	uint32_t count;
	uint32_t size;  /* sum of the entries' sizes */
	uint32_t max;   /* the encoder's maximum, from its last size update */
	uint32_t limit; /* our SETTINGS_HEADER_TABLE_SIZE: max never exceeds it */
	uint8_t *octets; /* ring of SHB_H2_DTABLE_MAX octets, or NULL */
	uint32_t end;    /* where the next entry's octets go in the ring */
	uint8_t stored;  /* the last insert needs no shb_h2_dtable_store */
	uint64_t gen;    /* counts inserts and resizes: equal, same table */
};

/* An empty table whose maximum is `limit` (at most SHB_H2_DTABLE_MAX). */
void shb_h2_dtable_init(struct shb_h2_dtable *t, uint32_t limit);
/* The same for a limit up to SHB_H2_DTABLE_CAP, allocating the slots of
 * one above SHB_H2_DTABLE_MAX; such a table's maximum starts at 4096, the
 * peer encoder's until its size update. 0, or -1 out of memory (t is
 * then a small table). */
int shb_h2_dtable_init_big(struct shb_h2_dtable *t, uint32_t limit);
/* Frees what shb_h2_dtable_init_big allocated. */
void shb_h2_dtable_free(struct shb_h2_dtable *t);

/* A dynamic table size update: evicts down to `max`. Returns 0, or -1
 * when max is above our limit (a compression error). */
int shb_h2_dtable_resize(struct shb_h2_dtable *t, uint64_t max);

/* Adds an entry of `size` octets (name + value + 32) after evicting what
 * it needs; one larger than the maximum empties the table instead
 * (Section 4.4). */
void shb_h2_dtable_insert(struct shb_h2_dtable *t, uint64_t size,
			  uint32_t name_len, int status, uint8_t name_kind);

/* Keeps every entry's octets from now on in ring[shb_h2_dtable_ring(t)]
 * (caller-owned, outlives the table). Call on an empty table. */
void shb_h2_dtable_keep_octets(struct shb_h2_dtable *t, uint8_t *ring);
/* The octets a ring for t needs: its limit, at least SHB_H2_DTABLE_MAX. */
uint32_t shb_h2_dtable_ring(const struct shb_h2_dtable *t);

/* With octets kept: stores the name + value octets nv[n] of the entry
 * shb_h2_dtable_insert just added (n == its size - 32). Nothing happens
 * when that insert emptied the table instead. */
void shb_h2_dtable_store(struct shb_h2_dtable *t, const uint8_t *nv, size_t n);

/* With octets kept: copies the name + value of entry e (size - 32
 * octets) to out. */
void shb_h2_dtable_copy(const struct shb_h2_dtable *t,
			const struct shb_h2_dtable_entry *e, uint8_t *out);

/* Dynamic index i (1 = newest, i.e. HPACK index 61 + i), or NULL when the
 * table has no such entry. Inline: the scanner looks up most fields of a
 * response that a server indexes. */
static inline const struct shb_h2_dtable_entry *
shb_h2_dtable_get(const struct shb_h2_dtable *t, uint64_t i)
{
	if (i == 0 || i > t->count)
		return NULL;
	return &(t->big ? t->big : t->e)[(t->newest - (uint32_t)(i - 1)) & t->mask];
}

#endif
