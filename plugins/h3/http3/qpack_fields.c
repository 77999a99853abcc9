/* A checked QPACK field section decoded whole (qpack_fields.h); RFC 9204
 * Section 4.5 representations. */
#include "qpack_fields.h"

#include <string.h>

#include <shb/types.h>

#include "http_huffman.h"
#include "http_prefint.h"
#include "qpack_static.h"

struct rd {
	const uint8_t *p;
	size_t left;
};

static int integer(struct rd *r, unsigned prefix, uint64_t *v)
{
	size_t used = 0;

	if (!r->left || shb_prefint_decode(r->p, r->left, prefix, v, &used) !=
				SHB_PREFINT_DONE)
		return -1;
	r->p += used;
	r->left -= used;
	return 0;
}

/* A string whose H flag is bit `hbit` of its first octet and whose
 * length has a `prefix`-bit prefix, appended to strs with its NUL. */
static int string(struct rd *r, unsigned hbit, unsigned prefix,
		  struct shb_buf *strs)
{
	uint64_t n;
	int huff = r->left && (r->p[0] >> hbit) & 1;

	if (integer(r, prefix, &n) < 0 || n > r->left)
		return -1;
	if (!huff) {
		shb_buf_put(strs, r->p, (size_t)n);
	} else {
		size_t cap = (size_t)n * 8 / 5 + 1, out = 0;
		uint8_t *d = shb_buf_room(strs, cap);
		if (!d || shb_huff_decode(r->p, (size_t)n, d, cap, &out) != SHB_HUFF_OK)
			return -1;
		shb_buf_commit(strs, out);
	}
	r->p += n;
	r->left -= (size_t)n;
	return shb_buf_put_u8(strs, 0) == SHB_BUF_OK ? 0 : -1;
}

static int static_str(struct shb_buf *strs, const char *s, size_t n)
{
	shb_buf_put(strs, s, n);
	return shb_buf_put_u8(strs, 0) == SHB_BUF_OK ? 0 : -1;
}

/* One field line into strs; -1 when it cannot be read. */
static int line(struct rd *r, struct shb_buf *strs)
{
	const struct shb_qpack_static_entry *e;
	uint8_t b = r->p[0];
	uint64_t idx;

	if (b & 0x80) { /* indexed; T must be 1 (static) */
		if (!(b & 0x40) || integer(r, 6, &idx) < 0 ||
		    !(e = shb_qpack_static_get(idx)))
			return -1;
		if (static_str(strs, e->name, e->name_len) < 0)
			return -1;
		return static_str(strs, e->value, e->value_len);
	}
	if (b & 0x40) { /* literal with a (static) name reference */
		if (!(b & 0x10) || integer(r, 4, &idx) < 0 ||
		    !(e = shb_qpack_static_get(idx)) ||
		    static_str(strs, e->name, e->name_len) < 0)
			return -1;
		return string(r, 7, 7, strs);
	}
	if (b & 0x20) { /* literal name */
		if (string(r, 3, 3, strs) < 0)
			return -1;
		return string(r, 7, 7, strs);
	}
	return -1; /* post-base: dynamic, never from a capacity-0 encoder */
}

long shb_qpack_fields(const uint8_t *sec, size_t len, struct shb_buf *strs,
		      struct shb_buf *kvs)
{
	struct rd r = {sec, len};
	uint64_t ric, base;
	long n = 0;

	shb_buf_clear(strs);
	shb_buf_clear(kvs);
	if (integer(&r, 8, &ric) < 0 || ric != 0 || integer(&r, 7, &base) < 0)
		return -1;
	while (r.left)
		if (line(&r, strs) < 0)
			return -1;
		else
			n++;
	/* Pointers only once strs stopped moving; pseudo-headers out. */
	const char *p = (const char *)strs->p;
	long kept = 0;
	for (long i = 0; i < n; i++) {
		struct shb_kv kv = {p, p + strlen(p) + 1};
		p = kv.value + strlen(kv.value) + 1;
		if (kv.key[0] == ':')
			continue;
		if (shb_buf_put(kvs, &kv, sizeof(kv)) != SHB_BUF_OK)
			return -1;
		kept++;
	}
	return kept;
}
