/* The worker's deadlines (timer_heap.h): a binary min-heap with the
 * place of every id kept, so that an entry moves or leaves in O(log n). */
#include <stdlib.h>

#include "engine/timer_heap.h"

int shb_theap_init(struct shb_theap *h, uint32_t cap)
{
	/* Both at full size up front, so that arming never fails in a
	 * run; a large calloc is mapped lazily, and pages are touched as
	 * entries are used. */
	h->n = 0;
	h->cap = cap;
	h->e = calloc(cap ? cap : 1, sizeof(*h->e));
	h->pos = calloc(cap ? cap : 1, sizeof(*h->pos));
	if (h->e && h->pos)
		return 0;
	shb_theap_free(h);
	return -1;
}

void shb_theap_free(struct shb_theap *h)
{
	free(h->e);
	free(h->pos);
	h->e = NULL;
	h->pos = NULL;
	h->n = h->cap = 0;
}

static void place(struct shb_theap *h, uint32_t i, struct shb_theap_ent x)
{
	h->e[i] = x;
	h->pos[x.id] = i + 1;
}

/* Moves the entry at i towards the root while it is earlier than its
 * parent; returns where it ends. */
static uint32_t sift_up(struct shb_theap *h, uint32_t i)
{
	struct shb_theap_ent x = h->e[i];
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (h->e[p].at <= x.at)
			break;
		place(h, i, h->e[p]);
		i = p;
	}
	place(h, i, x);
	return i;
}

static void sift_down(struct shb_theap *h, uint32_t i)
{
	struct shb_theap_ent x = h->e[i];
	for (;;) {
		uint32_t l = 2 * i + 1, m;
		if (l >= h->n)
			break;
		m = l + 1 < h->n && h->e[l + 1].at < h->e[l].at ? l + 1 : l;
		if (h->e[m].at >= x.at)
			break;
		place(h, i, h->e[m]);
		i = m;
	}
	place(h, i, x);
}

/* The entry at i changed its time: up or down to where it belongs. */
static void fix(struct shb_theap *h, uint32_t i)
{
	if (sift_up(h, i) == i)
		sift_down(h, i);
}

void shb_theap_set(struct shb_theap *h, uint32_t id, uint64_t at)
{
	uint32_t p = h->pos[id];
	if (p) {
		if (h->e[p - 1].at != at) {
			h->e[p - 1].at = at;
			fix(h, p - 1);
		}
		return;
	}
	/* One entry per id: n never passes cap. */
	uint32_t i = h->n++;
	place(h, i, (struct shb_theap_ent){at, id});
	sift_up(h, i);
}

void shb_theap_del(struct shb_theap *h, uint32_t id)
{
	uint32_t p = h->pos[id];
	if (!p)
		return;
	h->pos[id] = 0;
	uint32_t last = --h->n;
	if (p - 1 == last)
		return;
	place(h, p - 1, h->e[last]);
	fix(h, p - 1);
}

uint32_t shb_theap_pop_due(struct shb_theap *h, uint64_t now)
{
	if (!h->n || h->e[0].at > now)
		return SHB_THEAP_NONE;
	uint32_t id = h->e[0].id;
	shb_theap_del(h, id);
	return id;
}
