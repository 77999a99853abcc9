/* Response header block scanner: see h2_hscan.h. */
#include "h2_hscan.h"

#include <string.h>

#include "h2_hpack.h"
#include "http_status.h"

enum {
	ST_FIELD,   /* expecting the first octet of a representation */
	ST_INT,     /* inside a multi-octet integer */
	ST_STR_LEN, /* expecting a string's first (length) octet */
	ST_STR,     /* inside a string's octets */
};

enum { T_INDEX, T_NAME_INDEX, T_SIZE_UPDATE, T_STR_LEN };
enum { P_NAME, P_VALUE };

static const char status_name[] = ":status";

void shb_h2_hscan_begin(struct shb_h2_hscan *s, struct shb_h2_dtable *table)
{
	memset(s, 0, sizeof(*s));
	s->table = table;
}

static void found_status(struct shb_h2_hscan *s, int code)
{
	if (s->status != 0) {
		s->multi_status = 1;
		return;
	}
	s->status = code > 0 ? code : -1;
}

static int name_is_status(const struct shb_h2_hscan *s)
{
	uint8_t plain[16];
	size_t n = 0;

	if (s->too_long)
		return 0;
	if (!s->huffman)
		return s->collected == sizeof(status_name) - 1 &&
		       memcmp(s->sbuf, status_name, s->collected) == 0;
	if (shb_huff_decode(s->sbuf, s->collected, plain, sizeof(plain), &n) !=
	    SHB_HUFF_OK)
		return 0;
	return n == sizeof(status_name) - 1 &&
	       memcmp(plain, status_name, n) == 0;
}

/* Adds n decoded octets to the field being indexed. Past the table's
 * maximum the exact size no longer matters: the entry empties the table
 * (RFC 7541 Section 4.4), so counting stops. */
static void grow_entry(struct shb_h2_hscan *s, uint64_t n)
{
	s->ent_len += n;
	if (s->ent_len + SHB_H2_DTABLE_OVERHEAD > s->table->max) {
		s->oversize = 1;
		s->counting = 0;
	}
}

static void field_done(struct shb_h2_hscan *s)
{
	s->field_count++;
	s->is_status = 0;
	s->indexing = 0;
	s->oversize = 0;
	s->ent_len = 0;
	s->name_len = 0;
	s->state = ST_FIELD;
}

/* A whole name or value string has gone by. */
static int string_done(struct shb_h2_hscan *s)
{
	int code = 0;

	if (s->counting) {
		s->counting = 0;
		if (shb_huff_count_end(&s->hc) != SHB_HUFF_OK)
			return SHB_H2_HSCAN_E_HUFFMAN;
		grow_entry(s, s->hc.len);
	}
	if (s->part == P_NAME) {
		s->is_status = (uint8_t)name_is_status(s);
		s->name_len = (uint32_t)(s->oversize ? 0 : s->ent_len);
		s->part = P_VALUE;
		s->state = ST_STR_LEN;
		return SHB_H2_HSCAN_OK;
	}
	if (s->is_status) {
		code = s->too_long ? -1
				   : shb_http_status_decode(s->sbuf, s->collected,
							    s->huffman);
		found_status(s, code);
	}
	/* The entry exists from the next representation on (Section 3.2). */
	if (s->indexing)
		shb_h2_dtable_insert(s->table,
				     s->oversize ? UINT64_MAX
						 : s->ent_len + SHB_H2_DTABLE_OVERHEAD,
				     s->name_len, code);
	field_done(s);
	return SHB_H2_HSCAN_OK;
}

/* The representation's index names a static entry or a dynamic one; sets
 * what the field inherits from it. */
static int name_ref(struct shb_h2_hscan *s, uint64_t v)
{
	const struct shb_h2_dtable_entry *e;

	if (v <= SHB_HPACK_STATIC_COUNT) {
		s->is_status = shb_hpack_static_status(v) != 0;
		if (s->indexing)
			grow_entry(s, strlen(shb_hpack_static_get(v)->name));
	} else {
		e = shb_h2_dtable_get(s->table, v - SHB_HPACK_STATIC_COUNT);
		if (!e)
			return SHB_H2_HSCAN_E_INDEX;
		s->is_status = e->status != 0;
		if (s->indexing)
			grow_entry(s, e->name_len);
	}
	s->name_len = (uint32_t)s->ent_len;
	return SHB_H2_HSCAN_OK;
}

static int indexed_field(struct shb_h2_hscan *s, uint64_t v)
{
	const struct shb_h2_dtable_entry *e;

	if (v <= SHB_HPACK_STATIC_COUNT) {
		if (shb_hpack_static_status(v))
			found_status(s, shb_hpack_static_status(v));
	} else {
		e = shb_h2_dtable_get(s->table, v - SHB_HPACK_STATIC_COUNT);
		if (!e)
			return SHB_H2_HSCAN_E_INDEX;
		if (e->status)
			found_status(s, e->status);
	}
	field_done(s);
	return SHB_H2_HSCAN_OK;
}

static int string_len(struct shb_h2_hscan *s, uint64_t v)
{
	if (v > UINT32_MAX)
		return SHB_H2_HSCAN_E_INTEGER;
	s->left = v;
	s->collected = 0;
	s->too_long = v > sizeof(s->sbuf);
	s->state = ST_STR;
	if (s->indexing && !s->oversize) {
		if (s->huffman) {
			shb_huff_count_begin(&s->hc);
			s->counting = 1;
		} else {
			grow_entry(s, v);
		}
	}
	return v == 0 ? string_done(s) : SHB_H2_HSCAN_OK;
}

