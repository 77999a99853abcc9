/* A growable byte buffer with a hard cap: see buf.h. */
#include "common/buf.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_DEFAULT 64

void shb_buf_init(struct shb_buf *b, size_t first, size_t max)
{
	b->p = NULL;
	b->len = b->cap = 0;
	b->first = first;
	b->max = max;
	b->err = SHB_BUF_OK;
}

/* The allocation that holds `need` octets (len < need <= max): from the
 * current one (or `first`) by doubling, clamped to max. Every step is
 * checked against max before it is taken, so nothing wraps. */
static size_t grown(const struct shb_buf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : (b->first ? b->first : FIRST_DEFAULT);

	while (cap < need) {
		if (cap > b->max / 2)
			return b->max;
		cap *= 2;
	}
	return cap < b->max ? cap : b->max;
}

uint8_t *shb_buf_room_grow(struct shb_buf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->err != SHB_BUF_OK)
		return NULL;
	/* len <= max always: max - len cannot wrap, len + n cannot pass
	 * SIZE_MAX once this holds. */
	if (n > b->max - b->len) {
		b->err = SHB_BUF_E_CAP;
		return NULL;
	}
	if (n <= b->cap - b->len)
		return b->p ? b->p + b->len : NULL;
	cap = grown(b, b->len + n);
	p = realloc(b->p, cap);
	if (!p) {
		b->err = SHB_BUF_E_NOMEM;
		return NULL;
	}
	b->p = p;
	b->cap = cap;
	return b->p + b->len;
}

int shb_buf_put(struct shb_buf *b, const void *data, size_t n)
{
	uint8_t *d;

	if (n == 0)
		return b->err;
	d = shb_buf_room(b, n);
	if (!d)
		return b->err;
	memcpy(d, data, n);
	b->len += n;
	return SHB_BUF_OK;
}

int shb_buf_put_u8(struct shb_buf *b, uint8_t v)
{
	return shb_buf_put(b, &v, 1);
}

void shb_buf_clear(struct shb_buf *b)
{
	b->len = 0;
	b->err = SHB_BUF_OK;
}

void shb_buf_free(struct shb_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->err = SHB_BUF_OK;
}

uint8_t *shb_buf_take(struct shb_buf *b, size_t *len)
{
	uint8_t *p = b->p;

	*len = 0;
	if (b->err != SHB_BUF_OK || b->len == 0) {
		int err = b->err;

		shb_buf_free(b);
		b->err = err; /* still there for the caller to name */
		return NULL;
	}
	*len = b->len;
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}

const char *shb_buf_strerror(int err)
{
	switch (err) {
	case SHB_BUF_OK:
		return "ok";
	case SHB_BUF_E_NOMEM:
		return "out of memory";
	case SHB_BUF_E_CAP:
		return "above its cap";
	}
	return "unknown buffer error";
}
