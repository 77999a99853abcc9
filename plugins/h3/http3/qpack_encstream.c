/* The server's QPACK encoder stream: see qpack_encstream.h. */
#include "qpack_encstream.h"

#include <string.h>

#include "http_huffman.h"
#include "qpack_static.h"

enum state {
	ES_FIRST,       /* first octet of an instruction */
	ES_INT,         /* continuation octets of a prefixed integer */
	ES_VALUE_FIRST, /* first octet of a value string */
	ES_STRING,      /* string octets */
};

/* What the integer being read is for. */
enum what {
	W_CAPACITY,
	W_NAME_REF,
	W_NAME_LEN,
	W_VALUE_LEN,
	W_DUPLICATE,
	W_NAME, /* ES_STRING: the name's octets */
	W_VALUE,
};

void shb_qpack_encrd_init(struct shb_qpack_encrd *r, uint32_t limit)
{
	memset(r, 0, sizeof(*r));
	shb_buf_init(&r->raw, 64, limit);
	shb_buf_init(&r->nv, 64, 3 * (size_t)limit + 16);
}

void shb_qpack_encrd_fini(struct shb_qpack_encrd *r)
{
	shb_buf_free(&r->raw);
	shb_buf_free(&r->nv);
}

static long fail(struct shb_qpack_encrd *r, const char *why)
{
	r->detail = why;
	return -1;
}

static long table_error(struct shb_qpack_encrd *r, int rc)
{
	if (rc == SHB_QPACK_TABLE_E_CAPACITY)
		return fail(r, "dynamic table capacity above the one we "
			       "announced");
	if (rc == SHB_QPACK_TABLE_E_TOO_BIG)
		return fail(r, "entry larger than the dynamic table capacity");
	return fail(r, "out of memory for the dynamic table");
}

static long insert(struct shb_qpack_encrd *r, struct shb_qpack_table *t)
{
	/* An empty name and value leave nv unallocated. */
	const uint8_t *nv = r->nv.p ? r->nv.p : (const uint8_t *)"";
	int rc = shb_qpack_table_insert(t, nv, r->name_len, nv + r->name_len,
					r->nv.len - r->name_len);

	r->state = ES_FIRST;
	if (rc < 0)
		return table_error(r, rc);
	r->inserts++;
	return 1;
}

/* The dynamic entry `rel` places before the newest (0: the newest). */
static const struct shb_qpack_entry *relative(const struct shb_qpack_table *t,
					      uint64_t rel)
{
	if (rel >= t->inserted)
		return NULL;
	return shb_qpack_table_get(t, t->inserted - 1 - rel);
}

static long name_ref(struct shb_qpack_encrd *r,
		     const struct shb_qpack_table *t, uint64_t idx)
{
	shb_buf_clear(&r->nv);
	if (r->is_static) {
		const struct shb_qpack_static_entry *s = shb_qpack_static_get(idx);

		if (!s)
			return fail(r, "static table index out of range");
		shb_buf_put(&r->nv, s->name, s->name_len);
	} else {
		const struct shb_qpack_entry *e = relative(t, idx);

		if (!e)
			return fail(r, "reference to a dynamic entry not in "
				       "the table");
		shb_buf_put(&r->nv, shb_qpack_entry_name(t, e), e->name_len);
	}
	if (r->nv.err)
		return fail(r, "out of memory for the dynamic table");
	r->name_len = (uint32_t)r->nv.len;
	r->state = ES_VALUE_FIRST;
	return 0;
}

/* Duplicate: a copy of the entry first, since inserting may evict it. */
static long duplicate(struct shb_qpack_encrd *r, struct shb_qpack_table *t,
		      uint64_t idx)
{
	const struct shb_qpack_entry *e = relative(t, idx);

	if (!e)
		return fail(r, "Duplicate of a dynamic entry not in the table");
	shb_buf_clear(&r->nv);
	shb_buf_put(&r->nv, shb_qpack_entry_name(t, e),
		    (size_t)e->name_len + e->value_len);
	if (r->nv.err)
		return fail(r, "out of memory for the dynamic table");
	r->name_len = e->name_len;
	return insert(r, t);
}

static long string_end(struct shb_qpack_encrd *r, struct shb_qpack_table *t)
{
	if (r->huffman) {
		size_t cap = r->raw.len * 8 / 5 + 1, out = 0;
		uint8_t *d = shb_buf_room(&r->nv, cap);

		if (!d)
			return fail(r, "out of memory for the dynamic table");
		if (shb_huff_decode(r->raw.p, r->raw.len, d, cap, &out) !=
		    SHB_HUFF_OK)
			return fail(r, "bad Huffman string on the encoder "
				       "stream");
		shb_buf_commit(&r->nv, out);
	}
	if (r->what == W_VALUE)
		return insert(r, t);
	r->name_len = (uint32_t)r->nv.len;
	r->state = ES_VALUE_FIRST;
	return 0;
}

