/* The FIFO of requests in flight on one connection: see h1_pipe.h. */
#include "h1_pipe.h"

#include <stdlib.h>
#include <string.h>

int shb_h1_pipe_init(struct shb_h1_pipe *p, uint32_t depth)
{
	memset(p, 0, sizeof(*p));
	if (depth < 1)
		depth = 1;
	p->depth = depth;
	p->e = &p->one;
	if (depth == 1)
		return 0;
	p->e = calloc(depth, sizeof(*p->e));
	if (!p->e) {
		p->e = &p->one;
		p->depth = 1;
		return -1;
	}
	return 0;
}

void shb_h1_pipe_fini(struct shb_h1_pipe *p)
{
	if (!p->e)
		return;
	for (uint32_t i = 0; i < p->depth; i++)
		free(p->e[i].buf);
	if (p->e != &p->one)
		free(p->e);
	p->e = NULL;
	p->depth = 0;
	p->count = p->answered = p->sent = 0;
}

void shb_h1_pipe_push(struct shb_h1_pipe *p, const struct shb_h1_request *r,
		      uint64_t cookie)
{
	struct shb_h1_entry *e = shb_h1_pipe_tail(p);

	e->req = r;
	e->cookie = cookie;
	if (p->sent == p->count)
		p->send_off = 0; /* the send cursor waits at this entry */
	p->count++;
}

uint8_t *shb_h1_pipe_buf(struct shb_h1_pipe *p, size_t n)
{
	struct shb_h1_entry *e = shb_h1_pipe_tail(p);

	if (n > e->cap) {
		/* A free entry: none of its old bytes is in flight. */
		uint8_t *b = realloc(e->buf, n);
		if (!b)
			return NULL;
		e->buf = b;
		e->cap = n;
	}
	return e->buf;
}

/* Entries past both cursors leave from the front. */
static void retire(struct shb_h1_pipe *p)
{
	while (p->answered && p->sent) {
		p->answered--;
		p->sent--;
		p->count--;
		if (++p->head == p->depth)
			p->head = 0;
	}
}

void shb_h1_pipe_answer(struct shb_h1_pipe *p)
{
	if (p->answered < p->count)
		p->answered++;
	retire(p);
}

void shb_h1_pipe_sent(struct shb_h1_pipe *p, size_t n, size_t extra)
{
	while (n && p->sent < p->count) {
		const struct shb_h1_request *r = shb_h1_pipe_at(p, p->sent)->req;
		size_t left = r->total + extra - p->send_off;
		if (n < left) {
			p->send_off += n;
			break;
		}
		n -= left;
		p->sent++;
		p->send_off = 0;
	}
	retire(p);
}

void shb_h1_pipe_clear(struct shb_h1_pipe *p)
{
	p->head = 0;
	p->count = p->answered = p->sent = 0;
	p->send_off = 0;
}
