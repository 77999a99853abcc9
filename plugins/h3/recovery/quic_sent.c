/* The sent-packet ring. Reference positions grow forever (uint64_t) and are
 * reduced modulo ref_cap only to index the array; a record's slice never
 * wraps: when it would, the tail skips to the array's start. The oldest
 * live reference is always the head record's ref_pos, so no separate head
 * is kept for the references.
 *
 * Both arrays grow by doubling. A reference at position p lives at
 * p % ref_cap, so after ref_cap doubles each live slice is either where it
 * was or ref_cap (old) above it, in the half that was unused: growing
 * copies those slices up and keeps every position. Records grow by moving
 * the part of a wrapped ring above the head to the end of the larger
 * array. */
#include <string.h>

#include "quic_sent.h"

static uint32_t start_size(uint32_t full, uint32_t least)
{
	while (full % 2 == 0 && full / 2 >= least)
		full /= 2;
	return full;
}

void shb_quic_sent_ring_init(struct shb_quic_sent_ring *g,
			     struct shb_quic_sent *rec, uint32_t cap,
			     struct shb_quic_frame_ref *refs, uint32_t ref_cap)
{
	g->rec = rec;
	g->refs = refs;
	g->max_cap = cap;
	g->ref_max = ref_cap;
	g->cap = start_size(cap, SHB_QUIC_SENT_START_RECS);
	g->ref_cap = start_size(ref_cap, SHB_QUIC_SENT_START_REFS);
	shb_quic_sent_ring_clear(g);
}

uint32_t shb_quic_sent_ring_cap(const struct shb_quic_sent_ring *g)
{
	return g->cap;
}

uint32_t shb_quic_sent_ring_ref_cap(const struct shb_quic_sent_ring *g)
{
	return g->ref_cap;
}

void shb_quic_sent_ring_clear(struct shb_quic_sent_ring *g)
{
	g->head = 0;
	g->count = 0;
	g->ref_tail = 0;
}

uint32_t shb_quic_sent_ring_count(const struct shb_quic_sent_ring *g)
{
	return g->count;
}

struct shb_quic_sent *shb_quic_sent_ring_at(const struct shb_quic_sent_ring *g,
					    uint32_t i)
{
	uint32_t k = g->head + i;

	if (k >= g->cap)
		k -= g->cap;
	return &g->rec[k];
}

static int evictable(const struct shb_quic_sent *s)
{
	return s->state != SHB_QUIC_SENT_OUTSTANDING ||
	       !(s->flags & SHB_QUIC_SENT_ACK_ELICITING);
}

/* An empty ring restarts its references at an array boundary, so that a
 * whole ref_cap is contiguous again. */
static void drop_head(struct shb_quic_sent_ring *g)
{
	g->head = g->head + 1 == g->cap ? 0 : g->head + 1;
	g->count--;
	if (g->count == 0 && g->ref_cap > 0) {
		uint64_t phys = g->ref_tail % g->ref_cap;

		if (phys != 0)
			g->ref_tail += g->ref_cap - phys;
	}
}

void shb_quic_sent_ring_pop_settled(struct shb_quic_sent_ring *g)
{
	while (g->count > 0 &&
	       shb_quic_sent_ring_at(g, 0)->state != SHB_QUIC_SENT_OUTSTANDING)
		drop_head(g);
}

/* Where a slice of n references would start in an array of `cap`, given
 * that the oldest live reference is at ref_head; sets *max to the longest
 * slice that fits. Returns 0 and *pos, or -1 if n does not fit. */
static int ref_place(const struct shb_quic_sent_ring *g, uint32_t cap,
		     uint64_t ref_head, uint32_t n, uint64_t *pos,
		     uint32_t *max)
{
	*pos = g->ref_tail;
	*max = 0;
	if (cap == 0)
		return n == 0 ? 0 : -1;
	uint64_t free = cap - (g->ref_tail - ref_head);
	uint64_t to_end = cap - g->ref_tail % cap;
	uint64_t here = to_end < free ? to_end : free;
	uint64_t wrapped = free > to_end ? free - to_end : 0;
	uint64_t best = here > wrapped ? here : wrapped;

	*max = best > UINT16_MAX ? UINT16_MAX : (uint32_t)best;
	if (n <= here)
		return 0;
	if (n <= wrapped) {
		*pos = g->ref_tail + to_end;
		return 0;
	}
	return -1;
}

static uint64_t ref_head_after(const struct shb_quic_sent_ring *g,
			       uint32_t evicted)
{
	if (evicted < g->count)
		return shb_quic_sent_ring_at(g, evicted)->ref_pos;
	return g->ref_tail;
}

