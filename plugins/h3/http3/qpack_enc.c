/* QPACK field line encoders: see qpack_enc.h. */
#include "qpack_enc.h"

#include <stdlib.h>
#include <string.h>

#include "http_prefint.h"
#include "qpack_static.h"

void shb_qpack_buf_free(struct shb_qpack_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* Room for `n` more octets; 0 on failure (oom set). */
static int reserve(struct shb_qpack_buf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->oom)
		return 0;
	if (b->cap - b->len >= n)
		return 1;
	cap = b->cap ? b->cap : 64;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2) {
			b->oom = 1;
			return 0;
		}
		cap *= 2;
	}
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = 1;
		return 0;
	}
	b->p = p;
	b->cap = cap;
	return 1;
}

void shb_qpack_put(struct shb_qpack_buf *b, const void *data, size_t len)
{
	if (len == 0 || !reserve(b, len))
		return;
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void put_int(struct shb_qpack_buf *b, unsigned prefix_bits,
		    uint8_t flags, uint64_t value)
{
	size_t n = shb_prefint_len(value, prefix_bits);

	if (!reserve(b, n))
		return;
	b->len += shb_prefint_encode(b->p + b->len, n, prefix_bits, flags,
				     value);
}

/* A string literal with H = 0: 7-bit prefixed length, then the octets. */
static void put_string(struct shb_qpack_buf *b, const char *s, size_t len)
{
	put_int(b, 7, 0x00, len);
	shb_qpack_put(b, s, len);
}

void shb_qpack_put_prefix(struct shb_qpack_buf *b)
{
	static const uint8_t prefix[2] = {0x00, 0x00};

	shb_qpack_put(b, prefix, sizeof(prefix));
}

void shb_qpack_put_indexed(struct shb_qpack_buf *b, uint64_t index)
{
	put_int(b, 6, 0xc0, index); /* 1 T=1 index */
}

void shb_qpack_put_name_ref(struct shb_qpack_buf *b, uint64_t index,
			    const char *value, size_t value_len)
{
	put_int(b, 4, 0x50, index); /* 01 N=0 T=1 index */
	put_string(b, value, value_len);
}

void shb_qpack_put_literal(struct shb_qpack_buf *b, const char *name,
			   size_t name_len, const char *value,
			   size_t value_len)
{
	put_int(b, 3, 0x20, name_len); /* 001 N=0 H=0 length */
	if (!reserve(b, name_len))
		return;
	for (size_t i = 0; i < name_len; i++) {
		char c = name[i];

		b->p[b->len++] =
			(uint8_t)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
	put_string(b, value, value_len);
}

void shb_qpack_put_static_name(struct shb_qpack_buf *b, uint64_t name_index,
			       const char *value, size_t value_len)
{
	const struct shb_qpack_static_entry *e =
		shb_qpack_static_get(name_index);
	int exact;

	if (!e) {
		b->oom = 1; /* a caller bug; fail the build of the block */
		return;
	}
	exact = shb_qpack_static_find(e->name, e->name_len, value, value_len);
	if (exact >= 0)
		shb_qpack_put_indexed(b, (uint64_t)exact);
	else
		shb_qpack_put_name_ref(b, name_index, value, value_len);
}
