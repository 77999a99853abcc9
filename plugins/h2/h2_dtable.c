/* The decoder's dynamic table: see h2_dtable.h. */
#include "h2_dtable.h"

#include <stdlib.h>
#include <string.h>

_Static_assert((SHB_H2_DTABLE_SLOTS & (SHB_H2_DTABLE_SLOTS - 1)) == 0,
	       "the ring index wraps with a mask");

#define SLOT_MASK (t->mask)
#define SLOTS(t) ((t)->big ? (t)->big : (t)->e)

void shb_h2_dtable_init(struct shb_h2_dtable *t, uint32_t limit)
{
	memset(t, 0, sizeof(*t));
	t->limit = limit < SHB_H2_DTABLE_MAX ? limit : SHB_H2_DTABLE_MAX;
	t->max = t->limit;
	t->mask = SHB_H2_DTABLE_SLOTS - 1u;
	t->ring = SHB_H2_DTABLE_MAX;
}

int shb_h2_dtable_init_big(struct shb_h2_dtable *t, uint32_t limit)
{
	uint32_t slots = SHB_H2_DTABLE_SLOTS;

	shb_h2_dtable_init(t, limit);
	if (limit <= SHB_H2_DTABLE_MAX)
		return 0;
	if (limit > SHB_H2_DTABLE_CAP)
		limit = SHB_H2_DTABLE_CAP;
	/* Entries cost at least 32 octets: limit / 32 slots, a power of 2
	 * for the mask. */
	while (slots * SHB_H2_DTABLE_OVERHEAD < limit)
		slots *= 2;
	t->big = calloc(slots, sizeof(*t->big));
	if (!t->big)
		return -1;
	t->mask = slots - 1u;
	t->limit = limit;
	/* The encoder's table starts at HTTP/2's 4096 (RFC 9113 6.5.2)
	 * whatever we announce; only its size update takes it higher. */
	t->max = SHB_H2_DTABLE_MAX;
	t->ring = slots * SHB_H2_DTABLE_OVERHEAD;
	return 0;
}

void shb_h2_dtable_free(struct shb_h2_dtable *t)
{
	free(t->big);
	t->big = NULL;
}

uint32_t shb_h2_dtable_ring(const struct shb_h2_dtable *t)
{
	return t->ring;
}

/* Drops oldest entries until the table holds at most `room` octets. */
static void evict_to(struct shb_h2_dtable *t, uint32_t room)
{
	while (t->count && t->size > room) {
		uint32_t oldest = (t->newest - (t->count - 1)) & SLOT_MASK;

		t->size -= SLOTS(t)[oldest].size;
		t->count--;
	}
}

int shb_h2_dtable_resize(struct shb_h2_dtable *t, uint64_t max)
{
	if (max > t->limit)
		return -1;
	t->gen++;
	t->max = (uint32_t)max;
	evict_to(t, t->max);
	return 0;
}

void shb_h2_dtable_insert(struct shb_h2_dtable *t, uint64_t size,
			  uint32_t name_len, int status, uint8_t name_kind)
{
	struct shb_h2_dtable_entry *e;

	t->gen++;
	if (size > t->max) {
		evict_to(t, 0);
		t->stored = 1; /* nothing for shb_h2_dtable_store to do */
		return;
	}
	t->stored = 0;
	evict_to(t, t->max - (uint32_t)size);
	/* size >= 32 and the table holds at most max <= 32 * SLOTS octets,
	 * so a slot is free now. */
	t->newest = (t->newest + 1) & SLOT_MASK;
	e = &SLOTS(t)[t->newest];
	e->size = (uint32_t)size;
	e->name_len = (uint16_t)name_len;
	e->status = (int16_t)status;
	e->name_kind = name_kind;
	e->off = (uint16_t)t->end;
	t->count++;
	t->size += (uint32_t)size;
}

void shb_h2_dtable_keep_octets(struct shb_h2_dtable *t, uint8_t *ring)
{
	t->octets = ring;
	t->end = 0;
}

void shb_h2_dtable_store(struct shb_h2_dtable *t, const uint8_t *nv, size_t n)
{
	size_t first;

	if (!t->octets || t->stored)
		return;
	t->stored = 1;
	first = t->ring - t->end;
	if (first > n)
		first = n;
	memcpy(t->octets + t->end, nv, first);
	memcpy(t->octets, nv + first, n - first);
	t->end = (uint32_t)((t->end + n) % t->ring);
}

void shb_h2_dtable_copy(const struct shb_h2_dtable *t,
			const struct shb_h2_dtable_entry *e, uint8_t *out)
{
	size_t n = e->size - SHB_H2_DTABLE_OVERHEAD;
	size_t first = t->ring - e->off;

	if (first > n)
		first = n;
	memcpy(out, t->octets + e->off, first);
	memcpy(out + first, t->octets, n - first);
}
