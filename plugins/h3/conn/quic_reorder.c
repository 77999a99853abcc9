/* Out-of-order stream data: see quic_reorder.h. */
#include "quic_reorder.h"

#include <string.h>

/* Touches no block: see quic_reorder.h. */
void shb_quic_ro_init(struct shb_quic_ro_pool *p, struct shb_quic_ro_block *b,
		      uint32_t n)
{
	p->b = b;
	p->n = n;
	p->nfree = n;
	p->free_head = 0;
	p->fresh = 0;
}

static struct shb_quic_ro_block *blk(const struct shb_quic_ro_pool *p,
				     uint32_t idx)
{
	return &p->b[idx - 1];
}

static uint64_t end_of(const struct shb_quic_ro_block *b)
{
	return b->off + b->len;
}

/* Walks l and calls `gap` for every part of [off, end) not held yet,
 * with `prev` the block it would follow (0: it would be the head). */
struct walk {
	uint64_t off, end;
	uint32_t prev, cur;
};

static void walk_start(const struct shb_quic_ro_pool *p,
		       const struct shb_quic_ro_list *l, struct walk *w,
		       uint64_t off, uint64_t end)
{
	w->off = off;
	w->end = end;
	w->prev = 0;
	w->cur = l->head;
	/* Behind the last block: no need to walk. */
	if (l->tail && off >= end_of(blk(p, l->tail))) {
		w->prev = l->tail;
		w->cur = 0;
	}
}

/* The next gap [*g_off, *g_off + *g_len) to fill after w->prev; 0 when
 * none is left. */
static int walk_next(const struct shb_quic_ro_pool *p, struct walk *w,
		     uint64_t *g_off, uint64_t *g_len)
{
	while (w->off < w->end) {
		if (!w->cur) {
			*g_off = w->off;
			*g_len = w->end - w->off;
			w->off = w->end;
			return 1;
		}
		const struct shb_quic_ro_block *b = blk(p, w->cur);

		if (end_of(b) <= w->off) {
			w->prev = w->cur;
			w->cur = b->next;
			continue;
		}
		if (b->off <= w->off) {
			w->off = end_of(b);
			w->prev = w->cur;
			w->cur = b->next;
			continue;
		}
		uint64_t stop = w->end < b->off ? w->end : b->off;

		*g_off = w->off;
		*g_len = stop - w->off;
		w->off = stop;
		return 1;
	}
	return 0;
}

/* Room left in block `prev` for bytes starting at `off`. */
static uint64_t room_after(const struct shb_quic_ro_pool *p, uint32_t prev,
			   uint64_t off)
{
	const struct shb_quic_ro_block *b;

	if (!prev)
		return 0;
	b = blk(p, prev);
	return end_of(b) == off ? SHB_QUIC_RO_BLOCK - b->len : 0;
}

uint32_t shb_quic_ro_needed(const struct shb_quic_ro_pool *p,
			    const struct shb_quic_ro_list *l, uint64_t off,
			    size_t len)
{
	struct walk w;
	uint64_t g_off, g_len;
	uint32_t n = 0;

	walk_start(p, l, &w, off, off + len);
	while (walk_next(p, &w, &g_off, &g_len)) {
		uint64_t r = room_after(p, w.prev, g_off);

		g_len -= g_len < r ? g_len : r;
		n += SHB_QUIC_RO_BLOCKS_FOR(g_len);
	}
	return n;
}

/* A released block first (already written), else the lowest never
 * handed out. */
static uint32_t take(struct shb_quic_ro_pool *p)
{
	uint32_t idx = p->free_head;

	if (idx)
		p->free_head = blk(p, idx)->next;
	else if (p->fresh < p->n)
		idx = ++p->fresh;
	if (idx)
		p->nfree--;
	return idx;
}

void shb_quic_ro_release(struct shb_quic_ro_pool *p, uint32_t idx)
{
	if (!idx)
		return;
	blk(p, idx)->next = p->free_head;
	p->free_head = idx;
	p->nfree++;
}

/* Stores [off, off + len) right after `prev` (0: at the head); returns the
 * last block written, or 0 when the pool ran dry. */
static uint32_t fill_gap(struct shb_quic_ro_pool *p, struct shb_quic_ro_list *l,
			 uint32_t prev, uint64_t off, const uint8_t *data,
			 uint64_t len)
{
	uint64_t r = room_after(p, prev, off);

	if (r) {
		struct shb_quic_ro_block *b = blk(p, prev);
		uint64_t n = len < r ? len : r;

		memcpy(b->data + b->len, data, (size_t)n);
		b->len = (uint16_t)(b->len + n);
		off += n;
		data += n;
		len -= n;
	}
	while (len) {
		uint32_t idx = take(p);

		if (!idx)
			return 0;
		struct shb_quic_ro_block *b = blk(p, idx);
		uint64_t n = len < SHB_QUIC_RO_BLOCK ? len : SHB_QUIC_RO_BLOCK;

		b->off = off;
		b->len = (uint16_t)n;
		memcpy(b->data, data, (size_t)n);
		b->next = prev ? blk(p, prev)->next : l->head;
		if (prev)
			blk(p, prev)->next = idx;
		else
			l->head = idx;
		if (!b->next)
			l->tail = idx;
		l->blocks++;
		prev = idx;
		off += n;
		data += n;
		len -= n;
	}
	return prev;
}

int shb_quic_ro_insert(struct shb_quic_ro_pool *p, struct shb_quic_ro_list *l,
		       uint64_t off, const uint8_t *data, size_t len)
{
	struct walk w;
	uint64_t g_off, g_len;

	walk_start(p, l, &w, off, off + len);
	while (walk_next(p, &w, &g_off, &g_len)) {
		uint32_t last = fill_gap(p, l, w.prev, g_off, data + (g_off - off),
					 g_len);

		if (!last)
			return -1;
		w.prev = last;
	}
	return 0;
}

const struct shb_quic_ro_block *shb_quic_ro_first(const struct shb_quic_ro_pool *p,
						  const struct shb_quic_ro_list *l)
{
	return l->head ? blk(p, l->head) : NULL;
}

uint32_t shb_quic_ro_detach(struct shb_quic_ro_pool *p,
			    struct shb_quic_ro_list *l)
{
	uint32_t idx = l->head;

	if (!idx)
		return 0;
	l->head = blk(p, idx)->next;
	if (!l->head)
		l->tail = 0;
	l->blocks--;
	return idx;
}

const struct shb_quic_ro_block *shb_quic_ro_at(const struct shb_quic_ro_pool *p,
					       uint32_t idx)
{
	return blk(p, idx);
}

void shb_quic_ro_clear(struct shb_quic_ro_pool *p, struct shb_quic_ro_list *l)
{
	while (l->head)
		shb_quic_ro_release(p, shb_quic_ro_detach(p, l));
}

size_t shb_quic_ro_trim(struct shb_quic_ro_pool *p)
{
	size_t used = (size_t)p->fresh * sizeof(struct shb_quic_ro_block);

	if (p->nfree != p->n)
		return 0;
	p->free_head = 0;
	p->fresh = 0;
	return used;
}