int shb_quic_sent_ring_fits(const struct shb_quic_sent_ring *g,
			    uint32_t reserve, uint32_t *max_refs)
{
	uint32_t free = g->max_cap - g->count;
	uint32_t k = 0;

	while ((uint64_t)free + k <= reserve && k < g->count &&
	       evictable(shb_quic_sent_ring_at(g, k)))
		k++;
	if ((uint64_t)free + k <= reserve)
		return 0;
	if (max_refs) {
		uint64_t pos;

		ref_place(g, g->ref_max, ref_head_after(g, k), 0, &pos,
			  max_refs);
	}
	return 1;
}

static void grow_records(struct shb_quic_sent_ring *g)
{
	uint32_t more = g->cap;

	if (g->head + g->count > g->cap) {
		uint32_t upper = g->cap - g->head;

		memmove(&g->rec[g->head + more], &g->rec[g->head],
			upper * sizeof(*g->rec));
		g->head += more;
	}
	g->cap += more;
}

static void grow_refs(struct shb_quic_sent_ring *g)
{
	uint32_t old = g->ref_cap, cap = 2 * old;

	for (uint32_t i = 0; i < g->count; i++) {
		const struct shb_quic_sent *s = shb_quic_sent_ring_at(g, i);

		if (s->nrefs && s->ref_pos % cap >= old)
			memcpy(&g->refs[s->ref_pos % cap], &g->refs[s->ref_pos % old],
			       s->nrefs * sizeof(*g->refs));
	}
	g->ref_cap = cap;
}

/* With every evictable head record gone, a record of n references would
 * still not fit: doubles what is short. Returns 0 when nothing can grow. */
static int grow_for(struct shb_quic_sent_ring *g, uint32_t n)
{
	uint32_t k = 0, max;
	uint64_t pos;
	int grew = 0;

	while (k < g->count && evictable(shb_quic_sent_ring_at(g, k)))
		k++;
	if (g->cap - g->count + k == 0 && g->cap < g->max_cap) {
		grow_records(g);
		grew = 1;
	}
	if (ref_place(g, g->ref_cap, ref_head_after(g, k), n, &pos, &max) &&
	    g->ref_cap < g->ref_max) {
		grow_refs(g);
		grew = 1;
	}
	return grew;
}

struct shb_quic_sent *shb_quic_sent_ring_push(struct shb_quic_sent_ring *g,
					      const struct shb_quic_sent *p,
					      const struct shb_quic_frame_ref *refs)
{
	uint32_t k = 0;
	uint64_t pos;
	uint32_t max;

	/* Find how many evictable head records must go before the record and
	 * its slice fit; evict only once it is known to be enough. Eviction
	 * comes before growth: an ACK-only record is worth less than memory. */
	for (;;) {
		int slot = g->cap - g->count + k > 0;

		if (slot && ref_place(g, g->ref_cap, ref_head_after(g, k),
				      p->nrefs, &pos, &max) == 0)
			break;
		if (k < g->count && evictable(shb_quic_sent_ring_at(g, k))) {
			k++;
			continue;
		}
		if (!grow_for(g, p->nrefs))
			return NULL;
		k = 0;
	}
	while (k-- > 0)
		drop_head(g);
	/* drop_head() may have moved ref_tail to a boundary: place again. */
	if (ref_place(g, g->ref_cap, ref_head_after(g, 0), p->nrefs, &pos,
		      &max) != 0)
		return NULL;

	uint32_t idx = g->head + g->count;

	if (idx >= g->cap)
		idx -= g->cap;
	struct shb_quic_sent *s = &g->rec[idx];

	*s = *p;
	s->state = SHB_QUIC_SENT_OUTSTANDING;
	s->ref_pos = pos;
	if (p->nrefs > 0)
		memcpy(&g->refs[pos % g->ref_cap], refs,
		       p->nrefs * sizeof(*refs));
	g->ref_tail = pos + p->nrefs;
	g->count++;
	return s;
}

uint32_t shb_quic_sent_ring_find(const struct shb_quic_sent_ring *g,
				 uint64_t pn)
{
	uint32_t lo = 0, hi = g->count; /* answer in [lo - 1, hi) */

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (shb_quic_sent_ring_at(g, mid)->pn <= pn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? UINT32_MAX : lo - 1;
}

const struct shb_quic_frame_ref *
shb_quic_sent_ring_refs(const struct shb_quic_sent_ring *g,
			const struct shb_quic_sent *s)
{
	if (s->nrefs == 0 || g->ref_cap == 0)
		return NULL;
	return &g->refs[s->ref_pos % g->ref_cap];
}
