/* The FIFO of requests in flight on one connection: see h1_pipe.h. */
#include "h1_pipe.h"

#include <stdlib.h>
#include <string.h>

int shb_h1_pipe_init(struct shb_h1_pipe *p, uint32_t depth)
{
	uint32_t size = 1;

	memset(p, 0, sizeof(*p));
	p->depth = depth < 1 ? 1 : depth;
	p->e = &p->one;
	p->own = &p->own_one;
	if (p->depth == 1)
		return 0;
	while (size < p->depth)
		size <<= 1;
	/* own waits for the first varied request (shb_h1_pipe_buf): a run
	 * of one prepared request never needs it. */
	p->own = NULL;
	p->e = calloc(size, sizeof(*p->e));
	if (!p->e) {
		p->e = &p->one;
		p->own = &p->own_one;
		p->depth = 1;
		return -1;
	}
	p->mask = size - 1;
	return 0;
}

void shb_h1_pipe_fini(struct shb_h1_pipe *p)
{
	if (!p->e)
		return;
	for (uint32_t i = 0; p->own && i <= p->mask; i++)
		free(p->own[i].buf);
	if (p->e != &p->one) {
		free(p->e);
		free(p->own);
	}
	p->e = NULL;
	p->own = NULL;
	p->depth = 0;
	p->base = p->tail = p->ans = p->snt = 0;
}

uint8_t *shb_h1_pipe_buf(struct shb_h1_pipe *p, size_t n)
{
	if (!p->own) {
		p->own = calloc(p->mask + 1, sizeof(*p->own));
		if (!p->own)
			return NULL;
	}
	struct shb_h1_own *o = shb_h1_pipe_tail_own(p);

	if (n > o->cap) {
		/* A free entry: none of its old bytes is in flight. */
		uint8_t *b = realloc(o->buf, n);
		if (!b)
			return NULL;
		o->buf = b;
		o->cap = n;
	}
	return o->buf;
}

void shb_h1_pipe_clear(struct shb_h1_pipe *p)
{
	p->base = p->ans = p->snt = p->tail;
	p->send_off = 0;
}
