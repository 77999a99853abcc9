/* The request table: see h3_reqtab.h. */
#include "h3_reqtab.h"

#include <stdlib.h>
#include <string.h>

static inline uint32_t home(const struct shb_h3_reqtab *t, uint64_t id)
{
	return (uint32_t)(id >> 2) & t->mask;
}

int shb_h3_reqtab_init(struct shb_h3_reqtab *t, uint32_t limit)
{
	uint32_t n = 2;

	memset(t, 0, sizeof(*t));
	if (limit == 0 || limit > 65536)
		return -1;
	while (n < 2 * limit)
		n <<= 1;
	t->slot = calloc(n, sizeof(*t->slot));
	if (!t->slot)
		return -1;
	t->mask = n - 1;
	t->limit = limit;
	return 0;
}

int shb_h3_reqtab_keep(struct shb_h3_reqtab *t, uint64_t body_max)
{
	t->keeps = calloc(t->limit, sizeof(*t->keeps));
	t->kfree = calloc(t->limit, sizeof(*t->kfree));
	if (!t->keeps || !t->kfree)
		return -1;
	for (uint32_t i = 0; i < t->limit; i++) {
		struct shb_h3_keep *k = &t->keeps[i];
		/* The reader refuses a longer section unread. */
		shb_buf_init(&k->section, 256, SHB_QPACK_DEC_MAX_SECTION);
		shb_buf_init(&k->body, 1024, body_max ? (size_t)body_max : 1);
		/* Decoded fields: strings at most twice the section's
		 * decoded size (NULs), a struct shb_kv per 32 octets. */
		shb_buf_init(&k->strs, 1024, 2 * SHB_QPACK_DEC_MAX_SECTION);
		shb_buf_init(&k->kvs, 32 * sizeof(struct shb_kv),
			     SHB_QPACK_DEC_MAX_SECTION);
		k->body_max = body_max;
		t->kfree[t->nkfree++] = k;
	}
	return 0;
}

void shb_h3_reqtab_free(struct shb_h3_reqtab *t)
{
	for (uint32_t i = 0; t->keeps && i < t->limit; i++) {
		shb_buf_free(&t->keeps[i].section);
		shb_buf_free(&t->keeps[i].body);
		shb_buf_free(&t->keeps[i].strs);
		shb_buf_free(&t->keeps[i].kvs);
	}
	free(t->keeps);
	free(t->kfree);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

struct shb_h3_req *shb_h3_reqtab_find(struct shb_h3_reqtab *t, uint64_t id)
{
	if (!t->count)
		return NULL;
	for (uint32_t i = home(t, id);; i = (i + 1) & t->mask) {
		struct shb_h3_req *r = &t->slot[i];
		if (!r->used)
			return NULL;
		if (r->id == id)
			return r;
	}
}

struct shb_h3_req *shb_h3_reqtab_find_cookie(struct shb_h3_reqtab *t,
					     uint64_t cookie)
{
	for (uint32_t i = 0; i <= t->mask && t->count; i++)
		if (t->slot[i].used && t->slot[i].cookie == cookie)
			return &t->slot[i];
	return NULL;
}

struct shb_h3_req *shb_h3_reqtab_add(struct shb_h3_reqtab *t, uint64_t id)
{
	uint32_t i;

	if (t->count >= t->limit)
		return NULL;
	/* At most half full: a free slot is always found. */
	for (i = home(t, id); t->slot[i].used; i = (i + 1) & t->mask)
		;
	memset(&t->slot[i], 0, sizeof(t->slot[i]));
	t->slot[i].used = 1;
	t->slot[i].id = id;
	if (t->nkfree)
		t->slot[i].keep = t->kfree[--t->nkfree];
	t->count++;
	return &t->slot[i];
}

/* True when slot k lies cyclically in (i, j]. */
static int between(uint32_t i, uint32_t k, uint32_t j)
{
	return i <= j ? (i < k && k <= j) : (i < k || k <= j);
}

void shb_h3_reqtab_remove(struct shb_h3_reqtab *t, struct shb_h3_req *r)
{
	uint32_t i = (uint32_t)(r - t->slot), j = i;

	if (r->keep)
		t->kfree[t->nkfree++] = r->keep;
	r->keep = NULL;
	t->slot[i].used = 0;
	t->count--;
	/* Backward shift: an entry further along the run whose home is not
	 * between the hole and itself would become unreachable, so it moves
	 * into the hole, which moves to where it was. */
	for (;;) {
		j = (j + 1) & t->mask;
		if (!t->slot[j].used)
			return;
		if (between(i, home(t, t->slot[j].id), j))
			continue;
		t->slot[i] = t->slot[j];
		t->slot[j].used = 0;
		i = j;
	}
}
