/* QPACK field line encoders: see qpack_enc.h. */
#include "qpack_enc.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "http_prefint.h"
#include "qpack_static.h"

static void put_int(struct shb_buf *b, unsigned prefix_bits,
		    uint8_t flags, uint64_t value)
{
	size_t n = shb_prefint_len(value, prefix_bits);
	uint8_t *p = shb_buf_room(b, n);

	if (p)
		shb_buf_commit(b, shb_prefint_encode(p, n, prefix_bits, flags,
						     value));
}

/* A string literal with H = 0: 7-bit prefixed length, then the octets. */
static void put_string(struct shb_buf *b, const char *s, size_t len)
{
	put_int(b, 7, 0x00, len);
	shb_buf_put(b, s, len);
}

void shb_qpack_put_prefix(struct shb_buf *b)
{
	static const uint8_t prefix[2] = {0x00, 0x00};

	shb_buf_put(b, prefix, sizeof(prefix));
}

void shb_qpack_put_indexed(struct shb_buf *b, uint64_t index)
{
	put_int(b, 6, 0xc0, index); /* 1 T=1 index */
}

void shb_qpack_put_name_ref(struct shb_buf *b, uint64_t index,
			    const char *value, size_t value_len)
{
	put_int(b, 4, 0x50, index); /* 01 N=0 T=1 index */
	put_string(b, value, value_len);
}

void shb_qpack_put_literal(struct shb_buf *b, const char *name,
			   size_t name_len, const char *value,
			   size_t value_len)
{
	uint8_t *p;

	put_int(b, 3, 0x20, name_len); /* 001 N=0 H=0 length */
	p = shb_buf_room(b, name_len);
	if (!p && name_len)
		return;
	for (size_t i = 0; i < name_len; i++) {
		char c = name[i];

		p[i] = (uint8_t)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
	shb_buf_commit(b, name_len);
	put_string(b, value, value_len);
}

void shb_qpack_put_static_name(struct shb_buf *b, uint64_t name_index,
			       const char *value, size_t value_len)
{
	const struct shb_qpack_static_entry *e =
		shb_qpack_static_get(name_index);
	int exact;

	if (!e) {
		b->err = SHB_BUF_E_NOMEM; /* a caller bug; fail the build */
		return;
	}
	exact = shb_qpack_static_find(e->name, e->name_len, value, value_len);
	if (exact >= 0)
		shb_qpack_put_indexed(b, (uint64_t)exact);
	else
		shb_qpack_put_name_ref(b, name_index, value, value_len);
}
