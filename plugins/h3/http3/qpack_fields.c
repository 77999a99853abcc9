/* A checked QPACK field section decoded whole (qpack_fields.h); RFC 9204
 * Section 4.5 representations. */
#include "qpack_fields.h"

#include <string.h>

#include <shb/types.h>

#include "http_huffman.h"
#include "http_prefint.h"
#include "qpack_static.h"
#include "qpack_table.h"

struct rd {
	const uint8_t *p;
	size_t left;
	const struct shb_qpack_table *t; /* NULL: static only */
	uint64_t ric, base;
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

/* The dynamic entry of index idx relative to Base (post == 0) or
 * post-base; NULL unless the section may reference it and it is there. */
static const struct shb_qpack_entry *dynamic(const struct rd *r, uint64_t idx,
					     int post)
{
	uint64_t abs;

	if (!r->t || (!post && idx >= r->base))
		return NULL;
	abs = post ? r->base + idx : r->base - 1 - idx;
	if (abs >= r->ric)
		return NULL;
	return shb_qpack_table_get(r->t, abs);
}

/* Name (and value when `indexed`) of a table entry into strs. */
static int entry_strs(const struct rd *r, uint64_t idx, int is_static,
		      int post, int indexed, struct shb_buf *strs)
{
	if (is_static) {
		const struct shb_qpack_static_entry *e = shb_qpack_static_get(idx);

		if (!e || static_str(strs, e->name, e->name_len) < 0)
			return -1;
		return indexed ? static_str(strs, e->value, e->value_len) : 0;
	}
	const struct shb_qpack_entry *e = dynamic(r, idx, post);

	if (!e || static_str(strs, (const char *)shb_qpack_entry_name(r->t, e),
			     e->name_len) < 0)
		return -1;
	if (!indexed)
		return 0;
	return static_str(strs, (const char *)shb_qpack_entry_value(r->t, e),
			  e->value_len);
}

/* One field line into strs; -1 when it cannot be read. */
static int line(struct rd *r, struct shb_buf *strs)
{
	uint8_t b = r->p[0];
	uint64_t idx;

	if (b & 0x80) /* 1 T index(6): indexed */
		return integer(r, 6, &idx) < 0 ? -1 :
		       entry_strs(r, idx, (b & 0x40) != 0, 0, 1, strs);
	if (b & 0x40) { /* 01 N T index(4): literal with a name reference */
		if (integer(r, 4, &idx) < 0 ||
		    entry_strs(r, idx, (b & 0x10) != 0, 0, 0, strs) < 0)
			return -1;
		return string(r, 7, 7, strs);
	}
	if (b & 0x20) { /* literal name */
		if (string(r, 3, 3, strs) < 0)
			return -1;
		return string(r, 7, 7, strs);
	}
	if (b & 0x10) /* 0001 index(4): indexed, post-base */
		return integer(r, 4, &idx) < 0 ? -1 :
		       entry_strs(r, idx, 0, 1, 1, strs);
	/* 0000 N index(3): literal with a post-base name reference */
	if (integer(r, 3, &idx) < 0 || entry_strs(r, idx, 0, 1, 0, strs) < 0)
		return -1;
	return string(r, 7, 7, strs);
}

/* The prefix: Required Insert Count and Base (Section 4.5.1). */
static int prefix(struct rd *r)
{
	uint64_t enc, delta;
	int neg;

	if (integer(r, 8, &enc) < 0)
		return -1;
	if (!r->t)
		r->ric = 0;
	else if (shb_qpack_ric_decode(r->t, enc, &r->ric) < 0 ||
		 r->ric > r->t->inserted)
		return -1;
	if (enc && !r->t)
		return -1;
	neg = r->left && (r->p[0] & 0x80);
	if (integer(r, 7, &delta) < 0 || (neg && delta >= r->ric))
		return -1;
	r->base = neg ? r->ric - delta - 1 : r->ric + delta;
	return 0;
}

long shb_qpack_fields(const uint8_t *sec, size_t len,
		      const struct shb_qpack_table *t, struct shb_buf *strs,
		      struct shb_buf *kvs)
{
	struct rd r = {sec, len, t, 0, 0};
	long n = 0;

	shb_buf_clear(strs);
	shb_buf_clear(kvs);
	if (prefix(&r) < 0)
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
