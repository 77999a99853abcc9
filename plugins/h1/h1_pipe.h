/* The requests of one HTTP/1.1 connection in flight: a FIFO of up to
 * `depth` of them (-p), written in order and answered in order (RFC 9112
 * section 9.3.2: a client may pipeline, the server answers in the order
 * the requests came).
 *
 * An entry is added at the tail by issue. Its bytes leave from the send
 * cursor (`sent` whole entries, then send_off bytes of the next); its
 * response is read at the answer cursor (`answered` entries). It leaves
 * the FIFO only once both cursors are past it: an eager server may answer
 * before the body is out, and bytes handed to the core stay put until
 * sent() says so. With depth 1 this is the one-request-at-a-time
 * connection it replaces, with no allocation.
 *
 * Plain data, [conn]: owned by its connection. A varied or whole request
 * is written into its entry's own buffer (struct shb_h1_own) (grown to the largest request
 * that entry carried, freed by shb_h1_pipe_fini), so the entries in flight
 * never share bytes. */
#ifndef SHB_H1_PIPE_H
#define SHB_H1_PIPE_H

#include <stddef.h>
#include <stdint.h>

#include "h1_request.h"

/* The deepest pipeline -p may ask for on HTTP/1.1 (the core's own -p
 * limit): the responses owed on one connection, and the per-request
 * buffers it holds. */
#define SHB_H1_PIPE_MAX 1024u

/* What every request reads (16 bytes: the ring is indexed with a shift
 * and a mask, not a division). */
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

struct shb_h1_pipe {
	struct shb_h1_entry *e; /* mask + 1 entries; &one for depth 1 */
	struct shb_h1_own *own; /* as many; &own_one for depth 1; NULL until
				 * the first varied request */
	struct shb_h1_entry one;
	struct shb_h1_own own_one;
	uint32_t depth;
	uint32_t mask;     /* ring size - 1: a power of two >= depth, - 1 */
	uint32_t head;     /* index in e of the oldest entry */
	uint32_t count;    /* entries in the FIFO */
	uint32_t answered; /* of them, from the oldest, answered */
	uint32_t sent;     /* of them, from the oldest, all bytes accepted */
	size_t send_off;   /* bytes of the entry at `sent` accepted so far */
};

/* depth 1..SHB_H1_PIPE_MAX. 0, or -1 when out of memory. */
int shb_h1_pipe_init(struct shb_h1_pipe *p, uint32_t depth);
void shb_h1_pipe_fini(struct shb_h1_pipe *p);

/* The i-th entry from the oldest (i < count). */
static inline struct shb_h1_entry *shb_h1_pipe_at(struct shb_h1_pipe *p,
						  uint32_t i)
{
	return &p->e[(p->head + i) & p->mask];
}

static inline uint32_t shb_h1_pipe_room(const struct shb_h1_pipe *p)
{
	return p->depth - p->count;
}

/* Requests whose response is still owed. */
static inline uint32_t shb_h1_pipe_owed(const struct shb_h1_pipe *p)
{
	return p->count - p->answered;
}

static inline int shb_h1_pipe_unsent(const struct shb_h1_pipe *p)
{
	return p->sent < p->count;
}

/* The entry a new request goes into (room checked by the caller); it
 * counts once shb_h1_pipe_push is called. */
static inline struct shb_h1_entry *shb_h1_pipe_tail(struct shb_h1_pipe *p)
{
	return shb_h1_pipe_at(p, p->count);
}

/* The tail entry's own request and buffer (after shb_h1_pipe_buf). */
static inline struct shb_h1_own *shb_h1_pipe_tail_own(struct shb_h1_pipe *p)
{
	return &p->own[(p->head + p->count) & p->mask];
}

/* Inline, as the rest of the per-request path: with -p 1 these calls
 * are most of what the FIFO adds to a request. */
static inline void shb_h1_pipe_push(struct shb_h1_pipe *p,
				    const struct shb_h1_request *r,
				    uint64_t cookie)
{
	struct shb_h1_entry *e = shb_h1_pipe_tail(p);

	e->req = r;
	e->cookie = cookie;
	p->count++;
}

/* The tail entry's buffer, at least n bytes: its pointer, or NULL when
 * out of memory (the entry keeps what it had). */
uint8_t *shb_h1_pipe_buf(struct shb_h1_pipe *p, size_t n);

/* Entries past both cursors leave from the front. */
static inline void shb_h1_pipe_retire(struct shb_h1_pipe *p)
{
	uint32_t k = p->answered < p->sent ? p->answered : p->sent;

	if (!k)
		return;
	p->answered -= k;
	p->sent -= k;
	p->count -= k;
	p->head = (p->head + k) & p->mask;
}

/* The oldest owed request was answered (or failed); entries both answered
 * and sent leave. */
static inline void shb_h1_pipe_answer(struct shb_h1_pipe *p)
{
	if (p->answered < p->count)
		p->answered++;
	shb_h1_pipe_retire(p);
}

/* n bytes were accepted by the transport; each request puts its total
 * plus `extra` bytes on the wire (the absolute form's scheme and
 * authority). */
static inline void shb_h1_pipe_sent(struct shb_h1_pipe *p, size_t n,
				    size_t extra)
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
	shb_h1_pipe_retire(p);
}

/* Forgets every entry (the connection is closing; nothing more is sent
 * or read). The buffers stay until fini: a send may still hold them. */
void shb_h1_pipe_clear(struct shb_h1_pipe *p);

#endif
