/* The decoder's dynamic table: see h2_dtable.h. */
#include "h2_dtable.h"

#include <string.h>

_Static_assert((SHB_H2_DTABLE_SLOTS & (SHB_H2_DTABLE_SLOTS - 1)) == 0,
	       "the ring index wraps with a mask");

#define SLOT_MASK (SHB_H2_DTABLE_SLOTS - 1u)

void shb_h2_dtable_init(struct shb_h2_dtable *t, uint32_t limit)
{
	memset(t, 0, sizeof(*t));
	t->limit = limit < SHB_H2_DTABLE_MAX ? limit : SHB_H2_DTABLE_MAX;
	t->max = t->limit;
}

/* Drops oldest entries until the table holds at most `room` octets. */
static void evict_to(struct shb_h2_dtable *t, uint32_t room)
{
	while (t->count && t->size > room) {
		uint32_t oldest = (t->newest - (t->count - 1)) & SLOT_MASK;

		t->size -= t->e[oldest].size;
		t->count--;
	}
}

int shb_h2_dtable_resize(struct shb_h2_dtable *t, uint64_t max)
{
	if (max > t->limit)
		return -1;
	t->max = (uint32_t)max;
	evict_to(t, t->max);
	return 0;
}

void shb_h2_dtable_insert(struct shb_h2_dtable *t, uint64_t size,
			  uint32_t name_len, int status, uint8_t name_kind)
{
	struct shb_h2_dtable_entry *e;

	if (size > t->max) {
		evict_to(t, 0);
		return;
	}
	evict_to(t, t->max - (uint32_t)size);
	/* size >= 32 and the table holds at most max <= 32 * SLOTS octets,
	 * so a slot is free now. */
	t->newest = (t->newest + 1) & SLOT_MASK;
	e = &t->e[t->newest];
	e->size = (uint16_t)size;
	e->name_len = (uint16_t)name_len;
	e->status = (int16_t)status;
	e->name_kind = name_kind;
	t->count++;
	t->size += (uint32_t)size;
}

const struct shb_h2_dtable_entry *
shb_h2_dtable_get(const struct shb_h2_dtable *t, uint64_t i)
{
	if (i == 0 || i > t->count)
		return NULL;
	return &t->e[(t->newest - (uint32_t)(i - 1)) & SLOT_MASK];
}
