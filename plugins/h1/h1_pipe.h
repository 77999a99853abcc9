/* The requests of one HTTP/1.1 connection in flight: a FIFO of up to
 * `depth` of them (-p), written in order and answered in order (RFC 9112
 * section 9.3.2: a client may pipeline, the server answers in the order
 * the requests came).
 *
 * An entry is added at the tail by issue. Its bytes leave from the send
 * cursor (snt, and send_off bytes into it); its response is read at the
 * answer cursor (ans). It leaves the FIFO only once both cursors are past
 * it: an eager server may answer before the body is out, and bytes handed
 * to the core stay put until sent() says so. With depth 1 this is the
 * one-request-at-a-time connection it replaces, with no allocation.
 *
 * Plain data, [conn]: owned by its connection. A varied or whole request
 * is written into its entry's own buffer (struct shb_h1_own, grown to the
 * largest request that entry carried, freed by shb_h1_pipe_fini), so the
 * entries in flight never share bytes. */
#ifndef SHB_H1_PIPE_H
#define SHB_H1_PIPE_H

#include <stddef.h>
#include <stdint.h>

#include "h1_request.h"

/* The deepest pipeline -p may ask for on HTTP/1.1 (the core's own -p
 * limit): the responses owed on one connection, and the per-request
 * buffers it holds. */
#define SHB_H1_PIPE_MAX 1024u

/* What every request reads (16 bytes, in a ring whose size is a power of
 * two: indexed with a shift and a mask, not a division). */
struct shb_h1_entry {
	const struct shb_h1_request *req; /* the module's, or &own[i].req */
	uint64_t cookie;
};

/* A varied or whole request of the entry at the same index, in buf. */
struct shb_h1_own {
	struct shb_h1_request req;
	uint8_t *buf;
	size_t cap;
};

/* The cursors are sequence numbers of requests on the connection
 * (wrapping uint32_t; entry of number s at e[s & mask]):
 * base <= ans, snt <= tail, tail - base <= depth. */
struct shb_h1_pipe {
	struct shb_h1_entry *e; /* mask + 1 entries; &one for depth 1 */
	struct shb_h1_own *own; /* as many; &own_one for depth 1; NULL until
				 * the first varied request */
	struct shb_h1_entry one;
	struct shb_h1_own own_one;
	uint32_t depth;
	uint32_t mask;   /* ring size - 1: a power of two >= depth, - 1 */
	uint32_t base;   /* the oldest request in the FIFO */
	uint32_t tail;   /* the next request issued */
	uint32_t ans;    /* the oldest request not answered */
	uint32_t snt;    /* the oldest request not sent whole */
	size_t send_off; /* bytes of request snt accepted so far */
};

/* depth 1..SHB_H1_PIPE_MAX. 0, or -1 when out of memory. */
int shb_h1_pipe_init(struct shb_h1_pipe *p, uint32_t depth);
void shb_h1_pipe_fini(struct shb_h1_pipe *p);

/* The entry of request number s (base <= s < tail). */
static inline struct shb_h1_entry *shb_h1_pipe_at(struct shb_h1_pipe *p,
						  uint32_t s)
{
	return &p->e[s & p->mask];
}

static inline uint32_t shb_h1_pipe_room(const struct shb_h1_pipe *p)
{
	return p->depth - (p->tail - p->base);
}

/* Requests whose response is still owed. */
static inline uint32_t shb_h1_pipe_owed(const struct shb_h1_pipe *p)
{
	return p->tail - p->ans;
}

static inline int shb_h1_pipe_unsent(const struct shb_h1_pipe *p)
{
	return p->snt != p->tail;
}

/* The tail entry's own request and buffer (after shb_h1_pipe_buf). */
static inline struct shb_h1_own *shb_h1_pipe_tail_own(struct shb_h1_pipe *p)
{
	return &p->own[p->tail & p->mask];
}

/* Inline, as the rest of the per-request path: with -p 1 these calls
 * are most of what the FIFO adds to a request. Adds a request at the
 * tail (room checked by the caller). */
static inline void shb_h1_pipe_push(struct shb_h1_pipe *p,
				    const struct shb_h1_request *r,
				    uint64_t cookie)
{
	struct shb_h1_entry *e = shb_h1_pipe_at(p, p->tail);

	e->req = r;
	e->cookie = cookie;
	p->tail++;
}

/* The tail entry's buffer, at least n bytes: its pointer, or NULL when
 * out of memory (the entry keeps what it had). */
uint8_t *shb_h1_pipe_buf(struct shb_h1_pipe *p, size_t n);

/* Requests past both cursors leave from the front. An empty FIFO starts
 * again at entry 0: a deep ring that carries a few requests at a time (a
 * script's strings without -p) reuses the same few entries and buffers,
 * warm in the cache, instead of walking all of them. Every byte of the
 * entries was sent (snt == tail), so no send holds their buffers. */
static inline void shb_h1_pipe_retire(struct shb_h1_pipe *p)
{
	p->base = p->ans - p->base < p->snt - p->base ? p->ans : p->snt;
	if (p->base == p->tail)
		p->base = p->ans = p->snt = p->tail = 0;
}

/* The oldest owed request was answered (or failed). */
static inline void shb_h1_pipe_answer(struct shb_h1_pipe *p)
{
	if (p->ans != p->tail)
		p->ans++;
	shb_h1_pipe_retire(p);
}

/* n bytes were accepted by the transport; each request puts its total
 * plus `extra` bytes on the wire (the absolute form's scheme and
 * authority). */
static inline void shb_h1_pipe_sent(struct shb_h1_pipe *p, size_t n,
				    size_t extra)
{
	while (n && p->snt != p->tail) {
		const struct shb_h1_request *r = shb_h1_pipe_at(p, p->snt)->req;
		size_t left = r->total + extra - p->send_off;
		if (n < left) {
			p->send_off += n;
			break;
		}
		n -= left;
		p->snt++;
		p->send_off = 0;
	}
	shb_h1_pipe_retire(p);
}

/* Forgets every entry (the connection is closing; nothing more is sent
 * or read). The buffers stay until fini: a send may still hold them. */
void shb_h1_pipe_clear(struct shb_h1_pipe *p);

#endif