static long start_string(struct shb_qpack_encrd *r,
			 struct shb_qpack_table *t, uint64_t len)
{
	if (len > t->limit)
		return fail(r, "encoder stream string longer than our dynamic "
			       "table limit");
	if (r->what == W_NAME_LEN)
		shb_buf_clear(&r->nv);
	shb_buf_clear(&r->raw);
	r->what = r->what == W_NAME_LEN ? W_NAME : W_VALUE;
	r->str_left = len;
	r->state = ES_STRING;
	return len == 0 ? string_end(r, t) : 0;
}

/* The integer in r->pi is complete. */
static long got_int(struct shb_qpack_encrd *r, struct shb_qpack_table *t)
{
	uint64_t v = r->pi.value;
	int rc;

	switch (r->what) {
	case W_CAPACITY:
		rc = shb_qpack_table_set_capacity(t, v);
		r->state = ES_FIRST;
		return rc < 0 ? table_error(r, rc) : 0;
	case W_NAME_REF:
		return name_ref(r, t, v);
	case W_DUPLICATE:
		return duplicate(r, t, v);
	default: /* W_NAME_LEN, W_VALUE_LEN */
		return start_string(r, t, v);
	}
}

static long start_int(struct shb_qpack_encrd *r, struct shb_qpack_table *t,
		      uint8_t octet, unsigned prefix, uint8_t what)
{
	r->what = what;
	if (shb_prefint_begin(&r->pi, octet, prefix) == SHB_PREFINT_DONE)
		return got_int(r, t);
	r->state = ES_INT;
	return 0;
}

static long first(struct shb_qpack_encrd *r, struct shb_qpack_table *t,
		  uint8_t o)
{
	/* Every entry costs 32 octets or more: refused before anything of it
	 * is read (or kept). */
	if ((o & 0xe0) != 0x20 && t->capacity == 0)
		return fail(r, "insertion into a zero-capacity dynamic table");
	if (o & 0x80) { /* 1 T index(6): Insert with Name Reference */
		r->is_static = (o & 0x40) != 0;
		return start_int(r, t, o, 6, W_NAME_REF);
	}
	if (o & 0x40) { /* 01 H length(5): Insert with Literal Name */
		r->huffman = (o & 0x20) != 0;
		return start_int(r, t, o, 5, W_NAME_LEN);
	}
	if (o & 0x20) /* 001 capacity(5): Set Dynamic Table Capacity */
		return start_int(r, t, o, 5, W_CAPACITY);
	return start_int(r, t, o, 5, W_DUPLICATE); /* 000 index(5) */
}

static long octet(struct shb_qpack_encrd *r, struct shb_qpack_table *t,
		  uint8_t o)
{
	int rc;

	switch (r->state) {
	case ES_FIRST:
		return first(r, t, o);
	case ES_INT:
		rc = shb_prefint_next(&r->pi, o);
		if (rc == SHB_PREFINT_E_RANGE)
			return fail(r, "QPACK integer too large");
		return rc == SHB_PREFINT_DONE ? got_int(r, t) : 0;
	default: /* ES_VALUE_FIRST: H length(7) */
		r->huffman = (o & 0x80) != 0;
		return start_int(r, t, o, 7, W_VALUE_LEN);
	}
}

/* String octets from in[len]; the octets used into *used. */
static long string_octets(struct shb_qpack_encrd *r,
			  struct shb_qpack_table *t, const uint8_t *in,
			  size_t len, size_t *used)
{
	size_t n = len < r->str_left ? len : (size_t)r->str_left;

	shb_buf_put(r->huffman ? &r->raw : &r->nv, in, n);
	if (r->raw.err || r->nv.err)
		return fail(r, "out of memory for the dynamic table");
	r->str_left -= n;
	*used = n;
	return r->str_left == 0 ? string_end(r, t) : 0;
}

long shb_qpack_encrd_feed(struct shb_qpack_encrd *r,
			  struct shb_qpack_table *t, const uint8_t *in,
			  size_t len)
{
	uint64_t before = r->inserts;
	size_t i = 0;

	if (r->detail)
		return -1;
	while (i < len) {
		long rc;

		if (r->state == ES_STRING) {
			size_t n = 0;

			rc = string_octets(r, t, in + i, len - i, &n);
			i += n;
		} else {
			rc = octet(r, t, in[i++]);
		}
		if (rc < 0)
			return -1;
	}
	return (long)(r->inserts - before);
}
