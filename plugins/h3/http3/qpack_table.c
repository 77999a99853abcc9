/* The decoder's QPACK dynamic table: see qpack_table.h. */
#include "qpack_table.h"

#include <stdlib.h>
#include <string.h>

#include "http_prefint.h"
#include "http_status.h"

static const char status_name[] = ":status";

void shb_qpack_table_init(struct shb_qpack_table *t, uint32_t limit)
{
	memset(t, 0, sizeof(*t));
	t->limit = limit < SHB_QPACK_TABLE_LIMIT_MAX ? limit
						     : SHB_QPACK_TABLE_LIMIT_MAX;
}

void shb_qpack_table_fini(struct shb_qpack_table *t)
{
	uint32_t limit = t->limit;

	free(t->slot);
	free(t->octets);
	shb_qpack_table_init(t, limit);
}

static const struct shb_qpack_entry *oldest(const struct shb_qpack_table *t)
{
	return &t->slot[(t->inserted - t->count) & t->mask];
}

/* Drops the oldest entries until the table holds at most `room` octets. */
static void evict_to(struct shb_qpack_table *t, uint32_t room)
{
	while (t->count && t->size > room) {
		const struct shb_qpack_entry *e = oldest(t);

		t->size -= e->name_len + e->value_len + SHB_QPACK_ENTRY_OVERHEAD;
		t->count--;
	}
	if (t->count == 0)
		t->oct_end = 0; /* nothing live: start over at the front */
}

/* Slots for the most entries a table of t->limit octets holds. */
static int alloc_slots(struct shb_qpack_table *t)
{
	uint32_t n = 1;

	while (n * SHB_QPACK_ENTRY_OVERHEAD < t->limit)
		n *= 2;
	t->slot = calloc(n, sizeof(*t->slot));
	if (!t->slot)
		return SHB_QPACK_TABLE_E_NOMEM;
	t->mask = n - 1;
	return SHB_QPACK_TABLE_OK;
}

int shb_qpack_table_set_capacity(struct shb_qpack_table *t, uint64_t cap)
{
	if (cap > t->limit)
		return SHB_QPACK_TABLE_E_CAPACITY;
	if (cap && !t->slot && alloc_slots(t) < 0)
		return SHB_QPACK_TABLE_E_NOMEM;
	t->capacity = (uint32_t)cap;
	evict_to(t, t->capacity);
	return SHB_QPACK_TABLE_OK;
}

/* Moves the live octets to the front of the buffer. */
static void compact(struct shb_qpack_table *t)
{
	uint32_t base = t->count ? oldest(t)->off : t->oct_end;

	if (base == 0)
		return;
	memmove(t->octets, t->octets + base, t->oct_end - base);
	t->oct_end -= base;
	for (uint32_t i = 0; i < t->count; i++)
		t->slot[(t->inserted - 1 - i) & t->mask].off -= base;
}

/* Room for n more octets after the newest entry. The live octets plus n
 * are below the limit (every entry costs 32 more than its octets). */
static int make_room(struct shb_qpack_table *t, uint32_t n)
{
	uint32_t base = t->count ? oldest(t)->off : t->oct_end;
	uint32_t live = t->oct_end - base, max = 2 * t->limit;

	/* Allocated even for an entry of no octets: readers take pointers
	 * into the buffer. */
	if (t->octets && t->oct_end + n <= t->oct_cap)
		return SHB_QPACK_TABLE_OK;
	/* Grow while the live octets fill more than half: then moving them
	 * costs no more than what was inserted since the last move. */
	if (!t->octets || (t->oct_cap < max && live + n > t->oct_cap / 2)) {
		uint32_t cap = t->oct_cap ? t->oct_cap * 2 : 256;

		while (cap < 2 * (live + n))
			cap *= 2;
		if (cap > max)
			cap = max;
		uint8_t *p = realloc(t->octets, cap);
		if (!p)
			return SHB_QPACK_TABLE_E_NOMEM;
		t->octets = p;
		t->oct_cap = cap;
		if (t->oct_end + n <= t->oct_cap)
			return SHB_QPACK_TABLE_OK;
	}
	compact(t);
	return SHB_QPACK_TABLE_OK;
}

static int has_upper(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] >= 'A' && p[i] <= 'Z')
			return 1;
	return 0;
}

static void classify(struct shb_qpack_entry *e, const uint8_t *name,
		     size_t nlen, const uint8_t *value, size_t vlen)
{
	e->kind = SHB_QPACK_NAME_REGULAR;
	e->status = 0;
	e->upper = (uint8_t)has_upper(name, nlen);
	if (nlen == 0 || name[0] != ':')
		return;
	e->kind = SHB_QPACK_NAME_PSEUDO;
	if (nlen == sizeof(status_name) - 1 &&
	    memcmp(name, status_name, nlen) == 0) {
		e->kind = SHB_QPACK_NAME_STATUS;
		e->status = (int16_t)shb_http_status_digits(value, vlen);
	}
}

int shb_qpack_table_insert(struct shb_qpack_table *t, const uint8_t *name,
			   size_t nlen, const uint8_t *value, size_t vlen)
{
	struct shb_qpack_entry *e;
	uint64_t size = (uint64_t)nlen + vlen + SHB_QPACK_ENTRY_OVERHEAD;
	int rc;

	if (size > t->capacity)
		return SHB_QPACK_TABLE_E_TOO_BIG;
	evict_to(t, t->capacity - (uint32_t)size);
	rc = make_room(t, (uint32_t)(nlen + vlen));
	if (rc < 0)
		return rc;
	e = &t->slot[t->inserted & t->mask];
	e->off = t->oct_end;
	e->name_len = (uint32_t)nlen;
	e->value_len = (uint32_t)vlen;
	if (nlen)
		memcpy(t->octets + t->oct_end, name, nlen);
	if (vlen)
		memcpy(t->octets + t->oct_end + nlen, value, vlen);
	classify(e, name, nlen, value, vlen);
	t->oct_end += (uint32_t)(nlen + vlen);
	t->inserted++;
	t->count++;
	t->size += (uint32_t)size;
	return SHB_QPACK_TABLE_OK;
}

int shb_qpack_ric_decode(const struct shb_qpack_table *t, uint64_t enc,
			 uint64_t *ric)
{
	uint64_t max_entries = t->limit / SHB_QPACK_ENTRY_OVERHEAD;
	uint64_t full = 2 * max_entries, max_value, r;

	*ric = 0;
	if (enc == 0)
		return 0;
	if (enc > full)
		return -1; /* also every enc > 0 without a table */
	max_value = t->inserted + max_entries;
	r = max_value / full * full + enc - 1;
	if (r > max_value) {
		if (r <= full)
			return -1;
		r -= full;
	}
	if (r == 0)
		return -1;
	*ric = r;
	return 0;
}

uint64_t shb_qpack_ric_encode(uint64_t ric, uint32_t limit)
{
	uint64_t max_entries = limit / SHB_QPACK_ENTRY_OVERHEAD;

	if (ric == 0 || max_entries == 0)
		return 0;
	return ric % (2 * max_entries) + 1;
}

size_t shb_qpack_section_ack(uint8_t *out, size_t cap, uint64_t id)
{
	return shb_prefint_encode(out, cap, 7, 0x80, id);
}

size_t shb_qpack_stream_cancel(uint8_t *out, size_t cap, uint64_t id)
{
	return shb_prefint_encode(out, cap, 6, 0x40, id);
}

size_t shb_qpack_insert_count_inc(uint8_t *out, size_t cap, uint64_t n)
{
	return n ? shb_prefint_encode(out, cap, 6, 0x00, n) : 0;
}
