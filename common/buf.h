/* A growable byte buffer with a hard cap, for every buffer that grows by
 * appends: header blocks built at prepare time, a connection's output,
 * the decoded fields of a peer's header block.
 *
 * Every size computation is checked: an append that would take len past
 * `max` fails with SHB_BUF_E_CAP and one that cannot allocate with
 * SHB_BUF_E_NOMEM, and neither changes p[0..len). The error is sticky:
 * later appends do nothing and return it, so a builder can append a
 * series of pieces and test `err` once at the end. shb_buf_clear empties
 * the buffer and forgets the error. `max` is the point of the type: a
 * buffer a peer can make grow stops there, so a misbehaving peer costs
 * the connection an error, never the process its memory.
 *
 * Memory grows from `first` octets by doubling (never above `max`):
 * small buffers stay small, since a connection keeps its buffers and every
 * page written in them stays resident. Not thread-safe: one owner. */
#ifndef SHB_BUF_H
#define SHB_BUF_H

#include <stddef.h>
#include <stdint.h>

enum {
	SHB_BUF_OK = 0,
	SHB_BUF_E_NOMEM = -1, /* realloc failed */
	SHB_BUF_E_CAP = -2,   /* the append would pass max */
};

struct shb_buf {
	uint8_t *p;   /* owned; NULL until the first append */
	size_t len;   /* octets in use */
	size_t cap;   /* octets allocated; len <= cap <= max */
	size_t first; /* the first allocation (0: 64 octets) */
	size_t max;   /* the hard cap on len */
	int err;      /* SHB_BUF_OK or the first error since clear */
};

/* A static initializer: struct shb_buf b = SHB_BUF_INIT(256, 1 << 20); */
#define SHB_BUF_INIT(first_, max_) {NULL, 0, 0, (first_), (max_), SHB_BUF_OK}

/* Sets up an empty buffer (nothing allocated). A zeroed buffer has max 0:
 * every non-empty append fails with SHB_BUF_E_CAP until this is called. */
void shb_buf_init(struct shb_buf *b, size_t first, size_t max);

/* shb_buf_room when the room is not there already: checks the cap,
 * grows, or answers the error. */
uint8_t *shb_buf_room_grow(struct shb_buf *b, size_t n);

/* Room for `n` more octets at p + len, or NULL (err set). The caller
 * writes at most n octets there and then calls shb_buf_commit. n == 0
 * answers p + len (NULL when nothing was allocated yet). Inline: most
 * calls find the room allocated (a connection's output, once warm), and
 * they are on every request's path. */
static inline uint8_t *shb_buf_room(struct shb_buf *b, size_t n)
{
	/* cap <= max: room within cap is within the cap on len too. */
	if (b->err == SHB_BUF_OK && b->p && n <= b->cap - b->len)
		return b->p + b->len;
	return shb_buf_room_grow(b, n);
}

/* Counts `n` octets written into the room as in use (n at most the room
 * asked for; larger n is clamped to cap). */
static inline void shb_buf_commit(struct shb_buf *b, size_t n)
{
	b->len += n <= b->cap - b->len ? n : b->cap - b->len;
}

/* Appends data[0..n): SHB_BUF_OK or the (sticky) error. */
int shb_buf_put(struct shb_buf *b, const void *data, size_t n);

/* Appends one octet. */
int shb_buf_put_u8(struct shb_buf *b, uint8_t v);

/* Empties the buffer and forgets its error; memory is kept for reuse. */
void shb_buf_clear(struct shb_buf *b);

/* Frees the memory and empties the buffer; first and max are kept, so
 * the buffer can be used again. */
void shb_buf_free(struct shb_buf *b);

/* Hands p[0..len) to the caller (who frees it) and leaves the buffer
 * empty with nothing allocated; *len gets the length. NULL when the
 * buffer has an error (the memory is then freed) or holds nothing. */
uint8_t *shb_buf_take(struct shb_buf *b, size_t *len);

/* "out of memory", "above its cap", or "ok". */
const char *shb_buf_strerror(int err);

#endif