/* An integer is complete: act on what it was. */
static int int_done(struct shb_h2_hscan *s)
{
	uint64_t v = s->num.value;

	switch (s->target) {
	case T_INDEX:
		if (v == 0)
			return SHB_H2_HSCAN_E_INDEX0;
		return indexed_field(s, v);
	case T_NAME_INDEX:
		s->part = v == 0 ? P_NAME : P_VALUE;
		s->state = ST_STR_LEN;
		return v == 0 ? SHB_H2_HSCAN_OK : name_ref(s, v);
	case T_SIZE_UPDATE:
		/* Updates belong at the start of a block (Section 4.2). */
		if (s->fields)
			return SHB_H2_HSCAN_E_SIZE_LATE;
		if (shb_h2_dtable_resize(s->table, v) < 0)
			return SHB_H2_HSCAN_E_SIZE_UPDATE;
		s->state = ST_FIELD;
		return SHB_H2_HSCAN_OK;
	default: /* T_STR_LEN */
		return string_len(s, v);
	}
}

static int begin_int(struct shb_h2_hscan *s, uint8_t b, unsigned prefix,
		     uint8_t target)
{
	s->target = target;
	if (shb_prefint_begin(&s->num, b, prefix) == SHB_PREFINT_DONE)
		return int_done(s);
	s->state = ST_INT;
	return SHB_H2_HSCAN_OK;
}

static int begin_field(struct shb_h2_hscan *s, uint8_t b)
{
	if (b & 0x80) { /* indexed field */
		s->fields = 1;
		return begin_int(s, b, 7, T_INDEX);
	}
	if (b & 0x40) { /* literal with incremental indexing */
		s->fields = 1;
		s->indexing = 1;
		return begin_int(s, b, 6, T_NAME_INDEX);
	}
	if (b & 0x20) /* dynamic table size update */
		return begin_int(s, b, 5, T_SIZE_UPDATE);
	s->fields = 1; /* literal without indexing, or never indexed */
	return begin_int(s, b, 4, T_NAME_INDEX);
}

/* Takes string octets from p[n] and sets *used. Only a literal name or a
 * :status value is kept, and only its first octets; a Huffman string that
 * goes into the table is counted. */
static int take_string(struct shb_h2_hscan *s, const uint8_t *p, size_t n,
		       size_t *used)
{
	size_t take = n < s->left ? n : (size_t)s->left;

	if ((s->part == P_NAME || s->is_status) && !s->too_long) {
		memcpy(s->sbuf + s->collected, p, take);
		s->collected = (uint8_t)(s->collected + take);
	}
	if (s->counting) {
		if (shb_huff_count_feed(&s->hc, p, take) != SHB_HUFF_OK)
			return SHB_H2_HSCAN_E_HUFFMAN;
		if (s->ent_len + s->hc.len + SHB_H2_DTABLE_OVERHEAD >
		    s->table->max)
			grow_entry(s, s->hc.len);
	}
	*used = take;
	s->left -= take;
	return s->left == 0 ? string_done(s) : SHB_H2_HSCAN_OK;
}

int shb_h2_hscan_feed(struct shb_h2_hscan *s, const uint8_t *p, size_t n)
{
	size_t i = 0, used;
	int rc = SHB_H2_HSCAN_OK;

	while (i < n && rc == SHB_H2_HSCAN_OK) {
		switch (s->state) {
		case ST_FIELD:
			rc = begin_field(s, p[i++]);
			break;
		case ST_INT: {
			int r = shb_prefint_next(&s->num, p[i++]);

			if (r == SHB_PREFINT_E_RANGE)
				return SHB_H2_HSCAN_E_INTEGER;
			if (r == SHB_PREFINT_DONE)
				rc = int_done(s);
			break;
		}
		case ST_STR_LEN:
			s->huffman = (p[i] & 0x80) != 0;
			rc = begin_int(s, p[i++], 7, T_STR_LEN);
			break;
		default: /* ST_STR */
			used = 0;
			rc = take_string(s, p + i, n - i, &used);
			i += used;
			break;
		}
	}
	return rc;
}

int shb_h2_hscan_end(const struct shb_h2_hscan *s)
{
	return s->state == ST_FIELD ? SHB_H2_HSCAN_OK : SHB_H2_HSCAN_E_TRUNCATED;
}

int shb_h2_hscan_status(const struct shb_h2_hscan *s)
{
	return s->multi_status ? -1 : s->status;
}

const char *shb_h2_hscan_strerror(int err)
{
	switch (err) {
	case SHB_H2_HSCAN_OK: return "no error";
	case SHB_H2_HSCAN_E_INDEX0: return "HPACK index 0";
	case SHB_H2_HSCAN_E_INDEX:
		return "HPACK index beyond the dynamic table";
	case SHB_H2_HSCAN_E_SIZE_LATE:
		return "HPACK table size update after a field";
	case SHB_H2_HSCAN_E_SIZE_UPDATE:
		return "HPACK table size update above our SETTINGS_HEADER_TABLE_SIZE";
	case SHB_H2_HSCAN_E_INTEGER: return "HPACK integer out of range";
	case SHB_H2_HSCAN_E_TRUNCATED:
		return "HPACK header block ends inside a field";
	case SHB_H2_HSCAN_E_HUFFMAN:
		return "HPACK Huffman string with an EOS or bad padding";
	default: return "HPACK error";
	}
}
