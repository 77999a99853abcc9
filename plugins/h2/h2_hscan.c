/* Response header block scanner: see h2_hscan.h. */
#include "h2_hscan.h"

#include <string.h>

#include "h2_hpack.h"
#include "http_huffman.h"
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

void shb_h2_hscan_begin(struct shb_h2_hscan *s)
{
	memset(s, 0, sizeof(*s));
}

static void found_status(struct shb_h2_hscan *s, int code)
{
	if (s->status != 0) {
		s->multi_status = 1;
		return;
	}
	s->status = code > 0 ? code : -1;
}

static int static_ref(uint64_t index)
{
	if (index == 0)
		return SHB_H2_HSCAN_E_INDEX0;
	if (index > SHB_HPACK_STATIC_COUNT)
		return SHB_H2_HSCAN_E_DYNAMIC;
	return SHB_H2_HSCAN_OK;
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

static void field_done(struct shb_h2_hscan *s)
{
	s->field_count++;
	s->is_status = 0;
	s->state = ST_FIELD;
}

/* A whole name or value string has gone by. */
static void string_done(struct shb_h2_hscan *s)
{
	if (s->part == P_NAME) {
		s->is_status = (uint8_t)name_is_status(s);
		s->part = P_VALUE;
		s->state = ST_STR_LEN;
		return;
	}
	if (s->is_status)
		found_status(s, s->too_long ? -1
					    : shb_http_status_decode(
						      s->sbuf, s->collected,
						      s->huffman));
	field_done(s);
}

/* An integer is complete: act on what it was. */
static int int_done(struct shb_h2_hscan *s)
{
	uint64_t v = s->num.value;
	int rc;

	switch (s->target) {
	case T_INDEX:
		if ((rc = static_ref(v)) != SHB_H2_HSCAN_OK)
			return rc;
		if (shb_hpack_static_status(v))
			found_status(s, shb_hpack_static_status(v));
		field_done(s);
		return SHB_H2_HSCAN_OK;
	case T_NAME_INDEX:
		s->part = v == 0 ? P_NAME : P_VALUE;
		if (v != 0) {
			if ((rc = static_ref(v)) != SHB_H2_HSCAN_OK)
				return rc;
			s->is_status = shb_hpack_static_status(v) != 0;
		}
		s->state = ST_STR_LEN;
		return SHB_H2_HSCAN_OK;
	case T_SIZE_UPDATE:
		/* Our SETTINGS_HEADER_TABLE_SIZE is 0, and updates belong
		 * at the start of a block. */
		if (v != 0 || s->fields)
			return SHB_H2_HSCAN_E_SIZE_UPDATE;
		s->state = ST_FIELD;
		return SHB_H2_HSCAN_OK;
	default: /* T_STR_LEN */
		if (v > UINT32_MAX)
			return SHB_H2_HSCAN_E_INTEGER;
		s->left = v;
		s->collected = 0;
		s->too_long = v > sizeof(s->sbuf);
		s->state = ST_STR;
		if (v == 0)
			string_done(s);
		return SHB_H2_HSCAN_OK;
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
		return begin_int(s, b, 6, T_NAME_INDEX);
	}
	if (b & 0x20) /* dynamic table size update */
		return begin_int(s, b, 5, T_SIZE_UPDATE);
	s->fields = 1; /* literal without indexing, or never indexed */
	return begin_int(s, b, 4, T_NAME_INDEX);
}

/* Takes string octets from p[n]; returns how many. Only a literal name
 * or a :status value is kept, and only its first octets. */
static size_t take_string(struct shb_h2_hscan *s, const uint8_t *p, size_t n)
{
	size_t take = n < s->left ? n : (size_t)s->left;

	if ((s->part == P_NAME || s->is_status) && !s->too_long) {
		memcpy(s->sbuf + s->collected, p, take);
		s->collected = (uint8_t)(s->collected + take);
	}
	s->left -= take;
	if (s->left == 0)
		string_done(s);
	return take;
}

int shb_h2_hscan_feed(struct shb_h2_hscan *s, const uint8_t *p, size_t n)
{
	size_t i = 0;
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
			i += take_string(s, p + i, n - i);
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
	case SHB_H2_HSCAN_E_DYNAMIC:
		return "HPACK dynamic table reference, but our table size is 0";
	case SHB_H2_HSCAN_E_SIZE_UPDATE:
		return "HPACK table size update above 0 or after a field";
	case SHB_H2_HSCAN_E_INTEGER: return "HPACK integer out of range";
	case SHB_H2_HSCAN_E_TRUNCATED:
		return "HPACK header block ends inside a field";
	default: return "HPACK error";
	}
}
